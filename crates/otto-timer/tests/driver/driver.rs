//! The driver against the model, for what hwtimer-core's conformance suite
//! (`tests/driver/conformance.rs`) cannot say: the clocksource, the board's bus clock, the modes
//! the model saw, the no-acknowledge rule counted on the model, the lost-interrupt quirk,
//! the per-CPU layout, what dropping a timer leaves behind, and the documented MMIO costs.

use hwtimer_core::sim::{IrqSource, SimBus};
use hwtimer_core::{
    Alarm, ClockEvent, Clocksource, ConfigError, Error, Extended, Fired, Monotonic, RegisterBusExt,
};
use otto_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use otto_timer::regs::{INT, TimerRegs};
use otto_timer::sim::seed::{naive_set_next_event_cost, set_next_event_naive};
use otto_timer::sim::{
    LOST_IRQ_WINDOW_NS, LostIrqQuirk, OttoModel, OttoSim, SIM_READ_NS, SIM_WRITE_NS,
    measure_mmio_costs,
};
use otto_timer::soc::Irq;
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, PerCpu, Soc};

const TICK_NS: u64 = 320;

fn cfg() -> Config {
    Config::new(Soc::Rtl838x)
}

#[test]
fn clocksource_free_runs_in_timer_mode_with_data_zero() {
    for (soc, divisor) in [(Soc::Rtl838x, 64), (Soc::Rtl930x, 56), (Soc::Rtl931x, 64)] {
        let sim = OttoSim::new(soc);
        let cs = OttoClocksource::new(sim.bus(), &Config::new(soc), 4).unwrap();
        assert_eq!(
            (cs.bits(), cs.freq_hz(), cs.divisor()),
            (28, 3_125_000, divisor)
        );
        let s = sim.stats(4);
        assert_eq!(s.data_writes, vec![0]);
        assert_eq!(s.starts.len(), 1);
        assert!(s.starts[0].periodic, "{soc:?}: TIMER mode");
        assert_eq!(s.starts[0].divisor, divisor);
        assert_eq!(s.cnt_writes, 0, "never writes the read-only CNT");
        let a = cs.read();
        sim.clock().advance(1_000_000);
        let b = cs.read();
        // 1 ms + one 100 ns read = 3125.3 ticks.
        assert_eq!(b - a, 3125, "{soc:?}");
    }
}

#[test]
fn clocksource_extends_to_64_bits_across_wraps() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let cs = OttoClocksource::new(sim.bus(), &cfg(), 1).unwrap();
    let time = Extended::new(&cs);
    let t0 = time.now();
    for _ in 0..30 {
        sim.clock().advance(10_000_000_000); // 10 s, under the 42.9 s half wrap
        time.now();
    }
    let ticks = time.now() - t0;
    let expected = 300 * 3_125_000; // 300 s, ~3.5 wraps of 2^28
    assert!(ticks >= expected && ticks < expected + 100, "{ticks}");
    assert!(ticks > 3 << 28);
}

#[test]
fn the_board_s_bus_clock_sets_the_divisor_and_time_stays_exact() {
    // An RTL930x board whose LXB (derived from the switch PLL) runs at 153.125 MHz, not the
    // DTS's 175 MHz: the driver must program divisor 49, or time runs 12.5 % slow.
    let board = Config::new(Soc::Rtl930x).with_bus_clock_hz(153_125_000);
    let sim = OttoSim::with_model(OttoModel::for_config(&board), 0, 0);
    let cs = OttoClocksource::new(sim.bus(), &board, 4).unwrap();
    assert_eq!((cs.divisor(), cs.freq_hz()), (49, 3_125_000));
    assert_eq!(sim.stats(4).starts[0].divisor, 49);
    let a = cs.read();
    sim.clock().advance(1_000_000);
    assert_eq!(cs.read() - a, 3125, "1 ms at 3.125 MHz");
    // The DTS default on the same board would count 2734 ticks per ms.
    let dts = OttoClocksource::new(sim.bus(), &Config::new(Soc::Rtl930x), 3).unwrap();
    let a = dts.read();
    sim.clock().advance(1_000_000);
    assert_eq!(dts.read() - a, 2734);
    // A clockevent on that board fires after its delta in 320 ns ticks.
    let mut ev = OttoClockEvent::new(sim.bus(), &board, 0).unwrap();
    ev.set_next_event(100).unwrap();
    let start = sim.stats(0).starts.last().unwrap().at_ns;
    assert_eq!(sim.advance_to_next_irq(0), Some(start + 100 * TICK_NS));
    // 6.25 MHz is not reachable from 153.125 MHz: refused before anything is written.
    let before = sim.bus().stats();
    let bad = board.with_tick_hz(6_250_000);
    let unreachable = Some(ConfigError::RateUnreachable.into());
    assert_eq!(OttoClockEvent::new(sim.bus(), &bad, 1).err(), unreachable);
    assert_eq!(OttoTimers::new(sim.bus(), bad).err(), unreachable);
    assert_eq!(sim.bus().stats(), before);
}

#[test]
fn capabilities_and_the_modes_the_model_saw() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    let caps = ev.capabilities();
    assert_eq!((caps.min_delta, caps.max_delta), (MIN_DELTA, MAX_DELTA));
    assert!(!caps.phase_locked && caps.periodic && !caps.absolute);
    // Oneshot = COUNTER mode, periodic = TIMER mode, both at the configured divisor, each
    // after the bounce's start at the slowest divisor.
    ev.set_next_event(100).unwrap();
    ev.set_periodic(31_250).unwrap();
    let starts = sim.stats(0).starts;
    let real: Vec<(bool, u32)> = starts
        .iter()
        .filter(|st| st.divisor == 64)
        .map(|st| (st.periodic, st.data))
        .collect();
    assert_eq!(real, vec![(false, 100), (true, 31_250)]);
    assert_eq!(starts.iter().filter(|st| st.divisor == 0xFFFF).count(), 2);
}

#[test]
fn reprogramming_never_acknowledges_a_pending_interrupt() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    ev.set_next_event(10).unwrap();
    sim.clock().advance(20 * TICK_NS); // fired, not yet handled
    let acks = sim.stats(0).acks; // new() cleared the status once
    ev.set_next_event(1000).unwrap();
    ev.set_periodic(1000).unwrap();
    assert!(
        sim.irq_asserted(0),
        "still pending after two reprograms (docs/otto-timer.md#no-ack-while-reprogramming)"
    );
    assert_eq!(sim.stats(0).acks, acks);
    assert!(ev.ack());
    assert_eq!(sim.stats(0).acks, acks + 1);
}

/// Arm a 100-tick oneshot with the driver on the model running `quirk`, let it run until
/// `lead_ns` before its expiry, then reprogram it for 50 ticks: with the driver's
/// `set_next_event`, or with the pre-v6.18 Linux sequence if `naive`.
/// Returns the clockevent too, still armed, so the timer goes on as it was left.
fn reprogram_near_expiry(
    quirk: LostIrqQuirk,
    lead_ns: u64,
    naive: bool,
) -> (OttoSim, Option<u64>, Event) {
    let model = OttoModel::new(Soc::Rtl838x).with_lost_irq(quirk);
    let sim = OttoSim::with_model(model, SIM_READ_NS, SIM_WRITE_NS);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    ev.set_next_event(100).unwrap();
    let start = sim.stats(0).starts.last().unwrap().at_ns;
    sim.clock().advance_to(start + 100 * TICK_NS - lead_ns);
    if naive {
        set_next_event_naive(&sim.bus(), &cfg(), 0, 50).unwrap();
    } else {
        ev.set_next_event(50).unwrap();
    }
    let irq = sim.line(0).advance_to_next();
    (sim, irq, ev)
}

type Event = OttoClockEvent<SimBus<OttoModel>>;

const VARIANTS: [LostIrqQuirk; 3] = [
    LostIrqQuirk::CarriedIntoReload,
    LostIrqQuirk::CompletesOnResume,
    LostIrqQuirk::Off,
];

#[test]
fn lost_interrupt_naive_reprogram_stalls_the_cpu() {
    // The pre-v6.18 sequence on the lossy (default) variant.
    for lead in [200, 1_000, 4_000] {
        let (sim, irq, _ev) = reprogram_near_expiry(LostIrqQuirk::CarriedIntoReload, lead, true);
        assert_eq!(irq, None, "lead {lead} ns: no interrupt ever comes");
        sim.clock().advance(1_000 * TICK_NS); // well past the new expiry
        assert_eq!((sim.stats(0).fired, sim.stats(0).lost), (0, 1));
    }
}

#[test]
fn lost_interrupt_the_test_tells_the_naive_sequence_from_the_bounce() {
    // The model does not assume the fix: on the benign variant the naive sequence
    // survives, on the lossy one it stalls, and only the sequence is different.
    let mut naive_lost = [0u32; 3];
    for (i, quirk) in VARIANTS.into_iter().enumerate() {
        let mut lead = 50;
        while lead <= LOST_IRQ_WINDOW_NS {
            let (_, irq, _) = reprogram_near_expiry(quirk, lead, true);
            naive_lost[i] += u32::from(irq.is_none());
            lead += 50;
        }
    }
    let points = (LOST_IRQ_WINDOW_NS / 50) as u32;
    assert_eq!(naive_lost, [points, 0, 0], "lossy / benign / off");
}

#[test]
fn lost_interrupt_driver_sequence_keeps_it_at_every_point_of_the_window_on_every_variant() {
    for quirk in VARIANTS {
        let mut lead = 50;
        while lead <= LOST_IRQ_WINDOW_NS + 1_000 {
            let (sim, irq, _ev) = reprogram_near_expiry(quirk, lead, false);
            let start = sim.stats(0).starts.last().unwrap().at_ns;
            assert_eq!(irq, Some(start + 50 * TICK_NS), "{quirk:?} lead {lead} ns");
            let s = sim.stats(0);
            assert_eq!(s.fired, 1, "{quirk:?} lead {lead} ns");
            // Only CompletesOnResume spends an in-flight expiry, and only on the bounce's
            // own (discarded) target.
            let spent = quirk == LostIrqQuirk::CompletesOnResume && s.in_flight > 0;
            assert_eq!(s.lost, u64::from(spent), "{quirk:?} lead {lead} ns");
            // The bounce start used the slowest divisor with the old target.
            let bounce = s.starts[s.starts.len() - 2];
            assert_eq!((bounce.divisor, bounce.data), (0xFFFF, 100));
            lead += 50;
        }
    }
}

#[test]
fn per_cpu_layout_is_linux_s() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let PerCpu { cpus, clocksource } = OttoTimers::new(sim.bus(), cfg())
        .unwrap()
        .per_cpu::<2>()
        .unwrap();
    let got = cpus.each_ref().map(|c| (c.cpu, c.event.index(), c.irq));
    assert_eq!(got, [(0, 0, Irq::RtlIntc(29)), (1, 1, Irq::RtlIntc(28))]);
    assert_eq!(clocksource.index(), 2);
    assert!(sim.stats(2).starts[0].periodic, "clocksource running");

    let sim = OttoSim::new(Soc::Rtl931x);
    let PerCpu {
        cpus: [.., cpu4],
        clocksource,
    } = OttoTimers::new(sim.bus(), Config::new(Soc::Rtl931x))
        .unwrap()
        .per_cpu::<5>()
        .unwrap();
    assert_eq!((cpu4.cpu, cpu4.irq), (4, Irq::GicShared(4)));
    assert_eq!(clocksource.index(), 5);
}

#[test]
fn a_dropped_clockevent_leaves_its_timer_quiet() {
    // Armed, then dropped: nothing fires later, nothing is left pending.
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    ev.set_next_event(1_000).unwrap();
    drop(ev);
    assert_eq!(
        sim.advance_to_next_irq(0),
        None,
        "a dropped clockevent fired"
    );
    sim.clock().advance(10_000 * TICK_NS);
    assert_eq!(sim.stats(0).fired, 0, "the dropped timer kept counting");
    // Fired and not handled, then dropped (through an Alarm and the per-CPU layout): the
    // pending status is cleared and the interrupt masked.
    let PerCpu {
        cpus: [cpu0],
        clocksource,
    } = OttoTimers::new(sim.bus(), cfg())
        .unwrap()
        .per_cpu::<1>()
        .unwrap();
    let time = Extended::new(&clocksource);
    let mut alarm = Alarm::new(cpu0.event, &time).unwrap();
    alarm.set_delta(100).unwrap();
    sim.advance_to_next_irq(0).unwrap();
    assert!(sim.irq_asserted(0));
    drop(alarm);
    assert!(!sim.irq_asserted(0), "the line stayed up after the drop");
    let int = sim.bus().read(TimerRegs::of(0).int);
    assert!(
        !int.is_set(INT::IP) && !int.is_set(INT::IE),
        "INT = {:#x}",
        int.get()
    );
}

#[test]
fn a_dropped_clocksource_stops_its_timer() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let cs = OttoClocksource::new(sim.bus(), &cfg(), 1).unwrap();
    sim.clock().advance(1_000 * TICK_NS);
    drop(cs);
    let frozen = sim.model(|m| m.counter(sim.clock().now_ns(), 1));
    sim.clock().advance(1_000 * TICK_NS);
    assert_eq!(sim.model(|m| m.counter(sim.clock().now_ns(), 1)), frozen);
    assert_eq!(sim.bus().read_raw(TimerRegs::of(1).ctrl), 0, "CTRL");
}

#[test]
fn alarm_on_otto_never_fires_early() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let cs = OttoClocksource::new(sim.bus(), &cfg(), 1).unwrap();
    let time = Extended::new(&cs);
    let ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    let mut alarm = Alarm::new(ev, &time).unwrap();
    let mut wait = 1u64;
    let mut fired_ok = 0;
    for _ in 0..200 {
        let deadline = time.now() + wait;
        if let Err(e) = alarm.set_deadline(deadline) {
            // Reading the time costs bus time: a 1-tick deadline can pass meanwhile.
            match e {
                Error::DeadlinePassed { now } => assert!(now >= deadline),
                other => panic!("{other:?}"),
            }
            wait = wait * 7 % 997 + 1;
            continue;
        }
        let fired = loop {
            sim.advance_to_next_irq(0).unwrap();
            match alarm.on_interrupt() {
                Fired::Rearmed { .. } => continue,
                other => break other,
            }
        };
        match fired {
            Fired::Deadline { deadline: d, now } => {
                assert_eq!(d, deadline);
                assert!(now >= deadline, "early by {} ticks", deadline - now);
                // Late by at most the clamp to min_delta (8), the 1-tick margin, and the
                // MMIO of one reprogram, one ack and one time read (under 2 ticks) plus
                // the prescaler phase difference (under 1 tick).
                let bound = 9u64.saturating_sub(wait).max(1) + 3;
                assert!(
                    now - deadline <= bound,
                    "wait {wait}: late {}",
                    now - deadline
                );
                fired_ok += 1;
            }
            other => panic!("{other:?}"),
        }
        wait = wait * 7 % 997 + 1;
    }
    assert!(fired_ok >= 190, "{fired_ok}");
}

#[test]
fn mmio_costs_match_the_documented_table() {
    let c = measure_mmio_costs(Soc::Rtl838x).unwrap();
    assert_eq!(c.clocksource_read, (1, 0));
    assert_eq!(c.set_next_event, (0, 5));
    assert_eq!(c.ack_pending, (1, 1));
    assert_eq!(c.ack_spurious, (1, 0));
    // With `defmt` on, shutdown reads INT once to log a dropped status.
    let log_read = u64::from(cfg!(feature = "defmt"));
    assert_eq!(c.shutdown, (log_read, 2));
    // The pre-v6.18 sequence, for comparison.
    assert_eq!(naive_set_next_event_cost(Soc::Rtl838x).unwrap(), (0, 3));
    // First arm after shutdown also enables the interrupt: 6 writes.
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    let (r, s) = sim.bus().counted(|| ev.set_next_event(100));
    assert_eq!((r, s.reads, s.writes), (Ok(()), 0, 6));
    let int = sim.bus().read(TimerRegs::of(0).int);
    assert!(int.is_set(INT::IE));
    // Dropping or releasing a timer: 2 writes.
    let (_, s) = sim.bus().counted(|| drop(ev));
    assert_eq!((s.reads, s.writes), (0, 2));
}

#[test]
fn the_block_as_an_irq_source_jumps_to_the_earliest_line() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut late = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    let mut early = OttoClockEvent::new(sim.bus(), &cfg(), 3).unwrap();
    late.set_next_event(1_000).unwrap();
    early.set_next_event(100).unwrap();
    let start = sim.stats(3).starts.last().unwrap().at_ns;
    let mut cpu = &sim;
    assert_eq!(cpu.advance_to_next(), Some(start + 100 * TICK_NS));
    assert!(sim.irq_asserted(3) && !sim.irq_asserted(0));
    assert!(early.ack());
    let at = cpu.advance_to_next().unwrap();
    assert!(sim.irq_asserted(0), "timer 0's line at {at} ns");
    assert!(late.ack());
    assert_eq!(cpu.advance_to_next(), None, "nothing armed");
}
