//! # a9-global-timer
//!
//! A `no_std` driver for the **ARM Cortex-A9 MPCore global timer**: one 64-bit up-counter
//! shared by the cores of the cluster, and per core a 64-bit comparator with an event
//! flag, an interrupt (GIC ID 27) and an auto-increment for periodic mode. It sits at
//! offset 0x200 of the MPCore private memory region. Facts and their sources are in
//! [`regs`] and in the crate's note `docs/a9-global-timer.md` (with QEMU's model of the
//! block).
//!
//! | module / type | what it holds |
//! |---|---|
//! | [`regs`] | the register map (tock-registers), every offset and field once, with its source |
//! | [`GlobalTimer`] | owns the register window, starts the counter, hands out the parts |
//! | [`GtCounter`] | the counter: a 64-bit [`Clocksource`](hwtimer_core::Clocksource) + [`Continuous`](hwtimer_core::Continuous) read hi-lo-hi, and directly a [`Monotonic`](hwtimer_core::Monotonic) time base |
//! | [`GtComparator`] | this core's comparator as a [`ClockEvent`](hwtimer_core::ClockEvent): oneshot by delta, absolute `set_compare`, drift-free periodic through the auto-increment |
//! | [`compare`] | the comparator rule of each revision ([`CompareRule`]) and the pure arithmetic of the races (hi-lo-hi, re-targeting a missed compare) |
//! | `sim` | (feature `sim`) the behavioural model of the block in virtual time, comparators banked per simulated core (`sim::GtModel`, `sim::GtSim`, an `hwtimer_core::sim::IrqSource`; `sim::GtMpSim` for threads as cores) |
//!
//! ## Timing contract
//!
//! The [`ClockEvent`](hwtimer_core::ClockEvent) contract (hwtimer-core's trait docs, the
//! one place it is written) holds for [`GtComparator`]; what this block adds:
//!
//! - The comparator compares the counter that [`GtCounter`] reads, so the channel is
//!   **phase-locked** and **absolute**: paired with its own counter in an
//!   [`Alarm`](hwtimer_core::Alarm), a deadline is written to the comparator as it is,
//!   with no counter read and no conversion, and fires when the counter reaches it (never early).
//! - **Which "reaches"** depends on the revision ([`CompareRule`]): from r2p0 on, the
//!   event flag is set while `counter >= comparator`, so a value already passed fires as
//!   soon as the comparator is enabled; before r2p0 it is set only on equality, so a value
//!   passed would never fire. With [`CompareRule::Equal`] the driver reads the counter
//!   back after enabling and re-arms a value it missed (late, never lost).
//! - Periodic mode programs the first compare `period` ticks ahead and lets the hardware
//!   add `period` at each match (`AUTO_INC`): the period does not drift with interrupt
//!   latency.
//! - Pending status: [`shutdown`](hwtimer_core::ClockEvent::shutdown) clears the event
//!   flag, arming never touches it, [`ack`](hwtimer_core::ClockEvent::ack) clears it after
//!   stopping a fired oneshot (ARM erratum 740657; QEMU sets the flag again at once
//!   otherwise).
//! - Every call is bounded (the hi-lo-hi read makes at most 3 attempts) and nothing panics,
//!   whatever the registers read back.
//!
//! ## Example
//!
//! On the behavioural model (the same code runs on [`hwtimer_core::Mmio`] on hardware):
//!
//! ```
//! use a9_global_timer::sim::GtSim;
//! use a9_global_timer::{Config, GlobalTimer};
//! use hwtimer_core::{Alarm, ClockEvent, Fired, Monotonic};
//!
//! let sim = GtSim::qemu(); // 100 MHz, QEMU's compare rule
//! let gt = GlobalTimer::new(sim.bus(), Config::qemu())?;
//! gt.start()?;
//!
//! // The 64-bit counter is the time base; the comparator compares it.
//! let time = gt.counter();
//! let comparator = gt.comparator()?;
//! assert!(comparator.capabilities().absolute && comparator.capabilities().phase_locked);
//!
//! // An absolute alarm 100 µs from now: the deadline is written to the comparator as is.
//! let mut alarm = Alarm::new(comparator, time)?;
//! assert!(alarm.is_absolute());
//! let deadline = time.now() + 10_000;
//! alarm.set_deadline(deadline)?;
//! sim.advance_to_next_irq().unwrap(); // the CPU idles until GIC ID 27 asserts
//! match alarm.on_interrupt() {
//!     Fired::Deadline { now, .. } => assert!(now >= deadline),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), hwtimer_core::Error>(())
//! ```
//!
//! On hardware (the NPCM750's MPCore region; rate and compare rule are board and CPU
//! facts):
//!
//! ```no_run
//! use a9_global_timer::{CompareRule, Config, GlobalTimer, regs};
//! use hwtimer_core::Mmio;
//! # fn midr() -> u32 { 0x412f_c090 }
//! // SAFETY: the global timer window of this core, mapped, and driven by nothing else.
//! let bus = unsafe { Mmio::<u32>::new(regs::NPCM750_BASE, regs::WINDOW_LEN) };
//! let config = Config::new(100_000_000).with_compare(CompareRule::from_midr(midr()));
//! let gt = GlobalTimer::new(bus, config)?;
//! gt.start()?;
//! # Ok::<(), hwtimer_core::Error>(())
//! ```
//!
//! Every constructor and method says which [`ConfigError`] it returns for which cause;
//! `tests/driver/config_errors.rs` has one test per cause.
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
//!
//! `critical-section` is used (the read-modify-write of the control register, and the
//! comparator's taken flag), never implemented: the firmware picks the implementation. On
//! a multi-core system it must exclude the other cores too for the control
//! read-modify-write to be atomic across cores (see [`GlobalTimer`]).
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(feature = "sim"), no_std)]
// The one `unsafe` is the `CpuLocal` marker of the banked comparator (clockevent.rs).
#![deny(unsafe_code)]

pub mod clockevent;
pub mod clocksource;
pub mod compare;
pub mod regs;
hwtimer_core::sim_module!();

use core::cell::Cell;

use critical_section::Mutex;
use hwtimer_core::{Claim, ConfigError, Error, RegisterBusExt};

pub use clockevent::{GtComparator, Mode};
pub use clocksource::GtCounter;
pub use compare::CompareRule;

use regs::{CONTROL, CONTROL_BANKED, CONTROL_SHARED, GT_CONTROL};

/// Driver configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// The input clock of the block in Hz (`PERIPHCLK` on silicon, a board fact;
    /// [`regs::QEMU_INPUT_HZ`] under QEMU).
    pub input_hz: u32,
    /// `GT_CONTROL.PRESCALER`: the counter advances once every `prescaler + 1` input
    /// clocks.
    pub prescaler: u8,
    /// How this core's comparator matches ([`CompareRule::from_midr`] decides it from the
    /// CPU's identification).
    pub compare: CompareRule,
}

impl Config {
    /// `input_hz`, prescaler 0 (Linux's assumption), the r2p0+ rule.
    pub const fn new(input_hz: u32) -> Self {
        Self {
            input_hz,
            prescaler: 0,
            compare: CompareRule::GreaterOrEqual,
        }
    }

    /// QEMU's global timer: 100 MHz ([`regs::QEMU_INPUT_HZ`]), prescaler 0, and the
    /// r2p0+ rule, which QEMU implements although it reports the CPU as r0p0 (see
    /// [`CompareRule`]).
    pub const fn qemu() -> Self {
        Self::new(regs::QEMU_INPUT_HZ)
    }

    /// The same with `GT_CONTROL.PRESCALER = prescaler`.
    pub const fn with_prescaler(mut self, prescaler: u8) -> Self {
        self.prescaler = prescaler;
        self
    }

    /// The same with the comparator rule `rule`.
    pub const fn with_compare(mut self, rule: CompareRule) -> Self {
        self.compare = rule;
        self
    }

    /// The counter rate, `input_hz / (prescaler + 1)`.
    ///
    /// Errors: [`ConfigError::ZeroFrequency`] when `input_hz` is 0;
    /// [`ConfigError::RateUnreachable`] when it is not a multiple of `prescaler + 1` (a rate
    /// rounded down would make every conversion to ticks short).
    ///
    /// ```
    /// use a9_global_timer::Config;
    /// assert_eq!(Config::qemu().with_prescaler(3).tick_hz(), Ok(25_000_000));
    /// assert!(Config::new(100_000_001).with_prescaler(1).tick_hz().is_err());
    /// ```
    pub const fn tick_hz(&self) -> Result<u32, Error> {
        if self.input_hz == 0 {
            return Err(Error::Config(ConfigError::ZeroFrequency));
        }
        let div = (self.prescaler as u32).wrapping_add(1); // 1..=256
        match (
            self.input_hz.checked_rem(div),
            self.input_hz.checked_div(div),
        ) {
            (Some(0), Some(hz)) if hz != 0 => Ok(hz),
            _ => Err(Error::Config(ConfigError::RateUnreachable)),
        }
    }
}

/// The global timer block as seen from one core: owns the register window, starts and
/// stops the shared counter, and hands out the [`GtCounter`] (any number of copies) and
/// this core's [`GtComparator`] (once at a time).
///
/// # Shared and banked control bits
///
/// `GT_CONTROL` holds both shared bits (`TIMER_ENABLE`, `PRESCALER`: one copy for the
/// cluster) and the calling core's banked bits (`COMP_ENABLE`, `IRQ_ENABLE`, `AUTO_INC`).
/// The driver keeps **no copy** of either: every control update is a read-modify-write of
/// the register inside a critical section, which keeps the shared bits as the register
/// holds them (whichever core last set them) and changes only the bits the call is about.
/// A comparator therefore never writes `TIMER_ENABLE` or the prescaler back from a stale
/// copy: arming on one core neither stops a counter another core started nor restarts one
/// another core stopped. [`start`](Self::start) and [`stop`](Self::stop) change
/// `TIMER_ENABLE` (and `start` the prescaler) and keep the banked bits as read.
///
/// Across cores the read-modify-write is atomic only when the firmware's
/// `critical-section` implementation excludes the other cores (a spinlock plus the local
/// interrupt mask); with one that masks the local core only, a `stop` on one core that
/// falls between another core's control read and write (a few bus cycles) is undone.
///
/// # Several cores
///
/// The shared parts ([`GtCounter`], [`start`](Self::start), [`is_running`](Self::is_running))
/// are correct from any core, and `GlobalTimer` is `Sync` when its bus is. The comparator
/// is banked: [`comparator`](Self::comparator) hands out the one of the core that calls it,
/// as a [`GtComparator`] that is neither `Send` nor `Sync`; bind it with
/// [`CpuBound`](hwtimer_core::cpu::CpuBound) to keep it in a `static`. The comparator is
/// handed out once per `GlobalTimer`, so each core that needs its comparator builds its
/// own `GlobalTimer` over the same window ([`new`](Self::new) reads once and writes
/// nothing); one core starts the counter, the others find it running.
pub struct GlobalTimer<B: Claim<Word = u32>> {
    bus: B,
    /// The block, taken once from `bus` ([`Claim`]): each access is the bare load or store.
    regs: B::Block<{ regs::WINDOW_LEN }>,
    config: Config,
    freq_hz: u32,
    /// The comparator has been handed out.
    taken: Mutex<Cell<bool>>,
}

impl<B: Claim<Word = u32>> GlobalTimer<B> {
    /// Take over the block through `bus` (a window starting at the global timer, offset
    /// 0x200 of the MPCore private region): **1 read** (`GT_CONTROL`), no write. A counter
    /// already running (started by a boot loader or another core) keeps running. The
    /// [`WINDOW_LEN`](regs::WINDOW_LEN) bytes of the block are claimed from `bus` once
    /// ([`Claim::claim`]), so no later access checks the window again.
    ///
    /// Errors: those of [`Config::tick_hz`] when the configuration has no exact rate;
    /// [`ConfigError::WindowTooShort`] when `bus` does not cover the block's
    /// [`WINDOW_LEN`](regs::WINDOW_LEN) bytes (no access then);
    /// [`ConfigError::ConflictsWithRunning`] when the counter already runs with another
    /// prescaler than [`Config::prescaler`] (its rate would not be the one configured; the
    /// other cores would see it change). A block that reads all ones looks like the latter
    /// unless the prescaler is configured as 0xFF.
    pub fn new(bus: B, config: Config) -> Result<Self, Error> {
        let freq_hz = config.tick_hz()?;
        let regs = bus
            .claim::<{ regs::WINDOW_LEN }>(0)
            .ok_or(ConfigError::WindowTooShort)?;
        let found = regs.read(GT_CONTROL);
        let running = found.is_set(CONTROL::TIMER_ENABLE);
        if running && found.read(CONTROL::PRESCALER) != u32::from(config.prescaler) {
            return Err(ConfigError::ConflictsWithRunning.into());
        }
        Ok(Self {
            bus,
            regs,
            config,
            freq_hz,
            taken: Mutex::new(Cell::new(false)),
        })
    }

    /// The counter rate in Hz.
    pub fn freq_hz(&self) -> u32 {
        self.freq_hz
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The register bus (for diagnostics).
    pub fn bus(&self) -> &B {
        &self.bus
    }

    /// The claimed block the parts access (crate-internal).
    #[inline(always)]
    pub(crate) fn regs(&self) -> &B::Block<{ regs::WINDOW_LEN }> {
        &self.regs
    }

    /// Give the bus back.
    pub fn release(self) -> B {
        self.bus
    }

    /// Whether the counter runs: `TIMER_ENABLE` as the register holds it now, whichever
    /// core set or cleared it (**1 read**).
    pub fn is_running(&self) -> bool {
        self.regs.read(GT_CONTROL).is_set(CONTROL::TIMER_ENABLE)
    }

    /// Start the counter at the configured prescaler, from its current value: **1 read,
    /// 1 write** (a read-modify-write of `GT_CONTROL` that keeps this core's comparator
    /// bits as read). A counter that already runs at the configured prescaler (another
    /// core started it) is left as it is: **1 read**, no write.
    ///
    /// The prescaler is shared by every core, so it is written only while the counter is
    /// stopped: a start never changes the rate under a counter that runs, whose readers
    /// (every core's [`GtCounter`] and comparator deadlines) convert at the rate their own
    /// `GlobalTimer` was built with. [`new`](Self::new) refuses a prescaler that differs
    /// from a running counter's, but two cores may both build theirs while the counter is
    /// stopped; the check here, in the same critical section as the write, is the one that
    /// holds when the first of them starts it.
    ///
    /// Errors: [`ConfigError::ConflictsWithRunning`] when the counter runs with another
    /// prescaler than [`Config::prescaler`] (nothing is written; stop it first to change
    /// the rate). A block that reads all ones looks like this unless the prescaler is
    /// configured as 0xFF.
    pub fn start(&self) -> Result<(), Error> {
        let prescaler = u32::from(self.config.prescaler);
        let shared = CONTROL::TIMER_ENABLE::SET.value | CONTROL::PRESCALER.val(prescaler).value;
        critical_section::with(|_| {
            let v = self.regs.read(GT_CONTROL);
            if v.is_set(CONTROL::TIMER_ENABLE) {
                return if v.read(CONTROL::PRESCALER) == prescaler {
                    Ok(())
                } else {
                    Err(ConfigError::ConflictsWithRunning.into())
                };
            }
            self.regs.write_raw(
                GT_CONTROL,
                ((v.get() & CONTROL_BANKED) | shared) & (CONTROL_SHARED | CONTROL_BANKED),
            );
            Ok(())
        })
    }

    /// Stop the counter (for every core: the bit is shared): **1 read, 1 write** (the
    /// prescaler and this core's comparator bits are kept as read). Comparators stop
    /// matching and [`GtCounter`] stops advancing, which a
    /// [`Continuous`](hwtimer_core::Continuous) source must not do behind its readers'
    /// backs: `&mut self`, so it compiles only while no counter or comparator of this
    /// `GlobalTimer` is lent out.
    ///
    /// ```compile_fail,E0502
    /// use a9_global_timer::{Config, GlobalTimer, sim::GtSim};
    /// let sim = GtSim::qemu();
    /// let mut gt = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    /// gt.start().unwrap();
    /// let time = gt.counter();
    /// gt.stop(); // refused: `time` still reads the counter
    /// let _ = time.read64();
    /// ```
    ///
    /// Another core's own `GlobalTimer` over the same block is not covered by the borrow:
    /// stop the counter only when no core waits on it.
    ///
    /// QEMU quirk (QEMU 10, observed by the npcm750 firmware;
    /// docs/a9-global-timer.md#qemu-model): the counter registers keep
    /// reading as if the counter ran while `TIMER_ENABLE` is clear.
    pub fn stop(&mut self) {
        self.control_rmw(|v| v & !CONTROL::TIMER_ENABLE::SET.value);
    }

    /// Load the counter with `value` (`GT_COUNTER0`, then `GT_COUNTER1`): **1 read
    /// (`GT_CONTROL`), 2 writes**. The hardware accepts counter writes only while the
    /// counter is stopped (TRM; QEMU ignores them otherwise). Time jumps: `&mut self`, so
    /// it compiles only while no counter or comparator of this `GlobalTimer` is lent out.
    ///
    /// QEMU quirk (docs/a9-global-timer.md#qemu-model): the loaded value shows only after
    /// the next [`start`](Self::start).
    ///
    /// Errors: [`ConfigError::CounterRunning`] while the counter runs (nothing is written).
    pub fn load(&mut self, value: u64) -> Result<(), Error> {
        if self.is_running() {
            return Err(ConfigError::CounterRunning.into());
        }
        self.regs.write_raw(regs::GT_COUNTER0, value as u32);
        self.regs.write_raw(regs::GT_COUNTER1, (value >> 32) as u32);
        Ok(())
    }

    /// The counter as a clocksource and time base (any number of copies; reads only).
    pub fn counter(&self) -> GtCounter<'_, B> {
        GtCounter::new(self)
    }

    /// The comparator of the core that calls this, as a clockevent, shut down
    /// (comparator, its interrupt and auto-increment off, event flag cleared: **1 read,
    /// 2 writes**). Handed out once at a time; dropping it shuts it down and returns it.
    /// The registers are banked: use it on this core only (it is neither `Send` nor
    /// `Sync`; [`CpuBound`](hwtimer_core::cpu::CpuBound) checks the core on each call).
    ///
    /// Errors: [`ConfigError::AlreadyTaken`] when it is already handed out.
    pub fn comparator(&self) -> Result<GtComparator<'_, B>, Error> {
        let first = critical_section::with(|cs| !self.taken.borrow(cs).replace(true));
        if !first {
            return Err(ConfigError::AlreadyTaken.into());
        }
        Ok(GtComparator::new(self))
    }

    // ---- crate-internal helpers ----

    /// Write this core's banked control bits, keeping the shared ones as the register
    /// holds them: 1 read, 1 write.
    pub(crate) fn write_banked(&self, banked: u32) {
        self.control_rmw(|v| (v & CONTROL_SHARED) | (banked & CONTROL_BANKED));
    }

    pub(crate) fn give_back(&self) {
        critical_section::with(|cs| self.taken.borrow(cs).set(false));
    }

    /// Read `GT_CONTROL`, write `f(value)` back, inside one critical section so no other
    /// context of this core (and, under a multi-core `critical-section`, no other core)
    /// writes the register in between.
    fn control_rmw(&self, f: impl FnOnce(u32) -> u32) {
        critical_section::with(|_| {
            let v = self.regs.read_raw(GT_CONTROL);
            self.regs
                .write_raw(GT_CONTROL, f(v) & (CONTROL_SHARED | CONTROL_BANKED));
        })
    }
}

impl<B: Claim<Word = u32> + core::fmt::Debug> core::fmt::Debug for GlobalTimer<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let taken = critical_section::with(|cs| self.taken.borrow(cs).get());
        f.debug_struct("GlobalTimer")
            .field("bus", &self.bus)
            .field("freq_hz", &self.freq_hz)
            .field("comparator_taken", &taken)
            .finish()
    }
}

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
