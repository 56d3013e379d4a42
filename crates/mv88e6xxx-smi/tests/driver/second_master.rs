//! Another master on the switch (a remote management unit, an embedded CPU, a second MDIO
//! master) starts a unit operation between two of this driver's. By default every ATU,
//! VTU, STATS and Global2 PHY operation waits for its unit's BUSY first, as Linux does, so
//! nothing is written into the busy unit; with `Config::with_sole_bus_master` the wait
//! is skipped after the driver's own operations, and the model drops the command written
//! into the busy unit (the hazard that opt-in accepts).

use std::cell::Cell;
use std::rc::Rc;

use mdio_bus::sim::SimMdio;
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::atu::AtuFlush;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::regs::{C22Op, smi_phy_cmd};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, PhyModel, SwitchModel, SwitchSim};
use mv88e6xxx_smi::{Config, Switch};

/// A frame another master writes on the bus just before the driver's next frame.
type Inject = Rc<Cell<Option<(u8, u8, u16)>>>;

/// The driver's bus, shared with a second master that writes when `inject` is set.
struct SharedBus<'a> {
    bus: &'a mut SimMdio<SwitchModel>,
    inject: Inject,
}

impl SharedBus<'_> {
    fn other_master(&mut self) {
        if let Some((phy, reg, v)) = self.inject.take() {
            let (phy, reg) = (PhyAddr::from_bits(phy), RegAddr::from_bits(reg));
            let Ok(()) = self.bus.write(phy, reg, v);
        }
    }
}

impl Mdio for SharedBus<'_> {
    type Error = core::convert::Infallible;
    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.other_master();
        self.bus.read(phy, reg)
    }
    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        self.other_master();
        self.bus.write(phy, reg, value)
    }
}

/// Global1 of a direct-mode 6352 (Linux drivers/net/dsa/mv88e6xxx/chip.h: global1_addr
/// 0x1b), G1_ATU_OP 0x0b, BUSY | GET_NEXT (Linux global1.h MV88E6XXX_G1_ATU_OP_BUSY,
/// MV88E6XXX_G1_ATU_OP_GET_NEXT_DB).
const G1: u8 = 0x1B;
const ATU_OP: u8 = 0x0B;
const REMOTE_GET_NEXT: u16 = 0x8000 | 0x4000;

type Shared<'a> = Switch<SharedBus<'a>, &'a hwtimer_core::sim::SimCounter>;

/// Runs `op` once, the other master's command `remote`, `op` again; returns the commands
/// the model dropped because they were written while their unit was busy, and the frames
/// of the second `op`.
fn twice(
    config: Config,
    model: ChipModel,
    remote: (u8, u8, u16),
    mut op: impl FnMut(&mut Shared<'_>),
) -> (u64, u64) {
    let mut sim = SwitchSim::single(model);
    let inject: Inject = Rc::new(Cell::new(None));
    let bus = SharedBus {
        bus: &mut sim.bus,
        inject: inject.clone(),
    };
    let (mut sw, _) = Switch::probe(bus, &sim.counter, 0, Family::Mv6085, config).unwrap();
    op(&mut sw);
    inject.set(Some(remote));
    let f0 = sw.frames();
    op(&mut sw);
    let frames = sw.frames() - f0;
    assert!(inject.take().is_none(), "the other master wrote");
    let _ = sw.release();
    (sim.bus.device().chip(0).unwrap().dropped_writes(), frames)
}

/// A direct-mode 6352 whose Global1 operations and Global2 PHY commands take 1 ms:
/// longer than a few frames at 2.5 MHz (25.6 µs each).
fn slow_6352() -> ChipModel {
    ChipModel::new(Chip::Mv6352, Attach::Direct)
        .with_g1_busy(BusyDelay::fixed(1_000_000))
        .with_phy_busy(BusyDelay::fixed(1_000_000))
        .with_phy(PhyModel::bcm54612e(PhyAddr::new(1).unwrap()))
}

fn flush(sw: &mut Shared<'_>) {
    sw.atu_flush(AtuFlush::NonStatic, None).unwrap();
}

fn vtu_flush(sw: &mut Shared<'_>) {
    sw.vtu_flush().unwrap();
}

/// Reads PHY 1's PHYID2 (0x5e6a on the BCM54612E model) and checks the value.
fn phy_id(sw: &mut Shared<'_>) {
    let v = sw
        .phy_read(PhyAddr::new(1).unwrap(), RegAddr::new(3).unwrap())
        .unwrap();
    assert_eq!(v, 0x5e6a, "PHYID2");
}

/// Global2 of a direct-mode 6352 (chip.h global2_addr 0x1c), SMI_PHY_CMD 0x18: the
/// other master's Clause 22 read of PHY 1 register 2.
fn remote_phy_read() -> (u8, u8, u16) {
    (0x1C, 0x18, smi_phy_cmd(C22Op::Read, 1, 2))
}

/// Global1 VTU_OP 0x05, BUSY | GET_NEXT (global1.h `MV88E6XXX_G1_VTU_OP_VTU_GET_NEXT`).
const REMOTE_VTU_GET_NEXT: (u8, u8, u16) = (0x1B, 0x05, 0x8000 | 0x4000);

#[test]
fn by_default_an_operation_waits_for_a_unit_another_master_made_busy() {
    let (dropped, frames) = twice(
        Config::new(),
        slow_6352(),
        (G1, ATU_OP, REMOTE_GET_NEXT),
        flush,
    );
    assert_eq!(dropped, 0, "a command was written into the busy ATU");
    // The pre-wait polled the other master's operation out (1 ms at 25.6 µs per frame),
    // then ATU_DATA write, ATU_OP write, completion polls.
    assert!(
        frames > 30,
        "{frames} frames: no wait for the other master's operation"
    );
}

#[test]
fn a_sole_bus_master_skips_the_wait_and_so_writes_into_the_busy_unit() {
    let config = Config::new().with_sole_bus_master(true);
    let (dropped, _) = twice(config, slow_6352(), (G1, ATU_OP, REMOTE_GET_NEXT), flush);
    // The hazard the opt-in accepts: the flush command is lost.
    assert_eq!(dropped, 1);
}

#[test]
fn the_vtu_and_the_global2_phy_unit_are_waited_for_too() {
    let (dropped, _) = twice(Config::new(), slow_6352(), REMOTE_VTU_GET_NEXT, vtu_flush);
    assert_eq!(dropped, 0, "VTU");
    let (dropped, _) = twice(Config::new(), slow_6352(), remote_phy_read(), phy_id);
    assert_eq!(dropped, 0, "Global2 SMI_PHY");
    // The opt-in loses the commands instead.
    let sole = Config::new().with_sole_bus_master(true);
    let (dropped, _) = twice(sole, slow_6352(), REMOTE_VTU_GET_NEXT, vtu_flush);
    assert_eq!(dropped, 1, "VTU, sole master");
}
