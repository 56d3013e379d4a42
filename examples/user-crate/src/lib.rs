//! A drift-free heartbeat on any [`ClockEvent`] behind a [`hwtimer_core::Alarm`]: the kind of
//! alarm logic a firmware writes on top of the timer family.
//!
//! Beat *k* is due at exactly `start + k * period` time-base ticks, however late each
//! interrupt is handled, so lateness never accumulates (re-arming "one period from now" in
//! the handler would drift by every handler's latency). When the handler is so late that
//! further beats have passed too, those beats are counted as missed and skipped, never
//! delivered in a burst, and the next deadline stays on the grid.
//!
//! The crate is `no_std` and depends on `hwtimer-core` with no features; its tests
//! (`tests/otto.rs`) run it on `otto-timer`'s RTL838x model on the host.
#![no_std]
#![deny(missing_docs)]

use hwtimer_core::{Alarm, ClockEvent, ConfigError, Error, Fired, Monotonic};

/// How often [`Heartbeat`] retries arming when the next deadline passes while it arms it.
const ARM_ATTEMPTS: u32 = 4;

/// What an interrupt meant for the heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    /// Beat number `index` (1 for the first) is due; the next one is armed.
    Due {
        /// Which beat this is, counting from 1; skipped beats are counted too.
        index: u64,
        /// The beat's deadline (`start + index * period`).
        deadline: u64,
        /// Time-base ticks between the deadline and the handler's observation (never negative).
        lateness: u64,
        /// Beats skipped since the previous `Due` because their deadlines passed as well.
        missed: u64,
    },
    /// Not a beat: a step of a long wait, or a spurious interrupt.
    NotYet,
    /// The next beat could not be armed; the heartbeat is stopped.
    Failed(Error),
}

/// Beats every `period` time-base ticks on a oneshot [`ClockEvent`], on a fixed grid.
pub struct Heartbeat<E: ClockEvent, M: Monotonic> {
    alarm: Alarm<E, M>,
    period: u64,
    /// Index of the beat that is armed.
    index: u64,
    /// Its deadline.
    next: u64,
    /// Beats skipped in total.
    missed: u64,
}

impl<E: ClockEvent, M: Monotonic> Heartbeat<E, M> {
    /// Starts beating: the first beat is due `period` ticks from now.
    ///
    /// Errors: [`Error::Config`]`(`[`ConfigError::PeriodOutOfRange`]`)` when `period` is 0;
    /// any error of [`Alarm::set_deadline`].
    pub fn start(mut alarm: Alarm<E, M>, period: u64) -> Result<Self, Error> {
        if period == 0 {
            return Err(Error::Config(ConfigError::PeriodOutOfRange));
        }
        let next = alarm.time().now().saturating_add(period);
        alarm.set_deadline(next)?;
        Ok(Self {
            alarm,
            period,
            index: 1,
            next,
            missed: 0,
        })
    }

    /// The deadline of the next beat.
    pub fn next_deadline(&self) -> u64 {
        self.next
    }

    /// Beats skipped so far because the handler came too late for them.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// The alarm, for inspection.
    pub fn alarm(&self) -> &Alarm<E, M> {
        &self.alarm
    }

    /// Call from the clockevent's interrupt handler.
    pub fn on_interrupt(&mut self) -> Beat {
        // `Fired::Deadline` guarantees `now >= deadline`: the alarm never fires early.
        let (deadline, now) = match self.alarm.on_interrupt() {
            Fired::Deadline { deadline, now } => (deadline, now),
            Fired::Rearmed { .. } | Fired::Spurious | Fired::Period { .. } => return Beat::NotYet,
            Fired::RearmFailed { error, .. } => return Beat::Failed(error),
        };
        let index = self.index;
        let missed_before = self.missed;
        // Skip every beat whose deadline has passed as well, then arm the next one on the
        // grid; if time moves past it while arming, skip again (a bounded number of times).
        let observed = now;
        let mut now = now;
        for _ in 0..ARM_ATTEMPTS {
            let behind = now.saturating_sub(self.next) / self.period;
            self.missed += behind;
            self.index += behind + 1;
            self.next = self
                .next
                .saturating_add(self.period.saturating_mul(behind + 1));
            match self.alarm.set_deadline(self.next) {
                Ok(_) => {
                    return Beat::Due {
                        index,
                        deadline,
                        lateness: observed - deadline,
                        missed: self.missed - missed_before,
                    };
                }
                Err(Error::DeadlinePassed { now: later }) => now = later,
                Err(error) => return Beat::Failed(error),
            }
        }
        Beat::Failed(Error::DeadlinePassed { now })
    }
}
