//! The QoS 4.x/5.x model: [`QosModel`] (its docs say what it models, where it
//! follows the sources and what it assumes) and [`QosIrq`].

use super::engine::{self, Engine};
use super::qos_map as q;
use super::walk::{self, Front, RxFrame};
use super::{RxWireError, SimArena};
use mdio_bus::sim::MdioDevice;

/// MAC_VERSION of a 4.10 core (USERVER 0x30, SNPSVER 0x41): the STM32H7's value and the
/// model's default.
pub const VERSION4_10: u32 = 0x0000_3041;
/// MAC_VERSION of a 4.00 core (NIE/AIE at bits 16/15 of DMA_CH_INTR_ENA).
pub const VERSION4_00: u32 = 0x0000_3040;
/// MAC_VERSION of a 5.10 core (RX watchdog unit RWTU).
pub const VERSION5_10: u32 = 0x0000_3051;
/// MAC_HW_FEATURE0 of the model: MII (0), GMII (1), half duplex (2), VLAN hash (4), SMA
/// (MDIO, 5), MMC (8), timestamps (12), TX (14) and RX (16) checksum offload.
/// [`QosModel::without_coe`] clears TXCOESEL and RXCOESEL.
pub const HW_FEATURE0_4: u32 = (1 << 0)
    | (1 << 1)
    | (1 << 2)
    | (1 << 4)
    | (1 << 5)
    | (1 << 8)
    | (1 << 12)
    | q::HWF0_TXCOESEL
    | q::HWF0_RXCOESEL;
/// MAC_HW_FEATURE1 of the model: 2 KiB TX and RX FIFOs (log2(bytes / 128) = 4), 32-bit
/// addresses (ADDR64 = 0), a 64-bin hash table (HASHTBLSZ = 1). [`QosModel::with_fifo_sizes`],
/// [`QosModel::with_addr_bits`] and [`QosModel::with_hash_bins`] change the fields.
pub const HW_FEATURE1_4: u32 = 4 | (4 << q::HWF1_TXFIFOSIZE_SHIFT) | (1 << q::HWF1_HASHTBLSZ_SHIFT);

pub(super) const RE: u32 = q::CONFIG_RE;
pub(super) const TE: u32 = q::CONFIG_TE;
pub(super) const DM: u32 = q::CONFIG_DM;
pub(super) const FES: u32 = q::CONFIG_FES;
pub(super) const PS: u32 = q::CONFIG_PS;
pub(super) const IPC: u32 = q::CONFIG_IPC;
pub(super) const GB: u32 = q::MDIO_GB;
pub(super) const C45E: u32 = q::MDIO_C45E;
pub(super) const SWR: u32 = q::MODE_SWR;
pub(super) const EAME: u32 = q::SYSBUS_EAME;
pub(super) const ST: u32 = q::TX_ST;
pub(super) const SR: u32 = q::RX_SR;
pub(super) const RWT_MASK: u32 = q::RWT_MASK;
pub(super) const RWTU_MASK: u32 = 3 << q::RWTU_SHIFT;

/// The behavioural QoS 4.x/5.x (DWMAC "EQOS") in virtual time.
///
/// The whole block is one [`SimModel`](hwtimer_core::sim::SimModel): the MAC at 0x0000,
/// the MTL at 0x0C00, the DMA at 0x1000 and DMA channel 0 at 0x1100 (one queue, one
/// channel). Offsets and bit positions are the model's own map,
/// [`qos_map`](super::qos_map) (Linux's `dwmac4.h`, `dwmac4_dma.h`, `dwmac4_descs.h` and
/// NXP's RT1170 ENET_QOS description, checked field by field in `tests/model/nxp_map.rs`);
/// the DMA
/// walks the descriptors the driver wrote in a [`SimArena`], which may have bus addresses
/// above 4 GiB ([`SimArena::wide`]). It behaves as the block does, not as the driver
/// expects, so a driver that gets a 4.x rule wrong fails on it:
///
/// - **Queues**: a received frame passes only while MAC_RXQ_CTRL0.RXQ0EN is 1 (AV) or 2
///   (generic); otherwise every frame is dropped even with MAC_CONFIG.RE set
///   ([`QosModel::rx_dropped_mtl`]). TX frames leave only while
///   MTL_TXQ0_OPERATION_MODE.TXQEN is 2: otherwise the DMA stops at the first owned
///   descriptor, which stays owned (a stalled FIFO, [`QosModel::tx_stalled`]), and goes
///   on when TXQEN becomes 2. The RX queue holds (RQS + 1) × 256 bytes (reset: the whole
///   RX FIFO, [`QosModel::with_fifo_sizes`]): a longer frame is dropped
///   ([`QosModel::rx_overflow`], MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.OVFPKTCNT); frames
///   waiting for descriptors beyond that size are missed (OVFPKTCNT, MISPKTCNT,
///   DMA_CH0_MISS_FRAME_CNT at +0x6C on 4.x and +0x64 on 5.x, and
///   [`QosModel::rx_missed`]); the counters are 11 bits with an overflow bit and clear on
///   read (RT1170 field docs).
/// - **Flow control**: with MTL_RXQ0_OPERATION_MODE.EHFC and MAC_Q0_TX_FLOW_CTRL.TFE, the
///   RX queue's fill reaching "size − (1 KiB + 512 B × RFA)" sends an 802.3x PAUSE with PT
///   (recorded in [`QosModel::sent`]), falling to "size − (1 KiB + 512 B × RFD)" a
///   zero-quanta PAUSE.
/// - **Stops**: clearing ST or SR while the process runs (or is suspended) stops it
///   [a stop lag](QosModel::with_stop_lag) later: then TPS or RPS is raised and
///   DMA_DEBUG_STATUS0's TPS0 / RPS0 read Stopped (0); until then they read the running or
///   suspended state.
/// - **TX**: DMA_CH0_TX_CONTROL.ST starts the process at the list base; it processes the
///   descriptor at the current address only while that differs from the tail pointer (full
///   bus address). A write to DMA_CH0_TXDESC_TAIL_POINTER is the doorbell. TDES0/1 hold
///   buffer 1's address (TDES1 only with EAME), TDES2 B1L and IOC, TDES3 OWN, CTXT, FD, LD,
///   CIC and FL; FD…LD assemble one frame ([`SentFrame`](super::SentFrame)). Write-back: TDES3 with OWN
///   clear, FD/LD kept, ES on error; TI when the LD descriptor had IOC. A descriptor with
///   CTXT (which a plain driver never writes) is skipped: only OWN is cleared. The ring
///   wraps after descriptor RING_LEN (the register holds N − 1): there is no end-of-ring
///   bit. A descriptor not owned raises TBU and suspends the process; reaching the tail
///   suspends it without TBU. An access outside the arena, or one whose high address bits
///   were dropped because DMA_SYSBUS_MODE.EAME is off, is a fatal bus error: FBE and TPS,
///   and the process stays stopped until ST is cleared and set again. Sending is instant
///   unless [`QosModel::with_tx_lag`] (as the GMAC 3.x model's).
/// - **RX**: [`QosModel::inject`] (frame without FCS; the model appends it and counts
///   it in PL) passes RXQ0EN, the address filter and the RX queue, then fills DMA-owned
///   descriptors from the current one while that is not the tail (the descriptor at the
///   tail is never written). The buffer size is DMA_CH0_RX_CONTROL.RBSZ (bytes, rounded
///   down to the bus width, and read back so rounded: ST's DMACRXCR.RBSZ low bits are
///   read-only zeros); RDES0/1 hold the buffer address (RDES1 only with EAME), RDES3
///   OWN, IOC and BUF1V. A frame longer than a buffer spills across descriptors. The
///   write-back **overwrites RDES0–2** (RDES0 = 0, the VLAN tag; RDES1 = the checksum
///   engine's status with IPC on; RDES2 = 0) and RDES3 = FD on the first, LD with PL
///   (frame + FCS) on the last (PL 0 on the others), RS1V when RDES1 holds status, the
///   error bits with ES, CTXT and OWN clear. RI when the LD descriptor had IOC; without IOC
///   and RIWT ≠ 0, RI when the watchdog expires: RIWT × 256 CSR clocks after the first
///   frame without IOC, the unit 256 << RWTU from SNPSVER 0x42 on (RWTU reads 0 and is
///   ignored before). No descriptor for a frame (not owned, or at the tail): RBU, the
///   process suspends and the frame waits in the RX queue until a write to
///   DMA_CH0_RXDESC_TAIL_POINTER. With timestamps on ([`QosModel::with_timestamps`],
///   [`QosModel::inject_context`]) a context descriptor follows the frame's LD
///   descriptor: RDES0/1 the timestamp (virtual ns: low, high), RDES3 = CTXT.
/// - **Filter**: as the GMAC 3.x model: PR / RA pass all; broadcast unless DBF; multicast with
///   PM or through the hash table with HMC: 64, 128 or 256 bins
///   ([`QosModel::with_hash_bins`], HASHTBLSZ) over MAC_HASH_TABLE_REG0..7, the bin the top
///   bits of the bit-reversed CRC-32; unicast only to MAC address 0 (AE).
/// - **Line** ([`QosModel::with_phy`]): with an [`AnPhy`](super::AnPhy), frames pass only while
///   MAC_CONFIG's TE/RE, PS/FES and DM match the negotiated link.
/// - **CH0_STATUS**: write-1-to-clear on [`q::CH_W1C`]; NIS = TI | TBU | RI | ERI raised
///   and enabled; AIS = TPS | RBU | RPS | RWT | ETI | FBE | CDE raised and *enabled*
///   (RT1170 DMA_CH0_STATUS NIS/AIS field docs; Linux counts RBU under AIS too). The interrupt line is NIS with NIE or AIS with AIE,
///   at the version's enable positions: NIE 15 / AIE 14 from 4.10 on, NIE 16 / AIE 15 on
///   4.00 (so 4.10 enables on a 4.00 core give no TI interrupt). DMA_STATUS.DC0IS
///   follows the line.
/// - **MDIO**: MAC_MDIO_ADDRESS with GB starts a frame on the [`MdioDevice`] (Clause 22:
///   PA, RDA; GOC 1 write, 3 read); GB clears one frame time later (MDC = CSR clock / the
///   CR divider, CR 6 and 7 included), or never when [stuck](QosModel::set_mdio_stuck). A
///   C45E access is two frames on the device, one frame time apart: the address frame
///   ([`MdioDevice::c45_address`] with MAC_MDIO_DATA.RA, the MMD from RDA), then GOC 1 a
///   write frame of GD, 3 a read frame, 2 a post-read-increment-address read frame, whose
///   data lands in GD; GB clears after both, and each access is counted
///   ([`QosModel::mdio_c45_frames`]). GOC 0 on Clause 45 counts as a write (as on
///   Clause 22, an assumption).
/// - **Reset**: DMA_MODE.SWR resets every register and self-clears after [`SWR_NS`](super::SWR_NS) (or
///   never, [`QosModel::set_swr_stuck`]).
///
/// Assumptions where the sources are silent: MTL_TXQ0/RXQ0 TQS/RQS are writable and reset
/// to the FIFO sizes, TXQEN resets to 0 (multi-queue cores; the STM32H7 hardwires it to 2,
/// Linux always writes it); a descriptor with OWN but without BUF1V is closed with
/// ES | DE (bit 19) and its frame dropped ([`QosModel::rx_desc_errors`]); RBSZ 0 stores
/// nothing and drops the frame as an overflow; GOC 0 and 2 on Clause 22 count as write and
/// read; a faulted TX process keeps its descriptors owned; stopping RX (SR cleared)
/// abandons a frame waiting for descriptors; the watchdog restarts when an IOC frame
/// raises RI; RxWireError::Length sets nothing (RDES3 has no length-error bit).
pub struct QosModel<D: MdioDevice> {
    pub(super) version: u32,
    pub(super) addr_bits: u32,
    pub(super) coe: bool,
    pub(super) bus_width: u32,
    pub(super) tx_fifo: u32,
    pub(super) rx_fifo: u32,
    pub(super) timestamps: bool,
    // Registers.
    pub(super) mac_config: u32,
    pub(super) filter: u32,
    pub(super) flow: [u32; 2],
    pub(super) hash: [u32; 8],
    /// Multicast hash bins (64, 128, 256).
    pub(super) hash_bins: u32,
    /// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT as it reads (cleared on read).
    pub(super) mtl_missed: u32,
    pub(super) rxq_ctrl0: u32,
    pub(super) mdio_addr: u32,
    pub(super) mdio_data: u32,
    pub(super) addr_hi: u32,
    pub(super) addr_lo: u32,
    pub(super) mmc_control: u32,
    pub(super) mmc_mask: [u32; 3],
    pub(super) mtl_op: u32,
    pub(super) mtl_map0: u32,
    pub(super) txq_op: u32,
    pub(super) rxq_op: u32,
    pub(super) dma_mode: u32,
    pub(super) sysbus: u32,
    pub(super) ch_control: u32,
    pub(super) tx_control: u32,
    pub(super) rx_control: u32,
    pub(super) tx_base: [u32; 2],
    pub(super) rx_base: [u32; 2],
    pub(super) tx_tail: u32,
    pub(super) rx_tail: u32,
    pub(super) tx_ring_len: u32,
    pub(super) rx_ring_len: u32,
    pub(super) intr_ena: u32,
    pub(super) rx_watchdog: u32,
    pub(super) status: u32,
    pub(super) missed: u32,
    pub(super) next_error: u32,
    pub(super) next_runt: bool,
    pub(super) next_context: bool,
    // Observations.
    pub(super) rx_dropped_mtl: u64,
    pub(super) rx_missed: u64,
    pub(super) mdio_c45_frames: u64,
    /// The shared DMA engine state.
    pub(super) core: Engine<D>,
}

impl<D: MdioDevice> QosModel<D> {
    engine::engine_api!();

    /// A 4.10 core ([`VERSION4_10`]) whose DMA sees `arena`, with `mdio` on its MDIO bus,
    /// clocked at `csr_hz`: 32-bit addresses, checksum offload, an 8-byte (AXI) bus, 2 KiB
    /// FIFOs, no TX lag, no line check, no timestamps.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        let mut m = Self {
            core: Engine::new(arena, mdio, csr_hz),
            version: VERSION4_10,
            addr_bits: 32,
            coe: true,
            bus_width: 8,
            tx_fifo: 2048,
            rx_fifo: 2048,
            timestamps: false,
            mac_config: 0,
            filter: 0,
            flow: [0; 2],
            hash: [0; 8],
            hash_bins: 64,
            mtl_missed: 0,
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
            next_error: 0,
            next_runt: false,
            next_context: false,
            rx_dropped_mtl: 0,
            rx_missed: 0,
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

    /// Write a context descriptor (timestamp) after every received frame.
    pub fn with_timestamps(mut self, on: bool) -> Self {
        self.timestamps = on;
        self
    }

    /// The next injected frame is followed by a context descriptor (as with
    /// [`with_timestamps`](Self::with_timestamps), for one frame); `now_ns` applies time
    /// first.
    pub fn inject_context(&mut self, now_ns: u64) {
        self.sync(now_ns);
        self.next_context = true;
    }

    /// TX walks that found an owned descriptor but could not send because
    /// MTL_TXQ0_OPERATION_MODE.TXQEN was not 2 (each doorbell or ST write counts once).
    pub fn tx_stalled(&self) -> u64 {
        self.core.tx_stalled
    }

    /// Frames dropped because MAC_RXQ_CTRL0.RXQ0EN was neither 1 nor 2.
    pub fn rx_dropped_mtl(&self) -> u64 {
        self.rx_dropped_mtl
    }

    /// Frames longer than the RX queue (RQS), or RBSZ 0, dropped.
    pub fn rx_overflow(&self) -> u64 {
        self.core.rx_overflow
    }

    /// Frames missed because the RX queue was full while the DMA had no descriptor.
    pub fn rx_missed(&self) -> u64 {
        self.rx_missed
    }

    /// Descriptors owned without BUF1V (their frames dropped).
    pub fn rx_desc_errors(&self) -> u64 {
        self.core.rx_desc_errors
    }

    /// Context descriptors written.
    pub fn rx_contexts(&self) -> u64 {
        self.core.rx_contexts
    }

    /// Clause 45 accesses (C45E), two frames each (see the [type docs](QosModel)).
    pub fn mdio_c45_frames(&self) -> u64 {
        self.mdio_c45_frames
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
        self.core.cur_tx
    }

    /// The DMA's current RX descriptor, full bus address.
    pub fn cur_rx(&self) -> u64 {
        self.core.cur_rx
    }

    /// A core with a multicast hash table of `bins` bins (64, 128 or 256; anything else
    /// is 64): MAC_HW_FEATURE1.HASHTBLSZ reads 1, 2 or 3 and MAC_HASH_TABLE_REG0..1, ..3 or
    /// ..7 exist (dwmac4.h `GMAC_HW_HASH_TB_SZ`; `dwmac4_core.c`
    /// `multicast_filter_bins = BIT(hash_tb_sz) << 5`).
    pub fn with_hash_bins(mut self, bins: u32) -> Self {
        self.hash_bins = match bins {
            128 | 256 => bins,
            _ => 64,
        };
        self
    }

    /// A frame arrives from the wire at `now_ns` (without FCS; the model pads it to 60
    /// bytes and appends the FCS); see the [type docs](QosModel).
    pub fn inject(&mut self, now_ns: u64, frame: &[u8]) {
        self.sync(now_ns);
        let errors = core::mem::take(&mut self.next_error);
        let runt = core::mem::take(&mut self.next_runt);
        let context = core::mem::take(&mut self.next_context) || self.timestamps;
        if self.mac_config & RE == 0 {
            self.core.rx_dropped += 1;
            return;
        }
        let qen = self.rxq_ctrl0 & q::RXQ0EN_MASK;
        if qen != q::RXQ0EN_AV && qen != q::RXQ0EN_DCB {
            self.rx_dropped_mtl += 1;
            return;
        }
        let (line, accepted) = (self.line_ok(now_ns, false), self.accepts(frame));
        if !self.core.admit(line, accepted) {
            return;
        }
        let bytes = engine::on_wire(frame, runt);
        let cap = self.rx_queue_bytes() as usize;
        if bytes.len() > cap {
            self.core.rx_overflow += 1;
            self.count_mtl_overflow();
            return;
        }
        if self.core.rx_fill() + bytes.len() > cap {
            // The RX queue is full because the DMA has no descriptor: the frame overflows
            // the queue (OVFPKTCNT) and is missed by the application (MISPKTCNT; the
            // channel's MFC counts it too).
            self.rx_missed += 1;
            self.count_mtl_overflow();
            self.count_mtl_missed();
            engine::count_field(&mut self.missed, q::CH_MISSED_MFC_MASK, q::CH_MISSED_MFCO);
            self.flow_check();
            return;
        }
        let rx = RxFrame::new(bytes, errors, context, now_ns);
        self.core.rx_queue.push_back(rx);
        walk::deliver(self, now_ns);
        self.flow_check();
    }

    /// Deliver `frame` as [`inject`](Self::inject) does, with `error` in its LD
    /// descriptor's RDES3 (CRC: CE; Dribble: DE (bit 19) | CE; Mii: RE; Overflow: OE;
    /// Watchdog: RWT; each with ES; Length: nothing, RDES3 has no such bit).
    pub fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError) {
        let es = q::RDES3_ES;
        self.next_error = match error {
            RxWireError::Length => 0,
            RxWireError::Mii => es | q::RDES3_RE,
            RxWireError::Crc => es | q::RDES3_CE,
            RxWireError::Dribble => es | q::RDES3_CE | q::RDES3_DE,
            RxWireError::Overflow => es | q::RDES3_OE,
            RxWireError::Watchdog => es | q::RDES3_RWT,
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
}
