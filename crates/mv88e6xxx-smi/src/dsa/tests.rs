//! Unit tests of the tag codec: byte vectors written bit by bit from the layout in the
//! module docs, every error path, the in-place variants.

use super::*;

const UNTAGGED0: TagVlan = TagVlan::untagged(0);

/// A plain frame: DA, SA, EtherType `et`, then `payload` bytes counting up.
fn plain(et: u16, payload: usize) -> Vec<u8> {
    let mut f = vec![1, 2, 3, 4, 5, 6, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF];
    f.extend_from_slice(&et.to_be_bytes());
    f.extend((0..payload).map(|i| i as u8));
    f
}

// Known vectors, written bit by bit from the layout in the module docs.

#[test]
fn to_cpu_bpdu_trap_port2_dev0_vid0() {
    // cmd 00, T 0, dev 00000 | port 00010, b18 0, b17 0, CFI 0 | prio 000, b12 0,
    // VID 0000 | 0x00.
    let b = [0b0000_0000, 0b0001_0000, 0x00, 0x00];
    let tag = Tag::from_bytes(b).unwrap();
    assert_eq!(
        tag,
        Tag::ToCpu {
            dev: 0,
            port: 2,
            code: TrapCode::MgmtTrap,
            vlan: UNTAGGED0
        }
    );
    assert_eq!(tag.to_bytes().unwrap(), b);
}

#[test]
fn to_cpu_code_bits_are_18_17_12() {
    // Code 5 (policy mirror) = b18 1, b17 0, b12 1; code 2 = b17 only; code 1 = b12.
    let t = |b1, b2| Tag::from_bytes([0x00, b1, b2, 0x00]).unwrap();
    let code = |t: Tag| match t {
        Tag::ToCpu { code, .. } => code,
        other => panic!("{other:?}"),
    };
    assert_eq!(code(t(0b0000_0100, 0b0001_0000)), TrapCode::PolicyMirror);
    assert_eq!(code(t(0b0000_0010, 0)), TrapCode::IgmpMldTrap);
    assert_eq!(code(t(0, 0b0001_0000)), TrapCode::Frame2Reg);
    assert_eq!(code(t(0b0000_0100, 0)), TrapCode::ArpMirror);
    assert_eq!(code(t(0b0000_0010, 0b0001_0000)), TrapCode::PolicyTrap);
    assert_eq!(
        Tag::from_bytes([0x00, 0b0000_0110, 0b0001_0000, 0]),
        Err(DsaError::UnknownCode { code: 7 })
    );
}

#[test]
fn reserved_code_6_is_refused() {
    assert_eq!(
        Tag::from_bytes([0x00, 0b0000_0110, 0x00, 0]),
        Err(DsaError::UnknownCode { code: 6 })
    );
}

#[test]
fn from_cpu_tagged_vid_prio_cfi() {
    // cmd 01, T 1, dev 00011 | port 00101, 0, 0, CFI 1 | prio 101, 0, VID 0x1 | 0x23.
    let b = [0b0110_0011, 0b0010_1001, 0b1010_0001, 0x23];
    let tag = Tag::FromCpu {
        dev: 3,
        port: 5,
        vlan: TagVlan {
            tagged: true,
            vid: 0x123,
            prio: 5,
            cfi: true,
        },
    };
    assert_eq!(Tag::from_bytes(b).unwrap(), tag);
    assert_eq!(tag.to_bytes().unwrap(), b);
}

#[test]
fn forward_trunk_and_port() {
    // cmd 11, T 0, dev 11111 | trunk 00111, b18 1 | prio 111, VID 0xFFF.
    let b = [0b1101_1111, 0b0011_1100, 0xEF, 0xFF];
    let tag = Tag::Forward {
        dev: 31,
        src: Source::Trunk(7),
        vlan: TagVlan {
            tagged: false,
            vid: 4095,
            prio: 7,
            cfi: false,
        },
    };
    assert_eq!(Tag::from_bytes(b).unwrap(), tag);
    assert_eq!(tag.to_bytes().unwrap(), b);
    assert_eq!(tag.source_port(), None);
    let port = Tag::from_bytes([0xC0, 0b1111_1000, 0, 1]).unwrap();
    assert_eq!(port.source_port(), Some((0, 31)));
}

#[test]
fn to_sniffer_ingress_bit_18() {
    let b = [0b1000_0001, 0b0000_1100, 0, 0];
    let tag = Tag::from_bytes(b).unwrap();
    assert_eq!(
        tag,
        Tag::ToSniffer {
            dev: 1,
            port: 1,
            ingress: true,
            vlan: UNTAGGED0
        }
    );
    assert_eq!(tag.to_bytes().unwrap(), b);
}

#[test]
fn unused_bits_ignored_on_receive_zero_on_transmit() {
    // FROM_CPU with b18, b17 and b12 set: decoded as if clear, encoded clear.
    let tag = Tag::from_bytes([0x40, 0b0000_1110, 0b0001_0000, 0]).unwrap();
    assert_eq!(
        tag,
        Tag::FromCpu {
            dev: 0,
            port: 1,
            vlan: UNTAGGED0
        }
    );
    assert_eq!(tag.to_bytes().unwrap(), [0x40, 0x08, 0, 0]);
}

#[test]
fn out_of_range_fields() {
    let e = |field, value| Err(DsaError::OutOfRange { field, value });
    let v = UNTAGGED0;
    let from = |dev, port, vlan| Tag::FromCpu { dev, port, vlan };
    assert_eq!(from(32, 0, v).to_bytes(), e(TagField::Dev, 32));
    assert_eq!(from(0, 32, v).to_bytes(), e(TagField::Port, 32));
    assert_eq!(
        from(0, 0, TagVlan::untagged(4096)).to_bytes(),
        e(TagField::Vid, 4096)
    );
    let prio8 = TagVlan { prio: 8, ..v };
    assert_eq!(from(0, 0, prio8).to_bytes(), e(TagField::Prio, 8));
    let trunk = Tag::Forward {
        dev: 0,
        src: Source::Trunk(40),
        vlan: v,
    };
    assert_eq!(trunk.to_bytes(), e(TagField::Trunk, 40));
    assert_eq!(TagVlan::untagged(4096).tci(), None);
}

#[test]
fn untag_dsa_untagged_drops_the_tag() {
    let mut f = plain(0x88CC, 4);
    f.splice(12..12, [0x00, 0x10, 0x00, 0x00]);
    let mut out = [0u8; 64];
    let (tag, n) = untag_into(&f, TagFormat::Dsa, &mut out).unwrap();
    assert_eq!(tag.source_port(), Some((0, 2)));
    assert_eq!(&out[..n], &plain(0x88CC, 4)[..]);
}

#[test]
fn untag_tagged_rebuilds_the_8021q_header() {
    // FORWARD from port 1, tagged, prio 3, CFI, VID 100: the wire frame had TCI
    // 0b011_1_000001100100 = 0x7064.
    let mut f = plain(0x0800, 3);
    f.splice(12..12, [0xE0, 0x09, 0x60, 0x64]);
    let mut wire = plain(0x0800, 3);
    wire.splice(12..12, [0x81, 0x00, 0x70, 0x64]);
    let mut out = [0u8; 64];
    let (tag, n) = untag_into(&f, TagFormat::Dsa, &mut out).unwrap();
    assert_eq!(tag.vlan(), TagVlan::from_tci(0x7064));
    assert_eq!(&out[..n], &wire[..]);
    // In place, DSA: same length, the tag bytes become 802.1Q.
    let (t2, start) = untag_in_place(&mut f, TagFormat::Dsa).unwrap();
    assert_eq!((t2, start), (tag, 0));
    assert_eq!(f, wire);
}

#[test]
fn edsa_in_place_both_ways() {
    let mut f = plain(0x88CC, 2);
    f.splice(12..12, [0xDA, 0xDA, 0, 0, 0x00, 0x10, 0, 0]);
    let (_, start) = untag_in_place(&mut f, TagFormat::EDSA).unwrap();
    assert_eq!(start, 8);
    assert_eq!(&f[start..], &plain(0x88CC, 2)[..]);

    let mut f = plain(0x88CC, 2);
    f.splice(12..12, [0xDA, 0xDA, 0, 0, 0x20, 0x10, 0x20, 0x05]);
    let (tag, start) = untag_in_place(&mut f, TagFormat::EDSA).unwrap();
    assert_eq!(start, 4);
    assert_eq!(tag.vlan().vid, 5);
    let mut wire = plain(0x88CC, 2);
    wire.splice(12..12, [0x81, 0x00, 0x20, 0x05]);
    assert_eq!(&f[start..], &wire[..]);
}

#[test]
fn parse_errors() {
    let f = [0u8; 17];
    assert_eq!(
        parse(&f, TagFormat::Dsa),
        Err(DsaError::TooShort { len: 17, need: 18 })
    );
    assert_eq!(
        parse(&[0u8; 21], TagFormat::EDSA),
        Err(DsaError::TooShort { len: 21, need: 22 })
    );
    let mut f = plain(0x88CC, 0);
    f.splice(12..12, [0xDA, 0xDB, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        parse(&f, TagFormat::EDSA),
        Err(DsaError::EtherType {
            found: 0xDADB,
            expected: 0xDADA
        })
    );
    // A configured EtherType other than Linux's is honoured.
    assert!(parse(&f, TagFormat::Edsa { ethertype: 0xDADB }).is_ok());
    // The two reserved bytes are ignored on receive (Linux `edsa_rcv` does not read them).
    let zero = parse(&f, TagFormat::Edsa { ethertype: 0xDADB }).map(|p| (p.tag, p.rest.to_vec()));
    f[14] = 0x01;
    f[15] = 0xFF;
    let set = parse(&f, TagFormat::Edsa { ethertype: 0xDADB }).map(|p| (p.tag, p.rest.to_vec()));
    assert!(zero.is_ok());
    assert_eq!(set, zero);
    let mut f = plain(0x88CC, 0);
    f.splice(12..12, [0x00, 0x06, 0x10, 0]);
    assert_eq!(
        parse(&f, TagFormat::Dsa),
        Err(DsaError::UnknownCode { code: 7 })
    );
    let mut f = plain(0x88CC, 0);
    f.splice(12..12, [0x00, 0x00, 0x00, 0]);
    assert_eq!(
        untag_into(&f, TagFormat::Dsa, &mut [0u8; 13]),
        Err(DsaError::OutTooSmall { need: 14, have: 13 })
    );
}

#[test]
fn tag_into_plain_and_folded() {
    let tag = Tag::FromCpu {
        dev: 1,
        port: 4,
        vlan: UNTAGGED0,
    };
    let f = plain(0x88CC, 5);
    let mut out = [0u8; 64];
    let n = tag_into(&f, &tag, TagFormat::Dsa, &mut out).unwrap();
    let mut want = f.clone();
    want.splice(12..12, [0x41, 0x20, 0, 0]);
    assert_eq!(&out[..n], &want[..]);

    // 802.1Q, prio 6, CFI, VID 0xABC: folded, T 1, CFI moved to byte 1 bit 0.
    let mut q = plain(0x88CC, 5);
    q.splice(12..12, [0x81, 0x00, 0xDA, 0xBC]);
    let n = tag_into(&q, &tag, TagFormat::EDSA, &mut out).unwrap();
    let mut want = plain(0x88CC, 5);
    want.splice(12..12, [0xDA, 0xDA, 0, 0, 0x61, 0x21, 0xCA, 0xBC]);
    assert_eq!(&out[..n], &want[..]);
    // And back.
    let mut back = [0u8; 64];
    let (t, m) = untag_into(&out[..n], TagFormat::EDSA, &mut back).unwrap();
    assert_eq!(&back[..m], &q[..]);
    assert_eq!(t.vlan(), TagVlan::from_tci(0xDABC));
}

#[test]
fn tag_into_errors() {
    let tag = Tag::FromCpu {
        dev: 0,
        port: 0,
        vlan: UNTAGGED0,
    };
    let mut out = [0u8; 64];
    assert_eq!(
        tag_into(&[0u8; 13], &tag, TagFormat::Dsa, &mut out),
        Err(DsaError::TooShort { len: 13, need: 14 })
    );
    let q = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x00, 0, 1, 0x08];
    assert_eq!(
        tag_into(&q, &tag, TagFormat::Dsa, &mut out),
        Err(DsaError::TooShort { len: 17, need: 18 })
    );
    let f = plain(0x0800, 0);
    assert_eq!(
        tag_into(&f, &tag, TagFormat::EDSA, &mut out[..21]),
        Err(DsaError::OutTooSmall { need: 22, have: 21 })
    );
    let bad = Tag::FromCpu {
        dev: 0,
        port: 99,
        vlan: UNTAGGED0,
    };
    assert_eq!(
        tag_into(&f, &bad, TagFormat::Dsa, &mut out),
        Err(DsaError::OutOfRange {
            field: TagField::Port,
            value: 99
        })
    );
}

#[test]
fn hand_built_parsed_out_of_range_writes_nothing() {
    let p = Parsed {
        tag: Tag::FromCpu {
            dev: 0,
            port: 0,
            vlan: TagVlan {
                tagged: true,
                vid: 5000,
                prio: 0,
                cfi: false,
            },
        },
        macs: &[0; 12],
        rest: &[0x08, 0x00],
    };
    let mut out = [0xA5u8; 32];
    assert_eq!(
        p.write_wire(&mut out),
        Err(DsaError::OutOfRange {
            field: TagField::Vid,
            value: 5000
        })
    );
    assert!(out.iter().all(|b| *b == 0xA5));
}

#[test]
fn tag_in_place_with_headroom() {
    let tag = Tag::FromCpu {
        dev: 1,
        port: 4,
        vlan: UNTAGGED0,
    };
    // Plain frame, EDSA: 8 bytes of headroom used.
    let mut buf = vec![0xEEu8; 8];
    buf.extend(plain(0x88CC, 3));
    let start = tag_in_place(&mut buf, 8, &tag, TagFormat::EDSA).unwrap();
    assert_eq!(start, 0);
    let mut want = plain(0x88CC, 3);
    want.splice(12..12, [0xDA, 0xDA, 0, 0, 0x41, 0x20, 0, 0]);
    assert_eq!(buf, want);

    // 802.1Q frame, DSA: folded, no headroom needed.
    let mut q = plain(0x0800, 2);
    q.splice(12..12, [0x81, 0x00, 0x30, 0x07]);
    let start = tag_in_place(&mut q, 0, &tag, TagFormat::Dsa).unwrap();
    assert_eq!(start, 0);
    let mut want = plain(0x0800, 2);
    want.splice(12..12, [0x61, 0x21, 0x20, 0x07]);
    assert_eq!(q, want);

    // 802.1Q frame, EDSA: 4 bytes of headroom.
    let mut buf = vec![0xEEu8; 5];
    buf.extend(plain(0x0800, 2));
    buf.splice(5 + 12..5 + 12, [0x81, 0x00, 0x00, 0x09]);
    let start = tag_in_place(&mut buf, 5, &tag, TagFormat::EDSA).unwrap();
    assert_eq!(start, 1);
    let mut want = plain(0x0800, 2);
    want.splice(12..12, [0xDA, 0xDA, 0, 0, 0x61, 0x20, 0x00, 0x09]);
    assert_eq!(&buf[1..], &want[..]);
    assert_eq!(buf[0], 0xEE);
}

#[test]
fn tag_in_place_errors_write_nothing() {
    let tag = Tag::FromCpu {
        dev: 0,
        port: 0,
        vlan: UNTAGGED0,
    };
    let mut buf = vec![0xEEu8; 7];
    buf.extend(plain(0x88CC, 3));
    let before = buf.clone();
    assert_eq!(
        tag_in_place(&mut buf, 7, &tag, TagFormat::EDSA),
        Err(DsaError::Headroom { need: 8, have: 7 })
    );
    let bad = Tag::FromCpu {
        dev: 40,
        port: 0,
        vlan: UNTAGGED0,
    };
    assert_eq!(
        tag_in_place(&mut buf, 7, &bad, TagFormat::Dsa),
        Err(DsaError::OutOfRange {
            field: TagField::Dev,
            value: 40
        })
    );
    assert_eq!(
        tag_in_place(&mut buf, 100, &tag, TagFormat::Dsa),
        Err(DsaError::TooShort { len: 0, need: 14 })
    );
    assert_eq!(buf, before);
}

#[test]
fn trap_code_values_and_kinds() {
    for code in 0..=5 {
        assert_eq!(TrapCode::from_bits(code).unwrap().bits(), code);
    }
    assert_eq!(TrapCode::from_bits(6), None);
    assert_eq!(TrapCode::from_bits(8), None);
    assert!(TrapCode::MgmtTrap.is_trap());
    assert!(!TrapCode::ArpMirror.is_trap());
    assert!(!TrapCode::Frame2Reg.is_trap());
}
