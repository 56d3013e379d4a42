//! The managed-switch operations on the model: port isolation and FID, learning, IGMP/MLD
//! snooping, 802.1Q drop modes, per-port mirroring, frame size and EDSA EtherType, trunk
//! tables and the port trunk ID, tag remap, the Global1 priority maps and the reserved
//! multicast traps.
//!
//! Each expected register value is written here from Linux's bit positions, not from the
//! driver's constants: `drivers/net/dsa/mv88e6xxx/port.h`, `global1.h`, `global2.h` and
//! the `mv88e6xxx_ops` tables of `chip.c` at mainline commit `0010b838db9f` (the 6393X
//! EPC write opcode as corrected in mainline to 0x3000). Each operation is also checked
//! for its typed refusal, a bad argument refused before any frame, and an MDIO error in
//! the middle of its read-modify-write.

use std::cell::Cell;

use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::port::{
    EtherTypeOp, FrameSizeOp, ManagedOps, MirrorDirection, Rsvd2CpuOp, TagRemapOp, max_frame_size,
};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Config, ConfigError, Error, Feature, Switch};

/// The model of `chip`, reached with one frame per register: direct, or dual-chip at 0
/// for the 6250 family.
fn new_sim(chip: Chip) -> SwitchSim {
    let attach = if chip.family() == mv88e6xxx_smi::Family::Mv6250 {
        Attach::DualChip(0)
    } else {
        Attach::Direct
    };
    SwitchSim::single(ChipModel::new(chip, attach))
}

macro_rules! attach {
    ($sim:expr, $chip:expr) => {
        Switch::new(
            &mut $sim.bus,
            &$sim.counter,
            Addressing::select($chip.family(), 0).unwrap(),
            $chip,
            Config::new(),
        )
        .unwrap()
    };
}

fn model(sim: &mut SwitchSim) -> &ChipModel {
    sim.bus.device().chip(0).unwrap()
}

/// The first routed port of `chip` other than `not`.
fn a_port(chip: Chip, not: u8) -> u8 {
    (0..chip.info().num_ports)
        .find(|&p| p != not && chip.is_valid_port(p))
        .unwrap()
}

fn refused<E: core::fmt::Debug>(r: Result<(), Error<E>>) -> Feature {
    match r {
        Err(Error::Config(ConfigError::PortFeature { feature, .. })) => feature,
        other => panic!("expected a PortFeature refusal, got {other:?}"),
    }
}

// ---- which chips have which op (chip.c `mv88e6xxx_ops`) ------------------------------------

/// Transcribed from the ops tables of Linux `chip.c`: the chips with
/// `port_set_jumbo_size`, `set_max_frame_size`, `port_set_ether_type` =
/// `mv88e6393x_port_set_ether_type`, no `port_set_ether_type`, `port_tag_remap` =
/// `mv88e6390_port_tag_remap`, no `port_tag_remap`, no `ieee_pri_map`, and
/// `mgmt_rsvd2cpu` = `mv88e6185_g2_...` / `mv88e6390_g1_...` / `mv88e6393x_port_...`.
const JUMBO: &[&str] = &[
    "6131", "6141", "6171", "6172", "6175", "6176", "6190", "6190X", "6240", "6320", "6321",
    "6341", "6350", "6351", "6352", "6390", "6390X", "6191X", "6193X", "6361", "6393X",
];
const G1_1632: &[&str] = &["6085", "6095", "6097", "6123", "6161", "6185"];
const ETYPE_EPC: &[&str] = &["6191X", "6193X", "6361", "6393X"];
const ETYPE_NONE: &[&str] = &["6095", "6123", "6165", "6185"];
const REMAP_TABLE: &[&str] = &[
    "6190", "6190X", "6191", "6290", "6390", "6390X", "6191X", "6193X", "6361", "6393X",
];
const REMAP_NONE: &[&str] = &["6095", "6123", "6165", "6185"];
const NO_PRI_MAP: &[&str] = REMAP_TABLE;
const RSVD_6185: &[&str] = &["6095", "6131", "6185"];
const RSVD_G1: &[&str] = &[
    "6141", "6341", "6190", "6190X", "6191", "6290", "6390", "6390X",
];
const RSVD_PORT: &[&str] = ETYPE_EPC;

#[test]
fn managed_ops_follow_linux_ops_tables_for_all_34_chips() {
    assert_eq!(Chip::ALL.len(), 34);
    for &chip in Chip::ALL {
        let n = chip.name();
        let ops = ManagedOps::of(chip);
        let frame = if JUMBO.contains(&n) {
            FrameSizeOp::Jumbo
        } else if G1_1632.contains(&n) {
            FrameSizeOp::Global1632
        } else {
            FrameSizeOp::Fixed
        };
        assert_eq!(ops.frame_size, frame, "{n}");
        let etype = if ETYPE_EPC.contains(&n) {
            EtherTypeOp::Epc
        } else if ETYPE_NONE.contains(&n) {
            EtherTypeOp::Missing
        } else {
            EtherTypeOp::PortReg
        };
        assert_eq!(ops.ether_type, etype, "{n}");
        let remap = if REMAP_TABLE.contains(&n) {
            TagRemapOp::PrioMapTable
        } else if REMAP_NONE.contains(&n) {
            TagRemapOp::Missing
        } else {
            TagRemapOp::Remap0123
        };
        assert_eq!(ops.tag_remap, remap, "{n}");
        assert_eq!(ops.priority_maps, !NO_PRI_MAP.contains(&n), "{n}");
        let rsvd = if RSVD_6185.contains(&n) {
            Rsvd2CpuOp::G2Only0x
        } else if RSVD_G1.contains(&n) {
            Rsvd2CpuOp::G1MonitorMgmt
        } else if RSVD_PORT.contains(&n) {
            Rsvd2CpuOp::PortPolicyMgmt
        } else {
            Rsvd2CpuOp::G2
        };
        assert_eq!(ops.rsvd2cpu, rsvd, "{n}");
        // chip.c `mv88e6xxx_get_max_mtu`: 10240 / 1632 / 1522 bytes of frame.
        let max = match frame {
            FrameSizeOp::Jumbo => 10240,
            FrameSizeOp::Global1632 => 1632,
            FrameSizeOp::Fixed => 1522,
        };
        assert_eq!(max_frame_size(chip), max, "{n}");
    }
}

// ---- port isolation -------------------------------------------------------------------------

#[test]
fn vlan_map_is_the_low_port_bits_of_port_base_vlan_on_every_chip() {
    // port.c `mv88e6xxx_port_set_vlan_map`: the bits GENMASK(num_ports - 1, 0) of port
    // register 0x06 are replaced; the FID [15:12] and any bit above the ports stay.
    for &chip in Chip::ALL {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let p = a_port(chip, u8::MAX);
        let q = a_port(chip, p);
        let ports_bits = (1u16 << chip.info().num_ports) - 1;
        smi.port_write(p, 0x06, 0xA000 | ports_bits).unwrap();
        smi.port_set_vlan_map(p, 1 << q).unwrap();
        assert_eq!(smi.port_vlan_map(p).unwrap(), 1 << q, "{chip:?}");
        let _ = smi.release();
        assert_eq!(
            model(&mut sim).port_reg(usize::from(p), 0x06),
            Some(0xA000 | (1 << q)),
            "{chip:?}"
        );
    }
}

#[test]
fn vlan_map_refuses_a_port_the_chip_does_not_route_before_any_frame() {
    for (chip, bad) in [
        (Chip::Mv6352, 1u16 << 7),
        (Chip::Mv6250, 1 << 7),
        // The 6361 does not route ports 1, 2 and 8 (Linux `invalid_port_mask`).
        (Chip::Mv6361, 1 << 1),
    ] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert!(matches!(
            smi.port_set_vlan_map(0, bad),
            Err(Error::Config(ConfigError::PortVector { ports })) if ports == bad
        ));
        assert!(matches!(
            smi.port_set_vlan_map(chip.info().num_ports, 0),
            Err(Error::Config(ConfigError::Port { .. }))
        ));
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
}

#[test]
fn fid_splits_between_port_base_vlan_and_port_ctl1_by_the_number_of_databases() {
    // port.c `mv88e6xxx_port_set_fid`: FID [3:0] in port 0x06 [15:12]; FID [11:4] in port
    // 0x05 under the mask (num_databases - 1) >> 4: 0xFF for 4096, 0xF for 256, 0x3 for
    // 64 (chip.c `num_databases`: 6352 4096, 6185 256, 6250 64).
    for (chip, fid, ctl1_before, base_after, ctl1_after) in [
        (Chip::Mv6352, 0xABC, 0x8000, 0xC07F, 0x80AB),
        (Chip::Mv6185, 0xAB, 0x80F0, 0xB07F, 0x80FA),
        (Chip::Mv6250, 0x2F, 0x80FC, 0xF07F, 0x80FE),
    ] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        smi.port_write(1, 0x06, 0x507F).unwrap();
        smi.port_write(1, 0x05, ctl1_before).unwrap();
        smi.port_set_fid(1, fid).unwrap();
        assert_eq!(smi.port_fid(1).unwrap(), fid, "{chip:?}");
        let _ = smi.release();
        let m = model(&mut sim);
        assert_eq!(m.port_reg(1, 0x06), Some(base_after), "{chip:?}");
        assert_eq!(m.port_reg(1, 0x05), Some(ctl1_after), "{chip:?}");
    }
}

#[test]
fn fid_at_or_above_the_databases_is_refused_before_any_frame() {
    for (chip, bad) in [
        (Chip::Mv6352, 4096u16),
        (Chip::Mv6185, 256),
        (Chip::Mv6250, 64),
    ] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert!(matches!(
            smi.port_set_fid(0, bad),
            Err(Error::Config(ConfigError::Fid { fid })) if fid == bad
        ));
        assert_eq!(smi.frames(), f0);
        smi.port_set_fid(0, bad - 1).unwrap();
    }
}

// ---- learning -------------------------------------------------------------------------------

#[test]
fn learning_is_the_port_itself_in_the_association_vector_and_keeps_the_lock() {
    // chip.c `mv88e6xxx_port_bridge_flags`: BR_LEARNING -> PAV = BIT(port) or 0;
    // port.c `mv88e6xxx_port_set_assoc_vector` replaces GENMASK(num_ports - 1, 0) of port
    // 0x0B; LOCKED_PORT is bit 13 (port.h).
    for &chip in Chip::ALL {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let p = a_port(chip, u8::MAX);
        smi.port_set_atu_locked(p, true).unwrap();
        smi.port_set_learning(p, true).unwrap();
        assert_eq!(
            smi.port_read(p, 0x0B).unwrap(),
            0x2000 | (1 << p),
            "{chip:?}"
        );
        smi.port_set_learning(p, false).unwrap();
        let _ = smi.release();
        assert_eq!(model(&mut sim).port_reg(usize::from(p), 0x0B), Some(0x2000));
    }
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.port_set_assoc_vector(3, 0x0070).unwrap();
    assert_eq!(smi.port_read(3, 0x0B).unwrap(), 0x0070);
    let f0 = smi.frames();
    assert!(matches!(
        smi.port_set_assoc_vector(3, 0x0080),
        Err(Error::Config(ConfigError::PortVector { ports: 0x0080 }))
    ));
    assert!(matches!(
        smi.port_set_learning(9, true),
        Err(Error::Config(ConfigError::Port { port: 9 }))
    ));
    assert_eq!(smi.frames(), f0);
}

// ---- snooping and 802.1Q drop modes ---------------------------------------------------------

#[test]
fn snooping_and_drop_modes_are_their_bits_on_every_chip() {
    // port.h: PORT_CTL0 IGMP_MLD_SNOOP 0x0400; PORT_CTL2 DISCARD_TAGGED 0x0200,
    // DISCARD_UNTAGGED 0x0100.
    for &chip in Chip::ALL {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let p = a_port(chip, u8::MAX);
        smi.port_write(p, 0x04, 0x0103).unwrap();
        smi.port_write(p, 0x08, 0x0C00).unwrap();
        smi.port_set_igmp_mld_snoop(p, true).unwrap();
        smi.port_set_drop_untagged(p, true).unwrap();
        smi.port_set_drop_tagged(p, true).unwrap();
        assert_eq!(smi.port_read(p, 0x04).unwrap(), 0x0503, "{chip:?}");
        assert_eq!(smi.port_read(p, 0x08).unwrap(), 0x0F00, "{chip:?}");
        smi.port_set_drop_tagged(p, false).unwrap();
        smi.port_set_igmp_mld_snoop(p, false).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        assert_eq!(m.port_reg(usize::from(p), 0x04), Some(0x0103), "{chip:?}");
        assert_eq!(m.port_reg(usize::from(p), 0x08), Some(0x0D00), "{chip:?}");
    }
}

#[test]
fn a_drop_mode_already_set_costs_one_read_as_in_linux() {
    // port.c `mv88e6xxx_port_drop_untagged` writes only when the value changes.
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.port_set_drop_untagged(2, true).unwrap();
    let f0 = smi.frames();
    smi.port_set_drop_untagged(2, true).unwrap();
    assert_eq!(smi.frames() - f0, 1);
}

// ---- mirroring ------------------------------------------------------------------------------

#[test]
fn mirror_enables_are_port_ctl2_bits_4_and_5_and_the_6095_is_refused() {
    // port.h: PORT_CTL2 INGRESS_MONITOR 0x0010, EGRESS_MONITOR 0x0020; global1.h 6185
    // MONITOR_CTL (0x1A) ingress destination [15:12].
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.port_write(1, 0x08, 0x0C00).unwrap();
    smi.port_mirror_add(1, MirrorDirection::Ingress, 4).unwrap();
    smi.port_set_mirror(1, MirrorDirection::Egress, true)
        .unwrap();
    assert_eq!(smi.port_read(1, 0x08).unwrap(), 0x0C30);
    smi.port_set_mirror(1, MirrorDirection::Egress, false)
        .unwrap();
    let f0 = smi.frames();
    assert!(matches!(
        smi.port_mirror_add(2, MirrorDirection::Egress, 7),
        Err(Error::Config(ConfigError::Port { port: 7 }))
    ));
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(m.port_reg(1, 0x08), Some(0x0C10));
    assert_eq!(m.g1_reg(0x1A) & 0xF000, 0x4000);

    // The 6095 has no `set_egress_port`: Linux's `mv88e6xxx_port_mirror_add` refuses it.
    let mut sim = new_sim(Chip::Mv6095);
    let mut smi = attach!(sim, Chip::Mv6095);
    let f0 = smi.frames();
    assert_eq!(
        refused(smi.port_set_mirror(1, MirrorDirection::Ingress, true)),
        Feature::MirrorPort
    );
    assert_eq!(
        refused(smi.port_mirror_add(1, MirrorDirection::Ingress, 2)),
        Feature::MirrorPort
    );
    assert_eq!(smi.frames(), f0);
}

// ---- frames ---------------------------------------------------------------------------------

#[test]
fn frame_size_per_family() {
    // port.c `mv88e6165_port_set_jumbo_size`: PORT_CTL2 [13:12] = 0 (1522), 1 (2048),
    // 2 (10240); global1.h MV88E6185_G1_CTL1_MAX_FRAME_1632 0x0400 (global1.c
    // `mv88e6185_g1_set_max_frame_size`).
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.port_write(5, 0x08, 0x0C00).unwrap();
    for (bytes, field) in [
        (2048, 0x1000),
        (1522, 0x0000),
        (9000, 0x2000),
        (10240, 0x2000),
    ] {
        smi.port_set_max_frame_size(5, bytes).unwrap();
        assert_eq!(smi.port_read(5, 0x08).unwrap(), 0x0C00 | field, "{bytes}");
    }
    let f0 = smi.frames();
    assert_eq!(
        refused(smi.port_set_max_frame_size(5, 10241)),
        Feature::MaxFrameSize(10241)
    );
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    assert_eq!(model(&mut sim).port_reg(5, 0x08), Some(0x2C00));

    let mut sim = new_sim(Chip::Mv6185);
    let mut smi = attach!(sim, Chip::Mv6185);
    let ctl1 = smi.g1_read(0x04).unwrap();
    smi.port_set_max_frame_size(3, 1632).unwrap();
    assert_eq!(smi.g1_read(0x04).unwrap(), ctl1 | 0x0400);
    let f0 = smi.frames();
    assert_eq!(
        refused(smi.port_set_max_frame_size(3, 1633)),
        Feature::MaxFrameSize(1633)
    );
    assert_eq!(smi.frames(), f0);
    smi.port_set_max_frame_size(3, 1522).unwrap();
    let _ = smi.release();
    assert_eq!(model(&mut sim).g1_reg(0x04), ctl1 & !0x0400);

    // No frame-size op (the 6165, 6191, 6290 and the 6250 family): 1522 bytes is all.
    for chip in [Chip::Mv6165, Chip::Mv6191, Chip::Mv6290, Chip::Mv6250] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        smi.port_set_max_frame_size(0, 1522).unwrap();
        assert_eq!(
            refused(smi.port_set_max_frame_size(0, 1523)),
            Feature::MaxFrameSize(1523)
        );
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
}

#[test]
fn ether_type_is_port_register_0x0f_or_the_6393x_epc_and_refused_without_the_op() {
    for &chip in Chip::ALL {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let p = a_port(chip, u8::MAX);
        let n = chip.name();
        if ETYPE_NONE.contains(&n) {
            let f0 = smi.frames();
            assert_eq!(
                refused(smi.port_set_ether_type(p, 0xDADA)),
                Feature::EtherType
            );
            assert_eq!(smi.frames(), f0);
            continue;
        }
        smi.port_set_ether_type(p, 0xDADA).unwrap();
        // Twice: on the 6393X the EPC must be idle again for the second command.
        smi.port_set_ether_type(p, 0xDADB).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        if ETYPE_EPC.contains(&n) {
            // port.h MV88E6393X_PORT_EPC_DATA 0x11; the EPC took index 2 (port EtherType).
            assert_eq!(m.port_epc_ether_type(usize::from(p)), Some(0xDADB), "{n}");
            assert_eq!(m.port_reg(usize::from(p), 0x11), Some(0xDADB), "{n}");
        } else {
            // port.h MV88E6XXX_PORT_ETH_TYPE 0x0f.
            assert_eq!(m.port_reg(usize::from(p), 0x0F), Some(0xDADB), "{n}");
        }
    }
}

// ---- link aggregation -----------------------------------------------------------------------

#[test]
fn trunk_tables_hold_linux_fields() {
    // global2.h: TRUNK_MASK 0x07, number [14:12], HASH 0x0800; TRUNK_MAPPING 0x08, ID
    // [14:11]; UPDATE 0x8000 stores (the model keeps the word without UPDATE).
    for &chip in Chip::ALL {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let p = a_port(chip, u8::MAX);
        let q = a_port(chip, p);
        let v = (1u16 << p) | (1 << q);
        smi.trunk_flush().unwrap();
        smi.trunk_load_mask(3, true, v).unwrap();
        smi.trunk_load_map(9, v).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        assert_eq!(m.g2_reg(0x07), 0x3000 | 0x0800 | v, "{chip:?}");
        assert_eq!(m.g2_reg(0x08), (9 << 11) | v, "{chip:?}");
        assert_eq!(m.trunk_mask(3), Some((true, v)));
        assert_eq!(m.trunk_mapping(9), Some(v));
        let routed = (0..chip.info().num_ports)
            .filter(|&p| chip.is_valid_port(p))
            .fold(0u16, |a, p| a | (1 << p));
        for num in [0, 7] {
            assert_eq!(m.trunk_mask(num), Some((false, routed)), "{chip:?}");
        }
        for id in [0, 15] {
            assert_eq!(m.trunk_mapping(id), Some(0), "{chip:?}");
        }
    }
}

#[test]
fn trunk_arguments_are_refused_before_any_frame() {
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    let f0 = smi.frames();
    assert!(matches!(
        smi.trunk_load_mask(8, false, 1),
        Err(Error::Config(ConfigError::TrunkMask { num: 8 }))
    ));
    assert!(matches!(
        smi.trunk_load_map(16, 1),
        Err(Error::Config(ConfigError::TrunkId { id: 16 }))
    ));
    assert!(matches!(
        smi.trunk_load_map(1, 0x0080),
        Err(Error::Config(ConfigError::PortVector { ports: 0x0080 }))
    ));
    assert!(matches!(
        smi.port_set_trunk(1, Some(16)),
        Err(Error::Config(ConfigError::TrunkId { id: 16 }))
    ));
    assert_eq!(smi.frames(), f0);
}

#[test]
fn port_trunk_is_port_ctl1_bit_14_and_id_11_8() {
    // port.h: PORT_CTL1 TRUNK_PORT 0x4000, TRUNK_ID_MASK 0x0f00 (port.c
    // `mv88e6xxx_port_set_trunk`); MESSAGE_PORT 0x8000 and FID [7:0] stay.
    let mut sim = new_sim(Chip::Mv6390);
    let mut smi = attach!(sim, Chip::Mv6390);
    smi.port_write(10, 0x05, 0x80AB).unwrap();
    smi.port_set_trunk(10, Some(5)).unwrap();
    assert_eq!(smi.port_read(10, 0x05).unwrap(), 0xC5AB);
    smi.port_set_trunk(10, Some(15)).unwrap();
    assert_eq!(smi.port_read(10, 0x05).unwrap(), 0xCFAB);
    smi.port_set_trunk(10, None).unwrap();
    let _ = smi.release();
    assert_eq!(model(&mut sim).port_reg(10, 0x05), Some(0x80AB));
}

// ---- priority -------------------------------------------------------------------------------

#[test]
fn tag_remap_per_family() {
    let identity = [0, 1, 2, 3, 4, 5, 6, 7];
    // port.c `mv88e6095_port_tag_remap`: the identity is 0x3210 in port 0x18 and 0x7654
    // in port 0x19.
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.port_set_tag_remap(2, identity).unwrap();
    assert_eq!(smi.port_read(2, 0x18).unwrap(), 0x3210);
    assert_eq!(smi.port_read(2, 0x19).unwrap(), 0x7654);
    smi.port_set_tag_remap(2, [7, 6, 5, 4, 3, 2, 1, 0]).unwrap();
    let f0 = smi.frames();
    assert!(matches!(
        smi.port_set_tag_remap(2, [0, 0, 0, 0, 0, 0, 0, 8]),
        Err(Error::Config(ConfigError::Priority { value: 8 }))
    ));
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(m.port_reg(2, 0x18), Some(0x4567));
    assert_eq!(m.port_reg(2, 0x19), Some(0x0123));

    // port.c `mv88e6390_port_tag_remap`: ingress-PCP table (0), pointer [11:9], the
    // identity entry i | i << 4.
    for chip in [Chip::Mv6390, Chip::Mv6393X] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        smi.port_set_tag_remap(9, identity).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        for i in 0..8u16 {
            assert_eq!(m.port_prio_map(9, 0, usize::from(i)), Some(i | (i << 4)));
        }
    }

    for chip in [Chip::Mv6095, Chip::Mv6123, Chip::Mv6165, Chip::Mv6185] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert_eq!(
            refused(smi.port_set_tag_remap(0, identity)),
            Feature::TagRemap
        );
        assert_eq!(smi.frames(), f0);
    }
}

#[test]
fn priority_maps_are_global1_0x10_to_0x18() {
    use mv88e6xxx_smi::global1::{IEEE_PRI_DEFAULT, IEEE_PRI_DEFAULT_6250};
    // global1.c: `mv88e6085_g1_ieee_pri_map` writes 0xfa41 and `mv88e6250_g1_ieee_pri_map`
    // 0xfa50 to G1 0x18; `mv88e6085_g1_ip_pri_map` writes 0x0000, 0x0000, 0x5555, 0x5555,
    // 0xaaaa, 0xaaaa, 0xffff, 0xffff to G1 0x10..0x17.
    let mut linux_ip = [0u8; 64];
    for (d, q) in linux_ip.iter_mut().enumerate() {
        *q = (d / 16) as u8;
    }
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.set_ieee_pri_map(IEEE_PRI_DEFAULT).unwrap();
    smi.set_ip_pri_map(&linux_ip).unwrap();
    let f0 = smi.frames();
    assert!(matches!(
        smi.set_ieee_pri_map([4, 0, 0, 0, 0, 0, 0, 0]),
        Err(Error::Config(ConfigError::Priority { value: 4 }))
    ));
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(m.g1_reg(0x18), 0xFA41);
    let words = [
        0x0000, 0x0000, 0x5555, 0x5555, 0xAAAA, 0xAAAA, 0xFFFF, 0xFFFF,
    ];
    for (r, w) in (0x10u8..).zip(words) {
        assert_eq!(m.g1_reg(r), w, "G1 {r:#x}");
    }

    let mut sim = new_sim(Chip::Mv6250);
    let mut smi = attach!(sim, Chip::Mv6250);
    smi.set_ieee_pri_map(IEEE_PRI_DEFAULT_6250).unwrap();
    // One entry alone: DSCP 9 is register 0x11 bits [3:2] (2 bits per DSCP, lowest
    // first, as the IEEE map's PCP n is bits [2n+1:2n]).
    let mut one = [0u8; 64];
    one[9] = 3;
    smi.set_ip_pri_map(&one).unwrap();
    let _ = smi.release();
    assert_eq!(model(&mut sim).g1_reg(0x18), 0xFA50);
    assert_eq!(model(&mut sim).g1_reg(0x11), 0x000C);

    for chip in [Chip::Mv6390, Chip::Mv6190X, Chip::Mv6393X] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        let e = smi.set_ieee_pri_map(IEEE_PRI_DEFAULT);
        assert_eq!(refused(e), Feature::PriorityMap);
        assert_eq!(refused(smi.set_ip_pri_map(&linux_ip)), Feature::PriorityMap);
        assert_eq!(smi.frames(), f0);
    }
}

// ---- reserved multicast to the CPU ----------------------------------------------------------

#[test]
fn rsvd2cpu_per_family() {
    // global2.c `mv88e6352_g2_mgmt_rsvd2cpu`: G2 0x02 (MGMT_EN_2X) and 0x03 (MGMT_EN_0X)
    // = 0xffff, then G2 0x05 SWITCH_MGMT |= RSVD2CPU 0x0008.
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.g2_write(0x05, 0x4000).unwrap();
    smi.set_rsvd2cpu(0xFFFF, 0xFFFF).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!((m.g2_reg(0x02), m.g2_reg(0x03)), (0xFFFF, 0xFFFF));
    assert_eq!(m.g2_reg(0x05), 0x4008);

    // `mv88e6185_g2_mgmt_rsvd2cpu`: no MGMT_EN_2X.
    let mut sim = new_sim(Chip::Mv6185);
    let mut smi = attach!(sim, Chip::Mv6185);
    // BPDU (bit 0), 802.1X (bit 3) and LLDP (bit 14) only.
    smi.set_rsvd2cpu(0x4009, 0).unwrap();
    let f0 = smi.frames();
    assert_eq!(refused(smi.set_rsvd2cpu(0xFFFF, 1)), Feature::Rsvd2Cpu2x);
    assert_eq!(
        refused(smi.port_set_rsvd2cpu(0, 0xFFFF, 0)),
        Feature::Rsvd2CpuPerPort
    );
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    let m = model(&mut sim);
    assert_eq!(
        (m.g2_reg(0x02), m.g2_reg(0x03), m.g2_reg(0x05)),
        (0, 0x4009, 0x0008)
    );

    // global1.c `mv88e6390_g1_mgmt_rsvd2cpu`: MONITOR_MGMT_CTL (G1 0x1A) pointers 0x00
    // (0x range, 00-07), 0x01 (08-0F), 0x02 (2x range, 20-27), 0x03 (28-2F).
    let mut sim = new_sim(Chip::Mv6390);
    let mut smi = attach!(sim, Chip::Mv6390);
    smi.set_rsvd2cpu(0x4009, 0x8001).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    let table: Vec<u8> = (0..4).map(|p| m.monitor_mgmt(p)).collect();
    assert_eq!(table, [0x09, 0x40, 0x01, 0x80]);

    // port.c `mv88e6393x_port_mgmt_rsvd2cpu`: POLICY_MGMT_CTL (port 0x0E) pointers 0x20,
    // 0x21, 0x24, 0x25 (port.h MV88E6393X_PORT_POLICY_MGMT_CTL_PTR_01C28000000*).
    let mut sim = new_sim(Chip::Mv6393X);
    let mut smi = attach!(sim, Chip::Mv6393X);
    smi.set_rsvd2cpu(0xFFFF, 0xFFFF).unwrap();
    smi.port_set_rsvd2cpu(0, 0, 0).unwrap();
    let _ = smi.release();
    let m = model(&mut sim);
    for port in 0..11 {
        let want = if port == 0 { 0x00 } else { 0xFF };
        for ptr in [0x20, 0x21, 0x24, 0x25] {
            assert_eq!(
                m.port_mgmt(port, ptr),
                Some(want),
                "port {port} ptr {ptr:#x}"
            );
        }
    }
}

/// The mirror destination of `direction` as the model holds it, per Linux's
/// `set_egress_port` ops: G1 MONITOR_CTL [15:12] / [11:8] (`mv88e6095_g1_set_egress_port`),
/// MONITOR_MGMT_CTL pointers 0x20 / 0x21 (`mv88e6390_g1_set_egress_port`), the 6393's port
/// POLICY_MGMT_CTL pointer 0x30 of `port` / Global2 0x05 (`mv88e6393x_set_egress_port`).
fn mirror_dest(m: &ChipModel, chip: Chip, dir: MirrorDirection, port: u8) -> u8 {
    let ingress = dir == MirrorDirection::Ingress;
    match chip {
        Chip::Mv6390 => m.monitor_mgmt(if ingress { 0x20 } else { 0x21 }),
        Chip::Mv6393X if ingress => m.port_mgmt(usize::from(port), 0x30).unwrap(),
        Chip::Mv6393X => m.g2_reg(0x05) as u8,
        _ => ((m.g1_reg(0x1A) >> if ingress { 12 } else { 8 }) & 0xF) as u8,
    }
}

/// Linux `chip.c` `mv88e6xxx_port_mirror_add`: the destination is written only when it
/// differs from the one in use, and moving it while any port (the asking one included)
/// mirrors in that direction is refused with -EBUSY; the other direction is independent.
/// Linux does not refuse a port mirroring to itself.
#[test]
fn mirror_add_does_not_move_a_destination_in_use() {
    use MirrorDirection::{Egress, Ingress};
    for chip in [Chip::Mv6352, Chip::Mv6390, Chip::Mv6393X] {
        let mut sim = new_sim(chip);
        let mut smi = attach!(sim, chip);
        smi.port_mirror_add(1, Ingress, 4).unwrap();
        smi.port_mirror_add(2, Ingress, 4).unwrap();
        let busy = smi.port_mirror_add(3, Ingress, 5);
        assert!(
            matches!(
                busy,
                Err(Error::Config(ConfigError::MirrorBusy {
                    direction: Ingress,
                    dest: 4
                }))
            ),
            "{chip:?}: {busy:?}"
        );
        // The egress destination is another one.
        smi.port_mirror_add(3, Egress, 5).unwrap();
        // A port may mirror to itself (Linux does not refuse it).
        smi.port_mirror_add(5, Egress, 5).unwrap();
        let _ = smi.release();
        let m = model(&mut sim);
        for p in [1u8, 2, 3, 5] {
            assert_eq!(mirror_dest(m, chip, Ingress, p), 4, "{chip:?} port {p}");
        }
        assert_eq!(mirror_dest(m, chip, Egress, 3), 5, "{chip:?}");
        let ctl2 = |p: usize| m.port_reg(p, 0x08).unwrap() & 0x30;
        assert_eq!(
            [ctl2(1), ctl2(2), ctl2(3), ctl2(5)],
            [0x10, 0x10, 0x20, 0x20],
            "{chip:?}"
        );

        // Once no port mirrors on ingress, the destination moves; the port asking counts
        // as one that mirrors.
        let mut smi = attach!(sim, chip);
        smi.port_set_mirror(1, Ingress, false).unwrap();
        let busy = smi.port_mirror_add(1, Ingress, 6);
        assert!(
            matches!(
                busy,
                Err(Error::Config(ConfigError::MirrorBusy { dest: 4, .. }))
            ),
            "{chip:?}: {busy:?}"
        );
        smi.port_set_mirror(2, Ingress, false).unwrap();
        smi.port_mirror_add(1, Ingress, 6).unwrap();
        let _ = smi.release();
        assert_eq!(
            mirror_dest(model(&mut sim), chip, Ingress, 1),
            6,
            "{chip:?}"
        );
    }
}

/// What `port_mirror_add` costs on a 6352 (7 ports, one frame per register): a PORT_CTL2
/// read per port, the destination's read, its read-modify-write only when it moves, and
/// the port's PORT_CTL2 write.
#[test]
fn mirror_add_reads_every_ports_ctl2_and_the_destination() {
    let mut sim = new_sim(Chip::Mv6352);
    let mut smi = attach!(sim, Chip::Mv6352);
    let f0 = smi.frames();
    smi.port_mirror_add(1, MirrorDirection::Ingress, 4).unwrap();
    assert_eq!(smi.frames() - f0, 7 + 1 + 2 + 1);
    let f0 = smi.frames();
    smi.port_mirror_add(2, MirrorDirection::Ingress, 4).unwrap();
    assert_eq!(smi.frames() - f0, 7 + 1 + 1);
}

// ---- MDIO errors in the middle of a read-modify-write ---------------------------------------

/// An MDIO bus that answers the frames its budget allows, then fails.
struct Flaky<'a, M> {
    inner: M,
    ok: &'a Cell<u32>,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BusFault;
impl<M: Mdio> Flaky<'_, M> {
    fn spend(&self) -> Result<(), BusFault> {
        let n = self.ok.get();
        if n == 0 {
            return Err(BusFault);
        }
        self.ok.set(n - 1);
        Ok(())
    }
}
impl<M: Mdio> Mdio for Flaky<'_, M> {
    type Error = BusFault;
    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, BusFault> {
        self.spend()?;
        self.inner.read(phy, reg).map_err(|_| BusFault)
    }
    fn write(&mut self, phy: PhyAddr, reg: RegAddr, v: u16) -> Result<(), BusFault> {
        self.spend()?;
        self.inner.write(phy, reg, v).map_err(|_| BusFault)
    }
}

/// A 6352 driver on `$sim`'s bus through [`Flaky`] with the budget in `$ok`.
macro_rules! flaky_6352 {
    ($sim:ident, $ok:ident) => {
        Switch::new(
            Flaky {
                inner: &mut $sim.bus,
                ok: &$ok,
            },
            &$sim.counter,
            Addressing::Direct,
            Chip::Mv6352,
            Config::new(),
        )
        .unwrap()
    };
}

/// Run `$op` on a 6352 with one frame per access, after preloading port `$port`'s (or
/// Global2's) register `$reg` with 0x5A5A, with a budget of `$budget` frames: the last
/// read passes and the write after it fails.
macro_rules! rmw_case {
    ($name:expr, $budget:expr, $port:expr, $reg:expr, |$s:ident| $op:expr) => {{
        let mut sim = new_sim(Chip::Mv6352);
        let budget = Cell::new(u32::MAX);
        let mut $s = flaky_6352!(sim, budget);
        let port: Option<u8> = $port;
        match port {
            Some(p) => $s.port_write(p, $reg, 0x5A5A).unwrap(),
            None => $s.g2_write($reg, 0x5A5A).unwrap(),
        }
        budget.set($budget);
        match $op {
            Err(Error::Mdio(BusFault)) => {}
            other => panic!("{}: {other:?}", $name),
        }
        let _ = $s.release();
        let m = model(&mut sim);
        let held = match port {
            Some(p) => m.port_reg(usize::from(p), $reg).unwrap(),
            None => m.g2_reg($reg),
        };
        assert_eq!(held, 0x5A5A, "{}", $name);
    }};
}

#[test]
fn an_mdio_error_between_read_and_write_leaves_the_register_and_is_returned() {
    rmw_case!("vlan map", 1, Some(2), 0x06, |s| s
        .port_set_vlan_map(2, 0x0011));
    rmw_case!("fid, PORT_BASE_VLAN", 1, Some(2), 0x06, |s| s
        .port_set_fid(2, 0x0123));
    // PORT_BASE_VLAN's read and write pass; PORT_CTL1's write fails.
    rmw_case!("fid, PORT_CTL1", 3, Some(2), 0x05, |s| s
        .port_set_fid(2, 0x0123));
    rmw_case!("learning", 1, Some(2), 0x0B, |s| s
        .port_set_learning(2, true));
    rmw_case!("snoop", 1, Some(2), 0x04, |s| s
        .port_set_igmp_mld_snoop(2, true));
    rmw_case!("drop untagged", 1, Some(2), 0x08, |s| s
        .port_set_drop_untagged(2, true));
    rmw_case!("drop tagged", 1, Some(2), 0x08, |s| s
        .port_set_drop_tagged(2, false));
    rmw_case!("mirror", 1, Some(2), 0x08, |s| s.port_set_mirror(
        2,
        MirrorDirection::Ingress,
        true
    ));
    rmw_case!("jumbo", 1, Some(2), 0x08, |s| s
        .port_set_max_frame_size(2, 2048));
    rmw_case!("trunk", 1, Some(2), 0x05, |s| s.port_set_trunk(2, Some(3)));
    // MGMT_EN_2X and MGMT_EN_0X are written, SWITCH_MGMT is read, its write fails.
    rmw_case!("rsvd2cpu", 3, None, 0x05, |s| s.set_rsvd2cpu(0, 0));
}

/// An MDIO error at any frame of `port_mirror_add` is returned; the port's monitor bit,
/// written last, is set only when the whole operation succeeded.
#[test]
fn mirror_add_returns_an_mdio_error_at_any_frame() {
    for budget in 0u32.. {
        let mut sim = new_sim(Chip::Mv6352);
        let ok = Cell::new(u32::MAX);
        let mut s = flaky_6352!(sim, ok);
        s.port_mirror_add(2, MirrorDirection::Ingress, 4).unwrap();
        ok.set(budget);
        let r = s.port_mirror_add(3, MirrorDirection::Ingress, 4);
        let _ = s.release();
        let bit = model(&mut sim).port_reg(3, 0x08).unwrap() & 0x10;
        match r {
            Ok(()) => {
                assert_eq!(bit, 0x10);
                assert_eq!(budget, 9, "frames of the whole operation");
                break;
            }
            Err(Error::Mdio(BusFault)) => assert_eq!(bit, 0, "budget {budget}"),
            Err(e) => panic!("budget {budget}: {e:?}"),
        }
    }
}

#[test]
fn the_6185_frame_size_bit_survives_a_ppu_hold() {
    // On a PPU-gated chip a PHY access holds the PHY polling unit stopped (G1_CTL1
    // PPU_ENABLE clear) and restarts it later from the G1_CTL1 it remembered: a
    // MAX_FRAME_1632 (0x0400) set meanwhile must be in what the restart writes.
    let mut sim = new_sim(Chip::Mv6185);
    let mut smi = attach!(sim, Chip::Mv6185);
    smi.phy_read(PhyAddr::new(0).unwrap(), RegAddr::new(2).unwrap())
        .unwrap();
    assert!(smi.ppu_held());
    smi.port_set_max_frame_size(0, 1632).unwrap();
    assert!(smi.ppu_held(), "the frame size does not end the hold");
    smi.ppu_release().unwrap();
    let _ = smi.release();
    // G1_CTL1 PPU_ENABLE is 0x4000 (global1.h MV88E6XXX_G1_CTL1_PPU_ENABLE).
    assert_eq!(model(&mut sim).g1_reg(0x04) & 0x4400, 0x4400);
}

#[test]
fn the_new_argument_errors_say_what_was_refused() {
    assert_eq!(
        ConfigError::TrunkId { id: 16 }.to_string(),
        "trunk ID 16 out of range (0 to 15)"
    );
    assert_eq!(
        ConfigError::TrunkMask { num: 8 }.to_string(),
        "trunk mask 8 out of range (0 to 7)"
    );
    assert_eq!(
        ConfigError::Priority { value: 9 }.to_string(),
        "priority 9 out of range for its map"
    );
    let busy = ConfigError::MirrorBusy {
        direction: MirrorDirection::Egress,
        dest: 4,
    };
    assert_eq!(
        busy.to_string(),
        "the egress mirror destination, port 4, is in use"
    );
    assert_eq!(
        hwtimer_core::Error::from(Error::<hwtimer_core::Error>::Config(busy)),
        hwtimer_core::Error::Config(hwtimer_core::ConfigError::ConflictsWithRunning)
    );
    let e = ConfigError::PortFeature {
        chip: Some(Chip::Mv6185),
        port: Some(2),
        feature: Feature::EtherType,
    };
    assert_eq!(
        e.to_string(),
        "EtherType not supported on the 88E6185 port 2"
    );
}
