//! [`smoltcp::phy::Device`] over a [`TxRing`] / [`RxRing`] pair
//! (feature `smoltcp`).
//!
//! [`Device`] borrows the MAC and both rings for as long as the caller lets smoltcp poll
//! (`iface.poll(now, &mut device, &mut sockets)`); between polls the rings are the
//! caller's again, for the TX cleanup timer ([`TxRing::on_timer`]) and the TI interrupt
//! ([`TxRing::clean_timed`]).
//!
//! # Tokens
//!
//! - **RX**: `receive()` hands out an RX token only when the next descriptor holds a
//!   frame; consuming it lends the DMA buffer itself to smoltcp (no copy), then gives the
//!   descriptor back to the DMA. Frames with RDES0.ES set are not handed to smoltcp; they are
//!   counted in [`DeviceStats::rx_errors`].
//! - **TX**: `transmit()` returns `None` while the link is down ([`Device::set_link_up`]) or
//!   while no descriptor is free (every one in flight or waiting to be reclaimed), so a
//!   token always has a descriptor behind it: `TxToken::consume` cannot fail, and smoltcp
//!   keeps the packet queued in its socket when it gets `None`. The token's `consume`
//!   queues the frame through the [`TxKick`] the device was built with: [`NoTimer`]
//!   (IC every `tx_frames` alone, or a cleanup the caller runs on its own tick) or an
//!   [`HrTimers`] queue (the ring's cleanup timer, armed per its
//!   [`TimerStrategy`](crate::TimerStrategy)).
//!
//! # Capabilities
//!
//! Medium Ethernet, MTU 1514 (a 1500-byte IP MTU; the buffers hold [`BUF_SIZE`] bytes with
//! room for the FCS), a burst of one frame per token, checksums computed by smoltcp (the
//! driver does not program the DWMAC's checksum insertion, TDES1.CIC stays 0).
//!
//! ```
//! use smoltcp::phy::Device as _;
//! use smoltcp::time::Instant;
//! use hwtimer_core::sim::{SimBus, SimClock};
//! use mdio_bus::PhyAddr;
//! use mdio_bus::sim::PhyModel;
//! use stmmac_coalesce::sim::{DwmacModel, SimArena, SIM_CSR_HZ};
//! use stmmac_coalesce::smoltcp::{Device, NoTimer};
//! use stmmac_coalesce::{CoalesceConfig, Dwmac, RxRing, TimerStrategy, TxRing};
//!
//! let clock = SimClock::new();
//! let arena = SimArena::new(0x1000_0000, 64 * 1024);
//! let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap());
//! let mac = Dwmac::new(SimBus::new(&clock, DwmacModel::new(arena.clone(), phy, SIM_CSR_HZ)));
//! let cfg = CoalesceConfig { tx_frames: 4, tx_usecs: 0, ..CoalesceConfig::default() };
//! let mut tx = TxRing::new(arena.tx_descs(2).unwrap(), arena.buffers(2).unwrap(),
//!                          arena.clone(), cfg, TimerStrategy::ArmOnce)?;
//! let mut rx = RxRing::new(arena.rx_descs(2).unwrap(), arena.buffers(2).unwrap(),
//!                          arena.clone(), false)?;
//! mac.set_ring_bases(tx.base(), rx.base());
//! mac.start();
//! let mut dev = Device::new(&mac, &mut tx, &mut rx, NoTimer);
//! assert!(dev.receive(Instant::ZERO).is_none());   // nothing arrived
//! let t = dev.transmit(Instant::ZERO).unwrap();
//! smoltcp::phy::TxToken::consume(t, 60, |b| b.fill(0xAB));
//! assert_eq!(mac.bus().model(|m| m.sent().len()), 1);
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```

use ::smoltcp::phy::{self, ChecksumCapabilities, DeviceCapabilities, Medium};
use ::smoltcp::time::Instant;
use hwtimer_core::{ClockEvent, HrTimers, Monotonic, RegisterBus};

use crate::desc::{BUF_SIZE, DmaAddr};
use crate::error::Error;
use crate::mac::Dwmac;
use crate::regs::desc::RDES0_ES;
use crate::ring::{RxRing, TxRing};

/// Ethernet MTU as smoltcp counts it: header (14) + 1500, without the FCS.
pub const ETHERNET_MTU: usize = 1514;

/// How a committed frame is queued, and what runs the TX cleanup timer.
pub trait TxKick {
    /// Queue `frame` on `tx` (one descriptor is known to be free).
    ///
    /// Errors: what the ring returns; the device counts them in [`DeviceStats::tx_errors`].
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error>;
}

/// No cleanup timer: IC every `tx_frames`, or a cleanup the caller runs itself (a periodic
/// tick, a poll).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTimer;

impl TxKick for NoTimer {
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error> {
        tx.transmit(mac, frame, false).map(|_| ())
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> TxKick for &HrTimers<E, M, N> {
    fn transmit<A: DmaAddr, B: RegisterBus<Word = u32>>(
        &mut self,
        tx: &mut TxRing<A>,
        mac: &Dwmac<B>,
        frame: &[u8],
    ) -> Result<(), Error> {
        tx.transmit_timed(mac, self, frame).map(|_| ())
    }
}

/// Counters of a [`Device`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DeviceStats {
    /// Frames handed to smoltcp.
    pub rx_frames: u64,
    /// Frames dropped for RDES0.ES (never shown to smoltcp).
    pub rx_errors: u64,
    /// Frames queued for transmission.
    pub tx_frames: u64,
    /// `transmit()` calls answered `None` because every descriptor was busy.
    pub tx_ring_full: u64,
    /// `transmit()` calls answered `None` because the link was down.
    pub tx_link_down: u64,
    /// Frames the ring refused after a token was handed out (stays 0: a token always has a
    /// free descriptor).
    pub tx_errors: u64,
    /// TX tokens asked for more than a buffer holds (the frame is cut to the buffer; smoltcp
    /// never asks for more than the MTU, so this stays 0).
    pub tx_oversized: u64,
    /// `transmit()` calls answered `None` because [`Device::set_inflight_limit`] frames
    /// were already waiting to be reclaimed.
    pub tx_inflight_limited: u64,
    /// [`Device::with_probe`] units spent in the driver's TX path (queueing a filled frame,
    /// the [`TxKick`] included), without smoltcp's work.
    pub tx_driver_units: u64,
    /// Probe units spent in the driver's RX path (taking the frame, handing the descriptor
    /// back), without smoltcp's work on the lent buffer.
    pub rx_driver_units: u64,
    /// Probe units of whole TX token `consume` calls: smoltcp writing the frame into the
    /// buffer, plus the driver.
    pub tx_token_units: u64,
    /// Probe units of whole RX token `consume` calls: smoltcp processing the lent frame, plus
    /// the driver.
    pub rx_token_units: u64,
}

#[derive(Debug, Default)]
struct RxStats {
    frames: u64,
    errors: u64,
    units: u64,
    token_units: u64,
}

#[derive(Debug, Default)]
struct TxStatsDev {
    frames: u64,
    ring_full: u64,
    link_down: u64,
    errors: u64,
    oversized: u64,
    limited: u64,
    units: u64,
    token_units: u64,
}

/// A probe that measures nothing.
fn no_probe() -> u64 {
    0
}

/// smoltcp's view of a DWMAC and its two rings; see the [module docs](self).
pub struct Device<'r, A: DmaAddr, B: RegisterBus<Word = u32>, K: TxKick> {
    mac: &'r Dwmac<B>,
    tx: &'r mut TxRing<A>,
    rx: &'r mut RxRing<A>,
    kick: K,
    rx_next: usize,
    rx_len: usize,
    link_up: bool,
    inflight_limit: usize,
    probe: fn() -> u64,
    rx_stats: RxStats,
    tx_stats: TxStatsDev,
}

impl<'r, A: DmaAddr, B: RegisterBus<Word = u32>, K: TxKick> Device<'r, A, B, K> {
    /// A device over `mac` and its rings (programmed and started, the RX ring fresh: the
    /// device follows it from descriptor 0), link up.
    pub fn new(mac: &'r Dwmac<B>, tx: &'r mut TxRing<A>, rx: &'r mut RxRing<A>, kick: K) -> Self {
        let mut rx_len = 0;
        while rx.desc(rx_len).is_some() {
            rx_len += 1;
        }
        Self {
            mac,
            tx,
            rx,
            kick,
            rx_next: 0,
            rx_len,
            link_up: true,
            inflight_limit: usize::MAX,
            probe: no_probe,
            rx_stats: RxStats::default(),
            tx_stats: TxStatsDev::default(),
        }
    }

    /// Measure the driver's share of each frame with `probe` (a free-running counter, for
    /// example the CPU's retired-instruction counter); see [`DeviceStats::tx_driver_units`].
    /// The counter may wrap at 32 bits: differences are taken modulo 2^32.
    pub fn with_probe(mut self, probe: fn() -> u64) -> Self {
        self.probe = probe;
        self
    }

    /// Hand out TX tokens only while fewer than `limit` frames wait to be reclaimed (0 = no
    /// limit beyond the ring). This is what Linux's TCP small queues do to a socket whose
    /// frames the driver has not completed (at low rates, two packets): it makes the TX
    /// cleanup path gate a TCP stream the way seed 002 measured it.
    pub fn set_inflight_limit(&mut self, limit: usize) {
        self.inflight_limit = if limit == 0 { usize::MAX } else { limit };
    }

    /// Link state: while down, `transmit()` returns `None`.
    pub fn set_link_up(&mut self, up: bool) {
        self.link_up = up;
    }

    /// Whether the link is up.
    pub fn link_up(&self) -> bool {
        self.link_up
    }

    /// The counters.
    pub fn stats(&self) -> DeviceStats {
        DeviceStats {
            rx_frames: self.rx_stats.frames,
            rx_errors: self.rx_stats.errors,
            tx_frames: self.tx_stats.frames,
            tx_ring_full: self.tx_stats.ring_full,
            tx_link_down: self.tx_stats.link_down,
            tx_errors: self.tx_stats.errors,
            tx_oversized: self.tx_stats.oversized,
            tx_inflight_limited: self.tx_stats.limited,
            tx_driver_units: self.tx_stats.units,
            rx_driver_units: self.rx_stats.units,
            tx_token_units: self.tx_stats.token_units,
            rx_token_units: self.rx_stats.token_units,
        }
    }

    /// The MAC.
    pub fn mac(&self) -> &'r Dwmac<B> {
        self.mac
    }

    /// The TX ring (for the cleanup timer and TI between polls).
    pub fn tx(&mut self) -> &mut TxRing<A> {
        self.tx
    }

    /// The [`TxKick`].
    pub fn kick(&mut self) -> &mut K {
        &mut self.kick
    }

    /// Skip errored frames; whether a good frame is at the RX head.
    fn rx_ready(&mut self) -> bool {
        // At most one pass over the ring: every ES frame is dropped and its descriptor
        // handed back, so this cannot loop on its own.
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
                self.rx_stats.errors += 1;
                self.rx_next = (self.rx_next + 1) % self.rx_len.max(1);
            }
        }
        false
    }

    /// Whether a TX token may be handed out. The in-flight limit applies to `transmit()`
    /// only: the token paired with a received frame (an ACK, an ARP or ICMP reply) only needs
    /// a free descriptor, as Linux's TSQ never holds back replies.
    fn tx_ready(&mut self, limited: bool) -> bool {
        if !self.link_up {
            self.tx_stats.link_down += 1;
            return false;
        }
        if self.tx.pending() >= self.tx.len() {
            self.tx_stats.ring_full += 1;
            return false;
        }
        if limited && self.tx.pending() >= self.inflight_limit {
            self.tx_stats.limited += 1;
            return false;
        }
        true
    }
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>, K: TxKick> phy::Device for Device<'_, A, B, K> {
    type RxToken<'a>
        = RxToken<'a, A, B>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, A, B, K>
    where
        Self: 'a;

    fn receive(&mut self, _timestamp: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        if !self.rx_ready() || !self.tx_ready(false) {
            return None;
        }
        let rx = RxToken {
            mac: self.mac,
            rx: &mut *self.rx,
            next: &mut self.rx_next,
            len: self.rx_len,
            stats: &mut self.rx_stats,
            probe: self.probe,
        };
        let tx = TxToken {
            mac: self.mac,
            tx: &mut *self.tx,
            kick: &mut self.kick,
            stats: &mut self.tx_stats,
            probe: self.probe,
        };
        Some((rx, tx))
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<Self::TxToken<'_>> {
        if !self.tx_ready(true) {
            return None;
        }
        Some(TxToken {
            mac: self.mac,
            tx: &mut *self.tx,
            kick: &mut self.kick,
            stats: &mut self.tx_stats,
            probe: self.probe,
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = ETHERNET_MTU;
        caps.max_burst_size = Some(1);
        caps.checksum = ChecksumCapabilities::default();
        caps
    }
}

/// An RX token: the frame at the RX head, lent from its DMA buffer.
pub struct RxToken<'a, A: DmaAddr, B: RegisterBus<Word = u32>> {
    mac: &'a Dwmac<B>,
    rx: &'a mut RxRing<A>,
    next: &'a mut usize,
    len: usize,
    stats: &'a mut RxStats,
    probe: fn() -> u64,
}

/// A TX token: a free descriptor, filled by `consume`.
pub struct TxToken<'a, A: DmaAddr, B: RegisterBus<Word = u32>, K: TxKick> {
    mac: &'a Dwmac<B>,
    tx: &'a mut TxRing<A>,
    kick: &'a mut K,
    stats: &'a mut TxStatsDev,
    probe: fn() -> u64,
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>> phy::RxToken for RxToken<'_, A, B> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&[u8]) -> R,
    {
        let mut f = Some(f);
        let mut out = None;
        let probe = self.probe;
        let t0 = probe();
        let mut stack = 0u64;
        // `Device::receive` checked that a good frame is at the head; the buffer is lent to
        // `f` and the descriptor goes back to the DMA when it returns.
        if self
            .rx
            .receive(self.mac, |bytes| {
                let s0 = probe();
                out = f.take().map(|f| f(bytes));
                stack = probe().wrapping_sub(s0) & 0xFFFF_FFFF;
            })
            .is_ok()
        {
            self.stats.frames += 1;
            *self.next = (*self.next + 1) % self.len.max(1);
        }
        let total = probe().wrapping_sub(t0) & 0xFFFF_FFFF;
        self.stats.units += total.saturating_sub(stack);
        self.stats.token_units += total;
        match (out, f) {
            (Some(r), _) => r,
            // Not reached (the head was checked); smoltcp drops an empty frame.
            (None, Some(f)) => f(&[]),
            (None, None) => unreachable_consumed(),
        }
    }
}

impl<A: DmaAddr, B: RegisterBus<Word = u32>, K: TxKick> phy::TxToken for TxToken<'_, A, B, K> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let start = (self.probe)();
        let mut buf = [0u8; BUF_SIZE];
        if len > BUF_SIZE {
            self.stats.oversized += 1;
        }
        let n = len.min(BUF_SIZE);
        let r = f(&mut buf[..n]);
        let t0 = (self.probe)();
        match self.kick.transmit(self.tx, self.mac, &buf[..n]) {
            Ok(()) => self.stats.frames += 1,
            Err(_) => self.stats.errors += 1,
        }
        let end = (self.probe)();
        self.stats.units += end.wrapping_sub(t0) & 0xFFFF_FFFF;
        self.stats.token_units += end.wrapping_sub(start) & 0xFFFF_FFFF;
        r
    }
}

/// `f` is taken exactly once above: either inside the closure or in the fallback arm.
fn unreachable_consumed<R>() -> R {
    // No panics in library code: this arm cannot be reached, and a loop is its only
    // total value of every type.
    #[allow(clippy::empty_loop)]
    loop {}
}
