//! The network-stack adapters: [`smoltcp::Device`](crate::net::smoltcp) and
//! [`embassy_net::Driver`](crate::net::embassy_net) over a [`TxRing`](crate::TxRing) /
//! [`RxRing`](crate::RxRing) pair, and `ieee802_3_miim` PHY drivers over this crate's MDIO
//! ([`miim`](crate::net::miim)), each behind its feature.
//!
//! The adapters carry driver statistics only. Measurement and fault injection wrap any
//! device, as smoltcp's own middleware does: [`Measured`] counts a cost probe's units per
//! token (feature `smoltcp`), and smoltcp's [`FaultInjector`](smoltcp_crate::phy::FaultInjector)
//! drops and corrupts frames around any [`smoltcp_crate::phy::Device`].
//!
//! The stack crates the adapters implement are re-exported ([`smoltcp_crate`],
//! [`embassy_net_driver_crate`]), so a user names the very versions the adapters were built
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

/// The `smoltcp` crate [`smoltcp::Device`](crate::net::smoltcp::Device) implements
/// `phy::Device` of (feature `smoltcp`).
#[cfg(feature = "smoltcp")]
pub use ::smoltcp as smoltcp_crate;

/// The `embassy-net-driver` crate [`embassy_net::Driver`](crate::net::embassy_net::Driver)
/// implements `Driver` of (feature `embassy-net`).
#[cfg(feature = "embassy-net")]
pub use ::embassy_net_driver as embassy_net_driver_crate;
