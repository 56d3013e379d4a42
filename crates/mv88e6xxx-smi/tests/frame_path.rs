//! The switch model's frame path through raw register writes (no driver): frame modes and
//! DSA/EtherType DSA tags, traps to the CPU, port-based VLANs and the port FID, learning
//! control, the 802.1Q discard bits, mirroring and the largest frame. Expected bytes are
//! built here by hand from Linux `net/dsa/tag_dsa.c`'s layout, not with the model's codec.

use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{AddressMap, Chip};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};

const HOST: [u8; 6] = [0x02, 0, 0, 0, 0, 0xAA];
const PEER: [u8; 6] = [0x02, 0, 0, 0, 0, 0xBB];
const BCAST: [u8; 6] = [0xFF; 6];
const LLDP: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E];

/// One chip on a direct-attached bus, every port forwarding.
struct Rig {
    sim: SwitchSim,
    /// Where the chip's ports and globals answer (the crate's address map).
    map: AddressMap,
    nports: usize,
    chip: Chip,
}

impl Rig {
    fn new(chip: Chip) -> Self {
        let mut rig = Rig {
            sim: SwitchSim::single(ChipModel::new(chip, Attach::Direct)),
            map: chip.family().address_map(),
            nports: usize::from(chip.info().num_ports),
            chip,
        };
        for p in 0..rig.nports {
            rig.port_write(p, 0x04, 0x0003); // PORT_CTL0: forwarding
        }
        rig
    }

    fn write(&mut self, dev: u8, reg: u8, v: u16) {
        let (d, r) = (PhyAddr::new(dev).unwrap(), RegAddr::new(reg).unwrap());
        self.sim.bus.write(d, r, v).unwrap();
    }

    fn read(&mut self, dev: u8, reg: u8) -> u16 {
        let (d, r) = (PhyAddr::new(dev).unwrap(), RegAddr::new(reg).unwrap());
        self.sim.bus.read(d, r).unwrap()
    }

    fn port_write(&mut self, port: usize, reg: u8, v: u16) {
        self.write(self.map.port_base + port as u8, reg, v);
    }

    fn port_read(&mut self, port: usize, reg: u8) -> u16 {
        self.read(self.map.port_base + port as u8, reg)
    }

    fn g1_write(&mut self, reg: u8, v: u16) {
        self.write(self.map.global1, reg, v);
    }

    fn g1_read(&mut self, reg: u8) -> u16 {
        self.read(self.map.global1, reg)
    }

    fn g2_write(&mut self, reg: u8, v: u16) {
        self.write(self.map.global2, reg, v);
    }

    /// The frame enters `port`: each port it leaves on and the bytes it leaves with.
    fn send(&mut self, port: usize, frame: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let now = self.sim.clock.now_ns();
        let chip = self.sim.bus.device().chip_mut(0).unwrap();
        chip.inject_frame(now, port, frame)
    }

    /// The ports the frame leaves on.
    fn ports(&mut self, port: usize, frame: &[u8]) -> Vec<usize> {
        let now = self.sim.clock.now_ns();
        self.sim
            .bus
            .device()
            .chip_mut(0)
            .unwrap()
            .inject(now, port, frame)
    }

    fn others(&self, but: &[usize]) -> Vec<usize> {
        (0..self.nports)
            .filter(|&p| !but.contains(&p) && self.chip.is_valid_port(p as u8))
            .collect()
    }

    fn atu_macs(&mut self) -> Vec<(u16, [u8; 6])> {
        let chip = self.sim.bus.device().chip(0).unwrap();
        chip.atu_entries()
            .into_iter()
            .map(|(f, m, _)| (f, m))
            .collect()
    }

    /// 6352-layout VTU load: VID `vid` in FID `fid`, member tag `tags[p]` per port (0
    /// unmodified, 1 untagged, 2 tagged, 3 non-member; G1 VTU_DATA1..3, 4 bits a port).
    fn vtu_load_6352(&mut self, vid: u16, fid: u16, tags: &[u16]) {
        let mut data = [0u16; 3];
        for (p, &t) in tags.iter().enumerate() {
            data[p / 4] |= t << ((p % 4) * 4);
        }
        self.g1_write(0x02, fid); // VTU_FID
        self.g1_write(0x03, 0); // VTU_SID
        self.g1_write(0x06, 0x1000 | vid); // VTU_VID, valid
        for (i, d) in data.iter().enumerate() {
            self.g1_write(0x07 + i as u8, *d);
        }
        self.g1_write(0x05, 0xB000); // BUSY | VTU_LOAD_PURGE
        self.g1_read(0x05); // a frame later: done
        self.g1_read(0x05);
    }
}

/// An untagged frame of `len` bytes (without FCS).
fn eth(dst: [u8; 6], src: [u8; 6], ethertype: u16, len: usize) -> Vec<u8> {
    let mut f = Vec::with_capacity(len);
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    let mut i = 0u8;
    while f.len() < len {
        f.push(i);
        i = i.wrapping_add(1);
    }
    f
}

/// `frame` with an 802.1Q header carrying `tci` after the source address.
fn with_8021q(frame: &[u8], tci: u16) -> Vec<u8> {
    let mut f = frame[..12].to_vec();
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&tci.to_be_bytes());
    f.extend_from_slice(&frame[12..]);
    f
}

/// `frame` (untagged) with the 4 `tag` bytes spliced in before its EtherType, behind
/// `edsa`'s EtherType and two zero bytes if given.
fn with_tag(frame: &[u8], edsa: Option<u16>, tag: [u8; 4]) -> Vec<u8> {
    let mut f = frame[..12].to_vec();
    if let Some(et) = edsa {
        f.extend_from_slice(&et.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
    }
    f.extend_from_slice(&tag);
    f.extend_from_slice(&frame[12..]);
    f
}

/// A 6352 whose port 5 is the CPU port in EtherType DSA (EtherType 0xDADA, egress mode
/// EtherType DSA) and G1 MONITOR_CTL's CPU destination.
fn edsa_6352() -> Rig {
    let mut rig = Rig::new(Chip::Mv6352);
    rig.port_write(5, 0x04, 0x3303); // egress 3, frame mode 3, forwarding
    rig.port_write(5, 0x0F, 0xDADA); // PORT_ETH_TYPE
    rig.g1_write(0x1A, 5 << 4); // MONITOR_CTL CPU dest
    rig
}

/// Rsvd2CPU for 01:80:C2:00:00:0E on a Global2-style chip.
fn enable_lldp_trap_g2(rig: &mut Rig) {
    rig.g2_write(0x03, 1 << 0xE); // MGMT_EN_0X
    rig.g2_write(0x05, 0x0008); // SWITCH_MGMT RSVD2CPU
}

#[test]
fn lldp_is_trapped_to_the_cpu_with_a_to_cpu_mgmt_tag_naming_its_port() {
    let mut rig = edsa_6352();
    enable_lldp_trap_g2(&mut rig);
    rig.port_write(2, 0x07, 1); // PVID 1
    let lldp = eth(LLDP, PEER, 0x88CC, 80);
    // TO_CPU (0), untagged, device 0; port 2, code MGMT (0); priority 0, VID 1.
    let want = with_tag(&lldp, Some(0xDADA), [0x00, 2 << 3, 0x00, 0x01]);
    assert_eq!(rig.send(2, &lldp), [(5, want)]);
    // On a blocking port too (a BPDU must reach STP), while other frames are dropped.
    rig.port_write(2, 0x04, 0x0001);
    assert_eq!(rig.ports(2, &lldp), [5]);
    assert_eq!(
        rig.ports(2, &eth(BCAST, PEER, 0x0800, 64)),
        Vec::<usize>::new()
    );
}

#[test]
fn rsvd2cpu_bit_clear_or_switch_mgmt_off_forwards_normally() {
    let mut rig = edsa_6352();
    let lldp = eth(LLDP, PEER, 0x88CC, 80);
    rig.g2_write(0x05, 0x0008);
    rig.g2_write(0x03, 1 << 0x0); // only 01:80:C2:00:00:00
    assert_eq!(rig.ports(2, &lldp), rig.others(&[2]));
    rig.g2_write(0x03, 1 << 0xE);
    rig.g2_write(0x05, 0); // RSVD2CPU off
    let out = rig.send(2, &lldp);
    assert_eq!(out.len(), 6);
    // The copy to the CPU port is a FORWARD (3) tag naming port 2.
    let cpu = out.iter().find(|(p, _)| *p == 5).unwrap();
    assert_eq!(cpu.1, with_tag(&lldp, Some(0xDADA), [0xC0, 2 << 3, 0, 0]));
}

#[test]
fn rsvd2cpu_on_the_6390_family_is_the_monitor_mgmt_table() {
    let mut rig = Rig::new(Chip::Mv6390);
    rig.port_write(10, 0x04, 0x0103); // DSA frame mode
    rig.g1_write(0x1A, 0x8000 | 0x3000 | 0xE0 | 10); // CPU dest 10, priority 7
    let lldp = eth(LLDP, PEER, 0x88CC, 80);
    assert_eq!(rig.ports(3, &lldp), rig.others(&[3]), "not yet management");
    rig.g1_write(0x1A, 0x8000 | 0x0100 | 1 << 6); // pointer 0x01: 08..0F, bit 6 = 0x0E
    assert_eq!(
        rig.send(3, &lldp),
        [(10, with_tag(&lldp, None, [0x00, 3 << 3, 0, 0]))]
    );
}

#[test]
fn rsvd2cpu_on_the_6393_family_is_the_ingress_ports_policy_table() {
    let mut rig = Rig::new(Chip::Mv6393X);
    rig.port_write(0, 0x04, 0x0103);
    rig.port_write(3, 0x0E, 0x8000 | 0x2100 | 1 << 6); // pointer 0x21, bit 6 = 0x0E
    rig.port_write(3, 0x0E, 0x8000 | 0x3800 | 0xE0); // CPU dest port 0
    let lldp = eth(LLDP, PEER, 0x88CC, 80);
    assert_eq!(rig.ports(3, &lldp), [0]);
    // Port 4's table is empty: forwarded as any multicast.
    assert_eq!(rig.ports(4, &lldp), rig.others(&[4]));
}

#[test]
fn igmp_is_trapped_with_the_igmp_mld_code_only_when_snooping() {
    let mut rig = edsa_6352();
    let mut igmp = eth([0x01, 0x00, 0x5E, 0, 0, 1], PEER, 0x0800, 64);
    igmp[14] = 0x45; // IPv4, 20-byte header
    igmp[14 + 9] = 2; // protocol IGMP
    assert_eq!(rig.ports(1, &igmp), rig.others(&[1]));
    rig.port_write(1, 0x04, 0x0403); // IGMP_MLD_SNOOP, forwarding
    // TO_CPU code 2: byte 1 bits 2..1 = 0b01 (code >> 1), byte 2 bit 4 = code bit 0.
    let want = with_tag(&igmp, Some(0xDADA), [0x00, (1 << 3) | 0x02, 0, 0]);
    assert_eq!(rig.send(1, &igmp), [(5, want)]);
    // Not IGMP (UDP): switched normally.
    igmp[14 + 9] = 17;
    assert_eq!(rig.ports(1, &igmp), rig.others(&[1]));
}

#[test]
fn from_cpu_reaches_exactly_the_named_port_past_state_and_isolation() {
    let mut rig = edsa_6352();
    let frame = eth(BCAST, HOST, 0x88CC, 64);
    // FROM_CPU (1), untagged, device 0, port 2, VID 0.
    let from_cpu = with_tag(&frame, Some(0xDADA), [0x40, 2 << 3, 0, 0]);
    assert_eq!(rig.send(5, &from_cpu), [(2, frame.clone())]);
    // Port 2 blocking, and the CPU port isolated from it: still sent there.
    rig.port_write(2, 0x04, 0x0001);
    rig.port_write(5, 0x06, 0x0001);
    assert_eq!(rig.ports(5, &from_cpu), [2]);
    // No learning from FROM_CPU.
    assert!(rig.atu_macs().is_empty());
    // Tagged bit: leaves with an 802.1Q header, CFI moved back from byte 1 bit 0.
    let tagged = with_tag(&frame, Some(0xDADA), [0x60, (2 << 3) | 1, 0xA0, 0x0A]);
    assert_eq!(rig.send(5, &tagged), [(2, with_8021q(&frame, 0xB00A))]);
}

#[test]
fn from_cpu_to_a_disabled_port_or_another_device_is_dropped() {
    let mut rig = edsa_6352();
    let frame = eth(BCAST, HOST, 0x88CC, 64);
    rig.port_write(2, 0x04, 0x0000); // disabled
    let to2 = with_tag(&frame, Some(0xDADA), [0x40, 2 << 3, 0, 0]);
    assert_eq!(rig.send(5, &to2), []);
    let in_filtered = rig.port_read(5, 0x12);
    assert_eq!(in_filtered, 1, "counted as filtered on the CPU port");
    // Device 1 while the switch is device 0 (G1 CTL2 [4:0]).
    let to3_dev1 = with_tag(&frame, Some(0xDADA), [0x41, 3 << 3, 0, 0]);
    assert_eq!(rig.send(5, &to3_dev1), []);
    rig.g1_write(0x1C, 1);
    assert_eq!(rig.ports(5, &to3_dev1), [3]);
}

#[test]
fn forward_from_the_cpu_is_switched_in_the_tags_vlan() {
    let mut rig = edsa_6352();
    // VID 10: ports 2 and 5 members (unmodified), the rest not.
    rig.vtu_load_6352(10, 1, &[3, 3, 0, 3, 3, 0, 3]);
    for p in 0..7 {
        rig.port_write(p, 0x08, 0x0C00); // 802.1Q secure
    }
    let frame = eth(BCAST, HOST, 0x0800, 64);
    // FORWARD (3), untagged, device 0, source port 5, VID 10.
    let fwd = with_tag(&frame, Some(0xDADA), [0xC0, 5 << 3, 0x00, 0x0A]);
    assert_eq!(rig.send(5, &fwd), [(2, frame.clone())]);
    // Learned on the CPU port in the VLAN's FID.
    assert_eq!(rig.atu_macs(), [(1, HOST)]);
    // A TO_CPU tag coming from the CPU is dropped.
    let to_cpu = with_tag(&frame, Some(0xDADA), [0x00, 5 << 3, 0x00, 0x0A]);
    assert_eq!(rig.send(5, &to_cpu), []);
}

#[test]
fn frames_to_a_dsa_port_carry_a_forward_tag_with_device_port_and_vlan() {
    let mut rig = Rig::new(Chip::Mv6352);
    rig.port_write(6, 0x04, 0x0103); // DSA (not EtherType), forwarding
    rig.g1_write(0x1C, 4); // device number 4
    let frame = eth(BCAST, PEER, 0x0800, 64);
    rig.port_write(3, 0x07, 7); // PVID 7
    let out = rig.send(3, &frame);
    let cpu = out.iter().find(|(p, _)| *p == 6).unwrap();
    assert_eq!(cpu.1, with_tag(&frame, None, [0xC4, 3 << 3, 0x00, 0x07]));
    // A tagged frame: the 802.1Q header folds into the tag (tagged bit, priority 5, CFI
    // to byte 1 bit 0, VID 0x123).
    let tagged = with_8021q(&frame, 0xB123);
    let out = rig.send(3, &tagged);
    let cpu = out.iter().find(|(p, _)| *p == 6).unwrap();
    assert_eq!(
        cpu.1,
        with_tag(&frame, None, [0xE4, (3 << 3) | 1, 0xA1, 0x23])
    );
    // The normal ports get the frame as it came (egress mode unmodified, no VTU entry).
    assert!(
        out.iter()
            .filter(|(p, _)| *p != 6)
            .all(|(_, b)| *b == tagged)
    );
}

#[test]
fn egress_mode_and_member_tags_add_or_strip_the_8021q_header() {
    let mut rig = Rig::new(Chip::Mv6352);
    // VID 20: port 0 untagged, port 1 tagged, port 2 unmodified.
    rig.vtu_load_6352(20, 2, &[1, 2, 0, 3, 3, 3, 3]);
    for p in 0..3 {
        rig.port_write(p, 0x08, 0x0C00);
        rig.port_write(p, 0x07, 20);
    }
    let frame = eth(BCAST, PEER, 0x0800, 64);
    assert_eq!(
        rig.send(0, &frame),
        [(1, with_8021q(&frame, 20)), (2, frame.clone())]
    );
    let tagged = with_8021q(&frame, 0x4014);
    assert_eq!(
        rig.send(1, &tagged),
        [(0, frame.clone()), (2, tagged.clone())]
    );
    // PORT_CTL0 egress mode untagged (1) on port 1 wins over its member tag.
    rig.port_write(1, 0x04, 0x1003);
    assert_eq!(
        rig.send(2, &frame),
        [(0, frame.clone()), (1, frame.clone())]
    );
}

#[test]
fn port_based_vlan_map_isolates_ports() {
    let mut rig = Rig::new(Chip::Mv6352);
    let all = 0x7F;
    rig.port_write(0, 0x06, all & !(1 << 0) & !(1 << 2));
    rig.port_write(2, 0x06, all & !(1 << 2) & !(1 << 0));
    let frame = eth(BCAST, PEER, 0x0800, 64);
    assert_eq!(rig.ports(0, &frame), [1, 3, 4, 5, 6]);
    assert_eq!(rig.ports(2, &frame), [1, 3, 4, 5, 6]);
    // A known destination behind the map: nothing.
    rig.ports(2, &eth(BCAST, HOST, 0x0800, 64)); // learn HOST on port 2
    assert_eq!(
        rig.ports(0, &eth(HOST, PEER, 0x0800, 64)),
        Vec::<usize>::new()
    );
    assert_eq!(rig.ports(1, &eth(HOST, PEER, 0x0800, 64)), [2]);
    // An isolated port (map 0) sends nothing anywhere.
    rig.port_write(4, 0x06, 0);
    assert_eq!(rig.ports(4, &frame), Vec::<usize>::new());
}

#[test]
fn port_default_fid_separates_address_databases_without_8021q() {
    let mut rig = Rig::new(Chip::Mv6352);
    for p in 0..2 {
        rig.port_write(p, 0x06, 0x1000 | (0x7F & !(1 << p))); // FID 1
    }
    rig.port_write(2, 0x06, 0x2000 | (0x7F & !(1 << 2))); // FID 2
    rig.port_write(2, 0x05, 0x0001); // PORT_CTL1: FID [11:4] = 1, so FID 0x12
    rig.ports(0, &eth(BCAST, HOST, 0x0800, 64));
    assert_eq!(rig.atu_macs(), [(1, HOST)]);
    assert_eq!(rig.ports(1, &eth(HOST, PEER, 0x0800, 64)), [0]);
    assert_eq!(rig.ports(2, &eth(HOST, PEER, 0x0800, 64)), rig.others(&[2]));
    assert!(rig.atu_macs().contains(&(0x12, PEER)));
}

#[test]
fn no_learning_when_the_association_vector_is_zero() {
    let mut rig = Rig::new(Chip::Mv6352);
    assert_eq!(rig.port_read(0, 0x0B), 0x0001, "reset: the port's own bit");
    rig.port_write(0, 0x0B, 0x0000);
    rig.ports(0, &eth(BCAST, HOST, 0x0800, 64));
    assert!(rig.atu_macs().is_empty());
    assert_eq!(rig.ports(1, &eth(HOST, PEER, 0x0800, 64)), rig.others(&[1]));
    rig.port_write(0, 0x0B, 0x0001);
    rig.ports(0, &eth(BCAST, HOST, 0x0800, 64));
    assert!(rig.atu_macs().contains(&(0, HOST)));
    assert_eq!(rig.ports(1, &eth(HOST, PEER, 0x0800, 64)), [0]);
}

#[test]
fn discard_tagged_and_untagged_drop_and_count_as_filtered() {
    let mut rig = Rig::new(Chip::Mv6352);
    let frame = eth(BCAST, PEER, 0x0800, 64);
    let tagged = with_8021q(&frame, 5);
    let prio_tagged = with_8021q(&frame, 0x6000);
    rig.port_write(0, 0x08, 0x0200); // DISCARD_TAGGED
    assert_eq!(rig.ports(0, &tagged), Vec::<usize>::new());
    assert_eq!(rig.ports(0, &frame), rig.others(&[0]));
    assert_eq!(
        rig.ports(0, &prio_tagged),
        rig.others(&[0]),
        "VID 0 is untagged"
    );
    assert_eq!(rig.port_read(0, 0x12), 1);
    rig.port_write(0, 0x08, 0x0100); // DISCARD_UNTAGGED
    assert_eq!(rig.ports(0, &frame), Vec::<usize>::new());
    assert_eq!(rig.ports(0, &prio_tagged), Vec::<usize>::new());
    assert_eq!(rig.ports(0, &tagged), rig.others(&[0]));
    assert_eq!(rig.port_read(0, 0x12), 3);
}

#[test]
fn ingress_and_egress_monitors_copy_to_the_mirror_ports() {
    let mut rig = Rig::new(Chip::Mv6352);
    rig.g1_write(0x1A, (6 << 12) | (4 << 8)); // ingress dest 6, egress dest 4
    rig.ports(1, &eth(BCAST, HOST, 0x0800, 64)); // HOST on port 1
    let to_host = eth(HOST, PEER, 0x0800, 64);
    assert_eq!(rig.ports(0, &to_host), [1]);
    rig.port_write(0, 0x08, 0x0010); // INGRESS_MONITOR on port 0
    assert_eq!(
        rig.send(0, &to_host),
        [(1, to_host.clone()), (6, to_host.clone())]
    );
    rig.port_write(0, 0x08, 0);
    rig.port_write(1, 0x08, 0x0020); // EGRESS_MONITOR on port 1
    assert_eq!(rig.ports(2, &to_host), [1, 4]);
    // Not mirrored when the frame does not leave on port 1 (PEER is now on port 2).
    assert_eq!(rig.ports(1, &eth(PEER, HOST, 0x0800, 64)), [2]);
}

#[test]
fn mirrors_on_the_6390_family_come_from_the_monitor_mgmt_table() {
    let mut rig = Rig::new(Chip::Mv6390);
    rig.g1_write(0x1A, 0x8000 | 0x2000 | 9); // ingress dest 9
    rig.port_write(0, 0x08, 0x0010);
    rig.ports(1, &eth(BCAST, HOST, 0x0800, 64));
    assert_eq!(rig.ports(0, &eth(HOST, PEER, 0x0800, 64)), [1, 9]);
}

#[test]
fn frames_longer_than_the_jumbo_mode_are_discarded() {
    let mut rig = Rig::new(Chip::Mv6352);
    // Sizes without FCS: the mode counts the 4 FCS bytes.
    for (mode, max) in [(0u16, 1518usize), (1, 2044), (2, 10236)] {
        rig.port_write(0, 0x08, mode << 12);
        assert_eq!(
            rig.ports(0, &eth(BCAST, PEER, 0x0800, max)).len(),
            6,
            "{mode}"
        );
        assert!(
            rig.ports(0, &eth(BCAST, PEER, 0x0800, max + 1)).is_empty(),
            "{mode}"
        );
    }
    // A 6097 limits in G1 CTL1 MAX_FRAME_1632 (bit 10), whatever PORT_CTL2 says.
    let mut rig = Rig::new(Chip::Mv6097);
    rig.port_write(0, 0x08, 2 << 12);
    assert!(rig.ports(0, &eth(BCAST, PEER, 0x0800, 1519)).is_empty());
    rig.g1_write(0x04, 0x0400);
    assert_eq!(rig.ports(0, &eth(BCAST, PEER, 0x0800, 1628)).len(), 10);
    assert!(rig.ports(0, &eth(BCAST, PEER, 0x0800, 1629)).is_empty());
}

#[test]
fn a_dsa_header_does_not_count_against_the_cpu_ports_limit() {
    let mut rig = edsa_6352();
    let frame = eth(BCAST, HOST, 0x88CC, 1518);
    let from_cpu = with_tag(&frame, Some(0xDADA), [0x40, 2 << 3, 0, 0]);
    assert_eq!(rig.ports(5, &from_cpu), [2]);
}

/// How each chip marks 01:80:C2:00:00:0E as management and names its CPU port, as Linux's
/// `chip.c` ops give it: `mv88e6390_g1_mgmt_rsvd2cpu` (6341, 6390 families),
/// `mv88e6393x_port_mgmt_rsvd2cpu` (6393 family), the Global2 ones for the rest (the 6095
/// names its CPU port per port, `mv88e6095_port_set_upstream_port`).
fn trap_lldp_to(rig: &mut Rig, chip: Chip, ingress: usize, cpu: usize) {
    let six390 = [
        Chip::Mv6141,
        Chip::Mv6341,
        Chip::Mv6190,
        Chip::Mv6190X,
        Chip::Mv6191,
        Chip::Mv6290,
        Chip::Mv6390,
        Chip::Mv6390X,
    ];
    let six393 = [Chip::Mv6191X, Chip::Mv6193X, Chip::Mv6361, Chip::Mv6393X];
    if six390.contains(&chip) {
        rig.g1_write(0x1A, 0x8000 | 0x0100 | 1 << 6);
        rig.g1_write(0x1A, 0x8000 | 0x3000 | 0xE0 | cpu as u16);
    } else if six393.contains(&chip) {
        rig.port_write(ingress, 0x0E, 0x8000 | 0x2100 | 1 << 6);
        rig.port_write(ingress, 0x0E, 0x8000 | 0x3800 | 0xE0 | cpu as u16);
    } else {
        enable_lldp_trap_g2(rig);
        if chip == Chip::Mv6095 {
            rig.port_write(ingress, 0x08, cpu as u16);
        } else {
            rig.g1_write(0x1A, (cpu as u16) << 4);
        }
    }
}

#[test]
fn every_chip_traps_lldp_through_its_own_registers() {
    let lldp = eth(LLDP, PEER, 0x88CC, 80);
    for &chip in Chip::ALL {
        let mut rig = Rig::new(chip);
        let cpu = rig.nports - 1;
        rig.port_write(cpu, 0x04, 0x0103); // DSA
        assert_ne!(
            rig.ports(0, &lldp),
            [cpu],
            "{chip:?}: trapped before it was asked"
        );
        trap_lldp_to(&mut rig, chip, 0, cpu);
        let want = with_tag(&lldp, None, [0x00, 0x00, 0x00, 0x00]);
        assert_eq!(rig.send(0, &lldp), [(cpu, want)], "{chip:?}");
    }
}

#[test]
fn every_chip_limits_frames_through_its_own_register() {
    // `mv88e6185_g1_set_max_frame_size` chips (G1 CTL1 bit 10: 1632), the 6165 and the
    // 6250 family with neither op (1522), the PORT_CTL2 jumbo mode for the rest (2048
    // here: `mv88e6165_port_set_jumbo_size`, and the 6191/6290 as their 6390 siblings).
    let g1_style = [
        Chip::Mv6085,
        Chip::Mv6095,
        Chip::Mv6097,
        Chip::Mv6123,
        Chip::Mv6161,
        Chip::Mv6185,
    ];
    let fixed = [
        Chip::Mv6165,
        Chip::Mv6020,
        Chip::Mv6071,
        Chip::Mv6220,
        Chip::Mv6250,
    ];
    for &chip in Chip::ALL {
        let mut rig = Rig::new(chip);
        let n = rig.others(&[0]).len();
        let ok = |rig: &mut Rig, len: usize| rig.ports(0, &eth(BCAST, PEER, 0x0800, len)).len();
        assert_eq!(ok(&mut rig, 1518), n, "{chip:?}");
        assert_eq!(
            ok(&mut rig, 1519),
            0,
            "{chip:?}: 1522 with FCS out of reset"
        );
        rig.port_write(0, 0x08, 1 << 12);
        let ctl1 = rig.g1_read(0x04);
        rig.g1_write(0x04, ctl1 | 0x0400);
        let max = if g1_style.contains(&chip) {
            1628
        } else if fixed.contains(&chip) {
            1518
        } else {
            2044
        };
        assert_eq!(ok(&mut rig, max), n, "{chip:?}");
        assert_eq!(ok(&mut rig, max + 1), 0, "{chip:?}");
    }
}

#[test]
fn the_6393_familys_edsa_ethertype_is_its_epc_entry() {
    let mut rig = Rig::new(Chip::Mv6393X);
    rig.port_write(0, 0x04, 0x3303); // EtherType DSA on port 0
    let frame = eth(BCAST, PEER, 0x0800, 64);
    let to_cpu = |rig: &mut Rig| {
        let out = rig.send(3, &frame);
        out.into_iter().find(|(p, _)| *p == 0).unwrap().1
    };
    // Nothing written: the default 0x9100.
    assert_eq!(to_cpu(&mut rig)[12..14], [0x91, 0x00]);
    rig.port_write(0, 0x11, 0xDADA); // EPC_DATA
    rig.port_write(0, 0x10, 0x8000 | 0x0300 | 0x02); // the uncorrected WRITE code: no write
    assert_eq!(to_cpu(&mut rig)[12..14], [0x91, 0x00]);
    rig.port_write(0, 0x10, 0x8000 | 0x3000 | 0x02); // BUSY | WRITE | port EtherType
    let want = with_tag(&frame, Some(0xDADA), [0xC0, 3 << 3, 0, 0]);
    assert_eq!(to_cpu(&mut rig), want);
}

#[test]
fn mld_is_trapped_like_igmp_when_snooping() {
    let mut rig = edsa_6352();
    // IPv6 to 33:33:00:00:00:16, hop-by-hop header (router alert) then ICMPv6 type 143.
    let mut mld = eth([0x33, 0x33, 0, 0, 0, 0x16], PEER, 0x86DD, 14 + 40 + 8 + 28);
    mld[14] = 0x60;
    mld[14 + 6] = 0; // next header: hop-by-hop
    mld[14 + 40] = 58; // then ICMPv6
    mld[14 + 41] = 0; // 8 bytes of options
    mld[14 + 48] = 143; // MLDv2 report
    assert_eq!(rig.ports(1, &mld), rig.others(&[1]));
    rig.port_write(1, 0x04, 0x0403);
    let want = with_tag(&mld, Some(0xDADA), [0x00, (1 << 3) | 0x02, 0, 0]);
    assert_eq!(rig.send(1, &mld), [(5, want)]);
    // An ICMPv6 echo request (128) is not MLD.
    mld[14 + 48] = 128;
    assert_eq!(rig.ports(1, &mld), rig.others(&[1]));
}

#[test]
fn a_mirror_copy_to_a_dsa_port_carries_a_to_sniffer_tag() {
    let mut rig = edsa_6352();
    rig.g1_write(0x1A, (5 << 12) | (5 << 4)); // ingress monitor dest 5 (the CPU port)
    rig.ports(1, &eth(BCAST, HOST, 0x0800, 64)); // HOST on port 1
    let to_host = eth(HOST, PEER, 0x0800, 64);
    rig.port_write(0, 0x08, 0x0010); // INGRESS_MONITOR on port 0
    // TO_SNIFFER (2): byte 0 0x80, naming port 0.
    let copy = with_tag(&to_host, Some(0xDADA), [0x80, 0, 0, 0]);
    assert_eq!(rig.send(0, &to_host), [(1, to_host.clone()), (5, copy)]);
}

#[test]
fn a_software_reset_brings_back_the_forwarding_and_learning_defaults() {
    let mut rig = Rig::new(Chip::Mv6352);
    rig.port_write(0, 0x06, 0); // isolated
    rig.port_write(0, 0x0B, 0); // no learning
    let frame = eth(BCAST, HOST, 0x0800, 64);
    assert!(rig.ports(0, &frame).is_empty());
    let ctl1 = rig.g1_read(0x04);
    rig.g1_write(0x04, ctl1 | 0x8000); // SW_RESET
    while rig.g1_read(0x00) & 0x0800 == 0 {} // INIT_READY (1 ms of bus frames)
    assert_eq!(rig.port_read(0, 0x06), 0x7E);
    assert_eq!(rig.port_read(0, 0x0B), 0x0001);
    assert_eq!(rig.port_read(0, 0x0F), 0x9100);
    for p in 0..7 {
        rig.port_write(p, 0x04, 0x0003); // the reset disabled every port
    }
    assert_eq!(rig.ports(0, &frame), rig.others(&[0]));
    assert!(rig.atu_macs().contains(&(0, HOST)));
}
