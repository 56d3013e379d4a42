//! smoltcp on a switch's CPU port: a [`phy::Device`] over the MAC's device that takes the
//! DSA or EDSA tag off each received frame and puts one on each frame sent, with
//! `mv88e6xxx_smi::dsa`.
//!
//! - **Receive.** A FORWARD frame of the management VLAN reaches smoltcp as a plain
//!   Ethernet frame (tag and 802.1Q header off). A TO_CPU frame (a trap: LLDP, BPDU,
//!   IGMP) is kept apart for the firmware, with its tag ([`Trapped`]): smoltcp never sees
//!   it. Anything else (other VLANs, FROM_CPU or TO_SNIFFER, a bad tag) is dropped and
//!   counted.
//! - **Transmit.** smoltcp writes its frame after room for the tag; the tag goes in place
//!   ([`dsa::tag_in_place`]): FORWARD from the CPU port in the management VLAN, so the
//!   switch delivers it by its address and VLAN tables (and learns the firmware's address
//!   on the CPU port). [`DsaDevice::send_from_cpu`] sends a frame FROM_CPU to one port,
//!   past the tables, as Linux's `dsa_xmit_ll` does for a standalone port.
//!
//! One copy per received frame (the untagged frame goes into a buffer the device owns);
//! none on transmit.

use mv88e6xxx_smi::dsa::{self, Source, Tag, TagFormat, TagVlan};
use smoltcp::phy::{self, Device, DeviceCapabilities};
use smoltcp::time::Instant;

/// How the switch tags frames on the CPU port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuPort {
    /// DSA or EDSA (with its EtherType), as the CPU port's frame mode was set.
    pub format: TagFormat,
    /// The switch's device number (G1 CTL2; 0 for a single switch).
    pub dev: u8,
    /// The CPU port's number.
    pub port: u8,
    /// The VLAN smoltcp's interface lives in.
    pub mgmt_vid: u16,
}

/// A frame the switch trapped to the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trapped {
    /// The TO_CPU tag it came with (its source port and trap code).
    pub tag: Tag,
    /// The frame as it was on the wire of its source port.
    pub frame: Vec<u8>,
}

/// What the device did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DsaStats {
    /// Management-VLAN frames handed to smoltcp.
    pub rx_forward: u64,
    /// TO_CPU frames kept for the firmware.
    pub rx_trapped: u64,
    /// Frames dropped: another VLAN, or a tag the CPU does not take.
    pub rx_dropped: u64,
    /// Frames whose tag did not parse.
    pub rx_bad_tag: u64,
    /// smoltcp frames sent FORWARD.
    pub tx_forward: u64,
    /// Frames sent FROM_CPU.
    pub tx_from_cpu: u64,
    /// Frames lost on transmit: no descriptor, or a tag that could not be built.
    pub tx_dropped: u64,
}

/// smoltcp's view of the CPU port; see the [module docs](self).
pub struct DsaDevice<'d, D: Device> {
    inner: D,
    port: CpuPort,
    buf: &'d mut [u8],
    trapped: &'d mut Vec<Trapped>,
    stats: &'d mut DsaStats,
}

impl<'d, D: Device> DsaDevice<'d, D> {
    /// The device over `inner` (the MAC's device), untagging into `buf` (a frame's
    /// length: the MAC's largest frame), keeping trapped frames in `trapped`.
    pub fn new(
        inner: D,
        port: CpuPort,
        buf: &'d mut [u8],
        trapped: &'d mut Vec<Trapped>,
        stats: &'d mut DsaStats,
    ) -> Self {
        Self {
            inner,
            port,
            buf,
            trapped,
            stats,
        }
    }

    /// Send `frame` (plain Ethernet, without FCS) FROM_CPU to `port` only. Returns false
    /// (counted in [`DsaStats::tx_dropped`]) when no descriptor is free or the tag cannot
    /// be built.
    pub fn send_from_cpu(&mut self, now: Instant, port: u8, frame: &[u8]) -> bool {
        let tag = Tag::FromCpu {
            dev: self.port.dev,
            port,
            vlan: TagVlan::untagged(dsa::VID_STANDALONE),
        };
        let fmt = self.port.format;
        let Some(token) = self.inner.transmit(now) else {
            self.stats.tx_dropped += 1;
            return false;
        };
        let ok = phy::TxToken::consume(token, frame.len() + fmt.header_len(), |out| {
            dsa::tag_into(frame, &tag, fmt, out).is_ok()
        });
        if ok {
            self.stats.tx_from_cpu += 1;
        } else {
            self.stats.tx_dropped += 1;
        }
        ok
    }
}

/// Sort one received frame: into `buf` (returns its length) when smoltcp takes it, into
/// `trapped` when it is a trap.
fn sort(
    frame: &[u8],
    port: CpuPort,
    buf: &mut [u8],
    trapped: &mut Vec<Trapped>,
    stats: &mut DsaStats,
) -> Option<usize> {
    let parsed = match dsa::parse(frame, port.format) {
        Ok(p) => p,
        Err(_) => {
            stats.rx_bad_tag += 1;
            return None;
        }
    };
    match parsed.tag {
        Tag::ToCpu { .. } => {
            let mut wire = vec![0u8; parsed.wire_len()];
            if parsed.write_wire(&mut wire).is_err() {
                stats.rx_bad_tag += 1;
                return None;
            }
            stats.rx_trapped += 1;
            trapped.push(Trapped {
                tag: parsed.tag,
                frame: wire,
            });
            None
        }
        Tag::Forward { vlan, .. } if vlan.vid == port.mgmt_vid => {
            // The management VLAN's frames reach smoltcp without their 802.1Q header.
            let (macs, rest) = (parsed.macs, parsed.rest);
            let len = macs.len() + rest.len();
            let out = buf.get_mut(..len)?;
            out[..macs.len()].copy_from_slice(macs);
            out[macs.len()..].copy_from_slice(rest);
            stats.rx_forward += 1;
            Some(len)
        }
        _ => {
            stats.rx_dropped += 1;
            None
        }
    }
}

impl<D: Device> Device for DsaDevice<'_, D> {
    type RxToken<'a>
        = RxToken<'a>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, D>
    where
        Self: 'a;

    fn receive(&mut self, now: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let port = self.port;
        let len = loop {
            let (rx, _reply) = self.inner.receive(now)?;
            let (buf, trapped, stats) = (&mut *self.buf, &mut *self.trapped, &mut *self.stats);
            if let Some(len) = phy::RxToken::consume(rx, |f| sort(f, port, buf, trapped, stats)) {
                break len;
            }
        };
        Some((
            RxToken {
                frame: &self.buf[..len],
            },
            TxToken {
                inner: &mut self.inner,
                port,
                stats: &mut *self.stats,
                now,
            },
        ))
    }

    fn transmit(&mut self, now: Instant) -> Option<Self::TxToken<'_>> {
        Some(TxToken {
            inner: &mut self.inner,
            port: self.port,
            stats: &mut *self.stats,
            now,
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        // smoltcp's frames leave with the tag added: the MAC's largest frame less the tag.
        let mut caps = self.inner.capabilities();
        caps.max_transmission_unit = caps
            .max_transmission_unit
            .saturating_sub(self.port.format.header_len());
        caps
    }
}

/// A received, untagged frame.
pub struct RxToken<'a> {
    frame: &'a [u8],
}

impl phy::RxToken for RxToken<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(self.frame)
    }
}

/// A frame to send FORWARD in the management VLAN.
pub struct TxToken<'a, D: Device> {
    inner: &'a mut D,
    port: CpuPort,
    stats: &'a mut DsaStats,
    now: Instant,
}

impl<D: Device> phy::TxToken for TxToken<'_, D> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let Self {
            inner,
            port,
            stats,
            now,
        } = self;
        let fmt = port.format;
        let hdr = fmt.header_len();
        let tag = Tag::Forward {
            dev: port.dev,
            src: Source::Port(port.port),
            vlan: TagVlan::untagged(port.mgmt_vid),
        };
        let Some(token) = inner.transmit(now) else {
            stats.tx_dropped += 1;
            return f(&mut vec![0u8; len]);
        };
        phy::TxToken::consume(token, len + hdr, |buf| {
            let r = f(&mut buf[hdr..]);
            // smoltcp sends no 802.1Q header, so the tag takes exactly the room left.
            match dsa::tag_in_place(buf, hdr, &tag, fmt) {
                Ok(0) => stats.tx_forward += 1,
                _ => stats.tx_dropped += 1,
            }
            r
        })
    }
}
