//! Memory barriers at the DMA boundary, with Linux's semantics.
//!
//! Two orderings matter when the CPU hands a descriptor to the DWMAC:
//!
//! 1. **[`dma_wmb`] between the descriptor fields and OWN.** The DMA may fetch the
//!    descriptor as soon as OWN is visible, so every other descriptor word (and the frame in
//!    the buffer) must reach memory first. Both sides are ordinary memory, so a store-store
//!    barrier for the outer-shareable domain (where DMA masters live) is enough; it does not
//!    wait for completion. Linux: `dma_wmb()` before the OWN store in `stmmac_xmit` and in
//!    the RX refill (`norm_desc.c` / `enh_desc.c` `set_tx_owner` / `set_rx_owner`).
//! 2. **[`wmb`] between the last descriptor store and the MMIO doorbell**
//!    (DMA_XMT_POLL_DEMAND / DMA_RCV_POLL_DEMAND). The doorbell is a Device-memory store to
//!    a different slave than the descriptor's RAM; the DMA reacts to it by *reading* the
//!    descriptor, so the descriptor stores must have **completed**, not merely be ordered.
//!    That takes a completion barrier (`dsb`). Linux: `wmb()` before the tail-pointer /
//!    poll-demand write (`stmmac_enable_dma_transmission`).
//!
//! On the way back, [`dma_rmb`] sits between reading OWN clear and reading the rest of the
//! descriptor and the buffer, so those loads are not satisfied before the OWN load.
//!
//! | target | [`dma_wmb`] | [`wmb`] | [`dma_rmb`] | source (Linux `arch/*/include/asm/barrier.h`) |
//! |---|---|---|---|---|
//! | ARMv7-A/R (`armv7a-none-eabi`) | `dmb oshst` | `dsb st` | `dmb osh` | `arch/arm`: `dma_wmb` = `dmb(oshst)`, `wmb` = `dsb(st)` (+ `outer_sync`, see below), `dma_rmb` = `dmb(osh)` |
//! | ARMv7-M/ARMv8-M (`thumbv7em-none-eabihf`) | `dmb sy` | `dsb sy` | `dmb sy` | M-profile DMB/DSB know only the full-system option |
//! | AArch64 | `dmb oshst` | `dsb st` | `dmb oshld` | `arch/arm64` |
//! | MIPS32 | `sync` | `sync` | `sync` | `arch/mips`: `wmb` = `fast_wmb` = `__sync()`; `dma_*` fall back to `wmb`/`rmb` (emitted as `fence(SeqCst)`, which LLVM lowers to `sync`: MIPS inline assembly is unstable) |
//! | LoongArch64 | `dbar 0` | `dbar 0` | `dbar 0` | `arch/loongarch`: `dbar` with ordering hints; `0` is the full barrier every core implements |
//! | anything else (the host) | `fence(SeqCst)` | `fence(SeqCst)` | `fence(SeqCst)` | `core::sync::atomic` |
//!
//! # The outer cache: a pre-doorbell sync
//!
//! An ARMv7-A system with an outer L2 cache controller (an L2C-310, "PL310": the NPCM750,
//! Zynq-7000, i.MX6, Exynos 4 have one) needs one more step before the doorbell. Linux's
//! ARM `wmb()` is `dsb st` **plus `outer_sync()`**: the `dsb` completes the CPU's stores as
//! far as the L2C-310, but stores to Normal non-cacheable (bufferable) memory can still sit
//! in the controller's store buffer, where the DMA, reading memory behind the controller,
//! does not see them. A CACHE_SYNC write drains that buffer.
//!
//! [`DoorbellSync`] is that step. The rings call it through
//! [`CacheOps::before_doorbell`](crate::CacheOps::before_doorbell) after the handover
//! barrier ([`wmb`]) and before the poll demand; the default does nothing ([`NoSync`]).
//! [`Pl310Sync`] writes the L2C-310's CACHE_SYNC (offset 0x730), or, on RTL release r3p0,
//! the dummy register at 0x740 instead (ARM erratum 753970: a CACHE_SYNC write on r3p0 can
//! stall other L2C-310 operations; Linux selects the 0x740 offset for r3p0 only, when
//! `CONFIG_PL310_ERRATA_753970` is set, in `l2c310_fixup`). Pair it with any
//! [`CacheOps`](crate::CacheOps) through [`WithSync`](crate::dma::WithSync), for example
//! `WithSync::new(Coherent, pl310)` for rings in Normal non-cacheable memory.
//!
//! Every barrier is also a compiler barrier (the `asm!` blocks do not carry `nomem`).
//!
//! The host tests check the order on the model's side: the sim arena and the register bus
//! log what the DMA saw, in order (`sim::Seen`). A barrier instruction itself is not
//! observable on the host; the barrier functions carry no test hook.

use hwtimer_core::RegisterBus;

/// Store-store barrier for memory shared with the DMA: every store before it is observed
/// by the DMA before any store after it (between the descriptor words and OWN).
#[inline(always)]
pub fn dma_wmb() {
    arch::dma_wmb();
}

/// Load-load barrier for memory shared with the DMA (after reading OWN clear).
#[inline(always)]
pub fn dma_rmb() {
    arch::dma_rmb();
}

/// Completion barrier before an MMIO doorbell: every store before it has reached memory
/// before any later store (the doorbell) is issued.
#[inline(always)]
pub fn wmb() {
    arch::wmb();
}

/// A step between the handover barrier ([`wmb`]) and an MMIO doorbell, for write buffers a
/// `dsb` does not drain (an outer cache controller's store buffer); see the
/// [module docs](self#the-outer-cache-a-pre-doorbell-sync).
pub trait DoorbellSync {
    /// Make every store the CPU completed (up to the last [`wmb`]) visible to the DMA.
    /// Called once before each poll demand.
    fn before_doorbell(&self);
}

impl<T: DoorbellSync + ?Sized> DoorbellSync for &T {
    #[inline(always)]
    fn before_doorbell(&self) {
        (**self).before_doorbell()
    }
}

/// No pre-doorbell step: no outer cache between the CPU and the DMA's memory, or one the
/// [`CacheOps`](crate::CacheOps) in use already syncs.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSync;

impl DoorbellSync for NoSync {
    #[inline(always)]
    fn before_doorbell(&self) {}
}

/// The pre-doorbell sync of an ARM L2C-310 (PL310) outer cache controller: one write of 0
/// to CACHE_SYNC (0x730), or to the dummy register (0x740) on RTL release r3p0 (erratum
/// 753970), followed by [`wmb`] so the write has completed before the doorbell is issued.
/// Linux does not poll the sync register on the L2C-310 (its sync is a single write); nor
/// does this.
///
/// `B` is a bus over the controller's registers (a 4 KiB block), for example
/// [`hwtimer_core::Mmio`] on target.
#[derive(Debug)]
pub struct Pl310Sync<B: RegisterBus<Word = u32>> {
    bus: B,
    sync: usize,
}

impl<B: RegisterBus<Word = u32>> Pl310Sync<B> {
    /// REG0_CACHE_ID: implementer \[31:24\], part number \[9:6\], RTL release \[5:0\].
    pub const CACHE_ID: usize = 0x000;
    /// REG7_CACHE_SYNC.
    pub const CACHE_SYNC: usize = 0x730;
    /// The dummy register Linux writes instead of CACHE_SYNC on r3p0 (erratum 753970).
    pub const DUMMY_SYNC: usize = 0x740;
    /// CACHE_ID part number (bits \[9:6\]) of the L2C-310.
    pub const PART_L310: u32 = 0x3;
    /// CACHE_ID RTL release (bits \[5:0\]) of r3p0, the release erratum 753970 affects.
    pub const RTL_R3P0: u32 = 0x05;

    /// Read CACHE_ID and pick the sync register. `None` when the part number is not the
    /// L2C-310's (an L2C-210/220 needs a sync that polls; not provided).
    pub fn new(bus: B) -> Option<Self> {
        let id = bus.read_word(Self::CACHE_ID);
        if (id >> 6) & 0xF != Self::PART_L310 {
            return None;
        }
        let sync = if id & 0x3F == Self::RTL_R3P0 {
            Self::DUMMY_SYNC
        } else {
            Self::CACHE_SYNC
        };
        Some(Self { bus, sync })
    }

    /// The register each sync writes: [`CACHE_SYNC`](Self::CACHE_SYNC), or
    /// [`DUMMY_SYNC`](Self::DUMMY_SYNC) on r3p0.
    pub fn sync_offset(&self) -> usize {
        self.sync
    }
}

impl<B: RegisterBus<Word = u32>> DoorbellSync for Pl310Sync<B> {
    #[inline]
    fn before_doorbell(&self) {
        self.bus.write_word(self.sync, 0);
        wmb();
    }
}

#[cfg(all(target_arch = "arm", not(target_feature = "mclass")))]
mod arch {
    #[inline(always)]
    pub fn dma_wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb oshst", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn dma_rmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb osh", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dsb st", options(nostack, preserves_flags)) }
    }
}

#[cfg(all(target_arch = "arm", target_feature = "mclass"))]
mod arch {
    #[inline(always)]
    pub fn dma_wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb sy", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn dma_rmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb sy", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dsb sy", options(nostack, preserves_flags)) }
    }
}

#[cfg(target_arch = "aarch64")]
mod arch {
    #[inline(always)]
    pub fn dma_wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb oshst", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn dma_rmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dmb oshld", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn wmb() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dsb st", options(nostack, preserves_flags)) }
    }
}

#[cfg(target_arch = "mips")]
mod arch {
    // Inline assembly is not stable on MIPS; LLVM lowers every `fence` there to `sync`
    // (checked in the generated code), which is what Linux uses for all three.
    use core::sync::atomic::{Ordering, fence};
    #[inline(always)]
    pub fn dma_wmb() {
        fence(Ordering::SeqCst);
    }
    #[inline(always)]
    pub fn dma_rmb() {
        fence(Ordering::SeqCst);
    }
    #[inline(always)]
    pub fn wmb() {
        fence(Ordering::SeqCst);
    }
}

#[cfg(target_arch = "loongarch64")]
mod arch {
    #[inline(always)]
    fn dbar() {
        // SAFETY: a barrier instruction; no memory or register is changed.
        unsafe { core::arch::asm!("dbar 0", options(nostack, preserves_flags)) }
    }
    #[inline(always)]
    pub fn dma_wmb() {
        dbar();
    }
    #[inline(always)]
    pub fn dma_rmb() {
        dbar();
    }
    #[inline(always)]
    pub fn wmb() {
        dbar();
    }
}

#[cfg(not(any(
    target_arch = "arm",
    target_arch = "aarch64",
    target_arch = "mips",
    target_arch = "loongarch64"
)))]
mod arch {
    use core::sync::atomic::{Ordering, fence};
    #[inline(always)]
    pub fn dma_wmb() {
        fence(Ordering::SeqCst);
    }
    #[inline(always)]
    pub fn dma_rmb() {
        fence(Ordering::SeqCst);
    }
    #[inline(always)]
    pub fn wmb() {
        fence(Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// A PL310 register file that logs writes.
    struct L2c {
        id: u32,
        writes: RefCell<[(usize, u32); 4]>,
        n: core::cell::Cell<usize>,
    }
    impl L2c {
        fn new(id: u32) -> Self {
            Self {
                id,
                writes: RefCell::new([(0, 0); 4]),
                n: core::cell::Cell::new(0),
            }
        }
    }
    impl RegisterBus for L2c {
        type Word = u32;
        fn read_word(&self, offset: usize) -> u32 {
            if offset == 0 { self.id } else { 0 }
        }
        fn write_word(&self, offset: usize, value: u32) {
            let n = self.n.get();
            self.writes.borrow_mut()[n] = (offset, value);
            self.n.set(n + 1);
        }
    }

    // ARM implementer 0x41, part L310 (3 << 6), RTL release in [5:0].
    const fn id(rtl: u32) -> u32 {
        0x4100_0000 | (3 << 6) | rtl
    }

    #[test]
    fn pl310_r3p1_syncs_through_cache_sync() {
        let l2 = L2c::new(id(0x06));
        let s = Pl310Sync::new(&l2).expect("an L2C-310");
        s.before_doorbell();
        assert_eq!(l2.n.get(), 1);
        assert_eq!(l2.writes.borrow()[0], (0x730, 0));
    }

    #[test]
    fn pl310_r3p0_syncs_through_the_dummy_register_erratum_753970() {
        let l2 = L2c::new(id(0x05));
        let s = Pl310Sync::new(&l2).expect("an L2C-310");
        assert_eq!(s.sync_offset(), 0x740);
        s.before_doorbell();
        s.before_doorbell();
        assert_eq!(l2.n.get(), 2);
        assert_eq!(l2.writes.borrow()[..2], [(0x740, 0), (0x740, 0)]);
    }

    #[test]
    fn pl310_other_releases_use_cache_sync() {
        for rtl in [0x00, 0x02, 0x04, 0x07, 0x08, 0x09] {
            let l2 = L2c::new(id(rtl));
            assert_eq!(
                Pl310Sync::new(&l2).map(|s| s.sync_offset()),
                Some(0x730),
                "rtl {rtl:#x}"
            );
        }
    }

    #[test]
    fn not_an_l2c310_is_refused() {
        // L2C-220: part number 2 (Linux's L2X0_CACHE_ID_PART_L220 is 2 << 6).
        let l2 = L2c::new(0x4100_0000 | (2 << 6) | 0x05);
        assert!(Pl310Sync::new(&l2).is_none());
        assert_eq!(l2.n.get(), 0);
    }

    #[test]
    fn no_sync_writes_nothing() {
        NoSync.before_doorbell();
    }
}
