//! The register map: every MAC and DMA register and descriptor field this crate touches,
//! defined once, with its source.
//!
//! Sources (facts only, no code copied): this crate's note `docs/gmac3.md`,
//! which cites `torvalds/linux drivers/net/ethernet/stmicro/stmmac/{dwmac1000.h, dwmac_dma.h,
//! descs.h, common.h}` and `qemu/qemu hw/net/npcm_gmac.c`; `docs/gmac3.md#qemu-npcm-gmac` (verified on QEMU
//! 10). Names follow Linux's so a reader can cross-check.
//!
//! Offsets are bytes from the **MAC base** (the DMA block is at +0x1000 on GMAC 3.x), so one
//! [`RegisterBus`](hwtimer_core::RegisterBus) covering 0x0000–0x105C serves both.

use hwtimer_core::Reg;
use tock_registers::register_bitfields;

// The generated field/value items are documented by the doc comments on the fields;
// tock-registers cannot attach docs to its generated `Register` types and constants.
register_bitfields![u32,
    /// GMAC_CONTROL (MAC configuration, 0x00; docs/gmac3.md#mac-registers).
    #[allow(missing_docs)]
    pub GMAC_CONTROL [
        /// Receiver enable.
        RE OFFSET(2) NUMBITS(1) [],
        /// Transmitter enable.
        TE OFFSET(3) NUMBITS(1) [],
        /// Deferral check.
        DC OFFSET(4) NUMBITS(1) [],
        /// Automatic pad/CRC stripping.
        ACS OFFSET(7) NUMBITS(1) [],
        /// Disable retry.
        DR OFFSET(9) NUMBITS(1) [],
        /// RX checksum offload.
        IPC OFFSET(10) NUMBITS(1) [],
        /// Full duplex.
        DM OFFSET(11) NUMBITS(1) [],
        /// Loopback.
        LM OFFSET(12) NUMBITS(1) [],
        /// Speed 100 Mbit/s (with PS = 1).
        FES OFFSET(14) NUMBITS(1) [],
        /// Port select: 1 = MII (10/100), 0 = GMII (1000).
        PS OFFSET(15) NUMBITS(1) [],
        /// Jumbo frame enable.
        JE OFFSET(20) NUMBITS(1) [],
        /// Jabber disable.
        JD OFFSET(22) NUMBITS(1) [],
        /// Watchdog disable.
        WD OFFSET(23) NUMBITS(1) []
    ],
    /// GMAC_FRAME_FILTER (0x04; docs/gmac3.md#mac-registers).
    #[allow(missing_docs)]
    pub GMAC_FRAME_FILTER [
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
        /// Disable broadcast frames.
        DBF OFFSET(5) NUMBITS(1) [],
        /// Receive all.
        RA OFFSET(31) NUMBITS(1) []
    ],
    /// GMAC_MII_ADDR (GMII address, 0x10; docs/gmac3.md#mdio).
    #[allow(missing_docs)]
    pub GMAC_MII_ADDR [
        /// Busy: set by software to start a frame, cleared by the hardware when done.
        GB OFFSET(0) NUMBITS(1) [],
        /// 1 = write frame.
        GW OFFSET(1) NUMBITS(1) [],
        /// CSR clock range (MDC divider), see [`csr_clock_range`](super::csr_clock_range).
        CR OFFSET(2) NUMBITS(4) [],
        /// PHY register.
        GR OFFSET(6) NUMBITS(5) [],
        /// PHY address.
        PA OFFSET(11) NUMBITS(5) []
    ],
    /// GMAC_MII_DATA (0x14).
    #[allow(missing_docs)]
    pub GMAC_MII_DATA [
        /// The 16-bit data of the frame.
        GD OFFSET(0) NUMBITS(16) []
    ],
    /// GMAC_VERSION (0x20).
    #[allow(missing_docs)]
    pub GMAC_VERSION [
        /// Synopsys core version (0x32 = "3.2" on QEMU's npcm-gmac, 0x37 on 3.7 cores).
        SNPSVER OFFSET(0) NUMBITS(8) [],
        /// User (integrator) version.
        USERVER OFFSET(8) NUMBITS(8) []
    ],
    /// GMAC_ADDR_HIGH(n) (0x40 + 8n).
    #[allow(missing_docs)]
    pub GMAC_ADDR_HIGH [
        /// MAC address bytes 5..4 (byte 4 in bits 7:0).
        ADDRHI OFFSET(0) NUMBITS(16) [],
        /// Address enable.
        AE OFFSET(31) NUMBITS(1) []
    ],
    /// DMA_BUS_MODE (0x1000; docs/gmac3.md#dma-registers).
    #[allow(missing_docs)]
    pub DMA_BUS_MODE [
        /// Software reset; self-clearing when the reset is done.
        SWR OFFSET(0) NUMBITS(1) [],
        /// DMA arbitration: RX priority.
        DA OFFSET(1) NUMBITS(1) [],
        /// Descriptor skip length (bus-width words between ring descriptors).
        DSL OFFSET(2) NUMBITS(5) [],
        /// Alternate descriptor size: 32-byte enhanced descriptors (timestamps); this crate
        /// keeps it 0 (16-byte descriptors in either layout).
        ATDS OFFSET(7) NUMBITS(1) [],
        /// Programmable burst length.
        PBL OFFSET(8) NUMBITS(6) [],
        /// Fixed burst.
        FB OFFSET(16) NUMBITS(1) [],
        /// RX burst length (with USP).
        RPBL OFFSET(17) NUMBITS(6) [],
        /// Use separate PBL.
        USP OFFSET(23) NUMBITS(1) [],
        /// PBL × 8.
        PBLX8 OFFSET(24) NUMBITS(1) [],
        /// Address-aligned beats.
        AAL OFFSET(25) NUMBITS(1) []
    ],
    /// DMA_STATUS (0x1014) and, at the same bit positions, DMA_INTR_ENA (0x101C);
    /// docs/gmac3.md#dma-status. Bits 0–16 are write-1-to-clear; 17 and above are read-only.
    #[allow(missing_docs)]
    pub DMA_STATUS [
        /// Transmit interrupt: a frame whose last descriptor had IC completed.
        TI OFFSET(0) NUMBITS(1) [],
        /// TX process stopped.
        TPS OFFSET(1) NUMBITS(1) [],
        /// TX buffer unavailable: the next descriptor is not owned by the DMA (TX suspended).
        TU OFFSET(2) NUMBITS(1) [],
        /// TX jabber timeout.
        TJT OFFSET(3) NUMBITS(1) [],
        /// RX FIFO overflow.
        OVF OFFSET(4) NUMBITS(1) [],
        /// TX underflow.
        UNF OFFSET(5) NUMBITS(1) [],
        /// Receive interrupt.
        RI OFFSET(6) NUMBITS(1) [],
        /// RX buffer unavailable.
        RU OFFSET(7) NUMBITS(1) [],
        /// RX process stopped.
        RPS OFFSET(8) NUMBITS(1) [],
        /// RX watchdog timeout (frame too long; not RIWT).
        RWT OFFSET(9) NUMBITS(1) [],
        /// Early transmit.
        ETI OFFSET(10) NUMBITS(1) [],
        /// Fatal bus error.
        FBI OFFSET(13) NUMBITS(1) [],
        /// Early receive.
        ERI OFFSET(14) NUMBITS(1) [],
        /// Abnormal interrupt summary.
        AIS OFFSET(15) NUMBITS(1) [],
        /// Normal interrupt summary.
        NIS OFFSET(16) NUMBITS(1) [],
        /// RX process state (read-only): 0 stopped, 1 fetching, 3 waiting, 4 suspended,
        /// 5 closing, 7 transferring.
        RS OFFSET(17) NUMBITS(3) [],
        /// TX process state (read-only): 0 stopped, 1 fetching, 2 waiting, 3 reading,
        /// 6 suspended, 7 closing.
        TS OFFSET(20) NUMBITS(3) [],
        /// Bus error bits (read-only).
        EB OFFSET(23) NUMBITS(3) []
    ],
    /// DMA_CONTROL (operation mode, 0x1018; docs/gmac3.md#dma-registers).
    #[allow(missing_docs)]
    pub DMA_CONTROL [
        /// Start/stop receive.
        SR OFFSET(1) NUMBITS(1) [],
        /// Operate on second frame.
        OSF OFFSET(2) NUMBITS(1) [],
        /// Start/stop transmission.
        ST OFFSET(13) NUMBITS(1) [],
        /// Flush TX FIFO.
        FTF OFFSET(20) NUMBITS(1) [],
        /// TX store-and-forward.
        TSF OFFSET(21) NUMBITS(1) [],
        /// RX store-and-forward.
        RSF OFFSET(25) NUMBITS(1) []
    ],
    /// DMA_RX_WATCHDOG (0x1024).
    #[allow(missing_docs)]
    pub DMA_RX_WATCHDOG [
        /// RIWT: RX interrupt watchdog count, in units of 256 CSR clock cycles.
        RIWT OFFSET(0) NUMBITS(8) []
    ]
];

/// GMAC_CONTROL (0x00).
pub const GMAC_CONTROL: Reg<u32, GMAC_CONTROL::Register> = Reg::new(0x00);
/// GMAC_FRAME_FILTER (0x04).
pub const GMAC_FRAME_FILTER: Reg<u32, GMAC_FRAME_FILTER::Register> = Reg::new(0x04);
/// GMAC_HASH_HIGH (0x08): multicast hash table bits 63..32 (hash values 32..63).
pub const GMAC_HASH_HIGH: Reg<u32> = Reg::new(0x08);
/// GMAC_HASH_LOW (0x0C): multicast hash table bits 31..0.
pub const GMAC_HASH_LOW: Reg<u32> = Reg::new(0x0C);
/// GMAC_MII_ADDR (0x10).
pub const GMAC_MII_ADDR: Reg<u32, GMAC_MII_ADDR::Register> = Reg::new(0x10);
/// GMAC_MII_DATA (0x14).
pub const GMAC_MII_DATA: Reg<u32, GMAC_MII_DATA::Register> = Reg::new(0x14);
/// GMAC_VERSION (0x20), read-only.
pub const GMAC_VERSION: Reg<u32, GMAC_VERSION::Register> = Reg::new(0x20);
/// GMAC_ADDR_HIGH(0) (0x40); address `n` at `GMAC_ADDR_HIGH.nth(n, 8)` for n < 16.
pub const GMAC_ADDR_HIGH: Reg<u32, GMAC_ADDR_HIGH::Register> = Reg::new(0x40);
/// GMAC_ADDR_LOW(0) (0x44): MAC address bytes 3..0 (byte 0 in bits 7:0).
pub const GMAC_ADDR_LOW: Reg<u32> = Reg::new(0x44);

/// GMAC_FLOW_CTRL (0x18): FCB/BPA bit 0, TFE bit 1 (transmit pause), RFE bit 2 (honour
/// received pause), UP bit 3, PLT bits 5:4, DZPQ bit 7, PT bits 31:16 (pause time in slot times).
pub const GMAC_FLOW_CTRL: Reg<u32> = Reg::new(0x18);
/// GMAC_FLOW_CTRL.TFE (bit 1): transmit pause frames (full duplex).
pub const FLOW_CTRL_TFE: u32 = 1 << 1;
/// GMAC_FLOW_CTRL.RFE (bit 2): act on received pause frames.
pub const FLOW_CTRL_RFE: u32 = 1 << 2;
/// GMAC_FLOW_CTRL.PT shift (bits 31:16, pause time).
pub const FLOW_CTRL_PT_SHIFT: u32 = 16;
/// GMAC_INT_STATUS (0x38), read-only: RGSMIIIS bit 0 (RGMII/SMII link change), PCSLCHGIS
/// bit 1, PCSANCIS bit 2, PMTIS bit 3, MMCIS bit 4 (any of 5–7), MMCRXIS bit 5, MMCTXIS
/// bit 6, MMCRXIPIS bit 7, TSIS bit 9, LPIIS bit 10. Each clears only at its source (the
/// RGMII status or PCS registers read, the MMC counter read), not by a write here.
pub const GMAC_INT_STATUS: Reg<u32> = Reg::new(0x38);
/// GMAC_INT_MASK (0x3C): a set bit keeps the matching GMAC_INT_STATUS source off the
/// interrupt line (bits 0–3, 9, 10; the MMC sources are masked in the MMC block).
pub const GMAC_INT_MASK: Reg<u32> = Reg::new(0x3C);
/// The GMAC_INT_MASK value Linux's `dwmac1000_core_init` writes (`GMAC_INT_DEFAULT_MASK`):
/// RGMII (bit 0), PCS link (bit 1), PCS autonegotiation (bit 2) and timestamp (bit 9)
/// interrupts masked.
pub const GMAC_INT_DEFAULT_MASK: u32 = 0x207;
/// MMC_RX_INTR_MASK (0x10C): one bit per RX counter, set = no interrupt when that counter
/// passes half range or full range.
pub const MMC_RX_INTR_MASK: Reg<u32> = Reg::new(0x10C);
/// MMC_TX_INTR_MASK (0x110), as [`MMC_RX_INTR_MASK`] for the TX counters.
pub const MMC_TX_INTR_MASK: Reg<u32> = Reg::new(0x110);
/// MMC_RX_IPC_INTR_MASK (0x200), as [`MMC_RX_INTR_MASK`] for the RX checksum-offload
/// counters.
pub const MMC_RX_IPC_INTR_MASK: Reg<u32> = Reg::new(0x200);
/// The MMC mask Linux writes to all three MMC mask registers (`MMC_DEFAULT_MASK`): every
/// counter interrupt off.
pub const MMC_DEFAULT_MASK: u32 = 0xFFFF_FFFF;
/// DMA_STATUS.GLI (bit 26, read-only): a GMAC line-interface interrupt (RGMII/SMII, PCS)
/// is pending in GMAC_INT_STATUS.
pub const DMA_STATUS_GLI: u32 = 1 << 26;
/// DMA_STATUS.GMI (bit 27, read-only): an MMC interrupt is pending.
pub const DMA_STATUS_GMI: u32 = 1 << 27;
/// DMA_STATUS.GPI (bit 28, read-only): a PMT (power management) interrupt is pending.
pub const DMA_STATUS_GPI: u32 = 1 << 28;

/// Offset of the DMA block from the MAC base on GMAC 3.x.
pub const DMA_BASE: usize = 0x1000;
/// DMA_BUS_MODE (0x1000).
pub const DMA_BUS_MODE: Reg<u32, DMA_BUS_MODE::Register> = Reg::new(DMA_BASE);
/// DMA_XMT_POLL_DEMAND (0x1004): any write makes the TX DMA re-read the current descriptor.
pub const DMA_XMT_POLL_DEMAND: Reg<u32> = Reg::new(DMA_BASE + 0x04);
/// DMA_RCV_POLL_DEMAND (0x1008).
pub const DMA_RCV_POLL_DEMAND: Reg<u32> = Reg::new(DMA_BASE + 0x08);
/// DMA_RCV_BASE_ADDR (0x100C): RX descriptor list bus address.
pub const DMA_RCV_BASE_ADDR: Reg<u32> = Reg::new(DMA_BASE + 0x0C);
/// DMA_TX_BASE_ADDR (0x1010): TX descriptor list bus address.
pub const DMA_TX_BASE_ADDR: Reg<u32> = Reg::new(DMA_BASE + 0x10);
/// DMA_STATUS (0x1014).
pub const DMA_STATUS: Reg<u32, DMA_STATUS::Register> = Reg::new(DMA_BASE + 0x14);
/// DMA_CONTROL (0x1018).
pub const DMA_CONTROL: Reg<u32, DMA_CONTROL::Register> = Reg::new(DMA_BASE + 0x18);
/// DMA_INTR_ENA (0x101C), same bit positions as [`DMA_STATUS`](const@DMA_STATUS).
pub const DMA_INTR_ENA: Reg<u32, DMA_STATUS::Register> = Reg::new(DMA_BASE + 0x1C);
/// DMA_MISSED_FRAME_CTR (0x1020).
pub const DMA_MISSED_FRAME_CTR: Reg<u32> = Reg::new(DMA_BASE + 0x20);
/// DMA_RX_WATCHDOG (0x1024).
pub const DMA_RX_WATCHDOG: Reg<u32, DMA_RX_WATCHDOG::Register> = Reg::new(DMA_BASE + 0x24);
/// DMA_CUR_TX_DESC (0x1048), read-only.
pub const DMA_CUR_TX_DESC: Reg<u32> = Reg::new(DMA_BASE + 0x48);
/// DMA_CUR_RX_DESC (0x104C), read-only.
pub const DMA_CUR_RX_DESC: Reg<u32> = Reg::new(DMA_BASE + 0x4C);
/// DMA_HW_FEATURE (0x1058), read-only capability register (absent before core 3.50a: it
/// then reads 0 or garbage: [`configure_dma`](crate::Dwmac::configure_dma) refuses 0 and
/// all ones, and the layout of such a core is given with the `unsafe`
/// [`DmaConfig::resolve_assuming_layout`](crate::DmaConfig::resolve_assuming_layout)).
pub const DMA_HW_FEATURE: Reg<u32> = Reg::new(DMA_BASE + 0x58);

/// DMA_HW_FEATURE.ENHDESSEL (bit 24): the core was synthesised with alternate (enhanced)
/// descriptors (Linux `DMA_HW_FEAT_ENHDESSEL`).
pub const HW_FEATURE_ENHDESSEL: u32 = 1 << 24;
/// DMA_HW_FEATURE.HASHSEL (bit 4): the multicast hash filter exists.
pub const HW_FEATURE_HASHSEL: u32 = 1 << 4;
/// DMA_HW_FEATURE.GMIISEL (bit 1): 1000 Mbit/s supported.
pub const HW_FEATURE_GMIISEL: u32 = 1 << 1;
/// DMA_HW_FEATURE.TXCOESEL (bit 16): the TX checksum offload engine exists (Linux
/// `DMA_HW_FEAT_TXCOESEL`, read into `dma_cap.tx_coe`).
pub const HW_FEATURE_TXCOESEL: u32 = 1 << 16;
/// DMA_HW_FEATURE.RXTYP1COE (bit 17): type-1 RX checksum offload (IP header and payload
/// errors reported in RDES0; Linux `DMA_HW_FEAT_RXTYP1COE`).
pub const HW_FEATURE_RXTYP1COE: u32 = 1 << 17;
/// DMA_HW_FEATURE.RXTYP2COE (bit 18): type-2 (full) RX checksum offload (Linux
/// `DMA_HW_FEAT_RXTYP2COE`).
pub const HW_FEATURE_RXTYP2COE: u32 = 1 << 18;
/// GMAC_CONTROL.IPC (bit 10): RX checksum offload on (reads back 0 on a core without it).
pub const GMAC_CONTROL_IPC: u32 = 1 << 10;

/// DMA_STATUS bits that are write-1-to-clear (QEMU's mask 0x1E7FF, docs/gmac3.md#qemu-npcm-gmac).
pub const DMA_STATUS_W1C: u32 = 0x0001_E7FF;
/// DMA_BUS_MODE after reset as QEMU reports it (docs/gmac3.md#qemu-npcm-gmac).
pub const DMA_BUS_MODE_RESET: u32 = 0x0002_0100;
/// Linux's default DMA interrupt mask on 3.x: NIE | RIE | TIE | AIE | FBE | UNE.
pub const DMA_INTR_DEFAULT: u32 =
    (1 << 16) | (1 << 6) | (1 << 0) | (1 << 15) | (1 << 13) | (1 << 5);
/// TX process state "suspended" (DMA_STATUS.TS).
pub const TS_SUSPENDED: u32 = 6;
/// TX process state "stopped".
pub const TS_STOPPED: u32 = 0;
/// RX process state "waiting for a frame" (DMA_STATUS.RS).
pub const RS_WAITING: u32 = 3;
/// RX process state "suspended" (no descriptor owned by the DMA).
pub const RS_SUSPENDED: u32 = 4;

/// Normal descriptor fields (16 bytes, 4 words; docs/gmac3.md#normal-descriptors, Linux `descs.h`).
pub mod desc {
    /// TDES0 / RDES0: owned by the DMA.
    pub const OWN: u32 = 1 << 31;
    /// TDES0: error summary.
    pub const TDES0_ES: u32 = 1 << 15;
    /// TDES1: interrupt on completion (sets DMA_STATUS.TI when the frame is done).
    pub const TDES1_IC: u32 = 1 << 31;
    /// TDES1: last segment.
    pub const TDES1_LS: u32 = 1 << 30;
    /// TDES1: first segment.
    pub const TDES1_FS: u32 = 1 << 29;
    /// TDES1: end of ring (the DMA wraps to the list base after this descriptor).
    pub const TDES1_TER: u32 = 1 << 25;
    /// TDES1: TDES3 is the next descriptor (chained mode; not used by this crate).
    pub const TDES1_TCH: u32 = 1 << 24;
    /// TDES1: buffer 1 size, bits 10:0.
    pub const TDES1_TBS1_MASK: u32 = 0x7FF;
    /// RDES0: frame length including the 4-byte CRC, bits 29:16.
    pub const RDES0_FL_SHIFT: u32 = 16;
    /// RDES0: FL mask (after shifting).
    pub const RDES0_FL_MASK: u32 = 0x3FFF;
    /// RDES0: error summary.
    pub const RDES0_ES: u32 = 1 << 15;
    /// RDES0: first descriptor of the frame.
    pub const RDES0_FS: u32 = 1 << 9;
    /// RDES0: last descriptor of the frame.
    pub const RDES0_LS: u32 = 1 << 8;
    /// RDES0: frame type (Ethernet-type frame).
    pub const RDES0_FT: u32 = 1 << 5;
    /// RDES1: disable interrupt on completion (RI then comes from the RIWT watchdog).
    pub const RDES1_DIC: u32 = 1 << 31;
    /// RDES1: end of ring.
    pub const RDES1_RER: u32 = 1 << 25;
    /// RDES1: buffer 1 size, bits 10:0.
    pub const RDES1_RBS1_MASK: u32 = 0x7FF;
    /// RDES1: second address chained (RDES3 is the next descriptor; not used by this crate).
    pub const RDES1_RCH: u32 = 1 << 24;
    /// RDES0: descriptor error (the frame did not fit the descriptors the DMA had).
    pub const RDES0_DE: u32 = 1 << 14;
    /// RDES0: overflow error (the RX FIFO overflowed while the frame arrived).
    pub const RDES0_OE: u32 = 1 << 11;
    /// RDES0: IPC checksum error (IP header checksum wrong) with GMAC_CONTROL.IPC set;
    /// giant frame without it.
    pub const RDES0_IPC_CSUM: u32 = 1 << 7;
    /// RDES0: late collision (half duplex).
    pub const RDES0_LC: u32 = 1 << 6;
    /// RDES0: receive watchdog timeout (the frame ran past 2048 bytes, jabber).
    pub const RDES0_RWT: u32 = 1 << 4;
    /// RDES0: dribble bit error (a frame that is not a whole number of bytes, MII).
    pub const RDES0_DRIBBLE: u32 = 1 << 2;
    /// RDES0: CRC error (FCS wrong).
    pub const RDES0_CE: u32 = 1 << 1;
    /// RDES0: payload (TCP/UDP/ICMP) checksum error with GMAC_CONTROL.IPC set; the
    /// destination-address match bit without it.
    pub const RDES0_PCE: u32 = 1 << 0;
    /// TDES1: checksum insertion control (CIC), bits 28:27.
    pub const TDES1_CIC_SHIFT: u32 = 27;
    /// TDES0: underflow error.
    pub const TDES0_UF: u32 = 1 << 1;
}

/// Enhanced (alternate) descriptor fields where they differ from the [normal](desc) ones
/// (docs/gmac3.md#enhanced-descriptors, Linux `descs.h` `ETDES*` / `ERDES*`). OWN, the TDES0 status bits and
/// all of RDES0 (FL, ES, FS, LS, FT) sit where the normal layout has them. With
/// DMA_BUS_MODE.ATDS clear (this crate) the descriptors stay 16 bytes.
pub mod edesc {
    /// TDES0: interrupt on completion.
    pub const TDES0_IC: u32 = 1 << 30;
    /// TDES0: last segment.
    pub const TDES0_LS: u32 = 1 << 29;
    /// TDES0: first segment.
    pub const TDES0_FS: u32 = 1 << 28;
    /// TDES0: end of ring.
    pub const TDES0_TER: u32 = 1 << 21;
    /// TDES0: second address chained (not used by this crate).
    pub const TDES0_TCH: u32 = 1 << 20;
    /// TDES0: checksum insertion control (CIC), bits 23:22.
    pub const TDES0_CIC_SHIFT: u32 = 22;
    /// TDES1: buffer 1 size, bits 12:0.
    pub const TDES1_TBS1_MASK: u32 = 0x1FFF;
    /// TDES1: buffer 2 size, bits 28:16.
    pub const TDES1_TBS2_SHIFT: u32 = 16;
    /// RDES1: disable interrupt on completion.
    pub const RDES1_DIC: u32 = 1 << 31;
    /// RDES1: end of ring.
    pub const RDES1_RER: u32 = 1 << 15;
    /// RDES1: second address chained (not used by this crate).
    pub const RDES1_RCH: u32 = 1 << 14;
    /// RDES1: buffer 1 size, bits 12:0.
    pub const RDES1_RBS1_MASK: u32 = 0x1FFF;
    /// RDES1: buffer 2 size, bits 28:16.
    pub const RDES1_RBS2_SHIFT: u32 = 16;
}

/// The CR codes, shared with the QoS MDIO master ([`common::csr_clock_range`](crate::common::csr_clock_range)).
pub use crate::common::{cr_divider, csr_clock_range};

/// DMA_CONTROL.EFC (bit 8): hardware flow control from the RX FIFO fill (Linux
/// `dwmac1000.h` `DMA_CONTROL_EFC` 0x100).
pub const DMA_CONTROL_EFC: u32 = 1 << 8;
/// DMA_CONTROL.RFA (bits 23, 10:9): flow control activation threshold, "full minus"
/// 1K..7K (`dwmac1000.h` `DMA_CONTROL_RFA_MASK` 0x0080_0600).
pub const DMA_CONTROL_RFA_MASK: u32 = 0x0080_0600;
/// DMA_CONTROL.RFD (bits 22, 12:11): flow control deactivation threshold
/// (`dwmac1000.h` `DMA_CONTROL_RFD_MASK` 0x0040_1800).
pub const DMA_CONTROL_RFD_MASK: u32 = 0x0040_1800;
/// RFA "full minus 1 KiB" (`dwmac1000.h` `RFA_FULL_MINUS_1K` 0).
pub const RFA_FULL_MINUS_1K: u32 = 0;
/// RFD "full minus 2 KiB" (`dwmac1000.h` `RFD_FULL_MINUS_2K` 0x800).
pub const RFD_FULL_MINUS_2K: u32 = 0x800;
/// The smallest RX FIFO Linux turns hardware flow control on for (`dwmac1000_configure_fc`:
/// `rxfifosz < 4096` clears EFC).
pub const FLOW_MIN_RX_FIFO: u32 = 4096;

/// DMA_MISSED_FRAME_CTR bits 15:0: frames missed for want of a host descriptor (Linux
/// `dwmac100.h` `DMA_MISSED_FRAME_M_CNTR`, the same CSR8 layout as the 3.x databook);
/// clear on read.
pub const MISSED_CNTR_MASK: u32 = 0x0000_FFFF;
/// DMA_MISSED_FRAME_CTR bits 27:17: frames lost to an RX FIFO overflow
/// (`dwmac100.h` `DMA_MISSED_FRAME_OVE_CNTR`).
pub const MISSED_OVF_CNTR_MASK: u32 = 0x0FFE_0000;
/// Shift of [`MISSED_OVF_CNTR_MASK`].
pub const MISSED_OVF_CNTR_SHIFT: u32 = 17;

/// DMA_HW_FEATURE.MMCSEL (bit 11): the MMC counters exist (Linux
/// `dwmac1000_get_hw_feature`).
pub const HW_FEATURE_MMCSEL: u32 = 1 << 11;
/// MMC_CNTRL (0x100; Linux `mmc_core.c`, MMC block at 0x100 on 3.x).
pub const MMC_CNTRL: Reg<u32> = Reg::new(0x100);
/// MMC_CNTRL reset-on-read (bit 2, `mmc_core.c` `MMC_CNTRL_RESET_ON_READ`).
pub const MMC_CNTRL_RESET_ON_READ: u32 = 1 << 2;
/// MMC txframecount_g (0x100 + 0x68).
pub const MMC_TX_FRAMES_G: Reg<u32> = Reg::new(0x168);
/// MMC txunderflowerror (0x100 + 0x48).
pub const MMC_TX_UNDERFLOW: Reg<u32> = Reg::new(0x148);
/// MMC rxbroadcastframes_g (0x100 + 0x8C).
pub const MMC_RX_BROADCAST_G: Reg<u32> = Reg::new(0x18C);
/// MMC rxmulticastframes_g (0x100 + 0x90).
pub const MMC_RX_MULTICAST_G: Reg<u32> = Reg::new(0x190);
/// MMC rxcrcerror (0x100 + 0x94).
pub const MMC_RX_CRC_ERROR: Reg<u32> = Reg::new(0x194);
/// MMC rxunicastframes_g (0x100 + 0xC4).
pub const MMC_RX_UNICAST_G: Reg<u32> = Reg::new(0x1C4);
/// MMC rxfifooverflow (0x100 + 0xD4).
pub const MMC_RX_FIFO_OVERFLOW: Reg<u32> = Reg::new(0x1D4);
