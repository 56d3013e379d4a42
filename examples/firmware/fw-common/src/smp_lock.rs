//! The algorithm of the multi-core critical sections, shared by the ARM, LoongArch and MIPS
//! implementations (`cs::SpinLock`, `loongarch::smp_cs`, `mips::smp_cs`) and
//! by the loom model check of it: one owner word, a nesting depth and, where a waiting
//! core can sleep, a word of sleeping waiters.
//!
//! Only memory and ordering are here; what differs per architecture is a [`Wait`]: how a
//! core waits between two tries (spin, a timed `wait`, `idle` until an IPI), how long it
//! waits at most, and how a releasing core wakes the sleepers. Interrupt masking stays with
//! the callers, around [`CoreLock::acquire`] and [`CoreLock::release`].
//!
//! # Background
//!
//! * **Taking**: a core writes `cpu + 1` into the owner word with a compare-and-swap from 0
//!   (LDREX/STREX on ARMv7-A, LL/SC on LoongArch and MIPS), `Acquire`, so that what the
//!   previous holder wrote in its section is seen in this one. A core that finds its own
//!   number there already holds the lock (only it writes that number) and only counts one
//!   more nesting level. The depth is touched only by the holder, with its interrupts
//!   masked: relaxed accesses.
//! * **Freeing**: at depth 0 the owner word goes back to 0 with a `Release` store.
//! * **Sleeping** (`W::SLEEPS`): a waiter that can sleep sets its bit in the waiter word,
//!   then looks at the owner word again, and sleeps only if the lock is still held; a
//!   releasing core, after its `Release` store, reads the waiter word and wakes every core
//!   in it. Each side has a `SeqCst` fence between its write and its read.
//!
//! # Why no wake is lost
//!
//! The two fences are ordered one way or the other. If the waiter's fence comes first, the
//! releaser's read of the waiter word, after its own fence, sees the waiter's bit, and the
//! wake is sent (the wake is an interrupt: it stays pending until the waiter takes it, so a
//! wake sent before the waiter reached its sleep ends that sleep at once). If the
//! releaser's fence comes first, the waiter's second look at the owner word, after its own
//! fence, sees the 0 (or a later owner, who will release in its turn), and it does not
//! sleep. Without the fences both reads may see the old values (a store-buffering race):
//! the waiter sleeps on a lock nobody will free for it. The loom model in this file finds
//! exactly that when either fence is removed.
//!
//! # The bound
//!
//! `critical-section`'s `acquire` cannot fail, so the wait relies on every section being
//! short (no section of these firmwares waits on anything unbounded). [`Wait::expired`] is
//! the backstop: once it says so, [`CoreLock::try_acquire`] gives up with [`Held`], and
//! [`CoreLock::acquire`] calls the architecture's last resort, which panics (the board
//! reports `PANIC` and stops, rather than hang).

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, Ordering, fence};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU32, Ordering, fence};

/// How a core waits for the lock: one per architecture, or per platform.
pub trait Wait {
    /// Whether this kind of wait can sleep until a releasing core wakes it. When it is
    /// `false`, the waiter word is never touched (neither by waiters nor by [`release`]),
    /// and [`sleep`](Self::sleep), [`clear`](Self::clear) and [`wake`](Self::wake) are not
    /// called.
    ///
    /// [`release`]: CoreLock::release
    const SLEEPS: bool;

    /// Whether this core can sleep right now (`SLEEPS` must be true too): the wake can
    /// reach it. Asked once per contended acquire. The default (for a wait that never
    /// sleeps): no.
    fn can_sleep(&mut self) -> bool {
        false
    }

    /// Sleeps until a wake sent to this core by [`wake`](Self::wake) (or anything else) is
    /// pending. A wake sent before the call must end it at once. The default does nothing
    /// (never called when `SLEEPS` is false).
    fn sleep(&mut self) {}

    /// Drops a wake left pending for this core (called after each sleep). The default does
    /// nothing.
    fn clear(&mut self) {}

    /// Waits a little between two tries when not sleeping (a spin hint, a short nap).
    fn relax(&mut self);

    /// Whether this wait has gone on for longer than its bound: [`CoreLock::acquire`]
    /// then gives up. Asked after every failed try.
    fn expired(&mut self) -> bool;

    /// Wakes the cores whose bits (bit `n`: CPU `n`) are set in `waiters`. The default
    /// does nothing (never called when `SLEEPS` is false).
    fn wake(&mut self, waiters: u32) {
        let _ = waiters;
    }

    /// The last resort of [`CoreLock::acquire`] once [`expired`](Self::expired) said so
    /// (it cannot fail): a panic that names the holder, in the implementations here.
    fn stuck(held: Held) -> !;
}

/// The lock was still held by another core when [`Wait::expired`] said the wait was over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The CPU that held it at the last look (`None` if it had just been freed).
    pub owner: Option<u32>,
}

/// One lock shared by every core, re-entrant on the core that holds it (module docs).
#[derive(Debug)]
pub struct CoreLock {
    /// 0: free; `n + 1`: held by CPU `n`.
    owner: AtomicU32,
    /// Sections the owner has open; written by the owner only.
    depth: AtomicU32,
    /// Bit `n`: CPU `n` sleeps (or is about to) until the lock is freed.
    waiters: AtomicU32,
}

impl CoreLock {
    /// A free lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            owner: AtomicU32::new(0),
            depth: AtomicU32::new(0),
            waiters: AtomicU32::new(0),
        }
    }

    /// A free lock (loom's atomics have no `const fn new`).
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            owner: AtomicU32::new(0),
            depth: AtomicU32::new(0),
            waiters: AtomicU32::new(0),
        }
    }

    /// Takes the lock for CPU `cpu`, or nests on it if `cpu` holds it already. `wait` makes
    /// the [`Wait`] used only when the lock is held by another core (so the uncontended path
    /// reads no clock).
    ///
    /// Call it with this core's interrupts masked, so that no handler of this core spins on
    /// a lock its own thread holds.
    ///
    /// Errors: [`Held`] when the lock stayed held until the wait's bound
    /// ([`Wait::expired`]); nothing was taken then.
    #[inline]
    pub fn try_acquire<W: Wait>(&self, cpu: u32, wait: impl FnOnce() -> W) -> Result<(), Held> {
        if self.fast(cpu) || self.wait_and_take(cpu, wait()) {
            Ok(())
        } else {
            Err(Held {
                owner: self.owner(),
            })
        }
    }

    /// [`try_acquire`](Self::try_acquire) for an acquire that cannot fail (a
    /// `critical-section` implementation): past the bound it calls [`Wait::stuck`], the
    /// last resort, which does not return. `pass` is handed back unchanged (the interrupt
    /// state the caller saved), so that the contended path is a tail call and the
    /// uncontended one keeps nothing in registers across it.
    #[inline(always)]
    pub fn acquire<W: Wait, T>(&self, cpu: u32, pass: T, wait: impl FnOnce() -> W) -> T {
        if self.fast(cpu) {
            pass
        } else {
            self.contended(cpu, pass, wait)
        }
    }

    /// The uncontended path: nests, or takes a free lock. `false` when another core holds
    /// it (or the reservation was lost).
    #[inline(always)]
    fn fast(&self, cpu: u32) -> bool {
        let me = cpu.wrapping_add(1);
        if self.owner.load(Ordering::Relaxed) == me {
            // Only this core stores `me`: it holds the lock already (a nested section).
            self.depth.store(
                self.depth.load(Ordering::Relaxed).wrapping_add(1),
                Ordering::Relaxed,
            );
            return true;
        }
        // Weak: a spurious failure (a lost reservation) only takes the contended path,
        // which tries again; the uncontended path has no retry loop of its own.
        let taken = self
            .owner
            .compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
        if taken {
            self.depth.store(1, Ordering::Relaxed);
        }
        taken
    }

    /// The contended path of [`acquire`](Self::acquire): out of line, so that the
    /// uncontended path saves no registers for it.
    #[cold]
    #[inline(never)]
    fn contended<W: Wait, T>(&self, cpu: u32, pass: T, wait: impl FnOnce() -> W) -> T {
        if !self.wait_and_take(cpu, wait()) {
            W::stuck(Held {
                owner: self.owner(),
            })
        }
        // Opaque to the optimiser: were `pass` known to come back unchanged, the caller
        // would keep its own copy across the call (a stack frame on the uncontended path)
        // instead of returning this call's result (a tail call).
        core::hint::black_box(pass)
    }

    /// Waits for the lock held by another core and takes it (depth 1): `true`, or `false`
    /// once [`Wait::expired`] says so.
    #[inline(always)]
    fn wait_and_take<W: Wait>(&self, cpu: u32, mut wait: W) -> bool {
        let me = cpu.wrapping_add(1);
        let bit = 1u32.checked_shl(cpu).unwrap_or(0);
        let sleeps = W::SLEEPS && bit != 0 && wait.can_sleep();
        loop {
            if sleeps {
                // Announce the wait, then look at the lock again (module docs: why no wake
                // is lost). The fence orders the announcement before the second look.
                self.waiters.fetch_or(bit, Ordering::Relaxed);
                fence(Ordering::SeqCst);
                if self.owner.load(Ordering::Relaxed) != 0 {
                    wait.sleep();
                }
                self.waiters.fetch_and(!bit, Ordering::Relaxed);
                // The wake that ended the sleep, if one did: drop it, or every later sleep
                // of this wait would end at once. A release after this sees the next
                // announcement.
                wait.clear();
            } else {
                wait.relax();
            }
            if self
                .owner
                .compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                self.depth.store(1, Ordering::Relaxed);
                return true;
            }
            if wait.expired() {
                return false;
            }
        }
    }

    /// Ends the innermost section of this core: the depth goes down by one, and at 0 the
    /// lock is freed (`Release`) and, with a sleeping kind of [`Wait`], the cores sleeping
    /// on it are woken through `wait`.
    ///
    /// Call it on the core that holds the lock, innermost section first (`critical-section`'s
    /// contract); a release on a free lock only leaves it free.
    #[inline(always)]
    pub fn release<W: Wait>(&self, wait: impl FnOnce() -> W) {
        let depth = self.depth.load(Ordering::Relaxed).saturating_sub(1);
        self.depth.store(depth, Ordering::Relaxed);
        if depth == 0 {
            self.owner.store(0, Ordering::Release);
            if W::SLEEPS {
                // The release's half of the handshake (module docs): the free lock before
                // the look at the waiters.
                fence(Ordering::SeqCst);
                let waiters = self.waiters.load(Ordering::Relaxed);
                if waiters != 0 {
                    wait().wake(waiters);
                }
            }
        }
    }

    /// Which CPU holds the lock, if any (diagnostics).
    pub fn owner(&self) -> Option<u32> {
        self.owner.load(Ordering::Relaxed).checked_sub(1)
    }

    /// The nesting depth of the holder's sections (diagnostics; 0 when free).
    pub fn depth(&self) -> u32 {
        self.depth.load(Ordering::Relaxed)
    }
}

impl Default for CoreLock {
    fn default() -> Self {
        Self::new()
    }
}

/// A [`Wait`] that spins (`core::hint::spin_loop`) and gives up after a number of tries:
/// the ARM implementation's, and the tests'.
#[derive(Debug, Clone, Copy)]
pub struct SpinTries {
    left: u32,
}

impl SpinTries {
    /// At most `tries` failed tries after the first.
    pub const fn new(tries: u32) -> Self {
        Self { left: tries }
    }
}

impl Wait for SpinTries {
    const SLEEPS: bool = false;
    fn relax(&mut self) {
        core::hint::spin_loop();
    }
    fn expired(&mut self) -> bool {
        match self.left.checked_sub(1) {
            Some(left) => {
                self.left = left;
                false
            }
            None => true,
        }
    }
    fn stuck(held: Held) -> ! {
        panic!("lock held by CPU {:?} past the bound", held.owner)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn nested_sections_free_the_lock_at_the_outermost_release() {
        let lock = CoreLock::new();
        assert_eq!(lock.try_acquire(0, || SpinTries::new(0)), Ok(()));
        assert_eq!(lock.try_acquire(0, || SpinTries::new(0)), Ok(()));
        assert_eq!((lock.owner(), lock.depth()), (Some(0), 2));
        lock.release(|| SpinTries::new(0));
        assert_eq!((lock.owner(), lock.depth()), (Some(0), 1));
        lock.release(|| SpinTries::new(0));
        assert_eq!((lock.owner(), lock.depth()), (None, 0));
    }

    /// A lock that another core never frees ends the wait after the bound, with the holder
    /// named, instead of spinning for ever.
    #[test]
    fn a_wait_on_a_lock_never_freed_ends_at_its_bound() {
        let lock = CoreLock::new();
        assert_eq!(lock.try_acquire(1, || SpinTries::new(0)), Ok(()));
        assert_eq!(
            lock.try_acquire(0, || SpinTries::new(1000)),
            Err(Held { owner: Some(1) })
        );
        assert_eq!((lock.owner(), lock.depth()), (Some(1), 1));
    }
}

/// The loom model check of [`CoreLock`] (`RUSTFLAGS="--cfg loom"`; the command is in the
/// crate README).
#[cfg(all(test, loom))]
mod loom_check {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::{Arc, Condvar, Mutex};
    use loom::thread;

    /// A core's event line: set by a wake (an IPI, SEV), cleared by its owner; `sleep`
    /// blocks until it is set, so a wake that never comes is a deadlock loom reports.
    struct Line {
        pending: Mutex<bool>,
        cv: Condvar,
    }

    /// The sleeping kind of [`Wait`] (LoongArch's `idle` until the lock IPI), unbounded:
    /// a lost wake leaves the waiter asleep for good.
    struct Sleeper {
        me: usize,
        lines: Arc<[Line; 2]>,
    }

    impl Wait for Sleeper {
        const SLEEPS: bool = true;
        fn can_sleep(&mut self) -> bool {
            true
        }
        fn sleep(&mut self) {
            let line = &self.lines[self.me];
            let mut pending = line.pending.lock().unwrap();
            while !*pending {
                pending = line.cv.wait(pending).unwrap();
            }
        }
        fn clear(&mut self) {
            *self.lines[self.me].pending.lock().unwrap() = false;
        }
        fn relax(&mut self) {}
        fn expired(&mut self) -> bool {
            false
        }
        fn stuck(_held: Held) -> ! {
            unreachable!("this wait has no bound")
        }
        fn wake(&mut self, waiters: u32) {
            for (n, line) in self.lines.iter().enumerate() {
                if waiters & (1 << n) != 0 {
                    *line.pending.lock().unwrap() = true;
                    line.cv.notify_all();
                }
            }
        }
    }

    /// Two cores each take the lock twice (the second time nested) and update a value that
    /// is not atomic inside; loom reports any two accesses to it that are not ordered by the
    /// lock, and any wait that never ends.
    ///
    /// Checked to fail: with the compare-and-swap's `Acquire` weakened to `Relaxed` (in
    /// `fast` and `wait_and_take`), loom reports the causality violation on the value; with
    /// the fence in `release` removed, or the one in `wait_and_take`, or the second look at the
    /// owner word before `sleep` removed (sleeping unconditionally), it reports a deadlock
    /// (a waiter asleep with nobody left to wake it).
    #[test]
    fn two_cores_exclude_each_other_and_no_release_wake_is_lost() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let lock = Arc::new(CoreLock::new());
            let line = || Line {
                pending: Mutex::new(false),
                cv: Condvar::new(),
            };
            let lines = Arc::new([line(), line()]);
            let value = Arc::new(UnsafeCell::new(0u32));
            let core = |me: usize| {
                let (lock, lines, value) = (lock.clone(), lines.clone(), value.clone());
                move || {
                    let wait = || Sleeper {
                        me,
                        lines: lines.clone(),
                    };
                    lock.try_acquire(me as u32, wait).unwrap();
                    lock.try_acquire(me as u32, wait).unwrap();
                    // SAFETY: loom checks that no other access overlaps.
                    value.with_mut(|v| unsafe { *v += 1 });
                    lock.release(wait);
                    lock.release(wait);
                }
            };
            let other = thread::spawn(core(1));
            core(0)();
            other.join().unwrap();
            assert_eq!(lock.owner(), None);
            // SAFETY: both cores are done.
            assert_eq!(value.with(|v| unsafe { *v }), 2);
        });
    }
}
