//! `cargo xtask package`: the publishable crates are ready for crates.io.
//!
//! 1. Every publishable member of the root workspace (all crates under `crates/`; members
//!    with `publish = false` are skipped) has a `license`, the two license files that
//!    `MIT OR Apache-2.0` promises (`LICENSE-MIT`, `LICENSE-APACHE`) next to its
//!    Cargo.toml, a `[package.metadata.docs.rs]` table, and no placeholder `repository`.
//! 2. Each crate's package is self-contained: `cargo package --list` holds its README, its
//!    license files and every note in its `docs/` folder (what its docs cite; `cargo xtask
//!    citations` keeps a crate's citations inside the crate).
//! 3. `cargo package --workspace` (minus the unpublishable members) builds the `.crate`
//!    files and verifies each by compiling it from its packaged sources. Packaging the
//!    crates together is what makes this work before any of them is on crates.io: cargo
//!    resolves the path dependencies between them against the freshly packaged siblings.
//!    Like `cargo package`, it refuses uncommitted changes in a crate unless given
//!    `--allow-dirty` (CI runs on a clean checkout).
//!
//! Before step 2 it removes what an earlier run left behind for the crates it packages:
//! their extractions in cargo's cache (`$CARGO_HOME/registry/src/*/<crate>-<version>`), and
//! the builds (it packages with `--target-dir target/package-verify`, emptied first). cargo treats the packaged siblings as
//! registry crates, whose sources and builds it never re-checks for the same name and
//! version: while the version stays 0.1.0, a later run verified a crate against a sibling's
//! *old* sources or build (seen as `unresolved import hwtimer_core::Claim` when
//! a9-global-timer was verified against the hwtimer-core of a previous run). cargo
//! extracts and builds them again from the fresh `.crate` files.

use crate::util::{
    arguments, capture, host_cargo, no_more_args, package_dir, publishable, run, workspace_packages,
};

/// License files every publishable crate ships.
const LICENSE_FILES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// The workspace license those files belong to.
const LICENSE: &str = "MIT OR Apache-2.0";

/// Checks the packaging metadata, then packages and verifies the crates.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut args = arguments(args);
    let allow_dirty = args.contains("--allow-dirty");
    no_more_args(args, "usage: cargo xtask package [--allow-dirty]")?;
    let packages = workspace_packages(host_cargo())?;
    let mut problems = Vec::new();
    let mut excluded = Vec::new();
    for pkg in &packages {
        if !publishable(pkg) {
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
            if !package_dir(pkg).join(file).is_file() {
                problems.push(format!("{}: {file} is missing", pkg.name));
            }
        }
        if pkg.metadata["docs"]["rs"].is_null() {
            problems.push(format!(
                "{}: no [package.metadata.docs.rs] (which features docs.rs documents)",
                pkg.name
            ));
        }
        if let Some(repo) = pkg.repository.as_deref().filter(|r| r.contains(".invalid")) {
            problems.push(format!("{}: placeholder repository {repo:?}", pkg.name));
        }
        let mut list = host_cargo();
        list.args([
            "package",
            "--list",
            "--allow-dirty",
            "-p",
            pkg.name.as_str(),
        ]);
        let listed = capture(&mut list)?;
        for file in shipped_files(&package_dir(pkg)) {
            if !listed.lines().any(|l| l.trim() == file) {
                problems.push(format!("{}: {file} is not in the package", pkg.name));
            }
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
    let crates: Vec<(&str, String)> = packages
        .iter()
        .filter(|p| publishable(p))
        .map(|p| (p.name.as_str(), p.version.to_string()))
        .collect();
    let removed = clear_stale_extractions(&cargo_home(), &crates);
    // A target directory of its own, emptied first: the verification builds may not find a
    // sibling's build from an earlier run (see the module docs).
    let verify_dir = crate::util::repo_root()
        .join("target")
        .join("package-verify");
    if verify_dir.is_dir() {
        std::fs::remove_dir_all(&verify_dir)
            .map_err(|e| format!("package: cannot remove {}: {e}", verify_dir.display()))?;
    }
    if removed > 0 {
        println!(
            "package: removed {removed} stale extraction(s) of these crates from cargo's cache"
        );
    }
    let mut cmd = host_cargo();
    cmd.args(["package", "--workspace", "--target-dir"])
        .arg(&verify_dir);
    if allow_dirty {
        cmd.arg("--allow-dirty");
    }
    for name in &excluded {
        cmd.args(["--exclude", name]);
    }
    run(&mut cmd)
}

/// What a crate's package must contain: its README, license files and every note in its
/// `docs/` folder, as paths relative to the crate.
fn shipped_files(dir: &std::path::Path) -> Vec<String> {
    let mut files: Vec<String> = ["README.md"]
        .into_iter()
        .chain(LICENSE_FILES)
        .map(str::to_owned)
        .collect();
    if let Ok(notes) = std::fs::read_dir(dir.join("docs")) {
        let mut notes: Vec<String> = notes
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("docs/{name}"))
            .collect();
        notes.sort();
        files.extend(notes);
    }
    files
}

/// `$CARGO_HOME`, or `~/.cargo`.
fn cargo_home() -> std::path::PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
        .unwrap_or_default()
}

/// Removes `<home>/registry/src/*/<name>-<version>` for each crate; returns how many
/// directories went. Errors (a missing cache, a directory that cannot be read) count as
/// nothing to remove.
fn clear_stale_extractions(home: &std::path::Path, crates: &[(&str, String)]) -> usize {
    let Ok(sources) = std::fs::read_dir(home.join("registry").join("src")) else {
        return 0;
    };
    let mut removed = 0;
    for source in sources.flatten() {
        for (name, version) in crates {
            let dir = source.path().join(format!("{name}-{version}"));
            if dir.is_dir() && std::fs::remove_dir_all(&dir).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::{clear_stale_extractions, shipped_files};

    #[test]
    fn a_package_must_ship_every_note_of_its_docs_folder() {
        let dir = std::env::temp_dir().join(format!("xtask-shipped-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        // (The note names are built so that `cargo xtask citations` does not read them as
        // citations of the repository's docs/.)
        let (a, b) = (["docs", "a.md"].join("/"), ["docs", "b.md"].join("/"));
        std::fs::write(dir.join(&b), "").unwrap();
        std::fs::write(dir.join(&a), "").unwrap();
        std::fs::write(dir.join("docs/plot.svg"), "").unwrap();
        assert_eq!(
            shipped_files(&dir),
            [
                "README.md",
                "LICENSE-MIT",
                "LICENSE-APACHE",
                a.as_str(),
                b.as_str()
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn clears_only_the_named_crates_at_their_version() {
        let home = std::env::temp_dir().join(format!("xtask-package-test-{}", std::process::id()));
        let src = home.join("registry").join("src");
        for dir in [
            "a/mine-0.1.0",
            "b/mine-0.1.0",
            "b/mine-0.2.0",
            "b/other-0.1.0",
        ] {
            std::fs::create_dir_all(src.join(dir)).unwrap();
        }
        let mine = [("mine", "0.1.0".to_owned())];
        assert_eq!(clear_stale_extractions(&home, &mine), 2);
        assert!(!src.join("a/mine-0.1.0").exists());
        assert!(!src.join("b/mine-0.1.0").exists());
        assert!(src.join("b/mine-0.2.0").exists());
        assert!(src.join("b/other-0.1.0").exists());
        assert_eq!(clear_stale_extractions(&home.join("none"), &mine), 0);
        std::fs::remove_dir_all(&home).unwrap();
    }
}
