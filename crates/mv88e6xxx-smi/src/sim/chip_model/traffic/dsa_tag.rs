//! The model's own DSA tag: the 4-byte Marvell tag the switch puts on and takes off
//! frames on a port in DSA or EtherType DSA frame mode.
//!
//! Layout, in our words, from Linux `net/dsa/tag_dsa.c` (torvalds/linux commit
//! 03ab8e6297ac; the format is unchanged in v6.12): the tag takes the place of an 802.1Q
//! header, right after the source address.
//!
//! - byte 0: command \[7:6\] (0 TO_CPU, 1 FROM_CPU, 2 TO_SNIFFER, 3 FORWARD), "the
//!   frame is 802.1Q tagged" bit 5, source or target device \[4:0\];
//! - byte 1: source or target port \[7:3\]; on TO_CPU the code's bits 2..1 in \[2:1\];
//!   on FORWARD the trunk bit 2; the 802.1Q CFI/DEI bit in bit 0;
//! - byte 2: priority \[7:5\]; on TO_CPU the code's bit 0 in bit 4; VID \[11:8\] in
//!   \[3:0\];
//! - byte 3: VID \[7:0\].
//!
//! With the tagged bit set the tag replaces the frame's outermost 802.1Q header (its
//! priority, CFI and VID move into the tag); without it the tag is spliced in before the
//! EtherType. EtherType DSA puts the port's EtherType and two zero bytes before the same
//! four bytes (8 bytes in all).

/// TO_CPU codes (`enum dsa_code` in `tag_dsa.c`): a management (Rsvd2CPU) trap.
pub(in crate::sim) const CODE_MGMT_TRAP: u8 = 0;
/// TO_CPU code: IGMP/MLD snooping trap.
pub(in crate::sim) const CODE_IGMP_MLD_TRAP: u8 = 2;

/// The tag's command (`enum dsa_cmd` in `tag_dsa.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sim) enum Cmd {
    /// Trapped or mirrored to the CPU, with a 3-bit code.
    ToCpu(u8),
    /// Sent by the CPU to one port, past every barrier.
    FromCpu,
    /// A monitor (mirror) copy.
    ToSniffer,
    /// Bulk traffic; the device/port name where it entered.
    Forward,
}

/// One DSA tag, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sim) struct Tag {
    pub(in crate::sim) cmd: Cmd,
    /// The frame carries (or is to carry) an 802.1Q header.
    pub(in crate::sim) tagged: bool,
    /// Source device (TO_CPU, TO_SNIFFER, FORWARD) or target device (FROM_CPU), 5 bits.
    pub(in crate::sim) dev: u8,
    /// Source or target port, 5 bits.
    pub(in crate::sim) port: u8,
    /// FORWARD from a trunk.
    pub(in crate::sim) trunk: bool,
    /// 802.1Q priority, 3 bits.
    pub(in crate::sim) prio: u8,
    /// 802.1Q CFI/DEI.
    pub(in crate::sim) cfi: bool,
    /// VID, 12 bits.
    pub(in crate::sim) vid: u16,
}

impl Tag {
    /// The four tag bytes.
    pub(in crate::sim) fn encode(&self) -> [u8; 4] {
        let (cmd, code) = match self.cmd {
            Cmd::ToCpu(c) => (0u8, c & 7),
            Cmd::FromCpu => (1, 0),
            Cmd::ToSniffer => (2, 0),
            Cmd::Forward => (3, 0),
        };
        let mut b = [0u8; 4];
        b[0] = (cmd << 6) | (u8::from(self.tagged) << 5) | (self.dev & 0x1F);
        b[1] = ((self.port & 0x1F) << 3) | u8::from(self.cfi);
        b[2] = ((self.prio & 7) << 5) | ((self.vid >> 8) as u8 & 0x0F);
        b[3] = (self.vid & 0xFF) as u8;
        match self.cmd {
            Cmd::ToCpu(_) => {
                b[1] |= code & 0x6;
                b[2] |= (code & 1) << 4;
            }
            Cmd::Forward if self.trunk => b[1] |= 1 << 2,
            _ => {}
        }
        b
    }

    /// Decode four tag bytes (every value decodes).
    pub(in crate::sim) fn decode(b: [u8; 4]) -> Tag {
        let cmd = match b[0] >> 6 {
            0 => Cmd::ToCpu((b[1] & 0x6) | ((b[2] >> 4) & 1)),
            1 => Cmd::FromCpu,
            2 => Cmd::ToSniffer,
            _ => Cmd::Forward,
        };
        Tag {
            cmd,
            tagged: b[0] & 0x20 != 0,
            dev: b[0] & 0x1F,
            port: (b[1] >> 3) & 0x1F,
            trunk: matches!(cmd, Cmd::Forward) && b[1] & 0x4 != 0,
            prio: b[2] >> 5,
            cfi: b[1] & 1 != 0,
            vid: (u16::from(b[2] & 0x0F) << 8) | u16::from(b[3]),
        }
    }

    /// The 802.1Q TCI the tag carries (priority, CFI, VID).
    pub(in crate::sim) fn tci(&self) -> u16 {
        (u16::from(self.prio & 7) << 13) | (u16::from(self.cfi) << 12) | (self.vid & 0x0FFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes built by hand from the layout in `tag_dsa.c`, one per command.
    #[test]
    fn known_bytes() {
        // TO_CPU, code IGMP_MLD (2), untagged, device 3, port 9, prio 5, VID 0x123.
        let t = Tag {
            cmd: Cmd::ToCpu(CODE_IGMP_MLD_TRAP),
            tagged: false,
            dev: 3,
            port: 9,
            trunk: false,
            prio: 5,
            cfi: false,
            vid: 0x123,
        };
        assert_eq!(t.encode(), [0x03, 0x4A, 0xA1, 0x23]);
        // FROM_CPU, tagged, device 0, port 2, CFI set, VID 0xFFF.
        let f = Tag {
            cmd: Cmd::FromCpu,
            tagged: true,
            dev: 0,
            port: 2,
            trunk: false,
            prio: 0,
            cfi: true,
            vid: 0xFFF,
        };
        assert_eq!(f.encode(), [0x60, 0x11, 0x0F, 0xFF]);
        // FORWARD from a trunk: bit 2 of byte 1.
        let w = Tag {
            cmd: Cmd::Forward,
            trunk: true,
            ..f
        };
        assert_eq!(w.encode()[0] >> 6, 3);
        assert_eq!(w.encode()[1] & 0x4, 0x4);
    }

    #[test]
    fn every_tag_round_trips() {
        for b0 in [0x00u8, 0x25, 0x5F, 0x80, 0xFF] {
            for b1 in 0..=255u8 {
                for b2 in [0x00u8, 0x10, 0xEF, 0xFF] {
                    let t = Tag::decode([b0, b1, b2, 0x5A]);
                    assert_eq!(Tag::decode(t.encode()), t);
                }
            }
        }
    }
}
