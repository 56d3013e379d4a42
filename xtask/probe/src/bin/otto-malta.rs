//! Boot probe for QEMU `-M malta` (big-endian MIPS32): ISA 16550 output, UHI semihosting exit.
#![no_std]
#![no_main]
// Inline assembly on MIPS is still unstable (built with RUSTC_BOOTSTRAP=1 for -Zbuild-std).
#![feature(asm_experimental_arch)]

#[path = "../uart16550.rs"]
mod uart16550;

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
    uart16550::send(THR, LSR, b"setup-probe: otto-malta booted\r\n");
    exit(0)
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    exit(1)
}
