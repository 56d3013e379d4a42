//! Clause 45 through Global2 SMI_PHY, the driver against the behavioural model: 6393X,
//! 6390 and 6390X SERDES lanes, the CMODE-checked lane access on each family, PHY MMDs behind `InternalMdio` as an `Mdio45`, chips without Clause 45,
//! a stuck SMI_PHY BUSY, frames per access in each addressing mode, and the model catching
//! a wrong sequence.

use crate::common::{SimSmi, p};
use mdio_bus::sim::{C45Model, FrameOp, SimMdio};
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family, PhyAccess};
use mv88e6xxx_smi::regs::{BUSY, g2};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SwitchSim};
use mv88e6xxx_smi::{
    Addressing, Bound, BusyWait, Config, ConfigError, Error, SERDES_DEVAD, SerdesLane, SerdesMode,
    Switch,
};

fn d(a: u8) -> DevAddr {
    DevAddr::new(a).unwrap()
}

/// A 6393X at `sw_addr` 6 (multi-chip, remap on) with SERDES lanes on ports 9 and 10; lane
/// 10 reports a different PHY status, so a read of the wrong lane shows.
fn sim_6393x() -> SwitchSim {
    let lane10 = C45Model::mv88e6393x_serdes_lane(p(10)).with(DevAddr::PHYXS, 0xA003, 0x0000);
    SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Indirect(6))
            .with_phy(C45Model::mv88e6393x_serdes_lane(p(9)))
            .with_phy(lane10),
    )
}

/// Probe with the 6393X remap opted in (`Config::with_remap_6393x`; other families and
/// direct mode ignore it).
fn probe(sim: &mut SwitchSim, sw_addr: u8, hint: Family) -> SimSmi<'_> {
    let config = Config::new().with_remap_6393x(true);
    Switch::probe(&mut sim.bus, &sim.counter, sw_addr, hint, config)
        .unwrap()
        .0
}

/// (write, reg, value) of the frames since `from`.
fn frames_since(sim: &SwitchSim, from: usize) -> Vec<(bool, u8, u16)> {
    sim.bus.log()[from..]
        .iter()
        .map(|f| (f.write, f.reg.get(), f.value))
        .collect()
}

#[test]
fn a_6393x_serdes_status_read_is_an_address_frame_then_a_read_frame_through_g2() {
    let mut sim = sim_6393x();
    let mut smi = probe(&mut sim, 6, Family::Mv6390);
    assert_eq!(smi.family(), Family::Mv6393);
    let f0 = smi.frames();
    // Port 9's lane: SGMII/1000BASE-X PHY status (MMD 4, 0xA003): link up, 1000 full.
    assert_eq!(smi.serdes_read(9, 0xA003).unwrap(), 0xAC00);
    // SMI_PHY_CMD/DATA are remapped at sw_addr: 1 frame each. BUSY polled before each
    // command, as Linux does: poll, DATA = address, CMD = write address, poll, poll,
    // CMD = read, poll, DATA read.
    assert_eq!(smi.frames() - f0, 8);
    let f1 = smi.frames();
    assert_eq!(smi.serdes_read(10, 0xA003).unwrap(), 0x0000);
    assert_eq!(smi.serdes_read(9, 0x2001).unwrap(), 0x012C);
    // The same 8 frames per access from here on.
    assert_eq!(smi.frames() - f1, 16);
    let _ = smi.release();
    let from = usize::try_from(f1).unwrap();
    assert_eq!(
        frames_since(&sim, from)[..8],
        [
            (false, 0x18, 0x0D24), // BUSY check: the previous access's command, clear
            (true, 0x19, 0xA003),  // G2_SMI_PHY_DATA: the register address
            (true, 0x18, 0x8144),  // BUSY | C45 | OP 00 | port 10 << 5 | MMD 4
            (false, 0x18, 0x0144), // BUSY clear
            (false, 0x18, 0x0144), // BUSY check before the next command
            (true, 0x18, 0x8D44),  // BUSY | C45 | OP 11 | port 10 << 5 | MMD 4
            (false, 0x18, 0x0D44),
            (false, 0x19, 0x0000), // the lane's status
        ]
    );
    assert!(sim.bus.log().iter().all(|f| f.phy.get() == 6));
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

#[test]
fn a_serdes_write_reads_back_and_reaches_only_its_lane() {
    let mut sim = sim_6393x();
    let mut smi = probe(&mut sim, 6, Family::Mv6393);
    // POC: PCS 10GBASE-R (5) on port 10.
    smi.serdes_write(10, 0xF002, 0x0005).unwrap();
    assert_eq!(smi.serdes_read(10, 0xF002).unwrap(), 0x0005);
    assert_eq!(smi.serdes_read(9, 0xF002).unwrap(), 0x0008);
    // The same register through the generic path, in the SERDES MMD.
    assert_eq!(
        smi.phy_read_c45(p(10), SERDES_DEVAD, 0xF002).unwrap(),
        0x0005
    );
    let _ = smi.release();
    let log = sim.bus.log();
    let writes: Vec<_> = log
        .iter()
        .filter(|f| f.write && f.reg.get() == 0x18)
        .map(|f| f.value)
        .collect();
    // Address frame, then write data (OP 01) for the write.
    assert_eq!(writes[..2], [0x8144, 0x8544]);
}

/// A Clause 45 PHY MMD reader generic over any `Mdio45` master.
fn pma_id<B: Mdio45>(bus: &mut B, phy: PhyAddr) -> Result<(u16, u16), B::Error> {
    Ok((
        bus.read_c45(phy, DevAddr::PMA_PMD, 2)?,
        bus.read_c45(phy, DevAddr::PMA_PMD, 3)?,
    ))
}

#[test]
fn internal_mdio_is_a_clause_45_bus_beside_clause_22() {
    // A 6352 (no SERDES lanes of ours, but Clause 45 per Linux's ops) with a PHY at 2
    // that has Clause 22 registers and, at the same address, MMD 1 and MMD 7.
    let mmd = C45Model::new(p(2))
        .with(DevAddr::PMA_PMD, 2, 0x0141)
        .with(DevAddr::PMA_PMD, 3, 0x0DD1)
        .with(DevAddr::AN, 0x0010, 0x0001);
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_phy(PhyModel::bcm54612e(p(2)))
            .with_phy(mmd),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    let mut bus = smi.internal_mdio();
    assert_eq!(pma_id(&mut bus, p(2)).unwrap(), (0x0141, 0x0DD1));
    bus.write_c45(p(2), DevAddr::AN, 0x0010, 0x1234).unwrap();
    assert_eq!(bus.read_c45(p(2), DevAddr::AN, 0x0010).unwrap(), 0x1234);
    // Clause 22 on the same bus still works, and the MMD write did not touch it.
    assert_eq!(bus.read(p(2), RegAddr::new(2).unwrap()).unwrap(), 0x0362);
    // `&mut InternalMdio` is an `Mdio45` too; a PHY address with nothing answers 0xFFFF.
    assert_eq!(pma_id(&mut &mut bus, p(3)).unwrap(), (0xFFFF, 0xFFFF));
    // The 6352's SERDES (Clause 22, paged) is not one of the Clause 45 lanes.
    assert_eq!(
        smi.serdes_read(0, 0xA003),
        Err(ConfigError::SerdesLane { port: 0 }.into())
    );
}

#[test]
fn chips_without_clause_45_refuse_before_any_frame() {
    let mut refused = Vec::new();
    for &chip in Chip::ALL {
        if chip.info().phy_access == PhyAccess::Global2 {
            continue;
        }
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Direct));
        let mut smi = Switch::new(
            &mut sim.bus,
            &sim.counter,
            Addressing::Direct,
            chip,
            Config::new(),
        )
        .unwrap();
        let e = smi.phy_read_c45(p(0), d(1), 2).unwrap_err();
        assert_eq!(e, ConfigError::NoClause45 { chip }.into(), "{chip:?}");
        let e = smi.phy_write_c45(p(0), d(1), 2, 0).unwrap_err();
        assert_eq!(e, ConfigError::NoClause45 { chip }.into(), "{chip:?}");
        let e = smi.internal_mdio().read_c45(p(0), d(1), 2).unwrap_err();
        assert_eq!(e, ConfigError::NoClause45 { chip }.into(), "{chip:?}");
        assert_eq!(smi.frames(), 0, "{chip:?}");
        let _ = smi.release();
        assert_eq!(sim.bus.frames(), 0, "{chip:?}");
        refused.push(chip);
    }
    // Linux's list: the chips whose phy_read is not Global2 SMI_PHY.
    assert_eq!(
        refused,
        [
            Chip::Mv6085,
            Chip::Mv6095,
            Chip::Mv6131,
            Chip::Mv6165,
            Chip::Mv6185
        ]
    );
}

#[test]
fn bad_ports_and_phys_refuse_before_any_frame() {
    let mut sim = sim_6393x();
    let mut smi = probe(&mut sim, 6, Family::Mv6393);
    let f0 = smi.frames();
    for port in [1, 2, 8, 11, 0xFF] {
        assert_eq!(
            smi.serdes_read(port, 0xA003),
            Err(ConfigError::SerdesLane { port }.into())
        );
        assert_eq!(
            smi.serdes_write(port, 0xF002, 0),
            Err(ConfigError::SerdesLane { port }.into())
        );
    }
    // Address 11 is off the 6393X's PHY bus (11 ports from 0).
    assert_eq!(
        smi.phy_read_c45(p(11), d(4), 0),
        Err(ConfigError::Phy { phy: 11 }.into())
    );
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();

    // The 6361 does not route port 8, but has ports 0, 9, 10; its lane ports are reachable.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6361, Attach::Indirect(6))
            .with_phy(C45Model::mv88e6393x_serdes_lane(p(9))),
    );
    let mut smi = probe(&mut sim, 6, Family::Mv6393);
    assert_eq!(smi.serdes_read(9, 0xA003).unwrap(), 0xAC00);
}

#[test]
fn a_stuck_smi_phy_busy_times_out_within_its_bound_and_writes_nothing_more() {
    let timeout_ns = 2_000_000;
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Indirect(6))
            .with_phy(C45Model::mv88e6393x_serdes_lane(p(9)))
            .with_phy_busy(BusyDelay::stuck()),
    );
    let t0 = sim.clock.now_ns();
    let mut smi = Switch::probe(
        &mut sim.bus,
        &sim.counter,
        6,
        Family::Mv6393,
        Config::new()
            .with_timeout_ns(timeout_ns)
            .with_remap_6393x(true),
    )
    .unwrap()
    .0;
    let f0 = smi.frames();
    // The unit starts idle: the pre-poll passes, the address command sticks.
    let e = smi.serdes_read(9, 0xA003).unwrap_err();
    let Error::Timeout(t) = e else {
        panic!("{e:?}")
    };
    assert_eq!(t.wait, BusyWait::SmiPhyCmd);
    assert_eq!(t.bound, Bound::Deadline);
    assert_ne!(t.last & BUSY, 0);
    // Not early (2 ms = 50 000 ticks at 25 MHz), and bounded: about 2 ms of 25.6 µs
    // polls plus the one after the deadline.
    assert!(t.elapsed_ticks >= 50_000);
    assert!(u64::from(t.polls) <= timeout_ns / FRAME_NS + 3);
    // Pre-poll, DATA, CMD, then the polls: the read command was never sent.
    assert_eq!(smi.frames() - f0, 3 + u64::from(t.polls));
    // The next access polls first and, still stuck, writes nothing.
    let f1 = smi.frames();
    let Err(Error::Timeout(t2)) = smi.serdes_write(9, 0xF002, 1) else {
        panic!("the stuck unit must time out again")
    };
    assert_eq!(smi.frames() - f1, u64::from(t2.polls));
    let _ = smi.release();
    assert!(sim.clock.now_ns() - t0 >= 2 * timeout_ns);
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
    let cmds: Vec<_> = sim
        .bus
        .log()
        .iter()
        .filter(|f| f.write && f.reg.get() == 0x18)
        .map(|f| f.value)
        .collect();
    assert_eq!(cmds, [0x8124]);
}

#[test]
fn frames_per_clause_45_read_direct_indirect_and_remapped() {
    let lane = || C45Model::mv88e6393x_serdes_lane(p(9));
    let mut cases = Vec::new();
    for (chip, attach, sw_addr, hint) in [
        (Chip::Mv6390, Attach::Direct, 0, Family::Mv6390),
        (Chip::Mv6390, Attach::Indirect(4), 4, Family::Mv6390),
        (Chip::Mv6393X, Attach::Direct, 0, Family::Mv6393),
        (Chip::Mv6393X, Attach::Indirect(4), 4, Family::Mv6393),
    ] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach).with_phy(lane()));
        let clock = sim.clock.clone();
        let mut smi = probe(&mut sim, sw_addr, hint);
        // Once first (the first read after probe is the same), then the measured read.
        smi.phy_read_c45(p(9), SERDES_DEVAD, 0xA003).unwrap();
        let f0 = smi.frames();
        let t0 = clock.now_ns();
        assert_eq!(
            smi.phy_read_c45(p(9), SERDES_DEVAD, 0xA003).unwrap(),
            0xAC00
        );
        let frames = smi.frames() - f0;
        let _ = smi.release();
        let ns = clock.now_ns() - t0;
        assert!(ns >= frames * FRAME_NS);
        cases.push((chip, attach, frames));
    }
    assert_eq!(
        cases,
        [
            // Eight Global2 accesses: a BUSY poll before each of the two commands (as
            // Linux), DATA, CMD, poll, CMD, poll, DATA.
            (Chip::Mv6390, Attach::Direct, 8),
            // Each SMI_CMD (+ SMI_DATA) and a poll: 3 frames.
            (Chip::Mv6390, Attach::Indirect(4), 24),
            (Chip::Mv6393X, Attach::Direct, 8),
            // The remap (opted in) puts SMI_PHY_CMD/DATA at sw_addr: as direct.
            (Chip::Mv6393X, Attach::Indirect(4), 8),
        ]
    );
    // Without the opt-in the 6393X in indirect mode is reached as the 6390 is: 24 frames.
    let mut sim =
        SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(4)).with_phy(lane()));
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 4, Family::Mv6393, Config::new()).unwrap();
    smi.phy_read_c45(p(9), SERDES_DEVAD, 0xA003).unwrap();
    let f0 = smi.frames();
    assert_eq!(
        smi.phy_read_c45(p(9), SERDES_DEVAD, 0xA003).unwrap(),
        0xAC00
    );
    assert_eq!(smi.frames() - f0, 24);
    // A MAC's own Clause 45 access is 2 frames on the wire.
    let clock = hwtimer_core::sim::SimClock::new();
    let mut bus = SimMdio::new(&clock, mv88e6xxx_smi::sim::SIM_MDC_HZ, lane());
    bus.read_c45(p(9), SERDES_DEVAD, 0xA003).unwrap();
    assert_eq!(bus.frames(), 2);
    assert_eq!(bus.log()[0].op, FrameOp::C45Address);
}

/// Raw Global2 sequences a driver could get wrong, on the model: each gives the wrong
/// answer, so the model cannot be passed by a wrong driver.
#[test]
fn the_model_catches_wrong_clause_45_sequences() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6393X, Attach::Direct)
            .with_phy(C45Model::mv88e6393x_serdes_lane(p(9)))
            .with_phy_busy(BusyDelay::fixed(100_000)),
    );
    let mut smi = probe(&mut sim, 0, Family::Mv6393);
    // The right sequence first, so the lane's MMD 4 points at 0x2001 (BMSR).
    assert_eq!(smi.serdes_read(9, 0x2001).unwrap(), 0x012C);
    let wait = |smi: &mut SimSmi<'_>| {
        smi.wait_bit(p(0x1C), RegAddr::new(g2::SMI_PHY_CMD).unwrap(), 15, false)
            .unwrap()
    };

    // 1. A read without its address frame reads where the MMD points, not 0xA003.
    smi.g2_write(g2::SMI_PHY_CMD, 0x8D24).unwrap();
    wait(&mut smi);
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0x012C);

    // 2. Reading SMI_PHY_DATA before BUSY clears: the stale value, not the result.
    smi.g2_write(g2::SMI_PHY_DATA, 0xA003).unwrap();
    smi.g2_write(g2::SMI_PHY_CMD, 0x8124).unwrap();
    wait(&mut smi);
    smi.g2_write(g2::SMI_PHY_CMD, 0x8D24).unwrap();
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0xA003);
    wait(&mut smi);
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0xAC00);

    // 3. The address command before the data register: the old data is the address.
    smi.g2_write(g2::SMI_PHY_DATA, 0x2000).unwrap();
    smi.g2_write(g2::SMI_PHY_CMD, 0x8124).unwrap();
    wait(&mut smi);
    smi.g2_write(g2::SMI_PHY_CMD, 0x8124).unwrap(); // meant for 0xF002, sent too early
    wait(&mut smi);
    smi.g2_write(g2::SMI_PHY_DATA, 0xF002).unwrap();
    smi.g2_write(g2::SMI_PHY_CMD, 0x8D24).unwrap();
    wait(&mut smi);
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0x1140); // BMCR, not POC

    // 4. Port and MMD swapped (MMD 4 in DEV, port 9 in REG): nobody answers.
    smi.g2_write(g2::SMI_PHY_DATA, 0xA003).unwrap();
    smi.g2_write(g2::SMI_PHY_CMD, 0x8089).unwrap();
    wait(&mut smi);
    smi.g2_write(g2::SMI_PHY_CMD, 0x8C89).unwrap();
    wait(&mut smi);
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0xFFFF);

    // 5. Clause 22 mode (bit 12 set) with the same fields reaches no MMD: a Clause 22
    //    read of port 9's register 4, which the lane does not have.
    smi.g2_write(g2::SMI_PHY_CMD, 0x9924).unwrap();
    wait(&mut smi);
    assert_eq!(smi.g2_read(g2::SMI_PHY_DATA).unwrap(), 0xFFFF);

    // 6. A write data op (OP 01) where a read (OP 11) was meant changes the register.
    smi.g2_write(g2::SMI_PHY_DATA, 0xF002).unwrap();
    smi.g2_write(g2::SMI_PHY_CMD, 0x8124).unwrap();
    wait(&mut smi);
    smi.g2_write(g2::SMI_PHY_CMD, 0x8524).unwrap();
    wait(&mut smi);
    assert_eq!(smi.serdes_read(9, 0xF002).unwrap(), 0xF002);
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

// ---------------------------------------------------------------------------------------
// The 6390 and 6390X SERDES lanes, and the CMODE-checked access on every family.

/// MMD 4 register 0x2003 (the 1000BASE-X block's PHY ID 2) of a [`marked_lane`]: the
/// test's marker, not a hardware value.
const MARK: u16 = 0x2003;

/// A SERDES lane whose [`MARK`] register reads 0x0C00 | its own address, so a read that
/// reaches the wrong lane shows.
fn marked_lane(a: PhyAddr) -> C45Model {
    C45Model::mv88e6393x_serdes_lane(a).with(DevAddr::PHYXS, MARK, 0x0C00 | u16::from(a.get()))
}

/// `chip` wired as `attach`, marked lanes at every lane address of the chip, and the
/// CMODEs `cmodes` (port, CMODE).
fn sim_lanes(chip: Chip, attach: Attach, cmodes: &[(usize, u8)]) -> SwitchSim {
    let mut m = ChipModel::new(chip, attach).with_serdes_lanes_from(marked_lane);
    for &(port, cmode) in cmodes {
        m = m.with_cmode(port, cmode);
    }
    SwitchSim::single(m)
}

/// The Global2 SMI_PHY_CMD words written in direct mode (device 0x1C, register 0x18)
/// since frame `from`.
fn phy_cmds_since(sim: &SwitchSim, from: usize) -> Vec<u16> {
    sim.bus.log()[from..]
        .iter()
        .filter(|f| f.write && f.phy.get() == 0x1C && f.reg.get() == g2::SMI_PHY_CMD)
        .map(|f| f.value)
        .collect()
}

#[test]
fn a_6390_serdes_read_reaches_the_lanes_of_ports_9_and_10() {
    for chip in [Chip::Mv6390, Chip::Mv6190, Chip::Mv6191, Chip::Mv6290] {
        let mut sim = sim_lanes(chip, Attach::Direct, &[]);
        let mut smi = probe(&mut sim, 0, Family::Mv6390);
        assert_eq!(smi.chip(), Some(chip));
        assert_eq!(smi.serdes_read(9, MARK).unwrap(), 0x0C09, "{chip:?}");
        let f0 = smi.frames();
        assert_eq!(smi.serdes_read(10, MARK).unwrap(), 0x0C0A, "{chip:?}");
        // Direct mode: poll, DATA, CMD, poll, poll, CMD, poll, DATA.
        assert_eq!(smi.frames() - f0, 8);
        // The status register of the lane, and a write that reaches port 10's lane only.
        assert_eq!(smi.serdes_read(9, 0xA003).unwrap(), 0xAC00);
        smi.serdes_write(10, 0xF002, 0x0002).unwrap();
        assert_eq!(smi.serdes_read(10, 0xF002).unwrap(), 0x0002);
        assert_eq!(smi.serdes_read(9, 0xF002).unwrap(), 0x0008);
        // Every other port has no lane on these chips: refused before any frame.
        let f1 = smi.frames();
        for port in [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 0xFF] {
            let refused = Err(ConfigError::SerdesLane { port }.into());
            assert_eq!(smi.serdes_read(port, MARK), refused, "{chip:?} {port}");
            assert_eq!(smi.serdes_write(port, MARK, 0), refused.map(|_: u16| ()));
        }
        assert_eq!(smi.frames(), f1);
        let _ = smi.release();
        let from = usize::try_from(f0).unwrap();
        // Port 10's lane: BUSY | C45 | OP 00, then OP 11 | address 0x0A << 5 | MMD 4.
        assert_eq!(phy_cmds_since(&sim, from)[..2], [0x8144, 0x8D44]);
        assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
    }
}

#[test]
fn a_6390x_serdes_read_reaches_the_lanes_of_ports_2_to_7_9_and_10() {
    let lanes = [
        (2, 0x12),
        (3, 0x13),
        (4, 0x14),
        (5, 0x15),
        (6, 0x16),
        (7, 0x17),
        (9, 0x09),
        (10, 0x0A),
    ];
    for chip in [Chip::Mv6390X, Chip::Mv6190X] {
        let mut sim = sim_lanes(chip, Attach::Direct, &[]);
        let mut smi = probe(&mut sim, 0, Family::Mv6390);
        let f0 = smi.frames();
        for (port, addr) in lanes {
            assert_eq!(
                smi.serdes_read(port, MARK).unwrap(),
                0x0C00 | addr,
                "{chip:?} port {port}"
            );
        }
        // Port 6's lane (0x16) only.
        smi.serdes_write(6, 0xF002, 0x0002).unwrap();
        for (port, _) in lanes {
            let want = if port == 6 { 0x0002 } else { 0x0008 };
            assert_eq!(smi.serdes_read(port, 0xF002).unwrap(), want, "port {port}");
        }
        // The lanes above 0x0A are off the PHY bus of the generic Clause 45 path.
        assert_eq!(
            smi.phy_read_c45(p(0x12), SERDES_DEVAD, MARK),
            Err(ConfigError::Phy { phy: 0x12 }.into())
        );
        let f1 = smi.frames();
        for port in [0, 1, 8, 11, 0x40] {
            let refused = Err(ConfigError::SerdesLane { port }.into());
            assert_eq!(smi.serdes_read(port, MARK), refused, "{chip:?} {port}");
            assert_eq!(smi.serdes_write(port, MARK, 0), refused.map(|_: u16| ()));
        }
        assert_eq!(smi.frames(), f1);
        let _ = smi.release();
        let cmds = phy_cmds_since(&sim, usize::try_from(f0).unwrap());
        // Port 2 first: address 0x12 in DEV_ADDR [9:5]; port 7: 0x17.
        assert_eq!(cmds[..2], [0x8244, 0x8E44]);
        assert_eq!(cmds[10..12], [0x82E4, 0x8EE4]);
        assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
    }
}

#[test]
fn the_6390x_lanes_of_ports_2_to_7_follow_the_cmodes_of_ports_9_and_10() {
    // (CMODE of ports 9 and 10, CMODE of ports 2..7, the ports 2..7 that get a lane),
    // from Linux's `mv88e6390x_serdes_get_lane`.
    let all: &[u8] = &[2, 3, 4, 5, 6, 7];
    let cases: [(u8, u8, &[u8]); 9] = [
        (0x9, 0x9, all),           // 1000BASE-X
        (0xA, 0x9, all),           // SGMII
        (0xB, 0x9, all),           // 2500BASE-X
        (0xD, 0x9, &[3, 4, 6, 7]), // RXAUI: two lanes, the third and fourth stay free
        (0xC, 0x9, &[]),           // XAUI: all four lanes
        (0x0, 0x9, &[]),           // not a SERDES mode
        (0x9, 0xA, &[]),           // the port itself must be 1000BASE-X
        (0x9, 0xB, &[]),
        (0x9, 0x0, &[]),
    ];
    for (owner, own, with_lane) in cases {
        let mut cmodes = vec![(9, owner), (10, owner)];
        cmodes.extend((2..=7).map(|p| (p, own)));
        let mut sim = sim_lanes(Chip::Mv6390X, Attach::Direct, &cmodes);
        let mut smi = probe(&mut sim, 0, Family::Mv6390);
        let owner_ok = [0x9, 0xA, 0xB].contains(&owner) || (owner == 0xD && with_lane.contains(&3));
        for port in 2u8..=7 {
            let addr = 0x10 + port;
            let lane_owner = if port <= 4 { 9 } else { 10 };
            let f0 = smi.frames();
            let lane = smi.serdes_lane(port).unwrap();
            let frames = smi.frames() - f0;
            let case = format!("owner {owner:#x} own {own:#x} port {port}");
            let f1 = smi.frames();
            let checked = smi.serdes_read_checked(port, MARK);
            if with_lane.contains(&port) {
                assert_eq!(
                    lane,
                    Some(SerdesLane {
                        port,
                        phy: p(addr),
                        mode: SerdesMode::Base1000X
                    }),
                    "{case}"
                );
                // Both CMODEs read, one frame each.
                assert_eq!(frames, 2, "{case}");
                assert_eq!(checked, Ok(0x0C00 | u16::from(addr)), "{case}");
                continue;
            }
            assert_eq!(lane, None, "{case}");
            // The owner's CMODE rules the lane out or the port's own does.
            let blocked_by_owner = !owner_ok || (owner == 0xD && (port == 2 || port == 5));
            let (cmode_port, cmode) = if blocked_by_owner {
                (lane_owner, owner)
            } else {
                (port, own)
            };
            assert_eq!(frames, if blocked_by_owner { 1 } else { 2 }, "{case}");
            assert_eq!(
                checked,
                Err(Error::SerdesCmode {
                    port,
                    cmode_port,
                    cmode
                }),
                "{case}"
            );
            // Only the CMODE reads: no SMI_PHY frame, nothing written.
            assert_eq!(smi.frames() - f1, frames, "{case}");
            assert_eq!(
                smi.serdes_write_checked(port, 0xF002, 0x0002),
                checked.map(|_| ()),
                "{case}"
            );
        }
        let _ = smi.release();
        // The refused writes wrote nothing; the lanes' POC is as it started.
        let chip = sim.bus.device().chip(0).unwrap();
        assert_eq!(chip.dropped_writes(), 0);
        let log = sim.bus.log();
        assert!(
            !log.iter().any(|f| f.write && f.value == 0x0002),
            "owner {owner:#x} own {own:#x}"
        );
    }
}

#[test]
fn serdes_lane_reads_cmode_on_each_family() {
    use SerdesMode::*;
    // (chip, attach, sw_addr, hint, lane port, lane address, frames per CMODE read,
    // CMODE → mode).
    let gigabit = [(0x9, Base1000X), (0xA, Sgmii), (0xB, Base2500X)];
    let x10g = [(0xC, Xaui), (0xD, Rxaui)];
    let r = [(0xC, Base5GR), (0xD, Base10GR), (0xE, Usxgmii)];
    type Case = (Chip, Attach, u8, Family, u8, u8, u64, Vec<(u8, SerdesMode)>);
    let families: [Case; 7] = [
        (
            Chip::Mv6390,
            Attach::Direct,
            0,
            Family::Mv6390,
            9,
            0x09,
            1,
            gigabit.to_vec(),
        ),
        // Indirect: SMI_CMD write, poll, SMI_DATA read per port register.
        (
            Chip::Mv6390,
            Attach::Indirect(4),
            4,
            Family::Mv6390,
            10,
            0x0A,
            3,
            gigabit.to_vec(),
        ),
        (
            Chip::Mv6390X,
            Attach::Direct,
            0,
            Family::Mv6390,
            10,
            0x0A,
            1,
            [&gigabit[..], &x10g].concat(),
        ),
        (
            Chip::Mv6393X,
            Attach::Indirect(6),
            6,
            Family::Mv6393,
            0,
            0x00,
            3,
            [&gigabit[..], &r].concat(),
        ),
        (
            Chip::Mv6361,
            Attach::Direct,
            0,
            Family::Mv6393,
            9,
            0x09,
            1,
            [&gigabit[..], &r].concat(),
        ),
        (
            Chip::Mv6341,
            Attach::Direct,
            0,
            Family::Mv6341,
            5,
            0x15,
            1,
            gigabit.to_vec(),
        ),
        (
            Chip::Mv6141,
            Attach::Indirect(2),
            2,
            Family::Mv6341,
            5,
            0x15,
            3,
            gigabit.to_vec(),
        ),
    ];
    for (chip, attach, sw_addr, hint, port, addr, per_read, modes) in families {
        for cmode in 0u8..16 {
            let mut sim = sim_lanes(chip, attach, &[(usize::from(port), cmode)]);
            let mut smi = probe(&mut sim, sw_addr, hint);
            // A forced link on the port sets PORT_STS bit 11 above CMODE: only [3:0] counts.
            smi.port_write(port, 0x01, 0x2033).unwrap();
            assert_ne!(smi.port_read(port, 0x00).unwrap() & 0x0800, 0);
            let case = format!("{chip:?} port {port} CMODE {cmode:#x}");
            let f0 = smi.frames();
            let lane = smi.serdes_lane(port).unwrap();
            assert_eq!(smi.frames() - f0, per_read, "{case}");
            let want = modes
                .iter()
                .find(|(c, _)| *c == cmode)
                .map(|&(_, mode)| SerdesLane {
                    port,
                    phy: p(addr),
                    mode,
                });
            assert_eq!(lane, want, "{case}");
            // The mode named is the family's decoding of the CMODE.
            if let Some(l) = want {
                assert_eq!(SerdesMode::from_cmode(hint, cmode), Some(l.mode), "{case}");
            }
            match want {
                Some(_) => assert_eq!(
                    smi.serdes_read_checked(port, MARK),
                    Ok(0x0C00 | u16::from(addr)),
                    "{case}"
                ),
                None => {
                    let f1 = smi.frames();
                    assert_eq!(
                        smi.serdes_read_checked(port, MARK),
                        Err(Error::SerdesCmode {
                            port,
                            cmode_port: port,
                            cmode
                        }),
                        "{case}"
                    );
                    assert_eq!(smi.frames() - f1, per_read, "{case}");
                }
            }
        }
    }
}

#[test]
fn ports_and_chips_without_a_lane_refuse_every_serdes_call_before_any_frame() {
    for &chip in Chip::ALL {
        let lane_ports: &[u8] = match chip {
            Chip::Mv6190 | Chip::Mv6191 | Chip::Mv6290 | Chip::Mv6390 => &[9, 10],
            Chip::Mv6190X | Chip::Mv6390X => &[2, 3, 4, 5, 6, 7, 9, 10],
            Chip::Mv6191X | Chip::Mv6193X | Chip::Mv6361 | Chip::Mv6393X => &[0, 9, 10],
            Chip::Mv6141 | Chip::Mv6341 => &[5],
            _ => &[],
        };
        let (attach, addressing) = if chip.family() == Family::Mv6250 {
            (
                Attach::DualChip(16),
                Addressing::DualChip { sw_addr: p(16) },
            )
        } else {
            (Attach::Direct, Addressing::Direct)
        };
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach).with_serdes_lanes());
        let mut smi =
            Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new()).unwrap();
        for port in (0u8..=12).chain([0x1F, 0xFF]) {
            if lane_ports.contains(&port) {
                continue;
            }
            let e = Error::from(ConfigError::SerdesLane { port });
            let case = format!("{chip:?} port {port}");
            assert_eq!(smi.serdes_read(port, 0xA003), Err(e), "{case}");
            assert_eq!(smi.serdes_write(port, 0xF002, 0), Err(e), "{case}");
            assert_eq!(smi.serdes_lane(port), Err(e), "{case}");
            assert_eq!(smi.serdes_read_checked(port, 0xA003), Err(e), "{case}");
            assert_eq!(smi.serdes_write_checked(port, 0xF002, 0), Err(e), "{case}");
        }
        assert_eq!(smi.frames(), 0, "{chip:?}");
        // The lane ports do reach the bus (CMODE 0: no lane in use).
        for &port in lane_ports {
            assert_eq!(smi.serdes_lane(port), Ok(None), "{chip:?} {port}");
        }
        assert_eq!(smi.frames() > 0, !lane_ports.is_empty(), "{chip:?}");
        let _ = smi.release();
        assert_eq!(sim.bus.frames() > 0, !lane_ports.is_empty(), "{chip:?}");
    }
}

#[test]
fn a_stuck_smi_phy_busy_ends_a_checked_6390x_access_after_the_cmode_reads() {
    let timeout_ns = 1_000_000;
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6390X, Attach::Direct)
            .with_serdes_lanes_from(marked_lane)
            .with_cmode(9, 0xD)
            .with_cmode(3, 0x9)
            .with_phy_busy(BusyDelay::stuck()),
    );
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::Direct,
        Chip::Mv6390X,
        Config::new().with_timeout_ns(timeout_ns),
    )
    .unwrap();
    // The CMODE check reads ports only: a stuck SMI_PHY does not affect it.
    let lane = smi.serdes_lane(3).unwrap().unwrap();
    assert_eq!((lane.phy, lane.mode), (p(0x13), SerdesMode::Base1000X));
    let f0 = smi.frames();
    let Err(Error::Timeout(t)) = smi.serdes_read_checked(3, MARK) else {
        panic!("the stuck unit must time out")
    };
    assert_eq!(t.wait, BusyWait::SmiPhyCmd);
    assert!(u64::from(t.polls) <= timeout_ns / FRAME_NS + 3);
    // Two CMODE reads, the pre-poll, DATA, CMD, then the polls.
    assert_eq!(smi.frames() - f0, 2 + 3 + u64::from(t.polls));
    let _ = smi.release();
    // Only the address command went out, to lane 0x13; nothing written after it.
    assert_eq!(phy_cmds_since(&sim, 0), [0x8264]);
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

#[test]
fn a_stuck_smi_cmd_ends_the_cmode_read_in_indirect_mode() {
    let timeout_ns = 1_000_000;
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6390, Attach::Indirect(4))
            .with_serdes_lanes()
            .with_cmode(9, 0x9)
            .with_smi_busy(BusyDelay::stuck()),
    );
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(Family::Mv6390, 4).unwrap(),
        Chip::Mv6390,
        Config::new().with_timeout_ns(timeout_ns),
    )
    .unwrap();
    let Err(Error::Timeout(t)) = smi.serdes_lane(9) else {
        panic!("a stuck SMI_CMD must time out")
    };
    assert_eq!(t.wait, BusyWait::SmiCmd);
    assert!(u64::from(t.polls) <= timeout_ns / FRAME_NS + 3);
    let Err(Error::Timeout(t)) = smi.serdes_read_checked(9, 0xA003) else {
        panic!("still stuck")
    };
    assert_eq!(t.wait, BusyWait::SmiCmd);
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

mod property {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;

    const TIMEOUT_NS: u64 = 2_000_000;

    /// Frames one Clause 45 operation may take at most: three SMI_PHY waits (the pre-check
    /// when the state is unknown, after the address command, after the data command) and
    /// four Global2 accesses; in indirect mode each access is 2 frames plus at most two
    /// SMI_CMD waits of single frames, and each poll of a wait is one access.
    fn max_frames_per_op() -> u64 {
        let w1 = TIMEOUT_NS / FRAME_NS + 3;
        let access = 2 + 2 * w1;
        let w2 = (TIMEOUT_NS / (3 * FRAME_NS) + 3) * access;
        3 * w2 + 4 * access
    }

    /// Frames of the CMODE check of a checked SERDES access: at most two port register
    /// reads.
    fn max_cmode_frames() -> u64 {
        let w1 = TIMEOUT_NS / FRAME_NS + 3;
        2 * (2 + 2 * w1)
    }

    #[derive(Debug, Clone)]
    enum Op {
        Read(u8, u8, u16),
        Write(u8, u8, u16, u16),
        SerdesRead(u8, u16),
        SerdesWrite(u8, u16, u16),
        /// A raw Global2 write to SMI_PHY_CMD (0x18) or SMI_PHY_DATA (0x19).
        Raw(bool, u16),
        SerdesLane(u8),
        SerdesReadChecked(u8, u16),
        SerdesWriteChecked(u8, u16, u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..40, 0u8..32, any::<u16>()).prop_map(|(p, d, r)| Op::Read(p, d, r)),
            (0u8..40, 0u8..32, any::<u16>(), any::<u16>())
                .prop_map(|(p, d, r, v)| Op::Write(p, d, r, v)),
            (0u8..12, any::<u16>()).prop_map(|(p, r)| Op::SerdesRead(p, r)),
            (0u8..12, any::<u16>(), any::<u16>()).prop_map(|(p, r, v)| Op::SerdesWrite(p, r, v)),
            (any::<bool>(), any::<u16>()).prop_map(|(c, v)| Op::Raw(c, v)),
            (0u8..12).prop_map(Op::SerdesLane),
            (0u8..12, any::<u16>()).prop_map(|(p, r)| Op::SerdesReadChecked(p, r)),
            (0u8..12, any::<u16>(), any::<u16>())
                .prop_map(|(p, r, v)| Op::SerdesWriteChecked(p, r, v)),
        ]
    }

    proptest! {
        // Regressions in `<this file>.proptest-regressions` beside it: proptest's default would
        // put them in tests/proptest-regressions/, since this binary has a main.rs.
        #![proptest_config(ProptestConfig {
            failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
                "proptest-regressions"
            ))),
            ..ProptestConfig::with_cases(64)
        })]

        /// Whatever the chip, the addressing, the SMI_PHY BUSY timing (stuck included) and
        /// the arguments: no panic, refusals send no frame, every operation ends within
        /// the frames its deadline implies, and nothing is written while SMI_PHY is busy.
        #[test]
        fn clause_45_never_panics_is_bounded_and_never_writes_into_a_busy_unit(
            chip_i in 0usize..Chip::ALL.len(),
            indirect in any::<bool>(),
            delays in proptest::collection::vec(0u64..200_000, 0..4),
            stuck in any::<bool>(),
            cmodes in proptest::collection::vec(any::<u8>(), 11),
            ops in proptest::collection::vec(op(), 1..12),
        ) {
            let chip = Chip::ALL[chip_i];
            let dual = chip.family() == Family::Mv6250;
            let (attach, addressing) = match (dual, indirect) {
                (true, _) => (Attach::DualChip(16), Addressing::DualChip { sw_addr: p(16) }),
                (false, true) => (
                    Attach::Indirect(3),
                    Addressing::select(chip.family(), 3).unwrap(),
                ),
                (false, false) => (Attach::Direct, Addressing::Direct),
            };
            let busy = if stuck { BusyDelay::stuck() } else { BusyDelay::cycle(&delays) };
            let mut model = ChipModel::new(chip, attach)
                .with_serdes_lanes()
                .with_phy_busy(busy);
            if ChipModel::serdes_lane_addrs(chip).is_empty() {
                model = model
                    .with_phy(C45Model::mv88e6393x_serdes_lane(p(9)))
                    .with_phy(C45Model::mv88e6393x_serdes_lane(p(0)));
            }
            for (port, &cmode) in cmodes.iter().enumerate() {
                model = model.with_cmode(port, cmode);
            }
            let mut sim = SwitchSim::single(model);
            let mut smi = Switch::new(
                &mut sim.bus,
                &sim.counter,
                addressing,
                chip,
                Config::new().with_timeout_ns(TIMEOUT_NS),
            )
            .unwrap();
            let g2_phy = chip.info().phy_access == PhyAccess::Global2;
            for op in ops {
                let f0 = smi.frames();
                let r = match op {
                    Op::Read(ph, dv, rg) => match PhyAddr::new(ph) {
                        Some(ph) => smi.phy_read_c45(ph, d(dv), rg).map(|_| ()),
                        None => continue,
                    },
                    Op::Write(ph, dv, rg, v) => match PhyAddr::new(ph) {
                        Some(ph) => smi.phy_write_c45(ph, d(dv), rg, v),
                        None => continue,
                    },
                    Op::SerdesRead(port, rg) => smi.serdes_read(port, rg).map(|_| ()),
                    Op::SerdesWrite(port, rg, v) => smi.serdes_write(port, rg, v),
                    Op::Raw(cmd, v) => {
                        let reg = if cmd { g2::SMI_PHY_CMD } else { g2::SMI_PHY_DATA };
                        smi.g2_write(reg, v)
                    }
                    Op::SerdesLane(port) => {
                        let r = smi.serdes_lane(port);
                        // A lane found is the port's, in the mode of its own CMODE.
                        if let Ok(Some(l)) = r {
                            let own = cmodes[usize::from(port)];
                            prop_assert_eq!(l.port, port);
                            prop_assert_eq!(SerdesMode::from_cmode(chip.family(), own), Some(l.mode));
                        }
                        r.map(|_| ())
                    }
                    Op::SerdesReadChecked(port, rg) => {
                        smi.serdes_read_checked(port, rg).map(|_| ())
                    }
                    Op::SerdesWriteChecked(port, rg, v) => smi.serdes_write_checked(port, rg, v),
                };
                let frames = smi.frames() - f0;
                prop_assert!(
                    frames <= max_frames_per_op() + max_cmode_frames(),
                    "{frames} frames"
                );
                match r {
                    Err(Error::Config(e)) => {
                        prop_assert_eq!(frames, 0, "{:?}", e);
                        if !g2_phy {
                            let c45_refusal = matches!(
                                e,
                                ConfigError::NoClause45 { .. } | ConfigError::SerdesLane { .. }
                            );
                            prop_assert!(c45_refusal, "{:?}", e);
                        }
                    }
                    Err(Error::Timeout(t)) => prop_assert!(
                        t.wait == BusyWait::SmiPhyCmd || t.wait == BusyWait::SmiCmd
                    ),
                    // After the CMODE reads only.
                    Err(Error::SerdesCmode { port, cmode_port, .. }) => {
                        prop_assert!(frames > 0 && frames <= max_cmode_frames());
                        prop_assert!(cmode_port == port || cmode_port == 9 || cmode_port == 10);
                    }
                    Err(e) => prop_assert!(false, "{e:?}"),
                    Ok(()) => {}
                }
            }
            let _ = smi.release();
            prop_assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
        }
    }
}

/// The 6352 SERDES (U-Boot powers it up for SGMII CPU links; Linux `serdes.c`
/// `mv88e6352_serdes_*`): PHY 0x0F, page 1, reached through Global2 SMI_PHY. Powering it up
/// clears the fiber page's BMCR power-down bit in the model's SERDES, and page 0 is
/// selected again after each access. `phy_read` still refuses 0x0F (not a copper PHY);
/// other chips and the page register itself are refused before any frame.
#[test]
fn the_6352_serdes_is_reached_at_0x0f_page_1() {
    // IEEE 802.3 clause 22 BMCR power down, bit 11 (the test's own fact).
    const BMCR_PDOWN: u16 = 1 << 11;
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    assert!(smi.phy_read(p(0x0F), RegAddr::new(0).unwrap()).is_err());
    assert_ne!(smi.serdes_6352_read(0).unwrap() & BMCR_PDOWN, 0);
    smi.serdes_6352_set_power(true).unwrap();
    assert_eq!(smi.serdes_6352_read(0).unwrap() & BMCR_PDOWN, 0);
    let f0 = smi.frames();
    assert!(smi.serdes_6352_read(22).is_err());
    assert_eq!(smi.frames(), f0);
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    let (page, bmcr) = m.serdes_6352(1, 0).unwrap();
    assert_eq!(page, 0, "page 0 selected again");
    assert_eq!(bmcr & 0x0800, 0, "powered up");
    // The copper page's register 0 was not touched.
    assert_eq!(m.serdes_6352(0, 0).unwrap().1, 0);
    // Another chip: refused before any frame.
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6390, Attach::Indirect(2)));
    let mut smi = probe(&mut sim, 2, Family::Mv6390);
    let f0 = smi.frames();
    assert!(smi.serdes_6352_set_power(true).is_err());
    assert_eq!(smi.frames(), f0);
}
