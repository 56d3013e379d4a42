//! The driver against its model, for what hwtimer-core's conformance suite
//! (`tests/driver/conformance.rs`, every compare rule) cannot say: the counter across carries,
//! the compare rules against each other, a refused request keeping the armed event,
//! `set_compare` and `set_periodic` on a pending flag, half-written values, the stale-ack
//! race, erratum 740657, periodic under interrupt latency, the Alarm pairing, ownership,
//! and the MMIO cost table.

use a9_global_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use a9_global_timer::regs::{self, CONTROL};
use a9_global_timer::sim::{GtModel, GtSim, ModelRule};
use a9_global_timer::{CompareRule, Config, GlobalTimer, Mode};
use hwtimer_core::sim::SimBus;
use hwtimer_core::{
    Alarm, ClockEvent, Clocksource, ConfigError, Error, Fired, Monotonic, RegisterBusExt,
};

const HZ: u32 = 100_000_000;
const RULES: [ModelRule; 3] = [
    ModelRule::GreaterOrEqual,
    ModelRule::Equal,
    ModelRule::QemuGreater,
];

/// The driver's rule for a modelled comparator.
fn config_for(rule: ModelRule) -> Config {
    let compare = match rule {
        ModelRule::Equal => CompareRule::Equal,
        ModelRule::GreaterOrEqual | ModelRule::QemuGreater => CompareRule::GreaterOrEqual,
    };
    Config::new(HZ).with_compare(compare)
}

fn sim(rule: ModelRule) -> GtSim {
    GtSim::with_model(GtModel::new(HZ, rule), 100, 50)
}

fn started(sim: &GtSim, config: Config) -> GlobalTimer<SimBus<GtModel>> {
    let gt = GlobalTimer::new(sim.bus(), config).unwrap();
    gt.start().unwrap();
    gt
}

/// The largest number of ticks a correct comparator may be late by, for the rule: the
/// QEMU compare is one tick late.
fn late_ticks(rule: ModelRule) -> u64 {
    u64::from(rule == ModelRule::QemuGreater)
}

#[test]
fn counter_is_an_exact_64_bit_time_base_across_carries() {
    // 100 ns per read = 10 ticks: a carry out of the low word falls between the reads for
    // some start offsets; the hi-lo-hi read is never torn.
    for before in 0..60u64 {
        let s = GtSim::with_model(GtModel::qemu().with_counter((1 << 32) - before), 100, 50);
        let gt = started(&s, Config::qemu());
        let counter = gt.counter();
        assert_eq!((counter.bits(), Clocksource::freq_hz(&counter)), (64, HZ));
        let lo_bound = s.counter();
        s.bus().reset_stats();
        let v = counter.read64();
        let reads = s.bus().stats().reads;
        assert!(v >= lo_bound && v <= s.counter(), "start {before}: {v:#x}");
        assert!(reads == 3 || reads == 5, "start {before}: {reads} reads");
        let lo_bound = s.counter();
        let now = Monotonic::now(&counter);
        assert!(now >= lo_bound && now <= s.counter());
    }
    // The naive lo-then-hi read across the same carry is 2^32 too large.
    let s = GtSim::with_model(GtModel::qemu().with_counter((1 << 32) - 8), 100, 50);
    let gt = started(&s, Config::qemu());
    let lo = gt.bus().read_raw(regs::GT_COUNTER0);
    let hi = gt.bus().read_raw(regs::GT_COUNTER1);
    let naive = (u64::from(hi) << 32) | u64::from(lo);
    assert!(naive > s.counter() + (1 << 31));
}

#[test]
fn an_equality_comparator_needs_its_rule() {
    // A pre-r2p0 comparator driven as if it were r2p0+: a value already passed never
    // fires (why Linux refuses those revisions). With the right rule it is re-armed.
    let s = sim(ModelRule::Equal);
    let gt = started(&s, Config::new(HZ)); // wrong rule
    let mut cmp = gt.comparator().unwrap();
    s.clock().advance(10_000);
    cmp.set_compare(s.counter() - 10).unwrap();
    assert_eq!(s.advance_to_next_irq(), None);
    drop(cmp);
    let _ = gt.release();
    let gt = started(&s, config_for(ModelRule::Equal));
    let mut cmp = gt.comparator().unwrap();
    cmp.set_compare(s.counter() - 10).unwrap();
    assert!(s.advance_to_next_irq().is_some());
    assert!(cmp.ack());
}

#[test]
fn equality_rule_rearms_a_value_missed_while_programming() {
    // A slow bus (1 µs per read, 100 ticks): a delta of 1 is passed before the comparator
    // is enabled. The driver finds it missed and re-arms; late, never early, never lost.
    let s = GtSim::with_model(GtModel::new(HZ, ModelRule::Equal), 1_000, 500);
    let gt = started(&s, config_for(ModelRule::Equal));
    let mut cmp = gt.comparator().unwrap();
    for delta in [1u64, 10, 100, 1_000] {
        let begin = s.counter();
        s.bus().reset_stats();
        cmp.set_next_event(delta).unwrap();
        let reads = s.bus().stats().reads;
        s.advance_to_next_irq()
            .unwrap_or_else(|| panic!("{delta}: lost"));
        assert!(s.counter() >= begin + delta);
        // 3 start reads, the enable's control read, 3 to check; a missed attempt adds a
        // flag read and the next attempt (delta 1..100 is shorter than one attempt's
        // accesses) with its disable and enable control reads, at most 4 attempts.
        if delta <= 100 {
            assert!(
                reads > 3 + 1 + 3 && reads <= 3 + 4 * (3 + 1 + 2),
                "{delta}: {reads}"
            );
        } else {
            assert_eq!(reads, 3 + 1 + 3, "{delta}");
        }
        assert!(cmp.ack() && !cmp.ack());
    }
}

#[test]
fn a_refused_request_keeps_the_armed_event() {
    for rule in RULES {
        let s = sim(rule);
        let gt = started(&s, config_for(rule));
        let mut cmp = gt.comparator().unwrap();
        cmp.set_next_event(50_000).unwrap();
        let armed_at = s.model(|m| m.next_irq_ns(0)).unwrap();
        let (control, comparator) = s.model(|m| (m.control(), m.comparator()));
        for bad in [0u64, u64::from(u32::MAX) + 1, u64::MAX] {
            let writes = s.bus().stats().writes;
            assert_eq!(
                cmp.set_next_event(bad),
                Err(ConfigError::DeltaOutOfRange.into())
            );
            assert_eq!(
                cmp.set_periodic(bad),
                Err(ConfigError::PeriodOutOfRange.into())
            );
            assert_eq!(s.bus().stats().writes, writes, "{rule:?} {bad}");
            assert_eq!(
                s.model(|m| (m.control(), m.comparator())),
                (control, comparator)
            );
        }
        assert_eq!(cmp.mode(), Mode::Oneshot { target: comparator });
        assert_eq!(s.advance_to_next_irq(), Some(armed_at));
        assert!(cmp.ack());
    }
}

#[test]
fn arming_keeps_a_pending_flag_and_the_new_event() {
    type Arm = fn(&mut dyn ClockEvent, u64) -> Result<(), Error>;
    // `set_next_event` on a pending flag is the suite's `rearm_pending`.
    let arms: [(&str, Arm); 2] = [
        ("set_compare", |c, now| c.set_compare(now + 10_000)),
        ("set_periodic", |c, _| c.set_periodic(10_000)),
    ];
    for rule in RULES {
        for (name, arm) in arms {
            let s = sim(rule);
            let gt = started(&s, config_for(rule));
            let mut cmp = gt.comparator().unwrap();
            cmp.set_next_event(100).unwrap();
            s.advance_to_next_irq().unwrap();
            // Re-armed before the handler ran: the flag stays, the line stays up.
            let begin = s.counter();
            arm(&mut cmp, begin).unwrap();
            assert!(cmp.is_pending(), "{rule:?} {name}: flag cleared by arming");
            assert!(s.irq_asserted(), "{rule:?} {name}");
            // The handler sees the old event; the new one stays armed.
            assert!(cmp.ack(), "{rule:?} {name}");
            assert!(!cmp.ack(), "{rule:?} {name}");
            assert_ne!(cmp.mode(), Mode::Off);
            s.advance_to_next_irq()
                .unwrap_or_else(|| panic!("{rule:?} {name}: new event lost"));
            assert!(s.counter() >= begin + 10_000, "{rule:?} {name}: early");
            assert!(cmp.ack() && !cmp.ack(), "{rule:?} {name}");
        }
    }
}

#[test]
fn rearming_never_exposes_a_half_written_value() {
    // Armed at 0x1_0000_0200 with the counter at 0x1_0000_0100; re-armed for
    // 0x2_0000_0050. Written low half first into an enabled comparator, the intermediate
    // 0x1_0000_0050 is behind the counter and a `>=` compare fires 2^32 ticks early. The
    // driver disables the comparator first (TRM sequence).
    for rule in [ModelRule::GreaterOrEqual, ModelRule::QemuGreater] {
        let s = GtSim::with_model(GtModel::new(HZ, rule).with_counter(0x1_0000_0100), 100, 50);
        let gt = started(&s, config_for(rule));
        let mut cmp = gt.comparator().unwrap();
        cmp.set_compare(0x1_0000_0200).unwrap();
        cmp.set_compare(0x2_0000_0050).unwrap();
        assert!(!cmp.is_pending(), "{rule:?}: fired 2^32 ticks early");
        assert_eq!(s.model(|m| m.flag_sets()), 0);
    }
}

#[test]
fn a_stale_ack_racing_the_new_event_does_not_eat_it() {
    // A stale flag is acknowledged while the re-armed value comes due: the counter reaches
    // it somewhere between ack's counter read and its clear. On an edge-triggered
    // comparator (pre-r2p0) the clear can eat the new event; ack must notice. Swept over
    // every position of the due tick inside ack's window.
    for rule in RULES {
        for lead in 0..120u64 {
            let s = sim(rule);
            let gt = started(&s, config_for(rule));
            let mut cmp = gt.comparator().unwrap();
            cmp.set_next_event(100).unwrap();
            s.advance_to_next_irq().unwrap();
            let target = s.counter() + 1_000;
            cmp.set_compare(target).unwrap();
            // Move to `lead` ticks (10 ns each) before the target, then handle the stale flag.
            s.clock()
                .advance_to(s.clock().now_ns() + (target - s.counter() - lead) * 10);
            let begin = s.counter();
            assert!(begin <= target, "{rule:?} {lead}");
            assert!(cmp.ack(), "{rule:?} {lead}");
            if cmp.mode() == Mode::Off {
                // The counter had reached the target when ack read it: this ack reported
                // the new event too (the two coalesced), not early.
                assert!(s.counter() >= target, "{rule:?} {lead}: early");
                continue;
            }
            s.advance_to_next_irq()
                .unwrap_or_else(|| panic!("{rule:?} lead {lead}: the new event was eaten"));
            assert!(s.counter() >= target, "{rule:?} {lead}: early");
            assert!(cmp.ack(), "{rule:?} {lead}");
        }
    }
}

/// The sequences of the npcm750 firmware's private `GtEvent` before this crate: `ack`
/// disabled the comparator whenever the flag was set, and `shutdown` left the flag. Run on
/// the model they break the pending-status rule; the driver's do not (above).
#[test]
fn the_firmware_sequences_this_crate_replaces_lose_and_fake_events() {
    let s = GtSim::qemu();
    let gt = started(&s, Config::qemu());
    let bus = gt.bus().clone();
    let timer_on = CONTROL::TIMER_ENABLE::SET.value;
    let arm = |at: u64| {
        bus.write_raw(regs::GT_CONTROL, timer_on);
        bus.write_raw(regs::GT_COMP0, at as u32);
        bus.write_raw(regs::GT_COMP1, (at >> 32) as u32);
        bus.write_raw(regs::GT_CONTROL, 0b111);
    };
    let old_ack = || {
        let fired = bus.read_raw(regs::GT_INT_STATUS) & 1 != 0;
        if fired {
            bus.write_raw(regs::GT_CONTROL, timer_on);
            bus.write_raw(regs::GT_INT_STATUS, 1);
        }
        fired
    };
    let old_shutdown = || bus.write_raw(regs::GT_CONTROL, timer_on);
    // 1. Re-armed while pending: the old ack of the stale event cancels the new one.
    arm(s.counter() + 100);
    s.advance_to_next_irq().unwrap();
    arm(s.counter() + 10_000);
    assert!(old_ack());
    assert_eq!(
        s.advance_to_next_irq(),
        None,
        "the old ack kept the new event"
    );
    // 2. Shut down while pending: the next arm raises the line at once and its ack says
    //    "fired" 10 000 ticks early.
    arm(s.counter() + 100);
    s.advance_to_next_irq().unwrap();
    old_shutdown();
    let begin = s.counter();
    arm(begin + 10_000);
    assert!(s.irq_asserted() && old_ack());
    assert!(
        s.counter() < begin + 10_000,
        "the old shutdown cleared the flag"
    );
}

#[test]
fn ack_stops_a_fired_oneshot_before_clearing_erratum_740657() {
    for rule in [ModelRule::GreaterOrEqual, ModelRule::QemuGreater] {
        // A plain W1C on a level compare: the flag comes straight back (a second
        // interrupt for the same event).
        let s = sim(rule);
        let gt = started(&s, config_for(rule));
        let bus = gt.bus().clone();
        let mut cmp = gt.comparator().unwrap();
        cmp.set_next_event(100).unwrap();
        s.advance_to_next_irq().unwrap();
        bus.write_raw(regs::GT_INT_STATUS, 1);
        assert!(cmp.is_pending(), "{rule:?}");
        assert_eq!(s.model(|m| m.flag_sets()), 2);
        // The driver's ack: one event, one flag set, line low.
        cmp.shutdown();
        let sets = s.model(|m| m.flag_sets());
        cmp.set_next_event(100).unwrap();
        s.advance_to_next_irq().unwrap();
        assert!(cmp.ack() && !cmp.ack(), "{rule:?}");
        assert!(!s.irq_asserted());
        assert_eq!(s.model(|m| m.flag_sets()), sets + 1, "{rule:?}");
    }
}

#[test]
fn periodic_follows_the_grid_whatever_the_latency() {
    const P: u64 = 10_000;
    for rule in RULES {
        let s = sim(rule);
        let gt = started(&s, config_for(rule));
        let mut cmp = gt.comparator().unwrap();
        let begin = s.counter();
        cmp.set_periodic(P).unwrap();
        let Mode::Periodic { period } = cmp.mode() else {
            panic!("{rule:?}: {:?}", cmp.mode())
        };
        assert_eq!(u64::from(period), P);
        let first = s.model(|m| m.comparator());
        assert!(first >= begin + P);
        let mut seed = 12_345u64;
        for k in 0..50u64 {
            s.advance_to_next_irq()
                .unwrap_or_else(|| panic!("{rule:?}: period {k} lost"));
            let fired = s.counter();
            let grid = first + k * P;
            assert!(
                fired >= grid && fired <= grid + late_ticks(rule),
                "{rule:?} period {k}: {fired} vs {grid}"
            );
            // Interrupt latency of up to half a period: never shifts the grid.
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            s.clock().advance((seed >> 33) % (P / 2) * 10);
            assert!(cmp.ack() && !cmp.ack(), "{rule:?} period {k}");
        }
        assert_eq!(cmp.read_compare(), first + 50 * P, "{rule:?}: drifted");
        cmp.shutdown();
        assert_eq!(s.advance_to_next_irq(), None);
    }
}

#[test]
fn alarm_programs_absolute_deadlines_and_is_never_early() {
    for rule in RULES {
        let s = sim(rule);
        let gt = started(&s, config_for(rule));
        let time = gt.counter();
        let mut alarm = Alarm::new(gt.comparator().unwrap(), time).unwrap();
        assert!(alarm.is_absolute());
        for wait in [1u64, 7, 1_000, 123_456, 10_000_000_000] {
            // Short waits pass while the time is read (3 reads = 30 ticks): `or_min`.
            let deadline = time.now() + wait;
            alarm.set_deadline_or_min(deadline).unwrap();
            s.advance_to_next_irq().unwrap();
            match alarm.on_interrupt() {
                Fired::Deadline { now, .. } => assert!(now >= deadline, "{rule:?} {wait}"),
                other => panic!("{rule:?} {wait}: {other:?}"),
            }
            assert_eq!(alarm.on_interrupt(), Fired::Spurious);
        }
        let now = time.now();
        assert!(matches!(
            alarm.set_deadline(now),
            Err(Error::DeadlinePassed { .. })
        ));
        alarm.set_deadline_or_min(now - 5).unwrap();
        s.advance_to_next_irq().unwrap();
        assert!(matches!(alarm.on_interrupt(), Fired::Deadline { .. }));
    }
}

#[test]
fn mmio_costs_match_the_table() {
    let s = GtSim::qemu();
    let gt = started(&s, Config::qemu());
    let mut cmp = gt.comparator().unwrap();
    let cost = |f: &mut dyn FnMut()| {
        s.bus().reset_stats();
        f();
        let st = s.bus().stats();
        (st.reads, st.writes)
    };
    assert_eq!(
        cost(&mut || {
            gt.counter().read64();
        }),
        (3, 0)
    );
    assert_eq!(
        cost(&mut || {
            gt.counter().read_low();
        }),
        (1, 0)
    );
    let at = s.counter() + 1_000_000;
    // Every control write is a read-modify-write (keeps the shared bits as the register
    // holds them): one control read per enable and per disable.
    assert_eq!(cost(&mut || cmp.set_compare(at).unwrap()), (1, 3)); // from shutdown
    assert_eq!(cost(&mut || cmp.set_compare(at).unwrap()), (2, 4)); // re-arming
    assert_eq!(cost(&mut || cmp.set_next_event(1_000).unwrap()), (5, 4));
    assert_eq!(cost(&mut || assert!(!cmp.ack())), (1, 0)); // nothing pending
    s.advance_to_next_irq().unwrap();
    assert_eq!(cost(&mut || assert!(cmp.ack())), (5, 2)); // oneshot fired
    assert_eq!(cost(&mut || cmp.set_periodic(1_000).unwrap()), (4, 4));
    s.advance_to_next_irq().unwrap();
    assert_eq!(cost(&mut || assert!(cmp.ack())), (1, 1)); // periodic
    assert_eq!(cost(&mut || cmp.set_periodic(1_000).unwrap()), (5, 5));
    // (+1 with `defmt`: the flag read that logs a dropped event)
    let defmt = u64::from(cfg!(feature = "defmt"));
    assert_eq!(cost(&mut || cmp.shutdown()), (1 + defmt, 2));
    // A stale flag: fired, re-armed before the handler.
    cmp.set_next_event(100).unwrap();
    s.advance_to_next_irq().unwrap();
    cmp.set_next_event(100_000).unwrap();
    assert_eq!(cost(&mut || assert!(cmp.ack())), (8, 1));
    // A start of a counter that already runs at this prescaler: the read, no write.
    assert_eq!(cost(&mut || gt.start().unwrap()), (1, 0));
    assert_eq!(cost(&mut || assert!(!cmp.is_pending())), (1, 0));
    // Equality rule: the read-back after enabling.
    let s = sim(ModelRule::Equal);
    let gt = started(&s, config_for(ModelRule::Equal));
    let mut cmp = gt.comparator().unwrap();
    s.bus().reset_stats();
    cmp.set_compare(s.counter() + 100_000).unwrap();
    assert_eq!((s.bus().stats().reads, s.bus().stats().writes), (7, 3));
}

#[test]
fn capabilities_follow_the_prescaler() {
    let s = GtSim::qemu();
    let gt = started(&s, Config::qemu().with_prescaler(3));
    let cmp = gt.comparator().unwrap();
    let caps = cmp.capabilities();
    assert_eq!(
        (caps.freq_hz, caps.min_delta, caps.max_delta),
        (25_000_000, MIN_DELTA, MAX_DELTA)
    );
    assert!(caps.periodic && caps.phase_locked && caps.absolute);
    assert_eq!(Monotonic::freq_hz(&gt.counter()), caps.freq_hz);
    // The model runs at the configured prescaler.
    assert_eq!(s.model(|m| m.tick_hz()), 25_000_000);
}

#[test]
fn ownership_and_loading() {
    assert_eq!(Config::new(256).with_prescaler(255).tick_hz(), Ok(1));
    let s = GtSim::qemu();
    let mut gt = started(&s, Config::qemu().with_prescaler(1));
    assert!(gt.is_running());
    // Another driver (another core) finds the counter running at its prescaler: kept so.
    let other = GlobalTimer::new(s.bus(), Config::qemu().with_prescaler(1)).unwrap();
    assert!(other.is_running());
    // Dropping the comparator shuts it down and gives it back.
    let mut cmp = gt.comparator().unwrap();
    cmp.set_next_event(100).unwrap();
    drop(cmp);
    assert_eq!(s.advance_to_next_irq(), None);
    assert!(gt.comparator().is_ok());
    // Loading the counter: only while stopped (running: `config_errors.rs`).
    gt.stop();
    assert!(!gt.is_running());
    gt.load(0x1_2345_6789).unwrap();
    assert_eq!(gt.counter().read64(), 0x1_2345_6789);
    s.clock().advance(1_000_000);
    assert_eq!(gt.counter().read64(), 0x1_2345_6789); // stopped: holds
    let (r, st) = s.bus().counted(|| gt.start());
    assert_eq!((r, st.reads, st.writes), (Ok(()), 1, 1));
    assert_eq!(s.model(|m| m.ignored_counter_writes()), 0);
    // Starting keeps the comparator bits: an armed comparator stays armed when the
    // counter is stopped and started again (through another driver of the block: this
    // one's comparator is lent out).
    let mut cmp = gt.comparator().unwrap();
    cmp.set_next_event(1_000).unwrap();
    let mut other = other;
    other.stop();
    other.start().unwrap();
    assert!(s.advance_to_next_irq().is_some());
    assert!(cmp.ack());
}
