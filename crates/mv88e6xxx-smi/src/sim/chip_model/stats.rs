//! The model of the statistics unit (MIB counters).
//!
//! Behaviour, from the hardware facts of docs/mv88e6xxx.md#mib-statistics (not from the
//! driver):
//!
//! - Every port counts what [`ChipModel::mib_rx`] / [`ChipModel::mib_tx`] see: octets,
//!   unicast / broadcast / multicast by destination MAC, pause frames (EtherType 0x8808 to
//!   01:80:C2:00:00:01), undersize (< 64 bytes with FCS) and oversize (> 1522 bytes with
//!   FCS) frames, and six size buckets for received and for transmitted frames.
//! - G1_STATS_OP with BUSY runs an operation; it takes effect when its BUSY clears
//!   (`stats_op_done`): CAPTURE_PORT copies the addressed port's counters into a capture
//!   buffer of 2 × 32 counters (bank 0, bank 1), the histogram buckets combined as the
//!   histogram mode in force at that moment selects; READ_CAPTURED puts the indexed
//!   counter of the buffer into G1_STATS_COUNTER_32 (bits 31..16) and _01 (bits 15..0);
//!   FLUSH_ALL and FLUSH_PORT clear counters. Until then the counter registers keep their
//!   previous values.
//! - The port field, the histogram mode's register and the bank-1 select bit are the
//!   chip's own (the table in [`Layout::of`]): a capture word with another chip's port
//!   encoding addresses another port, or none (an empty capture).
//!
//! Model assumptions (**unverified**, docs/mv88e6xxx.md#mib-statistics): frames carry a
//! good FCS (no fragments, jabber, FCS or RX errors), full duplex (no collisions or
//! deferrals), a maximum frame of 1522 bytes; undersize and oversize frames count as bad
//! octets and in no other class; pause frames count only as pause; a histogram mode of
//! 00 counts nothing; FLUSH_PORT takes the port as CAPTURE_PORT does.
//!
//! Bank 1 and the port-register counters (docs/mv88e6xxx.md#mib-bank-1-and-port-counters):
//!
//! - On the chips with a bank-1 select bit a capture also fills bank 1: in_discards,
//!   in_filtered, in_accepted (good frames received less those filtered or discarded) and
//!   out_queue_0 (every good frame transmitted: the model has one egress queue); the AVB,
//!   TCAM, DA-unknown, management, cut-through and other queue counters read zero.
//! - On the chips whose port registers Linux reads (6085-map and 6352-class), PORT 0x10 /
//!   0x11 read the port's InDiscards (low / high half), 0x12 InFiltered and 0x13
//!   OutFiltered (16 bits, wrapping). They are not statistics-unit counters: no capture
//!   is needed, a flush leaves them, and writes to them are ignored.
//! - The frame switcher reports a frame's fate through the hooks
//!   [`ChipModel::mib_filtered`], [`ChipModel::mib_discarded`] and
//!   [`ChipModel::mib_out_filtered`] (after [`ChipModel::mib_rx`] for the received frame);
//!   tests drive them with [`ChipModel::count_filtered`], [`ChipModel::count_discarded`]
//!   and [`ChipModel::count_egress_filtered`]. Only good frames (64 to 1522 bytes with
//!   FCS) count in them.
//!
//! Model assumptions for these (**unverified**): what each counter counts (as above,
//! from the counter names); that the port-register counters survive a MIB flush and
//! ignore writes; that bank 1 exists on the 6320/6321 and 6390 class only.

use super::ChipModel;
use super::regs::g1;
use crate::chip::Chip;
use crate::sim::facts::chip_facts;

/// Frame size (with the FCS) above which a frame is oversize (model assumption).
const MAX_FRAME: usize = 1522;
/// FCS length: the frames the model sees carry none, the counters count it.
const FCS: usize = 4;

/// One direction's counters of one port.
#[derive(Debug, Clone, Copy, Default)]
struct Dir {
    octets: u64,
    bad_octets: u64,
    unicast: u32,
    broadcast: u32,
    multicast: u32,
    pause: u32,
    undersize: u32,
    oversize: u32,
    hist: [u32; 6],
    /// Good frames (the ones counted by class and size).
    good: u32,
}

/// A port's counters.
#[derive(Debug, Clone, Copy, Default)]
struct PortMib {
    rx: Dir,
    tx: Dir,
    /// Good received frames dropped by ingress filtering.
    filtered: u32,
    /// Good received frames discarded for lack of resources.
    discarded: u32,
}

/// A port's PORT 0x10–0x13 counters (not cleared by a MIB flush).
#[derive(Debug, Clone, Copy, Default)]
struct PortRegs {
    in_discards: u32,
    in_filtered: u16,
    out_filtered: u16,
}

/// How this chip's statistics unit reads G1_STATS_OP (facts from Linux's ops tables).
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// The port is `word & 0x1F` (else `((word >> 5) & 0x1F) - 1`).
    port_low: bool,
    /// The histogram mode is G1_STATS_OP \[11:10\] (else G1_CTL2 \[7:6\]).
    hist_in_op: bool,
    /// The READ_CAPTURED bit that selects bank 1, if the chip has one.
    bank1: u16,
    /// Whether PORT 0x10–0x13 are the port's discard and filter counters.
    port_regs: bool,
}

impl Layout {
    /// The statistics layout of `chip`, from the model's own table ([`chip_facts`]).
    fn of(chip: Chip) -> Self {
        let m = chip_facts(chip).mib;
        Self {
            port_low: m.port_low,
            hist_in_op: m.hist_in_op,
            bank1: m.bank1,
            port_regs: m.port_regs,
        }
    }
}

/// The statistics unit's state.
#[derive(Debug, Clone)]
pub(super) struct MibModel {
    layout: Layout,
    ports: Vec<PortMib>,
    /// Bank 0 then bank 1.
    capture: [u32; 64],
    /// The operation word in flight (its BUSY still set).
    pending: Option<u16>,
    /// Operations completed, by kind: capture, read, flush.
    ops: [u64; 3],
    /// The PORT 0x10–0x13 counters of each port.
    port_regs: Vec<PortRegs>,
}

impl MibModel {
    /// The unit of `chip` with `ports` ports, all counters zero.
    pub(super) fn new(chip: Chip, ports: usize) -> Self {
        Self {
            layout: Layout::of(chip),
            ports: vec![PortMib::default(); ports],
            capture: [0; 64],
            pending: None,
            ops: [0; 3],
            port_regs: vec![PortRegs::default(); ports],
        }
    }
}

fn low32(v: u64) -> u32 {
    (v & 0xFFFF_FFFF) as u32
}

/// Count one frame (without FCS) in `d`.
fn count(d: &mut Dir, frame: &[u8]) {
    let len = frame.len() + FCS;
    if len < 64 {
        d.undersize += 1;
        d.bad_octets += len as u64;
        return;
    }
    if len > MAX_FRAME {
        d.oversize += 1;
        d.bad_octets += len as u64;
        return;
    }
    d.octets += len as u64;
    d.good = d.good.wrapping_add(1);
    let dst = &frame[..6];
    let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    if dst == [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01] && ethertype == 0x8808 {
        d.pause += 1;
    } else if dst == [0xFF; 6] {
        d.broadcast += 1;
    } else if dst[0] & 1 != 0 {
        d.multicast += 1;
    } else {
        d.unicast += 1;
    }
    let bucket = match len {
        64 => 0,
        65..=127 => 1,
        128..=255 => 2,
        256..=511 => 3,
        512..=1023 => 4,
        _ => 5,
    };
    d.hist[bucket] += 1;
}

/// Bank 0 of a port as the hardware indexes it, the buckets as `hist` (bit 0 RX, bit 1
/// TX) selects.
fn bank0(p: &PortMib, hist: u16) -> [u32; 32] {
    let mut b = [0u32; 32];
    b[0x00] = low32(p.rx.octets);
    b[0x01] = low32(p.rx.octets >> 32);
    b[0x02] = low32(p.rx.bad_octets);
    b[0x04] = p.rx.unicast;
    b[0x06] = p.rx.broadcast;
    b[0x07] = p.rx.multicast;
    b[0x0E] = low32(p.tx.octets);
    b[0x0F] = low32(p.tx.octets >> 32);
    b[0x10] = p.tx.unicast;
    b[0x12] = p.tx.multicast;
    b[0x13] = p.tx.broadcast;
    b[0x15] = p.tx.pause;
    b[0x16] = p.rx.pause;
    b[0x18] = p.rx.undersize;
    b[0x1A] = p.rx.oversize;
    // Excessive, collisions, deferred, single, multiple, late, out FCS error, fragments,
    // jabber, RX and FCS errors: nothing in the model causes them.
    for (i, slot) in b[0x08..=0x0D].iter_mut().enumerate() {
        let rx = if hist & 1 != 0 { p.rx.hist[i] } else { 0 };
        let tx = if hist & 2 != 0 { p.tx.hist[i] } else { 0 };
        *slot = rx.wrapping_add(tx);
    }
    b
}

/// Whether the counters count `frame` (without FCS) as good (not undersize or oversize).
fn is_good(frame: &[u8]) -> bool {
    (64..=MAX_FRAME).contains(&(frame.len() + FCS))
}

/// Bank 1 of a port as the hardware indexes it (what the model feeds of it).
fn bank1(p: &PortMib) -> [u32; 32] {
    let mut b = [0u32; 32];
    b[0x00] = p.discarded;
    b[0x01] = p.filtered;
    b[0x02] =
        p.rx.good
            .saturating_sub(p.filtered)
            .saturating_sub(p.discarded);
    b[0x10] = p.tx.good;
    b
}

impl ChipModel {
    /// A frame (`frame`: the Ethernet frame without FCS) received on `port`: counted in
    /// its receive counters. A port the chip does not have counts nothing.
    pub(super) fn mib_rx(&mut self, port: usize, frame: &[u8]) {
        if let Some(p) = self.mib.ports.get_mut(port) {
            count(&mut p.rx, frame);
        }
    }

    /// A frame transmitted on `port`: counted in its transmit counters.
    pub(super) fn mib_tx(&mut self, port: usize, frame: &[u8]) {
        if let Some(p) = self.mib.ports.get_mut(port) {
            count(&mut p.tx, frame);
        }
    }

    /// Test-facing traffic without switching: at `now_ns` (operations that completed by
    /// then take effect first), `frame` (without FCS) is received on `rx_port` and
    /// transmitted on each of `tx_ports`.
    pub fn count_frame(&mut self, now_ns: u64, rx_port: usize, tx_ports: &[usize], frame: &[u8]) {
        self.settle(now_ns);
        self.mib_rx(rx_port, frame);
        for &p in tx_ports {
            self.mib_tx(p, frame);
        }
    }

    /// Statistics operations completed so far: (captures, reads, flushes).
    pub fn stats_ops(&self) -> (u64, u64, u64) {
        let o = self.mib.ops;
        (o[0], o[1], o[2])
    }

    /// An operation of this unit started with op word `word`.
    pub(super) fn stats_op_started(&mut self, _now: u64, word: u16) {
        self.mib.pending = Some(word);
    }

    /// The port a capture or flush-port word addresses, if any.
    fn stats_port(&self, word: u16) -> Option<usize> {
        let port = if self.mib.layout.port_low {
            usize::from(word & 0x1F)
        } else {
            usize::from((word >> 5) & 0x1F).checked_sub(1)?
        };
        (port < self.mib.ports.len()).then_some(port)
    }

    /// This unit's operation completed: its results become visible.
    pub(super) fn stats_op_done(&mut self, _now: u64) {
        let Some(word) = self.mib.pending.take() else {
            return;
        };
        match (word >> 12) & 0x7 {
            // FLUSH_ALL
            1 => {
                self.mib.ports.fill(PortMib::default());
                self.mib.ops[2] += 1;
            }
            // FLUSH_PORT
            2 => {
                if let Some(p) = self.stats_port(word) {
                    self.mib.ports[p] = PortMib::default();
                }
                self.mib.ops[2] += 1;
            }
            // READ_CAPTURED
            4 => {
                let bank1 = self.mib.layout.bank1 != 0 && word & self.mib.layout.bank1 != 0;
                let i = usize::from(word & 0x1F) + if bank1 { 32 } else { 0 };
                let v = self.mib.capture[i];
                self.g1[usize::from(g1::STATS_COUNTER_32)] = (v >> 16) as u16;
                self.g1[usize::from(g1::STATS_COUNTER_01)] = (v & 0xFFFF) as u16;
                self.mib.ops[1] += 1;
            }
            // CAPTURE_PORT
            5 => {
                let hist = if self.mib.layout.hist_in_op {
                    (word >> 10) & 0x3
                } else {
                    (self.g1[usize::from(g1::CTL2)] >> 6) & 0x3
                };
                self.mib.capture = [0; 64];
                if let Some(p) = self.stats_port(word) {
                    let b = bank0(&self.mib.ports[p], hist);
                    self.mib.capture[..32].copy_from_slice(&b);
                    if self.mib.layout.bank1 != 0 {
                        let b1 = bank1(&self.mib.ports[p]);
                        self.mib.capture[32..].copy_from_slice(&b1);
                    }
                }
                self.mib.ops[0] += 1;
            }
            // No-op and reserved codes.
            _ => {}
        }
    }
}

// ---- bank 1 and port-register counters: the frame switcher's hooks -----------------------

impl ChipModel {
    /// Hook for the frame switcher: the good frame `frame` received on `port` (already
    /// counted by [`mib_rx`](Self::mib_rx)) was dropped by ingress filtering (VLAN
    /// membership, port state, address table). Counts bank-1 in_filtered and PORT 0x12
    /// InFiltered. A bad frame or a port the chip lacks counts nothing.
    pub(super) fn mib_filtered(&mut self, port: usize, frame: &[u8]) {
        if !is_good(frame) {
            return;
        }
        if let Some(p) = self.mib.ports.get_mut(port) {
            p.filtered = p.filtered.wrapping_add(1);
        }
        if let Some(r) = self.mib.port_regs.get_mut(port) {
            r.in_filtered = r.in_filtered.wrapping_add(1);
        }
    }

    /// Hook for the frame switcher: the good frame `frame` received on `port` (already
    /// counted by [`mib_rx`](Self::mib_rx)) was discarded for lack of buffers or queue
    /// space. Counts bank-1 in_discards and PORT 0x10/0x11 InDiscards.
    pub(super) fn mib_discarded(&mut self, port: usize, frame: &[u8]) {
        if !is_good(frame) {
            return;
        }
        if let Some(p) = self.mib.ports.get_mut(port) {
            p.discarded = p.discarded.wrapping_add(1);
        }
        if let Some(r) = self.mib.port_regs.get_mut(port) {
            r.in_discards = r.in_discards.wrapping_add(1);
        }
    }

    /// Hook for the frame switcher: the good frame `frame` would have left on `port` but
    /// egress filtering dropped it (it is not transmitted: no [`mib_tx`](Self::mib_tx)).
    /// Counts PORT 0x13 OutFiltered.
    pub(super) fn mib_out_filtered(&mut self, port: usize, frame: &[u8]) {
        if !is_good(frame) {
            return;
        }
        if let Some(r) = self.mib.port_regs.get_mut(port) {
            r.out_filtered = r.out_filtered.wrapping_add(1);
        }
    }

    /// PORT register `reg` of port `p` if it is one of the chip's MIB port-register
    /// counters (PORT 0x10–0x13 on the chips that have them), else `None`.
    pub(super) fn mib_port_reg_read(&self, p: usize, reg: u8) -> Option<u16> {
        if !self.mib.layout.port_regs {
            return None;
        }
        let r = self.mib.port_regs.get(p)?;
        match reg {
            0x10 => Some((r.in_discards & 0xFFFF) as u16),
            0x11 => Some((r.in_discards >> 16) as u16),
            0x12 => Some(r.in_filtered),
            0x13 => Some(r.out_filtered),
            _ => None,
        }
    }

    /// Whether a write of PORT register `reg` hits a MIB port-register counter (ignored).
    pub(super) fn mib_port_reg_written(&self, reg: u8) -> bool {
        self.mib.layout.port_regs && (0x10..=0x13).contains(&reg)
    }

    /// Test-facing traffic: at `now_ns`, `frame` (without FCS) is received on `rx_port`
    /// and dropped there by ingress filtering (`mib_rx`, then
    /// `mib_filtered`).
    pub fn count_filtered(&mut self, now_ns: u64, rx_port: usize, frame: &[u8]) {
        self.settle(now_ns);
        self.mib_rx(rx_port, frame);
        self.mib_filtered(rx_port, frame);
    }

    /// Test-facing traffic: at `now_ns`, `frame` is received on `rx_port` and discarded
    /// there for lack of resources (`mib_rx`, then
    /// `mib_discarded`).
    pub fn count_discarded(&mut self, now_ns: u64, rx_port: usize, frame: &[u8]) {
        self.settle(now_ns);
        self.mib_rx(rx_port, frame);
        self.mib_discarded(rx_port, frame);
    }

    /// Test-facing traffic: at `now_ns`, `frame` is received on `rx_port`, transmitted on
    /// each of `tx_ports` and dropped by egress filtering on each of `filtered_ports`
    /// (`mib_out_filtered`).
    pub fn count_egress_filtered(
        &mut self,
        now_ns: u64,
        rx_port: usize,
        tx_ports: &[usize],
        filtered_ports: &[usize],
        frame: &[u8],
    ) {
        self.count_frame(now_ns, rx_port, tx_ports, frame);
        for &p in filtered_ports {
            self.mib_out_filtered(p, frame);
        }
    }
}
