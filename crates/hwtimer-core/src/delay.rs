//! embedded-hal 1.0 delays: busy-waiting on a continuous clocksource ([`Delay`]) and
//! sleeping on a timer queue ([`AsyncDelay`]).
//!
//! # The +1 tick rule
//!
//! A wait starts by reading the counter, and that read can land anywhere inside a tick
//! period, up to just before the next edge. Seeing the counter advance by `n` therefore
//! proves only that `n - 1` whole periods (plus a sliver) have passed. To wait at least
//! `t`, both delays wait for `ceil(t * f) + 1` ticks: never short, and on average half a
//! tick plus the rounding longer than asked.

use embedded_hal::delay::DelayNs;

use crate::clockevent::ClockEvent;
use crate::clocksource::{Continuous, Monotonic, Stopwatch};
use crate::queue::HrTimers;
use crate::time::ns_to_ticks_ceil;

/// Ticks to wait for `ns` nanoseconds on a `hz` counter: `ceil(ns * hz / 1e9) + 1`.
///
/// ```
/// use hwtimer_core::delay::ticks_for_ns;
/// assert_eq!(ticks_for_ns(10_000, 3_125_000), 33); // 31.25 -> 32, +1
/// assert_eq!(ticks_for_ns(0, 3_125_000), 0);       // a zero delay returns at once
/// ```
pub const fn ticks_for_ns(ns: u64, hz: u32) -> u64 {
    if ns == 0 {
        return 0;
    }
    ns_to_ticks_ceil(ns, hz).saturating_add(1)
}

/// A blocking [`DelayNs`] that busy-waits on a [`Continuous`] clocksource of any width.
///
/// Costs one counter read per loop iteration; never returns early, whatever the width
/// (waits longer than a wrap are measured across wraps by a [`Stopwatch`]). Only a
/// continuous source is accepted: see [`Continuous`] for why that is a type.
///
/// ```
/// use embedded_hal::delay::DelayNs;
/// use hwtimer_core::delay::Delay;
/// use hwtimer_core::sim::{SimClock, SimCounter};
///
/// let clock = SimClock::new();
/// let mut delay = Delay::new(SimCounter::new(&clock, 28, 3_125_000));
/// let t0 = clock.now_ns();
/// delay.delay_us(10);
/// assert!(clock.now_ns() - t0 >= 10_000);
/// ```
#[derive(Debug, Clone)]
pub struct Delay<C: Continuous> {
    source: C,
}

impl<C: Continuous> Delay<C> {
    /// A delay on `source`.
    pub fn new(source: C) -> Self {
        Self { source }
    }

    /// The clocksource.
    pub fn source(&self) -> &C {
        &self.source
    }

    /// Give the clocksource back.
    pub fn release(self) -> C {
        self.source
    }

    /// Busy-wait until the counter has advanced by at least `ticks`.
    pub fn wait_ticks(&self, ticks: u64) {
        if ticks == 0 {
            return;
        }
        let mut watch = Stopwatch::start(&self.source);
        while watch.elapsed() < ticks {
            core::hint::spin_loop();
        }
    }

    /// Busy-wait at least `ns` nanoseconds (any length, no 32-bit limit).
    pub fn wait_ns(&self, ns: u64) {
        self.wait_ticks(ticks_for_ns(ns, self.source.freq_hz()));
    }
}

impl<C: Continuous> DelayNs for Delay<C> {
    fn delay_ns(&mut self, ns: u32) {
        self.wait_ns(u64::from(ns));
    }

    fn delay_us(&mut self, us: u32) {
        self.wait_ns(u64::from(us) * 1_000);
    }

    fn delay_ms(&mut self, ms: u32) {
        self.wait_ns(u64::from(ms) * 1_000_000);
    }
}

/// An embedded-hal-async [`DelayNs`](embedded_hal_async::delay::DelayNs) that sleeps on an
/// [`HrTimers`] queue: the task is woken from the clockevent interrupt, never earlier than
/// asked (+1 tick rule on the queue's time base).
pub struct AsyncDelay<'a, E: ClockEvent, M: Monotonic, const N: usize> {
    timers: &'a HrTimers<E, M, N>,
}

impl<'a, E: ClockEvent, M: Monotonic, const N: usize> AsyncDelay<'a, E, M, N> {
    /// A delay sleeping on `timers`.
    pub fn new(timers: &'a HrTimers<E, M, N>) -> Self {
        Self { timers }
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> embedded_hal_async::delay::DelayNs
    for AsyncDelay<'_, E, M, N>
{
    async fn delay_ns(&mut self, ns: u32) {
        self.timers.sleep_ns(u64::from(ns)).await
    }

    async fn delay_us(&mut self, us: u32) {
        self.timers.sleep_ns(u64::from(us) * 1_000).await
    }

    async fn delay_ms(&mut self, ms: u32) {
        self.timers.sleep_ns(u64::from(ms) * 1_000_000).await
    }
}
