//! Descriptor parsing on both DWMAC generations (GMAC 3.x and QoS 4.x/5.x, chosen by the
//! input): a rogue DMA (or memory corruption) writes any word into any RX descriptor
//! (status, control, buffer pointers) between real frames of any length, and any word into
//! any TX descriptor (a write-back) between frames sent; the DMA status and other register
//! reads answer anything, the RIWT watchdog runs. The driver never panics, delivers only
//! frames within `max_frame` made of whole descriptors of its ring, never counts more TX
//! frames in flight than the ring holds, and after `recover` a real frame comes through
//! each ring again, intact.
#![no_main]

// Each target uses its part of the shared board.
#[allow(dead_code)]
#[path = "common.rs"]
mod common;

use common::{Board, Gen, Input, OnGmac3, OnQos, US, arena, carve};
use libfuzzer_sys::fuzz_target;
use stmmac_coalesce::sim::{SIM_CSR_HZ, eth_frame};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Dwmac, Error, NoTimer, RxConfig, RxRing, TimerStrategy,
    TxConfig, TxRing, ring_bytes,
};

const DESCRIPTORS: usize = 8;
const TX_DESCRIPTORS: usize = 4;
const TX_BUF: usize = 1536;

/// OWN: RDES0 bit 31 on 3.x, RDES3 bit 31 on QoS (read format).
fn dma_owns<G: Gen>(w: [u32; 4]) -> bool {
    let own = if G::QOS { w[3] } else { w[0] };
    own & (1 << 31) != 0
}

/// The buffer a descriptor given to the DMA points at: RDES2 on 3.x, RDES1:RDES0 on QoS.
fn rx_buffer<G: Gen>(w: [u32; 4]) -> u64 {
    if G::QOS {
        u64::from(w[0]) | u64::from(w[1]) << 32
    } else {
        u64::from(w[2])
    }
}

fn run<G: Gen>(mut input: Input<'_>, buf: usize) {
    // A QoS ring keeps one descriptor between the tail and the DMA.
    let usable = DESCRIPTORS - usize::from(G::QOS);
    let max = (usable * buf - 4).min(1518);

    // Both rings (descriptors at the widest stride the set-up picks, buffers).
    let rx_len = ring_bytes(DESCRIPTORS, buf, 256);
    let tx_len = ring_bytes(TX_DESCRIPTORS, TX_BUF, 256);
    let (arena, whole) = arena(rx_len + tx_len + 512);
    let mut rest = Some(whole);
    let b = Board::<G>::new(&arena, |_| {});
    let mac = b.mac.as_ref().expect("the model's version");
    G::soft_reset(mac, &b.counter).unwrap();
    let setup = G::configure_dma(
        mac,
        &DmaConfig {
            csr_hz: SIM_CSR_HZ,
            ..DmaConfig::default()
        },
    )
    .unwrap();
    G::init_mac(mac);
    let cfg = RxConfig {
        descriptors: DESCRIPTORS,
        buf_size: buf,
        max_frame: max,
        ..RxConfig::default()
    };
    let mem = carve(&mut rest, ring_bytes(DESCRIPTORS, buf, setup.cache_line())).unwrap();
    let mut rx = RxRing::new(mem, &arena, &setup, cfg, Coherent).unwrap();
    rx.try_start(mac).unwrap();
    let tx_cfg = TxConfig {
        descriptors: TX_DESCRIPTORS,
        buf_size: TX_BUF,
        coalesce: CoalesceConfig {
            tx_frames: u32::from(input.u8() % 3) + 1,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let mem = carve(
        &mut rest,
        ring_bytes(TX_DESCRIPTORS, TX_BUF, setup.cache_line()),
    )
    .unwrap();
    let mut tx = TxRing::new(mem, &arena, &setup, tx_cfg, NoTimer, Coherent).unwrap();
    tx.try_start(mac).unwrap();
    b.link_up(mac);

    let base = rx.base();
    let tx_base = tx.base();
    let stride = setup.desc_stride() as u64;
    let ring_end = base + stride * DESCRIPTORS as u64;
    let mut scratch = vec![0u8; 1518];
    let mut dst = vec![0u8; 1518];

    let mut ops = 0;
    while !input.is_empty() && ops < 256 {
        ops += 1;
        let op = input.u8();
        let arg = input.u8();
        let word = input.u32();
        match op % 11 {
            // Any word into any RX descriptor word (of the 4 the driver and the DMA use).
            0 | 1 => {
                let desc = u64::from(arg) % DESCRIPTORS as u64;
                let w = u64::from(arg >> 3) % 4;
                assert!(arena.write_u32(base + stride * desc + 4 * w, word));
            }
            // A frame of any length from 14 to 3000 bytes off the wire.
            2 | 3 => {
                let len = 14 + (word as usize % 2987);
                b.inject(&eth_frame(US, len, arg));
            }
            // The interrupt path with any status bits.
            4 => {
                let _ = rx.service(mac, stmmac_coalesce::gmac3::events_from_status(word));
                let _ = tx.service(mac, stmmac_coalesce::gmac3::events_from_status(word));
            }
            // The next 1..=4 register reads (any register) answer `word`.
            5 => {
                let n = usize::from(arg % 4) + 1;
                b.bus
                    .model(|m| m.inject(None, core::iter::repeat_n(word, n)));
            }
            // Time passes (the RX watchdog, RIWT, fires; frames leave the wire).
            6 => b.clock.advance(u64::from(word % 1_000_000)),
            7 => rx.recover(mac),
            // A frame of 14 to 1514 bytes sent.
            8 => {
                let len = 14 + (word as usize % 1501);
                match tx.send(mac, &eth_frame(US, len, arg)) {
                    Ok(_) | Err(Error::WouldBlock) => {}
                    Err(e) => panic!("send: {e:?}"),
                }
            }
            // Any word into any TX descriptor word (a write-back), then reclaim.
            9 => {
                let desc = u64::from(arg) % TX_DESCRIPTORS as u64;
                let w = u64::from(arg >> 3) % 4;
                assert!(arena.write_u32(tx_base + stride * desc + 4 * w, word));
                tx.reclaim();
            }
            _ => {
                if arg & 1 == 0 {
                    tx.recover(mac);
                } else {
                    tx.service(mac, mac.take_events());
                    let _ = tx.on_timer(mac, b.clock.now_ns());
                }
            }
        }
        assert!(tx.pending() <= tx.capacity(), "{} in flight", tx.pending());
        for _ in 0..3 {
            match rx.receive(mac) {
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

    // With the garbage gone, the rings recover and a real frame still comes through each,
    // intact. Frames still queued in the model arrive first, and one longer than the ring
    // (up to 3000 bytes in 64-byte buffers) passes a ring's worth of descriptors per
    // `receive`, each given back as `partial`: drain until every descriptor is the DMA's.
    b.clear_faults();
    rx.recover(mac);
    let dma_owns_all = |rx: &RxRing<Coherent>| {
        (0..DESCRIPTORS).all(|i| rx.desc_words(i).is_some_and(dma_owns::<G>))
    };
    let mut drained = false;
    for _ in 0..1024 {
        let r = rx.receive(mac).map(|f| f.len());
        if r == Err(Error::WouldBlock) && dma_owns_all(&rx) {
            drained = true;
            break;
        }
    }
    assert!(drained, "the ring never drained: {:?}", rx.stats());
    // Refilled, every descriptor points the DMA at its own buffer in the ring's buffer
    // area (after the descriptors, one line-rounded buffer each), whatever was written.
    let line = setup.cache_line() as u64;
    let buf_stride = (buf as u64).div_ceil(line) * line;
    let bufs_end = ring_end + buf_stride * DESCRIPTORS as u64;
    let mut seen = Vec::new();
    for i in 0..DESCRIPTORS {
        let buf1 = rx_buffer::<G>(rx.desc_words(i).unwrap());
        assert!(
            buf1 >= ring_end && buf1 + buf as u64 <= bufs_end,
            "descriptor {i}'s buffer {buf1:#x} outside {ring_end:#x}..{bufs_end:#x}"
        );
        assert!(!seen.contains(&buf1), "buffer {buf1:#x} twice");
        seen.push(buf1);
    }
    let frame = eth_frame(US, 100, 1);
    b.inject(&frame);
    let mut found = false;
    for _ in 0..64 {
        if let Ok(mut f) = rx.receive(mac) {
            found |= f.bytes(&mut scratch).map(<[u8]>::to_vec) == Ok(frame.clone());
        }
        if found {
            break;
        }
    }
    assert!(found, "no frame after recover");

    // TX: after a recovery the ring sends a frame, and the wire carries it intact.
    tx.recover(mac);
    let before = b.model(|m| G::sent(m).len());
    let frame = eth_frame([0x02, 0, 0, 0, 0, 1], 200, 7);
    tx.send(mac, &frame).unwrap();
    b.clock.advance(1_000_000);
    let sent = b.model(|m| G::sent(m));
    assert!(
        sent[before..].iter().any(|f| f.starts_with(&frame)),
        "frame not sent after recover: {} new frames",
        sent.len() - before
    );
    G::stop(mac);
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let first = input.u8();
    let buf = [64usize, 256, 512, 1536][usize::from(first & 3)];
    if first & 4 == 0 {
        run::<OnGmac3>(input, buf);
    } else {
        run::<OnQos>(input, buf);
    }
});
