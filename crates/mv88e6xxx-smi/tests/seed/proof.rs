//! Linux's "Improve indirect addressing performance" patches on the model, in virtual time: frames per indirect access (4 before, 3 now)
//! and the time of a probe-like workload with the pre-seed polling (16 tries, 1.5 ms
//! sleeps), with seed patch 1 alone (tight 50 ms poll, BUSY still checked before every
//! access) and with this crate. Every expected figure is derived from the facts: 25.6 µs
//! per frame at 2.5 MHz, the seed's busy pattern (half the commands clear by the first
//! poll, the rest by the second), 100 ns per clocksource read in the poll loop.

use mv88e6xxx_smi::sim::seed::{
    PRE_SEED_SLEEP_NS, SEED_AFTER_NS, SEED_BEFORE_NS, SEED_BUSY_PATTERN_NS, SEED_PORTS, Strategy,
    implied_accesses, measure_access, seed_workload,
};
use mv88e6xxx_smi::sim::{BusyDelay, FRAME_NS, SIM_COUNTER_READ_NS, SIM_MDC_HZ};

const F: u64 = FRAME_NS;
const R: u64 = SIM_COUNTER_READ_NS;

#[test]
fn frame_is_25_6_us_at_2_5_mhz() {
    assert_eq!(SIM_MDC_HZ, 2_500_000);
    assert_eq!(FRAME_NS, 25_600);
    assert_eq!(mdio_bus::frame_ns(SIM_MDC_HZ), FRAME_NS);
}

#[test]
fn indirect_access_is_3_frames_not_4() {
    let fast = || BusyDelay::fixed(20_000); // clear by the first poll
    for write in [false, true] {
        let ours = measure_access(Strategy::ThisCrate, write, 100, fast()).unwrap();
        let old = measure_access(Strategy::PreSeed, write, 100, fast()).unwrap();
        let p1 = measure_access(Strategy::Patch1, write, 100, fast()).unwrap();
        assert_eq!(ours.frames, 300, "write={write}");
        assert_eq!(old.frames, 400, "write={write}");
        assert_eq!(p1.frames, 400, "write={write}");
        // Time: frames × 25.6 µs, plus one clocksource read per bounded wait.
        assert_eq!(ours.ns, 100 * (3 * F + R));
        assert_eq!(old.ns, 100 * 4 * F);
        assert_eq!(p1.ns, 100 * (4 * F + 2 * R));
    }
}

/// Per access with the seed's pattern: (fast, slow) cost in ns and frames.
fn expected(strategy: Strategy) -> ((u64, u64), (u64, u64)) {
    match strategy {
        // pre-wait (1 frame) + cmd + poll (+1.5 ms sleep + poll when slow) + data
        Strategy::PreSeed => ((4 * F, 4), (5 * F + PRE_SEED_SLEEP_NS, 5)),
        // pre-wait (read + frame) + cmd + wait (read + frame [+ read + frame]) + data
        Strategy::Patch1 => ((4 * F + 2 * R, 4), (5 * F + 3 * R, 5)),
        // cmd + wait + data
        Strategy::ThisCrate => ((3 * F + R, 3), (4 * F + 2 * R, 4)),
    }
}

#[test]
fn seed_busy_pattern_costs() {
    assert_eq!(SEED_BUSY_PATTERN_NS, [20_000, 40_000]);
    for s in [Strategy::PreSeed, Strategy::Patch1, Strategy::ThisCrate] {
        let ((fast_ns, fast_f), (slow_ns, slow_f)) = expected(s);
        let c = measure_access(s, false, 2, BusyDelay::cycle(&SEED_BUSY_PATTERN_NS)).unwrap();
        assert_eq!(
            (c.ns, c.frames),
            (fast_ns + slow_ns, fast_f + slow_f),
            "{s:?}"
        );
    }
    // The seed's own words: the old wait averaged "close to 1 ms", the new one "well
    // below 100 µs". A wait is the post-command part of an access.
    let old_wait = (F + (2 * F + PRE_SEED_SLEEP_NS)) / 2;
    let new_wait = (R + F + 2 * R + 2 * F) / 2;
    assert!((700_000..1_000_000).contains(&old_wait), "{old_wait}");
    assert!(new_wait < 100_000, "{new_wait}");
}

#[test]
fn probe_workload_reproduces_the_seed() {
    let avg = |s| {
        let ((a, _), (b, _)) = expected(s);
        (a + b) as f64 / 2.0
    };
    let n = implied_accesses(SEED_BEFORE_NS, avg(Strategy::PreSeed));
    assert_eq!(n, 18_481);
    let per_chip = (n / 3) as u32;

    let mut results = Vec::new();
    for s in [Strategy::PreSeed, Strategy::Patch1, Strategy::ThisCrate] {
        let c = seed_workload(s, per_chip).unwrap();
        // Exact: per chip, identify + per_chip accesses alternating fast/slow (each chip's
        // SMI_CMD has its own busy cycle), plus our one-time initial BUSY check.
        let ((fast_ns, fast_f), (slow_ns, slow_f)) = expected(s);
        let accesses = u64::from(per_chip) + 1;
        let (fast, slow) = (accesses.div_ceil(2), accesses / 2);
        let init = if s == Strategy::ThisCrate {
            (R + F, 1)
        } else {
            (0, 0)
        };
        let chips = SEED_PORTS.len() as u64;
        assert_eq!(
            c.ns,
            chips * (fast * fast_ns + slow * slow_ns + init.0),
            "{s:?}"
        );
        assert_eq!(
            c.frames,
            chips * (fast * fast_f + slow * slow_f + init.1),
            "{s:?}"
        );
        results.push(c.ns);
    }
    let (pre, p1, ours) = (results[0], results[1], results[2]);
    // Calibrated on the seed's "before" (15.99 s) to within one access...
    assert!(pre.abs_diff(SEED_BEFORE_NS) < 1_000_000, "{pre}");
    // ...the model then predicts patch 1 within 10 % of the seed's measured 2.21 s (the
    // rest is CPU time the model does not charge)...
    let err = (p1 as f64 - SEED_AFTER_NS as f64).abs() / SEED_AFTER_NS as f64;
    assert!(err < 0.10, "patch1 {p1} ns vs 2.21 s");
    // ...and both patches together save another quarter of the MDIO traffic.
    assert!(ours < p1 && pre / ours >= 9, "{pre} / {ours}");
}
