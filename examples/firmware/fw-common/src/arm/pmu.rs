//! The Cortex-A cycle counter (PMCCNTR, ARMv7 PMU).
//!
//! QEMU counts it from virtual time at 1 GHz, so under `-icount shift=0` (1 instruction =
//! 1 ns) it advances by exactly one per instruction: a reference clock independent of the
//! timer under test.

/// Enables the cycle counter (PMCR.E, PMCNTENSET.C) and resets it (PMCR.C).
pub fn enable() {
    // SAFETY: PMU control registers, accessible at PL1; no memory is touched.
    unsafe {
        core::arch::asm!(
            "mrc p15, 0, {t}, c9, c12, 0",
            "orr {t}, {t}, #5",
            "mcr p15, 0, {t}, c9, c12, 0",
            "mov {t}, #0x80000000",
            "mcr p15, 0, {t}, c9, c12, 1",
            t = out(reg) _,
            options(nomem, nostack),
        );
    }
}

/// Reads PMCCNTR.
#[inline(always)]
pub fn cycles() -> u32 {
    let v: u32;
    // SAFETY: reading PMCCNTR at PL1 has no side effects.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c9, c13, 0", out(reg) v, options(nomem, nostack));
    }
    v
}
