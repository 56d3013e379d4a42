//! The DWMAC model's registers ([`Gmac3Model`]): construction and fault injection, the
//! register map, reset, the interrupt status and the RX watchdog, MDIO.

use std::collections::VecDeque;
use std::vec::Vec;

use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use super::engine::{self, Engine};
use super::gmac3_dma::{RxInFlight, TxInFlight};
use super::gmac3_map::{self as m, OWN};
use super::{HW_FEATURE, Ring, Seen, SimArena, VERSION};
use crate::DescLayout;

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

/// A TX fault to inject ([`Gmac3Model::fail_tx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxFault {
    /// The TX process stops (TPS).
    Stop,
    /// Underflow (UNF) and the TX process stops (TPS).
    Underflow,
    /// Fatal bus error (FBI): both processes stop.
    BusError,
}

/// A receive error the line or the MAC reports in RDES0 ([`Gmac3Model::inject_with_error`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxWireError {
    /// LE (RDES0 bit 12): an 802.3 length field that disagrees with the frame received.
    Length,
    /// RE (RDES0 bit 3): the PHY signalled RX_ER (an MII/GMII receive error) in the frame.
    Mii,
    /// CE (RDES0 bit 1) with ES: the FCS did not match.
    Crc,
    /// Dribble (RDES0 bit 2) with CE and ES: an odd number of nibbles, the FCS then wrong.
    Dribble,
    /// OE (RDES0 bit 11) with ES: the RX FIFO overflowed during the frame.
    Overflow,
    /// RWT (RDES0 bit 4) with ES: the receive watchdog cut a jabbering frame.
    Watchdog,
}

/// The behavioural DWMAC; see the [module docs](crate::sim).
pub struct Gmac3Model<D: MdioDevice> {
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
    pub(super) split_last: bool,
    pub(super) pending_ls: Vec<(u32, u32)>,
    pub(super) rx_queue: VecDeque<Vec<u8>>,
    pub(super) rx_cur: Option<RxInFlight>,
    pub(super) no_hw_feature: bool,
    /// The checksum offload engines (TX insertion, RX checking) exist.
    pub(super) coe: bool,
    /// The engines do their work (off: a bench counting only the CPU's instructions).
    pub(super) coe_work: bool,
    /// A checksum error the RX engine reports also raises ES (as Linux observed).
    pub(super) csum_es: bool,
    /// The next injected frame is not padded ([`Gmac3Model::inject_runt`]).
    pub(super) runt_next: bool,
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
    /// STM32F4/F7 erratum: a write within this many ns of the previous write to the same
    /// register is lost (0 = off).
    pub(super) write_settle_ns: u64,
    /// Last write time of GMAC_CONTROL, GMAC_FRAME_FILTER, GMAC_FLOW_CTRL, DMA_BUS_MODE,
    /// DMA_CONTROL, DMA_INTR_ENA.
    pub(super) last_write: [Option<u64>; 6],
    /// Writes the erratum swallowed.
    pub(super) lost_writes: u64,
    /// Descriptors the lagging TX DMA has fetched and not written back yet, oldest first
    /// (due times never decrease).
    pub(super) tx_inflight: VecDeque<TxInFlight>,
    /// DMA_MISSED_FRAME_CTR as it reads (cleared on read).
    pub(super) missed: u32,
    /// The RX FIFO's size in bytes (0: none, frames are dropped at RU as in QEMU).
    pub(super) rx_fifo: usize,
    /// The shared DMA engine state.
    pub(super) core: Engine<D>,
}

impl<D: MdioDevice> Gmac3Model<D> {
    engine::engine_api!();

    /// A model whose DMA sees `arena`, whose MDIO bus has `mdio` on it, clocked at `csr_hz`;
    /// normal descriptors, a 32-bit bus, no line check.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        Self {
            core: Engine::new(arena, mdio, csr_hz),
            layout: DescLayout::Normal,
            bus_width: 4,
            control: 0,
            frame_filter: 0,
            hash: [0; 2],
            mii_addr: 0,
            mii_data: 0,
            addr_hi: 0x8000_FFFF,
            addr_lo: 0xFFFF_FFFF,
            bus_mode: m::BUS_MODE_RESET,
            tx_base: 0,
            rx_base: 0,
            cur_tx: 0,
            cur_rx: 0,
            status: 0,
            dma_control: 0,
            intr_ena: 0,
            riwt: 0,
            ts: m::TS_STOPPED,
            tx_halted: false,
            rx_halted: false,
            tx_fault: None,
            tx_stall: false,
            split_last: false,
            pending_ls: Vec::new(),
            rx_queue: VecDeque::new(),
            rx_cur: None,
            no_hw_feature: false,
            coe: true,
            coe_work: true,
            csum_es: true,
            runt_next: false,
            gmac_int_mask: 0,
            link_events: 0,
            mmc_intr: [0; 3],
            mmc_mask: [0; 3],
            flow_ctrl: 0,
            early_doorbell: false,
            write_settle_ns: 0,
            last_write: [None; 6],
            lost_writes: 0,
            tx_inflight: VecDeque::new(),
            missed: 0,
            rx_fifo: 0,
        }
    }

    /// An RX FIFO of `bytes` (0, the default, models none, as QEMU's npcm-gmac: a frame
    /// finding no descriptor is dropped at once). With a FIFO, frames that find no
    /// descriptor wait in it (RU raised, the RX DMA suspended) until a poll demand, and a
    /// frame that does not fit in what is left is lost and counted in
    /// DMA_MISSED_FRAME_CTR's overflow counter; DMA_CONTROL.EFC flow control sends PAUSE
    /// frames from its fill (see `flow_check`).
    pub fn with_rx_fifo(mut self, bytes: usize) -> Self {
        self.rx_fifo = bytes;
        self
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
        self.core.next_event_ns(self.tx_next_due())
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

    /// Deliver `frame` as [`inject`](Self::inject) does, with `error` reported in its last
    /// descriptor's RDES0. Only that bit is set: which errors ES (bit 15) summarises
    /// differs between the databook's descriptor tables and is not relied on here (Linux
    /// `ndesc_get_rx_status` checks LE and RE on their own).
    pub fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError) {
        let es = m::RDES0_ES;
        let bit = match error {
            RxWireError::Length => 1 << 12,
            RxWireError::Mii => 1 << 3,
            RxWireError::Crc => es | m::RDES0_CE,
            RxWireError::Dribble => es | m::RDES0_CE | m::RDES0_DRIBBLE,
            RxWireError::Overflow => es | m::RDES0_OE,
            RxWireError::Watchdog => es | m::RDES0_RWT,
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
            v |= m::ST_GLI;
        }
        // MMCIS is not maskable in GMAC_INT_MASK (only in the MMC block).
        if st & (1 << 4) != 0 {
            v |= m::ST_GMI;
        }
        if unmasked & (1 << 3) != 0 {
            v |= m::ST_GPI;
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

    /// A core synthesised with `layout` descriptors (HW_FEATURE.ENHDESSEL follows). A 3.x
    /// core has no QoS descriptors: [`DescLayout::Qos`] leaves the layout as it was (the
    /// 4.x core is [`QosModel`](crate::sim::QosModel)).
    pub fn with_layout(mut self, layout: DescLayout) -> Self {
        if !layout.is_qos() {
            self.layout = layout;
        }
        self
    }

    /// A DMA bus of `bytes` (the unit of DSL; default 4).
    pub fn with_bus_width(mut self, bytes: u32) -> Self {
        self.bus_width = bytes;
        self
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
            self.core.arena.write_u32(d, st);
        }
    }

    /// Raw DMA_STATUS bits 0–16 (without TS/RS), after applying time-based events.
    pub fn raw_status(&mut self, now_ns: u64) -> u32 {
        self.sync(now_ns);
        self.status
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
        let coe = if self.coe {
            0
        } else {
            m::HWF_TXCOESEL | m::HWF_RXTYP1COE | m::HWF_RXTYP2COE
        };
        match self.layout {
            DescLayout::Normal | DescLayout::Qos => HW_FEATURE & !coe,
            DescLayout::Enhanced => (HW_FEATURE | m::HWF_ENHDESSEL) & !coe,
        }
    }

    /// A core synthesised without the checksum offload engines: HW_FEATURE's TXCOESEL and
    /// RXTYP1COE/RXTYP2COE read 0, GMAC_CONTROL.IPC reads back 0, CIC is ignored.
    pub fn without_coe(mut self) -> Self {
        self.coe = false;
        self
    }

    /// Whether the checksum engines compute anything (default `true`). `false` stands for
    /// engines that work for free: CIC inserts nothing and IPC reports every checksum good.
    /// For benches that count the CPU's instructions only (the model's own work would be
    /// counted as the CPU's otherwise); never for tests of the checksums.
    pub fn set_checksum_work(&mut self, on: bool) {
        self.coe_work = on;
    }

    /// Whether an RX checksum error the model reports also raises ES (default `true`: Linux's
    /// `enh_desc` notes that real cores set ES after a payload checksum error, which the
    /// databook's table does not list). `false` reports only RDES0 bits 7 / 0, as the
    /// databook's table reads.
    pub fn set_checksum_error_summary(&mut self, on: bool) {
        self.csum_es = on;
    }

    /// TX: the frame as the checksum engine leaves it, from CIC in the descriptor words of
    /// its last descriptor (the rings send single-descriptor frames; TDES1 28:27 normal,
    /// TDES0 23:22 enhanced), as QEMU's npcm-gmac does (CIC 1: the IPv4 header; 2 and 3:
    /// also TCP/UDP, and ICMP here, where QEMU's helper has none). Short frames are sent
    /// as they are, as QEMU's model does (a DWMAC pads them to 60 bytes unless DP is set;
    /// the model pads on the receiving side instead, see [`inject`](Self::inject)).
    pub(super) fn tx_offload(&self, des0: u32, des1: u32, mut frame: Vec<u8>) -> Vec<u8> {
        let l = self.desc_layout();
        let ctrl = if l.tx_ctrl_word == 0 { des0 } else { des1 };
        let cic = (ctrl >> l.cic_shift) & 3;
        if self.coe && self.coe_work && cic != 0 {
            insert_checksums(&mut frame, cic);
        }
        frame
    }

    /// RX: a frame shorter than 60 bytes (without FCS) arrives zero-padded to 60, as every
    /// 802.3 sender pads it (and QEMU's net layer pads what a NIC receives), unless it was
    /// injected as a runt ([`inject_runt`](Self::inject_runt)).
    pub(super) fn rx_pad(&mut self, frame: &mut Vec<u8>) {
        if !core::mem::take(&mut self.runt_next) && frame.len() < engine::MIN_FRAME {
            frame.resize(engine::MIN_FRAME, 0);
        }
    }

    /// Deliver `frame` as [`inject`](Self::inject) does, without padding it: a runt (a
    /// collision fragment, or a core with DMA_CONTROL.FUF set forwarding undersized frames).
    pub fn inject_runt(&mut self, now_ns: u64, frame: &[u8]) {
        self.runt_next = true;
        self.inject(now_ns, frame);
        self.runt_next = false;
    }

    /// RX: the RDES0 bits the checksum engine reports for `frame` (with its FCS) while
    /// GMAC_CONTROL.IPC is on: bit 7 for a wrong IPv4 header checksum, bit 0 for a wrong
    /// TCP/UDP/ICMP checksum (pseudo-header included; UDP checksum 0 is "none"; fragments
    /// are not checked), ES with them unless [`set_checksum_error_summary`]
    /// (Self::set_checksum_error_summary)(false). IPv6 and other frames: nothing.
    pub(super) fn rx_offload_status(control: u32, work: bool, csum_es: bool, frame: &[u8]) -> u32 {
        if control & m::CONTROL_IPC == 0 || !work {
            return 0;
        }
        let body = frame.get(..frame.len().saturating_sub(4)).unwrap_or(&[]);
        let (ip_bad, l4_bad) = check_checksums(body);
        let mut st = 0;
        if ip_bad {
            st |= m::RDES0_IPC_CSUM;
        }
        if l4_bad {
            st |= m::RDES0_PCE;
        }
        if st != 0 && csum_es {
            st |= m::RDES0_ES;
        }
        st
    }

    /// The distance between descriptors in ring mode: 16 bytes, or 32 with ATDS on
    /// enhanced descriptors (dwmac_dma.h `DMA_BUS_MODE_ATDS`: the alternate descriptor size
    /// of the extended enhanced descriptors, descs.h `struct dma_extended_desc`), plus
    /// DSL × the bus width (dwmac_dma.h `DMA_BUS_MODE_DSL_MASK`: "descriptor skip length").
    pub(super) fn stride(&self) -> u32 {
        let atds = self.layout == DescLayout::Enhanced && self.bus_mode & m::BUS_MODE_ATDS != 0;
        let size = if atds { 32 } else { 16 };
        size + ((self.bus_mode >> m::BUS_MODE_DSL_SHIFT) & 0x1F) * self.bus_width
    }

    /// The descriptor fields of the core's layout.
    pub(super) fn desc_layout(&self) -> &'static m::Layout3 {
        match self.layout {
            DescLayout::Enhanced => &m::ENHANCED,
            // A 3.x core never holds the QoS layout (`with_layout` refuses it).
            _ => &m::NORMAL,
        }
    }

    pub(super) fn rx_running(&self) -> bool {
        self.control & m::CONTROL_RE != 0
            && self.dma_control & m::CONTROL_SR != 0
            && !self.rx_halted
    }

    /// Apply what time alone does up to `now_ns`: the RX watchdog raises RI, and the
    /// lagging TX DMA writes back the descriptors due by then (see
    /// [`with_tx_lag`](Self::with_tx_lag)). Every register access and
    /// [`inject`](Self::inject) do this first; call it before the CPU reads descriptor
    /// memory after time passed without one (a cleanup-timer interrupt, say).
    pub fn sync(&mut self, now_ns: u64) {
        self.core.last_ns = self.core.last_ns.max(now_ns);
        if let Some(at) = self.core.riwt_at
            && now_ns >= at
        {
            self.status |= m::ST_RI;
            self.core.riwt_at = None;
        }
        if !self.tx_inflight.is_empty() {
            self.tx_complete_due(now_ns);
        }
        self.stops_due(now_ns);
    }

    /// Finish the stops due by `now_ns`: a process whose ST (TX) or SR (RX) was cleared
    /// while it ran reaches the Stopped state (TS / RS 0) and raises TPS (bit 1) or RPS
    /// (bit 8) (dwmac_dma.h `DMA_STATUS_TPS` / `DMA_STATUS_RPS`: "transmit / receive
    /// process stopped"; RM0090 ETH_DMASR TPSS / RPSS "set when the transmit / receive
    /// process enters the Stopped state").
    pub(super) fn stops_due(&mut self, now_ns: u64) {
        let (tx, rx) = self.core.stops_due(now_ns);
        if tx {
            self.status |= m::ST_TPS;
            self.ts = m::TS_STOPPED;
        }
        if rx {
            self.status |= m::ST_RPS;
        }
    }

    /// DMA_STATUS bits 0–16: the raised sources, NIS as the OR of the *enabled* normal
    /// sources and AIS of the enabled abnormal ones (dwmac_dma.h `DMA_STATUS_NIS` /
    /// `DMA_STATUS_AIS` and their source lists; RM0090 ETH_DMASR NIS / AIS: only the
    /// sources enabled in ETH_DMAIER count).
    pub(super) fn summarised(&self) -> u32 {
        let mut s = self.status & !(m::ST_NIS | m::ST_AIS);
        if s & m::ST_NORMAL & self.intr_ena != 0 {
            s |= m::ST_NIS;
        }
        if s & m::ST_ABNORMAL & self.intr_ena != 0 {
            s |= m::ST_AIS;
        }
        s
    }

    /// Log a poll demand with what the DMA finds at its current descriptor.
    fn doorbell(&self, ring: Ring) {
        let desc = match ring {
            Ring::Tx => self.cur_tx,
            Ring::Rx => self.cur_rx,
        };
        let des0 = self.core.arena.read_u32(desc).unwrap_or(0);
        self.core.arena.note(Seen::Doorbell {
            ring,
            desc: u64::from(desc),
            des0,
        });
    }

    pub(super) fn reset(&mut self) {
        self.control = 0;
        self.frame_filter = 0;
        self.hash = [0; 2];
        self.mii_addr = 0;
        self.mii_data = 0;
        self.addr_hi = 0x8000_FFFF;
        self.addr_lo = 0xFFFF_FFFF;
        self.bus_mode = m::BUS_MODE_RESET;
        self.tx_base = 0;
        self.rx_base = 0;
        self.cur_tx = 0;
        self.cur_rx = 0;
        self.status = 0;
        self.dma_control = 0;
        self.intr_ena = 0;
        self.riwt = 0;
        self.ts = m::TS_STOPPED;
        self.tx_halted = false;
        self.rx_halted = false;
        self.core.riwt_at = None;
        self.gmac_int_mask = 0;
        self.mmc_mask = [0; 3];
        self.flow_ctrl = 0;
        self.core.partial.clear();
        self.rx_queue.clear();
        self.rx_cur = None;
        self.tx_abandon_in_flight();
        self.core.tx_stop_at = None;
        self.core.rx_stop_at = None;
        self.missed = 0;
        self.core.flow_state = engine::FlowState::default();
    }
}

/// What the model does by time alone, as an [`IrqSource`]: the RX watchdog (RIWT) and,
/// with a [TX lag](Gmac3Model::with_tx_lag), the TX write-backs.
/// `advance_to_next` moves the bus's clock to the earlier of the watchdog's deadline (RI
/// is raised there) and the next TX write-back (TI if it has IC; one without IC raises
/// nothing, but its descriptor is free from then on), applies it
/// ([`Gmac3Model::sync`]) and returns that time; `None` when neither is pending. Every
/// other interrupt of the model happens inside a register write or
/// [`Gmac3Model::inject`].
#[derive(Clone, Copy)]
pub struct Gmac3Irq<'a, D: MdioDevice>(pub &'a SimBus<Gmac3Model<D>>);

impl<D: MdioDevice> IrqSource for Gmac3Irq<'_, D> {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.0.model(|m| m.next_event_ns())?;
        self.0.clock().advance_to(at);
        self.0.model(|m| m.sync(at));
        Some(at)
    }
}

impl<D: MdioDevice> SimModel for Gmac3Model<D> {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.sync(now_ns);
        match offset {
            0x00 => self.control,
            0x04 => self.frame_filter,
            0x08 => self.hash[1],
            0x0C => self.hash[0],
            0x10 => {
                let busy = self.core.mdio_busy(now_ns);
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
                let busy = self.core.swr_busy(now_ns);
                (self.bus_mode & !1) | u32::from(busy)
            }
            0x100C => self.rx_base,
            0x1010 => self.tx_base,
            m::DMA_STATUS => {
                let rx_on = self.dma_control & m::CONTROL_SR != 0 || self.core.rx_stop_at.is_some();
                let rs = if !rx_on || self.rx_halted {
                    m::RS_STOPPED
                } else if self
                    .core
                    .arena
                    .read_u32(self.cur_rx)
                    .is_some_and(|d| d & OWN != 0)
                {
                    m::RS_WAITING
                } else {
                    m::RS_SUSPENDED
                };
                let tx_on = self.dma_control & m::CONTROL_ST != 0 || self.core.tx_stop_at.is_some();
                let ts = if !tx_on { m::TS_STOPPED } else { self.ts };
                self.summarised()
                    | rs << m::ST_RS_SHIFT
                    | ts << m::ST_TS_SHIFT
                    | self.mac_summaries()
            }
            0x1018 => self.dma_control,
            0x101C => self.intr_ena,
            m::DMA_MISSED_FRAME_CTR => core::mem::take(&mut self.missed),
            m::DMA_RX_WATCHDOG => self.riwt,
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
                self.control = if self.coe {
                    value
                } else {
                    value & !m::CONTROL_IPC
                };
                self.deliver(now_ns);
            }
            0x04 => self.frame_filter = value,
            0x08 => self.hash[1] = value,
            0x0C => self.hash[0] = value,
            0x10 => {
                if self.core.mdio_busy(now_ns) || value & m::MII_GB == 0 {
                    self.mii_addr = value & !1;
                    return;
                }
                self.mii_addr = value;
                let div = m::mdc_divider((value >> m::MII_CR_SHIFT) & 0xF);
                let done = now_ns.saturating_add(self.core.mdio_frame_ns(div));
                self.core.mdio_busy_until = done;
                self.core.mdio_frames += 1;
                let phy = PhyAddr::from_bits(((value >> 11) & 0x1F) as u8);
                let reg = RegAddr::from_bits(((value >> 6) & 0x1F) as u8);
                if value & 2 != 0 {
                    self.core
                        .mdio
                        .write(done, phy, reg, (self.mii_data & 0xFFFF) as u16);
                } else {
                    self.mii_data = u32::from(self.core.mdio.read(done, phy, reg));
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
                    self.core.swr_until = now_ns.saturating_add(self.core.swr_ns);
                } else {
                    self.bus_mode = value;
                }
            }
            0x1004 => {
                self.doorbell(Ring::Tx);
                if core::mem::take(&mut self.early_doorbell)
                    && self.dma_control & m::CONTROL_ST != 0
                    && !self.tx_halted
                    && self.tx_inflight.is_empty()
                {
                    self.status |= m::ST_TU; // it found no descriptor it owns
                    self.ts = m::TS_SUSPENDED;
                    return;
                }
                self.tx_walk(now_ns);
            }
            0x1008 => {
                self.doorbell(Ring::Rx);
                // RU stays set until written 1 (W1C), as in QEMU.
                self.complete_rx_writes();
                self.deliver(now_ns);
                self.flow_check();
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
            0x1014 => self.status &= !(value & m::ST_W1C),
            0x1018 => {
                let was = self.dma_control;
                self.dma_control = value;
                let (st, sr) = (m::CONTROL_ST, m::CONTROL_SR);
                if value & st != 0 && was & st == 0 {
                    // A stop still on its way completes first (TPS), then the restart.
                    if self.core.tx_stop_at.take().is_some() {
                        self.status |= m::ST_TPS;
                    }
                    self.tx_halted = false;
                }
                if value & st == 0 && was & st != 0 {
                    self.tx_abandon_in_flight();
                    if !self.tx_halted {
                        // A running or suspended process: Stopped (and TPS) a little later.
                        self.core.tx_stop_at = self.core.stop_at(now_ns);
                    }
                }
                if value & sr != 0 && was & sr == 0 {
                    if self.core.rx_stop_at.take().is_some() {
                        self.status |= m::ST_RPS;
                    }
                    self.rx_halted = false;
                }
                if value & sr == 0 && was & sr != 0 {
                    if self.rx_cur.take().is_some() {
                        // Stopping RX abandons the frame that was waiting for descriptors.
                        self.core.rx_dropped += 1;
                    }
                    if !self.rx_halted {
                        self.core.rx_stop_at = self.core.stop_at(now_ns);
                    }
                }
                self.stops_due(now_ns);
                if value & st != 0 {
                    self.tx_walk(now_ns);
                }
                self.deliver(now_ns);
            }
            0x101C => self.intr_ena = value,
            m::DMA_RX_WATCHDOG => self.riwt = value & 0xFF,
            _ => {}
        }
    }
}

/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of
/// `data` as big-endian 16-bit words (an odd byte padded with 0), starting from `sum`.
pub fn inet_checksum(sum: u32, data: &[u8]) -> u16 {
    let mut acc = u64::from(sum);
    let mut it = data.chunks_exact(2);
    for w in it.by_ref() {
        acc += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [b] = it.remainder() {
        acc += u64::from(*b) << 8;
    }
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// An IPv4 frame's parts: (header length, protocol, L4 range, pseudo-header sum,
/// fragment), or `None` when `frame` is not a well-formed untagged IPv4 frame.
fn ipv4_parts(frame: &[u8]) -> Option<(usize, u8, core::ops::Range<usize>, u32, bool)> {
    if frame.len() < 34 || frame[12..14] != [0x08, 0x00] || frame[14] >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(frame[14] & 0xF) * 4;
    let total = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
    if ihl < 20 || total < ihl || 14 + total > frame.len() {
        return None;
    }
    let frag = u16::from_be_bytes([frame[20], frame[21]]) & 0x3FFF != 0;
    let proto = frame[23];
    let l4 = 14 + ihl..14 + total;
    let mut pseudo: u32 = 0;
    for w in frame[26..34].chunks_exact(2) {
        pseudo += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    pseudo += u32::from(proto) + (total - ihl) as u32;
    Some((ihl, proto, l4, pseudo, frag))
}

/// Offset of the L4 checksum field inside the segment, and whether the pseudo-header is in.
fn l4_field(proto: u8) -> Option<(usize, bool)> {
    match proto {
        6 => Some((16, true)),
        17 => Some((6, true)),
        1 => Some((2, false)),
        _ => None,
    }
}

pub(super) fn insert_checksums(frame: &mut [u8], cic: u32) {
    let Some((ihl, proto, l4, pseudo, frag)) = ipv4_parts(frame) else {
        return;
    };
    frame[24] = 0;
    frame[25] = 0;
    let c = inet_checksum(0, &frame[14..14 + ihl]);
    frame[24..26].copy_from_slice(&c.to_be_bytes());
    if cic < 2 || frag {
        return;
    }
    let Some((at, with_pseudo)) = l4_field(proto) else {
        return;
    };
    if l4.len() < at + 2 {
        return;
    }
    let f = l4.start + at;
    // CIC 2: the field holds the pseudo-header sum the stack put there; 3: computed here.
    let init = if cic == 3 {
        frame[f] = 0;
        frame[f + 1] = 0;
        if with_pseudo { pseudo } else { 0 }
    } else {
        0
    };
    let mut c = inet_checksum(init, &frame[l4.clone()]);
    if proto == 17 && c == 0 {
        c = 0xFFFF;
    }
    frame[f..f + 2].copy_from_slice(&c.to_be_bytes());
}

/// (IPv4 header checksum wrong, TCP/UDP/ICMP checksum wrong) of a frame without FCS.
pub(super) fn check_checksums(frame: &[u8]) -> (bool, bool) {
    let Some((ihl, proto, l4, pseudo, frag)) = ipv4_parts(frame) else {
        return (false, false);
    };
    let ip_bad = inet_checksum(0, &frame[14..14 + ihl]) != 0;
    if frag {
        return (ip_bad, false);
    }
    let Some((at, with_pseudo)) = l4_field(proto) else {
        return (ip_bad, false);
    };
    if l4.len() < at + 2 {
        return (ip_bad, true);
    }
    let f = l4.start + at;
    if proto == 17 && frame[f..f + 2] == [0, 0] {
        return (ip_bad, false);
    }
    let init = if with_pseudo { pseudo } else { 0 };
    (ip_bad, inet_checksum(init, &frame[l4]) != 0)
}
