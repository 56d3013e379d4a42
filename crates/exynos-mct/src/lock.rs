//! The lock that [`Mct`](crate::Mct) owns for its shared registers (`G_TCON`, `G_INT_ENB`):
//! a test-and-set spin lock on one atomic word, taken with a **bounded** spin and never
//! with interrupts masked. The rules and the bound: [Shared registers](crate::Mct#shared-registers).

#[cfg(loom)]
use ::loom::sync::atomic::{AtomicBool, Ordering};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicBool, Ordering};

/// A spin lock taken by [`try_lock`](Self::try_lock) with a bounded spin.
#[derive(Debug, Default)]
pub(crate) struct SpinLock {
    held: AtomicBool,
}

/// Held until dropped.
#[must_use]
pub(crate) struct Guard<'a> {
    lock: &'a SpinLock,
}

impl SpinLock {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Self {
            held: AtomicBool::new(false),
        }
    }

    /// loom's atomics have no `const fn new`.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Self {
            held: AtomicBool::new(false),
        }
    }

    /// Take the lock, trying up to `1 + spins` times and calling `between` (one MMIO read
    /// of a status register: a spin step as long as one of the holder's polls) before each
    /// retry. `None` when it stayed held: the holder is another core still in its bounded
    /// wait, or the context this one interrupted on the same core (which cannot run until
    /// this one returns).
    #[inline]
    pub(crate) fn try_lock(&self, spins: u32, mut between: impl FnMut()) -> Option<Guard<'_>> {
        if self.acquire() {
            return Some(Guard { lock: self });
        }
        for _ in 0..spins {
            between();
            core::hint::spin_loop();
            // Test before test-and-set: the waiting core reads the line, it does not
            // keep taking it from the holder.
            if !self.held.load(Ordering::Relaxed) && self.acquire() {
                return Some(Guard { lock: self });
            }
        }
        None
    }

    /// One attempt, no spin: the fast path of every `G_TCON` section (the spin and its
    /// bound are worked out only when the lock is found held).
    #[inline(always)]
    pub(crate) fn try_acquire(&self) -> Option<Guard<'_>> {
        if self.acquire() {
            Some(Guard { lock: self })
        } else {
            None
        }
    }

    #[inline(always)]
    fn acquire(&self) -> bool {
        self.held
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }
}

impl Drop for Guard<'_> {
    #[inline]
    fn drop(&mut self) {
        self.lock.held.store(false, Ordering::Release);
    }
}

/// `loom` model check: every interleaving of two cores taking the lock around a plain
/// (non-atomic) read-modify-write, as the driver does around `G_TCON`. loom reports a data
/// race if two holders overlap or if a holder's write is not ordered before the next
/// holder's read (an `Acquire`/`Release` weakened to `Relaxed`). Run with
/// `RUSTFLAGS="--cfg loom" cargo test -p exynos-mct --lib --release lock::loom_check`.
// The test's own shared cell needs `unsafe` (an `UnsafeCell` and its `Sync`); the library
// itself has none here.
#[cfg(all(test, loom))]
#[allow(unsafe_code)]
mod loom_check {
    use super::SpinLock;
    use ::loom::cell::UnsafeCell;
    use ::loom::sync::Arc;
    use ::loom::thread;

    struct Shared {
        lock: SpinLock,
        word: UnsafeCell<u32>,
    }

    // SAFETY: `word` is touched only while `lock` is held (what the model checks).
    unsafe impl Sync for Shared {}

    /// One core's turn: take the lock as `Mct::lock_shared` does (one attempt, then a
    /// bounded spin with a `yield` as the spin step, so loom runs the holder), then set its
    /// bit in the word. `false` if the spin ran out.
    fn turn(shared: &Shared, bit: u32) -> bool {
        let guard = match shared.lock.try_acquire() {
            Some(guard) => Some(guard),
            None => shared.lock.try_lock(4, thread::yield_now),
        };
        let Some(_guard) = guard else {
            return false;
        };
        // SAFETY: the lock is held; loom checks that no other access overlaps.
        shared.word.with_mut(|w| unsafe { *w |= bit });
        true
    }

    #[test]
    fn two_cores_never_hold_the_lock_at_once_and_see_each_others_writes() {
        let mut builder = ::loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let shared = Arc::new(Shared {
                lock: SpinLock::new(),
                word: UnsafeCell::new(0),
            });
            let other = {
                let shared = shared.clone();
                thread::spawn(move || turn(&shared, 2))
            };
            let mine = turn(&shared, 1);
            let theirs = other.join().unwrap_or(false);
            let expected = u32::from(mine) | (u32::from(theirs) << 1);
            // SAFETY: both turns are over (joined).
            let word = shared.word.with(|w| unsafe { *w });
            assert_eq!(word, expected, "a holder's write was lost");
            // A failed try_lock leaves the lock free: the next one gets it at once.
            assert!(shared.lock.try_lock(0, || {}).is_some());
        });
    }
}
