//! Bounded polling with Linux iopoll semantics.
//!
//! # Background
//!
//! Seed 004 (mv88e6xxx, 2022): a switch driver polled a busy bit 16 times with a 1–2 ms
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
//!   ([`Timeout`]), with the number of reads, so tests and benchmarks can count them.
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

/// The condition did not hold on any read, including the extra read after the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Timeout<T> {
    /// The last value read (after the deadline).
    pub last: T,
    /// Reads made (at least 2).
    pub polls: u32,
    /// Clocksource ticks measured between the start and the final read.
    pub elapsed_ticks: u64,
}

impl<T> From<Timeout<T>> for Error {
    fn from(_: Timeout<T>) -> Self {
        Error::Timeout
    }
}

/// Failure of [`Poller::try_poll`]: the read itself failed, or the wait timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PollError<T, E> {
    /// The read returned an error (for example an MDIO bus error); polling stopped there.
    Read(E),
    /// See [`Timeout`].
    Timeout(Timeout<T>),
}

impl<T, E: Into<Error>> From<PollError<T, E>> for Error {
    fn from(e: PollError<T, E>) -> Self {
        match e {
            PollError::Read(e) => e.into(),
            PollError::Timeout(_) => Error::Timeout,
        }
    }
}

/// A reusable bounded-poll configuration over a continuous clocksource.
///
/// Cheap to copy; build one per wait kind (`Poller::new(&clock).timeout_ms(50)`).
#[derive(Debug, Clone, Copy)]
pub struct Poller<C: Continuous> {
    source: C,
    timeout_ticks: u64,
    interval_ticks: u64,
}

impl<C: Continuous + Copy> Poller<C> {
    /// A poller with a zero timeout (read, then read once more) and no pause between
    /// reads. Set the timeout with one of the `timeout_*` methods.
    pub fn new(source: C) -> Self {
        Self {
            source,
            timeout_ticks: 0,
            interval_ticks: 0,
        }
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
    ) -> Result<Polled<T>, Timeout<T>> {
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
        let mut watch = Stopwatch::start(self.source);
        let mut polls: u32 = 0;
        loop {
            let value = read().map_err(PollError::Read)?;
            polls = polls.saturating_add(1);
            if done(&value) {
                return Ok(Polled { value, polls });
            }
            if watch.elapsed() >= limit {
                // The deadline has passed: judge one more read taken *after* it, so time
                // lost to preemption between the last read and the clock check cannot
                // turn a finished operation into a timeout.
                let last = read().map_err(PollError::Read)?;
                polls = polls.saturating_add(1);
                let elapsed_ticks = watch.elapsed();
                if done(&last) {
                    return Ok(Polled { value: last, polls });
                }
                return Err(PollError::Timeout(Timeout {
                    last,
                    polls,
                    elapsed_ticks,
                }));
            }
            if self.interval_ticks > 0 {
                let start = watch.elapsed();
                let until = start.saturating_add(self.interval_ticks).saturating_add(1);
                // Pause, but not past the deadline: the final read comes right after it.
                while watch.elapsed() < until.min(limit) {
                    core::hint::spin_loop();
                }
            }
        }
    }
}
