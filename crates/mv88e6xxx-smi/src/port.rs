//! Port control, link and reset (docs/mv88e6xxx.md#port-control, docs/mv88e6xxx.md#reset):
//! port states (PORT_CTL0), frame and egress modes, forced link, speed and duplex and
//! RGMII delays (PORT_MAC_CTL), the link status the PHY polling unit reports (PORT_STS),
//! the CPU and upstream ports, software reset and the wait after a hardware reset.
//!
//! Implemented for the chips whose Linux ops this crate took ([`PortOps`]): the 6185 and
//! the 6352 family (6172, 6176, 6240, 6352). Every other chip is refused with
//! [`ConfigError::PortFeature`] ([`Feature::PortOps`]) before any frame, and so is a
//! setting the chip or port cannot take.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::{self, PPU_ENABLE, PPU_STATE_6352, PPU_STATE_MASK, PPU_STATE_POLLING, g1};
use crate::smi::Smi;

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
/// PORT_MAC_CTL 6352 family "200BASE" alternate speed (bit 12; with speed 1: 200 Mb/s).
pub const MAC_ALTSPEED: u16 = 1 << 12;
/// PORT_MAC_CTL link value when forced (bit 5).
pub const MAC_LINK_UP: u16 = 1 << 5;
/// PORT_MAC_CTL force link (bit 4).
pub const MAC_FORCE_LINK: u16 = 1 << 4;
/// PORT_MAC_CTL duplex value when forced (bit 3, 1 = full).
pub const MAC_DUPLEX_FULL: u16 = 1 << 3;
/// PORT_MAC_CTL force duplex (bit 2).
pub const MAC_FORCE_DUPLEX: u16 = 1 << 2;
/// PORT_MAC_CTL speed field \[1:0\]: 0 10, 1 100, 2 1000 Mb/s, 3 not forced.
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
}

impl PortOps {
    /// The ops of `chip`, `None` for a chip this crate has no port facts for.
    pub const fn of(chip: Chip) -> Option<Self> {
        match chip {
            Chip::Mv6185 => Some(PortOps::Mv6185),
            Chip::Mv6172 | Chip::Mv6176 | Chip::Mv6240 | Chip::Mv6352 => Some(PortOps::Mv6352),
            _ => None,
        }
    }

    /// The number of Global1 interrupt sources (Linux's `g1_irqs`): G1_STS / G1_CTL1
    /// bits `0..n`.
    pub const fn g1_irqs(self) -> u8 {
        match self {
            PortOps::Mv6185 => 8,
            PortOps::Mv6352 => 9,
        }
    }
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
    /// 2: provider (6352 family only).
    Provider,
    /// 3: EtherType DSA ("EDSA", 6352 family only).
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

/// A forced MAC speed (PORT_MAC_CTL \[1:0\], plus ALTSPEED for 200 Mb/s on the 6352).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Speed {
    /// 10 Mb/s.
    Mbps10,
    /// 100 Mb/s.
    Mbps100,
    /// 200 Mb/s (6352 family, ports 5 and 6).
    Mbps200,
    /// 1000 Mb/s.
    Mbps1000,
    /// Not forced: the PHY polling unit's.
    Unforced,
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
    /// [`FrameMode::Provider`] / [`FrameMode::EtherTypeDsa`] on the 6185 (Linux's
    /// `mv88e6085_port_set_frame_mode` has normal and DSA only), before any frame.
    pub fn port_set_frame_mode(
        &mut self,
        port: u8,
        mode: FrameMode,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        if ops == PortOps::Mv6185 && !matches!(mode, FrameMode::Normal | FrameMode::Dsa) {
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

    /// Force `port`'s MAC speed and duplex (PORT_MAC_CTL speed field, ALTSPEED on the
    /// 6352 family, FORCE_DUPLEX / DUPLEX_FULL), or unforce them.
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::Speed`] for 200 Mb/s
    /// on the 6185 or on a 6352-family port below 5 (Linux's `*_port_set_speed_duplex`),
    /// before any frame.
    pub fn port_set_speed_duplex(
        &mut self,
        port: u8,
        speed: Speed,
        duplex: Duplex,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let alt = ops == PortOps::Mv6352;
        let speed_bits = match speed {
            Speed::Mbps10 => 0,
            Speed::Mbps100 => 1,
            Speed::Mbps200 if alt && port >= 5 => 1 | MAC_ALTSPEED,
            Speed::Mbps200 => return Err(self.refuse(port, Feature::Speed(200))),
            Speed::Mbps1000 => 2,
            Speed::Unforced => MAC_SPEED_MASK,
        };
        let duplex_bits = match duplex {
            Duplex::Half => MAC_FORCE_DUPLEX,
            Duplex::Full => MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL,
            Duplex::Unforced => 0,
        };
        let mut mask = MAC_SPEED_MASK | MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL;
        if alt {
            mask |= MAC_ALTSPEED;
        }
        self.port_update(port, PORT_MAC_CTL, mask, speed_bits | duplex_bits)
    }

    /// Set `port`'s RGMII receive / transmit clock delays (PORT_MAC_CTL bits 15 / 14).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::RgmiiDelay`] on
    /// the 6185 (no such op) and on 6352-family ports below 5, before any frame.
    pub fn port_set_rgmii_delay(
        &mut self,
        port: u8,
        delay: RgmiiDelay,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        if ops != PortOps::Mv6352 || port < 5 {
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
    /// Errors: as [`port_set_state`](Self::port_set_state).
    pub fn port_link_status(&mut self, port: u8) -> Result<LinkStatus, Error<M::Error>> {
        self.ops_port(port)?;
        Ok(LinkStatus::from_raw(self.port_read(port, PORT_STS)?))
    }

    /// Make `cpu` the port management frames go to (G1 MONITOR_CTL \[7:4\], Linux
    /// `mv88e6095_g1_set_cpu_port`) and, on the 6185, the upstream port of every port
    /// (PORT_CTL2 \[3:0\], `mv88e6095_port_set_upstream_port`).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state) for `cpu` (before any frame).
    pub fn set_cpu_port(&mut self, cpu: u8) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(cpu)?;
        let v = self.g1_read(G1_MONITOR_CTL)?;
        let bits = u16::from(cpu & 0xF) << 4;
        self.g1_write(G1_MONITOR_CTL, (v & !MONITOR_CPU_DEST_MASK) | bits)?;
        if ops == PortOps::Mv6185
            && let Some(chip) = self.chip()
        {
            for port in 0..chip.info().num_ports {
                self.port_update(port, PORT_CTL2, CTL2_UPSTREAM_MASK, u16::from(cpu & 0xF))?;
            }
        }
        Ok(())
    }

    /// Software reset (Linux `mv88e6185_g1_reset` / `mv88e6352_g1_reset`): G1_CTL1 read,
    /// written back with SW_RESET (and on the 6185 PPU_ENABLE, which restarts the PHY
    /// polling unit); a bounded wait for INIT_READY; a bounded wait for the PPU to poll
    /// again (6185: G1_STS \[15:14\] = 11; 6352: G1_STS bit 15). A PPU hold of this driver
    /// ends (the reset restarts the PPU). Disable the ports and wait [`PORT_DRAIN_NS`]
    /// first if frames may be in flight.
    ///
    /// Errors: [`ConfigError::PortFeature`] before any frame; [`Error::Timeout`]
    /// ([`BusyWait::InitReady`](crate::BusyWait::InitReady), then
    /// [`BusyWait::PpuPolling`](crate::BusyWait::PpuPolling)); [`Error::Mdio`].
    pub fn software_reset(&mut self) -> Result<(), Error<M::Error>> {
        let ops = self.port_ops()?;
        let ctl1 = self.g1_read(g1::CTL1)?;
        let mut v = ctl1 | regs::SW_RESET;
        if ops == PortOps::Mv6185 {
            v |= PPU_ENABLE;
        }
        // A raw G1_CTL1 write: it ends any PPU hold.
        self.g1_write(g1::CTL1, v)?;
        self.ppu_forget();
        self.wait_init_ready()?;
        let (mask, val) = match ops {
            PortOps::Mv6185 => (PPU_STATE_MASK, PPU_STATE_POLLING),
            PortOps::Mv6352 => (PPU_STATE_6352, PPU_STATE_6352),
        };
        self.wait_g1_sts(mask, val, crate::BusyWait::PpuPolling)
            .map(|_| ())
    }

    /// The wait after a hardware reset: call it once the firmware has held the reset line
    /// for [`HW_RESET_ASSERT_NS`], released it and waited [`HW_RESET_SETTLE_NS`] (the
    /// driver has no GPIO). It waits, bounded, for G1_STS INIT_READY; a read of 0xFFFF
    /// (the switch not answering yet) does not count as ready. Linux waits up to 1 s for
    /// EEPROM loading here: give the [`Config`](crate::Config) a timeout that long if the
    /// board has an EEPROM.
    ///
    /// Errors: [`Error::Timeout`] ([`BusyWait::InitReady`](crate::BusyWait::InitReady));
    /// [`Error::Mdio`].
    pub fn after_hardware_reset(&mut self) -> Result<u16, Error<M::Error>> {
        self.ppu_forget();
        self.wait_g1_sts_ready()
    }
}
