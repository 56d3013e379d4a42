//! Dead blocks: a bus whose reads all return 0, and one whose reads all return all ones
//! (hwtimer-core's `dead_values`). Every public call returns a typed error or a defined
//! value within the number of register reads asserted here (counted by
//! `SimBus::counted`), never hangs, never panics.
//!
//! The driver is built on a healthy model; then the block dies (`SimBus::go_dead`): every
//! read returns the dead value, writes still reach the model.

use a9_global_timer::sim::{GtModel, ModelRule};
use a9_global_timer::{CompareRule, Config, GlobalTimer, Mode, regs};
use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{Dead, MmioStats, SimBus, SimClock, dead_values};
use hwtimer_core::{Alarm, ClockEvent, ConfigError, Error, Fired, Monotonic};

/// `shutdown` reads the flag to log a dropped event when `defmt` is on.
const DEFMT_READ: u64 = cfg!(feature = "defmt") as u64;

fn bus() -> SimBus<GtModel> {
    SimBus::new(&SimClock::new(), GtModel::qemu())
}

#[test]
fn new_on_a_dead_block() {
    // All zeros: a stopped counter, prescaler 0: taken over with one read. All ones:
    // "running at prescaler 255", not the one configured: refused after one read.
    for (value, name) in dead_values::<u32>() {
        let b = SimBus::new(&SimClock::new(), Dead(value));
        let (gt, s) = b.counted(|| GlobalTimer::new(b.clone(), Config::qemu()).map(drop));
        let expect = if value == 0 {
            Ok(())
        } else {
            Err(ConfigError::ConflictsWithRunning.into())
        };
        assert_eq!(gt, expect, "reads {name}");
        assert_eq!((s.reads, s.writes), (1, 0), "reads {name}");
    }
}

#[test]
fn all_zeros() {
    for rule in [CompareRule::GreaterOrEqual, CompareRule::Equal] {
        let b = bus();
        let gt = GlobalTimer::new(b.clone(), Config::qemu().with_compare(rule)).unwrap();
        gt.start().unwrap();
        let mut cmp = gt.comparator().unwrap();
        b.go_dead(Some(0));
        let eq = u64::from(rule == CompareRule::Equal);

        let (v, MmioStats { reads, .. }) = b.counted(|| gt.counter().read64());
        assert_eq!((v, reads), (0, 3));
        let (v, MmioStats { reads, .. }) = b.counted(|| gt.counter().now());
        assert_eq!((v, reads), (0, 3));
        // The counter reads 0, below every target: armed (the equality rule reads back).
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.set_next_event(1));
        // (+1: the control read-modify-write of the enable; +2 re-arming: the disable too)
        assert_eq!((r, reads), (Ok(()), 3 + 1 + 3 * eq), "{rule:?}");
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.set_compare(5));
        assert_eq!((r, reads), (Ok(()), 2 + 6 * eq), "{rule:?}");
        // A target of 0 is "already reached": the equality rule re-arms it ahead.
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.set_compare(0));
        assert_eq!(r, Ok(()), "{rule:?}");
        assert!(reads <= 3 + 4 * (3 + 2), "{rule:?}: {reads}");
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.set_periodic(100));
        assert_eq!((r, reads), (Ok(()), 3 + 2 + 3 * eq), "{rule:?}");
        // The flag reads 0: nothing fired.
        let (r, MmioStats { reads, writes }) = b.counted(|| cmp.ack());
        assert_eq!((r, reads, writes), (false, 1, 0));
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.is_pending());
        assert_eq!((r, reads), (false, 1));
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.read_compare());
        assert_eq!((r, reads), (0, 2));
        let (_, MmioStats { reads, writes }) = b.counted(|| cmp.shutdown());
        assert_eq!((reads, writes), (1 + DEFMT_READ, 2));
        // Through an Alarm: time stands still at 0, the interrupt never says "fired".
        let mut alarm = Alarm::new(cmp, gt.counter()).unwrap();
        let (r, MmioStats { reads, .. }) = b.counted(|| alarm.set_deadline(100));
        assert!(r.is_ok(), "{rule:?}");
        assert_eq!(reads, 3 + 1 + 6 * eq, "{rule:?}");
        let (r, MmioStats { reads, .. }) = b.counted(|| alarm.on_interrupt());
        assert_eq!((r, reads), (Fired::Spurious, 1));
        let (r, MmioStats { reads, .. }) = b.counted(|| alarm.set_deadline(0));
        // The alarm shuts the channel down: its control read (+ the defmt flag read).
        assert_eq!(
            (r, reads),
            (Err(Error::DeadlinePassed { now: 0 }), 3 + 1 + DEFMT_READ)
        );
    }
}

#[test]
fn all_ones() {
    for rule in [CompareRule::GreaterOrEqual, CompareRule::Equal] {
        let b = bus();
        // The only configuration `new` accepts on an all-ones block: prescaler 255.
        let config = Config::new(256_000_000)
            .with_prescaler(255)
            .with_compare(rule);
        let gt = GlobalTimer::new(b.clone(), config).unwrap();
        gt.start().unwrap();
        let mut cmp = gt.comparator().unwrap();
        b.go_dead(Some(u32::MAX));
        let eq = u64::from(rule == CompareRule::Equal);

        let (v, MmioStats { reads, .. }) = b.counted(|| gt.counter().read64());
        assert_eq!((v, reads), (u64::MAX, 3));
        // The counter says 2^64 - 1: every delta would wrap. Refused, nothing written.
        let (r, MmioStats { reads, writes }) = b.counted(|| cmp.set_next_event(1));
        assert_eq!(
            (r, reads, writes),
            (Err(ConfigError::DeadlineOverflow.into()), 3, 0)
        );
        let (r, MmioStats { reads, writes }) = b.counted(|| cmp.set_periodic(1));
        assert_eq!(
            (r, reads, writes),
            (Err(ConfigError::DeadlineOverflow.into()), 3, 0)
        );
        // An absolute value is written as it is under the r2p0+ rule; under the equality
        // rule it is already passed and cannot be re-armed ahead of 2^64 - 1.
        let (r, MmioStats { reads, writes }) = b.counted(|| cmp.set_compare(5));
        if eq == 1 {
            assert_eq!(
                (r, reads, writes),
                (Err(ConfigError::DeadlineOverflow.into()), 3, 0)
            );
            cmp.set_compare(5).unwrap_err();
        } else {
            assert_eq!((r, reads, writes), (Ok(()), 1, 3));
            // The flag reads set and the counter is past 5: the oneshot fired.
            let (r, MmioStats { reads, writes }) = b.counted(|| cmp.ack());
            assert_eq!((r, reads, writes), (true, 5, 2));
            assert_eq!(cmp.mode(), Mode::Off);
        }
        // Shut down, the flag still reads set: reported (a dead block's defined value),
        // cleared (1 write), and nothing else is touched.
        let (r, MmioStats { reads, writes }) = b.counted(|| cmp.ack());
        assert_eq!((r, reads, writes), (true, 1, 1));
        let (r, MmioStats { reads, .. }) = b.counted(|| cmp.is_pending());
        assert_eq!((r, reads), (true, 1));
        let (_, MmioStats { reads, writes }) = b.counted(|| cmp.shutdown());
        assert_eq!((reads, writes), (1 + DEFMT_READ, 2));
        // Through an Alarm: every deadline is in the past of time 2^64 - 1.
        let mut alarm = Alarm::new(cmp, gt.counter()).unwrap();
        let (r, MmioStats { reads, .. }) = b.counted(|| alarm.set_deadline(100));
        // The alarm shuts the channel down: its control read (+ the defmt flag read).
        assert_eq!(
            (r, reads),
            (
                Err(Error::DeadlinePassed { now: u64::MAX }),
                3 + 1 + DEFMT_READ
            )
        );
        let (r, MmioStats { reads, .. }) = b.counted(|| alarm.on_interrupt());
        assert_eq!((r, reads), (Fired::Spurious, 1));
    }
}

#[test]
fn a_counter_that_always_runs_ahead_ends_in_a_timeout() {
    // Equality rule, and a counter that has passed every target by the time it is read
    // back (a broken block): 4 attempts, then `Timeout`, comparator left shut down.
    let clock = SimClock::new();
    let b = SimBus::new(
        &clock,
        Faults::new(GtModel::new(100_000_000, ModelRule::Equal)),
    );
    let gt = GlobalTimer::new(b.clone(), Config::qemu().with_compare(CompareRule::Equal)).unwrap();
    gt.start().unwrap();
    let mut cmp = gt.comparator().unwrap();
    let (hi, lo, status) = (
        Some(regs::GT_COUNTER1.offset()),
        Some(regs::GT_COUNTER0.offset()),
        Some(regs::GT_INT_STATUS.offset()),
    );
    // The start read, then per attempt a read-back far ahead and a clear flag.
    b.model(|m| {
        m.inject(hi, [0]);
        m.inject(lo, [1_000]);
        m.inject(hi, [0]);
        for k in 1..=4u32 {
            m.inject(hi, [0]);
            m.inject(lo, [10u32.pow(k + 4)]); // ahead of every re-target (2x per attempt)
            m.inject(hi, [0]);
            m.inject(status, [0]);
        }
    });
    let (r, MmioStats { reads, writes }) = b.counted(|| cmp.set_next_event(1_000));
    assert_eq!(r, Err(Error::Timeout));
    // Control reads (read-modify-write): the first enable, disable and enable of each of
    // the three re-arms, the final disable.
    assert_eq!(reads, 3 + 4 * (3 + 1) + (1 + 3 * 2 + 1));
    assert_eq!(writes, 3 + 3 * 4 + 1); // first arm, three re-arms, shutdown of the comparator
    assert_eq!(cmp.mode(), Mode::Off);
    assert_eq!(b.model(|m| m.pending()), 0);
    assert_eq!(
        b.model(|m| m.inner().control()) & regs::CONTROL_BANKED,
        0,
        "comparator left enabled"
    );
}
