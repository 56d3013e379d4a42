//! The Otto timer as an rtic-time monotonic (feature `rtic`): hwtimer-core's
//! [`rtic_monotonic!`](hwtimer_core::rtic_monotonic) on a CPU's [`OttoClockEvent`] and the
//! extended 64-bit [`OttoClocksource`], in clocksource ticks (3.125 MHz by default).
//!
//! # Set-up
//!
//! ```no_run
//! use hwtimer_core::{Extended, Mmio};
//! use otto_timer::{Config, OttoClocksource, OttoTimers, PerCpu, Soc};
//! use rtic_time::Timebase as _; // now, delay, delay_until, timeout_after, ...
//! use static_cell::StaticCell;
//!
//! otto_timer::rtic_monotonic!(pub Mono); // 3.125 MHz; `(pub Mono, HZ)` for another tick
//! // SAFETY: the RTL838x timer block through KSEG1 (uncached), driven by nothing else.
//! static BLOCK: Mmio = unsafe { Mmio::new(Soc::Rtl838x.info().kseg1_base(), Soc::Rtl838x.info().block_len()) };
//! static TIME: StaticCell<Extended<OttoClocksource<&'static Mmio>>> = StaticCell::new();
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     let PerCpu { cpus: [cpu0], clocksource } =
//!         OttoTimers::new(&BLOCK, Config::new(Soc::Rtl838x))?.per_cpu::<1>()?;
//!     Mono::start(cpu0.event, TIME.init(Extended::new(clocksource)))
//! }
//!
//! fn on_timer0_irq() {
//!     Mono::on_interrupt();
//! }
//! // in any task, on any executor:  Mono::delay(5.millis()).await;
//! ```
//!
//! A wait is never early (rtic-time checks the time before it wakes a task) and late by
//! what [`hwtimer_core::Alarm`] documents for a channel that is not phase-locked (one tick
//! of margin, `min_delta` for a wait shorter than that) plus interrupt latency.

use hwtimer_core::{Extended, Mmio};

use crate::{OttoClockEvent, OttoClocksource};

/// The channel: a timer of the block as a clockevent, on a shared [`Mmio`] window.
pub type Event = OttoClockEvent<&'static Mmio<u32>>;
/// The time base: the free-running timer extended to 64 bits, shared by reference.
pub type Time = &'static Extended<OttoClocksource<&'static Mmio<u32>>>;

/// Generate an rtic-time monotonic type on an Otto clockevent and the extended
/// clocksource: `otto_timer::rtic_monotonic!(pub Mono)` at the default 3.125 MHz tick, or
/// `otto_timer::rtic_monotonic!(pub Mono, 6_250_000)` for a `Config::with_tick_hz` rate.
///
/// The type has `start(event, time)` (`ConfigError::RateMismatch` when the time base does
/// not count at that rate), `on_interrupt()` for the timer's interrupt handler, and
/// rtic-time's `Timebase` methods. See [`hwtimer_core::rtic_monotonic!`].
#[macro_export]
macro_rules! rtic_monotonic {
    ($vis:vis $name:ident $(,)?) => {
        $crate::rtic_monotonic!($vis $name, $crate::soc::DEFAULT_TICK_HZ as u64);
    };
    ($vis:vis $name:ident, $hz:expr $(,)?) => {
        $crate::__hwtimer_core::rtic_monotonic!(
            $vis $name,
            $crate::rtic::Event,
            $crate::rtic::Time,
            $hz
        );
    };
}

#[cfg(test)]
mod tests {
    use rtic_time::Timebase;
    use rtic_time::fugit::MonotonicTimerInstantU64;

    crate::rtic_monotonic!(Mono);

    /// The macro gives a monotonic in clocksource ticks whose statics need no wrapper.
    #[test]
    fn the_monotonic_counts_clocksource_ticks() {
        fn rtic_monotonic<T: rtic_time::Monotonic>() {}
        rtic_monotonic::<Mono>();
        let t: MonotonicTimerInstantU64<3_125_000> = Mono::now();
        assert_eq!(t.as_ticks(), 0, "before start");
    }
}
