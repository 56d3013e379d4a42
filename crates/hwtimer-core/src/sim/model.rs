//! Building blocks for register models, and [`RegisterFile`], a configurable block made
//! of them.

use super::SimModel;
use crate::time::{NANOS_PER_SEC, counter_mask};

/// A hardware counter that advances with virtual time and wraps at its width.
///
/// Ticks fall on a grid anchored at the last start or load: the counter shows
/// `origin_value + floor((now - origin_ns) * freq / 1e9)`, masked. It can be stopped,
/// restarted and loaded, like the counters of the blocks it models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    bits: u32,
    freq_hz: u32,
    origin_ns: u64,
    origin_value: u64,
    running: bool,
}

impl Counter {
    /// A stopped counter at 0.
    pub const fn new(bits: u32, freq_hz: u32) -> Self {
        Self {
            bits,
            freq_hz,
            origin_ns: 0,
            origin_value: 0,
            running: false,
        }
    }

    /// A counter that has been running from `value` since t = 0.
    pub const fn running_from(bits: u32, freq_hz: u32, value: u64) -> Self {
        Self {
            bits,
            freq_hz,
            origin_ns: 0,
            origin_value: value,
            running: true,
        }
    }

    /// Width in bits.
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Rate in Hz.
    pub const fn freq_hz(&self) -> u32 {
        self.freq_hz
    }

    /// Whether it counts.
    pub const fn is_running(&self) -> bool {
        self.running
    }

    /// Ticks elapsed since the origin (unmasked).
    pub fn ticks_since_origin(&self, now_ns: u64) -> u64 {
        if !self.running || self.freq_hz == 0 {
            return 0;
        }
        let dt = now_ns.saturating_sub(self.origin_ns) as u128;
        (dt * self.freq_hz as u128 / NANOS_PER_SEC as u128) as u64
    }

    /// The value at `now_ns`.
    pub fn value(&self, now_ns: u64) -> u64 {
        self.origin_value
            .wrapping_add(self.ticks_since_origin(now_ns))
            & counter_mask(self.bits)
    }

    /// Start counting from the current value (no effect when running).
    pub fn start(&mut self, now_ns: u64) {
        if !self.running {
            self.origin_ns = now_ns;
            self.running = true;
        }
    }

    /// Freeze at the current value.
    pub fn stop(&mut self, now_ns: u64) {
        if self.running {
            self.origin_value = self.value(now_ns);
            self.origin_ns = now_ns;
            self.running = false;
        }
    }

    /// Load `value`; the tick grid restarts at `now_ns`.
    pub fn load(&mut self, now_ns: u64, value: u64) {
        self.origin_value = value & counter_mask(self.bits);
        self.origin_ns = now_ns;
    }

    /// The first time `>= now_ns` at which the counter shows `target` (at most one wrap
    /// ahead), or `None` when stopped.
    pub fn time_of_value(&self, now_ns: u64, target: u64) -> Option<u64> {
        if !self.running || self.freq_hz == 0 {
            return None;
        }
        let mask = counter_mask(self.bits);
        let ahead = (target & mask).wrapping_sub(self.value(now_ns)) & mask;
        let tick = self.ticks_since_origin(now_ns) as u128 + ahead as u128;
        let ns = (tick * NANOS_PER_SEC as u128).div_ceil(self.freq_hz as u128);
        Some(
            self.origin_ns
                .saturating_add(ns.min(u64::MAX as u128) as u64)
                .max(now_ns),
        )
    }
}

/// A busy (or "write pending") flag that clears a fixed time after it was set, or never.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BusyBit {
    clear_at_ns: Option<u64>,
    stuck: bool,
}

impl BusyBit {
    /// Set the flag at `now_ns` for `duration_ns`.
    pub fn set_for(&mut self, now_ns: u64, duration_ns: u64) {
        self.clear_at_ns = Some(now_ns.saturating_add(duration_ns));
    }

    /// Make the flag stick (fault injection): it reads as set until unstuck.
    pub fn set_stuck(&mut self, stuck: bool) {
        self.stuck = stuck;
    }

    /// Whether it reads as set at `now_ns`.
    pub fn is_set(&self, now_ns: u64) -> bool {
        self.stuck || self.clear_at_ns.is_some_and(|t| now_ns < t)
    }
}

/// Write-1-to-clear: the new value of a status register when `written` is written.
///
/// ```
/// use hwtimer_core::sim::model::w1c;
/// assert_eq!(w1c(0b1011, 0b0010), 0b1001);
/// ```
pub const fn w1c(current: u32, written: u32) -> u32 {
    current & !written
}

/// How one register of a [`RegisterFile`] behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Stores what is written.
    Plain,
    /// Writes are ignored.
    ReadOnly,
    /// Bits in the mask are write-1-to-clear (set from the model side with
    /// [`RegisterFile::raise`]); other bits store what is written.
    W1c {
        /// The W1C bits.
        mask: u32,
    },
    /// Writing any of the `mask` bits as 1 starts an operation; the bits read as 1 until
    /// `clear_after_ns` later (a busy bit); other bits store what is written.
    Busy {
        /// The busy bits.
        mask: u32,
        /// How long an operation takes.
        clear_after_ns: u64,
    },
    /// The low 32 bits of a counter (reads only).
    CounterLow,
    /// The high 32 bits of the same counter (reads only). Reading low then high across a
    /// carry tears, as on hardware.
    CounterHigh,
}

#[derive(Debug, Clone, Copy)]
struct Cell32 {
    value: u32,
    behaviour: Behaviour,
    busy: BusyBit,
    stuck_mask: u32,
    stuck_value: u32,
}

/// A block of 32-bit registers with per-register [`Behaviour`]s, plus one optional
/// counter exposed through [`Behaviour::CounterLow`]/[`Behaviour::CounterHigh`].
///
/// Any bit can be made stuck ([`stick`](Self::stick)) to inject faults; accesses outside
/// the block read all ones and drop writes, like the real [`Mmio`](crate::reg::Mmio).
#[derive(Debug, Clone)]
pub struct RegisterFile {
    regs: Vec<Cell32>,
    counter: Counter,
}

impl RegisterFile {
    /// `size` bytes of plain registers, all zero.
    pub fn new(size: usize) -> Self {
        let cell = Cell32 {
            value: 0,
            behaviour: Behaviour::Plain,
            busy: BusyBit::default(),
            stuck_mask: 0,
            stuck_value: 0,
        };
        Self {
            regs: vec![cell; size / 4],
            counter: Counter::new(64, 0),
        }
    }

    fn cell(&mut self, offset: usize) -> Option<&mut Cell32> {
        if !offset.is_multiple_of(4) {
            return None;
        }
        self.regs.get_mut(offset / 4)
    }

    /// Give the register at `offset` a behaviour.
    pub fn with(mut self, offset: usize, behaviour: Behaviour) -> Self {
        if let Some(c) = self.cell(offset) {
            c.behaviour = behaviour;
        }
        self
    }

    /// Set the counter read through the `Counter*` behaviours.
    pub fn with_counter(mut self, counter: Counter) -> Self {
        self.counter = counter;
        self
    }

    /// The counter.
    pub fn counter_mut(&mut self) -> &mut Counter {
        &mut self.counter
    }

    /// Set a register's stored value from the model side (bypassing behaviours).
    pub fn poke(&mut self, offset: usize, value: u32) {
        if let Some(c) = self.cell(offset) {
            c.value = value;
        }
    }

    /// Set bits from the model side (a status bit raised by the hardware).
    pub fn raise(&mut self, offset: usize, bits: u32) {
        if let Some(c) = self.cell(offset) {
            c.value |= bits;
        }
    }

    /// Start a busy period on the register's busy bits from the model side.
    pub fn start_busy(&mut self, now_ns: u64, offset: usize, duration_ns: u64) {
        if let Some(c) = self.cell(offset) {
            c.busy.set_for(now_ns, duration_ns);
        }
    }

    /// Force `mask` bits to read as `value` (fault injection: stuck-at bits).
    pub fn stick(&mut self, offset: usize, mask: u32, value: u32) {
        if let Some(c) = self.cell(offset) {
            c.stuck_mask = mask;
            c.stuck_value = value & mask;
        }
    }

    /// Release stuck bits.
    pub fn unstick(&mut self, offset: usize) {
        self.stick(offset, 0, 0);
    }

    /// The value a read at `now_ns` would return, without side effects.
    pub fn peek(&self, now_ns: u64, offset: usize) -> u32 {
        if !offset.is_multiple_of(4) {
            return u32::MAX;
        }
        let Some(c) = self.regs.get(offset / 4) else {
            return u32::MAX;
        };
        let raw = match c.behaviour {
            Behaviour::CounterLow => self.counter.value(now_ns) as u32,
            Behaviour::CounterHigh => (self.counter.value(now_ns) >> 32) as u32,
            Behaviour::Busy { mask, .. } => {
                let busy = if c.busy.is_set(now_ns) { mask } else { 0 };
                (c.value & !mask) | busy
            }
            _ => c.value,
        };
        (raw & !c.stuck_mask) | c.stuck_value
    }
}

impl SimModel for RegisterFile {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.peek(now_ns, offset)
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        let Some(c) = self.cell(offset) else {
            return;
        };
        match c.behaviour {
            Behaviour::Plain => c.value = value,
            Behaviour::ReadOnly | Behaviour::CounterLow | Behaviour::CounterHigh => {}
            Behaviour::W1c { mask } => {
                c.value = (w1c(c.value, value & mask) & mask) | (value & !mask);
            }
            Behaviour::Busy {
                mask,
                clear_after_ns,
            } => {
                if value & mask != 0 {
                    c.busy.set_for(now_ns, clear_after_ns);
                }
                c.value = value & !mask;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_advances_and_wraps_at_its_width() {
        let c = Counter::running_from(28, 3_125_000, 0x0FFF_FFFE);
        assert_eq!(c.value(0), 0x0FFF_FFFE);
        assert_eq!(c.value(320), 0x0FFF_FFFF); // one tick = 320 ns
        assert_eq!(c.value(640), 0);
        assert_eq!(c.value(959), 0);
        assert_eq!(c.value(960), 1);
    }

    #[test]
    fn counter_stop_start_load() {
        let mut c = Counter::new(32, 1_000_000_000);
        assert_eq!(c.value(100), 0);
        c.start(100);
        assert_eq!(c.value(150), 50);
        c.stop(150);
        assert_eq!(c.value(1000), 50);
        c.load(1000, 7);
        c.start(2000);
        assert_eq!(c.value(2005), 12);
        assert_eq!(c.time_of_value(2005, 20), Some(2013));
    }

    #[test]
    fn w1c_busy_stuck_and_out_of_range() {
        let mut f = RegisterFile::new(0x10)
            .with(0x0, Behaviour::W1c { mask: 0xF })
            .with(
                0x4,
                Behaviour::Busy {
                    mask: 1 << 15,
                    clear_after_ns: 500,
                },
            )
            .with(0x8, Behaviour::ReadOnly);
        f.raise(0x0, 0b1010);
        f.write(0, 0x0, 0b0010 | 0x100);
        assert_eq!(f.read(0, 0x0), 0b1000 | 0x100);
        f.write(1000, 0x4, (1 << 15) | 0x12);
        assert_eq!(f.read(1499, 0x4), (1 << 15) | 0x12);
        assert_eq!(f.read(1500, 0x4), 0x12);
        f.stick(0x4, 1 << 15, 1 << 15);
        assert_eq!(f.read(99_999, 0x4), (1 << 15) | 0x12);
        f.write(0, 0x8, 5);
        assert_eq!(f.read(0, 0x8), 0);
        assert_eq!(f.read(0, 0x40), u32::MAX);
        assert_eq!(f.read(0, 0x2), u32::MAX);
    }
}

/// Fault injection around any model: queued values replace what reads return, so a
/// property test can feed a driver arbitrary read-backs (garbage, stuck bits, values the
/// hardware never produces) while writes still reach the real model.
///
/// ```
/// use hwtimer_core::sim::model::{Faults, RegisterFile};
/// use hwtimer_core::sim::{SimBus, SimClock};
/// use hwtimer_core::RegisterBus;
///
/// let bus = SimBus::new(&SimClock::new(), Faults::new(RegisterFile::new(8)));
/// bus.model(|m| m.inject(Some(0x4), [0xdead_beef, 0]));
/// assert_eq!(bus.read_word(0x0), 0); // other registers: the model
/// assert_eq!(bus.read_word(0x4), 0xdead_beef);
/// assert_eq!(bus.read_word(0x4), 0);
/// ```
#[derive(Debug, Clone)]
pub struct Faults<M: SimModel> {
    inner: M,
    queue: std::collections::VecDeque<(Option<usize>, M::Word)>,
}

impl<M: SimModel> Faults<M> {
    /// Wrap `inner` with an empty injection queue.
    pub fn new(inner: M) -> Self {
        Self {
            inner,
            queue: std::collections::VecDeque::new(),
        }
    }

    /// Queue `values` for the next reads of `offset` (`None`: of any register).
    pub fn inject(&mut self, offset: Option<usize>, values: impl IntoIterator<Item = M::Word>) {
        self.queue.extend(values.into_iter().map(|v| (offset, v)));
    }

    /// Injected values not consumed yet.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// The wrapped model.
    pub fn inner(&mut self) -> &mut M {
        &mut self.inner
    }
}

impl<M: SimModel> SimModel for Faults<M> {
    type Word = M::Word;

    fn read(&mut self, now_ns: u64, offset: usize) -> M::Word {
        // The model sees every read (clear-on-read side effects still happen).
        let real = self.inner.read(now_ns, offset);
        match self.queue.front() {
            Some((target, _)) if target.is_none_or(|t| t == offset) => {
                self.queue.pop_front().map_or(real, |(_, v)| v)
            }
            _ => real,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: M::Word) {
        self.inner.write(now_ns, offset, value)
    }
}
