//! Linux's ATU add and VTU load, register by register, replayed on the model (feature
//! `unstable-baselines`: for this crate's `switch_ops` bench; not part of the public API,
//! no semver promise), and the same work by this crate's driver.
//!
//! The sequences are facts from Linux's `global1_atu.c` (`mv88e6xxx_g1_atu_loadpurge` on a
//! 4096-database chip) and `global1_vtu.c` (`mv88e6352_g1_vtu_loadpurge`), at the Global1
//! level (the `chip.c` callers add a VTU lookup and an ATU GetNext before a load; they are
//! not replayed): BUSY wait, data registers, FID, operation, BUSY wait. Linux's register
//! access is replayed as it is: in indirect mode [`LegacySmi`] with
//! [`LegacyPoll::Patch1`] (SMI_CMD BUSY polled before and after each command, 4 frames per
//! access), in direct mode one frame per access.

use mdio_bus::sim::SimMdio;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use super::seed::{Cost, LegacyPoll, LegacySmi, LegacyTimeout, MeasureError};
use super::{Attach, ChipModel, SwitchModel, SwitchSim};
use crate::atu::{AtuEntry, MacAddr};
use crate::chip::Chip;
use crate::vtu::{Member, VtuEntry};
use crate::{Addressing, Config, Switch};

/// Global1's device address on the 6352 (Linux `chip.c` `mv88e6xxx_table[]`
/// `global1_addr`).
const G1: u8 = 0x1B;

/// The Global1 registers Linux's sequences touch (Linux v6.x
/// `drivers/net/dsa/mv88e6xxx/global1.h`, `MV88E6XXX_G1_*` / `MV88E6352_G1_*`; this
/// baseline's own numbers, not the driver's), and the operation registers' BUSY bit
/// (`MV88E6XXX_G1_ATU_OP_BUSY`, `MV88E6XXX_G1_VTU_OP_BUSY`).
mod g1 {
    pub(super) const VTU_FID: u8 = 0x02;
    pub(super) const VTU_SID: u8 = 0x03;
    pub(super) const VTU_OP: u8 = 0x05;
    pub(super) const VTU_VID: u8 = 0x06;
    pub(super) const VTU_DATA1: u8 = 0x07;
    pub(super) const VTU_DATA2: u8 = 0x08;
    pub(super) const VTU_DATA3: u8 = 0x09;
    pub(super) const ATU_FID: u8 = 0x01;
    pub(super) const ATU_OP: u8 = 0x0B;
    pub(super) const ATU_DATA: u8 = 0x0C;
    pub(super) const ATU_MAC01: u8 = 0x0D;
    pub(super) const ATU_MAC23: u8 = 0x0E;
    pub(super) const ATU_MAC45: u8 = 0x0F;
}
const BUSY: u16 = 0x8000;

/// Who does the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// Linux's register sequence.
    Linux,
    /// This crate's [`Switch`].
    ThisCrate,
}

/// What is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchOp {
    /// A static unicast ATU entry in FID 1.
    AtuAdd,
    /// A VLAN with three member ports.
    VtuLoad,
}

/// The `i`-th ATU entry and VLAN of a workload.
fn atu_entry(i: u32) -> AtuEntry {
    let [_, a, b, c] = i.to_be_bytes();
    AtuEntry::new_static(1, MacAddr([0x02, 0, 0, a, b, c]), 0b10)
}

fn vlan(i: u32) -> VtuEntry {
    VtuEntry::new(1 + (i % 4000) as u16, 1)
        .with_member(0, Member::Untagged)
        .with_member(1, Member::Untagged)
        .with_member(5, Member::Tagged)
}

/// A register access the way Linux makes it.
enum Link<'a> {
    Direct(&'a mut SimMdio<SwitchModel>),
    Indirect(LegacySmi<'a, SwitchModel>),
}

impl Link<'_> {
    fn read(&mut self, reg: u8) -> Result<u16, LegacyTimeout> {
        match self {
            Link::Direct(bus) => Ok(
                match bus.read(PhyAddr::from_bits(G1), RegAddr::from_bits(reg)) {
                    Ok(v) => v,
                    Err(never) => match never {},
                },
            ),
            Link::Indirect(l) => l.read(G1, reg),
        }
    }

    fn write(&mut self, reg: u8, v: u16) -> Result<(), LegacyTimeout> {
        match self {
            Link::Direct(bus) => {
                match bus.write(PhyAddr::from_bits(G1), RegAddr::from_bits(reg), v) {
                    Ok(()) => Ok(()),
                    Err(never) => match never {},
                }
            }
            Link::Indirect(l) => l.write(G1, reg, v),
        }
    }

    /// `mv88e6xxx_g1_wait_bit(reg, 15, 0)`: read until BUSY is clear (the model clears
    /// it within one access; bounded here at 1000 reads).
    fn wait(&mut self, reg: u8) -> Result<(), LegacyTimeout> {
        for _ in 0..1000 {
            if self.read(reg)? & BUSY == 0 {
                return Ok(());
            }
        }
        Err(LegacyTimeout)
    }

    fn atu_loadpurge(&mut self, e: &AtuEntry) -> Result<(), LegacyTimeout> {
        self.wait(g1::ATU_OP)?;
        let [a, b, c, d, f, g] = e.mac.octets();
        self.write(g1::ATU_MAC01, u16::from_be_bytes([a, b]))?;
        self.write(g1::ATU_MAC23, u16::from_be_bytes([c, d]))?;
        self.write(g1::ATU_MAC45, u16::from_be_bytes([f, g]))?;
        self.write(g1::ATU_DATA, (e.ports << 4) | 0xE)?;
        self.write(g1::ATU_FID, e.fid & 0xFFF)?;
        self.write(g1::ATU_OP, BUSY | 0x3000)?;
        self.wait(g1::ATU_OP)
    }

    fn vtu_loadpurge_6352(&mut self, e: &VtuEntry) -> Result<(), LegacyTimeout> {
        self.wait(g1::VTU_OP)?;
        self.write(g1::VTU_VID, 0x1000 | e.vid)?;
        let mut regs = [0u16; 3];
        for (i, m) in e.members.iter().enumerate().take(7) {
            let code = match m {
                Member::Unmodified => 0,
                Member::Untagged => 1,
                Member::Tagged => 2,
                Member::NonMember => 3,
            };
            regs[i / 4] |= code << ((i % 4) * 4);
        }
        for (r, v) in [g1::VTU_DATA1, g1::VTU_DATA2, g1::VTU_DATA3]
            .into_iter()
            .zip(regs)
        {
            self.write(r, v)?;
        }
        self.write(g1::VTU_FID, e.fid)?;
        self.write(g1::VTU_SID, u16::from(e.sid))?;
        self.write(g1::VTU_OP, BUSY | 0x3000)?;
        self.wait(g1::VTU_OP)
    }
}

/// Frames and virtual time of `n` operations `op` by `who` on a 6352, in indirect mode at
/// `sw_addr` 2 (`indirect`) or in direct mode. Set-up (attach) is excluded.
pub fn measure(who: Who, op: SwitchOp, indirect: bool, n: u32) -> Result<Cost, MeasureError> {
    let attach = if indirect {
        Attach::Indirect(2)
    } else {
        Attach::Direct
    };
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, attach));
    let sw = PhyAddr::from_bits(2);
    if who == Who::ThisCrate {
        let a = if indirect {
            Addressing::Indirect {
                sw_addr: sw,
                remap_6393x: false,
            }
        } else {
            Addressing::Direct
        };
        let mut smi = Switch::new(&mut sim.bus, &sim.counter, a, Chip::Mv6352, Config::new())?;
        let (f0, t0) = (smi.frames(), sim.clock.now_ns());
        for i in 0..n {
            match op {
                SwitchOp::AtuAdd => smi.atu_load(&atu_entry(i))?,
                SwitchOp::VtuLoad => smi.vtu_load(&vlan(i))?,
            }
        }
        return Ok(Cost {
            frames: smi.frames() - f0,
            ns: sim.clock.now_ns() - t0,
        });
    }
    let t0 = sim.clock.now_ns();
    let f0 = sim.bus.frames();
    {
        let mut link = if indirect {
            Link::Indirect(LegacySmi::new(
                &mut sim.bus,
                &sim.counter,
                sw,
                LegacyPoll::Patch1,
            ))
        } else {
            Link::Direct(&mut sim.bus)
        };
        for i in 0..n {
            match op {
                SwitchOp::AtuAdd => link.atu_loadpurge(&atu_entry(i))?,
                SwitchOp::VtuLoad => link.vtu_loadpurge_6352(&vlan(i))?,
            }
        }
    }
    Ok(Cost {
        frames: sim.bus.frames() - f0,
        ns: sim.clock.now_ns() - t0,
    })
}
