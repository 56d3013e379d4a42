//! `cargo xtask lint`: library code never panics on any input.
//!
//! The lints in [`LIBRARY_LINTS`] forbid `unwrap`/`expect`/`panic!`, slice indexing and
//! arithmetic that can overflow implicitly (checked, saturating or wrapping operations, each
//! with the reason it cannot overflow). This is the one place they are listed. Cargo's
//! `[lints]` table cannot tell a library target from its tests, which may panic, so they are
//! passed to clippy for the library targets only: here on the host with every feature, and
//! by `cargo xtask cross` for each bare-metal target (where the code behind
//! `cfg(target_arch = ...)` compiles). Each crate's host-only `sim` module is exempt at its
//! `mod` line.

use crate::util::{arguments, host_cargo, library_crates, no_more_args, run};

/// The lints every library target is checked with, as clippy arguments.
pub const LIBRARY_LINTS: [&str; 10] = [
    "-D",
    "clippy::unwrap_used",
    "-D",
    "clippy::expect_used",
    "-D",
    "clippy::panic",
    "-D",
    "clippy::indexing_slicing",
    "-D",
    "clippy::arithmetic_side_effects",
];

/// Runs the host clippy on every library crate's library target with all features.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "usage: cargo xtask lint")?;
    let mut cmd = host_cargo();
    cmd.args(["clippy", "--lib", "--all-features"]);
    for lib in library_crates()? {
        cmd.args(["-p", lib.name.as_str()]);
    }
    cmd.args(["--", "-D", "warnings"]).args(LIBRARY_LINTS);
    run(&mut cmd)
}
