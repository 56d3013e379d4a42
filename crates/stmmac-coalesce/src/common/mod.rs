//! The version-neutral vocabulary every DWMAC generation shares, as Linux's stmmac
//! `common.h` has it: the [`Dwmac`] trait the rings and adapters drive, the DMA events, the
//! [`MacConfig`] and frame filter, the link types ([`phy`]), the errors and the timeouts.
//!
//! Nothing here names a register of either version: [`gmac3`](crate::gmac3) and
//! [`qos`](crate::qos) each map their own words to these types.

mod csr;
pub(crate) mod desc;
mod dwmac;
mod error;
mod mac;
pub mod mii;
mod offload;
pub mod phy;
pub(crate) mod setup;
mod stats;

pub use csr::{cr_divider, csr_clock_range, csr_clock_range_qos};
pub use dwmac::Dwmac;
pub(crate) use dwmac::{RingStart, check_layout, sealed};
pub use error::{ConfigError, Error};
pub use mac::{
    DmaEvents, FrameFilter, MDIO_TIMEOUT_US, MacConfig, STOP_POLLS, SWR_TIMEOUT_US,
    multicast_hash_bin, multicast_hash_bin8,
};
pub(crate) use mac::{
    decode_link, encode_link, mdio_wait_idle, take_master, wait_reset, wait_stopped,
};
pub use offload::{Coe, Offload, RxCoe};
pub(crate) use setup::MAX_QOS_RING;
pub use setup::{DESC_SIZE, DescLayout, DmaConfig, DmaSetup};
pub use stats::HwStats;
