//! DMA memory: normal 16-byte descriptors, frame buffers, and bus addresses.
//!
//! Descriptors and buffers live in RAM the caller provides (`&'static mut` slices, usually
//! statics or a linker section the DMA can reach); nothing is allocated. Every word the
//! DMA also touches is accessed volatilely (descriptors through `volatile-register`, buffers
//! through an [`UnsafeCell`]) because the DMA reads and writes it behind the compiler's
//! back.
//!
//! **Handoff order** (stm32-eth's model, rust-ecosystem.md §3.1): fill the buffer and
//! descriptor words 1–3, issue a `Release` fence, then set OWN in word 0 last; the DMA may
//! start on the descriptor as soon as OWN is visible. On the way back, read OWN clear, then
//! an `Acquire` fence, then the status and the buffer. The host tests and QEMU are
//! cache-coherent; on a real SoC with caches, clean/invalidate the lines around these points
//! (not done here).

use core::cell::UnsafeCell;
use core::sync::atomic::{Ordering, fence};

use volatile_register::RW;

use crate::regs::desc::OWN;

/// Bytes per frame buffer: one full Ethernet frame with VLAN tag and FCS, a multiple of 16,
/// below the 11-bit TBS1/RBS1 limit of 2047.
pub const BUF_SIZE: usize = 1536;

/// Gives the 32-bit bus address the DMA must be told for a CPU pointer.
///
/// On the npcm750 (MMU off) it is the pointer itself ([`Identity`]); on the host the sim
/// arena (`sim::SimArena`, feature `sim`) maps its memory to a 32-bit window; on an SoC
/// with an IOMMU or a DMA offset, implement it for your translation.
///
/// # Contract
/// Return `None` when the pointer has no 32-bit bus address. The address of `ptr + n` must be
/// the address of `ptr` plus `n` for every byte of one descriptor slice or one buffer.
pub trait DmaAddr {
    /// The bus address of `ptr`, if it has one.
    fn bus_addr(&self, ptr: *const u8) -> Option<u32>;
}

impl<T: DmaAddr + ?Sized> DmaAddr for &T {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        (**self).bus_addr(ptr)
    }
}

/// Bus address = CPU address (no MMU or a flat 1:1 map), refused above 4 GiB.
#[derive(Debug, Clone, Copy, Default)]
pub struct Identity;

impl DmaAddr for Identity {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        u32::try_from(ptr as usize).ok()
    }
}

/// One frame buffer, 16-byte aligned, written or read by the DMA.
#[repr(C, align(16))]
pub struct DmaBuffer(UnsafeCell<[u8; BUF_SIZE]>);

// SAFETY: a buffer is only accessed through the ring that holds the `&'static mut` to it,
// and only while the DMA does not own its descriptor (OWN handoff with fences, see the
// module docs). `Sync` just lets the caller declare the storage as a `static`.
unsafe impl Sync for DmaBuffer {}

impl DmaBuffer {
    /// A zeroed buffer (for `static` arrays: `[const { DmaBuffer::new() }; N]`).
    pub const fn new() -> Self {
        Self(UnsafeCell::new([0; BUF_SIZE]))
    }

    /// The first byte's address.
    pub fn as_ptr(&self) -> *const u8 {
        self.0.get().cast::<u8>().cast_const()
    }

    /// Copy `src` to the start of the buffer (the caller holds the descriptor).
    pub(crate) fn fill(&mut self, src: &[u8]) {
        let n = src.len().min(BUF_SIZE);
        self.0.get_mut()[..n].copy_from_slice(&src[..n]);
    }

    /// The buffer's bytes. Called only after OWN was read clear and an `Acquire` fence.
    pub(crate) fn bytes(&mut self) -> &[u8; BUF_SIZE] {
        self.0.get_mut()
    }
}

impl Default for DmaBuffer {
    fn default() -> Self {
        Self::new()
    }
}

/// A normal TX descriptor (TDES0–TDES3, 16 bytes; hardware.md §4.7).
#[repr(C, align(16))]
pub struct TxDesc {
    des: [RW<u32>; 4],
}

/// A normal RX descriptor (RDES0–RDES3, 16 bytes; hardware.md §4.7).
#[repr(C, align(16))]
pub struct RxDesc {
    des: [RW<u32>; 4],
}

macro_rules! desc_common {
    ($t:ty) => {
        // SAFETY: as for `DmaBuffer`: accessed only by the owning ring and the DMA.
        unsafe impl Sync for $t {}

        impl $t {
            /// A zeroed descriptor (owned by the CPU).
            pub const fn new() -> Self {
                // SAFETY: `RW<u32>` is a transparent cell around a `u32`; all-zero is a valid
                // value.
                unsafe { core::mem::zeroed() }
            }

            /// Read word `i` (0–3) volatilely; out-of-range reads return 0.
            pub fn word(&self, i: usize) -> u32 {
                self.des.get(i).map_or(0, RW::read)
            }

            /// Write word `i` (0–3) volatilely; out-of-range writes are ignored.
            pub(crate) fn set_word(&mut self, i: usize, v: u32) {
                if let Some(w) = self.des.get(i) {
                    // SAFETY: a descriptor word in ordinary RAM that this ring owns (OWN is
                    // clear or being handed over); a volatile store cannot fault.
                    unsafe { w.write(v) }
                }
            }

            /// Whether the DMA owns the descriptor (word 0 bit 31), with an `Acquire` fence
            /// after a clear OWN so later reads of the status and buffer are not hoisted.
            pub fn dma_owned(&self) -> bool {
                let own = self.word(0) & OWN != 0;
                if !own {
                    fence(Ordering::Acquire);
                }
                own
            }

            /// Hand the descriptor to the DMA: `Release` fence, then OWN set last.
            pub(crate) fn give_to_dma(&mut self, des0_rest: u32) {
                fence(Ordering::Release);
                self.set_word(0, OWN | des0_rest);
            }
        }

        impl Default for $t {
            fn default() -> Self {
                Self::new()
            }
        }

        impl core::fmt::Debug for $t {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(
                    f,
                    "{}[{:#010x} {:#010x} {:#010x} {:#010x}]",
                    stringify!($t),
                    self.word(0),
                    self.word(1),
                    self.word(2),
                    self.word(3)
                )
            }
        }
    };
}

desc_common!(TxDesc);
desc_common!(RxDesc);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_16_bytes_and_handoff_sets_own_last() {
        assert_eq!(core::mem::size_of::<TxDesc>(), 16);
        assert_eq!(core::mem::size_of::<RxDesc>(), 16);
        assert_eq!(core::mem::align_of::<DmaBuffer>(), 16);
        let mut d = TxDesc::new();
        assert!(!d.dma_owned());
        d.set_word(1, 0x1234);
        d.give_to_dma(0);
        assert!(d.dma_owned());
        assert_eq!(d.word(1), 0x1234);
        assert_eq!(d.word(9), 0);
        assert_eq!(Identity.bus_addr(0x1000 as *const u8), Some(0x1000));
    }
}
