//! The descriptor vocabulary the rings speak, whatever the layout: what a TX descriptor is
//! handed over with ([`TxPrep`]), what an RX write-back says ([`RxStatus`], [`RxErrors`]),
//! and one entry per operation that sends it to the layout's own code (`gmac3::desc` for
//! the normal and enhanced layouts, `qos::desc` for the QoS one).
//!
//! Rings never touch descriptor bits themselves; they ask here to *prepare* a TX
//! descriptor, *refill* an RX one, or *decode* a write-back. The handoff order (fields,
//! [`dma_wmb`](crate::dma::barrier::dma_wmb), the owner word,
//! [`wmb`](crate::dma::barrier::wmb), doorbell) is the same in every layout: only which word
//! is the owner word changes.

use crate::dma::{Desc, DescLayout};
use crate::{gmac3, qos};

/// OWN, bit 31 of the owner word in every layout (GMAC 3.x RDES0/TDES0, QoS RDES3/TDES3;
/// Linux `descs.h` and `dwmac4_descs.h`).
pub(crate) const OWN: u32 = 1 << 31;

/// CIC value for full insertion: IP header, and TCP/UDP/ICMP with the pseudo-header.
pub(crate) const CIC_FULL: u32 = 3;

/// What a TX descriptor is handed over with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TxPrep {
    /// Buffer bus address (above 32 bits only in the QoS layout).
    pub buf: u64,
    /// Bytes in the buffer.
    pub len: u32,
    /// Interrupt on completion.
    pub ic: bool,
    /// Last descriptor of the ring (TER; the QoS ring length register wraps instead).
    pub end_of_ring: bool,
    /// The control bits every frame of the ring carries ([`tx_ctl`]).
    pub ctl: u32,
}

/// An RX write-back, decoded the same way for every layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RxStatus {
    pub own: bool,
    pub first: bool,
    pub last: bool,
    /// A QoS context descriptor (timestamp): no frame data, skipped.
    pub ctxt: bool,
    /// Frame length including the FCS; valid on the last descriptor.
    pub fl: u32,
    /// An error the frame is dropped for ([`rx_errors`] names the causes).
    pub drop: bool,
}

/// The error causes an RX write-back names, as a set (Linux `common.h`'s
/// `stmmac_rx_frame_status` and the `stmmac_extra_stats` counters they feed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RxErrors(u16);

impl RxErrors {
    pub(crate) const NONE: Self = Self(0);
    /// The error summary (ES; on QoS also the giant-packet flag).
    pub(crate) const SUMMARY: Self = Self(1 << 0);
    /// The 802.3 length field disagrees with the frame.
    pub(crate) const LENGTH_FIELD: Self = Self(1 << 1);
    /// The PHY signalled a receive error (RX_ER).
    pub(crate) const MII: Self = Self(1 << 2);
    /// Wrong FCS.
    pub(crate) const CRC: Self = Self(1 << 3);
    /// Not a whole number of bytes (MII); alone it drops nothing.
    pub(crate) const DRIBBLE: Self = Self(1 << 4);
    /// The RX FIFO overflowed.
    pub(crate) const OVERFLOW: Self = Self(1 << 5);
    /// Receive watchdog (jabber).
    pub(crate) const WATCHDOG: Self = Self(1 << 6);
    /// Late collision.
    pub(crate) const LATE_COLLISION: Self = Self(1 << 7);
    /// The frame did not fit the descriptors.
    pub(crate) const DESCRIPTOR: Self = Self(1 << 8);
    /// The core found the IPv4 header checksum wrong.
    pub(crate) const IP_HEADER_CHECKSUM: Self = Self(1 << 9);
    /// The core found the TCP/UDP/ICMP checksum wrong.
    pub(crate) const PAYLOAD_CHECKSUM: Self = Self(1 << 10);

    /// Both sets.
    pub(crate) const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Any cause of `other` is in this set.
    pub(crate) const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// No cause.
    pub(crate) const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl core::ops::BitOr for RxErrors {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

/// The control bits of every single-descriptor frame in `layout`, in the word that carries
/// them (word 1 normal, word 0 enhanced, word 3 QoS): first and last segment, OWN where it
/// shares that word, and full checksum insertion with `cic`. The ring keeps it, so a frame
/// adds only its end-of-ring, IC and length.
pub(crate) const fn tx_ctl(layout: DescLayout, cic: bool) -> u32 {
    match layout {
        DescLayout::Normal => gmac3::desc::tx_ctl(false, cic),
        DescLayout::Enhanced => gmac3::desc::tx_ctl(true, cic),
        DescLayout::Qos => qos::desc::tx_ctl(cic),
    }
}

/// Fill a TX descriptor for a single-descriptor frame and hand it to the DMA: the other
/// words, [`dma_wmb`](crate::dma::barrier::dma_wmb), then the owner word with OWN last.
/// `p.ctl` is [`tx_ctl`] for `layout`.
#[inline]
pub(crate) fn tx_give(layout: DescLayout, d: Desc, p: TxPrep) {
    match layout {
        DescLayout::Normal => gmac3::desc::tx_give(false, d, p),
        DescLayout::Enhanced => gmac3::desc::tx_give(true, d, p),
        DescLayout::Qos => qos::desc::tx_give(d, p),
    }
}

/// Put a TX descriptor in its idle, CPU-owned state (ring set-up and recovery).
pub(crate) fn tx_idle(layout: DescLayout, d: Desc, buf: u64, end_of_ring: bool) {
    match layout {
        DescLayout::Normal => gmac3::desc::tx_idle(false, d, buf, end_of_ring),
        DescLayout::Enhanced => gmac3::desc::tx_idle(true, d, buf, end_of_ring),
        DescLayout::Qos => qos::desc::tx_idle(d),
    }
}

/// A TX write-back, from the owner word of `layout` ([`Desc::status`]):
/// `(dma_owned, error_summary)`.
#[inline]
pub(crate) const fn tx_status(layout: DescLayout, word: u32) -> (bool, bool) {
    let es = match layout {
        DescLayout::Qos => qos::desc::TX_ES,
        _ => gmac3::desc::TX_ES,
    };
    // A QoS context descriptor is never in a TX ring this driver fills.
    (word & OWN != 0, word & es != 0)
}

/// Refill an RX descriptor: the other words, then the owner word with OWN last (the QoS
/// buffer size is DMA_CH_RX_CONTROL.RBSZ rather than a descriptor field).
#[inline]
pub(crate) fn rx_give(
    layout: DescLayout,
    d: Desc,
    buf: u64,
    buf_size: u32,
    dic: bool,
    end_of_ring: bool,
) {
    match layout {
        DescLayout::Normal => gmac3::desc::rx_give(false, d, buf, buf_size, dic, end_of_ring),
        DescLayout::Enhanced => gmac3::desc::rx_give(true, d, buf, buf_size, dic, end_of_ring),
        DescLayout::Qos => qos::desc::rx_give(d, buf, dic),
    }
}

/// Decode the owner/status word of `layout` ([`Desc::status`]). The GMAC 3.x decode is
/// inline; the QoS one is a call, so the 3.x hot paths do not grow with it.
#[inline(always)]
pub(crate) fn rx_status(layout: DescLayout, word: u32) -> RxStatus {
    if layout.is_qos() {
        qos::desc::rx_status(word)
    } else {
        gmac3::desc::rx_status(word)
    }
}

/// The causes of a dropped frame's owner word `word` (the cold path).
#[cold]
pub(crate) fn rx_errors(layout: DescLayout, word: u32) -> RxErrors {
    if layout.is_qos() {
        qos::desc::rx_errors(word)
    } else {
        gmac3::desc::rx_errors(word)
    }
}

/// The checksum errors the core reports for the frame whose last descriptor is `d`, with
/// owner word `word` (only meaningful while RX checksum checking is on).
#[inline]
pub(crate) fn rx_csum_errors(layout: DescLayout, d: Desc, word: u32) -> RxErrors {
    if layout.is_qos() {
        qos::desc::rx_csum_errors(d, word)
    } else {
        gmac3::desc::rx_csum_errors(word)
    }
}
