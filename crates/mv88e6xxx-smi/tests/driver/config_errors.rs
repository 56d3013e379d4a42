//! One test per [`ConfigError`] cause, each asserting the exact variant and that nothing
//! reached the bus; then what each cause becomes in the family-wide `hwtimer_core::Error`,
//! and the errors' `Display` and `source()`.

use core::error::Error as _;

use crate::common::{p, r};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Bound, BusyTimeout, BusyWait, Config, ConfigError, Error, Switch};

/// `Switch::new` for `chip` with an addressing that may not fit it (the model of `chip` sits
/// at `sw_addr` 2).
fn new_err(chip: Chip, addressing: Addressing) -> (ConfigError, u64) {
    let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
    let e = Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
        .map(|_| ())
        .unwrap_err();
    let Error::Config(cause) = e else {
        panic!("{e:?}")
    };
    (cause, sim.bus.frames())
}

#[test]
fn addressing_mode_that_does_not_fit_the_family() {
    let family = Family::Mv6250;
    // Direct, and indirect, for the dual-chip family.
    assert_eq!(
        new_err(Chip::Mv6250, Addressing::Direct),
        (ConfigError::AddressingMode { family }, 0)
    );
    let indirect = Addressing::Indirect {
        sw_addr: p(2),
        remap_6393x: false,
    };
    assert_eq!(
        new_err(Chip::Mv6250, indirect),
        (ConfigError::AddressingMode { family }, 0)
    );
    // Dual-chip for a multi-chip family.
    let dual = Addressing::DualChip { sw_addr: p(16) };
    assert_eq!(
        new_err(Chip::Mv6352, dual),
        (
            ConfigError::AddressingMode {
                family: Family::Mv6085
            },
            0
        )
    );
}

#[test]
fn switch_address_out_of_range_for_the_mode() {
    // Indirect at 0 (0 means single-chip).
    let indirect0 = Addressing::Indirect {
        sw_addr: p(0),
        remap_6393x: false,
    };
    assert_eq!(
        new_err(Chip::Mv6097, indirect0),
        (ConfigError::SwitchAddress { sw_addr: 0 }, 0)
    );
    // Dual-chip other than 0 or 16.
    let dual3 = Addressing::DualChip { sw_addr: p(3) };
    assert_eq!(
        new_err(Chip::Mv6250, dual3),
        (ConfigError::SwitchAddress { sw_addr: 3 }, 0)
    );
    assert_eq!(
        Addressing::select(Family::Mv6250, 3),
        Err(ConfigError::SwitchAddress { sw_addr: 3 })
    );
    // Above 31, through probe's plain u8.
    assert_eq!(
        Addressing::select(Family::Mv6085, 32),
        Err(ConfigError::SwitchAddress { sw_addr: 32 })
    );
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6097, Attach::Indirect(2)));
    let e = Switch::probe(
        &mut sim.bus,
        &sim.counter,
        32,
        Family::Mv6085,
        Config::new(),
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(e, Error::Config(ConfigError::SwitchAddress { sw_addr: 32 }));
    assert_eq!(sim.bus.frames(), 0);
}

#[test]
fn remap_on_a_family_without_it() {
    let remapped = Addressing::Indirect {
        sw_addr: p(2),
        remap_6393x: true,
    };
    assert_eq!(
        new_err(Chip::Mv6097, remapped),
        (
            ConfigError::Remap6393x {
                family: Family::Mv6085
            },
            0
        )
    );
}

#[test]
fn probe_finds_a_chip_the_hint_cannot_reach() {
    // A dual-chip hint at sw_addr 0 reads PORT_SWITCH_ID at 0x08: on a single-chip 6390
    // (ports from 0x00) that is port 8, which answers as a 6390, a multi-chip family.
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Direct));
    let e = Switch::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6250, Config::new())
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e,
        Error::Config(ConfigError::HintMismatch { chip: Chip::Mv6390 })
    );
    assert_eq!(sim.bus.frames(), 1, "only PORT_SWITCH_ID was read");
}

#[test]
fn port_the_chip_does_not_have_or_route() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    let f0 = smi.frames();
    // 7 ports: port 7 is not one; port 11 would be Global1.
    for port in [7, 11, u8::MAX] {
        assert_eq!(
            smi.port_read(port, 0),
            Err(Error::Config(ConfigError::Port { port }))
        );
        assert_eq!(
            smi.port_write(port, 4, 0xDEAD),
            Err(Error::Config(ConfigError::Port { port }))
        );
    }
    assert_eq!(smi.frames(), f0);
}

#[test]
fn device_beyond_the_dual_chip_window() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6250, Attach::DualChip(16)));
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::DualChip { sw_addr: p(16) },
        Chip::Mv6250,
        Config::new(),
    )
    .unwrap();
    for dev in [16, 31] {
        assert_eq!(
            smi.read(p(dev), r(0)),
            Err(Error::Config(ConfigError::Device { dev }))
        );
        assert_eq!(
            smi.write(p(dev), r(0), 1),
            Err(Error::Config(ConfigError::Device { dev }))
        );
    }
    assert_eq!(smi.frames(), 0);
}

#[test]
fn phy_off_the_chip_phy_bus() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Direct));
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::Direct,
        Chip::Mv6352,
        Config::new(),
    )
    .unwrap();
    // PHYs from 0x00, 7 ports: PHY address 7 and up are not on its PHY bus.
    for phy in [7, 0x10, 31] {
        assert_eq!(
            smi.phy_read(p(phy), r(2)),
            Err(Error::Config(ConfigError::Phy { phy }))
        );
        assert_eq!(
            smi.phy_write(p(phy), r(4), 0x01e1),
            Err(Error::Config(ConfigError::Phy { phy }))
        );
    }
    assert_eq!(smi.frames(), 0);
}

#[test]
fn each_cause_keeps_what_the_core_error_can_say() {
    use hwtimer_core::ConfigError as Core;
    let core = |e: ConfigError| hwtimer_core::Error::from(Error::<hwtimer_core::Error>::Config(e));
    let family = Family::Mv6085;
    assert_eq!(
        core(ConfigError::AddressingMode { family }),
        hwtimer_core::Error::Unsupported
    );
    assert_eq!(
        core(ConfigError::Remap6393x { family }),
        hwtimer_core::Error::Unsupported
    );
    assert_eq!(
        core(ConfigError::HintMismatch { chip: Chip::Mv6390 }),
        hwtimer_core::Error::Unsupported
    );
    for e in [
        ConfigError::SwitchAddress { sw_addr: 0 },
        ConfigError::Port { port: 7 },
        ConfigError::Phy { phy: 7 },
        ConfigError::Device { dev: 16 },
    ] {
        assert_eq!(core(e), Core::AddressOutOfRange.into(), "{e:?}");
    }
    // The other variants: MDIO errors convert as themselves, timeouts stay timeouts.
    let mdio = Error::Mdio(hwtimer_core::Error::Busy);
    assert_eq!(hwtimer_core::Error::from(mdio), hwtimer_core::Error::Busy);
    let unknown = Error::<hwtimer_core::Error>::UnknownSwitchId { raw: 0xFFFF };
    assert_eq!(
        hwtimer_core::Error::from(unknown),
        hwtimer_core::Error::Unsupported
    );
}

#[test]
fn errors_display_their_cause_and_chain_their_source() {
    let e = Error::<hwtimer_core::Error>::Config(ConfigError::Port { port: 7 });
    assert_eq!(
        e.to_string(),
        "invalid configuration: port 7 does not exist on this chip"
    );
    assert_eq!(
        e.source().map(|s| s.to_string()).as_deref(),
        Some("port 7 does not exist on this chip")
    );
    let t = BusyTimeout {
        wait: BusyWait::SmiCmd,
        last: 0x8000,
        polls: 3,
        elapsed_ticks: 40,
        bound: Bound::Deadline,
    };
    let e = Error::<hwtimer_core::Error>::Timeout(t);
    assert_eq!(
        e.to_string(),
        "timeout waiting for SMI_CMD BUSY (deadline passed after 3 polls, 40 ticks; last value 0x8000)"
    );
    assert_eq!(e.source().map(|s| s.to_string()), Some(t.to_string()));
    let e = Error::Mdio(hwtimer_core::Error::Timeout);
    assert_eq!(e.to_string(), "MDIO frame failed: hardware wait timed out");
    assert_eq!(
        e.source().map(|s| s.to_string()).as_deref(),
        Some("hardware wait timed out")
    );
    let e = Error::<hwtimer_core::Error>::Config(ConfigError::AddressingMode {
        family: Family::Mv6250,
    });
    assert_eq!(
        e.to_string(),
        "invalid configuration: addressing mode does not fit the 6250 family"
    );
    let e = Error::<hwtimer_core::Error>::UnknownSwitchId { raw: 0xFFFF };
    assert_eq!(e.to_string(), "unknown switch id 0xffff");
    assert!(e.source().is_none());
}
