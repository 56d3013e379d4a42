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
//! back after it freed the lock (it wrote the later free word itself), so a stale owner can
//! never make another CPU's section look like its own.
//!
//! A free word also carries a few **flags** that the holders keep for the data the lock
//! guards (the `Mct` keeps there whether the last `G_TCON` write still owes its
//! acknowledgement and whether its mirror is known to match the register): the holder gets
//! them with the lock and leaves them in the word it frees it with. The fast path takes
//! only a clean word (no flag set), so the common section tests no flag at all: the
//! compare-and-swap that takes the lock has already found them clear, and a word with a
//! flag set goes to the slow path ([`SpinLock::try_lock`]), which takes it as it is.

#[cfg(loom)]
use ::loom::sync::atomic::{AtomicU32, Ordering};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU32, Ordering};

/// The bit that marks a free word. A free word is `FREE | flags`; a held word is the
/// holder's [`Owner`], which never has this bit.
const FREE: u32 = 0x8000_0000;

/// The flags a free word can carry: every bit but [`FREE`].
const FLAGS: u32 = !FREE;

/// The word that says "held by this CPU": its number without bit 31, so never a free word.
/// Two CPUs whose numbers differ only in bit 31 share one owner value: they would refuse
/// each other at once instead of spinning (still exclusive, never a free-looking word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(u32);

impl Owner {
    /// The owner value of CPU `cpu` (one AND): worked out once per driver call, however many
    /// sections the call takes the lock for.
    #[inline(always)]
    pub(crate) const fn of(cpu: u32) -> Self {
        Self(cpu & FLAGS)
    }
}

/// A spin lock taken by [`try_acquire`](SpinLock::try_acquire) or
/// [`try_lock`](SpinLock::try_lock) (bounded spin).
#[derive(Debug)]
pub(crate) struct SpinLock {
    /// `FREE | flags`, or the [`Owner`] value of the CPU that holds it.
    word: AtomicU32,
}

/// Held until dropped; frees the lock with its [`flags`](Self::flags).
#[must_use]
pub(crate) struct Guard<'a> {
    lock: &'a SpinLock,
    /// The flags found in the word the lock was taken from, as the holder changed them:
    /// stored with the free word when the guard drops. Always within [`FLAGS`].
    flags: u32,
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
            word: AtomicU32::new(FREE),
        }
    }

    /// loom's atomics have no `const fn new`.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Self {
            word: AtomicU32::new(FREE),
        }
    }

    /// One attempt for `me`, no spin: the fast path of every section. Takes the lock only
    /// from a free word without flags (the guard's flags are then 0, known to the
    /// compiler); `Err` with the word found otherwise (held, or free with flags), for
    /// [`try_lock`](Self::try_lock).
    #[inline(always)]
    pub(crate) fn try_acquire(&self, me: Owner) -> Result<Guard<'_>, u32> {
        self.take(FREE, me).map(|()| Guard {
            lock: self,
            flags: 0,
        })
    }

    /// Take the lock for `me` after [`try_acquire`](Self::try_acquire) found `seen`.
    /// Free (with flags): taken as it is, the flags in the guard. Held by `me`:
    /// [`Refused::Mine`] at once, with no `between` call. Held by another CPU: up to
    /// `spins` retries, calling `between` (one MMIO read of a status register: a spin step
    /// as long as one of the holder's polls) before each; [`Refused::Spun`] when it stayed
    /// held by others all along. A retry that finds it held by `me` (an interrupt on this
    /// CPU took it and has not returned, which cannot happen between two steps of this
    /// context) also stops at once. A free word that changed under an attempt (another CPU
    /// took and freed the lock in between) costs a step without a `between` call, so the
    /// attempts are bounded too.
    ///
    /// `first`: this is the first attempt of the caller's call. Only there can a word
    /// holding `me` be a context this one interrupted (that context holds the lock across
    /// the whole call); at a later step of the same call the lock was free when the call
    /// took it before, so `me` found there is another CPU that shares the owner value
    /// ([`Cores::One`](crate::Cores)), and it is spun for like any other CPU. So a call is
    /// refused at once only before it has written anything.
    #[inline]
    pub(crate) fn try_lock(
        &self,
        me: Owner,
        mut seen: u32,
        spins: u32,
        first: bool,
        mut between: impl FnMut(),
    ) -> Result<Guard<'_>, Refused> {
        let mut steps = 0u32;
        loop {
            if seen & FREE != 0 {
                match self.take(seen, me) {
                    Ok(()) => {
                        return Ok(Guard {
                            lock: self,
                            flags: seen & FLAGS,
                        });
                    }
                    Err(now) => seen = now,
                }
                if seen & FREE == 0 {
                    // Held now: the held case below, on the next turn.
                    continue;
                }
            } else if seen == me.0 && first {
                return Err(Refused::Mine);
            }
            if steps >= spins {
                return Err(Refused::Spun);
            }
            // Below `spins` (checked above): cannot overflow.
            steps = steps.saturating_add(1);
            if seen & FREE == 0 {
                between();
                core::hint::spin_loop();
                // Test before test-and-set: the waiting core reads the line, it does not
                // keep taking it from the holder.
                seen = self.word.load(Ordering::Relaxed);
            }
        }
    }

    /// The flags of the word if it is free now (a snapshot, for `Debug`).
    pub(crate) fn flags_if_free(&self) -> Option<u32> {
        let word = self.word.load(Ordering::Relaxed);
        (word & FREE != 0).then_some(word & FLAGS)
    }

    /// `Err` with the word found when it was not `from`. `Acquire` on success: the
    /// holder's section sees everything the previous holder did before its `Release`.
    #[inline(always)]
    fn take(&self, from: u32, me: Owner) -> Result<(), u32> {
        self.word
            .compare_exchange(from, me.0, Ordering::Acquire, Ordering::Relaxed)
            .map(|_| ())
    }
}

impl Guard<'_> {
    /// The flags the lock was taken with, as changed since.
    #[inline(always)]
    pub(crate) fn flags(&self) -> u32 {
        self.flags
    }

    /// Set (`on`) or clear `flags` (within [`FLAGS`]); they go into the free word.
    #[inline(always)]
    pub(crate) fn set_flags(&mut self, flags: u32, on: bool) {
        if on {
            self.flags |= flags & FLAGS;
        } else {
            self.flags &= !flags;
        }
    }
}

impl Drop for Guard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.lock
            .word
            .store(FREE | (self.flags & FLAGS), Ordering::Release);
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
/// Both also check the flags: each holder sets its bit in the guard's flags as well, and
/// the free word must end with every successful holder's bit (a flag lost between holders,
/// or a flagged free word not taken, fails them); the last take, with no spin step allowed,
/// takes such a flagged word.
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
    use super::{Guard, Owner, Refused, SpinLock};
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
        let guard = take(&shared.lock, cpu, 3, || {
            steps += 1;
            thread::yield_now();
        });
        let mut guard = match guard {
            Ok(guard) => guard,
            Err(refused) => return (Err(refused), steps),
        };
        // SAFETY: the lock is held; loom checks that no other access overlaps.
        shared.word.with_mut(|w| unsafe { *w |= bit });
        guard.set_flags(bit, true);
        inside();
        drop(guard);
        (Ok(()), steps)
    }

    /// As `Mct::lock_shared`: one attempt, then the bounded spin from the word it found.
    fn take(
        lock: &SpinLock,
        cpu: u32,
        spins: u32,
        between: impl FnMut(),
    ) -> Result<Guard<'_>, Refused> {
        let me = Owner::of(cpu);
        match lock.try_acquire(me) {
            Ok(guard) => Ok(guard),
            Err(seen) => lock.try_lock(me, seen, spins, true, between),
        }
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
            assert_eq!(
                shared.lock.flags_if_free(),
                Some(expected),
                "a flag was lost"
            );
            // A refused try_lock leaves the lock free: the next one gets it at once.
            assert!(take(&shared.lock, 0, 0, || {}).is_ok());
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
            assert_eq!(
                shared.lock.flags_if_free(),
                Some(expected),
                "a flag was lost"
            );
            assert!(take(&shared.lock, 1, 0, || {}).is_ok());
        });
    }
}
