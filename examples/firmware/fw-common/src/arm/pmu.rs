//! The ARMv7 PMU: the cycle counter (PMCCNTR) and event counter 0 counting instructions.
//!
//! Two instruments, and why the boards need both:
//!
//! * **PMCCNTR** ([`cycles`]): QEMU derives it from virtual time at 1 GHz, so it counts
//!   virtual **nanoseconds**, not CPU work. Under `-icount shift=N` one instruction takes
//!   2^N ns, so the same code shows 2^N times as many "cycles" at shift N as at shift 0.
//! * **Event counter 0 on event 0x08**, instruction architecturally executed
//!   ([`instructions`]): QEMU's Cortex-A9 counts it under a fixed `-icount shift=N`, from the
//!   instruction count itself, so it is the same at every shift; instruction figures
//!   (`bench:` lines) and the CPU-work part of the latency bounds are measured with it. Under
//!   `-icount shift=auto` or without `-icount` it stays 0 (checked on QEMU 10). The A9 has no
//!   PMCEID0 in QEMU (reading it is undefined), so the [`Meter`] finds out by counting.
//!
//! The ratio of the two over the same span is the emulation speed ([`Speed`]): exactly 2^N ns
//! per instruction under `-icount shift=N`. The boards use it to turn a bound made of
//! instructions ([`Bound`](crate::icount::Bound)) into timer ticks at whatever speed QEMU
//! runs.
//!
//! PMSELR stays 0 after [`enable`], so [`instructions`] is a single `mrc` of PMXEVCNTR and can
//! be read from the interrupt handler as well.

use crate::icount::Speed;
use hwtimer_core::{Clocksource, Continuous};

/// PMU event number: instruction architecturally executed (ARMv7 PMU common event 0x08).
pub const EVENT_INST_RETIRED: u32 = 0x08;

/// Enables the cycle counter and event counter 0 on [`EVENT_INST_RETIRED`], resets both
/// (PMCR.E, PMCR.P, PMCR.C) and leaves PMSELR at 0.
pub fn enable() {
    // SAFETY: PMU control registers, accessible at PL1; no memory is touched. The sequence
    // selects counter 0 (PMSELR), sets its event type (PMXEVTYPER, no filtering: counts at
    // every privilege level), enables it and the cycle counter (PMCNTENSET bits 0 and 31)
    // and then resets and starts all counters (PMCR = E | P | C).
    unsafe {
        core::arch::asm!(
            "mov {t}, #0",
            "mcr p15, 0, {t}, c9, c12, 5",
            "mcr p15, 0, {e}, c9, c13, 1",
            "mov {t}, #0x80000000",
            "orr {t}, {t}, #1",
            "mcr p15, 0, {t}, c9, c12, 1",
            "mrc p15, 0, {t}, c9, c12, 0",
            "orr {t}, {t}, #7",
            "mcr p15, 0, {t}, c9, c12, 0",
            "isb",
            t = out(reg) _,
            e = in(reg) EVENT_INST_RETIRED,
            options(nomem, nostack),
        );
    }
}

/// Reads PMCCNTR: virtual nanoseconds under QEMU (see the module docs), not instructions.
#[inline(always)]
pub fn cycles() -> u32 {
    let v: u32;
    // SAFETY: reading PMCCNTR at PL1 has no side effects.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c9, c13, 0", out(reg) v, options(nomem, nostack));
    }
    v
}

/// Reads event counter 0 (PMXEVCNTR with PMSELR = 0): instructions executed since
/// [`enable`] under a fixed `-icount` shift, 0 otherwise (see the module docs).
#[inline(always)]
pub fn instructions() -> u32 {
    let v: u32;
    // SAFETY: reading PMXEVCNTR at PL1 has no side effects; PMSELR is 0 since `enable`.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c9, c13, 2", out(reg) v, options(nomem, nostack));
    }
    v
}

/// Instructions and virtual nanoseconds (PMCCNTR) read together, to time a span in both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// [`instructions`] at the stamp.
    pub insns: u32,
    /// [`cycles`] at the stamp: virtual nanoseconds.
    pub ns: u32,
}

impl Stamp {
    /// Reads both counters (instructions first).
    #[inline(always)]
    pub fn now() -> Self {
        let insns = instructions();
        let ns = cycles();
        Self { insns, ns }
    }

    /// Virtual nanoseconds from `earlier` to `self` (PMCCNTR, modulo 2^32).
    pub fn ns_since(self, earlier: Stamp) -> u64 {
        u64::from(self.ns.wrapping_sub(earlier.ns))
    }
}

/// Counts instructions between two [`Stamp`]s, at any `-icount` shift.
///
/// With a fixed shift, QEMU implements event 0x08 and the meter reads it. Under
/// `-icount shift=auto` (or without `-icount`) QEMU counts nothing on that event; the meter
/// then falls back to virtual time divided by the speed measured when it was made, which is
/// only as good as that speed stays constant (QEMU adjusts an adaptive shift as it runs).
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    speed: Speed,
    counting: bool,
    span_insns: u64,
    span_ns: u64,
}

impl Meter {
    /// Makes a meter from a span of code that ran `known_insns` instructions (to within a few
    /// dozen, e.g. a [`spin_insns`](crate::arm::spin_insns) loop) between stamps `a` and `b`:
    /// the span gives the emulation speed. `None` if no virtual time passed.
    pub fn from_span(a: Stamp, b: Stamp, known_insns: u64) -> Option<Self> {
        let counted = u64::from(b.insns.wrapping_sub(a.insns));
        let ns = b.ns_since(a);
        let counting = counted != 0;
        let span_insns = if counting { counted } else { known_insns };
        Some(Self {
            speed: Speed::measured(span_insns, ns)?,
            counting,
            span_insns,
            span_ns: ns,
        })
    }

    /// The emulation speed.
    pub fn speed(&self) -> Speed {
        self.speed
    }

    /// Whether instructions are counted by the PMU (a fixed `-icount` shift) rather than
    /// derived from virtual time.
    pub fn counting(&self) -> bool {
        self.counting
    }

    /// Instructions from `from` to `to`.
    pub fn insns(&self, from: Stamp, to: Stamp) -> u64 {
        if self.counting {
            u64::from(to.insns.wrapping_sub(from.insns))
        } else {
            self.speed.insns_for_ns(to.ns_since(from))
        }
    }

    /// Prints the standard speed line ([`print_speed`](crate::icount::print_speed)) with how
    /// the speed was found.
    pub fn print<C: crate::Console>(&self, console: C) {
        if self.counting {
            crate::icount::print_speed(
                console,
                self.speed,
                format_args!(
                    "{} instructions by PMU event 0x08 in {} ns by PMCCNTR",
                    self.span_insns, self.span_ns
                ),
            );
        } else {
            crate::icount::print_speed(
                console,
                self.speed,
                format_args!(
                    "PMU event 0x08 counts nothing, as under -icount shift=auto: a {}-instruction loop took {} ns by PMCCNTR; instructions are derived from virtual time",
                    self.span_insns, self.span_ns
                ),
            );
        }
    }
}

/// The cycle counter as a continuous clocksource, for a driver's bounded waits and
/// stopwatches: QEMU counts it at 1 GHz of virtual time; its 32 bits wrap every 4.3 s, which
/// hwtimer-core's `Stopwatch` and `Poller` handle. Needs [`enable`] first.
#[derive(Debug, Clone, Copy)]
pub struct Cycles;

impl Clocksource for Cycles {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        1_000_000_000
    }
    fn read(&self) -> u64 {
        u64::from(cycles())
    }
}

impl Continuous for Cycles {}
