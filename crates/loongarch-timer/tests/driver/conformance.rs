//! hwtimer-core's ClockEvent conformance suite on the LoongArch constant timer, with
//! Linux's `min_delta`, with this crate's default, and with `min_delta` 1 (so deltas of 1
//! to 16 ticks, where rounding up to InitVal's 4-tick granule matters most, are checked
//! for never firing early and at most 3 ticks late).

use hwtimer_core::sim::SimClock;
use hwtimer_core::sim::conformance::{self, Channel};
use loongarch_timer::sim::{LoongArchCore, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer};

#[test]
fn constant_timer_conforms() {
    for config in [
        Config::default(),
        Config::LINUX_0X600,
        Config::default().with_min_delta(1),
    ] {
        let clock = SimClock::new();
        let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
        let freq = ConstantClock::probe(&csr).unwrap();
        let mut timer = ConstantTimer::new(csr.clone(), freq, config).unwrap();
        let line = || csr.model(|m| m.ti_pending(clock.now_ns()));
        let writes = || csr.stats().writes;
        let ch = Channel {
            clock: &clock,
            line: &line,
            writes: &writes,
            // InitVal drops its low two bits: deltas are rounded up to a multiple of 4.
            late_ticks: 3,
            time: None,
        };
        let report = conformance::run(&mut timer, &ch);
        assert!(report.early_checked >= 12, "{config:?}: {report:?}");
        assert_eq!(report.periods, 20);
    }
}
