//! Soundness at the DMA boundary: what a ring programs and what safe code can reach (GMAC 3.x).

use crate::harness::*;

use hwtimer_core::RegisterBus;
use stmmac_coalesce::DmaAddr as _;
use stmmac_coalesce::sim::SimArena;
use stmmac_coalesce::{Coherent, Error, NoTimer};

type Board = crate::harness::Board<OnGmac3>;

// ---- Soundness at the DMA boundary ------------------------------------------------------

#[test]
fn rings_program_their_own_bases_and_refuse_memory_the_dma_cannot_reach() {
    let b = Board::new();
    let tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let rx = b.rx(rx_cfg(4, 512), Coherent);
    assert_eq!(
        b.bus
            .model(|m| u64::from(hwtimer_core::sim::SimModel::read(m, 0, 0x1010))),
        tx.base()
    );
    assert_eq!(
        b.bus
            .model(|m| u64::from(hwtimer_core::sim::SimModel::read(m, 0, 0x100C))),
        rx.base()
    );
    // A region outside the arena has no bus address.
    let other = SimArena::new(0x4000_0000, 64 * 1024);
    let mem = other.region(64 * 1024).unwrap();
    let r = stmmac_coalesce::TxRing::new(
        mem,
        &b.arena,
        &b.setup,
        tx_cfg(4, no_timer(1)),
        NoTimer,
        Coherent,
    );
    assert!(matches!(r, Err(Error::DmaAddress)));
    // Too small a region.
    let mem = b.arena.region(1000).unwrap();
    let r = stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, rx_cfg(4, 512), Coherent);
    assert!(matches!(r, Err(Error::RingSize)));
}

#[test]
fn soundness_escape_hatches_exist_only_as_unsafe() {
    // The compile_fail doctests in lib.rs show the safe forms are refused; these are the
    // same operations with their `unsafe` promises, so the doctests fail for that reason
    // and not a typo.
    struct Offset;
    // SAFETY: never used for DMA.
    unsafe impl stmmac_coalesce::DmaAddr for Offset {
        fn bus_addr(&self, p: *const u8) -> Option<u32> {
            u32::try_from(p as usize).ok()
        }
    }
    let _ = Offset.bus_addr(core::ptr::null());
    // SAFETY: only constructed, never given to a ring.
    let _ = unsafe { stmmac_coalesce::IdentityMap::new() };
    let b = Board::new();
    // SAFETY: both DMA engines are stopped (reset) and the bases are the rings' own below.
    unsafe { b.mac.set_ring_bases(0, 0) };
    // SAFETY: a read only.
    let _ = unsafe { b.mac.bus() }.read_word(0x20);
    let mut mem = vec![0u8; 64];
    // SAFETY: the vector outlives the region's use here (the region is dropped at once).
    let r = unsafe {
        stmmac_coalesce::DmaRegion::from_raw(core::ptr::NonNull::new(mem.as_mut_ptr()).unwrap(), 64)
    };
    assert_eq!(r.len(), 64);
}
