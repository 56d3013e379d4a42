//! The PHY on the model's MDIO bus ([`AnPhy`]) and the link partner it negotiates with
//! ([`Partner`]).

use std::cell::RefCell;
use std::rc::Rc;

use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use crate::{Duplex, LinkState, Speed};

/// The Clause 22 registers and bits the model's PHY implements (IEEE 802.3 clause 22.2.4;
/// the same numbers as Linux `include/uapi/linux/mii.h`).
mod mii {
    /// Basic mode control (register 0).
    pub const BMCR: u8 = 0x00;
    /// Basic mode status (1).
    pub const BMSR: u8 = 0x01;
    /// PHY identifier 1 (2).
    pub const PHYSID1: u8 = 0x02;
    /// PHY identifier 2 (3).
    pub const PHYSID2: u8 = 0x03;
    /// Auto-negotiation advertisement (4).
    pub const ADVERTISE: u8 = 0x04;
    /// Link partner ability (5).
    pub const LPA: u8 = 0x05;
    /// 1000BASE-T control (9, clause 40.5.1.1).
    pub const CTRL1000: u8 = 0x09;
    /// 1000BASE-T status (10).
    pub const STAT1000: u8 = 0x0A;
    /// Extended status (15).
    pub const ESTATUS: u8 = 0x0F;
    /// BMCR speed select LSB, 100 Mbit/s (bit 13).
    pub const BMCR_SPEED100: u16 = 1 << 13;
    /// BMCR auto-negotiation enable (bit 12).
    pub const BMCR_ANENABLE: u16 = 1 << 12;
    /// BMCR restart auto-negotiation (bit 9).
    pub const BMCR_ANRESTART: u16 = 1 << 9;
    /// BMCR full duplex (bit 8).
    pub const BMCR_FULLDPLX: u16 = 1 << 8;
    /// BMCR speed select MSB, 1000 Mbit/s (bit 6).
    pub const BMCR_SPEED1000: u16 = 1 << 6;
    /// BMCR loopback (bit 14).
    pub const BMCR_LOOPBACK: u16 = 1 << 14;
    /// BMCR reset (bit 15, self-clearing).
    pub const BMCR_RESET: u16 = 1 << 15;
    /// BMSR extended status present (bit 8).
    pub const BMSR_ESTATEN: u16 = 1 << 8;
    /// BMSR auto-negotiation complete (bit 5).
    pub const BMSR_ANEGCOMPLETE: u16 = 1 << 5;
    /// BMSR auto-negotiation ability (bit 3).
    pub const BMSR_ANEGCAPABLE: u16 = 1 << 3;
    /// BMSR link status, latching low (bit 2).
    pub const BMSR_LSTATUS: u16 = 1 << 2;
    /// Advertisement 10BASE-T half (bit 5).
    pub const ADVERTISE_10HALF: u16 = 1 << 5;
    /// 10BASE-T full (bit 6).
    pub const ADVERTISE_10FULL: u16 = 1 << 6;
    /// 100BASE-TX half (bit 7).
    pub const ADVERTISE_100HALF: u16 = 1 << 7;
    /// 100BASE-TX full (bit 8).
    pub const ADVERTISE_100FULL: u16 = 1 << 8;
    /// CTRL1000 1000BASE-T half (bit 8).
    pub const ADVERTISE_1000HALF: u16 = 1 << 8;
    /// CTRL1000 1000BASE-T full (bit 9).
    pub const ADVERTISE_1000FULL: u16 = 1 << 9;
    /// STAT1000 partner 1000BASE-T half (bit 10).
    pub const LPA_1000HALF: u16 = 1 << 10;
    /// STAT1000 partner 1000BASE-T full (bit 11).
    pub const LPA_1000FULL: u16 = 1 << 11;
    /// STAT1000 master-slave configuration fault (bit 15).
    pub const LPA_1000MSFAIL: u16 = 1 << 15;
    /// ESTATUS 1000BASE-T full (bit 13).
    pub const ESTATUS_1000_TFULL: u16 = 1 << 13;
    /// ESTATUS 1000BASE-T half (bit 12).
    pub const ESTATUS_1000_THALF: u16 = 1 << 12;
}

/// The highest common mode of both advertisements, in IEEE 802.3 annex 28B.3's priority
/// (1000BASE-T full, half, 100BASE-TX full, half, 10BASE-T full, half); down when none.
/// CTRL1000's bits 9:8 pair with STAT1000's 11:10 (clause 40.5.1.1).
fn resolve(adv: u16, lpa: u16, ctrl1000: u16, stat1000: u16) -> LinkState {
    let g = ctrl1000 & (stat1000 >> 2);
    let c = adv & lpa;
    let modes = [
        (g & mii::ADVERTISE_1000FULL, Speed::M1000, Duplex::Full),
        (g & mii::ADVERTISE_1000HALF, Speed::M1000, Duplex::Half),
        (c & mii::ADVERTISE_100FULL, Speed::M100, Duplex::Full),
        (c & mii::ADVERTISE_100HALF, Speed::M100, Duplex::Half),
        (c & mii::ADVERTISE_10FULL, Speed::M10, Duplex::Full),
        (c & mii::ADVERTISE_10HALF, Speed::M10, Duplex::Half),
    ];
    modes
        .into_iter()
        .find(|m| m.0 != 0)
        .map_or(LinkState::DOWN, |(_, s, d)| LinkState::up(s, d))
}

/// The link partner of an [`AnPhy`]: its abilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partner {
    /// LPA bits (10/100 abilities, ADVERTISE_* positions).
    pub lpa: u16,
    /// 1000BASE-T full duplex.
    pub g_full: bool,
    /// 1000BASE-T half duplex.
    pub g_half: bool,
}

#[derive(Debug)]
struct AnState {
    addr: PhyAddr,
    bmcr: u16,
    adv: u16,
    ctrl1000: u16,
    partner: Partner,
    cable: bool,
    an_done_at: Option<u64>,
    an_ns: u64,
    latched_down: bool,
    reads: u64,
    ms_fault: bool,
    reset_until: Option<u64>,
    reset_stuck: bool,
}

/// A Clause 22 PHY with autonegotiation in virtual time (a BCM54612E's ID and abilities):
/// BMCR.ANRESTART starts a negotiation that completes [`AN_NS`] later; the link is down
/// meanwhile (BMSR.LSTATUS latches low); then LPA / STAT1000 show the partner and the
/// negotiated link is the highest common mode. Clones share the PHY (one for the MDIO bus,
/// one for [`Gmac3Model::with_phy`](super::Gmac3Model::with_phy)).
#[derive(Debug, Clone)]
pub struct AnPhy {
    s: Rc<RefCell<AnState>>,
}

/// How long the model's PHY keeps BMCR.RESET set after a reset request.
pub const PHY_RESET_NS: u64 = 500_000;

/// How long the model's autonegotiation takes.
pub const AN_NS: u64 = 2_000_000;

impl AnPhy {
    /// A PHY at address 0 with a cable to `partner`, not negotiated yet.
    pub fn new(partner: Partner) -> Self {
        Self {
            s: Rc::new(RefCell::new(AnState {
                addr: PhyAddr::from_bits(0),
                bmcr: mii::BMCR_ANENABLE,
                adv: 0x01E1,
                ctrl1000: 0,
                partner,
                cable: true,
                an_done_at: None,
                an_ns: AN_NS,
                latched_down: true,
                reads: 0,
                ms_fault: false,
                reset_until: None,
                reset_stuck: false,
            })),
        }
    }

    /// A partner with everything up to 1000BASE-T full duplex.
    pub fn gigabit() -> Self {
        Self::new(Partner {
            lpa: 0x41E1,
            g_full: true,
            g_half: true,
        })
    }

    /// A partner that stops at 100BASE-TX full duplex.
    pub fn fast_ethernet() -> Self {
        Self::new(Partner {
            lpa: 0x41E1,
            g_full: false,
            g_half: false,
        })
    }

    /// A 10BASE-T half-duplex-only partner.
    pub fn ten_half() -> Self {
        Self::new(Partner {
            lpa: 0x4021,
            g_full: false,
            g_half: false,
        })
    }

    /// Plug or unplug the cable; unplugging drops the link (latched) and forgets the
    /// negotiation; plugging back needs a new one (or completes the running one).
    pub fn set_cable(&self, now_ns: u64, plugged: bool) {
        let mut s = self.s.borrow_mut();
        s.cable = plugged;
        if !plugged {
            s.latched_down = true;
            s.an_done_at = None;
        } else if s.bmcr & mii::BMCR_ANENABLE != 0 {
            s.an_done_at = Some(now_ns + s.an_ns);
        }
    }

    /// Set BMCR bits directly, as a boot loader or strapping could leave them (e.g.
    /// BMCR_LOOPBACK (bit 14): frames loop back inside the PHY,
    /// none reach the partner, the line is down while it is set).
    pub fn set_bmcr_bits(&self, bits: u16) {
        self.s.borrow_mut().bmcr |= bits;
    }

    /// A 1000BASE-T master/slave configuration fault (both ends forced to the same role):
    /// STAT1000 bit 15 set, no usable link, while BMSR still reports link up and
    /// autonegotiation complete (as PHYs that Linux guards against in `genphy_read_lpa`).
    pub fn set_master_slave_fault(&self, fault: bool) {
        self.s.borrow_mut().ms_fault = fault;
    }

    /// Keep BMCR.RESET set for ever after a reset request (fault injection).
    pub fn set_reset_stuck(&self, stuck: bool) {
        self.s.borrow_mut().reset_stuck = stuck;
    }

    /// MDIO reads served.
    pub fn reads(&self) -> u64 {
        self.s.borrow().reads
    }

    /// The link as the wire has it at `now_ns` (what the MAC must match).
    pub fn line(&self, now_ns: u64) -> LinkState {
        let s = self.s.borrow();
        if !s.cable || s.bmcr & mii::BMCR_LOOPBACK != 0 || s.ms_fault {
            return LinkState::DOWN;
        }
        if s.bmcr & mii::BMCR_ANENABLE == 0 {
            let speed = if s.bmcr & mii::BMCR_SPEED1000 != 0 {
                Speed::M1000
            } else if s.bmcr & mii::BMCR_SPEED100 != 0 {
                Speed::M100
            } else {
                Speed::M10
            };
            let duplex = if s.bmcr & mii::BMCR_FULLDPLX != 0 {
                Duplex::Full
            } else {
                Duplex::Half
            };
            return LinkState::up(speed, duplex);
        }
        match s.an_done_at {
            Some(t) if now_ns >= t => resolve(s.adv, s.partner.lpa, s.ctrl1000, stat1000(&s)),
            _ => LinkState::DOWN,
        }
    }
}

fn stat1000(s: &AnState) -> u16 {
    (if s.partner.g_full {
        mii::LPA_1000FULL
    } else {
        0
    }) | (if s.partner.g_half {
        mii::LPA_1000HALF
    } else {
        0
    })
}

impl MdioDevice for AnPhy {
    fn read(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        let line = self.line(now_ns);
        let mut s = self.s.borrow_mut();
        if phy != s.addr {
            return 0xFFFF;
        }
        s.reads += 1;
        let done = s.an_done_at.is_some_and(|t| now_ns >= t);
        match reg.get() {
            mii::BMCR => {
                let resetting = s.reset_stuck && s.reset_until.is_some()
                    || s.reset_until.is_some_and(|t| now_ns < t);
                if resetting {
                    s.bmcr | mii::BMCR_RESET
                } else {
                    s.bmcr
                }
            }
            mii::BMSR => {
                // A master/slave fault still shows link (see `set_master_slave_fault`).
                let wire_up = line.up || (s.ms_fault && s.cable && done);
                let up = wire_up && !s.latched_down;
                s.latched_down = !wire_up;
                0x7900
                    | mii::BMSR_ESTATEN
                    | mii::BMSR_ANEGCAPABLE
                    | 1
                    | if done { mii::BMSR_ANEGCOMPLETE } else { 0 }
                    | if up { mii::BMSR_LSTATUS } else { 0 }
            }
            mii::PHYSID1 => 0x0362,
            mii::PHYSID2 => 0x5e6a,
            mii::ADVERTISE => s.adv,
            mii::LPA if done => s.partner.lpa,
            mii::CTRL1000 => s.ctrl1000,
            mii::STAT1000 if done => {
                stat1000(&s) | if s.ms_fault { mii::LPA_1000MSFAIL } else { 0 }
            }
            mii::ESTATUS => mii::ESTATUS_1000_TFULL | mii::ESTATUS_1000_THALF,
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        let mut s = self.s.borrow_mut();
        if phy != s.addr {
            return;
        }
        match reg.get() {
            mii::BMCR if value & mii::BMCR_RESET != 0 => {
                // Software reset: registers to their defaults (loopback, power-down off,
                // autonegotiation enabled), the link drops; BMCR.RESET reads set for
                // PHY_RESET_NS.
                s.bmcr = mii::BMCR_ANENABLE;
                s.adv = 0x01E1;
                s.ctrl1000 = 0;
                s.an_done_at = None;
                s.latched_down = true;
                s.reset_until = Some(now_ns + PHY_RESET_NS);
            }
            mii::BMCR => {
                s.bmcr = value & !(mii::BMCR_ANRESTART | 0x8000);
                if value & mii::BMCR_ANENABLE != 0 && value & mii::BMCR_ANRESTART != 0 {
                    s.latched_down = true;
                    s.an_done_at = s.cable.then_some(now_ns + s.an_ns);
                }
            }
            mii::ADVERTISE => s.adv = value,
            mii::CTRL1000 => s.ctrl1000 = value,
            _ => {}
        }
    }
}
