//! Figures against Linux's "Improve indirect addressing performance" patches, on the behavioural switch model in virtual time
//! (deterministic: no host clock is read). Prints `bench: mv88e6xxx-smi/<metric> = <value>
//! <unit>` lines for `cargo xtask bench` and the README.
//!
//! Run: `cargo bench -p mv88e6xxx-smi --bench seed`.

use bench_support::Printer;
use mv88e6xxx_smi::sim::seed::{
    SEED_AFTER_NS, SEED_BEFORE_NS, SEED_BUSY_PATTERN_NS, Strategy, implied_accesses,
    measure_access, seed_workload,
};
use mv88e6xxx_smi::sim::{BusyDelay, FRAME_NS};

/// Prints this crate's `bench:` figures and `series:` points.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what} failed: {e}");
    std::process::exit(1);
}

fn main() {
    const N: u32 = 1_000;
    println!(
        "# 6097 in multi-chip mode, 2.5 MHz MDC ({FRAME_NS} ns/frame), virtual time; \
         seed busy pattern {SEED_BUSY_PATTERN_NS:?} ns"
    );
    let strategies = [
        ("pre_seed", Strategy::PreSeed),
        ("patch1", Strategy::Patch1),
        ("this_crate", Strategy::ThisCrate),
    ];
    // (a) frames per indirect access, BUSY clear on the first poll.
    for (name, s) in strategies {
        for (op, write) in [("read", false), ("write", true)] {
            let c = measure_access(s, write, N, BusyDelay::fixed(20_000))
                .unwrap_or_else(|e| fail("measure_access", e));
            OUT.figure(
                &format!("{name}_frames_per_indirect_{op}"),
                format!("{:.2}", c.frames as f64 / f64::from(N)),
                "frames",
            );
            OUT.figure(
                &format!("{name}_us_per_indirect_{op}_fast"),
                format!("{:.3}", c.ns as f64 / f64::from(N) / 1000.0),
                "us",
            );
        }
    }
    // Per access with the seed's 50 % / 50 % busy pattern.
    let mut avg = [0.0f64; 3];
    for (i, (name, s)) in strategies.into_iter().enumerate() {
        let c = measure_access(s, false, N, BusyDelay::cycle(&SEED_BUSY_PATTERN_NS))
            .unwrap_or_else(|e| fail("measure_access", e));
        avg[i] = c.ns as f64 / f64::from(N);
        OUT.figure(
            &format!("{name}_us_per_access_seed_pattern"),
            format!("{:.3}", avg[i] / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("{name}_frames_per_access_seed_pattern"),
            format!("{:.2}", c.frames as f64 / f64::from(N)),
            "frames",
        );
    }
    // (b) probe-like workload on 3 chips / 20 ports, sized from the seed's 15.99 s.
    let n = implied_accesses(SEED_BEFORE_NS, avg[0]);
    let per_chip = (n / 3) as u32;
    OUT.figure("probe_accesses", per_chip as u64 * 3 + 3, "accesses");
    let mut total = [0u64; 3];
    for (i, (name, s)) in strategies.into_iter().enumerate() {
        let c = seed_workload(s, per_chip).unwrap_or_else(|e| fail("seed_workload", e));
        total[i] = c.ns;
        OUT.figure(
            &format!("probe_{name}"),
            format!("{:.3}", c.ns as f64 / 1e9),
            "s",
        );
        OUT.figure(&format!("probe_{name}_frames"), c.frames, "frames");
    }
    OUT.figure(
        "seed_modprobe_before",
        format!("{:.2}", SEED_BEFORE_NS as f64 / 1e9),
        "s",
    );
    OUT.figure(
        "seed_modprobe_after_patch1",
        format!("{:.2}", SEED_AFTER_NS as f64 / 1e9),
        "s",
    );
    OUT.figure(
        "probe_ratio_pre_seed_vs_this_crate",
        format!("{:.2}", total[0] as f64 / total[2] as f64),
        "x",
    );
    OUT.figure(
        "probe_ratio_pre_seed_vs_patch1",
        format!("{:.2}", total[0] as f64 / total[1] as f64),
        "x",
    );
    OUT.figure(
        "seed_ratio_before_vs_after",
        format!("{:.2}", SEED_BEFORE_NS as f64 / SEED_AFTER_NS as f64),
        "x",
    );
}
