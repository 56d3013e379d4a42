//! Failure injection for any [`ClockEvent`]: refused programmings, lost, doubled and late
//! interrupts, and stale pending status, from a script or at random, until told to stop.
//!
//! [`FaultyEvent`] wraps a channel (a driver on its model, or a [`SimClockEvent`](super::SimClockEvent))
//! and answers as failing hardware would; [`Faults`] is the shared handle a test scripts it
//! through; [`Irq::run_until`] is the interrupt controller between the channel's line and
//! the handler, which loses, doubles or delays deliveries as the faults say.
//!
//! What each failure does, and the hardware it stands for:
//!
//! | failure | effect | seen on |
//! |---|---|---|
//! | refusal, [`Refusal::KeepOld`] | the programming returns the error and writes nothing: the channel stays armed for what it held before (the [`ClockEvent`] contract) | a shared-register lock held by the interrupted context (`Busy`, refused before any write), a per-CPU register reached from another core (`WrongCpu`) |
//! | refusal, [`Refusal::Disarm`] | the channel is stopped, then the error is returned | a driver that disables its comparator before a write that then times out (an Exynos MCT write whose `WSTAT` bit never comes) |
//! | [`Delivery::Drop`] | the line rose and the CPU did not take it; the status stays latched (every channel here has a latched status: Otto `IP`, MCT `INT_CSTAT`, LoongArch `TI`), so it is taken when the line is next raised, or once the failures stop | an interrupt masked or lost at the controller |
//! | [`Delivery::Double`] | the handler runs twice for one event | a level line sampled again before the acknowledgement landed (A9 erratum 740657-style) |
//! | [`Delivery::Late`] | the handler runs the given time after the line rose | interrupt latency, a higher-priority handler |
//! | stale status | one `ack` reports a fire that did not happen | a status bit left set by an earlier event |
//!
//! Failures stop at [`Faults::stop`]; the contract the family keeps is that from then on (or
//! after the recovery call a refusal's error names) every queued timer and every wake is
//! served, never early.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use super::SimClock;
use crate::clockevent::{Capabilities, ClockEvent};
use crate::error::Error;

/// What the hardware holds after a refused programming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing was written: the channel is still armed for what it held before.
    KeepOld,
    /// The channel was stopped before the write that failed: nothing is armed.
    Disarm,
}

/// What the interrupt controller does with one rise of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The handler runs now.
    Deliver,
    /// The handler does not run now; the status stays latched.
    Drop,
    /// The handler runs twice.
    Double,
    /// The handler runs this many nanoseconds later.
    Late(u64),
}

/// Failure rates of [`Faults::random`], each in parts per thousand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rates {
    /// A programming is refused (error and [`Refusal`] drawn at random).
    pub refuse: u32,
    /// One rise of the line is dropped.
    pub drop: u32,
    /// One rise is delivered twice.
    pub double: u32,
    /// One rise is delivered late, by up to `late_ns`.
    pub late: u32,
    /// The longest late delivery.
    pub late_ns: u64,
    /// An `ack` reports a stale status.
    pub stale: u32,
    /// Refusals may be [`Error::WrongCpu`] (otherwise only `Busy` and `Timeout`).
    pub wrong_cpu: bool,
}

/// What was injected so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Programmings refused.
    pub refused: u64,
    /// Line rises dropped.
    pub dropped: u64,
    /// Line rises delivered twice.
    pub doubled: u64,
    /// Line rises delivered late.
    pub late: u64,
    /// Stale statuses reported by `ack`.
    pub stale: u64,
    /// Programmings that went through.
    pub programmed: u64,
}

impl std::ops::AddAssign for FaultStats {
    /// Totals over several runs.
    fn add_assign(&mut self, other: Self) {
        self.refused += other.refused;
        self.dropped += other.dropped;
        self.doubled += other.doubled;
        self.late += other.late;
        self.stale += other.stale;
        self.programmed += other.programmed;
    }
}

#[derive(Debug, Default)]
struct State {
    stopped: bool,
    refusals: VecDeque<(Error, Refusal)>,
    deliveries: VecDeque<Delivery>,
    stale: u32,
    random: Option<(u64, Rates)>,
    stats: FaultStats,
}

impl State {
    /// xorshift64*: deterministic for a seed, no dependency.
    fn draw(&mut self, per_mille: u32) -> bool {
        self.roll(1000) < u64::from(per_mille)
    }

    fn roll(&mut self, below: u64) -> u64 {
        let Some((x, _)) = self.random.as_mut() else {
            return 0;
        };
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % below.max(1)
    }

    fn rates(&self) -> Option<Rates> {
        self.random.map(|(_, r)| r)
    }
}

/// The shared handle of a [`FaultyEvent`]: scripts its failures and says what happened.
#[derive(Debug, Clone, Default)]
pub struct Faults(Arc<Mutex<State>>);

impl Faults {
    /// No failures until scripted.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuse the next `n` programmings with `error`, leaving the channel as `refusal` says.
    pub fn refuse_next(&self, n: usize, error: Error, refusal: Refusal) -> &Self {
        let mut s = self.lock();
        s.stopped = false;
        s.refusals.extend(std::iter::repeat_n((error, refusal), n));
        self
    }

    /// Deliver the next rises of the line as listed.
    pub fn deliveries(&self, plan: impl IntoIterator<Item = Delivery>) -> &Self {
        let mut s = self.lock();
        s.stopped = false;
        s.deliveries.extend(plan);
        self
    }

    /// The next `ack` reports a fire whether or not there was one (a stale status).
    pub fn stale_ack(&self) -> &Self {
        let mut s = self.lock();
        s.stopped = false;
        s.stale = s.stale.saturating_add(1);
        self
    }

    /// Fail at random with `rates`, drawn from `seed`, until [`stop`](Self::stop).
    pub fn random(&self, seed: u64, rates: Rates) -> &Self {
        let mut s = self.lock();
        s.stopped = false;
        s.random = Some((seed | 1, rates));
        self
    }

    /// No more failures: scripted ones not yet used are dropped, random ones end.
    pub fn stop(&self) {
        let mut s = self.lock();
        s.stopped = true;
        s.refusals.clear();
        s.deliveries.clear();
        s.stale = 0;
        s.random = None;
    }

    /// Whether failures were stopped (and none scripted since).
    pub fn stopped(&self) -> bool {
        self.lock().stopped
    }

    /// What was injected so far.
    pub fn stats(&self) -> FaultStats {
        self.lock().stats
    }

    /// The refusal for the programming about to be made, if any.
    fn refusal(&self) -> Option<(Error, Refusal)> {
        let mut s = self.lock();
        if let Some(r) = s.refusals.pop_front() {
            s.stats.refused += 1;
            return Some(r);
        }
        let rates = s.rates()?;
        if !s.draw(rates.refuse) {
            return None;
        }
        let errors: &[Error] = if rates.wrong_cpu {
            &[
                Error::Busy,
                Error::Timeout,
                Error::WrongCpu(crate::error::CpuMismatch::new(0, 1)),
            ]
        } else {
            &[Error::Busy, Error::Timeout]
        };
        let pick = s.roll(errors.len() as u64) as usize;
        let error = errors.get(pick).copied().unwrap_or(Error::Busy);
        let refusal = if s.roll(2) == 0 {
            Refusal::KeepOld
        } else {
            Refusal::Disarm
        };
        s.stats.refused += 1;
        Some((error, refusal))
    }

    /// What the interrupt controller does with the line's next rise.
    pub fn next_delivery(&self) -> Delivery {
        let mut s = self.lock();
        let d = match s.deliveries.pop_front() {
            Some(d) => d,
            None => match s.rates() {
                Some(r) if s.draw(r.drop) => Delivery::Drop,
                Some(r) if s.draw(r.double) => Delivery::Double,
                Some(r) if s.draw(r.late) => Delivery::Late(s.roll(r.late_ns.max(1)) + 1),
                _ => Delivery::Deliver,
            },
        };
        match d {
            Delivery::Drop => s.stats.dropped += 1,
            Delivery::Double => s.stats.doubled += 1,
            Delivery::Late(_) => s.stats.late += 1,
            Delivery::Deliver => {}
        }
        d
    }

    fn stale(&self) -> bool {
        let mut s = self.lock();
        let stale = if s.stale > 0 {
            s.stale -= 1;
            true
        } else {
            match s.rates() {
                Some(r) => s.draw(r.stale),
                None => false,
            }
        };
        if stale {
            s.stats.stale += 1;
        }
        stale
    }

    fn programmed(&self) {
        self.lock().stats.programmed += 1;
    }
}

/// A [`ClockEvent`] that fails as its [`Faults`] say; otherwise the channel it wraps.
#[derive(Debug)]
pub struct FaultyEvent<E> {
    inner: E,
    faults: Faults,
}

impl<E: ClockEvent> FaultyEvent<E> {
    /// Wrap `inner`; script it through `faults` (a clone of the handle).
    pub fn new(inner: E, faults: &Faults) -> Self {
        Self {
            inner,
            faults: faults.clone(),
        }
    }

    /// The wrapped channel.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The wrapped channel, mutably.
    pub fn inner_mut(&mut self) -> &mut E {
        &mut self.inner
    }

    fn program(&mut self, f: impl FnOnce(&mut E) -> Result<(), Error>) -> Result<(), Error> {
        match self.faults.refusal() {
            Some((error, Refusal::KeepOld)) => Err(error),
            Some((error, Refusal::Disarm)) => {
                self.inner.shutdown();
                Err(error)
            }
            None => {
                let r = f(&mut self.inner);
                if r.is_ok() {
                    self.faults.programmed();
                }
                r
            }
        }
    }
}

impl<E: ClockEvent> ClockEvent for FaultyEvent<E> {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.program(|e| e.set_next_event(delta))
    }
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        self.program(|e| e.set_compare(at))
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.program(|e| e.set_periodic(period))
    }
    fn shutdown(&mut self) {
        self.inner.shutdown()
    }
    fn ack(&mut self) -> bool {
        let fired = self.inner.ack();
        fired || self.faults.stale()
    }
}

/// The interrupt controller between a channel's line and its handler, failing as a
/// [`Faults`] says: [`run_until`](Self::run_until) jumps virtual time from rise to rise.
pub struct Irq<'a> {
    clock: &'a SimClock,
    faults: &'a Faults,
    next_fire: Box<dyn Fn() -> Option<u64> + 'a>,
    line: Box<dyn Fn() -> bool + 'a>,
    late: Vec<u64>,
    /// The line was high at the last look and that rise is not handled yet.
    high: bool,
    retake_ns: Option<u64>,
    /// Handler runs so far.
    pub delivered: u64,
}

impl std::fmt::Debug for Irq<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Irq")
            .field("late", &self.late)
            .field("delivered", &self.delivered)
            .finish_non_exhaustive()
    }
}

/// Handler runs at one instant beyond which [`Irq::run_until`] calls it an interrupt storm.
const STORM: u32 = 10_000;

impl<'a> Irq<'a> {
    /// A controller for the line `line` (high while the channel's status is latched) whose
    /// next rise is `next_fire` (virtual ns), e.g. a [`SimClockEventProbe`](super::SimClockEventProbe)'s
    /// `pending` and `next_fire_ns`.
    pub fn new(
        clock: &'a SimClock,
        faults: &'a Faults,
        next_fire: impl Fn() -> Option<u64> + 'a,
        line: impl Fn() -> bool + 'a,
    ) -> Self {
        Self {
            clock,
            faults,
            next_fire: Box::new(next_fire),
            line: Box::new(line),
            late: Vec::new(),
            high: false,
            retake_ns: None,
            delivered: 0,
        }
    }

    /// Take a dropped rise's latched line this long after it was dropped (a controller
    /// that samples a level line again), instead of only once the failures stop. A line
    /// left untaken for longer than half a wrap of a narrow counter loses that counter's
    /// time whatever the software does (nothing reads it), so a check that drops
    /// interrupts while a queue is idle bounds the loss this way.
    pub fn retake_after(mut self, ns: u64) -> Self {
        self.retake_ns = Some(ns);
        self
    }

    fn run(&mut self, isr: &mut impl FnMut()) {
        self.delivered += 1;
        isr();
        // A line still high after the handler is a new rise (a value already passed that
        // the handler programmed), not the one it handled.
        self.high = false;
    }

    /// Let virtual time run to `until_ns`, delivering each rise of the line to `isr` as the
    /// faults say. A line left latched by a dropped rise is delivered once the failures are
    /// [stopped](Faults::stop), as a level-sensitive controller would.
    ///
    /// # Panics
    /// When the handler runs more than 10,000 times at one instant (an interrupt storm: a
    /// handler that never clears the line).
    pub fn run_until(&mut self, until_ns: u64, mut isr: impl FnMut()) {
        let mut storm = 0u32;
        let mut at = self.clock.now_ns();
        loop {
            let now = self.clock.now_ns();
            if now != at {
                at = now;
                storm = 0;
            }
            assert!(storm < STORM, "interrupt storm at {now} ns");
            let level = (self.line)();
            if level && !self.high {
                // A rise: the controller does with it what the faults say.
                self.high = true;
                storm += 1;
                match self.faults.next_delivery() {
                    Delivery::Deliver => self.run(&mut isr),
                    Delivery::Double => {
                        self.run(&mut isr);
                        self.run(&mut isr);
                    }
                    Delivery::Late(ns) => self.late.push(now.saturating_add(ns)),
                    Delivery::Drop => {
                        if let Some(ns) = self.retake_ns {
                            self.late.push(now.saturating_add(ns));
                        }
                    }
                }
                continue;
            }
            if !level {
                self.high = false;
            } else if self.faults.stopped() {
                // Latched and not taken (dropped): taken now that failures have stopped.
                storm += 1;
                self.run(&mut isr);
                continue;
            }
            let fire = (self.next_fire)().filter(|&t| t > now && t <= until_ns);
            let late = self.late.iter().copied().min().filter(|&t| t <= until_ns);
            let t = match (fire, late) {
                (Some(f), Some(l)) => f.min(l),
                (Some(t), None) | (None, Some(t)) => t,
                (None, None) => break,
            };
            self.clock.advance_to(t.max(now));
            if late == Some(t) {
                if let Some(i) = self.late.iter().position(|&l| l == t) {
                    self.late.swap_remove(i);
                }
                storm += 1;
                self.run(&mut isr);
            }
        }
        let now = self.clock.now_ns();
        self.clock.advance_to(until_ns.max(now));
    }
}
