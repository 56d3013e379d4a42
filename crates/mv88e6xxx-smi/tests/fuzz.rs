//! Property tests: whatever the bus reads back and however the busy bits behave, the
//! driver never panics, every operation ends within the number of frames its deadline
//! implies, it never writes to a register whose BUSY bit is set, and it never touches a
//! PHY while the PHY polling unit owns the PHY bus.

use hwtimer_core::sim::{SimClock, SimCounter};
use mdio_bus::sim::{MdioDevice, SimMdio};
use mdio_bus::{PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SwitchSim};
use mv88e6xxx_smi::{Addressing, Config, ConfigError, Error, G1Op, Smi, regs};
use proptest::prelude::*;

/// A device that answers every read with the next value of an arbitrary sequence.
struct Arbitrary {
    values: Vec<u16>,
    i: usize,
}

impl MdioDevice for Arbitrary {
    fn read(&mut self, _now: u64, _phy: PhyAddr, _reg: RegAddr) -> u16 {
        let v = self.values[self.i % self.values.len()];
        self.i += 1;
        v
    }
    fn write(&mut self, _now: u64, _phy: PhyAddr, _reg: RegAddr, _value: u16) {}
}

const TIMEOUT_NS: u64 = 2_000_000;

/// Frames one operation may take at most, from the deadline: a wait on single frames
/// polls at most T/F + 3 times; an indirect access is 2 frames plus at most two such waits
/// (the pre-check after a failure); a wait whose polls are indirect reads (each ≥ 3
/// frames long) polls at most T/3F + 3 times; an internal PHY access is two of those waits
/// plus three register accesses (Global2) or four (PPU-gated: G1_CTL1 read and write, the
/// PHY access, G1_CTL1 write); a raw write to a busy unit is one wait and one access; a
/// `wait_mask` on a PPU-gated PHY is three waits (PPU stop, the wait, PPU restart) and
/// three accesses.
fn max_frames_per_op() -> u64 {
    let w1 = TIMEOUT_NS / FRAME_NS + 3;
    let access = 2 + 2 * w1;
    let w2 = (TIMEOUT_NS / (3 * FRAME_NS) + 3) * access;
    3 * w2 + 4 * access
}

#[derive(Debug, Clone)]
enum Op {
    Read(u8, u8),
    Write(u8, u8, u16),
    WaitMask(u8, u8, u16, u16),
    G1(u8, u16),
    PhyRead(u8, u8),
    PhyWrite(u8, u8, u16),
    /// A raw write to a register of a unit with a BUSY bit: G1 ATU/VTU/STATS op, G2
    /// SMI_PHY_CMD / SMI_PHY_DATA.
    BusyUnitWrite(u8, u16),
    Identify,
    InitReady,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..32, 0u8..32).prop_map(|(d, r)| Op::Read(d, r)),
        (0u8..32, 0u8..32, any::<u16>()).prop_map(|(d, r, v)| Op::Write(d, r, v)),
        (0u8..32, 0u8..32, any::<u16>(), any::<u16>())
            .prop_map(|(d, r, m, v)| Op::WaitMask(d, r, m, v)),
        (0u8..3, any::<u16>()).prop_map(|(k, v)| Op::G1(k, v)),
        (0u8..32, 0u8..32).prop_map(|(p, r)| Op::PhyRead(p, r)),
        (0u8..32, 0u8..32, any::<u16>()).prop_map(|(p, r, v)| Op::PhyWrite(p, r, v)),
        (0u8..5, any::<u16>()).prop_map(|(k, v)| Op::BusyUnitWrite(k, v)),
        Just(Op::Identify),
        Just(Op::InitReady),
    ]
}

fn run<M: mdio_bus::Mdio>(smi: &mut Smi<M, &SimCounter>, op: &Op) -> Result<(), Error<M::Error>> {
    let (pa, ra) = (PhyAddr::from_bits, RegAddr::from_bits);
    match *op {
        Op::Read(d, r) => smi.read(pa(d), ra(r)).map(drop),
        Op::Write(d, r, v) => smi.write(pa(d), ra(r), v),
        Op::WaitMask(d, r, m, v) => smi.wait_mask(pa(d), ra(r), m, v).map(drop),
        Op::G1(k, v) => {
            let k = [G1Op::Atu, G1Op::Vtu, G1Op::Stats][usize::from(k % 3)];
            smi.g1_op(k, v).map(drop)
        }
        Op::PhyRead(p, r) => smi.phy_read(pa(p), ra(r)).map(drop),
        Op::PhyWrite(p, r, v) => smi.phy_write(pa(p), ra(r), v),
        Op::BusyUnitWrite(k, v) => match k % 5 {
            0 => smi.g1_write(regs::g1::ATU_OP, v),
            1 => smi.g1_write(regs::g1::VTU_OP, v),
            2 => smi.g1_write(regs::g1::STATS_OP, v),
            3 => smi.g2_write(regs::g2::SMI_PHY_CMD, v),
            _ => smi.g2_write(regs::g2::SMI_PHY_DATA, v),
        },
        Op::Identify => smi.identify().map(drop),
        Op::InitReady => smi.wait_init_ready().map(drop),
    }
}

/// The addressing modes and PHY access kinds: Global2 PHYs (6352, 6393X, 6250), PPU-gated
/// PHYs (6185, 6085) and direct PHYs (6165).
const MODES: u8 = 7;

fn addressing(mode: u8, sw: u8) -> (Addressing, Chip) {
    let sw = PhyAddr::from_bits(sw.max(1));
    let indirect = Addressing::Indirect {
        sw_addr: sw,
        remap_6393x: false,
    };
    match mode % MODES {
        0 => (Addressing::Direct, Chip::Mv6352),
        1 => (indirect, Chip::Mv6352),
        2 => (
            Addressing::Indirect {
                sw_addr: sw,
                remap_6393x: true,
            },
            Chip::Mv6393X,
        ),
        3 => (
            Addressing::DualChip {
                sw_addr: PhyAddr::from_bits(16),
            },
            Chip::Mv6250,
        ),
        4 => (Addressing::Direct, Chip::Mv6185),
        5 => (indirect, Chip::Mv6085),
        _ => (indirect, Chip::Mv6165),
    }
}

fn busy(kind: u8, ns: u64) -> BusyDelay {
    match kind % 4 {
        0 => BusyDelay::fixed(ns),
        1 => BusyDelay::cycle(&[ns / 3, ns, 0]),
        2 => BusyDelay::stuck(),
        _ => BusyDelay::fixed(0),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(64)))]

    #[test]
    fn arbitrary_read_backs_never_panic_and_stay_bounded(
        values in prop::collection::vec(any::<u16>(), 1..16),
        mode in 0u8..MODES,
        sw in 1u8..32,
        ops in prop::collection::vec(op(), 1..12),
    ) {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(100);
        let mut bus = SimMdio::new(&clock, 2_500_000, Arbitrary { values, i: 0 });
        let (a, chip) = addressing(mode, sw);
        let config = Config::new().with_timeout_ns(TIMEOUT_NS);
        let Ok(mut smi) = Smi::new(&mut bus, &counter, a, chip, config) else {
            return Ok(()); // the initial BUSY check timed out: fine, and bounded
        };
        for op in &ops {
            let f0 = smi.frames();
            let _ = run(&mut smi, op);
            prop_assert!(smi.frames() - f0 <= max_frames_per_op(), "{op:?}: {}", smi.frames() - f0);
        }
    }

    #[test]
    fn arbitrary_busy_behaviour_is_bounded_and_never_overwrites_a_busy_register(
        smi_busy in (0u8..4, 0u64..200_000),
        g1_busy in (0u8..4, 0u64..200_000),
        phy_busy in (0u8..4, 0u64..200_000),
        ppu_busy in (0u8..4, 0u64..200_000),
        init_at in prop::option::of(0u64..3_000_000),
        mode in 0u8..MODES,
        ops in prop::collection::vec(op(), 1..10),
    ) {
        let (a, chip) = addressing(mode, 4);
        let attach = match a {
            Addressing::Direct => Attach::Direct,
            Addressing::Indirect { sw_addr, .. } => Attach::Indirect(sw_addr.get()),
            Addressing::DualChip { sw_addr } => Attach::DualChip(sw_addr.get()),
        };
        let mut sim = SwitchSim::single(
            ChipModel::new(chip, attach)
                .with_smi_busy(busy(smi_busy.0, smi_busy.1))
                .with_g1_busy(busy(g1_busy.0, g1_busy.1))
                .with_phy_busy(busy(phy_busy.0, phy_busy.1))
                .with_ppu_busy(busy(ppu_busy.0, ppu_busy.1))
                .with_init_ready_at(init_at)
                .with_phy(PhyModel::bcm54612e(PhyAddr::from_bits(1))),
        );
        let config = Config::new().with_timeout_ns(TIMEOUT_NS);
        let mut smi = Smi::new(&mut sim.bus, &sim.counter, a, chip, config).unwrap();
        for op in &ops {
            let f0 = smi.frames();
            match run(&mut smi, op) {
                Ok(())
                | Err(Error::Timeout(_))
                | Err(Error::UnknownSwitchId { .. })
                | Err(Error::Config(
                    ConfigError::Device { .. } | ConfigError::Phy { .. } | ConfigError::Port { .. },
                )) => {}
                Err(e) => prop_assert!(false, "{op:?}: {e:?}"),
            }
            prop_assert!(smi.frames() - f0 <= max_frames_per_op());
        }
        let _ = smi.release();
        let model = sim.bus.device().chip(0).unwrap();
        prop_assert_eq!(model.dropped_writes(), 0);
        prop_assert_eq!(model.ppu_collisions(), 0);
    }
}
