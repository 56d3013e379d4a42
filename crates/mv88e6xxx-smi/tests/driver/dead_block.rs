//! Dead blocks, on hwtimer-core's dead-block kit as mdio-bus carries it to MDIO: a bus on
//! which nothing answers (every read 0xFFFF, the bus idling high through its pull-up) or
//! everything reads 0x0000 (a shorted data line), from the start ([`Dead`]) or from the
//! middle of a run ([`SimMdio::go_dead`]). Every public call returns, with a typed error or
//! the value the bus gave, within a stated number of MDIO frames counted by the bus model;
//! nothing hangs or panics. That holds for the register layer's calls and for the switch
//! units' (ATU, VTU/STU, port VLAN, MIB, ports, interrupts, Clause 45 / SERDES, the PPU
//! hold), whose refusals send no frame; a GetNext walk ends at its first step. A
//! clocksource that never advances does not hang a wait either: the poll-count backstop
//! ends it.

use hwtimer_core::sim::{SimClock, SimCounter, StoppedCounter, dead_values};
use mdio_bus::sim::{Dead, MdioDevice, SimMdio};
use mdio_bus::{DevAddr, Mdio, PhyAddr, RegAddr};
use mv88e6xxx_smi::atu::{AtuEntry, AtuFlush, MacAddr};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::irq::{G1IrqSet, PortSet};
use mv88e6xxx_smi::port::{
    Duplex, EgressMode, ForcedLink, FrameMode, MirrorDirection, PortState, RgmiiDelay, Speed,
};
use mv88e6xxx_smi::port::{HW_RESET_ASSERT_NS, HW_RESET_SETTLE_NS};
use mv88e6xxx_smi::regs::{g1, g2};
use mv88e6xxx_smi::sim::{
    Attach, ChipModel, FRAME_NS, SIM_COUNTER_HZ, SIM_COUNTER_READ_NS, SIM_MDC_HZ, SwitchModel,
    SwitchSim,
};
use mv88e6xxx_smi::stats::{Counter, HistogramMode, Mib};
use mv88e6xxx_smi::vtu::{Dot1qMode, Member, StuEntry, StuState, VtuEntry};
use mv88e6xxx_smi::{
    Addressing, Bound, BusyTimeout, BusyWait, Config, ConfigError, DEFAULT_TIMEOUT_NS, Error, G1Op,
    Switch,
};

/// Polls of one bounded wait whose polls are single frames (SMI_CMD BUSY): at most one
/// per frame until the 50 ms deadline, plus the first and the one after it.
const WAIT_FRAMES: u64 = DEFAULT_TIMEOUT_NS / FRAME_NS + 3; // 1 956

/// The stated bound, in MDIO frames, of any one call on a dead bus with the default 50 ms
/// deadline, in every addressing mode: on a dead bus at most one wait of a call runs into
/// its deadline (the others see their condition on the first read), and a deadline holds
/// at most `WAIT_FRAMES` frames however the polls are made of them; around it a call adds
/// at most four frames (a PPU-gated PHY access: G1_CTL1 read and write before, G1_CTL1
/// write and one G1_STS read after). Observed maximum: 1 953 (`wait_mask` through SMI_CMD
/// on an all-zero bus).
const DEAD_CALL_FRAMES: u64 = WAIT_FRAMES + 4; // 1 960
/// Indirect: attaching is one SMI_CMD wait.
const INDIRECT_ATTACH_FRAMES: u64 = WAIT_FRAMES; // 1 956

type DeadSmi<'a, D> = Switch<&'a mut SimMdio<D>, &'a SimCounter>;

/// One chip per addressing mode and PHY access kind.
const CHIPS: [(Chip, Addressing); 8] = [
    (Chip::Mv6352, Addressing::Direct),
    (Chip::Mv6185, Addressing::Direct),
    (Chip::Mv6165, Addressing::Direct),
    (Chip::Mv6390, Addressing::Direct),
    (
        Chip::Mv6250,
        Addressing::DualChip {
            sw_addr: PhyAddr::from_bits(16),
        },
    ),
    (
        Chip::Mv6352,
        Addressing::Indirect {
            sw_addr: PhyAddr::from_bits(2),
            remap_6393x: false,
        },
    ),
    (
        Chip::Mv6085,
        Addressing::Indirect {
            sw_addr: PhyAddr::from_bits(2),
            remap_6393x: false,
        },
    ),
    (
        Chip::Mv6393X,
        Addressing::Indirect {
            sw_addr: PhyAddr::from_bits(2),
            remap_6393x: true,
        },
    ),
];

/// A call's outcome: the value read (`Some`), a completed write (`None`), or its error.
type Outcome = Result<Option<u16>, Error<core::convert::Infallible>>;

fn bus(value: u16) -> (SimClock, SimCounter, SimMdio<Dead<u16>>) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(100);
    let bus = SimMdio::new(&clock, 2_500_000, Dead(value));
    (clock, counter, bus)
}

fn pa(a: u8) -> PhyAddr {
    PhyAddr::from_bits(a)
}
fn ra(a: u8) -> RegAddr {
    RegAddr::from_bits(a)
}

/// Every public call of an attached driver, by name, with its outcome.
fn every_call<D: MdioDevice>(smi: &mut DeadSmi<'_, D>) -> Vec<(&'static str, Outcome, u64)> {
    let mut out = Vec::new();
    let mut run = |name: &'static str,
                   smi: &mut DeadSmi<'_, D>,
                   f: &dyn Fn(&mut DeadSmi<'_, D>) -> Outcome| {
        let f0 = smi.frames();
        let r = f(smi);
        out.push((name, r, smi.frames() - f0));
    };
    run("identify", smi, &|s| s.identify().map(|i| i.raw).map(Some));
    run("read", smi, &|s| s.read(pa(0x12), ra(1)).map(Some));
    run("write", smi, &|s| {
        s.write(pa(0x12), ra(1), 5).map(|()| None)
    });
    run("port_read", smi, &|s| s.port_read(1, 0).map(Some));
    run("port_write", smi, &|s| {
        s.port_write(1, 4, 0x7F).map(|()| None)
    });
    run("port_read(invalid)", smi, &|s| {
        s.port_read(200, 0).map(Some)
    });
    run("g1_read", smi, &|s| s.g1_read(g1::CTL2).map(Some));
    run("g1_write(ATU_OP)", smi, &|s| {
        s.g1_write(g1::ATU_OP, 0x9000).map(|()| None)
    });
    run("g2_read", smi, &|s| s.g2_read(g2::SMI_PHY_DATA).map(Some));
    run("g2_write(SMI_PHY_CMD)", smi, &|s| {
        s.g2_write(g2::SMI_PHY_CMD, 0x9822).map(|()| None)
    });
    run("wait_mask", smi, &|s| {
        s.wait_mask(pa(0x10), ra(0), 0x0F00, 0x0100).map(Some)
    });
    run("wait_bit", smi, &|s| {
        s.wait_bit(pa(0x10), ra(0), 3, false).map(Some)
    });
    run("wait_init_ready", smi, &|s| s.wait_init_ready().map(Some));
    run("wait_g1_op", smi, &|s| s.wait_g1_op(G1Op::Vtu).map(Some));
    run("g1_op", smi, &|s| s.g1_op(G1Op::Stats, 0x1000).map(Some));
    run("phy_read", smi, &|s| s.phy_read(pa(1), ra(2)).map(Some));
    run("phy_write", smi, &|s| {
        s.phy_write(pa(1), ra(4), 0x01e1).map(|()| None)
    });
    run("phy_read(off bus)", smi, &|s| {
        s.phy_read(pa(31), ra(2)).map(Some)
    });
    run("internal_mdio.read", smi, &|s| {
        s.internal_mdio().read(pa(1), ra(3)).map(Some)
    });
    run("internal_mdio.write", smi, &|s| {
        s.internal_mdio().write(pa(1), ra(0), 0x8000).map(|()| None)
    });
    out
}

/// A switch-unit call's outcome (its value is checked only for its frames).
type UnitOutcome = Result<(), Error<core::convert::Infallible>>;

/// One switch-unit call: its name, outcome, frames, and its `steps`, the register accesses
/// and bounded waits of its worst path, read from its code (`src/atu.rs`, `vtu.rs`,
/// `stats.rs`, `port.rs`, `irq.rs`, `c45.rs`; a port loop counted for 16 ports, a walk for
/// its first step, since a dead bus ends it there: see
/// [`a_walk_on_a_dead_bus_ends_at_its_first_step`]).
type UnitCall = (&'static str, UnitOutcome, u64, u64);

/// Every public call of the switch units (ATU, VTU/STU, port VLAN, MIB, ports, interrupts,
/// Clause 45 / SERDES, the PPU hold), with arguments a chip may refuse.
fn every_unit_call<D: MdioDevice>(smi: &mut DeadSmi<'_, D>) -> Vec<UnitCall> {
    unit_calls_upto(smi, usize::MAX)
}

/// The first `upto + 1` calls of [`every_unit_call`].
fn unit_calls_upto<D: MdioDevice>(smi: &mut DeadSmi<'_, D>, upto: usize) -> Vec<UnitCall> {
    let mut out = Vec::new();
    let mut run = |name: &'static str,
                   steps: u64,
                   smi: &mut DeadSmi<'_, D>,
                   f: &dyn Fn(&mut DeadSmi<'_, D>) -> UnitOutcome| {
        if out.len() > upto {
            return;
        }
        let f0 = smi.frames();
        let r = f(smi);
        out.push((name, r, smi.frames() - f0, steps));
    };
    let mac = MacAddr([0x02, 0, 0, 0, 0, 1]);
    let mib = Mib::new(HistogramMode::RxTx);
    // g1_op: pre-check wait, op write, wait.
    let op = 3;
    run("atu_load", 7 + op, smi, &|s| {
        s.atu_load(&AtuEntry::new_static(1, mac, 0b11))
    });
    run("atu_load(fid 5000)", 0, smi, &|s| {
        s.atu_load(&AtuEntry::new_static(5000, mac, 1))
    });
    run("atu_purge", 7 + op, smi, &|s| s.atu_purge(1, mac));
    run("atu_flush(all)", 4 + op, smi, &|s| {
        s.atu_flush(AtuFlush::All, None)
    });
    run("atu_flush(fid)", 4 + op, smi, &|s| {
        s.atu_flush(AtuFlush::NonStatic, Some(1))
    });
    run("atu_remove_port", 4 + op, smi, &|s| {
        s.atu_remove_port(1, AtuFlush::All, Some(1))
    });
    run("atu_remove_port(200)", 0, smi, &|s| {
        s.atu_remove_port(200, AtuFlush::All, None)
    });
    run("atu_get_next", 10 + op, smi, &|s| {
        s.atu_get_next(1, MacAddr::BROADCAST).map(drop)
    });
    run("atu_for_each", 10 + op, smi, &|s| {
        s.atu_for_each(1, |_| {}).map(drop)
    });
    run("atu_set_age_time_ms", 2, smi, &|s| {
        s.atu_set_age_time_ms(300_000).map(drop)
    });
    run("atu_set_age_time_ms(0)", 0, smi, &|s| {
        s.atu_set_age_time_ms(0).map(drop)
    });
    run("vtu_load", 7 + op, smi, &|s| {
        s.vtu_load(&VtuEntry::new(10, 1).with_member(1, Member::Tagged))
    });
    run("vtu_load(vid 9000)", 0, smi, &|s| {
        s.vtu_load(&VtuEntry::new(9000, 1))
    });
    run("vtu_purge", 2 + op, smi, &|s| s.vtu_purge(10));
    run("vtu_flush", op, smi, &|s| s.vtu_flush());
    run("vtu_get_next", 8 + op, smi, &|s| {
        s.vtu_get_next(0).map(drop)
    });
    run("vtu_for_each", 8 + op, smi, &|s| {
        s.vtu_for_each(|_| {}).map(drop)
    });
    run("stu_load", 6 + op, smi, &|s| {
        s.stu_load(&StuEntry {
            sid: 1,
            states: [StuState::Forwarding; 11],
        })
    });
    run("stu_get_next", 7 + op, smi, &|s| {
        s.stu_get_next(63).map(drop)
    });
    run("port_set_default_vid", 2, smi, &|s| {
        s.port_set_default_vid(1, 10)
    });
    run("port_default_vid", 1, smi, &|s| {
        s.port_default_vid(1).map(drop)
    });
    run("port_set_8021q_mode", 2, smi, &|s| {
        s.port_set_8021q_mode(1, Dot1qMode::Secure)
    });
    run("port_8021q_mode", 1, smi, &|s| {
        s.port_8021q_mode(1).map(drop)
    });
    run("Mib::setup", 3 + op, smi, &|s| {
        Mib::setup(s, HistogramMode::Rx).map(drop)
    });
    run("Mib::capture", op, smi, &|s| mib.capture(s, 1));
    run("Mib::read_captured", 2 * (op + 2), smi, &|s| {
        mib.read_captured(s, Counter::ALL[0]).map(drop)
    });
    run("Mib::snapshot", 33 * (op + 2), smi, &|s| {
        mib.snapshot(s, 1).map(drop)
    });
    run("Mib::flush_all", op, smi, &|s| mib.flush_all(s));
    run("Mib::flush_port", op, smi, &|s| mib.flush_port(s, 1));
    run("port_set_state", 2, smi, &|s| {
        s.port_set_state(1, PortState::Forwarding)
    });
    run("port_state", 1, smi, &|s| s.port_state(1).map(drop));
    run("port_set_frame_mode", 2, smi, &|s| {
        s.port_set_frame_mode(1, FrameMode::Dsa)
    });
    run("port_set_egress_mode", 2, smi, &|s| {
        s.port_set_egress_mode(1, EgressMode::Tagged)
    });
    run("port_set_flood", 4, smi, &|s| {
        s.port_set_flood(1, true, true)
    });
    run("port_set_forced_link", 2, smi, &|s| {
        s.port_set_forced_link(1, ForcedLink::Up)
    });
    run("port_set_speed_duplex", 2, smi, &|s| {
        s.port_set_speed_duplex(1, Speed::Mbps100, Duplex::Full)
    });
    run("port_set_rgmii_delay", 2, smi, &|s| {
        s.port_set_rgmii_delay(5, RgmiiDelay { rx: true, tx: true })
    });
    run("port_link_status", 1, smi, &|s| {
        s.port_link_status(1).map(drop)
    });
    run("set_cpu_port", 2 + 2 * 16, smi, &|s| s.set_cpu_port(5));
    run("set_mirror_port", 2 + 16, smi, &|s| {
        s.set_mirror_port(MirrorDirection::Ingress, 4)
    });
    run("g1_irq_enable", 2, smi, &|s| {
        s.g1_irq_enable(G1IrqSet::from_bits(1))
    });
    run("g1_irq_status", 1, smi, &|s| s.g1_irq_status().map(drop));
    run("g1_irq_pending", 2, smi, &|s| s.g1_irq_pending().map(drop));
    // Per PHY a Global2 read and write: each a pre-check, 2 accesses, a wait.
    run("link_irq_enable", 2 * 16 * 4 + 1, smi, &|s| {
        s.link_irq_enable(PortSet(0b10))
    });
    run("phy_irq_source", 1, smi, &|s| s.phy_irq_source().map(drop));
    run("link_changed_ports", 16 * 4 + 1, smi, &|s| {
        s.link_changed_ports().map(drop)
    });
    run("phy_read_c45", 8, smi, &|s| {
        s.phy_read_c45(pa(1), DevAddr::PMA_PMD, 2).map(drop)
    });
    run("phy_write_c45", 8, smi, &|s| {
        s.phy_write_c45(pa(1), DevAddr::PMA_PMD, 0, 0x8000)
    });
    run("serdes_read", 8, smi, &|s| {
        s.serdes_read(10, 0x2000).map(drop)
    });
    run("serdes_write", 8, smi, &|s| {
        s.serdes_write(10, 0x2000, 0x8000)
    });
    run("service", 2, smi, &|s| s.service());
    run("ppu_release", 2, smi, &|s| s.ppu_release());
    run("set_ppu_hold(false)", 2, smi, &|s| s.set_ppu_hold(false));
    run("set_ppu_hold(true)", 0, smi, &|s| s.set_ppu_hold(true));
    // CTL1 read and write, INIT_READY wait, PPU state wait.
    run("software_reset", 4, smi, &|s| s.software_reset());
    run("after_hardware_reset", 1, smi, &|s| {
        s.after_hardware_reset().map(drop)
    });
    out
}

/// The frame bound of a switch-unit call of `steps` on a dead bus, also one that died
/// during the calls before it: one wait into its deadline, every other step one register
/// access that its first poll or frame ends (3 frames indirect), and the PPU-gated frames
/// of [`DEAD_CALL_FRAMES`]. Unlike a PHY access ([`DYING_CALL_FRAMES`]) no unit call
/// makes a second wait after a failed one: the first error ends it, and a PPU restart
/// (a hold of the first calls expiring) that times out is that first error.
const fn unit_call_frames(steps: u64) -> u64 {
    WAIT_FRAMES + 3 * steps + 4
}

/// Checks a switch-unit call on a dead bus: a typed error or a value, within its bound; a
/// refusal before any frame.
fn check_unit_call(what: &str, call: &UnitCall) {
    check_unit_call_after(what, call, 0)
}

/// As [`check_unit_call`], for a call whose first `live` frames ran on a live bus (which
/// may answer a wait late, after many polls, where a dead bus answers at the first).
fn check_unit_call_after(what: &str, call: &UnitCall, live: u64) {
    let (name, r, frames, steps) = call;
    let bound = live + unit_call_frames(*steps);
    assert!(*frames <= bound, "{what} {name}: {frames} frames > {bound}");
    match r {
        Ok(()) => {}
        Err(Error::Timeout(t)) => assert!(
            t.polls >= 2 && t.bound == Bound::Deadline,
            "{what} {name}: {r:?}"
        ),
        Err(Error::Config(_)) => assert_eq!(*frames, 0, "{what} {name}: refused after frames"),
        // A bus idling high: a status read of all ones is no status.
        Err(Error::NotAnswering { .. }) => assert!(
            what.contains("0xffff") || what.contains("all ones"),
            "{what} {name}: {r:?}"
        ),
        Err(e) => panic!("{what} {name}: unexpected error on a dead bus: {e:?}"),
    }
}

fn is_typed_error_or_bus_value(r: &Outcome, value: u16) -> bool {
    match r {
        Ok(Some(v)) => *v == value,
        Ok(None) => true, // a write: nothing on a bus can refuse it
        Err(Error::Timeout(t)) => t.polls >= 2 && t.bound == Bound::Deadline,
        Err(Error::UnknownSwitchId { raw }) => *raw == value,
        Err(Error::Config(
            ConfigError::Port { .. } | ConfigError::Phy { .. } | ConfigError::Device { .. },
        )) => true,
        Err(e) => panic!("unexpected error on a dead bus: {e:?}"),
    }
}

#[test]
fn probe_on_a_dead_bus_is_a_typed_error_within_its_frame_bound() {
    // (sw_addr, hint, value) -> the error and the frames it may take.
    for (value, _) in dead_values::<u16>() {
        for (sw_addr, hint) in [
            (0u8, Family::Mv6085),
            (0, Family::Mv6390),
            (2, Family::Mv6085),
            (6, Family::Mv6393),
            (16, Family::Mv6250),
            (16, Family::Mv6341),
        ] {
            let (_clock, counter, mut mdio) = bus(value);
            let e = Switch::probe(&mut mdio, &counter, sw_addr, hint, Config::new())
                .map(|(_, id)| id)
                .unwrap_err();
            let frames = mdio.frames();
            let indirect = sw_addr != 0 && hint != Family::Mv6250;
            // At 16 a multi-chip family is first read single-chip (one direct frame,
            // Linux `mv88e6xxx_single_chip_detect`).
            let single_first = u64::from(indirect && sw_addr == 16);
            match (value, indirect) {
                (0xFFFF, true) => {
                    // SMI_CMD reads BUSY forever: the attach wait times out.
                    assert!(
                        matches!(
                            e,
                            Error::Timeout(BusyTimeout {
                                wait: BusyWait::SmiCmd,
                                last: 0xFFFF,
                                ..
                            })
                        ),
                        "{e:?}"
                    );
                    assert!(frames <= INDIRECT_ATTACH_FRAMES + single_first, "{frames}");
                }
                (_, true) => {
                    // BUSY clear: attach (1 poll), then identify: CMD, 1 poll, DATA.
                    assert_eq!(e, Error::UnknownSwitchId { raw: value });
                    assert_eq!(frames, 4 + single_first);
                }
                (_, false) => {
                    // One frame: PORT_SWITCH_ID.
                    assert_eq!(e, Error::UnknownSwitchId { raw: value });
                    assert_eq!(frames, 1);
                }
            }
        }
    }
}

#[test]
fn every_call_on_a_dead_bus_returns_within_its_frame_bound() {
    for (value, _) in dead_values::<u16>() {
        for (chip, addressing) in CHIPS {
            let (_clock, counter, mut mdio) = bus(value);
            let indirect = matches!(addressing, Addressing::Indirect { .. });
            if indirect && value == 0xFFFF {
                // Only an indirect attach on an all-ones bus fails: SMI_CMD BUSY forever.
                let e = Switch::new(&mut mdio, &counter, addressing, chip, Config::new())
                    .map(|_| ())
                    .unwrap_err();
                assert!(matches!(
                    e,
                    Error::Timeout(BusyTimeout {
                        wait: BusyWait::SmiCmd,
                        ..
                    })
                ));
                assert!(mdio.frames() <= INDIRECT_ATTACH_FRAMES);
                eprintln!(
                    "dead-block {chip:?} {addressing:?} {value:#06x} new: {e:?} in {} frames",
                    mdio.frames()
                );
                continue;
            }
            let mut smi =
                Switch::new(&mut mdio, &counter, addressing, chip, Config::new()).unwrap();
            let bound = DEAD_CALL_FRAMES;
            for (name, r, frames) in every_call(&mut smi) {
                assert!(
                    is_typed_error_or_bus_value(&r, value),
                    "{chip:?} {addressing:?} {value:#06x} {name}: {r:?}"
                );
                assert!(
                    frames <= bound,
                    "{chip:?} {addressing:?} {value:#06x} {name}: {frames} frames > {bound}"
                );
                if matches!(
                    r,
                    Err(Error::Config(
                        ConfigError::Port { .. }
                            | ConfigError::Phy { .. }
                            | ConfigError::Device { .. }
                    ))
                ) {
                    assert_eq!(frames, 0, "{name}: refused before any frame");
                }
                eprintln!(
                    "dead-block {chip:?} {addressing:?} {value:#06x} {name}: {r:?} in {frames} frames"
                );
            }
            for call in every_unit_call(&mut smi) {
                check_unit_call(&format!("{chip:?} {addressing:?} {value:#06x}"), &call);
                let (name, r, frames, _) = call;
                eprintln!(
                    "dead-block {chip:?} {addressing:?} {value:#06x} {name}: {r:?} in {frames} frames"
                );
            }
        }
    }
}

#[test]
fn a_stopped_clock_cannot_hang_a_wait_on_a_dead_bus() {
    let (_clock, _counter, mut mdio) = bus(0xFFFF);
    let config = Config::new();
    assert_eq!(config.max_polls, 19_534);
    let e = Switch::new(
        &mut mdio,
        StoppedCounter,
        Addressing::Indirect {
            sw_addr: PhyAddr::from_bits(2),
            remap_6393x: false,
        },
        Chip::Mv6352,
        config,
    )
    .unwrap_err();
    let Error::Timeout(t) = e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (t.wait, t.bound, t.polls),
        (BusyWait::SmiCmd, Bound::PollLimit, 19_534)
    );
    assert_eq!(t.elapsed_ticks, 0);
    assert_eq!(mdio.frames(), 19_534);
    // A smaller backstop is a smaller bound.
    let (_clock, _counter, mut mdio) = bus(0xFFFF);
    let e = Switch::new(
        &mut mdio,
        StoppedCounter,
        Addressing::Direct,
        Chip::Mv6352,
        Config::new().with_max_polls(100),
    )
    .and_then(|mut s| s.g1_op(G1Op::Atu, 0x1000))
    .unwrap_err();
    assert!(matches!(
        e,
        Error::Timeout(BusyTimeout {
            wait: BusyWait::AtuOp,
            bound: Bound::PollLimit,
            polls: 100,
            ..
        })
    ));
    assert_eq!(mdio.frames(), 100);
}

/// The model attach matching one of [`CHIPS`]' addressings.
fn attach_of(addressing: Addressing) -> Attach {
    match addressing {
        Addressing::Direct => Attach::Direct,
        Addressing::Indirect { sw_addr, .. } => Attach::Indirect(sw_addr.get()),
        Addressing::DualChip { sw_addr } => Attach::DualChip(sw_addr.get()),
    }
}

/// The bound of a call during which the bus dies: as [`DEAD_CALL_FRAMES`], plus one more
/// wait. A PPU-gated PHY access that finds the PPU enabled before the bus dies times out
/// stopping it and then, handing the bus back to the PPU whatever happened (a PPU left
/// stopped would stop watching the links), times out again waiting for it to poll: on an
/// all-zero bus neither state ever shows. Observed: 3 897 (6185, direct, all zeros).
const DYING_CALL_FRAMES: u64 = 2 * WAIT_FRAMES + 4; // 3 916

/// The first calls of a driver: a Global1 operation and a port read, after which the
/// driver has seen SMI_CMD and ATU_OP clear and polls neither first.
fn first_calls<D: MdioDevice>(smi: &mut DeadSmi<'_, D>) -> Vec<(&'static str, Outcome, u64)> {
    let mut out = Vec::new();
    let f0 = smi.frames();
    let r = smi.g1_op(G1Op::Atu, 0x1000).map(Some);
    out.push(("g1_op(ATU)", r, smi.frames() - f0));
    let f0 = smi.frames();
    let r = smi.port_read(1, 0).map(Some);
    out.push(("port_read", r, smi.frames() - f0));
    let f0 = smi.frames();
    let r = smi
        .phy_read(PhyAddr::from_bits(smi.address_map().phy_base + 1), ra(2))
        .map(Some);
    out.push(("phy_read", r, smi.frames() - f0));
    out
}

fn live(chip: Chip, addressing: Addressing) -> SwitchSim {
    SwitchSim::new(SwitchModel::new().with_chip(ChipModel::new(chip, attach_of(addressing))))
}

#[test]
fn a_bus_that_dies_mid_run_ends_every_call_within_its_frame_bound() {
    for (value, name) in dead_values::<u16>() {
        for (chip, addressing) in CHIPS {
            // On the live bus: the attach's frames and the first calls'.
            let (attach, first) = {
                let mut sim = live(chip, addressing);
                let mut smi =
                    Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
                        .unwrap();
                let attach = smi.frames();
                for (call, r, _) in first_calls(&mut smi) {
                    assert!(r.is_ok(), "{chip:?} {addressing:?} live {call}: {r:?}");
                }
                (attach, smi.frames() - attach)
            };
            // The bus dies at each frame of the first calls in turn (the driver holds it,
            // so its death is armed before the attach), then every call runs on it.
            for after in 0..=first {
                let mut sim = live(chip, addressing);
                sim.bus.go_dead_after(attach + after, value);
                let mut smi =
                    Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
                        .unwrap();
                let mut calls = first_calls(&mut smi);
                calls.extend(every_call(&mut smi));
                let unit_calls = every_unit_call(&mut smi);
                for (call, r, frames) in calls {
                    let what = format!("{chip:?} {addressing:?} {name} after {after}: {call}");
                    assert!(
                        matches!(
                            r,
                            Ok(_)
                                | Err(Error::Timeout(_) | Error::UnknownSwitchId { .. })
                                | Err(Error::Config(
                                    ConfigError::Port { .. }
                                        | ConfigError::Phy { .. }
                                        | ConfigError::Device { .. }
                                ))
                        ),
                        "{what}: {r:?}"
                    );
                    assert!(frames <= DYING_CALL_FRAMES, "{what}: {frames} frames");
                    if call == "identify" {
                        // The bus did die: PORT_SWITCH_ID reads the dead value (or, all
                        // ones in indirect mode, SMI_CMD stays BUSY).
                        assert!(
                            matches!(r, Err(Error::UnknownSwitchId { raw }) if raw == value)
                                || matches!(r, Err(Error::Timeout(_))),
                            "{what}: {r:?}"
                        );
                    }
                }
                let what = format!("{chip:?} {addressing:?} {name} after {after}:");
                for call in &unit_calls {
                    check_unit_call(&what, call);
                }
            }
        }
    }
}

/// The bus dies in the middle of each switch-unit call in turn (at its first frame, its
/// second, its middle one and its last, as counted on the live model), after the calls
/// before it ran live: that call and the next end within their bounds
/// ([`unit_call_frames`], plus for the dying call the frames it made before the bus died)
/// with a typed error or a value, refusals before any frame.
#[test]
fn a_bus_that_dies_inside_a_unit_call_ends_it_within_its_frame_bound() {
    for (value, name) in dead_values::<u16>() {
        for (chip, addressing) in CHIPS {
            // On the live bus: where each call starts and how many frames it takes.
            let (attach, live_calls) = {
                let mut sim = live(chip, addressing);
                let mut smi =
                    Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
                        .unwrap();
                (smi.frames(), every_unit_call(&mut smi))
            };
            let mut start = 0;
            for (i, (call, _, frames, _)) in live_calls.iter().enumerate() {
                let mut points = vec![0, 1, frames / 2, frames.saturating_sub(1)];
                points.retain(|&k| k < *frames);
                points.dedup();
                for k in points {
                    let mut sim = live(chip, addressing);
                    sim.bus.go_dead_after(attach + start + k, value);
                    let mut smi =
                        Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
                            .unwrap();
                    let calls = unit_calls_upto(&mut smi, i + 1);
                    let what = format!("{chip:?} {addressing:?} {name} in {call} at +{k}:");
                    for (j, c) in calls.iter().enumerate() {
                        check_unit_call_after(&what, c, if j == i { k } else { 0 });
                    }
                    // The calls before ran live, as on the live bus.
                    for (c, l) in calls.iter().zip(&live_calls).take(i) {
                        assert_eq!((c.0, &c.1, c.2), (l.0, &l.1, l.2), "{what}");
                    }
                }
                start += frames;
            }
        }
    }
}

/// A walk: runs it, counting the entries it reports in the `u32`.
type Walk = fn(&mut DeadSmi<'_, Dead<u16>>, &mut u32) -> Outcome;

/// A GetNext walk on a dead bus ends at its first step, whatever the bus reads: all ones
/// keep the unit's BUSY set, so the walk's first wait times out (`Error::Timeout` of the
/// unit, within one deadline); all zeros clear BUSY and read back an unused entry (ATU
/// state 0, VTU VID without VALID), so the walk ends with no entry after one GetNext.
#[test]
fn a_walk_on_a_dead_bus_ends_at_its_first_step() {
    for (value, _) in dead_values::<u16>() {
        for (chip, addressing) in CHIPS {
            let indirect = matches!(addressing, Addressing::Indirect { .. });
            if indirect && value == 0xFFFF {
                continue; // the attach fails (above)
            }
            let (_clock, counter, mut mdio) = bus(value);
            let mut smi =
                Switch::new(&mut mdio, &counter, addressing, chip, Config::new()).unwrap();
            let per_access = if indirect { 3 } else { 1 };
            let walks: [(&str, BusyWait, Walk); 2] = [
                ("atu_for_each", BusyWait::AtuOp, |s, seen| {
                    s.atu_for_each(0, |_| *seen += 1).map(|n| Some(n as u16))
                }),
                ("vtu_for_each", BusyWait::VtuOp, |s, seen| {
                    s.vtu_for_each(|_| *seen += 1).map(|n| Some(n as u16))
                }),
            ];
            for (name, wait, walk) in walks {
                let what = format!("{chip:?} {addressing:?} {value:#06x} {name}");
                let f0 = smi.frames();
                let mut seen = 0;
                let r = walk(&mut smi, &mut seen);
                let frames = smi.frames() - f0;
                eprintln!("{what}: {r:?} in {frames} frames");
                assert_eq!(seen, 0, "{what}: an entry on a dead bus");
                match r {
                    Err(Error::Config(ConfigError::UnitUnsupported { .. })) => {
                        assert_eq!(frames, 0, "{what}")
                    }
                    Err(Error::Timeout(t)) => {
                        assert_eq!(value, 0xFFFF, "{what}: {t:?}");
                        assert_eq!((t.wait, t.bound, t.last), (wait, Bound::Deadline, 0xFFFF));
                        assert!(frames <= WAIT_FRAMES, "{what}: {frames}");
                    }
                    Ok(n) => {
                        assert_eq!((value, n), (0, Some(0)), "{what}");
                        // At most: the idle wait's poll, the start key (3 MAC registers
                        // or the VID), the FID (≤ 2 accesses), the op write, its poll,
                        // the entry's first register.
                        assert!(frames <= 9 * per_access, "{what}: {frames}");
                    }
                    Err(e) => panic!("{what}: {e:?}"),
                }
            }
        }
    }
}

/// A switch that stops answering during its software reset (every read 0xFFFF) is not
/// reset: `software_reset`, as `after_hardware_reset`, does not count a G1_STS of 0xFFFF
/// as INIT_READY, so it ends in a typed [`BusyWait::InitReady`] timeout, not a success.
#[test]
fn software_reset_on_an_all_ones_bus_is_not_a_success() {
    let (_clock, counter, mut mdio) = bus(0xFFFF);
    let mut smi = Switch::new(
        &mut mdio,
        &counter,
        Addressing::Direct,
        Chip::Mv6352,
        Config::new(),
    )
    .unwrap();
    let r = smi.software_reset();
    assert!(
        matches!(
            r,
            Err(Error::Timeout(BusyTimeout {
                wait: BusyWait::InitReady,
                ..
            }))
        ),
        "{r:?} in {} frames",
        smi.frames()
    );
}

/// A switch model whose reset pin the test pulls: at the first frame after `pulse` is set
/// the chip comes back with every register at its reset value (a new model), as after a
/// hardware reset.
struct ResetPin {
    model: SwitchModel,
    chip: Chip,
    pulse: std::rc::Rc<std::cell::Cell<bool>>,
}

impl ResetPin {
    fn settle(&mut self) {
        if self.pulse.take() {
            self.model = SwitchModel::new().with_chip(ChipModel::new(self.chip, Attach::Direct));
        }
    }
}

impl MdioDevice for ResetPin {
    fn read(&mut self, now: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        self.settle();
        self.model.read(now, phy, reg)
    }
    fn write(&mut self, now: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        self.settle();
        self.model.write(now, phy, reg, value)
    }
}

/// A hardware reset puts G1_ATU_FID back to 0 (and G1_VTU_FID / G1_VTU_SID): the driver
/// must not skip writing a FID it wrote before the reset. `after_hardware_reset` is the
/// firmware's word that the block was reset.
#[test]
fn a_hardware_reset_forgets_the_unit_data_the_driver_wrote() {
    let pulse = std::rc::Rc::new(std::cell::Cell::new(false));
    let chip = Chip::Mv6352;
    let pin = ResetPin {
        model: SwitchModel::new().with_chip(ChipModel::new(chip, Attach::Direct)),
        chip,
        pulse: std::rc::Rc::clone(&pulse),
    };
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, SIM_COUNTER_HZ).with_read_cost(SIM_COUNTER_READ_NS);
    let mut bus = SimMdio::new(&clock, SIM_MDC_HZ, pin);
    let mut smi = Switch::new(&mut bus, &counter, Addressing::Direct, chip, Config::new()).unwrap();
    let (a, b) = (MacAddr([2, 0, 0, 0, 0, 1]), MacAddr([2, 0, 0, 0, 0, 2]));
    smi.atu_load(&AtuEntry::new_static(5, a, 0b10)).unwrap();
    let mut vlan = VtuEntry::new(10, 5).with_member(1, Member::Tagged);
    vlan.sid = 2;
    smi.vtu_load(&vlan).unwrap();
    // The firmware pulls the reset pin, releases it, and tells the driver.
    pulse.set(true);
    clock.advance(HW_RESET_ASSERT_NS + HW_RESET_SETTLE_NS);
    smi.after_hardware_reset().unwrap();
    smi.atu_load(&AtuEntry::new_static(5, b, 0b10)).unwrap();
    vlan.vid = 20;
    smi.vtu_load(&vlan).unwrap();
    // The VTU's GetNext reads the FID and SID back from the switch.
    let got = smi.vtu_get_next(19).unwrap().map(|e| (e.vid, e.fid, e.sid));
    let bus = smi.release();
    let entries = bus.device().model.chip(0).unwrap().atu_entries();
    assert!(
        entries.iter().any(|e| (e.0, e.1) == (5, b.0)) && got == Some((20, 5, 2)),
        "after the reset: the model's ATU {entries:x?} (b in FID 5?), VLAN 20 {got:?} (FID 5, SID 2?)"
    );
}
