//! The driver against the behavioural model, checked against the reference facts
//! (`docs/exynos-mct.md`): 24 MHz, hi-lo-hi, WSTAT protocol, comparator and
//! local-timer semantics. Virtual time only. What hwtimer-core's conformance suite proves on
//! every channel (range, never early, ack, shutdown, the pending-status rule, periodic,
//! absolute compares: `tests/driver/conformance.rs`) is not repeated here.

use exynos_mct::clockevent::{COMP_MAX_DELTA, MIN_DELTA};
use exynos_mct::sim::seed::{self, UpperCache};
use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Mct};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{Alarm, ClockEvent, Clocksource, Error, Fired, Monotonic, RegisterBus};

const HZ: u64 = 24_000_000;

fn setup(model: MctModel) -> (SimClock, SimBus<MctModel>) {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, model);
    (clock, bus)
}

fn truth(bus: &SimBus<MctModel>) -> u64 {
    let now = bus.clock().now_ns();
    bus.model(|m| m.frc_value(now))
}

#[test]
fn frc_counts_at_24mhz_once_started() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    assert_eq!(mct.freq_hz(), 24_000_000);
    assert_eq!(
        mct.frc().read64(),
        0,
        "FRC must not run before G_TCON bit 8"
    );
    mct.start_frc().unwrap();
    let t0 = clock.now_ns();
    let a = mct.frc().read64();
    clock.advance(1_000_000_000);
    let b = mct.frc().read64();
    let dt = clock.now_ns() - t0; // includes the bus time of the reads
    let expect = dt * HZ / 1_000_000_000;
    assert!(
        b - a <= expect && b - a + 8 >= expect,
        "{a} -> {b}, expected ~{expect}"
    );
}

#[test]
fn hilohi_and_cached_upper_are_exact_across_carries_where_a_naive_read_tears() {
    let mut torn = 0;
    for back in 0..40u64 {
        let (_clock, bus) = setup(MctModel::exynos4210().with_frc((5 << 32) - back));
        let mct = Mct::new(bus.clone(), Config::default()).unwrap();
        mct.start_frc().unwrap();
        let frc = mct.frc();
        // Naive lo-then-hi (what hi-lo-hi exists to avoid).
        let before = truth(&bus);
        let naive = seed::read64_lo_hi(&frc);
        let after = truth(&bus);
        if naive < before || naive > after {
            torn += 1;
        }
        for _ in 0..2 {
            let before = truth(&bus);
            let v = frc.read64();
            let after = truth(&bus);
            assert!(
                before <= v && v <= after,
                "hi-lo-hi {v:#x} outside [{before:#x}, {after:#x}]"
            );
        }
        let cache = UpperCache::new();
        for _ in 0..3 {
            let before = truth(&bus);
            let v = seed::read64_cached_upper(&frc, &cache);
            let after = truth(&bus);
            assert!(
                before <= v && v <= after,
                "cached {v:#x} outside [{before:#x}, {after:#x}]"
            );
        }
    }
    assert!(
        torn > 0,
        "the model must be able to tear a naive read at a carry"
    );
}

#[test]
fn read_costs_one_three_and_two_mmio_reads() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let cache = UpperCache::new();
    seed::read64_cached_upper(&mct.frc(), &cache);
    clock.advance(1_000_000);
    let count = |f: &dyn Fn()| {
        bus.reset_stats();
        f();
        bus.stats().reads
    };
    assert_eq!(
        count(&|| {
            mct.frc().read();
        }),
        1
    );
    assert_eq!(
        count(&|| {
            time.now();
        }),
        1
    );
    assert_eq!(
        count(&|| {
            mct.frc().read64();
        }),
        3
    );
    assert_eq!(
        count(&|| {
            seed::read64_cached_upper(&mct.frc(), &cache);
        }),
        2
    );
}

#[test]
fn frc_time_tracks_the_hardware_count_across_wraps_and_never_goes_back() {
    let (clock, bus) = setup(MctModel::exynos4210().with_frc(0x7_FFFF_0000));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut last = time.now();
    // Read every 80 s (< 89.48 s, the half-wrap precondition) for 20 wraps.
    for _ in 0..(20 * 179 / 80) {
        clock.advance(80_000_000_000);
        let before = truth(&bus);
        let t = time.now();
        let after = truth(&bus);
        assert!(t >= last);
        assert!(
            before <= t && t <= after,
            "{t:#x} not in [{before:#x}, {after:#x}]"
        );
        last = t;
    }
}

#[test]
fn broken_precondition_loses_wraps_but_stays_monotonic_and_resync_repairs() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let t0 = time.now();
    clock.advance(200_000_000_000); // 200 s > one 32-bit wrap (178.96 s)
    let t1 = time.now();
    assert!(t1 >= t0);
    assert!(truth(&bus) - t1 >= 1 << 32, "one wrap must be lost");
    let t2 = time.resync();
    assert!(t2 >= t1 && truth(&bus) - t2 < 100);
}

#[test]
fn wstat_delay_is_waited_for_and_no_write_is_lost() {
    let (clock, bus) = setup(MctModel::exynos4210().with_wstat(WstatMode::Delay(3_000)));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    let polls = mct.start_frc().unwrap();
    assert!(polls > 1);
    let mut comp = mct.comparator(0).unwrap();
    comp.set_next_event(24_000).unwrap();
    comp.set_periodic(24_000).unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    l0.set_next_event(1_000).unwrap();
    l0.set_next_event(2_000).unwrap();
    assert_eq!(bus.model(|m| m.lost_writes()), 0);
    // Every acknowledgement was waited for and cleared (W1C): no status bit is left set.
    clock.advance(10_000);
    assert_eq!(bus.read_word(0x24C), 0, "G_WSTAT");
    assert_eq!(bus.read_word(0x110), 0, "G_CNT_WSTAT");
    assert_eq!(bus.read_word(0x340), 0, "L0_WSTAT");
    // And the writes took effect: the periodic comparator fires every 24 000 ticks.
    let first = comp.read_compare();
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .unwrap();
    clock.advance_to(due);
    assert!(comp.ack());
    assert_eq!(comp.read_compare(), first + 24_000);
    let due = bus.model(|m| m.local_due_ns(0)).unwrap();
    clock.advance_to(due);
    assert!(l0.ack());
}

#[test]
fn stuck_wstat_is_a_timeout_not_a_hang_and_never_before_the_deadline() {
    // Before the FRC runs: bounded by iterations.
    let (_clock, bus) = setup(MctModel::exynos4210().with_wstat(WstatMode::Stuck));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    bus.reset_stats();
    assert_eq!(mct.start_frc(), Err(Error::Timeout));
    let reads = bus.stats().reads;
    let max = u64::from(Config::default().wstat.max_polls);
    assert!(reads >= max && reads <= max + 4, "{reads} reads");

    // With the FRC running: bounded by 1 ms of FRC time, measured in virtual time.
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Stuck));
    let mut comp = mct.comparator(0).unwrap();
    let t0 = clock.now_ns();
    assert_eq!(comp.set_next_event(1000), Err(Error::Timeout));
    let waited = clock.now_ns() - t0;
    assert!(waited >= 1_000_000, "timed out after {waited} ns < 1 ms");
    assert!(waited < 1_100_000, "{waited} ns");
}

#[test]
fn comparator_oneshot_fires_at_now_plus_delta_never_early() {
    for delta in [MIN_DELTA, 0x100, 24_000, 1 << 30, COMP_MAX_DELTA] {
        let (clock, bus) = setup(MctModel::exynos4210().with_frc(0xFFFF_0000));
        let mct = Mct::new(bus.clone(), Config::default()).unwrap();
        mct.start_frc().unwrap();
        let mut comp = mct.comparator(0).unwrap();
        let start = truth(&bus);
        comp.set_next_event(delta).unwrap();
        assert!(comp.programmed() >= start + delta);
        let due = bus
            .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
            .unwrap();
        clock.advance_to(due - 1);
        assert!(!comp.is_pending(), "delta {delta}: early");
        clock.advance_to(due);
        assert!(truth(&bus) >= start + delta);
        assert!(comp.ack(), "delta {delta}: not fired at its due time");
        assert!(!comp.ack());
        // Oneshot: no second match.
        clock.advance(2_000_000_000);
        assert!(!comp.is_pending());
    }
}

#[test]
fn comparator_periodic_uses_add_incr_without_drift() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    comp.set_periodic(2_400).unwrap();
    let first = comp.read_compare();
    for k in 1..=10u64 {
        let due = bus
            .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
            .unwrap();
        clock.advance_to(due + 7_000); // late handler: must not shift the next period
        assert!(comp.ack());
        assert_eq!(comp.read_compare(), first + 2_400 * k);
    }
    comp.shutdown();
    clock.advance(1_000_000);
    assert!(!comp.is_pending());
}

#[test]
fn a_comparator_passed_during_slow_programming_is_rearmed_not_lost() {
    // Each acknowledgement takes 1 us; min_delta is 0xF = 625 ns: the first value is passed
    // before the enable lands.
    let (clock, bus) = setup(MctModel::exynos4210().with_wstat(WstatMode::Delay(1_000)));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    let start = truth(&bus);
    comp.set_next_event(MIN_DELTA).unwrap();
    let programmed = comp.programmed();
    assert!(programmed >= start + MIN_DELTA);
    let due = bus.model(|m| m.comparator_due_ns(clock.now_ns(), 0));
    match due {
        Some(t) => clock.advance_to(t),
        None => assert!(comp.is_pending(), "neither armed ahead nor fired: lost"),
    }
    assert!(comp.ack());
}

#[test]
fn local_timer_runs_at_half_the_frc_and_oneshot_stops_in_ack() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    assert_eq!(l0.capabilities().freq_hz, 12_000_000);
    for delta in [MIN_DELTA, 1_200, 100_000] {
        let t0 = clock.now_ns();
        l0.set_next_event(delta).unwrap();
        let due = bus.model(|m| m.local_due_ns(0)).unwrap();
        // Never early: at least `delta` ticks of 12 MHz after the call began.
        assert!(due - t0 >= delta * 1_000_000_000 / 12_000_000);
        clock.advance_to(due - 1);
        assert!(!l0.is_pending());
        clock.advance_to(due);
        assert!(l0.ack());
        // Interval mode keeps reloading on hardware: the ack stopped it.
        clock.advance(delta * 500);
        assert!(!l0.is_pending(), "oneshot re-fired");
    }
    l0.set_periodic(1_200).unwrap();
    let fires0 = bus.model(|m| m.local_fires(0));
    for _ in 0..5 {
        let due = bus.model(|m| m.local_due_ns(0)).unwrap();
        clock.advance_to(due);
        assert!(l0.ack());
    }
    assert_eq!(bus.model(|m| m.local_fires(0)) - fires0, 5);
}

#[test]
fn alarm_on_comparator_and_frc_time_is_never_early() {
    let (clock, bus) = setup(MctModel::exynos4210().with_frc(0xFFFF_F000));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let comp = mct.comparator(0).unwrap();
    let mut alarm = Alarm::new(comp, &time).unwrap();
    // 3 minutes: longer than max_delta, so the alarm steps.
    let deadline = time.now() + 180 * HZ;
    alarm.set_deadline(deadline).unwrap();
    loop {
        let due = bus
            .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
            .expect("armed");
        clock.advance_to(due);
        match alarm.on_interrupt() {
            Fired::Deadline { deadline: d, now } => {
                assert!(now >= d && truth(&bus) >= d);
                break;
            }
            Fired::Rearmed { now } => assert!(now < deadline),
            other => panic!("{other:?}"),
        }
    }
}

/// Every channel acknowledges its own status and only its own: comparators 0–3 in
/// `G_INT_CSTAT` bits 0–3, local timers 0 and 1 in their own `L_INT_CSTAT`.
#[test]
fn every_comparator_and_local_timer_acks_its_own_status() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut comps: Vec<_> = (0..4).map(|n| mct.comparator(n).unwrap()).collect();
    let mut locals: Vec<_> = (0..2).map(|i| mct.local_timer(i).unwrap()).collect();
    for k in 0..comps.len() {
        comps[k].set_next_event(2_400).unwrap();
        clock.advance(200_000);
        for (j, c) in comps.iter().enumerate() {
            assert_eq!(c.is_pending(), j == k, "comparator {j} while {k} fired");
        }
        assert!(bus.model(|m| m.comparator_line(clock.now_ns(), k)));
        assert!(comps[k].ack());
        assert!(!comps[k].ack());
        assert!(!bus.model(|m| m.comparator_line(clock.now_ns(), k)));
    }
    for k in 0..locals.len() {
        locals[k].set_next_event(1_200).unwrap();
        clock.advance(200_000);
        for (j, l) in locals.iter().enumerate() {
            assert_eq!(l.is_pending(), j == k, "local timer {j} while {k} fired");
        }
        assert!(locals[k].ack());
        assert!(!locals[k].ack());
        assert!(!bus.model(|m| m.local_line(clock.now_ns(), k)));
    }
}

/// The model counts `L_ICNTB + 1` ticks per interval, as QEMU does. Told so
/// (`local_icntb_plus_one`), the driver programs exact intervals; by default it writes the
/// delta unchanged, as Linux does, and is one tick late per interval, never early.
#[test]
fn local_timer_interval_is_exact_when_told_the_platform_counts_icntb_plus_one() {
    // 1200 ticks at 12 MHz = 100 µs; one tick = 83.3 ns.
    for (config, want_ns) in [
        (MctModel::exynos4210().driver_config(), 100_000u64),
        (Config::default(), 100_084),
    ] {
        let (clock, bus) = setup(MctModel::exynos4210());
        let mct = Mct::new(bus.clone(), config).unwrap();
        mct.start_frc().unwrap();
        let mut l0 = mct.local_timer(0).unwrap();
        l0.set_periodic(1_200).unwrap();
        let mut prev = bus.model(|m| m.local_due_ns(0)).unwrap();
        for _ in 0..20 {
            clock.advance_to(prev);
            assert!(l0.ack());
            let next = bus.model(|m| m.local_due_ns(0)).unwrap();
            let interval = next - prev;
            assert!(
                interval.abs_diff(want_ns) <= 1,
                "{config:?}: interval {interval} ns, want {want_ns}"
            );
            prev = next;
        }
    }
}

/// Every `Mct::time()` is a view of one time base: a view that was not read for longer
/// than the half-wrap precondition is as fresh as the one that was. (Before: each call
/// started its own epoch, and the idle one lost a wrap.)
#[test]
fn every_time_view_reads_one_time_base() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let idle = mct.time();
    let busy = mct.time();
    for _ in 0..8 {
        clock.advance(50_000_000_000); // 50 s: within the 89.48 s precondition
        busy.now();
    }
    // `idle` was not read for 400 s (more than two 32-bit wraps).
    let before = truth(&bus);
    let t = idle.now();
    let after = truth(&bus);
    assert!(
        before <= t && t <= after,
        "{t:#x} not in [{before:#x}, {after:#x}]"
    );
    assert_eq!(mct.time().last(), t);
}

/// Comparator arms publish the exact count they read, so the time base stays exact while
/// comparators are armed at least once per 89.48 s even when nobody reads the time (found
/// by the conformance suite, which reads the time base only in its last check). (Before:
/// three 78 s waits without a time read lost a 32-bit wrap.)
#[test]
fn comparator_arms_keep_the_time_base_exact() {
    let (clock, bus) = setup(MctModel::exynos4210().with_frc(0xFFFF_0000));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut comp = mct.comparator(0).unwrap();
    for d in [COMP_MAX_DELTA, COMP_MAX_DELTA - 1, COMP_MAX_DELTA / 2] {
        comp.set_next_event(d).unwrap();
        let due = bus
            .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
            .unwrap();
        clock.advance_to(due);
        assert!(comp.ack());
    }
    let before = truth(&bus);
    let t = time.now();
    let after = truth(&bus);
    assert!(
        before <= t && t <= after,
        "{t:#x} not in [{before:#x}, {after:#x}]"
    );
}

/// The MMIO cost of arming, as the README's cost table states it (WSTAT immediate, as on
/// QEMU), beside Linux's sequences on the same model (`exynos_mct::sim::linux`):
///
/// - comparator, re-arming an enabled one whose upper word does not change, through
///   `set_compare` (the `Alarm`'s path): 11 accesses, 5 reads and 6 writes (disable, `L`,
///   enable, each with its status read and W1C, then the low and the high word of the
///   count: the high word says whether the low word extends from the published time);
///   Linux 19;
/// - `set_compare` across an upper-word change: 14 (the `U` write and its wait);
/// - comparator `set_next_event`: 13 (3 more reads: the exact 64-bit count, hi-lo-hi);
/// - a running local timer: 4 reads and 7 writes (5 and 9 with
///   `Config::local_tcntb_rewrite`, set on QEMU: `L_TCNTB` again after the stop); Linux 12;
/// - one its `ack` stopped: 2 reads and 5 writes; Linux 9 (the ack: 2 reads, 3 writes).
///
/// (Before: a comparator re-arm was 16 accesses whatever the path: `G_COMPn_U` was always
/// written and the count always read hi-lo-hi.)
#[test]
fn arming_costs_what_the_cost_table_says() {
    use exynos_mct::sim::linux;
    // Near the top of the low word, so that the next upper word is a short way ahead.
    let (clock, bus) = setup(MctModel::exynos4210().with_frc(0xFFF0_0000));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut comp = mct.comparator(0).unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    comp.set_next_event(0x10000).unwrap();
    l0.set_next_event(0x10000).unwrap();
    let cost = |f: &mut dyn FnMut()| {
        bus.reset_stats();
        f();
        let s = bus.stats();
        (s.reads, s.writes)
    };
    let at = time.now() + 0x10000;
    assert_eq!(at >> 32, comp.programmed() >> 32);
    assert_eq!(cost(&mut || comp.set_compare(at).unwrap()), (5, 6));
    assert_eq!(cost(&mut || comp.set_next_event(0x10000).unwrap()), (7, 6));
    let across = ((at >> 32) + 1) << 32;
    assert_eq!(cost(&mut || comp.set_compare(across).unwrap()), (6, 8));
    assert_eq!(cost(&mut || l0.set_next_event(0x10000).unwrap()), (4, 7));
    clock.advance(20_000_000);
    assert_eq!(cost(&mut || assert!(l0.ack())), (2, 3));
    assert_eq!(cost(&mut || l0.set_next_event(0x10000).unwrap()), (2, 5));
    drop((comp, l0));

    // Linux on the same model, comparator 0 enabled and local timer 0 running.
    linux::comp0_set_next_event(&bus, 0x10000);
    linux::tick_set_next_event(&bus, 0, 0x10000);
    let (r, w) = cost(&mut || linux::comp0_set_next_event(&bus, 0x10000));
    assert_eq!(r + w, 19);
    let (r, w) = cost(&mut || linux::tick_set_next_event(&bus, 0, 0x10000));
    assert_eq!(r + w, 12);
    linux::tick_interrupt(&bus, 0);
    let (r, w) = cost(&mut || linux::tick_set_next_event(&bus, 0, 0x10000));
    assert_eq!(r + w, 9);
}

/// `set_compare` after the time base went unread for longer than half a 32-bit wrap, with
/// `at` taken from the exact count: the published time is stale, so the arm reads the count
/// exactly before programming and publishes it; the event comes at `at` and the time base
/// agrees with the count afterwards. (Before: the arm trusted the stale published time, so
/// the time base stayed a whole wrap behind the count, and the late-value check, extended
/// from it, could take a value already passed for one ahead.)
#[test]
fn set_compare_after_a_long_unread_time_base_reads_the_count_first() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let _ = time.now();
    let mut comp = mct.comparator(0).unwrap();
    // 200 s unread: more than a whole 32-bit wrap (178.96 s) at 24 MHz.
    clock.advance(200_000_000_000);
    let at = mct.frc().read64() + 2_400;
    comp.set_compare(at).unwrap();
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .expect("armed for a value ahead");
    clock.advance_to(due);
    assert!(bus.model(|m| m.comparator_line(clock.now_ns(), 0)));
    assert!(truth(&bus) >= at);
    assert!(time.now() >= at);
}

/// `MctIrqs` (hwtimer-core's `IrqSource`) moves virtual time to the earliest interrupt of
/// any channel: a local timer due before a comparator comes first, a line already high is
/// due now, a masked comparator is not waited for, and nothing armed is `None`.
#[test]
fn mct_irqs_runs_the_model_to_the_next_interrupt_of_any_channel() {
    use exynos_mct::sim::MctIrqs;
    use hwtimer_core::sim::IrqSource;
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), bus.model(|m| m.driver_config())).unwrap();
    mct.start_frc().unwrap();
    let irqs = MctIrqs::new(&bus);
    let next = || (&irqs).advance_to_next();
    assert_eq!(next(), None, "nothing armed");
    let mut comp = mct.comparator(1).unwrap();
    let mut local = mct.local_timer(0).unwrap();
    comp.set_next_event(24_000).unwrap(); // 1 ms
    local.set_next_event(1_200).unwrap(); // 100 µs at 12 MHz
    let local_due = bus.model(|m| m.local_due_ns(0)).unwrap();
    let comp_due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 1))
        .unwrap();
    assert_eq!(next(), Some(local_due));
    assert_eq!(clock.now_ns(), local_due);
    // Not acknowledged yet: the line stays high, so the next interrupt is now.
    assert_eq!(next(), Some(local_due));
    assert!(local.ack());
    assert_eq!(next(), Some(comp_due));
    assert!(comp.ack());
    assert_eq!(next(), None, "both fired and were acknowledged");
    // A comparator armed but masked in G_INT_ENB raises no interrupt to wait for.
    comp.set_next_event(2_400).unwrap();
    bus.write_word(exynos_mct::regs::G_INT_ENB.offset(), 0);
    assert_eq!(next(), None, "a masked comparator counted");
}

/// With `Config::local_tcntb_rewrite` (QEMU's tick-divider creep), a local timer re-armed
/// while running, and a shutdown, write `L_TCNTB` again after the stop (with its status
/// wait); an arm after its `ack` does not. Without it, neither writes it.
#[test]
fn the_local_tcntb_rewrite_is_written_only_when_configured_and_an_arm_was_cut() {
    for rewrite in [false, true] {
        let (clock, bus) = setup(MctModel::exynos4210());
        let config = Config {
            local_tcntb_rewrite: rewrite,
            ..Config::default()
        };
        let mct = Mct::new(bus.clone(), config).unwrap();
        mct.start_frc().unwrap();
        let mut l0 = mct.local_timer(0).unwrap();
        l0.set_next_event(0x10000).unwrap();
        let cost = |f: &mut dyn FnMut()| {
            bus.reset_stats();
            f();
            let s = bus.stats();
            (s.reads, s.writes)
        };
        let extra = if rewrite { (1, 2) } else { (0, 0) };
        assert_eq!(
            cost(&mut || l0.set_next_event(0x10000).unwrap()),
            (4 + extra.0, 7 + extra.1),
            "rewrite {rewrite}: re-arm while running"
        );
        clock.advance(20_000_000);
        assert!(l0.ack());
        assert_eq!(cost(&mut || l0.set_next_event(0x10000).unwrap()), (2, 5));
        let shut = cost(&mut || l0.try_shutdown().unwrap());
        let plain = if rewrite {
            (shut.0 - 1, shut.1 - 2)
        } else {
            shut
        };
        assert!(plain.1 >= 3, "rewrite {rewrite}: shutdown {shut:?}");
    }
}
