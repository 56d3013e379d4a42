//! `ieee802_3_miim` PHY code on `Gmac3Mdio` through `miim::MiimBus`, against the model.

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use ieee802_3_miim::Miim;
use ieee802_3_miim::mdio::PhyAddress;
use ieee802_3_miim::registers::Duplex;
use ieee802_3_miim::{LinkSpeed, LinkState};
use mdio_bus::sim::PhyModel;
use mdio_bus::{PhyAddr, RegAddr};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::Gmac3;
use stmmac_coalesce::miim::{FAILED_READ, MiimBus};
use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena};

/// A BCM54612E as QEMU shows it, linked 1000/full with a gigabit partner (the 1000BASE-T
/// control and status registers say so), autonegotiation complete.
fn phy() -> PhyModel {
    let r = |n| RegAddr::new(n).unwrap();
    PhyModel::bcm54612e(PhyAddr::new(0).unwrap())
        .with(r(1), 0x792d) // BMSR: QEMU's 0x790d + autonegotiation complete
        .with(r(4), 0x01e1) // ANAR: 10/100 half/full, 802.3
        .with(r(5), 0x45e1) // ANLPAR: ack, pause, 10/100 half/full
        .with(r(6), 0x006d) // ANER: partner AN able and next-page able (a gigabit partner)
        .with(r(9), 0x0200) // 1000BASE-T control: advertise 1000/full
        .with(r(10), 0x3800) // 1000BASE-T status: partner 1000/full, local and remote OK
        .with(r(15), 0x3000) // extended status: 1000BASE-T half/full
}

type Bus = SimBus<Gmac3Model<PhyModel>>;

fn mac(phy: PhyModel) -> (SimClock, Bus, Gmac3<Bus>, SimCounter) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x1000_0000, 4096);
    let bus = SimBus::new(&clock, Gmac3Model::new(arena, phy, SIM_CSR_HZ));
    let mac = Gmac3::new(bus.clone());
    let counter = SimCounter::new(&clock, 32, 25_000_000);
    (clock, bus, mac, counter)
}

#[test]
fn phy_code_reads_ident_and_link_through_dwmac_mdio() {
    let (_clock, bus, mac, counter) = mac(phy());
    mac.soft_reset(&counter).unwrap();
    let mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let mut phy = MiimBus::new(mdio).phy(PhyAddress::new(0).unwrap());
    assert_eq!(phy.phy_ident().map(|id| id.raw_u32()), Some(0x0362_5e6a));
    assert!(phy.phy_link_up());
    assert_eq!(
        phy.get_link_state(),
        Ok(LinkState {
            speed: LinkSpeed::Mbps1000,
            duplex: Duplex::Full
        })
    );
    // The PHY driver's write reaches the PHY registers over the DWMAC's MII_ADDR/MII_DATA.
    phy.set_best_autonegotation_advertisement();
    let frames = bus.model(|m| m.mdio_frames());
    assert!(frames > 10, "{frames} MDIO frames");
    let bmcr = bus.model(|m| {
        use mdio_bus::sim::MdioDevice;
        m.mdio_device()
            .read(0, PhyAddr::new(0).unwrap(), RegAddr::new(0).unwrap())
    });
    assert_ne!(bmcr & 0x1000, 0, "AN enabled");
    assert_ne!(bmcr & 0x0200, 0, "AN restarted");
    assert!(phy.mdio.take_error().is_none());
    assert_eq!(phy.mdio.errors(), 0);
}

#[test]
fn a_stuck_bus_reads_as_no_phy_and_keeps_the_error() {
    let (clock, bus, mac, counter) = mac(phy());
    mac.soft_reset(&counter).unwrap();
    bus.model(|m| m.set_mdio_stuck(true));
    let mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let mut bus = MiimBus::new(mdio);
    let t0 = clock.now_ns();
    {
        use ieee802_3_miim::mdio::Mdio as _;
        let a = PhyAddress::new(0).unwrap();
        let r = ieee802_3_miim::RegisterAddress::new(1).unwrap();
        assert_eq!(bus.read(a, r), FAILED_READ);
        bus.write(a, r, 0x1234);
    }
    // Each frame stayed bounded by Gmac3Mdio's 10 ms deadline.
    let took = clock.now_ns() - t0;
    assert!((20_000_000..23_000_000).contains(&took), "{took} ns");
    assert_eq!(bus.errors(), 2);
    assert_eq!(bus.take_error(), Some(hwtimer_core::Error::Timeout));
    assert_eq!(bus.take_error(), None, "taken once");
    // All-ones reads look like a linked PHY to `ieee802_3_miim` (BMSR link bit set), so the
    // error count is what tells: every frame of a PHY-driver call is counted.
    let mut phy = bus.phy(PhyAddress::new(0).unwrap());
    let _ = phy.get_link_state();
    assert!(phy.mdio.errors() > 2);
    assert_eq!(phy.mdio.take_error(), Some(hwtimer_core::Error::Timeout));
}
