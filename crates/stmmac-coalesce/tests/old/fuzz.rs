//! Property tests: the IC rule against a reference, configuration checks never panic, and
//! the rings keep their invariants under any sequence of transmit / reclaim / DMA progress.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock};
use proptest::prelude::*;
use stmmac_coalesce::coalesce::{ic_decision, riwt2usec, usec2riwt};
use stmmac_coalesce::sim::seed::test_frame;
use stmmac_coalesce::sim::{DwmacModel, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{CoalesceConfig, Dwmac, Error, TimerStrategy, TxRing};

proptest! {
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
    fn validate_never_panics(tf in any::<u32>(), tu in any::<u32>(), ru in any::<u32>(), hz in any::<u32>()) {
        let cfg = CoalesceConfig { tx_frames: tf, tx_usecs: tu, rx_usecs: ru, rx_frames: 0 };
        if let Ok(Some(riwt)) = cfg.validate(hz) {
            prop_assert!((0x10..=0xFF).contains(&riwt));
            prop_assert!(riwt2usec(riwt, hz) <= ru);
        }
        let _ = usec2riwt(ru, hz);
    }

    #[test]
    fn ring_invariants_hold(ops in proptest::collection::vec(0u8..4, 1..200), frames in 0u32..8) {
        let clock = SimClock::new();
        let arena = SimArena::new(0x1000_0000, 64 * 1024);
        let bus = SimBus::new(&clock, DwmacModel::new(arena.clone(), mdio_bus::sim::PhyModel::bcm54612e(mdio_bus::PhyAddr::from_bits(0)), SIM_CSR_HZ));
        let mac = Dwmac::new(bus.clone());
        let cfg = CoalesceConfig { tx_frames: frames, tx_usecs: if frames == 0 { 10 } else { 0 }, ..CoalesceConfig::SEED };
        let mut tx = TxRing::new(arena.tx_descs(8).unwrap(), arena.buffers(8).unwrap(), arena.clone(), cfg, TimerStrategy::ArmOnce).unwrap();
        mac.set_ring_bases(tx.base(), 0);
        let mut sent = 0u64;
        for op in ops {
            match op {
                0 | 1 => match tx.transmit(&mac, &test_frame(), false) {
                    Ok(_) => sent += 1,
                    Err(Error::WouldBlock) => prop_assert_eq!(tx.pending(), 8),
                    Err(e) => prop_assert!(false, "{:?}", e),
                },
                2 => { tx.reclaim(); }
                _ => {
                    // Toggle the DMA: start (sends everything owned) or stop.
                    if bus.read_word(0x1018) & (1 << 13) == 0 { mac.start() } else { mac.stop() }
                }
            }
            prop_assert!(tx.pending() <= 8);
            prop_assert_eq!(tx.stats().sent, sent);
            prop_assert_eq!(tx.stats().reclaimed + tx.pending() as u64, sent);
        }
        // Everything the model sent was reclaimable, in order.
        mac.start();
        tx.reclaim();
        prop_assert_eq!(tx.pending(), 0);
        prop_assert_eq!(bus.model(|m| m.sent().len()) as u64, sent);
    }

    #[test]
    fn any_register_values_are_survivable(vals in proptest::collection::vec((0usize..0x106C, any::<u32>()), 0..64)) {
        let clock = SimClock::new();
        let arena = SimArena::new(0x1000_0000, 16 * 1024);
        let bus = SimBus::new(&clock, DwmacModel::new(arena.clone(), mdio_bus::sim::PhyModel::new(mdio_bus::PhyAddr::from_bits(0)), SIM_CSR_HZ));
        // Random writes anywhere (including bogus descriptor bases and poll demands).
        for (off, v) in vals {
            bus.write_word(off & !3, v);
        }
        let mac = Dwmac::new(bus.clone());
        let _ = mac.status();
        let _ = mac.version();
        mac.ack(u32::MAX);
    }
}
