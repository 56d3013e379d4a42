//! Programmable interrupt sources ([`ClockEvent`]) and the [`Alarm`] that turns one into
//! "interrupt me at absolute time *t*, never early".
//!
//! The split follows Linux: a driver implements the narrow hardware contract of
//! [`ClockEvent`] (program a delta inside `[min_delta, max_delta]`, periodic, shutdown,
//! acknowledge), and the core adds everything that is the same on every chip — absolute
//! deadlines, clamping, re-arming long waits in steps, the past-deadline check and the
//! never-early check in the interrupt path — once, in [`Alarm`].

use crate::clocksource::Monotonic;
use crate::error::{ConfigError, Error};
use crate::time::convert_ticks_ceil;

/// What a [`ClockEvent`] can do and its limits, as one value (in the style of smoltcp's
/// `DeviceCapabilities`): a driver returns it from
/// [`capabilities`](ClockEvent::capabilities), and it is constant for the lifetime of the
/// channel.
///
/// Built with [`Capabilities::new`] (oneshot by delta, the one mode every channel has) and
/// the `with_*` methods for the optional ones:
///
/// ```
/// use hwtimer_core::clockevent::Capabilities;
/// // A 24 MHz comparator on the time base's own counter, with periodic and absolute modes.
/// let caps = Capabilities::new(24_000_000, 1, u32::MAX as u64)
///     .with_periodic()
///     .with_phase_locked()
///     .with_absolute();
/// assert!(caps.is_valid() && caps.absolute);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Capabilities {
    /// Counting rate in Hz (non-zero).
    pub freq_hz: u32,
    /// Smallest delta, in ticks, [`set_next_event`](ClockEvent::set_next_event) accepts (≥ 1).
    pub min_delta: u64,
    /// Largest delta, in ticks, [`set_next_event`](ClockEvent::set_next_event) accepts
    /// (≥ `min_delta`).
    pub max_delta: u64,
    /// [`set_periodic`](ClockEvent::set_periodic) works.
    pub periodic: bool,
    /// The channel counts on exactly the edges of the clocksource it is paired with (a
    /// comparator on the same counter, or a down-counter in the same clock domain), so a
    /// delta of `n` ticks fires when that clocksource has advanced by `n`. When `false` (a
    /// separate counter whose prescaler phase is unknown), [`Alarm`] adds one tick of margin
    /// so the interrupt cannot come up to one tick early.
    pub phase_locked: bool,
    /// [`set_compare`](ClockEvent::set_compare) works: the channel compares against a 64-bit
    /// counter that its driver exposes as a [`Monotonic`] time base, and can be programmed
    /// with an absolute value of it.
    pub absolute: bool,
}

impl Capabilities {
    /// A oneshot channel counting at `freq_hz` with deltas in `[min_delta, max_delta]`; not
    /// periodic, not phase-locked, not absolute.
    pub const fn new(freq_hz: u32, min_delta: u64, max_delta: u64) -> Self {
        Self {
            freq_hz,
            min_delta,
            max_delta,
            periodic: false,
            phase_locked: false,
            absolute: false,
        }
    }

    /// Also periodic.
    pub const fn with_periodic(mut self) -> Self {
        self.periodic = true;
        self
    }

    /// Also phase-locked to its paired clocksource (see [`phase_locked`](Self::phase_locked)).
    pub const fn with_phase_locked(mut self) -> Self {
        self.phase_locked = true;
        self
    }

    /// Also programmable with absolute values (see [`absolute`](Self::absolute)).
    pub const fn with_absolute(mut self) -> Self {
        self.absolute = true;
        self
    }

    /// Whether the values satisfy the trait contract: `freq_hz > 0` and
    /// `1 <= min_delta <= max_delta`.
    pub const fn is_valid(&self) -> bool {
        self.freq_hz != 0 && self.min_delta != 0 && self.min_delta <= self.max_delta
    }
}

/// One hardware interrupt channel that can be programmed to fire after a delay: the
/// family's notion of a Linux clockevent device. Drivers implement it; applications use
/// it through [`Alarm`] (or [`HrTimers`](crate::queue::HrTimers)).
///
/// A driver implements four methods: [`capabilities`](Self::capabilities),
/// [`set_next_event`](Self::set_next_event), [`shutdown`](Self::shutdown) and
/// [`ack`](Self::ack); [`set_periodic`](Self::set_periodic) and
/// [`set_compare`](Self::set_compare) when its hardware has those modes.
///
/// # Contract
///
/// This is the one place the contract is written; driver docs refer here.
///
/// An implementation MUST:
/// - return the same valid [`Capabilities`] from every call (`freq_hz > 0`,
///   `1 <= min_delta <= max_delta`), and count in ticks of its `freq_hz`;
/// - in [`set_next_event`](Self::set_next_event), for `delta` in `[min_delta, max_delta]`,
///   arm a oneshot that raises the interrupt **no earlier** than `delta` ticks after the
///   call begins and as soon as the hardware allows after that; a driver whose hardware has
///   a coarser granularity (LoongArch InitVal ignores its low two bits) rounds the delta
///   **up** to it, never down, and reports a `max_delta` that is a multiple of that
///   granularity;
/// - in [`set_compare`](Self::set_compare) (only when `absolute`), arm a oneshot that
///   raises the interrupt when the compared counter reaches `at`, no earlier; when the
///   counter has already reached `at`, or reaches it while the channel is being
///   programmed, raise it as soon as possible: never lose it, never wait a wrap;
/// - in [`set_periodic`](Self::set_periodic) (only when `periodic`), fire every `period`
///   ticks, the first no earlier than `period` ticks after the call begins, without
///   accumulating drift;
/// - for a request it cannot take (a delta or period outside `[min_delta, max_delta]`, a
///   mode it does not have) return an error and **write nothing**: the channel stays as it
///   was;
/// - never lose the interrupt of a channel it reprograms (the Otto timer needs a special
///   sequence for this, see that crate);
/// - never panic, whatever the hardware reads back, and never wait without bound.
///
/// ## Pending status: one rule
///
/// A *pending status* is the channel's "fired" bit (Otto `INT.IP`, MCT `*_INT_CSTAT`,
/// LoongArch `ESTAT.TI`).
/// - [`ack`](Self::ack) reports whether the channel fired and clears the status, so a
///   shared interrupt line can be demultiplexed; a second call, or a spurious one, returns
///   `false`.
/// - [`shutdown`](Self::shutdown) **clears** the status: the event it belonged to is
///   cancelled, so after a shutdown a stale status can never pass for a new event (the
///   next arm would otherwise raise the line at once and `ack` would say `true`).
/// - Arming ([`set_next_event`](Self::set_next_event), [`set_compare`](Self::set_compare),
///   [`set_periodic`](Self::set_periodic)) **never** clears the status: re-arming a channel
///   whose interrupt is pending but not yet handled keeps that interrupt (clearing it there
///   is how an event gets lost; the Otto v6.18 fixes acknowledge only in the handler). The
///   handler then sees it, and [`Alarm`] checks the time base, so an interrupt that comes
///   for an older deadline is re-armed, never reported as the new one.
///
/// Errors: [`ConfigError::DeltaOutOfRange`] or [`ConfigError::PeriodOutOfRange`] for an
/// out-of-range delta or period (other [`ConfigError`]s where the driver says so),
/// [`Error::Unsupported`] for a mode the capabilities do not list,
/// [`Error::Timeout`] when the hardware did not acknowledge a write (Exynos MCT WSTAT).
pub trait ClockEvent {
    /// Rates, limits and optional modes; constant for the lifetime of the value.
    fn capabilities(&self) -> Capabilities;
    /// Arm a oneshot `delta` ticks from now; see the trait contract.
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error>;
    /// Arm a oneshot for the absolute counter value `at`; see the trait contract. Only
    /// channels whose capabilities say `absolute`; the default returns
    /// [`Error::Unsupported`].
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        let _ = at;
        Err(Error::Unsupported)
    }
    /// Fire every `period` ticks until [`shutdown`](Self::shutdown) or another arm. Only
    /// channels whose capabilities say `periodic`; the default returns
    /// [`Error::Unsupported`].
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        let _ = period;
        Err(Error::Unsupported)
    }
    /// Stop the channel so it raises no further interrupt, clear its pending status (see
    /// the rule above), and mask the channel's own interrupt enable where it has one (an
    /// enable shared with other sources, such as a CPU-wide line enable, is left to the
    /// caller).
    fn shutdown(&mut self);
    /// From the interrupt handler: did this channel fire? Clears the pending status.
    fn ack(&mut self) -> bool;
}

impl<T: ClockEvent + ?Sized> ClockEvent for &mut T {
    #[inline]
    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        (**self).set_next_event(delta)
    }
    #[inline]
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        (**self).set_compare(at)
    }
    #[inline]
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        (**self).set_periodic(period)
    }
    #[inline]
    fn shutdown(&mut self) {
        (**self).shutdown()
    }
    #[inline]
    fn ack(&mut self) -> bool {
        (**self).ack()
    }
}

/// How a requested wait was turned into a hardware delta: the pure arithmetic of
/// [`Alarm`], exposed for tests and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Programmed {
    /// The delta handed to [`ClockEvent::set_next_event`], in event ticks; always inside
    /// `[min_delta, max_delta]`. On an [absolute](Alarm::is_absolute) alarm, the distance
    /// from now to the compare value programmed, in time-base ticks (0 for a deadline
    /// already due).
    pub delta: u64,
    /// The request was shorter than `min_delta` and was lengthened (fires late, never
    /// early).
    pub clamped_min: bool,
    /// The request was longer than `max_delta`; this is one step and the alarm re-arms
    /// from the interrupt until the deadline is reached.
    pub stepped: bool,
}

/// Turn a wait of `wait` clocksource ticks into a hardware delta.
///
/// `clock_hz` is the rate of the time base, `event_hz` the rate of the channel; `margin`
/// is added after conversion (one tick when the channel is not phase-locked to the
/// clock). The result is clamped into `[min, max]`; `min` is raised to 1 and `max` to
/// `min` if the caller passes nonsense, so the result is always programmable.
///
/// ```
/// use hwtimer_core::clockevent::plan_delta;
/// // LoongArch seed: 5 µs at 100 MHz with min_delta 0x600 fires at 15.36 µs…
/// let p = plan_delta(500, 100_000_000, 100_000_000, 0, 0x600, (1 << 48) - 1);
/// assert_eq!((p.delta, p.clamped_min), (0x600, true));
/// // …and with min_delta 1000 at 10 µs.
/// assert_eq!(plan_delta(500, 100_000_000, 100_000_000, 0, 1000, (1 << 48) - 1).delta, 1000);
/// ```
#[inline]
pub const fn plan_delta(
    wait: u64,
    clock_hz: u32,
    event_hz: u32,
    margin: u64,
    min: u64,
    max: u64,
) -> Programmed {
    clamp_plan(
        convert_ticks_ceil(wait, clock_hz, event_hz),
        margin,
        min,
        max,
    )
}

/// [`plan_delta`] after the rate conversion: `ticks` already in event ticks.
#[inline]
const fn clamp_plan(ticks: u64, margin: u64, min: u64, max: u64) -> Programmed {
    let min = if min == 0 { 1 } else { min };
    let max = if max < min { min } else { max };
    clamp_valid(ticks, margin, min, max)
}

/// [`clamp_plan`] for bounds already valid (`1 <= min <= max`, what
/// [`Capabilities::is_valid`] guarantees and [`Alarm::new`] checks), so the per-set path
/// does not re-derive them.
#[inline]
const fn clamp_valid(ticks: u64, margin: u64, min: u64, max: u64) -> Programmed {
    let ticks = ticks.saturating_add(margin);
    if ticks < min {
        Programmed {
            delta: min,
            clamped_min: true,
            stepped: false,
        }
    } else if ticks > max {
        Programmed {
            delta: max,
            clamped_min: false,
            stepped: true,
        }
    } else {
        Programmed {
            delta: ticks,
            clamped_min: false,
            stepped: false,
        }
    }
}

/// What the interrupt meant, as decided by [`Alarm::on_interrupt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an interrupt's meaning (deadline reached, re-armed, spurious) is only known from this"]
pub enum Fired {
    /// The oneshot deadline has been reached: `now >= deadline`. The alarm is idle.
    Deadline {
        /// The deadline that was programmed.
        deadline: u64,
        /// The time at which the handler observed it (`now - deadline` is the lateness).
        now: u64,
    },
    /// One period of a periodic alarm elapsed.
    Period {
        /// The time at which the handler observed it.
        now: u64,
    },
    /// The hardware fired but the deadline is not reached yet (a step of a long wait, or
    /// an early edge of an unsynchronised counter); the alarm has been re-armed.
    Rearmed {
        /// The time at which the handler observed it.
        now: u64,
    },
    /// This channel had not fired (shared interrupt line, or a stale interrupt after
    /// cancellation).
    Spurious,
    /// The hardware fired before the deadline and re-arming it for the remainder failed
    /// (for example a write-status timeout). The alarm holds no deadline and the deadline
    /// has **not** been reached (`now < deadline`); the caller must program it again (the
    /// timer queue and the runtime adapters do) or give up.
    RearmFailed {
        /// The deadline that was programmed.
        deadline: u64,
        /// The time at which the handler observed the interrupt.
        now: u64,
        /// Why re-arming failed.
        error: Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// As handed over, or after a refused programming: the channel may still be armed
    /// (for an earlier deadline), so a `cancel` must shut it down.
    Unknown,
    /// Known quiet: nothing armed, nothing pending.
    Idle,
    Oneshot {
        deadline: u64,
    },
    Periodic,
}

/// A [`ClockEvent`] paired with a [`Monotonic`] time base: program absolute deadlines,
/// never early.
///
/// # Timing contract
///
/// - **Never early.** When [`on_interrupt`](Self::on_interrupt) returns
///   [`Fired::Deadline`], `now >= deadline` was checked against the time base. If the
///   hardware fired before the deadline, the alarm re-arms for the remainder instead.
/// - **Late by at most** `min_delta` (a request closer than `min_delta` is clamped up to
///   it), plus one event tick of margin when the channel is not
///   [phase-locked](crate::Capabilities::phase_locked), plus rounding of the rate conversion (under
///   one event tick), plus interrupt latency.
/// - **Long waits** beyond `max_delta` — or beyond the time base's
///   [`max_idle_ticks`](Monotonic::max_idle_ticks), whichever is shorter — are programmed
///   in steps; each step's interrupt returns [`Fired::Rearmed`] until the last. Capping the
///   step by the time base is what keeps a software-extended clocksource fresh during long
///   idle waits (a 28-bit Otto timer wraps every 85.9 s; its clockevent can count that far).
/// - **Past deadlines are reported**, not armed: [`set_deadline`](Self::set_deadline)
///   returns [`Error::DeadlinePassed`] when `deadline <= now`, so a deadline is never
///   silently turned into a full-wrap wait. [`set_deadline_or_min`](Self::set_deadline_or_min)
///   instead programs `min_delta` so the interrupt comes as soon as possible (Linux's
///   "force" programming, used by the timer queue).
pub struct Alarm<E: ClockEvent, M: Monotonic> {
    event: E,
    time: M,
    /// The channel's capabilities, read once (they are constant by contract).
    caps: Capabilities,
    margin: u64,
    /// Program deadlines with [`ClockEvent::set_compare`].
    absolute: bool,
    /// The channel counts at the time base's rate (read at `new`, like `absolute`): a wait
    /// needs no conversion.
    same_rate: bool,
    mode: Mode,
}

impl<E: ClockEvent, M: Monotonic> Alarm<E, M> {
    /// Pair `event` with the time base `time`.
    ///
    /// When the channel is [absolute](Capabilities::absolute) and
    /// [phase-locked](Capabilities::phase_locked) at the time base's rate, deadlines are
    /// programmed as absolute compare values ([`ClockEvent::set_compare`]) and no delta is
    /// computed; pair such a channel with the time base its driver names (a comparator with
    /// the time of its own counter). With any other pairing deadlines are still never
    /// early, because [`on_interrupt`](Self::on_interrupt) checks the time base, but the
    /// channel may fire early and be re-armed repeatedly until the deadline.
    ///
    /// Errors: [`ConfigError::ZeroFrequency`] if the time base's rate is zero,
    /// [`ConfigError::Capabilities`] if the channel's capabilities are not
    /// [valid](Capabilities::is_valid).
    pub fn new(event: E, time: M) -> Result<Self, Error> {
        check_pair(&event, &time)?;
        let caps = event.capabilities();
        let same_rate = caps.freq_hz == time.freq_hz();
        let locked = caps.phase_locked && same_rate;
        Ok(Self {
            event,
            time,
            caps,
            margin: if locked { 0 } else { 1 },
            absolute: locked && caps.absolute,
            same_rate,
            mode: Mode::Unknown,
        })
    }

    /// Whether deadlines are programmed as absolute compare values (see [`new`](Self::new)).
    pub fn is_absolute(&self) -> bool {
        self.absolute
    }

    /// The time base.
    pub fn time(&self) -> &M {
        &self.time
    }

    /// The underlying channel.
    pub fn event(&self) -> &E {
        &self.event
    }

    /// The underlying channel, mutably (for driver-specific operations).
    pub fn event_mut(&mut self) -> &mut E {
        &mut self.event
    }

    /// Give the parts back.
    pub fn into_parts(self) -> (E, M) {
        (self.event, self.time)
    }

    /// The pending oneshot deadline, if any.
    pub fn deadline(&self) -> Option<u64> {
        match self.mode {
            Mode::Oneshot { deadline } => Some(deadline),
            _ => None,
        }
    }

    /// Fire at `deadline` (time-base ticks), never earlier.
    ///
    /// Errors: [`Error::DeadlinePassed`] when `deadline <= now` (nothing is armed and the
    /// previous deadline is cancelled); [`Error::Unsupported`] when the channel has no
    /// oneshot mode; any error of [`ClockEvent::set_next_event`].
    #[inline]
    pub fn set_deadline(&mut self, deadline: u64) -> Result<Programmed, Error> {
        let now = self.time.now();
        if deadline <= now {
            self.cancel();
            return Err(Error::DeadlinePassed { now });
        }
        self.arm(deadline, deadline - now)
    }

    /// Like [`set_deadline`](Self::set_deadline), but a deadline already passed is armed
    /// with `min_delta` so the interrupt comes as soon as the hardware allows.
    pub fn set_deadline_or_min(&mut self, deadline: u64) -> Result<Programmed, Error> {
        let now = self.time.now();
        let wait = deadline.saturating_sub(now);
        self.arm(deadline, wait)
    }

    /// Arm for `deadline` as the timer queue does ([`set_deadline_or_min`]'s rule, without
    /// the plan): `now` is a time-base reading the caller made just before, or `None`.
    ///
    /// An [absolute](Self::is_absolute) alarm on a time base that needs no reads to keep its
    /// time ([`max_idle_ticks`](Monotonic::max_idle_ticks) `u64::MAX`, a 64-bit counter)
    /// writes the deadline to the channel and reads nothing: a value already reached fires as
    /// soon as possible by [`set_compare`](ClockEvent::set_compare)'s contract, and a wait of
    /// any length is one step. Otherwise the wait is measured from `now` (read here when
    /// `None`); a reading the caller made earlier only makes the wait longer, never early.
    ///
    /// [`set_deadline_or_min`]: Self::set_deadline_or_min
    #[inline]
    pub(crate) fn arm_at(&mut self, deadline: u64, now: Option<u64>) -> Result<(), Error> {
        if self.absolute && self.time.max_idle_ticks() == u64::MAX {
            return match self.event.set_compare(deadline) {
                Ok(()) => {
                    self.mode = Mode::Oneshot { deadline };
                    Ok(())
                }
                Err(e) => {
                    self.mode = Mode::Unknown;
                    Err(e)
                }
            };
        }
        let now = match now {
            Some(now) => now,
            None => self.time.now(),
        };
        self.arm(deadline, deadline.saturating_sub(now)).map(|_| ())
    }

    /// Fire `delta` time-base ticks from now (a relative deadline).
    pub fn set_delta(&mut self, delta: u64) -> Result<Programmed, Error> {
        let now = self.time.now();
        self.arm(now.saturating_add(delta), delta)
    }

    #[inline]
    fn arm(&mut self, deadline: u64, wait: u64) -> Result<Programmed, Error> {
        // A step never outlasts what the time base tolerates unread (extended counters).
        // Compared in time-base ticks, so the common short wait costs no extra division.
        let idle = self.time.max_idle_ticks();
        let step = wait.min(idle);
        let (plan, result) = if self.absolute {
            // Same counter, same rate: the deadline is the compare value. A value that is
            // already due fires at once (set_compare's contract), so no clamping is needed.
            let plan = Programmed {
                delta: step,
                clamped_min: false,
                stepped: step < wait,
            };
            let at = deadline.saturating_sub(wait).saturating_add(step);
            (plan, self.event.set_compare(at))
        } else {
            let ticks = if self.same_rate {
                step
            } else {
                convert_ticks_ceil(step, self.time.freq_hz(), self.caps.freq_hz)
            };
            // `caps` passed `is_valid` in `new`: 1 <= min_delta <= max_delta.
            let mut plan =
                clamp_valid(ticks, self.margin, self.caps.min_delta, self.caps.max_delta);
            plan.stepped |= step < wait;
            (plan, self.event.set_next_event(plan.delta))
        };
        match result {
            Ok(()) => {
                self.mode = Mode::Oneshot { deadline };
                Ok(plan)
            }
            Err(e) => {
                // A refused programming writes nothing (the trait contract), so the channel
                // may still be armed for the deadline before: not known quiet, so the next
                // `cancel` shuts it down.
                self.mode = Mode::Unknown;
                Err(e)
            }
        }
    }

    /// Fire every `period` time-base ticks.
    ///
    /// Errors: [`Error::Unsupported`] without periodic mode; [`ConfigError::PeriodOutOfRange`] when
    /// the period, in event ticks, is outside `[min_delta, max_delta]` (a period cannot be
    /// clamped without changing its meaning), or longer than the time base's
    /// [`max_idle_ticks`](Monotonic::max_idle_ticks).
    pub fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.caps.periodic {
            return Err(Error::Unsupported);
        }
        let ticks = convert_ticks_ceil(period, self.time.freq_hz(), self.caps.freq_hz);
        if ticks < self.caps.min_delta
            || ticks > self.caps.max_delta
            || period > self.time.max_idle_ticks()
        {
            return Err(ConfigError::PeriodOutOfRange.into());
        }
        self.event.set_periodic(ticks)?;
        self.mode = Mode::Periodic;
        Ok(())
    }

    /// Arm only to keep the time base fresh while nothing waits: the idle state of a timer
    /// queue.
    ///
    /// A time base that must be read at least every
    /// [`max_idle_ticks`](Monotonic::max_idle_ticks) (a software-extended counter narrower
    /// than 64 bits) loses whole wraps when a cancelled channel lets it go unread for
    /// longer. So when `max_idle_ticks` is below `u64::MAX` this arms a deadline of
    /// `u64::MAX` ("never"), which the alarm programs in steps of at most
    /// `max_idle_ticks` and the channel's `max_delta`: each step's interrupt reads the time
    /// in [`on_interrupt`](Self::on_interrupt) and re-arms the next one
    /// ([`Fired::Rearmed`]), and [`deadline`](Self::deadline) reports `Some(u64::MAX)`.
    /// With a time base that needs no reads (`max_idle_ticks` `u64::MAX`) it is
    /// [`cancel`](Self::cancel).
    ///
    /// Errors: those of the programming ([`ClockEvent::set_next_event`] or
    /// [`ClockEvent::set_compare`]); the alarm is then idle.
    pub fn keep_alive(&mut self) -> Result<(), Error> {
        if self.time.max_idle_ticks() == u64::MAX {
            self.cancel();
            return Ok(());
        }
        self.set_deadline_or_min(u64::MAX).map(|_| ())
    }

    /// Whether the alarm is only [keeping the time base alive](Self::keep_alive).
    pub fn is_keep_alive(&self) -> bool {
        self.mode == (Mode::Oneshot { deadline: u64::MAX })
    }

    /// Stop the channel and forget a pending deadline (Linux `set_state_shutdown`).
    ///
    /// [`ClockEvent::shutdown`] runs unless the alarm knows the channel is already quiet:
    /// after a previous cancel, or after a oneshot deadline fired and was acknowledged. The
    /// first cancel after [`new`](Self::new) always runs it, since the channel may have
    /// been handed over armed.
    pub fn cancel(&mut self) {
        if self.mode != Mode::Idle {
            self.event.shutdown();
        }
        self.mode = Mode::Idle;
    }

    /// Call from the channel's interrupt handler: acknowledges the hardware and says what
    /// the interrupt meant. See [`Fired`].
    pub fn on_interrupt(&mut self) -> Fired {
        if !self.event.ack() {
            return Fired::Spurious;
        }
        match self.mode {
            Mode::Idle | Mode::Unknown => Fired::Spurious,
            Mode::Periodic => Fired::Period {
                now: self.time.now(),
            },
            Mode::Oneshot { deadline } => {
                let now = self.time.now();
                if now >= deadline {
                    self.mode = Mode::Idle;
                    return Fired::Deadline { deadline, now };
                }
                // Early (unsynchronised edge) or one step of a long wait: arm the rest.
                match self.arm(deadline, deadline - now) {
                    Ok(_) => Fired::Rearmed { now },
                    // Never report an unreached deadline as reached: say what happened.
                    Err(error) => {
                        crate::log_warn!(
                            "alarm: re-arm for deadline {=u64} failed at {=u64}: {}",
                            deadline,
                            now,
                            error
                        );
                        Fired::RearmFailed {
                            deadline,
                            now,
                            error,
                        }
                    }
                }
            }
        }
    }
}

impl<E: ClockEvent + core::fmt::Debug, M: Monotonic> core::fmt::Debug for Alarm<E, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Alarm")
            .field("event", &self.event)
            .field("margin", &self.margin)
            .field("absolute", &self.absolute)
            .field("mode", &self.mode)
            .finish()
    }
}

/// What [`Alarm::new`] refuses: a time base at 0 Hz, a channel whose capabilities are not
/// [valid](Capabilities::is_valid).
pub(crate) fn check_pair<E: ClockEvent, M: Monotonic>(event: &E, time: &M) -> Result<(), Error> {
    if time.freq_hz() == 0 {
        return Err(ConfigError::ZeroFrequency.into());
    }
    if !event.capabilities().is_valid() {
        return Err(ConfigError::Capabilities.into());
    }
    Ok(())
}

/// A time base held by value or shared by `'static` reference: what the runtime adapters
/// (the `embassy` and `rtic` modules, behind their features) hand their [`Alarm`], so that
/// the same time base can also be read without the adapter's lock (see
/// `embassy::TimeDriver::init_static`).
#[derive(Debug)]
pub enum TimeRef<M: 'static> {
    /// Owned by the alarm (read under the adapter's lock only).
    Owned(M),
    /// Set once in the adapter's `static` and read from there by every core.
    Shared(&'static M),
}

impl<M: Monotonic + 'static> Monotonic for TimeRef<M> {
    #[inline]
    fn now(&self) -> u64 {
        match self {
            Self::Owned(m) => m.now(),
            Self::Shared(m) => m.now(),
        }
    }
    #[inline]
    fn freq_hz(&self) -> u32 {
        match self {
            Self::Owned(m) => m.freq_hz(),
            Self::Shared(m) => m.freq_hz(),
        }
    }
    #[inline]
    fn max_idle_ticks(&self) -> u64 {
        match self {
            Self::Owned(m) => m.max_idle_ticks(),
            Self::Shared(m) => m.max_idle_ticks(),
        }
    }
}

#[cfg(any(feature = "embassy", feature = "rtic"))]
pub(crate) use slot::TimeSlot;

/// A set-once cell for a time base, read without a lock (the runtime adapters' `now()`).
///
/// Built on `conquer_once::noblock::OnceCell` (a `Sync` set-once cell: the value is written
/// by one caller, then published by a release store that a reader's acquire load pairs
/// with; a second caller is told the cell is being written instead of spinning), so this
/// crate holds no `unsafe` of its own for it. Its read is `#[inline]`: `spin::Once::get`,
/// used before, is not, and at `opt-level = "s"` (where rustc shares generic instances
/// between crates) a firmware called the copy its timer crate had compiled, 8 more
/// LoongArch instructions per `now()` (the crate README, "Runtime overhead").
///
/// The caller's flag (for embassy: the time base counts at embassy's rate) is not stored
/// beside the value but chooses which of two cells holds it, so the fast read is one load
/// and one compare. One claim flag in front keeps the first call the only one that ever
/// stores, in either cell.
#[cfg(any(feature = "embassy", feature = "rtic"))]
mod slot {
    use conquer_once::noblock::OnceCell;
    use core::sync::atomic::{AtomicBool, Ordering};

    /// The time base, stored once, in the cell its flag names.
    pub(crate) struct TimeSlot<M> {
        claimed: AtomicBool,
        /// Stored with the flag set.
        flagged: OnceCell<M>,
        /// Stored with the flag clear.
        plain: OnceCell<M>,
    }

    impl<M> TimeSlot<M> {
        pub(crate) const fn new() -> Self {
            Self {
                claimed: AtomicBool::new(false),
                flagged: OnceCell::uninit(),
                plain: OnceCell::uninit(),
            }
        }

        /// The value and the flag it was stored with, once stored.
        #[inline(always)]
        pub(crate) fn get(&self) -> Option<(&M, bool)> {
            match self.flagged.try_get() {
                Ok(time) => Some((time, true)),
                Err(_) => self.plain.try_get().ok().map(|time| (time, false)),
            }
        }

        /// Store `time` with `flag` if nothing was stored or claimed yet; otherwise hand it
        /// back (`Err(Some(time))`). `Err(None)` cannot happen (the one claimant finds its
        /// cell empty); it is there so that no path needs a panic.
        pub(crate) fn set(&'static self, time: M, flag: bool) -> Result<&'static M, Option<M>> {
            if self.claimed.swap(true, Ordering::AcqRel) {
                return Err(Some(time));
            }
            let cell = if flag { &self.flagged } else { &self.plain };
            // The one claimant: no other caller gets past the claim, so the cell is empty.
            match cell.try_init_once(move || time) {
                Ok(()) => cell.try_get().map_err(|_| None),
                Err(_) => Err(None),
            }
        }

        /// Store `time` once, or, when one is stored already, check that `time` counts at
        /// its rate and hand out the stored one (`time` is dropped: the family's views of
        /// one counter are all the same time). The adapters' `init`.
        ///
        /// Errors: [`Busy`](crate::Error::Busy) while another caller is in the middle of the
        /// first store; [`RateMismatch`](crate::ConfigError::RateMismatch) for a time base
        /// at another rate than the stored one.
        pub(crate) fn set_or_share(
            &'static self,
            time: M,
            flag: bool,
        ) -> Result<&'static M, crate::Error>
        where
            M: crate::Monotonic,
        {
            match self.set(time, flag) {
                Ok(stored) => Ok(stored),
                Err(time) => {
                    let (Some(stored), Some(time)) = (self.get_static(), time) else {
                        return Err(crate::Error::Busy);
                    };
                    if stored.freq_hz() != time.freq_hz() {
                        return Err(crate::Error::Config(crate::ConfigError::RateMismatch));
                    }
                    Ok(stored)
                }
            }
        }

        /// The value, once stored with the flag set: one load and one compare (the runtime
        /// adapters' fast `now()`).
        #[inline(always)]
        pub(crate) fn get_flagged(&self) -> Option<&M> {
            self.flagged.try_get().ok()
        }

        /// The stored value, for as long as the cell (`'static` here).
        pub(crate) fn get_static(&'static self) -> Option<&'static M> {
            self.get().map(|(t, _)| t)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::TimeSlot;

        #[test]
        fn the_first_value_is_kept_and_a_later_one_handed_back() {
            static SLOT: TimeSlot<u32> = TimeSlot::new();
            assert!(SLOT.get().is_none() && SLOT.get_flagged().is_none());
            assert_eq!(SLOT.set(7, true), Ok(&7));
            assert_eq!(SLOT.set(9, false), Err(Some(9)));
            assert_eq!(SLOT.get(), Some((&7, true)));
            assert_eq!(SLOT.get_flagged(), Some(&7));
        }

        #[test]
        fn a_value_stored_without_the_flag_is_not_the_fast_path() {
            static SLOT: TimeSlot<u32> = TimeSlot::new();
            assert_eq!(SLOT.set(3, false), Ok(&3));
            assert_eq!(SLOT.get_flagged(), None);
            assert_eq!(SLOT.get_static(), Some(&3));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_clamps_to_min_and_max_and_never_goes_below_the_request() {
        let (min, max) = (8, 0x0FFF_FFFF);
        for wait in [
            0u64,
            1,
            7,
            8,
            9,
            1000,
            0x0FFF_FFFE,
            0x0FFF_FFFF,
            0x1000_0000,
            u64::MAX,
        ] {
            let p = plan_delta(wait, 3_125_000, 3_125_000, 1, min, max);
            assert!(p.delta >= min && p.delta <= max);
            assert!(p.stepped || p.delta > wait, "wait {wait} got {p:?}");
            assert_eq!(p.clamped_min, wait.saturating_add(1) < min);
            assert_eq!(p.stepped, wait.saturating_add(1) > max);
        }
    }

    #[test]
    fn plan_converts_rates_rounding_up() {
        // 3 FRC ticks at 24 MHz on a 12 MHz local timer: 1.5 -> 2 ticks (+1 margin).
        let p = plan_delta(3, 24_000_000, 12_000_000, 1, 1, 1 << 31);
        assert_eq!(p.delta, 3);
    }

    #[test]
    fn plan_repairs_nonsense_limits() {
        let p = plan_delta(0, 1, 1, 0, 0, 0);
        assert_eq!(p.delta, 1);
    }
}
