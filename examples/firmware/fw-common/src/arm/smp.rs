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

/// Releases the secondaries waiting in [`wait_release`] (`dsb` then `sev`).
pub fn release() {
    RELEASE.store(GO, Ordering::Release);
    // SAFETY: barrier and event hint only.
    unsafe { core::arch::asm!("dsb", "sev", options(nostack)) };
}

/// Spins (with `wfe`) until CPU0 calls [`release`]. Plain loads: the MMU may be off.
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
