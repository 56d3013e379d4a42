use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::SimClock;
use super::model::Counter;
use crate::clocksource::{Clocksource, Continuous};

/// A continuous, free-running clocksource in virtual time.
///
/// Every [`read`](Clocksource::read) samples the counter and then costs `read_cost_ns`
/// of virtual time (default 100 ns, at least 1 ns so a busy-wait always makes progress).
/// Reads are counted; clones share the count.
#[derive(Debug, Clone)]
pub struct SimCounter {
    clock: SimClock,
    counter: Counter,
    read_cost_ns: u64,
    reads: Arc<AtomicU64>,
}

impl SimCounter {
    /// A `bits`-wide counter at `freq_hz`, running from 0 since t = 0.
    pub fn new(clock: &SimClock, bits: u32, freq_hz: u32) -> Self {
        Self {
            clock: clock.clone(),
            counter: Counter::running_from(bits, freq_hz, 0),
            read_cost_ns: 100,
            reads: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Start from `value` at t = 0 instead (to begin just before a wrap).
    pub fn with_start_value(mut self, value: u64) -> Self {
        self.counter = Counter::running_from(self.counter.bits(), self.counter.freq_hz(), value);
        self
    }

    /// Gate its clock off: the counter holds the value it had at t = 0 while virtual time
    /// runs on (a clock gate left off, a block held in reset). Reads still cost time.
    pub fn gated_off(mut self) -> Self {
        self.counter.stop(0);
        self
    }

    /// Set the virtual-time cost of one read (clamped to at least 1 ns).
    pub fn with_read_cost(mut self, ns: u64) -> Self {
        self.read_cost_ns = ns.max(1);
        self
    }

    /// Reads so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// The clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }
}

impl Clocksource for SimCounter {
    fn bits(&self) -> u32 {
        self.counter.bits()
    }
    fn freq_hz(&self) -> u32 {
        self.counter.freq_hz()
    }
    fn read(&self) -> u64 {
        let v = self.counter.value(self.clock.now_ns());
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.clock.advance(self.read_cost_ns);
        v
    }
}

impl Continuous for SimCounter {}

/// A jiffies-style tick counter: a software count incremented by a periodic `hz`
/// interrupt. It is a [`Clocksource`] (it counts at `hz`) but deliberately **not**
/// [`Continuous`]: it is the "only a periodic tick" world of the Otto delay bug
/// ([`Continuous`]'s background), kept for
/// comparisons. Reads cost 1 ns of virtual time.
#[derive(Debug, Clone)]
pub struct SimTickCounter {
    clock: SimClock,
    hz: u32,
}

impl SimTickCounter {
    /// Ticks at `hz` (for example 100, `CONFIG_HZ=100`).
    pub fn new(clock: &SimClock, hz: u32) -> Self {
        Self {
            clock: clock.clone(),
            hz: hz.max(1),
        }
    }
}

impl Clocksource for SimTickCounter {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        self.hz
    }
    fn read(&self) -> u64 {
        let v = Counter::running_from(32, self.hz, 0).value(self.clock.now_ns());
        self.clock.advance(1);
        v
    }
}

/// A 32-bit, 25 MHz counter whose clock never started: every read returns 0, costs no
/// virtual time and needs no [`SimClock`].
///
/// For the bounded waits of a dead block: on a clock that never moves a wait's deadline
/// never comes, so only its poll-count backstop
/// ([`Poller::max_polls`](crate::poll::Poller::max_polls)) can end it, and a test asserts
/// that the wait ends after exactly that many register reads. It is [`Continuous`] on
/// purpose, to reach the waits that take only a continuous clock: a gated or never-started
/// counter is what such a wait must survive. ([`SimCounter::gated_off`] is a stopped count
/// that still charges virtual time per read.)
///
/// ```
/// use hwtimer_core::poll::{Bound, Poller};
/// use hwtimer_core::sim::StoppedCounter;
///
/// let t = Poller::new(&StoppedCounter)
///     .timeout_ms(50)
///     .max_polls(1_000)
///     .poll(|| 1, |_| false)
///     .unwrap_err();
/// assert_eq!((t.bound, t.polls, t.elapsed_ticks), (Bound::PollLimit, 1_000, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoppedCounter;

impl Clocksource for StoppedCounter {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        25_000_000
    }
    fn read(&self) -> u64 {
        0
    }
}

impl Continuous for StoppedCounter {}
