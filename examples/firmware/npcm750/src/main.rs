//! Firmware for QEMU's `npcm750-evb` machine (Nuvoton NPCM750 BMC, two Cortex-A9 cores).
//!
//! Boot: QEMU loads this ELF at 0x0010_0000 and starts *both* CPUs at `_start`, in SVC mode
//! with the MMU and caches off and high vectors (SCTLR.V = 1, the boot ROM at 0xffff_0000).
//! The shared ARM entry code ([`fw_common::arm_board!`]) parks CPU1, sets up the stacks,
//! points VBAR at a vector table in RAM, zeroes `.bss`, prints the banner and the CPU
//! identification, and calls [`run`], which prints a few facts read from the hardware on
//! UART0; the run ends through ARM semihosting.
//!
//! Run it with `cargo xtask qemu npcm750`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use fw_common::{Console, mmio, println};

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

fw_common::arm_board! {
    name: "npcm750",
    console: Uart0,
    main: run,
}

/// The board's checks, run on CPU0 after the banner; returns whether all passed.
fn run() -> bool {
    // SAFETY: VERSION is a read-only identification register of GMAC0.
    let version = unsafe { mmio::read32(GMAC_VERSION) };
    let snpsver = version & 0xff;
    println!(
        Uart0,
        "GMAC0 VERSION = {version:#010x} (Synopsys GMAC {}.{})",
        snpsver >> 4,
        snpsver & 0xf
    );
    true
}
