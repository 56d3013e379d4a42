//! The lock that [`Mct`](crate::Mct) owns for its shared registers (`G_TCON`, `G_INT_ENB`):
//! a spin lock on one atomic word that holds the **number of the CPU that holds it**, taken
//! with a **bounded** spin and never with interrupts masked. The rules and the bound:
//! [Shared registers](crate::Mct#shared-registers).
//!
//! The holder's CPU is in the same word as "held" (one compare-and-swap takes the lock and
//! records its owner; one store frees it), so there is no moment at which the lock is held
//! and its owner not yet known, and nothing separate to order. A caller that finds the word
//! holding its own CPU's number is refused at once: the holder is the context it interrupted
//! on that CPU, which cannot run again before it returns, so spinning could only end in
//! `Busy` after the whole bound. Coherence guarantees that a CPU never reads its own number
//! back after it freed the lock (it wrote the later `FREE` itself), so a stale owner can
//! never make another CPU's section look like its own.

#[cfg(loom)]
use ::loom::sync::atomic::{AtomicU32, Ordering};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU32, Ordering};

/// The word of a free lock. A CPU number is stored as `min(cpu, TOP)`, so the two numbers
/// at the top of the range share one owner value: two such CPUs would refuse each other at once
/// instead of spinning (still exclusive, never a free-looking word).
const FREE: u32 = u32::MAX;
/// The owner value of the CPUs numbered `0xFFFF_FFFE` and above.
const TOP: u32 = 0xFFFF_FFFE;

/// A spin lock taken by [`try_lock`](Self::try_lock) with a bounded spin.
#[derive(Debug)]
pub(crate) struct SpinLock {
    /// [`FREE`], or the number of the CPU that holds it.
    owner: AtomicU32,
}

/// Held until dropped.
#[must_use]
pub(crate) struct Guard<'a> {
    lock: &'a SpinLock,
}

/// Why [`SpinLock::try_lock`] did not take the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Held by this CPU (a context this one interrupted): refused at once, no spin step.
    Mine,
    /// Held by another CPU for the whole spin.
    Spun,
}

impl SpinLock {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Self {
            owner: AtomicU32::new(FREE),
        }
    }

    /// loom's atomics have no `const fn new`.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Self {
            owner: AtomicU32::new(FREE),
        }
    }

    /// Take the lock for CPU `me`. Held by `me` already: [`Refused::Mine`] at once, with no
    /// `between` call. Held by another CPU: up to `spins` retries, calling `between` (one
    /// MMIO read of a status register: a spin step as long as one of the holder's polls)
    /// before each; [`Refused::Spun`] when it stayed held by others all along. A retry that
    /// finds it held by `me` (an interrupt on this CPU took it and has not returned, which
    /// cannot happen between two steps of this context) also stops at once.
    #[inline]
    pub(crate) fn try_lock(
        &self,
        me: u32,
        spins: u32,
        mut between: impl FnMut(),
    ) -> Result<Guard<'_>, Refused> {
        let me = owner_value(me);
        let mut seen = match self.acquire(me) {
            Ok(()) => return Ok(Guard { lock: self }),
            Err(seen) => seen,
        };
        for _ in 0..spins {
            if seen == me {
                return Err(Refused::Mine);
            }
            between();
            core::hint::spin_loop();
            // Test before test-and-set: the waiting core reads the line, it does not
            // keep taking it from the holder.
            seen = self.owner.load(Ordering::Relaxed);
            if seen == FREE {
                match self.acquire(me) {
                    Ok(()) => return Ok(Guard { lock: self }),
                    Err(now) => seen = now,
                }
            }
        }
        if seen == me {
            Err(Refused::Mine)
        } else {
            Err(Refused::Spun)
        }
    }

    /// One attempt for CPU `me`, no spin: the fast path of every `G_TCON` section (the spin
    /// and its bound are worked out only when the lock is found held).
    #[inline(always)]
    pub(crate) fn try_acquire(&self, me: u32) -> Option<Guard<'_>> {
        match self.acquire(owner_value(me)) {
            Ok(()) => Some(Guard { lock: self }),
            Err(_) => None,
        }
    }

    /// `Err` with the owner found when it was held. `Acquire` on success: the holder's
    /// section sees everything the previous holder did before its `Release`.
    #[inline(always)]
    fn acquire(&self, me: u32) -> Result<(), u32> {
        self.owner
            .compare_exchange(FREE, me, Ordering::Acquire, Ordering::Relaxed)
            .map(|_| ())
    }
}

/// The word that says "held by `cpu`": never [`FREE`].
#[inline(always)]
const fn owner_value(cpu: u32) -> u32 {
    if cpu >= TOP { TOP } else { cpu }
}

impl Drop for Guard<'_> {
    #[inline]
    fn drop(&mut self) {
        self.lock.owner.store(FREE, Ordering::Release);
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
