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
//! frame carries 8 bytes there: a programmable EtherType (Linux: [`ETH_P_EDSA`]), two zero
//! bytes, then the same 4-byte tag.
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
    /// 8-byte header after the source MAC: `ethertype`, `0x0000`, the 4-byte tag.
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
    /// The two bytes after the EDSA EtherType are not zero (tcpdump `print-dsa.c`:
    /// "Reserved (0x00 0x00)"; Linux `edsa_xmit` writes zeros).
    Reserved {
        /// Their value.
        value: u16,
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
            Self::Reserved { value } => {
                write!(f, "EDSA reserved bytes are {value:#06x}, not zero")
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
/// Errors: [`DsaError::TooShort`] under 12 + tag + 2 bytes; for EDSA
/// [`DsaError::EtherType`] and [`DsaError::Reserved`]; [`DsaError::UnknownCode`].
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
            let [e0, e1, r0, r1] = <[u8; 4]>::try_from(e).map_err(|_| too_short)?;
            let found = u16::from_be_bytes([e0, e1]);
            if found != ethertype {
                return Err(DsaError::EtherType {
                    found,
                    expected: ethertype,
                });
            }
            let value = u16::from_be_bytes([r0, r1]);
            if value != 0 {
                return Err(DsaError::Reserved { value });
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
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
        f[14] = 0x01;
        assert_eq!(
            parse(&f, TagFormat::Edsa { ethertype: 0xDADB }),
            Err(DsaError::Reserved { value: 0x0100 })
        );
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
}
