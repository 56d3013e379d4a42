//! The behavioural model itself: its behaviour against docs/loongarch-timer.md, and its CSR
//! map against the driver's.

mod behaviour;
mod register_map;
