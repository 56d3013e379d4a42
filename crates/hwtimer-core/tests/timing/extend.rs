//! Width extension over simulated counters: 28, 32 and 48 bits, across wraps and at
//! exactly half a wrap between reads.

use hwtimer_core::sim::{SimClock, SimCounter};
use hwtimer_core::time::counter_mask;
use hwtimer_core::{Clocksource, Extended, Monotonic};

fn period_ns(hz: u32) -> f64 {
    1e9 / f64::from(hz)
}

#[test]
fn extended_time_tracks_true_ticks_across_many_wraps() {
    for (bits, hz) in [(28u32, 3_125_000u32), (32, 24_000_000), (48, 1_000_000_000)] {
        let clock = SimClock::new();
        let mask = counter_mask(bits);
        // Start 100 ticks before the wrap.
        let counter = SimCounter::new(&clock, bits, hz)
            .with_read_cost(1)
            .with_start_value(mask - 100);
        let time = Extended::new(&counter);
        let t_start = time.now();
        assert!(t_start - (mask - 100) <= 1, "starts at the raw value");
        // Read every third of a wrap for ten wraps.
        let step_ns = ((mask as f64 + 1.0) / 3.0 * period_ns(hz)) as u64;
        let mut prev = t_start;
        for _ in 0..30 {
            clock.advance(step_ns);
            let now = time.now();
            assert!(now > prev);
            prev = now;
            // The true tick count since t = 0, from the virtual clock.
            let truth = (mask - 100) + (clock.now_ns() as u128 * hz as u128 / 1_000_000_000) as u64;
            assert!(
                now <= truth && truth - now <= 2,
                "bits {bits}: {now} vs {truth}"
            );
        }
        assert!(prev > 10 * (mask / 2), "ten wraps counted");
    }
}

#[test]
fn exactly_half_a_wrap_between_reads_is_still_counted() {
    for bits in [28u32, 32, 48] {
        let clock = SimClock::new();
        let hz = 1_000_000_000; // 1 tick per ns makes "exactly" exact
        let counter = SimCounter::new(&clock, bits, hz).with_read_cost(1);
        let time = Extended::new(&counter);
        let half = 1u64 << (bits - 1);
        let mut expected = time.now() + 1; // the read itself cost 1 ns
        for _ in 0..4 {
            // Advance so the next raw read is exactly half a wrap after the last one.
            clock.advance(half - 1);
            let now = time.now();
            expected += half;
            assert_eq!(now, expected - 1, "bits {bits}");
            expected = now + 1;
        }
    }
}

#[test]
fn more_than_half_a_wrap_between_reads_breaks_the_precondition_but_never_goes_back() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, 1_000_000_000).with_read_cost(1);
    let time = Extended::new(&counter);
    let t0 = time.now();
    clock.advance((1 << 27) + 10);
    let t1 = time.now();
    assert!(t1 >= t0, "monotonic even when the precondition is violated");
    assert!(
        t1 < t0 + (1 << 27),
        "the lost half-wrap is documented behaviour"
    );
}

#[test]
fn stale_raw_values_from_a_preempted_reader_keep_time_monotonic() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 24_000_000).with_read_cost(40);
    let time = Extended::new(&counter);
    // Reader A samples the raw counter, then is preempted.
    let stale = counter.read();
    clock.advance(5_000_000);
    // Reader B (an interrupt) publishes a newer time.
    let newer = time.now();
    // A finally publishes its stale sample.
    assert_eq!(time.update_from_raw(stale), newer);
    assert!(time.now() >= newer);
}
