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

/// `loom` model checks of the lock, run with
/// `RUSTFLAGS="--cfg loom" cargo test -p exynos-mct --lib --release --target-dir target/loom loom_check`.
///
/// 1. Two cores take it around a plain (non-atomic) read-modify-write, as the driver does
///    around `G_TCON`: loom reports a data race if two holders overlap or if a holder's
///    write is not ordered before the next holder's read. Each refusal must be the right
///    kind: a core never reads its own number from the word while the other core holds the
///    lock (it would be refused at once for another core's section).
/// 2. The owner: core 0's task holds the lock and an interrupt on core 0 (run inside the
///    task's section, as a handler runs to its end before the task goes on) tries it while
///    core 1 contends: the interrupt must be refused at once ([`Refused::Mine`]) without one
///    spin step (its `between` is never called), in every interleaving with core 1.
///
/// What makes them fail (each tried, by editing `SpinLock`): the `Acquire` of the
/// compare-and-swap or the `Release` of the unlock weakened to `Relaxed` (check 1: loom
/// reports a causality violation on the shared word); the owner stored as one number for
/// every CPU (check 1: a core refused at once for the other core's section); the "held by
/// me" test removed from `try_lock` (check 2: the interrupt spins). There is no separate
/// owner store to weaken: the compare-and-swap that takes the lock stores the owner, and
/// the `Release` store that frees it erases it, so no ordering of an owner field can go
/// wrong on its own.
// The test's own shared cell needs `unsafe` (an `UnsafeCell` and its `Sync`); the library
// itself has none here.
#[cfg(all(test, loom))]
#[allow(unsafe_code)]
mod loom_check {
    use super::{Refused, SpinLock};
    use ::loom::cell::UnsafeCell;
    use ::loom::sync::Arc;
    use ::loom::thread;

    struct Shared {
        lock: SpinLock,
        word: UnsafeCell<u32>,
    }

    // SAFETY: `word` is touched only while `lock` is held (what the model checks).
    unsafe impl Sync for Shared {}

    fn shared() -> Arc<Shared> {
        Arc::new(Shared {
            lock: SpinLock::new(),
            word: UnsafeCell::new(0),
        })
    }

    /// One context's turn on CPU `cpu`: take the lock as `Mct::lock_shared` does (one
    /// attempt, then a bounded spin with a `yield` as the spin step, so loom runs the
    /// holder), set `bit` in the word, then run `inside` (still holding it). Returns the
    /// refusal when it did not get the lock, and the spin steps it made.
    fn turn(
        shared: &Shared,
        cpu: u32,
        bit: u32,
        inside: impl FnOnce(),
    ) -> (Result<(), Refused>, u32) {
        let mut steps = 0u32;
        let guard = match shared.lock.try_acquire(cpu) {
            Some(guard) => Ok(guard),
            None => shared.lock.try_lock(cpu, 3, || {
                steps += 1;
                thread::yield_now();
            }),
        };
        let _guard = match guard {
            Ok(guard) => guard,
            Err(refused) => return (Err(refused), steps),
        };
        // SAFETY: the lock is held; loom checks that no other access overlaps.
        shared.word.with_mut(|w| unsafe { *w |= bit });
        inside();
        (Ok(()), steps)
    }

    fn word(shared: &Shared) -> u32 {
        // SAFETY: every turn is over (joined).
        shared.word.with(|w| unsafe { *w })
    }

    #[test]
    fn two_cores_never_hold_the_lock_at_once_and_see_each_others_writes() {
        let mut builder = ::loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let shared = shared();
            let other = {
                let shared = shared.clone();
                thread::spawn(move || turn(&shared, 1, 2, || {}).0)
            };
            let mine = turn(&shared, 0, 1, || {}).0;
            let theirs = other.join().unwrap_or(Err(Refused::Mine));
            assert_ne!(
                mine,
                Err(Refused::Mine),
                "core 0 refused for core 1's section"
            );
            assert_ne!(
                theirs,
                Err(Refused::Mine),
                "core 1 refused for core 0's section"
            );
            let expected = u32::from(mine.is_ok()) | (u32::from(theirs.is_ok()) << 1);
            assert_eq!(word(&shared), expected, "a holder's write was lost");
            // A refused try_lock leaves the lock free: the next one gets it at once.
            assert!(shared.lock.try_lock(0, 0, || {}).is_ok());
        });
    }

    #[test]
    fn an_interrupt_on_the_holders_core_is_refused_at_once() {
        let mut builder = ::loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let shared = shared();
            let core1 = {
                let shared = shared.clone();
                thread::spawn(move || turn(&shared, 1, 2, || {}).0)
            };
            let mut irq = None;
            let task = turn(&shared, 0, 1, || {
                // The interrupt, on core 0, while core 0's task holds the lock.
                irq = Some(turn(&shared, 0, 4, || {}));
            })
            .0;
            let core1 = core1.join().unwrap_or(Err(Refused::Mine));
            if task.is_ok() {
                assert_eq!(
                    irq,
                    Some((Err(Refused::Mine), 0)),
                    "the interrupt was not refused at once"
                );
            }
            assert_ne!(
                core1,
                Err(Refused::Mine),
                "core 1 refused for core 0's section"
            );
            let expected = u32::from(task.is_ok()) | (u32::from(core1.is_ok()) << 1);
            assert_eq!(word(&shared), expected, "a holder's write was lost");
            assert!(shared.lock.try_lock(1, 0, || {}).is_ok());
        });
    }
}
