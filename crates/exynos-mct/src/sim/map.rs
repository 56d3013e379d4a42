//! The model's own register map of the Exynos MCT, each fact cited beside it. Nothing here
//! is taken from the driver ([`crate::regs`]); `tests/driver/register_map.rs` compares the two
//! maps entry by entry.
//!
//! Sources (facts only; Linux and QEMU are GPL and no code is copied):
//!
//! - **(L)** `torvalds/linux drivers/clocksource/exynos_mct.c`: the `EXYNOS4_MCT_*` and
//!   `MCT_L_*` offsets, `MCT_G_TCON_START`, the `MCT_L_TCON_*` bits, `MCT_L_UPDATE_ICNTB`
//!   and the write-status bit each buffered write waits for in `exynos4_mct_write`;
//! - **(Q)** `qemu/qemu hw/timer/exynos4210_mct.c`: the same offsets for two local timers,
//!   `L_FRCNTB`/`L_FRCNTO`, `L_TCON_FRC_START`, `L_INT_CSTAT_FRCCNT`,
//!   `L_WSTAT_FRCCNTB_WRITE`, the `MCT_CFG` prescaler (bits 7:0) and divider (bits 10:8,
//!   divide by `1 << field`), `MCT_SFR_SIZE` and `MCT_GT_CMP_NUM`;
//! - **(DT)** `torvalds/linux` Exynos4210 device tree and the
//!   `samsung,exynos4210-mct` binding: `reg = <0x10050000 0x800>`, a 24 MHz `fin_pll`, up
//!   to 16 local timers (`samsung,local-timers`).

/// Size of the register window in the device tree (DT).
pub const WINDOW_LEN: usize = 0x800;
/// The part of the window QEMU decodes (Q `MCT_SFR_SIZE`).
pub const QEMU_SFR_SIZE: usize = 0x444;
/// The input clock, `fin_pll` (DT; QEMU's default MCT frequency).
pub const FIN_PLL_HZ: u32 = 24_000_000;
/// Global comparators (Q `MCT_GT_CMP_NUM`; L comparator offsets for 0..=3).
pub const NUM_COMPARATORS: usize = 4;
/// Local timers on Exynos4210 (Q models L0 and L1; DT).
pub const EXYNOS4210_LOCAL_TIMERS: usize = 2;
/// The most local timers an MCT has: Linux supports up to 16, named by
/// `samsung,local-timers` on newer SoCs (L; DT).
pub const MAX_LOCAL_TIMERS: usize = 16;

/// `MCT_CFG` (Q).
pub const MCT_CFG: usize = 0x000;
/// `MCT_CFG` bits 7:0: divide by `PRESCALER + 1` (Q `MCT_CFG_GET_PRESCALER`).
pub const MCT_CFG_PRESCALER_MASK: u32 = 0xFF;
/// `MCT_CFG` bits 10:8: divide by `1 << DIVIDER` (Q `MCT_CFG_GET_DIVIDER`).
pub const MCT_CFG_DIVIDER_SHIFT: u32 = 8;
/// Width mask of the divider field (Q: `>> 8 & 7`).
pub const MCT_CFG_DIVIDER_MASK: u32 = 0x7;

/// `G_CNT_L`, FRC bits 31:0 (L `EXYNOS4_MCT_G_CNT_L`; Q).
pub const G_CNT_L: usize = 0x100;
/// `G_CNT_U`, FRC bits 63:32 (L; Q).
pub const G_CNT_U: usize = 0x104;
/// `G_CNT_WSTAT` (L; Q).
pub const G_CNT_WSTAT: usize = 0x110;
/// `G_CNT_WSTAT` bit 0: a `G_CNT_L` write took effect (L; Q `G_CNT_WSTAT_L`).
pub const G_CNT_WSTAT_L: u32 = 1 << 0;
/// `G_CNT_WSTAT` bit 1: a `G_CNT_U` write took effect (L; Q `G_CNT_WSTAT_U`).
pub const G_CNT_WSTAT_U: u32 = 1 << 1;

/// `G_COMP0_L` (L; Q).
pub const G_COMP0_L: usize = 0x200;
/// `G_COMP0_U` (L; Q).
pub const G_COMP0_U: usize = 0x204;
/// `G_COMP0_ADD_INCR` (L; Q).
pub const G_COMP0_ADD_INCR: usize = 0x208;
/// Distance between comparator groups (Q `G_COMP_L(x)` = `G_COMP0_L + x * 0x10`).
pub const COMP_STRIDE: usize = 0x10;
/// The last word of the comparator groups (`G_COMP3_ADD_INCR` + 4, reserved).
pub const G_COMP_LAST: usize = G_COMP0_L + NUM_COMPARATORS * COMP_STRIDE - 4;

/// `G_TCON` (L; Q).
pub const G_TCON: usize = 0x240;
/// `G_TCON` bit 8: the FRC runs (L `MCT_G_TCON_START`; Q `G_TCON_TIMER_ENABLE`).
pub const G_TCON_TIMER_ENABLE: u32 = 1 << 8;
/// The defined bits of `G_TCON`: two per comparator and the FRC enable (Q).
pub const G_TCON_DEFINED: u32 = 0x1FF;
/// `G_INT_CSTAT`, write 1 to clear (L; Q).
pub const G_INT_CSTAT: usize = 0x244;
/// `G_INT_ENB` (L; Q).
pub const G_INT_ENB: usize = 0x248;
/// The defined bits of `G_INT_CSTAT` / `G_INT_ENB`: one per comparator (Q).
pub const G_INT_DEFINED: u32 = 0xF;
/// `G_WSTAT`, write 1 to clear (L; Q).
pub const G_WSTAT: usize = 0x24C;
/// `G_WSTAT` bit 16: a `G_TCON` write took effect (L; Q `G_WSTAT_TCON_WRITE`).
pub const G_WSTAT_TCON: u32 = 1 << 16;

/// Comparator `n`'s bit in a per-comparator field of `per` bits, or 0 for `n >= 4`.
const fn comp_bit(bit: u32, per: u32, n: usize) -> u32 {
    if n < NUM_COMPARATORS {
        bit << (per * n as u32)
    } else {
        0
    }
}

/// `G_TCON` bit `2n`: comparator `n` enable (Q `G_TCON_COMP_ENABLE(x)`; L uses comparator 0,
/// bit 0).
pub const fn g_tcon_comp_enable(n: usize) -> u32 {
    comp_bit(1, 2, n)
}
/// `G_TCON` bit `2n + 1`: comparator `n` auto-increment (Q `G_TCON_AUTO_ICREMENT(x)`; L
/// bit 1 for comparator 0).
pub const fn g_tcon_auto_inc(n: usize) -> u32 {
    comp_bit(1 << 1, 2, n)
}
/// `G_INT_CSTAT` / `G_INT_ENB` bit `n` (Q `G_INT_CSTAT_COMP(x)`, `G_INT_ENABLE(x)`).
pub const fn g_int_comp(n: usize) -> u32 {
    comp_bit(1, 1, n)
}
/// `G_WSTAT` bit `4n`: `G_COMPn_L` written (Q `G_WSTAT_COMP_L(x)`; L bit 0 for
/// comparator 0).
pub const fn g_wstat_comp_l(n: usize) -> u32 {
    comp_bit(1, 4, n)
}
/// `G_WSTAT` bit `4n + 1`: `G_COMPn_U` written (Q; L bit 1).
pub const fn g_wstat_comp_u(n: usize) -> u32 {
    comp_bit(1 << 1, 4, n)
}
/// `G_WSTAT` bit `4n + 2`: `G_COMPn_ADD_INCR` written (Q; L bit 2).
pub const fn g_wstat_comp_add_incr(n: usize) -> u32 {
    comp_bit(1 << 2, 4, n)
}

/// Base of local timer 0 (L `EXYNOS4_MCT_L_BASE(0)`; Q `L0_TCNTB`).
pub const LOCAL_BASE: usize = 0x300;
/// Distance between local timers (L `EXYNOS4_MCT_L_BASE(x)` = `0x300 + 0x100 * x`; Q
/// `L1_TCNTB`).
pub const LOCAL_STRIDE: usize = 0x100;
/// `L_TCNTB` (L `MCT_L_TCNTB_OFFSET`; Q).
pub const L_TCNTB: usize = 0x00;
/// `L_TCNTO`, read-only (Q).
pub const L_TCNTO: usize = 0x04;
/// `L_ICNTB` (L `MCT_L_ICNTB_OFFSET`; Q).
pub const L_ICNTB: usize = 0x08;
/// `L_ICNTO`, read-only (Q).
pub const L_ICNTO: usize = 0x0C;
/// `L_FRCNTB` (Q).
pub const L_FRCNTB: usize = 0x10;
/// `L_FRCNTO`, read-only (Q).
pub const L_FRCNTO: usize = 0x14;
/// `L_TCON` (L `MCT_L_TCON_OFFSET`; Q).
pub const L_TCON: usize = 0x20;
/// `L_INT_CSTAT`, write 1 to clear (L `MCT_L_INT_CSTAT_OFFSET`; Q).
pub const L_INT_CSTAT: usize = 0x30;
/// `L_INT_ENB` (L `MCT_L_INT_ENB_OFFSET`; Q).
pub const L_INT_ENB: usize = 0x34;
/// `L_WSTAT`, write 1 to clear (L `MCT_L_WSTAT_OFFSET`; Q).
pub const L_WSTAT: usize = 0x40;

/// `L_ICNTB` bit 31: load the count into the running counter now (L
/// `MCT_L_UPDATE_ICNTB`; Q `L_ICNTB_MANUAL_UPDATE`).
pub const L_ICNTB_MANUAL_UPDATE: u32 = 1 << 31;
/// `L_ICNTB` bits 30:0, the count: every bit but the manual-update flag (L writes
/// `MCT_L_UPDATE_ICNTB | cycles`).
pub const L_ICNTB_COUNT_MASK: u32 = !L_ICNTB_MANUAL_UPDATE;

/// `L_TCON` bit 0: start the tick counter (L `MCT_L_TCON_TIMER_START`; Q).
pub const L_TCON_TIMER_START: u32 = 1 << 0;
/// `L_TCON` bit 1: start the interrupt counter (L `MCT_L_TCON_INT_START`; Q).
pub const L_TCON_INT_START: u32 = 1 << 1;
/// `L_TCON` bit 2: interval (auto-reload) mode (L `MCT_L_TCON_INTERVAL_MODE`; Q).
pub const L_TCON_INTERVAL_MODE: u32 = 1 << 2;
/// `L_TCON` bit 3: start the local FRC (Q `L_TCON_FRC_START`).
pub const L_TCON_FRC_START: u32 = 1 << 3;
/// The defined bits of `L_TCON` (Q).
pub const L_TCON_DEFINED: u32 = 0xF;

/// `L_INT_CSTAT` / `L_INT_ENB` bit 0: the interrupt counter expired (L writes 1 to
/// `L_INT_ENB` and acknowledges bit 0; Q `L_INT_CSTAT_INTCNT`).
pub const L_INT_ICNT: u32 = 1 << 0;
/// `L_INT_CSTAT` / `L_INT_ENB` bit 1: the local FRC expired (Q `L_INT_CSTAT_FRCCNT`).
pub const L_INT_FRC: u32 = 1 << 1;
/// The defined bits of `L_INT_ENB` (Q).
pub const L_INT_DEFINED: u32 = L_INT_ICNT | L_INT_FRC;

/// `L_WSTAT` bit 0: `L_TCNTB` written (L `exynos4_mct_write`; Q).
pub const L_WSTAT_TCNTB: u32 = 1 << 0;
/// `L_WSTAT` bit 1: `L_ICNTB` written (L; Q).
pub const L_WSTAT_ICNTB: u32 = 1 << 1;
/// `L_WSTAT` bit 2: `L_FRCNTB` written (Q `L_WSTAT_FRCCNTB_WRITE`).
pub const L_WSTAT_FRCNTB: u32 = 1 << 2;
/// `L_WSTAT` bit 3: `L_TCON` written (L; Q).
pub const L_WSTAT_TCON: u32 = 1 << 3;
