//! The queue behind a critical section, driven by one alarm.

use core::cell::RefCell;
use core::task::Waker;

use critical_section::Mutex;

use super::heap::TimerQueue;
use super::sleep::Sleep;
use super::{QueueError, Restart, TimerId};
use crate::clockevent::{Alarm, ClockEvent, Fired};
use crate::clocksource::Monotonic;
use crate::error::Error;

pub(super) struct Inner<E: ClockEvent, M: Monotonic, const N: usize> {
    pub(super) alarm: Alarm<E, M>,
    pub(super) queue: TimerQueue<N>,
    pub(super) wakers: [Option<Waker>; N],
    /// The deadline the hardware is programmed for (`None`: the idle state, keep-alive or
    /// stopped), when `stale` is false.
    armed_for: Option<u64>,
    /// The last programming was refused (or none was made yet): what the hardware holds is
    /// not known, so the next queue operation or interrupt programs it whatever the queue
    /// holds.
    stale: bool,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Inner<E, M, N> {
    /// Program the hardware for the earliest deadline if it changed. `strict`: a deadline
    /// that already passed is reported (`Ok(false)`: the caller must expire timers first)
    /// instead of being armed at `min_delta`; strict calls always program.
    pub(super) fn reprogram(&mut self, strict: bool) -> Result<bool, QueueError> {
        self.reprogram_at(strict, None)
    }

    /// Whether the last programming was refused (or none was made): the queue's state is
    /// not what the hardware holds.
    #[inline]
    pub(super) fn unprogrammed(&self) -> bool {
        self.stale
    }

    /// [`reprogram`](Self::reprogram) with `now`, a time-base reading just made (or `None`),
    /// for the alarm to measure a relative wait from instead of reading the time again.
    ///
    /// On any refusal the state becomes "not known" (`stale`) and every async
    /// waiter is woken, so that its task polls again and retries the programming
    /// ([`Sleep`]'s poll does); callback timers rely on the caller, who gets the error.
    #[inline]
    fn reprogram_at(&mut self, strict: bool, now: Option<u64>) -> Result<bool, QueueError> {
        let next = self.queue.next_deadline();
        if next == self.armed_for && !strict && !self.stale {
            return Ok(true);
        }
        match next {
            None => {
                // Idle: keep a narrow extended time base read (a 64-bit one is stopped).
                if let Err(e) = self.alarm.keep_alive() {
                    return Err(self.refused(e));
                }
                self.armed_for = None;
                self.stale = false;
                Ok(true)
            }
            Some(at) if strict => match self.alarm.set_deadline(at) {
                Ok(_) => {
                    self.armed_for = Some(at);
                    self.stale = false;
                    Ok(true)
                }
                Err(Error::DeadlinePassed { .. }) => {
                    // Nothing armed: the caller starts a round, which ends by programming.
                    self.stale = true;
                    Ok(false)
                }
                Err(e) => Err(self.refused(e)),
            },
            Some(at) => {
                if let Err(e) = self.alarm.arm_at(at, now) {
                    return Err(self.refused(e));
                }
                self.armed_for = Some(at);
                self.stale = false;
                Ok(true)
            }
        }
    }

    /// [`reprogram`](Self::reprogram) after a timer was taken out of the queue (cancelled,
    /// freed, a sleep that completed or was dropped). A removal never needs the hardware
    /// programmed: what is armed is then at or before the new earliest deadline, and an
    /// interrupt that comes for a deadline no longer queued finds nothing due and
    /// programs the next one (or the idle keep-alive). So when the hardware is known armed
    /// for a deadline, nothing is written: no refusal can happen on a path that could not
    /// report it (a drop), and the common cancel costs no programming. Only a stale state
    /// (a refusal not yet repaired) is programmed.
    #[inline]
    pub(super) fn reprogram_removed(&mut self) -> Result<(), QueueError> {
        if !self.stale && self.armed_for.is_some() {
            return Ok(());
        }
        self.reprogram(false).map(|_| ())
    }

    /// Free timer `id` and its waker; whether it was allocated. Nothing for a stale id (its
    /// slot freed since), whose slot may hold a newer timer and its waker.
    pub(super) fn release(&mut self, id: TimerId) -> bool {
        if self.queue.position(id).is_err() {
            return false;
        }
        self.queue.free(id);
        if let Some(w) = self.wakers.get_mut(id.index()) {
            *w = None;
        }
        true
    }

    /// A programming was refused: forget what is armed and have the waiters retry.
    #[cold]
    #[inline(never)]
    fn refused(&mut self, e: Error) -> QueueError {
        crate::log_warn!("hrtimers: programming refused: {}", e);
        self.stale = true;
        // A channel that belongs to another core refuses every core but its own: a retry
        // from a waiter's poll here would only spin. That one waits for the owner's call.
        if !matches!(e, Error::WrongCpu(_)) {
            for w in self.wakers.iter().flatten() {
                w.wake_by_ref();
            }
        }
        QueueError::Hardware(e)
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Inner<E, M, N> {
    /// Start a round of expiries at `now` (see [`HrTimers::on_interrupt`]) and take its
    /// first batch into `batch`. Returns the round.
    #[inline(always)]
    fn start_round(&mut self, now: u64, batch: &mut Batch) -> Round {
        // The oneshot that brought us here is spent: the round ends by programming.
        self.stale = true;
        let round = Round {
            now,
            before: self.queue.started(),
        };
        self.take_due(round, batch);
        round
    }

    /// An interrupt the alarm found spurious: not this channel, or the channel fired for a
    /// deadline the alarm no longer holds, because a programming after it was refused and
    /// left the hardware as it was. In that case the queue has nothing armed for its
    /// timers: serve them now, as for a deadline. Out of line: the common path is the
    /// deadline's.
    #[cold]
    #[inline(never)]
    fn spurious(&mut self, batch: &mut Batch) -> Option<Round> {
        if !self.stale {
            return None;
        }
        let now = self.alarm.time().now();
        Some(self.start_round(now, batch))
    }

    /// Take up to [`EXPIRY_BATCH`] timers of `round` out of the queue into the (empty)
    /// `batch`, in deadline order.
    fn take_due(&mut self, round: Round, batch: &mut Batch) {
        batch.taken = 0;
        while batch.taken < EXPIRY_BATCH {
            let Some((id, waiter)) = self.queue.pop_due(round.now, round.before) else {
                batch.more = false;
                return;
            };
            // Cannot overflow: below EXPIRY_BATCH. The pushes cannot fail for the same reason.
            batch.taken = batch.taken.saturating_add(1);
            if waiter {
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

/// The deadline `ns` nanoseconds after the time base's present reading (+1 tick rule).
pub(super) fn sleep_deadline<M: Monotonic>(time: &M, ns: u64) -> u64 {
    let ticks = crate::delay::ticks_for_ns(ns, time.freq_hz());
    time.now().saturating_add(ticks)
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
/// through a `critical_section::Mutex` (across cores, a multi-core implementation: see
/// [the crate docs](crate#multi-core-which-sync-types-need-a-multi-core-critical-section)).
/// See the [module docs](super) for the semantics.
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
                stale: true,
            })),
        }
    }

    pub(super) fn with<R>(
        &self,
        f: impl FnOnce(&mut Inner<E, M, N>) -> R,
    ) -> Result<R, QueueError> {
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
    ///
    /// Errors: [`QueueError::Busy`] when called from inside the queue's own critical
    /// section (a time base that calls back into its queue); there is no time to report
    /// then, rather than a wrong one.
    pub fn now(&self) -> Result<u64, QueueError> {
        self.with(|i| i.alarm.time().now())
    }

    /// The time base's rate in Hz.
    ///
    /// Errors: [`QueueError::Busy`], as for [`now`](Self::now).
    pub fn freq_hz(&self) -> Result<u32, QueueError> {
        self.with(|i| i.alarm.time().freq_hz())
    }

    /// Allocate a callback timer.
    ///
    /// Errors: [`QueueError::Full`] when all `N` slots are in use.
    pub fn alloc(&self) -> Result<TimerId, QueueError> {
        self.with(|i| i.queue.alloc())?
    }

    /// Free a timer, dequeuing it and programming the hardware for the next deadline (or
    /// the idle keep-alive) when that changed. Freeing a free slot, or with a stale id,
    /// does nothing.
    ///
    /// Errors: [`QueueError::Hardware`] when re-programming the clockevent for the next
    /// deadline failed (the slot is freed anyway).
    pub fn free(&self, id: TimerId) -> Result<(), QueueError> {
        self.with(|i| {
            // A stale id (its slot freed since) names nothing: it must not clear the waker
            // of a newer timer in the slot.
            if !i.release(id) {
                return Ok(());
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
    /// the clockevent was refused — the timer then **stays queued**, async waiters are
    /// woken to retry from their polls, and the hardware is programmed again by the next
    /// queue operation, by [`reprogram`](Self::reprogram) (the recovery call), or by the
    /// interrupt of a deadline the hardware still held (see [`on_interrupt`](Self::on_interrupt)).
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

    /// Dequeue; returns whether it was queued. Programs nothing (unless a refusal is owed):
    /// the deadline still armed is at or before the new earliest one, and its interrupt,
    /// if nothing programs the hardware before, finds nothing due and programs the next
    /// deadline. So a cancel meets no refusal it could not report.
    /// [`try_cancel`](Self::try_cancel) programs the next deadline (or the idle keep-alive)
    /// at once instead, saving that interrupt, and reports a refusal.
    pub fn cancel(&self, id: TimerId) -> bool {
        self.with(|i| {
            let was = i.queue.cancel(id);
            // A refusal is kept (see `try_cancel`): the queue retries it.
            let _ = i.reprogram_removed();
            was
        })
        .unwrap_or(false)
    }

    /// Dequeue and program the hardware for the next deadline (or the idle keep-alive)
    /// when that changed; returns whether it was queued.
    ///
    /// Errors: [`QueueError::Hardware`] when re-programming the clockevent for the next
    /// deadline was refused: the timer is dequeued, the others stay queued, and the
    /// hardware is programmed again by the next queue operation, by
    /// [`reprogram`](Self::reprogram), or by the interrupt of the deadline the hardware
    /// may still hold; [`QueueError::Busy`] when the queue was re-entered (nothing done).
    pub fn try_cancel(&self, id: TimerId) -> Result<bool, QueueError> {
        self.with(|i| {
            let was = i.queue.cancel(id);
            i.reprogram(false).map(|_| was)
        })?
    }

    /// Program the hardware for the queue as it stands (the earliest deadline, or the idle
    /// keep-alive when nothing is queued), whatever the queue believes is armed.
    ///
    /// This is the recovery call after [`QueueError::Hardware`] from any operation or from
    /// [`on_interrupt`](Self::on_interrupt): until a programming succeeds the queued timers
    /// may have nothing armed for them. It is also how a firmware arms the idle keep-alive
    /// of a queue that has not been used yet: a time base narrower than 64 bits (an
    /// [`Extended`](crate::Extended) counter) must be read at least every
    /// [`max_idle_ticks`](crate::Monotonic::max_idle_ticks), and a fresh queue has armed
    /// nothing that would read it (the first [`start`](Self::start) does the same).
    ///
    /// Errors: [`QueueError::Hardware`] when the programming was refused again (call it
    /// again later); [`QueueError::Busy`] when the queue was re-entered.
    pub fn reprogram(&self) -> Result<(), QueueError> {
        self.with(|i| {
            i.stale = true;
            i.reprogram(false).map(|_| ())
        })?
    }

    /// Whether the last programming was refused (or none was made yet), so the queued
    /// timers may have nothing armed for them until [`reprogram`](Self::reprogram) or
    /// the next queue operation succeeds.
    pub fn needs_reprogram(&self) -> bool {
        self.with(|i| i.unprogrammed()).unwrap_or(false)
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
    /// An interrupt that the alarm finds spurious while the last programming was refused
    /// (the hardware kept the deadline before it, as a refused write leaves it) is served
    /// as a deadline: the due timers run and the next deadline is programmed.
    ///
    /// Errors: [`QueueError::Hardware`] when the clockevent could not be programmed for
    /// the next deadline (a failed re-arm that failed again, or a write-status timeout
    /// after the expiries): the timers that expired have run, the others **stay queued**,
    /// possibly with nothing armed, and async waiters are woken so that their polls retry.
    /// Call [`reprogram`](Self::reprogram) (from a later poll, a tick, or by pending this
    /// interrupt again) until it succeeds; the next queue operation
    /// ([`start`](Self::start), [`restart`](Self::restart), [`try_cancel`](Self::try_cancel), ...)
    /// also programs the hardware again. [`QueueError::Busy`] when the queue was re-entered.
    /// [`QueueError::Restart`] when a callback's [`Restart::At`] could not be queued (the
    /// first such timer is named): everything else was done, that timer is idle.
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
            Fired::Rearmed { .. } => None,
            Fired::Spurious => i.spurious(&mut batch),
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
        // The first restart a callback asked for that could not be queued: reported once
        // the round is over and the hardware programmed (a hardware error comes first).
        let mut not_restarted: Option<QueueError> = None;
        loop {
            // Run the batch outside the critical section...
            expired = expired.saturating_add(batch.taken);
            // Checked first: an empty drain still costs its drop glue, on every interrupt.
            if !batch.wakes.is_empty() {
                for w in batch.wakes.drain(..) {
                    w.wake();
                }
            }
            // Ids are `Copy`: read in place and cleared after, instead of a drain.
            for &id in &batch.calls {
                if let Restart::At(at) = callback(id, round.now) {
                    let result = self.with(|i| i.queue.restart(id, at)).and_then(|r| r);
                    if result.is_err() {
                        crate::log_warn!("hrtimers: timer {=usize} not restarted", id.index());
                        not_restarted.get_or_insert(QueueError::Restart(id));
                    }
                }
            }
            batch.calls.clear();
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
                None => {
                    return match not_restarted {
                        Some(e) => Err(e),
                        None => Ok(expired),
                    };
                }
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
            after_ns: None,
            id: None,
        }
    }

    /// A future that completes `ns` nanoseconds from now, never earlier (+1 tick rule).
    /// Called from inside the queue's critical section, where the time cannot be read, the
    /// wait is measured from the future's first poll instead (still never early).
    pub fn sleep_ns(&self, ns: u64) -> Sleep<'_, E, M, N> {
        match self.with(|i| sleep_deadline(i.alarm.time(), ns)) {
            Ok(deadline) => self.sleep_until(deadline),
            Err(_) => Sleep {
                timers: self,
                deadline: 0,
                after_ns: Some(ns),
                id: None,
            },
        }
    }

    /// Run `f` on the alarm (for tests, statistics and driver-specific calls).
    pub fn with_alarm<R>(&self, f: impl FnOnce(&mut Alarm<E, M>) -> R) -> Result<R, QueueError> {
        self.with(|i| f(&mut i.alarm))
    }
}
