//! # mdio-bus
//!
//! A fallible IEEE 802.3 Clause 22 MDIO bus trait ([`Mdio`]), its Clause 45 extension
//! ([`Mdio45`]), the address newtypes that make out-of-range addresses unrepresentable
//! ([`PhyAddr`], [`RegAddr`], [`DevAddr`]), and (feature `sim`) a behavioural bus model
//! that charges every frame its real duration in virtual time and counts frames.
//!
//! The MAC side (`stmmac-coalesce`'s DWMAC MDIO) implements [`Mdio`]; devices on the bus
//! (`mv88e6xxx-smi`'s switch access) are generic over it. Unlike the MDIO traits of the HALs
//! surveyed for this project, every access can fail: a MAC whose busy bit never clears
//! returns its error instead of spinning forever.
//!
//! ## Timing facts
//!
//! A Clause 22 frame is a 32-bit preamble plus 32 bits (ST, OP, PHYAD, REGAD, TA, DATA):
//! 64 MDC cycles, **25.6 µs at the IEEE 802.3 maximum of 2.5 MHz** ([`frame_ns`]). Every
//! MDIO operation a driver saves is worth that much.
//!
//! ## Clause 45
//!
//! A Clause 45 frame has the same length as a Clause 22 one (32-bit preamble, then ST 00,
//! a 2-bit OP, the 5-bit port address PRTAD, the 5-bit MMD device address DEVAD where
//! Clause 22 has REGAD, TA, and 16 bits of address or data): 64 MDC cycles. Its register
//! numbers are 16 bits, so one access takes **two frames**: an *address* frame (OP 00)
//! that loads the device's address register, then a *write* (OP 01), *read* (OP 11) or
//! *post-read-increment-address read* (OP 10) frame on that address. A Clause 45 read or
//! write is therefore 2 × [`frame_ns`] on the wire, 51.2 µs at 2.5 MHz
//! ([`c45_access_ns`]). The device keeps the address per MMD until the next address frame
//! (or a post-read increment), so a master that reuses it could save the address frame;
//! [`Mdio45`] always sends both (IEEE 802.3 clause 45.3, the MDIO frame format; the MMD
//! numbers as Linux's `include/uapi/linux/mdio.h` names them, `MDIO_MMD_*`).
//!
//! ## Example
//!
//! ```
//! use mdio_bus::{Mdio, PhyAddr, RegAddr};
//! use mdio_bus::sim::{PhyModel, SimMdio};
//! use hwtimer_core::sim::SimClock;
//!
//! let clock = SimClock::new();
//! let mut bus = SimMdio::new(&clock, 2_500_000, PhyModel::bcm54612e(PhyAddr::new(0).unwrap()));
//! let id1 = bus.read(PhyAddr::new(0).unwrap(), RegAddr::new(2).unwrap()).unwrap();
//! assert_eq!(id1, 0x0362);
//! assert_eq!(bus.frames(), 1);
//! assert_eq!(clock.now_ns(), 25_600);
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[cfg(feature = "sim")]
hwtimer_core::sim_module!();

/// A PHY (port, device) address on an MDIO bus: `0..=31`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PhyAddr(u8);

impl PhyAddr {
    /// `addr` if it is `0..=31`.
    pub const fn new(addr: u8) -> Option<Self> {
        if addr < 32 { Some(Self(addr)) } else { None }
    }

    /// `addr` masked to 5 bits (for addresses computed from hardware fields).
    pub const fn from_bits(addr: u8) -> Self {
        Self(addr & 0x1F)
    }

    /// The address.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A Clause 22 register number: `0..=31`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RegAddr(u8);

impl RegAddr {
    /// `reg` if it is `0..=31`.
    pub const fn new(reg: u8) -> Option<Self> {
        if reg < 32 { Some(Self(reg)) } else { None }
    }

    /// `reg` masked to 5 bits.
    pub const fn from_bits(reg: u8) -> Self {
        Self(reg & 0x1F)
    }

    /// The register number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A Clause 45 MMD (MDIO manageable device) address: `0..=31` (DEVAD; 1 PMA/PMD, 3 PCS,
/// 4 PHY XS, 7 auto-negotiation, ...: Linux `include/uapi/linux/mdio.h` `MDIO_MMD_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DevAddr(u8);

impl DevAddr {
    /// MMD 1, PMA/PMD.
    pub const PMA_PMD: Self = Self(1);
    /// MMD 3, PCS.
    pub const PCS: Self = Self(3);
    /// MMD 4, PHY XS (where the Marvell 6390/6393X SERDES lanes keep their registers).
    pub const PHYXS: Self = Self(4);
    /// MMD 7, auto-negotiation.
    pub const AN: Self = Self(7);

    /// `devad` if it is `0..=31`.
    pub const fn new(devad: u8) -> Option<Self> {
        if devad < 32 { Some(Self(devad)) } else { None }
    }

    /// `devad` masked to 5 bits (for device addresses computed from hardware fields).
    pub const fn from_bits(devad: u8) -> Self {
        Self(devad & 0x1F)
    }

    /// The device address.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A Clause 22 MDIO bus master.
///
/// # Contract
/// Each call performs exactly one MDIO frame (one read or one write) and returns when the
/// frame is complete; a master that cannot complete it (a busy bit that never clears, a bus
/// fault) returns `Err` rather than blocking forever or panicking. No caching: a read always
/// goes to the bus.
pub trait Mdio {
    /// Why a frame failed (for a DWMAC: `hwtimer_core::Error::Timeout` when MII_ADDR.GB never
    /// clears).
    type Error;
    /// Read register `reg` of device `phy`.
    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error>;
    /// Write `value` to register `reg` of device `phy`.
    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error>;
}

impl<T: Mdio + ?Sized> Mdio for &mut T {
    type Error = T::Error;
    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        (**self).read(phy, reg)
    }
    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        (**self).write(phy, reg, value)
    }
}

/// A Clause 45 MDIO bus master (beside its Clause 22 [`Mdio`], with the same error type).
///
/// # Contract
/// Each call performs one Clause 45 access, which is two frames on the wire (see the
/// [crate docs](crate#clause-45)): an address frame loading `reg` into the address register
/// of MMD `devad` at port `phy`, then the data frame (a read or a write of that register).
/// It returns when both are complete; a master that cannot complete them returns `Err`
/// rather than blocking forever or panicking. No caching: every read goes to the bus, and
/// the address frame is always sent (the device's address register is not trusted).
pub trait Mdio45: Mdio {
    /// Read register `reg` of MMD `devad` of port `phy`.
    fn read_c45(&mut self, phy: PhyAddr, devad: DevAddr, reg: u16) -> Result<u16, Self::Error>;
    /// Write `value` to register `reg` of MMD `devad` of port `phy`.
    fn write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Self::Error>;
}

impl<T: Mdio45 + ?Sized> Mdio45 for &mut T {
    fn read_c45(&mut self, phy: PhyAddr, devad: DevAddr, reg: u16) -> Result<u16, Self::Error> {
        (**self).read_c45(phy, devad, reg)
    }
    fn write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Self::Error> {
        (**self).write_c45(phy, devad, reg, value)
    }
}

/// Duration of one Clause 22 frame (32-bit preamble + 32-bit frame = 64 MDC cycles) at
/// `mdc_hz`, in nanoseconds, rounded up. 25 600 ns at 2.5 MHz.
///
/// ```
/// assert_eq!(mdio_bus::frame_ns(2_500_000), 25_600);
/// ```
pub const fn frame_ns(mdc_hz: u32) -> u64 {
    if mdc_hz == 0 {
        return u64::MAX;
    }
    (64 * 1_000_000_000u64).div_ceil(mdc_hz as u64)
}

/// Duration of one Clause 45 access (address frame + data frame, each as long as a Clause
/// 22 frame) at `mdc_hz`, in nanoseconds: 51 200 ns at 2.5 MHz. Saturates (`u64::MAX` for
/// `mdc_hz` = 0).
///
/// ```
/// assert_eq!(mdio_bus::c45_access_ns(2_500_000), 51_200);
/// ```
pub const fn c45_access_ns(mdc_hz: u32) -> u64 {
    frame_ns(mdc_hz).saturating_mul(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_addresses_are_five_bits() {
        assert!(DevAddr::new(31).is_some());
        assert!(DevAddr::new(32).is_none());
        assert_eq!(DevAddr::from_bits(0x24).get(), 4);
        assert_eq!(DevAddr::PHYXS.get(), 4);
        assert_eq!(c45_access_ns(0), u64::MAX);
    }

    #[test]
    fn addresses_are_five_bits() {
        assert!(PhyAddr::new(31).is_some());
        assert!(PhyAddr::new(32).is_none());
        assert!(RegAddr::new(32).is_none());
        assert_eq!(PhyAddr::from_bits(0x3F).get(), 31);
        assert_eq!(RegAddr::from_bits(0x21).get(), 1);
    }
}

/// The README's examples, compiled (and run where they can) as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
