//! Deterministic instruction counts for benchmarks, measured with valgrind's callgrind.
//!
//! Wall-clock time on a shared machine is noise; the number of instructions an operation
//! retires is not. A `harness = false` bench calls [`child`] first: when it was started by
//! [`per_op`] it runs the requested operation and exits. [`per_op`] re-runs the current
//! executable under `valgrind --tool=callgrind` twice, with 0 and with `n` iterations of
//! the operation, and returns the difference divided by `n`: the instructions one
//! iteration costs, start-up excluded. Counts are for the host ISA (x86-64 here); the
//! firmware under QEMU `-icount` gives the figures for the real ISAs.
//!
//! [`critical_sections`] measures something `per_op` cannot: the length of each critical
//! section, one by one. It has callgrind dump its counters when `critical-section`'s
//! acquire returns and again when its release is entered, so each dump triggered by the
//! release holds exactly the instructions run with the lock held. The acquire and release
//! symbols are those of the `std` implementation the host tests and benches link; nested
//! critical sections (a re-acquire inside one) would split a section in two. The child
//! calls [`mark`] between the phases it wants told apart (set-up, then each operation).

use std::path::Path;
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

/// Marks a point in a measurement child for [`critical_sections`]: the sections taken
/// after it are reported in a new group.
#[inline(never)]
pub fn mark() {
    std::hint::black_box(());
}

/// The instructions run inside each critical section the child takes for `n` iterations of
/// `op`, in the order they were taken, in groups: a new group starts at each call of
/// [`mark`]. `None` when valgrind is not available or the child failed.
pub fn critical_sections(op: &str, n: u64) -> Option<Vec<Vec<u64>>> {
    let exe = std::env::current_exe().ok()?;
    let dir = std::env::temp_dir().join(format!("hwtimer-instr-{}-{op}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let out_file = dir.join("callgrind.out");
    let status = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--dump-instr=no",
            "--dump-after=_critical_section_1_0_acquire",
            "--dump-before=_critical_section_1_0_release",
            "--dump-before=*instr::mark",
        ])
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(exe)
        .args([FLAG, op, &n.to_string()])
        .output()
        .ok()
        .map(|o| o.status.success());
    let sections = if status == Some(true) {
        grouped_sections(&dir)
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&dir);
    sections
}

/// What triggered a dump.
#[derive(PartialEq)]
enum Trigger {
    Release,
    Mark,
    Other,
}

/// The totals of the dumps in `dir` that the release trigger wrote, in part order, split at
/// the dumps the mark trigger wrote.
fn grouped_sections(dir: &Path) -> Option<Vec<Vec<u64>>> {
    let mut parts: Vec<(u64, Trigger, u64)> = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let text = std::fs::read_to_string(entry.ok()?.path()).ok()?;
        let field = |key: &str| text.lines().find_map(|l| l.strip_prefix(key));
        let trigger = match field("desc: Trigger:") {
            Some(t) if t.contains("_critical_section_1_0_release") => Trigger::Release,
            Some(t) if t.contains("instr::mark") => Trigger::Mark,
            _ => Trigger::Other,
        };
        if trigger == Trigger::Other {
            continue;
        }
        let part = field("part:")?.trim().parse().ok()?;
        let total = field("totals:")?.trim().parse().ok()?;
        parts.push((part, trigger, total));
    }
    parts.sort_unstable_by_key(|(part, _, _)| *part);
    let mut groups = vec![Vec::new()];
    for (_, trigger, total) in parts {
        match trigger {
            Trigger::Mark => groups.push(Vec::new()),
            _ => groups.last_mut()?.push(total),
        }
    }
    Some(groups)
}
