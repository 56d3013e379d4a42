//! [`embassy_net_driver::Driver`] for a DWMAC and its rings (feature `embassy-net`).
//!
//! embassy-net polls the driver from its runner task and sleeps until a waker fires. Both
//! rings live in a [`NetState`] (a `static`, behind a critical-section mutex), shared by
//! the driver's tokens and the two interrupt paths that free resources:
//!
//! - **the DMA interrupt**: call [`NetState::on_dma_interrupt`] with
//!   [`Dwmac::take_events`]: it runs the RX ring's service (recovery on FBI with AIS, RX
//!   poll demand on RU when enabled) and, on TI or a TX fault only (as stmmac's TX NAPI),
//!   the TX ring's (recovery on UNF/TJT/FBI with AIS, reclaim, cleanup-timer bookkeeping);
//!   it wakes the receive
//!   side on RI/RU or data waiting, the transmit side on TI or descriptors freed;
//! - **the TX cleanup timer**: from the [`HrTimers`](hwtimer_core::HrTimers) callback for
//!   the ring's timer, return [`NetState::on_tx_timer`]: it reclaims
//!   ([`TxRing::on_timer`]), re-arms while frames are pending, and wakes the transmit side
//!   when descriptors were freed.
//!
//! Link changes ([`NetState::set_link`], from a PHY poll) program the MAC and wake the
//! runner.
//!
//! The cleanup timer's lower bound: it is started by the first frame without IC while it is
//! idle and fires **no earlier than `tx_usecs` later** (rounded up to the timer's ticks, at
//! least one tick), so servicing TX on every interrupt instead of TI would leave it no
//! work. A `transmit()` or `receive()` that finds the TX ring full reclaims it first, so a
//! ring whose frames carry no IC (`tx_usecs = 0`) never stops the interface. The crate
//! implemented is re-exported as
//! [`net::embassy_net_driver_crate`](crate::net::embassy_net_driver_crate).
//!
//! # No lost wake
//!
//! Every path that can make the runner's next poll succeed changes the shared state inside
//! the critical section and wakes **after** leaving it; every poll of the driver registers
//! its waker **before** it looks at that state, in a critical section of its own. So an
//! event that lands while the runner registers is either seen by its look or finds the
//! waker registered and wakes it; a wake takes the waker out, so it fires once per
//! registration. The two halves are the crate-private `Hub::poll` and `Hub::signal`, which
//! every driver poll and every interrupt path go through. Model-checked with loom
//! (`RUSTFLAGS="--cfg loom" cargo test -p stmmac-coalesce --lib --release loom_check`,
//! where the critical section is loom's mutex): the hub and the wakers are this module's
//! own code, the rings a stand-in (they are only ever touched inside the lock).
//!
//! # Tokens
//!
//! A TX token is handed out with the link up and a free descriptor. Its `consume`
//! reserves the descriptor as a [`TxSlot`] ([`TxRing::reserve_slot`], one short critical
//! section), lets embassy-net write the frame **in the slot's DMA buffer** with interrupts
//! enabled, and commits it ([`TxRing::commit_slot`], a second short critical section).
//! The ring never leaves the [`NetState`]: nothing is moved or copied per token but the
//! frame embassy-net writes in place. While the slot is out the interrupt paths service
//! the ring at once, as at any other time (the DMA interrupt's TX service and reclaim, a
//! cleanup-timer expiry and its re-arm); none of them touches a free descriptor's buffer.
//! The ring reserves nothing else meanwhile: another token, or [`TxRing::send`] through
//! [`NetState::with_tx`], gets [`Error::WouldBlock`](crate::Error::WouldBlock). If a TX
//! fault made the TX service restart the DMA during the fill ([`TxRing::recover`]: the
//! descriptors were reset), the slot is stale and its frame is dropped and counted in
//! [`NetStats::tx_dropped`].
//!
//! embassy-net's `TxToken::consume` must call its closure with a buffer, so when the
//! reservation fails after all (the link went down between `transmit()` and `consume()`,
//! or a frame queued through [`NetState::with_tx`] took the last descriptor) the frame is
//! built in a [`DROP_BUF_LEN`]-byte buffer on the stack, not sent, and counted in
//! [`NetStats::tx_dropped`]; the capabilities' MTU is at most that buffer.
//!
//! An RX token is handed out only for a complete, good frame ([`RxRing::receive`]: a
//! frame still arriving, or a head descriptor without its frame start whose successor the
//! DMA still owns, gives no token, so the runner sleeps until the next interrupt instead of
//! spinning). embassy-net's RX token wants `&mut [u8]` and the ring lends `&[u8]`, so
//! `receive()` **copies** the frame once into the driver's scratch buffer
//! ([`RxRing::max_frame`] bytes) inside the critical section and gives its descriptors back
//! at once; the token hands embassy-net that copy. A frame longer than the scratch buffer
//! is dropped and counted ([`NetStats::rx_too_long`]).
//!
//! # MTU
//!
//! smoltcp and embassy-net define the MTU as the largest Ethernet frame without FCS, that
//! is the IP MTU + 14. [`RxConfig::max_frame`](crate::RxConfig::max_frame) leaves room for
//! one 802.1Q tag ([`MAX_FRAME`](crate::ring::rx::MAX_FRAME) = 1500 + 14 + 4), which the stack
//! never sends, so the driver reports the smaller of `max_frame` − [`VLAN_TAG_LEN`],
//! [`TxRing::buf_size`], the scratch buffer and [`DROP_BUF_LEN`]: **1514** with the
//! defaults, a 1500-byte IP MTU.

#[cfg(not(loom))]
use core::cell::RefCell;
use core::task::{Context, Waker};

use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use hwtimer_core::Restart;

use crate::common::DmaEvents;
use crate::common::Dwmac;
use crate::dma::CacheOps;
use crate::ring::rx::RxRing;
use crate::ring::tx::{CleanupTimer, TxRing, TxSlot};

/// Bytes of an IEEE 802.1Q tag: [`RxConfig::max_frame`](crate::RxConfig::max_frame) counts
/// one, the stack's frames carry none (see [MTU](self#mtu)).
pub const VLAN_TAG_LEN: usize = 4;

/// Bytes of the stack buffer a frame is built in when no descriptor can take it (see
/// [Tokens](self#tokens)); the reported MTU is at most this.
pub const DROP_BUF_LEN: usize = 1536;

/// A value shared with interrupt handlers: behind a `critical-section` mutex, or, in the
/// model-checked build (`cfg(loom)`), behind loom's mutex, so that loom explores this
/// module's own code.
struct Locked<T>(
    #[cfg(not(loom))] critical_section::Mutex<RefCell<T>>,
    #[cfg(loom)] loom::sync::Mutex<T>,
);

impl<T> Locked<T> {
    #[cfg(not(loom))]
    const fn new(value: T) -> Self {
        Self(critical_section::Mutex::new(RefCell::new(value)))
    }

    /// loom's mutex has no `const` constructor.
    #[cfg(loom)]
    fn new(value: T) -> Self {
        Self(loom::sync::Mutex::new(value))
    }

    /// Run `f` on the value inside the critical section; `f` gets `None` when the value is
    /// already lent further up this call stack (a `NetState` method called from inside one
    /// of its own closures), where a second borrow would panic.
    #[cfg(not(loom))]
    fn with<R>(&self, f: impl FnOnce(Option<&mut T>) -> R) -> R {
        critical_section::with(|cs| match self.0.borrow(cs).try_borrow_mut() {
            Ok(mut value) => f(Some(&mut value)),
            Err(_) => f(None),
        })
    }

    /// Run `f` on the value with the mutex held.
    #[cfg(loom)]
    fn with<R>(&self, f: impl FnOnce(Option<&mut T>) -> R) -> R {
        let mut guard = match self.0.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(Some(&mut guard))
    }
}

/// One registered waker, behind a critical section.
struct WakerSlot(Locked<Option<Waker>>);

impl WakerSlot {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Self(Locked::new(None))
    }

    #[cfg(loom)]
    fn new() -> Self {
        Self(Locked::new(None))
    }

    fn register(&self, w: &Waker) {
        self.0.with(|slot| {
            if let Some(slot) = slot {
                match slot.as_ref() {
                    Some(old) if old.will_wake(w) => {}
                    _ => *slot = Some(w.clone()),
                }
            }
        });
    }

    /// Wake the registered waker, if any, and forget it (outside the critical section).
    fn wake(&self) {
        if let Some(w) = self.0.with(|slot| slot.and_then(Option::take)) {
            w.wake();
        }
    }
}

/// Which of a [`Hub`]'s wakers an event wakes, or a poll registers.
#[derive(Clone, Copy)]
struct Wakers {
    rx: bool,
    tx: bool,
    link: bool,
}

impl Wakers {
    const NONE: Self = Self {
        rx: false,
        tx: false,
        link: false,
    };
    const RX: Self = Self {
        rx: true,
        ..Self::NONE
    };
    const TX: Self = Self {
        tx: true,
        ..Self::NONE
    };
    const LINK: Self = Self {
        link: true,
        ..Self::NONE
    };

    const fn and(self, other: Self) -> Self {
        Self {
            rx: self.rx || other.rx,
            tx: self.tx || other.tx,
            link: self.link || other.link,
        }
    }
}

/// Where the driver and the interrupt paths meet: the state `S` (the rings, once
/// installed) behind the critical section, and the wakers. The driver's side is
/// [`poll`](Self::poll), the interrupt paths' side [`signal`](Self::signal); see
/// [No lost wake](self#no-lost-wake).
struct Hub<S> {
    state: Locked<Option<S>>,
    rx: WakerSlot,
    tx: WakerSlot,
    link: WakerSlot,
}

impl<S> Hub<S> {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Self {
            state: Locked::new(None),
            rx: WakerSlot::new(),
            tx: WakerSlot::new(),
            link: WakerSlot::new(),
        }
    }

    #[cfg(loom)]
    fn new() -> Self {
        Self {
            state: Locked::new(None),
            rx: WakerSlot::new(),
            tx: WakerSlot::new(),
            link: WakerSlot::new(),
        }
    }

    /// Run `f` on the state inside the critical section; `None` before it is installed,
    /// and inside another `with`, `poll` or `signal` (nested: the state is lent already).
    fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        self.state.with(|s| s.and_then(Option::as_mut).map(f))
    }

    /// Replace the state (inside the critical section); nothing, nested.
    fn install(&self, state: S) {
        self.state.with(|s| {
            if let Some(s) = s {
                *s = Some(state);
            }
        });
    }

    /// The driver's side: register `waker` in `which`, **then** look at the state with
    /// `look` (inside the critical section; `None` before it is installed). An event
    /// [`signal`](Self::signal)led between the two is seen by `look`, or wakes `waker`.
    fn poll<R>(&self, which: Wakers, waker: &Waker, look: impl FnOnce(Option<&mut S>) -> R) -> R {
        if which.rx {
            self.rx.register(waker);
        }
        if which.tx {
            self.tx.register(waker);
        }
        if which.link {
            self.link.register(waker);
        }
        self.state.with(|s| look(s.and_then(Option::as_mut)))
    }

    /// The interrupt paths' side: change the state with `change` (inside the critical
    /// section), which also says whom the change wakes; **then**, outside it, wake them.
    fn signal<R>(&self, change: impl FnOnce(Option<&mut S>) -> (R, Wakers)) -> R {
        let (r, which) = self.state.with(|s| change(s.and_then(Option::as_mut)));
        if which.rx {
            self.rx.wake();
        }
        if which.tx {
            self.tx.wake();
        }
        if which.link {
            self.link.wake();
        }
        r
    }
}

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
struct Rings<T: CleanupTimer, C: CacheOps> {
    tx: TxRing<T, C>,
    rx: RxRing<C>,
    /// Frames the TX ring may have pending before tokens are refused.
    inflight_limit: usize,
    stats: NetStats,
}

/// What the driver shares with the interrupt handlers: both rings and the wakers. Put it
/// in a `static` (`NetState::new()` is `const`) and [`install`](Self::install) the rings.
pub struct NetState<T: CleanupTimer, C: CacheOps> {
    hub: Hub<Rings<T, C>>,
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

    fn with_rings<R>(&self, f: impl FnOnce(&mut Rings<T, C>) -> R) -> Option<R> {
        self.hub.with(f)
    }

    /// From the DMA interrupt, with what [`Dwmac::take_events`] returned: service the RX
    /// ring ([`RxRing::service`]), and the TX ring ([`TxRing::service`]) only on TI or a TX
    /// fault (UNF, TJT or FBI with AIS), as stmmac's TX NAPI runs only then; wake the receive side on RI/RU or data
    /// waiting, the transmit side on TI or descriptors freed. Returns the descriptors freed.
    /// A TX token filling its slot meanwhile is not in the way (see [Tokens](self#tokens)).
    pub fn on_dma_interrupt<M: Dwmac>(&self, mac: &M, events: DmaEvents) -> usize {
        // Separate TX and RX service, as stmmac's TX and RX NAPI: only TI or a TX fault
        // cleans the TX ring; an RX interrupt does not (it would reclaim on every received
        // ACK, and the cleanup timer and `tx_frames` would set nothing).
        let tx_work = events.tx_done() || events.tx_fault() || events.fatal();
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
            if events.tx_done() || freed > 0 {
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
    fn reserve_slot<M: Dwmac>(&self, mac: &M) -> Option<TxSlot> {
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
    fn finish_slot<M: Dwmac>(&self, mac: &M, slot: TxSlot, len: Option<usize>) {
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

/// The MTU as smoltcp and embassy-net define it (see [MTU](self#mtu)).
fn mtu(rx_max_frame: usize, tx_buf: usize) -> usize {
    rx_max_frame.saturating_sub(VLAN_TAG_LEN).min(tx_buf)
}

/// The embassy-net driver; see the [module docs](self).
pub struct Driver<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    mac: &'r M,
    state: &'r NetState<T, C>,
    scratch: &'r mut [u8],
    address: [u8; 6],
}

impl<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> Driver<'r, M, T, C> {
    /// A driver over `mac` and the rings in `state`, reporting `address`. `scratch` holds a
    /// received frame for embassy-net: give it [`RxRing::max_frame`] bytes.
    pub fn new(
        mac: &'r M,
        state: &'r NetState<T, C>,
        scratch: &'r mut [u8],
        address: [u8; 6],
    ) -> Self {
        Self {
            mac,
            state,
            scratch,
            address,
        }
    }
}

/// Whether a TX token can be handed out: the link up, the ring installed, a free
/// descriptor (reclaiming first when the ring is full), no slot out and fewer than the
/// in-flight limit pending (counted when not).
fn tx_free<M: Dwmac, T: CleanupTimer, C: CacheOps>(
    mac: &M,
    rings: Option<&mut Rings<T, C>>,
) -> bool {
    let Some(r) = rings else {
        return false;
    };
    if !mac.link().up {
        return false;
    }
    if r.tx.pending() >= r.inflight_limit {
        r.stats.tx_inflight_limited = r.stats.tx_inflight_limited.wrapping_add(1);
        return false;
    }
    if r.tx.slot_reserved() {
        return false;
    }
    // A full ring may hold frames the DMA has completed whose TI has not been serviced, or
    // that no IC will ever report (`tx_usecs = 0` and fewer frames than `tx_frames` in
    // flight): reclaim them here, as `TxRing::reserve` does, rather than wait for a wake
    // that may never come (and leave `receive()`, whose reply needs a descriptor, stopped
    // with it).
    if r.tx.free() == 0 {
        r.tx.reclaim();
    }
    r.tx.free() > 0
}

/// The next complete, good frame, copied into `scratch`; its length. Frames longer than
/// `scratch` are dropped (at most one ring's worth per call).
fn take_frame<M: Dwmac, T: CleanupTimer, C: CacheOps>(
    mac: &M,
    r: &mut Rings<T, C>,
    scratch: &mut [u8],
) -> Option<usize> {
    for _ in 0..r.rx.len() {
        let mut frame = r.rx.receive(mac).ok()?;
        match frame.copy_to(scratch) {
            Ok(n) => {
                r.stats.rx_frames = r.stats.rx_frames.wrapping_add(1);
                return Some(n);
            }
            // Dropped with `frame`: its descriptors go back.
            Err(_) => r.stats.rx_too_long = r.stats.rx_too_long.wrapping_add(1),
        }
    }
    None
}

/// RX token: a received frame, already copied into the driver's scratch buffer.
pub struct RxToken<'a> {
    frame: &'a mut [u8],
}

/// TX token: a free descriptor was waiting in the TX ring when it was handed out.
pub struct TxToken<'a, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    mac: &'a M,
    state: &'a NetState<T, C>,
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

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> embassy_net_driver::Driver for Driver<'_, M, T, C> {
    type RxToken<'a>
        = RxToken<'a>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, M, T, C>
    where
        Self: 'a;

    fn receive(&mut self, cx: &mut Context) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        // Register first, then look (see No lost wake): an interrupt between the two still
        // wakes us.
        let (mac, scratch) = (self.mac, &mut *self.scratch);
        let n = self
            .state
            .hub
            .poll(Wakers::RX.and(Wakers::TX), cx.waker(), |rings| {
                let r = rings?;
                // The reply's descriptor first: without one the frame stays in the ring.
                if !tx_free(mac, Some(&mut *r)) {
                    return None;
                }
                take_frame(mac, r, scratch)
            })?;
        Some((
            RxToken {
                frame: self.scratch.get_mut(..n).unwrap_or_default(),
            },
            TxToken {
                mac: self.mac,
                state: self.state,
            },
        ))
    }

    fn transmit(&mut self, cx: &mut Context) -> Option<Self::TxToken<'_>> {
        let mac = self.mac;
        if !self
            .state
            .hub
            .poll(Wakers::TX, cx.waker(), |rings| tx_free(mac, rings))
        {
            return None;
        }
        Some(TxToken {
            mac: self.mac,
            state: self.state,
        })
    }

    fn link_state(&mut self, cx: &mut Context) -> LinkState {
        let mac = self.mac;
        if self
            .state
            .hub
            .poll(Wakers::LINK, cx.waker(), |_| mac.link().up)
        {
            LinkState::Up
        } else {
            LinkState::Down
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = self
            .state
            .with_rings(|r| mtu(r.rx.max_frame(), r.tx.buf_size()))
            .unwrap_or(0)
            .min(self.scratch.len())
            .min(DROP_BUF_LEN);
        caps.max_burst_size = None;
        // What the rings actually enabled; ICMP is always computed on TX (QEMU's npcm-gmac does not insert it), ICMPv6 and
        // IPv6 are left to the stack. Same rule as `smoltcp::checksum_caps`.
        let (tx_off, rx_off) = self
            .state
            .with_rings(|r| (r.tx.checksum_offload(), r.rx.checksum_offload()))
            .unwrap_or((false, false));
        let pick = |stack_rx: bool, stack_tx: bool| match (stack_rx, stack_tx) {
            (true, true) => embassy_net_driver::Checksum::Both,
            (true, false) => embassy_net_driver::Checksum::Rx,
            (false, true) => embassy_net_driver::Checksum::Tx,
            (false, false) => embassy_net_driver::Checksum::None,
        };
        caps.checksum.ipv4 = pick(!rx_off, !tx_off);
        caps.checksum.tcp = pick(!rx_off, !tx_off);
        caps.checksum.udp = pick(!rx_off, !tx_off);
        caps.checksum.icmpv4 = pick(!rx_off, true);
        caps.checksum.icmpv6 = embassy_net_driver::Checksum::Both;
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.address)
    }
}

/// `loom` model check of the [No lost wake](self#no-lost-wake) protocol: this module's own
/// [`Hub`] (its `poll` and `signal`), [`WakerSlot`] and lock, with loom's mutex for the
/// critical section, and a stand-in for the rings (a count of frames waiting, of free
/// descriptors, a link flag; the rings are only ever touched inside the lock, so what they
/// hold does not change the protocol). The runner is loom's `block_on` over a future that
/// polls as the driver does: a lost wake leaves it parked for ever, which loom reports as
/// a deadlock. Each check was seen to fail (deadlock) with `Hub::poll` looking before it
/// registers, and with `Hub::signal` waking before it changes the state. Run with
/// `RUSTFLAGS="--cfg loom" cargo test -p stmmac-coalesce --lib --release loom_check`.
#[cfg(all(test, loom))]
mod loom_check {
    use core::future::poll_fn;
    use core::task::Poll;

    use loom::sync::Arc;
    use loom::thread;

    use super::{Hub, Wakers};

    /// The rings' stand-in.
    #[derive(Default)]
    struct Rings {
        frames: u32,
        free: u32,
        link_up: bool,
    }

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(f);
    }

    fn hub() -> Arc<Hub<Rings>> {
        let hub = Hub::new();
        hub.install(Rings::default());
        Arc::new(hub)
    }

    /// The runner: poll as the driver does (register in `which`, then `look`) until `look`
    /// finds something, parked in between until a waker fires.
    fn run_until<R>(
        hub: &Hub<Rings>,
        which: Wakers,
        mut look: impl FnMut(&mut Rings) -> Option<R>,
    ) -> R {
        loom::future::block_on(poll_fn(|cx| {
            match hub.poll(which, cx.waker(), |s| s.and_then(&mut look)) {
                Some(r) => Poll::Ready(r),
                None => Poll::Pending,
            }
        }))
    }

    /// An interrupt path: change the stand-in with `f`, wake `which`.
    fn interrupt(
        hub: &Arc<Hub<Rings>>,
        which: Wakers,
        f: impl Fn(&mut Rings) + Send + 'static,
    ) -> thread::JoinHandle<()> {
        let hub = hub.clone();
        thread::spawn(move || {
            hub.signal(|s| {
                if let Some(s) = s {
                    f(s);
                }
                ((), which)
            })
        })
    }

    /// A frame arrives (the DMA interrupt) while the runner registers and looks, as
    /// `receive` does (RX and TX wakers): the runner gets it.
    #[test]
    fn a_frame_arriving_while_the_runner_polls_is_received() {
        model(|| {
            let hub = hub();
            let irq = interrupt(&hub, Wakers::RX, |s| s.frames += 1);
            let got = run_until(&hub, Wakers::RX.and(Wakers::TX), |s| {
                (s.frames > 0).then(|| {
                    s.frames -= 1;
                    s.frames
                })
            });
            assert_eq!(got, 0);
            irq.join().unwrap();
        });
    }

    /// The DMA interrupt and the cleanup timer each free a descriptor at once while the
    /// runner waits for two, one `transmit` at a time: a wake takes the waker, so the
    /// second path may find none registered; the runner still gets both.
    #[test]
    fn two_reclaim_paths_at_once_wake_a_runner_waiting_for_descriptors() {
        model(|| {
            let hub = hub();
            let dma = interrupt(&hub, Wakers::TX, |s| s.free += 1);
            let timer = interrupt(&hub, Wakers::TX, |s| s.free += 1);
            for _ in 0..2 {
                run_until(&hub, Wakers::TX, |s| {
                    (s.free > 0).then(|| {
                        s.free -= 1;
                    })
                });
            }
            dma.join().unwrap();
            timer.join().unwrap();
            hub.with(|s| assert_eq!(s.free, 0));
        });
    }

    /// A link change (`set_link`: the link and TX wakers) while the runner polls
    /// `link_state`: the runner sees the link come up.
    #[test]
    fn a_link_change_while_the_runner_polls_is_seen() {
        model(|| {
            let hub = hub();
            let phy = interrupt(&hub, Wakers::LINK.and(Wakers::TX), |s| s.link_up = true);
            run_until(&hub, Wakers::LINK, |s| s.link_up.then_some(()));
            phy.join().unwrap();
        });
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    //! The adapter's TX service and in-flight limit on the model (`sim::seed::Rig`): the
    //! firmware's stream (npcm750-embassy-net) needs both for the cleanup timer to pace it.
    extern crate std;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Wake, Waker};

    use embassy_net_driver::{Driver as _, TxToken as _};

    use super::{Driver, NetState};
    use crate::Dwmac as _;
    use crate::sim::seed::{HrBase, Rig};
    use crate::{
        CoalesceConfig, Coherent, DmaEvents, Duplex, FrameFilter, LinkState, MacConfig, QueueTimer,
        Speed, TimerStrategy,
    };

    type Timer = QueueTimer<'static, hwtimer_core::sim::SimClockEvent, HrBase, 4>;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    /// DMA_STATUS.RI alone.
    const RI: DmaEvents = DmaEvents::RX_COMPLETE;

    /// tx-frames 25, tx-usecs 1000 (the seed): two frames sent carry no IC.
    fn rig() -> Rig<HrBase> {
        let cfg = CoalesceConfig {
            tx_frames: 25,
            tx_usecs: 1_000,
            ..crate::sim::seed::SEED
        };
        let rig = Rig::hrtimer(cfg, TimerStrategy::ArmOnce).unwrap();
        rig.mac.init_mac(&MacConfig {
            address: MAC,
            filter: FrameFilter::default(),
        });
        rig.mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
        rig
    }

    #[test]
    fn an_rx_interrupt_does_not_clean_the_tx_ring() {
        // Before the fix every DMA interrupt ran the TX service, so the RI of each received
        // ACK reclaimed the ring and neither `tx_frames` nor the cleanup timer set the pace
        // (npcm750-embassy-net's three strategies streamed within 1 % of each other).
        let Rig { mac, tx, rx, .. } = rig();
        let state: NetState<Timer, Coherent> = NetState::new();
        state.install(tx, rx);
        let waker = Waker::from(Arc::new(Count(AtomicUsize::new(0))));
        let mut cx = Context::from_waker(&waker);
        let mut scratch = std::vec![0u8; 1518];
        let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
        for _ in 0..2 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert_eq!(state.with_tx(|t| t.pending()), Some(2));
        assert_eq!(state.on_dma_interrupt(&mac, RI), 0, "RI frees nothing");
        assert_eq!(state.with_tx(|t| t.pending()), Some(2));
        // TI does.
        assert_eq!(state.on_dma_interrupt(&mac, DmaEvents::TX_COMPLETE), 2);
        assert_eq!(state.with_tx(|t| t.pending()), Some(0));
    }

    #[test]
    fn the_inflight_limit_gates_tokens_until_a_reclaim() {
        let Rig { mac, tx, rx, .. } = rig();
        let state: NetState<Timer, Coherent> = NetState::new();
        state.install(tx, rx);
        state.set_inflight_limit(2);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let mut scratch = std::vec![0u8; 1518];
        let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
        for _ in 0..2 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert!(
            drv.transmit(&mut cx).is_none(),
            "two frames pending: no token"
        );
        assert_eq!(state.stats().tx_inflight_limited, 1);
        // The reclaim (TI here; the cleanup timer alike) wakes the transmit side and
        // tokens come again.
        assert_eq!(state.on_dma_interrupt(&mac, DmaEvents::TX_COMPLETE), 2);
        assert!(count.0.load(Ordering::SeqCst) >= 1);
        assert!(drv.transmit(&mut cx).is_some());
        // 0 lifts the limit; a new install clears it.
        state.set_inflight_limit(0);
        for _ in 0..3 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert!(drv.transmit(&mut cx).is_some());
    }
}
