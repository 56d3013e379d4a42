//! The models themselves: what each DWMAC model does with its registers and descriptors,
//! and their register maps against the vendors' descriptions.

#[path = "../harness/mod.rs"]
mod harness;

mod arena_soundness;
mod engine;
mod gmac3;
mod nxp_map;
mod pac;
mod qos;
mod silicon;
mod wire_error;
