//! Where a timer queue's interrupts over one per wake come from: a ledger of the waits a
//! firmware's tasks make on one rtic-time monotonic.
//!
//! rtic-time (3.0) unlinks a wait that is dropped while still queued (the losing side of a
//! `timeout_at`) without telling the backend, so a compare armed for it still fires, and
//! the handler finds nothing due. The tasks note each wait here (the instant, while it
//! waits; the instant again when they drop it), and the monotonic's handler, before
//! rtic-time runs, asks whether any noted wait was due and whether the instant the backend
//! had armed was a dropped one's. The counts are printed beside the interrupts per wake.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The waits of up to `N` slots (one slot per wait a task can have outstanding at once).
#[derive(Debug)]
pub struct WaitLedger<const N: usize> {
    /// Per slot: the instant waited for while waiting, `u64::MAX` otherwise.
    live: [AtomicU64; N],
    /// Per slot: the instant of the last wait dropped while queued, until an interrupt at
    /// that instant claims it (`u64::MAX`: none).
    dropped: [AtomicU64; N],
    drops: AtomicU32,
    no_wait_due: AtomicU32,
    before_armed: AtomicU32,
    orphans: AtomicU32,
}

/// What a [`WaitLedger`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerCounts {
    /// Waits dropped while queued.
    pub drops: u32,
    /// Timer interrupts at whose entry no noted wait was due.
    pub no_wait_due: u32,
    /// Of those, the ones that came before the instant the backend had armed, by the time
    /// base (the channel and the time base disagree; the alarm re-arms for the rest).
    pub before_armed: u32,
    /// Of those, the ones whose armed instant was a dropped wait's.
    pub orphans: u32,
}

impl<const N: usize> Default for WaitLedger<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> WaitLedger<N> {
    /// Nothing noted.
    pub const fn new() -> Self {
        Self {
            live: [const { AtomicU64::new(u64::MAX) }; N],
            dropped: [const { AtomicU64::new(u64::MAX) }; N],
            drops: AtomicU32::new(0),
            no_wait_due: AtomicU32::new(0),
            before_armed: AtomicU32::new(0),
            orphans: AtomicU32::new(0),
        }
    }

    /// Slot `slot` waits for `at` (`Some`) or no longer waits (`None`).
    pub fn live(&self, slot: usize, at: Option<u64>) {
        if let Some(l) = self.live.get(slot) {
            l.store(at.unwrap_or(u64::MAX), Ordering::Release);
        }
    }

    /// Slot `slot` dropped its queued wait for `at` (the losing side of a `timeout_at`: still
    /// queued unless an interrupt popped both sides at once, in which case it counts here but
    /// no compare is armed for it, so it can never be claimed as an orphan).
    pub fn dropped(&self, slot: usize, at: u64) {
        if let Some(d) = self.dropped.get(slot) {
            d.store(at, Ordering::Release);
            self.drops.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// At the monotonic's timer interrupt, before rtic-time runs: counted when no noted
    /// wait is due at `now`; then as before its armed instant when `now < armed` (`armed`:
    /// the instant the backend had armed), or as an orphan when `armed` is a dropped wait's
    /// (claimed, so each dropped wait counts once).
    pub fn classify(&self, now: u64, armed: Option<u64>) {
        if self.live.iter().any(|l| l.load(Ordering::Acquire) <= now) {
            return;
        }
        self.no_wait_due.fetch_add(1, Ordering::Relaxed);
        let Some(armed) = armed else { return };
        if now < armed {
            self.before_armed.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let claimed = self.dropped.iter().any(|d| {
            d.compare_exchange(armed, u64::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        });
        if claimed {
            self.orphans.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> LedgerCounts {
        LedgerCounts {
            drops: self.drops.load(Ordering::Relaxed),
            no_wait_due: self.no_wait_due.load(Ordering::Relaxed),
            before_armed: self.before_armed.load(Ordering::Relaxed),
            orphans: self.orphans.load(Ordering::Relaxed),
        }
    }
}
