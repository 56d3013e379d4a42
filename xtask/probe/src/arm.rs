//! What the two ARM board probes share: the entry code, the report, semihosting exit.

// Entry, run by every CPU (QEMU starts all of them at the ELF entry on these boards): CPUs
// whose MPIDR[1:0] is not 0 park; CPU0 takes the stack from the linker script and calls
// `probe_main`.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, %function
_start:
    mrc     p15, 0, r0, c0, c0, 5       @ MPIDR
    ands    r0, r0, #3
    bne     2f
    ldr     sp, =__stack_top
    bl      probe_main
2:  wfi
    b       2b
"#
);

/// `SYS_EXIT` (ARM semihosting specification).
const SYS_EXIT: u32 = 0x18;
/// `ADP_Stopped_ApplicationExit`: QEMU exits with status 0; any other reason exits 1.
const APPLICATION_EXIT: u32 = 0x2_0026;
/// `ADP_Stopped_RunTimeErrorUnknown`.
const RUN_TIME_ERROR: u32 = 0x2_0023;

/// Prints `setup-probe: <board> booted` through `put` and exits QEMU with status 0.
pub fn report(board: &str, put: fn(u8)) -> ! {
    for &byte in b"setup-probe: "
        .iter()
        .chain(board.as_bytes())
        .chain(b" booted\r\n")
    {
        put(byte);
    }
    exit(APPLICATION_EXIT)
}

/// Ends the emulation through semihosting (QEMU runs with `-semihosting`).
fn exit(reason: u32) -> ! {
    // SAFETY: `svc 0x123456` is the A32 semihosting trap, which QEMU intercepts; it reads
    // r0 and r1 only.
    unsafe {
        core::arch::asm!("svc 0x123456", in("r0") SYS_EXIT, in("r1") reason, options(nostack));
    }
    loop {
        core::hint::spin_loop();
    }
}

/// Reads a 32-bit device register.
pub fn read32(addr: usize) -> u32 {
    // SAFETY: callers pass the address of a register of the board's UART, which QEMU maps;
    // MMU and caches are off at entry, so this is a plain device access.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Writes a 32-bit device register.
pub fn write32(addr: usize, value: u32) {
    // SAFETY: as for `read32`.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    exit(RUN_TIME_ERROR)
}
