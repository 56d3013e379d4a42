//! The descriptor layer: reading and writing one descriptor in DMA memory, and what its
//! words mean in each [`DescLayout`].
//!
//! Rings never touch descriptor bits themselves; they ask this layer to *prepare* a TX
//! descriptor, *refill* an RX one, or *decode* a write-back. The DWMAC 4.x (QoS) layout
//! ([`DescLayout::Qos`]) keeps OWN in word 3 and the buffer address in words 0–1 (up to 48
//! bits), IOC in TDES2, and no buffer size in RX descriptors (DMA_CH_RX_CONTROL.RBSZ); the
//! rings' handoff order (fields, [`dma_wmb`], the owner word, [`wmb`](crate::dma::barrier::wmb),
//! doorbell) is the same in every layout: only which word is the owner word changes.
//!
//! Descriptors are little-endian in memory (the DMA reads them as little-endian words, as
//! Linux's `cpu_to_le32` / QEMU's `le32_to_cpu` show); this layer converts, so a big-endian
//! CPU (MIPS) writes the same bytes a little-endian one does.

use crate::dma::DescLayout;
use crate::dma::barrier::dma_wmb;
use crate::gmac3::regs::{desc as n, edesc as e};
use crate::qos::regs::desc as q;

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

    /// The owner/status word of `layout` (word 0 in 3.x, word 3 in QoS), read once.
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

/// The OWN bit (word 0, bit 31) in every 3.x layout.
pub(crate) const OWN: u32 = n::OWN;

/// What a TX descriptor is handed over with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TxPrep {
    /// Buffer bus address (above 32 bits only in the QoS layout).
    pub buf: u64,
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
/// carries them (word 1 normal, word 0 enhanced, word 3 QoS): FS | LS (FD | LD), OWN in
/// the enhanced word 0 and the QoS word 3, and CIC = 3 with `cic`. The ring keeps it, so a
/// frame adds only its TER, IC and length.
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
        DescLayout::Qos => {
            q::OWN
                | q::FD
                | q::LD
                | if cic {
                    CIC_FULL << q::TDES3_CIC_SHIFT
                } else {
                    0
                }
        }
    }
}

/// CIC value for full insertion: IP header, and TCP/UDP/ICMP with the pseudo-header.
pub(crate) const CIC_FULL: u32 = 3;

/// Fill a TX descriptor for a single-descriptor frame (FS | LS) and hand it to the DMA:
/// the other words, [`dma_wmb`], then the owner word (word 0 in 3.x, word 3 in QoS) with
/// OWN (and, enhanced and QoS, the control bits) last. `p.ctl` is [`tx_ctl`] for `layout`.
/// A 3.x layout keeps only the low 32 address bits: its rings carve 32-bit buffers.
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
            d.write(2, p.buf as u32);
            d.write(3, p.buf as u32);
            dma_wmb();
            d.write(0, OWN);
        }
        DescLayout::Enhanced => {
            d.write(1, p.len & e::TDES1_TBS1_MASK);
            d.write(2, p.buf as u32);
            d.write(3, p.buf as u32);
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
        DescLayout::Qos => {
            // No end-of-ring bit: the ring length register wraps the DMA.
            d.write(0, p.buf as u32);
            d.write(1, (p.buf >> 32) as u32);
            let mut des2 = p.len & q::TDES2_B1L_MASK;
            if p.ic {
                des2 |= q::TDES2_IOC;
            }
            d.write(2, des2);
            dma_wmb();
            d.write(3, p.ctl | (p.len & q::TDES3_FL_MASK));
        }
    }
}

/// Put a TX descriptor in its idle, CPU-owned state (ring set-up and recovery).
pub(crate) fn tx_idle(layout: DescLayout, d: Desc, buf: u64, end_of_ring: bool) {
    match layout {
        DescLayout::Normal => {
            d.write(1, if end_of_ring { n::TDES1_TER } else { 0 });
            d.write(0, 0);
        }
        DescLayout::Enhanced => {
            d.write(1, 0);
            d.write(0, if end_of_ring { e::TDES0_TER } else { 0 });
        }
        DescLayout::Qos => {
            // All zero: no OWN, no buffer; the address is written with each frame.
            for w in 0..4 {
                d.write(w, 0);
            }
            return;
        }
    }
    d.write(2, buf as u32);
    d.write(3, buf as u32);
}

/// A TX write-back, from the owner word of `layout` ([`Desc::status`]):
/// `(dma_owned, error_summary)`. OWN is bit 31 in every layout; ES is bit 15 in both
/// TDES0 (3.x) and TDES3 (QoS).
#[inline]
pub(crate) const fn tx_status(layout: DescLayout, word: u32) -> (bool, bool) {
    let es = match layout {
        DescLayout::Qos => q::TDES3_ES,
        _ => n::TDES0_ES,
    };
    // A QoS context descriptor is never in a TX ring this driver fills.
    (word & OWN != 0, word & es != 0)
}

/// Refill an RX descriptor: the other words, [`dma_wmb`], then the owner word last (word 0
/// with OWN in 3.x; word 3 with OWN | BUF1V, and IOC unless `dic`, in QoS, whose buffer
/// size is DMA_CH_RX_CONTROL.RBSZ rather than a descriptor field).
#[inline]
pub(crate) fn rx_give(
    layout: DescLayout,
    d: Desc,
    buf: u64,
    buf_size: u32,
    dic: bool,
    end_of_ring: bool,
) {
    if layout.is_qos() {
        d.write(0, buf as u32);
        d.write(1, (buf >> 32) as u32);
        d.write(2, 0);
        dma_wmb();
        let ioc = if dic { 0 } else { q::RDES3_IOC };
        d.write(3, q::OWN | q::RDES3_BUF1V | ioc);
        return;
    }
    let buf = buf as u32;
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
        DescLayout::Qos => 0,
    };
    d.write(1, des1);
    d.write(2, buf);
    d.write(3, buf);
    dma_wmb();
    d.write(0, OWN);
}

/// An RX write-back, decoded the same way for every layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RxStatus {
    pub own: bool,
    pub first: bool,
    pub last: bool,
    /// A QoS context descriptor (timestamp; RDES3.CTXT): no frame data, skipped.
    pub ctxt: bool,
    /// FL (3.x) / PL (QoS): frame length including the FCS; valid on the last descriptor.
    pub fl: u32,
    /// The error causes, in RDES0's 3.x bit positions whatever the layout (so one drop
    /// rule and one set of counters serve both): [`rx_status`] translates QoS RDES3.
    pub causes: u32,
}

/// Decode the owner/status word of `layout` ([`Desc::status`]: RDES0 in 3.x, RDES3 in
/// QoS). A QoS CTXT descriptor carries no FD/LD/PL: it is reported as `ctxt` only. The 3.x
/// decode is inline (a few masks, most of them dropped where only OWN is looked at); the
/// QoS one is a call, so the 3.x hot paths do not grow with it.
#[inline(always)]
pub(crate) fn rx_status(layout: DescLayout, word: u32) -> RxStatus {
    if layout.is_qos() {
        return rx_status_qos(word);
    }
    RxStatus {
        own: word & OWN != 0,
        first: word & n::RDES0_FS != 0,
        last: word & n::RDES0_LS != 0,
        ctxt: false,
        fl: (word >> n::RDES0_FL_SHIFT) & n::RDES0_FL_MASK,
        causes: word,
    }
}

/// [`rx_status`] for RDES3 of the QoS write-back format.
#[inline(never)]
fn rx_status_qos(word: u32) -> RxStatus {
    if word & OWN == 0 && word & q::CTXT != 0 {
        return RxStatus {
            own: false,
            first: false,
            last: false,
            ctxt: true,
            fl: 0,
            causes: 0,
        };
    }
    let mut causes = 0;
    // (QoS RDES3 bit, 3.x RDES0 bit); the giant-packet flag becomes the summary.
    let map = [
        (q::RDES3_ES, n::RDES0_ES),
        (q::RDES3_CE, n::RDES0_CE),
        (q::RDES3_OE, n::RDES0_OE),
        (q::RDES3_RWT, n::RDES0_RWT),
        (q::RDES3_RE, RDES0_RE),
        (q::RDES3_DE, n::RDES0_DE),
        (q::RDES3_GP, n::RDES0_ES),
    ];
    for (qb, nb) in map {
        if word & qb != 0 {
            causes |= nb;
        }
    }
    let last = word & q::LD != 0;
    RxStatus {
        own: word & OWN != 0,
        first: word & q::FD != 0,
        last,
        ctxt: false,
        fl: if last { word & q::RDES3_PL_MASK } else { 0 },
        causes,
    }
}

/// RDES0.RE (bit 3), 3.x: receive error (RX_ER from the PHY during the frame).
pub(crate) const RDES0_RE: u32 = 1 << 3;

/// The checksum errors of a QoS frame, in RDES0's 3.x positions (IP header: bit 7,
/// payload: bit 0): RDES1.IPHE / IPCE, read only when RDES3.RS1V says RDES1 is valid.
#[inline]
pub(crate) fn qos_csum(d: Desc, rdes3: u32) -> u32 {
    if rdes3 & q::RDES3_RS1V == 0 {
        return 0;
    }
    let r1 = d.read(1);
    let mut c = 0;
    if r1 & q::RDES1_IPHE != 0 {
        c |= n::RDES0_IPC_CSUM;
    }
    if r1 & q::RDES1_IPCE != 0 {
        c |= n::RDES0_PCE;
    }
    c
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

    /// QoS: address in words 0–1 (above 4 GiB too), length and IOC (bit 31) in TDES2,
    /// TDES3 = OWN 31 | FD 29 | LD 28 | CIC 17:16 | FL 14:0; positions written out from
    /// Linux's `dwmac4_descs.h` rather than taken from `regs4`.
    #[test]
    fn qos_tx_words() {
        for cic in [false, true] {
            for ic in [false, true] {
                let mut mem = [0u32; 4];
                let d = Desc::at(mem.as_mut_ptr().cast::<u8>());
                let p = TxPrep {
                    buf: 0x0000_0012_3456_7800,
                    len: 1514,
                    ic,
                    end_of_ring: true,
                    ctl: tx_ctl(DescLayout::Qos, cic),
                };
                tx_give(DescLayout::Qos, d, p);
                let ioc = if ic { 1 << 31 } else { 0 };
                let cicv = if cic { 3 << 16 } else { 0 };
                assert_eq!(
                    d.words(),
                    [
                        0x3456_7800,
                        0x12,
                        ioc | 1514,
                        (1 << 31) | (1 << 29) | (1 << 28) | cicv | 1514
                    ],
                    "{cic} {ic}"
                );
                let st = tx_status(DescLayout::Qos, d.status(DescLayout::Qos));
                assert_eq!(st, (true, false));
                tx_idle(DescLayout::Qos, d, 0xFFFF_FFFF, true);
                assert_eq!(d.words(), [0; 4]);
            }
        }
        // ES is TDES3 bit 15 on QoS.
        assert_eq!(tx_status(DescLayout::Qos, 1 << 15), (false, true));
    }

    /// QoS RX read format: address words 0–1, RDES2 0, RDES3 = OWN 31 | IOC 30 (unless
    /// DIC) | BUF1V 24; no size field (RBSZ is a register).
    #[test]
    fn qos_rx_refill_and_write_back() {
        let mut mem = [0xFFFF_FFFFu32; 4];
        let d = Desc::at(mem.as_mut_ptr().cast::<u8>());
        rx_give(DescLayout::Qos, d, 0x0000_00AB_0000_1000, 1536, false, true);
        assert_eq!(
            d.words(),
            [0x1000, 0xAB, 0, (1 << 31) | (1 << 30) | (1 << 24)]
        );
        rx_give(DescLayout::Qos, d, 0x1000, 1536, true, false);
        assert_eq!(d.words()[3], (1 << 31) | (1 << 24));
        // Write-back: FD 29, LD 28, PL 14:0 on the last; CE 24 with ES 15.
        let s = rx_status(DescLayout::Qos, (1 << 29) | (1 << 28) | 1518);
        assert!(s.first && s.last && !s.own && !s.ctxt);
        assert_eq!((s.fl, s.causes), (1518, 0));
        let s = rx_status(DescLayout::Qos, (1 << 28) | (1 << 24) | (1 << 15) | 64);
        assert_eq!(s.causes, n::RDES0_CE | n::RDES0_ES);
        // Each QoS cause lands on its 3.x counterpart.
        for (q_bit, n_bit) in [
            (21, n::RDES0_OE),
            (22, n::RDES0_RWT),
            (20, RDES0_RE),
            (19, n::RDES0_DE),
            (23, n::RDES0_ES),
        ] {
            assert_eq!(
                rx_status(DescLayout::Qos, 1 << q_bit).causes,
                n_bit,
                "{q_bit}"
            );
        }
        // A context descriptor (CTXT 30, OWN clear) is nothing but that.
        let s = rx_status(DescLayout::Qos, (1 << 30) | (1 << 29) | (1 << 28) | 99);
        assert!(s.ctxt && !s.first && !s.last && s.fl == 0);
        // With OWN set, bit 30 is the read format's IOC: not a context descriptor.
        assert!(!rx_status(DescLayout::Qos, (1 << 31) | (1 << 30)).ctxt);
        // PL counts only on the last descriptor.
        assert_eq!(rx_status(DescLayout::Qos, (1 << 29) | 700).fl, 0);
    }
}
