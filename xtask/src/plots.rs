//! `cargo xtask plots`: renders the SVG figures in `docs/plots/` from the benches' data.
//!
//! The figures, and the series they read, are declared in the `xtask-plots` crate
//! (`xtask-plots/src/figures.rs`), a separate binary so that plotting's dependencies do not
//! slow down every `cargo xtask`. This command:
//!
//! 1. asks `xtask-plots needs` which crates the figures read;
//! 2. runs every host bench of those crates ([`run_host_bench`], which saves the
//!    output under `target/bench-data/`), or with `--reuse` takes the output a previous
//!    `cargo xtask bench` (or `plots`) saved there;
//! 3. runs `xtask-plots render docs/plots <outputs>`, which parses the `series:` and
//!    `bench:` lines (see `bench-support`) and writes one SVG per figure, saying for each
//!    whether it changed.
//!
//! It fails if a bench fails, if data a figure needs is missing or malformed, or if
//! rendering fails; a figure that merely differs from the committed file is not an error.

use std::process::Command;

use crate::bench::{data_path, run_host_bench, save};
use crate::qemu;
use crate::util::{
    CrossToolchain, TargetKind, arguments, capture, host_cargo, no_more_args, run, target_names,
    workspace_packages,
};

/// Runs the benches the figures need and renders them.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut args = arguments(args);
    let reuse = args.contains("--reuse");
    no_more_args(args, "usage: cargo xtask plots [--reuse]")?;
    let needs = capture(&mut plotter("needs"))?;
    let packages = workspace_packages(host_cargo())?;
    let mut files = Vec::new();
    let mut boards = Vec::new();
    for krate in needs.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(board) = krate.strip_prefix("firmware:") {
            boards.push(board.to_owned());
            continue;
        }
        let pkg = packages.iter().find(|p| p.name == krate).ok_or_else(|| {
            format!("the figures read crate {krate}, which is not in the workspace")
        })?;
        let benches = target_names(pkg, TargetKind::Bench);
        if benches.is_empty() {
            return Err(format!(
                "the figures read crate {krate}, which has no [[bench]] target"
            ));
        }
        for bench in benches {
            let path = data_path(krate, bench);
            if !reuse {
                run_host_bench(krate, bench)?;
            } else if !path.is_file() {
                return Err(format!(
                    "--reuse: {} is missing; run `cargo xtask bench` first, or drop --reuse",
                    path.display()
                ));
            }
            files.push(path);
        }
    }
    // Firmware boards: their saved UART output, or a fresh run under QEMU.
    if !boards.is_empty() && !reuse {
        let toolchain = CrossToolchain::find()?;
        let mut all = qemu::boards(&toolchain)?;
        all.retain(|b| boards.contains(&b.name));
        for run in qemu::build_and_run(&toolchain, &all)? {
            save("firmware", &run.name, &run.output.stdout)?;
            run.verdict
                .map_err(|e| format!("board {} failed: {e}", run.name))?;
        }
    }
    for board in &boards {
        let path = data_path("firmware", board);
        if !path.is_file() {
            return Err(format!(
                "--reuse: {} is missing; run `cargo xtask bench` first, or drop --reuse",
                path.display()
            ));
        }
        files.push(path);
    }
    // Relative to the repository root, where the command runs, so the report is short.
    run(plotter("render").arg("docs/plots").args(files))
}

/// `cargo run -p xtask-plots -- <command>`.
fn plotter(command: &str) -> Command {
    let mut cmd = host_cargo();
    cmd.args(["run", "--quiet", "-p", "xtask-plots", "--", command]);
    cmd
}
