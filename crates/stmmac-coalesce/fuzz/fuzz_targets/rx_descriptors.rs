//! RX descriptor parsing: a rogue DMA (or memory corruption) writes any word into any RX
//! descriptor (status, control, buffer pointers) between real frames of any length, the
//! DMA status and other register reads answer anything, the RIWT watchdog runs: the driver
//! never panics, delivers only frames within `max_frame` made of whole descriptors of its
//! ring, and after `recover` a real frame comes through again.
#![no_main]

// Each target uses its part of the shared board.
#[allow(dead_code)]
#[path = "common.rs"]
mod common;

use common::{Board, Input, US};
use libfuzzer_sys::fuzz_target;
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::sim::{AN_NS, SIM_CSR_HZ, eth_frame};
use stmmac_coalesce::{Coherent, DmaConfig, DmaEvents, Error, RxConfig, RxRing, ring_bytes};

const DESCRIPTORS: usize = 8;

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let buf = [64usize, 256, 512, 1536][usize::from(input.u8() & 3)];
    let max = (DESCRIPTORS * buf - 4).min(1518);

    // The ring (descriptors at the widest stride the set-up picks, buffers) and slack.
    let b = Board::new(ring_bytes(DESCRIPTORS, buf, 256) + 512);
    b.mac.soft_reset(&b.counter).unwrap();
    let setup = b
        .mac
        .configure_dma(&DmaConfig {
            csr_hz: SIM_CSR_HZ,
            ..DmaConfig::default()
        })
        .unwrap();
    b.mac.init_mac(&stmmac_coalesce::MacConfig {
        address: US,
        filter: stmmac_coalesce::FrameFilter::default(),
    });
    let cfg = RxConfig {
        descriptors: DESCRIPTORS,
        buf_size: buf,
        max_frame: max,
        ..RxConfig::default()
    };
    let mem = b
        .arena
        .region(ring_bytes(
            cfg.descriptors,
            cfg.buf_size,
            setup.cache_line(),
        ))
        .unwrap();
    let mut rx = RxRing::new(mem, &b.arena, &setup, cfg, Coherent).unwrap();
    rx.start(&b.mac);
    {
        let phy = Phy::new(Board::phy_addr());
        let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
        phy.start_autoneg(&mut mdio, Advertise::default()).unwrap();
        b.clock.advance(AN_NS);
        let link = phy.poll(&mut mdio).unwrap();
        b.mac.set_link(link);
    }
    // The 3.x arena is below 4 GiB.
    let base = u32::try_from(rx.base()).expect("a 32-bit ring");
    let stride = setup.desc_stride() as u32;
    let ring_end = base + stride * DESCRIPTORS as u32;
    let mut scratch = vec![0u8; 1518];
    let mut dst = vec![0u8; 1518];

    let mut ops = 0;
    while !input.is_empty() && ops < 256 {
        ops += 1;
        let op = input.u8();
        let arg = input.u8();
        let word = input.u32();
        match op % 8 {
            // Any word into any descriptor word (of the 4 the driver and the DMA use).
            0 | 1 => {
                let desc = u32::from(arg) % DESCRIPTORS as u32;
                let w = u32::from(arg >> 3) % 4;
                assert!(b.arena.write_u32(base + stride * desc + 4 * w, word));
            }
            // A frame of any length from 14 to 3000 bytes off the wire.
            2 | 3 => {
                let len = 14 + (word as usize % 2987);
                let now = b.clock.now_ns();
                b.bus
                    .model(|m| m.inner().inject(now, &eth_frame(US, len, arg)));
            }
            // The interrupt path with any status bits.
            4 => {
                let _ = rx.service(&b.mac, DmaEvents::from_bits(word));
            }
            // The next 1..=4 register reads (any register) answer `word`.
            5 => {
                let n = usize::from(arg % 4) + 1;
                b.bus
                    .model(|m| m.inject(None, core::iter::repeat_n(word, n)));
            }
            // Time passes (the RX watchdog, RIWT, fires).
            6 => b.clock.advance(u64::from(word % 1_000_000)),
            _ => rx.recover(&b.mac),
        }
        for _ in 0..3 {
            match rx.receive(&b.mac) {
                Ok(mut f) => {
                    let len = f.len();
                    assert!((14..=max).contains(&len), "length {len} (max {max})");
                    let n = f.descriptors();
                    assert!((1..=DESCRIPTORS).contains(&n), "{n} descriptors");
                    assert!(len <= n * buf, "{len} bytes in {n} buffers of {buf}");
                    if let Some(s) = f.as_slice() {
                        assert_eq!(s.len(), len);
                    }
                    match f.bytes(&mut scratch) {
                        Ok(bytes) => assert_eq!(bytes.len(), len),
                        Err(e) => assert_eq!(e, Error::FrameSize { len }),
                    }
                    match f.copy_to(&mut dst) {
                        Ok(n) => assert_eq!(n, len),
                        Err(e) => assert_eq!(e, Error::FrameSize { len }),
                    }
                }
                Err(Error::WouldBlock) => break,
                Err(e) => panic!("receive: {e:?}"),
            }
        }
    }

    // With the garbage gone, the ring recovers and a real frame still comes through,
    // intact. Frames still queued in the model arrive first, and one longer than the ring
    // (up to 3000 bytes in 64-byte buffers) passes a ring's worth of descriptors per
    // `receive`, each given back as `partial`: drain until every descriptor is the DMA's.
    b.clear_faults();
    rx.recover(&b.mac);
    let dma_owns_all = |rx: &RxRing<Coherent>| {
        (0..DESCRIPTORS).all(|i| rx.desc_words(i).is_some_and(|w| w[0] & (1 << 31) != 0))
    };
    let mut drained = false;
    for _ in 0..1024 {
        let r = rx.receive(&b.mac).map(|f| f.len());
        if r == Err(Error::WouldBlock) && dma_owns_all(&rx) {
            drained = true;
            break;
        }
    }
    assert!(drained, "the ring never drained: {:?}", rx.stats());
    // Refilled, every descriptor points the DMA at its own buffer in the ring's buffer
    // area (after the descriptors, one line-rounded buffer each), whatever was written.
    let line = setup.cache_line() as u32;
    let buf_stride = (buf as u32).div_ceil(line) * line;
    let bufs_end = ring_end + buf_stride * DESCRIPTORS as u32;
    let mut seen = Vec::new();
    for i in 0..DESCRIPTORS {
        let [_, _, buf1, _] = rx.desc_words(i).unwrap();
        assert!(
            buf1 >= ring_end && buf1 + buf as u32 <= bufs_end,
            "descriptor {i}'s buffer {buf1:#x} outside {ring_end:#x}..{bufs_end:#x}"
        );
        assert!(!seen.contains(&buf1), "buffer {buf1:#x} twice");
        seen.push(buf1);
    }
    let frame = eth_frame(US, 100, 1);
    let now = b.clock.now_ns();
    b.bus.model(|m| m.inner().inject(now, &frame));
    let mut found = false;
    for _ in 0..64 {
        if let Ok(mut f) = rx.receive(&b.mac) {
            found |= f.bytes(&mut scratch).map(<[u8]>::to_vec) == Ok(frame.clone());
        }
        if found {
            break;
        }
    }
    assert!(found, "no frame after recover");
});
