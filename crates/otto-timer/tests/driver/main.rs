//! The Otto driver against its model: the conformance suite on every SoC, what the suite
//! cannot say, configuration errors, a dead block, the queue's promises on the driver's own
//! time base, and the per-CPU binding.

mod config_errors;
mod conformance;
mod dead_block;
mod driver;
mod idle_failures;
mod per_cpu;
