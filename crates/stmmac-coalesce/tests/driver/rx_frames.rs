//! RX frames longer than one buffer, and rings that stop receiving.

use crate::harness::*;

use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::eth_frame;
use stmmac_coalesce::{Coherent, Error, RxConfig};

// ---- RX frames longer than one buffer -------------------------------------------------

fn rx_frame_spanning_descriptors_is_assembled_exactly<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    let f = eth_frame(US, 1200, 0xC3);
    b.inject(&f);
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!((fr.len(), fr.descriptors()), (1200, 3));
    assert!(fr.as_slice().is_none(), "not contiguous: no lending");
    let mut scratch = [0u8; 1518];
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
    drop(fr);
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(rx.stats().multi_descriptor, 1);
}

fn rx_never_delivers_stale_bytes_from_an_earlier_frame<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    let mut scratch = [0u8; 1518];
    // Fill every buffer with 0xEE, then a shorter spanning frame reuses them.
    for _ in 0..2 {
        b.inject(&eth_frame(US, 1500, 0xEE));
        let mut fr = rx.receive(&b.mac).unwrap();
        fr.bytes(&mut scratch).unwrap();
    }
    let f = eth_frame(US, 600, 0x11);
    b.inject(&f);
    let mut fr = rx.receive(&b.mac).unwrap();
    let got = fr.bytes(&mut scratch).unwrap();
    assert_eq!(got.len(), 600, "FL says 600 + FCS: nothing more");
    assert_eq!(got, &f[..]);
    assert!(!got.contains(&0xEE));
    drop(fr);
    // Exactly three frames, none made of a part of another.
    assert_eq!(rx.stats().frames, 3);
    assert_eq!(rx.stats().partial, 0);
}

fn rx_fcs_spilling_into_its_own_descriptor_leaves_the_frame_contiguous<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    // 510 bytes + 4 FCS: the last 2 FCS bytes land in a second descriptor.
    let f = eth_frame(US, 510, 0x42);
    b.inject(&f);
    let fr = rx.receive(&b.mac).unwrap();
    assert_eq!((fr.len(), fr.descriptors()), (510, 2));
    assert_eq!(fr.as_slice().unwrap(), &f[..], "zero-copy: no FCS byte");
}

fn rx_spanning_frame_too_long_for_the_caller_is_dropped_and_counted<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 256), Coherent);
    b.inject(&eth_frame(US, 1000, 1));
    let mut small = [0u8; 600];
    {
        let mut fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.bytes(&mut small), Err(Error::FrameSize { len: 1000 }));
    }
    assert_eq!(rx.stats().not_assembled, 1);
    // Its descriptors went back: the ring goes on.
    let f = eth_frame(US, 100, 2);
    b.inject(&f);
    assert_eq!(rx.receive(&b.mac).unwrap().as_slice().unwrap(), &f[..]);
}

#[test]
fn rx_frame_is_complete_only_on_ls_even_when_own_is_already_clear() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    b.bus.model(|m| m.set_split_last_write(true));
    let f = eth_frame(US, 1000, 7);
    b.inject(&f);
    // OWN clear without LS on the last descriptor: in progress, not an error.
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(
        rx.stats(),
        stmmac_coalesce::RxStats {
            poll_demands: rx.stats().poll_demands,
            ..Default::default()
        }
    );
    b.bus.model(|m| m.complete_rx_writes());
    let mut scratch = [0u8; 1518];
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
}

fn rx_frame_larger_than_the_ring_is_dropped_and_the_ring_recovers<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    // Four descriptors the DMA may own (QoS: one more in the ring, the one at the tail
    // is never the DMA's), so a frame has 4 × 256 bytes.
    let cfg = RxConfig {
        descriptors: 8 - G::ring_capacity(4),
        buf_size: 256,
        max_frame: 1000,
        ..RxConfig::default()
    };
    assert_eq!(G::ring_capacity(cfg.descriptors), 4);
    let mut rx = b.rx(cfg, Coherent);
    // 1500 bytes cannot fit 4 × 256: the DMA fills the ring and waits mid-frame.
    b.inject(&eth_frame(US, 1500, 3));
    for _ in 0..8 {
        let _ = rx.receive(&b.mac);
    }
    assert!(rx.stats().partial >= 1, "{:?}", rx.stats());
    assert_eq!(rx.stats().frames, 0);
    let f = eth_frame(US, 200, 4);
    b.inject(&f);
    let got = rx.receive(&b.mac).unwrap();
    assert_eq!(got.as_slice().unwrap(), &f[..]);
}

#[test]
fn rx_ru_unsticks_a_ring_whose_next_descriptor_holds_no_frame_start() {
    // A rogue write clears OWN on the descriptor both the DMA and the driver wait at: the
    // DMA reports RU, the driver sees no frame start. Servicing RU gives it back.
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    // RU is not in the default mask: a driver that wants this path enables it (RUE).
    b.mac
        .set_interrupts(stmmac_coalesce::gmac3::regs::DMA_INTR_DEFAULT | (1 << 7));
    let f = eth_frame(US, 100, 1);
    b.inject(&f);
    drop(rx.receive(&b.mac).unwrap());
    let _ = rx.receive(&b.mac);
    b.arena.write_u32(rx.base() + 16, 0); // descriptor 1: CPU-owned, no FS, no LS
    b.inject(&eth_frame(US, 100, 2)); // RU: the DMA waits at descriptor 1
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    let ev = b.mac.take_events();
    assert!(ev.rx_no_buffer());
    rx.service(&b.mac, ev);
    let _ = rx.receive(&b.mac);
    assert!(rx.stats().partial >= 1);
    b.inject(&f);
    let mut got = false;
    for _ in 0..4 {
        if let Ok(fr) = rx.receive(&b.mac) {
            got |= fr.as_slice() == Some(&f[..]);
        }
        let ev = b.mac.take_events();
        rx.service(&b.mac, ev);
    }
    assert!(got, "{:?}", rx.stats());
}

on_both!(
    rx_frame_larger_than_the_ring_is_dropped_and_the_ring_recovers,
    rx_frame_spanning_descriptors_is_assembled_exactly,
    rx_never_delivers_stale_bytes_from_an_earlier_frame,
    rx_fcs_spilling_into_its_own_descriptor_leaves_the_frame_contiguous,
    rx_spanning_frame_too_long_for_the_caller_is_dropped_and_counted,
);
