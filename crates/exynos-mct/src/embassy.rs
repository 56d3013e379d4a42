//! The MCT as embassy-time's time driver (feature `embassy`): hwtimer-core's
//! [`TimeDriver`] on a global [`Comparator`] and the block's 64-bit time base
//! [`FrcTime`], with the concrete types named so a firmware writes one `static` and one
//! macro line.
//!
//! # Set-up
//!
//! embassy-time built with `tick-hz-24_000_000` counts in FRC ticks, so nothing is
//! rounded (any other rate works too; instants are converted never-early, see
//! [`hwtimer_core::embassy`]).
//!
//! ```no_run
//! use exynos_mct::{Config, Mct, regs};
//! use hwtimer_core::Mmio;
//! use static_cell::StaticCell;
//!
//! embassy_time_driver::time_driver_impl!(
//!     static DRIVER: exynos_mct::embassy::Driver = exynos_mct::embassy::Driver::new()
//! );
//! static MCT: StaticCell<Mct<Mmio>> = StaticCell::new();
//!
//! fn start_time() -> Result<(), hwtimer_core::Error> {
//!     // SAFETY: the Exynos4210 MCT window, mapped, driven by nothing else.
//!     let bus = unsafe { Mmio::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
//!     let mct = MCT.init(Mct::new(bus, Config::default())?);
//!     mct.start_frc()?;
//!     DRIVER.init_static(mct.comparator(0)?, mct.time()) // then enable G0's interrupt (GIC SPI 57)
//! }
//!
//! fn on_mct_g0_irq() {
//!     DRIVER.on_interrupt(); // acknowledges G_INT_CSTAT, wakes what is due, re-arms
//! }
//! ```
//!
//! Nothing here is `unsafe` but the MMIO window: `Mmio` is `Sync`, so `&'static Mct<Mmio>`
//! and the comparator that borrows it are `Send`, and the driver (a
//! `critical_section::Mutex` around them) is a plain `static`.
//!
//! # Timing
//!
//! The comparator is phase-locked to the FRC and programmed with absolute compare values
//! ([`ClockEvent::set_compare`](hwtimer_core::ClockEvent::set_compare)), so a wake is
//! late by at most the embassy-tick rounding (none at 24 MHz), a compare value re-armed
//! because the FRC passed it while it was written, and interrupt latency; never early
//! ([`hwtimer_core::embassy`] has the contract). Under QEMU every `G_COMPn` write restarts
//! the visible count from the last match (`docs/exynos-mct.md`, QEMU quirk 2):
//! [`FrcTime`] holds still until the count catches up, so wakes come later in virtual
//! time, never earlier.

use hwtimer_core::Mmio;
use hwtimer_core::embassy::TimeDriver;

use crate::{Comparator, FrcTime};

/// The channel: a global comparator on the MCT behind an [`Mmio`] window.
pub type Event = Comparator<'static, Mmio<u32>>;
/// The time base the channel compares against: a view of the block's one time base (`Copy`;
/// every view, in every runtime or driver, reads the same time).
pub type Time = FrcTime<'static, Mmio<u32>>;
/// The embassy-time driver on the MCT, with room for `N` waiting tasks (embassy-time-queue-
/// utils' queue; a full queue costs a task an extra poll, never an early wake).
pub type Driver<const N: usize = 16> = TimeDriver<Event, Time, N>;
/// The same on any register bus (the sim's, in host tests).
pub type DriverOn<B, const N: usize = 16> =
    TimeDriver<Comparator<'static, B>, FrcTime<'static, B>, N>;

#[cfg(test)]
mod tests {
    use super::*;

    /// What `time_driver_impl!` needs of the type in its `static`: the embassy trait (which
    /// requires `Send + Sync + 'static`), with no wrapper of the firmware's own.
    #[test]
    fn the_driver_can_be_a_static_embassy_driver() {
        fn embassy_driver<T: embassy_time_driver::Driver>() {}
        embassy_driver::<Driver>();
        embassy_driver::<Driver<4>>();
        const _: Driver = Driver::new();
    }
}
