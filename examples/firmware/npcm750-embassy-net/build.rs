//! Links the firmware with `aarch32-rt`'s `link.x`, which includes this crate's `memory.x`.
//!
//! The script is passed with `rustc-link-arg-bins` rather than through target rustflags in
//! `.cargo/config.toml`, because other crates of the workspace build for the same triple with a
//! different memory layout.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-search={dir}");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed=memory.x");
}
