//! The Samsung Exynos4210 (QEMU `smdkc210`): its console and the addresses a firmware on it
//! needs first (`docs/qemu.md`, smdkc210; `qemu/qemu hw/arm/exynos4210.c`).

use super::gic::Gic;
use super::mmu::{self, FlatMap};
use crate::{Console, mmio};

/// DRAM0, where QEMU loads the image (1 GiB by default).
pub const DRAM0_BASE: u32 = 0x4000_0000;
/// DRAM0's size on QEMU's smdkc210.
pub const DRAM0_LEN: u32 = 0x4000_0000;

/// External GIC distributor, CPU0's view.
pub const EXT_GIC_DIST: usize = 0x1049_0000;
/// External GIC CPU interface, CPU0's view.
pub const EXT_GIC_CPU: usize = 0x1048_0000;
/// MCT global comparator 0 on the external GIC: ID 89 = SPI 57 (`EXT_GIC_ID_MCT_G0`).
pub const IRQ_MCT_G0: u32 = 89;
/// MCT local timer 0 on the external GIC: ID 74 = SPI 42 (`EXT_GIC_ID_MCT_L0`).
pub const IRQ_MCT_L0: u32 = 74;

/// The external GIC, CPU0's interface (the combiners stay at reset: every MCT line reaches
/// this GIC once, `docs/qemu.md`).
// SAFETY: the Exynos4210's external GIC at its QEMU addresses; only CPU0 runs the firmware,
// and every user of this GIC uses this value.
pub static GIC: Gic = unsafe { Gic::new(EXT_GIC_DIST, EXT_GIC_CPU) };

/// The flat translation table of [`enable_mmu`]: the DRAM Normal write-back, the rest
/// Device (in the image; 16 KiB, linked only into a firmware that uses it).
pub static RAM: FlatMap = FlatMap::new(DRAM0_BASE, DRAM0_LEN);

/// Turns the MMU and caches on with DRAM0 mapped flat as Normal write-back memory and
/// everything else as Device memory ([`mmu::enable`]), as a firmware that runs an executor
/// must: its atomics (LDREX/STREX) are unpredictable on the Strongly-ordered memory all of
/// RAM is with the MMU off. Returns SCTLR.
///
/// # Safety
///
/// As [`mmu::enable`]: called once, first, on CPU0 with the MMU and caches off, and no DMA
/// in flight.
pub unsafe fn enable_mmu() -> u32 {
    // SAFETY: the caller's promise; the table maps DRAM0 (image, stacks, statics) flat.
    unsafe { mmu::enable(&RAM) }
}

/// UART0 base address (UART channel 0, wired to QEMU's `-nographic` stdio).
pub const UART0_BASE: usize = 0x1380_0000;
/// UTRSTAT: TX/RX status register.
const UTRSTAT: usize = UART0_BASE + 0x10;
/// UTRSTAT bit 1: transmit buffer empty.
const UTRSTAT_TX_BUFFER_EMPTY: u32 = 1 << 1;
/// UTXH: transmit holding register.
const UTXH: usize = UART0_BASE + 0x20;

/// UART0, polled. Needs no set-up under QEMU (the ULCON/UCON reset values work).
#[derive(Clone, Copy, Debug)]
pub struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        crate::wait_for_room(|| {
            // SAFETY: UTRSTAT is a UART0 status register on this SoC; a read.
            unsafe { mmio::read32(UTRSTAT) & UTRSTAT_TX_BUFFER_EMPTY != 0 }
        });
        // SAFETY: UTXH is UART0's transmit register on this SoC; the firmware is its only
        // user, and only CPU0 runs it.
        unsafe { mmio::write32(UTXH, u32::from(byte)) }
    }
}
