//! Whole frames: parse and untag a frame from the CPU port, tag a frame for it (the tag
//! itself is in the parent module).

use super::{DSA_LEN, DsaError, EDSA_LEN, ETH_P_8021Q, MACS_LEN, Tag, TagFormat, TagVlan};

/// A frame received with a tag, parsed without copying: the tag, and the frame's pieces to
/// rebuild it as it was on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Parsed<'a> {
    /// The tag.
    pub tag: Tag,
    /// Destination and source MAC.
    pub macs: &'a [u8],
    /// Everything after the tag: the EtherType and payload.
    pub rest: &'a [u8],
}

impl Parsed<'_> {
    /// The frame's length as it was on the wire: with an 802.1Q header (4 bytes) when the
    /// tag is `tagged`, without otherwise.
    pub fn wire_len(&self) -> usize {
        let vlan_len = if self.tag.vlan().tagged { 4 } else { 0 };
        // Bounded by the frame's own length (`macs` and `rest` are slices of it, and the
        // tag they leave out is at least 4 bytes).
        self.macs
            .len()
            .saturating_add(vlan_len)
            .saturating_add(self.rest.len())
    }

    /// Writes the frame as it was on the wire into `out` and returns its length. Nothing is
    /// written on error.
    ///
    /// Errors: [`DsaError::OutTooSmall`]; [`DsaError::OutOfRange`] for a tagged tag whose
    /// VID or priority does not fit (only a hand-built `Parsed` can hold one).
    pub fn write_wire(&self, out: &mut [u8]) -> Result<usize, DsaError> {
        let need = self.wire_len();
        let vlan = self.tag.vlan();
        let tci = if vlan.tagged {
            // Refuses an out-of-range VID or priority with the field's error; then `tci`
            // is `Some`.
            self.tag.to_bytes()?;
            vlan.tci()
        } else {
            None
        };
        let Some(out) = out.get_mut(..need) else {
            return Err(DsaError::OutTooSmall {
                need,
                have: out.len(),
            });
        };
        // `out` is exactly `need` = MACs + 802.1Q header (when tagged) + rest long, so the
        // pieces below have the lengths they are copied from.
        let (o_macs, o_rest) = out.split_at_mut(self.macs.len().min(need));
        let vlan_len = if tci.is_some() { 4 } else { 0 };
        let Some((o_vlan, o_rest)) = o_rest.split_at_mut_checked(vlan_len) else {
            return Err(DsaError::OutTooSmall { need, have: need });
        };
        if o_macs.len() != self.macs.len() || o_rest.len() != self.rest.len() {
            return Err(DsaError::OutTooSmall { need, have: need });
        }
        o_macs.copy_from_slice(self.macs);
        if let Some(tci) = tci {
            let [t0, t1] = ETH_P_8021Q.to_be_bytes();
            let [c0, c1] = tci.to_be_bytes();
            o_vlan.copy_from_slice(&[t0, t1, c0, c1]);
        }
        o_rest.copy_from_slice(self.rest);
        Ok(need)
    }
}

/// Parses the tag of `frame` (as received from the switch's CPU port, starting at the
/// destination MAC) in format `fmt`.
///
/// EDSA: the two reserved bytes after the EtherType are ignored, whatever they hold (Linux
/// `net/dsa/tag_dsa.c` `edsa_rcv` does not read them), so no frame the switch sent is
/// refused for them.
///
/// Errors: [`DsaError::TooShort`] under 12 + tag + 2 bytes; for EDSA
/// [`DsaError::EtherType`]; [`DsaError::UnknownCode`].
pub fn parse(frame: &[u8], fmt: TagFormat) -> Result<Parsed<'_>, DsaError> {
    let hdr = fmt.header_len();
    let need = MACS_LEN.saturating_add(hdr).saturating_add(2);
    let too_short = DsaError::TooShort {
        len: frame.len(),
        need,
    };
    if frame.len() < need {
        return Err(too_short);
    }
    let (macs, after) = frame.split_at_checked(MACS_LEN).ok_or(too_short)?;
    let (header, rest) = after.split_at_checked(hdr).ok_or(too_short)?;
    let tag_bytes = match fmt {
        TagFormat::Dsa => header,
        TagFormat::Edsa { ethertype } => {
            let (e, tag) = header.split_at_checked(4).ok_or(too_short)?;
            // The two reserved bytes (`_reserved`) are ignored.
            let [e0, e1, _reserved @ ..] = <[u8; 4]>::try_from(e).map_err(|_| too_short)?;
            let found = u16::from_be_bytes([e0, e1]);
            if found != ethertype {
                return Err(DsaError::EtherType {
                    found,
                    expected: ethertype,
                });
            }
            tag
        }
    };
    let tag_bytes = <[u8; DSA_LEN]>::try_from(tag_bytes).map_err(|_| too_short)?;
    let tag = Tag::from_bytes(tag_bytes)?;
    Ok(Parsed { tag, macs, rest })
}

/// Parses the tag of `frame` and writes the frame as it was on the wire into `out` (with
/// an 802.1Q header rebuilt from the tag when `tagged`, as Linux `dsa_rcv_ll` does).
/// Returns the tag and the length written.
///
/// Errors: those of [`parse`], and [`DsaError::OutTooSmall`].
pub fn untag_into(frame: &[u8], fmt: TagFormat, out: &mut [u8]) -> Result<(Tag, usize), DsaError> {
    let parsed = parse(frame, fmt)?;
    let len = parsed.write_wire(out)?;
    Ok((parsed.tag, len))
}

/// Like [`untag_into`], in place: rewrites `frame` so that `frame[start..]` is the frame as
/// it was on the wire, and returns the tag and `start` (4 or 8 bytes: the MACs move
/// forward over what the tag leaves behind). Nothing is written on error.
///
/// Errors: those of [`parse`].
pub fn untag_in_place(frame: &mut [u8], fmt: TagFormat) -> Result<(Tag, usize), DsaError> {
    let tag = parse(frame, fmt)?.tag;
    // `parse` checked that the frame holds the MACs, the whole header and an EtherType, so
    // the two slices below exist; the errors are unreachable, not panics.
    let unreachable = DsaError::TooShort {
        len: frame.len(),
        need: MACS_LEN.saturating_add(fmt.header_len()),
    };
    let vlan = tag.vlan();
    // Bytes the frame loses: the whole header, or all of it but 4 (which become 802.1Q).
    let start = if vlan.tagged {
        fmt.header_len().saturating_sub(4)
    } else {
        fmt.header_len()
    };
    if vlan.tagged {
        let tci = vlan.tci().unwrap_or(0);
        let [t0, t1] = ETH_P_8021Q.to_be_bytes();
        let [c0, c1] = tci.to_be_bytes();
        let vlan_at = MACS_LEN.saturating_add(start);
        let Some(slot) = frame.get_mut(vlan_at..vlan_at.saturating_add(4)) else {
            return Err(unreachable);
        };
        slot.copy_from_slice(&[t0, t1, c0, c1]);
    }
    if start > 0 {
        let Some(head) = frame.get_mut(..MACS_LEN.saturating_add(start)) else {
            return Err(unreachable);
        };
        head.copy_within(..MACS_LEN, start);
    }
    Ok((tag, start))
}

/// Builds the frame to send to the switch's CPU port: `frame` (plain Ethernet from the
/// destination MAC, or with an 802.1Q header) with `tag` in format `fmt`, into `out`.
/// Returns the length written.
///
/// An 802.1Q header in `frame` is folded into the tag as Linux `dsa_xmit_ll` does: the tag
/// replaces it, `tagged` set, its VID, priority and CFI taken from the frame's TCI (the
/// VLAN fields of `tag` are then not used). A plain frame gets `tag` as it is.
///
/// Errors: [`DsaError::TooShort`] under 14 bytes (18 with an 802.1Q header);
/// [`DsaError::OutOfRange`]; [`DsaError::OutTooSmall`].
pub fn tag_into(
    frame: &[u8],
    tag: &Tag,
    fmt: TagFormat,
    out: &mut [u8],
) -> Result<usize, DsaError> {
    let (header, after_len) = fold(frame, tag, fmt)?;
    // `fold` checked the frame holds the MACs and the 802.1Q header it folded.
    let rest = frame
        .get(frame.len().saturating_sub(after_len)..)
        .unwrap_or(&[]);
    let macs = frame.get(..MACS_LEN).unwrap_or(&[]);
    let hdr = fmt.header_len();
    let need = MACS_LEN.saturating_add(hdr).saturating_add(rest.len());
    let have = out.len();
    let Some(out) = out.get_mut(..need) else {
        return Err(DsaError::OutTooSmall { need, have });
    };
    // `out` is exactly MACs + header + rest long.
    let (o_macs, o_after) = out.split_at_mut(MACS_LEN.min(need));
    let Some((o_hdr, o_rest)) = o_after.split_at_mut_checked(hdr) else {
        return Err(DsaError::OutTooSmall { need, have });
    };
    let Some(header) = header.get(..hdr) else {
        return Err(DsaError::OutTooSmall { need, have });
    };
    if o_macs.len() != macs.len() || o_rest.len() != rest.len() {
        return Err(DsaError::OutTooSmall { need, have });
    }
    o_macs.copy_from_slice(macs);
    o_hdr.copy_from_slice(header);
    o_rest.copy_from_slice(rest);
    Ok(need)
}

/// Like [`tag_into`], in place, for a frame built with headroom in front of it: the frame
/// is `buf[start..]`; the MACs move back by the bytes the header adds (4 or 8, or 0 or 4
/// when an 802.1Q header is folded), the header goes after them, and the tagged frame is
/// `buf[new_start..]`. Returns `new_start`. Nothing is written on error.
///
/// Errors: those of [`tag_into`] but [`DsaError::OutTooSmall`];
/// [`DsaError::Headroom`] when `start` is less than the bytes the header adds.
pub fn tag_in_place(
    buf: &mut [u8],
    start: usize,
    tag: &Tag,
    fmt: TagFormat,
) -> Result<usize, DsaError> {
    let frame = buf.get(start..).unwrap_or(&[]);
    let (header, after_len) = fold(frame, tag, fmt)?;
    let hdr = fmt.header_len();
    // What the frame loses after its MACs (0, or 4 for a folded 802.1Q header) and gains.
    let consumed = frame
        .len()
        .saturating_sub(MACS_LEN)
        .saturating_sub(after_len);
    let grow = hdr.saturating_sub(consumed);
    let Some(new_start) = start.checked_sub(grow) else {
        return Err(DsaError::Headroom {
            need: grow,
            have: start,
        });
    };
    // buf[new_start..]: `grow` bytes of headroom, the MACs, the consumed 802.1Q header;
    // afterwards the MACs and the `hdr` header bytes (grow + consumed = hdr).
    let end = start.saturating_add(MACS_LEN).saturating_add(consumed);
    let unreachable = DsaError::TooShort {
        len: frame.len(),
        need: MACS_LEN.saturating_add(consumed),
    };
    let Some(region) = buf.get_mut(new_start..end) else {
        return Err(unreachable);
    };
    if region.len() != MACS_LEN.saturating_add(hdr) {
        return Err(unreachable);
    }
    region.copy_within(grow.., 0);
    let (_, o_hdr) = region.split_at_mut(MACS_LEN);
    let Some(header) = header.get(..hdr) else {
        return Err(unreachable);
    };
    o_hdr.copy_from_slice(header);
    Ok(new_start)
}

/// The header `tag_into` writes after the MACs for `frame` (its 802.1Q header, if any,
/// folded into `tag` as Linux `dsa_xmit_ll` does), in the first `fmt.header_len()` bytes,
/// and the length of what follows in `frame` (from its EtherType, past the folded
/// header).
fn fold(frame: &[u8], tag: &Tag, fmt: TagFormat) -> Result<([u8; EDSA_LEN], usize), DsaError> {
    let too_short = |need: usize| DsaError::TooShort {
        len: frame.len(),
        need,
    };
    let Some((_, after)) = frame.split_at_checked(MACS_LEN) else {
        return Err(too_short(MACS_LEN.saturating_add(2)));
    };
    let Some(&[e0, e1]) = after.first_chunk::<2>() else {
        return Err(too_short(MACS_LEN.saturating_add(2)));
    };
    let (tag, rest) = if u16::from_be_bytes([e0, e1]) == ETH_P_8021Q {
        let Some((&[_, _, c0, c1], rest)) = after.split_first_chunk::<4>() else {
            return Err(too_short(MACS_LEN.saturating_add(6)));
        };
        if rest.len() < 2 {
            return Err(too_short(MACS_LEN.saturating_add(6)));
        }
        let vlan = TagVlan::from_tci(u16::from_be_bytes([c0, c1]));
        (tag.with_vlan(vlan), rest)
    } else {
        (*tag, after)
    };
    let [t0, t1, t2, t3] = tag.to_bytes()?;
    let header = match fmt {
        TagFormat::Dsa => [t0, t1, t2, t3, 0, 0, 0, 0],
        TagFormat::Edsa { ethertype } => {
            let [e0, e1] = ethertype.to_be_bytes();
            [e0, e1, 0, 0, t0, t1, t2, t3]
        }
    };
    Ok((header, rest.len()))
}
