//! Property tests: arbitrary inputs never panic, time never goes backwards, programmed
//! deltas always stay in range, and the queue agrees with a reference model.

use hwtimer_core::extend::extend;
use hwtimer_core::sim::{SimClock, SimClockEvent, SimCounter};
use hwtimer_core::time::counter_mask;
use hwtimer_core::{Alarm, Error, Extended, Fired, Monotonic, TimerQueue};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(300)))]

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
}
