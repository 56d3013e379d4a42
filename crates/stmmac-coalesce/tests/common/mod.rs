//! The GMAC 3.x board (`harness::Board<OnGmac3>`) for the single-file tests that are not
//! yet in a subject binary (`tests/<subject>/main.rs`); new tests go into a subject.
#![allow(dead_code, unused_imports)]

#[path = "../harness/mod.rs"]
mod harness;

pub use harness::*;

pub type Model = stmmac_coalesce::sim::Gmac3Model<stmmac_coalesce::sim::AnPhy>;
pub type Bus = harness::Bus<OnGmac3>;
pub type Board = harness::Board<OnGmac3>;

pub fn dma() -> stmmac_coalesce::DmaConfig {
    OnGmac3::dma()
}
