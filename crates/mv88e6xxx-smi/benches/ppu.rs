//! The PPU hold on a PPU-gated chip (88E6185, multi-chip mode, 2.5 MHz MDC), on the
//! behavioural model in virtual time (deterministic): MDIO frames and virtual µs per PHY
//! access in a run of 32 reads, the PPU held across the run (restarted once, by
//! `ppu_release` at the end) versus stopped and restarted around every access; and the
//! share of time the PPU is off for a firmware that reads its 10 PHYs once a second for
//! 10 s, without a timer (nothing calls `service`) and with a slot of a hwtimer-core
//! `HrTimers` queue lent to the switch (`service` called on its expiry only). Prints
//! `bench: mv88e6xxx-smi/<metric> = <value> <unit>` lines.
//!
//! Run: `cargo bench -p mv88e6xxx-smi --bench ppu`.

use bench_support::Printer;
use hwtimer_core::sim::{SimClockEvent, SimCounter};
use hwtimer_core::{Alarm, Extended, HrTimers, Restart};
use mdio_bus::{PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, ChipModel, FRAME_NS, SwitchSim};
use mv88e6xxx_smi::{Config, PpuQueueTimer, Switch};

/// Prints this crate's `bench:` figures.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

const RUN: u32 = 32;

fn fail(what: &str, e: impl std::fmt::Debug) -> ! {
    eprintln!("{what} failed: {e:?}");
    std::process::exit(1);
}

/// Frames, virtual ns, PPU stops and collisions of a run of `RUN` PHY reads (including
/// the final restart of a held PPU).
fn run(hold: bool) -> (u64, u64, u64, u64) {
    let mut sim =
        SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)).with_port_phys());
    let (mut smi, _) = Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new())
        .unwrap_or_else(|e| fail("probe", e));
    smi.set_ppu_hold(hold)
        .unwrap_or_else(|e| fail("set_ppu_hold", e));
    let (f0, t0) = (smi.frames(), sim.clock.now_ns());
    for i in 0..RUN {
        let phy = PhyAddr::from_bits((i % 10) as u8);
        smi.phy_read(phy, RegAddr::from_bits(1))
            .unwrap_or_else(|e| fail("phy_read", e));
    }
    smi.ppu_release().unwrap_or_else(|e| fail("ppu_release", e));
    let (frames, ns) = (smi.frames() - f0, sim.clock.now_ns() - t0);
    let _ = smi.release();
    let m = sim
        .bus
        .device()
        .chip(0)
        .unwrap_or_else(|| fail("model", ()));
    (frames, ns, m.ppu_stops(), m.ppu_collisions())
}

/// Seconds of the periodic-poll firmware.
const POLL_SECONDS: u64 = 10;

/// Share of virtual time (%) the PPU is off for a firmware that reads PHYs 0..9 (BMSR)
/// once a second for [`POLL_SECONDS`], with or without a timer slot lent to the switch.
fn periodic_poll_ppu_off_percent(with_timer: bool) -> f64 {
    type Timers = HrTimers<SimClockEvent, Extended<SimCounter>, 2>;
    let mut sim =
        SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)).with_port_phys());
    let event = SimClockEvent::new(&sim.clock, 25_000_000, 1, u64::from(u32::MAX));
    let probe = event.probe();
    let time = Extended::new(SimCounter::new(&sim.clock, 32, 25_000_000));
    let alarm = Alarm::new(event, time).unwrap_or_else(|e| fail("alarm", e));
    let timers: &'static Timers = Box::leak(Box::new(HrTimers::new(alarm)));
    let slot = Box::leak(Box::new(
        PpuQueueTimer::new(timers).unwrap_or_else(|e| fail("slot", e)),
    ));
    let id = slot.id();
    let (mut smi, _) = Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new())
        .unwrap_or_else(|e| fail("probe", e));
    if with_timer {
        smi.set_ppu_timer(Some(slot))
            .unwrap_or_else(|e| fail("set_ppu_timer", e));
    }
    let t0 = sim.clock.now_ns();
    for second in 0..POLL_SECONDS {
        for phy in 0..10u8 {
            smi.phy_read(PhyAddr::from_bits(phy), RegAddr::from_bits(1))
                .unwrap_or_else(|e| fail("phy_read", e));
        }
        let next = t0 + (second + 1) * 1_000_000_000;
        // Sleep until the next poll, waking for the queue's expiries only.
        while let Some(at) = probe.next_fire_ns().filter(|&t| t < next) {
            sim.clock.advance_to(at);
            let mut expired = false;
            timers
                .on_interrupt(|t, _| {
                    expired |= t == id;
                    Restart::No
                })
                .unwrap_or_else(|e| fail("on_interrupt", e));
            if expired {
                smi.service().unwrap_or_else(|e| fail("service", e));
            }
        }
        sim.clock.advance_to(next);
    }
    let now = sim.clock.now_ns();
    let _ = smi.release();
    let m = sim
        .bus
        .device()
        .chip(0)
        .unwrap_or_else(|| fail("model", ()));
    if m.ppu_collisions() != 0 {
        fail("periodic poll", "PPU collisions");
    }
    m.ppu_off_ns(now) as f64 * 100.0 / (now - t0) as f64
}

fn main() {
    println!("# 88E6185 multi-chip, {FRAME_NS} ns/frame, run of {RUN} PHY reads, virtual time");
    let mut per = [0.0f64; 2];
    for (i, (name, hold)) in [("held", true), ("per_access", false)]
        .into_iter()
        .enumerate()
    {
        let (frames, ns, stops, collisions) = run(hold);
        if collisions != 0 {
            fail("run", format!("{collisions} PPU collisions"));
        }
        per[i] = ns as f64 / f64::from(RUN) / 1000.0;
        OUT.figure(
            &format!("ppu_{name}_frames_per_phy_access"),
            format!("{:.2}", frames as f64 / f64::from(RUN)),
            "frames",
        );
        OUT.figure(
            &format!("ppu_{name}_us_per_phy_access"),
            format!("{:.1}", per[i]),
            "us",
        );
        OUT.figure(&format!("ppu_{name}_ppu_stops"), stops, "stops");
    }
    OUT.figure(
        "ppu_per_access_vs_held",
        format!("{:.2}", per[1] / per[0]),
        "x",
    );
    println!("# 10 PHY reads once a second for {POLL_SECONDS} s: share of time the PPU is off");
    OUT.figure(
        "ppu_off_percent_1s_poll_no_timer",
        format!("{:.2}", periodic_poll_ppu_off_percent(false)),
        "%",
    );
    OUT.figure(
        "ppu_off_percent_1s_poll_queue_timer",
        format!("{:.2}", periodic_poll_ppu_off_percent(true)),
        "%",
    );
}
