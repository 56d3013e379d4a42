//! Which 6393-family lanes erratum 4.8 (MMD 4 0xF074 bit 14) touches: as Linux v6.12
//! `pcs-639x.c`, which runs `mv88e6393x_erratum_4_8` only from
//! `mv88e6393x_sgmii_pcs_post_config` (the 1000BASE-X, SGMII and 2500BASE-X interfaces)
//! and never on the 5GBASE-R / 10GBASE-R / USXGMII path.

use mdio_bus::sim::C45Model;
use mdio_bus::{DevAddr, PhyAddr};
use mv88e6xxx_smi::Config;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};

/// The test's own facts (Linux v6.12 `serdes.h`): `MV88E6393X_ERRATA_4_8_REG` 0xF074,
/// `_BIT` 14, and `MV88E6393X_SERDES_POC` 0xF002, both MMD 4; POC PCS selections 0
/// 1000BASE-X, 1 2500BASE-X, 2/3 SGMII PHY/MAC, 4 5GBASE-R, 5 10GBASE-R, 6/7 USXGMII.
const ERRATA_4_8_REG: u16 = 0xF074;
const ERRATA_4_8_BIT: u16 = 1 << 14;
const POC: u16 = 0xF002;

fn f074_after_errata(pcs: u16, before: u16) -> u16 {
    let phyxs = DevAddr::PHYXS;
    let lane = move |a: PhyAddr| {
        C45Model::mv88e6393x_serdes_lane(a)
            .with(phyxs, ERRATA_4_8_REG, before)
            .with(phyxs, POC, pcs)
    };
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)).with_serdes_lanes_from(lane),
    );
    let mut sw = attach_at!(sim, Chip::Mv6393X, 2, Config::new());
    sw.serdes_6393x_apply_errata(0).unwrap();
    sw.phy_read_c45(PhyAddr::from_bits(0), phyxs, ERRATA_4_8_REG)
        .unwrap()
}

#[test]
fn erratum_4_8_sets_the_bit_on_1000base_x_and_sgmii_lanes() {
    for pcs in [0, 2, 3] {
        let v = f074_after_errata(pcs, 0x0001);
        assert_eq!(v, 0x0001 | ERRATA_4_8_BIT, "PCS {pcs}");
    }
}

#[test]
fn erratum_4_8_clears_the_bit_on_2500base_x_lanes() {
    // 2500BASE-X is on Linux's SGMII PCS path: 4.8 runs there and clears the bit.
    let v = f074_after_errata(1, 0x0001 | ERRATA_4_8_BIT);
    assert_eq!(v, 0x0001, "PCS 1");
}

#[test]
fn erratum_4_8_leaves_5g_10g_and_usxgmii_lanes_alone() {
    for pcs in [4, 5, 6, 7] {
        let v = f074_after_errata(pcs, 0x0001 | ERRATA_4_8_BIT);
        assert_eq!(v, 0x0001 | ERRATA_4_8_BIT, "PCS {pcs}");
    }
}

/// Erratum 4.6 (Linux v6.12 `pcs-639x.c` `mv88e6393x_erratum_4_6`; the test's own facts
/// from `serdes.h`): POC bit 5 (PDOWN) cleared and bit 15 (RESET) set, then the lane
/// powered down: SGMII BMCR (MMD 4 0x2000) bit 11 set, CTRL1 (MMD 4 0xF003) bits 9 and 8
/// set; the other bits kept. Other chips are refused before any frame.
#[test]
fn erratum_4_6_clears_poc_pdown_and_powers_the_lane_down() {
    let phyxs = DevAddr::PHYXS;
    let lane = move |a: PhyAddr| {
        C45Model::mv88e6393x_serdes_lane(a)
            .with(phyxs, POC, 0x0028)
            .with(phyxs, 0x2000, 0x1140)
            .with(phyxs, 0xF003, 0x0001)
    };
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)).with_serdes_lanes_from(lane),
    );
    let mut sw = attach_at!(sim, Chip::Mv6393X, 2, Config::new());
    for port in [0, 9, 10] {
        sw.serdes_6393x_erratum_4_6(port).unwrap();
        let mut rd = |reg: u16| {
            sw.phy_read_c45(PhyAddr::from_bits(port), phyxs, reg)
                .unwrap()
        };
        assert_eq!(rd(POC), 0x8008, "port {port} POC");
        assert_eq!(rd(0x2000), 0x1940, "port {port} BMCR");
        assert_eq!(rd(0xF003), 0x0301, "port {port} CTRL1");
    }
    assert!(sw.serdes_6393x_erratum_4_6(1).is_err());
    let _ = sw.release();

    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Indirect(2)));
    let mut sw = attach_at!(sim, Chip::Mv6390, 2, Config::new());
    let f0 = sw.frames();
    assert!(matches!(
        sw.serdes_6393x_erratum_4_6(9),
        Err(mv88e6xxx_smi::Error::Config(
            mv88e6xxx_smi::ConfigError::SerdesLane { port: 9 }
        ))
    ));
    assert_eq!(sw.frames(), f0);
}
