//! The DSA/EDSA tag codec on any input: it never panics, an error writes nothing, and every
//! tag kind survives a round trip through `tag_into`, `parse`, `untag_into` and
//! `untag_in_place`, with an 802.1Q header folded into the tag and rebuilt from it exactly.
//! Default 256 cases per property; `PROPTEST_CASES` overrides.

use mv88e6xxx_smi::dsa::{self, DsaError, ETH_P_8021Q, Source, Tag, TagFormat, TagVlan, TrapCode};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn any_fmt() -> impl Strategy<Value = TagFormat> {
    prop_oneof![
        Just(TagFormat::Dsa),
        Just(TagFormat::EDSA),
        any::<u16>().prop_map(|ethertype| TagFormat::Edsa { ethertype }),
    ]
}

fn code() -> impl Strategy<Value = TrapCode> {
    (0u8..6).prop_map(|c| TrapCode::from_bits(c).unwrap())
}

/// VLAN fields, in range when `valid`, anything otherwise.
fn vlan(valid: bool) -> impl Strategy<Value = TagVlan> {
    let (vid, prio) = if valid {
        (4095, 7)
    } else {
        (u16::MAX, u8::MAX)
    };
    (any::<bool>(), 0..=vid, 0..=prio, any::<bool>()).prop_map(|(tagged, vid, prio, cfi)| TagVlan {
        tagged,
        vid,
        prio,
        cfi,
    })
}

/// A tag of any kind, fields in range when `valid`.
fn tag(valid: bool) -> impl Strategy<Value = Tag> {
    let max = if valid { 31u8 } else { u8::MAX };
    prop_oneof![
        (0..=max, 0..=max, code(), vlan(valid)).prop_map(|(dev, port, code, vlan)| Tag::ToCpu {
            dev,
            port,
            code,
            vlan
        }),
        (0..=max, 0..=max, vlan(valid)).prop_map(|(dev, port, vlan)| Tag::FromCpu {
            dev,
            port,
            vlan
        }),
        (0..=max, 0..=max, any::<bool>(), vlan(valid)).prop_map(|(dev, port, ingress, vlan)| {
            Tag::ToSniffer {
                dev,
                port,
                ingress,
                vlan,
            }
        }),
        (0..=max, 0..=max, any::<bool>(), vlan(valid)).prop_map(|(dev, n, trunk, vlan)| {
            Tag::Forward {
                dev,
                src: if trunk {
                    Source::Trunk(n)
                } else {
                    Source::Port(n)
                },
                vlan,
            }
        }),
    ]
}

/// A tag, in range three times in four (fields drawn from the whole of their types are
/// almost never all in range).
fn any_tag() -> impl Strategy<Value = Tag> {
    prop_oneof![3 => tag(true), 1 => tag(false)]
}

/// A plain Ethernet frame (EtherType other than 802.1Q), 14..=80 bytes.
fn plain_frame() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 12),
        any::<u16>().prop_filter("not 802.1Q", |et| *et != ETH_P_8021Q),
        prop::collection::vec(any::<u8>(), 0..66),
    )
        .prop_map(|(macs, et, payload)| {
            let mut f = macs;
            f.extend_from_slice(&et.to_be_bytes());
            f.extend_from_slice(&payload);
            f
        })
}

/// `frame` with an 802.1Q header (TCI `tci`) after the source MAC.
fn with_8021q(frame: &[u8], tci: u16) -> Vec<u8> {
    let mut f = frame[..12].to_vec();
    f.extend_from_slice(&ETH_P_8021Q.to_be_bytes());
    f.extend_from_slice(&tci.to_be_bytes());
    f.extend_from_slice(&frame[12..]);
    f
}

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it: proptest's default would
    // put them in tests/proptest-regressions/, since this binary has a main.rs.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(256))
    })]

    /// Any bytes, any format, any buffer: no panic; `untag_into`, `untag_in_place` and
    /// `parse` agree; an error leaves the buffer and the frame untouched.
    #[test]
    fn receive_never_panics_and_paths_agree(
        frame in prop::collection::vec(any::<u8>(), 0..80),
        fmt in any_fmt(),
        out_len in 0usize..96,
        plant_edsa in any::<bool>(),
    ) {
        // Half the EDSA cases carry the right EtherType (and any reserved bytes), so
        // that their tags get decoded too.
        let mut frame = frame;
        if let (TagFormat::Edsa { ethertype }, true, Some(h)) =
            (fmt, plant_edsa, frame.get_mut(12..14))
        {
            h.copy_from_slice(&ethertype.to_be_bytes());
        }
        let parsed = dsa::parse(&frame, fmt);
        let mut out = vec![0xA5u8; out_len];
        let into = dsa::untag_into(&frame, fmt, &mut out);
        let mut in_place = frame.clone();
        let place = dsa::untag_in_place(&mut in_place, fmt);
        match parsed {
            Err(e) => {
                prop_assert_eq!(into, Err(e));
                prop_assert_eq!(place, Err(e));
                prop_assert!(out.iter().all(|b| *b == 0xA5));
                prop_assert_eq!(&in_place, &frame);
            }
            Ok(p) => {
                let wire = p.wire_len();
                let (tag, start) = place.unwrap();
                prop_assert_eq!(tag, p.tag);
                prop_assert_eq!(in_place.len() - start, wire);
                if out_len >= wire {
                    prop_assert_eq!(into, Ok((p.tag, wire)));
                    prop_assert_eq!(&out[..wire], &in_place[start..]);
                } else {
                    prop_assert_eq!(into, Err(DsaError::OutTooSmall { need: wire, have: out_len }));
                    prop_assert!(out.iter().all(|b| *b == 0xA5));
                }
            }
        }
    }

    /// Any tag (fields in range or not) on any frame into any buffer: no panic; an error
    /// writes nothing; a success writes the frame's length plus the header.
    #[test]
    fn transmit_never_panics(
        frame in prop::collection::vec(any::<u8>(), 0..80),
        tag in any_tag(),
        fmt in any_fmt(),
        out_len in 0usize..96,
    ) {
        let mut out = vec![0xA5u8; out_len];
        match dsa::tag_into(&frame, &tag, fmt, &mut out) {
            Err(_) => prop_assert!(out.iter().all(|b| *b == 0xA5)),
            Ok(n) => {
                let folded = frame.get(12..14) == Some(&ETH_P_8021Q.to_be_bytes()[..]);
                let added = if folded { fmt.header_len() - 4 } else { fmt.header_len() };
                prop_assert_eq!(n, frame.len() + added);
            }
        }
    }

    /// `tag_in_place` with any headroom builds what `tag_into` builds, or fails as it does
    /// (or for want of headroom) and writes nothing.
    #[test]
    fn tag_in_place_matches_tag_into(
        frame in prop::collection::vec(any::<u8>(), 0..80),
        vlan_tci in prop::option::of(any::<u16>()),
        tag in any_tag(),
        fmt in any_fmt(),
        headroom in 0usize..10,
    ) {
        let frame = match vlan_tci {
            Some(tci) if frame.len() >= 12 => with_8021q(&frame, tci),
            _ => frame,
        };
        let mut buf = vec![0xEEu8; headroom];
        buf.extend_from_slice(&frame);
        let before = buf.clone();
        let mut out = [0u8; 100];
        let into = dsa::tag_into(&frame, &tag, fmt, &mut out);
        match (dsa::tag_in_place(&mut buf, headroom, &tag, fmt), into) {
            (Ok(start), Ok(n)) => prop_assert_eq!(&buf[start..], &out[..n]),
            (Err(DsaError::Headroom { need, have }), Ok(n)) => {
                prop_assert_eq!(have, headroom);
                prop_assert_eq!(need, n - frame.len());
                prop_assert!(need > headroom);
                prop_assert_eq!(&buf, &before);
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(a, b);
                prop_assert_eq!(&buf, &before);
            }
            (a, b) => prop_assert!(false, "in place {a:?}, into {b:?}"),
        }
    }

    /// Out-of-range fields are refused, never truncated into the tag.
    #[test]
    fn out_of_range_is_refused(tag in any_tag()) {
        let v = tag.vlan();
        let (dev, n) = match tag {
            Tag::ToCpu { dev, port, .. } | Tag::FromCpu { dev, port, .. }
            | Tag::ToSniffer { dev, port, .. } => (dev, port),
            Tag::Forward { dev, src: Source::Port(n) | Source::Trunk(n), .. } => (dev, n),
        };
        let in_range = dev <= 31 && n <= 31 && v.vid <= 4095 && v.prio <= 7;
        match tag.to_bytes() {
            Ok(_) => prop_assert!(in_range),
            Err(DsaError::OutOfRange { .. }) => prop_assert!(!in_range),
            Err(e) => prop_assert!(false, "{e:?}"),
        }
    }

    /// Every tag kind: bytes and back.
    #[test]
    fn tag_bytes_round_trip(tag in tag(true)) {
        prop_assert_eq!(Tag::from_bytes(tag.to_bytes().unwrap()), Ok(tag));
    }

    /// Any 4 bytes that decode re-encode to a tag that decodes the same (unused bits
    /// dropped, nothing else changed).
    #[test]
    fn decode_encode_decode(b in any::<[u8; 4]>()) {
        if let Ok(tag) = Tag::from_bytes(b) {
            let again = tag.to_bytes().unwrap();
            prop_assert_eq!(Tag::from_bytes(again), Ok(tag));
            // Command, tagged, device, port, CFI, priority and VID survive untouched.
            prop_assert_eq!(again[0], b[0]);
            prop_assert_eq!(again[1] & 0xF9, b[1] & 0xF9);
            prop_assert_eq!(again[2] & 0xEF, b[2] & 0xEF);
            prop_assert_eq!(again[3], b[3]);
        }
    }

    /// A plain frame, any tag kind: tag_into then parse gives the tag back, and untagging
    /// gives the frame back, with an 802.1Q header inserted when the tag says tagged.
    #[test]
    fn plain_frame_round_trip(frame in plain_frame(), tag in tag(true), fmt in any_fmt()) {
        let mut tx = [0u8; 96];
        let n = dsa::tag_into(&frame, &tag, fmt, &mut tx).unwrap();
        prop_assert_eq!(n, frame.len() + fmt.header_len());
        let p = dsa::parse(&tx[..n], fmt).unwrap();
        prop_assert_eq!(p.tag, tag);
        let mut rx = [0u8; 96];
        let (_, m) = dsa::untag_into(&tx[..n], fmt, &mut rx).unwrap();
        let v = tag.vlan();
        let want = if v.tagged { with_8021q(&frame, v.tci().unwrap()) } else { frame.clone() };
        prop_assert_eq!(&rx[..m], &want[..]);
        let mut in_place = tx[..n].to_vec();
        let (_, start) = dsa::untag_in_place(&mut in_place, fmt).unwrap();
        prop_assert_eq!(&in_place[start..], &want[..]);
    }

    /// EDSA: transmit writes the two reserved bytes after the EtherType as zeros; receive
    /// ignores them (Linux `tag_dsa.c` `edsa_rcv` does not look at them, tcpdump
    /// `print-dsa.c` only prints them), so a frame the switch sent is never lost for them.
    #[test]
    fn edsa_reserved_bytes_are_zero_on_transmit_and_ignored_on_receive(
        frame in plain_frame(),
        tag in tag(true),
        ethertype in any::<u16>(),
        reserved in 1u16..,
    ) {
        let fmt = TagFormat::Edsa { ethertype };
        let mut tx = [0u8; 96];
        let n = dsa::tag_into(&frame, &tag, fmt, &mut tx).unwrap();
        prop_assert_eq!(&tx[14..16], &[0u8, 0][..]);
        let mut zero = [0u8; 96];
        let (t0, m0) = dsa::untag_into(&tx[..n], fmt, &mut zero).unwrap();
        tx[14..16].copy_from_slice(&reserved.to_be_bytes());
        prop_assert_eq!(dsa::parse(&tx[..n], fmt).map(|p| p.tag), Ok(tag));
        let mut rx = [0u8; 96];
        let (t, m) = dsa::untag_into(&tx[..n], fmt, &mut rx).unwrap();
        prop_assert_eq!((t, &rx[..m]), (t0, &zero[..m0]));
        let mut in_place = tx[..n].to_vec();
        let (t, start) = dsa::untag_in_place(&mut in_place, fmt).unwrap();
        prop_assert_eq!((t, &in_place[start..]), (t0, &zero[..m0]));
    }

    /// An 802.1Q frame, any tag kind: the header is folded into the tag (tagged, the TCI's
    /// VID, priority and CFI), and untagging rebuilds the frame byte for byte.
    #[test]
    fn tagged_frame_round_trip(
        frame in plain_frame(),
        tci in any::<u16>(),
        tag in tag(true),
        fmt in any_fmt(),
    ) {
        let q = with_8021q(&frame, tci);
        let mut tx = [0u8; 100];
        let n = dsa::tag_into(&q, &tag, fmt, &mut tx).unwrap();
        prop_assert_eq!(n, q.len() - 4 + fmt.header_len());
        let p = dsa::parse(&tx[..n], fmt).unwrap();
        prop_assert_eq!(p.tag, tag.with_vlan(TagVlan::from_tci(tci)));
        prop_assert!(p.tag.vlan().tagged);
        let mut rx = [0u8; 100];
        let (_, m) = dsa::untag_into(&tx[..n], fmt, &mut rx).unwrap();
        prop_assert_eq!(&rx[..m], &q[..]);
    }
}
