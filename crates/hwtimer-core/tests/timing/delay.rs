//! Delays never return early, on any width, rate, read cost or starting point.

use embedded_hal::delay::DelayNs;
use hwtimer_core::Delay;
use hwtimer_core::delay::Stalled;
use hwtimer_core::delay::ticks_for_ns;
use hwtimer_core::sim::{SimClock, SimCounter};
use proptest::prelude::*;

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it (proptest's default looks in
    // tests/proptest-regressions/ once the binary has a main.rs).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(400))
    })]

    #[test]
    fn delay_ns_is_never_short(
        ns in 0u32..5_000_000,
        bits in prop::sample::select(vec![16u32, 24, 28, 32, 48, 64]),
        hz in prop::sample::select(vec![32_768u32, 1_000_000, 3_125_000, 24_000_000, 100_000_000]),
        read_cost in 1u64..700,
        start_ns in 0u64..1_000_000,
        start_value in any::<u64>(),
    ) {
        let clock = SimClock::new();
        clock.advance(start_ns);
        let counter = SimCounter::new(&clock, bits, hz)
            .with_read_cost(read_cost)
            .with_start_value(start_value);
        let mut delay = Delay::new(&counter);
        let t0 = clock.now_ns();
        delay.delay_ns(ns);
        let waited = clock.now_ns() - t0;
        prop_assert!(waited >= u64::from(ns), "waited {} for {}", waited, ns);
        // And not absurdly long: the +1 tick rule, rounding, plus one read.
        let tick_ns = 1_000_000_000u64.div_ceil(u64::from(hz));
        prop_assert!(waited <= u64::from(ns) + 2 * tick_ns + 2 * read_cost,
            "waited {} for {} (tick {} ns)", waited, ns, tick_ns);
    }
}

#[test]
fn delays_longer_than_a_wrap_are_measured_across_wraps() {
    // A 16-bit counter at 1 MHz wraps every 65.5 ms; ask for 200 ms.
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 16, 1_000_000).with_read_cost(50);
    let mut delay = Delay::new(&counter);
    let t0 = clock.now_ns();
    delay.delay_ms(200);
    let waited = clock.now_ns() - t0;
    assert!((200_000_000..200_002_100).contains(&waited), "{waited}");
}

#[test]
fn us_and_ms_variants_do_not_accumulate_chunk_overhead() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, 3_125_000).with_read_cost(40);
    let mut delay = Delay::new(&counter);
    let t0 = clock.now_ns();
    delay.delay_ms(1000);
    let waited = clock.now_ns() - t0;
    // One conversion: 1 s + at most 2 ticks, not 1000 chunks of +1 tick each.
    assert!(
        (1_000_000_000..1_000_000_000 + 2 * 320 + 80).contains(&waited),
        "{waited}"
    );
}

#[test]
fn ten_microseconds_on_the_otto_rate_costs_33_ticks() {
    // The Otto delay bug's workload: 10 µs at 3.125 MHz is 31.25 ticks, waited as 32 + 1.
    assert_eq!(ticks_for_ns(10_000, 3_125_000), 33);
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, 3_125_000).with_read_cost(40);
    let mut delay = Delay::new(&counter);
    let n = 10_000u64;
    let t0 = clock.now_ns();
    for _ in 0..n {
        delay.delay_us(10);
    }
    let avg = (clock.now_ns() - t0) / n;
    // Between 32 and 33 tick periods (10.24..10.56 µs) plus at most one 40 ns read.
    assert!((10_240..=10_600).contains(&avg), "average {avg} ns");
}

#[test]
fn zero_delay_returns_without_reading_the_counter() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, 3_125_000);
    let mut delay = Delay::new(&counter);
    delay.delay_ns(0);
    assert_eq!(counter.reads(), 0);
}

/// Runs `f` on a thread and fails if it has not returned within 20 s of real time (a
/// wait that spins forever).
fn returns<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("the delay never returned on a stopped counter")
}

#[test]
fn a_delay_on_a_stopped_counter_ends_after_its_stall_bound() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 24_000_000).gated_off();
    // The embedded-hal delay cannot fail: it must return (the default bound, 2^22 reads).
    let c = counter.clone();
    returns(move || Delay::new(c).delay_ms(10));
    // The fallible one says so, after exactly the bound of reads without movement.
    let reads0 = counter.reads();
    let r = returns(move || {
        Delay::new(counter.clone())
            .max_stalled_reads(1_000)
            .try_wait_ns(10_000_000)
            .map_err(|e| (e, counter.reads() - reads0))
    });
    let (stalled, reads) = r.unwrap_err();
    assert_eq!(stalled.elapsed_ticks, 0);
    assert_eq!(stalled.wanted_ticks, ticks_for_ns(10_000_000, 24_000_000));
    assert_eq!(stalled.reads, reads);
    assert!((1_000..=1_002).contains(&reads), "{reads} reads");
}

#[test]
fn the_stall_bound_never_cuts_a_running_slow_counter_short() {
    // 32 768 Hz read every 100 ns: about 305 reads per tick, under a bound of 400.
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 16, 32_768);
    let delay = Delay::new(&counter).max_stalled_reads(400);
    let t0 = clock.now_ns();
    let ticks = delay.try_wait_ns(100_000_000).expect("the counter runs");
    assert!(ticks >= ticks_for_ns(100_000_000, 32_768));
    assert!(clock.now_ns() - t0 >= 100_000_000, "never early");
}

/// A source that runs but reports 0 Hz: a wait in nanoseconds returns at once (reported as
/// `Stalled`), instead of waiting for 2^64 ticks. Before, `ticks_for_ns(ns, 0)` asked for
/// `u64::MAX` ticks and the counter, moving, never tripped the stall bound: this test hung.
#[test]
fn a_source_at_zero_hz_does_not_hang_a_nanosecond_wait() {
    #[derive(Debug)]
    struct ZeroHz(SimCounter);
    impl hwtimer_core::Clocksource for ZeroHz {
        fn read(&self) -> u64 {
            self.0.read()
        }
        fn bits(&self) -> u32 {
            self.0.bits()
        }
        fn freq_hz(&self) -> u32 {
            0
        }
    }
    impl hwtimer_core::Continuous for ZeroHz {}
    let clock = SimClock::new();
    let delay = Delay::new(ZeroHz(SimCounter::new(&clock, 32, 1_000_000)));
    let t0 = clock.now_ns();
    let r = delay.try_wait_ns(1_000);
    assert!(matches!(r, Err(Stalled { reads: 0, .. })), "{r:?}");
    assert_eq!(clock.now_ns(), t0, "no read was made");
    delay.wait_ns(1_000);
    assert_eq!(delay.try_wait_ns(0), Ok(0));
}
