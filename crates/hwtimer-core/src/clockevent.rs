//! Programmable interrupt sources ([`ClockEvent`]) and the [`Alarm`] that turns one into
//! "interrupt me at absolute time *t*, never early".
//!
//! The split follows Linux: a driver implements the narrow hardware contract of
//! [`ClockEvent`] (program a delta inside `[min_delta, max_delta]`, periodic, shutdown,
//! acknowledge), and the core adds everything that is the same on every chip — absolute
//! deadlines, clamping, re-arming long waits in steps, the past-deadline check and the
//! never-early check in the interrupt path — once, in [`Alarm`].

use crate::clocksource::Monotonic;
use crate::error::Error;
use crate::time::convert_ticks_ceil;

/// Which modes a [`ClockEvent`] supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Features {
    /// [`ClockEvent::set_next_event`] works.
    pub oneshot: bool,
    /// [`ClockEvent::set_periodic`] works.
    pub periodic: bool,
}

impl Features {
    /// Oneshot and periodic.
    pub const BOTH: Features = Features {
        oneshot: true,
        periodic: true,
    };
    /// Oneshot only.
    pub const ONESHOT: Features = Features {
        oneshot: true,
        periodic: false,
    };
}

/// One hardware interrupt channel that can be programmed to fire after a delay: the
/// family's notion of a Linux clockevent device. Drivers implement it; applications use
/// it through [`Alarm`] (or [`HrTimers`](crate::queue::HrTimers)).
///
/// # Contract
///
/// An implementation MUST:
/// - count in ticks of [`freq_hz`](Self::freq_hz) (non-zero, constant);
/// - report `1 <= min_delta() <= max_delta()`, constant for the lifetime of the value;
/// - in [`set_next_event`](Self::set_next_event), for `delta` in `[min_delta, max_delta]`,
///   arm a oneshot that raises the interrupt **no earlier** than `delta` ticks after the
///   call begins and as soon as the hardware allows after that; for `delta` outside that
///   range return [`Error::InvalidConfig`] and leave the channel as it was; a driver
///   whose hardware has a coarser granularity (LoongArch InitVal ignores its low two
///   bits) rounds the delta **up** to it, never down, and reports a `max_delta` that
///   is a multiple of that granularity;
/// - never lose the interrupt of a channel it reprograms (the Otto timer needs a special
///   sequence for this, see that crate) and never clear a pending interrupt anywhere but in
///   [`ack`](Self::ack);
/// - in [`ack`](Self::ack), report whether this channel had fired and clear that state,
///   so a shared interrupt line can be demultiplexed; a spurious call returns `false`;
/// - never panic, whatever the hardware reads back.
///
/// Errors: [`Error::InvalidConfig`] for an out-of-range delta or period,
/// [`Error::Unsupported`] for a mode [`features`](Self::features) does not list,
/// [`Error::Timeout`] when the hardware did not acknowledge a write (Exynos MCT WSTAT).
pub trait ClockEvent {
    /// Counting rate in Hz.
    fn freq_hz(&self) -> u32;
    /// Smallest delta, in ticks, the channel can be programmed with.
    fn min_delta(&self) -> u64;
    /// Largest delta, in ticks, the channel can be programmed with.
    fn max_delta(&self) -> u64;
    /// Supported modes.
    fn features(&self) -> Features;
    /// `true` when this channel counts on exactly the edges of the clocksource it is paired
    /// with (a comparator on the same counter, or a down-counter in the same clock domain),
    /// so a delta of `n` ticks fires when that clocksource has advanced by `n`. When `false`
    /// (the default: a separate counter whose prescaler phase is unknown), [`Alarm`] adds
    /// one tick of margin so the interrupt cannot come up to one tick early.
    fn phase_locked(&self) -> bool {
        false
    }
    /// Arm a oneshot `delta` ticks from now; see the trait contract.
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error>;
    /// Fire every `period` ticks until [`shutdown`](Self::shutdown) or
    /// [`set_next_event`](Self::set_next_event).
    fn set_periodic(&mut self, period: u64) -> Result<(), Error>;
    /// Stop the channel so it raises no further interrupt, and mask the channel's own
    /// interrupt enable where the channel has one (an enable shared with other sources,
    /// such as a CPU-wide interrupt line enable, is left to the caller). A pending
    /// interrupt stays pending until [`ack`](Self::ack).
    fn shutdown(&mut self);
    /// From the interrupt handler: did this channel fire? Clears the pending state.
    fn ack(&mut self) -> bool;
}

impl<T: ClockEvent + ?Sized> ClockEvent for &mut T {
    fn freq_hz(&self) -> u32 {
        (**self).freq_hz()
    }
    fn min_delta(&self) -> u64 {
        (**self).min_delta()
    }
    fn max_delta(&self) -> u64 {
        (**self).max_delta()
    }
    fn features(&self) -> Features {
        (**self).features()
    }
    fn phase_locked(&self) -> bool {
        (**self).phase_locked()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        (**self).set_next_event(delta)
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        (**self).set_periodic(period)
    }
    fn shutdown(&mut self) {
        (**self).shutdown()
    }
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
    /// `[min_delta, max_delta]`.
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
    let min = if min == 0 { 1 } else { min };
    let max = if max < min { min } else { max };
    let ticks = convert_ticks_ceil(wait, clock_hz, event_hz).saturating_add(margin);
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
    /// (for example a write-status timeout). The alarm is idle and the deadline has **not**
    /// been reached (`now < deadline`); the caller decides whether to retry or give up.
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
    Idle,
    Oneshot { deadline: u64 },
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
///   [phase-locked](ClockEvent::phase_locked), plus rounding of the rate conversion (under
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
    margin: u64,
    mode: Mode,
}

impl<E: ClockEvent, M: Monotonic> Alarm<E, M> {
    /// Pair `event` with the time base `time`.
    ///
    /// Errors: [`Error::InvalidConfig`] if either rate is zero or the event reports
    /// `min_delta` of zero or above `max_delta`.
    pub fn new(event: E, time: M) -> Result<Self, Error> {
        if event.freq_hz() == 0
            || time.freq_hz() == 0
            || event.min_delta() == 0
            || event.min_delta() > event.max_delta()
        {
            return Err(Error::InvalidConfig);
        }
        let margin = if event.phase_locked() && event.freq_hz() == time.freq_hz() {
            0
        } else {
            1
        };
        Ok(Self {
            event,
            time,
            margin,
            mode: Mode::Idle,
        })
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

    /// Fire `delta` time-base ticks from now (a relative deadline).
    pub fn set_delta(&mut self, delta: u64) -> Result<Programmed, Error> {
        let now = self.time.now();
        self.arm(now.saturating_add(delta), delta)
    }

    fn arm(&mut self, deadline: u64, wait: u64) -> Result<Programmed, Error> {
        if !self.event.features().oneshot {
            return Err(Error::Unsupported);
        }
        // A step never outlasts what the time base tolerates unread (extended counters).
        // Compared in time-base ticks, so the common short wait costs no extra division.
        let idle = self.time.max_idle_ticks();
        let step = wait.min(idle);
        let mut plan = plan_delta(
            step,
            self.time.freq_hz(),
            self.event.freq_hz(),
            self.margin,
            self.event.min_delta(),
            self.event.max_delta(),
        );
        plan.stepped |= step < wait;
        match self.event.set_next_event(plan.delta) {
            Ok(()) => {
                self.mode = Mode::Oneshot { deadline };
                Ok(plan)
            }
            Err(e) => {
                self.mode = Mode::Idle;
                Err(e)
            }
        }
    }

    /// Fire every `period` time-base ticks.
    ///
    /// Errors: [`Error::Unsupported`] without periodic mode; [`Error::InvalidConfig`] when
    /// the period, in event ticks, is outside `[min_delta, max_delta]` (a period cannot be
    /// clamped without changing its meaning), or longer than the time base's
    /// [`max_idle_ticks`](Monotonic::max_idle_ticks).
    pub fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.event.features().periodic {
            return Err(Error::Unsupported);
        }
        let ticks = convert_ticks_ceil(period, self.time.freq_hz(), self.event.freq_hz());
        if ticks < self.event.min_delta()
            || ticks > self.event.max_delta()
            || period > self.time.max_idle_ticks()
        {
            return Err(Error::InvalidConfig);
        }
        self.event.set_periodic(ticks)?;
        self.mode = Mode::Periodic;
        Ok(())
    }

    /// Stop the channel; a pending deadline is forgotten.
    pub fn cancel(&mut self) {
        if self.mode != Mode::Idle {
            self.event.shutdown();
        }
        self.mode = Mode::Idle;
    }

    /// Stop the channel unconditionally (Linux `set_state_shutdown`).
    pub fn shutdown(&mut self) {
        self.event.shutdown();
        self.mode = Mode::Idle;
    }

    /// Call from the channel's interrupt handler: acknowledges the hardware and says what
    /// the interrupt meant. See [`Fired`].
    pub fn on_interrupt(&mut self) -> Fired {
        if !self.event.ack() {
            return Fired::Spurious;
        }
        match self.mode {
            Mode::Idle => Fired::Spurious,
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
                        self.mode = Mode::Idle;
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
            .field("mode", &self.mode)
            .finish()
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
