//! Property tests over the model: arbitrary counter values, WSTAT behaviour and register
//! garbage never make the driver panic or hang, the 64-bit time never goes backwards, a
//! delta inside the range is armed never early, and one outside it is refused without a
//! write. Without garbage (which, once forced, stays for the rest of the case), an arm
//! that returned `Ok` is what the block holds (a local timer runs, the comparator holds
//! the programmed value), and the block never drops a write of the driver, also when
//! acknowledgements come after their wait gave up.
//!
//! Deltas are drawn **inside** `[MIN_DELTA, max_delta]` for the arming operations (so the
//! arm path runs on nearly every draw) and, separately, **outside** it for the refusal
//! checks; `any::<u64>()` would land in range with a probability of 2^-33.

use exynos_mct::clockevent::{COMP_MAX_DELTA, LOCAL_MAX_DELTA, MIN_DELTA};
use exynos_mct::sim::seed::{self, UpperCache};
use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Mct};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{ClockEvent, ConfigError, Error, Monotonic};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

#[derive(Debug, Clone)]
enum Op {
    Advance(u64),
    Now,
    Read64,
    Cached,
    Resync,
    CompOneshot(u64),
    CompPeriodic(u64),
    CompCompare(u64),
    CompOutOfRange(u64),
    CompAck,
    CompShutdown,
    LocalOneshot(u64),
    LocalPeriodic(u64),
    LocalOutOfRange(u64),
    LocalAck,
    LocalShutdown,
    Wstat(u8, u64),
    Force(u16, Option<u32>),
}

/// A delta in `[MIN_DELTA, max]`, biased to both ends and short values (where the
/// programming time, clamping and re-arming live).
fn in_range(max: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        MIN_DELTA..MIN_DELTA + 64,
        MIN_DELTA..=100_000,
        MIN_DELTA..=max,
        (max - 64)..=max,
    ]
}

/// A delta outside `[MIN_DELTA, max]`.
fn out_of_range(max: u64) -> impl Strategy<Value = u64> {
    prop_oneof![0..MIN_DELTA, (max + 1)..=u64::MAX, Just(u64::MAX)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u64..100_000_000_000).prop_map(Op::Advance),
        (0u64..200_000).prop_map(Op::Advance),
        Just(Op::Now),
        Just(Op::Read64),
        Just(Op::Cached),
        Just(Op::Resync),
        in_range(COMP_MAX_DELTA).prop_map(Op::CompOneshot),
        in_range(COMP_MAX_DELTA).prop_map(Op::CompPeriodic),
        (0u64..2 * COMP_MAX_DELTA).prop_map(Op::CompCompare),
        out_of_range(COMP_MAX_DELTA).prop_map(Op::CompOutOfRange),
        Just(Op::CompAck),
        Just(Op::CompShutdown),
        in_range(LOCAL_MAX_DELTA).prop_map(Op::LocalOneshot),
        in_range(LOCAL_MAX_DELTA).prop_map(Op::LocalPeriodic),
        out_of_range(LOCAL_MAX_DELTA).prop_map(Op::LocalOutOfRange),
        Just(Op::LocalAck),
        Just(Op::LocalShutdown),
        // Delays up to three wait bounds (`timeout_ns` 20 µs): an acknowledgement that
        // comes after its wait gave up, within the next wait or the one after it.
        (0u8..3, 0u64..60_000).prop_map(|(m, d)| Op::Wstat(m, d)),
        (0u16..0x120, proptest::option::of(any::<u32>())).prop_map(|(o, v)| Op::Force(o * 4, v)),
    ]
}

/// The bounds of a test run: short waits, so a stuck block costs few reads.
fn config() -> Config {
    Config {
        wstat: exynos_mct::WstatConfig {
            timeout_ns: 20_000,
            max_polls: 200,
        },
        local_icntb_plus_one: true,
        ..Config::default()
    }
}

/// The most reads any single call may make with [`config`]: a few waits, each bounded.
const MAX_READS_PER_OP: u64 = 8 * (2 * 200 + 5) + 64;

/// After a oneshot comparator arm that returned `Ok`: the block holds what the driver
/// believes it programmed, enabled (a write the block dropped while the driver took an
/// older acknowledgement for its own would show here: an old compare value, early or lost).
fn hardware_holds(bus: &SimBus<MctModel>, programmed: u64) -> Result<(), TestCaseError> {
    let (value, enabled) = bus.model(|m| (m.comparator_value(0), m.comparator_enabled(0)));
    prop_assert_eq!(
        value,
        Some(programmed),
        "G_COMP0 differs from the value the driver programmed"
    );
    prop_assert!(enabled, "comparator armed but not enabled in G_TCON");
    Ok(())
}

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
    fn never_panics_never_hangs_never_early_and_time_never_goes_backwards(
        start in any::<u64>(),
        epochs in proptest::collection::vec(
            (proptest::option::of(any::<u64>()), proptest::collection::vec(op(), 1..30)),
            1..3,
        ),
    ) {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, MctModel::exynos4210().with_frc(start));
        let Ok(mut mct) = Mct::new(bus.clone(), config()) else { return Ok(()); };
        let _ = mct.start_frc();
        // Garbage stays in the model (`force_read`) until the case ends, so the flag does too.
        let mut forced = false;
        for (load, ops) in epochs {
            if let Some(v) = load {
                // `&mut Mct`: nothing is lent out across the jump.
                let _ = mct.load_frc(v);
            }
            let time = mct.time();
            let cache = UpperCache::new();
            let mut comp = mct.comparator(0).ok();
            let mut local = mct.local_timer(0).ok();
            let mut last = time.now();
            for op in ops {
                let truth = bus.model(|m| m.frc_value(clock.now_ns()));
                let t0 = clock.now_ns();
                bus.reset_stats();
                let before_writes = 0;
                match op {
                    Op::Advance(ns) => clock.advance(ns),
                    Op::Now => {}
                    Op::Read64 => { mct.frc().read64(); }
                    Op::Cached => { seed::read64_cached_upper(&mct.frc(), &cache); }
                    Op::Resync => { time.resync(); }
                    Op::CompOneshot(d) => if let Some(c) = comp.as_mut()
                        && c.set_next_event(d).is_ok()
                        && !forced
                    {
                        let ahead = c.programmed().wrapping_sub(truth);
                        prop_assert!(ahead >= d, "comparator armed {ahead} ticks ahead for {d}");
                        hardware_holds(&bus, c.programmed())?;
                    },
                    Op::CompPeriodic(d) => if let Some(c) = comp.as_mut()
                        && c.set_periodic(d).is_ok()
                        && !forced
                    {
                        let ahead = c.programmed().wrapping_sub(truth);
                        prop_assert!(ahead >= d, "periodic comparator armed {ahead} ticks ahead for {d}");
                    },
                    Op::CompCompare(ahead) => if let Some(c) = comp.as_mut() {
                        let at = time.now().saturating_add(ahead);
                        if c.set_compare(at).is_ok() && !forced {
                            let floor = at.min(truth.saturating_add(MIN_DELTA));
                            prop_assert!(c.programmed() >= floor, "set_compare({at}) armed at {}", c.programmed());
                            hardware_holds(&bus, c.programmed())?;
                        }
                    },
                    Op::CompOutOfRange(d) => if let Some(c) = comp.as_mut() {
                        refuses(c, d, &bus, before_writes)?;
                    },
                    Op::CompAck => if let Some(c) = comp.as_mut() { c.ack(); },
                    Op::CompShutdown => if let Some(c) = comp.as_mut() { c.shutdown(); },
                    Op::LocalOneshot(d) => if let Some(l) = local.as_mut()
                        && l.set_next_event(d).is_ok()
                        && !forced
                    {
                        // 12 MHz: d ticks take d * 1e9 / 12e6 ns after the call began.
                        let due = bus.model(|m| m.local_due_ns(0));
                        prop_assert!(due.is_some(), "local timer armed for {d} ticks but not running");
                        let due = due.unwrap_or(0);
                        let least = d * 1_000_000_000 / 12_000_000;
                        prop_assert!(due >= t0 + least, "local timer due {} ns after the call for {d} ticks", due as i128 - t0 as i128);
                    },
                    Op::LocalPeriodic(d) => if let Some(l) = local.as_mut() {
                        let _ = l.set_periodic(d);
                    },
                    Op::LocalOutOfRange(d) => if let Some(l) = local.as_mut() {
                        refuses(l, d, &bus, before_writes)?;
                    },
                    Op::LocalAck => if let Some(l) = local.as_mut() { l.ack(); },
                    Op::LocalShutdown => if let Some(l) = local.as_mut() { l.shutdown(); },
                    Op::Wstat(m, d) => bus.model(|model| model.set_wstat_mode(match m {
                        0 => WstatMode::Immediate,
                        1 => WstatMode::Delay(d),
                        _ => WstatMode::Stuck,
                    })),
                    Op::Force(o, v) => {
                        forced |= v.is_some();
                        bus.model(|model| model.force_read(usize::from(o), v));
                    }
                }
                prop_assert!(bus.stats().reads <= MAX_READS_PER_OP, "{} reads in one call", bus.stats().reads);
                // Without garbage the driver never writes a register whose last write is
                // unacknowledged (the block would drop it, and the late bit could end the
                // new wait): the mechanism behind every early or lost event above.
                if !forced {
                    prop_assert_eq!(bus.model(|m| m.lost_writes()), 0, "the block dropped a write");
                }
                let t = time.now();
                prop_assert!(t >= last, "time went back: {last} -> {t}");
                last = t;
            }
        }
    }
}

/// An out-of-range `d` is refused as a delta and as a period, with the cause named and
/// nothing written.
fn refuses(
    ch: &mut impl ClockEvent,
    d: u64,
    bus: &SimBus<MctModel>,
    before_writes: u64,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        ch.set_next_event(d),
        Err(Error::Config(ConfigError::DeltaOutOfRange))
    );
    prop_assert_eq!(
        ch.set_periodic(d),
        Err(Error::Config(ConfigError::PeriodOutOfRange))
    );
    prop_assert_eq!(
        bus.stats().writes,
        before_writes,
        "refused delta {} wrote",
        d
    );
    Ok(())
}

/// The strategy itself: in-range draws arm (the property above would test nothing if they
/// did not). 1000 draws, each armed on a fresh comparator and local timer.
#[test]
fn in_range_draws_arm_the_hardware() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    let mut local = mct.local_timer(0).unwrap();
    let (mut comp_ok, mut local_ok) = (0, 0);
    for _ in 0..1000 {
        let d = in_range(COMP_MAX_DELTA)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        comp_ok += u32::from(comp.set_next_event(d).is_ok());
        let d = in_range(LOCAL_MAX_DELTA)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        local_ok += u32::from(local.set_next_event(d).is_ok());
    }
    assert_eq!((comp_ok, local_ok), (1000, 1000));
    let outside = out_of_range(COMP_MAX_DELTA);
    for _ in 0..1000 {
        let d = outside.new_tree(&mut runner).unwrap().current();
        assert_eq!(
            comp.set_next_event(d),
            Err(Error::Config(ConfigError::DeltaOutOfRange)),
            "{d}"
        );
    }
}
