//! Network stacks over the driver on the models: smoltcp and embassy-net TCP between two
//! MACs (also over a lossy wire), and PHY drivers through `ieee802_3_miim`.

#[path = "../harness/mod.rs"]
mod harness;

mod embassy_net;
mod embassy_stack;
mod miim;
mod nic;
mod smoltcp;
mod stack;
