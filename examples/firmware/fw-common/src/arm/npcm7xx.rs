//! The Nuvoton NPCM7xx (QEMU `npcm750-evb`): its console, shared by the boards that run
//! there, and the addresses a firmware on it needs first (`docs/qemu.md`, npcm750-evb;
//! `qemu/qemu hw/arm/npcm7xx.c`, `hw/cpu/a9mpcore.c`).

use super::gic::Gic;
use super::mmu::{self, FlatMap};
use crate::{Console, mmio};

/// DRAM, from address 0 (512 MiB by default); the image is linked at `0x0010_0000`.
pub const DRAM_BASE: u32 = 0;
/// DRAM's size on QEMU's npcm750-evb by default.
pub const DRAM_LEN: u32 = 0x2000_0000;
/// The Cortex-A9 MPCore private region (SCU, GIC, global and private timers).
pub const MPCORE_BASE: usize = 0xf03f_e000;
/// The MPCore GIC's distributor.
pub const GIC_DIST: usize = MPCORE_BASE + 0x1000;
/// The MPCore GIC's CPU interface (CPU0's view is the running CPU's).
pub const GIC_CPU: usize = MPCORE_BASE + 0x100;
/// The Cortex-A9 global timer's interrupt: PPI 11, GIC ID 27, on every CPU.
pub const IRQ_GLOBAL_TIMER: u32 = 27;

/// The MPCore GIC, CPU0's interface.
// SAFETY: the NPCM7xx's MPCore GIC at its QEMU addresses; only CPU0 runs the firmware, and
// every user of this GIC uses this value.
pub static GIC: Gic = unsafe { Gic::new(GIC_DIST, GIC_CPU) };

/// The flat translation table of [`enable_mmu`]: the DRAM Normal write-back, the rest
/// Device (in the image; 16 KiB, linked only into a firmware that uses it).
pub static RAM: FlatMap = FlatMap::new(DRAM_BASE, DRAM_LEN);

/// Turns the MMU and caches on with DRAM mapped flat as Normal write-back memory and
/// everything else as Device memory ([`mmu::enable`]), as a firmware that runs an executor
/// must (its LDREX/STREX want Normal memory). Returns SCTLR.
///
/// # Safety
///
/// As [`mmu::enable`]: called once, first, on CPU0 with the MMU and caches off, and no DMA
/// in flight (the GMACs' descriptors would need cache maintenance with the caches on).
pub unsafe fn enable_mmu() -> u32 {
    // SAFETY: the caller's promise; the table maps DRAM (image, stacks, statics) flat.
    unsafe { mmu::enable(&RAM) }
}

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
        crate::wait_for_room(|| {
            // SAFETY: LSR of UART0 on this SoC; a status read.
            unsafe { mmio::read32(UART_LSR) & UART_LSR_THRE != 0 }
        });
        // SAFETY: THR of UART0 on this SoC; the firmware is its only user, and only CPU0
        // runs it.
        unsafe { mmio::write32(UART_THR, u32::from(byte)) }
    }
}
