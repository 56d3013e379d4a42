//! Property tests: arbitrary inputs never panic, time never goes backwards, programmed
//! deltas always stay in range, and the queue agrees with a reference model.

use hwtimer_core::extend::extend;
use hwtimer_core::sim::{SimClock, SimClockEvent, SimCounter};
use hwtimer_core::time::counter_mask;
use hwtimer_core::{
    Alarm, Error, Extended, Fired, HrTimers, Monotonic, Restart, TimerId, TimerQueue,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// One operation on a [`TimerQueue`], on slot `slot % N`.
#[derive(Debug, Clone, Copy)]
enum QueueOp {
    Start(usize, u64),
    Restart(usize, u64),
    Cancel(usize),
    /// Pop everything due at this time.
    Expire(u64),
    /// Free the slot, then allocate one (the freed one, the only free slot).
    Realloc(usize),
}

/// Mostly restarts and cancels (the coalescing timer's pattern), some starts, few expiries.
fn churn() -> impl Strategy<Value = QueueOp> {
    prop_oneof![
        2 => (any::<usize>(), 0u64..1000).prop_map(|(s, t)| QueueOp::Start(s, t)),
        5 => (any::<usize>(), 0u64..1000).prop_map(|(s, t)| QueueOp::Restart(s, t)),
        4 => any::<usize>().prop_map(QueueOp::Cancel),
        1 => (0u64..1000).prop_map(QueueOp::Expire),
        1 => any::<usize>().prop_map(QueueOp::Realloc),
    ]
}

/// Run `ops` on a full `TimerQueue<N>` and on a plain list; they must agree after every
/// operation (results, order of expiry with FIFO ties, deadlines, length).
fn queue_agrees_with_model<const N: usize>(ops: &[QueueOp]) -> Result<(), TestCaseError> {
    let mut q: TimerQueue<N> = TimerQueue::new();
    let mut ids: Vec<TimerId> = (0..N).map(|_| q.alloc().unwrap()).collect();
    prop_assert!(q.alloc().is_err());
    // Reference: per slot, Some((deadline, start order)).
    let mut model: Vec<Option<(u64, u64)>> = vec![None; N];
    let mut seq = 0u64;
    for op in ops {
        match *op {
            QueueOp::Start(slot, t) => {
                let slot = slot % N;
                let r = q.start(ids[slot], t);
                if model[slot].is_some() {
                    prop_assert!(r.is_err());
                } else {
                    prop_assert!(r.is_ok());
                    model[slot] = Some((t, seq));
                    seq += 1;
                }
            }
            QueueOp::Restart(slot, t) => {
                let slot = slot % N;
                q.restart(ids[slot], t).unwrap();
                model[slot] = Some((t, seq));
                seq += 1;
            }
            QueueOp::Cancel(slot) => {
                let slot = slot % N;
                prop_assert_eq!(q.cancel(ids[slot]), model[slot].take().is_some());
            }
            QueueOp::Expire(t) => {
                // Expire everything due at `t`, in (deadline, start order).
                let mut due: Vec<(u64, u64, usize)> = model
                    .iter()
                    .enumerate()
                    .filter_map(|(i, m)| m.filter(|(d, _)| *d <= t).map(|(d, s)| (d, s, i)))
                    .collect();
                due.sort();
                for (d, _, i) in due {
                    prop_assert_eq!(q.pop_expired(t), Some((ids[i], d)));
                    model[i] = None;
                }
                prop_assert_eq!(q.pop_expired(t), None);
            }
            QueueOp::Realloc(slot) => {
                let slot = slot % N;
                let old = ids[slot];
                q.free(old);
                prop_assert_eq!(q.start(old, 1), Err(hwtimer_core::QueueError::InvalidId));
                prop_assert!(!q.is_queued(old));
                ids[slot] = q.alloc().unwrap();
                prop_assert_eq!(ids[slot].index(), old.index(), "the only free slot");
                prop_assert!(ids[slot] != old, "a new generation");
                prop_assert!(!q.is_queued(ids[slot]));
                prop_assert_eq!(q.start(old, 1), Err(hwtimer_core::QueueError::InvalidId));
                model[slot] = None;
            }
        }
        let want = model.iter().filter_map(|m| m.map(|(d, _)| d)).min();
        prop_assert_eq!(q.next_deadline(), want);
        prop_assert_eq!(q.len(), model.iter().filter(|m| m.is_some()).count());
        prop_assert_eq!(q.is_empty(), want.is_none());
        for (slot, m) in model.iter().enumerate() {
            prop_assert_eq!(q.deadline(ids[slot]), m.map(|(d, _)| d));
        }
    }
    // Drain: every queued timer comes out, in order.
    let mut left: Vec<(u64, u64, usize)> = model
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.map(|(d, s)| (d, s, i)))
        .collect();
    left.sort();
    for (d, _, i) in left {
        prop_assert_eq!(q.pop_expired(u64::MAX), Some((ids[i], d)));
    }
    prop_assert!(q.is_empty());
    Ok(())
}

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it (proptest's default looks in
    // tests/proptest-regressions/ once the binary has a main.rs).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(300))
    })]

    /// Any sequence of raw values, at any width: the extended time never decreases, and a
    /// forward step of at most half a wrap is counted exactly.
    #[test]
    fn extension_is_monotonic_for_any_raw_sequence(
        bits in prop::sample::select(vec![16u32, 28, 32, 48, 64]),
        raws in prop::collection::vec(any::<u64>(), 1..200),
    ) {
        let mask = counter_mask(bits);
        let mut last = raws[0] & mask;
        for raw in raws {
            let next = extend(last, raw, bits);
            prop_assert!(next >= last);
            let step = (raw & mask).wrapping_sub(last) & mask;
            if step <= (mask >> 1) + 1 {
                prop_assert_eq!(next, last.saturating_add(step));
            }
            last = next;
        }
    }

    /// Any deadline against any event limits: never panics, a past deadline is reported,
    /// a programmed delta is inside [min, max], and the interrupt path never reports a
    /// deadline before it is reached.
    #[test]
    fn alarm_programs_in_range_and_never_fires_early(
        min in 1u64..2000,
        span in 0u64..100_000,
        start_ns in 0u64..10_000_000,
        offset in -1_000i64..200_000,
        phase in 0u64..10,
    ) {
        let max = min + span;
        let clock = SimClock::new();
        clock.advance(start_ns);
        let counter = SimCounter::new(&clock, 32, 100_000_000).with_read_cost(3);
        let time = Extended::new(&counter);
        let event = SimClockEvent::new(&clock, 100_000_000, min, max).with_phase_ns(phase);
        let probe = event.probe();
        let mut alarm = Alarm::new(event, &time).unwrap();
        let now = time.now();
        let deadline = now.saturating_add_signed(offset);
        match alarm.set_deadline(deadline) {
            Err(Error::DeadlinePassed { now: seen }) => prop_assert!(deadline <= seen),
            Err(e) => prop_assert!(false, "unexpected {:?}", e),
            Ok(plan) => {
                prop_assert!((min..=max).contains(&plan.delta));
                prop_assert_eq!(probe.last_delta(), Some(plan.delta));
                for _ in 0..10_000 {
                    prop_assert!(probe.advance_to_fire().is_some());
                    match alarm.on_interrupt() {
                        Fired::Deadline { deadline: d, now } => {
                            prop_assert!(now >= d);
                            break;
                        }
                        Fired::Rearmed { .. } => {
                            prop_assert!((min..=max).contains(&probe.last_delta().unwrap()));
                        }
                        other => prop_assert!(false, "unexpected {:?}", other),
                    }
                }
            }
        }
    }

    /// Random start/restart/cancel/expire operations agree with a plain list.
    #[test]
    fn queue_matches_a_reference_model(
        ops in prop::collection::vec((0u8..4, 0usize..6, 0u64..1000), 1..200),
    ) {
        let mut q: TimerQueue<6> = TimerQueue::new();
        let ids: Vec<_> = (0..6).map(|_| q.alloc().unwrap()).collect();
        // Reference: per slot, Some((deadline, start order)).
        let mut model: Vec<Option<(u64, u64)>> = vec![None; 6];
        let mut seq = 0u64;
        for (op, slot, t) in ops {
            let id = ids[slot];
            match op {
                0 => {
                    let r = q.start(id, t);
                    if model[slot].is_some() {
                        prop_assert!(r.is_err());
                    } else {
                        prop_assert!(r.is_ok());
                        model[slot] = Some((t, seq));
                        seq += 1;
                    }
                }
                1 => {
                    q.restart(id, t).unwrap();
                    model[slot] = Some((t, seq));
                    seq += 1;
                }
                2 => {
                    prop_assert_eq!(q.cancel(id), model[slot].take().is_some());
                }
                _ => {
                    // Expire everything due at `t`, in (deadline, start order).
                    let mut due: Vec<(u64, u64, usize)> = model
                        .iter()
                        .enumerate()
                        .filter_map(|(i, m)| m.filter(|(d, _)| *d <= t).map(|(d, s)| (d, s, i)))
                        .collect();
                    due.sort();
                    for (d, _, i) in due {
                        prop_assert_eq!(q.pop_expired(t), Some((ids[i], d)));
                        model[i] = None;
                    }
                    prop_assert_eq!(q.pop_expired(t), None);
                }
            }
            let want = model.iter().filter_map(|m| m.map(|(d, _)| d)).min();
            prop_assert_eq!(q.next_deadline(), want);
            prop_assert_eq!(q.len(), model.iter().filter(|m| m.is_some()).count());
        }
    }

    /// Cancel/restart-heavy sequences, with frees and re-allocations, at capacities 1, 2,
    /// 16 and 257 (a heap one entry past a full level), against the reference model.
    #[test]
    fn queue_matches_a_reference_model_under_cancel_restart_churn(
        ops in prop::collection::vec(churn(), 1..400),
    ) {
        queue_agrees_with_model::<1>(&ops)?;
        queue_agrees_with_model::<2>(&ops)?;
        queue_agrees_with_model::<16>(&ops)?;
        queue_agrees_with_model::<257>(&ops)?;
    }

    /// `HrTimers` on a simulated clockevent, timers started, restarted and cancelled at
    /// random between interrupts, callbacks cancelling other timers and re-queueing
    /// themselves: every queued timer runs exactly once per start, never early, each
    /// interrupt's expiries in deadline order, and the hardware is armed exactly while a
    /// timer is queued.
    #[test]
    fn hrtimers_run_each_start_once_in_order_never_early(
        steps in prop::collection::vec((0u8..4, 0usize..24, 0u64..5_000), 1..150),
        requeue in 0u64..3,
    ) {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 64, 100_000_000).with_read_cost(3);
        let time = Extended::new(&counter);
        let event = SimClockEvent::new(&clock, 100_000_000, 10, 1 << 40);
        let probe = event.probe();
        let timers: HrTimers<_, _, 24> = HrTimers::new(Alarm::new(event, &time).unwrap());
        let ids: Vec<TimerId> = (0..24).map(|_| timers.alloc().unwrap()).collect();
        // Reference: the deadline each slot is queued for.
        let mut model: Vec<Option<u64>> = vec![None; 24];
        for (op, slot, t) in steps {
            let now = timers.now().unwrap();
            match op {
                0 => {
                    let r = timers.start(ids[slot], now + t);
                    prop_assert_eq!(r.is_ok(), model[slot].is_none());
                    model[slot].get_or_insert(now + t);
                }
                1 => {
                    timers.restart(ids[slot], now + t).unwrap();
                    model[slot] = Some(now + t);
                }
                2 => prop_assert_eq!(timers.cancel(ids[slot]), model[slot].take().is_some()),
                _ => {
                    if probe.advance_to_fire().is_none() {
                        prop_assert!(model.iter().all(Option::is_none));
                        continue;
                    }
                    // Timers queued before this call run in deadline order, across all its
                    // rounds; the ones re-queued during it are served after them.
                    let mut requeued = [false; 24];
                    let mut old_deadlines: Vec<u64> = Vec::new();
                    let mut ran = 0usize;
                    let served = timers.on_interrupt(|id, at| {
                        let slot = id.index();
                        let deadline = model[slot].take().expect("ran while not queued");
                        assert!(at >= deadline, "timer {slot} ran at {at}, deadline {deadline}");
                        ran += 1;
                        if !requeued[slot] {
                            old_deadlines.push(deadline);
                        }
                        // Every third slot cancels its neighbour (which must not run then).
                        if slot % 3 == 0 && timers.cancel(ids[(slot + 1) % 24]) {
                            model[(slot + 1) % 24] = None;
                        }
                        // Some re-queue themselves `requeue` ticks after their deadline:
                        // possibly already due, served by a later round or interrupt.
                        if slot % 4 == 1 {
                            let next = deadline + requeue;
                            model[slot] = Some(next);
                            requeued[slot] = true;
                            return Restart::At(next);
                        }
                        Restart::No
                    }).unwrap();
                    prop_assert_eq!(served, ran);
                    // An interrupt may serve nothing: a removal leaves the deadline it had
                    // armed (its interrupt then programs the next one).
                    prop_assert!(
                        old_deadlines.windows(2).all(|w| w[0] <= w[1]),
                        "out of order: {:?}", old_deadlines
                    );
                }
            }
            // Never queued with nothing armed, and never armed later than the earliest
            // deadline (10 ns per tick; a deadline already passed is armed `min_delta`, 10
            // ticks, from the last programming, plus a read). With nothing queued the
            // hardware may hold a removed timer's deadline or the keep-alive.
            let earliest = model.iter().flatten().min().copied();
            if let Some(at) = earliest {
                let fire = probe.next_fire_ns();
                prop_assert!(fire.is_some(), "queued with nothing armed");
                let due_ns = (at * 10).max(clock.now_ns()) + 200;
                prop_assert!(
                    fire.is_some_and(|f| f <= due_ns),
                    "armed for {:?} ns, earliest deadline {} ns", fire, at * 10
                );
            }
            prop_assert_eq!(timers.next_deadline(), earliest);
        }
    }
}
