//! Which of Linux's per-chip port, link and reset functions each chip uses ([`PortOps`],
//! docs/mv88e6xxx.md#per-family-port-ops), and the checks every port operation starts with.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error, Feature};
use crate::switch::Switch;

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
    /// its PORT_STS layout differs ([`Switch::port_link_status`] refuses it).
    Mv6250,
}

/// Which of Linux's speed/duplex functions a chip uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpeedOp {
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
pub(crate) enum FrameOp {
    /// No such op (the 6165).
    Missing,
    /// `mv88e6085_port_set_frame_mode`: normal and DSA.
    NormalDsa,
    /// `mv88e6351_port_set_frame_mode`: all four.
    All,
}

/// Where a chip keeps the CPU / mirror destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MonitorOp {
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
pub(crate) enum ResetOp {
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

    /// Whether the chip's speed field needs [`MAC_FORCE_SPEED`](crate::regs::port::MAC_FORCE_SPEED) to count.
    pub const fn has_force_speed(self) -> bool {
        matches!(
            self.speed_op(),
            SpeedOp::M6341 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X
        )
    }

    pub(crate) const fn speed_op(self) -> SpeedOp {
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

    pub(crate) const fn frame_op(self) -> FrameOp {
        match self {
            PortOps::Mv6165 => FrameOp::Missing,
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6123 => FrameOp::NormalDsa,
            _ => FrameOp::All,
        }
    }

    /// `set_cpu_port`: where the global CPU destination goes.
    pub(crate) const fn cpu_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6095 | PortOps::Mv6393X => MonitorOp::Missing,
            PortOps::Mv6341 | PortOps::Mv6390 | PortOps::Mv6390X => MonitorOp::MonitorMgmt,
            _ => MonitorOp::MonitorCtl,
        }
    }

    /// `set_egress_port`: where the mirror destinations go.
    pub(crate) const fn mirror_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6095 => MonitorOp::Missing,
            PortOps::Mv6393X => MonitorOp::PolicyMgmt,
            PortOps::Mv6341 | PortOps::Mv6390 | PortOps::Mv6390X => MonitorOp::MonitorMgmt,
            _ => MonitorOp::MonitorCtl,
        }
    }

    /// `port_set_upstream_port`: PORT_CTL2 (`MonitorCtl` here), POLICY_MGMT_CTL, or none.
    pub(crate) const fn upstream_op(self) -> MonitorOp {
        match self {
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6131 => MonitorOp::MonitorCtl,
            PortOps::Mv6393X => MonitorOp::PolicyMgmt,
            _ => MonitorOp::Missing,
        }
    }

    /// `port_set_ucast_flood` / `port_set_mcast_flood`: `Some(true)` the 6185 functions
    /// (PORT_CTL0 bit 2, PORT_CTL2 bit 6), `Some(false)` the 6352 ones (PORT_CTL0 bits 2
    /// and 3), `None` for the 6165 (neither).
    pub(crate) const fn flood_op(self) -> Option<bool> {
        match self {
            PortOps::Mv6165 => None,
            PortOps::Mv6185 | PortOps::Mv6095 | PortOps::Mv6131 => Some(true),
            _ => Some(false),
        }
    }

    pub(crate) const fn reset_op(self) -> ResetOp {
        match self {
            PortOps::Mv6185 | PortOps::Mv6085 | PortOps::Mv6095 | PortOps::Mv6131 => ResetOp::M6185,
            PortOps::Mv6250 => ResetOp::M6250,
            _ => ResetOp::M6352,
        }
    }
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
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
    pub(crate) fn ops_port(&self, port: u8) -> Result<PortOps, Error<M::Error>> {
        let ops = self.port_ops()?;
        if !self.chip().is_some_and(|c| c.is_valid_port(port)) {
            return Err(ConfigError::Port { port }.into());
        }
        Ok(ops)
    }

    pub(crate) fn refuse(&self, port: u8, feature: Feature) -> Error<M::Error> {
        ConfigError::PortFeature {
            chip: self.chip(),
            port: Some(port),
            feature,
        }
        .into()
    }

    /// Read-modify-write port register `reg`: the bits of `mask` become `bits & mask`.
    pub(crate) fn port_update(
        &mut self,
        port: u8,
        reg: u8,
        mask: u16,
        bits: u16,
    ) -> Result<(), Error<M::Error>> {
        let v = self.port_read(port, reg)?;
        self.port_write(port, reg, (v & !mask) | (bits & mask))
    }
}
