//! Clause 22 PHY autonegotiation and link polling over any [`Mdio`] bus (for example
//! [`Gmac3Mdio`](crate::Gmac3Mdio)), and the [`LinkState`] the MAC is configured for.
//!
//! Autonegotiation ([`Phy::start_autoneg`]): advertise 10/100 abilities in ADVERTISE
//! (register 4) and, when the PHY has extended status (BMSR.ESTATEN, ESTATUS register 15),
//! 1000BASE-T in CTRL1000 (register 9); then BMCR = ANENABLE | ANRESTART, with power-down,
//! isolate and loopback cleared.
//!
//! Resolution ([`Phy::poll`]): BMSR is read twice (its link bit latches low); once
//! BMSR.ANEGCOMPLETE is set the highest common mode wins, in IEEE 802.3 annex 28B order:
//! 1000 full (CTRL1000.ADVERTISE_1000FULL and STAT1000.LPA_1000FULL), 1000 half, then
//! ADVERTISE ∧ LPA for 100 full, 100 half, 10 full, 10 half. A master/slave
//! configuration fault (STAT1000 bit 15) is link down. With autonegotiation off the
//! forced BMCR speed and duplex are the result.
//!
//! QEMU's npcm-gmac PHY sets ANEGCOMPLETE on the BMCR write and clears LPA at the same
//! time, so there the result comes from the 1000BASE-T registers alone (1000 full).

use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::common::mii;

/// Link speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Speed {
    /// 10 Mbit/s.
    M10,
    /// 100 Mbit/s.
    M100,
    /// 1000 Mbit/s.
    M1000,
}

impl Speed {
    /// Mbit/s.
    pub const fn mbps(self) -> u32 {
        match self {
            Speed::M10 => 10,
            Speed::M100 => 100,
            Speed::M1000 => 1000,
        }
    }
}

/// Duplex mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Duplex {
    /// Half duplex.
    Half,
    /// Full duplex.
    Full,
}

/// The link as the PHY reports it and the MAC is configured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LinkState {
    /// Link up (and, with autonegotiation, negotiation complete).
    pub up: bool,
    /// Speed (meaningful when up).
    pub speed: Speed,
    /// Duplex (meaningful when up).
    pub duplex: Duplex,
}

impl LinkState {
    /// Link down.
    pub const DOWN: Self = Self {
        up: false,
        speed: Speed::M10,
        duplex: Duplex::Half,
    };

    /// Link up at `speed` and `duplex`.
    pub const fn up(speed: Speed, duplex: Duplex) -> Self {
        Self {
            up: true,
            speed,
            duplex,
        }
    }
}

/// What [`Phy::start_autoneg`] advertises (each only if the PHY can do it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Advertise {
    /// 10BASE-T half and full duplex.
    pub m10: bool,
    /// 100BASE-TX half and full duplex.
    pub m100: bool,
    /// 1000BASE-T full duplex (half duplex is not advertised: the GMAC does it poorly and
    /// nobody uses it).
    pub m1000: bool,
}

impl Default for Advertise {
    /// Everything.
    fn default() -> Self {
        Self {
            m10: true,
            m100: true,
            m1000: true,
        }
    }
}

/// An error of [`Phy::soft_reset`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PhyError<E> {
    /// The MDIO bus failed.
    Bus(E),
    /// BMCR.RESET was still set after the bounded number of reads.
    ResetTimeout,
}

/// BMCR reads [`Phy::soft_reset`] allows by default: IEEE 802.3 22.2.4.1.1 gives a reset
/// 0.5 s; one Clause 22 frame is 64 MDC cycles with MDC at most 2.5 MHz, so a read takes
/// at least 25.6 µs and 20 000 reads last at least 0.5 s.
pub const PHY_RESET_READS: u32 = 20_000;

/// A Clause 22 PHY at one MDIO address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Phy {
    addr: PhyAddr,
}

fn reg(r: u8) -> RegAddr {
    RegAddr::from_bits(r)
}

impl Phy {
    /// The PHY at `addr`.
    pub const fn new(addr: PhyAddr) -> Self {
        Self { addr }
    }

    /// Its MDIO address.
    pub const fn addr(&self) -> PhyAddr {
        self.addr
    }

    /// The 32-bit PHY identifier (PHYSID1 << 16 | PHYSID2).
    ///
    /// Errors: the bus's.
    pub fn id<M: Mdio>(&self, mdio: &mut M) -> Result<u32, M::Error> {
        let hi = mdio.read(self.addr, reg(mii::PHYSID1))?;
        let lo = mdio.read(self.addr, reg(mii::PHYSID2))?;
        Ok(u32::from(hi) << 16 | u32::from(lo))
    }

    /// Software reset: write BMCR.RESET and read BMCR until it self-clears, at most
    /// `max_reads` times ([`PHY_RESET_READS`] covers the 0.5 s IEEE 802.3 allows), then
    /// clear loopback should the reset have left it set. Returns the reads taken. Run it
    /// before [`start_autoneg`](Self::start_autoneg): the reset puts the PHY's registers
    /// back to their defaults (ADVERTISE included).
    ///
    /// Errors: [`PhyError::Bus`]; [`PhyError::ResetTimeout`].
    pub fn soft_reset<M: Mdio>(
        &self,
        mdio: &mut M,
        max_reads: u32,
    ) -> Result<u32, PhyError<M::Error>> {
        let r = reg(mii::BMCR);
        mdio.write(self.addr, r, mii::BMCR_RESET)
            .map_err(PhyError::Bus)?;
        let mut n: u32 = 0;
        while n < max_reads {
            n = n.wrapping_add(1);
            let bmcr = mdio.read(self.addr, r).map_err(PhyError::Bus)?;
            if bmcr & mii::BMCR_RESET == 0 {
                if bmcr & mii::BMCR_LOOPBACK != 0 {
                    mdio.write(self.addr, r, bmcr & !mii::BMCR_LOOPBACK)
                        .map_err(PhyError::Bus)?;
                }
                return Ok(n);
            }
        }
        Err(PhyError::ResetTimeout)
    }

    /// Advertise `adv` (intersected with what BMSR / ESTATUS say the PHY can do) and
    /// restart autonegotiation. Returns the ADVERTISE and CTRL1000 values written.
    ///
    /// Errors: the bus's.
    pub fn start_autoneg<M: Mdio>(
        &self,
        mdio: &mut M,
        adv: Advertise,
    ) -> Result<(u16, u16), M::Error> {
        let bmsr = mdio.read(self.addr, reg(mii::BMSR))?;
        let mut a = mii::ADVERTISE_CSMA;
        if adv.m10 && bmsr & mii::BMSR_10HALF != 0 {
            a |= mii::ADVERTISE_10HALF;
        }
        if adv.m10 && bmsr & mii::BMSR_10FULL != 0 {
            a |= mii::ADVERTISE_10FULL;
        }
        if adv.m100 && bmsr & mii::BMSR_100HALF != 0 {
            a |= mii::ADVERTISE_100HALF;
        }
        if adv.m100 && bmsr & mii::BMSR_100FULL != 0 {
            a |= mii::ADVERTISE_100FULL;
        }
        let old = mdio.read(self.addr, reg(mii::ADVERTISE))?;
        // Keep the pause and next-page bits the PHY or firmware set; replace the
        // technology abilities and the selector.
        let keep = old & !0x03FF;
        mdio.write(self.addr, reg(mii::ADVERTISE), keep | a)?;
        let mut c1000 = 0;
        if bmsr & mii::BMSR_ESTATEN != 0 {
            let est = mdio.read(self.addr, reg(mii::ESTATUS))?;
            let old = mdio.read(self.addr, reg(mii::CTRL1000))?;
            c1000 = old & !(mii::ADVERTISE_1000FULL | mii::ADVERTISE_1000HALF);
            if adv.m1000 && est & mii::ESTATUS_1000_TFULL != 0 {
                c1000 |= mii::ADVERTISE_1000FULL;
            }
            mdio.write(self.addr, reg(mii::CTRL1000), c1000)?;
        }
        let bmcr = mdio.read(self.addr, reg(mii::BMCR))?;
        // Loopback (left by a boot loader or a strap) keeps every frame inside the PHY.
        let bmcr = (bmcr & !(mii::BMCR_PDOWN | mii::BMCR_ISOLATE | mii::BMCR_LOOPBACK))
            | mii::BMCR_ANENABLE
            | mii::BMCR_ANRESTART;
        mdio.write(self.addr, reg(mii::BMCR), bmcr)?;
        Ok((keep | a, c1000))
    }

    /// The pause the negotiation resolved ([`resolve_pause`] of ADVERTISE and LPA); program
    /// it with [`Dwmac::set_flow_control`](crate::Dwmac::set_flow_control). The pause bits
    /// of ADVERTISE are the caller's to set (bits 10, 11); [`start_autoneg`](Self::start_autoneg)
    /// keeps them.
    ///
    /// Errors: the bus's.
    pub fn pause<M: Mdio>(&self, mdio: &mut M) -> Result<Pause, M::Error> {
        let adv = mdio.read(self.addr, reg(mii::ADVERTISE))?;
        let lpa = mdio.read(self.addr, reg(mii::LPA))?;
        Ok(resolve_pause(adv, lpa))
    }

    /// The current link: down until the link is up and (with autonegotiation on)
    /// negotiation has completed; then the resolved speed and duplex (see the
    /// [module docs](self)). A negotiation with no common mode reports down.
    ///
    /// Errors: the bus's.
    pub fn poll<M: Mdio>(&self, mdio: &mut M) -> Result<LinkState, M::Error> {
        // BMSR.LSTATUS latches low: the first read returns (and clears) a past drop.
        let _ = mdio.read(self.addr, reg(mii::BMSR))?;
        let bmsr = mdio.read(self.addr, reg(mii::BMSR))?;
        if bmsr & mii::BMSR_LSTATUS == 0 {
            return Ok(LinkState::DOWN);
        }
        let bmcr = mdio.read(self.addr, reg(mii::BMCR))?;
        if bmcr & mii::BMCR_ANENABLE == 0 {
            let speed = if bmcr & mii::BMCR_SPEED1000 != 0 {
                Speed::M1000
            } else if bmcr & mii::BMCR_SPEED100 != 0 {
                Speed::M100
            } else {
                Speed::M10
            };
            let duplex = if bmcr & mii::BMCR_FULLDPLX != 0 {
                Duplex::Full
            } else {
                Duplex::Half
            };
            return Ok(LinkState::up(speed, duplex));
        }
        if bmsr & mii::BMSR_ANEGCOMPLETE == 0 {
            return Ok(LinkState::DOWN);
        }
        let (mut c1000, mut s1000) = (0, 0);
        if bmsr & mii::BMSR_ESTATEN != 0 {
            c1000 = mdio.read(self.addr, reg(mii::CTRL1000))?;
            s1000 = mdio.read(self.addr, reg(mii::STAT1000))?;
            if s1000 & mii::LPA_1000MSFAIL != 0 {
                // Master/slave resolution failed: no usable link, whatever BMSR says
                // (Linux `genphy_read_lpa` answers -ENOLINK).
                return Ok(LinkState::DOWN);
            }
        }
        let adv = mdio.read(self.addr, reg(mii::ADVERTISE))?;
        let lpa = mdio.read(self.addr, reg(mii::LPA))?;
        Ok(resolve(adv, lpa, c1000, s1000))
    }
}

/// The pause (802.3x flow control) the link resolved to ([`resolve_pause`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pause {
    /// We may send pause frames (GMAC_FLOW_CTRL.TFE).
    pub tx: bool,
    /// We act on pause frames received (GMAC_FLOW_CTRL.RFE).
    pub rx: bool,
}

/// Pause resolution from our ADVERTISE and the partner's LPA (IEEE 802.3 annex 28B.3, as
/// Linux `linkmode_resolve_pause`): both symmetric: both directions; otherwise both
/// asymmetric: receive only when we offer symmetric pause, transmit only when the partner
/// does; otherwise none. Meaningful in full duplex only.
///
/// ```
/// use stmmac_coalesce::common::phy::{resolve_pause, Pause};
/// let (p, a) = (1 << 10, 1 << 11);
/// assert_eq!(resolve_pause(p, p), Pause { tx: true, rx: true });
/// assert_eq!(resolve_pause(p | a, a), Pause { tx: false, rx: true });
/// assert_eq!(resolve_pause(a, p | a), Pause { tx: true, rx: false });
/// assert_eq!(resolve_pause(a, a), Pause::default());
/// ```
pub const fn resolve_pause(adv: u16, lpa: u16) -> Pause {
    let (sym, asym) = (mii::ADVERTISE_PAUSE_CAP, mii::ADVERTISE_PAUSE_ASYM);
    if adv & sym != 0 && lpa & sym != 0 {
        Pause { tx: true, rx: true }
    } else if adv & asym != 0 && lpa & asym != 0 {
        Pause {
            tx: lpa & sym != 0,
            rx: adv & sym != 0,
        }
    } else {
        Pause {
            tx: false,
            rx: false,
        }
    }
}

/// The highest common mode of our advertisement (`adv`, `ctrl1000`) and the link
/// partner's (`lpa`, `stat1000`), IEEE 802.3 annex 28B priority; down when none.
///
/// ```
/// use stmmac_coalesce::common::phy::{resolve, Duplex, LinkState, Speed};
/// // QEMU's npcm-gmac after autonegotiation: LPA 0, 1000 full in the 1000BASE-T registers.
/// assert_eq!(resolve(0x01e1, 0, 0x0200, 0x0800), LinkState::up(Speed::M1000, Duplex::Full));
/// // A 100 Mbit/s full-duplex partner.
/// assert_eq!(resolve(0x01e1, 0x41e1, 0x0200, 0), LinkState::up(Speed::M100, Duplex::Full));
/// assert_eq!(resolve(0x0061, 0x0181, 0, 0), LinkState::DOWN);
/// ```
pub const fn resolve(adv: u16, lpa: u16, ctrl1000: u16, stat1000: u16) -> LinkState {
    let g = ctrl1000 & (stat1000 >> 2);
    let c = adv & lpa;
    if g & mii::ADVERTISE_1000FULL != 0 {
        LinkState::up(Speed::M1000, Duplex::Full)
    } else if g & mii::ADVERTISE_1000HALF != 0 {
        LinkState::up(Speed::M1000, Duplex::Half)
    } else if c & mii::ADVERTISE_100FULL != 0 {
        LinkState::up(Speed::M100, Duplex::Full)
    } else if c & mii::ADVERTISE_100HALF != 0 {
        LinkState::up(Speed::M100, Duplex::Half)
    } else if c & mii::ADVERTISE_10FULL != 0 {
        LinkState::up(Speed::M10, Duplex::Full)
    } else if c & mii::ADVERTISE_10HALF != 0 {
        LinkState::up(Speed::M10, Duplex::Half)
    } else {
        LinkState::DOWN
    }
}
