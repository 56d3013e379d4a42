//! Frequency discovery from the CPUCFG configuration words.
//!
//! # Source
//!
//! `torvalds/linux arch/loongarch/include/asm/loongarch.h` (`CPUCFG2_LLFTP`,
//! `LOONGARCH_CPUCFG4`, `CPUCFG5_CCMUL`, `CPUCFG5_CCDIV`) and
//! `arch/loongarch/kernel/time.c` (summarised in `docs/loongarch-timer.md#cpucfg`):
//!
//! | word | field | meaning |
//! |---|---|---|
//! | 2 | LLFTP, bit 14 | the constant (stable) timer is present |
//! | 4 | CC_FREQ, `[31:0]` | crystal frequency of the constant counter, Hz |
//! | 5 | CC_MUL `[15:0]`, CC_DIV `[31:16]` | counter frequency = CC_FREQ × CC_MUL / CC_DIV |
//!
//! Linux computes the frequency only when LLFTP is set and none of the three values is 0;
//! this module returns a typed [`FreqError`] in exactly those cases instead of a 0 Hz
//! clock.
//!
//! ```
//! use loongarch_timer::cpucfg::{ConstantClock, FreqError};
//!
//! // QEMU virt (docs/loongarch-timer.md#qemu-model): CPUCFG2 = 0x60c0cf, 100 MHz, 1/1.
//! let clock = ConstantClock::from_words(0x0060_c0cf, 100_000_000, 0x0001_0001).unwrap();
//! assert_eq!(clock.freq_hz(), 100_000_000);
//! // No constant timer (LLFTP clear), or a zero divider:
//! assert_eq!(ConstantClock::from_words(0, 100_000_000, 0x0001_0001), Err(FreqError::NoConstantTimer));
//! assert!(matches!(
//!     ConstantClock::from_words(1 << 14, 100_000_000, 0x0000_0001),
//!     Err(FreqError::ZeroFrequency { cc_div: 0, .. })
//! ));
//! ```

use crate::csr::Csr;

/// CPUCFG word holding the LLFTP (constant timer present) bit.
pub const CPUCFG_WORD_FEATURES: u32 = 2;
/// `CPUCFG2_LLFTP`: bit 14 of word 2, the constant timer is present.
pub const CPUCFG2_LLFTP: u32 = 1 << 14;
/// CPUCFG word holding CC_FREQ (`LOONGARCH_CPUCFG4`).
pub const CPUCFG_WORD_CC_FREQ: u32 = 4;
/// CPUCFG word holding CC_MUL and CC_DIV (`LOONGARCH_CPUCFG5`).
pub const CPUCFG_WORD_CC_RATIO: u32 = 5;

/// Why the constant counter's frequency could not be determined.
///
/// Returned as it is by [`ConstantClock::from_words`] and [`ConstantClock::probe`]; the
/// `From` impls map each variant to the [`hwtimer_core::ConfigError`] that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FreqError {
    /// CPUCFG2.LLFTP (bit 14) is clear: the core has no constant timer.
    NoConstantTimer,
    /// CC_FREQ, CC_MUL or CC_DIV is zero, so the frequency is unknown (Linux treats this
    /// as "no constant clock" too).
    ZeroFrequency {
        /// CPUCFG4.
        cc_freq: u32,
        /// `CPUCFG5[15:0]`.
        cc_mul: u16,
        /// `CPUCFG5[31:16]`.
        cc_div: u16,
    },
    /// CC_FREQ × CC_MUL / CC_DIV does not fit the family's `u32` Hz (above 4.29 GHz).
    TooHigh {
        /// The frequency the words describe, in Hz (rounded up).
        hz: u64,
    },
}

impl From<FreqError> for hwtimer_core::ConfigError {
    /// The core cause that names the same problem: an absent timer is
    /// [`NoSuchTimer`](hwtimer_core::ConfigError::NoSuchTimer), a zero value
    /// [`ZeroFrequency`](hwtimer_core::ConfigError::ZeroFrequency), a rate above `u32` Hz
    /// [`RateUnreachable`](hwtimer_core::ConfigError::RateUnreachable) (the family's tick
    /// rates are `u32` Hz).
    fn from(e: FreqError) -> Self {
        match e {
            FreqError::NoConstantTimer => hwtimer_core::ConfigError::NoSuchTimer,
            FreqError::ZeroFrequency { .. } => hwtimer_core::ConfigError::ZeroFrequency,
            FreqError::TooHigh { .. } => hwtimer_core::ConfigError::RateUnreachable,
        }
    }
}

impl From<FreqError> for hwtimer_core::Error {
    /// [`Error::Config`](hwtimer_core::Error::Config) with the core cause of each variant.
    fn from(e: FreqError) -> Self {
        hwtimer_core::Error::Config(e.into())
    }
}

impl core::fmt::Display for FreqError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FreqError::NoConstantTimer => f.write_str("no constant timer (CPUCFG2.LLFTP clear)"),
            FreqError::ZeroFrequency {
                cc_freq,
                cc_mul,
                cc_div,
            } => write!(
                f,
                "constant timer frequency is zero (CC_FREQ {cc_freq}, CC_MUL {cc_mul}, CC_DIV {cc_div})"
            ),
            FreqError::TooHigh { hz } => write!(f, "constant timer frequency {hz} Hz too high"),
        }
    }
}

impl core::error::Error for FreqError {}

/// The constant counter's clock, as the CPUCFG words describe it.
///
/// The stable counter (`rdtime`) and the constant timer (TCFG/TVAL) both count at
/// [`freq_hz`](Self::freq_hz).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ConstantClock {
    cc_freq: u32,
    cc_mul: u16,
    cc_div: u16,
    freq_hz: u32,
}

impl ConstantClock {
    /// Decode CPUCFG words 2, 4 and 5.
    ///
    /// The frequency is CC_FREQ × CC_MUL / CC_DIV computed without overflow and rounded
    /// **up** when it is not an integer (Linux truncates): a clock believed slightly fast
    /// turns every time-to-ticks conversion into at least as many ticks as needed, so no
    /// wait derived from it comes out short. It is exact on every known core (QEMU:
    /// 100 MHz × 1 / 1); [`is_exact`](Self::is_exact) tells.
    ///
    /// Errors: [`FreqError::NoConstantTimer`] when `cfg2` bit 14 is clear;
    /// [`FreqError::ZeroFrequency`] when any of the three values is 0;
    /// [`FreqError::TooHigh`] above `u32::MAX` Hz.
    pub const fn from_words(cfg2: u32, cfg4: u32, cfg5: u32) -> Result<Self, FreqError> {
        if cfg2 & CPUCFG2_LLFTP == 0 {
            return Err(FreqError::NoConstantTimer);
        }
        let cc_freq = cfg4;
        let cc_mul = (cfg5 & 0xFFFF) as u16;
        let cc_div = (cfg5 >> 16) as u16;
        if cc_freq == 0 || cc_mul == 0 || cc_div == 0 {
            return Err(FreqError::ZeroFrequency {
                cc_freq,
                cc_mul,
                cc_div,
            });
        }
        // At most 2^32 * 2^16: cannot wrap in u64; cc_div is not 0.
        let hz = (cc_freq as u64)
            .wrapping_mul(cc_mul as u64)
            .div_ceil(cc_div as u64);
        if hz > u32::MAX as u64 {
            return Err(FreqError::TooHigh { hz });
        }
        Ok(Self {
            cc_freq,
            cc_mul,
            cc_div,
            freq_hz: hz as u32,
        })
    }

    /// Read CPUCFG words 2, 4 and 5 on `csr` (three `cpucfg` instructions) and decode them
    /// with [`from_words`](Self::from_words).
    pub fn probe<C: Csr + ?Sized>(csr: &C) -> Result<Self, FreqError> {
        Self::from_words(
            csr.cpucfg(CPUCFG_WORD_FEATURES),
            csr.cpucfg(CPUCFG_WORD_CC_FREQ),
            csr.cpucfg(CPUCFG_WORD_CC_RATIO),
        )
    }

    /// The counter frequency in Hz, never 0.
    pub const fn freq_hz(&self) -> u32 {
        self.freq_hz
    }

    /// CPUCFG4, the crystal frequency in Hz.
    pub const fn cc_freq(&self) -> u32 {
        self.cc_freq
    }

    /// `CPUCFG5[15:0]`, the multiplier.
    pub const fn cc_mul(&self) -> u16 {
        self.cc_mul
    }

    /// `CPUCFG5[31:16]`, the divider.
    pub const fn cc_div(&self) -> u16 {
        self.cc_div
    }

    /// Whether CC_FREQ × CC_MUL / CC_DIV is an integer (so [`freq_hz`](Self::freq_hz) is
    /// not rounded).
    pub const fn is_exact(&self) -> bool {
        // At most 2^32 * 2^16: cannot wrap in u64.
        (self.cc_freq as u64)
            .wrapping_mul(self.cc_mul as u64)
            .is_multiple_of(self.cc_div as u64)
    }
}
