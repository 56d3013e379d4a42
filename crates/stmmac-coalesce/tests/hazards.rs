//! Silicon hazards QEMU cannot show (issue 18): each test makes the model raise the
//! condition and checks what the driver does about it.

mod common;

use common::*;
use hwtimer_core::RegisterBusExt;
use stmmac_coalesce::regs;

/// An MMC counter past half range, or an RGMII/PCS link event, raises GMI/GLI: summaries
/// that clear only at their source. Unmasked, the shared interrupt line stays high for
/// ever (an interrupt storm: `take_events` acknowledges nothing of it).
#[test]
fn mac_and_mmc_interrupts_are_masked_after_reset() {
    let b = Board::new();
    let _link = b.link_up();
    let _rx = b.rx(rx_cfg(8, 1536), stmmac_coalesce::Coherent);
    b.mac.set_interrupts(regs::DMA_INTR_DEFAULT);
    let now = b.clock.now_ns();
    assert!(!b.bus.model(|m| m.irq_pending(now)));
    for which in 0..3 {
        b.bus.model(|m| m.raise_mmc_half_range(which));
    }
    b.bus.model(|m| m.raise_link_event());
    // The interrupt handler's step: read and acknowledge DMA_STATUS.
    let ev = b.mac.take_events();
    assert!(ev.is_empty(), "{ev:?}");
    let st = b.mac.status().get();
    assert_eq!(
        st & (regs::DMA_STATUS_GLI | regs::DMA_STATUS_GMI | regs::DMA_STATUS_GPI),
        0,
        "DMA_STATUS {st:#x}"
    );
    assert!(
        !b.bus.model(|m| m.irq_pending(now)),
        "the interrupt line stays asserted"
    );
}

/// The model raises the storm when the masks are cleared again (the test can fail).
#[test]
fn the_model_storms_with_the_masks_cleared() {
    let b = Board::new();
    b.bus.model(|m| m.raise_mmc_half_range(1));
    // SAFETY: writes only the MMC mask, no DMA address.
    unsafe { b.mac.bus() }.write_raw(regs::MMC_TX_INTR_MASK, 0);
    let now = b.clock.now_ns();
    assert!(b.bus.model(|m| m.irq_pending(now)));
    assert_ne!(b.mac.status().get() & regs::DMA_STATUS_GMI, 0);
    let _ = b.mac.take_events();
    assert!(
        b.bus.model(|m| m.irq_pending(now)),
        "cleared by a DMA_STATUS write"
    );
}
