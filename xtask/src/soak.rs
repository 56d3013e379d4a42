//! `cargo xtask soak`: the property tests with a long budget.
//!
//! Runs `PROPTEST_CASES=<n> cargo test --workspace --release --no-fail-fast` (n = 10 000 unless `--cases`
//! says otherwise): every property test whose case count honours `PROPTEST_CASES` runs `n`
//! cases instead of its usual few hundred, optimised so that it takes minutes, not hours.
//! Rare corners show up here first (the mv88e6xxx "never overwrites a busy register"
//! failures were found this way); a failure prints proptest's minimal case, which belongs
//! in a regression test. Extra arguments go to `cargo test` (for example `-p mv88e6xxx-smi`
//! to soak one crate, which replaces `--workspace`).
//!
//! `.ci/run` runs it after the debug tests: on two cores it took 125 s from a cold release
//! build and about 25 s warm (measured; the README's tooling table keeps the figure).

use std::time::Instant;

use crate::util::{arguments, host_cargo, run};

/// The default case count.
pub const DEFAULT_CASES: u32 = 10_000;

/// Runs the workspace's tests in release mode with `PROPTEST_CASES` set.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut args = arguments(args);
    let cases = args
        .opt_value_from_str("--cases")
        .map_err(|e| format!("--cases needs a number: {e}"))?
        .unwrap_or(DEFAULT_CASES);
    // Everything else, in order, is for `cargo test`.
    let passthrough = args.finish();
    let one_package = passthrough
        .iter()
        .filter_map(|a| a.to_str())
        .any(|a| a == "-p" || a == "--package" || a.starts_with("--package="));
    let mut cmd = host_cargo();
    cmd.env("PROPTEST_CASES", cases.to_string()).arg("test");
    if !one_package {
        cmd.arg("--workspace");
    }
    // Every failing binary is reported, not only the first.
    cmd.args(["--release", "--no-fail-fast"]).args(&passthrough);
    println!("soak: PROPTEST_CASES={cases}");
    let start = Instant::now();
    let result = run(&mut cmd);
    // Informational only (never asserted): how long the soak took on this machine.
    println!("soak: finished in {:.0} s", start.elapsed().as_secs_f64());
    result
}
