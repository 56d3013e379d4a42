//! Idle longer than a wrap, in both runtime adapters: with nothing queued, the embassy
//! driver and the rtic backend keep a narrow extended time base read, so after 10 minutes
//! of idle the time is right and a 1 s sleep wakes 1 s later.
//!
//! The models are the Otto timer's: a 28-bit counter at 3.125 MHz (it wraps every 85.9 s)
//! extended in software, and a 28-bit down-counting event channel at the same rate.
#![cfg(all(feature = "embassy", feature = "rtic"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use embassy_time_driver::Driver;
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::{TimeDriver, to_embassy_ticks};
use hwtimer_core::sim::{SimClock, SimClockEvent, SimClockEventProbe, SimCounter};
use hwtimer_core::{Extended, Monotonic};

const HZ: u32 = 3_125_000;
const NS_PER_TICK: u64 = 320;
const IDLE_NS: u64 = 600_000_000_000; // 10 minutes
const SLEEP_NS: u64 = 1_000_000_000;
/// Rounding, the channel's one-tick margin and the embassy tick: far below a millisecond.
const LATE_NS: u64 = 1_000_000;

fn models(clock: &SimClock) -> (SimClockEvent, Extended<SimCounter>) {
    (
        SimClockEvent::new(clock, HZ, 1, 0x0FFF_FFFF),
        Extended::new(SimCounter::new(clock, 28, HZ)),
    )
}

/// Let virtual time run to `until`, taking every interrupt the channel raises on the way.
fn idle_until(clock: &SimClock, probe: &SimClockEventProbe, until: u64, mut isr: impl FnMut()) {
    while let Some(t) = probe.next_fire_ns().filter(|&t| t <= until) {
        clock.advance_to(t);
        isr();
    }
    clock.advance_to(until);
}

struct Flag(AtomicUsize);
impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn embassy_ten_minutes_idle_then_a_one_second_sleep_wakes_one_second_later() {
    let clock = SimClock::new();
    let (event, time) = models(&clock);
    let probe = event.probe();
    let driver: &'static TimeDriver<SimClockEvent, Extended<SimCounter>, 4> =
        Box::leak(Box::new(TimeDriver::new()));
    driver.init(event, time).unwrap();

    idle_until(&clock, &probe, IDLE_NS, || driver.on_interrupt());
    let now = driver.now();
    // A read costs the model 100 ns, so the true time is read after it, within a tick.
    let true_now = to_embassy_ticks(clock.now_ns() / NS_PER_TICK, HZ);
    assert!(
        true_now - now <= 1,
        "time lost while idle: {now} of {true_now}"
    );

    let flag = Arc::new(Flag(AtomicUsize::new(0)));
    let waker = Waker::from(flag.clone());
    let start = clock.now_ns();
    let at = driver.now() + to_embassy_ticks(SLEEP_NS / NS_PER_TICK, HZ);
    driver.schedule_wake(at, &waker);
    let mut interrupts = 0;
    while flag.0.load(Ordering::SeqCst) == 0 {
        assert!(interrupts < 1000, "never woke");
        let t = probe.next_fire_ns().expect("the wake is armed");
        clock.advance_to(t);
        driver.on_interrupt();
        interrupts += 1;
    }
    let slept = clock.now_ns() - start;
    assert!(driver.now() >= at, "woke early");
    assert!(
        (SLEEP_NS..=SLEEP_NS + LATE_NS).contains(&slept),
        "a 1 s sleep after 10 min idle took {slept} ns"
    );
}

#[test]
fn embassy_keep_alive_steps_stay_within_the_time_base_idle_bound() {
    let clock = SimClock::new();
    let (event, time) = models(&clock);
    let max_idle_ns = time.max_idle_ticks() * NS_PER_TICK;
    let probe = event.probe();
    let driver: &'static TimeDriver<SimClockEvent, Extended<SimCounter>, 4> =
        Box::leak(Box::new(TimeDriver::new()));
    driver.init(event, time).unwrap();
    let mut last = clock.now_ns();
    idle_until(&clock, &probe, IDLE_NS, || {
        assert!(clock.now_ns() - last <= max_idle_ns, "step too long");
        last = clock.now_ns();
        driver.on_interrupt()
    });
    // 600 s in steps of at most 32.2 s.
    assert!(driver.stats().interrupts >= 18, "{:?}", driver.stats());
}

#[test]
fn embassy_on_a_64_bit_time_base_idles_without_interrupts() {
    let clock = SimClock::new();
    let event = SimClockEvent::new(&clock, HZ, 1, 0x0FFF_FFFF);
    let probe = event.probe();
    let driver: &'static TimeDriver<SimClockEvent, Extended<SimCounter>, 4> =
        Box::leak(Box::new(TimeDriver::new()));
    driver
        .init(event, Extended::new(SimCounter::new(&clock, 64, HZ)))
        .unwrap();
    assert_eq!(probe.next_fire_ns(), None);
    idle_until(&clock, &probe, IDLE_NS, || driver.on_interrupt());
    assert_eq!(driver.stats().interrupts, 0);
    let now = driver.now();
    assert!(to_embassy_ticks(clock.now_ns() / NS_PER_TICK, HZ) - now <= 1);
}

hwtimer_core::rtic_monotonic!(Mono, SimClockEvent, Extended<SimCounter>, 3_125_000);

#[test]
fn rtic_ten_minutes_idle_then_a_one_second_sleep_wakes_one_second_later() {
    let clock = SimClock::new();
    let (event, time) = models(&clock);
    let probe = event.probe();
    Mono::start(event, time).unwrap();

    // Idle before the first wait, then after one (the queue emptied by an interrupt).
    for round in 0..2u64 {
        let until = clock.now_ns() + IDLE_NS;
        idle_until(&clock, &probe, until, Mono::on_interrupt);
        let now = Mono::now().as_ticks();
        let true_now = clock.now_ns() / NS_PER_TICK; // read after, within a tick
        assert!(
            true_now - now <= 1,
            "round {round}: time lost while idle: {now} of {true_now}"
        );

        let flag = Arc::new(Flag(AtomicUsize::new(0)));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let start = clock.now_ns();
        let mut sleep = std::pin::pin!(Mono::delay(1u64.secs()));
        let mut interrupts = 0;
        while sleep.as_mut().poll(&mut cx) == Poll::Pending {
            assert!(interrupts < 1000, "round {round}: never woke");
            let t = probe.next_fire_ns().expect("the wake is armed");
            clock.advance_to(t);
            Mono::on_interrupt();
            interrupts += 1;
        }
        let slept = clock.now_ns() - start;
        assert!(
            (SLEEP_NS..=SLEEP_NS + LATE_NS).contains(&slept),
            "round {round}: a 1 s sleep after 10 min idle took {slept} ns"
        );
    }
}
