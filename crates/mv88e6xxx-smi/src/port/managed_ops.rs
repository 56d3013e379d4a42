//! Which of Linux's managed-switch ops each chip has: the frame-size op, the EDSA
//! EtherType op, the IEEE tag remap, the Global1 priority maps and `mgmt_rsvd2cpu`.
//!
//! Source: the `mv88e6xxx_ops` tables of Linux `drivers/net/dsa/mv88e6xxx/chip.c`
//! (mainline commit `0010b838db9f`): `port_set_jumbo_size`, `set_max_frame_size`,
//! `port_set_ether_type`, `port_tag_remap`, `ieee_pri_map` / `ip_pri_map` and
//! `mgmt_rsvd2cpu` per chip. The 6020 and 6071 take the 6250's ops (the crate's
//! [`PortOps::Mv6250`]), the 6361 the 6393X's.

use crate::chip::Chip;
use crate::port::PortOps;

/// How a chip sets its largest frame (Linux `mv88e6xxx_change_mtu` /
/// `mv88e6xxx_get_max_mtu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameSizeOp {
    /// Per port, PORT_CTL2 jumbo mode \[13:12\] (`mv88e6165_port_set_jumbo_size`): up to
    /// 10240 bytes.
    Jumbo,
    /// For the whole switch, G1_CTL1 MAX_FRAME_1632 (`mv88e6185_g1_set_max_frame_size`):
    /// 1522 or 1632 bytes.
    Global1632,
    /// Neither op: the frame size is fixed at 1522 bytes.
    Fixed,
}

/// Where a chip keeps the EDSA EtherType (`port_set_ether_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EtherTypeOp {
    /// PORT_ETH_TYPE (port register 0x0F), one write (`mv88e6351_port_set_ether_type`).
    PortReg,
    /// The 6393 family's extended port control: EPC_DATA then EPC_CMD with BUSY, after a
    /// bounded wait for EPC_CMD BUSY to clear (`mv88e6393x_port_set_ether_type`).
    Epc,
    /// No such op.
    Missing,
}

/// How a chip remaps the PCP of received tagged frames (`port_tag_remap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TagRemapOp {
    /// Port registers 0x18 / 0x19, 4 bits per PCP (`mv88e6095_port_tag_remap`).
    Remap0123,
    /// Port register 0x18 as the indirect IEEE_PRIO_MAP_TABLE
    /// (`mv88e6390_port_tag_remap`).
    PrioMapTable,
    /// No such op.
    Missing,
}

/// Where a chip's `mgmt_rsvd2cpu` marks 01:80:C2:00:00:0x (and 2x) as management.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Rsvd2CpuOp {
    /// G2_MGMT_EN_0X and G2_SWITCH_MGMT RSVD2CPU (`mv88e6185_g2_mgmt_rsvd2cpu`): the
    /// 0x range only.
    G2Only0x,
    /// G2_MGMT_EN_2X, G2_MGMT_EN_0X and G2_SWITCH_MGMT RSVD2CPU
    /// (`mv88e6352_g2_mgmt_rsvd2cpu`).
    G2,
    /// G1 MONITOR_MGMT_CTL pointers 0x00–0x03 (`mv88e6390_g1_mgmt_rsvd2cpu`).
    G1MonitorMgmt,
    /// Per port, POLICY_MGMT_CTL pointers 0x20, 0x21, 0x24, 0x25
    /// (`mv88e6393x_port_mgmt_rsvd2cpu`).
    PortPolicyMgmt,
}

/// A chip's managed-switch ops (see the module docs for the source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ManagedOps {
    /// The frame-size op.
    pub frame_size: FrameSizeOp,
    /// The EDSA EtherType op.
    pub ether_type: EtherTypeOp,
    /// The IEEE tag remap op.
    pub tag_remap: TagRemapOp,
    /// Whether the chip has `ieee_pri_map` and `ip_pri_map` (Global1 0x10–0x18).
    pub priority_maps: bool,
    /// The `mgmt_rsvd2cpu` op (every chip has one).
    pub rsvd2cpu: Rsvd2CpuOp,
}

impl ManagedOps {
    /// The ops of `chip`.
    pub const fn of(chip: Chip) -> Self {
        use Chip::*;
        let frame_size = match chip {
            Mv6131 | Mv6141 | Mv6171 | Mv6172 | Mv6175 | Mv6176 | Mv6190 | Mv6190X | Mv6240
            | Mv6320 | Mv6321 | Mv6341 | Mv6350 | Mv6351 | Mv6352 | Mv6390 | Mv6390X | Mv6191X
            | Mv6193X | Mv6361 | Mv6393X => FrameSizeOp::Jumbo,
            Mv6085 | Mv6095 | Mv6097 | Mv6123 | Mv6161 | Mv6185 => FrameSizeOp::Global1632,
            _ => FrameSizeOp::Fixed,
        };
        let ether_type = match chip {
            Mv6095 | Mv6123 | Mv6165 | Mv6185 => EtherTypeOp::Missing,
            Mv6191X | Mv6193X | Mv6361 | Mv6393X => EtherTypeOp::Epc,
            _ => EtherTypeOp::PortReg,
        };
        let tag_remap = match chip {
            Mv6095 | Mv6123 | Mv6165 | Mv6185 => TagRemapOp::Missing,
            Mv6190 | Mv6190X | Mv6191 | Mv6290 | Mv6390 | Mv6390X | Mv6191X | Mv6193X | Mv6361
            | Mv6393X => TagRemapOp::PrioMapTable,
            _ => TagRemapOp::Remap0123,
        };
        let priority_maps = !matches!(
            chip,
            Mv6190
                | Mv6190X
                | Mv6191
                | Mv6290
                | Mv6390
                | Mv6390X
                | Mv6191X
                | Mv6193X
                | Mv6361
                | Mv6393X
        );
        let rsvd2cpu = match chip {
            Mv6095 | Mv6131 | Mv6185 => Rsvd2CpuOp::G2Only0x,
            Mv6141 | Mv6341 | Mv6190 | Mv6190X | Mv6191 | Mv6290 | Mv6390 | Mv6390X => {
                Rsvd2CpuOp::G1MonitorMgmt
            }
            Mv6191X | Mv6193X | Mv6361 | Mv6393X => Rsvd2CpuOp::PortPolicyMgmt,
            _ => Rsvd2CpuOp::G2,
        };
        Self {
            frame_size,
            ether_type,
            tag_remap,
            priority_maps,
            rsvd2cpu,
        }
    }
}

/// The largest frame `chip` takes, in bytes, VLAN tag and FCS included (Linux
/// `mv88e6xxx_get_max_mtu`: 10240 with the jumbo op, 1632 with the 6185 Global1 op,
/// else 1522; Linux's largest MTU is this less 30 bytes: VLAN header, EDSA tag, FCS).
pub const fn max_frame_size(chip: Chip) -> u16 {
    match ManagedOps::of(chip).frame_size {
        FrameSizeOp::Jumbo => 10240,
        FrameSizeOp::Global1632 => 1632,
        FrameSizeOp::Fixed => 1522,
    }
}

/// Whether the mirror ops exist for the chip's port ops: Linux's
/// `mv88e6xxx_port_mirror_add` refuses a chip without `set_egress_port` (the 6095).
pub(crate) const fn has_mirror(ops: PortOps) -> bool {
    !matches!(ops, PortOps::Mv6095)
}

impl<M: mdio_bus::Mdio, C: hwtimer_core::Continuous + Copy> crate::switch::Switch<M, C> {
    /// The identified chip and its managed ops; [`Feature::PortOps`] before
    /// identification (before any frame).
    ///
    /// [`Feature::PortOps`]: crate::Feature::PortOps
    pub(crate) fn managed_chip(&self) -> Result<(Chip, ManagedOps), crate::Error<M::Error>> {
        self.port_ops()?;
        match self.chip() {
            Some(chip) => Ok((chip, ManagedOps::of(chip))),
            None => Err(crate::ConfigError::PortFeature {
                chip: None,
                port: None,
                feature: crate::Feature::PortOps,
            }
            .into()),
        }
    }

    /// As [`managed_chip`](Self::managed_chip), with `port` checked against the chip.
    pub(crate) fn managed_port(
        &self,
        port: u8,
    ) -> Result<(Chip, ManagedOps), crate::Error<M::Error>> {
        self.ops_port(port)?;
        self.managed_chip()
    }

    /// A port vector checked against the chip's routed ports ([`ConfigError::PortVector`]
    /// before any frame), and the mask Linux's read-modify-writes clear
    /// (`mv88e6xxx_port_mask`: one bit per port of the chip, routed or not).
    ///
    /// [`ConfigError::PortVector`]: crate::ConfigError::PortVector
    pub(crate) fn checked_vector(
        chip: Chip,
        ports: u16,
    ) -> Result<(u16, u16), crate::Error<M::Error>> {
        if ports & !crate::atu::port_mask(chip) != 0 {
            return Err(crate::ConfigError::PortVector { ports }.into());
        }
        Ok((ports, chip_port_bits(chip)))
    }
}

/// One bit per port of `chip` (Linux `mv88e6xxx_port_mask`, `GENMASK(num_ports - 1, 0)`).
pub(crate) const fn chip_port_bits(chip: Chip) -> u16 {
    match 1u16.checked_shl(chip.info().num_ports as u32) {
        Some(b) => b.wrapping_sub(1),
        None => u16::MAX,
    }
}
