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

pub(crate) use crate::common::desc::{OWN, RxErrors, RxStatus, TxPrep};
use crate::dma::{Desc, DescLayout};
use crate::{gmac3, qos};

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
