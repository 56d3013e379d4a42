//! The strategies the seeds measured as slow, reimplemented on the sim so every crate can
//! show its figure beside the naive one. Never use these outside comparisons.

use super::{SimClock, SimTickCounter};
use crate::clocksource::Clocksource;

/// Sleep the way a kernel without a continuous clocksource does (seed 000): high
/// resolution timers are off, so a sleep's timer is only looked at from the periodic tick
/// interrupt and the task wakes at the first tick at or after its deadline. Called in a
/// loop, every 10 µs sleep therefore lasts until the next 10 ms tick (HZ=100), which is
/// the 10003 µs the seed measured. Advances `clock` and returns the nanoseconds slept.
pub fn tick_sleep(jiffies: &SimTickCounter, clock: &SimClock, ns: u64) -> u64 {
    let tick_ns = 1_000_000_000 / u64::from(jiffies.freq_hz()).max(1);
    let t0 = clock.now_ns();
    let deadline = t0.saturating_add(ns);
    let wake = deadline.div_ceil(tick_ns).saturating_mul(tick_ns);
    clock.advance_to(wake);
    // The woken task reads jiffies (one cheap read) before returning.
    let _ = jiffies.read();
    clock.now_ns() - t0
}

/// Poll the way mv88e6xxx did before seed 004: up to `tries` reads with a fixed sleep
/// between them, no deadline, no read after the last sleep. Returns `(Ok, reads)` when
/// `done` held, `(Err, reads)` otherwise.
pub fn fixed_sleep_poll<T>(
    clock: &SimClock,
    tries: u32,
    sleep_ns: u64,
    mut read: impl FnMut() -> T,
    mut done: impl FnMut(&T) -> bool,
) -> (Result<T, T>, u32) {
    let mut reads = 0;
    let mut last = None;
    for _ in 0..tries {
        let v = read();
        reads += 1;
        if done(&v) {
            return (Ok(v), reads);
        }
        last = Some(v);
        clock.advance(sleep_ns);
    }
    match last {
        Some(v) => (Err(v), reads),
        None => {
            let v = read();
            (Err(v), reads + 1)
        }
    }
}
