//! The model of the ports' link, the PHY polling unit's view of the PHYs, the interrupt
//! path (Marvell PHY → Global2 INT_SRC → Global1 "device" source → interrupt pin) and the
//! software reset (docs/mv88e6xxx.md#port-control, #interrupts, #reset).
//!
//! From the hardware facts: PORT_STS bits \[11:8\] are what the PPU last found in the
//! attached PHY (link, duplex, speed), overridden by PORT_MAC_CTL's forced values; on a
//! PPU-gated chip the PPU looks only while its state is "polling". A PHY's "link status
//! changed" event latches in its register 0x13 when enabled in 0x12 and clears when 0x13
//! is read; its line is G2 INT_SRC bit `n` (PHY address `phy_base + n`); G1_STS bit 7 is
//! set while an INT_SRC bit enabled in G2 INT_MASK is; the pin is asserted while a G1_STS
//! source enabled in G1_CTL1 is. G1_CTL1 SW_RESET drops INIT_READY for a reset time.
//!
//! On the 6341, 6390 and 6393 families PORT_MAC_CTL's speed field counts only while
//! FORCE_SPEED (bit 13) is set (Linux `port.c`: "newer chips need a ForcedSpd bit 13");
//! G1 register 0x1A of those families and port register 0x0E of the 6393 family are
//! indirect tables: a write selects the pointer \[13:8\] and, with UPDATE (bit 15),
//! stores the data \[7:0\] there; a read returns the selected pointer and its data.
//!
//! Model assumptions (docs/mv88e6xxx.md#unverified): the PPU sees a PHY change at the
//! next frame while it polls (no poll period); the PHY's events latch only when enabled;
//! the reset takes [`RESET_NS`] by default and returns the port registers (PORT_MAC_CTL to
//! "nothing forced"), G1_CTL1's interrupt enables, G2 INT_MASK and the management tables
//! to zero, without
//! touching the PHYs or the address and VLAN tables.

use super::ChipModel;
use super::regs::{PORT_SWITCH_ID, PPU_ENABLE, PPU_STATE_6352, PPU_STATE_POLLING, SW_RESET, g1};
use crate::sim::facts::{LinuxFamily, PhyKind};

/// Default software reset time of the model: 1 ms (an assumption; Linux waits up to 1 s).
pub const RESET_NS: u64 = 1_000_000;

const BMSR: usize = 0x01;
const BMSR_LINK: u16 = 1 << 2;
/// Marvell PHY specific status (0x11): speed \[15:14\], duplex bit 13, resolved bit 11,
/// real-time link bit 10 (Linux `marvell.c` `MII_M1011_PHY_STATUS`).
const PHY_STATUS: usize = 0x11;
const PHY_STATUS_1000: u16 = 0x8000;
const PHY_STATUS_100: u16 = 0x4000;
const PHY_STATUS_FULL: u16 = 0x2000;
const PHY_STATUS_RESOLVED: u16 = 0x0800;
const PHY_STATUS_LINK: u16 = 0x0400;
const IMASK: usize = 0x12;
const IEVENT: usize = 0x13;
const LINK_CHANGED: u16 = 0x0400;

/// One indirect management table: 64 data bytes behind a 6-bit pointer.
#[derive(Debug, Clone, Copy)]
pub(super) struct MgmtTable {
    data: [u8; 64],
    ptr: u8,
}

impl Default for MgmtTable {
    fn default() -> Self {
        Self {
            data: [0; 64],
            ptr: 0,
        }
    }
}

impl MgmtTable {
    fn write(&mut self, value: u16) {
        self.ptr = ((value >> 8) & 0x3F) as u8;
        if value & 0x8000 != 0 {
            self.data[usize::from(self.ptr)] = (value & 0xFF) as u8;
        }
    }

    fn read(&self) -> u16 {
        (u16::from(self.ptr) << 8) | u16::from(self.data[usize::from(self.ptr)])
    }
}

/// The speed of a modelled PHY's link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhySpeed {
    /// 10 Mb/s.
    Mbps10,
    /// 100 Mb/s.
    Mbps100,
    /// 1000 Mb/s.
    Mbps1000,
}

/// A Marvell-style PHY (88E1xxx register subset) attached to one port: BMCR, BMSR, the
/// PHY ID, the specific status (0x11), interrupt enable (0x12) and status (0x13, clear
/// on read).
#[derive(Debug, Clone)]
pub(super) struct PortPhy {
    addr: u8,
    regs: [u16; 32],
}

impl PortPhy {
    fn new(addr: u8) -> Self {
        let mut regs = [0u16; 32];
        regs[0x00] = 0x1140;
        regs[BMSR] = 0x7949;
        regs[0x02] = 0x0141;
        regs[0x03] = 0x0EA0;
        Self { addr, regs }
    }

    fn link(&self) -> bool {
        self.regs[BMSR] & BMSR_LINK != 0
    }

    fn set_link(&mut self, up: bool, speed: PhySpeed, full: bool) {
        let changed = up != self.link();
        if up {
            self.regs[BMSR] |= BMSR_LINK;
            self.regs[PHY_STATUS] = PHY_STATUS_RESOLVED
                | PHY_STATUS_LINK
                | match speed {
                    PhySpeed::Mbps10 => 0,
                    PhySpeed::Mbps100 => PHY_STATUS_100,
                    PhySpeed::Mbps1000 => PHY_STATUS_1000,
                }
                | if full { PHY_STATUS_FULL } else { 0 };
        } else {
            self.regs[BMSR] &= !BMSR_LINK;
            self.regs[PHY_STATUS] = 0;
        }
        if changed && self.regs[IMASK] & LINK_CHANGED != 0 {
            self.regs[IEVENT] |= LINK_CHANGED;
        }
    }

    /// The PHY's interrupt output.
    fn line(&self) -> bool {
        self.regs[IEVENT] & self.regs[IMASK] != 0
    }

    /// PORT_STS bits \[11:8\] for what the PHY reports.
    fn sts_bits(&self) -> u16 {
        if !self.link() {
            return 0;
        }
        let s = self.regs[PHY_STATUS];
        let speed = if s & PHY_STATUS_1000 != 0 {
            2
        } else if s & PHY_STATUS_100 != 0 {
            1
        } else {
            0
        };
        0x0800 | if s & PHY_STATUS_FULL != 0 { 0x0400 } else { 0 } | (speed << 8)
    }
}

impl ChipModel {
    /// Attach a Marvell-style PHY (link down) to every port that has one on the switch's
    /// PHY bus, at PHY address `phy_base + port`: the internal PHYs on chips with Global2
    /// PHY access, every port's PHY on the PPU-gated chips. Ports start with PORT_MAC_CTL
    /// "nothing forced" (0x0003).
    pub fn with_port_phys(mut self) -> Self {
        let base = self.map.phy_base;
        self.port_phys = (0..self.ports.len())
            .map(|p| {
                let p8 = p as u8;
                let has = match self.phy_access {
                    PhyKind::Global2 => self.map.has_internal_phy(p8),
                    _ => true,
                };
                has.then(|| PortPhy::new(base + p8))
            })
            .collect();
        self.polled = vec![0; self.ports.len()];
        for p in &mut self.ports {
            p[1] = 0x0003;
        }
        self
    }

    /// How long a software reset keeps INIT_READY low (default [`RESET_NS`]).
    pub fn with_reset_ns(mut self, ns: u64) -> Self {
        self.reset_ns = ns;
        self
    }

    /// Change the link of the PHY on `port` at `now_ns` (1000 Mb/s full duplex when up):
    /// its BMSR link bit and specific status, and its "link status changed" event if
    /// enabled. Returns `false` if the port has no modelled PHY
    /// ([`with_port_phys`](Self::with_port_phys)).
    pub fn set_link(&mut self, now_ns: u64, port: usize, up: bool) -> bool {
        self.set_link_mode(now_ns, port, up, PhySpeed::Mbps1000, true)
    }

    /// [`set_link`](Self::set_link) with a speed and duplex.
    pub fn set_link_mode(
        &mut self,
        now_ns: u64,
        port: usize,
        up: bool,
        speed: PhySpeed,
        full_duplex: bool,
    ) -> bool {
        self.settle(now_ns);
        match self.port_phys.get_mut(port).and_then(Option::as_mut) {
            Some(phy) => {
                phy.set_link(up, speed, full_duplex);
                true
            }
            None => false,
        }
    }

    /// The link of the modelled PHY on `port`; `None` without one.
    pub(super) fn port_phy_link(&self, port: usize) -> Option<bool> {
        self.port_phys.get(port)?.as_ref().map(|phy| phy.link())
    }

    /// Schedule a link change of the PHY on `port`: at the first frame at or after
    /// `at_ns`, as [`set_link`](Self::set_link) (for tests whose driver holds the bus).
    pub fn with_link_event(mut self, at_ns: u64, port: usize, up: bool) -> Self {
        self.link_events.push((at_ns, port, up));
        self
    }

    /// Apply the scheduled link changes that are due at `now`.
    fn apply_link_events(&mut self, now: u64) {
        let mut i = 0;
        while i < self.link_events.len() {
            let (at, port, up) = self.link_events[i];
            if at <= now {
                self.link_events.remove(i);
                if let Some(phy) = self.port_phys.get_mut(port).and_then(Option::as_mut) {
                    phy.set_link(up, PhySpeed::Mbps1000, true);
                }
            } else {
                i += 1;
            }
        }
    }

    /// Whether the switch's interrupt pin is asserted at `now_ns`: a G1_STS source
    /// enabled in G1_CTL1.
    pub fn irq_asserted(&self, now_ns: u64) -> bool {
        self.g1_sts_irq_bits(now_ns) & self.g1[usize::from(g1::CTL1)] & 0x01FF != 0
    }

    /// PPU_ENABLE transitions 1 → 0 seen so far (the host stopping the PPU).
    pub fn ppu_stops(&self) -> u64 {
        self.ppu_stops
    }

    /// PPU_ENABLE transitions 0 → 1 seen so far (the PPU restarted).
    pub fn ppu_starts(&self) -> u64 {
        self.ppu_starts
    }

    /// When PPU_ENABLE last went 0 → 1.
    pub fn ppu_last_start_ns(&self) -> Option<u64> {
        self.ppu_last_start_ns
    }

    /// Total virtual time, up to `now_ns`, that the host kept PPU_ENABLE clear after
    /// clearing it (from each 1 → 0 transition to the next 0 → 1): the time the PHY
    /// polling unit polled no PHY because of the host.
    pub fn ppu_off_ns(&self, now_ns: u64) -> u64 {
        let current = self
            .ppu_off_since
            .map_or(0, |since| now_ns.saturating_sub(since));
        self.ppu_off_ns.saturating_add(current)
    }

    /// Entry `ptr` (0..64) of the G1 MONITOR_MGMT_CTL table (6341, 6390 and 6393
    /// families), as the switch holds it.
    pub fn monitor_mgmt(&self, ptr: u8) -> u8 {
        self.monitor_mgmt.data[usize::from(ptr & 0x3F)]
    }

    /// Entry `ptr` (0..64) of port `port`'s POLICY_MGMT_CTL table (6393 family); `None`
    /// for a port the chip does not have.
    pub fn port_mgmt(&self, port: usize, ptr: u8) -> Option<u8> {
        self.port_mgmt
            .get(port)
            .map(|t| t.data[usize::from(ptr & 0x3F)])
    }

    /// Whether G1 0x1A is the indirect MONITOR_MGMT_CTL (6341, 6390, 6393 families).
    fn has_monitor_mgmt(&self) -> bool {
        matches!(
            self.map.family,
            LinuxFamily::F6341 | LinuxFamily::F6390 | LinuxFamily::F6393
        )
    }

    /// Whether the speed field needs FORCE_SPEED (6341, 6390, 6393 families).
    fn has_force_speed(&self) -> bool {
        self.has_monitor_mgmt()
    }

    /// A read of Global1 register `reg` if it is an indirect table here.
    pub(super) fn g1_mgmt_read(&self, reg: u8) -> Option<u16> {
        (reg == 0x1A && self.has_monitor_mgmt()).then(|| self.monitor_mgmt.read())
    }

    /// A write of Global1 register `reg`: `true` if the table took it.
    pub(super) fn g1_mgmt_written(&mut self, reg: u8, value: u16) -> bool {
        if reg != 0x1A || !self.has_monitor_mgmt() {
            return false;
        }
        self.monitor_mgmt.write(value);
        true
    }

    /// A read of port `p`'s register `reg` if it is the 6393 family's POLICY_MGMT_CTL.
    pub(super) fn port_mgmt_read(&self, p: usize, reg: u8) -> Option<u16> {
        if reg != 0x0E || self.map.family != LinuxFamily::F6393 {
            return None;
        }
        self.port_mgmt.get(p).map(MgmtTable::read)
    }

    /// A write of port `p`'s register `reg`: `true` if POLICY_MGMT_CTL took it.
    pub(super) fn port_mgmt_written(&mut self, p: usize, reg: u8, value: u16) -> bool {
        if reg != 0x0E || self.map.family != LinuxFamily::F6393 {
            return false;
        }
        match self.port_mgmt.get_mut(p) {
            Some(t) => {
                t.write(value);
                true
            }
            None => false,
        }
    }

    /// Software resets seen (G1_CTL1 writes with SW_RESET).
    pub fn resets(&self) -> u64 {
        self.resets
    }

    /// Read of a modelled port PHY's register, if `phy` is one.
    pub(super) fn port_phy_read(&mut self, phy: u8, reg: u8) -> Option<u16> {
        let d = self
            .port_phys
            .iter_mut()
            .flatten()
            .find(|d| d.addr == phy)?;
        let r = usize::from(reg & 0x1F);
        let v = d.regs[r];
        if r == IEVENT {
            d.regs[r] = 0;
        }
        Some(v)
    }

    /// Write to a modelled port PHY's register; `false` if `phy` is none.
    pub(super) fn port_phy_write(&mut self, phy: u8, reg: u8, value: u16) -> bool {
        match self.port_phys.iter_mut().flatten().find(|d| d.addr == phy) {
            Some(d) => {
                let r = usize::from(reg & 0x1F);
                if r != BMSR && r != PHY_STATUS && r != IEVENT && r != 0x02 && r != 0x03 {
                    d.regs[r] = value;
                }
                true
            }
            None => false,
        }
    }

    /// Whether the PPU polls the PHYs at `now` (PPU-gated chips: state polling; the
    /// others: always, once the switch is ready).
    fn ppu_polling(&self, now: u64) -> bool {
        let ready = self.init_ready_at_ns.is_some_and(|t| now >= t);
        match &self.ppu {
            Some(_) => self.ppu_state(now) == Some(PPU_STATE_POLLING),
            None => ready,
        }
    }

    /// The PPU's look at the PHYs (called at every frame).
    pub(super) fn ppu_poll(&mut self, now: u64) {
        self.apply_link_events(now);
        if self.port_phys.is_empty() || !self.ppu_polling(now) {
            return;
        }
        for (p, phy) in self.port_phys.iter().enumerate() {
            if let (Some(phy), Some(s)) = (phy, self.polled.get_mut(p)) {
                *s = phy.sts_bits();
            }
        }
    }

    /// PORT_STS of port `p` as read: the polled link overridden by PORT_MAC_CTL.
    pub(super) fn port_sts(&self, p: usize) -> u16 {
        let regs = &self.ports[p];
        let polled = self.polled.get(p).copied().unwrap_or(0);
        let mac = regs[1];
        let mut link = polled & 0x0800;
        let mut duplex = polled & 0x0400;
        let mut speed = polled & 0x0300;
        if mac & 0x0010 != 0 {
            link = if mac & 0x0020 != 0 { 0x0800 } else { 0 };
        }
        if mac & 0x0004 != 0 {
            duplex = if mac & 0x0008 != 0 { 0x0400 } else { 0 };
        }
        let forced = if self.has_force_speed() {
            mac & 0x2000 != 0
        } else {
            mac & 0x0003 != 0x0003
        };
        if forced {
            speed = (mac & 0x0003) << 8;
        }
        (regs[0] & !0x0F00) | link | duplex | speed
    }

    /// G2 INT_SRC: bit `n` = the line of the PHY at `phy_base + n` (internal PHYs on
    /// chips with Global2 PHY access).
    pub(super) fn g2_int_src(&self) -> u16 {
        if self.phy_access != PhyKind::Global2 {
            return 0;
        }
        let base = self.map.phy_base;
        let mut v = 0;
        for phy in self.port_phys.iter().flatten() {
            if let Some(n) = phy.addr.checked_sub(base)
                && n < 16
                && phy.line()
            {
                v |= 1 << n;
            }
        }
        v
    }

    /// The G1_STS bits this file models: bit 7 (device: an enabled G2 source) and, on
    /// chips without a gated PPU, the 6352-style PPU state bit 15 (polling once ready).
    pub(super) fn g1_sts_irq_bits(&self, now: u64) -> u16 {
        // The "done" events latched since the last G1_STS read (chip_model.rs).
        let mut v = self.g1_sts_latched;
        if self.g2_int_src() & self.g2[1] != 0 {
            v |= 1 << 7;
        }
        if self.ppu.is_none() && self.init_ready_at_ns.is_some_and(|t| now >= t) {
            v |= PPU_STATE_6352;
        }
        // ATU problem (3) and VTU problem (5): chip_model/atu.rs, vtu.rs.
        if self.atu_problem() {
            v |= 1 << 3;
        }
        if self.vtu_problem() {
            v |= 1 << 5;
        }
        v
    }

    /// A G1_CTL1 write `value` at `now`: counts PPU_ENABLE transitions, runs a software
    /// reset for SW_RESET; returns the value the register keeps.
    pub(super) fn g1_ctl1_written(&mut self, now: u64, value: u16) -> u16 {
        let enable = value & PPU_ENABLE != 0;
        if let Some(ppu) = &self.ppu
            && ppu.enabled != enable
        {
            if enable {
                self.ppu_starts += 1;
                self.ppu_last_start_ns = Some(now);
                if let Some(since) = self.ppu_off_since.take() {
                    self.ppu_off_ns = self.ppu_off_ns.saturating_add(now.saturating_sub(since));
                }
            } else {
                self.ppu_stops += 1;
                self.ppu_off_since = Some(now);
            }
        }
        if value & SW_RESET == 0 {
            return value;
        }
        self.resets += 1;
        self.g1_sts_latched = 0;
        let ready = now.saturating_add(self.reset_ns);
        self.init_ready_at_ns = Some(ready);
        for port in &mut self.ports {
            for (r, v) in port.iter_mut().enumerate() {
                if r != usize::from(PORT_SWITCH_ID) {
                    *v = 0;
                }
            }
            port[1] = 0x0003;
        }
        self.frame_path_reset();
        for s in &mut self.polled {
            *s = 0;
        }
        self.g2[1] = 0;
        self.monitor_mgmt = MgmtTable::default();
        for t in &mut self.port_mgmt {
            *t = MgmtTable::default();
        }
        if let Some(ppu) = &mut self.ppu {
            // The PPU restarts (PHY detection and initialization) after the reset.
            ppu.enabled = enable;
            let d = self.ppu_delay.take().unwrap_or(u64::MAX - ready);
            ppu.settle_at = ready.saturating_add(d);
        }
        value & !SW_RESET & !0x01FF
    }
}
