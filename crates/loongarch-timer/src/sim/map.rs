//! The model's own CSR numbers and fields of a LoongArch core's timer, interrupt and
//! CPUCFG state, each fact cited beside it. Nothing here is taken from the driver
//! ([`crate::csr`], [`crate::cpucfg`]); `tests/model/register_map.rs` compares the two maps entry
//! by entry.
//!
//! Sources (facts only; Linux and QEMU are GPL and no code is copied):
//!
//! - **(RM)** *LoongArch Reference Manual, Volume 1: Basic Architecture*, "Control and
//!   Status Registers" (the CSR list: TCFG 0x41, TVAL 0x42, CNTC 0x43, TICLR 0x44; the
//!   TCFG, ESTAT, ECFG, CRMD and CPUID fields) and the `cpucfg` word table (CPUCFG2.LLFTP,
//!   CPUCFG4 CC_FREQ, CPUCFG5 CC_MUL/CC_DIV);
//! - **(Q)** `qemu/qemu target/loongarch/cpu-csr.h` (`LOONGARCH_CSR_TID` / `TMID` 0x40,
//!   `TCFG` 0x41 with `EN` bit 0, `PERIODIC` bit 1, `INIT_VAL` bits 2.. 46 wide, `TVAL`
//!   0x42, `CNTC` 0x43, `TICLR` 0x44) and `target/loongarch/cpu.h` (`IRQ_TIMER` 11);
//! - **(L)** `torvalds/linux arch/loongarch/include/asm/loongarch.h` (`LOONGARCH_CSR_*`,
//!   `CSR_TCFG_VAL` = `0x3fffffffffff << 2`, `CSR_ESTAT_IS_TI`/`INT_TI` = 11,
//!   `CPUCFG2_LLFTP` = bit 14).
//!
//! Names differ between the sources for two CSRs: QEMU's older headers call 0x40 `TMID`
//! and 0x44 `TINTCLR`, its newer ones `TID` and `TICLR`; Linux uses `TMID` and `TINTCLR`.
//! The numbers agree.

/// `CRMD`, current mode (RM; Q; L).
pub const CSR_CRMD: usize = 0x0;
/// `PRMD`, pre-exception mode (RM; Q; L).
pub const CSR_PRMD: usize = 0x1;
/// `EUEN`, extended unit enable (RM; Q; L).
pub const CSR_EUEN: usize = 0x2;
/// `ECFG`, exception configuration (RM; Q; L).
pub const CSR_ECFG: usize = 0x4;
/// `ESTAT`, exception status (RM; Q; L).
pub const CSR_ESTAT: usize = 0x5;
/// `ERA`, exception return address (RM; Q; L).
pub const CSR_ERA: usize = 0x6;
/// `BADV`, bad virtual address (RM; Q; L).
pub const CSR_BADV: usize = 0x7;
/// `EENTRY`, exception entry (RM; Q; L).
pub const CSR_EENTRY: usize = 0xC;
/// `CPUID`, core number (RM; Q; L).
pub const CSR_CPUID: usize = 0x20;
/// `PRCFG1`, privileged resource configuration 1 (RM; Q; L).
pub const CSR_PRCFG1: usize = 0x21;
/// `TID` / `TMID`, the timer's ID (RM; Q; L).
pub const CSR_TMID: usize = 0x40;
/// `TCFG`, timer configuration (RM; Q; L).
pub const CSR_TCFG: usize = 0x41;
/// `TVAL`, ticks left (RM; Q; L).
pub const CSR_TVAL: usize = 0x42;
/// `CNTC`, the counter compensation added to `rdtime` (RM; Q; L).
pub const CSR_CNTC: usize = 0x43;
/// `TICLR` / `TINTCLR`, timer interrupt clear (RM; Q; L).
pub const CSR_TICLR: usize = 0x44;

/// `TCFG.En`, bit 0 (RM; Q `EN`).
pub const TCFG_EN: u64 = 1 << 0;
/// `TCFG.Periodic`, bit 1 (RM; Q `PERIODIC`).
pub const TCFG_PERIODIC: u64 = 1 << 1;
/// `TCFG.InitVal`, bits 47:2: the count's low two bits are not stored (Q `INIT_VAL` at
/// bit 2, 46 bits; L `CSR_TCFG_VAL`). The manual makes the top bit implementation-defined
/// (`TimerBits`); 48 is what QEMU and Linux use.
pub const TCFG_INITVAL: u64 = ((1 << 46) - 1) << 2;

/// `TICLR.CLR`, bit 0: write 1 to clear `ESTAT.IS[TI]` (RM).
pub const TICLR_CLR: u64 = 1 << 0;

/// The timer interrupt's bit in `ESTAT.IS` and `ECFG.LIE`: 11 (RM; Q `IRQ_TIMER`; L
/// `INT_TI`).
pub const INT_TI: u32 = 11;
/// `ESTAT.IS[1:0]`, the two software interrupts: the only writable bits of ESTAT (RM).
pub const ESTAT_IS_SOFTWARE: u64 = 0b11;
/// `ECFG.LIE`, bits 12:0 (RM).
pub const ECFG_LIE: u64 = 0x1FFF;
/// `ECFG.VS`, bits 18:16 (RM).
pub const ECFG_VS: u64 = 0x7 << 16;
/// `CRMD.IE`, bit 2: global interrupt enable (RM).
pub const CRMD_IE: u64 = 1 << 2;
/// `CRMD.DA`, bit 3: direct address translation, set at reset (RM: CRMD resets to
/// `DA = 1`, `PLV = 0`, `IE = 0`).
pub const CRMD_DA: u64 = 1 << 3;
/// The defined bits of CRMD: PLV, IE, DA, PG, DATF, DATM (bits 9:0) (RM).
pub const CRMD_DEFINED: u64 = 0x3FF;
/// `CPUID.CoreID`, bits 8:0 (RM).
pub const CPUID_COREID: u64 = 0x1FF;

/// `cpucfg` word 2: the feature word holding `LLFTP` (RM).
pub const CPUCFG_FEATURES: usize = 2;
/// `cpucfg` word 2, bit 14, `LLFTP`: the constant-frequency timer and stable counter exist
/// (RM; L `CPUCFG2_LLFTP`).
pub const CPUCFG2_LLFTP: u32 = 1 << 14;
/// `cpucfg` word 4: `CC_FREQ`, the stable counter's crystal frequency in Hz (RM).
pub const CPUCFG_CC_FREQ: usize = 4;
/// `cpucfg` word 5: `CC_MUL` (bits 15:0) and `CC_DIV` (bits 31:16) (RM).
pub const CPUCFG_CC_MUL_DIV: usize = 5;
