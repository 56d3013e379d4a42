//! [`Mct`], the block: it owns the register bus, keeps the shared-register mirrors and the
//! published time base, and hands out the FRC, the comparators and the local timers.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use critical_section::Mutex;
use hwtimer_core::cpu::{CpuBound, CpuLocal, CurrentCpu};
use hwtimer_core::{Claim, ConfigError, Error, RegisterBusExt};

use crate::clockevent::{Comparator, LocalTimer};
use crate::clocksource::{self, Frc, FrcTime};
#[cfg(doc)]
use crate::config::Cores;
use crate::config::{Config, LocalIrq, frc_rate};
use crate::lock;
use crate::regs::{self, G_TCON, MCT_CFG};
use crate::shared::{self, Shadow, local_bit};
#[cfg(doc)]
use crate::wstat::WstatConfig;
use crate::wstat::{self, Bound, Owed, WaitClock};

/// The MCT block: owns the register bus and hands out its parts.
///
/// # Shared registers
/// `G_TCON` and `G_INT_ENB` are shared by the FRC and the four comparators, which may be
/// used from different cores and from interrupt handlers; the driver keeps a mirror of each
/// (read in [`new`](Self::new)), so a read-modify-write costs one write.
///
/// Both are changed only under a **lock owned by the `Mct`** (one atomic word holding the
/// number of the CPU that holds it, taken by compare-and-swap on every target of the
/// family; free, it keeps `G_TCON`'s "acknowledgement owed" and "mirror unknown" flags),
/// never under a critical section:
///
/// - A `G_TCON` change is one exclusive section under the lock: the write, its
///   `G_WSTAT.TCON` wait and the write-1-to-clear, the mirror changed only once the
///   acknowledgement came. Two contexts, on one core or on two, can therefore never
///   interleave two `G_TCON` writes, which the block would punish by dropping the second
///   one (`docs/exynos-mct.md`, quirk "a write before the previous acknowledgement is
///   lost") while the first context cleared the second one's acknowledgement.
/// - A `G_INT_ENB` change (a comparator's own bit) is the mirror update and one write under
///   the lock; a re-arm whose bit is already as asked takes no lock.
/// - **Interrupts are not masked** for the wait, and no critical section is entered while
///   the lock is held (the `G_TCON` mirror is an atomic under the lock; its "known" flag
///   and its owed acknowledgement are flags of the lock word, which the common section
///   finds clear with the compare-and-swap that takes the lock). Critical sections guard only the `taken` bits and the
///   owed-acknowledgement record of the other registers, each a few loads and stores, never
///   with the lock held.
///
/// **One order.** A caller may hold a critical section when it calls into the driver (the
/// runtime adapters program their channel inside one); the driver never enters one while
/// it holds the lock. So the order is always "critical section, then the lock", and no path
/// waits for a critical section while holding the lock. (One exception, on a failure path
/// and only with the `defmt` feature: a write-status timeout inside a `G_TCON` section is
/// logged there, and a defmt logger that takes a critical section, as defmt-rtt's does, then
/// takes it under the lock. The other core's spin for the lock is bounded, so this delays,
/// never deadlocks.)
///
/// **The holder's own CPU: refused at once.** The lock records the CPU that holds it, as
/// [`Config::cores`] tells the driver ([`Cores`]). A call that finds it held by its own CPU
/// is an interrupt handler (or a nested context) that interrupted the holder, which cannot
/// run again until the handler returns: it gets [`Error::Busy`] at once, after no register
/// access for the lock (0 `G_WSTAT` reads; it was the whole spin, 40 016 reads at the
/// default bounds, before the owner was recorded: `tests/multicore/lock_owner.rs`), and the channel
/// stays as it was: the refusal comes at the call's first lock attempt, before it writes any
/// register (a comparator arm may have read the FRC). Retry from the interrupted context or
/// later: the runtime adapters keep the interrupt armed before, which comes and reprograms.
/// Only a call's first attempt refuses at once: at a later step of the same call (an arm
/// takes the lock for its disable, its `G_INT_ENB` and its enable) the lock was free a
/// moment before, so no interrupted context of this CPU can hold it, and a holder found
/// there is another CPU, spun for. With [`Cores::One`] (the default) every call counts as
/// the same CPU, so a lock found held at a call's first attempt is refused at once.
///
/// **A refusal after the first step** (another CPU held the lock for the whole bound)
/// leaves what the call wrote before it: an arm refused at its enable leaves the comparator
/// disabled with its new compare value, nothing armed, and says so (`Busy`); a shutdown
/// refused at its disable leaves the interrupt masked and the status cleared. hwtimer-core's
/// queue and runtime adapters treat a refusal as "nothing known armed" and program again.
///
/// **Another CPU: a bounded spin.** The lock is held for at most one `G_TCON` section: on
/// QEMU one status read, on hardware a few cycles of the 24 MHz clock (about 1 µs with the
/// MMIO accesses); only a block that never acknowledges holds it for the whole wait bound
/// ([`WstatConfig`]: 1 ms of FRC time or `max_polls` polls), twice that when the previous
/// `G_TCON` write's acknowledgement is still owed (see
/// [`wstat`](wstat#an-acknowledgement-that-comes-after-its-wait-gave-up)). A call on another
/// CPU (with [`Cores::Many`]) that finds it held spins for at most `4 × max_polls + 16`
/// steps, each one read of `G_WSTAT` (no side effect; as long as one poll of the holder's
/// wait), so it outlasts another core's section, and then gives up with [`Error::Busy`]
/// having written nothing at that step. One case still spins the whole bound: a caller
/// inside a critical section on CPU *a*, while the holder on CPU *b* was interrupted by a
/// handler that waits to enter a critical section (a multi-core implementation: one lock
/// for all cores); the holder cannot finish until the spin gives up. Calls that can return
/// `Busy`: a comparator's arms and `try_shutdown`, [`start_frc`](Self::start_frc),
/// [`stop_frc`](Self::stop_frc), [`resume`](Self::resume). (A comparator's infallible
/// `shutdown` then leaves it as it was: use `try_shutdown` where that matters.) Lower
/// [`WstatConfig::timeout_ns`] or `max_polls` if the worst case is too long.
///
/// **Multi-core.** The lock itself is multi-core safe: `loom` model checks (in
/// `src/lock.rs`, run by CI with `RUSTFLAGS="--cfg loom" cargo test -p exynos-mct --lib
/// --release --target-dir target/loom loom_check`) explore every interleaving of two cores
/// taking it around a plain read-modify-write, and of an interrupt on the holder's core
/// with the other core contending; they fail if sections overlap, if one misses the
/// other's write (the lock's `Acquire` or `Release` weakened to `Relaxed`), if a core is
/// refused at once for the other core's section, or if the interrupt spins. The short
/// `taken` and owed-record sections use `critical-section`: on a multi-core SoC the
/// firmware must link a multi-core implementation (a spinlock plus the local interrupt
/// mask), as for every `Sync` type of this family; with a single-core one (local mask only)
/// two cores could race on the `taken` bits and the owed record.
///
/// # Borrowing rules
/// Every part ([`Frc`], [`FrcTime`], [`Comparator`], [`LocalTimer`], and what is built on
/// them: a `Delay`, a `Poller`, an `Alarm`) borrows the `Mct`. The calls that would
/// invalidate a lent-out [`Continuous`](hwtimer_core::Continuous) clocksource or time base
/// ([`stop_frc`](Self::stop_frc), [`load_frc`](Self::load_frc),
/// [`set_prescaler`](Self::set_prescaler)) take `&mut self`, so they compile only while
/// nothing is lent out:
///
/// ```compile_fail,E0502
/// use exynos_mct::{Config, Mct};
/// use exynos_mct::sim::MctModel;
/// use hwtimer_core::Delay;
/// use hwtimer_core::sim::{SimBus, SimClock};
///
/// let clock = SimClock::new();
/// let mut mct = Mct::new(SimBus::new(&clock, MctModel::exynos4210()), Config::default()).unwrap();
/// mct.start_frc().unwrap();
/// let delay = Delay::new(mct.frc());
/// mct.stop_frc().unwrap(); // error[E0502]: `mct` is borrowed by the delay's clocksource
/// delay.wait_ns(10_000);   // (it would spin forever on a stopped counter)
/// ```
///
/// Without the `stop_frc` line it compiles, and the delay waits its 10 µs:
///
/// ```
/// # use exynos_mct::{Config, Mct};
/// # use exynos_mct::sim::MctModel;
/// # use hwtimer_core::Delay;
/// # use hwtimer_core::sim::{SimBus, SimClock};
/// let clock = SimClock::new();
/// let mut mct = Mct::new(SimBus::new(&clock, MctModel::exynos4210()), Config::default()).unwrap();
/// mct.start_frc().unwrap();
/// let delay = Delay::new(mct.frc());
/// let t0 = clock.now_ns();
/// delay.wait_ns(10_000);
/// assert!(clock.now_ns() - t0 >= 10_000);
/// drop(delay);
/// mct.stop_frc().unwrap(); // nothing lent out any more
/// ```
///
/// One `Mct` per block: [`hwtimer_core::Mmio::new`]'s contract.
pub struct Mct<B: Claim<Word = u32>> {
    /// The global registers (`MCT_CFG` to `G_WSTAT`), taken once from `bus`: each access is
    /// the bare load or store (hwtimer-core's [`Claim`]).
    pub(crate) global: B::Block<{ regs::LOCAL_BASE }>,
    /// The whole window: the local timers' registers, each access checked.
    pub(crate) bus: B,
    pub(crate) config: Config,
    pub(crate) freq_hz: u32,
    pub(crate) shadow: Mutex<Cell<Shadow>>,
    /// The published 64-bit time of the time base ([`time`](Self::time)): every
    /// [`FrcTime`] is a view of it.
    pub(crate) time: clocksource::Time64,
    /// Acknowledgements still owed by writes whose wait timed out (see
    /// [`write_buffered`](Self::write_buffered)), but `G_TCON`'s (a flag of `lock`). Kept
    /// here, not in the channels: a channel dropped and taken again still owes them.
    pub(crate) owed: Mutex<Cell<Owed>>,
    /// Whether `owed` holds anything: the one load a buffered write pays while no wait
    /// has failed (changed only inside the critical section that changes `owed`).
    pub(crate) owed_any: AtomicBool,
    /// The driver believes the FRC counts: its start was acknowledged and the count was
    /// seen moving. Decides whether the FRC may bound a write-status wait. One word, so an
    /// arm reads it with one load.
    pub(crate) frc_counting: AtomicBool,
    /// Last value written to `G_INT_ENB`. Changed only under `lock` (with the write), read
    /// without it: a comparator checks its own bits, which only it changes.
    pub(crate) g_int_enb: AtomicU32,
    /// Last value `G_TCON` acknowledged (the driver owns the block); read and written under
    /// `lock` only.
    pub(crate) g_tcon: AtomicU32,
    /// [`Config::cores`] as one function (`Cores::One`: [`config::cpu_zero`](crate::config::cpu_zero)), so a call
    /// learns its CPU with one load and one call, with no test of the variant.
    pub(crate) cpu: fn() -> u32,
    /// The shared-register lock: held for a `G_TCON` write and its WSTAT wait, and for a
    /// `G_INT_ENB` read-modify-write ([Shared registers](Self#shared-registers)). Its free
    /// word keeps `G_TCON`'s two flags (`shared::TCON_OWED`: the last write's
    /// acknowledgement is still owed; `shared::TCON_UNKNOWN`: `g_tcon` may not be what the
    /// register holds), so a section that finds neither set tests neither.
    pub(crate) lock: lock::SpinLock,
}

impl<B: Claim<Word = u32>> Mct<B> {
    /// Take over the block: reads `MCT_CFG` (rate), `G_TCON` and `G_INT_ENB`, clears
    /// write-status bits left set by earlier software (`G_CNT_WSTAT`, `G_WSTAT`, and
    /// `L_WSTAT` of each local timer: 2 + `local_timers` writes, so each register's first
    /// wait waits for its own write), and starts the time base at the hardware's 64-bit
    /// count (hi-lo-hi). A FRC already started (by a boot loader) keeps running; it is
    /// believed to run only once its count has been seen moving (at most `max_polls` + 3
    /// more reads). At most `6 + 7 + max_polls + 3` MMIO reads.
    ///
    /// Errors, each with nothing written: [`ConfigError::ZeroFrequency`] for a zero
    /// [`Config::input_hz`]; [`ConfigError::TimerCount`] for more than
    /// [`MAX_LOCAL_TIMERS`](regs::MAX_LOCAL_TIMERS) [`Config::local_timers`];
    /// [`ConfigError::WindowTooShort`] when the bus cannot hand out the global registers;
    /// [`ConfigError::RateUnreachable`] for an `MCT_CFG` prescaler and divider that do not
    /// divide the input clock exactly (see [`frc_rate`]; one MMIO read).
    pub fn new(bus: B, config: Config) -> Result<Self, Error> {
        if config.input_hz == 0 {
            return Err(ConfigError::ZeroFrequency.into());
        }
        if config.local_timers > regs::MAX_LOCAL_TIMERS {
            return Err(ConfigError::TimerCount.into());
        }
        let global = bus.claim(0).ok_or(ConfigError::WindowTooShort)?;
        let cfg = bus.read(regs::MCT_CFG_REG);
        let freq_hz = frc_rate(
            config.input_hz,
            cfg.read(MCT_CFG::PRESCALER),
            cfg.read(MCT_CFG::DIVIDER),
        )
        .ok_or(ConfigError::RateUnreachable)?;
        let g_tcon = bus.read_raw(regs::G_TCON_REG);
        let g_int_enb = bus.read_raw(regs::G_INT_ENB);
        // Stale acknowledgements would end the first wait of their register before its own
        // write landed.
        bus.write_raw(regs::G_CNT_WSTAT_REG, regs::G_CNT_WSTAT_ALL);
        bus.write_raw(regs::G_WSTAT_REG, regs::G_WSTAT_ALL);
        for i in 0..config.local_timers {
            bus.write_raw(regs::LocalRegs::of(i).wstat, regs::L_WSTAT_ALL);
        }
        let mct = Self {
            global,
            bus,
            cpu: config.cores.function(),
            config,
            freq_hz,
            shadow: Mutex::new(Cell::new(Shadow { taken: 0 })),
            g_tcon: AtomicU32::new(g_tcon),
            time: clocksource::Time64::new(0),
            owed: Mutex::new(Cell::new(Owed::default())),
            owed_any: AtomicBool::new(false),
            frc_counting: AtomicBool::new(false),
            g_int_enb: AtomicU32::new(g_int_enb),
            lock: lock::SpinLock::new(),
        };
        if g_tcon & G_TCON::TIMER_ENABLE::SET.value != 0 && mct.frc_counts() {
            mct.frc_counting.store(true, Ordering::Relaxed);
        }
        let start = mct.frc().read64();
        mct.time.raise(start);
        Ok(mct)
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

    /// Whether the driver believes the FRC runs: its start was acknowledged (or it was
    /// found running at [`new`](Self::new)) and its count was seen moving. Only then does
    /// the FRC bound write-status waits.
    pub fn frc_running(&self) -> bool {
        // Relaxed: set and cleared by the context that starts and stops the FRC, under
        // `&mut self` or before any part is lent out.
        self.frc_counting.load(Ordering::Relaxed)
    }

    /// The clock that bounds a write-status wait now: the FRC (and the poll count) when
    /// the FRC is believed to run, the poll count alone otherwise (see [`wstat`]).
    pub fn wait_clock(&self) -> WaitClock {
        if self.frc_running() {
            WaitClock::Frc {
                freq_hz: self.freq_hz,
            }
        } else {
            WaitClock::Iterations
        }
    }

    /// Start the FRC (`G_TCON.TIMER_ENABLE`, WSTAT-acknowledged), then check that the
    /// count moves (polling `G_CNT_L` for a change, at most `max_polls` + 3 reads). The
    /// count continues from its current value, as current Linux does. Returns the number
    /// of status reads the acknowledgement took (1 when it was immediate, 0 when the FRC
    /// already ran).
    ///
    /// Errors: [`Error::Timeout`] when `G_WSTAT.TCON` never came (bounded by polls: the FRC
    /// cannot time its own start), or when the count did not move after it (an unclocked
    /// block, or a window that is not an MCT: reads that never change). The FRC is then
    /// not believed to run, so later waits stay bounded by polls. [`Error::Busy`] when the
    /// shared-register lock stayed held (see [Shared registers](Self#shared-registers)).
    ///
    /// With `MCT_CFG` dividing the FRC down to a rate whose tick is longer than
    /// `max_polls` reads of `G_CNT_L` (below about 1 kHz at the default 10 000), raise
    /// [`WstatConfig::max_polls`] or the check reports a counting FRC as stopped.
    pub fn start_frc(&self) -> Result<u32, Error> {
        let polls = self.write_g_tcon(|t| t | G_TCON::TIMER_ENABLE::SET.value, false)?;
        if self.frc_running() {
            return Ok(polls);
        }
        if !self.frc_counts() {
            hwtimer_core::log_warn!("MCT: the FRC was started but does not count");
            return Err(Error::Timeout);
        }
        self.frc_counting.store(true, Ordering::Relaxed);
        Ok(polls)
    }

    /// Stop the FRC. Comparators stop matching; the time base stays where it is.
    ///
    /// `&mut self`: nothing that reads the FRC as a continuous clocksource (an [`Frc`] in
    /// a `Delay` or `Poller`, an [`FrcTime`], a clockevent) can be lent out while it stops
    /// (see [Borrowing rules](Self#borrowing-rules)). Afterwards the FRC is not believed to
    /// run, whatever the outcome.
    ///
    /// Errors: [`Error::Timeout`] and [`Error::Busy`] as for [`start_frc`](Self::start_frc).
    pub fn stop_frc(&mut self) -> Result<u32, Error> {
        self.frc_counting.store(false, Ordering::Relaxed);
        Ok(self.write_g_tcon(|t| t & !G_TCON::TIMER_ENABLE::SET.value, false)?)
    }

    /// Load the FRC with `value` (`G_CNT_L`, then `G_CNT_U`, each acknowledged in
    /// `G_CNT_WSTAT`). The time base starts a new epoch at the hardware's count (one
    /// hi-lo-hi read afterwards, whatever the outcome): `&mut self`, so no time view,
    /// clocksource or clockevent is lent out across the jump (see
    /// [Borrowing rules](Self#borrowing-rules)).
    ///
    /// QEMU quirk 1 (`docs/exynos-mct.md`): in QEMU's model a `G_CNT` write starts the
    /// counter even when `G_TCON.TIMER_ENABLE` is clear; on hardware it does not.
    ///
    /// Errors: [`Error::Timeout`] when a status bit never came.
    pub fn load_frc(&mut self, value: u64) -> Result<(), Error> {
        let result = self.write_g_cnt(value);
        let now = self.frc().read64();
        self.time.set(now);
        result
    }

    /// Set `MCT_CFG`'s prescaler (divide by `prescaler + 1`) and divider (divide by
    /// `1 << divider`, 0..=7 as QEMU decodes the 3-bit field; encodings above 4 are
    /// **unverified** on silicon), changing the FRC rate, and every rate derived from it,
    /// to [`frc_rate`]. Returns the new rate. `MCT_CFG` is not a buffered register (no
    /// write-status wait); `&mut self`, because a clocksource's rate may not change while
    /// it is lent out. The time base keeps counting, in ticks of the new rate.
    ///
    /// Errors: [`ConfigError::RateUnreachable`], writing nothing, when the result would not
    /// divide the input clock exactly or `divider` is above 7.
    pub fn set_prescaler(&mut self, prescaler: u8, divider: u8) -> Result<u32, Error> {
        let hz = frc_rate(
            self.config.input_hz,
            u32::from(prescaler),
            u32::from(divider),
        )
        .ok_or(ConfigError::RateUnreachable)?;
        let cfg = MCT_CFG::PRESCALER.val(u32::from(prescaler)).value
            | MCT_CFG::DIVIDER.val(u32::from(divider)).value;
        self.global.write_raw(regs::MCT_CFG_REG, cfg);
        self.freq_hz = hz;
        Ok(hz)
    }

    /// Resume after a system suspend, as Linux's `exynos4_frc_resume` does: restart the
    /// FRC. The block may have lost power, so `G_TCON` and `G_INT_ENB` are read again
    /// into the shadows and stale write-status bits of `G_TCON` and `G_CNT` are cleared
    /// first (and no acknowledgement is still owed for them: see
    /// [`wstat`](wstat#an-acknowledgement-that-comes-after-its-wait-gave-up)). If the
    /// count restarted below the published time (the block was reset), the FRC is loaded
    /// with the published time before it starts, so the time base never goes
    /// back and keeps equalling the count the comparators compare against (time stands
    /// still across the suspend, like Linux's `CLOCK_MONOTONIC`).
    ///
    /// The clockevents are not touched here: call each channel's `resume` (Linux's
    /// `tick_resume`: a shutdown; the local timer also rewrites `L_TCNTB`). Call with the
    /// block's other users quiescent, as Linux does (one CPU, interrupts off).
    ///
    /// Errors: [`Error::Timeout`] as for [`load_frc`](Self::load_frc) and
    /// [`start_frc`](Self::start_frc); [`Error::Busy`] when the shared-register lock stayed
    /// held (nothing written to the mirrors).
    pub fn resume(&self) -> Result<(), Error> {
        let g_tcon = self.global.read_raw(regs::G_TCON_REG);
        let g_int_enb = self.global.read_raw(regs::G_INT_ENB);
        self.bus
            .write_raw(regs::G_CNT_WSTAT_REG, regs::G_CNT_WSTAT_ALL);
        self.bus
            .write_raw(regs::G_WSTAT_REG, regs::G_WSTAT::TCON::SET.value);
        // Whatever `G_CNT` and `G_TCON` writes still owed an acknowledgement before the
        // suspend: it came (and was just cleared) or went with the block's power.
        self.set_owed(Self::g_cnt_bit(regs::G_CNT_WSTAT_ALL), false);
        {
            // Under the shared-register lock, as every `G_TCON` and `G_INT_ENB` change.
            let mut guard = self.lock_shared::<true>(self.me())?;
            guard.set_flags(shared::TCON_OWED | shared::TCON_UNKNOWN, false);
            self.g_tcon.store(g_tcon, Ordering::Relaxed);
            self.g_int_enb.store(g_int_enb, Ordering::Relaxed);
        }
        self.frc_counting.store(false, Ordering::Relaxed);
        let published = self.time().last();
        if self.frc().read64() < published {
            self.write_g_cnt(published)?;
        }
        self.start_frc().map(drop_count)
    }

    /// The FRC as a clocksource and raw reader (any number of copies; reads only).
    ///
    /// It is a [`Continuous`](hwtimer_core::Continuous) clocksource while the FRC runs
    /// ([`frc_running`](Self::frc_running)): start it first. A `Delay` or `Poller` on an
    /// FRC that does not count waits for it, as on any stopped clock.
    pub fn frc(&self) -> Frc<'_, B> {
        Frc::new(self)
    }

    /// The block's 64-bit time base, at one MMIO read per call: a view of the time the
    /// `Mct` publishes, so every view (from any number of calls) reads the same time, and
    /// its values are the 64-bit FRC counts the comparators compare against
    /// ([`Comparator`]'s `set_compare` takes them). See [`FrcTime`] for the precondition.
    pub fn time(&self) -> FrcTime<'_, B> {
        FrcTime::new(self)
    }

    /// Global comparator `n` (0..4) as a clockevent. Each comparator is handed out once
    /// at a time (dropping it shuts it down and returns it). Taking it shuts it down first
    /// (masks its interrupt, disables it, clears a stale status), so an event left by
    /// earlier software never passes for a new one.
    ///
    /// Errors: [`ConfigError::NoSuchTimer`] for `n >= 4`; [`ConfigError::AlreadyTaken`]
    /// for a comparator already handed out (both with nothing written);
    /// [`Error::Timeout`] when the disable was not acknowledged; [`Error::Busy`] when the
    /// shared-register lock stayed held (see [Shared registers](Self#shared-registers)).
    pub fn comparator(&self, n: usize) -> Result<Comparator<'_, B>, Error> {
        let bit = regs::g_int_comp(n);
        if bit == 0 {
            return Err(ConfigError::NoSuchTimer.into());
        }
        if !self.take(bit) {
            return Err(ConfigError::AlreadyTaken.into());
        }
        Comparator::new(self, n)
    }

    /// Local timer `i` as a clockevent at `fin_pll / 2`. Shuts it down (masks
    /// `L_INT_ENB`, stops it, clears a stale status) and writes `L_TCNTB =`
    /// [`TICK_BASE_CNT`](regs::TICK_BASE_CNT), each buffered write acknowledged.
    ///
    /// Unbound: for SoCs whose local timers each have an SPI ([`LocalIrq::Spi`], the
    /// default: Exynos4210). On [`LocalIrq::Ppi`] SoCs use
    /// [`bound_local_timer`](Self::bound_local_timer) or
    /// [`bind_local_timer`](Self::bind_local_timer).
    ///
    /// Errors: [`ConfigError::NoSuchTimer`] for `i` beyond [`Config::local_timers`];
    /// [`ConfigError::AlreadyTaken`] for a timer already handed out;
    /// [`ConfigError::WindowTooShort`] when its registers lie outside the bus's window;
    /// [`ConfigError::Capabilities`] on a [`LocalIrq::Ppi`] SoC (all four with nothing
    /// written); [`Error::Timeout`] when a WSTAT bit never came.
    pub fn local_timer(&self, i: usize) -> Result<LocalTimer<'_, B>, Error> {
        if self.config.local_irq == LocalIrq::Ppi {
            return Err(ConfigError::Capabilities.into());
        }
        self.take_local(i)
    }

    /// The local timer of the CPU this runs on ([`Config::cpu_map`]), bound to that CPU
    /// ([`CpuBound`]: every later call on another CPU touches nothing and returns
    /// [`Error::WrongCpu`]). Call it on each CPU as that CPU comes up, as Linux's
    /// `exynos4_mct_starting_cpu` does.
    ///
    /// Errors: [`ConfigError::NoSuchTimer`] when the map gives the CPU no local timer or
    /// its timer is beyond [`Config::local_timers`]; [`ConfigError::Capabilities`] on a
    /// [`LocalIrq::Ppi`] SoC when the map gives CPU *n* another local timer than *n* (its
    /// interrupt would not reach it); otherwise as [`local_timer`](Self::local_timer).
    pub fn bound_local_timer<C: CurrentCpu>(
        &self,
        cpu: C,
    ) -> Result<CpuBound<LocalTimer<'_, B>, C>, Error>
    where
        for<'x> LocalTimer<'x, B>: CpuLocal,
    {
        let owner = cpu.current_cpu();
        let timer = self.local_timer_of_cpu(owner)?;
        Ok(CpuBound::bind(timer, owner, cpu))
    }

    /// CPU `owner`'s local timer ([`Config::cpu_map`]), bound to `owner`, from any CPU
    /// (the boot CPU setting up each CPU's timer before it starts: the registers are not
    /// banked, only the interrupt is routed). Errors: as
    /// [`bound_local_timer`](Self::bound_local_timer).
    pub fn bind_local_timer<C: CurrentCpu>(
        &self,
        owner: u32,
        cpu: C,
    ) -> Result<CpuBound<LocalTimer<'_, B>, C>, Error>
    where
        for<'x> LocalTimer<'x, B>: CpuLocal,
    {
        let timer = self.local_timer_of_cpu(owner)?;
        Ok(CpuBound::bind(timer, owner, cpu))
    }

    fn local_timer_of_cpu(&self, cpu: u32) -> Result<LocalTimer<'_, B>, Error> {
        let i = self
            .config
            .cpu_map
            .local_timer_of(cpu)
            .ok_or(ConfigError::NoSuchTimer)?;
        if self.config.local_irq == LocalIrq::Ppi && usize::try_from(cpu).ok() != Some(i) {
            return Err(ConfigError::Capabilities.into());
        }
        self.take_local(i)
    }

    fn take_local(&self, i: usize) -> Result<LocalTimer<'_, B>, Error> {
        let bit = local_bit(i);
        if i >= self.config.local_timers || bit == 0 {
            return Err(ConfigError::NoSuchTimer.into());
        }
        if !self.take(bit) {
            return Err(ConfigError::AlreadyTaken.into());
        }
        LocalTimer::new(self, i)
    }

    // ---- crate-internal helpers ----

    /// The whole window (local timer registers; each access checked).
    pub(crate) fn bus_ref(&self) -> &B {
        &self.bus
    }

    /// The global registers, taken once (each access the bare load or store).
    #[inline]
    pub(crate) fn global(&self) -> &B::Block<{ regs::LOCAL_BASE }> {
        &self.global
    }

    /// The published time of the time base (for [`FrcTime`]): lock-free where the target
    /// has 64-bit atomics (see [`Time64`](clocksource::Time64)).
    #[inline]
    pub(crate) fn published(&self) -> &clocksource::Time64 {
        &self.time
    }

    /// Move the published time forward to `count`, an exact 64-bit FRC reading (hi-lo-hi),
    /// if it is ahead; never backwards. `set_next_event` does this with the reading it
    /// starts from.
    pub(crate) fn publish(&self, count: u64) {
        self.time.raise(count);
    }

    /// Whether `G_CNT_L` changes within `max_polls` polls (1 + at most `max_polls + 2`
    /// reads).
    fn frc_counts(&self) -> bool {
        let first = self.global.read_raw(regs::G_CNT_L);
        wstat::poll_iterations(
            &self.global,
            self.config.wstat.max_polls,
            || self.global.read_raw(regs::G_CNT_L),
            |low| *low != first,
        )
        .is_ok()
    }

    /// `G_CNT_L` then `G_CNT_U`, each acknowledged (bounded by polls: the count moves).
    fn write_g_cnt(&self, value: u64) -> Result<(), Error> {
        let low = u32::try_from(value & u64::from(u32::MAX)).unwrap_or(u32::MAX);
        let high = u32::try_from(value >> 32).unwrap_or(u32::MAX);
        self.write_buffered(
            regs::G_CNT_L,
            low,
            Self::g_cnt_bit(regs::G_CNT_WSTAT::CNT_L::SET.value),
            Bound::Polls,
        )?;
        self.write_buffered(
            regs::G_CNT_U,
            high,
            Self::g_cnt_bit(regs::G_CNT_WSTAT::CNT_U::SET.value),
            Bound::Polls,
        )?;
        Ok(())
    }
}

/// Turn the poll count of a WSTAT wait into `()` (`.map(drop_count)`).
pub(crate) fn drop_count(_polls: u32) {}

impl<B: Claim<Word = u32> + core::fmt::Debug> core::fmt::Debug for Mct<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mct")
            .field("bus", &self.bus)
            .field("freq_hz", &self.freq_hz)
            .field("g_tcon", &self.g_tcon.load(Ordering::Relaxed))
            .field(
                "g_tcon_known",
                // Unknown to `Debug` itself while a section holds the lock.
                &self
                    .lock
                    .flags_if_free()
                    .map(|flags| flags & shared::TCON_UNKNOWN == 0),
            )
            .field("g_int_enb", &self.g_int_enb.load(Ordering::Relaxed))
            .field("frc_running", &self.frc_running())
            .finish()
    }
}
