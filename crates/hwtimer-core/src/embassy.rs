//! An [`embassy_time_driver::Driver`] on any [`ClockEvent`] + [`Monotonic`] pair (feature
//! `embassy`): the time base of embassy-time, its `Timer`, `Ticker` and timeouts.
//!
//! # Set-up
//!
//! One `static` and one macro line register the driver; the firmware hands it the
//! channel and the time base once they exist (the constructor is `const`, the hardware is
//! not), and the channel's interrupt handler is one call:
//!
//! ```no_run
//! use hwtimer_core::embassy::TimeDriver;
//! # use hwtimer_core::{Extended, sim::{SimClock, SimClockEvent, SimCounter}};
//! // The firmware's channel and time base; here the simulation's stand in for them.
//! type MyEvent = SimClockEvent;
//! type MyTime = Extended<SimCounter>;
//!
//! embassy_time_driver::time_driver_impl!(
//!     static DRIVER: TimeDriver<MyEvent, MyTime, 16> = TimeDriver::new()
//! );
//!
//! fn start_time(event: MyEvent, time: MyTime) -> Result<(), hwtimer_core::Error> {
//!     DRIVER.init_static(event, time) // then enable the channel's interrupt
//! }
//!
//! fn on_channel_irq() {
//!     DRIVER.on_interrupt();
//! }
//! # let clock = SimClock::new();
//! # start_time(
//! #     SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64),
//! #     Extended::new(SimCounter::new(&clock, 32, 1_000_000)),
//! # ).unwrap();
//! # on_channel_irq();
//! ```
//!
//! Each timer crate names its pair (for example `exynos_mct::embassy::Driver`).
//!
//! # Timing contract
//!
//! embassy-time counts in ticks of `embassy_time_driver::TICK_HZ` (a compile-time feature
//! of embassy-time), which need not be the hardware's rate `H`. With `T = TICK_HZ`:
//!
//! - `now()` is `⌊hw · T / H⌋`: it never runs ahead of the hardware, and it never goes
//!   backwards because the time base does not. Before [`init`](TimeDriver::init) it is 0.
//! - A wake at embassy tick `at` is programmed at hardware tick `⌈at · H / T⌉`, the first
//!   hardware tick at which `now()` reads `at` or more: **never early**. The alarm
//!   behind it ([`Alarm`]) reports the deadline only once the time base has reached it.
//! - **Lateness**, in hardware ticks: under one embassy tick (`H / T` hardware ticks, less
//!   one) from the rounding, plus the channel's own lateness as [`Alarm`] documents it
//!   (`min_delta` for a wake closer than that, one tick for a channel that is not
//!   phase-locked), plus interrupt latency.
//! - A wake for an instant already passed fires at once (the waker is woken before
//!   `schedule_wake` returns or from the next interrupt). A wake at `u64::MAX` (embassy's
//!   "never") arms no wake, so it causes no hang and no overflow; so does any instant whose
//!   hardware tick does not fit in 64 bits.
//! - **Idle.** With nothing queued the channel is not stopped but kept at
//!   [`Alarm::keep_alive`]: a time base narrower than 64 bits (an
//!   [`Extended`](crate::Extended) counter) is then still read at least every
//!   [`max_idle_ticks`](Monotonic::max_idle_ticks), by an interrupt that only re-reads the
//!   time and re-arms. Without it, an idle longer than half a wrap lost whole wraps (a
//!   28-bit Otto counter at 3.125 MHz after 60 s idle: `now()` had not moved and a 1 s
//!   timer woke at 86.9 s). A 64-bit time base is simply cancelled.
//! - **Refusals.** A programming the channel refuses (`Busy`, `Timeout`, `WrongCpu`) loses
//!   no wake: the driver keeps the refusal, wakes the queued tasks so that their polls
//!   schedule again (the retry), and programs again from the next schedule or interrupt.
//!   What it cannot retry on its own, and what the firmware calls then, is in
//!   [`TimeDriver::refusal`]; [`TimeDriver::service`] is the handler's call that returns it.
//!
//! # The waker queue
//!
//! embassy-time-queue-utils' `ConstGenericQueue<N>`: a fixed array of `N` wakers, one per
//! waiting task (a task re-scheduling moves its own entry). When it is full the latest
//! entry's task is woken early and re-polls; embassy's timers re-check the time, so that
//! costs a poll, never an early wake-up. The family's own queue
//! ([`HrTimers`](crate::HrTimers)) holds callbacks by timer id, not wakers, and would need
//! a slot per task allocated up front; the embassy queue is the better fit here.
//!
//! # Concurrency
//!
//! The queue, the alarm and the counters sit in one `critical_section::Mutex`, so the
//! driver can live in a `static` and be used from tasks and the interrupt handler alike;
//! wakers are woken inside the critical section (waking only pends a task). `now()` takes
//! no lock after [`init_static`](TimeDriver::init_static): the time base is stored once in
//! the driver (a compare-and-swap, the value, a release store; readers load the state with
//! acquire) and shared with the alarm, and its own `now()` is `Sync` and monotonic across
//! cores, which is all `now()` needs (see `init_static`). At embassy's tick rate that is the
//! time base's read plus a load, an acquire barrier and a compare: 5 to 6 A9
//! instructions over `FrcTime::now` on smdkc210-async (94 with the multi-core critical
//! section), 7 over `PinnedCounter::now` on loongarch-virt-async (115 before). Across cores this needs a multi-core
//! `critical-section` implementation: see [the crate docs](crate#multi-core-which-sync-types-need-a-multi-core-critical-section).
//!
//! **Multi-core.** embassy allows one time driver, so tasks on every core schedule their
//! wakes into this one queue, and a woken task reaches its core through its executor's
//! pender (an SGI or IPI to that core). The queue and the channel are programmed in one
//! critical section, so a wake scheduled from any core is never lost on a shared channel
//! (an MCT comparator). A channel whose registers belong to one core (a
//! [`CpuBound`](crate::cpu::CpuBound) LoongArch timer or A9 comparator) refuses a
//! programming from another core: the wake stays queued with nothing armed for it and
//! [`refusal`](TimeDriver::refusal) says so, so the firmware must have the owner
//! re-program, for example by an IPI whose handler calls
//! [`on_interrupt`](TimeDriver::on_interrupt) (which looks at the queue again when no
//! deadline is armed). `loongarch-virt-async` does this, and checks that no wait is lost.

use core::cell::RefCell;
use core::task::Waker;

use critical_section::{CriticalSection, Mutex};
use embassy_time_queue_utils::queue_generic::ConstGenericQueue;

use crate::clockevent::{Alarm, ClockEvent, Fired, TimeRef, TimeSlot};
use crate::clocksource::Monotonic;
use crate::error::Error;

/// How many times the driver tries the idle keep-alive before it gives up and reports the
/// refusal ([`TimeDriver::refusal`]).
pub const IDLE_TRIES: u32 = 3;

/// embassy-time's tick rate, from its `tick-hz-*` feature.
pub const TICK_HZ: u64 = embassy_time_driver::TICK_HZ;

/// Hardware ticks at `hw_hz` to embassy ticks, rounded down (so `now()` never runs ahead).
#[inline]
pub const fn to_embassy_ticks(hw: u64, hw_hz: u32) -> u64 {
    let hw_hz = hw_hz as u64;
    if hw_hz == TICK_HZ {
        return hw;
    }
    // Divisions by a non-zero rate; products of two values below 2^64 fit in u128.
    if hw_hz.is_multiple_of(TICK_HZ) {
        return match hw.checked_div(hw_hz / TICK_HZ) {
            Some(t) => t,
            None => 0,
        };
    }
    match (hw as u128)
        .wrapping_mul(TICK_HZ as u128)
        .checked_div(hw_hz as u128)
    {
        Some(t) if t <= u64::MAX as u128 => t as u64,
        Some(_) => u64::MAX,
        None => 0,
    }
}

/// Embassy ticks to hardware ticks at `hw_hz`, rounded up (so a wake is never early), or
/// `None` when the result does not fit in 64 bits (never reached).
#[inline]
pub const fn to_hw_ticks_ceil(at: u64, hw_hz: u32) -> Option<u64> {
    let hw_hz = hw_hz as u64;
    if hw_hz == TICK_HZ {
        return Some(at);
    }
    // TICK_HZ is a non-zero constant; the product of two values below 2^64 fits in u128.
    let t = (at as u128)
        .wrapping_mul(hw_hz as u128)
        .div_ceil(TICK_HZ as u128);
    if t > u64::MAX as u128 {
        None
    } else {
        Some(t as u64)
    }
}

/// Counters a firmware can print; see [`TimeDriver::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DriverStats {
    /// Interrupts handled by [`TimeDriver::on_interrupt`].
    pub interrupts: u64,
    /// Times the channel was programmed.
    pub programs: u64,
    /// Programmings the channel refused. A refusal is retried: the queued tasks are woken
    /// to poll again (each poll schedules its wake again, which programs the channel), and
    /// the interrupt of a deadline the channel still held programs it too; a refusal
    /// because the channel belongs to another core ([`Error::WrongCpu`]) waits for
    /// [`on_interrupt`](TimeDriver::on_interrupt) on that core (see
    /// [`TimeDriver::refusal`]).
    pub refused: u64,
}

struct State<E: ClockEvent, M: Monotonic + 'static, const N: usize> {
    alarm: Option<Alarm<E, TimeRef<M>>>,
    queue: ConstGenericQueue<N>,
    stats: DriverStats,
    /// The last programming was refused with this error and nothing is known to be armed
    /// for the queued wakes: the next schedule, interrupt or re-poll programs again.
    refusal: Option<Error>,
}

/// The embassy-time driver on one channel and its time base, with room for `N` waiting
/// tasks; see the [module docs](self).
pub struct TimeDriver<E: ClockEvent, M: Monotonic + 'static, const N: usize = 16> {
    state: Mutex<RefCell<State<E, M, N>>>,
    /// The time base as [`init_static`](Self::init_static) stored it, read by `now()`
    /// without the lock; the flag: its rate is embassy's, so no conversion.
    time: TimeSlot<M>,
}

impl<E: ClockEvent, M: Monotonic + 'static, const N: usize> Default for TimeDriver<E, M, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: ClockEvent, M: Monotonic + 'static, const N: usize> TimeDriver<E, M, N> {
    /// A driver with no hardware yet: `now()` reads 0 and wakes wait in the queue until
    /// [`init`](Self::init).
    pub const fn new() -> Self {
        Self {
            state: Mutex::new(RefCell::new(State {
                alarm: None,
                queue: ConstGenericQueue::new(),
                stats: DriverStats {
                    interrupts: 0,
                    programs: 0,
                    refused: 0,
                },
                refusal: None,
            })),
            time: TimeSlot::new(),
        }
    }

    /// Hand the driver its channel and time base, and program the earliest wake already
    /// queued: the same as [`init_static`](Self::init_static) (every embassy time driver is
    /// a `static`). The time base is stored in the driver, so `now()` reads it without the
    /// lock, and so never reads 0 once initialised, even from inside the driver (a waker
    /// woken under its lock).
    ///
    /// Errors: those of [`init_static`](Self::init_static).
    pub fn init(&'static self, event: E, time: M) -> Result<(), Error> {
        self.init_static(event, time)
    }

    /// [`init`](Self::init) for a driver in a `static`: the time base is stored once in the
    /// driver itself and shared with the channel's alarm, and `now()` reads it **without
    /// the lock**: the time base's own read, plus a load and a branch (and the rate
    /// conversion when embassy's tick rate is not the hardware's).
    ///
    /// That is sound because `now()` needs nothing the lock gave it: the time base is
    /// [`Sync`] and its `now()` is monotonic on its own, across cores (the family's 64-bit
    /// time bases publish their extension atomically, e.g. `FrcTime`, `PinnedCounter`); two
    /// reads that overlap on two cores were never ordered by the lock either (whichever
    /// took it first), and a read that happens after another returns as much or more.
    /// Before the first `init_static` `now()` still reads 0.
    ///
    /// The time base is set once: a later call replaces the channel only, its `time`
    /// must count at the same rate ([`ConfigError::RateMismatch`](crate::ConfigError::RateMismatch)
    /// otherwise) and is dropped, the first one is kept (hand the same time base again:
    /// the family's views of one counter are all the same time).
    ///
    /// Errors: those of [`Alarm::new`]; [`Error::Busy`] when called from inside the driver
    /// (a waker that re-enters it), or while another core is in the middle of the first
    /// call.
    pub fn init_static(&'static self, event: E, time: M) -> Result<(), Error> {
        // What `Alarm::new` refuses, refused before the time base is stored for good.
        crate::clockevent::check_pair(&event, &time)?;
        let same_rate = u64::from(time.freq_hz()) == TICK_HZ;
        let shared = self.time.set_or_share(time, same_rate)?;
        self.install(Alarm::new(event, TimeRef::Shared(shared))?)
    }

    fn install(&self, alarm: Alarm<E, TimeRef<M>>) -> Result<(), Error> {
        critical_section::with(|cs| {
            let Ok(mut state) = self.state.borrow(cs).try_borrow_mut() else {
                return Err(Error::Busy);
            };
            if let Some(mut old) = state.alarm.replace(alarm) {
                old.cancel();
            }
            Self::program(&mut state);
            Ok(())
        })
    }

    /// Call from the channel's interrupt handler: acknowledges the channel, wakes every task
    /// whose instant has come and programs the next one.
    pub fn on_interrupt(&self) {
        critical_section::with(|cs| {
            let Ok(mut state) = self.state.borrow(cs).try_borrow_mut() else {
                return;
            };
            state.stats.interrupts = state.stats.interrupts.wrapping_add(1);
            let (fired, idle) = match state.alarm.as_mut() {
                Some(alarm) => {
                    let fired = alarm.on_interrupt();
                    (fired, alarm.deadline().is_none())
                }
                None => return,
            };
            match fired {
                // One step of a long wait, re-armed by the alarm.
                Fired::Rearmed { .. } => {}
                // Not this channel, or the channel fired while the alarm holds no deadline.
                // The second happens when a programming failed after an earlier one had
                // armed the hardware (the alarm forgets its deadline on any error, the
                // hardware does not): the queue may hold wakes nothing is armed for any
                // more, so look at it again. With a deadline still armed, wait for it.
                Fired::Spurious => {
                    if idle || state.refusal.is_some() {
                        Self::program(&mut state)
                    }
                }
                Fired::Deadline { .. } | Fired::Period { .. } | Fired::RearmFailed { .. } => {
                    Self::program(&mut state)
                }
            }
        });
    }

    /// The time base in hardware ticks (0 before [`init`](Self::init)); without the lock
    /// after [`init_static`](Self::init_static).
    pub fn now_hw(&self) -> u64 {
        if let Some((time, _)) = self.time.get() {
            return time.now();
        }
        critical_section::with(|cs| {
            self.state
                .borrow(cs)
                .try_borrow()
                .map_or(0, |state| Self::hw_now(&state))
        })
    }

    /// The hardware rate (0 before [`init`](Self::init)).
    pub fn hw_hz(&self) -> u32 {
        critical_section::with(|cs| {
            self.state.borrow(cs).try_borrow().map_or(0, |state| {
                state.alarm.as_ref().map_or(0, |a| a.time().freq_hz())
            })
        })
    }

    /// [`on_interrupt`](Self::on_interrupt), with its outcome as a return value: `Err` with
    /// the refusal ([`refusal`](Self::refusal)) when the channel refused the programming and
    /// nothing is known to be armed; what to call then is in `refusal`'s docs. For a handler
    /// that can act on it (count it, pend the line again, send the IPI to the owner core).
    pub fn service(&self) -> Result<(), Error> {
        self.on_interrupt();
        self.refusal().map_or(Ok(()), Err)
    }

    /// The error of the last programming, when it was refused and nothing is known to be
    /// armed for the queued wakes; `None` once a programming succeeds.
    ///
    /// While wakes are queued the driver retries on its own after a refusal: it wakes the
    /// queued tasks, whose polls schedule their wakes again and so program the channel,
    /// and the interrupt of a deadline the channel still held programs it too. It cannot
    /// retry on its own in two cases, and then the firmware must call
    /// [`on_interrupt`](Self::on_interrupt) while this is `Some` (that call looks at the
    /// queue and programs the channel):
    /// - [`Error::WrongCpu`]: the channel's registers belong to another core; call it on
    ///   that core (for example from an IPI whose handler calls it);
    /// - a refused idle keep-alive (nothing queued, tried [`IDLE_TRIES`] times): no task
    ///   will poll, and a time base narrower than 64 bits loses whole wraps if nothing
    ///   reads it for half a wrap; call it from the firmware's idle path or a tick, within
    ///   [`max_idle_ticks`](Monotonic::max_idle_ticks).
    pub fn refusal(&self) -> Option<Error> {
        critical_section::with(|cs| {
            self.state
                .borrow(cs)
                .try_borrow()
                .ok()
                .and_then(|state| state.refusal)
        })
    }

    /// What the driver has done so far.
    pub fn stats(&self) -> DriverStats {
        critical_section::with(|cs| {
            self.state
                .borrow(cs)
                .try_borrow()
                .map_or(DriverStats::default(), |state| state.stats)
        })
    }

    /// Run `f` on the alarm (for driver-specific operations on the channel), if initialised.
    pub fn with_alarm<R>(&self, f: impl FnOnce(&mut Alarm<E, TimeRef<M>>) -> R) -> Option<R> {
        critical_section::with(|cs| {
            let mut state = self.state.borrow(cs).try_borrow_mut().ok()?;
            state.alarm.as_mut().map(f)
        })
    }

    fn hw_now(state: &State<E, M, N>) -> u64 {
        state.alarm.as_ref().map_or(0, |a| a.time().now())
    }

    fn embassy_now(state: &State<E, M, N>) -> u64 {
        match state.alarm.as_ref() {
            Some(a) => to_embassy_ticks(a.time().now(), a.time().freq_hz()),
            None => 0,
        }
    }

    /// Wake what is due and program the channel for the earliest instant left. Bounded: each
    /// pass either programs the channel, or finds its instant passed and wakes it, so at
    /// most `N + 2` passes run.
    fn program(state: &mut State<E, M, N>) {
        let Some(hz) = state.alarm.as_ref().map(|a| a.time().freq_hz()) else {
            return;
        };
        for _ in 0..N.saturating_add(2) {
            let now = Self::embassy_now(state);
            let next = state.queue.next_expiration(now);
            let Some(alarm) = state.alarm.as_mut() else {
                return;
            };
            // u64::MAX is "nothing queued" (or a wake at embassy's "never").
            let hw = match to_hw_ticks_ceil(next, hz) {
                Some(hw) if next != u64::MAX => hw,
                // Nothing queued: keep the time base read while idle (an extended
                // narrow counter loses wraps otherwise); a 64-bit one is just cancelled.
                _ => {
                    match Self::keep_alive(alarm) {
                        Ok(()) => state.refusal = None,
                        Err(e) => Self::refused(state, e),
                    }
                    return;
                }
            };
            match alarm.set_deadline(hw) {
                Ok(_) => {
                    state.stats.programs = state.stats.programs.wrapping_add(1);
                    state.refusal = None;
                    return;
                }
                // Passed while we looked: the next pass wakes it.
                Err(Error::DeadlinePassed { .. }) => {}
                Err(_) => {
                    // The channel refused (a write that was not acknowledged): ask for an
                    // interrupt as soon as possible, which re-runs this from the handler.
                    state.stats.refused = state.stats.refused.wrapping_add(1);
                    crate::log_warn!("embassy: channel refused deadline {=u64}", hw);
                    match alarm.set_deadline_or_min(hw) {
                        Ok(_) => {
                            state.stats.programs = state.stats.programs.wrapping_add(1);
                            state.refusal = None;
                        }
                        Err(e) => Self::refused(state, e),
                    }
                    return;
                }
            }
        }
    }

    /// The idle keep-alive, tried [`IDLE_TRIES`] times: with nothing queued there is no
    /// task whose poll would retry a refusal, so a transient one (a write-status timeout)
    /// is retried here, on the failure path only (as Linux retries a forced programming
    /// three times before it gives up).
    fn keep_alive(alarm: &mut Alarm<E, TimeRef<M>>) -> Result<(), Error> {
        let mut result = alarm.keep_alive();
        for _ in 1..IDLE_TRIES {
            match result {
                Err(e) if !matches!(e, Error::WrongCpu(_)) => result = alarm.keep_alive(),
                _ => break,
            }
        }
        result
    }

    /// Nothing could be armed: remember it, so that the next schedule, interrupt or poll
    /// programs again, and have the queued tasks poll again so that one does. A channel
    /// that belongs to another core refuses every core but its own: its tasks are left
    /// queued for that core's [`on_interrupt`](Self::on_interrupt) (see
    /// [`refusal`](Self::refusal)) instead of polling in a loop.
    #[cold]
    #[inline(never)]
    fn refused(state: &mut State<E, M, N>, e: Error) {
        state.stats.refused = state.stats.refused.wrapping_add(1);
        crate::log_warn!("embassy: channel refused: {}", e);
        state.refusal = Some(e);
        if !matches!(e, Error::WrongCpu(_)) {
            // Wakes every queued task and empties the queue; each poll schedules its wake
            // again (embassy's timers re-check the time: a re-poll, never an early wake).
            let _ = state.queue.next_expiration(u64::MAX);
        }
    }

    /// `now()` other than at embassy's rate: converted; 0 before [`init`](Self::init).
    #[cold]
    #[inline(never)]
    fn now_other(&self) -> u64 {
        match self.time.get() {
            Some((time, _)) => to_embassy_ticks(time.now(), time.freq_hz()),
            None => 0,
        }
    }

    fn schedule(&self, cs: CriticalSection<'_>, at: u64, waker: &Waker) {
        let Ok(mut state) = self.state.borrow(cs).try_borrow_mut() else {
            // Re-entered from a waker woken inside the driver: let the task poll again and
            // re-schedule then (a re-poll, never an early wake-up).
            waker.wake_by_ref();
            return;
        };
        // A wake already queued for `at` needs no programming, unless the last one was
        // refused: then this poll is the retry.
        if state.queue.schedule_wake(at, waker) || state.refusal.is_some() {
            Self::program(&mut state);
        }
    }
}

impl<E, M, const N: usize> embassy_time_driver::Driver for TimeDriver<E, M, N>
where
    E: ClockEvent + Send + 'static,
    M: Monotonic + Send + Sync + 'static,
{
    #[inline]
    fn now(&self) -> u64 {
        // Set by `init_static` at embassy's rate: no lock (its docs say why none is
        // needed), no conversion. Anything else is out of line, so this path has no frame
        // of its own beyond the time base's.
        match self.time.get_flagged() {
            Some(time) => time.now(),
            None => self.now_other(),
        }
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| self.schedule(cs, at, waker));
    }
}

impl<E: ClockEvent, M: Monotonic + 'static, const N: usize> core::fmt::Debug
    for TimeDriver<E, M, N>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TimeDriver")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_the_safe_way() {
        // Whatever TICK_HZ the build has, ceil(at) maps back to at or more, floor(hw)
        // never exceeds.
        for hz in [1u32, 3_125_000, 24_000_000, 100_000_000, u32::MAX] {
            for at in [0u64, 1, 2, 999, 1_000_000, u64::MAX / (1 << 40)] {
                if let Some(hw) = to_hw_ticks_ceil(at, hz) {
                    assert!(to_embassy_ticks(hw, hz) >= at, "hz {hz} at {at}");
                    if hw > 0 {
                        assert!(
                            to_embassy_ticks(hw - 1, hz) < at,
                            "hz {hz} at {at}: not the first tick"
                        );
                    }
                }
            }
        }
        assert_eq!(to_hw_ticks_ceil(u64::MAX, u32::MAX), None);
    }

    #[cfg(feature = "sim")]
    mod lock_free_now {
        use embassy_time_driver::Driver as _;

        use super::super::TimeDriver;
        use crate::error::{ConfigError, Error};
        use crate::extend::Extended;
        use crate::sim::{SimClock, SimClockEvent, SimCounter};

        type Sim = TimeDriver<SimClockEvent, Extended<SimCounter>, 4>;

        fn leaked() -> &'static Sim {
            Box::leak(Box::new(Sim::new()))
        }

        /// After `init_static`, `now()` reads the time base without the driver's lock: it
        /// reads the time even while the lock is held (here from inside `with_alarm`, as a
        /// waker woken inside the driver would). With the lock in `now()` this read 0.
        #[test]
        fn now_reads_the_time_while_the_driver_is_locked() {
            let clock = SimClock::new();
            let driver = leaked();
            assert_eq!(driver.now(), 0, "before init");
            let event = SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
            let time = Extended::new(SimCounter::new(&clock, 32, 1_000_000));
            driver.init_static(event, time).unwrap();
            clock.advance(5_000_000);
            let outside = driver.now();
            assert!(outside > 0);
            let inside = driver.with_alarm(|_| driver.now()).unwrap();
            assert!(inside >= outside, "inside the lock: {inside} < {outside}");
            let hw_inside = driver.with_alarm(|_| driver.now_hw()).unwrap();
            assert!(hw_inside > 0);
        }

        /// After `init` (not only `init_static`), `now()` reads the time from inside the
        /// driver too (a waker woken under its lock): with `init`'s time base owned by the
        /// alarm behind the lock, this read 0 there, time going back to the epoch.
        #[test]
        fn now_after_init_reads_the_time_inside_the_driver() {
            let clock = SimClock::new();
            let driver = leaked();
            let event = SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
            let time = Extended::new(SimCounter::new(&clock, 32, 1_000_000));
            driver.init(event, time).unwrap();
            clock.advance(5_000_000);
            let outside = driver.now();
            assert!(outside >= 5_000);
            let inside = driver.with_alarm(|_| driver.now()).unwrap();
            assert!(inside >= outside, "inside the lock: {inside} < {outside}");
        }

        /// A second `init_static` replaces the channel and keeps the first time base; a
        /// time base at another rate is refused, by `init` too.
        #[test]
        fn the_time_base_is_set_once() {
            let clock = SimClock::new();
            let driver = leaked();
            let ev = || SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
            let tb = |hz| Extended::new(SimCounter::new(&clock, 32, hz));
            driver.init_static(ev(), tb(1_000_000)).unwrap();
            driver.init_static(ev(), tb(1_000_000)).unwrap();
            assert_eq!(
                driver.init_static(ev(), tb(2_000_000)),
                Err(Error::Config(ConfigError::RateMismatch))
            );
            assert_eq!(
                driver.init(ev(), tb(2_000_000)),
                Err(Error::Config(ConfigError::RateMismatch))
            );
            clock.advance(1_000_000);
            assert!(driver.now_hw() >= 1_000);
        }

        /// A pair `Alarm::new` refuses does not store the time base: `now()` stays 0 and a
        /// valid pair is still taken afterwards.
        #[test]
        fn a_refused_pair_stores_no_time_base() {
            let clock = SimClock::new();
            let driver = leaked();
            let bad = SimClockEvent::new(&clock, 1_000_000, 0, u32::MAX as u64);
            let tb = || Extended::new(SimCounter::new(&clock, 32, 1_000_000));
            clock.advance(5_000_000);
            assert_eq!(
                driver.init_static(bad, tb()),
                Err(Error::Config(ConfigError::Capabilities))
            );
            assert_eq!(driver.now(), 0, "a refused init set the time base");
            let good = SimClockEvent::new(&clock, 1_000_000, 1, u32::MAX as u64);
            driver.init_static(good, tb()).unwrap();
            assert!(driver.now() >= 5_000);
        }
    }
}
