//! No event lost under the failures a timer can give: refused programmings (the channel
//! left armed for its old deadline, or stopped), lost, doubled and late interrupts, stale
//! status, and idle longer than a wrap. The timer queue runs on a
//! [`FaultyEvent`](hwtimer_core::sim::FaultyEvent) around the simulated channel; the
//! property test drives it from random byte strings through
//! [`queue_check`](hwtimer_core::sim::queue_check), which compares it with a plain
//! reference (the same body as the queue's libFuzzer target).

use std::cell::RefCell;

use hwtimer_core::sim::scenario::IDLE_HALVES;
use hwtimer_core::sim::{
    Delivery, Faults, FaultyEvent, Irq, Refusal, SimClock, SimClockEvent, SimClockEventProbe,
    SimCounter, queue_check,
};
use hwtimer_core::{Alarm, Error, Extended, HrTimers, QueueError, Restart, TimerId};
use proptest::prelude::*;

const HZ: u32 = 3_125_000;
const MS: u64 = 3_125; // ticks
const NS_PER_TICK: u64 = 320;

type Queue = HrTimers<FaultyEvent<SimClockEvent>, Extended<SimCounter>, 4>;

/// The Otto timer's shape: a 28-bit counter at 3.125 MHz extended in software, and a 28-bit
/// event channel at the same rate, failing as the returned `Faults` say; with its clock and
/// a view of the channel.
fn otto() -> (SimClock, Faults, Queue, SimClockEventProbe) {
    let clock = SimClock::new();
    let faults = Faults::new();
    let event = SimClockEvent::new(&clock, HZ, 1, 0x0FFF_FFFF);
    let probe = event.probe();
    let time = Extended::new(SimCounter::new(&clock, 28, HZ));
    let alarm = Alarm::new(FaultyEvent::new(event, &faults), time).unwrap();
    (clock, faults, HrTimers::new(alarm), probe)
}

/// The interrupt controller on the channel's line.
fn irq<'a>(clock: &'a SimClock, faults: &'a Faults, probe: &'a SimClockEventProbe) -> Irq<'a> {
    Irq::new(clock, faults, || probe.next_fire_ns(), || probe.pending())
}

/// Run the queue's interrupts until `until_ns`, recording (slot, now) of each expiry.
fn run(
    irq: &mut Irq<'_>,
    timers: &Queue,
    until_ns: u64,
    log: &RefCell<Vec<(usize, u64)>>,
) -> Result<(), QueueError> {
    let mut result = Ok(());
    irq.run_until(until_ns, || {
        if let Err(e) = timers.on_interrupt(|id, now| {
            log.borrow_mut().push((id.index(), now));
            Restart::No
        }) {
            result = Err(e);
        }
    });
    result
}

fn ids(timers: &Queue) -> Vec<TimerId> {
    (0..4).map(|_| timers.alloc().unwrap()).collect()
}

/// A refused programming that leaves the hardware armed for the old deadline (nothing
/// written, as the `ClockEvent` contract says): when that old deadline fires, the alarm no
/// longer holds it, so its interrupt is "spurious"; the queue must still serve what is
/// due and program the rest. Before, `on_interrupt` returned `Ok(0)` and both timers stayed
/// queued with nothing armed, for ever.
#[test]
fn a_refusal_that_keeps_the_old_deadline_is_repaired_by_its_interrupt() {
    let (clock, faults, timers, probe) = otto();
    let id = ids(&timers);
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    timers.start(id[0], 10 * MS).unwrap();
    faults.refuse_next(1, Error::Busy, Refusal::KeepOld);
    assert!(matches!(
        timers.start(id[1], 5 * MS),
        Err(QueueError::Hardware(Error::Busy))
    ));
    assert!(timers.is_queued(id[1]), "a refused start stays queued");
    run(&mut irq, &timers, 30 * MS * NS_PER_TICK, &log).unwrap();
    let log = log.into_inner();
    assert_eq!(
        log.iter().map(|e| e.0).collect::<Vec<_>>(),
        [1, 0],
        "both ran, in deadline order: {log:?}"
    );
    // The late one ran at the old deadline (the only interrupt there was), never early.
    assert!(log[0].1 >= 5 * MS && log[1].1 >= 10 * MS, "{log:?}");
    assert!(!timers.needs_reprogram());
}

/// A refusal after the channel was stopped (the MCT disables its comparator before the
/// write that times out): the queue must not believe the earlier deadline is still armed.
/// Before, a later `cancel` of the refused timer found "already armed" and programmed
/// nothing, so the earlier timer never ran.
#[test]
fn a_refusal_that_disarmed_the_channel_is_reprogrammed_by_the_next_operation() {
    let (clock, faults, timers, probe) = otto();
    let id = ids(&timers);
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    timers.start(id[0], 10 * MS).unwrap();
    faults.refuse_next(1, Error::Timeout, Refusal::Disarm);
    assert!(timers.start(id[1], 5 * MS).is_err());
    assert!(timers.needs_reprogram());
    assert_eq!(timers.try_cancel(id[1]), Ok(true));
    run(&mut irq, &timers, 30 * MS * NS_PER_TICK, &log).unwrap();
    let log = log.into_inner();
    assert_eq!(log.len(), 1, "the earlier timer ran: {log:?}");
    assert!(
        log[0].0 == 0 && (10 * MS..11 * MS).contains(&log[0].1),
        "{log:?}"
    );
}

/// Refused again and again, then the failures stop: the error names the recovery call,
/// and after it the timer runs at its deadline.
#[test]
fn after_repeated_refusals_the_recovery_call_arms_the_queue() {
    let (clock, faults, timers, probe) = otto();
    let id = ids(&timers);
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    faults.refuse_next(3, Error::Timeout, Refusal::Disarm);
    assert!(timers.start(id[0], 10 * MS).is_err());
    assert!(timers.reprogram().is_err());
    assert!(timers.reprogram().is_err());
    faults.stop();
    timers.reprogram().unwrap();
    run(&mut irq, &timers, 30 * MS * NS_PER_TICK, &log).unwrap();
    assert_eq!(log.borrow().len(), 1);
    assert!((10 * MS..11 * MS).contains(&log.borrow()[0].1));
}

/// A re-arm refused inside the interrupt (a step of a long wait) is reported by
/// `on_interrupt`, and `reprogram` then arms the rest of the wait.
#[test]
fn a_refused_rearm_in_the_interrupt_is_reported_and_recovered() {
    let (clock, faults, timers, probe) = otto();
    let id = ids(&timers);
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    timers.start(id[0], 10 * MS).unwrap();
    timers.start(id[1], 20 * MS).unwrap();
    faults.refuse_next(2, Error::Timeout, Refusal::Disarm);
    let r = run(&mut irq, &timers, 15 * MS * NS_PER_TICK, &log);
    assert!(matches!(r, Err(QueueError::Hardware(_))), "{r:?}");
    assert_eq!(log.borrow().len(), 1);
    faults.stop();
    timers.reprogram().unwrap();
    run(&mut irq, &timers, 30 * MS * NS_PER_TICK, &log).unwrap();
    assert_eq!(log.borrow().len(), 2);
    assert!((20 * MS..21 * MS).contains(&log.borrow()[1].1));
}

/// Lost, doubled and late interrupts and a stale status: no timer runs early, none twice,
/// and a dropped interrupt is served once the failures stop.
#[test]
fn lost_doubled_late_and_stale_interrupts_run_every_timer_once_never_early() {
    let (clock, faults, timers, probe) = otto();
    let id = ids(&timers);
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    for (k, &t) in id.iter().enumerate() {
        timers.start(t, (k as u64 + 1) * 10 * MS).unwrap();
    }
    faults
        .deliveries([Delivery::Double, Delivery::Late(3_000_000), Delivery::Drop])
        .stale_ack();
    run(&mut irq, &timers, 45 * MS * NS_PER_TICK, &log).unwrap();
    let ran: Vec<usize> = log.borrow().iter().map(|e| e.0).collect();
    assert!(
        ran.len() < 4,
        "the dropped interrupt held the rest back: {ran:?}"
    );
    faults.stop();
    run(&mut irq, &timers, 60 * MS * NS_PER_TICK, &log).unwrap();
    let log = log.into_inner();
    assert_eq!(log.iter().map(|e| e.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
    for &(slot, now) in &log {
        assert!(now >= (slot as u64 + 1) * 10 * MS, "early: {log:?}");
    }
}

/// Idle for 0.5, 1, 2 and 10 wraps after the queue emptied, on the narrowest time bases:
/// the time is right and a 1 s timer runs 1 s later. Before, the queue stopped its channel
/// when it emptied, nothing read the counter, and after half a wrap `extend` took the
/// counter for a stale value (Otto, 60 s idle: a 1 s timer ran after 26.9 s).
#[test]
fn idle_of_up_to_ten_wraps_keeps_the_time_and_the_deadlines() {
    for base in queue_check::BASES {
        // A 64-bit counter does not wrap: idle a long time anyway (1 hour).
        let wrap_ns = base.wrap_ns();
        for halves in IDLE_HALVES {
            let clock = SimClock::new();
            let faults = Faults::new();
            let (event, time) = base.channel(&clock);
            let probe = event.probe();
            let timers: HrTimers<_, _, 2> =
                HrTimers::new(Alarm::new(FaultyEvent::new(event, &faults), time).unwrap());
            let id = timers.alloc().unwrap();
            let fired = RefCell::new(Vec::new());
            let mut irq = irq(&clock, &faults, &probe);
            let mut isr = || {
                timers
                    .on_interrupt(|_, now| {
                        fired.borrow_mut().push((now, clock.now_ns()));
                        Restart::No
                    })
                    .unwrap();
            };
            // A first timer, so the queue has run and emptied.
            timers.start_after(id, u64::from(base.hz) / 1000).unwrap();
            irq.run_until(2_000_000, &mut isr);
            assert_eq!(fired.borrow().len(), 1);
            let idle_ns = wrap_ns / 2 * halves;
            irq.run_until(2_000_000 + idle_ns, &mut isr);
            let truth = (u128::from(clock.now_ns()) * u128::from(base.hz) / 1_000_000_000) as u64;
            let now = timers.now().unwrap();
            assert!(
                now <= truth && truth - now <= u64::from(base.hz) / 1_000_000 + 2,
                "{base:?} after {halves}/2 wraps: time base {now}, virtual {truth}"
            );
            let start_ns = clock.now_ns();
            timers.start_after(id, u64::from(base.hz)).unwrap();
            irq.run_until(start_ns + 3_000_000_000, &mut isr);
            let fired = fired.borrow();
            assert_eq!(fired.len(), 2, "{base:?} after {halves}/2 wraps");
            let woke_after = fired[1].1 - start_ns;
            assert!(
                (1_000_000_000..1_001_000_000).contains(&woke_after),
                "{base:?} after {halves}/2 wraps: a 1 s timer ran after {woke_after} ns"
            );
        }
    }
}

/// A sleep dropped (or completed) while the next programming would be refused with the
/// channel stopped: the removal programs nothing, so no refusal is met on a path that could
/// not report it, and the callback timer behind the sleep runs at its deadline. Before, the
/// drop's programming was refused, the error dropped, and the callback timer never ran.
#[test]
fn a_sleep_dropped_under_a_refusal_does_not_strand_a_callback_timer() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    for complete in [false, true] {
        let (clock, faults, timers, probe) = otto();
        let c = timers.alloc().unwrap();
        let log = RefCell::new(Vec::new());
        let mut irq = irq(&clock, &faults, &probe);
        timers.start(c, 10 * MS).unwrap();
        let mut cx = Context::from_waker(Waker::noop());
        let mut s = Box::pin(timers.sleep_until(5 * MS));
        assert_eq!(s.as_mut().poll(&mut cx), Poll::Pending);
        if complete {
            // Polled once its deadline passed, before its interrupt was taken.
            clock.advance_to(6 * MS * NS_PER_TICK);
            faults.refuse_next(1, Error::Timeout, Refusal::Disarm);
            assert_eq!(s.as_mut().poll(&mut cx), Poll::Ready(()));
        } else {
            clock.advance_to(MS * NS_PER_TICK);
            faults.refuse_next(1, Error::Timeout, Refusal::Disarm);
        }
        drop(s);
        faults.stop();
        run(&mut irq, &timers, 100 * MS * NS_PER_TICK, &log).unwrap();
        let log = log.into_inner();
        assert_eq!(
            log.len(),
            1,
            "complete={complete}: the callback timer ran: {log:?}"
        );
        assert!((10 * MS..11 * MS).contains(&log[0].1), "{log:?}");
        assert!(!timers.needs_reprogram());
    }
}

/// Freeing a stale id (its slot freed and taken by a sleep since) leaves the sleep alone:
/// its waker is still woken at its deadline. Before, `free` cleared the slot's waker
/// whatever the id's generation, and the sleeping task was never woken.
#[test]
fn freeing_a_stale_id_keeps_the_newer_sleeps_waker() {
    use std::future::Future;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let (clock, faults, timers, probe) = otto();
    let stale = timers.alloc().unwrap();
    timers.free(stale).unwrap();
    let woken = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(woken.clone());
    let mut cx = Context::from_waker(&waker);
    let mut s = Box::pin(timers.sleep_until(5 * MS));
    assert_eq!(s.as_mut().poll(&mut cx), Poll::Pending);
    timers.free(stale).unwrap();
    let log = RefCell::new(Vec::new());
    let mut irq = irq(&clock, &faults, &probe);
    run(&mut irq, &timers, 20 * MS * NS_PER_TICK, &log).unwrap();
    assert_eq!(
        woken.0.load(Ordering::SeqCst),
        1,
        "the sleep's task was woken"
    );
    assert_eq!(s.as_mut().poll(&mut cx), Poll::Ready(()));
}

proptest! {
    // Regressions in `<this file>.proptest-regressions` beside it (proptest's default looks in
    // tests/proptest-regressions/ once the binary has a main.rs).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::with_cases(hwtimer_core::sim::proptest_cases(400))
    })]

    /// Random operations with random failures against the reference: every timer queued
    /// when the failures stop runs, on time and never early (see `queue_check`).
    #[test]
    fn the_queue_under_failures_agrees_with_the_reference(
        data in proptest::collection::vec(any::<u8>(), 0..160)
    ) {
        if let Err(e) = queue_check::run(&data) {
            return Err(TestCaseError::fail(e));
        }
    }
}
