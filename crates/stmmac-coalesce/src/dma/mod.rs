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

use core::cell::UnsafeCell;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::common::{ConfigError, Error};
use crate::dma::barrier::DoorbellSync;
use crate::ring::desc::Desc;

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
/// [`bus_addr64`](Self::bus_addr64) is the same map without the 4 GiB limit, for the
/// DWMAC 4.x's 40/48-bit addressing (DRAM above 4 GiB on the i.MX8MP, RK3568 and Tegra194):
/// the same promise holds for every address it answers. Its default widens `bus_addr`;
/// override it (and answer `None` from `bus_addr` above 4 GiB) for memory a 32-bit DMA
/// cannot reach. A layout that addresses 32 bits (3.x) asks `bus_addr` only.
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

/// Cache maintenance around DMA transfers (see the [module docs](self)).
///
/// Ranges are byte ranges inside a ring's [`DmaRegion`]; the ring only ever passes ranges
/// that start on a line and cover whole lines of [`DmaConfig::cache_line`], so an
/// implementation may round outwards without touching a neighbour. The rings refuse a
/// [`DmaConfig::cache_line`] that is not a whole multiple of [`line`](Self::line)
/// ([`ConfigError::CacheLineTooShort`]), so a wrong line size in the configuration cannot
/// make an invalidation discard a neighbour's data; the line size is this trait's promise.
///
/// # Safety
///
/// [`line`](Self::line) must be at least the largest line any [`invalidate`](Self::invalidate)
/// or [`clean`](Self::clean) acts on (every cache level between the CPU and memory, an
/// outer L2 such as a PL310 included), and a power of two. `invalidate` and `clean` must
/// act on the lines covering the range given and on nothing else, and `clean` must leave
/// those lines in memory before it returns.
pub unsafe trait CacheOps {
    /// The cache line, in bytes, this implementation maintains (1 when it does nothing).
    fn line(&self) -> usize;
    /// Write back (clean) the lines covering `len` bytes at `ptr` to memory, so the DMA
    /// reads what the CPU wrote. Called before handing a descriptor or a TX buffer over.
    fn clean(&self, ptr: *const u8, len: usize);
    /// Discard the lines covering `len` bytes at `ptr`, so the CPU's next reads come from
    /// memory. Called before reading a descriptor or buffer the DMA wrote, and before
    /// handing an RX buffer to the DMA.
    fn invalidate(&self, ptr: *const u8, len: usize);
    /// Called once before each poll demand (DMA_XMT_POLL_DEMAND / DMA_RCV_POLL_DEMAND),
    /// after the handover barrier ([`wmb`](crate::dma::barrier::wmb)): drain any write buffer the
    /// barrier does not (an outer cache's store buffer; see
    /// [the module docs](self#when-coherent-is-the-wrong-choice-an-outer-caches-store-buffer)).
    /// The default does nothing.
    #[inline(always)]
    fn before_doorbell(&self) {}
}

// SAFETY: forwards to `T`, which upholds the contract.
unsafe impl<T: CacheOps + ?Sized> CacheOps for &T {
    fn line(&self) -> usize {
        (**self).line()
    }
    fn clean(&self, ptr: *const u8, len: usize) {
        (**self).clean(ptr, len)
    }
    fn invalidate(&self, ptr: *const u8, len: usize) {
        (**self).invalidate(ptr, len)
    }
    fn before_doorbell(&self) {
        (**self).before_doorbell()
    }
}

/// No cache maintenance: for uncached or DMA-coherent memory only (see the
/// [module docs](self) for the placement this requires).
#[derive(Debug, Clone, Copy, Default)]
pub struct Coherent;

// SAFETY: nothing is cleaned or invalidated, so no line of any size is discarded.
unsafe impl CacheOps for Coherent {
    #[inline(always)]
    fn line(&self) -> usize {
        1
    }
    #[inline(always)]
    fn clean(&self, _ptr: *const u8, _len: usize) {}
    #[inline(always)]
    fn invalidate(&self, _ptr: *const u8, _len: usize) {}
}

/// A [`CacheOps`] with a pre-doorbell step: line maintenance from `C`,
/// [`before_doorbell`](CacheOps::before_doorbell) from `S` (for example
/// `WithSync::new(Coherent, Pl310Sync::new(l2c_bus)?)` for rings in Normal non-cacheable
/// memory behind an L2C-310; see the [module docs](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct WithSync<C, S> {
    cache: C,
    sync: S,
}

impl<C: CacheOps, S: DoorbellSync> WithSync<C, S> {
    /// `cache`'s maintenance, then `sync` before each doorbell.
    pub const fn new(cache: C, sync: S) -> Self {
        Self { cache, sync }
    }
    /// The line maintenance.
    pub fn cache(&self) -> &C {
        &self.cache
    }
    /// The pre-doorbell step.
    pub fn sync(&self) -> &S {
        &self.sync
    }
}

// SAFETY: `line`, `clean` and `invalidate` forward to `C`, which upholds the contract; the
// pre-doorbell step touches no line.
unsafe impl<C: CacheOps, S: DoorbellSync> CacheOps for WithSync<C, S> {
    #[inline(always)]
    fn line(&self) -> usize {
        self.cache.line()
    }
    #[inline(always)]
    fn clean(&self, ptr: *const u8, len: usize) {
        self.cache.clean(ptr, len)
    }
    #[inline(always)]
    fn invalidate(&self, ptr: *const u8, len: usize) {
        self.cache.invalidate(ptr, len)
    }
    #[inline(always)]
    fn before_doorbell(&self) {
        self.cache.before_doorbell();
        self.sync.before_doorbell();
    }
}

/// Check that a ring's line covers whole lines of `cache` (see [`CacheOps`]).
pub(crate) fn check_line<C: CacheOps + ?Sized>(
    setup: &DmaSetup,
    cache: &C,
) -> Result<(), ConfigError> {
    let l = cache.line();
    if l == 0 || l > setup.cache_line || !setup.cache_line.is_multiple_of(l) {
        return Err(ConfigError::CacheLineTooShort);
    }
    Ok(())
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

/// The RX checksum offload engine HW_FEATURE announces ([`Coe::rx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxCoe {
    /// No RX checksum offload engine.
    None,
    /// Type 1 (RXTYP1COE, bit 17): IP header and payload checksum errors in RDES0.
    Type1,
    /// Type 2 (RXTYP2COE, bit 18): full offload; wins when both bits are set.
    Type2,
}

/// The checksum offload engines (COE) of the core, from HW_FEATURE ([`Coe::from_hw_feature`],
/// [`DmaSetup::coe`], [`Gmac3::coe`](crate::Gmac3::coe)).
///
/// See [Checksum offload](crate#checksum-offload) for what the rings do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Coe {
    /// TX checksum insertion (TXCOESEL, bit 16).
    pub tx: bool,
    /// RX checksum checking.
    pub rx: RxCoe,
}

impl Coe {
    /// What HW_FEATURE says, or `None` when it does not exist (reads 0 or all ones: cores
    /// older than 3.50a, or a block that is not there): the engines are then unknown.
    pub const fn from_hw_feature(hw_feature: u32) -> Option<Self> {
        if hw_feature == 0 || hw_feature == u32::MAX {
            return None;
        }
        let rx = if hw_feature & crate::gmac3::regs::HW_FEATURE_RXTYP2COE != 0 {
            RxCoe::Type2
        } else if hw_feature & crate::gmac3::regs::HW_FEATURE_RXTYP1COE != 0 {
            RxCoe::Type1
        } else {
            RxCoe::None
        };
        Some(Self {
            tx: hw_feature & crate::gmac3::regs::HW_FEATURE_TXCOESEL != 0,
            rx,
        })
    }

    /// Whether the core checks RX checksums (type 1 or type 2).
    pub const fn rx_checks(self) -> bool {
        !matches!(self.rx, RxCoe::None)
    }
}

/// Whether a ring uses the checksum offload engine
/// ([`TxRing::set_checksum_offload`](crate::TxRing::set_checksum_offload),
/// [`RxRing::set_checksum_offload`](crate::RxRing::set_checksum_offload)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Offload {
    /// Never (the default: the stack computes and verifies every checksum).
    #[default]
    Off,
    /// When HW_FEATURE announces the engine ([`DmaSetup::coe`]); off when HW_FEATURE does
    /// not exist.
    IfDetected,
    /// Even without HW_FEATURE (a pre-3.50a core whose documentation says it has the
    /// engine). TX: the firmware's promise, not checked (a core without the engine sends
    /// frames whose checksums the stack left out; no memory is at stake). RX: checked at
    /// [`RxRing::start`](crate::RxRing::start) by reading GMAC_CONTROL.IPC back, as Linux's
    /// `rx_ipc` does (a core without the engine keeps the bit 0).
    Assume,
}

/// The descriptor format the core was synthesised with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DescLayout {
    /// Normal descriptors: control in TDES1/RDES1, 11-bit buffer sizes (QEMU's npcm-gmac,
    /// most GMAC 3.x integrations).
    Normal,
    /// Enhanced (alternate) descriptors: TX control in TDES0, 13-bit buffer sizes
    /// (STM32F4/F7-class DWMAC 3.x; HW_FEATURE.ENHDESSEL).
    Enhanced,
    /// DWMAC 4.x/5.x (QoS) normal descriptors: OWN and the status in word 3, the buffer
    /// address in words 0–1 (up to 48 bits), IOC in TDES2, the RX buffer size in
    /// DMA_CHAN_RX_CONTROL.RBSZ, no end-of-ring bit (the ring-length register wraps).
    /// Resolved by [`DmaConfig::resolve_qos`] ([`Qos::configure_dma`](crate::Qos::configure_dma))
    /// only; a 3.x MAC refuses to start a ring of this layout, and a 4.x MAC one of the
    /// others.
    Qos,
}

impl DescLayout {
    /// The layout HW_FEATURE announces: enhanced when ENHDESSEL (bit 24) is set.
    pub const fn from_hw_feature(hw_feature: u32) -> Self {
        if hw_feature & crate::gmac3::regs::HW_FEATURE_ENHDESSEL != 0 {
            DescLayout::Enhanced
        } else {
            DescLayout::Normal
        }
    }

    /// Largest buffer-1 size the layout can describe (TBS1/RBS1: 11 or 13 bits).
    pub const fn max_buf_size(self) -> usize {
        match self {
            DescLayout::Normal => 0x7FF,
            DescLayout::Enhanced => 0x1FFF,
            // TDES2.B1L is 14 bits; RBSZ takes at most 16 KiB in multiples of 4.
            DescLayout::Qos => 0x3FFC,
        }
    }

    /// Whether this is the DWMAC 4.x/5.x layout ([`DescLayout::Qos`]).
    #[inline(always)]
    pub const fn is_qos(self) -> bool {
        matches!(self, DescLayout::Qos)
    }
}

/// Bytes of one descriptor in either layout (ATDS clear).
pub const DESC_SIZE: usize = 16;

/// DMA set-up shared by both rings: descriptor layout and memory geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaConfig {
    /// The descriptor layout expected; `None` takes it from HW_FEATURE.ENHDESSEL. A value
    /// here is checked against HW_FEATURE ([`resolve`](Self::resolve) refuses a
    /// disagreement), so it cannot put TER/RER in the wrong bit. Cores older than 3.50a
    /// have no HW_FEATURE (Linux then takes the layout from the device tree): their layout
    /// is an `unsafe` promise, [`resolve_assuming_layout`](Self::resolve_assuming_layout)
    /// ([`Gmac3::configure_dma_assuming_layout`](crate::Gmac3::configure_dma_assuming_layout)).
    pub layout: Option<DescLayout>,
    /// Cache line size in bytes: a power of two from 16 to 256. Every descriptor and buffer
    /// starts on a line and is padded to whole lines. Use 16 (the descriptor size) for
    /// uncached or coherent memory.
    pub cache_line: usize,
    /// Width of the DMA's bus in bytes (4, 8 or 16): the unit of DMA_BUS_MODE.DSL.
    pub bus_width: usize,
    /// Programmable burst length (DMA_BUS_MODE.PBL, 1..=32 beats; Linux's default 8).
    pub pbl: u8,
    /// The CSR clock in Hz (the unit of RIWT, 256 cycles); 0 = unknown, which refuses the
    /// RX watchdog (`rx_usecs > 0`).
    pub csr_hz: u32,
}

impl Default for DmaConfig {
    /// Layout from HW_FEATURE, 16-byte lines (no padding), 32-bit bus, PBL 8, CSR clock
    /// unknown.
    fn default() -> Self {
        Self {
            layout: None,
            cache_line: 16,
            bus_width: 4,
            pbl: 8,
            csr_hz: 0,
        }
    }
}

impl DmaConfig {
    /// Check the values and compute the geometry for `hw_feature` (DMA_HW_FEATURE).
    ///
    /// The layout comes from HW_FEATURE.ENHDESSEL. A [`layout`](Self::layout) given here
    /// is *validated*: it must agree with what HW_FEATURE says. A HW_FEATURE of 0 or all
    /// ones (a core older than 3.50a, or a register that is not there) says nothing, so it
    /// is refused; for such a core the layout is a promise about the silicon, made with the
    /// `unsafe` [`resolve_assuming_layout`](Self::resolve_assuming_layout).
    ///
    /// Errors: [`ConfigError::CacheLine`] unless `cache_line` is a power of two in
    /// 16..=256; [`ConfigError::BusWidth`] unless `bus_width` is 4, 8 or 16;
    /// [`ConfigError::Pbl`] unless `pbl` is 1..=32; [`ConfigError::DescriptorSkip`] when
    /// the padding between descriptors does not fit DSL's 5 bits;
    /// [`ConfigError::NoHwFeature`] when HW_FEATURE reads 0 or all ones;
    /// [`ConfigError::LayoutMismatch`] when `layout` disagrees with HW_FEATURE.
    pub fn resolve(&self, hw_feature: u32) -> Result<DmaSetup, ConfigError> {
        if hw_feature == 0 || hw_feature == u32::MAX {
            return Err(ConfigError::NoHwFeature);
        }
        let detected = DescLayout::from_hw_feature(hw_feature);
        if self.layout.is_some_and(|l| l != detected) {
            return Err(ConfigError::LayoutMismatch);
        }
        let setup = self.geometry(detected)?;
        Ok(DmaSetup {
            coe: Coe::from_hw_feature(hw_feature),
            ..setup
        })
    }

    /// As [`resolve`](Self::resolve), with the descriptor layout taken from `layout` and
    /// HW_FEATURE not consulted (cores older than 3.50a; Linux takes the layout from the
    /// device tree there). [`DmaConfig::layout`] is ignored.
    ///
    /// # Safety
    /// `layout` must be the layout the core was synthesised with. With the wrong one,
    /// TER/RER sit in the wrong bit: the DMA does not wrap at the end of the ring and walks
    /// on into the buffers, whose bytes (chosen by a remote sender) it then takes for
    /// descriptors.
    pub unsafe fn resolve_assuming_layout(
        &self,
        layout: DescLayout,
    ) -> Result<DmaSetup, ConfigError> {
        self.geometry(layout)
    }

    /// Resolve for a DWMAC 4.x/5.x core from its HW_FEATURE0 (0x11C) and HW_FEATURE1
    /// (0x120): the [`DescLayout::Qos`] layout, the address width from
    /// HW_FEATURE1.ADDR64 (32, 40 or 48 bits) and the checksum engines from
    /// HW_FEATURE0.TXCOESEL / RXCOESEL (4.x has the type-2 RX engine only). Usually called
    /// through [`Qos::configure_dma`](crate::Qos::configure_dma).
    ///
    /// Errors: [`ConfigError::NoHwFeature`] when either register reads 0 or all ones;
    /// [`ConfigError::LayoutMismatch`] when [`layout`](Self::layout) names a 3.x layout;
    /// [`ConfigError::AddressWidth`] for the reserved ADDR64 value 3; the geometry errors
    /// of [`resolve`](Self::resolve), with DSL limited to DMA_CHAN_CONTROL's 3 bits.
    pub fn resolve_qos(&self, hw_feature0: u32, hw_feature1: u32) -> Result<DmaSetup, ConfigError> {
        for h in [hw_feature0, hw_feature1] {
            if h == 0 || h == u32::MAX {
                return Err(ConfigError::NoHwFeature);
            }
        }
        if self.layout.is_some_and(|l| l != DescLayout::Qos) {
            return Err(ConfigError::LayoutMismatch);
        }
        let addr_bits = match (hw_feature1 >> crate::qos::regs::HWF1_ADDR64_SHIFT) & 3 {
            0 => 32,
            1 => 40,
            2 => 48,
            _ => return Err(ConfigError::AddressWidth),
        };
        let setup = self.geometry(DescLayout::Qos)?;
        Ok(DmaSetup {
            addr_bits,
            coe: Some(Coe {
                tx: hw_feature0 & crate::qos::regs::HWF0_TXCOESEL != 0,
                rx: if hw_feature0 & crate::qos::regs::HWF0_RXCOESEL != 0 {
                    RxCoe::Type2
                } else {
                    RxCoe::None
                },
            }),
            ..setup
        })
    }

    fn geometry(&self, layout: DescLayout) -> Result<DmaSetup, ConfigError> {
        if !matches!(self.bus_width, 4 | 8 | 16) {
            return Err(ConfigError::BusWidth);
        }
        if !(1..=32).contains(&self.pbl) {
            return Err(ConfigError::Pbl);
        }
        let setup = DmaSetup {
            layout,
            cache_line: self.cache_line,
            desc_stride: round_up(DESC_SIZE, self.cache_line),
            dsl: 0,
            pbl: self.pbl,
            bus_width: self.bus_width,
            csr_hz: self.csr_hz,
            coe: None,
            addr_bits: 32,
        };
        let dsl = setup.check()?;
        Ok(DmaSetup { dsl, ..setup })
    }
}

/// The resolved DMA set-up, built only by [`DmaConfig::resolve`] (usually through
/// [`Gmac3::configure_dma`](crate::Gmac3::configure_dma)); both rings are built for it.
///
/// It is opaque: its values are read through the getters and cannot be made up by hand,
/// and the rings check it again when they carve their memory. The geometry the DMA walks
/// (DSL) is tied to it: [`Gmac3::configure_dma`](crate::Gmac3::configure_dma) programs
/// DMA_BUS_MODE from it, and each ring's `start` reads DSL back and refuses to start the
/// DMA when it differs from the ring's own stride.
///
/// ```compile_fail
/// // Fields are private: a hand-made set-up (a 2-byte stride: misaligned descriptors)
/// // does not compile.
/// let s = stmmac_coalesce::DmaSetup {
///     layout: stmmac_coalesce::DescLayout::Normal,
///     cache_line: 4, desc_stride: 2, dsl: 0, pbl: 8, bus_width: 4, csr_hz: 0,
/// };
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaSetup {
    layout: DescLayout,
    cache_line: usize,
    desc_stride: usize,
    dsl: u8,
    pbl: u8,
    bus_width: usize,
    csr_hz: u32,
    coe: Option<Coe>,
    addr_bits: u8,
}

impl DmaSetup {
    /// Bus address bits the DMA drives: 32 on 3.x, 32/40/48 on 4.x
    /// (HW_FEATURE1.ADDR64). The rings refuse memory above it ([`Error::DmaAddress`]).
    pub const fn addr_bits(&self) -> u8 {
        self.addr_bits
    }

    /// The checksum offload engines HW_FEATURE announced, `None` when the set-up was
    /// resolved without HW_FEATURE
    /// ([`resolve_assuming_layout`](DmaConfig::resolve_assuming_layout)).
    pub const fn coe(&self) -> Option<Coe> {
        self.coe
    }

    /// The descriptor layout in use.
    pub const fn layout(&self) -> DescLayout {
        self.layout
    }

    /// Cache line size (alignment and padding of descriptors and buffers).
    pub const fn cache_line(&self) -> usize {
        self.cache_line
    }

    /// Bytes from one descriptor to the next.
    pub const fn desc_stride(&self) -> usize {
        self.desc_stride
    }

    /// DMA_BUS_MODE.DSL for that stride.
    pub const fn dsl(&self) -> u8 {
        self.dsl
    }

    /// DMA_BUS_MODE.PBL.
    pub const fn pbl(&self) -> u8 {
        self.pbl
    }

    /// DMA bus width in bytes.
    pub const fn bus_width(&self) -> usize {
        self.bus_width
    }

    /// CSR clock in Hz (0 = unknown).
    pub const fn csr_hz(&self) -> u32 {
        self.csr_hz
    }

    /// Check the geometry and return the DSL it needs: the cache line a power of two in
    /// 16..=256, the stride `round_up(16, line)`, the bus width 4, 8 or 16, the padding
    /// within DSL's 5 bits. [`DmaConfig::resolve`] builds only set-ups that pass, and
    /// `carve` checks again (a set-up that does not pass could give misaligned descriptor
    /// accesses or a ring that overruns its region).
    pub(crate) fn check(&self) -> Result<u8, ConfigError> {
        if !self.cache_line.is_power_of_two() || !(16..=256).contains(&self.cache_line) {
            return Err(ConfigError::CacheLine);
        }
        if !matches!(self.bus_width, 4 | 8 | 16) {
            return Err(ConfigError::BusWidth);
        }
        if self.desc_stride != round_up(DESC_SIZE, self.cache_line) {
            return Err(ConfigError::DescriptorStride);
        }
        // `bus_width` is 4, 8 or 16 (checked above), `stride >= DESC_SIZE`.
        let dsl = self
            .desc_stride
            .saturating_sub(DESC_SIZE)
            .checked_div(self.bus_width)
            .unwrap_or(0);
        // DSL is 5 bits in DMA_BUS_MODE (3.x), 3 bits in DMA_CHAN_CONTROL (4.x).
        let max = if self.layout.is_qos() { 7 } else { 31 };
        u8::try_from(dsl)
            .ok()
            .filter(|d| *d <= max)
            .ok_or(ConfigError::DescriptorSkip)
    }
}

/// `v` rounded up to a multiple of `to` (a power of two), saturating.
///
/// `#[inline]`: [`RingGeometry::buf_bytes`] calls it for every frame sent, and without the
/// hint a downstream crate (the firmware) made a real call across the crate boundary, with
/// the registers it needs saved around it, for a length that a coherent [`CacheOps`] then
/// ignores.
#[inline]
pub(crate) const fn round_up(v: usize, to: usize) -> usize {
    let mask = to.wrapping_sub(1);
    match v.checked_add(mask) {
        Some(x) => x & !mask,
        None => usize::MAX & !mask,
    }
}

/// Bytes a ring of `descriptors` descriptors with `buf_size`-byte buffers needs for a
/// `cache_line` (including the slack to align the start): size a [`DmaMemory`] with it.
///
/// ```
/// use stmmac_coalesce::ring_bytes;
/// assert_eq!(ring_bytes(8, 1536, 16), 8 * 16 + 8 * 1536 + 16);
/// assert_eq!(ring_bytes(4, 500, 64), 4 * 64 + 4 * 512 + 64);
/// ```
pub const fn ring_bytes(descriptors: usize, buf_size: usize, cache_line: usize) -> usize {
    // Outside 16..=256 the ring constructors refuse the line size anyway; clamp so this
    // stays total (saturating) for any input.
    let line = if cache_line < 16 {
        16
    } else if cache_line > 256 {
        256
    } else {
        cache_line.next_power_of_two()
    };
    descriptors
        .saturating_mul(round_up(DESC_SIZE, line))
        .saturating_add(descriptors.saturating_mul(round_up(buf_size, line)))
        .saturating_add(line)
}

/// One ring's geometry, the same for TX and RX: where its descriptors and buffers are
/// (carved from its region), their bus addresses, how to step through them, and the
/// ranges the cache hook is given (always whole lines: a descriptor by its stride, a
/// buffer by whole lines up to its stride).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RingGeometry {
    /// First descriptor (CPU pointer).
    descs: *mut u8,
    /// First buffer (CPU pointer).
    bufs: *mut u8,
    /// Bus address of the first descriptor.
    desc_bus: u64,
    /// Bus address of the first buffer.
    buf_bus: u64,
    /// Bytes from one descriptor to the next (whole cache lines).
    desc_stride: usize,
    /// Bytes from one buffer to the next (whole cache lines).
    buf_stride: usize,
    /// Cache line.
    line: usize,
    /// Descriptors (1..=[`MAX_RING`]).
    len: usize,
}

impl RingGeometry {
    /// Carve `n` descriptors and `n` buffers of `buf_size` from `region` for `setup`, and
    /// check that the whole span has linear 32-bit bus addresses.
    ///
    /// Errors: [`Error::RingSize`] for 0 descriptors, more than [`MAX_RING`] or a region
    /// too small; [`Error::DmaAddress`] when the span has no linear 32-bit bus address.
    pub(crate) fn carve<A: DmaAddr + ?Sized>(
        region: &DmaRegion,
        addr: &A,
        setup: &DmaSetup,
        n: usize,
        buf_size: usize,
    ) -> Result<Self, Error> {
        if n == 0 || n > MAX_RING {
            return Err(Error::RingSize);
        }
        // QoS: a tail pointer equal to the head means "nothing to do", so a ring keeps one
        // descriptor back and needs two; the ring length register holds at most 1024.
        if setup.layout().is_qos() && !(2..=crate::qos::regs::MAX_RING_LEN).contains(&n) {
            return Err(Error::RingSize);
        }
        // Re-check the set-up: everything below relies on a line that is a power of two
        // and a stride of whole lines that holds a descriptor.
        if setup.check()? != setup.dsl {
            return Err(Error::Config(ConfigError::DescriptorSkip));
        }
        // With padding between descriptors, at least 4 of them: a DMA that steps with a
        // stride up to 4 times the ring's (a bus width configured 4 times too narrow) then
        // still lands inside the ring's cleared padding (see below), not in a buffer.
        if setup.dsl != 0 && n < 4 {
            return Err(Error::RingSize);
        }
        let line = setup.cache_line;
        let start = region.as_ptr() as usize;
        let aligned = round_up(start, line);
        let skip = aligned.wrapping_sub(start);
        let buf_stride = round_up(buf_size, line);
        let need = n
            .checked_mul(setup.desc_stride)
            .and_then(|d| n.checked_mul(buf_stride).and_then(|b| d.checked_add(b)))
            .and_then(|x| x.checked_add(skip))
            .ok_or(Error::RingSize)?;
        if need > region.len() {
            return Err(Error::RingSize);
        }
        let descs = region.as_ptr().wrapping_add(skip);
        // Both products are below `need`, which did not overflow.
        let desc_bytes = n.wrapping_mul(setup.desc_stride);
        let bufs = descs.wrapping_add(desc_bytes);
        let span = need.wrapping_sub(skip);
        let bus = |p: *const u8| {
            if setup.addr_bits > 32 {
                addr.bus_addr64(p)
            } else {
                addr.bus_addr(p).map(u64::from)
            }
        };
        let first = bus(descs).ok_or(Error::DmaAddress)?;
        let last = bus(descs.wrapping_add(span.saturating_sub(1))).ok_or(Error::DmaAddress)?;
        if last != first.wrapping_add((span as u64).saturating_sub(1))
            || last >> setup.addr_bits.min(63) != 0
        {
            return Err(Error::DmaAddress);
        }
        // Clear the descriptor area, padding included: the rings write only the 16 bytes
        // of each descriptor, and a region's old contents must not look like descriptors
        // the DMA owns. A DMA that steps with another stride than the ring's (DSL counts
        // bus-width words, and a wrong `DmaConfig::bus_width` cannot be detected on GMAC
        // 3.x) lands in a padding area for its second descriptor: with padding
        // `p = stride - 16` and the real width `r` times the configured one, the DMA's
        // second descriptor is at `16 + p * r`, which for r = 1/4 and 1/2 is inside
        // descriptor 0's padding, for r = 2 at offset `p` of descriptor 1, and for r = 4
        // in descriptor 2's (32-byte lines) or 3's padding (docs/dwmac.md#dma-boundary).
        // It finds OWN clear there and suspends.
        // SAFETY: `desc_bytes` bytes from `descs` lie inside the region (checked above:
        // `need <= len`), which this ring owns; no DMA has been given them yet.
        unsafe { core::ptr::write_bytes(descs, 0, desc_bytes) };
        // Exact: the span from `first` to `last` is linear and fits in 32 bits.
        let buf_bus = first.wrapping_add(desc_bytes as u64);
        Ok(Self {
            descs,
            bufs,
            desc_bus: first,
            buf_bus,
            desc_stride: setup.desc_stride,
            buf_stride,
            line,
            len: n,
        })
    }

    /// Number of descriptors (at least 1).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Descriptor `i` (`i < len`).
    #[inline]
    pub(crate) fn desc(&self, i: usize) -> Desc {
        Desc::at(self.descs.wrapping_add(i.wrapping_mul(self.desc_stride)))
    }

    /// Bytes the cache hook is given for one descriptor: its stride, whole lines.
    #[inline]
    pub(crate) fn desc_bytes(&self) -> usize {
        self.desc_stride
    }

    /// Bus address of descriptor `i` (`i < len`).
    #[inline]
    pub(crate) fn desc_bus(&self, i: usize) -> u64 {
        // Exact: inside the carved span, which fits in the set-up's address bits.
        self.desc_bus
            .wrapping_add(i.wrapping_mul(self.desc_stride) as u64)
    }

    /// Buffer `i` (CPU pointer, `i < len`).
    #[inline]
    pub(crate) fn buf_ptr(&self, i: usize) -> *mut u8 {
        self.bufs.wrapping_add(i.wrapping_mul(self.buf_stride))
    }

    /// Bus address of buffer `i` (`i < len`).
    #[inline]
    pub(crate) fn buf_bus(&self, i: usize) -> u64 {
        // Exact: inside the carved span, which fits in the set-up's address bits.
        self.buf_bus
            .wrapping_add(i.wrapping_mul(self.buf_stride) as u64)
    }

    /// The low 32 bits of [`buf_bus`](Self::buf_bus) (all of it for a 32-bit set-up).
    #[inline]
    pub(crate) fn buf_bus_lo(&self, i: usize) -> u32 {
        (self.buf_bus as u32).wrapping_add(i.wrapping_mul(self.buf_stride) as u32)
    }

    /// Bytes the cache hook is given for the first `len` bytes of a buffer: whole lines,
    /// at most the buffer's stride.
    #[inline]
    pub(crate) fn buf_bytes(&self, len: usize) -> usize {
        round_up(len, self.line).min(self.buf_stride)
    }

    /// Bytes the cache hook is given for a whole buffer.
    #[inline]
    pub(crate) fn buf_stride(&self) -> usize {
        self.buf_stride
    }

    /// Whether `i` is the last descriptor (TER / RER).
    #[inline]
    pub(crate) fn is_last(&self, i: usize) -> bool {
        i == self.len.wrapping_sub(1)
    }

    /// The descriptor before `i` (`i < len`), wrapping.
    #[inline]
    pub(crate) fn prev(&self, i: usize) -> usize {
        if i == 0 || i >= self.len {
            self.len.wrapping_sub(1)
        } else {
            i.wrapping_sub(1)
        }
    }

    /// The descriptor after `i` (`i < len`), wrapping: one compare, no division.
    #[inline]
    pub(crate) fn next(&self, i: usize) -> usize {
        if i >= self.len.wrapping_sub(1) {
            0
        } else {
            i.wrapping_add(1)
        }
    }

    /// `i % len`. Callers pass `from + k` with `from < len` and `k <= len`, so one
    /// subtraction wraps it; the division (a library call on a Cortex-A9, which has no
    /// divide instruction) is only a fallback.
    #[inline]
    pub(crate) fn wrap(&self, i: usize) -> usize {
        if i < self.len {
            i
        } else if i.wrapping_sub(self.len) < self.len {
            i.wrapping_sub(self.len)
        } else {
            i.checked_rem(self.len).unwrap_or(0)
        }
    }
}

/// Largest ring this crate builds (indices stay far from overflow in every computation).
pub const MAX_RING: usize = 4096;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// Counts pre-doorbell calls; records line operations.
    #[derive(Default)]
    struct Count(core::cell::Cell<u32>);
    impl DoorbellSync for Count {
        fn before_doorbell(&self) {
            self.0.set(self.0.get() + 1);
        }
    }
    #[derive(Default)]
    struct Lines(core::cell::Cell<(usize, usize, u32)>);
    // SAFETY: test only; touches no cache.
    unsafe impl CacheOps for Lines {
        fn line(&self) -> usize {
            32
        }
        fn clean(&self, _p: *const u8, len: usize) {
            let (c, i, d) = self.0.get();
            self.0.set((c + len, i, d));
        }
        fn invalidate(&self, _p: *const u8, len: usize) {
            let (c, i, d) = self.0.get();
            self.0.set((c, i + len, d));
        }
        fn before_doorbell(&self) {
            let (c, i, d) = self.0.get();
            self.0.set((c, i, d + 1));
        }
    }

    fn via_ref<C: CacheOps>(c: C) {
        c.before_doorbell();
    }

    #[test]
    fn with_sync_forwards_lines_and_adds_the_pre_doorbell_step() {
        let w = WithSync::new(Lines::default(), Count::default());
        assert_eq!(w.line(), 32);
        w.clean(core::ptr::null(), 64);
        w.invalidate(core::ptr::null(), 96);
        w.before_doorbell();
        via_ref(&w);
        assert_eq!(w.cache().0.get(), (64, 96, 2));
        assert_eq!(w.sync().0.get(), 2);
        // The default hook does nothing (and is reachable through a reference).
        Coherent.before_doorbell();
        assert_eq!(Coherent.line(), 1);
    }

    /// Bus address = the low 32 bits of the host address (linear inside one test region).
    struct Low;
    // SAFETY: test only; the regions are never given to a DMA.
    unsafe impl DmaAddr for Low {
        fn bus_addr(&self, p: *const u8) -> Option<u32> {
            Some(p as usize as u32)
        }
    }

    fn region() -> DmaRegion {
        let mem: &'static mut [u8] = Box::leak(vec![0u8; 64 * 1024].into_boxed_slice());
        DmaRegion::from_static(mem)
    }

    #[test]
    fn carve_rechecks_the_setup() {
        let good = DmaConfig::default().resolve(0x100D_4F37).unwrap();
        assert!(RingGeometry::carve(&region(), &Low, &good, 4, 64).is_ok());
        // What a hand-made set-up could say (the fields are private outside the crate;
        // `carve` does not rely on that).
        let bad = [
            (
                DmaSetup {
                    desc_stride: 2,
                    ..good
                },
                ConfigError::DescriptorStride,
            ),
            (
                DmaSetup {
                    cache_line: 4,
                    desc_stride: 4,
                    ..good
                },
                ConfigError::CacheLine,
            ),
            (
                DmaSetup {
                    cache_line: 48,
                    desc_stride: 48,
                    ..good
                },
                ConfigError::CacheLine,
            ),
            (
                DmaSetup {
                    bus_width: 2,
                    ..good
                },
                ConfigError::BusWidth,
            ),
            (
                DmaSetup {
                    cache_line: 64,
                    desc_stride: 32,
                    ..good
                },
                ConfigError::DescriptorStride,
            ),
            (DmaSetup { dsl: 3, ..good }, ConfigError::DescriptorSkip),
        ];
        for (s, want) in bad {
            assert_eq!(
                RingGeometry::carve(&region(), &Low, &s, 4, 64).map(|_| ()),
                Err(Error::Config(want)),
                "{s:?}"
            );
        }
    }
}
