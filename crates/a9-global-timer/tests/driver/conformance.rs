//! hwtimer-core's ClockEvent conformance suite on the global timer's comparator, for each
//! comparator rule the model has (r2p0+ `>=`, pre-r2p0 equality, QEMU's strict `>`),
//! absolute programming included (the counter is the time base).

use a9_global_timer::sim::{GtModel, GtSim, ModelRule};
use a9_global_timer::{CompareRule, Config, GlobalTimer};
use hwtimer_core::sim::conformance::{self, Channel};

const HZ: u32 = 100_000_000;

#[test]
fn comparator_conforms_under_every_compare_rule() {
    for (rule, compare, late) in [
        (ModelRule::GreaterOrEqual, CompareRule::GreaterOrEqual, 0),
        (ModelRule::Equal, CompareRule::Equal, 0),
        // QEMU fires once the counter is past the value: a tick late.
        (ModelRule::QemuGreater, CompareRule::GreaterOrEqual, 1),
    ] {
        let sim = GtSim::with_model(GtModel::new(HZ, rule), 100, 50);
        let gt = GlobalTimer::new(sim.bus(), Config::new(HZ).with_compare(compare)).unwrap();
        gt.start().unwrap();
        let time = gt.counter();
        let mut comparator = gt.comparator().unwrap();
        let bus = sim.bus();
        let line = || sim.irq_asserted();
        let writes = || bus.stats().writes;
        let ch = Channel {
            clock: sim.clock(),
            line: &line,
            writes: &writes,
            late_ticks: late,
            time: Some(&time),
        };
        let report = conformance::run(&mut comparator, &ch);
        assert!(
            report.compares == 13 && report.periods == 20,
            "{rule:?}: {report:?}"
        );
    }
}
