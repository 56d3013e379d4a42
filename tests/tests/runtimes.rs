//! The runtime adapters on the simulation: embassy-time's own futures (`Timer`, `Ticker`,
//! `with_timeout`) on `hwtimer_core::embassy::TimeDriver`, and rtic-time's `TimerQueue` on
//! a monotonic from `rtic_monotonic!`, both over a simulated clockevent and 64-bit time
//! base in virtual time, with one waker per task.
//!
//! The hardware runs at 3.125 MHz (320 ns, the Otto tick) and embassy-time at its default
//! 1 MHz, so every embassy instant is converted and rounded. One process holds one embassy
//! driver and one monotonic, so the tests share them and take turns (`TURN`).

use std::sync::{Mutex, MutexGuard, OnceLock};

use embassy_time::{Duration, Instant, Ticker, Timer, with_timeout};
use hwtimer_core::Extended;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::{
    SimClock, SimClockEvent, SimClockEventProbe, SimCounter, run_virtual_tasks,
};
use proptest::prelude::*;
use rtic_time::Timebase;

const HW_HZ: u32 = 3_125_000;
const MIN_DELTA: u64 = 8;
/// Worst lateness of a wake in hardware ticks, as the driver documents it: one embassy tick
/// of rounding (3.125 hardware ticks, so up to 3), `min_delta` for a wake closer than that
/// (8), the margin tick of a channel that is not phase-locked (1), and the read costs of
/// the simulated handler (well under a tick).
const LATE_BOUND_HW: u64 = 3 + MIN_DELTA + 1 + 1;

type Time = Extended<SimCounter>;

embassy_time_driver::time_driver_impl!(
    static DRIVER: TimeDriver<SimClockEvent, Time, 16> = TimeDriver::new()
);

hwtimer_core::rtic_monotonic!(Mono, SimClockEvent, Time, 3_125_000);

static TURN: Mutex<()> = Mutex::new(());

type Machine = (
    MutexGuard<'static, ()>,
    SimClock,
    SimClockEventProbe,
    SimClockEventProbe,
);

/// A virtual machine for one test: a fresh clockevent handed to the embassy driver (and to
/// rtic's monotonic with `rtic`, once per process), on the one clock of the process, moved on
/// to its next whole second. The drivers keep the time base they were first given (their
/// `now()` reads it without a lock), so every test runs on that clock. The channel is
/// offset by a phase (not phase-locked): the lateness bound includes the margin tick.
fn machine() -> Machine {
    machine_with_phase(137, false)
}

/// The same with the channel's phase chosen (0: phase-locked, no margin tick to hide a
/// rounding error behind).
fn machine_with_phase(phase_ns: u64, rtic: bool) -> Machine {
    let turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    static CLOCK: OnceLock<SimClock> = OnceLock::new();
    let clock = CLOCK.get_or_init(SimClock::new).clone();
    clock.advance_to((clock.now_ns() / 1_000_000_000 + 1) * 1_000_000_000);
    let time = || Extended::new(SimCounter::new(&clock, 64, HW_HZ).with_read_cost(10));
    let event =
        || SimClockEvent::new(&clock, HW_HZ, MIN_DELTA, 0x0FFF_FFFF).with_phase_ns(phase_ns);
    let (embassy_event, rtic_event) = (event(), event());
    let probes = (embassy_event.probe(), rtic_event.probe());
    DRIVER.init(embassy_event, time()).unwrap();
    // rtic's backend stores its time base once (`Backend::init` takes `&'static self` and
    // keeps the first time base, so `now()` needs no lock): only the one rtic test of this
    // binary starts it.
    static RTIC: OnceLock<()> = OnceLock::new();
    if rtic {
        assert!(
            RTIC.set(()).is_ok(),
            "rtic's monotonic is started once per process"
        );
        Mono::start(rtic_event, time()).unwrap();
    }
    (turn, clock, probes.0, probes.1)
}

/// Hardware time at which embassy instant `at` (1 MHz) is first reached: `at` µs is
/// `at × 3.125` ticks of 320 ns, rounded up. Computed here, independently of the driver.
fn hw_deadline(at: u64) -> u64 {
    (at * 25).div_ceil(8)
}

/// A raw driver wake: schedules `at` with the driver directly (no embassy `Timer`, which
/// would hide an early wake by re-checking the time) and reports the hardware time of
/// every poll after the first, until one finds the instant reached.
struct RawWake<'a> {
    at: u64,
    polls: &'a Mutex<Vec<u64>>,
    scheduled: bool,
}

impl std::future::Future for RawWake<'_> {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.scheduled {
            let now = DRIVER.now_hw();
            self.polls.lock().unwrap().push(now);
            if now >= hw_deadline(self.at) {
                return std::task::Poll::Ready(());
            }
        }
        self.scheduled = true;
        embassy_time_driver::schedule_wake(self.at, cx.waker());
        std::task::Poll::Pending
    }
}

#[derive(Default, Debug)]
struct Wakes {
    n: u64,
    early: u64,
    max_late: u64,
}

impl Wakes {
    /// A task resumed at hardware time `now` for a deadline at hardware time `deadline`.
    fn record(&mut self, deadline: u64, now: u64) {
        self.record_scheduled(deadline, 0, now);
    }

    /// The same for a wait scheduled at `scheduled`: lateness counts from the later of the
    /// deadline and the scheduling (a deadline already passed is due at once).
    fn record_scheduled(&mut self, deadline: u64, scheduled: u64, now: u64) {
        self.n += 1;
        if now < deadline {
            self.early += 1;
        } else {
            self.max_late = self.max_late.max(now - deadline.max(scheduled));
        }
    }
}

#[test]
fn embassy_now_is_zero_before_init_then_follows_the_hardware_never_ahead() {
    let (_turn, clock, _, _) = machine();
    // A whole second of the clock: a whole number of both tick rates.
    let s = clock.now_ns() / 1_000_000_000 + 1;
    clock.advance(1_000_000_000); // 1 s
    let hw = DRIVER.now_hw();
    let now = Instant::now().as_ticks();
    assert_eq!(hw, s * 3_125_000);
    assert_eq!(now, s * 1_000_000);
    // Floor: 3 hardware ticks (960 ns) later embassy still reads the same microsecond or
    // less than one ahead.
    clock.advance(960);
    assert_eq!(Instant::now().as_ticks(), s * 1_000_000);
    let fresh: TimeDriver<SimClockEvent, Time, 4> = TimeDriver::new();
    assert_eq!(embassy_time_driver::Driver::now(&fresh), 0, "uninitialised");
}

#[test]
fn embassy_tasks_timer_ticker_and_timeout_are_never_early() {
    let (_turn, _clock, probe, _) = machine();
    let wakes = Mutex::new(Wakes::default());
    let record = |deadline_us: u64| {
        wakes
            .lock()
            .unwrap()
            .record(hw_deadline(deadline_us), DRIVER.now_hw());
    };
    let sleeper = async {
        for i in 0..200u64 {
            let at = Instant::now() + Duration::from_micros(7 + i % 13);
            Timer::at(at).await;
            record(at.as_ticks());
        }
    };
    let ticker = async {
        let mut ticker = Ticker::every(Duration::from_micros(50));
        let start = Instant::now();
        for k in 1..=200u64 {
            ticker.next().await;
            record(start.as_ticks() + 50 * k);
        }
    };
    let timeout = async {
        for i in 0..100u64 {
            let start = Instant::now();
            let r = with_timeout(
                Duration::from_micros(30),
                Timer::after(Duration::from_micros(20 + 20 * (i % 2))),
            )
            .await;
            // Odd rounds: the 40 µs timer loses to the 30 µs timeout.
            assert_eq!(r.is_err(), i % 2 == 1);
            let deadline = start.as_ticks() + if i % 2 == 1 { 30 } else { 20 };
            record(deadline);
        }
    };
    let tasks: Vec<hwtimer_core::sim::Task<'_>> =
        vec![Box::pin(sleeper), Box::pin(ticker), Box::pin(timeout)];
    let irqs = run_virtual_tasks(tasks, &probe, 100_000, || DRIVER.on_interrupt())
        .expect("every task finished");
    let w = wakes.into_inner().unwrap();
    println!(
        "embassy: wakes={} early={} max_late_ticks={} interrupts={irqs}",
        w.n, w.early, w.max_late
    );
    assert_eq!(w.n, 500);
    assert_eq!(w.early, 0, "{w:?}");
    assert!(w.max_late <= LATE_BOUND_HW, "{w:?}");
}

#[test]
fn embassy_driver_wakes_a_task_only_once_its_instant_is_reached() {
    let (_turn, _clock, probe, _) = machine_with_phase(0, false);
    let polls = Mutex::new(Vec::new());
    let base = Instant::now().as_ticks();
    let tasks: Vec<hwtimer_core::sim::Task<'_>> = (0..12u64)
        .map(|i| {
            let polls = &polls;
            let task: hwtimer_core::sim::Task<'_> = Box::pin(async move {
                for k in 0..40u64 {
                    let at = base + 1 + i * 7 + k * 97;
                    RawWake {
                        at,
                        polls,
                        scheduled: false,
                    }
                    .await;
                }
            });
            task
        })
        .collect();
    run_virtual_tasks(tasks, &probe, 10_000, || DRIVER.on_interrupt()).expect("all woke");
    let polls = polls.into_inner().unwrap();
    // Every wake is a poll that finds its instant reached: none early, none spurious.
    assert_eq!(polls.len(), 12 * 40, "a wake came before its instant");
}

#[test]
fn embassy_past_instants_fire_at_once_and_never_causes_no_rearming() {
    let (_turn, clock, probe, _) = machine();
    clock.advance(10_000_000);
    let past = async {
        Timer::at(Instant::from_ticks(3)).await;
        Timer::at(Instant::now()).await;
    };
    let programs = probe.programs();
    let irqs = run_virtual_tasks(vec![Box::pin(past)], &probe, 10, || DRIVER.on_interrupt());
    assert_eq!(irqs, Ok(0), "past instants need no interrupt");
    // "Never": a task waiting for u64::MAX arms nothing and is still pending, without a hang.
    let never = async {
        Timer::at(Instant::MAX).await;
    };
    let left = run_virtual_tasks(vec![Box::pin(never)], &probe, 10, || DRIVER.on_interrupt());
    assert_eq!(left, Err(1), "the task waits forever");
    assert!(probe.next_fire_ns().is_none(), "nothing armed for never");
    assert!(probe.programs() - programs <= 1, "no re-arming loop");
}

#[test]
fn rtic_time_delays_and_timeouts_on_the_sim_backend_are_never_early() {
    let (_turn, _clock, _, probe) = machine_with_phase(137, true);
    let wakes = Mutex::new(Wakes::default());
    let task = |offset: u64| {
        let wakes = &wakes;
        async move {
            for i in 0..100u64 {
                let at = Mono::now()
                    + rtic_time::fugit::Duration::<u64, 1, 3_125_000>::from_ticks(offset + i % 17);
                Mono::delay_until(at).await;
                wakes
                    .lock()
                    .unwrap()
                    .record(at.as_ticks(), Mono::now().as_ticks());
            }
        }
    };
    let timeout = async {
        for _ in 0..50 {
            let start = Mono::now();
            let r = Mono::timeout_after(
                rtic_time::fugit::Duration::<u64, 1, 3_125_000>::from_ticks(100),
                Mono::delay(rtic_time::fugit::Duration::<u64, 1, 3_125_000>::from_ticks(
                    400,
                )),
            )
            .await;
            assert!(r.is_err());
            wakes
                .lock()
                .unwrap()
                .record(start.as_ticks() + 100, Mono::now().as_ticks());
        }
    };
    let tasks: Vec<hwtimer_core::sim::Task<'_>> = vec![
        Box::pin(task(9)),
        Box::pin(task(40)),
        Box::pin(task(1000)),
        Box::pin(timeout),
    ];
    let irqs =
        run_virtual_tasks(tasks, &probe, 100_000, Mono::on_interrupt).expect("every task finished");
    let w = wakes.into_inner().unwrap();
    println!(
        "rtic-time: wakes={} early={} max_late_ticks={} interrupts={irqs}",
        w.n, w.early, w.max_late
    );
    assert_eq!(w.n, 350);
    assert_eq!(w.early, 0, "{w:?}");
    // rtic-time adds one tick to relative delays; min_delta and the margin as for embassy.
    assert!(w.max_late <= MIN_DELTA + 2 + 1, "{w:?}");
}

/// One scheduled wake of the property test.
#[derive(Debug, Clone)]
enum Wake {
    /// An instant relative to the start (negative: already passed), in embassy ticks.
    At(i64),
    /// Wait for `first`, but re-schedule to `second` through a timeout before it.
    Rescheduled(u64, u64),
}

fn wake_strategy() -> impl Strategy<Value = Wake> {
    prop_oneof![
        (-50i64..0).prop_map(Wake::At),
        Just(Wake::At(0)),
        (1i64..200).prop_map(Wake::At),
        (1_000i64..5_000_000).prop_map(Wake::At),
        ((10u64..5_000), (1u64..5_000)).prop_map(|(a, b)| Wake::Rescheduled(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(48)))]

    #[test]
    fn random_wake_sets_all_fire_none_early_within_the_bound(
        wakes in proptest::collection::vec(wake_strategy(), 1..12),
        start_us in 0u64..10_000_000,
    ) {
        let (_turn, clock, probe, _) = machine();
        clock.advance(start_us * 1000);
        let base = Instant::now().as_ticks() as i64;
        let seen = Mutex::new(Wakes::default());
        let tasks: Vec<hwtimer_core::sim::Task<'_>> = wakes
            .iter()
            .cloned()
            .map(|w| {
                let seen = &seen;
                let task: hwtimer_core::sim::Task<'_> = Box::pin(async move {
                    let scheduled = DRIVER.now_hw();
                    let deadline = match w {
                        Wake::At(off) => {
                            let at = (base + off).max(0) as u64;
                            Timer::at(Instant::from_ticks(at)).await;
                            at
                        }
                        Wake::Rescheduled(first, second) => {
                            let start = Instant::now().as_ticks();
                            let timer = Timer::at(Instant::from_ticks(start + first));
                            match with_timeout(Duration::from_ticks(second), timer).await {
                                Ok(()) => start + first,
                                Err(_) => start + second,
                            }
                        }
                    };
                    seen.lock()
                        .unwrap()
                        .record_scheduled(hw_deadline(deadline), scheduled, DRIVER.now_hw());
                });
                task
            })
            .collect();
        let result = run_virtual_tasks(tasks, &probe, 10_000, || DRIVER.on_interrupt());
        prop_assert!(result.is_ok(), "tasks left: {result:?}");
        let w = seen.into_inner().unwrap();
        prop_assert_eq!(w.n, wakes.len() as u64);
        prop_assert_eq!(w.early, 0);
        prop_assert!(w.max_late <= LATE_BOUND_HW, "{:?}", w);
    }
}
