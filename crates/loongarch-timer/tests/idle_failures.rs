//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! the chip's stable counter (`PinnedCounter` over `StableCounter`: 64 bits, read with one
//! `rdtime.d`, 100 MHz on QEMU virt) and the core's constant timer (`PinnedTimer`, from
//! `pinned::pair`), on the LoongArch core model (QEMU virt flavour) and its TI line. The
//! counter is 64 bits wide, so it never wraps: the idle lengths are 0.5, 1, 2 and 10
//! wraps of a 32-bit word of it (42.9 s), and an idle queue needs **no interrupt at all**
//! (its keep-alive is a cancel on a time base that needs no reads).
//!
//! - the queue (`HrTimers`) idle after it emptied, and from a fresh queue after
//!   `reprogram()`: not one interrupt while idle, the time base reads the model's counter,
//!   and a 1 s timer runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` (`loongarch_timer::embassy::DriverOn`) and an
//!   rtic-time monotonic on the crate's types (`loongarch_timer::rtic_monotonic!` is
//!   hwtimer-core's macro on them, loongarch64 only);
//! - the queue with `FaultyEvent` around the timer under random failures, then none:
//!   every timer runs once, none early.
//!
//! The model is `SmpCsr` (the chip behind a lock), whose pinned types are `Send` and
//! `Sync` as the runtime adapters' statics need.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use embassy_time_driver::Driver as _;
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::sim::{Faults, FaultyEvent, Irq, Rates, SimClock};
use hwtimer_core::{Alarm, HrTimers, QueueError, Restart, TimerId};
use loongarch_timer::Config;
use loongarch_timer::embassy::DriverOn;
use loongarch_timer::pinned::{PinnedCounter, PinnedTimer, pair};
use loongarch_timer::sim::{LoongArchCore, SmpCsr};

const HZ: u64 = 100_000_000;
/// 2^32 ticks at 100 MHz, 42.9 s: the idle unit (the counter itself never wraps).
const WRAP_NS: u64 = (1 << 32) * 10;

/// How late a 1 s timer may run, in ns. The timer counts on the stable counter's edges
/// (phase-locked): late by the InitVal granularity (its low two bits are masked, so up to
/// 3 ticks, 30 ns) and the accesses between the time read and the TCFG write and in the
/// handler before its time read (1 ns each on the model, `SIM_CSR_NS`). 100 ns covers
/// them; measured: under 10 ns (the deadline falls inside the tick of the time read).
const LATE_NS: u64 = 100;

type Event = PinnedTimer<SmpCsr>;
type Time = PinnedCounter<SmpCsr>;

/// A QEMU virt core (core 0 of the thread) with its timer and counter pinned to it.
fn core() -> (SimClock, SmpCsr, Event, Time) {
    let clock = SimClock::new();
    let csr = SmpCsr::new(&clock, LoongArchCore::qemu_virt());
    let (timer, time) = pair(csr.clone(), Config::default()).unwrap();
    (clock, csr, timer, time)
}

fn next_irq_ns(csr: &SmpCsr) -> Option<u64> {
    csr.model(|m| m.next_fire_ns())
}

fn line(csr: &SmpCsr) -> bool {
    let now = csr.clock().now_ns();
    csr.model(|m| m.ti_pending(now))
}

/// The stable counter as the model holds it (no access, no time).
fn truth(csr: &SmpCsr) -> u64 {
    let now = csr.clock().now_ns();
    csr.model(|m| m.rdtime(now))
}

/// The time base reads the model's counter: read between two looks at the model, it lies
/// between them.
fn assert_time_is_true(csr: &SmpCsr, read: impl FnOnce() -> u64, what: &str) -> u64 {
    let before = truth(csr);
    let now = read();
    let after = truth(csr);
    assert!(
        before <= now && now <= after,
        "{what}: time base {now}, model {before}..={after}"
    );
    now
}

/// (1) The queue idle for 0.5, 1, 2 and 10 units, after it emptied or from fresh after
/// `reprogram()`: no interrupt while idle, the time is the model's, and a 1 s timer runs
/// 1 s later (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_long_idle_with_no_interrupt() {
    for fresh in [false, true] {
        for halves in [1u64, 2, 4, 20] {
            let what = format!(
                "{} queue, idle {halves}/2 x 2^32 ticks",
                ["used", "fresh"][usize::from(fresh)]
            );
            let (clock, csr, event, time) = core();
            let faults = Faults::new();
            let timers: HrTimers<Event, Time, 2> = HrTimers::new(Alarm::new(event, time).unwrap());
            let id = timers.alloc().unwrap();
            let fired = RefCell::new(Vec::new());
            let mut irq = Irq::new(&clock, &faults, || next_irq_ns(&csr), || line(&csr));
            let mut isr = || {
                timers
                    .on_interrupt(|_, now| {
                        fired.borrow_mut().push((now, truth(&csr), clock.now_ns()));
                        Restart::No
                    })
                    .unwrap();
            };
            if fresh {
                timers.reprogram().unwrap();
            } else {
                // A first timer (1 ms), so the queue has run and emptied.
                timers.start_after(id, HZ / 1000).unwrap();
                irq.run_until(clock.now_ns() + 2_000_000, &mut isr);
                assert_eq!(fired.borrow().len(), 1, "{what}");
            }
            let delivered = irq.delivered;
            assert_eq!(next_irq_ns(&csr), None, "{what}: idle arms nothing");
            irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, &mut isr);
            assert_eq!(irq.delivered, delivered, "{what}: an interrupt while idle");
            let start_ns = clock.now_ns();
            let now = assert_time_is_true(&csr, || timers.now().unwrap(), &what);
            let deadline = now + HZ;
            timers.start(id, deadline).unwrap();
            irq.run_until(start_ns + 3_000_000_000, &mut isr);
            let fired = fired.into_inner();
            assert_eq!(fired.len(), 2 - usize::from(fresh), "{what}");
            let &(seen, true_at, at_ns) = fired.last().unwrap();
            assert!(seen >= deadline && true_at >= deadline, "{what}: early");
            // `now` was read at `start_ns` or later: this is the lateness, or a little more.
            let late = at_ns - (start_ns + 1_000_000_000);
            assert!(late <= LATE_NS, "{what}: a 1 s timer ran {late} ns late");
        }
    }
}

struct Flag(AtomicUsize);
impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn flag() -> (Arc<Flag>, Waker) {
    let f = Arc::new(Flag(AtomicUsize::new(0)));
    (f.clone(), Waker::from(f))
}

/// (2) embassy's driver on the crate's types (`DriverOn<SmpCsr>`): idle from `init` and
/// after a wake, for 0.5, 1, 2 and 10 units with no interrupt; `now()` is the model's
/// time (in embassy's 1 MHz ticks, rounded down) and a 1 s wake comes 1 s later, never
/// early.
#[test]
fn embassy_keeps_time_over_long_idle_with_no_interrupt() {
    let (clock, csr, event, time) = core();
    let driver: &'static DriverOn<SmpCsr, 4> = Box::leak(Box::new(DriverOn::new()));
    driver.init(event, time).unwrap();
    let faults = Faults::new();
    let mut irq = Irq::new(&clock, &faults, || next_irq_ns(&csr), || line(&csr));
    for halves in [1u64, 2, 4, 20] {
        let delivered = irq.delivered;
        irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, || {
            driver.on_interrupt()
        });
        let what = format!("embassy, idle {halves}/2 x 2^32 ticks");
        assert_eq!(irq.delivered, delivered, "{what}: an interrupt while idle");
        assert_time_is_true(&csr, || driver.now_hw(), &what);
        let (before, now, after) = (truth(&csr), driver.now(), truth(&csr));
        assert!(
            before / 100 <= now && now <= after / 100,
            "{what}: embassy now {now} µs, model {before}..={after} ticks"
        );
        let (f, waker) = flag();
        let at = now + 1_000_000;
        let start_ns = clock.now_ns();
        driver.schedule_wake(at, &waker);
        let woke = RefCell::new(None);
        irq.run_until(start_ns + 3_000_000_000, || {
            driver.on_interrupt();
            if f.0.load(Ordering::SeqCst) > 0 && woke.borrow().is_none() {
                *woke.borrow_mut() = Some((driver.now(), truth(&csr), clock.now_ns()));
            }
        });
        let (seen, true_at, at_ns) = woke
            .into_inner()
            .unwrap_or_else(|| panic!("{what}: never woke"));
        assert!(seen >= at && true_at >= at * 100, "{what}: early");
        // `at` is 1 s after a `now` rounded down by under 1 µs; then as the queue.
        let late = at_ns.saturating_sub(start_ns + 1_000_000_000);
        assert!(late <= LATE_NS + 1_000, "{what}: woke {late} ns late");
    }
}

hwtimer_core::rtic_monotonic!(Mono, Event, Time, 100_000_000);

/// (2) The crate's rtic monotonic on its types: idle from `start` and after a wait, for
/// 0.5, 1, 2 and 10 units with no interrupt; `now()` is the model's time and a 1 s delay
/// ends 1 s later, never early.
#[test]
fn rtic_keeps_time_over_long_idle_with_no_interrupt() {
    let (clock, csr, event, time) = core();
    Mono::start(event, time).unwrap();
    let faults = Faults::new();
    let mut irq = Irq::new(&clock, &faults, || next_irq_ns(&csr), || line(&csr));
    for halves in [1u64, 2, 4, 20] {
        let delivered = irq.delivered;
        irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, Mono::on_interrupt);
        let what = format!("rtic, idle {halves}/2 x 2^32 ticks");
        assert_eq!(irq.delivered, delivered, "{what}: an interrupt while idle");
        assert_time_is_true(&csr, || Mono::now().as_ticks(), &what);
        let (f, waker) = flag();
        let mut cx = Context::from_waker(&waker);
        let start_ns = clock.now_ns();
        let mut sleep = Box::pin(Mono::delay(1u64.secs()));
        assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Pending, "{what}");
        let woke = RefCell::new(None);
        irq.run_until(start_ns + 3_000_000_000, || {
            Mono::on_interrupt();
            if f.0.load(Ordering::SeqCst) > 0 && woke.borrow().is_none() {
                *woke.borrow_mut() = Some(clock.now_ns());
            }
        });
        let at_ns = woke
            .into_inner()
            .unwrap_or_else(|| panic!("{what}: never woke"));
        assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Ready(()), "{what}");
        assert!(at_ns >= start_ns + 1_000_000_000, "{what}: early");
        // rtic-time adds one tick (10 ns) to a delay.
        let late = at_ns - (start_ns + 1_000_000_000);
        assert!(late <= LATE_NS + 10, "{what}: woke {late} ns late");
    }
}

/// (3) The queue on a `FaultyEvent` around the pinned timer, failing at random (refused
/// programmings that keep the old deadline or stop the timer, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = hwtimer_core::sim::fault::FaultStats::default();
    for seed in 1..=40u64 {
        let s = faulty_run(seed);
        injected.refused += s.refused;
        injected.dropped += s.dropped;
        injected.doubled += s.doubled;
        injected.late += s.late;
        injected.stale += s.stale;
    }
    // Every kind of failure happened, more than once.
    let i = injected;
    assert!(
        [i.refused, i.dropped, i.doubled, i.late, i.stale]
            .iter()
            .all(|&n| n >= 3),
        "{i:?}"
    );
}

fn faulty_run(seed: u64) -> hwtimer_core::sim::fault::FaultStats {
    let what = format!("seed {seed}");
    let (clock, csr, event, time) = core();
    let faults = Faults::new();
    let timers: HrTimers<FaultyEvent<Event>, Time, 12> =
        HrTimers::new(Alarm::new(FaultyEvent::new(event, &faults), time).unwrap());
    let ids: Vec<TimerId> = (0..12).map(|_| timers.alloc().unwrap()).collect();
    let log = RefCell::new(Vec::new());
    let mut irq =
        Irq::new(&clock, &faults, || next_irq_ns(&csr), || line(&csr)).retake_after(1_000_000);
    let hardware = RefCell::new(false);
    let note = |r: Result<usize, QueueError>| match r {
        Ok(_) => {}
        Err(QueueError::Hardware(_)) => *hardware.borrow_mut() = true,
        Err(e) => panic!("{what}: {e:?}"),
    };
    let isr = || {
        note(timers.on_interrupt(|id, now| {
            log.borrow_mut()
                .push((id, now, truth(&csr), clock.now_ns()));
            Restart::No
        }))
    };
    faults.random(
        seed,
        Rates {
            refuse: 250,
            drop: 100,
            double: 100,
            late: 100,
            late_ns: 2_000_000,
            stale: 200,
            wrong_cpu: false,
        },
    );
    let stop_ns = clock.now_ns() + 100_000_000;
    let mut deadlines = Vec::new();
    for (k, &id) in ids.iter().enumerate() {
        // Two timers every 10 ms, due 0.5 to 150 ms later.
        if k % 2 == 0 && k > 0 {
            irq.run_until(clock.now_ns() + 10_000_000, isr);
        }
        let delta = 50_000 + (k as u64 * 7_919 + seed * 104_729) % (150 * HZ / 1000);
        let at = timers.now().unwrap() + delta;
        deadlines.push((at, clock.now_ns(), delta * 10));
        note(timers.start(id, at).map(|()| 0));
    }
    irq.run_until(stop_ns, isr);
    let stats = faults.stats();
    faults.stop();
    if *hardware.borrow() {
        timers.reprogram().unwrap();
    }
    irq.run_until(stop_ns + 400_000_000, isr);
    let log = log.into_inner();
    for (k, &id) in ids.iter().enumerate() {
        let (at, set_ns, delta_ns) = deadlines[k];
        let runs: Vec<_> = log.iter().filter(|e| e.0 == id).collect();
        assert_eq!(runs.len(), 1, "{what}: timer {k} ran {} times", runs.len());
        let &&(_, seen, true_at, at_ns) = runs.first().unwrap();
        assert!(seen >= at && true_at >= at, "{what}: timer {k} early");
        // In virtual time the deadline is `delta` ticks after the time-base read at
        // `set_ns` (which ran before it, by under one access).
        let due_ns = (set_ns + delta_ns).max(stop_ns);
        assert!(
            at_ns <= due_ns + 2_000_000 + LATE_NS,
            "{what}: timer {k} ran at {at_ns} ns, due {due_ns} ns"
        );
    }
    stats
}
