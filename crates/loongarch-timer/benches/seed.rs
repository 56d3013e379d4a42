//! The `min_delta` figures and per-operation costs, on the behavioural model of QEMU's virt
//! machine in virtual time (deterministic: no host clock is read). Prints
//! `bench: loongarch-timer/<metric> = <value> <unit>` lines for `cargo xtask bench` and the
//! README. The instruction counts on the real ISA come from the loongarch-virt firmware.
//!
//! Run: `cargo bench -p loongarch-timer --bench seed`.

use bench_support::Printer;
use hwtimer_core::sim::SimClock;
use hwtimer_core::{ClockEvent, Clocksource};
use loongarch_timer::sim::seed::{clamp_window_batch, measure_oneshot};
use loongarch_timer::sim::{LoongArchCore, qemu_alarm, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

/// Prints this crate's `bench:` figures and `series:` points.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

fn fail(what: &str, e: hwtimer_core::Error) -> ! {
    eprintln!("{what} failed: {e}");
    std::process::exit(1);
}

const CONFIGS: [(&str, Config); 2] = [
    ("min0x600", Config::LINUX_0X600),
    ("min1000", Config::DEFAULT),
];

fn main() {
    println!("# QEMU virt model: 100 MHz stable counter, 1 ns per CSR/rdtime/cpucfg access");

    // Seed: a 5 µs request.
    for (name, config) in CONFIGS {
        let f = measure_oneshot(config, 500).unwrap_or_else(|e| fail("5 us oneshot", e));
        OUT.figure(
            &format!("seed_5us_fires_after_{name}"),
            format!("{:.3}", f.fired_after_ns() as f64 / 1000.0),
            "us",
        );
    }

    // Seed: timers at 5, 7, 10, 14, 16 µs, served by as few interrupts as the clamp allows.
    let offsets = [500, 700, 1000, 1400, 1600];
    for (name, config) in CONFIGS {
        let b = clamp_window_batch(config, &offsets).unwrap_or_else(|e| fail("batch", e));
        OUT.figure(
            &format!("clamp_window_first_irq_serves_{name}"),
            b.served_per_interrupt.first().copied().unwrap_or(0),
            "timers",
        );
        OUT.figure(
            &format!("clamp_window_interrupts_{name}"),
            b.served_per_interrupt.len(),
            "irqs",
        );
        let worst = b.late_ticks.iter().copied().max().unwrap_or(0);
        OUT.figure(
            &format!("clamp_window_worst_late_{name}"),
            format!("{:.3}", worst as f64 / 100.0),
            "us",
        );
    }

    // Fire error (fired-after minus requested) for a sweep of requested deltas (ticks of
    // 10 ns), as figures and as the series `fire_error_<config>` (requested us, error us) for
    // `cargo xtask plots`.
    let sweep = [
        1u64, 100, 500, 999, 1000, 1001, 1003, 1535, 1536, 1537, 2000, 10_000, 100_000,
    ];
    for (name, config) in CONFIGS {
        for req in sweep {
            let f = measure_oneshot(config, req).unwrap_or_else(|e| fail("sweep", e));
            let error_ns = f.fired_after_ns() as i128 - i128::from(req) * 10;
            let error_us = format!("{:.3}", error_ns as f64 / 1000.0);
            OUT.figure(&format!("fire_error_{name}_req{req}"), &error_us, "us");
            OUT.point(
                &format!("fire_error_{name}"),
                format!("{:.2}", req as f64 / 100.0),
                "us",
                &error_us,
                "us",
            );
        }
    }

    // CSR accesses per operation (instructions on the real ISA are in the firmware's
    // figures).
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap_or_else(|e| fail("probe", e.into()));
    let counter = StableCounter::new(csr.clone(), freq);
    let mut timer = ConstantTimer::new(csr.clone(), freq, Config::DEFAULT)
        .unwrap_or_else(|e| fail("new", e.into()));
    let ops = |f: &mut dyn FnMut()| {
        csr.reset_stats();
        f();
        let s = csr.stats();
        s.reads + s.writes
    };
    OUT.figure(
        "csr_ops_clocksource_read",
        ops(&mut || {
            counter.read();
        }),
        "ops",
    );
    OUT.figure(
        "csr_ops_set_next_event",
        ops(&mut || {
            timer
                .set_next_event(10_000)
                .unwrap_or_else(|e| fail("program", e))
        }),
        "ops",
    );
    OUT.figure(
        "csr_ops_ack_spurious",
        ops(&mut || {
            timer.ack();
        }),
        "ops",
    );
    clock.advance(200_000);
    OUT.figure(
        "csr_ops_ack_fired",
        ops(&mut || {
            timer.ack();
        }),
        "ops",
    );
    OUT.figure("csr_ops_shutdown", ops(&mut || timer.shutdown()), "ops");

    let (acsr, mut alarm) =
        qemu_alarm(&clock, Config::DEFAULT).unwrap_or_else(|e| fail("alarm", e));
    acsr.reset_stats();
    alarm
        .set_delta(5000)
        .unwrap_or_else(|e| fail("set_delta", e));
    let s = acsr.stats();
    OUT.figure("csr_ops_alarm_set_delta", s.reads + s.writes, "ops");
}
