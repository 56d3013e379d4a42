//! The global-timer driver against its model: the conformance suite under every compare
//! rule, what the suite cannot say, configuration errors, a dead block, the queue's promises
//! on the driver's own time base, two cores on one block, and the register map against the
//! model's.

mod config_errors;
mod conformance;
mod dead_block;
mod driver;
mod idle_failures;
mod multicore;
mod register_map;
