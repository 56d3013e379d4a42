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

use a9_global_timer::sim::{GtModel, GtSim};
use a9_global_timer::{Config, GlobalTimer, GtComparator, GtCounter};
use hwtimer_core::sim::fault::FaultStats;
use hwtimer_core::sim::scenario::{IDLE_HALVES, Model, Timing, assert_every_failure_injected};
use hwtimer_core::sim::{FaultyEvent, SimBus};
use hwtimer_core::{Alarm, HrTimers};

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

const TIMING: Timing = Timing::new(HZ, LATE_NS, LOW_WRAP_NS, "low-word wraps").quiet_idle();

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

/// The model as hwtimer-core's scenarios see it.
fn model(sim: &GtSim) -> Model<'_> {
    Model::new(
        sim.clock(),
        TIMING,
        || sim.counter(),
        || {
            let now = sim.clock().now_ns();
            sim.model(|m| m.next_irq_ns(now))
        },
        || sim.irq_asserted(),
    )
}

/// (1) The queue idle for 0.5, 1, 2 and 10 low-word wraps, after it emptied or from fresh
/// after `reprogram()`: no interrupt while idle, the time is the model's, and a 1 s timer
/// runs 1 s later (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_long_idle_with_no_interrupt() {
    for fresh in [false, true] {
        for halves in IDLE_HALVES {
            let (sim, gt) = block();
            let timers: HrTimers<GtComparator<'_, Bus>, GtCounter<'_, Bus>, 2> =
                HrTimers::new(Alarm::new(gt.comparator().unwrap(), gt.counter()).unwrap());
            model(&sim).queue_idle(&timers, fresh, halves, "");
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
    let mut injected = FaultStats::default();
    for seed in 1..=40u64 {
        let (sim, gt) = block();
        injected += model(&sim).faulty_run(seed, &format!("seed {seed}"), |faults| {
            let comparator = FaultyEvent::new(gt.comparator().unwrap(), faults);
            HrTimers::<_, _, 12>::new(Alarm::new(comparator, gt.counter()).unwrap())
        });
    }
    // Every kind of failure happened, more than once.
    assert_every_failure_injected(&injected, 3);
}
