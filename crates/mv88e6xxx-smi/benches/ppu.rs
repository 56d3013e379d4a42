//! The PPU hold on a PPU-gated chip (88E6185, multi-chip mode, 2.5 MHz MDC), on the
//! behavioural model in virtual time (deterministic): MDIO frames and virtual µs per PHY
//! access in a run of 32 reads, the PPU held across the run (restarted once, by
//! `ppu_release` at the end) versus stopped and restarted around every access. Prints
//! `bench: mv88e6xxx-smi/<metric> = <value> <unit>` lines.
//!
//! Run: `cargo bench -p mv88e6xxx-smi --bench ppu`.

use bench_support::Printer;
use mdio_bus::{PhyAddr, RegAddr};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, ChipModel, FRAME_NS, SwitchSim};
use mv88e6xxx_smi::{Config, Switch};

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
}
