//! A fixed-capacity software timer queue ("hrtimer") multiplexed onto one clockevent.
//!
//! [`TimerQueue`] is the pure data structure (slots, deadlines, ordering); [`HrTimers`]
//! puts it and an [`Alarm`] behind a critical section and runs expiries from the
//! clockevent interrupt. The stmmac crate drives its TX/RX coalescing timers with it; the
//! async delay of this crate ([`HrTimers::sleep_until`]) waits on it.
//!
//! # Semantics
//!
//! - Capacity is `N` slots, fixed at compile time; [`HrTimers::alloc`] hands out a
//!   [`TimerId`] per slot and fails with [`QueueError::Full`] when none is left.
//! - [`start`](HrTimers::start) queues an idle timer; starting a queued one is an error
//!   ([`QueueError::AlreadyQueued`]), so "arm once, let it run" code can rely on
//!   [`is_queued`](HrTimers::is_queued) and never moves a running deadline by accident.
//!   [`restart`](HrTimers::restart) moves the deadline of a queued timer (or starts an idle
//!   one). [`cancel`](HrTimers::cancel) dequeues.
//! - Expired timers run in deadline order; timers with equal deadlines run in the order
//!   they were started.
//! - A deadline already passed when started is not an error: the clockevent is programmed
//!   with its `min_delta` and the timer runs from the next interrupt.
//! - Callbacks run **outside** the critical section, so they may start, restart or cancel
//!   any timer, including their own; returning [`Restart::At`] re-queues the timer
//!   (Linux `HRTIMER_RESTART`).
//! - The hardware is programmed only when the earliest deadline changes, and shut down
//!   when the queue becomes empty.
//!
//! # Data structure and costs
//!
//! [`TimerQueue`] is a binary min-heap of `(deadline, start number)` keys with a
//! back-pointer from each slot to its heap position, so a queued timer is found at once and
//! moved or removed in O(log n); the earliest deadline and the length are read in O(1), and
//! slots come from a free list in O(1) (its docs list every operation). The start number
//! is unique, so no two keys tie and the heap order is exactly the order above (FIFO among
//! equal deadlines) without a stable sort.
//!
//! [`HrTimers::on_interrupt`] takes the expired timers out [`EXPIRY_BATCH`] at a time, one
//! critical section per batch, and runs them outside it. What a round may take is bounded
//! by a start number, not by a list of what was due, so nothing on its stack grows with `N`.
//!
//! Measured by `cargo bench -p hwtimer-core --bench core` (lines
//! `hwtimer-core/queue_*_<n>`; `queue_start_expire_insns_<n>` continues the
//! `timer-core/queue_start_expire_insns_<n>` series of the crate's old name): callgrind
//! instructions on the x86-64 host, release build, on an `HrTimers` of capacity `n` holding
//! `n` timers, over a clockevent and time base that cost nothing, with the host's
//! `critical-section` (a `std` mutex) included. Before → after; before is the linear queue
//! this replaced, whose every `next_deadline` scanned all `N` slots and whose interrupt
//! collected all expired timers in one critical section, one scan per timer.
//!
//! | n pending | 16 | 256 | 4096 |
//! |---|---|---|---|
//! | start + expire one timer | 1421 → 808 | 17,158 → 916 | 323,848 → 1043 |
//! | restart the earliest behind all others (hardware re-armed) | 353 → 362 | 3132 → 487 | 47,293 → 614 |
//! | cancel the earliest and start it again | 626 → 546 | 6306 → 654 | 96,547 → 781 |
//! | longest critical section | 2120 → 1625 | 627,494 → 2781 | 159,520,785 → 3886 |
//! | stack `on_interrupt` needs, bytes | 785 → 465 | 8433 → 441 | 131,313 → 441 |
//!
//! - **Longest critical section**: instructions from the lock's acquire returning to its
//!   release being entered (`bench_support::instr::critical_sections`), over a start that becomes the
//!   earliest, a restart of the earliest to the back, a cancel of the earliest and an
//!   interrupt that expires everything. Before, the last was the longest: one section for
//!   all `n` timers, quadratic in `n`. Now it is one batch of [`EXPIRY_BATCH`] removals
//!   from the top of the heap (at 4096: 513 sections, none longer than 3886). The single
//!   operations at 4096 went from 49,243 / 47,195 / 47,209 (start / restart / cancel) to
//!   421 / 515 / 539.
//! - **Stack**: how far below its caller's frame the stack goes while `on_interrupt`
//!   expires all `n` timers, seen from the callback, the clockevent and the time base. The
//!   old handler kept two `Vec<_, N>` of ids and wakers (18 bytes per slot on this host, 10
//!   on a 32-bit target: 40 KiB at `N` = 4096) and moved them; now a batch is 176 bytes
//!   whatever `N`.
//! - **The small end**: a heap has fixed costs that a scan of a few slots does not. At 16
//!   timers, restarting the earliest costs 9 instructions more than before (and every other
//!   `HrTimers` operation less, because `next_deadline` no longer scans); the bare
//!   `TimerQueue` start + pop with 8 of 16 slots queued (`insns_queue_start_pop`) went from
//!   146 to 190 instructions.
//! - **Memory** is unchanged: 32 bytes per slot (a 24-byte heap entry and an 8-byte slot;
//!   the old slot was 32 bytes), plus one waker per slot in [`HrTimers`].

// Library code never panics on any input: no unwrap/expect/panic, no slice indexing, no
// arithmetic that can overflow implicitly (checked, saturating or wrapping operations, each
// with the reason it cannot overflow). Tests may.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

use core::cell::RefCell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

use critical_section::Mutex;

use crate::clockevent::{Alarm, ClockEvent, Fired};
use crate::clocksource::Monotonic;
use crate::error::Error;

/// Names one slot of a timer queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimerId(u16);

impl TimerId {
    /// The slot index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Why a queue operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QueueError {
    /// Every slot is allocated.
    Full,
    /// [`start`](HrTimers::start) on a timer that is already queued.
    AlreadyQueued,
    /// The id is not an allocated slot of this queue.
    InvalidId,
    /// The queue was re-entered while it was being updated (cannot happen through the
    /// public API on a single core; reported rather than panicking).
    Busy,
    /// Programming the clockevent failed.
    Hardware(Error),
}

impl From<QueueError> for Error {
    fn from(e: QueueError) -> Self {
        match e {
            QueueError::Hardware(e) => e,
            _ => Error::InvalidConfig,
        }
    }
}

/// What a timer callback wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Restart {
    /// Leave the timer idle.
    No,
    /// Queue it again for this absolute deadline.
    At(u64),
}

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Not allocated; `next` links the list of freed slots.
    Free { next: Option<u16> },
    /// Allocated; expiry calls the `on_interrupt` callback.
    Callback,
    /// Allocated; expiry wakes the waker of a [`Sleep`].
    Waiter,
}

/// One slot of the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    kind: Kind,
    /// Queued (only allocated slots are).
    queued: bool,
    /// Position in the heap while queued.
    at: u16,
}

impl Slot {
    const FREE: Slot = Slot {
        kind: Kind::Free { next: None },
        queued: false,
        at: 0,
    };

    fn is_allocated(&self) -> bool {
        !matches!(self.kind, Kind::Free { .. })
    }
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

/// The [`TimerId`] an [`Entry`] names.
fn timer_id(id: u64) -> TimerId {
    // Entries are made from `TimerId`s only.
    TimerId(u16::try_from(id).unwrap_or(u16::MAX))
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
        // Positions are below `CAPACITY <= 65536`: no truncation.
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
/// [`HrTimers`]); nothing is allocated and nothing on the stack grows with `N`.
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
    /// Usable slots: a [`TimerId`] is 16 bits.
    const CAPACITY: usize = if N > 1 << 16 { 1 << 16 } else { N };

    /// An empty queue. `N` above 65536 is truncated to 65536 usable slots.
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

    fn alloc_kind(&mut self, kind: Kind) -> Result<TimerId, QueueError> {
        let index = if let Some(index) = self.free_head {
            let Some(Kind::Free { next }) = self.slots.get(usize::from(index)).map(|s| s.kind)
            else {
                return Err(QueueError::Full); // cannot happen: the list holds free slots
            };
            self.free_head = next;
            index
        } else if self.fresh < Self::CAPACITY {
            let index = u16::try_from(self.fresh).map_err(|_| QueueError::Full)?;
            // Cannot overflow: `fresh < CAPACITY <= 65536`.
            self.fresh = self.fresh.saturating_add(1);
            index
        } else {
            return Err(QueueError::Full);
        };
        let slot = self
            .slots
            .get_mut(usize::from(index))
            .ok_or(QueueError::Full)?;
        *slot = Slot {
            kind,
            queued: false,
            at: 0,
        };
        Ok(TimerId(index))
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
                queued: false,
                at: 0,
            };
            self.free_head = Some(id.0);
        }
    }

    /// The heap position of an allocated timer (`None`: idle).
    #[inline]
    fn position(&self, id: TimerId) -> Result<Option<usize>, QueueError> {
        match self.slots.get(id.index()) {
            Some(slot) if slot.is_allocated() => Ok(slot.queued.then_some(usize::from(slot.at))),
            _ => Err(QueueError::InvalidId),
        }
    }

    fn is_waiter(&self, id: TimerId) -> bool {
        matches!(self.slots.get(id.index()), Some(s) if s.kind == Kind::Waiter)
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
            id: u64::from(id.0),
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
        self.remove_at(0);
        Some((timer_id(first.id), first.deadline))
    }

    /// Like [`pop_expired`](Self::pop_expired), but only a timer started before start
    /// number `before` (see [`started`](Self::started)).
    fn pop_due(&mut self, now: u64, before: u64) -> Option<TimerId> {
        let first = *self.first()?;
        if first.deadline > now || first.seq >= before {
            return None;
        }
        self.remove_at(0);
        Some(timer_id(first.id))
    }

    /// Whether [`pop_due`](Self::pop_due) would return a timer.
    fn has_due(&self, now: u64, before: u64) -> bool {
        self.first()
            .is_some_and(|e| e.deadline <= now && e.seq < before)
    }

    /// How many starts and restarts there have been: timers started from now on have a
    /// start number of at least this.
    fn started(&self) -> u64 {
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
            id: u64::from(id.0),
        };
        // Cannot overflow: `len < CAPACITY`.
        self.len = at.saturating_add(1);
        if let Some(slot) = self.slots.get_mut(id.index()) {
            slot.queued = true;
        }
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
            slot.queued = false;
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

struct Inner<E: ClockEvent, M: Monotonic, const N: usize> {
    alarm: Alarm<E, M>,
    queue: TimerQueue<N>,
    wakers: [Option<Waker>; N],
    armed_for: Option<u64>,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Inner<E, M, N> {
    /// Program the hardware for the earliest deadline if it changed. `strict`: a deadline
    /// that already passed is reported (`Ok(false)`: the caller must expire timers first)
    /// instead of being armed at `min_delta`; strict calls always program.
    fn reprogram(&mut self, strict: bool) -> Result<bool, QueueError> {
        self.reprogram_at(strict, None)
    }

    /// [`reprogram`](Self::reprogram) with `now`, a time-base reading just made (or `None`),
    /// for the alarm to measure a relative wait from instead of reading the time again.
    #[inline]
    fn reprogram_at(&mut self, strict: bool, now: Option<u64>) -> Result<bool, QueueError> {
        let next = self.queue.next_deadline();
        if next == self.armed_for && !strict {
            return Ok(true);
        }
        match next {
            None => {
                self.alarm.cancel();
                self.armed_for = None;
                Ok(true)
            }
            Some(at) if strict => match self.alarm.set_deadline(at) {
                Ok(_) => {
                    self.armed_for = Some(at);
                    Ok(true)
                }
                Err(Error::DeadlinePassed { .. }) => {
                    self.armed_for = None;
                    Ok(false)
                }
                Err(e) => Err(QueueError::Hardware(e)),
            },
            Some(at) => {
                self.alarm.arm_at(at, now).map_err(QueueError::Hardware)?;
                self.armed_for = Some(at);
                Ok(true)
            }
        }
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Inner<E, M, N> {
    /// Start a round of expiries at `now` (see [`HrTimers::on_interrupt`]) and take its
    /// first batch into `batch`. Returns the round.
    fn start_round(&mut self, now: u64, batch: &mut Batch) -> Round {
        self.armed_for = None;
        let round = Round {
            now,
            before: self.queue.started(),
        };
        self.take_due(round, batch);
        round
    }

    /// Take up to [`EXPIRY_BATCH`] timers of `round` out of the queue into the (empty)
    /// `batch`, in deadline order.
    fn take_due(&mut self, round: Round, batch: &mut Batch) {
        batch.taken = 0;
        while batch.taken < EXPIRY_BATCH {
            let Some(id) = self.queue.pop_due(round.now, round.before) else {
                batch.more = false;
                return;
            };
            // Cannot overflow: below EXPIRY_BATCH. The pushes cannot fail for the same reason.
            batch.taken = batch.taken.saturating_add(1);
            if self.queue.is_waiter(id) {
                if let Some(w) = self.wakers.get_mut(id.index()).and_then(Option::take) {
                    let _ = batch.wakes.push(w);
                }
            } else {
                let _ = batch.calls.push(id);
            }
        }
        batch.more = self.queue.has_due(round.now, round.before);
    }
}

/// Expired timers taken out of the queue in one critical section, to run outside it.
struct Batch {
    calls: heapless::Vec<TimerId, EXPIRY_BATCH>,
    wakes: heapless::Vec<Waker, EXPIRY_BATCH>,
    /// How many timers were dequeued.
    taken: usize,
    /// Due timers of this round are left in the queue.
    more: bool,
}

/// One round of [`HrTimers::on_interrupt`]: it serves the timers due at `now` that were
/// started before start number `before`.
#[derive(Clone, Copy)]
struct Round {
    now: u64,
    before: u64,
}

/// How many times [`HrTimers::on_interrupt`] collects expired timers before it stops
/// looking for more and programs the next deadline at `min_delta` instead.
pub const MAX_EXPIRY_ROUNDS: u32 = 4;

/// How many expired timers [`HrTimers::on_interrupt`] takes out of the queue in one
/// critical section before it runs them (outside it). It bounds both the longest critical
/// section of an expiry (`EXPIRY_BATCH` heap removals) and the stack the handler needs
/// (`EXPIRY_BATCH` ids and wakers), whatever the capacity.
pub const EXPIRY_BATCH: usize = 8;

/// A [`TimerQueue`] driven by an [`Alarm`], shared between thread and interrupt context
/// through a `critical_section::Mutex`. See the [module docs](self) for the semantics.
///
/// Wire [`on_interrupt`](Self::on_interrupt) to the clockevent's interrupt handler.
pub struct HrTimers<E: ClockEvent, M: Monotonic, const N: usize> {
    inner: Mutex<RefCell<Inner<E, M, N>>>,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> HrTimers<E, M, N> {
    /// A queue of `N` timers on `alarm`.
    pub const fn new(alarm: Alarm<E, M>) -> Self {
        Self {
            inner: Mutex::new(RefCell::new(Inner {
                alarm,
                queue: TimerQueue::new(),
                wakers: [const { None }; N],
                armed_for: None,
            })),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner<E, M, N>) -> R) -> Result<R, QueueError> {
        critical_section::with(|cs| {
            let mut inner = self
                .inner
                .borrow(cs)
                .try_borrow_mut()
                .map_err(|_| QueueError::Busy)?;
            Ok(f(&mut inner))
        })
    }

    /// The current time of the alarm's time base, in ticks.
    pub fn now(&self) -> u64 {
        self.with(|i| i.alarm.time().now()).unwrap_or(0)
    }

    /// The time base's rate in Hz.
    pub fn freq_hz(&self) -> u32 {
        self.with(|i| i.alarm.time().freq_hz()).unwrap_or(0)
    }

    /// Allocate a callback timer.
    ///
    /// Errors: [`QueueError::Full`] when all `N` slots are in use.
    pub fn alloc(&self) -> Result<TimerId, QueueError> {
        self.with(|i| i.queue.alloc())?
    }

    /// Free a timer, dequeuing it (freeing a free slot does nothing).
    ///
    /// Errors: [`QueueError::Hardware`] when re-programming the clockevent for the next
    /// deadline failed (the slot is freed anyway).
    pub fn free(&self, id: TimerId) -> Result<(), QueueError> {
        self.with(|i| {
            i.queue.free(id);
            if let Some(w) = i.wakers.get_mut(id.index()) {
                *w = None;
            }
            i.reprogram(false).map(|_| ())
        })?
    }

    /// Queue an idle timer for the absolute `deadline` (time-base ticks). A deadline
    /// already passed is queued too and runs from the next interrupt (the clockevent is
    /// programmed with its `min_delta`).
    ///
    /// Errors: [`QueueError::InvalidId`] for an id that is not allocated;
    /// [`QueueError::AlreadyQueued`] when the timer is queued (use
    /// [`restart`](Self::restart) to move it); [`QueueError::Hardware`] when programming
    /// the clockevent failed — the timer then **stays queued** and the hardware is
    /// programmed again at the next queue operation or interrupt.
    pub fn start(&self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        self.with(|i| {
            i.queue.start(id, deadline)?;
            i.reprogram(false).map(|_| ())
        })?
    }

    /// Queue an idle timer `delta` ticks from now. Errors as [`start`](Self::start).
    pub fn start_after(&self, id: TimerId, delta: u64) -> Result<(), QueueError> {
        self.with(|i| {
            let now = i.alarm.time().now();
            i.queue.start(id, now.saturating_add(delta))?;
            i.reprogram_at(false, Some(now)).map(|_| ())
        })?
    }

    /// Queue a timer for `deadline`, moving it if already queued.
    ///
    /// Errors: [`QueueError::InvalidId`], and [`QueueError::Hardware`] as for
    /// [`start`](Self::start).
    pub fn restart(&self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        self.with(|i| {
            i.queue.restart(id, deadline)?;
            i.reprogram(false).map(|_| ())
        })?
    }

    /// Dequeue; returns whether it was queued.
    pub fn cancel(&self, id: TimerId) -> bool {
        self.with(|i| {
            let was = i.queue.cancel(id);
            // A failed shutdown cannot be reported here; the next interrupt is spurious.
            let _ = i.reprogram(false);
            was
        })
        .unwrap_or(false)
    }

    /// Whether the timer is queued.
    pub fn is_queued(&self, id: TimerId) -> bool {
        self.with(|i| i.queue.is_queued(id)).unwrap_or(false)
    }

    /// The timer's deadline, if queued.
    pub fn deadline(&self, id: TimerId) -> Option<u64> {
        self.with(|i| i.queue.deadline(id)).ok().flatten()
    }

    /// The earliest queued deadline.
    pub fn next_deadline(&self) -> Option<u64> {
        self.with(|i| i.queue.next_deadline()).ok().flatten()
    }

    /// Call from the clockevent's interrupt handler. Runs every expired timer — callback
    /// timers through `callback(id, now)`, async sleepers by waking them — in deadline
    /// order, then programs the hardware for the next deadline. Returns how many timers
    /// expired.
    ///
    /// The expired timers are taken out of the queue [`EXPIRY_BATCH`] at a time, each batch
    /// in one critical section, and run outside it; so no critical section is longer than
    /// `EXPIRY_BATCH` heap removals and the stack needed does not grow with `N`. A timer
    /// that a callback cancels before its batch is taken does not run (`cancel` returned
    /// `true`).
    ///
    /// Work comes in rounds. A round serves the timers due at the time it starts that were
    /// started before it; a timer started or restarted while it runs (by a callback, or by
    /// [`Restart::At`]) waits for the next round even when it is already due, and so do the
    /// due timers queued behind it that the round has not taken yet (deadline order holds
    /// within each batch and each round). When a round ends with the next deadline already passed,
    /// another starts, for up to [`MAX_EXPIRY_ROUNDS`] rounds; after that the rest run from
    /// the next interrupt, `min_delta` later, so a callback that keeps re-queueing itself
    /// into the past cannot hang the CPU here.
    ///
    /// A step of a long wait whose re-arm failed in the alarm
    /// ([`Fired::RearmFailed`]) is programmed once more here; if that succeeds the
    /// failure is repaired and not reported.
    ///
    /// Errors: [`QueueError::Hardware`] when the clockevent could not be programmed for
    /// the next deadline (a failed re-arm that failed again, or a write-status timeout
    /// after the expiries): the timers that expired have run, the others **stay queued
    /// with nothing armed**, so no interrupt will come for them; the next queue operation
    /// ([`start`](Self::start), [`restart`](Self::restart), [`cancel`](Self::cancel), ...)
    /// programs the hardware again. The caller decides what to do (retry from a later
    /// poll, reset the block, give up). [`QueueError::Busy`] when the queue was re-entered.
    pub fn on_interrupt(
        &self,
        mut callback: impl FnMut(TimerId, u64) -> Restart,
    ) -> Result<usize, QueueError> {
        let mut batch = Batch {
            calls: heapless::Vec::new(),
            wakes: heapless::Vec::new(),
            taken: 0,
            more: false,
        };
        // Acknowledge, and take the first batch in the same critical section.
        let first = self.with(|i| match i.alarm.on_interrupt() {
            Fired::Spurious | Fired::Rearmed { .. } => None,
            // A failed re-arm leaves the hardware idle with the deadline unreached: the
            // round finds nothing due and programs it again below (and reports it if that
            // fails too).
            Fired::Deadline { now, .. }
            | Fired::Period { now }
            | Fired::RearmFailed { now, .. } => Some(i.start_round(now, &mut batch)),
        })?;
        let Some(mut round) = first else {
            return Ok(0);
        };
        let mut expired: usize = 0;
        let mut rounds = 1u32;
        loop {
            // Run the batch outside the critical section...
            expired = expired.saturating_add(batch.taken);
            for w in batch.wakes.drain(..) {
                w.wake();
            }
            for id in batch.calls.drain(..) {
                if let Restart::At(at) = callback(id, round.now) {
                    let _ = self.with(|i| i.queue.restart(id, at));
                }
            }
            // ...then take the next one of this round.
            if batch.more {
                self.with(|i| i.take_due(round, &mut batch))?;
                continue;
            }
            // Round done: arm for the next deadline. If it already passed, go round again,
            // but only a few times: callbacks that keep re-queueing into the past would
            // otherwise hold the CPU in this handler forever (Linux's hrtimer_interrupt has
            // the same guard). After that the next deadline is forced to `min_delta` from
            // now.
            let strict = rounds < MAX_EXPIRY_ROUNDS;
            let next = self.with(|i| match i.reprogram(strict) {
                Ok(true) => Ok(None),
                Ok(false) => {
                    let now = i.alarm.time().now();
                    Ok(Some(i.start_round(now, &mut batch)))
                }
                // Never dropped: nothing is armed for the queued timers.
                Err(e) => Err(e),
            })??;
            match next {
                Some(next) => round = next,
                None => return Ok(expired),
            }
            rounds = rounds.saturating_add(1);
        }
    }

    /// A future that completes at the absolute `deadline`, never earlier. Dropping it
    /// cancels the wait. If every slot is in use it still completes, by yielding to the
    /// executor until the deadline (a busy poll) instead of failing.
    pub fn sleep_until(&self, deadline: u64) -> Sleep<'_, E, M, N> {
        Sleep {
            timers: self,
            deadline,
            id: None,
        }
    }

    /// A future that completes `ns` nanoseconds from now, never earlier (+1 tick rule).
    pub fn sleep_ns(&self, ns: u64) -> Sleep<'_, E, M, N> {
        let ticks = crate::delay::ticks_for_ns(ns, self.freq_hz());
        let deadline = self.now().saturating_add(ticks);
        self.sleep_until(deadline)
    }

    /// Run `f` on the alarm (for tests, statistics and driver-specific calls).
    pub fn with_alarm<R>(&self, f: impl FnOnce(&mut Alarm<E, M>) -> R) -> Result<R, QueueError> {
        self.with(|i| f(&mut i.alarm))
    }
}

/// The future returned by [`HrTimers::sleep_until`].
pub struct Sleep<'a, E: ClockEvent, M: Monotonic, const N: usize> {
    timers: &'a HrTimers<E, M, N>,
    deadline: u64,
    id: Option<TimerId>,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Future for Sleep<'_, E, M, N> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = self.deadline;
        let id = self.id;
        let step = self.timers.with(|i| {
            if i.alarm.time().now() >= deadline {
                if let Some(id) = id {
                    i.queue.free(id);
                    if let Some(w) = i.wakers.get_mut(id.index()) {
                        *w = None;
                    }
                    let _ = i.reprogram(false);
                }
                return (Poll::Ready(()), None);
            }
            let id = match id {
                Some(id) => id,
                None => match i.queue.alloc_kind(Kind::Waiter) {
                    Ok(id) => {
                        if i.queue.start(id, deadline).is_err() || i.reprogram(false).is_err() {
                            i.queue.free(id);
                            return (Poll::Pending, None);
                        }
                        id
                    }
                    // No slot: fall back to polling through the executor.
                    Err(_) => return (Poll::Pending, None),
                },
            };
            if let Some(w) = i.wakers.get_mut(id.index()) {
                match w {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    _ => *w = Some(cx.waker().clone()),
                }
            }
            (Poll::Pending, Some(id))
        });
        match step {
            Ok((Poll::Ready(()), _)) => {
                self.id = None;
                Poll::Ready(())
            }
            Ok((Poll::Pending, Some(id))) => {
                self.id = Some(id);
                Poll::Pending
            }
            // No slot (or a re-entered queue): poll again soon instead of sleeping forever.
            Ok((Poll::Pending, None)) | Err(_) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Drop for Sleep<'_, E, M, N> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let _ = self.timers.free(id);
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
        assert_eq!(q.start(TimerId(7), 1), Err(QueueError::InvalidId));
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
        assert_eq!(q.alloc(), Ok(b), "the freed slot");
        assert_eq!(q.alloc(), Err(QueueError::Full));
        q.free(a);
        q.free(c);
        assert_eq!(q.alloc(), Ok(c), "most recently freed first");
        assert_eq!(q.alloc(), Ok(a));
        // A slot never allocated is invalid, and freeing it does nothing.
        let mut q: TimerQueue<4> = TimerQueue::new();
        q.free(TimerId(3));
        assert_eq!(q.start(TimerId(3), 1), Err(QueueError::InvalidId));
        assert_eq!(q.alloc(), Ok(TimerId(0)));
    }
}
