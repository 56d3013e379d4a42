//! Clockevents: the global comparators ([`Comparator`], Linux "mct-comp") and the
//! per-CPU local timers ([`LocalTimer`], Linux "mct_tick"). Both implement hwtimer-core's
//! [`ClockEvent`]; pair one with [`FrcTime`](crate::FrcTime) in a
//! [`hwtimer_core::Alarm`] for absolute, never-early deadlines.
//!
//! | | [`Comparator`] | [`LocalTimer`] |
//! |---|---|---|
//! | rate | FRC rate (24 MHz) | FRC rate / 2 (`L_TCNTB = 1`: 12 MHz) |
//! | phase-locked to the FRC | yes (compares the FRC itself) | no (own prescaler) |
//! | `min_delta` | 0xF (Linux) | 0xF (Linux; QEMU lengthens short ones, see below) |
//! | `max_delta` | 0x7000_0000 (78.3 s; Linux: 0xFFFF_FFFF) | 0x3800_0000 (78.3 s; hardware: 0x7FFF_FFFF) |
//! | oneshot | 64-bit compare value `now + delta` | interval mode, stopped in [`ack`](ClockEvent::ack) |
//! | periodic | `ADD_INCR` + `AUTO_INC` | interval mode |
//!
//! **Why the maxima are below half a 32-bit FRC wrap:** [`FrcTime`](crate::FrcTime) needs
//! a reading at least every 2^31 FRC ticks. hwtimer-core's `Alarm` reads the time at every
//! step of a long wait, and paired with [`FrcTime`](crate::FrcTime) it steps at most its
//! `max_idle_ticks` (0x6000_0000 FRC ticks, 67.1 s), below these maxima; the maxima keep the
//! precondition also for a step programmed without that cap (a direct `set_next_event` of
//! `max_delta` followed by a read in the interrupt handler). Exactly half a wrap is not enough:
//! the time is read before programming and again in the interrupt handler, so the gap is
//! the step **plus** the programming time and the interrupt latency (the host test
//! `alarm_on_comparator_and_frc_time_is_never_early` caught an `Alarm` that re-armed
//! forever with a 0x7FFF_FFFF step). The maxima keep 0x1000_0000 ticks (11.2 s) of margin.
//! The hardware limits are exported as [`COMP_MAX_DELTA_HW`] and [`LOCAL_MAX_DELTA_HW`].

use hwtimer_core::{Capabilities, Claim, ClockEvent, ConfigError, Error, Reg, RegisterBusExt};

use crate::regs::{self, L_ICNTB, L_INT, L_TCON, L_WSTAT, LocalRegs};

/// A local timer's registers within its own block.
const OWN: LocalRegs = LocalRegs::OWN;
use crate::lock::Owner;
use crate::wstat::{HwError, TimedOut, WstatBit};
use crate::{Bound, Mct, drop_count};

/// Smallest delta of both kinds (Linux: `0xF`).
pub const MIN_DELTA: u64 = 0xF;
/// Largest comparator delta reported by [`Comparator`]: 0x7000_0000 FRC ticks (78.3 s),
/// half a 32-bit FRC wrap minus 0x1000_0000 ticks (11.2 s) of margin for programming and
/// interrupt latency; see the [module docs](self).
pub const COMP_MAX_DELTA: u64 = 0x7000_0000;
/// Largest comparator delta the hardware takes (`ADD_INCR` is 32 bits; Linux uses it).
pub const COMP_MAX_DELTA_HW: u64 = 0xFFFF_FFFF;
/// Largest local-timer delta reported by [`LocalTimer`]: 0x3800_0000 ticks at FRC/2, the
/// same 78.3 s as [`COMP_MAX_DELTA`].
pub const LOCAL_MAX_DELTA: u64 = 0x3800_0000;
/// Largest local-timer delta the hardware takes (`L_ICNTB` count is 31 bits; Linux).
pub const LOCAL_MAX_DELTA_HW: u64 = 0x7FFF_FFFF;
/// Attempts at arming a comparator whose value the counter passed while it was being
/// programmed (each re-arms `MIN_DELTA` further on).
const COMP_REARM_ATTEMPTS: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum Mode {
    Off,
    Oneshot,
    Periodic,
}

/// Global comparator `n` of the MCT: fires when the 64-bit FRC reaches `G_COMPn`.
///
/// The [`ClockEvent`] contract (never early, pending-status rule, errors that write
/// nothing) is hwtimer-core's; how this channel meets it:
///
/// # Timing contract
/// - [`set_next_event(delta)`](ClockEvent::set_next_event) reads the exact 64-bit count
///   (hi-lo-hi) **after** the call began and programs `now + delta`: never early. After
///   enabling, it reads the low word once more; if the counter already passed the value
///   during programming (possible only with a slow `WSTAT` and a tiny delta) and the
///   status bit is not set, it re-arms as far ahead as the programming took plus
///   `min_delta` (late, never lost), up to 4 times, then returns [`Error::Timeout`].
/// - [`set_compare(at)`](ClockEvent::set_compare) takes `at` in the block's time base
///   ([`Mct::time`](crate::Mct::time), the 64-bit FRC count) and reads nothing before
///   programming: the published time serves as "now" (an `Alarm` has just read it), and
///   the low word read after enabling, extended from that published time, catches a value
///   already past. The high word is read after it: when it does not match the extension
///   (the time base went unread for longer than its precondition allows, so the published
///   time is a wrap or more behind the count, or a carry fell between the two reads), the
///   check is made against the exact count (hi-lo-hi, then published) instead, so a value
///   the counter passed while nobody read the time is re-armed, not lost.
///   `set_next_event` publishes the exact count (hi-lo-hi) it starts from, so the time
///   base stays exact while a comparator is armed that way at least once per 89.48 s.
/// - Periodic: `G_COMPn_ADD_INCR = period` and `AUTO_INC`; the hardware adds the period to
///   the compare value at each match, so the period does not drift with interrupt latency.
///   The first value, `now + period` from an exact read, is checked after enabling as a
///   oneshot's is: a first value the counter passed while it was programmed (a period
///   shorter than the programming time) would never match and `AUTO_INC` never advance
///   it, so it is re-armed further on (the same 4 attempts, then [`Error::Timeout`]).
///   A status left pending by an earlier event of this comparator (not acknowledged)
///   passes that check as a match: acknowledge before re-arming.
///
/// Sequence (Linux `exynos4_mct_comp0_start`): disable, write `G_COMPn_L` then `_U`
/// (each WSTAT-acknowledged; `_U` only when it changes, see the crate's
/// [Cost](crate#cost) section), `ADD_INCR` for periodic, set the `G_INT_ENB` bit, enable.
/// Arming never touches `G_INT_CSTAT`; [`shutdown`](ClockEvent::shutdown) clears the bit
/// (after masking and disabling), [`ack`](ClockEvent::ack) reports and clears it.
///
/// # After a failure
/// When the enable is not acknowledged it may still have landed: the comparator's
/// `G_INT_ENB` bit is masked again so a periodic comparator cannot keep interrupting, and
/// the next `G_TCON` write goes out even if the driver's shadow says it would change
/// nothing. [`shutdown`](ClockEvent::shutdown) always masks, disables and clears.
///
/// Errors of every programming method: [`ConfigError::DeltaOutOfRange`] for a delta, and
/// [`ConfigError::PeriodOutOfRange`] for a period, outside `[min_delta, max_delta]`
/// (nothing written); [`Error::Timeout`] for a missing WSTAT acknowledgement;
/// [`Error::Busy`] when the `Mct`'s shared-register lock stayed held (an interrupt handler
/// that interrupted its holder: see [Shared registers](crate::Mct#shared-registers)).
///
/// QEMU quirk 2 (`docs/exynos-mct.md`): in QEMU each `G_COMPn` write and each enable
/// change restarts the FRC from the last value written to `G_CNT` (or the last match); the
/// compare value still refers to the count, so the event comes *later* by the ticks the
/// model dropped, never earlier. The smdkc210 firmware shows it.
#[must_use = "dropping a comparator shuts it down (its event is cancelled)"]
pub struct Comparator<'a, B: Claim<Word = u32>> {
    mct: &'a Mct<B>,
    n: usize,
    /// Comparator `n`'s registers and bits, worked out once.
    r: CompRegs,
    mode: Mode,
    value: u64,
    /// The hardware may be enabled or hold a status since the last successful shutdown:
    /// dropping the comparator shuts it down.
    live: bool,
    /// What `G_COMPn_U` is known to hold: the last upper word written and acknowledged,
    /// while no auto-increment can have moved it (`None` in periodic mode, after a failed
    /// write, at take-over and after a resume). A re-arm whose upper word matches skips the
    /// write and its wait (3 MMIO accesses).
    upper: Option<u32>,
}

impl<'a, B: Claim<Word = u32>> Comparator<'a, B> {
    /// Take over comparator `n` (its `taken` bit is already set): shut it down.
    pub(crate) fn new(mct: &'a Mct<B>, n: usize) -> Result<Self, Error> {
        let mut c = Self {
            mct,
            n,
            r: CompRegs::of(n),
            mode: Mode::Off,
            value: 0,
            live: true,
            upper: None,
        };
        match c.try_shutdown() {
            Ok(()) => Ok(c),
            Err(e) => {
                // One attempt is enough: dropping `c` hands the comparator back.
                c.live = false;
                Err(e)
            }
        }
    }

    /// Which comparator (0..4).
    pub fn index(&self) -> usize {
        self.n
    }

    /// The 64-bit value last programmed (the hardware advances it in periodic mode).
    pub fn programmed(&self) -> u64 {
        self.value
    }

    /// Read `G_COMPn_U:L` back (2 MMIO reads; in periodic mode it shows the auto-increment).
    pub fn read_compare(&self) -> u64 {
        let bus = self.mct.global();
        let lo = bus.read_raw(self.r.l);
        let hi = bus.read_raw(self.r.u);
        (u64::from(hi) << 32) | u64::from(lo)
    }

    /// Whether `G_INT_CSTAT` bit `n` is set (1 MMIO read, nothing cleared): for polling.
    pub fn is_pending(&self) -> bool {
        self.mct.global().read_raw(regs::G_INT_CSTAT) & self.r.int != 0
    }

    fn gwstat(mask: u32) -> WstatBit {
        WstatBit {
            status: Reg::new(regs::G_WSTAT_REG.offset()),
            mask,
        }
    }

    /// Clear the comparator's enable and auto-increment in `G_TCON`, as CPU `me`
    /// ([`Mct::me`], read once per call).
    #[inline(always)]
    fn disable<const FIRST: bool>(&self, me: Owner) -> Result<(), HwError> {
        let bits = self.r.enable | self.r.auto_inc;
        self.mct.update_g_tcon_as::<FIRST>(me, |t| t & !bits)
    }

    #[inline(always)]
    fn write_wait(
        &self,
        reg: Reg<u32>,
        value: u32,
        mask: u32,
        bound: Bound,
    ) -> Result<(), TimedOut> {
        // The comparator's registers are global ones: straight to the global block (no
        // test of which part of the window `reg` is in).
        let bit = Self::gwstat(mask);
        self.mct
            .write_buffered_on(self.mct.global(), reg, value, bit, bit, bound)
            .map(drop_count)
    }

    /// `G_COMPn_L`, then `G_COMPn_U` unless it is known to hold the upper word already
    /// (3 or 6 MMIO accesses).
    #[inline]
    fn write_compare(&mut self, value: u64, bound: Bound) -> Result<(), TimedOut> {
        let low = u32::try_from(value & u64::from(u32::MAX)).unwrap_or(u32::MAX);
        let high = u32::try_from(value >> 32).unwrap_or(u32::MAX);
        self.write_wait(self.r.l, low, self.r.l_ack, bound)?;
        if self.upper != Some(high) {
            self.upper = None;
            self.write_wait(self.r.u, high, self.r.u_ack, bound)?;
            self.upper = Some(high);
        }
        Ok(())
    }

    /// Program the comparator to the absolute 64-bit FRC value `value` (oneshot). No range
    /// or past check: a value the counter already passed does not fire until the 64-bit
    /// counter wraps (in 24 000 years). Most callers want
    /// [`set_next_event`](ClockEvent::set_next_event) or
    /// [`set_compare`](ClockEvent::set_compare).
    ///
    /// Errors: [`Error::Timeout`] for a missing WSTAT acknowledgement; [`Error::Busy`] as
    /// for every arm.
    pub fn arm_at(&mut self, value: u64) -> Result<(), Error> {
        Ok(self.program(value, None)?)
    }

    /// Disable, `G_COMPn_L/U` (and `ADD_INCR`), `G_INT_ENB`, enable. The crate-internal
    /// error (one byte, in a register), turned into an [`Error`] by the callers.
    #[inline]
    fn program(&mut self, value: u64, incr: Option<u32>) -> Result<(), HwError> {
        self.mode = Mode::Off;
        self.live = true;
        // The CPU number, once for both `G_TCON` sections of the arm.
        let me = self.mct.me();
        // The call's first lock attempt: refused at once there, it has written nothing.
        // The later ones spin for another core, never refuse at once (`SpinLock::try_lock`).
        self.disable::<true>(me)?;
        // The FRC may bound the waits (when it runs; worked out only for a long wait).
        let bound = Bound::Frc;
        self.write_compare(value, bound)?;
        self.value = value;
        let mut enable = self.r.enable;
        if let Some(incr) = incr {
            self.write_wait(self.r.incr, incr, self.r.incr_ack, bound)?;
            enable |= self.r.auto_inc;
            // The hardware adds the period at every match: the upper word will move.
            self.upper = None;
        }
        let bit = self.r.int;
        self.mct.set_g_int_enb::<false>(bit, true, me)?;
        if let Err(e) = self.mct.update_g_tcon_as::<false>(me, |t| t | enable) {
            // The enable may have landed without its acknowledgement: a periodic
            // comparator would then interrupt at every period. Mask it (if the lock is
            // busy, the interrupt stays unmasked: `shutdown` masks it).
            let _ = self.mct.set_g_int_enb::<false>(bit, false, me);
            return Err(e);
        }
        self.mode = if incr.is_some() {
            Mode::Periodic
        } else {
            Mode::Oneshot
        };
        Ok(())
    }

    /// Stop the comparator: mask its `G_INT_ENB` bit, clear its enable and auto-increment
    /// in `G_TCON`, then clear its `G_INT_CSTAT` bit (the cancelled event's status, per
    /// the pending-status rule of [`ClockEvent`]).
    ///
    /// Errors: [`Error::Timeout`] for a missing WSTAT acknowledgement (the interrupt is
    /// masked and the status cleared anyway; the next `G_TCON` write is forced);
    /// [`Error::Busy`] when the shared-register lock was refused: at the call's first
    /// attempt (the context this one interrupted holds it) nothing is written and the
    /// comparator is as it was; later (another core held it for the whole bound) the mask
    /// is written and the status cleared. Call again.
    pub fn try_shutdown(&mut self) -> Result<(), Error> {
        let bit = self.r.int;
        let me = self.mct.me();
        // Refused at the first attempt: nothing written, the comparator as it was.
        let took = self.mct.g_int_enb_differs(bit, false);
        self.mct.set_g_int_enb::<true>(bit, false, me)?;
        let disabled = if took {
            self.disable::<false>(me)
        } else {
            self.disable::<true>(me)
        }
        .map_err(Error::from);
        if !took && disabled == Err(Error::Busy) {
            return disabled;
        }
        self.mode = Mode::Off;
        // Only with logging on: one read to say a cancelled event's status is dropped.
        #[cfg(feature = "defmt")]
        if self.is_pending() {
            hwtimer_core::log_debug!("MCT G{=usize}: stale status dropped at shutdown", self.n);
        }
        // After the disable, so a match during it cannot leave a status behind.
        self.mct.global().write_raw(regs::G_INT_CSTAT, bit);
        if disabled.is_ok() {
            self.live = false;
        }
        disabled
    }

    /// After a system resume, as Linux's `tick_resume` for "mct-comp" does: shut the
    /// comparator down (its registers may have been lost with the block's power). An
    /// acknowledgement its `G_COMPn` writes still owed from before the suspend is declared
    /// lost with them (its bit cleared if it came: one write, only then; see
    /// [`wstat`](crate::wstat#an-acknowledgement-that-comes-after-its-wait-gave-up)).
    ///
    /// Errors: as [`try_shutdown`](Self::try_shutdown).
    pub fn resume(&mut self) -> Result<(), Error> {
        self.mct
            .forget_owed(Self::gwstat(self.r.l_ack | self.r.u_ack | self.r.incr_ack));
        // The registers may have lost their contents with the block's power.
        self.upper = None;
        self.live = true;
        self.try_shutdown()
    }

    /// Program `target` (with `incr`: periodic) and check, with one read of the low word
    /// (and, after a published start, one of the high word), that the FRC did not pass
    /// it while it was written; if it did (and no match was latched), re-arm as far ahead
    /// as programming took plus `MIN_DELTA`, up to [`COMP_REARM_ATTEMPTS`] attempts in all.
    ///
    /// `start` is a time-base value from before the call: an exact reading
    /// (`start_exact`, [`set_next_event`](ClockEvent::set_next_event)) or the published time
    /// ([`set_compare`](ClockEvent::set_compare), whose caller just read it). The check's
    /// reading is extended from `start` and not published (the caller read the time just
    /// before); after a published start, a high word that does not match the extension
    /// sends the check to the exact count ([`recheck_exact`](Self::recheck_exact)). How long programming took
    /// is known only from an exact start; after a published one the first re-arm allows
    /// `MIN_DELTA` for it.
    ///
    /// The first attempt is inline (the common case: the value lies ahead); the re-arms are
    /// out of line.
    #[inline]
    fn arm_checked(
        &mut self,
        start: u64,
        start_exact: bool,
        target: u64,
        incr: Option<u32>,
    ) -> Result<(), Error> {
        self.program(target, incr)?;
        // Extended from `start` (a time-base value from just before): the check needs no
        // publication, which keeps it to one load and a few ALU instructions.
        let frc = self.mct.frc();
        let now = crate::clocksource::extend32(start, frc.read_low());
        if !start_exact && frc.read_high() != upper_word(now) {
            // The published time `start` is not within a wrap of the count (the time base
            // went unread for longer than its precondition allows, or a carry fell between
            // the two reads): the extension cannot be trusted. Check against the exact count.
            return self.recheck_exact(target, incr);
        }
        if now < target || self.is_pending() {
            return Ok(());
        }
        self.rearm_missed(start, start_exact, now, incr)
    }

    /// The check of [`arm_checked`](Self::arm_checked) against the exact count (hi-lo-hi,
    /// published), when the low word could not be extended from the published time.
    #[cold]
    #[inline(never)]
    fn recheck_exact(&mut self, target: u64, incr: Option<u32>) -> Result<(), Error> {
        let count = self.mct.frc().read64();
        self.mct.publish(count);
        if count < target || self.is_pending() {
            return Ok(());
        }
        // Passed: re-arm from the exact count (`took` counts from it, so it starts at 0).
        self.rearm_missed(count, true, count, incr)
    }

    /// The re-arms of [`arm_checked`](Self::arm_checked) after its first attempt found the
    /// value passed at `now`.
    #[cold]
    #[inline(never)]
    fn rearm_missed(
        &mut self,
        mut start: u64,
        mut exact: bool,
        mut now: u64,
        incr: Option<u32>,
    ) -> Result<(), Error> {
        for _ in 1..COMP_REARM_ATTEMPTS {
            // Missed: re-arm as far ahead as the programming just took, plus min_delta
            // (late, never lost, and the next attempt has the time it needs).
            let took = if exact {
                now.wrapping_sub(start)
            } else {
                MIN_DELTA
            };
            start = now;
            exact = true;
            let target = now.wrapping_add(took).wrapping_add(MIN_DELTA);
            self.program(target, incr)?;
            now = self.mct.time().update_from_low(self.mct.frc().read_low());
            if now < target || self.is_pending() {
                return Ok(());
            }
        }
        self.mode = Mode::Off;
        hwtimer_core::log_warn!(
            "MCT G{=usize}: the FRC passed every compare value while it was written",
            self.n
        );
        Err(Error::Timeout)
    }

    /// [`set_compare`](ClockEvent::set_compare) for an `at` more than half a 32-bit wrap
    /// ahead of the published time: read the count exactly first (3 MMIO reads) and publish
    /// it.
    #[cold]
    #[inline(never)]
    fn set_compare_far(&mut self, at: u64) -> Result<(), Error> {
        let count = self.mct.frc().read64();
        self.mct.publish(count);
        self.arm_checked(count, true, compare_target(at, count), None)
    }

    fn check_range(&self, delta: u64, cause: ConfigError) -> Result<(), Error> {
        in_range(delta, COMP_MAX_DELTA, cause)
    }
}

impl<B: Claim<Word = u32>> ClockEvent for Comparator<'_, B> {
    /// At the FRC rate, oneshot, periodic and absolute, phase-locked: the comparator
    /// compares the FRC itself, and [`set_compare`](ClockEvent::set_compare) takes 64-bit
    /// FRC values, the time base of [`Mct::time`](crate::Mct::time).
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(self.mct.freq_hz(), MIN_DELTA, COMP_MAX_DELTA)
            .with_periodic()
            .with_phase_locked()
            .with_absolute()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.check_range(delta, ConfigError::DeltaOutOfRange)?;
        let start = self.mct.frc().read64();
        self.mct.publish(start);
        self.arm_checked(start, true, start.wrapping_add(delta), None)
    }
    /// `at` is a 64-bit FRC value, in the time base of [`Mct::time`](crate::Mct::time). The
    /// comparator fires when the FRC equals it, so a value the time base has already
    /// passed is programmed `MIN_DELTA` ahead instead, and one the FRC passes while it is
    /// written is re-armed (late, never lost).
    ///
    /// No read before programming: the time base's published time serves as "now" (an
    /// [`Alarm`](hwtimer_core::Alarm) has just read it), and the one read after programming
    /// catches a value that was already past. Re-arming an enabled comparator whose upper
    /// word does not change costs 10 MMIO accesses: disable (3), `G_COMPn_L` (3), enable
    /// (3), the check (1); Linux's sequence takes 19.
    ///
    /// An `at` more than half a 32-bit wrap ahead of the published time is beyond what the
    /// check's extension can place (the time base may not have been read for that long):
    /// then the count is read exactly first (hi-lo-hi, 3 MMIO reads) and published, as
    /// [`set_next_event`](ClockEvent::set_next_event) does.
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        let last = self.mct.time().last();
        if at > last && at.wrapping_sub(last) > 1 << 31 {
            return self.set_compare_far(at);
        }
        self.arm_checked(last, false, compare_target(at, last), None)
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.check_range(period, ConfigError::PeriodOutOfRange)?;
        let incr = u32::try_from(period).map_err(|_| ConfigError::PeriodOutOfRange)?;
        let now = self.mct.frc().read64();
        self.mct.publish(now);
        // Checked after enabling as a oneshot is: a first value the count passed while it
        // was programmed would never match, and AUTO_INC never advance it.
        self.arm_checked(now, true, now.wrapping_add(period), Some(incr))
    }
    fn shutdown(&mut self) {
        // Infallible by the trait; the interrupt is masked and the status cleared even if
        // the WSTAT wait failed.
        let _ = self.try_shutdown();
    }
    fn ack(&mut self) -> bool {
        let bit = self.r.int;
        let bus = self.mct.global();
        if bus.read_raw(regs::G_INT_CSTAT) & bit == 0 {
            return false;
        }
        bus.write_raw(regs::G_INT_CSTAT, bit);
        true
    }
}

impl<B: Claim<Word = u32>> Drop for Comparator<'_, B> {
    /// Leaves the hardware quiet: shuts the comparator down if it may be armed, then
    /// hands it back to the [`Mct`].
    fn drop(&mut self) {
        if self.live {
            let _ = self.try_shutdown();
        }
        self.mct.give_back(self.r.int);
    }
}

impl<B: Claim<Word = u32>> core::fmt::Debug for Comparator<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Comparator")
            .field("n", &self.n)
            .field("mode", &self.mode)
            .field("value", &self.value)
            .finish()
    }
}

/// `Ok` for `delta` in `[MIN_DELTA, max]`, else the configuration error `cause` (a delta
/// or a period out of range).
#[inline]
fn in_range(delta: u64, max: u64, cause: ConfigError) -> Result<(), Error> {
    if (MIN_DELTA..=max).contains(&delta) {
        Ok(())
    } else {
        Err(cause.into())
    }
}

/// The compare value for an absolute `at` when the time is `now`: `at` itself, or
/// `MIN_DELTA` ahead of `now` for a value already passed (an equality comparator would
/// never fire at it).
#[inline(always)]
const fn compare_target(at: u64, now: u64) -> u64 {
    if at > now {
        at
    } else {
        now.wrapping_add(MIN_DELTA)
    }
}

/// The upper 32 bits of a 64-bit count.
#[inline(always)]
const fn upper_word(value: u64) -> u32 {
    (value >> 32) as u32
}

/// Comparator `n`'s registers and bits (`regs::g_*`), worked out once when it is taken.
#[derive(Debug, Clone, Copy)]
struct CompRegs {
    l: Reg<u32>,
    u: Reg<u32>,
    incr: Reg<u32>,
    l_ack: u32,
    u_ack: u32,
    incr_ack: u32,
    enable: u32,
    auto_inc: u32,
    int: u32,
}

impl CompRegs {
    const fn of(n: usize) -> Self {
        Self {
            l: regs::g_comp_l(n),
            u: regs::g_comp_u(n),
            incr: regs::g_comp_add_incr(n),
            l_ack: regs::g_wstat_comp_l(n),
            u_ack: regs::g_wstat_comp_u(n),
            incr_ack: regs::g_wstat_comp_add_incr(n),
            enable: regs::g_tcon_comp_enable(n),
            auto_inc: regs::g_tcon_auto_inc(n),
            int: regs::g_int_comp(n),
        }
    }
}

/// Local timer `i` of the MCT: a per-CPU down-counter at `fin_pll / 2`.
///
/// The [`ClockEvent`] contract is hwtimer-core's; how this channel meets it:
///
/// # How it is driven (Linux `exynos4_mct_tick_start`, `docs/exynos-mct.md`)
/// `L_TCNTB = 1` at take-over (a tick every 2 input clocks; again after a stop that may cut
/// an arm short, see QEMU below); to arm: stop the timer if it runs
/// (`L_TCON = 0`), `L_ICNTB = MANUAL_UPDATE | count`, `L_INT_ENB.ICNT = 1`,
/// `L_TCON = INT_START | TIMER_START | INTERVAL_MODE`, each buffered write
/// WSTAT-acknowledged. The timer always runs in interval (auto-reload) mode; a oneshot is
/// emulated by stopping it in [`ack`](ClockEvent::ack) (otherwise it keeps interrupting).
/// Arming never touches `L_INT_CSTAT`; [`shutdown`](ClockEvent::shutdown) stops the timer
/// and then clears it (as Linux's `set_state_shutdown` does).
///
/// # Timing contract
/// `count` is `delta`, or `delta − 1` when [`Config::local_icntb_plus_one`](crate::Config)
/// says the platform counts `L_ICNTB + 1` ticks per interval (QEMU does; silicon is
/// unverified). The interrupt comes `delta` ticks after the final `L_TCON` write (one
/// tick later when the platform counts `ICNTB + 1` and the configuration does not say
/// so): never early. The local prescaler is not synchronised with the FRC
/// ([`phase_locked`](hwtimer_core::Capabilities::phase_locked) is `false`), so an `Alarm`
/// adds one tick of margin.
///
/// # After a failure
/// When the starting `L_TCON` write is not acknowledged the timer may be running in
/// interval mode: its `L_INT_ENB` is masked at once, and [`ack`](ClockEvent::ack) and
/// [`shutdown`](ClockEvent::shutdown) stop it (ack stops any timer that fires while not
/// periodic; if that stop fails too, it masks `L_INT_ENB`), so it cannot keep
/// interrupting.
///
/// # QEMU (`docs/exynos-mct.md`; confirmed by the smdkc210 firmware)
/// - Writing `L_ICNTB` raises `TCNTB × ICNTB` to at least 0x100 ticks, so short deltas
///   come late (0xF becomes 256 ticks).
/// - The manual-update path adds one to the tick divider a second time: the first
///   interval after arming lasts `3 × (ICNTB + 1)` input clocks instead of
///   `2 × (ICNTB + 1)`; reloads in interval mode use `2 × (ICNTB + 1)`. Late, never early.
/// - That extra one accumulates: each manual-update write adds one to the model's internal
///   tick divider, which only an expiry or an `L_TCNTB` write resets, so after k arms
///   stopped before they expired the first interval is `(3 + k) × (ICNTB + 1)` clocks.
///   With [`Config::local_tcntb_rewrite`](crate::Config) (set it on QEMU) the driver writes
///   `L_TCNTB` again after every stop that may cut an arm short (arming a running timer,
///   shutdown): 3 more MMIO accesses there, none on an arm after
///   [`ack`](ClockEvent::ack) (whose interval expired).
#[must_use = "dropping a local timer shuts it down (its event is cancelled)"]
pub struct LocalTimer<'a, B: Claim<Word = u32>> {
    mct: &'a Mct<B>,
    /// The timer's own registers, taken once ([`LocalRegs::OWN`] offsets): bare accesses.
    block: B::Block<{ regs::LOCAL_STRIDE }>,
    i: usize,
    regs: LocalRegs,
    /// The timer may be running: the next stop writes `L_TCON`.
    running: bool,
    mode: Mode,
    /// `L_INT_CSTAT.ICNT` may be set: the timer ran since the status was last cleared.
    may_pend: bool,
    /// The status was already set when the current arm started: it belongs to an earlier
    /// event, so the `ack` that takes it must not stop the timer just armed.
    stale: bool,
    /// [`Config::local_tcntb_rewrite`](crate::Config), read once.
    tcntb_rewrite: bool,
}

impl<'a, B: Claim<Word = u32>> LocalTimer<'a, B> {
    /// Take over local timer `i` (its `taken` bit is already set): shut it down and write
    /// `L_TCNTB`.
    pub(crate) fn new(mct: &'a Mct<B>, i: usize) -> Result<Self, Error> {
        let regs = LocalRegs::of(i);
        let Some(block) = mct.bus_ref().claim(regs.tcntb.offset()) else {
            // Its registers lie outside the window: hand the timer back, nothing written.
            mct.give_back(crate::shared::local_bit(i));
            return Err(ConfigError::WindowTooShort.into());
        };
        let mut t = Self {
            mct,
            block,
            i,
            regs,
            running: true, // unknown: stopped below
            mode: Mode::Off,
            may_pend: true,
            stale: false,
            tcntb_rewrite: mct.config().local_tcntb_rewrite,
        };
        match t.init() {
            Ok(()) => Ok(t),
            Err(e) => {
                // One attempt is enough: dropping `t` hands the timer back.
                t.running = false;
                Err(e)
            }
        }
    }

    /// Shut down, then `L_TCNTB = TICK_BASE_CNT` (the shutdown writes it already with
    /// [`Config::local_tcntb_rewrite`](crate::Config)).
    fn init(&mut self) -> Result<(), Error> {
        self.try_shutdown()?;
        if !self.tcntb_rewrite {
            self.write_tcntb()?;
        }
        Ok(())
    }

    /// `L_TCNTB = TICK_BASE_CNT` (the timer stopped). Written again after a stop that may
    /// have cut an arm short: QEMU's model adds one to its tick divider at each
    /// manual-update `L_ICNTB` write and resets it only when an interval expires or
    /// `L_TCNTB` is written (see the type's QEMU section). On silicon it rewrites the value
    /// the register holds, while stopped.
    #[inline(never)]
    fn write_tcntb(&self) -> Result<(), TimedOut> {
        self.write_wait(OWN.tcntb, regs::TICK_BASE_CNT, L_WSTAT::TCNTB::SET.value)
    }

    /// Which local timer.
    pub fn index(&self) -> usize {
        self.i
    }

    /// Its registers.
    pub fn regs(&self) -> &LocalRegs {
        &self.regs
    }

    /// Whether `L_INT_CSTAT.ICNT` is set (1 MMIO read, nothing cleared): for polling.
    pub fn is_pending(&self) -> bool {
        self.block.read(OWN.int_cstat).is_set(L_INT::ICNT)
    }

    /// The interrupt counter observation `L_ICNTO` (1 MMIO read).
    pub fn icnto(&self) -> u32 {
        self.block.read_raw(OWN.icnto)
    }

    /// The status bit in the whole block (the owed-acknowledgement record's key).
    fn wstat_bit(&self, mask: u32) -> WstatBit {
        WstatBit {
            status: Reg::new(self.regs.wstat.offset()),
            mask,
        }
    }

    #[inline]
    fn write_wait<R: tock_registers::RegisterLongName>(
        &self,
        reg: Reg<u32, R>,
        value: u32,
        mask: u32,
    ) -> Result<(), TimedOut> {
        let own = WstatBit {
            status: Reg::new(OWN.wstat.offset()),
            mask,
        };
        self.mct
            .write_buffered_on(
                &self.block,
                Reg::new(reg.offset()),
                value,
                own,
                self.wstat_bit(mask),
                Bound::Frc,
            )
            .map(drop_count)
    }

    fn mask(&self) {
        self.block.write_raw(OWN.int_enb, 0);
    }

    /// `L_TCON = 0` if the timer may run. Inline, with the crate-internal error (a flag in
    /// a register, not an `Error` through memory): it sits on every arm's path.
    #[inline(always)]
    fn stop(&mut self) -> Result<(), TimedOut> {
        if self.running {
            self.write_wait(OWN.tcon, 0, L_WSTAT::TCON::SET.value)?;
            self.running = false;
        }
        Ok(())
    }

    #[inline]
    fn program(&mut self, delta: u64, mode: Mode) -> Result<(), Error> {
        let cause = match mode {
            Mode::Periodic => ConfigError::PeriodOutOfRange,
            Mode::Oneshot | Mode::Off => ConfigError::DeltaOutOfRange,
        };
        in_range(delta, LOCAL_MAX_DELTA, cause)?;
        // delta is in [0xF, 0x3800_0000]: fits the 31-bit count, minus one cannot wrap.
        let delta = u32::try_from(delta).map_err(|_| cause)?;
        let count = if self.mct.config().local_icntb_plus_one {
            delta.saturating_sub(1)
        } else {
            delta
        };
        Ok(self.start(count, mode)?)
    }

    /// The hardware part of [`program`](Self::program) for an `L_ICNTB` count already in
    /// range: stop, `L_ICNTB`, `L_INT_ENB`, start. Its error is the crate-internal
    /// [`TimedOut`] (returned in a register; an `Error` carries a `u64` and would travel
    /// through memory), turned into [`Error::Timeout`] by the caller.
    #[inline(never)]
    fn start(&mut self, count: u32, mode: Mode) -> Result<(), TimedOut> {
        self.mode = Mode::Off;
        // An arm still running may not have expired: reset QEMU's tick divider after the
        // stop (QEMU section of the type's docs). Only on this path: after an `ack` that
        // stopped the timer its interval had expired, which reset the divider.
        let cut = self.running && self.tcntb_rewrite;
        self.stop()?;
        if cut {
            self.write_tcntb()?;
        }
        // An interrupt still pending from an earlier event stays pending (arming never
        // clears it); remember it, so its ack does not stop this arm's timer. One read, and
        // only when the timer ran since its status was last cleared.
        self.stale = self.may_pend && self.is_pending();
        // Fields OR-ed by value (tock-registers' `+` on field values is an OR too).
        let icntb = L_ICNTB::MANUAL_UPDATE::SET.value | L_ICNTB::COUNT.val(count).value;
        self.write_wait(OWN.icntb, icntb, L_WSTAT::ICNTB::SET.value)?;
        self.block.write(OWN.int_enb, L_INT::ICNT::SET);
        let tcon = L_TCON::INT_START::SET.value
            | L_TCON::TIMER_START::SET.value
            | L_TCON::INTERVAL_MODE::SET.value;
        // Mark running before the wait: if the acknowledgement times out the timer may
        // run, and the next stop must write L_TCON whatever happens.
        self.running = true;
        self.may_pend = true;
        if let Err(e) = self.write_wait(OWN.tcon, tcon, L_WSTAT::TCON::SET.value) {
            // It may be running in interval mode: no interrupt from it until the next arm.
            self.mask();
            return Err(e);
        }
        self.mode = mode;
        Ok(())
    }

    /// Stop the timer: mask `L_INT_ENB`, stop it (`L_TCON = 0`, whatever the driver
    /// believed), then clear `L_INT_CSTAT.ICNT` (the cancelled event's status, per the
    /// pending-status rule of [`ClockEvent`]; Linux's `exynos4_mct_tick_clear`).
    ///
    /// Errors: [`Error::Timeout`] for a missing WSTAT acknowledgement (the interrupt is
    /// masked and the status cleared anyway).
    pub fn try_shutdown(&mut self) -> Result<(), Error> {
        self.mode = Mode::Off;
        self.mask();
        self.running = true; // force the stop write whatever we believed
        // The arm stopped may not have expired: `L_TCNTB` again on QEMU (see
        // `write_tcntb`).
        let stopped = self.stop().and_then(|()| {
            if self.tcntb_rewrite {
                self.write_tcntb()
            } else {
                Ok(())
            }
        });
        self.block.write(OWN.int_cstat, L_INT::ICNT::SET);
        self.stale = false;
        self.may_pend = self.running;
        Ok(stopped?)
    }

    /// After a system resume, as Linux's `tick_resume` for "mct_tick" does: shut the
    /// timer down; and write `L_TCNTB` again (Linux writes it when the CPU comes up),
    /// since the block may have lost it with its power. An acknowledgement its writes
    /// still owed from before the suspend is declared lost with them (its bit cleared if
    /// it came: one write, only then; see
    /// [`wstat`](crate::wstat#an-acknowledgement-that-comes-after-its-wait-gave-up)).
    ///
    /// Errors: [`Error::Timeout`] for a missing WSTAT acknowledgement.
    pub fn resume(&mut self) -> Result<(), Error> {
        self.mct.forget_owed(self.wstat_bit(regs::L_WSTAT_ALL));
        self.init()
    }
}

impl<B: Claim<Word = u32>> ClockEvent for LocalTimer<'_, B> {
    /// At the FRC rate / (`TICK_BASE_CNT` + 1), oneshot and periodic; not phase-locked
    /// (its prescaler is not synchronised with the FRC), not absolute.
    fn capabilities(&self) -> Capabilities {
        let hz = (self.mct.freq_hz() / (regs::TICK_BASE_CNT + 1)).max(1);
        Capabilities::new(hz, MIN_DELTA, LOCAL_MAX_DELTA).with_periodic()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.program(delta, Mode::Oneshot)
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.program(period, Mode::Periodic)
    }
    fn shutdown(&mut self) {
        let _ = self.try_shutdown();
    }
    /// Linux order: a timer that is not periodic (a oneshot, or one left running by a
    /// failed arm) is stopped first, so the interval reload cannot raise a second
    /// interrupt; then the status is cleared. If the stop fails, `L_INT_ENB` is masked.
    ///
    /// A status that was already pending when the current oneshot was armed belongs to an
    /// earlier event: its ack clears it and leaves the new oneshot running. (If the new one
    /// fired too before that ack, the single status bit carries both, the timer reloads
    /// once more and the next ack stops it: one extra interrupt, never a lost one.)
    fn ack(&mut self) -> bool {
        if !self.is_pending() {
            return false;
        }
        if self.stale {
            self.stale = false;
        } else if self.mode != Mode::Periodic {
            self.mode = Mode::Off;
            self.running = true;
            if self.stop().is_ok() {
                self.may_pend = false;
            } else {
                self.mask();
            }
        }
        self.block.write(OWN.int_cstat, L_INT::ICNT::SET);
        true
    }
}

#[allow(
    unsafe_code,
    reason = "hwtimer-core's CpuLocal marker (no unsafe operation): the SAFETY comment below"
)]
// SAFETY: a `LocalTimer` holds a shared reference to its `Mct` (sound to send when the
// `Mct` is `Sync`), its own register block (sendable by the bound) and plain state; nothing
// ties it to the thread that made it. Its registers are not banked: they are the same from
// every CPU; only its interrupt (a PPI on 4412 and later) reaches one CPU, which is what
// `CpuBound` checks before every call. `capabilities` and `Debug` read plain fields and the
// `Mct`'s rate, touching no register and changing nothing; `drop_elsewhere` changes only the
// `Mct`'s `taken` bits (under a critical section), no register.
unsafe impl<B> hwtimer_core::cpu::CpuLocal for LocalTimer<'_, B>
where
    B: Claim<Word = u32>,
    Mct<B>: Sync,
    B::Block<{ regs::LOCAL_STRIDE }>: Send,
{
    /// Dropped on a CPU other than its own: hands the timer back to the [`Mct`] and
    /// touches no register (its own `Drop` would shut it down from the wrong CPU). A
    /// timer left armed keeps running until it is taken again, which shuts it down first.
    fn drop_elsewhere(self) {
        self.mct.give_back(crate::shared::local_bit(self.i));
        core::mem::forget(self);
    }
}

impl<B: Claim<Word = u32>> Drop for LocalTimer<'_, B> {
    /// Leaves the hardware quiet: shuts the timer down if it may run, then hands it back.
    fn drop(&mut self) {
        if self.running || self.mode != Mode::Off {
            let _ = self.try_shutdown();
        }
        self.mct.give_back(crate::shared::local_bit(self.i));
    }
}

impl<B: Claim<Word = u32>> core::fmt::Debug for LocalTimer<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LocalTimer")
            .field("i", &self.i)
            .field("running", &self.running)
            .field("mode", &self.mode)
            .field("stale", &self.stale)
            .finish()
    }
}
