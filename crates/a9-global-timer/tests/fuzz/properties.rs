//! Property test: arbitrary register read-backs (garbage, values the hardware never
//! produces) and arbitrary call sequences. Nothing panics, every call stays within a read
//! bound, and a request outside the contract's range writes nothing.

use a9_global_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use a9_global_timer::compare::{HILOHI_MAX_READS, REARM_ATTEMPTS};
use a9_global_timer::sim::{GtModel, ModelRule};
use a9_global_timer::{CompareRule, Config, GlobalTimer};
use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{ClockEvent, ConfigError, Error};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Next(u64),
    Compare(u64),
    Periodic(u64),
    Ack,
    Shutdown,
    Read,
    Pending,
    Advance(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let delta = prop_oneof![
        0u64..4,
        any::<u32>().prop_map(u64::from),
        (u64::from(u32::MAX) - 2)..(u64::from(u32::MAX) + 3),
        any::<u64>(),
    ];
    prop_oneof![
        delta.clone().prop_map(Op::Next),
        any::<u64>().prop_map(Op::Compare),
        delta.prop_map(Op::Periodic),
        Just(Op::Ack),
        Just(Op::Shutdown),
        Just(Op::Read),
        Just(Op::Pending),
        any::<u32>().prop_map(Op::Advance),
    ]
}

/// The most reads one call can make: `ack` on a stale flag under the equality rule (flag,
/// counter, flag, counter, then up to REARM_ATTEMPTS checked arms of counter + flag, each
/// with the control reads of its disable and enable, and a final disable's).
const MAX_READS: u64 =
    (1 + HILOHI_MAX_READS * 2 + 1 + REARM_ATTEMPTS * (HILOHI_MAX_READS + 2 + 2) + 1) as u64;

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it (proptest's default looks in
    // tests/proptest-regressions/ once the binary has a main.rs).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(256))
    })]

    #[test]
    fn garbage_reads_never_panic_or_hang(
        equal in any::<bool>(),
        reads in proptest::collection::vec(any::<u32>(), 0..200),
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let (rule, model_rule) = if equal {
            (CompareRule::Equal, ModelRule::Equal)
        } else {
            (CompareRule::GreaterOrEqual, ModelRule::GreaterOrEqual)
        };
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, Faults::new(GtModel::new(100_000_000, model_rule)));
        bus.model(|m| m.inject(None, reads));
        let Ok(gt) = GlobalTimer::new(bus.clone(), Config::qemu().with_compare(rule)) else {
            return Ok(()); // garbage CONTROL "running at another prescaler": refused
        };
        // Garbage CONTROL may also say "running at another prescaler" at the start's read:
        // refused, nothing written; the comparator is driven all the same.
        bus.reset_stats();
        if gt.start().is_err() {
            prop_assert_eq!(bus.stats().writes, 0);
        }
        let mut cmp = gt.comparator().unwrap();
        for op in ops {
            bus.reset_stats();
            let in_range = |d: u64| (MIN_DELTA..=MAX_DELTA).contains(&d);
            match op {
                Op::Next(d) => {
                    let r = cmp.set_next_event(d);
                    if !in_range(d) {
                        prop_assert_eq!(r, Err(Error::from(ConfigError::DeltaOutOfRange)));
                        prop_assert_eq!(bus.stats().writes, 0);
                    }
                }
                Op::Compare(at) => {
                    let _ = cmp.set_compare(at);
                }
                Op::Periodic(p) => {
                    let r = cmp.set_periodic(p);
                    if !in_range(p) {
                        prop_assert_eq!(r, Err(Error::from(ConfigError::PeriodOutOfRange)));
                        prop_assert_eq!(bus.stats().writes, 0);
                    }
                }
                Op::Ack => {
                    let _ = cmp.ack();
                }
                Op::Shutdown => {
                    cmp.shutdown();
                    // The control read of the read-modify-write (+ the defmt flag read).
                    let defmt = u64::from(cfg!(feature = "defmt"));
                    prop_assert_eq!(bus.stats().reads, 1 + defmt);
                }
                Op::Read => {
                    let _ = gt.counter().read64();
                    prop_assert!(bus.stats().reads <= u64::from(HILOHI_MAX_READS));
                }
                Op::Pending => {
                    let _ = cmp.is_pending();
                }
                Op::Advance(ns) => clock.advance(u64::from(ns)),
            }
            prop_assert!(bus.stats().reads <= MAX_READS, "{} reads", bus.stats().reads);
        }
    }
}
