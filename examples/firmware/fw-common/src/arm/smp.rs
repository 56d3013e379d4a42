//! Secondary-CPU start on the Cortex-A9 MPCore boards: the release flag the secondaries
//! wait on, the "up" flags they raise, and the SCU enable.
//!
//! Under QEMU `-kernel ELF` every CPU starts at the ELF entry. With an `arm_board!` that has
//! a `secondary:` function, the runtime (`aarch32-rt`) gives each CPU its own stacks
//! (`_num_cores` in the board's memory.x, see the macro) and calls that function with its
//! CPU number; the
//! function first [`wait_release`]s, which spins (with `wfe`) on a release flag until CPU0's
//! [`release`]. The flag starts non-zero, so it is in `.data`, loaded with the image: the
//! secondary can read it before CPU0 zeroes `.bss`.
//!
//! CPU0 then waits, bounded, for the secondary to [`announce`] itself ([`wait_up`]); a
//! secondary that never comes up ends that wait with `false`, never a hang.

use core::sync::atomic::{AtomicU32, Ordering};

/// The value of [`RELEASE`] while the secondaries must wait (non-zero: `.data`).
const PARKED: u32 = 0x5041_524b;
/// The value CPU0 writes to release them.
const GO: u32 = 0x474f_2121;

/// The release flag the secondaries spin on.
static RELEASE: AtomicU32 = AtomicU32::new(PARKED);
/// Bit n set: CPU n runs its secondary code (in `.data` too, so CPU0's `.bss` zeroing
/// cannot clear a bit set early).
static UP: AtomicU32 = AtomicU32::new(0x8000_0000);

/// SCU control register offset in the MPCore private region, and its enable bit.
const SCU_CTRL: usize = 0x0;
const SCU_ENABLE: u32 = 1;

/// Enables the Snoop Control Unit (private region + 0x0, bit 0), as CPU0 must before any
/// core turns its MMU and caches on for SMP. Returns the control register read back.
///
/// # Safety
///
/// `mpcore_base` is the MPCore private region of this SoC.
pub unsafe fn scu_enable(mpcore_base: usize) -> u32 {
    let reg = (mpcore_base + SCU_CTRL) as *mut u32;
    // SAFETY: the caller guarantees the SCU control register is at `reg`; a read-modify-write
    // of its enable bit.
    unsafe {
        let v = reg.read_volatile();
        reg.write_volatile(v | SCU_ENABLE);
        reg.read_volatile()
    }
}

/// Releases the secondaries waiting in [`wait_release`]: the flag written, its cache line
/// cleaned to the point of coherency (DCCMVAC), `dsb`, then `sev`.
///
/// # Why the clean
///
/// CPU0 runs this with its MMU and write-back data cache on, so its store of [`GO`] may sit
/// in its L1 data cache as a dirty line. The secondary polls with its MMU and caches off:
/// its loads are uncached and go straight to memory, and a core outside the coherency
/// domain (ACTLR.SMP not yet set) is not snooped for them either. Without the clean the
/// secondary could read [`PARKED`] for as long as CPU0 keeps the line, which on silicon
/// has no bound; QEMU models no caches, so it never shows. Linux's Exynos SMP start
/// (`arch/arm/mach-exynos/platsmp.c`, `write_pen_release`) cleans the pen word's line after
/// writing it for the same reason. The `dsb` makes the clean complete before the `sev`
/// that wakes the secondary's `wfe`.
///
/// The clean reaches the point of coherency through the core's own caches; an outer L2
/// cache controller (a PL310, which these boards' MMU set-up never enables) would need a
/// clean of its own as well.
pub fn release() {
    RELEASE.store(GO, Ordering::Release);
    let line = RELEASE.as_ptr() as usize;
    // SAFETY: DCCMVAC (`mcr p15, 0, Rt, c7, c10, 1`) cleans the data cache line holding
    // `RELEASE` to the point of coherency: a write-back of a line this code owns, no change
    // of its contents; `dsb` and `sev` are a barrier and an event hint.
    unsafe {
        core::arch::asm!(
            "mcr p15, 0, {line}, c7, c10, 1",
            "dsb",
            "sev",
            line = in(reg) line,
            options(nostack),
        )
    };
}

/// Spins (with `wfe`) until CPU0 calls [`release`]. Plain loads: the MMU may be off.
///
/// Unbounded on purpose: a secondary has nothing else to do until it is released, and a
/// `wfe` costs nothing while it waits. The bounded side is CPU0's: [`wait_up`] gives up
/// on a secondary that never announces itself.
pub fn wait_release() {
    while RELEASE.load(Ordering::Acquire) != GO {
        // SAFETY: waits for an event (or returns at once); no memory effect.
        unsafe { core::arch::asm!("wfe", options(nomem, nostack)) };
    }
}

/// Marks CPU `cpu` as up (for [`wait_up`] on CPU0): an atomic or (LDREX/STREX), so call
/// it once this CPU's MMU is on.
pub fn announce(cpu: u32) {
    let bit = 1u32.checked_shl(cpu).unwrap_or(0);
    UP.fetch_or(bit, Ordering::Release);
    // SAFETY: barrier and event hint only.
    unsafe { core::arch::asm!("dsb", "sev", options(nostack)) };
}

/// Whether CPU `cpu` announced itself.
pub fn is_up(cpu: u32) -> bool {
    UP.load(Ordering::Acquire) & 1u32.checked_shl(cpu).unwrap_or(0) != 0
}

/// Waits for CPU `cpu` to [`announce`] itself, at most `polls` polls. `false` if it did not.
pub fn wait_up(cpu: u32, polls: u32) -> bool {
    for _ in 0..polls {
        if is_up(cpu) {
            return true;
        }
        core::hint::spin_loop();
    }
    is_up(cpu)
}
