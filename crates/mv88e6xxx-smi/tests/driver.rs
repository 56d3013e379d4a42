//! The driver against the behavioural model: every addressing mode, identification, the
//! bounded waits (success, stuck BUSY, MDIO errors) and internal PHY access.

use core::convert::Infallible;

use hwtimer_core::sim::SimCounter;
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::regs::{BUSY, INIT_READY, g1, g2};
use mv88e6xxx_smi::sim::{
    Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SwitchModel, SwitchSim,
};
use mv88e6xxx_smi::{Addressing, BusyWait, Config, Error, G1Op, Smi};

type SimSmi<'a> = Smi<&'a mut mdio_bus::sim::SimMdio<SwitchModel>, &'a SimCounter>;

fn p(a: u8) -> PhyAddr {
    PhyAddr::new(a).unwrap()
}
fn r(a: u8) -> RegAddr {
    RegAddr::new(a).unwrap()
}

fn probe(sim: &mut SwitchSim, sw_addr: u8, hint: Family) -> SimSmi<'_> {
    Smi::probe(&mut sim.bus, &sim.counter, sw_addr, hint, Config::new())
        .unwrap()
        .0
}

#[test]
fn direct_mode_is_one_frame_per_register() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Direct).with_revision(3));
    let (mut smi, id) =
        Smi::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6085, Config::new()).unwrap();
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
    let mut smi = Smi::new(
        &mut sim.bus,
        &sim.counter,
        addressing,
        Family::Mv6085,
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
    let smi = Smi::new(
        &mut sim.bus,
        &sim.counter,
        Addressing::select(Family::Mv6085, 2).unwrap(),
        Family::Mv6085,
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
    let (mut smi, id) = Smi::probe(
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
        Err(Error::AddressOutOfRange { dev: 16 })
    );
    assert_eq!(
        smi.port_read(8, 0),
        Err(Error::AddressOutOfRange { dev: 16 })
    );
    let _ = smi.release();
    let log = sim.bus.log();
    assert_eq!(log[0].phy.get(), 16 + 0x08); // PORT_SWITCH_ID at port_base 0x08
    assert_eq!(log[1].phy.get(), 16 + 0x0F); // Global1 at 0x0F
    assert_eq!(sim.bus.device().chip(0).unwrap().g1_reg(g1::CTL2), 0x0055);
}

#[test]
fn addressing_validation() {
    assert_eq!(
        Addressing::select(Family::Mv6085, 0),
        Some(Addressing::Direct)
    );
    assert_eq!(Addressing::select(Family::Mv6250, 3), None);
    assert_eq!(Addressing::select(Family::Mv6085, 32), None);
    assert_eq!(
        Addressing::select(Family::Mv6393, 5),
        Some(Addressing::Indirect {
            sw_addr: p(5),
            remap_6393x: true
        })
    );
    let _: Option<Error<Infallible>> = None;
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6097, Attach::Indirect(2)));
    let bad = Addressing::Indirect {
        sw_addr: p(2),
        remap_6393x: true,
    };
    assert!(matches!(
        Smi::new(
            &mut sim.bus,
            &sim.counter,
            bad,
            Family::Mv6085,
            Config::new()
        ),
        Err(Error::InvalidConfig)
    ));
    let bad = Addressing::Indirect {
        sw_addr: p(0),
        remap_6393x: false,
    };
    assert!(matches!(
        Smi::new(
            &mut sim.bus,
            &sim.counter,
            bad,
            Family::Mv6085,
            Config::new()
        ),
        Err(Error::InvalidConfig)
    ));
}

#[test]
fn unknown_or_absent_switch_is_a_typed_error() {
    let mut sim = SwitchSim::new(SwitchModel::new()); // empty bus reads 0xFFFF
    let e = Smi::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6085, Config::new()).unwrap_err();
    assert_eq!(e, Error::UnknownSwitchId { raw: 0xFFFF });
    // Indirect on an empty bus: SMI_CMD reads 0xFFFF = BUSY forever → bounded timeout.
    let e = Smi::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap_err();
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
fn probe_6393x_enables_the_remap() {
    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6393X, Attach::Indirect(6)));
    // The device tree says "marvell,mv88e6190"; the chip turns out to be a 6393X.
    let (mut smi, id) =
        Smi::probe(&mut sim.bus, &sim.counter, 6, Family::Mv6390, Config::new()).unwrap();
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
    // The second op needs no pre-check.
    smi.g1_op(G1Op::Atu, 0x1000).unwrap();
    assert_eq!(smi.frames() - f0, 9);
    let _ = smi.release();
    let log = sim.bus.log();
    let n = log.len();
    assert_eq!((log[n - 2].reg.get(), log[n - 2].value), (0x0B, 0x9000));
    assert_eq!(sim.bus.device().chip(0).unwrap().g1_reg(g1::CTL2), 7);
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
    // A PHY read: G2 CMD write (3 frames), BUSY polls (3 frames each; the first one's
    // inner read reaches the switch 51.3 µs after the command, before the 60 µs are up,
    // so two polls), G2 DATA read (3): 12.
    let f0 = smi.frames();
    smi.phy_read(p(3), r(1)).unwrap();
    assert_eq!(smi.frames() - f0, 12);
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
        let r = Smi::new(
            bus,
            &sim.counter,
            Addressing::select(Family::Mv6085, 2).unwrap(),
            Family::Mv6085,
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
