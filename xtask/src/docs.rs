//! `cargo xtask docs`: each library crate's documentation builds as docs.rs builds it.
//!
//! docs.rs documents a crate with the features listed in its `[package.metadata.docs.rs]`
//! (here `sim`, and `fugit` for hwtimer-core) on a nightly rustdoc with `--cfg docsrs`, under
//! which the crates enable `doc(cfg)` so every feature-gated item says which feature it
//! needs. This runs the same build per crate with the host toolchain (`RUSTC_BOOTSTRAP=1`
//! for the unstable `doc_cfg`), `--no-deps`, and fails on any rustdoc warning (a broken
//! intra-doc link into a feature-gated module, a missing doc). It uses its own target
//! directory (`target/docsrs`), so the normal builds are not invalidated.

use crate::util::{arguments, host_cargo, library_crates, metadata, no_more_args, repo_root, run};

/// What `docs` reads of `[package.metadata.docs.rs]`.
#[derive(Default, serde::Deserialize)]
#[serde(default, rename_all = "kebab-case")]
struct DocsRs {
    /// The features docs.rs enables.
    features: Vec<String>,
    /// Its extra rustdoc arguments (`--cfg docsrs`).
    rustdoc_args: Vec<String>,
}

/// Documents every library crate with its docs.rs settings.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "`docs` takes no arguments")?;
    let target_dir = repo_root().join("target").join("docsrs");
    for lib in library_crates()? {
        let DocsRs {
            features,
            mut rustdoc_args,
        } = metadata(&lib, "docs.rs")?.unwrap_or_default();
        rustdoc_args.push("-Dwarnings".into());
        println!(
            "docs: {} (features: {}; rustdoc {})",
            lib.name,
            if features.is_empty() {
                "none".to_owned()
            } else {
                features.join(",")
            },
            rustdoc_args.join(" ")
        );
        let mut cmd = host_cargo();
        cmd.args(["doc", "--quiet", "--no-deps", "-p", &lib.name])
            .arg("--target-dir")
            .arg(&target_dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .env("RUSTDOCFLAGS", rustdoc_args.join(" "));
        if !features.is_empty() {
            cmd.args(["--features", &features.join(",")]);
        }
        run(&mut cmd).map_err(|e| format!("docs: {}: {e}", lib.name))?;
    }
    println!("docs: every crate documents cleanly as docs.rs builds it");
    Ok(())
}
