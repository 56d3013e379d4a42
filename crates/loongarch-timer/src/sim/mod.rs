//! Behavioural model of a LoongArch core's timer: the stable counter, the constant timer
//! CSRs, the interrupt CSRs and the CPUCFG words (feature `sim`, host only).
//!
//! [`LoongArchCore`] is a [`SimModel`] over `u64` words whose "offsets" are CSR numbers,
//! so the driver runs on a [`SimBus`] exactly as it runs on [`NativeCsr`](crate::csr) on
//! hardware; [`SimCsr`] (a [`SimBus`]`<LoongArchCore>`, with every `SimBus` method)
//! implements [`Csr`], routing `cpucfg` and `rdtime.d` through the bus as well (at the
//! pseudo-offsets [`SIM_CPUCFG_BASE`] and [`SIM_RDTIME`], outside the 14-bit CSR space),
//! so every instruction is counted and charged virtual time like a CSR access. `&SimCsr`
//! is the model's [`IrqSource`]: [`advance_to_next`](IrqSource::advance_to_next) moves the
//! clock to the timer's next expiry.
//!
//! | module | what it holds |
//! |---|---|
//! | this one | the model, [`SimCsr`], [`qemu_alarm`] |
//! | `linux` | (feature `unstable-baselines`) Linux's clockevent sequences on the model, the baseline the driver is compared with |
//! | `seed` | (feature `unstable-baselines`) the `min_delta` experiment: a 5 µs request and a batch of timers under a fixed `min_delta` |
//!
//! The two baselines are for this crate's own benchmarks and seed-proof tests: not part of
//! the public API, no semver promise.
//!
//! # What is modelled, and the source of each behaviour
//!
//! (`docs/loongarch-timer.md`; the CSR numbers and fields are the model's own, [`map`], each
//! cited there to the LoongArch Reference Manual, QEMU `target/loongarch` and Linux, never
//! the driver's; `tests/model/register_map.rs` compares the two)
//! - **Cores**: one stable counter for the chip; the timer CSRs, the interrupt CSRs and
//!   CNTC are banked per core, the bank picked by [`SimCpu::current`] of the thread making
//!   the access (as hardware picks the executing core's CSRs); `CPUID.CoreID` reads that
//!   number. [`SmpCsr`] shares one chip between threads acting as cores.
//! - **Stable counter**: a 64-bit counter at the configured frequency advancing with the
//!   [`SimClock`] (`rdtime = floor(t · f)` + start value). On hardware `rdtime` adds CNTC;
//!   QEMU TCG ignores it ([`LoongArchCore::qemu_virt`] models that quirk).
//! - **Timer**: writing TCFG with EN = 1 loads the count `TCFG & 0xFFFF_FFFF_FFFC` (InitVal's
//!   low two bits masked) and the timer fires when the stable counter has advanced by that
//!   count since the write (it counts on the same clock edges). On expiry ESTAT.TI is set;
//!   periodic mode reloads with the same count (no drift), oneshot mode clears TCFG.EN.
//!   EN = 0 stops it. A count of 0 fires at once (and does not repeat).
//! - **TVAL** counts down: while running it reads the ticks left. When stopped it reads 0,
//!   except in the QEMU flavour, which reproduces QEMU's unsigned wrap after a oneshot
//!   expired (`(expiry − now) / 10 ns` → near 0x1999_9999_999x_xxxx, docs/loongarch-timer.md#qemu-model).
//! - **ESTAT.TI latches** until 1 is written to TICLR bit 0; writes to ESTAT only change
//!   the two software-interrupt bits `IS[1:0]`.
//! - **ECFG** (LIE `[12:0]`, VS `[18:16]`) and **CRMD** (IE bit 2) are stored;
//!   [`LoongArchCore::interrupt_taken`] says whether the core would take an interrupt
//!   (CRMD.IE and ESTAT.IS & ECFG.LIE ≠ 0).
//! - **CPUCFG words** are configurable, including an absent timer
//!   ([`LoongArchCore::without_constant_timer`]) and zero frequencies
//!   ([`LoongArchCore::with_cpucfg`]).
//! - CSR numbers the model does not know read as all ones; writes to them are dropped.
//!   PRCFG1 reads 0 (its TimerBits semantics are unverified).
//! - A dead core (every read returns one value) is hwtimer-core's
//!   [`SimBus::go_dead`], which [`SimCsr`] has.
//!
//! The QEMU flavour's CPUCFG words are the ones the QEMU 10 probe printed (docs/loongarch-timer.md#qemu-model).

use core::ops::Deref;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use hwtimer_core::sim::model::Counter;
use hwtimer_core::sim::{IrqSource, SimBus, SimClock, SimCpu, SimModel};
use hwtimer_core::{Alarm, ClockEvent, Error, RegisterBus};

#[cfg(feature = "unstable-baselines")]
pub mod linux;
pub mod map;
#[cfg(feature = "unstable-baselines")]
pub mod seed;

use crate::clockevent::{Config, ConstantTimer};
use crate::clocksource::StableCounter;
use crate::cpucfg::ConstantClock;
use crate::csr::Csr;
use map::{
    CPUCFG_CC_FREQ, CPUCFG_CC_MUL_DIV, CPUCFG2_LLFTP, CSR_BADV, CSR_CNTC, CSR_CPUID, CSR_CRMD,
    CSR_ECFG, CSR_EENTRY, CSR_ERA, CSR_ESTAT, CSR_EUEN, CSR_PRCFG1, CSR_PRMD, CSR_TCFG, CSR_TICLR,
    CSR_TMID, CSR_TVAL, INT_TI, TCFG_EN, TCFG_INITVAL, TCFG_PERIODIC,
};

/// Pseudo-offset of `rdtime.d` on a [`SimCsr`] (outside the 14-bit CSR number space).
pub const SIM_RDTIME: usize = 0x1_0000;
/// Pseudo-offset of `cpucfg` word 0 on a [`SimCsr`]; word `n` is at `SIM_CPUCFG_BASE + n`.
pub const SIM_CPUCFG_BASE: usize = 0x2_0000;
/// Virtual time charged per CSR access, `cpucfg` or `rdtime.d` by [`sim_csr`]: 1 ns, one
/// instruction at QEMU's `-icount shift=0`.
pub const SIM_CSR_NS: u64 = 1;
/// The stable counter frequency of QEMU's virt machine (CPUCFG4 = 100,000,000, 1/1).
pub const QEMU_FREQ_HZ: u32 = 100_000_000;
/// CPUCFG words 0–5 as QEMU 10's la464 reports them (docs/loongarch-timer.md#qemu-model).
pub const QEMU_CPUCFG: [u32; 6] = [
    0x0014_c010,
    0x03f2_f2fe,
    0x0060_c0cf,
    0,
    100_000_000,
    0x0001_0001,
];

/// Number of CPUCFG words the model holds (0..=0x14 are architected); others read 0.
const CPUCFG_WORDS: usize = 0x15;

const TI: u64 = 1 << INT_TI;
const ECFG_MASK: u64 = map::ECFG_LIE | map::ECFG_VS;
const CRMD_IE: u64 = map::CRMD_IE;

/// One core's banked timer CSRs: every core has its own copy, picked by the core that
/// executes the access ([`SimCpu::current`]).
#[derive(Debug, Clone)]
struct Bank {
    cntc: u64,
    crmd: u64,
    prmd: u64,
    euen: u64,
    ecfg: u64,
    estat_is: u64,
    era: u64,
    badv: u64,
    eentry: u64,
    tmid: u64,
    tcfg: u64,
    armed_at_ns: u64,
    target: Option<u64>,
    last_expiry_ns: Option<u64>,
    fired: u64,
    last_fire_ns: Option<u64>,
    tcfg_writes: u64,
}

impl Bank {
    /// After reset: CRMD = 0x8 (DA, PLV0, IE off), everything else 0.
    const RESET: Self = Self {
        cntc: 0,
        crmd: map::CRMD_DA,
        prmd: 0,
        euen: 0,
        ecfg: 0,
        estat_is: 0,
        era: 0,
        badv: 0,
        eentry: 0,
        tmid: 0,
        tcfg: 0,
        armed_at_ns: 0,
        target: None,
        last_expiry_ns: None,
        fired: 0,
        last_fire_ns: None,
        tcfg_writes: 0,
    };

    /// Latch every expiry of this core's timer up to `now_ns`.
    fn catch_up(&mut self, counter: &Counter, now_ns: u64) {
        while let Some(target) = self.target {
            if counter.value(now_ns) < target {
                break;
            }
            let at = time_of(counter, target).max(self.armed_at_ns);
            self.estat_is |= TI;
            self.fired += 1;
            self.last_fire_ns = Some(at);
            let count = self.tcfg & TCFG_INITVAL;
            if self.tcfg & TCFG_PERIODIC != 0 && count != 0 {
                self.target = Some(target.saturating_add(count));
                self.armed_at_ns = at;
            } else {
                self.tcfg &= !TCFG_EN;
                self.target = None;
                self.last_expiry_ns = Some(at);
            }
        }
    }

    fn next_fire_ns(&self, counter: &Counter) -> Option<u64> {
        self.target
            .map(|t| time_of(counter, t).max(self.armed_at_ns))
    }
}

/// The absolute time at which `counter` first shows `value` (it runs from t = 0 and never
/// stops; for values not below the start value).
fn time_of(counter: &Counter, value: u64) -> u64 {
    counter.time_of_value(0, value).unwrap_or(u64::MAX)
}

/// The model of a LoongArch chip's timer-related state, as its cores see it: **one**
/// stable counter shared by every core, and per core (banked, picked by
/// [`SimCpu::current`] of the thread that makes the access) the constant timer, the
/// interrupt CSRs and CNTC. `CPUID.CoreID` reads the accessing core's number. See the
/// [module docs](self).
///
/// The inspection methods (`fired`, `tcfg_writes`, `next_fire_ns`, ...) look at the bank
/// of the calling thread's core, as the accesses do.
#[derive(Debug, Clone)]
pub struct LoongArchCore {
    counter: Counter,
    cpucfg: [u32; CPUCFG_WORDS],
    cntc_visible: bool,
    qemu_tval_wrap: bool,
    /// Banked state per core number, created at reset values on a core's first access.
    banks: BTreeMap<u32, Bank>,
}

impl LoongArchCore {
    /// A chip whose stable counter runs at `freq_hz` from 0 at t = 0, with hardware
    /// semantics (CNTC shifts `rdtime`, TVAL reads 0 when stopped). CPUCFG2 has LLFTP set,
    /// CPUCFG4 = `freq_hz`, CPUCFG5 = 1/1; every core's CRMD = 0x8 (DA, PLV0, IE off), as
    /// after reset.
    pub fn new(freq_hz: u32) -> Self {
        let mut cpucfg = [0; CPUCFG_WORDS];
        cpucfg[map::CPUCFG_FEATURES] = CPUCFG2_LLFTP;
        cpucfg[CPUCFG_CC_FREQ] = freq_hz;
        // CC_MUL = 1, CC_DIV = 1.
        cpucfg[CPUCFG_CC_MUL_DIV] = 0x0001_0001;
        Self {
            counter: Counter::running_from(64, freq_hz, 0),
            cpucfg,
            cntc_visible: true,
            qemu_tval_wrap: false,
            banks: BTreeMap::new(),
        }
    }

    /// QEMU's virt machine: 100 MHz, QEMU's CPUCFG words 0–5, and QEMU TCG's quirks
    /// (CNTC ignored by `rdtime`, TVAL wraps after a oneshot expired).
    pub fn qemu_virt() -> Self {
        let mut core = Self::new(QEMU_FREQ_HZ);
        core.cpucfg[..QEMU_CPUCFG.len()].copy_from_slice(&QEMU_CPUCFG);
        core.cntc_visible = false;
        core.qemu_tval_wrap = true;
        core
    }

    /// Hardware semantics for CNTC even in the QEMU flavour: `rdtime` adds the core's CNTC
    /// (as a Loongson 3A5000 does; QEMU TCG ignores it).
    pub fn with_cntc_visible(mut self) -> Self {
        self.cntc_visible = true;
        self
    }

    /// Set CPUCFG word `word` (ignored beyond word 0x14). The stable counter keeps its real
    /// rate: this changes what software is told, as a misdescribed core would.
    pub fn with_cpucfg(mut self, word: u32, value: u32) -> Self {
        if let Some(w) = self.cpucfg.get_mut(word as usize) {
            *w = value;
        }
        self
    }

    /// Clear CPUCFG2.LLFTP: the core reports no constant timer.
    pub fn without_constant_timer(mut self) -> Self {
        self.cpucfg[map::CPUCFG_FEATURES] &= !CPUCFG2_LLFTP;
        self
    }

    /// Start the stable counter at `value` at t = 0 (firmware ran before us).
    pub fn with_start_value(mut self, value: u64) -> Self {
        self.counter = Counter::running_from(64, self.counter.freq_hz(), value);
        self
    }

    /// Set core `cpu`'s CNTC as its firmware left it (a chip whose cores' `rdtime` differ).
    pub fn with_cntc(mut self, cpu: u32, cntc: u64) -> Self {
        self.banks.entry(cpu).or_insert(Bank::RESET).cntc = cntc;
        self
    }

    fn raw(&self, now_ns: u64) -> u64 {
        self.counter.value(now_ns)
    }

    /// The calling core's bank.
    fn bank(&self) -> Option<&Bank> {
        self.banks.get(&SimCpu::current())
    }

    /// The calling core's bank, created at reset values, with its expiries latched up to
    /// `now_ns`.
    fn bank_at(&mut self, now_ns: u64) -> &mut Bank {
        let bank = self.banks.entry(SimCpu::current()).or_insert(Bank::RESET);
        bank.catch_up(&self.counter, now_ns);
        bank
    }

    /// The stable counter as `rdtime.d` on the calling core reads it at `now_ns`.
    pub fn rdtime(&self, now_ns: u64) -> u64 {
        let raw = self.raw(now_ns);
        let cntc = self.bank().map_or(0, |b| b.cntc);
        if self.cntc_visible {
            raw.wrapping_add(cntc)
        } else {
            raw
        }
    }

    /// When the calling core's timer fires next, if it runs.
    pub fn next_fire_ns(&self) -> Option<u64> {
        self.bank().and_then(|b| b.next_fire_ns(&self.counter))
    }

    /// Whether the calling core's ESTAT.TI is set at `now_ns`.
    pub fn ti_pending(&mut self, now_ns: u64) -> bool {
        self.bank_at(now_ns).estat_is & TI != 0
    }

    /// Whether the calling core would take an interrupt at `now_ns`: CRMD.IE set and some
    /// bit of ESTAT.IS enabled in ECFG.LIE.
    pub fn interrupt_taken(&mut self, now_ns: u64) -> bool {
        let b = self.bank_at(now_ns);
        b.crmd & CRMD_IE != 0 && b.estat_is & b.ecfg & 0x1FFF != 0
    }

    /// How many times the calling core's timer has fired up to `now_ns`.
    pub fn fired(&mut self, now_ns: u64) -> u64 {
        self.bank_at(now_ns).fired
    }

    /// When the calling core's timer last fired, up to `now_ns`.
    pub fn last_fire_ns(&mut self, now_ns: u64) -> Option<u64> {
        self.bank_at(now_ns).last_fire_ns
    }

    /// How many times the calling core's TCFG was written.
    pub fn tcfg_writes(&self) -> u64 {
        self.bank().map_or(0, |b| b.tcfg_writes)
    }

    /// The calling core's TCFG as last written (EN cleared by a oneshot's expiry), without
    /// an access.
    pub fn tcfg(&self) -> u64 {
        self.bank().map_or(0, |b| b.tcfg)
    }
}

impl SimModel for LoongArchCore {
    type Word = u64;

    fn read(&mut self, now_ns: u64, offset: usize) -> u64 {
        if offset == SIM_RDTIME {
            return self.rdtime(now_ns);
        }
        if let Some(word) = offset.checked_sub(SIM_CPUCFG_BASE)
            && word <= 0xFFFF
        {
            return u64::from(self.cpucfg.get(word).copied().unwrap_or(0));
        }
        let raw = self.raw(now_ns);
        let freq_hz = self.counter.freq_hz();
        let qemu_tval_wrap = self.qemu_tval_wrap;
        let b = self.bank_at(now_ns);
        match offset {
            o if o == CSR_CRMD => b.crmd,
            o if o == CSR_PRMD => b.prmd,
            o if o == CSR_EUEN => b.euen,
            o if o == CSR_ECFG => b.ecfg,
            o if o == CSR_ESTAT => b.estat_is,
            o if o == CSR_ERA => b.era,
            o if o == CSR_BADV => b.badv,
            o if o == CSR_EENTRY => b.eentry,
            o if o == CSR_CPUID => u64::from(SimCpu::current()) & map::CPUID_COREID,
            o if o == CSR_PRCFG1 => 0,
            o if o == CSR_TMID => b.tmid,
            o if o == CSR_TCFG => b.tcfg,
            o if o == CSR_TVAL => match b.target {
                Some(t) => t.saturating_sub(raw),
                None => match b.last_expiry_ns {
                    Some(expiry) if qemu_tval_wrap => {
                        // QEMU: (expire_ns - now_ns) / period_ns in unsigned arithmetic.
                        let period_ns = (1_000_000_000 / u64::from(freq_hz.max(1))).max(1);
                        expiry.wrapping_sub(now_ns) / period_ns
                    }
                    _ => 0,
                },
            },
            o if o == CSR_CNTC => b.cntc,
            o if o == CSR_TICLR => 0,
            _ => u64::MAX,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u64) {
        let raw = self.raw(now_ns);
        let counter = self.counter;
        let b = self.bank_at(now_ns);
        match offset {
            o if o == CSR_CRMD => b.crmd = value & map::CRMD_DEFINED,
            o if o == CSR_PRMD => b.prmd = value & 0xF,
            o if o == CSR_EUEN => b.euen = value & 0xF,
            o if o == CSR_ECFG => b.ecfg = value & ECFG_MASK,
            // Only the software-interrupt bits IS[1:0] are writable.
            o if o == CSR_ESTAT => {
                b.estat_is =
                    (b.estat_is & !map::ESTAT_IS_SOFTWARE) | (value & map::ESTAT_IS_SOFTWARE)
            }
            o if o == CSR_ERA => b.era = value,
            o if o == CSR_BADV => b.badv = value,
            o if o == CSR_EENTRY => b.eentry = value,
            o if o == CSR_TMID => b.tmid = value,
            o if o == CSR_TCFG => {
                b.tcfg_writes += 1;
                b.tcfg = value & (TCFG_INITVAL | TCFG_PERIODIC | TCFG_EN);
                if value & TCFG_EN != 0 {
                    let count = value & TCFG_INITVAL;
                    b.armed_at_ns = now_ns;
                    b.target = Some(raw.saturating_add(count));
                    // A count of 0 expires at once.
                    b.catch_up(&counter, now_ns);
                } else {
                    b.target = None;
                }
            }
            o if o == CSR_CNTC => b.cntc = value,
            o if o == CSR_TICLR && value & map::TICLR_CLR != 0 => b.estat_is &= !TI,
            _ => {}
        }
    }
}

/// The driver's view of a simulated core: a [`SimBus`] in front of a [`LoongArchCore`].
///
/// Every [`SimBus`] method (`model`, `stats`, `counted`, `go_dead`, `clock`, ...) is
/// reached through `Deref`. Clones share the core. Built by [`sim_csr`].
#[derive(Clone)]
pub struct SimCsr(SimBus<LoongArchCore>);

impl SimCsr {
    /// A simulated core behind `bus` (see [`sim_csr`] for the usual costs).
    pub fn new(bus: SimBus<LoongArchCore>) -> Self {
        Self(bus)
    }

    /// The bus itself.
    pub fn bus(&self) -> &SimBus<LoongArchCore> {
        &self.0
    }
}

impl core::fmt::Debug for SimCsr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SimCsr")
            .field("now_ns", &self.clock().now_ns())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Deref for SimCsr {
    type Target = SimBus<LoongArchCore>;
    fn deref(&self) -> &SimBus<LoongArchCore> {
        &self.0
    }
}

impl RegisterBus for SimCsr {
    type Word = u64;
    fn read_word(&self, offset: usize) -> u64 {
        self.0.read_word(offset)
    }
    fn write_word(&self, offset: usize, value: u64) {
        self.0.write_word(offset, value)
    }
}

impl Csr for SimCsr {
    fn cpucfg(&self, word: u32) -> u32 {
        let offset = SIM_CPUCFG_BASE.saturating_add(word.min(0xFFFF) as usize);
        // The model returns the 32-bit word zero-extended.
        self.read_word(offset) as u32
    }

    fn rdtime(&self) -> u64 {
        self.read_word(SIM_RDTIME)
    }
}

/// The model's way to its next interrupt: the clock moves to the timer's next expiry
/// (whatever the interrupt enables say; ESTAT.TI is then set), or nothing moves and `None`
/// comes back when the timer is stopped.
impl IrqSource for &SimCsr {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.model(|m| m.next_fire_ns())?;
        self.clock().advance_to(at);
        Some(at)
    }
}

#[allow(
    unsafe_code,
    reason = "the CNTC write is the unsafe CSR boundary: it shifts time for the whole core"
)]
impl crate::csr::CntcCsr for SimCsr {
    unsafe fn write_cntc(&self, value: u64) {
        self.write_word(CSR_CNTC, value)
    }
}

/// A simulated chip shared by threads that act as its cores ([`SimCpu::enter`]): the same
/// [`LoongArchCore`] model (one stable counter, timer CSRs banked per core) behind a lock,
/// so unlike [`SimCsr`] (whose [`SimBus`] is single-threaded) it is `Send` and `Sync`.
/// Every access (CSR, `cpucfg`, `rdtime.d`) advances the shared clock by [`SIM_CSR_NS`],
/// then reaches the bank of the calling thread's core. Clones share the chip.
#[derive(Clone)]
pub struct SmpCsr {
    chip: Arc<Mutex<LoongArchCore>>,
    clock: SimClock,
    cost_ns: u64,
}

impl SmpCsr {
    /// The chip `chip` on `clock`, each access costing [`SIM_CSR_NS`].
    pub fn new(clock: &SimClock, chip: LoongArchCore) -> Self {
        Self {
            chip: Arc::new(Mutex::new(chip)),
            clock: clock.clone(),
            cost_ns: SIM_CSR_NS,
        }
    }

    /// Run `f` on the model (its inspection methods look at the calling thread's core).
    pub fn model<R>(&self, f: impl FnOnce(&mut LoongArchCore) -> R) -> R {
        let mut chip = self.chip.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut chip)
    }

    /// The clock.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }
}

impl core::fmt::Debug for SmpCsr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SmpCsr")
            .field("now_ns", &self.clock.now_ns())
            .finish_non_exhaustive()
    }
}

impl RegisterBus for SmpCsr {
    type Word = u64;
    fn read_word(&self, offset: usize) -> u64 {
        let mut chip = self.chip.lock().unwrap_or_else(PoisonError::into_inner);
        self.clock.advance(self.cost_ns);
        chip.read(self.clock.now_ns(), offset)
    }
    fn write_word(&self, offset: usize, value: u64) {
        let mut chip = self.chip.lock().unwrap_or_else(PoisonError::into_inner);
        self.clock.advance(self.cost_ns);
        chip.write(self.clock.now_ns(), offset, value)
    }
}

impl Csr for SmpCsr {
    fn cpucfg(&self, word: u32) -> u32 {
        let offset = SIM_CPUCFG_BASE.saturating_add(word.min(0xFFFF) as usize);
        self.read_word(offset) as u32
    }

    fn rdtime(&self) -> u64 {
        self.read_word(SIM_RDTIME)
    }
}

#[allow(
    unsafe_code,
    reason = "the CNTC write is the unsafe CSR boundary: it shifts time for the whole core"
)]
impl crate::csr::CntcCsr for SmpCsr {
    unsafe fn write_cntc(&self, value: u64) {
        self.write_word(CSR_CNTC, value)
    }
}

/// The calling thread's core's next interrupt: the clock moves to its timer's next expiry.
impl IrqSource for &SmpCsr {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.model(|m| m.next_fire_ns())?;
        self.clock.advance_to(at);
        Some(at)
    }
}

#[allow(
    unsafe_code,
    reason = "the model's mirror of the native Send/Sync/CpuLocal impls, for two-thread tests"
)]
mod smp_send {
    use super::SmpCsr;
    use crate::ConstantTimer;
    use crate::pinned::{PinnedCounter, PinnedTimer};

    // SAFETY: as for `NativeCsr` (crate::pinned's native impls): every CSR access of a
    // `PinnedTimer` is checked against the core that made it, and `SmpCsr` routes each
    // access to the bank of the calling thread's core as hardware does; `SmpCsr` itself
    // is `Send` and `Sync` (an `Arc<Mutex<_>>` and an atomic clock).
    unsafe impl Send for PinnedTimer<SmpCsr> {}
    // SAFETY: as above; through `&PinnedTimer` only CPUID is read.
    unsafe impl Sync for PinnedTimer<SmpCsr> {}
    // SAFETY: as for `NativeCsr`: `rdtime.d` reads the one shared counter on any core.
    unsafe impl Send for PinnedCounter<SmpCsr> {}
    // SAFETY: as above; the shared state is one atomic.
    unsafe impl Sync for PinnedCounter<SmpCsr> {}
    // SAFETY: as for `ConstantTimer<NativeCsr>`: its registers are the calling core's bank.
    unsafe impl hwtimer_core::cpu::CpuLocal for ConstantTimer<SmpCsr> {}
}

/// A simulated core on `clock`, every access (CSR, `cpucfg`, `rdtime.d`) costing
/// [`SIM_CSR_NS`].
pub fn sim_csr(clock: &SimClock, core: LoongArchCore) -> SimCsr {
    SimCsr(SimBus::new(clock, core).with_costs(SIM_CSR_NS, SIM_CSR_NS))
}

/// An [`Alarm`] on the model: the driver's clockevent and clocksource on one [`SimCsr`].
pub type SimAlarm = Alarm<ConstantTimer<SimCsr>, StableCounter<SimCsr>>;

/// An [`Alarm`] on a simulated QEMU virt core (100 MHz), with the timer interrupt enabled
/// in ECFG and CRMD.IE set, and the clock moved to a 10 µs boundary (a counter edge).
///
/// Errors: those of [`ConstantClock::probe`], [`ConstantTimer::new`] and [`Alarm::new`].
pub fn qemu_alarm(clock: &SimClock, config: Config) -> Result<(SimCsr, SimAlarm), Error> {
    let csr = sim_csr(clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr)?;
    let counter = StableCounter::new(csr.clone(), freq);
    let mut timer = ConstantTimer::new(csr.clone(), freq, config)?;
    timer.shutdown();
    timer.enable_interrupt();
    csr.write_word(CSR_CRMD, 0x8 | CRMD_IE);
    clock.advance_to(clock.now_ns().div_ceil(10_000) * 10_000);
    Ok((csr, Alarm::new(timer, counter)?))
}
