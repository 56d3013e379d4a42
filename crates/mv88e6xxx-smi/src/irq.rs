//! Interrupts (docs/mv88e6xxx.md#interrupts): the Global1 sources (G1_STS, enabled in
//! G1_CTL1's low bits), the internal PHYs' interrupts through Global2 (G2 INT_SRC /
//! INT_MASK, behind the Global1 "device" source), and a "which ports' link changed"
//! helper that reads and so acknowledges the Marvell PHYs' interrupt status.
//!
//! Nothing here is write-1-to-clear: Linux never writes G1_STS or G2 INT_SRC. A **read of
//! G1_STS clears "most of" its sources** (Linux v6.12 chip.c
//! `mv88e6xxx_g1_irq_setup_common`: "Reading the interrupt status clears (most of)
//! them"): the operation-done events (EEPROM, TCAM, ATU, VTU, STATS done:
//! [`G1_STS_CLEARED_ON_READ`]). The other bits follow their source and clear there: G1
//! "device" (and the 6393X's "device 2") when no enabled Global2 source is set, a G2 PHY
//! bit when that PHY's interrupt status has been read (Marvell PHY register 0x13 clears on
//! read), the ATU/VTU problem bits through their units' violation operations. Because
//! this driver reads G1_STS for other reasons too (INIT_READY, the PPU state), every
//! G1_STS read it makes keeps the cleared-on-read sources it sees, and
//! [`g1_irq_status`](Switch::g1_irq_status) / [`g1_irq_pending`](Switch::g1_irq_pending)
//! report each of them once.
//!
//! Implemented for the chips of [`PortOps`](crate::port::PortOps): Global1 with each chip's number of sources
//! ([`PortOps::g1_irqs`](crate::port::PortOps::g1_irqs): 8, 9 or 10), PHY interrupts on every chip whose internal PHYs
//! sit behind Global2 SMI_PHY (port `n` = internal PHY `n` = G2 INT_SRC bit `n`; ports
//! `internal_phys_offset..` on the 6320/6321, 6361 and 6393 family; routed ports only;
//! docs/mv88e6xxx.md#interrupts). The 6393 family's tenth Global1 source (bit 9) is
//! [`G1Irq::Device2`] (Linux global1.h `MV88E6393X_G1_STS_IRQ_DEVICE_2`, enable
//! `MV88E6393X_G1_CTL1_DEVICE2_EN`), which Linux defines but never enables or handles.

use hwtimer_core::Continuous;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::PhyAccess;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::{g2, phy};
use crate::switch::Switch;

/// The G1_STS sources a read of G1_STS clears (see the module docs): EEPROM done (0),
/// TCAM done (1), ATU done (2), VTU done (4), statistics done (6). Linux global1.h
/// `MV88E6XXX_G1_STS_IRQ_*`; which sources Linux's "(most of)" covers is our reading:
/// the events, not the states (**unverified** on silicon).
pub const G1_STS_CLEARED_ON_READ: u16 = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 4) | (1 << 6);

/// One Global1 interrupt source: its bit in G1_STS and its enable bit in G1_CTL1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum G1Irq {
    /// Bit 0: EEPROM loading done.
    EepromDone,
    /// Bit 1: TCAM operation done.
    TcamDone,
    /// Bit 2: ATU operation done.
    AtuDone,
    /// Bit 3: ATU problem (violation).
    AtuProblem,
    /// Bit 4: VTU operation done.
    VtuDone,
    /// Bit 5: VTU problem (violation).
    VtuProblem,
    /// Bit 6: statistics operation done.
    Stats,
    /// Bit 7: device interrupt (Global2 sources: PHYs, watchdog, ...).
    Device,
    /// Bit 8: AVB (chips with 9 or more sources).
    Avb,
    /// Bit 9: device 2 (6393 family, 10 sources; Linux global1.h
    /// `MV88E6393X_G1_STS_IRQ_DEVICE_2`, enabled by G1_CTL1 bit 9
    /// `MV88E6393X_G1_CTL1_DEVICE2_EN`). Linux defines it but never enables or handles it
    /// (its Global1 setup clears the enables); what raises it is **unverified**.
    Device2,
}

impl G1Irq {
    /// Every source, by bit.
    pub const ALL: [G1Irq; 10] = [
        G1Irq::EepromDone,
        G1Irq::TcamDone,
        G1Irq::AtuDone,
        G1Irq::AtuProblem,
        G1Irq::VtuDone,
        G1Irq::VtuProblem,
        G1Irq::Stats,
        G1Irq::Device,
        G1Irq::Avb,
        G1Irq::Device2,
    ];

    /// The source's bit number.
    pub const fn bit(self) -> u8 {
        match self {
            G1Irq::EepromDone => 0,
            G1Irq::TcamDone => 1,
            G1Irq::AtuDone => 2,
            G1Irq::AtuProblem => 3,
            G1Irq::VtuDone => 4,
            G1Irq::VtuProblem => 5,
            G1Irq::Stats => 6,
            G1Irq::Device => 7,
            G1Irq::Avb => 8,
            G1Irq::Device2 => 9,
        }
    }

    const fn mask(self) -> u16 {
        1 << self.bit()
    }
}

/// A set of Global1 sources (the low bits of G1_STS / G1_CTL1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct G1IrqSet(u16);

impl G1IrqSet {
    /// No source.
    pub const fn empty() -> Self {
        Self(0)
    }

    /// This set plus `irq`.
    #[must_use]
    pub const fn with(self, irq: G1Irq) -> Self {
        Self(self.0 | irq.mask())
    }

    /// Whether `irq` is in the set.
    pub const fn contains(self, irq: G1Irq) -> bool {
        self.0 & irq.mask() != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The register bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The sources of `bits` (bits above 9 are dropped).
    pub const fn from_bits(bits: u16) -> Self {
        Self(bits & 0x03FF)
    }
}

/// A set of ports, bit `n` = port `n` (for the PHY interrupts, port `n` is internal PHY
/// `n` at PHY address `phy_base + n` and G2 INT_SRC bit `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PortSet(pub u16);

impl PortSet {
    /// Whether `port` is in the set (false for any port above 15).
    pub const fn contains(self, port: u8) -> bool {
        match 1u16.checked_shl(port as u32) {
            Some(b) => self.0 & b != 0,
            None => false,
        }
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// The mask of the chip's Global1 sources, no frame.
    fn g1_irq_mask(&self) -> Result<u16, ConfigError> {
        let n = self.port_ops()?.g1_irqs();
        Ok(match 1u16.checked_shl(u32::from(n)) {
            Some(b) => b.wrapping_sub(1),
            None => u16::MAX,
        })
    }

    /// Enable exactly the Global1 sources of `set` to drive the switch's interrupt pin
    /// (G1_CTL1 bits `0..g1_irqs`, read-modify-write; SW_RESET, PPU_ENABLE and the other
    /// bits are kept, and so is a PPU hold).
    ///
    /// Errors: [`ConfigError::PortFeature`] ([`Feature::PortOps`], or [`Feature::G1Irq`]
    /// for a source the chip does not have, e.g. [`G1Irq::Avb`] on the 6185), before any
    /// frame; access errors.
    pub fn g1_irq_enable(&mut self, set: G1IrqSet) -> Result<(), Error<M::Error>> {
        let mask = self.g1_irq_mask()?;
        if let Some(irq) = G1Irq::ALL
            .iter()
            .find(|i| set.contains(**i) && i.mask() & mask == 0)
        {
            return Err(ConfigError::PortFeature {
                chip: self.chip(),
                port: None,
                feature: Feature::G1Irq(irq.bit()),
            }
            .into());
        }
        self.g1_ctl1_update(|c| (c & !mask) | set.bits())
            .map(|_| ())
    }

    /// The Global1 sources set, whether enabled or not: G1_STS (one read) plus the
    /// cleared-on-read sources ([`G1_STS_CLEARED_ON_READ`]) that earlier G1_STS reads of
    /// this driver saw and no call of this method or of
    /// [`g1_irq_pending`](Self::g1_irq_pending) has returned yet. The read clears the
    /// operation-done sources in the switch; each is returned **once**, so handle every
    /// source of the set (a second call does not return them again). A raw
    /// [`g1_read`](Self::g1_read) of G1_STS also sees them; they are still returned here
    /// once.
    ///
    /// Errors: [`ConfigError::PortFeature`] before any frame; [`Error::NotAnswering`] when
    /// G1_STS reads 0xFFFF (the switch not answering: no source is taken as set); access
    /// errors (nothing seen is lost: a later call returns it).
    pub fn g1_irq_status(&mut self) -> Result<G1IrqSet, Error<M::Error>> {
        let mask = self.g1_irq_mask()?;
        let sts = self.g1_sts_answered()?;
        let set = (sts | self.g1_sts_seen) & mask;
        self.g1_sts_seen &= !set;
        Ok(G1IrqSet::from_bits(set))
    }

    /// The enabled Global1 sources that are set: what drives the interrupt pin, as
    /// Linux's Global1 interrupt thread computes it (G1_CTL1 read, then one G1_STS read).
    /// The enabled cleared-on-read sources are returned once, as by
    /// [`g1_irq_status`](Self::g1_irq_status); the disabled ones this read cleared in the
    /// switch are kept for the next [`g1_irq_status`](Self::g1_irq_status), not lost.
    ///
    /// Errors: as [`g1_irq_status`](Self::g1_irq_status).
    pub fn g1_irq_pending(&mut self) -> Result<G1IrqSet, Error<M::Error>> {
        let mask = self.g1_irq_mask()?;
        let ctl1 = self.g1_read(crate::regs::g1::CTL1)?;
        let sts = self.g1_sts_answered()?;
        let set = (sts | self.g1_sts_seen) & mask & ctl1;
        self.g1_sts_seen &= !set;
        Ok(G1IrqSet::from_bits(set))
    }

    /// One G1_STS read; 0xFFFF (the switch not answering) is [`Error::NotAnswering`].
    fn g1_sts_answered(&mut self) -> Result<u16, Error<M::Error>> {
        let sts = self.g1_read(crate::regs::g1::STS)?;
        if sts == crate::regs::NOT_ANSWERING {
            return Err(Error::NotAnswering {
                dev: self.address_map().global1,
                reg: crate::regs::g1::STS,
            });
        }
        Ok(sts)
    }

    /// The routed ports with an internal PHY behind Global2 (their G2 INT_SRC bits), as a
    /// port mask; no frame.
    fn phy_irq_ports(&self) -> Result<u16, ConfigError> {
        self.port_ops()?;
        let refuse = ConfigError::PortFeature {
            chip: self.chip(),
            port: None,
            feature: Feature::PhyIrq,
        };
        let Some(chip) = self.chip() else {
            return Err(refuse);
        };
        let info = chip.info();
        if info.phy_access != PhyAccess::Global2 || info.num_internal_phys == 0 {
            return Err(refuse);
        }
        let mut mask = 0u16;
        for port in 0..16u8 {
            if chip.has_internal_phy(port)
                && chip.is_valid_port(port)
                && let Some(b) = 1u16.checked_shl(u32::from(port))
            {
                mask |= b;
            }
        }
        Ok(mask)
    }

    /// Enable the Global2 interrupts of the internal PHYs of `ports` (G2 INT_MASK
    /// read-modify-write: the bits of the chip's internal PHYs set exactly for `ports`,
    /// every other bit, such as the watchdog (15) or the SERDES sources, kept) and, for
    /// each of those PHYs, its "link status changed" interrupt (Marvell PHY register 0x12
    /// bit 10, read-modify-write; cleared on the other internal PHYs). Enable
    /// [`G1Irq::Device`] too for the interrupt pin.
    ///
    /// Errors: [`ConfigError::PortFeature`] ([`Feature::PhyIrq`] on a chip without
    /// them), [`ConfigError::Port`] for a port without an internal PHY, before any frame;
    /// access errors.
    pub fn link_irq_enable(&mut self, ports: PortSet) -> Result<(), Error<M::Error>> {
        let phys = self.phy_irq_ports()?;
        if ports.0 & !phys != 0 {
            let port = (0..16u8).find(|p| ports.contains(*p) && !PortSet(phys).contains(*p));
            return Err(ConfigError::Port {
                port: port.unwrap_or(0),
            }
            .into());
        }
        let base = self.address_map().phy_base;
        for n in 0..16u8 {
            if !PortSet(phys).contains(n) {
                continue;
            }
            let phy = PhyAddr::from_bits(base.saturating_add(n));
            let reg = RegAddr::from_bits(phy::IMASK);
            let v = self.phy_read(phy, reg)?;
            let want = if ports.contains(n) {
                v | phy::LINK_CHANGED
            } else {
                v & !phy::LINK_CHANGED
            };
            if want != v {
                self.phy_write(phy, reg, want)?;
            }
        }
        let mask = self.g2_read(g2::INT_MASK)?;
        let want = (mask & !phys) | ports.0;
        if want != mask {
            self.g2_write(g2::INT_MASK, want)?;
        }
        Ok(())
    }

    /// The internal PHYs whose interrupt line is active: G2 INT_SRC (one read), limited
    /// to the chip's internal PHYs. Reading clears nothing; the PHY's own status read
    /// ([`link_changed_ports`](Self::link_changed_ports)) does.
    ///
    /// Errors: as [`link_irq_enable`](Self::link_irq_enable).
    pub fn phy_irq_source(&mut self) -> Result<PortSet, Error<M::Error>> {
        let phys = self.phy_irq_ports()?;
        Ok(PortSet(self.g2_read(g2::INT_SRC)? & phys))
    }

    /// Which ports' link changed: reads G2 INT_SRC, then the interrupt status of each PHY
    /// it names (Marvell register 0x13, which that read acknowledges: the PHY's line, its
    /// INT_SRC bit and the Global1 device source clear); returns the ports whose status
    /// had "link status changed". Then read [`port_link_status`](Self::port_link_status)
    /// or the PHY for the new state.
    ///
    /// Errors: as [`link_irq_enable`](Self::link_irq_enable).
    pub fn link_changed_ports(&mut self) -> Result<PortSet, Error<M::Error>> {
        let src = self.phy_irq_source()?;
        let base = self.address_map().phy_base;
        let mut changed = 0u16;
        for n in 0..16u8 {
            if !src.contains(n) {
                continue;
            }
            let phy = PhyAddr::from_bits(base.saturating_add(n));
            let ev = self.phy_read(phy, RegAddr::from_bits(phy::IEVENT))?;
            if ev & phy::LINK_CHANGED != 0 {
                changed |= 1 << n;
            }
        }
        Ok(PortSet(changed))
    }
}
