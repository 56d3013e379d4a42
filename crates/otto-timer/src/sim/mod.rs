//! Behavioural model of the Otto timer block (feature `sim`, host only), and the driver's
//! MMIO costs measured on it ([`measure_mmio_costs`]).
//!
//! The pre-v6.18 Linux reprogram sequence and the seed's strategies that the tests and the
//! bench compare the driver with live in `sim::seed`, compiled only with the
//! `unstable-baselines` feature (this crate's own benches and seed-proof tests; not part
//! of the public API).
//!
//! [`OttoModel`] is a [`SimModel`]: the driver talks to it through a
//! [`SimBus`] exactly as it talks to hardware through
//! [`Mmio`](hwtimer_core::Mmio). Its register map and SoC facts are its own ([`map`],
//! each fact cited there), never the driver's: the Otto timer has no QEMU model, so this
//! model is the only independent check of the driver, and `tests/model/register_map.rs`
//! compares the two maps. It models, per timer:
//!
//! - a 28-bit up-counter ("If enabled the timer counts up", `RTTM_BIT_COUNT`: Linux
//!   `drivers/clocksource/timer-rtl-otto.c`) that advances with virtual time at
//!   `LXB / DIVISOR` while CTRL.ENABLE is set, and freezes when it is cleared; the LXB
//!   rate is the SoC's ([`map::soc_facts`]) or the board's
//!   ([`OttoModel::with_bus_clock_hz`]);
//! - **DATA write resets the counter to 0**; **CNT writes are ignored** ("The current
//!   counter value is a read only register. It will be reset when writing a new target":
//!   the v6.18 fix "Drop set_counter function");
//! - reaching DATA: the counter resets to 0; in TIMER mode it keeps running, in COUNTER
//!   mode it stops until ENABLE is cleared and set again; "adding 1 to 0x0fffffff" also
//!   resets it, so DATA = 0 means a free-running wrap at 2^28 (TIMER) or one pass and a
//!   stop (COUNTER) (Linux, comment above `RTTM_CTRL_COUNTER`);
//! - INT.IP **latches** at every expiry, whether or not IE is set (a side effect the
//!   driver never asks for; **unverified**: the sources say only that reaching the target
//!   fires an interrupt "depending on its configuration"), is **write-1-to-clear** (Linux
//!   acknowledges by writing the bit back as 1) and is not changed by writing 0 (Linux
//!   enables the interrupt by writing IE alone, which must not acknowledge); the
//!   interrupt line is IE && IP;
//! - **the lost-interrupt quirk** (docs/otto-timer.md#lost-interrupt), in one of several variants: see
//!   [below](#the-lost-interrupt-quirk).
//!
//! Assumptions where the sources say nothing (all **unverified**, chosen to be
//! conservative or simple, and documented here so a reader can challenge them):
//!
//! - the prescaler restarts when the timer is enabled or DATA is written, so a delta of
//!   `n` expires exactly `n` ticks after the start;
//! - DATA = 1 (below the hardware minimum of 2) never raises the interrupt (counted as
//!   lost); DIVISOR = 0 stops the counter;
//! - a stopped timer latches nothing: IP cleared after CTRL = 0 stays clear;
//! - accesses outside the block, or misaligned, read all ones and drop writes (as
//!   [`Mmio`](hwtimer_core::Mmio) does).
//!
//! # The lost-interrupt quirk
//!
//! **What the sources say** (v6.18 fixes, OpenWrt PR #19468; `docs/otto-timer.md`):
//! stopping and reprogramming a running timer within about 5 µs of its expiry *can* lose
//! the interrupt, and the CPU then waits for a tick that never comes. The upstream
//! workaround ("bounce": stop, re-enable with the slowest divisor keeping the old target,
//! stop, DATA, enable) was written on the explanation that "the pending state machine
//! settles" when the timer runs again on its old target. Nobody has published the
//! mechanism; the model therefore does **not** assume one. It makes the part the sources
//! state deterministic, and offers the unstated part as selectable hypotheses
//! ([`LostIrqQuirk`]), so a test can show which sequences survive which hypothesis instead
//! of encoding the fix as the model's rule.
//!
//! Common to every affected variant (the part the sources state, made a "does"):
//!
//! 1. **In flight.** Clearing CTRL.ENABLE while the counter runs and its next expiry is at
//!    most [`LOST_IRQ_WINDOW_NS`] away (configurable: [`OttoModel::with_window_ns`]) leaves
//!    an *expiry in flight* ([`TimerStats::in_flight`]). It does not latch IP by itself
//!    (so the cancelled event raises nothing later). A second stop inside the window
//!    replaces it. The window is virtual time, whatever the divisor.
//! 2. It is resolved by the next DATA write or ENABLE 0 → 1 edge, whichever comes first,
//!    as the variant says; outside the window a stop leaves nothing behind.
//!
//! The variants differ only in how it resolves:
//!
//! | variant | DATA written while in flight | re-enabled without a DATA write | naive stop/DATA/start | bounce |
//! |---|---|---|---|---|
//! | [`CarriedIntoReload`](LostIrqQuirk::CarriedIntoReload) (default) | carried into the new target: that target's first expiry latches no IP (lost) | settles on the old target, harmlessly | **loses** the new interrupt | keeps it |
//! | [`CompletesOnResume`](LostIrqQuirk::CompletesOnResume) | discarded with the reset counter, harmlessly | completes on the old target at once: the counter resets (COUNTER mode: and stops) without latching IP (lost) | keeps it | keeps it (loses only the bounce's own, discarded, target) |
//! | [`Off`](LostIrqQuirk::Off) | — | — | keeps it | keeps it |
//!
//! `CarriedIntoReload` is the hypothesis the upstream fix was designed around; the model
//! reproduces the reported symptom with it, and `tests/driver/driver.rs` shows the naive sequence
//! stalling there. `CompletesOnResume` is a different, equally unverified comparator: one
//! that ties the in-flight match to the counter value rather than to the target register.
//! Under it the naive sequence survives and a plain pause/resume near expiry is what loses
//! an interrupt. The driver's bounce must keep the reprogrammed interrupt on **every**
//! variant (`tests/driver/driver.rs` checks it at every point of the window), which is the claim
//! the model can support; that the real silicon behaves like `CarriedIntoReload` is the
//! upstream report's claim, not the model's.

use std::collections::VecDeque;

use hwtimer_core::sim::{IrqSource, SimBus, SimClock, SimModel};
use hwtimer_core::{ClockEvent, Error};

use crate::soc::{Config, Soc};
use crate::{OttoClockEvent, OttoClocksource};

pub mod map;
#[cfg(feature = "unstable-baselines")]
pub mod seed;

use map::{
    RTTM_CNT, RTTM_COUNTER_MASK, RTTM_CTRL, RTTM_CTRL_DIVISOR_MASK, RTTM_CTRL_ENABLE,
    RTTM_CTRL_TIMER, RTTM_DATA, RTTM_INT, RTTM_INT_ENABLE, RTTM_INT_PENDING,
};

/// How close to its expiry a running timer must be stopped for the quirk to arm: about
/// 5 µs (docs/otto-timer.md#lost-interrupt).
pub const LOST_IRQ_WINDOW_NS: u64 = map::CRITICAL_WINDOW_NS;

/// Virtual cost of one MMIO read used by [`OttoSim::new`] and the seed proof: 100 ns, the
/// `hwtimer-core` default for an uncached peripheral read on this family. No datasheet
/// figure for an LXB read exists in our sources (**unverified**); the seed-proof bound
/// is stated in terms of it, so a different value moves the figure predictably.
pub const SIM_READ_NS: u64 = 100;

/// Virtual cost of one MMIO write (hwtimer-core default, 50 ns; **unverified** as above).
pub const SIM_WRITE_NS: u64 = 50;

const NANOS: u128 = 1_000_000_000;
const WRAP: u64 = 1 << map::RTTM_BIT_COUNT;

/// Whole ticks of a `bus_hz / divisor` clock in `dt_ns` nanoseconds (rounded down).
///
/// ```
/// use otto_timer::sim::ticks_in;
/// assert_eq!(ticks_in(320, 200_000_000, 64), 1); // 3.125 MHz: 320 ns per tick
/// assert_eq!(ticks_in(319, 200_000_000, 64), 0);
/// assert_eq!(ticks_in(1_000, 200_000_000, 0), 0); // divisor 0: stopped
/// ```
pub fn ticks_in(dt_ns: u64, bus_hz: u32, divisor: u16) -> u64 {
    if divisor == 0 {
        return 0;
    }
    let t = u128::from(dt_ns) * u128::from(bus_hz) / (u128::from(divisor) * NANOS);
    u64::try_from(t).unwrap_or(u64::MAX)
}

/// Nanoseconds until `ticks` whole ticks of a `bus_hz / divisor` clock have passed
/// (rounded up), saturating.
///
/// ```
/// use otto_timer::sim::ns_for_ticks;
/// assert_eq!(ns_for_ticks(33, 200_000_000, 64), 10_560);
/// assert_eq!(ns_for_ticks(1, 200_000_000, 0xFFFF), 327_675);
/// ```
pub fn ns_for_ticks(ticks: u64, bus_hz: u32, divisor: u16) -> u64 {
    if bus_hz == 0 {
        return u64::MAX;
    }
    let ns = (u128::from(ticks) * u128::from(divisor) * NANOS).div_ceil(u128::from(bus_hz));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Which hypothesis about the lost-interrupt quirk the model runs; see the
/// [module docs](self#the-lost-interrupt-quirk) for what each assumes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LostIrqQuirk {
    /// An unaffected revision: a stop near expiry leaves nothing behind.
    Off,
    /// The in-flight expiry is carried into a target reloaded (DATA written) before the
    /// next enable, whose first expiry then latches no IP; re-enabling without a reload
    /// lets it settle on the old target. The naive sequence loses the interrupt.
    #[default]
    CarriedIntoReload,
    /// The in-flight expiry is discarded by a DATA write (the reload resets the counter it
    /// belonged to); re-enabling without a reload completes it on the old target at once,
    /// without IP. The naive sequence survives; a pause/resume near expiry loses.
    CompletesOnResume,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wedge {
    None,
    /// An expiry in flight since a stop inside the window.
    InFlight,
    /// (`CarriedIntoReload`) the next expiry latches no IP.
    Doomed,
}

/// One start of a timer as the model saw it (a CTRL write that set ENABLE while it was
/// clear).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    /// Virtual time of the write.
    pub at_ns: u64,
    /// TIMER (periodic) mode; `false` is COUNTER (oneshot).
    pub periodic: bool,
    /// The divisor written.
    pub divisor: u16,
    /// DATA at that moment (the target).
    pub data: u32,
}

/// What happened to one timer, for tests and figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimerStats {
    /// Expiries that latched IP.
    pub fired: u64,
    /// Expiries of the target the timer ran with that did not latch IP (the quirk, or a
    /// target below 2).
    pub lost: u64,
    /// Stops inside the quirk window that left an expiry in flight (any affected variant).
    pub in_flight: u64,
    /// In-flight expiries resolved without costing an interrupt (settled on the old target
    /// by a re-enable, or discarded by a DATA write, as the variant says).
    pub settled: u64,
    /// Every value written to DATA, in order.
    pub data_writes: Vec<u32>,
    /// Every start, in order.
    pub starts: Vec<Start>,
    /// Writes to CNT (ignored by the hardware; a driver should not make them).
    pub cnt_writes: u64,
    /// Writes to INT that had IP set (acknowledges).
    pub acks: u64,
}

/// The state of one timer of the model.
#[derive(Debug, Clone)]
struct TimerModel {
    data: u32,
    ctrl: u32,
    ie: bool,
    ip: bool,
    /// COUNTER mode reached its target: stopped at 0 until re-enabled.
    expired: bool,
    origin_ns: u64,
    origin_value: u32,
    fires_seen: u64,
    wedge: Wedge,
    stats: TimerStats,
}

impl TimerModel {
    fn new() -> Self {
        Self {
            data: 0,
            ctrl: 0,
            ie: false,
            ip: false,
            expired: false,
            origin_ns: 0,
            origin_value: 0,
            fires_seen: 0,
            wedge: Wedge::None,
            stats: TimerStats::default(),
        }
    }

    fn enabled(&self) -> bool {
        self.ctrl & RTTM_CTRL_ENABLE != 0
    }

    fn periodic(&self) -> bool {
        self.ctrl & RTTM_CTRL_TIMER != 0
    }

    fn divisor(&self) -> u16 {
        (self.ctrl & RTTM_CTRL_DIVISOR_MASK) as u16
    }

    fn counting(&self) -> bool {
        self.enabled() && !self.expired && self.divisor() != 0
    }

    /// Ticks between two expiries: DATA, or a full wrap when DATA = 0.
    fn period(&self) -> u64 {
        if self.data == 0 {
            WRAP
        } else {
            u64::from(self.data)
        }
    }

    /// Ticks from `origin_value` to the first expiry.
    fn ahead(&self) -> u64 {
        let target = if self.data == 0 {
            WRAP
        } else {
            u64::from(self.data)
        };
        let a = (target + WRAP - u64::from(self.origin_value)) % WRAP;
        if a == 0 { self.period() } else { a }
    }

    fn ticks(&self, now: u64, bus_hz: u32) -> u64 {
        ticks_in(now.saturating_sub(self.origin_ns), bus_hz, self.divisor())
    }

    fn fires_total(&self, now: u64, bus_hz: u32) -> u64 {
        if !self.counting() {
            return 0;
        }
        let (t, a) = (self.ticks(now, bus_hz), self.ahead());
        if t < a {
            0
        } else if self.periodic() {
            1 + (t - a) / self.period()
        } else {
            1
        }
    }

    fn value(&self, now: u64, bus_hz: u32) -> u32 {
        if !self.counting() {
            return self.origin_value;
        }
        let (t, a) = (self.ticks(now, bus_hz), self.ahead());
        let v = if t < a {
            (u64::from(self.origin_value) + t) % WRAP
        } else if self.periodic() {
            (t - a) % self.period()
        } else {
            0
        };
        (v & u64::from(RTTM_COUNTER_MASK)) as u32
    }

    /// Time of the `k`-th expiry after the origin (`k` from 0), if counting.
    fn fire_ns(&self, k: u64, bus_hz: u32) -> Option<u64> {
        if !self.counting() || (k > 0 && !self.periodic()) {
            return None;
        }
        let tick = self.ahead().saturating_add(k.saturating_mul(self.period()));
        Some(
            self.origin_ns
                .saturating_add(ns_for_ticks(tick, bus_hz, self.divisor())),
        )
    }

    /// Latch every expiry up to `now`.
    fn sync(&mut self, now: u64, bus_hz: u32) {
        let total = self.fires_total(now, bus_hz);
        let mut new = total.saturating_sub(self.fires_seen);
        if new == 0 {
            return;
        }
        self.fires_seen = total;
        if self.wedge == Wedge::Doomed {
            // The quirk: this expiry does not latch IP.
            self.wedge = Wedge::None;
            self.stats.lost += 1;
            new -= 1;
        }
        if self.data == map::RTTM_MIN_TARGET - 1 {
            self.stats.lost += new;
            new = 0;
        }
        if new > 0 {
            self.ip = true;
            self.stats.fired += new;
        }
        if !self.periodic() {
            // COUNTER mode: reset to 0 and stop.
            self.expired = true;
            self.origin_value = 0;
            self.origin_ns = now;
            self.fires_seen = 0;
        }
    }

    /// Re-anchor the counter at `now` with its current value.
    fn freeze(&mut self, now: u64, bus_hz: u32) {
        self.origin_value = self.value(now, bus_hz);
        self.origin_ns = now;
        self.fires_seen = 0;
    }
}

/// The behavioural model of one SoC's Otto timer block. Offsets are relative to timer 0.
#[derive(Debug, Clone)]
pub struct OttoModel {
    bus_hz: u32,
    timers: Vec<TimerModel>,
    window_ns: u64,
    quirk: LostIrqQuirk,
    overrides: VecDeque<u32>,
}

impl OttoModel {
    /// The block of `soc` on its DTS bus clock, every timer stopped with all registers 0,
    /// the default quirk variant ([`LostIrqQuirk::CarriedIntoReload`]).
    pub fn new(soc: Soc) -> Self {
        let facts = map::soc_facts(soc);
        Self {
            bus_hz: facts.lxb_hz,
            timers: vec![TimerModel::new(); facts.timers],
            window_ns: LOST_IRQ_WINDOW_NS,
            quirk: LostIrqQuirk::default(),
            overrides: VecDeque::new(),
        }
    }

    /// The block of `config.soc` on the board's bus clock (`config.bus_clock_hz`).
    pub fn for_config(config: &Config) -> Self {
        Self::new(config.soc).with_bus_clock_hz(config.bus_clock_hz)
    }

    /// Run the block on a board whose LXB bus clock is `hz` (the RTL930x derives it from
    /// the switch PLL, so it need not be the DTS value).
    pub fn with_bus_clock_hz(mut self, hz: u32) -> Self {
        self.bus_hz = hz;
        self
    }

    /// The LXB rate the counters run on.
    pub fn bus_clock_hz(&self) -> u32 {
        self.bus_hz
    }

    /// Switch the lost-interrupt quirk on (the default variant) or off (an unaffected
    /// revision). See [`with_lost_irq`](Self::with_lost_irq) for the other variants.
    pub fn with_quirk(self, on: bool) -> Self {
        self.with_lost_irq(if on {
            LostIrqQuirk::default()
        } else {
            LostIrqQuirk::Off
        })
    }

    /// Select the hypothesis the lost-interrupt quirk follows.
    pub fn with_lost_irq(mut self, quirk: LostIrqQuirk) -> Self {
        self.quirk = quirk;
        self
    }

    /// The quirk variant.
    pub fn lost_irq(&self) -> LostIrqQuirk {
        self.quirk
    }

    /// Change the quirk window (default [`LOST_IRQ_WINDOW_NS`]).
    pub fn with_window_ns(mut self, ns: u64) -> Self {
        self.window_ns = ns;
        self
    }

    /// Fault injection: the next reads return these values, one each, instead of the
    /// modelled register (the model still advances). For property tests.
    pub fn inject_reads(&mut self, values: impl IntoIterator<Item = u32>) {
        self.overrides.extend(values);
    }

    /// Reads still to be overridden.
    pub fn pending_injections(&self) -> usize {
        self.overrides.len()
    }

    /// The statistics of timer `n`, brought up to `now_ns`.
    pub fn stats(&mut self, now_ns: u64, n: usize) -> Option<TimerStats> {
        let bus_hz = self.bus_hz;
        let t = self.timers.get_mut(n)?;
        t.sync(now_ns, bus_hz);
        Some(t.stats.clone())
    }

    /// Whether timer `n`'s interrupt line (IE && IP) is asserted at `now_ns`.
    pub fn irq_asserted(&mut self, now_ns: u64, n: usize) -> bool {
        let bus_hz = self.bus_hz;
        self.timers.get_mut(n).is_some_and(|t| {
            t.sync(now_ns, bus_hz);
            t.ie && t.ip
        })
    }

    /// When timer `n`'s interrupt line will next assert, seen from `now_ns`: `now_ns` if
    /// it is asserted, `None` if it never will without software help (interrupt off,
    /// timer stopped, or its only expiry is going to be lost: a stalled CPU).
    pub fn next_irq_ns(&mut self, now_ns: u64, n: usize) -> Option<u64> {
        let bus_hz = self.bus_hz;
        let t = self.timers.get_mut(n)?;
        t.sync(now_ns, bus_hz);
        if !t.ie {
            return None;
        }
        if t.ip {
            return Some(now_ns);
        }
        if t.data == map::RTTM_MIN_TARGET - 1 {
            return None;
        }
        let skip = u64::from(t.wedge == Wedge::Doomed);
        t.fire_ns(t.fires_seen + skip, bus_hz)
    }

    /// The counter of timer `n` at `now_ns` (no side effects beyond latching).
    pub fn counter(&mut self, now_ns: u64, n: usize) -> Option<u32> {
        let bus_hz = self.bus_hz;
        let t = self.timers.get_mut(n)?;
        t.sync(now_ns, bus_hz);
        Some(t.value(now_ns, bus_hz))
    }

    fn write_ctrl(&mut self, now: u64, n: usize, value: u32) {
        let (bus_hz, window, quirk) = (self.bus_hz, self.window_ns, self.quirk);
        let Some(t) = self.timers.get_mut(n) else {
            return;
        };
        t.sync(now, bus_hz);
        let new_enable = value & RTTM_CTRL_ENABLE != 0;
        // Common to every affected variant: a stop inside the window leaves an expiry in
        // flight (it replaces whatever an earlier stop left).
        if quirk != LostIrqQuirk::Off
            && t.counting()
            && !new_enable
            && let Some(fire) = t.fire_ns(t.fires_seen, bus_hz)
            && fire.saturating_sub(now) <= window
        {
            t.wedge = Wedge::InFlight;
            t.stats.in_flight += 1;
        }
        let was_enabled = t.enabled();
        t.freeze(now, bus_hz);
        t.ctrl = value;
        if !was_enabled && new_enable {
            t.expired = false;
            if t.wedge == Wedge::InFlight {
                t.wedge = Wedge::None;
                match quirk {
                    // Re-enabled on the same target: it settles there, nothing latched.
                    LostIrqQuirk::CarriedIntoReload | LostIrqQuirk::Off => t.stats.settled += 1,
                    // The in-flight match completes on the old target now: the counter
                    // resets as at an expiry (COUNTER mode: and stops), IP stays clear.
                    LostIrqQuirk::CompletesOnResume => {
                        t.origin_value = 0;
                        t.origin_ns = now;
                        t.fires_seen = 0;
                        t.expired = !t.periodic();
                        t.stats.lost += 1;
                    }
                }
            }
            t.stats.starts.push(Start {
                at_ns: now,
                periodic: t.periodic(),
                divisor: t.divisor(),
                data: t.data,
            });
        }
    }

    fn write_data(&mut self, now: u64, n: usize, value: u32) {
        let (bus_hz, quirk) = (self.bus_hz, self.quirk);
        let Some(t) = self.timers.get_mut(n) else {
            return;
        };
        t.sync(now, bus_hz);
        t.data = value & RTTM_COUNTER_MASK;
        t.origin_value = 0;
        t.origin_ns = now;
        t.fires_seen = 0;
        if t.wedge == Wedge::InFlight {
            match quirk {
                // Carried into the reloaded target: its first expiry will latch no IP.
                LostIrqQuirk::CarriedIntoReload => t.wedge = Wedge::Doomed,
                // Discarded with the counter it belonged to.
                LostIrqQuirk::CompletesOnResume | LostIrqQuirk::Off => {
                    t.wedge = Wedge::None;
                    t.stats.settled += 1;
                }
            }
        }
        t.stats.data_writes.push(value);
    }

    fn write_int(&mut self, now: u64, n: usize, value: u32) {
        let bus_hz = self.bus_hz;
        let Some(t) = self.timers.get_mut(n) else {
            return;
        };
        t.sync(now, bus_hz);
        t.ie = value & RTTM_INT_ENABLE != 0;
        if value & RTTM_INT_PENDING != 0 {
            t.ip = false;
            t.stats.acks += 1;
        }
    }

    fn read_reg(&mut self, now: u64, n: usize, reg: usize) -> u32 {
        let bus_hz = self.bus_hz;
        let Some(t) = self.timers.get_mut(n) else {
            return u32::MAX;
        };
        t.sync(now, bus_hz);
        match reg {
            RTTM_DATA => t.data,
            RTTM_CNT => t.value(now, bus_hz),
            RTTM_CTRL => t.ctrl,
            RTTM_INT => {
                let ie = if t.ie { RTTM_INT_ENABLE } else { 0 };
                let ip = if t.ip { RTTM_INT_PENDING } else { 0 };
                ie | ip
            }
            _ => u32::MAX,
        }
    }
}

impl SimModel for OttoModel {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        let (n, reg) = map::decode(offset);
        let v = if !offset.is_multiple_of(4) || n >= self.timers.len() {
            u32::MAX
        } else {
            self.read_reg(now_ns, n, reg)
        };
        self.overrides.pop_front().unwrap_or(v)
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        let (n, reg) = map::decode(offset);
        if !offset.is_multiple_of(4) || n >= self.timers.len() {
            return;
        }
        match reg {
            RTTM_DATA => self.write_data(now_ns, n, value),
            RTTM_CNT => {
                // RTTM_CNT is read-only: the write is dropped (docs/otto-timer.md#cnt-is-read-only).
                if let Some(t) = self.timers.get_mut(n) {
                    t.stats.cnt_writes += 1;
                }
            }
            RTTM_CTRL => self.write_ctrl(now_ns, n, value),
            RTTM_INT => self.write_int(now_ns, n, value),
            _ => {}
        }
    }
}

/// A simulated Otto block ready to use: a [`SimClock`] and a [`SimBus`] in front of an
/// [`OttoModel`], with the helpers a test needs to act as the CPU (wait for an
/// interrupt, look at the line).
#[derive(Clone)]
pub struct OttoSim {
    clock: SimClock,
    bus: SimBus<OttoModel>,
}

impl core::fmt::Debug for OttoSim {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OttoSim")
            .field("now_ns", &self.clock.now_ns())
            .field("stats", &self.bus.stats())
            .finish()
    }
}

impl OttoSim {
    /// The block of `soc` at t = 0, MMIO costs [`SIM_READ_NS`] / [`SIM_WRITE_NS`].
    pub fn new(soc: Soc) -> Self {
        Self::with_model(OttoModel::new(soc), SIM_READ_NS, SIM_WRITE_NS)
    }

    /// A given model and MMIO costs.
    pub fn with_model(model: OttoModel, read_ns: u64, write_ns: u64) -> Self {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, model).with_costs(read_ns, write_ns);
        Self { clock, bus }
    }

    /// A bus handle for a driver (clones share the model, clock and counters).
    pub fn bus(&self) -> SimBus<OttoModel> {
        self.bus.clone()
    }

    /// The virtual clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Run `f` on the model.
    pub fn model<R>(&self, f: impl FnOnce(&mut OttoModel) -> R) -> R {
        self.bus.model(f)
    }

    /// Timer `n`'s statistics now.
    pub fn stats(&self, n: usize) -> TimerStats {
        let now = self.clock.now_ns();
        self.model(|m| m.stats(now, n)).unwrap_or_default()
    }

    /// Whether timer `n`'s interrupt line is asserted now.
    pub fn irq_asserted(&self, n: usize) -> bool {
        let now = self.clock.now_ns();
        self.model(|m| m.irq_asserted(now, n))
    }

    /// Timer `n`'s interrupt line, as an [`IrqSource`] (for
    /// [`run_virtual`](hwtimer_core::sim::run_virtual) and for a test acting as the CPU).
    pub fn line(&self, n: usize) -> OttoLine<'_> {
        OttoLine { sim: self, n }
    }

    /// The CPU idles until timer `n`'s line asserts: the clock jumps there. Returns the
    /// time, or `None` when it never will (the CPU would stall forever). Shorthand for
    /// `self.line(n).advance_to_next()` ([`IrqSource`]).
    pub fn advance_to_next_irq(&self, n: usize) -> Option<u64> {
        self.line(n).advance_to_next()
    }
}

/// One timer's interrupt line of an [`OttoSim`] ([`OttoSim::line`]).
#[derive(Debug, Clone, Copy)]
pub struct OttoLine<'a> {
    sim: &'a OttoSim,
    n: usize,
}

impl IrqSource for OttoLine<'_> {
    /// The CPU idles until this line asserts: the clock jumps there. `None` when it never
    /// will (interrupt off, timer stopped, or its only expiry is going to be lost).
    fn advance_to_next(&mut self) -> Option<u64> {
        let now = self.sim.clock.now_ns();
        let t = self.sim.model(|m| m.next_irq_ns(now, self.n))?;
        self.sim.clock.advance_to(t);
        Some(t)
    }
}

/// The block's lines together, as a CPU with every timer interrupt unmasked sees them: the
/// clock jumps to the earliest line of any timer.
impl IrqSource for &OttoSim {
    fn advance_to_next(&mut self) -> Option<u64> {
        let now = self.clock.now_ns();
        let t = self.model(|m| {
            (0..m.timers.len())
                .filter_map(|n| m.next_irq_ns(now, n))
                .min()
        })?;
        self.clock.advance_to(t);
        Some(t)
    }
}

/// The cost, in MMIO operations, of each driver path, measured on the model: what the
/// cost tables of [`OttoClockEvent`] and the README state (asserted in `tests/driver/driver.rs`,
/// printed by the bench).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmioCosts {
    /// (reads, writes) per clocksource read.
    pub clocksource_read: (u64, u64),
    /// (reads, writes) per `set_next_event` with the interrupt already enabled.
    pub set_next_event: (u64, u64),
    /// (reads, writes) per `ack` of a pending interrupt.
    pub ack_pending: (u64, u64),
    /// (reads, writes) per `ack` with nothing pending.
    pub ack_spurious: (u64, u64),
    /// (reads, writes) per `shutdown`.
    pub shutdown: (u64, u64),
}

/// Measure [`MmioCosts`] on the model of `soc`.
///
/// Errors: those of [`OttoClockEvent::new`] and [`OttoClocksource::new`] (never for the
/// supported SoCs at their default configuration).
pub fn measure_mmio_costs(soc: Soc) -> Result<MmioCosts, Error> {
    use hwtimer_core::Clocksource;
    let sim = OttoSim::new(soc);
    let config = Config::new(soc);
    let cs = OttoClocksource::new(sim.bus(), &config, 1)?;
    let mut ev = OttoClockEvent::new(sim.bus(), &config, 0)?;
    ev.set_next_event(1000)?;
    let cost = |f: &mut dyn FnMut()| {
        let ((), s) = sim.bus.counted(f);
        (s.reads, s.writes)
    };
    let clocksource_read = cost(&mut || {
        cs.read();
    });
    let set_next_event = cost(&mut || {
        let _ = ev.set_next_event(100);
    });
    sim.clock.advance(100_000);
    let ack_pending = cost(&mut || {
        ev.ack();
    });
    let ack_spurious = cost(&mut || {
        ev.ack();
    });
    let shutdown = cost(&mut || ev.shutdown());
    Ok(MmioCosts {
        clocksource_read,
        set_next_event,
        ack_pending,
        ack_spurious,
        shutdown,
    })
}

#[cfg(test)]
mod tests {
    use super::map::TIMER_STRIDE;
    use super::*;

    #[test]
    fn tick_maths_round_the_right_way() {
        assert_eq!(ticks_in(640, 200_000_000, 64), 2);
        assert_eq!(ns_for_ticks(2, 200_000_000, 64), 640);
        assert_eq!(ticks_in(u64::MAX, u32::MAX, 1), u64::MAX); // saturates, no panic
        assert_eq!(ns_for_ticks(u64::MAX, 1, 0xFFFF), u64::MAX);
        assert_eq!(ns_for_ticks(1, 0, 64), u64::MAX);
        assert_eq!(TIMER_STRIDE, 0x10);
    }
}
