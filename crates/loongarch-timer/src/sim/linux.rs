//! Linux's clockevent sequences for the constant timer, on any [`Csr`] (feature
//! `unstable-baselines`: for this crate's benchmarks and seed-proof tests, not part of the
//! public API, no semver promise).
//!
//! [`LinuxTimer`] programs the timer the way `arch/loongarch/kernel/time.c` does (the facts
//! are in `docs/loongarch-timer.md#how-linux-drives-it`), so a test can run the same
//! scenario on it and on [`ConstantTimer`](crate::ConstantTimer) and show where the two
//! differ:
//!
//! | | Linux ([`LinuxTimer`]) | this crate ([`ConstantTimer`](crate::ConstantTimer)) |
//! |---|---|---|
//! | `min_delta` | fixed: [`LINUX_OLD_MIN_DELTA`] before the `min_delta` patch, [`DEFAULT_MIN_DELTA`] after | [`Config`](crate::Config) |
//! | `set_next_event(delta)` | TCFG = `(delta & CSR_TCFG_VAL) \| EN`: rounded **down**, up to 3 ticks early | rounded up, never early |
//! | `max_delta` | (1 << 48) − 1, of which 2^48 − 4 is programmable | 2^48 − 4 |
//! | shutdown | clears TCFG.EN only: a latched TI survives and fires the next arm | TCFG = 0, then TICLR |
//! | interrupt | writes TICLR, then runs the handler | reads ESTAT, clears TI only when set |
//!
//! It is a [`ClockEvent`] so that [`Alarm`](hwtimer_core::Alarm) and
//! [`HrTimers`](hwtimer_core::HrTimers) run on it unchanged; it refuses deltas outside its
//! range as the clockevents core would never pass them.

use hwtimer_core::{Capabilities, ClockEvent, ConfigError, Error};

use crate::clockevent::{DEFAULT_MIN_DELTA, LINUX_MAX_DELTA, LINUX_OLD_MIN_DELTA};
use crate::cpucfg::ConstantClock;
use crate::csr::Csr;

// The CSR facts are the model's own map (the manual's, QEMU's and Linux's), not the driver's.
use super::map::{
    CSR_TCFG, CSR_TICLR, TCFG_EN as EN, TCFG_INITVAL as TCFG_VAL_MASK, TCFG_PERIODIC as PERIODIC,
    TICLR_CLR,
};

/// The constant timer as Linux drives it, with a fixed `min_delta`. See the
/// [module docs](self).
#[derive(Debug)]
pub struct LinuxTimer<C: Csr> {
    csr: C,
    freq_hz: u32,
    min_delta: u64,
}

impl<C: Csr> LinuxTimer<C> {
    /// Linux before its `min_delta` patch ([why it matters](crate::clockevent#why-min_delta-matters)): `min_delta` [`LINUX_OLD_MIN_DELTA`] (0x600).
    pub fn before_seed_003(csr: C, clock: ConstantClock) -> Self {
        Self {
            csr,
            freq_hz: clock.freq_hz(),
            min_delta: LINUX_OLD_MIN_DELTA,
        }
    }

    /// Linux with its `min_delta` patch applied: `min_delta` [`DEFAULT_MIN_DELTA`] (1000).
    pub fn after_seed_003(csr: C, clock: ConstantClock) -> Self {
        Self {
            min_delta: DEFAULT_MIN_DELTA,
            ..Self::before_seed_003(csr, clock)
        }
    }
}

impl<C: Csr> ClockEvent for LinuxTimer<C> {
    /// Linux's declaration: ONESHOT | PERIODIC, `[min_delta, (1 << 48) − 1]`, on the stable
    /// counter's clock.
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(self.freq_hz, self.min_delta, LINUX_MAX_DELTA)
            .with_periodic()
            .with_phase_locked()
    }

    /// TCFG = `(delta & CSR_TCFG_VAL) | EN`.
    ///
    /// Errors: [`ConfigError::DeltaOutOfRange`] outside `[min_delta, (1 << 48) − 1]`.
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        if !(self.min_delta..=LINUX_MAX_DELTA).contains(&delta) {
            return Err(ConfigError::DeltaOutOfRange.into());
        }
        self.csr.write_word(CSR_TCFG, (delta & TCFG_VAL_MASK) | EN);
        Ok(())
    }

    /// TCFG = `(period & CSR_TCFG_VAL) | PERIODIC | EN` (Linux uses `freq / HZ`).
    ///
    /// Errors: [`ConfigError::PeriodOutOfRange`] outside `[min_delta, (1 << 48) − 1]`.
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        if !(self.min_delta..=LINUX_MAX_DELTA).contains(&period) {
            return Err(ConfigError::PeriodOutOfRange.into());
        }
        self.csr
            .write_word(CSR_TCFG, (period & TCFG_VAL_MASK) | PERIODIC | EN);
        Ok(())
    }

    /// Clears TCFG.EN (read, modify, write); TI is left as it is.
    fn shutdown(&mut self) {
        let tcfg = self.csr.read_word(CSR_TCFG);
        self.csr.write_word(CSR_TCFG, tcfg & !EN);
    }

    /// Writes TICLR bit 0 and reports an event: Linux's handler runs only for its own
    /// per-CPU interrupt and never asks whether TI was set.
    fn ack(&mut self) -> bool {
        self.csr.write_word(CSR_TICLR, TICLR_CLR);
        true
    }
}
