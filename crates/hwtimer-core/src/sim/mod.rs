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
//! - [`model`]: building blocks for register models — counters that advance with virtual
//!   time and wrap, write-1-to-clear bits, busy bits that clear after a delay or never
//!   (stuck), and [`RegisterFile`], a configurable block made of them.
//! - [`SimCounter`] / [`SimTickCounter`]: a continuous clocksource and a jiffies-style
//!   tick counter (deliberately *not* [`Continuous`](crate::Continuous)).
//! - [`SimClockEvent`]: a clockevent that fires in virtual time, with a probe to inspect
//!   what was programmed, and [`run_virtual`] to drive async code to completion by jumping
//!   virtual time from interrupt to interrupt.
//!
//! - [`conformance`]: the [`ClockEvent`](crate::ClockEvent) conformance suite every
//!   driver's tests run against that driver's model.
//!
//! - [`baseline`]: the slow strategies the seeds measured (tick-based sleeps,
//!   fixed-sleep polling), for side-by-side figures.
//!
//! - [`instr`]: deterministic instruction counts per operation (valgrind callgrind) for
//!   benchmarks.
//!
//! Driver crates put the model of their own block in their `src/sim.rs`, built from
//! these pieces.

pub mod baseline;
mod bus;
mod clock;
pub mod conformance;
mod counter;
mod event;
mod exec;
pub mod instr;
pub mod model;

pub use bus::{MmioStats, SimBus, SimModel};
pub use clock::SimClock;
pub use counter::{SimCounter, SimTickCounter};
pub use event::{SimClockEvent, SimClockEventProbe};
pub use exec::{IrqSource, Task, run_virtual, run_virtual_tasks};
pub use model::RegisterFile;
