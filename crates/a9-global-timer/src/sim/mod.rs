//! Behavioural model of the global timer (feature `sim`, host only).
//!
//! [`GtModel`] is a [`SimModel`]: the driver talks to it through a [`SimBus`] exactly as it
//! talks to the hardware through [`Mmio`](hwtimer_core::Mmio). It models the block of a
//! cluster of [`MODEL_CPUS`] cores in virtual time: the counter, `TIMER_ENABLE` and the
//! prescaler are one copy for every core; the comparator, its control bits
//! (`COMP_ENABLE`, `IRQ_ENABLE`, `AUTO_INC`), the auto-increment value and the event flag
//! are **banked**: each access sees the bank of the core making it ([`SimCpu::current`],
//! as QEMU's `a9gtimer` picks the bank of the CPU issuing the access), and a `GT_CONTROL`
//! write from any core replaces the shared bits for all of them. [`GtSim`] is the
//! single-thread harness (its bus is `Rc`-based); [`GtMpSim`] puts the model behind a
//! mutex so threads can play cores. Per core:
//!
//! - a 64-bit counter that advances at `input_hz / (PRESCALER + 1)` while `TIMER_ENABLE`
//!   is set and holds its value while it is clear; counter writes are ignored while it
//!   runs (TRM; QEMU) and load it while it is stopped; changing the prescaler keeps the
//!   value and restarts the tick grid;
//! - the comparator, compared according to a [`ModelRule`]: the r2p0+ `>=` and QEMU's
//!   strict `>` are **level** compares (the flag is set again after a clear for as long
//!   as the condition holds, which is the behaviour behind erratum 740657 and what QEMU
//!   does), the pre-r2p0 equality is an **edge** (the flag is set once, when the counter
//!   steps onto the value or the comparator is enabled or written at it);
//! - `AUTO_INC`: at a match the comparator advances by whole increments past the counter
//!   (QEMU: to the first grid point not below it), so the grid never drifts;
//! - the event flag, write 1 to clear; the interrupt line is `flag && IRQ_ENABLE`;
//! - `GT_CONTROL` keeps only its defined bits (`0xFF0F`); the reserved word at 0x1C reads
//!   0 and ignores writes (as QEMU); accesses outside the 0x20-byte window, or misaligned,
//!   read all ones and drop writes (as [`Mmio`](hwtimer_core::Mmio) does).
//!
//! Sources: the model's register map is its own ([`map`], every offset and bit cited
//! there: the Cortex-A9 MPCore TRM "Global timer", Linux
//! `drivers/clocksource/arm_global_timer.c`, QEMU `hw/timer/a9gtimer.c`), never the
//! driver's; `tests/driver/register_map.rs` compares the two. Where QEMU's auto-increment bit
//! disagrees with the TRM, the model follows the TRM ([`map`] says how).
//!
//! Baseline (feature `unstable-baselines`, for this crate's seed-proof tests; not part of
//! the public API, no semver promise): `seed`, the pre-fix per-core shadow of the shared
//! control bits.
//!
//! Assumptions where the sources say nothing (**unverified**, chosen to be simple and
//! documented so a reader can challenge them):
//!
//! - a rate that does not divide exactly is rounded down (the driver refuses such a
//!   configuration anyway);
//! - under the equality rule, writing the comparator while it is enabled, or enabling it,
//!   at exactly the counter's value matches;
//! - QEMU's quirk that a stopped counter keeps *reading* as if it ran is not modelled:
//!   the model freezes it, as the TRM describes the hardware.

pub mod map;
#[cfg(feature = "unstable-baselines")]
pub mod seed;

use std::sync::{Arc, Mutex};

use hwtimer_core::reg::{Claim, Claimed, RegisterBus};
use hwtimer_core::sim::model::Counter;
use hwtimer_core::sim::{IrqSource, SimBus, SimClock, SimCpu, SimModel};

use map::{
    GT_AUTO_INC, GT_COMP0, GT_COMP1, GT_CONTROL, GT_COUNTER0, GT_COUNTER1, GT_INT_STATUS,
    WINDOW_LEN,
};

/// Virtual cost of one MMIO read on [`GtSim`]: 100 ns, the hwtimer-core default for an
/// uncached peripheral access (**unverified** for the MPCore private region).
pub const SIM_READ_NS: u64 = 100;
/// Virtual cost of one MMIO write on [`GtSim`] (hwtimer-core default, 50 ns).
pub const SIM_WRITE_NS: u64 = 50;

const TIMER_ENABLE: u32 = map::GT_CONTROL_TIMER_ENABLE;
const COMP_ENABLE: u32 = map::GT_CONTROL_COMP_ENABLE;
const IRQ_ENABLE: u32 = map::GT_CONTROL_IRQ_ENABLE;
const AUTO_INC: u32 = map::GT_CONTROL_AUTO_INC;
/// The defined bits of `GT_CONTROL`.
const CONTROL_DEFINED: u32 = map::GT_CONTROL_DEFINED;

/// How the modelled comparator matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelRule {
    /// r2p0 and later (TRM): the flag is set while `counter >= comparator`.
    GreaterOrEqual,
    /// r0p0 to r1p1: the flag is set when the counter equals the comparator (an edge).
    Equal,
    /// QEMU's `hw/timer/a9gtimer.c`: the flag is set while `counter > comparator`, one
    /// tick after the r2p0+ rule.
    QemuGreater,
}

/// How many cores the model has: 4, the most a Cortex-A9 MPCore cluster has (TRM). An
/// access from a thread whose [`SimCpu`] number is 4 or more reads all ones and is
/// dropped (no such core).
pub const MODEL_CPUS: usize = 4;

/// The registers of one core's bank.
#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    /// `COMP_ENABLE | IRQ_ENABLE | AUTO_INC` of this core.
    control: u32,
    comparator: u64,
    auto_inc: u32,
    flag: bool,
    /// Equality rule: the counter value up to which equality has been checked.
    checked_to: Option<u64>,
    flag_sets: u64,
    increments: u64,
}

/// The global timer of a cluster of [`MODEL_CPUS`] cores; each access sees the shared
/// counter and control bits and the bank of the core that makes it
/// ([`SimCpu::current`]); see the [module docs](self).
#[derive(Debug, Clone)]
pub struct GtModel {
    input_hz: u32,
    rule: ModelRule,
    counter: Counter,
    /// `TIMER_ENABLE | PRESCALER`: one copy for every core.
    shared: u32,
    banks: [Bank; MODEL_CPUS],
    ignored_counter_writes: u64,
}

/// The bank index of the calling thread's core, `None` for a core the cluster lacks.
fn current_bank() -> Option<usize> {
    let cpu = usize::try_from(SimCpu::current()).ok()?;
    (cpu < MODEL_CPUS).then_some(cpu)
}

impl GtModel {
    /// A block at reset (everything 0, counter stopped) with input clock `input_hz` and
    /// comparator rule `rule`.
    pub fn new(input_hz: u32, rule: ModelRule) -> Self {
        Self {
            input_hz,
            rule,
            counter: Counter::new(64, input_hz),
            shared: 0,
            banks: [Bank::default(); MODEL_CPUS],
            ignored_counter_writes: 0,
        }
    }

    /// QEMU's model: 100 MHz at prescaler 0 ([`map::QEMU_INPUT_HZ`]), strict `>`.
    pub fn qemu() -> Self {
        Self::new(map::QEMU_INPUT_HZ, ModelRule::QemuGreater)
    }

    /// The same block with its counter loaded with `value` (stopped, as after a counter
    /// write at reset).
    pub fn with_counter(mut self, value: u64) -> Self {
        self.counter.load(0, value);
        self
    }

    /// The comparator rule.
    pub fn rule(&self) -> ModelRule {
        self.rule
    }

    /// The counter value at `now_ns` (no side effects, not a bus access).
    pub fn counter_at(&self, now_ns: u64) -> u64 {
        self.counter.value(now_ns)
    }

    /// The current counter rate in Hz.
    pub fn tick_hz(&self) -> u32 {
        self.counter.freq_hz()
    }

    /// Whether the counter runs (`TIMER_ENABLE`, shared).
    pub fn counter_running(&self) -> bool {
        self.shared & TIMER_ENABLE != 0
    }

    fn bank(&self) -> Bank {
        current_bank()
            .and_then(|c| self.banks.get(c).copied())
            .unwrap_or_default()
    }

    /// The calling core's comparator value (it moves in periodic mode).
    pub fn comparator(&self) -> u64 {
        self.bank().comparator
    }

    /// `GT_CONTROL` as the calling core reads it: the shared bits and its banked bits.
    pub fn control(&self) -> u32 {
        self.shared | self.bank().control
    }

    /// The calling core's event flag, brought up to `now_ns`.
    pub fn flag(&mut self, now_ns: u64) -> bool {
        self.settle(now_ns);
        self.bank().flag
    }

    /// How many times the calling core's event flag went from clear to set: one per event
    /// on a correct driver; two for one oneshot is erratum 740657's double interrupt.
    pub fn flag_sets(&self) -> u64 {
        self.bank().flag_sets
    }

    /// Comparator increments done by the calling core's `AUTO_INC` so far.
    pub fn increments(&self) -> u64 {
        self.bank().increments
    }

    /// Counter writes ignored because the counter was running.
    pub fn ignored_counter_writes(&self) -> u64 {
        self.ignored_counter_writes
    }

    /// Whether the calling core's interrupt line (its GIC ID 27) is asserted at `now_ns`.
    pub fn irq_asserted(&mut self, now_ns: u64) -> bool {
        self.settle(now_ns);
        let b = self.bank();
        b.flag && b.control & IRQ_ENABLE != 0
    }

    /// When the calling core's interrupt line will next assert, seen from `now_ns`:
    /// `now_ns` if it is asserted, `None` if it never will without software help
    /// (interrupt or comparator off, counter stopped, or an equality compare the counter
    /// has passed).
    pub fn next_irq_ns(&mut self, now_ns: u64) -> Option<u64> {
        self.settle(now_ns);
        let b = self.bank();
        if b.control & IRQ_ENABLE == 0 {
            return None;
        }
        if b.flag {
            return Some(now_ns);
        }
        if !self.comparing(&b) {
            return None;
        }
        let cur = self.counter.value(now_ns);
        let fire_at = match self.rule {
            ModelRule::GreaterOrEqual | ModelRule::Equal => b.comparator,
            ModelRule::QemuGreater => b.comparator.checked_add(1)?,
        };
        if fire_at <= cur {
            return None; // an equality already passed (the level rules have fired)
        }
        self.counter.time_of_value(now_ns, fire_at)
    }

    /// Whether `bank`'s comparator compares: the shared counter runs and its
    /// `COMP_ENABLE` is set.
    fn comparing(&self, bank: &Bank) -> bool {
        self.shared & TIMER_ENABLE != 0 && bank.control & COMP_ENABLE != 0
    }

    /// Bring every core's compare up to `now_ns`.
    fn settle(&mut self, now_ns: u64) {
        let cur = self.counter.value(now_ns);
        let running = self.shared & TIMER_ENABLE != 0;
        let rule = self.rule;
        for b in &mut self.banks {
            if !(running && b.control & COMP_ENABLE != 0) {
                b.checked_to = Some(cur);
                continue;
            }
            let comp = b.comparator;
            let hit = match rule {
                ModelRule::GreaterOrEqual => cur >= comp,
                ModelRule::QemuGreater => cur > comp,
                ModelRule::Equal => match b.checked_to {
                    Some(from) => from < comp && comp <= cur,
                    None => comp == cur,
                },
            };
            b.checked_to = Some(cur);
            if !hit {
                continue;
            }
            if !b.flag {
                b.flag = true;
                b.flag_sets += 1;
            }
            if b.control & AUTO_INC != 0 && b.auto_inc != 0 {
                let inc = u64::from(b.auto_inc);
                let behind = cur - comp;
                let k = match rule {
                    // QEMU: ALIGN_UP(counter - comparator, increment).
                    ModelRule::QemuGreater => behind.div_ceil(inc),
                    _ => behind / inc + 1,
                };
                b.comparator = comp.wrapping_add(k.wrapping_mul(inc));
                b.increments += k;
            }
        }
    }

    /// Equality rule: the next settle checks the current value itself (enable, write).
    fn recheck_from(counter: &Counter, bank: &mut Bank, now_ns: u64) {
        bank.checked_to = counter.value(now_ns).checked_sub(1);
    }

    /// A `GT_CONTROL` write from core `cpu`: the shared bits are replaced for every core
    /// (QEMU: whichever CPU writes), the banked bits of `cpu` only.
    fn write_control(&mut self, cpu: usize, now_ns: u64, value: u32) {
        let old_shared = self.shared;
        let new = value & CONTROL_DEFINED;
        let prescaler = (new & map::GT_CONTROL_PRESCALER_MASK) >> map::GT_CONTROL_PRESCALER_SHIFT;
        let old_prescaler =
            (old_shared & map::GT_CONTROL_PRESCALER_MASK) >> map::GT_CONTROL_PRESCALER_SHIFT;
        if prescaler != old_prescaler {
            let v = self.counter.value(now_ns);
            let mut c = Counter::new(64, self.input_hz / (prescaler + 1));
            c.load(now_ns, v);
            if self.counter.is_running() {
                c.start(now_ns);
            }
            self.counter = c;
        }
        if new & TIMER_ENABLE != 0 {
            self.counter.start(now_ns);
        } else {
            self.counter.stop(now_ns);
        }
        self.shared = new & map::GT_CONTROL_SHARED;
        let was_running = old_shared & TIMER_ENABLE != 0;
        for (i, b) in self.banks.iter_mut().enumerate() {
            let was = was_running && b.control & COMP_ENABLE != 0;
            if i == cpu {
                b.control = new & map::GT_CONTROL_BANKED;
            }
            let now = new & TIMER_ENABLE != 0 && b.control & COMP_ENABLE != 0;
            if now && !was {
                Self::recheck_from(&self.counter, b, now_ns);
            }
        }
    }
}

impl SimModel for GtModel {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        if offset >= WINDOW_LEN || !offset.is_multiple_of(4) {
            return u32::MAX;
        }
        let Some(cpu) = current_bank() else {
            return u32::MAX;
        };
        self.settle(now_ns);
        let cur = self.counter.value(now_ns);
        let b = self.banks[cpu];
        match offset {
            GT_COUNTER0 => cur as u32,
            GT_COUNTER1 => (cur >> 32) as u32,
            GT_CONTROL => self.shared | b.control,
            GT_INT_STATUS => u32::from(b.flag),
            GT_COMP0 => b.comparator as u32,
            GT_COMP1 => (b.comparator >> 32) as u32,
            GT_AUTO_INC => b.auto_inc,
            // The reserved word (map::GT_RESERVED).
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        if offset >= WINDOW_LEN || !offset.is_multiple_of(4) {
            return;
        }
        let Some(cpu) = current_bank() else {
            return;
        };
        self.settle(now_ns);
        match offset {
            GT_COUNTER0 | GT_COUNTER1 => {
                if self.counter.is_running() {
                    self.ignored_counter_writes += 1;
                } else {
                    let v = self.counter.value(now_ns);
                    let new = if offset == GT_COUNTER0 {
                        (v & !0xFFFF_FFFF) | u64::from(value)
                    } else {
                        (v & 0xFFFF_FFFF) | (u64::from(value) << 32)
                    };
                    self.counter.load(now_ns, new);
                    for b in &mut self.banks {
                        b.checked_to = Some(new);
                    }
                }
            }
            GT_CONTROL => self.write_control(cpu, now_ns, value),
            GT_INT_STATUS if value & map::GT_INT_STATUS_EVENT_FLAG != 0 => {
                self.banks[cpu].flag = false
            }
            GT_COMP0 | GT_COMP1 => {
                let comparing = self.comparing(&self.banks[cpu]);
                let b = &mut self.banks[cpu];
                b.comparator = if offset == GT_COMP0 {
                    (b.comparator & !0xFFFF_FFFF) | u64::from(value)
                } else {
                    (b.comparator & 0xFFFF_FFFF) | (u64::from(value) << 32)
                };
                if comparing {
                    Self::recheck_from(&self.counter, b, now_ns);
                }
            }
            GT_AUTO_INC => self.banks[cpu].auto_inc = value,
            _ => {}
        }
        // Level compares are evaluated again at once (QEMU does so after every write).
        self.settle(now_ns);
    }
}

/// A simulated global timer ready to use: a [`SimClock`] and a [`SimBus`] in front of a
/// [`GtModel`], with the helpers a test needs to act as the CPU.
#[derive(Clone)]
pub struct GtSim {
    clock: SimClock,
    bus: SimBus<GtModel>,
}

impl core::fmt::Debug for GtSim {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GtSim")
            .field("now_ns", &self.clock.now_ns())
            .field("stats", &self.bus.stats())
            .finish()
    }
}

impl GtSim {
    /// QEMU's block ([`GtModel::qemu`]) at t = 0, MMIO costs [`SIM_READ_NS`] /
    /// [`SIM_WRITE_NS`].
    pub fn qemu() -> Self {
        Self::with_model(GtModel::qemu(), SIM_READ_NS, SIM_WRITE_NS)
    }

    /// A given model and MMIO costs.
    pub fn with_model(model: GtModel, read_ns: u64, write_ns: u64) -> Self {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, model).with_costs(read_ns, write_ns);
        Self { clock, bus }
    }

    /// A bus handle for a driver (clones share the model, clock and counters).
    pub fn bus(&self) -> SimBus<GtModel> {
        self.bus.clone()
    }

    /// The virtual clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Run `f` on the model.
    pub fn model<R>(&self, f: impl FnOnce(&mut GtModel) -> R) -> R {
        self.bus.model(f)
    }

    /// The counter value now (not a bus access).
    pub fn counter(&self) -> u64 {
        let now = self.clock.now_ns();
        self.model(|m| m.counter_at(now))
    }

    /// Whether the interrupt line is asserted now.
    pub fn irq_asserted(&self) -> bool {
        let now = self.clock.now_ns();
        self.model(|m| m.irq_asserted(now))
    }

    /// The CPU idles until the interrupt line asserts: the clock jumps there. Returns the
    /// time, or `None` when it never will. Shorthand for the [`IrqSource`] of `&GtSim`.
    pub fn advance_to_next_irq(&self) -> Option<u64> {
        let mut irq = self;
        irq.advance_to_next()
    }
}

/// The block's interrupt line (GIC ID 27 of this core) as an [`IrqSource`], for
/// [`run_virtual`](hwtimer_core::sim::run_virtual) and for a test acting as the CPU.
impl IrqSource for &GtSim {
    /// The CPU idles until the line asserts: the clock jumps there. `None` when it never
    /// will (interrupt or comparator off, counter stopped, or an equality compare the
    /// counter has passed).
    fn advance_to_next(&mut self) -> Option<u64> {
        let now = self.clock.now_ns();
        let t = self.model(|m| m.next_irq_ns(now))?;
        self.clock.advance_to(t);
        Some(t)
    }
}

/// A simulated cluster whose cores are threads: a [`SimClock`] and a [`GtModel`] behind a
/// mutex, with bus handles ([`GtMpBus`]) that are `Send` and `Sync`. Each thread plays the
/// core it [`SimCpu::enter`]s and sees that core's bank; [`GtSim`]'s bus is single-thread
/// (`Rc`), this one is for tests with two threads as two cores.
#[derive(Debug, Clone)]
pub struct GtMpSim {
    bus: GtMpBus,
}

/// A bus handle of [`GtMpSim`] (clones share the model and clock): each access is
/// serialised on the model, picks the bank of the calling thread's [`SimCpu`] and
/// advances the clock by its cost.
#[derive(Debug, Clone)]
pub struct GtMpBus {
    clock: SimClock,
    model: Arc<Mutex<GtModel>>,
    read_ns: u64,
    write_ns: u64,
}

impl GtMpSim {
    /// QEMU's block ([`GtModel::qemu`]) at t = 0, MMIO costs [`SIM_READ_NS`] /
    /// [`SIM_WRITE_NS`].
    pub fn qemu() -> Self {
        Self::with_model(GtModel::qemu(), SIM_READ_NS, SIM_WRITE_NS)
    }

    /// A given model and MMIO costs.
    pub fn with_model(model: GtModel, read_ns: u64, write_ns: u64) -> Self {
        Self {
            bus: GtMpBus {
                clock: SimClock::new(),
                model: Arc::new(Mutex::new(model)),
                read_ns,
                write_ns,
            },
        }
    }

    /// A bus handle for a driver, usable from any thread.
    pub fn bus(&self) -> GtMpBus {
        self.bus.clone()
    }

    /// The virtual clock.
    pub fn clock(&self) -> &SimClock {
        &self.bus.clock
    }

    /// Run `f` on the model (its per-core accessors answer for the calling thread's core).
    pub fn model<R>(&self, f: impl FnOnce(&mut GtModel) -> R) -> R {
        let mut m = self.bus.model.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut m)
    }

    /// The counter value now (not a bus access).
    pub fn counter(&self) -> u64 {
        let now = self.clock().now_ns();
        self.model(|m| m.counter_at(now))
    }

    /// Whether the counter runs.
    pub fn counter_running(&self) -> bool {
        self.model(|m| m.counter_running())
    }

    /// Whether the calling core's interrupt line is asserted now.
    pub fn irq_asserted(&self) -> bool {
        let now = self.clock().now_ns();
        self.model(|m| m.irq_asserted(now))
    }

    /// When the calling core's interrupt line next asserts, from now (no clock change).
    pub fn next_irq_ns(&self) -> Option<u64> {
        let now = self.clock().now_ns();
        self.model(|m| m.next_irq_ns(now))
    }
}

impl RegisterBus for GtMpBus {
    type Word = u32;

    fn read_word(&self, offset: usize) -> u32 {
        let v = {
            let mut m = self.model.lock().unwrap_or_else(|e| e.into_inner());
            m.read(self.clock.now_ns(), offset)
        };
        self.clock.advance(self.read_ns);
        v
    }

    fn write_word(&self, offset: usize, value: u32) {
        {
            let mut m = self.model.lock().unwrap_or_else(|e| e.into_inner());
            m.write(self.clock.now_ns(), offset, value);
        }
        self.clock.advance(self.write_ns);
    }
}

impl Claim for GtMpBus {
    type Block<const SPAN: usize> = Claimed<GtMpBus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        base.checked_add(SPAN)?;
        Some(Claimed::new(self.clone(), base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTRL: usize = 0x08;
    const STATUS: usize = 0x0C;

    fn armed(rule: ModelRule, comp: u64) -> GtModel {
        let mut m = GtModel::new(100_000_000, rule);
        m.write(0, CTRL, TIMER_ENABLE);
        m.write(0, 0x10, comp as u32);
        m.write(0, 0x14, (comp >> 32) as u32);
        m.write(0, CTRL, TIMER_ENABLE | COMP_ENABLE | IRQ_ENABLE);
        m
    }

    #[test]
    fn counter_runs_at_the_prescaled_rate_and_holds_when_stopped() {
        let mut m = GtModel::qemu();
        assert_eq!(m.read(1_000, 0x00), 0);
        m.write(1_000, CTRL, TIMER_ENABLE | (3 << 8)); // 25 MHz: 40 ns per tick
        assert_eq!(m.read(1_000 + 40_000, 0x00), 1_000);
        m.write(41_000, CTRL, 3 << 8);
        assert_eq!(m.read(1_000_000, 0x00), 1_000);
        // Counter writes: ignored while running, taken while stopped.
        m.write(1_000_000, 0x00, 7);
        assert_eq!(m.read(1_000_000, 0x00), 7);
        m.write(1_000_000, CTRL, TIMER_ENABLE);
        m.write(1_000_000, 0x00, 9);
        assert_eq!(m.ignored_counter_writes(), 1);
        assert_eq!(m.read(1_000_100, 0x00), 17); // 100 MHz again
    }

    #[test]
    fn rules_fire_at_their_tick() {
        // Comparator 100 = 1 µs at 100 MHz.
        for (rule, first_ns) in [
            (ModelRule::GreaterOrEqual, 1_000),
            (ModelRule::Equal, 1_000),
            (ModelRule::QemuGreater, 1_010),
        ] {
            let mut m = armed(rule, 100);
            assert_eq!(m.next_irq_ns(0), Some(first_ns), "{rule:?}");
            assert!(!m.irq_asserted(first_ns - 1), "{rule:?}");
            assert!(m.irq_asserted(first_ns), "{rule:?}");
        }
    }

    #[test]
    fn level_rules_set_the_flag_again_after_a_clear_edge_does_not() {
        for (rule, again) in [
            (ModelRule::GreaterOrEqual, true),
            (ModelRule::QemuGreater, true),
            (ModelRule::Equal, false),
        ] {
            let mut m = armed(rule, 100);
            assert_eq!(m.read(2_000, STATUS), 1);
            m.write(2_000, STATUS, 1); // W1C while enabled and passed
            assert_eq!(m.read(2_000, STATUS), u32::from(again), "{rule:?}");
            assert_eq!(m.flag_sets(), 1 + u64::from(again), "{rule:?}");
        }
    }

    #[test]
    fn a_passed_value_fires_on_enable_except_under_equality() {
        for (rule, fires) in [
            (ModelRule::GreaterOrEqual, true),
            (ModelRule::QemuGreater, true),
            (ModelRule::Equal, false),
        ] {
            let mut m = GtModel::new(100_000_000, rule);
            m.write(0, CTRL, TIMER_ENABLE);
            m.write(10_000, 0x10, 50); // counter at 1000
            m.write(10_000, CTRL, TIMER_ENABLE | COMP_ENABLE | IRQ_ENABLE);
            assert_eq!(m.read(10_000, STATUS), u32::from(fires), "{rule:?}");
            assert_eq!(m.next_irq_ns(10_000).is_some(), fires, "{rule:?}");
        }
    }

    #[test]
    fn auto_increment_keeps_the_grid() {
        let mut m = armed(ModelRule::GreaterOrEqual, 1_000);
        m.write(0, 0x18, 1_000);
        m.write(0, CTRL, TIMER_ENABLE | COMP_ENABLE | IRQ_ENABLE | AUTO_INC);
        // Looked at late (3.5 periods): the comparator is on the grid, past the counter.
        assert_eq!(m.read(35_000, STATUS), 1);
        assert_eq!(m.comparator(), 4_000);
        assert_eq!(m.increments(), 3);
        let mut q = armed(ModelRule::QemuGreater, 1_000);
        q.write(0, 0x18, 1_000);
        q.write(0, CTRL, TIMER_ENABLE | COMP_ENABLE | IRQ_ENABLE | AUTO_INC);
        assert_eq!(q.read(35_000, STATUS), 1);
        assert_eq!(q.comparator(), 4_000);
    }

    /// Run `f` as core `cpu` (a thread of its own), on `m`.
    fn as_cpu<R: Send>(cpu: u32, m: &mut GtModel, f: impl FnOnce(&mut GtModel) -> R + Send) -> R {
        std::thread::scope(|s| {
            s.spawn(|| {
                SimCpu::enter(cpu);
                f(m)
            })
            .join()
            .unwrap()
        })
    }

    #[test]
    fn comparators_and_flags_are_banked_the_shared_bits_are_not() {
        let mut m = armed(ModelRule::GreaterOrEqual, 100); // core 0, due at 1 µs
        // Core 1 sees the shared bits core 0 wrote, and its own (empty) bank.
        let ctrl1 = as_cpu(1, &mut m, |m| m.read(0, CTRL));
        assert_eq!(ctrl1, TIMER_ENABLE);
        as_cpu(1, &mut m, |m| {
            m.write(0, 0x10, 500);
            m.write(0, CTRL, TIMER_ENABLE | COMP_ENABLE | IRQ_ENABLE);
        });
        // At 2 µs only core 0's comparator has matched.
        assert_eq!(m.read(2_000, STATUS), 1);
        assert_eq!(as_cpu(1, &mut m, |m| m.read(2_000, STATUS)), 0);
        assert_eq!(as_cpu(1, &mut m, |m| m.next_irq_ns(2_000)), Some(5_000));
        // Core 0's clear leaves core 1's flag alone.
        assert_eq!(as_cpu(1, &mut m, |m| m.read(6_000, STATUS)), 1);
        m.write(6_000, CTRL, TIMER_ENABLE);
        m.write(6_000, STATUS, 1);
        assert_eq!(m.read(6_000, STATUS), 0);
        assert_eq!(as_cpu(1, &mut m, |m| m.read(6_000, STATUS)), 1);
        // A control write from core 1 replaces the shared bits for every core: core 1
        // stops the counter core 0 started, and core 0's banked bits stay as they were.
        as_cpu(1, &mut m, |m| {
            m.write(6_000, CTRL, COMP_ENABLE | IRQ_ENABLE)
        });
        assert_eq!(m.read(6_000, CTRL), 0);
        assert_eq!(m.read(6_000, 0x00), m.read(9_000, 0x00));
        // A core the cluster lacks: all ones, writes dropped.
        assert_eq!(as_cpu(4, &mut m, |m| m.read(0, CTRL)), u32::MAX);
        as_cpu(4, &mut m, |m| m.write(0, CTRL, TIMER_ENABLE));
        assert!(!m.counter_running());
    }

    #[test]
    fn window_edges() {
        let mut m = GtModel::qemu();
        assert_eq!(m.read(0, 0x1C), 0);
        assert_eq!(m.read(0, 0x20), u32::MAX);
        assert_eq!(m.read(0, 0x02), u32::MAX);
        m.write(0, CTRL, u32::MAX);
        assert_eq!(m.read(0, CTRL), CONTROL_DEFINED);
    }
}
