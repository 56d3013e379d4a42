//! A Marvell switch on the MDIO bus of a DWMAC: the stmmac crate's MDIO master (MII_ADDR /
//! MII_DATA, GB polled with iopoll semantics) drives the mv88e6xxx crate's indirect SMI
//! access, both bounded by one continuous clocksource, on the two crates' models.

use family_tests::switch_behind_dwmac;
use mdio_bus::Mdio;
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::{Config, Smi};

#[test]
fn switch_probe_through_the_dwmac_mdio_master() {
    let (clock, counter, bus, mac) = switch_behind_dwmac();
    let mdio = mac.mdio(&counter, 125_000_000).unwrap();

    let t0 = clock.now_ns();
    let frames0 = bus.model(|m| m.mdio_frames());
    let (mut smi, id) = Smi::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default())
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
    let r = Smi::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default());
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
    let (mut smi, id) = Smi::probe(mdio, &counter, 0x10, Family::Mv6085, Config::default())
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
