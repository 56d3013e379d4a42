//! The TX cleanup timer a ring arms ([`CleanupTimer`]): none ([`NoTimer`]) or a slot of
//! hwtimer-core's queue ([`QueueTimer`]).

use super::*;

/// The TX cleanup timer as the ring drives it: one timer, in the ticks of its time base.
///
/// Implemented by [`QueueTimer`] (a slot of a hwtimer-core [`HrTimers`] queue) and
/// [`NoTimer`] (`tx_usecs == 0`); implement it for any other timer (a periodic tick, an
/// RTOS timer).
pub trait CleanupTimer {
    /// Tick rate of [`now`](Self::now) and the deadlines.
    ///
    /// Errors: [`ConfigError::NoTimer`] when there is no timer ([`NoTimer`]);
    /// [`Error::Timer`] when the timer cannot tell now (hwtimer-core's queue asked from
    /// inside its own callback: `QueueError::Busy`).
    fn freq_hz(&self) -> Result<u32, Error>;
    /// The current time, in ticks.
    ///
    /// Errors: as for [`freq_hz`](Self::freq_hz); never a wrong time.
    fn now(&self) -> Result<u64, Error>;
    /// Whether the timer is queued.
    fn is_queued(&self) -> bool;
    /// Queue the idle timer for `deadline` (ticks).
    ///
    /// Errors: [`Error::Timer`] when the timer could not be armed.
    fn start(&self, deadline: u64) -> Result<(), Error>;
    /// Queue the timer for `deadline`, moving it when it is queued.
    ///
    /// Errors: [`Error::Timer`] when the timer could not be armed.
    fn restart(&self, deadline: u64) -> Result<(), Error>;
    /// Queue the idle timer `delta` ticks from now. The default reads [`now`](Self::now)
    /// and calls [`start`](Self::start); [`QueueTimer`] does both in one critical section.
    ///
    /// Errors: [`Error::Timer`] when the timer could not be armed
    /// (`QueueError::AlreadyQueued` when it is queued already).
    fn start_after(&self, delta: u64) -> Result<(), Error> {
        self.start(self.now()?.saturating_add(delta))
    }
    /// Dequeue the timer; whether it was queued.
    ///
    /// Errors: [`Error::Timer`] when the timer was dequeued but the hardware could not be
    /// programmed for what is left (hwtimer-core's queue then programs it at its next
    /// operation or interrupt, or from its recovery call).
    fn cancel(&self) -> Result<bool, Error>;
}

/// No cleanup timer (`tx_usecs == 0`: IC every `tx_frames` is the only completion path).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTimer;

impl CleanupTimer for NoTimer {
    fn freq_hz(&self) -> Result<u32, Error> {
        Err(Error::Config(ConfigError::NoTimer))
    }
    fn now(&self) -> Result<u64, Error> {
        Err(Error::Config(ConfigError::NoTimer))
    }
    fn is_queued(&self) -> bool {
        false
    }
    fn start(&self, _deadline: u64) -> Result<(), Error> {
        Err(Error::Config(ConfigError::NoTimer))
    }
    fn restart(&self, _deadline: u64) -> Result<(), Error> {
        Err(Error::Config(ConfigError::NoTimer))
    }
    fn cancel(&self) -> Result<bool, Error> {
        Ok(false)
    }
}

/// A slot of a hwtimer-core [`HrTimers`] queue used as the cleanup timer. Call
/// [`TxRing::on_timer`] from the queue's `on_interrupt` callback for [`id`](Self::id).
///
/// The wiring, on a target: an [`HrTimers`] on the board's clockevent and time base (a
/// `static`, or any place that outlives the ring), `QueueTimer::new(&timers)?` given to
/// [`TxRing::new`], and the clockevent's interrupt handler:
///
/// ```
/// use hwtimer_core::{ClockEvent, HrTimers, Monotonic, QueueError, Restart};
/// use stmmac_coalesce::{CacheOps, Dwmac, QueueTimer, TxRing};
///
/// fn on_clockevent_irq<E: ClockEvent, M: Monotonic, const N: usize, C: CacheOps>(
///     timers: &HrTimers<E, M, N>,
///     tx: &mut TxRing<QueueTimer<'_, E, M, N>, C>,
///     mac: &impl Dwmac,
/// ) -> Result<usize, QueueError> {
///     let id = tx.timer().id();
///     timers.on_interrupt(|slot, now| if slot == id { tx.on_timer(mac, now) } else { Restart::No })
/// }
/// ```
///
/// On the model (feature `sim`), `stmmac_coalesce::sim::SimTimerQueue` builds the queue on
/// the virtual clock and plays that interrupt handler; its example is the whole wiring,
/// compiled and run as a doctest, and `cargo run -p host-demo` runs it.
pub struct QueueTimer<'q, E: ClockEvent, M: Monotonic, const N: usize> {
    timers: &'q HrTimers<E, M, N>,
    id: TimerId,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> core::fmt::Debug for QueueTimer<'_, E, M, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueueTimer").field("id", &self.id).finish()
    }
}

impl<'q, E: ClockEvent, M: Monotonic, const N: usize> QueueTimer<'q, E, M, N> {
    /// Allocate a slot of `timers`.
    ///
    /// Errors: [`Error::Timer`] when the queue has no free slot.
    pub fn new(timers: &'q HrTimers<E, M, N>) -> Result<Self, Error> {
        Ok(Self {
            id: timers.alloc()?,
            timers,
        })
    }

    /// The queue slot (match it in the `on_interrupt` callback).
    pub fn id(&self) -> TimerId {
        self.id
    }

    /// The queue.
    pub fn timers(&self) -> &'q HrTimers<E, M, N> {
        self.timers
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> CleanupTimer for QueueTimer<'_, E, M, N> {
    fn freq_hz(&self) -> Result<u32, Error> {
        Ok(self.timers.freq_hz()?)
    }
    fn now(&self) -> Result<u64, Error> {
        Ok(self.timers.now()?)
    }
    fn is_queued(&self) -> bool {
        self.timers.is_queued(self.id)
    }
    fn start(&self, deadline: u64) -> Result<(), Error> {
        Ok(self.timers.start(self.id, deadline)?)
    }
    fn restart(&self, deadline: u64) -> Result<(), Error> {
        Ok(self.timers.restart(self.id, deadline)?)
    }
    fn start_after(&self, delta: u64) -> Result<(), Error> {
        Ok(self.timers.start_after(self.id, delta)?)
    }
    fn cancel(&self) -> Result<bool, Error> {
        // Programs the next deadline (or the idle keep-alive) at once: no interrupt comes
        // for the cancelled deadline.
        Ok(self.timers.try_cancel(self.id)?)
    }
}
