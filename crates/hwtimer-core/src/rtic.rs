//! An rtic-time 3 timer-queue backend on any [`ClockEvent`] + [`Monotonic`] pair (feature
//! `rtic`): RTIC's `Monotonic` (a blanket trait over `TimerQueueBasedMonotonic`), usable
//! from RTIC tasks and from any other executor.
//!
//! rtic-time's [`TimerQueueBackend`](rtic_time::timer_queue::TimerQueueBackend) has
//! associated functions only, so every instance is a type with its statics. The
//! [`rtic_monotonic!`](crate::rtic_monotonic) macro generates both; this module holds the
//! state they share, [`Backend`].
//!
//! ```no_run
//! # use hwtimer_core::{Extended, sim::{SimClock, SimClockEvent, SimCounter}};
//! use fugit::ExtU64 as _; // 10.millis()
//! use rtic_time::Timebase as _; // now, delay, delay_until, timeout_after, ...
//! // The firmware's channel and time base; here the simulation's stand in for them.
//! type MyEvent = SimClockEvent;
//! type MyTime = Extended<SimCounter>;
//!
//! hwtimer_core::rtic_monotonic!(pub Mono, MyEvent, MyTime, 24_000_000);
//!
//! fn start_time(event: MyEvent, time: MyTime) -> Result<(), hwtimer_core::Error> {
//!     Mono::start(event, time) // then enable the channel's interrupt
//! }
//!
//! fn on_channel_irq() {
//!     Mono::on_interrupt();
//! }
//!
//! async fn task() {
//!     Mono::delay(10u64.millis()).await;
//! }
//! # let clock = SimClock::new();
//! # start_time(
//! #     SimClockEvent::new(&clock, 24_000_000, 1, u32::MAX as u64),
//! #     Extended::new(SimCounter::new(&clock, 32, 24_000_000)),
//! # ).unwrap();
//! # on_channel_irq();
//! # let _ = task();
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
//! **Pending the interrupt.** rtic-time calls `pend_interrupt` whenever a wait becomes the
//! queue's new head, without telling the backend its instant; only its interrupt handler
//! reads the head and calls `set_compare`, and rtic-time asks that the handler
//! (`on_monotonic_interrupt`) run only from the monotonic's interrupt. So the default
//! `pend_interrupt` arms the channel for its `min_delta` ([`Backend::pend`]): the
//! interrupt comes as soon as the hardware allows, and its handler programs the new head.
//! That costs one interrupt per new head on top of one per wake. A firmware with a cheaper
//! way to raise the line gives the macro its own pend (a GIC set-pending or an SGI; on
//! LoongArch a software interrupt, because ESTAT.TI cannot be set by software; for tasks
//! that wait from another core than the channel's, an IPI to it).
//!
//! **Refusals.** When the channel refuses a programming (and the `min_delta` fallback
//! too), nothing is armed for the head: the backend remembers it ([`Backend::refusal`]),
//! and a monotonic given its own pend calls it, so the handler runs again and retries
//! (until the failure stops; a pend that runs the handler in place is called once per
//! streak of refusals, not nested). With the default pend, which is the channel itself, or
//! when a refusal outlasts that one retry, the firmware must make the handler run again:
//! pend the channel's interrupt line, on the channel's core for [`Error::WrongCpu`], while
//! `refusal()` is `Some` (from its idle path or a tick; a time base narrower than 64 bits
//! needs it within [`max_idle_ticks`](Monotonic::max_idle_ticks) when the queue is empty).
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

use core::cell::{Cell, RefCell};
use core::sync::atomic::{AtomicBool, Ordering};

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
    /// The last programming was refused with this error: nothing is known to be armed.
    refusal: Mutex<Cell<Option<Error>>>,
    /// A retry through the firmware's pend is under way (see [`retry`](Self::retry)).
    retrying: AtomicBool,
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
            refusal: Mutex::new(Cell::new(None)),
            retrying: AtomicBool::new(false),
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
            let result = slot.as_mut().map_or(Ok(()), Self::keep_alive);
            self.refusal.borrow(cs).set(result.err());
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
    ///
    /// Errors: the channel's error when it refused the programming and then the
    /// `min_delta` fallback too (nothing is known to be armed; [`refusal`](Self::refusal)
    /// says so until a programming succeeds).
    pub fn set_compare(&self, instant: u64) -> Result<(), Error> {
        self.program(|a| match a.set_deadline_or_min(instant) {
            Ok(_) => Ok(()),
            // The channel refused (a write not acknowledged): ask for the earliest
            // interrupt instead, so the queue is looked at again.
            Err(_) => a.set_deadline_or_min(0).map(|_| ()),
        })
    }

    /// Acknowledge the channel (rtic-time calls this first in the interrupt).
    pub fn clear_compare_flag(&self) {
        self.with(|a| a.event_mut().ack());
    }

    /// Make the interrupt come as soon as the channel allows (arm it for `min_delta`).
    ///
    /// Errors: the channel's, when it refused.
    pub fn pend(&self) -> Result<(), Error> {
        self.program(|a| a.set_deadline_or_min(0).map(|_| ()))
    }

    /// rtic-time calls this when its queue is empty: the channel is not stopped but kept
    /// at [`Alarm::keep_alive`], so a time base narrower than 64 bits is still read at
    /// least every [`max_idle_ticks`](Monotonic::max_idle_ticks) (each of those interrupts
    /// finds the queue empty and comes back here); one that needs no reads is stopped.
    ///
    /// Errors: as [`set_compare`](Self::set_compare).
    pub fn disable(&self) -> Result<(), Error> {
        self.program(Self::keep_alive)
    }

    /// The error of the last programming, when it was refused and nothing is known to be
    /// armed; `None` once one succeeds. See the [module docs](self) for what retries it.
    pub fn refusal(&self) -> Option<Error> {
        critical_section::with(|cs| self.refusal.borrow(cs).get())
    }

    /// After a refused programming, run the firmware's `pend` to have the handler run again
    /// (the [`rtic_monotonic!`](crate::rtic_monotonic) macro calls it), unless a retry is
    /// already under way: a pend that runs the handler in place (on the channel's core)
    /// would otherwise nest the handler once more for every refusal in a row. A refusal
    /// met inside the retry is kept in [`refusal`](Self::refusal) for the firmware.
    #[doc(hidden)]
    pub fn retry(&self, pend: impl FnOnce()) {
        if !self.retrying.swap(true, Ordering::Acquire) {
            pend();
            self.retrying.store(false, Ordering::Release);
        }
    }

    /// Run a programming under the lock and record whether it was refused.
    fn program(
        &self,
        f: impl FnOnce(&mut Alarm<E, &'static M>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        critical_section::with(|cs| {
            let mut slot = self
                .alarm
                .borrow(cs)
                .try_borrow_mut()
                .map_err(|_| Error::Busy)?;
            let Some(alarm) = slot.as_mut() else {
                return Ok(());
            };
            let result = f(alarm);
            if let Err(_e) = result {
                crate::log_warn!("rtic: channel refused: {}", _e);
            }
            self.refusal.borrow(cs).set(result.err());
            result
        })
    }

    fn keep_alive(alarm: &mut Alarm<E, &'static M>) -> Result<(), Error> {
        if alarm.keep_alive().is_ok() {
            return Ok(());
        }
        // A refused write: ask for the earliest interrupt, which comes back here.
        alarm.set_deadline_or_min(0).map(|_| ())
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

    /// A wait that becomes the queue's head is programmed from a real interrupt: the
    /// default pend arms the channel for `min_delta`, and that interrupt's handler (never
    /// task context, as rtic-time asks) programs the head. Two waits, the second a new
    /// earlier head, wake after three interrupts (the pend's, then one per wake), neither
    /// early. With the pend that ran the handler in place, the channel was armed at the
    /// head's instant straight from the poll: this failed on "armed ... ns ahead".
    #[test]
    fn a_new_head_is_programmed_from_a_real_interrupt() {
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
        let mut short = std::pin::pin!(OneIrq::delay(10u64.millis()));
        assert_eq!(short.as_mut().poll(&mut cx), Poll::Pending);
        let fire = probe.next_fire_ns().expect("armed");
        assert!(
            fire - start < 10_000,
            "the pend armed {} ns ahead, not at min_delta",
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
        assert_eq!(interrupts, 3, "the pend's, then one per wake");
        assert!(woke[1].unwrap() >= 10_000_000 && woke[0].unwrap() >= 1_000_000_000);
        assert_eq!(OneIrq::refusal(), None);
    }
}

/// Generate an rtic-time monotonic: a type implementing rtic-time's `TimerQueueBackend`
/// and `TimerQueueBasedMonotonic` (so RTIC's `Monotonic`), with its statics, on a
/// [`ClockEvent`] type and a [`Monotonic`] time base type counting at `HZ`.
///
/// ```
/// # use hwtimer_core::{Extended, sim::{SimClockEvent, SimCounter}};
/// // The firmware's channel and time base; here the simulation's stand in for them.
/// type MyEvent = SimClockEvent;
/// type MyTime = Extended<SimCounter>;
///
/// hwtimer_core::rtic_monotonic!(pub Mono, MyEvent, MyTime, 24_000_000);
/// // or, with a direct way to pend the interrupt line:
/// hwtimer_core::rtic_monotonic!(pub FastMono, MyEvent, MyTime, 100_000_000, pend = my_pend);
///
/// fn my_pend() {
///     // set the channel's interrupt pending (a GIC set-pending, an SGI, ...)
/// }
/// ```
///
/// The generated type has `start(event, time)` (which refuses a time base that does not
/// count at `HZ`), `on_interrupt()` (call it from the channel's interrupt handler, and only
/// there), `service()` (the same, returning a refusal), `refusal()` and `backend()`. Without `pend =`, `pend_interrupt` arms the channel
/// for its `min_delta`; see the [`rtic` module docs](crate::rtic) for both and for
/// refusals.
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

            /// The error of the last programming when the channel refused it and nothing
            /// is known to be armed (see the `rtic` module docs of hwtimer-core).
            #[allow(dead_code, reason = "generated for every monotonic, used by some")]
            pub fn refusal() -> ::core::option::Option<$crate::Error> {
                Self::backend().refusal()
            }

            /// [`on_interrupt`](Self::on_interrupt), with its outcome as a return value:
            /// `Err` with the refusal when the channel refused and nothing is armed (the
            /// `rtic` module docs of hwtimer-core say what to call then).
            #[allow(dead_code, reason = "generated for every monotonic, used by some")]
            pub fn service() -> ::core::result::Result<(), $crate::Error> {
                Self::on_interrupt();
                match Self::refusal() {
                    ::core::option::Option::Some(e) => ::core::result::Result::Err(e),
                    ::core::option::Option::None => ::core::result::Result::Ok(()),
                }
            }

            /// Acknowledge the channel, wake what is due and program the next head, all in
            /// one critical section: what the interrupt handler runs. rtic-time asks that
            /// it run from the monotonic's interrupt (a firmware's own pend may run it in
            /// place on the channel's core only where that interrupt cannot preempt it).
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
                if Self::backend().set_compare(instant).is_err() {
                    $crate::rtic_monotonic!(@retry $name $(, $pend)?)
                }
            }
            fn clear_compare_flag() {
                Self::backend().clear_compare_flag()
            }
            fn pend_interrupt() {
                $crate::rtic_monotonic!(@pend $name $(, $pend)?)
            }
            fn disable_timer() {
                if Self::backend().disable().is_err() {
                    $crate::rtic_monotonic!(@retry $name $(, $pend)?)
                }
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
    (@pend $name:ident) => {{
        // The channel at `min_delta`: a real interrupt, whose handler programs the head.
        // A refusal is kept in `refusal()` (see the module docs).
        let _ = $name::backend().pend();
    }};
    (@pend $name:ident, $pend:expr) => {
        ($pend)()
    };
    // A refused programming: with the firmware's own pend, run the handler again through
    // it (it retries); the default pend is the channel that just refused.
    (@retry $name:ident) => {{}};
    (@retry $name:ident, $pend:expr) => {
        $name::backend().retry($pend)
    };
}
