//! Link aggregation per port: the trunk port flag and trunk ID (PORT_CTL1; Linux
//! `port.c` `mv88e6xxx_port_set_trunk`, mainline commit `0010b838db9f`). The switch-wide
//! tables are [`Switch::trunk_load_mask`] and [`Switch::trunk_load_map`].

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error};
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Make `port` a member of trunk `id` (`Some`), or of no trunk (`None`): PORT_CTL1
    /// TRUNK_PORT (bit 14) and TRUNK_ID \[11:8\], read-modify-write (the message-port bit
    /// and the FID bits are kept). Every chip has it (each has Global2 and its trunk
    /// tables; Linux `mv88e6xxx_port_set_trunk`).
    ///
    /// Errors: [`ConfigError::PortFeature`] (chip not identified), [`ConfigError::Port`],
    /// [`ConfigError::TrunkId`] (above 15), all before any frame; [`Error::Mdio`],
    /// [`Error::Timeout`] of the SMI layer.
    pub fn port_set_trunk(&mut self, port: u8, id: Option<u8>) -> Result<(), Error<M::Error>> {
        self.managed_port(port)?;
        let bits = match id {
            Some(id) if id > 15 => return Err(ConfigError::TrunkId { id }.into()),
            Some(id) => reg::CTL1_TRUNK_PORT | (u16::from(id) << reg::CTL1_TRUNK_ID_SHIFT),
            None => 0,
        };
        let mask = reg::CTL1_TRUNK_PORT | reg::CTL1_TRUNK_ID_MASK;
        self.port_update(port, reg::PORT_CTL1, mask, bits)
    }
}
