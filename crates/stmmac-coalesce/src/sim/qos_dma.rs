//! The QoS 4.x/5.x model's DMA ([`QosModel`]): the TX walk from the current descriptor to
//! the tail pointer, RX delivery into DMA-owned descriptors with the QoS write-back, the
//! fatal bus error.

use super::QosModel;
use super::csum::{check_checksums, insert_checksums};
use super::engine;
use super::qos::{IPC, RWT_MASK, SR, ST, TxInFlight};
use super::qos_map as q;
use super::{Ring, TxFault};
use mdio_bus::sim::MdioDevice;

impl<D: MdioDevice> QosModel<D> {
    pub(super) fn fatal(&mut self, tx: bool) {
        self.status |= q::CH_FBE | if tx { q::CH_TPS } else { q::CH_RPS };
        if tx {
            self.tx_halted = true;
            self.tx_inflight.clear();
            self.core.tx_wire_free_ns = 0;
        } else {
            self.rx_halted = true;
            self.rx_cur = None;
        }
    }

    pub(super) fn doorbell(&self, ring: Ring) {
        let d = match ring {
            Ring::Tx => self.cur_tx,
            Ring::Rx => self.cur_rx,
        };
        self.core.note_doorbell(ring, d, d + 12);
    }

    pub(super) fn tx_close(&mut self, at_ns: u64, e: TxInFlight) {
        if let Some(bytes) = e.frame {
            let line = self.line_ok(at_ns, true);
            self.core.transmit(at_ns, bytes, e.ioc, line);
            if e.ioc {
                self.status |= q::CH_TI;
            }
        }
        self.core.arena.write_u32(e.desc + 12, e.des3);
    }

    /// Walk the TX ring from the current descriptor; `doorbell`: a tail write or ST set
    /// (counted once for a stall).
    pub(super) fn tx_walk(&mut self, now_ns: u64, doorbell: bool) {
        if self.tx_control & ST == 0 || self.tx_halted {
            return;
        }
        for _ in 0..65_536 {
            let d = self.cur_tx;
            if d == self.tx_tail() {
                return;
            }
            let Some(des3) = self.core.arena.read_u32(d + 12) else {
                self.fatal(true);
                return;
            };
            if self.tx_inflight.iter().any(|e| e.desc == d) {
                return;
            }
            if des3 & q::OWN == 0 {
                if self.tx_inflight.is_empty() {
                    self.status |= q::CH_TBU;
                }
                return;
            }
            if (self.txq_op >> q::TXQ_TXQEN_SHIFT) & 3 != q::TXQEN_ENABLED {
                if doorbell {
                    self.tx_stalled += 1;
                }
                return;
            }
            if let Some(f) = self.tx_fault.take() {
                match f {
                    TxFault::Stop | TxFault::Underflow => {
                        self.status |= q::CH_TPS;
                        self.tx_halted = true;
                        self.tx_inflight.clear();
                    }
                    TxFault::BusError => {
                        self.fatal(true);
                        self.status |= q::CH_RPS;
                        self.rx_halted = true;
                    }
                }
                return;
            }
            let next = self.next_desc(d, self.tx_base(), self.tx_ring_len);
            if des3 & q::CTXT != 0 {
                self.core.arena.write_u32(d + 12, des3 & !q::OWN);
                self.cur_tx = next;
                continue;
            }
            let w = |o: u64| self.core.arena.read_u32(d + o).unwrap_or(0);
            let (des0, des1, des2) = (w(0), w(4), w(8));
            let buf = self.addr(des0, des1);
            let len = (des2 & q::TDES2_B1L_MASK) as usize;
            if des3 & q::FD != 0 {
                self.core.partial.clear();
            }
            if len > 0 && !self.core.arena.read_into(buf, len, &mut self.core.partial) {
                self.fatal(true);
                return;
            }
            let ld = des3 & q::LD != 0;
            let frame = ld.then(|| {
                let mut f = core::mem::take(&mut self.core.partial);
                let cic = (des3 >> q::TDES3_CIC_SHIFT) & 3;
                if self.coe && cic != 0 {
                    insert_checksums(&mut f, cic);
                }
                f
            });
            let mut e = TxInFlight {
                desc: d,
                due_ns: now_ns,
                des3: des3 & (q::FD | q::LD),
                ioc: ld && des2 & q::TDES2_IOC != 0,
                frame,
            };
            if self.core.tx_lag_ns == 0 {
                self.tx_close(now_ns, e);
            } else {
                let mut wire = len;
                if let Some(f) = &e.frame {
                    wire += engine::wire_overhead(f.len());
                }
                e.due_ns = self.core.tx_due(now_ns, wire);
                self.tx_inflight.push_back(e);
            }
            self.cur_tx = next;
        }
    }

    pub(super) fn rx_running(&self) -> bool {
        self.rx_control & SR != 0 && !self.rx_halted
    }

    /// A descriptor the RX DMA may use at its current address: `Some(rdes3)`, or `None`
    /// after raising RBU (not owned, or at the tail) or FBE.
    pub(super) fn rx_take(&mut self) -> Option<u32> {
        let d = self.cur_rx;
        if d == self.rx_tail() {
            self.status |= q::CH_RBU;
            return None;
        }
        let Some(des3) = self.core.arena.read_u32(d + 12) else {
            self.fatal(false);
            return None;
        };
        if des3 & q::OWN == 0 {
            self.status |= q::CH_RBU;
            return None;
        }
        Some(des3)
    }

    pub(super) fn rx_write_back(&mut self, d: u64, w: [u32; 4]) -> bool {
        let mut b = [0u8; 16];
        for (i, v) in w.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.core.arena.write_bytes(d, &b)
    }

    /// RDES1 of a frame (with FCS) with IPC on: IPv4, payload type, IPHE, IPCE.
    pub(super) fn rx_rdes1(&self, frame: &[u8]) -> u32 {
        let body = frame.get(..frame.len().saturating_sub(4)).unwrap_or(&[]);
        if body.len() < 34 || body[12..14] != [0x08, 0x00] || body[14] >> 4 != 4 {
            return 0;
        }
        let mut v = q::RDES1_IPV4;
        v |= match body[23] {
            17 => 1,
            6 => 2,
            1 => 3,
            _ => 0,
        } & q::RDES1_PT_MASK;
        let (ip_bad, l4_bad) = check_checksums(body);
        if ip_bad {
            v |= q::RDES1_IPHE;
        }
        if l4_bad {
            v |= q::RDES1_IPCE;
        }
        v
    }

    pub(super) fn deliver(&mut self, now_ns: u64) {
        if !self.rx_running() {
            return;
        }
        for _ in 0..65_536 {
            if let Some(ts) = self.ctx_pending {
                let Some(_) = self.rx_take() else {
                    return;
                };
                let d = self.cur_rx;
                self.cur_rx = self.next_desc(d, self.rx_base(), self.rx_ring_len);
                self.ctx_pending = None;
                self.rx_contexts += 1;
                if !self.rx_write_back(d, [ts as u32, (ts >> 32) as u32, 0, q::CTXT]) {
                    self.fatal(false);
                    return;
                }
                continue;
            }
            if self.rx_cur.is_none() {
                let Some(f) = self.rx_queue.pop_front() else {
                    return;
                };
                self.rx_cur = Some(f);
            }
            let Some(des3) = self.rx_take() else {
                return;
            };
            let d = self.cur_rx;
            let next = self.next_desc(d, self.rx_base(), self.rx_ring_len);
            let size = self.rx_buf_size();
            if des3 & q::RDES3_BUF1V == 0 || size == 0 {
                // A descriptor error (no buffer), or no buffer size: the frame is lost.
                let Some(f) = self.rx_cur.take() else {
                    return;
                };
                if size == 0 {
                    self.rx_overflow += 1;
                    self.rx_cur = None;
                    return;
                }
                self.rx_desc_errors += 1;
                self.cur_rx = next;
                let fd = if f.done == 0 { q::FD } else { 0 };
                if !self.rx_write_back(d, [0, 0, 0, fd | q::LD | q::RDES3_ES | q::RDES3_DE]) {
                    self.fatal(false);
                    return;
                }
                continue;
            }
            let w = |o: u64| self.core.arena.read_u32(d + o).unwrap_or(0);
            let buf = self.addr(w(0), w(4));
            let ipc = self.mac_config & IPC != 0 && self.coe;
            let Some(f) = self.rx_cur.as_mut() else {
                return;
            };
            let first = f.done == 0;
            let n = (f.bytes.len() - f.done).min(size);
            if !self
                .core
                .arena
                .write_bytes(buf, &f.bytes[f.done..f.done + n])
            {
                self.fatal(false);
                return;
            }
            f.done += n;
            self.cur_rx = next;
            let fd = if first { q::FD } else { 0 };
            if f.done < f.bytes.len() {
                if !self.rx_write_back(d, [0, 0, 0, fd]) {
                    self.fatal(false);
                    return;
                }
                continue;
            }
            let Some(f) = self.rx_cur.take() else {
                return;
            };
            let rdes1 = if ipc { self.rx_rdes1(&f.bytes) } else { 0 };
            let mut rdes3 = fd | q::LD | f.errors | (f.bytes.len() as u32 & q::RDES3_PL_MASK);
            if ipc {
                rdes3 |= q::RDES3_RS1V;
            }
            if !self.rx_write_back(d, [0, rdes1, 0, rdes3]) {
                self.fatal(false);
                return;
            }
            self.core.rx_delivered += 1;
            if f.context {
                self.ctx_pending = Some(f.at_ns);
            }
            if des3 & q::RDES3_IOC != 0 {
                self.status |= q::CH_RI;
                self.core.riwt_at = None;
            } else if self.rx_watchdog & RWT_MASK != 0 {
                // RWT × 256 << RWTU CSR clocks (RT1170 DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER
                // RWT/RWTU; RWTU from SNPSVER 0x42 on).
                let unit = if self.snpsver() >= 0x42 {
                    256u64 << ((self.rx_watchdog >> q::RWTU_SHIFT) & 3)
                } else {
                    256
                };
                self.core
                    .arm_riwt(now_ns, u64::from(self.rx_watchdog & RWT_MASK) * unit);
            }
        }
    }

    /// Bytes waiting in the RX queue for descriptors: the RX FIFO's fill.
    pub(super) fn rx_fill(&self) -> usize {
        self.rx_queue.iter().map(|f| f.bytes.len()).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |f| f.bytes.len() - f.done)
    }

    /// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.OVFPKTCNT + 1 (RT1170: 11 bits, OVFCNTOVF when
    /// it crosses the maximum; the register clears on read).
    pub(super) fn count_mtl_overflow(&mut self) {
        engine::count_field(&mut self.mtl_missed, q::MISSED_OVF_MASK, q::MISSED_OVF_OVF);
    }

    /// MISPKTCNT + 1 (RT1170: 11 bits, MISCNTOVF).
    pub(super) fn count_mtl_missed(&mut self) {
        let mask = q::MISSED_OVF_MASK << q::MISSED_MIS_SHIFT;
        engine::count_field(&mut self.mtl_missed, mask, q::MISSED_MIS_OVF);
    }

    /// Hardware flow control on the RX queue: with MTL_RXQ0_OPERATION_MODE.EHFC and
    /// MAC_Q0_TX_FLOW_CTRL.TFE set, a fill reaching "queue size minus RFA" sends a PAUSE
    /// with the PT quanta, a fill falling to "queue size minus RFD" a zero-quanta PAUSE
    /// (dwmac4.h `MTL_OP_MODE_EHFC`, RFA/RFD: full minus (1 KiB + 512 B × value), as Linux
    /// `dwmac4_dma_rx_chan_op_mode` programs them; RT1170 MTL_RXQ0_OPERATION_MODE RFA/RFD).
    pub(super) fn flow_check(&mut self) {
        let enabled = self.rxq_op & q::RXQ_EHFC != 0 && self.flow[0] & q::TX_FLOW_TFE != 0;
        let rf = |shift: u32| 1024 + 512 * ((self.rxq_op >> shift) & q::RXQ_RF_MASK) as usize;
        let (act, deact) = (rf(q::RXQ_RFA_SHIFT), rf(q::RXQ_RFD_SHIFT));
        let cfg = engine::FlowCfg {
            enabled,
            size: self.rx_queue_bytes() as usize,
            activate: act,
            deactivate: deact,
            pt: (self.flow[0] >> q::TX_FLOW_PT_SHIFT) as u16,
        };
        let (lo, hi) = (self.addr_lo.to_le_bytes(), self.addr_hi.to_le_bytes());
        let fill = self.rx_fill();
        self.core
            .flow_check(cfg, fill, [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]);
    }
}
