//! Deterministic instruction counts for benchmarks, measured with valgrind's callgrind.
//!
//! Wall-clock time on a shared machine is noise; the number of instructions an operation
//! retires is not. A `harness = false` bench calls [`child`] first: when it was started by
//! [`per_op`] it runs the requested operation and exits. [`per_op`] re-runs the current
//! executable under `valgrind --tool=callgrind` twice, with 0 and with `n` iterations of
//! the operation, and returns the difference divided by `n`: the instructions one
//! iteration costs, start-up excluded. Counts are for the host ISA (x86-64 here); the
//! firmware under QEMU `-icount` gives the figures for the real ISAs.

use std::process::Command;

const FLAG: &str = "--instr-child";

/// If this process is a measurement child, returns the operation name and iteration
/// count it must run.
pub fn child() -> Option<(String, u64)> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == FLAG)?;
    let op = args.get(i + 1)?.clone();
    let n = args.get(i + 2)?.parse().ok()?;
    Some((op, n))
}

fn collected(op: &str, n: u64) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args([FLAG, op, &n.to_string()])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    // callgrind's summary on stderr: "==pid== Collected : 123456"
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|v| v.trim().parse().ok())
}

/// Instructions per iteration of `op`, or `None` when valgrind is not available or the
/// child failed.
pub fn per_op(op: &str, n: u64) -> Option<f64> {
    let base = collected(op, 0)?;
    let full = collected(op, n)?;
    Some(full.saturating_sub(base) as f64 / n.max(1) as f64)
}
