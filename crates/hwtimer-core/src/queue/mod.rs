//! A fixed-capacity software timer queue ("hrtimer") multiplexed onto one clockevent.
//!
//! [`TimerQueue`] is the pure data structure (slots, deadlines, ordering); [`HrTimers`]
//! puts it and an [`Alarm`](crate::Alarm) behind a critical section and runs expiries from the
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
//! - The hardware is programmed when the earliest deadline changes, by the operations
//!   that can report a refusal ([`start`](HrTimers::start), [`restart`](HrTimers::restart),
//!   [`try_cancel`](HrTimers::try_cancel), [`free`](HrTimers::free)). The removals that
//!   cannot ([`cancel`](HrTimers::cancel), a [`Sleep`] that completes or is dropped)
//!   program nothing: the deadline still armed is at or before the new earliest one, and
//!   its interrupt finds nothing due and programs the next deadline.
//! - When the queue becomes empty in an interrupt, the channel is kept at
//!   [`Alarm::keep_alive`](crate::Alarm::keep_alive), not shut down: a time base narrower
//!   than 64 bits (an [`Extended`](crate::Extended) counter) is then still read at least
//!   every [`max_idle_ticks`](crate::Monotonic::max_idle_ticks), so an idle of any length
//!   loses no time (a 64-bit time base is simply stopped). A queue that was never used has
//!   armed nothing: [`HrTimers::reprogram`] arms its keep-alive (so does the first start).
//!
//! # When the hardware refuses
//!
//! A channel can refuse a programming ([`Error::Busy`], [`Error::Timeout`],
//! [`Error::WrongCpu`]), leaving what it held before armed or, for some drivers, nothing.
//! No queued timer is lost to it:
//!
//! - The operation returns [`QueueError::Hardware`] and the timer stays queued; the queue
//!   forgets what it believed armed, so the next operation programs the hardware whatever
//!   the earliest deadline is.
//! - An interrupt of the deadline the channel still held is served: the alarm finds it
//!   spurious (it no longer holds that deadline), and [`HrTimers::on_interrupt`] runs what
//!   is due and programs the rest.
//! - Async sleepers ([`Sleep`]) are woken to poll again; each poll retries the programming,
//!   so their executor carries the retry until the failure stops.
//! - For callback timers the caller has the error and makes the recovery call,
//!   [`HrTimers::reprogram`], later (from a tick, a poll, or by pending the interrupt again)
//!   until it succeeds; [`HrTimers::needs_reprogram`] says whether one is owed. A narrow
//!   time base needs that within its [`max_idle_ticks`](crate::Monotonic::max_idle_ticks)
//!   when nothing else is armed.
//! - A channel whose registers belong to another core refuses with [`Error::WrongCpu`]
//!   on every other core: sleepers are not woken for it (their polls could only spin), and
//!   the recovery call must be made on the owner core (an IPI to it whose handler calls
//!   [`HrTimers::reprogram`] or [`HrTimers::on_interrupt`]).
//! - Wakers are woken inside the queue's critical section on this path: a waker must only
//!   schedule its task (as executors' wakers do), never poll it in place.
//!
//! `tests/faults/failures.rs` checks this under injected failures (the `sim` feature's `fault` module):
//! refusals that keep or drop the old deadline, lost, doubled and late interrupts, stale
//! status and idle of up to ten wraps; the crate's fuzz target runs the same check
//! (`sim::queue_check`) against a plain reference.
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
//!//! `cargo bench -p hwtimer-core --bench core` measures the queue at 16, 256 and 4096
//! pending timers (bench lines `hwtimer-core/queue_*_<n>`: callgrind instructions per
//! operation, the longest critical section, and the stack `on_interrupt` needs); the
//! crate's README lists the figures. Memory: 32 bytes per slot (a 24-byte heap entry and
//! an 8-byte slot), plus one waker per slot in [`HrTimers`].
//!
//! The queue is split by concern: `heap` holds [`TimerQueue`], `hrtimers` holds
//! [`HrTimers`] (the queue behind a critical section, driven by an alarm), and `sleep` the
//! [`Sleep`] future.

mod heap;
mod hrtimers;
mod sleep;

pub use heap::TimerQueue;
pub use hrtimers::{EXPIRY_BATCH, HrTimers, MAX_EXPIRY_ROUNDS};
pub use sleep::Sleep;

use crate::error::Error;

/// Names one slot of a timer queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "a timer id that is dropped keeps its slot allocated until freed"]
pub struct TimerId(pub(super) u32);

impl TimerId {
    /// The id of slot `index` in its allocation number `generation`.
    pub(super) const fn new(index: u16, generation: u16) -> Self {
        Self((index as u32) | ((generation as u32) << 16))
    }

    /// The slot index.
    pub const fn index(self) -> usize {
        (self.0 & 0xFFFF) as usize
    }

    /// The slot index, as the queue stores it.
    pub(super) const fn slot(self) -> u16 {
        (self.0 & 0xFFFF) as u16
    }

    /// The allocation of the slot this id was handed out for: the queue refuses an id
    /// whose slot was freed since (and maybe allocated again), so a stale id can never
    /// cancel or move a newer timer in its slot.
    pub(super) const fn generation(self) -> u16 {
        (self.0 >> 16) as u16
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
    /// A callback of [`HrTimers::on_interrupt`] asked for [`Restart::At`] and this timer
    /// could not be queued again: it is no longer allocated (the callback freed it) or the
    /// queue was re-entered. The timer stays idle; every other expired timer ran and the
    /// hardware is programmed for the rest. Converts to [`Error::InvalidTimerId`].
    Restart(TimerId),
}

impl From<QueueError> for Error {
    /// Keeps the cause: each queue refusal has its own [`Error`] variant, and a hardware
    /// error is passed on as it was.
    fn from(e: QueueError) -> Self {
        match e {
            QueueError::Full => Error::QueueFull,
            QueueError::AlreadyQueued => Error::AlreadyQueued,
            QueueError::InvalidId => Error::InvalidTimerId,
            QueueError::Busy => Error::Busy,
            QueueError::Hardware(e) => e,
            QueueError::Restart(_) => Error::InvalidTimerId,
        }
    }
}

impl core::fmt::Display for QueueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            QueueError::Hardware(e) => write!(f, "programming the clockevent failed: {e}"),
            QueueError::Restart(id) => {
                write!(f, "timer {} could not be restarted", id.index())
            }
            // The other causes read the same as the `Error` they convert into.
            other => Error::from(*other).fmt(f),
        }
    }
}

impl core::error::Error for QueueError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            QueueError::Hardware(e) => Some(e),
            _ => None,
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
