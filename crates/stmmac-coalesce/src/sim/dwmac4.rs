//! The DWMAC 4.x/5.x (QoS) model: [`Dwmac4Model`] (its docs say what it models, where it
//! follows the sources and what it assumes) and [`Dwmac4Irq`].

use std::collections::VecDeque;
use std::vec::Vec;

use hwtimer_core::sim::{IrqSource, SimBus, SimModel};
use mdio_bus::sim::MdioDevice;
use mdio_bus::{DevAddr, PhyAddr, RegAddr};
use tock_registers::RegisterLongName;
use tock_registers::fields::Field;

use super::dwmac::{check_checksums, insert_checksums};
use super::{
    AnPhy, DEFAULT_LINE_BPS, Ring, RxWireError, SWR_NS, Seen, SentFrame, SimArena, TxFault, fcs,
};
use crate::phy::{Duplex, Speed};
use crate::regs4::{self as r, chan, desc};

/// MAC_VERSION of a 4.10 core (USERVER 0x30, SNPSVER 0x41): the STM32H7's value and the
/// model's default.
pub const VERSION4_10: u32 = 0x0000_3041;
/// MAC_VERSION of a 4.00 core (NIE/AIE at bits 16/15 of DMA_CH_INTR_ENA).
pub const VERSION4_00: u32 = 0x0000_3040;
/// MAC_VERSION of a 5.10 core (RX watchdog unit RWTU).
pub const VERSION5_10: u32 = 0x0000_3051;
/// MAC_HW_FEATURE0 of the model: MII (0), GMII (1), half duplex (2), VLAN hash (4), SMA
/// (MDIO, 5), MMC (8), timestamps (12), TX (14) and RX (16) checksum offload.
/// [`Dwmac4Model::without_coe`] clears TXCOESEL and RXCOESEL.
pub const HW_FEATURE0_4: u32 = (1 << 0)
    | (1 << 1)
    | (1 << 2)
    | (1 << 4)
    | (1 << 5)
    | (1 << 8)
    | (1 << 12)
    | r::HWF0_TXCOESEL
    | r::HWF0_RXCOESEL;
/// MAC_HW_FEATURE1 of the model: 2 KiB TX and RX FIFOs (log2(bytes / 128) = 4), 32-bit
/// addresses (ADDR64 = 0). [`Dwmac4Model::with_fifo_sizes`] and
/// [`Dwmac4Model::with_addr_bits`] change the fields.
pub const HW_FEATURE1_4: u32 = 4 | (4 << r::HWF1_TXFIFOSIZE_SHIFT);

/// Bits of a field in its register.
const fn bits<R: RegisterLongName>(f: Field<u32, R>) -> u32 {
    f.mask << f.shift
}

const RE: u32 = bits(r::MAC_CONFIG::RE);
const TE: u32 = bits(r::MAC_CONFIG::TE);
const DM: u32 = bits(r::MAC_CONFIG::DM);
const FES: u32 = bits(r::MAC_CONFIG::FES);
const PS: u32 = bits(r::MAC_CONFIG::PS);
const IPC: u32 = bits(r::MAC_CONFIG::IPC);
const PR: u32 = bits(r::MAC_PACKET_FILTER::PR);
const HMC: u32 = bits(r::MAC_PACKET_FILTER::HMC);
const PM: u32 = bits(r::MAC_PACKET_FILTER::PM);
const DBF: u32 = bits(r::MAC_PACKET_FILTER::DBF);
const RA: u32 = bits(r::MAC_PACKET_FILTER::RA);
const GB: u32 = bits(r::MAC_MDIO_ADDRESS::GB);
const C45E: u32 = bits(r::MAC_MDIO_ADDRESS::C45E);
const SWR: u32 = bits(r::DMA_MODE::SWR);
const EAME: u32 = bits(r::DMA_SYSBUS_MODE::EAME);
const ST: u32 = bits(r::DMA_CH_TX_CONTROL::ST);
const SR: u32 = bits(r::DMA_CH_RX_CONTROL::SR);
const RWT_MASK: u32 = bits(r::DMA_CH_RX_WATCHDOG::RWT);
const RWTU_MASK: u32 = bits(r::DMA_CH_RX_WATCHDOG::RWTU);

const O_MAC_CONFIG: usize = r::MAC_CONFIG.offset();
const O_FILTER: usize = r::MAC_PACKET_FILTER.offset();
const O_TX_FLOW: usize = r::MAC_Q0_TX_FLOW_CTRL.offset();
const O_RX_FLOW: usize = r::MAC_RX_FLOW_CTRL.offset();
const O_HT0: usize = r::MAC_HASH_TAB0.offset();
const O_HT1: usize = r::MAC_HASH_TAB1.offset();
const O_RXQ_CTRL0: usize = r::MAC_RXQ_CTRL0.offset();
const O_VERSION: usize = r::MAC_VERSION.offset();
const O_HWF0: usize = r::MAC_HW_FEATURE0.offset();
const O_HWF1: usize = r::MAC_HW_FEATURE1.offset();
const O_HWF2: usize = r::MAC_HW_FEATURE2.offset();
const O_HWF3: usize = r::MAC_HW_FEATURE3.offset();
const O_MDIO_ADDR: usize = r::MAC_MDIO_ADDRESS.offset();
const O_MDIO_DATA: usize = r::MAC_MDIO_DATA.offset();
const O_ADDR_HI: usize = r::MAC_ADDR0_HIGH.offset();
const O_ADDR_LO: usize = r::MAC_ADDR0_LOW.offset();
const O_MMC_CONTROL: usize = r::MMC_CONTROL.offset();
const O_MMC_RX_MASK: usize = r::MMC_RX_INTR_MASK.offset();
const O_MMC_TX_MASK: usize = r::MMC_TX_INTR_MASK.offset();
const O_MMC_IPC_MASK: usize = r::MMC_IPC_RX_INTR_MASK.offset();
const O_MTL_OP: usize = r::MTL_OPERATION_MODE.offset();
const O_MTL_MAP0: usize = r::MTL_RXQ_DMA_MAP0.offset();
const O_TXQ_OP: usize = r::MTL_TXQ0_OP_MODE.offset();
const O_RXQ_OP: usize = r::MTL_RXQ0_OP_MODE.offset();
const O_DMA_MODE: usize = r::DMA_MODE.offset();
const O_SYSBUS: usize = r::DMA_SYSBUS_MODE.offset();
const O_DMA_STATUS: usize = r::DMA_STATUS.offset();
const O_CH_CONTROL: usize = r::DMA_CH0_CONTROL.offset();
const O_TX_CONTROL: usize = r::DMA_CH0_TX_CONTROL.offset();
const O_RX_CONTROL: usize = r::DMA_CH0_RX_CONTROL.offset();
const O_TX_BASE_HI: usize = r::DMA_CH0_TX_BASE_HI.offset();
const O_TX_BASE_LO: usize = r::DMA_CH0_TX_BASE_LO.offset();
const O_RX_BASE_HI: usize = r::DMA_CH0_RX_BASE_HI.offset();
const O_RX_BASE_LO: usize = r::DMA_CH0_RX_BASE_LO.offset();
const O_TX_TAIL: usize = r::DMA_CH0_TX_TAIL.offset();
const O_RX_TAIL: usize = r::DMA_CH0_RX_TAIL.offset();
const O_TX_RING_LEN: usize = r::DMA_CH0_TX_RING_LEN.offset();
const O_RX_RING_LEN: usize = r::DMA_CH0_RX_RING_LEN.offset();
const O_INTR_ENA: usize = r::DMA_CH0_INTR_ENA.offset();
const O_RX_WATCHDOG: usize = r::DMA_CH0_RX_WATCHDOG.offset();
const O_CUR_TX: usize = r::DMA_CH0_CUR_TX_DESC.offset();
const O_CUR_RX: usize = r::DMA_CH0_CUR_RX_DESC.offset();
const O_CH_STATUS: usize = r::DMA_CH0_STATUS.offset();
const O_MISSED: usize = r::DMA_CH0_MISSED.offset();

/// NIS sources (TI, TBU, RI, ERI).
const NORMAL: u32 = chan::TI | chan::TBU | chan::RI | chan::ERI;
/// AIS sources (TPS, RBU, RPS, RWT, ETI, FBE, CDE).
const ABNORMAL: u32 =
    chan::TPS | chan::RBU | chan::RPS | chan::RWT | chan::ETI | chan::FBE | chan::CDE;
/// The writable bits of DMA_CH_INTR_ENA (the sources, and both versions' NIE/AIE).
const INTR_ENA_MASK: u32 = 0x1_FFC7;

/// RDES1 write-back: IPv4 header present (Linux `RDES1_IPV4_HEADER`).
const RDES1_IPV4: u32 = 1 << 4;
/// RDES1 write-back payload type (bits 2:0): UDP 1, TCP 2, ICMP 3 (Linux
/// `RDES1_PTP_MSG_TYPE`'s neighbour, `RDES1_IP_PAYLOAD_TYPE_MASK`).
const RDES1_PT_MASK: u32 = 0x7;

/// A frame in the RX queue or on its way into descriptors.
struct RxFrame {
    /// Frame plus FCS.
    bytes: Vec<u8>,
    /// Bytes already stored.
    done: usize,
    /// RDES3 error bits to report on its LD descriptor.
    errors: u32,
    /// A context descriptor (timestamp) follows it.
    context: bool,
    /// When it arrived (the timestamp).
    at_ns: u64,
}

/// A TX descriptor the lagging DMA fetched and has not written back yet.
struct TxInFlight {
    desc: u64,
    due_ns: u64,
    des3: u32,
    ioc: bool,
    frame: Option<Vec<u8>>,
}

/// The behavioural DWMAC 4.x/5.x (QoS, "EQOS") in virtual time.
///
/// The whole block is one [`SimModel`]: the MAC at 0x0000, the MTL at 0x0C00, the DMA at
/// 0x1000 and DMA channel 0 at 0x1100 (one queue, one channel). Offsets and bit positions
/// are [`regs4`](crate::regs4)'s (Linux's `dwmac4.h`, `dwmac4_dma.h`, `dwmac4_descs.h` and
/// ST's RM0433 register description for the STM32H7, checked against its SVD); the DMA
/// walks the descriptors the driver wrote in a [`SimArena`], which may have bus addresses
/// above 4 GiB ([`SimArena::wide`]). It behaves as the block does, not as the driver
/// expects, so a driver that gets a 4.x rule wrong fails on it:
///
/// - **Queues**: a received frame passes only while MAC_RXQ_CTRL0.RXQ0EN is 1 (AV) or 2
///   (generic); otherwise every frame is dropped even with MAC_CONFIG.RE set
///   ([`Dwmac4Model::rx_dropped_mtl`]). TX frames leave only while
///   MTL_TXQ0_OPERATION_MODE.TXQEN is 2: otherwise the DMA stops at the first owned
///   descriptor, which stays owned (a stalled FIFO, [`Dwmac4Model::tx_stalled`]), and goes
///   on when TXQEN becomes 2. The RX queue holds (RQS + 1) × 256 bytes (reset: the whole
///   RX FIFO, [`Dwmac4Model::with_fifo_sizes`]): a longer frame is dropped
///   ([`Dwmac4Model::rx_overflow`]); frames waiting for descriptors beyond that size are
///   missed (DMA_CH0_MISSED_FRAME_COUNT and [`Dwmac4Model::rx_missed`]).
/// - **TX**: DMA_CH0_TX_CONTROL.ST starts the process at the list base; it processes the
///   descriptor at the current address only while that differs from the tail pointer (full
///   bus address). A write to DMA_CH0_TXDESC_TAIL_POINTER is the doorbell. TDES0/1 hold
///   buffer 1's address (TDES1 only with EAME), TDES2 B1L and IOC, TDES3 OWN, CTXT, FD, LD,
///   CIC and FL; FD…LD assemble one frame ([`SentFrame`]). Write-back: TDES3 with OWN
///   clear, FD/LD kept, ES on error; TI when the LD descriptor had IOC. A descriptor with
///   CTXT (which a plain driver never writes) is skipped: only OWN is cleared. The ring
///   wraps after descriptor RING_LEN (the register holds N − 1): there is no end-of-ring
///   bit. A descriptor not owned raises TBU and suspends the process; reaching the tail
///   suspends it without TBU. An access outside the arena, or one whose high address bits
///   were dropped because DMA_SYSBUS_MODE.EAME is off, is a fatal bus error: FBE and TPS,
///   and the process stays stopped until ST is cleared and set again. Sending is instant
///   unless [`Dwmac4Model::with_tx_lag`] (as the 3.x model's).
/// - **RX**: [`Dwmac4Model::inject`] (frame without FCS; the model appends it and counts
///   it in PL) passes RXQ0EN, the address filter and the RX queue, then fills DMA-owned
///   descriptors from the current one while that is not the tail (the descriptor at the
///   tail is never written). The buffer size is DMA_CH0_RX_CONTROL.RBSZ (bytes, rounded
///   down to the bus width); RDES0/1 hold the buffer address (RDES1 only with EAME), RDES3
///   OWN, IOC and BUF1V. A frame longer than a buffer spills across descriptors. The
///   write-back **overwrites RDES0–2** (RDES0 = 0, the VLAN tag; RDES1 = the checksum
///   engine's status with IPC on; RDES2 = 0) and RDES3 = FD on the first, LD with PL
///   (frame + FCS) on the last (PL 0 on the others), RS1V when RDES1 holds status, the
///   error bits with ES, CTXT and OWN clear. RI when the LD descriptor had IOC; without IOC
///   and RIWT ≠ 0, RI when the watchdog expires: RIWT × 256 CSR clocks after the first
///   frame without IOC, the unit 256 << RWTU from SNPSVER 0x42 on (RWTU reads 0 and is
///   ignored before). No descriptor for a frame (not owned, or at the tail): RBU, the
///   process suspends and the frame waits in the RX queue until a write to
///   DMA_CH0_RXDESC_TAIL_POINTER. With timestamps on ([`Dwmac4Model::with_timestamps`],
///   [`Dwmac4Model::inject_context`]) a context descriptor follows the frame's LD
///   descriptor: RDES0/1 the timestamp (virtual ns: low, high), RDES3 = CTXT.
/// - **Filter**: as the 3.x model: PR / RA pass all; broadcast unless DBF; multicast with
///   PM or through the 64-bin hash (HT0 bins 0–31, HT1 32–63) with HMC; unicast only to
///   MAC address 0 (AE).
/// - **Line** ([`Dwmac4Model::with_phy`]): with an [`AnPhy`], frames pass only while
///   MAC_CONFIG's TE/RE, PS/FES and DM match the negotiated link.
/// - **CH0_STATUS**: write-1-to-clear on [`chan::W1C`]; NIS = TI | TBU | RI | ERI raised
///   and enabled; AIS = TPS | RBU | RPS | RWT | ETI | FBE | CDE raised and enabled (RM0433;
///   Linux counts RBU under AIS too). The interrupt line is NIS with NIE or AIS with AIE,
///   at the version's enable positions: NIE 15 / AIE 14 from 4.10 on, NIE 16 / AIE 15 on
///   4.00 (so 4.10 enables on a 4.00 core give no TI interrupt). DMA_STATUS.DC0IS
///   follows the line.
/// - **MDIO**: MAC_MDIO_ADDRESS with GB starts a frame on the [`MdioDevice`] (Clause 22:
///   PA, RDA; GOC 1 write, 3 read); GB clears one frame time later (MDC = CSR clock / the
///   CR divider, the 3.x table), or never when [stuck](Dwmac4Model::set_mdio_stuck). A
///   C45E access is two frames on the device, one frame time apart: the address frame
///   ([`MdioDevice::c45_address`] with MAC_MDIO_DATA.RA, the MMD from RDA), then GOC 1 a
///   write frame of GD, 3 a read frame, 2 a post-read-increment-address read frame, whose
///   data lands in GD; GB clears after both, and each access is counted
///   ([`Dwmac4Model::mdio_c45_frames`]). GOC 0 on Clause 45 counts as a write (as on
///   Clause 22, an assumption).
/// - **Reset**: DMA_MODE.SWR resets every register and self-clears after [`SWR_NS`] (or
///   never, [`Dwmac4Model::set_swr_stuck`]).
///
/// Assumptions where the sources are silent: MTL_TXQ0/RXQ0 TQS/RQS are writable and reset
/// to the FIFO sizes, TXQEN resets to 0 (multi-queue cores; the STM32H7 hardwires it to 2,
/// Linux always writes it); a descriptor with OWN but without BUF1V is closed with
/// ES | DE (bit 19) and its frame dropped ([`Dwmac4Model::rx_desc_errors`]); RBSZ 0 stores
/// nothing and drops the frame as an overflow; GOC 0 and 2 on Clause 22 count as write and
/// read; a faulted TX process keeps its descriptors owned; stopping RX (SR cleared)
/// abandons a frame waiting for descriptors; the watchdog restarts when an IOC frame
/// raises RI; RxWireError::Length sets nothing (RDES3 has no length-error bit).
pub struct Dwmac4Model<D: MdioDevice> {
    arena: SimArena,
    mdio: D,
    csr_hz: u32,
    version: u32,
    addr_bits: u32,
    coe: bool,
    bus_width: u32,
    tx_fifo: u32,
    rx_fifo: u32,
    phy: Option<AnPhy>,
    timestamps: bool,
    tx_lag_ns: u64,
    line_bps: u64,
    swr_ns: u64,
    // Registers.
    mac_config: u32,
    filter: u32,
    flow: [u32; 2],
    hash: [u32; 2],
    rxq_ctrl0: u32,
    mdio_addr: u32,
    mdio_data: u32,
    addr_hi: u32,
    addr_lo: u32,
    mmc_control: u32,
    mmc_mask: [u32; 3],
    mtl_op: u32,
    mtl_map0: u32,
    txq_op: u32,
    rxq_op: u32,
    dma_mode: u32,
    sysbus: u32,
    ch_control: u32,
    tx_control: u32,
    rx_control: u32,
    tx_base: [u32; 2],
    rx_base: [u32; 2],
    tx_tail: u32,
    rx_tail: u32,
    tx_ring_len: u32,
    rx_ring_len: u32,
    intr_ena: u32,
    rx_watchdog: u32,
    status: u32,
    missed: u32,
    // DMA state.
    cur_tx: u64,
    cur_rx: u64,
    tx_halted: bool,
    rx_halted: bool,
    tx_fault: Option<TxFault>,
    partial: Vec<u8>,
    tx_inflight: VecDeque<TxInFlight>,
    tx_wire_free_ns: u64,
    rx_queue: VecDeque<RxFrame>,
    rx_cur: Option<RxFrame>,
    /// A context descriptor is owed (after the last frame's LD descriptor).
    ctx_pending: Option<u64>,
    riwt_at: Option<u64>,
    mdio_busy_until: u64,
    mdio_stuck: bool,
    swr_until: u64,
    swr_stuck: bool,
    next_error: u32,
    next_runt: bool,
    next_context: bool,
    // Observations.
    sent: Vec<SentFrame>,
    tx_stalled: u64,
    rx_dropped: u64,
    rx_dropped_mtl: u64,
    rx_filtered: u64,
    rx_delivered: u64,
    rx_overflow: u64,
    rx_missed: u64,
    rx_desc_errors: u64,
    rx_contexts: u64,
    line_mismatch: u64,
    mdio_frames: u64,
    mdio_c45_frames: u64,
}

impl<D: MdioDevice> Dwmac4Model<D> {
    /// A 4.10 core ([`VERSION4_10`]) whose DMA sees `arena`, with `mdio` on its MDIO bus,
    /// clocked at `csr_hz`: 32-bit addresses, checksum offload, an 8-byte (AXI) bus, 2 KiB
    /// FIFOs, no TX lag, no line check, no timestamps.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        let mut m = Self {
            arena,
            mdio,
            csr_hz,
            version: VERSION4_10,
            addr_bits: 32,
            coe: true,
            bus_width: 8,
            tx_fifo: 2048,
            rx_fifo: 2048,
            phy: None,
            timestamps: false,
            tx_lag_ns: 0,
            line_bps: DEFAULT_LINE_BPS,
            swr_ns: SWR_NS,
            mac_config: 0,
            filter: 0,
            flow: [0; 2],
            hash: [0; 2],
            rxq_ctrl0: 0,
            mdio_addr: 0,
            mdio_data: 0,
            addr_hi: 0,
            addr_lo: 0,
            mmc_control: 0,
            mmc_mask: [0; 3],
            mtl_op: 0,
            mtl_map0: 0,
            txq_op: 0,
            rxq_op: 0,
            dma_mode: 0,
            sysbus: 0,
            ch_control: 0,
            tx_control: 0,
            rx_control: 0,
            tx_base: [0; 2],
            rx_base: [0; 2],
            tx_tail: 0,
            rx_tail: 0,
            tx_ring_len: 0,
            rx_ring_len: 0,
            intr_ena: 0,
            rx_watchdog: 0,
            status: 0,
            missed: 0,
            cur_tx: 0,
            cur_rx: 0,
            tx_halted: false,
            rx_halted: false,
            tx_fault: None,
            partial: Vec::new(),
            tx_inflight: VecDeque::new(),
            tx_wire_free_ns: 0,
            rx_queue: VecDeque::new(),
            rx_cur: None,
            ctx_pending: None,
            riwt_at: None,
            mdio_busy_until: 0,
            mdio_stuck: false,
            swr_until: 0,
            swr_stuck: false,
            next_error: 0,
            next_runt: false,
            next_context: false,
            sent: Vec::new(),
            tx_stalled: 0,
            rx_dropped: 0,
            rx_dropped_mtl: 0,
            rx_filtered: 0,
            rx_delivered: 0,
            rx_overflow: 0,
            rx_missed: 0,
            rx_desc_errors: 0,
            rx_contexts: 0,
            line_mismatch: 0,
            mdio_frames: 0,
            mdio_c45_frames: 0,
        };
        m.reset();
        m
    }

    /// MAC_VERSION (SNPSVER bits 7:0, USERVER 15:8); default [`VERSION4_10`]. SNPSVER
    /// decides the NIE/AIE enable positions (4.00: 16/15) and whether RWTU exists (0x42+).
    pub fn with_version(mut self, version: u32) -> Self {
        self.version = version & 0xFFFF;
        self
    }

    /// Address bits of the DMA: 32 (default), 40 or 48 (HW_FEATURE1.ADDR64 0, 1, 2; other
    /// values count as 32). Addresses above them are cut off, even with EAME.
    pub fn with_addr_bits(mut self, bits: u32) -> Self {
        self.addr_bits = match bits {
            40 | 48 => bits,
            _ => 32,
        };
        self
    }

    /// A core without the checksum engines: HW_FEATURE0 TXCOESEL/RXCOESEL read 0,
    /// MAC_CONFIG.IPC reads back 0 and CIC is ignored.
    pub fn without_coe(mut self) -> Self {
        self.coe = false;
        self.mac_config &= !IPC;
        self
    }

    /// The DMA bus width in bytes (the unit of DMA_CH_CONTROL.DSL and of RBSZ's rounding;
    /// default 8, a 64-bit AXI bus).
    pub fn with_bus_width(mut self, bytes: u32) -> Self {
        self.bus_width = bytes.max(1);
        self
    }

    /// TX and RX FIFO sizes in bytes (powers of two from 128; default 2048 each):
    /// HW_FEATURE1 TXFIFOSIZE/RXFIFOSIZE, and the reset TQS/RQS.
    pub fn with_fifo_sizes(mut self, tx: u32, rx: u32) -> Self {
        self.tx_fifo = tx.clamp(256, 1 << 17).next_power_of_two();
        self.rx_fifo = rx.clamp(256, 1 << 17).next_power_of_two();
        self.txq_op = self.txq_op_reset();
        self.rxq_op = self.rxq_op_reset();
        self
    }

    /// A TX DMA that lags the CPU by `lag_ns`, as the 3.x model's
    /// [`with_tx_lag`](super::DwmacModel::with_tx_lag): a walk fetches every descriptor it
    /// may at once, each written back at `max(fetch + lag, previous due)` plus its wire
    /// time at the [line rate](Self::with_line_rate); TI at that time. 0 (default) is
    /// instant.
    pub fn with_tx_lag(mut self, lag_ns: u64) -> Self {
        self.tx_lag_ns = lag_ns;
        self
    }

    /// The line rate for the lagging DMA's wire time, bit/s (default 1 Gbit/s).
    pub fn with_line_rate(mut self, bits_per_s: u64) -> Self {
        self.line_bps = bits_per_s;
        self
    }

    /// Check frames against the link `phy` negotiated (see the [type docs](Dwmac4Model)).
    pub fn with_phy(mut self, phy: AnPhy) -> Self {
        self.phy = Some(phy);
        self
    }

    /// Write a context descriptor (timestamp) after every received frame.
    pub fn with_timestamps(mut self, on: bool) -> Self {
        self.timestamps = on;
        self
    }

    /// A reset that takes `ns` of virtual time (default [`SWR_NS`]).
    pub fn with_reset_time(mut self, ns: u64) -> Self {
        self.swr_ns = ns;
        self
    }

    /// The next injected frame is followed by a context descriptor (as with
    /// [`with_timestamps`](Self::with_timestamps), for one frame); `now_ns` applies time
    /// first.
    pub fn inject_context(&mut self, now_ns: u64) {
        self.sync(now_ns);
        self.next_context = true;
    }

    /// Frames sent so far.
    pub fn sent(&self) -> &[SentFrame] {
        &self.sent
    }

    /// Forget the sent frames.
    pub fn clear_sent(&mut self) {
        self.sent.clear();
    }

    /// TX walks that found an owned descriptor but could not send because
    /// MTL_TXQ0_OPERATION_MODE.TXQEN was not 2 (each doorbell or ST write counts once).
    pub fn tx_stalled(&self) -> u64 {
        self.tx_stalled
    }

    /// Frames dropped because MAC_CONFIG.RE was clear.
    pub fn rx_dropped(&self) -> u64 {
        self.rx_dropped
    }

    /// Frames dropped because MAC_RXQ_CTRL0.RXQ0EN was neither 1 nor 2.
    pub fn rx_dropped_mtl(&self) -> u64 {
        self.rx_dropped_mtl
    }

    /// Frames the address filter dropped.
    pub fn rx_filtered(&self) -> u64 {
        self.rx_filtered
    }

    /// Frames stored completely into RX descriptors.
    pub fn rx_delivered(&self) -> u64 {
        self.rx_delivered
    }

    /// Frames longer than the RX queue (RQS), or RBSZ 0, dropped.
    pub fn rx_overflow(&self) -> u64 {
        self.rx_overflow
    }

    /// Frames missed because the RX queue was full while the DMA had no descriptor.
    pub fn rx_missed(&self) -> u64 {
        self.rx_missed
    }

    /// Descriptors owned without BUF1V (their frames dropped).
    pub fn rx_desc_errors(&self) -> u64 {
        self.rx_desc_errors
    }

    /// Context descriptors written.
    pub fn rx_contexts(&self) -> u64 {
        self.rx_contexts
    }

    /// Frames lost because MAC_CONFIG did not match the PHY's link.
    pub fn line_mismatch(&self) -> u64 {
        self.line_mismatch
    }

    /// MDIO frames performed (a Clause 45 access counts two).
    pub fn mdio_frames(&self) -> u64 {
        self.mdio_frames
    }

    /// Clause 45 accesses (C45E), two frames each (see the [type docs](Dwmac4Model)).
    pub fn mdio_c45_frames(&self) -> u64 {
        self.mdio_c45_frames
    }

    /// The MDIO device.
    pub fn mdio_device(&mut self) -> &mut D {
        &mut self.mdio
    }

    /// Keep MAC_MDIO_ADDRESS.GB set forever (fault injection).
    pub fn set_mdio_stuck(&mut self, stuck: bool) {
        self.mdio_stuck = stuck;
    }

    /// Keep DMA_MODE.SWR set forever (fault injection: no PHY clock).
    pub fn set_swr_stuck(&mut self, stuck: bool) {
        self.swr_stuck = stuck;
    }

    /// The next TX walk that finds a descriptor to process fails with `fault` instead:
    /// TPS (Stop, and Underflow, which the 4.x reports in the MTL), or FBE | TPS | RPS
    /// (BusError: both processes stop).
    pub fn fail_tx(&mut self, fault: TxFault) {
        self.tx_fault = Some(fault);
    }

    /// Raw DMA_CH0_STATUS bits as raised (without the summaries), after applying time.
    pub fn raw_status(&mut self, now_ns: u64) -> u32 {
        self.sync(now_ns);
        self.status
    }

    /// When the RX watchdog will raise RI, if armed.
    pub fn riwt_deadline(&self) -> Option<u64> {
        self.riwt_at
    }

    /// TX descriptors fetched and not yet written back (0 without a lag).
    pub fn tx_in_flight(&self) -> usize {
        self.tx_inflight.len()
    }

    /// When the oldest TX descriptor in flight is written back, if one is.
    pub fn tx_next_due(&self) -> Option<u64> {
        self.tx_inflight.front().map(|e| e.due_ns)
    }

    /// The next time something happens by time alone: the RX watchdog or a TX write-back.
    pub fn next_event_ns(&self) -> Option<u64> {
        let tx = self.tx_inflight.front().map(|e| e.due_ns);
        match (self.riwt_at, tx) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the channel's interrupt line is asserted.
    pub fn irq_pending(&mut self, now_ns: u64) -> bool {
        self.sync(now_ns);
        self.line()
    }

    /// MAC_Q0_TX_FLOW_CTRL and MAC_RX_FLOW_CTRL as written (stored, not acted on: the
    /// model sends and honours no pause frames).
    pub fn flow_ctrl(&self) -> [u32; 2] {
        self.flow
    }

    /// MAC_CONFIG as written.
    pub fn mac_config(&self) -> u32 {
        self.mac_config
    }

    /// The DMA's current TX descriptor, full bus address.
    pub fn cur_tx(&self) -> u64 {
        self.cur_tx
    }

    /// The DMA's current RX descriptor, full bus address.
    pub fn cur_rx(&self) -> u64 {
        self.cur_rx
    }

    /// Apply what time alone does up to `now_ns`: the RX watchdog raises RI, the lagging
    /// TX DMA writes back what is due. Every register access and injection do this first.
    pub fn sync(&mut self, now_ns: u64) {
        if let Some(at) = self.riwt_at
            && now_ns >= at
        {
            self.status |= chan::RI;
            self.riwt_at = None;
        }
        for _ in 0..(1 << 20) {
            match self.tx_inflight.front() {
                Some(e) if e.due_ns <= now_ns => {}
                _ => break,
            }
            let Some(e) = self.tx_inflight.pop_front() else {
                break;
            };
            let at = e.due_ns;
            self.tx_close(at, e);
            self.tx_walk(at, false);
        }
    }

    /// A frame arrives from the wire at `now_ns` (without FCS; the model pads it to 60
    /// bytes and appends the FCS); see the [type docs](Dwmac4Model).
    pub fn inject(&mut self, now_ns: u64, frame: &[u8]) {
        self.sync(now_ns);
        let errors = core::mem::take(&mut self.next_error);
        let runt = core::mem::take(&mut self.next_runt);
        let context = core::mem::take(&mut self.next_context) || self.timestamps;
        if self.mac_config & RE == 0 {
            self.rx_dropped += 1;
            return;
        }
        let q = self.rxq_ctrl0 & r::RXQ0EN_MASK;
        if q != 1 && q != r::RXQ0EN_DCB {
            self.rx_dropped_mtl += 1;
            return;
        }
        if !self.line_ok(now_ns, false) {
            self.line_mismatch += 1;
            return;
        }
        if !self.accepts(frame) {
            self.rx_filtered += 1;
            return;
        }
        let mut bytes = frame.to_vec();
        if !runt && bytes.len() < crate::rx::MIN_FRAME {
            bytes.resize(crate::rx::MIN_FRAME, 0);
        }
        bytes.extend_from_slice(&fcs(&bytes).to_le_bytes());
        let cap = self.rx_queue_bytes() as usize;
        if bytes.len() > cap {
            self.rx_overflow += 1;
            return;
        }
        let queued: usize = self.rx_queue.iter().map(|f| f.bytes.len()).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |f| f.bytes.len() - f.done);
        if queued + bytes.len() > cap {
            self.rx_missed += 1;
            self.missed = (self.missed + 1) & 0x7FF;
            return;
        }
        self.rx_queue.push_back(RxFrame {
            bytes,
            done: 0,
            errors,
            context,
            at_ns: now_ns,
        });
        self.deliver(now_ns);
    }

    /// Deliver `frame` as [`inject`](Self::inject) does, with `error` in its LD
    /// descriptor's RDES3 (CRC: CE; Dribble: DE (bit 19) | CE; Mii: RE; Overflow: OE;
    /// Watchdog: RWT; each with ES; Length: nothing, RDES3 has no such bit).
    pub fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError) {
        let es = desc::RDES3_ES;
        self.next_error = match error {
            RxWireError::Length => 0,
            RxWireError::Mii => es | desc::RDES3_RE,
            RxWireError::Crc => es | desc::RDES3_CE,
            RxWireError::Dribble => es | desc::RDES3_CE | desc::RDES3_DE,
            RxWireError::Overflow => es | desc::RDES3_OE,
            RxWireError::Watchdog => es | desc::RDES3_RWT,
        };
        self.inject(now_ns, frame);
        self.next_error = 0;
    }

    /// Deliver `frame` as [`inject`](Self::inject) does, without padding it (a runt).
    pub fn inject_runt(&mut self, now_ns: u64, frame: &[u8]) {
        self.next_runt = true;
        self.inject(now_ns, frame);
        self.next_runt = false;
    }

    // ---- internals ----

    fn snpsver(&self) -> u32 {
        self.version & 0xFF
    }

    fn addr_mask(&self) -> u64 {
        (1u64 << self.addr_bits) - 1
    }

    fn eame(&self) -> bool {
        self.sysbus & EAME != 0
    }

    /// A bus address from (low, high) words: the high word only with EAME, cut to the
    /// core's address bits.
    fn addr(&self, lo: u32, hi: u32) -> u64 {
        if self.eame() {
            ((u64::from(hi) << 32) | u64::from(lo)) & self.addr_mask()
        } else {
            u64::from(lo)
        }
    }

    fn tx_base(&self) -> u64 {
        self.addr(self.tx_base[1], self.tx_base[0])
    }

    fn rx_base(&self) -> u64 {
        self.addr(self.rx_base[1], self.rx_base[0])
    }

    /// The tail pointers hold the low 32 bits; the high bits are the list base's.
    fn tx_tail(&self) -> u64 {
        self.addr(self.tx_tail, self.tx_base[0])
    }

    fn rx_tail(&self) -> u64 {
        self.addr(self.rx_tail, self.rx_base[0])
    }

    fn stride(&self) -> u64 {
        let dsl = r::DMA_CH_CONTROL::DSL.read(self.ch_control);
        16 + u64::from(dsl) * u64::from(self.bus_width)
    }

    fn next_desc(&self, d: u64, base: u64, len_reg: u32) -> u64 {
        let last = base + u64::from(len_reg & 0x3FF) * self.stride();
        if d >= last { base } else { d + self.stride() }
    }

    fn rx_buf_size(&self) -> usize {
        let b = r::DMA_CH_RX_CONTROL::RBSZ.read(self.rx_control);
        (b - b % self.bus_width) as usize
    }

    fn rx_queue_bytes(&self) -> u32 {
        let rqs = r::MTL_RXQ_OP_MODE::RQS.read(self.rxq_op);
        ((rqs + 1) * 256).min(self.rx_fifo)
    }

    fn txq_op_reset(&self) -> u32 {
        r::MTL_TXQ_OP_MODE::TQS.val(self.tx_fifo / 256 - 1).value
    }

    fn rxq_op_reset(&self) -> u32 {
        r::MTL_RXQ_OP_MODE::RQS.val(self.rx_fifo / 256 - 1).value
    }

    fn hw_feature0(&self) -> u32 {
        if self.coe {
            HW_FEATURE0_4
        } else {
            HW_FEATURE0_4 & !(r::HWF0_TXCOESEL | r::HWF0_RXCOESEL)
        }
    }

    fn hw_feature1(&self) -> u32 {
        let log = |b: u32| (b / 128).trailing_zeros();
        let a = match self.addr_bits {
            40 => 1,
            48 => 2,
            _ => 0,
        };
        (HW_FEATURE1_4 & !(r::HWF1_RXFIFOSIZE_MASK | (0x1F << r::HWF1_TXFIFOSIZE_SHIFT)))
            | log(self.rx_fifo)
            | (log(self.tx_fifo) << r::HWF1_TXFIFOSIZE_SHIFT)
            | (a << r::HWF1_ADDR64_SHIFT)
    }

    /// NIE and AIE at this version's positions.
    fn summary_enables(&self) -> (u32, u32) {
        if self.snpsver() < 0x41 {
            (chan::NIE_4_00, chan::AIE_4_00)
        } else {
            (chan::NIE_4_10, chan::AIE_4_10)
        }
    }

    fn summarised(&self) -> u32 {
        let mut s = self.status & !(chan::NIS | chan::AIS);
        if s & NORMAL & self.intr_ena != 0 {
            s |= chan::NIS;
        }
        if s & ABNORMAL & self.intr_ena != 0 {
            s |= chan::AIS;
        }
        s
    }

    fn line(&self) -> bool {
        let s = self.summarised();
        let (nie, aie) = self.summary_enables();
        s & chan::NIS != 0 && self.intr_ena & nie != 0
            || s & chan::AIS != 0 && self.intr_ena & aie != 0
    }

    fn line_ok(&self, now_ns: u64, tx: bool) -> bool {
        let Some(phy) = &self.phy else {
            return true;
        };
        let l = phy.line(now_ns);
        let c = self.mac_config;
        let enabled = c & if tx { TE } else { RE } != 0;
        let (ps, fes) = (c & PS != 0, c & FES != 0);
        let speed_ok = match l.speed {
            Speed::M1000 => !ps,
            Speed::M100 => ps && fes,
            Speed::M10 => ps && !fes,
        };
        let duplex_ok = (c & DM != 0) == (l.duplex == Duplex::Full);
        l.up && enabled && speed_ok && duplex_ok
    }

    fn accepts(&self, frame: &[u8]) -> bool {
        let ff = self.filter;
        if ff & (PR | RA) != 0 {
            return true;
        }
        let Some(dst) = frame.get(..6) else {
            return false;
        };
        let dst: [u8; 6] = [dst[0], dst[1], dst[2], dst[3], dst[4], dst[5]];
        if dst == [0xFF; 6] {
            return ff & DBF == 0;
        }
        if dst[0] & 1 != 0 {
            if ff & PM != 0 {
                return true;
            }
            if ff & HMC != 0 {
                let n = crate::mac::multicast_hash_bin(dst);
                return self.hash[usize::from(n >> 5)] & (1 << (n & 31)) != 0;
            }
            return false;
        }
        let lo = self.addr_lo.to_le_bytes();
        let hi = self.addr_hi.to_le_bytes();
        self.addr_hi & r::MAC_ADDR_AE != 0 && dst == [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    fn fatal(&mut self, tx: bool) {
        self.status |= chan::FBE | if tx { chan::TPS } else { chan::RPS };
        if tx {
            self.tx_halted = true;
            self.tx_inflight.clear();
            self.tx_wire_free_ns = 0;
        } else {
            self.rx_halted = true;
            self.rx_cur = None;
        }
    }

    fn doorbell(&self, ring: Ring) {
        let d = match ring {
            Ring::Tx => self.cur_tx,
            Ring::Rx => self.cur_rx,
        };
        let des0 = self.arena.read_u32(d + 12).unwrap_or(0);
        self.arena.note(Seen::Doorbell {
            ring,
            desc: d,
            des0,
        });
    }

    fn tx_close(&mut self, at_ns: u64, e: TxInFlight) {
        if let Some(bytes) = e.frame {
            if self.line_ok(at_ns, true) {
                self.sent.push(SentFrame {
                    at_ns,
                    bytes,
                    ic: e.ioc,
                });
            } else {
                self.line_mismatch += 1;
            }
            if e.ioc {
                self.status |= chan::TI;
            }
        }
        self.arena.write_u32(e.desc + 12, e.des3);
    }

    /// Walk the TX ring from the current descriptor; `doorbell`: a tail write or ST set
    /// (counted once for a stall).
    fn tx_walk(&mut self, now_ns: u64, doorbell: bool) {
        if self.tx_control & ST == 0 || self.tx_halted {
            return;
        }
        for _ in 0..65_536 {
            let d = self.cur_tx;
            if d == self.tx_tail() {
                return;
            }
            let Some(des3) = self.arena.read_u32(d + 12) else {
                self.fatal(true);
                return;
            };
            if self.tx_inflight.iter().any(|e| e.desc == d) {
                return;
            }
            if des3 & desc::OWN == 0 {
                if self.tx_inflight.is_empty() {
                    self.status |= chan::TBU;
                }
                return;
            }
            if r::MTL_TXQ_OP_MODE::TXQEN.read(self.txq_op) != r::TXQEN_ENABLED {
                if doorbell {
                    self.tx_stalled += 1;
                }
                return;
            }
            if let Some(f) = self.tx_fault.take() {
                match f {
                    TxFault::Stop | TxFault::Underflow => {
                        self.status |= chan::TPS;
                        self.tx_halted = true;
                        self.tx_inflight.clear();
                    }
                    TxFault::BusError => {
                        self.fatal(true);
                        self.status |= chan::RPS;
                        self.rx_halted = true;
                    }
                }
                return;
            }
            let next = self.next_desc(d, self.tx_base(), self.tx_ring_len);
            if des3 & desc::CTXT != 0 {
                self.arena.write_u32(d + 12, des3 & !desc::OWN);
                self.cur_tx = next;
                continue;
            }
            let w = |o: u64| self.arena.read_u32(d + o).unwrap_or(0);
            let (des0, des1, des2) = (w(0), w(4), w(8));
            let buf = self.addr(des0, des1);
            let len = (des2 & desc::TDES2_B1L_MASK) as usize;
            if des3 & desc::FD != 0 {
                self.partial.clear();
            }
            if len > 0 && !self.arena.read_into(buf, len, &mut self.partial) {
                self.fatal(true);
                return;
            }
            let ld = des3 & desc::LD != 0;
            let frame = ld.then(|| {
                let mut f = core::mem::take(&mut self.partial);
                let cic = (des3 >> desc::TDES3_CIC_SHIFT) & 3;
                if self.coe && cic != 0 {
                    insert_checksums(&mut f, cic);
                }
                f
            });
            let mut e = TxInFlight {
                desc: d,
                due_ns: now_ns,
                des3: des3 & (desc::FD | desc::LD),
                ioc: ld && des2 & desc::TDES2_IOC != 0,
                frame,
            };
            if self.tx_lag_ns == 0 {
                self.tx_close(now_ns, e);
            } else {
                let mut wire = len;
                if let Some(f) = &e.frame {
                    wire += 60usize.saturating_sub(f.len()) + 4 + 20;
                }
                let start = now_ns
                    .saturating_add(self.tx_lag_ns)
                    .max(self.tx_wire_free_ns);
                let ns = (wire as u128 * 8_000_000_000).div_ceil(u128::from(self.line_bps.max(1)));
                e.due_ns = start.saturating_add(u64::try_from(ns).unwrap_or(u64::MAX));
                self.tx_wire_free_ns = e.due_ns;
                self.tx_inflight.push_back(e);
            }
            self.cur_tx = next;
        }
    }

    fn rx_running(&self) -> bool {
        self.rx_control & SR != 0 && !self.rx_halted
    }

    /// A descriptor the RX DMA may use at its current address: `Some(rdes3)`, or `None`
    /// after raising RBU (not owned, or at the tail) or FBE.
    fn rx_take(&mut self) -> Option<u32> {
        let d = self.cur_rx;
        if d == self.rx_tail() {
            self.status |= chan::RBU;
            return None;
        }
        let Some(des3) = self.arena.read_u32(d + 12) else {
            self.fatal(false);
            return None;
        };
        if des3 & desc::OWN == 0 {
            self.status |= chan::RBU;
            return None;
        }
        Some(des3)
    }

    fn rx_write_back(&mut self, d: u64, w: [u32; 4]) -> bool {
        let mut b = [0u8; 16];
        for (i, v) in w.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.arena.write_bytes(d, &b)
    }

    /// RDES1 of a frame (with FCS) with IPC on: IPv4, payload type, IPHE, IPCE.
    fn rx_rdes1(&self, frame: &[u8]) -> u32 {
        let body = frame.get(..frame.len().saturating_sub(4)).unwrap_or(&[]);
        if body.len() < 34 || body[12..14] != [0x08, 0x00] || body[14] >> 4 != 4 {
            return 0;
        }
        let mut v = RDES1_IPV4;
        v |= match body[23] {
            17 => 1,
            6 => 2,
            1 => 3,
            _ => 0,
        } & RDES1_PT_MASK;
        let (ip_bad, l4_bad) = check_checksums(body);
        if ip_bad {
            v |= desc::RDES1_IPHE;
        }
        if l4_bad {
            v |= desc::RDES1_IPCE;
        }
        v
    }

    fn deliver(&mut self, now_ns: u64) {
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
                if !self.rx_write_back(d, [ts as u32, (ts >> 32) as u32, 0, desc::CTXT]) {
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
            if des3 & desc::RDES3_BUF1V == 0 || size == 0 {
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
                let fd = if f.done == 0 { desc::FD } else { 0 };
                if !self.rx_write_back(
                    d,
                    [0, 0, 0, fd | desc::LD | desc::RDES3_ES | desc::RDES3_DE],
                ) {
                    self.fatal(false);
                    return;
                }
                continue;
            }
            let w = |o: u64| self.arena.read_u32(d + o).unwrap_or(0);
            let buf = self.addr(w(0), w(4));
            let ipc = self.mac_config & IPC != 0 && self.coe;
            let Some(f) = self.rx_cur.as_mut() else {
                return;
            };
            let first = f.done == 0;
            let n = (f.bytes.len() - f.done).min(size);
            if !self.arena.write_bytes(buf, &f.bytes[f.done..f.done + n]) {
                self.fatal(false);
                return;
            }
            f.done += n;
            self.cur_rx = next;
            let fd = if first { desc::FD } else { 0 };
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
            let mut rdes3 = fd | desc::LD | f.errors | (f.bytes.len() as u32 & desc::RDES3_PL_MASK);
            if ipc {
                rdes3 |= desc::RDES3_RS1V;
            }
            if !self.rx_write_back(d, [0, rdes1, 0, rdes3]) {
                self.fatal(false);
                return;
            }
            self.rx_delivered += 1;
            if f.context {
                self.ctx_pending = Some(f.at_ns);
            }
            if des3 & desc::RDES3_IOC != 0 {
                self.status |= chan::RI;
                self.riwt_at = None;
            } else if self.rx_watchdog & RWT_MASK != 0 && self.riwt_at.is_none() {
                let unit = if self.snpsver() >= 0x42 {
                    256u64 << r::DMA_CH_RX_WATCHDOG::RWTU.read(self.rx_watchdog)
                } else {
                    256
                };
                let clocks = u64::from(self.rx_watchdog & RWT_MASK) * unit;
                let ns = clocks * 1_000_000_000 / u64::from(self.csr_hz.max(1));
                self.riwt_at = Some(now_ns.saturating_add(ns));
            }
        }
    }

    fn mdio_start(&mut self, now_ns: u64, value: u32) {
        self.mdio_addr = value;
        let cr = r::MAC_MDIO_ADDRESS::CR.read(value);
        let div = crate::regs::cr_divider(cr).unwrap_or(42);
        let frame = mdio_bus::frame_ns((self.csr_hz / div).max(1));
        let goc = r::MAC_MDIO_ADDRESS::GOC.read(value);
        let read = goc & 2 != 0;
        if value & C45E != 0 {
            // Address frame (MAC_MDIO_DATA.RA into the MMD's address register), then the
            // data frame: GOC 1 write (GD), 3 read, 2 post-read-increment-address read.
            let addr_done = now_ns.saturating_add(frame);
            let done = addr_done.saturating_add(frame);
            self.mdio_busy_until = done;
            self.mdio_frames += 2;
            self.mdio_c45_frames += 1;
            let phy = PhyAddr::from_bits(r::MAC_MDIO_ADDRESS::PA.read(value) as u8);
            let devad = DevAddr::from_bits(r::MAC_MDIO_ADDRESS::RDA.read(value) as u8);
            let ra = (self.mdio_data >> 16) as u16;
            self.mdio.c45_address(addr_done, phy, devad, ra);
            let v = match goc {
                1 | 0 => {
                    self.mdio
                        .c45_write(done, phy, devad, (self.mdio_data & 0xFFFF) as u16);
                    return;
                }
                2 => self.mdio.c45_read_inc(done, phy, devad),
                _ => self.mdio.c45_read(done, phy, devad),
            };
            self.mdio_data = (self.mdio_data & 0xFFFF_0000) | u32::from(v);
            return;
        }
        let done = now_ns.saturating_add(frame);
        self.mdio_busy_until = done;
        self.mdio_frames += 1;
        let phy = PhyAddr::from_bits(r::MAC_MDIO_ADDRESS::PA.read(value) as u8);
        let reg = RegAddr::from_bits(r::MAC_MDIO_ADDRESS::RDA.read(value) as u8);
        if read {
            let v = self.mdio.read(done, phy, reg);
            self.mdio_data = (self.mdio_data & 0xFFFF_0000) | u32::from(v);
        } else {
            self.mdio
                .write(done, phy, reg, (self.mdio_data & 0xFFFF) as u16);
        }
    }

    fn reset(&mut self) {
        self.mac_config = 0;
        self.filter = 0;
        self.flow = [0; 2];
        self.hash = [0; 2];
        self.rxq_ctrl0 = 0;
        self.mdio_addr = 0;
        self.mdio_data = 0;
        self.addr_hi = r::MAC_ADDR_AE | 0xFFFF;
        self.addr_lo = 0xFFFF_FFFF;
        self.mmc_control = 0;
        self.mmc_mask = [0; 3];
        self.mtl_op = 0;
        self.mtl_map0 = 0;
        self.txq_op = self.txq_op_reset();
        self.rxq_op = self.rxq_op_reset();
        self.dma_mode = 0;
        self.sysbus = 0;
        self.ch_control = 0;
        self.tx_control = 0;
        self.rx_control = 0;
        self.tx_base = [0; 2];
        self.rx_base = [0; 2];
        self.tx_tail = 0;
        self.rx_tail = 0;
        self.tx_ring_len = 0;
        self.rx_ring_len = 0;
        self.intr_ena = 0;
        self.rx_watchdog = 0;
        self.status = 0;
        self.missed = 0;
        self.cur_tx = 0;
        self.cur_rx = 0;
        self.tx_halted = false;
        self.rx_halted = false;
        self.partial.clear();
        self.tx_inflight.clear();
        self.tx_wire_free_ns = 0;
        self.rx_queue.clear();
        self.rx_cur = None;
        self.ctx_pending = None;
        self.riwt_at = None;
    }
}

/// What the model does by time alone, as an [`IrqSource`] (like
/// [`DwmacIrq`](super::DwmacIrq)): `advance_to_next` moves the bus's clock to the earlier of
/// the RX watchdog's deadline and the next lagging TX write-back, applies it
/// ([`Dwmac4Model::sync`]) and returns that time; `None` when neither is pending.
#[derive(Clone, Copy)]
pub struct Dwmac4Irq<'a, D: MdioDevice>(pub &'a SimBus<Dwmac4Model<D>>);

impl<D: MdioDevice> IrqSource for Dwmac4Irq<'_, D> {
    fn advance_to_next(&mut self) -> Option<u64> {
        let at = self.0.model(|m| m.next_event_ns())?;
        self.0.clock().advance_to(at);
        self.0.model(|m| m.sync(at));
        Some(at)
    }
}

impl<D: MdioDevice> SimModel for Dwmac4Model<D> {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.sync(now_ns);
        match offset {
            O_MAC_CONFIG => self.mac_config,
            O_FILTER => self.filter,
            O_TX_FLOW => self.flow[0],
            O_RX_FLOW => self.flow[1],
            O_HT0 => self.hash[0],
            O_HT1 => self.hash[1],
            O_RXQ_CTRL0 => self.rxq_ctrl0,
            O_VERSION => self.version,
            O_HWF0 => self.hw_feature0(),
            O_HWF1 => self.hw_feature1(),
            O_HWF2 | O_HWF3 => 0,
            O_MDIO_ADDR => {
                let busy = self.mdio_stuck || now_ns < self.mdio_busy_until;
                (self.mdio_addr & !GB) | if busy { GB } else { 0 }
            }
            O_MDIO_DATA => self.mdio_data,
            O_ADDR_HI => self.addr_hi,
            O_ADDR_LO => self.addr_lo,
            O_MMC_CONTROL => self.mmc_control,
            O_MMC_RX_MASK => self.mmc_mask[0],
            O_MMC_TX_MASK => self.mmc_mask[1],
            O_MMC_IPC_MASK => self.mmc_mask[2],
            O_MTL_OP => self.mtl_op,
            O_MTL_MAP0 => self.mtl_map0,
            O_TXQ_OP => self.txq_op,
            O_RXQ_OP => self.rxq_op,
            O_DMA_MODE => {
                let busy = self.swr_stuck || now_ns < self.swr_until;
                (self.dma_mode & !SWR) | if busy { SWR } else { 0 }
            }
            O_SYSBUS => self.sysbus,
            O_DMA_STATUS => u32::from(self.line()),
            O_CH_CONTROL => self.ch_control,
            O_TX_CONTROL => self.tx_control,
            O_RX_CONTROL => self.rx_control,
            O_TX_BASE_HI => self.tx_base[0],
            O_TX_BASE_LO => self.tx_base[1],
            O_RX_BASE_HI => self.rx_base[0],
            O_RX_BASE_LO => self.rx_base[1],
            O_TX_TAIL => self.tx_tail,
            O_RX_TAIL => self.rx_tail,
            O_TX_RING_LEN => self.tx_ring_len,
            O_RX_RING_LEN => self.rx_ring_len,
            O_INTR_ENA => self.intr_ena,
            O_RX_WATCHDOG => self.rx_watchdog,
            O_CUR_TX => self.cur_tx as u32,
            O_CUR_RX => self.cur_rx as u32,
            O_CH_STATUS => self.summarised(),
            O_MISSED => core::mem::take(&mut self.missed),
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        self.sync(now_ns);
        match offset {
            O_MAC_CONFIG => {
                self.mac_config = if self.coe { value } else { value & !IPC };
                self.deliver(now_ns);
            }
            O_FILTER => self.filter = value,
            O_TX_FLOW => self.flow[0] = value,
            O_RX_FLOW => self.flow[1] = value,
            O_HT0 => self.hash[0] = value,
            O_HT1 => self.hash[1] = value,
            O_RXQ_CTRL0 => self.rxq_ctrl0 = value,
            O_MDIO_ADDR => {
                if self.mdio_stuck || now_ns < self.mdio_busy_until || value & GB == 0 {
                    self.mdio_addr = value & !GB;
                } else {
                    self.mdio_start(now_ns, value);
                }
            }
            O_MDIO_DATA => self.mdio_data = value,
            O_ADDR_HI => self.addr_hi = value | r::MAC_ADDR_AE,
            O_ADDR_LO => self.addr_lo = value,
            O_MMC_CONTROL => self.mmc_control = value,
            O_MMC_RX_MASK => self.mmc_mask[0] = value,
            O_MMC_TX_MASK => self.mmc_mask[1] = value,
            O_MMC_IPC_MASK => self.mmc_mask[2] = value,
            O_MTL_OP => self.mtl_op = value,
            O_MTL_MAP0 => self.mtl_map0 = value,
            O_TXQ_OP => {
                // FTQ self-clears at once (nothing is queued in the MTL in this model).
                self.txq_op = value & !bits(r::MTL_TXQ_OP_MODE::FTQ);
                self.tx_walk(now_ns, false);
            }
            O_RXQ_OP => {
                self.rxq_op = value;
                self.deliver(now_ns);
            }
            O_DMA_MODE => {
                if value & SWR != 0 {
                    self.reset();
                    self.swr_until = now_ns.saturating_add(self.swr_ns);
                } else {
                    self.dma_mode = value;
                }
            }
            O_SYSBUS => self.sysbus = value,
            O_CH_CONTROL => self.ch_control = value,
            O_TX_CONTROL => {
                let was = self.tx_control;
                self.tx_control = value;
                if value & ST != 0 && was & ST == 0 {
                    self.tx_halted = false;
                    self.cur_tx = self.tx_base();
                    self.tx_walk(now_ns, true);
                }
                if value & ST == 0 && was & ST != 0 {
                    self.tx_inflight.clear();
                    self.tx_wire_free_ns = 0;
                }
            }
            O_RX_CONTROL => {
                let was = self.rx_control;
                self.rx_control = value;
                if value & SR != 0 && was & SR == 0 {
                    self.rx_halted = false;
                    self.cur_rx = self.rx_base();
                }
                if value & SR == 0 && was & SR != 0 && self.rx_cur.take().is_some() {
                    self.rx_dropped += 1;
                }
                self.deliver(now_ns);
            }
            O_TX_BASE_HI => self.tx_base[0] = value,
            O_TX_BASE_LO => {
                self.tx_base[1] = value;
                if self.tx_control & ST == 0 {
                    self.cur_tx = self.tx_base();
                }
            }
            O_RX_BASE_HI => self.rx_base[0] = value,
            O_RX_BASE_LO => {
                self.rx_base[1] = value;
                if self.rx_control & SR == 0 {
                    self.cur_rx = self.rx_base();
                }
            }
            O_TX_TAIL => {
                self.tx_tail = value;
                self.doorbell(Ring::Tx);
                self.tx_walk(now_ns, true);
            }
            O_RX_TAIL => {
                self.rx_tail = value;
                self.doorbell(Ring::Rx);
                self.deliver(now_ns);
            }
            O_TX_RING_LEN => self.tx_ring_len = value & 0x3FF,
            O_RX_RING_LEN => self.rx_ring_len = value & 0x3FF,
            O_INTR_ENA => self.intr_ena = value & INTR_ENA_MASK,
            O_RX_WATCHDOG => {
                let mask = if self.snpsver() >= 0x42 {
                    RWT_MASK | RWTU_MASK
                } else {
                    RWT_MASK
                };
                self.rx_watchdog = value & mask;
            }
            O_CH_STATUS => self.status &= !(value & chan::W1C),
            _ => {}
        }
    }
}
