//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! the 28-bit counter at 3.125 MHz (a wrap every 85.9 s) extended in software, and CPU 0's
//! clockevent, both from `OttoTimers::per_cpu` on the Otto model (default lost-interrupt
//! variant), with the model's own interrupt line.
//!
//! - the queue (`HrTimers`) idle for 0.5, 1, 2 and 10 wraps after it emptied, and from a
//!   fresh queue after `reprogram()`: the time base reads the model's count, and a 1 s
//!   timer runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` and an rtic-time monotonic on the crate's
//!   channel and time base (the types of `otto_timer::embassy` and `otto_timer::rtic`,
//!   with the model's bus for the MMIO window);
//! - the queue with `FaultyEvent` around the clockevent under random failures, then none:
//!   every timer runs once, none early.
//!
//! The model's bus here is a thread-safe one (the model behind a mutex), because the
//! runtime adapters keep the channel in a `static`, which must be `Send`.

use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::fault::FaultStats;
use hwtimer_core::sim::scenario::{IDLE_HALVES, Model, Timing, assert_every_failure_injected};
use hwtimer_core::sim::{FaultyEvent, SimClock, SyncBus};
use hwtimer_core::{Alarm, Extended, HrTimers};
use otto_timer::sim::{OttoModel, SIM_READ_NS, SIM_WRITE_NS, ticks_in};
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, PerCpu, Soc};

const HZ: u64 = 3_125_000;
const BITS: u32 = 28;
/// One wrap of the 28-bit counter: 2^28 ticks of 320 ns, 85.9 s.
const WRAP_NS: u64 = (1 << BITS) * 320;
/// Timer 0 is CPU 0's clockevent; timer 1 the clocksource (`per_cpu::<1>`).
const EVENT: usize = 0;
const SOURCE: usize = 1;

/// How late a 1 s timer may run, in ns. The channel is not phase-locked to the clocksource
/// (own counter, own prescaler phase), so the alarm adds one tick of margin (320 ns); the
/// delta is measured from a time-base read made before the programming, so the MMIO time
/// of the programming (the bounce sequence: 12 accesses at 50–100 ns, under 1.2 µs) is
/// added to the wait; and the handler's own accesses before it reads the time (the
/// acknowledgement, under 0.5 µs). 3 µs covers these with a tick to spare; the measured
/// lateness is 0.55 µs (after a timer) and 0.92 µs (fresh queue).
const LATE_NS: u64 = 3_000;

const TIMING: Timing = Timing::new(HZ, LATE_NS, WRAP_NS, "wraps");

/// The model behind a mutex, so the driver's types on it are `Send` and `Sync` as on
/// `Mmio` (the runtime adapters' statics need that). Each access costs the model's
/// documented MMIO time, after the access as `SimBus` charges it.
type Bus = SyncBus<OttoModel>;

/// The clocksource's true count: the model's 28-bit counter, with the wraps counted from
/// virtual time since the model saw the clocksource start (exact: the counter gives the
/// low bits, the elapsed time only picks the wrap).
fn truth(bus: &Bus) -> u64 {
    let now = bus.clock().now_ns();
    bus.model(|m| {
        let raw = u64::from(m.counter(now, SOURCE).unwrap());
        let start = m
            .stats(now, SOURCE)
            .unwrap()
            .starts
            .last()
            .copied()
            .unwrap();
        let approx = ticks_in(now - start.at_ns, m.bus_clock_hz(), start.divisor);
        let wraps = (approx + (1 << (BITS - 1)) - raw) >> BITS;
        raw + (wraps << BITS)
    })
}

type Event = OttoClockEvent<Bus>;
type Source = OttoClocksource<Bus>;

/// An RTL838x block on the model: CPU 0's clockevent and the running clocksource.
fn block() -> (Bus, Event, Source) {
    let bus = Bus::new(
        &SimClock::new(),
        OttoModel::new(Soc::Rtl838x),
        SIM_READ_NS,
        SIM_WRITE_NS,
    );
    let PerCpu {
        cpus: [cpu0],
        clocksource,
    } = OttoTimers::new(bus.clone(), Config::new(Soc::Rtl838x))
        .unwrap()
        .per_cpu::<1>()
        .unwrap();
    assert_eq!(cpu0.event.index(), EVENT);
    (bus, cpu0.event, clocksource)
}

/// The model as hwtimer-core's scenarios see it: the clocksource's true count, CPU 0's
/// clockevent's next interrupt and its line.
fn model(bus: &Bus) -> Model<'_> {
    let now = || bus.clock().now_ns();
    Model::new(
        bus.clock(),
        TIMING,
        || truth(bus),
        move || bus.model(|m| m.next_irq_ns(now(), EVENT)),
        move || bus.model(|m| m.irq_asserted(now(), EVENT)),
    )
}

/// (1) The queue, idle for 0.5, 1, 2 and 10 wraps, after it emptied or from fresh after
/// `reprogram()`: the time is the model's, and a 1 s timer runs 1 s later (never early,
/// late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_idle_of_up_to_ten_wraps() {
    for fresh in [false, true] {
        for halves in IDLE_HALVES {
            let (bus, event, source) = block();
            let timers: HrTimers<Event, Extended<Source>, 2> =
                HrTimers::new(Alarm::new(event, Extended::new(source)).unwrap());
            model(&bus).queue_idle(&timers, fresh, halves, "");
        }
    }
}

/// `otto_timer::embassy::Driver`'s types, on the model's bus.
type EmbassyDriver = TimeDriver<Event, &'static Extended<Source>, 4>;

/// (2) embassy's driver on the crate's channel and time base: idle from `init` and after a
/// wake, for 0.5, 1, 2 and 10 wraps; `now()` is the model's time (in embassy's 1 MHz
/// ticks, rounded down) and a 1 s wake comes 1 s later, never early.
#[test]
fn embassy_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (bus, event, source) = block();
    let time: &'static Extended<Source> = Box::leak(Box::new(Extended::new(source)));
    let driver: &'static EmbassyDriver = Box::leak(Box::new(TimeDriver::new()));
    driver.init(event, time).unwrap();
    model(&bus).embassy_idle(driver, "embassy");
}

hwtimer_core::rtic_monotonic!(Mono, Event, &'static Extended<Source>, 3_125_000);

/// (2) The crate's rtic monotonic (`otto_timer::rtic_monotonic!` is this macro on these
/// types): idle from `start` and after a wait, for 0.5, 1, 2 and 10 wraps; `now()` is the
/// model's time and a 1 s delay ends 1 s later, never early.
#[test]
fn rtic_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (bus, event, source) = block();
    Mono::start(event, Box::leak(Box::new(Extended::new(source)))).unwrap();
    model(&bus).rtic_idle(
        Mono::on_interrupt,
        || Mono::now().as_ticks(),
        || Mono::delay(1u64.secs()),
        "rtic",
    );
}

type Faulty = HrTimers<FaultyEvent<Event>, Extended<Source>, 12>;

/// (3) The queue on a `FaultyEvent` around CPU 0's clockevent, failing at random (refused
/// programmings that keep the old deadline or stop the channel, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = FaultStats::default();
    for seed in 1..=40u64 {
        let (bus, event, source) = block();
        injected += model(&bus).faulty_run(seed, &format!("seed {seed}"), |faults| {
            Faulty::new(Alarm::new(FaultyEvent::new(event, faults), Extended::new(source)).unwrap())
        });
    }
    // Every kind of failure happened, more than once.
    assert_every_failure_injected(&injected, 3);
}
