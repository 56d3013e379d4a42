//! Two VLANs loaded through the driver, dumped back with GetNext, and checked by frames
//! injected into the model, on every chip of the table: two ports (one on the 3- and
//! 4-port chips) in VID 10, two in VID 20, the chip's last routed port as the CPU port,
//! tagged in both; nothing leaks between them. The STU on every chip that has one, its
//! refusal on the others, a stuck VTU, and the model telling the layouts apart.

use crate::common::SimSmi;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchSim};
use mv88e6xxx_smi::vtu::{
    Dot1qMode, MAX_PORTS, Member, StuEntry, StuState, VtuEntry, VtuLayout, vtu_info,
};
use mv88e6xxx_smi::{BusyWait, Config, ConfigError, Error, G1Op, Switch, SwitchUnit};

/// The 6250 family dual-chip at 16, the others multi-chip at 2.
fn attach(chip: Chip) -> Attach {
    if chip.family() == Family::Mv6250 {
        Attach::DualChip(16)
    } else {
        Attach::Indirect(2)
    }
}

fn smi(sim: &mut SwitchSim, chip: Chip, attach: Attach) -> SimSmi<'_> {
    Switch::new(
        &mut sim.bus,
        &sim.counter,
        attach.addressing(chip),
        chip,
        Config::new(),
    )
    .unwrap()
}

/// The scenario's ports on one chip, all routed: `a` in VID 10, `b` in VID 20, `cpu` in
/// both.
struct Plan {
    a: Vec<u8>,
    b: Vec<u8>,
    cpu: u8,
}

fn plan(chip: Chip) -> Plan {
    let valid: Vec<u8> = (0..MAX_PORTS as u8)
        .filter(|&p| chip.is_valid_port(p))
        .collect();
    let (&cpu, rest) = valid.split_last().unwrap();
    let n = (rest.len() / 2).min(2);
    assert!(n >= 1, "{chip:?}: {valid:?}");
    Plan {
        a: rest[..n].to_vec(),
        b: rest[n..2 * n].to_vec(),
        cpu,
    }
}

fn vlans(p: &Plan) -> [VtuEntry; 2] {
    let entry = |vid, fid, ports: &[u8]| {
        let mut e = VtuEntry::new(vid, fid).with_member(p.cpu, Member::Tagged);
        for &port in ports {
            e = e.with_member(port, Member::Untagged);
        }
        e
    };
    [entry(10, 1, &p.a), entry(20, 2, &p.b)]
}

/// Configure through the driver: VLANs, default VIDs, 802.1Q secure, ports forwarding.
fn configure(s: &mut SimSmi<'_>, p: &Plan) {
    for v in vlans(p) {
        s.vtu_load(&v).unwrap();
    }
    let pvids =
        p.a.iter()
            .map(|&q| (q, 10))
            .chain(p.b.iter().map(|&q| (q, 20)));
    for (port, vid) in pvids.chain([(p.cpu, 10)]) {
        s.port_set_default_vid(port, vid).unwrap();
        s.port_set_8021q_mode(port, Dot1qMode::Secure).unwrap();
        s.port_write(port, 0x04, 0x0003).unwrap(); // PORT_CTL0: forwarding
    }
}

fn frame(dst: [u8; 6], src: u8, vid: Option<u16>) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, src]);
    if let Some(v) = vid {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&v.to_be_bytes());
    }
    f.extend_from_slice(&[0x08, 0x00]);
    f.resize(64, 0);
    f
}

const BCAST: [u8; 6] = [0xFF; 6];

/// `ports` and `more`, as the sorted port numbers the model reports.
fn out(ports: &[u8], more: &[u8]) -> Vec<usize> {
    let mut v: Vec<usize> = ports.iter().chain(more).map(|&p| usize::from(p)).collect();
    v.sort_unstable();
    v
}

fn two_vlans(chip: Chip, attach: Attach) {
    let p = plan(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
    let mut s = smi(&mut sim, chip, attach);
    configure(&mut s, &p);
    assert_eq!(s.port_default_vid(p.b[0]).unwrap(), 20);
    assert_eq!(s.port_8021q_mode(p.b[0]).unwrap(), Dot1qMode::Secure);
    // Dump: both VLANs, in VID order, as loaded (FID and members).
    let mut got = Vec::new();
    assert_eq!(s.vtu_for_each(|e| got.push(*e)).unwrap(), 2, "{chip:?}");
    assert_eq!(got, vlans(&p), "{chip:?}");
    assert_eq!(s.vtu_get_next(10).unwrap(), Some(vlans(&p)[1]), "{chip:?}");
    assert_eq!(s.vtu_get_next(20).unwrap(), None, "{chip:?}");
    let _ = s.release();

    let model = sim.bus.device().chip_mut(0).unwrap();
    let (a0, b0, cpu) = (usize::from(p.a[0]), usize::from(p.b[0]), usize::from(p.cpu));
    // Broadcasts stay in their VLAN, and reach the CPU port.
    let got = model.inject(0, a0, &frame(BCAST, 0x10, None));
    assert_eq!(got, out(&p.a[1..], &[p.cpu]), "{chip:?}");
    let got = model.inject(0, b0, &frame(BCAST, 0x20, None));
    assert_eq!(got, out(&p.b[1..], &[p.cpu]), "{chip:?}");
    // The CPU sends tagged into VID 20: VID 20's ports only.
    let got = model.inject(0, cpu, &frame(BCAST, 0x50, Some(20)));
    assert_eq!(got, out(&p.b, &[]), "{chip:?}");
    // A port of VID 10 tagging VID 20 is not a member: secure mode drops it.
    assert!(
        model
            .inject(0, a0, &frame(BCAST, 0x11, Some(20)))
            .is_empty()
    );
    // A unicast to the address learned in VID 20 reaches its port there, and does not
    // cross from VID 10 (it floods VID 10 instead).
    let in20 = [0x02, 0, 0, 0, 0, 0x20];
    let got = model.inject(0, cpu, &frame(in20, 0x51, Some(20)));
    assert_eq!(got, [b0], "{chip:?}");
    let got = model.inject(0, a0, &frame(in20, 0x12, None));
    assert_eq!(got, out(&p.a[1..], &[p.cpu]), "{chip:?}");
    // Purged, VID 20 no longer passes in secure mode.
    let mut s = smi(&mut sim, chip, attach);
    s.vtu_purge(20).unwrap();
    let _ = s.release();
    let model = sim.bus.device().chip_mut(0).unwrap();
    assert!(model.inject(0, b0, &frame(BCAST, 0x22, None)).is_empty());
    assert_eq!(model.vtu_vids(), [10], "{chip:?}");
    let mut s = smi(&mut sim, chip, attach);
    s.vtu_flush().unwrap();
    assert_eq!(s.vtu_for_each(|_| ()).unwrap(), 0, "{chip:?}");
}

#[test]
fn two_vlans_load_dump_and_isolate_on_every_chip() {
    let mut ran = 0;
    for &chip in Chip::ALL {
        assert!(vtu_info(chip).is_some(), "{chip:?} has no VTU facts");
        two_vlans(chip, attach(chip));
        ran += 1;
    }
    // Every chip of the table, not a selection.
    assert_eq!(ran, Chip::ALL.len());
    // And single-chip addressing once.
    two_vlans(Chip::Mv6352, Attach::Direct);
}

/// The layout and STU of the chips a second reading of Linux's ops tables added (and the
/// 6320/6321, moved by Linux's 2025 fixes), as docs/mv88e6xxx.md#atu-vtu-and-stu lists.
#[test]
fn newly_supported_chips_use_the_layout_of_their_linux_ops() {
    use Chip::*;
    for (chip, layout, stu) in [
        (Mv6085, VtuLayout::Mv6352, true),
        (Mv6097, VtuLayout::Mv6352, true),
        (Mv6123, VtuLayout::Mv6352, true),
        (Mv6141, VtuLayout::Mv6352, true),
        (Mv6161, VtuLayout::Mv6352, true),
        (Mv6165, VtuLayout::Mv6352, true),
        (Mv6320, VtuLayout::Mv6352, true),
        (Mv6321, VtuLayout::Mv6352, true),
        (Mv6095, VtuLayout::Mv6185, false),
        (Mv6131, VtuLayout::Mv6185, false),
    ] {
        let i = vtu_info(chip).unwrap();
        assert_eq!(
            (i.layout, i.has_stu, i.max_vid),
            (layout, stu, 4095),
            "{chip:?}"
        );
    }
    // The chips without an STU are exactly those without Linux `stu_*` ops / `max_sid`.
    let no_stu: Vec<Chip> = Chip::ALL
        .iter()
        .copied()
        .filter(|&c| !vtu_info(c).unwrap().has_stu)
        .collect();
    assert_eq!(
        no_stu,
        [Mv6020, Mv6071, Mv6095, Mv6131, Mv6185, Mv6220, Mv6250]
    );
}

fn stu_blocks(chip: Chip) {
    let attach = attach(chip);
    let p = plan(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
    let mut s = smi(&mut sim, chip, attach);
    configure(&mut s, &p);
    let _ = s.release();
    let model = sim.bus.device().chip_mut(0).unwrap();
    let cpu = usize::from(p.cpu);
    // Before any STU entry: the CPU's tagged broadcast reaches all of VID 10.
    let got = model.inject(0, cpu, &frame(BCAST, 0x50, Some(10)));
    assert_eq!(got, out(&p.a, &[]), "{chip:?}");

    let blocked = *p.a.last().unwrap();
    let mut states = [StuState::Forwarding; MAX_PORTS];
    states[usize::from(blocked)] = StuState::Blocking;
    let mut s = smi(&mut sim, chip, attach);
    s.stu_load(&StuEntry { sid: 0, states }).unwrap();
    assert_eq!(
        s.stu_get_next(63).unwrap(),
        Some(StuEntry { sid: 0, states }),
        "{chip:?}"
    );
    assert_eq!(s.stu_get_next(0).unwrap(), None, "{chip:?}");
    // The VLANs are still there after the STU operations.
    assert_eq!(s.vtu_for_each(|_| ()).unwrap(), 2, "{chip:?}");
    let _ = s.release();
    let model = sim.bus.device().chip_mut(0).unwrap();
    // The blocked port neither sends nor receives in SID 0.
    let b = usize::from(blocked);
    assert!(model.inject(0, b, &frame(BCAST, 0x11, None)).is_empty());
    let got = model.inject(0, cpu, &frame(BCAST, 0x52, Some(10)));
    let rest: Vec<u8> = p.a.iter().copied().filter(|&q| q != blocked).collect();
    assert_eq!(got, out(&rest, &[]), "{chip:?}");
}

#[test]
fn stu_states_filter_and_read_back_on_every_chip_with_an_stu() {
    let mut ran = 0;
    for &chip in Chip::ALL {
        if vtu_info(chip).unwrap().has_stu {
            stu_blocks(chip);
            ran += 1;
        }
    }
    assert_eq!(ran, Chip::ALL.len() - 7);
}

#[test]
fn chips_without_an_stu_refuse_it_and_sids_before_any_frame() {
    for chip in [Chip::Mv6095, Chip::Mv6131, Chip::Mv6185, Chip::Mv6250] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip, attach(chip));
        let f0 = s.frames();
        let unit = SwitchUnit::Stu;
        let want = Err(Error::Config(ConfigError::UnitUnsupported { unit, chip }));
        let e = StuEntry {
            sid: 1,
            states: [StuState::Forwarding; MAX_PORTS],
        };
        assert_eq!(s.stu_load(&e), want);
        assert_eq!(s.stu_get_next(63).map(|_| ()), want);
        let mut v = VtuEntry::new(1, 1);
        v.sid = 1;
        let want = Err(Error::Config(ConfigError::Sid { sid: 1 }));
        assert_eq!(s.vtu_load(&v), want);
        assert_eq!(s.frames(), f0, "{chip:?}");
    }
}

#[test]
fn newly_supported_chips_time_out_on_a_stuck_vtu() {
    for chip in [
        Chip::Mv6085,
        Chip::Mv6095,
        Chip::Mv6097,
        Chip::Mv6123,
        Chip::Mv6131,
        Chip::Mv6141,
        Chip::Mv6161,
        Chip::Mv6165,
        Chip::Mv6320,
    ] {
        let model = ChipModel::new(chip, attach(chip)).with_g1_busy(BusyDelay::stuck());
        let mut sim = SwitchSim::single(model);
        let mut s = smi(&mut sim, chip, attach(chip));
        let t = |r: Result<(), Error<_>>| match r {
            Err(Error::Timeout(t)) => t.wait,
            other => panic!("{chip:?}: {other:?}"),
        };
        assert_eq!(t(s.vtu_load(&VtuEntry::new(1, 1))), BusyWait::VtuOp);
        // The unit's state is unknown now: the next operation polls first and gives up
        // before writing into it.
        assert_eq!(t(s.vtu_purge(1)), BusyWait::VtuOp);
        assert_eq!(t(s.vtu_get_next(4095).map(|_| ())), BusyWait::VtuOp);
        let _ = s.release();
        let m = sim.bus.device().chip(0).unwrap();
        assert_eq!(m.dropped_writes(), 0, "{chip:?}");
    }
}

/// A driver that loads a VLAN with the other layout's FID placement reads back the wrong
/// FID on the model: the model follows each chip's layout, not whatever is written.
#[test]
fn the_model_tells_the_layouts_apart() {
    const FID: u16 = 5;
    for (chip, layout) in [
        (Chip::Mv6097, VtuLayout::Mv6352),
        (Chip::Mv6165, VtuLayout::Mv6352),
        (Chip::Mv6095, VtuLayout::Mv6185),
        (Chip::Mv6131, VtuLayout::Mv6185),
    ] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip, attach(chip));
        // Right: the driver's own load reads back as loaded.
        let right = VtuEntry::new(7, FID).with_member(0, Member::Tagged);
        s.vtu_load(&right).unwrap();
        assert_eq!(s.vtu_get_next(4095).unwrap(), Some(right), "{chip:?}");
        s.vtu_flush().unwrap();
        // Wrong: the other layout's FID placement (G1_VTU_FID holding 0 from before; VID,
        // DATA1..3 with port 0 tagged and the rest non-members, then the FID where the
        // other layout keeps it).
        s.g1_write(0x02, 0).unwrap();
        s.g1_write(0x06, 0x1000 | 7).unwrap();
        for (r, v) in [(0x07, 0x3332), (0x08, 0x3333), (0x09, 0x3333)] {
            s.g1_write(r, v).unwrap();
        }
        let op = if layout == VtuLayout::Mv6352 {
            // 6185 style: FID [3:0] in the op word, G1_VTU_FID left at 0.
            0xB000 | FID
        } else {
            // 6352 style: FID in G1_VTU_FID, none in the op word.
            s.g1_write(0x02, FID).unwrap();
            0xB000
        };
        s.g1_write(0x05, op).unwrap();
        s.wait_g1_op(G1Op::Vtu).unwrap();
        let got = s.vtu_get_next(4095).unwrap().unwrap();
        assert_eq!(got.members, right.members, "{chip:?}");
        assert_eq!(
            got.fid, 0,
            "{chip:?}: the FID went where this layout does not look"
        );
    }
}

#[test]
fn vids_above_4095_use_the_page_bit_on_the_6390() {
    let attach = Attach::Indirect(2);
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, attach));
    let mut s = smi(&mut sim, Chip::Mv6390, attach);
    let v = VtuEntry::new(5000, 3).with_member(0, Member::Tagged);
    s.vtu_load(&v).unwrap();
    s.vtu_load(&VtuEntry::new(904, 3)).unwrap();
    let mut got = Vec::new();
    s.vtu_for_each(|e| got.push(e.vid)).unwrap();
    assert_eq!(got, [904, 5000]);
    let _ = s.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().vtu_vids(), [904, 5000]);
}

/// The 6361 has two VTU pages, VIDs up to 8191 (Linux `max_vid = 8191`, commit
/// 1833d8a26f05): VID 5000 is loaded on the second page and read back; 8192 is refused
/// before any frame.
#[test]
fn vids_above_4095_on_the_6361() {
    let chip = Chip::Mv6361;
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
    let mut s = smi(&mut sim, chip, attach(chip));
    s.vtu_load(&VtuEntry::new(5000, 3)).unwrap();
    let got = s.vtu_get_next(4095).unwrap().map(|e| (e.vid, e.fid));
    assert_eq!(got, Some((5000, 3)));
    let f0 = s.frames();
    assert!(matches!(
        s.vtu_load(&VtuEntry::new(8192, 3)),
        Err(Error::Config(ConfigError::Vid { vid: 8192 }))
    ));
    assert_eq!(s.frames(), f0);
    assert_eq!(sim.bus.device().chip(0).unwrap().vtu_vids(), [5000]);
}

/// Linux `mv88e6352_g1_stu_loadpurge` / `mv88e6390_g1_stu_loadpurge` with `valid` clear:
/// G1_VTU_VID without VALID, the SID, STU load/purge; the entry is gone, the others stay.
/// Chips without an STU are refused before any frame.
#[test]
fn stu_purge_removes_one_entry() {
    for chip in [Chip::Mv6352, Chip::Mv6390, Chip::Mv6085, Chip::Mv6393X] {
        let attach = attach(chip);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
        let mut s = smi(&mut sim, chip, attach);
        let mut states = [StuState::Forwarding; MAX_PORTS];
        states[1] = StuState::Blocking;
        for sid in [3, 5] {
            s.stu_load(&StuEntry { sid, states }).unwrap();
        }
        s.stu_purge(3).unwrap();
        assert_eq!(
            s.stu_get_next(63).unwrap(),
            Some(StuEntry { sid: 5, states }),
            "{chip:?}"
        );
        assert_eq!(s.stu_get_next(5).unwrap(), None, "{chip:?}");
        let f0 = s.frames();
        assert!(matches!(
            s.stu_purge(64),
            Err(Error::Config(ConfigError::Sid { sid: 64 }))
        ));
        assert_eq!(s.frames(), f0);
        let _ = s.release();
    }
    let chip = Chip::Mv6185;
    let attach = attach(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
    let mut s = smi(&mut sim, chip, attach);
    let f0 = s.frames();
    assert!(matches!(
        s.stu_purge(0),
        Err(Error::Config(ConfigError::UnitUnsupported {
            unit: SwitchUnit::Stu,
            ..
        }))
    ));
    assert_eq!(s.frames(), f0);
}
