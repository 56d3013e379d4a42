//! The PPU stop wait of the 6185-style chips takes every G1_STS PPU state other than
//! 11 "polling" as the bus being free, as Linux's `mv88e6185_g1_wait_ppu_disabled`
//! (v6.12 `global1.c`) does: a PPU that reports 00 "disabled at reset" or 01
//! "initializing" once stopped is no timeout.

use mdio_bus::{PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchSim};
use mv88e6xxx_smi::{BusyWait, Config, Error};

fn phy_read_with_stopped_state(stopped: u16, enabled_at_reset: bool) {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Indirect(2))
            .with_port_phys()
            .with_ppu_enabled(enabled_at_reset)
            .with_ppu_stopped_state(stopped),
    );
    let mut sw = attach_at!(
        sim,
        Chip::Mv6185,
        2,
        Config::new().with_timeout_ns(1_000_000)
    );
    // PHY 0, PHYID1 of the Marvell-style PHY model.
    let id = sw.phy_read(PhyAddr::from_bits(0), RegAddr::from_bits(2));
    assert_eq!(id.unwrap(), 0x0141, "stopped state {stopped:#06x}");
    let _ = sw.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(m.ppu_collisions(), 0);
}

#[test]
fn a_stopped_ppu_reporting_disabled_at_reset_is_no_timeout() {
    phy_read_with_stopped_state(0x0000, true);
    phy_read_with_stopped_state(0x0000, false);
}

#[test]
fn a_stopped_ppu_reporting_initializing_is_no_timeout() {
    phy_read_with_stopped_state(0x4000, true);
    phy_read_with_stopped_state(0x4000, false);
}

#[test]
fn a_stopped_ppu_reporting_disabled_is_no_timeout() {
    phy_read_with_stopped_state(0x8000, true);
    phy_read_with_stopped_state(0x8000, false);
}

/// A PPU that keeps polling is still a timeout.
#[test]
fn a_ppu_still_polling_is_a_timeout() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Indirect(2))
            .with_port_phys()
            .with_ppu_stopped_state(0xC000)
            .with_ppu_busy(BusyDelay::fixed(0)),
    );
    let mut sw = attach_at!(
        sim,
        Chip::Mv6185,
        2,
        Config::new().with_timeout_ns(1_000_000)
    );
    let e = sw
        .phy_read(PhyAddr::from_bits(0), RegAddr::from_bits(2))
        .unwrap_err();
    assert!(
        matches!(e, Error::Timeout(t) if t.wait == BusyWait::PpuDisabled),
        "{e:?}"
    );
}
