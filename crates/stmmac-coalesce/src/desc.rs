//! The descriptor layer: reading and writing one descriptor in DMA memory, and what its
//! words mean in each [`DescLayout`].
//!
//! Rings never touch descriptor bits themselves; they ask this layer to *prepare* a TX
//! descriptor, *refill* an RX one, or *decode* a write-back. A DWMAC 4.x (QoS) layout,
//! where OWN lives in word 3 and the buffer address in words 0–1, would be one more
//! variant here with its own encoders; the rings' handoff order (fields, [`dma_wmb`], the
//! owner word, [`wmb`](crate::barrier::wmb), doorbell) stays the same.
//!
//! Descriptors are little-endian in memory (the DMA reads them as little-endian words, as
//! Linux's `cpu_to_le32` / QEMU's `le32_to_cpu` show); this layer converts, so a big-endian
//! CPU (MIPS) writes the same bytes a little-endian one does.

use crate::barrier::dma_wmb;
use crate::dma::DescLayout;
use crate::regs::{desc as n, edesc as e};

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
        #[cfg(all(feature = "sim", debug_assertions))]
        if w & 3 == 0 {
            crate::sim::count_status_read();
        }
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

    /// The four words.
    pub(crate) fn words(self) -> [u32; 4] {
        [self.read(0), self.read(1), self.read(2), self.read(3)]
    }
}

/// The OWN bit (word 0, bit 31) in every 3.x layout.
pub(crate) const OWN: u32 = n::OWN;

/// What a TX descriptor is handed over with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TxPrep {
    /// Buffer bus address.
    pub buf: u32,
    /// Bytes in the buffer.
    pub len: u32,
    /// Interrupt on completion.
    pub ic: bool,
    /// Last descriptor of the ring (TER).
    pub end_of_ring: bool,
    /// The control bits every frame of the ring carries ([`tx_ctl`]).
    pub ctl: u32,
}

/// The control bits of every single-descriptor frame in `layout`, in the word that
/// carries them (word 1 normal, word 0 enhanced): FS | LS, OWN in the enhanced word 0,
/// and CIC = 3 with `cic`. The ring keeps it, so a frame adds only its TER, IC and length.
pub(crate) const fn tx_ctl(layout: DescLayout, cic: bool) -> u32 {
    match layout {
        DescLayout::Normal => {
            n::TDES1_FS
                | n::TDES1_LS
                | if cic {
                    CIC_FULL << n::TDES1_CIC_SHIFT
                } else {
                    0
                }
        }
        DescLayout::Enhanced => {
            OWN | e::TDES0_FS
                | e::TDES0_LS
                | if cic {
                    CIC_FULL << e::TDES0_CIC_SHIFT
                } else {
                    0
                }
        }
    }
}

/// CIC value for full insertion: IP header, and TCP/UDP/ICMP with the pseudo-header.
pub(crate) const CIC_FULL: u32 = 3;

/// Fill a TX descriptor for a single-descriptor frame (FS | LS) and hand it to the DMA:
/// words 1–3, [`dma_wmb`], then word 0 with OWN (and, enhanced, the control bits) last.
/// `p.ctl` is [`tx_ctl`] for `layout`.
#[inline]
pub(crate) fn tx_give(layout: DescLayout, d: Desc, p: TxPrep) {
    match layout {
        DescLayout::Normal => {
            let mut des1 = p.ctl | (p.len & n::TDES1_TBS1_MASK);
            if p.end_of_ring {
                des1 |= n::TDES1_TER;
            }
            if p.ic {
                des1 |= n::TDES1_IC;
            }
            d.write(1, des1);
            d.write(2, p.buf);
            d.write(3, p.buf);
            dma_wmb();
            d.write(0, OWN);
        }
        DescLayout::Enhanced => {
            d.write(1, p.len & e::TDES1_TBS1_MASK);
            d.write(2, p.buf);
            d.write(3, p.buf);
            let mut des0 = p.ctl;
            if p.end_of_ring {
                des0 |= e::TDES0_TER;
            }
            if p.ic {
                des0 |= e::TDES0_IC;
            }
            dma_wmb();
            d.write(0, des0);
        }
    }
}

/// Put a TX descriptor in its idle, CPU-owned state (ring set-up and recovery).
pub(crate) fn tx_idle(layout: DescLayout, d: Desc, buf: u32, end_of_ring: bool) {
    match layout {
        DescLayout::Normal => {
            d.write(1, if end_of_ring { n::TDES1_TER } else { 0 });
            d.write(0, 0);
        }
        DescLayout::Enhanced => {
            d.write(1, 0);
            d.write(0, if end_of_ring { e::TDES0_TER } else { 0 });
        }
    }
    d.write(2, buf);
    d.write(3, buf);
}

/// A TX write-back: `(dma_owned, error_summary)`.
#[inline]
pub(crate) const fn tx_status(des0: u32) -> (bool, bool) {
    (des0 & OWN != 0, des0 & n::TDES0_ES != 0)
}

/// Refill an RX descriptor: words 1–3, [`dma_wmb`], then OWN last.
#[inline]
pub(crate) fn rx_give(
    layout: DescLayout,
    d: Desc,
    buf: u32,
    buf_size: u32,
    dic: bool,
    end_of_ring: bool,
) {
    let des1 = match layout {
        DescLayout::Normal => {
            let mut v = buf_size & n::RDES1_RBS1_MASK;
            if end_of_ring {
                v |= n::RDES1_RER;
            }
            if dic {
                v |= n::RDES1_DIC;
            }
            v
        }
        DescLayout::Enhanced => {
            let mut v = buf_size & e::RDES1_RBS1_MASK;
            if end_of_ring {
                v |= e::RDES1_RER;
            }
            if dic {
                v |= e::RDES1_DIC;
            }
            v
        }
    };
    d.write(1, des1);
    d.write(2, buf);
    d.write(3, buf);
    dma_wmb();
    d.write(0, OWN);
}

/// An RX write-back (RDES0, the same bits in both layouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RxStatus {
    pub own: bool,
    pub first: bool,
    pub last: bool,
    pub error: bool,
    /// FL: frame length including the FCS; valid on the last descriptor only.
    pub fl: u32,
}

/// Decode RDES0.
#[inline]
pub(crate) const fn rx_status(des0: u32) -> RxStatus {
    RxStatus {
        own: des0 & OWN != 0,
        first: des0 & n::RDES0_FS != 0,
        last: des0 & n::RDES0_LS != 0,
        error: des0 & n::RDES0_ES != 0,
        fl: (des0 >> n::RDES0_FL_SHIFT) & n::RDES0_FL_MASK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words `tx_give` leaves, for a descriptor in a local buffer.
    fn give(layout: DescLayout, cic: bool, ic: bool, end_of_ring: bool) -> [u32; 4] {
        let mut mem = [0u32; 4];
        let d = Desc::at(mem.as_mut_ptr().cast::<u8>());
        let p = TxPrep {
            buf: 0x1234_5670,
            len: 1514,
            ic,
            end_of_ring,
            ctl: tx_ctl(layout, cic),
        };
        tx_give(layout, d, p);
        d.words()
    }

    /// The ring's kept control word gives every bit the per-frame encoding gave: the bit
    /// positions are the databook's (normal TDES1: IC 31, LS 30, FS 29, CIC 28:27, TER 25,
    /// TBS1 10:0; enhanced TDES0: OWN 31, IC 30, LS 29, FS 28, CIC 23:22, TER 21, TDES1
    /// TBS1 12:0), written out here rather than taken from `regs`.
    #[test]
    fn tx_words_from_the_kept_control_bits() {
        for cic in [false, true] {
            for ic in [false, true] {
                for ter in [false, true] {
                    let b = |on: bool, bit: u32| if on { 1u32 << bit } else { 0 };
                    let w = give(DescLayout::Normal, cic, ic, ter);
                    let des1 = b(ic, 31) | (3 << 29) | (b(cic, 27) * 3) | b(ter, 25) | 1514;
                    assert_eq!(
                        w,
                        [1 << 31, des1, 0x1234_5670, 0x1234_5670],
                        "{cic} {ic} {ter}"
                    );
                    let w = give(DescLayout::Enhanced, cic, ic, ter);
                    let des0 = (1 << 31) | b(ic, 30) | (3 << 28) | (b(cic, 22) * 3) | b(ter, 21);
                    assert_eq!(
                        w,
                        [des0, 1514, 0x1234_5670, 0x1234_5670],
                        "{cic} {ic} {ter}"
                    );
                }
            }
        }
    }
}
