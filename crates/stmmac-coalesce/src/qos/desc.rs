//! The QoS 4.x/5.x descriptor layout (Linux `dwmac4_descs.h`): OWN in word 3, the buffer
//! address in words 0–1 (up to 48 bits), IOC in TDES2, and no buffer size in RX
//! descriptors (DMA_CH_RX_CONTROL.RBSZ), in the version-neutral terms of `ring::desc`.

use crate::common::desc::{CIC_FULL, OWN, RxErrors, RxStatus, TxPrep};
use crate::dma::Desc;
use crate::dma::barrier::dma_wmb;
use crate::qos::regs::desc as q;

/// The control bits of every single-descriptor frame, TDES3: OWN | FD | LD, CIC = 3 with
/// `cic`.
pub(crate) const fn tx_ctl(cic: bool) -> u32 {
    q::OWN
        | q::FD
        | q::LD
        | if cic {
            CIC_FULL << q::TDES3_CIC_SHIFT
        } else {
            0
        }
}

/// Fill and hand over a TX descriptor: address (words 0–1), TDES2 (length, IOC),
/// [`dma_wmb`], then TDES3 with OWN and the frame length. No end-of-ring bit: the ring
/// length register wraps the DMA.
#[inline]
pub(crate) fn tx_give(d: Desc, p: TxPrep) {
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

/// A TX descriptor's idle state: all zero (no OWN, no buffer; the address is written with
/// each frame).
pub(crate) fn tx_idle(d: Desc) {
    for w in 0..4 {
        d.write(w, 0);
    }
}

/// TDES3.ES (bit 15): the error summary of a TX write-back.
pub(crate) const TX_ES: u32 = q::TDES3_ES;

/// Refill an RX descriptor (read format): address, RDES2 = 0, [`dma_wmb`], then RDES3 =
/// OWN | BUF1V, and IOC unless `dic`.
#[inline]
pub(crate) fn rx_give(d: Desc, buf: u64, dic: bool) {
    d.write(0, buf as u32);
    d.write(1, (buf >> 32) as u32);
    d.write(2, 0);
    dma_wmb();
    let ioc = if dic { 0 } else { q::RDES3_IOC };
    d.write(3, q::OWN | q::RDES3_BUF1V | ioc);
}

/// RDES3 bits that drop a frame: ES and the causes it summarises, and the giant packet.
const RDES3_DROP: u32 = q::RDES3_ES
    | q::RDES3_CE
    | q::RDES3_OE
    | q::RDES3_RWT
    | q::RDES3_RE
    | q::RDES3_DE
    | q::RDES3_GP;

/// Decode RDES3 of the write-back format. A context descriptor (CTXT, OWN clear) carries no
/// FD/LD/PL: it is reported as `ctxt` only. A call, so the GMAC 3.x hot paths do not grow.
#[inline(never)]
pub(crate) fn rx_status(word: u32) -> RxStatus {
    if word & OWN == 0 && word & q::CTXT != 0 {
        return RxStatus {
            own: false,
            first: false,
            last: false,
            ctxt: true,
            fl: 0,
            drop: false,
        };
    }
    let last = word & q::LD != 0;
    RxStatus {
        own: word & OWN != 0,
        first: word & q::FD != 0,
        last,
        ctxt: false,
        fl: if last { word & q::RDES3_PL_MASK } else { 0 },
        drop: word & RDES3_DROP != 0,
    }
}

/// The causes RDES3 names; the giant-packet flag counts as the summary.
pub(crate) fn rx_errors(word: u32) -> RxErrors {
    let mut e = RxErrors::NONE;
    for (bit, cause) in [
        (q::RDES3_ES, RxErrors::SUMMARY),
        (q::RDES3_CE, RxErrors::CRC),
        (q::RDES3_OE, RxErrors::OVERFLOW),
        (q::RDES3_RWT, RxErrors::WATCHDOG),
        (q::RDES3_RE, RxErrors::MII),
        (q::RDES3_DE, RxErrors::DESCRIPTOR),
        (q::RDES3_GP, RxErrors::SUMMARY),
    ] {
        if word & bit != 0 {
            e = e.union(cause);
        }
    }
    e
}

/// The checksum errors of a frame: RDES1.IPHE / IPCE, read only when RDES3.RS1V says RDES1
/// is valid.
#[inline]
pub(crate) fn rx_csum_errors(d: Desc, rdes3: u32) -> RxErrors {
    if rdes3 & q::RDES3_RS1V == 0 {
        return RxErrors::NONE;
    }
    let r1 = d.read(1);
    let mut e = RxErrors::NONE;
    if r1 & q::RDES1_IPHE != 0 {
        e = e.union(RxErrors::IP_HEADER_CHECKSUM);
    }
    if r1 & q::RDES1_IPCE != 0 {
        e = e.union(RxErrors::PAYLOAD_CHECKSUM);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::DescLayout;
    use crate::ring::desc::{
        rx_give as give_rx, tx_ctl as ctl, tx_give as give_tx, tx_idle as idle, tx_status,
    };

    /// QoS: address in words 0–1 (above 4 GiB too), length and IOC (bit 31) in TDES2,
    /// TDES3 = OWN 31 | FD 29 | LD 28 | CIC 17:16 | FL 14:0; positions written out from
    /// Linux's `dwmac4_descs.h` rather than taken from `qos::regs`.
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
                    ctl: ctl(DescLayout::Qos, cic),
                };
                give_tx(DescLayout::Qos, d, p);
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
                idle(DescLayout::Qos, d, 0xFFFF_FFFF, true);
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
        give_rx(DescLayout::Qos, d, 0x0000_00AB_0000_1000, 1536, false, true);
        assert_eq!(
            d.words(),
            [0x1000, 0xAB, 0, (1 << 31) | (1 << 30) | (1 << 24)]
        );
        give_rx(DescLayout::Qos, d, 0x1000, 1536, true, false);
        assert_eq!(d.words()[3], (1 << 31) | (1 << 24));
        // Write-back: FD 29, LD 28, PL 14:0 on the last; CE 24 with ES 15.
        let s = rx_status((1 << 29) | (1 << 28) | 1518);
        assert!(s.first && s.last && !s.own && !s.ctxt && !s.drop);
        assert_eq!(s.fl, 1518);
        let w = (1 << 28) | (1 << 24) | (1 << 15) | 64;
        assert!(rx_status(w).drop);
        assert_eq!(rx_errors(w), RxErrors::CRC | RxErrors::SUMMARY);
        // Each QoS cause is its semantic error.
        for (q_bit, cause) in [
            (21, RxErrors::OVERFLOW),
            (22, RxErrors::WATCHDOG),
            (20, RxErrors::MII),
            (19, RxErrors::DESCRIPTOR),
            (23, RxErrors::SUMMARY),
        ] {
            assert!(rx_status(1 << q_bit).drop, "{q_bit}");
            assert_eq!(rx_errors(1 << q_bit), cause, "{q_bit}");
        }
        // A context descriptor (CTXT 30, OWN clear) is nothing but that.
        let s = rx_status((1 << 30) | (1 << 29) | (1 << 28) | 99);
        assert!(s.ctxt && !s.first && !s.last && s.fl == 0);
        // With OWN set, bit 30 is the read format's IOC: not a context descriptor.
        assert!(!rx_status((1 << 31) | (1 << 30)).ctxt);
        // PL counts only on the last descriptor.
        assert_eq!(rx_status((1 << 29) | 700).fl, 0);
    }
}
