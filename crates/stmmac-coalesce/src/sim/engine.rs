//! What both DMA front-ends share: the frame rules of the wire, the multicast hash, the
//! line check against the PHY, the wire time, the 802.3x PAUSE frame and the RX FIFO's flow
//! control thresholds. Each rule cites its source; none comes from the driver.

use std::vec::Vec;

use super::AnPhy;
use crate::{Duplex, Speed};

/// The shortest frame without FCS a sender puts on the wire: 60 bytes (IEEE 802.3 clause
/// 3.2.8: 64 bytes minimum including the 4-byte FCS); shorter ones are padded.
pub const MIN_FRAME: usize = 60;

/// How long a process takes from its stop command to the Stopped state by default, ns: the
/// DMA finishes the descriptor or burst it is on first (RT1170 DMA_CH0_TX_CONTROL ST: "the
/// Tx DMA ... stops after completing the current packet"; Linux `dwmac4_dma_stop_tx`
/// callers do not assume it at once). [`Gmac3Model::with_stop_lag`](super::Gmac3Model::with_stop_lag)
/// and [`QosModel::with_stop_lag`](super::QosModel::with_stop_lag) change it.
pub const STOP_NS: u64 = 1_000;

/// Wire time of `bytes` at `bits_per_s` (at least 1 bit/s), ns, rounded up.
pub fn wire_ns(bytes: usize, bits_per_s: u64) -> u64 {
    let ns = (bytes as u128 * 8 * 1_000_000_000).div_ceil(u128::from(bits_per_s.max(1)));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// The bytes a frame of `payload` buffer bytes occupies on the wire besides its buffers:
/// padding to 60, the FCS (4), preamble + SFD + inter-frame gap (8 + 12) (IEEE 802.3
/// clauses 3.2.8, 4.4.2).
pub fn wire_overhead(frame_len: usize) -> usize {
    MIN_FRAME.saturating_sub(frame_len) + 4 + 20
}

/// The multicast hash bin of `addr` in a table of `1 << bits` bins: the top `bits` bits of
/// the bit-reversed CRC-32 of the address (Linux `dwmac1000_set_filter` for 64 bins,
/// `dwmac4_set_filter` for 64, 128 or 256: `bitrev32(~crc32_le(~0, addr, 6)) >> (32 -
/// mcbitslog2)`).
pub fn hash_bin(addr: [u8; 6], bits: u32) -> usize {
    let mut crc: u32 = 0xFFFF_FFFF;
    for b in addr {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    let bits = bits.clamp(1, 8);
    ((!crc).reverse_bits() >> (32 - bits)) as usize
}

/// What the MAC's configuration says about the line, for [`link_ok`].
#[derive(Debug, Clone, Copy)]
pub struct MacLine {
    /// TE (TX) or RE (RX), whichever direction is checked.
    pub enabled: bool,
    /// PS: port select, 10/100 (MII) when set.
    pub ps: bool,
    /// FES: 100 Mbit/s when set (with PS).
    pub fes: bool,
    /// DM: full duplex.
    pub dm: bool,
}

/// Whether a MAC configured as `mac` can pass frames over the link `phy` negotiated
/// (always, without a PHY): PS clear for 1000, PS and FES for 100, PS without FES for 10
/// (dwmac1000.h and dwmac4.h `*_CONFIG_PS` / `*_FES`; Linux `stmmac_mac_link_up`), DM as
/// the link's duplex.
pub fn link_ok(phy: Option<&AnPhy>, now_ns: u64, mac: MacLine) -> bool {
    let Some(phy) = phy else {
        return true;
    };
    let l = phy.line(now_ns);
    let speed_ok = match l.speed {
        Speed::M1000 => !mac.ps,
        Speed::M100 => mac.ps && mac.fes,
        Speed::M10 => mac.ps && !mac.fes,
    };
    let duplex_ok = mac.dm == (l.duplex == Duplex::Full);
    l.up && mac.enabled && speed_ok && duplex_ok
}

/// The destination filter both cores apply (dwmac1000.h `GMAC_FRAME_FILTER_*`, dwmac4.h
/// `GMAC_PACKET_FILTER_*`): PR or RA pass everything; broadcast unless DBF; multicast with
/// PM, or through the hash table with HMC; unicast to MAC address 0 when its AE is set.
#[derive(Debug, Clone, Copy)]
pub struct Filter<'a> {
    /// PR or RA.
    pub pass_all: bool,
    /// DBF.
    pub no_broadcast: bool,
    /// PM.
    pub all_multicast: bool,
    /// HMC.
    pub hash_multicast: bool,
    /// The hash table, bins 0.. in register order (bin n: word n / 32, bit n % 32).
    pub hash: &'a [u32],
    /// log2 of the number of bins.
    pub hash_bits: u32,
    /// MAC address 0 and its AE.
    pub addr: [u8; 6],
    /// Address 0 enabled.
    pub addr_enabled: bool,
}

impl Filter<'_> {
    /// Whether the filter accepts `frame`.
    pub fn accepts(&self, frame: &[u8]) -> bool {
        if self.pass_all {
            return true;
        }
        let Some(&[d0, d1, d2, d3, d4, d5]) = frame.get(..6) else {
            return false;
        };
        let dst = [d0, d1, d2, d3, d4, d5];
        if dst == [0xFF; 6] {
            return !self.no_broadcast;
        }
        if d0 & 1 != 0 {
            if self.all_multicast {
                return true;
            }
            if self.hash_multicast {
                let n = hash_bin(dst, self.hash_bits);
                return self
                    .hash
                    .get(n / 32)
                    .is_some_and(|w| w & (1 << (n % 32)) != 0);
            }
            return false;
        }
        self.addr_enabled && dst == self.addr
    }
}

/// An 802.3x PAUSE frame from `src` asking for `quanta` × 512 bit times of silence (IEEE
/// 802.3 annex 31B: destination 01-80-C2-00-00-01, MAC Control EtherType 0x8808, opcode
/// 0x0001, then the pause time; padded to 60 bytes). `quanta` 0 resumes the partner.
pub fn pause_frame(src: [u8; 6], quanta: u16) -> Vec<u8> {
    let mut f = Vec::with_capacity(MIN_FRAME);
    f.extend_from_slice(&[0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]);
    f.extend_from_slice(&src);
    f.extend_from_slice(&[0x88, 0x08, 0x00, 0x01]);
    f.extend_from_slice(&quanta.to_be_bytes());
    f.resize(MIN_FRAME, 0);
    f
}

/// The RX FIFO's flow control state: PAUSE when the fill reaches `size - activate`, a
/// zero-quanta PAUSE when it falls to `size - deactivate` (Linux `dwmac4_dma_rx_chan_op_mode`
/// and `dwmac1000_dma_operation_mode_rx`: RFA/RFD are "FIFO full minus" thresholds).
#[derive(Debug, Clone, Copy, Default)]
pub struct FlowState {
    /// A PAUSE with non-zero quanta is in force.
    pub paused: bool,
}

impl FlowState {
    /// The PAUSE quanta to send now, if any: `Some(pt)` on crossing the activate threshold,
    /// `Some(0)` on falling below the deactivate one.
    pub fn update(
        &mut self,
        enabled: bool,
        fill: usize,
        size: usize,
        activate: usize,
        deactivate: usize,
        pt: u16,
    ) -> Option<u16> {
        if !enabled {
            self.paused = false;
            return None;
        }
        if !self.paused && fill >= size.saturating_sub(activate) && fill > 0 {
            self.paused = true;
            return Some(pt);
        }
        if self.paused && fill <= size.saturating_sub(deactivate) {
            self.paused = false;
            return Some(0);
        }
        None
    }
}
