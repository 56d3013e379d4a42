//! MDIO over MAC_MDIO_ADDRESS / MAC_MDIO_DATA, clause 22 and 45 ([`QosMdio`]).

use super::*;

/// The MDIO master of a [`Qos`]: Clause 22 through [`Mdio`], Clause 45 natively through
/// [`Mdio45`] (C45E, the device in RDA, the register in MAC_MDIO_DATA.RA). Every frame waits for GB to clear, bounded by
/// [`MDIO_TIMEOUT_US`]; GB is checked before a frame only the first time and after a
/// failure, as [`Gmac3Mdio`](crate::Gmac3Mdio) does.
#[derive(Debug)]
pub struct QosMdio<'a, B: RegisterBus<Word = u32>, C: Continuous + Copy> {
    pub(super) mac: &'a Qos<B>,
    pub(super) poller: Poller<C>,
    pub(super) cr: u32,
    pub(super) check_busy: bool,
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Drop for QosMdio<'_, B, C> {
    fn drop(&mut self) {
        self.mac.mdio_taken.store(false, Ordering::Release);
    }
}

/// MAC_MDIO_ADDRESS.GOC for a write.
const GOC_WRITE: u32 = 1;
/// MAC_MDIO_ADDRESS.GOC for a read.
const GOC_READ: u32 = 3;

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> QosMdio<'_, B, C> {
    /// The MAC_MDIO_ADDRESS.CR code in use.
    pub fn cr(&self) -> u32 {
        self.cr
    }

    fn wait_idle(&mut self) -> Result<(), hwtimer_core::Error> {
        let bus = &self.mac.bus;
        crate::common::mdio_wait_idle(
            &self.poller,
            &mut self.check_busy,
            || bus.read(r::MAC_MDIO_ADDRESS),
            |v| !v.is_set(MAC_MDIO_ADDRESS::GB),
        )
    }

    /// One frame: data (and the C45 register) first, then the address word with GB.
    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    fn frame(
        &mut self,
        phy: u8,
        rda: u8,
        c45_reg: Option<u16>,
        write: Option<u16>,
    ) -> Result<u16, hwtimer_core::Error> {
        if self.check_busy {
            self.wait_idle()?;
        }
        let data = MAC_MDIO_DATA::GD.val(u32::from(write.unwrap_or(0)))
            + MAC_MDIO_DATA::RA.val(u32::from(c45_reg.unwrap_or(0)));
        if write.is_some() || c45_reg.is_some() {
            self.mac.bus.write(r::MAC_MDIO_DATA, data);
        }
        let goc = if write.is_some() { GOC_WRITE } else { GOC_READ };
        let c45 = if c45_reg.is_some() {
            MAC_MDIO_ADDRESS::C45E::SET
        } else {
            MAC_MDIO_ADDRESS::C45E::CLEAR
        };
        self.mac.bus.write(
            r::MAC_MDIO_ADDRESS,
            MAC_MDIO_ADDRESS::PA.val(u32::from(phy & 0x1F))
                + MAC_MDIO_ADDRESS::RDA.val(u32::from(rda & 0x1F))
                + MAC_MDIO_ADDRESS::CR.val(self.cr)
                + MAC_MDIO_ADDRESS::GOC.val(goc)
                + c45
                + MAC_MDIO_ADDRESS::GB::SET,
        );
        self.wait_idle()?;
        if write.is_some() {
            return Ok(0);
        }
        let v = self.mac.bus.read(r::MAC_MDIO_DATA);
        // GD is 16 bits wide.
        Ok(u16::try_from(v.read(MAC_MDIO_DATA::GD)).unwrap_or(u16::MAX))
    }
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Mdio for QosMdio<'_, B, C> {
    type Error = hwtimer_core::Error;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.frame(phy.get(), reg.get(), None, None)
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        self.frame(phy.get(), reg.get(), None, Some(value))
            .map(|_| ())
    }
}

/// Clause 45 natively: one GB-bounded frame pair per access (C45E set, the MMD in
/// MAC_MDIO_ADDRESS.RDA, the register in MAC_MDIO_DATA.RA; the core sends the address
/// frame, then the read or write frame). Errors: `Timeout` when GB does not clear in time.
impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Mdio45 for QosMdio<'_, B, C> {
    fn read_c45(&mut self, phy: PhyAddr, devad: DevAddr, reg: u16) -> Result<u16, Self::Error> {
        self.frame(phy.get(), devad.get(), Some(reg), None)
    }

    fn write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Self::Error> {
        self.frame(phy.get(), devad.get(), Some(reg), Some(value))
            .map(|_| ())
    }
}
