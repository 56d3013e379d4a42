//! The driver against the model: the ClockEvent contract of hwtimer-core, the TCFG values
//! of docs/loongarch-timer.md#initval (rounded up instead of down), CSR access counts per operation,
//! and never-early alarms.

use hwtimer_core::sim::SimClock;
use hwtimer_core::{ClockEvent, Clocksource, Error, Fired, Monotonic, RegisterBusExt};
use loongarch_timer::clockevent::{INITVAL_MAX, LINUX_MAX_DELTA};
use loongarch_timer::csr::{CSR_CRMD, CSR_ECFG, CSR_ESTAT, CSR_TCFG};
use loongarch_timer::sim::{LoongArchCore, SimCsr, advance_to_fire, qemu_alarm, sim_csr};
use loongarch_timer::{Config, ConfigError, ConstantClock, ConstantTimer, StableCounter};

fn setup(
    config: Config,
) -> (
    SimClock,
    SimCsr,
    StableCounter<SimCsr>,
    ConstantTimer<SimCsr>,
) {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    let counter = StableCounter::new(csr.clone(), freq);
    let timer = ConstantTimer::new(csr.clone(), freq, config).unwrap();
    csr.reset_stats();
    (clock, csr, counter, timer)
}

#[test]
fn clocksource_is_64_bit_rdtime_at_the_cpucfg_rate() {
    let (clock, csr, counter, _) = setup(Config::default());
    assert_eq!(counter.bits(), 64);
    assert_eq!(Clocksource::freq_hz(&counter), 100_000_000);
    clock.advance_to(123_456_780);
    assert_eq!(counter.read(), 12_345_678);
    assert_eq!(counter.now(), 12_345_678);
    assert_eq!(csr.stats().reads, 2, "one rdtime.d per read");
    assert_eq!(csr.stats().writes, 0);
}

#[test]
fn clockevent_limits_follow_the_config() {
    let (_, _, _, timer) = setup(Config::default());
    let caps = timer.capabilities();
    assert_eq!(caps.min_delta, 1000);
    // (1 << 48) - 1 rounded down to the largest programmable count.
    assert_eq!(caps.max_delta, (1 << 48) - 4);
    assert_eq!(caps.max_delta, INITVAL_MAX);
    assert!(caps.periodic && !caps.absolute);
    assert!(
        caps.phase_locked,
        "TVAL counts on the stable counter's clock"
    );
    let (_, _, _, linux) = setup(Config::LINUX_0X600);
    assert_eq!(linux.capabilities().min_delta, 0x600);
}

#[test]
fn set_next_event_writes_tcfg_once_with_the_count_rounded_up() {
    let (_, csr, _, mut timer) = setup(Config::default());
    for (delta, count) in [
        (1000, 1000),
        (1001, 1004),
        (1003, 1004),
        (1004, 1004),
        (123_457, 123_460),
    ] {
        csr.reset_stats();
        timer.set_next_event(delta).unwrap();
        assert_eq!(csr.stats().writes, 1);
        assert_eq!(csr.stats().reads, 0);
        // TCFG = count | EN, PERIODIC clear (docs/loongarch-timer.md#how-linux-drives-it).
        assert_eq!(csr.read_raw(CSR_TCFG), count | 1, "delta {delta}");
    }
}

#[test]
fn out_of_range_deltas_are_refused_and_leave_the_timer_alone() {
    let (_, csr, _, mut timer) = setup(Config::default());
    timer.set_next_event(5000).unwrap();
    let before = csr.read_raw(CSR_TCFG);
    csr.reset_stats();
    for delta in [0, 1, 999, (1 << 48) - 3, LINUX_MAX_DELTA, u64::MAX] {
        assert_eq!(
            timer.set_next_event(delta),
            Err(Error::InvalidConfig),
            "{delta}"
        );
        assert_eq!(
            timer.set_periodic(delta),
            Err(Error::InvalidConfig),
            "{delta}"
        );
    }
    assert_eq!(csr.stats().writes, 0);
    assert_eq!(csr.read_raw(CSR_TCFG), before);
}

#[test]
fn oneshot_fires_no_earlier_than_delta_and_at_most_3_ticks_later() {
    let (clock, csr, counter, mut timer) = setup(Config::default().with_min_delta(1));
    for delta in [1u64, 2, 3, 4, 5, 999, 1000, 1001, 1002, 1003, 77_777] {
        clock.advance_to(clock.now_ns().div_ceil(10) * 10 + 7); // mid-tick
        let t0 = counter.read();
        timer.set_next_event(delta).unwrap();
        advance_to_fire(&csr).unwrap();
        let t1 = counter.read();
        assert!(t1 - t0 >= delta, "delta {delta}: fired after {}", t1 - t0);
        assert!(
            t1 - t0 <= delta + 3,
            "delta {delta}: fired after {}",
            t1 - t0
        );
        assert!(timer.ack());
    }
}

#[test]
fn periodic_needs_a_multiple_of_4_and_fires_every_period() {
    let (clock, csr, counter, mut timer) = setup(Config::default());
    assert_eq!(timer.set_periodic(10_001), Err(Error::InvalidConfig));
    let t0 = counter.read();
    timer.set_periodic(10_000).unwrap();
    assert_eq!(csr.read_raw(CSR_TCFG), 10_000 | 0b11);
    let mut last = t0;
    for _ in 0..4 {
        advance_to_fire(&csr).unwrap();
        let now = counter.read();
        assert_eq!(now - last, 10_000);
        last = now;
        assert!(timer.ack());
        clock.advance(3); // the handler's own time must not shift the next period
    }
    assert!(timer.remaining().is_some());
}

#[test]
fn shutdown_stops_it_and_cancels_a_pending_ti() {
    let (clock, csr, _, mut timer) = setup(Config::default());
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000);
    timer.set_next_event(1000).unwrap();
    assert!(
        timer.is_pending(),
        "the first expiry is latched, not yet handled"
    );
    csr.reset_stats();
    timer.shutdown();
    assert_eq!((csr.stats().reads, csr.stats().writes), (0, 2));
    assert_eq!(csr.read_raw(CSR_TCFG), 0);
    assert_eq!(timer.remaining(), None);
    assert!(!timer.is_pending(), "the cancelled event's TI is cleared");
    clock.advance(1_000_000);
    assert!(!timer.ack(), "nothing fired after shutdown");
}

#[test]
fn a_stale_ti_never_fires_the_next_arm() {
    // Shut down with TI pending, then armed 320 ms ahead, with the interrupt enabled on
    // the core: nothing may be taken until the new expiry.
    let (clock, csr, counter, mut timer) = setup(Config::default());
    timer.enable_interrupt();
    csr.write_raw(CSR_CRMD, 0x8 | (1 << 2));
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000);
    timer.shutdown();
    let t0 = counter.read();
    timer.set_next_event(32_000_000).unwrap(); // 320 ms at 100 MHz
    let now = clock.now_ns();
    assert!(
        !csr.model(|m| m.interrupt_taken(now)),
        "the core took the cancelled event's interrupt at once"
    );
    assert!(!timer.ack(), "a stale TI passed for a new event");
    let fire = advance_to_fire(&csr).unwrap();
    assert!(csr.model(|m| m.interrupt_taken(fire)));
    assert!(counter.read() - t0 >= 32_000_000);
    assert!(timer.ack());
}

#[test]
fn arming_never_clears_a_pending_ti() {
    let (clock, csr, _, mut timer) = setup(Config::default());
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000); // fired, not yet handled
    csr.reset_stats();
    timer.set_next_event(5000).unwrap();
    timer.set_periodic(5000).unwrap();
    assert_eq!((csr.stats().reads, csr.stats().writes), (0, 2), "TCFG only");
    assert!(timer.is_pending(), "still pending after two arms");
    assert!(timer.ack());
    assert!(!timer.ack());
}

#[test]
fn ack_reads_estat_and_clears_ti_through_ticlr_only_when_set() {
    let (clock, csr, _, mut timer) = setup(Config::default());
    csr.reset_stats();
    assert!(!timer.ack());
    assert_eq!(
        (csr.stats().reads, csr.stats().writes),
        (1, 0),
        "spurious: one read"
    );
    timer.set_next_event(1000).unwrap();
    clock.advance(10_000);
    csr.reset_stats();
    assert!(timer.ack());
    assert_eq!((csr.stats().reads, csr.stats().writes), (1, 1));
    assert_eq!(csr.read_raw(CSR_ESTAT) & (1 << 11), 0);
}

#[test]
fn enable_interrupt_touches_only_lie_bit_11() {
    let (_, csr, _, mut timer) = setup(Config::default());
    csr.write_raw(CSR_ECFG, (1 << 2) | (3 << 16));
    timer.enable_interrupt();
    assert_eq!(csr.read_raw(CSR_ECFG), (1 << 11) | (1 << 2) | (3 << 16));
    timer.disable_interrupt();
    assert_eq!(csr.read_raw(CSR_ECFG), (1 << 2) | (3 << 16));
}

#[test]
fn remaining_reads_tval_only_while_running() {
    let (clock, _, _, mut timer) = setup(Config::default());
    assert_eq!(timer.remaining(), None);
    timer.set_next_event(4000).unwrap();
    clock.advance(10_000);
    let left = timer.remaining().unwrap();
    assert!((2990..=3000).contains(&left), "{left}");
    clock.advance(100_000);
    // QEMU's TVAL would read ~0x1999_9999_999x_xxxx here; EN is clear, so: None.
    assert_eq!(timer.remaining(), None);
}

#[test]
fn invalid_configs_are_typed_errors() {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    let new = |c: Config| ConstantTimer::new(csr.clone(), freq, c).map(|_| ());
    assert_eq!(
        new(Config::default().with_min_delta(0)),
        Err(ConfigError::MinDeltaZero)
    );
    assert_eq!(
        new(Config::default().with_max_delta(1 << 48)),
        Err(ConfigError::MaxDeltaTooLarge { max_delta: 1 << 48 })
    );
    // 1001 rounds up to 1004, above 1003 rounded down to 1000: nothing programmable.
    assert!(matches!(
        new(Config {
            min_delta: 1001,
            max_delta: 1003
        }),
        Err(ConfigError::MinAboveMax { .. })
    ));
    assert!(
        new(Config {
            min_delta: 1000,
            max_delta: 1003
        })
        .is_ok()
    );
    assert_eq!(Error::from(ConfigError::MinDeltaZero), Error::InvalidConfig);
}

#[test]
fn alarm_deadlines_are_never_early_and_past_deadlines_are_reported() {
    let clock = SimClock::new();
    let (csr, mut alarm) = qemu_alarm(&clock, Config::default()).unwrap();
    for wait in [1u64, 500, 999, 1000, 1001, 1003, 4097, 250_000] {
        clock.advance(7);
        let deadline = alarm.time().now() + wait;
        alarm.set_deadline(deadline).unwrap();
        advance_to_fire(&csr).unwrap();
        match alarm.on_interrupt() {
            Fired::Deadline { deadline: d, now } => {
                assert_eq!(d, deadline);
                assert!(now >= deadline, "wait {wait}: now {now} < {deadline}");
                // Late by the clamp (requests under min_delta) or rounding, not more.
                let late = now - deadline;
                assert!(
                    late <= 1000u64.saturating_sub(wait) + 4,
                    "wait {wait}: late {late}"
                );
            }
            other => panic!("wait {wait}: {other:?}"),
        }
    }
    let now = alarm.time().now();
    assert!(matches!(
        alarm.set_deadline(now),
        Err(Error::DeadlinePassed { .. })
    ));
}

#[test]
fn a_wait_beyond_max_delta_is_stepped_not_cut_short() {
    let clock = SimClock::new();
    let config = Config::default().with_max_delta(100_003);
    let (csr, mut alarm) = qemu_alarm(&clock, config).unwrap();
    let deadline = alarm.time().now() + 250_001;
    let plan = alarm.set_deadline(deadline).unwrap();
    assert!(plan.stepped);
    assert_eq!(plan.delta, 100_000);
    let mut rearmed = 0;
    loop {
        advance_to_fire(&csr).unwrap();
        match alarm.on_interrupt() {
            Fired::Rearmed { now } => {
                assert!(now < deadline);
                rearmed += 1;
            }
            Fired::Deadline { now, .. } => {
                assert!(now >= deadline);
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(rearmed, 2);
}
