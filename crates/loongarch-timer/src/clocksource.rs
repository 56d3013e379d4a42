//! The stable counter read with `rdtime.d`: a 64-bit continuous clocksource.
//!
//! # Facts
//!
//! (`hardware.md` §3.4, §3.7; `torvalds/linux arch/loongarch/kernel/time.c`)
//! - `rdtime.d rd, rj` returns the 64-bit stable counter in `rd` (and the counter id in
//!   `rj`). Linux registers it as the "Constant" clocksource, rating 400, 64-bit mask,
//!   `CLOCK_SOURCE_IS_CONTINUOUS`, and uses it for `sched_clock` too.
//! - It counts at the constant clock (CPUCFG4 × CPUCFG5 ratio), independently of TCFG, and
//!   at 100 MHz wraps after 5,849 years: no width extension is needed.
//! - On hardware CNTC is added to what `rdtime` returns; QEMU TCG ignores CNTC. This crate
//!   never writes CNTC (and [`NativeCsr`](crate::csr) refuses to), so time never jumps.

use hwtimer_core::{Clocksource, Continuous, Monotonic};

use crate::cpucfg::ConstantClock;
use crate::csr::Csr;

/// The stable counter of the current core as a [`Clocksource`], [`Continuous`] and
/// [`Monotonic`] time base.
///
/// # Timing contract
///
/// - [`read`](Clocksource::read) and [`now`](Monotonic::now) cost **one `rdtime.d`** and
///   nothing else (no CSR access, no critical section).
/// - The value counts up by one per period of [`freq_hz`](Clocksource::freq_hz), never
///   wraps in practice (64 bits) and never goes backwards on one core, provided nothing
///   rewrites CNTC while it is in use (this crate never does).
/// - It does not depend on the timer (TCFG) being enabled.
#[derive(Debug, Clone)]
pub struct StableCounter<C: Csr> {
    csr: C,
    freq_hz: u32,
}

impl<C: Csr> StableCounter<C> {
    /// The stable counter, counting at `clock`'s frequency (see
    /// [`ConstantClock::probe`]).
    pub const fn new(csr: C, clock: ConstantClock) -> Self {
        Self {
            csr,
            freq_hz: clock.freq_hz(),
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

    fn freq_hz(&self) -> u32 {
        self.freq_hz
    }
}
