//! Seed-proof and cost figures, on the behavioural model in virtual time (deterministic:
//! no host clock is read). Prints `bench: otto-timer/<metric> = <value> <unit>` lines for
//! `cargo xtask bench` and the README.
//!
//! Run: `cargo bench -p otto-timer --bench seed`.

use otto_timer::Soc;
use otto_timer::sim::{
    SIM_READ_NS, SIM_WRITE_NS, measure_mmio_costs, seed_continuous_delay, seed_tick_sleep,
};

fn line(metric: &str, value: impl std::fmt::Display, unit: &str) {
    println!("bench: otto-timer/{metric} = {value} {unit}");
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
    line(
        "seed_delay_10us_continuous_avg",
        format!("{:.3}", ours.avg_ns() / 1000.0),
        "us",
    );
    line(
        "seed_delay_10us_continuous_min",
        format!("{:.3}", ours.min_ns as f64 / 1000.0),
        "us",
    );
    line(
        "seed_delay_10us_continuous_max",
        format!("{:.3}", ours.max_ns as f64 / 1000.0),
        "us",
    );
    line(
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
    line(
        "seed_delay_10us_tick_hz100_avg",
        format!("{:.3}", tick.avg_ns() / 1000.0),
        "us",
    );
    line(
        "seed_delay_10us_tick_hz100_max",
        format!("{:.3}", tick.max_ns as f64 / 1000.0),
        "us",
    );
    line(
        "seed_delay_10us_ratio",
        format!("{:.1}", tick.avg_ns() / ours.avg_ns()),
        "x",
    );
    match measure_mmio_costs(soc) {
        Ok(c) => {
            for (name, (r, w)) in [
                ("clocksource_read", c.clocksource_read),
                ("set_next_event", c.set_next_event),
                ("set_next_event_naive", c.set_next_event_naive),
                ("ack_pending", c.ack_pending),
                ("ack_spurious", c.ack_spurious),
                ("shutdown", c.shutdown),
            ] {
                line(&format!("mmio_reads_per_{name}"), r, "reads");
                line(&format!("mmio_writes_per_{name}"), w, "writes");
            }
        }
        Err(e) => {
            eprintln!("cost measurement failed: {e}");
            std::process::exit(1);
        }
    }
}
