//! Seed-003 figures and per-operation costs, on the behavioural model of QEMU's virt
//! machine in virtual time (deterministic: no host clock is read). Prints
//! `bench: loongarch-timer/<metric> = <value> <unit>` lines for `cargo xtask bench` and the
//! README. The instruction counts on the real ISA come from the loongarch-virt firmware.
//!
//! Run: `cargo bench -p loongarch-timer --bench seed`.

use hwtimer_core::sim::SimClock;
use hwtimer_core::{ClockEvent, Clocksource};
use loongarch_timer::sim::{
    LoongArchCore, clamp_window_batch, measure_oneshot, qemu_alarm, sim_csr,
};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

fn line(metric: &str, value: impl std::fmt::Display, unit: &str) {
    println!("bench: loongarch-timer/{metric} = {value} {unit}");
}

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
        line(
            &format!("seed_5us_fires_after_{name}"),
            format!("{:.3}", f.fired_after_ns() as f64 / 1000.0),
            "us",
        );
    }

    // Seed: timers at 5, 7, 10, 14, 16 µs, served by as few interrupts as the clamp allows.
    let offsets = [500, 700, 1000, 1400, 1600];
    for (name, config) in CONFIGS {
        let b = clamp_window_batch(config, &offsets).unwrap_or_else(|e| fail("batch", e));
        line(
            &format!("clamp_window_first_irq_serves_{name}"),
            b.served_per_interrupt.first().copied().unwrap_or(0),
            "timers",
        );
        line(
            &format!("clamp_window_interrupts_{name}"),
            b.served_per_interrupt.len(),
            "irqs",
        );
        let worst = b.late_ticks.iter().copied().max().unwrap_or(0);
        line(
            &format!("clamp_window_worst_late_{name}"),
            format!("{:.3}", worst as f64 / 100.0),
            "us",
        );
    }

    // Fire error (fired-after minus requested) for a sweep of requested deltas.
    let sweep = [
        1u64, 100, 500, 999, 1000, 1001, 1003, 1535, 1536, 1537, 2000, 10_000, 100_000,
    ];
    for (name, config) in CONFIGS {
        for req in sweep {
            let f = measure_oneshot(config, req).unwrap_or_else(|e| fail("sweep", e));
            let error_ns = f.fired_after_ns() as i128 - i128::from(req) * 10;
            line(
                &format!("fire_error_{name}_req{req}"),
                format!("{:.3}", error_ns as f64 / 1000.0),
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
    line(
        "csr_ops_clocksource_read",
        ops(&mut || {
            counter.read();
        }),
        "ops",
    );
    line(
        "csr_ops_set_next_event",
        ops(&mut || {
            timer
                .set_next_event(10_000)
                .unwrap_or_else(|e| fail("program", e))
        }),
        "ops",
    );
    line(
        "csr_ops_ack_spurious",
        ops(&mut || {
            timer.ack();
        }),
        "ops",
    );
    clock.advance(200_000);
    line(
        "csr_ops_ack_fired",
        ops(&mut || {
            timer.ack();
        }),
        "ops",
    );
    line("csr_ops_shutdown", ops(&mut || timer.shutdown()), "ops");

    let (acsr, mut alarm) =
        qemu_alarm(&clock, Config::DEFAULT).unwrap_or_else(|e| fail("alarm", e));
    acsr.reset_stats();
    alarm
        .set_delta(5000)
        .unwrap_or_else(|e| fail("set_delta", e));
    let s = acsr.stats();
    line("csr_ops_alarm_set_delta", s.reads + s.writes, "ops");
}
