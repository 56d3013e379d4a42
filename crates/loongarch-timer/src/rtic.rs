//! The constant timer as an rtic-time monotonic (feature `rtic`): hwtimer-core's
//! [`rtic_monotonic!`](hwtimer_core::rtic_monotonic) on the core's
//! [`PinnedTimer`](crate::pinned::PinnedTimer) and
//! [`PinnedCounter`](crate::pinned::PinnedCounter), in stable-counter ticks (100 MHz by
//! default), with software interrupt 0 as the way to pend the monotonic's interrupt.
//!
//! # Why software interrupt 0
//!
//! rtic-time sometimes needs its interrupt handler to run "now" (`pend_interrupt`). The
//! timer interrupt cannot be raised by software: ESTAT.TI is set by the timer and cleared
//! through TICLR, and of ESTAT.IS only the two software-interrupt bits are writable. So the
//! monotonic pends SWI0 (`pend_swi0`) and the firmware sends both TI and SWI0 to
//! `Mono::on_interrupt()`. SWI0 of the core then belongs to the monotonic.
//!
//! **Under QEMU 10 an SWI0 set this way is not seen until the next hardware interrupt:** the
//! `loongarch-virt-async` firmware observed a core in `idle` with ESTAT.IS bit 0 set, ECFG
//! letting it through and no timer armed, which stayed there (QEMU does not re-check
//! interrupts on a CSR write; silicon takes a pending enabled software interrupt). On QEMU,
//! pend through the hardware instead: arm the core's own timer at `min_delta`, or send the
//! owning core an IPI from another one, as that firmware does (`rtic_monotonic!` of
//! hwtimer-core with its own pend function). An IPI a core sends to itself aborted QEMU under
//! `-icount` there.
//!
//! # Set-up
//!
//! (`ignore`: `NativeCsr` exists on loongarch64 only, so this cannot be a host doctest;
//! `examples/templates/loongarch-virt` and `examples/firmware/loongarch-virt-async` build
//! the same calls, `cargo xtask cross`.)
//!
//! ```ignore
//! use loongarch_timer::{Config, csr::NativeCsr};
//! use rtic_time::Timebase as _; // now, delay, delay_until, timeout_after, ...
//!
//! loongarch_timer::rtic_monotonic!(pub Mono); // 100 MHz; `(pub Mono, HZ)` otherwise
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     // SAFETY: PLV0, on the core that owns the timer; nothing else programs TCFG, TICLR
//!     // or ECFG bits 0 and 11 on it.
//!     let csr = unsafe { NativeCsr::new() };
//!     let (timer, time) = loongarch_timer::pinned::pair(csr, Config::default())?;
//!     loongarch_timer::rtic::enable_swi0();
//!     Mono::start(timer, time) // then set CRMD.IE
//! }
//!
//! // In the exception handler, when ESTAT.IS bit 11 (TI) or bit 0 (SWI0) is set:
//! fn on_timer_interrupt() {
//!     loongarch_timer::rtic::clear_swi0();
//!     Mono::on_interrupt();
//! }
//! ```
//!
//! A core has one timer: a firmware runs either this monotonic or the embassy driver
//! (`loongarch_timer::embassy`) on it, not both.

#[cfg(target_arch = "loongarch64")]
pub use native::{Event, Time, clear_swi0, enable_swi0, pend_swi0};

/// Generate an rtic-time monotonic type on this core's constant timer:
/// `loongarch_timer::rtic_monotonic!(pub Mono)` at 100 MHz, or
/// `loongarch_timer::rtic_monotonic!(pub Mono, HZ)` for a core whose CPUCFG reports another
/// stable-counter rate (`start` refuses a time base at any other rate). loongarch64 only.
///
/// The type has `start(timer, counter)`, `on_interrupt()` (from the handler of TI and
/// SWI0) and rtic-time's `Timebase` methods; `pend_interrupt` raises SWI0 (`rtic::pend_swi0`).
///
/// `loongarch_timer::rtic_monotonic!(pub Mono, HZ, pend = my_pend)` replaces SWI0 with the
/// firmware's own `fn()`: needed when tasks on another core wait on this monotonic (SWI0
/// would be raised on the calling core, not the timer's), and on QEMU, which does not take
/// an SWI0 set by software until the next hardware interrupt (module docs). The function
/// must make `on_interrupt()` run on the timer's core: an IPI to it from another core, or
/// the timer itself armed at `min_delta` on that core (loongarch-virt-async does both).
#[macro_export]
macro_rules! rtic_monotonic {
    ($vis:vis $name:ident $(,)?) => {
        $crate::rtic_monotonic!($vis $name, 100_000_000);
    };
    ($vis:vis $name:ident, $hz:expr $(,)?) => {
        $crate::rtic_monotonic!($vis $name, $hz, pend = $crate::rtic::pend_swi0);
    };
    ($vis:vis $name:ident, $hz:expr, pend = $pend:path $(,)?) => {
        $crate::__hwtimer_core::rtic_monotonic!(
            $vis $name,
            $crate::rtic::Event,
            $crate::rtic::Time,
            $hz,
            pend = $pend
        );
    };
}

#[cfg(target_arch = "loongarch64")]
#[allow(
    unsafe_code,
    reason = "the CSR boundary: each `asm!` block carries its own SAFETY comment"
)]
mod native {
    use core::arch::asm;

    use crate::csr::NativeCsr;
    use crate::pinned::{PinnedCounter, PinnedTimer};

    /// The channel: this core's constant timer, pinned.
    pub type Event = PinnedTimer<NativeCsr>;
    /// The time base: this core's stable counter, pinned.
    pub type Time = PinnedCounter<NativeCsr>;

    /// ESTAT.IS / ECFG.LIE bit of software interrupt 0.
    const SWI0: u64 = 1 << 0;

    /// Raise software interrupt 0 on this core (ESTAT.IS bit 0), so the monotonic's
    /// handler runs as soon as interrupts are enabled.
    pub fn pend_swi0() {
        // SAFETY: `csrxchg` with mask = bit 0 of ESTAT sets only the SWI0 pending bit (the
        // only other writable bit, SWI1, is outside the mask); SWI0 belongs to the
        // monotonic (module docs). PLV0 is the firmware's, as for every CSR access here.
        // The mask is pinned to $t0 because rj = $r0/$r1 would encode csrrd/csrwr.
        unsafe {
            asm!("csrxchg {0}, $t0, 0x5", inout(reg) SWI0 => _, in("$t0") SWI0, options(nostack))
        };
    }

    /// Clear software interrupt 0 on this core; returns whether it was pending.
    pub fn clear_swi0() -> bool {
        let old: u64;
        // SAFETY: as for `pend_swi0`, clearing the same bit.
        unsafe {
            asm!("csrxchg {0}, $t0, 0x5", inout(reg) 0u64 => old, in("$t0") SWI0, options(nostack))
        };
        old & SWI0 != 0
    }

    /// Let software interrupt 0 reach the core (ECFG.LIE bit 0; CRMD.IE still decides).
    pub fn enable_swi0() {
        // SAFETY: `csrxchg` with mask = bit 0 of ECFG changes only SWI0's enable, which
        // belongs to the monotonic; no other interrupt's enable can change.
        unsafe {
            asm!("csrxchg {0}, $t0, 0x4", inout(reg) SWI0 => _, in("$t0") SWI0, options(nostack))
        };
    }
}

/// The macro's expansion, type-checked on every loongarch64 build with feature `rtic`
/// (the statics need the pinned types to be `Send`, `start` needs them to be the pair).
#[cfg(target_arch = "loongarch64")]
#[allow(
    dead_code,
    unreachable_pub,
    unsafe_code,
    reason = "a compile-time check of the macro's expansion, never called"
)]
mod expansion_check {
    crate::rtic_monotonic!(pub Mono);
}
