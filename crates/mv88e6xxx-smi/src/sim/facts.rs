//! The model's own chip table: what each of the 34 chips has, transcribed from Linux and
//! kept apart from the driver's tables, so that a wrong fact in one of them shows up as a
//! difference between the two (`tests/model/chip_table.rs` compares them field by field).
//!
//! Source: Linux `drivers/net/dsa/mv88e6xxx/chip.c`, `mv88e6xxx_table[]` and the
//! per-chip `mv88e6xxx_ops` tables, read at torvalds/linux commit
//! 578464679f33cde8331507c78f7b302299df7783, with the later mainline commits that change
//! the table applied as their patches state them (each cited at the field it changes):
//!
//! - the 6020 usable-ports fix (lore msgid
//!   20240326123655.40666-1-matthias.schiffer@ew.tq-group.com, v6.9, March 2024): 7
//!   ports, ports 2-4 not routed;
//! - b9a61c20179f "net: dsa: mv88e6xxx: Fix number of databases for 88E6141 / 88E6341"
//!   (v6.9, April 2024): `num_databases = 256` on the 6141 and 6341;
//! - 1833d8a26f05 "net: dsa: mv88e6xxx: Fix the max_vid definition for the MV88E6361"
//!   (v6.12, October 2024): 6361 `max_vid = 8191`;
//! - 4ae01ec00771 "net: dsa: mv88e6xxx: fix atu_move_port_mask for 6341 family"
//!   (v6.15, March 2025): `atu_move_port_mask = 0xf` on the 6141 and 6341;
//! - 52fdc41c3278 "fix internal PHYs for 6320 family" (v6.15): 6320/6321
//!   `num_internal_phys = 2`, `internal_phys_offset = 3`;
//! - f9a457722cf5 "fix VTU methods for 6320 family" (v6.15): 6320/6321
//!   `mv88e6352_g1_vtu_*` (the tree read has `mv88e6185_g1_vtu_*` there);
//! - 1428a6109b20 "enable STU methods for 6320 family" (v6.15): 6320/6321 `max_sid = 63`
//!   and the `mv88e6352_g1_stu_*` ops.
//!
//! Facts only; no Linux code or prose.

use crate::chip::Chip;

/// Linux's `enum mv88e6xxx_family` (`chip.h`, `MV88E6XXX_FAMILY_*`), as the model needs
/// it: which chips share the indirect tables and register quirks of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinuxFamily {
    /// `MV88E6XXX_FAMILY_6065`.
    F6065,
    /// `MV88E6XXX_FAMILY_6095`: 6092, 6095.
    F6095,
    /// `MV88E6XXX_FAMILY_6097`: 6046, 6085, 6096, 6097.
    F6097,
    /// `MV88E6XXX_FAMILY_6165`: 6123, 6161, 6165.
    F6165,
    /// `MV88E6XXX_FAMILY_6185`: 6108, 6121, 6122, 6131, 6152, 6155, 6182, 6185.
    F6185,
    /// `MV88E6XXX_FAMILY_6250`: 6020, 6071, 6220, 6250.
    F6250,
    /// `MV88E6XXX_FAMILY_6320`: 6320, 6321.
    F6320,
    /// `MV88E6XXX_FAMILY_6341`: 6141, 6341.
    F6341,
    /// `MV88E6XXX_FAMILY_6351`: 6171, 6175, 6350, 6351.
    F6351,
    /// `MV88E6XXX_FAMILY_6352`: 6172, 6176, 6240, 6352.
    F6352,
    /// `MV88E6XXX_FAMILY_6390`: 6190, 6190X, 6191, 6290, 6390, 6390X.
    F6390,
    /// `MV88E6XXX_FAMILY_6393`: 6191X, 6193X, 6361, 6393X.
    F6393,
}

/// How the chip is reached when it is not in single-chip mode (`chip.c` info table
/// `multi_chip` / `dual_chip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmiKind {
    /// `.multi_chip = true`: SMI_CMD/SMI_DATA at a non-zero address.
    MultiChip,
    /// `.dual_chip = true`: 16 consecutive addresses.
    DualChip,
}

/// How the host reaches the PHY registers (the ops table's `phy_read`/`phy_write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhyKind {
    /// `mv88e6xxx_g2_smi_phy_read_c22`/`_write_c22`: through Global2 SMI_PHY_CMD.
    Global2,
    /// `mv88e6185_phy_ppu_read`/`_write`: PHYs are switch devices, the PPU stopped
    /// around each access.
    PpuGated,
    /// `mv88e6165_phy_read`/`_write`: PHYs are switch devices, no PPU to stop.
    Direct,
}

/// Which VTU/STU register layout the ops table names (`vtu_getnext`/`vtu_loadpurge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VtuKind {
    /// `mv88e6185_g1_vtu_*`: DATA1..3 with 4 bits per port, FID split over G1_VTU_OP.
    Mv6185,
    /// `mv88e6352_g1_vtu_*`: DATA1..3 with 4 bits per port, FID and SID registers.
    Mv6352,
    /// `mv88e6390_g1_vtu_*`: DATA1..2 with 2 bits per port, VID page bit.
    Mv6390,
}

/// The statistics unit as the ops table drives it (`stats_snapshot`,
/// `stats_set_histogram`, `stats_get_stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MibKind {
    /// `mv88e6xxx_g1_stats_snapshot`: the port number in G1_STATS_OP \[4:0\]; otherwise
    /// (`mv88e6320_`/`mv88e6390_g1_stats_snapshot`) port + 1 in \[9:5\].
    pub port_low: bool,
    /// `mv88e6095_g1_stats_set_histogram`: the histogram mode in G1_STATS_OP \[11:10\];
    /// otherwise (`mv88e6390_g1_stats_set_histogram`) in G1_CTL2 \[7:6\].
    pub hist_in_op: bool,
    /// The READ_CAPTURED bit that selects bank 1 (`MV88E6XXX_G1_STATS_OP_BANK_1_BIT_9`
    /// 0x0200 for `mv88e6320_stats_get_stats`, `_BIT_10` 0x0400 for
    /// `mv88e6390_stats_get_stats`); 0 when the chip's stats op reads no bank 1.
    pub bank1: u16,
    /// Whether the stats op also reads PORT 0x10–0x13 (`mv88e6095_stats_get_stats`).
    pub port_regs: bool,
}

/// One chip's row of the model's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipFacts {
    /// `prod_num` as PORT_SWITCH_ID carries it (`MV88E6XXX_PORT_SWITCH_ID_PROD_*`, port.h).
    pub product_num: u16,
    /// `family`.
    pub family: LinuxFamily,
    /// `num_ports`.
    pub num_ports: u8,
    /// `invalid_port_mask`.
    pub invalid_port_mask: u16,
    /// `num_internal_phys`.
    pub num_internal_phys: u8,
    /// `internal_phys_offset`.
    pub internal_phys_offset: u8,
    /// `port_base_addr`.
    pub port_base: u8,
    /// `phy_base_addr`.
    pub phy_base: u8,
    /// `global1_addr`.
    pub global1: u8,
    /// `global2_addr`.
    pub global2: u8,
    /// `multi_chip` / `dual_chip`.
    pub smi: SmiKind,
    /// `phy_read` op.
    pub phy: PhyKind,
    /// `num_databases`: FIDs `0..num_databases`.
    pub num_databases: u16,
    /// `age_time_coeff` in ms.
    pub age_time_coeff_ms: u32,
    /// `atu_move_port_mask`: the width of each port field of an ATU move.
    pub atu_move_port_mask: u8,
    /// `max_vid`.
    pub max_vid: u16,
    /// `max_sid` (0: the chip has no STU, `max_sid` unset and no `stu_*` ops).
    pub max_sid: u8,
    /// `vtu_getnext`/`vtu_loadpurge` op.
    pub vtu: VtuKind,
    /// `g1_irqs`: Global1 sources in G1_STS / G1_CTL1.
    pub g1_irqs: u8,
    /// `g2_irqs`: Global2 sources (0: none).
    pub g2_irqs: u8,
    /// The statistics ops.
    pub mib: MibKind,
}

impl ChipFacts {
    /// Bit `n` set for every port that exists and is routed.
    pub const fn port_vector(&self) -> u16 {
        let all = match 1u16.checked_shl(self.num_ports as u32) {
            Some(b) => b.wrapping_sub(1),
            None => u16::MAX,
        };
        all & !self.invalid_port_mask
    }

    /// Whether port `port` has an internal PHY.
    pub const fn has_internal_phy(&self, port: u8) -> bool {
        port >= self.internal_phys_offset
            && (port as u16)
                < (self.internal_phys_offset as u16).wrapping_add(self.num_internal_phys as u16)
    }

    /// Whether the chip has an STU.
    pub const fn has_stu(&self) -> bool {
        self.max_sid != 0
    }
}

// MIB kinds by ops table (chip.c `*_ops`: stats_snapshot + stats_set_histogram +
// stats_get_stats).
/// `mv88e6xxx_g1_stats_snapshot` + `mv88e6095_g1_stats_set_histogram` +
/// `mv88e6095_stats_get_stats` (6085, 6095, 6097, 6131, 6161, 6165, 6185).
const MIB_6095: MibKind = MibKind {
    port_low: true,
    hist_in_op: true,
    bank1: 0,
    port_regs: true,
};
/// `mv88e6320_g1_stats_snapshot` + `mv88e6095_g1_stats_set_histogram` +
/// `mv88e6095_stats_get_stats` (6123, 6171, 6172, 6175, 6176, 6240, 6350, 6351, 6352).
const MIB_6352: MibKind = MibKind {
    port_low: false,
    hist_in_op: true,
    bank1: 0,
    port_regs: true,
};
/// `mv88e6320_g1_stats_snapshot` + `mv88e6320_stats_get_stats` (6320, 6321).
const MIB_6320: MibKind = MibKind {
    port_low: false,
    hist_in_op: true,
    bank1: 0x0200,
    port_regs: false,
};
/// `mv88e6320_g1_stats_snapshot` + `mv88e6250_stats_get_stats` (6250 family).
const MIB_6250: MibKind = MibKind {
    port_low: false,
    hist_in_op: true,
    bank1: 0,
    port_regs: false,
};
/// `mv88e6390_g1_stats_snapshot` + `mv88e6390_g1_stats_set_histogram` +
/// `mv88e6390_stats_get_stats` (6341, 6390 and 6393 families).
const MIB_6390: MibKind = MibKind {
    port_low: false,
    hist_in_op: false,
    bank1: 0x0400,
    port_regs: false,
};

/// The fields every chip of a family shares in `mv88e6xxx_table[]`; each chip below
/// overrides what differs.
const fn family_row(family: LinuxFamily, product_num: u16) -> ChipFacts {
    use LinuxFamily::*;
    // Address map: 0x10/0x0/0x1b/0x1c multi-chip, except the 6341 family (PHYs at
    // 0x10), the 6390/6393 families (ports and PHYs at 0) and the 6250 family
    // (dual-chip, ports 0x08, Global1 0x0f, Global2 0x07).
    let (port_base, phy_base, global1, global2, smi) = match family {
        F6341 => (0x10, 0x10, 0x1B, 0x1C, SmiKind::MultiChip),
        F6390 | F6393 => (0x00, 0x00, 0x1B, 0x1C, SmiKind::MultiChip),
        F6250 => (0x08, 0x00, 0x0F, 0x07, SmiKind::DualChip),
        _ => (0x10, 0x00, 0x1B, 0x1C, SmiKind::MultiChip),
    };
    let fast = matches!(family, F6341 | F6390 | F6393);
    let (vtu, max_sid, mib) = match family {
        F6095 | F6185 => (VtuKind::Mv6185, 0, MIB_6095),
        F6250 => (VtuKind::Mv6185, 0, MIB_6250),
        F6097 => (VtuKind::Mv6352, 63, MIB_6095),
        F6165 => (VtuKind::Mv6352, 63, MIB_6095),
        // f9a457722cf5 and 1428a6109b20.
        F6320 => (VtuKind::Mv6352, 63, MIB_6320),
        F6341 => (VtuKind::Mv6352, 63, MIB_6390),
        F6390 | F6393 => (VtuKind::Mv6390, 63, MIB_6390),
        _ => (VtuKind::Mv6352, 63, MIB_6352),
    };
    ChipFacts {
        product_num,
        family,
        num_ports: 7,
        invalid_port_mask: 0,
        num_internal_phys: 5,
        internal_phys_offset: 0,
        port_base,
        phy_base,
        global1,
        global2,
        smi,
        phy: PhyKind::Global2,
        num_databases: match family {
            F6250 => 64,
            // b9a61c20179f for the 6341 family.
            F6095 | F6185 | F6341 => 256,
            _ => 4096,
        },
        age_time_coeff_ms: if fast { 3_750 } else { 15_000 },
        // 0x1f only on the 6390 and 6393 families (4ae01ec00771: 0xf on the 6341 family).
        atu_move_port_mask: if matches!(family, F6390 | F6393) {
            0x1F
        } else {
            0x0F
        },
        max_vid: if matches!(family, F6390 | F6393) {
            8191
        } else {
            4095
        },
        max_sid,
        vtu,
        g1_irqs: 9,
        g2_irqs: 10,
        mib,
    }
}

/// The model's facts for `chip` (Linux `mv88e6xxx_table[]` row and ops table).
pub const fn chip_facts(chip: Chip) -> ChipFacts {
    use LinuxFamily::*;
    match chip {
        // Ports 2-4 are not routed to pins: the Linux fix posted as
        // 20240326123655.40666-1-matthias.schiffer@ew.tq-group.com (v6.9) replaced
        // `num_ports = 4` by 7 ports with `invalid_port_mask = BIT(2) | BIT(3) | BIT(4)`.
        Chip::Mv6020 => ChipFacts {
            invalid_port_mask: 0x001C,
            num_internal_phys: 2,
            g2_irqs: 5,
            ..family_row(F6250, 0x0200)
        },
        Chip::Mv6071 => ChipFacts {
            g2_irqs: 5,
            ..family_row(F6250, 0x0710)
        },
        Chip::Mv6085 => ChipFacts {
            num_ports: 10,
            g1_irqs: 8,
            phy: PhyKind::PpuGated,
            ..family_row(F6097, 0x04A0)
        },
        Chip::Mv6095 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 0,
            g1_irqs: 8,
            g2_irqs: 0,
            phy: PhyKind::PpuGated,
            ..family_row(F6095, 0x0950)
        },
        Chip::Mv6097 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 8,
            g1_irqs: 8,
            ..family_row(F6097, 0x0990)
        },
        Chip::Mv6123 => ChipFacts {
            num_ports: 3,
            mib: MIB_6352,
            ..family_row(F6165, 0x1210)
        },
        Chip::Mv6131 => ChipFacts {
            num_ports: 8,
            num_internal_phys: 0,
            g2_irqs: 0,
            phy: PhyKind::PpuGated,
            ..family_row(F6185, 0x1060)
        },
        Chip::Mv6141 => ChipFacts {
            num_ports: 6,
            ..family_row(F6341, 0x3400)
        },
        Chip::Mv6161 => ChipFacts {
            num_ports: 6,
            ..family_row(F6165, 0x1610)
        },
        Chip::Mv6165 => ChipFacts {
            num_ports: 6,
            num_internal_phys: 0,
            phy: PhyKind::Direct,
            ..family_row(F6165, 0x1650)
        },
        Chip::Mv6171 => family_row(F6351, 0x1710),
        Chip::Mv6172 => family_row(F6352, 0x1720),
        Chip::Mv6175 => family_row(F6351, 0x1750),
        Chip::Mv6176 => family_row(F6352, 0x1760),
        Chip::Mv6185 => ChipFacts {
            num_ports: 10,
            num_internal_phys: 0,
            g1_irqs: 8,
            g2_irqs: 0,
            phy: PhyKind::PpuGated,
            ..family_row(F6185, 0x1A70)
        },
        Chip::Mv6190 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x1900)
        },
        Chip::Mv6190X => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x0A00)
        },
        Chip::Mv6191 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x1910)
        },
        Chip::Mv6191X => ChipFacts {
            num_ports: 11,
            num_internal_phys: 8,
            internal_phys_offset: 1,
            g1_irqs: 10,
            g2_irqs: 14,
            ..family_row(F6393, 0x1920)
        },
        Chip::Mv6193X => ChipFacts {
            num_ports: 11,
            num_internal_phys: 8,
            internal_phys_offset: 1,
            g1_irqs: 10,
            g2_irqs: 14,
            ..family_row(F6393, 0x1930)
        },
        Chip::Mv6220 => ChipFacts {
            // Ports 2-4 are not routed to pins.
            invalid_port_mask: 0x001C,
            num_internal_phys: 2,
            ..family_row(F6250, 0x2200)
        },
        Chip::Mv6240 => family_row(F6352, 0x2400),
        Chip::Mv6250 => family_row(F6250, 0x2500),
        Chip::Mv6290 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x2900)
        },
        // 52fdc41c3278 (PHYs), 1428a6109b20 (STU); g1_irqs 8 as read at 578464679f33.
        Chip::Mv6320 => ChipFacts {
            num_internal_phys: 2,
            internal_phys_offset: 3,
            g1_irqs: 8,
            ..family_row(F6320, 0x1150)
        },
        Chip::Mv6321 => ChipFacts {
            num_internal_phys: 2,
            internal_phys_offset: 3,
            g1_irqs: 8,
            ..family_row(F6320, 0x3100)
        },
        Chip::Mv6341 => ChipFacts {
            num_ports: 6,
            ..family_row(F6341, 0x3410)
        },
        Chip::Mv6350 => family_row(F6351, 0x3710),
        Chip::Mv6351 => family_row(F6351, 0x3750),
        Chip::Mv6352 => family_row(F6352, 0x3520),
        Chip::Mv6361 => ChipFacts {
            num_ports: 11,
            // Ports 1, 2 and 8 are not routed.
            invalid_port_mask: 0x0106,
            num_internal_phys: 5,
            internal_phys_offset: 3,
            g1_irqs: 10,
            g2_irqs: 14,
            ..family_row(F6393, 0x2610)
        },
        Chip::Mv6390 => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x3900)
        },
        Chip::Mv6390X => ChipFacts {
            num_ports: 11,
            num_internal_phys: 9,
            g2_irqs: 14,
            ..family_row(F6390, 0x0A10)
        },
        Chip::Mv6393X => ChipFacts {
            num_ports: 11,
            num_internal_phys: 8,
            internal_phys_offset: 1,
            g1_irqs: 10,
            g2_irqs: 14,
            ..family_row(F6393, 0x3930)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spot_checks_against_the_linux_rows() {
        let f = chip_facts(Chip::Mv6341);
        assert_eq!((f.num_databases, f.atu_move_port_mask), (256, 0x0F));
        assert_eq!((f.port_base, f.phy_base), (0x10, 0x10));
        let f = chip_facts(Chip::Mv6250);
        assert_eq!(
            (f.global1, f.global2, f.smi),
            (0x0F, 0x07, SmiKind::DualChip)
        );
        let f = chip_facts(Chip::Mv6390);
        assert_eq!(
            (f.max_vid, f.atu_move_port_mask, f.g2_irqs),
            (8191, 0x1F, 14)
        );
        assert_eq!(chip_facts(Chip::Mv6361).port_vector(), 0x06F9);
        assert!(!chip_facts(Chip::Mv6185).has_stu());
        assert!(chip_facts(Chip::Mv6320).has_internal_phy(4));
        assert!(!chip_facts(Chip::Mv6320).has_internal_phy(2));
    }
}
