//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! the chip's stable counter (`PinnedCounter` over `StableCounter`: 64 bits, read with one
//! `rdtime.d`, 100 MHz on QEMU virt) and the core's constant timer (`PinnedTimer`, from
//! `pinned::pair`), on the LoongArch core model (QEMU virt flavour) and its TI line. The
//! counter is 64 bits wide, so it never wraps: the idle lengths are 0.5, 1, 2 and 10
//! wraps of a 32-bit word of it (42.9 s), and an idle queue needs **no interrupt at all**
//! (its keep-alive is a cancel on a time base that needs no reads).
//!
//! - the queue (`HrTimers`) idle after it emptied, and from a fresh queue after
//!   `reprogram()`: not one interrupt while idle, the time base reads the model's counter,
//!   and a 1 s timer runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` (`loongarch_timer::embassy::DriverOn`) and an
//!   rtic-time monotonic on the crate's types (`loongarch_timer::rtic_monotonic!` is
//!   hwtimer-core's macro on them, loongarch64 only);
//! - the queue with `FaultyEvent` around the timer under random failures, then none:
//!   every timer runs once, none early.
//!
//! The model is `SmpCsr` (the chip behind a lock), whose pinned types are `Send` and
//! `Sync` as the runtime adapters' statics need.

use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::sim::FaultyEvent;
use hwtimer_core::sim::SimClock;
use hwtimer_core::sim::fault::FaultStats;
use hwtimer_core::sim::scenario::{IDLE_HALVES, Model, Timing, assert_every_failure_injected};
use hwtimer_core::{Alarm, HrTimers};
use loongarch_timer::Config;
use loongarch_timer::embassy::DriverOn;
use loongarch_timer::pinned::{PinnedCounter, PinnedTimer, pair};
use loongarch_timer::sim::{LoongArchCore, SmpCsr};

const HZ: u64 = 100_000_000;
/// 2^32 ticks at 100 MHz, 42.9 s: the idle unit (the counter itself never wraps).
const WRAP_NS: u64 = (1 << 32) * 10;

/// How late a 1 s timer may run, in ns. The timer counts on the stable counter's edges
/// (phase-locked): late by the InitVal granularity (its low two bits are masked, so up to
/// 3 ticks, 30 ns) and the accesses between the time read and the TCFG write and in the
/// handler before its time read (1 ns each on the model, `SIM_CSR_NS`). 100 ns covers
/// them; measured: under 10 ns (the deadline falls inside the tick of the time read).
const LATE_NS: u64 = 100;

const TIMING: Timing = Timing::new(HZ, LATE_NS, WRAP_NS, "x 2^32 ticks").quiet_idle();

type Event = PinnedTimer<SmpCsr>;
type Time = PinnedCounter<SmpCsr>;

/// A QEMU virt core (core 0 of the thread) with its timer and counter pinned to it.
fn core() -> (SmpCsr, Event, Time) {
    let csr = SmpCsr::new(&SimClock::new(), LoongArchCore::qemu_virt());
    let (timer, time) = pair(csr.clone(), Config::default()).unwrap();
    (csr, timer, time)
}

/// The core's model as hwtimer-core's scenarios see it: the stable counter as the model
/// holds it (no access, no time), the timer's next fire and its TI line.
fn model(csr: &SmpCsr) -> Model<'_> {
    Model::new(
        csr.clock(),
        TIMING,
        || {
            let now = csr.clock().now_ns();
            csr.model(|m| m.rdtime(now))
        },
        || csr.model(|m| m.next_fire_ns()),
        || {
            let now = csr.clock().now_ns();
            csr.model(|m| m.ti_pending(now))
        },
    )
}

/// (1) The queue idle for 0.5, 1, 2 and 10 units, after it emptied or from fresh after
/// `reprogram()`: no interrupt while idle, the time is the model's, and a 1 s timer runs
/// 1 s later (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_long_idle_with_no_interrupt() {
    for fresh in [false, true] {
        for halves in IDLE_HALVES {
            let (csr, event, time) = core();
            let timers: HrTimers<Event, Time, 2> = HrTimers::new(Alarm::new(event, time).unwrap());
            model(&csr).queue_idle(&timers, fresh, halves, "");
        }
    }
}

/// (2) embassy's driver on the crate's types (`DriverOn<SmpCsr>`): idle from `init` and
/// after a wake, for 0.5, 1, 2 and 10 units with no interrupt; `now()` is the model's
/// time (in embassy's 1 MHz ticks, rounded down) and a 1 s wake comes 1 s later, never
/// early.
#[test]
fn embassy_keeps_time_over_long_idle_with_no_interrupt() {
    let (csr, event, time) = core();
    let driver: &'static DriverOn<SmpCsr, 4> = Box::leak(Box::new(DriverOn::new()));
    driver.init(event, time).unwrap();
    model(&csr).embassy_idle(driver, "embassy");
}

hwtimer_core::rtic_monotonic!(Mono, Event, Time, 100_000_000);

/// (2) The crate's rtic monotonic on its types: idle from `start` and after a wait, for
/// 0.5, 1, 2 and 10 units with no interrupt; `now()` is the model's time and a 1 s delay
/// ends 1 s later, never early.
#[test]
fn rtic_keeps_time_over_long_idle_with_no_interrupt() {
    let (csr, event, time) = core();
    Mono::start(event, time).unwrap();
    model(&csr).rtic_idle(
        Mono::on_interrupt,
        || Mono::now().as_ticks(),
        || Mono::delay(1u64.secs()),
        "rtic",
    );
}

/// (3) The queue on a `FaultyEvent` around the pinned timer, failing at random (refused
/// programmings that keep the old deadline or stop the timer, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = FaultStats::default();
    for seed in 1..=40u64 {
        let (csr, event, time) = core();
        injected += model(&csr).faulty_run(seed, &format!("seed {seed}"), |faults| {
            HrTimers::<_, Time, 12>::new(Alarm::new(FaultyEvent::new(event, faults), time).unwrap())
        });
    }
    // Every kind of failure happened, more than once.
    assert_every_failure_injected(&injected, 3);
}
