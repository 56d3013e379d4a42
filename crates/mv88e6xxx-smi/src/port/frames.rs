//! Frames: the largest frame per port or per switch, and the EDSA EtherType (PORT_CTL2
//! jumbo mode, G1_CTL1 MAX_FRAME_1632, PORT_ETH_TYPE, the 6393X EPC; Linux `port.c`,
//! `global1.c` and `chip.c`, mainline commit `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use super::managed_ops::{EtherTypeOp, FrameSizeOp, max_frame_size};
use crate::error::{Error, Feature};
use crate::regs::{g1 as g1_reg, port as reg};
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Let `port` take frames up to `bytes` long (VLAN tag and FCS included; with an
    /// EDSA tag on a CPU or DSA port, add its 8 bytes), per chip (Linux's
    /// `mv88e6xxx_change_mtu`; docs [`max_frame_size`]):
    /// - [`FrameSizeOp::Jumbo`] (6131, 6141, 6171, 6172, 6175, 6176, 6190, 6190X, 6240,
    ///   6320, 6321, 6341, 6350, 6351, 6352, 6390, 6390X and the 6393 family): PORT_CTL2
    ///   jumbo mode \[13:12\] read-modify-write, 1522 / 2048 / 10240 bytes, the smallest
    ///   that holds `bytes` (`mv88e6165_port_set_jumbo_size`);
    /// - [`FrameSizeOp::Global1632`] (6085, 6095, 6097, 6123, 6161, 6185): G1_CTL1
    ///   MAX_FRAME_1632 (bit 10) read-modify-write, set above 1522 bytes
    ///   (`mv88e6185_g1_set_max_frame_size`). **It is one setting for every port**; a
    ///   hold of the PHY polling unit ([`service`](Self::service)) stays, and restarts
    ///   with the new bit;
    /// - [`FrameSizeOp::Fixed`] (6165, 6191, 6290, the 6250 family): nothing to write up
    ///   to 1522 bytes (no frame is sent).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) with
    /// [`Feature::MaxFrameSize`] for `bytes` above the chip's [`max_frame_size`] (or
    /// before identification), [`ConfigError::Port`](crate::ConfigError::Port), before
    /// any frame; [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_max_frame_size(&mut self, port: u8, bytes: u16) -> Result<(), Error<M::Error>> {
        let (chip, ops) = self.managed_port(port)?;
        if bytes > max_frame_size(chip) {
            return Err(self.refuse(port, Feature::MaxFrameSize(bytes)));
        }
        match ops.frame_size {
            FrameSizeOp::Jumbo => {
                let mode = match bytes {
                    0..=1522 => 0x0000,
                    1523..=2048 => 0x1000,
                    _ => 0x2000,
                };
                self.port_update(port, reg::PORT_CTL2, reg::CTL2_JUMBO_MODE_MASK, mode)
            }
            FrameSizeOp::Global1632 => {
                // Through the PPU-hold-aware update: a raw G1_CTL1 write would end a
                // hold of the PHY polling unit (these chips are PPU-gated), and the
                // hold's restart would write the old G1_CTL1 back.
                let bit = g1_reg::CTL1_MAX_FRAME_1632;
                self.g1_ctl1_update(|v| if bytes > 1522 { v | bit } else { v & !bit })
                    .map(|_| ())
            }
            FrameSizeOp::Fixed => Ok(()),
        }
    }

    /// Set the EtherType `port` recognises and sends EDSA-tagged frames with (Linux sets
    /// 0xDADA on EDSA ports; the reset value is 0x9100), per chip:
    /// - [`EtherTypeOp::PortReg`]: one PORT_ETH_TYPE (port register 0x0F) write
    ///   (`mv88e6351_port_set_ether_type`; every chip but those below);
    /// - [`EtherTypeOp::Epc`] (6191X, 6193X, 6361, 6393X): a bounded wait for EPC_CMD
    ///   (port 0x10) BUSY to clear, EPC_DATA (port 0x11) = `etype`, then EPC_CMD = BUSY |
    ///   write | index 2 (`mv88e6393x_port_set_ether_type`; the extended port control is
    ///   a busy unit, never written while busy).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) with
    /// [`Feature::EtherType`] on the 6095, 6123, 6165 and 6185 (no such op),
    /// [`ConfigError::Port`](crate::ConfigError::Port), before any frame;
    /// [`Error::Timeout`] ([`BusyWait::Mask`](crate::BusyWait::Mask) on EPC_CMD);
    /// [`Error::Mdio`].
    pub fn port_set_ether_type(&mut self, port: u8, etype: u16) -> Result<(), Error<M::Error>> {
        let (_, ops) = self.managed_port(port)?;
        match ops.ether_type {
            EtherTypeOp::Missing => Err(self.refuse(port, Feature::EtherType)),
            EtherTypeOp::PortReg => self.port_write(port, reg::PORT_ETH_TYPE, etype),
            EtherTypeOp::Epc => {
                let dev = self
                    .address_map()
                    .port_base
                    .checked_add(port)
                    .and_then(PhyAddr::new)
                    .ok_or(crate::ConfigError::Port { port })?;
                let cmd_reg = RegAddr::from_bits(reg::EPC_CMD);
                self.wait_mask(dev, cmd_reg, reg::EPC_CMD_BUSY, 0)?;
                self.port_write(port, reg::EPC_DATA, etype)?;
                let cmd = reg::EPC_CMD_BUSY | reg::EPC_CMD_WRITE | reg::EPC_INDEX_PORT_ETYPE;
                self.port_write(port, reg::EPC_CMD, cmd)
            }
        }
    }
}
