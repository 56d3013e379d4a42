//! hwtimer-core's ClockEvent conformance suite on every MCT channel: the four global
//! comparators (absolute programming against the Mct's time base included) and both local
//! timers, with the driver configured for the model (`MctModel::driver_config`).

use exynos_mct::Mct;
use exynos_mct::sim::MctModel;
use hwtimer_core::sim::conformance::{self, Channel};
use hwtimer_core::sim::{SimBus, SimClock};

fn block() -> (SimClock, SimBus<MctModel>, Mct<SimBus<MctModel>>) {
    let clock = SimClock::new();
    let model = MctModel::exynos4210();
    let config = model.driver_config();
    let bus = SimBus::new(&clock, model);
    let mct = Mct::new(bus.clone(), config).unwrap();
    mct.start_frc().unwrap();
    (clock, bus, mct)
}

/// The suite on one channel whose interrupt line is `line`, `late_ticks` as the suite
/// takes it.
fn conforms<E: hwtimer_core::ClockEvent>(
    clock: &SimClock,
    bus: &SimBus<MctModel>,
    channel: &mut E,
    line: &dyn Fn() -> bool,
    late_ticks: u64,
    time: Option<&dyn hwtimer_core::Monotonic>,
) -> conformance::Report {
    let writes = || bus.stats().writes;
    let ch = Channel {
        clock,
        line,
        writes: &writes,
        late_ticks,
        time,
    };
    conformance::run(channel, &ch)
}

#[test]
fn every_comparator_conforms() {
    for n in 0..4 {
        let (clock, bus, mct) = block();
        let time = mct.time();
        let mut comparator = mct.comparator(n).unwrap();
        let line = || bus.model(|m| m.comparator_line(clock.now_ns(), n));
        // A value the FRC passes while it is written is re-armed MIN_DELTA beyond the
        // re-programming: late, never lost.
        let report = conforms(&clock, &bus, &mut comparator, &line, 4, Some(&time));
        assert_eq!(
            (report.compares, report.periods),
            (13, 20),
            "G{n}: {report:?}"
        );
    }
}

#[test]
fn every_local_timer_conforms() {
    for i in 0..2 {
        let (clock, bus, mct) = block();
        let mut local = mct.local_timer(i).unwrap();
        let line = || bus.model(|m| m.local_line(clock.now_ns(), i));
        // The local prescaler's phase against the caller's clock: one tick.
        let report = conforms(&clock, &bus, &mut local, &line, 2, None);
        assert_eq!(report.periods, 20, "L{i}: {report:?}");
    }
}
