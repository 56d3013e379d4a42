//! Frequency discovery against docs/loongarch-timer.md#cpucfg (CC_FREQ × CC_MUL / CC_DIV, LLFTP = CPUCFG2
//! bit 14) and the QEMU words of docs/loongarch-timer.md#qemu-model.

use hwtimer_core::sim::SimClock;
use loongarch_timer::cpucfg::{CPUCFG2_LLFTP, ConstantClock, FreqError};
use loongarch_timer::sim::{LoongArchCore, sim_csr};

#[test]
fn qemu_virt_is_100_mhz() {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    assert_eq!(freq.freq_hz(), 100_000_000);
    assert_eq!(
        (freq.cc_freq(), freq.cc_mul(), freq.cc_div()),
        (100_000_000, 1, 1)
    );
    assert!(freq.is_exact());
    // Three cpucfg instructions, nothing else.
    assert_eq!(csr.stats().reads, 3);
    assert_eq!(csr.stats().writes, 0);
}

#[test]
fn llftp_is_bit_14_of_word_2() {
    assert_eq!(CPUCFG2_LLFTP, 1 << 14);
    assert_eq!(
        ConstantClock::from_words(0x0060_c0cf & !(1 << 14), 100_000_000, 0x0001_0001),
        Err(FreqError::NoConstantTimer)
    );
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt().without_constant_timer());
    assert_eq!(ConstantClock::probe(&csr), Err(FreqError::NoConstantTimer));
}

#[test]
fn mul_is_the_low_half_and_div_the_high_half_of_word_5() {
    // 24 MHz crystal × 25 / 6 = 100 MHz.
    let f = ConstantClock::from_words(CPUCFG2_LLFTP, 24_000_000, (6 << 16) | 25).unwrap();
    assert_eq!(f.freq_hz(), 100_000_000);
    assert_eq!((f.cc_mul(), f.cc_div()), (25, 6));
}

#[test]
fn any_zero_value_is_a_zero_frequency_error() {
    for (cfg4, cfg5) in [
        (0, 0x0001_0001),
        (100, 0x0001_0000),
        (100, 0x0000_0001),
        (0, 0),
    ] {
        let e = ConstantClock::from_words(CPUCFG2_LLFTP, cfg4, cfg5).unwrap_err();
        assert_eq!(
            e,
            FreqError::ZeroFrequency {
                cc_freq: cfg4,
                cc_mul: (cfg5 & 0xffff) as u16,
                cc_div: (cfg5 >> 16) as u16
            }
        );
    }
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt().with_cpucfg(4, 0));
    assert!(matches!(
        ConstantClock::probe(&csr),
        Err(FreqError::ZeroFrequency { .. })
    ));
}

#[test]
fn a_frequency_above_u32_is_refused_not_truncated() {
    let e = ConstantClock::from_words(CPUCFG2_LLFTP, u32::MAX, 0x0001_0002).unwrap_err();
    assert_eq!(
        e,
        FreqError::TooHigh {
            hz: u64::from(u32::MAX) * 2
        }
    );
    assert!(ConstantClock::from_words(CPUCFG2_LLFTP, u32::MAX, 0xFFFF_FFFF).is_ok());
}

#[test]
fn a_fractional_frequency_rounds_up() {
    // 100 MHz × 1 / 3 = 33,333,333.3 Hz: rounded up so time-to-tick conversions never
    // come out short.
    let f = ConstantClock::from_words(CPUCFG2_LLFTP, 100_000_000, 0x0003_0001).unwrap();
    assert_eq!(f.freq_hz(), 33_333_334);
    assert!(!f.is_exact());
}
