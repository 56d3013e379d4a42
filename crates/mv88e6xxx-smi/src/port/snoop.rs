//! IGMP/MLD snooping per port (PORT_CTL0 IGMP_MLD_SNOOP; Linux `port.h`, mainline
//! commit `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::Error;
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Trap IGMP and MLD frames received on `port` to the CPU port, or stop
    /// (PORT_CTL0 IGMP_MLD_SNOOP, bit 10, read-modify-write), so that the firmware can
    /// learn the multicast groups behind each port. Linux defines the bit for every chip
    /// (`MV88E6XXX_PORT_CTL0_IGMP_MLD_SNOOP`) and has no op that sets it: every chip
    /// takes it here.
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip not
    /// identified), [`ConfigError::Port`](crate::ConfigError::Port), before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_igmp_mld_snoop(
        &mut self,
        port: u8,
        snoop: bool,
    ) -> Result<(), Error<M::Error>> {
        self.managed_port(port)?;
        let bit = if snoop { reg::CTL0_IGMP_MLD_SNOOP } else { 0 };
        self.port_update(port, reg::PORT_CTL0, reg::CTL0_IGMP_MLD_SNOOP, bit)
    }
}
