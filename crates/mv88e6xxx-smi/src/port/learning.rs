//! Per-port learning: the port association vector (PORT_ASSOC_VECTOR; Linux `port.c`
//! and `chip.c` `mv88e6xxx_port_bridge_flags`, mainline commit `0010b838db9f`). The
//! locked port is [`Switch::port_set_atu_locked`].

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::Error;
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Set `port`'s association vector (PORT_ASSOC_VECTOR port vector, read-modify-write:
    /// LOCKED_PORT, IGNORE_WRONG and the other control bits above the chip's ports are
    /// kept). The switch learns a source address received on `port` with this vector;
    /// an empty vector means the port learns nothing. Every chip has it (Linux
    /// `mv88e6xxx_port_set_assoc_vector`).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip not
    /// identified), [`ConfigError::Port`](crate::ConfigError::Port),
    /// [`ConfigError::PortVector`](crate::ConfigError::PortVector), all before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_assoc_vector(&mut self, port: u8, ports: u16) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_port(port)?;
        let (ports, mask) = Self::checked_vector(chip, ports)?;
        self.port_update(port, reg::PORT_ASSOC_VECTOR, mask, ports)
    }

    /// Turn address learning on `port` on or off: the association vector becomes the
    /// port itself, or empty, as Linux does for the bridge flag `BR_LEARNING`
    /// (`mv88e6xxx_port_bridge_flags`). Every chip has it.
    ///
    /// Errors: as [`port_set_assoc_vector`](Self::port_set_assoc_vector).
    pub fn port_set_learning(&mut self, port: u8, learning: bool) -> Result<(), Error<M::Error>> {
        let bit = if learning {
            1u16.checked_shl(u32::from(port)).unwrap_or(0)
        } else {
            0
        };
        self.port_set_assoc_vector(port, bit)
    }
}
