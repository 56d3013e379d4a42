//! Errata and the hardware-reset waits on the model: the EEPROM load after a hardware
//! reset (Linux `hardware_reset_pre`/`_post` per chip), the 6390-family copper errata and
//! the 6320 RGMII transmit-delay erratum through the ports' hidden registers, checked in
//! the model's own record of hidden-register accesses.

use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::port::{ERRATA_6320_VALUE, ERRATA_6390_VALUE, EepromWait, Errata, RgmiiDelay};
use mv88e6xxx_smi::sim::{Attach, ChipModel, HiddenAccess, SwitchSim};
use mv88e6xxx_smi::{BusyWait, Config, ConfigError, Error, Feature};

fn model(sim: &mut SwitchSim) -> &ChipModel {
    sim.bus.device().chip(0).unwrap()
}

const LOAD_NS: u64 = 5_000_000;

/// An EEPROM load runs 5 ms after the reset: the wait after the reset returns only once
/// it is over (a 6352: G2_EEPROM_CMD RUNNING clear; the 6250 family: G1_STS EEPROM done,
/// its G2 RUNNING bit can stay set), so the write after it is not lost to the register
/// loader.
#[test]
fn after_hardware_reset_waits_for_the_eeprom_load() {
    for (chip, at, sw) in [
        (Chip::Mv6352, Attach::Indirect(2), 2),
        (Chip::Mv6250, Attach::DualChip(16), 16),
    ] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, at).with_eeprom_load_ns(LOAD_NS));
        let mut smi = attach_at!(sim, chip, sw, Config::new());
        smi.after_hardware_reset().unwrap();
        smi.port_write(1, 0x04, 0x007F).unwrap();
        let _ = smi.release();
        assert!(sim.clock.now_ns() >= LOAD_NS, "{chip:?}");
        assert_eq!(model(&mut sim).eeprom_collisions(), 0, "{chip:?}");
        assert_eq!(model(&mut sim).port_reg(1, 0x04), Some(0x007F), "{chip:?}");
    }
}

/// A load longer than the bound: a typed timeout naming the EEPROM wait.
#[test]
fn an_eeprom_load_past_the_deadline_is_a_typed_timeout() {
    for (chip, attach_as, sw, wait) in [
        (Chip::Mv6352, Attach::Indirect(2), 2, BusyWait::EepromCmd),
        (Chip::Mv6250, Attach::DualChip(16), 16, BusyWait::EepromDone),
    ] {
        let mut sim =
            SwitchSim::single(ChipModel::new(chip, attach_as).with_eeprom_load_ns(100_000_000));
        let mut smi = attach_at!(sim, chip, sw, Config::new().with_timeout_ns(2_000_000));
        let e = smi.after_hardware_reset().unwrap_err();
        assert!(
            matches!(e, Error::Timeout(t) if t.wait == wait),
            "{chip:?}: {e:?}"
        );
    }
}

/// Before the reset on the 6250: EEPROM done already read (cleared), so a reload is
/// requested and waited for, as Linux's `mv88e6250_g1_wait_eeprom_done_prereset`.
#[test]
fn before_hardware_reset_reloads_the_6250_eeprom_when_done_was_read() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6250, Attach::DualChip(16)).with_eeprom_load_ns(LOAD_NS),
    );
    let mut smi = attach_at!(sim, Chip::Mv6250, 16, Config::new());
    smi.after_hardware_reset().unwrap();
    let t0 = sim.clock.now_ns();
    // EEPROM done was consumed by the wait: a second load has to run.
    smi.before_hardware_reset().unwrap();
    let t1 = sim.clock.now_ns();
    let _ = smi.release();
    assert!(t1 - t0 >= LOAD_NS, "{t0} {t1}");
    let now = sim.clock.now_ns();
    assert!(!model(&mut sim).eeprom_loading(now));
}

#[test]
fn eeprom_waits_follow_linux_per_chip() {
    use Chip::*;
    for chip in [
        Mv6352, Mv6172, Mv6176, Mv6240, Mv6320, Mv6321, Mv6141, Mv6341, Mv6390, Mv6393X, Mv6361,
    ] {
        assert_eq!(EepromWait::of(chip), Some(EepromWait::G2Cmd), "{chip:?}");
    }
    for chip in [Mv6020, Mv6071, Mv6220, Mv6250] {
        assert_eq!(EepromWait::of(chip), Some(EepromWait::G1Done), "{chip:?}");
    }
    for chip in [
        Mv6085, Mv6095, Mv6097, Mv6123, Mv6131, Mv6161, Mv6165, Mv6171, Mv6175, Mv6185, Mv6350,
        Mv6351,
    ] {
        assert_eq!(EepromWait::of(chip), None, "{chip:?}");
    }
}

/// A chip without the hooks: no frame before the reset.
#[test]
fn before_hardware_reset_sends_nothing_on_chips_without_the_hook() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)));
    let mut smi = attach_at!(sim, Chip::Mv6185, 2, Config::new());
    let f0 = smi.frames();
    smi.before_hardware_reset().unwrap();
    assert_eq!(smi.frames(), f0);
}

fn writes(log: &[HiddenAccess]) -> Vec<(u8, u8, u8, u16)> {
    log.iter()
        .filter(|a| a.write)
        .map(|a| (a.block, a.port, a.reg, a.value))
        .collect()
}

/// The 6390 copper errata: every port's hidden register (0xF, port, 0) written with
/// 0x01C0, with the ports disabled first, then a software reset; a second call sees the
/// errata applied and writes nothing.
#[test]
fn the_6390_copper_errata_write_each_port_then_reset() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Indirect(2)));
    let mut smi = attach_at!(sim, Chip::Mv6390, 2, Config::new());
    for p in 0..11 {
        smi.port_set_state(p, mv88e6xxx_smi::port::PortState::Forwarding)
            .unwrap();
    }
    smi.apply_errata().unwrap();
    smi.apply_errata().unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    let expected: Vec<_> = (0..11).map(|p| (0xF, p, 0, ERRATA_6390_VALUE)).collect();
    assert_eq!(writes(m.hidden_accesses()), expected);
    assert_eq!(m.resets(), 1);
    for p in 0..11 {
        assert_eq!(m.hidden_reg(0xF, p, 0), ERRATA_6390_VALUE);
    }
}

/// The 6320 erratum 3.3: hidden register (0, 0xF, 7) = 0xE000, then read back; no reset.
#[test]
fn the_6320_rgmii_erratum_writes_its_hidden_register() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6320, Attach::Indirect(2)));
    let mut smi = attach_at!(sim, Chip::Mv6320, 2, Config::new());
    smi.apply_errata().unwrap();
    let _ = smi.release();
    let log = model(&mut sim).hidden_accesses();
    let seq: Vec<_> = log
        .iter()
        .map(|a| (a.write, a.block, a.port, a.reg, a.value))
        .collect();
    assert_eq!(
        seq,
        [
            (true, 0, 0xF, 7, ERRATA_6320_VALUE),
            (false, 0, 0xF, 7, ERRATA_6320_VALUE)
        ]
    );
    assert_eq!(model(&mut sim).resets(), 0);
}

/// Chips without errata in Linux: nothing is sent.
#[test]
fn chips_without_errata_send_nothing() {
    for chip in [Chip::Mv6352, Chip::Mv6393X, Chip::Mv6341] {
        assert_eq!(Errata::of(chip), None);
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
        let mut smi = attach_at!(sim, chip, 2, Config::new());
        let f0 = smi.frames();
        smi.apply_errata().unwrap();
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
}

/// The 6320's RGMII transmit delay is refused, before any frame, until the erratum
/// workaround is in; the receive delay alone is not.
#[test]
fn the_6320_tx_delay_is_refused_until_the_erratum_is_applied() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6320, Attach::Indirect(2)));
    let mut smi = attach_at!(sim, Chip::Mv6320, 2, Config::new());
    let f0 = smi.frames();
    let e = smi
        .port_set_rgmii_delay(5, RgmiiDelay { rx: true, tx: true })
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Config(ConfigError::PortFeature {
                feature: Feature::RgmiiTxDelayErratum,
                port: Some(5),
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(smi.frames(), f0);
    smi.port_set_rgmii_delay(
        5,
        RgmiiDelay {
            rx: true,
            tx: false,
        },
    )
    .unwrap();
    smi.apply_errata().unwrap();
    smi.port_set_rgmii_delay(5, RgmiiDelay { rx: true, tx: true })
        .unwrap();
    // A hardware reset undoes the workaround: refused again.
    smi.after_hardware_reset().unwrap();
    assert!(
        smi.port_set_rgmii_delay(
            5,
            RgmiiDelay {
                rx: false,
                tx: true
            }
        )
        .is_err()
    );
}

/// The 6393 family's SERDES errata (Linux `pcs-639x.c`): erratum 4.8 sets MMD 4 0xF074 bit
/// 14 on a 1000BASE-X/SGMII lane and leaves it alone on a 10GBASE-R lane (Linux runs 4.8
/// on the SGMII PCS path only; tests/units/serdes6393x_scope.rs has every mode); erratum
/// 5.2's seven read-modify-writes run on a 10GBASE-R lane only. Other chips are refused
/// before any frame.
#[test]
fn the_6393x_serdes_errata_follow_the_lane_mode() {
    use mdio_bus::sim::C45Model;
    use mdio_bus::{DevAddr, PhyAddr};
    // The test's own facts (Linux `pcs-639x.c`): MV88E6393X_ERRATA_4_8_REG 0xF074 and
    // MV88E6393X_SERDES_POC 0xF002, both MMD 4.
    const SERDES_6393X_ERRATA_4_8_REG: u16 = 0xF074;
    const SERDES_6393X_POC: u16 = 0xF002;
    let vend1 = DevAddr::new(30).unwrap();
    let phyxs = DevAddr::PHYXS;
    let lane = move |a: PhyAddr| {
        let m = C45Model::mv88e6393x_serdes_lane(a)
            .with(phyxs, SERDES_6393X_ERRATA_4_8_REG, 0x4001)
            .with(vend1, 0x8093, 0)
            .with(vend1, 0x8171, 0)
            .with(vend1, 0x80C9, 0)
            .with(vend1, 0x80A2, 0x0080)
            .with(vend1, 0x80A9, 0x000F)
            .with(vend1, 0x80A3, 0x0701);
        // Port 9's lane runs 10GBASE-R (POC PCS 5); the others 1000BASE-X (PCS 0).
        if a.get() == 9 {
            m.with(phyxs, SERDES_6393X_POC, 0x0005)
        } else {
            m.with(phyxs, SERDES_6393X_ERRATA_4_8_REG, 0x0001)
        }
    };
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)).with_serdes_lanes_from(lane),
    );
    let mut smi = attach_at!(sim, Chip::Mv6393X, 2, Config::new());
    smi.serdes_6393x_apply_errata(0).unwrap();
    smi.serdes_6393x_apply_errata(9).unwrap();
    let mut rd = |phy: u8, devad: DevAddr, reg: u16| {
        smi.phy_read_c45(PhyAddr::new(phy).unwrap(), devad, reg)
            .unwrap()
    };
    // 1000BASE-X lane: bit 14 set, nothing of 5.2.
    assert_eq!(rd(0, phyxs, SERDES_6393X_ERRATA_4_8_REG), 0x4001);
    assert_eq!(rd(0, vend1, 0x8093), 0);
    // 10GBASE-R lane: bit 14 untouched, 5.2 applied with its masks, POC reset set.
    assert_eq!(rd(9, phyxs, SERDES_6393X_ERRATA_4_8_REG), 0x4001);
    assert_eq!(rd(9, vend1, 0x8093), 0xCB5A);
    assert_eq!(rd(9, vend1, 0x8171), 0x7088);
    assert_eq!(rd(9, vend1, 0x80C9), 0x311A);
    assert_eq!(rd(9, vend1, 0x80A2), 0x8080);
    assert_eq!(rd(9, vend1, 0x80A9), 0x000F);
    assert_eq!(rd(9, vend1, 0x80A3), 0x0701 & !0xF8FF);
    assert_eq!(rd(9, phyxs, SERDES_6393X_POC), 0x8005);
    let _ = smi.release();
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Indirect(2)));
    let mut smi = attach_at!(sim, Chip::Mv6390, 2, Config::new());
    let f0 = smi.frames();
    assert!(matches!(
        smi.serdes_6393x_apply_errata(9),
        Err(Error::Config(ConfigError::SerdesLane { port: 9 }))
    ));
    assert_eq!(smi.frames(), f0);
}
