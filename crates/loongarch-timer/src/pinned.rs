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
//! | [`PinnedTimer`] `set_next_event`, `set_periodic` | programs TCFG | touches nothing, [`Error::WrongCpu`] |
//! | [`PinnedTimer`] `shutdown` | TCFG = 0 (and what the timer's shutdown does) | touches nothing |
//! | [`PinnedTimer`] `ack` | reads ESTAT, clears TI | touches nothing, `false` |
//! | dropping a [`PinnedTimer`] | TCFG = 0, TICLR (as the timer's own `Drop`) | touches nothing |
//! | [`PinnedCounter::now`] | `rdtime.d`, published | the same: `rdtime.d` on that core, published |
//!
//! So sharing or moving a [`PinnedTimer`] can never reach another core's timer. The check
//! costs one `csrrd` of CPUID and a compare per call.
//!
//! # Time on every core
//!
//! The stable counter is **chip-wide**: every core's `rdtime.d` reads the one constant
//! clock of the chip, plus that core's CNTC (Linux reads `rdtime` on whichever CPU it runs
//! and relies on that). So [`PinnedCounter::now`] reads `rdtime.d` on the calling core,
//! whichever it is, and returns the maximum of that reading and every value any core
//! published before (one atomic maximum, `ammax_db.d`). Every core therefore sees current
//! time, and the time base never goes backwards, not even across cores whose readings
//! differ by a few ticks of skew: a core that reads a value below one already published
//! gets the published one.
//!
//! Where the cores' CNTC differ (firmware left them so; QEMU TCG ignores CNTC), their
//! readings are offset from each other and the maximum would follow the core that runs
//! ahead. [`CounterOffset`] and [`sync_counter`] align them as Linux's `sync_counter` does
//! at boot: the boot core captures the compensation that makes its counter read 0 now,
//! and every core (the boot core included) writes that same value into its own CNTC before
//! any time base reads there. This aligns cores that share the chip's counter; it cannot
//! align cores whose raw counters run apart.
//!
//! # What a call from another core means for the timer
//!
//! The constant timer is per core: a wake scheduled from another core through this timer
//! gets [`Error::WrongCpu`], and waits in the runtime's queue until the owning core's next
//! timer interrupt (hwtimer-core's `TimeDriver` then looks at its queue again). Run the
//! tasks that wait on this timer on the core that owns it (one executor per core, each with
//! its own timer, is the usual layout). A bare [`ConstantTimer`] can also be bound with
//! `hwtimer_core::cpu::CpuBound` (it is [`CpuLocal`](hwtimer_core::cpu::CpuLocal)), which
//! checks `NativeCpu` (CPUID) the same way.
//!
//! # Set-up
//!
//! (`ignore`: `NativeCsr` exists on loongarch64 only, so this cannot be a host doctest;
//! `examples/templates/loongarch-virt` and `examples/firmware/loongarch-virt-async` build
//! the same calls, `cargo xtask cross`.)
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

use hwtimer_core::{Capabilities, ClockEvent, Clocksource, CpuMismatch, Error, Monotonic};

use crate::clockevent::OnDrop;
use crate::csr::{CSR_CNTC, CntcCsr, Csr, core_id};
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

    /// `Ok` on the owning core, [`Error::WrongCpu`] elsewhere (one CPUID read).
    #[inline]
    pub fn check(&self) -> Result<(), Error> {
        let current = core_id(self.timer.csr());
        if current == self.core {
            Ok(())
        } else {
            Err(Error::WrongCpu(CpuMismatch::new(
                cpu_number(self.core),
                cpu_number(current),
            )))
        }
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

    /// Errors: [`Error::WrongCpu`] on another core (nothing written); the timer's own.
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.check()?;
        self.timer.set_next_event(delta)
    }

    /// Errors: [`Error::WrongCpu`] on another core (nothing written); the timer's own.
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.check()?;
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

/// A CPUID.CoreID (9 bits) as hwtimer-core's CPU number.
fn cpu_number(core: u64) -> u32 {
    u32::try_from(core).unwrap_or(u32::MAX)
}

/// The stable counter as a [`Monotonic`] time base for **every** core (see the
/// [module docs](self#time-on-every-core)): each core reads its own `rdtime.d`, and the
/// largest value any core has read is published, so no reader ever sees time go back.
#[derive(Debug)]
pub struct PinnedCounter<C: Csr> {
    counter: StableCounter<C>,
    core: u64,
    /// The largest value read on any core.
    last: AtomicU64,
}

impl<C: Csr> PinnedCounter<C> {
    /// The counter, created on the core this runs on (one CPUID read, one `rdtime.d`).
    pub fn new(counter: StableCounter<C>) -> Self {
        let core = core_id(counter.csr());
        let last = AtomicU64::new(Monotonic::now(&counter));
        Self {
            counter,
            core,
            last,
        }
    }

    /// The `CPUID.CoreID` of the core that created it (reads do not depend on it).
    pub fn core(&self) -> u64 {
        self.core
    }

    /// Whether this runs on the core that created it (one CPUID read).
    #[inline]
    pub fn on_owner(&self) -> bool {
        core_id(self.counter.csr()) == self.core
    }

    /// The largest value published by any core's read, without reading anything.
    pub fn last(&self) -> u64 {
        self.last.load(Ordering::Relaxed)
    }
}

impl<C: Csr> Monotonic for PinnedCounter<C> {
    /// `rdtime.d` on the calling core, whichever it is, published: the result is the
    /// maximum of this reading and everything published before, so it never goes
    /// backwards, on one core or across cores (the atomic maximum puts every read in one
    /// order). No CPUID check: the counter is the chip's.
    #[inline]
    fn now(&self) -> u64 {
        let t = Monotonic::now(&self.counter);
        let before = self.last.fetch_max(t, Ordering::Relaxed);
        before.max(t)
    }

    #[inline]
    fn freq_hz(&self) -> u32 {
        Clocksource::freq_hz(&self.counter)
    }
}

/// The counter compensation that makes the boot core's stable counter read 0 at the moment
/// it was captured: Linux's `init_offset`, `CNTC − rdtime` (see the
/// [module docs](self#time-on-every-core)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterOffset(u64);

impl CounterOffset {
    /// Capture it on the boot core: one CNTC read and one `rdtime.d` (which includes
    /// CNTC), `CNTC − rdtime` in wrapping arithmetic.
    pub fn capture<C: Csr>(csr: &C) -> Self {
        let cntc = csr.read_word(CSR_CNTC.offset());
        let now = csr.rdtime();
        Self(cntc.wrapping_sub(now))
    }

    /// The value to write into CNTC.
    pub fn value(self) -> u64 {
        self.0
    }
}

/// Write `offset` into the calling core's CNTC (one `csrwr`), as Linux's `sync_counter`
/// does on every CPU: call it on every core, the boot core included, with the one offset
/// the boot core captured, so all cores' `rdtime.d` agree.
///
/// # When to call it
///
/// Whenever a [`PinnedCounter`] (or anything else that publishes time across cores) is read
/// on more than one core and the cores' CNTC may differ, which is the case unless the
/// platform or the boot firmware guarantees one value on every core:
/// - at boot: [`CounterOffset::capture`] on the boot core before anything reads the
///   counter, then `sync_counter` on each core (the boot core first) before that core's
///   first read of the time base and before it programs a deadline;
/// - again on each core after a suspend that may have reset CNTC (Linux calls
///   `save_counter` before and `sync_counter` after), with an offset captured then.
///
/// Without it, [`PinnedCounter::now`] returns the largest reading any core published, so a
/// core whose CNTC puts its `rdtime.d` behind another's sees time stand still until its own
/// counter catches up (`tests/driver/pinned.rs`). QEMU TCG ignores CNTC in `rdtime.d`, so there the
/// call changes nothing visible; the `loongarch-virt` firmware makes it on both cores and
/// reads CNTC back.
///
/// # Safety
///
/// CNTC shifts `rdtime.d` for **everything** on this core. The caller guarantees:
/// - it runs at PLV0 on the core whose CNTC it means to write (as `NativeCsr::new`);
/// - no time base on this core has read the counter yet, or a jump in time is acceptable
///   to every reader (a [`PinnedCounter`] stays monotonic across it by holding its
///   published value until the counter catches up, which a backward jump makes a stall);
/// - no timer deadline computed from the old counter value is still outstanding.
#[allow(
    unsafe_code,
    reason = "the CNTC write is the unsafe CSR boundary: it shifts time for the whole core"
)]
pub unsafe fn sync_counter<C: CntcCsr>(csr: &C, offset: CounterOffset) {
    // SAFETY: forwarded from this function's contract.
    unsafe { csr.write_cntc(offset.value()) }
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
    // SAFETY: `PinnedCounter` executes `rdtime.d` and CPUID reads only: side-effect-free
    // reads, valid on every core at PLV0 (which `NativeCsr::new`'s contract requires),
    // and `rdtime.d` reads the one chip-wide stable counter on whichever core executes
    // it, so a read on another core is a correct read of the same time base. Its shared
    // state is one atomic. Nothing in it belongs to the creating core.
    unsafe impl Send for PinnedCounter<NativeCsr> {}
    // SAFETY: as for `Send`: every `&self` method is `rdtime.d`, a CPUID read, or an atomic
    // access to the published value.
    unsafe impl Sync for PinnedCounter<NativeCsr> {}
}
