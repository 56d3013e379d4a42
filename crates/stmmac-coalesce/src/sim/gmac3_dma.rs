//! The model's DMA: the TX walk over DMA-owned descriptors, RX delivery into them (frames
//! spilling across descriptors, DIC and the watchdog), the frame filter and the line check.

use std::vec::Vec;

use mdio_bus::sim::MdioDevice;

use super::engine::{self, Filter, MacLine};
use super::gmac3_map::{
    self as m, OWN, RDES0_DE, RDES0_ES, RDES0_FL_MASK, RDES0_FL_SHIFT, RDES0_FS, RDES0_FT,
    RDES0_LS, TDES0_ES,
};
use super::{Gmac3Model, TxFault};

/// A frame on its way into RX descriptors.
pub(super) struct RxInFlight {
    /// Frame plus FCS.
    pub(super) bytes: Vec<u8>,
    /// Bytes already stored.
    pub(super) done: usize,
    /// Bytes the DMA could not store (an unreachable buffer).
    pub(super) error: bool,
}

/// The lagging TX DMA's default line rate: 1 Gbit/s ([`Gmac3Model::with_line_rate`]).
pub const DEFAULT_LINE_BPS: u64 = 1_000_000_000;

/// A TX descriptor the DMA has fetched; written back at `due_ns` (the lagging DMA) or at
/// once (the instant one).
pub(super) struct TxInFlight {
    /// Its bus address.
    pub(super) desc: u32,
    /// When it is written back.
    pub(super) due_ns: u64,
    /// TDES0 bits the write-back keeps (enhanced control bits).
    pub(super) keep: u32,
    /// A buffer could not be read (ES).
    pub(super) es: bool,
    /// IC on a last descriptor.
    pub(super) ic: bool,
    /// The frame, on its last descriptor.
    pub(super) frame: Option<Vec<u8>>,
}

impl<D: MdioDevice> Gmac3Model<D> {
    /// Write back the lagging DMA's descriptors due at or before `now_ns`, each at its own
    /// due time, looking at the current descriptor again after each (see
    /// [`with_tx_lag`](Self::with_tx_lag)).
    #[inline(never)]
    pub(super) fn tx_complete_due(&mut self, now_ns: u64) {
        // Bounded: each round writes one descriptor back; a walk only fetches descriptors
        // the DMA owns, and a written-back one is not owned any more.
        for _ in 0..(1 << 20) {
            let Some(e) = engine::pop_due(&mut self.tx_inflight, now_ns) else {
                return;
            };
            let at = e.due_ns;
            self.tx_close(at, e);
            self.tx_walk(at);
        }
    }

    /// Drop the descriptors in flight (they stay DMA-owned): ST cleared, a new list base,
    /// a fault, a reset.
    pub(super) fn tx_abandon_in_flight(&mut self) {
        self.tx_inflight.clear();
        self.core.tx_wire_free_ns = 0;
    }

    /// Write a fetched descriptor back at `at_ns`: record its frame, TI for IC, OWN clear.
    #[inline]
    fn tx_close(&mut self, at_ns: u64, e: TxInFlight) {
        if let Some(bytes) = e.frame {
            let line = self.line_ok(at_ns, true);
            self.core.transmit(at_ns, bytes, e.ic, line);
            if e.ic {
                self.status |= m::ST_TI;
            }
        }
        // Write-back: OWN clear, status; enhanced keeps its control bits.
        self.core
            .arena
            .write_u32(e.desc, e.keep | if e.es { TDES0_ES } else { 0 });
    }

    /// Whether GMAC_CONTROL matches the attached PHY's link (always, without one).
    pub(super) fn line_ok(&self, now_ns: u64, tx: bool) -> bool {
        let c = self.control;
        let dir = if tx { m::CONTROL_TE } else { m::CONTROL_RE };
        let mac = MacLine {
            enabled: c & dir != 0,
            ps: c & m::CONTROL_PS != 0,
            fes: c & m::CONTROL_FES != 0,
            dm: c & m::CONTROL_DM != 0,
        };
        engine::link_ok(self.core.phy.as_ref(), now_ns, mac)
    }

    /// Whether the destination address filter accepts `frame` (64 hash bins: HASH_LOW
    /// bins 0–31, HASH_HIGH 32–63, dwmac1000.h `GMAC_HASH_LOW` / `GMAC_HASH_HIGH`).
    pub(super) fn accepts(&self, frame: &[u8]) -> bool {
        let ff = self.frame_filter;
        let lo = self.addr_lo.to_le_bytes();
        let hi = self.addr_hi.to_le_bytes();
        Filter {
            pass_all: ff & (m::FILTER_PR | m::FILTER_RA) != 0,
            no_broadcast: ff & m::FILTER_DBF != 0,
            all_multicast: ff & m::FILTER_PM != 0,
            hash_multicast: ff & m::FILTER_HMC != 0,
            hash: &self.hash,
            hash_bits: 6,
            addr: [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]],
            addr_enabled: self.addr_hi & m::ADDR_AE != 0,
        }
        .accepts(frame)
    }

    /// A frame arrives from the wire at `now_ns` (without FCS; the model adds it). It goes
    /// through the filter and the line check, then into RX descriptors (see the
    /// [module docs](crate::sim)).
    pub fn inject(&mut self, now_ns: u64, frame: &[u8]) {
        self.sync(now_ns);
        self.complete_rx_writes();
        if !self.rx_running() {
            self.core.rx_dropped += 1;
            return;
        }
        let (line, accepted) = (self.line_ok(now_ns, false), self.accepts(frame));
        if !self.core.admit(line, accepted) {
            return;
        }
        // A frame shorter than 60 bytes arrives padded, as every 802.3 sender pads it (and
        // QEMU's net layer pads what a NIC receives), unless injected as a runt.
        let bytes = engine::on_wire(frame, core::mem::take(&mut self.runt_next));
        if self.rx_fifo != 0 && self.rx_fill() + bytes.len() > self.rx_fifo {
            // The RX FIFO overflows: the frame is lost and counted (dwmac_dma.h
            // `DMA_MISSED_FRAME_OVE_CNTR`).
            self.core.rx_dropped += 1;
            engine::count_field(
                &mut self.missed,
                m::MISSED_MFA_MASK << m::MISSED_MFA_SHIFT,
                m::MISSED_MFA_OVF,
            );
            self.flow_check();
            return;
        }
        self.rx_queue.push_back(bytes);
        self.deliver(now_ns);
        self.flow_check();
    }

    /// Bytes waiting in the RX FIFO for descriptors.
    pub(super) fn rx_fill(&self) -> usize {
        self.rx_queue.iter().map(Vec::len).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |f| f.bytes.len() - f.done)
    }

    /// Hardware flow control (full duplex): with DMA_CONTROL.EFC and GMAC_FLOW_CTRL.TFE, a
    /// FIFO fill reaching "full minus RFA" sends a PAUSE with GMAC_FLOW_CTRL.PT quanta, and
    /// falling to "full minus RFD" a zero-quanta PAUSE (dwmac1000.h `DMA_CONTROL_EFC`,
    /// `RFA_FULL_MINUS_*`, `RFD_FULL_MINUS_*`, and its note that a zero-quanta PAUSE is the
    /// XOFF release when DZPQ is 0; Linux `dwmac1000_flow_ctrl`). Needs a modelled FIFO
    /// ([`with_rx_fifo`](Self::with_rx_fifo)).
    pub(super) fn flow_check(&mut self) {
        let c = self.dma_control;
        let enabled =
            self.rx_fifo != 0 && c & m::CONTROL_EFC != 0 && self.flow_ctrl & m::FLOW_TFE != 0;
        let field = |shift: u32, msb: u32| {
            let v = ((c >> shift) & 3) | if c & msb != 0 { 4 } else { 0 };
            1024 * (v as usize + 1)
        };
        let act = field(m::CONTROL_RFA_SHIFT, m::CONTROL_RFA_MSB);
        let deact = field(m::CONTROL_RFD_SHIFT, m::CONTROL_RFD_MSB);
        let cfg = engine::FlowCfg {
            enabled,
            size: self.rx_fifo,
            activate: act,
            deactivate: deact,
            pt: (self.flow_ctrl >> m::FLOW_PT_SHIFT) as u16,
        };
        let (lo, hi) = (self.addr_lo.to_le_bytes(), self.addr_hi.to_le_bytes());
        let fill = self.rx_fill();
        self.core
            .flow_check(cfg, fill, [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]);
    }

    /// (RBS1, end of ring, chained, DIC) of an RX descriptor's DES1. RBS1's bits below the
    /// bus width are ignored: the buffer size must be a multiple of the bus width (ST
    /// RM0090 RDES1 RBS1; Linux `stmmac_set_bfsize` keeps sizes aligned), so the DMA stores
    /// `RBS1` rounded down.
    pub(super) fn rx_desc_fields(&self, des1: u32) -> (usize, bool, bool, bool) {
        let l = self.desc_layout();
        let size = des1 & l.rbs1_mask;
        let size = size - size % self.bus_width.max(1);
        (
            size as usize,
            des1 & l.rer != 0,
            des1 & l.rch != 0,
            des1 & l.dic != 0,
        )
    }

    pub(super) fn deliver(&mut self, now_ns: u64) {
        if !self.rx_running() {
            return;
        }
        // Bounded: every iteration stores into one descriptor or stops.
        for _ in 0..65_536 {
            if self.rx_cur.is_none() {
                let Some(bytes) = self.rx_queue.pop_front() else {
                    return;
                };
                self.rx_cur = Some(RxInFlight {
                    bytes,
                    done: 0,
                    error: false,
                });
            }
            let d = self.cur_rx;
            let Some(des0) = self.core.arena.read_u32(d) else {
                self.status |= m::ST_FBI | m::ST_RPS;
                self.rx_halted = true;
                self.rx_cur = None;
                return;
            };
            if des0 & OWN == 0 {
                self.status |= m::ST_RU;
                let started = self.rx_cur.as_ref().is_some_and(|f| f.done > 0);
                if !started && self.rx_fifo == 0 {
                    // Without a modelled RX FIFO (QEMU's npcm-gmac): a new frame with
                    // nowhere to go is dropped and counted missed; one in progress waits.
                    let n = 1 + self.rx_queue.len();
                    self.core.rx_dropped += n as u64;
                    for _ in 0..n {
                        engine::count_field(
                            &mut self.missed,
                            m::MISSED_MFC_MASK,
                            m::MISSED_MFC_OVF,
                        );
                    }
                    self.rx_queue.clear();
                    self.rx_cur = None;
                }
                // With a FIFO, frames wait in it for descriptors (RM0090: the RX DMA
                // suspends and the frame stays in the RX FIFO).
                return;
            }
            let des1 = self.core.arena.read_u32(d + 4).unwrap_or(0);
            let buf = self.core.arena.read_u32(d + 8).unwrap_or(0);
            let (size, end, chained, dic) = self.rx_desc_fields(des1);
            let next = if end {
                self.rx_base
            } else if chained {
                self.core.arena.read_u32(d + 12).unwrap_or(0)
            } else {
                d.wrapping_add(self.stride())
            };
            let Some(f) = self.rx_cur.as_mut() else {
                return;
            };
            let first = f.done == 0;
            let n = (f.bytes.len() - f.done).min(size);
            if n > 0
                && !self
                    .core
                    .arena
                    .write_bytes(buf, &f.bytes[f.done..f.done + n])
            {
                f.error = true;
            }
            f.done += n;
            let last = f.done >= f.bytes.len();
            let mut st = RDES0_FT;
            if first {
                st |= RDES0_FS;
            }
            self.cur_rx = next;
            if !last {
                self.core.arena.write_u32(d, st);
                continue;
            }
            let len = f.bytes.len() as u32;
            let coe = Self::rx_offload_status(self.control, self.coe_work, self.csum_es, &f.bytes);
            let error = f.error;
            self.rx_cur = None;
            let mut fin = st | RDES0_LS | ((len & RDES0_FL_MASK) << RDES0_FL_SHIFT) | coe;
            if error {
                fin |= RDES0_ES | RDES0_DE;
            }
            if self.split_last {
                // First OWN clear without LS (FL so far), LS later.
                self.core
                    .arena
                    .write_u32(d, st | ((len & RDES0_FL_MASK) << RDES0_FL_SHIFT));
                self.pending_ls.push((d, fin));
            } else {
                self.core.arena.write_u32(d, fin);
            }
            self.core.rx_delivered += 1;
            if !dic {
                self.status |= m::ST_RI;
                self.core.riwt_at = None;
            } else if self.riwt != 0 {
                // RIWT × 256 CSR clocks (dwmac_dma.h `DMA_RX_WATCHDOG`; RM0090 ETH_DMARSWTR).
                self.core.arm_riwt(now_ns, u64::from(self.riwt) * 256);
            }
        }
    }

    /// (size 1, size 2, FS, LS, IC, TER, TCH) of a TX descriptor.
    pub(super) fn tx_fields(
        &self,
        des0: u32,
        des1: u32,
    ) -> (usize, usize, bool, bool, bool, bool, bool) {
        let l = self.desc_layout();
        let c = if l.tx_ctrl_word == 0 { des0 } else { des1 };
        (
            (des1 & l.tbs1_mask) as usize,
            ((des1 >> l.tbs2_shift) & l.tbs2_mask) as usize,
            c & l.fs != 0,
            c & l.ls != 0,
            c & l.ic != 0,
            c & l.ter != 0,
            c & l.tch != 0,
        )
    }

    pub(super) fn tx_walk(&mut self, now_ns: u64) {
        if self.dma_control & m::CONTROL_ST == 0 || self.tx_halted {
            return;
        }
        if self.tx_stall {
            self.ts = 3; // reading: running, no progress
            return;
        }
        // A ring of N owned descriptors is walked once; the guard only stops a corrupted
        // list that loops through owned descriptors.
        for _ in 0..65_536 {
            let d = self.cur_tx;
            let Some(des0) = self.core.arena.read_u32(d) else {
                self.status |= m::ST_FBI | m::ST_TPS;
                self.ts = m::TS_STOPPED;
                self.tx_halted = true;
                self.tx_abandon_in_flight();
                return;
            };
            let in_flight = !self.tx_inflight.is_empty();
            if des0 & OWN == 0 || in_flight && self.tx_inflight.iter().any(|e| e.desc == d) {
                if !in_flight {
                    self.status |= m::ST_TU;
                    self.ts = m::TS_SUSPENDED;
                } else {
                    // Still busy: it looks again after the next write-back.
                    self.ts = m::TS_WAITING_STATUS;
                }
                return;
            }
            if let Some(fault) = self.tx_fault.take() {
                self.status |= match fault {
                    TxFault::Stop => m::ST_TPS,
                    TxFault::Underflow => m::ST_UNF | m::ST_TPS,
                    TxFault::BusError => m::ST_FBI | m::ST_TPS | m::ST_RPS,
                };
                self.ts = m::TS_STOPPED;
                self.tx_halted = true;
                if fault == TxFault::BusError {
                    self.rx_halted = true;
                }
                self.tx_abandon_in_flight();
                return;
            }
            let des1 = self.core.arena.read_u32(d + 4).unwrap_or(0);
            let b1 = self.core.arena.read_u32(d + 8).unwrap_or(0);
            let b2 = self.core.arena.read_u32(d + 12).unwrap_or(0);
            let (l1, l2, fs, ls, ic, ter, tch) = self.tx_fields(des0, des1);
            if fs {
                self.core.partial.clear();
            }
            let mut es = false;
            es |= !self.core.arena.read_into(b1, l1, &mut self.core.partial);
            if !tch && l2 > 0 {
                es |= !self.core.arena.read_into(b2, l2, &mut self.core.partial);
            }
            let frame = if ls {
                let bytes = core::mem::take(&mut self.core.partial);
                Some(self.tx_offload(des0, des1, bytes))
            } else {
                None
            };
            let keep = des0 & self.desc_layout().keep;
            let mut e = TxInFlight {
                desc: d,
                due_ns: now_ns,
                keep,
                es,
                ic,
                frame,
            };
            if self.core.tx_lag_ns == 0 {
                self.tx_close(now_ns, e);
            } else {
                let mut wire_bytes = l1 + if tch { 0 } else { l2 };
                if let Some(f) = &e.frame {
                    // Padding to 60, FCS, preamble + SFD + IFG.
                    wire_bytes += engine::wire_overhead(f.len());
                }
                e.due_ns = self.core.tx_due(now_ns, wire_bytes);
                self.tx_inflight.push_back(e);
                self.ts = m::TS_WAITING_STATUS;
            }
            self.cur_tx = if ter {
                self.tx_base
            } else if tch {
                b2
            } else {
                d.wrapping_add(self.stride())
            };
        }
    }
}

impl engine::Due for TxInFlight {
    fn due_ns(&self) -> u64 {
        self.due_ns
    }
}
