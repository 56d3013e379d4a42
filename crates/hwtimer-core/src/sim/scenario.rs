//! The queue's and the runtime adapters' promises, written once and run on each driver's own
//! model and time base (not on the generic [`SimCounter`](super::SimCounter)).
//!
//! A driver's tests describe their model as a [`Model`]: its virtual clock, three views of
//! the hardware that do not go through the driver (the time base's true count, the next
//! rise of the channel's interrupt line, the line's level) and the figures of the block
//! ([`Timing`]). The scenarios then check:
//!
//! | scenario | what it proves |
//! |---|---|
//! | [`Model::queue_idle`] | the queue ([`HrTimers`]), idle for a multiple of half a wrap after it emptied or from fresh after `reprogram()`, reads the model's true time, and a 1 s timer runs 1 s later: never early, late by at most [`Timing::late_ns`] |
//! | [`Model::embassy_idle`] | the same through embassy's [`TimeDriver`](crate::embassy::TimeDriver) (in embassy's 1 MHz ticks) |
//! | [`Model::rtic_idle`] | the same through an rtic-time monotonic (`rtic_monotonic!`) |
//! | [`Model::faulty_run`] | the queue on a [`FaultyEvent`] failing at random for 100 ms, then not: every timer runs once, never early, and by the later of its deadline and the stop plus the longest late delivery (2 ms) and [`Timing::late_ns`] |
//!
//! Where [`Timing::quiet_idle`] is set (64-bit counters, whose idle keep-alive needs no
//! interrupt), the idle scenarios also check that not one interrupt came while idle (and
//! [`Model::queue_idle`] that nothing was armed when the idle began).
//!
//! Each scenario panics with what failed and the numbers (it is test infrastructure).

use std::cell::RefCell;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use super::fault::FaultStats;
use super::{Faults, FaultyEvent, Irq, Rates, SimClock};
use crate::clockevent::ClockEvent;
use crate::clocksource::Monotonic;
use crate::queue::{HrTimers, QueueError, Restart, TimerId};
use crate::time::NANOS_PER_SEC;

/// The idle lengths of the idle scenarios, in halves of [`Timing::idle_unit_ns`]: 0.5, 1, 2
/// and 10 units.
pub const IDLE_HALVES: [u64; 4] = [1, 2, 4, 20];

/// The failure rates of [`Model::faulty_run`]: every failure at once, at rates that leave
/// most programmings through.
pub const RATES: Rates = Rates {
    refuse: 250,
    drop: 100,
    double: 100,
    late: 100,
    late_ns: 2_000_000,
    stale: 200,
    wrong_cpu: false,
};

/// A [`Waker`] that counts its wakes, thread-safe (a runtime adapter may keep it in a
/// `static`).
#[derive(Debug, Default)]
pub struct Flag(AtomicUsize);

impl Flag {
    /// A fresh flag and a waker that counts into it.
    pub fn waker() -> (Arc<Flag>, Waker) {
        let f = Arc::new(Flag::default());
        (f.clone(), Waker::from(f))
    }

    /// Wakes so far.
    pub fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// The figures of a block the scenarios need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// The time base's rate in Hz (the queue's ticks).
    pub hz: u64,
    /// How late a 1 s timer may run on this block, in ns (the block's own reasons: margin
    /// ticks, the MMIO time of the programming and of the handler before its time read).
    pub late_ns: u64,
    /// The idle unit: a wrap of the counter, or of the word of it a read must carry over.
    pub idle_unit_ns: u64,
    /// The idle unit's name, for messages ("wraps", "low-word wraps").
    pub idle_unit: &'static str,
    /// An idle queue arms nothing and takes no interrupt (a time base that never wraps).
    pub quiet_idle: bool,
}

impl Timing {
    /// The figures of a block whose idle queue takes interrupts (see the fields).
    pub const fn new(hz: u64, late_ns: u64, idle_unit_ns: u64, idle_unit: &'static str) -> Self {
        Self {
            hz,
            late_ns,
            idle_unit_ns,
            idle_unit,
            quiet_idle: false,
        }
    }

    /// These figures, on a block whose idle queue arms nothing and takes no interrupt.
    pub const fn quiet_idle(self) -> Self {
        Self {
            quiet_idle: true,
            ..self
        }
    }
}

/// A driver's model as the scenarios see it, besides the driver's own types.
pub struct Model<'a> {
    /// The virtual clock of the model.
    pub clock: &'a SimClock,
    /// The block's figures.
    pub timing: Timing,
    /// The time base's true count, read from the model directly (no bus access, no
    /// virtual time).
    pub truth: Box<dyn Fn() -> u64 + 'a>,
    /// The next rise of the channel's interrupt line (virtual ns), from the model.
    pub next_fire: Box<dyn Fn() -> Option<u64> + 'a>,
    /// The level of the channel's interrupt line, from the model.
    pub line: Box<dyn Fn() -> bool + 'a>,
}

impl std::fmt::Debug for Model<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("timing", &self.timing)
            .finish_non_exhaustive()
    }
}

/// The ISR's record of one expiry: (id, the queue's `now`, the model's truth, virtual ns).
type Expiry = (TimerId, u64, u64, u64);

impl<'a> Model<'a> {
    /// The model of a block: its clock, figures and views (see the fields).
    pub fn new(
        clock: &'a SimClock,
        timing: Timing,
        truth: impl Fn() -> u64 + 'a,
        next_fire: impl Fn() -> Option<u64> + 'a,
        line: impl Fn() -> bool + 'a,
    ) -> Self {
        Self {
            clock,
            timing,
            truth: Box::new(truth),
            next_fire: Box::new(next_fire),
            line: Box::new(line),
        }
    }

    /// The time base's true count now.
    pub fn truth(&self) -> u64 {
        (self.truth)()
    }

    /// An interrupt controller on the model's line, failing as `faults` say.
    pub fn irq<'b>(&'b self, faults: &'b Faults) -> Irq<'b> {
        Irq::new(self.clock, faults, || (self.next_fire)(), || (self.line)())
    }

    /// The time base reads the model's count: `read` made between two looks at the model
    /// lies between them. Returns what `read` returned.
    ///
    /// # Panics
    /// When it does not.
    pub fn assert_time_is_true(&self, read: impl FnOnce() -> u64, what: &str) -> u64 {
        let before = self.truth();
        let now = read();
        let after = self.truth();
        assert!(
            before <= now && now <= after,
            "{what}: time base {now}, model {before}..={after}"
        );
        now
    }

    /// Let virtual time run for `halves` half idle units; where the block idles quietly,
    /// check that no interrupt came.
    fn idle(&self, irq: &mut Irq<'_>, halves: u64, isr: impl FnMut(), what: &str) {
        let delivered = irq.delivered;
        irq.run_until(
            self.clock.now_ns() + self.timing.idle_unit_ns / 2 * halves,
            isr,
        );
        if self.timing.quiet_idle {
            assert_eq!(irq.delivered, delivered, "{what}: an interrupt while idle");
        }
    }

    /// The queue `timers` (one free slot at least, nothing started), idle for `halves` half
    /// units after a first 1 ms timer ran (or, `fresh`, from `reprogram()` with nothing
    /// run): the time base reads the model's count, and a 1 s timer runs 1 s later, never
    /// early (by the queue's `now` and by the model's count), late by at most
    /// [`Timing::late_ns`] after the virtual instant of the time read. `label` starts the
    /// messages.
    ///
    /// # Panics
    /// When a check fails, or the queue returns an error.
    pub fn queue_idle<E: ClockEvent, M: Monotonic, const N: usize>(
        &self,
        timers: &HrTimers<E, M, N>,
        fresh: bool,
        halves: u64,
        label: &str,
    ) {
        let clock = self.clock;
        let hz = self.timing.hz;
        let what = format!(
            "{label}{} queue, idle {halves}/2 {}",
            ["used", "fresh"][usize::from(fresh)],
            self.timing.idle_unit
        );
        let faults = Faults::new();
        let id = timers.alloc().unwrap();
        let fired = RefCell::new(Vec::new());
        let mut irq = self.irq(&faults);
        let mut isr = || {
            timers
                .on_interrupt(|_, now| {
                    fired.borrow_mut().push((now, self.truth(), clock.now_ns()));
                    Restart::No
                })
                .unwrap();
        };
        if fresh {
            timers.reprogram().unwrap();
        } else {
            // A first timer (1 ms), so the queue has run and emptied.
            timers.start_after(id, hz / 1000).unwrap();
            irq.run_until(clock.now_ns() + 2_000_000, &mut isr);
            assert_eq!(fired.borrow().len(), 1, "{what}");
        }
        if self.timing.quiet_idle {
            assert_eq!((self.next_fire)(), None, "{what}: idle arms nothing");
        }
        self.idle(&mut irq, halves, &mut isr, &what);
        let start_ns = clock.now_ns();
        let now = self.assert_time_is_true(|| timers.now().unwrap(), &what);
        let deadline = now + hz;
        timers.start(id, deadline).unwrap();
        irq.run_until(start_ns + 3_000_000_000, &mut isr);
        let fired = fired.into_inner();
        assert_eq!(fired.len(), 2 - usize::from(fresh), "{what}");
        let &(seen, true_at, at_ns) = fired.last().unwrap();
        assert!(seen >= deadline && true_at >= deadline, "{what}: early");
        // `now` was read at `start_ns` or later: this is the lateness, or a little more.
        let late = at_ns - (start_ns + NANOS_PER_SEC);
        assert!(
            late <= self.timing.late_ns,
            "{what}: a 1 s timer ran {late} ns late"
        );
    }

    /// embassy's driver `driver` (initialised on this model's channel and time base, its
    /// queue empty), idle for each of [`IDLE_HALVES`] from where it is: `now_hw()` is the
    /// model's count and `now()` it in embassy's 1 MHz ticks (rounded down), and a wake 1 s
    /// after `now()` comes never early (by `now()`, by the model's count and by virtual
    /// time), late by at most [`Timing::late_ns`] + 1 µs (the rounding of `now()`).
    /// `label` starts the messages.
    ///
    /// # Panics
    /// When a check fails.
    #[cfg(feature = "embassy")]
    pub fn embassy_idle<E, M, const N: usize>(
        &self,
        driver: &'static crate::embassy::TimeDriver<E, M, N>,
        label: &str,
    ) where
        E: ClockEvent + Send + 'static,
        M: Monotonic + Send + Sync + 'static,
    {
        use embassy_time_driver::Driver as _;
        let clock = self.clock;
        let hz = u128::from(self.timing.hz);
        let us = |ticks: u64| (u128::from(ticks) * 1_000_000 / hz) as u64;
        let faults = Faults::new();
        let mut irq = self.irq(&faults);
        for halves in IDLE_HALVES {
            let what = format!("{label}, idle {halves}/2 {}", self.timing.idle_unit);
            self.idle(&mut irq, halves, || driver.on_interrupt(), &what);
            self.assert_time_is_true(|| driver.now_hw(), &what);
            // In embassy's 1 MHz ticks, rounded down.
            let (before, now, after) = (self.truth(), driver.now(), self.truth());
            assert!(
                us(before) <= now && now <= us(after),
                "{what}: embassy now {now} µs, model {before}..={after} ticks"
            );
            let (f, waker) = Flag::waker();
            let at = now + 1_000_000;
            let start_ns = clock.now_ns();
            driver.schedule_wake(at, &waker);
            let woke = RefCell::new(None);
            irq.run_until(start_ns + 3_000_000_000, || {
                driver.on_interrupt();
                if f.wakes() > 0 && woke.borrow().is_none() {
                    *woke.borrow_mut() = Some((driver.now(), self.truth(), clock.now_ns()));
                }
            });
            let (seen, true_at, at_ns) = woke
                .into_inner()
                .unwrap_or_else(|| panic!("{what}: never woke"));
            assert!(
                seen >= at
                    && at_ns / 1_000 >= at
                    && u128::from(true_at) * 1_000_000 >= u128::from(at) * hz,
                "{what}: early"
            );
            // `at` is 1 s after a `now` rounded down by under 1 µs; then as the queue.
            let late = at_ns.saturating_sub(start_ns + NANOS_PER_SEC);
            assert!(
                late <= self.timing.late_ns + 1_000,
                "{what}: woke {late} ns late"
            );
        }
    }

    /// An rtic-time monotonic (started on this model's channel and time base, nothing
    /// waiting), idle for each of [`IDLE_HALVES`] from where it is: `now()` (in ticks) is
    /// the model's count, and a 1 s delay ends 1 s later, never early, late by at most
    /// [`Timing::late_ns`] and the one tick rtic-time adds to a delay. The monotonic is
    /// given by its handler, its `now()` in ticks and a 1 s `delay`. `label` starts the
    /// messages.
    ///
    /// # Panics
    /// When a check fails.
    pub fn rtic_idle<F: Future<Output = ()>>(
        &self,
        on_interrupt: fn(),
        now: impl Fn() -> u64,
        delay_1s: impl Fn() -> F,
        label: &str,
    ) {
        let clock = self.clock;
        let tick_ns = NANOS_PER_SEC.div_ceil(self.timing.hz);
        let faults = Faults::new();
        let mut irq = self.irq(&faults);
        for halves in IDLE_HALVES {
            let what = format!("{label}, idle {halves}/2 {}", self.timing.idle_unit);
            self.idle(&mut irq, halves, on_interrupt, &what);
            self.assert_time_is_true(&now, &what);
            let (f, waker) = Flag::waker();
            let mut cx = Context::from_waker(&waker);
            let start_ns = clock.now_ns();
            let mut sleep = Box::pin(delay_1s());
            assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Pending, "{what}");
            let woke = RefCell::new(None);
            irq.run_until(start_ns + 3_000_000_000, || {
                on_interrupt();
                if f.wakes() > 0 && woke.borrow().is_none() {
                    *woke.borrow_mut() = Some(clock.now_ns());
                }
            });
            let at_ns = woke
                .into_inner()
                .unwrap_or_else(|| panic!("{what}: never woke"));
            assert_eq!(sleep.as_mut().poll(&mut cx), Poll::Ready(()), "{what}");
            assert!(at_ns >= start_ns + NANOS_PER_SEC, "{what}: early");
            // rtic-time adds one tick to a delay (its instant is "at least" that far).
            let late = at_ns - (start_ns + NANOS_PER_SEC);
            assert!(
                late <= self.timing.late_ns + tick_ns,
                "{what}: woke {late} ns late"
            );
        }
    }

    /// The queue `timers(faults)` builds (on a [`FaultyEvent`] scripted by `faults`), with
    /// a timer in each of its `N` slots, two started every 10 ms and due 0.5 to 150 ms
    /// later, failing at random ([`RATES`], drawn from `seed`) for 100 ms, then no more
    /// (and `reprogram()` when an operation returned [`QueueError::Hardware`]): every timer
    /// runs once, never early (by the queue's `now` and by the model's count), and by the
    /// later of its deadline and the stop plus the longest late delivery (2 ms) and
    /// [`Timing::late_ns`]. Returns what was injected. `what` starts the messages.
    ///
    /// # Panics
    /// When a check fails, or the queue returns an error other than a hardware one.
    pub fn faulty_run<E: ClockEvent, M: Monotonic, const N: usize>(
        &self,
        seed: u64,
        what: &str,
        timers: impl FnOnce(&Faults) -> HrTimers<FaultyEvent<E>, M, N>,
    ) -> FaultStats {
        let clock = self.clock;
        let hz = self.timing.hz;
        let faults = Faults::new();
        let timers = timers(&faults);
        let ids: Vec<TimerId> = (0..N).map(|_| timers.alloc().unwrap()).collect();
        let log = RefCell::new(Vec::<Expiry>::new());
        let mut irq = self.irq(&faults).retake_after(1_000_000);
        let hardware = RefCell::new(false);
        let note = |r: Result<(), QueueError>| match r {
            Ok(()) => {}
            Err(QueueError::Hardware(_)) => *hardware.borrow_mut() = true,
            Err(e) => panic!("{what}: {e:?}"),
        };
        let isr = || {
            note(
                timers
                    .on_interrupt(|id, now| {
                        log.borrow_mut()
                            .push((id, now, self.truth(), clock.now_ns()));
                        Restart::No
                    })
                    .map(|_| ()),
            )
        };
        faults.random(seed, RATES);
        let stop_ns = clock.now_ns() + 100_000_000;
        let mut deadlines = Vec::new();
        for (k, &id) in ids.iter().enumerate() {
            // Two timers every 10 ms, due 0.5 to 150 ms later.
            if k % 2 == 0 && k > 0 {
                irq.run_until(clock.now_ns() + 10_000_000, isr);
            }
            let delta = hz / 2000 + (k as u64 * 7_919 + seed * 104_729) % (150 * hz / 1000);
            let at = timers.now().unwrap() + delta;
            deadlines.push((at, clock.now_ns(), delta * NANOS_PER_SEC / hz));
            note(timers.start(id, at));
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
                at_ns <= due_ns + 2_000_000 + self.timing.late_ns,
                "{what}: timer {k} ran at {at_ns} ns, due {due_ns} ns"
            );
        }
        stats
    }
}

/// Every kind of failure (refused, dropped, doubled, late, stale) was injected at least
/// `min` times over a run's `injected` total (a check that could not fail otherwise).
///
/// # Panics
/// When one kind was injected fewer times.
pub fn assert_every_failure_injected(injected: &FaultStats, min: u64) {
    let i = injected;
    assert!(
        [i.refused, i.dropped, i.doubled, i.late, i.stale]
            .iter()
            .all(|&n| n >= min),
        "{i:?}"
    );
}
