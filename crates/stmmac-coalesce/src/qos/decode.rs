//! What the QoS core's feature and status words mean, in the version-neutral terms: the DMA
//! set-up resolved from HW_FEATURE0/1, and DMA_CH0_STATUS as [`DmaEvents`].

use super::regs::{self as r, chan};
use crate::common::{ConfigError, DmaEvents};
use crate::dma::{Coe, DescLayout, DmaConfig, DmaSetup, RxCoe};

/// Check `cfg` and compute the geometry for a QoS core from its HW_FEATURE0 (0x11C) and
/// HW_FEATURE1 (0x120) (usually through [`Dwmac::configure_dma`](crate::Dwmac::configure_dma)): the
/// [`DescLayout::Qos`] layout, the address width from HW_FEATURE1.ADDR64 (32, 40 or 48
/// bits) and the checksum engines from HW_FEATURE0.TXCOESEL / RXCOESEL (the type-2 RX
/// engine only).
///
/// Errors: [`ConfigError::NoHwFeature`] when either register reads 0 or all ones;
/// [`ConfigError::LayoutMismatch`] when `cfg.layout` names a GMAC 3.x layout;
/// [`ConfigError::AddressWidth`] for the reserved ADDR64 value 3; the geometry errors of
/// [`DmaConfig::resolve_assuming_layout`], with DSL limited to DMA_CHAN_CONTROL's 3 bits.
pub(crate) fn resolve_dma(
    cfg: &DmaConfig,
    hw_feature0: u32,
    hw_feature1: u32,
) -> Result<DmaSetup, ConfigError> {
    for h in [hw_feature0, hw_feature1] {
        if h == 0 || h == u32::MAX {
            return Err(ConfigError::NoHwFeature);
        }
    }
    if cfg.layout.is_some_and(|l| l != DescLayout::Qos) {
        return Err(ConfigError::LayoutMismatch);
    }
    let addr_bits = match (hw_feature1 >> r::HWF1_ADDR64_SHIFT) & 3 {
        0 => 32,
        1 => 40,
        2 => 48,
        _ => return Err(ConfigError::AddressWidth),
    };
    let coe = Coe {
        tx: hw_feature0 & r::HWF0_TXCOESEL != 0,
        rx: if hw_feature0 & r::HWF0_RXCOESEL != 0 {
            RxCoe::Type2
        } else {
            RxCoe::None
        },
    };
    cfg.resolve_detected(DescLayout::Qos, Some(coe), addr_bits)
}

/// DMA_CH0_STATUS bits in [`DmaEvents`]' (3.x DMA_STATUS) positions.
#[inline]
pub(crate) fn events_from_channel(st: u32) -> DmaEvents {
    const MAP: [(u32, DmaEvents); 12] = [
        (chan::TI, DmaEvents::TX_COMPLETE),
        (chan::TPS, DmaEvents::TX_STOPPED),
        (chan::TBU, DmaEvents::TX_BUFFER_UNAVAILABLE),
        (chan::RI, DmaEvents::RX_COMPLETE),
        (chan::RBU, DmaEvents::RX_BUFFER_UNAVAILABLE),
        (chan::RPS, DmaEvents::RX_STOPPED),
        (chan::RWT, DmaEvents::RX_WATCHDOG),
        (chan::ETI, DmaEvents::EARLY_TX),
        (chan::ERI, DmaEvents::EARLY_RX),
        (chan::FBE, DmaEvents::FATAL_BUS_ERROR),
        (chan::AIS, DmaEvents::ABNORMAL),
        (chan::NIS, DmaEvents::NORMAL),
    ];
    DmaEvents::from_word(st, &MAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The address width from ADDR64, the reserved value refused, a 3.x layout refused.
    #[test]
    fn resolve_reads_addr64_and_refuses_other_layouts() {
        let cfg = DmaConfig::default();
        let h0 = r::HWF0_TXCOESEL | r::HWF0_RXCOESEL;
        let h1 = |addr64: u32| 0x145 | addr64 << r::HWF1_ADDR64_SHIFT;
        for (a, bits) in [(0, 32), (1, 40), (2, 48)] {
            assert_eq!(
                resolve_dma(&cfg, h0, h1(a)).map(|s| s.addr_bits()),
                Ok(bits)
            );
        }
        assert_eq!(resolve_dma(&cfg, h0, h1(3)), Err(ConfigError::AddressWidth));
        assert_eq!(resolve_dma(&cfg, 0, h1(0)), Err(ConfigError::NoHwFeature));
        let three = DmaConfig {
            layout: Some(DescLayout::Enhanced),
            ..cfg
        };
        assert_eq!(
            resolve_dma(&three, h0, h1(0)),
            Err(ConfigError::LayoutMismatch)
        );
    }

    /// Each channel bit becomes its semantic event.
    #[test]
    fn channel_status_maps_to_semantic_events() {
        let e = events_from_channel(chan::TI);
        assert!(e.tx_done());
        let e = events_from_channel(chan::RI | chan::RBU);
        assert!(e.rx_ready() && e.rx_no_buffer());
        // A fault only with AIS in the same read.
        let e = events_from_channel(chan::FBE);
        assert!(!e.fatal() && !e.tx_fault());
        assert_eq!(events_from_channel(chan::FBE), DmaEvents::FATAL_BUS_ERROR);
        let e = events_from_channel(chan::FBE | chan::AIS);
        assert!(e.fatal() && !e.tx_fault());
        // A stop is no fault, AIS or not.
        let e = events_from_channel(chan::TPS | chan::RPS | chan::AIS);
        assert!(!e.tx_fault() && !e.fatal());
        assert!(e.contains(DmaEvents::TX_STOPPED | DmaEvents::RX_STOPPED));
        assert_eq!(
            events_from_channel(chan::NIS | chan::AIS),
            DmaEvents::NORMAL | DmaEvents::ABNORMAL
        );
        assert_eq!(events_from_channel(chan::ERI), DmaEvents::EARLY_RX);
        assert_eq!(events_from_channel(chan::RWT), DmaEvents::RX_WATCHDOG);
        assert_eq!(events_from_channel(chan::CDE), DmaEvents::NONE);
    }
}
