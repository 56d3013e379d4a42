//! The behavioural model against the facts of docs/otto-timer.md, through raw register
//! accesses (no driver involved), so the driver tests stand on a model that is itself
//! checked.

use hwtimer_core::RegisterBusExt;
use hwtimer_core::sim::SimBus;
use otto_timer::Soc;
use otto_timer::regs::{CNT, CTRL, DATA, INT, TimerRegs};
use otto_timer::sim::{LOST_IRQ_WINDOW_NS, LostIrqQuirk, OttoModel, OttoSim};

const TICK_NS: u64 = 320; // 3.125 MHz

fn sim() -> (OttoSim, SimBus<OttoModel>) {
    // Free accesses so the arithmetic below is exact.
    let sim = OttoSim::with_model(OttoModel::new(Soc::Rtl838x), 0, 0);
    let bus = sim.bus();
    (sim, bus)
}

fn start(bus: &SimBus<OttoModel>, n: usize, periodic: bool, divisor: u32) {
    let mode = if periodic {
        CTRL::MODE::Timer
    } else {
        CTRL::MODE::Counter
    };
    bus.write(
        TimerRegs::of(n).ctrl,
        CTRL::ENABLE::SET + mode + CTRL::DIVISOR.val(divisor),
    );
}

fn cnt(bus: &SimBus<OttoModel>, n: usize) -> u32 {
    bus.read(TimerRegs::of(n).cnt).read(CNT::CNT)
}

#[test]
fn counter_ticks_at_lxb_over_divisor_and_freezes_when_disabled() {
    let (sim, bus) = sim();
    let r = TimerRegs::of(1);
    bus.write(r.data, DATA::DATA.val(0));
    start(&bus, 1, true, 64); // 200 MHz / 64 = 3.125 MHz
    sim.clock().advance(TICK_NS * 10 - 1);
    assert_eq!(cnt(&bus, 1), 9);
    sim.clock().advance(1);
    assert_eq!(cnt(&bus, 1), 10);
    bus.write_raw(r.ctrl, 0);
    sim.clock().advance(1_000_000);
    assert_eq!(cnt(&bus, 1), 10, "a disabled timer does not count");
    start(&bus, 1, true, 32); // 6.25 MHz: 160 ns per tick
    sim.clock().advance(160 * 5);
    assert_eq!(cnt(&bus, 1), 15, "resumes from its value at the new rate");
}

#[test]
fn rtl930x_175mhz_with_divisor_56_is_also_3_125mhz() {
    let sim = OttoSim::with_model(OttoModel::new(Soc::Rtl930x), 0, 0);
    let bus = sim.bus();
    start(&bus, 0, true, 56);
    sim.clock().advance(TICK_NS * 1000);
    assert_eq!(cnt(&bus, 0), 1000);
}

#[test]
fn cnt_is_read_only_and_data_write_resets_the_counter() {
    let (sim, bus) = sim();
    let r = TimerRegs::of(0);
    bus.write(r.data, DATA::DATA.val(0));
    start(&bus, 0, true, 64);
    sim.clock().advance(TICK_NS * 100);
    bus.write_raw(r.cnt, 5);
    assert_eq!(cnt(&bus, 0), 100, "CNT writes are ignored");
    bus.write(r.data, DATA::DATA.val(1000));
    assert_eq!(cnt(&bus, 0), 0, "writing DATA resets the counter");
    assert_eq!(bus.read(r.data).read(DATA::DATA), 1000);
    sim.clock().advance(TICK_NS * 7);
    assert_eq!(cnt(&bus, 0), 7);
    assert_eq!(sim.stats(0).cnt_writes, 1);
}

#[test]
fn timer_mode_wraps_to_zero_at_data_latches_ip_and_ip_is_w1c() {
    let (sim, bus) = sim();
    let r = TimerRegs::of(2);
    bus.write(r.int, INT::IE::SET);
    bus.write(r.data, DATA::DATA.val(100));
    start(&bus, 2, true, 64);
    sim.clock().advance(TICK_NS * 99);
    assert_eq!(cnt(&bus, 2), 99);
    assert!(!bus.read(r.int).is_set(INT::IP));
    sim.clock().advance(TICK_NS);
    assert_eq!(cnt(&bus, 2), 0, "TIMER mode: back to 0 at DATA");
    assert!(bus.read(r.int).is_set(INT::IP));
    assert!(sim.irq_asserted(2));
    sim.clock().advance(TICK_NS * 30);
    assert_eq!(cnt(&bus, 2), 30, "…and keeps running");
    // Writing IE alone (IP = 0) does not clear the pending bit.
    bus.write(r.int, INT::IE::SET);
    assert!(bus.read(r.int).is_set(INT::IP));
    // Writing IP = 1 clears it; IE as written.
    bus.write(r.int, INT::IE::SET + INT::IP::SET);
    let int = bus.read(r.int);
    assert!(!int.is_set(INT::IP) && int.is_set(INT::IE));
    sim.clock().advance(TICK_NS * 70);
    assert!(sim.irq_asserted(2), "next period latches again");
    assert_eq!(sim.stats(2).fired, 2);
}

#[test]
fn ip_latches_without_ie_but_the_line_needs_ie() {
    let (sim, bus) = sim();
    let r = TimerRegs::of(0);
    bus.write(r.data, DATA::DATA.val(10));
    start(&bus, 0, false, 64);
    sim.clock().advance(TICK_NS * 10);
    assert!(bus.read(r.int).is_set(INT::IP));
    assert!(!sim.irq_asserted(0));
    bus.write(r.int, INT::IE::SET);
    assert!(sim.irq_asserted(0));
}

#[test]
fn counter_mode_resets_and_stops_at_target() {
    let (sim, bus) = sim();
    let r = TimerRegs::of(0);
    bus.write(r.data, DATA::DATA.val(50));
    start(&bus, 0, false, 64);
    sim.clock().advance(TICK_NS * 49);
    assert_eq!(cnt(&bus, 0), 49);
    sim.clock().advance(TICK_NS * 1000);
    assert_eq!(cnt(&bus, 0), 0, "COUNTER mode: reset and stopped");
    assert_eq!(sim.stats(0).fired, 1, "a oneshot fires once");
    // Restart needs ENABLE 0 -> 1.
    bus.write_raw(r.ctrl, 0);
    start(&bus, 0, false, 64);
    sim.clock().advance(TICK_NS * 50);
    assert_eq!(sim.stats(0).fired, 2);
}

#[test]
fn data_zero_free_runs_across_the_28_bit_wrap() {
    let (sim, bus) = sim();
    bus.write(TimerRegs::of(3).data, DATA::DATA.val(0));
    start(&bus, 3, true, 64);
    let wrap_ns = TICK_NS << 28; // 85.9 s
    sim.clock().advance(wrap_ns - TICK_NS);
    assert_eq!(cnt(&bus, 3), 0x0FFF_FFFF);
    sim.clock().advance(TICK_NS);
    assert_eq!(cnt(&bus, 3), 0);
    sim.clock().advance(TICK_NS * 3);
    assert_eq!(cnt(&bus, 3), 3);
}

#[test]
fn outside_the_block_reads_all_ones() {
    let (_sim, bus) = sim();
    assert_eq!(bus.read_raw(TimerRegs::of(5).ctrl), u32::MAX); // RTL838x has 5 timers
    bus.write_raw(TimerRegs::of(7).data, 3); // dropped, no panic
}

const VARIANTS: [LostIrqQuirk; 3] = [
    LostIrqQuirk::CarriedIntoReload,
    LostIrqQuirk::CompletesOnResume,
    LostIrqQuirk::Off,
];

/// A running 100-tick oneshot with the interrupt enabled, on free accesses, stopped
/// `lead_ns` before its expiry (CTRL = 0). Returns the sim at the moment after the stop.
fn stopped_near_expiry(lead_ns: u64, quirk: LostIrqQuirk) -> (OttoSim, SimBus<OttoModel>) {
    let sim = OttoSim::with_model(OttoModel::new(Soc::Rtl838x).with_lost_irq(quirk), 0, 0);
    let bus = sim.bus();
    let r = TimerRegs::of(0);
    bus.write(r.int, INT::IE::SET);
    bus.write(r.data, DATA::DATA.val(100));
    start(&bus, 0, false, 64);
    sim.clock().advance(TICK_NS * 100 - lead_ns);
    bus.write_raw(r.ctrl, 0);
    (sim, bus)
}

/// Stop `lead_ns` before the expiry of a running 100-tick oneshot, then reprogram it
/// for 200 ticks with the plain stop/DATA/start sequence (pre-v6.18 Linux).
fn naive_reprogram_at(lead_ns: u64, quirk: LostIrqQuirk) -> (OttoSim, Option<u64>) {
    let (sim, bus) = stopped_near_expiry(lead_ns, quirk);
    bus.write(TimerRegs::of(0).data, DATA::DATA.val(200));
    start(&bus, 0, false, 64);
    let t = sim.advance_to_next_irq(0);
    (sim, t)
}

#[test]
fn quirk_naive_reprogram_inside_the_window_loses_the_interrupt() {
    for lead in [1, 320, 2_000, LOST_IRQ_WINDOW_NS] {
        let (sim, irq) = naive_reprogram_at(lead, LostIrqQuirk::CarriedIntoReload);
        assert_eq!(irq, None, "lead {lead} ns: the CPU waits forever");
        sim.clock().advance(TICK_NS * 1000);
        let s = sim.stats(0);
        assert_eq!((s.fired, s.lost, s.in_flight), (0, 1, 1), "lead {lead} ns");
        assert!(!sim.irq_asserted(0));
    }
}

#[test]
fn quirk_needs_the_window_and_an_affected_chip() {
    // Outside the window the same sequence works on every variant; inside it, on the
    // unaffected chip and on the variant whose in-flight expiry a reload discards.
    for quirk in VARIANTS {
        for lead in [1_000, LOST_IRQ_WINDOW_NS + TICK_NS] {
            if lead <= LOST_IRQ_WINDOW_NS && quirk == LostIrqQuirk::CarriedIntoReload {
                continue; // the lossy case, above
            }
            let (sim, irq) = naive_reprogram_at(lead, quirk);
            let start = sim.stats(0).starts[1].at_ns;
            assert_eq!(irq, Some(start + 200 * TICK_NS), "lead {lead} {quirk:?}");
            let s = sim.stats(0);
            assert_eq!(s.lost, 0, "lead {lead} {quirk:?}");
            let in_window = lead <= LOST_IRQ_WINDOW_NS && quirk != LostIrqQuirk::Off;
            assert_eq!(s.in_flight, u64::from(in_window), "{quirk:?}");
            assert_eq!(s.settled, s.in_flight, "{quirk:?}: discarded by the reload");
        }
    }
}

#[test]
fn quirk_variants_differ_on_a_pause_and_resume_near_expiry() {
    // Stop 1 µs before expiry, start again with nothing changed: the variant that
    // completes the in-flight match on the old target loses that target's interrupt; the
    // variant that carries it into a reload lets it settle and the target fires.
    for quirk in VARIANTS {
        let (sim, bus) = stopped_near_expiry(1_000, quirk);
        start(&bus, 0, false, 64);
        let t0 = sim.clock().now_ns();
        let irq = sim.advance_to_next_irq(0);
        let s = sim.stats(0);
        match quirk {
            LostIrqQuirk::CompletesOnResume => {
                assert_eq!(irq, None, "{quirk:?}");
                assert_eq!(cnt(&bus, 0), 0, "reset and stopped as at an expiry");
                assert_eq!((s.fired, s.lost), (0, 1));
            }
            _ => {
                // The counter resumes from 96 (1 µs = 3.1 ticks before 100).
                assert_eq!(irq, Some(t0 + 4 * TICK_NS), "{quirk:?}");
                assert_eq!((s.fired, s.lost), (1, 0), "{quirk:?}");
            }
        }
    }
}

#[test]
fn quirk_bounce_through_the_slowest_divisor_keeps_the_interrupt_on_every_variant() {
    for quirk in VARIANTS {
        let (sim, bus) = stopped_near_expiry(1_000, quirk); // inside the window
        let r = TimerRegs::of(0);
        start(&bus, 0, false, 0xFFFF); // same target, slowest divisor
        bus.write_raw(r.ctrl, 0); // now ≥ 327 µs from the target
        bus.write(r.data, DATA::DATA.val(200));
        start(&bus, 0, false, 64);
        let t0 = sim.clock().now_ns();
        assert_eq!(
            sim.advance_to_next_irq(0),
            Some(t0 + 200 * TICK_NS),
            "{quirk:?}"
        );
        let s = sim.stats(0);
        assert_eq!(s.fired, 1, "{quirk:?}");
        // CompletesOnResume spends the in-flight expiry on the bounce's own target (the
        // one nobody waits for); the others settle it.
        let expect_lost = u64::from(quirk == LostIrqQuirk::CompletesOnResume);
        assert_eq!(s.lost, expect_lost, "{quirk:?}");
    }
}

#[test]
fn the_bus_clock_is_the_board_s() {
    // RTL930x with its LXB derived at 153.125 MHz: divisor 49 gives 3.125 MHz.
    let model = OttoModel::new(Soc::Rtl930x).with_bus_clock_hz(153_125_000);
    assert_eq!(model.bus_clock_hz(), 153_125_000);
    let sim = OttoSim::with_model(model, 0, 0);
    let bus = sim.bus();
    start(&bus, 0, true, 49);
    sim.clock().advance(TICK_NS * 1000);
    assert_eq!(cnt(&bus, 0), 1000);
}
