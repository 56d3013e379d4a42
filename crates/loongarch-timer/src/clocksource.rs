//! The stable counter read with `rdtime.d`: a 64-bit continuous clocksource.
//!
//! # Facts
//!
//! (`docs/loongarch-timer.md#rdtime`; `torvalds/linux arch/loongarch/kernel/time.c`)
//! - `rdtime.d rd, rj` returns the 64-bit stable counter in `rd` (and the counter id in
//!   `rj`). Linux registers it as the "Constant" clocksource, rating 400, 64-bit mask,
//!   `CLOCK_SOURCE_IS_CONTINUOUS`, and uses it for `sched_clock` too.
//! - It counts at the constant clock (CPUCFG4 × CPUCFG5 ratio), independently of TCFG, and
//!   at 100 MHz wraps after 5,849 years: no width extension is needed.
//! - On hardware CNTC is added to what `rdtime` returns; QEMU TCG ignores CNTC. This crate
//!   never writes CNTC (and [`NativeCsr`](crate::csr) refuses to), so time never jumps.
//! - Every core has its own stable counter and its own CNTC. Linux writes each core's CNTC
//!   at boot and resume (`sync_counter`) so that all cores read relative to one offset;
//!   nothing else lines the cores' values up.
//!
//! # Monotonic on which core
//!
//! The [`Monotonic`] contract says `now` never goes backwards "between any two calls, on
//! any core". For a [`StableCounter`] that means **the core it was created on**: it is
//! neither `Send` nor `Sync` (see [`csr`](crate::csr#per-core-not-send-not-sync)), so all
//! its calls run there, and that core's counter never goes backwards.
//!
//! Values read on *different* cores are a different matter. Unless firmware synchronised
//! the stable counters through each core's CNTC, they may differ by any amount (cores
//! started at different times, or firmware left different offsets), so a value read on
//! one core compared with a value read on another is **not ordered**: `a < b` says nothing
//! about which read happened first, and a deadline computed from core 0's counter means
//! nothing to core 1's timer. Program each core's timer from that core's own counter; a
//! raw `u64` time that crosses cores is only comparable if the platform guarantees
//! synchronised counters.

use hwtimer_core::{Clocksource, Continuous, Monotonic};

use crate::cpucfg::ConstantClock;
use crate::csr::{Csr, PerCore};

/// The stable counter of the current core as a [`Clocksource`], [`Continuous`] and
/// [`Monotonic`] time base.
///
/// # Timing contract
///
/// - [`read`](Clocksource::read) and [`now`](Monotonic::now) cost **one `rdtime.d`** and
///   nothing else (no CSR access, no critical section).
/// - The value counts up by one per period of [`freq_hz`](Clocksource::freq_hz), never
///   wraps in practice (64 bits) and never goes backwards on its core, provided nothing
///   rewrites CNTC while it is in use (this crate never does).
/// - It does not depend on the timer (TCFG) being enabled.
/// - Monotonic on the core that created it, which is the only core it can be used on (it
///   is neither `Send` nor `Sync`); values of different cores are not ordered unless
///   firmware synchronised the counters through CNTC (see the
///   [module docs](self#monotonic-on-which-core)).
#[derive(Debug, Clone)]
pub struct StableCounter<C: Csr> {
    csr: C,
    freq_hz: u32,
    _core: PerCore,
}

impl<C: Csr> StableCounter<C> {
    /// The stable counter, counting at `clock`'s frequency (see
    /// [`ConstantClock::probe`]).
    pub const fn new(csr: C, clock: ConstantClock) -> Self {
        Self {
            csr,
            freq_hz: clock.freq_hz(),
            _core: PerCore::HERE,
        }
    }

    /// The CSR access it reads through.
    pub fn csr(&self) -> &C {
        &self.csr
    }

    /// Give the CSR access back.
    pub fn into_inner(self) -> C {
        self.csr
    }
}

impl<C: Csr> Clocksource for StableCounter<C> {
    fn bits(&self) -> u32 {
        64
    }

    #[inline]
    fn freq_hz(&self) -> u32 {
        self.freq_hz
    }

    #[inline]
    fn read(&self) -> u64 {
        self.csr.rdtime()
    }
}

impl<C: Csr> Continuous for StableCounter<C> {}

impl<C: Csr> Monotonic for StableCounter<C> {
    #[inline]
    fn now(&self) -> u64 {
        self.csr.rdtime()
    }

    #[inline]
    fn freq_hz(&self) -> u32 {
        self.freq_hz
    }
}
