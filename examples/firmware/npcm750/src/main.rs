//! Firmware for QEMU's `npcm750-evb` machine (Nuvoton NPCM750 BMC, two Cortex-A9 cores).
//!
//! Boot: QEMU loads this ELF at 0x0010_0000 and starts *both* CPUs at `_start`, in SVC mode
//! with the MMU and caches off. The entry code parks every CPU whose MPIDR[1:0] is not 0, sets
//! up the stack, zeroes `.bss` and calls [`board_main`], which prints a few facts read from the
//! hardware on UART0 and ends the emulation through ARM semihosting.
//!
//! Run it with `cargo xtask qemu npcm750`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use fw_common::{Console, arm, mmio, println};

/// UART0 base address (16550-compatible, register shift 2, 32-bit access).
const UART0_BASE: usize = 0xf000_1000;
/// Transmit holding register.
const UART_THR: usize = UART0_BASE;
/// Line status register (register 5, shifted by 2).
const UART_LSR: usize = UART0_BASE + (5 << 2);
/// LSR bit 5: transmit holding register empty.
const UART_LSR_THRE: u32 = 1 << 5;

/// GMAC0 (Synopsys DesignWare GMAC, driven by stmmac) base address.
const GMAC0_BASE: usize = 0xf080_2000;
/// GMAC `VERSION` register: USERVER in bits 15:8, SNPSVER (Synopsys core version) in 7:0.
const GMAC_VERSION: usize = GMAC0_BASE + 0x20;

/// UART0, polled. Needs no set-up under QEMU.
#[derive(Clone, Copy)]
struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: THR/LSR of UART0 on this SoC; this firmware is their only user, and only
        // CPU0 runs it.
        unsafe {
            while mmio::read32(UART_LSR) & UART_LSR_THRE == 0 {}
            mmio::write32(UART_THR, u32::from(byte));
        }
    }
}

// Entry point, run by both CPUs (see smdkc210 for the same sequence). A32 code; the linker
// script puts `.text.start` at the load address.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, %function
    .arm
_start:
    mrc     p15, 0, r0, c0, c0, 5   @ MPIDR
    ands    r0, r0, #3              @ CPU number within the cluster
    bne     2f                      @ not CPU0: park
    ldr     sp, =__stack_top
    ldr     r0, =__sbss             @ zero .bss, word by word (both ends 4-byte aligned)
    ldr     r1, =__ebss
    mov     r2, #0
1:  cmp     r0, r1
    strlo   r2, [r0], #4
    blo     1b
    bl      board_main
2:  wfi
    b       2b
    .ltorg
"#
);

/// Main program of CPU0, called from `_start` with a stack and zeroed `.bss`.
#[unsafe(no_mangle)]
extern "C" fn board_main() -> ! {
    println!(Uart0, "timer-family firmware: npcm750");

    let midr = arm::midr();
    let part = if (midr >> 4) & 0xfff == 0xc09 {
        "Cortex-A9"
    } else {
        "unknown part"
    };
    println!(
        Uart0,
        "MIDR = {midr:#010x} ({part} r{}p{})",
        (midr >> 20) & 0xf,
        midr & 0xf
    );
    println!(Uart0, "MPIDR = {:#010x}", arm::mpidr());

    // SAFETY: VERSION is a read-only identification register of GMAC0.
    let version = unsafe { mmio::read32(GMAC_VERSION) };
    let snpsver = version & 0xff;
    println!(
        Uart0,
        "GMAC0 VERSION = {version:#010x} (Synopsys GMAC {}.{})",
        snpsver >> 4,
        snpsver & 0xf
    );

    println!(Uart0, "done");
    arm::semihosting_exit(true)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    fw_common::print_panic(Uart0, info);
    arm::semihosting_exit(false)
}
