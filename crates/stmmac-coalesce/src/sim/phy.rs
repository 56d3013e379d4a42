//! The PHY on the model's MDIO bus ([`AnPhy`]) and the link partner it negotiates with
//! ([`Partner`]).

use std::cell::RefCell;
use std::rc::Rc;

use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use crate::phy::{Duplex, LinkState, Speed, resolve};
use crate::regs::mii;

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
/// one for [`DwmacModel::with_phy`](super::DwmacModel::with_phy)).
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
    /// [`BMCR_LOOPBACK`](crate::regs::mii::BMCR_LOOPBACK): frames loop back inside the PHY,
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
