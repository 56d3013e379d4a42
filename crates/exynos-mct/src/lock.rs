//! The lock that [`Mct`](crate::Mct) owns for its shared registers (`G_TCON`, `G_INT_ENB`):
//! a test-and-set spin lock on one atomic word, taken with a **bounded** spin and never
//! with interrupts masked. The rules and the bound: [Shared registers](crate::Mct#shared-registers).

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
    pub(crate) const fn new() -> Self {
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
