//! hwtimer-core's ClockEvent conformance suite on the Otto clockevent, on every SoC and on
//! every variant of the model's lost-interrupt quirk.

use hwtimer_core::sim::conformance::{self, Channel};
use otto_timer::sim::{LostIrqQuirk, OttoModel, OttoSim, SIM_READ_NS, SIM_WRITE_NS};
use otto_timer::{Config, OttoClockEvent, Soc};

#[test]
fn otto_clockevent_conforms() {
    for soc in [Soc::Rtl838x, Soc::Rtl839x, Soc::Rtl930x, Soc::Rtl931x] {
        for quirk in [
            LostIrqQuirk::CarriedIntoReload,
            LostIrqQuirk::CompletesOnResume,
            LostIrqQuirk::Off,
        ] {
            let sim = OttoSim::with_model(
                OttoModel::new(soc).with_lost_irq(quirk),
                SIM_READ_NS,
                SIM_WRITE_NS,
            );
            let bus = sim.bus();
            let mut event = OttoClockEvent::new(sim.bus(), &Config::new(soc), 0).unwrap();
            let line = || sim.irq_asserted(0);
            let writes = || bus.stats().writes;
            let ch = Channel {
                clock: sim.clock(),
                line: &line,
                writes: &writes,
                // The timer's own prescaler phase is unknown to the caller (one tick), and
                // the counter starts on the first prescaled edge after the start write.
                late_ticks: 2,
                time: None,
            };
            let report = conformance::run(&mut event, &ch);
            assert!(report.early_checked >= 15, "{soc:?} {quirk:?}: {report:?}");
        }
    }
}
