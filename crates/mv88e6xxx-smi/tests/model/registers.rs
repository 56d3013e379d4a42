//! The switch model against docs/mv88e6xxx.md through raw MDIO frames (no driver).

use crate::common::{p, r};
use mdio_bus::Mdio;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::regs::{BUSY, C22Op, INIT_READY, smi_cmd};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchModel, SwitchSim};

#[test]
fn indirect_busy_clears_after_its_delay_and_data_lands_then() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_revision(2)
            .with_smi_busy(BusyDelay::fixed(60_000)),
    );
    let b = &mut sim.bus;
    assert_eq!(b.read(p(3), r(0)).unwrap(), 0xFFFF); // only sw_addr answers
    b.write(p(2), r(0), smi_cmd(C22Op::Read, 0x10, 3)).unwrap();
    // 25.6 and 51.2 µs later: still busy, SMI_DATA still stale.
    assert_ne!(b.read(p(2), r(0)).unwrap() & BUSY, 0);
    assert_eq!(b.read(p(2), r(1)).unwrap(), 0);
    // Now clear, and the PORT_SWITCH_ID has landed.
    assert_eq!(b.read(p(2), r(0)).unwrap() & BUSY, 0);
    assert_eq!(b.read(p(2), r(1)).unwrap(), 0x3522);
}

#[test]
fn writes_while_busy_are_dropped_and_counted() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(BusyDelay::fixed(100_000)),
    );
    let b = &mut sim.bus;
    b.write(p(2), r(1), 0x00AA).unwrap();
    b.write(p(2), r(0), smi_cmd(C22Op::Write, 0x10, 4)).unwrap();
    b.write(p(2), r(1), 0x00BB).unwrap(); // dropped
    b.write(p(2), r(0), smi_cmd(C22Op::Write, 0x11, 4)).unwrap(); // dropped
    let chip = b.device().chip(0).unwrap();
    assert_eq!(chip.dropped_writes(), 2);
    assert_eq!(chip.smi_commands(), 1);
    assert_eq!(chip.port_reg(0, 4), Some(0x00AA));
    assert_eq!(chip.port_reg(1, 4), Some(0));
}

#[test]
fn remap_6393x_exposes_g1_sts_at_4_and_atu_fid_at_9() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)));
    let b = &mut sim.bus;
    assert_ne!(b.read(p(2), r(0x04)).unwrap() & INIT_READY, 0); // G1_STS
    b.write(p(2), r(0x09), 0x0123).unwrap(); // G1_ATU_FID (G1 reg 0x01)
    assert_eq!(b.device().chip(0).unwrap().g1_reg(0x01), 0x0123);
    // A G1 ATU op through the remap runs with BUSY (default 20 µs).
    b.write(p(2), r(0x0B), 0x9000).unwrap();
    let v = b.read(p(2), r(0x0B)).unwrap();
    assert_eq!(v & 0x7000, 0x1000);
    // Not a 6393X: the same registers do not answer.
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Indirect(2)));
    assert_eq!(sim.bus.read(p(2), r(0x04)).unwrap(), 0xFFFF);
}

#[test]
fn dual_chip_and_direct_layouts() {
    let mut sim = SwitchSim::new(
        SwitchModel::new().with_chip(ChipModel::new(Chip::Mv6220, Attach::DualChip(16))),
    );
    let b = &mut sim.bus;
    assert_eq!(b.read(p(16 + 0x08), r(3)).unwrap(), 0x2200); // port 0 at 0x08
    assert_ne!(b.read(p(16 + 0x0F), r(0)).unwrap() & INIT_READY, 0); // Global1 at 0x0F
    assert_eq!(b.read(p(0x08), r(3)).unwrap(), 0xFFFF); // lower half is not ours

    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6085, Attach::Direct).with_init_ready_at(Some(1_000_000)),
    );
    let b = &mut sim.bus;
    assert_eq!(b.read(p(0x19), r(3)).unwrap(), 0x04A0); // port 9 (the last of 10) at 0x19
    assert_eq!(b.read(p(0x1A), r(3)).unwrap(), 0xFFFF); // the 6085 has no port 10
    assert_eq!(b.read(p(0x1B), r(0)).unwrap() & INIT_READY, 0); // not yet ready
    b.write(p(0x10), r(3), 0).unwrap(); // PORT_SWITCH_ID is read-only
    assert_eq!(b.read(p(0x10), r(3)).unwrap(), 0x04A0);
}

#[test]
fn stuck_busy_never_clears() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(BusyDelay::stuck()),
    );
    let b = &mut sim.bus;
    assert_eq!(b.read(p(2), r(0)).unwrap() & BUSY, 0); // idle at reset
    b.write(p(2), r(0), smi_cmd(C22Op::Read, 0x10, 3)).unwrap();
    sim.clock.advance(10_000_000_000);
    assert_ne!(sim.bus.read(p(2), r(0)).unwrap() & BUSY, 0);
}

#[test]
fn ppu_owns_the_phy_bus_until_disabled_and_host_accesses_collide() {
    use mv88e6xxx_smi::regs::{PPU_ENABLE, PPU_STATE_DISABLED, PPU_STATE_MASK, PPU_STATE_POLLING};
    use mv88e6xxx_smi::sim::PhyModel;
    // A 6185 in single-chip mode: its PHYs are switch devices 0x00.., the PPU polls them.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Direct).with_phy(PhyModel::bcm54612e(p(2))),
    );
    let b = &mut sim.bus;
    assert_eq!(b.read(p(0x1B), r(0x04)).unwrap() & PPU_ENABLE, PPU_ENABLE);
    assert_eq!(
        b.read(p(0x1B), r(0)).unwrap() & PPU_STATE_MASK,
        PPU_STATE_POLLING
    );
    // While the PPU polls, the host's PHY read collides: garbage, counted.
    assert_eq!(b.read(p(2), r(2)).unwrap(), 0xFFFF);
    b.write(p(2), r(4), 0x01e1).unwrap(); // lost
    assert_eq!(b.device().chip(0).unwrap().ppu_collisions(), 2);
    // Disable it; the state changes 20 µs later (the next frame sees it).
    b.write(p(0x1B), r(0x04), 0).unwrap();
    assert_eq!(
        b.read(p(0x1B), r(0)).unwrap() & PPU_STATE_MASK,
        PPU_STATE_DISABLED
    );
    assert_eq!(b.read(p(2), r(2)).unwrap(), 0x0362);
    assert_eq!(
        b.read(p(2), r(4)).unwrap(),
        0,
        "the collided write was lost"
    );
    // Re-enabled: initializing, then polling again; the bus is the PPU's.
    b.write(p(0x1B), r(0x04), PPU_ENABLE).unwrap();
    assert_eq!(
        b.read(p(0x1B), r(0)).unwrap() & PPU_STATE_MASK,
        PPU_STATE_POLLING
    );
    assert_eq!(b.read(p(2), r(2)).unwrap(), 0xFFFF);
    assert_eq!(b.device().chip(0).unwrap().ppu_collisions(), 3);
    // Chips with Global2 PHY access have no PPU to stop, and their PHYs are not devices
    // in multi-chip mode; chips without it have no SMI_PHY unit (plain registers).
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)));
    let b = &mut sim.bus;
    b.write(p(2), r(1), 0).unwrap();
    b.write(p(2), r(0), smi_cmd(C22Op::Write, 0x1C, 0x18))
        .unwrap(); // G2 reg 0x18 = 0
    b.write(p(2), r(0), smi_cmd(C22Op::Read, 0x1C, 0x18))
        .unwrap();
    b.read(p(2), r(0)).unwrap();
    assert_eq!(
        b.read(p(2), r(1)).unwrap() & BUSY,
        0,
        "no SMI_PHY BUSY on a 6185"
    );
    assert!(b.device().chip(0).unwrap().ppu_state(0).is_some());
    let sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut sim = sim;
    assert!(sim.bus.device().chip(0).unwrap().ppu_state(0).is_none());
}
