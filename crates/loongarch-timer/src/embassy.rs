//! The constant timer as embassy-time's time driver (feature `embassy`): hwtimer-core's
//! [`TimeDriver`] on the core's [`PinnedTimer`] and [`PinnedCounter`], so the driver is a
//! plain `static` and the only `unsafe` in the firmware is the CSR boundary itself
//! (`NativeCsr::new`).
//!
//! # Set-up
//!
//! embassy-time built with `tick-hz-100_000_000` counts stable-counter ticks (QEMU virt and
//! the Loongson 3A5000 run it at 100 MHz), so nothing is rounded.
//!
//! (`ignore`: `NativeCsr` exists on loongarch64 only, so this cannot be a host doctest;
//! `examples/templates/loongarch-virt` and `examples/firmware/loongarch-virt-async` build
//! the same calls, `cargo xtask cross`.)
//!
//! ```ignore
//! use loongarch_timer::{Config, csr::NativeCsr};
//!
//! embassy_time_driver::time_driver_impl!(
//!     static DRIVER: loongarch_timer::embassy::Driver = loongarch_timer::embassy::Driver::new()
//! );
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     // SAFETY: PLV0, on the core that owns the timer; nothing else programs TCFG, TICLR
//!     // or ECFG bit 11 on it.
//!     let csr = unsafe { NativeCsr::new() };
//!     let (timer, time) = loongarch_timer::pinned::pair(csr, Config::default())?;
//!     DRIVER.init_static(timer, time) // then set CRMD.IE
//! }
//!
//! // In the exception handler, when ESTAT.IS bit 11 (TI) is set:
//! fn on_timer_interrupt() {
//!     DRIVER.on_interrupt(); // clears TI through TICLR, wakes what is due, re-arms
//! }
//! ```
//!
//! # One core
//!
//! The timer is the core's own, so the driver's wakes are served by the core that created
//! it: run the executor whose tasks use embassy-time there. `now()` is current on every
//! core (the stable counter is the chip's, see [`pinned`](crate::pinned#time-on-every-core)),
//! but a wake scheduled from another core never touches that core's timer
//! (`Error::WrongCpu`); it waits for the owning core's next timer interrupt.
//!
//! # Timing
//!
//! The timer is phase-locked to the stable counter, so a wake is late by at most
//! `min_delta` (for a wake closer than that; [`Config`](crate::Config), default
//! [`DEFAULT_MIN_DELTA`](crate::clockevent::DEFAULT_MIN_DELTA)), 3 ticks of InitVal
//! granularity, embassy-tick rounding and interrupt latency; never early
//! ([`hwtimer_core::embassy`] has the contract).

use hwtimer_core::embassy::TimeDriver;

use crate::pinned::{PinnedCounter, PinnedTimer};

/// The embassy-time driver on the timer of the core behind CSR backend `C`, with room for
/// `N` waiting tasks (the sim's backend in host tests).
pub type DriverOn<C, const N: usize = 16> = TimeDriver<PinnedTimer<C>, PinnedCounter<C>, N>;

/// The embassy-time driver on this core's constant timer, with room for `N` waiting tasks.
#[cfg(target_arch = "loongarch64")]
pub type Driver<const N: usize = 16> = DriverOn<crate::csr::NativeCsr, N>;

// Elsewhere (host builds of the feature) the crate is still the firmware's registration
// dependency; nothing here names it.
#[cfg(not(target_arch = "loongarch64"))]
use embassy_time_driver as _;

#[cfg(target_arch = "loongarch64")]
const _: () = {
    // What `time_driver_impl!` needs of the type in its `static`, checked on every
    // loongarch64 build.
    const fn embassy_driver<T: embassy_time_driver::Driver>() {}
    embassy_driver::<Driver>()
};
