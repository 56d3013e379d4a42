//! Silicon hazards at the DMA boundary: a lost doorbell behind an outer cache's
//! store buffer (an L2C-310), on the model's store-buffered arena.
//!
//! The rings live in Normal non-cacheable memory, so `Coherent` does no line maintenance,
//! but the CPU's descriptor stores wait in the outer cache's store buffer until a sync. The
//! arena keeps that worst case (the buffer never drains by itself).
#![cfg(feature = "sim")]

use crate::harness::*;

type Board = crate::harness::Board<OnGmac3>;

fn dma() -> stmmac_coalesce::DmaConfig {
    OnGmac3::dma()
}
use stmmac_coalesce::dma::WithSync;
use stmmac_coalesce::sim::{AnPhy, SimArena};
use stmmac_coalesce::{Coherent, Error, NoTimer};

fn board(arena: SimArena) -> Board {
    Board::with(AnPhy::gigabit(), arena, dma(), |m| m)
}

fn frame() -> [u8; 60] {
    let mut f = [0u8; 60];
    f[..6].copy_from_slice(&[0xFF; 6]);
    f[6..12].copy_from_slice(&US);
    f[12] = 0x08;
    f
}

/// The hazard on the model: `Coherent` alone on store-buffered memory. The poll demand
/// reaches the DMA while the descriptor (OWN) is still in the buffer; nothing is sent.
#[test]
fn coherent_alone_behind_a_store_buffer_loses_the_doorbell() {
    let b = board(SimArena::store_buffered(0x1000_0000, 4 << 20));
    b.link_up();
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
    tx.send(&b.mac, &frame()).unwrap();
    assert!(
        b.sent().is_empty(),
        "the DMA saw the descriptor without a sync"
    );
    assert_eq!(tx.pending(), 1);
}

/// The fix: the rings call `CacheOps::before_doorbell` between `wmb` and the poll
/// demand, and `WithSync` adds the outer sync (the arena's `DoorbellSync`, a CACHE_SYNC).
#[test]
fn the_pre_doorbell_sync_sends_the_frame() {
    let arena = SimArena::store_buffered(0x1000_0000, 4 << 20);
    let b = board(arena.clone());
    b.link_up();
    let mut tx = b.tx(
        tx_cfg(8, no_timer(1)),
        NoTimer,
        WithSync::new(Coherent, arena.clone()),
    );
    for _ in 0..3 {
        tx.send(&b.mac, &frame()).unwrap();
    }
    assert_eq!(b.sent().len(), 3);
}

/// RX: the descriptors given to the DMA at start and with each poll demand must be drained
/// too, or the DMA finds none and drops the frame (RU).
#[test]
fn the_pre_doorbell_sync_gives_rx_descriptors() {
    let arena = SimArena::store_buffered(0x1000_0000, 4 << 20);
    let b = board(arena.clone());
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 1536), WithSync::new(Coherent, arena.clone()));
    for _ in 0..6 {
        b.inject(&frame());
        let len = rx.receive(&b.mac).map(|f| f.len());
        assert_eq!(len, Ok(60), "the frame, without FCS");
        // Polled until empty, as NAPI does: the descriptor given back goes to the DMA with
        // the poll demand (and, before it, the sync). The model's buffer never drains by
        // itself, so without the sync the DMA would find no descriptor once the ring wraps.
        assert_eq!(rx.receive(&b.mac).map(|f| f.len()), Err(Error::WouldBlock));
    }
    assert_eq!(b.bus.model(|m| m.rx_dropped()), 0);
}

/// Without it, RX on store-buffered memory finds no descriptor at all.
#[test]
fn coherent_alone_behind_a_store_buffer_gives_no_rx_descriptor() {
    let b = board(SimArena::store_buffered(0x1000_0000, 4 << 20));
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
    b.inject(&frame());
    assert_eq!(rx.receive(&b.mac).map(|f| f.len()), Err(Error::WouldBlock));
    assert_eq!(b.bus.model(|m| m.rx_dropped()), 1);
}
