//! Per-timer clockevents (oneshot in COUNTER mode, periodic in TIMER mode) and the
//! per-CPU layout Linux uses.

use hwtimer_core::cpu::{CpuBound, CpuLocal, CurrentCpu};
use hwtimer_core::{Capabilities, Claim, ClockEvent, ConfigError, Error};

use crate::channel::{Channel, Mode};
use crate::regs::COUNTER_MASK;
use crate::soc::{Config, Irq};

/// The smallest delta and period a clockevent programs, in ticks: 8, Linux's
/// `RTTM_MIN_DELTA` (the hardware itself needs a target of at least
/// [`HW_MIN_TARGET`](crate::regs::HW_MIN_TARGET)).
///
/// With [`MAX_DELTA`] this is the one statement of the clockevent's range; everything
/// else links here.
pub const MIN_DELTA: u64 = 8;

/// The largest delta and period, in ticks: [`COUNTER_MASK`],
/// the 28-bit DATA maximum (Linux's `max_delta`; 85.9 s at 3.125 MHz).
pub const MAX_DELTA: u64 = COUNTER_MASK as u64;

/// [`MIN_DELTA`] as a DATA value (the range check runs on `u32`).
const MIN_TARGET: u32 = 8;
/// [`MAX_DELTA`] as a DATA value.
const MAX_TARGET: u32 = COUNTER_MASK;
const _: () = assert!(MIN_TARGET as u64 == MIN_DELTA && MAX_TARGET as u64 == MAX_DELTA);

/// One Otto timer as a clockevent (Linux: one per CPU, rating 400, PERIODIC | ONESHOT;
/// docs/otto-timer.md#how-linux-drives-it).
///
/// # Timing contract
///
/// - Deltas and periods are in ticks of `tick_hz` and must lie in
///   [`MIN_DELTA`]`..=`[`MAX_DELTA`]; anything else is
///   [`ConfigError::DeltaOutOfRange`] (periods: [`ConfigError::PeriodOutOfRange`]) and
///   **no register is touched**.
/// - A oneshot of `delta` ticks raises the interrupt when the timer's own counter, reset
///   to 0 by the DATA write, reaches `delta`: no earlier than `delta` ticks after the
///   call. The counter has its own prescaler phase, so it is **not**
///   [phase-locked](hwtimer_core::Capabilities::phase_locked) to the clocksource timer;
///   [`Alarm`](hwtimer_core::Alarm) adds its one tick of margin for that.
/// - Reprogramming never loses the interrupt: every `set_next_event` / `set_periodic`
///   uses the "bounce" sequence of the v6.18 fixes (docs/otto-timer.md#bounce-sequence) and never
///   acknowledges (docs/otto-timer.md#no-ack-while-reprogramming).
/// - Pending status, as the [`ClockEvent`] contract states it: arming never clears INT.IP;
///   [`shutdown`](ClockEvent::shutdown) stops the timer and **then** clears IP along with
///   IE (the cancelled event's status must not fire the next arm at once); `ack` reports
///   and clears it.
/// - **Dropping** the clockevent shuts the timer down as `shutdown` does (2 writes): an
///   armed timer nobody owns neither fires nor stays pending.
/// - Nothing panics on any value read back from the hardware.
///
/// # MMIO cost
///
/// | operation | reads | writes |
/// |---|---|---|
/// | `set_next_event` / `set_periodic` | 0 | 5 (6 when the interrupt was off) |
/// | `ack`, pending | 1 | 1 |
/// | `ack`, spurious | 1 | 0 |
/// | `shutdown`, drop, `release` | 0 | 2 |
///
/// ```
/// use otto_timer::clockevent::MIN_DELTA;
/// use otto_timer::{Config, OttoClockEvent, Soc};
/// use otto_timer::sim::OttoSim;
/// use hwtimer_core::{ClockEvent, ConfigError};
///
/// let sim = OttoSim::new(Soc::Rtl838x);
/// let mut ev = OttoClockEvent::new(sim.bus(), &Config::new(Soc::Rtl838x), 0).unwrap();
/// ev.set_next_event(100).unwrap(); // 32 µs at 3.125 MHz
/// assert!(!ev.ack());
/// sim.clock().advance(32_000);
/// assert!(sim.irq_asserted(0));
/// assert!(ev.ack());
/// assert!(!sim.irq_asserted(0));
/// assert_eq!(ev.set_next_event(MIN_DELTA - 1), Err(ConfigError::DeltaOutOfRange.into()));
/// ```
#[derive(Debug)]
#[must_use = "dropping the clockevent shuts its timer down"]
pub struct OttoClockEvent<B: Claim<Word = u32>> {
    channel: Channel<B>,
    irq_enabled: bool,
}

impl<B: Claim<Word = u32>> OttoClockEvent<B> {
    /// Take timer `index` of the block behind `bus` as a clockevent and leave it shut
    /// down (CTRL = 0, then INT = IP with IE = 0: two writes; a status left pending by
    /// firmware or a previous owner is cleared, as by [`shutdown`](ClockEvent::shutdown)).
    ///
    /// Errors (nothing is written then): [`ConfigError::ZeroFrequency`] or
    /// [`ConfigError::RateUnreachable`] when the tick rate cannot be reached
    /// ([`divisor_for`](crate::soc::divisor_for)); [`ConfigError::NoSuchTimer`] when the
    /// SoC has no timer `index`; [`ConfigError::WindowTooShort`] when `bus` does not cover
    /// that timer's registers.
    pub fn new(bus: B, config: &Config, index: usize) -> Result<Self, Error> {
        let channel = Channel::new(bus, config, index)?;
        let mut ev = Self {
            channel,
            irq_enabled: false,
        };
        ev.shutdown();
        Ok(ev)
    }

    /// The timer index.
    pub fn index(&self) -> usize {
        self.channel.index()
    }

    /// The prescaler value programmed when the timer runs.
    pub fn divisor(&self) -> u16 {
        self.channel.divisor()
    }

    /// Shut the timer down (as dropping it does: 2 writes) and give the bus back.
    pub fn release(self) -> B {
        self.channel.into_bus()
    }

    /// `delta` as a DATA value, or `cause` when it is outside
    /// [`MIN_DELTA`]`..=`[`MAX_DELTA`].
    ///
    /// One range check, on the 32-bit value: the high word is tested against zero by
    /// `try_from`, then the low word against [`MIN_TARGET`]`..=`[`MAX_TARGET`]. Checking the
    /// `u64` range first and converting after costs 5 more instructions per
    /// `set_next_event` on MIPS32 (a 64-bit subtract with borrow, and the outcome worked
    /// out a second time for the `Result`).
    fn check(delta: u64, cause: ConfigError) -> Result<u32, Error> {
        match u32::try_from(delta) {
            Ok(target) if (MIN_TARGET..=MAX_TARGET).contains(&target) => Ok(target),
            _ => Err(cause.into()),
        }
    }

    #[inline]
    fn program(&mut self, mode: Mode, target: u32) {
        if !self.irq_enabled {
            // Only IE is written: IP written as 0 is not an acknowledge (docs/otto-timer.md#no-ack-while-reprogramming).
            self.channel.set_irq_enabled(true);
            self.irq_enabled = true;
        }
        self.channel.reprogram(mode, target);
    }
}

impl<B: Claim<Word = u32>> ClockEvent for OttoClockEvent<B> {
    /// Deltas in [`MIN_DELTA`]`..=`[`MAX_DELTA`] at the timer's tick rate, oneshot and
    /// periodic; not phase-locked (each timer has its own counter and prescaler phase), not
    /// absolute (the hardware takes deltas).
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(self.channel.tick_hz(), MIN_DELTA, MAX_DELTA).with_periodic()
    }

    /// Oneshot in COUNTER mode: bounce, stop, DATA = `delta`, start (5 writes).
    ///
    /// Errors: [`ConfigError::DeltaOutOfRange`] for `delta` outside
    /// [`MIN_DELTA`]`..=`[`MAX_DELTA`] (nothing written).
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        let target = Self::check(delta, ConfigError::DeltaOutOfRange)?;
        self.program(Mode::Counter, target);
        Ok(())
    }

    /// Periodic in TIMER mode: the counter resets to 0 at DATA = `period` and keeps
    /// running (5 writes). Linux uses `period = tick_hz / HZ`.
    ///
    /// Errors: [`ConfigError::PeriodOutOfRange`] for `period` outside
    /// [`MIN_DELTA`]`..=`[`MAX_DELTA`] (nothing written).
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        let target = Self::check(period, ConfigError::PeriodOutOfRange)?;
        self.program(Mode::Timer, target);
        Ok(())
    }

    /// CTRL = 0, then INT = IP with IE = 0 (2 writes): stopped, masked, and a pending IP
    /// cleared (W1C). The order matters: once stopped the timer latches nothing more, so
    /// no status can survive the shutdown and fire the next arm at once.
    fn shutdown(&mut self) {
        // Only with logging on: one read to say a cancelled event's status is dropped.
        #[cfg(feature = "defmt")]
        if self.channel.is_pending() {
            hwtimer_core::log_debug!(
                "Otto timer {=usize}: stale status dropped at shutdown",
                self.index()
            );
        }
        self.channel.quiet();
        self.irq_enabled = false;
    }

    /// Read INT; if IP is set, clear it (write 1) keeping IE. 1 read, +1 write if pending.
    fn ack(&mut self) -> bool {
        self.channel.ack(self.irq_enabled)
    }
}

/// The clockevent of one CPU, as [`OttoTimers::per_cpu`](crate::OttoTimers::per_cpu)
/// hands it out.
#[derive(Debug)]
#[must_use = "dropping it shuts the CPU's timer down"]
pub struct CpuTimer<B: Claim<Word = u32>> {
    /// The CPU that owns it; equal to the timer index (Linux's layout).
    pub cpu: usize,
    /// Its interrupt line. On rtl-intc and GIC systems, route this line to `cpu` only:
    /// secondary CPUs lose their tick otherwise (Linux had to force the affinity,
    /// OpenWrt PR #11841, docs/otto-timer.md#irq-affinity). [`CpuTimer::bind`] keeps
    /// other CPUs from arming it.
    pub irq: Irq,
    /// The clockevent.
    pub event: OttoClockEvent<B>,
}

#[allow(
    unsafe_code,
    reason = "the CpuLocal marker: a statement about the type, no register access"
)]
// SAFETY: an Otto timer's registers are one copy, reachable from every CPU (routed, not
// banked): moving an `OttoClockEvent` to another thread, or sharing a reference, is
// sound exactly when its bus is, which the `Send + Sync` bound on `Self` requires (it
// holds nothing else, and no thread-local data). The marker adds the rule `CpuBound`
// enforces: timer *n* is CPU *n*'s clockevent, and its interrupt reaches CPU *n* only.
unsafe impl<B: Claim<Word = u32>> CpuLocal for OttoClockEvent<B> where Self: Send + Sync {}

impl<B: Claim<Word = u32>> CpuTimer<B> {
    /// Bind the clockevent to its CPU (`self.cpu`), `current` telling which CPU a call
    /// runs on: from then on every call on another CPU touches nothing and returns
    /// [`Error::WrongCpu`] (`ack` returns `false`, `shutdown` does nothing), as Linux pins
    /// timer *n* to CPU *n*. No register is accessed; it can be called on any CPU (the
    /// boot CPU usually binds them all).
    ///
    /// On MIPS the firmware implements [`CurrentCpu`] itself, reading EBase.CPUNum (CP0
    /// register 15 select 1, bits 9:0): hwtimer-core has no `NativeCpu` there.
    pub fn bind<C: CurrentCpu>(self, current: C) -> BoundCpuTimer<B, C>
    where
        OttoClockEvent<B>: CpuLocal,
    {
        let owner = u32::try_from(self.cpu).unwrap_or(u32::MAX);
        BoundCpuTimer {
            cpu: self.cpu,
            irq: self.irq,
            event: CpuBound::bind(self.event, owner, current),
        }
    }
}

/// The clockevent of one CPU, bound to it ([`CpuTimer::bind`]): `Send` and `Sync` (a
/// `static` every CPU can see), usable on its own CPU only.
#[derive(Debug)]
#[must_use = "dropping it on its CPU shuts the timer down"]
pub struct BoundCpuTimer<B: Claim<Word = u32>, C: CurrentCpu>
where
    OttoClockEvent<B>: CpuLocal,
{
    /// The CPU that owns it; equal to the timer index (Linux's layout).
    pub cpu: usize,
    /// Its interrupt line: route it to `cpu` only (docs/otto-timer.md#irq-affinity).
    pub irq: Irq,
    /// The clockevent, checked against `cpu` on every call.
    pub event: CpuBound<OttoClockEvent<B>, C>,
}
