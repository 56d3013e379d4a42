//! The GMAC 3.x model's register front-end ([`Gmac3Model`]): feature bits, checksum
//! offload decode, descriptor stride and layout, time-driven events, the DMA_STATUS
//! summaries, reset, and the [`SimModel`] read/write.

use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use super::engine::Summary;
use super::gmac3_map::{self as m, OWN};
use super::walk::{self, Front, TxState};
use super::{Gmac3Model, HW_FEATURE, Ring, VERSION};
use crate::DescLayout;

impl<D: MdioDevice> Gmac3Model<D> {
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

    /// Deliver `frame` as [`inject`](Self::inject) does, without padding it: a runt (a
    /// collision fragment, or a core with DMA_CONTROL.FUF set forwarding undersized frames).
    pub fn inject_runt(&mut self, now_ns: u64, frame: &[u8]) {
        self.runt_next = true;
        self.inject(now_ns, frame);
        self.runt_next = false;
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

    /// DMA_STATUS bits 0–16: the raised sources, NIS as the OR of the *enabled* normal
    /// sources and AIS of the enabled abnormal ones (dwmac_dma.h `DMA_STATUS_NIS` /
    /// `DMA_STATUS_AIS` and their source lists; RM0090 ETH_DMASR NIS / AIS: only the
    /// sources enabled in ETH_DMAIER count).
    pub(super) fn summarised(&self) -> u32 {
        Summary {
            nis: m::ST_NIS,
            ais: m::ST_AIS,
            normal: m::ST_NORMAL,
            abnormal: m::ST_ABNORMAL,
        }
        .apply(self.status, self.intr_ena)
    }

    /// Log a poll demand with what the DMA finds at its current descriptor.
    fn doorbell(&self, ring: Ring) {
        let desc = match ring {
            Ring::Tx => self.core.cur_tx,
            Ring::Rx => self.core.cur_rx,
        };
        self.core.note_doorbell(ring, desc, desc);
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
        self.status = 0;
        self.dma_control = 0;
        self.intr_ena = 0;
        self.riwt = 0;
        self.gmac_int_mask = 0;
        self.mmc_mask = [0; 3];
        self.flow_ctrl = 0;
        self.missed = 0;
        self.core.reset_dma();
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
                let c = &self.core;
                let rx_on = self.dma_control & m::CONTROL_SR != 0 || c.rx_stop_at.is_some();
                let rs = if !rx_on || c.rx_halted {
                    m::RS_STOPPED
                } else if c.arena.read_u32(c.cur_rx).is_some_and(|d| d & OWN != 0) {
                    m::RS_WAITING
                } else {
                    m::RS_SUSPENDED
                };
                let tx_on = self.dma_control & m::CONTROL_ST != 0 || c.tx_stop_at.is_some();
                let ts = match c.tx_state {
                    _ if !tx_on => m::TS_STOPPED,
                    TxState::Stopped => m::TS_STOPPED,
                    TxState::Suspended => m::TS_SUSPENDED,
                    TxState::WaitingStatus => m::TS_WAITING_STATUS,
                    TxState::Reading => m::TS_READING,
                };
                self.summarised()
                    | rs << m::ST_RS_SHIFT
                    | ts << m::ST_TS_SHIFT
                    | self.mac_summaries()
            }
            0x1018 => self.dma_control,
            0x101C => self.intr_ena,
            m::DMA_MISSED_FRAME_CTR => core::mem::take(&mut self.missed),
            m::DMA_RX_WATCHDOG => self.riwt,
            // The current descriptors: the 3.x bus is 32 bits wide.
            0x1048 => self.core.cur_tx as u32,
            0x104C => self.core.cur_rx as u32,
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
                walk::deliver(self, now_ns);
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
                    && Front::tx_running(self)
                    && self.core.tx_inflight.is_empty()
                {
                    self.status |= m::ST_TU; // it found no descriptor it owns
                    self.core.tx_state = TxState::Suspended;
                    return;
                }
                walk::tx_walk(self, now_ns, true);
            }
            0x1008 => {
                self.doorbell(Ring::Rx);
                // RU stays set until written 1 (W1C), as in QEMU.
                self.complete_rx_writes();
                walk::deliver(self, now_ns);
                self.flow_check();
            }
            0x100C => {
                self.rx_base = value;
                self.core.cur_rx = u64::from(value);
            }
            0x1010 => {
                self.tx_base = value;
                self.core.cur_tx = u64::from(value);
                self.core.tx_abandon();
            }
            0x1014 => self.status &= !(value & m::ST_W1C),
            0x1018 => {
                let was = self.dma_control;
                self.dma_control = value;
                let (st, sr) = (m::CONTROL_ST, m::CONTROL_SR);
                if (value ^ was) & st != 0 {
                    walk::tx_start_bit(self, now_ns, value & st != 0);
                }
                if (value ^ was) & sr != 0 {
                    walk::rx_start_bit(self, now_ns, value & sr != 0);
                }
                self.sync(now_ns);
                if value & st != 0 {
                    walk::tx_walk(self, now_ns, true);
                }
                walk::deliver(self, now_ns);
            }
            0x101C => self.intr_ena = value,
            m::DMA_RX_WATCHDOG => self.riwt = value & 0xFF,
            _ => {}
        }
    }
}
