//! Global2 operations (docs/mv88e6xxx.md): the trunk tables and the reserved-multicast
//! traps.

mod mgmt;
mod trunk;

pub use trunk::{TRUNK_IDS, TRUNK_MASKS};
