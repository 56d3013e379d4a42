//! [`Driver`]: the `embassy_net_driver::Driver` implementation over a [`NetState`].

use core::task::Context;

use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};

use super::hub::Wakers;
use super::state::{NetState, Rings};
use super::tokens::{RxToken, TxToken};
use super::{DROP_BUF_LEN, VLAN_TAG_LEN};
use crate::common::Dwmac;
use crate::dma::CacheOps;
use crate::ring::tx::CleanupTimer;

/// The MTU as smoltcp and embassy-net define it (see [MTU](super#mtu)).
fn mtu(rx_max_frame: usize, tx_buf: usize) -> usize {
    rx_max_frame.saturating_sub(VLAN_TAG_LEN).min(tx_buf)
}

/// The embassy-net driver; see the [module docs](super).
pub struct Driver<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> {
    mac: &'r M,
    state: &'r NetState<T, C>,
    scratch: &'r mut [u8],
    address: [u8; 6],
}

impl<'r, M: Dwmac, T: CleanupTimer, C: CacheOps> Driver<'r, M, T, C> {
    /// A driver over `mac` and the rings in `state`, reporting `address`. `scratch` holds a
    /// received frame for embassy-net: give it [`RxRing::max_frame`] bytes.
    ///
    /// [`RxRing::max_frame`]: crate::ring::rx::RxRing::max_frame
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
    // The common case reads the free count once; only a full ring pays for the reclaim.
    if r.tx.free() > 0 {
        return true;
    }
    r.tx.reclaim();
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
