//! hwtimer-core's queue promises (no event lost under any failure, idle of any length keeps
//! the time) on this driver's own model and time base, not on the generic `SimCounter`:
//! `FrcTime`, the software epoch over the FRC's 32-bit low word at 24 MHz (a wrap every
//! 178.96 s; `max_idle_ticks` 0x6000_0000, 67.1 s), with global comparator 0 and local
//! timer 0 as clockevents, on the MCT model and its own interrupt lines.
//!
//! - the queue (`HrTimers`) idle for 0.5, 1, 2 and 10 wraps after it emptied, and from a
//!   fresh queue after `reprogram()`: the time base reads the model's FRC, and a 1 s timer
//!   runs 1 s later, never early;
//! - the same through embassy's `TimeDriver` (`exynos_mct::embassy::DriverOn`) and an
//!   rtic-time monotonic on the crate's channel types (`exynos_mct::rtic_monotonic!` is
//!   hwtimer-core's macro on them), with the model's bus for the MMIO window;
//! - the queue with `FaultyEvent` around either clockevent under random failures, then
//!   none: every timer runs once, none early.
//!
//! The model's bus here is a thread-safe one (the model behind a mutex), because the
//! runtime adapters keep the channel in a `static`, which must be `Send`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use embassy_time_driver::Driver as _;
use exynos_mct::embassy::DriverOn;
use exynos_mct::sim::MctModel;
use exynos_mct::{Comparator, FrcTime, LocalTimer, Mct};
use hwtimer_core::__rtic_time::Timebase as _;
use hwtimer_core::__rtic_time::fugit::ExtU64;
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::sim::{Faults, FaultyEvent, Irq, Rates, SimClock, SimModel};
use hwtimer_core::{
    Alarm, Claim, Claimed, ClockEvent, HrTimers, QueueError, RegisterBus, Restart, TimerId,
};

const HZ: u64 = 24_000_000;
/// One wrap of the FRC's low word: 2^32 ticks at 24 MHz, 178.96 s.
const WRAP_NS: u64 = ((1u128 << 32) * 1_000_000_000 / HZ as u128) as u64;
/// The MMIO time of an access (hwtimer-core's `SimBus` defaults).
const READ_NS: u64 = 100;
const WRITE_NS: u64 = 50;

/// How late a 1 s timer may run, in ns. The comparator compares against the FRC itself
/// (phase-locked, an absolute compare value), so it is late only by the handler's accesses
/// before it reads the time (the status read and acknowledgement, a few 100 ns accesses).
/// Local timer 0 has its own counter (not phase-locked): the alarm adds one tick of margin
/// (42 ns), and the delta is measured from a time read made before the programming, whose
/// accesses (L_ICNTB and L_TCON writes, each with its WSTAT wait: under 1.5 µs) are added
/// to the wait. 2 µs covers both with room; measured: 0.13 µs on the comparator, 1.1 µs on
/// the local timer.
const LATE_NS: u64 = 2_000;

/// The model behind a mutex, so the driver's types on it are `Send` and `Sync` as on
/// `Mmio` (the runtime adapters' statics need that). Each access costs the MMIO time
/// after the access, as `SimBus` charges it.
#[derive(Clone)]
struct Bus {
    model: Arc<Mutex<MctModel>>,
    clock: SimClock,
}

impl Bus {
    fn model<R>(&self, f: impl FnOnce(&mut MctModel) -> R) -> R {
        f(&mut self.model.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The FRC's true 64-bit count (what the comparators compare against).
    fn truth(&self) -> u64 {
        let now = self.clock.now_ns();
        self.model(|m| m.frc_value(now))
    }

    fn next_irq_ns(&self) -> Option<u64> {
        let now = self.clock.now_ns();
        self.model(|m| m.next_irq_ns(now))
    }

    /// The line of the channel in use (only one is enabled per test).
    fn line(&self) -> bool {
        let now = self.clock.now_ns();
        self.model(|m| m.comparator_line(now, 0) || m.local_line(now, 0))
    }
}

impl RegisterBus for Bus {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        let now = self.clock.now_ns();
        let v = self.model(|m| m.read(now, offset));
        self.clock.advance(READ_NS);
        v
    }
    fn write_word(&self, offset: usize, value: u32) {
        let now = self.clock.now_ns();
        self.model(|m| m.write(now, offset, value));
        self.clock.advance(WRITE_NS);
    }
}

impl Claim for Bus {
    type Block<const SPAN: usize> = Claimed<Bus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        base.checked_add(SPAN)?;
        Some(Claimed::new(self.clone(), base))
    }
}

type Time = FrcTime<'static, Bus>;
type Comp = Comparator<'static, Bus>;
type Local = LocalTimer<'static, Bus>;

/// An Exynos4210 MCT on the model, FRC running, configured as the model counts (local
/// timers exact to the tick).
fn block() -> (SimClock, Bus, &'static Mct<Bus>) {
    let clock = SimClock::new();
    let model = MctModel::exynos4210();
    let config = model.driver_config();
    let bus = Bus {
        model: Arc::new(Mutex::new(model)),
        clock: clock.clone(),
    };
    let mct: &'static Mct<Bus> = Box::leak(Box::new(Mct::new(bus.clone(), config).unwrap()));
    mct.start_frc().unwrap();
    (clock, bus, mct)
}

/// Which clockevent a check runs on.
#[derive(Debug, Clone, Copy)]
enum Channel {
    Comparator,
    Local,
}

const CHANNELS: [Channel; 2] = [Channel::Comparator, Channel::Local];

/// Run `f` with the channel's clockevent of a fresh block.
fn with_channel<R>(
    channel: Channel,
    f: impl FnOnce(&SimClock, &Bus, &'static Mct<Bus>, Ev) -> R,
) -> R {
    let (clock, bus, mct) = block();
    let ev = match channel {
        Channel::Comparator => Ev::Comp(mct.comparator(0).unwrap()),
        Channel::Local => Ev::Local(mct.local_timer(0).unwrap()),
    };
    f(&clock, &bus, mct, ev)
}

/// Either clockevent, as one type for the checks that take both.
enum Ev {
    Comp(Comp),
    Local(Local),
}

impl ClockEvent for Ev {
    fn capabilities(&self) -> hwtimer_core::Capabilities {
        match self {
            Ev::Comp(e) => e.capabilities(),
            Ev::Local(e) => e.capabilities(),
        }
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_next_event(delta),
            Ev::Local(e) => e.set_next_event(delta),
        }
    }
    fn set_compare(&mut self, at: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_compare(at),
            Ev::Local(e) => e.set_compare(at),
        }
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), hwtimer_core::Error> {
        match self {
            Ev::Comp(e) => e.set_periodic(period),
            Ev::Local(e) => e.set_periodic(period),
        }
    }
    fn shutdown(&mut self) {
        match self {
            Ev::Comp(e) => e.shutdown(),
            Ev::Local(e) => e.shutdown(),
        }
    }
    fn ack(&mut self) -> bool {
        match self {
            Ev::Comp(e) => e.ack(),
            Ev::Local(e) => e.ack(),
        }
    }
}

/// The time base reads the model's FRC: read between two looks at the model, it lies
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

/// (1) The queue on each clockevent, idle for 0.5, 1, 2 and 10 wraps, after it emptied or
/// from fresh after `reprogram()`: the time is the model's, and a 1 s timer runs 1 s later
/// (never early, late by at most `LATE_NS`).
#[test]
fn the_queue_keeps_time_over_idle_of_up_to_ten_wraps() {
    for channel in CHANNELS {
        for fresh in [false, true] {
            for halves in [1u64, 2, 4, 20] {
                let what = format!(
                    "{channel:?}, {} queue, idle {halves}/2 wraps",
                    ["used", "fresh"][usize::from(fresh)]
                );
                with_channel(channel, |clock, bus, mct, event| {
                    queue_idle(clock, bus, mct, event, fresh, halves, &what)
                });
            }
        }
    }
}

fn queue_idle(
    clock: &SimClock,
    bus: &Bus,
    mct: &'static Mct<Bus>,
    event: Ev,
    fresh: bool,
    halves: u64,
    what: &str,
) {
    let faults = Faults::new();
    let timers: HrTimers<Ev, Time, 2> = HrTimers::new(Alarm::new(event, mct.time()).unwrap());
    let id = timers.alloc().unwrap();
    let fired = RefCell::new(Vec::new());
    let mut irq = Irq::new(clock, &faults, || bus.next_irq_ns(), || bus.line());
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
    let now = assert_time_is_true(bus, || timers.now().unwrap(), what);
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

/// (2) embassy's driver on the crate's types (`DriverOn`: comparator 0 and `FrcTime`) and
/// on local timer 0: idle from `init` and after a wake, for 0.5, 1, 2 and 10 wraps;
/// `now()` is the model's time (in embassy's 1 MHz ticks, rounded down) and a 1 s wake
/// comes 1 s later, never early.
#[test]
fn embassy_keeps_time_over_idle_of_up_to_ten_wraps() {
    let (clock, bus, mct) = block();
    let driver: &'static DriverOn<Bus, 4> = Box::leak(Box::new(DriverOn::new()));
    driver.init(mct.comparator(0).unwrap(), mct.time()).unwrap();
    embassy_idle(&clock, &bus, driver, "comparator");
    let (clock, bus, mct) = block();
    let driver: &'static TimeDriver<Local, Time, 4> = Box::leak(Box::new(TimeDriver::new()));
    driver
        .init(mct.local_timer(0).unwrap(), mct.time())
        .unwrap();
    embassy_idle(&clock, &bus, driver, "local timer");
}

fn embassy_idle<E: ClockEvent + Send + 'static>(
    clock: &SimClock,
    bus: &Bus,
    driver: &'static TimeDriver<E, Time, 4>,
    channel: &str,
) {
    let faults = Faults::new();
    let mut irq = Irq::new(clock, &faults, || bus.next_irq_ns(), || bus.line());
    for halves in [1u64, 2, 4, 20] {
        irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, || {
            driver.on_interrupt()
        });
        let what = format!("embassy on the {channel}, idle {halves}/2 wraps");
        assert_time_is_true(bus, || driver.now_hw(), &what);
        // In embassy's 1 MHz ticks, rounded down.
        let (before, now, after) = (bus.truth(), driver.now(), bus.truth());
        assert!(
            before / 24 <= now && now <= after / 24,
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
                *woke.borrow_mut() = Some((driver.now(), bus.truth(), clock.now_ns()));
            }
        });
        let (seen, true_at, at_ns) = woke
            .into_inner()
            .unwrap_or_else(|| panic!("{what}: never woke"));
        assert!(seen >= at && true_at >= at * 24, "{what}: early");
        // `at` is 1 s after a `now` rounded down by under 1 µs; then as the queue.
        let late = at_ns.saturating_sub(start_ns + 1_000_000_000);
        assert!(late <= LATE_NS + 1_000, "{what}: woke {late} ns late");
    }
}

hwtimer_core::rtic_monotonic!(MonoComp, Comp, Time, 24_000_000);
hwtimer_core::rtic_monotonic!(MonoLocal, Local, Time, 24_000_000);

/// (2) The crate's rtic monotonics (`exynos_mct::rtic_monotonic!(Mono)` and
/// `(Mono, local_timer)` are this macro on these types): idle from `start` and after a
/// wait, for 0.5, 1, 2 and 10 wraps; `now()` is the model's time and a 1 s delay ends 1 s
/// later, never early.
#[test]
fn rtic_keeps_time_over_idle_of_up_to_ten_wraps() {
    macro_rules! idle {
        ($mono:ident, $channel:ident) => {{
            let (clock, bus, mct) = block();
            let faults = Faults::new();
            $mono::start(mct.$channel(0).unwrap(), mct.time()).unwrap();
            let mut irq = Irq::new(&clock, &faults, || bus.next_irq_ns(), || bus.line());
            for halves in [1u64, 2, 4, 20] {
                irq.run_until(clock.now_ns() + WRAP_NS / 2 * halves, $mono::on_interrupt);
                let what = format!("rtic on {}, idle {halves}/2 wraps", stringify!($channel));
                assert_time_is_true(&bus, || $mono::now().as_ticks(), &what);
                let (f, waker) = flag();
                let mut cx = Context::from_waker(&waker);
                let start_ns = clock.now_ns();
                let mut sleep = Box::pin($mono::delay(1u64.secs()));
                assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Pending, "{what}");
                let woke = RefCell::new(None);
                irq.run_until(start_ns + 3_000_000_000, || {
                    $mono::on_interrupt();
                    if f.0.load(Ordering::SeqCst) > 0 && woke.borrow().is_none() {
                        *woke.borrow_mut() = Some(clock.now_ns());
                    }
                });
                let at_ns = woke
                    .into_inner()
                    .unwrap_or_else(|| panic!("{what}: never woke"));
                assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Ready(()), "{what}");
                assert!(at_ns >= start_ns + 1_000_000_000, "{what}: early");
                // rtic-time adds one tick (42 ns) to a delay.
                let late = at_ns - (start_ns + 1_000_000_000);
                assert!(late <= LATE_NS + 42, "{what}: woke {late} ns late");
            }
        }};
    }
    idle!(MonoComp, comparator);
    idle!(MonoLocal, local_timer);
}

/// (3) The queue on a `FaultyEvent` around each clockevent, failing at random (refused
/// programmings that keep the old deadline or stop the channel, lost, doubled and late
/// interrupts, stale status) for 100 ms while timers are started, then no more (and
/// `reprogram()` when an operation returned `QueueError::Hardware`): every timer runs
/// once, never early, and by the later of its deadline and the stop plus the longest late
/// delivery (2 ms) and `LATE_NS`.
#[test]
fn under_random_failures_every_timer_runs_once_never_early() {
    let mut injected = hwtimer_core::sim::fault::FaultStats::default();
    for channel in CHANNELS {
        for seed in 1..=24u64 {
            let s = with_channel(channel, |clock, bus, mct, event| {
                faulty_run(
                    clock,
                    bus,
                    mct,
                    event,
                    seed,
                    &format!("{channel:?} seed {seed}"),
                )
            });
            injected.refused += s.refused;
            injected.dropped += s.dropped;
            injected.doubled += s.doubled;
            injected.late += s.late;
            injected.stale += s.stale;
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

fn faulty_run(
    clock: &SimClock,
    bus: &Bus,
    mct: &'static Mct<Bus>,
    event: Ev,
    seed: u64,
    what: &str,
) -> hwtimer_core::sim::fault::FaultStats {
    let faults = Faults::new();
    let timers: HrTimers<FaultyEvent<Ev>, Time, 12> =
        HrTimers::new(Alarm::new(FaultyEvent::new(event, &faults), mct.time()).unwrap());
    let ids: Vec<TimerId> = (0..12).map(|_| timers.alloc().unwrap()).collect();
    let log = RefCell::new(Vec::new());
    let mut irq =
        Irq::new(clock, &faults, || bus.next_irq_ns(), || bus.line()).retake_after(1_000_000);
    let hardware = RefCell::new(false);
    let note = |r: Result<usize, QueueError>| match r {
        Ok(_) => {}
        Err(QueueError::Hardware(_)) => *hardware.borrow_mut() = true,
        Err(e) => panic!("{what}: {e:?}"),
    };
    let isr = || {
        note(timers.on_interrupt(|id, now| {
            log.borrow_mut()
                .push((id, now, bus.truth(), clock.now_ns()));
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
        let delta = 12_000 + (k as u64 * 7_919 + seed * 104_729) % (150 * HZ / 1000);
        let at = timers.now().unwrap() + delta;
        deadlines.push((at, clock.now_ns(), delta * 1_000_000_000 / HZ));
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
