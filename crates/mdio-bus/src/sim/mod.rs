//! A behavioural MDIO bus in virtual time (feature `sim`, host only).
//!
//! [`SimMdio`] implements [`Mdio`]: each frame advances the shared
//! [`SimClock`] by its real duration at the configured MDC rate ([`frame_ns`]) and is
//! counted, so "MDIO operations per register access" and "time per switch probe" are
//! measurable. What answers on the bus is an [`MdioDevice`]: a PHY ([`PhyModel`]), a switch
//! model (in `mv88e6xxx-smi`), or anything a test writes.
//!
//! Dead buses use hwtimer-core's dead-block kit: [`Dead`] is a device dead from the start
//! (every read returns its value, writes vanish; iterate
//! [`dead_values::<u16>()`](hwtimer_core::sim::dead_values) for the two values a dead
//! MDIO bus reads), and [`SimMdio::go_dead`] kills the bus mid-run, as
//! `SimBus::go_dead` does for a register block.

use core::convert::Infallible;

pub use hwtimer_core::sim::Dead;
use hwtimer_core::sim::SimClock;

use crate::{Mdio, PhyAddr, RegAddr, frame_ns};

/// Something that answers MDIO frames, in virtual time. `now_ns` is the time at which the
/// frame completes.
pub trait MdioDevice {
    /// A read frame addressed to `phy`/`reg`. Addresses nobody answers read as 0xFFFF
    /// (the bus idles high through its pull-up).
    fn read(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16;
    /// A write frame.
    fn write(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16);
}

/// One recorded frame (see [`SimMdio::log`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// `true` for a write.
    pub write: bool,
    /// Device address.
    pub phy: PhyAddr,
    /// Register.
    pub reg: RegAddr,
    /// Value read or written.
    pub value: u16,
    /// Completion time.
    pub at_ns: u64,
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
        });
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
