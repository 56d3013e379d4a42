//! A 64-bit value published through 32-bit atomics, for targets without 64-bit atomics
//! (MIPS32, so every Otto [`Extended`](crate::Extended); ARMv7-M): lock-free readers on
//! every core, writers serialised by the caller.
//!
//! # Protocol (a sequence lock)
//!
//! Three `AtomicU32`: a generation `seq` and the two halves. A writer, alone (the caller
//! serialises writers; [`Published`](crate::extend::Published) does it with a
//! `critical-section`), makes `seq` odd, issues a release fence, stores both halves and
//! makes `seq` even again with a release store. A reader loads `seq` (acquire), both
//! halves, issues an acquire fence and loads `seq` again: if both loads are the same even
//! value, no write overlapped its half loads and the pair is one written value. If a
//! half it loaded came from a write that began after its first `seq` load, the fences
//! make that write's odd `seq` visible to the second load, so the pair is rejected: a
//! reader never returns a torn value.
//!
//! A reader retries [`READ_RETRIES`] times ([`try_read`](SeqLockU64::try_read) then
//! returns `None`), so a reader never spins for a writer unboundedly; a writer on another
//! core holds `seq` odd for two stores. The generation wraps after 2^31 writes; a reader
//! would have to stall between its two `seq` loads for exactly a multiple of 2^31 writes
//! to be fooled.
//!
//! Checked with `loom` (`tests/loom.rs`, run with
//! `RUSTFLAGS="--cfg loom" cargo test -p hwtimer-core --test loom --release`) and by a
//! two-thread stress test (`tests/timing/seqlock.rs`).

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, Ordering, fence};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU32, Ordering, fence};

/// Attempts of a lock-free read before [`SeqLockU64::try_read`] gives up.
#[cfg(not(loom))]
pub const READ_RETRIES: u32 = 8;
/// Attempts of a lock-free read before [`SeqLockU64::try_read`] gives up (fewer under
/// loom, whose state space grows with every retry; the protocol is the same).
#[cfg(loom)]
pub const READ_RETRIES: u32 = 2;

/// A 64-bit value behind a sequence lock on 32-bit atomics; see the [module docs](self).
pub struct SeqLockU64 {
    seq: AtomicU32,
    hi: AtomicU32,
    lo: AtomicU32,
}

#[inline]
const fn halves(value: u64) -> (u32, u32) {
    ((value >> 32) as u32, value as u32)
}

#[inline]
const fn join(hi: u32, lo: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

impl SeqLockU64 {
    /// A lock holding `value`.
    #[cfg(not(loom))]
    pub const fn new(value: u64) -> Self {
        let (hi, lo) = halves(value);
        Self {
            seq: AtomicU32::new(0),
            hi: AtomicU32::new(hi),
            lo: AtomicU32::new(lo),
        }
    }

    /// A lock holding `value` (loom's atomics have no `const` constructor).
    #[cfg(loom)]
    pub fn new(value: u64) -> Self {
        let (hi, lo) = halves(value);
        Self {
            seq: AtomicU32::new(0),
            hi: AtomicU32::new(hi),
            lo: AtomicU32::new(lo),
        }
    }

    /// The value, lock-free: `None` when each of [`READ_RETRIES`] attempts overlapped a
    /// write. Never a torn value.
    #[inline]
    pub fn try_read(&self) -> Option<u64> {
        for _ in 0..READ_RETRIES {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 0 {
                let hi = self.hi.load(Ordering::Relaxed);
                let lo = self.lo.load(Ordering::Relaxed);
                fence(Ordering::Acquire);
                let s2 = self.seq.load(Ordering::Relaxed);
                if s1 == s2 {
                    return Some(join(hi, lo));
                }
            }
            #[cfg(loom)]
            loom::thread::yield_now();
            #[cfg(not(loom))]
            core::hint::spin_loop();
        }
        None
    }

    /// The value, for a caller that excludes every writer (it holds the lock writers
    /// hold): one load of each half.
    #[inline]
    pub fn read_exclusive(&self) -> u64 {
        join(
            self.hi.load(Ordering::Relaxed),
            self.lo.load(Ordering::Relaxed),
        )
    }

    /// Publish `value`. Writers must be serialised by the caller (two writers at once
    /// would not be unsound, every access is atomic, but could leave one's high half with
    /// the other's low half); readers need nothing.
    #[inline]
    pub fn write_exclusive(&self, value: u64) {
        let (hi, lo) = halves(value);
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        self.hi.store(hi, Ordering::Relaxed);
        self.lo.store(lo, Ordering::Relaxed);
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }
}

impl core::fmt::Debug for SeqLockU64 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("SeqLockU64").field(&self.try_read()).finish()
    }
}
