//! The driver's chip facts against the model's, field by field, for every chip.
//!
//! The two tables are separate transcriptions of Linux's `mv88e6xxx_table[]` and ops
//! tables (`src/chip.rs`, `src/atu.rs`, `src/vtu.rs`, `src/stats.rs`, `src/port.rs` for
//! the driver; `src/sim/facts.rs` for the model, which imports nothing from the driver),
//! so a fact wrong in one of them shows up here as a difference.

use mv88e6xxx_smi::atu::atu_info;
use mv88e6xxx_smi::chip::{Chip, Family, PhyAccess, SmiMode};
use mv88e6xxx_smi::port::PortOps;
use mv88e6xxx_smi::sim::facts::{ChipFacts, LinuxFamily, PhyKind, SmiKind, VtuKind, chip_facts};
use mv88e6xxx_smi::stats::{HistogramAt, PortField};
use mv88e6xxx_smi::vtu::{VtuLayout, vtu_info};

/// Every field the driver and the model both hold, as `(field, driver, model)` strings
/// for the fields that differ.
fn differences(chip: Chip) -> Vec<(&'static str, String, String)> {
    let m: ChipFacts = chip_facts(chip);
    let mut d = Vec::new();
    let mut cmp = |field: &'static str, driver: String, model: String| {
        if driver != model {
            d.push((field, driver, model));
        }
    };

    cmp(
        "product_num",
        format!("{:#06x}", chip.product_num()),
        format!("{:#06x}", m.product_num),
    );

    // Family: the driver splits Linux's families by address map and remap.
    let family = match chip.family() {
        Family::Mv6085 => "6085-map",
        Family::Mv6341 => "6341",
        Family::Mv6390 => "6390",
        Family::Mv6393 => "6393",
        Family::Mv6250 => "6250",
    };
    let model_family = match m.family {
        LinuxFamily::F6341 => "6341",
        LinuxFamily::F6390 => "6390",
        LinuxFamily::F6393 => "6393",
        LinuxFamily::F6250 => "6250",
        _ => "6085-map",
    };
    cmp("family", family.into(), model_family.into());
    cmp(
        "6393 family (remap)",
        chip.family().has_6393x_remap().to_string(),
        (m.family == LinuxFamily::F6393).to_string(),
    );

    let map = chip.family().address_map();
    cmp(
        "port_base_addr",
        map.port_base.to_string(),
        m.port_base.to_string(),
    );
    cmp(
        "phy_base_addr",
        map.phy_base.to_string(),
        m.phy_base.to_string(),
    );
    cmp(
        "global1_addr",
        map.global1.to_string(),
        m.global1.to_string(),
    );
    cmp(
        "global2_addr",
        map.global2.to_string(),
        m.global2.to_string(),
    );
    let smi = match map.mode {
        SmiMode::MultiChip => "multi_chip",
        SmiMode::DualChip => "dual_chip",
    };
    let model_smi = match m.smi {
        SmiKind::MultiChip => "multi_chip",
        SmiKind::DualChip => "dual_chip",
    };
    cmp("smi mode", smi.into(), model_smi.into());

    let info = chip.info();
    cmp(
        "num_ports",
        info.num_ports.to_string(),
        m.num_ports.to_string(),
    );
    cmp(
        "invalid_port_mask",
        format!("{:#x}", info.invalid_port_mask),
        format!("{:#x}", m.invalid_port_mask),
    );
    cmp(
        "num_internal_phys",
        info.num_internal_phys.to_string(),
        m.num_internal_phys.to_string(),
    );
    cmp(
        "internal_phys_offset",
        info.internal_phys_offset.to_string(),
        m.internal_phys_offset.to_string(),
    );
    let phy = match info.phy_access {
        PhyAccess::Global2 => "g2",
        PhyAccess::PpuGated => "ppu",
        PhyAccess::Direct => "direct",
    };
    let model_phy = match m.phy {
        PhyKind::Global2 => "g2",
        PhyKind::PpuGated => "ppu",
        PhyKind::Direct => "direct",
    };
    cmp("phy access", phy.into(), model_phy.into());
    // The port vector the driver accepts against the model's routed ports.
    let valid = (0..16u8)
        .filter(|&p| chip.is_valid_port(p))
        .fold(0u16, |v, p| v | 1 << p);
    cmp(
        "valid ports",
        format!("{valid:#x}"),
        format!("{:#x}", m.port_vector()),
    );
    let phys = (0..16u8)
        .filter(|&p| chip.has_internal_phy(p))
        .fold(0u16, |v, p| v | 1 << p);
    let model_phys = (0..16u8)
        .filter(|&p| m.has_internal_phy(p))
        .fold(0u16, |v, p| v | 1 << p);
    cmp(
        "ports with internal PHY",
        format!("{phys:#x}"),
        format!("{model_phys:#x}"),
    );

    let atu = atu_info(chip);
    cmp(
        "num_databases",
        atu.num_databases.to_string(),
        m.num_databases.to_string(),
    );
    cmp(
        "age_time_coeff",
        atu.age_time_coeff_ms.to_string(),
        m.age_time_coeff_ms.to_string(),
    );
    cmp(
        "atu_move_port_mask",
        format!("{:#x}", atu.move_port_mask),
        format!("{:#x}", m.atu_move_port_mask),
    );

    match vtu_info(chip) {
        None => cmp("vtu", "none".into(), "present".into()),
        Some(v) => {
            let layout = match v.layout {
                VtuLayout::Mv6185 => "6185",
                VtuLayout::Mv6352 => "6352",
                VtuLayout::Mv6390 => "6390",
            };
            let model_layout = match m.vtu {
                VtuKind::Mv6185 => "6185",
                VtuKind::Mv6352 => "6352",
                VtuKind::Mv6390 => "6390",
            };
            cmp("vtu layout", layout.into(), model_layout.into());
            cmp("max_vid", v.max_vid.to_string(), m.max_vid.to_string());
            cmp("stu", v.has_stu.to_string(), m.has_stu().to_string());
        }
    }

    let st = chip.stats_layout();
    cmp(
        "stats port field low",
        (st.port_field == PortField::Low).to_string(),
        m.mib.port_low.to_string(),
    );
    cmp(
        "stats histogram in op",
        (st.histogram == HistogramAt::StatsOp).to_string(),
        m.mib.hist_in_op.to_string(),
    );
    cmp(
        "stats bank 1 select",
        format!("{:#x}", st.bank1_select.unwrap_or(0)),
        format!("{:#x}", m.mib.bank1),
    );
    cmp(
        "stats port counters",
        st.port_counters.to_string(),
        m.mib.port_regs.to_string(),
    );

    match PortOps::of(chip) {
        None => cmp("port ops", "none".into(), "present".into()),
        Some(ops) => cmp("g1_irqs", ops.g1_irqs().to_string(), m.g1_irqs.to_string()),
    }
    d
}

#[test]
fn driver_table_matches_the_model_table_for_every_chip() {
    assert_eq!(Chip::ALL.len(), 34);
    let mut all = Vec::new();
    for &chip in Chip::ALL {
        for (field, driver, model) in differences(chip) {
            all.push(format!(
                "{chip:?} {field}: driver {driver}, model (Linux) {model}"
            ));
        }
    }
    assert!(
        all.is_empty(),
        "{} differences:\n{}",
        all.len(),
        all.join("\n")
    );
}

/// Every chip has a model row of its own: the model's product numbers identify the
/// chips as the driver's do, and no two rows share one.
#[test]
fn every_chip_has_a_model_row_of_its_own() {
    for &chip in Chip::ALL {
        let m = chip_facts(chip);
        assert_eq!(
            Chip::from_product_num(m.product_num),
            Some(chip),
            "{chip:?}"
        );
        for &other in Chip::ALL {
            if other != chip {
                assert_ne!(chip_facts(other).product_num, m.product_num);
            }
        }
    }
}

/// The model takes no fact from the driver: its files name, of the driver's modules, only
/// the chip's name (`crate::chip::Chip`); the baselines that drive it like a host
/// (`seed.rs`, `linux_switch.rs`, `stats_linux.rs`) are not part of the model.
#[test]
fn the_model_imports_no_driver_fact() {
    // Every file under src/sim, but the baselines.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut dirs = vec![root.clone()];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                if !["seed.rs", "linux_switch.rs", "stats_linux.rs"].contains(&name.as_str()) {
                    files.push((name, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
    }
    assert!(files.len() >= 10, "{} files", files.len());
    let driver_modules = [
        "regs", "atu", "vtu", "stats", "port", "irq", "dsa", "c45", "smi", "switch", "global1",
        "global2", "ppu",
    ];
    for (name, text) in &files {
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for m in driver_modules {
                assert!(
                    !line.contains(&format!("crate::{m}")),
                    "{name} uses the driver's {m}: {line}"
                );
            }
            if let Some(at) = line.find("crate::chip::") {
                assert!(
                    line[at..].starts_with("crate::chip::Chip"),
                    "{name} uses a driver chip fact: {line}"
                );
            }
        }
    }
}
