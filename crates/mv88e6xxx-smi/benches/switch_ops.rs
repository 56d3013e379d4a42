//! Frames and virtual µs per ATU add and per VTU load on a 6352, this crate vs Linux's
//! Global1 register sequence replayed on the behavioural model (deterministic virtual
//! time). Prints `bench: mv88e6xxx-smi/<metric> = <value> <unit>` lines.
//!
//! Run: `cargo bench -p mv88e6xxx-smi --bench switch_ops`.

use bench_support::Printer;
use mv88e6xxx_smi::sim::linux_switch::{SwitchOp, Who, measure};

const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

fn main() {
    const N: u32 = 200;
    println!("# 6352, 2.5 MHz MDC, virtual time; indirect at sw_addr 2 and direct");
    for (op_name, op) in [
        ("atu_add", SwitchOp::AtuAdd),
        ("vtu_load", SwitchOp::VtuLoad),
    ] {
        for (mode, indirect) in [("indirect", true), ("direct", false)] {
            for (who_name, who) in [("this_crate", Who::ThisCrate), ("linux", Who::Linux)] {
                let c = measure(who, op, indirect, N).unwrap_or_else(|e| {
                    eprintln!("measure failed: {e}");
                    std::process::exit(1);
                });
                let base = format!("{op_name}_{mode}_{who_name}");
                OUT.figure(
                    &format!("{base}_frames"),
                    format!("{:.2}", c.frames as f64 / f64::from(N)),
                    "frames",
                );
                OUT.figure(
                    &format!("{base}_us"),
                    format!("{:.1}", c.ns as f64 / f64::from(N) / 1e3),
                    "us",
                );
            }
        }
    }
}
