//! Helpers more than one test binary uses (each binary uses some of them).
#![allow(dead_code)]

/// `Switch::new` on a [`SwitchSim`](mv88e6xxx_smi::sim::SwitchSim) at switch address `$sw`,
/// in the addressing mode `Addressing::select` picks for the chip's family, unwrapped.
#[allow(unused_macros)]
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

/// A driver attached to a [`SwitchSim`](mv88e6xxx_smi::sim::SwitchSim)'s bus and counter.
pub type SimSmi<'a> = mv88e6xxx_smi::Switch<
    &'a mut mdio_bus::sim::SimMdio<mv88e6xxx_smi::sim::SwitchModel>,
    &'a hwtimer_core::sim::SimCounter,
>;

/// A PHY address known to be in range.
pub fn p(a: u8) -> mdio_bus::PhyAddr {
    mdio_bus::PhyAddr::new(a).unwrap()
}

/// A register address known to be in range.
pub fn r(a: u8) -> mdio_bus::RegAddr {
    mdio_bus::RegAddr::new(a).unwrap()
}
