//! The comparator rule of each Cortex-A9 revision, and the pure arithmetic of the two races
//! this block has: reading a 64-bit counter through two 32-bit registers, and a compare
//! value the counter passes while it is being programmed.
//!
//! # Background
//!
//! The global timer's comparator is 64 bits wide and compares the shared 64-bit counter.
//! The TRM (r2p0 and later) sets the event flag when the counter is **greater than or
//! equal to** the comparator; earlier revisions (r0p0, r1p0, r1p1) set it only when the
//! two are **equal**. Linux's `arm_global_timer.c` refuses to run on a Cortex-A9 before
//! r2p0 for that reason: with an equality compare, a value the counter has already passed
//! never fires (the next equality is 2^64 ticks away).
//!
//! # Solution
//!
//! - With [`CompareRule::GreaterOrEqual`] a value already passed fires as soon as the
//!   comparator is enabled, so programming needs no counter read at all: the driver writes the
//!   value and enables (`set_compare`), and the contract's "a value already reached fires
//!   as soon as possible" is the hardware's own behaviour.
//! - With [`CompareRule::Equal`] the driver enables the comparator, **then** reads the
//!   counter. If the counter is still below the value, the equality is ahead of an
//!   enabled comparator and will be seen. If not, and the event flag is clear, the value
//!   was missed: the driver re-arms at [`retarget`] — as far ahead as programming just
//!   took, plus [`EQUAL_MIN_LEAD`] — at most [`REARM_ATTEMPTS`] times. Late, never lost.
//!
//! # Why does this work
//!
//! The counter only counts up. After the enable, a read showing `now < target` means the
//! counter will pass through `target` later, while the comparator is enabled, so the
//! equality happens. A read showing `now >= target` with the flag clear means the equality
//! happened before the enable. The retarget gives the next attempt at least the time the
//! previous one took, so on a working block the second attempt succeeds.
//!
//! QEMU reports the CPU as r0p0 but implements the r2p0+ rule with a strict compare (the
//! flag sets once `counter > comparator`: one tick late, never early); the npcm750 firmware
//! showed that a comparator enabled behind the counter fires at once.

use hwtimer_core::{ConfigError, Error};

/// How a core's comparator matches the counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CompareRule {
    /// r2p0 and later: the event flag is set while `counter >= comparator` (and the
    /// comparator is enabled). A value already passed fires at once.
    GreaterOrEqual,
    /// r0p0 to r1p1: the event flag is set only when `counter == comparator`. The driver
    /// reads the counter back after each arm and re-arms a value it missed.
    Equal,
}

impl CompareRule {
    /// The rule of the CPU whose Main ID Register reads `midr`: [`Equal`](Self::Equal) for a
    /// Cortex-A9 (implementer 0x41, part 0xC09) of variant 0 or 1,
    /// [`GreaterOrEqual`](Self::GreaterOrEqual) for everything else (Linux makes the same
    /// revision test).
    ///
    /// ```
    /// use a9_global_timer::CompareRule;
    /// assert_eq!(CompareRule::from_midr(0x410f_c090), CompareRule::Equal); // r0p0 (QEMU)
    /// assert_eq!(CompareRule::from_midr(0x411f_c091), CompareRule::Equal); // r1p1
    /// assert_eq!(CompareRule::from_midr(0x412f_c090), CompareRule::GreaterOrEqual); // r2p0
    /// assert_eq!(CompareRule::from_midr(0x413f_c090), CompareRule::GreaterOrEqual); // r3p0
    /// ```
    pub const fn from_midr(midr: u32) -> Self {
        let implementer = midr >> 24;
        let variant = (midr >> 20) & 0xF;
        let part = (midr >> 4) & 0xFFF;
        if implementer == 0x41 && part == 0xC09 && variant < 2 {
            Self::Equal
        } else {
            Self::GreaterOrEqual
        }
    }

    /// Whether a comparator enabled at a value the counter already passed fires.
    pub const fn fires_when_passed(self) -> bool {
        matches!(self, Self::GreaterOrEqual)
    }
}

/// Attempts of a hi-lo-hi read before giving up on a consistent pair. A working counter's
/// high word changes once every 2^32 ticks (43 s at 100 MHz), so the second attempt always
/// succeeds; the bound matters only for a broken bus.
pub const HILOHI_ATTEMPTS: u32 = 3;

/// The most register reads [`hi_lo_hi`] makes: one high read, then a low and a high read
/// per attempt.
pub const HILOHI_MAX_READS: u32 = 1 + 2 * HILOHI_ATTEMPTS;

/// A consistent 64-bit value of a counter exposed as two 32-bit registers that are not
/// latched: read high, low, high again, and retry while the two high reads differ (a
/// carry out of the low word fell between them). The procedure is the TRM's and Linux's.
///
/// Never loops without bound: after [`HILOHI_ATTEMPTS`] attempts it returns the last low
/// word with the high word read **before** it, which can only be too small (a carry after
/// that high read is missing), so time is under-estimated and nothing fires early.
///
/// ```
/// use a9_global_timer::compare::hi_lo_hi;
/// // A carry between the first high read and the low read: retried once.
/// let mut hi = [5u32, 6, 6].into_iter();
/// let mut lo = [0x0000_0003u32, 0x0000_0004].into_iter();
/// let v = hi_lo_hi(|| hi.next().unwrap_or(0), || lo.next().unwrap_or(0));
/// assert_eq!(v, (6 << 32) | 4);
/// ```
pub fn hi_lo_hi(mut read_hi: impl FnMut() -> u32, mut read_lo: impl FnMut() -> u32) -> u64 {
    let mut hi = read_hi();
    let mut last = 0;
    for _ in 0..HILOHI_ATTEMPTS {
        let lo = read_lo();
        let hi2 = read_hi();
        // `hi` was read before `lo`, so this pair is never too large.
        last = (u64::from(hi) << 32) | u64::from(lo);
        if hi2 == hi {
            break;
        }
        hi = hi2;
    }
    last
}

/// Attempts at arming an [`Equal`](CompareRule::Equal)-rule comparator whose value the
/// counter passed while it was being programmed.
pub const REARM_ATTEMPTS: u32 = 4;

/// The smallest lead, in ticks, of a re-armed compare value beyond the programming time.
pub const EQUAL_MIN_LEAD: u64 = 16;

/// The next compare value after one was missed: `now + (now - start) + EQUAL_MIN_LEAD`,
/// where `start` is the counter read before the missed attempt began and `now` the read
/// that found it missed. As far ahead as that attempt took, so the next has the time it
/// needs.
///
/// Errors: [`ConfigError::DeadlineOverflow`] when the value would pass 2^64 (the counter is about
/// to wrap, which only a [`load`](crate::GlobalTimer::load) near the top makes possible:
/// 5849 years from 0 at 100 MHz).
///
/// ```
/// use a9_global_timer::compare::{retarget, EQUAL_MIN_LEAD};
/// assert_eq!(retarget(1_000, 1_040), Ok(1_080 + EQUAL_MIN_LEAD));
/// assert!(retarget(0, u64::MAX).is_err());
/// ```
pub const fn retarget(start: u64, now: u64) -> Result<u64, Error> {
    let took = now.saturating_sub(start);
    match now.checked_add(took) {
        Some(t) => match t.checked_add(EQUAL_MIN_LEAD) {
            Some(t) => Ok(t),
            None => Err(Error::Config(ConfigError::DeadlineOverflow)),
        },
        None => Err(Error::Config(ConfigError::DeadlineOverflow)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scripted(his: &[u32], los: &[u32]) -> (u64, usize) {
        let (mut h, mut l) = (his.iter().copied(), los.iter().copied());
        let reads = core::cell::Cell::new(0usize);
        let v = hi_lo_hi(
            || {
                reads.set(reads.get() + 1);
                h.next().unwrap_or(0)
            },
            || {
                reads.set(reads.get() + 1);
                l.next().unwrap_or(0)
            },
        );
        (v, reads.get())
    }

    #[test]
    fn hi_lo_hi_stable_takes_three_reads() {
        assert_eq!(scripted(&[7, 7], &[42]), ((7 << 32) | 42, 3));
    }

    #[test]
    fn hi_lo_hi_carry_between_reads_retries_once() {
        // Low word read just after the carry: the second high read differs.
        assert_eq!(scripted(&[1, 2, 2], &[0, 1]), ((2 << 32) | 1, 5));
        // Low word read just before the carry: 0xFFFF_FFFF with high 1 would be 2^32 too
        // far if paired with the later high word; retried instead.
        assert_eq!(scripted(&[1, 2, 2], &[0xFFFF_FFFF, 0]), (2 << 32, 5));
    }

    #[test]
    fn hi_lo_hi_gives_up_after_its_bound_and_errs_low() {
        // A high word that changes at every read (broken bus): 7 reads, the value pairs
        // the last low word with the high word read before it.
        let (v, reads) = scripted(&[1, 2, 3, 4], &[10, 20, 30]);
        assert_eq!(reads, HILOHI_MAX_READS as usize);
        assert_eq!(v, (3 << 32) | 30);
    }

    #[test]
    fn from_midr_matches_linux_revision_test() {
        // Linux: Cortex-A9 with (MIDR & 0x00f0000f) < 0x00200000 is refused.
        for variant in 0..16u32 {
            for revision in 0..16u32 {
                let midr = 0x4100_c090 | (variant << 20) | revision | (0xF << 16);
                let linux_refuses = (midr & 0x00f0_000f) < 0x0020_0000;
                assert_eq!(
                    CompareRule::from_midr(midr) == CompareRule::Equal,
                    linux_refuses,
                    "{midr:#x}"
                );
            }
        }
        // Other parts (a Cortex-A5 MPCore, 0xC05) are not affected.
        assert_eq!(
            CompareRule::from_midr(0x410f_c050),
            CompareRule::GreaterOrEqual
        );
    }

    #[test]
    fn retarget_leads_by_the_programming_time() {
        assert_eq!(retarget(100, 100), Ok(100 + EQUAL_MIN_LEAD));
        assert_eq!(retarget(100, 150), Ok(200 + EQUAL_MIN_LEAD));
        // `now` below `start` (garbage reads) does not underflow.
        assert_eq!(retarget(150, 100), Ok(100 + EQUAL_MIN_LEAD));
        assert_eq!(
            retarget(0, u64::MAX - EQUAL_MIN_LEAD),
            Err(ConfigError::DeadlineOverflow.into())
        );
        assert_eq!(
            retarget(u64::MAX - 10, u64::MAX - 10),
            Err(ConfigError::DeadlineOverflow.into())
        );
        assert_eq!(retarget(u64::MAX - 20, u64::MAX - 20), Ok(u64::MAX - 4));
    }
}
