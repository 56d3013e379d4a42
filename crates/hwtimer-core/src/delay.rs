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
use crate::error::Error;
use crate::poll::DEFAULT_MAX_POLLS;
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
///
/// # A stopped counter
///
/// The wait is measured on the counter, so on its own it ends only if the counter advances.
/// A counter that is stopped (a clock gate left off, a block held in reset, a timer never
/// started) would make it spin forever. So, as [`Poller`](crate::Poller) counts its reads,
/// a wait also counts the reads in a row that saw the counter not move and gives up after
/// [`max_stalled_reads`](Self::max_stalled_reads) of them (default
/// [`DEFAULT_MAX_POLLS`], 4 194 304: 0.42 s at 100 ns per read). The bound counts reads,
/// derived from nothing the clock says, and a healthy counter resets it at every tick, so
/// it never cuts a wait of any length short on a counter that runs: only a read loop that
/// makes more than `max_stalled_reads` reads within one tick would (a 32 768 Hz counter
/// read in under 7.5 ns). [`try_wait_ticks`](Self::try_wait_ticks) reports the stall as
/// [`Stalled`]; the embedded-hal [`DelayNs`] methods, which cannot fail, return then.
#[derive(Debug, Clone)]
pub struct Delay<C: Continuous> {
    source: C,
    max_stalled: u32,
}

/// A [`Delay`] ended because the counter did not move for
/// [`max_stalled_reads`](Delay::max_stalled_reads) reads in a row: it is stopped, or far
/// slower than its rate says (or, from [`Delay::try_wait_ns`], its rate is 0 Hz). The
/// wait was **not** completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stalled {
    /// Ticks measured before the counter stopped moving.
    pub elapsed_ticks: u64,
    /// Ticks the wait asked for.
    pub wanted_ticks: u64,
    /// Counter reads made.
    pub reads: u64,
}

impl From<Stalled> for Error {
    fn from(_: Stalled) -> Self {
        Error::Timeout
    }
}

impl core::fmt::Display for Stalled {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "delay: counter stopped after {} of {} ticks ({} reads)",
            self.elapsed_ticks, self.wanted_ticks, self.reads
        )
    }
}

impl core::error::Error for Stalled {}

impl<C: Continuous> Delay<C> {
    /// A delay on `source`, with the default stall bound ([`DEFAULT_MAX_POLLS`] reads).
    pub fn new(source: C) -> Self {
        Self {
            source,
            max_stalled: DEFAULT_MAX_POLLS,
        }
    }

    /// End a wait after `n` reads in a row that saw the counter not move (raised to at
    /// least 2). Choose it from the fastest a counter read can be, never from the clock.
    pub fn max_stalled_reads(mut self, n: u32) -> Self {
        self.max_stalled = n.max(2);
        self
    }

    /// The clocksource.
    pub fn source(&self) -> &C {
        &self.source
    }

    /// Give the clocksource back.
    pub fn release(self) -> C {
        self.source
    }

    /// Busy-wait until the counter has advanced by at least `ticks`, or until it stalls
    /// (see [A stopped counter](Self#a-stopped-counter); then it returns early, which
    /// [`try_wait_ticks`](Self::try_wait_ticks) reports).
    pub fn wait_ticks(&self, ticks: u64) {
        if let Err(_stalled) = self.try_wait_ticks(ticks) {
            crate::log_warn!("delay: counter stopped, wait abandoned");
        }
    }

    /// Busy-wait until the counter has advanced by at least `ticks`; returns the ticks
    /// measured.
    ///
    /// Errors: [`Stalled`] when the counter did not move for
    /// [`max_stalled_reads`](Self::max_stalled_reads) reads in a row.
    pub fn try_wait_ticks(&self, ticks: u64) -> Result<u64, Stalled> {
        if ticks == 0 {
            return Ok(0);
        }
        let mut watch = Stopwatch::start(&self.source);
        let mut reads: u64 = 1;
        let mut stalled: u32 = 0;
        let mut last = 0;
        loop {
            let elapsed = watch.elapsed();
            reads = reads.saturating_add(1);
            if elapsed >= ticks {
                return Ok(elapsed);
            }
            if elapsed == last {
                stalled = stalled.saturating_add(1);
                if stalled >= self.max_stalled {
                    return Err(Stalled {
                        elapsed_ticks: elapsed,
                        wanted_ticks: ticks,
                        reads,
                    });
                }
            } else {
                stalled = 0;
                last = elapsed;
            }
            core::hint::spin_loop();
        }
    }

    /// Busy-wait at least `ns` nanoseconds (any length, no 32-bit limit), or until the
    /// counter stalls (as [`wait_ticks`](Self::wait_ticks)). A source that reports 0 Hz
    /// returns at once (see [`try_wait_ns`](Self::try_wait_ns)).
    pub fn wait_ns(&self, ns: u64) {
        if let Err(_stalled) = self.try_wait_ns(ns) {
            crate::log_warn!("delay: counter stopped or at 0 Hz, wait abandoned");
        }
    }

    /// [`try_wait_ticks`](Self::try_wait_ticks) for at least `ns` nanoseconds.
    ///
    /// Errors: [`Stalled`], as there; and at once, with no read, when the source reports
    /// 0 Hz: no number of its ticks measures a time, so the wait would otherwise last as
    /// long as the counter takes to count 2^64 ticks, however fast it really runs.
    pub fn try_wait_ns(&self, ns: u64) -> Result<u64, Stalled> {
        let hz = self.source.freq_hz();
        if hz == 0 && ns != 0 {
            return Err(Stalled {
                elapsed_ticks: 0,
                wanted_ticks: u64::MAX,
                reads: 0,
            });
        }
        self.try_wait_ticks(ticks_for_ns(ns, hz))
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
