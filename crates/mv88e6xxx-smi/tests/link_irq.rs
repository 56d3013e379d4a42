//! Link changes seen through the interrupt path on a 6352 model: the PHY's "link status
//! changed" event (Marvell register 0x12 / 0x13), Global2 INT_SRC / INT_MASK, the Global1
//! "device" source and its enable in G1_CTL1; acknowledged by reading the PHY's status;
//! nothing seen where a mask is clear.

use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::irq::{G1Irq, G1IrqSet, PortSet};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Config, ConfigError, Error, Feature, Smi};

macro_rules! attach {
    ($sim:expr, $chip:expr) => {
        Smi::new(
            &mut $sim.bus,
            &$sim.counter,
            Addressing::select($chip.family(), 2).unwrap(),
            $chip,
            Config::new(),
        )
        .unwrap()
    };
}

const MS: u64 = 1_000_000;

#[test]
fn link_down_and_up_are_seen_through_the_interrupt_path() {
    // Port 2's PHY: up at 5 ms, down at 10 ms.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_port_phys()
            .with_link_event(5 * MS, 2, true)
            .with_link_event(10 * MS, 2, false),
    );
    let mut smi = attach!(sim, Chip::Mv6352);
    let device = G1IrqSet::empty().with(G1Irq::Device);
    smi.g1_irq_enable(device).unwrap();
    smi.link_irq_enable(PortSet(1 << 2)).unwrap();
    assert_eq!(smi.g2_read(0x01).unwrap(), 1 << 2, "G2 INT_MASK");
    assert_eq!(
        smi.g1_read(0x04).unwrap() & 0x01FF,
        0x0080,
        "G1_CTL1 DEVICE_EN"
    );
    assert!(smi.g1_irq_pending().unwrap().is_empty());
    assert!(smi.link_changed_ports().unwrap().is_empty());

    for (at, up) in [(5 * MS, true), (10 * MS, false)] {
        sim.clock.advance_to(at);
        // Raised: G2 source bit 2, the G1 device source, enabled: the pin's condition.
        assert_eq!(smi.phy_irq_source().unwrap(), PortSet(1 << 2));
        assert!(smi.g1_irq_status().unwrap().contains(G1Irq::Device));
        assert_eq!(smi.g1_irq_pending().unwrap(), device);
        // Reading the PHY's status acknowledges it: everything clears at the source.
        assert_eq!(smi.link_changed_ports().unwrap(), PortSet(1 << 2));
        assert!(smi.phy_irq_source().unwrap().is_empty());
        assert!(smi.g1_irq_pending().unwrap().is_empty());
        assert!(smi.link_changed_ports().unwrap().is_empty());
        assert_eq!(smi.port_link_status(2).unwrap().up, up);
    }
    let _ = smi.release();
    let now = sim.clock.now_ns();
    assert!(!sim.bus.device().chip(0).unwrap().irq_asserted(now));
}

#[test]
fn nothing_is_seen_where_a_mask_is_clear() {
    // Port 3: PHY interrupt not enabled; port 1: PHY enabled, G2 INT_MASK clear; port 2:
    // all enabled but G1 DEVICE_EN clear.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_port_phys()
            .with_link_event(2 * MS, 3, true)
            .with_link_event(4 * MS, 1, true)
            .with_link_event(6 * MS, 2, true),
    );
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Device))
        .unwrap();
    smi.link_irq_enable(PortSet((1 << 1) | (1 << 2))).unwrap();
    smi.g2_write(0x01, 1 << 2).unwrap(); // G2 INT_MASK: port 2 only

    sim.clock.advance_to(3 * MS);
    assert!(smi.phy_irq_source().unwrap().is_empty());
    assert!(smi.g1_irq_status().unwrap().is_empty());
    assert!(
        smi.port_link_status(3).unwrap().up,
        "the link itself changed"
    );

    sim.clock.advance_to(5 * MS);
    // The PHY's line is active (INT_SRC shows it) but masked in G2: no device source.
    assert_eq!(smi.phy_irq_source().unwrap(), PortSet(1 << 1));
    assert!(smi.g1_irq_status().unwrap().is_empty());
    assert_eq!(smi.link_changed_ports().unwrap(), PortSet(1 << 1));

    smi.g1_irq_enable(G1IrqSet::empty()).unwrap();
    sim.clock.advance_to(7 * MS);
    // Device source set, but not enabled in G1_CTL1: nothing pending, pin quiet.
    assert!(smi.g1_irq_status().unwrap().contains(G1Irq::Device));
    assert!(smi.g1_irq_pending().unwrap().is_empty());
    let _ = smi.release();
    let now = sim.clock.now_ns();
    assert!(!sim.bus.device().chip(0).unwrap().irq_asserted(now));
}

#[test]
fn irq_refusals_come_before_any_frame() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6185);
    let f0 = smi.frames();
    assert_eq!(
        smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Avb)),
        Err(Error::Config(ConfigError::PortFeature {
            chip: Some(Chip::Mv6185),
            port: None,
            feature: Feature::G1Irq(8),
        }))
    );
    assert!(matches!(
        smi.link_irq_enable(PortSet(1)),
        Err(Error::Config(ConfigError::PortFeature {
            feature: Feature::PhyIrq,
            ..
        }))
    ));
    assert!(smi.link_changed_ports().is_err());
    assert_eq!(smi.frames(), f0);
    // The 6185's eight sources are accepted.
    smi.g1_irq_enable(G1IrqSet::from_bits(0x00FF)).unwrap();
    let _ = smi.release();

    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6352);
    let f0 = smi.frames();
    // Port 5 has no internal PHY.
    assert_eq!(
        smi.link_irq_enable(PortSet(1 << 5)),
        Err(Error::Config(ConfigError::Port { port: 5 }))
    );
    assert_eq!(smi.frames(), f0);
}

/// G1_CTL1 interrupt enables written while the PPU is held survive its restart.
#[test]
fn irq_enables_survive_a_ppu_hold() {
    let mut sim =
        SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)).with_port_phys());
    let mut smi = attach!(sim, Chip::Mv6185);
    smi.phy_read(
        mdio_bus::PhyAddr::from_bits(0),
        mdio_bus::RegAddr::from_bits(2),
    )
    .unwrap();
    assert!(smi.ppu_held());
    smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::AtuProblem))
        .unwrap();
    assert_eq!(smi.g1_read(0x04).unwrap() & 0x4000, 0, "PPU still stopped");
    smi.ppu_release().unwrap();
    let ctl1 = smi.g1_read(0x04).unwrap();
    assert_eq!(ctl1 & 0x40FF, 0x4008);
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().ppu_collisions(), 0);
}
