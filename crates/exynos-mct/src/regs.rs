//! The MCT register map: every offset and field defined once, with its source.
//!
//! Sources (summarised in the repository's `docs/exynos-mct.md`):
//! `torvalds/linux drivers/clocksource/exynos_mct.c` (mainline as tracked by
//! `Kingxukai/linux`) for every offset and bit Linux uses, and
//! `qemu/qemu hw/timer/exynos4210_mct.c` for the ones only the QEMU model names
//! (`L_FRCNTB`/`L_FRCNTO`, `L_INT_*` bit 1, `L_TCON` bit 3, `L_WSTAT` bit 2, the `MCT_CFG`
//! fields). Names follow Linux (`EXYNOS4_MCT_G_CNT_L` → [`G_CNT_L`]) so a reader can
//! cross-check. All registers are 32 bits wide and little-endian; offsets are relative to
//! the MCT base (`0x1005_0000` on Exynos4210, see [`EXYNOS4210_BASE`]).
//!
//! ```
//! use exynos_mct::regs::{self, G_TCON, L_ICNTB};
//!
//! // Comparator 2's low word, local timer 1's TCON.
//! assert_eq!(regs::g_comp_l(2).offset(), 0x220);
//! assert_eq!(regs::LocalRegs::of(1).tcon.offset(), 0x420);
//! // G_TCON bit 8 starts the free-running counter; COMPn_ENABLE is bit 2n.
//! assert_eq!((G_TCON::TIMER_ENABLE::SET).value, 1 << 8);
//! assert_eq!(regs::g_tcon_comp_enable(3), 1 << 6);
//! // L_ICNTB with the manual-update bit (31), as Linux writes it.
//! assert_eq!((L_ICNTB::MANUAL_UPDATE::SET + L_ICNTB::COUNT.val(0x1234)).value, 0x8000_1234);
//! ```

use hwtimer_core::Reg;
use tock_registers::register_bitfields;

/// MCT base address on Exynos4210 (`qemu/qemu hw/arm/exynos4210.c`; Linux exynos4210 DTS
/// `reg = <0x10050000 0x800>`).
pub const EXYNOS4210_BASE: usize = 0x1005_0000;
/// Size of the register window in the device tree (`0x800`). QEMU's model decodes the
/// first `0x444` bytes.
pub const WINDOW_LEN: usize = 0x800;
/// Input clock (`fin_pll`) on every known Exynos board and in QEMU: 24 MHz.
pub const FIN_PLL_HZ: u32 = 24_000_000;
/// Number of global comparators.
pub const NUM_COMPARATORS: usize = 4;
/// Number of local timers on Exynos4210 (QEMU models L0 and L1).
pub const EXYNOS4210_LOCAL_TIMERS: usize = 2;
/// The most local timers any MCT has (Linux supports up to 16).
pub const MAX_LOCAL_TIMERS: usize = 16;
/// Distance between global comparator register groups.
pub const COMP_STRIDE: usize = 0x10;
/// Base of local timer 0's registers.
pub const LOCAL_BASE: usize = 0x300;
/// Distance between local timer register blocks.
pub const LOCAL_STRIDE: usize = 0x100;

/// Linux's `TICK_BASE_CNT`: the value written to `L_TCNTB`, so a local timer's interrupt
/// counter advances every `TCNTB + 1 = 2` input clocks (`fin_pll / 2`, 12 MHz).
pub const TICK_BASE_CNT: u32 = 1;

register_bitfields![u32,
    /// `MCT_CFG` (0x000): input clock prescaler and divider. Linux never writes it; QEMU
    /// divides 24 MHz by `(PRESCALER + 1) << DIVIDER`.
    #[allow(missing_docs)]
    pub MCT_CFG [
        /// Prescaler: divide by `PRESCALER + 1`.
        PRESCALER OFFSET(0) NUMBITS(8) [],
        /// Divider select: divide by `1 << DIVIDER` (QEMU).
        DIVIDER OFFSET(8) NUMBITS(3) []
    ],
    /// `G_CNT_WSTAT` (0x110): write status of the FRC registers; write 1 to clear.
    #[allow(missing_docs)]
    pub G_CNT_WSTAT [
        /// A `G_CNT_L` write has taken effect.
        CNT_L OFFSET(0) NUMBITS(1) [],
        /// A `G_CNT_U` write has taken effect.
        CNT_U OFFSET(1) NUMBITS(1) []
    ],
    /// `G_TCON` (0x240): global timer control. Comparator `n` uses bits `2n` and `2n+1`
    /// (see [`g_tcon_comp_enable`], [`g_tcon_auto_inc`]).
    #[allow(missing_docs)]
    pub G_TCON [
        /// Comparator 0 enable.
        COMP0_ENABLE OFFSET(0) NUMBITS(1) [],
        /// Comparator 0 auto-increment (add `G_COMP0_ADD_INCR` after each match).
        COMP0_AUTO_INC OFFSET(1) NUMBITS(1) [],
        /// Start the global free-running counter.
        TIMER_ENABLE OFFSET(8) NUMBITS(1) []
    ],
    /// `G_INT_CSTAT` (0x244, write 1 to clear) and `G_INT_ENB` (0x248): bit `n` is
    /// comparator `n`.
    #[allow(missing_docs)]
    pub G_INT [
        /// Comparator 0.
        COMP0 OFFSET(0) NUMBITS(1) [],
        /// Comparator 1.
        COMP1 OFFSET(1) NUMBITS(1) [],
        /// Comparator 2.
        COMP2 OFFSET(2) NUMBITS(1) [],
        /// Comparator 3.
        COMP3 OFFSET(3) NUMBITS(1) []
    ],
    /// `G_WSTAT` (0x24C): write status of the global registers; write 1 to clear.
    /// Comparator `n` uses bits `4n` (L), `4n+1` (U), `4n+2` (ADD_INCR).
    #[allow(missing_docs)]
    pub G_WSTAT [
        /// `G_COMP0_L` written.
        COMP0_L OFFSET(0) NUMBITS(1) [],
        /// `G_COMP0_U` written.
        COMP0_U OFFSET(1) NUMBITS(1) [],
        /// `G_COMP0_ADD_INCR` written.
        COMP0_ADD_INCR OFFSET(2) NUMBITS(1) [],
        /// `G_TCON` written.
        TCON OFFSET(16) NUMBITS(1) []
    ],
    /// `L_ICNTB` (+0x08): interrupt counter buffer.
    #[allow(missing_docs)]
    pub L_ICNTB [
        /// Ticks per interrupt, 31 bits.
        COUNT OFFSET(0) NUMBITS(31) [],
        /// Load the new count into the running interrupt counter now (Linux
        /// `MCT_L_UPDATE_ICNTB`).
        MANUAL_UPDATE OFFSET(31) NUMBITS(1) []
    ],
    /// `L_TCON` (+0x20): local timer control.
    #[allow(missing_docs)]
    pub L_TCON [
        /// Start the tick counter (`MCT_L_TCON_TIMER_START`).
        TIMER_START OFFSET(0) NUMBITS(1) [],
        /// Start the interrupt counter (`MCT_L_TCON_INT_START`).
        INT_START OFFSET(1) NUMBITS(1) [],
        /// Interval (auto-reload) mode (`MCT_L_TCON_INTERVAL_MODE`).
        INTERVAL_MODE OFFSET(2) NUMBITS(1) [],
        /// Start the local free-running counter (QEMU model).
        FRC_START OFFSET(3) NUMBITS(1) []
    ],
    /// `L_INT_CSTAT` (+0x30, write 1 to clear) and `L_INT_ENB` (+0x34).
    #[allow(missing_docs)]
    pub L_INT [
        /// The interrupt counter expired.
        ICNT OFFSET(0) NUMBITS(1) [],
        /// The local FRC expired (QEMU model).
        FRC OFFSET(1) NUMBITS(1) []
    ],
    /// `L_WSTAT` (+0x40): write status of the local registers; write 1 to clear.
    #[allow(missing_docs)]
    pub L_WSTAT [
        /// `L_TCNTB` written.
        TCNTB OFFSET(0) NUMBITS(1) [],
        /// `L_ICNTB` written.
        ICNTB OFFSET(1) NUMBITS(1) [],
        /// `L_FRCNTB` written (QEMU model).
        FRCNTB OFFSET(2) NUMBITS(1) [],
        /// `L_TCON` written.
        TCON OFFSET(3) NUMBITS(1) []
    ]
];

/// `MCT_CFG`.
pub const MCT_CFG_REG: Reg<u32, MCT_CFG::Register> = Reg::new(0x000);
/// `G_CNT_L`: FRC low word (writable, tracked by `G_CNT_WSTAT.CNT_L`).
pub const G_CNT_L: Reg<u32> = Reg::new(0x100);
/// `G_CNT_U`: FRC high word (writable, tracked by `G_CNT_WSTAT.CNT_U`).
pub const G_CNT_U: Reg<u32> = Reg::new(0x104);
/// `G_CNT_WSTAT`.
pub const G_CNT_WSTAT_REG: Reg<u32, G_CNT_WSTAT::Register> = Reg::new(0x110);
/// `G_TCON`.
pub const G_TCON_REG: Reg<u32, G_TCON::Register> = Reg::new(0x240);
/// `G_INT_CSTAT`.
pub const G_INT_CSTAT: Reg<u32, G_INT::Register> = Reg::new(0x244);
/// `G_INT_ENB`.
pub const G_INT_ENB: Reg<u32, G_INT::Register> = Reg::new(0x248);
/// `G_WSTAT`.
pub const G_WSTAT_REG: Reg<u32, G_WSTAT::Register> = Reg::new(0x24C);

/// The offset the index helpers below return for an index out of range (a comparator
/// `n >= 4`, a local timer `i >= 16`): the last aligned word of the address space, outside
/// every register window (an [`Mmio`](hwtimer_core::Mmio) reads it as all ones and drops
/// writes to it; so does the model). An out-of-range index never aliases another register
/// and never overflows.
pub const NO_REGISTER: usize = usize::MAX & !3;

/// `0x200 + 0x10·n + reg` for a comparator `n < 4`, else [`NO_REGISTER`].
#[inline]
const fn comp_offset(n: usize, reg: usize) -> usize {
    if n < NUM_COMPARATORS {
        // n < 4 and reg < 0x10: at most 0x23C, no overflow.
        0x200usize
            .wrapping_add(n.wrapping_mul(COMP_STRIDE))
            .wrapping_add(reg)
    } else {
        NO_REGISTER
    }
}

/// `mask << (per · n)` for a comparator `n < 4`, else 0 (no bit).
#[inline]
const fn comp_bit(mask: u32, per: u32, n: usize) -> u32 {
    if n < NUM_COMPARATORS {
        // n < 4, per <= 4: a shift of at most 12.
        mask.wrapping_shl(per.wrapping_mul(n as u32))
    } else {
        0
    }
}

/// `G_COMPn_L` (n = 0..3): comparator `n`, low word ([`NO_REGISTER`] for `n >= 4`).
#[inline]
pub const fn g_comp_l(n: usize) -> Reg<u32> {
    Reg::new(comp_offset(n, 0x0))
}
/// `G_COMPn_U`: comparator `n`, high word ([`NO_REGISTER`] for `n >= 4`).
#[inline]
pub const fn g_comp_u(n: usize) -> Reg<u32> {
    Reg::new(comp_offset(n, 0x4))
}
/// `G_COMPn_ADD_INCR`: added to comparator `n` after each match when auto-increment is on
/// ([`NO_REGISTER`] for `n >= 4`).
#[inline]
pub const fn g_comp_add_incr(n: usize) -> Reg<u32> {
    Reg::new(comp_offset(n, 0x8))
}
/// `G_TCON` bit `2n`: comparator `n` enable (0 for `n >= 4`).
#[inline]
pub const fn g_tcon_comp_enable(n: usize) -> u32 {
    comp_bit(G_TCON::COMP0_ENABLE.mask, 2, n)
}
/// `G_TCON` bit `2n + 1`: comparator `n` auto-increment (0 for `n >= 4`).
#[inline]
pub const fn g_tcon_auto_inc(n: usize) -> u32 {
    comp_bit(
        G_TCON::COMP0_AUTO_INC.mask << G_TCON::COMP0_AUTO_INC.shift,
        2,
        n,
    )
}
/// `G_INT_CSTAT` / `G_INT_ENB` bit `n`: comparator `n` (0 for `n >= 4`).
#[inline]
pub const fn g_int_comp(n: usize) -> u32 {
    comp_bit(1, 1, n)
}
/// `G_WSTAT` bit `4n`: `G_COMPn_L` written (0 for `n >= 4`).
#[inline]
pub const fn g_wstat_comp_l(n: usize) -> u32 {
    comp_bit(1, 4, n)
}
/// `G_WSTAT` bit `4n + 1`: `G_COMPn_U` written (0 for `n >= 4`).
#[inline]
pub const fn g_wstat_comp_u(n: usize) -> u32 {
    comp_bit(1 << 1, 4, n)
}
/// `G_WSTAT` bit `4n + 2`: `G_COMPn_ADD_INCR` written (0 for `n >= 4`).
#[inline]
pub const fn g_wstat_comp_add_incr(n: usize) -> u32 {
    comp_bit(1 << 2, 4, n)
}

/// Every write-status bit of `G_CNT_WSTAT` (`CNT_L`, `CNT_U`): written once by
/// [`Mct::new`](crate::Mct::new) to clear acknowledgements left by earlier software.
pub const G_CNT_WSTAT_ALL: u32 = 0b11;
/// Every write-status bit of `G_WSTAT`: bits `4n..=4n+2` of the four comparators and `TCON`.
pub const G_WSTAT_ALL: u32 = 0x0001_7777;
/// Every write-status bit of `L_WSTAT` (`TCNTB`, `ICNTB`, `FRCNTB`, `TCON`).
pub const L_WSTAT_ALL: u32 = 0b1111;

/// `0x300 + 0x100·i + reg` for a local timer `i < 16`, else [`NO_REGISTER`].
#[inline]
const fn local_offset(i: usize, reg: usize) -> usize {
    if i < MAX_LOCAL_TIMERS {
        // i < 16, reg < 0x100: at most 0x12FC, no overflow.
        LOCAL_BASE
            .wrapping_add(i.wrapping_mul(LOCAL_STRIDE))
            .wrapping_add(reg)
    } else {
        NO_REGISTER
    }
}

/// The registers of local timer `i` (base `0x300 + 0x100 * i`).
#[derive(Debug, Clone, Copy)]
pub struct LocalRegs {
    /// `L_TCNTB` (+0x00): tick counter buffer; one tick every `TCNTB + 1` input clocks.
    pub tcntb: Reg<u32>,
    /// `L_TCNTO` (+0x04, RO): tick counter observation.
    pub tcnto: Reg<u32>,
    /// `L_ICNTB` (+0x08): interrupt counter buffer.
    pub icntb: Reg<u32, L_ICNTB::Register>,
    /// `L_ICNTO` (+0x0C, RO): interrupt counter observation.
    pub icnto: Reg<u32>,
    /// `L_FRCNTB` (+0x10): local free-running counter buffer.
    pub frcntb: Reg<u32>,
    /// `L_FRCNTO` (+0x14, RO): local free-running counter observation.
    pub frcnto: Reg<u32>,
    /// `L_TCON` (+0x20).
    pub tcon: Reg<u32, L_TCON::Register>,
    /// `L_INT_CSTAT` (+0x30, write 1 to clear).
    pub int_cstat: Reg<u32, L_INT::Register>,
    /// `L_INT_ENB` (+0x34).
    pub int_enb: Reg<u32, L_INT::Register>,
    /// `L_WSTAT` (+0x40, write 1 to clear).
    pub wstat: Reg<u32, L_WSTAT::Register>,
}

impl LocalRegs {
    /// The registers of one local timer at their offsets within its own
    /// [`LOCAL_STRIDE`]-byte block (a local timer driver takes that block once and reaches
    /// its registers at these constant offsets).
    pub const OWN: Self = Self {
        tcntb: Reg::new(0x00),
        tcnto: Reg::new(0x04),
        icntb: Reg::new(0x08),
        icnto: Reg::new(0x0C),
        frcntb: Reg::new(0x10),
        frcnto: Reg::new(0x14),
        tcon: Reg::new(0x20),
        int_cstat: Reg::new(0x30),
        int_enb: Reg::new(0x34),
        wstat: Reg::new(0x40),
    };

    /// Local timer `i`'s registers; every register is [`NO_REGISTER`] for
    /// `i >= MAX_LOCAL_TIMERS`.
    #[inline]
    pub const fn of(i: usize) -> Self {
        Self {
            tcntb: Reg::new(local_offset(i, 0x00)),
            tcnto: Reg::new(local_offset(i, 0x04)),
            icntb: Reg::new(local_offset(i, 0x08)),
            icnto: Reg::new(local_offset(i, 0x0C)),
            frcntb: Reg::new(local_offset(i, 0x10)),
            frcnto: Reg::new(local_offset(i, 0x14)),
            tcon: Reg::new(local_offset(i, 0x20)),
            int_cstat: Reg::new(local_offset(i, 0x30)),
            int_enb: Reg::new(local_offset(i, 0x34)),
            wstat: Reg::new(local_offset(i, 0x40)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timer's own offsets plus its block's base are its offsets in the whole block.
    #[test]
    fn own_offsets_are_the_block_relative_ones() {
        let own = LocalRegs::OWN;
        for i in 0..MAX_LOCAL_TIMERS {
            let r = LocalRegs::of(i);
            let base = LOCAL_BASE + i * LOCAL_STRIDE;
            for (a, b) in [
                (own.tcntb, r.tcntb),
                (own.tcnto, r.tcnto),
                (own.icnto, r.icnto),
                (own.frcntb, r.frcntb),
                (own.frcnto, r.frcnto),
            ] {
                assert_eq!(a.offset() + base, b.offset());
            }
            assert_eq!(own.icntb.offset() + base, r.icntb.offset());
            assert_eq!(own.tcon.offset() + base, r.tcon.offset());
            assert_eq!(own.int_cstat.offset() + base, r.int_cstat.offset());
            assert_eq!(own.int_enb.offset() + base, r.int_enb.offset());
            assert_eq!(own.wstat.offset() + base, r.wstat.offset());
            assert!(own.wstat.offset() + 4 <= LOCAL_STRIDE);
        }
    }

    /// Offsets against the register table of `docs/exynos-mct.md` (one row per assertion).
    #[test]
    fn offsets_match_the_reference_table() {
        assert_eq!(MCT_CFG_REG.offset(), 0x000);
        assert_eq!(G_CNT_L.offset(), 0x100);
        assert_eq!(G_CNT_U.offset(), 0x104);
        assert_eq!(G_CNT_WSTAT_REG.offset(), 0x110);
        for n in 0..NUM_COMPARATORS {
            assert_eq!(g_comp_l(n).offset(), 0x200 + 0x10 * n);
            assert_eq!(g_comp_u(n).offset(), 0x204 + 0x10 * n);
            assert_eq!(g_comp_add_incr(n).offset(), 0x208 + 0x10 * n);
            assert_eq!(g_tcon_comp_enable(n), 1 << (2 * n));
            assert_eq!(g_tcon_auto_inc(n), 1 << (2 * n + 1));
            assert_eq!(g_wstat_comp_l(n), 1 << (4 * n));
            assert_eq!(g_wstat_comp_u(n), 1 << (4 * n + 1));
            assert_eq!(g_wstat_comp_add_incr(n), 1 << (4 * n + 2));
        }
        assert_eq!(G_TCON_REG.offset(), 0x240);
        assert_eq!(G_INT_CSTAT.offset(), 0x244);
        assert_eq!(G_INT_ENB.offset(), 0x248);
        assert_eq!(G_WSTAT_REG.offset(), 0x24C);
        assert_eq!(G_WSTAT::TCON::SET.value, 1 << 16);
        let l1 = LocalRegs::of(1);
        assert_eq!(
            [
                l1.tcntb.offset(),
                l1.tcnto.offset(),
                l1.icntb.offset(),
                l1.icnto.offset(),
                l1.frcntb.offset(),
                l1.frcnto.offset(),
                l1.tcon.offset(),
                l1.int_cstat.offset(),
                l1.int_enb.offset(),
                l1.wstat.offset()
            ],
            [
                0x400, 0x404, 0x408, 0x40C, 0x410, 0x414, 0x420, 0x430, 0x434, 0x440
            ]
        );
        assert_eq!(L_TCON::FRC_START::SET.value, 1 << 3);
        assert_eq!(L_WSTAT::TCON::SET.value, 1 << 3);
        let all = (0..NUM_COMPARATORS).fold(G_WSTAT::TCON::SET.value, |a, n| {
            a | g_wstat_comp_l(n) | g_wstat_comp_u(n) | g_wstat_comp_add_incr(n)
        });
        assert_eq!(all, G_WSTAT_ALL);
    }

    /// Index helpers on any index: no panic, no overflow, no alias of a real register.
    #[test]
    fn index_helpers_never_overflow_or_alias() {
        for n in [
            4,
            5,
            16,
            17,
            31,
            32,
            64,
            1 << 20,
            usize::MAX / 16,
            usize::MAX,
        ] {
            for r in [g_comp_l(n), g_comp_u(n), g_comp_add_incr(n)] {
                assert_eq!(r.offset(), NO_REGISTER, "comparator {n}");
            }
            let bits = [
                g_tcon_comp_enable(n),
                g_tcon_auto_inc(n),
                g_int_comp(n),
                g_wstat_comp_l(n),
                g_wstat_comp_u(n),
                g_wstat_comp_add_incr(n),
            ];
            assert_eq!(bits, [0; 6], "comparator {n}");
        }
        for i in [MAX_LOCAL_TIMERS, MAX_LOCAL_TIMERS + 1, 1 << 40, usize::MAX] {
            let l = LocalRegs::of(i);
            for r in [
                l.tcntb.offset(),
                l.tcon.offset(),
                l.wstat.offset(),
                l.int_cstat.offset(),
            ] {
                assert_eq!(r, NO_REGISTER, "local timer {i}");
            }
        }
        assert!(NO_REGISTER >= WINDOW_LEN && NO_REGISTER.checked_add(4).is_none());
        let last = LocalRegs::of(MAX_LOCAL_TIMERS - 1);
        assert_eq!(last.wstat.offset(), 0x300 + 15 * 0x100 + 0x40);
    }
}
