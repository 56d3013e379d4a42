//! Property tests: the IC rule against a reference, configuration checks never panic, the
//! rings keep their invariants under any sequence of operations, and no descriptor content
//! or register value can make the driver panic or deliver bytes it should not, on both
//! generations.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::Mdio;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use stmmac_coalesce::common::{MDIO_TIMEOUT_US, SWR_TIMEOUT_US};
use stmmac_coalesce::ring::coalesce::{ic_decision, riwt2usec, usec2riwt};
use stmmac_coalesce::sim::seed::test_frame;
use stmmac_coalesce::sim::{SIM_CSR_HZ, SimArena, eth_frame};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, DmaEvents, Dwmac, Error, NoTimer, RxConfig,
};

use crate::harness::*;

/// What the generic properties need beyond [`Generation`]: the extent of the register
/// block, and the reads of each MAC's own state.
pub trait Fuzzed: Generation {
    /// End of the register block the register-write properties write into.
    const REG_END: usize;
    /// Reads of the MAC's state after the writes (none may panic).
    fn peek(mac: &Self::Mac);
}

impl Fuzzed for OnGmac3 {
    const REG_END: usize = 0x106C;
    fn peek(mac: &Self::Mac) {
        let _ = (mac.tx_stopped(), mac.cur_rx_desc());
        mac.ack(u32::MAX);
    }
}

impl Fuzzed for OnQos {
    const REG_END: usize = 0x1170;
    fn peek(mac: &Self::Mac) {
        let _ = mac.channel_status();
    }
}

proptest! {

    // Regressions in `rings.proptest-regressions` beside this file (proptest's default looks

    // in tests/proptest-regressions/ once the binary has a main.rs).

    #![proptest_config(ProptestConfig {

        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(

            "proptest-regressions"

        ))),

        ..ProptestConfig::default()

    })]
    #[test]
    fn ic_once_per_tx_frames_single_descriptor(frames in 1u32..=256, n in 0u32..2000) {
        let mut count = 0;
        let mut ics = 0;
        for _ in 0..n {
            let (ic, c) = ic_decision(count + 1, 1, frames);
            count = c;
            ics += u32::from(ic);
        }
        prop_assert_eq!(ics, n / frames);
    }

    #[test]
    fn ic_rule_never_panics(count in any::<u32>(), pk in any::<u32>(), frames in any::<u32>()) {
        let (ic, c) = ic_decision(count, pk, frames);
        if frames == 0 { prop_assert!(!ic); }
        if ic { prop_assert_eq!(c, 0); }
    }

    #[test]
    fn validate_never_panics(tf in any::<u32>(), tu in any::<u32>(), ru in any::<u32>(),
                             rf in any::<u32>(), hz in any::<u32>(), len in 0usize..5000) {
        let cfg = CoalesceConfig { tx_frames: tf, tx_usecs: tu, rx_usecs: ru, rx_frames: rf };
        if let Ok(Some(riwt)) = cfg.validate(hz) {
            prop_assert!((0x10..=0xFF).contains(&riwt));
            prop_assert!(riwt2usec(riwt, hz) <= ru);
        }
        if cfg.validate_tx(len).is_ok() {
            prop_assert!(tf as usize <= len);
        }
        if let Ok(riwt) = cfg.validate_rx(len, hz) {
            prop_assert!(riwt == 0 || (0x10..=0xFF).contains(&riwt));
            prop_assert!(ru == 0 || rf as usize <= len);
        }
        let _ = usec2riwt(ru, hz);
        for k in 0..4u64 {
            let _ = cfg.rx_dic(k);
        }
    }

    #[test]
    fn dma_config_never_panics(line in any::<usize>(), bus in any::<usize>(), pbl in any::<u8>(), hw in any::<u32>()) {
        let cfg = DmaConfig { layout: None, cache_line: line, bus_width: bus, pbl, csr_hz: 0 };
        // SAFETY: a set-up only, never given to hardware.
        if let Ok(s) = unsafe { cfg.resolve_assuming_layout(stmmac_coalesce::gmac3::layout_from_hw_feature(hw)) } {
            prop_assert!(s.desc_stride() >= 16 && s.desc_stride() % line == 0);
            prop_assert!(s.dsl() < 32);
        }
        let _ = stmmac_coalesce::ring_bytes(line % 5000, bus % 10_000, line);
    }
}

/// One step of [`no_descriptor_content_panics_rx`]: (operation, word, descriptor, word
/// index, frame length).
pub type RxOp = (u8, u32, usize, usize, usize);

/// A rogue DMA (or memory corruption) writes anything into RX descriptor words between real
/// frames: `receive` never panics, delivers only frames whose length is within bounds and
/// whose bytes come from the ring, and keeps going.
pub fn no_descriptor_content_panics_rx<G: Fuzzed>(
    ops: Vec<RxOp>,
    buf: usize,
) -> Result<(), TestCaseError> {
    let b = Board::<G>::new();
    b.link_up();
    let max = (G::ring_capacity(8) * buf - 4).min(1518);
    let mut rx = b.rx(
        RxConfig {
            descriptors: 8,
            buf_size: buf,
            max_frame: max,
            ..RxConfig::default()
        },
        Coherent,
    );
    let base = rx.base();
    let stride = b.setup.desc_stride() as u64;
    let mut scratch = vec![0u8; 1518];
    for (op, word, idx, w, len) in ops {
        match op {
            0 => {
                b.arena
                    .write_u32(base + stride * idx as u64 + 4 * w as u64, word);
            }
            1 => b.inject(&eth_frame(US, len, 0xA5)),
            2 => {
                rx.service(&b.mac, DmaEvents::from_bits(word));
            }
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
    // With the garbage gone (frames still queued in the model's FIFO may arrive first),
    // a real frame still comes through.
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
    Ok(())
}

/// The same for TX: anything in a TX descriptor's words never panics reclaim, and the ring
/// never counts more frames in flight than it holds.
pub fn no_descriptor_content_panics_tx<G: Fuzzed>(
    words: Vec<(u32, usize, usize)>,
) -> Result<(), TestCaseError> {
    let b = Board::<G>::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let base = tx.base();
    let stride = b.setup.desc_stride() as u64;
    for (v, i, w) in words {
        let _ = tx.send(&b.mac, &test_frame());
        b.arena
            .write_u32(base + stride * i as u64 + 4 * w as u64, v);
        tx.reclaim();
        tx.service(&b.mac, b.mac.take_events());
        prop_assert!(tx.pending() <= tx.capacity());
        prop_assert!(tx.pending() <= G::ring_capacity(4));
    }
    Ok(())
}

/// The rings and the interrupt path over a block whose registers took any writes (bogus
/// bases, tails, poll demands, ring lengths, resets, stopped DMA): nothing panics.
pub fn rings_survive_any_register_writes<G: Fuzzed>(
    vals: Vec<(usize, u32)>,
) -> Result<(), TestCaseError> {
    let b = Board::<G>::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
    for (off, v) in vals {
        b.bus.write_word((off % G::REG_END) & !3, v);
        let ev = b.mac.take_events();
        tx.service(&b.mac, ev);
        rx.service(&b.mac, ev);
        let _ = tx.send(&b.mac, &test_frame());
        let _ = rx.receive(&b.mac).map(|f| f.len());
        let _ = tx.on_timer(&b.mac, 0);
    }
    let _ = b.mac.configure_dma(&DmaConfig::default());
    let _ = b.mac.configure_dma(&G::dma());
    let _ = b.mac.link();
    G::peek(&b.mac);
    Ok(())
}

prop_on_both! {
    fn no_descriptor_content_panics_rx(
        ops in proptest::collection::vec((0u8..4, any::<u32>(), 0usize..8, 0usize..4, 14usize..3000), 1..120),
        buf in prop::sample::select(vec![64usize, 256, 512, 1536]),
    );
    fn no_descriptor_content_panics_tx(
        words in proptest::collection::vec((any::<u32>(), 0usize..4, 0usize..4), 1..40),
    );
    fn rings_survive_any_register_writes(
        vals in proptest::collection::vec((0usize..0x1170, any::<u32>()), 0..64),
    );
}

mod regressions {
    use super::*;

    /// The cases proptest once shrank failures of `no_descriptor_content_panics_rx` to, on
    /// both generations (their seeds stay in `rings.proptest-regressions` too).
    fn rx_regressions<G: Fuzzed>() {
        let cases: [(Vec<RxOp>, usize); 4] = [
            (vec![(0, 0, 0, 0, 14)], 64),
            (vec![(1, 0, 0, 0, 1405)], 64),
            (
                vec![
                    (0, 8_118_272, 1, 0, 14),
                    (1, 0, 0, 0, 253),
                    (1, 0, 0, 0, 1789),
                    (0, 0, 0, 0, 14),
                ],
                256,
            ),
            (vec![(1, 0, 0, 0, 445), (1, 0, 0, 0, 445)], 64),
        ];
        for (ops, buf) in cases {
            no_descriptor_content_panics_rx::<G>(ops, buf).unwrap();
        }
    }

    on_both!(rx_regressions);
}

mod gmac3_only {
    use super::*;
    use stmmac_coalesce::Gmac3;
    use stmmac_coalesce::sim::Gmac3Model;

    type Board = crate::harness::Board<OnGmac3>;

    proptest! {

        // Regressions in `rings.proptest-regressions` beside this file (proptest's default looks

        // in tests/proptest-regressions/ once the binary has a main.rs).

        #![proptest_config(ProptestConfig {

            failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(

                "proptest-regressions"

            ))),

            ..ProptestConfig::default()

        })]
    #[test]
    fn tx_ring_invariants_hold(ops in proptest::collection::vec(0u8..5, 1..200), frames in 1u32..8) {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(8, no_timer(frames)), NoTimer, Coherent);
        let mut sent = 0u64;
        let mut stalled = false;
        for op in ops {
            match op {
                0 | 1 => match tx.send(&b.mac, &test_frame()) {
                    Ok(_) => sent += 1,
                    Err(Error::WouldBlock) => prop_assert_eq!(tx.pending(), 8),
                    Err(e) => prop_assert!(false, "{:?}", e),
                },
                2 => { tx.reclaim(); }
                3 => { tx.service(&b.mac, b.mac.take_events()); }
                _ => {
                    stalled = !stalled;
                    let now = b.clock.now_ns();
                    b.bus.model(|m| m.set_tx_stall(now, stalled));
                }
            }
            prop_assert!(tx.pending() <= 8);
            prop_assert_eq!(tx.stats().sent, sent);
            prop_assert_eq!(tx.stats().reclaimed + tx.pending() as u64, sent);
        }
        let now = b.clock.now_ns();
        b.bus.model(|m| m.set_tx_stall(now, false));
        tx.reclaim();
        prop_assert_eq!(tx.pending(), 0);
        prop_assert_eq!(b.sent().len() as u64, sent);
    }

    #[test]
    fn any_register_values_are_survivable(
        writes in proptest::collection::vec((0usize..0x106C, any::<u32>()), 0..64),
        garbage in proptest::collection::vec(any::<u32>(), 0..64),
        csr_hz in prop_oneof![Just(SIM_CSR_HZ), any::<u32>()],
        swr_stuck in prop::bool::weighted(0.1),
        mdio_stuck in prop::bool::weighted(0.1),
    ) {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000); // 100 ns per read
        let arena = SimArena::new(0x1000_0000, 16 * 1024);
        let bus = SimBus::new(&clock, Faults::new(Gmac3Model::new(arena.clone(), mdio_bus::sim::PhyModel::new(mdio_bus::PhyAddr::from_bits(0)), SIM_CSR_HZ)));
        // Random writes anywhere (bogus descriptor bases, poll demands, MDIO frames with any
        // divider, resets)...
        for (off, v) in writes {
            bus.write_word(off & !3, v);
        }
        // ...the next reads of every register answer garbage, and sometimes a busy bit
        // never clears.
        bus.model(|m| {
            m.inject(None, garbage.iter().copied());
            m.inner().set_swr_stuck(swr_stuck);
            m.inner().set_mdio_stuck(mdio_stuck);
        });
        let mac = Gmac3::new(bus.clone());
        // Plain reads: one bus read each (two for the MAC address), whatever they return.
        let r0 = bus.stats().reads;
        let _ = (mac.status(), mac.version(), mac.hw_feature(), mac.mac_address());
        prop_assert_eq!(bus.stats().reads - r0, 5);
        let r0 = bus.stats().reads;
        mac.ack(u32::MAX);
        prop_assert_eq!(bus.stats().reads - r0, 0);
        // The waits: each poll is one register read (100 ns) and one clock read (100 ns),
        // so a wait makes at most `timeout / 200 ns + 3` reads, whatever it reads.
        let max_wait = |timeout_us: u64| timeout_us * 1_000 / 200 + 3;
        let r0 = bus.stats().reads;
        match mac.soft_reset(&counter) {
            Ok(polls) => prop_assert!(polls >= 1),
            Err(e) => {
                prop_assert_eq!(e, Error::Timeout);
                prop_assert!(swr_stuck, "SWR self-clears on the model: only a stuck bit times out");
            }
        }
        prop_assert!(bus.stats().reads - r0 <= max_wait(SWR_TIMEOUT_US));
        match mac.mdio(&counter, csr_hz) {
            Err(e) => {
                prop_assert_eq!(e, Error::CsrClock);
                prop_assert!(stmmac_coalesce::gmac3::regs::csr_clock_range(csr_hz).is_none());
            }
            Ok(mut mdio) => {
                // A read: the first busy check, the frame's wait, MII_DATA.
                let r0 = bus.stats().reads;
                match mdio.read(mdio_bus::PhyAddr::from_bits(0), mdio_bus::RegAddr::from_bits(2)) {
                    Ok(_) => {}
                    Err(e) => {
                        prop_assert_eq!(e, hwtimer_core::Error::Timeout);
                        prop_assert!(mdio_stuck, "GB clears on the model: only a stuck bit times out");
                    }
                }
                prop_assert!(bus.stats().reads - r0 <= 2 * max_wait(MDIO_TIMEOUT_US) + 1);
                let r0 = bus.stats().reads;
                match mdio.write(mdio_bus::PhyAddr::from_bits(0), mdio_bus::RegAddr::from_bits(4), 0x01e1) {
                    Ok(()) => {}
                    Err(e) => prop_assert_eq!(e, hwtimer_core::Error::Timeout),
                }
                prop_assert!(bus.stats().reads - r0 <= 2 * max_wait(MDIO_TIMEOUT_US));
            }
        }
        // Everything injected was consumed or is still queued; nothing panicked.
        prop_assert!(bus.model(|m| m.pending()) <= garbage.len());
    }

    }
}

mod qos_only {
    use super::*;
    use stmmac_coalesce::Qos;
    use stmmac_coalesce::sim::QosModel;

    proptest! {

        // Regressions in `rings.proptest-regressions` beside this file (proptest's default looks

        // in tests/proptest-regressions/ once the binary has a main.rs).

        #![proptest_config(ProptestConfig {

            failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(

                "proptest-regressions"

            ))),

            ..ProptestConfig::default()

        })]
    /// Any register contents: `Qos`'s reads never panic, its waits stay within their
    /// bounds, and a probe of garbage either finds a QoS version or is a typed error.
    #[test]
    fn any_register_values_are_survivable(
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
        // 1 + 4 + 2 + 1, and the first take_events reads DMA_CH0_INTR_ENA once.
        prop_assert!(bus.stats().reads - r0 <= 9);
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
        let _ = mac.configure_dma(&OnQos::dma());
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
    }
}
