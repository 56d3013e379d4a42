//! Clause 45 through the QoS 4.x/5.x MDIO master (`QosMdio` as an `mdio_bus::Mdio45`) on the
//! QoS model, reaching a Clause 45 device (`mdio_bus::sim::C45Model`: a 6393X SERDES lane)
//! frame by frame: the address frame, then the read, write or post-read-increment frame.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::sim::{C45Model, SimMdio};
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr, RegAddr};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::MDIO_TIMEOUT_US;
use stmmac_coalesce::Qos;
use stmmac_coalesce::qos::regs as r;
use stmmac_coalesce::sim::{QosModel, SIM_CSR_HZ, SimArena};

type Bus = SimBus<QosModel<C45Model>>;

const LANE: PhyAddr = PhyAddr::from_bits(9);

fn board() -> (SimClock, SimCounter, Bus) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000);
    let model = QosModel::new(
        SimArena::new(0x1000_0000, 1 << 20),
        C45Model::mv88e6393x_serdes_lane(LANE),
        SIM_CSR_HZ,
    );
    let bus = SimBus::new(&clock, model);
    (clock, counter, bus)
}

/// The lane's SGMII PHY status and BMSR, over any Clause 45 master.
fn lane_status<B: Mdio45>(bus: &mut B) -> Result<(u16, u16), B::Error> {
    Ok((
        bus.read_c45(LANE, DevAddr::PHYXS, 0xA003)?,
        bus.read_c45(LANE, DevAddr::PHYXS, 0x2001)?,
    ))
}

#[test]
fn a_c45_read_through_dwmac4_mdio_reaches_the_device_in_two_frames() {
    let (clock, counter, bus) = board();
    let mac = Qos::probe(&bus).unwrap();
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let t0 = clock.now_ns();
    assert_eq!(lane_status(&mut mdio).unwrap(), (0xAC00, 0x012C));
    // The same function over the plain bus model gives the same answer.
    let mut plain = SimMdio::new(&clock, 2_500_000, C45Model::mv88e6393x_serdes_lane(LANE));
    assert_eq!(lane_status(&mut plain).unwrap(), (0xAC00, 0x012C));
    drop(mdio);
    // Two accesses, two frames each, on the device and in the model's count; each access
    // took both frame times before GB cleared.
    assert_eq!(bus.model(|m| m.mdio_device().frames()), 4);
    assert_eq!(bus.model(|m| m.mdio_c45_frames()), 2);
    assert_eq!(bus.model(|m| m.mdio_frames()), 4);
    let cr = stmmac_coalesce::gmac3::regs::csr_clock_range(SIM_CSR_HZ)
        .unwrap()
        .0;
    let div = stmmac_coalesce::gmac3::regs::cr_divider(cr).unwrap();
    let frame = mdio_bus::frame_ns(SIM_CSR_HZ / div);
    assert!(clock.now_ns() - t0 >= 4 * frame);
    // The MMD's address register holds the last address frame's register.
    assert_eq!(
        bus.model(|m| m.mdio_device().address(DevAddr::PHYXS)),
        0x2001
    );
}

#[test]
fn a_c45_write_lands_in_its_mmd_and_reads_back() {
    let (_clock, counter, bus) = board();
    let mac = Qos::probe(&bus).unwrap();
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    // POC: PCS 10GBASE-R.
    mdio.write_c45(LANE, DevAddr::PHYXS, 0xF002, 0x0005)
        .unwrap();
    assert_eq!(mdio.read_c45(LANE, DevAddr::PHYXS, 0xF002).unwrap(), 0x0005);
    // Another MMD and another port address: nothing answers.
    assert_eq!(mdio.read_c45(LANE, DevAddr::PCS, 0xF002).unwrap(), 0xFFFF);
    assert_eq!(
        mdio.read_c45(PhyAddr::from_bits(10), DevAddr::PHYXS, 0xF002)
            .unwrap(),
        0xFFFF
    );
    // Clause 22 on the same master reaches no Clause 22 register of the lane.
    assert_eq!(mdio.read(LANE, RegAddr::from_bits(2)).unwrap(), 0xFFFF);
    drop(mdio);
    assert_eq!(
        bus.model(|m| m.mdio_device().reg(DevAddr::PHYXS, 0xF002)),
        Some(0x0005)
    );
    // The write reached only its register.
    assert_eq!(
        bus.model(|m| m.mdio_device().reg(DevAddr::PHYXS, 0xA003)),
        Some(0xAC00)
    );
}

#[test]
fn goc_2_on_clause_45_is_a_post_read_increment_read() {
    let (clock, _counter, bus) = board();
    let cr = stmmac_coalesce::gmac3::regs::csr_clock_range(SIM_CSR_HZ)
        .unwrap()
        .0;
    // BMCR 0x2000 then BMSR 0x2001: RA 0x2000, GOC 2 twice (the second one re-sends RA,
    // which the driver would not; the model reads where the address frame points).
    let go = |ra: u32, goc: u32| {
        bus.write_word(r::MAC_MDIO_DATA.offset(), ra << 16);
        bus.write_word(
            r::MAC_MDIO_ADDRESS.offset(),
            (9 << 21) | (4 << 16) | (cr << 8) | (goc << 2) | 0b10 | 1,
        );
        clock.advance(1_000_000);
        bus.read_word(r::MAC_MDIO_DATA.offset()) & 0xFFFF
    };
    assert_eq!(go(0x2000, 2), 0x1140);
    assert_eq!(
        bus.model(|m| m.mdio_device().address(DevAddr::PHYXS)),
        0x2001
    );
    assert_eq!(go(0x2001, 3), 0x012C);
}

#[test]
fn a_stuck_gb_bounds_a_c45_access() {
    let (clock, counter, bus) = board();
    let mac = Qos::probe(&bus).unwrap();
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    bus.model(|m| m.set_mdio_stuck(true));
    let t0 = clock.now_ns();
    assert_eq!(
        mdio.read_c45(LANE, DevAddr::PHYXS, 0xA003),
        Err(hwtimer_core::Error::Timeout)
    );
    let waited = clock.now_ns() - t0;
    assert!(waited >= MDIO_TIMEOUT_US * 1_000);
    assert!(waited < 4 * MDIO_TIMEOUT_US * 1_000);
    // The next access polls GB first and, still stuck, sends nothing.
    let frames = bus.model(|m| m.mdio_device().frames());
    assert_eq!(
        mdio.write_c45(LANE, DevAddr::PHYXS, 0xF002, 1),
        Err(hwtimer_core::Error::Timeout)
    );
    assert_eq!(bus.model(|m| m.mdio_device().frames()), frames);
}
