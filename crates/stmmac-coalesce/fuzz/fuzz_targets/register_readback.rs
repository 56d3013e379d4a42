//! MAC bring-up on arbitrary register read-backs, on both DWMAC generations (GMAC 3.x and
//! QoS 4.x/5.x, chosen by the input): any register written anything first (bogus
//! descriptor bases, poll demands, MDIO frames, resets), then the next reads of any
//! register (or of one chosen register) answer the fuzzer's words, SWR or MDIO busy may be
//! stuck, the CSR clock and DMA configuration are arbitrary. Probe (QoS), soft reset,
//! HW_FEATURE, DMA set-up, MAC init, MDIO and the PHY's autonegotiation, ring creation and
//! start: nothing panics, every wait is bounded (counted in register reads), errors are the
//! typed ones.
//!
//! The driver's clock costs `POLL_NS` of virtual time a read (see common.rs), so a wait
//! that never ends reaches its deadline in a few thousand polls at most: an input with a
//! stuck bit costs milliseconds, not the second it would at 200 ns a poll.
#![no_main]

// Each target uses its part of the shared board.
#[allow(dead_code)]
#[path = "common.rs"]
mod common;

use common::{Board, Gen, Input, OnGmac3, OnQos, arena, carve, max_wait};
use hwtimer_core::RegisterBus;
use libfuzzer_sys::fuzz_target;
use stmmac_coalesce::Phy;
use stmmac_coalesce::sim::{AN_NS, SIM_CSR_HZ};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Dwmac, Error, NoTimer, RxConfig, RxRing, TimerStrategy,
    TxConfig, TxRing, ring_bytes,
};
use stmmac_coalesce::{MDIO_TIMEOUT_US, SWR_TIMEOUT_US};

/// Register block the random writes and targeted read-backs cover.
fn block<G: Gen>() -> usize {
    if G::QOS { 0x1170 } else { 0x106C }
}

fn run<G: Gen>(mut input: Input<'_>, flags: u8) {
    // Two rings of at most 8 descriptors of 2 KiB (whatever the line) and slack.
    let (arena, whole) = arena(2 * ring_bytes(8, 2048, 256) + 1024);
    let mut rest = Some(whole);
    let csr_hz = if flags & 1 == 0 {
        SIM_CSR_HZ
    } else {
        input.u32()
    };
    let dma = DmaConfig {
        layout: None,
        cache_line: [4usize, 16, 32, 64, 128, 0, 3, 48][usize::from(input.u8() & 7)],
        bus_width: [4usize, 8, 16, 0, 2, 5, 64, 4][usize::from(input.u8() & 7)],
        pbl: input.u8(),
        csr_hz,
    };
    let writes: Vec<(usize, u32)> = (0..usize::from(input.u8() % 16))
        .map(|_| {
            let off = (usize::from(input.u16()) % block::<G>()) & !3;
            (off, input.u32())
        })
        .collect();
    // What the next reads answer: `target` None = any register.
    let n = usize::from(input.u8() % 64);
    let target = match input.u8() {
        t @ 0..=0x7F => Some((usize::from(t) * 4) % block::<G>()),
        0x80..=0xBF => Some(0x1000 + (usize::from(input.u8()) % 0x1B) * 4),
        0xC0..=0xDF if G::QOS => Some(0x1100 + (usize::from(input.u8()) % 0x1C) * 4),
        _ => None,
    };
    let garbage: Vec<u32> = (0..n).map(|_| input.u32()).collect();
    let swr_stuck = flags & 0x06 == 0x06;
    let mdio_stuck = flags & 0x18 == 0x18;
    let b = Board::<G>::new(&arena, |bus| {
        // Random writes anywhere in the register block, then the read-backs.
        for &(off, v) in &writes {
            bus.write_word(off, v);
        }
        bus.model(|m| {
            m.inject(target, garbage.iter().copied());
            G::stick(m.inner(), swr_stuck, mdio_stuck);
        });
    });
    let mac = match &b.mac {
        Ok(mac) => mac,
        // Only a probe (QoS) refuses, and only a version it does not know.
        Err(Error::UnknownVersion { .. }) if G::QOS => return,
        Err(e) => panic!("attach: {e:?}"),
    };

    G::peek(mac);
    let r0 = b.bus.stats().reads;
    match G::soft_reset(mac, &b.counter) {
        Ok(polls) => assert!(polls >= 1),
        Err(e) => assert_eq!(e, Error::Timeout),
    }
    assert!(b.bus.stats().reads - r0 <= max_wait(SWR_TIMEOUT_US));

    let setup = match G::configure_dma(mac, &dma) {
        Ok(s) => {
            assert!(s.desc_stride() >= 16 && s.desc_stride() % s.cache_line() == 0);
            Some(s)
        }
        Err(Error::Config(_) | Error::DmaRunning) => None,
        Err(e) => panic!("configure_dma: {e:?}"),
    };
    G::init_mac(mac);

    // The MDIO and PHY part: one run in four, so the rest of bring-up gets the runs.
    if flags & 0x60 == 0x60 {
        let one = 2 * max_wait(MDIO_TIMEOUT_US) + 1;
        let reads = || b.bus.stats().reads;
        let r = G::with_mdio(mac, &b.counter, csr_hz, |mdio| {
            let phy = Phy::new(Board::<G>::phy_addr());
            let r0 = reads();
            let _ = mdio.phy_id(&phy);
            assert!(reads() - r0 <= 2 * one);
            let r0 = reads();
            let started = mdio.start_autoneg(&phy);
            // A handful of MDIO transactions, each two bounded waits and a data read.
            assert!(reads() - r0 <= 16 * one);
            if started {
                b.clock.advance(AN_NS);
            }
            let r0 = reads();
            let link = mdio.poll(&phy);
            assert!(reads() - r0 <= 16 * one);
            link
        });
        match r {
            Ok(Some(link)) => {
                mac.set_link(link);
            }
            Ok(None) => {}
            Err(e) => {
                assert_eq!(e, Error::CsrClock);
                assert!(stmmac_coalesce::common::csr_clock_range(csr_hz).is_none());
            }
        }
    }
    // The MDIO master is free again.
    let _ = G::with_mdio(mac, &b.counter, SIM_CSR_HZ, |_| ());

    // Rings on whatever set-up came out, started on the MAC as it now reads.
    if let Some(setup) = setup {
        let descs = [4usize, 8, 1, 0][usize::from(input.u8() & 3)];
        let buf = usize::from(input.u16() % 2049);
        if let Some(mem) = carve(&mut rest, ring_bytes(8, 2048, setup.cache_line())) {
            let cfg = RxConfig {
                descriptors: descs,
                buf_size: buf,
                ..RxConfig::default()
            };
            if let Ok(mut rx) = RxRing::new(mem, &arena, &setup, cfg, Coherent) {
                let _ = rx.try_start(mac);
                rx.service(mac, mac.take_events());
                let _ = rx.receive(mac).map(|f| f.len());
                rx.recover(mac);
            }
        }
        if let Some(mem) = carve(&mut rest, ring_bytes(8, 2048, setup.cache_line())) {
            let cfg = TxConfig {
                descriptors: descs,
                buf_size: buf,
                coalesce: CoalesceConfig {
                    tx_frames: u32::from(input.u8()),
                    tx_usecs: 0,
                    ..CoalesceConfig::default()
                },
                strategy: TimerStrategy::ArmOnce,
            };
            if let Ok(mut tx) = TxRing::new(mem, &arena, &setup, cfg, NoTimer, Coherent) {
                let _ = tx.try_start(mac);
                let _ = tx.send(mac, &[0x5a; 60]);
                tx.service(mac, mac.take_events());
                tx.reclaim();
                let _ = tx.on_timer(mac, 0);
                tx.recover(mac);
            }
        }
    }
    let _ = mac.link();
    G::peek(mac);
    G::stop(mac);
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let flags = input.u8();
    if flags & 0x80 == 0 {
        run::<OnGmac3>(input, flags);
    } else {
        run::<OnQos>(input, flags);
    }
});
