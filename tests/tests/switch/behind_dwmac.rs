//! A Marvell switch on the MDIO bus of a DWMAC: the stmmac crate's MDIO master (MII_ADDR /
//! MII_DATA, GB polled with iopoll semantics; or the 4.x master at 0x200) drives the
//! mv88e6xxx crate's indirect SMI access, both bounded by one continuous clocksource, on
//! the two crates' models: probe, a firmware's bring-up (reset, ports, CPU port, link
//! interrupts, MIB counters), two VLANs with the address table, and a 6393X SERDES lane
//! through Global2 Clause 45.

use family_tests::switch_behind_dwmac;
use mdio_bus::Mdio;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::{Config, Switch};
use stmmac_coalesce::Dwmac as _;

#[test]
fn switch_probe_through_the_dwmac_mdio_master() {
    let (clock, counter, bus, mac) = switch_behind_dwmac();
    let mdio = mac.mdio(&counter, 125_000_000).unwrap();

    let t0 = clock.now_ns();
    let frames0 = bus.model(|m| m.mdio_frames());
    let (mut smi, id) = Switch::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default())
        .expect("the 6352 answers through the DWMAC");
    assert_eq!(id.chip, Chip::Mv6352);

    // Ten Global1 reads: each is 3 MDIO frames on the wire (CMD write, CMD poll, DATA read).
    let before = bus.model(|m| m.mdio_frames());
    for _ in 0..10 {
        smi.g1_read(0).unwrap();
    }
    let frames = bus.model(|m| m.mdio_frames()) - before;
    assert_eq!(
        frames, 30,
        "3 frames per indirect read, BUSY not re-checked before each"
    );
    assert!(bus.model(|m| m.mdio_frames()) > frames0);
    // Every MDIO frame costs at least its 25.6 µs on the wire.
    assert!(clock.now_ns() - t0 >= (bus.model(|m| m.mdio_frames()) - frames0) * 25_600);

    // The MDIO master is also usable directly (a PHY driver would do this), once the
    // switch driver has given it back: one master at a time.
    assert!(matches!(
        mac.mdio(&counter, 125_000_000),
        Err(stmmac_coalesce::Error::MdioBusy)
    ));
    drop(smi);
    let mut mdio = mac.mdio(&counter, 125_000_000).unwrap();
    let sw = mdio_bus::PhyAddr::new(0x10).unwrap();
    let cmd = mdio.read(sw, mdio_bus::RegAddr::new(0).unwrap()).unwrap();
    assert_eq!(cmd & 0x8000, 0, "SMI_CMD is idle after the probe");
}

#[test]
fn a_stuck_mdio_busy_bit_is_a_typed_timeout_not_a_hang() {
    let (clock, counter, bus, mac) = switch_behind_dwmac();
    bus.model(|m| m.set_mdio_stuck(true));
    let mdio = mac.mdio(&counter, 125_000_000).unwrap();
    let t0 = clock.now_ns();
    let r = Switch::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default());
    assert!(r.is_err(), "probe must fail, not spin");
    // Bounded: the DWMAC's 10 ms MDIO deadline (plus a read), not forever.
    assert!(
        clock.now_ns() - t0 < 50_000_000,
        "{} ns",
        clock.now_ns() - t0
    );
}

/// Firmware bringing a switch up over the MAC's MDIO master: software reset, ports
/// forwarding with the CPU port set, link interrupts, and the MIB counters of traffic the
/// switch model carried, every frame on the DWMAC's wire counted.
#[test]
fn firmware_runs_the_switch_through_the_dwmac_mdio_master() {
    use mv88e6xxx_smi::irq::{G1Irq, G1IrqSet, PortSet};
    use mv88e6xxx_smi::port::PortState;
    use mv88e6xxx_smi::sim::{Attach, ChipModel};
    use mv88e6xxx_smi::stats::{HistogramMode, Mib};

    let chip = ChipModel::new(Chip::Mv6352, Attach::Indirect(0x10)).with_port_phys();
    let (clock, counter, bus, mac) = family_tests::switch_model_behind_dwmac(chip);
    let wire0 = bus.model(|m| m.mdio_frames());
    let mdio = mac.mdio(&counter, 125_000_000).unwrap();
    let (mut smi, id) = Switch::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default())
        .expect("the 6352 answers through the DWMAC");
    assert_eq!(id.chip, Chip::Mv6352);

    smi.software_reset().expect("reset and INIT_READY");
    for port in 0..=5 {
        smi.port_set_state(port, PortState::Forwarding).unwrap();
    }
    smi.set_cpu_port(5).unwrap();
    assert_eq!(smi.port_state(3).unwrap(), PortState::Forwarding);

    // Link interrupts on the five internal PHYs; port 2's link comes up.
    let phys = PortSet(0b1_1111);
    smi.link_irq_enable(phys).unwrap();
    smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Device))
        .unwrap();
    assert!(smi.link_changed_ports().unwrap().is_empty());
    let now = clock.now_ns();
    assert!(bus.model(|m| m.mdio_device().chip_mut(0).unwrap().set_link(now, 2, true)));
    let now = clock.now_ns();
    assert!(bus.model(|m| m.mdio_device().chip(0).unwrap().irq_asserted(now)));
    assert!(smi.g1_irq_pending().unwrap().contains(G1Irq::Device));
    let changed = smi.link_changed_ports().unwrap();
    assert!(changed.contains(2) && !changed.contains(1), "{changed:?}");
    assert!(smi.port_link_status(2).unwrap().up);
    let now = clock.now_ns();
    assert!(!bus.model(|m| m.mdio_device().chip(0).unwrap().irq_asserted(now)));
    assert!(smi.g1_irq_pending().unwrap().is_empty());

    // Statistics: ten 64-byte broadcasts in on port 2, out on ports 0 and 5.
    let mib = Mib::setup(&mut smi, HistogramMode::RxTx).unwrap();
    let mut frame = vec![0xFF; 6];
    frame.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x08, 0x00]);
    frame.resize(60, 0);
    for _ in 0..10 {
        let now = clock.now_ns();
        bus.model(|m| {
            m.mdio_device()
                .chip_mut(0)
                .unwrap()
                .count_frame(now, 2, &[0, 5], &frame)
        });
    }
    let rx = mib.snapshot(&mut smi, 2).unwrap();
    let tx = mib.snapshot(&mut smi, 5).unwrap();
    assert_eq!((rx.in_broadcasts, rx.in_good_octets), (10, 640));
    assert_eq!((tx.out_broadcasts, tx.out_octets), (10, 640));
    assert_eq!(rx.out_broadcasts, 0);

    // Every frame the driver counted went over the DWMAC's MDIO wire, and none was a
    // write into a busy unit.
    let frames = smi.frames();
    drop(smi);
    assert_eq!(bus.model(|m| m.mdio_frames()) - wire0, frames);
    assert_eq!(
        bus.model(|m| m.mdio_device().chip(0).unwrap().dropped_writes()),
        0
    );
}

/// Two VLANs and the address table, configured over the MAC's MDIO master and proven by
/// frames the switch model carries: no frame crosses between the VLANs, a static address
/// goes to its one port, a learned one is dumped back with get-next.
#[test]
fn two_vlans_and_the_address_table_over_the_dwmac_mdio_master() {
    use mv88e6xxx_smi::atu::{AtuEntry, AtuState, MacAddr};
    use mv88e6xxx_smi::port::PortState;
    use mv88e6xxx_smi::vtu::{Dot1qMode, Member, VtuEntry};

    let (clock, counter, bus, mac) = family_tests::switch_behind_dwmac();
    let mdio = mac.mdio(&counter, 125_000_000).unwrap();
    let (mut smi, _) = Switch::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default())
        .expect("the 6352 answers through the DWMAC");

    // VID 10: ports 0 and 1 untagged, FID 1; VID 20: ports 2 and 3 untagged, FID 2; the
    // CPU port 5 tagged in both.
    let vlans = [(10, 1, [0, 1]), (20, 2, [2, 3])];
    for (vid, fid, ports) in vlans {
        let mut e = VtuEntry::new(vid, fid).with_member(5, Member::Tagged);
        for p in ports {
            e = e.with_member(p, Member::Untagged);
            smi.port_set_default_vid(p, vid).unwrap();
            smi.port_set_8021q_mode(p, Dot1qMode::Secure).unwrap();
        }
        smi.vtu_load(&e).unwrap();
    }
    smi.port_set_8021q_mode(5, Dot1qMode::Secure).unwrap();
    for port in 0..=5 {
        smi.port_set_state(port, PortState::Forwarding).unwrap();
    }
    let mut vids = Vec::new();
    smi.vtu_for_each(|e| vids.push((e.vid, e.fid))).unwrap();
    assert_eq!(vids, [(10, 1), (20, 2)]);

    // A static address behind the CPU port, in VLAN 10's database.
    let host = MacAddr::new([0x02, 0, 0, 0, 0, 0x55]);
    smi.atu_load(&AtuEntry::new_static(1, host, 1 << 5))
        .unwrap();

    let frame = |dst: [u8; 6], src: u8| {
        let mut f = dst.to_vec();
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, src, 0x08, 0x00]);
        f.resize(60, 0);
        f
    };
    let inject = |port: usize, f: &[u8]| {
        let now = clock.now_ns();
        bus.model(|m| m.mdio_device().chip_mut(0).unwrap().inject(now, port, f))
    };
    // Broadcasts stay inside their VLAN (and go to the CPU port).
    assert_eq!(inject(0, &frame([0xFF; 6], 0x10)), [1, 5]);
    assert_eq!(inject(2, &frame([0xFF; 6], 0x20)), [3, 5]);
    // The static address: one port only.
    assert_eq!(inject(1, &frame(host.octets(), 0x11)), [5]);
    // Port 0's source was learned in FID 1: a unicast to it from port 1 goes there only,
    // and the same address from VLAN 20 is unknown there (flooded in VLAN 20 only).
    assert_eq!(inject(1, &frame([0x02, 0, 0, 0, 0, 0x10], 0x11)), [0]);
    assert_eq!(inject(3, &frame([0x02, 0, 0, 0, 0, 0x10], 0x21)), [2, 5]);

    let mut fid1 = Vec::new();
    smi.atu_for_each(1, |e| {
        fid1.push((e.mac.octets()[5], e.ports, e.state.is_static()))
    })
    .unwrap();
    assert_eq!(
        fid1,
        [
            (0x10, 1 << 0, false),
            (0x11, 1 << 1, false),
            (0x55, 1 << 5, true)
        ],
        "learned and static addresses of VLAN 10, in address order"
    );
    let mut learned = 0;
    smi.atu_for_each(2, |e| {
        learned += 1;
        assert!(matches!(e.state, AtuState::Learned { .. }), "{e:?}");
    })
    .unwrap();
    assert_eq!(learned, 2, "ports 2 and 3's sources, in FID 2");
    assert_eq!(
        bus.model(|m| m.mdio_device().chip(0).unwrap().dropped_writes()),
        0
    );
}

/// A 6393X behind a QoS 4.x/5.x DWMAC's MDIO master: the switch's Clause 45 SERDES lane is
/// reached through Global2 SMI_PHY, each step a Clause 22 frame of the MAC (the opt-in
/// 6393X remap puts SMI_PHY at `sw_addr`), while the MAC's own Clause 45 frames reach the same
/// bus: the two paths do not mix.
#[test]
fn a_6393x_serdes_lane_read_through_a_qos_mac() {
    use hwtimer_core::sim::SimBus;
    use mdio_bus::sim::C45Model;
    use mdio_bus::{DevAddr, Mdio45, PhyAddr};
    use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchModel};
    use stmmac_coalesce::sim::{QosModel, SIM_CSR_HZ, SimArena};
    use stmmac_coalesce::{Dwmac as _, Qos};

    let clock = hwtimer_core::sim::SimClock::new();
    let counter = hwtimer_core::sim::SimCounter::new(&clock, 32, 25_000_000).with_read_cost(20);
    let lane = C45Model::mv88e6393x_serdes_lane(PhyAddr::new(9).unwrap());
    let switch = SwitchModel::new()
        .with_chip(ChipModel::new(Chip::Mv6393X, Attach::Indirect(6)).with_phy(lane));
    let model = QosModel::new(SimArena::new(0x1000_0000, 0x1000), switch, SIM_CSR_HZ);
    let bus = SimBus::new(&clock, model);
    let mac = Qos::probe(bus.clone()).expect("a 4.x MAC");
    mac.soft_reset(&counter).unwrap();

    let mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let config = Config::new().with_remap_6393x(true);
    let (mut smi, id) = Switch::probe(mdio, &counter, 6, Family::Mv6390, config)
        .expect("the 6393X answers through the QoS MAC");
    assert_eq!((id.chip, smi.family()), (Chip::Mv6393X, Family::Mv6393));
    let w0 = bus.model(|m| m.mdio_frames());
    // Port 9's lane, MMD 4 register 0xA003 (SGMII PHY status): link up, 1000 full.
    assert_eq!(smi.serdes_read(9, 0xA003).unwrap(), 0xAC00);
    assert_eq!(
        bus.model(|m| m.mdio_frames()) - w0,
        8,
        "remapped: 1 frame per step, the first a BUSY check of SMI_PHY_CMD"
    );
    drop(smi);

    // The MAC's own Clause 45 frame to address 9 finds no device there: the lane sits
    // behind the switch's Global2, not on the MAC's bus.
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let v = mdio
        .read_c45(PhyAddr::new(9).unwrap(), DevAddr::new(4).unwrap(), 0xA003)
        .unwrap();
    assert_eq!(v, 0xFFFF);
}
