//! The 6352 family's SERDES (Linux v6.12 torvalds/linux `drivers/net/dsa/mv88e6xxx/serdes.c`
//! `mv88e6352_serdes_read`/`_write`, `phy.c` `mv88e6xxx_phy_page_read`/`_write`; U-Boot
//! `drivers/net/mv88e6xxx.c` powers it up for SGMII CPU links; docs/mv88e6xxx.md#6352-serdes).
//!
//! The SERDES is a PHY at address 0x0F of the switch's internal PHY bus (Global2 SMI_PHY),
//! outside the copper PHYs' addresses (so [`Switch::phy_read`] refuses it), with its
//! registers on page 1 (fiber) of the Marvell page register 22. Each access selects page
//! 1, accesses the register, and selects page 0 (copper) again, as Linux's
//! `mv88e6xxx_phy_page_read` does.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::{phy, serdes};
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    fn serdes_6352_check(&self, reg: u8) -> Result<(), Error<M::Error>> {
        let chip = self.chip();
        // Linux: `mv88e6352_serdes_*` and `mv88e6352_pcs_ops` on the 6172, 6176, 6240, 6352.
        if !chip.is_some_and(is_6352) {
            return Err(ConfigError::PortFeature {
                chip,
                port: None,
                feature: Feature::Serdes6352,
            }
            .into());
        }
        // "There is no paging for registers 22" (phy.c).
        if reg == phy::PAGE || reg > 31 {
            return Err(ConfigError::PortFeature {
                chip,
                port: None,
                feature: Feature::Serdes6352,
            }
            .into());
        }
        Ok(())
    }

    /// Read SERDES register `reg` (page 1 of PHY 0x0F): page 1, read, page 0 (3 Global2
    /// SMI_PHY accesses).
    ///
    /// Errors, before any frame: [`ConfigError::PortFeature`] ([`Feature::Serdes6352`]) on a
    /// chip other than the 6172, 6176, 6240 and 6352, or for register 22 (the page register)
    /// or above 31; then [`Error::Timeout`] ([`BusyWait::SmiPhyCmd`](crate::BusyWait::SmiPhyCmd)),
    /// [`Error::Mdio`]. If the read fails, page 0 is still selected again (its own error,
    /// if any, is dropped for the read's).
    pub fn serdes_6352_read(&mut self, reg: u8) -> Result<u16, Error<M::Error>> {
        self.serdes_6352_check(reg)?;
        self.g2_phy_write(
            serdes::SERDES_6352_ADDR,
            phy::PAGE,
            serdes::SERDES_6352_PAGE_FIBER,
        )?;
        let r = self.g2_phy_read(serdes::SERDES_6352_ADDR, reg);
        let put = self.g2_phy_write(serdes::SERDES_6352_ADDR, phy::PAGE, phy::PAGE_COPPER);
        let v = r?;
        put.map(|_| v)
    }

    /// Write SERDES register `reg`: page 1, write, page 0. Errors: as
    /// [`serdes_6352_read`](Self::serdes_6352_read).
    pub fn serdes_6352_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        self.serdes_6352_check(reg)?;
        self.g2_phy_write(
            serdes::SERDES_6352_ADDR,
            phy::PAGE,
            serdes::SERDES_6352_PAGE_FIBER,
        )?;
        let r = self.g2_phy_write(serdes::SERDES_6352_ADDR, reg, value);
        let put = self.g2_phy_write(serdes::SERDES_6352_ADDR, phy::PAGE, phy::PAGE_COPPER);
        r?;
        put
    }

    /// Power the SERDES up or down: BMCR (register 0) power-down bit cleared or set,
    /// read-modify-write (Linux `mv88e6352_serdes_power_set`, as in `pcs-6352.c`; U-Boot
    /// powers it up for an SGMII CPU port). Errors: as
    /// [`serdes_6352_read`](Self::serdes_6352_read).
    pub fn serdes_6352_set_power(&mut self, up: bool) -> Result<(), Error<M::Error>> {
        let bmcr = self.serdes_6352_read(0)?;
        let v = if up {
            bmcr & !phy::BMCR_PDOWN
        } else {
            bmcr | phy::BMCR_PDOWN
        };
        if v != bmcr {
            self.serdes_6352_write(0, v)?;
        }
        Ok(())
    }
}

const fn is_6352(c: Chip) -> bool {
    matches!(c, Chip::Mv6172 | Chip::Mv6176 | Chip::Mv6240 | Chip::Mv6352)
}
