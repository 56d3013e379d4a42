//! The model's own register map and SoC facts of the Otto timer block, each cited beside it.
//!
//! Nothing here is taken from the driver ([`crate::regs`], [`crate::soc`]): the Otto timer
//! has no QEMU model, so this behavioural model is the only independent check of the
//! driver's facts, and `tests/model/register_map.rs` compares the two maps entry by entry.
//!
//! Sources (facts only; the Linux and OpenWrt files are GPL and no code is copied):
//!
//! - **(L)** `torvalds/linux drivers/clocksource/timer-rtl-otto.c` (the `RTTM_*` defines
//!   and the comment on the operating logic above `RTTM_CTRL_COUNTER`);
//! - **(F1)** the v6.18 fix "Work around dying timers" (`RTTM_MAX_DIVISOR`, the bounce),
//!   backported as `openwrt/openwrt target/linux/realtek/patches-6.12/020-01-v6.18-timer-rtl-otto-work-around-dying-timers.patch`;
//! - **(F2)** the v6.18 fix "Drop set_counter function" (CNT is read-only, a DATA write
//!   resets the counter), `…/patches-6.12/020-02-v6.18-timer-rtl-otto-drop-set-counter-function.patch`;
//! - **(F3)** the v6.18 fix "Do not interfere with interrupts" (no acknowledge while
//!   reprogramming), `…/patches-6.12/020-03-v6.18-timer-rtl-otto-do-not-interfere-with-interrupts.patch`;
//! - **(P304)** `openwrt/openwrt target/linux/realtek/patches-6.12/304-timer-otto-fix-stall-after-restart.patch`
//!   (the OpenWrt-only predecessor of F1–F3: target range 0x2..=0xfffffff, LXB rates);
//! - **(DTS)** `openwrt/openwrt target/linux/realtek/dts/rtl838x.dtsi`, `rtl930x.dtsi`,
//!   `rtl931x.dtsi` (timer `reg` entries and clocks).
//!
//! RTL839x is not checked against its own DTS here: the model gives it the RTL838x
//! facts, as P304's comment ("200 MHz on the other platforms") and the block's shared
//! `realtek,otto-timer` compatible allow (**unverified** beyond that).

use crate::soc::Soc;

/// Distance in bytes between two timers' registers: consecutive `reg` entries
/// `<0x3100 0x10>, <0x3110 0x10>, …` (DTS).
pub const TIMER_STRIDE: usize = 0x10;

/// `RTTM_DATA`, the target ("end marker") (L).
pub const RTTM_DATA: usize = 0x0;
/// `RTTM_CNT`, the counter; read-only (L), (F2).
pub const RTTM_CNT: usize = 0x4;
/// `RTTM_CTRL`, enable, mode and divisor (L).
pub const RTTM_CTRL: usize = 0x8;
/// `RTTM_INT`, interrupt enable and pending (L).
pub const RTTM_INT: usize = 0xC;

/// `RTTM_CTRL_ENABLE`, `BIT(28)` (L).
pub const RTTM_CTRL_ENABLE: u32 = 1 << 28;
/// `RTTM_CTRL_TIMER`, `BIT(24)`: on reaching the target the counter resets and keeps
/// counting (L).
pub const RTTM_CTRL_TIMER: u32 = 1 << 24;
/// `RTTM_CTRL_COUNTER`, `0`: on reaching the target the counter resets and stops (L).
pub const RTTM_CTRL_COUNTER: u32 = 0;
/// The divisor field of CTRL: `RTTM_MAX_DIVISOR` is `GENMASK(15, 0)` and Linux ORs the
/// divisor into CTRL unshifted, so the field is bits 15..0 (F1), (L).
pub const RTTM_CTRL_DIVISOR_MASK: u32 = 0xFFFF;

/// `RTTM_INT_ENABLE`, `BIT(20)` (L).
pub const RTTM_INT_ENABLE: u32 = 1 << 20;
/// `RTTM_INT_PENDING`, `BIT(16)`; cleared by writing 1 (Linux acknowledges by writing
/// back INT with this bit set, and enables the interrupt by writing `RTTM_INT_ENABLE`
/// alone without clearing anything) (L).
pub const RTTM_INT_PENDING: u32 = 1 << 16;

/// `RTTM_BIT_COUNT`: the counters are 28 bits wide (L).
pub const RTTM_BIT_COUNT: u32 = 28;
/// The largest counter and target value, `0xfffffff` ("adding 1 to 0x0fffffff" resets
/// the counter to 0 (L); "the maximum being 0xfffffff" (P304)).
pub const RTTM_COUNTER_MASK: u32 = (1 << RTTM_BIT_COUNT) - 1;
/// The smallest target the hardware handles: "the minimum being 0x2" (P304).
pub const RTTM_MIN_TARGET: u32 = 2;
/// The slowest divisor, used by the bounce: `RTTM_MAX_DIVISOR` = `GENMASK(15, 0)` (F1).
pub const RTTM_MAX_DIVISOR: u32 = 0xFFFF;

/// How close to its expiry a stop and restart can lose the interrupt: "within the 5us
/// before its expiration time" (F1) (the model's default window).
pub const CRITICAL_WINDOW_NS: u64 = 5_000;

/// The model's facts about one SoC's timer block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocFacts {
    /// Number of timers (`reg` entries of the timer node) (DTS).
    pub timers: usize,
    /// The LXB clock the timers count, in Hz.
    pub lxb_hz: u32,
}

/// The model's facts about `soc`'s timer block.
///
/// - RTL838x: 5 timers at 0x3100..=0x3140 (DTS rtl838x.dtsi); its clock is the clock
///   controller's `CLK_LXB`, whose rate the DTS does not state: 200 MHz from P304 ("175
///   MHz on RTL930x and 200 MHz on the other platforms").
/// - RTL839x: as RTL838x (see the module docs).
/// - RTL930x: 5 timers at 0x3200..=0x3240, `lx_clk` fixed at 175 MHz (DTS rtl930x.dtsi).
/// - RTL931x: 6 timers at 0x3200..=0x3250, `lx_clk` fixed at 200 MHz (DTS rtl931x.dtsi).
pub const fn soc_facts(soc: Soc) -> SocFacts {
    match soc {
        Soc::Rtl838x | Soc::Rtl839x => SocFacts {
            timers: 5,
            lxb_hz: 200_000_000,
        },
        Soc::Rtl930x => SocFacts {
            timers: 5,
            lxb_hz: 175_000_000,
        },
        Soc::Rtl931x => SocFacts {
            timers: 6,
            lxb_hz: 200_000_000,
        },
    }
}

/// Which timer and which of its registers a block-relative byte offset names:
/// `(timer, register offset within the timer)`.
pub const fn decode(offset: usize) -> (usize, usize) {
    (offset / TIMER_STRIDE, offset % TIMER_STRIDE)
}
