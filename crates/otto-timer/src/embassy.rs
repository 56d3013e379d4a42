//! The Otto timer as embassy-time's time driver (feature `embassy`): hwtimer-core's
//! [`TimeDriver`] on a CPU's [`OttoClockEvent`] and a 64-bit time base extended from the
//! 28-bit [`OttoClocksource`], with the concrete types named so a firmware writes one
//! `static` and one macro line.
//!
//! # Set-up
//!
//! ```no_run
//! use hwtimer_core::{Extended, Mmio};
//! use otto_timer::{Config, OttoClocksource, OttoTimers, PerCpu, Soc};
//! use static_cell::StaticCell;
//!
//! // SAFETY: the RTL838x timer block through KSEG1 (uncached), driven by nothing else.
//! static BLOCK: Mmio = unsafe { Mmio::new(Soc::Rtl838x.info().kseg1_base(), Soc::Rtl838x.info().block_len()) };
//! static TIME: StaticCell<Extended<OttoClocksource<&'static Mmio>>> = StaticCell::new();
//! embassy_time_driver::time_driver_impl!(
//!     static DRIVER: otto_timer::embassy::Driver = otto_timer::embassy::Driver::new()
//! );
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     let PerCpu { cpus: [cpu0], clocksource } =
//!         OttoTimers::new(&BLOCK, Config::new(Soc::Rtl838x))?.per_cpu::<1>()?;
//!     let time = TIME.init(Extended::new(clocksource));
//!     DRIVER.init(cpu0.event, time) // then unmask CPU 0's timer IRQ
//! }
//!
//! fn on_timer0_irq() {
//!     DRIVER.on_interrupt(); // acknowledges INT.IP, wakes what is due, re-arms
//! }
//! ```
//!
//! embassy-time's `tick-hz-*` feature may be anything: embassy-time 0.5 has no 3.125 MHz
//! feature, so with the usual `tick-hz-1_000_000` an instant is rounded to the Otto tick
//! (320 ns), `now()` down and a wake up, so no wake is early (hwtimer-core's `embassy`
//! module docs give the bound). Nothing here is `unsafe` but the MMIO
//! window: `Mmio` is `Sync`, so the timers holding `&'static Mmio` are `Send`.
//!
//! # Timing
//!
//! The clockevent has its own counter and prescaler phase (not phase-locked), so each wake
//! carries one tick of margin: late by at most
//! [`MIN_DELTA`](crate::clockevent::MIN_DELTA) (for a wake closer than that) or one tick, plus rounding to embassy's tick and interrupt latency; never early.
//! Waits longer than 3/8 of the 85.9 s clocksource wrap are stepped, which keeps the
//! extended time base read often enough on an idle system ([`hwtimer_core::Alarm`]).

use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::{Extended, Mmio};

use crate::{OttoClockEvent, OttoClocksource};

/// The channel: a timer of the block as a clockevent, on a shared [`Mmio`] window.
pub type Event = OttoClockEvent<&'static Mmio<u32>>;
/// The time base: the free-running timer extended to 64 bits, shared by reference.
pub type Time = &'static Extended<OttoClocksource<&'static Mmio<u32>>>;
/// The embassy-time driver on an Otto timer, with room for `N` waiting tasks.
pub type Driver<const N: usize = 16> = TimeDriver<Event, Time, N>;

#[cfg(test)]
mod tests {
    use super::*;

    /// What `time_driver_impl!` needs of the type in its `static`, with no wrapper of the
    /// firmware's own.
    #[test]
    fn the_driver_can_be_a_static_embassy_driver() {
        fn embassy_driver<T: embassy_time_driver::Driver>() {}
        embassy_driver::<Driver>();
        const _: Driver<4> = Driver::new();
    }
}
