//! Mirroring per port: the ingress and egress monitor enables (PORT_CTL2
//! INGRESS_MONITOR / EGRESS_MONITOR; Linux `port.c` `mv88e6xxx_port_set_mirror` and
//! `chip.c` `mv88e6xxx_port_mirror_add`, mainline commit `0010b838db9f`). The mirror
//! destination is [`Switch::set_mirror_port`].

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use super::MirrorDirection;
use super::managed_ops::has_mirror;
use crate::error::{Error, Feature};
use crate::regs::managed::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Copy the frames `port` receives ([`MirrorDirection::Ingress`]) or sends
    /// ([`MirrorDirection::Egress`]) to the mirror destination, or stop (PORT_CTL2 bit 4
    /// / bit 5, read-modify-write). Set the destination first with
    /// [`set_mirror_port`](Self::set_mirror_port), or use
    /// [`port_mirror_add`](Self::port_mirror_add). Every chip with a mirror destination
    /// has it (Linux `mv88e6xxx_port_set_mirror`).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip not
    /// identified; [`Feature::MirrorPort`] on the 6095, which has no `set_egress_port`
    /// and which Linux's `mv88e6xxx_port_mirror_add` refuses),
    /// [`ConfigError::Port`](crate::ConfigError::Port), before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_mirror(
        &mut self,
        port: u8,
        direction: MirrorDirection,
        mirror: bool,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        self.managed_chip()?;
        if !has_mirror(ops) {
            return Err(self.refuse(port, Feature::MirrorPort));
        }
        let bit = match direction {
            MirrorDirection::Ingress => reg::CTL2_INGRESS_MONITOR,
            MirrorDirection::Egress => reg::CTL2_EGRESS_MONITOR,
        };
        self.port_update(port, reg::CTL2, bit, if mirror { bit } else { 0 })
    }

    /// Mirror `port`'s `direction` to `dest`: the destination
    /// ([`set_mirror_port`](Self::set_mirror_port)), then the port's enable
    /// ([`port_set_mirror`](Self::port_set_mirror)), as Linux's
    /// `mv88e6xxx_port_mirror_add` does. `dest` must not be `port`.
    ///
    /// Errors: as both; [`ConfigError::Port`](crate::ConfigError::Port) for `dest` =
    /// `port`; all checks before any frame.
    pub fn port_mirror_add(
        &mut self,
        port: u8,
        direction: MirrorDirection,
        dest: u8,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        self.ops_port(dest)?;
        self.managed_chip()?;
        if dest == port {
            return Err(crate::ConfigError::Port { port: dest }.into());
        }
        if !has_mirror(ops) {
            return Err(self.refuse(port, Feature::MirrorPort));
        }
        self.set_mirror_port(direction, dest)?;
        self.port_set_mirror(port, direction, true)
    }
}
