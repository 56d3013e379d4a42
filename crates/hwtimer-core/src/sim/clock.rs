use std::cell::Cell;
use std::rc::Rc;

/// Virtual time in nanoseconds. Clones share the same time.
///
/// Time moves only when something advances it: a [`SimBus`](super::SimBus) access, a
/// [`SimCounter`](super::SimCounter) read (each costs virtual nanoseconds), or the test
/// itself.
#[derive(Debug, Clone, Default)]
pub struct SimClock {
    ns: Rc<Cell<u64>>,
}

impl SimClock {
    /// A clock at t = 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current virtual time.
    pub fn now_ns(&self) -> u64 {
        self.ns.get()
    }

    /// Move time forward by `ns`.
    pub fn advance(&self, ns: u64) {
        self.ns.set(self.ns.get().saturating_add(ns));
    }

    /// Move time forward to `ns` (no effect if it is already later).
    pub fn advance_to(&self, ns: u64) {
        if ns > self.ns.get() {
            self.ns.set(ns);
        }
    }
}
