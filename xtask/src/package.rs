//! `cargo xtask package`: the publishable crates are ready for crates.io.
//!
//! 1. Every publishable member of the root workspace (all crates under `crates/`; members
//!    with `publish = false` are skipped) has a `license`, the two license files that
//!    `MIT OR Apache-2.0` promises (`LICENSE-MIT`, `LICENSE-APACHE`) next to its
//!    Cargo.toml, a `[package.metadata.docs.rs]` table, and no placeholder `repository`.
//! 2. `cargo package --workspace` (minus the unpublishable members) builds the `.crate`
//!    files and verifies each by compiling it from its packaged sources. Packaging the
//!    crates together is what makes this work before any of them is on crates.io: cargo
//!    resolves the path dependencies between them against the freshly packaged siblings.
//!    Like `cargo package`, it refuses uncommitted changes in a crate unless given
//!    `--allow-dirty` (CI runs on a clean checkout).

use crate::util::{host_cargo, run, workspace_packages};

/// License files every publishable crate ships.
const LICENSE_FILES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// The workspace license those files belong to.
const LICENSE: &str = "MIT OR Apache-2.0";

/// Checks the packaging metadata, then packages and verifies the crates.
pub fn main(args: &[String]) -> Result<(), String> {
    let allow_dirty = match args {
        [] => false,
        [flag] if flag == "--allow-dirty" => true,
        _ => return Err("usage: cargo xtask package [--allow-dirty]".into()),
    };
    let packages = workspace_packages(host_cargo())?;
    let mut problems = Vec::new();
    let mut excluded = Vec::new();
    for pkg in &packages {
        if !pkg.publishable {
            excluded.push(pkg.name.as_str());
            continue;
        }
        if pkg.license.as_deref() != Some(LICENSE) {
            problems.push(format!(
                "{}: license is {:?}, expected {LICENSE:?}",
                pkg.name, pkg.license
            ));
        }
        for file in LICENSE_FILES {
            if !pkg.dir.join(file).is_file() {
                problems.push(format!("{}: {file} is missing", pkg.name));
            }
        }
        if pkg.metadata.get("docs").get("rs").is_null() {
            problems.push(format!(
                "{}: no [package.metadata.docs.rs] (which features docs.rs documents)",
                pkg.name
            ));
        }
        if let Some(repo) = pkg.repository.as_deref().filter(|r| r.contains(".invalid")) {
            problems.push(format!("{}: placeholder repository {repo:?}", pkg.name));
        }
    }
    if !problems.is_empty() {
        return Err(format!(
            "package: not publishable:\n  {}",
            problems.join("\n  ")
        ));
    }
    println!(
        "package: metadata ok; packaging every member except {}",
        excluded.join(", ")
    );
    let mut cmd = host_cargo();
    cmd.args(["package", "--workspace"]);
    if allow_dirty {
        cmd.arg("--allow-dirty");
    }
    for name in &excluded {
        cmd.args(["--exclude", name]);
    }
    run(&mut cmd)
}
