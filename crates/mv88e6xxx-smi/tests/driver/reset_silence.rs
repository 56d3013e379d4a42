//! A switch that does not answer for a while after its hardware reset (every read 0xFFFF,
//! the model's `with_reset_silence_ns`): the reads the driver makes meanwhile are not
//! interrupt events.

use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Config, Switch};

const MS: u64 = 1_000_000;

fn after_reset_status(chip: Chip, attach: Attach, sw_addr: u8) {
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach).with_reset_silence_ns(3 * MS));
    let mut sw = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(chip.family(), sw_addr).unwrap(),
        chip,
        Config::new(),
    )
    .unwrap();
    // Polls G1_STS through the silence (reads of 0xFFFF) until INIT_READY.
    let sts = sw.after_hardware_reset().unwrap();
    assert_ne!(sts, 0xFFFF);
    // No operation ran and no EEPROM event is pending in the model: nothing to report.
    let seen = sw.g1_irq_status().unwrap();
    assert!(seen.is_empty(), "{chip:?}: {seen:?}");
}

#[test]
fn reads_while_the_switch_is_silent_are_not_interrupt_events() {
    after_reset_status(Chip::Mv6185, Attach::Direct, 0);
}

#[test]
fn reads_while_the_switch_is_silent_are_not_interrupt_events_indirect() {
    after_reset_status(Chip::Mv6352, Attach::Indirect(2), 2);
}

/// An interrupt handler that reads G1_STS while the switch is silent (after a hardware
/// reset, before `after_hardware_reset`) gets a typed error, not every enabled source as an
/// event; what was pending before is still returned once it answers.
#[test]
fn an_interrupt_status_read_of_all_ones_is_an_error_not_events() {
    use mv88e6xxx_smi::Error;
    use mv88e6xxx_smi::irq::G1Irq;
    let chip = Chip::Mv6185;
    let mut sim =
        SwitchSim::single(ChipModel::new(chip, Attach::Direct).with_reset_silence_ns(3 * MS));
    let mut sw = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(chip.family(), 0).unwrap(),
        chip,
        Config::new(),
    )
    .unwrap();
    // The model is silent from power-up for 3 ms: every read is 0xFFFF.
    assert!(matches!(
        sw.g1_irq_status(),
        Err(Error::NotAnswering { .. })
    ));
    assert!(matches!(
        sw.g1_irq_pending(),
        Err(Error::NotAnswering { .. })
    ));
    sw.after_hardware_reset().unwrap();
    let seen = sw.g1_irq_status().unwrap();
    assert!(
        !seen.contains(G1Irq::AtuProblem) && !seen.contains(G1Irq::VtuProblem),
        "{seen:?}"
    );
}
