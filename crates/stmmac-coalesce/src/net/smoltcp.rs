//! [`smoltcp::phy::Device`] over a [`TxRing`] / [`RxRing`] pair (feature `smoltcp`).
//!
//! [`Device`] borrows the MAC, both rings and a scratch buffer for as long as the caller
//! lets smoltcp poll (`iface.poll(now, &mut device, &mut sockets)`); between polls the rings
//! are reachable through [`Device::tx`] / [`Device::rx`] for the TX cleanup timer
//! ([`TxRing::on_timer`]) and the DMA interrupt ([`TxRing::service`], [`RxRing::service`]).
//! Name smoltcp's own types through [`net::smoltcp_crate`](crate::net::smoltcp_crate), the
//! smoltcp this adapter implements, so that the versions match.
//!
//! # Tokens (zero copy)
//!
//! - **TX**: `transmit()` reserves a descriptor ([`TxRing::reserve`]) and returns `None`
//!   when none is free or the link is down ([`Dwmac::set_link`]), so a token always has a
//!   descriptor behind it and `TxToken::consume` cannot fail: smoltcp writes the frame
//!   straight into the descriptor's DMA buffer, and [`TxToken::commit`](crate::TxToken::commit)
//!   hands it over (IC, the cleanup timer per the ring's strategy, poll demand). A token
//!   smoltcp drops unused costs nothing.
//! - **RX**: `receive()` hands out a token only for a complete, good frame
//!   ([`RxRing::receive`]; errored, runt, oversized and partial frames are dropped and
//!   counted by the ring). Consuming it lends smoltcp the DMA buffer itself when the frame
//!   fits one descriptor; **a frame spanning descriptors is copied once**, into the scratch
//!   buffer given to [`Device::new`] ([`RxRing::max_frame`] bytes). The descriptors go back
//!   to the DMA when smoltcp's closure returns.
//!
//! # Capabilities
//!
//! Medium Ethernet; no burst limit (the RX ring refills as frames are consumed, and smoltcp
//! would otherwise cap its TCP window to the burst); checksums in software (the driver
//! leaves TDES1.CIC at 0).
//!
//! The MTU, as smoltcp defines it, is the largest Ethernet frame without FCS: the IP MTU +
//! 14. [`RxConfig::max_frame`](crate::RxConfig::max_frame) leaves room for one 802.1Q tag
//! ([`MAX_FRAME`](crate::ring::rx::MAX_FRAME) = 1500 + 14 + 4), which smoltcp never sends, so
//! the device reports the smaller of `max_frame` − [`VLAN_TAG_LEN`] and
//! [`TxRing::buf_size`]: **1514** with the defaults, a 1500-byte IP MTU.
//!
//! # Servicing TX
//!
//! Between polls, from the DMA interrupt's [`DmaEvents`](crate::DmaEvents): service the RX
//! ring ([`RxRing::service`]) on every interrupt, and the TX ring ([`TxRing::service`])
//! **on TI or a TX fault only**, as stmmac's TX NAPI runs, never on every interrupt: a TX
//! reclaim run on each RX interrupt (every received ACK) empties the ring ahead of the
//! cleanup timer, so the timer never has work and `tx_frames` / `tx_usecs` set nothing.
//! From the cleanup timer's expiry, call [`TxRing::on_timer`].
//!
//! The cleanup timer's lower bound: it is started by the first frame without IC while it is
//! idle ([`TimerStrategy::ArmOnce`](crate::TimerStrategy::ArmOnce)) and fires **no earlier
//! than `tx_usecs` later** (rounded up to the timer's ticks, at least one tick; the queue
//! never fires early), so a frame without IC waits at least until its TI or that expiry
//! to be reclaimed, and at most `tx_usecs` plus the timer's latency while frames are
//! pending. When the ring is full, `transmit()` and `receive()` reclaim first
//! ([`TxRing::reserve`]), so a ring whose frames carry no IC never stops the interface.
//!
//! # Measuring, injecting faults
//!
//! [`Device`] counts frames only ([`DeviceStats`]). To measure the driver's share of each
//! token with a free-running counter, wrap it in [`Measured`](crate::net::Measured); to
//! drop and corrupt frames, in smoltcp's [`FaultInjector`](::smoltcp::phy::FaultInjector).
//! Both wrap any `phy::Device`, this one included. Over this device, `Measured` counts per
//! received frame the `receive()` call (the ring's scan and checks, and the reply
//! descriptor's reservation, made in the same call) and the lend (or copy) and refill of
//! its `consume`; per sent frame the `transmit()` call (the reservation) and the commit of
//! its `consume` (see [`Measured`](crate::net::Measured), "What a frame's driver share
//! holds"). [`Device::set_inflight_limit`] is a TSQ-like limit on frames below TCP (seed
//! 002's stream).
//!
//! The device on the GMAC 3.x model, its cleanup timer a slot of an `HrTimers` queue
//! (`sim::SimTimerQueue`, feature `sim`), with the two services between polls:
//!
//! ```
//! use hwtimer_core::Restart;
//! use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
//! // smoltcp through the re-export: the version the adapter implements.
//! use stmmac_coalesce::net::smoltcp_crate::phy::{Device as _, TxToken as _};
//! use stmmac_coalesce::net::smoltcp_crate::time::Instant;
//! use stmmac_coalesce::mdio_bus::{PhyAddr, sim::PhyModel};
//! use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena, SimTimerQueue};
//! use stmmac_coalesce::smoltcp::Device;
//! use stmmac_coalesce::{
//!     CoalesceConfig, Coherent, DmaConfig, Duplex, Dwmac, Gmac3, LinkState, RxConfig, RxRing,
//!     Speed, TimerStrategy, TxConfig, TxRing,
//! };
//!
//! let clock = SimClock::new();
//! let arena = SimArena::new(0x1000_0000, 256 * 1024);
//! let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap());
//! let bus = SimBus::new(&clock, Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ));
//! let mac = Gmac3::new(bus.clone());
//! mac.soft_reset(&SimCounter::new(&clock, 32, 25_000_000))?;
//! let setup = mac.configure_dma(&DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() })?;
//! mac.enable_default_interrupts();
//! let queue: SimTimerQueue = SimTimerQueue::new(&clock, 25_000_000)?;
//! let coalesce = CoalesceConfig { tx_frames: 8, tx_usecs: 1000, ..CoalesceConfig::default() };
//! let mut tx = TxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup,
//!     TxConfig { descriptors: 32, buf_size: 1536, coalesce, strategy: TimerStrategy::ArmOnce },
//!     queue.cleanup_timer()?, Coherent)?;
//! let mut rx = RxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup,
//!     RxConfig { descriptors: 16, ..RxConfig::default() }, Coherent)?;
//! tx.start(&mac);
//! rx.start(&mac);
//! mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
//!
//! let mut scratch = [0u8; 1518];
//! let mut dev = Device::new(&mac, &mut tx, &mut rx, &mut scratch);
//! assert!(dev.receive(Instant::ZERO).is_none());   // nothing arrived
//! let t = dev.transmit(Instant::ZERO).unwrap();    // a descriptor is reserved
//! t.consume(60, |b| b.fill(0xAB));                 // written in the DMA buffer, sent
//! assert_eq!(bus.model(|m| m.sent().len()), 1);
//!
//! // The DMA interrupt: RX on every one, TX on TI or a TX fault only.
//! let events = mac.take_events();
//! dev.rx().service(&mac, events);
//! if events.tx_done() || events.tx_fault() || events.fatal() {
//!     dev.tx().service(&mac, events);
//! }
//! assert_eq!(dev.tx().pending(), 1); // no IC on one frame of eight: no TI, the timer's work
//!
//! // The cleanup timer's interrupt, no earlier than tx_usecs after the send.
//! let id = dev.tx().timer().id();
//! queue.run_until(2_000_000, |slot, now| {
//!     if slot == id { dev.tx().on_timer(&mac, now) } else { Restart::No }
//! })?;
//! assert_eq!(dev.tx().pending(), 0);
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```

use crate::Dwmac;
use ::smoltcp::phy::{self, Checksum, ChecksumCapabilities, DeviceCapabilities, Medium};
use ::smoltcp::time::Instant;

use crate::CacheOps;
use crate::Error;

use crate::{CleanupTimer, TxRing, TxToken as RingTxToken};
use crate::{RxFrame, RxRing};

/// Bytes of an IEEE 802.1Q tag: [`RxConfig::max_frame`](crate::RxConfig::max_frame) counts
/// one, smoltcp's frames carry none (see [Capabilities](self#capabilities)).
pub const VLAN_TAG_LEN: usize = 4;

/// Counters of a [`Device`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DeviceStats {
    /// Frames handed to smoltcp.
    pub rx_frames: u64,
    /// Of those, frames that spanned descriptors (copied once into the scratch buffer).
    pub rx_copied: u64,
    /// Frames that did not fit the scratch buffer (smoltcp got an empty frame).
    pub rx_too_long: u64,
    /// Frames queued for transmission.
    pub tx_frames: u64,
    /// `transmit()` answered `None` because every descriptor was in flight.
    pub tx_ring_full: u64,
    /// `transmit()` answered `None` because the link was down.
    pub tx_link_down: u64,
    /// `transmit()` answered `None` because [`Device::set_inflight_limit`] frames were
    /// waiting to be reclaimed.
    pub tx_inflight_limited: u64,
    /// Frames the ring refused at commit (smoltcp asked for 0 bytes or more than a buffer;
    /// stays 0).
    pub tx_errors: u64,
}

#[derive(Debug, Default)]
struct RxCount {
    frames: u64,
    copied: u64,
    too_long: u64,
}

#[derive(Debug, Default)]
struct TxCount {
    frames: u64,
    ring_full: u64,
    link_down: u64,
    limited: u64,
    errors: u64,
}

/// smoltcp's view of a DWMAC and its rings; see the [module docs](self).
pub struct Device<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    mac: &'r M,
    tx: &'r mut TxRing<T, C>,
    rx: &'r mut RxRing<C>,
    scratch: &'r mut [u8],
    inflight_limit: usize,
    rx_count: RxCount,
    tx_count: TxCount,
}

impl<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> Device<'r, M, T, C> {
    /// A device over `mac` and its started rings. `scratch` receives frames that span
    /// descriptors: give it [`RxRing::max_frame`] bytes (a shorter one drops longer
    /// spanning frames, counted in [`DeviceStats::rx_too_long`]).
    pub fn new(
        mac: &'r M,
        tx: &'r mut TxRing<T, C>,
        rx: &'r mut RxRing<C>,
        scratch: &'r mut [u8],
    ) -> Self {
        Self {
            mac,
            tx,
            rx,
            scratch,
            inflight_limit: usize::MAX,
            rx_count: RxCount::default(),
            tx_count: TxCount::default(),
        }
    }

    /// Hand out `transmit()` tokens only while fewer than `limit` frames wait to be
    /// reclaimed by the cleanup path ([`TxRing::service`], [`TxRing::on_timer`],
    /// [`TxRing::reclaim`]; 0: no limit beyond the ring). Linux's TCP small queues do this to a socket
    /// whose frames the driver has not completed (two packets at low rates), which is how
    /// the TX cleanup path gates a TCP stream (Linux's TX
    /// coalescing timer, [`ring::coalesce`](crate::ring::coalesce)). Tokens paired with a received
    /// frame (ACKs, ARP and ICMP replies) only need a free descriptor.
    pub fn set_inflight_limit(&mut self, limit: usize) {
        self.inflight_limit = if limit == 0 { usize::MAX } else { limit };
    }

    /// The counters.
    pub fn stats(&self) -> DeviceStats {
        DeviceStats {
            rx_frames: self.rx_count.frames,
            rx_copied: self.rx_count.copied,
            rx_too_long: self.rx_count.too_long,
            tx_frames: self.tx_count.frames,
            tx_ring_full: self.tx_count.ring_full,
            tx_link_down: self.tx_count.link_down,
            tx_inflight_limited: self.tx_count.limited,
            tx_errors: self.tx_count.errors,
        }
    }

    /// The MAC.
    pub fn mac(&self) -> &'r M {
        self.mac
    }

    /// The TX ring (cleanup timer, TI service, statistics).
    pub fn tx(&mut self) -> &mut TxRing<T, C> {
        self.tx
    }

    /// The RX ring (interrupt service, statistics).
    pub fn rx(&mut self) -> &mut RxRing<C> {
        self.rx
    }
}

/// Reserve a TX descriptor, counting why not.
#[inline]
fn reserve<'a, M: Dwmac, T: CleanupTimer, C: CacheOps>(
    tx: &'a mut TxRing<T, C>,
    mac: &'a M,
    count: &mut TxCount,
    limit: usize,
) -> Option<RingTxToken<'a, M, T, C>> {
    // Frames count against the limit until the cleanup path (TI service, cleanup timer)
    // reclaims them, as an skb counts against TSQ until its TX completion frees it.
    if tx.pending() >= limit {
        count.limited = count.limited.wrapping_add(1);
        return None;
    }
    match tx.reserve(mac) {
        Ok(t) => Some(t),
        Err(Error::LinkDown) => {
            count.link_down = count.link_down.wrapping_add(1);
            None
        }
        Err(_) => {
            count.ring_full = count.ring_full.wrapping_add(1);
            None
        }
    }
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> phy::Device for Device<'_, M, T, C> {
    type RxToken<'a>
        = RxToken<'a, C>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, M, T, C>
    where
        Self: 'a;

    fn receive(&mut self, _timestamp: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let Self {
            mac,
            tx,
            rx,
            scratch,
            rx_count,
            tx_count,
            ..
        } = self;
        let mac: &M = mac;
        // The reply's descriptor first: without one the frame stays in the ring.
        let reply = reserve(&mut **tx, mac, tx_count, usize::MAX)?;
        let frame = rx.receive(mac).ok()?;
        Some((
            RxToken {
                frame,
                scratch,
                count: rx_count,
            },
            TxToken {
                token: reply,
                count: tx_count,
            },
        ))
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<Self::TxToken<'_>> {
        let Self {
            mac,
            tx,
            tx_count,
            inflight_limit,
            ..
        } = self;
        let mac: &M = mac;
        let token = reserve(&mut **tx, mac, tx_count, *inflight_limit)?;
        Some(TxToken {
            token,
            count: tx_count,
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = self
            .rx
            .max_frame()
            .saturating_sub(VLAN_TAG_LEN)
            .min(self.tx.buf_size());
        caps.max_burst_size = None;
        caps.checksum = checksum_caps(self.tx.checksum_offload(), self.rx.checksum_offload());
        caps
    }
}

/// What smoltcp must still do itself, from what the rings actually enabled: `tx_offload`
/// ([`TxRing::checksum_offload`]: CIC = 3 on every frame) spares it computing the IPv4,
/// TCP and UDP checksums, `rx_offload` ([`RxRing::checksum_offload`]: IPC read back on;
/// frames with a bad checksum are dropped and counted) spares it verifying them and ICMP's.
/// ICMP checksums are always computed by smoltcp on TX: QEMU's npcm-gmac does not insert
/// them (its helper covers IP, TCP and UDP). Nothing is claimed that was not enabled.
pub fn checksum_caps(tx_offload: bool, rx_offload: bool) -> ChecksumCapabilities {
    let pick = |stack_rx: bool, stack_tx: bool| match (stack_rx, stack_tx) {
        (true, true) => Checksum::Both,
        (true, false) => Checksum::Rx,
        (false, true) => Checksum::Tx,
        (false, false) => Checksum::None,
    };
    let mut c = ChecksumCapabilities::default();
    c.ipv4 = pick(!rx_offload, !tx_offload);
    c.tcp = pick(!rx_offload, !tx_offload);
    c.udp = pick(!rx_offload, !tx_offload);
    c.icmpv4 = pick(!rx_offload, true);
    c
}

/// An RX token: a complete frame, its descriptors still held.
pub struct RxToken<'a, C: CacheOps> {
    frame: RxFrame<'a, C>,
    scratch: &'a mut [u8],
    count: &'a mut RxCount,
}

/// A TX token: a reserved descriptor whose DMA buffer smoltcp fills.
pub struct TxToken<'a, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    token: RingTxToken<'a, M, T, C>,
    count: &'a mut TxCount,
}

impl<C: CacheOps> phy::RxToken for RxToken<'_, C> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&[u8]) -> R,
    {
        let Self {
            mut frame,
            scratch,
            count,
        } = self;
        let r = if let Some(bytes) = frame.as_slice() {
            // One buffer: lent in place.
            count.frames = count.frames.wrapping_add(1);
            f(bytes)
        } else {
            match frame.copy_to(scratch) {
                Ok(n) => {
                    count.frames = count.frames.wrapping_add(1);
                    count.copied = count.copied.wrapping_add(1);
                    f(scratch.get(..n).unwrap_or_default())
                }
                Err(_) => {
                    count.too_long = count.too_long.wrapping_add(1);
                    f(&[])
                }
            }
        };
        // The descriptors go back to the DMA here.
        drop(frame);
        r
    }
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps> phy::TxToken for TxToken<'_, M, T, C> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let Self { mut token, count } = self;
        let buf = token.buffer();
        let n = len.min(buf.len());
        let r = f(buf.get_mut(..n).unwrap_or_default());
        match token.commit(if len > n { 0 } else { n }) {
            Ok(_) => count.frames = count.frames.wrapping_add(1),
            Err(_) => count.errors = count.errors.wrapping_add(1),
        }
        r
    }
}
