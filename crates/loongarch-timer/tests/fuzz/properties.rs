//! Property tests: any requested delta yields a programmed InitVal inside
//! `[min_delta, max_delta]`, a multiple of 4 (TCFG bits [1:0] are not count bits,
//! docs/loongarch-timer.md#initval), and never shorter than asked (unless the request exceeds max_delta,
//! in which case it is one step of a longer wait).

use hwtimer_core::sim::{IrqSource, SimClock};
use hwtimer_core::{ClockEvent, Error, Fired, Monotonic, RegisterBusExt};
use loongarch_timer::clockevent::{INITVAL_MAX, LINUX_MAX_DELTA, init_val_for, plan};
use loongarch_timer::csr::CSR_TCFG;
use loongarch_timer::sim::{LoongArchCore, qemu_alarm, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = Config> {
    (
        1u64..=100_000,
        prop_oneof![Just(LINUX_MAX_DELTA), 100_000u64..=LINUX_MAX_DELTA],
    )
        .prop_filter_map("programmable", |(min, max)| {
            let c = Config {
                min_delta: min,
                max_delta: max,
            };
            c.validate().ok().map(|()| c)
        })
}

fn wait() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..5_000,
        any::<u64>(),
        (LINUX_MAX_DELTA - 8)..=(LINUX_MAX_DELTA + 8)
    ]
}

proptest! {
    #[test]
    fn planned_init_val_is_in_range_aligned_and_not_short(wait in wait(), config in config()) {
        let p = plan(wait, &config);
        prop_assert!(p.init_val >= config.min_delta);
        prop_assert!(p.init_val <= config.max_delta);
        prop_assert!(p.init_val <= INITVAL_MAX);
        prop_assert_eq!(p.init_val % 4, 0);
        prop_assert!(p.init_val >= p.delta);
        prop_assert!(p.init_val - p.delta < 4);
        if p.stepped {
            prop_assert!(wait > config.effective_max_delta());
        } else {
            prop_assert!(p.init_val >= wait, "{} < {}", p.init_val, wait);
        }
        prop_assert_eq!(p.clamped_min, wait < config.min_delta);
    }

    #[test]
    fn init_val_for_rounds_up_to_4_and_saturates(delta in any::<u64>()) {
        let v = init_val_for(delta);
        prop_assert_eq!(v % 4, 0);
        prop_assert!(v <= INITVAL_MAX);
        if delta <= INITVAL_MAX {
            prop_assert!(v >= delta && v - delta < 4);
        }
    }

    #[test]
    fn the_driver_writes_what_the_plan_says_or_refuses(delta in wait(), config in config()) {
        let clock = SimClock::new();
        let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
        let freq = ConstantClock::probe(&csr).unwrap();
        let mut timer = ConstantTimer::new(csr.clone(), freq, config).unwrap();
        let before = csr.read_raw(CSR_TCFG);
        match timer.set_next_event(delta) {
            Ok(()) => {
                let tcfg = csr.read_raw(CSR_TCFG);
                prop_assert_eq!(tcfg & 0b11, 0b01, "EN set, PERIODIC clear");
                let count = tcfg & !0b11;
                prop_assert!(count >= delta && count >= config.min_delta);
                prop_assert!(count <= config.max_delta);
                prop_assert_eq!(count, plan(delta, &config).init_val);
            }
            Err(e) => {
                prop_assert_eq!(e, hwtimer_core::Error::Config(hwtimer_core::ConfigError::DeltaOutOfRange));
                let caps = timer.capabilities();
                prop_assert!(delta < caps.min_delta || delta > caps.max_delta);
                prop_assert_eq!(csr.read_raw(CSR_TCFG), before);
            }
        }
    }

    #[test]
    fn alarms_never_fire_early(waits in proptest::collection::vec(0u64..50_000, 1..8),
                               min in 1u64..3000,
                               jitter in 0u64..10) {
        let clock = SimClock::new();
        let (csr, mut alarm) = qemu_alarm(&clock, Config::default().with_min_delta(min)).unwrap();
        for wait in waits {
            clock.advance(jitter);
            let deadline = alarm.time().now() + wait.max(1);
            match alarm.set_deadline(deadline) {
                Ok(_) => {}
                // Reading the time costs virtual time: a deadline one tick ahead may have
                // passed by the time it is programmed. The contract reports it, never arms it.
                Err(Error::DeadlinePassed { now }) => {
                    prop_assert!(now >= deadline);
                    continue;
                }
                Err(e) => prop_assert!(false, "{:?}", e),
            }
            (&csr).advance_to_next().unwrap();
            match alarm.on_interrupt() {
                Fired::Deadline { now, .. } => {
                    prop_assert!(now >= deadline);
                    prop_assert!(now - deadline <= min + 4);
                }
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }
}
