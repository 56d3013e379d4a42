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
