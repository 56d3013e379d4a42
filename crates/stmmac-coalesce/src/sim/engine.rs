//! What both DMA front-ends share: the frame rules of the wire, the multicast hash, the
//! line check against the PHY, the wire time, the 802.3x PAUSE frame and the RX FIFO's flow
//! control thresholds. Each rule cites its source; none comes from the driver.

use std::vec::Vec;

use std::collections::VecDeque;

use super::walk::{RxFrame, TxInFlight, TxState, Words};
use super::{AnPhy, SentFrame, SimArena, TxFault};
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
    // `fcs` is `~crc32_le(~0, ..)`.
    let bits = bits.clamp(1, 8);
    (super::fcs(&addr).reverse_bits() >> (32 - bits)) as usize
}

/// A received frame as it reaches the MAC's RX FIFO: padded to [`MIN_FRAME`] unless it is
/// a runt, then its FCS appended (IEEE 802.3 clauses 3.2.8 and 3.2.9; the MAC stores the
/// FCS and counts it in the frame length, Linux `stmmac_rx` strips it).
pub fn on_wire(frame: &[u8], runt: bool) -> Vec<u8> {
    let mut bytes = frame.to_vec();
    if !runt && bytes.len() < MIN_FRAME {
        bytes.resize(MIN_FRAME, 0);
    }
    let fcs = super::fcs(&bytes);
    bytes.extend_from_slice(&fcs.to_le_bytes());
    bytes
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

/// One more in the counter field `mask` of `reg`; at its maximum it stays there and sets
/// `ovf` (3.x DMA_MISSED_FRAME_CTR: dwmac_dma.h `DMA_MISSED_FRAME_OVE*`; QoS
/// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT OVFCNTOVF / MISCNTOVF and DMA_CH0_MISS_FRAME_CNT
/// MFCO: RT1170 "set when the counter crosses the maximum").
pub fn count_field(reg: &mut u32, mask: u32, ovf: u32) {
    let shift = mask.trailing_zeros();
    let n = (*reg & mask) >> shift;
    if n == mask >> shift {
        *reg |= ovf;
    } else {
        *reg = (*reg & !mask) | ((n + 1) << shift);
    }
}

/// The status bits of one version's DMA status register that summarise the others.
#[derive(Debug, Clone, Copy)]
pub(super) struct Summary {
    /// NIS.
    pub(super) nis: u32,
    /// AIS.
    pub(super) ais: u32,
    /// The normal sources NIS summarises.
    pub(super) normal: u32,
    /// The abnormal sources AIS summarises.
    pub(super) abnormal: u32,
}

impl Summary {
    /// `status` with NIS the OR of the raised *and enabled* normal sources and AIS of the
    /// enabled abnormal ones (3.x: dwmac_dma.h `DMA_STATUS_NIS` / `DMA_STATUS_AIS` and
    /// RM0090 ETH_DMASR "only the sources enabled in ETH_DMAIER"; QoS: RT1170
    /// DMA_CH0_STATUS NIS / AIS field docs).
    pub(super) fn apply(&self, status: u32, enabled: u32) -> u32 {
        let mut s = status & !(self.nis | self.ais);
        if s & self.normal & enabled != 0 {
            s |= self.nis;
        }
        if s & self.abnormal & enabled != 0 {
            s |= self.ais;
        }
        s
    }
}

/// Something the lagging TX DMA writes back at a due time.
pub(super) trait Due {
    /// When it is written back.
    fn due_ns(&self) -> u64;
}

/// The oldest entry of `queue` due at or before `now_ns` (due times never decrease).
pub(super) fn pop_due<T: Due>(queue: &mut std::collections::VecDeque<T>, now_ns: u64) -> Option<T> {
    if queue.front()?.due_ns() > now_ns {
        return None;
    }
    queue.pop_front()
}

/// The thresholds and pause time of a flow control check ([`Engine::flow_check`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct FlowCfg {
    /// EFC / EHFC with TFE.
    pub(super) enabled: bool,
    /// The FIFO's (or queue's) size, bytes.
    pub(super) size: usize,
    /// "Full minus" this many bytes activates (RFA).
    pub(super) activate: usize,
    /// "Full minus" this many bytes deactivates (RFD).
    pub(super) deactivate: usize,
    /// The pause time (PT), in 512-bit-time quanta.
    pub(super) pt: u16,
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

/// The DMA engine state both front-ends share: the arena the DMA reads and writes, the
/// MDIO bus, the PHY for the line check, the frames sent, the TX lag and wire time, the RX
/// watchdog deadline, the stop lag, reset and MDIO busy times, the RX counters, the flow
/// control state. Each front-end ([`Gmac3Model`](super::Gmac3Model),
/// [`QosModel`](super::QosModel)) adds only its registers and its descriptor layout.
pub(super) struct Engine<D> {
    /// The memory the DMA walks.
    pub(super) arena: SimArena,
    /// The MDIO bus's device.
    pub(super) mdio: D,
    /// CSR clock (MDC divider input, RX watchdog unit).
    pub(super) csr_hz: u32,
    /// The PHY whose link the line check compares against.
    pub(super) phy: Option<AnPhy>,
    /// Frames sent (PAUSE frames included); with a limit, only the last ones (see
    /// [`record`](Self::record)).
    pub(super) sent: Vec<SentFrame>,
    /// How many of the last sent frames the log keeps (`None`: all).
    pub(super) sent_limit: Option<usize>,
    /// Frames sent over the model's lifetime, logged or not.
    pub(super) sent_total: u64,
    /// The TX frame being assembled (FS/FD … LS/LD).
    pub(super) partial: Vec<u8>,
    /// TX fetch latency, ns (0: the instant model).
    pub(super) tx_lag_ns: u64,
    /// Line rate for the wire time, bit/s.
    pub(super) line_bps: u64,
    /// When the wire is free again: the due time of the last descriptor fetched.
    pub(super) tx_wire_free_ns: u64,
    /// When the RX watchdog raises RI, if armed.
    pub(super) riwt_at: Option<u64>,
    /// How long a stop takes to reach the Stopped state.
    pub(super) stop_ns: u64,
    /// When the TX process reaches Stopped after ST was cleared.
    pub(super) tx_stop_at: Option<u64>,
    /// When the RX process reaches Stopped after SR was cleared.
    pub(super) rx_stop_at: Option<u64>,
    /// How long SWR stays set after a reset request.
    pub(super) swr_ns: u64,
    /// SWR reads set until then.
    pub(super) swr_until: u64,
    /// SWR never clears (fault injection).
    pub(super) swr_stuck: bool,
    /// The MDIO busy bit reads set until then.
    pub(super) mdio_busy_until: u64,
    /// The MDIO busy bit never clears (fault injection).
    pub(super) mdio_stuck: bool,
    /// MDIO frames performed.
    pub(super) mdio_frames: u64,
    /// Frames dropped (no descriptor, RX stopped, FIFO full).
    pub(super) rx_dropped: u64,
    /// Frames delivered completely.
    pub(super) rx_delivered: u64,
    /// Frames the address filter dropped.
    pub(super) rx_filtered: u64,
    /// Frames lost because the MAC configuration did not match the PHY's link.
    pub(super) line_mismatch: u64,
    /// The RX FIFO's flow control.
    pub(super) flow_state: FlowState,
    /// The time of the last access (PAUSE frames are stamped with it).
    pub(super) last_ns: u64,
    /// The TX DMA's current descriptor (bus address).
    pub(super) cur_tx: u64,
    /// The RX DMA's current descriptor (bus address).
    pub(super) cur_rx: u64,
    /// The TX process state the last walk left.
    pub(super) tx_state: TxState,
    /// The TX process stopped on a fault until ST is written again.
    pub(super) tx_halted: bool,
    /// The RX process stopped on a fault until SR is written again.
    pub(super) rx_halted: bool,
    /// The fault the next TX walk that finds a descriptor to process fails with.
    pub(super) tx_fault: Option<TxFault>,
    /// Descriptors the lagging TX DMA has fetched and not written back yet, oldest first
    /// (due times never decrease).
    pub(super) tx_inflight: VecDeque<TxInFlight>,
    /// TX walks that found an owned descriptor but a disabled TX queue (per doorbell).
    pub(super) tx_stalled: u64,
    /// Frames waiting in the RX FIFO for descriptors.
    pub(super) rx_queue: VecDeque<RxFrame>,
    /// The frame being stored into descriptors.
    pub(super) rx_cur: Option<RxFrame>,
    /// A context descriptor is owed (after the last frame's last descriptor): its
    /// timestamp.
    pub(super) ctx_pending: Option<u64>,
    /// Context descriptors written.
    pub(super) rx_contexts: u64,
    /// Frames dropped for want of a buffer size or queue room (QoS).
    pub(super) rx_overflow: u64,
    /// Descriptors owned but unusable (QoS: no BUF1V), their frames dropped.
    pub(super) rx_desc_errors: u64,
    /// Write a frame's last RX descriptor twice (QEMU's npcm-gmac).
    pub(super) split_last: bool,
    /// The final writes held back by `split_last`.
    pub(super) pending_last: Vec<(u64, Words)>,
}

impl<D> Engine<D> {
    /// An engine on `arena` with `mdio`, clocked at `csr_hz`: no lag, the default stop lag
    /// and reset time, a 1 Gbit/s line.
    pub(super) fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        Self {
            arena,
            mdio,
            csr_hz,
            phy: None,
            sent: Vec::new(),
            sent_limit: None,
            sent_total: 0,
            partial: Vec::new(),
            tx_lag_ns: 0,
            line_bps: super::DEFAULT_LINE_BPS,
            tx_wire_free_ns: 0,
            riwt_at: None,
            stop_ns: STOP_NS,
            tx_stop_at: None,
            rx_stop_at: None,
            swr_ns: super::SWR_NS,
            swr_until: 0,
            swr_stuck: false,
            mdio_busy_until: 0,
            mdio_stuck: false,
            mdio_frames: 0,
            rx_dropped: 0,
            rx_delivered: 0,
            rx_filtered: 0,
            line_mismatch: 0,
            flow_state: FlowState::default(),
            last_ns: 0,
            cur_tx: 0,
            cur_rx: 0,
            tx_state: TxState::Stopped,
            tx_halted: false,
            rx_halted: false,
            tx_fault: None,
            tx_inflight: VecDeque::new(),
            tx_stalled: 0,
            rx_queue: VecDeque::new(),
            rx_cur: None,
            ctx_pending: None,
            rx_contexts: 0,
            rx_overflow: 0,
            rx_desc_errors: 0,
            split_last: false,
            pending_last: Vec::new(),
        }
    }

    /// Drop the TX descriptors in flight (they stay DMA-owned): ST cleared, a new list
    /// base, a fault, a reset.
    pub(super) fn tx_abandon(&mut self) {
        self.tx_inflight.clear();
        self.tx_wire_free_ns = 0;
    }

    /// The DMA state a software reset clears: both processes stopped, nothing in flight or
    /// waiting, no pending stop, watchdog or flow control state.
    pub(super) fn reset_dma(&mut self) {
        self.cur_tx = 0;
        self.cur_rx = 0;
        self.tx_state = TxState::Stopped;
        self.tx_halted = false;
        self.rx_halted = false;
        self.riwt_at = None;
        self.partial.clear();
        self.rx_queue.clear();
        self.rx_cur = None;
        self.ctx_pending = None;
        self.tx_abandon();
        self.tx_stop_at = None;
        self.rx_stop_at = None;
        self.flow_state = FlowState::default();
    }

    /// Bytes waiting in the RX FIFO for descriptors: its fill.
    pub(super) fn rx_fill(&self) -> usize {
        self.rx_queue.iter().map(|f| f.bytes.len()).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |f| f.bytes.len() - f.done)
    }

    /// When the oldest TX descriptor in flight is written back, if one is.
    pub(super) fn tx_next_due(&self) -> Option<u64> {
        self.tx_inflight.front().map(|e| e.due_ns)
    }

    /// Whether a received frame passes the line check (`line_ok`) and the address filter
    /// (`accepted`); a frame stopped by either is counted where it stopped.
    pub(super) fn admit(&mut self, line_ok: bool, accepted: bool) -> bool {
        if !line_ok {
            self.line_mismatch += 1;
            return false;
        }
        if !accepted {
            self.rx_filtered += 1;
            return false;
        }
        true
    }

    /// When a fetched TX descriptor of `wire_bytes` is written back by the lagging DMA:
    /// `max(now + lag, end of the previous one) + wire time` (see
    /// [`Gmac3Model::with_tx_lag`](super::Gmac3Model::with_tx_lag)); the wire is busy until
    /// then.
    pub(super) fn tx_due(&mut self, now_ns: u64, wire_bytes: usize) -> u64 {
        let start = now_ns
            .saturating_add(self.tx_lag_ns)
            .max(self.tx_wire_free_ns);
        let due = start.saturating_add(wire_ns(wire_bytes, self.line_bps));
        self.tx_wire_free_ns = due;
        due
    }

    /// The stops due by `now_ns`: `(tx reached Stopped, rx reached Stopped)`; each is
    /// reported once.
    pub(super) fn stops_due(&mut self, now_ns: u64) -> (bool, bool) {
        let tx = self.tx_stop_at.is_some_and(|t| now_ns >= t);
        let rx = self.rx_stop_at.is_some_and(|t| now_ns >= t);
        if tx {
            self.tx_stop_at = None;
        }
        if rx {
            self.rx_stop_at = None;
        }
        (tx, rx)
    }

    /// A stop command at `now_ns` for a process that was running or suspended: it reaches
    /// Stopped one stop lag later.
    pub(super) fn stop_at(&self, now_ns: u64) -> Option<u64> {
        Some(now_ns.saturating_add(self.stop_ns))
    }

    /// Arm the RX watchdog `clocks` CSR clocks after `now_ns`, unless it is armed.
    pub(super) fn arm_riwt(&mut self, now_ns: u64, clocks: u64) {
        if self.riwt_at.is_none() {
            let ns = clocks.saturating_mul(1_000_000_000) / u64::from(self.csr_hz.max(1));
            self.riwt_at = Some(now_ns.saturating_add(ns));
        }
    }

    /// One MDIO frame time at the CSR clock divided by `divider`, ns.
    pub(super) fn mdio_frame_ns(&self, divider: u32) -> u64 {
        mdio_bus::frame_ns((self.csr_hz / divider.max(1)).max(1))
    }

    /// Whether the MDIO busy bit reads set at `now_ns`.
    pub(super) fn mdio_busy(&self, now_ns: u64) -> bool {
        self.mdio_stuck || now_ns < self.mdio_busy_until
    }

    /// Whether SWR reads set at `now_ns`.
    pub(super) fn swr_busy(&self, now_ns: u64) -> bool {
        self.swr_stuck || now_ns < self.swr_until
    }

    /// The next time something happens by time alone here: the watchdog, a TX
    /// write-back or a stop.
    pub(super) fn next_event_ns(&self) -> Option<u64> {
        [
            self.riwt_at,
            self.tx_next_due(),
            self.tx_stop_at,
            self.rx_stop_at,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// A frame leaves at `at_ns`: recorded as sent when the line carries it (`line_ok`),
    /// counted as a line mismatch otherwise.
    pub(super) fn transmit(&mut self, at_ns: u64, bytes: Vec<u8>, ic: bool, line_ok: bool) {
        if line_ok {
            self.record(SentFrame { at_ns, bytes, ic });
        } else {
            self.line_mismatch += 1;
        }
    }

    /// Log a sent frame. With a limit of `n`, the log holds at most `2n` frames: reaching
    /// that drops the oldest `n` at once (amortised O(1) a frame), and [`sent_log`]
    /// (Self::sent_log) shows the last `n`.
    pub(super) fn record(&mut self, frame: SentFrame) {
        self.sent_total += 1;
        self.sent.push(frame);
        if let Some(n) = self.sent_limit
            && self.sent.len() >= n.saturating_mul(2).max(1)
        {
            let drop = self.sent.len() - n;
            self.sent.drain(..drop);
        }
    }

    /// The frames the log shows: all of them, or the last `n` with a limit.
    pub(super) fn sent_log(&self) -> &[SentFrame] {
        let skip = match self.sent_limit {
            Some(n) => self.sent.len().saturating_sub(n),
            None => 0,
        };
        self.sent.get(skip..).unwrap_or(&[])
    }

    /// Log a doorbell with the status word the DMA finds at `desc` (its word 0 on 3.x,
    /// word 3 on QoS, at `status_at`).
    pub(super) fn note_doorbell(&self, ring: super::Ring, desc: u64, status_at: u64) {
        let des0 = self.arena.read_u32(status_at).unwrap_or(0);
        self.arena.note(super::Seen::Doorbell { ring, desc, des0 });
    }

    /// Flow control after the RX FIFO's fill changed to `fill`: a PAUSE from `src` (MAC
    /// address 0) with PT on crossing the activate threshold, a zero-quanta one on falling
    /// to the deactivate one, recorded in [`sent`](Self::sent) at the last access.
    pub(super) fn flow_check(&mut self, cfg: FlowCfg, fill: usize, src: [u8; 6]) {
        let FlowCfg {
            enabled,
            size,
            activate,
            deactivate,
            pt,
        } = cfg;
        if let Some(quanta) = self
            .flow_state
            .update(enabled, fill, size, activate, deactivate, pt)
        {
            self.record(SentFrame {
                at_ns: self.last_ns,
                bytes: pause_frame(src, quanta),
                ic: false,
            });
        }
    }
}

/// The public methods both models have, written once: builders and observations of the
/// shared [`Engine`].
macro_rules! engine_api {
    () => {
        /// A TX DMA that lags the CPU by `lag_ns` (0, the default, is the instant model:
        /// every owned descriptor is written back inside the doorbell that finds it).
        /// With a lag, a walk fetches every owned descriptor at once but writes each back
        /// at `max(fetch time + lag_ns, due time of the one before) + its wire time` at
        /// the [line rate](Self::with_line_rate) (buffer bytes, and on a frame's last
        /// descriptor the padding to 60, FCS, preamble, SFD and IFG); a 1514-byte frame
        /// takes 12.304 µs at 1 Gbit/s. Time reaching a due time ([`sync`](Self::sync),
        /// which every register access and `inject` do) writes it back, records its
        /// frame and raises the TX interrupt for IC/IOC. After each write-back the DMA
        /// looks at its current descriptor again. Stopping TX, a new list base, a fault
        /// or a reset abandon the descriptors in flight (they stay DMA-owned).
        pub fn with_tx_lag(mut self, lag_ns: u64) -> Self {
            self.core.tx_lag_ns = lag_ns;
            self
        }

        /// The line rate for the lagging DMA's wire time, bit/s (default 1 Gbit/s;
        /// ignored by the instant model; 0 counts as 1 bit/s).
        pub fn with_line_rate(mut self, bits_per_s: u64) -> Self {
            self.core.line_bps = bits_per_s;
            self
        }

        /// The TX fetch latency set by [`with_tx_lag`](Self::with_tx_lag).
        pub fn tx_lag(&self) -> u64 {
            self.core.tx_lag_ns
        }

        /// Check frames against the link `phy` negotiated: frames pass only while the
        /// MAC's TE/RE, PS/FES and DM match it.
        pub fn with_phy(mut self, phy: $crate::sim::AnPhy) -> Self {
            self.core.phy = Some(phy);
            self
        }

        /// A reset that takes `ns` of virtual time (default [`SWR_NS`](crate::sim::SWR_NS);
        /// a slow or late PHY clock on silicon keeps SWR set for tens of milliseconds).
        pub fn with_reset_time(mut self, ns: u64) -> Self {
            self.core.swr_ns = ns;
            self
        }

        /// How long a stop command (ST or SR cleared) takes to reach the Stopped state
        /// (default [`STOP_NS`](crate::sim::STOP_NS)): the process state keeps reading
        /// running or suspended and TPS / RPS are raised only then. 0 stops inside the
        /// register write.
        pub fn with_stop_lag(mut self, ns: u64) -> Self {
            self.core.stop_ns = ns;
            self
        }

        /// Frames sent so far (PAUSE frames from flow control included), oldest first;
        /// with a [log limit](Self::with_sent_log_limit) of `n`, the last `n` of them.
        pub fn sent(&self) -> &[$crate::sim::SentFrame] {
            self.core.sent_log()
        }

        /// Forget the sent frames (long runs); [`sent_total`](Self::sent_total) still
        /// counts them.
        pub fn clear_sent(&mut self) {
            self.core.sent.clear();
        }

        /// Keep only the last `n` sent frames in [`sent`](Self::sent) (default: every
        /// frame for the model's lifetime, which grows without bound on a long run). The
        /// log then holds at most `2 × n` frames; 0 keeps none. Frames already logged
        /// beyond the limit go at the next send.
        pub fn with_sent_log_limit(mut self, n: usize) -> Self {
            self.core.sent_limit = Some(n);
            self
        }

        /// Frames sent over the model's lifetime (PAUSE frames included), whether the
        /// [log](Self::sent) still holds them or not.
        pub fn sent_total(&self) -> u64 {
            self.core.sent_total
        }

        /// Frames dropped: no descriptor for them (without a FIFO to wait in), RX
        /// stopped, or no room left in the RX FIFO.
        pub fn rx_dropped(&self) -> u64 {
            self.core.rx_dropped
        }

        /// Frames delivered into RX descriptors (completely).
        pub fn rx_delivered(&self) -> u64 {
            self.core.rx_delivered
        }

        /// Frames the address filter dropped.
        pub fn rx_filtered(&self) -> u64 {
            self.core.rx_filtered
        }

        /// Frames lost because the MAC configuration did not match the PHY's link.
        pub fn line_mismatch(&self) -> u64 {
            self.core.line_mismatch
        }

        /// MDIO frames performed.
        pub fn mdio_frames(&self) -> u64 {
            self.core.mdio_frames
        }

        /// The MDIO device.
        pub fn mdio_device(&mut self) -> &mut D {
            &mut self.core.mdio
        }

        /// Keep the MDIO busy bit set forever (fault injection).
        pub fn set_mdio_stuck(&mut self, stuck: bool) {
            self.core.mdio_stuck = stuck;
        }

        /// Keep the DMA's SWR set forever (fault injection: no PHY clock).
        pub fn set_swr_stuck(&mut self, stuck: bool) {
            self.core.swr_stuck = stuck;
        }

        /// When the RX watchdog will raise RI, if armed.
        pub fn riwt_deadline(&self) -> Option<u64> {
            self.core.riwt_at
        }

        /// TX descriptors fetched and not yet written back (always 0 without a lag).
        pub fn tx_in_flight(&self) -> usize {
            self.core.tx_inflight.len()
        }

        /// When the oldest TX descriptor in flight is written back, if one is.
        pub fn tx_next_due(&self) -> Option<u64> {
            self.core.tx_next_due()
        }

        /// The next time something happens by time alone: the RX watchdog's deadline, the
        /// next TX write-back or a stop reaching Stopped.
        pub fn next_event_ns(&self) -> Option<u64> {
            self.core.next_event_ns()
        }

        /// Apply what time alone does up to `now_ns`: the RX watchdog raises RI, the
        /// lagging TX DMA writes back the descriptors due by then (see
        /// [`with_tx_lag`](Self::with_tx_lag)), stops reach Stopped. Every register access
        /// and `inject` do this first; call it before the CPU reads descriptor memory after
        /// time passed without one (a cleanup-timer interrupt, say).
        pub fn sync(&mut self, now_ns: u64) {
            $crate::sim::walk::sync(self, now_ns);
        }

        /// Raw DMA status bits as raised (without the summaries or process states), after
        /// applying time.
        pub fn raw_status(&mut self, now_ns: u64) -> u32 {
            self.sync(now_ns);
            self.status
        }

        /// The next TX walk that finds a descriptor to process fails with `fault`
        /// instead: TPS (Stop), UNF and TPS on 3.x or TPS on QoS, which reports underflow
        /// in the MTL (Underflow), or a fatal bus error and both processes stopped
        /// (BusError).
        pub fn fail_tx(&mut self, fault: $crate::sim::TxFault) {
            self.core.tx_fault = Some(fault);
        }
    };
}
pub(super) use engine_api;
