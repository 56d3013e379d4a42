//! The RX and TX tokens (see [Tokens](super#tokens)).

use super::DROP_BUF_LEN;
use super::state::NetState;
use crate::common::Dwmac;
use crate::dma::CacheOps;
use crate::ring::tx::{CleanupTimer, TxSlot};

/// RX token: a received frame, already copied into the driver's scratch buffer.
pub struct RxToken<'a> {
    pub(super) frame: &'a mut [u8],
}

/// TX token: a free descriptor was waiting in the TX ring when it was handed out.
pub struct TxToken<'a, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    pub(super) mac: &'a M,
    pub(super) state: &'a NetState<T, C>,
}

impl embassy_net_driver::RxToken for RxToken<'_> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        f(self.frame)
    }
}

/// Build a frame no descriptor can take in a stack buffer, and forget it. Out of line, so
/// that the buffer is on the stack only on this path.
#[cold]
#[inline(never)]
fn build_and_drop<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = [0u8; DROP_BUF_LEN];
    f(buf.get_mut(..len.min(DROP_BUF_LEN)).unwrap_or_default())
}

/// A token's reserved slot; goes back to the ring when dropped: committed with `len`
/// set, released otherwise (also if the stack's closure unwinds).
struct Filling<'a, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    mac: &'a M,
    state: &'a NetState<T, C>,
    slot: Option<TxSlot>,
    len: Option<usize>,
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> Drop for Filling<'_, M, T, C> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.state.finish_slot(self.mac, slot, self.len);
        }
    }
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> embassy_net_driver::TxToken for TxToken<'_, M, T, C> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let Some(slot) = self.state.reserve_slot(self.mac) else {
            return build_and_drop(len, f);
        };
        let mut filling = Filling {
            mac: self.mac,
            state: self.state,
            slot: None,
            len: None,
        };
        let slot = filling.slot.insert(slot);
        // Interrupts are enabled from here on; the slot's buffer is this token's alone.
        let buf = slot.buffer();
        let n = len.min(buf.len());
        let r = f(buf.get_mut(..n).unwrap_or_default());
        // A length above the buffer (not with the reported MTU) is refused: commit(0).
        filling.len = Some(if len > n { 0 } else { n });
        r
        // `filling` commits here.
    }
}
