//! Where the switch sends what it does not switch normally: management frames trapped to
//! the CPU port (Rsvd2CPU, IGMP snooping), monitor (mirror) copies, the device number
//! that names the switch in its DSA tags, and the largest frame a port takes.
//!
//! Facts in our words, from torvalds/linux `drivers/net/dsa/mv88e6xxx/` as stored for
//! search (`global1.h`, `global1.c` at commit 02317e68369b; `global2.c` and `port.c`
//! copies with the 6393X policy functions and `mv88e6xxx_port_set_lock`, v6.2 or later;
//! the `chip.c` ops tables of a v5.1x copy, the one with `phylink_validate`), per style:
//!
//! - **Global2 style** (every chip whose `mgmt_rsvd2cpu` is `mv88e6185_g2_mgmt_rsvd2cpu`
//!   or `mv88e6352_g2_mgmt_rsvd2cpu`): a frame to 01:80:C2:00:00:0x is management when
//!   bit x of G2 MGMT_EN_0X (register 0x03) is set and G2 SWITCH_MGMT (0x05) RSVD2CPU
//!   (bit 3) is on; 01:80:C2:00:00:2x likewise with G2 MGMT_EN_2X (0x02). The CPU
//!   destination is G1 MONITOR_CTL (0x1A) \[7:4\] (`mv88e6095_g1_set_cpu_port`), on the
//!   6095 (which has no `set_cpu_port`) the ingress port's PORT_CTL2 \[3:0\]
//!   (`mv88e6095_port_set_upstream_port`). Mirror destinations: MONITOR_CTL \[15:12\]
//!   ingress, \[11:8\] egress (`mv88e6095_g1_set_egress_port`).
//! - **Global1 table style** (6341 and 6390 families, `mv88e6390_g1_mgmt_rsvd2cpu`): G1
//!   MONITOR_MGMT_CTL pointers 0x00 / 0x01 hold the 01:80:C2:00:00:00–07 / 08–0F
//!   management bits, 0x02 / 0x03 the 2x ones; pointer 0x30 the CPU destination, 0x20 /
//!   0x21 the ingress / egress mirror destinations (`mv88e6390_g1_set_cpu_port`,
//!   `mv88e6390_g1_set_egress_port`).
//! - **Port table style** (6393 family, `mv88e6393x_port_mgmt_rsvd2cpu`): the ingress
//!   port's POLICY_MGMT_CTL (port register 0x0E) pointers 0x20 / 0x21 / 0x24 / 0x25 hold
//!   the 0x / 2x management bits, 0x38 its CPU destination, 0x30 its ingress mirror
//!   destination; the egress mirror destination is G2 register 0x05
//!   (`MV88E6393X_G2_EGRESS_MONITOR_DEST`, `mv88e6393x_set_egress_port`).
//!
//! In every table a destination is a port number in its low 5 bits (the 6390 and 6393
//! CPU destinations carry the management priority in \[7:5\], Linux writes 0xE0 | port).
//!
//! IGMP/MLD snooping: PORT_CTL0 IGMP_MLD_SNOOP (bit 10) on the ingress port traps IGMP
//! (IPv4 protocol 2) and MLD (ICMPv6 types 130, 131, 132, 143) to the CPU destination
//! with TO_CPU code IGMP_MLD.
//!
//! The device number: G1 CTL2 (0x1C) \[4:0\] (`MV88E6XXX_G1_CTL2_DEVICE_NUMBER_MASK`,
//! `mv88e6xxx_g1_set_device_number`).
//!
//! Largest frame (with the FCS, 802.1Q header included): PORT_CTL2 JUMBO_MODE \[13:12\]
//! (0 1522, 1 2048, 2 10240 bytes; `mv88e6165_port_set_jumbo_size`, which adds the
//! 802.1Q header and FCS to the MTU) on the chips whose ops have `port_set_jumbo_size`;
//! G1 CTL1 MAX_FRAME_1632 (bit 10: 1632, else 1522) on those with
//! `mv88e6185_g1_set_max_frame_size`.
//!
//! Model assumptions (**unverified**, the functional specifications are not public): bit
//! n of an 8-bit table byte is address n of its range (Linux only ever writes 0xFF); the
//! 6191 and 6290 (whose ops lack `port_set_jumbo_size`) have the jumbo mode of their 6390
//! family siblings; the 6165 and the 6250 family (no op for either) stop at 1522;
//! JUMBO_MODE 3 means 10240; MLD is recognised after at most one hop-by-hop header.

use super::super::ChipModel;
use super::dsa_tag::{CODE_IGMP_MLD_TRAP, CODE_MGMT_TRAP};
use crate::chip::Chip;

/// Global1 MONITOR_CTL / MONITOR_MGMT_CTL (`global1.h`, offset 0x1A).
const G1_MONITOR_CTL: usize = 0x1A;
/// Global1 CTL1 (0x04) MAX_FRAME_1632 (`MV88E6185_G1_CTL1_MAX_FRAME_1632`).
const G1_CTL1: usize = 0x04;
const G1_CTL1_MAX_FRAME_1632: u16 = 0x0400;
/// Global1 CTL2 (0x1C) device number \[4:0\].
const G1_CTL2: usize = 0x1C;
/// Global2 MGMT_EN_2X (0x02), MGMT_EN_0X (0x03), SWITCH_MGMT (0x05) with RSVD2CPU bit 3
/// (`global2.h`); on the 6393 family register 0x05 is the egress monitor destination.
const G2_MGMT_EN_2X: usize = 0x02;
const G2_MGMT_EN_0X: usize = 0x03;
const G2_SWITCH_MGMT: usize = 0x05;
const G2_SWITCH_MGMT_RSVD2CPU: u16 = 0x0008;
/// PORT_CTL0 (0x04) IGMP_MLD_SNOOP, PORT_CTL2 (0x08) JUMBO_MODE \[13:12\] and the 6095's
/// upstream port \[3:0\] (`port.h`).
const PORT_CTL0: usize = 0x04;
const PORT_CTL0_IGMP_MLD_SNOOP: u16 = 0x0400;
const PORT_CTL2: usize = 0x08;
/// FCS bytes the frames handed to the model do not carry.
const FCS: usize = 4;

/// How a chip holds its management and monitor settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Global2,
    Global1Table,
    PortTable,
}

/// How a chip limits its frame size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MaxFrame {
    PortJumbo,
    G1Max1632,
    Fixed1522,
}

/// The chip's style, from its `mgmt_rsvd2cpu` op in `chip.c`.
fn style(chip: Chip) -> Style {
    match chip {
        Chip::Mv6141
        | Chip::Mv6341
        | Chip::Mv6190
        | Chip::Mv6190X
        | Chip::Mv6191
        | Chip::Mv6290
        | Chip::Mv6390
        | Chip::Mv6390X => Style::Global1Table,
        Chip::Mv6191X | Chip::Mv6193X | Chip::Mv6361 | Chip::Mv6393X => Style::PortTable,
        _ => Style::Global2,
    }
}

/// The chip's frame-size control, from its `port_set_jumbo_size` / `set_max_frame_size`
/// ops in `chip.c`.
fn max_frame_style(chip: Chip) -> MaxFrame {
    match chip {
        Chip::Mv6085 | Chip::Mv6095 | Chip::Mv6097 | Chip::Mv6123 | Chip::Mv6161 | Chip::Mv6185 => {
            MaxFrame::G1Max1632
        }
        Chip::Mv6165 | Chip::Mv6020 | Chip::Mv6071 | Chip::Mv6220 | Chip::Mv6250 => {
            MaxFrame::Fixed1522
        }
        _ => MaxFrame::PortJumbo,
    }
}

/// IGMP: IPv4 (EtherType 0x0800) with protocol 2 (byte 9 of the IP header); `payload`
/// starts at the EtherType.
fn is_igmp(payload: &[u8]) -> bool {
    payload.len() >= 2 + 20 && payload[..2] == [0x08, 0x00] && payload[2 + 9] == 2
}

/// MLD (RFC 2710, RFC 3810): IPv6 (EtherType 0x86DD) whose next header is ICMPv6 (58),
/// directly or after a hop-by-hop options header (0, as MLD's router alert comes), with
/// an MLD type (130 query, 131 and 143 reports, 132 done).
fn is_mld(payload: &[u8]) -> bool {
    const IP6: usize = 2;
    const ICMP6: u8 = 58;
    if payload.len() < IP6 + 40 || payload[..2] != [0x86, 0xDD] {
        return false;
    }
    let mut next = payload[IP6 + 6];
    let mut at = IP6 + 40;
    if next == 0 {
        let Some(&[nh, len]) = payload.get(at..at + 2) else {
            return false;
        };
        next = nh;
        at += (usize::from(len) + 1) * 8;
    }
    next == ICMP6
        && payload
            .get(at)
            .is_some_and(|t| matches!(t, 130..=132 | 143))
}

/// Why a frame is trapped to the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Trap {
    /// The TO_CPU code.
    pub(super) code: u8,
}

impl ChipModel {
    /// The switch's device number, as its DSA tags name it.
    pub(super) fn device_number(&self) -> u8 {
        (self.g1[G1_CTL2] & 0x1F) as u8
    }

    /// The management bit for the 01:80:C2:00:00:`lo` address, seen from `port`.
    fn rsvd2cpu(&self, port: usize, lo: u8) -> bool {
        let (range2x, n) = match lo {
            0x00..=0x0F => (false, lo),
            0x20..=0x2F => (true, lo - 0x20),
            _ => return false,
        };
        match style(self.chip) {
            Style::Global2 => {
                let en = if range2x {
                    self.g2[G2_MGMT_EN_2X]
                } else {
                    self.g2[G2_MGMT_EN_0X]
                };
                self.g2[G2_SWITCH_MGMT] & G2_SWITCH_MGMT_RSVD2CPU != 0 && en & (1 << n) != 0
            }
            Style::Global1Table => {
                let ptr = u8::from(range2x) * 2 + n / 8;
                self.monitor_mgmt(ptr) & (1 << (n % 8)) != 0
            }
            Style::PortTable => {
                let ptr = 0x20 + u8::from(range2x) * 4 + n / 8;
                self.port_mgmt(port, ptr)
                    .is_some_and(|b| b & (1 << (n % 8)) != 0)
            }
        }
    }

    /// Whether `frame` (its destination `dst`, `payload` from the EtherType on) entering
    /// `port` is trapped to the CPU, and why.
    pub(super) fn trap_of(&self, port: usize, dst: [u8; 6], payload: &[u8]) -> Option<Trap> {
        if dst[..5] == [0x01, 0x80, 0xC2, 0x00, 0x00] && self.rsvd2cpu(port, dst[5]) {
            return Some(Trap {
                code: CODE_MGMT_TRAP,
            });
        }
        let snoop = self
            .ports
            .get(port)
            .is_some_and(|r| r[PORT_CTL0] & PORT_CTL0_IGMP_MLD_SNOOP != 0);
        (snoop && (is_igmp(payload) || is_mld(payload))).then_some(Trap {
            code: CODE_IGMP_MLD_TRAP,
        })
    }

    /// The CPU destination for a frame trapped on `port`.
    pub(super) fn cpu_dest(&self, port: usize) -> usize {
        let v = match style(self.chip) {
            Style::Global2 if self.chip == Chip::Mv6095 => {
                self.ports.get(port).map_or(0x1F, |r| r[PORT_CTL2] & 0x0F)
            }
            Style::Global2 => (self.g1[G1_MONITOR_CTL] >> 4) & 0x0F,
            Style::Global1Table => u16::from(self.monitor_mgmt(0x30)),
            Style::PortTable => u16::from(self.port_mgmt(port, 0x38).unwrap_or(0x1F)),
        };
        usize::from(v & 0x1F)
    }

    /// The ingress (`egress == false`) or egress monitor destination for a frame of
    /// `port`.
    pub(super) fn mirror_dest(&self, port: usize, egress: bool) -> usize {
        let v = match style(self.chip) {
            Style::Global2 => {
                let shift = if egress { 8 } else { 12 };
                (self.g1[G1_MONITOR_CTL] >> shift) & 0x0F
            }
            Style::Global1Table => u16::from(self.monitor_mgmt(if egress { 0x21 } else { 0x20 })),
            Style::PortTable if egress => self.g2[G2_SWITCH_MGMT],
            Style::PortTable => u16::from(self.port_mgmt(port, 0x30).unwrap_or(0x1F)),
        };
        usize::from(v & 0x1F)
    }

    /// The largest frame `port` takes, in bytes without the FCS.
    pub(super) fn max_frame(&self, port: usize) -> usize {
        let with_fcs = match max_frame_style(self.chip) {
            MaxFrame::PortJumbo => {
                match self.ports.get(port).map_or(0, |r| (r[PORT_CTL2] >> 12) & 3) {
                    0 => 1522,
                    1 => 2048,
                    _ => 10240,
                }
            }
            MaxFrame::G1Max1632 if self.g1[G1_CTL1] & G1_CTL1_MAX_FRAME_1632 != 0 => 1632,
            MaxFrame::G1Max1632 | MaxFrame::Fixed1522 => 1522,
        };
        with_fcs - FCS
    }
}

/// PORT_ETH_TYPE (port register 0x0F, `mv88e6351_port_set_ether_type`) and its default
/// (`MV88E6XXX_PORT_ETH_TYPE_DEFAULT`); the 6393 family's EtherType is entry 2 of the
/// extended port control (`mv88e6393x_port_set_ether_type`: EPC_DATA (0x11) holds it,
/// EPC_CMD (0x10) is written BUSY | WRITE | index 2, WRITE being 0x3000 in \[14:12\] as
/// mainline's "net: dsa: mv88e6xxx: fix 6393x EPC write command" corrected it from 0x0300).
const PORT_ETH_TYPE: usize = 0x0F;
pub(super) const PORT_ETH_TYPE_DEFAULT: u16 = 0x9100;
const PORT_EPC_CMD: usize = 0x10;
const PORT_EPC_DATA: usize = 0x11;
/// EPC_CMD's operation \[14:12\] and index \[7:0\]: a write of the port EtherType.
const EPC_OP_INDEX: u16 = 0x70FF;
const EPC_WRITE_ETYPE: u16 = 0x3002;

impl ChipModel {
    /// The EtherType of `port`'s EtherType DSA header.
    pub(super) fn ether_type(&self, port: usize) -> u16 {
        let Some(r) = self.ports.get(port) else {
            return PORT_ETH_TYPE_DEFAULT;
        };
        if style(self.chip) != Style::PortTable {
            return r[PORT_ETH_TYPE];
        }
        if r[PORT_EPC_CMD] & EPC_OP_INDEX == EPC_WRITE_ETYPE {
            r[PORT_EPC_DATA]
        } else {
            PORT_ETH_TYPE_DEFAULT
        }
    }
}
