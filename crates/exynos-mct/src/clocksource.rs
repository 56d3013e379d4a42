//! The global free-running counter (FRC) as a clocksource, and 64-bit time from it.
//!
//! # Background: three reads per 64-bit timestamp
//!
//! The FRC is 64 bits wide but read as two 32-bit registers, `G_CNT_U` and `G_CNT_L`. A
//! consistent 64-bit value needs *hi-lo-hi*: read U, L, U again and retry while the two
//! U reads differ (otherwise a carry out of the low word between the two reads gives a
//! value 2^32 off). Each read is a slow MMIO access (hundreds of ns on Exynos5420), and
//! the clocksource is read all the time: Linux measured `gettimeofday()` with hi-lo-hi (3
//! reads), ChromeOS's cached upper half (2 reads) and the low word only (1 read), and
//! dropped to a 32-bit clocksource (the upstream figures:
//! [the crate docs](crate#the-three-read-timestamp-and-what-this-crate-does-about-it)).
//!
//! # The choices, and what each costs
//!
//! | read | MMIO reads | exact vs. the hardware count | precondition |
//! |---|---|---|---|
//! | [`Frc::read_low`] / [`Clocksource::read`] (32 bits) | 1 | yes, modulo 2^32 (wraps every 178.96 s) | none |
//! | [`Frc::read64`] (hi-lo-hi) | 3 (5 or 6 when a carry falls between the reads) | yes | none |
//! | [`FrcTime::now`] (software epoch over the low word) | **1** (+ 3 once, at [`Mct::new`](crate::Mct::new)) | yes while the precondition holds | read at least once per 2^31 ticks (89.48 s at 24 MHz) |
//!
//! Instruction counts per call on the real ISA (Cortex-A9, `armv7a-none-eabi`, QEMU
//! `-icount shift=0`) are printed by the smdkc210 firmware as `bench:` lines; the crate
//! README lists them beside the read counts (`cargo xtask bench`).
//!
//! # The software epoch ([`FrcTime`])
//!
//! The [`Mct`] keeps the last 64-bit time in one critical-section cell, the
//! **one time base** of the block; every [`FrcTime`] (each [`Mct::time`](crate::Mct::time)
//! call, each copy) is a view of it and advances it by the low word's forward distance,
//! using hwtimer-core's half-wrap rule ([`hwtimer_core::extend::extend`]; the algorithm
//! and its proof are documented there). It differs from hwtimer-core's generic
//! [`Extended`](hwtimer_core::Extended) in one way that matters for this block: it starts
//! from the **hardware's 64-bit count** (one hi-lo-hi read in
//! [`Mct::new`](crate::Mct::new)), not from the low word alone, so its values are the
//! numbers the comparators compare against (what
//! [`Comparator`](crate::Comparator)'s `set_compare` takes), and a deadline taken from it
//! can be cross-checked against `G_COMPn`. [`FrcTime::resync`] re-reads the high word
//! (after a long sleep), moving time forward only;
//! [`Mct::load_frc`](crate::Mct::load_frc) starts a new epoch at the loaded count (it
//! needs `&mut Mct`, so no view is alive across the jump).
//!
//! **Precondition:** call [`FrcTime::now`] at least once every 2^31 ticks (89.48 s at
//! 24 MHz), and do not hold a raw reading that long. [`FrcTime`] reports
//! [`max_idle_ticks`](hwtimer_core::Monotonic::max_idle_ticks) = 3/8 of a 32-bit wrap,
//! 0x6000_0000 ticks (67.1 s at 24 MHz): an hwtimer-core `Alarm` on it never programs one
//! step longer than that (nor than its channel's `max_delta`, 78.3 s for both clockevents
//! of this crate), and reads the time at every step's interrupt, so even an idle system
//! reads it at least every 67.1 s plus the programming time and the interrupt latency; the
//! other eighth of a wrap (22.4 s) is their margin. An `Alarm` with nothing to wait for
//! keeps reading it that way with `Alarm::keep_alive` (the embassy and RTIC adapters do
//! when their queue is empty), not with `cancel`, which leaves the time base unread. A
//! clockevent driven directly (no `Alarm`) reads the time base at `set_next_event` only:
//! its user must read it again within the precondition. If the precondition is broken,
//! time loses whole wraps (stays monotonic, falls behind) until
//! [`resync`](FrcTime::resync).
//!
//! # QEMU
//!
//! QEMU quirk 2 (`docs/exynos-mct.md`): in QEMU's model, writing `G_COMPn`, changing a
//! comparator enable in `G_TCON`, or (re)starting the FRC restarts the visible count from
//! the last value written to `G_CNT` (or the last comparator match); the elapsed ticks
//! are lost and the counter jumps *backwards*. [`Frc`] reports what the model shows;
//! [`FrcTime`] treats the backward jump as a stale reading and holds its value until the
//! counter has caught up, so it stays monotonic but does not advance meanwhile. Real
//! hardware does not do this.

use hwtimer_core::{Claim, Clocksource, Continuous, Monotonic, RegisterBusExt};

use crate::{Mct, regs};

/// Attempts of a hi-lo-hi read before giving up on a consistent pair. A real counter's
/// high word changes once every 178.96 s, so the second attempt always succeeds; the
/// bound only matters for a broken bus.
const HILOHI_ATTEMPTS: u32 = 3;

/// The global FRC: a 32-bit [`Continuous`] clocksource (the low word, as Linux's
/// `mct-frc`) and the exact 64-bit reads. `Copy`: hand out as many as needed.
pub struct Frc<'a, B: Claim<Word = u32>> {
    mct: &'a Mct<B>,
}

impl<B: Claim<Word = u32>> Clone for Frc<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Claim<Word = u32>> Copy for Frc<'_, B> {}

impl<'a, B: Claim<Word = u32>> Frc<'a, B> {
    pub(crate) fn new(mct: &'a Mct<B>) -> Self {
        Self { mct }
    }

    /// The low word, `G_CNT_L`: **1 MMIO read**.
    pub fn read_low(&self) -> u32 {
        self.mct.global().read_raw(regs::G_CNT_L)
    }

    /// The high word, `G_CNT_U`: 1 MMIO read (on its own not consistent with any low word).
    pub fn read_high(&self) -> u32 {
        self.mct.global().read_raw(regs::G_CNT_U)
    }

    /// The exact 64-bit count, hi-lo-hi: **3 MMIO reads**, retried while the high word
    /// changes between its two reads (a carry out of the low word in between).
    ///
    /// Never loops unboundedly: after 3 attempts (impossible on a working counter, whose
    /// high word changes every 179 s) it returns the last low word with the high word read
    /// **before** it (as a9-global-timer does): a carry between the two can then only make
    /// the value 2^32 too small, never 2^32 too large (a value from the future would put a
    /// deadline taken from it a wrap late and make the time base jump ahead for good).
    pub fn read64(&self) -> u64 {
        let bus = self.mct.global();
        let mut hi = bus.read_raw(regs::G_CNT_U);
        let mut pair = (hi, 0);
        for _ in 0..HILOHI_ATTEMPTS {
            let lo = bus.read_raw(regs::G_CNT_L);
            pair = (hi, lo);
            let hi2 = bus.read_raw(regs::G_CNT_U);
            if hi2 == hi {
                break;
            }
            hi = hi2;
        }
        (u64::from(pair.0) << 32) | u64::from(pair.1)
    }

    /// FRC rate in Hz.
    pub fn freq_hz(&self) -> u32 {
        self.mct.freq_hz()
    }
}

impl<B: Claim<Word = u32>> Clocksource for Frc<'_, B> {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        self.mct.freq_hz()
    }
    /// `G_CNT_L`: one MMIO read.
    fn read(&self) -> u64 {
        u64::from(self.read_low())
    }
}

/// The FRC counts at a fixed rate without software help (Linux registers it
/// `CLOCK_SOURCE_IS_CONTINUOUS`). Under QEMU, quirk 2 (see the [module docs](self))
/// breaks the "never reset behind the reader's back" part.
impl<B: Claim<Word = u32>> Continuous for Frc<'_, B> {}

/// hwtimer-core's [`extend`](hwtimer_core::extend::extend) specialised to 32 bits: the same half-wrap rule in 32-bit
/// arithmetic (a forward step of at most 2^31 is taken, anything else is a stale read and
/// keeps `last`), so it costs a few instructions on a 32-bit core.
///
/// ```
/// use exynos_mct::clocksource::extend32;
/// assert_eq!(extend32(0xFFFF_FFF0, 0x10), 0x1_0000_0010); // across the carry
/// assert_eq!(extend32(0x1_0000_0010, 0xFFFF_FFF8), 0x1_0000_0010); // stale: unchanged
/// ```
#[inline]
pub const fn extend32(last: u64, low: u32) -> u64 {
    let delta = low.wrapping_sub(last as u32);
    if delta <= 1 << 31 {
        last.saturating_add(delta as u64)
    } else {
        last
    }
}

/// [`extend32`] as a step for hwtimer-core's [`Published::advance_by`](hwtimer_core::extend::Published::advance_by):
/// `Some(last + delta)` for a forward step of 1 to 2^31 ticks, `None` for no step, a stale
/// reading, or a sum past `u64::MAX` (within 2^31 ticks of the top, 89 s before the 64-bit
/// count itself wraps after 24,000 years, the time then stays where it is, where `extend32`
/// saturates: both stay monotonic).
///
/// ```
/// use exynos_mct::clocksource::step32;
/// assert_eq!(step32(0xFFFF_FFF0, 0x10), Some(0x1_0000_0010));
/// assert_eq!(step32(0x1_0000_0010, 0x10), None); // no step
/// assert_eq!(step32(0x1_0000_0010, 0xFFFF_FFF8), None); // stale
/// ```
#[inline]
pub const fn step32(last: u64, low: u32) -> Option<u64> {
    let delta = low.wrapping_sub(last as u32);
    if delta.wrapping_sub(1) < 1 << 31 {
        last.checked_add(delta as u64)
    } else {
        None
    }
}

/// The published 64-bit time of the block's one time base: what every [`FrcTime`] reads
/// and advances.
///
/// Where the target has 64-bit atomics (the Cortex-A9: `ldrexd`/`strexd`) it is one
/// `AtomicU64`; [`advance_low`](Self::advance_low) loads it, extends the low word from it
/// ([`step32`]'s rule) and publishes the result with an atomic maximum (`fetch_max`, one
/// exclusive load/store loop) instead of a compare-and-swap loop: no retry computes the
/// step again, and the maximum never moves the time back. Elsewhere it is hwtimer-core's
/// [`Published`](hwtimer_core::extend::Published).
///
/// Why the value returned is right without a retry, on any number of cores: the step is
/// computed from `last`, a value the time base held when the call loaded it, and the low
/// word read before that load. If another context published a newer value in between,
/// the maximum keeps whichever is larger, so the time base never goes back; the call
/// returns its own reading, which is the extension of its low word (the same value a
/// retry from the newer time would compute while that one is within half a wrap behind
/// it; a reading that is older than the newer time is returned as what it is, a reading
/// taken before that one). Every value a context gets is at least what was published
/// before its call began (it loaded at least that, by coherence of the one word), so
/// time never goes backwards for any reader or across any synchronisation: what a value
/// returned earlier published is seen by every later load. `Relaxed` is enough: the word
/// carries no other data.
pub(crate) struct Time64 {
    #[cfg(target_has_atomic = "64")]
    last: AtomicU64,
    #[cfg(not(target_has_atomic = "64"))]
    last: hwtimer_core::extend::Published,
}

#[cfg(all(target_has_atomic = "64", not(loom)))]
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
// The model-checked build (`RUSTFLAGS="--cfg loom"`): loom's atomics, so `loom_check`
// below explores the interleavings of two cores advancing the time base.
#[cfg(all(target_has_atomic = "64", loom))]
use ::loom::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[cfg(target_has_atomic = "64")]
impl Time64 {
    /// A time base starting at `start`.
    pub(crate) fn new(start: u64) -> Self {
        Self {
            last: AtomicU64::new(start),
        }
    }

    /// The last published time.
    #[inline]
    pub(crate) fn last(&self) -> u64 {
        self.last.load(Relaxed)
    }

    /// Extend the low word `low` (read before this call) from the published time
    /// ([`step32`]: a forward step of 1 to 2^31 ticks; no step or a stale reading keeps
    /// the time), publish it if it is ahead, and return it.
    #[inline]
    pub(crate) fn advance_low(&self, low: u32) -> u64 {
        let last = self.last.load(Relaxed);
        let Some(now) = step32(last, low) else {
            return last;
        };
        self.last.fetch_max(now, Relaxed);
        now
    }

    /// Move the time forward to `value` if it is ahead; returns the time afterwards.
    #[inline]
    pub(crate) fn raise(&self, value: u64) -> u64 {
        let prev = self.last.fetch_max(value, Relaxed);
        prev.max(value)
    }

    /// Set the time, backwards too (exclusive access: a new epoch).
    pub(crate) fn set(&mut self, value: u64) {
        self.last.store(value, Relaxed);
    }
}

#[cfg(not(target_has_atomic = "64"))]
impl Time64 {
    /// A time base starting at `start`.
    pub(crate) const fn new(start: u64) -> Self {
        Self {
            last: hwtimer_core::extend::Published::new(start),
        }
    }

    /// The last published time.
    #[inline]
    pub(crate) fn last(&self) -> u64 {
        self.last.last()
    }

    /// Extend the low word `low` ([`step32`]) and publish it; returns the time.
    #[inline]
    pub(crate) fn advance_low(&self, low: u32) -> u64 {
        self.last.advance_by(|last| step32(last, low))
    }

    /// Move the time forward to `value` if it is ahead; returns the time afterwards.
    #[inline]
    pub(crate) fn raise(&self, value: u64) -> u64 {
        self.last.raise(value)
    }

    /// Set the time, backwards too (exclusive access: a new epoch).
    pub(crate) fn set(&mut self, value: u64) {
        self.last.set(value);
    }
}

/// Monotonic 64-bit FRC time at **one MMIO read** per [`now`](Monotonic::now): a view of
/// the software epoch the [`Mct`] keeps over the low word, started from the hardware's
/// 64-bit count at [`Mct::new`]. See the [module docs](self) for the precondition (read
/// once per 89.48 s at 24 MHz).
///
/// `Copy`: every view, from [`Mct::time`] or a copy, reads and advances **one** published
/// time, so all readers, including interrupt handlers, see one time base that never goes
/// backwards, and a view that was not read for a while is as fresh as the last read
/// through any other.
pub struct FrcTime<'a, B: Claim<Word = u32>> {
    mct: &'a Mct<B>,
}

impl<B: Claim<Word = u32>> Clone for FrcTime<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Claim<Word = u32>> Copy for FrcTime<'_, B> {}

impl<'a, B: Claim<Word = u32>> FrcTime<'a, B> {
    pub(crate) fn new(mct: &'a Mct<B>) -> Self {
        Self { mct }
    }

    /// Publish a raw low word read elsewhere; returns the time it maps to.
    #[inline]
    pub fn update_from_low(&self, low: u32) -> u64 {
        self.mct.published().advance_low(low)
    }

    /// Re-read the exact 64-bit count (3 MMIO reads) and move time forward to it if it is
    /// ahead; never moves backwards. Use after a sleep longer than the precondition allows.
    pub fn resync(&self) -> u64 {
        let hw = self.mct.frc().read64();
        self.mct.published().raise(hw)
    }

    /// The last published time, without reading the hardware.
    pub fn last(&self) -> u64 {
        self.mct.published().last()
    }

    /// The FRC it reads.
    pub fn frc(&self) -> Frc<'a, B> {
        self.mct.frc()
    }
}

impl<B: Claim<Word = u32>> Monotonic for FrcTime<'_, B> {
    /// One MMIO read, then the published time moved forward as one atomic step (a 64-bit
    /// atomic maximum where the target has 64-bit atomics: interrupts are never masked; a
    /// short critical section elsewhere, with the read outside it).
    #[inline]
    fn now(&self) -> u64 {
        let low = self.mct.frc().read_low();
        self.update_from_low(low)
    }
    #[inline]
    fn freq_hz(&self) -> u32 {
        self.mct.freq_hz()
    }
    /// The low word is extended in software, which needs a read at least every half wrap
    /// (89.48 s at 24 MHz): this asks for one every 3/8 of a 32-bit wrap, 0x6000_0000 ticks
    /// (67.1 s at 24 MHz), so an [`Alarm`](hwtimer_core::Alarm) steps long waits (and
    /// `keep_alive` an idle one) that often, with an eighth of a wrap (22.4 s) left for
    /// programming and interrupt latency.
    #[inline]
    fn max_idle_ticks(&self) -> u64 {
        const { hwtimer_core::extend::max_idle_ticks(32) }
    }
}

impl<B: Claim<Word = u32>> core::fmt::Debug for FrcTime<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FrcTime")
            .field("last", &self.last())
            .finish()
    }
}

/// `loom` model check of [`Time64`]: every interleaving of two cores advancing the time
/// base from their own low-word readings while a third reads it. Each value a core gets is
/// at least what was published before its call and at least its own previous value, a
/// reader never sees the published time go back, and the final time is the furthest
/// reading (no step lost). Run with
/// `RUSTFLAGS="--cfg loom" cargo test -p exynos-mct --lib --release clocksource::loom_check`.
#[cfg(all(test, loom, target_has_atomic = "64"))]
mod loom_check {
    use super::Time64;
    use ::loom::sync::Arc;
    use ::loom::thread;

    fn core(time: &Time64, lows: [u32; 2]) {
        let mut mine = 0;
        for low in lows {
            let seen = time.last();
            let now = time.advance_low(low);
            assert!(now >= seen && now >= mine, "{now} {seen} {mine}");
            mine = now;
        }
    }

    #[test]
    fn two_cores_advancing_never_go_back_and_lose_no_step() {
        let mut builder = ::loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let time = Arc::new(Time64::new(100));
            let a = {
                let time = time.clone();
                thread::spawn(move || core(&time, [105, 120]))
            };
            let b = {
                let time = time.clone();
                thread::spawn(move || core(&time, [110, 115]))
            };
            // The reader is a thread of its own: loom runs spawned threads only after the
            // main thread's next yield point, so reads made here would only ever see the
            // start value (with `fetch_max` replaced by a plain `store`, this check then
            // still passed; as a thread it fails).
            let reader = {
                let time = time.clone();
                thread::spawn(move || {
                    let first = time.last();
                    let second = time.last();
                    assert!(second >= first, "time went back: {first} then {second}");
                })
            };
            a.join().unwrap();
            b.join().unwrap();
            reader.join().unwrap();
            assert_eq!(time.last(), 120);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwtimer_core::extend::extend;

    /// Every pair of a published time `last` and a low word `low` the step tests try:
    /// times at the edges of the 32-bit and 64-bit ranges, low words around each half-wrap
    /// and the distances between them.
    fn for_each_case(mut f: impl FnMut(u64, u32)) {
        for last in [
            0u64,
            1,
            0x7FFF_FFFF,
            0xFFFF_FFFF,
            0x5_8000_0001,
            u64::MAX - 5,
            u64::MAX,
        ] {
            for low in [0u32, 1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF] {
                for d in [0u32, 1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001] {
                    f(last, low.wrapping_add(d));
                }
            }
        }
    }

    /// The step agrees with the extension: `None` exactly where `extend32` keeps `last`.
    #[test]
    fn step32_matches_extend32() {
        for_each_case(|last, low| {
            let e = extend32(last, low);
            match step32(last, low) {
                Some(now) => assert_eq!((now, now > last), (e, true), "{last:#x} {low:#x}"),
                // No step, stale, or the top of the range, where extend32 saturates.
                None => assert!(e == last || e == u64::MAX, "{last:#x} {low:#x}"),
            }
        });
    }

    /// The time base moves exactly as `step32` says: forward by the low word's distance
    /// for 1..=2^31 ticks, unchanged for no step, a stale reading or a sum past
    /// `u64::MAX`; and `raise` never moves it back.
    #[test]
    fn time64_advances_as_step32_says() {
        for_each_case(|last, low| {
            let time = Time64::new(last);
            let want = step32(last, low).unwrap_or(last);
            assert_eq!(time.advance_low(low), want, "{last:#x} {low:#x}");
            assert_eq!(time.last(), want, "{last:#x} {low:#x}");
            assert_eq!(time.raise(last.saturating_sub(1)), want);
            assert_eq!(time.last(), want);
        });
    }

    /// A reading older than a time another context published meanwhile is returned as the
    /// reading it is, and leaves the newer time published (the maximum keeps it).
    #[test]
    fn time64_older_reading_never_moves_the_published_time_back() {
        let time = Time64::new(1_000);
        // Another context publishes 1_010 between this call's low-word read (1_005) and
        // its load: the load sees 1_010, so the reading is stale and the time is 1_010.
        assert_eq!(time.advance_low(1_010), 1_010);
        assert_eq!(time.advance_low(1_005), 1_010);
        assert_eq!(time.last(), 1_010);
    }

    /// Two threads advancing one time base with interleaved low words: every value a thread
    /// gets is at least what it had seen published before the call and at least the last
    /// one it got, and the final time is the furthest step (no step lost to a race).
    #[test]
    fn time64_two_threads_never_go_back() {
        let time = std::sync::Arc::new(Time64::new(0xFFFF_0000));
        let threads: std::vec::Vec<_> = (0..2u32)
            .map(|t| {
                let time = time.clone();
                std::thread::spawn(move || {
                    let mut mine = 0u64;
                    for i in 0..100_000u32 {
                        let low = 0xFFFF_0000u32.wrapping_add(i.wrapping_mul(2).wrapping_add(t));
                        let seen = time.last();
                        let now = time.advance_low(low);
                        assert!(now >= mine && now >= seen, "{now:#x} {mine:#x} {seen:#x}");
                        mine = now;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(time.last(), 0xFFFF_0000 + 2 * 99_999 + 1);
    }

    /// The specialised extension agrees with hwtimer-core's generic one on the boundaries
    /// of the half-wrap rule and across carries.
    #[test]
    fn extend32_matches_timer_core_extend() {
        let lasts = [
            0u64,
            1,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0x1_0000_0000,
            0x5_8000_0001,
            u64::MAX - 5,
        ];
        let lows = [
            0u32,
            1,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            0xFFFF_FFFE,
            0xFFFF_FFFF,
        ];
        for &last in &lasts {
            for &low in &lows {
                for d in [0u32, 1, 0x8000_0000, 0x8000_0001] {
                    let low = low.wrapping_add(d);
                    assert_eq!(
                        extend32(last, low),
                        extend(last, u64::from(low), 32),
                        "{last:#x} {low:#x}"
                    );
                }
            }
        }
    }
}
