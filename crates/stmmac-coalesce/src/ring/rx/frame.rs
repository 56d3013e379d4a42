//! A received frame lent by the ring ([`RxFrame`]).

use super::*;

/// A received frame lent from the RX ring; its descriptors go back to the DMA when it is
/// dropped. See the [module docs](crate::ring::rx).
#[must_use = "dropping the frame gives its descriptors back to the DMA: the frame is lost"]
pub struct RxFrame<'a, C: CacheOps> {
    pub(super) ring: &'a mut RxRing<C>,
    pub(super) count: usize,
    pub(super) len: usize,
}

impl<C: CacheOps> core::fmt::Debug for RxFrame<'_, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RxFrame")
            .field("len", &self.len)
            .field("descriptors", &self.count)
            .finish()
    }
}

impl<C: CacheOps> RxFrame<'_, C> {
    /// Frame length in bytes, without the FCS.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false` (runts are dropped).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Descriptors the frame occupies.
    pub fn descriptors(&self) -> usize {
        self.count
    }

    /// Whether the frame's bytes are contiguous in one DMA buffer (so
    /// [`as_slice`](Self::as_slice) lends them without a copy).
    pub fn is_contiguous(&self) -> bool {
        self.len <= self.ring.buf_size
    }

    /// Bytes of the frame in buffer `k` of its descriptors (FL says how many; the FCS is
    /// not included).
    #[inline]
    fn part(&self, k: usize) -> (*const u8, usize) {
        let r = &*self.ring;
        let i = r.geo.wrap(r.next.wrapping_add(k));
        let start = k.saturating_mul(r.buf_size);
        let n = self.len.saturating_sub(start).min(r.buf_size);
        let p = r.geo.buf_ptr(i).cast_const();
        r.cache.invalidate(p, r.geo.buf_stride());
        (p, n)
    }

    /// The frame in its DMA buffer, without a copy, when it fits one buffer; `None` when it
    /// spans buffers (use [`copy_to`](Self::copy_to) or [`bytes`](Self::bytes)).
    #[inline]
    pub fn as_slice(&self) -> Option<&[u8]> {
        if !self.is_contiguous() {
            return None;
        }
        let (p, n) = self.part(0);
        // SAFETY: `n <= buf_size` bytes of a buffer inside the ring's region; its
        // descriptor is CPU-owned (OWN read clear, then `dma_rmb`) until this frame is
        // dropped, so the DMA does not write it while the borrow of `self` lasts.
        Some(unsafe { core::slice::from_raw_parts(p, n) })
    }

    /// Copy the frame into `dst` (once, buffer by buffer); returns its length.
    ///
    /// Errors: [`Error::FrameSize`] when `dst` is shorter than the frame; the frame is then
    /// counted in [`RxStats::not_assembled`] (it is dropped with this value).
    pub fn copy_to(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        if dst.len() < self.len {
            self.ring.stats.not_assembled = self.ring.stats.not_assembled.wrapping_add(1);
            return Err(Error::FrameSize { len: self.len });
        }
        let mut at: usize = 0;
        for k in 0..self.count {
            let (p, n) = self.part(k);
            if n == 0 {
                break;
            }
            // SAFETY: as in `as_slice`, for buffer `k` of the frame.
            let src = unsafe { core::slice::from_raw_parts(p, n) };
            if let Some(d) = dst.get_mut(at..at.saturating_add(n)) {
                d.copy_from_slice(src);
            }
            at = at.saturating_add(n);
        }
        Ok(at)
    }

    /// The frame's bytes: lent from the DMA buffer when contiguous, otherwise copied once
    /// into `scratch`.
    ///
    /// Errors: as for [`copy_to`](Self::copy_to) when a copy is needed.
    pub fn bytes<'s>(&'s mut self, scratch: &'s mut [u8]) -> Result<&'s [u8], Error> {
        if self.is_contiguous() {
            return Ok(self.as_slice().unwrap_or(&[]));
        }
        let n = self.copy_to(scratch)?;
        Ok(scratch.get(..n).unwrap_or(&[]))
    }
}

impl<C: CacheOps> Drop for RxFrame<'_, C> {
    fn drop(&mut self) {
        self.ring.release(self.count);
    }
}
