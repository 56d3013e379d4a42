//! The timer queue against a plain reference, under injected failures: the body of the
//! queue's property test and of its libFuzzer target (`crates/hwtimer-core/fuzz`).
//!
//! [`run`] decodes a byte string into a time base, a channel and a sequence of operations
//! (start, restart, cancel, time passing, refused programmings, lost, doubled and late
//! interrupts, stale status), applies them to an [`HrTimers`] on a [`FaultyEvent`] and
//! to the reference (one optional deadline per slot, no hardware at all), then stops the
//! failures, makes the recovery call if the last programming call returned a hardware
//! error, and lets time run past the last deadline. While a hardware error is owed, time
//! passes as it would for a firmware that makes the recovery call
//! ([`HrTimers::reprogram`]) from a 10 ms tick until it succeeds. Any of these is a divergence:
//!
//! - a timer runs that the reference does not hold, or before its deadline;
//! - a timer runs out of deadline order within one interrupt;
//! - a stale id (its slot freed and allocated again) cancels, moves or frees anything;
//! - after the failures stop, a timer runs later than `max(deadline, stop) + slack`, or
//!   not at all;
//! - the queue's `is_queued`/`deadline` disagree with the reference;
//! - the time base reads other than the virtual time;
//! - at the end, with every timer run, a programming is still owed
//!   ([`HrTimers::needs_reprogram`]).
//!
//! The reference knows nothing of alarms, steps, keep-alives or retries: it is the
//! contract ("every queued timer runs, never early, and on time once failures stop")
//! written as data.

use std::cell::RefCell;

use super::{Delivery, Faults, FaultyEvent, Irq, Refusal, SimClock, SimClockEvent, SimCounter};
use crate::clockevent::Alarm;
use crate::error::{CpuMismatch, Error};
use crate::extend::Extended;
use crate::queue::{HrTimers, QueueError, Restart, TimerId};
use crate::time::NANOS_PER_SEC;

/// How often the firmware of the checker retries the recovery call while it is owed.
const RETRY_NS: u64 = 10_000_000;

/// The latest a late or dropped interrupt is taken. An extended narrow counter keeps an
/// eighth of a wrap as margin for latency (10.7 s for the Otto timer's 28 bits at
/// 3.125 MHz, see [`max_idle_ticks`](crate::extend::max_idle_ticks)); a latency beyond it
/// loses that counter's time whatever the software does, so the checker stays inside it.
const LATEST_NS: u64 = 1_000_000_000;

/// Slots in the queue under test.
const SLOTS: usize = 6;

/// A time base and channel the checker runs on: the narrowest ones of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base {
    /// Counter width in bits.
    pub bits: u32,
    /// Counter and channel rate.
    pub hz: u32,
    /// The channel's largest delta.
    pub max_delta: u64,
    /// The channel takes absolute compare values (64-bit counters only).
    pub absolute: bool,
}

impl Base {
    /// This base on `clock`: the simulated channel (absolute where the base says) and the
    /// counter, extended to 64 bits.
    pub fn channel(self, clock: &SimClock) -> (SimClockEvent, Extended<SimCounter>) {
        let mut event = SimClockEvent::new(clock, self.hz, 1, self.max_delta);
        if self.absolute {
            event = event.with_absolute();
        }
        (
            event,
            Extended::new(SimCounter::new(clock, self.bits, self.hz)),
        )
    }

    /// A wrap of the counter, in ns; for a 64-bit counter, which does not wrap, one hour
    /// (a long idle all the same).
    pub fn wrap_ns(self) -> u64 {
        if self.bits >= 64 {
            3_600_000_000_000
        } else {
            ((1u128 << self.bits) * u128::from(NANOS_PER_SEC) / u128::from(self.hz)) as u64
        }
    }
}

/// The bases [`run`] picks from: the Otto timer (28 bits at 3.125 MHz, a 28-bit down
/// counter), an MCT local (32 bits at 24 MHz), and a 64-bit comparator (A9, LoongArch
/// stable counter with a 48-bit delta).
pub const BASES: [Base; 4] = [
    Base {
        bits: 28,
        hz: 3_125_000,
        max_delta: 0x0FFF_FFFF,
        absolute: false,
    },
    Base {
        bits: 32,
        hz: 24_000_000,
        max_delta: u32::MAX as u64,
        absolute: false,
    },
    Base {
        bits: 64,
        hz: 100_000_000,
        max_delta: (1 << 48) - 1,
        absolute: false,
    },
    Base {
        bits: 64,
        hz: 24_000_000,
        max_delta: u32::MAX as u64,
        absolute: true,
    },
];

/// What a run did, for a property test to check that it went somewhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Operations applied.
    pub ops: usize,
    /// Timers that ran.
    pub fired: usize,
    /// Programming calls that returned a hardware error.
    pub hardware_errors: usize,
    /// Whether the recovery call was needed at the end.
    pub recovered: bool,
    /// What was injected.
    pub faults: super::fault::FaultStats,
}

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from(self.u8()?) | (u16::from(self.u8()?) << 8))
    }
}

/// A duration from two bytes, spread over the scales that matter: ticks, microseconds,
/// milliseconds, and whole wraps of a 28-bit counter at 3.125 MHz (85.9 s).
fn duration_ns(code: u16) -> u64 {
    let v = u64::from(code & 0x3FFF);
    match code >> 14 {
        0 => v * 10,
        1 => v * 1_000,
        2 => v * 100_000,
        _ => v * 20_000_000,
    }
}

/// Run the byte string `data` (see the [module docs](self)).
///
/// Errors: the first divergence, described.
pub fn note(
    owed: &mut bool,
    r: Result<(), QueueError>,
    summary: &mut Summary,
) -> Result<(), String> {
    match r {
        Ok(()) => {
            *owed = false;
            Ok(())
        }
        Err(QueueError::Hardware(_)) => {
            *owed = true;
            summary.hardware_errors += 1;
            Ok(())
        }
        Err(e) => Err(format!("unexpected queue error {e:?}")),
    }
}

/// Run the byte string `data` (see the [module docs](self)).
///
/// Errors: the first divergence, described.
pub fn run(data: &[u8]) -> Result<Summary, String> {
    let mut b = Bytes(data);
    let base = BASES
        .get(usize::from(b.u8().unwrap_or(0)) % BASES.len())
        .copied()
        .unwrap_or(BASES[0]);
    let clock = SimClock::new();
    let faults = Faults::new();
    let (event, time) = base.channel(&clock);
    let probe = event.probe();
    let alarm = Alarm::new(FaultyEvent::new(event, &faults), time).map_err(|e| e.to_string())?;
    let timers: HrTimers<_, _, SLOTS> = HrTimers::new(alarm);
    let mut ids: Vec<TimerId> = (0..SLOTS)
        .map(|_| timers.alloc())
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    // The recovery call of a fresh queue: arm its idle keep-alive.
    timers
        .reprogram()
        .map_err(|e| format!("fresh reprogram: {e}"))?;

    let tick_ns = NANOS_PER_SEC.div_ceil(u64::from(base.hz));
    let ticks_of =
        |ns: u64| (u128::from(ns) * u128::from(base.hz) / u128::from(NANOS_PER_SEC)) as u64;
    // Reference: one optional deadline (ticks) per slot.
    let reference: RefCell<[Option<u64>; SLOTS]> = RefCell::new([None; SLOTS]);
    let error: RefCell<Option<String>> = RefCell::new(None);
    let fired = RefCell::new(Vec::<(usize, u64, u64)>::new());
    let mut summary = Summary::default();
    let mut stale: Vec<TimerId> = Vec::new();
    // Whether the last call that programs the hardware returned a hardware error.
    let mut owed = false;
    // A dropped interrupt stays latched and is taken within 1 s (see `Irq::retake_after`).
    let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending())
        .retake_after(LATEST_NS);
    let isr = |timers: &HrTimers<_, _, SLOTS>| {
        // Deadline order within one interrupt (no callback here restarts a timer).
        let mut last_deadline = 0u64;
        let r = timers.on_interrupt(|id, now| {
            let slot = id.index();
            let true_now = ticks_of(clock.now_ns());
            let mut reference = reference.borrow_mut();
            match reference.get_mut(slot).and_then(Option::take) {
                Some(deadline) if deadline < last_deadline => {
                    error.borrow_mut().get_or_insert(format!(
                        "timer {slot} (deadline {deadline}) ran after one due at {last_deadline}"
                    ));
                }
                Some(deadline) if deadline <= now && now <= true_now => {
                    last_deadline = deadline;
                    fired.borrow_mut().push((slot, deadline, clock.now_ns()));
                }
                other => {
                    error.borrow_mut().get_or_insert(format!(
                        "timer {slot} ran at {now} (true {true_now}) holding {other:?}"
                    ));
                }
            }
            Restart::No
        });
        r.map(|_| ())
    };

    while let Some(op) = b.u8() {
        summary.ops += 1;
        let slot = usize::from(op >> 3) % SLOTS;
        let id = ids[slot];
        match op & 7 {
            0 | 1 => {
                let delay = ticks_of(duration_ns(b.u16().unwrap_or(0)));
                let now = ticks_of(clock.now_ns());
                let at = now.saturating_add(delay);
                let r = if op & 7 == 0 {
                    match timers.start(id, at) {
                        Err(QueueError::AlreadyQueued) => {
                            if reference.borrow()[slot].is_none() {
                                return Err(format!("start: {slot} said queued, reference idle"));
                            }
                            // Refused before any programming: nothing to record.
                            continue;
                        }
                        r => {
                            if !matches!(r, Err(QueueError::AlreadyQueued)) {
                                if reference.borrow()[slot].is_some() {
                                    return Err(format!("start: {slot} queued twice"));
                                }
                                reference.borrow_mut()[slot] = Some(at);
                            }
                            r
                        }
                    }
                } else {
                    reference.borrow_mut()[slot] = Some(at);
                    timers.restart(id, at)
                };
                note(&mut owed, r, &mut summary)?;
            }
            2 if op & 0x80 != 0 => {
                // A stale id (its slot freed and allocated again since) touches nothing.
                if let Some(&old) = stale.get(usize::from(op >> 3) % stale.len().max(1)) {
                    let before = timers.deadline(ids[old.index()]);
                    match timers.try_cancel(old) {
                        Ok(false) | Err(QueueError::Hardware(_)) => {}
                        other => return Err(format!("stale cancel: {other:?}")),
                    }
                    timers.free(old).map_err(|e| format!("stale free: {e}"))?;
                    if timers.restart(old, 1) != Err(QueueError::InvalidId) {
                        return Err("a stale id restarted a timer".into());
                    }
                    if timers.deadline(ids[old.index()]) != before {
                        return Err(format!("a stale id moved slot {}", old.index()));
                    }
                }
            }
            2 => {
                let was = reference.borrow_mut()[slot].take().is_some();
                match timers.try_cancel(id) {
                    Ok(q) if q == was => note(&mut owed, Ok(()), &mut summary)?,
                    Err(QueueError::Hardware(e)) => {
                        note(&mut owed, Err(QueueError::Hardware(e)), &mut summary)?
                    }
                    other => return Err(format!("cancel {slot}: {other:?}, reference {was}")),
                }
            }
            3 | 4 => {
                let until = clock
                    .now_ns()
                    .saturating_add(duration_ns(b.u16().unwrap_or(0)));
                // A firmware told of a refusal makes the recovery call from its next
                // tick (every 10 ms here) until it succeeds.
                while clock.now_ns() < until {
                    // In steps, so that the tick sees an error as soon as it is returned
                    // (the steps alone call nothing).
                    let to = until.min(clock.now_ns().saturating_add(RETRY_NS));
                    let mut result = Ok(());
                    irq.run_until(to, || {
                        if let Err(e) = isr(&timers) {
                            result = Err(e);
                        }
                    });
                    if result.is_err() {
                        note(&mut owed, result, &mut summary)?;
                    } else if owed {
                        note(&mut owed, timers.reprogram(), &mut summary)?;
                    }
                }
            }
            5 => {
                let n = usize::from(b.u8().unwrap_or(0) % 4) + 1;
                let e = match op >> 6 {
                    0 => Error::Busy,
                    1 => Error::Timeout,
                    _ => Error::WrongCpu(CpuMismatch::new(0, 1)),
                };
                let how = if op & 0x20 == 0 {
                    Refusal::KeepOld
                } else {
                    Refusal::Disarm
                };
                faults.refuse_next(n, e, how);
            }
            6 => {
                let d = match b.u8().unwrap_or(0) % 4 {
                    0 => Delivery::Drop,
                    1 => Delivery::Double,
                    2 => Delivery::Late(duration_ns(b.u16().unwrap_or(0)).min(LATEST_NS)),
                    _ => Delivery::Deliver,
                };
                faults.deliveries([d]);
                if op & 0x80 != 0 {
                    faults.stale_ack();
                }
            }
            _ if op & 0x40 != 0 => {
                // Free the slot's timer and allocate again: the old id goes stale.
                reference.borrow_mut()[slot] = None;
                let r = timers.free(id);
                note(&mut owed, r, &mut summary)?;
                let new = timers.alloc().map_err(|e| format!("realloc: {e}"))?;
                if new.index() != slot {
                    return Err(format!("freed slot {slot}, got slot {}", new.index()));
                }
                stale.push(id);
                ids[slot] = new;
            }
            _ => {
                let r = timers.reprogram();
                note(&mut owed, r, &mut summary)?;
            }
        }
        if let Some(e) = error.borrow_mut().take() {
            return Err(e);
        }
        // The queue and the reference agree on what is queued.
        for (s, &id) in ids.iter().enumerate() {
            let want = reference.borrow()[s];
            let got = timers.deadline(id);
            if got != want {
                return Err(format!("slot {s}: queue holds {got:?}, reference {want:?}"));
            }
        }
    }

    // Failures stop. The recovery call is made only if the last programming call said so.
    faults.stop();
    summary.faults = faults.stats();
    let stop_ns = clock.now_ns();
    if owed {
        summary.recovered = true;
        timers
            .reprogram()
            .map_err(|e| format!("recovery refused with failures stopped: {e}"))?;
    }
    let last = reference.borrow().iter().flatten().copied().max();
    fired.borrow_mut().clear();
    let pending: Vec<(usize, u64)> = reference
        .borrow()
        .iter()
        .enumerate()
        .filter_map(|(s, d)| d.map(|d| (s, d)))
        .collect();
    if let Some(last) = last {
        let last_ns = u64::try_from(
            (u128::from(last) * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(base.hz)),
        )
        .unwrap_or(u64::MAX);
        let until = last_ns.max(stop_ns).saturating_add(1_000_000);
        let mut result = Ok(());
        irq.run_until(until, || {
            if let Err(e) = isr(&timers) {
                result = Err(e);
            }
        });
        result.map_err(|e| format!("hardware error with failures stopped: {e}"))?;
    }
    if let Some(e) = error.borrow_mut().take() {
        return Err(e);
    }
    // Every timer queued at the stop ran, on time: by max(deadline, stop) + slack.
    let slack_ns = 4 * tick_ns + 20_000;
    for (slot, deadline) in pending {
        let Some(&(_, _, at_ns)) = fired.borrow().iter().find(|f| f.0 == slot) else {
            return Err(format!(
                "timer {slot} (deadline {deadline}) never ran after failures stopped"
            ));
        };
        let deadline_ns = u64::try_from(
            (u128::from(deadline) * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(base.hz)),
        )
        .unwrap_or(u64::MAX);
        let due = deadline_ns.max(stop_ns);
        if at_ns > due.saturating_add(slack_ns) {
            return Err(format!(
                "timer {slot} ran at {at_ns} ns, due {due} ns (deadline {deadline_ns} ns, stop {stop_ns} ns)"
            ));
        }
    }
    summary.fired += fired.borrow().len();
    // Nothing is owed any more: the last interrupt programmed the idle state.
    if last.is_some() && timers.needs_reprogram() {
        return Err("failures stopped and every timer ran, yet a programming is owed".into());
    }
    // Nothing left queued, and the time base reads the virtual time.
    let now = timers.now().map_err(|e| e.to_string())?;
    let truth = ticks_of(clock.now_ns());
    if now > truth || truth - now > ticks_of(200) + 2 {
        return Err(format!(
            "time base reads {now}, virtual time is {truth} ticks"
        ));
    }
    Ok(summary)
}
