//! Ordering before the doorbell, as the model saw it (GMAC 3.x).

use crate::cache::cached_board;
use crate::harness::*;

use stmmac_coalesce::gmac3::regs::{self};
use stmmac_coalesce::sim::{Ring, Seen, eth_frame};
use stmmac_coalesce::{Coherent, Error, NoTimer};

type Board = crate::harness::Board<OnGmac3>;

// ---- Ordering before the doorbell, as the model saw it ----------------------------------
//
// The DMA arena and the register bus both go through the model, which logs what the DMA
// saw in order (`sim::Seen`): write-backs into its view of memory (non-coherent arena) and
// each doorbell with the descriptor it found. The driver carries no hook.

/// Whether `items` occur in `seen` in this order (not necessarily adjacent).
fn in_order(seen: &[Seen], items: &[Seen]) -> bool {
    let mut it = seen.iter();
    items.iter().all(|want| it.any(|s| s == want))
}

#[test]
fn tx_doorbell_finds_its_descriptor_already_owned() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    b.arena.record_order();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let seen = b.arena.take_order();
    assert_eq!(
        seen,
        [Seen::Doorbell {
            ring: Ring::Tx,
            desc: tx.base(),
            des0: regs::desc::OWN
        }],
        "one doorbell, and the DMA found OWN set when it arrived"
    );
    assert_eq!(b.sent().len(), 1, "sent inside the doorbell write");
}

#[test]
fn tx_buffer_then_descriptor_reach_the_dma_before_the_doorbell_on_non_coherent_memory() {
    let (b, arena) = cached_board(64, 64);
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, arena.cache());
    arena.record_order();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let seen = arena.take_order();
    let buf = u64::from(tx.desc_words(0).unwrap()[2]);
    assert_eq!(
        seen,
        [
            Seen::Clean { bus: buf, len: 64 },
            Seen::Clean {
                bus: tx.base(),
                len: 64
            },
            Seen::Doorbell {
                ring: Ring::Tx,
                desc: tx.base(),
                des0: regs::desc::OWN
            },
        ],
        "the frame, then its descriptor (fields and OWN in one write-back), then the doorbell"
    );
    assert_eq!(b.sent()[0], eth_frame([0xFF; 6], 60, 0));
}

/// A two-descriptor ring, both filled: the RX DMA waits at descriptor 0.
fn rx_full_ring<C: stmmac_coalesce::CacheOps>(b: &Board, cache: C) -> stmmac_coalesce::RxRing<C> {
    let mut rx = b.rx(rx_cfg(2, 1536), cache);
    b.inject(&eth_frame(US, 100, 0));
    b.inject(&eth_frame(US, 100, 1));
    assert_eq!(b.bus.model(|m| m.rx_delivered()), 2);
    drop(rx.receive(&b.mac).unwrap());
    rx
}

#[test]
fn rx_poll_demand_finds_the_refilled_descriptor_already_owned() {
    let b = Board::new();
    b.link_up();
    let mut rx = rx_full_ring(&b, Coherent);
    b.arena.record_order();
    drop(rx.receive(&b.mac).unwrap());
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(
        b.arena.take_order(),
        [Seen::Doorbell {
            ring: Ring::Rx,
            desc: rx.base(),
            des0: regs::desc::OWN
        }]
    );
}

#[test]
fn rx_refill_invalidates_the_buffer_and_writes_back_the_descriptor_before_the_poll_demand() {
    let (b, arena) = cached_board(64, 64);
    // Four descriptors (a ring with padding between descriptors has at least four), all
    // filled; the first frame is taken.
    let mut rx = b.rx(rx_cfg(4, 1536), arena.cache());
    for k in 0..4 {
        b.inject(&eth_frame(US, 100, k));
    }
    assert_eq!(b.bus.model(|m| m.rx_delivered()), 4);
    drop(rx.receive(&b.mac).unwrap());
    arena.record_order();
    for _ in 0..3 {
        drop(rx.receive(&b.mac).unwrap());
    }
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    let seen = arena.take_order();
    let stride = b.setup.desc_stride() as u64;
    let buf1 = u64::from(rx.desc_words(1).unwrap()[2]);
    assert!(
        in_order(
            &seen,
            &[
                Seen::Invalidate {
                    bus: buf1,
                    len: 1536
                },
                Seen::Clean {
                    bus: rx.base() + stride,
                    len: 64
                },
                Seen::Doorbell {
                    ring: Ring::Rx,
                    desc: rx.base(),
                    des0: regs::desc::OWN
                },
            ]
        ),
        "{seen:?}"
    );
    assert_eq!(
        seen.iter()
            .filter(|s| matches!(s, Seen::Doorbell { .. }))
            .count(),
        1
    );
}
