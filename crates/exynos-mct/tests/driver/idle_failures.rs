//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! `FrcTime`, the software epoch over the FRC's 32-bit low word at 24 MHz (a wrap every
//! 178.96 s; `max_idle_ticks` 0x6000_0000, 67.1 s), with global comparator 0 and local
//! timer 0 as clockevents, on the MCT model and its own interrupt lines.
//!
//! - the queue (`HrTimers`) idle for 0.5, 1, 2 and 10 wraps after it emptied, and from a
//!   fresh queue after `reprogram()`: the time base reads the model's FRC, and a 1 s timer
//!   runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` (`exynos_mct::embassy::DriverOn`) and an
//!   rtic-time monotonic on the crate's channel types (`exynos_mct::rtic_monotonic!` is
//!   hwtimer-core's macro on them), with the model's bus for the MMIO window;
//! - the queue with `FaultyEvent` around either clockevent under random failures, then
//!   none: every timer runs once, none early.
//!
//! The model's bus here is a thread-safe one (the model behind a mutex), because the
//! runtime adapters keep the channel in a `static`, which must be `Send`.

use exynos_mct::embassy::DriverOn;
use exynos_mct::sim::MctModel;
use exynos_mct::{Comparator, FrcTime, LocalTimer, Mct};
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::fault::FaultStats;
use hwtimer_core::sim::scenario::{IDLE_HALVES, Model, Timing, assert_every_failure_injected};
use hwtimer_core::sim::{FaultyEvent, SimClock, SyncBus};
use hwtimer_core::{Alarm, ClockEvent, HrTimers};

const HZ: u64 = 24_000_000;
/// One wrap of the FRC's low word: 2^32 ticks at 24 MHz, 178.96 s.
const WRAP_NS: u64 = ((1u128 << 32) * 1_000_000_000 / HZ as u128) as u64;
/// The MMIO time of an access (hwtimer-core's `SimBus` defaults).
const READ_NS: u64 = 100;
const WRITE_NS: u64 = 50;

/// How late a 1 s timer may run, in ns. The comparator compares against the FRC itself
/// (phase-locked, an absolute compare value), so it is late only by the handler's accesses
/// before it reads the time (the status read and acknowledgement, a few 100 ns accesses).
/// Local timer 0 has its own counter (not phase-locked): the alarm adds one tick of margin
/// (42 ns), and the delta is measured from a time read made before the programming, whose
/// accesses (L_ICNTB and L_TCON writes, each with its WSTAT wait: under 1.5 µs) are added
/// to the wait. 2 µs covers both with room; measured: 0.13 µs on the comparator, 1.1 µs on
/// the local timer.
const LATE_NS: u64 = 2_000;

const TIMING: Timing = Timing::new(HZ, LATE_NS, WRAP_NS, "wraps");

/// The model behind a mutex, so the driver's types on it are `Send` and `Sync` as on
/// `Mmio` (the runtime adapters' statics need that). Each access costs the MMIO time
/// after the access, as `SimBus` charges it.
type Bus = SyncBus<MctModel>;

type Time = FrcTime<'static, Bus>;
type Comp = Comparator<'static, Bus>;
type Local = LocalTimer<'static, Bus>;

/// An Exynos4210 MCT on the model, FRC running, configured as the model counts (local
/// timers exact to the tick).
fn block() -> (Bus, &'static Mct<Bus>) {
    let model = MctModel::exynos4210();
    let config = model.driver_config();
    let bus = Bus::new(&SimClock::new(), model, READ_NS, WRITE_NS);
    let mct: &'static Mct<Bus> = Box::leak(Box::new(Mct::new(bus.clone(), config).unwrap()));
    mct.start_frc().unwrap();
    (bus, mct)
}

/// Which clockevent a check runs on.
#[derive(Debug, Clone, Copy)]
enum Channel {
    Comparator,
    Local,
}

const CHANNELS: [Channel; 2] = [Channel::Comparator, Channel::Local];

/// Run `f` with the channel's clockevent of a fresh block.
fn with_channel<R>(channel: Channel, f: impl FnOnce(&Bus, &'static Mct<Bus>, Ev) -> R) -> R {
    let (bus, mct) = block();
    let ev = match channel {
        Channel::Comparator => Ev::Comp(mct.comparator(0).unwrap()),
        Channel::Local => Ev::Local(mct.local_timer(0).unwrap()),
    };
    f(&bus, mct, ev)
}

/// Either clockevent, as one type for the checks that take both.
enum Ev {
    Comp(Comp),
    Local(Local),
}

impl ClockEvent for Ev {
    fn capabilities(&self) -> hwtimer_core::Capabilities {
        match self {
            Ev::Comp(e) => e.capabilities(),
            Ev::Local(e) => e.capabilities(),
        }
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_next_event(delta),
            Ev::Local(e) => e.set_next_event(delta),
        }
    }
    fn set_compare(&mut self, at: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_compare(at),
            Ev::Local(e) => e.set_compare(at),
        }
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_periodic(period),
            Ev::Local(e) => e.set_periodic(period),
        }
    }
    fn shutdown(&mut self) {
        match self {
            Ev::Comp(e) => e.shutdown(),
            Ev::Local(e) => e.shutdown(),
        }
    }
    fn ack(&mut self) -> bool {
        match self {
            Ev::Comp(e) => e.ack(),
            Ev::Local(e) => e.ack(),
        }
    }
}

/// The model as hwtimer-core's scenarios see it: the FRC's true 64-bit count (what the
/// comparators compare against), the next interrupt, and the line of the channel in use
/// (only one is enabled per test).
fn model(bus: &Bus) -> Model<'_> {
    let now = || bus.clock().now_ns();
    Model::new(
        bus.clock(),
        TIMING,
        move || bus.model(|m| m.frc_value(now())),
        move || bus.model(|m| m.next_irq_ns(now())),
        move || {
            let now = now();
            bus.model(|m| m.comparator_line(now, 0) || m.local_line(now, 0))
        },
    )
}

/// (1) The queue on each clockevent, idle for 0.5, 1, 2 and 10 wraps, after it emptied or
/// from fresh after `reprogram()`: the time is the model's, and a 1 s timer runs 1 s later
/// (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_idle_of_up_to_ten_wraps() {
    for channel in CHANNELS {
        for fresh in [false, true] {
            for halves in IDLE_HALVES {
                with_channel(channel, |bus, mct, event| {
                    let timers: HrTimers<Ev, Time, 2> =
                        HrTimers::new(Alarm::new(event, mct.time()).unwrap());
                    let label = format!("{channel:?}, ");
                    model(bus).queue_idle(&timers, fresh, halves, &label);
                });
            }
        }
    }
}

/// (2) embassy's driver on the crate's types (`DriverOn`: comparator 0 and `FrcTime`) and
/// on local timer 0: idle from `init` and after a wake, for 0.5, 1, 2 and 10 wraps;
/// `now()` is the model's time (in embassy's 1 MHz ticks, rounded down) and a 1 s wake
/// comes 1 s later, never early.
#[test]
fn embassy_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (bus, mct) = block();
    let driver: &'static DriverOn<Bus, 4> = Box::leak(Box::new(DriverOn::new()));
    driver.init(mct.comparator(0).unwrap(), mct.time()).unwrap();
    model(&bus).embassy_idle(driver, "embassy on the comparator");
    let (bus, mct) = block();
    let driver: &'static TimeDriver<Local, Time, 4> = Box::leak(Box::new(TimeDriver::new()));
    driver
        .init(mct.local_timer(0).unwrap(), mct.time())
        .unwrap();
    model(&bus).embassy_idle(driver, "embassy on the local timer");
}

hwtimer_core::rtic_monotonic!(MonoComp, Comp, Time, 24_000_000);
hwtimer_core::rtic_monotonic!(MonoLocal, Local, Time, 24_000_000);

/// (2) The crate's rtic monotonics (`exynos_mct::rtic_monotonic!(Mono)` and
/// `(Mono, local_timer)` are this macro on these types): idle from `start` and after a
/// wait, for 0.5, 1, 2 and 10 wraps; `now()` is the model's time and a 1 s delay ends 1 s
/// later, never early.
#[test]
fn rtic_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (bus, mct) = block();
    MonoComp::start(mct.comparator(0).unwrap(), mct.time()).unwrap();
    model(&bus).rtic_idle(
        MonoComp::on_interrupt,
        || MonoComp::now().as_ticks(),
        || MonoComp::delay(1u64.secs()),
        "rtic on comparator",
    );
    let (bus, mct) = block();
    MonoLocal::start(mct.local_timer(0).unwrap(), mct.time()).unwrap();
    model(&bus).rtic_idle(
        MonoLocal::on_interrupt,
        || MonoLocal::now().as_ticks(),
        || MonoLocal::delay(1u64.secs()),
        "rtic on local_timer",
    );
}

/// (3) The queue on a `FaultyEvent` around each clockevent, failing at random (refused
/// programmings that keep the old deadline or stop the channel, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = FaultStats::default();
    for channel in CHANNELS {
        for seed in 1..=24u64 {
            injected += with_channel(channel, |bus, mct, event| {
                let what = format!("{channel:?} seed {seed}");
                model(bus).faulty_run(seed, &what, |faults| {
                    HrTimers::<_, Time, 12>::new(
                        Alarm::new(FaultyEvent::new(event, faults), mct.time()).unwrap(),
                    )
                })
            });
        }
    }
    // Every kind of failure happened, more than once.
    assert_every_failure_injected(&injected, 3);
}
