//! [`HwStats`]: the hardware's own frame counters (MMC, MTL, DMA), accumulated.

/// The counters the core keeps itself, accumulated in 64 bits by
/// [`Dwmac::hw_stats`](crate::Dwmac::hw_stats).
///
/// The hardware counters are narrow (MMC 32 bits, the QoS MTL and DMA missed-frame counters
/// 11 bits, GMAC 3.x DMA_MISSED_FRAME_CTR 16 and 11 bits) and clear when read: each
/// `hw_stats` call reads them once and adds what they held, so a value is counted once and
/// the sums here do not wrap (they saturate at `u64::MAX`). Read often enough that a narrow
/// counter cannot saturate between two reads (2047 frames for the 11-bit ones): once it
/// has, its overflow bit is set and it stops, and the sum here is a lower bound.
///
/// On QoS a frame that finds the RX queue full because the DMA has no descriptor is
/// counted by the queue (OVFPKTCNT and MISPKTCNT) and by the channel (MFC): `rx_missed`,
/// `rx_fifo_dropped` and `rx_queue_missed` may each hold it (the RT1170 field docs).
///
/// A counter the core does not have stays 0: the MMC ones without the MMC block
/// (HW_FEATURE MMCSEL), the MTL ones on GMAC 3.x.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HwStats {
    /// Frames sent without error (MMC txframecount_g).
    pub tx_frames_good: u64,
    /// Frames aborted by a TX FIFO underflow (MMC txunderflowerror).
    pub tx_underflow: u64,
    /// Frames received without error: unicast, multicast and broadcast good (MMC
    /// rxunicastframes_g + rxmulticastframes_g + rxbroadcastframes_g).
    pub rx_frames_good: u64,
    /// Frames received with a CRC error (MMC rxcrcerror).
    pub rx_crc_errors: u64,
    /// Frames lost to an RX FIFO overflow, as the MMC counts them (MMC rxfifooverflow).
    pub rx_fifo_overflow: u64,
    /// Frames the RX DMA missed for want of a descriptor (GMAC 3.x DMA_MISSED_FRAME_CTR
    /// bits 15:0; QoS DMA_CH0_MISS_FRAME_CNT.MFC).
    pub rx_missed: u64,
    /// Frames dropped because the RX FIFO or queue was full (GMAC 3.x
    /// DMA_MISSED_FRAME_CTR bits 27:17; QoS MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.OVFPKTCNT).
    pub rx_fifo_dropped: u64,
    /// Frames the QoS RX queue flushed unread (MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.MISPKTCNT;
    /// 0 on GMAC 3.x).
    pub rx_queue_missed: u64,
}

impl HwStats {
    /// Add `n` to `field`, saturating.
    pub(crate) fn add(field: &mut u64, n: u32) {
        *field = field.saturating_add(u64::from(n));
    }

    /// Add the MMC counters as read, in the order of the MMC block both versions share
    /// (Linux `mmc_core.c`, relative to the block's base): txframecount_g (0x68),
    /// txunderflowerror (0x48), rxunicastframes_g (0xC4), rxmulticastframes_g (0x90),
    /// rxbroadcastframes_g (0x8C), rxcrcerror (0x94), rxfifooverflow (0xD4).
    pub(crate) fn add_mmc(&mut self, v: [u32; 7]) {
        let [tx_good, tx_unf, rx_uc, rx_mc, rx_bc, rx_crc, rx_ovf] = v;
        Self::add(&mut self.tx_frames_good, tx_good);
        Self::add(&mut self.tx_underflow, tx_unf);
        for n in [rx_uc, rx_mc, rx_bc] {
            Self::add(&mut self.rx_frames_good, n);
        }
        Self::add(&mut self.rx_crc_errors, rx_crc);
        Self::add(&mut self.rx_fifo_overflow, rx_ovf);
    }
}
