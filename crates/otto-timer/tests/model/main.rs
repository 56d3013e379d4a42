//! The behavioural model itself: its behaviour against the facts of docs/otto-timer.md, and
//! its register map against the driver's.

mod behaviour;
mod register_map;
