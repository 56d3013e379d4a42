//! `cargo xtask templates`: builds and boots every firmware template under
//! `examples/templates/` the way a newcomer would, and checks what it printed.
//!
//! A *template* is a folder of `examples/templates/` with a `Cargo.toml`: a standalone crate
//! (its own `[workspace]`, `.cargo/config.toml`, link script) that a user copies and runs
//! with one command, `/usr/bin/cargo run --release`, from the folder
//! (`docs/your-own-firmware.md`). For each template this command
//!
//! 0. checks that its Rust files are formatted (`rustfmt --check --edition 2024`: the root
//!    workspace's `cargo fmt` does not reach them, being another workspace);
//! 1. asks the host cargo (the one running the xtask, rustup's stable cargo in CI) for the
//!    template's metadata. That cargo must either refuse the manifest at once with cargo's
//!    "requires a nightly version of Cargo" (the `cargo-features` line at the top of the
//!    template's Cargo.toml is there for that), or accept it: a cargo that takes unstable
//!    features builds the template too. Any other failure is one a newcomer would not
//!    understand, and fails the command;
//! 2. runs that one command, with Debian's cargo (`/usr/bin/cargo`, what `cargo xtask setup`
//!    installs) in an environment stripped of the variables the xtask's own cargo sets
//!    (`RUSTC`, `RUSTC_BOOTSTRAP`, `RUSTUP_TOOLCHAIN`, ...), so that the template's
//!    `.cargo/config.toml` alone makes it work: first `build --release` (no time limit; the
//!    first build compiles `core`), then `run --release` within [`TIMEOUT`], which boots the
//!    ELF through the config's `runner` (QEMU);
//! 3. checks the UART output: the banner `timer-family firmware: <package>`, the line
//!    `<W> wakes, <P> us apart`, then `wake <k> at <t> us` for k = 1..=W with
//!    `k·P ≤ t < (k+1)·P` (never early, less than a period late), then `done`, no line
//!    starting with `PANIC`, and QEMU's exit status 0.
//!
//! The templates build into `target/templates/` of this repository (one directory for all,
//! so those on the same target share their `core`), not into their own `target/`.

use crate::util::{CrossToolchain, TimedOutput, describe, host_cargo, repo_root, run_with_timeout};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The cargo the templates document: Debian's, installed by `cargo xtask setup`.
const DEBIAN_CARGO: &str = "/usr/bin/cargo";
/// Longest a template's `cargo run --release` (already built: QEMU alone) may take.
const TIMEOUT: Duration = Duration::from_secs(60);
/// What the host cargo says when it refuses a template's `cargo-features`.
const REFUSAL: &str = "requires a nightly version of Cargo";
/// Variables of the xtask's environment that a newcomer's shell does not have and that
/// would steer Debian's cargo (the rustup toolchain, the host rustc, unstable features).
const FOREIGN_ENV: [&str; 9] = [
    "RUSTC",
    "RUSTC_BOOTSTRAP",
    "RUSTC_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTUP_TOOLCHAIN",
    "CARGO_BUILD_TARGET",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_TARGET_DIR",
];

/// One template.
struct Template {
    /// Its folder name (the board).
    board: String,
    /// Its package name, which the banner prints.
    package: String,
    /// Its folder.
    dir: PathBuf,
}

/// Builds, boots and checks every template.
pub fn main(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("`templates` takes no arguments (got {arg:?})"));
    }
    // Fails with the package to install when the toolchain is incomplete.
    CrossToolchain::find()?;
    let templates = templates()?;
    if templates.is_empty() {
        return Err("no templates under examples/templates".into());
    }
    let target_dir = repo_root().join("target").join("templates");
    let mut failed = 0;
    for template in &templates {
        match check_template(template, &target_dir) {
            Ok(summary) => println!("templates: {:<16} pass ({summary})", template.board),
            Err(reason) => {
                failed += 1;
                println!("templates: {:<16} FAIL: {reason}", template.board);
            }
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("templates: {failed} of {} failed", templates.len()))
    }
}

/// The templates, sorted by folder name.
fn templates() -> Result<Vec<Template>, String> {
    let root = repo_root().join("examples").join("templates");
    let entries =
        fs::read_dir(&root).map_err(|e| format!("cannot read {}: {e}", root.display()))?;
    let mut templates = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let dir = entry.path();
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = fs::read_to_string(&manifest) else {
            continue;
        };
        let package = package_name(&text)
            .ok_or_else(|| format!("{}: no `name = \"...\"` line", manifest.display()))?;
        templates.push(Template {
            board: entry.file_name().to_string_lossy().into_owned(),
            package,
            dir,
        });
    }
    templates.sort_by(|a, b| a.board.cmp(&b.board));
    Ok(templates)
}

/// The package name of a manifest: the first `name = "..."` line (the templates' `[package]`
/// comes before any dependency table).
fn package_name(manifest: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let value = line
            .trim()
            .strip_prefix("name")?
            .trim_start()
            .strip_prefix('=')?;
        let name = value.trim().strip_prefix('"')?.split('"').next()?;
        Some(name.to_owned())
    })
}

/// Steps 1 to 3 of the module docs for one template; the summary line on success.
fn check_template(template: &Template, target_dir: &Path) -> Result<String, String> {
    check_format(&template.dir)?;
    let host = host_verdict(template)?;
    let mut build = debian_cargo(&template.dir, target_dir);
    build.args(["build", "--release", "--quiet"]);
    let built = run_with_timeout(&mut build, Duration::from_secs(3600))?;
    if !built.status.is_some_and(|s| s.success()) {
        return Err(format!(
            "{} failed:\n{}",
            describe(&build),
            built.stderr.trim_end()
        ));
    }
    let mut run = debian_cargo(&template.dir, target_dir);
    run.args(["run", "--release", "--quiet"]);
    let output = run_with_timeout(&mut run, TIMEOUT)?;
    let verdict = match output.status {
        None => Err(format!("timed out after {} s", TIMEOUT.as_secs())),
        Some(status) if !status.success() => Err(format!("`cargo run` exited with {status}")),
        Some(_) => check_output(&template.package, &output.stdout),
    };
    match verdict {
        Ok(wakes) => Ok(format!(
            "{:.1} s, {wakes} wakes never early; host cargo: {host}",
            output.elapsed.as_secs_f32()
        )),
        Err(reason) => Err(format!("{reason}\n{}", show(&output))),
    }
}

/// Step 0: `rustfmt --check` on the template's `build.rs` and `src/**/*.rs`.
fn check_format(dir: &Path) -> Result<(), String> {
    let mut files = vec![dir.join("build.rs")];
    let mut pending = vec![dir.join("src")];
    while let Some(folder) = pending.pop() {
        let entries =
            fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.retain(|f| f.exists());
    let mut cmd = Command::new("rustfmt");
    cmd.args(["--check", "--edition", "2024"]).args(&files);
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", describe(&cmd)))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "not formatted (run `rustfmt --edition 2024` on it):\n{}",
            String::from_utf8_lossy(&output.stdout).trim_end()
        ))
    }
}

/// Step 1: what the host cargo makes of the template (`Err` for an unclear failure).
fn host_verdict(template: &Template) -> Result<&'static str, String> {
    let mut cmd = host_cargo();
    cmd.current_dir(&template.dir)
        .env_remove("RUSTC_BOOTSTRAP")
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ]);
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", describe(&cmd)))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        Ok("accepts the unstable manifest")
    } else if stderr.contains(REFUSAL) {
        Ok("refuses it at once (nightly needed)")
    } else {
        Err(format!(
            "the host cargo fails on the template without saying that it needs a nightly \
             cargo ({}):\n{}",
            describe(&cmd),
            stderr.trim_end()
        ))
    }
}

/// Debian's cargo in `dir`, with the environment of a fresh shell as far as Rust goes.
fn debian_cargo(dir: &Path, target_dir: &Path) -> Command {
    let mut cmd = Command::new(DEBIAN_CARGO);
    cmd.current_dir(dir);
    for var in FOREIGN_ENV {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TARGET_DIR", target_dir);
    cmd
}

/// QEMU's output and cargo's messages, for a failure report.
fn show(output: &TimedOutput) -> String {
    format!(
        "----- output -----\n{}\n----- stderr -----\n{}\n-----",
        output.stdout.trim_end(),
        output.stderr.trim_end()
    )
}

/// Step 3: the template's UART output. Returns the number of wakes checked.
fn check_output(package: &str, stdout: &str) -> Result<u64, String> {
    if let Some(panic) = stdout.lines().find(|l| l.starts_with("PANIC")) {
        return Err(format!("it panicked: {panic}"));
    }
    let mut lines = stdout.lines().map(str::trim_end);
    let banner = format!("timer-family firmware: {package}");
    lines
        .find(|l| *l == banner)
        .ok_or_else(|| format!("no line `{banner}`"))?;
    let (wakes, period) = lines
        .find_map(plan)
        .ok_or("no line `<W> wakes, <P> us apart`")?;
    if wakes == 0 || period == 0 {
        return Err(format!(
            "a plan of {wakes} wakes {period} us apart checks nothing"
        ));
    }
    for k in 1..=wakes {
        let line = lines
            .find(|l| l.starts_with("wake "))
            .ok_or_else(|| format!("no line for wake {k}"))?;
        let at = wake(line, k).ok_or_else(|| format!("`{line}` is not `wake {k} at <t> us`"))?;
        let due = k * period;
        if at < due {
            return Err(format!("wake {k} at {at} us is early (due at {due} us)"));
        }
        if at >= due + period {
            return Err(format!(
                "wake {k} at {at} us is a period or more late (due at {due} us)"
            ));
        }
    }
    if !lines.any(|l| l == "done") {
        return Err("no `done` after the wakes".into());
    }
    Ok(wakes)
}

/// `<W> wakes, <P> us apart` as `(W, P)`.
fn plan(line: &str) -> Option<(u64, u64)> {
    let (wakes, rest) = line.split_once(" wakes, ")?;
    let period = rest.strip_suffix(" us apart")?;
    Some((wakes.parse().ok()?, period.parse().ok()?))
}

/// The time of `wake <k> at <t> us`.
fn wake(line: &str, k: u64) -> Option<u64> {
    let rest = line.strip_prefix(&format!("wake {k} at "))?;
    rest.strip_suffix(" us")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{check_output, package_name};

    const GOOD: &str = "timer-family firmware: template-x\r\n\
                        MIDR = 0x410fc090 (Cortex-A9 r0p0)\n\
                        2 wakes, 10000 us apart\n\
                        wake 1 at 10000 us\n\
                        wake 2 at 20003 us\n\
                        done\n";

    #[test]
    fn a_run_passes_with_every_wake_on_time_and_done() {
        assert_eq!(check_output("template-x", GOOD), Ok(2));
    }

    #[test]
    fn early_late_missing_and_panicking_runs_fail() {
        let early = GOOD.replace("wake 2 at 20003", "wake 2 at 19999");
        assert!(
            check_output("template-x", &early)
                .unwrap_err()
                .contains("early")
        );
        let late = GOOD.replace("wake 2 at 20003", "wake 2 at 30000");
        assert!(
            check_output("template-x", &late)
                .unwrap_err()
                .contains("late")
        );
        let short = GOOD.replace("wake 2 at 20003 us\n", "");
        assert!(check_output("template-x", &short).is_err());
        let unfinished = GOOD.replace("done\n", "");
        assert!(check_output("template-x", &unfinished).is_err());
        let panicked = format!("{GOOD}PANIC: at src/main.rs:1\n");
        assert!(check_output("template-x", &panicked).is_err());
        assert!(check_output("template-y", GOOD).is_err());
        let zero = GOOD.replace("2 wakes", "0 wakes");
        assert!(check_output("template-x", &zero).is_err());
    }

    #[test]
    fn the_package_name_is_the_first_name_line() {
        let manifest = "cargo-features = [\"x\"]\n[package]\nname = \"template-a\"\n\
                        [dependencies]\nname-like = { name = \"b\" }\n";
        assert_eq!(package_name(manifest).as_deref(), Some("template-a"));
        assert_eq!(package_name("[package]\nversion = \"1\"\n"), None);
    }
}
