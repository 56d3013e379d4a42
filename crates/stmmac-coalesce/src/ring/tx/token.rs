//! Handing a frame to the ring in place: [`TxToken`] (borrowing the ring) and [`TxSlot`]
//! (an owned reservation).

use super::*;

/// A reserved TX descriptor: fill [`buffer`](Self::buffer) in place, then
/// [`commit`](Self::commit). Dropping it sends nothing.
#[must_use = "dropping the token sends nothing: fill its buffer and commit it"]
pub struct TxToken<'a, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    pub(super) ring: &'a mut TxRing<T, C>,
    pub(super) mac: &'a M,
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> TxToken<'_, M, T, C> {
    /// The descriptor's DMA buffer, [`TxRing::buf_size`] bytes, to fill with the frame
    /// (destination MAC first, no FCS: the MAC appends it).
    pub fn buffer(&mut self) -> &mut [u8] {
        let r = &*self.ring;
        let p = r.geo.buf_ptr(r.cur);
        // SAFETY: the buffer of descriptor `cur` lies inside the ring's region
        // (`buf_size <= buf_stride` bytes); the descriptor is CPU-owned (it is free:
        // `pending < len`), so the DMA does not access the buffer; the slice borrows the
        // token, which borrows the ring mutably, so it is the only reference.
        unsafe { core::slice::from_raw_parts_mut(p, r.buf_size) }
    }

    /// Send the first `len` bytes of [`buffer`](Self::buffer): IC and timer decision,
    /// handover (OWN last) and TX poll demand. Returns the decision.
    ///
    /// Errors: [`Error::FrameSize`] when `len` is 0 or above [`TxRing::buf_size`]; nothing
    /// is queued then. Once the frame is queued nothing fails.
    pub fn commit(self, len: usize) -> Result<XmitPlan, Error> {
        self.ring.commit_at(self.mac, len)
    }
}

/// A TX descriptor reserved with [`TxRing::reserve_slot`], apart from the ring: fill
/// [`buffer`](Self::buffer), then give it back to the ring with [`TxRing::commit_slot`]
/// (or [`TxRing::release_slot`]). It cannot be cloned; its buffer is reachable through it
/// alone.
#[must_use = "a slot that is not committed or released keeps its ring reserved"]
pub struct TxSlot {
    pub(super) index: usize,
    pub(super) epoch: u32,
    pub(super) buf: *mut u8,
    pub(super) len: usize,
}

// SAFETY: the slot is the only way to its buffer (see `TxSlot::buffer`); moving it to
// another context moves that exclusive access.
unsafe impl Send for TxSlot {}

impl core::fmt::Debug for TxSlot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxSlot")
            .field("index", &self.index)
            .field("len", &self.len)
            .finish()
    }
}

impl TxSlot {
    /// The descriptor's DMA buffer, [`TxRing::buf_size`] bytes, to fill with the frame
    /// (destination MAC first, no FCS).
    pub fn buffer(&mut self) -> &mut [u8] {
        // SAFETY: `buf` is descriptor `index`'s buffer, `len = buf_size <= buf_stride`
        // bytes inside the ring's region, which is never given back (`DmaRegion` memory
        // stays reserved for the rest of the program, even when the ring is dropped). The
        // descriptor was free when the slot was reserved and the ring reserves nothing
        // while a slot is out, so it is never handed to the DMA (a `recover` only resets
        // descriptors to CPU-owned) until the slot is consumed by `commit_slot`, and no
        // other slot or token reaches this buffer. The slice borrows the slot mutably.
        unsafe { core::slice::from_raw_parts_mut(self.buf, self.len) }
    }

    /// Bytes of [`buffer`](Self::buffer).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether [`buffer`](Self::buffer) is empty (never: a ring's buffers have at least
    /// one byte).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
