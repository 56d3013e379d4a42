//! The error types shared by the timer family.

/// What can go wrong when driving a timer, a clockevent or a polled register.
///
/// Every fallible operation in the family returns this type, or a narrower type that
/// converts into it without losing its cause ([`PollTimeout`](crate::poll::PollTimeout),
/// [`PollError`](crate::poll::PollError), [`QueueError`](crate::queue::QueueError)). Each
/// variant says when it happens; nothing in the family panics instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Error {
    /// A hardware wait (a busy bit, a write-status bit, an MDIO cycle) did not finish
    /// before its deadline, including the one extra poll made after the deadline.
    Timeout,
    /// A setting or an argument is outside what the hardware can do; the [`ConfigError`]
    /// names which. Nothing was written.
    Config(ConfigError),
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
    /// A timer queue has no free slot ([`QueueError::Full`](crate::queue::QueueError)).
    QueueFull,
    /// A timer was started while it was already queued
    /// ([`QueueError::AlreadyQueued`](crate::queue::QueueError)).
    AlreadyQueued,
    /// A timer id that names no allocated slot of its queue
    /// ([`QueueError::InvalidId`](crate::queue::QueueError)).
    InvalidTimerId,
    /// A value bound to one CPU (its banked registers, or a timer whose interrupt reaches
    /// only that CPU) was used on another ([`CpuBound`](crate::cpu::CpuBound)). Nothing was
    /// touched.
    WrongCpu(CpuMismatch),
}

/// Which CPU owns a per-CPU value and which one tried to use it ([`Error::WrongCpu`]).
///
/// Packed into one word (the width of [`ConfigError`]) so that [`Error`] keeps one payload
/// word at one offset; CPU numbers above `u16::MAX` are saturated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(transparent)]
pub struct CpuMismatch(MismatchWord);

#[cfg(target_pointer_width = "64")]
type MismatchWord = u64;
#[cfg(not(target_pointer_width = "64"))]
type MismatchWord = u32;

#[allow(
    clippy::unnecessary_cast,
    reason = "the word is a u32 on 32-bit targets and a u64 on 64-bit ones"
)]
impl CpuMismatch {
    /// `owner` is the CPU the value is bound to, `current` the one that used it.
    pub const fn new(owner: u32, current: u32) -> Self {
        const fn sat(v: u32) -> MismatchWord {
            if v > u16::MAX as u32 {
                u16::MAX as MismatchWord
            } else {
                v as MismatchWord
            }
        }
        Self((sat(owner) << 16) | sat(current))
    }

    /// The CPU the value is bound to.
    pub const fn owner(self) -> u32 {
        ((self.0 >> 16) & 0xFFFF) as u32
    }

    /// The CPU that tried to use it.
    pub const fn current(self) -> u32 {
        (self.0 & 0xFFFF) as u32
    }
}

/// Which setting or argument a driver refused ([`Error::Config`]).
///
/// One variant per cause, shared by every driver of the family so that a caller can match
/// on the cause whichever block it drives. The driver's docs say which causes each of its
/// constructors and methods can return.
///
/// Stored as a `u64` on 64-bit targets on purpose: then [`Error`]'s payloads (this and
/// [`DeadlinePassed`](Error::DeadlinePassed)'s `now`) are one 64-bit word at the same
/// offset, so `Error` (and [`QueueError`](crate::queue::QueueError), `Result<(), Error>`,
/// ...) is a tag and a word that a function returns in two registers. With a one-byte
/// `ConfigError` every call returning one of them went through memory (a start and an expiry
/// of the timer queue paid 16 instructions more on x86-64). On 32-bit targets such a
/// result goes through memory either way, and the wider payload made the Exynos MCT's
/// comparator arm on the Cortex-A9 cost 5 instructions more, so there it stays one byte.
/// The test `config_error_is_as_wide_as_deadline_passed_now` keeps the width on the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(target_pointer_width = "64", repr(u64))]
pub enum ConfigError {
    /// An input clock or a tick rate of zero.
    ZeroFrequency,
    /// The tick rate asked for cannot be reached from the input clock: no prescaler or
    /// divisor in the block's range gives it exactly.
    RateUnreachable,
    /// A delta handed to a clockevent is outside its `[min_delta, max_delta]`
    /// ([`Capabilities`](crate::Capabilities)).
    DeltaOutOfRange,
    /// A period is outside the channel's `[min_delta, max_delta]`, or outside what the
    /// time base can follow between two reads.
    PeriodOutOfRange,
    /// A period the hardware cannot represent exactly (for example not a multiple of the
    /// reload register's granule).
    PeriodGranule,
    /// A deadline, or the counter value that would represent it, does not fit the
    /// hardware's counter or the 64-bit time base.
    DeadlineOverflow,
    /// The block has no timer (or channel, or comparator) with this index.
    NoSuchTimer,
    /// An address or index the block does not decode (a switch port, a PHY address, a
    /// device address outside the window the addressing mode reaches).
    AddressOutOfRange,
    /// More timers or CPUs asked for than the block has, or none.
    TimerCount,
    /// The timer, channel or comparator was already handed out.
    AlreadyTaken,
    /// The register window given to the driver is too short for the block (or for the
    /// part of it this handle needs).
    WindowTooShort,
    /// The block already runs with a different shared setting (for example another
    /// prescaler) that this configuration would change under its other users.
    ConflictsWithRunning,
    /// The operation needs the counter stopped, and it runs.
    CounterRunning,
    /// A time base does not count at the rate its user was built for (an rtic monotonic's
    /// tick rate, say).
    RateMismatch,
    /// A channel reported capabilities that are not self-consistent (zero rate, or
    /// `min_delta` above `max_delta`).
    Capabilities,
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ConfigError::ZeroFrequency => "zero input clock or tick rate",
            ConfigError::RateUnreachable => "tick rate not reachable from the input clock",
            ConfigError::DeltaOutOfRange => "delta outside [min_delta, max_delta]",
            ConfigError::PeriodOutOfRange => "period outside the channel's range",
            ConfigError::PeriodGranule => "period not representable by the reload register",
            ConfigError::DeadlineOverflow => "deadline does not fit the counter",
            ConfigError::NoSuchTimer => "no timer with this index",
            ConfigError::AddressOutOfRange => "address or index the block does not decode",
            ConfigError::TimerCount => "timer or CPU count outside what the block has",
            ConfigError::AlreadyTaken => "timer already taken",
            ConfigError::WindowTooShort => "register window too short for the block",
            ConfigError::ConflictsWithRunning => "conflicts with the running block's setting",
            ConfigError::CounterRunning => "counter must be stopped first",
            ConfigError::RateMismatch => "time base rate differs from the one expected",
            ConfigError::Capabilities => "inconsistent channel capabilities",
        })
    }
}

impl core::error::Error for ConfigError {}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Timeout => f.write_str("hardware wait timed out"),
            Error::Config(e) => write!(f, "invalid configuration: {e}"),
            Error::DeadlinePassed { now } => write!(f, "deadline already passed (now = {now})"),
            Error::Unsupported => f.write_str("not supported by this device"),
            Error::Busy => f.write_str("driver re-entered while in use"),
            Error::QueueFull => f.write_str("timer queue full"),
            Error::AlreadyQueued => f.write_str("timer already queued"),
            Error::InvalidTimerId => f.write_str("no such timer in the queue"),
            Error::WrongCpu(m) => write!(
                f,
                "per-CPU value of CPU {} used on CPU {}",
                m.owner(),
                m.current()
            ),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn config_errors_name_their_cause_and_are_the_source() {
        let e = Error::from(ConfigError::AlreadyTaken);
        assert_eq!(e, Error::Config(ConfigError::AlreadyTaken));
        assert_eq!(e.to_string(), "invalid configuration: timer already taken");
        let source = core::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("timer already taken"));
        assert!(core::error::Error::source(&Error::Timeout).is_none());
    }

    #[test]
    fn cpu_mismatch_round_trips_and_saturates() {
        let m = CpuMismatch::new(3, 1);
        assert_eq!((m.owner(), m.current()), (3, 1));
        let m = CpuMismatch::new(u32::MAX, 70_000);
        assert_eq!((m.owner(), m.current()), (0xFFFF, 0xFFFF));
        assert_eq!(
            Error::WrongCpu(CpuMismatch::new(1, 0)).to_string(),
            "per-CPU value of CPU 1 used on CPU 0"
        );
    }

    /// `Error`'s two payloads are one 64-bit word at one offset, so the compiler can keep
    /// `Error`, `QueueError` and their results in two registers (see [`ConfigError`]): a
    /// narrower `ConfigError` puts them in memory and costs every call that returns one.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn config_error_is_as_wide_as_deadline_passed_now() {
        use crate::queue::QueueError;
        use core::mem::size_of;
        assert_eq!(size_of::<ConfigError>(), size_of::<u64>());
        assert_eq!(size_of::<Error>(), 2 * size_of::<u64>());
        assert_eq!(size_of::<QueueError>(), size_of::<Error>());
        assert_eq!(size_of::<Result<(), QueueError>>(), size_of::<Error>());
    }
}
