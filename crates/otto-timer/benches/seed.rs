//! Seed-proof and cost figures, on the behavioural model in virtual time (deterministic:
//! no host clock is read). Prints `bench: otto-timer/<metric> = <value> <unit>` lines for
//! `cargo xtask bench` and the README.
//!
//! Run: `cargo bench -p otto-timer --bench seed`.

use std::collections::BTreeMap;

use bench_support::Printer;
use embedded_hal::delay::DelayNs;
use hwtimer_core::{ClockEvent, Delay, Error};
use otto_timer::sim::seed::{
    SleepFigures, naive_set_next_event_cost, seed_continuous_delay, seed_tick_sleep,
};
use otto_timer::sim::{OttoModel, OttoSim, SIM_READ_NS, SIM_WRITE_NS, measure_mmio_costs};
use otto_timer::{Config, OttoClockEvent, OttoClocksource, Soc};

/// Prints this crate's `bench:` figures and `series:` points.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

/// The achieved delay of each of `calls` x `delay_us(us)` through `hwtimer_core::Delay` on
/// the Otto clocksource, ns: the loop of `seed_continuous_delay`, which only returns
/// aggregates. [`distribution`] checks they agree.
fn each_continuous_delay(soc: Soc, calls: u32, us: u32) -> Result<Vec<u64>, Error> {
    let sim = OttoSim::with_model(OttoModel::new(soc), SIM_READ_NS, SIM_WRITE_NS);
    let cs = OttoClocksource::new(sim.bus(), &Config::new(soc), 1)?;
    let mut delay = Delay::new(&cs);
    let clock = sim.clock();
    Ok((0..calls)
        .map(|_| {
            let t0 = clock.now_ns();
            delay.delay_us(us);
            clock.now_ns() - t0
        })
        .collect())
}

/// The achieved length of each of `calls` sleeps of `us` on a periodic `hz` tick alone, ns:
/// the loop of `seed_tick_sleep` (a sleep ends at the first tick at or after its expiry).
fn each_tick_sleep(soc: Soc, calls: u32, us: u32, hz: u32) -> Result<Vec<u64>, Error> {
    let sim = OttoSim::with_model(OttoModel::new(soc), SIM_READ_NS, SIM_WRITE_NS);
    let config = Config::new(soc);
    let mut tick = OttoClockEvent::new(sim.bus(), &config, 0)?;
    tick.set_periodic(u64::from(config.tick_hz / hz))?;
    let clock = sim.clock();
    let mut out = Vec::new();
    for _ in 0..calls {
        let t0 = clock.now_ns();
        let expiry = t0 + u64::from(us) * 1_000;
        loop {
            sim.advance_to_next_irq(0).ok_or(Error::Timeout)?;
            if tick.ack() && clock.now_ns() >= expiry {
                break;
            }
        }
        out.push(clock.now_ns() - t0);
    }
    Ok(out)
}

/// Calls per achieved delay (ns), after checking that the per-call run reproduces the
/// library's figures exactly: the picture and the figures are one measurement.
fn distribution(what: &str, each: &[u64], fig: &SleepFigures) -> BTreeMap<u64, u32> {
    let same = each.len() == fig.calls as usize
        && each.iter().sum::<u64>() == fig.total_ns
        && each.iter().min() == Some(&fig.min_ns)
        && each.iter().max() == Some(&fig.max_ns);
    if !same {
        eprintln!("{what}: the per-call run does not reproduce {fig:?}");
        std::process::exit(1);
    }
    let mut calls = BTreeMap::new();
    for &ns in each {
        *calls.entry(ns).or_insert(0) += 1;
    }
    calls
}

/// Prints a distribution as the series `name`: achieved delay (us) against calls.
fn print_distribution(name: &str, calls: &BTreeMap<u64, u32>) {
    for (ns, n) in calls {
        OUT.point(
            name,
            format!("{:.3}", *ns as f64 / 1000.0),
            "us",
            n,
            "calls",
        );
    }
}

fn main() {
    const CALLS: u32 = 10_000;
    let soc = Soc::Rtl838x;
    println!(
        "# RTL838x model, 3.125 MHz, MMIO read {SIM_READ_NS} ns / write {SIM_WRITE_NS} ns, \
         {CALLS} x delay_us(10), virtual time"
    );
    let ours = match seed_continuous_delay(soc, CALLS, 10, SIM_READ_NS, SIM_WRITE_NS) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("continuous delay failed: {e}");
            std::process::exit(1);
        }
    };
    OUT.figure(
        "seed_delay_10us_continuous_avg",
        format!("{:.3}", ours.avg_ns() / 1000.0),
        "us",
    );
    OUT.figure(
        "seed_delay_10us_continuous_min",
        format!("{:.3}", ours.min_ns as f64 / 1000.0),
        "us",
    );
    OUT.figure(
        "seed_delay_10us_continuous_max",
        format!("{:.3}", ours.max_ns as f64 / 1000.0),
        "us",
    );
    OUT.figure(
        "seed_delay_10us_continuous_mmio_reads_per_call",
        format!("{:.2}", ours.mmio_reads as f64 / f64::from(CALLS)),
        "reads",
    );
    let tick = match seed_tick_sleep(soc, CALLS, 10, 100, SIM_READ_NS, SIM_WRITE_NS) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("tick sleep failed: {e}");
            std::process::exit(1);
        }
    };
    OUT.figure(
        "seed_delay_10us_tick_hz100_avg",
        format!("{:.3}", tick.avg_ns() / 1000.0),
        "us",
    );
    OUT.figure(
        "seed_delay_10us_tick_hz100_max",
        format!("{:.3}", tick.max_ns as f64 / 1000.0),
        "us",
    );
    OUT.figure(
        "seed_delay_10us_ratio",
        format!("{:.1}", tick.avg_ns() / ours.avg_ns()),
        "x",
    );
    // The per-call distributions, for `cargo xtask plots`.
    let each = |r: Result<Vec<u64>, Error>| {
        r.unwrap_or_else(|e| {
            eprintln!("per-call run failed: {e}");
            std::process::exit(1);
        })
    };
    let continuous = each(each_continuous_delay(soc, CALLS, 10));
    let continuous = distribution("continuous delay", &continuous, &ours);
    print_distribution("seed_delay_10us_continuous", &continuous);
    let ticked = each(each_tick_sleep(soc, CALLS, 10, 100));
    print_distribution(
        "seed_delay_10us_tick_hz100",
        &distribution("tick sleep", &ticked, &tick),
    );

    match measure_mmio_costs(soc).and_then(|c| Ok((c, naive_set_next_event_cost(soc)?))) {
        Ok((c, naive)) => {
            for (name, (r, w)) in [
                ("clocksource_read", c.clocksource_read),
                ("set_next_event", c.set_next_event),
                ("set_next_event_naive", naive),
                ("ack_pending", c.ack_pending),
                ("ack_spurious", c.ack_spurious),
                ("shutdown", c.shutdown),
            ] {
                OUT.figure(&format!("mmio_reads_per_{name}"), r, "reads");
                OUT.figure(&format!("mmio_writes_per_{name}"), w, "writes");
            }
        }
        Err(e) => {
            eprintln!("cost measurement failed: {e}");
            std::process::exit(1);
        }
    }
}
