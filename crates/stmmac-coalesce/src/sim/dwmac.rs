//! The DWMAC model's registers ([`DwmacModel`]): construction and fault injection, the
//! register map, reset, the interrupt status and the RX watchdog, MDIO.

use std::collections::VecDeque;
use std::vec::Vec;

use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use super::dma::{RxInFlight, TxInFlight};
use super::{AnPhy, DEFAULT_LINE_BPS, HW_FEATURE, Ring, SWR_NS, Seen, SimArena, VERSION};
use crate::dma::DescLayout;
use crate::regs::{self, desc::OWN};

/// A frame the model's TX DMA sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFrame {
    /// Virtual time it was sent (and its descriptor released).
    pub at_ns: u64,
    /// The frame bytes.
    pub bytes: Vec<u8>,
    /// Whether its last descriptor had IC.
    pub ic: bool,
}

/// A TX fault to inject ([`DwmacModel::fail_tx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxFault {
    /// The TX process stops (TPS).
    Stop,
    /// Underflow (UNF) and the TX process stops (TPS).
    Underflow,
    /// Fatal bus error (FBI): both processes stop.
    BusError,
}

/// A receive error the line or the MAC reports in RDES0 ([`DwmacModel::inject_with_error`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxWireError {
    /// LE (RDES0 bit 12): an 802.3 length field that disagrees with the frame received.
    Length,
    /// RE (RDES0 bit 3): the PHY signalled RX_ER (an MII/GMII receive error) in the frame.
    Mii,
}

/// The behavioural DWMAC; see the [module docs](crate::sim).
pub struct DwmacModel<D: MdioDevice> {
    pub(super) arena: SimArena,
    pub(super) mdio: D,
    pub(super) csr_hz: u32,
    pub(super) layout: DescLayout,
    pub(super) bus_width: u32,
    pub(super) control: u32,
    pub(super) frame_filter: u32,
    pub(super) hash: [u32; 2],
    pub(super) mii_addr: u32,
    pub(super) mii_data: u32,
    pub(super) addr_hi: u32,
    pub(super) addr_lo: u32,
    pub(super) bus_mode: u32,
    pub(super) tx_base: u32,
    pub(super) rx_base: u32,
    pub(super) cur_tx: u32,
    pub(super) cur_rx: u32,
    pub(super) status: u32,
    pub(super) dma_control: u32,
    pub(super) intr_ena: u32,
    pub(super) riwt: u32,
    pub(super) ts: u32,
    pub(super) tx_halted: bool,
    pub(super) rx_halted: bool,
    pub(super) tx_fault: Option<TxFault>,
    pub(super) tx_stall: bool,
    pub(super) mdio_busy_until: u64,
    pub(super) mdio_stuck: bool,
    pub(super) mdio_frames: u64,
    pub(super) swr_until: u64,
    pub(super) swr_stuck: bool,
    pub(super) riwt_at: Option<u64>,
    pub(super) sent: Vec<SentFrame>,
    pub(super) partial: Vec<u8>,
    pub(super) rx_dropped: u64,
    pub(super) rx_delivered: u64,
    pub(super) rx_filtered: u64,
    pub(super) line_mismatch: u64,
    pub(super) split_last: bool,
    pub(super) pending_ls: Vec<(u32, u32)>,
    pub(super) rx_queue: VecDeque<Vec<u8>>,
    pub(super) rx_cur: Option<RxInFlight>,
    pub(super) phy: Option<AnPhy>,
    pub(super) no_hw_feature: bool,
    /// GMAC_INT_MASK.
    pub(super) gmac_int_mask: u32,
    /// GMAC_INT_STATUS bits 0–2 raised by link events (RGMII/SMII, PCS), cleared at their
    /// source (0xD8 RGMII status, 0xC4 PCS AN status read).
    pub(super) link_events: u32,
    /// MMC interrupt sources `[rx, tx, rx_ipc]` (counters past half range), cleared when
    /// the MMC counters are read.
    pub(super) mmc_intr: [u32; 3],
    /// MMC_{RX,TX,RX_IPC}_INTR_MASK.
    pub(super) mmc_mask: [u32; 3],
    /// GMAC_FLOW_CTRL.
    pub(super) flow_ctrl: u32,
    /// The next TX poll demand reaches the DMA before the descriptor store does.
    pub(super) early_doorbell: bool,
    /// How long SWR stays set after a reset request.
    pub(super) swr_ns: u64,
    /// STM32F4/F7 erratum: a write within this many ns of the previous write to the same
    /// register is lost (0 = off).
    pub(super) write_settle_ns: u64,
    /// Last write time of GMAC_CONTROL, GMAC_FRAME_FILTER, GMAC_FLOW_CTRL, DMA_BUS_MODE,
    /// DMA_CONTROL, DMA_INTR_ENA.
    pub(super) last_write: [Option<u64>; 6],
    /// Writes the erratum swallowed.
    pub(super) lost_writes: u64,
    /// TX fetch latency, ns ([`DwmacModel::with_tx_lag`]; 0 = the instant model).
    pub(super) tx_lag_ns: u64,
    /// Line rate for the TX wire time, bit/s ([`DwmacModel::with_line_rate`]).
    pub(super) line_bps: u64,
    /// Descriptors the lagging TX DMA has fetched and not written back yet, oldest first
    /// (due times never decrease).
    pub(super) tx_inflight: VecDeque<TxInFlight>,
    /// When the wire is free again: the due time of the last descriptor fetched.
    pub(super) tx_wire_free_ns: u64,
}

impl<D: MdioDevice> DwmacModel<D> {
    /// A model whose DMA sees `arena`, whose MDIO bus has `mdio` on it, clocked at `csr_hz`;
    /// normal descriptors, a 32-bit bus, no line check.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        Self {
            arena,
            mdio,
            csr_hz,
            layout: DescLayout::Normal,
            bus_width: 4,
            control: 0,
            frame_filter: 0,
            hash: [0; 2],
            mii_addr: 0,
            mii_data: 0,
            addr_hi: 0x8000_FFFF,
            addr_lo: 0xFFFF_FFFF,
            bus_mode: regs::DMA_BUS_MODE_RESET,
            tx_base: 0,
            rx_base: 0,
            cur_tx: 0,
            cur_rx: 0,
            status: 0,
            dma_control: 0,
            intr_ena: 0,
            riwt: 0,
            ts: regs::TS_STOPPED,
            tx_halted: false,
            rx_halted: false,
            tx_fault: None,
            tx_stall: false,
            mdio_busy_until: 0,
            mdio_stuck: false,
            mdio_frames: 0,
            swr_until: 0,
            swr_stuck: false,
            riwt_at: None,
            sent: Vec::new(),
            partial: Vec::new(),
            rx_dropped: 0,
            rx_delivered: 0,
            rx_filtered: 0,
            line_mismatch: 0,
            split_last: false,
            pending_ls: Vec::new(),
            rx_queue: VecDeque::new(),
            rx_cur: None,
            phy: None,
            no_hw_feature: false,
            gmac_int_mask: 0,
            link_events: 0,
            mmc_intr: [0; 3],
            mmc_mask: [0; 3],
            flow_ctrl: 0,
            early_doorbell: false,
            swr_ns: SWR_NS,
            write_settle_ns: 0,
            last_write: [None; 6],
            lost_writes: 0,
            tx_lag_ns: 0,
            line_bps: DEFAULT_LINE_BPS,
            tx_inflight: VecDeque::new(),
            tx_wire_free_ns: 0,
        }
    }

    /// A TX DMA that lags the CPU by `lag_ns` (0, the default, is the instant model: every
    /// owned descriptor is written back inside the poll-demand or ST write that finds it,
    /// as in QEMU, and no wire time is modelled either).
    ///
    /// With a lag, a walk (poll demand, ST set) still fetches every owned descriptor at
    /// once (frame bytes, ES for an unreachable buffer), but writes none back. Each gets a
    /// due time: `max(fetch time + lag_ns, due time of the descriptor before it)` plus its
    /// wire time at the [line rate](Self::with_line_rate): its buffer bytes, and on a
    /// frame's last descriptor the padding to 60 bytes, the FCS (4), preamble, SFD and IFG
    /// (20), × 8 / rate (rounded up to a ns). A 1514-byte frame takes 12.304 µs at
    /// 1 Gbit/s. At its due time, when time reaches it ([`sync`](Self::sync), which every
    /// register access and [`inject`](Self::inject) also do), the descriptor is written
    /// back (OWN clear, status), its frame recorded ([`SentFrame::at_ns`] is that time) and
    /// TI raised if it is a last descriptor with IC. While descriptors are in flight TS
    /// reads "running, waiting for status" (2) and a poll demand cannot be lost
    /// ([`lose_next_tx_doorbell`](Self::lose_next_tx_doorbell) needs an idle DMA); after
    /// each write-back the DMA looks at its current descriptor again at that time: an owned
    /// one is fetched (no poll demand needed while it runs), a descriptor still in flight
    /// (a full ring) waits, a free one with nothing left in flight raises TU and suspends.
    /// Stopping TX (ST cleared), a new list base, a TX fault or a reset abandon the
    /// descriptors in flight: they stay DMA-owned and their frames are not sent.
    pub fn with_tx_lag(mut self, lag_ns: u64) -> Self {
        self.tx_lag_ns = lag_ns;
        self
    }

    /// The line rate for the lagging DMA's wire time, bit/s (default 1 Gbit/s; ignored by
    /// the instant model; 0 counts as 1 bit/s).
    pub fn with_line_rate(mut self, bits_per_s: u64) -> Self {
        self.line_bps = bits_per_s;
        self
    }

    /// The TX fetch latency set by [`with_tx_lag`](Self::with_tx_lag).
    pub fn tx_lag(&self) -> u64 {
        self.tx_lag_ns
    }

    /// TX descriptors fetched and not yet written back (always 0 without a lag).
    pub fn tx_in_flight(&self) -> usize {
        self.tx_inflight.len()
    }

    /// When the next TX descriptor in flight is written back, if one is.
    pub fn tx_next_due(&self) -> Option<u64> {
        self.tx_inflight.front().map(|e| e.due_ns)
    }

    /// The next time something happens by time alone: the RX watchdog's deadline or the
    /// next TX write-back.
    pub fn next_event_ns(&self) -> Option<u64> {
        match (self.riwt_at, self.tx_next_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The STM32F4/F7 "successive write operations to the same register might not be
    /// fully taken into account" erratum (ST ES0290 / ES0334 2.16.5): a write to
    /// GMAC_CONTROL, GMAC_FRAME_FILTER, GMAC_FLOW_CTRL, DMA_BUS_MODE, DMA_CONTROL or
    /// DMA_INTR_ENA that comes less than `ns` after the previous write to the same register
    /// is lost (the first still crosses into the MII clock domain; ST: 4 TX_CLK/RX_CLK
    /// cycles, 1.6 µs at 10 Mbit/s). 0 turns it off (the default).
    pub fn set_successive_write_erratum(&mut self, ns: u64) {
        self.write_settle_ns = ns;
    }

    /// Writes lost to [`set_successive_write_erratum`](Self::set_successive_write_erratum).
    pub fn lost_writes(&self) -> u64 {
        self.lost_writes
    }

    /// Whether the erratum swallows this write (and record it).
    fn write_lost(&mut self, now_ns: u64, offset: usize) -> bool {
        let slot = match offset {
            0x00 => 0,
            0x04 => 1,
            0x18 => 2,
            0x1000 => 3,
            0x1018 => 4,
            0x101C => 5,
            _ => return false,
        };
        let Some(last) = self.last_write.get_mut(slot) else {
            return false;
        };
        let lost = self.write_settle_ns != 0
            && last.is_some_and(|t| now_ns.saturating_sub(t) < self.write_settle_ns);
        if lost {
            self.lost_writes += 1;
        } else {
            *last = Some(now_ns);
        }
        lost
    }

    /// A reset that takes `ns` of virtual time (default [`SWR_NS`]; a slow or late PHY
    /// clock on silicon keeps SWR set for tens of milliseconds).
    pub fn with_reset_time(mut self, ns: u64) -> Self {
        self.swr_ns = ns;
        self
    }

    /// Deliver `frame` as [`inject`](Self::inject) does, with `error` reported in its last
    /// descriptor's RDES0. Only that bit is set: which errors ES (bit 15) summarises
    /// differs between the databook's descriptor tables and is not relied on here (Linux
    /// `ndesc_get_rx_status` checks LE and RE on their own).
    pub fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError) {
        let bit = match error {
            RxWireError::Length => 1 << 12,
            RxWireError::Mii => 1 << 3,
        };
        let split = self.split_last;
        self.split_last = true;
        let before = self.pending_ls.len();
        self.inject(now_ns, frame);
        for e in self.pending_ls.iter_mut().skip(before) {
            e.1 |= bit;
        }
        self.split_last = split;
        if !split {
            self.complete_rx_writes();
        }
    }

    /// The next TX poll demand overtakes the descriptor store that gave OWN (fault
    /// injection: a store still in an outer cache's store buffer, e.g. a PL310 without
    /// CACHE_SYNC): the DMA reads the descriptor as not owned, raises TU and suspends;
    /// the descriptor stays owned until another poll demand (or ST write) makes it look.
    pub fn lose_next_tx_doorbell(&mut self) {
        self.early_doorbell = true;
    }

    /// An MMC counter passes half range (fault injection; about 17 s of traffic at
    /// 1 Gbit/s on a 32-bit octet counter): `which` 0 = an RX counter, 1 = TX, 2 = RX
    /// checksum offload. Its interrupt bit stays set until the MMC counters are read.
    pub fn raise_mmc_half_range(&mut self, which: usize) {
        if let Some(w) = self.mmc_intr.get_mut(which) {
            *w |= 1;
        }
    }

    /// An RGMII/SMII link change and a PCS link change (fault injection): GMAC_INT_STATUS
    /// bits 0 and 1, cleared only by reading the RGMII status (0xD8) and PCS AN status
    /// (0xC4) registers.
    pub fn raise_link_event(&mut self) {
        self.link_events |= 0b11;
    }

    /// GMAC_INT_STATUS: link events, and the MMC summaries of the *unmasked* MMC sources.
    pub(super) fn gmac_int_status(&self) -> u32 {
        let mut v = self.link_events;
        for (i, (intr, mask)) in self.mmc_intr.iter().zip(self.mmc_mask).enumerate() {
            if intr & !mask != 0 {
                v |= (1 << 5 << i) | (1 << 4);
            }
        }
        v
    }

    /// DMA_STATUS GLI (26), GMI (27), GPI (28): the MAC's interrupts the mask lets through.
    /// They are not gated by DMA_INTR_ENA and a write to DMA_STATUS does not clear them.
    pub(super) fn mac_summaries(&self) -> u32 {
        let st = self.gmac_int_status();
        let unmasked = st & !self.gmac_int_mask;
        let mut v = 0;
        if unmasked & 0b111 != 0 {
            v |= regs::DMA_STATUS_GLI;
        }
        // MMCIS is not maskable in GMAC_INT_MASK (only in the MMC block).
        if st & (1 << 4) != 0 {
            v |= regs::DMA_STATUS_GMI;
        }
        if unmasked & (1 << 3) != 0 {
            v |= regs::DMA_STATUS_GPI;
        }
        v
    }

    /// GMAC_FLOW_CTRL as written.
    pub fn flow_ctrl(&self) -> u32 {
        self.flow_ctrl
    }

    /// A core older than 3.50a: DMA_HW_FEATURE reads 0.
    pub fn without_hw_feature(mut self) -> Self {
        self.no_hw_feature = true;
        self
    }

    /// A core synthesised with `layout` descriptors (HW_FEATURE.ENHDESSEL follows).
    pub fn with_layout(mut self, layout: DescLayout) -> Self {
        self.layout = layout;
        self
    }

    /// A DMA bus of `bytes` (the unit of DSL; default 4).
    pub fn with_bus_width(mut self, bytes: u32) -> Self {
        self.bus_width = bytes;
        self
    }

    /// Check frames against the link `phy` negotiated (see the [module docs](crate::sim)).
    pub fn with_phy(mut self, phy: AnPhy) -> Self {
        self.phy = Some(phy);
        self
    }

    /// Frames sent so far.
    pub fn sent(&self) -> &[SentFrame] {
        &self.sent
    }

    /// Forget the sent frames (long runs).
    pub fn clear_sent(&mut self) {
        self.sent.clear();
    }

    /// Frames dropped for want of an RX descriptor (RU) or with RX stopped.
    pub fn rx_dropped(&self) -> u64 {
        self.rx_dropped
    }

    /// Frames delivered into RX descriptors (completely).
    pub fn rx_delivered(&self) -> u64 {
        self.rx_delivered
    }

    /// Frames the address filter dropped.
    pub fn rx_filtered(&self) -> u64 {
        self.rx_filtered
    }

    /// Frames lost because GMAC_CONTROL did not match the PHY's link.
    pub fn line_mismatch(&self) -> u64 {
        self.line_mismatch
    }

    /// MDIO frames performed.
    pub fn mdio_frames(&self) -> u64 {
        self.mdio_frames
    }

    /// The MDIO device.
    pub fn mdio_device(&mut self) -> &mut D {
        &mut self.mdio
    }

    /// Keep MII_ADDR.GB set forever (fault injection).
    pub fn set_mdio_stuck(&mut self, stuck: bool) {
        self.mdio_stuck = stuck;
    }

    /// Keep DMA_BUS_MODE.SWR set forever (fault injection: no PHY clock).
    pub fn set_swr_stuck(&mut self, stuck: bool) {
        self.swr_stuck = stuck;
    }

    /// The next TX walk that finds an owned descriptor fails with `fault` instead.
    pub fn fail_tx(&mut self, fault: TxFault) {
        self.tx_fault = Some(fault);
    }

    /// While set, the TX DMA stays running (TS = reading) but sends nothing: a slow link.
    /// Clearing it at `now_ns` lets the DMA go on at once.
    pub fn set_tx_stall(&mut self, now_ns: u64, stall: bool) {
        self.tx_stall = stall;
        if !stall {
            self.tx_walk(now_ns);
        }
    }

    /// Write a frame's last RX descriptor twice, first OWN clear without LS, the LS write
    /// only at [`complete_rx_writes`](Self::complete_rx_writes) (QEMU's npcm-gmac from its
    /// I/O thread).
    pub fn set_split_last_write(&mut self, split: bool) {
        self.split_last = split;
    }

    /// Perform the LS writes held back by [`set_split_last_write`](Self::set_split_last_write).
    pub fn complete_rx_writes(&mut self) {
        for (d, st) in core::mem::take(&mut self.pending_ls) {
            self.arena.write_u32(d, st);
        }
    }

    /// Raw DMA_STATUS bits 0–16 (without TS/RS), after applying time-based events.
    pub fn raw_status(&mut self, now_ns: u64) -> u32 {
        self.sync(now_ns);
        self.status
    }

    /// When the RX watchdog will raise RI, if armed.
    pub fn riwt_deadline(&self) -> Option<u64> {
        self.riwt_at
    }

    /// Whether the interrupt line is asserted (STATUS & INTR_ENA, summaries).
    pub fn irq_pending(&mut self, now_ns: u64) -> bool {
        self.sync(now_ns);
        self.summarised() & self.intr_ena & ((1 << 16) | (1 << 15)) != 0
            || self.mac_summaries() != 0
    }

    /// GMAC_CONTROL as written.
    pub fn control(&self) -> u32 {
        self.control
    }

    /// DMA_BUS_MODE as written.
    pub fn bus_mode(&self) -> u32 {
        self.bus_mode
    }

    pub(super) fn hw_feature(&self) -> u32 {
        if self.no_hw_feature {
            return 0;
        }
        match self.layout {
            DescLayout::Normal => HW_FEATURE,
            DescLayout::Enhanced => HW_FEATURE | regs::HW_FEATURE_ENHDESSEL,
        }
    }

    pub(super) fn stride(&self) -> u32 {
        16 + ((self.bus_mode >> 2) & 0x1F) * self.bus_width
    }

    pub(super) fn rx_running(&self) -> bool {
        self.control & (1 << 2) != 0 && self.dma_control & (1 << 1) != 0 && !self.rx_halted
    }

    /// Apply what time alone does up to `now_ns`: the RX watchdog raises RI, and the
    /// lagging TX DMA writes back the descriptors due by then (see
    /// [`with_tx_lag`](Self::with_tx_lag)). Every register access and
    /// [`inject`](Self::inject) do this first; call it before the CPU reads descriptor
    /// memory after time passed without one (a cleanup-timer interrupt, say).
    pub fn sync(&mut self, now_ns: u64) {
        if let Some(at) = self.riwt_at
            && now_ns >= at
        {
            self.status |= 1 << 6;
            self.riwt_at = None;
        }
        if !self.tx_inflight.is_empty() {
            self.tx_complete_due(now_ns);
        }
    }

    pub(super) fn summarised(&self) -> u32 {
        const NORMAL: u32 = (1 << 0) | (1 << 2) | (1 << 6) | (1 << 14);
        const ABNORMAL: u32 = (1 << 1)
            | (1 << 3)
            | (1 << 4)
            | (1 << 5)
            | (1 << 7)
            | (1 << 8)
            | (1 << 9)
            | (1 << 10)
            | (1 << 13);
        let mut s = self.status;
        if s & NORMAL & self.intr_ena != 0 {
            s |= 1 << 16;
        }
        if s & ABNORMAL & self.intr_ena != 0 {
            s |= 1 << 15;
        }
        s
    }

    /// Log a poll demand with what the DMA finds at its current descriptor.
    fn doorbell(&self, ring: Ring) {
        let desc = match ring {
            Ring::Tx => self.cur_tx,
            Ring::Rx => self.cur_rx,
        };
        let des0 = self.arena.read_u32(desc).unwrap_or(0);
        self.arena.note(Seen::Doorbell { ring, desc, des0 });
    }

    pub(super) fn reset(&mut self) {
        self.control = 0;
        self.frame_filter = 0;
        self.hash = [0; 2];
        self.mii_addr = 0;
        self.mii_data = 0;
        self.addr_hi = 0x8000_FFFF;
        self.addr_lo = 0xFFFF_FFFF;
        self.bus_mode = regs::DMA_BUS_MODE_RESET;
        self.tx_base = 0;
        self.rx_base = 0;
        self.cur_tx = 0;
        self.cur_rx = 0;
        self.status = 0;
        self.dma_control = 0;
        self.intr_ena = 0;
        self.riwt = 0;
        self.ts = regs::TS_STOPPED;
        self.tx_halted = false;
        self.rx_halted = false;
        self.riwt_at = None;
        self.gmac_int_mask = 0;
        self.mmc_mask = [0; 3];
        self.flow_ctrl = 0;
        self.partial.clear();
        self.rx_queue.clear();
        self.rx_cur = None;
        self.tx_abandon_in_flight();
    }
}

/// What the model does by time alone, as an [`IrqSource`]: the RX watchdog (RIWT) and,
/// with a [TX lag](DwmacModel::with_tx_lag), the TX write-backs.
/// `advance_to_next` moves the bus's clock to the earlier of the watchdog's deadline (RI
/// is raised there) and the next TX write-back (TI if it has IC; one without IC raises
/// nothing, but its descriptor is free from then on), applies it
/// ([`DwmacModel::sync`]) and returns that time; `None` when neither is pending. Every
/// other interrupt of the model happens inside a register write or
/// [`DwmacModel::inject`].
#[derive(Clone, Copy)]
pub struct DwmacIrq<'a, D: MdioDevice>(pub &'a SimBus<DwmacModel<D>>);

impl<D: MdioDevice> IrqSource for DwmacIrq<'_, D> {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.0.model(|m| m.next_event_ns())?;
        self.0.clock().advance_to(at);
        self.0.model(|m| m.sync(at));
        Some(at)
    }
}

impl<D: MdioDevice> SimModel for DwmacModel<D> {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.sync(now_ns);
        match offset {
            0x00 => self.control,
            0x04 => self.frame_filter,
            0x08 => self.hash[1],
            0x0C => self.hash[0],
            0x10 => {
                let busy = self.mdio_stuck || now_ns < self.mdio_busy_until;
                (self.mii_addr & !1) | u32::from(busy)
            }
            0x14 => self.mii_data,
            0x18 => self.flow_ctrl,
            0x20 => VERSION,
            0x38 => self.gmac_int_status(),
            0x3C => self.gmac_int_mask,
            0xC4 => {
                self.link_events &= !(1 << 1);
                0
            }
            0xD8 => {
                self.link_events &= !1;
                0
            }
            0x10C => self.mmc_mask[0],
            0x110 => self.mmc_mask[1],
            0x200 => self.mmc_mask[2],
            0x114..=0x1FC | 0x210..=0x2FC => {
                // An MMC counter read clears the interrupt it raised (every counter reads
                // 0 in the model).
                self.mmc_intr = [0; 3];
                0
            }
            0x40 => self.addr_hi,
            0x44 => self.addr_lo,
            0x1000 => {
                let busy = self.swr_stuck || now_ns < self.swr_until;
                (self.bus_mode & !1) | u32::from(busy)
            }
            0x100C => self.rx_base,
            0x1010 => self.tx_base,
            0x1014 => {
                let rs = if self.dma_control & (1 << 1) == 0 || self.rx_halted {
                    0
                } else if self
                    .arena
                    .read_u32(self.cur_rx)
                    .is_some_and(|d| d & OWN != 0)
                {
                    regs::RS_WAITING
                } else {
                    regs::RS_SUSPENDED
                };
                let ts = if self.dma_control & (1 << 13) == 0 {
                    regs::TS_STOPPED
                } else {
                    self.ts
                };
                self.summarised() | rs << 17 | ts << 20 | self.mac_summaries()
            }
            0x1018 => self.dma_control,
            0x101C => self.intr_ena,
            0x1024 => self.riwt,
            0x1048 => self.cur_tx,
            0x104C => self.cur_rx,
            0x1058 => self.hw_feature(),
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        self.sync(now_ns);
        if self.write_lost(now_ns, offset) {
            return;
        }
        match offset {
            0x00 => {
                self.control = value;
                self.deliver(now_ns);
            }
            0x04 => self.frame_filter = value,
            0x08 => self.hash[1] = value,
            0x0C => self.hash[0] = value,
            0x10 => {
                if self.mdio_stuck || now_ns < self.mdio_busy_until || value & 1 == 0 {
                    self.mii_addr = value & !1;
                    return;
                }
                self.mii_addr = value;
                let div = regs::cr_divider((value >> 2) & 0xF).unwrap_or(42);
                let mdc = (self.csr_hz / div).max(1);
                let done = now_ns.saturating_add(mdio_bus::frame_ns(mdc));
                self.mdio_busy_until = done;
                self.mdio_frames += 1;
                let phy = PhyAddr::from_bits(((value >> 11) & 0x1F) as u8);
                let reg = RegAddr::from_bits(((value >> 6) & 0x1F) as u8);
                if value & 2 != 0 {
                    self.mdio
                        .write(done, phy, reg, (self.mii_data & 0xFFFF) as u16);
                } else {
                    self.mii_data = u32::from(self.mdio.read(done, phy, reg));
                }
            }
            0x14 => self.mii_data = value & 0xFFFF,
            0x18 => self.flow_ctrl = value,
            0x3C => self.gmac_int_mask = value & 0x60F,
            0x10C => self.mmc_mask[0] = value,
            0x110 => self.mmc_mask[1] = value,
            0x200 => self.mmc_mask[2] = value,
            0x40 => self.addr_hi = value,
            0x44 => self.addr_lo = value,
            0x1000 => {
                if value & 1 != 0 {
                    self.reset();
                    self.swr_until = now_ns.saturating_add(self.swr_ns);
                } else {
                    self.bus_mode = value;
                }
            }
            0x1004 => {
                self.doorbell(Ring::Tx);
                if core::mem::take(&mut self.early_doorbell)
                    && self.dma_control & (1 << 13) != 0
                    && !self.tx_halted
                    && self.tx_inflight.is_empty()
                {
                    self.status |= 1 << 2; // TU: it found no descriptor it owns
                    self.ts = regs::TS_SUSPENDED;
                    return;
                }
                self.tx_walk(now_ns);
            }
            0x1008 => {
                self.doorbell(Ring::Rx);
                // RU stays set until written 1 (W1C), as in QEMU.
                self.complete_rx_writes();
                self.deliver(now_ns);
            }
            0x100C => {
                self.rx_base = value;
                self.cur_rx = value;
            }
            0x1010 => {
                self.tx_base = value;
                self.cur_tx = value;
                self.tx_abandon_in_flight();
            }
            0x1014 => self.status &= !(value & regs::DMA_STATUS_W1C),
            0x1018 => {
                let was = self.dma_control;
                self.dma_control = value;
                if value & (1 << 13) != 0 && was & (1 << 13) == 0 {
                    self.tx_halted = false;
                }
                if value & (1 << 13) == 0 && was & (1 << 13) != 0 {
                    self.tx_abandon_in_flight();
                }
                if value & (1 << 1) != 0 && was & (1 << 1) == 0 {
                    self.rx_halted = false;
                }
                if value & (1 << 1) == 0 && was & (1 << 1) != 0 && self.rx_cur.take().is_some() {
                    // Stopping RX abandons the frame that was waiting for descriptors.
                    self.rx_dropped += 1;
                }
                if value & (1 << 13) != 0 {
                    self.tx_walk(now_ns);
                }
                self.deliver(now_ns);
            }
            0x101C => self.intr_ena = value,
            0x1024 => self.riwt = value & 0xFF,
            _ => {}
        }
    }
}
