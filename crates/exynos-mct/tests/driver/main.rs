//! The MCT driver against its model: the conformance suite on every channel, what the
//! suite cannot say, configuration errors, corner cases of slow programming and torn reads,
//! a misbehaving or dead block, the queue's promises on the driver's own time base, and the
//! register map against the model's.

mod config_errors;
mod conformance;
mod corner_cases;
mod dead_block;
mod driver;
mod idle_failures;
mod register_map;
mod robustness;
