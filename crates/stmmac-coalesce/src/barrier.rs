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
//! An ARMv7-A system with an outer L2 cache controller (PL310) also needs an outer-cache
//! sync before the doorbell (Linux's `outer_sync()` inside `wmb`); that is the cache hook's
//! job ([`CacheOps::clean`](crate::CacheOps::clean) must leave the lines in memory, which
//! on a PL310 includes its sync).
//!
//! Every barrier is also a compiler barrier (the `asm!` blocks do not carry `nomem`).
//!
//! The host tests check the order on the model's side: the sim arena and the register bus
//! log what the DMA saw, in order (`sim::Seen`). A barrier instruction itself is not
//! observable on the host; the barrier functions carry no test hook.

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
