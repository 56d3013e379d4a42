//! A flat (virtual = physical) translation table of 1 MiB sections for ARMv7-A, and the
//! boot sequence that turns the MMU and the caches on with it: RAM as Normal memory
//! (write-back, write-allocate, shareable), everything else as Device memory, never
//! executable.
//!
//! # Why a firmware that runs an executor needs it
//!
//! With the MMU off, every data access of an ARMv7-A core is to Strongly-ordered memory, and
//! the architecture does not define what LDREX/STREX do there (the exclusive monitors are
//! specified for Normal memory; ARM ARM, "Synchronization and semaphores"). QEMU executes
//! them anyway, silicon need not. Async executors, wakers and queues are built on atomic
//! read-modify-write (`compare_exchange`, `fetch_or`, ...), which is LDREX/STREX on ARMv7,
//! so a firmware that runs one maps its RAM as Normal memory first, as any real boot does.
//! The firmware that does not (the synchronous boards) avoids exclusives instead (see
//! [`cs`](crate::cs), which keeps no state in memory, and [`StaticCell`](crate::StaticCell)).
//!
//! A flat section map is enough: 4096 short-descriptor entries (16 KiB, 16 KiB aligned),
//! each mapping its own megabyte. It is computed at compile time ([`FlatMap::new`]), so it
//! lives in the image and nothing writes it at run time.
//!
//! # Descriptor bits (ARM ARM B3.5.1, short-descriptor section)
//!
//! | bits | RAM | devices |
//! |---|---|---|
//! | `[1:0]` type | `0b10` section | `0b10` section |
//! | `B` (2), `C` (3), `TEX` (14:12) | `TEX=001 C=1 B=1`: Normal, inner and outer write-back write-allocate | `TEX=000 C=0 B=1`: Shareable Device |
//! | `XN` (4) | 0 | 1 (no instruction fetch from device space) |
//! | domain (8:5) | 0 | 0 |
//! | `AP[1:0]` (11:10), `AP[2]` (15) | `0b11`, 0: read/write at every level | same |
//! | `S` (16) | 1 (shareable, as Linux maps RAM on an MPCore) | ignored for Device |
//!
//! Domain 0 is a *client* domain (DACR = 1), so the AP bits are checked.

use core::arch::asm;

/// One megabyte, the size of a section.
pub const SECTION_SIZE: u32 = 1 << 20;

/// Section descriptor type bits.
const SECTION: u32 = 0b10;
/// Bufferable.
const B: u32 = 1 << 2;
/// Cacheable.
const C: u32 = 1 << 3;
/// Execute-never.
const XN: u32 = 1 << 4;
/// AP[1:0] = 0b11: full access.
const AP_FULL: u32 = 0b11 << 10;
/// TEX = 0b001.
const TEX_001: u32 = 0b001 << 12;
/// Shareable.
const S: u32 = 1 << 16;

/// Attributes of a RAM section: Normal, write-back write-allocate, shareable, executable.
pub const NORMAL_WB: u32 = SECTION | AP_FULL | TEX_001 | C | B | S;
/// Attributes of a DMA section ([`FlatMap::with_uncached`]): Normal, non-cacheable,
/// shareable, executable.
pub const NORMAL_NC: u32 = SECTION | AP_FULL | TEX_001 | S;
/// Attributes of every other section: Shareable Device, execute-never.
pub const DEVICE: u32 = SECTION | AP_FULL | B | XN;

/// SCTLR.M: MMU enable.
pub const SCTLR_M: u32 = 1 << 0;
/// SCTLR.C: data and unified caches enable.
pub const SCTLR_C: u32 = 1 << 2;
/// SCTLR.Z: branch prediction enable.
pub const SCTLR_Z: u32 = 1 << 11;
/// SCTLR.I: instruction cache enable.
pub const SCTLR_I: u32 = 1 << 12;
/// ACTLR.SMP (Cortex-A9): take part in coherency, needed for the caches and the exclusive
/// monitors on shareable memory.
const ACTLR_SMP: u32 = 1 << 6;

/// A flat translation table: every megabyte mapped to itself.
#[repr(C, align(16384))]
pub struct FlatMap([u32; 4096]);

impl FlatMap {
    /// The table for RAM at `ram_base .. ram_base + ram_len` (both multiples of 1 MiB; a
    /// partial megabyte counts as RAM) and device space everywhere else.
    pub const fn new(ram_base: u32, ram_len: u32) -> Self {
        let start = ram_base & !(SECTION_SIZE - 1);
        let mut table = [0u32; 4096];
        let mut i = 0;
        while i < table.len() {
            let base = (i as u32) << 20;
            let ram = base >= start && base - start < ram_len;
            table[i] = base | if ram { NORMAL_WB } else { DEVICE };
            i += 1;
        }
        Self(table)
    }

    /// The same table with the sections of `base .. base + len` (rounded out to whole
    /// megabytes) remapped as Normal **non-cacheable** shareable memory (TEX=001, C=0,
    /// B=0, S=1): for DMA buffers that a driver treats as coherent without cache
    /// maintenance, while exclusives still see Normal memory.
    pub const fn with_uncached(mut self, base: u32, len: u32) -> Self {
        let start = base >> 20;
        let end = (base as u64 + len as u64 + (SECTION_SIZE as u64 - 1)) >> 20;
        let mut i = start as usize;
        while i < end as usize && i < self.0.len() {
            self.0[i] = ((i as u32) << 20) | NORMAL_NC;
            i += 1;
        }
        self
    }

    /// The descriptor that maps `address`.
    pub const fn entry(&self, address: u32) -> u32 {
        self.0[(address >> 20) as usize]
    }

    /// Whether `address` is mapped as Normal (RAM) memory.
    pub const fn is_normal(&self, address: u32) -> bool {
        self.entry(address) & (TEX_001 | C | B) == TEX_001 | C | B
    }
}

/// Reads SCTLR.
fn sctlr() -> u32 {
    super::sctlr()
}

/// Invalidates the level-1 data cache by set/way (DCISW), as a core must before it turns
/// its caches on: their contents are unknown after reset. Nothing is written back (nothing
/// valid can be in a cache that was never on).
fn invalidate_l1_dcache() {
    let ccsidr: u32;
    // SAFETY: CSSELR = 0 selects the level-1 data cache; reading CCSIDR describes it. Both
    // are PL1 registers without side effects on memory.
    unsafe {
        asm!(
            "mcr p15, 2, {zero}, c0, c0, 0",
            "isb",
            "mrc p15, 1, {ccsidr}, c0, c0, 0",
            zero = in(reg) 0u32,
            ccsidr = out(reg) ccsidr,
            options(nomem, nostack),
        );
    }
    let line_shift = (ccsidr & 0x7) + 4; // log2(bytes per line)
    let ways = ((ccsidr >> 3) & 0x3ff) + 1;
    let sets = ((ccsidr >> 13) & 0x7fff) + 1;
    // The way number sits in the top bits: shift = 32 - ceil(log2(ways)).
    let way_shift = (ways - 1).leading_zeros();
    for way in 0..ways {
        for set in 0..sets {
            let value = (way.checked_shl(way_shift).unwrap_or(0)) | (set << line_shift);
            // SAFETY: DCISW invalidates one line of the L1 data cache (level field 0); the
            // cache is off, so no data the program wrote can be in it.
            unsafe { asm!("mcr p15, 0, {}, c7, c6, 2", in(reg) value, options(nostack)) };
        }
    }
}

/// Turns on the MMU with `table`, then the data and instruction caches and branch
/// prediction. Returns SCTLR as read back.
///
/// Sequence: ACTLR.SMP = 1; invalidate the TLBs, the instruction cache, the branch
/// predictor and the L1 data cache; DACR = client for domain 0; TTBCR = 0 (TTBR0 only);
/// TTBR0 = `table` (table walks non-cacheable: the table is never written again); then
/// SCTLR.M, C, I and Z with the barriers the architecture asks for.
///
/// # Safety
///
/// - Call once per core, early, with that core's MMU and caches off (every core of an SMP
///   firmware, with the same table; on the A9 after CPU0 enabled the SCU,
///   [`smp::scu_enable`](super::smp::scu_enable)). ACTLR.SMP is set here, first.
/// - `table` must map everything the program touches from then on: the image, stacks and
///   every RAM buffer inside its RAM range (flat, so addresses do not change), and the
///   devices outside it.
/// - No DMA may be running (its buffers would become cacheable without maintenance).
pub unsafe fn enable(table: &'static FlatMap) -> u32 {
    let ttbr0 = table as *const FlatMap as u32;
    // SAFETY: ACTLR is read-modify-written at PL1 to set SMP only (on QEMU, whose A9 models
    // it as a constant, the write is ignored).
    unsafe {
        asm!(
            "mrc p15, 0, {t}, c1, c0, 1",
            "orr {t}, {t}, {smp}",
            "mcr p15, 0, {t}, c1, c0, 1",
            "isb",
            t = out(reg) _,
            smp = in(reg) ACTLR_SMP,
            options(nomem, nostack),
        );
    }
    // SAFETY: TLBIALL, ICIALLU and BPIALL only discard cached translations, instructions
    // and predictions; with the MMU and caches off none is in use.
    unsafe {
        asm!(
            "mcr p15, 0, {zero}, c8, c7, 0",
            "mcr p15, 0, {zero}, c7, c5, 0",
            "mcr p15, 0, {zero}, c7, c5, 6",
            "dsb",
            "isb",
            zero = in(reg) 0u32,
            options(nostack),
        );
    }
    invalidate_l1_dcache();
    // SAFETY: the caller guarantees `table` maps everything in use, flat; the barriers make
    // the table address and attributes visible before SCTLR.M turns translation on, and the
    // final `isb` before the next instruction is fetched through it. The table is in the
    // image, written before the MMU was on and never again, so non-cacheable walks see it.
    unsafe {
        asm!(
            "dsb",
            "mcr p15, 0, {dacr}, c3, c0, 0",
            "mcr p15, 0, {zero}, c2, c0, 2",
            "mcr p15, 0, {ttbr0}, c2, c0, 0",
            "isb",
            "mrc p15, 0, {t}, c1, c0, 0",
            "orr {t}, {t}, {on}",
            "mcr p15, 0, {t}, c1, c0, 0",
            "isb",
            dacr = in(reg) 1u32,
            zero = in(reg) 0u32,
            ttbr0 = in(reg) ttbr0,
            on = in(reg) SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_Z,
            t = out(reg) _,
            options(nostack),
        );
    }
    sctlr()
}

/// Whether the MMU and the data cache are on (SCTLR.M and C).
pub fn enabled() -> bool {
    sctlr() & (SCTLR_M | SCTLR_C) == SCTLR_M | SCTLR_C
}

/// Zeroes the board's `.dma` section (`__sdma`..`__edma`, defined in its `memory.x`): the
/// statics there are `NOLOAD`, so nothing else clears them. Call before anything uses them.
///
/// # Safety
///
/// The board's linker script defines `__sdma` and `__edma` (4-byte aligned, `__sdma <=
/// __edma`) around statics whose all-zero bytes are their initial state, and nothing uses
/// them yet (no DMA, no reference).
pub unsafe fn zero_dma_section() {
    unsafe extern "C" {
        static mut __sdma: u32;
        static mut __edma: u32;
    }
    let mut p = &raw mut __sdma;
    while p < &raw mut __edma {
        // SAFETY: inside `__sdma..__edma` (the caller's promise), word-aligned, unused.
        unsafe {
            p.write_volatile(0);
            p = p.add(1);
        }
    }
}
