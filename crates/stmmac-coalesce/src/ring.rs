//! TX and RX descriptor rings over caller-provided memory, with TX coalescing and the TX
//! cleanup timer on hwtimer-core's [`HrTimers`].

use hwtimer_core::{ClockEvent, HrTimers, Monotonic, RegisterBus, Restart, TimerId};

use crate::coalesce::{CoalesceConfig, TimerAction, TimerStrategy, TxCoalesce, XmitPlan};
use crate::desc::{BUF_SIZE, DmaAddr, DmaBuffer, RxDesc, TxDesc};
use crate::error::Error;
use crate::mac::Dwmac;
use crate::regs::desc::*;

/// Counters of a [`TxRing`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxStats {
    /// Frames handed to the DMA.
    pub sent: u64,
    /// Frames whose descriptor had IC set.
    pub ic_set: u64,
    /// Descriptors reclaimed.
    pub reclaimed: u64,
    /// Reclaimed descriptors with TDES0.ES set.
    pub errors: u64,
    /// Timer-queue `start` calls.
    pub timer_starts: u64,
    /// Timer-queue `restart` calls (the per-packet re-arm of Linux).
    pub timer_restarts: u64,
    /// Timer expiries handled by [`TxRing::on_timer`].
    pub timer_expiries: u64,
}

/// The TX cleanup timer: a slot of an [`HrTimers`] queue and `tx_usecs` in its ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxTimer {
    id: TimerId,
    period: u64,
}

impl TxTimer {
    /// Allocate a slot in `timers` for a period of `tx_usecs` (rounded up to whole ticks).
    ///
    /// Errors: [`Error::Timer`] when the queue has no free slot.
    pub fn new<E: ClockEvent, M: Monotonic, const N: usize>(
        timers: &HrTimers<E, M, N>,
        tx_usecs: u32,
    ) -> Result<Self, Error> {
        let id = timers.alloc()?;
        let period = hwtimer_core::time::ns_to_ticks_ceil(
            u64::from(tx_usecs).saturating_mul(1_000),
            timers.freq_hz(),
        )
        .max(1);
        Ok(Self { id, period })
    }

    /// The queue slot (match it in your `on_interrupt` callback).
    pub fn id(&self) -> TimerId {
        self.id
    }

    /// `tx_usecs` in time-base ticks.
    pub fn period_ticks(&self) -> u64 {
        self.period
    }
}

/// A TX ring of normal descriptors in ring mode (TER on the last one), one buffer each.
///
/// Frames are copied into the descriptor's buffer; [`transmit`](Self::transmit) returns
/// [`Error::WouldBlock`] when the next descriptor is still in flight (not yet reclaimed).
pub struct TxRing<A: DmaAddr> {
    descs: &'static mut [TxDesc],
    bufs: &'static mut [DmaBuffer],
    base: u32,
    cur: usize,
    dirty: usize,
    pending: usize,
    coal: TxCoalesce,
    timer: Option<TxTimer>,
    stats: TxStats,
    _addr: A,
}

/// Checks shared by both ring constructors, made before any descriptor is written: a
/// non-empty ring, a buffer per descriptor, and a 32-bit bus address for the descriptors and
/// every buffer. Returns the bus address of descriptor 0.
fn ring_base<D, A: DmaAddr>(descs: &[D], bufs: &[DmaBuffer], addr: &A) -> Result<u32, Error> {
    if descs.is_empty() || bufs.len() < descs.len() {
        return Err(Error::RingSize);
    }
    if bufs.iter().any(|b| addr.bus_addr(b.as_ptr()).is_none()) {
        return Err(Error::DmaAddress);
    }
    addr.bus_addr(descs.as_ptr().cast())
        .ok_or(Error::DmaAddress)
}

impl<A: DmaAddr> TxRing<A> {
    /// Set up the ring: every descriptor CPU-owned, pointing at its buffer, TER on the last.
    /// `cfg` is validated as ethtool does (the RX part is ignored here).
    ///
    /// Errors: [`Error::RingSize`] for no descriptors or fewer buffers than descriptors;
    /// [`Error::DmaAddress`] when a descriptor or buffer has no 32-bit bus address;
    /// [`Error::Config`] for an invalid `cfg`.
    pub fn new(
        descs: &'static mut [TxDesc],
        bufs: &'static mut [DmaBuffer],
        addr: A,
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
    ) -> Result<Self, Error> {
        // The RX part (RIWT) needs the CSR clock and is not used by the TX ring.
        CoalesceConfig { rx_usecs: 0, ..cfg }.validate(0)?;
        let base = ring_base(descs, bufs, &addr)?;
        let last = descs.len() - 1;
        for (i, (d, b)) in descs.iter_mut().zip(bufs.iter()).enumerate() {
            let ba = addr.bus_addr(b.as_ptr()).ok_or(Error::DmaAddress)?;
            d.set_word(0, 0);
            d.set_word(1, if i == last { TDES1_TER } else { 0 });
            d.set_word(2, ba);
            d.set_word(3, 0);
        }
        Ok(Self {
            descs,
            bufs,
            base,
            cur: 0,
            dirty: 0,
            pending: 0,
            coal: TxCoalesce::new(cfg, strategy),
            timer: None,
            stats: TxStats::default(),
            _addr: addr,
        })
    }

    /// Use `timer` as the cleanup timer ([`transmit_timed`](Self::transmit_timed),
    /// [`on_timer`](Self::on_timer)).
    pub fn with_timer(mut self, timer: TxTimer) -> Self {
        self.timer = Some(timer);
        self
    }

    /// The cleanup timer, if any.
    pub fn timer(&self) -> Option<TxTimer> {
        self.timer
    }

    /// Bus address of descriptor 0 (for DMA_TX_BASE_ADDR).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// Number of descriptors.
    pub fn len(&self) -> usize {
        self.descs.len()
    }

    /// Always `false` (a ring has at least one descriptor).
    pub fn is_empty(&self) -> bool {
        self.descs.is_empty()
    }

    /// Descriptors handed to the DMA and not reclaimed yet.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Counters.
    pub fn stats(&self) -> TxStats {
        self.stats
    }

    /// The coalescing state.
    pub fn coalesce(&self) -> &TxCoalesce {
        &self.coal
    }

    /// Descriptor `i` (for inspection).
    pub fn desc(&self, i: usize) -> Option<&TxDesc> {
        self.descs.get(i)
    }

    /// Queue one frame: copy it, set FS | LS (| IC per the coalescing rule) and its length,
    /// hand the descriptor over (OWN last, after a `Release` fence) and issue a TX poll
    /// demand. `timer_queued` feeds the timer decision, returned in the plan for the caller
    /// to apply (see [`transmit_timed`](Self::transmit_timed) for the version that does).
    ///
    /// Errors: [`Error::FrameSize`] for an empty frame or one above [`BUF_SIZE`];
    /// [`Error::WouldBlock`] when the ring is full (call [`reclaim`](Self::reclaim)).
    pub fn transmit<B: RegisterBus<Word = u32>>(
        &mut self,
        mac: &Dwmac<B>,
        frame: &[u8],
        timer_queued: bool,
    ) -> Result<XmitPlan, Error> {
        if frame.is_empty() || frame.len() > BUF_SIZE {
            return Err(Error::FrameSize { len: frame.len() });
        }
        if self.pending >= self.descs.len() {
            return Err(Error::WouldBlock);
        }
        let i = self.cur;
        let last = self.descs.len() - 1;
        let (Some(d), Some(b)) = (self.descs.get_mut(i), self.bufs.get_mut(i)) else {
            return Err(Error::RingSize);
        };
        if d.dma_owned() {
            return Err(Error::WouldBlock);
        }
        b.fill(frame);
        let plan = self.coal.on_xmit(1, timer_queued);
        // Fits: len <= BUF_SIZE < 2048.
        let len = (frame.len() as u32) & TDES1_TBS1_MASK;
        let mut des1 = TDES1_FS | TDES1_LS | len;
        if i == last {
            des1 |= TDES1_TER;
        }
        if plan.set_ic {
            des1 |= TDES1_IC;
            self.stats.ic_set += 1;
        }
        d.set_word(1, des1);
        d.set_word(3, 0);
        d.give_to_dma(0);
        self.cur = if i == last { 0 } else { i + 1 };
        self.pending += 1;
        self.stats.sent += 1;
        mac.tx_poll_demand();
        Ok(plan)
    }

    /// [`transmit`](Self::transmit), then apply the timer decision to `timers`: with
    /// [`TimerStrategy::ArmOnce`] the timer is started only when it is not queued; with
    /// [`TimerStrategy::RearmEveryPacket`] it is restarted `tx_usecs` from now on every
    /// packet; with `tx_usecs == 0` (or no timer attached) nothing is done.
    ///
    /// Errors: those of [`transmit`](Self::transmit) (nothing queued then), and
    /// [`Error::Timer`] when the queue refused the timer (the frame **was** queued).
    pub fn transmit_timed<
        B: RegisterBus<Word = u32>,
        E: ClockEvent,
        M: Monotonic,
        const N: usize,
    >(
        &mut self,
        mac: &Dwmac<B>,
        timers: &HrTimers<E, M, N>,
        frame: &[u8],
    ) -> Result<XmitPlan, Error> {
        let queued = match (self.timer, self.coal.strategy(), self.coal.timer_enabled()) {
            (Some(t), TimerStrategy::ArmOnce, true) => timers.is_queued(t.id),
            _ => false,
        };
        let plan = self.transmit(mac, frame, queued)?;
        self.apply(timers, plan.timer)?;
        Ok(plan)
    }

    fn apply<E: ClockEvent, M: Monotonic, const N: usize>(
        &mut self,
        timers: &HrTimers<E, M, N>,
        action: TimerAction,
    ) -> Result<(), Error> {
        let Some(t) = self.timer else {
            return Ok(());
        };
        match action {
            TimerAction::Keep => Ok(()),
            TimerAction::Start => {
                self.stats.timer_starts += 1;
                timers.start_after(t.id, t.period).map_err(Error::from)
            }
            TimerAction::Restart => {
                self.stats.timer_restarts += 1;
                let at = timers.now().saturating_add(t.period);
                timers.restart(t.id, at).map_err(Error::from)
            }
        }
    }

    /// Free every completed descriptor (OWN clear), oldest first; returns how many.
    pub fn reclaim(&mut self) -> usize {
        let mut n = 0;
        while self.pending > 0 {
            let Some(d) = self.descs.get(self.dirty) else {
                break;
            };
            if d.dma_owned() {
                break;
            }
            if d.word(0) & TDES0_ES != 0 {
                self.stats.errors += 1;
            }
            self.pending -= 1;
            self.dirty = if self.dirty + 1 >= self.descs.len() {
                0
            } else {
                self.dirty + 1
            };
            n += 1;
        }
        self.stats.reclaimed += n as u64;
        n
    }

    /// The cleanup timer expired (call from your [`HrTimers::on_interrupt`] callback for
    /// [`TxTimer::id`], with its `now`): reclaim, and re-arm one period later only while
    /// descriptors are still pending.
    pub fn on_timer(&mut self, now: u64) -> Restart {
        self.stats.timer_expiries += 1;
        self.reclaim();
        match (self.timer, self.coal.after_clean(self.pending, false)) {
            (Some(t), TimerAction::Start) => {
                self.stats.timer_starts += 1;
                Restart::At(now.saturating_add(t.period))
            }
            _ => Restart::No,
        }
    }

    /// Cleanup from the TX interrupt (DMA_STATUS.TI) or a poll: reclaim, then start the
    /// timer if descriptors remain pending and it is not queued. Returns how many were
    /// reclaimed.
    ///
    /// Errors: [`Error::Timer`] when the queue refused the timer.
    pub fn clean_timed<E: ClockEvent, M: Monotonic, const N: usize>(
        &mut self,
        timers: &HrTimers<E, M, N>,
    ) -> Result<usize, Error> {
        let n = self.reclaim();
        let queued = self.timer.is_some_and(|t| timers.is_queued(t.id));
        let action = self.coal.after_clean(self.pending, queued);
        self.apply(timers, action)?;
        Ok(n)
    }
}

/// A received frame (see [`RxRing::receive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxFrame<R> {
    /// RDES0.FL: the frame length including the 4-byte FCS.
    pub fl: u32,
    /// RDES0 as written back (ES, FS, LS, FT, …).
    pub status: u32,
    /// What the closure returned.
    pub value: R,
}

/// An RX ring of normal descriptors, every one DMA-owned with a [`BUF_SIZE`] buffer.
pub struct RxRing<A: DmaAddr> {
    descs: &'static mut [RxDesc],
    bufs: &'static mut [DmaBuffer],
    base: u32,
    next: usize,
    received: u64,
    _addr: A,
}

impl<A: DmaAddr> RxRing<A> {
    /// Set up the ring, handing every descriptor to the DMA. `watchdog`: set DIC on every
    /// descriptor so RI comes from the RIWT watchdog instead of per frame (what Linux does
    /// with normal descriptors when it uses RIWT, hardware.md §4.4; QEMU's model has no
    /// RIWT, so keep it `false` there).
    ///
    /// Errors: [`Error::RingSize`], [`Error::DmaAddress`] as for [`TxRing::new`].
    pub fn new(
        descs: &'static mut [RxDesc],
        bufs: &'static mut [DmaBuffer],
        addr: A,
        watchdog: bool,
    ) -> Result<Self, Error> {
        let base = ring_base(descs, bufs, &addr)?;
        let last = descs.len() - 1;
        for (i, (d, b)) in descs.iter_mut().zip(bufs.iter()).enumerate() {
            let ba = addr.bus_addr(b.as_ptr()).ok_or(Error::DmaAddress)?;
            let mut des1 = BUF_SIZE as u32 & RDES1_RBS1_MASK;
            if i == last {
                des1 |= RDES1_RER;
            }
            if watchdog {
                des1 |= RDES1_DIC;
            }
            d.set_word(1, des1);
            d.set_word(2, ba);
            d.set_word(3, 0);
            d.give_to_dma(0);
        }
        Ok(Self {
            descs,
            bufs,
            base,
            next: 0,
            received: 0,
            _addr: addr,
        })
    }

    /// Bus address of descriptor 0 (for DMA_RCV_BASE_ADDR).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// Frames received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Descriptor `i` (for inspection).
    pub fn desc(&self, i: usize) -> Option<&RxDesc> {
        self.descs.get(i)
    }

    /// Take the next received frame: `f` sees its bytes without the FCS (`FL − 4`, capped
    /// at the buffer), then the descriptor is refilled (OWN last) and an RX poll demand
    /// issued. Frames with RDES0.ES set are delivered too; check [`RxFrame::status`].
    ///
    /// Errors: [`Error::WouldBlock`] when the next descriptor is still DMA-owned.
    pub fn receive<B: RegisterBus<Word = u32>, R>(
        &mut self,
        mac: &Dwmac<B>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<RxFrame<R>, Error> {
        let i = self.next;
        let last = self.descs.len().saturating_sub(1);
        let (Some(d), Some(b)) = (self.descs.get_mut(i), self.bufs.get_mut(i)) else {
            return Err(Error::RingSize);
        };
        if d.dma_owned() {
            return Err(Error::WouldBlock);
        }
        let status = d.word(0);
        let fl = (status >> RDES0_FL_SHIFT) & RDES0_FL_MASK;
        let n = (fl as usize).saturating_sub(4).min(BUF_SIZE);
        let bytes = b.bytes();
        let value = f(bytes.get(..n).unwrap_or(&[]));
        d.give_to_dma(0);
        self.next = if i >= last { 0 } else { i + 1 };
        self.received += 1;
        mac.rx_poll_demand();
        Ok(RxFrame { fl, status, value })
    }
}
