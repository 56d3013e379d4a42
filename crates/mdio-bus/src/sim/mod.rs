//! A behavioural MDIO bus in virtual time (feature `sim`, host only).
//!
//! [`SimMdio`] implements [`Mdio`] and [`Mdio45`]: each frame advances the shared
//! [`SimClock`] by its real duration at the configured MDC rate ([`frame_ns`]) and is
//! counted, so "MDIO operations per register access" and "time per switch probe" are
//! measurable (a Clause 45 access is two frames, both logged). What answers on the bus is
//! an [`MdioDevice`]: a PHY ([`PhyModel`]), a Clause 45 device ([`C45Model`]), a switch
//! model (in `mv88e6xxx-smi`), or anything a test writes.
//!
//! Clause 45 reaches a device frame by frame ([`MdioDevice::c45_address`],
//! [`c45_read`](MdioDevice::c45_read), [`c45_write`](MdioDevice::c45_write),
//! [`c45_read_inc`](MdioDevice::c45_read_inc)), as on the wire: the device keeps one
//! address register per MMD, which an address frame loads, so a master that skips the
//! address frame, or sends it to another MMD, reads the wrong register. The default bodies
//! answer as a Clause 22-only device does: reads 0xFFFF (nothing drives the line), writes
//! and addresses are ignored.
//!
//! Dead buses use hwtimer-core's dead-block kit: [`Dead`] is a device dead from the start
//! (every read returns its value, writes vanish; iterate
//! [`dead_values::<u16>()`](hwtimer_core::sim::dead_values) for the two values a dead
//! MDIO bus reads), and [`SimMdio::go_dead`] kills the bus mid-run, as
//! `SimBus::go_dead` does for a register block.

use core::convert::Infallible;

pub use hwtimer_core::sim::Dead;
use hwtimer_core::sim::SimClock;

use std::collections::BTreeMap;

use crate::{DevAddr, Mdio, Mdio45, PhyAddr, RegAddr, frame_ns};

/// Something that answers MDIO frames, in virtual time. `now_ns` is the time at which the
/// frame completes.
pub trait MdioDevice {
    /// A read frame addressed to `phy`/`reg`. Addresses nobody answers read as 0xFFFF
    /// (the bus idles high through its pull-up).
    fn read(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16;
    /// A write frame.
    fn write(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16);

    /// A Clause 45 address frame (OP 00): load `addr` into the address register of MMD
    /// `devad` at port `phy`. Default: ignored (a Clause 22-only device).
    fn c45_address(&mut self, now_ns: u64, phy: PhyAddr, devad: DevAddr, addr: u16) {
        let _ = (now_ns, phy, devad, addr);
    }

    /// A Clause 45 read frame (OP 11): the register of MMD `devad` at its address
    /// register. Default: 0xFFFF (nothing answers).
    fn c45_read(&mut self, now_ns: u64, phy: PhyAddr, devad: DevAddr) -> u16 {
        let _ = (now_ns, phy, devad);
        0xFFFF
    }

    /// A Clause 45 post-read-increment-address frame (OP 10): as
    /// [`c45_read`](Self::c45_read), then the MMD's address register advances by one.
    /// Default: 0xFFFF.
    fn c45_read_inc(&mut self, now_ns: u64, phy: PhyAddr, devad: DevAddr) -> u16 {
        let _ = (now_ns, phy, devad);
        0xFFFF
    }

    /// A Clause 45 write frame (OP 01): `value` into the register of MMD `devad` at its
    /// address register. Default: ignored.
    fn c45_write(&mut self, now_ns: u64, phy: PhyAddr, devad: DevAddr, value: u16) {
        let _ = (now_ns, phy, devad, value);
    }
}

/// What a logged frame was ([`Frame::op`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameOp {
    /// A Clause 22 read or write ([`Frame::reg`] is the register).
    C22,
    /// A Clause 45 address frame ([`Frame::reg`] carries the DEVAD, [`Frame::value`] the
    /// register address).
    C45Address,
    /// A Clause 45 read frame ([`Frame::reg`] carries the DEVAD).
    C45Read,
    /// A Clause 45 post-read-increment-address frame.
    C45ReadInc,
    /// A Clause 45 write frame ([`Frame::reg`] carries the DEVAD).
    C45Write,
}

/// One recorded frame (see [`SimMdio::log`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// `true` for a write.
    pub write: bool,
    /// Device address.
    pub phy: PhyAddr,
    /// Register (Clause 45 frames: the 5-bit DEVAD, which the frame carries in the same
    /// place).
    pub reg: RegAddr,
    /// Value read or written (a Clause 45 address frame: the register address).
    pub value: u16,
    /// Completion time.
    pub at_ns: u64,
    /// Clause 22, or which Clause 45 frame.
    pub op: FrameOp,
}

/// An MDIO bus master in virtual time; see the [module docs](self).
#[derive(Debug)]
pub struct SimMdio<D: MdioDevice> {
    clock: SimClock,
    frame_ns: u64,
    device: D,
    log: Vec<Frame>,
    /// `Some((n, v))`: read frames from the `n`-th (0-based) on return `v`.
    dead: Option<(u64, u16)>,
}

impl<D: MdioDevice> SimMdio<D> {
    /// A bus at `mdc_hz` with `device` on it.
    pub fn new(clock: &SimClock, mdc_hz: u32, device: D) -> Self {
        Self {
            clock: clock.clone(),
            frame_ns: frame_ns(mdc_hz),
            device,
            log: Vec::new(),
            dead: None,
        }
    }

    /// From now on (`Some(v)`) every read frame returns `v` whatever the device answers,
    /// as a bus whose data line is stuck (0xFFFF: nothing drives it, the pull-up wins;
    /// 0x0000: shorted); write frames still reach the device. `None` revives the bus.
    /// Frames still take their time and are logged (with the value the master saw).
    pub fn go_dead(&mut self, value: Option<u16>) {
        self.dead = value.map(|v| (self.frames(), v));
    }

    /// As [`go_dead`](Self::go_dead)`(Some(value))`, but only after `frames` more frames:
    /// the bus dies in the middle of whatever a driver that holds it (`&mut bus`) is doing.
    pub fn go_dead_after(&mut self, frames: u64, value: u16) {
        self.dead = Some((self.frames().saturating_add(frames), value));
    }

    /// Frames so far.
    pub fn frames(&self) -> u64 {
        self.log.len() as u64
    }

    /// Every frame so far, in order.
    pub fn log(&self) -> &[Frame] {
        &self.log
    }

    /// Forget the frame log.
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    /// The device on the bus.
    pub fn device(&mut self) -> &mut D {
        &mut self.device
    }

    /// The clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Duration of one frame, in ns.
    pub fn frame_duration_ns(&self) -> u64 {
        self.frame_ns
    }
}

impl<D: MdioDevice> Mdio for SimMdio<D> {
    type Error = Infallible;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Infallible> {
        self.clock.advance(self.frame_ns);
        let at_ns = self.clock.now_ns();
        let mut value = self.device.read(at_ns, phy, reg);
        if let Some((from, dead)) = self.dead
            && self.frames() >= from
        {
            value = dead;
        }
        self.log.push(Frame {
            write: false,
            phy,
            reg,
            value,
            at_ns,
            op: FrameOp::C22,
        });
        Ok(value)
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Infallible> {
        self.clock.advance(self.frame_ns);
        let at_ns = self.clock.now_ns();
        self.device.write(at_ns, phy, reg, value);
        self.log.push(Frame {
            write: true,
            phy,
            reg,
            value,
            at_ns,
            op: FrameOp::C22,
        });
        Ok(())
    }
}

impl<D: MdioDevice> SimMdio<D> {
    /// One Clause 45 frame: charged, delivered to the device, logged; a read frame on a
    /// dead bus returns the dead value.
    fn c45_frame(&mut self, op: FrameOp, phy: PhyAddr, devad: DevAddr, value: u16) -> u16 {
        self.clock.advance(self.frame_ns);
        let at_ns = self.clock.now_ns();
        let mut v = match op {
            FrameOp::C45Address => {
                self.device.c45_address(at_ns, phy, devad, value);
                value
            }
            FrameOp::C45Write => {
                self.device.c45_write(at_ns, phy, devad, value);
                value
            }
            FrameOp::C45ReadInc => self.device.c45_read_inc(at_ns, phy, devad),
            FrameOp::C45Read | FrameOp::C22 => self.device.c45_read(at_ns, phy, devad),
        };
        let write = matches!(op, FrameOp::C45Address | FrameOp::C45Write);
        if let Some((from, dead)) = self.dead
            && self.frames() >= from
            && !write
        {
            v = dead;
        }
        self.log.push(Frame {
            write,
            phy,
            reg: RegAddr::from_bits(devad.get()),
            value: v,
            at_ns,
            op,
        });
        v
    }

    /// A Clause 45 post-read-increment-address read of MMD `devad` at `phy` (one frame,
    /// no address frame): the register at the MMD's current address, which then advances.
    /// For tests of devices and masters that use OP 10; [`Mdio45`] never sends it.
    pub fn read_c45_inc(&mut self, phy: PhyAddr, devad: DevAddr) -> u16 {
        self.c45_frame(FrameOp::C45ReadInc, phy, devad, 0)
    }
}

/// Two frames per access, address then data ([`Mdio45`]'s contract), each charged
/// [`frame_ns`] and logged.
impl<D: MdioDevice> Mdio45 for SimMdio<D> {
    fn read_c45(&mut self, phy: PhyAddr, devad: DevAddr, reg: u16) -> Result<u16, Infallible> {
        self.c45_frame(FrameOp::C45Address, phy, devad, reg);
        Ok(self.c45_frame(FrameOp::C45Read, phy, devad, 0))
    }

    fn write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Infallible> {
        self.c45_frame(FrameOp::C45Address, phy, devad, reg);
        self.c45_frame(FrameOp::C45Write, phy, devad, value);
        Ok(())
    }
}

/// A bus on which nothing answers (or everything reads the same): every read returns the
/// value held, every write vanishes.
impl MdioDevice for Dead<u16> {
    fn read(&mut self, _now_ns: u64, _phy: PhyAddr, _reg: RegAddr) -> u16 {
        self.0
    }

    fn write(&mut self, _now_ns: u64, _phy: PhyAddr, _reg: RegAddr, _value: u16) {}

    fn c45_read(&mut self, _now_ns: u64, _phy: PhyAddr, _devad: DevAddr) -> u16 {
        self.0
    }

    fn c45_read_inc(&mut self, _now_ns: u64, _phy: PhyAddr, _devad: DevAddr) -> u16 {
        self.0
    }
}

/// A Clause 22 PHY with 32 plain registers at one address; other addresses read 0xFFFF.
#[derive(Debug, Clone)]
pub struct PhyModel {
    addr: PhyAddr,
    regs: [u16; 32],
}

impl PhyModel {
    /// A PHY at `addr` with all registers zero.
    pub fn new(addr: PhyAddr) -> Self {
        Self {
            addr,
            regs: [0; 32],
        }
    }

    /// The Broadcom BCM54612E as QEMU's npcm750-evb exposes it (BMCR 0x1140, BMSR 0x790d,
    /// PHYID 0x0362/0x5e6a, from QEMU's `hw/net/npcm_gmac.c`).
    pub fn bcm54612e(addr: PhyAddr) -> Self {
        let mut p = Self::new(addr);
        p.regs[0] = 0x1140;
        p.regs[1] = 0x790d;
        p.regs[2] = 0x0362;
        p.regs[3] = 0x5e6a;
        p
    }

    /// Set a register.
    pub fn with(mut self, reg: RegAddr, value: u16) -> Self {
        self.regs[usize::from(reg.get())] = value;
        self
    }
}

impl MdioDevice for PhyModel {
    fn read(&mut self, _now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        if phy != self.addr {
            return 0xFFFF;
        }
        self.regs[usize::from(reg.get())]
    }

    fn write(&mut self, _now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        if phy == self.addr {
            self.regs[usize::from(reg.get())] = value;
        }
    }
}

/// A Clause 45 device at one port address (a PHY's MMDs, a SERDES lane): 16-bit registers
/// per (MMD, register), one address register per MMD that address frames load and
/// post-read-increment frames advance (wrapping at 0xFFFF), IEEE 802.3 clause 45.
///
/// Model assumptions (not from a datasheet): an MMD with at least one register set
/// ([`with`](Self::with)) is present, and its registers never set read 0x0000; an MMD
/// with none, another port address, and every Clause 22 frame read 0xFFFF (nothing drives
/// the line); registers are plain storage (no latching status bits, no self-clearing
/// resets, nothing read-only).
#[derive(Debug, Clone)]
pub struct C45Model {
    addr: PhyAddr,
    regs: BTreeMap<(u8, u16), u16>,
    address: [u16; 32],
    frames: u64,
}

impl C45Model {
    /// A device at port address `addr` with no MMD present.
    pub fn new(addr: PhyAddr) -> Self {
        Self {
            addr,
            regs: BTreeMap::new(),
            address: [0; 32],
            frames: 0,
        }
    }

    /// A Marvell 88E6393X SERDES lane at `addr` (the lane address is the port number: 0x00,
    /// 0x09 or 0x0a), its registers in MMD 4 (PHY XS) where Linux's
    /// `drivers/net/dsa/mv88e6xxx/serdes.h` puts them: the 1000BASE-X/SGMII block as Clause 22
    /// registers at 0x2000 + n (BMCR 0x2000, BMSR 0x2001, ADVERTISE 0x2004, LPA 0x2005),
    /// the SGMII PHY status at 0xA003, the 10GBASE-R block at 0x1000 + n (CTRL1 0x1000, STAT1
    /// 0x1001) and the port operational configuration (POC) at 0xF002.
    ///
    /// The values are this model's assumption, not reset values from a datasheet: a
    /// 1000BASE-X link that is up and negotiated (BMCR 0x1140, BMSR 0x012C, ADVERTISE
    /// 0x0020, LPA 0x4020; PHY status 0xAC00: 1000 Mb/s, full duplex, speed/duplex valid,
    /// link; POC 0x0008: PCS 1000BASE-X with autonegotiation), 10GBASE-R CTRL1 0x2040,
    /// STAT1 0x0000 (10G link down).
    pub fn mv88e6393x_serdes_lane(addr: PhyAddr) -> Self {
        let phyxs = DevAddr::PHYXS;
        Self::new(addr)
            .with(phyxs, 0x2000, 0x1140)
            .with(phyxs, 0x2001, 0x012C)
            .with(phyxs, 0x2004, 0x0020)
            .with(phyxs, 0x2005, 0x4020)
            .with(phyxs, 0xA003, 0xAC00)
            .with(phyxs, 0x1000, 0x2040)
            .with(phyxs, 0x1001, 0x0000)
            .with(phyxs, 0xF002, 0x0008)
    }

    /// Set register `reg` of MMD `devad` (making the MMD present).
    pub fn with(mut self, devad: DevAddr, reg: u16, value: u16) -> Self {
        self.regs.insert((devad.get(), reg), value);
        self
    }

    /// Register `reg` of MMD `devad` as the model holds it (`None`: never set).
    pub fn reg(&self, devad: DevAddr, reg: u16) -> Option<u16> {
        self.regs.get(&(devad.get(), reg)).copied()
    }

    /// The address register of MMD `devad` (what the last address frame loaded).
    pub fn address(&self, devad: DevAddr) -> u16 {
        self.address[usize::from(devad.get())]
    }

    /// Clause 45 frames addressed to this device so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    fn present(&self, devad: DevAddr) -> bool {
        self.regs.keys().any(|&(d, _)| d == devad.get())
    }

    fn current(&self, devad: DevAddr) -> u16 {
        if !self.present(devad) {
            return 0xFFFF;
        }
        let at = self.address(devad);
        self.regs.get(&(devad.get(), at)).copied().unwrap_or(0)
    }
}

impl MdioDevice for C45Model {
    fn read(&mut self, _now_ns: u64, _phy: PhyAddr, _reg: RegAddr) -> u16 {
        0xFFFF
    }

    fn write(&mut self, _now_ns: u64, _phy: PhyAddr, _reg: RegAddr, _value: u16) {}

    fn c45_address(&mut self, _now_ns: u64, phy: PhyAddr, devad: DevAddr, addr: u16) {
        if phy == self.addr {
            self.frames += 1;
            self.address[usize::from(devad.get())] = addr;
        }
    }

    fn c45_read(&mut self, _now_ns: u64, phy: PhyAddr, devad: DevAddr) -> u16 {
        if phy != self.addr {
            return 0xFFFF;
        }
        self.frames += 1;
        self.current(devad)
    }

    fn c45_read_inc(&mut self, _now_ns: u64, phy: PhyAddr, devad: DevAddr) -> u16 {
        if phy != self.addr {
            return 0xFFFF;
        }
        self.frames += 1;
        let v = self.current(devad);
        let a = &mut self.address[usize::from(devad.get())];
        *a = a.wrapping_add(1);
        v
    }

    fn c45_write(&mut self, _now_ns: u64, phy: PhyAddr, devad: DevAddr, value: u16) {
        if phy != self.addr || !self.present(devad) {
            return;
        }
        self.frames += 1;
        let at = self.address(devad);
        self.regs.insert((devad.get(), at), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cost_their_duration_and_are_logged() {
        let clock = SimClock::new();
        let phy = PhyAddr::new(1).unwrap();
        let mut bus = SimMdio::new(&clock, 2_500_000, PhyModel::new(phy));
        let r4 = RegAddr::new(4).unwrap();
        bus.write(phy, r4, 0x01e1).unwrap();
        assert_eq!(bus.read(phy, r4).unwrap(), 0x01e1);
        assert_eq!(bus.read(PhyAddr::new(2).unwrap(), r4).unwrap(), 0xFFFF);
        assert_eq!(bus.frames(), 3);
        assert_eq!(clock.now_ns(), 3 * 25_600);
        assert!(bus.log()[0].write && !bus.log()[1].write);
    }

    #[test]
    fn a_c45_access_is_an_address_frame_then_a_data_frame() {
        let clock = SimClock::new();
        let lane = PhyAddr::new(9).unwrap();
        let phyxs = DevAddr::PHYXS;
        let mut bus = SimMdio::new(&clock, 2_500_000, C45Model::mv88e6393x_serdes_lane(lane));
        assert_eq!(bus.read_c45(lane, phyxs, 0xA003), Ok(0xAC00));
        assert_eq!(bus.frames(), 2);
        assert_eq!(clock.now_ns(), crate::c45_access_ns(2_500_000));
        let ops: Vec<_> = bus
            .log()
            .iter()
            .map(|f| (f.op, f.reg.get(), f.value))
            .collect();
        assert_eq!(
            ops,
            [
                (FrameOp::C45Address, 4, 0xA003),
                (FrameOp::C45Read, 4, 0xAC00)
            ]
        );
        bus.write_c45(lane, phyxs, 0xF002, 0x0005).unwrap();
        assert_eq!(bus.device().reg(phyxs, 0xF002), Some(0x0005));
        assert_eq!(bus.read_c45(lane, phyxs, 0xF002), Ok(0x0005));
        // Another MMD, another port, and a Clause 22 frame: nothing answers.
        assert_eq!(bus.read_c45(lane, DevAddr::PCS, 0xF002), Ok(0xFFFF));
        assert_eq!(
            bus.read_c45(PhyAddr::new(10).unwrap(), phyxs, 0xF002),
            Ok(0xFFFF)
        );
        assert_eq!(bus.read(lane, RegAddr::from_bits(2)), Ok(0xFFFF));
        assert_eq!(bus.frames(), 11);
    }

    #[test]
    fn the_address_register_is_per_mmd_and_post_read_increments() {
        let clock = SimClock::new();
        let p = PhyAddr::new(0).unwrap();
        let (a, b) = (DevAddr::PMA_PMD, DevAddr::AN);
        let dev = C45Model::new(p)
            .with(a, 0x0002, 0x0141)
            .with(a, 0x0003, 0x0DD0)
            .with(b, 0x0002, 0x7777);
        let mut bus = SimMdio::new(&clock, 2_500_000, dev);
        bus.read_c45(p, a, 0x0002).unwrap();
        bus.read_c45(p, b, 0x0002).unwrap();
        // MMD 1 still points at 0x0002: two post-read-increment reads walk 2, 3.
        assert_eq!(bus.read_c45_inc(p, a), 0x0141);
        assert_eq!(bus.read_c45_inc(p, a), 0x0DD0);
        assert_eq!(bus.device().address(a), 0x0004);
        assert_eq!(bus.device().address(b), 0x0002);
        // A read frame without a new address frame reads where the MMD points.
        assert_eq!(bus.read_c45_inc(p, b), 0x7777);
    }

    #[test]
    fn a_dead_bus_reads_its_value_on_c45_too() {
        let clock = SimClock::new();
        let p = PhyAddr::new(0).unwrap();
        let mut bus = SimMdio::new(&clock, 2_500_000, C45Model::mv88e6393x_serdes_lane(p));
        bus.go_dead(Some(0x0000));
        assert_eq!(bus.read_c45(p, DevAddr::PHYXS, 0xA003), Ok(0x0000));
        // The Clause 22 default bodies: PhyModel answers no Clause 45 frame.
        let mut phy = SimMdio::new(&clock, 2_500_000, PhyModel::bcm54612e(p));
        assert_eq!(phy.read_c45(p, DevAddr::PMA_PMD, 2), Ok(0xFFFF));
        let mut dead = SimMdio::new(&clock, 2_500_000, Dead(0x1234u16));
        assert_eq!(dead.read_c45(p, DevAddr::PMA_PMD, 2), Ok(0x1234));
    }

    #[test]
    fn a_dead_device_reads_its_value_and_drops_writes() {
        let clock = SimClock::new();
        let (phy, reg) = (PhyAddr::from_bits(3), RegAddr::from_bits(9));
        for (value, name) in hwtimer_core::sim::dead_values::<u16>() {
            let mut bus = SimMdio::new(&clock, 2_500_000, Dead(value));
            bus.write(phy, reg, !value).unwrap();
            assert_eq!(bus.read(phy, reg), Ok(value), "{name}");
            assert_eq!(bus.frames(), 2, "{name}");
        }
    }

    #[test]
    fn a_bus_that_goes_dead_reads_its_value_but_writes_still_land() {
        let clock = SimClock::new();
        let phy = PhyAddr::from_bits(1);
        let r4 = RegAddr::from_bits(4);
        let mut bus = SimMdio::new(&clock, 2_500_000, PhyModel::new(phy).with(r4, 0x1234));
        bus.go_dead(Some(0xFFFF));
        assert_eq!(bus.read(phy, r4), Ok(0xFFFF));
        assert_eq!(bus.log()[0].value, 0xFFFF);
        bus.write(phy, r4, 0x0042).unwrap();
        bus.go_dead(None);
        assert_eq!(bus.read(phy, r4), Ok(0x0042));
        assert_eq!(clock.now_ns(), 3 * 25_600);
        // Two more frames live, then dead.
        bus.go_dead_after(2, 0x0000);
        assert_eq!(bus.read(phy, r4), Ok(0x0042));
        bus.write(phy, r4, 0x0043).unwrap();
        assert_eq!(bus.read(phy, r4), Ok(0x0000));
        bus.go_dead(None);
        assert_eq!(bus.read(phy, r4), Ok(0x0043));
    }
}
