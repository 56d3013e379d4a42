//! The driver against the behavioural model: every addressing mode, identification, the
//! bounded waits (success, stuck BUSY, MDIO errors) and internal PHY access.

use crate::common::{SimSmi, p, r};
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::regs::{BUSY, INIT_READY, g1, g2};
use mv88e6xxx_smi::sim::{
    Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SwitchModel, SwitchSim,
};
use mv88e6xxx_smi::{Addressing, BusyWait, Config, ConfigError, Error, G1Op, Switch};

fn probe(sim: &mut SwitchSim, sw_addr: u8, hint: Family) -> SimSmi<'_> {
    Switch::probe(&mut sim.bus, &sim.counter, sw_addr, hint, Config::new())
        .unwrap()
        .0
}

#[test]
fn direct_mode_is_one_frame_per_register() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Direct).with_revision(3));
    let (mut smi, id) =
        Switch::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6085, Config::new()).unwrap();
    assert_eq!(smi.addressing(), Addressing::Direct);
    assert_eq!((id.chip, id.revision, id.raw), (Chip::Mv6352, 3, 0x3523));
    assert_eq!(smi.frames(), 1); // no init wait in direct mode, 1 frame for the ID
    smi.port_write(2, 0x04, 0x007F).unwrap();
    assert_eq!(smi.port_read(2, 0x04).unwrap(), 0x007F);
    assert_eq!(smi.frames(), 3);
    let _ = smi.release();
    let log = sim.bus.log();
    assert_eq!(
        (log[1].phy.get(), log[1].reg.get(), log[1].write),
        (0x12, 0x04, true)
    );
    assert_eq!(
        sim.bus.device().chip(0).unwrap().port_reg(2, 4),
        Some(0x007F)
    );
}

#[test]
fn indirect_mode_frames_follow_the_seed() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6097, Attach::Indirect(4)));
    let mut smi = probe(&mut sim, 4, Family::Mv6085);
    // new(): 1 BUSY check; identify: CMD write, 1 poll, DATA read.
    assert_eq!(smi.frames(), 4);
    smi.port_write(1, 0x04, 0x1234).unwrap();
    assert_eq!(smi.port_read(1, 0x04).unwrap(), 0x1234);
    assert_eq!(smi.frames(), 10);
    let _ = smi.release();
    let log: Vec<_> = sim.bus.log()[4..]
        .iter()
        .map(|f| (f.write, f.reg.get(), f.value))
        .collect();
    // write: DATA, CMD (BUSY|C22|WRITE|dev 0x11|reg 4), poll; read: CMD, poll, DATA.
    assert_eq!(
        log,
        vec![
            (true, 1, 0x1234),
            (true, 0, 0x9624),
            (false, 0, 0x1624),
            (true, 0, 0x9A24),
            (false, 0, 0x1A24),
            (false, 1, 0x1234),
        ]
    );
    assert!(sim.bus.log().iter().all(|f| f.phy.get() == 4));
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

#[test]
fn indirect_waits_for_a_slow_busy_bit() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(BusyDelay::fixed(100_000)),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    let f0 = smi.frames();
    smi.port_write(0, 0x01, 0xBEEF).unwrap();
    // 100 µs busy: polls at ~25.7, 51.4, 77.1, 102.8 µs → 4 polls + DATA + CMD.
    assert_eq!(smi.frames() - f0, 6);
    assert_eq!(smi.port_read(0, 0x01).unwrap(), 0xBEEF);
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

#[test]
fn stuck_smi_busy_times_out_after_50ms_with_last_value() {
    // The model starts idle; the first command never finishes.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(BusyDelay::stuck()),
    );
    let t0 = sim.clock.now_ns();
    let addressing = Addressing::select(Family::Mv6085, 2).unwrap();
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        addressing,
        Chip::Mv6097,
        Config::new(),
    )
    .unwrap();
    assert_eq!(smi.frames(), 1);
    let e = smi.port_read(0, 0).unwrap_err();
    let Error::Timeout(t) = e else {
        panic!("{e:?}")
    };
    assert_eq!(t.wait, BusyWait::SmiCmd);
    assert_ne!(t.last & BUSY, 0);
    // Never early (50 ms = 1.25 M ticks at 25 MHz), and bounded: about 50 ms / 25.7 µs
    // polls, plus the extra one after the deadline.
    assert!(t.elapsed_ticks >= 1_250_000);
    assert!(t.polls >= 2 && u64::from(t.polls) <= 50_000_000 / FRAME_NS + 3);
    let frames = smi.frames();
    assert_eq!(frames, 1 + 1 + u64::from(t.polls));
    // After a failure the next access polls BUSY *before* its command (and times out
    // again, the model being stuck) instead of trusting the bit; no command is written.
    let Err(Error::Timeout(t2)) = smi.port_read(0, 0) else {
        panic!()
    };
    assert_eq!(t2.wait, BusyWait::SmiCmd);
    assert_eq!(smi.frames() - frames, u64::from(t2.polls));
    let _ = smi.release();
    assert!(sim.clock.now_ns() - t0 >= 100_000_000);
    // The driver never wrote while BUSY was set.
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}
use mv88e6xxx_smi::BusyTimeout;

#[test]
fn init_waits_once_for_a_busy_smi() {
    // BUSY set at attach time: the initial check polls until clear.
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(BusyDelay::fixed(60_000)),
    );
    sim.bus.write(p(2), r(0), 0x9A00 | (0x10 << 5) | 3).unwrap(); // someone else's command
    let f0 = sim.bus.frames();
    let smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(Family::Mv6085, 2).unwrap(),
        Chip::Mv6097,
        Config::new(),
    )
    .unwrap();
    assert_eq!(smi.frames(), 3); // 60 µs → clear on the third poll
    let _ = smi.release();
    assert_eq!(sim.bus.frames() - f0, 3);
}

#[test]
fn dual_chip_6250_uses_sw_addr_plus_dev_and_its_own_globals() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6250, Attach::DualChip(16)));
    let (mut smi, id) = Switch::probe(
        &mut sim.bus,
        &sim.counter,
        16,
        Family::Mv6250,
        Config::new(),
    )
    .unwrap();
    assert_eq!(id.chip, Chip::Mv6250);
    assert_eq!(smi.addressing(), Addressing::DualChip { sw_addr: p(16) });
    smi.g1_write(g1::CTL2, 0x0055).unwrap();
    assert_eq!(smi.g1_read(g1::CTL2).unwrap(), 0x0055);
    assert_eq!(
        smi.read(p(16), r(0)),
        Err(Error::Config(ConfigError::Device { dev: 16 }))
    );
    assert_eq!(
        smi.port_read(8, 0),
        Err(Error::Config(ConfigError::Port { port: 8 }))
    );
    let _ = smi.release();
    let log = sim.bus.log();
    assert_eq!(log[0].phy.get(), 16 + 0x08); // PORT_SWITCH_ID at port_base 0x08
    assert_eq!(log[1].phy.get(), 16 + 0x0F); // Global1 at 0x0F
    assert_eq!(sim.bus.device().chip(0).unwrap().g1_reg(g1::CTL2), 0x0055);
}

#[test]
fn addressing_selection() {
    // The refusals, one per cause, are in tests/driver/config_errors.rs.
    assert_eq!(
        Addressing::select(Family::Mv6085, 0),
        Ok(Addressing::Direct)
    );
    // The 6393X remap is opt-in (mainline Linux has none), the 6361 included.
    assert_eq!(
        Addressing::select(Family::Mv6393, 5),
        Ok(Addressing::Indirect {
            sw_addr: p(5),
            remap_6393x: false
        })
    );
    assert_eq!(
        Addressing::select(Family::Mv6393, 5).map(|a| a.with_remap_6393x(true)),
        Ok(Addressing::Indirect {
            sw_addr: p(5),
            remap_6393x: true
        })
    );
    assert_eq!(
        Addressing::select(Family::Mv6085, 5),
        Ok(Addressing::Indirect {
            sw_addr: p(5),
            remap_6393x: false
        })
    );
    assert_eq!(
        Addressing::select(Family::Mv6250, 16),
        Ok(Addressing::DualChip { sw_addr: p(16) })
    );
}

#[test]
fn unknown_or_absent_switch_is_a_typed_error() {
    let mut sim = SwitchSim::new(SwitchModel::new()); // empty bus reads 0xFFFF
    let e =
        Switch::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6085, Config::new()).unwrap_err();
    assert_eq!(e, Error::UnknownSwitchId { raw: 0xFFFF });
    // Indirect on an empty bus: SMI_CMD reads 0xFFFF = BUSY forever → bounded timeout.
    let e =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap_err();
    assert!(matches!(
        e,
        Error::Timeout(BusyTimeout {
            wait: BusyWait::SmiCmd,
            last: 0xFFFF,
            ..
        })
    ));
    assert_eq!(
        hwtimer_core::Error::from(Error::<hwtimer_core::Error>::UnknownSwitchId { raw: 1 }),
        hwtimer_core::Error::Unsupported
    );
}

#[test]
fn probe_6393x_enables_the_remap_when_asked() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(6)));
    // The device tree says "marvell,mv88e6190"; the chip turns out to be a 6393X.
    let config = Config::new().with_remap_6393x(true);
    let (mut smi, id) =
        Switch::probe(&mut sim.bus, &sim.counter, 6, Family::Mv6390, config).unwrap();
    assert_eq!(id.chip, Chip::Mv6393X);
    assert_eq!(smi.family(), Family::Mv6393);
    let f0 = smi.frames();
    // G1_STS is at sw_addr reg 0x04: one frame.
    let sts = smi.g1_read(g1::STS).unwrap();
    assert_ne!(sts & INIT_READY, 0);
    assert_eq!(smi.frames() - f0, 1);
    // A register outside the remap (G1_CTL2) still goes through SMI_CMD/DATA: 3 frames.
    smi.g1_write(g1::CTL2, 7).unwrap();
    assert_eq!(smi.frames() - f0, 4);
    // ATU op: pre-check (1) + write (1) + poll (1, 20 µs < one frame).
    smi.g1_op(G1Op::Atu, 0x1000).unwrap();
    assert_eq!(smi.frames() - f0, 7);
    // The second op checks BUSY first too (another master may have started one), as
    // Linux does: 3 frames.
    smi.g1_op(G1Op::Atu, 0x1000).unwrap();
    assert_eq!(smi.frames() - f0, 10);
    let _ = smi.release();
    let log = sim.bus.log();
    let n = log.len();
    assert_eq!((log[n - 2].reg.get(), log[n - 2].value), (0x0B, 0x9000));
    assert_eq!(sim.bus.device().chip(0).unwrap().g1_reg(g1::CTL2), 7);
}

/// Without `Config::with_remap_6393x` no chip of the 6393 family, the 6361 included, is reached
/// through the remap (an out-of-tree Linux patch): every Global1 access goes through
/// SMI_CMD/SMI_DATA, and no frame touches a `sw_addr` register other than 0 and 1.
#[test]
fn the_6393x_remap_is_off_by_default_for_the_whole_family() {
    for chip in [Chip::Mv6393X, Chip::Mv6191X, Chip::Mv6193X, Chip::Mv6361] {
        let mut sim = SwitchSim::single(ChipModel::new(chip, Attach::Indirect(6)));
        let (mut smi, id) =
            Switch::probe(&mut sim.bus, &sim.counter, 6, Family::Mv6390, Config::new()).unwrap();
        assert_eq!((id.chip, smi.family()), (chip, Family::Mv6393));
        assert_eq!(
            smi.addressing(),
            Addressing::Indirect {
                sw_addr: p(6),
                remap_6393x: false
            }
        );
        let f0 = smi.frames();
        assert_ne!(smi.g1_read(g1::STS).unwrap() & INIT_READY, 0);
        assert_eq!(smi.frames() - f0, 3, "{chip:?}");
        let _ = smi.release();
        assert!(sim.bus.log().iter().all(|f| f.reg.get() <= 1), "{chip:?}");
    }
}

#[test]
fn g1_operations_and_init_ready_are_bounded() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_g1_busy(BusyDelay::fixed(500_000))
            .with_init_ready_at(Some(1_000_000)),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    let sts = smi.wait_init_ready().unwrap();
    assert_ne!(sts & INIT_READY, 0);
    let v = smi.g1_op(G1Op::Vtu, 0x1000).unwrap();
    assert_eq!(v & BUSY, 0);
    assert_eq!(v & 0x7000, 0x1000);
    smi.g1_op(G1Op::Stats, 0x1000).unwrap();
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);

    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_g1_busy(BusyDelay::stuck())
            .with_init_ready_at(None),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    let e = smi.wait_init_ready().unwrap_err();
    assert!(matches!(
        e,
        Error::Timeout(BusyTimeout {
            wait: BusyWait::InitReady,
            ..
        })
    ));
    let e = smi.g1_op(G1Op::Atu, 0x1000).unwrap_err();
    // The first ATU op checks BUSY first: the stuck model... starts idle, so the op
    // is written, then never completes.
    let Error::Timeout(t) = e else {
        panic!("{e:?}")
    };
    assert_eq!(t.wait, BusyWait::AtuOp);
    assert_ne!(t.last & BUSY, 0);
    // Each poll is an indirect read (3 frames); the wait still ends after ~50 ms.
    assert!(t.polls >= 2 && u64::from(t.polls) <= 50_000_000 / (3 * FRAME_NS) + 3);
}

#[test]
fn internal_phy_through_global2_is_an_mdio_bus() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6390, Attach::Indirect(2))
            .with_phy(PhyModel::bcm54612e(p(3)))
            .with_phy_busy(BusyDelay::fixed(60_000)),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6390);
    {
        let mut mdio = smi.internal_mdio();
        assert_eq!(mdio.read(p(3), r(2)).unwrap(), 0x0362);
        assert_eq!(mdio.read(p(3), r(3)).unwrap(), 0x5e6a);
        mdio.write(p(3), r(4), 0x01e1).unwrap();
        assert_eq!(mdio.read(p(3), r(4)).unwrap(), 0x01e1);
        assert_eq!(mdio.read(p(9), r(2)).unwrap(), 0xFFFF); // nobody there
    }
    // A PHY read: BUSY poll before the command, as Linux (3 frames), G2 CMD write (3),
    // BUSY polls (3 frames each; the first one's inner read reaches the switch 51.3 µs
    // after the command, before the 60 µs are up, so two polls), G2 DATA read (3): 15.
    let f0 = smi.frames();
    smi.phy_read(p(3), r(1)).unwrap();
    assert_eq!(smi.frames() - f0, 15);
    let _ = smi.release();
    let cmd_writes = sim
        .bus
        .log()
        .windows(2)
        .filter(|w| {
            w[0].write
                && w[0].reg.get() == 1
                && w[1].write
                && w[1].value & 0x03E0 == u16::from(0x1C_u8) << 5
        })
        .count();
    assert!(cmd_writes > 0);
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
    let _ = g2::SMI_PHY_CMD;
}

/// An MDIO bus that fails after `ok` frames.
struct Flaky<M> {
    inner: M,
    ok: u32,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BusFault;
impl<M: Mdio> Mdio for Flaky<M> {
    type Error = BusFault;
    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, BusFault> {
        if self.ok == 0 {
            return Err(BusFault);
        }
        self.ok -= 1;
        self.inner.read(phy, reg).map_err(|_| BusFault)
    }
    fn write(&mut self, phy: PhyAddr, reg: RegAddr, v: u16) -> Result<(), BusFault> {
        if self.ok == 0 {
            return Err(BusFault);
        }
        self.ok -= 1;
        self.inner.write(phy, reg, v).map_err(|_| BusFault)
    }
}

#[test]
fn mdio_errors_propagate_from_every_step() {
    for ok in 0..12 {
        let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
        let bus = Flaky {
            inner: &mut sim.bus,
            ok,
        };
        let r = Switch::new(
            bus,
            &sim.counter,
            Addressing::select(Family::Mv6085, 2).unwrap(),
            Chip::Mv6352,
            Config::new(),
        )
        .and_then(|mut s| {
            s.port_write(0, 1, 5)?;
            s.port_read(0, 1)?;
            s.phy_read(p(0), r(0))
        });
        match r {
            Err(Error::Mdio(BusFault)) => {}
            other => panic!("ok={ok}: {other:?}"),
        }
    }
}

#[test]
fn ports_that_would_alias_a_global_block_are_refused_before_any_frame() {
    // Port n is device port_base + n: one past the last port of a 6352 (7 ports from 0x10)
    // is not a port, and port 11 would be Global1 (0x1B), port 12 Global2; on the 6250
    // (7 ports from 0x08) port 7 would be its Global1 (0x0F).
    let cases: [(Chip, Attach, u8, &[u8]); 4] = [
        (Chip::Mv6352, Attach::Direct, 0, &[7, 11, 12, 15, 255]),
        (Chip::Mv6250, Attach::DualChip(16), 16, &[7, 8, 255]),
        // Not routed to pins (invalid-port masks): 6220 ports 2-4, 6361 ports 1, 2, 8.
        (Chip::Mv6220, Attach::DualChip(0), 0, &[2, 3, 4]),
        (Chip::Mv6361, Attach::Indirect(3), 3, &[1, 2, 8, 11]),
    ];
    for (chip, attach, sw_addr, bad) in cases {
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
        let mut smi = probe(&mut sim, sw_addr, chip.family());
        assert_eq!(smi.chip(), Some(chip));
        let f0 = smi.frames();
        for &port in bad {
            assert_eq!(
                smi.port_write(port, 0x04, 0xDEAD),
                Err(Error::Config(ConfigError::Port { port })),
                "{chip:?} port {port}"
            );
            assert_eq!(
                smi.port_read(port, 0x04),
                Err(Error::Config(ConfigError::Port { port })),
                "{chip:?} port {port}"
            );
        }
        assert_eq!(smi.frames(), f0, "{chip:?}: nothing may reach the bus");
        // Every valid port still works.
        let info = chip.info();
        for port in (0..info.num_ports).filter(|&p| chip.is_valid_port(p)) {
            smi.port_write(port, 0x04, u16::from(port)).unwrap();
        }
        let _ = smi.release();
        let model = sim.bus.device().chip(0).unwrap();
        assert_eq!(model.g1_reg(0x04), 0, "{chip:?}: Global1 CTL1 untouched");
        for port in (0..info.num_ports).filter(|&p| chip.is_valid_port(p)) {
            assert_eq!(
                model.port_reg(usize::from(port), 0x04),
                Some(u16::from(port))
            );
        }
    }
}

/// Regression, the minimal case the 10,000-case run of the property "never overwrites a
/// busy register" found (`tests/fuzz/`): a Global2 PHY read times out on a stuck BUSY,
/// then a raw write to Global2 register 0x18 (SMI_PHY_CMD) lands while it is still busy
/// and the switch drops it. The driver was wrong, not the property: a raw write into a unit
/// with a BUSY bit now waits for that BUSY, as the driver's own operations do.
#[test]
fn raw_write_to_a_stuck_smi_phy_cmd_waits_and_times_out_instead_of_being_dropped() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6250, Attach::DualChip(16)).with_phy_busy(BusyDelay::stuck()),
    );
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::DualChip { sw_addr: p(16) },
        Chip::Mv6250,
        Config::new().with_timeout_ns(2_000_000),
    )
    .unwrap();
    let Err(Error::Timeout(t)) = smi.phy_read(p(0), r(0)) else {
        panic!("the stuck PHY read must time out")
    };
    assert_eq!(t.wait, BusyWait::SmiPhyCmd);
    let f0 = smi.frames();
    // Global2 is device 0x07 on the 6250 family; register 0x18 is SMI_PHY_CMD.
    let e = smi.write(p(0x07), r(0x18), 0).unwrap_err();
    let Error::Timeout(t) = e else {
        panic!("{e:?}")
    };
    assert_eq!(t.wait, BusyWait::SmiPhyCmd);
    assert_eq!(t.bound, mv88e6xxx_smi::Bound::Deadline);
    // Only the polls of the wait reached the bus: nothing was written.
    assert_eq!(smi.frames() - f0, u64::from(t.polls));
    let e = smi.g2_write(g2::SMI_PHY_DATA, 0x1234).unwrap_err();
    assert!(matches!(
        e,
        Error::Timeout(BusyTimeout {
            wait: BusyWait::SmiPhyCmd,
            ..
        })
    ));
    let _ = smi.release();
    let model = sim.bus.device().chip(0).unwrap();
    assert_eq!(model.dropped_writes(), 0);
    assert!(
        sim.bus
            .log()
            .iter()
            .filter(|f| f.write)
            .all(|f| f.reg.get() != 0x18 || f.value & BUSY != 0)
    );
}

#[test]
fn raw_writes_that_start_an_operation_make_the_next_access_wait_first() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
            .with_g1_busy(BusyDelay::fixed(200_000))
            .with_phy_busy(BusyDelay::fixed(200_000))
            .with_phy(PhyModel::bcm54612e(p(1))),
    );
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    // Our own ATU op leaves ATU_OP known clear...
    smi.g1_op(G1Op::Atu, 0x1000).unwrap();
    // ...then the caller starts one by hand (BUSY set): 200 µs of BUSY.
    smi.g1_write(g1::ATU_OP, BUSY | 0x1000).unwrap();
    // The next operation polls first instead of trusting the stale "clear".
    smi.g1_op(G1Op::Atu, 0x1000).unwrap();
    // The same for the Global2 PHY unit: a hand-made read command, then a DATA write.
    smi.g2_write(
        g2::SMI_PHY_CMD,
        mv88e6xxx_smi::regs::smi_phy_cmd(mv88e6xxx_smi::regs::C22Op::Read, 1, 2),
    )
    .unwrap();
    smi.g2_write(g2::SMI_PHY_DATA, 0x0000).unwrap();
    assert_eq!(smi.phy_read(p(1), r(3)).unwrap(), 0x5e6a);
    // Not a sole bus master (the default): even a write that starts nothing polls
    // ATU_OP BUSY first.
    let f0 = smi.frames();
    smi.g1_write(g1::ATU_OP, 0x0000).unwrap();
    assert_eq!(smi.frames() - f0, 6, "one BUSY poll, one indirect write");
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
}

/// The internal PHYs of every chip are reached the way the chip needs (Linux's per-chip
/// ops): PPU-gated direct access for 6085/6095/6131/6185, direct access for 6165, Global2
/// SMI_PHY for the rest; tested on the model, where the PPU owns the PHY bus while it runs
/// and the PPU chips have no SMI_PHY unit.
#[test]
fn internal_phys_are_reached_per_chip_and_the_ppu_is_never_collided_with() {
    use mv88e6xxx_smi::PhyAccess;
    use mv88e6xxx_smi::regs::{PPU_ENABLE, PPU_STATE_POLLING};
    for &chip in Chip::ALL {
        for attach in [Attach::Direct, Attach::Indirect(3), Attach::DualChip(16)] {
            let sw_addr = match attach {
                Attach::Direct => 0,
                Attach::Indirect(a) | Attach::DualChip(a) => a,
            };
            let dual = chip.family() == Family::Mv6250;
            if dual != matches!(attach, Attach::DualChip(_)) {
                continue;
            }
            let phy_addr = chip.family().address_map().phy_base + 1;
            let phy = p(phy_addr);
            let mut sim =
                SwitchSim::single(ChipModel::new(chip, attach).with_phy(PhyModel::bcm54612e(phy)));
            let mut smi = probe(&mut sim, sw_addr, chip.family());
            assert_eq!(smi.chip(), Some(chip));
            let what = format!("{chip:?} {attach:?}");
            assert_eq!(smi.phy_read(phy, r(2)).unwrap(), 0x0362, "{what}");
            smi.phy_write(phy, r(4), 0x01e1).unwrap();
            assert_eq!(
                smi.internal_mdio().read(phy, r(4)).unwrap(),
                0x01e1,
                "{what}"
            );
            // Off the chip's PHY bus (phy_base + num_ports and beyond): refused, no frame.
            let f0 = smi.frames();
            let beyond = chip.family().address_map().phy_base + chip.info().num_ports;
            if let Some(off) = PhyAddr::new(beyond) {
                assert_eq!(
                    smi.phy_read(off, r(2)),
                    Err(Error::Config(ConfigError::Phy { phy: beyond })),
                    "{what}"
                );
                assert_eq!(smi.frames(), f0, "{what}");
            }
            smi.ppu_release().unwrap(); // end the PPU hold before giving the bus back
            let _ = smi.release();
            let now = sim.clock.now_ns();
            let model = sim.bus.device().chip(0).unwrap();
            assert_eq!(model.ppu_collisions(), 0, "{what}");
            assert_eq!(model.dropped_writes(), 0, "{what}");
            if chip.info().phy_access == PhyAccess::PpuGated {
                // The PPU was handed its bus back.
                assert_eq!(model.ppu_state(now), Some(PPU_STATE_POLLING), "{what}");
                assert_ne!(model.g1_reg(g1::CTL1) & PPU_ENABLE, 0, "{what}");
            }
        }
    }
}

#[test]
fn ppu_gated_phy_access_costs_and_failures() {
    use mv88e6xxx_smi::regs::{PPU_ENABLE, PPU_STATE_DISABLED, PPU_STATE_POLLING};
    let phy = p(2);
    let model =
        || ChipModel::new(Chip::Mv6185, Attach::Indirect(2)).with_phy(PhyModel::bcm54612e(phy));
    // PPU running: CTL1 read, CTL1 write, STS poll, PHY read, CTL1 write, STS poll: six
    // indirect accesses (the PPU changes state within one access, 20 µs).
    let mut sim = SwitchSim::single(model());
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    smi.set_ppu_hold(false).unwrap(); // the per-access mode (the hold: tests/driver/ppu_hold.rs)
    let f0 = smi.frames();
    assert_eq!(smi.phy_read(phy, r(3)).unwrap(), 0x5e6a);
    assert_eq!(smi.frames() - f0, 6 * 3);
    let _ = smi.release();
    let log: Vec<_> = sim
        .bus
        .log()
        .iter()
        .filter(|f| f.write && f.reg.get() == 0)
        .map(|f| f.value)
        .collect();
    let n = log.len();
    // The last three commands: CTL1 write (PPU off), ..., in order G1 CTL1, G1 STS, PHY 2 reg 3,
    // G1 CTL1, G1 STS.
    assert_eq!(
        &log[n - 5..],
        &[
            mv88e6xxx_smi::regs::smi_cmd(mv88e6xxx_smi::regs::C22Op::Write, 0x1B, 0x04),
            mv88e6xxx_smi::regs::smi_cmd(mv88e6xxx_smi::regs::C22Op::Read, 0x1B, 0x00),
            mv88e6xxx_smi::regs::smi_cmd(mv88e6xxx_smi::regs::C22Op::Read, 0x02, 0x03),
            mv88e6xxx_smi::regs::smi_cmd(mv88e6xxx_smi::regs::C22Op::Write, 0x1B, 0x04),
            mv88e6xxx_smi::regs::smi_cmd(mv88e6xxx_smi::regs::C22Op::Read, 0x1B, 0x00),
        ]
    );
    let now = sim.clock.now_ns();
    assert_eq!(
        sim.bus.device().chip(0).unwrap().ppu_state(now),
        Some(PPU_STATE_POLLING)
    );

    // PPU disabled at reset: it is left alone (CTL1 read, one STS read showing it idle,
    // PHY read).
    let mut sim = SwitchSim::single(model().with_ppu_enabled(false));
    let mut smi = probe(&mut sim, 2, Family::Mv6085);
    let f0 = smi.frames();
    assert_eq!(smi.phy_read(phy, r(2)).unwrap(), 0x0362);
    assert_eq!(smi.frames() - f0, 3 * 3);
    let _ = smi.release();
    let now = sim.clock.now_ns();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(m.ppu_state(now), Some(PPU_STATE_DISABLED));
    assert_eq!(m.g1_reg(g1::CTL1) & PPU_ENABLE, 0);

    // A PPU that never stops: a typed timeout, the PHY is never touched, PPU_ENABLE is
    // written back.
    let mut sim = SwitchSim::single(model().with_ppu_busy(BusyDelay::stuck()));
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(Family::Mv6085, 2).unwrap(),
        Chip::Mv6185,
        Config::new().with_timeout_ns(1_000_000),
    )
    .unwrap();
    let e = smi.phy_write(phy, r(4), 0x1234).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Timeout(BusyTimeout {
                wait: BusyWait::PpuDisabled,
                ..
            })
        ),
        "{e:?}"
    );
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(m.ppu_collisions(), 0);
    assert_ne!(m.g1_reg(g1::CTL1) & PPU_ENABLE, 0);
}

/// Regression, found by the 10,000-case property run after the PPU-gated access landed: the
/// caller clears PPU_ENABLE by hand (a raw G1_CTL1 write) and reads a PHY at once, while
/// the PPU is still stopping (76.8 µs here). PPU_ENABLE clear does not mean the bus is free:
/// the driver waits for the PPU state to leave "polling" first.
#[test]
fn phy_access_right_after_a_raw_ppu_disable_waits_for_the_ppu_to_stop() {
    let phy = p(2);
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Direct)
            .with_phy(PhyModel::bcm54612e(phy))
            .with_ppu_busy(BusyDelay::fixed(76_801)),
    );
    let mut smi = probe(&mut sim, 0, Family::Mv6085);
    smi.write(p(0x1B), r(g1::CTL1), 0).unwrap(); // PPU_ENABLE cleared by hand
    assert_eq!(smi.phy_read(phy, r(2)).unwrap(), 0x0362);
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().ppu_collisions(), 0);
}

/// Linux `mv88e6xxx_single_chip_detect` (chip.c): at MDIO address 16 a multi-chip family
/// switch may be strapped single-chip (its port 0 answering at 16, e.g. a 6341): the
/// probe tries direct addressing first, then SMI_CMD at 16.
#[test]
fn probe_at_16_finds_a_single_chip_switch_first() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6341, Attach::Direct).with_revision(2));
    let (mut smi, id) = Switch::probe(
        &mut sim.bus,
        &sim.counter,
        16,
        Family::Mv6341,
        Config::new(),
    )
    .unwrap();
    assert_eq!((id.chip, id.revision), (Chip::Mv6341, 2));
    assert_eq!(smi.addressing(), Addressing::Direct);
    // Direct access: one frame per register.
    let f0 = smi.frames();
    smi.port_read(1, 0x04).unwrap();
    assert_eq!(smi.frames() - f0, 1);
    let _ = smi.release();
    // A switch strapped multi-chip at 16 is still found, through SMI_CMD.
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6341, Attach::Indirect(16)));
    let (smi, id) = Switch::probe(
        &mut sim.bus,
        &sim.counter,
        16,
        Family::Mv6341,
        Config::new(),
    )
    .unwrap();
    assert_eq!(id.chip, Chip::Mv6341);
    assert!(
        matches!(smi.addressing(), Addressing::Indirect { sw_addr, .. } if sw_addr.get() == 16)
    );
    let _ = smi.release();
    // Another address is never tried single-chip (Linux checks for 16 only).
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6341, Attach::Direct));
    assert!(
        Switch::probe(
            &mut sim.bus,
            &sim.counter,
            17,
            Family::Mv6341,
            Config::new()
        )
        .is_err()
    );
}
