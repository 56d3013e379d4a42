//! ATU and VTU violations through the interrupt path, driver on model, on every chip of
//! the table: frames the model switches raise them (a VTU member violation on a port
//! outside the frame's VLAN, a VTU miss for an unknown VID, an ATU member violation for a
//! source address held by a static entry of another port, an ATU miss on a locked port);
//! the Global1 problem source shows in `g1_irq_pending` when enabled and only in
//! `g1_irq_status` when not; `atu_violation` / `vtu_violation` read the fields and clear
//! the source; a stuck unit times out; argument errors come before any frame; and the
//! model rejects a driver that gets the sequence wrong.

use crate::common::SimSmi;
use mv88e6xxx_smi::atu::{AtuEntry, AtuViolationKind, MacAddr, atu_info};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::irq::{G1Irq, G1IrqSet};
use mv88e6xxx_smi::regs::g1;
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchSim};
use mv88e6xxx_smi::vtu::{Dot1qMode, MAX_PORTS, Member, VtuEntry, VtuViolation};
use mv88e6xxx_smi::{BusyWait, Config, ConfigError, Error, G1Op, Switch};

fn attach(chip: Chip) -> Attach {
    if chip.family() == Family::Mv6250 {
        Attach::DualChip(16)
    } else {
        Attach::Indirect(2)
    }
}

fn smi(sim: &mut SwitchSim, chip: Chip) -> SimSmi<'_> {
    Switch::new(
        &mut sim.bus,
        &sim.counter,
        attach(chip).addressing(chip),
        chip,
        Config::new(),
    )
    .unwrap()
}

/// The first and the last routed port.
fn ports(chip: Chip) -> (u8, u8) {
    let valid: Vec<u8> = (0..MAX_PORTS as u8)
        .filter(|&p| chip.is_valid_port(p))
        .collect();
    (valid[0], *valid.last().unwrap())
}

/// A FID that uses every FID field of the chip's placement (bits above 3).
fn fid(chip: Chip) -> u16 {
    match atu_info(chip).num_databases {
        64 => 0x25,
        256 => 0xA5,
        _ => 0x5A5,
    }
}

fn frame(dst: [u8; 6], src: [u8; 6], vid: Option<u16>) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    if let Some(v) = vid {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&v.to_be_bytes());
    }
    f.extend_from_slice(&[0x08, 0x00]);
    f.resize(64, 0);
    f
}

const BCAST: [u8; 6] = [0xFF; 6];
const SRC: [u8; 6] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];

fn problems() -> G1IrqSet {
    G1IrqSet::empty()
        .with(G1Irq::AtuProblem)
        .with(G1Irq::VtuProblem)
}

/// VLAN 10 in `fid(chip)` with `a` and `cpu` as members, both secure with PVID 10 and
/// forwarding; the problem sources enabled.
fn configure(s: &mut SimSmi<'_>, chip: Chip, a: u8, cpu: u8, mode: Dot1qMode) {
    let e = VtuEntry::new(10, fid(chip))
        .with_member(a, Member::Untagged)
        .with_member(cpu, Member::Tagged);
    s.vtu_load(&e).unwrap();
    for p in [a, cpu] {
        s.port_set_default_vid(p, 10).unwrap();
        s.port_set_8021q_mode(p, mode).unwrap();
        s.port_write(p, 0x04, 0x0003).unwrap();
    }
    s.g1_irq_enable(problems()).unwrap();
}

fn inject(sim: &mut SwitchSim, port: u8, f: &[u8]) -> Vec<usize> {
    sim.bus
        .device()
        .chip_mut(0)
        .unwrap()
        .inject(0, usize::from(port), f)
}

#[test]
fn vtu_member_and_miss_violations_are_reported_and_cleared_on_every_chip() {
    for &chip in Chip::ALL {
        let (a, cpu) = ports(chip);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        // `cpu` leaves VID 20; `a` is not in it.
        let mut s = smi(&mut sim, chip);
        configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
        s.vtu_load(&VtuEntry::new(20, 1).with_member(cpu, Member::Tagged))
            .unwrap();
        assert!(s.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        assert_eq!(s.vtu_violation().unwrap(), None, "{chip:?}");
        let _ = s.release();

        // Member violation: `a` sends into VID 20; secure drops it.
        assert!(inject(&mut sim, a, &frame(BCAST, SRC, Some(20))).is_empty());
        let mut s = smi(&mut sim, chip);
        let pending = s.g1_irq_pending().unwrap();
        assert!(pending.contains(G1Irq::VtuProblem), "{chip:?}");
        assert!(!pending.contains(G1Irq::AtuProblem), "{chip:?}");
        assert_eq!(
            s.vtu_violation().unwrap(),
            Some(VtuViolation {
                member: true,
                miss: false,
                spid: a,
                vid: 20
            }),
            "{chip:?}"
        );
        assert!(s.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        assert_eq!(s.vtu_violation().unwrap(), None, "{chip:?}");
        let _ = s.release();

        // Miss violation: `cpu` sends VID 30, which the VTU does not hold.
        assert!(inject(&mut sim, cpu, &frame(BCAST, SRC, Some(30))).is_empty());
        let mut s = smi(&mut sim, chip);
        assert!(s.g1_irq_pending().unwrap().contains(G1Irq::VtuProblem));
        assert_eq!(
            s.vtu_violation().unwrap(),
            Some(VtuViolation {
                member: false,
                miss: true,
                spid: cpu,
                vid: 30
            }),
            "{chip:?}"
        );
        // The problem is cleared; the violation operation's own "VTU done" event is
        // reported (once).
        assert_eq!(s.g1_irq_status().unwrap(), done(G1Irq::VtuDone), "{chip:?}");
    }
}

#[test]
fn check_mode_reports_a_member_violation_and_still_forwards() {
    let chip = Chip::Mv6352;
    let (a, cpu) = ports(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
    let mut s = smi(&mut sim, chip);
    configure(&mut s, chip, a, cpu, Dot1qMode::Check);
    s.vtu_load(&VtuEntry::new(20, 1).with_member(cpu, Member::Tagged))
        .unwrap();
    let _ = s.release();
    assert_eq!(
        inject(&mut sim, a, &frame(BCAST, SRC, Some(20))),
        [usize::from(cpu)]
    );
    let mut s = smi(&mut sim, chip);
    let v = s.vtu_violation().unwrap().unwrap();
    assert!(v.member && !v.miss && v.spid == a && v.vid == 20, "{v:?}");
    // Fallback mode raises nothing for an unknown VID.
    s.port_set_8021q_mode(a, Dot1qMode::Fallback).unwrap();
    let _ = s.release();
    inject(&mut sim, a, &frame(BCAST, SRC, Some(30)));
    let mut s = smi(&mut sim, chip);
    assert_eq!(s.vtu_violation().unwrap(), None);
}

#[test]
fn atu_member_violation_for_a_static_address_of_another_port_on_every_chip() {
    for &chip in Chip::ALL {
        let (a, cpu) = ports(chip);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip);
        configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
        let mac = MacAddr::new(SRC);
        s.atu_load(&AtuEntry::new_static(fid(chip), mac, 1 << cpu))
            .unwrap();
        assert_eq!(s.atu_violation().unwrap(), None, "{chip:?}");
        let _ = s.release();
        // The CPU's own static address from the CPU port: no violation.
        inject(&mut sim, cpu, &frame(BCAST, SRC, None));
        let mut s = smi(&mut sim, chip);
        assert!(s.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        let _ = s.release();
        // The same source address from port `a`.
        inject(&mut sim, a, &frame(BCAST, SRC, None));
        let mut s = smi(&mut sim, chip);
        let pending = s.g1_irq_pending().unwrap();
        assert!(pending.contains(G1Irq::AtuProblem), "{chip:?}");
        assert!(!pending.contains(G1Irq::VtuProblem), "{chip:?}");
        let v = s.atu_violation().unwrap().expect("violation");
        assert_eq!(
            v.kind,
            AtuViolationKind {
                member: true,
                ..Default::default()
            },
            "{chip:?}"
        );
        assert_eq!(
            (v.spid, v.fid, v.mac, v.ports),
            (a, fid(chip), mac, 1 << cpu),
            "{chip:?}"
        );
        assert!(s.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        assert_eq!(s.atu_violation().unwrap(), None, "{chip:?}");
        // The static entry is untouched.
        let e = s.atu_get_next(fid(chip), MacAddr::BROADCAST).unwrap();
        assert_eq!(e.map(|e| e.ports), Some(1 << cpu), "{chip:?}");
    }
}

#[test]
fn atu_miss_violation_on_a_locked_port_on_every_chip() {
    for &chip in Chip::ALL {
        let (a, cpu) = ports(chip);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip);
        configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
        s.port_set_atu_locked(a, true).unwrap();
        assert_eq!(s.port_read(a, 0x0B).unwrap() & 0x2000, 0x2000);
        let _ = s.release();
        inject(&mut sim, a, &frame(BCAST, SRC, None));
        let model = sim.bus.device().chip_mut(0).unwrap();
        assert!(model.irq_asserted(0), "{chip:?}");
        // Not learned.
        assert!(model.atu_entries().is_empty(), "{chip:?}");
        let mut s = smi(&mut sim, chip);
        let v = s.atu_violation().unwrap().expect("violation");
        assert!(
            v.kind.miss && !v.kind.member && !v.kind.age_out && !v.kind.full,
            "{chip:?}"
        );
        assert_eq!(
            (v.spid, v.fid, v.mac),
            (a, fid(chip), MacAddr::new(SRC)),
            "{chip:?}"
        );
        // Unlocked, the port learns and nothing is raised.
        s.port_set_atu_locked(a, false).unwrap();
        let _ = s.release();
        inject(&mut sim, a, &frame(BCAST, SRC, None));
        let model = sim.bus.device().chip_mut(0).unwrap();
        assert!(!model.irq_asserted(0), "{chip:?}");
        assert_eq!(model.atu_entries().len(), 1, "{chip:?}");
        let mut s = smi(&mut sim, chip);
        assert_eq!(s.atu_violation().unwrap(), None, "{chip:?}");
    }
}

#[test]
fn a_masked_problem_is_in_the_status_but_not_pending() {
    let chip = Chip::Mv6390;
    let (a, cpu) = ports(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
    let mut s = smi(&mut sim, chip);
    configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
    s.g1_irq_enable(G1IrqSet::empty()).unwrap();
    let _ = s.release();
    inject(&mut sim, a, &frame(BCAST, SRC, Some(99)));
    assert!(!sim.bus.device().chip(0).unwrap().irq_asserted(0));
    let mut s = smi(&mut sim, chip);
    assert!(s.g1_irq_pending().unwrap().is_empty());
    assert!(s.g1_irq_status().unwrap().contains(G1Irq::VtuProblem));
    // Enabled later, it is pending: the violation was latched meanwhile.
    s.g1_irq_enable(problems()).unwrap();
    assert!(s.g1_irq_pending().unwrap().contains(G1Irq::VtuProblem));
    let v = s.vtu_violation().unwrap().unwrap();
    assert!(v.miss && v.vid == 99 && v.spid == a);
    assert_eq!(s.g1_irq_status().unwrap(), done(G1Irq::VtuDone));
}

#[test]
fn the_first_violation_is_held_until_cleared() {
    let chip = Chip::Mv6352;
    let (a, cpu) = ports(chip);
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
    let mut s = smi(&mut sim, chip);
    configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
    let _ = s.release();
    inject(&mut sim, a, &frame(BCAST, SRC, Some(40)));
    inject(&mut sim, cpu, &frame(BCAST, SRC, Some(41)));
    let mut s = smi(&mut sim, chip);
    let v = s.vtu_violation().unwrap().unwrap();
    assert_eq!((v.spid, v.vid), (a, 40));
    assert_eq!(s.vtu_violation().unwrap(), None);
    let _ = s.release();
    inject(&mut sim, cpu, &frame(BCAST, SRC, Some(41)));
    let mut s = smi(&mut sim, chip);
    let v = s.vtu_violation().unwrap().unwrap();
    assert_eq!((v.spid, v.vid), (cpu, 41));
}

#[test]
fn stuck_busy_times_out() {
    for chip in [Chip::Mv6352, Chip::Mv6185, Chip::Mv6250, Chip::Mv6393X] {
        let model = ChipModel::new(chip, attach(chip)).with_g1_busy(BusyDelay::stuck());
        let mut sim = SwitchSim::single(model);
        let mut s = smi(&mut sim, chip);
        match s.atu_violation() {
            Err(Error::Timeout(t)) => assert_eq!(t.wait, BusyWait::AtuOp, "{chip:?}"),
            r => panic!("{chip:?}: {r:?}"),
        }
        match s.vtu_violation() {
            Err(Error::Timeout(t)) => assert_eq!(t.wait, BusyWait::VtuOp, "{chip:?}"),
            r => panic!("{chip:?}: {r:?}"),
        }
        // Once stuck, never written again: the next call polls and times out too.
        assert!(matches!(s.atu_violation(), Err(Error::Timeout(_))));
        let _ = s.release();
        assert_eq!(
            sim.bus.device().chip(0).unwrap().dropped_writes(),
            0,
            "{chip:?}"
        );
    }
}

#[test]
fn a_bad_port_is_refused_before_any_frame() {
    for &chip in Chip::ALL {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip);
        let bad = (0..16u8).find(|&p| !chip.is_valid_port(p)).unwrap();
        let f0 = s.frames();
        assert_eq!(
            s.port_set_atu_locked(bad, true),
            Err(Error::Config(ConfigError::Port { port: bad })),
            "{chip:?}"
        );
        assert_eq!(s.frames(), f0, "{chip:?}");
    }
}

/// The model takes the violation only from the get/clear op, and its results only
/// after BUSY has cleared.
#[test]
fn the_model_rejects_a_wrong_sequence() {
    let chip = Chip::Mv6352;
    let (a, cpu) = ports(chip);
    let model = ChipModel::new(chip, attach(chip)).with_g1_busy(BusyDelay::fixed(200_000));
    let mut sim = SwitchSim::single(model);
    let mut s = smi(&mut sim, chip);
    configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
    s.port_set_atu_locked(a, true).unwrap();
    let _ = s.release();
    inject(&mut sim, a, &frame(BCAST, SRC, Some(50)));
    inject(&mut sim, a, &frame(BCAST, SRC, Some(10)));
    let mut s = smi(&mut sim, chip);
    // A no-op (wrong op code) clears nothing.
    s.g1_op(G1Op::Atu, 0x0000).unwrap();
    s.g1_op(G1Op::Vtu, 0x2000).unwrap();
    assert!(s.g1_irq_status().unwrap().contains(G1Irq::AtuProblem));
    assert!(s.g1_irq_status().unwrap().contains(G1Irq::VtuProblem));
    // Get/clear, results read while BUSY is still set: not there yet.
    s.g1_write(g1::VTU_OP, 0xF000).unwrap();
    assert_eq!(s.g1_read(g1::VTU_VID).unwrap() & 0x0FFF, 10);
    assert_eq!(s.g1_read(g1::VTU_OP).unwrap() & 0x8060, 0x8000);
    s.wait_g1_op(G1Op::Vtu).unwrap();
    assert_eq!(s.g1_read(g1::VTU_VID).unwrap() & 0x0FFF, 50);
    assert_eq!(
        s.g1_read(g1::VTU_OP).unwrap() & 0x806F,
        0x0020 | u16::from(a)
    );
    s.g1_write(g1::ATU_OP, 0xF000).unwrap();
    assert_eq!(s.g1_read(g1::ATU_MAC45).unwrap(), 0);
    s.wait_g1_op(G1Op::Atu).unwrap();
    assert_eq!(s.g1_read(g1::ATU_MAC45).unwrap(), 0x4455);
    assert_eq!(s.g1_read(g1::ATU_FID).unwrap(), fid(chip));
    assert_eq!(s.g1_read(g1::ATU_DATA).unwrap() & 0xF, u16::from(a));
    // No problem left (the raw operations above may have left their "done" events).
    let st = s.g1_irq_status().unwrap();
    assert!(
        !st.contains(G1Irq::AtuProblem) && !st.contains(G1Irq::VtuProblem),
        "{st:?}"
    );
}

/// The set of one "operation done" source (cleared by the G1_STS read that reports it).
fn done(irq: G1Irq) -> G1IrqSet {
    G1IrqSet::empty().with(irq)
}

/// A locked port drops what an unknown source sends (802.1X / MAC authentication): Linux
/// `mv88e6xxx_port_set_lock` (port.c) sets PORT_CTL0 SA_FILT to drop-on-lock (0x4000 in the
/// \[15:14\] field, port.h `MV88E6XXX_PORT_CTL0_SA_FILT_DROP_ON_LOCK`) beside PORT_ASSOC_VECTOR
/// LOCKED_PORT; with LOCKED_PORT alone the chip only reports the miss and forwards the frame.
/// A source with a static entry on the port still passes.
#[test]
fn a_locked_port_drops_frames_from_unknown_sources_on_every_chip() {
    const KNOWN: [u8; 6] = [0x02, 0x99, 0x88, 0x77, 0x66, 0x55];
    for &chip in Chip::ALL {
        let (a, cpu) = ports(chip);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach(chip)));
        let mut s = smi(&mut sim, chip);
        configure(&mut s, chip, a, cpu, Dot1qMode::Secure);
        s.atu_load(&AtuEntry::new_static(
            fid(chip),
            MacAddr::new(KNOWN),
            1 << a,
        ))
        .unwrap();
        s.port_set_atu_locked(a, true).unwrap();
        assert_eq!(s.port_read(a, 0x04).unwrap() & 0xC000, 0x4000, "{chip:?}");
        let _ = s.release();
        assert_eq!(
            inject(&mut sim, a, &frame(BCAST, SRC, None)),
            Vec::<usize>::new(),
            "{chip:?}"
        );
        assert_eq!(
            inject(&mut sim, a, &frame(BCAST, KNOWN, None)),
            vec![usize::from(cpu)],
            "{chip:?}"
        );
        // Unlocked: SA filtering off again, the unknown source is forwarded.
        let mut s = smi(&mut sim, chip);
        s.port_set_atu_locked(a, false).unwrap();
        assert_eq!(s.port_read(a, 0x04).unwrap() & 0xC000, 0, "{chip:?}");
        let _ = s.release();
        assert_eq!(
            inject(&mut sim, a, &frame(BCAST, SRC, None)),
            vec![usize::from(cpu)],
            "{chip:?}"
        );
    }
}
