//! Firmware for QEMU's `smdkc210` machine (Samsung Exynos4210, two Cortex-A9 cores).
//!
//! Boot: QEMU loads this ELF at 0x4000_0000 (DRAM0) and starts *both* CPUs at `_start`, in SVC
//! mode with the MMU and caches off. The entry code parks every CPU whose MPIDR[1:0] is not 0,
//! sets up the stack, zeroes `.bss` and calls [`board_main`], which prints a few facts read from
//! the hardware on UART0 and ends the emulation through ARM semihosting.
//!
//! Run it with `cargo xtask qemu smdkc210`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use fw_common::{Console, arm, mmio, println};

/// UART0 base address (Exynos4210 UART channel 0, wired to QEMU's `-nographic` stdio).
const UART0_BASE: usize = 0x1380_0000;
/// UTRSTAT: TX/RX status register.
const UTRSTAT: usize = UART0_BASE + 0x10;
/// UTRSTAT bit 1: transmit buffer empty.
const UTRSTAT_TX_BUFFER_EMPTY: u32 = 1 << 1;
/// UTXH: transmit holding register.
const UTXH: usize = UART0_BASE + 0x20;

/// MCT (multi-core timer) base address.
const MCT_BASE: usize = 0x1005_0000;
/// G_CNT_L: free-running counter (FRC), low word.
const G_CNT_L: usize = MCT_BASE + 0x100;
/// G_CNT_U: free-running counter (FRC), high word.
const G_CNT_U: usize = MCT_BASE + 0x104;
/// G_TCON: global timer control.
const G_TCON: usize = MCT_BASE + 0x240;
/// G_TCON bit 8: start the FRC.
const G_TCON_START: u32 = 1 << 8;
/// G_WSTAT: global write status (write-1-to-clear).
const G_WSTAT: usize = MCT_BASE + 0x24c;
/// G_WSTAT bit 16: the G_TCON write has taken effect.
const G_WSTAT_TCON: u32 = 1 << 16;

/// UART0, polled. Needs no set-up under QEMU (ULCON/UCON reset values work).
#[derive(Clone, Copy)]
struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: UTRSTAT and UTXH are UART0 registers on this SoC; this firmware is their only
        // user, and only CPU0 runs it.
        unsafe {
            while mmio::read32(UTRSTAT) & UTRSTAT_TX_BUFFER_EMPTY == 0 {}
            mmio::write32(UTXH, u32::from(byte));
        }
    }
}

// Entry point, run by both CPUs. A32 code; the linker script puts `.text.start` at the load
// address. `board_main` never returns; if it did, CPU0 would park like the secondaries.
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

/// Reads the 64-bit FRC consistently: high, low, high again, retrying if the high word changed
/// in between (the two halves are separate 32-bit registers).
fn read_frc() -> u64 {
    loop {
        // SAFETY: G_CNT_U/G_CNT_L are read-only views of the MCT counter without read side
        // effects.
        let (hi, lo, hi2) = unsafe {
            (
                mmio::read32(G_CNT_U),
                mmio::read32(G_CNT_L),
                mmio::read32(G_CNT_U),
            )
        };
        if hi == hi2 {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Starts the MCT free-running counter and waits until the write is acknowledged.
///
/// Returns whether G_WSTAT reported the G_TCON write. The hardware takes a few cycles of the
/// timer clock to apply the write; QEMU's model sets the bit synchronously.
fn start_frc() -> bool {
    // SAFETY: MCT registers of this SoC; nothing else in this firmware uses the MCT.
    unsafe {
        mmio::write32(G_TCON, mmio::read32(G_TCON) | G_TCON_START);
        for _ in 0..1_000_000 {
            if mmio::read32(G_WSTAT) & G_WSTAT_TCON != 0 {
                mmio::write32(G_WSTAT, G_WSTAT_TCON); // write 1 to clear
                return true;
            }
        }
    }
    false
}

/// Main program of CPU0, called from `_start` with a stack and zeroed `.bss`.
#[unsafe(no_mangle)]
extern "C" fn board_main() -> ! {
    println!(Uart0, "timer-family firmware: smdkc210");

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

    if start_frc() {
        println!(Uart0, "MCT FRC enabled (G_WSTAT.G_TCON acknowledged)");
    } else {
        println!(Uart0, "MCT FRC: G_WSTAT.G_TCON never set");
    }
    let first = read_frc();
    for _ in 0..10_000 {
        core::hint::spin_loop();
    }
    let second = read_frc();
    let verdict = if second > first {
        "advancing"
    } else {
        "NOT ADVANCING"
    };
    println!(Uart0, "MCT FRC: {first} -> {second} ({verdict})");

    println!(Uart0, "done");
    arm::semihosting_exit(true)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    fw_common::print_panic(Uart0, info);
    arm::semihosting_exit(false)
}
