//! The DMA engine's descriptor walking, written once for both models: the TX walk over
//! DMA-owned descriptors (with the lagging write-back) and RX delivery into them (frames
//! spilling across descriptors, the watchdog, context descriptors). What differs between
//! the versions is asked of two traits:
//!
//! - [`DescFormat`]: a version's descriptor layout, as the DMA decodes it: where OWN is,
//!   first/last, the buffer addresses and lengths, the next descriptor (ring stride and
//!   end-of-ring or chaining on GMAC 3.x; ring length and tail pointer on QoS), and the
//!   words of a write-back.
//! - [`Front`]: a register front-end: its engine, its descriptor format under the current
//!   register values, the status bits it raises for each [`Ev`], and its gates (process
//!   running, TX queue enabled, RX FIFO present, watchdog period).
//!
//! Assumptions where the sources say nothing (both versions): a faulted TX process keeps
//! its descriptors owned; a ring of owned descriptors is walked once per doorbell, and a
//! corrupted list that loops through owned descriptors stops after 65,536 of them.

use std::vec::Vec;

use super::SimArena;
use super::TxFault;
use super::csum::insert_checksums;
use super::engine::{self, Engine};

/// What a walk raises; each front-end maps it to its own status bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ev {
    /// A frame whose last descriptor asked for an interrupt was sent (3.x TI, QoS TI).
    TxDone,
    /// The TX DMA found a descriptor it does not own and suspended (3.x TU, QoS TBU).
    TxUnavailable,
    /// The TX process stopped (3.x TPS, QoS TPS).
    TxStopped,
    /// TX underflow (3.x UNF; the QoS reports it in the MTL, not in the channel status).
    TxUnderflow,
    /// A fatal bus error (3.x FBI, QoS FBE).
    BusError,
    /// A frame was received with an interrupt asked for, or the watchdog expired (RI).
    RxDone,
    /// The RX DMA found no descriptor (3.x RU, QoS RBU).
    RxUnavailable,
    /// The RX process stopped (RPS).
    RxStopped,
    /// A frame was lost for want of a descriptor (3.x DMA_MISSED_FRAME_CTR's MFC).
    RxMissed,
}

/// The TX process state a walk leaves (3.x DMA_STATUS.TS reads it; dwmac_dma.h
/// `DMA_STATUS_TS_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TxState {
    /// Stopped (reset, a fault, a completed stop).
    Stopped,
    /// Suspended: descriptor unavailable.
    Suspended,
    /// Running, waiting for the write-back of descriptors in flight.
    WaitingStatus,
    /// Running, reading data without progress (a stalled link).
    Reading,
}

/// A TX descriptor as the DMA decodes it.
pub(super) struct TxDesc {
    /// A context descriptor (QoS CTXT): only OWN is cleared.
    pub(super) context: bool,
    /// First descriptor of a frame (3.x FS, QoS FD).
    pub(super) first: bool,
    /// Last descriptor of a frame (3.x LS, QoS LD).
    pub(super) last: bool,
    /// Interrupt on completion of the frame (3.x IC, QoS IOC on LD).
    pub(super) ic: bool,
    /// The buffers the DMA reads, in order: (bus address, length).
    pub(super) bufs: [Option<(u64, usize)>; 2],
    /// The checksum insertion control the engine applies to the frame (0 without an
    /// engine or without insertion).
    pub(super) cic: u32,
    /// The next descriptor's bus address.
    pub(super) next: u64,
}

/// How the RX DMA can use an owned descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RxUse {
    /// Store up to `size` bytes in its buffer.
    Store,
    /// A descriptor error: it is closed with an error and the frame is lost.
    DescError,
    /// No buffer size is configured: the frame is dropped as an overflow.
    NoSize,
}

/// An RX descriptor as the DMA decodes it.
pub(super) struct RxDesc {
    /// The buffer's bus address.
    pub(super) buf: u64,
    /// The bytes the DMA stores in it.
    pub(super) size: usize,
    /// Whether it can be used.
    pub(super) usable: RxUse,
    /// Interrupt on completion (3.x: DIC clear; QoS: IOC).
    pub(super) ioc: bool,
    /// The next descriptor's bus address.
    pub(super) next: u64,
}

/// An RX write-back to encode.
pub(super) enum RxWb<'a> {
    /// A descriptor the frame continues past.
    Part {
        /// It holds the frame's start.
        first: bool,
    },
    /// The last descriptor given back without its last mark, with the length so far
    /// (QEMU's npcm-gmac writes a frame's last descriptor twice).
    Released {
        /// It holds the frame's start.
        first: bool,
        /// Frame length (with FCS).
        len: usize,
    },
    /// The frame's last descriptor.
    Last {
        /// It holds the frame's start.
        first: bool,
        /// The whole frame, FCS included.
        frame: &'a [u8],
        /// Error bits of the format to report (from the wire).
        errors: u32,
        /// A buffer could not be written.
        buffer_error: bool,
    },
    /// A descriptor that could not be used (no buffer): the frame is lost.
    DescError {
        /// It would have held the frame's start.
        first: bool,
    },
    /// A context descriptor with a timestamp.
    Context {
        /// The timestamp, ns.
        ts: u64,
    },
}

/// Descriptor words to write: `n` words from word `from`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Words {
    /// The first word's index in the descriptor.
    pub(super) from: u64,
    /// The words.
    pub(super) w: [u32; 4],
    /// How many.
    pub(super) n: usize,
}

impl Words {
    /// One word at index `from`.
    pub(super) fn one(from: u64, w: u32) -> Self {
        Self {
            from,
            w: [w, 0, 0, 0],
            n: 1,
        }
    }

    /// All four words.
    pub(super) fn all(w: [u32; 4]) -> Self {
        Self { from: 0, w, n: 4 }
    }

    /// Write them into the descriptor at `d`; `false` when out of the arena.
    fn write(&self, arena: &SimArena, d: u64) -> bool {
        let mut b = [0u8; 16];
        for (i, v) in self.w.iter().take(self.n).enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        arena.write_bytes(d + 4 * self.from, &b[..4 * self.n])
    }
}

/// A version's descriptor layout under the current register values (ring base, stride,
/// tail pointer, offload switches), as its DMA decodes and writes it back.
pub(super) trait DescFormat {
    /// Byte offset of the word holding OWN (bit 31).
    const STATUS_AT: u64;
    /// Whether a buffer the DMA cannot reach is a fatal bus error (QoS) rather than an
    /// error reported in the descriptor (3.x ES).
    const BUFFER_FAULT_FATAL: bool;

    /// The TX tail pointer: the DMA never processes the descriptor there.
    fn tx_tail(&self) -> Option<u64>;
    /// The RX tail pointer: the DMA never writes the descriptor there.
    fn rx_tail(&self) -> Option<u64>;
    /// Decode the owned TX descriptor at `d` whose status word is `status`.
    fn tx_decode(&self, arena: &SimArena, d: u64, status: u32) -> TxDesc;
    /// The status word a TX write-back leaves (OWN clear), `error` when a buffer could
    /// not be read.
    fn tx_status(&self, status: u32, desc: &TxDesc, error: bool) -> u32;
    /// Decode the owned RX descriptor at `d` whose status word is `status`.
    fn rx_decode(&self, arena: &SimArena, d: u64, status: u32) -> RxDesc;
    /// The words of an RX write-back.
    fn rx_write_back(&self, wb: RxWb<'_>) -> Words;
}

/// A register front-end over the shared [`Engine`].
pub(super) trait Front {
    /// The MDIO device type of the engine.
    type Mdio;
    /// Its descriptor format.
    type Format: DescFormat;
    /// The engine.
    fn core(&mut self) -> &mut Engine<Self::Mdio>;
    /// The descriptor format under the current register values.
    fn format(&self) -> Self::Format;
    /// Raise `ev` in the status register.
    fn raise(&mut self, ev: Ev);
    /// Whether the MAC's configuration matches the PHY's link (TX or RX direction).
    fn line_ok(&self, now_ns: u64, tx: bool) -> bool;
    /// The TX process is started (ST) and not halted.
    fn tx_running(&self) -> bool;
    /// The RX process is started (SR, and 3.x GMAC_CONTROL.RE) and not halted.
    fn rx_running(&self) -> bool;
    /// The link holds TX: the DMA stays running but makes no progress (3.x
    /// [`set_tx_stall`](super::Gmac3Model::set_tx_stall)).
    fn tx_held(&self) -> bool;
    /// The TX queue takes frames (QoS MTL_TXQ0_OPERATION_MODE.TXQEN = 2; always on 3.x).
    fn tx_queue_on(&self) -> bool;
    /// Frames that find no descriptor wait in an RX FIFO (otherwise a new frame is dropped
    /// and counted missed, as QEMU's npcm-gmac does).
    fn rx_fifo(&self) -> bool;
    /// The RX watchdog's period in CSR clocks (0: off).
    fn riwt_clocks(&self) -> u64;
}

/// A frame in the RX FIFO or on its way into descriptors.
pub(super) struct RxFrame {
    /// Frame plus FCS.
    pub(super) bytes: Vec<u8>,
    /// Bytes already stored.
    pub(super) done: usize,
    /// A buffer could not be written (reported on its last descriptor).
    pub(super) error: bool,
    /// The format's error bits to report on its last descriptor.
    pub(super) errors: u32,
    /// A context descriptor (timestamp) follows it.
    pub(super) context: bool,
    /// When it arrived (the timestamp).
    pub(super) at_ns: u64,
}

impl RxFrame {
    /// A frame arriving at `at_ns`.
    pub(super) fn new(bytes: Vec<u8>, errors: u32, context: bool, at_ns: u64) -> Self {
        Self {
            bytes,
            done: 0,
            error: false,
            errors,
            context,
            at_ns,
        }
    }
}

/// A TX descriptor the DMA has fetched; written back at `due_ns` (the lagging DMA) or at
/// once (the instant one).
pub(super) struct TxInFlight {
    /// Its bus address.
    pub(super) desc: u64,
    /// When it is written back.
    pub(super) due_ns: u64,
    /// The status word written back (at the format's `STATUS_AT`).
    pub(super) status: u32,
    /// Where the status word is.
    pub(super) status_at: u64,
    /// The frame asked for an interrupt.
    pub(super) ic: bool,
    /// The frame, on its last descriptor.
    pub(super) frame: Option<Vec<u8>>,
}

impl engine::Due for TxInFlight {
    fn due_ns(&self) -> u64 {
        self.due_ns
    }
}

/// Apply what time alone does up to `now_ns`: the RX watchdog raises RI, the lagging TX
/// DMA writes back what is due (looking at its current descriptor again after each), and
/// stops complete (TPS / RPS).
#[inline]
pub(super) fn sync<F: Front>(f: &mut F, now_ns: u64) {
    let c = f.core();
    c.last_ns = c.last_ns.max(now_ns);
    let due = |t: Option<u64>| t.is_some_and(|t| now_ns >= t);
    // Nothing falling due by `now_ns` (every register access between events): the steps of
    // `sync_due` would each find nothing to do.
    if due(c.riwt_at) || due(c.tx_next_due()) || due(c.tx_stop_at) || due(c.rx_stop_at) {
        sync_due(f, now_ns);
    }
}

/// [`sync`] when something falls due by `now_ns`.
#[inline(never)]
fn sync_due<F: Front>(f: &mut F, now_ns: u64) {
    let c = f.core();
    if let Some(at) = c.riwt_at
        && now_ns >= at
    {
        c.riwt_at = None;
        f.raise(Ev::RxDone);
    }
    // Bounded: each round writes one descriptor back; a walk only fetches descriptors the
    // DMA owns, and a written-back one is not owned any more.
    for _ in 0..(1 << 20) {
        let Some(e) = engine::pop_due(&mut f.core().tx_inflight, now_ns) else {
            break;
        };
        let at = e.due_ns;
        tx_close(f, at, e);
        tx_walk(f, at, false);
    }
    let (tx, rx) = f.core().stops_due(now_ns);
    if tx {
        f.core().tx_state = TxState::Stopped;
        f.raise(Ev::TxStopped);
    }
    if rx {
        f.raise(Ev::RxStopped);
    }
}

/// A write of the TX start bit (3.x DMA_CONTROL.ST, QoS DMA_CH0_TX_CONTROL.ST) that
/// changed it, at `now_ns`. Set: a stop still on its way completes first (TPS), then the
/// process restarts (a halt ends). Cleared: the descriptors in flight are abandoned, and
/// a running or suspended process reaches Stopped one stop lag later, raising TPS then
/// (RT1170 DMA_CH0_STATUS TPS "set when the transmission is stopped"; RM0090 ETH_DMASR
/// TPSS "set when the transmit process enters the Stopped state").
pub(super) fn tx_start_bit<F: Front>(f: &mut F, now_ns: u64, on: bool) {
    let c = f.core();
    if on {
        let pending = c.tx_stop_at.take().is_some();
        c.tx_halted = false;
        if pending {
            f.raise(Ev::TxStopped);
        }
    } else {
        c.tx_abandon();
        if !c.tx_halted {
            c.tx_stop_at = c.stop_at(now_ns);
        }
    }
}

/// A write of the RX start bit (3.x DMA_CONTROL.SR, QoS DMA_CH0_RX_CONTROL.SR) that
/// changed it, at `now_ns`: as [`tx_start_bit`] with RPS (RT1170 DMA_CH0_STATUS RPS "set
/// when the Rx DMA process enters the Stopped state"); stopping abandons the frame that
/// was waiting for descriptors (counted dropped).
pub(super) fn rx_start_bit<F: Front>(f: &mut F, now_ns: u64, on: bool) {
    let c = f.core();
    if on {
        let pending = c.rx_stop_at.take().is_some();
        c.rx_halted = false;
        if pending {
            f.raise(Ev::RxStopped);
        }
    } else {
        if c.rx_cur.take().is_some() {
            c.rx_dropped += 1;
        }
        if !c.rx_halted {
            c.rx_stop_at = c.stop_at(now_ns);
        }
    }
}

/// Write a fetched descriptor back at `at_ns`: record its frame, the interrupt it asked
/// for, its status word with OWN clear.
fn tx_close<F: Front>(f: &mut F, at_ns: u64, e: TxInFlight) {
    if let Some(bytes) = e.frame {
        let line = f.line_ok(at_ns, true);
        f.core().transmit(at_ns, bytes, e.ic, line);
        if e.ic {
            f.raise(Ev::TxDone);
        }
    }
    f.core().arena.write_u32(e.desc + e.status_at, e.status);
}

/// The TX process stops on a fatal bus error: FBI/FBE and TPS, descriptors in flight
/// abandoned, stopped until ST is written again.
fn tx_bus_error<F: Front>(f: &mut F) {
    f.raise(Ev::BusError);
    tx_halt(f, Ev::TxStopped);
}

fn tx_halt<F: Front>(f: &mut F, ev: Ev) {
    f.raise(ev);
    let c = f.core();
    c.tx_state = TxState::Stopped;
    c.tx_halted = true;
    c.tx_abandon();
}

/// The RX process stops on a fatal bus error: FBI/FBE and RPS, the frame in progress lost.
fn rx_bus_error<F: Front>(f: &mut F) {
    f.raise(Ev::BusError);
    f.raise(Ev::RxStopped);
    let c = f.core();
    c.rx_halted = true;
    c.rx_cur = None;
}

/// Walk the TX descriptors from the current one (a poll demand, a tail pointer write, ST
/// set, or a write-back of the lagging DMA); `doorbell` counts a stalled queue once.
pub(super) fn tx_walk<F: Front>(f: &mut F, now_ns: u64, doorbell: bool) {
    if !f.tx_running() {
        return;
    }
    if f.tx_held() {
        f.core().tx_state = TxState::Reading;
        return;
    }
    let fmt = f.format();
    for _ in 0..65_536 {
        let d = f.core().cur_tx;
        if fmt.tx_tail() == Some(d) {
            // At the tail pointer: suspended without TBU (RT1170 DMA_CH0_STATUS TBU).
            return;
        }
        let Some(status) = f.core().arena.read_u32(d + F::Format::STATUS_AT) else {
            tx_bus_error(f);
            return;
        };
        let c = f.core();
        let busy = !c.tx_inflight.is_empty();
        if status & OWN == 0 || busy && c.tx_inflight.iter().any(|e| e.desc == d) {
            if !busy {
                c.tx_state = TxState::Suspended;
                f.raise(Ev::TxUnavailable);
            } else {
                // Still busy: it looks again after the next write-back.
                c.tx_state = TxState::WaitingStatus;
            }
            return;
        }
        if !f.tx_queue_on() {
            if doorbell {
                f.core().tx_stalled += 1;
            }
            return;
        }
        if let Some(fault) = f.core().tx_fault.take() {
            match fault {
                TxFault::Stop => tx_halt(f, Ev::TxStopped),
                TxFault::Underflow => {
                    f.raise(Ev::TxUnderflow);
                    tx_halt(f, Ev::TxStopped);
                }
                TxFault::BusError => {
                    tx_bus_error(f);
                    f.raise(Ev::RxStopped);
                    f.core().rx_halted = true;
                }
            }
            return;
        }
        let c = f.core();
        let desc = fmt.tx_decode(&c.arena, d, status);
        if desc.context {
            c.arena.write_u32(
                d + F::Format::STATUS_AT,
                fmt.tx_status(status, &desc, false),
            );
            c.cur_tx = desc.next;
            continue;
        }
        if desc.first {
            c.partial.clear();
        }
        let mut error = false;
        let mut wire_bytes = 0;
        for &(buf, len) in desc.bufs.iter().flatten() {
            error |= !c.arena.read_into(buf, len, &mut c.partial);
            wire_bytes += len;
        }
        if error && F::Format::BUFFER_FAULT_FATAL {
            tx_bus_error(f);
            return;
        }
        let frame = desc.last.then(|| {
            let mut bytes = core::mem::take(&mut c.partial);
            if desc.cic != 0 {
                insert_checksums(&mut bytes, desc.cic);
            }
            bytes
        });
        let mut e = TxInFlight {
            desc: d,
            due_ns: now_ns,
            status: fmt.tx_status(status, &desc, error),
            status_at: F::Format::STATUS_AT,
            ic: desc.ic,
            frame,
        };
        c.cur_tx = desc.next;
        if c.tx_lag_ns == 0 {
            tx_close(f, now_ns, e);
        } else {
            if let Some(fr) = &e.frame {
                // Padding to 60, FCS, preamble + SFD + IFG.
                wire_bytes += engine::wire_overhead(fr.len());
            }
            e.due_ns = c.tx_due(now_ns, wire_bytes);
            c.tx_inflight.push_back(e);
            c.tx_state = TxState::WaitingStatus;
        }
    }
}

/// OWN, bit 31 of the status word in both versions (descs.h `RDES0_OWN` / `TDES0_OWN`;
/// dwmac4_descs.h `RDES3_OWN` / `TDES3_OWN`).
pub(super) const OWN: u32 = 1 << 31;

/// The descriptor the RX DMA may use at its current address: `Some(status)`, or `None`
/// after raising RU/RBU (not owned, or at the tail) or a bus error. Without an RX FIFO, a
/// frame not started yet is dropped with every frame waiting, each counted missed.
fn rx_take<F: Front>(f: &mut F, fmt: &F::Format) -> Option<u32> {
    let d = f.core().cur_rx;
    if fmt.rx_tail() == Some(d) {
        f.raise(Ev::RxUnavailable);
        return None;
    }
    let Some(status) = f.core().arena.read_u32(d + F::Format::STATUS_AT) else {
        rx_bus_error(f);
        return None;
    };
    if status & OWN != 0 {
        return Some(status);
    }
    f.raise(Ev::RxUnavailable);
    let started = f.core().rx_cur.as_ref().is_some_and(|r| r.done > 0);
    if !started && !f.rx_fifo() {
        // Without a modelled RX FIFO (QEMU's npcm-gmac): a new frame with nowhere to go is
        // dropped and counted missed; one in progress waits. With a FIFO, frames wait in
        // it for descriptors (RM0090: the RX DMA suspends and the frame stays in the FIFO).
        let c = f.core();
        let n = u64::from(c.rx_cur.is_some()) + c.rx_queue.len() as u64;
        c.rx_dropped += n;
        c.rx_queue.clear();
        c.rx_cur = None;
        for _ in 0..n {
            f.raise(Ev::RxMissed);
        }
    }
    None
}

/// Write `words` into the descriptor at `d`; a write outside the arena is a bus error.
fn rx_write<F: Front>(f: &mut F, d: u64, words: Words) -> bool {
    if words.write(&f.core().arena, d) {
        return true;
    }
    rx_bus_error(f);
    false
}

/// Deliver the frames waiting in the RX FIFO into DMA-owned descriptors from the current
/// one, as far as descriptors last.
pub(super) fn deliver<F: Front>(f: &mut F, now_ns: u64) {
    if !f.rx_running() {
        return;
    }
    let fmt = f.format();
    // Bounded: every iteration stores into one descriptor or stops.
    for _ in 0..65_536 {
        if let Some(ts) = f.core().ctx_pending {
            let Some(status) = rx_take(f, &fmt) else {
                return;
            };
            let c = f.core();
            let d = c.cur_rx;
            c.cur_rx = fmt.rx_decode(&c.arena, d, status).next;
            c.ctx_pending = None;
            c.rx_contexts += 1;
            if !rx_write(f, d, fmt.rx_write_back(RxWb::Context { ts })) {
                return;
            }
            continue;
        }
        let c = f.core();
        if c.rx_cur.is_none() {
            let Some(fr) = c.rx_queue.pop_front() else {
                return;
            };
            c.rx_cur = Some(fr);
        }
        let Some(status) = rx_take(f, &fmt) else {
            return;
        };
        let c = f.core();
        let d = c.cur_rx;
        let desc = fmt.rx_decode(&c.arena, d, status);
        let Some(fr) = c.rx_cur.as_mut() else {
            return;
        };
        let first = fr.done == 0;
        match desc.usable {
            RxUse::Store => {}
            RxUse::NoSize => {
                c.rx_cur = None;
                c.rx_overflow += 1;
                return;
            }
            RxUse::DescError => {
                c.rx_cur = None;
                c.rx_desc_errors += 1;
                c.cur_rx = desc.next;
                if !rx_write(f, d, fmt.rx_write_back(RxWb::DescError { first })) {
                    return;
                }
                continue;
            }
        }
        let n = (fr.bytes.len() - fr.done).min(desc.size);
        if n > 0
            && !c
                .arena
                .write_bytes(desc.buf, &fr.bytes[fr.done..fr.done + n])
        {
            if F::Format::BUFFER_FAULT_FATAL {
                rx_bus_error(f);
                return;
            }
            fr.error = true;
        }
        fr.done += n;
        c.cur_rx = desc.next;
        if fr.done < fr.bytes.len() {
            if !rx_write(f, d, fmt.rx_write_back(RxWb::Part { first })) {
                return;
            }
            continue;
        }
        let Some(fr) = c.rx_cur.take() else {
            return;
        };
        let fin = fmt.rx_write_back(RxWb::Last {
            first,
            frame: &fr.bytes,
            errors: fr.errors,
            buffer_error: fr.error,
        });
        if c.split_last {
            // First OWN clear without the last mark, the final write later
            // (`complete_rx_writes`).
            let len = fr.bytes.len();
            c.pending_last.push((d, fin));
            if !rx_write(f, d, fmt.rx_write_back(RxWb::Released { first, len })) {
                return;
            }
        } else if !rx_write(f, d, fin) {
            return;
        }
        let c = f.core();
        c.rx_delivered += 1;
        if fr.context {
            c.ctx_pending = Some(fr.at_ns);
        }
        if desc.ioc {
            c.riwt_at = None;
            f.raise(Ev::RxDone);
        } else {
            let clocks = f.riwt_clocks();
            if clocks != 0 {
                f.core().arm_riwt(now_ns, clocks);
            }
        }
    }
}

/// Perform the final RX write-backs held back by the split last write.
pub(super) fn complete_rx_writes<D>(c: &mut Engine<D>) {
    for (d, w) in core::mem::take(&mut c.pending_last) {
        w.write(&c.arena, d);
    }
}
