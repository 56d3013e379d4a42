//! One timer's registers and the register sequences the driver uses on them, each with
//! its MMIO cost. Crate-private: the public types ([`OttoClocksource`](crate::OttoClocksource),
//! [`OttoClockEvent`](crate::OttoClockEvent)) own one `Channel` each.

use hwtimer_core::{Error, RegisterBus, RegisterBusExt};

use crate::regs::{CNT, COUNTER_MASK, CTRL, DATA, INT, MAX_DIVISOR, TimerRegs};
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

#[derive(Debug)]
pub(crate) struct Channel<B> {
    bus: B,
    regs: TimerRegs,
    index: usize,
    divisor: u16,
    tick_hz: u32,
}

impl<B: RegisterBus<Word = u32>> Channel<B> {
    /// Validate `config` and `index`; no register access.
    pub(crate) fn new(bus: B, config: &Config, index: usize) -> Result<Self, Error> {
        let divisor = config.validate()?;
        config.check_index(index)?;
        Ok(Self {
            bus,
            regs: TimerRegs::of(index),
            index,
            divisor,
            tick_hz: config.tick_hz,
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
    pub(crate) fn stop(&self) {
        self.bus.write_raw(self.regs.ctrl, 0);
    }

    /// Start: CTRL = ENABLE | mode | divisor (1 write).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
    )]
    fn start_with(&self, mode: Mode, divisor: u16) {
        let mode = match mode {
            Mode::Counter => CTRL::MODE::Counter,
            Mode::Timer => CTRL::MODE::Timer,
        };
        self.bus.write(
            self.regs.ctrl,
            CTRL::ENABLE::SET + mode + CTRL::DIVISOR.val(u32::from(divisor)),
        );
    }

    /// DATA = `target` (1 write); resets the counter to 0.
    fn set_target(&self, target: u32) {
        self.bus
            .write(self.regs.data, DATA::DATA.val(target & COUNTER_MASK));
    }

    /// The counter, masked to 28 bits (1 read).
    pub(crate) fn count(&self) -> u32 {
        self.bus.read(self.regs.cnt).read(CNT::CNT)
    }

    /// INT = IE or 0 (1 write). The IP bit is written as 0, which a W1C bit ignores:
    /// this never acknowledges (docs/otto-timer.md#no-ack-while-reprogramming).
    pub(crate) fn set_irq_enabled(&self, enabled: bool) {
        let ie = if enabled {
            INT::IE::SET
        } else {
            INT::IE::CLEAR
        };
        self.bus.write(self.regs.int, ie);
    }

    /// Whether INT.IP is set (1 read; used only for logging).
    #[cfg(feature = "defmt")]
    pub(crate) fn is_pending(&self) -> bool {
        self.bus.read(self.regs.int).is_set(INT::IP)
    }

    /// Mask and cancel: INT = IP (IE = 0, IP written 1: W1C), 1 write. Clears a pending
    /// status along with the enable, so a stale IP cannot pass for a new event once the
    /// timer is armed again. Only after [`stop`](Self::stop): a stopped timer latches
    /// nothing more, so nothing can be pending after this write.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tock-registers `FieldValue + FieldValue` ORs field masks and values: no integer arithmetic, cannot overflow"
    )]
    pub(crate) fn mask_and_clear(&self) {
        self.bus.write(self.regs.int, INT::IE::CLEAR + INT::IP::SET);
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
        let int = self.bus.read(self.regs.int);
        if !int.is_set(INT::IP) {
            return false;
        }
        let ie = if irq_enabled {
            INT::IE::SET
        } else {
            INT::IE::CLEAR
        };
        self.bus.write(self.regs.int, ie + INT::IP::SET);
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
        self.start_with(mode, MAX_DIVISOR);
        self.stop();
        self.set_target(target);
        self.start_with(mode, self.divisor);
    }

    /// The pre-v6.18 sequence (stop, DATA, start: 3 writes) that can lose the interrupt.
    /// Kept for the clocksource, which never runs near a target with interrupts in use,
    /// and for tests demonstrating the quirk.
    pub(crate) fn reprogram_naive(&self, mode: Mode, target: u32) {
        self.stop();
        self.set_target(target);
        self.start_with(mode, self.divisor);
    }
}
