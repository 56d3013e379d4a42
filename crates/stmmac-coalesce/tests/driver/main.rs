//! The driver against the models: rings, coalescing, configuration errors, bad input,
//! soundness at the DMA boundary, a dead block, ordering hazards and a lagging DMA.

#[path = "../harness/mod.rs"]
mod harness;

mod bad_input;
mod bring_up;
mod cache;
mod coalescing;
mod config_errors;
mod dead_block;
mod dma_boundary;
mod features;
mod hazards;
mod hazards_dma;
mod lag;
mod mdio_c45;
mod ordering;
mod probe;
mod rings;
mod rx_frames;
mod soundness;
mod stops;
