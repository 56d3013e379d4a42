//! Property tests: whatever the bus reads back and however the busy bits behave, the
//! driver never panics, every operation ends within the number of frames its deadline
//! implies, it never writes to a register whose BUSY bit is set, and it never touches a
//! PHY while the PHY polling unit owns the PHY bus. The operations are the register layer's
//! and the switch units' (ATU, VTU/STU, per-port VLAN, MIB, ports, interrupts, Clause 45 and
//! SERDES, the PPU hold), with arguments in and out of range; a refusal (a typed
//! `ConfigError`) sends no frame, and a walk (`atu_for_each`, `vtu_for_each`) reports at
//! most its own cap of entries. Default 64 cases per property; `PROPTEST_CASES` overrides.

use std::cell::RefCell;
use std::rc::Rc;

use hwtimer_core::sim::{SimClock, SimCounter};
use mdio_bus::DevAddr;
use mdio_bus::sim::{MdioDevice, SimMdio};
use mdio_bus::{PhyAddr, RegAddr};
use mv88e6xxx_smi::atu::{AtuEntry, AtuFlush, AtuState, MacAddr};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::irq::{G1IrqSet, PortSet};
use mv88e6xxx_smi::port::{
    Duplex, EgressMode, ForcedLink, FrameMode, MirrorDirection, PortState, RgmiiDelay, Speed,
};
use mv88e6xxx_smi::sim::{
    Attach, BusyDelay, ChipModel, FRAME_NS, PhyModel, SIM_COUNTER_HZ, SIM_COUNTER_READ_NS,
    SIM_MDC_HZ, SwitchModel,
};
use mv88e6xxx_smi::stats::{Counter, HistogramMode, Mib};
use mv88e6xxx_smi::vtu::{Dot1qMode, Member, StuEntry, StuState, VtuEntry};
use mv88e6xxx_smi::{Addressing, Config, Error, G1Op, Switch, regs};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

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

/// Bound of one bounded wait, in frames: as in [`max_frames_per_op`], a wait whose polls
/// are register reads, each at most one indirect access.
fn wait_frames() -> u64 {
    let w1 = TIMEOUT_NS / FRAME_NS + 3;
    let access = 2 + 2 * w1;
    (TIMEOUT_NS / (3 * FRAME_NS) + 3) * access
}

/// Bound of one register access (not a poll), in frames: 2 frames plus at most two
/// SMI_CMD waits of single frames (the pre-check after a failure, the wait after).
fn access_frames() -> u64 {
    2 + 2 * (TIMEOUT_NS / FRAME_NS + 3)
}

/// The worst path of one switch-unit operation, read from its code in `src/`: how many
/// bounded waits and how many register accesses outside those waits it makes.
#[derive(Debug, Clone, Copy)]
struct Cost {
    waits: u64,
    accesses: u64,
}

const fn cost(waits: u64, accesses: u64) -> Cost {
    Cost { waits, accesses }
}

impl Cost {
    /// `n` times this cost.
    const fn times(self, n: u64) -> Cost {
        cost(self.waits * n, self.accesses * n)
    }
    const fn plus(self, o: Cost) -> Cost {
        cost(self.waits + o.waits, self.accesses + o.accesses)
    }
    /// The frame bound: every wait at most [`wait_frames`], every access at most
    /// [`access_frames`], plus one PPU restart (one G1_CTL1 write, one "polling" wait)
    /// that the first register access of any operation makes when a PPU hold has expired
    /// (PPU-gated chips; nothing else in these operations starts a hold: their PHY
    /// accesses are refused on chips without Global2 PHY access).
    fn frames(self) -> u64 {
        (self.waits + 1) * wait_frames() + (self.accesses + 1) * access_frames()
    }
}

/// The worst-path cost of the operations the new units are made of:
/// - `g1_op`: a pre-check wait (when BUSY is not known clear), the op write, the wait;
/// - a Global2 PHY access: a pre-check wait, one or two accesses, the SMI_PHY wait.
const G1_OP: Cost = cost(2, 1);
const G2_PHY: Cost = cost(2, 2);
/// One GetNext step of the ATU walk: the FID (at most 2 accesses: G1_ATU_CTL read and
/// write), the op, G1_ATU_DATA and the three MAC registers.
const ATU_STEP: Cost = G1_OP.plus(cost(0, 2 + 1 + 3));
/// The ATU walk's own cap: at most 65 536 GetNext operations (`atu_for_each`'s rustdoc).
const ATU_WALK_CAP: u64 = 65_536;
/// One GetNext step of the VTU walk: the op, G1_VTU_VID, at most 3 data registers,
/// G1_VTU_FID and G1_VTU_SID.
const VTU_STEP: Cost = G1_OP.plus(cost(0, 1 + 3 + 2));
/// The VTU walk's own cap: at most 8 192 GetNext operations (`vtu_for_each`'s rustdoc).
const VTU_WALK_CAP: u64 = 8_192;
/// The most ports any chip of the table has (each port loop is bounded by it).
const MAX_PORTS: u64 = 16;

/// Counter slots a snapshot reads: one `read_index` per 32-bit half.
fn mib_slots() -> u64 {
    Counter::ALL
        .iter()
        .map(|c| if c.is_wide() { 2 } else { 1 })
        .sum()
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
    /// Virtual time passes with no access (lets a PPU hold expire).
    Idle(u64),
    // ---- ATU (fid, MAC, port vector, state code, flush kind; in and out of range)
    AtuLoad(u16, [u8; 6], u16, u8),
    AtuPurge(u16, [u8; 6]),
    AtuFlush(bool, Option<u16>),
    AtuRemovePort(u8, bool, Option<u16>),
    AtuGetNext(u16, [u8; 6]),
    AtuForEach(u16),
    AtuAgeTime(u32),
    // ---- VTU / STU and per-port VLAN
    VtuLoad(u16, u16, u8, [u8; 11]),
    VtuPurge(u16),
    VtuFlush,
    VtuGetNext(u16),
    VtuForEach,
    StuLoad(u8, [u8; 11]),
    StuGetNext(u8),
    PortDefaultVid(u8, Option<u16>),
    Port8021q(u8, Option<u8>),
    // ---- MIB (histogram mode, port, counter index)
    MibSetup(u8),
    MibSetHistogram(u8),
    MibCapture(u8, u8),
    MibReadCaptured(u8, u8),
    MibSnapshot(u8, u8),
    MibFlushAll(u8),
    MibFlushPort(u8, u8),
    // ---- ports
    PortSetState(u8, u8),
    PortState(u8),
    PortFrameMode(u8, u8),
    PortEgressMode(u8, u8),
    PortFlood(u8, bool, bool),
    PortForcedLink(u8, u8),
    PortSpeedDuplex(u8, u8, u8),
    PortRgmiiDelay(u8, bool, bool),
    PortLinkStatus(u8),
    SetCpuPort(u8),
    SetMirrorPort(bool, u8),
    SoftwareReset,
    AfterHardwareReset,
    // ---- interrupts
    G1IrqEnable(u16),
    G1IrqStatus,
    G1IrqPending,
    LinkIrqEnable(u16),
    PhyIrqSource,
    LinkChangedPorts,
    // ---- Clause 45, SERDES, PPU hold
    PhyReadC45(u8, u8, u16),
    PhyWriteC45(u8, u8, u16, u16),
    SerdesRead(u8, u16),
    SerdesWrite(u8, u16, u16),
    Service,
    PpuRelease,
    SetPpuHold(bool),
}

impl Op {
    /// Frames this operation may take at most. The operations of the register layer keep
    /// [`max_frames_per_op`]; the others their [`Cost`], from their code (`src/atu.rs`,
    /// `vtu.rs`, `stats.rs`, `port.rs`, `irq.rs`, `c45.rs`, `smi.rs`).
    fn max_frames(&self) -> u64 {
        use Op::*;
        let c = match self {
            Read(..) | Write(..) | WaitMask(..) | G1(..) | PhyRead(..) | PhyWrite(..)
            | BusyUnitWrite(..) | Identify | InitReady => return max_frames_per_op(),
            Idle(_) => return 0,
            // unit idle wait, MAC ×3, DATA, FID ≤ 2, op
            AtuLoad(..) | AtuPurge(..) => cost(1, 6).plus(G1_OP),
            // unit idle wait, DATA, FID ≤ 2, op
            AtuFlush(..) | AtuRemovePort(..) => cost(1, 3).plus(G1_OP),
            // unit idle wait, MAC ×3, then one step
            AtuGetNext(..) => cost(1, 3).plus(ATU_STEP),
            AtuForEach(_) => cost(1, 3).plus(ATU_STEP.times(ATU_WALK_CAP)),
            // ATU_CTL read and write
            AtuAgeTime(_) => cost(0, 2),
            // unit idle wait, VID, data ≤ 3, FID, SID, op
            VtuLoad(..) => cost(1, 6).plus(G1_OP),
            VtuPurge(_) => cost(1, 1).plus(G1_OP),
            VtuFlush => G1_OP,
            VtuGetNext(_) => cost(1, 1).plus(VTU_STEP),
            VtuForEach => cost(1, 1).plus(VTU_STEP.times(VTU_WALK_CAP)),
            // unit idle wait, VID, SID, data ≤ 3, op
            StuLoad(..) => cost(1, 5).plus(G1_OP),
            // unit idle wait, SID, op, VID, SID, data ≤ 3
            StuGetNext(_) => cost(1, 6).plus(G1_OP),
            PortDefaultVid(..) | Port8021q(..) => cost(0, 2),
            // histogram: a STATS_OP raw write (its BUSY wait, the write) or CTL2 read and
            // write; then the flush op
            MibSetup(_) => cost(1, 2).plus(G1_OP),
            MibSetHistogram(_) => cost(1, 2),
            MibCapture(..) | MibFlushAll(_) | MibFlushPort(..) => G1_OP,
            // at most two halves: op, COUNTER_32, COUNTER_01 each
            MibReadCaptured(..) => G1_OP.plus(cost(0, 2)).times(2),
            MibSnapshot(..) => G1_OP.plus(G1_OP.plus(cost(0, 2)).times(mib_slots())),
            // a read-modify-write, two for the 6185-style flood
            PortSetState(..) | PortFrameMode(..) | PortEgressMode(..) | PortForcedLink(..)
            | PortSpeedDuplex(..) | PortRgmiiDelay(..) | PortFlood(..) => cost(0, 4),
            PortState(_) | PortLinkStatus(_) => cost(0, 1),
            // the Global1 register, then a read-modify-write per port
            SetCpuPort(_) => cost(0, 2 + 2 * MAX_PORTS),
            SetMirrorPort(..) => cost(0, 2 + MAX_PORTS),
            // CTL1 read and write, INIT_READY wait, PPU state wait
            SoftwareReset => cost(2, 2),
            AfterHardwareReset => cost(1, 0),
            G1IrqEnable(_) | G1IrqPending => cost(0, 2),
            G1IrqStatus | PhyIrqSource => cost(0, 1),
            // per port a PHY read and write, then G2_INT_MASK
            LinkIrqEnable(_) => G2_PHY.times(2 * MAX_PORTS).plus(cost(0, 1)),
            // G2_INT_SRC, then a PHY read per port
            LinkChangedPorts => G2_PHY.times(MAX_PORTS).plus(cost(0, 1)),
            // address frame (pre-check, DATA, CMD, wait), data frame (pre-check, CMD and
            // DATA, wait)
            PhyReadC45(..) | PhyWriteC45(..) | SerdesRead(..) | SerdesWrite(..) => cost(4, 4),
            // a PPU restart (counted by `frames`' spare)
            Service | PpuRelease | SetPpuHold(_) => cost(0, 0),
        };
        c.frames()
    }

    /// The walk's own cap on the entries it may report.
    fn walk_cap(&self) -> Option<usize> {
        match self {
            Op::AtuForEach(_) => Some(ATU_WALK_CAP as usize),
            Op::VtuForEach => Some(VTU_WALK_CAP as usize),
            _ => None,
        }
    }
}

fn mac() -> impl Strategy<Value = [u8; 6]> {
    prop_oneof![
        any::<[u8; 6]>(),
        Just([0xFF; 6]),
        Just([0x01, 0x00, 0x5E, 0, 0, 1]),
        Just([0x02, 0, 0, 0, 0, 1]),
    ]
}

/// FIDs and VIDs around every chip's limits (16, 64, 256, 4096 databases; 4095 / 8191).
fn id() -> impl Strategy<Value = u16> {
    prop_oneof![
        0u16..20,
        60u16..70,
        250u16..260,
        4090u16..4100,
        8185u16..8200,
        any::<u16>()
    ]
}

fn port() -> impl Strategy<Value = u8> {
    prop_oneof![0u8..12, any::<u8>()]
}

/// Port vectors: mostly within the low ports every chip has, sometimes any.
fn ports() -> impl Strategy<Value = u16> {
    prop_oneof![3 => 0u16..0x20, 1 => any::<u16>()]
}

/// Member codes (2 bits each) for 11 ports; the ports outside `mask` non-members.
fn member_codes() -> impl Strategy<Value = [u8; 11]> {
    (any::<[u8; 11]>(), ports()).prop_map(|(mut c, mask)| {
        for (i, c) in c.iter_mut().enumerate() {
            if mask & (1 << i) == 0 {
                *c = 3;
            }
        }
        c
    })
}

fn base_op() -> impl Strategy<Value = Op> {
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
        (0u64..25_000_000).prop_map(Op::Idle),
    ]
}

fn atu_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (id(), mac(), ports(), 0u8..24).prop_map(|(f, m, p, s)| Op::AtuLoad(f, m, p, s)),
        (id(), mac()).prop_map(|(f, m)| Op::AtuPurge(f, m)),
        (any::<bool>(), prop::option::of(id())).prop_map(|(a, f)| Op::AtuFlush(a, f)),
        (port(), any::<bool>(), prop::option::of(id()))
            .prop_map(|(p, a, f)| Op::AtuRemovePort(p, a, f)),
        (id(), mac()).prop_map(|(f, m)| Op::AtuGetNext(f, m)),
        id().prop_map(Op::AtuForEach),
        prop_oneof![0u32..20_000, 15_000u32..4_000_000, any::<u32>()].prop_map(Op::AtuAgeTime),
    ]
}

fn vtu_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (id(), id(), 0u8..70, member_codes()).prop_map(|(v, f, s, m)| Op::VtuLoad(v, f, s, m)),
        id().prop_map(Op::VtuPurge),
        Just(Op::VtuFlush),
        id().prop_map(Op::VtuGetNext),
        Just(Op::VtuForEach),
        (0u8..70, any::<[u8; 11]>()).prop_map(|(s, st)| Op::StuLoad(s, st)),
        (0u8..70).prop_map(Op::StuGetNext),
        (port(), prop::option::of(id())).prop_map(|(p, v)| Op::PortDefaultVid(p, v)),
        (port(), prop::option::of(0u8..4)).prop_map(|(p, m)| Op::Port8021q(p, m)),
    ]
}

fn mib_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3).prop_map(Op::MibSetup),
        (0u8..3).prop_map(Op::MibSetHistogram),
        (0u8..3, port()).prop_map(|(m, p)| Op::MibCapture(m, p)),
        (0u8..3, 0u8..30).prop_map(|(m, c)| Op::MibReadCaptured(m, c)),
        (0u8..3, port()).prop_map(|(m, p)| Op::MibSnapshot(m, p)),
        (0u8..3).prop_map(Op::MibFlushAll),
        (0u8..3, port()).prop_map(|(m, p)| Op::MibFlushPort(m, p)),
    ]
}

fn port_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (port(), 0u8..4).prop_map(|(p, s)| Op::PortSetState(p, s)),
        port().prop_map(Op::PortState),
        (port(), 0u8..4).prop_map(|(p, m)| Op::PortFrameMode(p, m)),
        (port(), 0u8..4).prop_map(|(p, m)| Op::PortEgressMode(p, m)),
        (port(), any::<bool>(), any::<bool>()).prop_map(|(p, u, m)| Op::PortFlood(p, u, m)),
        (port(), 0u8..3).prop_map(|(p, l)| Op::PortForcedLink(p, l)),
        (port(), 0u8..8, 0u8..3).prop_map(|(p, s, d)| Op::PortSpeedDuplex(p, s, d)),
        (port(), any::<bool>(), any::<bool>()).prop_map(|(p, r, t)| Op::PortRgmiiDelay(p, r, t)),
        port().prop_map(Op::PortLinkStatus),
        port().prop_map(Op::SetCpuPort),
    ]
}

fn misc_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<bool>(), port()).prop_map(|(i, p)| Op::SetMirrorPort(i, p)),
        Just(Op::SoftwareReset),
        Just(Op::AfterHardwareReset),
        any::<u16>().prop_map(Op::G1IrqEnable),
        Just(Op::G1IrqStatus),
        Just(Op::G1IrqPending),
        ports().prop_map(Op::LinkIrqEnable),
        Just(Op::PhyIrqSource),
        Just(Op::LinkChangedPorts),
    ]
}

fn c45_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..32, 0u8..32, any::<u16>()).prop_map(|(p, d, r)| Op::PhyReadC45(p, d, r)),
        (0u8..32, 0u8..32, any::<u16>(), any::<u16>())
            .prop_map(|(p, d, r, v)| Op::PhyWriteC45(p, d, r, v)),
        (port(), any::<u16>()).prop_map(|(p, r)| Op::SerdesRead(p, r)),
        (port(), any::<u16>(), any::<u16>()).prop_map(|(p, r, v)| Op::SerdesWrite(p, r, v)),
        Just(Op::Service),
        Just(Op::PpuRelease),
        any::<bool>().prop_map(Op::SetPpuHold),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => base_op(),
        1 => atu_op(),
        1 => vtu_op(),
        1 => mib_op(),
        1 => port_op(),
        1 => misc_op(),
        1 => c45_op(),
    ]
}

fn hist(m: u8) -> HistogramMode {
    [HistogramMode::Rx, HistogramMode::Tx, HistogramMode::RxTx][usize::from(m % 3)]
}

fn members(codes: [u8; 11]) -> [Member; 11] {
    codes.map(|c| {
        [
            Member::Unmodified,
            Member::Untagged,
            Member::Tagged,
            Member::NonMember,
        ][usize::from(c % 4)]
    })
}

fn stu_states(codes: [u8; 11]) -> [StuState; 11] {
    codes.map(|c| {
        [
            StuState::Disabled,
            StuState::Blocking,
            StuState::Learning,
            StuState::Forwarding,
        ][usize::from(c % 4)]
    })
}

/// A state from a code: 0..16 the raw codes (`Other`), then the named states, learned
/// ages 0..=7 (above 7 out of range).
fn atu_state(s: u8) -> AtuState {
    match s {
        0..=15 => AtuState::Other(s),
        16 => AtuState::Static,
        17 => AtuState::Management,
        18 => AtuState::PriorityOverride,
        _ => AtuState::Learned { age: (s - 19) * 3 },
    }
}

fn flush(all: bool) -> AtuFlush {
    if all {
        AtuFlush::All
    } else {
        AtuFlush::NonStatic
    }
}

/// Run `op`; a walk returns how many entries it reported.
fn run<M: mdio_bus::Mdio>(
    smi: &mut Switch<M, &SimCounter>,
    clock: &SimClock,
    op: &Op,
) -> Result<Option<usize>, Error<M::Error>> {
    let (pa, ra) = (PhyAddr::from_bits, RegAddr::from_bits);
    let none = |r: Result<(), Error<M::Error>>| r.map(|()| None);
    match *op {
        Op::Read(d, r) => smi.read(pa(d), ra(r)).map(|_| None),
        Op::Write(d, r, v) => none(smi.write(pa(d), ra(r), v)),
        Op::WaitMask(d, r, m, v) => smi.wait_mask(pa(d), ra(r), m, v).map(|_| None),
        Op::G1(k, v) => {
            let k = [G1Op::Atu, G1Op::Vtu, G1Op::Stats][usize::from(k % 3)];
            smi.g1_op(k, v).map(|_| None)
        }
        Op::PhyRead(p, r) => smi.phy_read(pa(p), ra(r)).map(|_| None),
        Op::PhyWrite(p, r, v) => none(smi.phy_write(pa(p), ra(r), v)),
        Op::BusyUnitWrite(k, v) => none(match k % 5 {
            0 => smi.g1_write(regs::g1::ATU_OP, v),
            1 => smi.g1_write(regs::g1::VTU_OP, v),
            2 => smi.g1_write(regs::g1::STATS_OP, v),
            3 => smi.g2_write(regs::g2::SMI_PHY_CMD, v),
            _ => smi.g2_write(regs::g2::SMI_PHY_DATA, v),
        }),
        Op::Identify => smi.identify().map(|_| None),
        Op::InitReady => smi.wait_init_ready().map(|_| None),
        Op::Idle(ns) => {
            clock.advance(ns);
            Ok(None)
        }
        Op::AtuLoad(fid, m, ports, s) => {
            let entry = AtuEntry {
                fid,
                mac: MacAddr(m),
                ports,
                state: atu_state(s),
            };
            none(smi.atu_load(&entry))
        }
        Op::AtuPurge(fid, m) => none(smi.atu_purge(fid, MacAddr(m))),
        Op::AtuFlush(all, fid) => none(smi.atu_flush(flush(all), fid)),
        Op::AtuRemovePort(p, all, fid) => none(smi.atu_remove_port(p, flush(all), fid)),
        Op::AtuGetNext(fid, m) => smi.atu_get_next(fid, MacAddr(m)).map(|_| None),
        Op::AtuForEach(fid) => smi.atu_for_each(fid, |_| {}).map(Some),
        Op::AtuAgeTime(ms) => smi.atu_set_age_time_ms(ms).map(|_| None),
        Op::VtuLoad(vid, fid, sid, m) => {
            let mut e = VtuEntry::new(vid, fid);
            e.sid = sid;
            e.members = members(m);
            none(smi.vtu_load(&e))
        }
        Op::VtuPurge(vid) => none(smi.vtu_purge(vid)),
        Op::VtuFlush => none(smi.vtu_flush()),
        Op::VtuGetNext(after) => smi.vtu_get_next(after).map(|_| None),
        Op::VtuForEach => smi.vtu_for_each(|_| {}).map(Some),
        Op::StuLoad(sid, s) => none(smi.stu_load(&StuEntry {
            sid,
            states: stu_states(s),
        })),
        Op::StuGetNext(after) => smi.stu_get_next(after).map(|_| None),
        Op::PortDefaultVid(p, Some(vid)) => none(smi.port_set_default_vid(p, vid)),
        Op::PortDefaultVid(p, None) => smi.port_default_vid(p).map(|_| None),
        Op::Port8021q(p, Some(m)) => {
            let m = [
                Dot1qMode::Disabled,
                Dot1qMode::Fallback,
                Dot1qMode::Check,
                Dot1qMode::Secure,
            ][usize::from(m % 4)];
            none(smi.port_set_8021q_mode(p, m))
        }
        Op::Port8021q(p, None) => smi.port_8021q_mode(p).map(|_| None),
        Op::MibSetup(m) => Mib::setup(smi, hist(m)).map(|_| None),
        Op::MibSetHistogram(m) => none(Mib::new(HistogramMode::RxTx).set_histogram(smi, hist(m))),
        Op::MibCapture(m, p) => none(Mib::new(hist(m)).capture(smi, p)),
        Op::MibReadCaptured(m, c) => {
            let c = Counter::ALL[usize::from(c) % Counter::ALL.len()];
            Mib::new(hist(m)).read_captured(smi, c).map(|_| None)
        }
        Op::MibSnapshot(m, p) => Mib::new(hist(m)).snapshot(smi, p).map(|_| None),
        Op::MibFlushAll(m) => none(Mib::new(hist(m)).flush_all(smi)),
        Op::MibFlushPort(m, p) => none(Mib::new(hist(m)).flush_port(smi, p)),
        Op::PortSetState(p, s) => {
            let s = [
                PortState::Disabled,
                PortState::Blocking,
                PortState::Learning,
                PortState::Forwarding,
            ][usize::from(s % 4)];
            none(smi.port_set_state(p, s))
        }
        Op::PortState(p) => smi.port_state(p).map(|_| None),
        Op::PortFrameMode(p, m) => {
            let m = [
                FrameMode::Normal,
                FrameMode::Dsa,
                FrameMode::Provider,
                FrameMode::EtherTypeDsa,
            ][usize::from(m % 4)];
            none(smi.port_set_frame_mode(p, m))
        }
        Op::PortEgressMode(p, m) => {
            let m = [
                EgressMode::Unmodified,
                EgressMode::Untagged,
                EgressMode::Tagged,
                EgressMode::EtherTypeDsa,
            ][usize::from(m % 4)];
            none(smi.port_set_egress_mode(p, m))
        }
        Op::PortFlood(p, u, m) => none(smi.port_set_flood(p, u, m)),
        Op::PortForcedLink(p, l) => {
            let l = [ForcedLink::Unforced, ForcedLink::Down, ForcedLink::Up][usize::from(l % 3)];
            none(smi.port_set_forced_link(p, l))
        }
        Op::PortSpeedDuplex(p, s, d) => {
            let s = [
                Speed::Mbps10,
                Speed::Mbps100,
                Speed::Mbps200,
                Speed::Mbps1000,
                Speed::Unforced,
                Speed::Mbps2500,
                Speed::Mbps5000,
                Speed::Mbps10000,
            ][usize::from(s % 8)];
            let d = [Duplex::Half, Duplex::Full, Duplex::Unforced][usize::from(d % 3)];
            none(smi.port_set_speed_duplex(p, s, d))
        }
        Op::PortRgmiiDelay(p, rx, tx) => none(smi.port_set_rgmii_delay(p, RgmiiDelay { rx, tx })),
        Op::PortLinkStatus(p) => smi.port_link_status(p).map(|_| None),
        Op::SetCpuPort(p) => none(smi.set_cpu_port(p)),
        Op::SetMirrorPort(ingress, p) => {
            let d = if ingress {
                MirrorDirection::Ingress
            } else {
                MirrorDirection::Egress
            };
            none(smi.set_mirror_port(d, p))
        }
        Op::SoftwareReset => none(smi.software_reset()),
        Op::AfterHardwareReset => smi.after_hardware_reset().map(|_| None),
        Op::G1IrqEnable(bits) => none(smi.g1_irq_enable(G1IrqSet::from_bits(bits))),
        Op::G1IrqStatus => smi.g1_irq_status().map(|_| None),
        Op::G1IrqPending => smi.g1_irq_pending().map(|_| None),
        Op::LinkIrqEnable(ports) => none(smi.link_irq_enable(PortSet(ports))),
        Op::PhyIrqSource => smi.phy_irq_source().map(|_| None),
        Op::LinkChangedPorts => smi.link_changed_ports().map(|_| None),
        Op::PhyReadC45(p, d, r) => smi
            .phy_read_c45(pa(p), DevAddr::from_bits(d), r)
            .map(|_| None),
        Op::PhyWriteC45(p, d, r, v) => none(smi.phy_write_c45(pa(p), DevAddr::from_bits(d), r, v)),
        Op::SerdesRead(p, r) => smi.serdes_read(p, r).map(|_| None),
        Op::SerdesWrite(p, r, v) => none(smi.serdes_write(p, r, v)),
        Op::Service => none(smi.service()),
        Op::PpuRelease => none(smi.ppu_release()),
        Op::SetPpuHold(h) => none(smi.set_ppu_hold(h)),
    }
}

/// The checks every operation passes whatever the bus answers: within its frame bound, a
/// walk within its cap, and a refusal before any frame.
fn check_op<E: core::fmt::Debug>(
    op: &Op,
    r: &Result<Option<usize>, Error<E>>,
    frames: u64,
) -> Result<(), TestCaseError> {
    prop_assert!(
        frames <= op.max_frames(),
        "{op:?}: {frames} frames > {}",
        op.max_frames()
    );
    if let (Some(cap), Ok(Some(n))) = (op.walk_cap(), r) {
        prop_assert!(*n <= cap, "{op:?}: {n} entries > {cap}");
    }
    if let Err(Error::Config(e)) = r {
        prop_assert_eq!(frames, 0, "{:?}: refused ({:?}) after frames", op, e);
    }
    Ok(())
}

/// The switch model behind a watch on the driver's Global1 writes: a write to a data
/// register of the ATU or the VTU while that unit's operation is still BUSY is counted.
/// (The model itself counts only writes to the operation registers,
/// `ChipModel::dropped_writes`.) It reads the unit's op register from the model at the
/// same instant, which is no MDIO frame and changes nothing the driver sees; it only works
/// where Global1 is a bus address (direct and dual-chip), so indirect modes are not
/// watched.
struct Watch {
    model: SwitchModel,
    /// Global1's bus address, `None` when not watched.
    g1: Option<u8>,
    /// (unit op register, data register written) for every write into a busy unit,
    /// shared with the test while the driver owns the bus.
    busy_writes: Rc<RefCell<Vec<(u8, u8)>>>,
}

impl Watch {
    /// The op register of the unit whose data register `reg` is.
    fn unit_of(reg: u8) -> Option<u8> {
        use regs::g1;
        match reg {
            g1::ATU_FID | g1::ATU_DATA | g1::ATU_MAC01 | g1::ATU_MAC23 | g1::ATU_MAC45 => {
                Some(g1::ATU_OP)
            }
            g1::VTU_FID
            | g1::VTU_SID
            | g1::VTU_VID
            | g1::VTU_DATA1
            | g1::VTU_DATA2
            | g1::VTU_DATA3 => Some(g1::VTU_OP),
            _ => None,
        }
    }
}

impl MdioDevice for Watch {
    fn read(&mut self, now: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        self.model.read(now, phy, reg)
    }
    fn write(&mut self, now: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        if self.g1 == Some(phy.get())
            && let Some(op) = Self::unit_of(reg.get())
            && self.model.read(now, phy, RegAddr::from_bits(op)) & regs::BUSY != 0
        {
            self.busy_writes.borrow_mut().push((op, reg.get()));
        }
        self.model.write(now, phy, reg, value)
    }
}

/// The watch counts a data register write into a busy unit: a caller's raw write to
/// G1_ATU_MAC01 right after its raw write that started an ATU operation (raw data-register
/// writes do not wait, by `Switch::write`'s contract), and not the same write once the
/// operation is over.
#[test]
fn the_watch_sees_a_write_into_a_busy_unit() {
    for wait in [false, true] {
        let model = SwitchModel::new().with_chip(
            ChipModel::new(Chip::Mv6352, Attach::Direct).with_g1_busy(BusyDelay::fixed(1_000_000)),
        );
        let busy_writes = Rc::new(RefCell::new(Vec::new()));
        let watch = Watch {
            model,
            g1: Some(0x1B),
            busy_writes: Rc::clone(&busy_writes),
        };
        let clock = SimClock::new();
        let counter =
            SimCounter::new(&clock, 32, SIM_COUNTER_HZ).with_read_cost(SIM_COUNTER_READ_NS);
        let mut bus = SimMdio::new(&clock, SIM_MDC_HZ, watch);
        let mut smi = Switch::new(
            &mut bus,
            &counter,
            Addressing::Direct,
            Chip::Mv6352,
            Config::new(),
        )
        .unwrap();
        smi.g1_write(regs::g1::ATU_OP, regs::BUSY | 0x3000).unwrap();
        if wait {
            smi.wait_g1_op(G1Op::Atu).unwrap();
        }
        smi.g1_write(regs::g1::ATU_MAC01, 0x1234).unwrap();
        let expect = if wait {
            vec![]
        } else {
            vec![(regs::g1::ATU_OP, regs::g1::ATU_MAC01)]
        };
        assert_eq!(*busy_writes.borrow(), expect, "wait {wait}");
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
    // Regressions in `<this file>.proptest-regressions` beside it: proptest's default would
    // put them in tests/proptest-regressions/, since this binary has a main.rs.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(64))
    })]

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
        let Ok(mut smi) = Switch::new(&mut bus, &counter, a, chip, config) else {
            return Ok(()); // the initial BUSY check timed out: fine, and bounded
        };
        for op in &ops {
            let f0 = smi.frames();
            let r = run(&mut smi, &clock, op);
            check_op(op, &r, smi.frames() - f0)?;
        }
    }

    #[test]
    fn arbitrary_busy_behaviour_is_bounded_and_never_overwrites_a_busy_register(
        smi_busy in (0u8..4, 0u64..200_000),
        g1_busy in (0u8..4, 0u64..200_000),
        phy_busy in (0u8..4, 0u64..200_000),
        ppu_busy in (0u8..4, 0u64..200_000),
        init_at in prop::option::of(0u64..3_000_000),
        ppu_enabled in prop::bool::weighted(0.8),
        mode in 0u8..MODES,
        ops in prop::collection::vec(op(), 1..10),
    ) {
        let (a, chip) = addressing(mode, 4);
        let attach = match a {
            Addressing::Direct => Attach::Direct,
            Addressing::Indirect { sw_addr, .. } => Attach::Indirect(sw_addr.get()),
            Addressing::DualChip { sw_addr } => Attach::DualChip(sw_addr.get()),
        };
        let model = SwitchModel::new().with_chip(
            ChipModel::new(chip, attach)
                .with_smi_busy(busy(smi_busy.0, smi_busy.1))
                .with_g1_busy(busy(g1_busy.0, g1_busy.1))
                .with_phy_busy(busy(phy_busy.0, phy_busy.1))
                .with_ppu_busy(busy(ppu_busy.0, ppu_busy.1))
                .with_ppu_enabled(ppu_enabled)
                .with_init_ready_at(init_at)
                .with_phy(PhyModel::bcm54612e(PhyAddr::from_bits(1))),
        );
        let g1 = chip.family().address_map().global1;
        let g1 = match a {
            Addressing::Direct => Some(g1),
            Addressing::DualChip { sw_addr } => Some(sw_addr.get() + g1),
            Addressing::Indirect { .. } => None,
        };
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, SIM_COUNTER_HZ).with_read_cost(SIM_COUNTER_READ_NS);
        let busy_writes = Rc::new(RefCell::new(Vec::new()));
        let watch = Watch { model, g1, busy_writes: Rc::clone(&busy_writes) };
        let mut bus = SimMdio::new(&clock, SIM_MDC_HZ, watch);
        let config = Config::new().with_timeout_ns(TIMEOUT_NS);
        let mut smi = Switch::new(&mut bus, &counter, a, chip, config).unwrap();
        for op in &ops {
            let f0 = smi.frames();
            let r = run(&mut smi, &clock, op);
            match &r {
                // A refusal is any typed `ConfigError` (checked to send no frame).
                Ok(_) | Err(Error::Timeout(_) | Error::UnknownSwitchId { .. } | Error::Config(_)) => {}
                Err(e) => prop_assert!(false, "{op:?}: {e:?}"),
            }
            check_op(op, &r, smi.frames() - f0)?;
            // The caller's raw writes to data registers do not wait (only op registers
            // belong to a unit by `Switch::write`'s contract); every unit operation does.
            let written = core::mem::take(&mut *busy_writes.borrow_mut());
            if !matches!(op, Op::Write(..)) {
                prop_assert!(written.is_empty(), "{op:?}: wrote into a busy unit: {written:x?}");
            }
        }
        let bus = smi.release();
        let model = bus.device().model.chip(0).unwrap();
        prop_assert_eq!(model.dropped_writes(), 0);
        prop_assert_eq!(model.ppu_collisions(), 0);
    }
}

/// A walk over a switch that always answers "one more entry" (BUSY clear, a used state
/// and a non-broadcast MAC for the ATU; VALID and a VID below the top for the VTU, the same
/// entry every time) ends at the walk's own cap, within the frames the cap implies.
#[test]
fn a_walk_that_the_bus_never_ends_stops_at_its_cap() {
    let walks: [(Op, u16); 2] = [(Op::AtuForEach(0), 0x0001), (Op::VtuForEach, 0x1001)];
    for (op, value) in walks {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(100);
        let mut bus = SimMdio::new(
            &clock,
            2_500_000,
            Arbitrary {
                values: vec![value],
                i: 0,
            },
        );
        let config = Config::new().with_timeout_ns(TIMEOUT_NS);
        let mut smi =
            Switch::new(&mut bus, &counter, Addressing::Direct, Chip::Mv6352, config).unwrap();
        let r = run(&mut smi, &clock, &op);
        let frames = smi.frames();
        eprintln!("{op:?} on {value:#06x}: {r:?} in {frames} frames");
        assert_eq!(r, Ok(op.walk_cap()), "{op:?}");
        assert!(frames <= op.max_frames(), "{op:?}: {frames}");
        // Each step is at least the op write, one BUSY poll and one result read.
        assert!(
            frames >= 3 * op.walk_cap().unwrap() as u64,
            "{op:?}: {frames}"
        );
    }
}
