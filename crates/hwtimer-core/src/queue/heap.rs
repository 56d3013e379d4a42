//! The pure data structure: slots, deadlines and their ordering.

use super::{QueueError, TimerId};

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Not allocated; `next` links the list of freed slots.
    Free { next: Option<u16> },
    /// Allocated; expiry calls the `on_interrupt` callback.
    Callback,
    /// Allocated; expiry wakes the waker of a [`Sleep`](super::Sleep).
    Waiter,
}

/// One slot of the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    kind: Kind,
    /// Position in the heap while queued, [`IDLE`] while not (only allocated slots are
    /// queued; positions are below `CAPACITY <= 65535`).
    at: u16,
    /// Counts the slot's allocations and frees (each adds one, so it is odd while the slot
    /// is allocated): a [`TimerId`] carries the (odd) generation it was handed out with,
    /// so an id kept after its timer was freed names no timer, even once the slot is
    /// allocated again, and a free slot matches no id. In the slot (8 bytes with it), so
    /// checking an id is one compare on what the operation reads anyway.
    generation: u16,
}

/// [`Slot::at`] of a slot that is not queued.
const IDLE: u16 = u16::MAX;

impl Slot {
    const FREE: Slot = Slot {
        kind: Kind::Free { next: None },
        at: IDLE,
        generation: 0,
    };
}

/// A queued timer, as the heap holds it: the key `(deadline, seq)` and its slot.
#[derive(Debug, Clone, Copy)]
struct Entry {
    deadline: u64,
    /// Start order: unique per start/restart, so keys never tie (FIFO among equal deadlines).
    seq: u64,
    /// The slot (a `u16`), stored as a full word so the entry has no padding to copy.
    id: u64,
}

impl Entry {
    const EMPTY: Entry = Entry {
        deadline: 0,
        seq: 0,
        id: 0,
    };

    /// The sort key: deadline, then start order, as one number (one compare, no branch).
    fn key(&self) -> u128 {
        (u128::from(self.deadline) << 64) | u128::from(self.seq)
    }

    /// Whether `self` runs before `other`.
    fn before(&self, other: &Entry) -> bool {
        self.key() < other.key()
    }
}

/// Heap entries examined by a sift, counted in the unit tests only (a zero-sized no-op
/// otherwise).
#[derive(Debug, Default)]
struct Visits(#[cfg(test)] usize);

impl Visits {
    #[cfg_attr(not(test), allow(unused_variables, clippy::unused_self))]
    fn add(&mut self, n: usize) {
        #[cfg(test)]
        {
            self.0 = self.0.wrapping_add(n);
        }
    }
}

/// The slot index an [`Entry`] names (`usize::MAX`, which no slot has, if it does not fit).
fn slot_index(id: u64) -> usize {
    usize::try_from(id).unwrap_or(usize::MAX)
}

/// The parent of heap position `at`, `None` for the root.
fn parent(at: usize) -> Option<usize> {
    at.checked_sub(1).map(|a| a / 2)
}

/// The first child of heap position `at` (the second is the next one). Positions are below
/// 65536, so this cannot overflow.
fn first_child(at: usize) -> usize {
    at.wrapping_mul(2).wrapping_add(1)
}

/// Store `entry` at `heap[at]` and point its slot there.
fn place(heap: &mut [Entry], slots: &mut [Slot], at: usize, entry: Entry) {
    if let Some(e) = heap.get_mut(at) {
        *e = entry;
    }
    if let Some(slot) = slots.get_mut(slot_index(entry.id)) {
        // Positions are below `CAPACITY <= 65535`: no truncation, never `IDLE`.
        slot.at = at as u16;
    }
}

/// Put `entry` into the hole at `at`, moving the hole up past every ancestor that runs
/// after `entry`, but not above `top`.
#[inline]
fn sift_up(
    heap: &mut [Entry],
    slots: &mut [Slot],
    mut at: usize,
    top: usize,
    entry: Entry,
    visits: &mut Visits,
) {
    while at > top {
        let Some(up) = parent(at) else {
            break;
        };
        let Some(&e) = heap.get(up) else {
            break;
        };
        visits.add(1);
        if !entry.before(&e) {
            break;
        }
        place(heap, slots, at, e);
        at = up;
    }
    place(heap, slots, at, entry);
}

/// Put `entry` into the hole at `top`, which is not above `entry`'s place: the hole first
/// goes down to a leaf along the earlier child (one comparison per level), then `entry`
/// goes up from there, rarely far (Floyd's bottom-up sift).
#[inline]
fn sift_down(
    heap: &mut [Entry],
    slots: &mut [Slot],
    top: usize,
    entry: Entry,
    visits: &mut Visits,
) {
    let mut at = top;
    loop {
        let left = first_child(at);
        let Some(&l) = heap.get(left) else {
            break;
        };
        let right = left.wrapping_add(1);
        let (child, c) = match heap.get(right) {
            Some(&r) if r.before(&l) => (right, r),
            _ => (left, l),
        };
        visits.add(2);
        place(heap, slots, at, c);
        at = child;
    }
    sift_up(heap, slots, at, top, entry, visits);
}

/// The pure queue: `N` slots with optional deadlines. No hardware, no locking.
///
/// A binary min-heap on `(deadline, start order)` with a back-pointer from each slot to its
/// heap position, so every operation on a queued timer finds it at once:
///
/// | operation | cost |
/// |---|---|
/// | [`next_deadline`](Self::next_deadline), [`len`](Self::len), [`deadline`](Self::deadline), [`alloc`](Self::alloc) | O(1) |
/// | [`start`](Self::start), [`restart`](Self::restart), [`cancel`](Self::cancel), [`free`](Self::free), [`pop_expired`](Self::pop_expired) | O(log n) |
///
/// Memory: 24 bytes per heap entry and 8 per slot, `32 N` bytes (plus the wakers of
/// [`HrTimers`](super::HrTimers)); nothing is allocated and nothing on the stack grows with `N`.
#[derive(Debug)]
pub struct TimerQueue<const N: usize> {
    slots: [Slot; N],
    /// `heap[..len]` is a min-heap; `slots[e.id]` is queued at `i` for `e = heap[i]`.
    heap: [Entry; N],
    len: usize,
    /// Slots `fresh..` have never been allocated (so `new` needs no loop to link them).
    fresh: usize,
    /// The most recently freed slot; the list continues through `Kind::Free { next }`.
    free_head: Option<u16>,
    /// The start order of the next start or restart.
    seq: u64,
    /// Heap entries examined, for the complexity tests.
    visits: Visits,
}

impl<const N: usize> Default for TimerQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TimerQueue<N> {
    /// Usable slots: a [`TimerId`]'s index is 16 bits, and one value marks an idle slot.
    const CAPACITY: usize = if N > u16::MAX as usize {
        u16::MAX as usize
    } else {
        N
    };

    /// An empty queue. `N` above 65535 is truncated to 65535 usable slots.
    pub const fn new() -> Self {
        Self {
            slots: [Slot::FREE; N],
            heap: [Entry::EMPTY; N],
            len: 0,
            fresh: 0,
            free_head: None,
            seq: 0,
            visits: Visits(
                #[cfg(test)]
                0,
            ),
        }
    }

    pub(super) fn alloc_kind(&mut self, kind: Kind) -> Result<TimerId, QueueError> {
        let index = if let Some(index) = self.free_head {
            let Some(Kind::Free { next }) = self.slots.get(usize::from(index)).map(|s| s.kind)
            else {
                return Err(QueueError::Full); // cannot happen: the list holds free slots
            };
            self.free_head = next;
            index
        } else if self.fresh < Self::CAPACITY {
            let index = u16::try_from(self.fresh).map_err(|_| QueueError::Full)?;
            // Cannot overflow: `fresh < CAPACITY <= 65535`.
            self.fresh = self.fresh.saturating_add(1);
            index
        } else {
            return Err(QueueError::Full);
        };
        let slot = self
            .slots
            .get_mut(usize::from(index))
            .ok_or(QueueError::Full)?;
        let generation = slot.generation.wrapping_add(1);
        *slot = Slot {
            kind,
            at: IDLE,
            generation,
        };
        Ok(TimerId::new(index, generation))
    }

    /// Allocate an idle timer. O(1).
    pub fn alloc(&mut self) -> Result<TimerId, QueueError> {
        self.alloc_kind(Kind::Callback)
    }

    /// Release a timer (dequeuing it). Freeing a free slot does nothing. O(log n).
    pub fn free(&mut self, id: TimerId) {
        let Ok(at) = self.position(id) else {
            return;
        };
        if let Some(at) = at {
            self.remove_at(at);
        }
        if let Some(slot) = self.slots.get_mut(id.index()) {
            *slot = Slot {
                kind: Kind::Free {
                    next: self.free_head,
                },
                at: IDLE,
                // The ids handed out so far name no timer any more.
                generation: slot.generation.wrapping_add(1),
            };
            self.free_head = Some(id.slot());
        }
    }

    /// The heap position of an allocated timer (`None`: idle).
    #[inline]
    pub(super) fn position(&self, id: TimerId) -> Result<Option<usize>, QueueError> {
        match self.slots.get(id.index()) {
            // Only an allocated slot has an odd generation, the one its id carries.
            Some(slot) if slot.generation == id.generation() => {
                Ok((slot.at != IDLE).then_some(usize::from(slot.at)))
            }
            _ => Err(QueueError::InvalidId),
        }
    }

    /// Queue an idle timer for `deadline`. O(log n).
    #[inline]
    pub fn start(&mut self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        match self.position(id)? {
            Some(_) => Err(QueueError::AlreadyQueued),
            None => self.push(id, deadline),
        }
    }

    /// Queue a timer for `deadline`, moving it if it is already queued (it then runs after
    /// the timers already queued for the same deadline). O(log n).
    pub fn restart(&mut self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        let Some(at) = self.position(id)? else {
            return self.push(id, deadline);
        };
        let entry = Entry {
            deadline,
            seq: self.next_seq(),
            id: u64::from(id.slot()),
        };
        let Self {
            heap,
            slots,
            len,
            visits,
            ..
        } = self;
        let heap = heap.get_mut(..*len).unwrap_or_default();
        if heap.get(at).is_some_and(|old| entry.before(old)) {
            sift_up(heap, slots, at, 0, entry, visits);
        } else {
            sift_down(heap, slots, at, entry, visits);
        }
        Ok(())
    }

    /// Dequeue; returns whether the timer was queued. O(log n).
    pub fn cancel(&mut self, id: TimerId) -> bool {
        match self.position(id) {
            Ok(Some(at)) => {
                self.remove_at(at);
                true
            }
            _ => false,
        }
    }

    /// Whether the timer is queued.
    pub fn is_queued(&self, id: TimerId) -> bool {
        matches!(self.position(id), Ok(Some(_)))
    }

    /// The timer's deadline, if queued.
    pub fn deadline(&self, id: TimerId) -> Option<u64> {
        let at = self.position(id).ok()??;
        self.heap.get(at).map(|e| e.deadline)
    }

    /// Number of queued timers. O(1).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no timer is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The earliest queued timer.
    fn first(&self) -> Option<&Entry> {
        if self.len == 0 {
            return None;
        }
        self.heap.first()
    }

    /// The earliest deadline, if any timer is queued. O(1).
    pub fn next_deadline(&self) -> Option<u64> {
        self.first().map(|e| e.deadline)
    }

    /// Dequeue the earliest timer whose deadline is `<= now`. O(log n).
    pub fn pop_expired(&mut self, now: u64) -> Option<(TimerId, u64)> {
        let first = *self.first()?;
        if first.deadline > now {
            return None;
        }
        let generation = self
            .slots
            .get(slot_index(first.id))
            .map_or(0, |s| s.generation);
        self.remove_at(0);
        // Entries are made from slot indices (`u16`) only.
        Some((TimerId::new(first.id as u16, generation), first.deadline))
    }

    /// Like [`pop_expired`](Self::pop_expired), but only a timer started before start
    /// number `before` (see [`started`](Self::started)).
    /// Also says whether the timer is a waiter (a [`Sleep`](super::Sleep)), read from the
    /// slot this has to update anyway.
    pub(super) fn pop_due(&mut self, now: u64, before: u64) -> Option<(TimerId, bool)> {
        let first = *self.first()?;
        if first.deadline > now || first.seq >= before {
            return None;
        }
        let (waiter, generation) = match self.slots.get_mut(slot_index(first.id)) {
            Some(slot) => {
                slot.at = IDLE;
                (slot.kind == Kind::Waiter, slot.generation)
            }
            None => (false, 0),
        };
        self.remove_root();
        // Entries are made from slot indices (`u16`) only.
        Some((TimerId::new(first.id as u16, generation), waiter))
    }

    /// Take the earliest entry out of the heap, its slot already marked idle: the last
    /// entry fills the hole at the root and goes down (nothing is above the root, so the
    /// parent test of [`remove_at`](Self::remove_at) is not needed).
    fn remove_root(&mut self) {
        let Some(last_at) = self.len.checked_sub(1) else {
            return;
        };
        self.len = last_at;
        let Self {
            heap,
            slots,
            visits,
            ..
        } = self;
        let Some(&last) = heap.get(last_at) else {
            return;
        };
        if last_at == 0 {
            return;
        }
        let heap = heap.get_mut(..last_at).unwrap_or_default();
        sift_down(heap, slots, 0, last, visits);
    }

    /// Whether [`pop_due`](Self::pop_due) would return a timer.
    pub(super) fn has_due(&self, now: u64, before: u64) -> bool {
        self.first()
            .is_some_and(|e| e.deadline <= now && e.seq < before)
    }

    /// How many starts and restarts there have been: timers started from now on have a
    /// start number of at least this.
    pub(super) fn started(&self) -> u64 {
        self.seq
    }

    fn next_seq(&mut self) -> u64 {
        let seq = self.seq;
        // 2^64 starts do not happen; wrapping would only reorder equal deadlines.
        self.seq = seq.wrapping_add(1);
        seq
    }

    /// Append `id` to the heap and sift it up.
    #[inline]
    fn push(&mut self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        // Cannot fail: each allocated slot is in the heap at most once, and there are at
        // most `CAPACITY <= N` of them.
        if self.len >= Self::CAPACITY {
            return Err(QueueError::Full);
        }
        let at = self.len;
        let entry = Entry {
            deadline,
            seq: self.next_seq(),
            id: u64::from(id.slot()),
        };
        // Cannot overflow: `len < CAPACITY`.
        self.len = at.saturating_add(1);
        let Self {
            heap,
            slots,
            len,
            visits,
            ..
        } = self;
        let heap = heap.get_mut(..*len).unwrap_or_default();
        sift_up(heap, slots, at, 0, entry, visits);
        Ok(())
    }

    /// Take the entry at heap position `at` out of the heap (its slot becomes idle).
    fn remove_at(&mut self, at: usize) {
        let Some(last_at) = self.len.checked_sub(1) else {
            return;
        };
        let Self {
            heap,
            slots,
            len,
            visits,
            ..
        } = self;
        let Some(removed) = heap.get(at).copied() else {
            return;
        };
        if let Some(slot) = slots.get_mut(slot_index(removed.id)) {
            slot.at = IDLE;
        }
        *len = last_at;
        if at == last_at {
            return;
        }
        let Some(last) = heap.get(last_at).copied() else {
            return;
        };
        let heap = heap.get_mut(..last_at).unwrap_or_default();
        // The last entry fills the hole: up if it runs before the hole's parent, else down.
        let up = parent(at)
            .and_then(|p| heap.get(p))
            .is_some_and(|p| last.before(p));
        if up {
            sift_up(heap, slots, at, 0, last, visits);
        } else {
            sift_down(heap, slots, at, last, visits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_deadline_order_with_fifo_ties() {
        let mut q: TimerQueue<6> = TimerQueue::new();
        let ids: [TimerId; 6] = core::array::from_fn(|_| q.alloc().unwrap());
        for (id, d) in ids.iter().zip([50u64, 10, 30, 10, 70, 30]) {
            q.start(*id, d).unwrap();
        }
        let mut order = [0usize; 6];
        let mut n = 0;
        while let Some((id, _)) = q.pop_expired(1000) {
            order[n] = id.index();
            n += 1;
        }
        assert_eq!(n, 6);
        assert_eq!(order, [1, 3, 2, 5, 0, 4]);
    }

    #[test]
    fn only_expired_entries_pop() {
        let mut q: TimerQueue<3> = TimerQueue::new();
        let a = q.alloc().unwrap();
        let b = q.alloc().unwrap();
        q.start(a, 100).unwrap();
        q.start(b, 200).unwrap();
        assert_eq!(q.pop_expired(99), None);
        assert_eq!(q.pop_expired(100), Some((a, 100)));
        assert_eq!(q.pop_expired(150), None);
        assert_eq!(q.next_deadline(), Some(200));
    }

    #[test]
    fn start_twice_is_refused_restart_moves() {
        let mut q: TimerQueue<2> = TimerQueue::new();
        let a = q.alloc().unwrap();
        q.start(a, 100).unwrap();
        assert_eq!(q.start(a, 50), Err(QueueError::AlreadyQueued));
        assert_eq!(q.deadline(a), Some(100));
        q.restart(a, 50).unwrap();
        assert_eq!(q.deadline(a), Some(50));
        assert!(q.cancel(a));
        assert!(!q.cancel(a));
        assert!(!q.is_queued(a));
    }

    #[test]
    fn capacity_is_fixed_and_ids_are_checked() {
        let mut q: TimerQueue<2> = TimerQueue::new();
        let a = q.alloc().unwrap();
        let _b = q.alloc().unwrap();
        assert_eq!(q.alloc(), Err(QueueError::Full));
        q.free(a);
        assert_eq!(q.start(a, 1), Err(QueueError::InvalidId));
        assert_eq!(q.start(TimerId::new(7, 1), 1), Err(QueueError::InvalidId));
        assert!(q.alloc().is_ok());
    }

    /// A heap of `n` timers with scattered deadlines (a fixed pseudo-random sequence).
    fn scattered<const N: usize>() -> (TimerQueue<N>, [TimerId; N]) {
        let mut q: TimerQueue<N> = TimerQueue::new();
        let ids: [TimerId; N] = core::array::from_fn(|_| q.alloc().unwrap());
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for id in ids {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            q.start(id, 1_000 + x % 1_000_000).unwrap();
        }
        (q, ids)
    }

    /// Entries examined by `op`, which must not be more than three per level of the heap
    /// (the bottom-up sift examines both children on the way down and the parent on the way
    /// back up): the old queue scanned all `N` slots for each of these.
    fn examined<const N: usize>(q: &mut TimerQueue<N>, op: impl FnOnce(&mut TimerQueue<N>)) {
        let levels = usize::BITS - N.leading_zeros(); // 13 for 4096
        q.visits.0 = 0;
        op(q);
        assert!(
            q.visits.0 <= 3 * levels as usize,
            "{} entries examined, {levels} levels",
            q.visits.0
        );
    }

    #[test]
    fn every_operation_examines_o_log_n_entries() {
        let (mut q, ids) = scattered::<4096>();
        let first = |q: &TimerQueue<4096>| {
            let d = q.next_deadline().unwrap();
            *ids.iter().find(|id| q.deadline(**id) == Some(d)).unwrap()
        };
        // The earliest timer moved to the back, and a late one to the front.
        examined(&mut q, |q| q.restart(first(q), 2_000_000).unwrap());
        examined(&mut q, |q| q.restart(ids[100], 0).unwrap());
        assert_eq!(first(&q), ids[100]);
        examined(&mut q, |q| assert!(q.cancel(ids[100])));
        examined(&mut q, |q| assert!(q.cancel(ids[2049])));
        examined(&mut q, |q| q.start(ids[100], 1).unwrap());
        examined(&mut q, |q| q.free(ids[7]));
        examined(&mut q, |q| assert!(q.pop_expired(u64::MAX).is_some()));
        // O(1): nothing examined.
        q.visits.0 = 0;
        assert!(q.next_deadline().is_some() && q.len() == 4093 && q.alloc().is_ok());
        assert_eq!(q.visits.0, 0);
        // And the order is still right.
        let mut last = 0;
        while let Some((_, d)) = q.pop_expired(u64::MAX) {
            assert!(d >= last);
            last = d;
        }
        assert!(q.is_empty());
    }

    #[test]
    fn freed_slots_are_reused_and_ids_stay_checked() {
        let mut q: TimerQueue<3> = TimerQueue::new();
        let [a, b, c] = core::array::from_fn(|_| q.alloc().unwrap());
        q.start(b, 5).unwrap();
        q.free(b);
        q.free(b); // a free slot: nothing happens
        assert!(q.is_empty());
        assert_eq!(q.start(b, 1), Err(QueueError::InvalidId));
        assert!(!q.cancel(b) && !q.is_queued(b) && q.deadline(b).is_none());
        let b2 = q.alloc().unwrap();
        assert_eq!(b2.index(), b.index(), "the freed slot");
        assert_ne!(b2, b, "under a new generation");
        assert_eq!(q.alloc(), Err(QueueError::Full));
        q.free(a);
        q.free(c);
        assert_eq!(
            q.alloc().map(TimerId::index),
            Ok(c.index()),
            "most recently freed first"
        );
        assert_eq!(q.alloc().map(TimerId::index), Ok(a.index()));
        // A slot never allocated is invalid, and freeing it does nothing.
        let mut q: TimerQueue<4> = TimerQueue::new();
        // (Generation 1: the first one a slot hands out.)
        q.free(TimerId::new(3, 1));
        assert_eq!(q.start(TimerId::new(3, 1), 1), Err(QueueError::InvalidId));
        assert_eq!(q.alloc().map(TimerId::index), Ok(0));
    }
}
