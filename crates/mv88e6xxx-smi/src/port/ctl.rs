//! Port control: forwarding state, frame and egress modes, flooding (PORT_CTL0, PORT_CTL2),
//! and the CPU and mirror destinations (G1 MONITOR_CTL, MONITOR_MGMT_CTL, the 6393's
//! POLICY_MGMT_CTL and Global2 EGRESS_MONITOR_DEST).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::dsa::ETH_P_EDSA;
use crate::error::{Error, Feature};
use crate::regs::port::{
    CTL0_EGRESS_MASK, CTL0_FLOOD_MC, CTL0_FLOOD_UC, CTL0_FRAME_MASK, CTL0_STATE_MASK,
    CTL2_DEFAULT_FORWARD, CTL2_UPSTREAM_MASK, ETH_TYPE_DEFAULT, POLICY_PTR_CPU_DEST,
    POLICY_PTR_INGRESS_DEST, PORT_CTL0, PORT_CTL2, PORT_POLICY_MGMT_CTL,
};
use crate::regs::{g1, g2};
use crate::switch::Switch;

use super::EtherTypeOp;
use super::ops::{FrameOp, MonitorOp};
use super::{EgressMode, FrameMode, MirrorDirection, PortState};

/// A port's tagging mode, as Linux's `mv88e6xxx_set_port_mode_normal`, `_dsa` and
/// `_edsa` (chip.c) set it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TagMode {
    /// A user port: frame mode normal, egress unmodified, EtherType 0x9100 (Linux
    /// `MV88E6XXX_PORT_ETH_TYPE_DEFAULT`).
    Normal,
    /// A CPU or cascade port with DSA tags: frame mode DSA, egress unmodified, EtherType
    /// 0x9100.
    Dsa,
    /// A CPU port with EtherType DSA tags: frame mode and egress mode EtherType DSA,
    /// EtherType 0xDADA (Linux `ETH_P_EDSA`).
    Edsa,
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Set `port`'s forwarding state (PORT_CTL0 \[1:0\], read-modify-write: 2 register
    /// accesses).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip without [`PortOps`](crate::port::PortOps)),
    /// [`ConfigError::Port`](crate::ConfigError::Port) (both before any frame); access errors.
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
    /// wait [`PORT_DRAIN_NS`](crate::port::PORT_DRAIN_NS) (Linux does). Errors: as
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

    /// Set up `port` for a tagging mode as Linux's `mv88e6xxx_set_port_mode` (chip.c) does,
    /// in its order: the egress mode (PORT_CTL0 \[13:12\]), the frame mode (PORT_CTL0
    /// \[9:8\]), then, where the chip has a `port_set_ether_type` op, the port's EtherType
    /// ([`TagMode`]): PORT_ETH_TYPE (0x0F) on the chips with the 6351 op, the extended port
    /// control table's EtherType entry (EPC_CMD / EPC_DATA, after a bounded wait for
    /// EPC_CMD BUSY to clear) on the 6393 family. The chips whose frame-mode op has normal
    /// and DSA only (6095, 6123, 6185) have no EtherType op.
    ///
    /// Errors: as [`port_set_frame_mode`](Self::port_set_frame_mode) ([`Feature::FrameMode`]
    /// for [`TagMode::Edsa`] on those chips, for every mode on the 6165), before any frame;
    /// [`Error::Timeout`] ([`BusyWait::Mask`](crate::BusyWait::Mask) on EPC_CMD);
    /// [`Error::Mdio`].
    pub fn port_set_tag_mode(&mut self, port: u8, mode: TagMode) -> Result<(), Error<M::Error>> {
        let (frame, egress, etype) = match mode {
            TagMode::Normal => (FrameMode::Normal, EgressMode::Unmodified, ETH_TYPE_DEFAULT),
            TagMode::Dsa => (FrameMode::Dsa, EgressMode::Unmodified, ETH_TYPE_DEFAULT),
            TagMode::Edsa => (
                FrameMode::EtherTypeDsa,
                EgressMode::EtherTypeDsa,
                ETH_P_EDSA,
            ),
        };
        let ops = self.ops_port(port)?;
        let has_etype = match ops.frame_op() {
            FrameOp::Missing => return Err(self.refuse(port, Feature::FrameMode)),
            FrameOp::NormalDsa if mode == TagMode::Edsa => {
                return Err(self.refuse(port, Feature::FrameMode));
            }
            FrameOp::NormalDsa => false,
            FrameOp::All => self.managed_port(port)?.1.ether_type != EtherTypeOp::Missing,
        };
        self.port_set_egress_mode(port, egress)?;
        self.port_set_frame_mode(port, frame)?;
        if has_etype {
            self.port_set_ether_type(port, etype)?;
        }
        Ok(())
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
                let v = self.g1_read(g1::MONITOR_CTL)?;
                let bits = u16::from(cpu & 0xF) << 4;
                self.g1_write(g1::MONITOR_CTL, (v & !g1::MONITOR_CPU_DEST_MASK) | bits)?;
            }
            MonitorOp::MonitorMgmt => {
                let v = g1::MGMT_UPDATE
                    | g1::MGMT_PTR_CPU_DEST
                    | g1::MGMT_CPU_DEST_PRI
                    | u16::from(cpu & 0x1F);
                self.g1_write(g1::MONITOR_MGMT_CTL, v)?;
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
                    let v = g1::MGMT_UPDATE
                        | POLICY_PTR_CPU_DEST
                        | g1::MGMT_CPU_DEST_PRI
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
                    MirrorDirection::Ingress => (g1::MONITOR_INGRESS_DEST_MASK, 12),
                    MirrorDirection::Egress => (g1::MONITOR_EGRESS_DEST_MASK, 8),
                };
                let v = self.g1_read(g1::MONITOR_CTL)?;
                let bits = (u16::from(dest & 0xF) << shift) & mask;
                self.g1_write(g1::MONITOR_CTL, (v & !mask) | bits)
            }
            (MonitorOp::MonitorMgmt, dir) => {
                let ptr = match dir {
                    MirrorDirection::Ingress => g1::MGMT_PTR_INGRESS_DEST,
                    MirrorDirection::Egress => g1::MGMT_PTR_EGRESS_DEST,
                };
                self.g1_write(g1::MONITOR_MGMT_CTL, g1::MGMT_UPDATE | ptr | d)
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Egress) => {
                self.g2_write(g2::EGRESS_MONITOR_DEST, d)
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Ingress) => {
                let Some(chip) = self.chip() else {
                    return Ok(());
                };
                for port in 0..chip.info().num_ports {
                    if chip.is_valid_port(port) {
                        let v = g1::MGMT_UPDATE | POLICY_PTR_INGRESS_DEST | d;
                        self.port_write(port, PORT_POLICY_MGMT_CTL, v)?;
                    }
                }
                Ok(())
            }
        }
    }
}
