//! [`NetState`]: the rings, the counters and the interrupt paths' entry points.

use hwtimer_core::Restart;

use super::hub::{Hub, Wakers};
use crate::common::{DmaEvents, Dwmac};
use crate::dma::CacheOps;
use crate::ring::rx::RxRing;
use crate::ring::tx::{CleanupTimer, TxRing, TxSlot};

/// Counters of a [`NetState`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NetStats {
    /// Frames handed to embassy-net (copied into the scratch buffer).
    pub rx_frames: u64,
    /// Complete frames longer than the scratch buffer: dropped.
    pub rx_too_long: u64,
    /// Frames queued for transmission by the driver's tokens.
    pub tx_frames: u64,
    /// Frames a TX token built but could not queue (link down or no descriptor by the time
    /// of `consume`, a length the ring refused, or a TX DMA restart during the fill):
    /// dropped.
    pub tx_dropped: u64,
    /// `transmit()` or `receive()` answered `None` because the TX ring had
    /// [`NetState::set_inflight_limit`] frames pending (not reclaimed yet).
    pub tx_inflight_limited: u64,
}

/// The rings, shared by the driver and the interrupt paths.
pub(super) struct Rings<T: CleanupTimer, C: CacheOps> {
    pub(super) tx: TxRing<T, C>,
    pub(super) rx: RxRing<C>,
    /// Frames the TX ring may have pending before tokens are refused.
    pub(super) inflight_limit: usize,
    pub(super) stats: NetStats,
}

/// What the driver shares with the interrupt handlers: both rings and the wakers. Put it
/// in a `static` (`NetState::new()` is `const`) and [`install`](Self::install) the rings.
pub struct NetState<T: CleanupTimer, C: CacheOps> {
    pub(super) hub: Hub<Rings<T, C>>,
}

impl<T: CleanupTimer, C: CacheOps> Default for NetState<T, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: CleanupTimer, C: CacheOps> NetState<T, C> {
    /// Empty: no rings yet.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self { hub: Hub::new() }
    }

    /// Empty: no rings yet (not `const` in the model-checked build, `cfg(loom)`).
    #[cfg(loom)]
    pub fn new() -> Self {
        Self { hub: Hub::new() }
    }

    /// Hand the (started) rings over. Counters start at 0, and there is no in-flight limit
    /// (see [`set_inflight_limit`](Self::set_inflight_limit)). A TX token filling a frame
    /// in the old ring's slot meanwhile drops its frame ([`NetStats::tx_dropped`]).
    pub fn install(&self, tx: TxRing<T, C>, rx: RxRing<C>) {
        let rings = Rings {
            tx,
            rx,
            inflight_limit: usize::MAX,
            stats: NetStats::default(),
        };
        self.hub.install(rings);
    }

    /// Run `f` on the TX ring, inside a critical section; `None` before
    /// [`install`](Self::install). While a TX token fills a frame its slot is out
    /// ([`TxRing::slot_reserved`]): [`TxRing::send`] and [`TxRing::reserve`] then answer
    /// [`Error::WouldBlock`](crate::Error::WouldBlock).
    pub fn with_tx<R>(&self, f: impl FnOnce(&mut TxRing<T, C>) -> R) -> Option<R> {
        self.with_rings(|r| f(&mut r.tx))
    }

    /// Run `f` on the RX ring, inside a critical section.
    pub fn with_rx<R>(&self, f: impl FnOnce(&mut RxRing<C>) -> R) -> Option<R> {
        self.with_rings(|r| f(&mut r.rx))
    }

    /// Refuse TX tokens (and so RX tokens, which carry one) while `limit` frames are pending
    /// in the TX ring, handed to the DMA and not reclaimed yet; 0 means no limit. A
    /// TSQ-like limit for measurements (Linux's TCP small queues let a socket have two
    /// packets below TCP at low rates; embassy-net has no such limit): the frames the
    /// driver has not reclaimed then gate a TCP stream, so the TX cleanup path sets its
    /// pace. The reclaim paths ([`on_dma_interrupt`](Self::on_dma_interrupt),
    /// [`on_tx_timer`](Self::on_tx_timer)) wake the transmit side when they free
    /// descriptors. Applies to the rings installed now; [`install`](Self::install) clears it.
    pub fn set_inflight_limit(&self, limit: usize) {
        self.with_rings(|r| r.inflight_limit = if limit == 0 { usize::MAX } else { limit });
    }

    /// The counters (zero before [`install`](Self::install)).
    pub fn stats(&self) -> NetStats {
        self.with_rings(|r| r.stats).unwrap_or_default()
    }

    pub(super) fn with_rings<R>(&self, f: impl FnOnce(&mut Rings<T, C>) -> R) -> Option<R> {
        self.hub.with(f)
    }

    /// From the DMA interrupt, with what [`Dwmac::take_events`] returned: service the RX
    /// ring ([`RxRing::service`]), and the TX ring ([`TxRing::service`]) only on TI or a TX
    /// fault (UNF, TJT or FBI with AIS), as stmmac's TX NAPI runs only then; wake the receive side on RI/RU or data
    /// waiting, the transmit side on TI or descriptors freed. Returns the descriptors freed.
    /// A TX token filling its slot meanwhile is not in the way (see [Tokens](super#tokens)).
    pub fn on_dma_interrupt<M: Dwmac>(&self, mac: &M, events: DmaEvents) -> usize {
        // Separate TX and RX service, as stmmac's TX and RX NAPI: only TI or a TX fault
        // cleans the TX ring; an RX interrupt does not (it would reclaim on every received
        // ACK, and the cleanup timer and `tx_frames` would set nothing).
        let tx_done = events.tx_done();
        let tx_work = tx_done || events.tx_fault() || events.fatal();
        self.hub.signal(|rings| {
            let (freed, rx_ready) = rings
                .map(|r| {
                    let freed = if tx_work {
                        r.tx.service(mac, events)
                    } else {
                        0
                    };
                    (freed, r.rx.service(mac, events))
                })
                .unwrap_or((0, false));
            let mut wake = Wakers::NONE;
            if events.rx_ready() || events.rx_no_buffer() || rx_ready {
                wake = wake.and(Wakers::RX);
            }
            if tx_done || freed > 0 {
                wake = wake.and(Wakers::TX);
            }
            (freed, wake)
        })
    }

    /// The cleanup timer expired (return this from the `HrTimers::on_interrupt` callback
    /// for the TX ring's timer): reclaim, re-arm while frames are pending, wake the
    /// transmit side if descriptors were freed, also while a TX token fills its slot.
    pub fn on_tx_timer<M: Dwmac>(&self, mac: &M, now: u64) -> Restart {
        self.hub.signal(|rings| match rings {
            Some(r) => {
                let before = r.tx.stats().reclaimed;
                let restart = r.tx.on_timer(mac, now);
                let freed = r.tx.stats().reclaimed.wrapping_sub(before);
                (restart, if freed > 0 { Wakers::TX } else { Wakers::NONE })
            }
            None => (Restart::No, Wakers::NONE),
        })
    }

    /// A new link state (from [`Phy::poll`](crate::common::phy::Phy::poll)): program the MAC
    /// ([`Dwmac::set_link`]) and, on a change, wake the runner.
    pub fn set_link<M: Dwmac>(&self, mac: &M, link: crate::LinkState) {
        // The MAC's link state is what `link_state` and the TX tokens look at: change it
        // on the signal side, inside the critical section, as the rings are.
        self.hub.signal(|_| {
            let changed = mac.set_link(link);
            (
                (),
                if changed {
                    Wakers::LINK.and(Wakers::TX)
                } else {
                    Wakers::NONE
                },
            )
        });
    }

    /// Reserve the TX ring's next descriptor for a token (one short critical section);
    /// `None`, counted in [`NetStats::tx_dropped`], when the ring refuses (link down, no
    /// free descriptor, a slot out already) or is not installed.
    pub(super) fn reserve_slot<M: Dwmac>(&self, mac: &M) -> Option<TxSlot> {
        self.with_rings(|r| match r.tx.reserve_slot(mac) {
            Ok(slot) => Some(slot),
            Err(_) => {
                r.stats.tx_dropped = r.stats.tx_dropped.wrapping_add(1);
                None
            }
        })
        .flatten()
    }

    /// Hand a token's filled slot to the ring (one short critical section): commit `len`
    /// bytes, or end the reservation with `None`; counted in [`NetStats::tx_frames`] or
    /// [`NetStats::tx_dropped`].
    pub(super) fn finish_slot<M: Dwmac>(&self, mac: &M, slot: TxSlot, len: Option<usize>) {
        self.with_rings(|r| {
            let sent = match len {
                Some(n) => r.tx.commit_slot(mac, slot, n).is_ok(),
                None => {
                    r.tx.release_slot(slot);
                    false
                }
            };
            if sent {
                r.stats.tx_frames = r.stats.tx_frames.wrapping_add(1);
            } else {
                r.stats.tx_dropped = r.stats.tx_dropped.wrapping_add(1);
            }
        });
    }
}
