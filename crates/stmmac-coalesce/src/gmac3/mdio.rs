//! MDIO over GMAC_MII_ADDR / GMAC_MII_DATA ([`Gmac3Mdio`]).

use super::*;

/// Clause 22 MDIO through GMAC_MII_ADDR / GMAC_MII_DATA (docs/gmac3.md#mdio).
///
/// Each frame: write MII_ADDR = PA | GR | CR | (GW) | GB, then poll GB until it clears,
/// bounded by [`MDIO_TIMEOUT_US`] with iopoll semantics (≥ 2 reads, one more after the
/// deadline). GB is checked *before* a frame only the first time and after a failure
/// (every frame waits for its own completion, the lesson of Linux's mv88e6xxx
/// "Improve indirect addressing performance"), saving one MMIO read per
/// frame compared with Linux, which polls before and after.
#[derive(Debug)]
pub struct Gmac3Mdio<'a, B: RegisterBus<Word = u32>, C: Continuous + Copy> {
    pub(super) mac: &'a Gmac3<B>,
    pub(super) poller: Poller<C>,
    pub(super) cr: u32,
    pub(super) check_busy: bool,
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Drop for Gmac3Mdio<'_, B, C> {
    fn drop(&mut self) {
        self.mac.mdio_taken.store(false, Ordering::Release);
    }
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Gmac3Mdio<'_, B, C> {
    /// The MII_ADDR.CR code in use.
    pub fn cr(&self) -> u32 {
        self.cr
    }

    fn wait_idle(&mut self) -> Result<(), hwtimer_core::Error> {
        let bus = &self.mac.bus;
        crate::common::mdio_wait_idle(
            &self.poller,
            &mut self.check_busy,
            || bus.read(GMAC_MII_ADDR),
            |v| !v.is_set(GMAC_MII_ADDR::GB),
        )
    }

    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    fn frame(
        &mut self,
        phy: PhyAddr,
        reg: RegAddr,
        write: bool,
    ) -> Result<(), hwtimer_core::Error> {
        if self.check_busy {
            self.wait_idle()?;
        }
        let gw = if write {
            GMAC_MII_ADDR::GW::SET
        } else {
            GMAC_MII_ADDR::GW::CLEAR
        };
        self.mac.bus.write(
            GMAC_MII_ADDR,
            GMAC_MII_ADDR::PA.val(u32::from(phy.get()))
                + GMAC_MII_ADDR::GR.val(u32::from(reg.get()))
                + GMAC_MII_ADDR::CR.val(self.cr)
                + gw
                + GMAC_MII_ADDR::GB::SET,
        );
        self.wait_idle()
    }
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Mdio for Gmac3Mdio<'_, B, C> {
    type Error = hwtimer_core::Error;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.frame(phy, reg, false)?;
        let v = self.mac.bus.read(regs::GMAC_MII_DATA);
        // GD is 16 bits wide, so the conversion cannot fail.
        Ok(u16::try_from(v.read(regs::GMAC_MII_DATA::GD)).unwrap_or(u16::MAX))
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        if self.check_busy {
            self.wait_idle()?;
        }
        self.mac
            .bus
            .write_raw(regs::GMAC_MII_DATA, u32::from(value));
        // The busy check already happened; `frame` will not repeat it.
        self.frame(phy, reg, true)
    }
}
