//! The model's own register map of the Cortex-A9 MPCore global timer, each fact cited
//! beside it. Nothing here is taken from the driver ([`crate::regs`]);
//! `tests/driver/register_map.rs` compares the two maps entry by entry.
//!
//! Sources (facts only; Linux and QEMU are GPL and no code is copied):
//!
//! - **(TRM)** ARM, *Cortex-A9 MPCore Technical Reference Manual* (r2p0 and later), "Global
//!   timer": the block at PERIPHBASE + 0x200, its register summary, the control register
//!   fields and the comparator rule;
//! - **(L)** `torvalds/linux drivers/clocksource/arm_global_timer.c` (`GT_COUNTER0` ..
//!   `GT_AUTO_INC`, the control bits and which of them are banked,
//!   `GT_CONTROL_PRESCALER_MASK` = `GENMASK(15, 8)`);
//! - **(Q)** `qemu/qemu hw/timer/a9gtimer.c` and `include/hw/timer/a9gtimer.h` (a 0x20-byte
//!   region, one tick every `(prescaler + 1) × 10` ns of virtual time, unlisted offsets
//!   read 0 and ignore writes, the strict `>` compare).
//!
//! # Where the sources disagree
//!
//! QEMU's header (in the stored copy of `include/hw/timer/a9gtimer.h`) defines
//! `R_CONTROL_AUTO_INCREMENT` as bit **2**, the same bit as `R_CONTROL_IRQ_ENABLE`; the
//! TRM and Linux put auto-increment at bit **3**. On such a QEMU the comparator
//! auto-increments whenever the interrupt is enabled and `GT_AUTO_INC` is non-zero, and
//! bit 3 is kept as a *shared* bit. The model follows the TRM and Linux
//! ([`GT_CONTROL_AUTO_INC`]); the QEMU aliasing is **not** modelled.

/// Offset of the global timer in the MPCore private memory region (TRM: PERIPHBASE +
/// 0x200).
pub const MPCORE_OFFSET: usize = 0x200;
/// Length of the block: seven registers and one reserved word (TRM; QEMU maps 0x20 bytes).
pub const WINDOW_LEN: usize = 0x20;

/// Counter bits 31:0 (TRM; L `GT_COUNTER0`).
pub const GT_COUNTER0: usize = 0x00;
/// Counter bits 63:32 (TRM; L `GT_COUNTER1`).
pub const GT_COUNTER1: usize = 0x04;
/// Control (TRM; L `GT_CONTROL`).
pub const GT_CONTROL: usize = 0x08;
/// Interrupt status, the event flag (TRM; L `GT_INT_STATUS`).
pub const GT_INT_STATUS: usize = 0x0C;
/// Comparator bits 31:0, banked (TRM; L `GT_COMP0`).
pub const GT_COMP0: usize = 0x10;
/// Comparator bits 63:32, banked (TRM; L `GT_COMP1`).
pub const GT_COMP1: usize = 0x14;
/// Auto-increment, banked (TRM; L `GT_AUTO_INC`).
pub const GT_AUTO_INC: usize = 0x18;
/// The reserved word of the window: reads 0, writes ignored (Q: not a register, read
/// returns 0).
pub const GT_RESERVED: usize = 0x1C;

/// Timer enable, bit 0, shared by every core (TRM; L "this bit is NOT banked").
pub const GT_CONTROL_TIMER_ENABLE: u32 = 1 << 0;
/// Comparator enable, bit 1, banked (TRM; L).
pub const GT_CONTROL_COMP_ENABLE: u32 = 1 << 1;
/// IRQ enable, bit 2, banked (TRM; L).
pub const GT_CONTROL_IRQ_ENABLE: u32 = 1 << 2;
/// Auto-increment, bit 3, banked (TRM; L). QEMU disagrees: see the module docs.
pub const GT_CONTROL_AUTO_INC: u32 = 1 << 3;
/// Prescaler, bits 15:8, shared (TRM; L `GENMASK(15, 8)`).
pub const GT_CONTROL_PRESCALER_MASK: u32 = 0xFF00;
/// Shift of the prescaler field (TRM; L).
pub const GT_CONTROL_PRESCALER_SHIFT: u32 = 8;
/// The control bits banked per core (TRM; L's `/* banked */` comments).
pub const GT_CONTROL_BANKED: u32 =
    GT_CONTROL_COMP_ENABLE | GT_CONTROL_IRQ_ENABLE | GT_CONTROL_AUTO_INC;
/// The control bits shared by every core (TRM; L).
pub const GT_CONTROL_SHARED: u32 = GT_CONTROL_TIMER_ENABLE | GT_CONTROL_PRESCALER_MASK;
/// Every defined control bit; bits 7:4 and 31:16 are reserved (TRM).
pub const GT_CONTROL_DEFINED: u32 = GT_CONTROL_BANKED | GT_CONTROL_SHARED;

/// The event flag, bit 0 of `GT_INT_STATUS`, write 1 to clear (TRM; L
/// `GT_INT_STATUS_EVENT_FLAG`; Q clears the bits written as 1).
pub const GT_INT_STATUS_EVENT_FLAG: u32 = 1 << 0;

/// QEMU's input rate: one tick every 10 ns at prescaler 0 (Q: `(prescaler + 1) * 10` ns
/// per tick), 100 MHz.
pub const QEMU_INPUT_HZ: u32 = 100_000_000;
