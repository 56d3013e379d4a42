//! This core's comparator as a [`ClockEvent`]: oneshot by delta, absolute
//! ([`set_compare`](ClockEvent::set_compare)) and periodic through the auto-increment.
//!
//! The contract is hwtimer-core's [`ClockEvent`] (written once, in that trait's docs).
//! How this block meets it:
//!
//! | contract | how |
//! |---|---|
//! | never early | the comparator compares the counter itself (`phase_locked`); `set_next_event` reads the counter after the call began and programs `now + delta` |
//! | a value already reached fires at once | r2p0+: the hardware's `>=` compare; before r2p0: read back after enabling, re-arm when missed ([`compare`]) |
//! | periodic without drift | first compare `now + period`, then the hardware adds `period` at each match (`GT_AUTO_INC`) |
//! | out of range writes nothing | the delta, period and overflow checks come before the first write |
//! | pending status | `shutdown` clears the event flag; arming never writes `GT_INT_STATUS`; `ack` clears it |
//! | bounded, no panic | at most 7 reads per counter read, at most [`REARM_ATTEMPTS`] re-arms |
//!
//! # `ack` and ARM erratum 740657
//!
//! Erratum 740657 ("Global Timer can send 2 interrupts for the same event in single-shot
//! mode", worked around in Linux's `arm_global_timer.c`): clearing the event flag while
//! the comparator still matches can set it again. QEMU does exactly that: it re-evaluates
//! the compare on the status write, so the flag of a fired oneshot comes back at once
//! (observed on QEMU 10 by the npcm750 firmware). So `ack`, on a oneshot whose value the
//! counter has reached, disables the comparator **before** it writes 1 to the flag (Linux
//! moves the comparator far ahead instead; both stop the match).
//!
//! A flag can also be **stale**: the channel fired, was re-armed for a later value before
//! the handler ran (arming keeps the flag, by the contract), and `ack` now sees the old
//! event. Then the counter is still below the new value and the comparator must stay
//! armed: `ack` clears the flag only. If the counter reaches the new value between that
//! check and the clear, a comparator that sets the flag once (on an edge) would have it
//! cleared; `ack` reads the flag and the counter again and, if the value is reached and the
//! flag is clear, arms it again as due (it fires at once, or is re-targeted under
//! [`CompareRule::Equal`]). A comparator that keeps matching sets the flag again by itself.
//!
//! # MMIO cost (asserted in `tests/driver/driver.rs`)
//!
//! Every `GT_CONTROL` write is a read-modify-write (the shared bits are kept as the
//! register holds them, see [`GlobalTimer`]): one control read per comparator enable and
//! per disable.
//!
//! | call | reads | writes |
//! |---|---|---|
//! | `set_compare`, r2p0+ rule | 1 from shutdown, 2 re-arming | 3 from shutdown, 4 re-arming (+1 periodic) |
//! | `set_compare`, equality rule | 7 from shutdown, 8 re-arming (+1 flag read and the next attempt's when the counter passed the value) | as above, per attempt |
//! | `set_next_event` | 3 + as `set_compare` (+3 under the equality rule) | as `set_compare` |
//! | `set_periodic` | 4 from shutdown, 5 re-arming | 4 from shutdown, 5 re-arming |
//! | `ack`, nothing pending | 1 | 0 |
//! | `ack`, oneshot fired | 5 | 2 |
//! | `ack`, stale flag (re-armed before the handler) | 8 | 1 |
//! | `ack`, periodic | 1 | 1 |
//! | `shutdown` | 1 | 2 |
//!
//! # One core's comparator
//!
//! The comparator registers are banked: the same addresses reach the calling core's copy.
//! A `GtComparator` is therefore neither `Send` nor `Sync`:
//!
//! ```compile_fail
//! use a9_global_timer::{Config, GlobalTimer, GtComparator, sim::GtMpSim, sim::GtMpBus};
//! fn send<T: Send>(_: T) {}
//! let gt = GlobalTimer::new(GtMpSim::qemu().bus(), Config::qemu()).unwrap();
//! send(gt.comparator().unwrap()); // refused: banked registers
//! ```
//!
//! It implements [`CpuLocal`], so [`CpuBound`](hwtimer_core::cpu::CpuBound) binds it to
//! the core that takes it: `Send` and `Sync` (a `static`), and on any other core each call
//! touches nothing and returns [`Error::WrongCpu`].

use core::marker::PhantomData;

use hwtimer_core::cpu::CpuLocal;
use hwtimer_core::{Capabilities, Claim, ClockEvent, ConfigError, Error, RegisterBusExt};

use crate::compare::{self, CompareRule, REARM_ATTEMPTS};
use crate::regs::{self, CONTROL, INT_STATUS};
use crate::{GlobalTimer, GtCounter};

/// Smallest delta and period, in ticks (Linux: 1). With the r2p0+ rule a compare value
/// the counter passes while it is written fires at once, so no larger minimum is needed.
pub const MIN_DELTA: u64 = 1;

/// Largest delta and period, in ticks: `u32::MAX` (42.9 s at 100 MHz; Linux's
/// `max_delta`). The auto-increment register is 32 bits wide, which bounds the period;
/// an absolute deadline through [`set_compare`](ClockEvent::set_compare) has no limit.
pub const MAX_DELTA: u64 = u32::MAX as u64;

const COMP_ENABLE: u32 = CONTROL::COMP_ENABLE::SET.value;
const IRQ_ENABLE: u32 = CONTROL::IRQ_ENABLE::SET.value;
const AUTO_INC: u32 = CONTROL::AUTO_INC::SET.value;

/// What the comparator was last armed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Mode {
    /// Shut down (comparator, interrupt and auto-increment off).
    Off,
    /// A oneshot at the counter value `target`.
    Oneshot {
        /// The compare value programmed.
        target: u64,
    },
    /// Periodic: every `period` ticks, the hardware adding it at each match.
    Periodic {
        /// The period in ticks (`GT_AUTO_INC`).
        period: u32,
    },
}

/// This core's comparator: a [`ClockEvent`] at the counter's rate, oneshot, periodic and
/// absolute, phase-locked with [`GtCounter`]. Pair the two in an
/// [`Alarm`](hwtimer_core::Alarm) and deadlines are written to the comparator as they are.
///
/// Sequence of every arm (the TRM's, as Linux does it): disable the comparator if it is
/// enabled (a half-written value already passed would set the flag), write `GT_COMP0`,
/// `GT_COMP1`, `GT_AUTO_INC` for periodic, then enable the comparator and its interrupt in
/// one `GT_CONTROL` write. The event flag is never written while arming.
///
/// Errors of the programming methods (nothing is written): [`ConfigError::DeltaOutOfRange`]
/// for a delta, [`ConfigError::PeriodOutOfRange`] for a period outside
/// [`MIN_DELTA`]`..=`[`MAX_DELTA`]; [`ConfigError::DeadlineOverflow`] when `now + delta`
/// would pass 2^64 (only possible after [`GlobalTimer::load`] near the top).
/// [`Error::Timeout`] under [`CompareRule::Equal`] when the counter passed the value at
/// each of [`REARM_ATTEMPTS`] attempts (a broken bus; the comparator is left shut down).
#[must_use = "dropping the comparator shuts it down and hands it back"]
pub struct GtComparator<'a, B: Claim<Word = u32>> {
    gt: &'a GlobalTimer<B>,
    mode: Mode,
    /// Banked registers: the comparator is this core's, so the handle is neither `Send`
    /// nor `Sync` ([`CpuBound`](hwtimer_core::cpu::CpuBound) makes it both, checked).
    _banked: PhantomData<*const ()>,
}

// SAFETY: `GtComparator` holds a shared reference to a `GlobalTimer` that is `Sync` (the
// bound), its `Mode` (plain data) and a marker; nothing ties it to the thread that made
// it. Its registers (`GT_CONTROL`'s banked bits, `GT_INT_STATUS`, `GT_COMP0/1`,
// `GT_AUTO_INC`) are banked per core, so it is sound to move or share it as long as every
// register access happens on one core, which is what `CpuLocal` asks `CpuBound` to check.
#[allow(unsafe_code, reason = "the CpuLocal marker of a banked comparator")]
unsafe impl<B: Claim<Word = u32>> CpuLocal for GtComparator<'_, B> where GlobalTimer<B>: Sync {}

impl<'a, B: Claim<Word = u32>> GtComparator<'a, B> {
    pub(crate) fn new(gt: &'a GlobalTimer<B>) -> Self {
        let mut c = Self {
            gt,
            mode: Mode::Off,
            _banked: PhantomData,
        };
        c.shutdown();
        c
    }

    /// What the comparator was last armed for.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The compare rule in use ([`Config::compare`](crate::Config::compare)).
    pub fn rule(&self) -> CompareRule {
        self.gt.config().compare
    }

    /// The counter this comparator compares (the time base to pair it with).
    pub fn counter(&self) -> GtCounter<'a, B> {
        self.gt.counter()
    }

    /// Whether the event flag is set (1 MMIO read, nothing cleared): for polling.
    pub fn is_pending(&self) -> bool {
        self.gt
            .bus()
            .read(regs::GT_INT_STATUS)
            .is_set(INT_STATUS::EVENT_FLAG)
    }

    /// Read `GT_COMP1:GT_COMP0` back (2 MMIO reads; in periodic mode it shows the
    /// auto-increment at work).
    pub fn read_compare(&self) -> u64 {
        let bus = self.gt.regs();
        let lo = bus.read_raw(regs::GT_COMP0);
        let hi = bus.read_raw(regs::GT_COMP1);
        (u64::from(hi) << 32) | u64::from(lo)
    }

    /// `cause` unless `delta` lies in [`MIN_DELTA`]`..=`[`MAX_DELTA`].
    fn check_range(delta: u64, cause: ConfigError) -> Result<(), Error> {
        if (MIN_DELTA..=MAX_DELTA).contains(&delta) {
            Ok(())
        } else {
            Err(cause.into())
        }
    }

    fn clear_flag(&self) {
        self.gt
            .bus()
            .write(regs::GT_INT_STATUS, INT_STATUS::EVENT_FLAG::SET);
    }

    /// Comparator, interrupt and auto-increment off (keeps the shared bits as read): 1
    /// read, 1 write.
    fn disable(&mut self) {
        self.gt.write_banked(0);
        self.mode = Mode::Off;
    }

    /// The TRM's arming sequence; reads only `GT_CONTROL` (each control write is a
    /// read-modify-write keeping the shared bits), never touches the event flag.
    ///
    /// Whether the comparator is enabled comes from [`mode`](Self::mode), not from a read: the comparator is handed out once, every change of its banked bits
    /// goes through it, and `Off` is exactly "disabled" (no critical section to read it).
    #[inline]
    fn program(&mut self, value: u64, period: Option<u32>) {
        let bus = self.gt.regs();
        if self.mode != Mode::Off {
            self.gt.write_banked(0);
        }
        bus.write_raw(regs::GT_COMP0, value as u32);
        bus.write_raw(regs::GT_COMP1, (value >> 32) as u32);
        let mut banked = COMP_ENABLE | IRQ_ENABLE;
        if let Some(period) = period {
            bus.write_raw(regs::GT_AUTO_INC, period);
            banked |= AUTO_INC;
        }
        self.gt.write_banked(banked);
        self.mode = match period {
            Some(period) => Mode::Periodic { period },
            None => Mode::Oneshot { target: value },
        };
    }

    /// Arm `target` (chosen at counter value `start`) under the rule in use.
    fn arm(&mut self, start: u64, target: u64, period: Option<u32>) -> Result<(), Error> {
        match self.rule() {
            // A value passed while it is programmed fires at once: nothing to check.
            CompareRule::GreaterOrEqual => {
                self.program(target, period);
                Ok(())
            }
            CompareRule::Equal => self.arm_checked(start, target, period),
        }
    }

    /// Equality rule: enable, then read the counter; re-arm a value the counter passed
    /// before the comparator could see it (see [`compare`](crate::compare)).
    fn arm_checked(
        &mut self,
        mut start: u64,
        mut target: u64,
        period: Option<u32>,
    ) -> Result<(), Error> {
        let counter = self.gt.counter();
        for _ in 0..REARM_ATTEMPTS {
            self.program(target, period);
            let now = counter.read64();
            if now < target {
                return Ok(()); // the equality is ahead of an enabled comparator
            }
            // Reached: did it match? A oneshot's flag says so (a stale flag also makes
            // the handler run, after `target`: the events coalesce, none is lost). A
            // periodic match moved the comparator on, which a stale flag cannot fake.
            let matched = match period {
                None => self.is_pending(),
                Some(_) => self.read_compare() != target,
            };
            if matched {
                return Ok(());
            }
            let next = match compare::retarget(start, now) {
                Ok(next) => next,
                Err(e) => {
                    self.disable();
                    return Err(e);
                }
            };
            start = now;
            target = next;
        }
        self.disable();
        hwtimer_core::log_warn!("A9 global timer: the counter passed every compare value");
        Err(Error::Timeout)
    }

    /// After clearing a stale flag while a oneshot for `target` is armed: if the counter
    /// reached `target` around the clear and the flag is clear now, the clear may have
    /// eaten this event (a comparator that sets the flag once); arm it again as due.
    fn recheck_after_clear(&mut self, target: u64) {
        if self.is_pending() {
            return; // the comparator set it again by itself
        }
        let now = self.gt.counter().read64();
        if now < target {
            return; // still ahead of an enabled comparator
        }
        let result = match self.rule() {
            // Enabling a comparator behind the counter sets the flag at once.
            CompareRule::GreaterOrEqual => {
                self.program(target, None);
                Ok(())
            }
            CompareRule::Equal => match compare::retarget(now, now) {
                Ok(next) => self.arm_checked(now, next, None),
                Err(e) => Err(e),
            },
        };
        // `ack` cannot report an error; a failed re-arm left the comparator shut down
        // (a dead bus), and the caller's time base check sees the deadline unreached.
        let _ = result;
    }
}

impl<B: Claim<Word = u32>> ClockEvent for GtComparator<'_, B> {
    /// At the counter's rate, deltas in `[1, u32::MAX]`, periodic, phase-locked and
    /// absolute: the comparator compares the counter [`GtCounter`] reads.
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(self.gt.freq_hz(), MIN_DELTA, MAX_DELTA)
            .with_periodic()
            .with_phase_locked()
            .with_absolute()
    }

    /// Reads the counter (3 reads) after the call began and arms `now + delta`.
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        Self::check_range(delta, ConfigError::DeltaOutOfRange)?;
        let now = self.gt.counter().read64();
        let target = now
            .checked_add(delta)
            .ok_or(ConfigError::DeadlineOverflow)?;
        self.arm(now, target, None)
    }

    /// `at` is a counter value. Under the r2p0+ rule it is written as it is, with no
    /// counter read: a value already reached fires as soon as the comparator is enabled. Under the
    /// equality rule the counter is read first; a value already reached is armed
    /// [`retarget`](compare::retarget) ahead instead (late, never lost).
    ///
    /// Errors: [`ConfigError::DeadlineOverflow`] under the equality rule when the counter is
    /// within a few ticks of 2^64; [`Error::Timeout`] as in the [type docs](GtComparator).
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        match self.rule() {
            CompareRule::GreaterOrEqual => {
                self.program(at, None);
                Ok(())
            }
            CompareRule::Equal => {
                let start = self.gt.counter().read64();
                let target = if at > start {
                    at
                } else {
                    compare::retarget(start, start)?
                };
                self.arm_checked(start, target, None)
            }
        }
    }

    /// First compare `now + period`, then `GT_AUTO_INC = period`: the hardware adds the
    /// period at each match, so interrupt latency never shifts the grid.
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        Self::check_range(period, ConfigError::PeriodOutOfRange)?;
        let period32 = u32::try_from(period).map_err(|_| ConfigError::PeriodOutOfRange)?;
        let now = self.gt.counter().read64();
        let first = now
            .checked_add(period)
            .ok_or(ConfigError::DeadlineOverflow)?;
        self.arm(now, first, Some(period32))
    }

    /// Comparator, interrupt and auto-increment off, then the event flag cleared (in that
    /// order, so a match cannot set it again): 1 read (the control read-modify-write), 2
    /// writes.
    fn shutdown(&mut self) {
        // Only with logging on: one read to say a cancelled event's status is dropped.
        #[cfg(feature = "defmt")]
        if self.is_pending() {
            hwtimer_core::log_debug!("A9 global timer: stale event flag dropped at shutdown");
        }
        self.disable();
        self.clear_flag();
    }

    /// Reads the event flag; when set, stops a fired oneshot and clears the flag (see the
    /// [module docs](self) for erratum 740657 and stale flags).
    fn ack(&mut self) -> bool {
        if !self.is_pending() {
            return false;
        }
        match self.mode {
            Mode::Oneshot { target } => {
                let now = self.gt.counter().read64();
                if now >= target {
                    // This oneshot fired: stop the match, then clear (erratum 740657).
                    self.disable();
                    self.clear_flag();
                } else {
                    // A stale flag: the comparator is armed for a later value; keep it.
                    self.clear_flag();
                    self.recheck_after_clear(target);
                }
            }
            // The auto-increment moved the comparator past the counter at the match.
            Mode::Periodic { .. } | Mode::Off => self.clear_flag(),
        }
        true
    }
}

impl<B: Claim<Word = u32>> Drop for GtComparator<'_, B> {
    /// Leaves the hardware quiet (as [`shutdown`](ClockEvent::shutdown)) and hands the
    /// comparator back to its [`GlobalTimer`].
    fn drop(&mut self) {
        self.shutdown();
        self.gt.give_back();
    }
}

impl<B: Claim<Word = u32>> core::fmt::Debug for GtComparator<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GtComparator")
            .field("mode", &self.mode)
            .field("rule", &self.rule())
            .finish()
    }
}
