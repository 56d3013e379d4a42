//! The 6250 family without an EEPROM: G2_EEPROM_CMD RUNNING can stay set for ever (Linux
//! commit e44894e2aa4e), so the wait after a hardware reset must be the G1_STS
//! "EEPROM done" one there, not the G2_EEPROM_CMD one of the other chips.

use mv88e6xxx_smi::Config;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::port::EepromWait;
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};

/// Global2 EEPROM command register and its "register loader running" bit (Linux v6.12
/// `global2.h` `MV88E6XXX_G2_EEPROM_CMD` 0x14, `_RUNNING` 0x0800).
const G2_EEPROM_CMD: u8 = 0x14;
const RUNNING: u16 = 0x0800;
const TIMEOUT_NS: u64 = 1_000_000;

#[test]
fn the_6250_without_an_eeprom_passes_the_g1_wait_where_a_g2_wait_times_out() {
    for chip in [Chip::Mv6250, Chip::Mv6220, Chip::Mv6071, Chip::Mv6020] {
        assert_eq!(EepromWait::of(chip), Some(EepromWait::G1Done), "{chip:?}");
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::DualChip(16)));
        let mut sw = attach_at!(sim, chip, 16, Config::new().with_timeout_ns(TIMEOUT_NS));
        // The crate's path: G1_STS EEPROM done, then INIT_READY.
        sw.after_hardware_reset().unwrap();
        // What a G2_EEPROM_CMD RUNNING wait would see: set on every read for longer than
        // the whole timeout.
        let start = sim.clock.now_ns();
        let mut reads = 0;
        while sim.clock.now_ns() < start + 2 * TIMEOUT_NS {
            let v = sw.g2_read(G2_EEPROM_CMD).unwrap();
            assert_ne!(v & RUNNING, 0, "{chip:?} read {reads}: {v:#06x}");
            reads += 1;
        }
        assert!(reads > 2, "{chip:?}");
    }
}

/// With an EEPROM on the 6250, RUNNING clears when the load ends; a 6352 without an
/// EEPROM never sets it.
#[test]
fn running_clears_with_an_eeprom_and_on_other_chips() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6250, Attach::DualChip(16)).with_eeprom_load_ns(1_000_000),
    );
    let mut sw = attach_at!(sim, Chip::Mv6250, 16, Config::new());
    assert_ne!(sw.g2_read(G2_EEPROM_CMD).unwrap() & RUNNING, 0);
    sw.after_hardware_reset().unwrap();
    assert_eq!(sw.g2_read(G2_EEPROM_CMD).unwrap() & RUNNING, 0);

    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut sw = attach_at!(sim, Chip::Mv6352, 2, Config::new());
    sw.after_hardware_reset().unwrap();
    assert_eq!(sw.g2_read(G2_EEPROM_CMD).unwrap() & RUNNING, 0);
}
