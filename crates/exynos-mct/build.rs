//! Declares the `loom` cfg (the model-checked build of the G_TCON lock, see `src/lock.rs`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(loom)");
}
