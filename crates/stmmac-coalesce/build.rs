//! Declares the `loom` cfg (the model-checked build of the embassy-net adapter's wakers, see
//! `src/net/embassy_net/hub.rs`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(loom)");
}
