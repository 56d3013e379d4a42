//! The behavioural model on its own (no driver): its registers against docs/mv88e6xxx.md,
//! its frame path, and its chip table against the driver's.

#[path = "../common/mod.rs"]
mod common;

mod chip_table;
mod frame_path;
mod registers;
