//! The checksum offload engines' arithmetic, shared by both models: RFC 1071 sums, TX
//! insertion by CIC (as QEMU's npcm-gmac and the databooks' CIC encodings: 1 the IPv4
//! header, 2 and 3 also TCP/UDP/ICMP), RX checking.

/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of
/// `data` as big-endian 16-bit words (an odd byte padded with 0), starting from `sum`.
pub fn inet_checksum(sum: u32, data: &[u8]) -> u16 {
    let mut acc = u64::from(sum);
    let mut it = data.chunks_exact(2);
    for w in it.by_ref() {
        acc += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [b] = it.remainder() {
        acc += u64::from(*b) << 8;
    }
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// An IPv4 frame's parts: (header length, protocol, L4 range, pseudo-header sum,
/// fragment), or `None` when `frame` is not a well-formed untagged IPv4 frame.
fn ipv4_parts(frame: &[u8]) -> Option<(usize, u8, core::ops::Range<usize>, u32, bool)> {
    if frame.len() < 34 || frame[12..14] != [0x08, 0x00] || frame[14] >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(frame[14] & 0xF) * 4;
    let total = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
    if ihl < 20 || total < ihl || 14 + total > frame.len() {
        return None;
    }
    let frag = u16::from_be_bytes([frame[20], frame[21]]) & 0x3FFF != 0;
    let proto = frame[23];
    let l4 = 14 + ihl..14 + total;
    let mut pseudo: u32 = 0;
    for w in frame[26..34].chunks_exact(2) {
        pseudo += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    pseudo += u32::from(proto) + (total - ihl) as u32;
    Some((ihl, proto, l4, pseudo, frag))
}

/// Offset of the L4 checksum field inside the segment, and whether the pseudo-header is in.
fn l4_field(proto: u8) -> Option<(usize, bool)> {
    match proto {
        6 => Some((16, true)),
        17 => Some((6, true)),
        1 => Some((2, false)),
        _ => None,
    }
}

pub(super) fn insert_checksums(frame: &mut [u8], cic: u32) {
    let Some((ihl, proto, l4, pseudo, frag)) = ipv4_parts(frame) else {
        return;
    };
    frame[24] = 0;
    frame[25] = 0;
    let c = inet_checksum(0, &frame[14..14 + ihl]);
    frame[24..26].copy_from_slice(&c.to_be_bytes());
    if cic < 2 || frag {
        return;
    }
    let Some((at, with_pseudo)) = l4_field(proto) else {
        return;
    };
    if l4.len() < at + 2 {
        return;
    }
    let f = l4.start + at;
    // CIC 2: the field holds the pseudo-header sum the stack put there; 3: computed here.
    let init = if cic == 3 {
        frame[f] = 0;
        frame[f + 1] = 0;
        if with_pseudo { pseudo } else { 0 }
    } else {
        0
    };
    let mut c = inet_checksum(init, &frame[l4.clone()]);
    if proto == 17 && c == 0 {
        c = 0xFFFF;
    }
    frame[f..f + 2].copy_from_slice(&c.to_be_bytes());
}

/// (IPv4 header checksum wrong, TCP/UDP/ICMP checksum wrong) of a frame without FCS.
pub(super) fn check_checksums(frame: &[u8]) -> (bool, bool) {
    let Some((ihl, proto, l4, pseudo, frag)) = ipv4_parts(frame) else {
        return (false, false);
    };
    let ip_bad = inet_checksum(0, &frame[14..14 + ihl]) != 0;
    if frag {
        return (ip_bad, false);
    }
    let Some((at, with_pseudo)) = l4_field(proto) else {
        return (ip_bad, false);
    };
    if l4.len() < at + 2 {
        return (ip_bad, true);
    }
    let f = l4.start + at;
    if proto == 17 && frame[f..f + 2] == [0, 0] {
        return (ip_bad, false);
    }
    let init = if with_pseudo { pseudo } else { 0 };
    (ip_bad, inet_checksum(init, &frame[l4]) != 0)
}
