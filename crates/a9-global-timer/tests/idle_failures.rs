//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! `GtCounter`, the block's 64-bit counter (QEMU's 100 MHz, read hi-lo-hi), and the
//! comparator as clockevent, on the global-timer model (QEMU's compare rule) and its own
//! interrupt line. The counter is 64 bits wide, so it never wraps: the idle lengths are
//! 0.5, 1, 2 and 10 wraps of its 32-bit **low word** (42.9 s), the carries a hi-lo-hi read
//! must survive, and an idle queue needs **no interrupt at all** (its keep-alive is a
//! cancel on a time base that needs no reads).
//!
//! - the queue (`HrTimers`) idle after it emptied, and from a fresh queue after
//!   `reprogram()`: not one interrupt while idle, the time base reads the model's count,
//!   and a 1 s timer runs 1 s later, never early;
//! - the queue with `FaultyEvent` around the comparator under random failures, then none:
//!   every timer runs once, none early.
//!
//! (The crate has no embassy or rtic feature.)

use std::cell::RefCell;

use a9_global_timer::sim::{GtModel, GtSim};
use a9_global_timer::{Config, GlobalTimer, GtComparator, GtCounter};
use hwtimer_core::sim::{Faults, FaultyEvent, Irq, Rates, SimBus};
use hwtimer_core::{Alarm, HrTimers, QueueError, Restart, TimerId};

const HZ: u64 = 100_000_000;
/// One wrap of the counter's low word: 2^32 ticks at 100 MHz, 42.9 s.
const LOW_WRAP_NS: u64 = (1 << 32) * 10;

/// How late a 1 s timer may run, in ns. The comparator compares against the counter itself
/// (phase-locked, an absolute compare value): late by QEMU's strict `>` (one tick, 10 ns)
/// and the handler's accesses until its time read completes (status read, acknowledgement,
/// the three reads of hi-lo-hi: about seven 50–100 ns accesses), measured here from before
/// the test's own hi-lo-hi read of `now` (three more). 1.5 µs covers them; measured:
/// 1.01 µs.
const LATE_NS: u64 = 1_500;

type Bus = SimBus<GtModel>;

/// QEMU's block, its counter 1 ms of ticks before a carry out of the low word, started.
fn block() -> (GtSim, &'static GlobalTimer<Bus>) {
    let sim = GtSim::with_model(
        GtModel::qemu().with_counter((1 << 32) - 100_000),
        a9_global_timer::sim::SIM_READ_NS,
        a9_global_timer::sim::SIM_WRITE_NS,
    );
    let gt: &'static GlobalTimer<Bus> = Box::leak(Box::new(
        GlobalTimer::new(sim.bus(), Config::qemu()).unwrap(),
    ));
    gt.start().unwrap();
    (sim, gt)
}

fn next_irq_ns(sim: &GtSim) -> Option<u64> {
    let now = sim.clock().now_ns();
    sim.model(|m| m.next_irq_ns(now))
}

/// (1) The queue idle for 0.5, 1, 2 and 10 low-word wraps, after it emptied or from fresh
/// after `reprogram()`: no interrupt while idle, the time is the model's, and a 1 s timer
/// runs 1 s later (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_long_idle_with_no_interrupt() {
    for fresh in [false, true] {
        for halves in [1u64, 2, 4, 20] {
            let what = format!(
                "{} queue, idle {halves}/2 low-word wraps",
                ["used", "fresh"][usize::from(fresh)]
            );
            let (sim, gt) = block();
            let clock = sim.clock();
            let faults = Faults::new();
            let timers: HrTimers<GtComparator<'_, Bus>, GtCounter<'_, Bus>, 2> =
                HrTimers::new(Alarm::new(gt.comparator().unwrap(), gt.counter()).unwrap());
            let id = timers.alloc().unwrap();
            let fired = RefCell::new(Vec::new());
            let mut irq = Irq::new(clock, &faults, || next_irq_ns(&sim), || sim.irq_asserted());
            let mut isr = || {
                timers
                    .on_interrupt(|_, now| {
                        fired
                            .borrow_mut()
                            .push((now, sim.counter(), clock.now_ns()));
                        Restart::No
                    })
                    .unwrap();
            };
            if fresh {
                timers.reprogram().unwrap();
            } else {
                // A first timer (1 ms), so the queue has run and emptied.
                timers.start_after(id, HZ / 1000).unwrap();
                irq.run_until(clock.now_ns() + 2_000_000, &mut isr);
                assert_eq!(fired.borrow().len(), 1, "{what}");
            }
            let delivered = irq.delivered;
            assert_eq!(next_irq_ns(&sim), None, "{what}: idle arms nothing");
            irq.run_until(clock.now_ns() + LOW_WRAP_NS / 2 * halves, &mut isr);
            assert_eq!(irq.delivered, delivered, "{what}: an interrupt while idle");
            let start_ns = clock.now_ns();
            let before = sim.counter();
            let now = timers.now().unwrap();
            let after = sim.counter();
            assert!(
                before <= now && now <= after,
                "{what}: time base {now}, model {before}..={after}"
            );
            let deadline = now + HZ;
            timers.start(id, deadline).unwrap();
            irq.run_until(start_ns + 3_000_000_000, &mut isr);
            let fired = fired.into_inner();
            assert_eq!(fired.len(), 2 - usize::from(fresh), "{what}");
            let &(seen, true_at, at_ns) = fired.last().unwrap();
            assert!(seen >= deadline && true_at >= deadline, "{what}: early");
            // `now` was read at `start_ns` or later: this is the lateness, or a little more.
            let late = at_ns - (start_ns + 1_000_000_000);
            assert!(late <= LATE_NS, "{what}: a 1 s timer ran {late} ns late");
        }
    }
}

/// (3) The queue on a `FaultyEvent` around the comparator, failing at random (refused
/// programmings that keep the old deadline or stop the channel, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = hwtimer_core::sim::fault::FaultStats::default();
    for seed in 1..=40u64 {
        let s = faulty_run(seed);
        injected.refused += s.refused;
        injected.dropped += s.dropped;
        injected.doubled += s.doubled;
        injected.late += s.late;
        injected.stale += s.stale;
    }
    // Every kind of failure happened, more than once.
    let i = injected;
    assert!(
        [i.refused, i.dropped, i.doubled, i.late, i.stale]
            .iter()
            .all(|&n| n >= 3),
        "{i:?}"
    );
}

fn faulty_run(seed: u64) -> hwtimer_core::sim::fault::FaultStats {
    let what = format!("seed {seed}");
    let (sim, gt) = block();
    let clock = sim.clock();
    let faults = Faults::new();
    let timers: HrTimers<FaultyEvent<GtComparator<'_, Bus>>, GtCounter<'_, Bus>, 12> =
        HrTimers::new(
            Alarm::new(
                FaultyEvent::new(gt.comparator().unwrap(), &faults),
                gt.counter(),
            )
            .unwrap(),
        );
    let ids: Vec<TimerId> = (0..12).map(|_| timers.alloc().unwrap()).collect();
    let log = RefCell::new(Vec::new());
    let mut irq = Irq::new(clock, &faults, || next_irq_ns(&sim), || sim.irq_asserted())
        .retake_after(1_000_000);
    let hardware = RefCell::new(false);
    let note = |r: Result<usize, QueueError>| match r {
        Ok(_) => {}
        Err(QueueError::Hardware(_)) => *hardware.borrow_mut() = true,
        Err(e) => panic!("{what}: {e:?}"),
    };
    let isr = || {
        note(timers.on_interrupt(|id, now| {
            log.borrow_mut()
                .push((id, now, sim.counter(), clock.now_ns()));
            Restart::No
        }))
    };
    faults.random(
        seed,
        Rates {
            refuse: 250,
            drop: 100,
            double: 100,
            late: 100,
            late_ns: 2_000_000,
            stale: 200,
            wrong_cpu: false,
        },
    );
    let stop_ns = clock.now_ns() + 100_000_000;
    let mut deadlines = Vec::new();
    for (k, &id) in ids.iter().enumerate() {
        // Two timers every 10 ms, due 0.5 to 150 ms later.
        if k % 2 == 0 && k > 0 {
            irq.run_until(clock.now_ns() + 10_000_000, isr);
        }
        let delta = 50_000 + (k as u64 * 7_919 + seed * 104_729) % (150 * HZ / 1000);
        let at = timers.now().unwrap() + delta;
        deadlines.push((at, clock.now_ns(), delta * 10));
        note(timers.start(id, at).map(|()| 0));
    }
    irq.run_until(stop_ns, isr);
    let stats = faults.stats();
    faults.stop();
    if *hardware.borrow() {
        timers.reprogram().unwrap();
    }
    irq.run_until(stop_ns + 400_000_000, isr);
    let log = log.into_inner();
    for (k, &id) in ids.iter().enumerate() {
        let (at, set_ns, delta_ns) = deadlines[k];
        let runs: Vec<_> = log.iter().filter(|e| e.0 == id).collect();
        assert_eq!(runs.len(), 1, "{what}: timer {k} ran {} times", runs.len());
        let &&(_, seen, true_at, at_ns) = runs.first().unwrap();
        assert!(seen >= at && true_at >= at, "{what}: timer {k} early");
        // In virtual time the deadline is `delta` ticks after the time-base read at
        // `set_ns` (which ran before it, by under one access).
        let due_ns = (set_ns + delta_ns).max(stop_ns);
        assert!(
            at_ns <= due_ns + 2_000_000 + LATE_NS,
            "{what}: timer {k} ran at {at_ns} ns, due {due_ns} ns"
        );
    }
    stats
}
