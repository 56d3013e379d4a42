//! Figures of the core on the sim, printed as `bench: hwtimer-core/<metric> = <value> <unit>`
//! (collected by `cargo xtask bench`). Virtual time, access counts and instruction counts
//! (callgrind, host ISA) only: no wall clock.
//!
//! # Timer queue figures
//!
//! Measured on an [`HrTimers`] of capacity `n` holding `n` pending timers, for `n` = 16, 256
//! and 4096, over a clockevent and a time base that cost nothing (a hand-set 64-bit time and
//! an absolute comparator whose writes go nowhere), so the counts are the queue's own, plus
//! the `Alarm` logic and the host's `critical-section` (a `std` mutex):
//!
//! - `queue_start_expire_insns_<n>`: one timer expired by `on_interrupt` (the earliest) and
//!   started again behind all the others, per iteration. These lines continue the
//!   `timer-core/queue_start_expire_insns_<n>` series (the crate was `timer-core` then).
//!   The bench sets the clock to that timer's deadline by arithmetic rather than asking the
//!   queue (`next_deadline`, one more critical section) and does not compare the
//!   operation's name as a string in an iteration: neither is queue work.
//! - `queue_restart_insns_<n>`: the earliest timer restarted behind all the others (the
//!   coalescing timer's per-burst re-arm when it is due first); the hardware is re-armed.
//! - `queue_cancel_start_insns_<n>`: the earliest timer cancelled and started again behind
//!   the others.
//! - `queue_longest_cs_insns_<n>`: the longest critical section the queue takes in any of:
//!   a start that becomes the earliest, a restart and a cancel of the earliest, and an
//!   interrupt that expires all `n` timers at once. Instructions from the lock's acquire
//!   returning to its release being entered ([`instr::critical_sections`]).
//! - `queue_on_interrupt_stack_bytes_<n>`: how far below its caller's frame the stack goes
//!   while `on_interrupt` expires all `n` timers, seen from inside the callback, the time
//!   base and the clockevent (x86-64, release build).

use std::cell::Cell;
use std::hint::black_box;

use bench_support::Printer;
use bench_support::baseline::{busy_bit_wait, delay_us10_continuous, delay_us10_tick_hz100};
use bench_support::instr;
use hwtimer_core::clockevent::plan_delta;
use hwtimer_core::extend::extend;
use hwtimer_core::{
    Alarm, Capabilities, ClockEvent, Clocksource, Continuous, Delay, Error, HrTimers, Monotonic,
    Poller, Restart, Stopwatch, TimerId, TimerQueue,
};

/// Prints this crate's `bench:` figures.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

/// One figure, with three decimals.
fn bench(metric: &str, value: f64, unit: &str) {
    OUT.figure(metric, format_args!("{value:.3}"), unit);
}

/// A counter that costs nothing: each read advances it by 3, so the instruction counts
/// below are the core's own logic, not the simulator's.
struct FreeCounter(Cell<u64>);

impl Clocksource for FreeCounter {
    fn bits(&self) -> u32 {
        28
    }
    fn freq_hz(&self) -> u32 {
        3_125_000
    }
    fn read(&self) -> u64 {
        let v = self.0.get().wrapping_add(3);
        self.0.set(v);
        v & self.mask()
    }
}

impl Continuous for FreeCounter {}

/// Run `n` iterations of `op` (in the callgrind child).
fn run_op(op: &str, n: u64) {
    let counter = FreeCounter(Cell::new(0));
    match op {
        "extend" => {
            let mut last = 0u64;
            for i in 0..n {
                last = extend(black_box(last), black_box(i * 1000), black_box(28));
            }
            black_box(last);
        }
        "stopwatch_elapsed" => {
            let mut w = Stopwatch::start(&counter);
            for _ in 0..n {
                black_box(w.elapsed());
            }
        }
        "plan_delta" => {
            for i in 0..n {
                black_box(plan_delta(
                    black_box(i),
                    3_125_000,
                    3_125_000,
                    1,
                    8,
                    0x0FFF_FFFF,
                ));
            }
        }
        "poll_iteration" => {
            let mut left = n;
            let r = Poller::new(&counter).timeout_ms(10_000).poll(
                || {
                    left = left.saturating_sub(1);
                    black_box(left)
                },
                |v| *v == 0,
            );
            black_box(r.is_ok());
        }
        "delay_iteration" => {
            // Each read advances 3 ticks: n iterations wait 3n ticks.
            Delay::new(&counter).wait_ticks(black_box(3 * n));
        }
        "queue_start_pop" => {
            let mut q: TimerQueue<16> = TimerQueue::new();
            let ids: Vec<_> = (0..8).filter_map(|_| q.alloc().ok()).collect();
            for i in 0..n {
                let id = ids[(i % 8) as usize];
                let _ = q.start(id, black_box(i));
                if i % 8 == 7 {
                    while q.pop_expired(u64::MAX).is_some() {}
                }
            }
        }
        _ => run_queue_op(op, n),
    }
}

// ---- Timer queue ----------------------------------------------------------------------

/// Ticks between the deadlines of neighbouring timers.
const STEP: u64 = 1_000;
/// Queue sizes measured.
const QUEUE_SIZES: [usize; 3] = [16, 256, 4096];
/// Iterations per instruction count (the 4096 case of an O(n) queue is slow under callgrind).
const QUEUE_ITERS: u64 = 1_000;

thread_local! {
    /// The lowest stack address a probe has seen.
    static DEEPEST: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Records how deep the stack is here (used only by the stack figure).
#[inline(never)]
fn stack_probe() {
    let marker = 0u8;
    let here = std::ptr::addr_of!(marker).addr();
    black_box(&marker);
    DEEPEST.with(|d| d.set(d.get().min(here)));
}

/// A 64-bit time base set by hand.
struct HandTime {
    now: Cell<u64>,
    probe: bool,
}

impl HandTime {
    fn new(probe: bool) -> Self {
        Self {
            now: Cell::new(0),
            probe,
        }
    }
}

impl Monotonic for HandTime {
    fn now(&self) -> u64 {
        if self.probe {
            stack_probe();
        }
        self.now.get()
    }
    fn freq_hz(&self) -> u32 {
        1_000_000_000
    }
}

/// An absolute comparator on [`HandTime`] whose writes go nowhere; every interrupt is its own.
struct HandEvent {
    probe: bool,
}

impl ClockEvent for HandEvent {
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(1_000_000_000, 1, u64::MAX >> 1)
            .with_phase_locked()
            .with_absolute()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        black_box(delta);
        Ok(())
    }
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        if self.probe {
            stack_probe();
        }
        black_box(at);
        Ok(())
    }
    fn shutdown(&mut self) {}
    fn ack(&mut self) -> bool {
        true
    }
}

type BenchTimers<'a, const N: usize> = HrTimers<HandEvent, &'a HandTime, N>;

/// A queue of capacity `N` with `pending` timers queued, timer `k` at `(k + 1) * STEP`, and
/// the ids of all `N` slots.
fn filled<const N: usize>(
    time: &HandTime,
    pending: usize,
) -> (Box<BenchTimers<'_, N>>, Vec<TimerId>) {
    let alarm = Alarm::new(HandEvent { probe: time.probe }, time).expect("valid capabilities");
    let timers = Box::new(HrTimers::new(alarm));
    let ids: Vec<TimerId> = (0..N)
        .map(|_| timers.alloc().expect("a free slot"))
        .collect();
    for (k, id) in ids.iter().take(pending).enumerate() {
        timers.start(*id, (k as u64 + 1) * STEP).expect("queued");
    }
    (timers, ids)
}

/// Run the interrupt with the time at the earliest deadline, which expires that one timer.
fn expire_next<const N: usize>(timers: &BenchTimers<'_, N>) -> TimerId {
    let mut ran = None;
    let served = timers
        .on_interrupt(|id, _| {
            ran = Some(id);
            Restart::No
        })
        .expect("armed");
    assert_eq!(served, 1);
    ran.expect("one timer ran")
}

/// The queue operations [`queue_op`] measures.
#[derive(Clone, Copy)]
enum QueueOp {
    StartExpire,
    Restart,
    CancelStart,
    Cs,
    Stack,
}

/// `n` iterations of the queue operation `op` on a queue of capacity `N`, full.
///
/// Timer `k` starts at `(k + 1) * STEP`, and every timer moved "to the back" goes one
/// `STEP` behind the latest, so the earliest timer after `k` iterations is `ids[k % N]`.
fn queue_op<const N: usize>(op: &str, n: u64) {
    let time = HandTime::new(op == "stack");
    let (timers, ids) = filled::<N>(&time, if op == "cs" { N - 1 } else { N });
    let back = |now: u64| now + (N as u64 + 1) * STEP;
    // Named once, not by a string compare in every iteration (which was counted too).
    let op = match op {
        "start_expire" => QueueOp::StartExpire,
        "restart" => QueueOp::Restart,
        "cancel_start" => QueueOp::CancelStart,
        "cs" => QueueOp::Cs,
        "stack" => QueueOp::Stack,
        _ => return,
    };
    for k in 0..n as usize {
        let first = ids[k % N];
        match op {
            QueueOp::StartExpire => {
                // The clock goes to the deadline of `first` (started `k / N` times before)
                // by arithmetic: asking the queue (`next_deadline`, one more critical
                // section) is the bench's work, not start + expire.
                let laps = (k / N) as u64;
                time.now
                    .set(((k % N) as u64 + 1) * STEP + laps * (N as u64 + 1) * STEP);
                let id = expire_next(&timers);
                assert_eq!(id, first, "the earliest timer expired");
                timers.start(id, back(time.now())).expect("idle");
            }
            QueueOp::Restart => {
                timers.restart(first, back(time.now())).expect("queued");
                time.now.set(time.now() + STEP);
            }
            QueueOp::CancelStart => {
                assert!(timers.cancel(first));
                timers.start(first, back(time.now())).expect("idle");
                time.now.set(time.now() + STEP);
            }
            // The worst case of each kind, once (n = 1), each after an `instr::mark()`: a
            // start that becomes the earliest (up the whole heap), that timer restarted
            // behind all others (down the whole heap), a cancel of the earliest, and an
            // interrupt that expires everything.
            QueueOp::Cs => {
                instr::mark();
                timers.start(ids[N - 1], 1).expect("idle");
                instr::mark();
                timers.restart(ids[N - 1], back(0)).expect("queued");
                instr::mark();
                assert!(timers.cancel(ids[0]));
                instr::mark();
                time.now.set(back(0));
                assert_eq!(expire_all(&timers, false), N - 1);
            }
            QueueOp::Stack => {
                time.now.set(N as u64 * STEP);
                let base = std::ptr::addr_of!(time).addr();
                DEEPEST.with(|d| d.set(usize::MAX));
                assert_eq!(expire_all(&timers, true), N);
                let deepest = DEEPEST.with(Cell::get);
                println!("{}", base.saturating_sub(deepest));
            }
        }
    }
    black_box(&timers);
}

/// Run the interrupt with every queued timer due; returns how many expired.
#[inline(never)]
fn expire_all<const N: usize>(timers: &BenchTimers<'_, N>, probe: bool) -> usize {
    timers
        .on_interrupt(|_, _| {
            if probe {
                stack_probe();
            }
            Restart::No
        })
        .expect("armed")
}

/// Dispatch `queue_<op>_<n>` to [`queue_op`] at capacity `n`.
fn run_queue_op(op: &str, n: u64) {
    let Some((op, size)) = op.strip_prefix("queue_").and_then(|o| o.rsplit_once('_')) else {
        return;
    };
    match size {
        "16" => queue_op::<16>(op, n),
        "256" => queue_op::<256>(op, n),
        "4096" => queue_op::<4096>(op, n),
        _ => {}
    }
}

/// The timer queue's figures (see the crate docs of this bench).
fn queue_figures() {
    for size in QUEUE_SIZES {
        for (metric, op) in [
            ("queue_start_expire_insns", "start_expire"),
            ("queue_restart_insns", "restart"),
            ("queue_cancel_start_insns", "cancel_start"),
        ] {
            match instr::per_op(&format!("queue_{op}_{size}"), QUEUE_ITERS) {
                Some(v) => bench(&format!("{metric}_{size}"), v, "insns"),
                None => eprintln!("valgrind not available: no {metric}_{size}"),
            }
        }
        let name = format!("queue_cs_{size}");
        match instr::critical_sections(&name, 1).as_deref() {
            // Set-up, then the four operations, in the order `queue_op` runs them.
            Some([_setup, ops @ ..]) if ops.len() == 4 => {
                let mut longest = (0, "");
                for (sections, what) in ops.iter().zip(["start", "restart", "cancel", "expire_all"])
                {
                    let worst = sections.iter().copied().max().unwrap_or(0);
                    println!(
                        "# {name} {what}: {} critical sections, longest {worst} insns",
                        sections.len()
                    );
                    if worst > longest.0 {
                        longest = (worst, what);
                    }
                }
                println!("# longest critical section at {size}: {}", longest.1);
                OUT.figure(
                    &format!("queue_longest_cs_insns_{size}"),
                    longest.0,
                    "insns",
                );
            }
            Some(groups) => eprintln!(
                "{name}: {} groups of critical sections, not 5",
                groups.len()
            ),
            None => eprintln!("valgrind not available: no critical-section lengths for {name}"),
        }
        let stack = std::process::Command::new(std::env::current_exe().expect("own path"))
            .args(["--instr-child", &format!("queue_stack_{size}"), "1"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<u64>().ok());
        match stack {
            Some(bytes) => OUT.figure(
                &format!("queue_on_interrupt_stack_bytes_{size}"),
                bytes,
                "bytes",
            ),
            None => eprintln!("no stack figure for {size}"),
        }
    }
}

const OPS: [&str; 6] = [
    "extend",
    "stopwatch_elapsed",
    "plan_delta",
    "poll_iteration",
    "delay_iteration",
    "queue_start_pop",
];

fn main() {
    if let Some((op, n)) = instr::child() {
        run_op(&op, n);
        return;
    }
    for op in OPS {
        match instr::per_op(op, 10_000) {
            Some(v) => bench(&format!("insns_{op}"), v, "insns"),
            None => eprintln!("valgrind not available: no instruction count for {op}"),
        }
    }
    queue_figures();

    // The Otto delay bug: 10,000 x delay_us(10) on a 28-bit 3.125 MHz counter, 100 ns per read.
    let (ns, reads) = delay_us10_continuous(10_000);
    bench("delay_us10_continuous", ns / 1000.0, "us");
    bench("delay_us10_counter_reads", reads, "reads");
    bench(
        "delay_us10_tick_hz100",
        delay_us10_tick_hz100(10_000) / 1000.0,
        "us",
    );

    // The mv88e6xxx busy poll: a busy bit clearing after 26 us, each read one 25.6 us MDIO frame.
    let (ns, reads) = busy_bit_wait(true);
    bench("busy_wait_deadline_poll", ns as f64 / 1000.0, "us");
    bench("busy_wait_deadline_poll_reads", f64::from(reads), "reads");
    let (ns, reads) = busy_bit_wait(false);
    bench("busy_wait_fixed_1500us_sleeps", ns as f64 / 1000.0, "us");
    bench(
        "busy_wait_fixed_1500us_sleeps_reads",
        f64::from(reads),
        "reads",
    );

    // The LoongArch min_delta change: a 5 us request at 100 MHz under both min_delta values.
    for (name, min) in [("min_delta_0x600", 0x600u64), ("min_delta_1000", 1000)] {
        let p = plan_delta(500, 100_000_000, 100_000_000, 0, min, (1 << 48) - 1);
        bench(&format!("oneshot_5us_{name}"), p.delta as f64 / 100.0, "us");
    }
}
