//! Property tests for the 4.x layout: what the 3.x one promises (tests/fuzz.rs) holds on
//! QoS too. No descriptor content panics the rings or delivers bytes from outside them; no
//! register value panics `Qos` or makes a wait unbounded; the rings survive any register
//! writes to the block.

use crate::harness::*;

type Board = crate::harness::Board<OnQos>;

fn dma() -> stmmac_coalesce::DmaConfig {
    OnQos::dma()
}
use hwtimer_core::RegisterBus;
use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::Mdio;
use proptest::prelude::*;
use stmmac_coalesce::common::{MDIO_TIMEOUT_US, SWR_TIMEOUT_US};
use stmmac_coalesce::sim::seed::test_frame;
use stmmac_coalesce::sim::{QosModel, SIM_CSR_HZ, SimArena, eth_frame};
use stmmac_coalesce::{Coherent, DmaEvents, Dwmac, Error, NoTimer, Qos, RxConfig};

proptest! {
    /// Anything written into QoS RX descriptor words (the owner/status word 3 included)
    /// between real frames: `receive` never panics, delivers only frames within bounds,
    /// and a real frame comes through after a recovery.
    #[test]
    fn no_descriptor_content_panics_qos_rx(
        ops in proptest::collection::vec((0u8..4, any::<u32>(), 0usize..8, 0usize..4, 14usize..3000), 1..120),
        buf in prop::sample::select(vec![64usize, 256, 512, 1536]),
    ) {
        let b = Board::new();
        b.link_up();
        let max = (7 * buf - 4).min(1518);
        let mut rx = b.rx(RxConfig { descriptors: 8, buf_size: buf, max_frame: max, ..RxConfig::default() }, Coherent);
        let base = rx.base();
        let stride = b.setup.desc_stride() as u64;
        let mut scratch = vec![0u8; 1518];
        for (op, word, idx, w, len) in ops {
            match op {
                0 => { b.arena.write_u32(base + stride * idx as u64 + 4 * w as u64, word); }
                1 => b.inject(&eth_frame(US, len, 0xA5)),
                2 => { rx.service(&b.mac, DmaEvents::from_bits(word)); }
                _ => {}
            }
            for _ in 0..3 {
                match rx.receive(&b.mac) {
                    Ok(mut f) => {
                        prop_assert!(f.len() >= 14 && f.len() <= max, "{}", f.len());
                        prop_assert!(f.descriptors() >= 1 && f.descriptors() <= 8);
                        match f.bytes(&mut scratch) {
                            Ok(bytes) => prop_assert_eq!(bytes.len(), f.len()),
                            Err(e) => prop_assert_eq!(e, Error::FrameSize { len: f.len() }),
                        }
                    }
                    Err(Error::WouldBlock) => break,
                    Err(e) => prop_assert!(false, "{:?}", e),
                }
            }
        }
        rx.recover(&b.mac);
        for _ in 0..64 {
            let _ = rx.receive(&b.mac);
        }
        let f = eth_frame(US, 100, 1);
        b.inject(&f);
        let mut found = false;
        for _ in 0..64 {
            if let Ok(mut fr) = rx.receive(&b.mac) {
                found |= fr.bytes(&mut scratch).map(<[u8]>::to_vec) == Ok(f.clone());
            }
        }
        prop_assert!(found);
    }

    /// Anything in a QoS TX descriptor never panics reclaim, and the ring never counts more
    /// frames in flight than it holds.
    #[test]
    fn no_descriptor_content_panics_qos_tx(words in proptest::collection::vec((any::<u32>(), 0usize..4, 0usize..4), 1..40)) {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        let base = tx.base();
        let stride = b.setup.desc_stride() as u64;
        for (v, i, w) in words {
            let _ = tx.send(&b.mac, &test_frame());
            b.arena.write_u32(base + stride * i as u64 + 4 * w as u64, v);
            tx.reclaim();
            tx.service(&b.mac, Dwmac::take_events(&b.mac));
            prop_assert!(tx.pending() <= tx.capacity());
        }
    }

    /// Any register contents: `Qos`'s reads never panic, its waits stay within their
    /// bounds, and a probe of garbage either finds a QoS version or is a typed error.
    #[test]
    fn any_register_values_are_survivable_on_dwmac4(
        writes in proptest::collection::vec((0usize..0x1170, any::<u32>()), 0..64),
        garbage in proptest::collection::vec(any::<u32>(), 0..64),
        csr_hz in prop_oneof![Just(SIM_CSR_HZ), any::<u32>()],
        swr_stuck in prop::bool::weighted(0.1),
        mdio_stuck in prop::bool::weighted(0.1),
    ) {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let arena = SimArena::new(0x1000_0000, 16 * 1024);
        let phy = mdio_bus::sim::PhyModel::new(mdio_bus::PhyAddr::from_bits(0));
        let bus = SimBus::new(&clock, Faults::new(QosModel::new(arena, phy, SIM_CSR_HZ)));
        for (off, v) in writes {
            bus.write_word(off & !3, v);
        }
        bus.model(|m| {
            m.inject(None, garbage.iter().copied());
            m.inner().set_swr_stuck(swr_stuck);
            m.inner().set_mdio_stuck(mdio_stuck);
        });
        let mac = match Qos::probe(bus.clone()) {
            Ok(mac) => mac,
            Err(Error::UnknownVersion { mac_version, .. }) => {
                prop_assert!(!(0x40..=0x52).contains(&(mac_version & 0xFF)));
                return Ok(());
            }
            Err(e) => { prop_assert!(false, "{e:?}"); unreachable!() }
        };
        let r0 = bus.stats().reads;
        let _ = (mac.channel_status(), mac.hw_features(), mac.mac_address(), mac.take_events());
        prop_assert!(bus.stats().reads - r0 <= 8);
        let max_wait = |timeout_us: u64| timeout_us * 1_000 / 200 + 3;
        let r0 = bus.stats().reads;
        match mac.soft_reset(&counter) {
            Ok(polls) => prop_assert!(polls >= 1),
            Err(e) => {
                prop_assert_eq!(e, Error::Timeout);
                prop_assert!(swr_stuck);
            }
        }
        prop_assert!(bus.stats().reads - r0 <= max_wait(SWR_TIMEOUT_US));
        let _ = mac.configure_dma(&dma());
        match mac.mdio(&counter, csr_hz) {
            Err(e) => prop_assert_eq!(e, Error::CsrClock),
            Ok(mut mdio) => {
                let r0 = bus.stats().reads;
                match mdio.read(mdio_bus::PhyAddr::from_bits(0), mdio_bus::RegAddr::from_bits(2)) {
                    Ok(_) => {}
                    Err(e) => {
                        prop_assert_eq!(e, hwtimer_core::Error::Timeout);
                        prop_assert!(mdio_stuck);
                    }
                }
                prop_assert!(bus.stats().reads - r0 <= 2 * max_wait(MDIO_TIMEOUT_US) + 1);
                let r0 = bus.stats().reads;
                let _ = mdio_bus::Mdio45::read_c45(
                    &mut mdio,
                    mdio_bus::PhyAddr::from_bits(1),
                    mdio_bus::DevAddr::PCS,
                    0x0002,
                );
                prop_assert!(bus.stats().reads - r0 <= 2 * max_wait(MDIO_TIMEOUT_US) + 1);
            }
        }
    }

    /// The rings and the interrupt path over a 4.x block whose registers took any writes
    /// (bogus bases, tails, ring lengths, resets, stopped DMA): nothing panics.
    #[test]
    fn qos_rings_survive_any_register_writes(vals in proptest::collection::vec((0usize..0x1170, any::<u32>()), 0..64)) {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
        for (off, v) in vals {
            b.bus.write_word(off & !3, v);
            let ev = Dwmac::take_events(&b.mac);
            tx.service(&b.mac, ev);
            rx.service(&b.mac, ev);
            let _ = tx.send(&b.mac, &test_frame());
            let _ = rx.receive(&b.mac).map(|f| f.len());
            let _ = tx.on_timer(&b.mac, 0);
        }
        let _ = b.mac.configure_dma(&dma());
        let _ = (Dwmac::link(&b.mac), b.mac.channel_status());
    }
}
