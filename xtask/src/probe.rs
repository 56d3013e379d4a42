//! The check at the end of `cargo xtask setup`: does the whole bare-metal chain work?
//!
//! Installed packages are not proof: a `core` build needs `rust-src`, a link needs a
//! `rust-lld` that resolves, clippy needs `rust-web-clippy`, and a board needs its QEMU
//! binary, the ROM files that binary loads (NPCM750's boot ROM) and the devices its command
//! line asks for. Each is exercised once, with the probe in `xtask/probe` (tiny, no
//! dependencies):
//!
//! 1. the toolchain is located (`rustc`, `cargo`, `rust-src`, `rust-lld`) and `cargo clippy`
//!    runs;
//! 2. for each of [`CROSS_TARGETS`], one cargo call builds `core` and links `probe-link`,
//!    plus `probe-<board>` for each QEMU board on that target;
//! 3. each board of `examples/firmware` (`[package.metadata.qemu]`) boots its probe with the
//!    board's own QEMU command line and must print `setup-probe: <board> booted` and exit 0.
//!
//! The probe builds into the firmware's target directory with the firmware's profile, so the
//! `core` it compiles is the one `cargo xtask cross|qemu` reuse afterwards.

use crate::qemu;
use crate::util::{
    CROSS_TARGETS, CrossToolchain, TargetKind, firmware_dir, repo_root, run_with_timeout,
    target_names, workspace_packages,
};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Upper bound for one probe boot (a boot takes about a second).
const BOOT_TIMEOUT: Duration = Duration::from_secs(30);

/// Lines of a failing command's output kept in the report.
const TAIL_LINES: usize = 25;

/// The probe's directory.
fn probe_dir() -> PathBuf {
    repo_root().join("xtask").join("probe")
}

/// The probe binary that stands in for `board`'s firmware.
fn probe_bin(board: &str) -> String {
    format!("probe-{board}")
}

/// Runs every check, reporting each; fails with all problems, each naming what is missing.
pub fn verify() -> Result<(), String> {
    println!("setup: verifying the toolchain and QEMU with xtask/probe");
    let toolchain = CrossToolchain::find()?;
    toolchain.clippy()?;
    println!("setup: verify: rustc, cargo, rust-src, rust-lld, clippy found");

    let dir = probe_dir();
    let bins: Vec<String> = workspace_packages(toolchain.cargo(&dir))?
        .iter()
        .flat_map(|p| {
            target_names(p, TargetKind::Bin)
                .into_iter()
                .map(str::to_owned)
        })
        .collect();
    let all_boards = qemu::boards(&toolchain)?;
    let mut problems = Vec::new();
    // One boot check per QEMU machine: a board without a probe of its own (a second
    // firmware on the same board, such as `smdkc210-async`) is covered by the probe of a
    // board on the same machine.
    let (boards, covered): (Vec<_>, Vec<_>) = all_boards
        .into_iter()
        .partition(|b| bins.contains(&probe_bin(&b.name)));
    for board in &covered {
        if let Some(by) = boards.iter().find(|b| b.machine() == board.machine()) {
            println!(
                "setup: verify: {} runs on the machine {} boots ({} {})",
                board.name,
                by.name,
                board.machine().0,
                board.machine().1
            );
        } else {
            problems.push(format!(
                "board {}: no probe binary `{}` in xtask/probe (add one like the others)",
                board.name,
                probe_bin(&board.name)
            ));
        }
    }

    let target_dir = firmware_dir().join("target");
    let mut targets: Vec<&str> = CROSS_TARGETS.to_vec();
    for board in &boards {
        if !targets.contains(&board.target()) {
            targets.push(board.target());
        }
    }
    let mut built = Vec::new();
    for target in targets {
        let mut cmd = toolchain.cargo(&dir);
        cmd.args(["build", "--release", "-Zbuild-std=core", "--target", target])
            .arg("--target-dir")
            .arg(&target_dir)
            .args(["--bin", "probe-link"]);
        for board in boards.iter().filter(|b| b.target() == target) {
            if bins.contains(&probe_bin(&board.name)) {
                cmd.args(["--bin", &probe_bin(&board.name)]);
            }
        }
        let what = format!("core build and link for {target}");
        match timed(&what, &mut cmd) {
            Ok(()) => built.push(target),
            Err(log) => problems.push(format!("{what} failed:\n{}", tail(&log))),
        }
    }

    for board in &boards {
        if !built.contains(&board.target()) || !bins.contains(&probe_bin(&board.name)) {
            continue; // already reported
        }
        let elf = target_dir
            .join(board.target())
            .join("release")
            .join(probe_bin(&board.name));
        let what = format!("QEMU boot of {}", board.name);
        print!("setup: verify: {what} ... ");
        let _ = std::io::stdout().flush();
        let mut cmd = board.command(&elf);
        let timeout = board.timeout().min(BOOT_TIMEOUT);
        let verdict = match run_with_timeout(&mut cmd, timeout) {
            Err(e) => Err(e),
            Ok(out) => {
                let marker = format!("setup-probe: {} booted", board.name);
                let printed = out.stdout.lines().any(|l| l.trim_end() == marker);
                let reason = match out.status {
                    None => Some(format!("timed out after {} s", timeout.as_secs())),
                    Some(status) if !status.success() => Some(format!("QEMU exited with {status}")),
                    Some(_) if !printed => Some(format!("no `{marker}` line")),
                    Some(_) => None,
                };
                match reason {
                    None => Ok(out.elapsed),
                    Some(reason) => Err(format!(
                        "{reason}\n  command: {}\n{}{}",
                        crate::util::describe(&cmd),
                        tail(&out.stderr),
                        tail(&out.stdout)
                    )),
                }
            }
        };
        match verdict {
            Ok(elapsed) => println!("ok ({:.1} s)", elapsed.as_secs_f32()),
            Err(reason) => {
                println!("FAIL");
                problems.push(format!("{what} failed: {reason}"));
            }
        }
    }

    if problems.is_empty() {
        println!("setup: verify: all targets build and link, all boards boot");
        Ok(())
    } else {
        Err(format!(
            "setup: the bare-metal chain does not work:\n\n{}\n\n(`cargo xtask setup` as root \
             installs rustc-web cargo-web rust-web-src lld-22 rust-web-llvm rust-web-clippy \
             and QEMU from backports)",
            problems.join("\n\n")
        ))
    }
}

/// Runs `cmd` capturing its output, with a progress line; `Err` holds stderr.
fn timed(what: &str, cmd: &mut Command) -> Result<(), String> {
    print!("setup: verify: {what} ... ");
    let _ = std::io::stdout().flush();
    let start = Instant::now();
    let output = cmd.output();
    let seconds = start.elapsed().as_secs_f32();
    match output {
        Ok(out) if out.status.success() => {
            println!("ok ({seconds:.1} s)");
            Ok(())
        }
        Ok(out) => {
            println!("FAIL");
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
        Err(e) => {
            println!("FAIL");
            Err(format!("cannot run {}: {e}", crate::util::describe(cmd)))
        }
    }
}

/// The last [`TAIL_LINES`] non-empty lines of `text`, indented.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    lines[start..]
        .iter()
        .map(|l| format!("  | {l}\n"))
        .collect()
}
