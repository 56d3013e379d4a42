//! The driver against the model, for what hwtimer-core's conformance suite
//! (`tests/driver/conformance.rs`) cannot say: the TCFG values of docs/loongarch-timer.md#initval
//! (rounded up instead of down), CSR access counts per operation, the ECFG bit, TVAL, and
//! alarms through `Alarm` (clamping, stepping, past deadlines).

use hwtimer_core::sim::{IrqSource, MmioStats, SimClock};
use hwtimer_core::{ClockEvent, Clocksource, Error, Fired, Monotonic, RegisterBusExt};
use loongarch_timer::clockevent::INITVAL_MAX;
use loongarch_timer::csr::{CSR_ECFG, CSR_ESTAT, CSR_TCFG};
use loongarch_timer::sim::{LoongArchCore, SimCsr, qemu_alarm, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

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
    let (clock, csr, counter, _timer) = setup(Config::default());
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
fn periodic_writes_tcfg_once_with_periodic_and_en() {
    let (_, csr, _, mut timer) = setup(Config::default());
    timer.set_periodic(10_000).unwrap();
    assert_eq!(
        csr.stats(),
        MmioStats {
            reads: 0,
            writes: 1
        }
    );
    assert_eq!(csr.read_raw(CSR_TCFG), 10_000 | 0b11);
    assert!(timer.remaining().is_some());
}

#[test]
fn csr_accesses_per_operation() {
    let (clock, csr, _, mut timer) = setup(Config::default());
    let stats = |reads, writes| MmioStats { reads, writes };
    // Spurious ack: one ESTAT read.
    assert_eq!(csr.counted(|| timer.ack()), (false, stats(1, 0)));
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000); // fired, not yet handled
    // Arming writes TCFG only, so the pending TI stays (the suite checks it stays).
    let (r, s) = csr.counted(|| (timer.set_next_event(5000), timer.set_periodic(5000)));
    assert_eq!((r, s), ((Ok(()), Ok(())), stats(0, 2)));
    // A real ack: the ESTAT read and the TICLR write.
    assert_eq!(csr.counted(|| timer.ack()), (true, stats(1, 1)));
    assert_eq!(csr.read_raw(CSR_ESTAT) & (1 << 11), 0);
    // Shutdown: TCFG = 0, then TICLR; no read (one ESTAT read with `defmt`, to log).
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000);
    let log_read = u64::from(cfg!(feature = "defmt"));
    assert_eq!(csr.counted(|| timer.shutdown()), ((), stats(log_read, 2)));
    assert_eq!(csr.read_raw(CSR_TCFG), 0);
    assert_eq!(timer.remaining(), None);
    assert!(!timer.is_pending(), "shutdown cleared the latched TI");
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
fn alarm_deadlines_are_never_early_and_past_deadlines_are_reported() {
    let clock = SimClock::new();
    let (csr, mut alarm) = qemu_alarm(&clock, Config::default()).unwrap();
    for wait in [1u64, 500, 999, 1000, 1001, 1003, 4097, 250_000] {
        clock.advance(7);
        let deadline = alarm.time().now() + wait;
        alarm.set_deadline(deadline).unwrap();
        (&csr).advance_to_next().unwrap();
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
        (&csr).advance_to_next().unwrap();
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
