//! The ways Linux and ChromeOS read the 64-bit FRC
//! ([the three-read timestamp](crate#the-three-read-timestamp-and-what-this-crate-does-about-it)),
//! on the driver's [`Frc`], as the baselines the seed bench and the seed-proof tests measure
//! [`FrcTime`](crate::FrcTime) against (feature `unstable-baselines`; not part of the public
//! API, no semver promise).
//!
//! | strategy (Linux 2014) | here | MMIO reads per timestamp |
//! |---|---|---|
//! | hi-lo-hi, the original code | the driver's own [`Frc::read64`] (exact; comparator programming needs it), and Linux's loop as [`linux::read_count_64`](super::linux::read_count_64) | 3 |
//! | ChromeOS's cached upper half | [`read64_cached_upper`] | 2 (4 when the high word changed) |
//! | the low word only (Linux since) | the driver's own [`Frc::read_low`] (32 bits) | 1 |
//! | what hi-lo-hi exists to avoid | [`read64_lo_hi`] (torn across a carry) | 2 |

use core::cell::Cell;

use hwtimer_core::Claim;

use crate::Frc;

/// Attempts of [`read64_cached_upper`] before it returns the last low word with the high
/// word read before it (the driver's hi-lo-hi read has the same bound and fallback).
const ATTEMPTS: u32 = 3;

/// The high word cached between calls of [`read64_cached_upper`] (one per reader).
#[derive(Debug, Default)]
pub struct UpperCache {
    hi: Cell<u32>,
    valid: Cell<bool>,
}

impl UpperCache {
    /// An empty cache (the first read costs 4 MMIO reads).
    pub const fn new() -> Self {
        Self {
            hi: Cell::new(0),
            valid: Cell::new(false),
        }
    }
}

/// The exact 64-bit count with ChromeOS's cached upper half: read L, then U, and accept
/// when U equals the high word cached by the previous call: 2 MMIO reads (4 when the high
/// word changed).
///
/// Why it is exact: the cached U was read before this call's L; if U reads the same after
/// L, the high word did not change across L (the counter only counts up).
pub fn read64_cached_upper<B: Claim<Word = u32>>(frc: &Frc<'_, B>, cache: &UpperCache) -> u64 {
    let mut hi = cache.hi.get();
    let mut pair = (hi, 0);
    for _ in 0..ATTEMPTS {
        let lo = frc.read_low();
        // The high word known before this low word (a cached one, or the previous attempt's).
        pair = (hi, lo);
        let now_hi = frc.read_high();
        if now_hi == hi && cache.valid.get() {
            break;
        }
        hi = now_hi;
        cache.hi.set(now_hi);
        cache.valid.set(true);
    }
    (u64::from(pair.0) << 32) | u64::from(pair.1)
}

/// The naive read: the low word, then the high word (2 MMIO reads). A carry out of the
/// low word between the two makes the value 2^32 too far ahead: the tearing hi-lo-hi
/// exists to avoid, which the model reproduces.
pub fn read64_lo_hi<B: Claim<Word = u32>>(frc: &Frc<'_, B>) -> u64 {
    let lo = frc.read_low();
    let hi = frc.read_high();
    (u64::from(hi) << 32) | u64::from(lo)
}
