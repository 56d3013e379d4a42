//! `cargo xtask cross`: builds every library crate for the bare-metal targets, then links the
//! `no-std-smoke` binary for each of them.
//!
//! Step 1 runs `cargo build -p <crate> --lib --target <T> -Zbuild-std=core` in the root
//! workspace (default features, and again with `defmt` where a crate declares it; target dir
//! `target/cross` so the host build is untouched) for
//! each crate under `crates/` and each of its targets: all of [`CROSS_TARGETS`] unless the
//! crate's Cargo.toml narrows them with
//!
//! ```toml
//! [package.metadata.cross]
//! targets = ["mips-mti-none-elf"]
//! ```
//!
//! Step 2 links `examples/firmware/no-std-smoke`, a `no_main` binary that depends on every
//! library crate, for each target listed in *its* `[package.metadata.cross]`. Only `core` is
//! built for these targets, so a crate that needs `std` fails to compile, and symbols missing
//! at link time (an `extern` the crate expects the application to provide) fail to link.
//!
//! Step 3 runs Debian's clippy (`rust-web-clippy`, `-Zbuild-std=core`) with `-D warnings` on
//! what the host clippy never sees: each library crate compiled for each of its bare-metal
//! targets (`NativeCsr` exists only on loongarch64; pointer widths differ), and the firmware
//! workspace for each target a QEMU board runs on.
//!
//! Step 4 checks the length of hot paths in the linked smoke binary against the limits in
//! [`CODE_LIMITS`] (symbol sizes from `nm -S`; on a fixed-width ISA, bytes / 4 is the
//! instruction count): for instance `OttoClocksource::read` on MIPS, which must stay the bare
//! load, the mask and the return now that the driver checks its MMIO window once.
//!
//! The result is a crate × target table; the command fails if any cell is `FAIL`.

use crate::util::{
    CROSS_TARGETS, CrossToolchain, Package, arguments, firmware_dir, is_library, library_crates,
    metadata, no_more_args, repo_root, workspace_packages,
};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::Command;
use std::time::Instant;

/// The link-check package in the firmware workspace.
const SMOKE: &str = "no-std-smoke";

/// Hot paths of the smoke binary and their longest allowed length: target, symbol (an
/// out-of-line `#[unsafe(no_mangle)]` probe in `no-std-smoke`), bytes per instruction, and
/// the most instructions it may have, return included.
const CODE_LIMITS: [(&str, &str, u64, u64); 1] = [("mips-mti-none-elf", "probe_otto_read", 4, 5)];

/// The outcome of one build.
enum Cell {
    /// Built (and, for the smoke binary, linked).
    Ok,
    /// Failed; holds cargo's stderr.
    Fail(String),
    /// Not built: the crate does not declare this target.
    Skipped,
}

/// One row of the summary table.
struct Row {
    label: String,
    cells: BTreeMap<String, Cell>,
}

/// Runs the cross builds and prints the summary table.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "`cross` takes no arguments")?;
    let toolchain = CrossToolchain::find()?;
    let libs = library_crates()?;
    if libs.is_empty() {
        println!("cross: no library crates under crates/");
    }
    let firmware = workspace_packages(toolchain.cargo(&firmware_dir()))?;
    let smoke = firmware
        .iter()
        .find(|p| p.name == SMOKE)
        .ok_or("examples/firmware has no `no-std-smoke` package")?;

    // Columns: the standard targets, then any extra ones a crate declares.
    let mut columns: Vec<String> = CROSS_TARGETS.iter().map(|t| (*t).to_owned()).collect();
    for pkg in libs.iter().chain([smoke]) {
        metadata::<Vec<String>>(pkg, "cross.targets")?; // malformed: fail here, once
        for target in targets_of(pkg) {
            if !columns.contains(&target) {
                columns.push(target);
            }
        }
    }

    let root = repo_root();
    let target_dir = root.join("target").join("cross");
    let mut rows = Vec::new();
    for lib in &libs {
        let mut row = Row {
            label: lib.name.to_string(),
            cells: BTreeMap::new(),
        };
        let wanted = targets_of(lib);
        for target in &columns {
            let cell = if wanted.contains(target) {
                let mut cmd = toolchain.cargo(&root);
                cmd.args(["build", "-Zbuild-std=core", "--lib", "-p", &lib.name])
                    .args(["--target", target])
                    .arg("--target-dir")
                    .arg(&target_dir);
                let mut cell = build(&format!("{} for {target}", lib.name), &mut cmd);
                // The optional `defmt` feature must build without `std` as well.
                if matches!(cell, Cell::Ok) && lib.features.contains_key("defmt") {
                    let mut cmd = toolchain.cargo(&root);
                    cmd.args(["build", "-Zbuild-std=core", "--lib", "-p", &lib.name])
                        .args(["--features", "defmt", "--target", target])
                        .arg("--target-dir")
                        .arg(&target_dir);
                    cell = build(&format!("{} +defmt for {target}", lib.name), &mut cmd);
                }
                cell
            } else {
                Cell::Skipped
            };
            row.cells.insert(target.clone(), cell);
        }
        rows.push(row);
    }

    // The smoke binary must use every library crate, or it proves nothing about the missing one.
    let missing: Vec<&str> = libs
        .iter()
        .map(|lib| lib.name.as_str())
        .filter(|name| !smoke.dependencies.iter().any(|dep| dep.name == *name))
        .collect();
    let mut smoke_row = Row {
        label: format!("{SMOKE} (link)"),
        cells: BTreeMap::new(),
    };
    let smoke_targets = targets_of(smoke);
    for target in &columns {
        let cell = if !smoke_targets.contains(target) {
            Cell::Skipped
        } else if !missing.is_empty() {
            Cell::Fail(String::new()) // explained once, below
        } else {
            let mut cmd = toolchain.cargo(&firmware_dir());
            cmd.args(["build", "-Zbuild-std=core", "--release", "-p", SMOKE])
                .args(["--target", target]);
            build(&format!("{SMOKE} for {target}"), &mut cmd)
        };
        smoke_row.cells.insert(target.clone(), cell);
    }
    let sizes_ok = smoke_row
        .cells
        .iter()
        .filter(|(_, cell)| matches!(cell, Cell::Ok))
        .all(|(target, _)| code_limits_hold(target));
    rows.push(smoke_row);
    rows.extend(clippy_rows(&toolchain, &libs, &firmware, &columns));

    print_failures(&rows);
    if !missing.is_empty() {
        println!(
            "\n===== {SMOKE} not built: it does not depend on {} =====\n\
             Add `<crate>.workspace = true` to examples/firmware/{SMOKE}/Cargo.toml (and the \
             path to [workspace.dependencies] in examples/firmware/Cargo.toml), and a line to \
             `touch_libraries` in its src/main.rs.",
            missing.join(", ")
        );
    }
    print_table(&columns, &rows);
    let failures = rows
        .iter()
        .flat_map(|row| row.cells.values())
        .filter(|cell| matches!(cell, Cell::Fail(_)))
        .count();
    if failures > 0 {
        Err(format!("cross: {failures} build(s) failed"))
    } else if !sizes_ok {
        Err("cross: a hot path is longer than its limit (see `size:` lines)".to_owned())
    } else {
        Ok(())
    }
}

/// Step 4 for one target's smoke binary: prints a `size:` line per [`CODE_LIMITS`] entry
/// and returns whether all hold (a missing symbol or `nm` failing counts as not holding).
fn code_limits_hold(target: &str) -> bool {
    let elf = firmware_dir()
        .join("target")
        .join(target)
        .join("release")
        .join(SMOKE);
    let mut ok = true;
    for (_, symbol, width, max) in CODE_LIMITS.iter().filter(|(t, ..)| *t == target) {
        let size = Command::new("nm")
            .arg("-S")
            .arg(&elf)
            .output()
            .ok()
            .and_then(|out| symbol_size(&String::from_utf8_lossy(&out.stdout), symbol));
        match size {
            Some(bytes) => {
                let insns = bytes / width;
                let holds = insns <= *max;
                ok &= holds;
                println!(
                    "size: {symbol} on {target} = {insns} insns (limit {max}): {}",
                    if holds { "ok" } else { "TOO LONG" }
                );
            }
            None => {
                ok = false;
                println!("size: {symbol} not found in {} (nm -S)", elf.display());
            }
        }
    }
    ok
}

/// The size in bytes of `symbol` in `nm -S` output (`<addr> <size> <type> <name>`).
fn symbol_size(nm: &str, symbol: &str) -> Option<u64> {
    nm.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (_addr, size, _kind, name) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        (name == symbol)
            .then(|| u64::from_str_radix(size, 16).ok())
            .flatten()
    })
}

/// Step 3: Debian's clippy with `-D warnings` on the code that only compiles for a bare-metal
/// target: every library crate (`--lib`) on each target it declares, in one cargo call per
/// target, and the firmware workspace for each target a board runs on (the boards of that
/// target, the firmware's library crates and, where it builds, `no-std-smoke`, which is
/// where `NativeCsr` and the real `Mmio` paths of every driver are instantiated).
fn clippy_rows(
    toolchain: &CrossToolchain,
    libs: &[Package],
    firmware: &[Package],
    columns: &[String],
) -> Vec<Row> {
    let mut lib_row = Row {
        label: "clippy crates/*".to_owned(),
        cells: BTreeMap::new(),
    };
    let mut fw_row = Row {
        label: "clippy examples/firmware".to_owned(),
        cells: BTreeMap::new(),
    };
    if let Err(problem) = toolchain.clippy() {
        // One failing cell carries the reason; clippy runs nowhere else.
        if let Some(first) = columns.first() {
            lib_row.cells.insert(first.clone(), Cell::Fail(problem));
        }
        return vec![lib_row];
    }
    let root = repo_root();
    let target_dir = root.join("target").join("cross");
    for target in columns {
        let names: Vec<&str> = libs
            .iter()
            .filter(|lib| targets_of(lib).contains(target))
            .map(|lib| lib.name.as_str())
            .collect();
        let cell = if names.is_empty() {
            Cell::Skipped
        } else {
            let mut cmd = toolchain.cargo(&root);
            cmd.args(["clippy", "-Zbuild-std=core", "--lib", "--target", target])
                .arg("--target-dir")
                .arg(&target_dir);
            for name in &names {
                cmd.args(["-p", name]);
            }
            cmd.args(["--", "-D", "warnings"])
                .args(crate::lint::LIBRARY_LINTS);
            build(&format!("clippy crates/* for {target}"), &mut cmd)
        };
        lib_row.cells.insert(target.clone(), cell);

        let boards: Vec<&str> = firmware
            .iter()
            .filter(|p| p.metadata["qemu"]["target"].as_str() == Some(target))
            .map(|p| p.name.as_str())
            .collect();
        // Each board on its own, as `cargo xtask qemu` builds them: checked together, cargo
        // unifies features across boards, and two boards that pick different embassy-time
        // tick rates (`tick-hz-*`) then fail to compile. The support packages ride along with
        // the first board; the first failure is the cell's.
        let mut cell = Cell::Skipped;
        let support: Vec<&str> = firmware
            .iter()
            .filter(|p| is_library(p) || (p.name == SMOKE && targets_of(p).contains(target)))
            .map(|p| p.name.as_str())
            .collect();
        for (i, board) in boards.iter().copied().enumerate() {
            let mut cmd = toolchain.cargo(&firmware_dir());
            cmd.args([
                "clippy",
                "-Zbuild-std=core",
                "--release",
                "--target",
                target,
                "-p",
                board,
            ]);
            if i == 0 {
                for name in &support {
                    cmd.args(["-p", name]);
                }
            }
            cmd.args(["--", "-D", "warnings"]);
            let this = build(
                &format!("clippy examples/firmware/{board} for {target}"),
                &mut cmd,
            );
            match (&cell, this) {
                (Cell::Fail(_), _) => {}
                (_, this) => cell = this,
            }
        }
        fw_row.cells.insert(target.clone(), cell);
    }
    vec![lib_row, fw_row]
}

/// The targets a package declares in `[package.metadata.cross] targets`, or all of
/// [`CROSS_TARGETS`] (also when the list is malformed, which `main` reports first).
fn targets_of(pkg: &Package) -> Vec<String> {
    metadata(pkg, "cross.targets")
        .ok()
        .flatten()
        .unwrap_or_else(|| CROSS_TARGETS.iter().map(|t| (*t).to_owned()).collect())
}

/// Runs one cargo build quietly, reporting progress on one line.
fn build(what: &str, cmd: &mut Command) -> Cell {
    let start = Instant::now();
    print!("cross: {what} ... ");
    let _ = std::io::stdout().flush(); // show the line while cargo works
    let output = cmd.output();
    let seconds = start.elapsed().as_secs_f32();
    match output {
        Ok(out) if out.status.success() => {
            println!("ok ({seconds:.1} s)");
            Cell::Ok
        }
        Ok(out) => {
            println!("FAIL ({seconds:.1} s)");
            Cell::Fail(String::from_utf8_lossy(&out.stderr).into_owned())
        }
        Err(e) => {
            println!("FAIL");
            Cell::Fail(format!("cannot run cargo: {e}"))
        }
    }
}

/// Prints cargo's error output for every failed cell.
fn print_failures(rows: &[Row]) {
    for row in rows {
        for (target, cell) in &row.cells {
            if let Cell::Fail(log) = cell
                && !log.is_empty()
            {
                println!(
                    "\n===== {} for {target}: FAILED =====\n{}",
                    row.label,
                    log.trim_end()
                );
            }
        }
    }
}

/// Prints the crate × target table.
fn print_table(columns: &[String], rows: &[Row]) {
    let label_width = rows
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(0)
        .max("crate".len());
    let mut header = format!("\n{:label_width$}", "crate");
    for column in columns {
        header.push_str(&format!("  {column}"));
    }
    println!("{header}");
    for row in rows {
        let mut line = format!("{:label_width$}", row.label);
        for column in columns {
            let text = match row.cells.get(column) {
                Some(Cell::Ok) => "ok",
                Some(Cell::Fail(_)) => "FAIL",
                Some(Cell::Skipped) | None => "-",
            };
            line.push_str(&format!("  {text:width$}", width = column.len()));
        }
        println!("{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::symbol_size;

    #[test]
    fn symbol_size_reads_nm_s_lines() {
        let nm = "00022528 00000014 T probe_otto_read\n\
                  0002253c 00000028 T probe_otto_set_next_event\n\
                  00020000 T _start\n";
        assert_eq!(symbol_size(nm, "probe_otto_read"), Some(0x14));
        assert_eq!(symbol_size(nm, "probe_otto_set_next_event"), Some(0x28));
        assert_eq!(symbol_size(nm, "_start"), None); // no size column
        assert_eq!(symbol_size(nm, "probe_otto"), None);
    }
}
