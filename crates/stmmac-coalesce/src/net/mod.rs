//! The network-stack adapters over a [`TxRing`](crate::TxRing) /
//! [`RxRing`](crate::RxRing) pair, each behind its feature: `smoltcp::Device` (feature
//! `smoltcp`), `embassy_net::Driver` (feature `embassy-net`), and `ieee802_3_miim` PHY
//! drivers over this crate's MDIO (`miim`, feature `miim`).
//!
//! The adapters carry driver statistics only. Measurement and fault injection wrap any
//! device, as smoltcp's own middleware does: `Measured` counts a cost probe's units per
//! token, and smoltcp's `phy::FaultInjector` drops and corrupts frames around any
//! `phy::Device` (both with feature `smoltcp`).
//!
//! The stack crates the adapters implement are re-exported (`smoltcp_crate`,
//! `embassy_net_driver_crate`), so a user names the very versions the adapters were built
//! against.

#[cfg(feature = "embassy-net")]
pub mod embassy_net;
#[cfg(feature = "smoltcp")]
mod measured;
#[cfg(feature = "miim")]
pub mod miim;
#[cfg(feature = "smoltcp")]
pub mod smoltcp;

#[cfg(feature = "smoltcp")]
pub use measured::{CostProbe, Measured, MeasuredStats};

/// The `smoltcp` crate whose `phy::Device` [`smoltcp::Device`] implements (feature
/// `smoltcp`): name smoltcp's types through it and the versions match.
#[cfg(feature = "smoltcp")]
pub use ::smoltcp as smoltcp_crate;

/// The `embassy-net-driver` crate whose `Driver` [`embassy_net::Driver`] implements
/// (feature `embassy-net`).
#[cfg(feature = "embassy-net")]
pub use ::embassy_net_driver as embassy_net_driver_crate;
