//! # mdio-bus
//!
//! A fallible IEEE 802.3 Clause 22 MDIO bus trait ([`Mdio`]), the address newtypes that
//! make out-of-range addresses unrepresentable ([`PhyAddr`], [`RegAddr`]), and (feature
//! `sim`) a behavioural bus model that charges every frame its real duration in virtual
//! time and counts frames.
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
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

// Host-only test infrastructure (feature `sim`, pulls in `std`): the PHY model indexes its
// 32 registers with 5-bit addresses and may panic on a broken test set-up.
#[cfg(feature = "sim")]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
pub mod sim;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_five_bits() {
        assert!(PhyAddr::new(31).is_some());
        assert!(PhyAddr::new(32).is_none());
        assert!(RegAddr::new(32).is_none());
        assert_eq!(PhyAddr::from_bits(0x3F).get(), 31);
        assert_eq!(RegAddr::from_bits(0x21).get(), 1);
    }
}
