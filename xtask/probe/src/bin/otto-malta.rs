//! Boot probe for QEMU `-M malta` (big-endian MIPS32): ISA 16550 output, UHI semihosting exit.
#![no_std]
#![no_main]
// Inline assembly on MIPS is still unstable (built with RUSTC_BOOTSTRAP=1 for -Zbuild-std).
#![feature(asm_experimental_arch)]

// Entry in kernel mode from QEMU's Malta boot loader (KSEG0, unmapped): take the stack from
// the linker script (o32: 16 bytes of argument save area), run `probe_main`.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .set push
    .set noreorder
    .global _start
    .type _start, @function
_start:
    la      $sp, __stack_top
    jal     probe_main
    addiu   $sp, $sp, -16
1:  b       1b
    nop
    .set pop
"#
);

/// The Super I/O's 16550 (serial 0) through KSEG1: transmit holding register.
const THR: usize = 0xb800_03f8;
/// Line status register: bit 5 = transmit holding register empty.
const LSR: usize = 0xb800_03fd;

/// Writes a byte register.
fn write8(addr: usize, value: u8) {
    // SAFETY: a register of the Malta's ISA UART, in the PCI I/O window QEMU's boot loader
    // maps at physical 0x1800_0000, through uncached KSEG1.
    unsafe { core::ptr::write_volatile(addr as *mut u8, value) }
}

/// Reads a byte register.
fn read8(addr: usize) -> u8 {
    // SAFETY: as for `write8`.
    unsafe { core::ptr::read_volatile(addr as *const u8) }
}

/// Sends a byte, waiting a bounded number of polls for room.
fn put(byte: u8) {
    for _ in 0..100_000 {
        if read8(LSR) & (1 << 5) != 0 {
            break;
        }
    }
    write8(THR, byte);
}

/// Ends QEMU with `status` (UHI `exit`: `sdbbp 1`, `$t9 = 1`; needs `-semihosting`).
fn exit(status: u32) -> ! {
    // SAFETY: the UHI exit call; QEMU exits and it does not return.
    unsafe {
        core::arch::asm!("sdbbp 1", in("$4") status, in("$25") 1u32, options(noreturn, nostack))
    }
}

/// Called by the entry code.
#[unsafe(no_mangle)]
extern "C" fn probe_main() -> ! {
    for &byte in b"setup-probe: otto-malta booted\r\n" {
        put(byte);
    }
    exit(0)
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    exit(1)
}
