//! The TX cleanup timer on the model: a hwtimer-core [`HrTimers`] queue on the model's
//! virtual clock, whose slots are [`QueueTimer`]s for a [`TxRing`](crate::TxRing), and
//! the interrupt loop that serves it.
//!
//! On a target the same three pieces are the firmware's own: an [`HrTimers`] on the board's
//! clockevent and time base, a [`QueueTimer::new`] slot given to
//! [`TxRing::new`](crate::TxRing::new), and, in the clockevent's interrupt handler,
//! [`HrTimers::on_interrupt`] calling [`TxRing::on_timer`](crate::TxRing::on_timer) for
//! that slot. [`SimTimerQueue`] builds the queue on a [`SimClock`] and plays the interrupt
//! handler's part in virtual time ([`SimTimerQueue::run_until`]).

use hwtimer_core::sim::{SimClock, SimClockEvent, SimClockEventProbe, SimCounter};
use hwtimer_core::{Alarm, Extended, HrTimers, Restart, TimerId};

use crate::Error;
use crate::ring::tx::QueueTimer;

/// The queue's time base on the model: a 32-bit counter extended to 64 bits.
pub type SimTime = Extended<SimCounter>;

/// A TX ring's cleanup timer on the model: a slot of a [`SimTimerQueue`].
pub type SimQueueTimer<'q, const N: usize = 4> = QueueTimer<'q, SimClockEvent, SimTime, N>;

/// A timer queue of `N` slots on the model's clock, for TX cleanup timers
/// ([`cleanup_timer`](Self::cleanup_timer)) and any other timer of the test.
///
/// Its clockevent is phase-locked to its time base (both count at the rate given to
/// [`new`](Self::new); `min_delta` one tick), as a high-resolution timer on a one-shot
/// clockevent is. Nothing runs by itself: [`run_until`](Self::run_until) advances the
/// clock from one programmed interrupt to the next and calls the queue's
/// [`on_interrupt`](HrTimers::on_interrupt) at each, as the clockevent's interrupt handler
/// would.
///
/// ```
/// use hwtimer_core::Restart;
/// use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
/// use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena, SimTimerQueue, eth_frame};
/// use stmmac_coalesce::{
///     CoalesceConfig, Coherent, DmaConfig, Dwmac, Gmac3, LinkState, TimerStrategy,
///     TxConfig, TxRing,
/// };
///
/// let clock = SimClock::new();
/// let arena = SimArena::new(0x1000_0000, 256 * 1024);
/// let phy = mdio_bus::sim::PhyModel::bcm54612e(mdio_bus::PhyAddr::new(0).unwrap());
/// let mac = Gmac3::new(SimBus::new(&clock, Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ)));
/// mac.soft_reset(&SimCounter::new(&clock, 32, 25_000_000))?;
/// let setup = mac.configure_dma(&DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() })?;
///
/// // The queue (25 MHz) and one slot of it as the ring's cleanup timer.
/// let queue: SimTimerQueue = SimTimerQueue::new(&clock, 25_000_000)?;
/// let coalesce = CoalesceConfig { tx_frames: 8, tx_usecs: 1000, ..CoalesceConfig::default() };
/// let config = TxConfig { descriptors: 32, buf_size: 1536, coalesce, strategy: TimerStrategy::ArmOnce };
/// let mut tx = TxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup, config,
///     queue.cleanup_timer()?, Coherent)?;
/// tx.start(&mac);
/// mac.set_link(LinkState::up(stmmac_coalesce::Speed::M1000, stmmac_coalesce::Duplex::Full));
///
/// // Three frames, fewer than tx_frames: no IC, so no TX interrupt reclaims them; the
/// // send armed the cleanup timer 1 ms ahead.
/// for _ in 0..3 {
///     tx.send(&mac, &eth_frame([0xFF; 6], 60, 0))?;
/// }
/// assert_eq!(tx.pending(), 3);
///
/// // The clockevent's interrupt handler: the queue calls the ring for its slot.
/// let id = tx.timer().id();
/// queue.run_until(2_000_000, |slot, now| {
///     if slot == id { tx.on_timer(&mac, now) } else { Restart::No }
/// })?;
/// assert_eq!(tx.pending(), 0); // reclaimed by the timer, 1 ms after the first send
/// # Ok::<(), stmmac_coalesce::Error>(())
/// ```
pub struct SimTimerQueue<const N: usize = 4> {
    clock: SimClock,
    timers: HrTimers<SimClockEvent, SimTime, N>,
    probe: SimClockEventProbe,
}

impl<const N: usize> core::fmt::Debug for SimTimerQueue<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SimTimerQueue")
            .field("now_ns", &self.clock.now_ns())
            .field("next_irq_ns", &self.next_irq_ns())
            .finish_non_exhaustive()
    }
}

impl<const N: usize> SimTimerQueue<N> {
    /// A queue on `clock`, its clockevent and 32-bit time base counting at `hz`.
    ///
    /// Errors: [`Error::Timer`] when `hz` is 0 (hwtimer-core's [`Alarm::new`] refuses the
    /// pair).
    pub fn new(clock: &SimClock, hz: u32) -> Result<Self, Error> {
        let event = SimClockEvent::new(clock, hz, 1, u64::from(u32::MAX));
        let probe = event.probe();
        let time = Extended::new(SimCounter::new(clock, 32, hz));
        Ok(Self {
            clock: clock.clone(),
            timers: HrTimers::new(Alarm::new(event, time)?),
            probe,
        })
    }

    /// A slot of the queue as a TX ring's cleanup timer (give it to
    /// [`TxRing::new`](crate::TxRing::new); its [`id`](QueueTimer::id) is the slot
    /// [`run_until`](Self::run_until)'s callback is called with).
    ///
    /// Errors: [`Error::Timer`] when all `N` slots are taken.
    pub fn cleanup_timer(&self) -> Result<SimQueueTimer<'_, N>, Error> {
        QueueTimer::new(&self.timers)
    }

    /// The queue itself, for timers of the test's own.
    pub fn timers(&self) -> &HrTimers<SimClockEvent, SimTime, N> {
        &self.timers
    }

    /// The clockevent's probe: its programmings and when it fires next.
    pub fn probe(&self) -> &SimClockEventProbe {
        &self.probe
    }

    /// Virtual time of the next programmed interrupt, if one is programmed.
    pub fn next_irq_ns(&self) -> Option<u64> {
        self.probe.next_fire_ns()
    }

    /// Serve the interrupts programmed at or before `until_ns`, in order: advance the
    /// clock to each and call [`HrTimers::on_interrupt`] with `callback`, which is what
    /// the firmware's clockevent interrupt handler runs (call
    /// [`TxRing::on_timer`](crate::TxRing::on_timer) for the ring's slot). The clock is
    /// left at `until_ns`, or where it was when that is later. A model whose DMA lags the
    /// CPU ([`Gmac3Model::with_tx_lag`](super::Gmac3Model::with_tx_lag)) is brought up to
    /// date by the callback first (`bus.model(|m| m.sync(now_ns))`).
    ///
    /// Returns the number of interrupts served.
    ///
    /// Errors: [`Error::Timer`] with the queue's error when an interrupt's
    /// [`on_interrupt`](HrTimers::on_interrupt) reports one (the timers due have run; see
    /// there).
    pub fn run_until(
        &self,
        until_ns: u64,
        mut callback: impl FnMut(TimerId, u64) -> Restart,
    ) -> Result<usize, Error> {
        let mut served = 0;
        while let Some(t) = self.probe.next_fire_ns() {
            if t > until_ns {
                break;
            }
            self.clock.advance_to(t);
            self.timers.on_interrupt(&mut callback)?;
            served += 1;
        }
        self.clock.advance_to(until_ns);
        Ok(served)
    }
}
