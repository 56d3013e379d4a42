//! The ATU driver on the model: static and learned addresses, dumps, flushes per FID and
//! per port, argument errors before any frame, unsupported units, stuck BUSY.

use crate::common::SimSmi;
use mdio_bus::PhyAddr;
use mv88e6xxx_smi::atu::{AtuEntry, AtuFlush, AtuState, MacAddr};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchSim};
use mv88e6xxx_smi::vtu::{MAX_PORTS, StuEntry, StuState, VtuEntry};
use mv88e6xxx_smi::{Addressing, BusyWait, Config, ConfigError, Error, Switch, SwitchUnit};

/// The 6250 family is dual-chip at 0, the others multi-chip at 2.
fn attach(chip: Chip) -> (Attach, Addressing) {
    if chip.family() == mv88e6xxx_smi::Family::Mv6250 {
        let sw_addr = PhyAddr::new(0).unwrap();
        (Attach::DualChip(0), Addressing::DualChip { sw_addr })
    } else {
        let sw_addr = PhyAddr::new(2).unwrap();
        let remap_6393x = chip.family().has_6393x_remap();
        let a = Addressing::Indirect {
            sw_addr,
            remap_6393x,
        };
        (Attach::Indirect(2), a)
    }
}

fn indirect(chip: Chip) -> SwitchSim {
    SwitchSim::single(ChipModel::new(chip, attach(chip).0))
}

fn smi(sim: &mut SwitchSim, chip: Chip) -> SimSmi<'_> {
    let a = attach(chip).1;
    Switch::new(&mut sim.bus, &sim.counter, a, chip, Config::new()).unwrap()
}

fn mac(last: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, last])
}

fn dump(s: &mut SimSmi<'_>, fid: u16) -> Vec<AtuEntry> {
    let mut v = Vec::new();
    s.atu_for_each(fid, |e| v.push(*e)).unwrap();
    v
}

#[test]
fn static_entries_load_and_dump_in_address_order() {
    for chip in [Chip::Mv6352, Chip::Mv6185, Chip::Mv6250, Chip::Mv6390] {
        let mut sim = indirect(chip);
        let mut s = smi(&mut sim, chip);
        let fid = 5;
        let mc = MacAddr([0x01, 0x00, 0x5E, 0, 0, 9]);
        s.atu_load(&AtuEntry::new_static(fid, mac(7), 0b10))
            .unwrap();
        s.atu_load(&AtuEntry::new_static(fid, mac(3), 0b01))
            .unwrap();
        s.atu_load(&AtuEntry::new_static(fid, mc, 0b11)).unwrap();
        s.atu_load(&AtuEntry::new_static(fid + 1, mac(1), 0b100))
            .unwrap();
        let d = dump(&mut s, fid);
        let got: Vec<_> = d.iter().map(|e| (e.mac, e.ports, e.state)).collect();
        assert_eq!(
            got,
            [
                (mc, 0b11, AtuState::Static),
                (mac(3), 0b01, AtuState::Static),
                (mac(7), 0b10, AtuState::Static),
            ],
            "{chip:?}"
        );
        assert_eq!(dump(&mut s, fid + 1).len(), 1, "{chip:?}");
        // One step of GetNext reads what the model holds.
        let e = s.atu_get_next(fid, mac(3)).unwrap().unwrap();
        assert_eq!(e.mac, mac(7));
        assert_eq!(s.atu_get_next(fid, mac(7)).unwrap(), None);
        s.atu_purge(fid, mac(3)).unwrap();
        assert_eq!(dump(&mut s, fid).len(), 2);
        let _ = s.release();
        // The model's table agrees: data word = port vector << 4 | 0xE (unicast static).
        let model = sim.bus.device().chip(0).unwrap();
        assert!(
            model
                .atu_entries()
                .contains(&(fid, mac(7).0, (0b10 << 4) | 0xE))
        );
    }
}

#[test]
fn learned_addresses_are_dumped_and_flushed_per_port_and_fid() {
    let mut sim = indirect(Chip::Mv6352);
    let mut s = smi(&mut sim, Chip::Mv6352);
    // Ports 0..=3 forwarding (PORT_CTL0), 802.1Q disabled: FID 0.
    for p in 0..4 {
        s.port_write(p, 0x04, 0x0003).unwrap();
    }
    s.atu_load(&AtuEntry::new_static(0, mac(0x50), 0b1000))
        .unwrap();
    let _ = s.release();
    let now = sim.clock.now_ns();
    let model = sim.bus.device().chip_mut(0).unwrap();
    let frame = |src: u8| {
        let mut f = vec![0xFF; 6];
        f.extend_from_slice(&mac(src).0);
        f.extend_from_slice(&[0x08, 0x00]);
        f.resize(60, 0);
        f
    };
    // Unknown destination (broadcast): flooded to the other forwarding ports.
    assert_eq!(model.inject(now, 0, &frame(0x10)), [1, 2, 3]);
    assert_eq!(model.inject(now, 1, &frame(0x11)), [0, 2, 3]);
    model.inject(now, 1, &frame(0x12));
    // Known destination: only its port.
    let mut to10 = mac(0x10).0.to_vec();
    to10.extend_from_slice(&mac(0x13).0);
    to10.extend_from_slice(&[0x08, 0x00]);
    to10.resize(60, 0);
    assert_eq!(model.inject(now, 2, &to10), [0]);

    let mut s = smi(&mut sim, Chip::Mv6352);
    let d = dump(&mut s, 0);
    let learned: Vec<_> = d
        .iter()
        .filter(|e| matches!(e.state, AtuState::Learned { age: 7 }))
        .map(|e| (e.mac, e.ports))
        .collect();
    assert_eq!(
        learned,
        [
            (mac(0x10), 0b0001),
            (mac(0x11), 0b0010),
            (mac(0x12), 0b0010),
            (mac(0x13), 0b0100)
        ]
    );
    // Removing port 1 drops what was learned there, nothing else.
    s.atu_remove_port(1, AtuFlush::All, None).unwrap();
    let macs: Vec<_> = dump(&mut s, 0).iter().map(|e| e.mac).collect();
    assert_eq!(macs, [mac(0x10), mac(0x13), mac(0x50)]);
    // A non-static flush of FID 0 keeps the static entry.
    s.atu_flush(AtuFlush::NonStatic, Some(0)).unwrap();
    let macs: Vec<_> = dump(&mut s, 0).iter().map(|e| e.mac).collect();
    assert_eq!(macs, [mac(0x50)]);
    // A flush of another FID leaves FID 0 alone; flushing all empties it.
    s.atu_flush(AtuFlush::All, Some(1)).unwrap();
    assert_eq!(dump(&mut s, 0).len(), 1);
    s.atu_flush(AtuFlush::All, None).unwrap();
    assert_eq!(dump(&mut s, 0).len(), 0);
}

#[test]
fn age_time_ages_learned_entries_out() {
    let mut sim = indirect(Chip::Mv6352);
    let mut s = smi(&mut sim, Chip::Mv6352);
    s.port_write(0, 0x04, 3).unwrap();
    // 15 s steps: 30 s asked for is 2 steps.
    assert_eq!(s.atu_set_age_time_ms(29_000).unwrap(), 30_000);
    assert_eq!(s.g1_read(0x0A).unwrap() & 0x0FF0, 2 << 4);
    let _ = s.release();
    let now = sim.clock.now_ns();
    let mut f = vec![0xFF; 6];
    f.extend_from_slice(&mac(1).0);
    f.resize(60, 0);
    sim.bus.device().chip_mut(0).unwrap().inject(now, 0, &f);
    let mut s = smi(&mut sim, Chip::Mv6352);
    assert_eq!(dump(&mut s, 0).len(), 1);
    let _ = s.release();
    sim.clock.advance(31_000_000_000);
    let mut s = smi(&mut sim, Chip::Mv6352);
    assert_eq!(dump(&mut s, 0).len(), 0);
}

#[test]
fn bad_arguments_are_refused_before_any_frame() {
    let mut sim = indirect(Chip::Mv6352);
    let mut s = smi(&mut sim, Chip::Mv6352);
    let f0 = s.frames();
    let cfg = |r: Result<_, Error<_>>| match r {
        Err(Error::Config(c)) => c,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        cfg(s.atu_load(&AtuEntry::new_static(4096, mac(1), 1))),
        ConfigError::Fid { fid: 4096 }
    );
    assert_eq!(
        cfg(s.atu_load(&AtuEntry::new_static(0, mac(1), 1 << 7))),
        ConfigError::PortVector { ports: 1 << 7 }
    );
    let mc = AtuEntry {
        state: AtuState::Learned { age: 7 },
        ..AtuEntry::new_static(0, MacAddr::BROADCAST, 1)
    };
    assert_eq!(cfg(s.atu_load(&mc)), ConfigError::AtuState { state: 7 });
    assert_eq!(
        cfg(s.atu_remove_port(7, AtuFlush::All, None)),
        ConfigError::Port { port: 7 }
    );
    assert_eq!(
        cfg(s.atu_flush(AtuFlush::All, Some(5000))),
        ConfigError::Fid { fid: 5000 }
    );
    assert_eq!(
        cfg(s.atu_set_age_time_ms(14_000).map(|_| ())),
        ConfigError::AgeTime { ms: 14_000 }
    );
    assert_eq!(
        cfg(s.vtu_load(&VtuEntry::new(4096, 1))),
        ConfigError::Vid { vid: 4096 }
    );
    assert_eq!(
        cfg(s.vtu_load(&VtuEntry::new(10, 4096))),
        ConfigError::Fid { fid: 4096 }
    );
    let mut e = VtuEntry::new(10, 1);
    e.sid = 64;
    assert_eq!(cfg(s.vtu_load(&e)), ConfigError::Sid { sid: 64 });
    let e = VtuEntry::new(10, 1).with_member(7, mv88e6xxx_smi::vtu::Member::Tagged);
    assert_eq!(cfg(s.vtu_load(&e)), ConfigError::Port { port: 7 });
    assert_eq!(
        cfg(s.port_set_default_vid(0, 4096)),
        ConfigError::Vid { vid: 4096 }
    );
    assert_eq!(s.frames(), f0);
    // The 6250 family has 64 databases.
    let _ = s.release();
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6250, Attach::DualChip(0)));
    let a = Addressing::DualChip {
        sw_addr: PhyAddr::new(0).unwrap(),
    };
    let mut s = Switch::new(&mut sim.bus, &sim.counter, a, Chip::Mv6250, Config::new()).unwrap();
    let f0 = s.frames();
    assert!(matches!(
        s.atu_purge(64, mac(1)),
        Err(Error::Config(ConfigError::Fid { fid: 64 }))
    ));
    assert_eq!(s.frames(), f0);
}

#[test]
fn unsupported_units_are_refused_before_any_frame() {
    // Every chip now has a VTU layout (tests/units/vlan.rs); the 6095 and 6185 have no STU.
    for (chip, unit) in [
        (Chip::Mv6095, SwitchUnit::Stu),
        (Chip::Mv6185, SwitchUnit::Stu),
    ] {
        let mut sim = indirect(chip);
        let mut s = smi(&mut sim, chip);
        let f0 = s.frames();
        let want = Err(Error::Config(ConfigError::UnitUnsupported { unit, chip }));
        if unit == SwitchUnit::Vtu {
            assert_eq!(s.vtu_load(&VtuEntry::new(1, 1)), want);
            assert_eq!(s.vtu_flush(), want);
        } else {
            let e = StuEntry {
                sid: 1,
                states: [StuState::Forwarding; MAX_PORTS],
            };
            assert_eq!(s.stu_load(&e), want);
            assert_eq!(s.stu_get_next(63).map(|_| ()), want);
        }
        assert_eq!(s.frames(), f0);
    }
}

#[test]
fn stuck_busy_times_out() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_g1_busy(BusyDelay::stuck()),
    );
    let mut s = smi(&mut sim, Chip::Mv6352);
    let t = |r: Result<(), Error<_>>| match r {
        Err(Error::Timeout(t)) => t.wait,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        t(s.atu_load(&AtuEntry::new_static(0, mac(1), 1))),
        BusyWait::AtuOp
    );
    // After the timeout the unit's state is unknown: the next op polls first and gives
    // up before writing anything.
    assert_eq!(t(s.atu_flush(AtuFlush::All, None)), BusyWait::AtuOp);
    assert_eq!(t(s.vtu_load(&VtuEntry::new(1, 1))), BusyWait::VtuOp);
    let _ = s.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

#[test]
fn the_model_fails_a_driver_that_gets_the_sequence_wrong() {
    // Operations take 1 ms, so a read right after the op word lands before BUSY clears.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_g1_busy(BusyDelay::fixed(1_000_000)),
    );
    let mut s = smi(&mut sim, Chip::Mv6352);
    s.atu_load(&AtuEntry::new_static(1, mac(9), 0b1)).unwrap();
    // Right: the driver's GetNext finds it.
    assert_eq!(
        s.atu_get_next(1, MacAddr::BROADCAST).unwrap().unwrap().mac,
        mac(9)
    );
    // Wrong: reading G1_ATU_DATA before BUSY clears sees the old value, not the entry.
    for (r, v) in [(0x0D, 0xFFFF), (0x0E, 0xFFFF), (0x0F, 0xFFFF), (0x0C, 0)] {
        s.g1_write(r, v).unwrap();
    }
    s.g1_write(0x01, 1).unwrap();
    s.g1_write(0x0B, 0xC000).unwrap(); // GetNext with BUSY
    assert_eq!(
        s.g1_read(0x0C).unwrap() & 0xF,
        0,
        "results before BUSY cleared"
    );
    s.wait_g1_op(mv88e6xxx_smi::G1Op::Atu).unwrap();
    assert_eq!(
        s.g1_read(0x0C).unwrap() & 0xF,
        0xE,
        "results after BUSY cleared"
    );
    // Wrong: the op word before the data registers loads the previous address.
    s.g1_write(0x0B, 0xB000).unwrap(); // load/purge with BUSY: takes MAC/DATA now
    s.wait_g1_op(mv88e6xxx_smi::G1Op::Atu).unwrap();
    for (r, v) in [
        (0x0D, 0x0200),
        (0x0E, 0x0000),
        (0x0F, 0x0077),
        (0x0C, 0x001E),
    ] {
        s.g1_write(r, v).unwrap();
    }
    let macs: Vec<_> = dump(&mut s, 1).iter().map(|e| e.mac).collect();
    assert!(!macs.contains(&mac(0x77)), "{macs:?}");
    // Only the one entry ever loaded is in the table.
    let _ = s.release();
    let n = sim.bus.device().chip(0).unwrap().atu_entries().len();
    assert_eq!(n, 1);
}

/// By default every load waits for ATU_OP BUSY first and writes G1_ATU_FID, as Linux does:
/// ATU_OP poll, FID, MAC ×3, DATA, OP with its one BUSY poll = 8 accesses, 24 frames.
#[test]
fn by_default_every_atu_load_waits_first_and_writes_the_fid() {
    let mut sim = indirect(Chip::Mv6352);
    let mut s = smi(&mut sim, Chip::Mv6352);
    s.atu_load(&AtuEntry::new_static(3, mac(1), 1)).unwrap();
    let f0 = s.frames();
    s.atu_load(&AtuEntry::new_static(3, mac(2), 1)).unwrap();
    assert_eq!(s.frames() - f0, 24);
}

/// A sole bus master skips both when nothing could have changed them.
#[test]
fn fid_register_is_not_rewritten_unless_something_could_have_changed_it() {
    let mut sim = indirect(Chip::Mv6352);
    let a = attach(Chip::Mv6352).1;
    let config = Config::new().with_sole_bus_master(true);
    let mut s = Switch::new(&mut sim.bus, &sim.counter, a, Chip::Mv6352, config).unwrap();
    s.atu_load(&AtuEntry::new_static(3, mac(1), 1)).unwrap();
    // Same FID: MAC ×3, DATA, OP with its one BUSY poll = 6 accesses, 18 frames.
    let f0 = s.frames();
    s.atu_load(&AtuEntry::new_static(3, mac(2), 1)).unwrap();
    assert_eq!(s.frames() - f0, 18);
    // A raw write to G1_ATU_FID (here: a wrong FID) makes the driver write it again.
    s.g1_write(0x01, 9).unwrap();
    let f0 = s.frames();
    s.atu_load(&AtuEntry::new_static(3, mac(3), 1)).unwrap();
    assert_eq!(s.frames() - f0, 21);
    // A dump (GetNext) may leave another FID there: the next load writes it again too.
    assert_eq!(dump(&mut s, 4).len(), 0);
    s.atu_load(&AtuEntry::new_static(3, mac(4), 1)).unwrap();
    let _ = s.release();
    let fids: Vec<_> = sim.bus.device().chip(0).unwrap().atu_entries();
    assert!(fids.iter().all(|e| e.0 == 3), "{fids:?}");
    assert_eq!(fids.len(), 4);
}

/// The 6141 and 6341 move port fields are 4 bits wide (Linux `atu_move_port_mask = 0xf`,
/// commit 4ae01ec00771): removing port 3 writes G1_ATU_DATA 0x0F3F (state 0xF, from-port
/// 3, to-port 0xF = remove). A 5-bit word (0x3E3F) reads on this chip as "move port 3 to
/// port 14", and the entries stay.
#[test]
fn remove_port_on_6341_family_uses_the_4_bit_move_fields() {
    for chip in [Chip::Mv6341, Chip::Mv6141] {
        let mut sim = indirect(chip);
        let mut s = smi(&mut sim, chip);
        s.atu_load(&AtuEntry::new_static(1, mac(1), 0b0_1000))
            .unwrap();
        s.atu_load(&AtuEntry::new_static(1, mac(2), 0b0_1001))
            .unwrap();
        s.atu_load(&AtuEntry::new_static(2, mac(3), 0b1_0000))
            .unwrap();
        s.atu_remove_port(3, AtuFlush::All, None).unwrap();
        let model = sim.bus.device().chip(0).unwrap();
        assert_eq!(
            model.g1_reg(0x0C),
            0x0F3F,
            "{chip:?}: G1_ATU_DATA of the move"
        );
        let entries: Vec<_> = model
            .atu_entries()
            .iter()
            .map(|&(fid, m, data)| (fid, m[5], data >> 4))
            .collect();
        // mac(1) was only on port 3 and is gone; mac(2) keeps port 0; FID 2 untouched.
        assert_eq!(entries, [(1, 2, 0b0_0001), (2, 3, 0b1_0000)], "{chip:?}");
    }
}

/// The 6141 and 6341 have 256 address databases (Linux `num_databases = 256`, commit
/// b9a61c20179f): FID 255 reaches the chip as FID 255 (FID \[3:0\] in G1_ATU_OP, \[7:4\]
/// in G1_ATU_CTL), FID 256 is refused with a typed error before any frame.
#[test]
fn fid_range_of_6341_family_is_256() {
    for chip in [Chip::Mv6341, Chip::Mv6141] {
        let mut sim = indirect(chip);
        let mut s = smi(&mut sim, chip);
        s.atu_load(&AtuEntry::new_static(255, mac(9), 0b1)).unwrap();
        let f0 = s.frames();
        assert!(matches!(
            s.atu_load(&AtuEntry::new_static(256, mac(9), 0b1)),
            Err(Error::Config(ConfigError::Fid { fid: 256 }))
        ));
        assert!(matches!(
            s.atu_flush(AtuFlush::All, Some(256)),
            Err(Error::Config(ConfigError::Fid { fid: 256 }))
        ));
        assert_eq!(s.frames(), f0, "{chip:?}: refused before any frame");
        let model = sim.bus.device().chip(0).unwrap();
        let fids: Vec<_> = model.atu_entries().iter().map(|e| e.0).collect();
        assert_eq!(fids, [255], "{chip:?}");
    }
}

/// The management states load Linux's encodings (global1.h
/// `MV88E6XXX_G1_ATU_DATA_STATE_{UC,MC}_STATIC_DA_MGMT` 0xC / 0x6 and their `_PO`
/// priority-override forms 0xD / 0xE), as the model's table holds them.
#[test]
fn management_states_load_linux_encodings() {
    let mut sim = indirect(Chip::Mv6352);
    let uc = mac(0x21);
    let mc = MacAddr([0x01, 0x80, 0xC2, 0, 0, 0x0E]);
    {
        let mut smi = smi(&mut sim, Chip::Mv6352);
        for (m, state) in [(uc, AtuState::Management), (mc, AtuState::Management)] {
            let mut e = AtuEntry::new_static(1, m, 0b1);
            e.state = state;
            smi.atu_load(&e).unwrap();
        }
        for (m, state) in [
            (uc, AtuState::ManagementPriorityOverride),
            (mc, AtuState::ManagementPriorityOverride),
        ] {
            let mut e = AtuEntry::new_static(2, m, 0b1);
            e.state = state;
            smi.atu_load(&e).unwrap();
        }
    }
    let entries = sim.bus.device().chip(0).unwrap().atu_entries();
    let state = |fid: u16, m: MacAddr| {
        entries
            .iter()
            .find(|e| e.0 == fid && e.1 == m.octets())
            .map(|e| e.2 & 0xF)
    };
    assert_eq!(state(1, uc), Some(0xC));
    assert_eq!(state(1, mc), Some(0x6));
    assert_eq!(state(2, uc), Some(0xD));
    assert_eq!(state(2, mc), Some(0xE));
}
