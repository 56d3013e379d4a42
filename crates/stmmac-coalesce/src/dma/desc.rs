//! One descriptor in DMA memory ([`Desc`]): volatile, little-endian word access. What the
//! words mean is each version's (`gmac3::desc`, `qos::desc`); the rings reach them through
//! `ring::desc`.
//!
//! Descriptors are little-endian in memory (the DMA reads them as little-endian words, as
//! Linux's `cpu_to_le32` / QEMU's `le32_to_cpu` show); this type converts, so a big-endian
//! CPU (MIPS) writes the same bytes a little-endian one does.

use crate::dma::DescLayout;

/// One descriptor in DMA memory (four 32-bit words, little-endian).
///
/// Word 3 (buffer 2 in ring mode, the next descriptor in chain mode) is never 0: the rings
/// use ring mode with buffer 2 unused (size 0), and write the descriptor's own buffer
/// there. A core that misreads the size fields (a wrong layout puts RER where RBS2 is)
/// then writes into the ring's own buffer rather than at bus address 0, which is DRAM on
/// the NPCM7xx.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Desc(*mut u32);

impl Desc {
    /// The descriptor at `p` (4-byte aligned, 16 bytes inside the ring's region).
    #[inline]
    pub(crate) fn at(p: *mut u8) -> Self {
        Self(p.cast::<u32>())
    }

    /// The first byte (for cache maintenance).
    #[inline]
    pub(crate) fn as_ptr(self) -> *const u8 {
        self.0.cast::<u8>().cast_const()
    }

    /// Read word `w` (0–3) volatilely.
    #[inline]
    pub(crate) fn read(self, w: usize) -> u32 {
        // SAFETY: `self.0` points at a descriptor inside the ring's region (carved with
        // room for four words, 16-byte aligned) and `w & 3` stays inside it; a volatile
        // load of plain memory the DMA may also write.
        u32::from_le(unsafe { self.0.add(w & 3).read_volatile() })
    }

    /// Write word `w` (0–3) volatilely.
    #[inline]
    pub(crate) fn write(self, w: usize, v: u32) {
        // SAFETY: as in `read`; the CPU owns the descriptor (OWN clear) or is handing it
        // over with this very store.
        unsafe { self.0.add(w & 3).write_volatile(v.to_le()) };
    }

    /// The owner/status word of `layout` (word 0 in GMAC 3.x, word 3 in QoS), read once.
    #[inline(always)]
    pub(crate) fn status(self, layout: DescLayout) -> u32 {
        if layout.is_qos() {
            // SAFETY: as in `read`: word 3 of a descriptor inside the ring's region.
            u32::from_le(unsafe { self.0.add(3).read_volatile() })
        } else {
            self.read(0)
        }
    }

    /// The four words.
    pub(crate) fn words(self) -> [u32; 4] {
        [self.read(0), self.read(1), self.read(2), self.read(3)]
    }
}
