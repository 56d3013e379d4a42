use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Virtual time in nanoseconds. Clones share the same time. `Send + Sync`, so a
/// simulated driver can sit in a `static` (the embassy and RTIC adapters need that); the
/// simulation itself is meant for one thread.
///
/// Time moves only when something advances it: a [`SimBus`](super::SimBus) access, a
/// [`SimCounter`](super::SimCounter) read (each costs virtual nanoseconds), or the test
/// itself.
#[derive(Debug, Clone, Default)]
pub struct SimClock {
    ns: Arc<AtomicU64>,
}

impl SimClock {
    /// A clock at t = 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current virtual time.
    pub fn now_ns(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }

    /// Move time forward by `ns`.
    pub fn advance(&self, ns: u64) {
        let now = self.now_ns();
        self.ns.store(now.saturating_add(ns), Ordering::Relaxed);
    }

    /// Move time forward to `ns` (no effect if it is already later).
    pub fn advance_to(&self, ns: u64) {
        self.ns.fetch_max(ns, Ordering::Relaxed);
    }
}
