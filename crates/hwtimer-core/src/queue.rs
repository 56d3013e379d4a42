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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Free,
    Callback,
    Waiter,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    kind: Kind,
    deadline: Option<u64>,
    seq: u64,
    fired: bool,
}

impl Slot {
    const FREE: Slot = Slot {
        kind: Kind::Free,
        deadline: None,
        seq: 0,
        fired: false,
    };
}

/// The pure queue: `N` slots with optional deadlines. No hardware, no locking.
#[derive(Debug)]
pub struct TimerQueue<const N: usize> {
    slots: [Slot; N],
    seq: u64,
}

impl<const N: usize> Default for TimerQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TimerQueue<N> {
    /// An empty queue. `N` above 65536 is truncated to 65536 usable slots.
    pub const fn new() -> Self {
        Self {
            slots: [Slot::FREE; N],
            seq: 0,
        }
    }

    fn alloc_kind(&mut self, kind: Kind) -> Result<TimerId, QueueError> {
        let limit = N.min(u16::MAX as usize + 1);
        for (i, slot) in self.slots.iter_mut().enumerate().take(limit) {
            if slot.kind == Kind::Free {
                *slot = Slot { kind, ..Slot::FREE };
                return u16::try_from(i).map(TimerId).map_err(|_| QueueError::Full);
            }
        }
        Err(QueueError::Full)
    }

    /// Allocate an idle timer.
    pub fn alloc(&mut self) -> Result<TimerId, QueueError> {
        self.alloc_kind(Kind::Callback)
    }

    /// Release a timer (dequeuing it). Freeing a free slot does nothing.
    pub fn free(&mut self, id: TimerId) {
        if let Some(slot) = self.slots.get_mut(id.index()) {
            *slot = Slot::FREE;
        }
    }

    fn slot(&self, id: TimerId) -> Result<&Slot, QueueError> {
        match self.slots.get(id.index()) {
            Some(s) if s.kind != Kind::Free => Ok(s),
            _ => Err(QueueError::InvalidId),
        }
    }

    fn slot_mut(&mut self, id: TimerId) -> Result<&mut Slot, QueueError> {
        match self.slots.get_mut(id.index()) {
            Some(s) if s.kind != Kind::Free => Ok(s),
            _ => Err(QueueError::InvalidId),
        }
    }

    /// Queue an idle timer for `deadline`.
    pub fn start(&mut self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        if self.slot(id)?.deadline.is_some() {
            return Err(QueueError::AlreadyQueued);
        }
        self.restart(id, deadline)
    }

    /// Queue a timer for `deadline`, moving it if it is already queued.
    pub fn restart(&mut self, id: TimerId, deadline: u64) -> Result<(), QueueError> {
        let seq = self.seq;
        let slot = self.slot_mut(id)?;
        slot.deadline = Some(deadline);
        slot.seq = seq;
        slot.fired = false;
        self.seq = self.seq.wrapping_add(1);
        Ok(())
    }

    /// Dequeue; returns whether the timer was queued.
    pub fn cancel(&mut self, id: TimerId) -> bool {
        match self.slot_mut(id) {
            Ok(slot) => slot.deadline.take().is_some(),
            Err(_) => false,
        }
    }

    /// Whether the timer is queued.
    pub fn is_queued(&self, id: TimerId) -> bool {
        self.deadline(id).is_some()
    }

    /// The timer's deadline, if queued.
    pub fn deadline(&self, id: TimerId) -> Option<u64> {
        self.slot(id).ok().and_then(|s| s.deadline)
    }

    /// Number of queued timers.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.deadline.is_some()).count()
    }

    /// Whether no timer is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn earliest(&self) -> Option<(usize, u64)> {
        let mut best: Option<(usize, u64, u64)> = None;
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(d) = s.deadline {
                let better = match best {
                    None => true,
                    // Wrap-safe sequence compare: started earlier wins a tie.
                    Some((_, bd, bs)) => d < bd || (d == bd && (s.seq.wrapping_sub(bs) as i64) < 0),
                };
                if better {
                    best = Some((i, d, s.seq));
                }
            }
        }
        best.map(|(i, d, _)| (i, d))
    }

    /// The earliest deadline, if any timer is queued.
    pub fn next_deadline(&self) -> Option<u64> {
        self.earliest().map(|(_, d)| d)
    }

    /// Dequeue the earliest timer whose deadline is `<= now`, marking it fired.
    pub fn pop_expired(&mut self, now: u64) -> Option<(TimerId, u64)> {
        let (i, d) = self.earliest()?;
        if d > now {
            return None;
        }
        let slot = self.slots.get_mut(i)?;
        slot.deadline = None;
        slot.fired = true;
        let id = TimerId(u16::try_from(i).ok()?);
        Some((id, d))
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
                self.alarm
                    .set_deadline_or_min(at)
                    .map_err(QueueError::Hardware)?;
                self.armed_for = Some(at);
                Ok(true)
            }
        }
    }
}

/// How many times [`HrTimers::on_interrupt`] collects expired timers before it stops
/// looking for more and programs the next deadline at `min_delta` instead.
pub const MAX_EXPIRY_ROUNDS: u32 = 4;

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
            let at = i.alarm.time().now().saturating_add(delta);
            i.queue.start(id, at)?;
            i.reprogram(false).map(|_| ())
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
    /// order, then programs the hardware for the next deadline. Timers that expire while
    /// this runs are served in the same call, for up to [`MAX_EXPIRY_ROUNDS`] rounds; after
    /// that the rest run from the next interrupt, `min_delta` later, so a callback that
    /// keeps re-queueing itself into the past cannot hang the CPU here. Returns how many
    /// timers expired.
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
        let fired = self.with(|i| i.alarm.on_interrupt())?;
        match fired {
            Fired::Spurious | Fired::Rearmed { .. } => return Ok(0),
            // A failed re-arm leaves the hardware idle with the deadline unreached:
            // program it again below (and report it if that fails too).
            Fired::Deadline { .. } | Fired::Period { .. } | Fired::RearmFailed { .. } => {}
        }
        let mut expired: usize = 0;
        let mut rounds = 0u32;
        loop {
            rounds += 1;
            // Take every due timer in one critical section...
            let (now, calls, wakes) = self.with(|i| {
                i.armed_for = None;
                let now = i.alarm.time().now();
                let mut calls: heapless::Vec<TimerId, N> = heapless::Vec::new();
                let mut wakes: heapless::Vec<Waker, N> = heapless::Vec::new();
                while let Some((id, _)) = i.queue.pop_expired(now) {
                    let waiter =
                        matches!(i.queue.slots.get(id.index()), Some(s) if s.kind == Kind::Waiter);
                    if waiter {
                        if let Some(w) = i.wakers.get_mut(id.index()).and_then(Option::take) {
                            // Cannot overflow: at most N timers are queued.
                            let _ = wakes.push(w);
                        }
                    } else {
                        let _ = calls.push(id);
                    }
                }
                (now, calls, wakes)
            })?;
            expired = expired.saturating_add(calls.len() + wakes.len());
            // ...and run them outside it.
            for w in wakes {
                w.wake();
            }
            for id in calls {
                if let Restart::At(at) = callback(id, now) {
                    let _ = self.with(|i| i.queue.restart(id, at));
                }
            }
            // Arm for the next deadline; if it already passed, go round again, but only a
            // few times: callbacks that keep re-queueing into the past would otherwise hold
            // the CPU in this handler forever (Linux's hrtimer_interrupt has the same
            // guard). After that the next deadline is forced to `min_delta` from now.
            let strict = rounds < MAX_EXPIRY_ROUNDS;
            match self.with(|i| i.reprogram(strict))? {
                Ok(false) => continue,
                Ok(true) => return Ok(expired),
                // Never dropped: nothing is armed for the queued timers.
                Err(e) => return Err(e),
            }
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
}
