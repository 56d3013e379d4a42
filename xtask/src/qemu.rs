//! `cargo xtask qemu [board]`: builds the board firmwares and runs them under QEMU.
//!
//! A *board* is a package of the firmware workspace (`examples/firmware`) with a
//! `[package.metadata.qemu]` table:
//!
//! ```toml
//! [package.metadata.qemu]
//! target = "armv7a-none-eabi"                 # triple to build for
//! command = ["qemu-system-arm", "-M", "smdkc210", "-nographic", "-semihosting",
//!            "-kernel", "{elf}"]              # `{elf}` = path of the release binary
//! timeout = 30                                # seconds; optional, default 30
//! ```
//!
//! A run passes when QEMU exits with status 0 before the timeout and its output (the UART on
//! stdio) satisfies the board's `expected.txt`; see [`crate::expect`] for that format. Adding a
//! board needs no change here.

use crate::expect;
use crate::json::Json;
use crate::util::{
    CrossToolchain, Package, TimedOutput, firmware_dir, read_file, run, run_with_timeout,
    workspace_packages,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Timeout for a board without `timeout` in its metadata. The boards finish in about a second.
const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// A firmware that runs under QEMU.
pub struct Board {
    /// Package name, used as the board name.
    pub name: String,
    /// Target triple.
    target: String,
    /// QEMU command line, `{elf}` not yet substituted.
    command: Vec<String>,
    /// Kill QEMU after this long.
    timeout: Duration,
    /// The package directory (holds `expected.txt`).
    dir: PathBuf,
    /// Name of the binary target.
    bin: String,
}

/// What one QEMU run produced.
pub struct BoardRun {
    /// Board name.
    pub name: String,
    /// QEMU's exit status and output.
    pub output: TimedOutput,
    /// `Ok` if the run passed, or why it did not.
    pub verdict: Result<(), String>,
}

impl Board {
    /// The target triple the board's firmware is built for.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// How long a run may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The board's QEMU command line with `elf` as the kernel.
    pub fn command(&self, elf: &Path) -> Command {
        let elf = elf.to_string_lossy();
        let args: Vec<String> = self
            .command
            .iter()
            .map(|arg| arg.replace("{elf}", &elf))
            .collect();
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..]);
        cmd
    }
}

/// Runs all boards (no argument) or one (`qemu <board>`, which also prints its output).
pub fn main(args: &[String]) -> Result<(), String> {
    let toolchain = CrossToolchain::find()?;
    let mut boards = boards(&toolchain)?;
    let verbose = match args {
        [] => false,
        [name] => {
            let known: Vec<&str> = boards.iter().map(|b| b.name.as_str()).collect();
            if !known.contains(&name.as_str()) {
                return Err(format!(
                    "unknown board {name:?}; boards: {}",
                    known.join(", ")
                ));
            }
            boards.retain(|b| &b.name == name);
            true
        }
        _ => return Err("usage: cargo xtask qemu [board]".into()),
    };
    let runs = build_and_run(&toolchain, &boards)?;
    let mut failed = 0;
    for run in &runs {
        let seconds = run.output.elapsed.as_secs_f32();
        if verbose {
            println!(
                "----- {} output -----\n{}",
                run.name,
                run.output.stdout.trim_end()
            );
            if !run.output.stderr.trim().is_empty() {
                println!(
                    "----- {} stderr -----\n{}",
                    run.name,
                    run.output.stderr.trim_end()
                );
            }
            println!("-----");
        }
        match &run.verdict {
            Ok(()) => println!("qemu: {:<16} pass ({seconds:.1} s)", run.name),
            Err(reason) => {
                failed += 1;
                println!("qemu: {:<16} FAIL ({seconds:.1} s): {reason}", run.name);
                if !verbose {
                    println!("----- output -----\n{}", run.output.stdout.trim_end());
                    println!(
                        "----- stderr -----\n{}\n-----",
                        run.output.stderr.trim_end()
                    );
                }
            }
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("qemu: {failed} of {} board(s) failed", runs.len()))
    }
}

/// The boards of the firmware workspace, sorted by name.
pub fn boards(toolchain: &CrossToolchain) -> Result<Vec<Board>, String> {
    let packages = workspace_packages(toolchain.cargo(&firmware_dir()))?;
    packages
        .iter()
        .filter(|p| !p.metadata.get("qemu").is_null())
        .map(board_from)
        .collect()
}

/// Reads a board's `[package.metadata.qemu]`.
fn board_from(pkg: &Package) -> Result<Board, String> {
    let qemu = pkg.metadata.get("qemu");
    let bad = |what: &str| format!("{}: [package.metadata.qemu] {what}", pkg.name);
    let target = qemu
        .get("target")
        .as_str()
        .ok_or_else(|| bad("needs `target`"))?;
    let command = pkg.metadata_strings("qemu", "command").unwrap_or_default();
    if command.is_empty() || !command.iter().any(|arg| arg.contains("{elf}")) {
        return Err(bad("needs a `command` list containing `{elf}`"));
    }
    let timeout = match qemu.get("timeout") {
        Json::Null => DEFAULT_TIMEOUT_SECS,
        Json::Number(n) => n
            .parse()
            .map_err(|_| bad("`timeout` must be whole seconds"))?,
        _ => return Err(bad("`timeout` must be a number")),
    };
    let bin = pkg
        .target_names("bin")
        .first()
        .map(|name| (*name).to_owned())
        .ok_or_else(|| bad("is set on a package without a binary"))?;
    Ok(Board {
        name: pkg.name.clone(),
        target: target.to_owned(),
        command,
        timeout: Duration::from_secs(timeout),
        dir: pkg.dir.clone(),
        bin,
    })
}

/// Builds the given boards (release, one cargo call per target) and runs each under QEMU.
pub fn build_and_run(
    toolchain: &CrossToolchain,
    boards: &[Board],
) -> Result<Vec<BoardRun>, String> {
    let mut by_target: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for board in boards {
        by_target
            .entry(&board.target)
            .or_default()
            .push(&board.name);
    }
    for (target, names) in &by_target {
        println!("qemu: building {} for {target}", names.join(", "));
        let mut cmd = toolchain.cargo(&firmware_dir());
        cmd.args([
            "build",
            "--quiet",
            "-Zbuild-std=core",
            "--release",
            "--target",
            target,
        ]);
        for name in names {
            cmd.args(["-p", name]);
        }
        run(&mut cmd)?;
    }
    boards.iter().map(run_board).collect()
}

/// Runs one (already built) board and checks its output.
fn run_board(board: &Board) -> Result<BoardRun, String> {
    let elf = firmware_dir()
        .join("target")
        .join(&board.target)
        .join("release")
        .join(&board.bin);
    let patterns = expect::parse_expected(&read_file(&board.dir.join("expected.txt"))?)
        .map_err(|e| format!("{}/expected.txt: {e}", board.name))?;
    let output = run_with_timeout(&mut board.command(&elf), board.timeout)?;
    let checked = expect::check(&patterns, &output.stdout);
    let exit = match output.status {
        None => Err(format!("timed out after {} s", board.timeout.as_secs())),
        Some(status) if !status.success() => Err(format!("QEMU exited with {status}")),
        Some(_) => Ok(()),
    };
    let verdict = match (exit, checked) {
        (Ok(()), checked) => checked,
        (Err(exit), Ok(())) => Err(exit),
        (Err(exit), Err(checked)) => Err(format!("{exit}; {checked}")),
    };
    Ok(BoardRun {
        name: board.name.clone(),
        output,
        verdict,
    })
}
