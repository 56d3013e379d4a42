//! [`embassy_net_driver::Driver`] for a DWMAC and its rings (feature `embassy-net`).
//!
//! embassy-net polls the driver from its runner task and sleeps until a waker fires. The
//! wakers come from the two places that free resources:
//!
//! - **the DMA interrupt**: call [`NetState::on_dma_interrupt`] with the DMA_STATUS bits the
//!   handler acknowledged: RI/RU wake the receive side, TI/TU the transmit side. On TI also
//!   run the TX cleanup ([`NetState::clean_tx`] with the cleanup timer's queue, or
//!   [`NetState::reclaim_tx`] without one);
//! - **the TX cleanup timer**: from the [`HrTimers`] callback of the ring's
//!   [`TxTimer`](crate::TxTimer), return [`NetState::on_tx_timer`]: it reclaims
//!   ([`TxRing::on_timer`]), re-arms while frames are pending, and wakes the transmit side
//!   when descriptors were freed.
//!
//! The TX ring therefore lives in the [`NetState`] (a critical-section mutex), shared by
//! the driver's tokens and those interrupt paths; the RX ring belongs to the [`Driver`].
//! Link changes ([`NetState::set_link_up`], e.g. from a PHY poll) wake the runner too.
//!
//! # Tokens
//!
//! As for the smoltcp device (`crate::smoltcp`): a TX token is handed out only with the
//! link up and a free descriptor (so `consume` cannot fail); errored frames (RDES0.ES) are
//! dropped and counted. embassy-net's RX token wants `&mut [u8]`, and the ring lends RX
//! buffers read-only, so a received frame is copied once into a stack buffer of
//! [`BUF_SIZE`] bytes before embassy-net sees it.

use core::cell::{Cell, RefCell};
use core::task::{Context, Waker};

use critical_section::Mutex;
use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use hwtimer_core::{ClockEvent, HrTimers, Monotonic, RegisterBus, Restart};

use crate::desc::{BUF_SIZE, DmaAddr};
use crate::error::Error;
use crate::mac::Dwmac;
use crate::regs::desc::RDES0_ES;
use crate::ring::{RxRing, TxRing};

/// DMA_STATUS bits that wake the receive side: RI (6), RU (7).
pub const WAKE_RX: u32 = (1 << 6) | (1 << 7);
/// DMA_STATUS bits that wake the transmit side: TI (0), TU (2).
pub const WAKE_TX: u32 = (1 << 0) | (1 << 2);

/// Ethernet MTU as embassy-net counts it (header + 1500, no FCS).
pub const ETHERNET_MTU: usize = 1514;

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

/// What the driver shares with the interrupt handlers: the TX ring, the wakers, the link
/// state. Put it in a `static` (`NetState::new()` is `const`).
pub struct NetState<A: DmaAddr> {
    tx: Mutex<RefCell<Option<TxRing<A>>>>,
    rx_waker: WakerSlot,
    tx_waker: WakerSlot,
    link_waker: WakerSlot,
    link_up: Mutex<Cell<bool>>,
    rx_errors: Mutex<Cell<u64>>,
}

impl<A: DmaAddr> Default for NetState<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: DmaAddr> NetState<A> {
    /// Empty: no TX ring yet, link down.
    pub const fn new() -> Self {
        Self {
            tx: Mutex::new(RefCell::new(None)),
            rx_waker: WakerSlot::new(),
            tx_waker: WakerSlot::new(),
            link_waker: WakerSlot::new(),
            link_up: Mutex::new(Cell::new(false)),
            rx_errors: Mutex::new(Cell::new(0)),
        }
    }

    /// Hand the TX ring over (returns the previous one, if any).
    pub fn install_tx(&self, tx: TxRing<A>) -> Option<TxRing<A>> {
        critical_section::with(|cs| self.tx.borrow_ref_mut(cs).replace(tx))
    }

    /// Run `f` on the TX ring, inside a critical section; `None` without a ring.
    pub fn with_tx<R>(&self, f: impl FnOnce(&mut TxRing<A>) -> R) -> Option<R> {
        critical_section::with(|cs| self.tx.borrow_ref_mut(cs).as_mut().map(f))
    }

    /// From the DMA interrupt: wake the receive side for RI/RU and the transmit side for
    /// TI/TU in `status` (the bits the handler read and acknowledged).
    pub fn on_dma_interrupt(&self, status: u32) {
        if status & WAKE_RX != 0 {
            self.rx_waker.wake();
        }
        if status & WAKE_TX != 0 {
            self.tx_waker.wake();
        }
    }

    /// TX cleanup on TI without a cleanup timer: reclaim, wake the transmit side if
    /// anything was freed. Returns how many descriptors were reclaimed.
    pub fn reclaim_tx(&self) -> usize {
        let n = self.with_tx(|tx| tx.reclaim()).unwrap_or(0);
        if n > 0 {
            self.tx_waker.wake();
        }
        n
    }

    /// TX cleanup on TI with the cleanup timer's queue ([`TxRing::clean_timed`]), waking
    /// the transmit side if anything was freed.
    ///
    /// Errors: [`Error::Timer`] when the queue refused the timer; [`Error::RingSize`]
    /// without a TX ring.
    pub fn clean_tx<E: ClockEvent, M: Monotonic, const N: usize>(
        &self,
        timers: &HrTimers<E, M, N>,
    ) -> Result<usize, Error> {
        let n = self
            .with_tx(|tx| tx.clean_timed(timers))
            .ok_or(Error::RingSize)??;
        if n > 0 {
            self.tx_waker.wake();
        }
        Ok(n)
    }

    /// The cleanup timer expired (return this from the [`HrTimers::on_interrupt`] callback
    /// for the ring's timer): reclaim, re-arm while frames are pending, wake the transmit
    /// side if descriptors were freed.
    pub fn on_tx_timer(&self, now: u64) -> Restart {
        let done = self.with_tx(|tx| {
            let before = tx.stats().reclaimed;
            let r = tx.on_timer(now);
            (r, tx.stats().reclaimed - before)
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

    /// Link state (from a PHY poll or the MAC's RGMII status); a change wakes the runner.
    pub fn set_link_up(&self, up: bool) {
        let changed = critical_section::with(|cs| self.link_up.borrow(cs).replace(up) != up);
        if changed {
            self.link_waker.wake();
            self.tx_waker.wake();
        }
    }

    /// Whether the link is up.
    pub fn link_up(&self) -> bool {
        critical_section::with(|cs| self.link_up.borrow(cs).get())
    }

    /// Received frames dropped for RDES0.ES.
    pub fn rx_errors(&self) -> u64 {
        critical_section::with(|cs| self.rx_errors.borrow(cs).get())
    }

    fn tx_free(&self) -> bool {
        self.with_tx(|tx| tx.pending() < tx.len()).unwrap_or(false)
    }
}

/// How a committed frame is queued: the same as the smoltcp device's, restated so that
/// this feature does not need smoltcp.
pub trait Kick {
    /// Queue `frame` on `tx` (a descriptor is known to be free).
    ///
    /// Errors: what the ring returns.
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error>;
}

/// No cleanup timer (IC every `tx_frames`, or the caller's own cleanup).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTimer;

impl Kick for NoTimer {
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error> {
        tx.transmit(mac, frame, false).map(|_| ())
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Kick for &HrTimers<E, M, N> {
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error> {
        tx.transmit_timed(mac, self, frame).map(|_| ())
    }
}

/// The embassy-net driver; see the [module docs](self).
pub struct Driver<'r, A: DmaAddr, B: RegisterBus<Word = u32>, K: Kick> {
    mac: &'r Dwmac<B>,
    state: &'r NetState<A>,
    rx: &'r mut RxRing<A>,
    kick: K,
    address: [u8; 6],
    rx_next: usize,
    rx_len: usize,
}

impl<'r, A: DmaAddr, B: RegisterBus<Word = u32>, K: Kick> Driver<'r, A, B, K> {
    /// A driver over `mac` (started), the TX ring in `state` and `rx` (fresh: the driver
    /// follows it from descriptor 0), reporting `address` as the hardware address.
    pub fn new(
        mac: &'r Dwmac<B>,
        state: &'r NetState<A>,
        rx: &'r mut RxRing<A>,
        kick: K,
        address: [u8; 6],
    ) -> Self {
        let mut rx_len = 0;
        while rx.desc(rx_len).is_some() {
            rx_len += 1;
        }
        Self {
            mac,
            state,
            rx,
            kick,
            address,
            rx_next: 0,
            rx_len,
        }
    }

    /// Drop errored frames at the RX head; whether a good one is there.
    fn rx_ready(&mut self) -> bool {
        for _ in 0..self.rx_len {
            let Some(d) = self.rx.desc(self.rx_next) else {
                return false;
            };
            if d.dma_owned() {
                return false;
            }
            if d.word(0) & RDES0_ES == 0 {
                return true;
            }
            if self.rx.receive(self.mac, |_| ()).is_ok() {
                critical_section::with(|cs| {
                    let c = self.state.rx_errors.borrow(cs);
                    c.set(c.get() + 1);
                });
                self.rx_next = (self.rx_next + 1) % self.rx_len.max(1);
            }
        }
        false
    }
}

/// RX token: the frame at the RX head.
pub struct RxToken<'a, A: DmaAddr, B: RegisterBus<Word = u32>> {
    mac: &'a Dwmac<B>,
    rx: &'a mut RxRing<A>,
    next: &'a mut usize,
    len: usize,
}

/// TX token: a free descriptor in the shared TX ring.
pub struct TxToken<'a, A: DmaAddr, B: RegisterBus<Word = u32>, K: Kick> {
    mac: &'a Dwmac<B>,
    state: &'a NetState<A>,
    kick: &'a mut K,
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>> embassy_net_driver::RxToken for RxToken<'_, A, B> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let mut buf = [0u8; BUF_SIZE];
        let n = match self.rx.receive(self.mac, |bytes| {
            let n = bytes.len().min(BUF_SIZE);
            buf[..n].copy_from_slice(&bytes[..n]);
            n
        }) {
            Ok(frame) => {
                *self.next = (*self.next + 1) % self.len.max(1);
                frame.value
            }
            // Not reached: the driver checked the head; embassy-net drops an empty frame.
            Err(_) => 0,
        };
        f(&mut buf[..n])
    }
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>, K: Kick> embassy_net_driver::TxToken
    for TxToken<'_, A, B, K>
{
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let mut buf = [0u8; BUF_SIZE];
        let n = len.min(BUF_SIZE);
        let r = f(&mut buf[..n]);
        let kick = self.kick;
        let mac = self.mac;
        // The descriptor was free when the token was made, and only tokens queue frames.
        let _ = self.state.with_tx(|tx| kick.transmit(tx, mac, &buf[..n]));
        r
    }
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>, K: Kick> embassy_net_driver::Driver
    for Driver<'_, A, B, K>
{
    type RxToken<'a>
        = RxToken<'a, A, B>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, A, B, K>
    where
        Self: 'a;

    fn receive(&mut self, cx: &mut Context) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        // Register first, then look: an interrupt between the two still wakes us.
        self.state.rx_waker.register(cx.waker());
        self.state.tx_waker.register(cx.waker());
        if !self.rx_ready() || !self.state.link_up() || !self.state.tx_free() {
            return None;
        }
        Some((
            RxToken {
                mac: self.mac,
                rx: &mut *self.rx,
                next: &mut self.rx_next,
                len: self.rx_len,
            },
            TxToken {
                mac: self.mac,
                state: self.state,
                kick: &mut self.kick,
            },
        ))
    }

    fn transmit(&mut self, cx: &mut Context) -> Option<Self::TxToken<'_>> {
        self.state.tx_waker.register(cx.waker());
        if !self.state.link_up() || !self.state.tx_free() {
            return None;
        }
        Some(TxToken {
            mac: self.mac,
            state: self.state,
            kick: &mut self.kick,
        })
    }

    fn link_state(&mut self, cx: &mut Context) -> LinkState {
        self.state.link_waker.register(cx.waker());
        if self.state.link_up() {
            LinkState::Up
        } else {
            LinkState::Down
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = ETHERNET_MTU;
        caps.max_burst_size = Some(1);
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.address)
    }
}
