//! Host demo of the Otto timer driver on its behavioural model, in virtual time:
//! Linux's per-CPU layout, a 10 µs delay on the continuous clocksource, an absolute
//! alarm, the HZ=100 tick, and the lost-interrupt quirk with and without the fix.
//!
//! Run: `cargo run -p otto-timer --example sim_demo --features sim`.

use embedded_hal::delay::DelayNs;
use hwtimer_core::{Alarm, Delay, Error, Extended, Fired, Monotonic};
use otto_timer::sim::{OttoSim, SIM_READ_NS, SIM_WRITE_NS, reprogram_near_expiry, seed_tick_sleep};
use otto_timer::{Config, OttoTimers, Soc};

fn main() -> Result<(), Error> {
    let soc = Soc::Rtl838x;
    let info = soc.info();
    println!(
        "Otto timer on {soc:?}: {} timers at {:#x}, LXB {} MHz, divisor {} -> 3.125 MHz",
        info.timers,
        info.kseg1_base(),
        info.bus_clock_hz / 1_000_000,
        Config::new(soc).divisor()?
    );

    let sim = OttoSim::new(soc);
    let mut layout = OttoTimers::new(sim.bus(), Config::new(soc))?.per_cpu(2)?;
    for c in &layout.cpus {
        println!("  CPU {} -> timer {} ({:?})", c.cpu, c.event.index(), c.irq);
    }
    println!("  clocksource -> timer {}", layout.clocksource.index());

    // 10 µs delay on the continuous clocksource.
    let t0 = sim.clock().now_ns();
    Delay::new(&layout.clocksource).delay_us(10);
    println!(
        "delay_us(10) took {} ns of virtual time",
        sim.clock().now_ns() - t0
    );

    // The same sleep when only a periodic HZ=100 tick exists (seed 000).
    let tick = seed_tick_sleep(soc, 10, 10, 100, SIM_READ_NS, SIM_WRITE_NS)?;
    println!(
        "tick-based sleep of 10 us took {:.0} us on average",
        tick.avg_ns() / 1000.0
    );

    // An absolute alarm on CPU 0's clockevent: never early.
    let time = Extended::new(&layout.clocksource);
    let cpu0 = layout.cpus.remove(0);
    let mut alarm = Alarm::new(cpu0.event, &time)?;
    let deadline = time.now() + 3_125;
    alarm.set_deadline(deadline)?;
    sim.advance_to_next_irq(0).ok_or(Error::Timeout)?;
    if let Fired::Deadline { now, .. } = alarm.on_interrupt() {
        println!(
            "alarm for tick {deadline} fired at tick {now} (late by {})",
            now - deadline
        );
    }

    // The lost-interrupt quirk: reprogram 1 µs before expiry.
    for (naive, name) in [(true, "naive reprogram"), (false, "bounce reprogram")] {
        match reprogram_near_expiry(soc, 1_000, naive)? {
            Some(t) => println!("{name}: interrupt at {t} ns"),
            None => println!("{name}: interrupt LOST, CPU would stall"),
        }
    }
    Ok(())
}
