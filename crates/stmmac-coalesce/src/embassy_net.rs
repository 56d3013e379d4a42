//! [`embassy_net_driver::Driver`] for a DWMAC and its rings (feature `embassy-net`).
//!
//! embassy-net polls the driver from its runner task and sleeps until a waker fires. Both
//! rings live in a [`NetState`] (a `static`, behind a critical-section mutex), shared by
//! the driver's tokens and the two interrupt paths that free resources:
//!
//! - **the DMA interrupt**: call [`NetState::on_dma_interrupt`] with
//!   [`Dwmac::take_events`]: it runs the rings' service (recovery on TPS/UNF/FBI/RPS, TX
//!   reclaim, cleanup-timer bookkeeping, RX poll demand on RU) and wakes the receive side on
//!   RI/RU or data waiting, the transmit side on TI or descriptors freed;
//! - **the TX cleanup timer**: from the [`HrTimers`](hwtimer_core::HrTimers) callback for
//!   the ring's timer, return [`NetState::on_tx_timer`]: it reclaims
//!   ([`TxRing::on_timer`]), re-arms while frames are pending, and wakes the transmit side
//!   when descriptors were freed.
//!
//! Link changes ([`NetState::set_link`], from a PHY poll) program the MAC and wake the
//! runner.
//!
//! # Tokens
//!
//! A TX token is handed out only with the link up and a free descriptor; its `consume`
//! reserves that descriptor, lets embassy-net write the frame **in the DMA buffer** and
//! commits it, inside one critical section (nothing else can take the descriptor: only the
//! driver's tokens queue frames, the interrupt paths only free them). An RX token is handed
//! out for a complete, good frame; embassy-net's RX token wants `&mut [u8]` and the ring
//! lends `&[u8]`, so the frame is **copied once** into the driver's scratch buffer
//! ([`RxRing::max_frame`] bytes), its descriptors given back, and embassy-net processes the
//! copy outside the critical section.

use core::cell::RefCell;
use core::task::{Context, Waker};

use critical_section::Mutex;
use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use hwtimer_core::{RegisterBus, Restart};

use crate::dma::CacheOps;
use crate::mac::{DmaEvents, Dwmac};
use crate::rx::RxRing;
use crate::tx::{CleanupTimer, TxRing};

/// One registered waker, behind a critical section.
struct WakerSlot(Mutex<RefCell<Option<Waker>>>);

impl WakerSlot {
    const fn new() -> Self {
        Self(Mutex::new(RefCell::new(None)))
    }

    fn register(&self, w: &Waker) {
        critical_section::with(|cs| {
            let mut slot = self.0.borrow_ref_mut(cs);
            match slot.as_ref() {
                Some(old) if old.will_wake(w) => {}
                _ => *slot = Some(w.clone()),
            }
        });
    }

    fn wake(&self) {
        if let Some(w) = critical_section::with(|cs| self.0.borrow_ref_mut(cs).take()) {
            w.wake();
        }
    }
}

/// The rings, shared by the driver and the interrupt paths.
struct Rings<T: CleanupTimer, C: CacheOps> {
    tx: TxRing<T, C>,
    rx: RxRing<C>,
}

/// What the driver shares with the interrupt handlers: both rings and the wakers. Put it
/// in a `static` (`NetState::new()` is `const`) and [`install`](Self::install) the rings.
pub struct NetState<T: CleanupTimer, C: CacheOps> {
    rings: Mutex<RefCell<Option<Rings<T, C>>>>,
    rx_waker: WakerSlot,
    tx_waker: WakerSlot,
    link_waker: WakerSlot,
}

impl<T: CleanupTimer, C: CacheOps> Default for NetState<T, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: CleanupTimer, C: CacheOps> NetState<T, C> {
    /// Empty: no rings yet.
    pub const fn new() -> Self {
        Self {
            rings: Mutex::new(RefCell::new(None)),
            rx_waker: WakerSlot::new(),
            tx_waker: WakerSlot::new(),
            link_waker: WakerSlot::new(),
        }
    }

    /// Hand the (started) rings over.
    pub fn install(&self, tx: TxRing<T, C>, rx: RxRing<C>) {
        critical_section::with(|cs| *self.rings.borrow_ref_mut(cs) = Some(Rings { tx, rx }));
    }

    /// Run `f` on the TX ring, inside a critical section; `None` before [`install`](Self::install).
    pub fn with_tx<R>(&self, f: impl FnOnce(&mut TxRing<T, C>) -> R) -> Option<R> {
        critical_section::with(|cs| self.rings.borrow_ref_mut(cs).as_mut().map(|r| f(&mut r.tx)))
    }

    /// Run `f` on the RX ring, inside a critical section.
    pub fn with_rx<R>(&self, f: impl FnOnce(&mut RxRing<C>) -> R) -> Option<R> {
        critical_section::with(|cs| self.rings.borrow_ref_mut(cs).as_mut().map(|r| f(&mut r.rx)))
    }

    fn with_rings<R>(&self, f: impl FnOnce(&mut Rings<T, C>) -> R) -> Option<R> {
        critical_section::with(|cs| self.rings.borrow_ref_mut(cs).as_mut().map(f))
    }

    /// From the DMA interrupt, with what [`Dwmac::take_events`] returned: service both rings
    /// ([`TxRing::service`], [`RxRing::service`]) and wake the receive side on RI/RU or data
    /// waiting, the transmit side on TI or descriptors freed. Returns the descriptors freed.
    pub fn on_dma_interrupt<B: RegisterBus<Word = u32>>(
        &self,
        mac: &Dwmac<B>,
        events: DmaEvents,
    ) -> usize {
        let (freed, rx_ready) = self
            .with_rings(|r| (r.tx.service(mac, events), r.rx.service(mac, events)))
            .unwrap_or((0, false));
        if events.rx_ready() || events.rx_no_buffer() || rx_ready {
            self.rx_waker.wake();
        }
        if events.tx_done() || freed > 0 {
            self.tx_waker.wake();
        }
        freed
    }

    /// The cleanup timer expired (return this from the `HrTimers::on_interrupt` callback
    /// for the TX ring's timer): reclaim, re-arm while frames are pending, wake the
    /// transmit side if descriptors were freed.
    pub fn on_tx_timer<B: RegisterBus<Word = u32>>(&self, mac: &Dwmac<B>, now: u64) -> Restart {
        let done = self.with_tx(|tx| {
            let before = tx.stats().reclaimed;
            let r = tx.on_timer(mac, now);
            (r, tx.stats().reclaimed.wrapping_sub(before))
        });
        match done {
            Some((r, freed)) => {
                if freed > 0 {
                    self.tx_waker.wake();
                }
                r
            }
            None => Restart::No,
        }
    }

    /// A new link state (from [`Phy::poll`](crate::phy::Phy::poll)): program the MAC
    /// ([`Dwmac::set_link`]) and, on a change, wake the runner.
    pub fn set_link<B: RegisterBus<Word = u32>>(&self, mac: &Dwmac<B>, link: crate::LinkState) {
        if mac.set_link(link) {
            self.link_waker.wake();
            self.tx_waker.wake();
        }
    }
}

/// The embassy-net driver; see the [module docs](self).
pub struct Driver<'r, B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> {
    mac: &'r Dwmac<B>,
    state: &'r NetState<T, C>,
    scratch: &'r mut [u8],
    address: [u8; 6],
}

impl<'r, B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> Driver<'r, B, T, C> {
    /// A driver over `mac` and the rings in `state`, reporting `address`. `scratch` holds a
    /// received frame for embassy-net: give it [`RxRing::max_frame`] bytes.
    pub fn new(
        mac: &'r Dwmac<B>,
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

    fn tx_free(&self) -> bool {
        self.mac.link().up && self.state.with_tx(|tx| tx.free() > 0).unwrap_or(false)
    }
}

/// RX token: a frame waits at the head of the RX ring.
pub struct RxToken<'a, B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> {
    mac: &'a Dwmac<B>,
    state: &'a NetState<T, C>,
    scratch: &'a mut [u8],
}

/// TX token: a free descriptor waits in the TX ring.
pub struct TxToken<'a, B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> {
    mac: &'a Dwmac<B>,
    state: &'a NetState<T, C>,
}

impl<B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> embassy_net_driver::RxToken
    for RxToken<'_, B, T, C>
{
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let mac = self.mac;
        let scratch = self.scratch;
        let n = self
            .state
            .with_rx(|rx| match rx.receive(mac) {
                Ok(mut frame) => frame.copy_to(scratch).unwrap_or(0),
                Err(_) => 0,
            })
            .unwrap_or(0);
        // `copy_to` wrote `n <= scratch.len()` bytes.
        f(scratch.get_mut(..n).unwrap_or_default())
    }
}

impl<B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> embassy_net_driver::TxToken
    for TxToken<'_, B, T, C>
{
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let mac = self.mac;
        let mut f = Some(f);
        let mut out = None;
        self.state.with_tx(|tx| {
            if let (Ok(mut t), Some(f)) = (tx.reserve(mac), f.take()) {
                let buf = t.buffer();
                let n = len.min(buf.len());
                out = Some(f(buf.get_mut(..n).unwrap_or_default()));
                let _ = t.commit(if len > n { 0 } else { n });
            }
        });
        match (out, f) {
            (Some(r), _) => r,
            // Not reached (the token was made with a free descriptor and the link up): the
            // frame is built in a throw-away buffer and not sent.
            (None, Some(f)) => {
                let mut scratch = [0u8; 1536];
                let n = len.min(scratch.len());
                f(scratch.get_mut(..n).unwrap_or_default())
            }
            (None, None) => f_taken(),
        }
    }
}

/// `f` is taken only together with a reservation, which always produces `out`.
fn f_taken<R>() -> R {
    #[allow(clippy::empty_loop)]
    loop {}
}

impl<B: RegisterBus<Word = u32>, T: CleanupTimer, C: CacheOps> embassy_net_driver::Driver
    for Driver<'_, B, T, C>
{
    type RxToken<'a>
        = RxToken<'a, B, T, C>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, B, T, C>
    where
        Self: 'a;

    fn receive(&mut self, cx: &mut Context) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        // Register first, then look: an interrupt between the two still wakes us.
        self.state.rx_waker.register(cx.waker());
        self.state.tx_waker.register(cx.waker());
        let ready = self.state.with_rx(|rx| rx.has_data()).unwrap_or(false);
        if !ready || !self.tx_free() {
            return None;
        }
        Some((
            RxToken {
                mac: self.mac,
                state: self.state,
                scratch: &mut *self.scratch,
            },
            TxToken {
                mac: self.mac,
                state: self.state,
            },
        ))
    }

    fn transmit(&mut self, cx: &mut Context) -> Option<Self::TxToken<'_>> {
        self.state.tx_waker.register(cx.waker());
        if !self.tx_free() {
            return None;
        }
        Some(TxToken {
            mac: self.mac,
            state: self.state,
        })
    }

    fn link_state(&mut self, cx: &mut Context) -> LinkState {
        self.state.link_waker.register(cx.waker());
        if self.mac.link().up {
            LinkState::Up
        } else {
            LinkState::Down
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = self
            .state
            .with_rings(|r| r.rx.max_frame().min(r.tx.buf_size()))
            .unwrap_or(0)
            .min(self.scratch.len());
        caps.max_burst_size = None;
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.address)
    }
}
