//! The switch units on the model, driver against model: ATU, VTU/STU, MIB statistics, ATU
//! and VTU violations, the managed-switch operations, Clause 45 and SERDES, errata and the
//! hardware-reset waits, ports, and link changes through the interrupt path.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod atu;
mod c45;
mod errata;
mod link_irq;
mod managed;
mod port;
mod serdes6393x_scope;
mod stats;
mod violations;
mod vlan;
