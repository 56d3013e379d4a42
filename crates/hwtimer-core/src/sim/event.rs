use std::sync::{Arc, Mutex, MutexGuard};

use super::SimClock;
use crate::clockevent::{Capabilities, ClockEvent};
use crate::error::{ConfigError, Error};
use crate::time::NANOS_PER_SEC;

#[derive(Debug, Default)]
struct State {
    fire_at_ns: Option<u64>,
    period: Option<u64>,
    pending: bool,
    programs: u64,
    acks: u64,
    fired: u64,
    last_delta: Option<u64>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A clockevent that fires in virtual time.
///
/// Its tick edges fall at `phase_ns + k / freq` on the [`SimClock`]; with the default
/// phase of 0 they coincide with the edges of a [`SimCounter`](super::SimCounter) of the
/// same rate, and the event reports itself [phase-locked](crate::Capabilities::phase_locked). A
/// non-zero phase models a separate counter whose prescaler runs out of step, which can
/// fire up to one tick "early" as seen by the clocksource.
///
/// A programmed delta of `n` fires at the `n`-th edge after the call. With
/// [`with_absolute`](Self::with_absolute) it also takes absolute compare values: edge
/// number `at` counted from virtual time 0, which is what a 64-bit
/// [`SimCounter`](super::SimCounter) of the same rate reads. The interrupt is level-style:
/// pending from the fire time until [`ack`](ClockEvent::ack) or
/// [`shutdown`](ClockEvent::shutdown).
#[derive(Debug)]
pub struct SimClockEvent {
    clock: SimClock,
    freq_hz: u32,
    min: u64,
    max: u64,
    periodic: bool,
    absolute: bool,
    phase_ns: u64,
    state: Arc<Mutex<State>>,
}

/// A shared view of a [`SimClockEvent`]'s state, for tests and harnesses.
#[derive(Debug, Clone)]
pub struct SimClockEventProbe {
    clock: SimClock,
    state: Arc<Mutex<State>>,
}

impl SimClockEvent {
    /// A oneshot+periodic event at `freq_hz` accepting deltas in `[min, max]`.
    pub fn new(clock: &SimClock, freq_hz: u32, min: u64, max: u64) -> Self {
        Self {
            clock: clock.clone(),
            freq_hz,
            min,
            max,
            periodic: true,
            absolute: false,
            phase_ns: 0,
            state: Arc::default(),
        }
    }

    /// Offset the event's tick edges from the clock's grid (not phase-locked).
    pub fn with_phase_ns(mut self, phase_ns: u64) -> Self {
        self.phase_ns = phase_ns;
        self
    }

    /// Without periodic mode.
    pub fn oneshot_only(mut self) -> Self {
        self.periodic = false;
        self
    }

    /// With absolute programming ([`ClockEvent::set_compare`]) against the edge count.
    pub fn with_absolute(mut self) -> Self {
        self.absolute = true;
        self
    }

    /// A probe sharing this event's state.
    pub fn probe(&self) -> SimClockEventProbe {
        SimClockEventProbe {
            clock: self.clock.clone(),
            state: Arc::clone(&self.state),
        }
    }

    /// Time of the `n`-th edge strictly after `now`.
    fn edge_after(&self, now: u64, n: u64) -> u64 {
        let f = self.freq_hz.max(1) as u128;
        let rel = now.saturating_sub(self.phase_ns) as u128;
        let k = rel * f / NANOS_PER_SEC as u128; // edges passed
        let target = k + n as u128;
        let ns = (target * NANOS_PER_SEC as u128).div_ceil(f) + self.phase_ns as u128;
        ns.min(u64::MAX as u128) as u64
    }

    fn latch(&self) {
        let now = self.clock.now_ns();
        let mut s = lock(&self.state);
        while let Some(t) = s.fire_at_ns {
            if t > now {
                break;
            }
            s.pending = true;
            s.fired += 1;
            s.fire_at_ns = s.period.map(|p| self.edge_after(t, p));
        }
    }
}

impl ClockEvent for SimClockEvent {
    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::new(self.freq_hz, self.min, self.max);
        caps.periodic = self.periodic;
        caps.phase_locked = self.phase_ns == 0;
        caps.absolute = self.absolute;
        caps
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if delta < self.min || delta > self.max {
            return Err(ConfigError::DeltaOutOfRange.into());
        }
        self.latch();
        let at = self.edge_after(self.clock.now_ns(), delta);
        let mut s = lock(&self.state);
        s.fire_at_ns = Some(at);
        s.period = None;
        s.programs += 1;
        s.last_delta = Some(delta);
        Ok(())
    }
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        if !self.absolute {
            return Err(Error::Unsupported);
        }
        self.latch();
        let f = u128::from(self.freq_hz.max(1));
        let edge =
            (u128::from(at) * u128::from(NANOS_PER_SEC)).div_ceil(f) + u128::from(self.phase_ns);
        // A value already passed fires at once: the comparator sees counter >= at.
        let fire = edge.min(u128::from(u64::MAX)) as u64;
        let mut s = lock(&self.state);
        s.fire_at_ns = Some(fire.max(self.clock.now_ns()));
        s.period = None;
        s.programs += 1;
        s.last_delta = Some(at);
        drop(s);
        self.latch();
        Ok(())
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.periodic {
            return Err(Error::Unsupported);
        }
        if period < self.min || period > self.max {
            return Err(ConfigError::PeriodOutOfRange.into());
        }
        self.latch();
        let at = self.edge_after(self.clock.now_ns(), period);
        let mut s = lock(&self.state);
        s.fire_at_ns = Some(at);
        s.period = Some(period);
        s.programs += 1;
        s.last_delta = Some(period);
        Ok(())
    }
    fn shutdown(&mut self) {
        self.latch();
        let mut s = lock(&self.state);
        s.fire_at_ns = None;
        s.period = None;
        // The cancelled event's status goes with it (the trait's pending-status rule).
        s.pending = false;
    }
    fn ack(&mut self) -> bool {
        self.latch();
        let mut s = lock(&self.state);
        let was = s.pending;
        s.pending = false;
        if was {
            s.acks += 1;
        }
        was
    }
}

impl SimClockEventProbe {
    /// When the event will next fire, if armed.
    pub fn next_fire_ns(&self) -> Option<u64> {
        lock(&self.state).fire_at_ns
    }

    /// Whether an interrupt is pending (fired and not acknowledged) at the current time.
    pub fn pending(&self) -> bool {
        let s = lock(&self.state);
        s.pending || s.fire_at_ns.is_some_and(|t| t <= self.clock.now_ns())
    }

    /// Move the clock to the next fire time; returns it, or `None` when nothing is armed.
    pub fn advance_to_fire(&self) -> Option<u64> {
        let t = self.next_fire_ns()?;
        self.clock.advance_to(t);
        Some(t)
    }

    /// How many times the event was programmed.
    pub fn programs(&self) -> u64 {
        lock(&self.state).programs
    }

    /// How many interrupts were acknowledged.
    pub fn acks(&self) -> u64 {
        lock(&self.state).acks
    }

    /// How many times it fired (latched), acknowledged or not.
    pub fn fired(&self) -> u64 {
        lock(&self.state).fired
    }

    /// The last delta or period programmed, in event ticks (or the last absolute compare
    /// value).
    pub fn last_delta(&self) -> Option<u64> {
        lock(&self.state).last_delta
    }
}
