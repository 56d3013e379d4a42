//! The strategies the seeds measured as slow, reimplemented on hwtimer-core's simulation so
//! the benches and the host demo can show each figure beside the naive one (feature
//! `baseline`). Never use these outside comparisons: they are old Linux behaviour, kept out
//! of the libraries' public API on purpose.

use hwtimer_core::Clocksource;
use hwtimer_core::sim::{SimClock, SimTickCounter};

/// Sleep the way a kernel without a continuous clocksource does (the bug OpenWrt fixed by marking the Otto clocksource continuous): high
/// resolution timers are off, so a sleep's timer is only looked at from the periodic tick
/// interrupt and the task wakes at the first tick at or after its deadline. Called in a
/// loop, every 10 µs sleep therefore lasts until the next 10 ms tick (HZ=100), which is
/// the 10003 µs OpenWrt measured. Advances `clock` and returns the nanoseconds slept.
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

/// Poll the way mv88e6xxx did before Linux's "Improve indirect addressing
/// performance": up to `tries` reads with a fixed sleep
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

/// Average virtual time and counter reads of `n` back-to-back `delay_us(10)` on a 28-bit
/// counter at 3.125 MHz (the Realtek Otto clocksource) with 100 ns reads: the Otto delay
/// workload on a continuous clocksource. Returns `(ns per call, reads per call)`.
pub fn delay_us10_continuous(n: u64) -> (f64, f64) {
    use embedded_hal::delay::DelayNs;
    let clock = SimClock::new();
    let counter = hwtimer_core::sim::SimCounter::new(&clock, 28, 3_125_000).with_read_cost(100);
    let mut delay = hwtimer_core::Delay::new(&counter);
    let t0 = clock.now_ns();
    for _ in 0..n {
        delay.delay_us(10);
    }
    let n = n.max(1) as f64;
    ((clock.now_ns() - t0) as f64 / n, counter.reads() as f64 / n)
}

/// Average virtual time of `n` back-to-back 10 µs [`tick_sleep`]s at HZ=100: the same
/// workload when only a periodic tick exists. Returns ns per call.
pub fn delay_us10_tick_hz100(n: u64) -> f64 {
    let clock = SimClock::new();
    let jiffies = SimTickCounter::new(&clock, 100);
    let t0 = clock.now_ns();
    for _ in 0..n {
        tick_sleep(&jiffies, &clock, 10_000);
    }
    (clock.now_ns() - t0) as f64 / n.max(1) as f64
}

/// The mv88e6xxx busy-bit wait: a busy bit that clears 26 µs after the command, every read of it one
/// 25.6 µs MDIO frame. `tight`: the core's [`Poller`](hwtimer_core::Poller) with a 50 ms
/// deadline; otherwise 16 tries with 1.5 ms sleeps. Returns `(ns waited, reads)`.
pub fn busy_bit_wait(tight: bool) -> (u64, u32) {
    use hwtimer_core::RegisterBus;
    const BUSY: u32 = 1 << 15;
    let clock = SimClock::new();
    let counter = hwtimer_core::sim::SimCounter::new(&clock, 32, 25_000_000).with_read_cost(20);
    let bus = hwtimer_core::sim::SimBus::new(
        &clock,
        hwtimer_core::sim::RegisterFile::new(4).with(
            0,
            hwtimer_core::sim::model::Behaviour::Busy {
                mask: BUSY,
                clear_after_ns: 26_000,
            },
        ),
    )
    .with_costs(25_600, 25_600);
    bus.write_word(0, BUSY);
    let t0 = clock.now_ns();
    let reads = if tight {
        match hwtimer_core::Poller::new(&counter)
            .timeout_ms(50)
            .poll(|| bus.read_word(0), |v| v & BUSY == 0)
        {
            Ok(p) => p.polls,
            Err(t) => t.polls,
        }
    } else {
        fixed_sleep_poll(
            &clock,
            16,
            1_500_000,
            || bus.read_word(0),
            |v| v & BUSY == 0,
        )
        .1
    };
    (clock.now_ns() - t0, reads)
}
