//! One timer's registers and the register sequences the driver uses on them, each with
//! its MMIO cost. Crate-private: the public types ([`OttoClocksource`](crate::OttoClocksource),
//! [`OttoClockEvent`](crate::OttoClockEvent)) own one `Channel` each, and a channel leaves
//! its timer quiet when it is dropped ([`Quiet`]).

use hwtimer_core::{Claim, ConfigError, Error, RegisterBus, RegisterBusExt};

use crate::regs::{
    CNT, CNT_REG, COUNTER_MASK, CTRL, CTRL_REG, DATA, DATA_REG, INT, INT_REG, MAX_DIVISOR,
    TIMER_STRIDE,
};
use crate::soc::Config;

/// The two counting modes of CTRL.MODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) enum Mode {
    /// `RTTM_CTRL_COUNTER`: on reaching DATA the counter resets and stops (oneshot).
    Counter,
    /// `RTTM_CTRL_TIMER`: on reaching DATA the counter resets and keeps running
    /// (periodic; with DATA = 0 a free-running 28-bit counter).
    Timer,
}

/// A timer's registers that stop the timer and clear its interrupt when dropped: whoever
/// owned the timer is gone, so nothing may be left counting towards an interrupt or
/// pending (2 writes, as [`Channel::quiet`]).
struct Quiet<R: RegisterBus<Word = u32>>(R);

impl<R: RegisterBus<Word = u32>> Drop for Quiet<R> {
    fn drop(&mut self) {
        quiet(&self.0);
    }
}

/// Stop, then mask and cancel: CTRL = 0, then INT = IP (IE = 0, IP written 1: W1C), 2
/// writes. CTRL = 0 never touches INT; once stopped the timer latches nothing more, so
/// after the INT write nothing can be pending (a stale IP cannot pass for a new event once
/// the timer is armed again).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
)]
fn quiet<R: RegisterBus<Word = u32>>(regs: &R) {
    regs.write_raw(CTRL_REG, 0);
    regs.write(INT_REG, INT::IE::CLEAR + INT::IP::SET);
}

/// One timer's registers, taken from the block once: `regs` is the timer's own
/// `TIMER_STRIDE` bytes, checked against the bus window in [`Channel::new`], so each access
/// below (a constant offset into it) is the bare load or store.
pub(crate) struct Channel<B: Claim<Word = u32>> {
    regs: Quiet<B::Block<TIMER_STRIDE>>,
    bus: B,
    index: usize,
    divisor: u16,
    tick_hz: u32,
    /// `CTRL` to start in COUNTER and in TIMER mode at `divisor` (computed once).
    start: [u32; 2],
}

impl<B: Claim<Word = u32>> core::fmt::Debug for Channel<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Channel")
            .field("index", &self.index)
            .field("divisor", &self.divisor)
            .field("tick_hz", &self.tick_hz)
            .finish_non_exhaustive()
    }
}

impl<B: Claim<Word = u32>> Channel<B> {
    /// Validate `config` and `index`, and take the timer's registers from `bus`; no
    /// register access. Errors as [`Config::validate`] and [`Config::check_index`], and
    /// [`ConfigError::WindowTooShort`] when the timer's registers do not lie inside the
    /// bus window.
    pub(crate) fn new(bus: B, config: &Config, index: usize) -> Result<Self, Error> {
        let divisor = config.validate()?;
        config.check_index(index)?;
        let base = index
            .checked_mul(TIMER_STRIDE)
            .ok_or(ConfigError::NoSuchTimer)?;
        let regs = bus.claim(base).ok_or(ConfigError::WindowTooShort)?;
        Ok(Self {
            regs: Quiet(regs),
            bus,
            index,
            divisor,
            tick_hz: config.tick_hz,
            start: [
                ctrl_start(Mode::Counter, divisor),
                ctrl_start(Mode::Timer, divisor),
            ],
        })
    }

    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn divisor(&self) -> u16 {
        self.divisor
    }

    pub(crate) fn tick_hz(&self) -> u32 {
        self.tick_hz
    }

    pub(crate) fn into_bus(self) -> B {
        self.bus
    }

    /// Stop: CTRL = 0 (1 write). Never touches INT, so a pending interrupt stays pending.
    fn stop(&self) {
        self.regs.0.write_raw(CTRL_REG, 0);
    }

    /// Stop, mask and cancel a pending interrupt (2 writes): what `shutdown` and dropping
    /// the channel do.
    pub(crate) fn quiet(&self) {
        quiet(&self.regs.0);
    }

    /// Start at the configured divisor: CTRL = ENABLE | mode | divisor (1 write).
    fn start(&self, mode: Mode) {
        let [counter, timer] = self.start;
        let value = match mode {
            Mode::Counter => counter,
            Mode::Timer => timer,
        };
        self.regs.0.write_raw(CTRL_REG, value);
    }

    /// DATA = `target` (1 write); resets the counter to 0.
    fn set_target(&self, target: u32) {
        self.regs
            .0
            .write(DATA_REG, DATA::DATA.val(target & COUNTER_MASK));
    }

    /// The counter, masked to 28 bits (1 read).
    pub(crate) fn count(&self) -> u32 {
        self.regs.0.read(CNT_REG).read(CNT::CNT)
    }

    /// INT = IE or 0 (1 write). The IP bit is written as 0, which a W1C bit ignores:
    /// this never acknowledges (docs/otto-timer.md#no-ack-while-reprogramming).
    pub(crate) fn set_irq_enabled(&self, enabled: bool) {
        let ie = if enabled {
            INT::IE::SET
        } else {
            INT::IE::CLEAR
        };
        self.regs.0.write(INT_REG, ie);
    }

    /// Whether INT.IP is set (1 read; used only for logging).
    #[cfg(feature = "defmt")]
    pub(crate) fn is_pending(&self) -> bool {
        self.regs.0.read(INT_REG).is_set(INT::IP)
    }

    /// Acknowledge: read INT; if IP is set, write IP back as 1 with IE as the driver
    /// holds it (1 read, plus 1 write when pending). Returns whether IP was set.
    ///
    /// Linux does a read-modify-write of INT; writing IE from the driver's own state
    /// instead of from the read-back value costs the same and keeps a corrupted read from
    /// switching the interrupt on or setting undefined bits.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
    )]
    pub(crate) fn ack(&self, irq_enabled: bool) -> bool {
        let int = self.regs.0.read(INT_REG);
        if !int.is_set(INT::IP) {
            return false;
        }
        let ie = if irq_enabled {
            INT::IE::SET
        } else {
            INT::IE::CLEAR
        };
        self.regs.0.write(INT_REG, ie + INT::IP::SET);
        true
    }

    /// Program and start the timer with the lost-interrupt workaround (5 writes).
    ///
    /// # Quirk: lost interrupt when reprogramming close to expiry
    ///
    /// Source: the v6.18 fixes to `torvalds/linux drivers/clocksource/timer-rtl-otto.c`
    /// (Markus Stockhausen, Aug 2025; OpenWrt backport
    /// `target/linux/realtek/patches-6.12/020-0x-v6.18-timer-rtl-otto-*.patch`, PR #19468;
    /// docs/otto-timer.md#lost-interrupt). Stopping a running timer and reprogramming it within about
    /// 5 µs of its expiry can make the *reprogrammed* timer expire without raising its
    /// interrupt; with no further tick the CPU stalls until the watchdog resets it.
    ///
    /// The sequence here, from those facts ("bounce"):
    /// 1. stop (CTRL = 0);
    /// 2. start again with the **slowest** divisor (0xFFFF), DATA untouched, so the
    ///    pending state machine settles on the old target, which is now hundreds of
    ///    microseconds away instead of inside the 5 µs window;
    /// 3. stop again — now far from expiry;
    /// 4. DATA = target (resets the counter);
    /// 5. start with the real divisor and mode.
    ///
    /// INT is not touched: acknowledging here could drop an interrupt that is
    /// legitimately pending (docs/otto-timer.md#no-ack-while-reprogramming); only [`ack`](Self::ack) clears IP.
    pub(crate) fn reprogram(&self, mode: Mode, target: u32) {
        self.stop();
        self.regs
            .0
            .write_raw(CTRL_REG, ctrl_start(mode, MAX_DIVISOR));
        self.stop();
        self.set_target(target);
        self.start(mode);
    }

    /// Stop, DATA, start (3 writes), without the bounce: for the clocksource only, which
    /// runs with its interrupt off and is started once, never near a target.
    pub(crate) fn load_and_start(&self, mode: Mode, target: u32) {
        self.stop();
        self.set_target(target);
        self.start(mode);
    }
}

/// `CTRL` = ENABLE | `mode` | `divisor`: the value that starts a timer.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
)]
const fn ctrl_start(mode: Mode, divisor: u16) -> u32 {
    let mode = match mode {
        Mode::Counter => CTRL::MODE::Counter.value,
        Mode::Timer => CTRL::MODE::Timer.value,
    };
    CTRL::ENABLE::SET.value | mode | (divisor as u32 & CTRL::DIVISOR.mask)
}
