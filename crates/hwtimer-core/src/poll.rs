//! Bounded polling with Linux iopoll semantics.
//!
//! # Background
//!
//! The mv88e6xxx busy-poll bug (2022): a switch driver polled a busy bit 16 times with a 1–2 ms
//! sleep between polls. The bit is clear on the first or second poll, so nearly every
//! access paid a millisecond sleep and loading the module took 16 s; a tight poll bounded
//! by a 50 ms deadline made it 2.2 s. In the same thread Andrew Lunn asked what happens on
//! a slow bit-banged bus, or when the poller is preempted: a loop that checks the clock
//! *after* a long stall can find its deadline passed although the device finished long
//! ago. Linux's `read_poll_timeout()` answers that by reading **once more** after the
//! deadline and judging that last value.
//!
//! # Semantics
//!
//! [`Poller::poll`] reads, tests the condition, and repeats until the condition holds or
//! the timeout has elapsed on a [`Continuous`] clocksource; after the timeout it reads one
//! final time and judges that value. Therefore:
//!
//! - it always makes **at least two reads** before reporting a timeout;
//! - it never reports a timeout **before** the timeout has elapsed (elapsed time is
//!   measured with the +1 tick rule of [`Delay`](crate::delay::Delay));
//! - a condition that became true while the caller was preempted past the deadline is a
//!   success, not a timeout;
//! - it returns the last value read, on success ([`Polled`]) and on timeout
//!   ([`PollTimeout`]), with the number of reads, so tests and benchmarks can count them.
//!
//! # Two bounds: the deadline, and a poll-count backstop
//!
//! The deadline is measured on the clocksource, so on its own it ends a wait only if the
//! clocksource advances. A counter that is stopped (a clock gate left off, a block held in
//! reset, a timer that was never started) or that advances far slower than its
//! [`freq_hz`](crate::Clocksource::freq_hz) claims would make every such wait spin forever.
//! Each [`Poller`] therefore also counts its reads and gives up after
//! [`max_polls`](Poller::max_polls) of them (default [`DEFAULT_MAX_POLLS`]):
//!
//! - the backstop is a number of reads, derived from nothing the clock says (not from its
//!   rate, not from its readings), so no clock can stretch it;
//! - whichever bound is reached first ends the wait, and [`PollTimeout::bound`] says which
//!   ([`Bound::Deadline`] or [`Bound::PollLimit`]); a wait never makes more than
//!   `max_polls` reads, and still at least two;
//! - the deadline keeps its iopoll guarantee (never early, one more read after it); the
//!   backstop is the *last resort*: with the default of 4 194 304 reads a healthy clock
//!   reaches a 50 ms deadline first as long as one poll (one device read plus one clock
//!   read) takes at least 12 ns, which any uncached register read does. A bus much
//!   faster than that, or a very long timeout, wants a larger [`max_polls`](Poller::max_polls);
//!   a slow bus (an MDIO frame takes 25.6 µs) can afford a much smaller one;
//! - with a stopped clock, a wait ends after exactly `max_polls` reads (0.42 s at 100 ns
//!   per read with the default);
//! - the pause between reads ([`interval_ns`](Poller::interval_ns)) is measured on the same
//!   clock, so it is bounded too: all pauses of one wait together make at most `max_polls`
//!   clock reads; once that budget is spent the remaining polls run back to back.
//!
//! ```
//! use hwtimer_core::poll::{Bound, Poller};
//! use hwtimer_core::{Clocksource, Continuous};
//!
//! /// A counter whose clock is gated off: it always reads 7.
//! struct Stopped;
//! impl Clocksource for Stopped {
//!     fn bits(&self) -> u32 { 32 }
//!     fn freq_hz(&self) -> u32 { 25_000_000 }
//!     fn read(&self) -> u64 { 7 }
//! }
//! impl Continuous for Stopped {}
//!
//! let mut reads = 0;
//! let t = Poller::new(&Stopped)
//!     .timeout_ms(50)
//!     .max_polls(1_000)
//!     .poll(|| { reads += 1; reads }, |_| false)
//!     .unwrap_err();
//! assert_eq!((t.bound, t.polls, reads), (Bound::PollLimit, 1_000, 1_000));
//! assert_eq!(t.elapsed_ticks, 0);
//! ```
//!
//! ```
//! use hwtimer_core::poll::Poller;
//! use hwtimer_core::sim::{SimClock, SimCounter};
//!
//! let clock = SimClock::new();
//! let counter = SimCounter::new(&clock, 32, 25_000_000); // 25 MHz, 40 ns per read
//! let poller = Poller::new(&counter).timeout_us(50);
//! // A "busy" bit that clears 1 µs from now.
//! let t0 = clock.now_ns();
//! let polled = poller.poll(|| clock.now_ns() - t0 < 1_000, |busy| !*busy).unwrap();
//! assert!(!polled.value);
//! assert!(polled.polls >= 2);
//! ```

use core::convert::Infallible;

use crate::clocksource::{Continuous, Stopwatch};
use crate::error::Error;
use crate::time::ns_to_ticks_ceil;

/// A successful poll: the value that satisfied the condition and how many reads it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Polled<T> {
    /// The last value read (it satisfies the condition).
    pub value: T,
    /// Reads made, including the successful one (at least 1).
    pub polls: u32,
}

/// The default poll-count backstop of a [`Poller`]: 4 194 304 reads (2^22). See the
/// [module docs](self#two-bounds-the-deadline-and-a-poll-count-backstop) for how it was
/// chosen and when to change it.
pub const DEFAULT_MAX_POLLS: u32 = 1 << 22;

/// Which bound ended a wait that timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bound {
    /// The deadline passed on the clocksource, and the read made after it did not satisfy
    /// the condition either. Never reported before the timeout has elapsed.
    Deadline,
    /// The poll-count backstop ([`Poller::max_polls`]) was reached before the clocksource
    /// showed the deadline as passed: the clock is stopped, or much slower than it claims
    /// (or the backstop is too small for this bus and timeout).
    PollLimit,
}

/// The condition did not hold on any read, including the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PollTimeout<T> {
    /// The last value read (after the deadline, for [`Bound::Deadline`]).
    pub last: T,
    /// Reads made (at least 2, at most [`Poller::max_polls`]).
    pub polls: u32,
    /// Clocksource ticks measured between the start and the final read.
    pub elapsed_ticks: u64,
    /// Which bound ended the wait.
    pub bound: Bound,
}

impl<T> From<PollTimeout<T>> for Error {
    fn from(_: PollTimeout<T>) -> Self {
        Error::Timeout
    }
}

impl<T: core::fmt::Debug> core::fmt::Display for PollTimeout<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let bound = match self.bound {
            Bound::Deadline => "deadline passed",
            Bound::PollLimit => "poll limit reached",
        };
        write!(
            f,
            "hardware wait timed out ({bound}) after {} reads and {} ticks; last value {:?}",
            self.polls, self.elapsed_ticks, self.last
        )
    }
}

impl<T: core::fmt::Debug> core::error::Error for PollTimeout<T> {}

/// Failure of [`Poller::try_poll`]: the read itself failed, or the wait timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PollError<T, E> {
    /// The read returned an error (for example an MDIO bus error); polling stopped there.
    Read(E),
    /// See [`PollTimeout`].
    Timeout(PollTimeout<T>),
}

impl<T, E: Into<Error>> From<PollError<T, E>> for Error {
    fn from(e: PollError<T, E>) -> Self {
        match e {
            PollError::Read(e) => e.into(),
            PollError::Timeout(_) => Error::Timeout,
        }
    }
}

impl<T: core::fmt::Debug, E: core::fmt::Display> core::fmt::Display for PollError<T, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PollError::Read(e) => write!(f, "read failed while polling: {e}"),
            PollError::Timeout(t) => t.fmt(f),
        }
    }
}

impl<T: core::fmt::Debug, E: core::error::Error + 'static> core::error::Error for PollError<T, E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            PollError::Read(e) => Some(e),
            PollError::Timeout(_) => None,
        }
    }
}

/// A reusable bounded-poll configuration over a continuous clocksource.
///
/// Cheap to copy; build one per wait kind (`Poller::new(&clock).timeout_ms(50)`). Every
/// wait is bounded twice: by its deadline on the clocksource and by a count of reads
/// ([`max_polls`](Self::max_polls)); see the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct Poller<C: Continuous> {
    source: C,
    timeout_ticks: u64,
    interval_ticks: u64,
    max_polls: u32,
}

impl<C: Continuous + Copy> Poller<C> {
    /// A poller with a zero timeout (read, then read once more), no pause between reads
    /// and the default backstop of [`DEFAULT_MAX_POLLS`] reads. Set the timeout with one of
    /// the `timeout_*` methods.
    pub fn new(source: C) -> Self {
        Self {
            source,
            timeout_ticks: 0,
            interval_ticks: 0,
            max_polls: DEFAULT_MAX_POLLS,
        }
    }

    /// End a wait after at most `n` reads even if the clocksource never shows the deadline
    /// as passed (the backstop against a stopped clock; default [`DEFAULT_MAX_POLLS`]).
    /// Values below 2 are raised to 2: a wait always reads once more after its first read.
    /// Choose it from the fastest a poll can be on your bus, never from the clock.
    pub fn max_polls(mut self, n: u32) -> Self {
        self.max_polls = n.max(2);
        self
    }

    /// The poll-count backstop in reads.
    pub fn poll_limit(&self) -> u32 {
        self.max_polls
    }

    /// Time out after `ns` nanoseconds.
    pub fn timeout_ns(mut self, ns: u64) -> Self {
        self.timeout_ticks = ns_to_ticks_ceil(ns, self.source.freq_hz());
        self
    }

    /// Time out after `us` microseconds.
    pub fn timeout_us(self, us: u64) -> Self {
        self.timeout_ns(us.saturating_mul(1_000))
    }

    /// Time out after `ms` milliseconds.
    pub fn timeout_ms(self, ms: u64) -> Self {
        self.timeout_ns(ms.saturating_mul(1_000_000))
    }

    /// Busy-wait at least `ns` nanoseconds between reads (Linux `sleep_us`); 0 (the
    /// default) polls back to back. Use it when every read costs bus bandwidth.
    pub fn interval_ns(mut self, ns: u64) -> Self {
        self.interval_ticks = ns_to_ticks_ceil(ns, self.source.freq_hz());
        self
    }

    /// The timeout in clocksource ticks.
    pub fn timeout_ticks(&self) -> u64 {
        self.timeout_ticks
    }

    /// Poll an infallible read until `done` holds; see the [module docs](self).
    pub fn poll<T>(
        &self,
        mut read: impl FnMut() -> T,
        done: impl FnMut(&T) -> bool,
    ) -> Result<Polled<T>, PollTimeout<T>> {
        match self.try_poll(|| Ok::<T, Infallible>(read()), done) {
            Ok(p) => Ok(p),
            Err(PollError::Timeout(t)) => Err(t),
            Err(PollError::Read(never)) => match never {},
        }
    }

    /// Poll a fallible read until `done` holds; a read error ends the poll at once.
    pub fn try_poll<T, E>(
        &self,
        mut read: impl FnMut() -> Result<T, E>,
        mut done: impl FnMut(&T) -> bool,
    ) -> Result<Polled<T>, PollError<T, E>> {
        // +1 tick: the start read may sit just before a tick edge, so `n` observed ticks
        // only prove `n - 1` tick periods. Never time out early.
        let limit = self.timeout_ticks.saturating_add(1);
        // The backstop: the read after which the final read is made (`max_polls >= 2`).
        let last_regular = self.max_polls.max(2).saturating_sub(1);
        // Clock reads all pauses of this wait may make together (see the module docs).
        let mut pause_budget = self.max_polls;
        let mut watch = Stopwatch::start(self.source);
        let mut polls: u32 = 0;
        loop {
            let value = read().map_err(PollError::Read)?;
            polls = polls.saturating_add(1);
            if done(&value) {
                return Ok(Polled { value, polls });
            }
            let elapsed = watch.elapsed();
            let bound = if elapsed >= limit {
                Some(Bound::Deadline)
            } else if polls >= last_regular {
                Some(Bound::PollLimit)
            } else {
                None
            };
            if let Some(bound) = bound {
                // Judge one more read taken *after* the bound was reached: time lost to
                // preemption between the last read and the clock check cannot turn a
                // finished operation into a timeout.
                let last = read().map_err(PollError::Read)?;
                polls = polls.saturating_add(1);
                let elapsed_ticks = watch.elapsed();
                if done(&last) {
                    return Ok(Polled { value: last, polls });
                }
                return Err(PollError::Timeout(PollTimeout {
                    last,
                    polls,
                    elapsed_ticks,
                    bound,
                }));
            }
            if self.interval_ticks > 0 {
                let until = elapsed
                    .saturating_add(self.interval_ticks)
                    .saturating_add(1);
                // Pause, but not past the deadline (the final read comes right after it),
                // and not beyond the pause budget (a stopped clock would never end it).
                while pause_budget > 0 && watch.elapsed() < until.min(limit) {
                    pause_budget = pause_budget.saturating_sub(1);
                    core::hint::spin_loop();
                }
            }
        }
    }
}
