//! The QoS 4.x/5.x model's register front-end ([`QosModel`]): address decode, the status
//! summaries, the version-dependent fields, MDIO, reset, and the [`SimModel`] read/write.

use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use mdio_bus::sim::MdioDevice;
use mdio_bus::{DevAddr, PhyAddr, RegAddr};

use super::engine::{Filter, Summary};
use super::qos::*;
use super::qos_map as q;
use super::walk;
use super::{QosModel, Ring};

impl<D: MdioDevice> QosModel<D> {
    pub(super) fn snpsver(&self) -> u32 {
        self.version & 0xFF
    }

    pub(super) fn addr_mask(&self) -> u64 {
        (1u64 << self.addr_bits) - 1
    }

    pub(super) fn eame(&self) -> bool {
        self.sysbus & EAME != 0
    }

    /// A bus address from (low, high) words: the high word only with EAME, cut to the
    /// core's address bits.
    pub(super) fn addr(&self, lo: u32, hi: u32) -> u64 {
        if self.eame() {
            ((u64::from(hi) << 32) | u64::from(lo)) & self.addr_mask()
        } else {
            u64::from(lo)
        }
    }

    pub(super) fn tx_base(&self) -> u64 {
        self.addr(self.tx_base[1], self.tx_base[0])
    }

    pub(super) fn rx_base(&self) -> u64 {
        self.addr(self.rx_base[1], self.rx_base[0])
    }

    /// The tail pointers hold the low 32 bits; the high bits are the list base's.
    pub(super) fn tx_tail(&self) -> u64 {
        self.addr(self.tx_tail, self.tx_base[0])
    }

    pub(super) fn rx_tail(&self) -> u64 {
        self.addr(self.rx_tail, self.rx_base[0])
    }

    pub(super) fn stride(&self) -> u64 {
        let dsl = (self.ch_control >> q::CH_DSL_SHIFT) & 7;
        16 + u64::from(dsl) * u64::from(self.bus_width)
    }

    pub(super) fn rx_buf_size(&self) -> usize {
        let b = (self.rx_control >> q::RX_RBSZ_SHIFT) & q::RX_RBSZ_MASK;
        (b - b % self.bus_width) as usize
    }

    pub(super) fn rx_queue_bytes(&self) -> u32 {
        let rqs = (self.rxq_op >> q::RXQ_RQS_SHIFT) & q::RXQ_RQS_MASK;
        ((rqs + 1) * 256).min(self.rx_fifo)
    }

    pub(super) fn txq_op_reset(&self) -> u32 {
        ((self.tx_fifo / 256).saturating_sub(1) & 0x1FF) << q::TXQ_TQS_SHIFT
    }

    pub(super) fn rxq_op_reset(&self) -> u32 {
        ((self.rx_fifo / 256).saturating_sub(1) & q::RXQ_RQS_MASK) << q::RXQ_RQS_SHIFT
    }

    pub(super) fn hw_feature0(&self) -> u32 {
        if self.coe {
            HW_FEATURE0_4
        } else {
            HW_FEATURE0_4 & !(q::HWF0_TXCOESEL | q::HWF0_RXCOESEL)
        }
    }

    pub(super) fn hw_feature1(&self) -> u32 {
        let log = |b: u32| (b / 128).trailing_zeros();
        let a = match self.addr_bits {
            40 => 1,
            48 => 2,
            _ => 0,
        };
        (HW_FEATURE1_4
            & !(q::HWF1_RXFIFOSIZE_MASK
                | (0x1F << q::HWF1_TXFIFOSIZE_SHIFT)
                | (3 << q::HWF1_HASHTBLSZ_SHIFT)))
            | log(self.rx_fifo)
            | (log(self.tx_fifo) << q::HWF1_TXFIFOSIZE_SHIFT)
            | (a << q::HWF1_ADDR64_SHIFT)
            | ((self.hash_bins / 32).trailing_zeros() << q::HWF1_HASHTBLSZ_SHIFT)
    }

    /// NIE and AIE at this version's positions.
    pub(super) fn summary_enables(&self) -> (u32, u32) {
        if self.snpsver() < 0x41 {
            (q::NIE_4_00, q::AIE_4_00)
        } else {
            (q::NIE_4_10, q::AIE_4_10)
        }
    }

    /// DMA_CH0_STATUS with its NIS / AIS summaries of the enabled sources.
    pub(super) fn summarised(&self) -> u32 {
        Summary {
            nis: q::CH_NIS,
            ais: q::CH_AIS,
            normal: q::CH_NORMAL,
            abnormal: q::CH_ABNORMAL,
        }
        .apply(self.status, self.intr_ena)
    }

    pub(super) fn line(&self) -> bool {
        let s = self.summarised();
        let (nie, aie) = self.summary_enables();
        s & q::CH_NIS != 0 && self.intr_ena & nie != 0
            || s & q::CH_AIS != 0 && self.intr_ena & aie != 0
    }

    /// The destination filter with the configured hash table: 64, 128 or 256 bins over
    /// MAC_HASH_TABLE_REG0..1, ..3 or ..7 (dwmac4.h `GMAC_HASH_TAB(x)`; Linux
    /// `dwmac4_set_filter`: bin = top log2(bins) bits of the bit-reversed CRC-32, register
    /// bin / 32, bit bin % 32).
    pub(super) fn accepts(&self, frame: &[u8]) -> bool {
        let ff = self.filter;
        let lo = self.addr_lo.to_le_bytes();
        let hi = self.addr_hi.to_le_bytes();
        let regs = (self.hash_bins / 32) as usize;
        Filter {
            pass_all: ff & (q::FILTER_PR | q::FILTER_RA) != 0,
            no_broadcast: ff & q::FILTER_DBF != 0,
            all_multicast: ff & q::FILTER_PM != 0,
            hash_multicast: ff & q::FILTER_HMC != 0,
            hash: self.hash.get(..regs).unwrap_or(&[]),
            hash_bits: self.hash_bins.trailing_zeros(),
            addr: [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]],
            addr_enabled: self.addr_hi & q::ADDR_AE != 0,
        }
        .accepts(frame)
    }

    /// DMA_CH0_MISS_FRAME_CNT's offset: +0x6C on 4.x cores, +0x64 from 5.00 on (see
    /// [`q::DMA_CH0_MISSED_4_10`] and [`q::DMA_CH0_MISSED_5_X`]).
    pub(super) fn missed_offset(&self) -> usize {
        if self.snpsver() >= 0x50 {
            q::DMA_CH0_MISSED_5_X
        } else {
            q::DMA_CH0_MISSED_4_10
        }
    }

    /// DMA_DEBUG_STATUS0: RPS0 (bits 11:8) and TPS0 (bits 15:12), the channel's process
    /// states (RT1170 DMA_DEBUG_STATUS0; dwmac4_dma.h `DMA_DEBUG_STATUS_0`): Stopped (0)
    /// once a stop completed or after a fatal error, otherwise running or suspended.
    pub(super) fn debug_status0(&self) -> u32 {
        let c = &self.core;
        let rx_on = (self.rx_control & SR != 0 || c.rx_stop_at.is_some()) && !c.rx_halted;
        let rps = if !rx_on {
            q::PS_STOPPED
        } else if c.cur_rx != self.rx_tail()
            && c.arena
                .read_u32(c.cur_rx + 12)
                .is_some_and(|d| d & q::OWN != 0)
        {
            q::RPS_WAITING
        } else {
            q::RPS_SUSPENDED
        };
        let tx_on = (self.tx_control & ST != 0 || c.tx_stop_at.is_some()) && !c.tx_halted;
        let tps = if !tx_on {
            q::PS_STOPPED
        } else if c.tx_inflight.is_empty() {
            q::TPS_SUSPENDED
        } else {
            q::TPS_WAITING_STATUS
        };
        rps << q::DEBUG_RPS0_SHIFT | tps << q::DEBUG_TPS0_SHIFT
    }

    pub(super) fn mdio_start(&mut self, now_ns: u64, value: u32) {
        self.mdio_addr = value;
        let cr = (value >> q::MDIO_CR_SHIFT) & 0xF;
        let div = q::mdc_divider(cr);
        let frame = self.core.mdio_frame_ns(div);
        let goc = (value >> q::MDIO_GOC_SHIFT) & 3;
        let read = goc & 2 != 0;
        if value & C45E != 0 {
            // Address frame (MAC_MDIO_DATA.RA into the MMD's address register), then the
            // data frame: GOC 1 write (GD), 3 read, 2 post-read-increment-address read.
            let addr_done = now_ns.saturating_add(frame);
            let done = addr_done.saturating_add(frame);
            self.core.mdio_busy_until = done;
            self.core.mdio_frames += 2;
            self.mdio_c45_frames += 1;
            let phy = PhyAddr::from_bits(((value >> q::MDIO_PA_SHIFT) & 0x1F) as u8);
            let devad = DevAddr::from_bits(((value >> q::MDIO_RDA_SHIFT) & 0x1F) as u8);
            let ra = (self.mdio_data >> 16) as u16;
            self.core.mdio.c45_address(addr_done, phy, devad, ra);
            let v = match goc {
                1 | 0 => {
                    self.core
                        .mdio
                        .c45_write(done, phy, devad, (self.mdio_data & 0xFFFF) as u16);
                    return;
                }
                2 => self.core.mdio.c45_read_inc(done, phy, devad),
                _ => self.core.mdio.c45_read(done, phy, devad),
            };
            self.mdio_data = (self.mdio_data & 0xFFFF_0000) | u32::from(v);
            return;
        }
        let done = now_ns.saturating_add(frame);
        self.core.mdio_busy_until = done;
        self.core.mdio_frames += 1;
        let phy = PhyAddr::from_bits(((value >> q::MDIO_PA_SHIFT) & 0x1F) as u8);
        let reg = RegAddr::from_bits(((value >> q::MDIO_RDA_SHIFT) & 0x1F) as u8);
        if read {
            let v = self.core.mdio.read(done, phy, reg);
            self.mdio_data = (self.mdio_data & 0xFFFF_0000) | u32::from(v);
        } else {
            self.core
                .mdio
                .write(done, phy, reg, (self.mdio_data & 0xFFFF) as u16);
        }
    }

    pub(super) fn reset(&mut self) {
        self.mac_config = 0;
        self.filter = 0;
        self.flow = [0; 2];
        self.hash = [0; 8];
        self.mtl_missed = 0;
        self.rxq_ctrl0 = 0;
        self.mdio_addr = 0;
        self.mdio_data = 0;
        self.addr_hi = q::ADDR_AE | 0xFFFF;
        self.addr_lo = 0xFFFF_FFFF;
        self.mmc_control = 0;
        self.mmc_mask = [0; 3];
        self.mtl_op = 0;
        self.mtl_map0 = 0;
        self.txq_op = self.txq_op_reset();
        self.rxq_op = self.rxq_op_reset();
        self.dma_mode = 0;
        self.sysbus = 0;
        self.ch_control = 0;
        self.tx_control = 0;
        self.rx_control = 0;
        self.tx_base = [0; 2];
        self.rx_base = [0; 2];
        self.tx_tail = 0;
        self.rx_tail = 0;
        self.tx_ring_len = 0;
        self.rx_ring_len = 0;
        self.intr_ena = 0;
        self.rx_watchdog = 0;
        self.status = 0;
        self.missed = 0;
        self.core.reset_dma();
    }
}

/// What the model does by time alone, as an [`IrqSource`] (like
/// [`Gmac3Irq`](super::Gmac3Irq)): `advance_to_next` moves the bus's clock to the earlier of
/// the RX watchdog's deadline and the next lagging TX write-back, applies it
/// ([`QosModel::sync`]) and returns that time; `None` when neither is pending.
#[derive(Clone, Copy)]
pub struct QosIrq<'a, D: MdioDevice>(pub &'a SimBus<QosModel<D>>);

impl<D: MdioDevice> IrqSource for QosIrq<'_, D> {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.0.model(|m| m.next_event_ns())?;
        self.0.clock().advance_to(at);
        self.0.model(|m| m.sync(at));
        Some(at)
    }
}

impl<D: MdioDevice> SimModel for QosModel<D> {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.sync(now_ns);
        match offset {
            q::MAC_CONFIG => self.mac_config,
            q::MAC_PACKET_FILTER => self.filter,
            q::MAC_Q0_TX_FLOW_CTRL => self.flow[0],
            q::MAC_RX_FLOW_CTRL => self.flow[1],
            o if (q::MAC_HASH_TAB0..q::MAC_HASH_TAB0 + 32).contains(&o) => {
                let i = (o - q::MAC_HASH_TAB0) / 4;
                if i < (self.hash_bins / 32) as usize {
                    self.hash.get(i).copied().unwrap_or(0)
                } else {
                    0
                }
            }
            q::MAC_RXQ_CTRL0 => self.rxq_ctrl0,
            q::MAC_VERSION => self.version,
            q::MAC_HW_FEATURE0 => self.hw_feature0(),
            q::MAC_HW_FEATURE1 => self.hw_feature1(),
            q::MAC_HW_FEATURE2 | q::MAC_HW_FEATURE3 => 0,
            q::MAC_MDIO_ADDRESS => {
                let busy = self.core.mdio_busy(now_ns);
                (self.mdio_addr & !GB) | if busy { GB } else { 0 }
            }
            q::MAC_MDIO_DATA => self.mdio_data,
            q::MAC_ADDR0_HIGH => self.addr_hi,
            q::MAC_ADDR0_LOW => self.addr_lo,
            q::MMC_CONTROL => self.mmc_control,
            q::MMC_RX_INTR_MASK => self.mmc_mask[0],
            q::MMC_TX_INTR_MASK => self.mmc_mask[1],
            q::MMC_IPC_RX_INTR_MASK => self.mmc_mask[2],
            q::MTL_OPERATION_MODE => self.mtl_op,
            q::MTL_RXQ_DMA_MAP0 => self.mtl_map0,
            q::MTL_TXQ0_OP_MODE => self.txq_op,
            q::MTL_RXQ0_OP_MODE => self.rxq_op,
            q::DMA_MODE => {
                let busy = self.core.swr_busy(now_ns);
                (self.dma_mode & !SWR) | if busy { SWR } else { 0 }
            }
            q::DMA_SYSBUS_MODE => self.sysbus,
            q::DMA_STATUS => u32::from(self.line()),
            q::DMA_CH0_CONTROL => self.ch_control,
            q::DMA_CH0_TX_CONTROL => self.tx_control,
            // RBSZ's low bits below the bus width read 0: ST STM32H7 DMACRXCR.RBSZ "The LSB
            // bits (1:0) are ignored and the DMA internally takes the LSB bits as all-zero.
            // Therefore, these LSB bits are read-only (RO)" (32-bit bus; 2:0 on a 64-bit
            // one, NXP RT1170's RBSZ_x_0 field).
            q::DMA_CH0_RX_CONTROL => {
                let field = q::RX_RBSZ_MASK << q::RX_RBSZ_SHIFT;
                let rbsz = self.rx_buf_size() as u32;
                (self.rx_control & !field) | (rbsz << q::RX_RBSZ_SHIFT)
            }
            q::DMA_CH0_TX_BASE_HI => self.tx_base[0],
            q::DMA_CH0_TX_BASE_LO => self.tx_base[1],
            q::DMA_CH0_RX_BASE_HI => self.rx_base[0],
            q::DMA_CH0_RX_BASE_LO => self.rx_base[1],
            q::DMA_CH0_TX_TAIL => self.tx_tail,
            q::DMA_CH0_RX_TAIL => self.rx_tail,
            q::DMA_CH0_TX_RING_LEN => self.tx_ring_len,
            q::DMA_CH0_RX_RING_LEN => self.rx_ring_len,
            q::DMA_CH0_INTR_ENA => self.intr_ena,
            q::DMA_CH0_RX_WATCHDOG => self.rx_watchdog,
            q::DMA_CH0_CUR_TX_DESC => self.core.cur_tx as u32,
            q::DMA_CH0_CUR_RX_DESC => self.core.cur_rx as u32,
            q::DMA_CH0_STATUS => self.summarised(),
            q::MTL_RXQ0_MISSED => core::mem::take(&mut self.mtl_missed),
            q::DMA_DEBUG_STATUS0 => self.debug_status0(),
            o if o == self.missed_offset() => core::mem::take(&mut self.missed),
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        self.sync(now_ns);
        match offset {
            q::MAC_CONFIG => {
                self.mac_config = if self.coe { value } else { value & !IPC };
                walk::deliver(self, now_ns);
            }
            q::MAC_PACKET_FILTER => self.filter = value,
            q::MAC_Q0_TX_FLOW_CTRL => self.flow[0] = value,
            q::MAC_RX_FLOW_CTRL => self.flow[1] = value,
            o if (q::MAC_HASH_TAB0..q::MAC_HASH_TAB0 + 32).contains(&o) => {
                let i = (o - q::MAC_HASH_TAB0) / 4;
                if i < (self.hash_bins / 32) as usize
                    && let Some(w) = self.hash.get_mut(i)
                {
                    *w = value;
                }
            }
            q::MAC_RXQ_CTRL0 => self.rxq_ctrl0 = value,
            q::MAC_MDIO_ADDRESS => {
                if self.core.mdio_busy(now_ns) || value & GB == 0 {
                    self.mdio_addr = value & !GB;
                } else {
                    self.mdio_start(now_ns, value);
                }
            }
            q::MAC_MDIO_DATA => self.mdio_data = value,
            q::MAC_ADDR0_HIGH => self.addr_hi = value | q::ADDR_AE,
            q::MAC_ADDR0_LOW => self.addr_lo = value,
            q::MMC_CONTROL => self.mmc_control = value,
            q::MMC_RX_INTR_MASK => self.mmc_mask[0] = value,
            q::MMC_TX_INTR_MASK => self.mmc_mask[1] = value,
            q::MMC_IPC_RX_INTR_MASK => self.mmc_mask[2] = value,
            q::MTL_OPERATION_MODE => self.mtl_op = value,
            q::MTL_RXQ_DMA_MAP0 => self.mtl_map0 = value,
            q::MTL_TXQ0_OP_MODE => {
                // FTQ self-clears at once (nothing is queued in the MTL in this model).
                self.txq_op = value & !q::TXQ_FTQ;
                walk::tx_walk(self, now_ns, false);
            }
            q::MTL_RXQ0_OP_MODE => {
                self.rxq_op = value;
                walk::deliver(self, now_ns);
            }
            q::DMA_MODE => {
                if value & SWR != 0 {
                    self.reset();
                    self.core.swr_until = now_ns.saturating_add(self.core.swr_ns);
                } else {
                    self.dma_mode = value;
                }
            }
            q::DMA_SYSBUS_MODE => self.sysbus = value,
            q::DMA_CH0_CONTROL => self.ch_control = value,
            q::DMA_CH0_TX_CONTROL => {
                let was = self.tx_control;
                self.tx_control = value;
                if (value ^ was) & ST != 0 {
                    walk::tx_start_bit(self, now_ns, value & ST != 0);
                }
                if value & ST != 0 && was & ST == 0 {
                    // ST starts the process at the list base.
                    self.core.cur_tx = self.tx_base();
                    walk::tx_walk(self, now_ns, true);
                }
                self.sync(now_ns);
            }
            q::DMA_CH0_RX_CONTROL => {
                let was = self.rx_control;
                self.rx_control = value;
                if (value ^ was) & SR != 0 {
                    walk::rx_start_bit(self, now_ns, value & SR != 0);
                }
                if value & SR != 0 && was & SR == 0 {
                    // SR starts the process at the list base.
                    self.core.cur_rx = self.rx_base();
                }
                self.sync(now_ns);
                walk::deliver(self, now_ns);
            }
            q::DMA_CH0_TX_BASE_HI => self.tx_base[0] = value,
            q::DMA_CH0_TX_BASE_LO => {
                self.tx_base[1] = value;
                if self.tx_control & ST == 0 {
                    self.core.cur_tx = self.tx_base();
                }
            }
            q::DMA_CH0_RX_BASE_HI => self.rx_base[0] = value,
            q::DMA_CH0_RX_BASE_LO => {
                self.rx_base[1] = value;
                if self.rx_control & SR == 0 {
                    self.core.cur_rx = self.rx_base();
                }
            }
            q::DMA_CH0_TX_TAIL => {
                self.tx_tail = value;
                self.doorbell(Ring::Tx);
                walk::tx_walk(self, now_ns, true);
            }
            q::DMA_CH0_RX_TAIL => {
                self.rx_tail = value;
                self.doorbell(Ring::Rx);
                walk::deliver(self, now_ns);
                self.flow_check();
            }
            q::DMA_CH0_TX_RING_LEN => self.tx_ring_len = value & 0x3FF,
            q::DMA_CH0_RX_RING_LEN => self.rx_ring_len = value & 0x3FF,
            q::DMA_CH0_INTR_ENA => self.intr_ena = value & q::INTR_ENA_MASK,
            q::DMA_CH0_RX_WATCHDOG => {
                let mask = if self.snpsver() >= 0x42 {
                    RWT_MASK | RWTU_MASK
                } else {
                    RWT_MASK
                };
                self.rx_watchdog = value & mask;
            }
            q::DMA_CH0_STATUS => self.status &= !(value & q::CH_W1C),
            _ => {}
        }
    }
}
