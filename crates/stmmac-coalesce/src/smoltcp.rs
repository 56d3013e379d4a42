//! [`smoltcp::phy::Device`] over a [`TxRing`] / [`RxRing`] pair (feature `smoltcp`).
//!
//! [`Device`] borrows the MAC, both rings and a scratch buffer for as long as the caller
//! lets smoltcp poll (`iface.poll(now, &mut device, &mut sockets)`); between polls the rings
//! are reachable through [`Device::tx`] / [`Device::rx`] for the TX cleanup timer
//! ([`TxRing::on_timer`]) and the DMA interrupt ([`TxRing::service`], [`RxRing::service`]).
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
//! Two knobs serve measurements: [`Device::set_inflight_limit`] (a TSQ-like limit on frames
//! below TCP, for seed 002's stream) and [`Device::with_probe`] (driver and token costs from
//! a free-running counter).
//!
//! # Cost probe
//!
//! The probe is a type parameter of [`Device`] (a [`CostProbe`]). [`Device::new`] gives
//! [`NoProbe`], whose [`CostProbe::ENABLED`] is `false`: every reading and every sum is
//! behind that constant, so a production build has no probe call, direct or indirect, and
//! no counting on the token path (the statistics that count frames stay). Any `Fn() -> u64`
//! is a probe (a `fn` item or a closure: a direct, inlinable call), as is a type of the
//! caller's own.
//!
//! With a probe, the device also measures its **empty polls**: `receive()` calls that
//! find no complete frame (the reply descriptor reserved and released, the RX ring's scan,
//! and the RX poll demand, which [`RxRing::receive`] issues there for the descriptors given
//! back since the last one) and `transmit()` calls that get no descriptor
//! ([`DeviceStats::rx_empty_units`], [`DeviceStats::tx_empty_units`]).
//!
//! ```
//! use smoltcp::phy::{Device as _, TxToken as _};
//! use smoltcp::time::Instant;
//! use stmmac_coalesce::sim::seed::Rig;
//! use stmmac_coalesce::smoltcp::Device;
//! use stmmac_coalesce::{CoalesceConfig, TimerStrategy};
//!
//! let mut rig = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce)?;
//! let mut scratch = [0u8; 1518];
//! let mut dev = Device::new(&rig.mac, &mut rig.tx, &mut rig.rx, &mut scratch);
//! assert!(dev.receive(Instant::ZERO).is_none());   // nothing arrived
//! let t = dev.transmit(Instant::ZERO).unwrap();    // a descriptor is reserved
//! t.consume(60, |b| b.fill(0xAB));                 // written in the DMA buffer, sent
//! assert_eq!(rig.bus.model(|m| m.sent().len()), 1);
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```

use crate::common::Dwmac;
use ::smoltcp::phy::{self, Checksum, ChecksumCapabilities, DeviceCapabilities, Medium};
use ::smoltcp::time::Instant;

use crate::common::Error;
use crate::dma::CacheOps;

use crate::ring::rx::{RxFrame, RxRing};
use crate::ring::tx::{CleanupTimer, TxRing};

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
    /// Probe units in the driver's TX path: reserving the descriptor and committing the
    /// frame (IC, cleanup timer, handover, poll demand), without smoltcp's work. A reply
    /// token from `receive()` adds its commit only (its reservation is in
    /// [`rx_reply_units`](Self::rx_reply_units)).
    pub tx_driver_units: u64,
    /// Probe units in the driver's RX path: finding the frame, lending or assembling it, and
    /// giving its descriptors back, without smoltcp's work.
    pub rx_driver_units: u64,
    /// Probe units of whole TX tokens: the driver plus smoltcp writing the frame.
    pub tx_token_units: u64,
    /// Probe units `receive()` spent reserving the reply descriptor of each frame it
    /// returned (the reply token is handed out with the frame, used or not). Not in
    /// `tx_*_units`, not in `rx_driver_units`.
    pub rx_reply_units: u64,
    /// Probe units of whole RX tokens: the driver plus smoltcp processing the frame.
    pub rx_token_units: u64,
    /// `receive()` calls that returned `None` (no complete frame, or no descriptor for the
    /// reply).
    pub rx_empty_polls: u64,
    /// Probe units of those calls (the RX poll demand included, see
    /// [Cost probe](self#cost-probe)).
    pub rx_empty_units: u64,
    /// `transmit()` calls that returned `None` (ring full, link down, in-flight limit).
    pub tx_empty_polls: u64,
    /// Probe units of those calls.
    pub tx_empty_units: u64,
}

#[derive(Debug, Default)]
struct RxCount {
    frames: u64,
    copied: u64,
    too_long: u64,
    units: u64,
    token_units: u64,
    reply_units: u64,
    empty: u64,
    empty_units: u64,
}

#[derive(Debug, Default)]
struct TxCount {
    frames: u64,
    ring_full: u64,
    link_down: u64,
    limited: u64,
    errors: u64,
    units: u64,
    token_units: u64,
    empty: u64,
    empty_units: u64,
}

/// A free-running counter the [`Device`] reads around its own work (see
/// [Cost probe](self#cost-probe)). It may wrap at 32 bits.
pub trait CostProbe {
    /// Whether the probe measures anything. `false` ([`NoProbe`]) removes every reading and
    /// every sum from the device's paths at compile time.
    const ENABLED: bool = true;

    /// The counter now.
    fn read(&self) -> u64;
}

/// The probe of a production build: measures nothing, and costs nothing (no call, no
/// counting; [`CostProbe::ENABLED`] is `false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoProbe;

impl CostProbe for NoProbe {
    const ENABLED: bool = false;

    #[inline(always)]
    fn read(&self) -> u64 {
        0
    }
}

impl<F: Fn() -> u64> CostProbe for F {
    #[inline]
    fn read(&self) -> u64 {
        self()
    }
}

/// `b - a` of a counter that may wrap at 32 bits.
fn span(a: u64, b: u64) -> u64 {
    b.wrapping_sub(a) & 0xFFFF_FFFF
}

/// The cost probe and what one reading of it costs.
#[derive(Debug, Clone, Copy)]
struct Probe<P> {
    probe: P,
    /// Units between two back-to-back readings (the probe's own instructions, counted once
    /// in every measured span): subtracted from each span.
    cost: u64,
}

impl<P: CostProbe> Probe<P> {
    #[inline(always)]
    fn read(&self) -> u64 {
        if P::ENABLED { self.probe.read() } else { 0 }
    }

    /// What the code between readings `a` and `b` cost, without the probe itself.
    #[inline(always)]
    fn span(&self, a: u64, b: u64) -> u64 {
        span(a, b).saturating_sub(self.cost)
    }

    /// Calibrate `probe`: the smallest of a few back-to-back spans (an interrupt may land
    /// in one of them).
    fn calibrate(probe: P) -> Self {
        let mut cost = if P::ENABLED { u64::MAX } else { 0 };
        if P::ENABLED {
            for _ in 0..4 {
                let a = probe.read();
                cost = cost.min(span(a, probe.read()));
            }
        }
        Self { probe, cost }
    }
}

/// smoltcp's view of a DWMAC and its rings; see the [module docs](self). `P` is the cost
/// probe ([`NoProbe`] unless [`Device::with_probe`] gives one).
pub struct Device<'r, M: Dwmac, T: CleanupTimer, C: CacheOps, P = NoProbe> {
    mac: &'r M,
    tx: &'r mut TxRing<T, C>,
    rx: &'r mut RxRing<C>,
    scratch: &'r mut [u8],
    inflight_limit: usize,
    probe: Probe<P>,
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
            probe: Probe {
                probe: NoProbe,
                cost: 0,
            },
            rx_count: RxCount::default(),
            tx_count: TxCount::default(),
        }
    }
}

impl<'r, M: Dwmac, T: CleanupTimer, C: CacheOps, P: CostProbe> Device<'r, M, T, C, P> {
    /// Measure the driver's share of each frame with `probe`, a free-running counter (for
    /// example the CPU's retired-instruction counter, or any `Fn() -> u64`; it may wrap at
    /// 32 bits). The probe's own cost is measured here (two readings back to back) and left
    /// out of every span. The counters so far are kept.
    pub fn with_probe<Q: CostProbe>(self, probe: Q) -> Device<'r, M, T, C, Q> {
        Device {
            mac: self.mac,
            tx: self.tx,
            rx: self.rx,
            scratch: self.scratch,
            inflight_limit: self.inflight_limit,
            probe: Probe::calibrate(probe),
            rx_count: self.rx_count,
            tx_count: self.tx_count,
        }
    }

    /// A reading of the probe (0 with [`NoProbe`]), for a caller that measures around the
    /// device with the same counter.
    #[inline(always)]
    pub fn probe_read(&self) -> u64 {
        self.probe.read()
    }

    /// What one reading of the probe costs, in its units (left out of every span; 0
    /// without a probe).
    pub fn probe_cost(&self) -> u64 {
        self.probe.cost
    }

    /// Hand out `transmit()` tokens only while fewer than `limit` frames wait to be
    /// reclaimed by the cleanup path ([`TxRing::service`], [`TxRing::on_timer`],
    /// [`TxRing::reclaim`]; 0: no limit beyond the ring). Linux's TCP small queues do this to a socket
    /// whose frames the driver has not completed (two packets at low rates), which is how
    /// the TX cleanup path gates a TCP stream in seed 002. Tokens paired with a received
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
            tx_driver_units: self.tx_count.units,
            rx_driver_units: self.rx_count.units,
            tx_token_units: self.tx_count.token_units,
            rx_token_units: self.rx_count.token_units,
            rx_reply_units: self.rx_count.reply_units,
            rx_empty_polls: self.rx_count.empty,
            rx_empty_units: self.rx_count.empty_units,
            tx_empty_polls: self.tx_count.empty,
            tx_empty_units: self.tx_count.empty_units,
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

/// Count a poll that produced no token, and (with a probe) its cost from reading `t0`.
#[inline(always)]
fn empty_poll<P: CostProbe>(polls: &mut u64, units: &mut u64, probe: &Probe<P>, t0: u64) {
    *polls = polls.wrapping_add(1);
    if P::ENABLED {
        *units = units.wrapping_add(probe.span(t0, probe.read()));
    }
}

/// Reserve a TX descriptor, counting why not.
fn reserve<'a, M: Dwmac, T: CleanupTimer, C: CacheOps>(
    tx: &'a mut TxRing<T, C>,
    mac: &'a M,
    count: &mut TxCount,
    limit: usize,
) -> Option<crate::ring::tx::TxToken<'a, M, T, C>> {
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

impl<M: Dwmac, T: CleanupTimer, C: CacheOps, P: CostProbe> phy::Device for Device<'_, M, T, C, P> {
    type RxToken<'a>
        = RxToken<'a, C, P>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, M, T, C, P>
    where
        Self: 'a;

    fn receive(&mut self, _timestamp: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let Self {
            mac,
            tx,
            rx,
            scratch,
            probe,
            rx_count,
            tx_count,
            ..
        } = self;
        let mac: &M = mac;
        let probe = &*probe;
        let t0 = probe.read();
        // The reply's descriptor first: without one the frame stays in the ring.
        let Some(reply) = reserve(&mut **tx, mac, tx_count, usize::MAX) else {
            empty_poll(&mut rx_count.empty, &mut rx_count.empty_units, probe, t0);
            return None;
        };
        let t1 = probe.read();
        let frame = match rx.receive(mac) {
            Ok(frame) => frame,
            Err(_) => {
                // The reservation goes back before the reading: part of the empty poll.
                drop(reply);
                empty_poll(&mut rx_count.empty, &mut rx_count.empty_units, probe, t0);
                return None;
            }
        };
        let t2 = probe.read();
        if P::ENABLED {
            rx_count.reply_units = rx_count.reply_units.wrapping_add(probe.span(t0, t1));
        }
        Some((
            RxToken {
                frame,
                scratch,
                count: rx_count,
                probe,
                spent: probe.span(t1, t2),
            },
            TxToken {
                token: reply,
                count: tx_count,
                probe,
                // The reservation is counted in `rx_reply_units`.
                spent: 0,
            },
        ))
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<Self::TxToken<'_>> {
        let Self {
            mac,
            tx,
            probe,
            tx_count,
            inflight_limit,
            ..
        } = self;
        let mac: &M = mac;
        let probe = &*probe;
        let t0 = probe.read();
        let Some(token) = reserve(&mut **tx, mac, tx_count, *inflight_limit) else {
            empty_poll(&mut tx_count.empty, &mut tx_count.empty_units, probe, t0);
            return None;
        };
        let spent = probe.span(t0, probe.read());
        Some(TxToken {
            token,
            count: tx_count,
            probe,
            spent,
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
pub struct RxToken<'a, C: CacheOps, P = NoProbe> {
    frame: RxFrame<'a, C>,
    scratch: &'a mut [u8],
    count: &'a mut RxCount,
    probe: &'a Probe<P>,
    spent: u64,
}

/// A TX token: a reserved descriptor whose DMA buffer smoltcp fills.
pub struct TxToken<'a, M: Dwmac, T: CleanupTimer, C: CacheOps, P = NoProbe> {
    token: crate::ring::tx::TxToken<'a, M, T, C>,
    count: &'a mut TxCount,
    probe: &'a Probe<P>,
    spent: u64,
}

impl<C: CacheOps, P: CostProbe> phy::RxToken for RxToken<'_, C, P> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&[u8]) -> R,
    {
        let Self {
            mut frame,
            scratch,
            count,
            probe,
            spent,
        } = self;
        let t0 = probe.read();
        // Readings around smoltcp's closure (the same reading twice when it gets no frame);
        // every span is worked out after the last reading, outside the measured code.
        let (mut s0, mut s1) = (t0, t0);
        let r = if let Some(bytes) = frame.as_slice() {
            // One buffer: lent in place.
            count.frames = count.frames.wrapping_add(1);
            s0 = probe.read();
            let r = f(bytes);
            s1 = probe.read();
            r
        } else {
            match frame.copy_to(scratch) {
                Ok(n) => {
                    count.frames = count.frames.wrapping_add(1);
                    count.copied = count.copied.wrapping_add(1);
                    s0 = probe.read();
                    let r = f(scratch.get(..n).unwrap_or_default());
                    s1 = probe.read();
                    r
                }
                Err(_) => {
                    count.too_long = count.too_long.wrapping_add(1);
                    f(&[])
                }
            }
        };
        // The descriptors go back to the DMA here.
        drop(frame);
        if P::ENABLED {
            let end = probe.read();
            let before = if s0 == t0 { 0 } else { probe.span(t0, s0) };
            let stack = if s1 == s0 { 0 } else { probe.span(s0, s1) };
            let driver = before.wrapping_add(probe.span(s1, end));
            count.units = count.units.wrapping_add(spent.wrapping_add(driver));
            count.token_units = count
                .token_units
                .wrapping_add(spent.wrapping_add(driver).wrapping_add(stack));
        }
        r
    }
}

impl<M: Dwmac, T: CleanupTimer, C: CacheOps, P: CostProbe> phy::TxToken
    for TxToken<'_, M, T, C, P>
{
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let Self {
            mut token,
            count,
            probe,
            spent,
        } = self;
        let t0 = probe.read();
        let buf = token.buffer();
        let n = len.min(buf.len());
        let r = f(buf.get_mut(..n).unwrap_or_default());
        let t1 = probe.read();
        match token.commit(if len > n { 0 } else { n }) {
            Ok(_) => count.frames = count.frames.wrapping_add(1),
            Err(_) => count.errors = count.errors.wrapping_add(1),
        }
        if P::ENABLED {
            let driver = probe.span(t1, probe.read());
            count.units = count.units.wrapping_add(spent.wrapping_add(driver));
            count.token_units = count
                .token_units
                .wrapping_add(spent.wrapping_add(probe.span(t0, t1)).wrapping_add(driver));
        }
        r
    }
}
