//! The runtime adapters under injected failures and idle: embassy's `TimeDriver` and the
//! rtic-time backend on a [`FaultyEvent`] that refuses programmings (leaving the channel
//! armed for its old deadline, or stopped) and an interrupt controller that loses, doubles
//! and delays interrupts and leaves stale status. The property: once the failures stop
//! (plus the documented recovery where the adapter names one), every wake arrives, none
//! early, and late by no more than a bound from the later of its instant and the stop.
#![cfg(all(feature = "embassy", feature = "rtic"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use embassy_time_driver::Driver;
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::fault::FaultStats;
use hwtimer_core::sim::queue_check::{BASES, Base};
use hwtimer_core::sim::scenario::{Flag, IDLE_HALVES, assert_every_failure_injected};
use hwtimer_core::sim::{Faults, FaultyEvent, Irq, Rates, SimClock, SimClockEvent, SimCounter};
use hwtimer_core::{Error, Extended};

type Event = FaultyEvent<SimClockEvent>;
type Time = Extended<SimCounter>;

fn event(clock: &SimClock, base: Base, faults: &Faults) -> (Event, Time) {
    let (ev, time) = base.channel(clock);
    (FaultyEvent::new(ev, faults), time)
}

/// Every failure at once, at rates that leave some programmings through.
fn rates(wrong_cpu: bool) -> Rates {
    Rates {
        refuse: 300,
        drop: 100,
        double: 100,
        late: 100,
        late_ns: 2_000_000,
        stale: 300,
        wrong_cpu,
    }
}

/// A task waiting on embassy's driver as `embassy_time::Timer` does: each poll checks the
/// time and, if not there yet, schedules its wake (again).
struct EmbassyTask {
    at: u64,
    flag: Arc<Flag>,
    waker: Waker,
    polls_seen: usize,
    done_ns: Option<u64>,
}

/// Embassy: waits from 0.1 to 40 ms, failures for the first 25 ms, then none. A firmware
/// recovery only for `WrongCpu` (the IPI to the owner core that calls `on_interrupt`),
/// as `TimeDriver::refusal` documents. Every wake comes, none early, all on time after
/// the stop. Before the adapters kept a refusal, a second refusal in a row left the wake
/// with nothing armed and nothing to retry it: this failed with "never woke".
#[test]
fn embassy_every_wake_arrives_under_failures() {
    let mut injected = FaultStats::default();
    for (seed, base) in (1..=24u64).zip(BASES.iter().cycle()) {
        let base = *base;
        // embassy-time's tick is 1 MHz in these tests (its default): instants are µs.
        let clock = SimClock::new();
        let faults = Faults::new();
        let (ev, time) = event(&clock, base, &faults);
        let probe = ev.inner().probe();
        let driver: &'static TimeDriver<Event, Time, 8> = Box::leak(Box::new(TimeDriver::new()));
        driver.init(ev, time).unwrap();
        faults.random(seed, rates(seed % 3 == 0));
        let mut tasks: Vec<EmbassyTask> = (0..8u64)
            .map(|k| {
                let (flag, waker) = Flag::waker();
                EmbassyTask {
                    at: 100 + (k * 7_919 + seed * 613) % 40_000,
                    flag,
                    waker,
                    polls_seen: usize::MAX,
                    done_ns: None,
                }
            })
            .collect();
        let stop_ns = 25_000_000;
        let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending())
            .retake_after(1_000_000);
        let step = 20_000;
        while clock.now_ns() < 80_000_000 {
            // Poll every task that was woken (or never polled).
            for t in tasks.iter_mut().filter(|t| t.done_ns.is_none()) {
                let n = t.flag.wakes();
                if n == t.polls_seen {
                    continue;
                }
                t.polls_seen = n;
                if driver.now() >= t.at {
                    let true_us = clock.now_ns() / 1_000;
                    assert!(true_us >= t.at, "seed {seed} {base:?}: early");
                    t.done_ns = Some(clock.now_ns());
                } else {
                    driver.schedule_wake(t.at, &t.waker);
                }
            }
            if clock.now_ns() >= stop_ns && !faults.stopped() {
                injected += faults.stats();
                faults.stop();
            }
            // The firmware's IPI to the owner core, for a refusal only that core can retry.
            if matches!(driver.refusal(), Some(Error::WrongCpu(_))) && faults.stopped() {
                driver.on_interrupt();
            }
            let to = clock.now_ns() + step;
            irq.run_until(to, || driver.on_interrupt());
        }
        for (k, t) in tasks.iter().enumerate() {
            let done = t.done_ns.unwrap_or_else(|| {
                panic!("seed {seed} {base:?}: task {k} (at {} µs) never woke", t.at)
            });
            let due = (t.at * 1_000).max(stop_ns);
            assert!(
                done <= due + 2 * step + 1_000_000,
                "seed {seed} {base:?}: task {k} woke at {done} ns, due {due} ns"
            );
        }
    }
    // Every kind of failure happened, more than once.
    assert_every_failure_injected(&injected, 2);
}

hwtimer_core::rtic_monotonic!(Mono28, Event, Time, 3_125_000);
hwtimer_core::rtic_monotonic!(Mono32, Event, Time, 24_000_000);
hwtimer_core::rtic_monotonic!(Mono64, Event, Time, 100_000_000);

/// rtic: the same, on one monotonic per time base (rtic-time's queue is a static). The
/// default pend is the channel itself, so the firmware's recovery is to raise the line
/// again while `refusal()` says nothing is armed (here: run the handler). Before the
/// backend kept a refusal, nothing said so and the wake never came.
#[test]
fn rtic_every_wake_arrives_under_failures() {
    macro_rules! check {
        ($mono:ident, $base:expr, $injected:ident) => {{
            let base: Base = $base;
            let clock = SimClock::new();
            for seed in 1..=8u64 {
                let faults = Faults::new();
                let (ev, time) = event(&clock, base, &faults);
                let probe = ev.inner().probe();
                $mono::start(ev, time).unwrap();
                faults.random(seed, rates(false));
                let t0 = clock.now_ns();
                let (flag, waker) = Flag::waker();
                let mut cx = Context::from_waker(&waker);
                let waits: Vec<u64> = (0..6u64)
                    .map(|k| 100 + (k * 7_919 + seed * 613) % 40_000)
                    .collect();
                let mut futs: Vec<_> = waits
                    .iter()
                    .map(|&us| Box::pin($mono::delay(us.micros())))
                    .collect();
                let mut done: Vec<Option<u64>> = vec![None; waits.len()];
                let stop_ns = t0 + 25_000_000;
                let mut irq =
                    Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending())
                        .retake_after(1_000_000);
                let mut seen = usize::MAX;
                while clock.now_ns() < t0 + 80_000_000 {
                    let n = flag.wakes();
                    if n != seen {
                        seen = n;
                        for (k, f) in futs.iter_mut().enumerate() {
                            if done[k].is_none() && f.as_mut().poll(&mut cx) == Poll::Ready(()) {
                                let elapsed = clock.now_ns() - t0;
                                assert!(elapsed >= waits[k] * 1_000, "seed {seed} {base:?}: early");
                                done[k] = Some(clock.now_ns());
                            }
                        }
                    }
                    if clock.now_ns() >= stop_ns && !faults.stopped() {
                        $injected += faults.stats().refused;
                        faults.stop();
                    }
                    if $mono::refusal().is_some() && faults.stopped() {
                        $mono::on_interrupt();
                    }
                    irq.run_until(clock.now_ns() + 20_000, $mono::on_interrupt);
                }
                for (k, d) in done.iter().enumerate() {
                    let d =
                        d.unwrap_or_else(|| panic!("seed {seed} {base:?}: wait {k} never woke"));
                    let due = (t0 + waits[k] * 1_000).max(stop_ns);
                    assert!(
                        d <= due + 1_100_000,
                        "seed {seed} {base:?}: wait {k} at {d}, due {due}"
                    );
                }
            }
        }};
    }
    // Every wake is polled once at start so it is queued: `flag` is 0 and `seen` MAX.
    let mut injected = 0;
    check!(Mono28, BASES[0], injected);
    check!(Mono32, BASES[1], injected);
    check!(Mono64, BASES[2], injected);
    assert!(injected > 10, "refusals injected: {injected}");
}

hwtimer_core::rtic_monotonic!(Idle28, Event, Time, 3_125_000);
hwtimer_core::rtic_monotonic!(Idle32, Event, Time, 24_000_000);
hwtimer_core::rtic_monotonic!(Idle64, Event, Time, 100_000_000);

/// Idle for 0.5, 1, 2 and 10 wraps on the narrowest time bases, under both adapters: the
/// time is right afterwards and a 1 s wait wakes 1 s later.
#[test]
fn both_adapters_keep_time_over_idle_of_up_to_ten_wraps() {
    // embassy
    for base in BASES {
        for halves in IDLE_HALVES {
            let clock = SimClock::new();
            let faults = Faults::new();
            let (ev, time) = event(&clock, base, &faults);
            let probe = ev.inner().probe();
            let driver: &'static TimeDriver<Event, Time, 4> =
                Box::leak(Box::new(TimeDriver::new()));
            driver.init(ev, time).unwrap();
            let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending());
            irq.run_until(base.wrap_ns() / 2 * halves, || driver.on_interrupt());
            let truth = clock.now_ns() / 1_000;
            let now = driver.now();
            assert!(
                now <= truth && truth - now <= 1,
                "{base:?} {halves}/2: {now} of {truth}"
            );
            let (f, waker) = Flag::waker();
            let at = now + 1_000_000;
            driver.schedule_wake(at, &waker);
            let start = clock.now_ns();
            irq.run_until(start + 3_000_000_000, || driver.on_interrupt());
            assert_eq!(f.wakes(), 1, "{base:?} {halves}/2: woke");
            assert!(driver.now() >= at);
        }
    }
    // rtic
    macro_rules! idle {
        ($mono:ident, $base:expr) => {{
            let base: Base = $base;
            let clock = SimClock::new();
            let faults = Faults::new();
            let (ev, time) = event(&clock, base, &faults);
            let probe = ev.inner().probe();
            $mono::start(ev, time).unwrap();
            let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending());
            for halves in IDLE_HALVES {
                let until = clock.now_ns() + base.wrap_ns() / 2 * halves;
                irq.run_until(until, $mono::on_interrupt);
                let truth =
                    (u128::from(clock.now_ns()) * u128::from(base.hz) / 1_000_000_000) as u64;
                let now = $mono::now().as_ticks();
                assert!(
                    now <= truth && truth - now <= u64::from(base.hz) / 1_000_000 + 2,
                    "{base:?} {halves}/2: {now} of {truth}"
                );
                let (f, waker) = Flag::waker();
                let mut cx = Context::from_waker(&waker);
                let start = clock.now_ns();
                let mut sleep = Box::pin($mono::delay(1u64.secs()));
                assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Pending);
                irq.run_until(start + 1_001_000_000, $mono::on_interrupt);
                assert!(f.wakes() >= 1, "{base:?} {halves}/2: woke");
                assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Ready(()));
            }
        }};
    }
    idle!(Idle28, BASES[0]);
    idle!(Idle32, BASES[1]);
    idle!(Idle64, BASES[2]);
}

/// embassy, nothing queued: the interrupt of the last wake empties the queue and the idle
/// keep-alive is refused. A transient refusal (up to `IDLE_TRIES - 1` in a row) is retried
/// at once; a longer one is reported by `refusal()`, and the recovery the docs name (the
/// firmware calls `on_interrupt` while `refusal()` is `Some`) arms the keep-alive, so 100 s
/// of idle on the Otto counter (a wrap is 85.9 s) lose no time. Before, a second refusal in
/// a row left nothing armed and nothing retrying, and the time fell a wrap behind.
#[test]
fn embassy_a_refused_idle_keep_alive_is_retried_then_reported() {
    use hwtimer_core::embassy::IDLE_TRIES;
    use hwtimer_core::sim::Refusal;
    for (refusals, recovery) in [(IDLE_TRIES - 1, false), (2 * IDLE_TRIES + 1, true)] {
        let clock = SimClock::new();
        let faults = Faults::new();
        let (ev, time) = event(&clock, BASES[0], &faults);
        let probe = ev.inner().probe();
        let driver: &'static TimeDriver<Event, Time, 4> = Box::leak(Box::new(TimeDriver::new()));
        driver.init(ev, time).unwrap();
        let (f, waker) = Flag::waker();
        driver.schedule_wake(1_000, &waker);
        faults.refuse_next(refusals as usize, Error::Timeout, Refusal::Disarm);
        let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending());
        irq.run_until(2_000_000, || driver.on_interrupt());
        assert_eq!(f.wakes(), 1);
        assert_eq!(driver.refusal().is_some(), recovery, "{refusals} refusals");
        if recovery {
            // Still refused: the recovery call says so through its return value.
            assert_eq!(driver.service(), Err(Error::Timeout));
        }
        faults.stop();
        if driver.refusal().is_some() {
            // The recovery call, with its outcome as a return value.
            assert_eq!(driver.service(), Ok(()));
            assert_eq!(driver.refusal(), None);
        }
        irq.run_until(100_000_000_000, || driver.on_interrupt());
        let truth = clock.now_ns() / 1_000;
        assert!(
            truth - driver.now() <= 1,
            "{refusals} refusals: {} of {truth} µs",
            driver.now()
        );
    }
}

static DEPTH: AtomicUsize = AtomicUsize::new(0);
static MAX_DEPTH: AtomicUsize = AtomicUsize::new(0);

fn pend_in_place() {
    let d = DEPTH.fetch_add(1, Ordering::SeqCst) + 1;
    MAX_DEPTH.fetch_max(d, Ordering::SeqCst);
    InPlace::serve();
    DEPTH.fetch_sub(1, Ordering::SeqCst);
}

hwtimer_core::rtic_monotonic!(InPlace, Event, Time, 3_125_000, pend = pend_in_place);

/// rtic with a firmware pend that runs the handler in place (on the channel's core): a long
/// streak of refusals retries through the pend once, not once per refusal nested inside the
/// handler (which grew the stack by a handler per refusal: 201 deep for 400). The refusal is
/// then reported, and the firmware's recovery (run the handler while `refusal()` is `Some`)
/// wakes the wait on time once the failures stop.
#[test]
fn rtic_an_in_place_pend_is_not_nested_by_a_streak_of_refusals() {
    use hwtimer_core::sim::Refusal;
    let clock = SimClock::new();
    let faults = Faults::new();
    let (ev, time) = event(&clock, BASES[0], &faults);
    let probe = ev.inner().probe();
    InPlace::start(ev, time).unwrap();
    faults.refuse_next(400, Error::Timeout, Refusal::KeepOld);
    let (f, waker) = Flag::waker();
    let mut cx = Context::from_waker(&waker);
    let mut d = Box::pin(InPlace::delay(1u64.millis()));
    assert_eq!(d.as_mut().poll(&mut cx), Poll::Pending);
    assert!(
        MAX_DEPTH.load(Ordering::SeqCst) <= 2,
        "nested {} deep",
        MAX_DEPTH.load(Ordering::SeqCst)
    );
    assert!(InPlace::refusal().is_some());
    faults.stop();
    assert_eq!(InPlace::service(), Ok(()), "the recovery call");
    assert_eq!(InPlace::refusal(), None);
    let mut irq = Irq::new(&clock, &faults, || probe.next_fire_ns(), || probe.pending());
    irq.run_until(2_000_000, InPlace::on_interrupt);
    assert!(f.wakes() >= 1);
    assert_eq!(d.as_mut().poll(&mut cx), Poll::Ready(()));
}
