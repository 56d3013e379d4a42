//! The TX ring: descriptor reservation and in-place fill, IC coalescing, the cleanup timer,
//! reclaim and recovery.
//!
//! # Sending a frame
//!
//! [`TxRing::reserve`] checks the link and that the next descriptor is free (reclaiming
//! completed ones first when the ring looks full) and hands out a [`TxToken`] that borrows
//! the ring. [`TxToken::buffer`] is the descriptor's DMA buffer itself: fill the frame in
//! place, then [`TxToken::commit`] its length. Dropping the token instead sends nothing and
//! costs nothing. A token exists only while a descriptor is free, so a consumer that cannot
//! fail (smoltcp's `TxToken::consume`) is safe: the reservation happens when the token is
//! handed out.
//!
//! `commit` decides IC ([`coalesce::ic_decision`](crate::ring::coalesce::ic_decision)) and the
//! cleanup timer **before** the descriptor is handed over; when the timer cannot be armed
//! the frame gets IC instead (counted in [`TxStats::timer_errors`]). Once the descriptor is
//! the DMA's, nothing can fail: `commit` never returns an error for a queued frame, so a
//! retry can never send it twice.
//!
//! # The handover
//!
//! Buffer and descriptor words 1–3 are written, the buffer is cleaned
//! ([`CacheOps::clean`]), [`dma_wmb`](crate::dma::barrier::dma_wmb), OWN (word 0) is written, the
//! descriptor is cleaned, [`wmb`] (a completion barrier), and only then the TX poll demand
//! (the doorbell) is written.
//!
//! # The cleanup timer
//!
//! Its period comes from the configuration alone (`tx_usecs` in the timer's ticks, rounded
//! up). With [`TimerStrategy::ArmOnce`]: a frame without IC starts the timer only when it
//! is idle; a frame with IC does not start it (its TI interrupt will clean); a TI clean
//! ([`TxRing::service`]) that empties the ring cancels it, so a burst covered by IC costs
//! no timer expiry; an expiry ([`TxRing::on_timer`]) that leaves descriptors pending
//! re-arms. An expiry that makes no progress while the DMA reports the TX process stopped
//! although ST is set (a fault stopped it) restarts the TX DMA instead of re-arming
//! forever; one that finds ST clear leaves the user's stop alone.

mod service;
mod timer;
mod token;

pub use timer::{CleanupTimer, NoTimer, QueueTimer};
pub use token::{TxSlot, TxToken};

use hwtimer_core::{ClockEvent, HrTimers, Monotonic, Restart, TimerId};

use crate::common::DmaEvents;
use crate::common::{ConfigError, Error};
use crate::common::{Dwmac, RingStart, check_layout};
use crate::dma::barrier::wmb;
use crate::dma::{CacheOps, DmaAddr, DmaRegion, DmaSetup, RingGeometry};
use crate::ring::coalesce::{CoalesceConfig, TimerAction, TimerStrategy, TxCoalesce, XmitPlan};
use crate::ring::desc::{self, TxPrep};

/// TX ring parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxConfig {
    /// Number of descriptors (1..=[`MAX_RING`](crate::dma::MAX_RING)).
    pub descriptors: usize,
    /// Bytes per buffer: the largest frame (without FCS) this ring sends, at most the
    /// layout's TBS1 limit (2047 normal, 8191 enhanced).
    pub buf_size: usize,
    /// Coalescing (the TX part: `tx_frames`, `tx_usecs`).
    pub coalesce: CoalesceConfig,
    /// How the cleanup timer is driven.
    pub strategy: TimerStrategy,
}

impl Default for TxConfig {
    /// 32 descriptors of 1536 bytes, Linux's coalescing defaults (`tx_frames` 25, which
    /// needs at least 25 descriptors), [`TimerStrategy::ArmOnce`].
    fn default() -> Self {
        Self {
            descriptors: 32,
            buf_size: 1536,
            coalesce: CoalesceConfig::default(),
            strategy: TimerStrategy::ArmOnce,
        }
    }
}

/// Counters of a [`TxRing`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxStats {
    /// Frames handed to the DMA.
    pub sent: u64,
    /// Bytes handed to the DMA.
    pub bytes: u64,
    /// Frames whose descriptor had IC set.
    pub ic_set: u64,
    /// Descriptors reclaimed.
    pub reclaimed: u64,
    /// Reclaimed descriptors with TDES0.ES set.
    pub errors: u64,
    /// Reservations refused because the link was down.
    pub link_down: u64,
    /// Timer starts.
    pub timer_starts: u64,
    /// Timer restarts (the per-packet re-arm of Linux).
    pub timer_restarts: u64,
    /// Timer cancels (a TI clean emptied the ring).
    pub timer_cancels: u64,
    /// Timer expiries handled by [`TxRing::on_timer`].
    pub timer_expiries: u64,
    /// Expiries that found nothing to do (no descriptor pending, nothing reclaimed).
    pub empty_expiries: u64,
    /// Times the timer could not be armed; the frame got IC instead.
    pub timer_errors: u64,
    /// TX DMA restarts after a fault (3.x UNF / TJT, FBI / FBE, each with AIS) or a TX
    /// process found stopped while ST is set.
    pub recoveries: u64,
    /// Frames dropped by those restarts (in flight when the DMA stopped).
    pub dropped: u64,
    /// TX poll demands issued by [`TxRing::on_timer`] to a suspended TX DMA that still owned
    /// descriptors (a lost doorbell).
    pub kicks: u64,
    /// Expiries (with descriptors pending) and faults that found the TX DMA stopped by the
    /// user (ST clear); it was left stopped.
    pub user_stopped: u64,
    /// Recoveries that gave up because the TX process did not reach Stopped within
    /// [`Dwmac::set_stop_polls`] reads; the TX DMA was left switched off.
    pub stop_timeouts: u64,
    /// Starts refused because DMA_BUS_MODE.DSL is not the ring's stride
    /// ([`Error::GeometryMismatch`]); the TX DMA stayed stopped.
    pub refused_starts: u64,
}

/// A TX ring of single-descriptor frames in ring mode (TER on the last descriptor), over a
/// [`DmaRegion`]; see the [module docs](self).
pub struct TxRing<T: CleanupTimer = NoTimer, C: CacheOps = crate::dma::Coherent> {
    setup: DmaSetup,
    geo: RingGeometry,
    buf_size: usize,
    cur: usize,
    dirty: usize,
    pending: usize,
    coal: TxCoalesce,
    period: u64,
    timer: T,
    /// Whether the ring armed the timer and has not seen it expire or cancelled it since
    /// (see `TxRing::arm`): `commit` decides from this instead of asking the timer.
    armed: bool,
    /// Every frame asks for full checksum insertion (CIC = 3).
    cic: bool,
    /// The control bits of every frame, `desc::tx_ctl(layout, cic)`: kept with `cic`.
    ctl: u32,
    /// `period != 0` and the ArmOnce strategy: kept with `period` and `coal`, so `commit`
    /// tests one flag (with `armed`) for whether the timer is queued.
    arm_once: bool,
    /// A [`TxSlot`] is out for descriptor `cur` ([`TxRing::reserve_slot`]): nothing else
    /// reserves until it comes back.
    slot_out: bool,
    /// Bumped by [`TxRing::recover`]: a [`TxSlot`] of an older epoch is stale.
    epoch: u32,
    cache: C,
    stats: TxStats,
}

// SAFETY: the ring is the only owner of its region (raw pointers into it); moving the ring
// moves that ownership.
unsafe impl<T: CleanupTimer + Send, C: CacheOps + Send> Send for TxRing<T, C> {}

impl<T: CleanupTimer, C: CacheOps> core::fmt::Debug for TxRing<T, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxRing")
            .field("len", &self.geo.len())
            .field("cur", &self.cur)
            .field("dirty", &self.dirty)
            .field("pending", &self.pending)
            .field("stats", &self.stats)
            .finish()
    }
}

/// Check the TX part of `cfg` against the ring and the timer; the timer period in ticks.
fn tx_period<T: CleanupTimer>(cfg: &TxConfig, timer: &T, capacity: usize) -> Result<u64, Error> {
    cfg.coalesce.validate_tx(capacity)?;
    if cfg.coalesce.tx_usecs == 0 {
        return Ok(0);
    }
    let hz = timer.freq_hz()?;
    if hz == 0 {
        return Err(Error::Config(ConfigError::NoTimer));
    }
    Ok(hwtimer_core::time::ns_to_ticks_ceil(
        u64::from(cfg.coalesce.tx_usecs).saturating_mul(1_000),
        hz,
    )
    .max(1))
}

impl<T: CleanupTimer, C: CacheOps> TxRing<T, C> {
    /// Carve the ring from `region` for `setup`: every descriptor CPU-owned and pointing at
    /// its buffer, TER on the last. Touches no register; [`start`](Self::start) programs
    /// the DMA.
    ///
    /// Errors: [`Error::RingSize`] for 0 descriptors, more than
    /// [`MAX_RING`](crate::dma::MAX_RING) or a region too small ([`crate::ring_bytes`]);
    /// [`Error::DmaAddress`] when the region has no linear 32-bit bus address;
    /// [`Error::Config`] for a buffer size outside 1..=TBS1 limit
    /// ([`ConfigError::BufSize`]), a coalescing configuration ethtool refuses, `tx_frames`
    /// above the ring length ([`ConfigError::TxFramesExceedRing`]) or `tx_usecs` without a
    /// timer ([`ConfigError::NoTimer`]).
    pub fn new(
        region: DmaRegion,
        addr: &impl DmaAddr,
        setup: &DmaSetup,
        cfg: TxConfig,
        timer: T,
        cache: C,
    ) -> Result<Self, Error> {
        if cfg.buf_size == 0 || cfg.buf_size > setup.layout().max_buf_size() {
            return Err(Error::Config(ConfigError::BufSize));
        }
        crate::dma::check_line(setup, &cache)?;
        // A QoS ring holds one frame fewer than its descriptors (see `capacity`).
        let capacity = cfg
            .descriptors
            .saturating_sub(usize::from(setup.layout().is_qos()));
        let period = tx_period(&cfg, &timer, capacity)?;
        let geo = RingGeometry::carve(&region, addr, setup, cfg.descriptors, cfg.buf_size)?;
        let coal = TxCoalesce::new(cfg.coalesce, cfg.strategy);
        let ring = Self {
            setup: *setup,
            geo,
            buf_size: cfg.buf_size,
            cur: 0,
            dirty: 0,
            pending: 0,
            arm_once: period != 0 && coal.strategy() == TimerStrategy::ArmOnce,
            coal,
            period,
            armed: timer.is_queued(),
            cic: false,
            ctl: desc::tx_ctl(setup.layout(), false),
            slot_out: false,
            epoch: 0,
            timer,
            cache,
            stats: TxStats::default(),
        };
        ring.reset_descriptors();
        Ok(ring)
    }

    fn reset_descriptors(&self) {
        let g = &self.geo;
        for i in 0..g.len() {
            let d = g.desc(i);
            desc::tx_idle(self.setup.layout(), d, g.buf_bus(i), g.is_last(i));
            self.cache.clean(d.as_ptr(), g.desc_bytes());
        }
    }

    /// Program the TX DMA with this ring and start it (ST, store-and-forward): on a 3.x
    /// core DMA_TX_BASE_ADDR; on a QoS core the base (high, low), the ring length and the
    /// tail pointer at the ring's first descriptor (nothing queued). The TX DMA is stopped
    /// first if it runs. First the DSL the DMA was configured with is read back: the DMA
    /// must step through the descriptors with the ring's own stride.
    ///
    /// Errors: [`Error::GeometryMismatch`] when DSL is not the ring's (the DMA was
    /// configured for another set-up); [`Error::StrideMismatch`] when a GMAC 3.x has
    /// DMA_BUS_MODE.ATDS set (32-byte descriptors); [`ConfigError::LayoutMismatch`] when
    /// the ring's layout is not the MAC's (a 3.x set-up on a 4.x core or the other way
    /// round, or the other GMAC 3.x layout); [`ConfigError::AddressWidth`] when a
    /// descriptor or buffer lies above what the DMA addresses now (QoS: ADDR64 bits only
    /// while EAME is set).
    /// Nothing is written then, and the TX DMA is not started.
    ///
    /// # Starting again
    ///
    /// The DMA starts at descriptor 0, so a ring that has moved off it (a start after
    /// [`Dwmac::stop`], or over a running TX DMA) is brought there first, as
    /// [`try_recover`](Self::try_recover) does: the TX DMA is stopped and waited for, the
    /// frames still pending are dropped (counted in [`TxStats::dropped`], never sent),
    /// every descriptor is returned to the CPU, an outstanding [`TxSlot`] goes stale (its
    /// [`commit_slot`](Self::commit_slot) answers [`Error::WouldBlock`]) and the cleanup
    /// timer is cancelled. A ring at descriptor 0 with nothing pending (a fresh ring) is
    /// started as it is, at no extra cost. A restart that stopped the TX DMA and then meets
    /// one of the errors above leaves the ring reset and the TX DMA stopped. Errors of a
    /// restart besides those: [`Error::Timeout`] when the TX process never read Stopped
    /// (counted in [`TxStats::stop_timeouts`]; the ring is left as it was, the TX DMA
    /// switched off).
    pub fn try_start<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        // Descriptor 0 is the base the start programs, and the DMA restarts there (the 3.x
        // databook, Register 4: a stopped DMA resumes where it stopped only while the base
        // is left unchanged). A ring whose next descriptor is 0 with nothing in flight (a
        // fresh ring, or one whose frames all completed and wrapped) is consistent with it
        // as it is; any other is stopped and reset first, as Linux's `stmmac_tx_err` resets
        // the queue (cur and dirty to 0, descriptors cleared) before it writes the base
        // (drivers/net/ethernet/stmicro/stmmac/stmmac_main.c, `stmmac_reset_tx_queue`).
        if self.cur != 0 || self.pending != 0 {
            check_layout(mac, self.setup.layout(), &mut self.stats.refused_starts)?;
            self.stop_and_reset(mac)?;
        }
        self.program(mac)
    }

    /// Program the ring's base (descriptor 0) and the tail at `cur`, and start the TX DMA;
    /// the errors of [`try_start`](Self::try_start).
    fn program<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        check_layout(mac, self.setup.layout(), &mut self.stats.refused_starts)?;
        wmb();
        self.cache.before_doorbell();
        let start = RingStart {
            base: self.geo.desc_bus(0),
            last: self.geo.desc_bus(self.geo.len().wrapping_sub(1)),
            len: self.geo.len(),
            dsl: self.setup.dsl(),
            buf_size: 0,
            tail: self.geo.desc_bus(self.cur),
            // A stride of at most 256 bytes (a checked cache line).
            stride: u32::try_from(self.setup.desc_stride()).unwrap_or(u32::MAX),
            top: self.geo.top(self.buf_size),
        };
        // SAFETY: the base is this ring's first descriptor, carved from a region the ring
        // owns for the rest of the program, with every descriptor initialised; the DSL
        // check makes the DMA's stride the ring's.
        let r = unsafe { mac.start_tx(&start) };
        if r.is_err() {
            self.stats.refused_starts = self.stats.refused_starts.wrapping_add(1);
        }
        r
    }

    /// [`try_start`](Self::try_start), the error dropped: a refused start leaves the TX DMA
    /// stopped and is counted in [`TxStats::refused_starts`]. Prefer `try_start`.
    pub fn start<M: Dwmac>(&mut self, mac: &M) {
        let _ = self.try_start(mac);
    }

    /// Bus address of descriptor 0 (what [`start`](Self::start) programs as the base).
    pub fn base(&self) -> u64 {
        self.geo.desc_bus(0)
    }

    /// Number of descriptors.
    pub fn len(&self) -> usize {
        self.geo.len()
    }

    /// Always `false` (a ring has at least one descriptor).
    pub fn is_empty(&self) -> bool {
        self.geo.len() == 0
    }

    /// Choose TX checksum insertion and return whether it is on. On, every frame's
    /// descriptor asks for full insertion (CIC = 3, TDES1 bits 28:27 normal, TDES0 bits
    /// 23:22 enhanced): the core fills in the IPv4 header checksum and the TCP, UDP or
    /// ICMP checksum with its pseudo-header (frames that are not IPv4/IPv6 pass
    /// unchanged). [`Offload::Off`](crate::Offload::Off) is the default;
    /// [`Offload::IfDetected`](crate::Offload::IfDetected) turns it on when
    /// [`DmaSetup::coe`] announces TXCOESEL; [`Offload::Assume`](crate::Offload::Assume)
    /// turns it on regardless (the firmware's promise for a core without HW_FEATURE).
    ///
    /// The engine needs the whole frame in the TX FIFO: the rings run the TX DMA in
    /// store-and-forward mode (DMA_CONTROL.TSF), as Linux requires for TX COE. Frames
    /// already handed to the DMA keep what they were given.
    pub fn set_checksum_offload(&mut self, mode: crate::dma::Offload) -> bool {
        self.cic = match mode {
            crate::dma::Offload::Off => false,
            crate::dma::Offload::IfDetected => self.setup.coe().is_some_and(|c| c.tx),
            crate::dma::Offload::Assume => true,
        };
        self.ctl = desc::tx_ctl(self.setup.layout(), self.cic);
        self.cic
    }

    /// Whether TX checksum insertion is on ([`set_checksum_offload`](Self::set_checksum_offload)).
    pub fn checksum_offload(&self) -> bool {
        self.cic
    }

    /// Bytes per buffer (the largest frame [`TxToken::commit`] takes).
    pub fn buf_size(&self) -> usize {
        self.buf_size
    }

    /// Descriptors handed to the DMA and not reclaimed yet.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Free descriptors (without reclaiming).
    pub fn free(&self) -> usize {
        self.capacity().saturating_sub(self.pending)
    }

    /// How many frames the ring holds at once: every descriptor on 3.x; one fewer on QoS,
    /// where a tail pointer at the head would mean an empty ring.
    pub fn capacity(&self) -> usize {
        self.geo
            .len()
            .saturating_sub(usize::from(self.setup.layout().is_qos()))
    }

    /// Counters.
    pub fn stats(&self) -> TxStats {
        self.stats
    }

    /// The coalescing state.
    pub fn coalesce(&self) -> &TxCoalesce {
        &self.coal
    }

    /// The cleanup timer.
    pub fn timer(&self) -> &T {
        &self.timer
    }

    /// `tx_usecs` in timer ticks (0 without a timer).
    pub fn period_ticks(&self) -> u64 {
        self.period
    }

    /// The four words of descriptor `i` (for inspection).
    pub fn desc_words(&self, i: usize) -> Option<[u32; 4]> {
        (i < self.geo.len()).then(|| {
            let d = self.geo.desc(i);
            self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
            d.words()
        })
    }

    /// Change the coalescing at run time. The timer period follows `tx_usecs`; a timer
    /// that is no longer wanted is cancelled, one that is now wanted is started when
    /// descriptors are pending.
    ///
    /// Errors: as for [`new`](Self::new) ([`Error::Config`]); nothing changes then.
    pub fn set_coalesce(
        &mut self,
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
    ) -> Result<(), Error> {
        let tc = TxConfig {
            descriptors: self.geo.len(),
            buf_size: self.buf_size,
            coalesce: cfg,
            strategy,
        };
        self.period = tx_period(&tc, &self.timer, self.capacity())?;
        self.coal = TxCoalesce::new(cfg, strategy);
        self.arm_once = self.period != 0 && self.coal.strategy() == TimerStrategy::ArmOnce;
        self.armed = self.timer.is_queued();
        if self.period == 0 {
            self.cancel_timer();
            self.armed = false;
        } else if self.pending > 0 && !self.armed {
            self.arm(TimerAction::Start);
        }
        Ok(())
    }

    /// Reserve the next descriptor for a frame (see the [module docs](self)). When the
    /// ring looks full, completed descriptors are reclaimed first.
    ///
    /// Errors: [`Error::LinkDown`] when the MAC's link is down
    /// ([`Dwmac::set_link`]); [`Error::WouldBlock`] when every descriptor is still owned
    /// by the DMA, or a [`TxSlot`] is out ([`reserve_slot`](Self::reserve_slot));
    /// [`ConfigError::LayoutMismatch`] when `mac` is of the other layout than the ring
    /// (also at [`commit_slot`](Self::commit_slot): nothing is written).
    pub fn reserve<'a, M: Dwmac>(&'a mut self, mac: &'a M) -> Result<TxToken<'a, M, T, C>, Error> {
        self.check_free(mac)?;
        Ok(TxToken { ring: self, mac })
    }

    /// The checks of [`reserve`](Self::reserve): link up, no slot out, a free descriptor
    /// (reclaiming first when the ring looks full).
    fn check_free<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        if self.slot_out {
            return Err(Error::WouldBlock);
        }
        if !mac.link().up {
            self.stats.link_down = self.stats.link_down.wrapping_add(1);
            return Err(Error::LinkDown);
        }
        if M::QOS != self.setup.layout().is_qos() {
            return Err(Error::Config(ConfigError::LayoutMismatch));
        }
        if self.pending >= self.capacity() {
            self.reclaim();
            if self.pending >= self.capacity() {
                return Err(Error::WouldBlock);
            }
        }
        Ok(())
    }

    /// Reserve the next descriptor as a [`TxSlot`] that does not borrow the ring: fill
    /// [`TxSlot::buffer`] without holding the ring (for instance outside the critical
    /// section the ring lives behind, while the interrupt paths keep servicing it), then
    /// hand the slot back with [`commit_slot`](Self::commit_slot) or
    /// [`release_slot`](Self::release_slot).
    ///
    /// While the slot is out, the ring reserves nothing else ([`reserve`](Self::reserve),
    /// [`send`](Self::send) and this answer [`Error::WouldBlock`]), so descriptor `cur`
    /// stays CPU-owned and its buffer is the slot's alone; reclaim, [`service`](Self::service),
    /// [`on_timer`](Self::on_timer) and [`recover`](Self::recover) run as usual (they never
    /// touch a free descriptor's buffer). A slot dropped without coming back keeps the
    /// ring reserved for good.
    ///
    /// Errors: as for [`reserve`](Self::reserve).
    pub fn reserve_slot<M: Dwmac>(&mut self, mac: &M) -> Result<TxSlot, Error> {
        self.check_free(mac)?;
        self.slot_out = true;
        Ok(TxSlot {
            index: self.cur,
            epoch: self.epoch,
            buf: self.geo.buf_ptr(self.cur),
            len: self.buf_size,
        })
    }

    /// Whether `slot` was reserved from this ring and is the one out.
    fn owns(&self, slot: &TxSlot) -> bool {
        self.slot_out && slot.index < self.geo.len() && slot.buf == self.geo.buf_ptr(slot.index)
    }

    /// Send the first `len` bytes of `slot`'s buffer, as [`TxToken::commit`], and end the
    /// reservation.
    ///
    /// Errors: [`Error::FrameSize`] when `len` is 0 or above [`TxRing::buf_size`];
    /// [`Error::WouldBlock`] when the slot is stale (a [`recover`](Self::recover) ran since
    /// [`reserve_slot`](Self::reserve_slot): the descriptors were reset) or not this ring's
    /// (this ring's own reservation, if any, then stays). Nothing is queued on an error;
    /// once the frame is queued nothing fails.
    pub fn commit_slot<M: Dwmac>(
        &mut self,
        mac: &M,
        slot: TxSlot,
        len: usize,
    ) -> Result<XmitPlan, Error> {
        if !self.owns(&slot) {
            return Err(Error::WouldBlock);
        }
        self.slot_out = false;
        if slot.epoch != self.epoch || slot.index != self.cur {
            return Err(Error::WouldBlock);
        }
        self.commit_at(mac, len)
    }

    /// End `slot`'s reservation without sending anything (nothing happens for a slot that
    /// is not this ring's).
    pub fn release_slot(&mut self, slot: TxSlot) {
        if self.owns(&slot) {
            self.slot_out = false;
        }
    }

    /// Whether a [`TxSlot`] is out ([`reserve_slot`](Self::reserve_slot)).
    pub fn slot_reserved(&self) -> bool {
        self.slot_out
    }

    /// Copy `frame` into the next descriptor and send it: [`reserve`](Self::reserve),
    /// copy, [`TxToken::commit`].
    ///
    /// Errors: those of `reserve` and `commit` (nothing is queued then).
    pub fn send<M: Dwmac>(&mut self, mac: &M, frame: &[u8]) -> Result<XmitPlan, Error> {
        let mut t = self.reserve(mac)?;
        let buf = t.buffer();
        let Some(dst) = buf.get_mut(..frame.len()) else {
            return Err(Error::FrameSize { len: frame.len() });
        };
        dst.copy_from_slice(frame);
        t.commit(frame.len())
    }

    /// Apply a timer action; a failure is counted and reported as `false`.
    ///
    /// The ring keeps track of whether the timer is armed (`armed`): set when a start or
    /// restart succeeds or an expiry re-arms ([`on_timer`](Self::on_timer) returning
    /// [`Restart::At`]), cleared when it cancels the timer or an expiry does not re-arm, and
    /// taken from the timer itself at construction, in [`service`](Self::service) and in
    /// [`set_coalesce`](Self::set_coalesce). So `commit` asks the timer nothing while it
    /// is armed (with [`QueueTimer`] that is a critical section per frame saved), and one
    /// call starts it. A start that finds the timer queued after all (cancelled or expired
    /// behind the ring's back, then queued again) is not a failure: the timer is armed.
    #[inline]
    /// Cancel the cleanup timer, counting it, or counting the refusal of the programming
    /// that followed (the timer is dequeued either way; the queue programs the hardware
    /// again at its next operation).
    fn cancel_timer(&mut self) {
        match self.timer.cancel() {
            Ok(true) => self.stats.timer_cancels = self.stats.timer_cancels.wrapping_add(1),
            Ok(false) => {}
            Err(_) => self.stats.timer_errors = self.stats.timer_errors.wrapping_add(1),
        }
    }

    fn arm(&mut self, action: TimerAction) -> bool {
        let r = match action {
            TimerAction::Keep => return true,
            TimerAction::Start => match self.timer.start_after(self.period) {
                Err(
                    Error::Timer(hwtimer_core::QueueError::AlreadyQueued)
                    | Error::Core(hwtimer_core::Error::AlreadyQueued),
                ) => {
                    self.armed = true;
                    return true;
                }
                r => {
                    self.stats.timer_starts = self.stats.timer_starts.wrapping_add(1);
                    r
                }
            },
            TimerAction::Restart => {
                self.stats.timer_restarts = self.stats.timer_restarts.wrapping_add(1);
                self.timer
                    .now()
                    .and_then(|now| self.timer.restart(now.saturating_add(self.period)))
            }
        };
        if r.is_err() {
            self.stats.timer_errors = self.stats.timer_errors.wrapping_add(1);
            // A failed programming may leave the timer queued (hwtimer-core's queue keeps it).
            self.armed = self.timer.is_queued();
            return false;
        }
        self.armed = true;
        true
    }

    fn commit_at<M: Dwmac>(&mut self, mac: &M, len: usize) -> Result<XmitPlan, Error> {
        if len == 0 || len > self.buf_size {
            return Err(Error::FrameSize { len });
        }
        // A ring handed to the other layout's MAC (a slot reserved on one and committed on
        // the other) is refused before any descriptor is written; past this line the
        // compiler knows which layout this MAC type's ring has (`layout` is a local).
        let layout = self.setup.layout();
        if M::QOS != layout.is_qos() {
            return Err(Error::Config(ConfigError::LayoutMismatch));
        }
        let queued = self.arm_once && self.armed;
        let mut plan = self.coal.on_xmit(1, queued);
        // `Keep` (every frame of a window but the one that opens it) is decided here, so
        // those frames skip the call to `arm`, which the compiler keeps out of line.
        if plan.timer != TimerAction::Keep && !self.arm(plan.timer) {
            // No timer to reclaim this frame: let its TI do it.
            plan.set_ic = true;
            self.coal.ic_forced();
        }
        let g = self.geo;
        let i = self.cur;
        let d = g.desc(i);
        let next = g.next(i);
        self.cache.clean(g.buf_ptr(i), g.buf_bytes(len));
        desc::tx_give(
            layout,
            d,
            TxPrep {
                // 3.x rings are carved below 4 GiB: 32-bit arithmetic there.
                buf: if M::QOS {
                    g.buf_bus(i)
                } else {
                    u64::from(g.buf_bus_lo(i))
                },
                // Exact: `len <= buf_size <= 8191`.
                len: len as u32,
                ic: plan.set_ic,
                // `next` wraps to 0 exactly after the last descriptor (`i < len`).
                end_of_ring: next == 0,
                ctl: self.ctl,
            },
        );
        self.cache.clean(d.as_ptr(), g.desc_bytes());
        wmb();
        self.cache.before_doorbell();
        // QoS: the tail one past this frame; 3.x: the poll demand.
        mac.tx_doorbell(g.desc_bus(next));
        self.cur = next;
        // No overflow: `reserve` and `reserve_slot` found `pending < len <= MAX_RING`, and
        // nothing adds to it until this commit.
        self.pending = self.pending.wrapping_add(1);
        self.stats.sent = self.stats.sent.wrapping_add(1);
        self.stats.bytes = self.stats.bytes.wrapping_add(len as u64);
        self.stats.ic_set = self.stats.ic_set.wrapping_add(u64::from(plan.set_ic));
        Ok(plan)
    }
}
