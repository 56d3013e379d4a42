//! # exynos-mct
//!
//! A `no_std` driver for the Samsung Exynos **Multi Core Timer** (MCT): one 64-bit global
//! free-running counter (FRC) at `fin_pll` (24 MHz), four 64-bit global comparators, and
//! per-CPU local timers (two on Exynos4210). Facts and sources: the project's
//! `hardware.md` §2 and `qemu.md` §1.
//!
//! | module | what it holds |
//! |---|---|
//! | [`regs`] | the register map, every offset and field once, with its source |
//! | [`wstat`] | the write-status protocol: bounded wait + W1C after each buffered write |
//! | [`clocksource`] | [`Frc`] (32-bit clocksource, hi-lo-hi 64-bit read), [`FrcTime`] (64-bit time at one read), the cost table |
//! | [`clockevent`] | [`Comparator`] (global comparator, oneshot and periodic) and [`LocalTimer`] (per-CPU) |
//! | `sim` | (feature `sim`) the behavioural model of the block |
//!
//! ## The seed, and what this crate does about it
//!
//! Seed 001 (Linux, 2014): reading the 64-bit FRC consistently takes three slow MMIO
//! reads (high, low, high again), and on ChromeOS `exynos_frc_read()` took 2 % of CPU
//! time; Linux gave up the 64-bit clocksource and reads the low word only. Here the
//! trade-off is not needed: [`FrcTime`] is a monotonic 64-bit time that costs **one MMIO
//! read** (plus a short critical section), by extending the low word in software, under
//! one stated precondition (read it at least once every 89.5 s). The exact hi-lo-hi read
//! ([`Frc::read64`]) remains for where exactness against the hardware comparator
//! matters: programming a [`Comparator`].
//!
//! ## Timing contract
//!
//! - [`FrcTime`] never goes backwards and equals the hardware 64-bit count while its
//!   precondition holds (see [`clocksource`]).
//! - Clockevents never fire early: a comparator fires when the FRC reaches
//!   `now + delta` (`now` read after the call began); a local timer counts
//!   `delta` ticks of `fin_pll / 2` after its start. Late by at most `min_delta` plus
//!   the programming time (a handful of MMIO accesses) plus interrupt latency. A
//!   comparator value that the counter passed while it was being programmed is detected
//!   and re-armed, never silently lost.
//! - Every buffered write waits for its WSTAT bit with a bound; a missing bit is
//!   [`Error::Timeout`], never a panic or a hang.
//!
//! ## Example
//!
//! On the behavioural model (the same code runs on [`hwtimer_core::Mmio`] on hardware):
//!
//! ```
//! use exynos_mct::{Config, Mct};
//! use exynos_mct::sim::MctModel;
//! use hwtimer_core::sim::{SimBus, SimClock};
//! use hwtimer_core::{ClockEvent, Clocksource, Monotonic};
//!
//! let clock = SimClock::new();
//! let bus = SimBus::new(&clock, MctModel::exynos4210());
//! let mct = Mct::new(bus.clone(), Config::default()).unwrap();
//! mct.start_frc().unwrap();
//!
//! // 32-bit clocksource (one read) and 64-bit time (one read, amortised).
//! let frc = mct.frc();
//! let time = mct.time();
//! clock.advance(1_000_000); // 1 ms = 24 000 ticks at 24 MHz
//! assert!(frc.read() >= 24_000);
//! bus.reset_stats();
//! let t = time.now();
//! assert_eq!(bus.stats().reads, 1);
//! assert!(t >= 24_000);
//!
//! // Comparator 0 as a oneshot 100 µs from now; poll its status.
//! let mut comp0 = mct.comparator(0).unwrap();
//! comp0.set_next_event(2_400).unwrap();
//! assert!(!comp0.is_pending());
//! clock.advance(100_000);
//! assert!(comp0.ack());
//! ```
//!
//! On hardware (Exynos4210):
//!
//! ```no_run
//! use exynos_mct::{Config, Mct, regs};
//! use hwtimer_core::Mmio;
//! // SAFETY: the MCT window of Exynos4210, mapped, and driven by nothing else.
//! let bus = unsafe { Mmio::<u32>::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
//! let mct = Mct::new(bus, Config::default()).unwrap();
//! mct.start_frc().unwrap();
//! ```
//!
//! ## Features
//!
//! - `sim`: the behavioural model (module `sim`); pulls in `std`.
//! - `defmt`: `defmt::Format` on the public types.
//!
//! `critical-section` is used (for the shared `G_TCON`/`G_INT_ENB` shadows and the
//! software epoch of [`FrcTime`]), never implemented: the firmware picks the
//! implementation.
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
#![deny(missing_docs)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod clockevent;
pub mod clocksource;
pub mod regs;
#[cfg(feature = "sim")]
pub mod sim;
pub mod wstat;

use core::cell::Cell;

use critical_section::Mutex;
use hwtimer_core::{Error, Reg, RegisterBus, RegisterBusExt};

pub use clockevent::{Comparator, LocalTimer};
pub use clocksource::{Frc, FrcTime, UpperCache};
pub use wstat::{WaitClock, WstatConfig};

use regs::{G_TCON, MCT_CFG};
use wstat::WstatBit;

/// Driver configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// The input clock `fin_pll` in Hz (24 MHz on every known board). The FRC rate is
    /// this divided by the `MCT_CFG` prescaler and divider found at [`Mct::new`].
    pub input_hz: u32,
    /// Number of local timers the SoC has (2 on Exynos4210; at most 16).
    pub local_timers: usize,
    /// Bounds of the write-status waits.
    pub wstat: WstatConfig,
}

impl Default for Config {
    /// Exynos4210: 24 MHz, two local timers, default WSTAT bounds.
    fn default() -> Self {
        Self {
            input_hz: regs::FIN_PLL_HZ,
            local_timers: regs::EXYNOS4210_LOCAL_TIMERS,
            wstat: WstatConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Shadow {
    /// Last value written to `G_TCON` (the driver owns the block).
    g_tcon: u32,
    /// Last value written to `G_INT_ENB`.
    g_int_enb: u32,
    /// Bit `n` (0..4): comparator `n` handed out; bit `4 + i`: local timer `i`.
    taken: u32,
}

/// The MCT block: owns the register bus and hands out its parts.
///
/// `G_TCON` and `G_INT_ENB` are shared by the FRC and the four comparators; the driver
/// keeps a shadow of each (read once in [`new`](Self::new)) and updates them inside a
/// critical section, so a read-modify-write costs one write and parts may live in
/// different contexts. One `Mct` per block: [`hwtimer_core::Mmio::new`]'s contract.
pub struct Mct<B: RegisterBus<Word = u32>> {
    bus: B,
    config: Config,
    freq_hz: u32,
    shadow: Mutex<Cell<Shadow>>,
}

impl<B: RegisterBus<Word = u32>> Mct<B> {
    /// Take over the block: reads `MCT_CFG` (rate), `G_TCON` and `G_INT_ENB` (3 reads, no
    /// write). A FRC already started (by a boot loader) keeps running.
    ///
    /// Errors: [`Error::InvalidConfig`] for a zero input clock or more than 16 local timers.
    pub fn new(bus: B, config: Config) -> Result<Self, Error> {
        if config.input_hz == 0 || config.local_timers > regs::MAX_LOCAL_TIMERS {
            return Err(Error::InvalidConfig);
        }
        let cfg = bus.read(regs::MCT_CFG_REG);
        let div = (cfg.read(MCT_CFG::PRESCALER) + 1) << cfg.read(MCT_CFG::DIVIDER);
        let freq_hz = (config.input_hz / div).max(1);
        let g_tcon = bus.read_raw(regs::G_TCON_REG);
        let g_int_enb = bus.read_raw(regs::G_INT_ENB);
        Ok(Self {
            bus,
            config,
            freq_hz,
            shadow: Mutex::new(Cell::new(Shadow {
                g_tcon,
                g_int_enb,
                taken: 0,
            })),
        })
    }

    /// The FRC rate in Hz (24 MHz unless `MCT_CFG` divides it).
    pub fn freq_hz(&self) -> u32 {
        self.freq_hz
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The register bus (for diagnostics; writing MCT registers behind the driver's back
    /// breaks its shadows).
    pub fn bus(&self) -> &B {
        &self.bus
    }

    /// Give the bus back.
    pub fn release(self) -> B {
        self.bus
    }

    /// Whether the driver believes the FRC runs (`G_TCON.TIMER_ENABLE` as last written or
    /// found at [`new`](Self::new)).
    pub fn frc_running(&self) -> bool {
        self.shadow_get().g_tcon & G_TCON::TIMER_ENABLE::SET.value != 0
    }

    /// The clock that bounds a write-status wait now: the FRC when it runs, iterations
    /// otherwise (see [`wstat`]).
    pub fn wait_clock(&self) -> WaitClock {
        if self.frc_running() {
            WaitClock::Frc {
                freq_hz: self.freq_hz,
            }
        } else {
            WaitClock::Iterations
        }
    }

    /// Start the FRC (`G_TCON.TIMER_ENABLE`, WSTAT-acknowledged). The count continues
    /// from its current value, as current Linux does. Returns the number of status reads
    /// the acknowledgement took (1 when it was immediate).
    ///
    /// Errors: [`Error::Timeout`] when `G_WSTAT.TCON` never came (bounded by iterations:
    /// the FRC cannot time its own start).
    pub fn start_frc(&self) -> Result<u32, Error> {
        self.write_g_tcon(
            |t| t | G_TCON::TIMER_ENABLE::SET.value,
            WaitClock::Iterations,
        )
    }

    /// Stop the FRC. Comparators stop matching; [`FrcTime`] stays where it is.
    ///
    /// Errors: [`Error::Timeout`] as for [`start_frc`](Self::start_frc).
    pub fn stop_frc(&self) -> Result<u32, Error> {
        self.write_g_tcon(
            |t| t & !G_TCON::TIMER_ENABLE::SET.value,
            WaitClock::Iterations,
        )
    }

    /// Load the FRC with `value` (`G_CNT_L`, then `G_CNT_U`, each acknowledged in
    /// `G_CNT_WSTAT`). Time jumps: create [`FrcTime`] values after this, or
    /// [`resync`](FrcTime::resync) existing ones (which only ever move forward).
    ///
    /// QEMU quirk 1 (`qemu.md` §1): in QEMU's model a `G_CNT` write starts the counter
    /// even when `G_TCON.TIMER_ENABLE` is clear; on hardware it does not.
    ///
    /// Errors: [`Error::Timeout`] when a status bit never came.
    pub fn load_frc(&self, value: u64) -> Result<(), Error> {
        let cfg = self.config.wstat;
        wstat::write_and_wait(
            &self.bus,
            regs::G_CNT_L,
            value as u32,
            WstatBit {
                status: Reg::new(regs::G_CNT_WSTAT_REG.offset()),
                mask: regs::G_CNT_WSTAT::CNT_L::SET.value,
            },
            WaitClock::Iterations,
            &cfg,
        )?;
        wstat::write_and_wait(
            &self.bus,
            regs::G_CNT_U,
            (value >> 32) as u32,
            WstatBit {
                status: Reg::new(regs::G_CNT_WSTAT_REG.offset()),
                mask: regs::G_CNT_WSTAT::CNT_U::SET.value,
            },
            WaitClock::Iterations,
            &cfg,
        )?;
        Ok(())
    }

    /// The FRC as a clocksource and raw reader (any number of copies; reads only).
    pub fn frc(&self) -> Frc<'_, B> {
        Frc::new(self)
    }

    /// A monotonic 64-bit time at one MMIO read per call, starting at the hardware's
    /// 64-bit count (one hi-lo-hi read now). See [`FrcTime`] for the precondition.
    pub fn time(&self) -> FrcTime<'_, B> {
        FrcTime::new(self.frc())
    }

    /// Global comparator `n` (0..4) as a clockevent. Each comparator is handed out once
    /// at a time (dropping it returns it).
    ///
    /// Errors: [`Error::InvalidConfig`] for `n >= 4` or a comparator already handed out.
    pub fn comparator(&self, n: usize) -> Result<Comparator<'_, B>, Error> {
        if n >= regs::NUM_COMPARATORS || !self.take(1 << n) {
            return Err(Error::InvalidConfig);
        }
        Ok(Comparator::new(self, n))
    }

    /// Local timer `i` as a clockevent at `fin_pll / 2`. Writes `L_TCNTB =`
    /// [`TICK_BASE_CNT`](regs::TICK_BASE_CNT) (acknowledged) and stops the timer.
    ///
    /// Errors: [`Error::InvalidConfig`] for `i` beyond [`Config::local_timers`] or a timer
    /// already handed out; [`Error::Timeout`] when a WSTAT bit never came.
    pub fn local_timer(&self, i: usize) -> Result<LocalTimer<'_, B>, Error> {
        if i >= self.config.local_timers || !self.take(1 << (4 + i)) {
            return Err(Error::InvalidConfig);
        }
        LocalTimer::new(self, i)
    }

    // ---- crate-internal helpers ----

    pub(crate) fn bus_ref(&self) -> &B {
        &self.bus
    }

    fn shadow_get(&self) -> Shadow {
        critical_section::with(|cs| self.shadow.borrow(cs).get())
    }

    fn take(&self, bit: u32) -> bool {
        critical_section::with(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            if s.taken & bit != 0 {
                return false;
            }
            s.taken |= bit;
            cell.set(s);
            true
        })
    }

    pub(crate) fn give_back(&self, bit: u32) {
        critical_section::with(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            s.taken &= !bit;
            cell.set(s);
        })
    }

    /// Read-modify-write of `G_TCON` through the shadow, then the WSTAT wait. The write is
    /// skipped (returns `Ok(0)`) when the value would not change.
    pub(crate) fn write_g_tcon(
        &self,
        f: impl FnOnce(u32) -> u32,
        clock: WaitClock,
    ) -> Result<u32, Error> {
        let changed = critical_section::with(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            let new = f(s.g_tcon);
            if new == s.g_tcon {
                return false;
            }
            s.g_tcon = new;
            cell.set(s);
            // Written inside the critical section so two contexts cannot interleave the
            // shadow update and the bus write. The wait happens outside.
            self.bus.write_raw(regs::G_TCON_REG, new);
            true
        });
        if !changed {
            return Ok(0);
        }
        wstat::wait_and_clear(
            &self.bus,
            WstatBit {
                status: Reg::new(regs::G_WSTAT_REG.offset()),
                mask: regs::G_WSTAT::TCON::SET.value,
            },
            clock,
            &self.config.wstat,
        )
    }

    /// Read-modify-write of `G_INT_ENB` (not a buffered register: no WSTAT).
    pub(crate) fn write_g_int_enb(&self, f: impl FnOnce(u32) -> u32) {
        critical_section::with(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            let new = f(s.g_int_enb);
            if new != s.g_int_enb {
                s.g_int_enb = new;
                cell.set(s);
                self.bus.write_raw(regs::G_INT_ENB, new);
            }
        })
    }
}

/// Turn the poll count of a WSTAT wait into `()` (`.map(drop_count)`).
pub(crate) fn drop_count(_polls: u32) {}

impl<B: RegisterBus<Word = u32> + core::fmt::Debug> core::fmt::Debug for Mct<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = self.shadow_get();
        f.debug_struct("Mct")
            .field("bus", &self.bus)
            .field("freq_hz", &self.freq_hz)
            .field("g_tcon", &s.g_tcon)
            .field("g_int_enb", &s.g_int_enb)
            .finish()
    }
}
