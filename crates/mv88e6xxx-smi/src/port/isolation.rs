//! Port isolation: the port-based VLAN map and the port's default database (FID)
//! (PORT_BASE_VLAN, PORT_CTL1; Linux `port.c`, mainline commit `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error};
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Set the ports `port` may send frames to (PORT_BASE_VLAN port vector, one bit per
    /// port, read-modify-write: the FID bits \[15:12\] and the bits above the chip's ports
    /// are kept). A frame received on `port` leaves only through the ports of this map
    /// (and the VTU's members, in 802.1Q modes): this is how ports are isolated. Every
    /// chip has it (Linux `mv88e6xxx_port_set_vlan_map`).
    ///
    /// Errors: [`ConfigError::PortFeature`] (chip not identified), [`ConfigError::Port`],
    /// [`ConfigError::PortVector`] (a bit for a port the chip does not have or route),
    /// all before any frame; [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_vlan_map(&mut self, port: u8, ports: u16) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_port(port)?;
        let (ports, mask) = Self::checked_vector(chip, ports)?;
        self.port_update(port, reg::PORT_BASE_VLAN, mask, ports)
    }

    /// The ports `port` may send frames to (PORT_BASE_VLAN, limited to the chip's ports).
    ///
    /// Errors: as [`port_set_vlan_map`](Self::port_set_vlan_map), without the vector.
    pub fn port_vlan_map(&mut self, port: u8) -> Result<u16, Error<M::Error>> {
        let (chip, _) = self.managed_port(port)?;
        let mask = super::managed_ops::chip_port_bits(chip);
        Ok(self.port_read(port, reg::PORT_BASE_VLAN)? & mask)
    }

    /// Set `port`'s default forwarding database: FID \[3:0\] in PORT_BASE_VLAN \[15:12\]
    /// and, on chips with more than 16 databases, FID \[11:4\] in PORT_CTL1's low bits
    /// (as many as the chip's databases need: 8 bits for 4096, 4 for 256, 2 for 64), each
    /// read-modify-write. Frames received on `port` outside an 802.1Q VLAN are learnt and
    /// looked up in this database. Every chip has it (Linux `mv88e6xxx_port_set_fid`).
    ///
    /// Errors: [`ConfigError::PortFeature`], [`ConfigError::Port`], [`ConfigError::Fid`]
    /// (at or above the chip's [`num_databases`](crate::atu::AtuInfo::num_databases)),
    /// all before any frame; [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_fid(&mut self, port: u8, fid: u16) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_port(port)?;
        let databases = crate::atu::atu_info(chip).num_databases;
        if fid >= databases {
            return Err(ConfigError::Fid { fid }.into());
        }
        self.port_update(
            port,
            reg::PORT_BASE_VLAN,
            reg::BASE_VLAN_FID_3_0_MASK,
            (fid & 0x000F) << 12,
        )?;
        let upper = upper_fid_mask(databases);
        if upper != 0 {
            self.port_update(port, reg::PORT_CTL1, upper, fid >> 4)?;
        }
        Ok(())
    }

    /// `port`'s default forwarding database (PORT_BASE_VLAN \[15:12\] and PORT_CTL1's FID
    /// bits; Linux `mv88e6xxx_port_get_fid`).
    ///
    /// Errors: as [`port_vlan_map`](Self::port_vlan_map).
    pub fn port_fid(&mut self, port: u8) -> Result<u16, Error<M::Error>> {
        let (chip, _) = self.managed_port(port)?;
        let mut fid =
            (self.port_read(port, reg::PORT_BASE_VLAN)? & reg::BASE_VLAN_FID_3_0_MASK) >> 12;
        let upper = upper_fid_mask(crate::atu::atu_info(chip).num_databases);
        if upper != 0 {
            fid |= (self.port_read(port, reg::PORT_CTL1)? & upper) << 4;
        }
        Ok(fid)
    }
}

/// The PORT_CTL1 bits that hold FID \[11:4\]: `(databases - 1) >> 4` (Linux).
const fn upper_fid_mask(databases: u16) -> u16 {
    databases.saturating_sub(1) >> 4
}
