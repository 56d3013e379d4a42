//! DMA memory: the regions rings are carved from, bus addresses, cache maintenance, and the
//! descriptor geometry both rings share.
//!
//! # Placement
//!
//! A ring owns one [`DmaRegion`]: raw memory the CPU and the DMA share for the rest of the
//! program. Descriptors and buffers are carved from it at run time, each starting on a
//! cache line and padded to whole lines ([`DmaConfig::cache_line`]), so cleaning or
//! invalidating one never touches another. Descriptors are spaced by the same stride, which
//! the DMA learns from DMA_BUS_MODE.DSL (descriptor skip length, in bus-width words).
//!
//! The memory is only ever reached through raw pointers derived from the region (volatile
//! for descriptor words), never through a `&mut` that outlives a single access, because the
//! DMA writes it behind the compiler's back. A [`DmaRegion`] comes from a `static`
//! [`DmaMemory`] (taken once), from a `&'static mut` buffer (consumed), or from a raw range
//! under an `unsafe` promise ([`DmaRegion::from_raw`]).
//!
//! # Cache maintenance
//!
//! [`CacheOps`] is the hook: the ring calls [`clean`](CacheOps::clean) on a buffer and a
//! descriptor after writing them and before the DMA may read them, and
//! [`invalidate`](CacheOps::invalidate) before the CPU reads what the DMA wrote (and on an
//! RX buffer before handing it to the DMA, so no dirty line can later be evicted over the
//! DMA's data). [`Coherent`] does nothing; it is correct only when the region is
//! **uncached** (mapped Device or Normal non-cacheable, or on a core without data cache,
//! like the npcm750 under QEMU with its MMU off) or **DMA-coherent** (an ACP/CCI port or a
//! snooping interconnect that keeps caches and DMA coherent). Anything else needs a real
//! implementation (for example `DCCMVAC`/`DCIMVAC` by line on ARMv7-A, `SCB` clean/invalidate
//! by address on Cortex-M7, `cache` ops on MIPS).
//!
//! ## When `Coherent` is the wrong choice: an outer cache's store buffer
//!
//! "Uncached" must hold all the way to memory. Normal non-cacheable memory is *bufferable*:
//! behind an outer cache controller such as the ARM L2C-310 (PL310, on the NPCM750,
//! Zynq-7000, i.MX6, Exynos 4) its stores can wait in the controller's store buffer after
//! the CPU's `dsb` has completed them. The DMA reads memory behind the controller, so after
//! a poll demand it can fetch the old OWN bit: the frame stays unsent until the next
//! doorbell (a lost doorbell), or, on RX, the DMA sees no free descriptor and suspends.
//! Linux's ARM `wmb()` is `dsb st` plus `outer_sync()` for this reason. So with rings in
//! Normal non-cacheable memory on a system with an outer cache, [`Coherent`] alone is
//! wrong: use [`WithSync`]`::new(Coherent, `[`Pl310Sync`](crate::dma::barrier::Pl310Sync)`)`,
//! whose [`before_doorbell`](CacheOps::before_doorbell) drains the buffer before each poll
//! demand. `Coherent` alone is right for Device or Strongly-ordered mappings (not
//! bufferable past the interconnect's ordering point), on systems without an outer cache,
//! and for memory a coherent port (ACP) serves. A real `CacheOps` on cached memory must
//! include the outer sync in [`clean`](CacheOps::clean) (its lines "in memory") or in
//! `before_doorbell`.

pub mod barrier;
mod cache;
mod desc;
mod geometry;

pub use crate::common::{Coe, DESC_SIZE, DescLayout, DmaConfig, DmaSetup, Offload, RxCoe};
pub(crate) use cache::check_line;
pub use cache::{CacheOps, Coherent, WithSync};
pub(crate) use desc::Desc;
pub(crate) use geometry::RingGeometry;
pub use geometry::{MAX_RING, ring_bytes};

use core::cell::UnsafeCell;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, Ordering};

/// Gives the 32-bit bus address the DMA must be told for a CPU pointer.
///
/// # Safety
///
/// The DMA will read and write the memory at the returned address, so an implementation
/// must be right about it: for every pointer `p` it answers `Some(a)` for, a DMA access at
/// bus address `a + n` must reach exactly the byte at `p + n`, for every `n` up to the end
/// of the [`DmaRegion`] `p` belongs to (a region is linear on the bus), and nothing else.
/// Answer `None` for memory the DMA cannot reach (above 4 GiB, outside a window, …).
///
/// [`bus_addr64`](Self::bus_addr64) is the same map without the 4 GiB limit, for
/// QoS 4.x/5.x's 40/48-bit addressing (DRAM above 4 GiB on the i.MX8MP, RK3568 and Tegra194):
/// the same promise holds for every address it answers. Its default widens `bus_addr`;
/// override it (and answer `None` from `bus_addr` above 4 GiB) for memory a 32-bit DMA
/// cannot reach. A layout that addresses 32 bits (GMAC 3.x) asks `bus_addr` only.
pub unsafe trait DmaAddr {
    /// The 32-bit bus address of `ptr`, if the DMA can reach it with 32 address bits.
    fn bus_addr(&self, ptr: *const u8) -> Option<u32>;

    /// The bus address of `ptr` with up to 64 address bits, if the DMA can reach it.
    fn bus_addr64(&self, ptr: *const u8) -> Option<u64> {
        self.bus_addr(ptr).map(u64::from)
    }
}

// SAFETY: forwards to `T`, which upholds the contract.
unsafe impl<T: DmaAddr + ?Sized> DmaAddr for &T {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        (**self).bus_addr(ptr)
    }
    fn bus_addr64(&self, ptr: *const u8) -> Option<u64> {
        (**self).bus_addr64(ptr)
    }
}

/// The identity DMA mapping: bus address = CPU address (no MMU, or a flat 1:1 map with no
/// DMA offset), refused above 4 GiB. Constructing one is the platform claim that this is
/// true. (Named for what it maps, not `Identity`: in this family that word also names a
/// chip identity.)
#[derive(Debug, Clone, Copy)]
pub struct IdentityMap(());

impl IdentityMap {
    /// The identity DMA mapping.
    ///
    /// # Safety
    /// On this platform the GMAC's DMA must see every CPU address it is given at the same
    /// bus address (true on the npcm750 with the MMU off; false behind an IOMMU, with a DMA
    /// offset, or for virtual addresses that are not physical ones).
    pub const unsafe fn new() -> Self {
        Self(())
    }
}

// SAFETY: the caller of `IdentityMap::new` promised that CPU addresses are bus addresses.
unsafe impl DmaAddr for IdentityMap {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        u32::try_from(ptr as usize).ok()
    }
    fn bus_addr64(&self, ptr: *const u8) -> Option<u64> {
        u64::try_from(ptr as usize).ok()
    }
}

/// Memory shared with the DMA, for a `static` (zeroed, so it lands in `.bss`):
/// `static TX_MEM: DmaMemory<{ stmmac_coalesce::ring_bytes(32, 1536, 32) }> = DmaMemory::new();`,
/// then [`take`](Self::take) it once.
#[repr(C, align(64))]
pub struct DmaMemory<const N: usize> {
    mem: UnsafeCell<[u8; N]>,
    taken: AtomicBool,
}

// SAFETY: the bytes are only reached through the single `DmaRegion` `take` hands out (the
// flag is swapped atomically, so exactly one caller sees it clear); `Sync` just allows a
// `static`.
unsafe impl<const N: usize> Sync for DmaMemory<N> {}

impl<const N: usize> DmaMemory<N> {
    /// Zeroed memory.
    pub const fn new() -> Self {
        Self {
            mem: UnsafeCell::new([0; N]),
            taken: AtomicBool::new(false),
        }
    }

    /// The memory as a region, the first time only (`None` afterwards).
    pub fn take(&'static self) -> Option<DmaRegion> {
        let first = !self.taken.swap(true, Ordering::AcqRel);
        let ptr = NonNull::new(self.mem.get().cast::<u8>())?;
        first.then_some(DmaRegion { ptr, len: N })
    }
}

impl<const N: usize> Default for DmaMemory<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// A range of memory handed to a ring for the rest of the program (see the
/// [module docs](self)). Not `Clone`: exactly one owner.
#[derive(Debug)]
pub struct DmaRegion {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a region is the unique handle on its memory (see the constructors); moving it to
// another thread moves that ownership.
unsafe impl Send for DmaRegion {}

impl DmaRegion {
    /// Take a `'static` buffer for good (the borrow is consumed, so nothing else can reach
    /// it through safe code again).
    pub fn from_static(mem: &'static mut [u8]) -> Self {
        let len = mem.len();
        Self {
            ptr: NonNull::from(mem).cast::<u8>(),
            len,
        }
    }

    /// A region over raw memory.
    ///
    /// # Safety
    /// `len` bytes at `ptr` must be valid for reads and writes for the rest of the program,
    /// and nothing else may access them (the DMA and this region's ring only).
    pub const unsafe fn from_raw(ptr: NonNull<u8>, len: usize) -> Self {
        Self { ptr, len }
    }

    /// First byte.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the region has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Split into `[0, at)` and `[at, len)` (`at` clamped to the length), e.g. one static
    /// for both rings.
    pub fn split_at(self, at: usize) -> (Self, Self) {
        let at = at.min(self.len);
        // `at <= len`, so the second pointer stays inside (or one past) the allocation.
        let second = self.ptr.as_ptr().wrapping_add(at);
        let second = NonNull::new(second).unwrap_or(self.ptr);
        (
            Self {
                ptr: self.ptr,
                len: at,
            },
            Self {
                ptr: second,
                len: self.len.saturating_sub(at),
            },
        )
    }
}
