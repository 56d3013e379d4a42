//! Property tests over the model: arbitrary counter values, WSTAT behaviour and register
//! garbage never make the driver panic, and the 64-bit time never goes backwards.

use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Mct, UpperCache};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{ClockEvent, Monotonic};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Advance(u64),
    Now,
    Read64,
    Cached,
    Resync,
    CompOneshot(u64),
    CompPeriodic(u64),
    CompAck,
    CompShutdown,
    LocalOneshot(u64),
    LocalPeriodic(u64),
    LocalAck,
    Wstat(u8, u64),
    Force(u16, Option<u32>),
    LoadFrc(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u64..100_000_000_000).prop_map(Op::Advance),
        Just(Op::Now),
        Just(Op::Read64),
        Just(Op::Cached),
        Just(Op::Resync),
        any::<u64>().prop_map(Op::CompOneshot),
        any::<u64>().prop_map(Op::CompPeriodic),
        Just(Op::CompAck),
        Just(Op::CompShutdown),
        any::<u64>().prop_map(Op::LocalOneshot),
        any::<u64>().prop_map(Op::LocalPeriodic),
        Just(Op::LocalAck),
        (0u8..3, 0u64..20_000).prop_map(|(m, d)| Op::Wstat(m, d)),
        (0u16..0x120, proptest::option::of(any::<u32>())).prop_map(|(o, v)| Op::Force(o * 4, v)),
        any::<u64>().prop_map(Op::LoadFrc),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_time_never_goes_backwards(
        start in any::<u64>(),
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, MctModel::exynos4210().with_frc(start));
        let Ok(mct) = Mct::new(bus.clone(), Config::default()) else { return Ok(()); };
        let _ = mct.start_frc();
        let time = mct.time();
        let cache = UpperCache::new();
        let mut comp = mct.comparator(0).ok();
        let mut local = mct.local_timer(0).ok();
        let mut last = time.now();
        for op in ops {
            match op {
                Op::Advance(ns) => clock.advance(ns),
                Op::Now => {}
                Op::Read64 => { mct.frc().read64(); }
                Op::Cached => { mct.frc().read64_cached_upper(&cache); }
                Op::Resync => { time.resync(); }
                Op::CompOneshot(d) => if let Some(c) = comp.as_mut() { let _ = c.set_next_event(d); },
                Op::CompPeriodic(d) => if let Some(c) = comp.as_mut() { let _ = c.set_periodic(d); },
                Op::CompAck => if let Some(c) = comp.as_mut() { c.ack(); },
                Op::CompShutdown => if let Some(c) = comp.as_mut() { c.shutdown(); },
                Op::LocalOneshot(d) => if let Some(l) = local.as_mut() { let _ = l.set_next_event(d); },
                Op::LocalPeriodic(d) => if let Some(l) = local.as_mut() { let _ = l.set_periodic(d); },
                Op::LocalAck => if let Some(l) = local.as_mut() { l.ack(); },
                Op::Wstat(m, d) => bus.model(|model| model.set_wstat_mode(match m {
                    0 => WstatMode::Immediate,
                    1 => WstatMode::Delay(d),
                    _ => WstatMode::Stuck,
                })),
                Op::Force(o, v) => bus.model(|model| model.force_read(usize::from(o), v)),
                Op::LoadFrc(v) => { let _ = mct.load_frc(v); }
            }
            let t = time.now();
            prop_assert!(t >= last, "time went back: {last} -> {t}");
            last = t;
        }
    }
}
