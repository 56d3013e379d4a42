//! Behavioural simulation backend (feature `sim`, host only).
//!
//! Drivers in this family are tested against **models of their hardware**, not against
//! memory that merely stores values. The pieces:
//!
//! - [`SimClock`]: virtual time in nanoseconds, shared by everything in one simulation.
//!   Nothing here reads the host clock, so every figure is deterministic.
//! - [`SimBus`]: a [`RegisterBus`](crate::reg::RegisterBus) that routes each access to a
//!   [`SimModel`], counts reads and writes ([`MmioStats`]) and charges a configurable
//!   virtual-time cost per access, so "MMIO reads per timestamp" and "virtual time per
//!   poll" are measurable, and a 64-bit counter read as two halves can tear.
//!   [`SyncBus`] is the same without the counters, thread-safe, for the runtime adapters'
//!   statics.
//! - [`model`]: building blocks for register models — counters that advance with virtual
//!   time and wrap, write-1-to-clear bits, busy bits that clear after a delay or never
//!   (stuck), and [`RegisterFile`], a configurable block made of them.
//! - [`SimCounter`] / [`SimTickCounter`]: a continuous clocksource and a jiffies-style
//!   tick counter (deliberately *not* [`Continuous`](crate::Continuous)).
//! - [`SimClockEvent`]: a clockevent that fires in virtual time, with a probe to inspect
//!   what was programmed, and [`run_virtual`] to drive async code to completion by jumping
//!   virtual time from interrupt to interrupt.
//!
//! - [`fault`]: failure injection around any [`ClockEvent`](crate::ClockEvent)
//!   ([`FaultyEvent`], scripted through [`Faults`]) and an interrupt controller that loses,
//!   doubles or delays deliveries ([`Irq`]).
//! - [`conformance`]: the [`ClockEvent`](crate::ClockEvent) conformance suite every
//!   driver's tests run against that driver's model.
//! - [`queue_check`]: the timer queue against a plain reference under injected failures
//!   (the body of its property test and fuzz target).
//! - [`scenario`]: the queue's and the runtime adapters' idle and failure promises, run
//!   by every driver's tests on that driver's model.
//!
//! The seeds' slow baselines and the callgrind harness of the benchmarks are not here: they
//! live in the workspace's dev-only `bench-support` crate, so no firmware links them.
//!
//! The simulation stays a feature of this crate rather than a crate of its own: the driver
//! crates' models implement this crate's traits (`RegisterBus`, `Clocksource`,
//! `ClockEvent`) for simulated hardware and reach its internals (virtual clock, bus
//! statistics) in one place; a separate crate would need those traits re-exported or the
//! models split across two crates. `mdio-bus` depends on this crate only through its own
//! `sim` feature.
//!
//! Driver crates put the model of their own block in their `src/sim.rs`, built from
//! these pieces.

mod bus;
mod clock;
pub mod conformance;
mod counter;
mod cpu;
mod event;
mod exec;
pub mod fault;
pub mod model;
pub mod queue_check;
pub mod scenario;

pub use bus::{Dead, MmioStats, SimBus, SimModel, SyncBus, dead_values};
pub use clock::SimClock;
pub use counter::{SimCounter, SimTickCounter, StoppedCounter};
pub use cpu::SimCpu;
pub use event::{SimClockEvent, SimClockEventProbe};
pub use exec::{IrqSource, Task, run_virtual, run_virtual_tasks};
pub use fault::{Delivery, Faults, FaultyEvent, Irq, Rates, Refusal};
pub use model::RegisterFile;

/// The number of property-test cases to run: `PROPTEST_CASES` when it is set (the long
/// soak run, `cargo xtask soak`), else `default`. A test that writes an explicit case count
/// into its `ProptestConfig` would otherwise ignore the variable.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
