use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

use tock_registers::UIntLike;

use super::SimClock;
use crate::reg::{Claim, Claimed, RegisterBus};

/// The behaviour of a register block: what a read returns and what a write does, at a
/// given virtual time.
pub trait SimModel {
    /// The access width.
    type Word: UIntLike;
    /// A read of the word at `offset` at time `now_ns` (may have side effects, such as
    /// clear-on-read).
    fn read(&mut self, now_ns: u64, offset: usize) -> Self::Word;
    /// A write of `value` to the word at `offset` at time `now_ns`.
    fn write(&mut self, now_ns: u64, offset: usize, value: Self::Word);
}

/// Access counts of a [`SimBus`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MmioStats {
    /// Reads performed.
    pub reads: u64,
    /// Writes performed.
    pub writes: u64,
}

/// A [`RegisterBus`] backed by a [`SimModel`] in virtual time.
///
/// Each access is handed to the model at the current virtual time and then advances
/// the clock by the access cost (default: 100 ns per read, 50 ns per write, a typical
/// uncached peripheral access on the SoCs of this family; set your own with
/// [`with_costs`](Self::with_costs)). Clones share the model, the counters and the clock,
/// so a test can keep a handle while the driver owns another.
pub struct SimBus<M: SimModel> {
    model: Rc<RefCell<M>>,
    clock: SimClock,
    stats: Rc<Cell<MmioStats>>,
    /// Set by [`go_dead`](SimBus::go_dead): every read returns this instead of the model.
    dead: Rc<Cell<Option<M::Word>>>,
    read_ns: u64,
    write_ns: u64,
}

impl<M: SimModel> Clone for SimBus<M> {
    fn clone(&self) -> Self {
        Self {
            model: Rc::clone(&self.model),
            clock: self.clock.clone(),
            stats: Rc::clone(&self.stats),
            dead: Rc::clone(&self.dead),
            read_ns: self.read_ns,
            write_ns: self.write_ns,
        }
    }
}

impl<M: SimModel> SimBus<M> {
    /// A bus on `clock` in front of `model`.
    pub fn new(clock: &SimClock, model: M) -> Self {
        Self {
            model: Rc::new(RefCell::new(model)),
            clock: clock.clone(),
            stats: Rc::new(Cell::new(MmioStats::default())),
            dead: Rc::new(Cell::new(None)),
            read_ns: 100,
            write_ns: 50,
        }
    }

    /// Set the virtual-time cost of a read and of a write.
    pub fn with_costs(mut self, read_ns: u64, write_ns: u64) -> Self {
        self.read_ns = read_ns;
        self.write_ns = write_ns;
        self
    }

    /// Access counts so far.
    pub fn stats(&self) -> MmioStats {
        self.stats.get()
    }

    /// Zero the access counts.
    pub fn reset_stats(&self) {
        self.stats.set(MmioStats::default());
    }

    /// The clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Inspect or reconfigure the model (fault injection, peeking at state).
    pub fn model<R>(&self, f: impl FnOnce(&mut M) -> R) -> R {
        f(&mut self.model.borrow_mut())
    }

    /// The block dies now (`Some(value)`: unclocked, held in reset, or no longer decoded):
    /// from here every read returns `value`, while writes still reach the model, whose
    /// state goes on in virtual time. `None` brings it back. Every clone sees it.
    pub fn go_dead(&self, value: Option<M::Word>) {
        self.dead.set(value);
    }

    /// Run `f` and return its result with the accesses it made (the counts are zeroed
    /// first).
    pub fn counted<R>(&self, f: impl FnOnce() -> R) -> (R, MmioStats) {
        self.reset_stats();
        let r = f();
        (r, self.stats())
    }
}

/// A block that is dead from the start: every read returns the value it holds, every write
/// vanishes. For a block that dies while in use, see [`SimBus::go_dead`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dead<W>(pub W);

impl<W: UIntLike> SimModel for Dead<W> {
    type Word = W;
    fn read(&mut self, _now_ns: u64, _offset: usize) -> W {
        self.0
    }
    fn write(&mut self, _now_ns: u64, _offset: usize, _value: W) {}
}

/// The two values a dead block reads, with their names for test messages: all zeros (an
/// unclocked block, or one held in reset) and all ones (an address nothing decodes).
pub fn dead_values<W: UIntLike + core::ops::Not<Output = W>>() -> [(W, &'static str); 2] {
    [(W::zero(), "all zeros"), (!W::zero(), "all ones")]
}

impl<M: SimModel> RegisterBus for SimBus<M> {
    type Word = M::Word;

    fn read_word(&self, offset: usize) -> M::Word {
        let mut v = self.model.borrow_mut().read(self.clock.now_ns(), offset);
        if let Some(dead) = self.dead.get() {
            v = dead;
        }
        let mut s = self.stats.get();
        s.reads += 1;
        self.stats.set(s);
        self.clock.advance(self.read_ns);
        v
    }

    fn write_word(&self, offset: usize, value: M::Word) {
        self.model
            .borrow_mut()
            .write(self.clock.now_ns(), offset, value);
        let mut s = self.stats.get();
        s.writes += 1;
        self.stats.set(s);
        self.clock.advance(self.write_ns);
    }
}

/// A sim bus hands out [`Claimed`] blocks: each access is checked against the block's
/// constant span and forwarded (and counted) one to one.
impl<M: SimModel> Claim for SimBus<M> {
    type Block<const SPAN: usize> = Claimed<SimBus<M>, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        base.checked_add(SPAN)?;
        Some(Claimed::new(self.clone(), base))
    }
}

/// A thread-safe [`RegisterBus`] backed by a [`SimModel`] in virtual time: the model
/// behind a mutex, so a driver's types on it are `Send` and `Sync` as they are on
/// [`Mmio`](crate::Mmio) (a runtime adapter keeps its channel in a `static`, which needs
/// that).
///
/// Each access is handed to the model at the current virtual time and then advances the
/// clock by its cost, as [`SimBus`] charges it; it keeps no access counts and has no dead
/// mode (use [`SimBus`] for those). Clones share the model and the clock.
pub struct SyncBus<M> {
    model: Arc<Mutex<M>>,
    clock: SimClock,
    read_ns: u64,
    write_ns: u64,
}

impl<M> Clone for SyncBus<M> {
    fn clone(&self) -> Self {
        Self {
            model: Arc::clone(&self.model),
            clock: self.clock.clone(),
            read_ns: self.read_ns,
            write_ns: self.write_ns,
        }
    }
}

impl<M> std::fmt::Debug for SyncBus<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncBus")
            .field("read_ns", &self.read_ns)
            .field("write_ns", &self.write_ns)
            .finish_non_exhaustive()
    }
}

impl<M: SimModel> SyncBus<M> {
    /// A bus on `clock` in front of `model`, each read costing `read_ns` and each write
    /// `write_ns` of virtual time.
    pub fn new(clock: &SimClock, model: M, read_ns: u64, write_ns: u64) -> Self {
        Self {
            model: Arc::new(Mutex::new(model)),
            clock: clock.clone(),
            read_ns,
            write_ns,
        }
    }

    /// The clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Inspect or reconfigure the model (no access, no virtual time).
    pub fn model<R>(&self, f: impl FnOnce(&mut M) -> R) -> R {
        f(&mut self.model.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl<M: SimModel> RegisterBus for SyncBus<M> {
    type Word = M::Word;

    fn read_word(&self, offset: usize) -> M::Word {
        let now = self.clock.now_ns();
        let v = self.model(|m| m.read(now, offset));
        self.clock.advance(self.read_ns);
        v
    }

    fn write_word(&self, offset: usize, value: M::Word) {
        let now = self.clock.now_ns();
        self.model(|m| m.write(now, offset, value));
        self.clock.advance(self.write_ns);
    }
}

/// A thread-safe sim bus hands out [`Claimed`] blocks, as [`SimBus`] does.
impl<M: SimModel> Claim for SyncBus<M> {
    type Block<const SPAN: usize> = Claimed<SyncBus<M>, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        base.checked_add(SPAN)?;
        Some(Claimed::new(self.clone(), base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RegisterFile;

    #[test]
    fn a_bus_that_goes_dead_reads_the_dead_value_and_still_writes() {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, RegisterFile::new(8));
        bus.write_word(0, 5);
        bus.go_dead(Some(u32::MAX));
        let (v, stats) = bus.counted(|| {
            bus.write_word(4, 7);
            bus.read_word(0)
        });
        assert_eq!((v, stats.reads, stats.writes), (u32::MAX, 1, 1));
        bus.go_dead(None);
        assert_eq!((bus.read_word(0), bus.read_word(4)), (5, 7));
        let dead = SimBus::new(&clock, Dead(0u32));
        dead.write_word(0, 9);
        assert_eq!(dead.read_word(0), 0);
        assert_eq!(dead_values::<u32>()[1].0, u32::MAX);
    }
}
