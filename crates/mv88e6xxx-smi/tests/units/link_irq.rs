//! Link changes seen through the interrupt path on a 6352 model: the PHY's "link status
//! changed" event (Marvell register 0x12 / 0x13), Global2 INT_SRC / INT_MASK, the Global1
//! "device" source and its enable in G1_CTL1; acknowledged by reading the PHY's status;
//! nothing seen where a mask is clear.

use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::irq::{G1Irq, G1IrqSet, PortSet};
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Config, ConfigError, Error, Feature, Switch};

macro_rules! attach {
    ($sim:expr, $chip:expr) => {
        Switch::new(
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

// ---- The other families (docs/mv88e6xxx.md#interrupts) ----

/// The first routed port with an internal PHY behind Global2.
fn first_phy_port(chip: Chip) -> u8 {
    (0..chip.info().num_ports)
        .find(|p| chip.is_valid_port(*p) && chip.has_internal_phy(*p))
        .unwrap()
}

fn family_sim(chip: Chip, port: u8) -> (SwitchSim, u8) {
    let (attach, sw) = if chip.family() == mv88e6xxx_smi::Family::Mv6250 {
        (Attach::DualChip(16), 16)
    } else {
        (Attach::Indirect(2), 2)
    };
    let model = ChipModel::new(chip, attach)
        .with_port_phys()
        .with_link_event(5 * MS, usize::from(port), true);
    (SwitchSim::single(model), sw)
}

/// On every family whose internal PHYs sit behind Global2 (ports from the chip's
/// `internal_phys_offset`, PHYs from its `phy_base`), a link change raises the port's G2
/// INT_SRC bit and the Global1 device source, and reading the PHY acknowledges it.
#[test]
fn link_changes_reach_the_pin_on_every_family_with_global2_phys() {
    for chip in [
        Chip::Mv6097,
        Chip::Mv6123,
        Chip::Mv6161,
        Chip::Mv6171,
        Chip::Mv6320,
        Chip::Mv6341,
        Chip::Mv6141,
        Chip::Mv6390,
        Chip::Mv6390X,
        Chip::Mv6393X,
        Chip::Mv6361,
        Chip::Mv6250,
        Chip::Mv6220,
        Chip::Mv6020,
    ] {
        let port = first_phy_port(chip);
        let bit = PortSet(1 << port);
        let (mut sim, sw) = family_sim(chip, port);
        let mut smi = Switch::new(
            &mut sim.bus,
            &sim.counter,
            Addressing::select(chip.family(), sw).unwrap(),
            chip,
            Config::new(),
        )
        .unwrap();
        let device = G1IrqSet::empty().with(G1Irq::Device);
        smi.g1_irq_enable(device).unwrap();
        smi.link_irq_enable(bit).unwrap();
        assert_eq!(smi.g2_read(0x01).unwrap(), bit.0, "{chip:?} G2 INT_MASK");
        assert!(smi.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        sim.clock.advance_to(5 * MS);
        assert_eq!(smi.phy_irq_source().unwrap(), bit, "{chip:?}");
        assert_eq!(smi.g1_irq_pending().unwrap(), device, "{chip:?}");
        assert_eq!(smi.link_changed_ports().unwrap(), bit, "{chip:?}");
        assert!(smi.phy_irq_source().unwrap().is_empty(), "{chip:?}");
        assert!(smi.g1_irq_pending().unwrap().is_empty(), "{chip:?}");
        if chip.family() != mv88e6xxx_smi::Family::Mv6250 {
            assert!(smi.port_link_status(port).unwrap().up, "{chip:?}");
        }
        let _ = smi.release();
        let now = sim.clock.now_ns();
        assert!(
            !sim.bus.device().chip(0).unwrap().irq_asserted(now),
            "{chip:?}"
        );
    }
}

/// Per family, before any frame: ports without an internal PHY, chips whose PHYs are not
/// behind Global2, and Global1 sources beyond the chip's count are refused; the 6393
/// family's sources 0..8 are accepted.
#[test]
fn irq_refusals_per_family_come_before_any_frame() {
    for (chip, port) in [
        (Chip::Mv6393X, 0u8),
        (Chip::Mv6361, 0),
        (Chip::Mv6320, 0),
        (Chip::Mv6390, 9),
    ] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert_eq!(
            smi.link_irq_enable(PortSet(1 << port)),
            Err(Error::Config(ConfigError::Port { port })),
            "{chip:?}"
        );
        assert_eq!(smi.frames(), f0);
    }
    for chip in [Chip::Mv6095, Chip::Mv6131, Chip::Mv6085, Chip::Mv6165] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert!(
            matches!(
                smi.link_irq_enable(PortSet(1)),
                Err(Error::Config(ConfigError::PortFeature {
                    feature: Feature::PhyIrq,
                    ..
                }))
            ),
            "{chip:?}"
        );
        assert!(smi.link_changed_ports().is_err());
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
    for chip in [Chip::Mv6320, Chip::Mv6097, Chip::Mv6085] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(2)));
        let mut smi = attach!(sim, chip);
        let f0 = smi.frames();
        assert_eq!(
            smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Avb)),
            Err(Error::Config(ConfigError::PortFeature {
                chip: Some(chip),
                port: None,
                feature: Feature::G1Irq(8),
            }))
        );
        assert_eq!(smi.frames(), f0);
    }
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6393X);
    smi.g1_write(0x04, 0x0200).unwrap(); // source 9 enabled by someone else
    smi.g1_irq_enable(G1IrqSet::from_bits(0x01FF)).unwrap();
    // Exactly the sources asked for: 0..8 set, the tenth (bit 9) cleared.
    assert_eq!(smi.g1_read(0x04).unwrap() & 0x03FF, 0x01FF);
}

// ---- G1_STS: read clears the operation-done sources; each is reported once -------------

use mv88e6xxx_smi::atu::AtuFlush;
use mv88e6xxx_smi::regs::g1;

/// Linux chip.c: "Reading the interrupt status clears (most of) them". The model latches
/// ATU/VTU/STATS done when an operation completes and a G1_STS read clears them; the ATU
/// problem and device sources stay while their cause lasts.
#[test]
fn a_g1_sts_read_clears_the_operation_done_sources() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.atu_flush(AtuFlush::NonStatic, None).unwrap();
    let _ = smi.release();
    // Raw reads on the bus, as another reader would make them.
    let g1_sts = |sim: &mut SwitchSim| {
        use mdio_bus::{Mdio, PhyAddr, RegAddr};
        let p = PhyAddr::new(2).unwrap();
        // Indirect read of device 0x1B register 0 (smi.h MV88E6XXX_SMI_CMD: BUSY, clause
        // 22, read, dev << 5 | reg).
        let Ok(()) = sim
            .bus
            .write(p, RegAddr::new(0).unwrap(), 0x9800 | (0x1B << 5));
        sim.clock.advance(100_000);
        let Ok(v) = sim.bus.read(p, RegAddr::new(1).unwrap());
        v
    };
    assert_ne!(g1_sts(&mut sim) & (1 << 2), 0, "ATU done after the flush");
    assert_eq!(g1_sts(&mut sim) & (1 << 2), 0, "cleared by the read");
}

/// The driver's own G1_STS reads (here the INIT_READY wait) do not lose a source: the
/// next `g1_irq_status` reports it, once; `g1_irq_pending` takes only the enabled ones
/// and leaves the others to `g1_irq_status`.
#[test]
fn each_cleared_on_read_source_is_reported_once() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.atu_flush(AtuFlush::NonStatic, None).unwrap();
    smi.wait_init_ready().unwrap(); // reads G1_STS: the switch clears ATU done
    let s = smi.g1_irq_status().unwrap();
    assert!(s.contains(G1Irq::AtuDone), "{s:?}");
    assert!(!smi.g1_irq_status().unwrap().contains(G1Irq::AtuDone));
    // Two events, one enabled: pending returns the enabled one, status the other, once.
    smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::AtuDone))
        .unwrap();
    smi.atu_flush(AtuFlush::NonStatic, None).unwrap();
    smi.vtu_flush().unwrap();
    assert_eq!(
        smi.g1_irq_pending().unwrap(),
        G1IrqSet::empty().with(G1Irq::AtuDone)
    );
    assert!(smi.g1_irq_pending().unwrap().is_empty());
    assert_eq!(
        smi.g1_irq_status().unwrap(),
        G1IrqSet::empty().with(G1Irq::VtuDone)
    );
    assert!(smi.g1_irq_status().unwrap().is_empty());
    // A raw read of G1_STS sees them too; the interrupt API still reports them once.
    smi.atu_flush(AtuFlush::NonStatic, None).unwrap();
    assert_ne!(smi.g1_read(g1::STS).unwrap() & (1 << 2), 0);
    assert!(smi.g1_irq_status().unwrap().contains(G1Irq::AtuDone));
    assert!(!smi.g1_irq_status().unwrap().contains(G1Irq::AtuDone));
}

/// `link_irq_enable` changes only the internal PHYs' bits of G2 INT_MASK: the watchdog
/// (bit 15, Linux global2.h `MV88E6XXX_G2_INT_SOURCE_WATCHDOG`) and the other sources
/// enabled there stay enabled.
#[test]
fn link_irq_enable_keeps_the_other_global2_enables() {
    let mut sim =
        SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)).with_port_phys());
    let mut smi = attach!(sim, Chip::Mv6352);
    smi.g2_write(0x01, 0x8000 | (1 << 3)).unwrap(); // watchdog and PHY 3 enabled
    smi.link_irq_enable(PortSet(1 << 2)).unwrap();
    assert_eq!(smi.g2_read(0x01).unwrap(), 0x8000 | (1 << 2));
    smi.link_irq_enable(PortSet(0)).unwrap();
    assert_eq!(smi.g2_read(0x01).unwrap(), 0x8000);
}

/// The 6393 family's tenth Global1 source is DEVICE_2: it can be enabled there, and is
/// refused on a chip with 9 sources before any frame.
#[test]
fn device_2_is_the_tenth_source_of_the_6393_family() {
    assert_eq!(G1Irq::Device2.bit(), 9);
    assert!(G1IrqSet::from_bits(0x0200).contains(G1Irq::Device2));
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6393X);
    smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Device2))
        .unwrap();
    assert_eq!(smi.g1_read(0x04).unwrap() & 0x03FF, 0x0200);
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut smi = attach!(sim, Chip::Mv6352);
    let f0 = smi.frames();
    assert!(matches!(
        smi.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Device2)),
        Err(Error::Config(ConfigError::PortFeature {
            feature: Feature::G1Irq(9),
            ..
        }))
    ));
    assert_eq!(smi.frames(), f0);
}
