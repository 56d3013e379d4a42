//! The error type shared by the timer family.

/// What can go wrong when driving a timer, a clockevent or a polled register.
///
/// Every fallible operation in the family returns this type (or a richer type that
/// converts into it, such as [`Timeout`](crate::poll::Timeout)). Each variant says when
/// it happens; nothing in the family panics instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// A hardware wait (a busy bit, a write-status bit, an MDIO cycle) did not finish
    /// before its deadline, including the one extra poll made after the deadline.
    Timeout,
    /// A configuration value is outside what the hardware can do: a tick rate the
    /// prescaler cannot reach, a periodic interval outside `[min_delta, max_delta]`, a
    /// delta handed to [`ClockEvent::set_next_event`](crate::ClockEvent::set_next_event)
    /// outside its documented range, a zero frequency.
    InvalidConfig,
    /// An absolute deadline was already in the past (or equal to now) when it was
    /// programmed. Nothing was armed; the caller decides whether to run the expiry now.
    /// `now` is the time read while deciding, in clocksource ticks.
    DeadlinePassed {
        /// The monotonic time, in ticks, at which the deadline was found to be past.
        now: u64,
    },
    /// The device cannot do this at all (for example periodic mode on a oneshot-only
    /// comparator), or not from here (a per-core timer asked from another core, as
    /// `loongarch_timer::pinned` refuses it). Nothing was changed.
    Unsupported,
    /// The driver was re-entered while it was in use (a waker or callback that calls back
    /// into it from inside its critical section). Nothing was changed.
    Busy,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Timeout => f.write_str("hardware wait timed out"),
            Error::InvalidConfig => f.write_str("invalid configuration"),
            Error::DeadlinePassed { now } => write!(f, "deadline already passed (now = {now})"),
            Error::Unsupported => f.write_str("not supported by this device"),
            Error::Busy => f.write_str("driver re-entered while in use"),
        }
    }
}

impl core::error::Error for Error {}
