//! Free-running counters ([`Clocksource`]), the *continuous* capability, 64-bit
//! monotonic time ([`Monotonic`]) and the [`Stopwatch`] that measures elapsed ticks.

use crate::time::counter_mask;

/// A free-running hardware counter: the family's notion of a Linux clocksource.
///
/// # Contract
///
/// An implementation MUST:
/// - return from [`read`](Self::read) the current counter value with every bit above
///   [`bits`](Self::bits) clear (the value is already masked);
/// - count **up** by one every `1 / freq_hz()` seconds and wrap from the mask to zero
///   (a down-counter is inverted by its driver);
/// - keep [`bits`](Self::bits) in `1..=64` and [`freq_hz`](Self::freq_hz) constant for the
///   lifetime of the value and non-zero;
/// - never fault or panic, whatever the hardware returns.
///
/// A `Clocksource` on its own promises nothing about *how often* it advances relative to
/// its nominal rate; a jiffies-style tick counter that jumps by one every 10 ms is a valid
/// `Clocksource` at 100 Hz. Code that needs fine-grained time asks for [`Continuous`].
pub trait Clocksource {
    /// Width of the counter in bits, `1..=64`.
    fn bits(&self) -> u32;
    /// Counting rate in Hz, non-zero.
    fn freq_hz(&self) -> u32;
    /// The current counter value, masked to [`bits`](Self::bits).
    fn read(&self) -> u64;
    /// The all-ones value of the counter, `2^bits - 1`.
    fn mask(&self) -> u64 {
        counter_mask(self.bits())
    }
}

/// Marker: this clocksource is **continuous and free-running** (Linux
/// `CLOCK_SOURCE_IS_CONTINUOUS`).
///
/// # Background
/// The Otto delay bug (Realtek Otto, OpenWrt 2022, "mark clock source as continuous"): the
/// kernel refuses to drive high-resolution
/// timers from a clocksource that is not flagged continuous, so on RTL838x every
/// `usleep_range(10, 20)` waited for the next 10 ms scheduler tick: 10003 µs instead of
/// about 60 µs, and a switch took 110 s instead of 50 s to initialise.
///
/// # What implementing it promises
/// The counter advances by exactly one per period of [`Clocksource::freq_hz`] at every
/// period, keeps counting without software help (no interrupt needed to advance it) and
/// is never stopped or reset behind the reader's back. A tick counter incremented from a
/// periodic interrupt is **not** continuous.
///
/// # Why it is a type
/// [`Delay`](crate::delay::Delay), [`Stopwatch`] and the [bounded poller](crate::poll)
/// only accept a `Continuous` source, so a microsecond sleep on a 100 Hz tick does not
/// compile:
///
/// ```compile_fail
/// use hwtimer_core::delay::Delay;
/// use hwtimer_core::sim::{SimClock, SimTickCounter};
/// let clock = SimClock::new();
/// let jiffies = SimTickCounter::new(&clock, 100); // a Clocksource, not Continuous
/// let _delay = Delay::new(jiffies); // error: `Continuous` is not implemented
/// ```
pub trait Continuous: Clocksource {}

impl<T: Clocksource + ?Sized> Clocksource for &T {
    #[inline]
    fn bits(&self) -> u32 {
        (**self).bits()
    }
    #[inline]
    fn freq_hz(&self) -> u32 {
        (**self).freq_hz()
    }
    #[inline]
    fn read(&self) -> u64 {
        (**self).read()
    }
}

impl<T: Continuous + ?Sized> Continuous for &T {}

/// A 64-bit time base that never wraps in practice: what deadlines are written in.
///
/// # Contract
/// An implementation MUST return, from [`now`](Self::now), tick counts that never go
/// backwards (between any two calls, on any core), at the constant rate
/// [`freq_hz`](Self::freq_hz), and MUST NOT fault or panic even before the hardware has
/// been started (return a value that keeps the other guarantees). A 64-bit counter at
/// 4 GHz wraps after 146 years, which counts as never.
///
/// [`Extended`](crate::extend::Extended) turns any narrower [`Clocksource`] into one.
pub trait Monotonic {
    /// Ticks since an arbitrary epoch; never decreases.
    fn now(&self) -> u64;
    /// Rate of [`now`](Self::now) in Hz.
    fn freq_hz(&self) -> u32;
    /// The longest the time base may go unread, in its ticks, before it loses time (Linux's
    /// clocksource `max_idle_ns`). A software-extended counter must be read at least once
    /// per half wrap; [`Alarm`](crate::Alarm) never programs a single step longer than this,
    /// so the interrupt that ends each step also keeps the time base fresh. Default:
    /// `u64::MAX` (a true 64-bit counter needs no reads).
    #[inline]
    fn max_idle_ticks(&self) -> u64 {
        u64::MAX
    }
}

impl<T: Monotonic + ?Sized> Monotonic for &T {
    #[inline]
    fn now(&self) -> u64 {
        (**self).now()
    }
    #[inline]
    fn freq_hz(&self) -> u32 {
        (**self).freq_hz()
    }
    #[inline]
    fn max_idle_ticks(&self) -> u64 {
        (**self).max_idle_ticks()
    }
}

/// Measures elapsed ticks on a continuous counter of any width, across wraps.
///
/// Each [`elapsed`](Self::elapsed) call adds the masked difference since the previous read
/// to a 64-bit total, so it needs no shared state and no interrupt. It undercounts only if
/// two of its own reads are more than a full wrap apart (the caller was preempted for
/// longer than `2^bits` ticks): a wait built on it can then only last *longer*, never
/// shorter.
#[derive(Debug)]
pub struct Stopwatch<C: Continuous> {
    source: C,
    last: u64,
    elapsed: u64,
}

impl<C: Continuous> Stopwatch<C> {
    /// Start measuring now (one counter read).
    pub fn start(source: C) -> Self {
        let last = source.read();
        Self {
            source,
            last,
            elapsed: 0,
        }
    }

    /// Ticks elapsed since [`start`](Self::start) (one counter read).
    pub fn elapsed(&mut self) -> u64 {
        let now = self.source.read();
        let delta = now.wrapping_sub(self.last) & self.source.mask();
        self.last = now;
        self.elapsed = self.elapsed.saturating_add(delta);
        self.elapsed
    }

    /// The clocksource this stopwatch reads.
    pub fn source(&self) -> &C {
        &self.source
    }
}
