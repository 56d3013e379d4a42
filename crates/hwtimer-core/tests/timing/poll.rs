//! Bounded polling with iopoll semantics, against simulated busy bits.

use hwtimer_core::poll::PollError;
use hwtimer_core::sim::model::Behaviour;
use hwtimer_core::sim::{RegisterFile, SimBus, SimClock, SimCounter};
use hwtimer_core::{Poller, RegisterBus};

const BUSY: u32 = 1 << 15;
const CMD: usize = 0x0;

fn setup(clear_after_ns: u64) -> (SimClock, SimCounter, SimBus<RegisterFile>) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(20);
    let bus = SimBus::new(
        &clock,
        RegisterFile::new(0x10).with(
            CMD,
            Behaviour::Busy {
                mask: BUSY,
                clear_after_ns,
            },
        ),
    )
    .with_costs(200, 100);
    (clock, counter, bus)
}

#[test]
fn bit_that_never_clears_times_out_after_the_deadline_with_two_polls_or_more() {
    for timeout_us in [0u64, 1, 50] {
        let (clock, counter, bus) = setup(0);
        bus.model(|m| m.stick(CMD, BUSY, BUSY));
        bus.write_word(CMD, BUSY);
        let t0 = clock.now_ns();
        let err = Poller::new(&counter)
            .timeout_us(timeout_us)
            .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
            .unwrap_err();
        let waited = clock.now_ns() - t0;
        assert!(
            err.polls >= 2,
            "timeout {timeout_us} µs: {} polls",
            err.polls
        );
        assert!(err.last & BUSY != 0, "the last value read is returned");
        assert!(waited >= timeout_us * 1000, "timed out early: {waited} ns");
        assert_eq!(
            u64::from(err.polls),
            bus.stats().reads,
            "every read is counted"
        );
        // Bounded: no more than the timeout plus one tick, one read and one check late.
        assert!(
            waited <= timeout_us * 1000 + 40 + 200 + 3 * 20 + 200,
            "{waited} ns"
        );
    }
}

#[test]
fn bit_that_clears_is_seen_on_the_first_read_after_it_clears() {
    let (clock, counter, bus) = setup(1_000);
    bus.write_word(CMD, BUSY);
    let t0 = clock.now_ns();
    let ok = Poller::new(&counter)
        .timeout_ms(50)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .unwrap();
    // Each poll costs one 200 ns read plus one 20 ns clock read: ~5 polls for 1 µs.
    assert_eq!(ok.value & BUSY, 0);
    assert!((5..=6).contains(&ok.polls), "{} polls", ok.polls);
    assert!(clock.now_ns() - t0 < 1_000 + 2 * 220);
}

#[test]
fn outcome_is_decided_by_the_final_read_across_the_deadline() {
    // Sweep the moment the device finishes across the deadline. The outcome must be
    // decided by the value of the *final* read: success whenever the bit was clear by
    // then, a timeout (never early) otherwise.
    let timeout_ns = 10_000;
    let mut successes_after_deadline = 0;
    for clear_after in (9_000..12_000).step_by(37) {
        let (clock, counter, bus) = setup(clear_after);
        let t0 = clock.now_ns();
        bus.write_word(CMD, BUSY);
        let mut read_times = Vec::new();
        let res = Poller::new(&counter).timeout_ns(timeout_ns).poll(
            || {
                read_times.push(clock.now_ns());
                bus.read_word(CMD)
            },
            |v| v & BUSY == 0,
        );
        let last_read = *read_times.last().unwrap();
        let cleared_by_last_read = last_read >= t0 + clear_after;
        match res {
            Ok(p) => {
                assert!(cleared_by_last_read);
                if last_read - t0 > timeout_ns {
                    successes_after_deadline += 1;
                    assert!(p.polls >= 2);
                }
            }
            Err(t) => {
                assert!(
                    !cleared_by_last_read,
                    "clear_after {clear_after}: false timeout"
                );
                assert!(last_read - t0 >= timeout_ns, "timed out early");
                assert!(t.polls >= 2);
            }
        }
    }
    assert!(
        successes_after_deadline > 0,
        "the sweep must hit the extra-poll window"
    );
}

#[test]
fn bit_clearing_during_the_deadline_check_is_caught_by_the_extra_poll() {
    // The clock read that discovers the deadline is slow (5 µs: an interrupt hit it); the
    // device finishes during it. Only the read made after the deadline can see that.
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(5_000);
    let bus = SimBus::new(
        &clock,
        RegisterFile::new(0x10).with(
            CMD,
            Behaviour::Busy {
                mask: BUSY,
                clear_after_ns: 7_000,
            },
        ),
    )
    .with_costs(200, 0);
    bus.write_word(CMD, BUSY);
    let ok = Poller::new(&counter)
        .timeout_us(1)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .expect("the extra poll after the deadline sees the bit clear");
    assert_eq!(ok.polls, 2, "one busy read, then the extra read");
}

#[test]
fn preempted_poller_succeeds_where_a_naive_loop_reports_a_false_timeout() {
    // The mv88e6xxx busy poll: a bit-banged bus or a preempted task loses 100 ms right after a read,
    // while the switch finishes its operation within 26 µs.
    let run = |naive: bool| {
        let (clock, counter, bus) = setup(26_000);
        bus.write_word(CMD, BUSY);
        let mut first = true;
        let mut read = || {
            let v = bus.read_word(CMD);
            if first {
                first = false;
                clock.advance(100_000_000); // preempted for 100 ms
            }
            v
        };
        if naive {
            // Check the clock, give up if it passed, without a last look.
            let deadline = clock.now_ns() + 50_000_000;
            loop {
                if read() & BUSY == 0 {
                    return Ok(());
                }
                if clock.now_ns() > deadline {
                    return Err("timeout");
                }
            }
        }
        Poller::new(&counter)
            .timeout_ms(50)
            .poll(read, |v| v & BUSY == 0)
            .map(|p| assert_eq!(p.polls, 2))
            .map_err(|_| "timeout")
    };
    assert_eq!(
        run(true),
        Err("timeout"),
        "the naive loop gives a false timeout"
    );
    assert_eq!(
        run(false),
        Ok(()),
        "iopoll semantics: the extra read sees the bit clear"
    );
}

#[test]
fn interval_between_polls_reduces_bus_reads() {
    let (_clock, counter, bus) = setup(0);
    bus.model(|m| m.stick(CMD, BUSY, BUSY));
    let tight = Poller::new(&counter)
        .timeout_us(100)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .unwrap_err();
    bus.reset_stats();
    let spaced = Poller::new(&counter)
        .timeout_us(100)
        .interval_ns(10_000)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .unwrap_err();
    assert!(tight.polls > 400, "{}", tight.polls);
    assert!((9..=12).contains(&spaced.polls), "{}", spaced.polls);
    assert_eq!(u64::from(spaced.polls), bus.stats().reads);
}

#[test]
fn read_errors_stop_the_poll() {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 1_000_000);
    let mut n = 0;
    let r: Result<_, PollError<u32, &str>> = Poller::new(&counter).timeout_ms(1).try_poll(
        || {
            n += 1;
            if n == 3 { Err("bus error") } else { Ok(1u32) }
        },
        |v| *v == 0,
    );
    assert_eq!(r, Err(PollError::Read("bus error")));
    assert_eq!(n, 3);
}

/// A clocksource whose clock is gated off: every read returns the same value. It counts its
/// reads and gives up loudly (a failed test, not a hung one) long after any bounded poll
/// would have stopped reading it.
struct FrozenCounter {
    reads: std::cell::Cell<u64>,
}

/// Far beyond the default backstop: a poller still reading the frozen clock by then has no
/// bound that does not depend on the clock.
const FROZEN_READ_LIMIT: u64 = 4 * hwtimer_core::poll::DEFAULT_MAX_POLLS as u64;

impl FrozenCounter {
    fn new() -> Self {
        Self {
            reads: std::cell::Cell::new(0),
        }
    }
}

impl hwtimer_core::Clocksource for FrozenCounter {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        25_000_000
    }
    fn read(&self) -> u64 {
        let n = self.reads.get() + 1;
        self.reads.set(n);
        assert!(
            n <= FROZEN_READ_LIMIT,
            "the poller read a frozen clock {n} times: it has no bound of its own"
        );
        0x1234
    }
}

impl hwtimer_core::Continuous for FrozenCounter {}

#[test]
fn frozen_clock_ends_at_the_default_poll_backstop() {
    use hwtimer_core::poll::{Bound, DEFAULT_MAX_POLLS};
    let clock = FrozenCounter::new();
    let mut device_reads = 0u32;
    let t = Poller::new(&clock)
        .timeout_ms(50)
        .poll(
            || {
                device_reads += 1;
                0x8000u16 // BUSY forever
            },
            |v| v & 0x8000 == 0,
        )
        .unwrap_err();
    assert_eq!(t.bound, Bound::PollLimit);
    assert_eq!(t.polls, DEFAULT_MAX_POLLS);
    assert_eq!(device_reads, DEFAULT_MAX_POLLS);
    assert_eq!(t.elapsed_ticks, 0, "the clock never moved");
    assert_eq!(t.last, 0x8000);
    // One clock read to start, one per regular poll, one after the final read.
    assert_eq!(clock.reads.get(), u64::from(DEFAULT_MAX_POLLS) + 1);
}

#[test]
fn frozen_clock_ends_at_a_configured_backstop_and_the_last_read_still_counts() {
    use hwtimer_core::poll::Bound;
    for max in [0u32, 1, 2, 3, 100] {
        let clock = FrozenCounter::new();
        let mut n = 0u32;
        let t = Poller::new(&clock)
            .timeout_us(1)
            .max_polls(max)
            .poll(
                || {
                    n += 1;
                    n
                },
                |_| false,
            )
            .unwrap_err();
        let expected = max.max(2);
        assert_eq!(
            (t.bound, t.polls, n),
            (Bound::PollLimit, expected, expected)
        );
        assert_eq!(t.last, expected, "the value of the final read is returned");
    }
    // The final read is judged: a condition that holds on it is a success.
    let clock = FrozenCounter::new();
    let mut n = 0u32;
    let ok = Poller::new(&clock)
        .max_polls(10)
        .timeout_ms(1)
        .poll(
            || {
                n += 1;
                n
            },
            |v| *v == 10,
        )
        .unwrap();
    assert_eq!((ok.value, ok.polls), (10, 10));
}

#[test]
fn frozen_clock_cannot_stretch_the_pause_between_polls() {
    use hwtimer_core::poll::Bound;
    // A 10 µs pause is measured on the clock; a frozen clock would make it endless.
    let clock = FrozenCounter::new();
    let mut n = 0u32;
    let t = Poller::new(&clock)
        .timeout_ms(50)
        .interval_ns(10_000)
        .max_polls(1_000)
        .poll(
            || {
                n += 1;
                n
            },
            |_| false,
        )
        .unwrap_err();
    assert_eq!((t.bound, t.polls), (Bound::PollLimit, 1_000));
    // Clock reads: start + one per regular poll + one after the final read + the pause
    // budget (at most max_polls over the whole wait).
    assert!(
        clock.reads.get() <= 1 + 1_000 + 1_000,
        "{}",
        clock.reads.get()
    );
}

#[test]
fn a_running_clock_is_ended_by_its_deadline_not_the_backstop() {
    use hwtimer_core::poll::Bound;
    let (clock, counter, bus) = setup(0);
    bus.model(|m| m.stick(CMD, BUSY, BUSY));
    let t0 = clock.now_ns();
    let t = Poller::new(&counter)
        .timeout_us(100)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .unwrap_err();
    assert_eq!(t.bound, Bound::Deadline);
    assert!(clock.now_ns() - t0 >= 100_000);
    // A backstop smaller than the deadline allows ends it first, and says so.
    let t = Poller::new(&counter)
        .timeout_us(100)
        .max_polls(10)
        .poll(|| bus.read_word(CMD), |v| v & BUSY == 0)
        .unwrap_err();
    assert_eq!((t.bound, t.polls), (Bound::PollLimit, 10));
    assert!(t.elapsed_ticks < 100 * 25);
}
