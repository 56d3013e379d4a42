//! MAC bring-up on arbitrary register read-backs: any register written anything first
//! (bogus descriptor bases, poll demands, MDIO frames, resets), then the next reads of any
//! register (or of one chosen register) answer the fuzzer's words, SWR or MDIO GB may be
//! stuck, the CSR clock and DMA configuration are arbitrary. Soft reset, HW_FEATURE, DMA
//! set-up, MAC init, MDIO and the PHY's autonegotiation, ring creation and start: nothing
//! panics, every wait is bounded (counted in register reads), errors are the typed ones.
#![no_main]

// Each target uses its part of the shared board.
#[allow(dead_code)]
#[path = "common.rs"]
mod common;

use common::{Board, Input, US};
use hwtimer_core::RegisterBus;
use libfuzzer_sys::fuzz_target;
use stmmac_coalesce::common::{MDIO_TIMEOUT_US, SWR_TIMEOUT_US};
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::sim::{AN_NS, SIM_CSR_HZ};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Error, FrameFilter, MacConfig, NoTimer, RxConfig, RxRing,
    TimerStrategy, TxConfig, TxRing, ring_bytes,
};

/// Upper bound of the register reads one bounded wait of `timeout_us` makes: each poll is
/// a register read and a counter read (each access advances the model 100 ns).
fn max_wait(timeout_us: u64) -> u64 {
    timeout_us * 1_000 / 200 + 3
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    // Two rings of at most 8 descriptors of 2 KiB (whatever the line) and slack.
    let b = Board::new(2 * ring_bytes(8, 2048, 256) + 1024);
    let flags = input.u8();
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
    // Random writes anywhere in the register block.
    for _ in 0..usize::from(input.u8() % 16) {
        let off = usize::from(input.u16() % 0x106C) & !3;
        let v = input.u32();
        b.bus.write_word(off, v);
    }
    // What the next reads answer: `target` None = any register.
    let n = usize::from(input.u8() % 64);
    let target = match input.u8() {
        t @ 0..=0x7F => Some((usize::from(t) * 4) % 0x106C),
        0x80..=0xBF => Some(0x1000 + (usize::from(input.u8()) % 0x1B) * 4),
        _ => None,
    };
    let garbage: Vec<u32> = (0..n).map(|_| input.u32()).collect();
    b.bus.model(|m| {
        m.inject(target, garbage.iter().copied());
        // A stuck bit makes every wait run to its timeout (thousands of polls): rarer.
        m.inner().set_swr_stuck(flags & 0x06 == 0x06);
        m.inner().set_mdio_stuck(flags & 0x18 == 0x18);
    });

    let _ = (
        b.mac.status(),
        b.mac.version(),
        b.mac.hw_feature(),
        b.mac.mac_address(),
    );
    let r0 = b.bus.stats().reads;
    match b.mac.soft_reset(&b.counter) {
        Ok(polls) => assert!(polls >= 1),
        Err(e) => assert_eq!(e, Error::Timeout),
    }
    assert!(b.bus.stats().reads - r0 <= max_wait(SWR_TIMEOUT_US));

    let setup = match b.mac.configure_dma(&dma) {
        Ok(s) => {
            assert!(s.desc_stride() >= 16 && s.desc_stride() % s.cache_line() == 0);
            Some(s)
        }
        Err(Error::Config(_) | Error::DmaRunning) => None,
        Err(e) => panic!("configure_dma: {e:?}"),
    };
    b.mac.init_mac(&MacConfig {
        address: US,
        filter: FrameFilter::default(),
    });

    // The MDIO and PHY part costs a few hundred milliseconds a run on the model (frames
    // at MDC speed, polled): one run in four, so the rest of bring-up gets the runs.
    let mdio = if flags & 0x60 == 0x60 {
        Some(b.mac.mdio(&b.counter, csr_hz))
    } else {
        None
    };
    match mdio {
        None => {}
        Some(Err(e)) => {
            assert_eq!(e, Error::CsrClock);
            assert!(stmmac_coalesce::gmac3::regs::csr_clock_range(csr_hz).is_none());
        }
        Some(Ok(mut mdio)) => {
            let phy = Phy::new(Board::phy_addr());
            let r0 = b.bus.stats().reads;
            let _ = phy.id(&mut mdio);
            assert!(b.bus.stats().reads - r0 <= 2 * (2 * max_wait(MDIO_TIMEOUT_US) + 1));
            let r0 = b.bus.stats().reads;
            let started = phy.start_autoneg(&mut mdio, Advertise::default());
            // A handful of MDIO transactions, each two bounded waits and a data read.
            assert!(b.bus.stats().reads - r0 <= 16 * (2 * max_wait(MDIO_TIMEOUT_US) + 1));
            if started.is_ok() {
                b.clock.advance(AN_NS);
            }
            let r0 = b.bus.stats().reads;
            if let Ok(link) = phy.poll(&mut mdio) {
                b.mac.set_link(link);
            }
            assert!(b.bus.stats().reads - r0 <= 16 * (2 * max_wait(MDIO_TIMEOUT_US) + 1));
        }
    }
    drop(b.mac.mdio(&b.counter, SIM_CSR_HZ));

    // Rings on whatever set-up came out, started on the MAC as it now reads.
    if let Some(setup) = setup {
        let descs = [4usize, 8, 1, 0][usize::from(input.u8() & 3)];
        let buf = usize::from(input.u16() % 2049);
        if let Some(mem) = b.arena.region(ring_bytes(8, 2048, setup.cache_line())) {
            let cfg = RxConfig {
                descriptors: descs,
                buf_size: buf,
                ..RxConfig::default()
            };
            if let Ok(mut rx) = RxRing::new(mem, &b.arena, &setup, cfg, Coherent) {
                let _ = rx.try_start(&b.mac);
                rx.service(&b.mac, b.mac.take_events());
                let _ = rx.receive(&b.mac).map(|f| f.len());
                rx.recover(&b.mac);
            }
        }
        if let Some(mem) = b.arena.region(ring_bytes(8, 2048, setup.cache_line())) {
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
            if let Ok(mut tx) = TxRing::new(mem, &b.arena, &setup, cfg, NoTimer, Coherent) {
                let _ = tx.try_start(&b.mac);
                let _ = tx.send(&b.mac, &[0x5a; 60]);
                tx.service(&b.mac, b.mac.take_events());
                tx.reclaim();
                let _ = tx.on_timer(&b.mac, 0);
            }
        }
    }
    let _ = (b.mac.link(), b.mac.tx_stopped(), b.mac.cur_rx_desc());
    b.mac.stop();
    b.mac.ack(u32::MAX);
});
