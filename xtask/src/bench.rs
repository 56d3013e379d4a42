//! `cargo xtask bench`: collects benchmark figures from the host benches and the firmware.
//!
//! # Protocol
//!
//! A figure is one line on stdout:
//!
//! ```text
//! bench: <crate>/<metric> = <value> <unit>
//! ```
//!
//! e.g. `bench: hwtimer-core/extend_32_to_64 = 3.1 ns`. `<crate>` and `<metric>` contain no
//! spaces, `<value>` is a number, `<unit>` one word (`ns`, `insns`, `cycles`, `bytes`, ...).
//! Producers:
//!
//! * **Host benches**: every `[[bench]]` target of a root-workspace package, declared with
//!   `harness = false` so it is a plain `main` that prints its figures. It is run with
//!   `cargo bench -p <package> --bench <name>`; other output is ignored.
//! * **Firmware**: every board of `cargo xtask qemu` is built and run; lines of its UART output
//!   that start with `bench: ` are figures too (for instance instruction counts measured under
//!   `-icount`, which are deterministic).
//!
//! The figures are printed sorted by crate and metric, in the same format. A line that starts
//! with `bench: ` but does not follow the format fails the command, as does a failing bench
//! or board. With no producers at all, a note says so and the command succeeds.
//!
//! The protocol (and `series: ` lines, the data of `cargo xtask plots`) is defined, printed
//! and parsed by the `bench-support` crate, which every bench uses. Each producer's whole
//! stdout is also saved under `target/bench-data/` ([`data_path`]), where
//! `cargo xtask plots --reuse` reads it.

use std::fs;
use std::path::PathBuf;

use bench_support::{FIGURE_PREFIX, parse_figure};

use crate::qemu;
use crate::util::{
    CrossToolchain, TargetKind, arguments, capture, host_cargo, no_more_args, repo_root,
    target_names, workspace_packages,
};

/// Where the producers' outputs are saved: `target/bench-data/`.
pub fn data_dir() -> PathBuf {
    repo_root().join("target").join("bench-data")
}

/// Where the stdout of producer `<package>.<bench>` (or `firmware.<board>`) is saved.
pub fn data_path(package: &str, bench: &str) -> PathBuf {
    data_dir().join(format!("{package}.{bench}.txt"))
}

/// Saves a producer's stdout at [`data_path`].
pub fn save(package: &str, bench: &str, stdout: &str) -> Result<(), String> {
    let path = data_path(package, bench);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    fs::write(&path, stdout).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs host bench `bench` of `package` (`cargo bench --quiet -p <package> --bench
/// <bench>`), saves its stdout at [`data_path`] and returns it.
pub fn run_host_bench(package: &str, bench: &str) -> Result<String, String> {
    println!("running host bench {package}/{bench}");
    let mut cmd = host_cargo();
    cmd.args(["bench", "--quiet", "-p", package, "--bench", bench]);
    let stdout = capture(&mut cmd)?;
    save(package, bench, &stdout)?;
    Ok(stdout)
}

/// Runs all producers and prints the collected figures.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut args = arguments(args);
    let skip_firmware = args.contains("--host-only");
    no_more_args(args, "usage: cargo xtask bench [--host-only]")?;
    // (source, stdout) of every producer.
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut errors: Vec<String> = Vec::new();

    for pkg in workspace_packages(host_cargo())? {
        for bench in target_names(&pkg, TargetKind::Bench) {
            match run_host_bench(&pkg.name, bench) {
                Ok(stdout) => outputs.push((format!("{}/{bench}", pkg.name), stdout)),
                Err(e) => errors.push(e),
            }
        }
    }

    if !skip_firmware {
        let toolchain = CrossToolchain::find()?;
        let boards = qemu::boards(&toolchain)?;
        for run in qemu::build_and_run(&toolchain, &boards)? {
            if let Err(e) = save("firmware", &run.name, &run.output.stdout) {
                errors.push(e);
            }
            match run.verdict {
                Ok(()) => outputs.push((format!("firmware {}", run.name), run.output.stdout)),
                Err(e) => errors.push(format!("board {} failed: {e}", run.name)),
            }
        }
    }

    let mut figures = Vec::new();
    for (source, stdout) in &outputs {
        for line in stdout.lines().filter(|l| l.starts_with(FIGURE_PREFIX)) {
            match parse_figure(line) {
                Some(figure) => figures.push(figure),
                None => errors.push(format!(
                    "{source}: malformed line {:?} (expected `bench: <crate>/<metric> = <value> <unit>`)",
                    line.trim_end()
                )),
            }
        }
    }
    figures.sort_by(|a, b| (&a.krate, &a.metric).cmp(&(&b.krate, &b.metric)));

    if outputs.is_empty() {
        println!("note: no benchmarks yet (no [[bench]] targets and no firmware boards)");
    } else if figures.is_empty() {
        println!(
            "note: {} producer(s) ran but printed no `bench: ` lines",
            outputs.len()
        );
    }
    for figure in &figures {
        println!("{figure}");
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}
