//! The runtime adapters when the channel misbehaves or is driven from the wrong place:
//! `hwtimer_core::embassy::TimeDriver` after a programming that failed while an earlier one
//! was still armed (as a per-core timer refuses a call from another core, or a write-status
//! bit never comes).
//!
//! Each test holds its own driver (not the process-wide embassy driver of `runtimes.rs`),
//! so they run in parallel with those.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Wake, Waker};

use embassy_time_driver::Driver;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::{SimClock, SimClockEvent, SimCounter};
use hwtimer_core::{Capabilities, ClockEvent, ConfigError, Error, Extended};

/// A clockevent that refuses its next `fail` programmings without touching the hardware
/// (the channel keeps whatever it was armed for), then behaves.
struct Refusing {
    inner: SimClockEvent,
    fail: Arc<AtomicU64>,
}

impl ClockEvent for Refusing {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if self
            .fail
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(Error::Unsupported);
        }
        self.inner.set_next_event(delta)
    }
    fn shutdown(&mut self) {
        self.inner.shutdown()
    }
    fn ack(&mut self) -> bool {
        self.inner.ack()
    }
}

/// Counts its wake-ups.
struct Counter(AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn counter() -> (Arc<Counter>, Waker) {
    let c = Arc::new(Counter(AtomicUsize::new(0)));
    (c.clone(), Waker::from(c))
}

const HZ: u32 = 1_000_000; // embassy-time's default tick rate: no rounding in this test

#[test]
fn a_refused_programming_is_retried_by_the_tasks_polls() {
    let clock = SimClock::new();
    let event = SimClockEvent::new(&clock, HZ, 1, 0x0FFF_FFFF);
    let probe = event.probe();
    let fail = Arc::new(AtomicU64::new(0));
    let driver: &'static TimeDriver<Refusing, Extended<SimCounter>, 4> =
        Box::leak(Box::new(TimeDriver::new()));
    driver
        .init(
            Refusing {
                inner: event,
                fail: fail.clone(),
            },
            Extended::new(SimCounter::new(&clock, 64, HZ)),
        )
        .unwrap();

    // Wake A at 1000 µs: armed.
    let (a, waker_a) = counter();
    driver.schedule_wake(1_000, &waker_a);
    assert_eq!(probe.next_fire_ns(), Some(1_000_000));
    // Wake B at 500 µs: the channel refuses both attempts (the driver retries once as
    // "as soon as possible"); the hardware still holds A's deadline.
    fail.store(2, Ordering::Relaxed);
    let (b, waker_b) = counter();
    driver.schedule_wake(500, &waker_b);
    assert_eq!(driver.stats().refused, 2);
    assert!(driver.refusal().is_some());
    assert_eq!(probe.next_fire_ns(), Some(1_000_000));
    // Both tasks are woken to poll again: each poll schedules its wake again, which is
    // the retry (a re-poll; embassy's timers re-check the time, so never an early wake).
    assert_eq!(
        (a.0.load(Ordering::Relaxed), b.0.load(Ordering::Relaxed)),
        (1, 1)
    );
    driver.schedule_wake(1_000, &waker_a);
    driver.schedule_wake(500, &waker_b);
    assert_eq!(driver.refusal(), None);
    assert_eq!(probe.next_fire_ns(), Some(500_000));
    assert_eq!(probe.advance_to_fire(), Some(500_000));
    driver.on_interrupt();
    assert_eq!(b.0.load(Ordering::Relaxed), 2, "wake B at 500 µs");
    assert_eq!(probe.advance_to_fire(), Some(1_000_000));
    driver.on_interrupt();
    assert_eq!(a.0.load(Ordering::Relaxed), 2, "wake A at 1000 µs");
    assert!(driver.now_hw() >= 1_000);
}

#[test]
fn a_spurious_interrupt_with_a_deadline_armed_changes_nothing() {
    let clock = SimClock::new();
    let event = SimClockEvent::new(&clock, HZ, 1, 0x0FFF_FFFF);
    let probe = event.probe();
    let driver: &'static TimeDriver<SimClockEvent, Extended<SimCounter>, 4> =
        Box::leak(Box::new(TimeDriver::new()));
    driver
        .init(event, Extended::new(SimCounter::new(&clock, 64, HZ)))
        .unwrap();
    let (a, waker_a) = counter();
    driver.schedule_wake(1_000, &waker_a);
    let programs = probe.programs();
    clock.advance(100_000);
    driver.on_interrupt(); // the line of another device
    assert_eq!(probe.programs(), programs, "not re-armed");
    assert_eq!(a.0.load(Ordering::Relaxed), 0, "not early");
    assert_eq!(probe.advance_to_fire(), Some(1_000_000));
    driver.on_interrupt();
    assert_eq!(a.0.load(Ordering::Relaxed), 1);
}

// A monotonic whose instants claim 1 MHz, for a time base that counts at 3.125 MHz.
hwtimer_core::rtic_monotonic!(WrongRate, SimClockEvent, Extended<SimCounter>, 1_000_000);

#[test]
fn rtic_monotonic_refuses_a_time_base_at_another_rate() {
    let clock = SimClock::new();
    let event = SimClockEvent::new(&clock, 3_125_000, 8, 0x0FFF_FFFF);
    let time = Extended::new(SimCounter::new(&clock, 64, 3_125_000));
    // Its instants would be 3.125 times too short: a 1 ms delay would end after 320 µs.
    assert_eq!(
        WrongRate::start(event, time),
        Err(Error::Config(ConfigError::RateMismatch))
    );
}
