//! The software timer queue on a simulated clockevent: ordering, cancel, restart, the
//! "one interrupt serves every timer in the clamp window" property, and async delays
//! completing in virtual time.

use embedded_hal_async::delay::DelayNs;
use hwtimer_core::sim::{SimClock, SimClockEvent, SimClockEventProbe, SimCounter, run_virtual};
use hwtimer_core::{
    Alarm, AsyncDelay, Extended, HrTimers, Monotonic, QueueError, Restart, TimerId,
};

const HZ: u32 = 100_000_000; // 10 ns per tick

struct Rig {
    clock: SimClock,
    time: &'static Extended<SimCounter>,
    probe: SimClockEventProbe,
}

fn rig(min_delta: u64) -> (Rig, SimClockEvent) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, HZ).with_read_cost(5);
    let time: &'static Extended<SimCounter> = Box::leak(Box::new(Extended::new(counter)));
    let event = SimClockEvent::new(&clock, HZ, min_delta, (1 << 48) - 1);
    let probe = event.probe();
    (Rig { clock, time, probe }, event)
}

type Timers<const N: usize> = HrTimers<SimClockEvent, &'static Extended<SimCounter>, N>;

fn timers<const N: usize>(min_delta: u64) -> (Rig, Timers<N>) {
    let (rig, event) = rig(min_delta);
    let alarm = Alarm::new(event, rig.time).unwrap();
    (rig, HrTimers::new(alarm))
}

/// Fire interrupts until the queue is idle; returns (id, ran_at) per expiry.
fn drain<const N: usize>(rig: &Rig, t: &Timers<N>) -> Vec<(TimerId, u64)> {
    let mut log = Vec::new();
    while rig.probe.advance_to_fire().is_some() {
        t.on_interrupt(|id, now| {
            log.push((id, now));
            Restart::No
        })
        .unwrap();
    }
    log
}

#[test]
fn timers_run_in_deadline_order_never_early() {
    let (rig, t) = timers::<8>(10);
    let base = t.now().unwrap();
    let deadlines = [5_000u64, 1_000, 3_000, 1_000, 7_000, 2_000];
    let ids: Vec<TimerId> = deadlines
        .iter()
        .map(|d| {
            let id = t.alloc().unwrap();
            t.start(id, base + d).unwrap();
            id
        })
        .collect();
    let log = drain(&rig, &t);
    let order: Vec<usize> = log.iter().map(|(id, _)| id.index()).collect();
    assert_eq!(
        order,
        vec![1, 3, 5, 2, 0, 4],
        "deadline order, ties in start order"
    );
    for (id, ran_at) in &log {
        let d = base + deadlines[ids.iter().position(|x| x == id).unwrap()];
        assert!(*ran_at >= d, "timer {} ran early", id.index());
        assert!(
            *ran_at <= d + 20,
            "timer {} ran {} ticks late",
            id.index(),
            ran_at - d
        );
    }
    assert_eq!(
        rig.probe.next_fire_ns(),
        None,
        "idle queue leaves the event shut down"
    );
}

/// A cancel dequeues and programs nothing: the hardware keeps the cancelled deadline, whose
/// interrupt finds nothing due and programs the next one. Only the timers still queued run.
#[test]
fn cancel_dequeues_and_the_cancelled_deadline_reprograms_from_its_interrupt() {
    let (rig, t) = timers::<4>(10);
    let base = t.now().unwrap();
    let a = t.alloc().unwrap();
    let b = t.alloc().unwrap();
    t.start(a, base + 1_000).unwrap();
    t.start(b, base + 5_000).unwrap();
    let first_fire = rig.probe.next_fire_ns().unwrap();
    let programs = rig.probe.programs();
    assert!(t.cancel(a));
    assert!(!t.cancel(a), "cancelling twice reports not queued");
    assert!(!t.is_queued(a));
    assert_eq!(rig.probe.programs(), programs, "a cancel programs nothing");
    assert_eq!(rig.probe.next_fire_ns(), Some(first_fire));
    rig.probe.advance_to_fire();
    assert_eq!(
        t.on_interrupt(|_, _| Restart::No),
        Ok(0),
        "nothing due at a's deadline"
    );
    assert!(
        rig.probe.next_fire_ns().unwrap() > first_fire + 3_000 * 10,
        "re-armed for b"
    );
    let log = drain(&rig, &t);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].0, b);
    assert!(!t.cancel(b), "already expired");
}

#[test]
fn start_refuses_a_queued_timer_and_restart_moves_it() {
    let (rig, t) = timers::<2>(10);
    let base = t.now().unwrap();
    let a = t.alloc().unwrap();
    t.start(a, base + 10_000).unwrap();
    assert_eq!(t.start(a, base + 100), Err(QueueError::AlreadyQueued));
    assert_eq!(t.deadline(a), Some(base + 10_000));
    t.restart(a, base + 2_000).unwrap();
    assert_eq!(t.deadline(a), Some(base + 2_000));
    let log = drain(&rig, &t);
    assert_eq!(log.len(), 1);
    assert!((base + 2_000..base + 2_100).contains(&log[0].1));
}

#[test]
fn callbacks_can_restart_themselves_periodically() {
    let (rig, t) = timers::<2>(10);
    let a = t.alloc().unwrap();
    let period = 1_000;
    let base = t.now().unwrap();
    t.start(a, base + period).unwrap();
    let mut runs = Vec::new();
    for _ in 0..5 {
        rig.probe.advance_to_fire().unwrap();
        t.on_interrupt(|_, now| {
            runs.push(now);
            Restart::At(base + period * (runs.len() as u64 + 1))
        })
        .unwrap();
    }
    assert_eq!(runs.len(), 5);
    for (k, now) in runs.iter().enumerate() {
        let d = base + period * (k as u64 + 1);
        assert!(*now >= d && *now < d + 20, "run {k} at {now}, deadline {d}");
    }
    assert!(t.is_queued(a));
}

#[test]
fn timers_inside_the_clamp_window_are_all_served_by_one_interrupt() {
    // LoongArch seed: min_delta 0x600. Timers due within that window of each other
    // cannot get their own interrupt; they must all run from the one that comes.
    let (rig, t) = timers::<8>(0x600);
    let base = t.now().unwrap();
    for k in 0..5u64 {
        let id = t.alloc().unwrap();
        t.start(id, base + 100 + k * 200).unwrap();
    }
    rig.probe.advance_to_fire().unwrap();
    let mut n = 0;
    let served = t
        .on_interrupt(|_, _| {
            n += 1;
            Restart::No
        })
        .unwrap();
    assert_eq!((served, n), (5, 5));
    assert_eq!(rig.probe.acks(), 1, "one interrupt");
    assert!(
        t.now().unwrap() >= base + 0x600,
        "served at the clamp, late not early"
    );
}

#[test]
fn a_timer_started_in_the_past_runs_from_the_next_interrupt() {
    let (rig, t) = timers::<2>(10);
    rig.clock.advance(1_000_000);
    let a = t.alloc().unwrap();
    t.start(a, 5).unwrap();
    let fire = rig.probe.next_fire_ns().expect("armed with min_delta");
    assert!(fire <= rig.clock.now_ns() + 11 * 10);
    assert_eq!(drain(&rig, &t).len(), 1);
}

#[test]
fn capacity_is_fixed() {
    let (_rig, t) = timers::<2>(10);
    let a = t.alloc().unwrap();
    let _b = t.alloc().unwrap();
    assert_eq!(t.alloc(), Err(QueueError::Full));
    t.free(a).unwrap();
    assert!(t.alloc().is_ok());
}

#[test]
fn async_delay_completes_in_virtual_time_never_early() {
    let (rig, t) = timers::<4>(10);
    let t0 = rig.clock.now_ns();
    let out = run_virtual(
        async {
            let mut d = AsyncDelay::new(&t);
            let mut stamps = Vec::new();
            for us in [10u32, 1, 250] {
                let s = rig.time.now();
                d.delay_us(us).await;
                stamps.push((us, rig.time.now() - s));
            }
            d.delay_ms(3).await;
            stamps
        },
        &rig.probe,
        100,
        || {
            t.on_interrupt(|_, _| Restart::No).unwrap();
        },
    )
    .expect("completes");
    for (us, ticks) in out {
        let want = u64::from(us) * 100; // ticks at 100 MHz
        assert!(ticks >= want, "{us} µs took {ticks} ticks");
        assert!(ticks <= want + 12, "{us} µs took {ticks} ticks");
    }
    let total = rig.clock.now_ns() - t0;
    assert!(
        (3_261_000..3_270_000).contains(&total),
        "{total} ns of virtual time"
    );
    assert_eq!(rig.probe.next_fire_ns(), None);
}

#[test]
fn dropping_a_sleep_cancels_it() {
    use core::future::Future;
    use core::task::{Context, Poll, Waker};
    let (rig, t) = timers::<1>(10);
    {
        let mut s = Box::pin(t.sleep_until(t.now().unwrap() + 1_000));
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(s.as_mut().poll(&mut cx), Poll::Pending);
        assert!(rig.probe.next_fire_ns().is_some());
        assert_eq!(
            t.alloc(),
            Err(QueueError::Full),
            "the sleep holds the only slot"
        );
    }
    assert!(t.alloc().is_ok(), "slot freed");
    // The dropped sleep's deadline is still armed; its interrupt finds nothing due and
    // leaves the idle state (the 64-bit time base needs no keep-alive: stopped).
    assert!(rig.probe.advance_to_fire().is_some());
    assert_eq!(t.on_interrupt(|_, _| Restart::No), Ok(0));
    assert_eq!(rig.probe.next_fire_ns(), None, "idle: hardware stopped");
}

#[test]
fn sleep_still_completes_when_the_queue_is_full() {
    let (rig, t) = timers::<1>(10);
    let _hog = t.alloc().unwrap();
    let start = rig.time.now();
    let done = run_virtual(t.sleep_until(start + 500), &rig.probe, 10, || {});
    assert_eq!(done, Some(()));
    assert!(rig.time.now() >= start + 500);
}

#[test]
fn a_callback_requeueing_into_the_past_cannot_hang_the_interrupt() {
    let (rig, t) = timers::<2>(10);
    let a = t.alloc().unwrap();
    let base = t.now().unwrap();
    t.start(a, base + 100).unwrap();
    rig.probe.advance_to_fire().unwrap();
    let mut runs = 0;
    let served = t
        .on_interrupt(|_, _| {
            runs += 1;
            Restart::At(0) // always already expired
        })
        .unwrap();
    assert_eq!(
        served,
        hwtimer_core::MAX_EXPIRY_ROUNDS as usize,
        "bounded rounds"
    );
    assert_eq!(runs, served);
    assert!(t.is_queued(a), "still queued, for the next interrupt");
    let fire = rig.probe.next_fire_ns().expect("armed at min_delta");
    assert!(fire <= rig.clock.now_ns() + 11 * 10);
}

#[test]
fn sleep_takes_a_fugit_duration() {
    let (rig, t) = timers::<2>(10);
    let start = rig.time.now();
    let done = run_virtual(
        t.sleep(fugit::MillisDurationU32::from_ticks(2)),
        &rig.probe,
        10,
        || {
            t.on_interrupt(|_, _| Restart::No).unwrap();
        },
    );
    assert_eq!(done, Some(()));
    let took = rig.time.now() - start;
    assert!(
        (200_000..200_020).contains(&took),
        "{took} ticks for 2 ms at 100 MHz"
    );
}

#[test]
fn expiry_takes_due_timers_in_bounded_batches_outside_the_lock() {
    // 40 timers due at once. The first callback cancels the 30th: that timer is still in
    // the queue (expiry takes EXPIRY_BATCH at a time, not all 40 in one critical section),
    // so the cancel finds it, and it never runs.
    let (rig, t) = timers::<64>(10);
    let base = t.now().unwrap();
    let ids: Vec<TimerId> = (0..40u64)
        .map(|k| {
            let id = t.alloc().unwrap();
            t.start(id, base + 100 + k).unwrap();
            id
        })
        .collect();
    rig.probe.advance_to_fire().unwrap();
    rig.clock.advance(1_000); // everything is due
    let mut ran = Vec::new();
    let mut cancelled = None;
    let served = t
        .on_interrupt(|id, _| {
            if ran.is_empty() {
                cancelled = Some(t.cancel(ids[29]));
            }
            ran.push(id);
            Restart::No
        })
        .unwrap();
    const { assert!(hwtimer_core::queue::EXPIRY_BATCH < 29) };
    assert_eq!(cancelled, Some(true), "the 30th timer was still queued");
    let want: Vec<TimerId> = ids.iter().copied().filter(|id| *id != ids[29]).collect();
    assert_eq!(ran, want, "the others, in deadline order");
    assert_eq!(served, 39);
    assert_eq!(rig.probe.next_fire_ns(), None, "idle");
}

#[test]
fn a_timer_started_by_a_callback_into_the_past_runs_in_the_next_round() {
    // The callback of `a` starts `b` at a deadline already passed. `b` was started during
    // the round, so that round does not run it (`c`, due too, was taken with `a`); the next
    // round of the same interrupt does.
    let (rig, t) = timers::<4>(10);
    let base = t.now().unwrap();
    let [a, b, c] = [(); 3].map(|_| t.alloc().unwrap());
    t.start(a, base + 100).unwrap();
    t.start(c, base + 300).unwrap();
    rig.probe.advance_to_fire().unwrap();
    rig.clock.advance(5_000);
    let mut ran = Vec::new();
    let served = t
        .on_interrupt(|id, _| {
            if id == a {
                t.start(b, base + 200).unwrap();
            }
            ran.push(id);
            Restart::No
        })
        .unwrap();
    assert_eq!(ran, vec![a, c, b]);
    assert_eq!(served, 3);
    assert_eq!(rig.probe.next_fire_ns(), None);
}

#[test]
fn a_deadline_passed_while_the_callbacks_ran_is_served_by_the_same_interrupt() {
    // The module docs: when a round ends with the next deadline already passed, another
    // round starts in the same call. Here `a`'s callback runs long enough (the clock
    // moves on inside it) for `b`'s deadline to pass, and touches nothing in the queue:
    // `b` must still run from this interrupt, not wait for another one. (Arming `b` before
    // the callbacks ran and skipping the check after them would pass every other test
    // here and fail this one.)
    let (rig, t) = timers::<4>(10);
    let base = t.now().unwrap();
    let [a, b] = [(); 2].map(|_| t.alloc().unwrap());
    t.start(a, base + 100).unwrap();
    t.start(b, base + 1_000).unwrap();
    rig.probe.advance_to_fire().unwrap();
    let mut ran = Vec::new();
    let served = t
        .on_interrupt(|id, now| {
            if id == a {
                rig.clock.advance(20_000); // 2000 ticks: past `b`
            }
            ran.push((id, now));
            Restart::No
        })
        .unwrap();
    assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), vec![a, b]);
    assert!(ran[1].1 >= base + 1_000, "b not early");
    assert_eq!(served, 2, "both from this call");
    assert_eq!(rig.probe.acks(), 1, "one interrupt");
    assert_eq!(rig.probe.next_fire_ns(), None, "idle");
}

/// Run the interrupt; returns how far below this function's frame the stack goes, seen
/// from the callback.
#[inline(never)]
fn stack_below<const N: usize>(t: &Timers<N>) -> (usize, usize) {
    let marker = 0u8;
    let base = std::hint::black_box(std::ptr::addr_of!(marker)).addr();
    let mut deepest = usize::MAX;
    let served = t
        .on_interrupt(|_, _| {
            let marker = 0u8;
            deepest = deepest.min(std::hint::black_box(std::ptr::addr_of!(marker)).addr());
            Restart::No
        })
        .unwrap();
    (served, base - deepest)
}

/// The stack `on_interrupt` needs to expire `N` timers at once.
fn on_interrupt_stack<const N: usize>() -> usize {
    let (rig, t) = timers::<N>(10);
    let t = Box::new(t);
    let now = t.now().unwrap();
    for k in 0..N as u64 {
        let id = t.alloc().unwrap();
        t.start(id, now + 100 + k).unwrap();
    }
    rig.probe.advance_to_fire().unwrap();
    rig.clock.advance(100 * N as u64);
    let (served, bytes) = stack_below(&t);
    assert_eq!(served, N);
    bytes
}

#[test]
fn the_stack_on_interrupt_needs_does_not_grow_with_the_capacity() {
    // The old handler collected every expired timer into two `Vec<_, N>` on its stack
    // (18 bytes per slot on a 64-bit host: 72 KiB at N = 4096).
    let small = on_interrupt_stack::<16>();
    let large = on_interrupt_stack::<4096>();
    assert!(
        large <= small + 64,
        "{small} bytes at N = 16, {large} bytes at N = 4096"
    );
}

/// A time base that counts its readings.
struct CountingTime<'a> {
    inner: &'a Extended<SimCounter>,
    reads: std::cell::Cell<u32>,
}

impl Monotonic for &CountingTime<'_> {
    fn now(&self) -> u64 {
        self.reads.set(self.reads.get() + 1);
        self.inner.now()
    }
    fn freq_hz(&self) -> u32 {
        self.inner.freq_hz()
    }
    fn max_idle_ticks(&self) -> u64 {
        self.inner.max_idle_ticks()
    }
}

/// Arming the queue reads the time base only where the queue itself needs the time: an
/// absolute alarm on a 64-bit time base gets the deadline as its compare value with no
/// reading (`start`: none; `start_after`: the one that makes the deadline), and a relative
/// alarm measures its wait from the reading `start_after` just made. Either way the timer
/// fires at its deadline, never early.
#[test]
fn arming_reads_the_time_base_only_where_the_queue_needs_it() {
    for absolute in [true, false] {
        let (rig, event) = rig(4);
        let event = if absolute {
            event.with_absolute()
        } else {
            event
        };
        let counting: &'static CountingTime<'static> = Box::leak(Box::new(CountingTime {
            inner: rig.time,
            reads: std::cell::Cell::new(0),
        }));
        let alarm = Alarm::new(event, counting).unwrap();
        assert_eq!(alarm.is_absolute(), absolute);
        let t: HrTimers<_, &CountingTime<'static>, 2> = HrTimers::new(alarm);
        let a = t.alloc().unwrap();
        let b = t.alloc().unwrap();

        counting.reads.set(0);
        let deadline = rig.time.now() + 1_000;
        t.start(a, deadline).unwrap();
        assert_eq!(
            counting.reads.get(),
            u32::from(!absolute),
            "start, absolute {absolute}"
        );
        if absolute {
            assert_eq!(rig.probe.last_delta(), Some(deadline), "the compare value");
        }
        assert!(t.cancel(a));

        counting.reads.set(0);
        let before = rig.time.now();
        t.start_after(b, 500).unwrap();
        assert_eq!(counting.reads.get(), 1, "start_after, absolute {absolute}");
        let due = t.deadline(b).unwrap();
        assert!(due >= before + 500);
        let fired = rig.probe.advance_to_fire().unwrap();
        let mut ran = None;
        t.on_interrupt(|id, now| {
            ran = Some((id, now));
            Restart::No
        })
        .unwrap();
        let (id, now) = ran.expect("the timer ran");
        assert_eq!(id, b);
        assert!(now >= due, "early: {now} < {due}");
        let _ = fired;
    }
}

#[test]
fn a_re_entered_queue_reports_no_time_rather_than_a_wrong_one() {
    let (rig, t) = timers::<2>(10);
    rig.clock.advance(1_000_000);
    // Inside the queue's critical section the time base cannot be reached through it.
    let inside = t.with_alarm(|_| (t.now(), t.freq_hz())).unwrap();
    assert_eq!(inside, (Err(QueueError::Busy), Err(QueueError::Busy)));
    // A relative sleep asked for there is measured from its first poll: never early.
    let sleep = t.with_alarm(|_| t.sleep_ns(2_000)).unwrap();
    let start = rig.clock.now_ns();
    assert_eq!(
        run_virtual(sleep, &rig.probe, 10, || {
            t.on_interrupt(|_, _| Restart::No).unwrap();
        }),
        Some(())
    );
    assert!(rig.clock.now_ns() >= start + 2_000, "woke early");
}

#[test]
fn a_restart_the_queue_refuses_is_reported_and_the_other_timers_still_run() {
    let (rig, t) = timers::<4>(10);
    let base = t.now().unwrap();
    let a = t.alloc().unwrap();
    let b = t.alloc().unwrap();
    let c = t.alloc().unwrap();
    t.start(a, base + 1_000).unwrap();
    t.start(b, base + 1_000).unwrap();
    t.start(c, base + 50_000).unwrap();
    rig.probe.advance_to_fire().unwrap();
    let mut ran = Vec::new();
    let result = t.on_interrupt(|id, now| {
        ran.push(id);
        if id == a {
            // The callback frees its own timer, then asks for it again: refused.
            t.free(id).unwrap();
            Restart::At(now + 1_000)
        } else {
            Restart::No
        }
    });
    assert_eq!(result, Err(QueueError::Restart(a)));
    assert_eq!(ran.len(), 2, "both due timers ran");
    assert!(ran.contains(&b));
    // The hardware is programmed for the timer left queued.
    assert_eq!(t.next_deadline(), Some(base + 50_000));
    assert!(rig.probe.next_fire_ns().is_some());
    let log = drain(&rig, &t);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].0, c);
    assert!(log[0].1 >= base + 50_000, "never early");
}

/// An id kept after its timer was freed names no timer, even once its slot holds a newer
/// one: it cannot cancel, move or query that newer timer. Before ids carried the slot's
/// generation, `cancel` with the stale id dequeued the newer timer (it returned `true`).
#[test]
fn a_stale_id_cannot_touch_the_newer_timer_in_its_slot() {
    let clock = SimClock::new();
    let event = SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
    let time = Extended::new(SimCounter::new(&clock, 32, 1_000_000));
    let t: HrTimers<_, _, 1> = HrTimers::new(Alarm::new(event, time).unwrap());
    let old = t.alloc().unwrap();
    t.free(old).unwrap();
    let new = t.alloc().unwrap();
    assert_eq!(new.index(), old.index(), "the same slot");
    t.start(new, 1_000).unwrap();
    assert!(!t.cancel(old), "a stale id cancelled the newer timer");
    assert_eq!(t.restart(old, 5), Err(QueueError::InvalidId));
    assert!(!t.is_queued(old) && t.deadline(old).is_none());
    assert_eq!(t.deadline(new), Some(1_000));
    t.free(old).unwrap();
    assert!(t.is_queued(new), "freeing a stale id freed the newer timer");
}
