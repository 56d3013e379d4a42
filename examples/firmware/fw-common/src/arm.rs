//! 32-bit ARM (ARMv7-A) helpers: semihosting exit and CP15 identification registers.
//!
//! The functions use A32 encodings and must run in a privileged mode (the boards enter in SVC).

/// `SYS_EXIT` semihosting operation number (ARM semihosting specification, 0x18).
const SYS_EXIT: u32 = 0x18;
/// `ADP_Stopped_ApplicationExit`: QEMU exits with status 0.
const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x2_0026;
/// `ADP_Stopped_RunTimeErrorUnknown`: any reason other than ApplicationExit makes QEMU exit 1.
const ADP_STOPPED_RUN_TIME_ERROR_UNKNOWN: u32 = 0x2_0023;

/// Ends the emulation through ARM semihosting `SYS_EXIT`.
///
/// QEMU must run with `-semihosting`; it then exits with status 0 for `success` and 1
/// otherwise. On 32-bit ARM, `SYS_EXIT` takes the reason code directly in r1 (not a pointer to
/// a parameter block). Without a semihosting host the `svc` would trap, so this function spins
/// if it ever returns from it.
pub fn semihosting_exit(success: bool) -> ! {
    let reason = if success {
        ADP_STOPPED_APPLICATION_EXIT
    } else {
        ADP_STOPPED_RUN_TIME_ERROR_UNKNOWN
    };
    // SAFETY: `svc 0x123456` is the A32 semihosting trap; QEMU intercepts it and terminates.
    // It reads r0/r1 only and we do not rely on anything after it.
    unsafe {
        core::arch::asm!(
            "svc 0x123456",
            in("r0") SYS_EXIT,
            in("r1") reason,
            options(nostack),
        );
    }
    loop {
        core::hint::spin_loop();
    }
}

/// Reads MIDR (Main ID Register): implementer, variant, part number, revision.
pub fn midr() -> u32 {
    let value: u32;
    // SAFETY: reading MIDR has no side effects and is allowed at PL1, where the boards run.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c0, c0, 0", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Reads MPIDR (Multiprocessor Affinity Register); bits 1:0 are the CPU number in a cluster.
pub fn mpidr() -> u32 {
    let value: u32;
    // SAFETY: reading MPIDR has no side effects and is allowed at PL1, where the boards run.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c0, c0, 5", out(reg) value, options(nomem, nostack));
    }
    value
}
