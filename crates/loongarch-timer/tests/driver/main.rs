//! The LoongArch constant-timer driver against its model: the conformance suite, what the
//! suite cannot say, configuration errors, frequency discovery, a dead core, dropping a
//! timer, the queue's promises on the driver's own time base, the pinned pair on several
//! cores, and the `asm!` options of the native backend.

mod asm_options;
mod config_errors;
mod conformance;
mod cpucfg;
mod dead_block;
mod driver;
mod drop;
mod idle_failures;
mod pinned;
