//! The heartbeat on the RTL838x Otto model: CPU 0's clockevent (timer 0) behind an `Alarm`
//! on the 28-bit clocksource (timer 2) extended to 64 bits, 3.125 MHz (320 ns per tick).

use heartbeat::{Beat, Heartbeat};
use hwtimer_core::sim::SimBus;
use hwtimer_core::{Alarm, ConfigError, Error, Extended, Monotonic};
use otto_timer::sim::OttoModel;
use otto_timer::sim::OttoSim;
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, PerCpu, Soc};

type Bus = SimBus<OttoModel>;

/// 1 ms at 3.125 MHz.
const PERIOD: u64 = 3_125;

/// Lateness a beat may have on the model: the Otto clockevent is not phase-locked to the
/// clocksource (one tick of margin), plus the tick the deadline falls in, plus the MMIO
/// reads of the handler (100 ns each on the model, well under a tick each).
const MAX_LATENESS: u64 = 3;

fn rig() -> (OttoSim, OttoClockEvent<Bus>, OttoClocksource<Bus>) {
    let sim = OttoSim::new(Soc::Rtl838x);
    // Linux's layout for two CPUs: timer 0 for CPU 0, timer 2 as the clocksource. CPU 1's
    // timer is not used; dropping it at the end of this function shuts timer 1 down.
    let PerCpu {
        cpus: [cpu0, _cpu1],
        clocksource,
    } = OttoTimers::new(sim.bus(), Config::new(Soc::Rtl838x))
        .unwrap()
        .per_cpu::<2>()
        .unwrap();
    (sim, cpu0.event, clocksource)
}

/// Starts a heartbeat on `event`; returns it with the origin of its grid (beat *k* is due at
/// `origin + k * PERIOD`). The origin is the heartbeat's own reading of the time in
/// `Heartbeat::start`: it is checked to lie between a reading just before and one just
/// after, but not taken from the one before, because the MMIO accesses of the set-up
/// between the two take virtual time and may cross a tick edge (where the edges fall
/// depends on every access before, e.g. dropping CPU 1's timer in `rig`).
fn start_on_grid<M: Monotonic>(
    event: OttoClockEvent<Bus>,
    time: M,
) -> (Heartbeat<OttoClockEvent<Bus>, M>, u64) {
    let before = time.now();
    let alarm = Alarm::new(event, time).unwrap();
    let hb = Heartbeat::start(alarm, PERIOD).unwrap();
    let origin = hb.next_deadline() - PERIOD;
    let after = hb.alarm().time().now();
    assert!(
        (before..=after).contains(&origin),
        "grid origin {origin} outside [{before}, {after}]"
    );
    (hb, origin)
}

/// Idles until timer 0 interrupts, then runs the handler.
fn next_beat<M: Monotonic>(sim: &OttoSim, hb: &mut Heartbeat<OttoClockEvent<Bus>, M>) -> Beat {
    sim.advance_to_next_irq(0).expect("the heartbeat is armed");
    loop {
        match hb.on_interrupt() {
            Beat::NotYet => {
                sim.advance_to_next_irq(0).expect("re-armed for the rest");
            }
            beat => return beat,
        }
    }
}

#[test]
fn beats_stay_on_the_grid_never_early() {
    let (sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let (mut hb, start) = start_on_grid(event, &time);
    for k in 1..=200u64 {
        match next_beat(&sim, &mut hb) {
            Beat::Due {
                index,
                deadline,
                lateness,
                missed,
            } => {
                assert_eq!(index, k);
                // On the grid: no drift, however late earlier beats were handled.
                assert_eq!(deadline, start + k * PERIOD, "beat {k}");
                assert!(time.now() >= deadline, "beat {k} early");
                assert!(lateness <= MAX_LATENESS, "beat {k}: {lateness} ticks late");
                assert_eq!(missed, 0);
            }
            other => panic!("beat {k}: {other:?}"),
        }
    }
    assert_eq!(hb.next_deadline(), start + 201 * PERIOD);
    assert_eq!(hb.missed(), 0);
}

#[test]
fn naive_rearming_drifts_where_the_heartbeat_does_not() {
    // The naive handler re-arms `period` from *now*: every beat's lateness adds up.
    let (sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let start = time.now();
    let mut alarm = Alarm::new(event, &time).unwrap();
    alarm.set_delta(PERIOD).unwrap();
    let mut last = 0;
    for _ in 0..200 {
        sim.advance_to_next_irq(0).unwrap();
        if let hwtimer_core::Fired::Deadline { now, .. } = alarm.on_interrupt() {
            last = now;
            alarm.set_delta(PERIOD).unwrap();
        }
    }
    let naive_drift = last - (start + 200 * PERIOD);
    // The same 200 beats through the heartbeat end within MAX_LATENESS of the grid.
    let (sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let mut hb = Heartbeat::start(Alarm::new(event, &time).unwrap(), PERIOD).unwrap();
    let mut lateness = u64::MAX;
    for _ in 0..200 {
        if let Beat::Due { lateness: l, .. } = next_beat(&sim, &mut hb) {
            lateness = l;
        }
    }
    assert!(lateness <= MAX_LATENESS);
    assert!(
        naive_drift >= 200,
        "naive re-arming drifted only {naive_drift} ticks over 200 beats"
    );
}

#[test]
fn a_late_handler_skips_missed_beats_and_stays_on_the_grid() {
    let (sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let (mut hb, start) = start_on_grid(event, &time);
    assert!(matches!(
        next_beat(&sim, &mut hb),
        Beat::Due { index: 1, .. }
    ));

    // Beat 2's interrupt is handled 3.5 periods late: beats 3, 4 and 5 have passed too.
    sim.advance_to_next_irq(0).unwrap();
    sim.clock().advance(PERIOD * 320 * 7 / 2);
    match hb.on_interrupt() {
        Beat::Due {
            index,
            deadline,
            lateness,
            missed,
        } => {
            assert_eq!((index, deadline, missed), (2, start + 2 * PERIOD, 3));
            assert!(lateness >= PERIOD * 7 / 2);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(hb.missed(), 3);
    // The next beat is 6, on the grid, in the future; nothing fires in a burst.
    assert_eq!(hb.next_deadline(), start + 6 * PERIOD);
    assert!(hb.next_deadline() > time.now());
    match next_beat(&sim, &mut hb) {
        Beat::Due {
            index,
            deadline,
            missed,
            ..
        } => assert_eq!((index, deadline, missed), (6, start + 6 * PERIOD, 0)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn spurious_interrupts_are_not_beats() {
    let (sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let mut hb = Heartbeat::start(Alarm::new(event, &time).unwrap(), PERIOD).unwrap();
    // Half a period in, no interrupt is pending: a shared line or a stale call.
    sim.clock().advance(PERIOD * 320 / 2);
    assert!(!sim.irq_asserted(0));
    assert_eq!(hb.on_interrupt(), Beat::NotYet);
    assert!(matches!(
        next_beat(&sim, &mut hb),
        Beat::Due {
            index: 1,
            missed: 0,
            ..
        }
    ));
}

#[test]
fn a_zero_period_is_rejected() {
    let (_sim, event, cs) = rig();
    let time = Extended::new(&cs);
    let alarm = Alarm::new(event, &time).unwrap();
    assert!(matches!(
        Heartbeat::start(alarm, 0),
        Err(Error::Config(ConfigError::PeriodOutOfRange))
    ));
}
