//! Alarm behaviour against a simulated clockevent: clamping at min/max, stepping of long
//! waits, past deadlines, and never firing early.

use hwtimer_core::sim::{SimClock, SimClockEvent, SimCounter};
use hwtimer_core::{Alarm, ClockEvent, ConfigError, Error, Extended, Fired, Monotonic};

const HZ: u32 = 3_125_000; // Otto's tick rate: 320 ns per tick
const TICK_NS: u64 = 320;

/// Run the interrupt handler each time the event fires until the deadline is reported.
fn run_to_deadline<E: ClockEvent, M: Monotonic>(
    alarm: &mut Alarm<E, M>,
    probe: &hwtimer_core::sim::SimClockEventProbe,
) -> (u64, u64, usize) {
    let mut rearms = 0;
    loop {
        probe
            .advance_to_fire()
            .expect("an armed alarm must have a fire time");
        match alarm.on_interrupt() {
            Fired::Deadline { deadline, now } => return (deadline, now, rearms),
            Fired::Rearmed { .. } => rearms += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn short_request_is_clamped_to_min_delta_and_fires_late_not_early() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, HZ).with_read_cost(10);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();

    let now = time.now();
    let plan = alarm.set_deadline(now + 2).unwrap();
    assert!(plan.clamped_min);
    assert_eq!(plan.delta, 8, "programmed exactly min_delta");
    assert_eq!(probe.last_delta(), Some(8));
    let (deadline, fired_at, rearms) = run_to_deadline(&mut alarm, &probe);
    assert_eq!(rearms, 0);
    assert!(fired_at >= deadline);
    // Late by the clamp: fires 8 ticks after programming, i.e. about 6 ticks late.
    assert!(
        fired_at >= now + 8 && fired_at <= now + 9,
        "fired at {fired_at}, now {now}"
    );
}

#[test]
fn long_request_is_stepped_at_max_delta_and_fires_at_the_deadline() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, HZ).with_read_cost(10);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 1000);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();

    let deadline = time.now() + 3500;
    let plan = alarm.set_deadline(deadline).unwrap();
    assert!(plan.stepped);
    assert_eq!(plan.delta, 1000);
    let (d, fired_at, rearms) = run_to_deadline(&mut alarm, &probe);
    assert_eq!(d, deadline);
    assert!(fired_at >= deadline);
    assert!(
        fired_at <= deadline + 2,
        "late by {} ticks",
        fired_at - deadline
    );
    assert_eq!(rearms, 3, "3500 ticks in steps of at most 1000: 3 re-arms");
    assert!(probe.programs() >= 4);
    assert!(alarm.deadline().is_none());
}

#[test]
fn past_and_present_deadlines_are_reported_not_armed() {
    let clock = SimClock::new();
    clock.advance(1_000_000);
    let counter = SimCounter::new(&clock, 28, HZ);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();

    let now = time.now();
    match alarm.set_deadline(now - 5) {
        Err(Error::DeadlinePassed { now: seen }) => assert!(seen >= now),
        other => panic!("expected DeadlinePassed, got {other:?}"),
    }
    assert_eq!(
        probe.next_fire_ns(),
        None,
        "nothing armed for a past deadline"
    );
    assert!(matches!(
        alarm.set_deadline(0),
        Err(Error::DeadlinePassed { .. })
    ));
    // On a 28-bit counter a naive "raw compare = deadline" would wait a full wrap
    // (85.9 s); the forced variant instead fires after min_delta.
    let plan = alarm.set_deadline_or_min(now - 5).unwrap();
    assert_eq!(plan.delta, 8);
    let fire = probe.next_fire_ns().unwrap();
    assert!(fire - clock.now_ns() <= 8 * TICK_NS);
}

#[test]
fn unsynchronised_event_never_fires_early() {
    // The event's prescaler edges sit 300 ns after the clocksource's: a delta of n event
    // ticks can elapse up to one clocksource tick early. The alarm must add margin or
    // re-arm; the handler must never report a deadline that has not been reached.
    for phase in [1u64, 100, 160, 300, 319] {
        for wait in [8u64, 9, 10, 33, 100, 1001] {
            let clock = SimClock::new();
            clock.advance(12_345);
            let counter = SimCounter::new(&clock, 28, HZ).with_read_cost(7);
            let time = Extended::new(&counter);
            let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF).with_phase_ns(phase);
            let probe = event.probe();
            let mut alarm = Alarm::new(event, &time).unwrap();
            let deadline = time.now() + wait;
            alarm.set_deadline(deadline).unwrap();
            let (_, fired_at, _) = run_to_deadline(&mut alarm, &probe);
            assert!(fired_at >= deadline, "phase {phase} wait {wait}: early");
            assert!(
                fired_at <= deadline + 2,
                "phase {phase} wait {wait}: {} late",
                fired_at - deadline
            );
        }
    }
}

#[test]
fn periodic_fires_every_period_and_rejects_out_of_range() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, HZ);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();

    assert_eq!(
        alarm.set_periodic(4),
        Err(Error::Config(ConfigError::PeriodOutOfRange))
    );
    assert_eq!(
        alarm.set_periodic(0x1000_0000),
        Err(Error::Config(ConfigError::PeriodOutOfRange))
    );
    let period = u64::from(HZ / 100); // HZ=100
    alarm.set_periodic(period).unwrap();
    let mut last = None;
    for _ in 0..5 {
        let t = probe.advance_to_fire().unwrap();
        assert!(matches!(alarm.on_interrupt(), Fired::Period { .. }));
        if let Some(prev) = last {
            assert_eq!(t - prev, 10_000_000, "one period is 10 ms");
        }
        last = Some(t);
    }
    alarm.cancel();
    assert_eq!(probe.next_fire_ns(), None);
    assert_eq!(alarm.on_interrupt(), Fired::Spurious);
}

#[test]
fn spurious_interrupt_is_recognised() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, HZ);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF);
    let mut alarm = Alarm::new(event, &time).unwrap();
    alarm.set_deadline(time.now() + 1000).unwrap();
    // The line fired for another channel: this one has nothing pending.
    assert_eq!(alarm.on_interrupt(), Fired::Spurious);
    assert!(alarm.deadline().is_some(), "still armed");
}

#[test]
fn bad_event_configuration_is_refused() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, HZ);
    let time = Extended::new(&counter);
    assert!(Alarm::new(SimClockEvent::new(&clock, HZ, 0, 10), &time).is_err());
    assert!(Alarm::new(SimClockEvent::new(&clock, HZ, 11, 10), &time).is_err());
    assert!(Alarm::new(SimClockEvent::new(&clock, 0, 1, 10), &time).is_err());
}

#[test]
fn rates_differ_deadline_converted_up() {
    // A 12 MHz event paired with a 24 MHz time base (Exynos MCT local timer vs FRC).
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, 24_000_000).with_read_cost(5);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, 12_000_000, 0xF, 0x7FFF_FFFF);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();
    for wait in [31u64, 32, 33, 1000, 24_000] {
        let deadline = time.now() + wait;
        alarm.set_deadline(deadline).unwrap();
        let (_, fired_at, _) = run_to_deadline(&mut alarm, &probe);
        assert!(fired_at >= deadline, "wait {wait}");
        assert!(
            fired_at <= deadline + 4,
            "wait {wait}: {} late",
            fired_at - deadline
        );
    }
}

/// A channel whose every programming after the first fails (a write-status timeout).
struct FailsAfterFirst {
    inner: SimClockEvent,
    programmed: bool,
}

impl ClockEvent for FailsAfterFirst {
    fn capabilities(&self) -> hwtimer_core::clockevent::Capabilities {
        self.inner.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if self.programmed {
            return Err(Error::Timeout);
        }
        self.programmed = true;
        self.inner.set_next_event(delta)
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.inner.set_periodic(period)
    }
    fn shutdown(&mut self) {
        self.inner.shutdown()
    }
    fn ack(&mut self) -> bool {
        self.inner.ack()
    }
}

#[test]
fn a_failed_rearm_is_reported_never_as_a_reached_deadline() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, HZ);
    let time = Extended::new(&counter);
    let inner = SimClockEvent::new(&clock, HZ, 8, 100);
    let probe = inner.probe();
    let event = FailsAfterFirst {
        inner,
        programmed: false,
    };
    let mut alarm = Alarm::new(event, &time).unwrap();
    let deadline = time.now() + 1000; // needs steps of at most 100
    alarm.set_deadline(deadline).unwrap();
    probe.advance_to_fire().unwrap();
    match alarm.on_interrupt() {
        Fired::RearmFailed {
            deadline: d,
            now,
            error,
        } => {
            assert_eq!(d, deadline);
            assert!(now < deadline);
            assert_eq!(error, Error::Timeout);
        }
        other => panic!("expected RearmFailed, got {other:?}"),
    }
    assert!(alarm.deadline().is_none(), "idle after the failure");
}

#[test]
fn long_waits_are_stepped_so_an_extended_28_bit_time_base_stays_fresh() {
    // The Otto case: a 28-bit clocksource (85.9 s wrap at 3.125 MHz) extended in software,
    // and a clockevent that can itself count a whole wrap. An 80 s alarm armed as one step
    // would leave the time base unread for more than half a wrap and lose a wrap of time.
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, HZ).with_read_cost(10);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 0x0FFF_FFFF).with_phase_ns(100);
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();
    let start = time.now();
    let deadline = start + 80 * u64::from(HZ); // 80 s
    let plan = alarm.set_deadline(deadline).unwrap();
    assert!(plan.stepped);
    // One step is at most the time base's idle limit plus the one tick of margin this
    // unsynchronised event gets.
    assert!(plan.delta <= hwtimer_core::extend::max_idle_ticks(28) + 1);
    let (_, fired_at, rearms) = run_to_deadline(&mut alarm, &probe);
    assert!(rearms >= 2, "80 s in steps of at most 32.2 s");
    // The extended time is right: it matches the true tick count of the virtual clock.
    let truth = clock.now_ns() as u128 * u128::from(HZ) / 1_000_000_000;
    let now = time.now() as u128;
    assert!(
        now <= truth && truth - now <= 2,
        "time {now} vs truth {truth}"
    );
    assert!(fired_at >= deadline && fired_at <= deadline + 2);
    // A period longer than the time base tolerates unread is refused.
    assert_eq!(
        alarm.set_periodic(0x0800_0000),
        Err(Error::Config(ConfigError::PeriodOutOfRange))
    );
}

#[test]
fn absolute_channel_is_programmed_with_the_deadline_itself_and_never_fires_early() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, HZ).with_read_cost(10);
    let time = Extended::new(&counter);
    let event = SimClockEvent::new(&clock, HZ, 8, 1000).with_absolute();
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &time).unwrap();
    assert!(alarm.is_absolute());

    // A deadline closer than min_delta needs no clamp: the compare value is the deadline.
    for wait in [1u64, 2, 7, 8, 500, 999, 1000, 1001, 40_000] {
        let deadline = time.now() + wait;
        let plan = alarm.set_deadline(deadline).unwrap();
        assert!(!plan.clamped_min);
        assert_eq!(
            probe.last_delta(),
            Some(deadline),
            "compare value is the deadline"
        );
        let (d, fired_at, rearms) = run_to_deadline(&mut alarm, &probe);
        assert_eq!(
            (d, rearms),
            (deadline, 0),
            "no steps: the compare is 64-bit"
        );
        assert!(fired_at >= deadline, "early: {fired_at} < {deadline}");
        assert!(fired_at <= deadline + 1, "late by {}", fired_at - deadline);
    }

    // A deadline already due, forced: it fires at once.
    let now = time.now();
    alarm.set_deadline_or_min(now - 5).unwrap();
    assert!(probe.pending(), "a passed compare value fires at once");
    assert!(matches!(alarm.on_interrupt(), Fired::Deadline { .. }));
}

#[test]
fn absolute_channel_with_a_time_base_of_another_epoch_is_late_never_early() {
    // A wrong pairing: the time base runs 10_000 ticks behind the compared counter, so every
    // compare value is "already due" and the hardware fires at once. The alarm must re-arm,
    // not report the deadline.
    let clock = SimClock::new();
    clock.advance(10_000 * TICK_NS);
    let counter = SimCounter::new(&clock, 64, HZ);
    let time = Extended::new(&counter);
    struct Behind<'a, M: Monotonic>(&'a M);
    impl<M: Monotonic> Monotonic for Behind<'_, M> {
        fn now(&self) -> u64 {
            self.0.now() - 10_000
        }
        fn freq_hz(&self) -> u32 {
            self.0.freq_hz()
        }
    }
    let behind = Behind(&time);
    let event = SimClockEvent::new(&clock, HZ, 8, 1000).with_absolute();
    let probe = event.probe();
    let mut alarm = Alarm::new(event, &behind).unwrap();
    let deadline = behind.now() + 300;
    alarm.set_deadline(deadline).unwrap();
    assert!(probe.pending());
    assert!(matches!(alarm.on_interrupt(), Fired::Rearmed { .. }));
    assert_eq!(alarm.deadline(), Some(deadline));
}

/// A clockevent that counts its shutdowns.
struct CountsShutdowns {
    inner: SimClockEvent,
    shutdowns: u32,
}

impl ClockEvent for CountsShutdowns {
    fn capabilities(&self) -> hwtimer_core::clockevent::Capabilities {
        self.inner.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.inner.set_next_event(delta)
    }
    fn shutdown(&mut self) {
        self.shutdowns += 1;
        self.inner.shutdown()
    }
    fn ack(&mut self) -> bool {
        self.inner.ack()
    }
}

#[test]
fn cancel_quiets_a_channel_handed_over_armed_and_skips_one_known_quiet() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, HZ);
    let time = Extended::new(&counter);
    let mut inner = SimClockEvent::new(&clock, HZ, 8, 1_000_000);
    let probe = inner.probe();
    // Armed by a previous owner before the alarm takes it over.
    inner.set_next_event(1_000).unwrap();
    let event = CountsShutdowns {
        inner,
        shutdowns: 0,
    };
    let mut alarm = Alarm::new(event, &time).unwrap();
    alarm.cancel();
    assert_eq!(
        alarm.event().shutdowns,
        1,
        "the handed-over state is unknown"
    );
    assert_eq!(
        probe.next_fire_ns(),
        None,
        "and is quiet after the first cancel"
    );
    alarm.cancel();
    assert_eq!(
        alarm.event().shutdowns,
        1,
        "known quiet: no second register write"
    );
    alarm.set_delta(1_000).unwrap();
    alarm.cancel();
    assert_eq!(
        alarm.event().shutdowns,
        2,
        "an armed deadline is always stopped"
    );
    assert_eq!(probe.next_fire_ns(), None);
}
