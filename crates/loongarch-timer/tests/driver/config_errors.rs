//! One test per configuration cause the crate can return, each asserting the exact variant:
//! the crate's own [`ConfigError`] / [`FreqError`] where a constructor returns it, and the
//! [`hwtimer_core::ConfigError`] it becomes inside [`Error::Config`], which must name the
//! same cause. Every refusal writes nothing.

use hwtimer_core::ConfigError as Core;
use hwtimer_core::sim::SimClock;
use hwtimer_core::{ClockEvent, Error, RegisterBusExt};
use loongarch_timer::clockevent::LINUX_MAX_DELTA;
use loongarch_timer::cpucfg::CPUCFG2_LLFTP;
use loongarch_timer::csr::CSR_TCFG;
use loongarch_timer::sim::{LoongArchCore, SimCsr, sim_csr};
use loongarch_timer::{Config, ConfigError, ConstantClock, ConstantTimer, FreqError};

fn qemu() -> (SimCsr, ConstantClock) {
    let csr = sim_csr(&SimClock::new(), LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    (csr, freq)
}

/// `new` with `config`: the crate's error, the core error it converts to, and the writes made.
fn refused(config: Config) -> (ConfigError, Error, u64) {
    let (csr, freq) = qemu();
    let e = ConstantTimer::new(csr.clone(), freq, config).unwrap_err();
    (e, e.into(), csr.stats().writes)
}

#[test]
fn min_delta_zero_is_capabilities() {
    let (e, core, writes) = refused(Config::default().with_min_delta(0));
    assert_eq!(e, ConfigError::MinDeltaZero);
    assert_eq!(core, Error::Config(Core::Capabilities));
    assert_eq!(writes, 0);
}

#[test]
fn min_above_max_after_rounding_is_capabilities() {
    // 1001 rounds up to 1004, above 1003 rounded down to 1000: nothing programmable.
    let (e, core, _) = refused(Config {
        min_delta: 1001,
        max_delta: 1003,
    });
    assert_eq!(
        e,
        ConfigError::MinAboveMax {
            min_delta: 1001,
            max_delta: 1003
        }
    );
    assert_eq!(core, Error::Config(Core::Capabilities));
    // One tick lower, 1000 is programmable: accepted.
    let (csr, freq) = qemu();
    let config = Config {
        min_delta: 1000,
        max_delta: 1003,
    };
    assert!(ConstantTimer::new(csr, freq, config).is_ok());
}

#[test]
fn max_delta_above_tcfg_is_delta_out_of_range() {
    let (e, core, _) = refused(Config::default().with_max_delta(LINUX_MAX_DELTA + 1));
    assert_eq!(e, ConfigError::MaxDeltaTooLarge { max_delta: 1 << 48 });
    assert_eq!(core, Error::Config(Core::DeltaOutOfRange));
}

#[test]
fn a_delta_outside_the_range_is_delta_out_of_range() {
    let (csr, freq) = qemu();
    let mut timer = ConstantTimer::new(csr.clone(), freq, Config::default()).unwrap();
    timer.set_next_event(5000).unwrap();
    let before = csr.read_raw(CSR_TCFG);
    csr.reset_stats();
    // Linux declares (1 << 48) - 1, which TCFG cannot hold: refused here.
    for delta in [0, 999, (1 << 48) - 3, LINUX_MAX_DELTA, u64::MAX] {
        assert_eq!(
            timer.set_next_event(delta),
            Err(Error::Config(Core::DeltaOutOfRange)),
            "{delta}"
        );
    }
    assert_eq!(csr.stats().writes, 0);
    assert_eq!(csr.read_raw(CSR_TCFG), before);
}

#[test]
fn a_period_outside_the_range_is_period_out_of_range() {
    let (csr, freq) = qemu();
    let mut timer = ConstantTimer::new(csr.clone(), freq, Config::default()).unwrap();
    // 996 is a multiple of 4 but below min_delta: the range is the cause.
    for period in [0, 996, (1 << 48) - 3, u64::MAX] {
        assert_eq!(
            timer.set_periodic(period),
            Err(Error::Config(Core::PeriodOutOfRange)),
            "{period}"
        );
    }
    assert_eq!(csr.stats().writes, 0);
}

#[test]
fn a_period_off_the_initval_granule_is_period_granule() {
    let (csr, freq) = qemu();
    let mut timer = ConstantTimer::new(csr.clone(), freq, Config::default()).unwrap();
    for period in [10_001, 10_002, 10_003] {
        assert_eq!(
            timer.set_periodic(period),
            Err(Error::Config(Core::PeriodGranule)),
            "{period}"
        );
    }
    assert_eq!(csr.stats().writes, 0);
    assert_eq!(timer.set_periodic(10_004), Ok(()));
}

#[test]
fn no_constant_timer_is_no_such_timer() {
    let csr = sim_csr(
        &SimClock::new(),
        LoongArchCore::qemu_virt().without_constant_timer(),
    );
    let e = ConstantClock::probe(&csr).unwrap_err();
    assert_eq!(e, FreqError::NoConstantTimer);
    assert_eq!(Error::from(e), Error::Config(Core::NoSuchTimer));
}

#[test]
fn a_zero_cpucfg_value_is_zero_frequency() {
    let csr = sim_csr(
        &SimClock::new(),
        LoongArchCore::qemu_virt().with_cpucfg(4, 0),
    );
    let e = ConstantClock::probe(&csr).unwrap_err();
    assert!(matches!(e, FreqError::ZeroFrequency { cc_freq: 0, .. }));
    assert_eq!(Error::from(e), Error::Config(Core::ZeroFrequency));
}

#[test]
fn a_rate_above_u32_hz_is_rate_unreachable() {
    let e = ConstantClock::from_words(CPUCFG2_LLFTP, u32::MAX, 0x0001_0002).unwrap_err();
    assert!(matches!(e, FreqError::TooHigh { .. }));
    assert_eq!(Error::from(e), Error::Config(Core::RateUnreachable));
}

#[test]
fn errors_print_their_cause_and_the_core_error_has_it_as_source() {
    let e: Error = ConfigError::MinDeltaZero.into();
    let source = core::error::Error::source(&e).map(ToString::to_string);
    assert_eq!(
        source.as_deref(),
        Some(Core::Capabilities.to_string().as_str())
    );
    assert_eq!(
        ConfigError::MinDeltaZero.to_string(),
        "min_delta must be at least 1"
    );
    assert_eq!(
        FreqError::NoConstantTimer.to_string(),
        "no constant timer (CPUCFG2.LLFTP clear)"
    );
    fn is_error<E: core::error::Error>(_: &E) {}
    is_error(&ConfigError::MinDeltaZero);
    is_error(&FreqError::NoConstantTimer);
}
