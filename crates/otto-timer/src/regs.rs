//! The register map of one Otto timer block: every offset and field defined once, with its
//! source.
//!
//! Source for every offset and field below, unless noted:
//! `torvalds/linux drivers/clocksource/timer-rtl-otto.c`, confirmed in
//! `openwrt/openwrt target/linux/realtek/files-5.15/drivers/clocksource/timer-rtl-otto.c`
//! (summarised in `docs/otto-timer.md#registers`). Names follow the Linux driver
//! (`RTTM_DATA`, `RTTM_CNT`, `RTTM_CTRL`, `RTTM_INT`) so a reader can cross-check.
//!
//! Offsets are **relative to the start of the timer block** (e.g. `0x1800_3100` on
//! RTL838x, see [`crate::soc`]); timer `n` sits `n * TIMER_STRIDE` bytes further. All
//! registers are 32 bits wide and native-endian (big-endian MIPS, plain 32-bit loads and
//! stores).
//!
//! ```
//! use otto_timer::regs::{self, CTRL};
//! use hwtimer_core::tock_registers::LocalRegisterCopy;
//!
//! // Timer 2's CTRL register, and the value Linux writes to start a periodic timer at
//! // 3.125 MHz on a 200 MHz bus.
//! assert_eq!(regs::TimerRegs::of(2).ctrl.offset(), 0x28);
//! let start = CTRL::ENABLE::SET + CTRL::MODE::Timer + CTRL::DIVISOR.val(64);
//! assert_eq!(start.value, 0x1100_0040);
//! let ctrl: LocalRegisterCopy<u32, CTRL::Register> = LocalRegisterCopy::new(start.value);
//! assert!(ctrl.is_set(CTRL::ENABLE));
//! ```

use hwtimer_core::Reg;
use tock_registers::register_bitfields;

/// Distance in bytes between the register blocks of consecutive timers.
pub const TIMER_STRIDE: usize = 0x10;

/// Width of the counter in bits (`RTTM_BIT_COUNT`).
pub const COUNTER_BITS: u32 = 28;

/// All ones in the 28-bit counter: the largest value `DATA` and `CNT` can hold (and so
/// the clockevent's [`MAX_DELTA`](crate::clockevent::MAX_DELTA)).
pub const COUNTER_MASK: u32 = 0x0FFF_FFFF;

/// The largest prescaler value (`RTTM_MAX_DIVISOR`): the slowest tick, used by the
/// lost-interrupt "bounce" (docs/otto-timer.md#bounce-sequence).
pub const MAX_DIVISOR: u16 = 0xFFFF;

/// The smallest target the hardware handles: a DATA value below 2 does not work
/// (comment in `openwrt/openwrt target/linux/realtek/patches-6.12/304-timer-otto-fix-stall-after-restart.patch`).
pub const HW_MIN_TARGET: u32 = 2;

register_bitfields![u32,
    /// `RTTM_DATA` (offset 0x0, RW): the target ("end") value. The counter counts up from
    /// 0 and the timer fires when it reaches DATA. Writing DATA resets the counter to 0.
    #[allow(missing_docs)]
    pub DATA [
        /// The target, 28 bits.
        DATA OFFSET(0) NUMBITS(28) []
    ],
    /// `RTTM_CNT` (offset 0x4, RO): the current counter value. Writes are ignored (the
    /// v6.18 fixes removed the old no-op `set_counter` write).
    #[allow(missing_docs)]
    pub CNT [
        /// The counter, 28 bits, counting up.
        CNT OFFSET(0) NUMBITS(28) []
    ],
    /// `RTTM_CTRL` (offset 0x8, RW): enable, mode and prescaler. Bits not listed are
    /// written as 0 (as Linux does).
    #[allow(missing_docs)]
    pub CTRL [
        /// `RTTM_CTRL_ENABLE`, bit 28: 1 = the timer runs.
        ENABLE OFFSET(28) NUMBITS(1) [],
        /// Bit 24: 1 = `RTTM_CTRL_TIMER` (periodic: on reaching DATA the counter resets to
        /// 0 and keeps running), 0 = `RTTM_CTRL_COUNTER` (oneshot: resets and stops).
        MODE OFFSET(24) NUMBITS(1) [
            /// `RTTM_CTRL_COUNTER`: oneshot.
            Counter = 0,
            /// `RTTM_CTRL_TIMER`: periodic / free-running.
            Timer = 1
        ],
        /// Bits [15:0]: prescaler on the LXB bus clock, tick = LXB / DIVISOR.
        DIVISOR OFFSET(0) NUMBITS(16) []
    ],
    /// `RTTM_INT` (offset 0xC, RW): interrupt enable and pending.
    #[allow(missing_docs)]
    pub INT [
        /// `RTTM_INT_ENABLE`, bit 20: interrupt enable.
        IE OFFSET(20) NUMBITS(1) [],
        /// `RTTM_INT_PENDING`, bit 16: pending; write 1 to clear (W1C). Writing 0 leaves
        /// it alone, so writing only IE never acknowledges.
        IP OFFSET(16) NUMBITS(1) []
    ]
];

/// `RTTM_DATA` of timer 0.
pub const DATA_REG: Reg<u32, DATA::Register> = Reg::new(0x0);
/// `RTTM_CNT` of timer 0.
pub const CNT_REG: Reg<u32, CNT::Register> = Reg::new(0x4);
/// `RTTM_CTRL` of timer 0.
pub const CTRL_REG: Reg<u32, CTRL::Register> = Reg::new(0x8);
/// `RTTM_INT` of timer 0.
pub const INT_REG: Reg<u32, INT::Register> = Reg::new(0xC);

/// The four registers of timer `n`, at `n * TIMER_STRIDE` from the block start.
#[derive(Debug, Clone, Copy)]
pub struct TimerRegs {
    /// `RTTM_DATA`.
    pub data: Reg<u32, DATA::Register>,
    /// `RTTM_CNT`.
    pub cnt: Reg<u32, CNT::Register>,
    /// `RTTM_CTRL`.
    pub ctrl: Reg<u32, CTRL::Register>,
    /// `RTTM_INT`.
    pub int: Reg<u32, INT::Register>,
}

impl TimerRegs {
    /// The registers of timer `n` (no bounds check: callers validate `n` against the
    /// SoC's timer count; an offset outside the bus window reads all ones and drops
    /// writes, per the [`RegisterBus`](hwtimer_core::RegisterBus) contract).
    ///
    /// Defined for every `n`: the offsets saturate at `usize::MAX` (outside any window)
    /// instead of overflowing, so no input can panic.
    ///
    /// ```
    /// use otto_timer::regs::TimerRegs;
    /// assert_eq!(TimerRegs::of(usize::MAX).int.offset(), usize::MAX);
    /// ```
    pub const fn of(n: usize) -> Self {
        let base = n.saturating_mul(TIMER_STRIDE);
        Self {
            data: Reg::new(base.saturating_add(DATA_REG.offset())),
            cnt: Reg::new(base.saturating_add(CNT_REG.offset())),
            ctrl: Reg::new(base.saturating_add(CTRL_REG.offset())),
            int: Reg::new(base.saturating_add(INT_REG.offset())),
        }
    }
}

/// Which register of a timer a block-relative byte offset names, with the timer index:
/// `(timer, register offset within the timer)`. Used by the model.
pub const fn decode(offset: usize) -> (usize, usize) {
    (offset / TIMER_STRIDE, offset % TIMER_STRIDE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_fields_match_docs() {
        // docs/otto-timer.md#registers: DATA 0x0, CNT 0x4, CTRL 0x8, INT 0xC, stride 0x10.
        let t3 = TimerRegs::of(3);
        assert_eq!(
            [
                t3.data.offset(),
                t3.cnt.offset(),
                t3.ctrl.offset(),
                t3.int.offset()
            ],
            [0x30, 0x34, 0x38, 0x3C]
        );
        assert_eq!((CTRL::ENABLE::SET).value, 1 << 28);
        assert_eq!((CTRL::MODE::Timer).value, 1 << 24);
        assert_eq!((CTRL::MODE::Counter).value, 0);
        assert_eq!(CTRL::DIVISOR.mask, 0xFFFF);
        assert_eq!((INT::IE::SET).value, 1 << 20);
        assert_eq!((INT::IP::SET).value, 1 << 16);
        assert_eq!(CNT::CNT.mask, COUNTER_MASK);
        assert_eq!(decode(0x38), (3, 0x8));
    }

    #[test]
    fn index_helpers_are_total() {
        // The same offsets as Reg::nth where that cannot overflow…
        assert_eq!(
            TimerRegs::of(5).ctrl.offset(),
            CTRL_REG.nth(5, TIMER_STRIDE).offset()
        );
        // …and saturation where it would (Reg::nth panics in debug builds there).
        for n in [
            usize::MAX / TIMER_STRIDE,
            usize::MAX / TIMER_STRIDE + 1,
            usize::MAX,
        ] {
            let r = TimerRegs::of(n);
            assert!(r.data.offset() <= r.int.offset(), "{n}");
            assert!(r.int.offset() >= usize::MAX - 0xF, "{n}");
        }
        assert_eq!(decode(usize::MAX), (usize::MAX / 0x10, 0xF));
    }
}
