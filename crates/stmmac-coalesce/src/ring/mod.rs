//! The TX and RX descriptor rings and the TX interrupt coalescing, written once for every
//! DWMAC generation: they reach their MAC only through the [`Dwmac`](crate::Dwmac) trait.

pub mod coalesce;
pub(crate) mod desc;
pub mod rx;
pub mod tx;
