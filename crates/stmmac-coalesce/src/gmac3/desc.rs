//! The GMAC 3.x descriptor layouts, normal and enhanced (Linux `descs.h`, `norm_desc.c`,
//! `enh_desc.c`): how a TX descriptor is handed over, an RX one refilled, and what their
//! write-backs say, in the version-neutral terms of `ring::desc`.

use crate::common::desc::{CIC_FULL, OWN, RxErrors, RxStatus, TxPrep};
use crate::dma::Desc;
use crate::dma::barrier::dma_wmb;
use crate::gmac3::regs::{desc as n, edesc as e};

/// The control bits of every single-descriptor frame (see `ring::desc::tx_ctl`): FS | LS,
/// and OWN in the enhanced word 0; CIC = 3 with `cic`.
pub(crate) const fn tx_ctl(enhanced: bool, cic: bool) -> u32 {
    if enhanced {
        OWN | e::TDES0_FS
            | e::TDES0_LS
            | if cic {
                CIC_FULL << e::TDES0_CIC_SHIFT
            } else {
                0
            }
    } else {
        n::TDES1_FS
            | n::TDES1_LS
            | if cic {
                CIC_FULL << n::TDES1_CIC_SHIFT
            } else {
                0
            }
    }
}

/// Fill and hand over a TX descriptor: words 1–3, [`dma_wmb`], then word 0 with OWN (and,
/// enhanced, the control bits). Only the low 32 address bits: the rings carve 32-bit
/// buffers for GMAC 3.x.
#[inline]
pub(crate) fn tx_give(enhanced: bool, d: Desc, p: TxPrep) {
    if enhanced {
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
    } else {
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
}

/// A TX descriptor's idle, CPU-owned state.
pub(crate) fn tx_idle(enhanced: bool, d: Desc, buf: u64, end_of_ring: bool) {
    if enhanced {
        d.write(1, 0);
        d.write(0, if end_of_ring { e::TDES0_TER } else { 0 });
    } else {
        d.write(1, if end_of_ring { n::TDES1_TER } else { 0 });
        d.write(0, 0);
    }
    d.write(2, buf as u32);
    d.write(3, buf as u32);
}

/// TDES0.ES (bit 15, both layouts): the error summary of a TX write-back.
pub(crate) const TX_ES: u32 = n::TDES0_ES;

/// Refill an RX descriptor: RDES1 (size, RER, DIC), the buffer, [`dma_wmb`], then RDES0 =
/// OWN.
#[inline]
pub(crate) fn rx_give(
    enhanced: bool,
    d: Desc,
    buf: u64,
    buf_size: u32,
    dic: bool,
    end_of_ring: bool,
) {
    let buf = buf as u32;
    let (mask, rer, dicb) = if enhanced {
        (e::RDES1_RBS1_MASK, e::RDES1_RER, e::RDES1_DIC)
    } else {
        (n::RDES1_RBS1_MASK, n::RDES1_RER, n::RDES1_DIC)
    };
    let mut des1 = buf_size & mask;
    if end_of_ring {
        des1 |= rer;
    }
    if dic {
        des1 |= dicb;
    }
    d.write(1, des1);
    d.write(2, buf);
    d.write(3, buf);
    dma_wmb();
    d.write(0, OWN);
}

/// RDES0.LE (bit 12): length error (the 802.3 length field disagrees with the frame).
const RDES0_LE: u32 = 1 << 12;
/// RDES0.RE (bit 3): receive error (RX_ER from the PHY during the frame).
const RDES0_RE: u32 = 1 << 3;
/// RDES0 bits that drop a frame whatever ES says (ES, LE, RE, and the causes ES
/// summarises: CRC, overflow, watchdog, late collision, descriptor error). The dribble bit
/// alone does not (Linux delivers such a frame; its extra bits are not data).
const RDES0_DROP: u32 = n::RDES0_ES
    | RDES0_LE
    | RDES0_RE
    | n::RDES0_CE
    | n::RDES0_OE
    | n::RDES0_RWT
    | n::RDES0_LC
    | n::RDES0_DE;

/// Decode RDES0 (inline: a few masks, most of them dropped where only OWN is looked at).
#[inline(always)]
pub(crate) const fn rx_status(word: u32) -> RxStatus {
    RxStatus {
        own: word & OWN != 0,
        first: word & n::RDES0_FS != 0,
        last: word & n::RDES0_LS != 0,
        ctxt: false,
        fl: (word >> n::RDES0_FL_SHIFT) & n::RDES0_FL_MASK,
        drop: word & RDES0_DROP != 0,
    }
}

/// The causes RDES0 names (the cold path of a dropped frame).
pub(crate) fn rx_errors(word: u32) -> RxErrors {
    let mut e = RxErrors::NONE;
    for (bit, cause) in [
        (n::RDES0_ES, RxErrors::SUMMARY),
        (RDES0_LE, RxErrors::LENGTH_FIELD),
        (RDES0_RE, RxErrors::MII),
        (n::RDES0_CE, RxErrors::CRC),
        (n::RDES0_DRIBBLE, RxErrors::DRIBBLE),
        (n::RDES0_OE, RxErrors::OVERFLOW),
        (n::RDES0_RWT, RxErrors::WATCHDOG),
        (n::RDES0_LC, RxErrors::LATE_COLLISION),
        (n::RDES0_DE, RxErrors::DESCRIPTOR),
    ] {
        if word & bit != 0 {
            e = e.union(cause);
        }
    }
    e
}

/// The checksum errors RDES0 reports while GMAC_CONTROL.IPC is on.
#[inline]
pub(crate) fn rx_csum_errors(word: u32) -> RxErrors {
    if word & (n::RDES0_IPC_CSUM | n::RDES0_PCE) == 0 {
        return RxErrors::NONE;
    }
    let mut e = RxErrors::NONE;
    if word & n::RDES0_IPC_CSUM != 0 {
        e = e.union(RxErrors::IP_HEADER_CHECKSUM);
    }
    if word & n::RDES0_PCE != 0 {
        e = e.union(RxErrors::PAYLOAD_CHECKSUM);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::DescLayout;
    use crate::ring::desc::tx_ctl as ctl;

    /// The words `tx_give` leaves, for a descriptor in a local buffer.
    fn give(layout: DescLayout, cic: bool, ic: bool, end_of_ring: bool) -> [u32; 4] {
        let mut mem = [0u32; 4];
        let d = Desc::at(mem.as_mut_ptr().cast::<u8>());
        let p = TxPrep {
            buf: 0x1234_5670,
            len: 1514,
            ic,
            end_of_ring,
            ctl: ctl(layout, cic),
        };
        crate::ring::desc::tx_give(layout, d, p);
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

    /// Each RDES0 cause is its own semantic error; the dribble bit alone drops nothing.
    #[test]
    fn rdes0_causes_are_semantic() {
        assert_eq!(rx_errors(1 << 1), RxErrors::CRC);
        assert_eq!(rx_errors(1 << 3), RxErrors::MII);
        assert_eq!(rx_errors(1 << 12), RxErrors::LENGTH_FIELD);
        assert_eq!(
            rx_errors((1 << 15) | (1 << 11)),
            RxErrors::SUMMARY | RxErrors::OVERFLOW
        );
        assert!(rx_status(1 << 14).drop);
        assert!(!rx_status(1 << 2).drop);
        assert_eq!(rx_errors(1 << 2), RxErrors::DRIBBLE);
        assert_eq!(rx_csum_errors(1 << 7), RxErrors::IP_HEADER_CHECKSUM);
        assert_eq!(rx_csum_errors(1 << 0), RxErrors::PAYLOAD_CHECKSUM);
    }
}
