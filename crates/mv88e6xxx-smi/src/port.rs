//! Port control, link and reset (docs/mv88e6xxx.md#port-control, docs/mv88e6xxx.md#reset):
//! port states (PORT_CTL0), frame and egress modes, forced link, speed and duplex and
//! RGMII delays (PORT_MAC_CTL), the link status the PHY polling unit reports (PORT_STS),
//! the CPU and upstream ports, software reset and the wait after a hardware reset.
//!
//! Implemented for every chip of the crate's table, with the per-chip functions of Linux's
//! `mv88e6xxx_ops` tables ([`PortOps`], docs/mv88e6xxx.md#per-family-port-ops). A setting
//! the chip or port cannot take, or a function the chip's ops table leaves out, is refused
//! with [`ConfigError::PortFeature`] before any frame.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::{self, PPU_ENABLE, PPU_STATE_6352, PPU_STATE_MASK, PPU_STATE_POLLING, g1};
use crate::smi::Smi;

mod dot1q_drop;
mod frames;
mod isolation;
mod learning;
mod managed_ops;
mod mirror;
mod snoop;
mod tag_remap;
mod trunk;

pub use managed_ops::{
    EtherTypeOp, FrameSizeOp, ManagedOps, Rsvd2CpuOp, TagRemapOp, max_frame_size,
};

/// PORT_STS (port register 0x00): link, duplex and speed as the PHY polling unit found
/// them (read-only bits).
pub const PORT_STS: u8 = 0x00;
/// PORT_STS link up (bit 11).
pub const STS_LINK: u16 = 1 << 11;
/// PORT_STS full duplex (bit 10).
pub const STS_DUPLEX: u16 = 1 << 10;
/// PORT_STS speed field \[9:8\]: 0 10 Mb/s, 1 100 Mb/s, 2 1000 Mb/s.
pub const STS_SPEED_MASK: u16 = 0x0300;

/// PORT_MAC_CTL (port register 0x01): forced link, duplex, speed and RGMII delays.
pub const PORT_MAC_CTL: u8 = 0x01;
/// PORT_MAC_CTL RGMII receive clock delay (bit 15).
pub const MAC_RGMII_RXCLK: u16 = 1 << 15;
/// PORT_MAC_CTL RGMII transmit clock delay (bit 14).
pub const MAC_RGMII_TXCLK: u16 = 1 << 14;
/// PORT_MAC_CTL alternate speed ("200BASE" / ALTSPEED, bit 12): with speed 1 it means
/// 200 Mb/s; on the 6390-class chips also 2500 (and 5000 on the 6393X).
pub const MAC_ALTSPEED: u16 = 1 << 12;
/// PORT_MAC_CTL link value when forced (bit 5).
pub const MAC_LINK_UP: u16 = 1 << 5;
/// PORT_MAC_CTL force link (bit 4).
pub const MAC_FORCE_LINK: u16 = 1 << 4;
/// PORT_MAC_CTL duplex value when forced (bit 3, 1 = full).
pub const MAC_DUPLEX_FULL: u16 = 1 << 3;
/// PORT_MAC_CTL force duplex (bit 2).
pub const MAC_FORCE_DUPLEX: u16 = 1 << 2;
/// PORT_MAC_CTL speed field \[1:0\]: 0 10, 1 100, 2 1000 Mb/s, 3 not forced (10 G with
/// [`MAC_FORCE_SPEED`]).
pub const MAC_SPEED_MASK: u16 = 0x0003;

/// PORT_CTL0 (port register 0x04): egress mode, frame mode, port state.
pub const PORT_CTL0: u8 = 0x04;
/// PORT_CTL0 egress mode field \[13:12\].
pub const CTL0_EGRESS_MASK: u16 = 0x3000;
/// PORT_CTL0 frame mode field \[9:8\].
pub const CTL0_FRAME_MASK: u16 = 0x0300;
/// PORT_CTL0 port state field \[1:0\].
pub const CTL0_STATE_MASK: u16 = 0x0003;

/// PORT_CTL2 (port register 0x08); on the 6185 its bits \[3:0\] are the upstream port.
pub const PORT_CTL2: u8 = 0x08;
/// PORT_CTL2 upstream (CPU) port field \[3:0\] (6185).
pub const CTL2_UPSTREAM_MASK: u16 = 0x000F;

/// Global1 MONITOR_CTL (0x1A) of the 6185 and 6352 families.
pub const G1_MONITOR_CTL: u8 = 0x1A;
/// G1 MONITOR_CTL CPU ("ARP") destination port field \[7:4\].
pub const MONITOR_CPU_DEST_MASK: u16 = 0x00F0;
/// G1 MONITOR_CTL ingress mirror destination field \[15:12\] (6095-style chips).
pub const MONITOR_INGRESS_DEST_MASK: u16 = 0xF000;
/// G1 MONITOR_CTL egress mirror destination field \[11:8\] (6095-style chips).
pub const MONITOR_EGRESS_DEST_MASK: u16 = 0x0F00;

/// PORT_MAC_CTL force speed (bit 13): on the 6341, 6390 and 6393 families the speed
/// field counts only while it is set (docs/mv88e6xxx.md#per-family-port-ops).
pub const MAC_FORCE_SPEED: u16 = 1 << 13;

/// Global1 MONITOR_MGMT_CTL (0x1A on the 6341, 6390 and 6393 families): an indirect
/// table, written as UPDATE | pointer \[13:8\] | data \[7:0\].
pub const G1_MONITOR_MGMT_CTL: u8 = 0x1A;
/// MONITOR_MGMT_CTL / POLICY_MGMT_CTL UPDATE (bit 15): store the data at the pointer.
pub const MGMT_UPDATE: u16 = 1 << 15;
/// MONITOR_MGMT_CTL pointer 0x20: ingress mirror destination.
pub const MGMT_PTR_INGRESS_DEST: u16 = 0x2000;
/// MONITOR_MGMT_CTL pointer 0x21: egress mirror destination.
pub const MGMT_PTR_EGRESS_DEST: u16 = 0x2100;
/// MONITOR_MGMT_CTL pointer 0x30: CPU destination of management frames.
pub const MGMT_PTR_CPU_DEST: u16 = 0x3000;
/// CPU destination data bits \[7:5\] = 7: management frames keep the highest priority
/// (Linux's `..._CPU_DEST_MGMTPRI`).
pub const MGMT_CPU_DEST_PRI: u16 = 0x00E0;

/// 6393 family port register 0x0E POLICY_MGMT_CTL: per-port indirect table, written as
/// UPDATE | pointer \[13:8\] | data \[7:0\].
pub const PORT_POLICY_MGMT_CTL: u8 = 0x0E;
/// POLICY_MGMT_CTL pointer 0x30: ingress mirror destination.
pub const POLICY_PTR_INGRESS_DEST: u16 = 0x3000;
/// POLICY_MGMT_CTL pointer 0x38: CPU (upstream) destination.
pub const POLICY_PTR_CPU_DEST: u16 = 0x3800;
/// 6393 family Global2 register 0x05: egress mirror destination.
pub const G2_EGRESS_MONITOR_DEST: u8 = 0x05;

/// PORT_CTL0 bit 2 on the 6352-style chips: egress floods of unknown unicast
/// (`MV88E6352_PORT_CTL0_EGRESS_FLOODS_UC`); on the 6095/6131/6185 the same bit is
/// "forward unknown" (unicast).
pub const CTL0_FLOOD_UC: u16 = 1 << 2;
/// PORT_CTL0 bit 3 on the 6352-style chips: egress floods of unknown multicast.
pub const CTL0_FLOOD_MC: u16 = 1 << 3;
/// PORT_CTL2 bit 6 on the 6095/6131/6185: "default forward" (unknown multicast).
pub const CTL2_DEFAULT_FORWARD: u16 = 1 << 6;

/// Hold the switch's reset line asserted at least this long: 10 ms (Linux
/// `mv88e6xxx_hardware_reset`, `usleep_range(10000, 20000)`; docs/mv88e6xxx.md#reset).
/// The driver has no GPIO: the firmware drives the line.
pub const HW_RESET_ASSERT_NS: u64 = 10_000_000;
/// After releasing the reset line, wait at least this long before the first access:
/// 10 ms (Linux, as [`HW_RESET_ASSERT_NS`]); then call [`Smi::after_hardware_reset`].
pub const HW_RESET_SETTLE_NS: u64 = 10_000_000;
/// After disabling every port before a reset, wait this long for the transmit queues to
/// drain: 2 ms, one maximum-size frame at 10 Mb/s (Linux `mv88e6xxx_disable_ports`).
pub const PORT_DRAIN_NS: u64 = 2_000_000;

/// Which of Linux's per-chip ops this crate implements for a chip's ports, link and reset
/// (docs/mv88e6xxx.md#port-control).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PortOps {
    /// 88E6185 (`mv88e6185_ops`): speeds 10/100/1000, frame modes normal and DSA, no
    /// RGMII delay op, upstream port in PORT_CTL2, reset with SW_RESET | PPU_ENABLE and
    /// a wait for the 6185 PPU state "polling", 8 Global1 interrupt sources.
    Mv6185,
    /// 88E6172, 6176, 6240, 6352 (`mv88e6352_ops` and its siblings): speeds 10/100/1000
    /// (200 on ports 5 and 6), all four frame modes, RGMII delays on ports 5 and 6, reset
    /// with SW_RESET and a wait for the 6352 PPU state bit, 9 Global1 interrupt sources,
    /// internal PHY interrupts through Global2.
    Mv6352,
    /// 88E6085 (`mv88e6085_ops`): 6185 speeds, all frame modes, no RGMII delay, CPU and
    /// mirror ports in MONITOR_CTL, 6185 reset (PPU restart), 8 Global1 sources.
    Mv6085,
    /// 88E6095 (`mv88e6095_ops`): 6185 speeds, normal/DSA frames, upstream port in
    /// PORT_CTL2 only (no `set_cpu_port`, no `set_egress_port`), 6185 reset, 8 sources.
    Mv6095,
    /// 88E6097 (`mv88e6097_ops`): 6185 speeds, all frame modes, MONITOR_CTL, 6352 reset,
    /// 8 sources.
    Mv6097,
    /// 88E6123 (`mv88e6123_ops`): 6185 speeds, normal/DSA frames, MONITOR_CTL, 6352
    /// reset, 9 sources.
    Mv6123,
    /// 88E6131 (`mv88e6131_ops`): 6185 speeds, all frame modes, MONITOR_CTL and upstream
    /// port in PORT_CTL2, 6185 reset, 9 sources.
    Mv6131,
    /// 88E6161 (`mv88e6161_ops`): 6185 speeds, all frame modes, MONITOR_CTL, 6352 reset,
    /// 9 sources.
    Mv6161,
    /// 88E6165 (`mv88e6165_ops`): 6185 speeds, **no frame-mode op**, MONITOR_CTL, 6352
    /// reset, 9 sources.
    Mv6165,
    /// 88E6171, 6175, 6350, 6351 (`mv88e6171_ops`, `mv88e6175_ops`, `mv88e6350_ops`,
    /// `mv88e6351_ops`): 6185 speeds, all frame modes, RGMII delays on ports 5 and 6,
    /// MONITOR_CTL, 6352 reset, 9 sources.
    Mv6351,
    /// 88E6320, 6321 (`mv88e6320_ops`, `mv88e6321_ops`): 6185 speeds, all frame modes,
    /// RGMII delays on ports 2, 5 and 6, MONITOR_CTL, 6352 reset, 8 sources.
    Mv6320,
    /// 88E6141, 6341 (`mv88e6141_ops`, `mv88e6341_ops`): speeds up to 2500 (200 on port
    /// 0, 2500 on port 5), FORCE_SPEED, RGMII delays on port 0, MONITOR_MGMT_CTL, 6352
    /// reset, 9 sources.
    Mv6341,
    /// 88E6190, 6191, 6290, 6390 (`mv88e6190_ops` ...): speeds up to 2500 (200 on port
    /// 0, 2500 on ports 9 and 10), FORCE_SPEED, RGMII delays on port 0,
    /// MONITOR_MGMT_CTL, 6352 reset, 9 sources.
    Mv6390,
    /// 88E6190X, 6390X (`mv88e6190x_ops`, `mv88e6390x_ops`): as [`Mv6390`](Self::Mv6390)
    /// with 10000 on ports 9 and 10.
    Mv6390X,
    /// 88E6191X, 6193X, 6361, 6393X (`mv88e6393x_ops`): speeds up to 10000 (200 on port
    /// 0, 2500 and above on ports 0, 9, 10; the 6361 at most 2500) with the 6393X's own
    /// encoding, RGMII delays on port 0, **no `set_cpu_port`** (the CPU port is per port,
    /// POLICY_MGMT_CTL), mirror ports in POLICY_MGMT_CTL / Global2 0x05, 6352 reset, 10
    /// sources.
    Mv6393X,
    /// 88E6020, 6071, 6220, 6250 (`mv88e6250_ops`): speeds 10/100, all frame modes, RGMII
    /// delays on ports 5 and 6, MONITOR_CTL, 6250 reset (INIT_READY only), 9 sources;
    /// its PORT_STS layout differs ([`Smi::port_link_status`] refuses it).
    Mv6250,
}

/// Which of Linux's speed/duplex functions a chip uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpeedOp {
    M6185,
    M6250,
    M6341,
    M6352,
    M6390,
    M6390X,
    M6393X,
}

/// Which frame modes a chip's `port_set_frame_mode` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameOp {
    /// No such op (the 6165).
    Missing,
    /// `mv88e6085_port_set_frame_mode`: normal and DSA.
    NormalDsa,
    /// `mv88e6351_port_set_frame_mode`: all four.
    All,
}

/// Where a chip keeps the CPU / mirror destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MonitorOp {
    /// The op is NULL for this chip.
    Missing,
    /// G1 MONITOR_CTL fields (`mv88e6095_g1_*`).
    MonitorCtl,
    /// G1 MONITOR_MGMT_CTL pointer table (`mv88e6390_g1_*`).
    MonitorMgmt,
    /// 6393X: per-port POLICY_MGMT_CTL, Global2 0x05 (`mv88e6393x_*`).
    PolicyMgmt,
}

/// Which `reset` op a chip uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResetOp {
    M6185,
    M6250,
    M6352,
}

impl PortOps {
    /// The ops of `chip` (docs/mv88e6xxx.md#per-family-port-ops); `None` for a chip this
    /// crate has no port facts for (every chip of the table has them).
    pub const fn of(chip: Chip) -> Option<Self> {
        Some(match chip {
            Chip::Mv6185 => PortOps::Mv6185,
            Chip::Mv6172 | Chip::Mv6176 | Chip::Mv6240 | Chip::Mv6352 => PortOps::Mv6352,
            Chip::Mv6085 => PortOps::Mv6085,
            Chip::Mv6095 => PortOps::Mv6095,
            Chip::Mv6097 => PortOps::Mv6097,
            Chip::Mv6123 => PortOps::Mv6123,
            Chip::Mv6131 => PortOps::Mv6131,
            Chip::Mv6161 => PortOps::Mv6161,
            Chip::Mv6165 => PortOps::Mv6165,
            Chip::Mv6171 | Chip::Mv6175 | Chip::Mv6350 | Chip::Mv6351 => PortOps::Mv6351,
            Chip::Mv6320 | Chip::Mv6321 => PortOps::Mv6320,
            Chip::Mv6141 | Chip::Mv6341 => PortOps::Mv6341,
            Chip::Mv6190 | Chip::Mv6191 | Chip::Mv6290 | Chip::Mv6390 => PortOps::Mv6390,
            Chip::Mv6190X | Chip::Mv6390X => PortOps::Mv6390X,
            Chip::Mv6191X | Chip::Mv6193X | Chip::Mv6361 | Chip::Mv6393X => PortOps::Mv6393X,
            Chip::Mv6020 | Chip::Mv6071 | Chip::Mv6220 | Chip::Mv6250 => PortOps::Mv6250,
        })
    }

    /// The number of Global1 interrupt sources (Linux's `g1_irqs`): G1_STS / G1_CTL1
    /// bits `0..n`.
    pub const fn g1_irqs(self) -> u8 {
        match self {
            PortOps::Mv6185 | PortOps::Mv6085 | PortOps::Mv6095 | PortOps::Mv6097 => 8,
            PortOps::Mv6320 => 8,
            PortOps::Mv6393X => 10,
            PortOps::Mv6352
            | PortOps::Mv6123
            | PortOps::Mv6131
            | PortOps::Mv6161
            | PortOps::Mv6165
            | PortOps::Mv6351
            | PortOps::Mv6341
            | PortOps::Mv6390
            | PortOps::Mv6390X
            | PortOps::Mv6250 => 9,
        }
    }

    /// The ports with RGMII delays (`port_set_rgmii_delay`), bit `n` = port `n`; 0 when
    /// the chip's ops table has no such op.
    pub const fn rgmii_ports(self) -> u16 {
        match self {
            PortOps::Mv6352 | PortOps::Mv6351 | PortOps::Mv6250 => 0x0060,
            PortOps::Mv6320 => 0x0064,
            PortOps::Mv6341 | PortOps::Mv6390 | PortOps::Mv6390X | PortOps::Mv6393X => 0x0001,
            PortOps::Mv6185
            | PortOps::Mv6085
            | PortOps::Mv6095
            | PortOps::Mv6097
            | PortOps::Mv6123
            | PortOps::Mv6131
            | PortOps::Mv6161
            | PortOps::Mv6165 => 0,
        }
    }

    /// Whether the chip's speed field needs [`MAC_FORCE_SPEED`] to count.
    pub const fn has_force_speed(self) -> bool {
        matches!(
            self.speed_op(),
            SpeedOp::M6341 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X
        )
    }

    const fn speed_op(self) -> SpeedOp {
        match self {
            PortOps::Mv6352 => SpeedOp::M6352,
            PortOps::Mv6341 => SpeedOp::M6341,
            PortOps::Mv6390 => SpeedOp::M6390,
            PortOps::Mv6390X => SpeedOp::M6390X,
            PortOps::Mv6393X => SpeedOp::M6393X,
            PortOps::Mv6250 => SpeedOp::M6250,
            PortOps::Mv6185
            | PortOps::Mv6085
            | PortOps::Mv6095
            | PortOps::Mv6097
            | PortOps::Mv6123
            | PortOps::Mv6131
            | PortOps::Mv6161
            | PortOps::Mv6165
            | PortOps::Mv6351
            | PortOps::Mv6320 => SpeedOp::M6185,
        }
    }

    const fn frame_op(self) -> FrameOp {
        match self {
            PortOps::Mv6165 => FrameOp::Missing,
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6123 => FrameOp::NormalDsa,
            _ => FrameOp::All,
        }
    }

    /// `set_cpu_port`: where the global CPU destination goes.
    const fn cpu_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6095 | PortOps::Mv6393X => MonitorOp::Missing,
            PortOps::Mv6341 | PortOps::Mv6390 | PortOps::Mv6390X => MonitorOp::MonitorMgmt,
            _ => MonitorOp::MonitorCtl,
        }
    }

    /// `set_egress_port`: where the mirror destinations go.
    const fn mirror_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6095 => MonitorOp::Missing,
            PortOps::Mv6393X => MonitorOp::PolicyMgmt,
            PortOps::Mv6341 | PortOps::Mv6390 | PortOps::Mv6390X => MonitorOp::MonitorMgmt,
            _ => MonitorOp::MonitorCtl,
        }
    }

    /// `port_set_upstream_port`: PORT_CTL2 (`MonitorCtl` here), POLICY_MGMT_CTL, or none.
    const fn upstream_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6131 => MonitorOp::MonitorCtl,
            PortOps::Mv6393X => MonitorOp::PolicyMgmt,
            _ => MonitorOp::Missing,
        }
    }

    /// `port_set_ucast_flood` / `port_set_mcast_flood`: `Some(true)` the 6185 functions
    /// (PORT_CTL0 bit 2, PORT_CTL2 bit 6), `Some(false)` the 6352 ones (PORT_CTL0 bits 2
    /// and 3), `None` for the 6165 (neither).
    const fn flood_op(self) -> Option<bool> {
        match self {
            PortOps::Mv6165 => None,
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6131 => Some(true),
            _ => Some(false),
        }
    }

    const fn reset_op(self) -> ResetOp {
        match self {
            PortOps::Mv6185 | PortOps::Mv6085 | PortOps::Mv6095 | PortOps::Mv6131 => ResetOp::M6185,
            PortOps::Mv6250 => ResetOp::M6250,
            _ => ResetOp::M6352,
        }
    }
}

/// Which mirror destination [`Smi::set_mirror_port`] sets (Linux's
/// `mv88e6xxx_egress_direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MirrorDirection {
    /// Where frames mirrored on ingress go.
    Ingress,
    /// Where frames mirrored on egress go.
    Egress,
}

/// A port's forwarding state (PORT_CTL0 \[1:0\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PortState {
    /// 0: no frames in or out.
    Disabled,
    /// 1: blocking / listening (management frames only).
    Blocking,
    /// 2: learning addresses, not forwarding.
    Learning,
    /// 3: forwarding.
    Forwarding,
}

impl PortState {
    const fn bits(self) -> u16 {
        match self {
            PortState::Disabled => 0,
            PortState::Blocking => 1,
            PortState::Learning => 2,
            PortState::Forwarding => 3,
        }
    }

    const fn from_bits(v: u16) -> Self {
        match v & CTL0_STATE_MASK {
            0 => PortState::Disabled,
            1 => PortState::Blocking,
            2 => PortState::Learning,
            _ => PortState::Forwarding,
        }
    }
}

/// How a port frames what it sends and receives (PORT_CTL0 \[9:8\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameMode {
    /// 0: normal Ethernet frames.
    Normal,
    /// 1: DSA-tagged frames (a CPU or cascade port).
    Dsa,
    /// 2: provider (chips with `mv88e6351_port_set_frame_mode`).
    Provider,
    /// 3: EtherType DSA ("EDSA"; as [`Provider`](Self::Provider)).
    EtherTypeDsa,
}

impl FrameMode {
    const fn bits(self) -> u16 {
        match self {
            FrameMode::Normal => 0x0000,
            FrameMode::Dsa => 0x0100,
            FrameMode::Provider => 0x0200,
            FrameMode::EtherTypeDsa => 0x0300,
        }
    }
}

/// What a port does to VLAN tags on egress (PORT_CTL0 \[13:12\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EgressMode {
    /// 0: frames leave as they came in.
    Unmodified,
    /// 1: tags removed.
    Untagged,
    /// 2: tags added.
    Tagged,
    /// 3: EtherType DSA tag (with [`FrameMode::EtherTypeDsa`]).
    EtherTypeDsa,
}

impl EgressMode {
    const fn bits(self) -> u16 {
        match self {
            EgressMode::Unmodified => 0x0000,
            EgressMode::Untagged => 0x1000,
            EgressMode::Tagged => 0x2000,
            EgressMode::EtherTypeDsa => 0x3000,
        }
    }
}

/// The link a port's MAC is forced to (PORT_MAC_CTL FORCE_LINK / LINK_UP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ForcedLink {
    /// Normal link detection (the PHY polling unit's).
    Unforced,
    /// Forced down.
    Down,
    /// Forced up.
    Up,
}

/// A forced MAC speed (PORT_MAC_CTL \[1:0\], plus ALTSPEED and FORCE_SPEED where the
/// chip has them; docs/mv88e6xxx.md#per-family-port-ops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Speed {
    /// 10 Mb/s.
    Mbps10,
    /// 100 Mb/s.
    Mbps100,
    /// 200 Mb/s (6352 family ports 5 and 6; port 0 of the 6341, 6390 and 6393 families).
    Mbps200,
    /// 1000 Mb/s.
    Mbps1000,
    /// Not forced: the PHY polling unit's.
    Unforced,
    /// 2500 Mb/s (6341 port 5; 6390 family ports 9 and 10; 6393 family ports 0, 9, 10).
    Mbps2500,
    /// 5000 Mb/s (6393 family ports 0, 9, 10, not the 6361).
    Mbps5000,
    /// 10000 Mb/s (6190X/6390X ports 9 and 10; 6393 family ports 0, 9, 10, not the 6361).
    Mbps10000,
}

impl Speed {
    /// The speed in Mb/s, `None` for [`Speed::Unforced`].
    pub const fn mbps(self) -> Option<u16> {
        match self {
            Speed::Mbps10 => Some(10),
            Speed::Mbps100 => Some(100),
            Speed::Mbps200 => Some(200),
            Speed::Mbps1000 => Some(1000),
            Speed::Mbps2500 => Some(2500),
            Speed::Mbps5000 => Some(5000),
            Speed::Mbps10000 => Some(10000),
            Speed::Unforced => None,
        }
    }
}

/// PORT_MAC_CTL bits and mask for `speed` on `port` with `op` (Linux's
/// `*_port_set_speed_duplex`, docs/mv88e6xxx.md#per-family-port-ops), or the refused
/// speed in Mb/s.
const fn speed_bits(op: SpeedOp, is_6361: bool, port: u8, speed: Speed) -> Result<(u16, u16), u16> {
    let refused = match speed.mbps() {
        None => false,
        Some(m) => match op {
            SpeedOp::M6185 => m == 200 || m > 1000,
            SpeedOp::M6250 => m > 100,
            SpeedOp::M6352 => m > 1000 || (m == 200 && port < 5),
            SpeedOp::M6341 => m > 2500 || (m == 200 && port != 0) || (m == 2500 && port < 5),
            SpeedOp::M6390 => m > 2500 || (m == 200 && port != 0) || (m == 2500 && port < 9),
            // 5000 is not in the common encoder: refused.
            SpeedOp::M6390X => (m == 200 && port != 0) || (m >= 2500 && port < 9) || m == 5000,
            SpeedOp::M6393X => {
                (is_6361 && m > 2500)
                    || (m == 200 && port != 0)
                    || (m >= 2500 && port > 0 && port < 9)
            }
        },
    };
    if refused {
        return Err(match speed.mbps() {
            Some(m) => m,
            None => 0,
        });
    }
    let alt = match op {
        SpeedOp::M6352 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X => true,
        SpeedOp::M6341 => port == 0,
        SpeedOp::M6185 | SpeedOp::M6250 => false,
    };
    let force = matches!(
        op,
        SpeedOp::M6341 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X
    );
    let alt_bit = if alt { MAC_ALTSPEED } else { 0 };
    let bits = if matches!(op, SpeedOp::M6393X) {
        match speed {
            Speed::Mbps10 => 0,
            Speed::Mbps100 => 1,
            Speed::Mbps200 => 1 | MAC_ALTSPEED,
            Speed::Mbps1000 => 2,
            Speed::Mbps2500 => 2 | MAC_ALTSPEED,
            Speed::Mbps5000 => 3 | MAC_ALTSPEED,
            Speed::Mbps10000 | Speed::Unforced => 3,
        }
    } else {
        match speed {
            Speed::Mbps10 => 0,
            Speed::Mbps100 => 1,
            Speed::Mbps200 => {
                if alt {
                    1 | MAC_ALTSPEED
                } else {
                    2
                }
            }
            Speed::Mbps1000 => 2,
            Speed::Mbps2500 => 3 | alt_bit,
            Speed::Mbps5000 | Speed::Mbps10000 | Speed::Unforced => 3,
        }
    };
    let force_bit = if force && !matches!(speed, Speed::Unforced) {
        MAC_FORCE_SPEED
    } else {
        0
    };
    let mut mask = MAC_SPEED_MASK | alt_bit;
    if matches!(op, SpeedOp::M6393X) {
        mask |= MAC_ALTSPEED;
    }
    if force {
        mask |= MAC_FORCE_SPEED;
    }
    Ok((bits | force_bit, mask))
}

/// A forced duplex (PORT_MAC_CTL FORCE_DUPLEX / DUPLEX_FULL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Duplex {
    /// Forced half duplex.
    Half,
    /// Forced full duplex.
    Full,
    /// Not forced.
    Unforced,
}

/// RGMII clock delays added by the switch (PORT_MAC_CTL bits 15 and 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RgmiiDelay {
    /// Delay the receive clock (Linux `rgmii-rxid` / `rgmii-id`).
    pub rx: bool,
    /// Delay the transmit clock (Linux `rgmii-txid` / `rgmii-id`).
    pub tx: bool,
}

/// The speed PORT_STS reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkSpeed {
    /// 10 Mb/s.
    Mbps10,
    /// 100 Mb/s (or 200 with the 6352's alternate speed).
    Mbps100,
    /// 1000 Mb/s.
    Mbps1000,
    /// Field value 3 (chip specific, e.g. 10 G on other families).
    Other,
}

/// A port's link as PORT_STS shows it: what the PHY polling unit last found, or the MAC's
/// forced values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LinkStatus {
    /// Link up.
    pub up: bool,
    /// Full duplex.
    pub full_duplex: bool,
    /// Speed.
    pub speed: LinkSpeed,
    /// The raw PORT_STS value.
    pub raw: u16,
}

impl LinkStatus {
    /// Decode a PORT_STS value.
    pub const fn from_raw(raw: u16) -> Self {
        Self {
            up: raw & STS_LINK != 0,
            full_duplex: raw & STS_DUPLEX != 0,
            speed: match (raw & STS_SPEED_MASK) >> 8 {
                0 => LinkSpeed::Mbps10,
                1 => LinkSpeed::Mbps100,
                2 => LinkSpeed::Mbps1000,
                _ => LinkSpeed::Other,
            },
            raw,
        }
    }
}

impl<M: Mdio, C: Continuous + Copy> Smi<M, C> {
    /// The chip's [`PortOps`]; no frame.
    ///
    /// Errors: [`ConfigError::PortFeature`] ([`Feature::PortOps`]) for a chip without them.
    pub fn port_ops(&self) -> Result<PortOps, ConfigError> {
        self.chip()
            .and_then(PortOps::of)
            .ok_or(ConfigError::PortFeature {
                chip: self.chip(),
                port: None,
                feature: Feature::PortOps,
            })
    }

    /// The ops, and `port` checked against the chip (both before any frame).
    fn ops_port(&self, port: u8) -> Result<PortOps, Error<M::Error>> {
        let ops = self.port_ops()?;
        if !self.chip().is_some_and(|c| c.is_valid_port(port)) {
            return Err(ConfigError::Port { port }.into());
        }
        Ok(ops)
    }

    fn refuse(&self, port: u8, feature: Feature) -> Error<M::Error> {
        ConfigError::PortFeature {
            chip: self.chip(),
            port: Some(port),
            feature,
        }
        .into()
    }

    /// Read-modify-write port register `reg`: the bits of `mask` become `bits & mask`.
    fn port_update(
        &mut self,
        port: u8,
        reg: u8,
        mask: u16,
        bits: u16,
    ) -> Result<(), Error<M::Error>> {
        let v = self.port_read(port, reg)?;
        self.port_write(port, reg, (v & !mask) | (bits & mask))
    }

    /// Set `port`'s forwarding state (PORT_CTL0 \[1:0\], read-modify-write: 2 register
    /// accesses).
    ///
    /// Errors: [`ConfigError::PortFeature`] (chip without [`PortOps`]),
    /// [`ConfigError::Port`] (both before any frame); access errors.
    pub fn port_set_state(&mut self, port: u8, state: PortState) -> Result<(), Error<M::Error>> {
        self.ops_port(port)?;
        self.port_update(port, PORT_CTL0, CTL0_STATE_MASK, state.bits())
    }

    /// `port`'s forwarding state (one PORT_CTL0 read). Errors: as
    /// [`port_set_state`](Self::port_set_state).
    pub fn port_state(&mut self, port: u8) -> Result<PortState, Error<M::Error>> {
        self.ops_port(port)?;
        Ok(PortState::from_bits(self.port_read(port, PORT_CTL0)?))
    }

    /// Enable `port`: [`PortState::Forwarding`]. Errors: as
    /// [`port_set_state`](Self::port_set_state).
    pub fn port_enable(&mut self, port: u8) -> Result<(), Error<M::Error>> {
        self.port_set_state(port, PortState::Forwarding)
    }

    /// Disable `port`: [`PortState::Disabled`]. Before a reset, disable every port and
    /// wait [`PORT_DRAIN_NS`] (Linux does). Errors: as
    /// [`port_set_state`](Self::port_set_state).
    pub fn port_disable(&mut self, port: u8) -> Result<(), Error<M::Error>> {
        self.port_set_state(port, PortState::Disabled)
    }

    /// Set `port`'s frame mode (PORT_CTL0 \[9:8\]).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::FrameMode`] for
    /// [`FrameMode::Provider`] / [`FrameMode::EtherTypeDsa`] on the 6185, 6095 and 6123
    /// (Linux's `mv88e6085_port_set_frame_mode` has normal and DSA only) and for every
    /// mode on the 6165 (no such op), before any frame.
    pub fn port_set_frame_mode(
        &mut self,
        port: u8,
        mode: FrameMode,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let ok = match ops.frame_op() {
            FrameOp::Missing => false,
            FrameOp::NormalDsa => matches!(mode, FrameMode::Normal | FrameMode::Dsa),
            FrameOp::All => true,
        };
        if !ok {
            return Err(self.refuse(port, Feature::FrameMode));
        }
        self.port_update(port, PORT_CTL0, CTL0_FRAME_MASK, mode.bits())
    }

    /// Set `port`'s egress mode (PORT_CTL0 \[13:12\]). Errors: as
    /// [`port_set_state`](Self::port_set_state).
    pub fn port_set_egress_mode(
        &mut self,
        port: u8,
        mode: EgressMode,
    ) -> Result<(), Error<M::Error>> {
        self.ops_port(port)?;
        self.port_update(port, PORT_CTL0, CTL0_EGRESS_MASK, mode.bits())
    }

    /// Let `port` send frames with an unknown unicast / multicast destination (Linux's
    /// `port_set_ucast_flood` / `port_set_mcast_flood`; docs/mv88e6xxx.md#per-family-port-ops):
    /// PORT_CTL0 bits 2 and 3 in one read-modify-write on the 6352-style chips; on the
    /// 6095, 6131 and 6185 PORT_CTL0 bit 2 ("forward unknown") and PORT_CTL2 bit 6
    /// ("default forward"), each read-modify-write.
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::Flood`] on the
    /// 6165 (no such ops), before any frame.
    pub fn port_set_flood(
        &mut self,
        port: u8,
        unicast: bool,
        multicast: bool,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let uc = if unicast { CTL0_FLOOD_UC } else { 0 };
        match ops.flood_op() {
            None => Err(self.refuse(port, Feature::Flood)),
            Some(false) => {
                let mc = if multicast { CTL0_FLOOD_MC } else { 0 };
                self.port_update(port, PORT_CTL0, CTL0_FLOOD_UC | CTL0_FLOOD_MC, uc | mc)
            }
            Some(true) => {
                self.port_update(port, PORT_CTL0, CTL0_FLOOD_UC, uc)?;
                let mc = if multicast { CTL2_DEFAULT_FORWARD } else { 0 };
                self.port_update(port, PORT_CTL2, CTL2_DEFAULT_FORWARD, mc)
            }
        }
    }

    /// Force `port`'s MAC link up or down, or let the PHY polling unit decide (PORT_MAC_CTL
    /// FORCE_LINK / LINK_UP). Errors: as [`port_set_state`](Self::port_set_state).
    pub fn port_set_forced_link(
        &mut self,
        port: u8,
        link: ForcedLink,
    ) -> Result<(), Error<M::Error>> {
        self.ops_port(port)?;
        let bits = match link {
            ForcedLink::Unforced => 0,
            ForcedLink::Down => MAC_FORCE_LINK,
            ForcedLink::Up => MAC_FORCE_LINK | MAC_LINK_UP,
        };
        self.port_update(port, PORT_MAC_CTL, MAC_FORCE_LINK | MAC_LINK_UP, bits)
    }

    /// Force `port`'s MAC speed and duplex (PORT_MAC_CTL speed field \[1:0\], ALTSPEED
    /// bit 12 and FORCE_SPEED bit 13 where the chip's function uses them, FORCE_DUPLEX /
    /// DUPLEX_FULL; one read-modify-write), or unforce them. The encoding and the speeds
    /// each port takes are the chip's Linux function's (docs/mv88e6xxx.md#per-family-port-ops):
    /// e.g. 2500 on a 6390 port 9 is speed 3 | ALTSPEED | FORCE_SPEED, on a 6393X port 0
    /// speed 2 | ALTSPEED | FORCE_SPEED.
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::Speed`] (with the
    /// speed in Mb/s) for a speed the chip's function refuses on that port (200 on the
    /// 6185-style chips, above 100 on the 6250 family, 2500 below port 9 on the 6390
    /// family, above 2500 on the 6361, ...), before any frame.
    pub fn port_set_speed_duplex(
        &mut self,
        port: u8,
        speed: Speed,
        duplex: Duplex,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let is_6361 = self.chip() == Some(Chip::Mv6361);
        let (speed_bits, speed_mask) = match speed_bits(ops.speed_op(), is_6361, port, speed) {
            Ok(b) => b,
            Err(mbps) => return Err(self.refuse(port, Feature::Speed(mbps))),
        };
        let duplex_bits = match duplex {
            Duplex::Half => MAC_FORCE_DUPLEX,
            Duplex::Full => MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL,
            Duplex::Unforced => 0,
        };
        let mask = speed_mask | MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL;
        self.port_update(port, PORT_MAC_CTL, mask, speed_bits | duplex_bits)
    }

    /// Set `port`'s RGMII receive / transmit clock delays (PORT_MAC_CTL bits 15 / 14).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::RgmiiDelay`] on a
    /// port outside [`PortOps::rgmii_ports`] (every port of a chip without the op, e.g.
    /// the 6185 or 6097; ports other than 5 and 6 on the 6352 family; other than 0 on
    /// the 6390 family), before any frame.
    pub fn port_set_rgmii_delay(
        &mut self,
        port: u8,
        delay: RgmiiDelay,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let has = match 1u16.checked_shl(u32::from(port)) {
            Some(b) => ops.rgmii_ports() & b != 0,
            None => false,
        };
        if !has {
            return Err(self.refuse(port, Feature::RgmiiDelay));
        }
        let mut bits = 0;
        if delay.rx {
            bits |= MAC_RGMII_RXCLK;
        }
        if delay.tx {
            bits |= MAC_RGMII_TXCLK;
        }
        self.port_update(port, PORT_MAC_CTL, MAC_RGMII_RXCLK | MAC_RGMII_TXCLK, bits)
    }

    /// `port`'s link as PORT_STS reports it (one read). On a PPU-gated chip PORT_STS
    /// follows the PHYs only while the PHY polling unit runs: call
    /// [`service`](Self::service) after PHY accesses first.
    ///
    /// The speed field's value 3 is [`LinkSpeed::Other`] (10 G on the 6390X); the
    /// alternate speeds (200, 2500, 5000) show as their base field (**unverified**,
    /// docs/mv88e6xxx.md#per-family-port-ops).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::LinkStatus`] on
    /// the 6250 family (its PORT_STS has link in bit 12 and a port mode in \[11:8\]),
    /// before any frame.
    pub fn port_link_status(&mut self, port: u8) -> Result<LinkStatus, Error<M::Error>> {
        let ops = self.ops_port(port)?;
        if ops == PortOps::Mv6250 {
            return Err(self.refuse(port, Feature::LinkStatus));
        }
        Ok(LinkStatus::from_raw(self.port_read(port, PORT_STS)?))
    }

    /// Make `cpu` the port management frames go to, with what the chip's ops table has
    /// (docs/mv88e6xxx.md#per-family-port-ops):
    /// - `set_cpu_port`: G1 MONITOR_CTL \[7:4\] read-modify-write
    ///   (`mv88e6095_g1_set_cpu_port`), or on the 6341 and 6390 families one G1
    ///   MONITOR_MGMT_CTL write UPDATE | pointer 0x30 | priority 7 | `cpu`
    ///   (`mv88e6390_g1_set_cpu_port`); the 6095 and the 6393 family have none;
    /// - `port_set_upstream_port`, for every routed port: PORT_CTL2 \[3:0\]
    ///   read-modify-write on the 6095, 6131 and 6185, or on the 6393 family one
    ///   POLICY_MGMT_CTL write UPDATE | pointer 0x38 | priority 7 | `cpu`.
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state) for `cpu` (before any frame).
    pub fn set_cpu_port(&mut self, cpu: u8) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(cpu)?;
        match ops.cpu_op() {
            MonitorOp::MonitorCtl => {
                let v = self.g1_read(G1_MONITOR_CTL)?;
                let bits = u16::from(cpu & 0xF) << 4;
                self.g1_write(G1_MONITOR_CTL, (v & !MONITOR_CPU_DEST_MASK) | bits)?;
            }
            MonitorOp::MonitorMgmt => {
                let v = MGMT_UPDATE | MGMT_PTR_CPU_DEST | MGMT_CPU_DEST_PRI | u16::from(cpu & 0x1F);
                self.g1_write(G1_MONITOR_MGMT_CTL, v)?;
            }
            MonitorOp::Missing | MonitorOp::PolicyMgmt => {}
        }
        let Some(chip) = self.chip() else {
            return Ok(());
        };
        let upstream = ops.upstream_op();
        for port in 0..chip.info().num_ports {
            if !chip.is_valid_port(port) {
                continue;
            }
            match upstream {
                MonitorOp::MonitorCtl => {
                    self.port_update(port, PORT_CTL2, CTL2_UPSTREAM_MASK, u16::from(cpu & 0xF))?
                }
                MonitorOp::PolicyMgmt => {
                    let v = MGMT_UPDATE
                        | POLICY_PTR_CPU_DEST
                        | MGMT_CPU_DEST_PRI
                        | u16::from(cpu & 0x1F);
                    self.port_write(port, PORT_POLICY_MGMT_CTL, v)?
                }
                MonitorOp::Missing | MonitorOp::MonitorMgmt => break,
            }
        }
        Ok(())
    }

    /// Make `dest` the port frames mirrored on ingress or egress go to (Linux's
    /// `set_egress_port`; docs/mv88e6xxx.md#per-family-port-ops): G1 MONITOR_CTL \[15:12\]
    /// / \[11:8\] read-modify-write on the 6095-style chips; one G1 MONITOR_MGMT_CTL
    /// write UPDATE | pointer 0x20 / 0x21 | `dest` on the 6341 and 6390 families; on the
    /// 6393 family POLICY_MGMT_CTL UPDATE | pointer 0x30 | `dest` on every routed port
    /// (ingress) or Global2 0x05 = `dest` (egress).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state) for `dest`;
    /// [`Feature::MirrorPort`] on the 6095 (no such op); both before any frame.
    pub fn set_mirror_port(
        &mut self,
        direction: MirrorDirection,
        dest: u8,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(dest)?;
        let d = u16::from(dest & 0x1F);
        match (ops.mirror_op(), direction) {
            (MonitorOp::Missing, _) => Err(self.refuse(dest, Feature::MirrorPort)),
            (MonitorOp::MonitorCtl, dir) => {
                let (mask, shift) = match dir {
                    MirrorDirection::Ingress => (MONITOR_INGRESS_DEST_MASK, 12),
                    MirrorDirection::Egress => (MONITOR_EGRESS_DEST_MASK, 8),
                };
                let v = self.g1_read(G1_MONITOR_CTL)?;
                let bits = (u16::from(dest & 0xF) << shift) & mask;
                self.g1_write(G1_MONITOR_CTL, (v & !mask) | bits)
            }
            (MonitorOp::MonitorMgmt, dir) => {
                let ptr = match dir {
                    MirrorDirection::Ingress => MGMT_PTR_INGRESS_DEST,
                    MirrorDirection::Egress => MGMT_PTR_EGRESS_DEST,
                };
                self.g1_write(G1_MONITOR_MGMT_CTL, MGMT_UPDATE | ptr | d)
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Egress) => {
                self.g2_write(G2_EGRESS_MONITOR_DEST, d)
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Ingress) => {
                let Some(chip) = self.chip() else {
                    return Ok(());
                };
                for port in 0..chip.info().num_ports {
                    if chip.is_valid_port(port) {
                        let v = MGMT_UPDATE | POLICY_PTR_INGRESS_DEST | d;
                        self.port_write(port, PORT_POLICY_MGMT_CTL, v)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Software reset (Linux `mv88e6185_g1_reset` / `mv88e6352_g1_reset` /
    /// `mv88e6250_g1_reset`, per chip: docs/mv88e6xxx.md#per-family-port-ops): G1_CTL1
    /// read, written back with SW_RESET (and with the 6185 reset, used by the 6085, 6095,
    /// 6131 and 6185, PPU_ENABLE, which restarts the PHY polling unit); a bounded wait for
    /// INIT_READY; then, except with the 6250 reset, a bounded wait for the PPU to poll
    /// again (6185 reset: G1_STS \[15:14\] = 11; 6352 reset: G1_STS bit 15). A PPU hold of this driver
    /// ends (the reset restarts the PPU). Disable the ports and wait [`PORT_DRAIN_NS`]
    /// first if frames may be in flight.
    ///
    /// Errors: [`ConfigError::PortFeature`] before any frame; [`Error::Timeout`]
    /// ([`BusyWait::InitReady`](crate::BusyWait::InitReady), then
    /// [`BusyWait::PpuPolling`](crate::BusyWait::PpuPolling)); [`Error::Mdio`].
    pub fn software_reset(&mut self) -> Result<(), Error<M::Error>> {
        let reset = self.port_ops()?.reset_op();
        let ctl1 = self.g1_read(g1::CTL1)?;
        let mut v = ctl1 | regs::SW_RESET;
        if reset == ResetOp::M6185 {
            v |= PPU_ENABLE;
        }
        // A raw G1_CTL1 write: it ends any PPU hold.
        self.g1_write(g1::CTL1, v)?;
        self.ppu_forget();
        // As after a hardware reset, 0xFFFF (nothing answering) is not INIT_READY.
        self.wait_g1_sts_ready()?;
        let (mask, val) = match reset {
            ResetOp::M6185 => (PPU_STATE_MASK, PPU_STATE_POLLING),
            ResetOp::M6352 => (PPU_STATE_6352, PPU_STATE_6352),
            ResetOp::M6250 => return Ok(()),
        };
        self.wait_g1_sts(mask, val, crate::BusyWait::PpuPolling)
            .map(|_| ())
    }

    /// The wait after a hardware reset: call it once the firmware has held the reset line
    /// for [`HW_RESET_ASSERT_NS`], released it and waited [`HW_RESET_SETTLE_NS`] (the
    /// driver has no GPIO). It waits, bounded, for G1_STS INIT_READY; a read of 0xFFFF
    /// (the switch not answering yet) does not count as ready. What the driver knew of the
    /// switch's state (busy bits seen clear, the FID/SID it wrote, a PPU hold) is forgotten,
    /// so the next access to each unit polls it first. Linux waits up to 1 s for
    /// EEPROM loading here: give the [`Config`](crate::Config) a timeout that long if the
    /// board has an EEPROM.
    ///
    /// Errors: [`Error::Timeout`] ([`BusyWait::InitReady`](crate::BusyWait::InitReady));
    /// [`Error::Mdio`].
    pub fn after_hardware_reset(&mut self) -> Result<u16, Error<M::Error>> {
        self.forget_switch_state();
        self.wait_g1_sts_ready()
    }
}
