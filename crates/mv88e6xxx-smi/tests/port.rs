//! Ports, link and reset on the model: port states, frame and egress modes, forced link,
//! speed and duplex, RGMII delays (checked in the model's registers at the positions the
//! hardware facts give), PORT_STS as the PHY polling unit sees the PHY, software reset
//! with the INIT_READY wait, and the typed refusals before any frame.

use mdio_bus::PhyAddr;
use mdio_bus::RegAddr;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::port::{
    Duplex, EgressMode, ForcedLink, FrameMode, LinkSpeed, PortOps, PortState, RgmiiDelay, Speed,
};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{
    Addressing, BusyWait, Config, ConfigError, Error, Feature, PPU_HOLD_NS, Smi, regs,
};

/// Attach to the chip of `$sim` at `sw_addr` 2, borrowing only its bus and counter.
macro_rules! attach {
    ($sim:expr, $chip:expr, $config:expr) => {
        Smi::new(
            &mut $sim.bus,
            &$sim.counter,
            Addressing::select($chip.family(), 2).unwrap(),
            $chip,
            $config,
        )
        .unwrap()
    };
}

fn sim(chip: Chip) -> SwitchSim {
    SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)).with_port_phys())
}

fn model(sim: &mut SwitchSim) -> &ChipModel {
    sim.bus.device().chip(0).unwrap()
}

#[test]
fn port_states_round_trip_in_port_ctl0_bits_1_0() {
    for chip in [Chip::Mv6352, Chip::Mv6185] {
        let mut sim = sim(chip);
        let mut smi = attach!(sim, chip, Config::new());
        // Other PORT_CTL0 bits must survive.
        smi.port_write(3, 0x04, 0x0150).unwrap();
        for (state, bits) in [
            (PortState::Forwarding, 3),
            (PortState::Learning, 2),
            (PortState::Blocking, 1),
            (PortState::Disabled, 0),
        ] {
            smi.port_set_state(3, state).unwrap();
            assert_eq!(smi.port_state(3).unwrap(), state);
            assert_eq!(smi.port_read(3, 0x04).unwrap(), 0x0150 | bits, "{chip:?}");
        }
        smi.port_enable(2).unwrap();
        assert_eq!(smi.port_state(2).unwrap(), PortState::Forwarding);
        smi.port_disable(2).unwrap();
        let _ = smi.release();
        assert_eq!(model(&mut sim).port_reg(2, 0x04), Some(0));
        assert_eq!(model(&mut sim).port_reg(3, 0x04), Some(0x0150));
    }
}

#[test]
fn frame_and_egress_modes_land_in_port_ctl0() {
    let mut sim = sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    smi.port_set_state(6, PortState::Forwarding).unwrap();
    smi.port_set_frame_mode(6, FrameMode::EtherTypeDsa).unwrap();
    smi.port_set_egress_mode(6, EgressMode::EtherTypeDsa)
        .unwrap();
    smi.port_set_frame_mode(5, FrameMode::Dsa).unwrap();
    smi.port_set_egress_mode(5, EgressMode::Tagged).unwrap();
    smi.port_set_frame_mode(4, FrameMode::Provider).unwrap();
    smi.port_set_egress_mode(4, EgressMode::Untagged).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(m.port_reg(6, 0x04), Some(0x3303));
    assert_eq!(m.port_reg(5, 0x04), Some(0x2100));
    assert_eq!(m.port_reg(4, 0x04), Some(0x1200));

    // The 6185 has normal and DSA only: the others are refused before any frame.
    let mut sim = sim_6185();
    let mut smi = attach!(sim, Chip::Mv6185, Config::new());
    smi.port_set_frame_mode(9, FrameMode::Dsa).unwrap();
    let f0 = smi.frames();
    for mode in [FrameMode::Provider, FrameMode::EtherTypeDsa] {
        assert_eq!(
            smi.port_set_frame_mode(9, mode),
            Err(Error::Config(ConfigError::PortFeature {
                chip: Some(Chip::Mv6185),
                port: Some(9),
                feature: Feature::FrameMode,
            }))
        );
    }
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    assert_eq!(model(&mut sim).port_reg(9, 0x04), Some(0x0100));
}

fn sim_6185() -> SwitchSim {
    sim(Chip::Mv6185)
}

/// PORT_STS follows the PHY (as the PPU polls it) unless PORT_MAC_CTL forces link, speed
/// or duplex; the forced bits sit where the facts put them.
#[test]
fn forced_link_speed_and_duplex_override_the_polled_phy() {
    // Port 0's PHY comes up at 1 ms.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_port_phys()
            .with_link_event(1_000_000, 0, true),
    );
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    let s = smi.port_link_status(0).unwrap();
    assert!(!s.up, "{s:?}");
    smi.port_set_forced_link(0, ForcedLink::Up).unwrap();
    smi.port_set_speed_duplex(0, Speed::Mbps100, Duplex::Full)
        .unwrap();
    let s = smi.port_link_status(0).unwrap();
    assert!(
        s.up && s.full_duplex && s.speed == LinkSpeed::Mbps100,
        "{s:?}"
    );
    assert_eq!(smi.port_read(0, 0x01).unwrap(), 0x0030 | 0x000C | 0x0001);
    smi.port_set_forced_link(0, ForcedLink::Down).unwrap();
    smi.port_set_speed_duplex(0, Speed::Mbps10, Duplex::Half)
        .unwrap();
    let s = smi.port_link_status(0).unwrap();
    assert!(
        !s.up && !s.full_duplex && s.speed == LinkSpeed::Mbps10,
        "{s:?}"
    );
    assert_eq!(smi.port_read(0, 0x01).unwrap(), 0x0010 | 0x0004);
    // Unforced again: the PHY decides; it is up (1000 full) after 1 ms.
    smi.port_set_forced_link(0, ForcedLink::Unforced).unwrap();
    smi.port_set_speed_duplex(0, Speed::Unforced, Duplex::Unforced)
        .unwrap();
    assert_eq!(smi.port_read(0, 0x01).unwrap(), 0x0003);
    sim.clock.advance(1_000_000);
    let s = smi.port_link_status(0).unwrap();
    assert!(
        s.up && s.full_duplex && s.speed == LinkSpeed::Mbps1000,
        "{s:?}"
    );
    // 200 Mb/s: ALTSPEED on ports 5 and 6 of the 6352 only.
    smi.port_set_speed_duplex(5, Speed::Mbps200, Duplex::Full)
        .unwrap();
    assert_eq!(
        smi.port_read(5, 0x01).unwrap() & 0x100F,
        0x1000 | 0x000C | 0x0001
    );
    let f0 = smi.frames();
    let e = smi.port_set_speed_duplex(1, Speed::Mbps200, Duplex::Full);
    assert!(
        matches!(
            e,
            Err(Error::Config(ConfigError::PortFeature {
                feature: Feature::Speed(200),
                ..
            }))
        ),
        "{e:?}"
    );
    assert_eq!(smi.frames(), f0);
}

/// On the PPU-gated 6185 PORT_STS follows the PHY only while the PPU polls: a link that
/// comes up while the driver holds the PPU shows only once the hold has been serviced.
#[test]
fn ppu_gated_port_status_follows_the_phy_only_while_the_ppu_polls() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Indirect(2))
            .with_port_phys()
            .with_link_event(2_000_000, 3, true),
    );
    let mut smi = attach!(sim, Chip::Mv6185, Config::new());
    assert!(!smi.port_link_status(3).unwrap().up);
    smi.phy_read(PhyAddr::from_bits(3), RegAddr::from_bits(1))
        .unwrap(); // the PPU is held from here
    sim.clock.advance(3_000_000); // the link is up now, but nobody polls the PHY
    assert!(!smi.port_link_status(3).unwrap().up);
    sim.clock.advance(PPU_HOLD_NS);
    smi.service().unwrap();
    let s = smi.port_link_status(3).unwrap();
    assert!(s.up && s.speed == LinkSpeed::Mbps1000, "{s:?}");
}

#[test]
fn rgmii_delays_round_trip_on_ports_5_and_6_only() {
    let mut sim = sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    for (d, bits) in [
        (
            RgmiiDelay {
                rx: true,
                tx: false,
            },
            0x8000,
        ),
        (
            RgmiiDelay {
                rx: false,
                tx: true,
            },
            0x4000,
        ),
        (RgmiiDelay { rx: true, tx: true }, 0xC000),
        (RgmiiDelay::default(), 0x0000),
    ] {
        smi.port_set_rgmii_delay(6, d).unwrap();
        assert_eq!(smi.port_read(6, 0x01).unwrap(), 0x0003 | bits);
    }
    let f0 = smi.frames();
    for port in [0, 4] {
        assert!(matches!(
            smi.port_set_rgmii_delay(port, RgmiiDelay { rx: true, tx: true }),
            Err(Error::Config(ConfigError::PortFeature {
                feature: Feature::RgmiiDelay,
                ..
            }))
        ));
    }
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    // The 6185 has no RGMII delay op.
    let mut sim = sim_6185();
    let mut smi = attach!(sim, Chip::Mv6185, Config::new());
    let f0 = smi.frames();
    assert!(smi.port_set_rgmii_delay(9, RgmiiDelay::default()).is_err());
    assert_eq!(smi.frames(), f0);
}

/// SW_RESET drops INIT_READY for the reset time; the driver waits it out and for the PPU
/// to poll; the reset cleared the port registers.
#[test]
fn software_reset_waits_for_init_ready_and_the_ppu() {
    for chip in [Chip::Mv6352, Chip::Mv6185] {
        let mut sim = SwitchSim::single(
            ChipModel::new(chip, Attach::Indirect(2))
                .with_port_phys()
                .with_reset_ns(3_000_000),
        );
        let mut smi = attach!(sim, chip, Config::new());
        smi.port_set_state(1, PortState::Forwarding).unwrap();
        if chip == Chip::Mv6185 {
            smi.phy_read(PhyAddr::from_bits(1), RegAddr::from_bits(2))
                .unwrap();
            assert!(smi.ppu_held());
        }
        let t0 = sim.clock.now_ns();
        smi.software_reset().unwrap();
        assert!(sim.clock.now_ns() - t0 >= 3_000_000, "{chip:?}");
        assert!(!smi.ppu_held());
        assert_eq!(smi.port_state(1).unwrap(), PortState::Disabled);
        let _ = smi.release();
        let now = sim.clock.now_ns();
        let m = model(&mut sim);
        assert_eq!(m.resets(), 1);
        assert_eq!(m.g1_reg(regs::g1::CTL1) & regs::SW_RESET, 0);
        if chip == Chip::Mv6185 {
            assert_eq!(m.ppu_state(now), Some(regs::PPU_STATE_POLLING));
            assert_eq!(m.ppu_collisions(), 0);
        }
    }
}

#[test]
fn stuck_init_ready_is_a_timeout() {
    // A reset that never ends: INIT_READY never comes back.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_reset_ns(u64::MAX),
    );
    let mut smi = attach!(sim, Chip::Mv6352, Config::new().with_timeout_ns(2_000_000));
    let t0 = sim.clock.now_ns();
    let e = smi.software_reset().unwrap_err();
    assert!(
        matches!(e, Error::Timeout(t) if t.wait == BusyWait::InitReady),
        "{e:?}"
    );
    assert!(sim.clock.now_ns() - t0 < 4_000_000);
    let _ = smi.release();
    // After a hardware reset, a switch that never becomes ready: the same timeout.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_init_ready_at(None),
    );
    let mut smi = attach!(sim, Chip::Mv6352, Config::new().with_timeout_ns(2_000_000));
    let e = smi.after_hardware_reset().unwrap_err();
    assert!(matches!(e, Error::Timeout(t) if t.wait == BusyWait::InitReady));
    let _ = smi.release();
    // Ready at 1 ms: the wait returns once it is.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_init_ready_at(Some(1_000_000)),
    );
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    assert_ne!(smi.after_hardware_reset().unwrap() & regs::INIT_READY, 0);
    assert!(sim.clock.now_ns() >= 1_000_000);
}

#[test]
fn bad_ports_and_unsupported_chips_are_refused_before_any_frame() {
    let mut sim = sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    let f0 = smi.frames();
    for port in [7, 10, 0x1B, u8::MAX] {
        let bad = Err(Error::Config(ConfigError::Port { port }));
        assert_eq!(smi.port_set_state(port, PortState::Forwarding), bad);
        assert_eq!(smi.port_state(port).map(|_| ()), bad);
        assert_eq!(smi.port_set_frame_mode(port, FrameMode::Dsa), bad);
        assert_eq!(smi.port_set_forced_link(port, ForcedLink::Up), bad);
        assert_eq!(
            smi.port_set_speed_duplex(port, Speed::Mbps10, Duplex::Full),
            bad
        );
        assert_eq!(smi.port_link_status(port).map(|_| ()), bad);
        assert_eq!(smi.set_cpu_port(port), bad);
    }
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    // Chips whose port facts this crate did not take.
    for chip in [Chip::Mv6390, Chip::Mv6097, Chip::Mv6393X] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
        let mut smi = Smi::new(
            &mut sim.bus,
            &sim.counter,
            Addressing::select(chip.family(), 2).unwrap(),
            chip,
            Config::new(),
        )
        .unwrap();
        assert_eq!(PortOps::of(chip), None);
        let f0 = smi.frames();
        let refused = ConfigError::PortFeature {
            chip: Some(chip),
            port: None,
            feature: Feature::PortOps,
        };
        assert_eq!(
            smi.port_set_state(0, PortState::Forwarding),
            Err(refused.into())
        );
        assert_eq!(smi.software_reset(), Err(refused.into()));
        assert_eq!(smi.port_ops(), Err(refused));
        assert_eq!(smi.frames(), f0);
    }
}

#[test]
fn cpu_port_goes_to_monitor_ctl_and_6185_upstream_ports() {
    let mut sim = sim_6185();
    let mut smi = attach!(sim, Chip::Mv6185, Config::new());
    smi.set_cpu_port(9).unwrap();
    assert_eq!(smi.g1_read(0x1A).unwrap() & 0x00F0, 0x0090);
    for port in 0..10 {
        assert_eq!(smi.port_read(port, 0x08).unwrap() & 0x000F, 9);
    }
    let _ = smi.release();
    let _ = Family::Mv6085;
}
