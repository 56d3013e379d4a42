//! The MCT as an rtic-time monotonic (feature `rtic`): hwtimer-core's
//! [`rtic_monotonic!`](hwtimer_core::rtic_monotonic) on a global [`Comparator`] or a
//! [`LocalTimer`] and the block's 64-bit time base [`FrcTime`], in FRC ticks (`fugit`
//! instants at 24 MHz).
//!
//! # Set-up
//!
//! ```no_run
//! use exynos_mct::{Config, Mct, regs};
//! use hwtimer_core::Mmio;
//! use rtic_time::Timebase as _; // now, delay, delay_until, timeout_after, ...
//! use static_cell::StaticCell;
//!
//! exynos_mct::rtic_monotonic!(pub Mono, local_timer); // local timer + FrcTime, 24 MHz
//! static MCT: StaticCell<Mct<Mmio>> = StaticCell::new();
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     // SAFETY: the Exynos4210 MCT window, mapped, driven by nothing else.
//!     let bus = unsafe { Mmio::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
//!     let mct = MCT.init(Mct::new(bus, Config::default())?);
//!     mct.start_frc()?;
//!     Mono::start(mct.local_timer(0)?, mct.time()) // then enable L0's interrupt (SPI 42)
//! }
//!
//! fn on_mct_l0_irq() {
//!     Mono::on_interrupt();
//! }
//! // in any task, on any executor:  Mono::delay(5.millis()).await;
//! ```
//!
//! In an RTIC application, `Mono` is the monotonic and `on_interrupt` is called from the
//! hardware task bound to the comparator's interrupt. Instants are `u64` FRC ticks, the
//! values of [`FrcTime`] itself, so nothing is converted; a wait is never early (rtic-time
//! checks the time before it wakes a task) and late by what [`hwtimer_core::Alarm`]
//! documents plus interrupt latency.

use hwtimer_core::Mmio;

use crate::{Comparator, FrcTime, LocalTimer};

/// The channel: a global comparator on the MCT behind an [`Mmio`] window.
pub type Event = Comparator<'static, Mmio<u32>>;
/// The other kind of channel: a local timer (`rtic_monotonic!(Mono, local_timer)`).
pub type LocalEvent = LocalTimer<'static, Mmio<u32>>;
/// The time base: a view of the block's one time base (`Copy`).
pub type Time = FrcTime<'static, Mmio<u32>>;

/// Generate an rtic-time monotonic type on an MCT channel and [`FrcTime`], in FRC ticks:
///
/// - `exynos_mct::rtic_monotonic!(pub Mono)`: on a global comparator, at the 24 MHz FRC rate;
/// - `exynos_mct::rtic_monotonic!(pub Mono, 1_000_000)`: the same for an FRC divided by
///   `MCT_CFG`;
/// - `exynos_mct::rtic_monotonic!(pub Mono, local_timer)` (or `local_timer, HZ`): on a
///   local timer instead (`start` then takes a [`LocalTimer`]). A local timer has its own
///   counter and interrupt, so it does not share the FRC's compare logic with the
///   comparators; it is not phase-locked to the FRC, so each wait carries one tick of
///   margin (see [`hwtimer_core::Alarm`]).
///
/// The type has `start(channel, FrcTime)` (a
/// [`ConfigError::RateMismatch`](hwtimer_core::ConfigError::RateMismatch) when the time base
/// does not count at the given rate), `on_interrupt()` for the channel's interrupt handler, and rtic-time's
/// `Timebase` methods (`now`, `delay`, `delay_until`, `timeout_after`, ...). See
/// [`hwtimer_core::rtic_monotonic!`].
#[macro_export]
macro_rules! rtic_monotonic {
    ($vis:vis $name:ident $(,)?) => {
        $crate::rtic_monotonic!($vis $name, $crate::regs::FIN_PLL_HZ as u64);
    };
    ($vis:vis $name:ident, local_timer $(,)?) => {
        $crate::rtic_monotonic!($vis $name, local_timer, $crate::regs::FIN_PLL_HZ as u64);
    };
    ($vis:vis $name:ident, local_timer, $hz:expr $(,)?) => {
        $crate::__hwtimer_core::rtic_monotonic!(
            $vis $name,
            $crate::rtic::LocalEvent,
            $crate::rtic::Time,
            $hz
        );
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
    crate::rtic_monotonic!(Slow, 1_000_000);
    crate::rtic_monotonic!(Local, local_timer);

    /// The macro gives a monotonic in FRC ticks whose statics need no wrapper (the backend
    /// holding a comparator on `Mmio` is `Sync`).
    #[test]
    fn the_monotonic_counts_frc_ticks() {
        fn rtic_monotonic<T: rtic_time::Monotonic>() {}
        rtic_monotonic::<Mono>();
        let _: MonotonicTimerInstantU64<24_000_000> = Mono::now();
        let _: MonotonicTimerInstantU64<1_000_000> = Slow::now();
        let _: MonotonicTimerInstantU64<24_000_000> = Local::now();
        let _: fn(super::LocalEvent, super::Time) -> Result<(), hwtimer_core::Error> = Local::start;
        // Before `start`, time reads 0.
        assert_eq!(Mono::now().as_ticks(), 0);
    }
}
