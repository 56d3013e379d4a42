//! `fugit` 0.6 durations as ticks (feature `fugit`).
//!
//! The core's API is raw `u64` ticks at a runtime rate, so it does not tie you to one time
//! library; with this feature, `fugit::Duration`s convert to ticks **rounded up** (a wait
//! built from them is never short), and the delays accept them directly.
//!
//! ```
//! use fugit::MicrosDurationU64;
//! use hwtimer_core::fugit_ext::duration_to_ticks;
//! // 10 µs at 3.125 MHz: 31.25 ticks, rounded up.
//! assert_eq!(duration_to_ticks(MicrosDurationU64::from_ticks(10), 3_125_000), 32);
//! ```

use fugit::Duration;

use crate::clockevent::ClockEvent;
use crate::clocksource::{Continuous, Monotonic};
use crate::delay::Delay;
use crate::queue::{HrTimers, Sleep};

/// A fugit duration whose ticks fit in `u64` (`u32` and `u64` durations).
pub trait FugitDuration {
    /// The duration in ticks of a `hz` clock, rounded up; saturates at `u64::MAX`.
    fn ticks_at(&self, hz: u32) -> u64;
    /// The duration in nanoseconds, rounded up; saturates at `u64::MAX`.
    fn nanos_ceil(&self) -> u64;
}

fn scaled(ticks: u64, nom: u64, denom: u64, hz: u64) -> u64 {
    // ticks × nom fits in u128, but a third u64 factor may not (2^192): saturate, as the
    // result would anyway.
    let Some(num) = u128::from(ticks)
        .checked_mul(u128::from(nom))
        .and_then(|n| n.checked_mul(u128::from(hz)))
    else {
        return u64::MAX;
    };
    let v = num.div_ceil(u128::from(denom.max(1)));
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl<const NOM: u64, const DENOM: u64> FugitDuration for Duration<u64, NOM, DENOM> {
    fn ticks_at(&self, hz: u32) -> u64 {
        scaled(self.as_ticks(), NOM, DENOM, u64::from(hz))
    }
    fn nanos_ceil(&self) -> u64 {
        scaled(self.as_ticks(), NOM, DENOM, 1_000_000_000)
    }
}

impl<const NOM: u64, const DENOM: u64> FugitDuration for Duration<u32, NOM, DENOM> {
    fn ticks_at(&self, hz: u32) -> u64 {
        scaled(u64::from(self.as_ticks()), NOM, DENOM, u64::from(hz))
    }
    fn nanos_ceil(&self) -> u64 {
        scaled(u64::from(self.as_ticks()), NOM, DENOM, 1_000_000_000)
    }
}

/// `d` in ticks of a `hz` clock, rounded up.
pub fn duration_to_ticks(d: impl FugitDuration, hz: u32) -> u64 {
    d.ticks_at(hz)
}

impl<C: Continuous> Delay<C> {
    /// Busy-wait at least `d` (+1 tick rule, like the `DelayNs` methods).
    ///
    /// ```
    /// use fugit::MicrosDurationU32;
    /// use hwtimer_core::Delay;
    /// use hwtimer_core::sim::{SimClock, SimCounter};
    /// let clock = SimClock::new();
    /// let delay = Delay::new(SimCounter::new(&clock, 32, 24_000_000));
    /// delay.wait(MicrosDurationU32::from_ticks(250));
    /// assert!(clock.now_ns() >= 250_000);
    /// ```
    pub fn wait(&self, d: impl FugitDuration) {
        self.wait_ns(d.nanos_ceil());
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> HrTimers<E, M, N> {
    /// A future that completes at least `d` from now (+1 tick rule).
    pub fn sleep(&self, d: impl FugitDuration) -> Sleep<'_, E, M, N> {
        self.sleep_ns(d.nanos_ceil())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugit::{
        HoursDurationU64, MicrosDurationU32, MicrosDurationU64, NanosDurationU32, SecsDurationU64,
    };

    #[test]
    fn conversions_round_up_and_saturate() {
        assert_eq!(
            duration_to_ticks(SecsDurationU64::from_ticks(1), 24_000_000),
            24_000_000
        );
        assert_eq!(duration_to_ticks(NanosDurationU32::from_ticks(1), 3), 1);
        assert_eq!(
            duration_to_ticks(MicrosDurationU32::from_ticks(3), 1_000_000),
            3
        );
        assert_eq!(
            duration_to_ticks(HoursDurationU64::from_ticks(u64::MAX), u32::MAX),
            u64::MAX
        );
        assert_eq!(MicrosDurationU64::from_ticks(10).nanos_ceil(), 10_000);
    }
}
