//! What the GMAC 3.x driver follows beyond the DMA set-up: the layout its rings must have,
//! the RX FIFO size for hardware flow control, the address reach of a ring, and the
//! counters read for [`HwStats`].

use core::sync::atomic::Ordering;

use hwtimer_core::{RegisterBus, RegisterBusExt};

use super::{DMA_CONTROL, Gmac3, layout_from_hw_feature, regs};
use crate::common::{ConfigError, Error, HwStats};

/// [`Gmac3::layout`]'s encoding of a layout.
pub(super) const fn layout_code(l: crate::DescLayout) -> u8 {
    match l {
        crate::DescLayout::Normal => 1,
        crate::DescLayout::Enhanced => 2,
        crate::DescLayout::Qos => 3,
    }
}

/// The ring's base as DMA_*_BASE_ADDR takes it: GMAC 3.x drives 32 address bits, so the
/// whole ring, buffers included, lies below 4 GiB.
pub(super) fn ring_base_32(r: &crate::common::RingStart) -> Result<u32, Error> {
    if r.top > u64::from(u32::MAX) {
        return Err(Error::Config(ConfigError::AddressWidth));
    }
    u32::try_from(r.base).map_err(|_| Error::Config(ConfigError::AddressWidth))
}

/// The MMC counters [`HwStats::add_mmc`] takes, in its order.
const MMC_COUNTERS: [hwtimer_core::Reg<u32>; 7] = [
    regs::MMC_TX_FRAMES_G,
    regs::MMC_TX_UNDERFLOW,
    regs::MMC_RX_UNICAST_G,
    regs::MMC_RX_MULTICAST_G,
    regs::MMC_RX_BROADCAST_G,
    regs::MMC_RX_CRC_ERROR,
    regs::MMC_RX_FIFO_OVERFLOW,
];

impl<B: RegisterBus<Word = u32>> Gmac3<B> {
    /// The RX FIFO size in bytes, for hardware flow control
    /// ([`set_flow_control`](crate::Dwmac::set_flow_control)); 0, the default, is unknown.
    /// Linux takes it from the device tree (`rx-fifo-depth`): GMAC 3.x has no feature
    /// field for it, and without it Linux leaves hardware flow control off.
    pub fn set_rx_fifo_size(&self, bytes: u32) {
        self.rx_fifo.store(bytes, Ordering::Relaxed);
    }

    /// The layout this core's rings use: the one [`configure_dma`](crate::Dwmac::configure_dma)
    /// (or [`configure_dma_assuming_layout`](Self::configure_dma_assuming_layout)) resolved,
    /// else the one HW_FEATURE.ENHDESSEL announces; `None` when neither is known (no
    /// HW_FEATURE and never configured).
    pub fn layout(&self) -> Option<crate::DescLayout> {
        match self.layout.load(Ordering::Relaxed) {
            1 => Some(crate::DescLayout::Normal),
            2 => Some(crate::DescLayout::Enhanced),
            _ => {
                let h = self.hw_feature();
                (h != 0 && h != u32::MAX).then(|| layout_from_hw_feature(h))
            }
        }
    }

    /// DMA_CONTROL's flow control fields for transmit pause `on` (full duplex): with an RX
    /// FIFO of at least 4 KiB ([`set_rx_fifo_size`](Self::set_rx_fifo_size)) EFC with RFA
    /// "full minus 1 KiB" and RFD "full minus 2 KiB", as Linux `dwmac1000_configure_fc`;
    /// otherwise EFC, RFA and RFD cleared (Linux leaves a smaller or unknown FIFO without
    /// hardware flow control).
    pub(super) fn program_flow(&self, on: bool) {
        let efc = on && self.rx_fifo.load(Ordering::Relaxed) >= regs::FLOW_MIN_RX_FIFO;
        critical_section::with(|_| {
            let c = self.bus.read_raw(DMA_CONTROL);
            let clear =
                regs::DMA_CONTROL_EFC | regs::DMA_CONTROL_RFA_MASK | regs::DMA_CONTROL_RFD_MASK;
            let set = if efc {
                regs::DMA_CONTROL_EFC | regs::RFA_FULL_MINUS_1K | regs::RFD_FULL_MINUS_2K
            } else {
                0
            };
            let v = (c & !clear) | set;
            if v != c {
                self.write_settled(DMA_CONTROL, v);
            }
        });
    }

    /// DMA_MISSED_FRAME_CTR (clear on read: frames missed for want of a descriptor in bits
    /// 15:0, frames lost to an RX FIFO overflow in bits 27:17; Linux `dwmac100.h`
    /// `DMA_MISSED_FRAME_*`, the 3.x databook's CSR8) and, with the MMC (HW_FEATURE.MMCSEL),
    /// its frame counters, put in reset-on-read mode at the first call (MMC_CNTRL bit 2,
    /// as Linux `stmmac_mmc_setup`). See [`HwStats`](crate::HwStats).
    pub(super) fn read_stats(&self, acc: &mut HwStats) {
        let m = self.bus.read_raw(regs::DMA_MISSED_FRAME_CTR);
        HwStats::add(&mut acc.rx_missed, m & regs::MISSED_CNTR_MASK);
        HwStats::add(
            &mut acc.rx_fifo_dropped,
            (m & regs::MISSED_OVF_CNTR_MASK) >> regs::MISSED_OVF_CNTR_SHIFT,
        );
        let h = self.hw_feature();
        if h == u32::MAX || h & regs::HW_FEATURE_MMCSEL == 0 {
            return;
        }
        let c = self.bus.read_raw(regs::MMC_CNTRL);
        if c & regs::MMC_CNTRL_RESET_ON_READ == 0 {
            self.bus
                .write_raw(regs::MMC_CNTRL, c | regs::MMC_CNTRL_RESET_ON_READ);
        }
        acc.add_mmc(MMC_COUNTERS.map(|c| self.bus.read_raw(c)));
    }
}
