//! Property test: the driver, fed arbitrary register read-backs by the model and driven
//! by arbitrary operations, never panics and never programs a delta outside
//! `MIN_DELTA..=MAX_DELTA`.

use hwtimer_core::{Alarm, ClockEvent, Clocksource, Error, Extended, Monotonic};
use otto_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use otto_timer::regs::COUNTER_MASK;
use otto_timer::sim::{OttoModel, OttoSim};
use otto_timer::{Config, OttoClockEvent, OttoClocksource, Soc};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Deadline(u64),
    DeadlineOrMin(u64),
    Delta(u64),
    Periodic(u64),
    Raw(u64),
    RawPeriodic(u64),
    Interrupt,
    Ack,
    Shutdown,
    Advance(u64),
    Read,
}

fn op() -> impl Strategy<Value = Op> {
    let wait = prop_oneof![0u64..64, 0u64..2_000_000, any::<u64>()];
    prop_oneof![
        wait.clone().prop_map(Op::Deadline),
        wait.clone().prop_map(Op::DeadlineOrMin),
        wait.clone().prop_map(Op::Delta),
        wait.clone().prop_map(Op::Periodic),
        wait.clone().prop_map(Op::Raw),
        wait.prop_map(Op::RawPeriodic),
        Just(Op::Interrupt),
        Just(Op::Ack),
        Just(Op::Shutdown),
        prop_oneof![0u64..10_000, 0u64..100_000_000_000].prop_map(Op::Advance),
        Just(Op::Read),
    ]
}

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it (proptest's default looks in
    // tests/proptest-regressions/ once the binary has a main.rs).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(512))
    })]

    #[test]
    fn never_panics_never_programs_out_of_range(
        soc in prop_oneof![Just(Soc::Rtl838x), Just(Soc::Rtl930x), Just(Soc::Rtl931x)],
        reads in proptest::collection::vec(any::<u32>(), 0..64),
        ops in proptest::collection::vec(op(), 1..64),
    ) {
        let sim = OttoSim::with_model(OttoModel::new(soc), 100, 50);
        let config = Config::new(soc);
        let cs = OttoClocksource::new(sim.bus(), &config, 2).unwrap();
        let time = Extended::new(&cs);
        let ev = OttoClockEvent::new(sim.bus(), &config, 0).unwrap();
        let mut alarm = Alarm::new(ev, &time).unwrap();
        // From here on, reads return garbage until the injected values run out.
        sim.model(|m| m.inject_reads(reads.iter().copied()));
        for op in &ops {
            let r = match *op {
                Op::Deadline(w) => alarm.set_deadline(time.now().saturating_add(w)).map(|_| ()),
                Op::DeadlineOrMin(w) => alarm.set_deadline_or_min(time.now().saturating_add(w)).map(|_| ()),
                Op::Delta(w) => alarm.set_delta(w).map(|_| ()),
                Op::Periodic(p) => alarm.set_periodic(p),
                Op::Raw(d) => {
                    let r = alarm.event_mut().set_next_event(d);
                    prop_assert_eq!(r.is_ok(), (MIN_DELTA..=MAX_DELTA).contains(&d));
                    r
                }
                Op::RawPeriodic(d) => {
                    let r = alarm.event_mut().set_periodic(d);
                    prop_assert_eq!(r.is_ok(), (MIN_DELTA..=MAX_DELTA).contains(&d));
                    r
                }
                Op::Interrupt => { let _ = alarm.on_interrupt(); Ok(()) }
                Op::Ack => { alarm.event_mut().ack(); Ok(()) }
                Op::Shutdown => { alarm.cancel(); Ok(()) }
                Op::Advance(ns) => { sim.clock().advance(ns); Ok(()) }
                Op::Read => {
                    prop_assert!(cs.read() <= u64::from(COUNTER_MASK));
                    Ok(())
                }
            };
            match r {
                Ok(()) | Err(Error::Config(_)) | Err(Error::DeadlinePassed { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected error {:?}", e),
            }
        }
        // Every target the clockevent ever loaded (its DATA writes) is a legal delta, and
        // every start at the real divisor used one.
        let s = sim.stats(0);
        for d in &s.data_writes {
            prop_assert!((MIN_DELTA..=MAX_DELTA).contains(&u64::from(*d)), "DATA = {:#x}", d);
        }
        for st in s.starts.iter().filter(|st| st.divisor != 0xFFFF) {
            prop_assert!((MIN_DELTA..=MAX_DELTA).contains(&u64::from(st.data)), "{:?}", st);
            prop_assert_eq!(st.divisor, config.divisor().unwrap());
        }
        prop_assert_eq!(s.cnt_writes, 0);
    }
}
