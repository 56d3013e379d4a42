//! The QoS 4.x/5.x (DWMAC "EQOS") register map: every MAC, MTL and DMA register and
//! descriptor field [`Qos`](crate::Qos) and the [`DescLayout::Qos`](crate::DescLayout::Qos)
//! rings touch, defined once.
//!
//! Sources (facts only, no code copied): this crate's note `docs/qos.md`, which cites
//! Linux's `dwmac4.h`, `dwmac4_dma.h` and `dwmac4_descs.h` and ST's STM32H7 register
//! description. Offsets are bytes from the block base: the MAC at +0x0000, the MTL at
//! +0x0C00, the DMA at +0x1000, DMA channel `n` at +0x1100 + 0x80·n. One
//! [`RegisterBus`](hwtimer_core::RegisterBus) covering 0x0000–0x11FF serves channel 0. The
//! test `tests/model/pac.rs` checks every offset and field here against ST's SVD, as the
//! `stm32h7` PAC generates it.
//!
//! Nothing here is shared with the GMAC 3.x map ([`gmac3::regs`](crate::gmac3::regs)): the two
//! layouts put different registers at the same offsets (0x110 is MAC_VERSION here, an MMC
//! mask on GMAC 3.x), so each MAC type reaches only its own map.

use hwtimer_core::Reg;
use tock_registers::register_bitfields;

// The generated field/value items are documented by the doc comments on the fields;
// tock-registers cannot attach docs to its generated `Register` types and constants.
register_bitfields![u32,
    /// MAC_CONFIG (0x000).
    #[allow(missing_docs)]
    pub MAC_CONFIG [
        /// Receiver enable.
        RE OFFSET(0) NUMBITS(1) [],
        /// Transmitter enable.
        TE OFFSET(1) NUMBITS(1) [],
        /// Disable carrier sense during transmission (half duplex).
        DCRS OFFSET(9) NUMBITS(1) [],
        /// Loopback.
        LM OFFSET(12) NUMBITS(1) [],
        /// Full duplex.
        DM OFFSET(13) NUMBITS(1) [],
        /// Speed. With PS = 1 (MII port): 0 = 10, 1 = 100 Mbit/s; with PS = 0 (GMII port):
        /// 0 = 1000, 1 = 2500 Mbit/s (Linux `dwmac4_core.c` speed masks). On 10/100-only
        /// cores without PS (STM32H7) FES alone picks 10 or 100 Mbit/s.
        FES OFFSET(14) NUMBITS(1) [],
        /// Port select: 1 = MII (10/100), 0 = GMII (1000 and up). Absent on 10/100-only
        /// MACs (STM32H7: bit 15 reserved, the port is always MII).
        PS OFFSET(15) NUMBITS(1) [],
        /// Jumbo frame enable.
        JE OFFSET(16) NUMBITS(1) [],
        /// Jabber disable.
        JD OFFSET(17) NUMBITS(1) [],
        /// RX watchdog disable.
        WD OFFSET(19) NUMBITS(1) [],
        /// Strip pad and FCS of 802.3 length frames.
        ACS OFFSET(20) NUMBITS(1) [],
        /// Strip the FCS of Ethernet II (type) frames.
        CST OFFSET(21) NUMBITS(1) [],
        /// Accept frames of up to 2000 bytes.
        S2KP OFFSET(22) NUMBITS(1) [],
        /// Inter-packet gap.
        IPG OFFSET(24) NUMBITS(3) [],
        /// RX checksum offload.
        IPC OFFSET(27) NUMBITS(1) []
    ],
    /// MAC_PACKET_FILTER (0x008).
    #[allow(missing_docs)]
    pub MAC_PACKET_FILTER [
        /// Promiscuous.
        PR OFFSET(0) NUMBITS(1) [],
        /// Hash unicast.
        HUC OFFSET(1) NUMBITS(1) [],
        /// Hash multicast.
        HMC OFFSET(2) NUMBITS(1) [],
        /// DA inverse filtering.
        DAIF OFFSET(3) NUMBITS(1) [],
        /// Pass all multicast.
        PM OFFSET(4) NUMBITS(1) [],
        /// Disable broadcast.
        DBF OFFSET(5) NUMBITS(1) [],
        /// Pass control frames.
        PCF OFFSET(6) NUMBITS(2) [],
        /// Hash or perfect filter.
        HPF OFFSET(10) NUMBITS(1) [],
        /// Receive all.
        RA OFFSET(31) NUMBITS(1) []
    ],
    /// MAC_VERSION (0x110).
    #[allow(missing_docs)]
    pub MAC_VERSION [
        /// Synopsys IP version: 0x40 = 4.00, 0x41 = 4.10, 0x50 = 5.00, 0x51 = 5.10,
        /// 0x52 = 5.20 (Linux `common.h` `DWMAC_CORE_*`); the STM32H7 resets to 0x3041.
        SNPSVER OFFSET(0) NUMBITS(8) [],
        /// Vendor-defined version.
        USERVER OFFSET(8) NUMBITS(8) []
    ],
    /// MAC_MDIO_ADDRESS (0x200).
    #[allow(missing_docs)]
    pub MAC_MDIO_ADDRESS [
        /// Busy: set to start a frame, cleared by the MAC when it is done.
        GB OFFSET(0) NUMBITS(1) [],
        /// Clause 45 frame.
        C45E OFFSET(1) NUMBITS(1) [],
        /// Operation: 1 = write, 3 = read (2 = Clause 45 post-read-increment).
        GOC OFFSET(2) NUMBITS(2) [],
        /// CSR clock range (MDC divider).
        CR OFFSET(8) NUMBITS(4) [],
        /// Clause 22 register, or Clause 45 device (MMD).
        RDA OFFSET(16) NUMBITS(5) [],
        /// PHY address.
        PA OFFSET(21) NUMBITS(5) []
    ],
    /// MAC_MDIO_DATA (0x204).
    #[allow(missing_docs)]
    pub MAC_MDIO_DATA [
        /// Data.
        GD OFFSET(0) NUMBITS(16) [],
        /// Clause 45 register address.
        RA OFFSET(16) NUMBITS(16) []
    ],
    /// MTL_TXQ0_OPERATION_MODE (0xD00).
    #[allow(missing_docs)]
    pub MTL_TXQ_OP_MODE [
        /// Flush the TX queue (self-clearing).
        FTQ OFFSET(0) NUMBITS(1) [],
        /// Transmit store and forward.
        TSF OFFSET(1) NUMBITS(1) [],
        /// TX queue enable: 0 = off, 1 = AV, 2 = enabled (generic).
        TXQEN OFFSET(2) NUMBITS(2) [],
        /// TX threshold (threshold mode only).
        TTC OFFSET(4) NUMBITS(3) [],
        /// TX queue size in 256-byte blocks, minus one (bits 24:16 as Linux's `dwmac4.h`
        /// has them; only as many bits as the FIFO needs are implemented: 18:16 on the
        /// STM32H7). Read-only, with TXQEN, on single-TX-queue cores (Linux
        /// `dwmac4_dma_tx_chan_op_mode`).
        TQS OFFSET(16) NUMBITS(9) []
    ],
    /// MTL_RXQ0_OPERATION_MODE (0xD30).
    #[allow(missing_docs)]
    pub MTL_RXQ_OP_MODE [
        /// RX threshold (threshold mode only). Bits 1:0 per ST's SVD; Linux's
        /// `MTL_OP_MODE_RTC_MASK` (0x18) puts it at 4:3, over FUP/FEP.
        RTC OFFSET(0) NUMBITS(2) [],
        /// Forward undersized good packets.
        FUP OFFSET(3) NUMBITS(1) [],
        /// Forward error packets.
        FEP OFFSET(4) NUMBITS(1) [],
        /// Receive store and forward.
        RSF OFFSET(5) NUMBITS(1) [],
        /// Do not drop TCP/IP checksum-error packets.
        DIS_TCP_EF OFFSET(6) NUMBITS(1) [],
        /// RX queue size in 256-byte blocks, minus one (bits 29:20 as Linux's `dwmac4.h`
        /// has them; 22:20 only on the STM32H7).
        RQS OFFSET(20) NUMBITS(10) []
    ],
    /// DMA_BUS_MODE (0x1000).
    #[allow(missing_docs)]
    pub DMA_MODE [
        /// Software reset of the DMA, MTL and MAC (self-clearing).
        SWR OFFSET(0) NUMBITS(1) [],
        /// Interrupt mode.
        INTM OFFSET(16) NUMBITS(2) []
    ],
    /// DMA_SYS_BUS_MODE (0x1004).
    #[allow(missing_docs)]
    pub DMA_SYSBUS_MODE [
        /// Fixed burst.
        FB OFFSET(0) NUMBITS(1) [],
        /// Enhanced (above 32-bit) address mode.
        EAME OFFSET(11) NUMBITS(1) [],
        /// Address-aligned beats.
        AAL OFFSET(12) NUMBITS(1) []
    ],
    /// DMA_CHAN_CONTROL (channel + 0x00).
    #[allow(missing_docs)]
    pub DMA_CH_CONTROL [
        /// PBL × 8.
        PBLX8 OFFSET(16) NUMBITS(1) [],
        /// Descriptor skip length, in bus-width words.
        DSL OFFSET(18) NUMBITS(3) []
    ],
    /// DMA_CHAN_TX_CONTROL (channel + 0x04).
    #[allow(missing_docs)]
    pub DMA_CH_TX_CONTROL [
        /// Start transmission.
        ST OFFSET(0) NUMBITS(1) [],
        /// Operate on second packet.
        OSF OFFSET(4) NUMBITS(1) [],
        /// TX programmable burst length.
        TXPBL OFFSET(16) NUMBITS(6) []
    ],
    /// DMA_CHAN_RX_CONTROL (channel + 0x08).
    #[allow(missing_docs)]
    pub DMA_CH_RX_CONTROL [
        /// Start receive.
        SR OFFSET(0) NUMBITS(1) [],
        /// RX buffer size: the field (register bits 14:1) holds the byte count itself
        /// (byte-count bits 13:0, so up to 16383), which must be a multiple of the bus
        /// width (4 bytes on a 32-bit bus, whose low two bits read as zero). Linux writes
        /// `bfsize << 1` under the mask 14:1 (`dwmac4_set_bfsize`).
        RBSZ OFFSET(1) NUMBITS(14) [],
        /// RX programmable burst length.
        RXPBL OFFSET(16) NUMBITS(6) []
    ],
    /// DMA_CHAN_RX_WATCHDOG (channel + 0x38).
    #[allow(missing_docs)]
    pub DMA_CH_RX_WATCHDOG [
        /// RX interrupt watchdog count.
        RWT OFFSET(0) NUMBITS(8) [],
        /// Its unit: 256 << RWTU CSR cycles. Not on every core: the STM32H7's 4.10a has
        /// no RWTU (fixed 256-cycle unit; bits 17:16 reserved in ST's SVD), the
        /// STM32H5's newer core has it at 17:16; Linux never sets it
        /// (`dwmac4_rx_watchdog` writes the count alone).
        RWTU OFFSET(16) NUMBITS(2) []
    ]
];

/// MAC_CONFIG.
pub const MAC_CONFIG: Reg<u32, MAC_CONFIG::Register> = Reg::new(0x000);
/// MAC_PACKET_FILTER.
pub const MAC_PACKET_FILTER: Reg<u32, MAC_PACKET_FILTER::Register> = Reg::new(0x008);
/// MAC_HASH_TABLE 0 (bins 0–31).
pub const MAC_HASH_TAB0: Reg<u32> = Reg::new(0x010);
/// MAC_HASH_TABLE 1 (bins 32–63).
pub const MAC_HASH_TAB1: Reg<u32> = Reg::new(0x014);
/// MAC_Q0_TX_FLOW_CTRL: TFE bit 1, pause time 31:16.
pub const MAC_Q0_TX_FLOW_CTRL: Reg<u32> = Reg::new(0x070);
/// MAC_RX_FLOW_CTRL: RFE bit 0.
pub const MAC_RX_FLOW_CTRL: Reg<u32> = Reg::new(0x090);
/// MAC_RXQ_CTRL0: two enable bits per RX queue (1 = AV, 2 = DCB/generic).
pub const MAC_RXQ_CTRL0: Reg<u32> = Reg::new(0x0A0);
/// MAC_INT_STATUS.
pub const MAC_INT_STATUS: Reg<u32> = Reg::new(0x0B0);
/// MAC_INT_EN.
pub const MAC_INT_EN: Reg<u32> = Reg::new(0x0B4);
/// MAC_VERSION.
pub const MAC_VERSION: Reg<u32, MAC_VERSION::Register> = Reg::new(0x110);
/// MAC_HW_FEATURE0.
pub const MAC_HW_FEATURE0: Reg<u32> = Reg::new(0x11C);
/// MAC_HW_FEATURE1.
pub const MAC_HW_FEATURE1: Reg<u32> = Reg::new(0x120);
/// MAC_HW_FEATURE2.
pub const MAC_HW_FEATURE2: Reg<u32> = Reg::new(0x124);
/// MAC_HW_FEATURE3.
pub const MAC_HW_FEATURE3: Reg<u32> = Reg::new(0x128);
/// MAC_MDIO_ADDRESS.
pub const MAC_MDIO_ADDRESS: Reg<u32, MAC_MDIO_ADDRESS::Register> = Reg::new(0x200);
/// MAC_MDIO_DATA.
pub const MAC_MDIO_DATA: Reg<u32, MAC_MDIO_DATA::Register> = Reg::new(0x204);
/// MAC_ADDRESS0_HIGH: bytes 4–5, AE (bit 31).
pub const MAC_ADDR0_HIGH: Reg<u32> = Reg::new(0x300);
/// MAC_ADDRESS0_LOW: bytes 0–3; writing it latches both halves.
pub const MAC_ADDR0_LOW: Reg<u32> = Reg::new(0x304);
/// MMC_CONTROL (the counters' block, MMC at 0x700).
pub const MMC_CONTROL: Reg<u32> = Reg::new(0x700);
/// MMC_RX_INTERRUPT_MASK.
pub const MMC_RX_INTR_MASK: Reg<u32> = Reg::new(0x70C);
/// MMC_TX_INTERRUPT_MASK.
pub const MMC_TX_INTR_MASK: Reg<u32> = Reg::new(0x710);
/// MMC_IPC_RX_INTERRUPT_MASK.
pub const MMC_IPC_RX_INTR_MASK: Reg<u32> = Reg::new(0x800);
/// MTL_OPERATION_MODE.
pub const MTL_OPERATION_MODE: Reg<u32> = Reg::new(0xC00);
/// MTL_RXQ_DMA_MAP0: Q0MDMACH (bits 2:0) the DMA channel RX queue 0 is mapped to, used
/// while Q0DDMACH (bit 4, DA-based channel selection) is clear; queue 1 from bit 8 (NXP
/// RT1170 ENET_QOS MTL_RXQ_DMA_MAP0 field docs, imxrt-ral 0.6.2). Writing 0 maps queue 0
/// to channel 0.
pub const MTL_RXQ_DMA_MAP0: Reg<u32> = Reg::new(0xC30);
/// MTL_TXQ0_OPERATION_MODE.
pub const MTL_TXQ0_OP_MODE: Reg<u32, MTL_TXQ_OP_MODE::Register> = Reg::new(0xD00);
/// MTL_Q0_INTERRUPT_CONTROL_STATUS: status TXUNFIS 0 and RXOVFIS 16 (write 1 to clear),
/// their enables TXUIE 8 and RXOIE 24 (Linux sets RXOIE: `MTL_RX_OVERFLOW_INT_EN`).
pub const MTL_Q0_INT_CTRL: Reg<u32> = Reg::new(0xD2C);
/// MTL_RXQ0_OPERATION_MODE.
pub const MTL_RXQ0_OP_MODE: Reg<u32, MTL_RXQ_OP_MODE::Register> = Reg::new(0xD30);
/// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.
pub const MTL_RXQ0_MISSED: Reg<u32> = Reg::new(0xD34);
/// DMA_BUS_MODE.
pub const DMA_MODE: Reg<u32, DMA_MODE::Register> = Reg::new(0x1000);
/// DMA_SYS_BUS_MODE.
pub const DMA_SYSBUS_MODE: Reg<u32, DMA_SYSBUS_MODE::Register> = Reg::new(0x1004);
/// DMA_STATUS (which block raised the line: DC0IS bit 0, MTLIS 16, MACIS 17).
pub const DMA_STATUS: Reg<u32> = Reg::new(0x1008);
/// DMA_DEBUG_STATUS0 (0x100C; NXP RT1170 ENET_QOS DMA_DEBUG_STATUS0, ST stm32h7 DMADSR
/// "0x100c", Linux dwmac4_dma.h `DMA_DEBUG_STATUS_0`): channel 0's process states.
pub const DMA_DEBUG_STATUS0: Reg<u32> = Reg::new(0x100C);
/// DMA_DEBUG_STATUS0.RPS0 (bits 11:8): channel 0's RX process state, 0 = Stopped
/// ("Stopped (Reset or Stop Receive Command issued)"; 4 = suspended is not stopped).
pub const DEBUG_RPS0_SHIFT: u32 = 8;
/// DMA_DEBUG_STATUS0.TPS0 (bits 15:12): channel 0's TX process state, 0 = Stopped
/// ("Stopped (Reset or Stop Transmit Command issued)"; 6 = suspended is not stopped).
pub const DEBUG_TPS0_SHIFT: u32 = 12;
/// The width of each process-state field of DMA_DEBUG_STATUS0 (4 bits).
pub const DEBUG_PS_MASK: u32 = 0xF;

/// Channel 0's registers start here; channel `n` at `+ DMA_CHAN_STRIDE·n`.
pub const DMA_CHAN0: usize = 0x1100;
/// The distance between two channels' register sets.
pub const DMA_CHAN_STRIDE: usize = 0x80;

/// DMA_CHAN_CONTROL (channel 0).
pub const DMA_CH0_CONTROL: Reg<u32, DMA_CH_CONTROL::Register> = Reg::new(DMA_CHAN0);
/// DMA_CHAN_TX_CONTROL (channel 0).
pub const DMA_CH0_TX_CONTROL: Reg<u32, DMA_CH_TX_CONTROL::Register> = Reg::new(DMA_CHAN0 + 0x04);
/// DMA_CHAN_RX_CONTROL (channel 0).
pub const DMA_CH0_RX_CONTROL: Reg<u32, DMA_CH_RX_CONTROL::Register> = Reg::new(DMA_CHAN0 + 0x08);
/// TX descriptor list address, bits 63:32 (channel 0).
pub const DMA_CH0_TX_BASE_HI: Reg<u32> = Reg::new(DMA_CHAN0 + 0x10);
/// TX descriptor list address, bits 31:0 (channel 0).
pub const DMA_CH0_TX_BASE_LO: Reg<u32> = Reg::new(DMA_CHAN0 + 0x14);
/// RX descriptor list address, bits 63:32 (channel 0).
pub const DMA_CH0_RX_BASE_HI: Reg<u32> = Reg::new(DMA_CHAN0 + 0x18);
/// RX descriptor list address, bits 31:0 (channel 0).
pub const DMA_CH0_RX_BASE_LO: Reg<u32> = Reg::new(DMA_CHAN0 + 0x1C);
/// TX tail pointer (channel 0): the doorbell.
pub const DMA_CH0_TX_TAIL: Reg<u32> = Reg::new(DMA_CHAN0 + 0x20);
/// RX tail pointer (channel 0): the doorbell.
pub const DMA_CH0_RX_TAIL: Reg<u32> = Reg::new(DMA_CHAN0 + 0x28);
/// TX ring length minus one (channel 0), bits 9:0.
pub const DMA_CH0_TX_RING_LEN: Reg<u32> = Reg::new(DMA_CHAN0 + 0x2C);
/// RX ring length minus one (channel 0), bits 9:0.
pub const DMA_CH0_RX_RING_LEN: Reg<u32> = Reg::new(DMA_CHAN0 + 0x30);
/// DMA_CHAN_INTR_ENA (channel 0).
pub const DMA_CH0_INTR_ENA: Reg<u32> = Reg::new(DMA_CHAN0 + 0x34);
/// DMA_CHAN_RX_WATCHDOG (channel 0).
pub const DMA_CH0_RX_WATCHDOG: Reg<u32, DMA_CH_RX_WATCHDOG::Register> = Reg::new(DMA_CHAN0 + 0x38);
/// Current application TX descriptor (channel 0).
pub const DMA_CH0_CUR_TX_DESC: Reg<u32> = Reg::new(DMA_CHAN0 + 0x44);
/// Current application RX descriptor (channel 0).
pub const DMA_CH0_CUR_RX_DESC: Reg<u32> = Reg::new(DMA_CHAN0 + 0x4C);
/// DMA_CHAN_STATUS (channel 0; write 1 to clear).
pub const DMA_CH0_STATUS: Reg<u32> = Reg::new(DMA_CHAN0 + 0x60);
/// Missed frame counter (channel 0).
pub const DMA_CH0_MISSED: Reg<u32> = Reg::new(DMA_CHAN0 + 0x6C);

/// The largest ring the length registers describe (10 bits of N − 1).
pub const MAX_RING_LEN: usize = 1024;

/// HW_FEATURE0.TXCOESEL: TX checksum insertion present.
pub const HWF0_TXCOESEL: u32 = 1 << 14;
/// HW_FEATURE0.RXCOESEL: RX checksum checking present.
pub const HWF0_RXCOESEL: u32 = 1 << 16;
/// HW_FEATURE1.RXFIFOSIZE (bits 4:0): 128 << value bytes.
pub const HWF1_RXFIFOSIZE_MASK: u32 = 0x1F;
/// HW_FEATURE1.TXFIFOSIZE (bits 10:6).
pub const HWF1_TXFIFOSIZE_SHIFT: u32 = 6;
/// HW_FEATURE1.ADDR64 (bits 15:14): 0 = 32, 1 = 40, 2 = 48 address bits.
pub const HWF1_ADDR64_SHIFT: u32 = 14;
/// HW_FEATURE2.RXQCNT (bits 3:0): RX queues − 1.
pub const HWF2_RXQCNT_MASK: u32 = 0xF;
/// HW_FEATURE2.TXQCNT (bits 9:6): TX queues − 1.
pub const HWF2_TXQCNT_SHIFT: u32 = 6;

/// MAC_ADDRESS0_HIGH.AE (address enable).
pub const MAC_ADDR_AE: u32 = 1 << 31;
/// MAC_RXQ_CTRL0 value for RX queue 0 enabled as a generic (DCB) queue.
pub const RXQ0EN_DCB: u32 = 2;
/// MAC_RXQ_CTRL0 mask of RX queue 0's enable.
pub const RXQ0EN_MASK: u32 = 3;
/// MTL_TXQ_OP_MODE.TXQEN value "enabled".
pub const TXQEN_ENABLED: u32 = 2;

/// Every MMC interrupt masked (the reset leaves them enabled).
pub const MMC_DEFAULT_MASK: u32 = 0xFFFF_FFFF;

/// DMA_CHAN_STATUS / DMA_CHAN_INTR_ENA bits (status positions; the 4.10+ enable bits
/// line up with them).
pub mod chan {
    /// TX complete (a descriptor with IOC).
    pub const TI: u32 = 1 << 0;
    /// TX process stopped.
    pub const TPS: u32 = 1 << 1;
    /// TX buffer unavailable (suspended on a descriptor it does not own).
    pub const TBU: u32 = 1 << 2;
    /// RX complete.
    pub const RI: u32 = 1 << 6;
    /// RX buffer unavailable (suspended).
    pub const RBU: u32 = 1 << 7;
    /// RX process stopped.
    pub const RPS: u32 = 1 << 8;
    /// RX watchdog (a frame longer than the watchdog allows).
    pub const RWT: u32 = 1 << 9;
    /// Early TX.
    pub const ETI: u32 = 1 << 10;
    /// Early RX.
    pub const ERI: u32 = 1 << 11;
    /// Fatal bus error: the channel stopped all its bus accesses.
    pub const FBE: u32 = 1 << 12;
    /// Context descriptor error.
    pub const CDE: u32 = 1 << 13;
    /// Abnormal interrupt summary.
    pub const AIS: u32 = 1 << 14;
    /// Normal interrupt summary.
    pub const NIS: u32 = 1 << 15;
    /// Every write-1-to-clear bit (TEB/REB above are read-only).
    pub const W1C: u32 = 0xFFC7;
    /// Enable-register summary bits from 4.10 on: NIE 15, AIE 14.
    pub const NIE_4_10: u32 = 1 << 15;
    /// AIE from 4.10 on.
    pub const AIE_4_10: u32 = 1 << 14;
    /// On 4.00 the enable register has NIE at 16 and AIE at 15.
    pub const NIE_4_00: u32 = 1 << 16;
    /// AIE on 4.00.
    pub const AIE_4_00: u32 = 1 << 15;
}

/// Descriptor fields (normal 16-byte descriptors, read and write-back formats).
pub mod desc {
    /// Word 3: owned by the DMA.
    pub const OWN: u32 = 1 << 31;
    /// Word 3: context descriptor.
    pub const CTXT: u32 = 1 << 30;
    /// TDES3 / RDES3 write-back: first descriptor of the packet.
    pub const FD: u32 = 1 << 29;
    /// TDES3 / RDES3 write-back: last descriptor of the packet.
    pub const LD: u32 = 1 << 28;
    /// TDES2: interrupt on completion.
    pub const TDES2_IOC: u32 = 1 << 31;
    /// TDES2: buffer 1 length (bits 13:0).
    pub const TDES2_B1L_MASK: u32 = 0x3FFF;
    /// TDES3: checksum insertion control (bits 17:16).
    pub const TDES3_CIC_SHIFT: u32 = 16;
    /// TDES3: frame length (bits 14:0).
    pub const TDES3_FL_MASK: u32 = 0x7FFF;
    /// TDES3 write-back: error summary.
    pub const TDES3_ES: u32 = 1 << 15;
    /// RDES3 read format: interrupt on completion.
    pub const RDES3_IOC: u32 = 1 << 30;
    /// RDES3 read format: buffer 1 address valid.
    pub const RDES3_BUF1V: u32 = 1 << 24;
    /// RDES3 write-back: packet length (bits 14:0), FCS included, on the last descriptor.
    pub const RDES3_PL_MASK: u32 = 0x7FFF;
    /// RDES3 write-back: error summary.
    pub const RDES3_ES: u32 = 1 << 15;
    /// RDES3 write-back: dribble bit error.
    pub const RDES3_DE: u32 = 1 << 19;
    /// RDES3 write-back: receive (MII) error.
    pub const RDES3_RE: u32 = 1 << 20;
    /// RDES3 write-back: overflow.
    pub const RDES3_OE: u32 = 1 << 21;
    /// RDES3 write-back: receive watchdog timeout.
    pub const RDES3_RWT: u32 = 1 << 22;
    /// RDES3 write-back: giant packet.
    pub const RDES3_GP: u32 = 1 << 23;
    /// RDES3 write-back: CRC error.
    pub const RDES3_CE: u32 = 1 << 24;
    /// RDES3 write-back: RDES1 holds valid status.
    pub const RDES3_RS1V: u32 = 1 << 26;
    /// RDES1 write-back: IP header checksum error.
    pub const RDES1_IPHE: u32 = 1 << 3;
    /// RDES1 write-back: IP payload (TCP/UDP/ICMP) checksum error.
    pub const RDES1_IPCE: u32 = 1 << 7;
}

/// HW_FEATURE1.HASHTBLSZ shift (bits 25:24; `dwmac4.h` `GMAC_HW_HASH_TB_SZ`,
/// imxrt-ral MAC_HW_FEATURE1.HASHTBLSZ): 0 no table, 1 = 64, 2 = 128, 3 = 256 bins.
pub const HWF1_HASHTBLSZ_SHIFT: u32 = 24;
/// HW_FEATURE0.MMCSEL (bit 8; `dwmac4.h` `GMAC_HW_FEAT_MMCSEL`): the MMC counters exist.
pub const HWF0_MMCSEL: u32 = 1 << 8;

/// MTL_RXQ0_OPERATION_MODE.EHFC (bit 7; `dwmac4.h` `MTL_OP_MODE_EHFC`): hardware flow
/// control from the RX queue's fill.
pub const MTL_OP_MODE_EHFC: u32 = 1 << 7;
/// MTL_RXQ0_OPERATION_MODE.RFA shift (bits 13:8; `dwmac4.h` `MTL_OP_MODE_RFA_SHIFT`):
/// activate at "full − (1 KiB + 512 B × RFA)".
pub const MTL_OP_MODE_RFA_SHIFT: u32 = 8;
/// MTL_RXQ0_OPERATION_MODE.RFD shift (bits 19:14; `dwmac4.h` `MTL_OP_MODE_RFD_SHIFT`):
/// deactivate at "full − (1 KiB + 512 B × RFD)".
pub const MTL_OP_MODE_RFD_SHIFT: u32 = 14;
/// The RFA/RFD field mask after its shift (6 bits).
pub const MTL_OP_MODE_RF_MASK: u32 = 0x3F;
/// The smallest RX queue Linux turns hardware flow control on for
/// (`dwmac4_dma_rx_chan_op_mode`: `fifosz >= 4096`).
pub const FLOW_MIN_RX_QUEUE: u32 = 4096;

/// DMA_CH0_MISS_FRAME_CNT on a 5.x core (channel base + 0x64: NXP RT1170 ENET_QOS
/// DMA_CH0_MISS_FRAME_CNT at 0x1164, imxrt-ral 0.6.2); the 4.x cores have it at + 0x6C
/// ([`DMA_CH0_MISSED`]; ST STM32H7 DMACMFCR at 0x116C).
pub const DMA_CH0_MISSED_5X: Reg<u32> = Reg::new(DMA_CHAN0 + 0x64);
/// DMA_CH0_MISS_FRAME_CNT.MFC (bits 10:0, RT1170): frames the DMA dropped; clear on read.
pub const MISSED_MFC_MASK: u32 = 0x7FF;
/// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.OVFPKTCNT (bits 10:0, RT1170; ST MTLRXQMPOCR):
/// packets dropped on RX queue overflow; clear on read.
pub const MTL_MISSED_OVF_MASK: u32 = 0x7FF;
/// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT.MISPKTCNT (bits 26:16).
pub const MTL_MISSED_MIS_MASK: u32 = 0x07FF_0000;
/// Shift of [`MTL_MISSED_MIS_MASK`].
pub const MTL_MISSED_MIS_SHIFT: u32 = 16;

/// MMC_CONTROL reset-on-read (bit 2, Linux `mmc_core.c` `MMC_CNTRL_RESET_ON_READ`).
pub const MMC_CNTRL_RESET_ON_READ: u32 = 1 << 2;
/// MMC tx_packet_count_good (0x700 + 0x68; RT1170 MAC_TX_PACKET_COUNT_GOOD 0x768).
pub const MMC_TX_FRAMES_G: Reg<u32> = Reg::new(0x768);
/// MMC tx_underflow_error_packets (0x700 + 0x48; RT1170 0x748).
pub const MMC_TX_UNDERFLOW: Reg<u32> = Reg::new(0x748);
/// MMC rx_broadcast_packets_good (0x700 + 0x8C).
pub const MMC_RX_BROADCAST_G: Reg<u32> = Reg::new(0x78C);
/// MMC rx_multicast_packets_good (0x700 + 0x90).
pub const MMC_RX_MULTICAST_G: Reg<u32> = Reg::new(0x790);
/// MMC rx_crc_error_packets (0x700 + 0x94; RT1170 0x794).
pub const MMC_RX_CRC_ERROR: Reg<u32> = Reg::new(0x794);
/// MMC rx_unicast_packets_good (0x700 + 0xC4; RT1170 0x7C4).
pub const MMC_RX_UNICAST_G: Reg<u32> = Reg::new(0x7C4);
/// MMC rx_fifo_overflow_packets (0x700 + 0xD4; RT1170 0x7D4).
pub const MMC_RX_FIFO_OVERFLOW: Reg<u32> = Reg::new(0x7D4);
