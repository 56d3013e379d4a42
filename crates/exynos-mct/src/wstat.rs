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
//! writing …") when it does not come within its loop bound (`hardware.md` §2.3, quirk
//! §2.8.1: a write issued before the previous one was acknowledged can be lost).
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
//! The natural clock is the MCT's own FRC, but it is not always usable:
//!
//! - **Before the FRC runs** (at boot, and for the very `G_TCON` write that starts it) the
//!   FRC does not advance, so a deadline on it would never pass. The wait is then bounded
//!   by *iterations*: [`WaitClock::Iterations`] counts one "tick" per poll at a nominal
//!   1 GHz, so `timeout_ns` of the configuration reads as a number of polls
//!   ([`WstatConfig::max_polls`]), like Linux's loop counter.
//! - **Writes that move the FRC** (`G_CNT_L/U`, and `G_TCON`, which may start or stop it)
//!   use iterations too: a loaded counter can jump forward by up to a full wrap, which a
//!   clock reading would take for elapsed time (a premature timeout).
//! - **Otherwise** the FRC low word bounds the wait ([`WaitClock::Frc`]): `timeout_ns` of
//!   real time. The reading is extended with hwtimer-core's half-wrap rule, so a counter
//!   that jumps *backwards* (QEMU quirk 2, `qemu.md` §1: writing `G_COMPn` restarts the
//!   visible count from the last `G_CNT` value) counts as no progress and cannot shorten
//!   the wait either.

use core::cell::Cell;

use hwtimer_core::extend::extend;
use hwtimer_core::{Clocksource, Continuous, Error, Poller, Reg, RegisterBus, RegisterBusExt};

use crate::regs;

/// Bounds of a write-status wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WstatConfig {
    /// Deadline in nanoseconds of FRC time when the FRC runs (default 1 ms: Linux's
    /// intended bound).
    pub timeout_ns: u64,
    /// Polls before giving up when the FRC cannot be the clock (default 10 000).
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
    /// The MCT FRC low word at `freq_hz`.
    Frc {
        /// FRC rate.
        freq_hz: u32,
    },
    /// One tick per poll (nominal 1 GHz), for when the FRC is stopped or being written.
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

/// The reads a wait is made of: the clocksource the [`Poller`] runs on.
struct PollClock<'a, B: RegisterBus<Word = u32>> {
    bus: &'a B,
    clock: WaitClock,
    /// Iteration count, or the FRC extended to 64 bits (never decreasing).
    value: Cell<u64>,
}

impl<B: RegisterBus<Word = u32>> Clocksource for PollClock<'_, B> {
    fn bits(&self) -> u32 {
        64
    }
    fn freq_hz(&self) -> u32 {
        match self.clock {
            WaitClock::Frc { freq_hz } => freq_hz.max(1),
            WaitClock::Iterations => 1_000_000_000,
        }
    }
    fn read(&self) -> u64 {
        let next = match self.clock {
            WaitClock::Frc { .. } => {
                let raw = self.bus.read_raw(regs::G_CNT_L);
                extend(self.value.get(), u64::from(raw), 32)
            }
            WaitClock::Iterations => self.value.get().saturating_add(1),
        };
        self.value.set(next);
        next
    }
}

// The iteration clock advances by one per read and the FRC clock never goes backwards:
// both serve the Poller's "bounded, one more read after the deadline" loop. (Neither is a
// general-purpose continuous clocksource; this type is private to the wait.)
impl<B: RegisterBus<Word = u32>> Continuous for PollClock<'_, B> {}

/// Write `value` to `reg`, then wait for `bit` and clear it. Returns the number of status
/// reads made.
///
/// Errors: [`Error::Timeout`] when the bit was not set by the deadline, including on the
/// extra read after it (the bit is then left alone; the caller's state is unknown).
pub fn write_and_wait<B: RegisterBus<Word = u32>>(
    bus: &B,
    reg: Reg<u32>,
    value: u32,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, Error> {
    bus.write_raw(reg, value);
    wait_and_clear(bus, bit, clock, config)
}

/// Wait for `bit` (after a write made by the caller) and clear it; see [`write_and_wait`].
pub fn wait_and_clear<B: RegisterBus<Word = u32>>(
    bus: &B,
    bit: WstatBit,
    clock: WaitClock,
    config: &WstatConfig,
) -> Result<u32, Error> {
    // Fast path: one read (QEMU acknowledges synchronously; hardware within a few cycles
    // of the 24 MHz clock).
    if bus.read_raw(bit.status) & bit.mask != 0 {
        bus.write_raw(bit.status, bit.mask);
        return Ok(1);
    }
    let source = PollClock {
        bus,
        clock,
        value: Cell::new(0),
    };
    if let WaitClock::Frc { .. } = clock {
        // Seed the extension with the current count.
        source.value.set(u64::from(bus.read_raw(regs::G_CNT_L)));
    }
    let poller = match clock {
        WaitClock::Frc { .. } => Poller::new(&source).timeout_ns(config.timeout_ns),
        WaitClock::Iterations => Poller::new(&source).timeout_ns(u64::from(config.max_polls)),
    };
    match poller.poll(|| bus.read_raw(bit.status), |v| v & bit.mask != 0) {
        Ok(polled) => {
            bus.write_raw(bit.status, bit.mask);
            Ok(polled.polls.saturating_add(1))
        }
        Err(_) => Err(Error::Timeout),
    }
}
