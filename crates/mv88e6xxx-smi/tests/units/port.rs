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
    Addressing, BusyWait, Config, ConfigError, Error, Feature, PPU_HOLD_NS, Switch, regs,
};

/// Attach to the chip of `$sim` at `sw_addr` 2, borrowing only its bus and counter.
macro_rules! attach {
    ($sim:expr, $chip:expr, $config:expr) => {
        Switch::new(
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
    // Every chip of the table has its Linux ops now; what a chip's ops table leaves out is
    // refused per function (the per-family tests below).
    for &chip in Chip::ALL {
        assert!(PortOps::of(chip).is_some(), "{chip:?}");
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

// ---- The other families (docs/mv88e6xxx.md#per-family-port-ops) ----

/// A model of `chip` with PHYs on its ports, and the `sw_addr` its family is reached at:
/// dual-chip at 16 for the 6250 family, multi-chip at 2 otherwise.
fn family_sim(chip: Chip, reset_ns: u64) -> (SwitchSim, u8) {
    let (attach, sw) = if chip.family() == Family::Mv6250 {
        (Attach::DualChip(16), 16)
    } else {
        (Attach::Indirect(2), 2)
    };
    let model = ChipModel::new(chip, attach)
        .with_port_phys()
        .with_reset_ns(reset_ns);
    (SwitchSim::single(model), sw)
}

fn valid_ports(chip: Chip) -> Vec<u8> {
    (0..chip.info().num_ports)
        .filter(|p| chip.is_valid_port(*p))
        .collect()
}

fn refused(e: Result<(), Error<impl core::fmt::Debug>>, feature: Feature) -> bool {
    matches!(e, Err(Error::Config(ConfigError::PortFeature { feature: f, .. })) if f == feature)
}

/// Every chip of the table: a port state lands in PORT_CTL0 \[1:0\] of its last routed
/// port, and a software reset waits out INIT_READY (2 ms here), clears the port registers
/// and, on the PPU chips, lets the PPU poll again.
#[test]
fn every_chip_sets_port_states_and_waits_out_a_software_reset() {
    for &chip in Chip::ALL {
        let (mut sim, sw) = family_sim(chip, 2_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        let last = *valid_ports(chip).last().unwrap();
        smi.port_set_state(last, PortState::Learning).unwrap();
        assert_eq!(
            smi.port_state(last).unwrap(),
            PortState::Learning,
            "{chip:?}"
        );
        smi.port_enable(0).unwrap();
        let t0 = sim.clock.now_ns();
        smi.software_reset().unwrap();
        assert!(sim.clock.now_ns() - t0 >= 2_000_000, "{chip:?}");
        assert_eq!(
            smi.port_state(last).unwrap(),
            PortState::Disabled,
            "{chip:?}"
        );
        let _ = smi.release();
        let now = sim.clock.now_ns();
        let m = model(&mut sim);
        assert_eq!(m.resets(), 1, "{chip:?}");
        assert_eq!(m.port_reg(usize::from(last), 0x04), Some(0), "{chip:?}");
        if chip.info().phy_access == mv88e6xxx_smi::PhyAccess::PpuGated {
            assert_eq!(m.ppu_state(now), Some(regs::PPU_STATE_POLLING), "{chip:?}");
        }
    }
}

/// Each reset style (6185, 6352, 6250) ends in a bounded INIT_READY timeout when the
/// reset never ends.
#[test]
fn a_reset_that_never_ends_is_a_timeout_on_every_reset_style() {
    for chip in [Chip::Mv6085, Chip::Mv6390, Chip::Mv6393X, Chip::Mv6250] {
        let (mut sim, sw) = family_sim(chip, u64::MAX);
        let mut smi = attach_at!(sim, chip, sw, Config::new().with_timeout_ns(2_000_000));
        let t0 = sim.clock.now_ns();
        let e = smi.software_reset().unwrap_err();
        assert!(
            matches!(e, Error::Timeout(t) if t.wait == BusyWait::InitReady),
            "{chip:?}: {e:?}"
        );
        assert!(sim.clock.now_ns() - t0 < 4_000_000, "{chip:?}");
    }
}

/// PORT_MAC_CTL after one forced speed/duplex from "nothing forced" (0x0003), or the
/// speed refused, per family (Linux's `*_port_set_speed_duplex`).
#[test]
fn forced_speeds_follow_each_family_function() {
    use Duplex::{Full, Half};
    use Speed::*;
    type Case = (Chip, u8, Speed, Duplex, Result<u16, u16>);
    let cases: &[Case] = &[
        // 6390: ALTSPEED and FORCE_SPEED; 2500 on ports 9/10 is 3 | ALT.
        (Chip::Mv6390, 9, Mbps2500, Full, Ok(0x300F)),
        (Chip::Mv6390, 0, Mbps200, Full, Ok(0x300D)),
        (Chip::Mv6390, 1, Mbps1000, Half, Ok(0x2006)),
        (Chip::Mv6390, 1, Mbps2500, Full, Err(2500)),
        (Chip::Mv6390, 1, Mbps200, Full, Err(200)),
        (Chip::Mv6390, 9, Mbps10000, Full, Err(10000)),
        (Chip::Mv6191, 10, Mbps2500, Full, Ok(0x300F)),
        // 6390X: 10 G on ports 9/10 is field 3 with FORCE_SPEED.
        (Chip::Mv6390X, 10, Mbps10000, Full, Ok(0x200F)),
        (Chip::Mv6190X, 9, Mbps2500, Half, Ok(0x3007)),
        (Chip::Mv6390X, 5, Mbps10000, Full, Err(10000)),
        (Chip::Mv6390X, 9, Mbps5000, Full, Err(5000)),
        // 6393X: its own encoding (2500 = 2 | ALT, 5000 = 3 | ALT, 10000 = 3).
        (Chip::Mv6393X, 0, Mbps2500, Full, Ok(0x300E)),
        (Chip::Mv6393X, 9, Mbps5000, Full, Ok(0x300F)),
        (Chip::Mv6193X, 10, Mbps10000, Full, Ok(0x200F)),
        (Chip::Mv6191X, 0, Mbps200, Half, Ok(0x3005)),
        (Chip::Mv6393X, 4, Mbps2500, Full, Err(2500)),
        (Chip::Mv6393X, 1, Mbps200, Full, Err(200)),
        (Chip::Mv6361, 9, Mbps2500, Full, Ok(0x300E)),
        (Chip::Mv6361, 9, Mbps5000, Full, Err(5000)),
        (Chip::Mv6361, 10, Mbps10000, Full, Err(10000)),
        // 6341: ALTSPEED only on port 0, so 2500 on port 5 is field 3 alone.
        (Chip::Mv6341, 5, Mbps2500, Full, Ok(0x200F)),
        (Chip::Mv6141, 0, Mbps200, Full, Ok(0x300D)),
        (Chip::Mv6341, 3, Mbps2500, Full, Err(2500)),
        (Chip::Mv6341, 3, Mbps200, Full, Err(200)),
        // 6185-style function: no ALTSPEED, no FORCE_SPEED, 200 refused.
        (Chip::Mv6097, 3, Mbps1000, Full, Ok(0x000E)),
        (Chip::Mv6097, 3, Mbps200, Full, Err(200)),
        (Chip::Mv6085, 9, Mbps100, Half, Ok(0x0005)),
        (Chip::Mv6095, 10, Mbps1000, Full, Ok(0x000E)),
        (Chip::Mv6131, 7, Mbps2500, Full, Err(2500)),
        (Chip::Mv6320, 2, Mbps100, Half, Ok(0x0005)),
        (Chip::Mv6351, 6, Mbps200, Full, Err(200)),
        (Chip::Mv6165, 0, Mbps10, Full, Ok(0x000C)),
        (Chip::Mv6123, 2, Mbps1000, Full, Ok(0x000E)),
        // 6250 family: 10 and 100 only.
        (Chip::Mv6250, 5, Mbps100, Full, Ok(0x000D)),
        (Chip::Mv6220, 6, Mbps10, Half, Ok(0x0004)),
        (Chip::Mv6250, 5, Mbps1000, Full, Err(1000)),
        (Chip::Mv6071, 0, Mbps200, Full, Err(200)),
    ];
    for &(chip, port, speed, duplex, want) in cases {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        let f0 = smi.frames();
        let r = smi.port_set_speed_duplex(port, speed, duplex);
        match want {
            Ok(_) => assert_eq!(r, Ok(()), "{chip:?} {port} {speed:?}"),
            Err(mbps) => {
                assert!(
                    refused(r, Feature::Speed(mbps)),
                    "{chip:?} {port} {speed:?}"
                );
                assert_eq!(smi.frames(), f0, "{chip:?}: frames before the refusal");
            }
        }
        let _ = smi.release();
        let mac = model(&mut sim).port_reg(usize::from(port), 0x01).unwrap();
        assert_eq!(mac, want.unwrap_or(0x0003), "{chip:?} {port} {speed:?}");
    }
}

/// On the 6390 the speed field counts only with FORCE_SPEED set (the model keeps that
/// fact): a forced 100 shows in PORT_STS, the same field without FORCE_SPEED does not,
/// and unforcing clears FORCE_SPEED and keeps the other bits.
#[test]
fn force_speed_decides_on_the_6390() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6390, Attach::Indirect(2))
            .with_port_phys()
            .with_link_event(1_000_000, 1, true),
    );
    let mut smi = attach!(sim, Chip::Mv6390, Config::new());
    sim.clock.advance(1_000_000);
    let s = smi.port_link_status(1).unwrap();
    assert!(s.up && s.speed == LinkSpeed::Mbps1000, "{s:?}");
    smi.port_write(1, 0x01, 0x8003).unwrap(); // RGMII RX delay must survive
    smi.port_set_speed_duplex(1, Speed::Mbps100, Duplex::Full)
        .unwrap();
    assert_eq!(smi.port_read(1, 0x01).unwrap(), 0x8000 | 0x2000 | 0x000D);
    assert_eq!(smi.port_link_status(1).unwrap().speed, LinkSpeed::Mbps100);
    // The field alone (what a driver without FORCE_SPEED writes) forces nothing.
    smi.port_write(1, 0x01, 0x000D).unwrap();
    assert_eq!(smi.port_link_status(1).unwrap().speed, LinkSpeed::Mbps1000);
    smi.port_write(1, 0x01, 0x800D | 0x2000).unwrap();
    smi.port_set_speed_duplex(1, Speed::Unforced, Duplex::Unforced)
        .unwrap();
    assert_eq!(smi.port_read(1, 0x01).unwrap(), 0x8003);
    assert_eq!(smi.port_link_status(1).unwrap().speed, LinkSpeed::Mbps1000);
}

/// RGMII delays on exactly the ports each family's function takes; the others, and every
/// port of a chip without the op, are refused before any frame.
#[test]
fn rgmii_delays_on_the_ports_each_family_has() {
    let cases: &[(Chip, &[u8], &[u8])] = &[
        (Chip::Mv6390, &[0], &[1, 9]),
        (Chip::Mv6390X, &[0], &[10]),
        (Chip::Mv6393X, &[0], &[9]),
        (Chip::Mv6341, &[0], &[5]),
        (Chip::Mv6320, &[2, 5, 6], &[0, 3]),
        (Chip::Mv6351, &[5, 6], &[4]),
        (Chip::Mv6250, &[5, 6], &[0, 4]),
        (Chip::Mv6097, &[], &[0, 9]),
        (Chip::Mv6095, &[], &[9]),
        (Chip::Mv6131, &[], &[7]),
        (Chip::Mv6165, &[], &[5]),
    ];
    let both = RgmiiDelay { rx: true, tx: true };
    for &(chip, ok, bad) in cases {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        // The 6320's transmit delay needs its erratum workaround first (tests/units/errata.rs).
        if chip == Chip::Mv6320 {
            smi.apply_errata().unwrap();
        }
        for &p in ok {
            smi.port_set_rgmii_delay(p, both).unwrap();
        }
        let f0 = smi.frames();
        for &p in bad {
            assert!(
                refused(smi.port_set_rgmii_delay(p, both), Feature::RgmiiDelay),
                "{chip:?} {p}"
            );
        }
        assert_eq!(smi.frames(), f0, "{chip:?}");
        let _ = smi.release();
        let m = model(&mut sim);
        for &p in ok {
            assert_eq!(
                m.port_reg(usize::from(p), 0x01),
                Some(0xC003),
                "{chip:?} {p}"
            );
        }
        for &p in bad {
            assert_eq!(
                m.port_reg(usize::from(p), 0x01),
                Some(0x0003),
                "{chip:?} {p}"
            );
        }
    }
}

/// The CPU port set-up goes where each family keeps it (G1 MONITOR_CTL, the 6390's G1
/// MONITOR_MGMT_CTL table, the 6393's per-port POLICY_MGMT_CTL tables, PORT_CTL2).
#[test]
fn cpu_port_goes_where_each_family_keeps_it() {
    // 6390 / 6341: pointer 0x30 of the G1 table = priority 7 | port; no port register.
    for (chip, cpu) in [(Chip::Mv6390, 10u8), (Chip::Mv6341, 5), (Chip::Mv6190X, 0)] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.set_cpu_port(cpu).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        assert_eq!(m.monitor_mgmt(0x30), 0xE0 | cpu, "{chip:?}");
        assert_eq!(m.monitor_mgmt(0x20), 0, "{chip:?}");
        assert_eq!(m.port_reg(1, 0x08), Some(0), "{chip:?}");
    }
    // 6393 family: no global CPU port; pointer 0x38 of every routed port's table.
    for (chip, cpu) in [(Chip::Mv6393X, 0u8), (Chip::Mv6361, 9), (Chip::Mv6191X, 10)] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.set_cpu_port(cpu).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        for p in 0..usize::from(chip.info().num_ports) {
            let want = if chip.is_valid_port(p as u8) {
                0xE0 | cpu
            } else {
                0
            };
            assert_eq!(m.port_mgmt(p, 0x38), Some(want), "{chip:?} port {p}");
        }
        assert_eq!(m.monitor_mgmt(0x30), 0, "{chip:?}");
    }
    // 6095: upstream port only; 6131: both; 6097 / 6250: MONITOR_CTL only.
    for (chip, cpu, monitor, upstream) in [
        (Chip::Mv6095, 10u8, false, true),
        (Chip::Mv6131, 7, true, true),
        (Chip::Mv6097, 9, true, false),
        (Chip::Mv6250, 6, true, false),
        (Chip::Mv6320, 5, true, false),
    ] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.set_cpu_port(cpu).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        let want = if monitor { u16::from(cpu) << 4 } else { 0 };
        assert_eq!(m.g1_reg(0x1A), want, "{chip:?}");
        for p in valid_ports(chip) {
            let want = if upstream { u16::from(cpu) } else { 0 };
            assert_eq!(m.port_reg(usize::from(p), 0x08), Some(want), "{chip:?} {p}");
        }
    }
    // A CPU port the chip does not route: refused before any frame.
    for (chip, cpu) in [(Chip::Mv6393X, 11u8), (Chip::Mv6361, 8), (Chip::Mv6220, 3)] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        let f0 = smi.frames();
        assert_eq!(
            smi.set_cpu_port(cpu),
            Err(Error::Config(ConfigError::Port { port: cpu }))
        );
        assert_eq!(smi.frames(), f0);
    }
}

/// Mirror destinations per family; the 6095 has no such op.
#[test]
fn mirror_ports_go_where_each_family_keeps_them() {
    use mv88e6xxx_smi::port::MirrorDirection::{Egress, Ingress};
    let mut sim = sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352, Config::new());
    smi.set_cpu_port(4).unwrap();
    smi.set_mirror_port(Ingress, 5).unwrap();
    smi.set_mirror_port(Egress, 6).unwrap();
    let _ = smi.release();
    assert_eq!(model(&mut sim).g1_reg(0x1A), 0x5640);

    let (mut sim, sw) = family_sim(Chip::Mv6390, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6390, sw, Config::new());
    smi.set_mirror_port(Ingress, 9).unwrap();
    smi.set_mirror_port(Egress, 10).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!((m.monitor_mgmt(0x20), m.monitor_mgmt(0x21)), (9, 10));

    let (mut sim, sw) = family_sim(Chip::Mv6393X, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6393X, sw, Config::new());
    smi.set_mirror_port(Ingress, 10).unwrap();
    smi.set_mirror_port(Egress, 9).unwrap();
    assert_eq!(smi.g2_read(0x05).unwrap(), 9);
    let _ = smi.release();
    let m = model(&mut sim);
    for p in 0..11 {
        assert_eq!(m.port_mgmt(p, 0x30), Some(10), "port {p}");
    }
    assert_eq!(m.monitor_mgmt(0x20), 0);

    let (mut sim, sw) = family_sim(Chip::Mv6095, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6095, sw, Config::new());
    let f0 = smi.frames();
    assert!(refused(
        smi.set_mirror_port(Ingress, 1),
        Feature::MirrorPort
    ));
    assert!(refused(smi.set_mirror_port(Egress, 1), Feature::MirrorPort));
    assert_eq!(smi.frames(), f0);
}

/// Frame modes per family: the 6165 has no frame-mode op, the 6095 and 6123 normal and
/// DSA only, the others all four; the 6250 family's PORT_STS is not decoded.
#[test]
fn frame_modes_and_link_status_refusals_per_family() {
    for chip in [
        Chip::Mv6390,
        Chip::Mv6393X,
        Chip::Mv6097,
        Chip::Mv6250,
        Chip::Mv6131,
    ] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.port_set_frame_mode(1, FrameMode::EtherTypeDsa).unwrap();
        let _ = smi.release();
        assert_eq!(model(&mut sim).port_reg(1, 0x04), Some(0x0300), "{chip:?}");
    }
    for (chip, dsa_ok) in [
        (Chip::Mv6095, true),
        (Chip::Mv6123, true),
        (Chip::Mv6165, false),
    ] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        assert_eq!(smi.port_set_frame_mode(1, FrameMode::Dsa).is_ok(), dsa_ok);
        let f0 = smi.frames();
        for mode in [FrameMode::Provider, FrameMode::EtherTypeDsa] {
            assert!(refused(
                smi.port_set_frame_mode(1, mode),
                Feature::FrameMode
            ));
        }
        if !dsa_ok {
            assert!(refused(
                smi.port_set_frame_mode(1, FrameMode::Normal),
                Feature::FrameMode
            ));
        }
        assert_eq!(smi.frames(), f0, "{chip:?}");
        let _ = smi.release();
        let want = if dsa_ok { 0x0100 } else { 0 };
        assert_eq!(model(&mut sim).port_reg(1, 0x04), Some(want), "{chip:?}");
    }
    for chip in [Chip::Mv6250, Chip::Mv6220, Chip::Mv6020, Chip::Mv6071] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        let f0 = smi.frames();
        assert!(matches!(
            smi.port_link_status(0),
            Err(Error::Config(ConfigError::PortFeature {
                feature: Feature::LinkStatus,
                ..
            }))
        ));
        assert_eq!(smi.frames(), f0);
        // Forced link still works: PORT_MAC_CTL bits 5 and 4.
        smi.port_set_forced_link(1, ForcedLink::Up).unwrap();
        assert_eq!(smi.port_read(1, 0x01).unwrap() & 0x0030, 0x0030);
    }
}

/// The pointer tables keep a value only when it is written with UPDATE (a driver that
/// leaves it out changes nothing), and read back through the pointer.
#[test]
fn mgmt_tables_take_only_update_writes_and_read_through_the_pointer() {
    let (mut sim, sw) = family_sim(Chip::Mv6390, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6390, sw, Config::new());
    smi.g1_write(0x1A, 0x3000 | 0x00E5).unwrap(); // no UPDATE
    smi.g1_write(0x1A, 0x3000).unwrap();
    assert_eq!(smi.g1_read(0x1A).unwrap(), 0x3000);
    smi.set_cpu_port(5).unwrap();
    smi.g1_write(0x1A, 0x2100).unwrap();
    assert_eq!(
        smi.g1_read(0x1A).unwrap(),
        0x2100,
        "other entries untouched"
    );
    smi.g1_write(0x1A, 0x3000).unwrap();
    assert_eq!(smi.g1_read(0x1A).unwrap(), 0x30E5);
    let _ = smi.release();

    let (mut sim, sw) = family_sim(Chip::Mv6393X, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6393X, sw, Config::new());
    smi.port_write(3, 0x0E, 0x3800 | 0x00E1).unwrap(); // no UPDATE
    let _ = smi.release();
    assert_eq!(model(&mut sim).port_mgmt(3, 0x38), Some(0));
}

/// Unknown-address flooding: PORT_CTL0 bits 2/3 on the 6352-style chips, PORT_CTL0 bit 2
/// and PORT_CTL2 bit 6 on the 6095/6131/6185, refused on the 6165; other bits kept.
#[test]
fn flooding_goes_where_each_family_keeps_it() {
    for (chip, old_style) in [
        (Chip::Mv6352, false),
        (Chip::Mv6390, false),
        (Chip::Mv6393X, false),
        (Chip::Mv6250, false),
        (Chip::Mv6097, false),
        (Chip::Mv6185, true),
        (Chip::Mv6095, true),
        (Chip::Mv6131, true),
    ] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.port_set_state(1, PortState::Forwarding).unwrap();
        smi.port_set_flood(1, true, true).unwrap();
        smi.port_set_flood(2, false, true).unwrap();
        smi.port_set_flood(3, true, false).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        let regs = |p: usize| (m.port_reg(p, 0x04).unwrap(), m.port_reg(p, 0x08).unwrap());
        if old_style {
            assert_eq!(regs(1), (0x0007, 0x0040), "{chip:?}");
            assert_eq!(regs(2), (0x0000, 0x0040), "{chip:?}");
            assert_eq!(regs(3), (0x0004, 0x0000), "{chip:?}");
        } else {
            assert_eq!(regs(1), (0x000F, 0), "{chip:?}");
            assert_eq!(regs(2), (0x0008, 0), "{chip:?}");
            assert_eq!(regs(3), (0x0004, 0), "{chip:?}");
        }
    }
    let (mut sim, sw) = family_sim(Chip::Mv6165, 1_000_000);
    let mut smi = attach_at!(sim, Chip::Mv6165, sw, Config::new());
    let f0 = smi.frames();
    assert!(refused(smi.port_set_flood(1, true, true), Feature::Flood));
    assert_eq!(smi.frames(), f0);
}

/// Linux `mv88e6xxx_set_port_mode` (chip.c): EDSA sets the egress mode and the frame mode
/// to EtherType DSA and the port's EtherType to 0xDADA (`ETH_P_EDSA`): PORT_ETH_TYPE
/// (0x0F) on the 6351-style chips, the extended port control table's entry 2 on the 6393
/// family. DSA and normal modes restore egress unmodified and 0x9100. A chip without the
/// EtherType frame mode refuses EDSA before any frame.
#[test]
fn tag_modes_set_egress_frame_and_ethertype_together() {
    use mv88e6xxx_smi::port::TagMode;
    for chip in [Chip::Mv6352, Chip::Mv6390, Chip::Mv6250, Chip::Mv6085] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.port_set_tag_mode(5, TagMode::Edsa).unwrap();
        smi.port_set_tag_mode(4, TagMode::Edsa).unwrap();
        smi.port_set_tag_mode(4, TagMode::Dsa).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        let ctl0 = m.port_reg(5, 0x04).unwrap();
        assert_eq!(ctl0 & 0x3300, 0x3300, "{chip:?}");
        assert_eq!(m.port_reg(5, 0x0F), Some(0xDADA), "{chip:?}");
        let ctl0 = m.port_reg(4, 0x04).unwrap();
        assert_eq!(ctl0 & 0x3300, 0x0100, "{chip:?}");
        assert_eq!(m.port_reg(4, 0x0F), Some(0x9100), "{chip:?}");
    }
    // The 6393 family: the EtherType goes through the extended port control table.
    let chip = Chip::Mv6393X;
    let (mut sim, sw) = family_sim(chip, 1_000_000);
    let mut smi = attach_at!(sim, chip, sw, Config::new());
    smi.port_set_tag_mode(9, TagMode::Edsa).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(m.port_reg(9, 0x04).unwrap() & 0x3300, 0x3300);
    assert_eq!(m.port_epc(9, 0x02), Some(0xDADA));
    // Normal and DSA frames only: EDSA refused before any frame; DSA writes no EtherType.
    for chip in [Chip::Mv6185, Chip::Mv6095] {
        let (mut sim, sw) = family_sim(chip, 1_000_000);
        let eth_type_at_reset = model(&mut sim).port_reg(5, 0x0F);
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        let f0 = smi.frames();
        assert!(refused(
            smi.port_set_tag_mode(5, TagMode::Edsa),
            Feature::FrameMode
        ));
        assert_eq!(smi.frames(), f0);
        smi.port_set_tag_mode(5, TagMode::Dsa).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        assert_eq!(m.port_reg(5, 0x04).unwrap() & 0x3300, 0x0100, "{chip:?}");
        assert_eq!(m.port_reg(5, 0x0F), eth_type_at_reset, "{chip:?}");
    }
}
