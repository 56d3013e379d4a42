//! 802.1Q drop modes per port: discard tagged or untagged frames on ingress (PORT_CTL2
//! DISCARD_TAGGED / DISCARD_UNTAGGED; Linux `port.c`, mainline commit `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::Error;
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Discard (or accept) untagged and priority-tagged frames received on `port`
    /// (PORT_CTL2 DISCARD_UNTAGGED, bit 8). Like Linux's `mv88e6xxx_port_drop_untagged`
    /// it reads PORT_CTL2 and writes it back only when the bit changes (one frame when it
    /// does not). Every chip has it.
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip not
    /// identified), [`ConfigError::Port`](crate::ConfigError::Port), before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_drop_untagged(&mut self, port: u8, drop: bool) -> Result<(), Error<M::Error>> {
        self.port_ctl2_flag(port, reg::CTL2_DISCARD_UNTAGGED, drop)
    }

    /// Discard (or accept) VLAN-tagged frames received on `port` (PORT_CTL2
    /// DISCARD_TAGGED, bit 9, read-modify-write, written only when it changes). Linux
    /// defines the bit for every chip (`MV88E6XXX_PORT_CTL2_DISCARD_TAGGED`) and has no
    /// op that sets it: every chip takes it here.
    ///
    /// Errors: as [`port_set_drop_untagged`](Self::port_set_drop_untagged).
    pub fn port_set_drop_tagged(&mut self, port: u8, drop: bool) -> Result<(), Error<M::Error>> {
        self.port_ctl2_flag(port, reg::CTL2_DISCARD_TAGGED, drop)
    }

    /// PORT_CTL2 `bit` set or cleared, written only when it changes.
    fn port_ctl2_flag(&mut self, port: u8, bit: u16, set: bool) -> Result<(), Error<M::Error>> {
        self.managed_port(port)?;
        let old = self.port_read(port, reg::PORT_CTL2)?;
        let new = if set { old | bit } else { old & !bit };
        if new == old {
            return Ok(());
        }
        self.port_write(port, reg::PORT_CTL2, new)
    }
}
