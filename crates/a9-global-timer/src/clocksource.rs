//! The shared 64-bit counter as a clocksource and a time base.
//!
//! The counter is 64 bits wide, counts up at `input_hz / (prescaler + 1)` while
//! `TIMER_ENABLE` is set, and is read through two 32-bit registers that are **not
//! latched**: a consistent value needs the hi-lo-hi read ([`GtCounter::read64`], 3 reads,
//! [`compare::hi_lo_hi`]). Because it is 64 bits wide it needs no software extension
//! (2^64 ticks at 100 MHz are 5849 years), so [`GtCounter`] is directly a
//! [`Monotonic`] time base with no state and no critical section, and the comparator
//! compares exactly the numbers it returns (Linux registers the same counter as a
//! 64-bit, `CLOCK_SOURCE_IS_CONTINUOUS` clocksource).
//!
//! | read | MMIO reads | exact |
//! |---|---|---|
//! | [`GtCounter::read_low`] | 1 | modulo 2^32 (wraps every 42.9 s at 100 MHz) |
//! | [`GtCounter::read64`], [`Clocksource::read`], [`Monotonic::now`] | 3 (5 when a carry falls between the reads; at most 7) | yes |

use hwtimer_core::{Claim, Clocksource, Continuous, Monotonic, RegisterBusExt};

use crate::compare;
use crate::{GlobalTimer, regs};

/// The global timer's counter: a 64-bit [`Continuous`] clocksource and [`Monotonic`] time
/// base. `Copy`: hand out as many as needed.
///
/// Monotonic as long as the hardware counter is: nothing stops it
/// ([`GlobalTimer::stop`]) or loads it ([`GlobalTimer::load`]) while it is in use.
pub struct GtCounter<'a, B: Claim<Word = u32>> {
    gt: &'a GlobalTimer<B>,
}

impl<B: Claim<Word = u32>> Clone for GtCounter<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Claim<Word = u32>> Copy for GtCounter<'_, B> {}

impl<'a, B: Claim<Word = u32>> GtCounter<'a, B> {
    pub(crate) fn new(gt: &'a GlobalTimer<B>) -> Self {
        Self { gt }
    }

    /// The exact 64-bit count, hi-lo-hi: **3 MMIO reads**, 5 when a carry out of the low
    /// word falls between them, never more than
    /// [`HILOHI_MAX_READS`](compare::HILOHI_MAX_READS) (a broken bus: see
    /// [`compare::hi_lo_hi`]).
    pub fn read64(&self) -> u64 {
        let bus = self.gt.regs();
        compare::hi_lo_hi(
            || bus.read_raw(regs::GT_COUNTER1),
            || bus.read_raw(regs::GT_COUNTER0),
        )
    }

    /// The low word, `GT_COUNTER0`: 1 MMIO read (on its own, consistent with no high word).
    pub fn read_low(&self) -> u32 {
        self.gt.regs().read_raw(regs::GT_COUNTER0)
    }

    /// The counter rate in Hz.
    pub fn freq_hz(&self) -> u32 {
        self.gt.freq_hz()
    }
}

impl<B: Claim<Word = u32>> Clocksource for GtCounter<'_, B> {
    fn bits(&self) -> u32 {
        64
    }
    fn freq_hz(&self) -> u32 {
        self.gt.freq_hz()
    }
    /// [`read64`](GtCounter::read64): 3 MMIO reads.
    fn read(&self) -> u64 {
        self.read64()
    }
}

/// The counter advances at a fixed rate without software help once started (Linux:
/// `CLOCK_SOURCE_IS_CONTINUOUS`).
impl<B: Claim<Word = u32>> Continuous for GtCounter<'_, B> {}

impl<B: Claim<Word = u32>> Monotonic for GtCounter<'_, B> {
    /// [`read64`](GtCounter::read64): 3 MMIO reads, no state.
    fn now(&self) -> u64 {
        self.read64()
    }
    fn freq_hz(&self) -> u32 {
        self.gt.freq_hz()
    }
    // `max_idle_ticks`: the default, `u64::MAX`. A 64-bit counter needs no reads to keep
    // its time, so an `Alarm` programs any deadline in one step.
}

impl<B: Claim<Word = u32>> core::fmt::Debug for GtCounter<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GtCounter")
            .field("freq_hz", &self.gt.freq_hz())
            .finish()
    }
}
