//! PHY drivers written against [`ieee802_3_miim`] on this crate's MDIO (feature `miim`).
//!
//! `ieee802_3_miim`'s [`Mdio`](ieee802_3_miim::mdio::Mdio) trait is infallible: a read
//! returns a `u16`, a write returns nothing. [`mdio_bus::Mdio`] (which [`Gmac3Mdio`] and every
//! MDIO master of this project implement) is fallible, because a busy bit that never clears
//! must end in an error instead of a spin. [`MiimBus`] bridges the two without hiding the
//! failure:
//!
//! - a failed read returns `0xFFFF`, what an MDIO bus reads when nothing drives MDIO (no PHY
//!   at that address). All-ones is not harmless to every PHY driver (BMSR 0xFFFF has the
//!   link bit set), which is why the error is kept:
//! - a failed write is dropped;
//! - either failure is **kept**: [`MiimBus::take_error`] returns the first error since the
//!   last call and [`MiimBus::errors`] counts them, so the caller checks once after a
//!   sequence of PHY-driver calls (autonegotiation, link polling) instead of after each
//!   frame.
//!
//! Every access still goes through the wrapped master, so its bound holds: with
//! [`Gmac3Mdio`] a stuck MII_ADDR.GB costs at most its 10 ms deadline per frame.
//!
//! ```
//! use ieee802_3_miim::Miim;
//! use ieee802_3_miim::mdio::{MdioPhy, PhyAddress};
//! use hwtimer_core::sim::SimClock;
//! use mdio_bus::PhyAddr;
//! use mdio_bus::sim::{PhyModel, SimMdio};
//! use stmmac_coalesce::miim::MiimBus;
//!
//! let clock = SimClock::new();
//! let bus = SimMdio::new(&clock, 2_500_000, PhyModel::bcm54612e(PhyAddr::new(0).unwrap()));
//! let mut phy = MdioPhy::new(MiimBus::new(bus), PhyAddress::new(0).unwrap());
//! assert_eq!(phy.phy_ident().map(|id| id.raw_u32()), Some(0x0362_5e6a));
//! assert!(phy.mdio.take_error().is_none());
//! ```
//!
//! [`Gmac3Mdio`]: crate::Gmac3Mdio

use ieee802_3_miim::RegisterAddress;
use ieee802_3_miim::mdio::{MdioPhy, PhyAddress};
use mdio_bus::{Mdio, PhyAddr, RegAddr};

/// What a read returns when the MDIO frame failed: the idle level of the MDIO line (pulled
/// up), as when no PHY answers.
pub const FAILED_READ: u16 = 0xFFFF;

/// An [`mdio_bus::Mdio`] master seen as an `ieee802_3_miim` [`Mdio`](ieee802_3_miim::mdio::Mdio)
/// bus; see the [module docs](self) for what happens to errors.
#[derive(Debug)]
pub struct MiimBus<M: Mdio> {
    mdio: M,
    first_error: Option<M::Error>,
    errors: u32,
}

impl<M: Mdio> MiimBus<M> {
    /// Wrap `mdio`.
    pub const fn new(mdio: M) -> Self {
        Self {
            mdio,
            first_error: None,
            errors: 0,
        }
    }

    /// The PHY at `address` on this bus, for `ieee802_3_miim`'s [`Miim`](ieee802_3_miim::Miim)
    /// methods and PHY drivers.
    pub fn phy(self, address: PhyAddress) -> MdioPhy<Self> {
        MdioPhy::new(self, address)
    }

    /// The first error since the last call, if any (and forget it).
    pub fn take_error(&mut self) -> Option<M::Error> {
        self.first_error.take()
    }

    /// Failed frames since the bus was wrapped (saturating).
    pub fn errors(&self) -> u32 {
        self.errors
    }

    /// The wrapped master.
    pub fn inner(&mut self) -> &mut M {
        &mut self.mdio
    }

    /// Unwrap the master.
    pub fn into_inner(self) -> M {
        self.mdio
    }

    fn failed(&mut self, e: M::Error) {
        self.errors = self.errors.saturating_add(1);
        if self.first_error.is_none() {
            self.first_error = Some(e);
        }
    }
}

/// Both address types are 5-bit newtypes; masking cannot change a valid value.
fn addrs(phy: PhyAddress, reg: RegisterAddress) -> (PhyAddr, RegAddr) {
    (PhyAddr::from_bits(phy.get()), RegAddr::from_bits(reg.get()))
}

impl<M: Mdio> ieee802_3_miim::mdio::Mdio for MiimBus<M> {
    /// A Clause 22 read; [`FAILED_READ`] (and the error kept) when the frame failed.
    fn read(&mut self, phy: PhyAddress, reg: RegisterAddress) -> u16 {
        let (phy, reg) = addrs(phy, reg);
        match self.mdio.read(phy, reg) {
            Ok(v) => v,
            Err(e) => {
                self.failed(e);
                FAILED_READ
            }
        }
    }

    /// A Clause 22 write; dropped (and the error kept) when the frame failed.
    fn write(&mut self, phy: PhyAddress, reg: RegisterAddress, data: u16) {
        let (phy, reg) = addrs(phy, reg);
        if let Err(e) = self.mdio.write(phy, reg, data) {
            self.failed(e);
        }
    }
}
