//! MIB snapshot cost on the behavioural model, in virtual time (deterministic: no host
//! clock is read): MDIO frames and µs per bank-0 snapshot of one port (capture + 30
//! counters, 32 reads), this crate (`stats::Mib`) against Linux's register sequence
//! replayed on the model (`sim::stats_linux`), on an 88E6352 in indirect mode (`sw_addr`
//! 2) and in direct mode; and the frames of a flush of all counters. Then the full
//! snapshot (`Mib::snapshot_all` against `LinuxStats::snapshot_all`: bank 0 and bank 1
//! on an 88E6390, bank 0 and the port registers on an 88E6352), indirect and direct.
//! Prints `bench:
//! mv88e6xxx-smi/<metric> = <value> <unit>` lines.
//!
//! Run: `cargo bench -p mv88e6xxx-smi --bench stats`.

use bench_support::Printer;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::stats_linux::LinuxStats;
use mv88e6xxx_smi::sim::{Attach, ChipModel, FRAME_NS, SwitchSim};
use mv88e6xxx_smi::stats::{HistogramMode, Mib};
use mv88e6xxx_smi::{Addressing, Config, Switch};

/// Frames and virtual ns per full snapshot of port 1 (steady state, `n` of them), this
/// crate then Linux, on `chip` attached as `attach`.
fn full_snapshot(chip: Chip, attach: Attach, n: u64) -> ((u64, u64), (u64, u64)) {
    let sw = match attach {
        Attach::Indirect(a) => a,
        _ => 0,
    };
    let addressing = Addressing::select(chip.family(), sw).unwrap_or_else(|e| fail("select", e));
    let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
    let mib = Mib::new(HistogramMode::RxTx);
    let mut smi = Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
        .unwrap_or_else(|e| fail("attach", e));
    mib.snapshot_all(&mut smi, 1)
        .unwrap_or_else(|e| fail("snapshot_all", e));
    let (f0, t0) = (smi.frames(), sim.clock.now_ns());
    for _ in 0..n {
        mib.snapshot_all(&mut smi, 1)
            .unwrap_or_else(|e| fail("snapshot_all", e));
    }
    let ours = ((smi.frames() - f0) / n, (sim.clock.now_ns() - t0) / n);
    let _ = smi.release();
    let (lf, lns) = measure(&mut sim, |sim| {
        let mut linux = LinuxStats::new(&mut sim.bus, chip, attach);
        for _ in 0..n {
            linux
                .snapshot_all(1)
                .unwrap_or_else(|e| fail("linux snapshot_all", e));
        }
    });
    (ours, (lf / n, lns / n))
}

/// Prints this crate's `bench:` figures.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what} failed: {e}");
    std::process::exit(1);
}

/// Frames and virtual ns of `f` on `sim`'s bus.
fn measure(sim: &mut SwitchSim, f: impl FnOnce(&mut SwitchSim)) -> (u64, u64) {
    let (f0, t0) = (sim.bus.frames(), sim.clock.now_ns());
    f(sim);
    (sim.bus.frames() - f0, sim.clock.now_ns() - t0)
}

fn main() {
    const N: u64 = 20;
    let chip = Chip::Mv6352;
    println!(
        "# 88E6352, 2.5 MHz MDC ({FRAME_NS} ns/frame), STATS BUSY clears 20 us after each op, \
         virtual time; {N} snapshots of port 1 each, steady state"
    );
    for (mode, attach) in [
        ("indirect", Attach::Indirect(2)),
        ("direct", Attach::Direct),
    ] {
        let sw = match attach {
            Attach::Indirect(a) => a,
            _ => 0,
        };
        let addressing =
            Addressing::select(chip.family(), sw).unwrap_or_else(|e| fail("select", e));
        let mut sim = SwitchSim::single(ChipModel::new(chip, attach));
        let mib = Mib::new(HistogramMode::RxTx);

        // This crate: a snapshot polls STATS BUSY once before its capture.
        let first = {
            let mut smi = Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
                .unwrap_or_else(|e| fail("attach", e));
            let f0 = smi.frames();
            mib.snapshot(&mut smi, 1)
                .unwrap_or_else(|e| fail("snapshot", e));
            smi.frames() - f0
        };
        let mut smi = Switch::new(&mut sim.bus, &sim.counter, addressing, chip, Config::new())
            .unwrap_or_else(|e| fail("attach", e));
        mib.snapshot(&mut smi, 1)
            .unwrap_or_else(|e| fail("snapshot", e));
        let (f0, t0) = (smi.frames(), sim.clock.now_ns());
        for _ in 0..N {
            mib.snapshot(&mut smi, 1)
                .unwrap_or_else(|e| fail("snapshot", e));
        }
        let crate_frames = (smi.frames() - f0) / N;
        let crate_ns = (sim.clock.now_ns() - t0) / N;
        mib.flush_all(&mut smi)
            .unwrap_or_else(|e| fail("flush_all", e));
        let f1 = smi.frames();
        mib.flush_all(&mut smi)
            .unwrap_or_else(|e| fail("flush_all", e));
        let crate_flush = smi.frames() - f1;
        let _ = smi.release();

        // Linux's sequence on the same model.
        let (linux_frames, linux_ns) = measure(&mut sim, |sim| {
            let mut linux = LinuxStats::new(&mut sim.bus, chip, attach);
            for _ in 0..N {
                linux
                    .snapshot(1)
                    .unwrap_or_else(|e| fail("linux snapshot", e));
            }
        });
        let (linux_clear, _) = measure(&mut sim, |sim| {
            LinuxStats::new(&mut sim.bus, chip, attach)
                .clear()
                .unwrap_or_else(|e| fail("linux clear", e));
        });

        OUT.figure(
            &format!("this_crate_frames_per_snapshot_{mode}"),
            crate_frames,
            "frames",
        );
        OUT.figure(
            &format!("linux_frames_per_snapshot_{mode}"),
            linux_frames / N,
            "frames",
        );
        OUT.figure(
            &format!("this_crate_us_per_snapshot_{mode}"),
            format!("{:.1}", crate_ns as f64 / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("linux_us_per_snapshot_{mode}"),
            format!("{:.1}", linux_ns as f64 / N as f64 / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("this_crate_frames_first_snapshot_{mode}"),
            first,
            "frames",
        );
        OUT.figure(
            &format!("this_crate_frames_per_flush_all_{mode}"),
            crate_flush,
            "frames",
        );
        OUT.figure(
            &format!("linux_frames_per_stats_clear_{mode}"),
            linux_clear,
            "frames",
        );
    }

    for (name, chip) in [("6390", Chip::Mv6390), ("6352", Chip::Mv6352)] {
        for (mode, attach) in [
            ("indirect", Attach::Indirect(2)),
            ("direct", Attach::Direct),
        ] {
            let ((cf, cns), (lf, lns)) = full_snapshot(chip, attach, N);
            OUT.figure(
                &format!("this_crate_frames_per_full_snapshot_{name}_{mode}"),
                cf,
                "frames",
            );
            OUT.figure(
                &format!("linux_frames_per_full_snapshot_{name}_{mode}"),
                lf,
                "frames",
            );
            OUT.figure(
                &format!("this_crate_us_per_full_snapshot_{name}_{mode}"),
                format!("{:.1}", cns as f64 / 1000.0),
                "us",
            );
            OUT.figure(
                &format!("linux_us_per_full_snapshot_{name}_{mode}"),
                format!("{:.1}", lns as f64 / 1000.0),
                "us",
            );
        }
    }
}
