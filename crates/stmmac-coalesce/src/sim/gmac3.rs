//! The DWMAC model's registers ([`Gmac3Model`]): construction and fault injection, the
//! register map, reset, the interrupt status and the RX watchdog, MDIO.

use std::vec::Vec;

use mdio_bus::sim::MdioDevice;

use super::SimArena;
use super::engine::{self, Engine};
use super::gmac3_map as m;
use super::walk;
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
    pub(super) status: u32,
    pub(super) dma_control: u32,
    pub(super) intr_ena: u32,
    pub(super) riwt: u32,
    pub(super) tx_stall: bool,
    pub(super) no_hw_feature: bool,
    /// The checksum offload engines (TX insertion, RX checking) exist.
    pub(super) coe: bool,
    /// The engines do their work (off: a bench counting only the CPU's instructions).
    pub(super) coe_work: bool,
    /// A checksum error the RX engine reports also raises ES (as Linux observed).
    pub(super) csum_es: bool,
    /// The next injected frame is not padded ([`Gmac3Model::inject_runt`]).
    pub(super) runt_next: bool,
    /// RDES0 error bits for the next injected frame ([`Gmac3Model::inject_with_error`]).
    pub(super) next_error: u32,
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
            status: 0,
            dma_control: 0,
            intr_ena: 0,
            riwt: 0,
            tx_stall: false,
            no_hw_feature: false,
            coe: true,
            coe_work: true,
            csum_es: true,
            runt_next: false,
            next_error: 0,
            gmac_int_mask: 0,
            link_events: 0,
            mmc_intr: [0; 3],
            mmc_mask: [0; 3],
            flow_ctrl: 0,
            early_doorbell: false,
            write_settle_ns: 0,
            last_write: [None; 6],
            lost_writes: 0,
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
    pub(super) fn write_lost(&mut self, now_ns: u64, offset: usize) -> bool {
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
        self.next_error = bit;
        self.inject(now_ns, frame);
        self.next_error = 0;
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

    /// A core synthesised with `layout` descriptors (HW_FEATURE.ENHDESSEL follows). A GMAC 3.x
    /// core has no QoS descriptors: [`DescLayout::Qos`] leaves the layout as it was (the
    /// QoS 4.x/5.x core is [`QosModel`](crate::sim::QosModel)).
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

    /// While set, the TX DMA stays running (TS = reading) but sends nothing: a slow link.
    /// Clearing it at `now_ns` lets the DMA go on at once.
    pub fn set_tx_stall(&mut self, now_ns: u64, stall: bool) {
        self.tx_stall = stall;
        if !stall {
            walk::tx_walk(self, now_ns, true);
        }
    }

    /// Write a frame's last RX descriptor twice, first OWN clear without LS, the LS write
    /// only at [`complete_rx_writes`](Self::complete_rx_writes) (QEMU's npcm-gmac from its
    /// I/O thread).
    pub fn set_split_last_write(&mut self, split: bool) {
        self.core.split_last = split;
    }

    /// Perform the LS writes held back by [`set_split_last_write`](Self::set_split_last_write).
    pub fn complete_rx_writes(&mut self) {
        walk::complete_rx_writes(&mut self.core);
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
}
