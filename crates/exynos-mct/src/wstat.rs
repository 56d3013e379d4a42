//! The write-status protocol: every buffered write is followed by a bounded wait on its
//! WSTAT bit and a write-1-to-clear of that bit.
//!
//! # Background
//!
//! The MCT runs in its own clock domain. A write to a *buffered* register (`G_CNT_L/U`,
//! `G_COMPn_L/U/ADD_INCR`, `G_TCON`, and per local timer `L_TCNTB`, `L_ICNTB`, `L_FRCNTB`,
//! `L_TCON`) is only taken over by the timer some cycles later; the block reports it by
//! setting a bit in `G_CNT_WSTAT`, `G_WSTAT` or `L_WSTAT`, which software clears by
//! writing a one. Linux waits for the bit after every such write and **panics** ("MCT hangs after
//! writing …") when it does not come within its loop bound (`docs/exynos-mct.md`; a
//! quirk listed there: a write issued before the previous one was acknowledged can be
//! lost).
//!
//! # What this crate does instead
//!
//! [`write_and_wait`] writes, reads the status register once (the fast path: QEMU sets
//! the bit synchronously, so this is the only read there), and otherwise polls with
//! hwtimer-core's [`Poller`]: bounded by a deadline, **one more read after the deadline**,
//! then [`Error::Timeout`] instead of a panic. On success the bit is cleared (W1C).
//!
//! # Which clock bounds the wait
//!
//! Every wait is bounded by a **number of polls** ([`WstatConfig::max_polls`]), whatever
//! the FRC does, and, when the FRC may serve as a clock, **also** by a deadline of
//! [`WstatConfig::timeout_ns`] of FRC time; it ends at whichever bound comes first:
//!
//! - **Before the FRC runs** (at boot, for the very `G_TCON` write that starts it, on a
//!   block whose FRC was never seen counting) a deadline on it would never pass, so only
//!   the poll count bounds the wait ([`WaitClock::Iterations`]), like Linux's loop counter.
//! - **Writes that move the FRC** (`G_CNT_L/U`, and `G_TCON` when it starts or stops it)
//!   use the poll count too: a loaded counter can jump forward by up to a full wrap, which
//!   a clock reading would take for elapsed time (a premature timeout).
//! - **Otherwise** ([`WaitClock::Frc`]) the FRC low word gives the deadline in real time and
//!   the poll count is a backstop: an FRC that stops counting during the wait (an
//!   unclocked block, a block at the wrong address, an FRC stopped behind the driver's
//!   back) cannot make the wait endless. The reading is extended with hwtimer-core's
//!   half-wrap rule, so a counter that jumps *backwards* (QEMU quirk 2,
//!   `docs/exynos-mct.md`: writing `G_COMPn` restarts the visible count from the last
//!   `G_CNT` value) counts as no progress and cannot shorten the wait either.
//!
//! Both bounds run on one [`Poller`] whose clock reads "elapsed" as the larger of the FRC
//! ticks elapsed and `polls × ticks_per_poll`, where `ticks_per_poll` divides the
//! deadline into [`max_polls`](WstatConfig::max_polls) steps. The FRC deadline is never
//! cut short by this (it can only come up to `ticks_per_poll` ticks later), but a bus
//! fast enough to make `max_polls` polls in less than `timeout_ns` ends the wait after the
//! polls: keep `max_polls` polls longer than `timeout_ns` on your bus (the default, 10 000
//! polls of two MMIO reads each, takes at least 2 ms at 100 ns per read).
//!
//! # What a wait costs in reads, at most
//!
//! | clock | MMIO reads of a wait that never ends (status bit stuck) |
//! |---|---|
//! | [`WaitClock::Iterations`] | `max_polls + 3` (1 fast path, `max_polls + 1` polls, 1 after the deadline) |
//! | [`WaitClock::Frc`] | `2 · max_polls + 5` (1 fast path, 1 seed read of `G_CNT_L`, 1 more to start the deadline, per poll one status and one `G_CNT_L` read, after the deadline one of each) |
//!
//! ([`max_reads_iterations`] and [`max_reads`] compute them.) A wait that succeeds costs
//! one read on QEMU and on hardware (the bit is set within a few cycles of the 24 MHz
//! clock), plus the write-1-to-clear.
//!
//! # An acknowledgement that comes after its wait gave up
//!
//! A wait that times out does not mean the write was refused: the block may take it over
//! later and set the bit then. A status bit does not say *which* write it acknowledges, and
//! a write issued before the previous one was acknowledged can be ignored
//! (`docs/exynos-mct.md`, buffered writes). So if the driver simply wrote the register
//! again, the block could drop that write and the earlier write's late bit would end the
//! new wait: the driver would believe a value the block never took. (Found by the
//! property test: a late `L_ICNTB` acknowledgement made a 20-tick oneshot run with the
//! previous 15-tick count, and a late `G_COMP0_L` one left an older, earlier compare
//! value: both fired early.)
//!
//! The driver ([`Mct`]) therefore remembers, per status bit, an acknowledgement
//! still **owed** by a write whose wait timed out. The next write to that register first
//! waits for the owed bit (bounded like any wait) and clears it; if it does not come, the
//! register is still busy as far as anyone can tell, and that write is **not issued**: the
//! call returns [`Error::Timeout`] after one wait, as it would have before. No cost on the
//! normal path (a wait that succeeds owes nothing); a block that never acknowledges the
//! owed write keeps its register refused until it does, or until a `resume` declares the
//! block's state lost (after a suspend that may have cut its power, when no write can
//! still be in flight). [`write_and_wait`] and [`wait_and_clear`] themselves keep no
//! state: a caller driving the registers directly must keep this rule itself.

use core::cell::Cell;
use core::sync::atomic::Ordering;

use hwtimer_core::extend::extend;
use hwtimer_core::poll::{PollTimeout, Polled};
use hwtimer_core::{
    Claim, Clocksource, Continuous, Error, Poller, Reg, RegisterBus, RegisterBusExt,
};

use crate::shared::with_cs;
use crate::{Mct, regs};

/// Bounds of a write-status wait; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WstatConfig {
    /// Deadline in nanoseconds of FRC time when the FRC runs (default 1 ms: Linux's
    /// intended bound).
    pub timeout_ns: u64,
    /// Polls before giving up, whatever the FRC does (default 10 000): the only bound
    /// before the FRC runs, a backstop after. Also bounds the check that a started FRC
    /// counts ([`Mct::start_frc`](crate::Mct::start_frc)).
    pub max_polls: u32,
}

impl Default for WstatConfig {
    fn default() -> Self {
        Self {
            timeout_ns: 1_000_000,
            max_polls: 10_000,
        }
    }
}

/// The clock a write-status wait is bounded by; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WaitClock {
    /// The MCT FRC low word at `freq_hz` (deadline `timeout_ns`), and `max_polls` polls.
    Frc {
        /// FRC rate.
        freq_hz: u32,
    },
    /// `max_polls` polls only, for when the FRC is stopped or being written.
    Iterations,
}

/// Where a buffered register reports its write: the status register and the bit.
#[derive(Debug, Clone, Copy)]
pub struct WstatBit {
    /// The status register (`G_CNT_WSTAT`, `G_WSTAT` or `L_WSTAT`).
    pub status: Reg<u32>,
    /// The bit in it.
    pub mask: u32,
}

/// Acknowledgements still owed: per status bit, whether the last write it reports timed
/// out (see [the module docs](self#an-acknowledgement-that-comes-after-its-wait-gave-up)).
/// `G_CNT_WSTAT` and `G_WSTAT` bit for bit, and four bits per local timer's `L_WSTAT`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Owed {
    /// `G_CNT_WSTAT`, `G_WSTAT`, and `L_WSTAT` of local timer `i` in bits `4i..4i + 4`.
    words: [u64; 3],
}

impl Owed {
    /// Where `bit` is recorded: which word, and its mask there. `None` for a status
    /// register the driver does not use (nothing recorded, nothing owed).
    fn place(bit: WstatBit) -> Option<(usize, u64)> {
        let status = bit.status.offset();
        let mask = u64::from(bit.mask);
        if status == regs::G_CNT_WSTAT_REG.offset() {
            return Some((0, mask));
        }
        if status == regs::G_WSTAT_REG.offset() {
            return Some((1, mask));
        }
        let i = status.checked_sub(regs::LOCAL_BASE)? / regs::LOCAL_STRIDE;
        if i >= regs::MAX_LOCAL_TIMERS
            || status != regs::LocalRegs::of(i).wstat.offset()
            || mask > u64::from(regs::L_WSTAT_ALL)
        {
            return None;
        }
        // i < 16: a shift of at most 60, and the mask fits in four bits.
        Some((2, mask.wrapping_shl((i as u32).wrapping_mul(4))))
    }

    /// Whether any bit of `bit.mask` is owed.
    pub(crate) fn owes(&self, bit: WstatBit) -> bool {
        Self::place(bit)
            .and_then(|(w, m)| self.words.get(w).map(|word| word & m != 0))
            .unwrap_or(false)
    }

    /// Record the bits of `bit.mask` as owed (`true`) or settled (`false`).
    pub(crate) fn set(&mut self, bit: WstatBit, owed: bool) {
        if let Some((w, m)) = Self::place(bit)
            && let Some(word) = self.words.get_mut(w)
        {
            if owed {
                *word |= m;
            } else {
                *word &= !m;
            }
        }
    }
}

/// The most MMIO reads a wait bounded by [`WaitClock::Iterations`] makes (the status bit
/// never came): `max_polls + 3`.
pub const fn max_reads_iterations(max_polls: u32) -> u64 {
    (max_polls as u64).saturating_add(3)
}

/// The most MMIO reads any wait makes with these bounds: `2 · max_polls + 5` (a wait
/// bounded by [`WaitClock::Frc`]; see the table in the [module docs](self)).
pub const fn max_reads(config: &WstatConfig) -> u64 {
    (config.max_polls as u64)
        .saturating_mul(2)
        .saturating_add(5)
}

/// The clock the [`Poller`] of a wait runs on: polls, and the FRC when it may bound the
/// wait. Its value is `start + max(FRC ticks elapsed, reads × per_read)`: never
/// decreasing, so the poller's "bounded, one more read after the deadline" loop holds.
/// Not a general-purpose clocksource; private to the waits.
struct PollClock<'a, B: RegisterBus<Word = u32>> {
    bus: &'a B,
    /// FRC rate, when the FRC bounds the wait too.
    frc_hz: Option<u32>,
    /// Progress each read of this clock adds (the poll bound), in its ticks.
    per_read: u64,
    /// Reads of this clock so far.
    reads: Cell<u64>,
    /// The FRC extended to 64 bits (never decreasing), and where it started.
    frc: Cell<u64>,
    frc_start: u64,
}

impl<B: RegisterBus<Word = u32>> Clocksource for PollClock<'_, B> {
    fn bits(&self) -> u32 {
        64
    }
    fn freq_hz(&self) -> u32 {
        match self.frc_hz {
            Some(hz) => hz.max(1),
            None => 1_000_000_000,
        }
    }
    fn read(&self) -> u64 {
        let reads = self.reads.get().saturating_add(1);
        self.reads.set(reads);
        let by_polls = reads.saturating_mul(self.per_read);
        match self.frc_hz {
            Some(_) => {
                let raw = self.bus.read_raw(regs::G_CNT_L);
                let frc = extend(self.frc.get(), u64::from(raw), 32);
                self.frc.set(frc);
                let by_frc = frc.saturating_sub(self.frc_start);
                self.frc_start.saturating_add(by_frc.max(by_polls))
            }
            None => by_polls,
        }
    }
}

// Never decreasing, and it advances on every read: serves the Poller's bounded loop.
impl<B: RegisterBus<Word = u32>> Continuous for PollClock<'_, B> {}

/// Poll `read` until `done`, bounded by `max_polls` polls only (no clock): the bound used
/// before the FRC runs. At most `max_polls + 2` calls of `read`.
pub(crate) fn poll_iterations<T, B: RegisterBus<Word = u32>>(
    bus: &B,
    max_polls: u32,
    read: impl FnMut() -> T,
    done: impl FnMut(&T) -> bool,
) -> Result<Polled<T>, PollTimeout<T>> {
    let source = PollClock {
        bus,
        frc_hz: None,
        per_read: 1,
        reads: Cell::new(0),
        frc: Cell::new(0),
        frc_start: 0,
    };
    Poller::new(&source)
        .timeout_ns(u64::from(max_polls))
        .poll(read, done)
}

/// A write-status wait that timed out: the crate-internal error of the register paths.
/// Zero-sized, so a `Result<u32, TimedOut>` travels in registers instead of through memory
/// as a `Result<u32, Error>` does (hwtimer-core's `Error` carries a `u64`); it becomes
/// [`Error::Timeout`] at the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimedOut;

impl From<TimedOut> for Error {
    #[inline]
    fn from(_: TimedOut) -> Self {
        Error::Timeout
    }
}

/// The crate-internal error of the shared-register paths (`G_TCON`, `G_INT_ENB`): a
/// missing acknowledgement or the lock found held. One byte, so a `Result<u32, HwError>`
/// is returned in registers (an [`Error`] carries a `u64` and goes through memory, with a
/// copy at every `?` of a comparator arm); it becomes [`Error::Timeout`] or
/// [`Error::Busy`] at the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HwError {
    /// [`Error::Timeout`].
    Timeout,
    /// [`Error::Busy`].
    Busy,
}

impl From<TimedOut> for HwError {
    #[inline]
    fn from(_: TimedOut) -> Self {
        HwError::Timeout
    }
}

impl From<HwError> for Error {
    #[inline]
    fn from(e: HwError) -> Self {
        match e {
            HwError::Timeout => Error::Timeout,
            HwError::Busy => Error::Busy,
        }
    }
}

/// Write `value` to `reg`, then wait for `bit` and clear it. Returns the number of status
/// reads made.
///
/// Errors: [`Error::Timeout`] when the bit was not set by the deadline or after
/// `max_polls` polls, including on the extra read after that (the bit is then left alone;
/// the caller's state is unknown).
pub fn write_and_wait<B: RegisterBus<Word = u32>>(
    bus: &B,
    reg: Reg<u32>,
    value: u32,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, Error> {
    Ok(write_and_wait_in(bus, bus, reg, value, bit, clock, config)?)
}

/// Wait for `bit` (after a write made by the caller) and clear it; see [`write_and_wait`].
/// At most [`max_reads`] MMIO reads.
pub fn wait_and_clear<B: RegisterBus<Word = u32>>(
    bus: &B,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, Error> {
    Ok(wait_and_clear_in(bus, bus, bit, clock, config)?)
}

/// [`write_and_wait`] with the crate-internal error; `reg` and `bit` are on `bus`, and
/// `frc` is a bus that has `G_CNT_L` (the wait's clock), the block's global registers.
#[inline]
pub(crate) fn write_and_wait_in<B: RegisterBus<Word = u32>, F: RegisterBus<Word = u32>>(
    bus: &B,
    frc: &F,
    reg: Reg<u32>,
    value: u32,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, TimedOut> {
    bus.write_raw(reg, value);
    wait_and_clear_in(bus, frc, bit, clock, config)
}

/// [`wait_and_clear`] with the crate-internal error; buses as in [`write_and_wait_in`].
#[inline]
pub(crate) fn wait_and_clear_in<B: RegisterBus<Word = u32>, F: RegisterBus<Word = u32>>(
    bus: &B,
    frc: &F,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, TimedOut> {
    // Fast path, inline: one read (QEMU acknowledges synchronously; hardware within a few
    // cycles of the 24 MHz clock).
    if ack_fast(bus, bit) {
        return Ok(1);
    }
    wait_slow(bus, frc, bit, clock, config)
}

/// One status read; if `bit` is set, clear it (W1C) and return `true`.
#[inline(always)]
fn ack_fast<B: RegisterBus<Word = u32>>(bus: &B, bit: WstatBit) -> bool {
    if bus.read_raw(bit.status) & bit.mask != 0 {
        bus.write_raw(bit.status, bit.mask);
        return true;
    }
    false
}

/// The fast path of [`write_and_wait`]: write, read the status once, and if the bit is set
/// clear it (W1C) and return `true`; `false` leaves the wait to [`wait_slow`].
#[inline(always)]
pub(crate) fn write_fast<B: RegisterBus<Word = u32>>(
    bus: &B,
    reg: Reg<u32>,
    value: u32,
    bit: WstatBit,
) -> bool {
    bus.write_raw(reg, value);
    ack_fast(bus, bit)
}

/// The bounded wait of [`wait_and_clear`] once the first status read found the bit clear:
/// out of line, so the fast path stays a read, a test and a write.
#[cold]
#[inline(never)]
pub(crate) fn wait_slow<B: RegisterBus<Word = u32>, F: RegisterBus<Word = u32>>(
    bus: &B,
    frc: &F,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, TimedOut> {
    let polled = match clock {
        WaitClock::Iterations => poll_iterations(
            frc,
            config.max_polls,
            || bus.read_raw(bit.status),
            |v| v & bit.mask != 0,
        ),
        WaitClock::Frc { freq_hz } => {
            // Seed the extension with the current count.
            let start = u64::from(frc.read_raw(regs::G_CNT_L));
            let mut source = PollClock {
                bus: frc,
                frc_hz: Some(freq_hz),
                per_read: 1,
                reads: Cell::new(0),
                frc: Cell::new(start),
                frc_start: start,
            };
            let limit = Poller::new(&source)
                .timeout_ns(config.timeout_ns)
                .timeout_ticks()
                .saturating_add(1);
            // `max_polls` reads of the clock cover the whole deadline.
            source.per_read = limit.div_ceil(u64::from(config.max_polls.max(1))).max(1);
            Poller::new(&source)
                .timeout_ns(config.timeout_ns)
                .poll(|| bus.read_raw(bit.status), |v| v & bit.mask != 0)
        }
    };
    match polled {
        Ok(polled) => {
            bus.write_raw(bit.status, bit.mask);
            Ok(polled.polls.saturating_add(1))
        }
        Err(_) => {
            hwtimer_core::log_warn!(
                "MCT: write status {=u32:#x} at {=usize:#x} not acknowledged",
                bit.mask,
                bit.status.offset()
            );
            Err(TimedOut)
        }
    }
}

// ---- The driver's side: every buffered write of the [`Mct`] and its parts, and the record
// of acknowledgements still owed. ----

/// What bounds a write-status wait, besides the poll count (see [the module docs](self)): resolved to a
/// [`WaitClock`] only when a wait is longer than one status read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The FRC too, if it is believed to run ([`Mct::wait_clock`]).
    Frc,
    /// Polls only: the FRC is stopped or being written.
    Polls,
}

impl<B: Claim<Word = u32>> Mct<B> {
    pub(crate) fn g_cnt_bit(mask: u32) -> WstatBit {
        WstatBit {
            status: Reg::new(regs::G_CNT_WSTAT_REG.offset()),
            mask,
        }
    }

    pub(crate) fn g_tcon_bit() -> WstatBit {
        WstatBit {
            status: Reg::new(regs::G_WSTAT_REG.offset()),
            mask: regs::G_WSTAT::TCON::SET.value,
        }
    }

    /// A buffered write: `value` to `reg`, then the bounded wait for `bit` and its W1C
    /// ([`write_and_wait`]), keeping the rule for an acknowledgement that comes
    /// after its wait gave up ([the module docs](self#an-acknowledgement-that-comes-after-its-wait-gave-up)):
    ///
    /// - a wait that times out leaves `bit` **owed**: the write may still be taken over and
    ///   acknowledged later;
    /// - while `bit` is owed, this first waits for it (the same bounds) and clears it, and
    ///   only then writes. If it still does not come, nothing is written and the result is
    ///   [`Error::Timeout`].
    ///
    /// Why the driver, not the model or the tests: a status bit cannot say which write it
    /// reports, and the block ignores a write issued before the previous one was
    /// acknowledged (`docs/exynos-mct.md`). Writing again at once let the block drop the
    /// new write while the old write's late bit ended the new wait, so the driver believed
    /// a value the block never took: an older `L_ICNTB` count or `G_COMPn` value, so an
    /// interrupt earlier than asked (the ClockEvent contract forbids it), or a stop or
    /// start that never happened. Waiting first keeps every wait bounded and costs nothing
    /// unless a wait failed before.
    ///
    /// Every buffered write of the driver goes through here. At most two waits (the owed
    /// one, then the write's own); returns the status reads of the write's own wait.
    #[inline(always)]
    pub(crate) fn write_buffered(
        &self,
        reg: Reg<u32>,
        value: u32,
        bit: WstatBit,
        bound: Bound,
    ) -> Result<u32, TimedOut> {
        // Global registers through the block taken once, local timers' through the window
        // (a local timer uses `write_buffered_on` with its own block).
        if reg.offset() < regs::LOCAL_BASE {
            self.write_buffered_on(&self.global, reg, value, bit, bit, bound)
        } else {
            self.write_buffered_on(&self.bus, reg, value, bit, bit, bound)
        }
    }

    /// [`write_buffered`](Self::write_buffered) of `G_TCON`, for the holder of the
    /// shared-register lock (`held`): the same rule for an owed acknowledgement, kept in
    /// the lock's flags ([`TCON_OWED`](crate::shared::TCON_OWED): read and written by the
    /// holder only, ordered by the lock's acquire and release), so the section never enters
    /// a critical section. That keeps one order between the two: a caller may hold a
    /// critical section when it takes the lock (the runtime adapters program their channel
    /// inside one), never the lock when it enters a critical section.
    #[inline(always)]
    pub(crate) fn write_buffered_locked(
        &self,
        held: &mut crate::lock::Guard<'_>,
        value: u32,
        bound: Bound,
    ) -> Result<u32, TimedOut> {
        let bit = Self::g_tcon_bit();
        if held.flags() & crate::shared::TCON_OWED != 0 {
            self.settle_g_tcon(bound)?;
            held.set_flags(crate::shared::TCON_OWED, false);
        }
        if write_fast(
            &self.global,
            Reg::new(regs::G_TCON_REG.offset()),
            value,
            bit,
        ) {
            return Ok(1);
        }
        let result = self.wait_rest_g_tcon(bound);
        if result.is_err() {
            held.set_flags(crate::shared::TCON_OWED, true);
        }
        result
    }

    /// The owed `G_TCON` acknowledgement: wait for it (bounded) and clear it, or fail with
    /// [`Error::Timeout`] (nothing written). Under the shared-register lock.
    #[cold]
    #[inline(never)]
    fn settle_g_tcon(&self, bound: Bound) -> Result<(), TimedOut> {
        let clock = self.clock_for(bound);
        wait_and_clear_in(
            &self.global,
            &self.global,
            Self::g_tcon_bit(),
            clock,
            &self.config.wstat,
        )
        .map(|_| ())
    }

    /// The bounded wait after a `G_TCON` write whose first status read found the bit
    /// clear; the caller records a timeout in the lock's flags.
    #[cold]
    #[inline(never)]
    fn wait_rest_g_tcon(&self, bound: Bound) -> Result<u32, TimedOut> {
        let clock = self.clock_for(bound);
        let bit = Self::g_tcon_bit();
        wait_slow(&self.global, &self.global, bit, clock, &self.config.wstat)
    }

    /// [`write_buffered`](Self::write_buffered) on a given view of the block: `reg` and
    /// `bit` are offsets on `bus` (a local timer's own block), `owed` is the same status
    /// bit at its offset in the whole block (the key of the owed-acknowledgement record).
    /// The fast path is the write, one status read and the W1C; which clock bounds a
    /// longer wait is worked out only when one is needed.
    #[inline(always)]
    pub(crate) fn write_buffered_on<R: RegisterBus<Word = u32>>(
        &self,
        bus: &R,
        reg: Reg<u32>,
        value: u32,
        bit: WstatBit,
        owed: WstatBit,
        bound: Bound,
    ) -> Result<u32, TimedOut> {
        // The normal path pays one relaxed load; the rest is out of line.
        if self.owed_any.load(Ordering::Relaxed) {
            self.settle_owed(owed, bound)?;
        }
        if write_fast(bus, reg, value, bit) {
            return Ok(1);
        }
        self.wait_rest(bus, bit, owed, bound)
    }

    /// The bounded wait after a write whose first status read found the bit clear; a wait
    /// that times out leaves `owed` owed.
    #[cold]
    #[inline(never)]
    fn wait_rest<R: RegisterBus<Word = u32>>(
        &self,
        bus: &R,
        bit: WstatBit,
        owed: WstatBit,
        bound: Bound,
    ) -> Result<u32, TimedOut> {
        let clock = self.clock_for(bound);
        let result = wait_slow(bus, &self.global, bit, clock, &self.config.wstat);
        if result.is_err() {
            self.set_owed(owed, true);
        }
        result
    }

    /// The clock a wait with `bound` runs on now.
    fn clock_for(&self, bound: Bound) -> WaitClock {
        match bound {
            Bound::Frc => self.wait_clock(),
            Bound::Polls => WaitClock::Iterations,
        }
    }

    /// If `bit` is owed: wait for it (bounded) and clear it, or fail with
    /// [`Error::Timeout`] (nothing written).
    #[cold]
    #[inline(never)]
    fn settle_owed(&self, bit: WstatBit, bound: Bound) -> Result<(), TimedOut> {
        if self.owes(bit) {
            let clock = self.clock_for(bound);
            if bit.status.offset() < regs::LOCAL_BASE {
                wait_and_clear_in(&self.global, &self.global, bit, clock, &self.config.wstat)?;
            } else {
                wait_and_clear_in(&self.bus, &self.global, bit, clock, &self.config.wstat)?;
            }
            self.set_owed(bit, false);
        }
        Ok(())
    }

    /// Declare an acknowledgement owed for `bit` lost (the block may have lost power with
    /// the write): clear the bit if it is owed, so a late one cannot end a later wait,
    /// and owe nothing. No access when nothing is owed.
    pub(crate) fn forget_owed(&self, bit: WstatBit) {
        if self.owes(bit) {
            self.bus.write_raw(bit.status, bit.mask);
            self.set_owed(bit, false);
        }
    }

    fn owes(&self, bit: WstatBit) -> bool {
        // Relaxed is enough: a bit is set and read by the context that owns its register,
        // so program order orders them. (`G_TCON`'s is not here: see `without_g_tcon`.)
        Self::without_g_tcon(bit).is_some_and(|rest| {
            self.owed_any.load(Ordering::Relaxed)
                && with_cs(|cs| self.owed.borrow(cs).get().owes(rest))
        })
    }

    /// `bit` without `G_WSTAT.TCON`, or `None` when that is all it is. The `G_TCON`
    /// acknowledgement is recorded apart, in the shared-register lock's flags, never in the
    /// critical-section record: see [`write_buffered_locked`](Self::write_buffered_locked).
    fn without_g_tcon(bit: WstatBit) -> Option<WstatBit> {
        let tcon = regs::G_WSTAT::TCON::SET.value;
        if bit.status.offset() != regs::G_WSTAT_REG.offset() || bit.mask & tcon == 0 {
            return Some(bit);
        }
        let mask = bit.mask & !tcon;
        (mask != 0).then_some(WstatBit { mask, ..bit })
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn set_owed(&self, bit: WstatBit, owed: bool) {
        let Some(bit) = Self::without_g_tcon(bit) else {
            return;
        };
        if !owed && !self.owed_any.load(Ordering::Relaxed) {
            return;
        }
        with_cs(|cs| {
            let cell = self.owed.borrow(cs);
            let mut o = cell.get();
            o.set(bit, owed);
            cell.set(o);
            self.owed_any.store(o != Owed::default(), Ordering::Relaxed);
        })
    }
}
