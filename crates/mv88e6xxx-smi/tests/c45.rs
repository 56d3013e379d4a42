//! Clause 45 through Global2 SMI_PHY, the driver against the behavioural model: 6393X
//! SERDES lanes, PHY MMDs behind `InternalMdio` as an `Mdio45`, chips without Clause 45,
//! a stuck SMI_PHY BUSY, frames per access in each addressing mode, and the model catching
//! a wrong sequence.

use hwtimer_core::sim::SimCounter;
use mdio_bus::sim::{C45Model, FrameOp, SimMdio};
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family, PhyAccess};
use mv88e6xxx_smi::regs::{BUSY, g2};
use mv88e6xxx_smi::sim::{
    Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SwitchModel, SwitchSim,
};
use mv88e6xxx_smi::{Addressing, Bound, BusyWait, Config, ConfigError, Error, SERDES_DEVAD, Smi};

type SimSmi<'a> = Smi<&'a mut SimMdio<SwitchModel>, &'a SimCounter>;

fn p(a: u8) -> PhyAddr {
    PhyAddr::new(a).unwrap()
}

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

fn probe(sim: &mut SwitchSim, sw_addr: u8, hint: Family) -> SimSmi<'_> {
    Smi::probe(&mut sim.bus, &sim.counter, sw_addr, hint, Config::new())
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
    // SMI_PHY_CMD/DATA are remapped at sw_addr: 1 frame each. BUSY polled first (state
    // unknown after probe), DATA = address, CMD = write address, poll, CMD = read, poll,
    // DATA read.
    assert_eq!(smi.frames() - f0, 7);
    let f1 = smi.frames();
    assert_eq!(smi.serdes_read(10, 0xA003).unwrap(), 0x0000);
    assert_eq!(smi.serdes_read(9, 0x2001).unwrap(), 0x012C);
    // Known clear from here on: 6 frames per access.
    assert_eq!(smi.frames() - f1, 12);
    let _ = smi.release();
    let from = usize::try_from(f1).unwrap();
    assert_eq!(
        frames_since(&sim, from)[..6],
        [
            (true, 0x19, 0xA003),  // G2_SMI_PHY_DATA: the register address
            (true, 0x18, 0x8144),  // BUSY | C45 | OP 00 | port 10 << 5 | MMD 4
            (false, 0x18, 0x0144), // BUSY clear
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
    // The SERDES helpers are the 6393 family's only.
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
        let mut smi = Smi::new(
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
    let mut smi = Smi::probe(
        &mut sim.bus,
        &sim.counter,
        6,
        Family::Mv6393,
        Config::new().with_timeout_ns(timeout_ns),
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
        // Once to make SMI_PHY known clear, then the measured read.
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
            (Chip::Mv6390, Attach::Direct, 6),
            // Six Global2 accesses, each SMI_CMD (+ SMI_DATA) and a poll: 3 frames.
            (Chip::Mv6390, Attach::Indirect(4), 18),
            (Chip::Mv6393X, Attach::Direct, 6),
            // The remap puts SMI_PHY_CMD/DATA at sw_addr: as direct.
            (Chip::Mv6393X, Attach::Indirect(4), 6),
        ]
    );
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

mod property {
    use super::*;
    use proptest::prelude::*;

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

    #[derive(Debug, Clone)]
    enum Op {
        Read(u8, u8, u16),
        Write(u8, u8, u16, u16),
        SerdesRead(u8, u16),
        SerdesWrite(u8, u16, u16),
        /// A raw Global2 write to SMI_PHY_CMD (0x18) or SMI_PHY_DATA (0x19).
        Raw(bool, u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..40, 0u8..32, any::<u16>()).prop_map(|(p, d, r)| Op::Read(p, d, r)),
            (0u8..40, 0u8..32, any::<u16>(), any::<u16>())
                .prop_map(|(p, d, r, v)| Op::Write(p, d, r, v)),
            (0u8..12, any::<u16>()).prop_map(|(p, r)| Op::SerdesRead(p, r)),
            (0u8..12, any::<u16>(), any::<u16>()).prop_map(|(p, r, v)| Op::SerdesWrite(p, r, v)),
            (any::<bool>(), any::<u16>()).prop_map(|(c, v)| Op::Raw(c, v)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the chip, the addressing, the SMI_PHY BUSY timing (stuck included) and
        /// the arguments: no panic, refusals send no frame, every operation ends within
        /// the frames its deadline implies, and nothing is written while SMI_PHY is busy.
        #[test]
        fn clause_45_never_panics_is_bounded_and_never_writes_into_a_busy_unit(
            chip_i in 0usize..Chip::ALL.len(),
            indirect in any::<bool>(),
            delays in proptest::collection::vec(0u64..200_000, 0..4),
            stuck in any::<bool>(),
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
            let mut sim = SwitchSim::single(
                ChipModel::new(chip, attach)
                    .with_phy(C45Model::mv88e6393x_serdes_lane(p(9)))
                    .with_phy(C45Model::mv88e6393x_serdes_lane(p(0)))
                    .with_phy_busy(busy),
            );
            let mut smi = Smi::new(
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
                };
                let frames = smi.frames() - f0;
                prop_assert!(frames <= max_frames_per_op(), "{frames} frames");
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
                    Err(e) => prop_assert!(false, "{e:?}"),
                    Ok(()) => {}
                }
            }
            let _ = smi.release();
            prop_assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
        }
    }
}
