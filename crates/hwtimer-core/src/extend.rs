//! Width extension: a monotonic 64-bit time from an N-bit free-running counter.
//!
//! # Background
//!
//! Timer hardware rarely counts in 64 bits. The Realtek Otto counter has 28 bits (it wraps
//! every 85.9 s at 3.125 MHz), the Exynos MCT free-running counter is read one 32-bit half
//! at a time (seed 001: reading both halves consistently costs three slow MMIO reads), and
//! most MCU timers have 16 or 32. Deadlines, on the other hand, want a 64-bit time that
//! never wraps, so that "is this deadline in the past?" is a plain integer comparison.
//!
//! # Solution
//!
//! Keep, in software, the last extended value `last` (64 bits). On each read, take the raw
//! counter `raw`, compute how far it moved since the low bits of `last`,
//!
//! ```text
//! delta = (raw - last) mod 2^N
//! ```
//!
//! and decide:
//!
//! - `delta <= 2^(N-1)` (at most half a wrap): the counter moved forward by `delta`;
//!   the new time is `last + delta`.
//! - `delta > 2^(N-1)`: `raw` is *older* than `last` (it was read before another
//!   context published a newer value); the time is `last` unchanged.
//!
//! The update is a single compare-free store done inside a critical section; the raw read
//! happens **before** the critical section, so an MMIO read never lengthens the time
//! interrupts are masked.
//!
//! # Why does this work?
//!
//! Two kinds of reader meet in `last`: a reader whose raw value is newer than `last`
//! (the normal case) and a reader that read the counter, was preempted, and finds that an
//! interrupt handler already published a newer `last`. In modular arithmetic both
//! look the same unless we bound one of them. The rule above bounds both by half a wrap:
//!
//! - a *forward* step is always taken as forward if it is at most `2^(N-1)` ticks, which
//!   holds as long as the time is sampled at least once per half wrap;
//! - a *stale* raw value is always recognised as stale if it is less than `2^(N-1)` ticks
//!   behind, which holds as long as no reader is preempted between its raw read and its
//!   update for half a wrap or more.
//!
//! Because a stale value maps to `last`, the published time never decreases, on any core,
//! with any interleaving. Because every forward step is added exactly once (the critical
//! section serialises the read-modify-write of `last`), no wrap is ever lost or counted
//! twice.
//!
//! # Precondition
//!
//! **Read the time at least once per half wrap** (`2^(N-1)` ticks: 42.9 s for the 28-bit
//! Otto counter at 3.125 MHz, 89.5 s for a 32-bit counter at 24 MHz), and never hold a raw
//! value for that long before handing it in. A system that may sleep longer than that
//! calls [`Extended::now`] from a periodic hook. An [`Alarm`](crate::clockevent::Alarm)
//! on this time base does it for free: `Extended` reports
//! [`max_idle_ticks`](crate::Monotonic::max_idle_ticks) of 3/8 of a wrap, and the alarm
//! never programs a step longer than that, whatever the clockevent's own `max_delta`; it
//! re-arms long deadlines in steps and reads the time at every step. (A step of exactly
//! half a wrap would not be enough: the gap between two reads is the step plus the time to
//! program it and the interrupt latency.) If the precondition is broken, time loses whole wraps (it
//! stays monotonic but falls behind); it never jumps backwards.
//!
//! For a 64-bit counter the extension is the identity (and the precondition is moot).
//! The 64-bit result saturates at `u64::MAX` instead of wrapping (a 64-bit counter that
//! starts near its top would otherwise wrap the published time back to zero), so even that
//! corner keeps time monotonic.
//!
//! # Example
//!
//! ```
//! use hwtimer_core::extend::extend;
//! // A 28-bit counter just before the wrap, then just after it.
//! let t0 = extend(0x0FFF_FFF0, 0x0FFF_FFF0, 28);
//! let t1 = extend(t0, 0x0000_0010, 28);
//! assert_eq!(t1, 0x1000_0010); // 0x20 ticks later, across the wrap
//! // A stale read (taken before t1 was published) does not move time backwards.
//! assert_eq!(extend(t1, 0x0FFF_FFF8, 28), t1);
//! ```

use core::cell::Cell;

use critical_section::Mutex;

use crate::clocksource::{Clocksource, Monotonic};
use crate::time::counter_mask;

/// Extend the raw `bits`-wide counter value `raw`, given the last published 64-bit time
/// `last`; see the [module documentation](self) for the algorithm and its precondition.
///
/// Pure and branch-light, so it can be tested exhaustively at the wrap and half-wrap
/// boundaries. `raw` bits above `bits` are ignored; `bits` is clamped to `1..=64`.
#[inline]
pub const fn extend(last: u64, raw: u64, bits: u32) -> u64 {
    let mask = counter_mask(bits);
    let half = (mask >> 1).wrapping_add(1); // 2^(bits-1); mask >> 1 < 2^63, no wrap
    let delta = (raw & mask).wrapping_sub(last) & mask;
    if delta <= half {
        last.saturating_add(delta)
    } else {
        last
    }
}

/// A [`Clocksource`] of any width turned into a 64-bit [`Monotonic`] time.
///
/// One counter read plus one short critical section per [`now`](Monotonic::now). Share
/// it by reference (`&Extended<C>` is also `Monotonic`); keep it in a `static` to share it
/// with interrupt handlers. The first value is the raw counter value at construction, so
/// on a counter that starts from zero the extended time starts from zero as well.
pub struct Extended<C: Clocksource> {
    source: C,
    last: Mutex<Cell<u64>>,
}

impl<C: Clocksource> Extended<C> {
    /// Start extending `source` (reads it once).
    pub fn new(source: C) -> Self {
        let last = source.read() & source.mask();
        Self {
            source,
            last: Mutex::new(Cell::new(last)),
        }
    }

    /// The underlying clocksource, for raw reads.
    pub fn source(&self) -> &C {
        &self.source
    }

    /// Publish a raw value obtained elsewhere (for instance latched by an overflow or
    /// half-period interrupt handler) and return the extended time it maps to.
    pub fn update_from_raw(&self, raw: u64) -> u64 {
        let bits = self.source.bits();
        critical_section::with(|cs| {
            let cell = self.last.borrow(cs);
            let now = extend(cell.get(), raw, bits);
            cell.set(now);
            now
        })
    }

    /// The last published time, without reading the hardware.
    pub fn last(&self) -> u64 {
        critical_section::with(|cs| self.last.borrow(cs).get())
    }
}

impl<C: Clocksource> Monotonic for Extended<C> {
    fn now(&self) -> u64 {
        // Read outside the critical section: see "Why does this work?" above.
        let raw = self.source.read();
        self.update_from_raw(raw)
    }

    fn freq_hz(&self) -> u32 {
        self.source.freq_hz()
    }

    /// Three eighths of a wrap: the half-wrap precondition with an eighth of a wrap left
    /// for programming time and interrupt latency ([`max_idle_ticks`] for a width).
    fn max_idle_ticks(&self) -> u64 {
        max_idle_ticks(self.source.bits())
    }
}

/// The longest gap between reads an extended `bits`-wide counter tolerates with margin:
/// `3/8` of a wrap (half a wrap is the hard limit; the other eighth absorbs the time to
/// program an alarm and the interrupt latency). `u64::MAX` for 64 bits.
///
/// ```
/// use hwtimer_core::extend::max_idle_ticks;
/// assert_eq!(max_idle_ticks(28), 0x0600_0000); // 32.2 s of an 85.9 s wrap at 3.125 MHz
/// assert_eq!(max_idle_ticks(64), u64::MAX);
/// ```
pub const fn max_idle_ticks(bits: u32) -> u64 {
    if bits >= 64 {
        return u64::MAX;
    }
    // bits < 64 here: wrap <= 2^63, 3 * wrap < 2^65, far from the u128 limit.
    let wrap = (counter_mask(bits) as u128).wrapping_add(1);
    (wrap.wrapping_mul(3) / 8) as u64
}

impl<C: Clocksource + core::fmt::Debug> core::fmt::Debug for Extended<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Extended")
            .field("source", &self.source)
            .field("last", &self.last())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference model: the true 64-bit time is known; feed its low bits.
    fn check_walk(bits: u32, step: u64, steps: u64, start: u64) {
        let mask = counter_mask(bits);
        let mut truth = start;
        let mut last = extend(start & mask, start & mask, bits);
        // `last` starts at the raw value; track the offset between truth and extension.
        let offset = truth - last;
        for _ in 0..steps {
            truth += step;
            last = extend(last, truth & mask, bits);
            assert_eq!(last + offset, truth, "bits={bits} step={step:#x}");
        }
    }

    #[test]
    fn extends_across_many_wraps_for_each_width() {
        for bits in [28u32, 32, 48] {
            let mask = counter_mask(bits);
            let half = (mask >> 1) + 1;
            // Small steps, large steps and exactly half-wrap steps, starting near a wrap.
            check_walk(bits, 1, 100, mask - 50);
            check_walk(bits, 0x0001_2345, 10_000, mask - 3);
            check_walk(bits, half - 1, 64, 0);
            check_walk(bits, half, 64, 7); // exactly at the half period: still forward
        }
    }

    #[test]
    fn exactly_half_period_is_forward_and_one_more_is_stale() {
        for bits in [28u32, 32, 48] {
            let half = 1u64 << (bits - 1);
            let t0 = 1000;
            assert_eq!(extend(t0, t0 + half, bits), t0 + half);
            // Half + 1 ahead is indistinguishable from half - 1 behind: treated as stale.
            assert_eq!(extend(t0, t0 + half + 1, bits), t0);
        }
    }

    #[test]
    fn stale_reads_never_move_time_backwards() {
        for bits in [28u32, 32, 48, 64] {
            let mask = counter_mask(bits);
            let last: u64 = (5u64 << bits.min(60)) | 0x40;
            let last = if bits == 64 { 0x40 + (1 << 40) } else { last };
            for behind in [1u64, 2, 0x40, 0x41, (mask >> 1) - 1] {
                let raw = last.wrapping_sub(behind) & mask;
                assert_eq!(extend(last, raw, bits), last, "bits={bits} behind={behind}");
            }
        }
    }

    #[test]
    fn sixty_four_bits_is_identity_forward() {
        assert_eq!(extend(5, 9, 64), 9);
        assert_eq!(extend(9, 5, 64), 9);
        assert_eq!(extend(0, 1 << 63, 64), 1 << 63);
    }

    #[test]
    fn raw_bits_above_width_are_ignored() {
        assert_eq!(extend(0x10, 0xF000_0000_0000_0011, 28), 0x11);
    }
}
