use std::cell::RefCell;
use std::rc::Rc;

use super::SimClock;
use crate::clockevent::{ClockEvent, Features};
use crate::error::Error;
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

/// A clockevent that fires in virtual time.
///
/// Its tick edges fall at `phase_ns + k / freq` on the [`SimClock`]; with the default
/// phase of 0 they coincide with the edges of a [`SimCounter`](super::SimCounter) of the
/// same rate, and the event reports itself [phase-locked](ClockEvent::phase_locked). A
/// non-zero phase models a separate counter whose prescaler runs out of step, which can
/// fire up to one tick "early" as seen by the clocksource.
///
/// A programmed delta of `n` fires at the `n`-th edge after the call. The interrupt is
/// level-style: pending from the fire time until [`ack`](ClockEvent::ack).
#[derive(Debug)]
pub struct SimClockEvent {
    clock: SimClock,
    freq_hz: u32,
    min: u64,
    max: u64,
    features: Features,
    phase_ns: u64,
    state: Rc<RefCell<State>>,
}

/// A shared view of a [`SimClockEvent`]'s state, for tests and harnesses.
#[derive(Debug, Clone)]
pub struct SimClockEventProbe {
    clock: SimClock,
    state: Rc<RefCell<State>>,
}

impl SimClockEvent {
    /// A oneshot+periodic event at `freq_hz` accepting deltas in `[min, max]`.
    pub fn new(clock: &SimClock, freq_hz: u32, min: u64, max: u64) -> Self {
        Self {
            clock: clock.clone(),
            freq_hz,
            min,
            max,
            features: Features::BOTH,
            phase_ns: 0,
            state: Rc::default(),
        }
    }

    /// Offset the event's tick edges from the clock's grid (not phase-locked).
    pub fn with_phase_ns(mut self, phase_ns: u64) -> Self {
        self.phase_ns = phase_ns;
        self
    }

    /// Restrict the modes.
    pub fn with_features(mut self, features: Features) -> Self {
        self.features = features;
        self
    }

    /// A probe sharing this event's state.
    pub fn probe(&self) -> SimClockEventProbe {
        SimClockEventProbe {
            clock: self.clock.clone(),
            state: Rc::clone(&self.state),
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
        let mut s = self.state.borrow_mut();
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
    fn freq_hz(&self) -> u32 {
        self.freq_hz
    }
    fn min_delta(&self) -> u64 {
        self.min
    }
    fn max_delta(&self) -> u64 {
        self.max
    }
    fn features(&self) -> Features {
        self.features
    }
    fn phase_locked(&self) -> bool {
        self.phase_ns == 0
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if !self.features.oneshot {
            return Err(Error::Unsupported);
        }
        if delta < self.min || delta > self.max {
            return Err(Error::InvalidConfig);
        }
        self.latch();
        let at = self.edge_after(self.clock.now_ns(), delta);
        let mut s = self.state.borrow_mut();
        s.fire_at_ns = Some(at);
        s.period = None;
        s.programs += 1;
        s.last_delta = Some(delta);
        Ok(())
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.features.periodic {
            return Err(Error::Unsupported);
        }
        if period < self.min || period > self.max {
            return Err(Error::InvalidConfig);
        }
        self.latch();
        let at = self.edge_after(self.clock.now_ns(), period);
        let mut s = self.state.borrow_mut();
        s.fire_at_ns = Some(at);
        s.period = Some(period);
        s.programs += 1;
        s.last_delta = Some(period);
        Ok(())
    }
    fn shutdown(&mut self) {
        self.latch();
        let mut s = self.state.borrow_mut();
        s.fire_at_ns = None;
        s.period = None;
    }
    fn ack(&mut self) -> bool {
        self.latch();
        let mut s = self.state.borrow_mut();
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
        self.state.borrow().fire_at_ns
    }

    /// Whether an interrupt is pending (fired and not acknowledged) at the current time.
    pub fn pending(&self) -> bool {
        let s = self.state.borrow();
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
        self.state.borrow().programs
    }

    /// How many interrupts were acknowledged.
    pub fn acks(&self) -> u64 {
        self.state.borrow().acks
    }

    /// How many times it fired (latched), acknowledged or not.
    pub fn fired(&self) -> u64 {
        self.state.borrow().fired
    }

    /// The last delta or period programmed, in event ticks.
    pub fn last_delta(&self) -> Option<u64> {
        self.state.borrow().last_delta
    }
}
