//! `cargo xtask features`: every feature of every library crate builds on its own.
//!
//! For each crate under `crates/` this checks the library, on the host, with nothing
//! enabled and with each declared feature alone:
//!
//! ```text
//! cargo rustc -p <crate> --lib --profile check --no-default-features [--features <F>] \
//!     -- -W unused-crate-dependencies
//! ```
//!
//! (`cargo check` with the lint passed to this crate only, so dependencies are not rebuilt),
//! so that a feature that only compiles together with another one (a missing forward in its
//! list, a `cfg` that assumes a second feature) fails here instead of in a user's build; the
//! tests always run with the features their dev-dependencies turn on, which hides such gaps.
//! `unused-crate-dependencies` catches a dependency the code does not use in that
//! configuration (it should be dropped, or made optional and pulled in by the feature that
//! uses it). `default` is not checked separately (it is what a plain build checks). A
//! warning counts as a failure. The result is a crate × feature table; the command fails if
//! any cell is `FAIL`.
//!
//! First, each feature must be documented where it is declared: a `##` comment line right
//! above it in the crate's `Cargo.toml`, the one source the crate docs render
//! (`document-features`). An undocumented feature fails the command before any build.

use crate::util::{arguments, host_cargo, library_crates, no_more_args, package_dir, read_file};
use std::io::Write as _;
use std::time::Instant;

/// One check: the feature (or [`NONE`]) and its outcome, with cargo's output on failure.
type Cell = (String, Result<(), String>);

/// The label of the "no features at all" column.
const NONE: &str = "(none)";

/// Checks each library crate with no features and with each feature alone.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "`features` takes no arguments")?;
    let libs = library_crates()?;
    let mut undocumented = Vec::new();
    for lib in &libs {
        let manifest = read_file(&package_dir(lib).join("Cargo.toml"))?;
        for feature in undocumented_features(&manifest) {
            undocumented.push(format!("{}/{feature}", lib.name));
        }
    }
    if !undocumented.is_empty() {
        return Err(format!(
            "features: no `##` comment above {} in Cargo.toml (the crate docs render those \
             comments; document every feature there)",
            undocumented.join(", ")
        ));
    }
    let mut rows: Vec<(String, Vec<Cell>)> = Vec::new();
    for lib in &libs {
        let mut cells = Vec::new();
        // cargo metadata's feature list: the declared ones and the implicit one of each
        // optional dependency that no feature names as `dep:...`.
        let features = std::iter::once(None).chain(
            lib.features
                .keys()
                .filter(|f| f.as_str() != "default")
                .map(Some),
        );
        for feature in features {
            let label = feature.map_or(NONE, String::as_str).to_owned();
            let mut cmd = host_cargo();
            cmd.args([
                "rustc",
                "--quiet",
                "--lib",
                "--profile",
                "check",
                "-p",
                &lib.name,
            ])
            .arg("--no-default-features");
            if let Some(feature) = feature {
                cmd.args(["--features", feature]);
            }
            cmd.args(["--", "-W", "unused-crate-dependencies"]);
            let start = Instant::now();
            print!("features: {} [{label}] ... ", lib.name);
            let _ = std::io::stdout().flush();
            // A warning fails the cell too: it is what a user with only this feature sees
            // (an import or item unused without the other features, a broken doc link).
            let result = match cmd.output() {
                Ok(out) => {
                    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                    let warned = stderr.lines().any(|l| l.starts_with("warning"));
                    if out.status.success() && !warned {
                        Ok(())
                    } else {
                        Err(stderr)
                    }
                }
                Err(e) => Err(format!("cannot run cargo: {e}")),
            };
            let seconds = start.elapsed().as_secs_f32();
            println!(
                "{} ({seconds:.1} s)",
                if result.is_ok() { "ok" } else { "FAIL" }
            );
            cells.push((label, result));
        }
        rows.push((lib.name.to_string(), cells));
    }

    let mut failures = 0;
    for (name, cells) in &rows {
        for (feature, result) in cells {
            if let Err(log) = result {
                failures += 1;
                println!(
                    "\n===== {name} --no-default-features --features {feature}: FAILED =====\n{}",
                    log.trim_end()
                );
            }
        }
    }
    let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    println!();
    for (name, cells) in &rows {
        let cells: Vec<String> = cells
            .iter()
            .map(|(f, r)| format!("{f} {}", if r.is_ok() { "ok" } else { "FAIL" }))
            .collect();
        println!("{name:width$}  {}", cells.join(", "));
    }
    let checked: usize = rows.iter().map(|(_, c)| c.len()).sum();
    if failures == 0 {
        println!("features: {checked} checks of {} crates passed", rows.len());
        Ok(())
    } else {
        Err(format!("features: {failures} of {checked} checks failed"))
    }
}

/// The features of the `[features]` table in `manifest` (a Cargo.toml's text) that have no
/// `##` doc comment on the line right above them; `default` needs none.
fn undocumented_features(manifest: &str) -> Vec<String> {
    let mut missing = Vec::new();
    let mut in_features = false;
    let mut previous = "";
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_features = trimmed == "[features]";
        } else if in_features {
            let name = trimmed.split('=').next().unwrap_or("").trim();
            let declares = trimmed.contains('=')
                && !trimmed.starts_with('#')
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if declares && name != "default" && !previous.trim_start().starts_with("##") {
                missing.push(name.to_owned());
            }
        }
        previous = line;
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::undocumented_features;

    #[test]
    fn a_feature_without_its_comment_is_reported() {
        let manifest = "[package]\nname = \"x\"\n\n[features]\ndefault = []\n## The model.\n\
                        sim = []\nstd = []\n# a plain comment\ndefmt = [\"dep:defmt\"]\n\n\
                        [dependencies]\nfoo = \"1\"\n";
        assert_eq!(undocumented_features(manifest), ["std", "defmt"]);
    }

    #[test]
    fn every_feature_documented_passes() {
        let manifest = "[features]\n## One.\n## Two lines.\na = []\n## B.\nb = [\"a\"]\n";
        assert!(undocumented_features(manifest).is_empty());
    }
}
