//! The Nuvoton NPCM7xx (npcm750-evb) console, shared by the boards that run there.

use crate::{Console, mmio};

/// UART0 base address (16550-compatible, register shift 2, 32-bit access).
const UART0_BASE: usize = 0xf000_1000;
/// Transmit holding register.
const UART_THR: usize = UART0_BASE;
/// Line status register (register 5, shifted by 2).
const UART_LSR: usize = UART0_BASE + (5 << 2);
/// LSR bit 5: transmit holding register empty.
const UART_LSR_THRE: u32 = 1 << 5;

/// UART0, polled. Needs no set-up under QEMU.
#[derive(Clone, Copy)]
pub struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: THR/LSR of UART0 on this SoC; the firmware is their only user, and only
        // CPU0 runs it.
        unsafe {
            while mmio::read32(UART_LSR) & UART_LSR_THRE == 0 {}
            mmio::write32(UART_THR, u32::from(byte));
        }
    }
}
