//! The GMAC 3.x model's DMA side: its descriptor format for the shared walker
//! ([`Gmac3Desc`]: normal or enhanced layout, ring stride with DSL and ATDS, end of ring,
//! chaining, the RDES0/TDES0 write-backs), its [`Front`] (status bits, gates, watchdog
//! period), RX admission (filter, line check, RX FIFO) and flow control.

use mdio_bus::sim::MdioDevice;

use super::Gmac3Model;
use super::SimArena;
use super::csum::check_checksums;
use super::engine::{self, Engine, Filter, MacLine};
use super::gmac3_map::{
    self as m, RDES0_DE, RDES0_ES, RDES0_FL_MASK, RDES0_FL_SHIFT, RDES0_FS, RDES0_FT, RDES0_LS,
    TDES0_ES,
};
use super::walk::{self, DescFormat, Ev, Front, RxDesc, RxFrame, RxUse, RxWb, TxDesc, Words};

/// The lagging TX DMA's default line rate: 1 Gbit/s ([`Gmac3Model::with_line_rate`]).
pub const DEFAULT_LINE_BPS: u64 = 1_000_000_000;

/// The GMAC 3.x descriptors under the current register values (descs.h; the fields of
/// [`m::Layout3`]): OWN and the status in DES0, buffer sizes in DES1, buffer 1 in DES2,
/// buffer 2 or the next descriptor (chained) in DES3.
#[derive(Clone, Copy)]
pub(super) struct Gmac3Desc {
    /// Normal or enhanced fields.
    layout: &'static m::Layout3,
    /// Ring mode's distance between descriptors.
    stride: u32,
    /// DMA_TX_BASE_ADDR: where TER wraps.
    tx_base: u32,
    /// DMA_RCV_BASE_ADDR: where RER wraps.
    rx_base: u32,
    /// The bus width: RBS1 is rounded down to it.
    bus_width: u32,
    /// TX checksum insertion happens (a COE core doing its work).
    tx_coe: bool,
    /// RX checksum status: GMAC_CONTROL.IPC on a COE core doing its work.
    rx_coe: bool,
    /// A checksum error also raises ES.
    csum_es: bool,
}

impl Gmac3Desc {
    /// The next descriptor after `d`: the list base at the end of the ring (TER / RER),
    /// DES3 when chained (TCH / RCH: "second address chained"), else one stride on (the
    /// 32-bit bus wraps).
    fn next(&self, d: u64, end: bool, chained: bool, des3: u32, base: u32) -> u64 {
        let next = if end {
            base
        } else if chained {
            des3
        } else {
            (d as u32).wrapping_add(self.stride)
        };
        u64::from(next)
    }
}

/// RX: the RDES0 bits the checksum engine reports for `frame` (with its FCS) while
/// GMAC_CONTROL.IPC is on (`ipc`): bit 7 for a wrong IPv4 header checksum, bit 0 for a
/// wrong TCP/UDP/ICMP checksum (pseudo-header included; UDP checksum 0 is "none";
/// fragments are not checked), ES with them when `csum_es` (see
/// [`Gmac3Model::set_checksum_error_summary`]). IPv6 and other frames: nothing.
fn rx_offload_status(ipc: bool, csum_es: bool, frame: &[u8]) -> u32 {
    if !ipc {
        return 0;
    }
    let body = frame.get(..frame.len().saturating_sub(4)).unwrap_or(&[]);
    let (ip_bad, l4_bad) = check_checksums(body);
    let mut st = 0;
    if ip_bad {
        st |= m::RDES0_IPC_CSUM;
    }
    if l4_bad {
        st |= m::RDES0_PCE;
    }
    if st != 0 && csum_es {
        st |= RDES0_ES;
    }
    st
}

impl DescFormat for Gmac3Desc {
    /// OWN is DES0 bit 31 (descs.h `TDES0_OWN` / `RDES0_OWN`).
    const STATUS_AT: u64 = 0;
    /// A buffer the DMA cannot reach sets the descriptor's ES (descs.h
    /// `TDES0_ERROR_SUMMARY`; RDES0 ES with DE, the descriptor error) rather than stopping
    /// the process (QEMU's npcm-gmac likewise).
    const BUFFER_FAULT_FATAL: bool = false;

    fn tx_tail(&self) -> Option<u64> {
        None
    }

    fn rx_tail(&self) -> Option<u64> {
        None
    }

    /// Buffer 1 (TBS1 bytes at DES2), then buffer 2 (TBS2 at DES3) unless TCH makes DES3
    /// the next descriptor; the control bits in TDES1 (normal) or TDES0 (enhanced); CIC
    /// as QEMU's npcm-gmac applies it (1: the IPv4 header; 2 and 3: TCP/UDP/ICMP too).
    fn tx_decode(&self, arena: &SimArena, d: u64, des0: u32) -> TxDesc {
        let l = self.layout;
        let w = |o: u64| arena.read_u32(d + o).unwrap_or(0);
        let (des1, b1, b2) = (w(4), w(8), w(12));
        let c = if l.tx_ctrl_word == 0 { des0 } else { des1 };
        let (l1, l2) = (des1 & l.tbs1_mask, (des1 >> l.tbs2_shift) & l.tbs2_mask);
        let tch = c & l.tch != 0;
        let buf2 = (!tch && l2 > 0).then_some((u64::from(b2), l2 as usize));
        TxDesc {
            context: false,
            first: c & l.fs != 0,
            last: c & l.ls != 0,
            ic: c & l.ic != 0,
            bufs: [Some((u64::from(b1), l1 as usize)), buf2],
            cic: if self.tx_coe {
                (c >> l.cic_shift) & 3
            } else {
                0
            },
            next: self.next(d, c & l.ter != 0, tch, b2, self.tx_base),
        }
    }

    /// TDES0 with OWN clear: ES on a buffer error; enhanced descriptors keep their control
    /// bits (enh_desc.c: TDES0 holds both), normal ones are all status.
    fn tx_status(&self, des0: u32, _: &TxDesc, error: bool) -> u32 {
        (des0 & self.layout.keep) | if error { TDES0_ES } else { 0 }
    }

    /// Buffer 1 at DES2 with RBS1 bytes, rounded down to the bus width (ST RM0090 RDES1
    /// RBS1: a multiple of the bus width; Linux `stmmac_set_bfsize` keeps sizes aligned);
    /// DIC (RDES1 31) suppresses RI; RER / RCH as for TX.
    fn rx_decode(&self, arena: &SimArena, d: u64, _: u32) -> RxDesc {
        let l = self.layout;
        let w = |o: u64| arena.read_u32(d + o).unwrap_or(0);
        let (des1, buf, des3) = (w(4), w(8), w(12));
        let size = des1 & l.rbs1_mask;
        let size = size - size % self.bus_width.max(1);
        RxDesc {
            buf: u64::from(buf),
            size: size as usize,
            usable: RxUse::Store,
            ioc: des1 & l.dic == 0,
            next: self.next(d, des1 & l.rer != 0, des1 & l.rch != 0, des3, self.rx_base),
        }
    }

    /// RDES0 (descs.h `RDES0_*`): FT, FS on the first, LS with FL (frame + FCS) on the
    /// last, the checksum engine's status, ES | DE when a buffer could not be written; OWN
    /// clear. 3.x has no context descriptors: that write-back writes nothing.
    fn rx_write_back(&self, wb: RxWb<'_>) -> Words {
        let st = |first: bool| RDES0_FT | if first { RDES0_FS } else { 0 };
        let fl = |len: usize| (len as u32 & RDES0_FL_MASK) << RDES0_FL_SHIFT;
        let w = match wb {
            RxWb::Part { first } | RxWb::DescError { first } => st(first),
            RxWb::Released { first, len } => st(first) | fl(len),
            RxWb::Last {
                first,
                frame,
                errors,
                buffer_error,
            } => {
                let coe = rx_offload_status(self.rx_coe, self.csum_es, frame);
                let err = if buffer_error { RDES0_ES | RDES0_DE } else { 0 };
                st(first) | RDES0_LS | fl(frame.len()) | coe | err | errors
            }
            RxWb::Context { .. } => {
                return Words {
                    from: 0,
                    w: [0; 4],
                    n: 0,
                };
            }
        };
        Words::one(0, w)
    }
}

impl<D: MdioDevice> Front for Gmac3Model<D> {
    type Mdio = D;
    type Format = Gmac3Desc;

    fn core(&mut self) -> &mut Engine<D> {
        &mut self.core
    }

    fn format(&self) -> Gmac3Desc {
        Gmac3Desc {
            layout: self.desc_layout(),
            stride: self.stride(),
            tx_base: self.tx_base,
            rx_base: self.rx_base,
            bus_width: self.bus_width,
            tx_coe: self.coe && self.coe_work,
            rx_coe: self.control & m::CONTROL_IPC != 0 && self.coe_work,
            csum_es: self.csum_es,
        }
    }

    /// DMA_STATUS bits (dwmac_dma.h `DMA_STATUS_*`).
    fn raise(&mut self, ev: Ev) {
        self.status |= match ev {
            Ev::TxDone => m::ST_TI,
            Ev::TxUnavailable => m::ST_TU,
            Ev::TxStopped => m::ST_TPS,
            Ev::TxUnderflow => m::ST_UNF,
            Ev::BusError => m::ST_FBI,
            Ev::RxDone => m::ST_RI,
            Ev::RxUnavailable => m::ST_RU,
            Ev::RxStopped => m::ST_RPS,
            Ev::RxMissed => {
                // DMA_MISSED_FRAME_CTR's MFC (dwmac_dma.h `DMA_MISSED_FRAME_M_CNTR`).
                engine::count_field(&mut self.missed, m::MISSED_MFC_MASK, m::MISSED_MFC_OVF);
                0
            }
        };
    }

    /// Whether GMAC_CONTROL matches the attached PHY's link (always, without one).
    fn line_ok(&self, now_ns: u64, tx: bool) -> bool {
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

    fn tx_running(&self) -> bool {
        self.dma_control & m::CONTROL_ST != 0 && !self.core.tx_halted
    }

    fn rx_running(&self) -> bool {
        self.control & m::CONTROL_RE != 0
            && self.dma_control & m::CONTROL_SR != 0
            && !self.core.rx_halted
    }

    fn tx_held(&self) -> bool {
        self.tx_stall
    }

    fn tx_queue_on(&self) -> bool {
        true
    }

    fn rx_fifo(&self) -> bool {
        self.rx_fifo != 0
    }

    /// RIWT × 256 CSR clocks (dwmac_dma.h `DMA_RX_WATCHDOG`; RM0090 ETH_DMARSWTR).
    fn riwt_clocks(&self) -> u64 {
        u64::from(self.riwt) * 256
    }
}

impl<D: MdioDevice> Gmac3Model<D> {
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
        if !Front::rx_running(self) {
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
        if self.rx_fifo != 0 && self.core.rx_fill() + bytes.len() > self.rx_fifo {
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
        let errors = core::mem::take(&mut self.next_error);
        let rx = RxFrame::new(bytes, errors, false, now_ns);
        self.core.rx_queue.push_back(rx);
        walk::deliver(self, now_ns);
        self.flow_check();
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
        let fill = self.core.rx_fill();
        self.core
            .flow_check(cfg, fill, [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]);
    }
}
