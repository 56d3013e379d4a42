//! Bad input: runt, oversized, errored (each ES cause) and checksum-failed
//! frames are dropped and counted, each cause in its own counter, and the ring goes on
//! delivering good frames after them. The DIC pattern survives the refill counter's change
//! from a 64-bit modulo to a compared phase.

use crate::harness::*;

use stmmac_coalesce::sim::{RxWireError, eth_frame};
use stmmac_coalesce::{CoalesceConfig, Coherent, Error, RxConfig, RxRing, RxStats};

fn cfg() -> RxConfig {
    RxConfig {
        descriptors: 8,
        buf_size: 1536,
        max_frame: 1000,
        ..RxConfig::default()
    }
}

fn got<G: Generation>(b: &Board<G>, rx: &mut RxRing) -> Option<Vec<u8>> {
    match rx.receive(&b.mac) {
        Ok(mut f) => {
            let mut s = [0u8; 2048];
            Some(f.bytes(&mut s).unwrap().to_vec())
        }
        Err(Error::WouldBlock) => None,
        Err(e) => panic!("{e:?}"),
    }
}

/// Only the counters a test names moved (poll demands aside).
fn only(s: RxStats, want: RxStats) {
    assert_eq!(
        s,
        RxStats {
            poll_demands: s.poll_demands,
            ..want
        }
    );
}

fn runts_under_60_bytes_without_fcs_are_dropped_and_counted<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(cfg(), Coherent);
    // 59 bytes + FCS = 63 < 64: a runt (before: only frames under 14 + 4 bytes were).
    let runt = |f: &[u8]| b.bus.model(|m| m.inject_runt(b.clock.now_ns(), f));
    runt(&eth_frame(US, 59, 1));
    assert_eq!(got(&b, &mut rx), None);
    runt(&eth_frame(US, 20, 1));
    assert_eq!(got(&b, &mut rx), None);
    only(
        rx.stats(),
        RxStats {
            runts: 2,
            ..Default::default()
        },
    );
    let f = eth_frame(US, 60, 2);
    runt(&f);
    assert_eq!(got(&b, &mut rx), Some(f));
    assert_eq!(rx.stats().frames, 1);
}

fn got_after<G: Generation>(b: &Board<G>, rx: &mut RxRing, f: &[u8]) -> Option<Vec<u8>> {
    b.inject(f);
    got(b, rx)
}

fn the_model_pads_short_frames_on_receive_as_senders_do<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(cfg(), Coherent);
    let arp = eth_frame([0xFF; 6], 42, 3);
    let mut want = arp.clone();
    want.resize(60, 0);
    assert_eq!(got_after(&b, &mut rx, &arp), Some(want));
}

fn oversized_frames_are_dropped_and_counted<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(cfg(), Coherent);
    assert_eq!(got_after(&b, &mut rx, &eth_frame(US, 1001, 1)), None);
    only(
        rx.stats(),
        RxStats {
            oversized: 1,
            ..Default::default()
        },
    );
    let f = eth_frame(US, 1000, 2);
    assert_eq!(got_after(&b, &mut rx, &f), Some(f));
}

fn each_error_cause_is_dropped_and_counted_on_its_own<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(cfg(), Coherent);
    let f = eth_frame(US, 100, 5);
    for e in [
        RxWireError::Crc,
        RxWireError::Dribble,
        RxWireError::Overflow,
        RxWireError::Watchdog,
        RxWireError::Length,
        RxWireError::Mii,
    ] {
        b.bus
            .model(|m| m.inject_with_error(b.clock.now_ns(), &f, e));
        assert_eq!(got(&b, &mut rx), None, "{e:?}");
    }
    only(
        rx.stats(),
        RxStats {
            // CRC, dribble (which comes with CE), overflow, watchdog carry ES.
            errors: 4,
            crc_errors: 2,
            dribble_errors: 1,
            overflow_errors: 1,
            watchdog_errors: 1,
            length_field_errors: 1,
            mii_errors: 1,
            ..Default::default()
        },
    );
    assert_eq!(got_after(&b, &mut rx, &f), Some(f));
}

fn error_bits_drop_a_frame_even_without_es<G: Generation>() {
    // A core (or a corrupted write-back) with CE but no ES: dropped, not delivered.
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(cfg(), Coherent);
    let f = eth_frame(US, 100, 5);
    b.inject(&f);
    let w = rx.desc_words(0).unwrap();
    assert_ne!(w[0] & (1 << 8), 0, "LS written");
    // Rewrite the write-back: CE set, ES clear (the descriptor is CPU-owned now).
    let base = rx.base();
    b.arena.write_u32(base, (w[0] & !(1 << 15)) | (1 << 1));
    assert_eq!(got(&b, &mut rx), None);
    only(
        rx.stats(),
        RxStats {
            crc_errors: 1,
            ..Default::default()
        },
    );
}

fn dic_pattern_is_linux_rule_over_many_refills<G: Generation>() {
    // rx_frames 3 with the watchdog: DIC clear on every 3rd refilled descriptor. The ring
    // keeps a compared phase instead of a 64-bit refill count taken modulo rx_frames.
    let b = Board::<G>::new();
    b.link_up();
    let c = CoalesceConfig {
        rx_usecs: 100,
        rx_frames: 3,
        ..CoalesceConfig::default()
    };
    let mut rx = b.rx(
        RxConfig {
            descriptors: 6,
            buf_size: 1536,
            coalesce: c,
            ..RxConfig::default()
        },
        Coherent,
    );
    let dic = |w: [u32; 4]| w[1] & (1 << 31) != 0;
    // Initial fill: refills 0..6.
    let mut k: u64 = 0;
    for i in 0..6 {
        assert_eq!(dic(rx.desc_words(i).unwrap()), c.rx_dic(k), "fill {i}");
        k += 1;
    }
    for n in 0..50usize {
        let f = eth_frame(US, 100, n as u8);
        assert_eq!(got_after(&b, &mut rx, &f), Some(f));
        let i = n % 6;
        assert_eq!(dic(rx.desc_words(i).unwrap()), c.rx_dic(k), "refill {k}");
        k += 1;
    }
}

on_both!(
    runts_under_60_bytes_without_fcs_are_dropped_and_counted,
    the_model_pads_short_frames_on_receive_as_senders_do,
    oversized_frames_are_dropped_and_counted,
);

/// GMAC 3.x's descriptor bits: each error cause of RDES0 (QoS's RDES3 has no length-error
/// bit, so its model delivers such a frame), ES-less error bits, and DIC in RDES1.
mod gmac3_only {
    #[test]
    fn each_error_cause_is_dropped_and_counted_on_its_own() {
        super::each_error_cause_is_dropped_and_counted_on_its_own::<crate::harness::OnGmac3>()
    }

    #[test]
    fn error_bits_drop_a_frame_even_without_es() {
        super::error_bits_drop_a_frame_even_without_es::<crate::harness::OnGmac3>()
    }

    #[test]
    fn dic_pattern_is_linux_rule_over_many_refills() {
        super::dic_pattern_is_linux_rule_over_many_refills::<crate::harness::OnGmac3>()
    }
}
