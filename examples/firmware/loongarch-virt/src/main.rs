//! Firmware for QEMU's LoongArch `virt` machine.
//!
//! Boot: QEMU loads this ELF at physical address 0x20_0000 and starts CPU0 at `_start` in
//! direct-address mode (no paging, no DMW windows), so device registers are used at their
//! physical addresses. The entry code enables the FPU, sets up the stack, zeroes `.bss` and
//! calls [`board_main`], which prints a few facts about the stable counter (the "constant
//! timer") on UART0 and powers the machine off through the GED sleep control register.
//!
//! Run it with `cargo xtask qemu loongarch-virt`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use fw_common::{Console, mmio, println};

/// UART0 base address (ns16550a, register shift 0, byte access).
const UART0_BASE: usize = 0x1fe0_01e0;
/// Transmit holding register.
const UART_THR: usize = UART0_BASE;
/// Line status register.
const UART_LSR: usize = UART0_BASE + 5;
/// LSR bit 5: transmit holding register empty.
const UART_LSR_THRE: u8 = 1 << 5;

/// GED sleep control register (the DTB's `syscon-poweroff` node: offset 0x1c of the GED).
const GED_SLEEP_CTL: usize = 0x100e_001c;
/// Value written to [`GED_SLEEP_CTL`] to power off (QEMU then exits with status 0).
const GED_SLEEP_CTL_POWEROFF: u8 = 0x34;

/// UART0, polled.
#[derive(Clone, Copy)]
struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: THR/LSR of the virt machine's UART0; this firmware is their only user.
        unsafe {
            while mmio::read8(UART_LSR) & UART_LSR_THRE == 0 {}
            mmio::write8(UART_THR, byte);
        }
    }
}

// Entry point. The target is hard-float (`+f,+d`) but EUEN.FPE is 0 at reset, so the first
// floating-point instruction the compiler emits would trap (and EENTRY is not set up): enable
// the FPU first. `la.pcrel` keeps the code position-independent.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, @function
_start:
    li.w        $t0, 1
    csrwr       $t0, 0x2            # EUEN.FPE = 1
    la.pcrel    $sp, __stack_top
    la.pcrel    $t0, __sbss         # zero .bss, 8 bytes at a time (both ends 8-byte aligned)
    la.pcrel    $t1, __ebss
1:  bgeu        $t0, $t1, 2f
    st.d        $zero, $t0, 0
    addi.d      $t0, $t0, 8
    b           1b
2:  bl          board_main
3:  idle        0
    b           3b
"#
);

/// Reads CPUCFG word `index` (CPU feature and configuration information).
fn cpucfg(index: u32) -> u32 {
    let value: u32;
    // SAFETY: `cpucfg` only reads CPU identification data.
    unsafe {
        core::arch::asm!("cpucfg {}, {}", out(reg) value, in(reg) index, options(nomem, nostack));
    }
    value
}

/// Reads the 64-bit stable counter (`rdtime.d`); the counter ID it also returns is ignored.
fn rdtime() -> u64 {
    let value: u64;
    // SAFETY: `rdtime.d` only reads the stable counter.
    unsafe {
        core::arch::asm!(
            "rdtime.d {}, {}",
            out(reg) value,
            out(reg) _,
            options(nomem, nostack),
        );
    }
    value
}

/// Reads CRMD (current mode information): PLV, IE, DA, PG, ...
fn crmd() -> u64 {
    let value: u64;
    // SAFETY: reading CRMD has no side effects; we run at PLV0.
    unsafe {
        core::arch::asm!("csrrd {}, 0x0", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Powers the machine off; QEMU exits with status 0.
fn power_off() -> ! {
    // SAFETY: writing the poweroff value to the GED sleep control register only stops the VM.
    unsafe { mmio::write8(GED_SLEEP_CTL, GED_SLEEP_CTL_POWEROFF) };
    loop {
        core::hint::spin_loop();
    }
}

/// Main program, called from `_start` with a stack and zeroed `.bss`.
#[unsafe(no_mangle)]
extern "C" fn board_main() -> ! {
    println!(Uart0, "timer-family firmware: loongarch-virt");

    let crmd = crmd();
    let mode = if crmd & (1 << 3) != 0 {
        "direct address mode"
    } else {
        "paged mode"
    };
    println!(Uart0, "CRMD = {crmd:#x} ({mode})");

    // Stable counter frequency = CPUCFG4 (crystal Hz) * CPUCFG5[15:0] / CPUCFG5[31:16].
    let (cfg4, cfg5) = (cpucfg(4), cpucfg(5));
    println!(Uart0, "CPUCFG4 = {cfg4} Hz, CPUCFG5 = {cfg5:#010x}");
    let (mul, div) = (u64::from(cfg5 & 0xffff), u64::from(cfg5 >> 16));
    if div != 0 {
        println!(Uart0, "stable counter = {} Hz", u64::from(cfg4) * mul / div);
    }

    let first = rdtime();
    for _ in 0..10_000 {
        core::hint::spin_loop();
    }
    let second = rdtime();
    let verdict = if second > first {
        "advancing"
    } else {
        "NOT ADVANCING"
    };
    println!(Uart0, "rdtime.d: {first} -> {second} ({verdict})");

    println!(Uart0, "done");
    power_off()
}

/// Prints the panic and powers off. The board has no way to report a failure status, so
/// `cargo xtask qemu` relies on the `PANIC` line to fail the run.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    fw_common::print_panic(Uart0, info);
    power_off()
}
