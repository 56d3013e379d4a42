//! The constant timer (TCFG/TVAL/TICLR) as a [`ClockEvent`], with a configurable
//! `min_delta`, and the pure InitVal arithmetic.
//!
//! # Facts
//!
//! (`docs/loongarch-timer.md`; `torvalds/linux arch/loongarch/kernel/time.c`)
//! - Writing TCFG with EN = 1 loads the count `TCFG & CSR_TCFG_VAL` (bits `[47:2]`) and the
//!   timer counts it down at the constant clock, the same clock as the stable counter;
//!   at zero it sets ESTAT.TI (bit 11) and, with PERIODIC, reloads, otherwise it stops and
//!   clears EN.
//! - ESTAT.TI stays set until 1 is written to TICLR bit 0; writing ESTAT does not clear it.
//! - The interrupt is delivered when ECFG.LIE bit 11 and CRMD.IE are both set.
//! - Linux: features ONESHOT | PERIODIC | PERCPU, `min_delta` 0x600, `max_delta`
//!   (1 << 48) − 1, `set_next_event` writes `(delta & CSR_TCFG_VAL) | EN`, shutdown clears
//!   EN, the ISR writes TICLR first.
//!
//! # What this driver does differently, and why
//!
//! - **Rounding up, not down.** Linux's `delta & CSR_TCFG_VAL` drops the low two bits, so
//!   a delta of 1003 fires after 1000 ticks: up to 3 ticks *early*. Here every delta is
//!   rounded **up** to a multiple of 4 ([`init_val_for`]), so the timer never fires before
//!   the requested delta and at most 3 ticks after it.
//! - **`max_delta` is 2^48 − 4**, the largest count the 46-bit InitVal field holds. Linux
//!   declares (1 << 48) − 1, which its own rounding turns into 2^48 − 4 anyway; declaring
//!   the honest value lets [`Alarm`](hwtimer_core::Alarm) step a longer wait instead of
//!   cutting it short. [`Config::max_delta`] keeps Linux's figure as the default limit
//!   and [`ConstantTimer`]'s `max_delta` ([`Capabilities`]) reports it
//!   rounded down.
//! - **`min_delta` is configuration** ([`Config`]): default [`DEFAULT_MIN_DELTA`] (the
//!   seed's choice), [`Config::LINUX_0X600`] for Linux's older [`LINUX_OLD_MIN_DELTA`].
//! - **Shutdown also clears TI.** Linux's shutdown only clears EN, so a TI latched just
//!   before it survives: the next arm leaves it set, the core takes the interrupt at once
//!   for an event that was cancelled, and the handler's acknowledge reports it as new.
//!   Here shutdown writes TICLR after TCFG = 0 (the pending-status rule of [`ClockEvent`]).
//!
//! # Why `min_delta` matters
//!
//! A request closer than `min_delta` is programmed as `min_delta`: at 100 MHz a 5 µs
//! timer fires at 15.36 µs with 0x600 and at 10 µs with 1000. Timers that expire inside
//! that window are all served by the one interrupt that finally comes
//! ([`HrTimers::on_interrupt`](hwtimer_core::HrTimers::on_interrupt) runs every expired
//! timer), which is why a large `min_delta` batches timers and a small one costs more
//! interrupts. `cargo bench -p loongarch-timer --bench seed` prints both figures; this
//! paragraph is where the crate states them.

use hwtimer_core::clockevent::plan_delta;
use hwtimer_core::{Capabilities, ClockEvent, Error, RegisterBusExt};
use tock_registers::fields::FieldValue;

use crate::cpucfg::ConstantClock;
use crate::csr::{
    CSR_ECFG, CSR_ESTAT, CSR_TCFG, CSR_TICLR, CSR_TVAL, Csr, ECFG, ESTAT, PerCore, TCFG,
    TCFG_VAL_MASK, TICLR, core_id,
};

/// The timer's granularity: InitVal's low two bits are implicitly zero.
pub const INITVAL_GRANULE: u64 = 4;

/// The largest count TCFG can hold, 2^48 − 4 (`CSR_TCFG_VAL`): the largest `max_delta` a
/// [`ConstantTimer`] reports, whatever [`Config::max_delta`] says.
pub const INITVAL_MAX: u64 = TCFG_VAL_MASK;

/// Linux's `max_delta` for this device, (1 << 48) − 1 ticks.
pub const LINUX_MAX_DELTA: u64 = (1 << 48) - 1;

/// The default `min_delta`: 1000 ticks (10 µs at 100 MHz), the value of Linux's
/// `min_delta` patch ([why it matters](crate::clockevent#why-min_delta-matters)).
pub const DEFAULT_MIN_DELTA: u64 = 1000;

/// The `min_delta` Linux used before its `min_delta` patch: 0x600 = 1536 ticks (15.36 µs at 100 MHz).
pub const LINUX_OLD_MIN_DELTA: u64 = 0x600;

/// The count the driver programs for `delta`: `delta` rounded **up** to a multiple of 4,
/// saturating at [`INITVAL_MAX`].
///
/// ```
/// use loongarch_timer::clockevent::init_val_for;
/// assert_eq!(init_val_for(1000), 1000);
/// assert_eq!(init_val_for(1001), 1004); // Linux would program 1000: 1 tick early
/// assert_eq!(init_val_for(1), 4);
/// assert_eq!(init_val_for(u64::MAX), (1 << 48) - 4);
/// ```
#[inline]
pub const fn init_val_for(delta: u64) -> u64 {
    if delta >= INITVAL_MAX {
        return INITVAL_MAX;
    }
    // Cannot wrap: delta < 2^48.
    delta.wrapping_add(INITVAL_GRANULE - 1) & !(INITVAL_GRANULE - 1)
}

/// `TCFG::INITVAL.val(count >> 2)` for a `count` in whole granules (the field sits at bit 2,
/// so its value is `count` with the bits outside `[47:2]` cleared), built inline:
/// tock-registers' `Field::val` is not `#[inline]`, and at `opt-level = "s"` (where rustc
/// shares generic instances between crates) a firmware's `set_next_event` called it.
#[inline(always)]
fn initval(count: u64) -> FieldValue<u64, TCFG::Register> {
    // The field's mask, from the constant `val` (no value bits).
    let mut field = const { TCFG::INITVAL.val(0) };
    field.value = count & field.mask();
    field
}

/// Driver configuration.
///
/// `Config::default()` is [`Config::DEFAULT`]: `min_delta` [`DEFAULT_MIN_DELTA`],
/// `max_delta` [`LINUX_MAX_DELTA`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// The smallest delta, in ticks, the clockevent accepts; closer requests are clamped
    /// up to it by [`Alarm`](hwtimer_core::Alarm). At least 1.
    pub min_delta: u64,
    /// The largest delta the clockevent accepts, at most [`LINUX_MAX_DELTA`]. The
    /// clockevent reports it rounded down to a multiple of 4 (so at most 2^48 − 4).
    pub max_delta: u64,
}

impl Config {
    /// The seed's configuration: `min_delta` [`DEFAULT_MIN_DELTA`].
    pub const DEFAULT: Config = Config {
        min_delta: DEFAULT_MIN_DELTA,
        max_delta: LINUX_MAX_DELTA,
    };

    /// Linux's configuration before its `min_delta` patch: `min_delta` [`LINUX_OLD_MIN_DELTA`].
    pub const LINUX_0X600: Config = Config {
        min_delta: LINUX_OLD_MIN_DELTA,
        max_delta: LINUX_MAX_DELTA,
    };

    /// This configuration with another `min_delta`.
    pub const fn with_min_delta(self, min_delta: u64) -> Self {
        Self { min_delta, ..self }
    }

    /// This configuration with another `max_delta`.
    pub const fn with_max_delta(self, max_delta: u64) -> Self {
        Self { max_delta, ..self }
    }

    /// The largest delta the clockevent will accept: `max_delta` rounded down to a
    /// multiple of 4 (the largest value programmable without shortening it).
    pub const fn effective_max_delta(&self) -> u64 {
        let max = if self.max_delta > INITVAL_MAX {
            INITVAL_MAX
        } else {
            self.max_delta
        };
        max & !(INITVAL_GRANULE - 1)
    }

    /// Check the configuration.
    ///
    /// Errors: [`ConfigError::MinDeltaZero`]; [`ConfigError::MaxDeltaTooLarge`] above
    /// [`LINUX_MAX_DELTA`]; [`ConfigError::MinAboveMax`] when no delta in
    /// `[min_delta, max_delta]` is programmable without being shortened (`min_delta`
    /// rounded up to 4 exceeds `max_delta` rounded down to 4).
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.min_delta == 0 {
            return Err(ConfigError::MinDeltaZero);
        }
        if self.max_delta > LINUX_MAX_DELTA {
            return Err(ConfigError::MaxDeltaTooLarge {
                max_delta: self.max_delta,
            });
        }
        if self.min_delta > self.effective_max_delta() {
            return Err(ConfigError::MinAboveMax {
                min_delta: self.min_delta,
                max_delta: self.max_delta,
            });
        }
        Ok(())
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Why a [`Config`] was refused.
///
/// Returned as it is by [`Config::validate`] and [`ConstantTimer::new`]; converted into
/// [`hwtimer_core::Error`], each variant becomes the [`hwtimer_core::ConfigError`] that
/// names the same cause (see the `From` impl), so `?` in a function returning the core
/// error keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// `min_delta` is 0 (the family's clockevents need `min_delta >= 1`).
    /// Core cause: [`Capabilities`](hwtimer_core::ConfigError::Capabilities).
    MinDeltaZero,
    /// `max_delta` is above [`LINUX_MAX_DELTA`], more than TCFG can count.
    /// Core cause: [`DeltaOutOfRange`](hwtimer_core::ConfigError::DeltaOutOfRange).
    MaxDeltaTooLarge {
        /// The value given.
        max_delta: u64,
    },
    /// No delta in `[min_delta, max_delta]` survives rounding up to a multiple of 4.
    /// Core cause: [`Capabilities`](hwtimer_core::ConfigError::Capabilities) (`min_delta`
    /// above `max_delta`).
    MinAboveMax {
        /// The value given.
        min_delta: u64,
        /// The value given.
        max_delta: u64,
    },
}

impl From<ConfigError> for hwtimer_core::ConfigError {
    /// The core cause that names the same setting (see each variant).
    fn from(e: ConfigError) -> Self {
        match e {
            ConfigError::MinDeltaZero | ConfigError::MinAboveMax { .. } => {
                hwtimer_core::ConfigError::Capabilities
            }
            ConfigError::MaxDeltaTooLarge { .. } => hwtimer_core::ConfigError::DeltaOutOfRange,
        }
    }
}

impl From<ConfigError> for Error {
    /// [`Error::Config`] with the core cause of each variant.
    fn from(e: ConfigError) -> Self {
        Error::Config(e.into())
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::MinDeltaZero => f.write_str("min_delta must be at least 1"),
            ConfigError::MaxDeltaTooLarge { max_delta } => {
                write!(f, "max_delta {max_delta} above (1 << 48) - 1")
            }
            ConfigError::MinAboveMax {
                min_delta,
                max_delta,
            } => write!(
                f,
                "min_delta {min_delta} not programmable below max_delta {max_delta}"
            ),
        }
    }
}

impl core::error::Error for ConfigError {}

/// How a wait is turned into a TCFG count: the arithmetic [`Alarm`](hwtimer_core::Alarm) and
/// [`ConstantTimer`] perform together, as a pure function for tests and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Planned {
    /// The delta handed to [`ClockEvent::set_next_event`], inside
    /// `[min_delta, effective_max_delta]`.
    pub delta: u64,
    /// The count written to TCFG: `delta` rounded up to a multiple of 4, so never below
    /// `delta` and never above the effective `max_delta`.
    pub init_val: u64,
    /// The wait was shorter than `min_delta` and was lengthened (fires late, never early).
    pub clamped_min: bool,
    /// The wait was longer than the effective `max_delta`: this is one step, and the
    /// [`Alarm`](hwtimer_core::Alarm) re-arms from the interrupt.
    pub stepped: bool,
}

/// Plan a wait of `wait` ticks under `config` (the timer and the stable counter share one
/// clock, so no rate conversion and no margin is involved).
///
/// ```
/// use loongarch_timer::clockevent::{Config, plan};
/// // The `min_delta` patch's case: a 5 µs request (500 ticks at 100 MHz).
/// assert_eq!(plan(500, &Config::LINUX_0X600).init_val, 0x600); // 15.36 µs
/// assert_eq!(plan(500, &Config::DEFAULT).init_val, 1000); // 10 µs
/// assert_eq!(plan(1001, &Config::DEFAULT).init_val, 1004); // rounded up, never early
/// ```
pub const fn plan(wait: u64, config: &Config) -> Planned {
    let p = plan_delta(
        wait,
        1,
        1,
        0,
        config.min_delta,
        config.effective_max_delta(),
    );
    Planned {
        delta: p.delta,
        init_val: init_val_for(p.delta),
        clamped_min: p.clamped_min,
        stepped: p.stepped,
    }
}

/// The constant timer of the current core as a [`ClockEvent`].
///
/// # Timing contract
///
/// - [`set_next_event(delta)`](ClockEvent::set_next_event) accepts `delta` in
///   `[min_delta, max_delta]` (else [`ConfigError::DeltaOutOfRange`](hwtimer_core::ConfigError::DeltaOutOfRange),
///   nothing written), programs
///   [`init_val_for(delta)`](init_val_for) with **one TCFG write**, and the interrupt is
///   raised when the stable counter has advanced by that count since the write:
///   **never before `delta` ticks, at most 3 ticks after** (rounding), plus the
///   hardware's own delivery latency. It replaces any pending oneshot or period.
/// - The timer counts on the stable counter's clock, so it is
///   [phase-locked](hwtimer_core::Capabilities::phase_locked) to [`StableCounter`](crate::StableCounter):
///   [`Alarm`](hwtimer_core::Alarm) needs no extra tick of margin.
/// - [`set_periodic(period)`](ClockEvent::set_periodic) needs a period inside
///   `[min_delta, max_delta]` (else
///   [`ConfigError::PeriodOutOfRange`](hwtimer_core::ConfigError::PeriodOutOfRange)) that is
///   a multiple of [`INITVAL_GRANULE`] (else
///   [`ConfigError::PeriodGranule`](hwtimer_core::ConfigError::PeriodGranule)): a period
///   cannot be rounded without changing its meaning. Nothing is written on an error. The
///   first interrupt comes `period` ticks after the write, then every `period` ticks (the
///   hardware reloads; no drift).
/// - [`shutdown`](ClockEvent::shutdown) writes TCFG = 0, then TICLR.CLR (two writes):
///   nothing fires afterwards, and a TI the cancelled event had already latched is cleared,
///   so it can never pass for the next event (the [`ClockEvent`] pending-status rule). The
///   ECFG enable bit is shared with nothing but is the caller's to manage, so it is left
///   alone (see [`enable_interrupt`](Self::enable_interrupt)).
/// - Arming ([`set_next_event`](ClockEvent::set_next_event),
///   [`set_periodic`](ClockEvent::set_periodic)) writes TCFG only: a TI that is pending
///   but not yet handled stays pending.
/// - [`ack`](ClockEvent::ack) reads ESTAT (one read) and, only if TI is set, clears it
///   through TICLR (one write). It returns whether TI was set.
/// - Dropping it leaves the timer quiet: TCFG = 0, then TICLR.CLR (two writes, as
///   [`shutdown`](ClockEvent::shutdown)), so nothing fires for a timer nobody owns any
///   more. [`into_inner`](Self::into_inner) hands the CSRs on without touching them.
/// - Nothing panics, whatever the CSRs read back.
///
/// # Per core
///
/// The timer belongs to the core that programs it, so a `ConstantTimer` is neither `Send`
/// nor `Sync`, whatever `C` is (see [`csr`](crate::csr#per-core-not-send-not-sync)). It is
/// not `Clone` either: one value owns the core's timer.
#[derive(Debug)]
#[must_use = "dropping the timer stops it"]
pub struct ConstantTimer<C: Csr> {
    csr: C,
    freq_hz: u32,
    config: Config,
    /// `config.effective_max_delta()`, derived once: the per-arm range check is two
    /// compares with no rounding.
    max_delta: u64,
    on_drop: OnDrop,
    _core: PerCore,
}

/// What dropping a [`ConstantTimer`] does to the hardware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDrop {
    /// Stop the timer and clear TI: a bare timer is on its own core.
    Quiet,
    /// The same, but only on the core whose `CPUID.CoreID` this is (a
    /// [`PinnedTimer`](crate::pinned::PinnedTimer) may be dropped on another core, whose
    /// timer is not its own); elsewhere nothing.
    #[cfg_attr(
        not(target_has_atomic = "64"),
        allow(dead_code, reason = "set by `pinned` only, which needs 64-bit atomics")
    )]
    QuietOn(u64),
    /// Nothing: [`ConstantTimer::into_inner`] handed the CSRs on.
    Leave,
}

impl<C: Csr> ConstantTimer<C> {
    /// The constant timer, counting at `clock`'s frequency (see [`ConstantClock::probe`]).
    /// Touches no CSR: the timer is left as it is (stop it with
    /// [`shutdown`](ClockEvent::shutdown) if firmware may have left it running).
    ///
    /// Errors: the [`ConfigError`] of [`Config::validate`].
    pub fn new(csr: C, clock: ConstantClock, config: Config) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            csr,
            freq_hz: clock.freq_hz(),
            max_delta: config.effective_max_delta(),
            config,
            on_drop: OnDrop::Quiet,
            _core: PerCore::HERE,
        })
    }

    /// Set what dropping this timer does (the pinned wrapper's hook).
    #[cfg_attr(
        not(target_has_atomic = "64"),
        allow(
            dead_code,
            reason = "used by `pinned` only, which needs 64-bit atomics"
        )
    )]
    pub(crate) fn set_on_drop(&mut self, on_drop: OnDrop) {
        self.on_drop = on_drop;
    }

    /// The configuration.
    pub const fn config(&self) -> &Config {
        &self.config
    }

    /// The CSR access it programs through.
    pub fn csr(&self) -> &C {
        &self.csr
    }

    /// Give the CSR access back, leaving the timer as it is (running, if it was): the one
    /// way to drop a `ConstantTimer` without stopping it. Touches no CSR.
    pub fn into_inner(mut self) -> C
    where
        C: Clone,
    {
        self.on_drop = OnDrop::Leave;
        self.csr.clone()
    }

    /// Enable the timer interrupt line: set ECFG.LIE bit 11 (one read, one write). The
    /// core still takes it only while CRMD.IE is set, which is the firmware's business.
    pub fn enable_interrupt(&mut self) {
        self.csr.modify(CSR_ECFG, ECFG::LIE_TI::SET);
    }

    /// Disable the timer interrupt line: clear ECFG.LIE bit 11 (one read, one write).
    /// ESTAT.TI still latches and can be polled with [`is_pending`](Self::is_pending).
    pub fn disable_interrupt(&mut self) {
        self.csr.modify(CSR_ECFG, ECFG::LIE_TI::CLEAR);
    }

    /// Whether ESTAT.TI is set (one read), without clearing it.
    pub fn is_pending(&self) -> bool {
        self.csr.read(CSR_ESTAT).is_set(ESTAT::TI)
    }

    /// Ticks left before the timer fires, or `None` when it is not running (TCFG.EN clear,
    /// for example after a oneshot expired). One or two reads.
    ///
    /// TVAL is only read while EN is set: after a oneshot expires QEMU's TVAL reads
    /// near 0x1999_9999_999x_xxxx (an unsigned wrap of `(expiry − now) / 10 ns`,
    /// docs/loongarch-timer.md#qemu-model), so it must not be trusted then.
    pub fn remaining(&self) -> Option<u64> {
        if !self.csr.read(CSR_TCFG).is_set(TCFG::EN) {
            return None;
        }
        // TVAL never exceeds InitVal (48 bits); drop anything a core reports above that.
        Some(self.csr.read_raw(CSR_TVAL) & LINUX_MAX_DELTA)
    }

    /// Whether `delta` is inside `[min_delta, effective_max_delta]`.
    #[inline(always)]
    fn in_range(&self, delta: u64) -> bool {
        delta >= self.config.min_delta && delta <= self.max_delta
    }

    /// TCFG = 0, then TICLR.CLR: stopped first, so nothing can latch after the clear.
    fn quiet(&mut self) {
        self.csr.write_raw(CSR_TCFG, 0);
        self.csr.write(CSR_TICLR, TICLR::CLR::SET);
    }
}

impl<C: Csr> Drop for ConstantTimer<C> {
    /// Leaves the hardware quiet (TCFG = 0, then TICLR.CLR), unless
    /// [`into_inner`](ConstantTimer::into_inner) handed the CSRs on; a pinned timer does it
    /// only on its own core (one CPUID read first).
    fn drop(&mut self) {
        match self.on_drop {
            OnDrop::Quiet => self.quiet(),
            OnDrop::QuietOn(core) if core_id(&self.csr) == core => self.quiet(),
            OnDrop::QuietOn(_) | OnDrop::Leave => {}
        }
    }
}

impl<C: Csr> ClockEvent for ConstantTimer<C> {
    /// Deltas in `[min_delta, `[`Config::effective_max_delta`]`]` (the configured maximum
    /// rounded down to a multiple of 4), oneshot and periodic, phase-locked to the stable
    /// counter (both count the constant clock); not absolute (TCFG takes a delta).
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(self.freq_hz, self.config.min_delta, self.max_delta)
            .with_periodic()
            .with_phase_locked()
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
    )]
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if !self.in_range(delta) {
            return Err(hwtimer_core::ConfigError::DeltaOutOfRange.into());
        }
        let count = init_val_for(delta);
        self.csr.write(CSR_TCFG, TCFG::EN::SET + initval(count));
        Ok(())
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
    )]
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !self.in_range(period) {
            return Err(hwtimer_core::ConfigError::PeriodOutOfRange.into());
        }
        if !period.is_multiple_of(INITVAL_GRANULE) {
            return Err(hwtimer_core::ConfigError::PeriodGranule.into());
        }
        self.csr.write(
            CSR_TCFG,
            TCFG::EN::SET + TCFG::PERIODIC::SET + initval(period),
        );
        Ok(())
    }

    /// TCFG = 0, then TICLR.CLR: stopped first, so nothing can latch after the clear.
    fn shutdown(&mut self) {
        // Only with logging on: one read to say a cancelled event's status is dropped.
        #[cfg(feature = "defmt")]
        if self.csr.read(CSR_ESTAT).is_set(ESTAT::TI) {
            hwtimer_core::log_debug!("LoongArch timer: stale TI dropped at shutdown");
        }
        self.quiet();
    }

    #[inline]
    fn ack(&mut self) -> bool {
        if !self.csr.read(CSR_ESTAT).is_set(ESTAT::TI) {
            return false;
        }
        self.csr.write(CSR_TICLR, TICLR::CLR::SET);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline TCFG field value is tock-registers' `INITVAL.val(count >> 2)`, mask and
    /// value, for every count the timer is given (whole granules up to `INITVAL_MAX`) and
    /// for counts with bits outside the field.
    #[test]
    fn initval_is_the_typed_field_value() {
        for count in [
            0,
            4,
            8,
            1000,
            0x600,
            INITVAL_MAX,
            INITVAL_MAX - 4,
            u64::MAX,
            3,
            1 << 48,
        ] {
            let typed = TCFG::INITVAL.val(count >> 2);
            let ours = initval(count);
            assert_eq!(ours.mask(), typed.mask(), "mask for {count:#x}");
            if count.is_multiple_of(INITVAL_GRANULE) && count <= INITVAL_MAX {
                assert_eq!(ours.value, typed.value, "value for {count:#x}");
            }
            assert_eq!(
                ours.value & !TCFG_VAL_MASK,
                0,
                "no bits outside the field for {count:#x}"
            );
        }
    }
}
