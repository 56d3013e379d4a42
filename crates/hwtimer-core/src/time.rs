//! Conversions between nanoseconds and ticks that round the safe way.
//!
//! A delay or a timeout converted to ticks must never come out *shorter* than asked, so
//! these helpers round up, compute in `u128` so no input overflows, and saturate at
//! `u64::MAX` instead of wrapping. A zero frequency yields the saturated value (a wait
//! that never ends early), never a division by zero. Every product is of a `u64` and a
//! `u32` (or the constant 10^9 < 2^30) in `u128`, below 2^96, so the `wrapping_mul`s below
//! never actually wrap; they only say so to the overflow lints.

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// `ns` nanoseconds as ticks of a `hz` clock, rounded **up**.
///
/// ```
/// use hwtimer_core::time::ns_to_ticks_ceil;
/// // 10 µs at 3.125 MHz is 31.25 ticks: 32 ticks cover it.
/// assert_eq!(ns_to_ticks_ceil(10_000, 3_125_000), 32);
/// assert_eq!(ns_to_ticks_ceil(0, 3_125_000), 0);
/// assert_eq!(ns_to_ticks_ceil(1, 0), u64::MAX);
/// ```
pub const fn ns_to_ticks_ceil(ns: u64, hz: u32) -> u64 {
    if hz == 0 {
        return u64::MAX;
    }
    // u64 × u32 < 2^96: the product cannot wrap in u128.
    let t = (ns as u128)
        .wrapping_mul(hz as u128)
        .div_ceil(NANOS_PER_SEC as u128);
    saturate(t)
}

/// `ticks` ticks of a `hz` clock as nanoseconds, rounded **down** (the time that has
/// certainly elapsed).
///
/// ```
/// use hwtimer_core::time::ticks_to_ns_floor;
/// assert_eq!(ticks_to_ns_floor(33, 3_125_000), 10_560);
/// assert_eq!(ticks_to_ns_floor(1, 3), 333_333_333);
/// ```
pub const fn ticks_to_ns_floor(ticks: u64, hz: u32) -> u64 {
    if hz == 0 {
        return u64::MAX;
    }
    saturate(floor_div(
        (ticks as u128).wrapping_mul(NANOS_PER_SEC as u128),
        hz as u128,
    ))
}

/// `ticks` ticks of a `hz` clock as nanoseconds, rounded **up**.
///
/// ```
/// use hwtimer_core::time::ticks_to_ns_ceil;
/// assert_eq!(ticks_to_ns_ceil(1, 3), 333_333_334);
/// ```
pub const fn ticks_to_ns_ceil(ticks: u64, hz: u32) -> u64 {
    if hz == 0 {
        return u64::MAX;
    }
    saturate(
        (ticks as u128)
            .wrapping_mul(NANOS_PER_SEC as u128)
            .div_ceil(hz as u128),
    )
}

/// Re-express `ticks` of a `from_hz` clock as ticks of a `to_hz` clock, rounded **up**.
///
/// Used when a clockevent counts at a different rate from the clocksource that defines
/// time (Exynos MCT local timers tick at half the FRC rate).
///
/// ```
/// use hwtimer_core::time::convert_ticks_ceil;
/// assert_eq!(convert_ticks_ceil(3, 24_000_000, 12_000_000), 2);
/// assert_eq!(convert_ticks_ceil(5, 100, 100), 5);
/// ```
pub const fn convert_ticks_ceil(ticks: u64, from_hz: u32, to_hz: u32) -> u64 {
    if from_hz == to_hz {
        return ticks;
    }
    if from_hz == 0 {
        return u64::MAX;
    }
    saturate(
        (ticks as u128)
            .wrapping_mul(to_hz as u128)
            .div_ceil(from_hz as u128),
    )
}

/// Re-express `ticks` of a `from_hz` clock as ticks of a `to_hz` clock, rounded **down**.
///
/// ```
/// use hwtimer_core::time::convert_ticks_floor;
/// assert_eq!(convert_ticks_floor(3, 24_000_000, 12_000_000), 1);
/// ```
pub const fn convert_ticks_floor(ticks: u64, from_hz: u32, to_hz: u32) -> u64 {
    if from_hz == to_hz {
        return ticks;
    }
    if from_hz == 0 {
        return u64::MAX;
    }
    saturate(floor_div(
        (ticks as u128).wrapping_mul(to_hz as u128),
        from_hz as u128,
    ))
}

/// The all-ones mask of a `bits`-wide counter; `bits` is clamped to `1..=64`.
///
/// ```
/// use hwtimer_core::time::counter_mask;
/// assert_eq!(counter_mask(28), 0x0FFF_FFFF);
/// assert_eq!(counter_mask(64), u64::MAX);
/// assert_eq!(counter_mask(0), 1);
/// ```
#[inline]
pub const fn counter_mask(bits: u32) -> u64 {
    let bits = if bits == 0 {
        1
    } else if bits > 64 {
        64
    } else {
        bits
    };
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits).wrapping_sub(1) // bits is 1..=63 here
    }
}

/// `n / d`, saturated for `d == 0` (callers return early for a zero rate already).
const fn floor_div(n: u128, d: u128) -> u128 {
    match n.checked_div(d) {
        Some(q) => q,
        None => u128::MAX,
    }
}

const fn saturate(v: u128) -> u64 {
    if v > u64::MAX as u128 {
        u64::MAX
    } else {
        v as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_never_short() {
        for hz in [
            1u32,
            3,
            32_768,
            3_125_000,
            24_000_000,
            100_000_000,
            u32::MAX,
        ] {
            for ns in [0u64, 1, 7, 999, 10_000, 1_000_000_007, u64::MAX / 3] {
                let t = ns_to_ticks_ceil(ns, hz);
                if t != u64::MAX {
                    assert!(ticks_to_ns_ceil(t, hz) >= ns, "hz={hz} ns={ns} t={t}");
                }
            }
        }
    }

    #[test]
    fn saturates_instead_of_wrapping() {
        assert_eq!(ns_to_ticks_ceil(u64::MAX, u32::MAX), u64::MAX);
        assert_eq!(ticks_to_ns_floor(u64::MAX, 1), u64::MAX);
        assert_eq!(convert_ticks_ceil(u64::MAX, 1, 2), u64::MAX);
    }
}
