//! Link arguments for the link check, identical on all targets.
//!
//! No linker script: rust-lld's default layout is fine for a binary that never runs. But the
//! entry symbol must be explicit. lld's default entry is `_start` on most targets and
//! `__start` on MIPS, and a missing entry is only a warning, after which `--gc-sections`
//! discards *everything* and the "link check" links an empty binary. `--fatal-warnings` turns
//! that warning (and any other linker warning) into a hard error.

fn main() {
    println!("cargo:rustc-link-arg-bins=--entry=_start");
    println!("cargo:rustc-link-arg-bins=--fatal-warnings");
    println!("cargo:rerun-if-changed=build.rs");
}
