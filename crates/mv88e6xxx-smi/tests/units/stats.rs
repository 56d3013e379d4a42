//! The MIB statistics driver (`stats::Mib`) against the behavioural model: counters after
//! known traffic on every statistics layout and addressing mode, the histogram modes,
//! flushes, refused ports, a stuck unit, and the model catching wrong sequences.

use crate::common::SimSmi;
use hwtimer_core::sim::SimCounter;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::regs::{BUSY, g1};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchModel, SwitchSim};
use mv88e6xxx_smi::stats::{Counter, HistogramAt, HistogramMode, Mib, PortStats};
use mv88e6xxx_smi::{Addressing, BusyWait, Config, ConfigError, Error, G1Op, Switch};

/// The test's own G1_STATS_OP operation codes (Linux `global1.h`
/// `MV88E6XXX_G1_STATS_OP_CAPTURE_PORT`, `_READ_CAPTURED`).
const STATS_OP_CAPTURE_PORT: u16 = 0x5000;
const STATS_OP_READ_CAPTURED: u16 = 0x4000;

/// One chip per statistics layout and addressing mode.
const SETUPS: [(Chip, Attach); 8] = [
    (Chip::Mv6097, Attach::Indirect(4)), // port in [4:0], histogram in STATS_OP
    (Chip::Mv6185, Attach::Direct),      // the same, direct
    (Chip::Mv6352, Attach::Indirect(2)), // (port + 1) << 5, histogram in STATS_OP
    (Chip::Mv6352, Attach::Direct),      // the same, direct
    (Chip::Mv6320, Attach::Indirect(5)), // as the 6352, bank 1 at bit 9
    (Chip::Mv6250, Attach::DualChip(16)), // as the 6352, dual-chip
    (Chip::Mv6390, Attach::Indirect(1)), // (port + 1) << 5, histogram in G1_CTL2
    (Chip::Mv6393X, Attach::Indirect(3)), // as the 6390, through the 6393X remap
];

fn sw_addr(attach: Attach) -> u8 {
    match attach {
        Attach::Direct => 0,
        Attach::Indirect(a) | Attach::DualChip(a) => a,
    }
}

fn sim_for(chip: Chip, attach: Attach, g1_busy: BusyDelay) -> SwitchSim {
    SwitchSim::single(ChipModel::new(chip, attach).with_g1_busy(g1_busy))
}

/// Attach to chip 0 of `sim` (as a driver does after a reset or reload).
fn attach<'a>(sim: &'a mut SwitchSim, chip: Chip, a: Attach, config: Config) -> SimSmi<'a> {
    let addressing = Addressing::select(chip.family(), sw_addr(a)).unwrap();
    Switch::new(&mut sim.bus, &sim.counter, addressing, chip, config).unwrap()
}

/// An Ethernet frame without FCS: `len` bytes (60 makes a 64-byte frame on the wire).
fn frame(dst: [u8; 6], ethertype: u16, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x99]);
    f[12..14].copy_from_slice(&ethertype.to_be_bytes());
    f
}

const UNI2: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
const UNI1: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
const BCAST: [u8; 6] = [0xFF; 6];
const MCAST: [u8; 6] = [0x01, 0x00, 0x5E, 0x00, 0x00, 0x01];
const PAUSE: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];

/// The test traffic (sizes are without the 4-byte FCS):
/// - received on port 1, sent on port 2: 3 × 64-byte unicast, 2 × 100-byte broadcast,
///   1 × 200-byte multicast, unicast of 400, 800 and 1500 bytes;
/// - received on port 1, sent nowhere: a pause frame, a 44-byte runt, a 1600-byte giant;
/// - received on port 2, sent on port 1: 2 × 128-byte unicast;
/// - received on port 0, sent on port 1: a pause frame.
fn traffic(sim: &mut SwitchSim) {
    let now = sim.clock.now_ns();
    let m = sim.bus.device().chip_mut(0).unwrap();
    for _ in 0..3 {
        m.count_frame(now, 1, &[2], &frame(UNI2, 0x0800, 60));
    }
    for _ in 0..2 {
        m.count_frame(now, 1, &[2], &frame(BCAST, 0x0806, 96));
    }
    m.count_frame(now, 1, &[2], &frame(MCAST, 0x0800, 196));
    for len in [396, 796, 1496] {
        m.count_frame(now, 1, &[2], &frame(UNI2, 0x0800, len));
    }
    m.count_frame(now, 1, &[], &frame(PAUSE, 0x8808, 60));
    m.count_frame(now, 1, &[], &frame(UNI2, 0x0800, 40));
    m.count_frame(now, 1, &[], &frame(UNI2, 0x0800, 1596));
    for _ in 0..2 {
        m.count_frame(now, 2, &[1], &frame(UNI1, 0x0800, 124));
    }
    m.count_frame(now, 0, &[1], &frame(PAUSE, 0x8808, 60));
}

/// Histogram buckets (64, 65–127, 128–255, 256–511, 512–1023, 1024–max) of `rx` and `tx`
/// frames as `mode` combines them.
fn hist(mode: HistogramMode, rx: [u32; 6], tx: [u32; 6]) -> [u32; 6] {
    let mut h = [0; 6];
    for i in 0..6 {
        h[i] = match mode {
            HistogramMode::Rx => rx[i],
            HistogramMode::Tx => tx[i],
            HistogramMode::RxTx => rx[i] + tx[i],
        };
    }
    h
}

fn with_hist(mut s: PortStats, h: [u32; 6]) -> PortStats {
    s.hist_64 = h[0];
    s.hist_65_127 = h[1];
    s.hist_128_255 = h[2];
    s.hist_256_511 = h[3];
    s.hist_512_1023 = h[4];
    s.hist_1024_max = h[5];
    s
}

/// What [`traffic`] leaves in port 1's counters, worked out by hand from the list.
fn expected_port1(mode: HistogramMode) -> PortStats {
    let s = PortStats {
        in_good_octets: 3 * 64 + 2 * 100 + 200 + 64 + 400 + 800 + 1500,
        in_bad_octets: 44 + 1600,
        in_unicast: 6,
        in_broadcasts: 2,
        in_multicasts: 1,
        in_pause: 1,
        in_undersize: 1,
        in_oversize: 1,
        out_octets: 2 * 128 + 64,
        out_unicast: 2,
        out_pause: 1,
        ..PortStats::default()
    };
    with_hist(s, hist(mode, [4, 2, 1, 1, 1, 1], [1, 0, 2, 0, 0, 0]))
}

/// What [`traffic`] leaves in port 2's counters.
fn expected_port2(mode: HistogramMode) -> PortStats {
    let s = PortStats {
        in_good_octets: 2 * 128,
        in_unicast: 2,
        out_octets: 3 * 64 + 2 * 100 + 200 + 400 + 800 + 1500,
        out_unicast: 6,
        out_broadcasts: 2,
        out_multicasts: 1,
        ..PortStats::default()
    };
    with_hist(s, hist(mode, [0, 0, 2, 0, 0, 0], [3, 2, 1, 1, 1, 1]))
}

fn assert_stats(chip: Chip, port: u8, got: PortStats, want: PortStats) {
    for c in Counter::ALL {
        assert_eq!(got.get(c), want.get(c), "{chip:?} port {port} {}", c.name());
    }
    assert_eq!(got, want);
}

#[test]
fn snapshot_after_traffic_matches_every_counter_on_every_layout() {
    for (chip, a) in SETUPS {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        {
            let mut smi = attach(&mut sim, chip, a, Config::new());
            Mib::setup(&mut smi, HistogramMode::RxTx).unwrap();
        }
        traffic(&mut sim);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let mib = Mib::new(HistogramMode::RxTx);
        let p1 = mib.snapshot(&mut smi, 1).unwrap();
        let p2 = mib.snapshot(&mut smi, 2).unwrap();
        let p3 = mib.snapshot(&mut smi, 3).unwrap();
        assert_stats(chip, 1, p1, expected_port1(HistogramMode::RxTx));
        assert_stats(chip, 2, p2, expected_port2(HistogramMode::RxTx));
        assert_stats(chip, 3, p3, PortStats::default());
        let _ = smi.release();
        let m = sim.bus.device().chip(0).unwrap();
        // 3 captures, 3 × 32 reads, one flush; nothing dropped by a busy unit.
        assert_eq!(m.stats_ops(), (3, 96, 1), "{chip:?}");
        assert_eq!(m.dropped_writes(), 0, "{chip:?}");
    }
}

#[test]
fn wide_counters_carry_their_high_half() {
    // 3 000 000 frames of 1500 bytes: 4.5 GB, past 2^32 octets.
    let (chip, a) = (Chip::Mv6352, Attach::Indirect(2));
    let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
    let f = frame(UNI2, 0x0800, 1496);
    let n = 3_000_000u64;
    let m = sim.bus.device().chip_mut(0).unwrap();
    for _ in 0..n {
        m.count_frame(0, 4, &[5], &f);
    }
    let mut smi = attach(&mut sim, chip, a, Config::new());
    let mib = Mib::new(HistogramMode::RxTx);
    let p4 = mib.snapshot(&mut smi, 4).unwrap();
    let p5 = mib.snapshot(&mut smi, 5).unwrap();
    assert!(n * 1500 > u64::from(u32::MAX));
    assert_eq!(p4.in_good_octets, n * 1500);
    assert_eq!(p5.out_octets, n * 1500);
    assert_eq!(u64::from(p4.hist_1024_max), n);
    assert_eq!(
        mib.read_captured(&mut smi, Counter::OutOctets).unwrap(),
        n * 1500
    );
}

#[test]
fn histogram_mode_selects_what_the_buckets_count() {
    for (chip, a) in [
        (Chip::Mv6352, Attach::Indirect(2)),
        (Chip::Mv6097, Attach::Direct),
        (Chip::Mv6390, Attach::Indirect(1)),
        (Chip::Mv6393X, Attach::Direct),
    ] {
        for mode in [HistogramMode::Rx, HistogramMode::Tx, HistogramMode::RxTx] {
            let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
            let ctl2_before = {
                let mut smi = attach(&mut sim, chip, a, Config::new());
                // Other G1_CTL2 fields (device number) must survive the mode change.
                smi.g1_write(g1::CTL2, 0x0005).unwrap();
                let mib = Mib::setup(&mut smi, mode).unwrap();
                assert_eq!(mib.mode(), mode);
                smi.g1_read(g1::CTL2).unwrap()
            };
            if chip.stats_layout().histogram == HistogramAt::Ctl2 {
                assert_eq!(ctl2_before, 0x0005 | mode.ctl2_bits(), "{chip:?}");
            } else {
                assert_eq!(ctl2_before, 0x0005, "{chip:?}");
            }
            traffic(&mut sim);
            let mut smi = attach(&mut sim, chip, a, Config::new());
            let mib = Mib::new(mode);
            assert_stats(
                chip,
                1,
                mib.snapshot(&mut smi, 1).unwrap(),
                expected_port1(mode),
            );
            assert_stats(
                chip,
                2,
                mib.snapshot(&mut smi, 2).unwrap(),
                expected_port2(mode),
            );
        }
    }
}

#[test]
fn flush_port_clears_one_port_and_flush_all_every_port() {
    for (chip, a) in SETUPS {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mib = Mib::setup(
            &mut attach(&mut sim, chip, a, Config::new()),
            HistogramMode::RxTx,
        )
        .unwrap();
        traffic(&mut sim);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        mib.flush_port(&mut smi, 1).unwrap();
        assert_stats(
            chip,
            1,
            mib.snapshot(&mut smi, 1).unwrap(),
            PortStats::default(),
        );
        assert_stats(
            chip,
            2,
            mib.snapshot(&mut smi, 2).unwrap(),
            expected_port2(HistogramMode::RxTx),
        );
        assert_ne!(mib.snapshot(&mut smi, 0).unwrap(), PortStats::default());
        mib.flush_all(&mut smi).unwrap();
        for port in [0, 1, 2] {
            assert_stats(
                chip,
                port,
                mib.snapshot(&mut smi, port).unwrap(),
                PortStats::default(),
            );
        }
        // Counting goes on after a flush.
        let _ = smi.release();
        traffic(&mut sim);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        assert_stats(
            chip,
            1,
            mib.snapshot(&mut smi, 1).unwrap(),
            expected_port1(HistogramMode::RxTx),
        );
    }
}

#[test]
fn ports_the_chip_lacks_are_refused_before_any_frame() {
    for (chip, a, bad) in [
        (Chip::Mv6352, Attach::Indirect(2), [7u8, 31, 255]),
        (Chip::Mv6220, Attach::DualChip(0), [2, 4, 7]), // 2–4 exist but are not routed
        (Chip::Mv6390, Attach::Direct, [11, 30, 200]),
    ] {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let mib = Mib::new(HistogramMode::RxTx);
        let f0 = smi.frames();
        for port in bad {
            let want = Error::Config(ConfigError::Port { port });
            assert_eq!(mib.snapshot(&mut smi, port), Err(want), "{chip:?}");
            assert_eq!(mib.capture(&mut smi, port), Err(want));
            assert_eq!(mib.flush_port(&mut smi, port), Err(want));
        }
        assert_eq!(smi.frames(), f0, "{chip:?}");
        // A port it has is accepted on the same chip.
        mib.snapshot(&mut smi, 1).unwrap();
        assert!(smi.frames() > f0);
    }
}

#[test]
fn stuck_stats_busy_times_out_within_its_bound() {
    for (chip, a) in SETUPS {
        let mut sim = sim_for(chip, a, BusyDelay::stuck());
        let config = Config::new().with_timeout_ns(2_000_000);
        let mut smi = attach(&mut sim, chip, a, config);
        let mib = Mib::new(HistogramMode::RxTx);
        let err = mib.snapshot(&mut smi, 1).unwrap_err();
        let Error::Timeout(t) = err else {
            panic!("{chip:?}: {err:?}")
        };
        assert_eq!(t.wait, BusyWait::StatsOp, "{chip:?}");
        assert_ne!(t.last & BUSY, 0);
        // The deadline (2 ms, on the 25 MHz clocksource: 40 ns per tick) ended it, with
        // one more register access after it.
        let spent = t.elapsed_ticks * 40;
        assert!(
            (2_000_000..2_500_000).contains(&spent),
            "{chip:?}: {spent} ns"
        );
        let _ = smi.release();
        // Every other operation fails the same way, bounded.
        let mut smi = attach(&mut sim, chip, a, config);
        for r in [
            mib.flush_all(&mut smi),
            mib.flush_port(&mut smi, 1),
            mib.capture(&mut smi, 2),
            mib.read_captured(&mut smi, Counter::InUnicast).map(drop),
        ] {
            assert!(
                matches!(r, Err(Error::Timeout(t)) if t.wait == BusyWait::StatsOp),
                "{chip:?}: {r:?}"
            );
        }
    }
}

#[test]
fn snapshot_frames_per_mode_in_steady_state() {
    // A BUSY check before the capture (not a sole bus master), then capture + 32 counter
    // reads; each operation is a G1 write and one BUSY poll, each read two more G1
    // reads: 1 + 1 + 1 + 32 × 4 = 131 G1 accesses, of 3 frames indirect.
    for (chip, a, per_access) in [
        (Chip::Mv6352, Attach::Indirect(2), 3u64),
        (Chip::Mv6352, Attach::Direct, 1),
        (Chip::Mv6250, Attach::DualChip(0), 1),
        (Chip::Mv6390, Attach::Indirect(1), 3),
        // No 6393X remap by default (an out-of-tree Linux patch): as any indirect chip.
        (Chip::Mv6393X, Attach::Indirect(3), 3),
    ] {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let mib = Mib::new(HistogramMode::RxTx);
        mib.snapshot(&mut smi, 1).unwrap(); // the first one also polls BUSY once first
        let f0 = smi.frames();
        mib.snapshot(&mut smi, 1).unwrap();
        assert_eq!(smi.frames() - f0, 131 * per_access, "{chip:?}");
        // A sole bus master skips the check: 130.
        let _ = smi.release();
        let config = Config::new().with_sole_bus_master(true);
        let mut smi = attach(&mut sim, chip, a, config);
        mib.snapshot(&mut smi, 1).unwrap();
        let f0 = smi.frames();
        mib.snapshot(&mut smi, 1).unwrap();
        assert_eq!(smi.frames() - f0, 130 * per_access, "{chip:?}");
    }
}

// ---- the model catches wrong sequences ---------------------------------------------------

/// Traffic, then a driver attached to a 6352 at `sw_addr` 2 with slow STATS operations
/// (1 ms), for the raw sequences below.
fn slow_6352() -> SwitchSim {
    let (chip, a) = (Chip::Mv6352, Attach::Indirect(2));
    let mut sim = sim_for(chip, a, BusyDelay::fixed(1_000_000));
    traffic(&mut sim);
    sim
}

fn raw_read32(smi: &mut SimSmi<'_>) -> u32 {
    let hi = smi.g1_read(g1::STATS_COUNTER_32).unwrap();
    let lo = smi.g1_read(g1::STATS_COUNTER_01).unwrap();
    (u32::from(hi) << 16) | u32::from(lo)
}

#[test]
fn model_counter_registers_change_only_when_busy_clears() {
    let mut sim = slow_6352();
    let mut smi = attach(&mut sim, Chip::Mv6352, Attach::Indirect(2), Config::new());
    let hist = HistogramMode::RxTx.stats_op_bits();
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | hist | (2 << 5))
        .unwrap();
    // Read in_unicast (index 4) without waiting: the registers still hold 0.
    smi.g1_write(g1::STATS_OP, BUSY | STATS_OP_READ_CAPTURED | hist | 0x04)
        .unwrap();
    assert_eq!(raw_read32(&mut smi), 0);
    smi.wait_g1_op(G1Op::Stats).unwrap();
    assert_eq!(raw_read32(&mut smi), 6);
}

#[test]
fn model_gives_wrong_numbers_for_a_wrong_port_encoding_or_missing_bits() {
    let mut sim = slow_6352();
    let mut smi = attach(&mut sim, Chip::Mv6352, Attach::Indirect(2), Config::new());
    let hist = HistogramMode::RxTx.stats_op_bits();
    let read = |smi: &mut SimSmi<'_>, index: u16| {
        smi.g1_op(G1Op::Stats, STATS_OP_READ_CAPTURED | hist | index)
            .unwrap();
        raw_read32(smi)
    };
    // The 6352 takes (port + 1) << 5: port 1 in bits [4:0] (the 6097's encoding) names
    // no port, so nothing is captured.
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | hist | 1)
        .unwrap();
    assert_eq!(read(&mut smi, 0x04), 0);
    // Port 1 sent as port 1 << 5 (without the + 1) is port 0: its one pause frame.
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | hist | (1 << 5))
        .unwrap();
    assert_eq!((read(&mut smi, 0x04), read(&mut smi, 0x16)), (0, 1));
    // The right word: 6 unicast frames.
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | hist | (2 << 5))
        .unwrap();
    assert_eq!(read(&mut smi, 0x04), 6);
    assert_eq!(read(&mut smi, 0x08), 5); // hist_64: 4 RX + 1 TX
    // A capture word without histogram bits: the buckets read 0.
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | (2 << 5))
        .unwrap();
    assert_eq!(read(&mut smi, 0x08), 0);
    // A wrong op code (CAPTURE 0x5000 sent as 0x3000, a reserved code) captures nothing:
    // the buffer still holds the previous capture.
    smi.g1_op(G1Op::Stats, 0x3000 | hist | (3 << 5)).unwrap();
    assert_eq!(read(&mut smi, 0x04), 6);
}

#[test]
fn model_bank1_select_reads_another_bank() {
    // On the 6390 bit 10 selects bank 1 (its index 4, AVB class A, is zero in the model):
    // a driver that set it, or
    // that put the 6352's histogram bits into the word, reads zeros instead of bank 0.
    let (chip, a) = (Chip::Mv6390, Attach::Indirect(1));
    let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
    traffic(&mut sim);
    let mut smi = attach(&mut sim, chip, a, Config::new());
    smi.g1_write(g1::CTL2, HistogramMode::RxTx.ctl2_bits())
        .unwrap();
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | (2 << 5))
        .unwrap();
    smi.g1_op(G1Op::Stats, STATS_OP_READ_CAPTURED | 0x04)
        .unwrap();
    assert_eq!(raw_read32(&mut smi), 6);
    smi.g1_op(G1Op::Stats, STATS_OP_READ_CAPTURED | 0x0C00 | 0x04)
        .unwrap();
    assert_eq!(raw_read32(&mut smi), 0);
    // The driver's own reads get bank 0.
    let mib = Mib::new(HistogramMode::RxTx);
    assert_eq!(mib.snapshot(&mut smi, 1).unwrap().in_unicast, 6);
}

/// Frames of one G1_STATS_OP read: the BUSY check this driver makes before a capture when
/// it is not the sole bus master (Linux makes none).
fn busy_check_frames<
    M: mdio_bus::Mdio<Error = core::convert::Infallible>,
    C: hwtimer_core::Continuous + Copy,
>(
    smi: &mut Switch<M, C>,
) -> u64 {
    let f = smi.frames();
    smi.g1_read(0x1D).unwrap();
    smi.frames() - f
}

#[test]
fn linux_replay_reads_the_same_counters_in_no_fewer_frames() {
    use mv88e6xxx_smi::sim::stats_linux::{LINUX_BANK0, LinuxStats};
    for (chip, a) in SETUPS {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mib = Mib::setup(
            &mut attach(&mut sim, chip, a, Config::new()),
            HistogramMode::RxTx,
        )
        .unwrap();
        traffic(&mut sim);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        mib.snapshot(&mut smi, 1).unwrap();
        let f0 = smi.frames();
        let ours = mib.snapshot(&mut smi, 1).unwrap();
        let our_frames = smi.frames() - f0;
        let check = busy_check_frames(&mut smi);
        let _ = smi.release();
        let f1 = sim.bus.frames();
        let linux = LinuxStats::new(&mut sim.bus, chip, a).snapshot(1).unwrap();
        let linux_frames = sim.bus.frames() - f1;
        for (v, &(index, _)) in linux.iter().zip(LINUX_BANK0.iter()) {
            let c = Counter::ALL.iter().find(|c| c.index() == index).unwrap();
            assert_eq!(ours.get(*c), *v, "{chip:?} {}", c.name());
        }
        // Linux checks no BUSY before a capture; this driver does, once (the default).
        assert!(our_frames <= linux_frames + check, "{chip:?}");
        // Linux's clear reads STATS_OP first (for its histogram bits); flush_all reads it as
        // its BUSY check (the default), and no more.
        let f2 = sim.bus.frames();
        LinuxStats::new(&mut sim.bus, chip, a).clear().unwrap();
        let linux_clear = sim.bus.frames() - f2;
        let mut smi = attach(&mut sim, chip, a, Config::new());
        mib.flush_all(&mut smi).unwrap(); // the first op after attach polls BUSY first
        let f3 = smi.frames();
        mib.flush_all(&mut smi).unwrap();
        assert!(smi.frames() - f3 <= linux_clear, "{chip:?}");
        assert_eq!(mib.snapshot(&mut smi, 1).unwrap(), PortStats::default());
    }
}

// ---- bank 1 and the port-register counters ------------------------------------------------

use mv88e6xxx_smi::Feature;
use mv88e6xxx_smi::stats::{Bank1Counter, Bank1Stats, ExtStats, PortRegStats};

/// Traffic with fates beyond forwarding (sizes without FCS):
/// - received on port 1: 4 × 64-byte unicast dropped by ingress filtering, a 44-byte runt
///   "filtered" (bad: counts in no filter counter), 3 × 100-byte frames discarded;
/// - received on port 2, sent on port 1 and dropped by egress filtering on port 3:
///   2 × 128-byte unicast.
fn fate_traffic(sim: &mut SwitchSim) {
    let now = sim.clock.now_ns();
    let m = sim.bus.device().chip_mut(0).unwrap();
    for _ in 0..4 {
        m.count_filtered(now, 1, &frame(UNI2, 0x0800, 60));
    }
    m.count_filtered(now, 1, &frame(UNI2, 0x0800, 40));
    for _ in 0..3 {
        m.count_discarded(now, 1, &frame(UNI2, 0x0800, 96));
    }
    for _ in 0..2 {
        m.count_egress_filtered(now, 2, &[1], &[3], &frame(UNI1, 0x0800, 124));
    }
}

/// Bank 1 after [`traffic`] and [`fate_traffic`], worked out by hand: port 1 received 17
/// good frames (10 + 4 filtered + 3 discarded) and sent 5 (2 + 1 + 2); port 2 received 4
/// and sent 9; port 3 nothing (its two frames were egress-filtered).
fn expected_bank1(port: u8) -> Bank1Stats {
    match port {
        1 => Bank1Stats {
            in_discards: 3,
            in_filtered: 4,
            in_accepted: 10,
            out_queue_0: 5,
            ..Bank1Stats::default()
        },
        2 => Bank1Stats {
            in_accepted: 4,
            out_queue_0: 9,
            ..Bank1Stats::default()
        },
        _ => Bank1Stats::default(),
    }
}

/// The port-register counters after [`traffic`] and [`fate_traffic`].
fn expected_port_regs(port: u8) -> PortRegStats {
    match port {
        1 => PortRegStats {
            sw_in_discards: 3,
            sw_in_filtered: 4,
            sw_out_filtered: 0,
        },
        3 => PortRegStats {
            sw_out_filtered: 2,
            ..PortRegStats::default()
        },
        _ => PortRegStats::default(),
    }
}

fn assert_bank1(chip: Chip, port: u8, got: Bank1Stats, want: Bank1Stats) {
    for c in Bank1Counter::ALL {
        assert_eq!(got.get(c), want.get(c), "{chip:?} port {port} {}", c.name());
    }
}

/// A set-up chip after both traffic lists, and the driver.
fn after_fates(chip: Chip, a: Attach) -> (SwitchSim, Mib) {
    after_fates_with(chip, a, BusyDelay::fixed(20_000))
}

/// As [`after_fates`], with STATS operations taking `delay`.
fn after_fates_with(chip: Chip, a: Attach, delay: BusyDelay) -> (SwitchSim, Mib) {
    let mut sim = sim_for(chip, a, delay);
    let mib = Mib::setup(
        &mut attach(&mut sim, chip, a, Config::new()),
        HistogramMode::RxTx,
    )
    .unwrap();
    traffic(&mut sim);
    fate_traffic(&mut sim);
    (sim, mib)
}

#[test]
fn bank1_counters_after_traffic_on_bank1_chips() {
    for (chip, a) in [
        (Chip::Mv6390, Attach::Indirect(1)),
        (Chip::Mv6390, Attach::Direct),
        (Chip::Mv6320, Attach::Indirect(5)), // bank 1 at bit 9, histogram bits in the word
        (Chip::Mv6393X, Attach::Indirect(3)),
    ] {
        let (mut sim, mib) = after_fates(chip, a);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        for port in [1u8, 2, 3] {
            let (bank0, bank1) = mib.snapshot_bank1(&mut smi, port).unwrap();
            assert_bank1(chip, port, bank1, expected_bank1(port));
            // Bank 0 of the same capture is what a bank-0 snapshot reads.
            assert_eq!(bank0, mib.snapshot(&mut smi, port).unwrap(), "{chip:?}");
            // One counter read on its own, from the last capture.
            assert_eq!(
                mib.read_captured_bank1(&mut smi, Bank1Counter::OutQueue0)
                    .unwrap(),
                expected_bank1(port).out_queue_0,
                "{chip:?} port {port}"
            );
            let all = mib.snapshot_all(&mut smi, port).unwrap();
            assert_eq!(all.bank0, bank0);
            assert_eq!(all.ext, ExtStats::Bank1(bank1), "{chip:?}");
        }
        // Bank 0 still counts every received frame, filtered or not: port 1's 6 + 4
        // unicast, plus the 3 discarded ones.
        assert_eq!(mib.snapshot(&mut smi, 1).unwrap().in_unicast, 13);
        // A flush clears bank 1 too.
        mib.flush_all(&mut smi).unwrap();
        let (_, b1) = mib.snapshot_bank1(&mut smi, 1).unwrap();
        assert_eq!(b1, Bank1Stats::default(), "{chip:?}");
        let _ = smi.release();
        assert_eq!(sim.bus.device().chip(0).unwrap().dropped_writes(), 0);
    }
}

#[test]
fn port_register_counters_after_traffic() {
    for (chip, a) in [
        (Chip::Mv6352, Attach::Indirect(2)),
        (Chip::Mv6352, Attach::Direct),
        (Chip::Mv6097, Attach::Indirect(4)),
        (Chip::Mv6185, Attach::Direct),
    ] {
        let (mut sim, mib) = after_fates(chip, a);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        for port in [1u8, 2, 3] {
            let f0 = smi.frames();
            let regs = mib.port_counters(&mut smi, port).unwrap();
            assert_eq!(regs, expected_port_regs(port), "{chip:?} port {port}");
            // Four port register reads, no statistics operation.
            let per = if matches!(a, Attach::Indirect(_)) {
                3
            } else {
                1
            };
            assert_eq!(smi.frames() - f0, 4 * per, "{chip:?}");
            let all = mib.snapshot_all(&mut smi, port).unwrap();
            assert_eq!(all.ext, ExtStats::PortRegs(regs), "{chip:?}");
            assert_eq!(all.bank0, mib.snapshot(&mut smi, port).unwrap());
        }
        // InDiscards is 32 bits across PORT 0x10 (low) and 0x11 (high).
        let _ = smi.release();
        let now = sim.clock.now_ns();
        let m = sim.bus.device().chip_mut(0).unwrap();
        let f = frame(UNI2, 0x0800, 60);
        for _ in 0..70_000 {
            m.count_discarded(now, 4, &f);
        }
        let mut smi = attach(&mut sim, chip, a, Config::new());
        assert_eq!(
            mib.port_counters(&mut smi, 4).unwrap().sw_in_discards,
            70_000,
            "{chip:?}"
        );
    }
}

#[test]
fn port_counters_need_no_stats_unit() {
    // A stuck statistics unit times out the bank-1 snapshot, but the port registers read.
    let (chip, a) = (Chip::Mv6390, Attach::Indirect(1));
    let mut sim = sim_for(chip, a, BusyDelay::stuck());
    let mut smi = attach(&mut sim, chip, a, Config::new().with_timeout_ns(2_000_000));
    let mib = Mib::new(HistogramMode::RxTx);
    for r in [
        mib.snapshot_bank1(&mut smi, 1).map(drop),
        mib.read_captured_bank1(&mut smi, Bank1Counter::InFiltered)
            .map(drop),
        mib.snapshot_all(&mut smi, 1).map(drop),
    ] {
        assert!(
            matches!(r, Err(Error::Timeout(t)) if t.wait == BusyWait::StatsOp),
            "{r:?}"
        );
    }
    let (chip, a) = (Chip::Mv6352, Attach::Indirect(2));
    let mut sim = sim_for(chip, a, BusyDelay::stuck());
    fate_traffic(&mut sim);
    let mut smi = attach(&mut sim, chip, a, Config::new().with_timeout_ns(2_000_000));
    assert_eq!(
        mib.port_counters(&mut smi, 1).unwrap(),
        expected_port_regs(1)
    );
}

#[test]
fn bank1_and_port_counters_are_refused_before_any_frame() {
    let mib = Mib::new(HistogramMode::RxTx);
    // No bank 1 Linux reads.
    for (chip, a) in [
        (Chip::Mv6352, Attach::Indirect(2)),
        (Chip::Mv6097, Attach::Direct),
        (Chip::Mv6250, Attach::DualChip(16)),
    ] {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let f0 = smi.frames();
        let want = Error::Config(ConfigError::PortFeature {
            chip: Some(chip),
            port: None,
            feature: Feature::MibBank1,
        });
        assert_eq!(mib.snapshot_bank1(&mut smi, 1), Err(want), "{chip:?}");
        assert_eq!(
            mib.read_captured_bank1(&mut smi, Bank1Counter::InDiscards),
            Err(want)
        );
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
    // No port-register counters Linux reads.
    for (chip, a) in [
        (Chip::Mv6390, Attach::Indirect(1)),
        (Chip::Mv6320, Attach::Direct),
        (Chip::Mv6250, Attach::DualChip(16)),
    ] {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let f0 = smi.frames();
        let want = Error::Config(ConfigError::PortFeature {
            chip: Some(chip),
            port: Some(1),
            feature: Feature::MibPortCounters,
        });
        assert_eq!(mib.port_counters(&mut smi, 1), Err(want), "{chip:?}");
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
    // Ports the chip lacks, on chips that have the counters.
    for (chip, a, bad) in [
        (Chip::Mv6390, Attach::Direct, 11u8),
        (Chip::Mv6352, Attach::Indirect(2), 7),
        (Chip::Mv6320, Attach::Indirect(5), 200),
    ] {
        let mut sim = sim_for(chip, a, BusyDelay::fixed(20_000));
        let mut smi = attach(&mut sim, chip, a, Config::new());
        let f0 = smi.frames();
        let want = Error::Config(ConfigError::Port { port: bad });
        assert_eq!(mib.snapshot_all(&mut smi, bad), Err(want), "{chip:?}");
        if chip.stats_layout().bank1_select.is_some() {
            assert_eq!(mib.snapshot_bank1(&mut smi, bad), Err(want));
        } else {
            assert_eq!(mib.port_counters(&mut smi, bad), Err(want));
        }
        assert_eq!(smi.frames(), f0, "{chip:?}");
    }
    // The 6250 family: snapshot_all reads bank 0 only.
    let (chip, a) = (Chip::Mv6250, Attach::DualChip(16));
    let (mut sim, mib) = after_fates(chip, a);
    let mut smi = attach(&mut sim, chip, a, Config::new());
    let all = mib.snapshot_all(&mut smi, 1).unwrap();
    assert_eq!(all.ext, ExtStats::None);
    assert_eq!(all.bank0.in_unicast, 13);
}

#[test]
fn model_wrong_bank1_bit_gives_wrong_numbers() {
    // 6390: bank 1 is bit 10; the 6320's bit 9 reads bank 0 at the same index.
    let (chip, a) = (Chip::Mv6390, Attach::Indirect(1));
    let (mut sim, _) = after_fates(chip, a);
    let mut smi = attach(&mut sim, chip, a, Config::new());
    let read = |smi: &mut SimSmi<'_>, word: u16| {
        smi.g1_op(G1Op::Stats, STATS_OP_READ_CAPTURED | word)
            .unwrap();
        raw_read32(smi)
    };
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | (2 << 5))
        .unwrap();
    assert_eq!(read(&mut smi, 0x0400 | 0x01), 4); // in_filtered
    assert_eq!(read(&mut smi, 0x0400 | 0x10), 5); // out_queue_0
    assert_eq!(read(&mut smi, 0x0200 | 0x01), 0); // bank 0: in_good_octets, high half
    assert_eq!(read(&mut smi, 0x0200 | 0x10), 4); // bank 0: out_unicast
    let _ = smi.release();

    // 6320: bank 1 is bit 9; bit 10 (the 6390's) is part of the histogram field there,
    // so a word with it reads bank 0. Operations take 1 ms here.
    let (chip, a) = (Chip::Mv6320, Attach::Indirect(5));
    let (mut sim, mib) = after_fates_with(chip, a, BusyDelay::fixed(1_000_000));
    let mut smi = attach(&mut sim, chip, a, Config::new());
    let hist = HistogramMode::RxTx.stats_op_bits();
    smi.g1_op(G1Op::Stats, STATS_OP_CAPTURE_PORT | hist | (2 << 5))
        .unwrap();
    assert_eq!(read(&mut smi, hist | 0x0200 | 0x01), 4);
    assert_eq!(read(&mut smi, hist | 0x0400 | 0x01), 0);
    assert_eq!(read(&mut smi, hist | 0x0400 | 0x10), 4);
    // The driver picks the chip's bit.
    assert_eq!(
        mib.read_captured_bank1(&mut smi, Bank1Counter::InFiltered)
            .unwrap(),
        4
    );
    // A bank-1 read before BUSY clears still shows the previous counter.
    smi.g1_write(
        g1::STATS_OP,
        BUSY | STATS_OP_READ_CAPTURED | hist | 0x0200, // index 0x00: in_discards
    )
    .unwrap();
    assert_eq!(raw_read32(&mut smi), 4);
    smi.wait_g1_op(G1Op::Stats).unwrap();
    assert_eq!(raw_read32(&mut smi), 3); // in_discards
}

#[test]
fn linux_replay_reads_the_same_bank1_and_port_counters() {
    use mv88e6xxx_smi::sim::stats_linux::{LINUX_BANK0, LINUX_BANK1, LinuxStats};
    for (chip, a) in [
        (Chip::Mv6390, Attach::Indirect(1)),
        (Chip::Mv6390, Attach::Direct),
        (Chip::Mv6320, Attach::Indirect(5)),
        (Chip::Mv6393X, Attach::Indirect(3)),
        (Chip::Mv6352, Attach::Indirect(2)),
        (Chip::Mv6097, Attach::Direct),
        (Chip::Mv6250, Attach::DualChip(16)),
    ] {
        let (mut sim, mib) = after_fates(chip, a);
        let mut smi = attach(&mut sim, chip, a, Config::new());
        mib.snapshot_all(&mut smi, 1).unwrap();
        let f0 = smi.frames();
        let ours = mib.snapshot_all(&mut smi, 1).unwrap();
        let our_frames = smi.frames() - f0;
        let check = busy_check_frames(&mut smi);
        let _ = smi.release();
        let f1 = sim.bus.frames();
        let linux = LinuxStats::new(&mut sim.bus, chip, a)
            .snapshot_all(1)
            .unwrap();
        let linux_frames = sim.bus.frames() - f1;
        for (v, &(index, _)) in linux.bank0.iter().zip(LINUX_BANK0.iter()) {
            let c = Counter::ALL.iter().find(|c| c.index() == index).unwrap();
            assert_eq!(ours.bank0.get(*c), *v, "{chip:?} {}", c.name());
        }
        match ours.ext {
            ExtStats::Bank1(b1) => {
                assert_eq!(linux.port, None);
                let l = linux.bank1.unwrap();
                for (v, &index) in l.iter().zip(LINUX_BANK1.iter()) {
                    let c = Bank1Counter::ALL
                        .iter()
                        .find(|c| c.index() == index)
                        .unwrap();
                    assert_eq!(u64::from(b1.get(*c)), *v, "{chip:?} {}", c.name());
                }
                assert_eq!(b1, expected_bank1(1));
            }
            ExtStats::PortRegs(r) => {
                assert_eq!(linux.bank1, None);
                let want = [
                    u64::from(r.sw_in_discards),
                    u64::from(r.sw_in_filtered),
                    u64::from(r.sw_out_filtered),
                ];
                assert_eq!(linux.port, Some(want), "{chip:?}");
                assert_eq!(r, expected_port_regs(1));
            }
            ExtStats::None => assert_eq!((linux.port, linux.bank1), (None, None)),
        }
        assert!(our_frames <= linux_frames + check, "{chip:?}");
    }
}

/// The switched path counts too: frames the model's switch drops at ingress (a blocking
/// port) count in PORT InFiltered, a known destination whose port stopped forwarding
/// counts in its PORT OutFiltered, and a disabled port receives (and counts) nothing.
#[test]
fn switched_traffic_counts_ingress_and_egress_filtering() {
    use mv88e6xxx_smi::chip::Family;
    use mv88e6xxx_smi::port::PortState;

    type DirectSmi<'a> = Switch<&'a mut mdio_bus::sim::SimMdio<SwitchModel>, &'a SimCounter>;
    fn with_smi<T>(sim: &mut SwitchSim, f: impl FnOnce(&mut DirectSmi<'_>) -> T) -> T {
        let (mut smi, _) =
            Switch::probe(&mut sim.bus, &sim.counter, 0, Family::Mv6085, Config::new()).unwrap();
        f(&mut smi)
    }
    fn inject(sim: &mut SwitchSim, port: usize, dst: u8, src: u8) -> Vec<usize> {
        let mut f = vec![0x02, 0, 0, 0, 0, dst, 0x02, 0, 0, 0, 0, src, 0x08, 0x00];
        f.resize(60, 0);
        let now = sim.clock.now_ns();
        sim.bus.device().chip_mut(0).unwrap().inject(now, port, &f)
    }

    let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Direct));
    let mib = with_smi(&mut sim, |smi| {
        for p in 0..=2 {
            smi.port_set_state(p, PortState::Forwarding).unwrap();
        }
        smi.port_set_state(3, PortState::Blocking).unwrap();
        Mib::setup(smi, HistogramMode::RxTx).unwrap()
    });
    // Port 1's source is learned (its flood reaches 0 and 2); port 3 blocks; port 4 is
    // disabled. Then port 1 stops forwarding, and a unicast to its address is filtered
    // at egress there.
    assert_eq!(inject(&mut sim, 1, 0x99, 0x11), [0, 2]);
    assert!(inject(&mut sim, 3, 0x11, 0x33).is_empty());
    assert!(inject(&mut sim, 4, 0x11, 0x44).is_empty());
    with_smi(&mut sim, |smi| {
        smi.port_set_state(1, PortState::Blocking).unwrap()
    });
    assert!(inject(&mut sim, 0, 0x11, 0x10).is_empty());

    with_smi(&mut sim, |smi| {
        let blocked = mib.port_counters(smi, 3).unwrap();
        assert_eq!((blocked.sw_in_filtered, blocked.sw_out_filtered), (1, 0));
        let dest = mib.port_counters(smi, 1).unwrap();
        assert_eq!((dest.sw_in_filtered, dest.sw_out_filtered), (0, 1));
        let disabled = mib.snapshot(smi, 4).unwrap();
        assert_eq!(disabled.in_unicast, 0, "a disabled port receives nothing");
        let sender = mib.snapshot(smi, 0).unwrap();
        assert_eq!((sender.in_unicast, sender.out_unicast), (1, 1));
    });
}
