//! The timer and the stable counter **pinned to the core that owns them**, so they can be
//! `static`s (embassy's time driver, an rtic-time monotonic, an `Alarm` shared with the
//! interrupt handler) without an `unsafe impl Send` in the firmware.
//!
//! # Why a wrapper
//!
//! A CSR instruction acts on the core that executes it. A [`ConstantTimer`] or
//! [`StableCounter`] on `NativeCsr` moved to another core would program that core's timer
//! and read that core's counter, which the value was never given (see `NativeCsr::new`'s
//! contract), so the bare types are not meant to cross threads. A runtime's global driver
//! has to be `Sync`, though. [`PinnedTimer`] and [`PinnedCounter`] record the core they are
//! created on (`CPUID.CoreID`) and check it before every CSR access:
//!
//! | call | on the owning core | on any other core |
//! |---|---|---|
//! | [`PinnedTimer`] `set_next_event`, `set_periodic` | programs TCFG | touches nothing, [`Error::Unsupported`] |
//! | [`PinnedTimer`] `shutdown` | TCFG = 0 (and what the timer's shutdown does) | touches nothing |
//! | [`PinnedTimer`] `ack` | reads ESTAT, clears TI | touches nothing, `false` |
//! | dropping a [`PinnedTimer`] | TCFG = 0, TICLR (as the timer's own `Drop`) | touches nothing |
//! | [`PinnedCounter::now`] | `rdtime.d`, published | the time last read on the owning core |
//!
//! So sharing or moving them can never reach another core's timer, and the time base stays
//! monotonic for every reader: a value read elsewhere is one the owning core has already
//! seen. The check costs one `csrrd` of CPUID and a compare per call, and the counter one
//! atomic maximum (`ammax_db.d`) to publish what it read.
//!
//! # What a call from another core means
//!
//! Nothing breaks, but nothing is served there either: a wake scheduled from another core
//! waits in the runtime's queue until the owning core's next timer interrupt (hwtimer-core's
//! `TimeDriver` then looks at its queue again), and time seen there lags. Run the tasks that
//! wait on this timer on the core that owns it (one executor per core, each with its own
//! timer, is the usual layout).
//!
//! # Set-up
//!
//! ```ignore
//! // SAFETY: PLV0, on the core whose timer this is; nothing else programs TCFG, TICLR or
//! // ECFG bit 11 on this core.
//! let csr = unsafe { loongarch_timer::csr::NativeCsr::new() };
//! let (timer, time) = loongarch_timer::pinned::pair(csr, Config::default())?;
//! ```
//!
//! then hand both to `loongarch_timer::embassy::Driver::init` or an `rtic_monotonic!`'s
//! `start` (features `embassy`, `rtic`), or to an `Alarm` in a `critical_section::Mutex`.

use core::sync::atomic::{AtomicU64, Ordering};

use hwtimer_core::{Capabilities, ClockEvent, Clocksource, Error, Monotonic};

use crate::clockevent::OnDrop;
use crate::csr::{Csr, core_id};
use crate::{Config, ConstantClock, ConstantTimer, StableCounter};

/// The constant timer, usable from the core it was created on only (see the
/// [module docs](self)); a [`ClockEvent`] like the timer it wraps.
///
/// Dropped on the owning core it leaves the timer quiet, as [`ConstantTimer`] does; dropped
/// elsewhere it touches nothing (one CPUID read), since that core's timer is not its own.
#[derive(Debug)]
#[must_use = "dropping the timer stops it"]
pub struct PinnedTimer<C: Csr> {
    timer: ConstantTimer<C>,
    core: u64,
}

impl<C: Csr> PinnedTimer<C> {
    /// Pin `timer` to the core this runs on (one CPUID read).
    pub fn new(mut timer: ConstantTimer<C>) -> Self {
        let core = core_id(timer.csr());
        timer.set_on_drop(OnDrop::QuietOn(core));
        Self { timer, core }
    }

    /// The owning core's `CPUID.CoreID`.
    pub fn core(&self) -> u64 {
        self.core
    }

    /// Whether this runs on the owning core (one CPUID read).
    #[inline]
    pub fn on_owner(&self) -> bool {
        core_id(self.timer.csr()) == self.core
    }

    /// Run `f` on the timer itself (ECFG enable bit, `is_pending`, `remaining`), on the
    /// owning core only; `None` elsewhere.
    pub fn with<R>(&mut self, f: impl FnOnce(&mut ConstantTimer<C>) -> R) -> Option<R> {
        if self.on_owner() {
            Some(f(&mut self.timer))
        } else {
            None
        }
    }

    /// Give the timer back, on the owning core only (elsewhere the pinned value comes back).
    pub fn into_inner(self) -> Result<ConstantTimer<C>, Self> {
        if self.on_owner() {
            let mut timer = self.timer;
            timer.set_on_drop(OnDrop::Quiet);
            Ok(timer)
        } else {
            Err(self)
        }
    }
}

impl<C: Csr> ClockEvent for PinnedTimer<C> {
    /// The timer's own (constant, no CSR read).
    fn capabilities(&self) -> Capabilities {
        self.timer.capabilities()
    }

    /// Errors: [`Error::Unsupported`] on another core (nothing written); the timer's own.
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if !self.on_owner() {
            return Err(Error::Unsupported);
        }
        self.timer.set_next_event(delta)
    }

    /// Errors: [`Error::Unsupported`] on another core (nothing written); the timer's own.
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.on_owner() {
            return Err(Error::Unsupported);
        }
        self.timer.set_periodic(period)
    }

    /// On the owning core only; elsewhere nothing is touched.
    fn shutdown(&mut self) {
        if self.on_owner() {
            self.timer.shutdown()
        }
    }

    /// On the owning core only; elsewhere `false` (that core's TI is not this timer's).
    #[inline]
    fn ack(&mut self) -> bool {
        self.on_owner() && self.timer.ack()
    }
}

/// The stable counter, read on the core it was created on only (see the
/// [module docs](self)); a [`Monotonic`] time base for every core.
#[derive(Debug)]
pub struct PinnedCounter<C: Csr> {
    counter: StableCounter<C>,
    core: u64,
    /// The largest value read on the owning core, for readers elsewhere.
    last: AtomicU64,
}

impl<C: Csr> PinnedCounter<C> {
    /// Pin `counter` to the core this runs on (one CPUID read, one `rdtime.d`).
    pub fn new(counter: StableCounter<C>) -> Self {
        let core = core_id(counter.csr());
        let last = AtomicU64::new(Monotonic::now(&counter));
        Self {
            counter,
            core,
            last,
        }
    }

    /// The owning core's `CPUID.CoreID`.
    pub fn core(&self) -> u64 {
        self.core
    }

    /// Whether this runs on the owning core (one CPUID read).
    #[inline]
    pub fn on_owner(&self) -> bool {
        core_id(self.counter.csr()) == self.core
    }

    /// The last value published (read on the owning core), without reading anything.
    pub fn last(&self) -> u64 {
        self.last.load(Ordering::Relaxed)
    }
}

impl<C: Csr> Monotonic for PinnedCounter<C> {
    /// On the owning core: `rdtime.d`, published for other readers (never below what was
    /// published before). Elsewhere: the last value published. Never goes backwards.
    #[inline]
    fn now(&self) -> u64 {
        if !self.on_owner() {
            return self.last.load(Ordering::Relaxed);
        }
        let t = Monotonic::now(&self.counter);
        let before = self.last.fetch_max(t, Ordering::Relaxed);
        before.max(t)
    }

    fn freq_hz(&self) -> u32 {
        Clocksource::freq_hz(&self.counter)
    }
}

/// The timer and the stable counter of the core this runs on, pinned to it: the frequency
/// from CPUCFG ([`ConstantClock::probe`]), a [`ConstantTimer`] with `config`, shut down and
/// with its interrupt line enabled (ECFG.LIE bit 11; the core takes it once CRMD.IE is
/// set), and the counter.
///
/// Errors: those of [`ConstantClock::probe`] and [`Config::validate`].
pub fn pair<C: Csr + Clone>(
    csr: C,
    config: Config,
) -> Result<(PinnedTimer<C>, PinnedCounter<C>), Error> {
    let clock = ConstantClock::probe(&csr)?;
    let mut timer = ConstantTimer::new(csr.clone(), clock, config)?;
    timer.shutdown();
    timer.ack();
    timer.enable_interrupt();
    Ok((
        PinnedTimer::new(timer),
        PinnedCounter::new(StableCounter::new(csr, clock)),
    ))
}

#[cfg(target_arch = "loongarch64")]
#[allow(
    unsafe_code,
    reason = "Send and Sync for the pinned types: the per-core check makes them sound"
)]
mod native {
    use super::{PinnedCounter, PinnedTimer};
    use crate::csr::NativeCsr;

    // SAFETY: the reason the bare timer must stay on its core is that its CSR instructions
    // act on whichever core executes them. Every method of `PinnedTimer` that executes one
    // (`set_next_event`, `set_periodic`, `shutdown`, `ack`, `with`, `into_inner`, and its
    // drop, which the inner timer performs with `OnDrop::QuietOn`) first
    // reads CPUID (a side-effect-free read, valid on every core at PLV0, which
    // `NativeCsr::new`'s contract already requires) and goes on only on the core recorded
    // at creation; elsewhere it touches no CSR. `capabilities` reads none. So a
    // `PinnedTimer` moved to another thread can only ever program its own core's timer,
    // which is what `NativeCsr::new`'s caller handed to it.
    unsafe impl Send for PinnedTimer<NativeCsr> {}
    // SAFETY: through `&PinnedTimer` only `capabilities`, `core` and `on_owner` can be
    // called: no CSR is written and the only one read is CPUID.
    unsafe impl Sync for PinnedTimer<NativeCsr> {}
    // SAFETY: `PinnedCounter::now` executes `rdtime.d` only after the CPUID check, on the
    // core recorded at creation; elsewhere it loads the published value (an atomic). So
    // moving or sharing it never reads another core's counter as if it were this one.
    unsafe impl Send for PinnedCounter<NativeCsr> {}
    // SAFETY: as for `Send`: every `&self` method is either the checked `rdtime.d` or an
    // atomic access to the published value.
    unsafe impl Sync for PinnedCounter<NativeCsr> {}
}
