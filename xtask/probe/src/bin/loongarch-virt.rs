//! Boot probe for QEMU `-M virt` on LoongArch: UART0 output, power-off through the GED.
#![no_std]
#![no_main]

// Entry in direct-address mode (physical addresses as-is): enable the FPU (EUEN.FPE; the
// target is hard-float), take the stack from the linker script, run `probe_main`.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, @function
_start:
    li.w        $t0, 1
    csrwr       $t0, 0x2
    la.pcrel    $sp, __stack_top
    bl          probe_main
1:  idle        0
    b           1b
"#
);

/// UART0 (ns16550a, byte registers): transmit holding register.
const THR: usize = 0x1fe0_01e0;
/// Line status register: bit 5 = transmit holding register empty.
const LSR: usize = 0x1fe0_01e5;
/// GED sleep control register; writing [`POWEROFF`] ends QEMU with status 0.
const GED_SLEEP_CTL: usize = 0x100e_001c;
/// The power-off command.
const POWEROFF: u8 = 0x34;

/// Writes a byte register.
fn write8(addr: usize, value: u8) {
    // SAFETY: `addr` is a register of the UART or the GED, which QEMU's virt board maps at
    // these physical addresses; direct-address mode makes them usable as-is.
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

/// Called by the entry code.
#[unsafe(no_mangle)]
extern "C" fn probe_main() -> ! {
    for &byte in b"setup-probe: loongarch-virt booted\r\n" {
        put(byte);
    }
    write8(GED_SLEEP_CTL, POWEROFF);
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    write8(GED_SLEEP_CTL, POWEROFF);
    loop {
        core::hint::spin_loop();
    }
}
