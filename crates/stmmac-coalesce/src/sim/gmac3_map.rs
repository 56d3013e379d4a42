//! The GMAC 3.x model's own register map and descriptor decode: every offset and field the
//! model ([`Gmac3Model`](super::Gmac3Model)) uses, each with its source. Nothing here comes
//! from the driver: the sources are Synopsys-derived Linux headers
//! (`drivers/net/ethernet/stmicro/stmmac/`: `dwmac1000.h` for the MAC, `dwmac_dma.h` for
//! the DMA, `descs.h` for the descriptors) and ST's RM0090 (STM32F4 Ethernet, the same
//! core) where Linux is silent.

// ---- MAC (dwmac1000.h) ----

/// GMAC_CONTROL (dwmac1000.h `GMAC_CONTROL` 0x00).
pub const GMAC_CONTROL: usize = 0x00;
/// GMAC_FRAME_FILTER (dwmac1000.h `GMAC_FRAME_FILTER` 0x04).
pub const GMAC_FRAME_FILTER: usize = 0x04;
/// GMAC_HASH_HIGH (dwmac1000.h `GMAC_HASH_HIGH` 0x08): multicast bins 32–63.
pub const GMAC_HASH_HIGH: usize = 0x08;
/// GMAC_HASH_LOW (dwmac1000.h `GMAC_HASH_LOW` 0x0C): bins 0–31.
pub const GMAC_HASH_LOW: usize = 0x0C;
/// GMAC_MII_ADDR (dwmac1000.h `GMAC_MII_ADDR` 0x10).
pub const GMAC_MII_ADDR: usize = 0x10;
/// GMAC_MII_DATA (dwmac1000.h `GMAC_MII_DATA` 0x14).
pub const GMAC_MII_DATA: usize = 0x14;
/// GMAC_FLOW_CTRL (dwmac1000.h `GMAC_FLOW_CTRL` 0x18).
pub const GMAC_FLOW_CTRL: usize = 0x18;
/// GMAC_VERSION (dwmac1000.h `GMAC_VERSION` 0x20).
pub const GMAC_VERSION: usize = 0x20;
/// GMAC_INT_STATUS (dwmac1000.h `GMAC_INT_STATUS` 0x38).
pub const GMAC_INT_STATUS: usize = 0x38;
/// GMAC_INT_MASK (dwmac1000.h `GMAC_INT_MASK` 0x3C).
pub const GMAC_INT_MASK: usize = 0x3C;
/// GMAC_ADDR_HIGH(0) (dwmac1000.h `GMAC_ADDR_HIGH(reg)` 0x40).
pub const GMAC_ADDR0_HIGH: usize = 0x40;
/// GMAC_ADDR_LOW(0) (dwmac1000.h `GMAC_ADDR_LOW(reg)` 0x44).
pub const GMAC_ADDR0_LOW: usize = 0x44;
/// GMAC_ADDR_HIGH.AE (dwmac1000.h `GMAC_HI_REG_AE` bit 31).
pub const ADDR_AE: u32 = 1 << 31;
/// GMAC_AN_STATUS (dwmac1000.h `GMAC_AN_STATUS` via `GMAC_PCS_BASE` 0xC0 + 0x04).
pub const GMAC_AN_STATUS: usize = 0xC4;
/// GMAC_RGSMIIIS (dwmac1000.h `GMAC_RGSMIIIS` 0xD8).
pub const GMAC_RGSMIIIS: usize = 0xD8;
/// MMC_RX_INTR_MASK (Linux `mmc.h` `MMC_RX_INTR_MASK` 0x0C from the MMC base 0x100).
pub const MMC_RX_INTR_MASK: usize = 0x10C;
/// MMC_TX_INTR_MASK (Linux `mmc.h` `MMC_TX_INTR_MASK` 0x10 from 0x100).
pub const MMC_TX_INTR_MASK: usize = 0x110;
/// MMC_RX_IPC_INTR_MASK (Linux `mmc_core.c` `MMC_RX_IPC_INTR_MASK` 0x100 from 0x100).
pub const MMC_IPC_INTR_MASK: usize = 0x200;

/// GMAC_CONTROL.RE (dwmac1000.h `GMAC_CONTROL_RE` bit 2).
pub const CONTROL_RE: u32 = 1 << 2;
/// GMAC_CONTROL.TE (dwmac1000.h `GMAC_CONTROL_TE` bit 3).
pub const CONTROL_TE: u32 = 1 << 3;
/// GMAC_CONTROL.IPC (dwmac1000.h `GMAC_CONTROL_IPC` bit 10).
pub const CONTROL_IPC: u32 = 1 << 10;
/// GMAC_CONTROL.DM (dwmac1000.h `GMAC_CONTROL_DM` bit 11).
pub const CONTROL_DM: u32 = 1 << 11;
/// GMAC_CONTROL.FES (dwmac1000.h `GMAC_CONTROL_FES` bit 14).
pub const CONTROL_FES: u32 = 1 << 14;
/// GMAC_CONTROL.PS (dwmac1000.h `GMAC_CONTROL_PS` bit 15).
pub const CONTROL_PS: u32 = 1 << 15;

/// GMAC_FRAME_FILTER.PR (dwmac1000.h `GMAC_FRAME_FILTER_PR` bit 0).
pub const FILTER_PR: u32 = 1 << 0;
/// GMAC_FRAME_FILTER.HMC (dwmac1000.h `GMAC_FRAME_FILTER_HMC` bit 2).
pub const FILTER_HMC: u32 = 1 << 2;
/// GMAC_FRAME_FILTER.PM (dwmac1000.h `GMAC_FRAME_FILTER_PM` bit 4).
pub const FILTER_PM: u32 = 1 << 4;
/// GMAC_FRAME_FILTER.DBF (dwmac1000.h `GMAC_FRAME_FILTER_DBF` bit 5).
pub const FILTER_DBF: u32 = 1 << 5;
/// GMAC_FRAME_FILTER.RA (dwmac1000.h `GMAC_FRAME_FILTER_RA` bit 31).
pub const FILTER_RA: u32 = 1 << 31;

/// GMAC_MII_ADDR.GB (dwmac1000.h `GMAC_MII_ADDR` busy bit 0, `MII_BUSY` in
/// `stmmac_mdio.c`).
pub const MII_GB: u32 = 1 << 0;
/// GMAC_MII_ADDR.GW (write, bit 1; `MII_WRITE` in `stmmac_mdio.c`).
pub const MII_GW: u32 = 1 << 1;
/// GMAC_MII_ADDR.CR shift (bits 5:2; `mii.clk_csr_shift` 2 for dwmac1000 in
/// `dwmac1000_core.c`).
pub const MII_CR_SHIFT: u32 = 2;
/// GMAC_MII_ADDR.GR shift (bits 10:6; `mii.reg_shift` 6).
pub const MII_GR_SHIFT: u32 = 6;
/// GMAC_MII_ADDR.PA shift (bits 15:11; `mii.addr_shift` 11).
pub const MII_PA_SHIFT: u32 = 11;

/// The MDC divider for a CR code (Linux `common.h` `STMMAC_CSR_*`: 0 /42, 1 /62, 2 /16,
/// 3 /26, 4 /102, 5 /124; RM0090 ETH_MACMIIAR CR). Other codes: /42, the reset divider.
pub const fn mdc_divider(cr: u32) -> u32 {
    match cr {
        0x1 => 62,
        0x2 => 16,
        0x3 => 26,
        0x4 => 102,
        0x5 => 124,
        _ => 42,
    }
}

/// GMAC_FLOW_CTRL.FCB_BPA (dwmac1000.h `GMAC_FLOW_CTRL_FCB_BPA` bit 0): write 1 sends a
/// PAUSE frame in full duplex, self-clearing.
pub const FLOW_FCB: u32 = 1 << 0;
/// GMAC_FLOW_CTRL.TFE (dwmac1000.h `GMAC_FLOW_CTRL_TFE` bit 1).
pub const FLOW_TFE: u32 = 1 << 1;
/// GMAC_FLOW_CTRL.PT shift (dwmac1000.h `GMAC_FLOW_CTRL_PT_SHIFT` 16, 16 bits).
pub const FLOW_PT_SHIFT: u32 = 16;

/// GMAC_INT_STATUS bits the DMA summarises (dwmac1000.h `GMAC_INT_STATUS_*`): RGMII (0),
/// PCS link (1), PCS AN complete (2), PMT (3), MMC (4), MMC RX (5), MMC TX (6), MMC RX IPC
/// (7).
pub const INT_MMC: u32 = 1 << 4;
/// GMAC_INT_STATUS.PMT (bit 3).
pub const INT_PMT: u32 = 1 << 3;

// ---- DMA (dwmac_dma.h) ----

/// DMA_BUS_MODE (dwmac_dma.h `DMA_BUS_MODE` 0x1000).
pub const DMA_BUS_MODE: usize = 0x1000;
/// DMA_XMT_POLL_DEMAND (dwmac_dma.h 0x1004).
pub const DMA_XMT_POLL_DEMAND: usize = 0x1004;
/// DMA_RCV_POLL_DEMAND (dwmac_dma.h 0x1008).
pub const DMA_RCV_POLL_DEMAND: usize = 0x1008;
/// DMA_RCV_BASE_ADDR (dwmac_dma.h 0x100C).
pub const DMA_RCV_BASE_ADDR: usize = 0x100C;
/// DMA_TX_BASE_ADDR (dwmac_dma.h 0x1010).
pub const DMA_TX_BASE_ADDR: usize = 0x1010;
/// DMA_STATUS (dwmac_dma.h 0x1014).
pub const DMA_STATUS: usize = 0x1014;
/// DMA_CONTROL (dwmac_dma.h 0x1018).
pub const DMA_CONTROL: usize = 0x1018;
/// DMA_INTR_ENA (dwmac_dma.h 0x101C).
pub const DMA_INTR_ENA: usize = 0x101C;
/// DMA_MISSED_FRAME_CTR (dwmac_dma.h 0x1020).
pub const DMA_MISSED_FRAME_CTR: usize = 0x1020;
/// DMA_RX_WATCHDOG (dwmac_dma.h 0x1024).
pub const DMA_RX_WATCHDOG: usize = 0x1024;
/// DMA_CUR_TX_BUF_ADDR's neighbour DMA_CUR_TX_DESC (dwmac_dma.h `DMA_CUR_TX_BUF_ADDR`
/// 0x1050 minus 8: the current host TX descriptor, 0x1048).
pub const DMA_CUR_TX_DESC: usize = 0x1048;
/// The current host RX descriptor (0x104C, RM0090 ETH_DMACHRDR).
pub const DMA_CUR_RX_DESC: usize = 0x104C;
/// DMA_HW_FEATURE (dwmac_dma.h 0x1058).
pub const DMA_HW_FEATURE: usize = 0x1058;

/// DMA_BUS_MODE.SWR (dwmac_dma.h `DMA_BUS_MODE_SFT_RESET` bit 0).
pub const BUS_MODE_SWR: u32 = 1 << 0;
/// DMA_BUS_MODE.DSL shift (dwmac_dma.h `DMA_BUS_MODE_DSL_SHIFT` 2, mask 0x7C).
pub const BUS_MODE_DSL_SHIFT: u32 = 2;
/// DMA_BUS_MODE.ATDS (dwmac_dma.h `DMA_BUS_MODE_ATDS` bit 7): alternate (32-byte)
/// descriptor size, for enhanced descriptors (RM0090 ETH_DMABMR EDFE).
pub const BUS_MODE_ATDS: u32 = 1 << 7;
/// DMA_BUS_MODE reset value: PBL 1 (bit 8), and bit 17 set as QEMU's npcm-gmac resets it
/// (`NPCM_DMA_BUS_MODE` reset 0x00020100).
pub const BUS_MODE_RESET: u32 = 0x0002_0100;

/// DMA_CONTROL.SR (dwmac_dma.h `DMA_CONTROL_SR` bit 1).
pub const CONTROL_SR: u32 = 1 << 1;
/// DMA_CONTROL.EFC (dwmac1000.h `DMA_CONTROL_EFC` 0x100): hardware flow control.
pub const CONTROL_EFC: u32 = 1 << 8;
/// DMA_CONTROL.RFA low bits shift (dwmac1000.h: "RFA field in DMA control register, bits
/// 23,10:9"; `RFA_FULL_MINUS_1K` 0 … `RFA_FULL_MINUS_7K` 0x00800400: full minus (value +
/// 1) KiB, bit 23 the value's bit 2).
pub const CONTROL_RFA_SHIFT: u32 = 9;
/// DMA_CONTROL.RFA's bit 2 (bit 23).
pub const CONTROL_RFA_MSB: u32 = 1 << 23;
/// DMA_CONTROL.RFD low bits shift (dwmac1000.h: "RFD field in DMA control register, bits
/// 22,12:11"; `RFD_FULL_MINUS_1K` 0 … `RFD_FULL_MINUS_7K` 0x00401000).
pub const CONTROL_RFD_SHIFT: u32 = 11;
/// DMA_CONTROL.RFD's bit 2 (bit 22).
pub const CONTROL_RFD_MSB: u32 = 1 << 22;
/// DMA_CONTROL.ST (dwmac_dma.h `DMA_CONTROL_ST` bit 13).
pub const CONTROL_ST: u32 = 1 << 13;

/// DMA_STATUS.TI (dwmac_dma.h `DMA_STATUS_TI` bit 0).
pub const ST_TI: u32 = 1 << 0;
/// DMA_STATUS.TPS (dwmac_dma.h `DMA_STATUS_TPS` bit 1): transmit process stopped.
pub const ST_TPS: u32 = 1 << 1;
/// DMA_STATUS.TU (dwmac_dma.h `DMA_STATUS_TU` bit 2).
pub const ST_TU: u32 = 1 << 2;
/// DMA_STATUS.UNF (dwmac_dma.h `DMA_STATUS_UNF` bit 5).
pub const ST_UNF: u32 = 1 << 5;
/// DMA_STATUS.RI (dwmac_dma.h `DMA_STATUS_RI` bit 6).
pub const ST_RI: u32 = 1 << 6;
/// DMA_STATUS.RU (dwmac_dma.h `DMA_STATUS_RU` bit 7).
pub const ST_RU: u32 = 1 << 7;
/// DMA_STATUS.RPS (dwmac_dma.h `DMA_STATUS_RPS` bit 8): receive process stopped.
pub const ST_RPS: u32 = 1 << 8;
/// DMA_STATUS.FBI (dwmac_dma.h `DMA_STATUS_FBI` bit 13).
pub const ST_FBI: u32 = 1 << 13;
/// DMA_STATUS.ERI (dwmac_dma.h `DMA_STATUS_ERI` bit 14).
pub const ST_ERI: u32 = 1 << 14;
/// DMA_STATUS.AIS (dwmac_dma.h `DMA_STATUS_AIS` bit 15).
pub const ST_AIS: u32 = 1 << 15;
/// DMA_STATUS.NIS (dwmac_dma.h `DMA_STATUS_NIS` bit 16).
pub const ST_NIS: u32 = 1 << 16;
/// DMA_STATUS.RS shift (dwmac_dma.h `DMA_STATUS_RS_SHIFT` 17, `DMA_STATUS_RS_MASK`
/// 0x000e0000).
pub const ST_RS_SHIFT: u32 = 17;
/// DMA_STATUS.TS shift (dwmac_dma.h `DMA_STATUS_TS_SHIFT` 20, `DMA_STATUS_TS_MASK`
/// 0x00700000).
pub const ST_TS_SHIFT: u32 = 20;
/// DMA_STATUS.GLI (dwmac_dma.h `DMA_STATUS_GLI` bit 26).
pub const ST_GLI: u32 = 1 << 26;
/// DMA_STATUS.GMI (dwmac_dma.h `DMA_STATUS_GMI` bit 27).
pub const ST_GMI: u32 = 1 << 27;
/// DMA_STATUS.GPI (dwmac_dma.h `DMA_STATUS_GPI` bit 28).
pub const ST_GPI: u32 = 1 << 28;
/// The write-1-to-clear bits of DMA_STATUS: 0–10 and 13–16 (RM0090 ETH_DMASR: bits 11
/// and 12 are reserved, the others "cleared by writing 1").
pub const ST_W1C: u32 = 0x0001_E7FF;
/// The NIS sources (dwmac_dma.h: "NIS = TI | TU | RI | ERI").
pub const ST_NORMAL: u32 = ST_TI | ST_TU | ST_RI | ST_ERI;
/// The AIS sources (dwmac_dma.h: "AIS = TPS | TJT | OVF | UNF | RU | RPS | RWT | ETI |
/// FBI"; bits 1, 3, 4, 5, 7, 8, 9, 10, 13).
pub const ST_ABNORMAL: u32 =
    ST_TPS | (1 << 3) | (1 << 4) | ST_UNF | ST_RU | ST_RPS | (1 << 9) | (1 << 10) | ST_FBI;

/// DMA_STATUS.TS "Stopped" (dwmac_dma.h `DMA_STATUS_TS_*`: 0 stopped).
pub const TS_STOPPED: u32 = 0;
/// TS "running, waiting for status" (2).
pub const TS_WAITING_STATUS: u32 = 2;
/// TS "running, reading data" (3).
pub const TS_READING: u32 = 3;
/// TS "suspended" (6: descriptor unavailable or underflow).
pub const TS_SUSPENDED: u32 = 6;
/// RS "Stopped" (dwmac_dma.h `DMA_STATUS_RS_*`: 0).
pub const RS_STOPPED: u32 = 0;
/// RS "running, waiting for packet" (3).
pub const RS_WAITING: u32 = 3;
/// RS "suspended" (4: descriptor unavailable).
pub const RS_SUSPENDED: u32 = 4;

/// DMA_MISSED_FRAME_CTR's missed frame counter (dwmac_dma.h `DMA_MISSED_FRAME_M_CNTR`
/// 0x0000ffff): frames lost for want of a host receive descriptor; the register clears on
/// read (RM0090 ETH_DMAMFBOCR).
pub const MISSED_MFC_MASK: u32 = 0xFFFF;
/// Its overflow bit (dwmac_dma.h `DMA_MISSED_FRAME_OVE_M` 0x00010000).
pub const MISSED_MFC_OVF: u32 = 1 << 16;
/// The FIFO overflow frame counter's shift (dwmac_dma.h `DMA_MISSED_FRAME_OVE_CNTR`
/// 0x0ffe0000: bits 27:17).
pub const MISSED_MFA_SHIFT: u32 = 17;
/// Its mask after the shift (11 bits).
pub const MISSED_MFA_MASK: u32 = 0x7FF;
/// Its overflow bit (dwmac_dma.h `DMA_MISSED_FRAME_OVE` 0x10000000).
pub const MISSED_MFA_OVF: u32 = 1 << 28;

/// DMA_HW_FEATURE.TXCOESEL (dwmac_dma.h `DMA_HW_FEAT_TXCOESEL` bit 16).
pub const HWF_TXCOESEL: u32 = 1 << 16;
/// DMA_HW_FEATURE.RXTYP1COE (bit 17).
pub const HWF_RXTYP1COE: u32 = 1 << 17;
/// DMA_HW_FEATURE.RXTYP2COE (bit 18).
pub const HWF_RXTYP2COE: u32 = 1 << 18;
/// DMA_HW_FEATURE.ENHDESSEL (dwmac_dma.h `DMA_HW_FEAT_ENHDESSEL` bit 24).
pub const HWF_ENHDESSEL: u32 = 1 << 24;

// ---- Descriptors (descs.h) ----

/// DES0: OWN (descs.h `RDES0_OWN` / `TDES0_OWN` bit 31), both layouts.
pub const OWN: u32 = 1 << 31;
/// RDES0.PCE / payload checksum error (descs.h `RDES0_PAYLOAD_CSUM_ERR` bit 0).
pub const RDES0_PCE: u32 = 1 << 0;
/// RDES0.CE (descs.h `RDES0_CRC_ERROR` bit 1).
pub const RDES0_CE: u32 = 1 << 1;
/// RDES0 dribble (descs.h `RDES0_DRIBBLING` bit 2).
pub const RDES0_DRIBBLE: u32 = 1 << 2;
/// RDES0.RWT (descs.h `RDES0_WATCHDOG_TIMEOUT` bit 4).
pub const RDES0_RWT: u32 = 1 << 4;
/// RDES0.FT (descs.h `RDES0_FRAME_TYPE` bit 5).
pub const RDES0_FT: u32 = 1 << 5;
/// RDES0 IPC checksum error (descs.h `RDES0_IPC_CSUM_ERROR` bit 7).
pub const RDES0_IPC_CSUM: u32 = 1 << 7;
/// RDES0.LS (descs.h `RDES0_LAST_DESCRIPTOR` bit 8).
pub const RDES0_LS: u32 = 1 << 8;
/// RDES0.FS (descs.h `RDES0_FIRST_DESCRIPTOR` bit 9).
pub const RDES0_FS: u32 = 1 << 9;
/// RDES0.OE (descs.h `RDES0_OVERFLOW_ERROR` bit 11).
pub const RDES0_OE: u32 = 1 << 11;
/// RDES0 length error (descs.h `RDES0_LENGTH_ERROR` bit 12).
pub const RDES0_LE: u32 = 1 << 12;
/// RDES0.DE (descs.h `RDES0_DESCRIPTOR_ERROR` bit 14).
pub const RDES0_DE: u32 = 1 << 14;
/// RDES0.ES (descs.h `RDES0_ERROR_SUMMARY` bit 15).
pub const RDES0_ES: u32 = 1 << 15;
/// RDES0.FL shift (descs.h `RDES0_FRAME_LEN_SHIFT` 16, mask 0x3FFF0000).
pub const RDES0_FL_SHIFT: u32 = 16;
/// RDES0.FL mask after the shift (14 bits).
pub const RDES0_FL_MASK: u32 = 0x3FFF;
/// RDES0 MII receive error (descs.h `RDES0_RECEIVE_ERROR` / RE bit 3).
pub const RDES0_RE: u32 = 1 << 3;
/// TDES0.ES (descs.h `TDES0_ERROR_SUMMARY` bit 15).
pub const TDES0_ES: u32 = 1 << 15;

/// The fields of a descriptor word pair in one layout (descs.h, normal or enhanced).
#[derive(Debug, Clone, Copy)]
pub struct Layout3 {
    /// RX: RBS1 mask in DES1 (normal `RDES1_BUFFER1_SIZE_MASK` 0x7FF, enhanced
    /// `ERDES1_BUFFER1_SIZE_MASK` 0x1FFF).
    pub rbs1_mask: u32,
    /// RX: end of ring (normal `RDES1_END_RING` bit 25, enhanced `ERDES1_END_RING` 15).
    pub rer: u32,
    /// RX: chained (normal `RDES1_SECOND_ADDRESS_CHAINED` 24, enhanced 14).
    pub rch: u32,
    /// RX: disable interrupt on completion (bit 31 in both).
    pub dic: u32,
    /// TX: which word holds the control bits (0: enhanced TDES0, 1: normal TDES1).
    pub tx_ctrl_word: u8,
    /// TX control: IC (normal TDES1 31, enhanced TDES0 30).
    pub ic: u32,
    /// TX control: LS (normal TDES1 30, enhanced TDES0 29).
    pub ls: u32,
    /// TX control: FS (normal TDES1 29, enhanced TDES0 28).
    pub fs: u32,
    /// TX control: TER (normal TDES1 25, enhanced TDES0 21).
    pub ter: u32,
    /// TX control: TCH (normal TDES1 24, enhanced TDES0 20).
    pub tch: u32,
    /// TX control: CIC shift (normal TDES1 27, enhanced TDES0 22).
    pub cic_shift: u32,
    /// TX: TBS1 mask in DES1 (normal 0x7FF, enhanced 0x1FFF).
    pub tbs1_mask: u32,
    /// TX: TBS2 shift in DES1 (normal 11, enhanced 16).
    pub tbs2_shift: u32,
    /// TX: TBS2 mask after the shift (normal 0x7FF, enhanced 0x1FFF).
    pub tbs2_mask: u32,
    /// TDES0 bits the enhanced write-back keeps (its control bits 30:16 but OWN; 0 on
    /// normal, whose TDES0 is all status).
    pub keep: u32,
}

/// Normal descriptors (descs.h `RDES1_*`, `TDES1_*`; norm_desc.c).
pub const NORMAL: Layout3 = Layout3 {
    rbs1_mask: 0x7FF,
    rer: 1 << 25,
    rch: 1 << 24,
    dic: 1 << 31,
    tx_ctrl_word: 1,
    ic: 1 << 31,
    ls: 1 << 30,
    fs: 1 << 29,
    ter: 1 << 25,
    tch: 1 << 24,
    cic_shift: 27,
    tbs1_mask: 0x7FF,
    tbs2_shift: 11,
    tbs2_mask: 0x7FF,
    keep: 0,
};

/// Enhanced descriptors (descs.h `ERDES1_*`, `ETDES0_*`; enh_desc.c).
pub const ENHANCED: Layout3 = Layout3 {
    rbs1_mask: 0x1FFF,
    rer: 1 << 15,
    rch: 1 << 14,
    dic: 1 << 31,
    tx_ctrl_word: 0,
    ic: 1 << 30,
    ls: 1 << 29,
    fs: 1 << 28,
    ter: 1 << 21,
    tch: 1 << 20,
    cic_shift: 22,
    tbs1_mask: 0x1FFF,
    tbs2_shift: 16,
    tbs2_mask: 0x1FFF,
    keep: 0x7FFF_0000 & !(1 << 16),
};
