//! An Exynos4210 MCT system on the model: the FRC as the 64-bit time base (one MMIO read
//! per timestamp), comparator 0 driving the core's timer queue, local timer 0 behind an
//! alarm at half the rate, and a busy-wait delay on the FRC.

use embedded_hal::delay::DelayNs;
use exynos_mct::sim::MctModel;
use exynos_mct::{Config, Mct};
use family_tests::{assert_on_time, order, run_timers, start_timers};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{Alarm, Delay, Fired, HrTimers, Monotonic};

fn mct() -> (SimClock, SimBus<MctModel>) {
    let clock = SimClock::new();
    // Start just below a low-word carry so the scenario crosses it.
    let bus = SimBus::new(&clock, MctModel::exynos4210().with_frc(0xFFFF_F000));
    (clock, bus)
}

#[test]
fn comparator_drives_the_timer_queue_across_a_low_word_carry() {
    let (clock, bus) = mct();
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let alarm = Alarm::new(mct.comparator(0).unwrap(), &time).unwrap();
    let timers: HrTimers<_, _, 4> = HrTimers::new(alarm);
    let base = time.now();
    // 24 MHz: 10 µs = 240 ticks, 1 ms = 24 000, 5 ms = 120 000 (crosses 2^32).
    let offsets = [120_000u64, 240, 24_000];
    start_timers(&timers, base, &offsets);
    let ran = run_timers(&timers, offsets.len(), 10, || {
        let Some(due) = bus.model(|m| m.comparator_due_ns(clock.now_ns(), 0)) else {
            return false;
        };
        clock.advance_to(due);
        true
    });
    assert_eq!(order(&ran), vec![1, 2, 0]);
    assert_on_time(&ran, base, &offsets, 0x20);
    assert!(time.now() > 1 << 32, "the 64-bit time crossed the carry");
}

#[test]
fn local_timer_alarm_at_half_rate_is_never_early() {
    let (clock, bus) = mct();
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut alarm = Alarm::new(mct.local_timer(0).unwrap(), &time).unwrap();
    for wait in [0x20u64, 241, 24_001] {
        let deadline = time.now() + wait;
        alarm.set_deadline(deadline).unwrap();
        let fired = loop {
            let due = bus.model(|m| m.local_due_ns(0)).expect("armed");
            clock.advance_to(due);
            match alarm.on_interrupt() {
                Fired::Deadline { now, .. } => break now,
                Fired::Rearmed { .. } => continue,
                other => panic!("{other:?}"),
            }
        };
        assert!(fired >= deadline, "wait {wait}: early");
        // Late by the margin (one local tick = two FRC ticks) plus the programming time:
        // a local-timer set_next_event is a handful of buffered writes, each with its
        // write-status read and W1C (about 0.8 µs = 20 FRC ticks at the model's 100 ns per
        // read), before the counter starts.
        assert!(
            fired <= deadline + 32,
            "wait {wait}: late by {}",
            fired - deadline
        );
    }
}

#[test]
fn delay_on_the_frc_is_never_short() {
    let (clock, bus) = mct();
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut delay = Delay::new(mct.frc());
    for us in [1u32, 10, 100, 1000] {
        let t0 = clock.now_ns();
        delay.delay_us(us);
        let waited = clock.now_ns() - t0;
        assert!(waited >= u64::from(us) * 1000, "{us} µs took {waited} ns");
        // 24 MHz ticks are 41.7 ns; one 100 ns read of overshoot at most, plus +1 tick.
        assert!(
            waited <= u64::from(us) * 1000 + 2 * 42 + 200,
            "{us} µs took {waited} ns"
        );
    }
}
