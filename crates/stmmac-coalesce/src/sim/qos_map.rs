//! The QoS 4.x/5.x model's own register map and descriptor decode: every offset and field
//! the model ([`QosModel`](super::QosModel)) uses, each with its source. Nothing here comes
//! from the driver. Sources: the Synopsys-derived Linux headers
//! (`drivers/net/ethernet/stmicro/stmmac/dwmac4.h`, `dwmac4_dma.h`, `dwmac4_descs.h`),
//! NXP's i.MX RT1170 ENET_QOS description (the `imxrt-ral` crate, `enet_qos`; checked field
//! by field in `tests/model/nxp_map.rs`) and U-Boot's `drivers/net/dwc_eth_qos.c`.

// ---- MAC (dwmac4.h; RT1170 ENET_QOS) ----

/// MAC_CONFIGURATION (dwmac4.h `GMAC_CONFIG` 0x000).
pub const MAC_CONFIG: usize = 0x000;
/// MAC_PACKET_FILTER (dwmac4.h `GMAC_PACKET_FILTER` 0x008).
pub const MAC_PACKET_FILTER: usize = 0x008;
/// MAC_HASH_TABLE_REG0 (dwmac4.h `GMAC_HASH_TAB(0)` 0x010); REGn at 0x010 + 4n, n < 8.
pub const MAC_HASH_TAB0: usize = 0x010;
/// MAC_Q0_TX_FLOW_CTRL (dwmac4.h `GMAC_QX_TX_FLOW_CTRL(0)` 0x070).
pub const MAC_Q0_TX_FLOW_CTRL: usize = 0x070;
/// MAC_RX_FLOW_CTRL (dwmac4.h `GMAC_RX_FLOW_CTRL` 0x090).
pub const MAC_RX_FLOW_CTRL: usize = 0x090;
/// MAC_RXQ_CTRL0 (dwmac4.h `GMAC_RXQ_CTRL0` 0x0A0).
pub const MAC_RXQ_CTRL0: usize = 0x0A0;
/// MAC_VERSION (dwmac4.h `GMAC_VERSION` 0x110).
pub const MAC_VERSION: usize = 0x110;
/// MAC_HW_FEATURE0 (dwmac4.h `GMAC_HW_FEATURE0` 0x11C).
pub const MAC_HW_FEATURE0: usize = 0x11C;
/// MAC_HW_FEATURE1 (dwmac4.h `GMAC_HW_FEATURE1` 0x120).
pub const MAC_HW_FEATURE1: usize = 0x120;
/// MAC_HW_FEATURE2 (dwmac4.h `GMAC_HW_FEATURE2` 0x124).
pub const MAC_HW_FEATURE2: usize = 0x124;
/// MAC_HW_FEATURE3 (dwmac4.h `GMAC_HW_FEATURE3` 0x128).
pub const MAC_HW_FEATURE3: usize = 0x128;
/// MAC_MDIO_ADDRESS (dwmac4.h `GMAC_MDIO_ADDR` 0x200).
pub const MAC_MDIO_ADDRESS: usize = 0x200;
/// MAC_MDIO_DATA (dwmac4.h `GMAC_MDIO_DATA` 0x204).
pub const MAC_MDIO_DATA: usize = 0x204;
/// MAC_ADDRESS0_HIGH (dwmac4.h `GMAC_ADDR_HIGH(0)` 0x300).
pub const MAC_ADDR0_HIGH: usize = 0x300;
/// MAC_ADDRESS0_LOW (dwmac4.h `GMAC_ADDR_LOW(0)` 0x304).
pub const MAC_ADDR0_LOW: usize = 0x304;
/// MMC_CONTROL (Linux `mmc_core.c`: MMC block at 0x700 on 4.x, `MMC_CNTRL` 0x00).
pub const MMC_CONTROL: usize = 0x700;
/// MMC_RX_INTERRUPT_MASK (`mmc_core.c` `MMC_RX_INTR_MASK` 0x0C).
pub const MMC_RX_INTR_MASK: usize = 0x70C;
/// MMC_TX_INTERRUPT_MASK (`mmc_core.c` `MMC_TX_INTR_MASK` 0x10).
pub const MMC_TX_INTR_MASK: usize = 0x710;
/// MMC_IPC_RX_INTERRUPT_MASK (`mmc_core.c` `MMC_RX_IPC_INTR_MASK` 0x100).
pub const MMC_IPC_RX_INTR_MASK: usize = 0x800;

/// MAC_CONFIGURATION.RE (dwmac4.h `GMAC_CONFIG_RE` bit 0).
pub const CONFIG_RE: u32 = 1 << 0;
/// MAC_CONFIGURATION.TE (dwmac4.h `GMAC_CONFIG_TE` bit 1).
pub const CONFIG_TE: u32 = 1 << 1;
/// MAC_CONFIGURATION.DM (dwmac4.h `GMAC_CONFIG_DM` bit 13).
pub const CONFIG_DM: u32 = 1 << 13;
/// MAC_CONFIGURATION.FES (dwmac4.h `GMAC_CONFIG_FES` bit 14).
pub const CONFIG_FES: u32 = 1 << 14;
/// MAC_CONFIGURATION.PS (dwmac4.h `GMAC_CONFIG_PS` bit 15).
pub const CONFIG_PS: u32 = 1 << 15;
/// MAC_CONFIGURATION.IPC (dwmac4.h `GMAC_CONFIG_IPC` bit 27).
pub const CONFIG_IPC: u32 = 1 << 27;

/// MAC_PACKET_FILTER.PR (dwmac4.h `GMAC_PACKET_FILTER_PR` bit 0).
pub const FILTER_PR: u32 = 1 << 0;
/// MAC_PACKET_FILTER.HMC (dwmac4.h `GMAC_PACKET_FILTER_HMC` bit 2).
pub const FILTER_HMC: u32 = 1 << 2;
/// MAC_PACKET_FILTER.PM (dwmac4.h `GMAC_PACKET_FILTER_PM` bit 4).
pub const FILTER_PM: u32 = 1 << 4;
/// MAC_PACKET_FILTER.DBF (RT1170 MAC_PACKET_FILTER DBF bit 5).
pub const FILTER_DBF: u32 = 1 << 5;
/// MAC_PACKET_FILTER.RA (dwmac4.h `GMAC_PACKET_FILTER_RA` bit 31).
pub const FILTER_RA: u32 = 1 << 31;

/// MAC_Q0_TX_FLOW_CTRL.TFE (dwmac4.h `GMAC_TX_FLOW_CTRL_TFE` bit 1).
pub const TX_FLOW_TFE: u32 = 1 << 1;
/// MAC_Q0_TX_FLOW_CTRL.PT shift (dwmac4.h `GMAC_TX_FLOW_CTRL_PT_SHIFT` 16, 16 bits).
pub const TX_FLOW_PT_SHIFT: u32 = 16;

/// MAC_RXQ_CTRL0.RXQ0EN mask (dwmac4.h `GMAC_RX_QUEUE_CLEAR(0)` 0x3).
pub const RXQ0EN_MASK: u32 = 0x3;
/// RXQ0EN "enabled for AV" (dwmac4.h `GMAC_RX_AV_QUEUE_ENABLE` 0x1).
pub const RXQ0EN_AV: u32 = 0x1;
/// RXQ0EN "enabled for DCB/generic" (dwmac4.h `GMAC_RX_DCB_QUEUE_ENABLE` 0x2).
pub const RXQ0EN_DCB: u32 = 0x2;

/// MAC_VERSION.SNPSVER mask (dwmac4.h `GMAC_VERSION` bits 7:0).
pub const VERSION_SNPSVER_MASK: u32 = 0xFF;

/// MAC_HW_FEATURE0.TXCOESEL (dwmac4.h `GMAC_HW_FEAT_TXCOSEL` bit 14).
pub const HWF0_TXCOESEL: u32 = 1 << 14;
/// MAC_HW_FEATURE0.RXCOESEL (dwmac4.h `GMAC_HW_FEAT_RXCOESEL` bit 16).
pub const HWF0_RXCOESEL: u32 = 1 << 16;
/// MAC_HW_FEATURE1.RXFIFOSIZE mask (dwmac4.h `GMAC_HW_RXFIFOSIZE` bits 4:0).
pub const HWF1_RXFIFOSIZE_MASK: u32 = 0x1F;
/// MAC_HW_FEATURE1.TXFIFOSIZE shift (dwmac4.h `GMAC_HW_TXFIFOSIZE` bits 10:6).
pub const HWF1_TXFIFOSIZE_SHIFT: u32 = 6;
/// MAC_HW_FEATURE1.ADDR64 shift (dwmac4.h `GMAC_HW_ADDR64` bits 15:14).
pub const HWF1_ADDR64_SHIFT: u32 = 14;
/// MAC_HW_FEATURE1.HASHTBLSZ shift (dwmac4.h `GMAC_HW_HASH_TB_SZ` bits 25:24): 1, 2, 3
/// give 64, 128, 256 bins (`dwmac4_core.c`: `multicast_filter_bins = BIT(hash_tb_sz) << 5`).
pub const HWF1_HASHTBLSZ_SHIFT: u32 = 24;

/// MAC_MDIO_ADDRESS.GB (dwmac4.h `MII_BUSY` bit 0).
pub const MDIO_GB: u32 = 1 << 0;
/// MAC_MDIO_ADDRESS.C45E (dwmac4.h `MII_GMAC4_C45E` bit 1).
pub const MDIO_C45E: u32 = 1 << 1;
/// MAC_MDIO_ADDRESS.GOC shift (dwmac4.h `MII_GMAC4_GOC_SHIFT` 2, 2 bits).
pub const MDIO_GOC_SHIFT: u32 = 2;
/// MAC_MDIO_ADDRESS.CR shift (dwmac4_core.c `mii.clk_csr_shift` 8, 4 bits).
pub const MDIO_CR_SHIFT: u32 = 8;
/// MAC_MDIO_ADDRESS.RDA shift (`mii.reg_shift` 16, 5 bits).
pub const MDIO_RDA_SHIFT: u32 = 16;
/// MAC_MDIO_ADDRESS.PA shift (`mii.addr_shift` 21, 5 bits).
pub const MDIO_PA_SHIFT: u32 = 21;

/// The MDC divider for a CR code (RT1170 MAC_MDIO_ADDRESS CR: 0 /42, 1 /62, 2 /16, 3 /26,
/// 4 /102, 5 /124, 6 /204, 7 /324; Linux `common.h` `STMMAC_CSR_*`). Other codes: /42.
pub const fn mdc_divider(cr: u32) -> u32 {
    match cr {
        0x1 => 62,
        0x2 => 16,
        0x3 => 26,
        0x4 => 102,
        0x5 => 124,
        0x6 => 204,
        0x7 => 324,
        _ => 42,
    }
}

/// MAC_ADDRESS0_HIGH.AE (dwmac4.h `GMAC_HI_REG_AE` bit 31; reads 1 for address 0).
pub const ADDR_AE: u32 = 1 << 31;

// ---- MTL (dwmac4.h; RT1170) ----

/// MTL_OPERATION_MODE (dwmac4.h `MTL_OPERATION_MODE` 0xC00).
pub const MTL_OPERATION_MODE: usize = 0xC00;
/// MTL_RXQ_DMA_MAP0 (dwmac4.h `MTL_RXQ_DMA_MAP0` 0xC30).
pub const MTL_RXQ_DMA_MAP0: usize = 0xC30;
/// MTL_TXQ0_OPERATION_MODE (dwmac4.h `MTL_CHAN_TX_OP_MODE(0)` 0xD00).
pub const MTL_TXQ0_OP_MODE: usize = 0xD00;
/// MTL_RXQ0_OPERATION_MODE (dwmac4.h `MTL_CHAN_RX_OP_MODE(0)` 0xD30).
pub const MTL_RXQ0_OP_MODE: usize = 0xD30;
/// MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT (RT1170 0xD34; dwmac4.h `MTL_CHAN_RX_DEBUG` is
/// at 0xD38 beside it).
pub const MTL_RXQ0_MISSED: usize = 0xD34;

/// MTL_TXQ0_OPERATION_MODE.FTQ (dwmac4.h `MTL_OP_MODE_FTQ` bit 0), self-clearing.
pub const TXQ_FTQ: u32 = 1 << 0;
/// MTL_TXQ0_OPERATION_MODE.TXQEN shift (dwmac4.h `MTL_OP_MODE_TXQEN_SHIFT` 2, 2 bits).
pub const TXQ_TXQEN_SHIFT: u32 = 2;
/// TXQEN "enabled" (dwmac4.h `MTL_OP_MODE_TXQEN` = 2 << 2).
pub const TXQEN_ENABLED: u32 = 2;
/// MTL_TXQ0_OPERATION_MODE.TQS shift (dwmac4.h `MTL_OP_MODE_TQS_SHIFT` 16).
pub const TXQ_TQS_SHIFT: u32 = 16;
/// MTL_RXQ0_OPERATION_MODE.EHFC (dwmac4.h `MTL_OP_MODE_EHFC` bit 7).
pub const RXQ_EHFC: u32 = 1 << 7;
/// MTL_RXQ0_OPERATION_MODE.RFA shift (dwmac4.h `MTL_OP_MODE_RFA_SHIFT` 8, mask
/// GENMASK(13, 8); RT1170: 4 bits).
pub const RXQ_RFA_SHIFT: u32 = 8;
/// RFA/RFD field mask after the shift (dwmac4.h: 6 bits).
pub const RXQ_RF_MASK: u32 = 0x3F;
/// MTL_RXQ0_OPERATION_MODE.RFD shift (dwmac4.h `MTL_OP_MODE_RFD_SHIFT` 14, mask
/// GENMASK(19, 14)).
pub const RXQ_RFD_SHIFT: u32 = 14;
/// MTL_RXQ0_OPERATION_MODE.RQS shift (dwmac4.h `MTL_OP_MODE_RQS_SHIFT` 20).
pub const RXQ_RQS_SHIFT: u32 = 20;
/// RQS mask after the shift (dwmac4.h `MTL_OP_MODE_RQS_MASK` GENMASK(29, 20)).
pub const RXQ_RQS_MASK: u32 = 0x3FF;
/// MISSED_PACKET_OVERFLOW_CNT.OVFPKTCNT (RT1170 bits 10:0): packets dropped because the
/// RX queue overflowed; cleared on read (RT1170 field doc "cleared when read").
pub const MISSED_OVF_MASK: u32 = 0x7FF;
/// OVFCNTOVF (RT1170 bit 11): the overflow counter overflowed.
pub const MISSED_OVF_OVF: u32 = 1 << 11;
/// MISPKTCNT shift (RT1170 bits 26:16): packets the application missed (DMA without
/// descriptors), cleared on read.
pub const MISSED_MIS_SHIFT: u32 = 16;
/// MISCNTOVF (RT1170 bit 27).
pub const MISSED_MIS_OVF: u32 = 1 << 27;

// ---- DMA (dwmac4_dma.h; RT1170) ----

/// DMA_MODE (dwmac4_dma.h `DMA_BUS_MODE` 0x1000).
pub const DMA_MODE: usize = 0x1000;
/// DMA_SYSBUS_MODE (dwmac4_dma.h `DMA_SYS_BUS_MODE` 0x1004).
pub const DMA_SYSBUS_MODE: usize = 0x1004;
/// DMA_INTERRUPT_STATUS (dwmac4_dma.h `DMA_STATUS` 0x1008).
pub const DMA_STATUS: usize = 0x1008;
/// DMA_DEBUG_STATUS0 (dwmac4_dma.h `DMA_DEBUG_STATUS_0` 0x100C; RT1170 DMA_DEBUG_STATUS0).
pub const DMA_DEBUG_STATUS0: usize = 0x100C;
/// DMA channel 0 (dwmac4_dma.h `DMA_CHAN_BASE_ADDR` 0x1100, `DMA_CHAN_BASE_OFFSET` 0x80).
pub const DMA_CHAN0: usize = 0x1100;
/// DMA_CH0_CONTROL (dwmac4_dma.h `DMA_CHAN_CONTROL` +0x00).
pub const DMA_CH0_CONTROL: usize = DMA_CHAN0;
/// DMA_CH0_TX_CONTROL (+0x04).
pub const DMA_CH0_TX_CONTROL: usize = DMA_CHAN0 + 0x04;
/// DMA_CH0_RX_CONTROL (+0x08).
pub const DMA_CH0_RX_CONTROL: usize = DMA_CHAN0 + 0x08;
/// DMA_CH0_TXDESC_LIST_HADDRESS (dwmac4_dma.h `DMA_CHAN_TX_BASE_HADDR` +0x10).
pub const DMA_CH0_TX_BASE_HI: usize = DMA_CHAN0 + 0x10;
/// DMA_CH0_TXDESC_LIST_ADDRESS (`DMA_CHAN_TX_BASE_ADDR` +0x14).
pub const DMA_CH0_TX_BASE_LO: usize = DMA_CHAN0 + 0x14;
/// DMA_CH0_RXDESC_LIST_HADDRESS (`DMA_CHAN_RX_BASE_HADDR` +0x18).
pub const DMA_CH0_RX_BASE_HI: usize = DMA_CHAN0 + 0x18;
/// DMA_CH0_RXDESC_LIST_ADDRESS (`DMA_CHAN_RX_BASE_ADDR` +0x1C).
pub const DMA_CH0_RX_BASE_LO: usize = DMA_CHAN0 + 0x1C;
/// DMA_CH0_TXDESC_TAIL_POINTER (`DMA_CHAN_TX_END_ADDR` +0x20).
pub const DMA_CH0_TX_TAIL: usize = DMA_CHAN0 + 0x20;
/// DMA_CH0_RXDESC_TAIL_POINTER (`DMA_CHAN_RX_END_ADDR` +0x28).
pub const DMA_CH0_RX_TAIL: usize = DMA_CHAN0 + 0x28;
/// DMA_CH0_TXDESC_RING_LENGTH (`DMA_CHAN_TX_RING_LEN` +0x2C).
pub const DMA_CH0_TX_RING_LEN: usize = DMA_CHAN0 + 0x2C;
/// DMA_CH0_RXDESC_RING_LENGTH (`DMA_CHAN_RX_RING_LEN` +0x30).
pub const DMA_CH0_RX_RING_LEN: usize = DMA_CHAN0 + 0x30;
/// DMA_CH0_INTERRUPT_ENABLE (`DMA_CHAN_INTR_ENA` +0x34).
pub const DMA_CH0_INTR_ENA: usize = DMA_CHAN0 + 0x34;
/// DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER (`DMA_CHAN_RX_WATCHDOG` +0x38).
pub const DMA_CH0_RX_WATCHDOG: usize = DMA_CHAN0 + 0x38;
/// DMA_CH0_CURRENT_APP_TXDESC (`DMA_CHAN_CUR_TX_DESC` +0x44).
pub const DMA_CH0_CUR_TX_DESC: usize = DMA_CHAN0 + 0x44;
/// DMA_CH0_CURRENT_APP_RXDESC (`DMA_CHAN_CUR_RX_DESC` +0x4C).
pub const DMA_CH0_CUR_RX_DESC: usize = DMA_CHAN0 + 0x4C;
/// DMA_CH0_STATUS (`DMA_CHAN_STATUS` +0x60).
pub const DMA_CH0_STATUS: usize = DMA_CHAN0 + 0x60;
/// DMA_CH0_MISS_FRAME_CNT on a 4.10 core (dwmac4_dma.h `DMA_CHAN_MISSED_FRAME_COUNT`
/// +0x6C in the 4.x-era header).
pub const DMA_CH0_MISSED_4_10: usize = DMA_CHAN0 + 0x6C;
/// DMA_CH0_MISS_FRAME_CNT on a 5.x core (+0x64: RT1170 `DMA_CH0_MISS_FRAME_CNT`, and the
/// STM32N6's ETH_DMAC0MFCR).
pub const DMA_CH0_MISSED_5_X: usize = DMA_CHAN0 + 0x64;

/// DMA_MODE.SWR (dwmac4_dma.h `DMA_BUS_MODE_SFT_RESET` bit 0).
pub const MODE_SWR: u32 = 1 << 0;
/// DMA_SYSBUS_MODE.EAME (dwmac4_dma.h `DMA_SYS_BUS_EAME` bit 11).
pub const SYSBUS_EAME: u32 = 1 << 11;
/// DMA_CH_CONTROL.DSL shift (dwmac4_dma.h `DMA_BUS_MODE_DSL_SHIFT` 18, 3 bits).
pub const CH_DSL_SHIFT: u32 = 18;
/// DMA_CH_TX_CONTROL.ST (dwmac4_dma.h `DMA_CONTROL_ST` bit 0).
pub const TX_ST: u32 = 1 << 0;
/// DMA_CH_RX_CONTROL.SR (dwmac4_dma.h `DMA_CONTROL_SR` bit 0).
pub const RX_SR: u32 = 1 << 0;
/// DMA_CH_RX_CONTROL.RBSZ shift (dwmac4_dma.h `DMA_RBSZ_SHIFT` 1, 14 bits; RT1170 splits it
/// into RBSZ_X_0 bits 3:1, read-only 0 below the bus width, and RBSZ_13_Y bits 14:4).
pub const RX_RBSZ_SHIFT: u32 = 1;
/// RBSZ mask after the shift (14 bits).
pub const RX_RBSZ_MASK: u32 = 0x3FFF;
/// DMA_CH_RX_WATCHDOG.RWT mask (dwmac4_dma.h `DMA_RX_WATCHDOG` RWT bits 7:0).
pub const RWT_MASK: u32 = 0xFF;
/// DMA_CH_RX_WATCHDOG.RWTU shift (RT1170 RWTU bits 17:16; 5.x cores, SNPSVER 0x42 on per
/// Linux `dwmac4_dma.c` `dwmac4_rx_watchdog` users).
pub const RWTU_SHIFT: u32 = 16;

/// DMA_CH_STATUS.TI (dwmac4_dma.h `DMA_CHAN_STATUS_TI` bit 0; RT1170 DMA_CH0_STATUS TI).
pub const CH_TI: u32 = 1 << 0;
/// TPS (bit 1): the TX process entered Stopped.
pub const CH_TPS: u32 = 1 << 1;
/// TBU (bit 2).
pub const CH_TBU: u32 = 1 << 2;
/// RI (bit 6).
pub const CH_RI: u32 = 1 << 6;
/// RBU (bit 7).
pub const CH_RBU: u32 = 1 << 7;
/// RPS (bit 8): the RX process entered Stopped.
pub const CH_RPS: u32 = 1 << 8;
/// RWT (bit 9).
pub const CH_RWT: u32 = 1 << 9;
/// ETI (bit 10).
pub const CH_ETI: u32 = 1 << 10;
/// ERI (bit 11).
pub const CH_ERI: u32 = 1 << 11;
/// FBE (bit 12).
pub const CH_FBE: u32 = 1 << 12;
/// CDE (bit 13).
pub const CH_CDE: u32 = 1 << 13;
/// AIS (bit 14).
pub const CH_AIS: u32 = 1 << 14;
/// NIS (bit 15).
pub const CH_NIS: u32 = 1 << 15;
/// The write-1-to-clear bits (RT1170: bits 15:0 W1C; TEB 18:16 and REB 21:19 read-only).
pub const CH_W1C: u32 = 0xFFFF;
/// NIS sources (RT1170 DMA_CH0_STATUS NIS: "TI, TBU, RI, ERI"; dwmac4_dma.h
/// `DMA_CHAN_STATUS_NORMAL`).
pub const CH_NORMAL: u32 = CH_TI | CH_TBU | CH_RI | CH_ERI;
/// AIS sources (RT1170 DMA_CH0_STATUS AIS: "TPS, RPS, RWT, ETI, FBE, CDE" and RBU;
/// dwmac4_dma.h `DMA_CHAN_STATUS_ABNORMAL`).
pub const CH_ABNORMAL: u32 = CH_TPS | CH_RBU | CH_RPS | CH_RWT | CH_ETI | CH_FBE | CH_CDE;
/// DMA_CH_INTR_ENA NIE from 4.10 on (dwmac4_dma.h `DMA_CHAN_INTR_ENA_NIE_4_10` bit 15).
pub const NIE_4_10: u32 = 1 << 15;
/// AIE from 4.10 on (`DMA_CHAN_INTR_ENA_AIE_4_10` bit 14).
pub const AIE_4_10: u32 = 1 << 14;
/// NIE on 4.00 (`DMA_CHAN_INTR_ENA_NIE` bit 16).
pub const NIE_4_00: u32 = 1 << 16;
/// AIE on 4.00 (`DMA_CHAN_INTR_ENA_AIE` bit 15).
pub const AIE_4_00: u32 = 1 << 15;
/// The writable bits of DMA_CH_INTR_ENA (the sources, and both versions' NIE/AIE).
pub const INTR_ENA_MASK: u32 = 0x1_FFC7;
/// DMA_CH_MISS_FRAME_CNT.MFC (RT1170 bits 10:0), cleared on read.
pub const CH_MISSED_MFC_MASK: u32 = 0x7FF;
/// MFCO (RT1170 bit 15): MFC overflowed.
pub const CH_MISSED_MFCO: u32 = 1 << 15;

/// DMA_DEBUG_STATUS0.RPS0 shift (RT1170 RPS0 bits 11:8, channel 0's RX process state).
pub const DEBUG_RPS0_SHIFT: u32 = 8;
/// DMA_DEBUG_STATUS0.TPS0 shift (RT1170 TPS0 bits 15:12).
pub const DEBUG_TPS0_SHIFT: u32 = 12;
/// Process state Stopped (RT1170 RPS0/TPS0 0: "Stopped (Reset or Stop command issued)").
pub const PS_STOPPED: u32 = 0;
/// RX state "running, waiting for packet" (RT1170 RPS0 3).
pub const RPS_WAITING: u32 = 3;
/// RX state "suspended, descriptor unavailable" (RT1170 RPS0 4).
pub const RPS_SUSPENDED: u32 = 4;
/// TX state "running, waiting for status" (RT1170 TPS0 2).
pub const TPS_WAITING_STATUS: u32 = 2;
/// TX state "suspended" (RT1170 TPS0 6: descriptor unavailable or underflow).
pub const TPS_SUSPENDED: u32 = 6;

// ---- Descriptors (dwmac4_descs.h) ----

/// DES3.OWN (dwmac4_descs.h `TDES3_OWN` / `RDES3_OWN` bit 31).
pub const OWN: u32 = 1 << 31;
/// DES3.CTXT (`TDES3_CONTEXT_TYPE` / `RDES3_CONTEXT_DESCRIPTOR` bit 30).
pub const CTXT: u32 = 1 << 30;
/// DES3.FD (`TDES3_FIRST_DESCRIPTOR` / `RDES3_FIRST_DESCRIPTOR` bit 29).
pub const FD: u32 = 1 << 29;
/// DES3.LD (`TDES3_LAST_DESCRIPTOR` / `RDES3_LAST_DESCRIPTOR` bit 28).
pub const LD: u32 = 1 << 28;
/// TDES2.IOC (`TDES2_INTERRUPT_ON_COMPLETION` bit 31).
pub const TDES2_IOC: u32 = 1 << 31;
/// TDES2.B1L (`TDES2_BUFFER1_SIZE_MASK` bits 13:0).
pub const TDES2_B1L_MASK: u32 = 0x3FFF;
/// TDES3.CIC shift (`TDES3_CHECKSUM_INSERTION_SHIFT` 16).
pub const TDES3_CIC_SHIFT: u32 = 16;
/// RDES3 read format IOC (`RDES3_INT_ON_COMPLETION_EN` bit 30).
pub const RDES3_IOC: u32 = 1 << 30;
/// RDES3 read format BUF1V (`RDES3_BUFFER1_VALID_ADDR` bit 24).
pub const RDES3_BUF1V: u32 = 1 << 24;
/// RDES3 write-back PL (`RDES3_PACKET_SIZE_MASK` bits 14:0).
pub const RDES3_PL_MASK: u32 = 0x7FFF;
/// RDES3 ES (`RDES3_ERROR_SUMMARY` bit 15).
pub const RDES3_ES: u32 = 1 << 15;
/// RDES3 DE, dribble (`RDES3_DRIBBLE_ERROR` bit 19).
pub const RDES3_DE: u32 = 1 << 19;
/// RDES3 RE (`RDES3_RECEIVE_ERROR` bit 20).
pub const RDES3_RE: u32 = 1 << 20;
/// RDES3 OE (`RDES3_OVERFLOW_ERROR` bit 21).
pub const RDES3_OE: u32 = 1 << 21;
/// RDES3 RWT (`RDES3_RECEIVE_WATCHDOG` bit 22).
pub const RDES3_RWT: u32 = 1 << 22;
/// RDES3 CE (`RDES3_CRC_ERROR` bit 24).
pub const RDES3_CE: u32 = 1 << 24;
/// RDES3 RS1V (`RDES3_RDES1_VALID` bit 26).
pub const RDES3_RS1V: u32 = 1 << 26;
/// RDES1 IPV4 header present (`RDES1_IPV4_HEADER` bit 4).
pub const RDES1_IPV4: u32 = 1 << 4;
/// RDES1 payload type mask (`RDES1_IP_PAYLOAD_TYPE_MASK` bits 2:0: UDP 1, TCP 2, ICMP 3).
pub const RDES1_PT_MASK: u32 = 0x7;
/// RDES1 IPHE (`RDES1_IP_HDR_ERROR` bit 3).
pub const RDES1_IPHE: u32 = 1 << 3;
/// RDES1 IPCE (`RDES1_IP_PAYLOAD_ERROR` bit 7).
pub const RDES1_IPCE: u32 = 1 << 7;
