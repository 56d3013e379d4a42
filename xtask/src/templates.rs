//! `cargo xtask templates`: builds and boots every firmware template under
//! `examples/templates/` the way a newcomer would, and checks what it printed.
//!
//! A *template* is a folder of `examples/templates/` with a `Cargo.toml`: a standalone crate
//! (its own `[workspace]`, `.cargo/config.toml`, link script) that a user copies and runs
//! with `cargo run --release` from the folder (`docs/your-own-firmware.md`). On a machine
//! with rustup that is all: `rustup target add <target>` on the stable toolchain for the
//! Tier 2 targets (ARM, LoongArch), the nightly toolchain with `rust-src` that Malta's
//! `rust-toolchain.toml` selects for the Tier 3 `mips-mti-none-elf`. For each template this
//! command
//!
//! 0. checks that its Rust files are formatted (`rustfmt --check --edition 2024`: the root
//!    workspace's `cargo fmt` does not reach them, being another workspace);
//! 1. checks that its own files hold the configuration a rustup user runs, and nothing of
//!    this machine's ([`own_files_problems`]): no Debian path (`/usr/bin/`, `/usr/lib/`), no
//!    `RUSTC_BOOTSTRAP`, no unstable cargo key (`cargo-features`, `forced-target`,
//!    `[unstable]`, `build-std`, a `-Z` flag). The templates of [`NIGHTLY_ROUTE`] are
//!    allowed `[unstable]` with `build-std` alone: their target is Tier 3, and building
//!    `core` is the documented way to it;
//! 2. asks the host cargo (the one running the xtask, rustup's stable cargo in CI) for the
//!    template's metadata, which must succeed: that cargo reads the manifest as it is;
//! 3. builds and runs it with what this machine has instead of rustup's targets, all of it
//!    given from outside the template's files: Debian's cargo and rustc (`cargo xtask
//!    setup`; [`CrossToolchain`]: `RUSTC` and `RUSTC_BOOTSTRAP=1` in the child's
//!    environment) and `--config unstable.build-std=["core"]` standing in for the prebuilt
//!    `core`, in an environment otherwise stripped of the variables the xtask's own cargo
//!    sets. First `build --release` (no time limit; the first build compiles `core`), then
//!    `run --release` within [`TIMEOUT`], which boots the ELF through the config's `runner`;
//! 4. checks the UART output: the banner `timer-family firmware: <package>`, the line
//!    `<W> wakes, <P> us apart`, then `wake <k> at <t> us` for k = 1..=W with
//!    `k·P ≤ t < (k+1)·P` (never early, less than a period late), then `done`, no line
//!    starting with `PANIC`, and the runner's exit status 0;
//! 5. runs a failing copy of it ([`failing_copy`]: the template copied to
//!    `target/templates/failing/<board>` with its `finish(.., true ..)` turned to `false`,
//!    its path dependencies made absolute as a user's copy would have them), which must print
//!    `FAILED` and make `cargo run` exit non-zero: a script that trusts the status never
//!    accepts a failed run.
//!
//! The templates build into `target/templates/` of this repository (one directory for all,
//! so those on the same target share their `core`), not into their own `target/`.

use crate::util::{CrossToolchain, TimedOutput, describe, host_cargo, repo_root, run_with_timeout};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Longest a template's `cargo run --release` (already built: QEMU alone) may take.
const TIMEOUT: Duration = Duration::from_secs(60);
/// What this machine's cargo is given instead of rustup's prebuilt `core` for the target.
const BUILD_STD: &str = "unstable.build-std=[\"core\"]";
/// Variables of the xtask's environment that a newcomer's shell does not have and that
/// would steer the build (the host rustc's flags, a wrapper, a target); [`CrossToolchain`]
/// sets or removes the toolchain's own (`RUSTC`, `RUSTC_BOOTSTRAP`, `RUSTUP_TOOLCHAIN`).
const FOREIGN_ENV: [&str; 6] = [
    "RUSTC_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "CARGO_BUILD_TARGET",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_TARGET_DIR",
];
/// Templates whose target is Tier 3 (rustup ships no `core` for it): their route is the
/// nightly toolchain with `rust-src` (`rust-toolchain.toml`) and `[unstable] build-std` in
/// their `.cargo/config.toml`, which [`own_files_problems`] therefore allows them, alone of
/// the unstable keys.
const NIGHTLY_ROUTE: [&str; 1] = ["malta"];
/// What a template's own files must not name, each with the reason; see
/// [`own_files_problems`]. `-Z` (a flag) is looked for separately.
const FORBIDDEN: [(&str, &str); 7] = [
    ("/usr/bin/", "a Debian path"),
    ("/usr/lib/", "a Debian path"),
    (
        "RUSTC_BOOTSTRAP",
        "stable rustc made to take unstable features",
    ),
    (
        "cargo-features",
        "an unstable manifest key (nightly cargo only)",
    ),
    (
        "forced-target",
        "an unstable manifest key (nightly cargo only)",
    ),
    ("[unstable]", "an unstable configuration table"),
    (
        "build-std",
        "building `core` (unstable): rustup ships it for the target",
    ),
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
    let toolchain = CrossToolchain::find()?;
    let templates = templates()?;
    if templates.is_empty() {
        return Err("no templates under examples/templates".into());
    }
    let target_dir = repo_root().join("target").join("templates");
    let mut failed = 0;
    for template in &templates {
        match check_template(&toolchain, template, &target_dir) {
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

/// Steps 0 to 5 of the module docs for one template; the summary line on success.
fn check_template(
    toolchain: &CrossToolchain,
    template: &Template,
    target_dir: &Path,
) -> Result<String, String> {
    check_format(&template.dir)?;
    let problems = own_files_problems(&template.dir, NIGHTLY_ROUTE.contains(&&*template.board))?;
    if !problems.is_empty() {
        return Err(format!(
            "its own files hold what a rustup user's cargo would not take, or this \
             machine's paths:\n  {}",
            problems.join("\n  ")
        ));
    }
    host_metadata(template)?;
    let output = build_and_run(toolchain, &template.dir, target_dir)?;
    let verdict = match output.status {
        None => Err(format!("timed out after {} s", TIMEOUT.as_secs())),
        Some(status) if !status.success() => Err(format!("`cargo run` exited with {status}")),
        Some(_) => check_output(&template.package, &output.stdout),
    };
    let wakes = verdict.map_err(|reason| format!("{reason}\n{}", show(&output)))?;
    let copy = failing_copy(template, &target_dir.join("failing"))?;
    let failed = build_and_run(toolchain, &copy, target_dir)?;
    let failed_status = match failed.status {
        None => Err(format!("timed out after {} s", TIMEOUT.as_secs())),
        Some(status) if status.success() => Err("exited with 0".to_owned()),
        Some(status) => Ok(status),
    };
    let failed_status = failed_status
        .and_then(|status| {
            if failed.stdout.lines().any(|l| l.trim_end() == "FAILED") {
                Ok(status)
            } else {
                Err(format!("printed no `FAILED` line ({status})"))
            }
        })
        .map_err(|reason| {
            format!(
                "its failing copy ({}) {reason}\n{}",
                copy.display(),
                show(&failed)
            )
        })?;
    Ok(format!(
        "{:.1} s, {wakes} wakes never early; a failed run: {failed_status}",
        output.elapsed.as_secs_f32()
    ))
}

/// Step 3 for the template (or copy) in `dir`: `cargo build --release`, then `cargo run
/// --release` within [`TIMEOUT`], with this machine's toolchain.
fn build_and_run(
    toolchain: &CrossToolchain,
    dir: &Path,
    target_dir: &Path,
) -> Result<TimedOutput, String> {
    let mut build = machine_cargo(toolchain, dir, target_dir);
    build.args(["build", "--release", "--quiet"]);
    let built = run_with_timeout(&mut build, Duration::from_secs(3600))?;
    if !built.status.is_some_and(|s| s.success()) {
        return Err(format!(
            "{} failed:\n{}",
            describe(&build),
            built.stderr.trim_end()
        ));
    }
    let mut run = machine_cargo(toolchain, dir, target_dir);
    run.args(["run", "--release", "--quiet"]);
    run_with_timeout(&mut run, TIMEOUT)
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

/// Step 1: what in the template's own files (every file but `target/`) a rustup user's
/// cargo would not take, or names this machine: one line per finding, `file:line: what
/// (why)`. `nightly_route` allows `[unstable]` holding `build-std` alone
/// ([`NIGHTLY_ROUTE`]).
fn own_files_problems(dir: &Path, nightly_route: bool) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries =
            fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                if path.file_name().is_none_or(|n| n != "target") {
                    pending.push(path);
                }
                continue;
            }
            let Ok(text) = fs::read_to_string(&path) else {
                continue; // not text
            };
            let name = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            problems.extend(
                text_problems(&text, nightly_route)
                    .into_iter()
                    .map(|p| format!("{name}:{p}")),
            );
        }
    }
    Ok(problems)
}

/// [`own_files_problems`] for one file's text: `line: what (why)` per finding.
fn text_problems(text: &str, nightly_route: bool) -> Vec<String> {
    let mut problems = Vec::new();
    // The table the line is in, for the nightly route's `[unstable] build-std`.
    let mut table = "";
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && !trimmed.starts_with("[[") {
            table = trimmed;
        }
        let code = trimmed.split('#').next().unwrap_or_default();
        let allowed = |pattern: &str| {
            nightly_route
                && match pattern {
                    // The table itself, and a comment about it.
                    "[unstable]" => true,
                    // In `[unstable]`, only the `build-std` key; elsewhere only in comments.
                    "build-std" => {
                        (table == "[unstable]" && code.trim_start().starts_with("build-std"))
                            || !code.contains("build-std")
                    }
                    _ => false,
                }
        };
        for (pattern, why) in FORBIDDEN {
            if line.contains(pattern) && !allowed(pattern) {
                problems.push(format!("{}: `{pattern}` ({why})", n + 1));
            }
        }
        if nightly_route && table == "[unstable]" && !code.is_empty() && !code.starts_with('[') {
            let key = code.split('=').next().unwrap_or_default().trim();
            if key != "build-std" {
                problems.push(format!(
                    "{}: `{key}` in [unstable] (only build-std is the Tier 3 route)",
                    n + 1
                ));
            }
        }
        if has_z_flag(line) {
            problems.push(format!("{}: a `-Z` flag (unstable)", n + 1));
        }
    }
    problems
}

/// Whether `line` holds a `-Z` flag (`-Zbuild-std`, `-Z build-std`): `-Z` not preceded by
/// a letter, digit or `-`, and followed by a letter, a space, a quote or nothing.
fn has_z_flag(line: &str) -> bool {
    let bytes = line.as_bytes();
    line.match_indices("-Z").any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 2).copied();
        !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-')
            && after.is_none_or(|a| a.is_ascii_alphabetic() || b" \"'".contains(&a))
    })
}

/// Step 2: the host cargo (rustup's stable cargo in CI) reads the template's manifest.
fn host_metadata(template: &Template) -> Result<(), String> {
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
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the host cargo does not take the template ({}):\n{}",
            describe(&cmd),
            String::from_utf8_lossy(&output.stderr).trim_end()
        ))
    }
}

/// This machine's cargo in `dir` ([`CrossToolchain`]: Debian's cargo and rustc, with
/// `RUSTC_BOOTSTRAP=1`), given build-std for the `core` rustup would ship, with the
/// environment of a fresh shell otherwise.
fn machine_cargo(toolchain: &CrossToolchain, dir: &Path, target_dir: &Path) -> Command {
    let mut cmd = toolchain.cargo(dir);
    for var in FOREIGN_ENV {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TARGET_DIR", target_dir)
        .args(["--config", BUILD_STD]);
    cmd
}

/// Step 5: a copy of the template in `root/<board>` whose firmware reports a failure:
/// `true` turned to `false` on the one line that calls a board's `finish(`, the package
/// renamed `<package>-failing` (its own binary in the shared target directory), the
/// relative path dependencies made absolute. Returns the copy's folder.
fn failing_copy(template: &Template, root: &Path) -> Result<PathBuf, String> {
    let copy = root.join(&template.board);
    if copy.exists() {
        fs::remove_dir_all(&copy).map_err(|e| format!("cannot clear {}: {e}", copy.display()))?;
    }
    copy_dir(&template.dir, &copy)?;
    let repo = repo_root();
    let repo = repo.to_string_lossy();
    let manifest = copy.join("Cargo.toml");
    let text = crate::util::read_file(&manifest)?;
    let renamed = format!("name = \"{}-failing\"", template.package);
    let text = text
        .replacen(&format!("name = \"{}\"", template.package), &renamed, 1)
        .replace("path = \"../../../", &format!("path = \"{repo}/"))
        .replace(
            "path = \"../../firmware/",
            &format!("path = \"{repo}/examples/firmware/"),
        );
    if !text.contains(&renamed) || text.contains("path = \"../") {
        return Err(format!(
            "{}: cannot rename the package or make its path dependencies absolute",
            manifest.display()
        ));
    }
    fs::write(&manifest, text).map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    let main = copy.join("src").join("main.rs");
    let source = crate::util::read_file(&main)?;
    let failing = fail_at_finish(&source)
        .ok_or_else(|| format!("{}: no single `finish(.., true ..)` line", main.display()))?;
    fs::write(&main, failing).map_err(|e| format!("cannot write {}: {e}", main.display()))?;
    Ok(copy)
}

/// `source` with `true` turned to `false` on its one line that calls `finish(` with `true`;
/// `None` unless there is exactly one such line.
fn fail_at_finish(source: &str) -> Option<String> {
    let is_finish = |line: &str| line.contains("finish(") && line.contains(", true");
    if source.lines().filter(|l| is_finish(l)).count() != 1 {
        return None;
    }
    let mut out = String::with_capacity(source.len() + 1);
    for line in source.split_inclusive('\n') {
        if is_finish(line) {
            out.push_str(&line.replacen(", true", ", false", 1));
        } else {
            out.push_str(line);
        }
    }
    Some(out)
}

/// Copies the folder `from` to `to` (files keep their permissions: the runner script stays
/// executable), leaving out `target/`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            if entry.file_name() != "target" {
                copy_dir(&src, &dst)?;
            }
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("cannot copy {}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// QEMU's output and cargo's messages, for a failure report.
fn show(output: &TimedOutput) -> String {
    format!(
        "----- output -----\n{}\n----- stderr -----\n{}\n-----",
        output.stdout.trim_end(),
        output.stderr.trim_end()
    )
}

/// Step 4: the template's UART output. Returns the number of wakes checked.
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
    use super::{check_output, fail_at_finish, has_z_flag, package_name, text_problems};

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

    /// A configuration for this machine alone (Debian's rustc, build-std through
    /// RUSTC_BOOTSTRAP): every line but the target and the runner is a finding.
    const MACHINE_CONFIG: &str = "[build]\n\
                                  target = \"armv7a-none-eabi\"\n\
                                  rustc = \"/usr/bin/rustc\"\n\
                                  [env]\n\
                                  RUSTC_BOOTSTRAP = \"1\"\n\
                                  [unstable]\n\
                                  build-std = [\"core\"]\n\
                                  [target.armv7a-none-eabi]\n\
                                  runner = \"qemu-system-arm -kernel\"\n";

    #[test]
    fn the_machine_only_configuration_fails_and_the_rustup_one_passes() {
        let found = text_problems(MACHINE_CONFIG, false);
        let lines: Vec<&str> = found.iter().map(|p| p.split(':').next().unwrap()).collect();
        assert_eq!(lines, ["3", "5", "6", "7"], "{found:?}");
        // The nightly route may keep `[unstable] build-std`, nothing else of it.
        let nightly = text_problems(MACHINE_CONFIG, true);
        let lines: Vec<&str> = nightly
            .iter()
            .map(|p| p.split(':').next().unwrap())
            .collect();
        assert_eq!(lines, ["3", "5"], "{nightly:?}");
        let rustup = "[build]\ntarget = \"armv7a-none-eabi\"\n\
                      [target.armv7a-none-eabi]\nrunner = \"qemu-system-arm -kernel\"\n";
        assert!(text_problems(rustup, false).is_empty());
        let manifest = "cargo-features = [\"per-package-target\"]\n[package]\n\
                        forced-target = \"mips-mti-none-elf\"\n";
        assert_eq!(text_problems(manifest, true).len(), 2);
        let other_key = "[unstable]\nbuild-std = [\"core\"]\nbuild-std-features = []\n";
        assert_eq!(
            text_problems(other_key, true).len(),
            1,
            "{:?}",
            text_problems(other_key, true)
        );
    }

    #[test]
    fn z_flags_are_found_and_words_with_z_are_not() {
        assert!(has_z_flag("cargo run -Zbuild-std=core"));
        assert!(has_z_flag("rustflags = [\"-Z\", \"x\"]"));
        assert!(has_z_flag("cargo -Z build-std"));
        assert!(!has_z_flag("A-Z, a-z"));
        assert!(!has_z_flag("tick-hz-24_000_000, x--Zed"));
    }

    #[test]
    fn the_failing_copy_turns_the_one_finish_to_false() {
        let source = "fn a() {\n    arm::finish(Uart0, true)\n}\nlet ok = true;\n";
        assert_eq!(
            fail_at_finish(source).as_deref(),
            Some("fn a() {\n    arm::finish(Uart0, false)\n}\nlet ok = true;\n")
        );
        let two = format!("{source}    mips::finish(Uart, true)\n");
        assert_eq!(fail_at_finish(&two), None);
        assert_eq!(fail_at_finish("let ok = true;\n"), None);
    }

    #[test]
    fn the_package_name_is_the_first_name_line() {
        let manifest = "cargo-features = [\"x\"]\n[package]\nname = \"template-a\"\n\
                        [dependencies]\nname-like = { name = \"b\" }\n";
        assert_eq!(package_name(manifest).as_deref(), Some("template-a"));
        assert_eq!(package_name("[package]\nversion = \"1\"\n"), None);
    }
}
