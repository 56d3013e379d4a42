//! The QoS 4.x/5.x model's DMA side: its descriptor format for the shared walker
//! ([`QosDesc`]: OWN and the control bits in DES3, the buffer address in DES0/1, the ring
//! length wrap and the tail pointers, the write-back that overwrites RDES0–2), its
//! [`Front`] (status bits, gates, watchdog period), the MTL counters and flow control.

use mdio_bus::sim::MdioDevice;

use super::QosModel;
use super::SimArena;
use super::csum::check_checksums;
use super::engine::{self, Engine, MacLine};
use super::qos::{DM, FES, IPC, PS, RE, RWT_MASK, SR, ST, TE};
use super::qos_map as q;
use super::walk::{DescFormat, Ev, Front, RxDesc, RxUse, RxWb, TxDesc, Words};

/// The QoS descriptors under the current register values (dwmac4_descs.h; RT1170
/// ENET_QOS descriptor formats): 16 bytes plus DSL × the bus width apart, the ring wrapping
/// after DMA_CH0_TX/RX_RING_LENGTH + 1 descriptors (there is no end-of-ring bit), the
/// tail pointers, buffer addresses with their high word only under EAME.
#[derive(Clone, Copy)]
pub(super) struct QosDesc {
    stride: u64,
    tx_base: u64,
    rx_base: u64,
    tx_len: u32,
    rx_len: u32,
    tx_tail: u64,
    rx_tail: u64,
    /// DMA_SYSBUS_MODE.EAME.
    eame: bool,
    /// The core's address bits, as a mask.
    addr_mask: u64,
    /// DMA_CH0_RX_CONTROL.RBSZ rounded down to the bus width.
    rbsz: usize,
    /// The checksum engines exist.
    coe: bool,
    /// MAC_CONFIG.IPC on a COE core.
    ipc: bool,
}

impl QosDesc {
    /// A bus address from (low, high) words: the high word only with EAME, cut to the
    /// core's address bits.
    fn addr(&self, lo: u32, hi: u32) -> u64 {
        if self.eame {
            ((u64::from(hi) << 32) | u64::from(lo)) & self.addr_mask
        } else {
            u64::from(lo)
        }
    }

    /// The descriptor after `d` in a ring at `base` whose RING_LENGTH register holds
    /// `len_reg` (N − 1): the base after the last one.
    fn next(&self, d: u64, base: u64, len_reg: u32) -> u64 {
        let last = base + u64::from(len_reg & 0x3FF) * self.stride;
        if d >= last { base } else { d + self.stride }
    }
}

/// RDES1 of a frame (with FCS) with IPC on: IPv4, payload type, IPHE, IPCE.
fn rx_rdes1(frame: &[u8]) -> u32 {
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

impl DescFormat for QosDesc {
    /// OWN is DES3 bit 31 (dwmac4_descs.h `TDES3_OWN` / `RDES3_OWN`).
    const STATUS_AT: u64 = 12;
    /// A buffer outside the arena, or whose high address bits EAME dropped, is a fatal
    /// bus error (RT1170 DMA_CH0_STATUS FBE; the process stops).
    const BUFFER_FAULT_FATAL: bool = true;

    fn tx_tail(&self) -> Option<u64> {
        Some(self.tx_tail)
    }

    fn rx_tail(&self) -> Option<u64> {
        Some(self.rx_tail)
    }

    /// TDES0/1 buffer 1's address, TDES2 B1L and IOC (on LD), TDES3 CTXT, FD, LD, CIC.
    fn tx_decode(&self, arena: &SimArena, d: u64, des3: u32) -> TxDesc {
        let w = |o: u64| arena.read_u32(d + o).unwrap_or(0);
        let (des0, des1, des2) = (w(0), w(4), w(8));
        let len = (des2 & q::TDES2_B1L_MASK) as usize;
        let last = des3 & q::LD != 0;
        TxDesc {
            context: des3 & q::CTXT != 0,
            first: des3 & q::FD != 0,
            last,
            ic: last && des2 & q::TDES2_IOC != 0,
            bufs: [(len > 0).then_some((self.addr(des0, des1), len)), None],
            cic: if self.coe {
                (des3 >> q::TDES3_CIC_SHIFT) & 3
            } else {
                0
            },
            next: self.next(d, self.tx_base, self.tx_len),
        }
    }

    /// TDES3 with OWN clear and FD/LD kept; a context descriptor keeps all but OWN.
    fn tx_status(&self, des3: u32, desc: &TxDesc, _: bool) -> u32 {
        if desc.context {
            des3 & !super::walk::OWN
        } else {
            des3 & (q::FD | q::LD)
        }
    }

    /// RDES0/1 the buffer address, RDES3 IOC and BUF1V; the size is RBSZ. No BUF1V is a
    /// descriptor error; RBSZ 0 drops the frame (assumptions: the sources are silent).
    fn rx_decode(&self, arena: &SimArena, d: u64, des3: u32) -> RxDesc {
        let w = |o: u64| arena.read_u32(d + o).unwrap_or(0);
        let usable = if self.rbsz == 0 {
            RxUse::NoSize
        } else if des3 & q::RDES3_BUF1V == 0 {
            RxUse::DescError
        } else {
            RxUse::Store
        };
        RxDesc {
            buf: self.addr(w(0), w(4)),
            size: self.rbsz,
            usable,
            ioc: des3 & q::RDES3_IOC != 0,
            next: self.next(d, self.rx_base, self.rx_len),
        }
    }

    /// The write-back format overwrites RDES0–2 (RDES0 the VLAN tag, 0; RDES1 the checksum
    /// status with IPC on; RDES2 0) and RDES3: FD on the first, LD with PL (frame + FCS),
    /// RS1V and the error bits on the last, ES | DE on a descriptor error, CTXT with the
    /// timestamp in RDES0/1 on a context descriptor; OWN clear.
    fn rx_write_back(&self, wb: RxWb<'_>) -> Words {
        let fd = |first: bool| if first { q::FD } else { 0 };
        match wb {
            RxWb::Part { first } | RxWb::Released { first, .. } => Words::all([0, 0, 0, fd(first)]),
            RxWb::DescError { first } => {
                Words::all([0, 0, 0, fd(first) | q::LD | q::RDES3_ES | q::RDES3_DE])
            }
            RxWb::Last {
                first,
                frame,
                errors,
                ..
            } => {
                let rdes1 = if self.ipc { rx_rdes1(frame) } else { 0 };
                let mut rdes3 =
                    fd(first) | q::LD | errors | (frame.len() as u32 & q::RDES3_PL_MASK);
                if self.ipc {
                    rdes3 |= q::RDES3_RS1V;
                }
                Words::all([0, rdes1, 0, rdes3])
            }
            RxWb::Context { ts } => Words::all([ts as u32, (ts >> 32) as u32, 0, q::CTXT]),
        }
    }
}

impl<D: MdioDevice> Front for QosModel<D> {
    type Mdio = D;
    type Format = QosDesc;

    fn core(&mut self) -> &mut Engine<D> {
        &mut self.core
    }

    fn format(&self) -> QosDesc {
        QosDesc {
            stride: self.stride(),
            tx_base: self.tx_base(),
            rx_base: self.rx_base(),
            tx_len: self.tx_ring_len,
            rx_len: self.rx_ring_len,
            tx_tail: self.tx_tail(),
            rx_tail: self.rx_tail(),
            eame: self.eame(),
            addr_mask: self.addr_mask(),
            rbsz: self.rx_buf_size(),
            coe: self.coe,
            ipc: self.mac_config & IPC != 0 && self.coe,
        }
    }

    /// DMA_CH0_STATUS bits (dwmac4_dma.h `DMA_CHAN_STATUS_*`; RT1170 DMA_CH0_STATUS).
    fn raise(&mut self, ev: Ev) {
        self.status |= match ev {
            Ev::TxDone => q::CH_TI,
            Ev::TxUnavailable => q::CH_TBU,
            Ev::TxStopped => q::CH_TPS,
            // The 4.x reports underflow in the MTL, not in the channel status.
            Ev::TxUnderflow | Ev::RxMissed => 0,
            Ev::BusError => q::CH_FBE,
            Ev::RxDone => q::CH_RI,
            Ev::RxUnavailable => q::CH_RBU,
            Ev::RxStopped => q::CH_RPS,
        };
    }

    fn line_ok(&self, now_ns: u64, tx: bool) -> bool {
        let c = self.mac_config;
        let mac = MacLine {
            enabled: c & if tx { TE } else { RE } != 0,
            ps: c & PS != 0,
            fes: c & FES != 0,
            dm: c & DM != 0,
        };
        engine::link_ok(self.core.phy.as_ref(), now_ns, mac)
    }

    fn tx_running(&self) -> bool {
        self.tx_control & ST != 0 && !self.core.tx_halted
    }

    fn rx_running(&self) -> bool {
        self.rx_control & SR != 0 && !self.core.rx_halted
    }

    fn tx_held(&self) -> bool {
        false
    }

    /// MTL_TXQ0_OPERATION_MODE.TXQEN = 2, "enabled" (dwmac4.h `MTL_OP_MODE_TXQEN`).
    fn tx_queue_on(&self) -> bool {
        (self.txq_op >> q::TXQ_TXQEN_SHIFT) & 3 == q::TXQEN_ENABLED
    }

    /// The MTL RX queue holds frames that find no descriptor.
    fn rx_fifo(&self) -> bool {
        true
    }

    /// RWT × 256 << RWTU CSR clocks (RT1170 DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER RWT/RWTU;
    /// RWTU from SNPSVER 0x42 on).
    fn riwt_clocks(&self) -> u64 {
        let unit = if self.snpsver() >= 0x42 {
            256u64 << ((self.rx_watchdog >> q::RWTU_SHIFT) & 3)
        } else {
            256
        };
        u64::from(self.rx_watchdog & RWT_MASK) * unit
    }
}

impl<D: MdioDevice> QosModel<D> {
    pub(super) fn doorbell(&self, ring: super::Ring) {
        let d = match ring {
            super::Ring::Tx => self.core.cur_tx,
            super::Ring::Rx => self.core.cur_rx,
        };
        self.core.note_doorbell(ring, d, d + 12);
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
        let fill = self.core.rx_fill();
        self.core
            .flow_check(cfg, fill, [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]);
    }
}
