//! Figures of the core on the sim, printed as `bench: hwtimer-core/<metric> = <value> <unit>`
//! (collected by `cargo xtask bench`). Virtual time, access counts and instruction counts
//! (callgrind, host ISA) only: no wall clock.

use std::cell::Cell;
use std::hint::black_box;

use bench_support::Printer;
use bench_support::baseline::{busy_bit_wait, delay_us10_continuous, delay_us10_tick_hz100};
use bench_support::instr;
use hwtimer_core::clockevent::plan_delta;
use hwtimer_core::extend::extend;
use hwtimer_core::{Clocksource, Continuous, Delay, Poller, Stopwatch, TimerQueue};

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
        _ => {}
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
    // Seed 000: 10,000 x delay_us(10) on a 28-bit 3.125 MHz counter, 100 ns per read.
    let (ns, reads) = delay_us10_continuous(10_000);
    bench("delay_us10_continuous", ns / 1000.0, "us");
    bench("delay_us10_counter_reads", reads, "reads");
    bench(
        "delay_us10_tick_hz100",
        delay_us10_tick_hz100(10_000) / 1000.0,
        "us",
    );

    // Seed 004: a busy bit clearing after 26 us, each read one 25.6 us MDIO frame.
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

    // Seed 003: a 5 us request at 100 MHz under both min_delta values.
    for (name, min) in [("min_delta_0x600", 0x600u64), ("min_delta_1000", 1000)] {
        let p = plan_delta(500, 100_000_000, 100_000_000, 0, min, (1 << 48) - 1);
        bench(&format!("oneshot_5us_{name}"), p.delta as f64 / 100.0, "us");
    }
}
