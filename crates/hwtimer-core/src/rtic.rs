//! An rtic-time 3 timer-queue backend on any [`ClockEvent`] + [`Monotonic`] pair (feature
//! `rtic`): RTIC's `Monotonic` (a blanket trait over `TimerQueueBasedMonotonic`), usable
//! from RTIC tasks and from any other executor.
//!
//! rtic-time's [`TimerQueueBackend`](rtic_time::timer_queue::TimerQueueBackend) has
//! associated functions only, so every instance is a type with its statics. The
//! [`rtic_monotonic!`](crate::rtic_monotonic) macro generates both; this module holds the
//! state they share, [`Backend`].
//!
//! ```ignore
//! hwtimer_core::rtic_monotonic!(pub Mono, MyEvent, MyTime, 24_000_000);
//! // at start-up:
//! Mono::start(event, time).unwrap();
//! // in the channel's interrupt handler:
//! Mono::on_interrupt();
//! // anywhere:
//! Mono::delay(10.millis()).await;
//! ```
//!
//! # Timing contract
//!
//! Ticks are the time base's own (`u64`, monotonic, never wrapping in practice), so
//! instants need no conversion. `set_compare(instant)` arms the channel through an
//! [`Alarm`]: an absolute channel gets the compare value itself, a delta channel the delta
//! computed from the time base at programming time, rounded so it is never early; an
//! instant already passed is armed with `min_delta` so the interrupt comes at once.
//! `now()` is the time base's own read without the backend's lock (the time base is stored
//! once at [`init`](Backend::init), which is why that takes `&'static self`; see there why
//! no lock is needed). rtic-time checks `now() >= instant` before it wakes a task, so a wait is never early
//! whatever the hardware does; it is late by what [`Alarm`] documents plus interrupt
//! latency.
//!
//! **One interrupt per wake.** rtic-time calls `pend_interrupt` whenever a wait becomes
//! the queue's new head, without telling the backend its instant; only its interrupt
//! handler reads the head and calls `set_compare`. Raising an interrupt for that would cost
//! a second interrupt for every such wait. So the default `pend_interrupt` runs the
//! handler's work in place (`serve()`: acknowledge, wake what is due, program the new head),
//! in one critical section; the interrupt handler runs it in one critical section too, so
//! the two never interleave (rtic-time's own handler reads the head and writes the compare
//! in separate critical sections, and a head inserted between them would be lost). A wait
//! already due when it is inserted is woken by that call, so none is missed. The macro can
//! be given its own pend instead (LoongArch: a software interrupt, because ESTAT.TI cannot
//! be set by software; a firmware whose tasks wait from another core than the channel's: an
//! IPI to it). The price: rtic-time's handler, wakes included, runs with interrupts masked.
//!
//! **Idle.** When rtic-time's queue is empty it calls `disable_timer`; the backend then
//! keeps the channel at [`Alarm::keep_alive`] instead of stopping it (and starts so), so a
//! time base narrower than 64 bits is still read at least every
//! [`max_idle_ticks`](Monotonic::max_idle_ticks): a 10-minute idle followed by a 1 s delay
//! wakes 1 s later, not after the wraps the time base lost.
//!
//! # Multi-core: one monotonic per core
//!
//! Give each core its own monotonic (its own `rtic_monotonic!` type on a channel whose
//! interrupt reaches that core), and await it only from that core. A monotonic shared by
//! two cores can lose a wake, late but never early: a task's delay inserts itself and pends
//! the interrupt in two critical sections, and the default pend, run on the other core,
//! programs a channel whose registers may belong to the first (`CpuBound`: refused). The
//! exception is a monotonic whose pend is a real interrupt on the owning core (an
//! IPI from the other core): the handler then runs again after the insert and programs the
//! new head. The embassy adapter takes the queue and programs the channel in one critical
//! section, so its one driver is shared by every core; but a channel whose registers belong
//! to one core (`CpuBound`) refuses a programming from another, which has to ask the owner
//! to re-program (an IPI to it, whose handler calls the driver's `on_interrupt`). The
//! smdkc210-async firmware runs a monotonic per core; loongarch-virt-async shares one, pended
//! by IPI, and asks core 0 by IPI to re-program embassy's driver.

use core::cell::RefCell;

use critical_section::Mutex;

use crate::clockevent::{Alarm, ClockEvent, TimeSlot};
use crate::clocksource::Monotonic;
use crate::error::Error;

/// The state behind one rtic-time backend: the alarm on the channel in a
/// `critical_section::Mutex` (across cores, a multi-core implementation: see
/// [the crate docs](crate#multi-core-which-sync-types-need-a-multi-core-critical-section)),
/// and its time base, stored once beside it so that [`now`](Self::now) reads it without
/// the lock.
pub struct Backend<E: ClockEvent, M: Monotonic + 'static> {
    alarm: Mutex<RefCell<Option<Alarm<E, &'static M>>>>,
    time: TimeSlot<M>,
}

impl<E: ClockEvent, M: Monotonic + 'static> Default for Backend<E, M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: ClockEvent, M: Monotonic + 'static> Backend<E, M> {
    /// No hardware yet: `now()` reads 0 and nothing is armed.
    pub const fn new() -> Self {
        Self {
            alarm: Mutex::new(RefCell::new(None)),
            time: TimeSlot::new(),
        }
    }

    /// Hand over the channel and its time base (the backend is a `static`: the
    /// [`rtic_monotonic!`](crate::rtic_monotonic) macro's).
    ///
    /// The time base is stored once, in the backend, and shared with the channel's alarm;
    /// [`now`](Self::now) reads it without the lock. That needs nothing the lock gave: the
    /// time base is `Sync` and its own `now()` never decreases, across cores too (the
    /// family's 64-bit time bases publish their extension atomically). A later call
    /// replaces the channel only: its `time` must count at the same rate and is dropped.
    ///
    /// Errors: those of [`Alarm::new`]; [`Error::Busy`] if re-entered or while another
    /// core is in the middle of the first call;
    /// [`ConfigError::RateMismatch`](crate::ConfigError::RateMismatch) when a later call's
    /// time base counts at another rate than the first.
    pub fn init(&'static self, event: E, time: M) -> Result<(), Error> {
        // What `Alarm::new` refuses, refused before the time base is stored for good.
        crate::clockevent::check_pair(&event, &time)?;
        let shared = self.time.set_or_share(time, true)?;
        let alarm = Alarm::new(event, shared)?;
        critical_section::with(|cs| {
            let mut slot = self
                .alarm
                .borrow(cs)
                .try_borrow_mut()
                .map_err(|_| Error::Busy)?;
            if let Some(mut old) = slot.replace(alarm) {
                old.cancel();
            }
            // The queue starts empty: keep the time base read until the first wait.
            if let Some(a) = slot.as_mut() {
                Self::keep_alive(a);
            }
            Ok(())
        })
    }

    /// The time base (0 before [`init`](Self::init)), read without the lock.
    #[inline]
    pub fn now(&self) -> u64 {
        // Stored flagged by `init` (the flag picks the cell the fast read looks at).
        match self.time.get_flagged() {
            Some(time) => time.now(),
            None => 0,
        }
    }

    /// Arm for `instant` (time-base ticks), never early; a passed instant fires at once.
    pub fn set_compare(&self, instant: u64) {
        self.with(|a| {
            if a.set_deadline_or_min(instant).is_err() {
                // The channel refused (a write not acknowledged): ask for the earliest
                // interrupt instead, so the queue is looked at again.
                let _ = a.set_deadline_or_min(0);
            }
        });
    }

    /// Acknowledge the channel (rtic-time calls this first in the interrupt).
    pub fn clear_compare_flag(&self) {
        self.with(|a| a.event_mut().ack());
    }

    /// Make the interrupt come as soon as the channel allows.
    pub fn pend(&self) {
        self.with(|a| {
            let _ = a.set_deadline_or_min(0);
        });
    }

    /// rtic-time calls this when its queue is empty: the channel is not stopped but kept
    /// at [`Alarm::keep_alive`], so a time base narrower than 64 bits is still read at
    /// least every [`max_idle_ticks`](Monotonic::max_idle_ticks) (each of those interrupts
    /// finds the queue empty and comes back here); one that needs no reads is stopped.
    pub fn disable(&self) {
        self.with(Self::keep_alive);
    }

    fn keep_alive(alarm: &mut Alarm<E, &'static M>) {
        if alarm.keep_alive().is_err() {
            // A refused write: ask for the earliest interrupt, which comes back here.
            crate::log_warn!("rtic: channel refused the idle keep-alive");
            let _ = alarm.set_deadline_or_min(0);
        }
    }

    /// Run `f` on the alarm, if initialised and not re-entered.
    pub fn with<R>(&self, f: impl FnOnce(&mut Alarm<E, &'static M>) -> R) -> Option<R> {
        critical_section::with(|cs| {
            let mut slot = self.alarm.borrow(cs).try_borrow_mut().ok()?;
            slot.as_mut().map(f)
        })
    }
}

/// Run `f` in one critical section (the [`rtic_monotonic!`](crate::rtic_monotonic)
/// handler's, so that its steps are not interleaved with another call of it).
#[doc(hidden)]
#[inline]
pub fn atomically(f: impl FnOnce()) {
    critical_section::with(|_| f())
}

impl<E: ClockEvent, M: Monotonic + 'static> core::fmt::Debug for Backend<E, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Backend").finish_non_exhaustive()
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::Backend;
    use crate::error::{ConfigError, Error};
    use crate::extend::Extended;
    use crate::sim::{SimClock, SimClockEvent, SimCounter};

    /// `now()` reads the time base without the backend's lock: it reads the time even
    /// while the lock is held (from inside `with`). With the lock in `now()` this read 0.
    /// A later `init` keeps the first time base and refuses one at another rate.
    #[test]
    fn now_reads_the_time_while_the_backend_is_locked() {
        let clock = SimClock::new();
        let backend: &'static Backend<SimClockEvent, Extended<SimCounter>> =
            Box::leak(Box::new(Backend::new()));
        assert_eq!(backend.now(), 0, "before init");
        let ev = || SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
        let tb = |hz| Extended::new(SimCounter::new(&clock, 32, hz));
        backend.init(ev(), tb(1_000_000)).unwrap();
        clock.advance(5_000_000);
        let outside = backend.now();
        assert!(outside >= 5_000, "{outside}");
        let inside = backend.with(|_| backend.now()).unwrap();
        assert!(inside >= outside, "inside the lock: {inside} < {outside}");
        backend.init(ev(), tb(1_000_000)).unwrap();
        assert_eq!(
            backend.init(ev(), tb(2_000_000)),
            Err(Error::Config(ConfigError::RateMismatch))
        );
        assert!(backend.now() >= inside);
    }

    crate::rtic_monotonic!(OneIrq, SimClockEvent, Extended<SimCounter>, 1_000_000);

    struct Count(std::sync::atomic::AtomicUsize);
    impl std::task::Wake for Count {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// A wait that becomes the queue's head costs no interrupt of its own: after each poll
    /// the channel is armed at the head's instant (with the old pend it was armed at
    /// `min_delta`, an interrupt 1 µs later that only programmed the head). Two waits, the
    /// second a new earlier head, wake after two interrupts, neither early.
    #[test]
    fn a_new_head_is_armed_in_place_one_interrupt_per_wake() {
        use crate::__rtic_time::Timebase as _;
        use crate::__rtic_time::fugit::ExtU64;
        use std::task::{Context, Poll, Waker};
        let clock = SimClock::new();
        let event = SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
        let probe = event.probe();
        OneIrq::start(event, Extended::new(SimCounter::new(&clock, 32, 1_000_000))).unwrap();
        let count = std::sync::Arc::new(Count(Default::default()));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let start = clock.now_ns();
        let mut long = std::pin::pin!(OneIrq::delay(1000u64.millis()));
        assert_eq!(long.as_mut().poll(&mut cx), Poll::Pending);
        let fire = probe.next_fire_ns().expect("armed");
        assert!(
            fire - start >= 1_000_000_000,
            "armed {} ns ahead",
            fire - start
        );
        let mut short = std::pin::pin!(OneIrq::delay(10u64.millis()));
        assert_eq!(short.as_mut().poll(&mut cx), Poll::Pending);
        let fire = probe.next_fire_ns().expect("armed");
        assert!(
            (10_000_000..20_000_000).contains(&(fire - start)),
            "the new head armed {} ns ahead",
            fire - start
        );
        let mut interrupts = 0;
        let mut woke = [None, None];
        while woke.contains(&None) {
            assert!(interrupts < 10, "too many interrupts");
            let t = probe.next_fire_ns().expect("a wait is armed");
            clock.advance_to(t);
            OneIrq::on_interrupt();
            interrupts += 1;
            for (i, f) in [long.as_mut(), short.as_mut()].into_iter().enumerate() {
                if woke[i].is_none() && f.poll(&mut cx).is_ready() {
                    woke[i] = Some(clock.now_ns() - start);
                }
            }
        }
        assert_eq!(interrupts, 2, "one interrupt per wake");
        assert!(woke[1].unwrap() >= 10_000_000 && woke[0].unwrap() >= 1_000_000_000);
    }
}

/// Generate an rtic-time monotonic: a type implementing rtic-time's `TimerQueueBackend`
/// and `TimerQueueBasedMonotonic` (so RTIC's `Monotonic`), with its statics, on a
/// [`ClockEvent`] type and a [`Monotonic`] time base type counting at `HZ`.
///
/// ```ignore
/// hwtimer_core::rtic_monotonic!(pub Mono, MyEvent, MyTime, 24_000_000);
/// // or, with a direct way to pend the interrupt line:
/// hwtimer_core::rtic_monotonic!(pub Mono, MyEvent, MyTime, 100_000_000, pend = my_pend);
/// ```
///
/// The generated type has `start(event, time)` (which refuses a time base that does not
/// count at `HZ`), `on_interrupt()` (call it from the channel's interrupt handler, and only
/// there) and `backend()`.
#[macro_export]
macro_rules! rtic_monotonic {
    ($vis:vis $name:ident, $event:ty, $time:ty, $hz:expr $(, pend = $pend:expr)? $(,)?) => {
        /// An rtic-time monotonic on a hardware timer (generated by `rtic_monotonic!`).
        $vis struct $name;

        impl $name {
            /// The shared state.
            pub fn backend() -> &'static $crate::rtic::Backend<$event, $time> {
                static BACKEND: $crate::rtic::Backend<$event, $time> =
                    $crate::rtic::Backend::new();
                &BACKEND
            }

            /// Hand over the hardware and start the timer queue.
            ///
            /// Errors: [`ConfigError::RateMismatch`]($crate::ConfigError::RateMismatch) when the time
            /// base does not count at the rate the monotonic's instants are in (its
            /// durations would then be wrong by that ratio, and waits early when it is
            /// faster); those of `Backend::init`.
            pub fn start(event: $event, time: $time) -> ::core::result::Result<(), $crate::Error> {
                if ::core::primitive::u64::from($crate::Monotonic::freq_hz(&time))
                    != ($hz) as ::core::primitive::u64
                {
                    return ::core::result::Result::Err($crate::Error::Config(
                        $crate::ConfigError::RateMismatch,
                    ));
                }
                Self::backend().init(event, time)?;
                <Self as $crate::__rtic_time::timer_queue::TimerQueueBackend>::timer_queue()
                    .initialize(Self);
                Ok(())
            }

            /// Call from the channel's interrupt handler, on the channel's core.
            ///
            /// The handler's work runs in one critical section (see [`serve`](Self::serve)).
            pub fn on_interrupt() {
                Self::serve()
            }

            /// Acknowledge the channel, wake what is due and program the next head, all in
            /// one critical section, from any context on the channel's core. This is what
            /// the interrupt handler runs, and what the default `pend_interrupt` runs in
            /// place instead of raising an interrupt (so a wait that becomes the queue's
            /// head costs no interrupt of its own; one already due is woken here).
            pub fn serve() {
                $crate::rtic::atomically(|| {
                    // SAFETY: rtic-time asks that its handler not run interleaved with
                    // itself (its head read and its compare write are separate critical
                    // sections, and a head inserted between them would be overwritten).
                    // Every call here runs the whole handler inside one critical section,
                    // so no other call (from a task that preempts, a thread-context pend,
                    // or the interrupt) can come between its steps.
                    unsafe {
                        <Self as $crate::__rtic_time::timer_queue::TimerQueueBackend>::timer_queue()
                            .on_monotonic_interrupt()
                    }
                })
            }
        }

        impl $crate::__rtic_time::timer_queue::TimerQueueBackend for $name {
            type Ticks = u64;
            // Inlined into rtic-time's callers: the read is the time base's plus one
            // load and compare (the call and its frame cost about 12 A9 instructions more).
            #[inline]
            fn now() -> u64 {
                Self::backend().now()
            }
            fn set_compare(instant: u64) {
                Self::backend().set_compare(instant)
            }
            fn clear_compare_flag() {
                Self::backend().clear_compare_flag()
            }
            fn pend_interrupt() {
                $crate::rtic_monotonic!(@pend $name $(, $pend)?)
            }
            fn disable_timer() {
                Self::backend().disable()
            }
            fn timer_queue() -> &'static $crate::__rtic_time::timer_queue::TimerQueue<Self> {
                static QUEUE: $crate::__rtic_time::timer_queue::TimerQueue<$name> =
                    $crate::__rtic_time::timer_queue::TimerQueue::new();
                &QUEUE
            }
        }

        impl $crate::__rtic_time::monotonic::TimerQueueBasedMonotonic for $name {
            type Backend = Self;
            type Instant = $crate::__rtic_time::fugit::MonotonicTimerInstantU64<{ $hz }>;
            type Duration = $crate::__rtic_time::fugit::TimerDurationU64<{ $hz }>;
        }
    };
    (@pend $name:ident) => {
        $name::serve()
    };
    (@pend $name:ident, $pend:expr) => {
        ($pend)()
    };
}
