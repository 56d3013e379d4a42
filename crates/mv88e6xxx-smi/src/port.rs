//! Port control, link and reset (docs/mv88e6xxx.md#port-control, docs/mv88e6xxx.md#reset):
//! port states (PORT_CTL0), frame and egress modes, forced link, speed and duplex and
//! RGMII delays (PORT_MAC_CTL), the link status the PHY polling unit reports (PORT_STS),
//! the CPU and upstream ports, software reset and the wait after a hardware reset.
//!
//! Implemented for every chip of the crate's table, with the per-chip functions of Linux's
//! `mv88e6xxx_ops` tables ([`PortOps`], docs/mv88e6xxx.md#per-family-port-ops). A setting
//! the chip or port cannot take, or a function the chip's ops table leaves out, is refused
//! with [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) before any frame.

use crate::regs::port::{CTL0_STATE_MASK, STS_DUPLEX, STS_LINK, STS_SPEED_MASK};

mod ctl;
mod errata;
mod mac;
mod ops;
mod reset;

pub use ctl::TagMode;
pub use errata::{ERRATA_6320_VALUE, ERRATA_6390_VALUE, Errata};
pub use ops::PortOps;
pub use reset::EepromWait;

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

/// Hold the switch's reset line asserted at least this long: 10 ms (Linux
/// `mv88e6xxx_hardware_reset`, `usleep_range(10000, 20000)`; docs/mv88e6xxx.md#reset).
/// The driver has no GPIO: the firmware drives the line.
pub const HW_RESET_ASSERT_NS: u64 = 10_000_000;
/// After releasing the reset line, wait at least this long before the first access:
/// 10 ms (Linux, as [`HW_RESET_ASSERT_NS`]); then call [`Switch::after_hardware_reset`](crate::Switch::after_hardware_reset).
pub const HW_RESET_SETTLE_NS: u64 = 10_000_000;
/// After disabling every port before a reset, wait this long for the transmit queues to
/// drain: 2 ms, one maximum-size frame at 10 Mb/s (Linux `mv88e6xxx_disable_ports`).
pub const PORT_DRAIN_NS: u64 = 2_000_000;

/// Which mirror destination [`Switch::set_mirror_port`](crate::Switch::set_mirror_port) sets (Linux's
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
