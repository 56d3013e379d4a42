//! The TX-cleanup timer's measurements on the models: jiffies against the hrtimer queue, programmings
//! per packet, RX coalescing, the per-frame cost, and checksum offload.

#[path = "../harness/mod.rs"]
mod harness;

mod offload;
mod per_frame_cost;
mod proof;
