//! Another master on the switch (a remote management unit, an embedded CPU, a second MDIO
//! master) starts a unit operation between two of this driver's. By default every ATU,
//! VTU, STATS and Global2 PHY operation waits for its unit's BUSY first, as Linux does, so
//! nothing is written into the busy unit; with `Config::assume_sole_bus_master` the wait
//! is skipped after the driver's own operations, and the model drops the command written
//! into the busy unit (the hazard that opt-in accepts).

use std::cell::Cell;
use std::rc::Rc;

use mdio_bus::sim::SimMdio;
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::atu::AtuFlush;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchModel, SwitchSim};
use mv88e6xxx_smi::{Config, Switch};

/// A frame another master writes on the bus just before the driver's next frame.
type Inject = Rc<Cell<Option<(u8, u8, u16)>>>;

/// The driver's bus, shared with a second master that writes when `inject` is set.
struct Shared<'a> {
    bus: &'a mut SimMdio<SwitchModel>,
    inject: Inject,
}

impl Shared<'_> {
    fn other_master(&mut self) {
        if let Some((phy, reg, v)) = self.inject.take() {
            let (phy, reg) = (PhyAddr::from_bits(phy), RegAddr::from_bits(reg));
            let Ok(()) = self.bus.write(phy, reg, v);
        }
    }
}

impl Mdio for Shared<'_> {
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

/// Runs ATU flush, the other master's ATU GetNext, ATU flush again; returns the commands
/// the model dropped because they were written while the unit was busy, and the frames
/// of the second flush.
fn flush_twice(config: Config) -> (u64, u64) {
    // 1 ms per operation: longer than a few frames at 2.5 MHz (25.6 µs each).
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Direct).with_g1_busy(BusyDelay::fixed(1_000_000)),
    );
    let inject: Inject = Rc::new(Cell::new(None));
    let bus = Shared {
        bus: &mut sim.bus,
        inject: inject.clone(),
    };
    let (mut sw, _) = Switch::probe(bus, &sim.counter, 0, Family::Mv6085, config).unwrap();
    sw.atu_flush(AtuFlush::NonStatic, None).unwrap();
    inject.set(Some((G1, ATU_OP, REMOTE_GET_NEXT)));
    let f0 = sw.frames();
    sw.atu_flush(AtuFlush::NonStatic, None).unwrap();
    let frames = sw.frames() - f0;
    assert!(inject.take().is_none(), "the other master wrote");
    let _ = sw.release();
    (sim.bus.device().chip(0).unwrap().dropped_writes(), frames)
}

#[test]
fn by_default_an_operation_waits_for_a_unit_another_master_made_busy() {
    let (dropped, frames) = flush_twice(Config::new());
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
    let (dropped, _) = flush_twice(Config::new().assume_sole_bus_master(true));
    // The hazard the opt-in accepts: the flush command is lost.
    assert_eq!(dropped, 1);
}
