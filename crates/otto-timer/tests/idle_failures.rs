//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! the 28-bit counter at 3.125 MHz (a wrap every 85.9 s) extended in software, and CPU 0's
//! clockevent, both from `OttoTimers::per_cpu` on the Otto model (default lost-interrupt
//! variant), with the model's own interrupt line.
//!
//! - the queue (`HrTimers`) idle for 0.5, 1, 2 and 10 wraps after it emptied, and from a
//!   fresh queue after `reprogram()`: the time base reads the model's count, and a 1 s
//!   timer runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` and an rtic-time monotonic on the crate's
//!   channel and time base (the types of `otto_timer::embassy` and `otto_timer::rtic`,
//!   with the model's bus for the MMIO window);
//! - the queue with `FaultyEvent` around the clockevent under random failures, then none:
//!   every timer runs once, none early.
//!
//! The model's bus here is a thread-safe one (the model behind a mutex), because the
//! runtime adapters keep the channel in a `static`, which must be `Send`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use embassy_time_driver::Driver as _;
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::{Faults, FaultyEvent, Irq, Rates, SimClock, SimModel};
use hwtimer_core::{
    Alarm, Claim, Claimed, Extended, HrTimers, QueueError, RegisterBus, Restart, TimerId,
};
use otto_timer::sim::{OttoModel, SIM_READ_NS, SIM_WRITE_NS, ticks_in};
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, PerCpu, Soc};

const HZ: u64 = 3_125_000;
const BITS: u32 = 28;
/// One wrap of the 28-bit counter: 2^28 ticks of 320 ns, 85.9 s.
const WRAP_NS: u64 = (1 << BITS) * 320;
/// Timer 0 is CPU 0's clockevent; timer 1 the clocksource (`per_cpu::<1>`).
const EVENT: usize = 0;
const SOURCE: usize = 1;

/// How late a 1 s timer may run, in ns. The channel is not phase-locked to the clocksource
/// (own counter, own prescaler phase), so the alarm adds one tick of margin (320 ns); the
/// delta is measured from a time-base read made before the programming, so the MMIO time
/// of the programming (the bounce sequence: 12 accesses at 50–100 ns, under 1.2 µs) is
/// added to the wait; and the handler's own accesses before it reads the time (the
/// acknowledgement, under 0.5 µs). 3 µs covers these with a tick to spare; the measured
/// lateness is 0.55 µs (after a timer) and 0.92 µs (fresh queue).
const LATE_NS: u64 = 3_000;

/// The model behind a mutex, so the driver's types on it are `Send` and `Sync` as on
/// `Mmio` (the runtime adapters' statics need that). Each access costs the model's
/// documented MMIO time, after the access as `SimBus` charges it.
#[derive(Clone)]
struct Bus {
    model: Arc<Mutex<OttoModel>>,
    clock: SimClock,
}

impl Bus {
    fn model<R>(&self, f: impl FnOnce(&mut OttoModel) -> R) -> R {
        f(&mut self.model.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The clocksource's true count: the model's 28-bit counter, with the wraps counted
    /// from virtual time since the model saw the clocksource start (exact: the counter
    /// gives the low bits, the elapsed time only picks the wrap).
    fn truth(&self) -> u64 {
        let now = self.clock.now_ns();
        self.model(|m| {
            let raw = u64::from(m.counter(now, SOURCE).unwrap());
            let start = m
                .stats(now, SOURCE)
                .unwrap()
                .starts
                .last()
                .copied()
                .unwrap();
            let approx = ticks_in(now - start.at_ns, m.bus_clock_hz(), start.divisor);
            let wraps = (approx + (1 << (BITS - 1)) - raw) >> BITS;
            raw + (wraps << BITS)
        })
    }

    fn next_irq_ns(&self) -> Option<u64> {
        let now = self.clock.now_ns();
        self.model(|m| m.next_irq_ns(now, EVENT))
    }

    fn line(&self) -> bool {
        let now = self.clock.now_ns();
        self.model(|m| m.irq_asserted(now, EVENT))
    }
}

impl RegisterBus for Bus {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        let now = self.clock.now_ns();
        let v = self.model(|m| m.read(now, offset));
        self.clock.advance(SIM_READ_NS);
        v
    }
    fn write_word(&self, offset: usize, value: u32) {
        let now = self.clock.now_ns();
        self.model(|m| m.write(now, offset, value));
        self.clock.advance(SIM_WRITE_NS);
    }
}

impl Claim for Bus {
    type Block<const SPAN: usize> = Claimed<Bus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        base.checked_add(SPAN)?;
        Some(Claimed::new(self.clone(), base))
    }
}

type Event = OttoClockEvent<Bus>;
type Source = OttoClocksource<Bus>;

/// An RTL838x block on the model: CPU 0's clockevent and the running clocksource.
fn block() -> (SimClock, Bus, Event, Source) {
    let clock = SimClock::new();
    let bus = Bus {
        model: Arc::new(Mutex::new(OttoModel::new(Soc::Rtl838x))),
        clock: clock.clone(),
    };
    let PerCpu {
        cpus: [cpu0],
        clocksource,
    } = OttoTimers::new(bus.clone(), Config::new(Soc::Rtl838x))
        .unwrap()
        .per_cpu::<1>()
        .unwrap();
    assert_eq!(cpu0.event.index(), EVENT);
    (clock, bus, cpu0.event, clocksource)
}

/// The time base reads the model's count: read between two looks at the model, it lies
/// between them (exactly: the model's looks cost no time, the read one access).
fn assert_time_is_true(bus: &Bus, read: impl FnOnce() -> u64, what: &str) -> u64 {
    let before = bus.truth();
    let now = read();
    let after = bus.truth();
    assert!(
        before <= now && now <= after,
        "{what}: time base {now}, model {before}..={after}"
    );
    now
}

/// (1) The queue, idle for 0.5, 1, 2 and 10 wraps, after it emptied or from fresh after
/// `reprogram()`: the time is the model's, and a 1 s timer runs 1 s later (never early,
/// late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_idle_of_up_to_ten_wraps() {
    for fresh in [false, true] {
        for halves in [1u64, 2, 4, 20] {
            let what = format!(
                "{} queue, idle {halves}/2 wraps",
                ["used", "fresh"][fresh as usize]
            );
            let (clock, bus, event, source) = block();
            let faults = Faults::new();
            let timers: HrTimers<Event, Extended<Source>, 2> =
                HrTimers::new(Alarm::new(event, Extended::new(source)).unwrap());
            let id = timers.alloc().unwrap();
            let fired = RefCell::new(Vec::new());
            let mut irq = Irq::new(&clock, &faults, || bus.next_irq_ns(), || bus.line());
            let mut isr = || {
                timers
                    .on_interrupt(|_, now| {
                        fired.borrow_mut().push((now, bus.truth(), clock.now_ns()));
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
            irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, &mut isr);
            let start_ns = clock.now_ns();
            let now = assert_time_is_true(&bus, || timers.now().unwrap(), &what);
            let deadline = now + HZ;
            timers.start(id, deadline).unwrap();
            irq.run_until(start_ns + 3_000_000_000, &mut isr);
            let fired = fired.into_inner();
            let &(seen, true_at, at_ns) = fired.last().unwrap();
            assert_eq!(fired.len(), 2 - usize::from(fresh), "{what}");
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

/// `otto_timer::embassy::Driver`'s types, on the model's bus.
type EmbassyDriver = TimeDriver<Event, &'static Extended<Source>, 4>;

/// (2) embassy's driver on the crate's channel and time base: idle from `init` and after a
/// wake, for 0.5, 1, 2 and 10 wraps; `now()` is the model's time (in embassy's 1 MHz
/// ticks, rounded down) and a 1 s wake comes 1 s later, never early.
#[test]
fn embassy_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (clock, bus, event, source) = block();
    let faults = Faults::new();
    let time: &'static Extended<Source> = Box::leak(Box::new(Extended::new(source)));
    let driver: &'static EmbassyDriver = Box::leak(Box::new(TimeDriver::new()));
    driver.init(event, time).unwrap();
    let mut irq = Irq::new(&clock, &faults, || bus.next_irq_ns(), || bus.line());
    for halves in [1u64, 2, 4, 20] {
        irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, || {
            driver.on_interrupt()
        });
        let what = format!("embassy, idle {halves}/2 wraps");
        assert_time_is_true(&bus, || driver.now_hw(), &what);
        // In embassy's 1 MHz ticks, rounded down.
        let (before, now, after) = (bus.truth(), driver.now(), bus.truth());
        assert!(
            before * 1_000_000 / HZ <= now && now <= after * 1_000_000 / HZ,
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
                *woke.borrow_mut() = Some((driver.now(), clock.now_ns()));
            }
        });
        let (seen, at_ns) = woke
            .into_inner()
            .unwrap_or_else(|| panic!("{what}: never woke"));
        assert!(seen >= at && at_ns / 1_000 >= at, "{what}: early");
        // `at` is 1 s after a `now` rounded down by under 1 µs; then as the queue.
        let late = at_ns.saturating_sub(start_ns + 1_000_000_000);
        assert!(late <= LATE_NS + 1_000, "{what}: woke {late} ns late");
    }
}

hwtimer_core::rtic_monotonic!(Mono, Event, &'static Extended<Source>, 3_125_000);

/// (2) The crate's rtic monotonic (`otto_timer::rtic_monotonic!` is this macro on these
/// types): idle from `start` and after a wait, for 0.5, 1, 2 and 10 wraps; `now()` is the
/// model's time and a 1 s delay ends 1 s later, never early.
#[test]
fn rtic_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (clock, bus, event, source) = block();
    let faults = Faults::new();
    Mono::start(event, Box::leak(Box::new(Extended::new(source)))).unwrap();
    let mut irq = Irq::new(&clock, &faults, || bus.next_irq_ns(), || bus.line());
    for halves in [1u64, 2, 4, 20] {
        irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, Mono::on_interrupt);
        let what = format!("rtic, idle {halves}/2 wraps");
        assert_time_is_true(&bus, || Mono::now().as_ticks(), &what);
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
        // rtic-time adds one tick to a delay (its instant is "at least" that far).
        assert!(at_ns >= start_ns + 1_000_000_000, "{what}: early");
        let late = at_ns - (start_ns + 1_000_000_000);
        assert!(late <= LATE_NS + 320, "{what}: woke {late} ns late");
    }
}

type Faulty = HrTimers<FaultyEvent<Event>, Extended<Source>, 12>;

/// (3) The queue on a `FaultyEvent` around CPU 0's clockevent, failing at random (refused
/// programmings that keep the old deadline or stop the channel, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = hwtimer_core::sim::fault::FaultStats::default();
    for seed in 1..=40u64 {
        let (clock, bus, event, source) = block();
        let faults = Faults::new();
        let timers: Faulty = HrTimers::new(
            Alarm::new(FaultyEvent::new(event, &faults), Extended::new(source)).unwrap(),
        );
        let ids: Vec<TimerId> = (0..12).map(|_| timers.alloc().unwrap()).collect();
        let log = RefCell::new(Vec::new());
        let mut irq =
            Irq::new(&clock, &faults, || bus.next_irq_ns(), || bus.line()).retake_after(1_000_000);
        let hardware = RefCell::new(false);
        let note = |r: Result<(), QueueError>| match r {
            Ok(()) => {}
            Err(QueueError::Hardware(_)) => *hardware.borrow_mut() = true,
            Err(e) => panic!("seed {seed}: {e:?}"),
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
        let mut deadlines = vec![None; ids.len()];
        let step_ns = 10_000_000;
        for (k, &id) in ids.iter().enumerate() {
            // Two timers every 10 ms, due 0.5 to 150 ms later.
            if k % 2 == 0 && k > 0 {
                let until = clock.now_ns() + step_ns;
                irq.run_until(until, || {
                    note(
                        timers
                            .on_interrupt(|id, now| {
                                log.borrow_mut()
                                    .push((id, now, bus.truth(), clock.now_ns()));
                                Restart::No
                            })
                            .map(|_| ()),
                    )
                });
            }
            let delta = 1_562 + (k as u64 * 7_919 + seed * 104_729) % (150 * HZ / 1000);
            let at = timers.now().unwrap() + delta;
            deadlines[k] = Some((at, clock.now_ns(), delta * 320));
            note(timers.start(id, at));
        }
        let mut isr = || {
            note(
                timers
                    .on_interrupt(|id, now| {
                        log.borrow_mut()
                            .push((id, now, bus.truth(), clock.now_ns()));
                        Restart::No
                    })
                    .map(|_| ()),
            )
        };
        irq.run_until(stop_ns, &mut isr);
        let s = faults.stats();
        injected.refused += s.refused;
        injected.dropped += s.dropped;
        injected.doubled += s.doubled;
        injected.late += s.late;
        injected.stale += s.stale;
        faults.stop();
        if *hardware.borrow() {
            timers.reprogram().unwrap();
        }
        irq.run_until(stop_ns + 400_000_000, &mut isr);
        let log = log.into_inner();
        for (k, &id) in ids.iter().enumerate() {
            let (at, set_ns, delta_ns) = deadlines[k].unwrap();
            let runs: Vec<_> = log.iter().filter(|e| e.0 == id).collect();
            assert_eq!(
                runs.len(),
                1,
                "seed {seed}: timer {k} ran {} times",
                runs.len()
            );
            let &&(_, seen, true_at, at_ns) = runs.first().unwrap();
            assert!(seen >= at && true_at >= at, "seed {seed}: timer {k} early");
            // In virtual time the deadline is `delta` ticks after the time-base read at
            // `set_ns` (which ran before it, by under one access).
            let due_ns = (set_ns + delta_ns).max(stop_ns);
            assert!(
                at_ns <= due_ns + 2_000_000 + LATE_NS,
                "seed {seed}: timer {k} ran at {at_ns} ns, due {due_ns} ns"
            );
        }
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
