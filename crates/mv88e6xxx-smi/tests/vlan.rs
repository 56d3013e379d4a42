//! Two VLANs loaded through the driver, dumped back with GetNext, and checked by frames
//! injected into the model: ports 0–1 in VID 10, ports 2–3 in VID 20, port 5 (CPU) tagged
//! in both; nothing leaks between them.

use hwtimer_core::sim::SimCounter;
use mdio_bus::PhyAddr;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchModel, SwitchSim};
use mv88e6xxx_smi::vtu::{Dot1qMode, MAX_PORTS, Member, StuEntry, StuState, VtuEntry};
use mv88e6xxx_smi::{Addressing, Config, Smi};

type SimSmi<'a> = Smi<&'a mut mdio_bus::sim::SimMdio<SwitchModel>, &'a SimCounter>;

const CPU: u8 = 5;

fn smi(sim: &mut SwitchSim, chip: Chip, attach: Attach) -> SimSmi<'_> {
    let a = match attach {
        Attach::Direct => Addressing::Direct,
        Attach::Indirect(a) => Addressing::Indirect {
            sw_addr: PhyAddr::new(a).unwrap(),
            remap_6393x: chip.family().has_6393x_remap(),
        },
        Attach::DualChip(a) => Addressing::DualChip {
            sw_addr: PhyAddr::new(a).unwrap(),
        },
    };
    Smi::new(&mut sim.bus, &sim.counter, a, chip, Config::new()).unwrap()
}

fn vlans() -> [VtuEntry; 2] {
    let v10 = VtuEntry::new(10, 1)
        .with_member(0, Member::Untagged)
        .with_member(1, Member::Untagged)
        .with_member(CPU, Member::Tagged);
    let v20 = VtuEntry::new(20, 2)
        .with_member(2, Member::Untagged)
        .with_member(3, Member::Untagged)
        .with_member(CPU, Member::Tagged);
    [v10, v20]
}

/// Configure through the driver: VLANs, default VIDs, 802.1Q secure, ports forwarding.
fn configure(s: &mut SimSmi<'_>) {
    for v in vlans() {
        s.vtu_load(&v).unwrap();
    }
    for (port, vid) in [(0, 10), (1, 10), (2, 20), (3, 20), (CPU, 10)] {
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

#[test]
fn two_vlans_load_dump_and_isolate() {
    for (chip, attach) in [
        (Chip::Mv6352, Attach::Indirect(2)),
        (Chip::Mv6352, Attach::Direct),
        (Chip::Mv6390, Attach::Indirect(2)),
        (Chip::Mv6393X, Attach::Indirect(2)),
        (Chip::Mv6185, Attach::Indirect(2)),
    ] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
        let mut s = smi(&mut sim, chip, attach);
        configure(&mut s);
        assert_eq!(s.port_default_vid(2).unwrap(), 20);
        assert_eq!(s.port_8021q_mode(2).unwrap(), Dot1qMode::Secure);
        // Dump: both VLANs, in VID order, as loaded.
        let mut got = Vec::new();
        assert_eq!(s.vtu_for_each(|e| got.push(*e)).unwrap(), 2, "{chip:?}");
        assert_eq!(got, vlans(), "{chip:?}");
        assert_eq!(s.vtu_get_next(10).unwrap(), Some(vlans()[1]));
        assert_eq!(s.vtu_get_next(20).unwrap(), None);
        let _ = s.release();

        let model = sim.bus.device().chip_mut(0).unwrap();
        let now = 0;
        // Broadcasts stay in their VLAN, and reach the CPU port.
        assert_eq!(
            model.inject(now, 0, &frame(BCAST, 0x10, None)),
            [1, 5],
            "{chip:?}"
        );
        assert_eq!(
            model.inject(now, 2, &frame(BCAST, 0x20, None)),
            [3, 5],
            "{chip:?}"
        );
        // The CPU sends tagged into VID 20: ports 2, 3 only.
        assert_eq!(model.inject(now, 5, &frame(BCAST, 0x50, Some(20))), [2, 3]);
        // A port of VID 10 tagging VID 20 is not a member: secure mode drops it.
        assert!(
            model
                .inject(now, 0, &frame(BCAST, 0x11, Some(20)))
                .is_empty()
        );
        // A unicast to an address learned in VID 20 does not cross from VID 10.
        let in20 = [0x02, 0, 0, 0, 0, 0x20];
        assert_eq!(model.inject(now, 3, &frame(in20, 0x21, None)), [2]);
        assert_eq!(model.inject(now, 1, &frame(in20, 0x12, None)), [0, 5]);
        // Purged, VID 20 no longer passes in secure mode.
        let mut s = smi(&mut sim, chip, attach);
        s.vtu_purge(20).unwrap();
        let _ = s.release();
        let model = sim.bus.device().chip_mut(0).unwrap();
        assert!(model.inject(now, 2, &frame(BCAST, 0x22, None)).is_empty());
        assert_eq!(model.vtu_vids(), [10]);
        let mut s = smi(&mut sim, chip, attach);
        s.vtu_flush().unwrap();
        assert_eq!(s.vtu_for_each(|_| ()).unwrap(), 0);
    }
}

#[test]
fn stu_states_filter_and_read_back() {
    for chip in [Chip::Mv6352, Chip::Mv6390] {
        let attach = Attach::Indirect(2);
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
        let mut s = smi(&mut sim, chip, attach);
        configure(&mut s);
        let mut states = [StuState::Forwarding; MAX_PORTS];
        states[1] = StuState::Blocking;
        s.stu_load(&StuEntry { sid: 0, states }).unwrap();
        assert_eq!(
            s.stu_get_next(63).unwrap(),
            Some(StuEntry { sid: 0, states })
        );
        assert_eq!(s.stu_get_next(0).unwrap(), None);
        // The VLANs are still there after the STU operations.
        assert_eq!(s.vtu_for_each(|_| ()).unwrap(), 2);
        let _ = s.release();
        let model = sim.bus.device().chip_mut(0).unwrap();
        // Port 1 blocks in SID 0: a broadcast from port 0 reaches the CPU only.
        assert_eq!(
            model.inject(0, 0, &frame(BCAST, 0x10, None)),
            [5],
            "{chip:?}"
        );
        assert!(model.inject(0, 1, &frame(BCAST, 0x11, None)).is_empty());
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
