//! Declares the `loom` cfg (the model-checked build of `seqlock` and `extend::Published`,
//! see `tests/loom.rs`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(loom)");
}
