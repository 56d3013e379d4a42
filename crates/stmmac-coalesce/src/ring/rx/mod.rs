//! The RX ring: frames assembled from one or more descriptors, lent in place or copied once,
//! RX interrupt coalescing (DIC / RIWT), bad-frame accounting and recovery.
//!
//! # Frames and descriptors
//!
//! A frame longer than one buffer spans descriptors: FS on the first, LS with the
//! cumulative frame length (FL, FCS included) on the last; only the last descriptor's
//! status is valid. [`RxRing::receive`] walks from the oldest CPU-owned descriptor:
//!
//! - a frame is complete only when its LS descriptor is CPU-owned. A descriptor with OWN
//!   clear and no LS, followed by one the DMA still owns, is a frame in progress
//!   ([`Error::WouldBlock`], not an error): QEMU's npcm-gmac even writes a frame's last
//!   descriptor twice, first OWN clear without LS, then with LS;
//! - a frame whose LS descriptor has ES, whose FL does not match the descriptors it
//!   occupies, that is shorter than [`MIN_FRAME`] plus FCS (runt) or longer than
//!   [`RxConfig::max_frame`] (oversized) is dropped and counted ([`RxStats`]), each
//!   cause in its own counter; so is one with an RDES0 error bit (CRC, overflow, watchdog,
//!   late collision, descriptor, length field, MII) and, while
//!   [checksum offload](RxRing::set_checksum_offload) is on, one whose checksum the core
//!   reports wrong;
//! - descriptors without FS where a frame should start, and a frame cut short by a new FS,
//!   are dropped and counted ([`RxStats::partial`]); so is a ring full of one unfinished
//!   frame.
//!
//! Only bytes the DMA wrote for *this* frame are ever delivered: each buffer contributes
//! exactly what FL says it holds (full buffers, then the remainder), never a stale tail.
//!
//! [`RxFrame`] lends the frame: [`RxFrame::as_slice`] is the DMA buffer itself when the
//! frame fits one buffer (zero copy); [`RxFrame::copy_to`] / [`RxFrame::bytes`] copy a
//! frame that spans descriptors once into the caller's buffer, and drop and count it when
//! that buffer is too short. Dropping the [`RxFrame`] gives its descriptors back to the DMA
//! (OWN last, after [`dma_wmb`](crate::dma::barrier::dma_wmb)).
//!
//! # Coalescing
//!
//! At refill, descriptor number `k` gets DIC per
//! [`CoalesceConfig::rx_dic`](crate::CoalesceConfig::rx_dic); [`RxRing::start`] writes
//! RIWT. See [`CoalesceConfig`] for what 0 means.
//!
//! # The poll demand
//!
//! Descriptors given back while the RX DMA may be suspended (RU) need an RX poll demand.
//! It is issued once per batch: when [`RxRing::receive`] finds nothing more
//! ([`Error::WouldBlock`]) after descriptors were given back, and by [`RxRing::service`]
//! on RU; always after [`wmb`].

mod frame;
mod scan;

pub use frame::RxFrame;

use crate::common::DmaEvents;
use crate::common::{ConfigError, Error};
use crate::common::{Dwmac, RingStart, check_layout};
use crate::dma::Desc;
use crate::dma::barrier::{dma_rmb, wmb};
use crate::dma::{CacheOps, DmaAddr, DmaRegion, DmaSetup, RingGeometry};
use crate::ring::coalesce::CoalesceConfig;
use crate::ring::desc::{self, RxErrors};

/// Bytes of the FCS the MAC leaves at the end of a frame (counted in FL).
pub const FCS_LEN: usize = 4;
/// Bytes of an Ethernet header.
pub const ETH_HEADER_LEN: usize = 14;
/// Smallest frame without FCS (802.3's 64 bytes minus the FCS, which this MAC leaves in the
/// buffer and counts in FL: ACS is off). Shorter frames are runts: dropped and counted.
/// A DWMAC drops them itself unless DMA_CONTROL.FUF is set; QEMU pads short frames to 60.
pub const MIN_FRAME: usize = 60;
/// Largest frame without FCS: 1500 bytes of payload, header and one VLAN tag.
pub const MAX_FRAME: usize = 1518;

/// RX ring parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxConfig {
    /// Number of descriptors (1..=[`MAX_RING`](crate::dma::MAX_RING)).
    pub descriptors: usize,
    /// Bytes per buffer (RBS1): a multiple of the bus width, at most the layout's RBS1
    /// limit (2047 normal, 8191 enhanced). Smaller than a frame is fine: frames span
    /// descriptors.
    pub buf_size: usize,
    /// Largest frame accepted, without FCS; longer ones are dropped and counted. At least
    /// [`ETH_HEADER_LEN`], at most what the ring holds.
    pub max_frame: usize,
    /// Coalescing (the RX part: `rx_usecs`, `rx_frames`).
    pub coalesce: CoalesceConfig,
}

impl Default for RxConfig {
    /// 16 descriptors of 1536 bytes, frames up to [`MAX_FRAME`], RX interrupt per frame.
    fn default() -> Self {
        Self {
            descriptors: 16,
            buf_size: 1536,
            max_frame: MAX_FRAME,
            coalesce: CoalesceConfig::default(),
        }
    }
}

/// Counters of an [`RxRing`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxStats {
    /// Frames delivered by [`RxRing::receive`].
    pub frames: u64,
    /// Bytes of those frames (without FCS).
    pub bytes: u64,
    /// Of those, frames that spanned more than one descriptor.
    pub multi_descriptor: u64,
    /// Frames dropped with ES (error summary) in their last descriptor, whatever the cause;
    /// the causes RDES0 names are counted on their own as well (a frame with two causes
    /// in each).
    pub errors: u64,
    /// Frames dropped with RDES0.CE (bit 1): FCS wrong.
    pub crc_errors: u64,
    /// Dropped frames that had RDES0 bit 2 (dribble: not a whole number of bytes, MII).
    /// The bit alone drops nothing.
    pub dribble_errors: u64,
    /// Frames dropped with RDES0.OE (bit 11): the RX FIFO overflowed.
    pub overflow_errors: u64,
    /// Frames dropped with RDES0.RWT (bit 4): receive watchdog (jabber, over 2048 bytes).
    pub watchdog_errors: u64,
    /// Frames dropped with RDES0.LC (bit 6): late collision.
    pub late_collisions: u64,
    /// Frames dropped with RDES0.DE (bit 14): the frame did not fit the descriptors.
    pub descriptor_errors: u64,
    /// Frames dropped because the core reported the IPv4 header checksum wrong (RDES0
    /// bit 7 while RX checksum offload is on).
    pub ip_checksum_errors: u64,
    /// Frames dropped because the core reported the TCP/UDP/ICMP checksum wrong (RDES0
    /// bit 0 while RX checksum offload is on).
    pub payload_checksum_errors: u64,
    /// Frames dropped with RDES0.LE (bit 12): an 802.3 length field that disagrees with
    /// the frame.
    pub length_field_errors: u64,
    /// Frames dropped with RDES0.RE (bit 3): the PHY signalled a receive error (MII).
    pub mii_errors: u64,
    /// Frames dropped as shorter than [`MIN_FRAME`] (without FCS).
    pub runts: u64,
    /// Frames dropped as longer than [`RxConfig::max_frame`].
    pub oversized: u64,
    /// Frames dropped because FL disagrees with the descriptors they occupy.
    pub length_errors: u64,
    /// Partial frames dropped (continuation without FS, a frame cut by a new FS, a ring
    /// full of one unfinished frame).
    pub partial: u64,
    /// QoS context descriptors (timestamps, no data) skipped and given back.
    pub context: u64,
    /// Frames dropped because the caller's buffer was too short to assemble them.
    pub not_assembled: u64,
    /// RU (receive buffer unavailable) events seen by [`RxRing::service`] (only when that
    /// source is enabled: not by default).
    pub no_buffer: u64,
    /// RX DMA restarts (after a fatal bus error with AIS, or [`RxRing::recover`] called).
    pub recoveries: u64,
    /// Complete frames a recovery dropped (received, not yet taken by
    /// [`RxRing::receive`] when the ring was emptied).
    pub dropped: u64,
    /// Faults that found the RX DMA stopped by the user (SR clear); it was left stopped.
    pub user_stopped: u64,
    /// Recoveries that gave up because the RX process did not reach Stopped within
    /// [`Dwmac::set_stop_polls`] reads; the RX DMA was left switched off.
    pub stop_timeouts: u64,
    /// Starts refused because DMA_BUS_MODE.DSL is not the ring's stride
    /// ([`Error::GeometryMismatch`]); the RX DMA stayed stopped.
    pub refused_starts: u64,
    /// RX poll demands issued.
    pub poll_demands: u64,
}

/// An RX ring over a [`DmaRegion`]; see the [module docs](self).
pub struct RxRing<C: CacheOps = crate::dma::Coherent> {
    setup: DmaSetup,
    geo: RingGeometry,
    buf_size: usize,
    max_frame: usize,
    coal: CoalesceConfig,
    next: usize,
    /// Refills since the last one without DIC, modulo `rx_frames` (compared, never
    /// divided: a 64-bit `%` is a library call on a Cortex-A9).
    dic_phase: u32,
    demand: bool,
    /// Checksum offload asked for ([`RxRing::set_checksum_offload`]).
    csum: crate::dma::Offload,
    /// GMAC_CONTROL.IPC as read back at the last start: RDES0's checksum bits are read
    /// only then.
    ipc: bool,
    /// A start handed the ring to an RX DMA: it may have written into the descriptors
    /// since, so the next start resets the ring first.
    handed: bool,
    cache: C,
    stats: RxStats,
}

// SAFETY: the ring is the only owner of its region (raw pointers into it); moving the ring
// moves that ownership.
unsafe impl<C: CacheOps + Send> Send for RxRing<C> {}

impl<C: CacheOps> core::fmt::Debug for RxRing<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RxRing")
            .field("len", &self.geo.len())
            .field("next", &self.next)
            .field("stats", &self.stats)
            .finish()
    }
}

/// What [`RxRing::scan`] found at `next`.
enum Scan {
    /// Nothing complete yet.
    Pending,
    /// A good frame: `count` descriptors from `next`, `len` bytes without FCS.
    Frame { count: usize, len: usize },
    /// `count` descriptors from `next` to drop (already counted).
    Drop { count: usize },
}

fn check_rx(cfg: &RxConfig, setup: &DmaSetup) -> Result<u8, Error> {
    let bus_width = setup.bus_width();
    let max = setup.layout().max_buf_size() & !bus_width.wrapping_sub(1);
    if cfg.buf_size == 0 || cfg.buf_size > max || !cfg.buf_size.is_multiple_of(bus_width) {
        return Err(Error::Config(ConfigError::BufSize));
    }
    // QoS: the descriptor at the tail is never the DMA's, so a frame has one fewer.
    let usable = cfg
        .descriptors
        .saturating_sub(usize::from(setup.layout().is_qos()));
    let capacity = usable.saturating_mul(cfg.buf_size);
    if cfg.max_frame < ETH_HEADER_LEN || cfg.max_frame.saturating_add(FCS_LEN) > capacity {
        return Err(Error::Config(ConfigError::MaxFrame));
    }
    Ok(cfg.coalesce.validate_rx(usable, setup.csr_hz())?)
}

impl<C: CacheOps> RxRing<C> {
    /// Carve the ring from `region` for `setup` and hand every descriptor to the DMA (with
    /// DIC per the coalescing). Touches no register; [`start`](Self::start) programs the
    /// DMA.
    ///
    /// Errors: [`Error::RingSize`] / [`Error::DmaAddress`] as for
    /// [`TxRing::new`](crate::TxRing::new); [`Error::Config`] for a bad buffer size
    /// ([`ConfigError::BufSize`]), `max_frame` ([`ConfigError::MaxFrame`]) or RX
    /// coalescing ([`CoalesceConfig::validate_rx`]).
    pub fn new(
        region: DmaRegion,
        addr: &impl DmaAddr,
        setup: &DmaSetup,
        cfg: RxConfig,
        cache: C,
    ) -> Result<Self, Error> {
        check_rx(&cfg, setup)?;
        crate::dma::check_line(setup, &cache)?;
        let geo = RingGeometry::carve(&region, addr, setup, cfg.descriptors, cfg.buf_size)?;
        let mut ring = Self {
            setup: *setup,
            geo,
            buf_size: cfg.buf_size,
            max_frame: cfg.max_frame,
            coal: cfg.coalesce,
            next: 0,
            dic_phase: 0,
            demand: false,
            csum: crate::dma::Offload::Off,
            ipc: false,
            handed: false,
            cache,
            stats: RxStats::default(),
        };
        ring.refill_all();
        Ok(ring)
    }

    /// Give descriptor `i` to the DMA (buffer invalidated first, OWN last).
    #[inline]
    fn give(&mut self, i: usize) {
        let g = self.geo;
        let d = g.desc(i);
        self.cache.invalidate(g.buf_ptr(i), g.buf_stride());
        let dic = self.next_dic();
        // Exact: `buf_size <= 8191`.
        let layout = self.setup.layout();
        desc::rx_give(
            layout,
            d,
            // 3.x rings are carved below 4 GiB: 32-bit arithmetic there.
            if layout.is_qos() {
                g.buf_bus(i)
            } else {
                u64::from(g.buf_bus_lo(i))
            },
            self.buf_size as u32,
            dic,
            g.is_last(i),
        );
        self.cache.clean(d.as_ptr(), g.desc_bytes());
    }

    /// DIC for the next refill: [`CoalesceConfig::rx_dic`] of the refill count, kept as
    /// a phase that wraps by compare.
    #[inline]
    fn next_dic(&mut self) -> bool {
        if self.coal.rx_usecs == 0 {
            return false;
        }
        if self.coal.rx_frames == 0 {
            return true;
        }
        self.dic_phase = self.dic_phase.wrapping_add(1);
        if self.dic_phase >= self.coal.rx_frames {
            self.dic_phase = 0;
            return false;
        }
        true
    }

    fn refill_all(&mut self) {
        self.dic_phase = 0;
        for i in 0..self.geo.len() {
            self.give(i);
        }
        self.next = 0;
    }

    /// Give `count` descriptors from `next` back and advance.
    #[inline]
    fn release(&mut self, count: usize) {
        // One step at a time (`next < len`): no index arithmetic beyond a compare.
        let mut i = self.geo.wrap(self.next);
        for _ in 0..count.min(self.geo.len()) {
            self.give(i);
            i = self.geo.next(i);
        }
        self.next = i;
        self.demand = true;
    }

    fn flush_demand<M: Dwmac>(&mut self, mac: &M) {
        if self.demand {
            self.demand = false;
            wmb();
            self.cache.before_doorbell();
            // QoS: the tail at the last descriptor given back (`next` is one past it); the
            // DMA never uses the descriptor at the tail, so one stays between the two.
            mac.rx_doorbell(self.geo.desc_bus(self.geo.prev(self.next)));
            self.stats.poll_demands = self.stats.poll_demands.wrapping_add(1);
        }
    }

    /// [`try_start`](Self::try_start), the error dropped: a refused start leaves the RX DMA
    /// stopped and is counted in [`RxStats::refused_starts`]. Prefer `try_start`.
    pub fn start<M: Dwmac>(&mut self, mac: &M) {
        let _ = self.try_start(mac);
    }

    /// Program RIWT (from the coalescing and the CSR clock) and the ring (3.x:
    /// DMA_RCV_BASE_ADDR; QoS: base high/low, ring length, RBSZ and the tail at the last
    /// descriptor), and start the RX DMA (SR). The RX DMA is stopped first if it runs.
    /// First the DSL the DMA was configured with is read back: the DMA must step through
    /// the descriptors with the ring's own stride.
    ///
    /// Errors: [`Error::GeometryMismatch`] when DSL is not the ring's;
    /// [`Error::StrideMismatch`] when a GMAC 3.x has DMA_BUS_MODE.ATDS set (32-byte
    /// descriptors); [`Error::BufSizeMismatch`] when a QoS core reads RBSZ back other than
    /// the ring's buffer size (a bus wider than the set-up's): the RX DMA is not started
    /// (RIWT is written). [`ConfigError::LayoutMismatch`] when the ring's layout is not the
    /// MAC's (the other version's, or the other GMAC 3.x layout),
    /// [`ConfigError::AddressWidth`] when a descriptor or buffer lies above what the DMA
    /// addresses now (QoS: ADDR64 bits only while EAME is set): nothing is written then.
    ///
    /// # Starting again
    ///
    /// The DMA starts at descriptor 0, so a ring a DMA was started on before (a start
    /// after [`Dwmac::stop`], or over a running RX DMA) is brought there first, as
    /// [`try_recover`](Self::try_recover) does: the RX DMA is stopped and waited for, the
    /// frames the ring holds are dropped (the complete ones counted in
    /// [`RxStats::dropped`]) and every descriptor is handed to the DMA again. The first
    /// start of a ring costs nothing more. A restart that stopped the RX DMA and then meets
    /// one of the errors above leaves the ring reset and the RX DMA stopped. Errors of a
    /// restart besides those: [`Error::Timeout`] when the RX process never read Stopped
    /// (counted in [`RxStats::stop_timeouts`]; the ring is left as it was, the RX DMA
    /// switched off).
    pub fn try_start<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        // Descriptor 0 is the base the start programs and where the DMA starts (the 3.x
        // databook, Register 4: a stopped DMA resumes where it stopped only while the base
        // is left unchanged). A ring no DMA has seen is consistent with it as `new` left
        // it; one a DMA has written into is stopped and reset first.
        if self.handed {
            check_layout(mac, self.setup.layout(), &mut self.stats.refused_starts)?;
            self.stop_and_reset(mac)?;
        }
        self.program(mac)
    }

    /// Program RIWT, IPC and the ring (base at descriptor 0, the tail before `next`), and
    /// start the RX DMA; the errors of [`try_start`](Self::try_start).
    fn program<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        check_layout(mac, self.setup.layout(), &mut self.stats.refused_starts)?;
        // Validated at construction and by `set_coalesce`, so this cannot fail here.
        let riwt = self
            .coal
            .validate_rx(self.dma_capacity(), self.setup.csr_hz())
            .unwrap_or(0);
        mac.set_riwt(riwt);
        if self.wants_checksum() {
            self.ipc = mac.set_rx_checksum(true);
        } else if self.ipc {
            self.ipc = mac.set_rx_checksum(false);
        }
        wmb();
        self.cache.before_doorbell();
        let start = RingStart {
            base: self.geo.desc_bus(0),
            last: self.geo.desc_bus(self.geo.len().wrapping_sub(1)),
            len: self.geo.len(),
            dsl: self.setup.dsl(),
            // Exact: `buf_size <= 16380`.
            buf_size: self.buf_size as u32,
            tail: self.geo.desc_bus(self.geo.prev(self.next)),
            // A stride of at most 256 bytes (a checked cache line).
            stride: u32::try_from(self.setup.desc_stride()).unwrap_or(u32::MAX),
            top: self.geo.top(self.buf_size),
        };
        // From here on a DMA may write into the descriptors: a later start resets them.
        self.handed = true;
        // SAFETY: the base is this ring's first descriptor, carved from a region the ring
        // owns for the rest of the program, with every descriptor initialised; the DSL
        // check makes the DMA's stride the ring's.
        let r = unsafe { mac.start_rx(&start) };
        if r.is_err() {
            self.stats.refused_starts = self.stats.refused_starts.wrapping_add(1);
        }
        r
    }

    /// Bus address of descriptor 0 (what [`start`](Self::start) writes to
    /// DMA_RCV_BASE_ADDR).
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

    /// Bytes per buffer.
    pub fn buf_size(&self) -> usize {
        self.buf_size
    }

    /// Largest frame accepted (without FCS).
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// Counters.
    pub fn stats(&self) -> RxStats {
        self.stats
    }

    /// Frames delivered so far.
    pub fn received(&self) -> u64 {
        self.stats.frames
    }

    /// The four words of descriptor `i` (for inspection).
    pub fn desc_words(&self, i: usize) -> Option<[u32; 4]> {
        (i < self.geo.len()).then(|| {
            let d = self.geo.desc(i);
            self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
            d.words()
        })
    }

    /// Descriptors the DMA may hold at once: all of them on GMAC 3.x, one fewer on QoS (its
    /// tail pointer never reaches the current descriptor).
    fn dma_capacity(&self) -> usize {
        self.geo
            .len()
            .saturating_sub(usize::from(self.setup.layout().is_qos()))
    }

    /// Change the RX coalescing at run time: checks it, writes RIWT; descriptors get the
    /// new DIC rule as they are refilled.
    ///
    /// Errors: [`Error::Config`] as in [`CoalesceConfig::validate_rx`]; nothing changes.
    pub fn set_coalesce<M: Dwmac>(&mut self, mac: &M, cfg: CoalesceConfig) -> Result<(), Error> {
        let riwt = cfg.validate_rx(self.dma_capacity(), self.setup.csr_hz())?;
        self.coal = cfg;
        mac.set_riwt(riwt);
        Ok(())
    }

    /// Whether a *complete* frame waits: from the oldest descriptor, a run from FS to LS
    /// with every descriptor CPU-owned. Nothing is consumed or counted. CPU-owned
    /// descriptors without FS in front of it (the tail of a dropped frame, garbage) are
    /// looked past: [`receive`](Self::receive) drops them on its way to the frame. A frame
    /// still arriving (its LS descriptor not written yet) is not data, so a stack that
    /// polls on this does not spin on a half-received frame.
    ///
    /// The frame found may still be dropped by [`receive`](Self::receive) as bad (ES,
    /// runt, oversized, FL inconsistent); its descriptors are given back then, so asking
    /// again makes progress.
    pub fn has_data(&self) -> bool {
        let g = self.geo;
        let mut i = g.wrap(self.next);
        let mut in_frame = false;
        let layout = self.setup.layout();
        for _ in 0..g.len() {
            let d = g.desc(i);
            self.cache.invalidate(d.as_ptr(), g.desc_bytes());
            let raw = d.status(layout);
            if raw & desc::OWN != 0 {
                return false;
            }
            let s = desc::rx_status(layout, raw);
            dma_rmb();
            in_frame |= s.first;
            if in_frame && s.last {
                return true;
            }
            i = g.next(i);
        }
        false
    }

    /// Ask for RX checksum checking (GMAC_CONTROL.IPC); it takes effect at the next
    /// [`start`](Self::start) (or [`recover`](Self::recover)), which programs IPC and reads
    /// it back. [`Offload::Off`](crate::Offload::Off) (the default) leaves IPC as it is
    /// unless this ring turned it on; [`Offload::IfDetected`](crate::Offload::IfDetected)
    /// turns it on when [`DmaSetup::coe`] announces type 1 or type 2;
    /// [`Offload::Assume`](crate::Offload::Assume) tries even without HW_FEATURE.
    ///
    /// While it is on, a frame whose IP header or TCP/UDP/ICMP checksum the core reports
    /// wrong is dropped and counted ([`RxStats::ip_checksum_errors`],
    /// [`RxStats::payload_checksum_errors`]), and [`checksum_offload`](Self::checksum_offload)
    /// tells the stacks they need not verify.
    pub fn set_checksum_offload(&mut self, mode: crate::dma::Offload) {
        self.csum = mode;
    }

    /// Whether RX checksum checking is on: asked for, and GMAC_CONTROL.IPC read back set at
    /// the last [`start`](Self::start).
    pub fn checksum_offload(&self) -> bool {
        self.ipc
    }

    fn wants_checksum(&self) -> bool {
        match self.csum {
            crate::dma::Offload::Off => false,
            crate::dma::Offload::IfDetected => self.setup.coe().is_some_and(|c| c.rx_checks()),
            crate::dma::Offload::Assume => true,
        }
    }

    /// The next complete, good frame. Bad frames on the way are dropped and counted; at
    /// most one ring's worth of descriptors is looked at per call.
    ///
    /// Errors: [`Error::WouldBlock`] when no complete frame is ready (an RX poll demand is
    /// issued first if descriptors were given back; on QoS the tail moves before the look);
    /// [`ConfigError::LayoutMismatch`] when `mac` is of the other layout than the ring
    /// (nothing is read or written).
    pub fn receive<M: Dwmac>(&mut self, mac: &M) -> Result<RxFrame<'_, C>, Error> {
        // QoS: the DMA never passes the tail, so descriptors given back since the last
        // doorbell (a dropped frame's) are the DMA's only once the tail moves: move it
        // first (one write per receive at most; Linux moves it once per NAPI poll). A
        // 3.x DMA takes any descriptor it owns, and needs the poll demand only when it
        // suspended (below).
        // Read once: past this check the compiler knows which layout this MAC type's ring
        // has, and drops the other layout's decode from the scan.
        let layout = self.setup.layout();
        if M::QOS != layout.is_qos() {
            // The other layout's MAC: nothing is read or written.
            return Err(Error::Config(ConfigError::LayoutMismatch));
        }
        if M::QOS {
            self.flush_demand(mac);
        }
        let mut seen: usize = 0;
        while seen < self.geo.len() {
            let raw0 = self.head_status(layout);
            // OWN is bit 31 in every layout: an empty poll decodes nothing.
            if raw0 & desc::OWN != 0 {
                break;
            }
            match self.scan(layout, raw0) {
                Scan::Pending => break,
                Scan::Drop { count } => {
                    seen = seen.saturating_add(count);
                    self.release(count);
                }
                Scan::Frame { count, len } => {
                    self.stats.frames = self.stats.frames.wrapping_add(1);
                    self.stats.bytes = self.stats.bytes.wrapping_add(len as u64);
                    self.stats.multi_descriptor = self
                        .stats
                        .multi_descriptor
                        .wrapping_add(u64::from(count > 1));
                    return Ok(RxFrame {
                        ring: self,
                        count,
                        len,
                    });
                }
            }
        }
        self.flush_demand(mac);
        Err(Error::WouldBlock)
    }

    /// After an interrupt: recover from a fatal bus error ([`DmaEvents::fatal`]: FBI/FBE
    /// with AIS in the same read; restart the RX DMA, see [`recover`](Self::recover)); on
    /// RU (reported only when enabled), issue the poll demand (and give back a descriptor
    /// without FS the DMA waits at). Returns whether a complete frame is waiting
    /// ([`has_data`](Self::has_data), the "RX ready" event).
    ///
    /// RPS never restarts RX: every stop raises it, and Linux only counts it
    /// (`dwmac_dma_interrupt`, `dwmac4_dma_interrupt`). An RX DMA whose SR is clear was
    /// stopped by the user ([`Dwmac::stop`]): it is left stopped, even on a fault
    /// ([`RxStats::user_stopped`]).
    pub fn service<M: Dwmac>(&mut self, mac: &M, events: DmaEvents) -> bool {
        if events.fatal() {
            if mac.rx_dma_enabled() {
                self.recover(mac);
            } else {
                self.stats.user_stopped = self.stats.user_stopped.wrapping_add(1);
            }
        }
        if events.rx_no_buffer() {
            self.stats.no_buffer = self.stats.no_buffer.wrapping_add(1);
            self.demand = true;
            self.unstick(mac);
        }
        self.flush_demand(mac);
        self.has_data()
    }

    /// After RU: when the DMA waits at the very descriptor we wait at, and that one is
    /// CPU-owned but holds no frame start we could ever complete (garbage, or the tail of a
    /// frame whose start was dropped), neither side would move: give it back in place.
    fn unstick<M: Dwmac>(&mut self, mac: &M) {
        if mac.cur_rx_desc() != self.geo.desc_bus(self.next) {
            return;
        }
        let d = self.geo.desc(self.next);
        self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
        let s = desc::rx_status(self.setup.layout(), d.status(self.setup.layout()));
        if !s.own && !s.first {
            // Give it back in place: the DMA writes the next frame into this very
            // descriptor, so `next` stays.
            self.stats.partial = self.stats.partial.wrapping_add(1);
            self.give(self.next);
            self.demand = true;
        }
    }

    /// [`try_recover`](Self::try_recover), the error dropped (counted in
    /// [`RxStats::stop_timeouts`] or [`RxStats::refused_starts`]).
    pub fn recover<M: Dwmac>(&mut self, mac: &M) {
        let _ = self.try_recover(mac);
    }

    /// Restart the RX DMA: stop it and wait until it reads Stopped, which acknowledges the
    /// RPS the stop raised; then drop whatever the ring holds (the complete frames counted
    /// in [`RxStats::dropped`]), hand every descriptor to the DMA again, program the base
    /// and start. Counted in [`RxStats::recoveries`]. The descriptors and the base are
    /// touched only once the process reads Stopped.
    ///
    /// Errors: [`Error::Timeout`] when the process never read Stopped (counted in
    /// [`RxStats::stop_timeouts`]): the RX DMA is left switched off (SR clear) with the
    /// ring as it was, which the service path then treats as the user's stop. The errors
    /// of [`try_start`](Self::try_start).
    pub fn try_recover<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        self.stop_and_reset(mac)?;
        self.stats.recoveries = self.stats.recoveries.wrapping_add(1);
        self.program(mac)
    }

    /// Stop the RX DMA and wait until it reads Stopped; then drop whatever the ring holds
    /// (the complete frames counted in [`RxStats::dropped`]), hand every descriptor to the
    /// DMA again and set `next` to descriptor 0, where the start that follows points the
    /// DMA.
    ///
    /// Errors: [`Error::Timeout`] (counted in [`RxStats::stop_timeouts`]): nothing of the
    /// ring is touched then.
    fn stop_and_reset<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        if let Err(e) = mac.stop_rx() {
            self.stats.stop_timeouts = self.stats.stop_timeouts.wrapping_add(1);
            return Err(e);
        }
        let lost = self.complete_frames();
        self.stats.dropped = self.stats.dropped.wrapping_add(lost);
        self.refill_all();
        self.demand = false;
        Ok(())
    }

    /// The complete frames (FS … LS, every descriptor CPU-owned) from the oldest
    /// descriptor on, up to the first one the DMA owns: what a recovery throws away.
    fn complete_frames(&self) -> u64 {
        let g = self.geo;
        let layout = self.setup.layout();
        let mut i = g.wrap(self.next);
        let mut in_frame = false;
        let mut n: u64 = 0;
        for _ in 0..g.len() {
            let d = g.desc(i);
            self.cache.invalidate(d.as_ptr(), g.desc_bytes());
            let raw = d.status(layout);
            if raw & desc::OWN != 0 {
                break;
            }
            let s = desc::rx_status(layout, raw);
            dma_rmb();
            in_frame |= s.first;
            if in_frame && s.last {
                n = n.wrapping_add(1);
                in_frame = false;
            }
            i = g.next(i);
        }
        n
    }
}
