//! Marvell DSA and EDSA frame tags: parse the tag of a frame received on the CPU port,
//! build FROM_CPU (and FORWARD) frames to send through it. `no_std`, no allocation, no
//! panic: every function works on caller slices and returns a typed [`DsaError`].
//!
//! Sources, pinned: Linux `net/dsa/tag_dsa.c`, a mainline text of v6.7 or later (it uses
//! the user/conduit names `dsa_user_to_port` / `dsa_conduit_find_user` that v6.7
//! introduced; its top comment and `enum dsa_cmd` / `enum dsa_code` document the formats),
//! with the same bit layout in the v5.18–v6.1 text at commit 03ab8e6297ac; and
//! `include/linux/dsa/mv88e6xxx.h` (`MV88E6XXX_VID_STANDALONE`).
//! Cross-checked against tcpdump `print-dsa.c` (commit 0c93b15d38b3, BSD-licensed), whose
//! comment draws the same layout and names bit 18 of TO_SNIFFER (`Rx_Sniff`), which Linux
//! does not decode, and PADL/OpenSRP `Sources/MarvellRMU/DSA.swift` (commit 1225c7596606,
//! Apache-2.0), which agrees bit for bit. One disagreement: tcpdump's `DSA_VID` macro takes VID\[11:8\] from byte 2
//! bits 7:5 (the priority), where its own drawing and Linux put them in bits 3:0; this module
//! follows the drawing and Linux.
//!
//! # Layout
//!
//! A DSA frame carries the 4-byte tag between the source MAC and the EtherType; an EDSA
//! frame carries 8 bytes there: a programmable EtherType (Linux: [`ETH_P_EDSA`]), two
//! reserved bytes, then the same 4-byte tag. The reserved bytes are written as zeros on
//! transmit (Linux `edsa_xmit`) and ignored on receive, whatever they hold (Linux
//! `edsa_rcv` does not read them; tcpdump `print-dsa.c` prints them), so no frame the
//! switch sent is refused for them.
//!
//! ```text
//!        7   6   5   4   3   2   1   0
//! byte 0 | cmd   | T |      dev (5)      |   cmd: 0 TO_CPU, 1 FROM_CPU, 2 TO_SNIFFER, 3 FORWARD
//! byte 1 |     port (5)      |b18|b17|CFI|   T: tagged
//! byte 2 |  prio (3) |b12|   VID[11:8]   |
//! byte 3 |           VID[7:0]            |
//! ```
//!
//! - b18: TO_CPU code\[2\], FORWARD source-is-trunk, TO_SNIFFER ingress (`Rx_Sniff`,
//!   tcpdump); b17: TO_CPU code\[1\]; b12: TO_CPU code\[0\] (Linux `dsa_rcv_ll`, tcpdump).
//!   Elsewhere these bits are zero on transmit (Linux `dsa_xmit_ll`) and ignored on receive
//!   (as Linux ignores them).
//! - **The tagged bit.** A frame the switch received with an 802.1Q header reaches the CPU
//!   with that header *replaced* by the tag (T = 1: the tag's prio, CFI and VID are the
//!   frame's own TCI, the CFI moved from byte 2 bit 4 to byte 1 bit 0); a frame received
//!   untagged gets the tag spliced in (T = 0). Linux turns a T = 1 tag back into an 802.1Q
//!   header (`0x8100`, TCI) and drops a T = 0 tag; [`untag_into`] and [`untag_in_place`] do
//!   the same. On transmit Linux folds an 802.1Q header into a T = 1 tag, and gives an
//!   untagged frame VID 0 for a standalone port ([`VID_STANDALONE`]); [`tag_into`] and
//!   [`tag_in_place`] fold the same way.
//!
//! # Example
//!
//! An LLDP frame trapped from port 2 of switch device 0 arrives on the CPU port with an
//! EDSA tag; the firmware reads the port from the tag and answers out of that port only.
//!
//! ```
//! use mv88e6xxx_smi::dsa::{self, Tag, TagFormat, TagVlan, TrapCode};
//!
//! let fmt = TagFormat::EDSA;
//! let lldp_da = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E];
//! let peer = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02];
//! // As received by the CPU's MAC: DA, SA, EDSA (0xDADA, 0x0000, TO_CPU tag), LLDP.
//! let mut rx = [0u8; 64];
//! rx[..6].copy_from_slice(&lldp_da);
//! rx[6..12].copy_from_slice(&peer);
//! rx[12..20].copy_from_slice(&[0xDA, 0xDA, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00]);
//! rx[20..22].copy_from_slice(&[0x88, 0xCC]);
//!
//! let (tag, len) = dsa::untag_into(&rx, fmt, &mut [0u8; 64]).unwrap();
//! assert_eq!(len, 56);
//! let Tag::ToCpu { dev, port, code, vlan } = tag else { panic!("{tag:?}") };
//! assert_eq!((dev, port, code, vlan.tagged), (0, 2, TrapCode::MgmtTrap, false));
//!
//! // The answer: a plain Ethernet frame, sent FROM_CPU to device 0 port 2 only.
//! let mut answer = [0u8; 60];
//! answer[..6].copy_from_slice(&lldp_da);
//! answer[6..12].copy_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0xCC]);
//! answer[12..14].copy_from_slice(&[0x88, 0xCC]);
//! let (dev, port) = tag.source_port().unwrap();
//! let reply = Tag::FromCpu { dev, port, vlan: TagVlan::untagged(dsa::VID_STANDALONE) };
//! let mut tx = [0u8; 68];
//! let n = dsa::tag_into(&answer, &reply, fmt, &mut tx).unwrap();
//! assert_eq!(n, 68);
//! assert_eq!(tx[12..20], [0xDA, 0xDA, 0x00, 0x00, 0x40, 0x10, 0x00, 0x00]);
//! assert_eq!(tx[20..22], [0x88, 0xCC]);
//! ```

use core::fmt;

mod frame;
pub use frame::{Parsed, parse, tag_in_place, tag_into, untag_in_place, untag_into};

/// Length of the DSA tag (Linux `tag_dsa.c` `DSA_HLEN`).
pub const DSA_LEN: usize = 4;
/// Length of the EDSA header: EtherType, two reserved bytes, DSA tag (Linux `tag_dsa.c`
/// `EDSA_HLEN`).
pub const EDSA_LEN: usize = 8;
/// The EDSA EtherType Linux programs and writes (Linux `include/uapi/linux/if_ether.h`
/// `ETH_P_EDSA`, used by `tag_dsa.c` `edsa_xmit`).
pub const ETH_P_EDSA: u16 = 0xDADA;
/// The 802.1Q TPID (Linux `if_ether.h` `ETH_P_8021Q`).
pub const ETH_P_8021Q: u16 = 0x8100;
/// The VID Linux puts in an untagged FROM_CPU frame for a standalone port (Linux
/// `include/linux/dsa/mv88e6xxx.h` `MV88E6XXX_VID_STANDALONE`).
pub const VID_STANDALONE: u16 = 0;
/// The VID Linux puts in an untagged FROM_CPU frame for a port in a bridge (Linux
/// `include/linux/dsa/mv88e6xxx.h` `MV88E6XXX_VID_BRIDGED`, `VLAN_N_VID - 1`).
pub const VID_BRIDGED: u16 = 4095;

/// Largest device number and port (or trunk) number a tag holds: 5 bits each (Linux
/// `dsa_rcv_ll`: `dsa_header[0] & 0x1f`, `(dsa_header[1] >> 3) & 0x1f`).
pub const MAX_DEV: u8 = 31;
/// Largest port or trunk number a tag holds (5 bits).
pub const MAX_PORT: u8 = 31;
/// Largest VID (12 bits).
pub const MAX_VID: u16 = 4095;
/// Largest priority (3 bits).
pub const MAX_PRIO: u8 = 7;

/// Destination and source MAC addresses.
const MACS_LEN: usize = 12;

// Tag bits (Linux `tag_dsa.c` `dsa_xmit_ll` / `dsa_rcv_ll`; tcpdump `print-dsa.c`).
/// Byte 0 bits 7:6: the command (`enum dsa_cmd`).
const CMD_SHIFT: u32 = 6;
const CMD_TO_CPU: u8 = 0;
const CMD_FROM_CPU: u8 = 1;
const CMD_TO_SNIFFER: u8 = 2;
const CMD_FORWARD: u8 = 3;
/// Byte 0 bit 5: the frame is (to be) 802.1Q tagged.
const B0_TAGGED: u8 = 0x20;
/// Byte 0 bits 4:0: device.
const B0_DEV: u8 = 0x1F;
/// Byte 1 bits 7:3: port or trunk.
const B1_PORT_SHIFT: u32 = 3;
/// Byte 1 bit 2 (tag bit 18): TO_CPU code\[2\], FORWARD trunk, TO_SNIFFER ingress.
const B1_B18: u8 = 0x04;
/// Byte 1 bit 1 (tag bit 17): TO_CPU code\[1\].
const B1_B17: u8 = 0x02;
/// Byte 1 bit 0 (tag bit 16): the frame's CFI.
const B1_CFI: u8 = 0x01;
/// Byte 2 bits 7:5: priority.
const B2_PRIO_SHIFT: u32 = 5;
/// Byte 2 bit 4 (tag bit 12): TO_CPU code\[0\]; the CFI's place in an 802.1Q TCI.
const B2_B12: u8 = 0x10;
/// Byte 2 bits 3:0: VID\[11:8\].
const B2_VID_HI: u8 = 0x0F;

/// How the switch frames the tag on the CPU port (its port's frame mode, DSA or EtherType
/// DSA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TagFormat {
    /// 4-byte tag after the source MAC.
    Dsa,
    /// 8-byte header after the source MAC: `ethertype`, two reserved bytes (zeros on
    /// transmit, ignored on receive), the 4-byte tag.
    Edsa {
        /// The EtherType programmed in the switch (Linux: [`ETH_P_EDSA`]).
        ethertype: u16,
    },
}

impl TagFormat {
    /// EDSA with Linux's EtherType [`ETH_P_EDSA`].
    pub const EDSA: Self = Self::Edsa {
        ethertype: ETH_P_EDSA,
    };

    /// Bytes the format inserts after the source MAC: [`DSA_LEN`] or [`EDSA_LEN`].
    pub const fn header_len(self) -> usize {
        match self {
            Self::Dsa => DSA_LEN,
            Self::Edsa { .. } => EDSA_LEN,
        }
    }
}

/// Why the switch sent a frame TO_CPU: the 3-bit code in tag bits 18, 17 and 12 (Linux
/// `tag_dsa.c` `enum dsa_code`; tcpdump `print-dsa.c` `dsa_code_values` agrees). Any
/// device implements a subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TrapCode {
    /// 0: the DA is a management address (BPDU, LLDP, the 01:80:C2:00:00:0x range).
    MgmtTrap,
    /// 1: answer to a remote-management ("frame to register") request.
    Frame2Reg,
    /// 2: IGMP/MLD snooping.
    IgmpMldTrap,
    /// 3: a policy (DA/SA/VID, DHCP snooping…) trapped it.
    PolicyTrap,
    /// 4: ARP mirror (the switch forwarded the frame too).
    ArpMirror,
    /// 5: a policy mirrored it (the switch forwarded the frame too).
    PolicyMirror,
}

impl TrapCode {
    /// The code for a 3-bit value; `None` for 6 and 7 (reserved: "unused on all devices up
    /// to at least 6393X", Linux `enum dsa_code`) and for values over 7.
    pub const fn from_bits(code: u8) -> Option<Self> {
        Some(match code {
            0 => Self::MgmtTrap,
            1 => Self::Frame2Reg,
            2 => Self::IgmpMldTrap,
            3 => Self::PolicyTrap,
            4 => Self::ArpMirror,
            5 => Self::PolicyMirror,
            _ => return None,
        })
    }

    /// The 3-bit value.
    pub const fn bits(self) -> u8 {
        match self {
            Self::MgmtTrap => 0,
            Self::Frame2Reg => 1,
            Self::IgmpMldTrap => 2,
            Self::PolicyTrap => 3,
            Self::ArpMirror => 4,
            Self::PolicyMirror => 5,
        }
    }

    /// The switch did not forward the frame itself (a trap), so software must, if anyone
    /// does. Mirrors were forwarded in hardware too (Linux `dsa_rcv_ll` marks them
    /// `offload_fwd_mark`); [`Frame2Reg`](Self::Frame2Reg) is neither.
    pub const fn is_trap(self) -> bool {
        matches!(self, Self::MgmtTrap | Self::IgmpMldTrap | Self::PolicyTrap)
    }
}

/// The VLAN fields of a tag: the tagged bit, VID, priority and CFI.
///
/// With `tagged`, they are the frame's 802.1Q TCI (on receive: the header the frame had on
/// ingress; on transmit: the header the switch puts on egress). Without, the VID and
/// priority are still the ones the switch classified or should use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TagVlan {
    /// Tag bit 29: the frame was received (or is to egress) with an 802.1Q header.
    pub tagged: bool,
    /// VLAN ID, 0..=4095.
    pub vid: u16,
    /// Priority, 0..=7.
    pub prio: u8,
    /// The 802.1Q CFI/DEI bit.
    pub cfi: bool,
}

impl TagVlan {
    /// Untagged, priority 0, CFI clear, with `vid` (Linux sends [`VID_STANDALONE`] for a
    /// standalone port).
    pub const fn untagged(vid: u16) -> Self {
        Self {
            tagged: false,
            vid,
            prio: 0,
            cfi: false,
        }
    }

    /// Tagged, with the fields of an 802.1Q TCI (priority \[15:13\], CFI \[12\], VID \[11:0\]).
    pub const fn from_tci(tci: u16) -> Self {
        let [hi, lo] = tci.to_be_bytes();
        Self {
            tagged: true,
            vid: u16::from_be_bytes([hi & B2_VID_HI, lo]),
            prio: hi >> B2_PRIO_SHIFT,
            cfi: hi & B2_B12 != 0,
        }
    }

    /// The 802.1Q TCI of these fields; `None` when one is out of range.
    pub const fn tci(self) -> Option<u16> {
        if self.vid > MAX_VID || self.prio > MAX_PRIO {
            return None;
        }
        let [vid_hi, vid_lo] = self.vid.to_be_bytes();
        let hi = (self.prio << B2_PRIO_SHIFT) | if self.cfi { B2_B12 } else { 0 } | vid_hi;
        Some(u16::from_be_bytes([hi, vid_lo]))
    }
}

/// Where a FORWARD frame came from: a port, or a trunk (link aggregation group) when the
/// switch does not say which member port (tag bit 18; Linux `dsa_rcv_ll` `trunk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Source {
    /// Source port 0..=31.
    Port(u8),
    /// Source trunk ID 0..=31 (Linux looks up LAG `id + 1`).
    Trunk(u8),
}

/// One decoded DSA tag (Linux `tag_dsa.c` `enum dsa_cmd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Tag {
    /// Trapped or mirrored to the CPU (STP, LLDP, IGMP…): not switched by the normal rules.
    ToCpu {
        /// Source device 0..=31.
        dev: u8,
        /// Source port 0..=31.
        port: u8,
        /// Why.
        code: TrapCode,
        /// VLAN fields.
        vlan: TagVlan,
    },
    /// Sent by the CPU to one port, past VLANs, port states and learning ("sudo send
    /// packet").
    FromCpu {
        /// Target device 0..=31.
        dev: u8,
        /// Target port 0..=31.
        port: u8,
        /// VLAN fields; with `tagged` the frame egresses with an 802.1Q header.
        vlan: TagVlan,
    },
    /// A copy for the ingress or egress monitor (mirror) port.
    ToSniffer {
        /// Source device 0..=31.
        dev: u8,
        /// Port 0..=31 whose traffic was mirrored.
        port: u8,
        /// Tag bit 18: the frame was mirrored on ingress (`Rx_Sniff`, tcpdump
        /// `print-dsa.c`), else on egress.
        ingress: bool,
        /// VLAN fields.
        vlan: TagVlan,
    },
    /// Bulk traffic through the switch tree, tagged with the port it entered; from the CPU,
    /// a frame the switch forwards by its own tables (VTU/ATU/PVT), with learning.
    Forward {
        /// Source device 0..=31 (Linux sends FORWARD frames as a virtual device past the
        /// physical switches).
        dev: u8,
        /// Source port or trunk.
        src: Source,
        /// VLAN fields.
        vlan: TagVlan,
    },
}

impl Tag {
    /// The device field.
    pub const fn dev(&self) -> u8 {
        match *self {
            Self::ToCpu { dev, .. }
            | Self::FromCpu { dev, .. }
            | Self::ToSniffer { dev, .. }
            | Self::Forward { dev, .. } => dev,
        }
    }

    /// The VLAN fields.
    pub const fn vlan(&self) -> TagVlan {
        match *self {
            Self::ToCpu { vlan, .. }
            | Self::FromCpu { vlan, .. }
            | Self::ToSniffer { vlan, .. }
            | Self::Forward { vlan, .. } => vlan,
        }
    }

    /// The same tag with other VLAN fields.
    pub const fn with_vlan(self, new: TagVlan) -> Self {
        match self {
            Self::ToCpu {
                dev, port, code, ..
            } => Self::ToCpu {
                dev,
                port,
                code,
                vlan: new,
            },
            Self::FromCpu { dev, port, .. } => Self::FromCpu {
                dev,
                port,
                vlan: new,
            },
            Self::ToSniffer {
                dev, port, ingress, ..
            } => Self::ToSniffer {
                dev,
                port,
                ingress,
                vlan: new,
            },
            Self::Forward { dev, src, .. } => Self::Forward {
                dev,
                src,
                vlan: new,
            },
        }
    }

    /// `(device, port)` a received frame entered by, to answer it with a
    /// [`FromCpu`](Self::FromCpu) tag: `None` for FROM_CPU and for a FORWARD frame from a
    /// trunk (the tag does not name the member port).
    pub const fn source_port(&self) -> Option<(u8, u8)> {
        match *self {
            Self::ToCpu { dev, port, .. }
            | Self::ToSniffer { dev, port, .. }
            | Self::Forward {
                dev,
                src: Source::Port(port),
                ..
            } => Some((dev, port)),
            Self::FromCpu { .. }
            | Self::Forward {
                src: Source::Trunk(_),
                ..
            } => None,
        }
    }

    /// Decodes the 4 tag bytes. Bits a command does not use are ignored, as Linux ignores
    /// them.
    ///
    /// Errors: [`DsaError::UnknownCode`] for a TO_CPU code 6 or 7 (reserved; Linux drops
    /// such frames).
    pub const fn from_bytes(b: [u8; DSA_LEN]) -> Result<Self, DsaError> {
        let [b0, b1, b2, b3] = b;
        let dev = b0 & B0_DEV;
        let port = b1 >> B1_PORT_SHIFT;
        let b18 = b1 & B1_B18 != 0;
        let vlan = TagVlan {
            tagged: b0 & B0_TAGGED != 0,
            vid: u16::from_be_bytes([b2 & B2_VID_HI, b3]),
            prio: b2 >> B2_PRIO_SHIFT,
            cfi: b1 & B1_CFI != 0,
        };
        Ok(match b0 >> CMD_SHIFT {
            CMD_TO_CPU => {
                // Linux `dsa_rcv_ll`: code = (byte 1 & 0x6) | (byte 2 bit 4).
                let code = (b1 & (B1_B18 | B1_B17)) | ((b2 & B2_B12) >> 4);
                match TrapCode::from_bits(code) {
                    Some(code) => Self::ToCpu {
                        dev,
                        port,
                        code,
                        vlan,
                    },
                    None => return Err(DsaError::UnknownCode { code }),
                }
            }
            CMD_FROM_CPU => Self::FromCpu { dev, port, vlan },
            CMD_TO_SNIFFER => Self::ToSniffer {
                dev,
                port,
                ingress: b18,
                vlan,
            },
            _ => Self::Forward {
                dev,
                src: if b18 {
                    Source::Trunk(port)
                } else {
                    Source::Port(port)
                },
                vlan,
            },
        })
    }

    /// Encodes the 4 tag bytes; unused bits are zero (Linux `dsa_xmit_ll`).
    ///
    /// Errors: [`DsaError::OutOfRange`] for a device or port (trunk) over 31, a VID over
    /// 4095 or a priority over 7.
    pub const fn to_bytes(&self) -> Result<[u8; DSA_LEN], DsaError> {
        let (cmd, dev, port, b18, code0, port_field) = match *self {
            Self::ToCpu {
                dev, port, code, ..
            } => {
                let c = code.bits();
                (
                    CMD_TO_CPU,
                    dev,
                    port,
                    c & (B1_B18 | B1_B17),
                    c & 1 != 0,
                    TagField::Port,
                )
            }
            Self::FromCpu { dev, port, .. } => (CMD_FROM_CPU, dev, port, 0, false, TagField::Port),
            Self::ToSniffer {
                dev, port, ingress, ..
            } => (
                CMD_TO_SNIFFER,
                dev,
                port,
                if ingress { B1_B18 } else { 0 },
                false,
                TagField::Port,
            ),
            Self::Forward { dev, src, .. } => match src {
                Source::Port(port) => (CMD_FORWARD, dev, port, 0, false, TagField::Port),
                Source::Trunk(id) => (CMD_FORWARD, dev, id, B1_B18, false, TagField::Trunk),
            },
        };
        let vlan = self.vlan();
        if dev > MAX_DEV {
            return Err(DsaError::OutOfRange {
                field: TagField::Dev,
                value: dev as u16,
            });
        }
        if port > MAX_PORT {
            return Err(DsaError::OutOfRange {
                field: port_field,
                value: port as u16,
            });
        }
        if vlan.vid > MAX_VID {
            return Err(DsaError::OutOfRange {
                field: TagField::Vid,
                value: vlan.vid,
            });
        }
        if vlan.prio > MAX_PRIO {
            return Err(DsaError::OutOfRange {
                field: TagField::Prio,
                value: vlan.prio as u16,
            });
        }
        let [vid_hi, vid_lo] = vlan.vid.to_be_bytes();
        Ok([
            (cmd << CMD_SHIFT) | if vlan.tagged { B0_TAGGED } else { 0 } | dev,
            (port << B1_PORT_SHIFT) | b18 | if vlan.cfi { B1_CFI } else { 0 },
            (vlan.prio << B2_PRIO_SHIFT) | if code0 { B2_B12 } else { 0 } | vid_hi,
            vid_lo,
        ])
    }
}

/// Which tag field [`DsaError::OutOfRange`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TagField {
    /// Device, 0..=31.
    Dev,
    /// Port, 0..=31.
    Port,
    /// Trunk ID, 0..=31.
    Trunk,
    /// VID, 0..=4095.
    Vid,
    /// Priority, 0..=7.
    Prio,
}

/// Why a frame could not be parsed or built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DsaError {
    /// The frame is shorter than its headers: MACs, the tag (or 802.1Q header) and an
    /// EtherType.
    TooShort {
        /// The frame's length.
        len: usize,
        /// The least length it needed.
        need: usize,
    },
    /// An EDSA frame's EtherType is not the configured one.
    EtherType {
        /// The EtherType in the frame.
        found: u16,
        /// The one [`TagFormat::Edsa`] expected.
        expected: u16,
    },
    /// A TO_CPU tag carries a reserved code (6 or 7).
    UnknownCode {
        /// The 3-bit code.
        code: u8,
    },
    /// The output buffer cannot hold the result.
    OutTooSmall {
        /// Bytes the result needs.
        need: usize,
        /// Bytes the buffer has.
        have: usize,
    },
    /// [`tag_in_place`] has less room in front of the frame than the header adds.
    Headroom {
        /// Bytes the header adds in front of the frame.
        need: usize,
        /// Bytes in front of the frame.
        have: usize,
    },
    /// A tag field does not fit its bits.
    OutOfRange {
        /// Which field.
        field: TagField,
        /// The value refused.
        value: u16,
    },
}

impl fmt::Display for DsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::TooShort { len, need } => {
                write!(f, "frame of {len} bytes, its tag needs at least {need}")
            }
            Self::EtherType { found, expected } => {
                write!(f, "EDSA EtherType {found:#06x}, expected {expected:#06x}")
            }
            Self::UnknownCode { code } => write!(f, "reserved TO_CPU code {code}"),
            Self::OutTooSmall { need, have } => {
                write!(f, "output buffer of {have} bytes, {need} needed")
            }
            Self::Headroom { need, have } => {
                write!(
                    f,
                    "{have} bytes in front of the frame, its header adds {need}"
                )
            }
            Self::OutOfRange { field, value } => {
                write!(f, "tag field {field:?} = {value} out of range")
            }
        }
    }
}

impl core::error::Error for DsaError {}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests;
