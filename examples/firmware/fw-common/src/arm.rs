//! 32-bit ARM (ARMv7-A) support shared by the ARM boards.
//!
//! | item | what it is |
//! |---|---|
//! | [`arm_board!`](crate::arm_board) | the board's `kmain`/`kmain_secondary` over the `aarch32-rt` runtime (which owns the reset code, the vector table, the per-CPU mode stacks, `.data`/`.bss`), SCTLR.V, IRQ and fatal-exception handlers, panic handler, banner |
//! | [`gic`] | the ARM GIC (v1/v2) distributor and CPU interface, as far as a firmware needs them |
//! | [`pmu`] | the PMU: PMCCNTR (virtual nanoseconds under QEMU) and an instruction counter (event 0x08), with the emulation speed measured from the two |
//! | [`mmu`] | a flat section-mapped translation table and the MMU/cache enable sequence (RAM Normal, devices Device), for firmware that runs an executor |
//! | [`exynos4210`], [`npcm7xx`] | the two SoCs' consoles (`Uart0`) and the addresses a firmware on them needs first: RAM, GIC, timer interrupt IDs |
//! | functions below | semihosting exit, CP15 identification, VBAR ([`use_rt_vectors`]), CPSR.I (with [`irq_save`] / [`irq_restore`] for [`critical_section_impl!`](crate::critical_section_impl)), exception names |
//!
//! The functions use A32 encodings and must run in a privileged mode (the boards' code runs in
//! SYS mode, `aarch32-rt`'s choice; exception handlers in SYS (IRQ), UND, ABT, SVC or FIQ).
//!
//! # Ecosystem crates tried for the ARM boards: adopted, or why not
//!
//! Each was built for `armv7a-none-eabi` with Debian's rustc 1.96 and `-Zbuild-std=core` in
//! a scratch crate outside this workspace (all build there):
//!
//! | crate | verdict |
//! |---|---|
//! | `semihosting` 0.1.25 (MSRV 1.64) | adopted for the ARM exit: [`semihosting_exit`] is `semihosting::process::exit(0 or 1)`, no features. On 32-bit ARM the crate makes `SYS_EXIT_EXTENDED` `[ApplicationExit, status]` (QEMU exits with `status`), then `SYS_EXIT` if the host returns, through `svc 0x123456`; npcm750, smdkc210, smdkc210-async and npcm750-net exit 0 at `-icount` 0 and 4, and a forced `finish(false)` made QEMU exit 1 (checked on npcm750 and smdkc210, not committed). MIPS: the crate's UHI `exit` (`sdbbp 1`) is what `fw_common::mips::exit` does, and Debian's QEMU 10.0 serves UHI with `-semihosting`, so `fw_common::mips::exit` is the crate's `process::exit` too (otto-malta exits 0, and 3 when forced to, at `-icount` 0 and 4). LoongArch: the crate traps with `dbcl 0xab`, which upstream QEMU does not serve: QEMU 10.0 says `-semihosting: Option not supported for this target` for `qemu-system-loongarch64`, and the crate's own tests use a patched QEMU; the LoongArch boards keep the GED poweroff (`fw_common::loongarch`). |
//! | `arm-gic` 0.10 (`gicv2::GicV2`) | rejected: the only call that enables a CPU interface is `setup()`, which also rewrites the distributor (`IGROUPR` for all IDs, `GICD_CTLR`), so a secondary cannot bring up just its banked interface ([`gic::Gic::init_cpu_interface`]) without touching shared state CPU0 configures; every method takes `&mut self`, so a GIC shared by two cores needs one instance per core or a lock; and it pulls 20 more crates (arm-sysregs and four of its parts, safe-mmio, zerocopy, thiserror, proc-macro stacks) into a firmware that needs ~10 registers. |
//! | `aarch32-cpu` 0.4 `critical-section-multi-core` | tried on both two-core boards and kept ours ([`critical_section_multi_core_impl!`](crate::critical_section_multi_core_impl), [`cs::SpinLock`](crate::cs::SpinLock)). Trial: the workspace on `restore-state-u8`, the crate's implementation linked through fw-common, ours removed; npcm750 and smdkc210 passed at `-icount` 0 and 4 (contention checks included). Cost of one empty `critical_section::with`, loop included: 43 instructions on both boards against our 36 (`a9-global-timer/fw_cs_multi_core_insns`, `exynos-mct/fw_critical_section_insns`, both shifts): its `acquire`/`release` are not `#[inline]`, so every section calls through `_critical_section_1_0_acquire` into a framed function. The driver paths differ both ways (a9 `fw_comp_set_next_event_insns_*` 197 with it against 206 with ours, MCT `fw_comp_set_next_event_insns_two_cores` 366 against 359). Also against it: `acquire` carries a `panic!` and `release` an `unreachable!` (a panic path inside every section); the `u8` restore state is one per build, so the LoongArch and MIPS implementations and the single-core `critical_section_impl!` would have to move to `u8` or the feature be split by target. Its nesting rule (the restore state says "already locked by me", no depth counter) is the better design; revisit if the crate inlines its implementation. |
//! | `aarch32-rt` 0.5 (MSRV 1.93) | adopted: [`arm_board!`](crate::arm_board) is implemented over it on all four ARM boards (npcm750, npcm750-net, smdkc210, smdkc210-async) and the npcm750-evb and smdkc210 templates, which link with its `link.x` and a `memory.x` each (npcm750's `.dma` megabyte and its `ASSERT` are a `SECTIONS … INSERT AFTER .uninit` there). The runtime does: the reset code on every CPU (both start at the ELF entry under QEMU), VBAR = `_vector_table`, per-CPU stacks for all seven modes (`_num_cores = 2`), `.data` copy and `.bss` zeroing on CPU0, the IRQ entry (`_irq_handler`, called in SYS mode on the interrupted stack) and the undefined/abort entries. fw-common does: SCTLR.V = 0 on every CPU ([`use_rt_vectors`]; NPCM750 enters with V = 1), `_asm_secondary_core_park` (returns at once: the secondary's own code waits for the release, [`smp::wait_release`]), the SVC and FIQ stubs (the runtime's default SVC handler does not report and its FIQ handler spins), the fatal-exception report (its `lr` is the hardware's link register), the panic handler, banner and semihosting exit; SCU, ACTLR.SMP, MMU, GIC and the critical sections stay ours. The board code runs in SYS mode, not SVC (semihosting `svc 0x123456` from SYS mode is served by QEMU; no fw-common code writes CPSR.M). Cost: its IRQ entry is 12 instructions around the handler call (`srsfd`/`rfefd` on the SYS stack, 8-byte realignment) where a minimal entry takes 4; that shows in `stmmac-coalesce/qemu_tx_insns_per_frame` on npcm750-net, 346 against 339 with a 4-instruction entry over the same runtime (an IRQ lands in most TX spans); the `bench:` lines of npcm750 and smdkc210 are the same with either entry; smdkc210-async's wake-lateness figures vary from run to run. Faults checked on smdkc210 (`udf`, `svc #1`, `bkpt`, a misaligned `ldm`) and npcm750 (`udf`): each prints its `PANIC:` line and exits with status 1. It brings `aarch32-rt`, `aarch32-rt-macros`, `aarch32-cpu` 0.4, `arbitrary-int` 2, `bitbybit` 2, `num_enum`, `thiserror` 2 and their proc-macro crates into the lock files, and needs `arm-targets` 0.4.3 (embassy's `aarch32-cpu` 0.1 uses it too); its MSRV (1.93) is the firmware workspace's `rust-version` (the libraries' is 1.88; the boards are built with Debian's 1.96). |

pub mod exynos4210;
pub mod gic;
pub mod mmu;
pub mod npcm7xx;
pub mod pmu;
pub mod smp;

mod entry;

// The runtime: reset code, vector table, stacks and exception entries, which `arm_board!`
// builds on (only its symbols are used, through its `link.x`).
use aarch32_rt as _;

/// CPSR.I: IRQs masked.
pub const CPSR_I: u32 = 1 << 7;
/// SCTLR.V: high exception vectors (0xffff_0000), which override VBAR.
pub const SCTLR_V: u32 = 1 << 13;

/// Ends the emulation with status 0 for `success` and 1 otherwise, through the `semihosting`
/// crate's [`semihosting::process::exit`].
///
/// QEMU must run with `-semihosting`. On 32-bit ARM the crate first makes
/// `SYS_EXIT_EXTENDED` (0x20) with the block `[ADP_Stopped_ApplicationExit, status]`, which
/// QEMU serves by exiting with `status`; a host without it returns, and the crate then makes
/// `SYS_EXIT` (0x18) with `ADP_Stopped_ApplicationExit` (QEMU: status 0) or
/// `ADP_Stopped_RunTimeErrorUnknown` (status 1) in r1. Both go through `svc 0x123456`, the A32
/// trap (the crate's default; its `trap-hlt` feature is not enabled). Without a semihosting
/// host the `svc` is taken as a supervisor call, which [`arm_board!`](crate::arm_board)'s
/// vector reports as a fatal exception (whose own exit traps again): the boards' QEMU
/// commands all have `-semihosting`.
pub fn semihosting_exit(success: bool) -> ! {
    semihosting::process::exit(if success { 0 } else { 1 })
}

/// Ends the run: prints `done` or `FAILED` and exits through semihosting with the matching
/// status. For a firmware whose main never returns (an executor), called by its last task;
/// [`arm_board!`](crate::arm_board) does the same when main returns.
pub fn finish<C: crate::Console>(console: C, ok: bool) -> ! {
    crate::println!(console, "{}", if ok { "done" } else { "FAILED" });
    semihosting_exit(ok)
}

/// Reads MIDR (Main ID Register): implementer, variant, part number, revision.
pub fn midr() -> u32 {
    let value: u32;
    // SAFETY: reading MIDR has no side effects and is allowed at PL1, where the boards run.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c0, c0, 0", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Reads MPIDR (Multiprocessor Affinity Register); bits 1:0 are the CPU number in a cluster.
pub fn mpidr() -> u32 {
    let value: u32;
    // SAFETY: reading MPIDR has no side effects and is allowed at PL1, where the boards run.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c0, c0, 5", out(reg) value, options(nomem, nostack));
    }
    value
}

/// The part name for a MIDR (`"Cortex-A9"` for part 0xc09, the only one the boards have).
pub fn part_name(midr: u32) -> &'static str {
    match (midr >> 4) & 0xfff {
        0xc09 => "Cortex-A9",
        _ => "unknown part",
    }
}

/// Prints the identification lines every ARM board starts with:
/// `MIDR = 0x410fc090 (Cortex-A9 r0p0)` and `MPIDR = 0x...`.
pub fn print_cpu_ids<C: crate::Console + Copy>(console: C) {
    let midr = midr();
    crate::println!(
        console,
        "MIDR = {midr:#010x} ({} r{}p{})",
        part_name(midr),
        (midr >> 20) & 0xf,
        midr & 0xf
    );
    crate::println!(console, "MPIDR = {:#010x}", mpidr());
}

/// Reads VBAR (Vector Base Address Register). The entry code of
/// [`arm_board!`](crate::arm_board) points it at the board's vector table in RAM.
pub fn vbar() -> u32 {
    let value: u32;
    // SAFETY: reading VBAR has no side effects and is allowed at PL1.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c12, c0, 0", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Reads SCTLR (System Control Register).
pub fn sctlr() -> u32 {
    let value: u32;
    // SAFETY: reading SCTLR has no side effects and is allowed at PL1.
    unsafe {
        core::arch::asm!("mrc p15, 0, {}, c1, c0, 0", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Points the exception vectors at `base` (VBAR) and clears SCTLR.V, so they are taken from
/// there rather than from the high vectors (NPCM750 boots with V = 1).
///
/// # Safety
///
/// `base` must be 32-byte aligned and hold a valid A32 vector table (8 branch instructions
/// and whatever they branch to) for as long as exceptions may be taken. The table that
/// [`arm_board!`](crate::arm_board) installs at boot is replaced.
pub unsafe fn set_vbar(base: u32) {
    // SAFETY: the caller guarantees `base` is a valid vector table; writing VBAR and SCTLR.V
    // at PL1 is allowed; the `isb` makes the change visible to the next exception.
    unsafe {
        core::arch::asm!(
            "mcr p15, 0, {base}, c12, c0, 0",
            "mrc p15, 0, {t}, c1, c0, 0",
            "bic {t}, {t}, #(1 << 13)",
            "mcr p15, 0, {t}, c1, c0, 0",
            "isb",
            base = in(reg) base,
            t = out(reg) _,
            options(nostack),
        );
    }
}

/// Points VBAR at `aarch32-rt`'s `_vector_table` and clears SCTLR.V, so exceptions are taken
/// through the runtime's table rather than the high vectors: what
/// [`arm_board!`](crate::arm_board)'s `kmain` and `kmain_secondary` do first on every CPU.
///
/// The runtime sets VBAR but leaves SCTLR.V alone, and NPCM750 enters with V = 1 (its boot ROM
/// at 0xffff_0000), where VBAR is ignored.
pub fn use_rt_vectors() {
    unsafe extern "C" {
        /// `aarch32-rt`'s vector table (32-byte aligned; kept by its `link.x`).
        static _vector_table: u32;
    }
    // SAFETY: `_vector_table` is `aarch32-rt`'s 32-byte aligned table of eight `ldr pc`
    // entries into its exception entries, linked for the whole run (`EXTERN` in its link.x);
    // only its address is taken.
    unsafe { set_vbar(&raw const _vector_table as u32) };
}

/// Reads CPSR.
pub fn cpsr() -> u32 {
    let value: u32;
    // SAFETY: reading CPSR has no side effects.
    unsafe {
        core::arch::asm!("mrs {}, cpsr", out(reg) value, options(nomem, nostack));
    }
    value
}

/// Whether IRQs are unmasked (CPSR.I clear).
pub fn irq_enabled() -> bool {
    cpsr() & CPSR_I == 0
}

/// Unmasks IRQs (`cpsie i`).
///
/// # Safety
///
/// The IRQ vector must lead to a handler that acknowledges every source that may be pending
/// (an [`arm_board!`](crate::arm_board) with an `irq:` handler), and this must not be called
/// inside a critical section (the section would no longer exclude the handler).
pub unsafe fn irq_enable() {
    // SAFETY: the caller guarantees a handler is installed and no critical section is held;
    // the compiler must not move memory accesses across the point where the handler can run.
    unsafe { core::arch::asm!("cpsie i", options(nostack)) };
}

/// Masks IRQs (`cpsid i`). Always safe: it only delays interrupts.
pub fn irq_disable() {
    // SAFETY: masking IRQs cannot break an invariant; memory accesses are not moved across it.
    unsafe { core::arch::asm!("cpsid i", options(nostack)) };
}

/// Masks IRQs and returns whether they were unmasked before: the `acquire` half of the
/// [`critical_section_impl!`](crate::critical_section_impl) (see [`cs`](crate::cs)).
#[inline(always)]
pub fn irq_save() -> bool {
    let cpsr: u32;
    // SAFETY: reading CPSR and setting the I bit is allowed at PL1 (SYS, the boards' mode) and
    // only delays IRQs; not `nomem`, so memory accesses stay on their side of it.
    unsafe {
        core::arch::asm!("mrs {0}, cpsr", "cpsid i", out(reg) cpsr, options(nostack));
    }
    cpsr & CPSR_I == 0
}

/// Unmasks IRQs (`cpsie i`): the `release` half of the
/// [`critical_section_impl!`](crate::critical_section_impl) (see [`cs`](crate::cs)).
///
/// # Safety
///
/// Only to end the outermost critical section of a context that ran with IRQs unmasked,
/// i.e. after an [`irq_save`] that returned `true`.
#[inline(always)]
pub unsafe fn irq_restore() {
    // SAFETY: the caller ends the outermost section, whose IRQs were unmasked when it began;
    // not `nomem`, so the section's memory accesses stay before it.
    unsafe { core::arch::asm!("cpsie i", options(nostack)) };
}

/// The name of an exception by its vector number (0 reset … 7 FIQ), as reported by the
/// fatal-exception path of [`arm_board!`](crate::arm_board).
pub fn exception_name(vector: u32) -> &'static str {
    match vector {
        0 => "reset",
        1 => "undefined instruction",
        2 => "supervisor call",
        3 => "prefetch abort",
        4 => "data abort",
        5 => "reserved (0x14)",
        6 => "IRQ",
        7 => "FIQ",
        _ => "unknown",
    }
}

/// The default IRQ handler of [`arm_board!`](crate::arm_board) for boards that take no
/// interrupts: an IRQ is unexpected, so the run stops with a failure status.
pub fn unexpected_irq() {
    semihosting_exit(false)
}

/// Runs exactly `2 * iterations` instructions (`subs` + `bne` per iteration) plus a constant
/// few around them: a known amount of CPU work, which takes `2 * iterations * 2^N` ns of
/// virtual time under `-icount shift=N`.
pub fn spin_insns(iterations: u32) {
    if iterations == 0 {
        return;
    }
    // SAFETY: a register-only countdown loop; touches no memory and no stack.
    unsafe {
        core::arch::asm!(
            "1:",
            "subs {0}, {0}, #1",
            "bne 1b",
            inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}
