//! What GMAC 3.x's feature and status words mean, in the version-neutral terms: the
//! descriptor layout and checksum engines DMA_HW_FEATURE announces, the DMA set-up resolved
//! from them, and DMA_STATUS as [`DmaEvents`].

use super::regs;
use crate::common::{ConfigError, DmaEvents};
use crate::dma::{Coe, DescLayout, DmaConfig, DmaSetup, RxCoe};

/// The descriptor layout HW_FEATURE announces: enhanced when ENHDESSEL (bit 24) is set.
pub const fn layout_from_hw_feature(hw_feature: u32) -> DescLayout {
    if hw_feature & regs::HW_FEATURE_ENHDESSEL != 0 {
        DescLayout::Enhanced
    } else {
        DescLayout::Normal
    }
}

/// The checksum engines HW_FEATURE announces, or `None` when it does not exist (reads 0 or
/// all ones: cores older than 3.50a, or a block that is not there): they are then unknown.
pub const fn coe_from_hw_feature(hw_feature: u32) -> Option<Coe> {
    if hw_feature == 0 || hw_feature == u32::MAX {
        return None;
    }
    let rx = if hw_feature & regs::HW_FEATURE_RXTYP2COE != 0 {
        RxCoe::Type2
    } else if hw_feature & regs::HW_FEATURE_RXTYP1COE != 0 {
        RxCoe::Type1
    } else {
        RxCoe::None
    };
    Some(Coe {
        tx: hw_feature & regs::HW_FEATURE_TXCOESEL != 0,
        rx,
    })
}

/// Check `cfg` and compute the geometry for a GMAC 3.x whose DMA_HW_FEATURE reads
/// `hw_feature` (usually through [`Dwmac::configure_dma`](crate::Dwmac::configure_dma)).
///
/// The layout comes from HW_FEATURE.ENHDESSEL; a [`DmaConfig::layout`] given is validated
/// against it. A HW_FEATURE of 0 or all ones (a core older than 3.50a, or a register that
/// is not there) says nothing, so it is refused; for such a core the layout is a promise
/// about the silicon, made with the `unsafe`
/// [`DmaConfig::resolve_assuming_layout`].
///
/// Errors: [`ConfigError::NoHwFeature`] when HW_FEATURE reads 0 or all ones;
/// [`ConfigError::LayoutMismatch`] when `cfg.layout` disagrees with HW_FEATURE; the
/// geometry errors of [`DmaConfig::resolve_assuming_layout`].
pub(crate) fn resolve_dma(cfg: &DmaConfig, hw_feature: u32) -> Result<DmaSetup, ConfigError> {
    if hw_feature == 0 || hw_feature == u32::MAX {
        return Err(ConfigError::NoHwFeature);
    }
    cfg.resolve_detected(
        layout_from_hw_feature(hw_feature),
        coe_from_hw_feature(hw_feature),
        32,
    )
}

/// DMA_STATUS's interrupt bits as the version-neutral [`DmaEvents`] (bit positions:
/// `regs::DMA_STATUS`, from Linux `dwmac_dma.h`).
#[inline]
pub fn events_from_status(st: u32) -> DmaEvents {
    const MAP: [(u32, DmaEvents); 15] = [
        (1 << 0, DmaEvents::TX_COMPLETE),
        (1 << 1, DmaEvents::TX_STOPPED),
        (1 << 2, DmaEvents::TX_BUFFER_UNAVAILABLE),
        (1 << 3, DmaEvents::TX_JABBER),
        (1 << 4, DmaEvents::RX_OVERFLOW),
        (1 << 5, DmaEvents::TX_UNDERFLOW),
        (1 << 6, DmaEvents::RX_COMPLETE),
        (1 << 7, DmaEvents::RX_BUFFER_UNAVAILABLE),
        (1 << 8, DmaEvents::RX_STOPPED),
        (1 << 9, DmaEvents::RX_WATCHDOG),
        (1 << 10, DmaEvents::EARLY_TX),
        (1 << 13, DmaEvents::FATAL_BUS_ERROR),
        (1 << 14, DmaEvents::EARLY_RX),
        (1 << 15, DmaEvents::ABNORMAL),
        (1 << 16, DmaEvents::NORMAL),
    ];
    DmaEvents::from_word(st, &MAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> DmaConfig {
        DmaConfig::default()
    }

    /// A HW_FEATURE of 0 or all ones says nothing: refused, a layout given or not.
    #[test]
    fn hw_feature_of_zero_or_all_ones_is_refused() {
        for hw in [0, u32::MAX] {
            assert_eq!(resolve_dma(&cfg(), hw), Err(ConfigError::NoHwFeature));
            let given = DmaConfig {
                layout: Some(DescLayout::Normal),
                ..cfg()
            };
            assert_eq!(resolve_dma(&given, hw), Err(ConfigError::NoHwFeature));
        }
    }

    /// ENHDESSEL decides the layout; a layout given must agree with it.
    #[test]
    fn layout_comes_from_enhdessel() {
        let enhanced = 0x100D_4F37 | regs::HW_FEATURE_ENHDESSEL;
        assert_eq!(
            resolve_dma(&cfg(), enhanced).map(|s| s.layout()),
            Ok(DescLayout::Enhanced)
        );
        let wrong = DmaConfig {
            layout: Some(DescLayout::Normal),
            ..cfg()
        };
        assert_eq!(
            resolve_dma(&wrong, enhanced),
            Err(ConfigError::LayoutMismatch)
        );
    }
}
