//! The register map of the Cortex-A9 MPCore global timer: every offset and field defined
//! once, with its source.
//!
//! Sources, for every offset and field below unless noted:
//! - ARM, *Cortex-A9 MPCore Technical Reference Manual* (r2p0 and later), "Global timer":
//!   the register summary, the control register fields and the comparator rule;
//! - `torvalds/linux drivers/clocksource/arm_global_timer.c` (`GT_COUNTER0` ..
//!   `GT_AUTO_INC`, which bits are banked), whose names are used here so a reader can
//!   cross-check;
//! - `qemu/qemu hw/timer/a9gtimer.c` and `hw/cpu/a9mpcore.c` (the block at offset 0x200
//!   of the private region, one tick per `(prescaler + 1) × 10 ns`, GIC ID 27), confirmed
//!   on QEMU 10 by the npcm750 firmware (`docs/a9-global-timer.md#qemu-model`).
//!
//! Offsets are **relative to the global timer block**, which sits at offset
//! [`MPCORE_OFFSET`] (0x200) of the Cortex-A9 MPCore private memory region (PERIPHBASE).
//! All registers are 32 bits wide.
//!
//! # Banked and shared bits
//!
//! The counter, `TIMER_ENABLE` and the prescaler are **shared** by all cores of the
//! cluster; `COMP_ENABLE`, `IRQ_ENABLE`, `AUTO_INC`, the comparator, the auto-increment
//! value and the event flag are **banked**: each core sees its own copy at the same
//! address (Linux comments which control bits are banked). A write to [`GT_CONTROL`]
//! writes both kinds at once, so the driver read-modify-writes it and keeps the shared
//! bits as the register holds them, see [`crate::GlobalTimer`].
//!
//! ```
//! use a9_global_timer::regs::{self, CONTROL};
//!
//! // What the driver writes to arm a oneshot at prescaler 0: counter on, comparator and
//! // its interrupt on.
//! let ctrl = CONTROL::TIMER_ENABLE::SET + CONTROL::COMP_ENABLE::SET + CONTROL::IRQ_ENABLE::SET;
//! assert_eq!(ctrl.value, 0b111);
//! assert_eq!(regs::GT_COMP0.offset(), 0x10);
//! assert_eq!(regs::NPCM750_BASE, 0xF03F_E200);
//! ```

use hwtimer_core::Reg;
use tock_registers::register_bitfields;

/// Offset of the global timer block in the Cortex-A9 MPCore private memory region (SCU at
/// +0x0, GIC CPU interface at +0x100, global timer at +0x200, private timers at +0x600,
/// GIC distributor at +0x1000).
pub const MPCORE_OFFSET: usize = 0x200;

/// Length of the block in bytes: seven registers and one reserved word (0x00..0x20).
pub const WINDOW_LEN: usize = 0x20;

/// The MPCore private region of the Nuvoton NPCM750 (`NPCM7XX_CPUP_BA`,
/// `qemu/qemu hw/arm/npcm7xx.c`).
pub const NPCM750_MPCORE_BASE: usize = 0xF03F_E000;

/// The global timer of the NPCM750: [`NPCM750_MPCORE_BASE`] + [`MPCORE_OFFSET`].
pub const NPCM750_BASE: usize = NPCM750_MPCORE_BASE + MPCORE_OFFSET;

/// GIC interrupt ID of the global timer: 27 (private peripheral interrupt 11) on every
/// core (TRM "Interrupt distributor"; `qemu/qemu hw/cpu/a9mpcore.c`). Level-sensitive: it stays asserted while
/// the event flag is set and `IRQ_ENABLE` is on.
pub const IRQ_ID: u32 = 27;

/// The input rate QEMU gives the global timer: one tick every 10 ns at prescaler 0
/// (`qemu/qemu hw/timer/a9gtimer.c`). On silicon the input is `PERIPHCLK`, a board fact.
pub const QEMU_INPUT_HZ: u32 = 100_000_000;

register_bitfields![u32,
    /// `GT_CONTROL` (offset 0x08): enables and prescaler. Bits 7:4 and 31:16 are reserved
    /// and written as 0.
    #[allow(missing_docs)]
    pub CONTROL [
        /// Bit 0, shared: the counter runs (Linux: "this bit is NOT banked").
        TIMER_ENABLE OFFSET(0) NUMBITS(1) [],
        /// Bit 1, banked: the comparator of this core compares.
        COMP_ENABLE OFFSET(1) NUMBITS(1) [],
        /// Bit 2, banked: the event flag of this core raises its interrupt (PPI 27).
        IRQ_ENABLE OFFSET(2) NUMBITS(1) [],
        /// Bit 3, banked: on each match, the comparator is incremented by `GT_AUTO_INC`
        /// (periodic mode). Linux: `GT_CONTROL_AUTO_INC`.
        AUTO_INC OFFSET(3) NUMBITS(1) [],
        /// Bits 15:8, shared: the counter advances once every `PRESCALER + 1` input clocks.
        PRESCALER OFFSET(8) NUMBITS(8) []
    ],
    /// `GT_INT_STATUS` (offset 0x0C, banked): the event flag, write 1 to clear.
    #[allow(missing_docs)]
    pub INT_STATUS [
        /// Bit 0: set when the comparator matched (see [`crate::CompareRule`]); cleared
        /// by writing 1. Writing 0 has no effect.
        EVENT_FLAG OFFSET(0) NUMBITS(1) []
    ]
];

/// `GT_COUNTER0` (0x00): bits 31:0 of the 64-bit up-counter. Not latched: a 64-bit value
/// needs the hi-lo-hi read ([`crate::GtCounter::read64`]). Writable only while
/// `TIMER_ENABLE` is clear.
pub const GT_COUNTER0: Reg<u32> = Reg::new(0x00);
/// `GT_COUNTER1` (0x04): bits 63:32 of the counter.
pub const GT_COUNTER1: Reg<u32> = Reg::new(0x04);
/// `GT_CONTROL` (0x08), fields in [`CONTROL`].
pub const GT_CONTROL: Reg<u32, CONTROL::Register> = Reg::new(0x08);
/// `GT_INT_STATUS` (0x0C, banked), fields in [`INT_STATUS`].
pub const GT_INT_STATUS: Reg<u32, INT_STATUS::Register> = Reg::new(0x0C);
/// `GT_COMP0` (0x10, banked): bits 31:0 of this core's 64-bit comparator.
pub const GT_COMP0: Reg<u32> = Reg::new(0x10);
/// `GT_COMP1` (0x14, banked): bits 63:32 of the comparator.
pub const GT_COMP1: Reg<u32> = Reg::new(0x14);
/// `GT_AUTO_INC` (0x18, banked): the 32-bit increment added to the comparator at each
/// match when `AUTO_INC` is set.
pub const GT_AUTO_INC: Reg<u32> = Reg::new(0x18);

/// The control bits shared by all cores: `TIMER_ENABLE` and `PRESCALER`.
pub const CONTROL_SHARED: u32 = 0xFF01;
/// The control bits banked per core: `COMP_ENABLE`, `IRQ_ENABLE`, `AUTO_INC`.
pub const CONTROL_BANKED: u32 = 0b1110;

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets and fields against the TRM register summary and Linux's defines.
    #[test]
    fn offsets_and_fields_match_the_sources() {
        let offsets = [
            GT_COUNTER0.offset(),
            GT_COUNTER1.offset(),
            GT_CONTROL.offset(),
            GT_INT_STATUS.offset(),
            GT_COMP0.offset(),
            GT_COMP1.offset(),
            GT_AUTO_INC.offset(),
        ];
        assert_eq!(offsets, [0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18]);
        assert_eq!(CONTROL::TIMER_ENABLE::SET.value, 1 << 0);
        assert_eq!(CONTROL::COMP_ENABLE::SET.value, 1 << 1);
        assert_eq!(CONTROL::IRQ_ENABLE::SET.value, 1 << 2);
        assert_eq!(CONTROL::AUTO_INC::SET.value, 1 << 3);
        assert_eq!(CONTROL::PRESCALER.val(0xFF).value, 0xFF00);
        assert_eq!(INT_STATUS::EVENT_FLAG::SET.value, 1);
        assert_eq!(
            CONTROL_SHARED,
            CONTROL::TIMER_ENABLE::SET.value | CONTROL::PRESCALER.val(0xFF).value
        );
        assert_eq!(
            CONTROL_BANKED,
            (CONTROL::COMP_ENABLE::SET + CONTROL::IRQ_ENABLE::SET + CONTROL::AUTO_INC::SET).value
        );
        assert_eq!(NPCM750_BASE, 0xF03F_E200);
    }
}
