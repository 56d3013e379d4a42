//! # otto-timer
//!
//! A `no_std` driver for the **Realtek Otto timer** block of the RTL838x, RTL839x,
//! RTL930x and RTL931x switch SoCs (big-endian MIPS), built on [`hwtimer_core`].
//!
//! The block has 5 or 6 identical 28-bit up-counting timers, 0x10 bytes apart, each with
//! a target (DATA), a read-only counter (CNT), a control register (enable, oneshot or
//! periodic mode, 16-bit prescaler on the LXB bus clock) and an interrupt register
//! (enable, write-1-to-clear pending). Linux gives timer *n* to CPU *n* as its clockevent
//! and runs the next timer free as the clocksource; this crate does the same.
//!
//! | module / type | what it holds |
//! |---|---|
//! | [`regs`] | the register map (tock-registers), every offset and field once with its source |
//! | [`soc`] | per-SoC descriptions (base, timer count, DTS bus clock, IRQ lines), [`Config`] (SoC, board bus clock, tick rate) and the divisor maths |
//! | [`OttoClocksource`] | a timer free-running in TIMER mode with DATA = 0: [`Clocksource`](hwtimer_core::Clocksource) + [`Continuous`](hwtimer_core::Continuous) |
//! | [`OttoClockEvent`] | a timer as a [`ClockEvent`](hwtimer_core::ClockEvent): oneshot (COUNTER mode), periodic (TIMER mode), lost-interrupt-safe reprogramming |
//! | [`OttoTimers`] | hands out each timer once, and the per-CPU layout ([`OttoTimers::per_cpu`], a [`PerCpu`] with one [`CpuTimer`] per CPU in an array), and [`PerCpu::bind`]: each CPU's event bound to its CPU ([`BoundPerCpu`], [`BoundCpuTimer`]), [`Error::WrongCpu`] from any other |
//! | `sim` | (feature `sim`) the behavioural model of the block (`sim::OttoModel`, `sim::OttoSim`) and the driver's MMIO costs measured on it |
//!
//! ## Timing contract
//!
//! - The clocksource counts up at exactly `tick_hz` (default 3.125 MHz, divisor 64 at
//!   200 MHz LXB, 56 at 175 MHz), wraps every 2^28 ticks, is never stopped behind the
//!   reader's back, and costs one MMIO read per sample. It is `Continuous`, so
//!   microsecond delays and bounded polls run on it instead of on a 10 ms tick (seed
//!   000: `usleep_range(10, 20)` took 10003 µs on RTL838x without that flag).
//! - A clockevent fires no earlier than the programmed delta, which must lie in
//!   [`clockevent::MIN_DELTA`]`..=`[`clockevent::MAX_DELTA`] ticks (else
//!   [`ConfigError::DeltaOutOfRange`], nothing
//!   written); through [`Alarm`](hwtimer_core::Alarm) deadlines are absolute and never early.
//! - Reprogramming a running timer never loses its interrupt (the v6.18 "bounce", see
//!   [`OttoClockEvent`]) and never acknowledges a pending interrupt; `shutdown` clears it
//!   (the cancelled event's status never fires the next arm).
//! - Dropping a timer's owner leaves the timer quiet: a dropped clockevent is shut down, a
//!   dropped clocksource stopped, both with their status cleared (2 writes).
//! - The LXB bus clock is the board's: [`Config::with_bus_clock_hz`] when it is not the
//!   SoC's DTS rate (see [`soc`]).
//! - Nothing panics, whatever the registers read back.
//!
//! ## Example
//!
//! RTL838x with 2 CPUs, on the behavioural model: CPU 0 and 1 get timers 0 and 1, timer
//! 2 is the clocksource; a 10 µs delay, and an absolute alarm that does not fire early.
//!
//! ```
//! use embedded_hal::delay::DelayNs;
//! use otto_timer::{Config, OttoTimers, PerCpu, Soc, soc::Irq};
//! use otto_timer::sim::OttoSim;
//! use hwtimer_core::{Alarm, Delay, Extended, Fired, Monotonic};
//!
//! let sim = OttoSim::new(Soc::Rtl838x);
//! let timers = OttoTimers::new(sim.bus(), Config::new(Soc::Rtl838x)).unwrap();
//! let PerCpu { cpus: [cpu0, cpu1], clocksource } = timers.per_cpu::<2>().unwrap();
//! assert_eq!(clocksource.index(), 2);
//! assert_eq!(cpu1.irq, Irq::RtlIntc(28));
//!
//! // Delays and bounded polls on the continuous clocksource.
//! let time = Extended::new(&clocksource);
//! let t0 = sim.clock().now_ns();
//! Delay::new(&clocksource).delay_us(10);
//! assert!(sim.clock().now_ns() - t0 >= 10_000);
//!
//! // CPU 0's clockevent behind an absolute, never-early alarm.
//! let mut alarm = Alarm::new(cpu0.event, &time).unwrap();
//! let deadline = time.now() + 3_125; // 1 ms
//! alarm.set_deadline(deadline).unwrap();
//! sim.advance_to_next_irq(0).unwrap(); // the CPU idles until the line asserts
//! match alarm.on_interrupt() {
//!     Fired::Deadline { now, .. } => assert!(now >= deadline),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! On hardware the bus is an [`Mmio`](hwtimer_core::Mmio) window over the block at its
//! KSEG1 address ([`SocInfo::kseg1_base`](soc::SocInfo::kseg1_base)), shared by reference:
//!
//! ```no_run
//! use otto_timer::{Config, OttoTimers, Soc};
//! use hwtimer_core::Mmio;
//! let info = Soc::Rtl838x.info();
//! // SAFETY: the Otto timer block of an RTL838x, uncached, used by nothing else.
//! let mmio: Mmio = unsafe { Mmio::new(info.kseg1_base(), info.block_len()) };
//! let layout = OttoTimers::new(&mmio, Config::new(Soc::Rtl838x)).unwrap().per_cpu::<1>().unwrap();
//! let [cpu0] = layout.cpus;
//! # let _ = (cpu0, layout.clocksource);
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
//!
//! Neither runtime is pulled in unless its feature is on.
#![cfg_attr(not(feature = "sim"), no_std)]
// One `unsafe impl` only: the `CpuLocal` marker on `OttoClockEvent` (src/clockevent.rs),
// which states a fact about the type and touches no register. Nothing else may use unsafe.
#![deny(unsafe_code)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod channel;
pub mod clockevent;
pub mod clocksource;
#[cfg(feature = "embassy")]
pub mod embassy;
pub mod regs;
#[cfg(feature = "rtic")]
pub mod rtic;
hwtimer_core::sim_module!();
pub mod soc;

#[cfg(feature = "rtic")]
#[doc(hidden)]
pub use hwtimer_core as __hwtimer_core;

pub use clockevent::{BoundCpuTimer, CpuTimer, OttoClockEvent};
pub use clocksource::OttoClocksource;
pub use soc::{Config, Soc};

use heapless::Vec;
use hwtimer_core::cpu::{CpuLocal, CurrentCpu};
use hwtimer_core::{Claim, ConfigError, Error};

/// The timer block: hands out each timer exactly once, as a clocksource or a
/// clockevent, and builds Linux's per-CPU layout.
///
/// The bus is cloned into every timer taken; use a shared reference for a real
/// [`Mmio`](hwtimer_core::Mmio) window (`&Mmio` is a `RegisterBus` and `Copy`).
#[derive(Debug)]
pub struct OttoTimers<B: Claim<Word = u32> + Clone> {
    bus: B,
    config: Config,
    taken: u8,
}

/// Linux's layout of the block for `N` CPUs: timer *n* is CPU *n*'s clockevent for
/// `n < N`, timer `N` is the clocksource (docs/otto-timer.md#how-linux-drives-it).
///
/// The CPU count is a constant, so the clockevents come as an array to destructure, one
/// named value per CPU, with no index to get wrong:
///
/// ```
/// use otto_timer::{Config, OttoTimers, PerCpu, Soc};
/// use otto_timer::sim::OttoSim;
/// let sim = OttoSim::new(Soc::Rtl838x);
/// let timers = OttoTimers::new(sim.bus(), Config::new(Soc::Rtl838x)).unwrap();
/// let PerCpu { cpus: [cpu0, cpu1], clocksource } = timers.per_cpu::<2>().unwrap();
/// assert_eq!((cpu0.cpu, cpu1.event.index(), clocksource.index()), (0, 1, 2));
/// ```
#[derive(Debug)]
#[must_use = "dropping the layout stops every timer in it"]
pub struct PerCpu<B: Claim<Word = u32>, const N: usize> {
    /// One clockevent per CPU, in CPU order (`cpus[n].cpu == n`).
    pub cpus: [CpuTimer<B>; N],
    /// The clocksource (timer `N`), already running.
    pub clocksource: OttoClocksource<B>,
}

/// [`PerCpu`] with every clockevent bound to its CPU ([`PerCpu::bind`]): arming CPU *n*'s
/// timer from any other CPU is [`Error::WrongCpu`], with nothing written.
#[derive(Debug)]
#[must_use = "dropping the layout stops every timer in it (each on its own CPU)"]
pub struct BoundPerCpu<B: Claim<Word = u32>, C: CurrentCpu, const N: usize>
where
    OttoClockEvent<B>: CpuLocal,
{
    /// One bound clockevent per CPU, in CPU order (`cpus[n].cpu == n`).
    pub cpus: [BoundCpuTimer<B, C>; N],
    /// The clocksource (timer `N`), already running; shared by every CPU.
    pub clocksource: OttoClocksource<B>,
}

impl<B: Claim<Word = u32>, const N: usize> PerCpu<B, N> {
    /// Bind timer *n* to CPU *n* for every *n* ([`CpuTimer::bind`]), `current` telling
    /// which CPU a call runs on. No register is accessed.
    ///
    /// MIPS has no `NativeCpu` in hwtimer-core (inline assembly is unstable on MIPS), so
    /// the firmware supplies `current`: an implementation of
    /// [`CurrentCpu`] reading **EBase.CPUNum**, CP0 register 15 select 1, bits 9:0
    /// (`mfc0 $t0, $15, 1`), docs/otto-timer.md#irq-affinity.
    pub fn bind<C: CurrentCpu + Clone>(self, current: C) -> BoundPerCpu<B, C, N>
    where
        OttoClockEvent<B>: CpuLocal,
    {
        let PerCpu { cpus, clocksource } = self;
        BoundPerCpu {
            cpus: cpus.map(|t| t.bind(current.clone())),
            clocksource,
        }
    }
}

impl<B: Claim<Word = u32> + Clone> OttoTimers<B> {
    /// The block behind `bus` (a window starting at timer 0), configured by `config`.
    /// No register is accessed.
    ///
    /// Errors: [`ConfigError::ZeroFrequency`] or [`ConfigError::RateUnreachable`] when the
    /// tick rate cannot be reached from the bus clock ([`soc::divisor_for`]).
    pub fn new(bus: B, config: Config) -> Result<Self, Error> {
        config.validate()?;
        Ok(Self {
            bus,
            config,
            taken: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The bit of timer `index` in `taken`, or [`ConfigError::NoSuchTimer`].
    fn bit(&self, index: usize) -> Result<u8, Error> {
        self.config.check_index(index)?;
        // index < MAX_TIMERS = 6 after check_index; checked anyway, so no input can panic.
        u32::try_from(index)
            .ok()
            .and_then(|i| 1u8.checked_shl(i))
            .ok_or(ConfigError::NoSuchTimer.into())
    }

    fn take(&mut self, index: usize) -> Result<(), Error> {
        let bit = self.bit(index)?;
        if self.taken & bit != 0 {
            return Err(ConfigError::AlreadyTaken.into());
        }
        self.taken |= bit;
        Ok(())
    }

    /// Take timer `index` as the clocksource and start it (see [`OttoClocksource::new`]).
    ///
    /// Errors: [`ConfigError::NoSuchTimer`] if the SoC has no timer `index`,
    /// [`ConfigError::AlreadyTaken`] if it was already taken, and those of
    /// [`OttoClocksource::new`].
    pub fn take_clocksource(&mut self, index: usize) -> Result<OttoClocksource<B>, Error> {
        self.take(index)?;
        OttoClocksource::new(self.bus.clone(), &self.config, index)
    }

    /// Take timer `index` as a clockevent, shut down (see [`OttoClockEvent::new`]).
    ///
    /// Errors: [`ConfigError::NoSuchTimer`] if the SoC has no timer `index`,
    /// [`ConfigError::AlreadyTaken`] if it was already taken, and those of
    /// [`OttoClockEvent::new`].
    pub fn take_clockevent(&mut self, index: usize) -> Result<OttoClockEvent<B>, Error> {
        self.take(index)?;
        OttoClockEvent::new(self.bus.clone(), &self.config, index)
    }

    /// Linux's layout for `N` CPUs ([`PerCpu`]): timers `0..N` become the CPUs'
    /// clockevents (with their IRQ lines), timer `N` the clocksource, started.
    ///
    /// Errors: [`ConfigError::TimerCount`] when `N` is 0 or the SoC has fewer than `N + 1`
    /// timers (RTL838x/839x/930x: at most 4 CPUs, RTL931x: 5);
    /// [`ConfigError::AlreadyTaken`] when one of those timers was already taken (checked
    /// before any is taken, so nothing is written then); those of
    /// [`OttoClockEvent::new`] otherwise.
    pub fn per_cpu<const N: usize>(mut self) -> Result<PerCpu<B, N>, Error> {
        let info = self.config.info();
        if N == 0 || N >= info.timers {
            return Err(ConfigError::TimerCount.into());
        }
        for index in 0..=N {
            if self.taken & self.bit(index)? != 0 {
                return Err(ConfigError::AlreadyTaken.into());
            }
        }
        let mut cpus = Vec::<CpuTimer<B>, N>::new();
        for cpu in 0..N {
            let irq = info.irq(cpu)?;
            let event = self.take_clockevent(cpu)?;
            cpus.push(CpuTimer { cpu, irq, event })
                .map_err(|_| ConfigError::TimerCount)?;
        }
        let cpus = cpus.into_array().map_err(|_| ConfigError::TimerCount)?;
        let clocksource = self.take_clocksource(N)?;
        Ok(PerCpu { cpus, clocksource })
    }
}

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
