//! Helpers more than one test binary uses.

/// `Switch::new` on a [`SwitchSim`](mv88e6xxx_smi::sim::SwitchSim) at switch address `$sw`,
/// in the addressing mode `Addressing::select` picks for the chip's family, unwrapped.
macro_rules! attach_at {
    ($sim:expr, $chip:expr, $sw:expr, $config:expr) => {
        ::mv88e6xxx_smi::Switch::new(
            &mut $sim.bus,
            &$sim.counter,
            ::mv88e6xxx_smi::Addressing::select($chip.family(), $sw).unwrap(),
            $chip,
            $config,
        )
        .unwrap()
    };
}
