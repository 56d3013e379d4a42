//! The `min_delta` experiment on the model (feature `unstable-baselines`: for this crate's
//! benchmarks and seed-proof tests, not part of the public API, no semver promise).
//!
//! Linux's `min_delta` patch ("LoongArch: Reduce min_delta for the arch clockevent device";
//! [why it matters](crate::clockevent#why-min_delta-matters)) argues with two
//! scenarios, both under a **fixed** `min_delta` (0x600 before the patch, 1000 after):
//! one short request, which fires at `min_delta` instead ([`measure_oneshot`]), and several
//! timers inside the clamp window, which one interrupt serves together
//! ([`clamp_window_batch`]). Both run the driver ([`Alarm`](hwtimer_core::Alarm),
//! [`HrTimers`]) on a simulated QEMU virt core ([`qemu_alarm`]) in virtual time; the figures they give are stated once,
//! in [`clockevent`](crate::clockevent#why-min_delta-matters).

use std::vec::Vec;

use hwtimer_core::sim::{IrqSource, SimClock};
use hwtimer_core::{Error, Fired, HrTimers, Restart};

use super::map::TCFG_INITVAL;
use super::qemu_alarm;
use crate::clockevent::Config;

/// One oneshot request measured on the model: see [`measure_oneshot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FireFigure {
    /// The requested wait, in ticks.
    pub requested_ticks: u64,
    /// The count written to TCFG.
    pub init_val: u64,
    /// Virtual time of the request (just before the deadline was computed).
    pub request_ns: u64,
    /// Virtual time at which the model raised ESTAT.TI.
    pub fire_ns: u64,
    /// The absolute deadline, in stable-counter ticks.
    pub deadline: u64,
    /// The stable counter as the interrupt handler saw it.
    pub handler_now: u64,
}

impl FireFigure {
    /// Time from the request to the interrupt, in ns.
    pub fn fired_after_ns(&self) -> u64 {
        self.fire_ns - self.request_ns
    }

    /// How late the handler ran relative to the deadline, in ticks (never negative: an
    /// early fire is an error of [`measure_oneshot`]).
    pub fn late_ticks(&self) -> u64 {
        self.handler_now - self.deadline
    }
}

/// Request a oneshot `wait` ticks ahead through
/// [`Alarm::set_delta`](hwtimer_core::Alarm::set_delta) on a simulated QEMU virt core with
/// `config`, run virtual time to the interrupt and serve it.
///
/// Errors: any error of the driver; [`Error::Timeout`] when no interrupt comes or the
/// handler does not see the deadline reached (which would be an early fire).
pub fn measure_oneshot(config: Config, wait: u64) -> Result<FireFigure, Error> {
    let clock = SimClock::new();
    let (csr, mut alarm) = qemu_alarm(&clock, config)?;
    let request_ns = clock.now_ns();
    alarm.set_delta(wait)?;
    let init_val = csr.model(|m| m.tcfg()) & TCFG_INITVAL;
    let fire_ns = (&csr).advance_to_next().ok_or(Error::Timeout)?;
    if !csr.model(|m| m.interrupt_taken(fire_ns)) {
        return Err(Error::Timeout);
    }
    match alarm.on_interrupt() {
        Fired::Deadline { deadline, now } if now >= deadline => Ok(FireFigure {
            requested_ticks: wait,
            init_val,
            request_ns,
            fire_ns,
            deadline,
            handler_now: now,
        }),
        _ => Err(Error::Timeout),
    }
}

/// Timers served by each interrupt: see [`clamp_window_batch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchFigure {
    /// How many timers each interrupt served, in order.
    pub served_per_interrupt: Vec<usize>,
    /// For each timer (in the order given), how late its callback ran, in ticks.
    pub late_ticks: Vec<u64>,
}

/// Start one [`HrTimers`] timer per entry of `offsets` (ticks from one common "now") on a
/// simulated QEMU virt core with `config`, then run virtual time interrupt by interrupt
/// until all have run. Shows the `min_delta` patch's explanation: every timer that expired inside the
/// `min_delta` clamp window is served by the one interrupt that ends it.
///
/// Needs a `critical-section` implementation (the dev-dependency with feature `std` in
/// tests and benchmarks). At most 16 timers.
///
/// Errors: any error of the driver or the queue; [`Error::Timeout`] when a timer is left
/// unserved after 64 interrupts, or a callback ran before its deadline.
pub fn clamp_window_batch(config: Config, offsets: &[u64]) -> Result<BatchFigure, Error> {
    let clock = SimClock::new();
    let (csr, alarm) = qemu_alarm(&clock, config)?;
    let timers: HrTimers<_, _, 16> = HrTimers::new(alarm);
    let t0 = timers.now()?;
    let mut ids = Vec::new();
    for &offset in offsets {
        let id = timers.alloc()?;
        timers.start(id, t0.saturating_add(offset))?;
        ids.push((id, t0.saturating_add(offset)));
    }
    let mut late: Vec<Option<u64>> = vec![None; ids.len()];
    let mut served = Vec::new();
    let mut early = false;
    for _ in 0..64 {
        if late.iter().all(Option::is_some) {
            break;
        }
        let Some(at) = (&csr).advance_to_next() else {
            break;
        };
        if !csr.model(|m| m.interrupt_taken(at)) {
            break;
        }
        let n = timers.on_interrupt(|id, now| {
            for ((x, deadline), slot) in ids.iter().zip(late.iter_mut()) {
                if *x == id {
                    early |= now < *deadline;
                    *slot = Some(now.saturating_sub(*deadline));
                }
            }
            Restart::No
        })?;
        served.push(n);
    }
    if early || late.iter().any(Option::is_none) {
        return Err(Error::Timeout);
    }
    Ok(BatchFigure {
        served_per_interrupt: served,
        late_ticks: late.into_iter().flatten().collect(),
    })
}
