//! Behavioural model of the MCT in virtual time (feature `sim`), for host tests,
//! benchmarks and demos. Put it behind a [`SimBus`], which counts
//! MMIO reads and writes and charges virtual time per access.
//!
//! Its register map is its own ([`map`], every offset and bit cited there: Linux
//! `drivers/clocksource/exynos_mct.c`, QEMU `hw/timer/exynos4210_mct.c`, the Exynos4210
//! device tree), never the driver's; `tests/driver/register_map.rs` compares the two.
//!
//! What it models (facts from the repository's `docs/exynos-mct.md`):
//!
//! - **FRC**: a 64-bit counter at `input_hz / ((PRESCALER + 1) << DIVIDER)` (24 MHz at
//!   reset) that advances with virtual time while `G_TCON.TIMER_ENABLE` is set; the two
//!   words are separate reads, so a carry between them **tears** a naive read exactly as on
//!   hardware (the bus charges time per read). `G_CNT_L/U` writes load it.
//! - **WSTAT**: each write to a buffered register sets its status bit
//!   [immediately](WstatMode::Immediate) (QEMU), after a [delay](WstatMode::Delay), or
//!   [never](WstatMode::Stuck); status bits are write-1-to-clear. A second write to a
//!   register whose previous write is still unacknowledged is **dropped** (a quirk listed
//!   in `docs/exynos-mct.md`; counted in [`MctModel::lost_writes`]). The model applies an
//!   accepted write at once and only delays its acknowledgement, which comes even after a
//!   driver stopped waiting for it (a late acknowledgement), and when a stuck block
//!   recovers ([`set_wstat_mode`](MctModel::set_wstat_mode)).
//! - **Comparators**: four 64-bit comparators; when the FRC reaches an enabled compare
//!   value the `G_INT_CSTAT` bit latches (W1C) and, with `AUTO_INC`, the compare value
//!   advances by `ADD_INCR` (as many times as matches passed). A value the counter already
//!   passed does not match (it is an equality comparator on hardware and in QEMU).
//! - **Local timers**: the interrupt counter expires every `(TCNTB + 1) × (ICNTB + 1)`
//!   clocks of the rate `MCT_CFG` makes of the input clock (the FRC's rate: QEMU applies
//!   the prescaler and divider to every timer of the block; a change of `MCT_CFG` keeps
//!   each running counter's position) after `L_TCON` starts both counters (the intended semantics of QEMU's
//!   model; the hardware manual was not available — **unverified**), reloading in interval
//!   mode, stopping otherwise; `L_INT_CSTAT.ICNT` latches (W1C). `ICNTB` bit 31 restarts
//!   the count at once. `L_TCNTO`/`L_ICNTO` observe the counters. The local FRC counts
//!   down from `L_FRCNTB` (0 = 2^32) and latches `L_INT_CSTAT.FRC` at each expiry.
//! - **Faults**: [`force_read`](MctModel::force_read) makes any register read a fixed
//!   value (garbage in, for the never-panic tests); [`power_loss`](MctModel::power_loss)
//!   resets every register as a suspend that cuts the block's power would. A dead block
//!   (every read the same value) is hwtimer-core's: [`SimBus::go_dead`] for one that dies
//!   in use, [`Dead`](hwtimer_core::sim::Dead) for one dead from the start.
//! - **Interrupt lines**: [`comparator_line`](MctModel::comparator_line) and
//!   [`local_line`](MctModel::local_line) are the level of each channel's interrupt output
//!   (status AND enable), read without a bus access; [`MctIrqs`] runs the model to its next
//!   interrupt (hwtimer-core's [`IrqSource`], for `run_virtual`).
//!
//! Baselines (feature `unstable-baselines`, for this crate's own bench and seed-proof tests;
//! not part of the public API, no semver promise): `linux`, Linux's arming sequences and
//! 64-bit read on the model; `seed`, the ways Linux and ChromeOS read the 64-bit count.
//!
//! QEMU's own quirks (FRC restart on `G_COMP` writes, `ICNTB` clamping, the manual-update
//! off-by-one) are *not* modelled: the model is the hardware as documented; the firmware
//! shows QEMU's behaviour. The local timer's `ICNTB + 1` ticks per interval **is** what
//! QEMU does (verified) and what the model does; drive it exactly with
//! [`Config::local_icntb_plus_one`](crate::Config) (see [`MctModel::driver_config`]).

use hwtimer_core::sim::model::{Counter, w1c};
use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use hwtimer_core::time::NANOS_PER_SEC;

#[cfg(feature = "unstable-baselines")]
pub mod linux;
pub mod map;
#[cfg(feature = "unstable-baselines")]
pub mod seed;

/// `G_COMPn_U` within comparator `n`'s group.
const COMP_U: usize = map::G_COMP0_U - map::G_COMP0_L;
/// `G_COMPn_ADD_INCR` within comparator `n`'s group.
const COMP_ADD_INCR: usize = map::G_COMP0_ADD_INCR - map::G_COMP0_L;

/// How the model acknowledges buffered writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WstatMode {
    /// The status bit is set by the write itself (QEMU).
    Immediate,
    /// The status bit is set this many nanoseconds after the write.
    Delay(u64),
    /// The status bit never comes (a hung block).
    Stuck,
}

#[derive(Debug, Clone, Copy)]
struct Inflight {
    reg: usize,
    status: usize,
    mask: u32,
    done_at: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct Local {
    tcntb: u32,
    icntb: u32,
    frcntb: u32,
    tcon: u32,
    int_cstat: u32,
    int_enb: u32,
    wstat: u32,
    /// Interrupt counter running since `origin_ns` with `period` input clocks.
    active: bool,
    origin_ns: u64,
    period: u64,
    tick: u64,
    expired: u64,
    fires: u64,
    /// Local FRC.
    lfrc_active: bool,
    lfrc_origin_ns: u64,
    lfrc_reload: u64,
    lfrc_expired: u64,
}

fn clocks_between(from_ns: u64, to_ns: u64, hz: u32) -> u64 {
    let dt = u128::from(to_ns.saturating_sub(from_ns));
    (dt * u128::from(hz) / u128::from(NANOS_PER_SEC)) as u64
}

impl Local {
    fn settle(&mut self, now: u64, hz: u32) {
        if self.active && self.period > 0 {
            let k = clocks_between(self.origin_ns, now, hz) / self.period;
            if k > self.expired {
                let interval = self.tcon & map::L_TCON_INTERVAL_MODE != 0;
                self.int_cstat |= map::L_INT_ICNT;
                if interval {
                    self.fires += k - self.expired;
                    self.expired = k;
                } else {
                    self.fires += 1;
                    self.expired = 1;
                    self.active = false;
                }
            }
        }
        if self.lfrc_active && self.lfrc_reload > 0 {
            let k = clocks_between(self.lfrc_origin_ns, now, hz) / self.lfrc_reload;
            if k > self.lfrc_expired {
                self.lfrc_expired = k;
                self.int_cstat |= map::L_INT_FRC;
            }
        }
    }

    /// `MCT_CFG` changed the rate from `old_hz` to `new_hz` at `now`: keep the clocks each
    /// counter has counted since its origin, counting on at the new rate.
    fn rebase(&mut self, now: u64, old_hz: u32, new_hz: u32) {
        let back = |origin: u64| {
            let clocks = u128::from(clocks_between(origin, now, old_hz));
            let ns = (clocks * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(new_hz.max(1)));
            now.saturating_sub(ns.min(u128::from(u64::MAX)) as u64)
        };
        if self.active {
            self.origin_ns = back(self.origin_ns);
        }
        if self.lfrc_active {
            self.lfrc_origin_ns = back(self.lfrc_origin_ns);
        }
    }

    fn start_icnt(&mut self, now: u64) {
        self.tick = u64::from(self.tcntb) + 1;
        self.period = self.tick * (u64::from(self.icntb) + 1);
        self.origin_ns = now;
        self.expired = 0;
        self.active = true;
    }

    fn running_bits(tcon: u32) -> bool {
        let both = map::L_TCON_TIMER_START | map::L_TCON_INT_START;
        tcon & both == both
    }

    fn position(&self, now: u64, hz: u32) -> Option<u64> {
        (self.active && self.period > 0)
            .then(|| clocks_between(self.origin_ns, now, hz) % self.period)
    }

    fn icnto(&self, now: u64, hz: u32) -> u32 {
        match self.position(now, hz) {
            Some(p) => (u64::from(self.icntb).saturating_sub(p / self.tick.max(1))) as u32,
            None => 0,
        }
    }

    fn tcnto(&self, now: u64, hz: u32) -> u32 {
        match self.position(now, hz) {
            Some(p) => (u64::from(self.tcntb).saturating_sub(p % self.tick.max(1))) as u32,
            None => 0,
        }
    }

    fn frcnto(&self, now: u64, hz: u32) -> u32 {
        if !self.lfrc_active || self.lfrc_reload == 0 {
            return self.frcntb;
        }
        let p = clocks_between(self.lfrc_origin_ns, now, hz) % self.lfrc_reload;
        (self.lfrc_reload - p) as u32
    }
}

/// The MCT model; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct MctModel {
    input_hz: u32,
    cfg: u32,
    frc: Counter,
    cnt_wstat: u32,
    g_tcon: u32,
    g_int_cstat: u32,
    g_int_enb: u32,
    g_wstat: u32,
    comp: [u64; map::NUM_COMPARATORS],
    add_incr: [u32; map::NUM_COMPARATORS],
    matches: [u64; map::NUM_COMPARATORS],
    last_eval: u64,
    locals: Vec<Local>,
    wstat_mode: WstatMode,
    inflight: Vec<Inflight>,
    lost_writes: u64,
    forced: Vec<(usize, u32)>,
    local_irq: crate::LocalIrq,
}

impl MctModel {
    /// An MCT with `local_timers` local timers (clamped to 16) at `input_hz`, all stopped,
    /// FRC at 0, WSTAT immediate.
    pub fn new(input_hz: u32, local_timers: usize) -> Self {
        Self {
            input_hz: input_hz.max(1),
            cfg: 0,
            frc: Counter::new(64, input_hz.max(1)),
            cnt_wstat: 0,
            g_tcon: 0,
            g_int_cstat: 0,
            g_int_enb: 0,
            g_wstat: 0,
            comp: [0; map::NUM_COMPARATORS],
            add_incr: [0; map::NUM_COMPARATORS],
            matches: [0; map::NUM_COMPARATORS],
            last_eval: 0,
            locals: vec![Local::default(); local_timers.min(map::MAX_LOCAL_TIMERS)],
            wstat_mode: WstatMode::Immediate,
            inflight: Vec::new(),
            lost_writes: 0,
            forced: Vec::new(),
            local_irq: crate::LocalIrq::Spi,
        }
    }

    /// Exynos4210 at reset: 24 MHz, two local timers.
    pub fn exynos4210() -> Self {
        Self::new(map::FIN_PLL_HZ, map::EXYNOS4210_LOCAL_TIMERS)
    }

    /// An Exynos4412-like MCT: 24 MHz, four local timers, each local timer's interrupt on
    /// the one PPI of its CPU ([`LocalIrq::Ppi`](crate::LocalIrq::Ppi)).
    pub fn exynos4412() -> Self {
        Self::new(map::FIN_PLL_HZ, 4).with_local_irq(crate::LocalIrq::Ppi)
    }

    /// Builder: how the local timers' interrupts reach the CPUs.
    pub fn with_local_irq(mut self, irq: crate::LocalIrq) -> Self {
        self.local_irq = irq;
        self
    }

    /// The level of the local-timer interrupt the **calling CPU** sees
    /// ([`SimCpu::current`](hwtimer_core::sim::SimCpu::current), as hardware delivers to the
    /// CPU that owns the input), no bus access:
    ///
    /// - [`LocalIrq::Ppi`](crate::LocalIrq::Ppi): its banked PPI, which carries local timer
    ///   *n* to CPU *n* only: [`local_line`](Self::local_line) of the timer whose index is
    ///   the CPU's number (no other timer's interrupt reaches it);
    /// - [`LocalIrq::Spi`](crate::LocalIrq::Spi): each timer has its own SPI, which the
    ///   distributor routes (`GICD_ITARGETSR`, not modelled here): `targets[i]` is the CPU
    ///   local timer `i`'s SPI is routed to, and the CPU sees any of those routed to it.
    pub fn local_line_on_this_cpu(&mut self, now_ns: u64, targets: &[u32]) -> bool {
        let cpu = hwtimer_core::sim::SimCpu::current() as usize;
        match self.local_irq {
            crate::LocalIrq::Ppi => self.local_line(now_ns, cpu),
            crate::LocalIrq::Spi => (0..self.locals.len()).any(|i| {
                targets.get(i).is_some_and(|&t| t as usize == cpu) && self.local_line(now_ns, i)
            }),
        }
    }

    /// Builder: acknowledge buffered writes this way.
    pub fn with_wstat(mut self, mode: WstatMode) -> Self {
        self.wstat_mode = mode;
        self
    }

    /// Builder: the FRC shows `value` at t = 0 (stopped until `G_TCON` starts it).
    pub fn with_frc(mut self, value: u64) -> Self {
        self.frc.load(0, value);
        self.last_eval = value;
        self
    }

    /// Change how later writes are acknowledged. Acknowledgements already on their way
    /// keep their time; those a [`Stuck`](WstatMode::Stuck) block held come at the next
    /// access, unless the new mode is `Stuck` too: a stuck block that recovers finishes the
    /// handshakes it was stuck in (the writes were taken, see the module docs), it does
    /// not forget them. (Assumption: the sources say nothing about a block that stops
    /// acknowledging; this is the conservative reading, since a late acknowledgement is
    /// the case a driver can mistake for the next write's.)
    pub fn set_wstat_mode(&mut self, mode: WstatMode) {
        self.wstat_mode = mode;
        if mode != WstatMode::Stuck {
            for f in &mut self.inflight {
                f.done_at.get_or_insert(0);
            }
        }
    }

    /// Load the FRC from the model side (no WSTAT), e.g. just before a carry.
    pub fn set_frc(&mut self, now_ns: u64, value: u64) {
        self.settle(now_ns);
        self.frc.load(now_ns, value);
        self.last_eval = value;
    }

    /// The true 64-bit FRC value at `now_ns` (no side effects, not a bus read).
    pub fn frc_value(&self, now_ns: u64) -> u64 {
        self.frc.value(now_ns)
    }

    /// The FRC rate.
    pub fn frc_hz(&self) -> u32 {
        self.frc.freq_hz()
    }

    /// When comparator `n`'s current compare value will be reached (if enabled, running
    /// and ahead).
    pub fn comparator_due_ns(&self, now_ns: u64, n: usize) -> Option<u64> {
        let comp = *self.comp.get(n)?;
        if self.g_tcon & map::g_tcon_comp_enable(n) == 0 || comp <= self.frc.value(now_ns) {
            return None;
        }
        self.frc.time_of_value(now_ns, comp)
    }

    /// When local timer `i`'s interrupt counter next expires after the last evaluation
    /// (if running). Evaluation happens on every bus access.
    pub fn local_due_ns(&self, i: usize) -> Option<u64> {
        let l = self.locals.get(i)?;
        if !l.active || l.period == 0 {
            return None;
        }
        let hz = u128::from(self.frc_rate());
        let k = u128::from(l.expired) + 1;
        let clocks = k * u128::from(l.period);
        let ns = (clocks * u128::from(NANOS_PER_SEC)).div_ceil(hz);
        Some(
            l.origin_ns
                .saturating_add(ns.min(u128::from(u64::MAX)) as u64),
        )
    }

    /// The 64-bit compare value comparator `n` holds (what the hardware compares, not
    /// what the driver believes it wrote; no bus access).
    pub fn comparator_value(&self, n: usize) -> Option<u64> {
        self.comp.get(n).copied()
    }

    /// Matches of comparator `n` so far (latched or not acknowledged).
    pub fn comparator_matches(&self, n: usize) -> u64 {
        self.matches.get(n).copied().unwrap_or(0)
    }

    /// Expiries of local timer `i`'s interrupt counter so far.
    pub fn local_fires(&self, i: usize) -> u64 {
        self.locals.get(i).map_or(0, |l| l.fires)
    }

    /// Buffered writes dropped because the previous write to the same register was not
    /// acknowledged yet.
    pub fn lost_writes(&self) -> u64 {
        self.lost_writes
    }

    /// The driver configuration that matches this model: its input clock and local timers,
    /// and `local_icntb_plus_one` (the model counts `ICNTB + 1` ticks per interval, as
    /// QEMU does), so local timers fire exactly `delta` ticks after they start.
    pub fn driver_config(&self) -> crate::Config {
        crate::Config {
            input_hz: self.input_hz,
            local_timers: self.locals.len(),
            local_icntb_plus_one: true,
            local_irq: self.local_irq,
            ..crate::Config::default()
        }
    }

    /// A suspend that cuts the block's power: every register returns to its reset value
    /// (FRC stopped at 0, comparators and local timers off and cleared, no acknowledgement
    /// pending). Assumption: the MCT is not in an always-on domain (not documented either
    /// way; Linux's resume restarts the FRC as if it may have stopped).
    pub fn power_loss(&mut self, now_ns: u64) {
        self.settle(now_ns);
        let mut fresh = Self::new(self.input_hz, self.locals.len()).with_wstat(self.wstat_mode);
        fresh.lost_writes = self.lost_writes;
        fresh.local_irq = self.local_irq;
        fresh.forced = std::mem::take(&mut self.forced);
        // Counters that advance with virtual time restart from `now_ns`.
        fresh.frc.load(now_ns, 0);
        *self = fresh;
    }

    /// The level of comparator `n`'s interrupt output at `now_ns`: `G_INT_CSTAT` AND
    /// `G_INT_ENB` (no bus access, no virtual time).
    pub fn comparator_line(&mut self, now_ns: u64, n: usize) -> bool {
        self.settle(now_ns);
        let bit = map::g_int_comp(n);
        bit != 0 && self.g_int_cstat & self.g_int_enb & bit != 0
    }

    /// The level of local timer `i`'s interrupt output at `now_ns`: `L_INT_CSTAT` AND
    /// `L_INT_ENB` (no bus access, no virtual time).
    pub fn local_line(&mut self, now_ns: u64, i: usize) -> bool {
        self.settle(now_ns);
        self.locals
            .get(i)
            .is_some_and(|l| l.int_cstat & l.int_enb != 0)
    }

    /// When the model raises its next interrupt at or after `now_ns`: `now_ns` if a line is
    /// already high (status AND enable), else the earliest match of a comparator enabled
    /// in `G_TCON` and `G_INT_ENB`, or expiry of a local timer's interrupt counter with
    /// `L_INT_ENB.ICNT` set (the local FRC's interrupt, which the driver never enables, is
    /// not looked ahead for). `None` when nothing is armed.
    pub fn next_irq_ns(&mut self, now_ns: u64) -> Option<u64> {
        self.settle(now_ns);
        let comparators = 0..map::NUM_COMPARATORS;
        let locals = 0..self.locals.len();
        let high = comparators.clone().any(|n| self.comparator_line(now_ns, n))
            || locals.clone().any(|i| self.local_line(now_ns, i));
        if high {
            return Some(now_ns);
        }
        let comp = comparators
            .filter(|&n| self.g_int_enb & map::g_int_comp(n) != 0)
            .filter_map(|n| self.comparator_due_ns(now_ns, n));
        let local = locals
            .filter(|&i| self.locals[i].int_enb & map::L_INT_ICNT != 0)
            .filter_map(|i| self.local_due_ns(i));
        comp.chain(local).min()
    }

    /// Whether comparator `n` is enabled in `G_TCON` (what the register holds).
    pub fn comparator_enabled(&self, n: usize) -> bool {
        let bit = map::g_tcon_comp_enable(n);
        bit != 0 && self.g_tcon & bit != 0
    }

    /// Whether local timer `i` counts (its interrupt counter runs).
    pub fn local_running(&self, i: usize) -> bool {
        self.locals.get(i).is_some_and(|l| l.active)
    }

    /// Fault injection: reads of `offset` return `value` (or behave again with `None`).
    pub fn force_read(&mut self, offset: usize, value: Option<u32>) {
        self.forced.retain(|(o, _)| *o != offset);
        if let Some(v) = value {
            self.forced.push((offset, v));
        }
    }

    fn set_status(&mut self, status: usize, mask: u32) {
        if status == map::G_CNT_WSTAT {
            self.cnt_wstat |= mask;
        } else if status == map::G_WSTAT {
            self.g_wstat |= mask;
        } else if let Some(l) = Self::local_index(status).and_then(|i| self.locals.get_mut(i)) {
            l.wstat |= mask;
        }
    }

    fn local_index(offset: usize) -> Option<usize> {
        offset
            .checked_sub(map::LOCAL_BASE)
            .map(|o| o / map::LOCAL_STRIDE)
    }

    fn settle(&mut self, now: u64) {
        // Acknowledgements that came due.
        let mut i = 0;
        while i < self.inflight.len() {
            let f = self.inflight[i];
            if f.done_at.is_some_and(|t| t <= now) {
                self.set_status(f.status, f.mask);
                self.inflight.swap_remove(i);
            } else {
                i += 1;
            }
        }
        // Comparator matches between the last evaluation and now.
        let cur = self.frc.value(now);
        if cur > self.last_eval {
            for n in 0..map::NUM_COMPARATORS {
                if self.g_tcon & map::g_tcon_comp_enable(n) == 0 {
                    continue;
                }
                let comp = self.comp[n];
                if comp > self.last_eval && comp <= cur {
                    self.g_int_cstat |= map::g_int_comp(n);
                    let incr = u64::from(self.add_incr[n]);
                    if self.g_tcon & map::g_tcon_auto_inc(n) != 0 && incr > 0 {
                        let k = (cur - comp) / incr + 1;
                        self.matches[n] += k;
                        self.comp[n] = comp.wrapping_add(k.wrapping_mul(incr));
                    } else {
                        self.matches[n] += 1;
                    }
                }
            }
        }
        self.last_eval = cur;
        let hz = self.frc_rate();
        for l in &mut self.locals {
            l.settle(now, hz);
        }
    }

    /// A buffered write: dropped if the same register is still unacknowledged, else
    /// applied by `apply` and acknowledged according to the mode.
    fn buffered(
        &mut self,
        now: u64,
        reg: usize,
        status: usize,
        mask: u32,
        apply: impl FnOnce(&mut Self),
    ) {
        if self.inflight.iter().any(|f| f.reg == reg) {
            self.lost_writes += 1;
            return;
        }
        apply(self);
        match self.wstat_mode {
            WstatMode::Immediate => self.set_status(status, mask),
            WstatMode::Delay(d) => self.inflight.push(Inflight {
                reg,
                status,
                mask,
                done_at: Some(now.saturating_add(d)),
            }),
            WstatMode::Stuck => self.inflight.push(Inflight {
                reg,
                status,
                mask,
                done_at: None,
            }),
        }
    }

    fn frc_rate(&self) -> u32 {
        let p = self.cfg & map::MCT_CFG_PRESCALER_MASK;
        let d = (self.cfg >> map::MCT_CFG_DIVIDER_SHIFT) & map::MCT_CFG_DIVIDER_MASK;
        (self.input_hz / ((p + 1) << d)).max(1)
    }

    fn write_global(&mut self, now: u64, offset: usize, value: u32) {
        let gw = map::G_WSTAT;
        let cw = map::G_CNT_WSTAT;
        match offset {
            map::MCT_CFG => {
                // MCT_CFG: change the rate of every timer, keeping each count.
                let old_hz = self.frc_rate();
                self.cfg = value
                    & (map::MCT_CFG_PRESCALER_MASK
                        | map::MCT_CFG_DIVIDER_MASK << map::MCT_CFG_DIVIDER_SHIFT);
                let new_hz = self.frc_rate();
                for l in &mut self.locals {
                    l.rebase(now, old_hz, new_hz);
                }
                let v = self.frc.value(now);
                let running = self.frc.is_running();
                let mut c = Counter::new(64, self.frc_rate());
                c.load(now, v);
                if running {
                    c.start(now);
                }
                self.frc = c;
            }
            map::G_CNT_L | map::G_CNT_U => {
                let mask = if offset == map::G_CNT_L {
                    map::G_CNT_WSTAT_L
                } else {
                    map::G_CNT_WSTAT_U
                };
                self.buffered(now, offset, cw, mask, |m| {
                    let v = m.frc.value(now);
                    let new = if offset == map::G_CNT_L {
                        (v & !0xFFFF_FFFF) | u64::from(value)
                    } else {
                        (v & 0xFFFF_FFFF) | (u64::from(value) << 32)
                    };
                    m.frc.load(now, new);
                    m.last_eval = new;
                });
            }
            map::G_CNT_WSTAT => self.cnt_wstat = w1c(self.cnt_wstat, value),
            map::G_COMP0_L..=map::G_COMP_LAST => {
                let n = (offset - map::G_COMP0_L) / map::COMP_STRIDE;
                match (offset - map::G_COMP0_L) % map::COMP_STRIDE {
                    0x0 => self.buffered(now, offset, gw, map::g_wstat_comp_l(n), |m| {
                        m.comp[n] = (m.comp[n] & !0xFFFF_FFFF) | u64::from(value);
                    }),
                    COMP_U => self.buffered(now, offset, gw, map::g_wstat_comp_u(n), |m| {
                        m.comp[n] = (m.comp[n] & 0xFFFF_FFFF) | (u64::from(value) << 32);
                    }),
                    COMP_ADD_INCR => {
                        self.buffered(now, offset, gw, map::g_wstat_comp_add_incr(n), |m| {
                            m.add_incr[n] = value;
                        })
                    }
                    _ => {}
                }
            }
            map::G_TCON => {
                let mask = map::G_WSTAT_TCON;
                self.buffered(now, offset, gw, mask, |m| {
                    let enable = map::G_TCON_TIMER_ENABLE;
                    if value & enable != 0 {
                        m.frc.start(now);
                    } else {
                        m.frc.stop(now);
                    }
                    m.g_tcon = value & map::G_TCON_DEFINED;
                });
            }
            map::G_INT_CSTAT => self.g_int_cstat = w1c(self.g_int_cstat, value),
            map::G_INT_ENB => self.g_int_enb = value & map::G_INT_DEFINED,
            map::G_WSTAT => self.g_wstat = w1c(self.g_wstat, value),
            _ => {}
        }
    }

    fn write_local(&mut self, now: u64, i: usize, reg: usize, value: u32) {
        if i >= self.locals.len() {
            return;
        }
        let offset = map::LOCAL_BASE + i * map::LOCAL_STRIDE + reg;
        let status = map::LOCAL_BASE + i * map::LOCAL_STRIDE + map::L_WSTAT;
        match reg {
            map::L_TCNTB => self.buffered(now, offset, status, map::L_WSTAT_TCNTB, |m| {
                m.locals[i].tcntb = value
            }),
            map::L_ICNTB => self.buffered(now, offset, status, map::L_WSTAT_ICNTB, |m| {
                let l = &mut m.locals[i];
                l.icntb = value & map::L_ICNTB_COUNT_MASK;
                if value & map::L_ICNTB_MANUAL_UPDATE != 0 && l.active {
                    l.start_icnt(now);
                }
            }),
            map::L_FRCNTB => self.buffered(now, offset, status, map::L_WSTAT_FRCNTB, |m| {
                m.locals[i].frcntb = value
            }),
            map::L_TCON => self.buffered(now, offset, status, map::L_WSTAT_TCON, |m| {
                let l = &mut m.locals[i];
                let was = Local::running_bits(l.tcon);
                let is = Local::running_bits(value);
                if is && !was {
                    l.start_icnt(now);
                } else if !is {
                    l.active = false;
                }
                let frc = map::L_TCON_FRC_START;
                if value & frc != 0 && l.tcon & frc == 0 {
                    l.lfrc_active = true;
                    l.lfrc_origin_ns = now;
                    l.lfrc_expired = 0;
                    l.lfrc_reload = if l.frcntb == 0 {
                        1 << 32
                    } else {
                        u64::from(l.frcntb)
                    };
                } else if value & frc == 0 {
                    l.lfrc_active = false;
                }
                l.tcon = value & map::L_TCON_DEFINED;
            }),
            map::L_INT_CSTAT => self.locals[i].int_cstat = w1c(self.locals[i].int_cstat, value),
            map::L_INT_ENB => self.locals[i].int_enb = value & map::L_INT_DEFINED,
            map::L_WSTAT => self.locals[i].wstat = w1c(self.locals[i].wstat, value),
            _ => {}
        }
    }

    fn read_reg(&self, now: u64, offset: usize) -> u32 {
        let hz = self.frc_rate();
        match offset {
            map::MCT_CFG => self.cfg,
            map::G_CNT_L => self.frc.value(now) as u32,
            map::G_CNT_U => (self.frc.value(now) >> 32) as u32,
            map::G_CNT_WSTAT => self.cnt_wstat,
            map::G_COMP0_L..=map::G_COMP_LAST => {
                let n = (offset - map::G_COMP0_L) / map::COMP_STRIDE;
                match (offset - map::G_COMP0_L) % map::COMP_STRIDE {
                    0x0 => self.comp[n] as u32,
                    COMP_U => (self.comp[n] >> 32) as u32,
                    COMP_ADD_INCR => self.add_incr[n],
                    _ => 0,
                }
            }
            map::G_TCON => self.g_tcon,
            map::G_INT_CSTAT => self.g_int_cstat,
            map::G_INT_ENB => self.g_int_enb,
            map::G_WSTAT => self.g_wstat,
            o if (map::LOCAL_BASE..map::WINDOW_LEN).contains(&o) => {
                let i = (o - map::LOCAL_BASE) / map::LOCAL_STRIDE;
                let Some(l) = self.locals.get(i) else {
                    return 0;
                };
                match (o - map::LOCAL_BASE) % map::LOCAL_STRIDE {
                    map::L_TCNTB => l.tcntb,
                    map::L_TCNTO => l.tcnto(now, hz),
                    map::L_ICNTB => l.icntb,
                    map::L_ICNTO => l.icnto(now, hz),
                    map::L_FRCNTB => l.frcntb,
                    map::L_FRCNTO => l.frcnto(now, hz),
                    map::L_TCON => l.tcon,
                    map::L_INT_CSTAT => l.int_cstat,
                    map::L_INT_ENB => l.int_enb,
                    map::L_WSTAT => l.wstat,
                    _ => 0,
                }
            }
            _ => 0,
        }
    }
}

/// The model's interrupt lines as hwtimer-core's [`IrqSource`]: `run_virtual` (and any
/// test) moves virtual time to the next interrupt of any channel with
/// `advance_to_next` ([`MctModel::next_irq_ns`] says which).
///
/// ```
/// use exynos_mct::sim::{MctIrqs, MctModel};
/// use exynos_mct::{Config, Mct};
/// use hwtimer_core::ClockEvent;
/// use hwtimer_core::sim::{IrqSource, SimBus, SimClock};
///
/// let clock = SimClock::new();
/// let bus = SimBus::new(&clock, MctModel::exynos4210());
/// let mct = Mct::new(bus.clone(), Config::default()).unwrap();
/// mct.start_frc().unwrap();
/// let irqs = MctIrqs::new(&bus);
/// assert_eq!((&irqs).advance_to_next(), None); // nothing armed
/// let mut comp = mct.comparator(0).unwrap();
/// comp.set_next_event(2_400).unwrap(); // 100 µs
/// let at = (&irqs).advance_to_next().unwrap();
/// assert_eq!(clock.now_ns(), at);
/// assert!(comp.ack());
/// ```
#[derive(Clone)]
pub struct MctIrqs {
    bus: SimBus<MctModel>,
}

impl MctIrqs {
    /// The interrupt lines of the model behind `bus` (a clone of the bus is kept: no MMIO
    /// access is made, none is counted).
    pub fn new(bus: &SimBus<MctModel>) -> Self {
        Self { bus: bus.clone() }
    }
}

impl IrqSource for &MctIrqs {
    /// Move the clock to the model's next interrupt ([`MctModel::next_irq_ns`]) and return
    /// its time, or `None` (the clock untouched) when nothing is armed.
    fn advance_to_next(&mut self) -> Option<u64> {
        let clock = self.bus.clock();
        let at = self.bus.model(|m| m.next_irq_ns(clock.now_ns()))?;
        clock.advance_to(at);
        Some(at)
    }
}

impl SimModel for MctModel {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        if offset >= map::WINDOW_LEN || !offset.is_multiple_of(4) {
            return u32::MAX;
        }
        self.settle(now_ns);
        if let Some((_, v)) = self.forced.iter().find(|(o, _)| *o == offset) {
            return *v;
        }
        self.read_reg(now_ns, offset)
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        if offset >= map::WINDOW_LEN || !offset.is_multiple_of(4) {
            return;
        }
        self.settle(now_ns);
        if offset >= map::LOCAL_BASE {
            let i = (offset - map::LOCAL_BASE) / map::LOCAL_STRIDE;
            let reg = (offset - map::LOCAL_BASE) % map::LOCAL_STRIDE;
            self.write_local(now_ns, i, reg, value);
        } else {
            self.write_global(now_ns, offset, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK_NS: u64 = 1_000_000_000 / 24_000_000; // 41 (41.67) ns

    #[test]
    fn frc_runs_only_when_enabled_at_24mhz() {
        let mut m = MctModel::exynos4210();
        assert_eq!(m.read(1_000_000, 0x100), 0);
        m.write(1_000_000, 0x240, 1 << 8);
        // 1 ms at 24 MHz is 24 000 ticks (`docs/exynos-mct.md`).
        assert_eq!(m.read(2_000_000, 0x100), 24_000);
        assert_eq!(m.read(2_000_000, 0x24C), 1 << 16);
        m.write(2_000_000, 0x24C, 1 << 16);
        assert_eq!(m.read(2_000_000, 0x24C), 0);
    }

    #[test]
    fn low_word_carry_tears_a_lo_then_hi_read() {
        let mut m = MctModel::exynos4210().with_frc(0xFFFF_FFFF);
        m.write(0, 0x240, 1 << 8);
        let lo = m.read(0, 0x100);
        let hi = m.read(100, 0x104); // one tick later the low word carried
        assert_eq!((hi, lo), (1, 0xFFFF_FFFF)); // naive value 0x1_FFFF_FFFF: 2^32 too far
        assert_eq!(m.frc_value(100), 0x1_0000_0001);
    }

    #[test]
    fn delayed_wstat_and_lost_second_write() {
        let mut m = MctModel::exynos4210().with_wstat(WstatMode::Delay(500));
        m.write(0, 0x200, 5);
        assert_eq!(m.read(499, 0x24C), 0);
        m.write(499, 0x200, 6); // not acknowledged yet: dropped
        assert_eq!(m.lost_writes(), 1);
        assert_eq!(m.read(500, 0x24C), 1);
        assert_eq!(m.read(500, 0x200), 5);
    }

    #[test]
    fn comparator_latches_and_auto_increments() {
        let mut m = MctModel::exynos4210();
        m.write(0, 0x200, 2400); // 100 µs
        m.write(0, 0x208, 2400);
        m.write(0, 0x240, (1 << 8) | 0b11);
        assert_eq!(m.read(99_999, 0x244), 0);
        assert_eq!(m.read(100_000, 0x244), 1);
        m.write(100_000, 0x244, 1);
        assert_eq!(m.read(350_000, 0x200), 2400 * 4); // matched at 100, 200, 300 µs
        assert_eq!(m.comparator_matches(0), 3);
        let _ = TICK_NS;
    }

    #[test]
    fn local_timer_interval_and_manual_update() {
        let mut m = MctModel::exynos4210();
        m.write(0, 0x300, 1); // TCNTB = 1: tick every 2 clocks
        m.write(0, 0x308, (1 << 31) | 99); // 100 ticks = 200 clocks = 8333 ns
        m.write(0, 0x320, 0b111);
        assert_eq!(m.read(8_333, 0x330), 0);
        assert_eq!(m.read(8_334, 0x330), 1);
        assert_eq!(m.read(8_334 * 3, 0x330), 1);
        assert_eq!(m.local_fires(0), 3);
    }
}
