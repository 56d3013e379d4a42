//! What the QoS core announces in HW_FEATURE1 and the driver follows: the hash table size
//! (HASHTBLSZ), the RX queue size for hardware flow control (RXFIFOSIZE), the DMA address
//! width (ADDR64), and the counters read for [`HwStats`].

use hwtimer_core::{RegisterBus, RegisterBusExt};

use super::Qos;
use super::regs::{self as r, DMA_SYSBUS_MODE};
use crate::common::{ConfigError, Error, FrameFilter, HwStats};

/// SNPSVER of the first 5.x core (5.10): the DMA channel's missed-frame counter moved.
const SNPSVER_5_10: u8 = 0x51;

/// The MMC counters [`HwStats::add_mmc`] takes, in its order.
const MMC_COUNTERS: [hwtimer_core::Reg<u32>; 7] = [
    r::MMC_TX_FRAMES_G,
    r::MMC_TX_UNDERFLOW,
    r::MMC_RX_UNICAST_G,
    r::MMC_RX_MULTICAST_G,
    r::MMC_RX_BROADCAST_G,
    r::MMC_RX_CRC_ERROR,
    r::MMC_RX_FIFO_OVERFLOW,
];

impl<B: RegisterBus<Word = u32>> Qos<B> {
    /// The multicast hash bins HW_FEATURE1.HASHTBLSZ announces: 64, 128 or 256, or 0 for
    /// none (Linux `stmmac_hw_init`: `multicast_filter_bins = BIT(hash_tb_sz) << 5`).
    pub fn hash_bins(&self) -> u32 {
        match (self.bus.read_raw(r::MAC_HW_FEATURE1) >> r::HWF1_HASHTBLSZ_SHIFT) & 3 {
            0 => 0,
            n => 32 << n,
        }
    }

    /// Write `filter`'s multicast table folded to this core's table (HASHTBLSZ: 2, 4 or 8
    /// registers, every one written so no stale bin stays, as Linux `dwmac4_set_filter`),
    /// then MAC_PACKET_FILTER. A core without a hash table passes every multicast group
    /// (PM) when the filter asks for one.
    pub(super) fn program_filter(&self, filter: &FrameFilter) {
        let bins = self.hash_bins();
        let mut reg = filter.register();
        if bins == 0 {
            if filter.has_multicast() {
                reg |= FrameFilter::PM;
            }
        } else {
            let words = filter.hash_words(bins);
            // MAC_HASH_TABLE_REG0..7 at 0x10 + 4i (Linux `dwmac4.h` `GMAC_HASH_TAB(x)`).
            for (i, w) in words.iter().enumerate().take(bins as usize / 32) {
                if let Some(reg) = r::MAC_HASH_TAB0.checked_nth(i, 4) {
                    self.bus.write_raw(reg, *w);
                }
            }
        }
        self.bus.write_raw(r::MAC_PACKET_FILTER, reg);
    }

    /// MTL_RXQ0_OPERATION_MODE's flow control fields for transmit pause `on`, as Linux
    /// `dwmac4_dma_rx_chan_op_mode` sets them for the queue's size (the whole RX FIFO,
    /// HW_FEATURE1.RXFIFOSIZE: 128 << n bytes): below 4 KiB none; at 4 KiB EHFC with
    /// RFA 1 (full − 1.5 KiB) and RFD 3 (full − 2.5 KiB); above, RFA 4 (full − 3 KiB) and
    /// RFD 7 (full − 4.5 KiB). Off, EHFC is cleared.
    pub(super) fn program_flow(&self, on: bool) {
        let field = self.bus.read_raw(r::MAC_HW_FEATURE1) & r::HWF1_RXFIFOSIZE_MASK;
        let fifo = 128u32.checked_shl(field).unwrap_or(0);
        let rf = |v: u32, shift: u32| (v & r::MTL_OP_MODE_RF_MASK) << shift;
        let clear = r::MTL_OP_MODE_EHFC
            | rf(r::MTL_OP_MODE_RF_MASK, r::MTL_OP_MODE_RFA_SHIFT)
            | rf(r::MTL_OP_MODE_RF_MASK, r::MTL_OP_MODE_RFD_SHIFT);
        let set = match (on, fifo) {
            (false, _) => 0,
            (true, f) if f < r::FLOW_MIN_RX_QUEUE => 0,
            (true, f) => {
                let (rfa, rfd) = if f == r::FLOW_MIN_RX_QUEUE {
                    (1, 3)
                } else {
                    (4, 7)
                };
                r::MTL_OP_MODE_EHFC
                    | rf(rfa, r::MTL_OP_MODE_RFA_SHIFT)
                    | rf(rfd, r::MTL_OP_MODE_RFD_SHIFT)
            }
        };
        critical_section::with(|_| {
            let v = self.bus.read_raw(r::MTL_RXQ0_OP_MODE);
            self.bus.write_raw(r::MTL_RXQ0_OP_MODE, (v & !clear) | set);
        });
    }

    /// The address bits the DMA drives now: HW_FEATURE1.ADDR64 (40 or 48) while
    /// DMA_SYS_BUS_MODE.EAME is set, else 32 (Linux `dwmac4_get_hw_feature` maps ADDR64
    /// 0/1/2 to 32/40/48; `dwmac4_dma_init` sets EAME only for more than 32 bits; without
    /// it the channel's high base registers and TDES1/RDES1 are not used).
    pub(super) fn dma_addr_bits(&self) -> u32 {
        let eame = self
            .bus
            .read(r::DMA_SYSBUS_MODE)
            .is_set(DMA_SYSBUS_MODE::EAME);
        let addr64 = (self.bus.read_raw(r::MAC_HW_FEATURE1) >> r::HWF1_ADDR64_SHIFT) & 3;
        match (eame, addr64) {
            (true, 1) => 40,
            (true, 2) => 48,
            _ => 32,
        }
    }

    /// Refuse a ring that reaches above what the DMA addresses now
    /// ([`dma_addr_bits`](Self::dma_addr_bits)), whatever set-up it was built from.
    pub(super) fn check_reach(&self, top: u64) -> Result<(), Error> {
        if top >> self.dma_addr_bits() != 0 {
            return Err(Error::Config(ConfigError::AddressWidth));
        }
        Ok(())
    }

    /// Read the counters into `acc` (see [`HwStats`]). The MTL RX queue counter and the
    /// channel's missed-frame counter clear on read (RT1170 field docs; ST "cleared when
    /// this register is read"); the channel counter is at + 0x6C on 4.x and + 0x64 on 5.x
    /// (ST STM32H7 DMACMFCR 0x116C; NXP RT1170 DMA_CH0_MISS_FRAME_CNT 0x1164). With the MMC
    /// (HW_FEATURE0.MMCSEL) its counters are put in reset-on-read mode at the first call
    /// (MMC_CONTROL bit 2, as Linux `stmmac_mmc_setup`), so each read returns the frames
    /// since the last one.
    pub(super) fn read_stats(&self, acc: &mut HwStats) {
        let mtl = self.bus.read_raw(r::MTL_RXQ0_MISSED);
        HwStats::add(&mut acc.rx_fifo_dropped, mtl & r::MTL_MISSED_OVF_MASK);
        HwStats::add(
            &mut acc.rx_queue_missed,
            (mtl & r::MTL_MISSED_MIS_MASK) >> r::MTL_MISSED_MIS_SHIFT,
        );
        let missed = if self.snpsver() >= SNPSVER_5_10 {
            r::DMA_CH0_MISSED_5X
        } else {
            r::DMA_CH0_MISSED
        };
        HwStats::add(
            &mut acc.rx_missed,
            self.bus.read_raw(missed) & r::MISSED_MFC_MASK,
        );
        if self.bus.read_raw(r::MAC_HW_FEATURE0) & r::HWF0_MMCSEL == 0 {
            return;
        }
        let c = self.bus.read_raw(r::MMC_CONTROL);
        if c & r::MMC_CNTRL_RESET_ON_READ == 0 {
            self.bus
                .write_raw(r::MMC_CONTROL, c | r::MMC_CNTRL_RESET_ON_READ);
        }
        acc.add_mmc(MMC_COUNTERS.map(|c| self.bus.read_raw(c)));
    }
}
