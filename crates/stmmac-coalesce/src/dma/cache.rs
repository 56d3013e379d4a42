//! Cache maintenance around DMA transfers: the [`CacheOps`] hook, [`Coherent`] and
//! [`WithSync`] (see the [module docs](crate::dma) for when each is right).

use crate::common::ConfigError;
use crate::dma::DmaSetup;
use crate::dma::barrier::DoorbellSync;

/// Cache maintenance around DMA transfers (see the [module docs](crate::dma)).
///
/// Ranges are byte ranges inside a ring's [`DmaRegion`](crate::DmaRegion); the ring only ever passes ranges
/// that start on a line and cover whole lines of [`DmaConfig::cache_line`](crate::DmaConfig::cache_line), so an
/// implementation may round outwards without touching a neighbour. The rings refuse a
/// [`DmaConfig::cache_line`](crate::DmaConfig::cache_line) that is not a whole multiple of [`line`](Self::line)
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
    /// [the module docs](crate::dma#when-coherent-is-the-wrong-choice-an-outer-caches-store-buffer)).
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
/// [module docs](crate::dma) for the placement this requires).
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
/// memory behind an L2C-310; see the [module docs](crate::dma)).
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
    if l == 0 || l > setup.cache_line() || !setup.cache_line().is_multiple_of(l) {
        return Err(ConfigError::CacheLineTooShort);
    }
    Ok(())
}
