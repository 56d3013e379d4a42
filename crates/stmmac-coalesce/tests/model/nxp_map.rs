//! The QoS model's own register map (`sim::qos_map`) against a second vendor's description:
//! NXP's i.MX RT1170 ENET_QOS (a 5.10a core) in the `imxrt-ral` crate, as
//! `tests/model/pac.rs` checks the driver's map against ST's STM32H7 SVD. Every offset and
//! field position the model decodes is compared; where the RT1170 differs, the test says
//! why and checks the difference is the one the model knows about.

use core::mem::offset_of;

use imxrt_ral::enet_qos as nxp;
use stmmac_coalesce::sim::qos_map as q;

/// `(register offset, field offset, field mask in place)` of an NXP field.
macro_rules! f {
    ($reg:ident, $field:ident) => {
        (
            offset_of!(nxp::RegisterBlock, $reg),
            nxp::$reg::$field::offset,
            nxp::$reg::$field::mask,
        )
    };
}

/// The NXP offset of `reg`.
macro_rules! o {
    ($reg:ident) => {
        offset_of!(nxp::RegisterBlock, $reg)
    };
}

#[test]
fn register_offsets_match_nxp() {
    let pairs: &[(&str, usize, usize)] = &[
        ("MAC_CONFIG", q::MAC_CONFIG, o!(MAC_CONFIGURATION)),
        (
            "MAC_PACKET_FILTER",
            q::MAC_PACKET_FILTER,
            o!(MAC_PACKET_FILTER),
        ),
        ("MAC_HASH_TAB0", q::MAC_HASH_TAB0, o!(MAC_HASH_TABLE_REG0)),
        (
            "MAC_HASH_TAB1",
            q::MAC_HASH_TAB0 + 4,
            o!(MAC_HASH_TABLE_REG1),
        ),
        (
            "MAC_Q0_TX_FLOW_CTRL",
            q::MAC_Q0_TX_FLOW_CTRL,
            o!(MAC_Q0_TX_FLOW_CTRL),
        ),
        (
            "MAC_RX_FLOW_CTRL",
            q::MAC_RX_FLOW_CTRL,
            o!(MAC_RX_FLOW_CTRL),
        ),
        ("MAC_RXQ_CTRL0", q::MAC_RXQ_CTRL0, o!(MAC_RXQ_CTRL0)),
        ("MAC_VERSION", q::MAC_VERSION, o!(MAC_VERSION)),
        ("MAC_HW_FEATURE0", q::MAC_HW_FEATURE0, o!(MAC_HW_FEATURE0)),
        ("MAC_HW_FEATURE1", q::MAC_HW_FEATURE1, o!(MAC_HW_FEATURE1)),
        ("MAC_HW_FEATURE2", q::MAC_HW_FEATURE2, o!(MAC_HW_FEATURE2)),
        ("MAC_HW_FEATURE3", q::MAC_HW_FEATURE3, o!(MAC_HW_FEATURE3)),
        (
            "MAC_MDIO_ADDRESS",
            q::MAC_MDIO_ADDRESS,
            o!(MAC_MDIO_ADDRESS),
        ),
        ("MAC_MDIO_DATA", q::MAC_MDIO_DATA, o!(MAC_MDIO_DATA)),
        ("MAC_ADDR0_HIGH", q::MAC_ADDR0_HIGH, o!(MAC_ADDRESS0_HIGH)),
        ("MAC_ADDR0_LOW", q::MAC_ADDR0_LOW, o!(MAC_ADDRESS0_LOW)),
        ("MMC_CONTROL", q::MMC_CONTROL, o!(MAC_MMC_CONTROL)),
        (
            "MMC_RX_INTR_MASK",
            q::MMC_RX_INTR_MASK,
            o!(MAC_MMC_RX_INTERRUPT_MASK),
        ),
        (
            "MMC_TX_INTR_MASK",
            q::MMC_TX_INTR_MASK,
            o!(MAC_MMC_TX_INTERRUPT_MASK),
        ),
        (
            "MMC_IPC_RX_INTR_MASK",
            q::MMC_IPC_RX_INTR_MASK,
            o!(MAC_MMC_IPC_RX_INTERRUPT_MASK),
        ),
        (
            "MTL_OPERATION_MODE",
            q::MTL_OPERATION_MODE,
            o!(MTL_OPERATION_MODE),
        ),
        (
            "MTL_RXQ_DMA_MAP0",
            q::MTL_RXQ_DMA_MAP0,
            o!(MTL_RXQ_DMA_MAP0),
        ),
        (
            "MTL_TXQ0_OP_MODE",
            q::MTL_TXQ0_OP_MODE,
            o!(MTL_TXQ0_OPERATION_MODE),
        ),
        (
            "MTL_RXQ0_OP_MODE",
            q::MTL_RXQ0_OP_MODE,
            o!(MTL_RXQ0_OPERATION_MODE),
        ),
        (
            "MTL_RXQ0_MISSED",
            q::MTL_RXQ0_MISSED,
            o!(MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT),
        ),
        ("DMA_MODE", q::DMA_MODE, o!(DMA_MODE)),
        ("DMA_SYSBUS_MODE", q::DMA_SYSBUS_MODE, o!(DMA_SYSBUS_MODE)),
        ("DMA_STATUS", q::DMA_STATUS, o!(DMA_INTERRUPT_STATUS)),
        (
            "DMA_DEBUG_STATUS0",
            q::DMA_DEBUG_STATUS0,
            o!(DMA_DEBUG_STATUS0),
        ),
        ("DMA_CH0_CONTROL", q::DMA_CH0_CONTROL, o!(DMA_CH0_CONTROL)),
        (
            "DMA_CH0_TX_CONTROL",
            q::DMA_CH0_TX_CONTROL,
            o!(DMA_CH0_TX_CONTROL),
        ),
        (
            "DMA_CH0_RX_CONTROL",
            q::DMA_CH0_RX_CONTROL,
            o!(DMA_CH0_RX_CONTROL),
        ),
        (
            "DMA_CH0_TX_BASE_LO",
            q::DMA_CH0_TX_BASE_LO,
            o!(DMA_CH0_TXDESC_LIST_ADDRESS),
        ),
        (
            "DMA_CH0_RX_BASE_LO",
            q::DMA_CH0_RX_BASE_LO,
            o!(DMA_CH0_RXDESC_LIST_ADDRESS),
        ),
        (
            "DMA_CH0_TX_TAIL",
            q::DMA_CH0_TX_TAIL,
            o!(DMA_CH0_TXDESC_TAIL_POINTER),
        ),
        (
            "DMA_CH0_RX_TAIL",
            q::DMA_CH0_RX_TAIL,
            o!(DMA_CH0_RXDESC_TAIL_POINTER),
        ),
        (
            "DMA_CH0_TX_RING_LEN",
            q::DMA_CH0_TX_RING_LEN,
            o!(DMA_CH0_TXDESC_RING_LENGTH),
        ),
        (
            "DMA_CH0_RX_RING_LEN",
            q::DMA_CH0_RX_RING_LEN,
            o!(DMA_CH0_RXDESC_RING_LENGTH),
        ),
        (
            "DMA_CH0_INTR_ENA",
            q::DMA_CH0_INTR_ENA,
            o!(DMA_CH0_INTERRUPT_ENABLE),
        ),
        (
            "DMA_CH0_RX_WATCHDOG",
            q::DMA_CH0_RX_WATCHDOG,
            o!(DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER),
        ),
        (
            "DMA_CH0_CUR_TX_DESC",
            q::DMA_CH0_CUR_TX_DESC,
            o!(DMA_CH0_CURRENT_APP_TXDESC),
        ),
        (
            "DMA_CH0_CUR_RX_DESC",
            q::DMA_CH0_CUR_RX_DESC,
            o!(DMA_CH0_CURRENT_APP_RXDESC),
        ),
        ("DMA_CH0_STATUS", q::DMA_CH0_STATUS, o!(DMA_CH0_STATUS)),
        // The RT1170 is a 5.10a core: its missed-frame counter is the 5.x one (+0x64).
        (
            "DMA_CH0_MISSED_5_X",
            q::DMA_CH0_MISSED_5_X,
            o!(DMA_CH0_MISS_FRAME_CNT),
        ),
    ];
    for &(name, model, nxp) in pairs {
        assert_eq!(model, nxp, "{name}: model {model:#x}, NXP {nxp:#x}");
    }
    // Where the RT1170 differs, on purpose:
    // - the 4.10 counter sits 8 bytes further (+0x6C, Linux's 4.x `dwmac4_dma.h`), where
    //   the RT1170 has DMA_CH0_RX_ERI_CNT: the model chooses by MAC_VERSION.
    assert_eq!(q::DMA_CH0_MISSED_4_10, o!(DMA_CH0_MISS_FRAME_CNT) + 8);
    assert_eq!(q::DMA_CH0_MISSED_4_10, o!(DMA_CH0_RX_ERI_CNT));
    // - the RT1170 has a 32-bit bus: no TX/RX list high-address registers; the model
    //   keeps them just below the low ones, where Linux's `DMA_CHAN_*_BASE_HADDR` are.
    assert_eq!(q::DMA_CH0_TX_BASE_HI + 4, q::DMA_CH0_TX_BASE_LO);
    assert_eq!(q::DMA_CH0_RX_BASE_HI + 4, q::DMA_CH0_RX_BASE_LO);
}

/// An NXP field: (register offset, field offset, mask in place).
type NxpField = (usize, u32, u32);

#[test]
fn field_positions_match_nxp() {
    // (name, model mask in place, NXP (register offset, field offset, mask in place), the
    // model register's offset)
    let single: &[(&str, u32, NxpField, usize)] = &[
        ("RE", q::CONFIG_RE, f!(MAC_CONFIGURATION, RE), q::MAC_CONFIG),
        ("TE", q::CONFIG_TE, f!(MAC_CONFIGURATION, TE), q::MAC_CONFIG),
        ("DM", q::CONFIG_DM, f!(MAC_CONFIGURATION, DM), q::MAC_CONFIG),
        (
            "FES",
            q::CONFIG_FES,
            f!(MAC_CONFIGURATION, FES),
            q::MAC_CONFIG,
        ),
        ("PS", q::CONFIG_PS, f!(MAC_CONFIGURATION, PS), q::MAC_CONFIG),
        (
            "IPC",
            q::CONFIG_IPC,
            f!(MAC_CONFIGURATION, IPC),
            q::MAC_CONFIG,
        ),
        (
            "PR",
            q::FILTER_PR,
            f!(MAC_PACKET_FILTER, PR),
            q::MAC_PACKET_FILTER,
        ),
        (
            "HMC",
            q::FILTER_HMC,
            f!(MAC_PACKET_FILTER, HMC),
            q::MAC_PACKET_FILTER,
        ),
        (
            "PM",
            q::FILTER_PM,
            f!(MAC_PACKET_FILTER, PM),
            q::MAC_PACKET_FILTER,
        ),
        (
            "DBF",
            q::FILTER_DBF,
            f!(MAC_PACKET_FILTER, DBF),
            q::MAC_PACKET_FILTER,
        ),
        (
            "RA",
            q::FILTER_RA,
            f!(MAC_PACKET_FILTER, RA),
            q::MAC_PACKET_FILTER,
        ),
        (
            "TFE",
            q::TX_FLOW_TFE,
            f!(MAC_Q0_TX_FLOW_CTRL, TFE),
            q::MAC_Q0_TX_FLOW_CTRL,
        ),
        (
            "PT",
            0xFFFF << q::TX_FLOW_PT_SHIFT,
            f!(MAC_Q0_TX_FLOW_CTRL, PT),
            q::MAC_Q0_TX_FLOW_CTRL,
        ),
        (
            "RXQ0EN",
            q::RXQ0EN_MASK,
            f!(MAC_RXQ_CTRL0, RXQ0EN),
            q::MAC_RXQ_CTRL0,
        ),
        (
            "SNPSVER",
            q::VERSION_SNPSVER_MASK,
            f!(MAC_VERSION, SNPSVER),
            q::MAC_VERSION,
        ),
        (
            "TXCOESEL",
            q::HWF0_TXCOESEL,
            f!(MAC_HW_FEATURE0, TXCOESEL),
            q::MAC_HW_FEATURE0,
        ),
        (
            "RXCOESEL",
            q::HWF0_RXCOESEL,
            f!(MAC_HW_FEATURE0, RXCOESEL),
            q::MAC_HW_FEATURE0,
        ),
        (
            "RXFIFOSIZE",
            q::HWF1_RXFIFOSIZE_MASK,
            f!(MAC_HW_FEATURE1, RXFIFOSIZE),
            q::MAC_HW_FEATURE1,
        ),
        (
            "TXFIFOSIZE",
            0x1F << q::HWF1_TXFIFOSIZE_SHIFT,
            f!(MAC_HW_FEATURE1, TXFIFOSIZE),
            q::MAC_HW_FEATURE1,
        ),
        (
            "ADDR64",
            3 << q::HWF1_ADDR64_SHIFT,
            f!(MAC_HW_FEATURE1, ADDR64),
            q::MAC_HW_FEATURE1,
        ),
        (
            "HASHTBLSZ",
            3 << q::HWF1_HASHTBLSZ_SHIFT,
            f!(MAC_HW_FEATURE1, HASHTBLSZ),
            q::MAC_HW_FEATURE1,
        ),
        (
            "GB",
            q::MDIO_GB,
            f!(MAC_MDIO_ADDRESS, GB),
            q::MAC_MDIO_ADDRESS,
        ),
        (
            "C45E",
            q::MDIO_C45E,
            f!(MAC_MDIO_ADDRESS, C45E),
            q::MAC_MDIO_ADDRESS,
        ),
        (
            "CR",
            0xF << q::MDIO_CR_SHIFT,
            f!(MAC_MDIO_ADDRESS, CR),
            q::MAC_MDIO_ADDRESS,
        ),
        (
            "RDA",
            0x1F << q::MDIO_RDA_SHIFT,
            f!(MAC_MDIO_ADDRESS, RDA),
            q::MAC_MDIO_ADDRESS,
        ),
        (
            "PA",
            0x1F << q::MDIO_PA_SHIFT,
            f!(MAC_MDIO_ADDRESS, PA),
            q::MAC_MDIO_ADDRESS,
        ),
        (
            "AE",
            q::ADDR_AE,
            f!(MAC_ADDRESS0_HIGH, AE),
            q::MAC_ADDR0_HIGH,
        ),
        (
            "FTQ",
            q::TXQ_FTQ,
            f!(MTL_TXQ0_OPERATION_MODE, FTQ),
            q::MTL_TXQ0_OP_MODE,
        ),
        (
            "TXQEN",
            3 << q::TXQ_TXQEN_SHIFT,
            f!(MTL_TXQ0_OPERATION_MODE, TXQEN),
            q::MTL_TXQ0_OP_MODE,
        ),
        (
            "EHFC",
            q::RXQ_EHFC,
            f!(MTL_RXQ0_OPERATION_MODE, EHFC),
            q::MTL_RXQ0_OP_MODE,
        ),
        (
            "OVFPKTCNT",
            q::MISSED_OVF_MASK,
            f!(MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT, OVFPKTCNT),
            q::MTL_RXQ0_MISSED,
        ),
        (
            "OVFCNTOVF",
            q::MISSED_OVF_OVF,
            f!(MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT, OVFCNTOVF),
            q::MTL_RXQ0_MISSED,
        ),
        (
            "MISPKTCNT",
            q::MISSED_OVF_MASK << q::MISSED_MIS_SHIFT,
            f!(MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT, MISPKTCNT),
            q::MTL_RXQ0_MISSED,
        ),
        (
            "MISCNTOVF",
            q::MISSED_MIS_OVF,
            f!(MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT, MISCNTOVF),
            q::MTL_RXQ0_MISSED,
        ),
        ("SWR", q::MODE_SWR, f!(DMA_MODE, SWR), q::DMA_MODE),
        (
            "DSL",
            7 << q::CH_DSL_SHIFT,
            f!(DMA_CH0_CONTROL, DSL),
            q::DMA_CH0_CONTROL,
        ),
        (
            "ST",
            q::TX_ST,
            f!(DMA_CH0_TX_CONTROL, ST),
            q::DMA_CH0_TX_CONTROL,
        ),
        (
            "SR",
            q::RX_SR,
            f!(DMA_CH0_RX_CONTROL, SR),
            q::DMA_CH0_RX_CONTROL,
        ),
        (
            "RWT",
            q::RWT_MASK,
            f!(DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER, RWT),
            q::DMA_CH0_RX_WATCHDOG,
        ),
        (
            "RWTU",
            3 << q::RWTU_SHIFT,
            f!(DMA_CH0_RX_INTERRUPT_WATCHDOG_TIMER, RWTU),
            q::DMA_CH0_RX_WATCHDOG,
        ),
        ("TI", q::CH_TI, f!(DMA_CH0_STATUS, TI), q::DMA_CH0_STATUS),
        ("TPS", q::CH_TPS, f!(DMA_CH0_STATUS, TPS), q::DMA_CH0_STATUS),
        ("TBU", q::CH_TBU, f!(DMA_CH0_STATUS, TBU), q::DMA_CH0_STATUS),
        ("RI", q::CH_RI, f!(DMA_CH0_STATUS, RI), q::DMA_CH0_STATUS),
        ("RBU", q::CH_RBU, f!(DMA_CH0_STATUS, RBU), q::DMA_CH0_STATUS),
        ("RPS", q::CH_RPS, f!(DMA_CH0_STATUS, RPS), q::DMA_CH0_STATUS),
        ("RWT", q::CH_RWT, f!(DMA_CH0_STATUS, RWT), q::DMA_CH0_STATUS),
        ("ETI", q::CH_ETI, f!(DMA_CH0_STATUS, ETI), q::DMA_CH0_STATUS),
        ("ERI", q::CH_ERI, f!(DMA_CH0_STATUS, ERI), q::DMA_CH0_STATUS),
        ("FBE", q::CH_FBE, f!(DMA_CH0_STATUS, FBE), q::DMA_CH0_STATUS),
        ("CDE", q::CH_CDE, f!(DMA_CH0_STATUS, CDE), q::DMA_CH0_STATUS),
        ("AIS", q::CH_AIS, f!(DMA_CH0_STATUS, AIS), q::DMA_CH0_STATUS),
        ("NIS", q::CH_NIS, f!(DMA_CH0_STATUS, NIS), q::DMA_CH0_STATUS),
        (
            "NIE",
            q::NIE_4_10,
            f!(DMA_CH0_INTERRUPT_ENABLE, NIE),
            q::DMA_CH0_INTR_ENA,
        ),
        (
            "AIE",
            q::AIE_4_10,
            f!(DMA_CH0_INTERRUPT_ENABLE, AIE),
            q::DMA_CH0_INTR_ENA,
        ),
        (
            "MFC",
            q::CH_MISSED_MFC_MASK,
            f!(DMA_CH0_MISS_FRAME_CNT, MFC),
            q::DMA_CH0_MISSED_5_X,
        ),
        (
            "MFCO",
            q::CH_MISSED_MFCO,
            f!(DMA_CH0_MISS_FRAME_CNT, MFCO),
            q::DMA_CH0_MISSED_5_X,
        ),
        (
            "RPS0",
            0xF << q::DEBUG_RPS0_SHIFT,
            f!(DMA_DEBUG_STATUS0, RPS0),
            q::DMA_DEBUG_STATUS0,
        ),
        (
            "TPS0",
            0xF << q::DEBUG_TPS0_SHIFT,
            f!(DMA_DEBUG_STATUS0, TPS0),
            q::DMA_DEBUG_STATUS0,
        ),
    ];
    for &(name, model, (reg, off, mask), model_reg) in single {
        assert_eq!(
            model_reg, reg,
            "{name}: register {model_reg:#x} vs NXP {reg:#x}"
        );
        assert_eq!(
            model, mask,
            "{name}: model {model:#x}, NXP {mask:#x} (offset {off})"
        );
        assert_eq!(model.trailing_zeros(), off, "{name}: position");
    }
    // The W1C set is every status bit below TEB (bits 15:0; TEB and REB are read-only).
    assert_eq!(q::CH_W1C, (1 << nxp::DMA_CH0_STATUS::TEB::offset) - 1);
}

#[test]
fn fields_where_nxp_is_narrower_or_split() {
    // RBSZ: dwmac4_dma.h has one 14-bit field at bit 1; the RT1170 splits it into
    // RBSZ_X_0 (bits 3:1, read-only 0 below its 8-byte bus) and RBSZ_13_Y (bits 14:4).
    // The model's field is their union, and it truncates to the bus width itself.
    let rbsz = q::RX_RBSZ_MASK << q::RX_RBSZ_SHIFT;
    let x0 = nxp::DMA_CH0_RX_CONTROL::RBSZ_X_0::mask;
    let y = nxp::DMA_CH0_RX_CONTROL::RBSZ_13_Y::mask;
    assert_eq!(rbsz, x0 | y);
    assert_eq!(x0 & y, 0);
    // RFA/RFD: dwmac4.h's fields are 6 bits (GENMASK(13, 8), GENMASK(19, 14)) for FIFOs up
    // to 32 KiB; the RT1170's are the low 4 of them (its FIFO is smaller). Same positions.
    let rfa = nxp::MTL_RXQ0_OPERATION_MODE::RFA::mask;
    let rfd = nxp::MTL_RXQ0_OPERATION_MODE::RFD::mask;
    assert_eq!(nxp::MTL_RXQ0_OPERATION_MODE::RFA::offset, q::RXQ_RFA_SHIFT);
    assert_eq!(nxp::MTL_RXQ0_OPERATION_MODE::RFD::offset, q::RXQ_RFD_SHIFT);
    assert_eq!(rfa & !(q::RXQ_RF_MASK << q::RXQ_RFA_SHIFT), 0);
    assert_eq!(rfd & !(q::RXQ_RF_MASK << q::RXQ_RFD_SHIFT), 0);
    // RQS and TQS: dwmac4.h's are 10 and 9 bits; the RT1170's 5 (8 KiB FIFOs). Same
    // positions, NXP's inside the model's.
    let rqs = nxp::MTL_RXQ0_OPERATION_MODE::RQS::mask;
    assert_eq!(nxp::MTL_RXQ0_OPERATION_MODE::RQS::offset, q::RXQ_RQS_SHIFT);
    assert_eq!(rqs & !(q::RXQ_RQS_MASK << q::RXQ_RQS_SHIFT), 0);
    let tqs = nxp::MTL_TXQ0_OPERATION_MODE::TQS::mask;
    assert_eq!(nxp::MTL_TXQ0_OPERATION_MODE::TQS::offset, q::TXQ_TQS_SHIFT);
    assert_eq!(tqs & !(0x1FF << q::TXQ_TQS_SHIFT), 0);
    // GOC: one 2-bit field in dwmac4.h, two 1-bit fields (GOC_0, GOC_1) at NXP.
    assert_eq!(
        nxp::MAC_MDIO_ADDRESS::GOC_0::mask | nxp::MAC_MDIO_ADDRESS::GOC_1::mask,
        3 << q::MDIO_GOC_SHIFT
    );
    // The RT1170's DMA_SYSBUS_MODE has no EAME: a 32-bit address bus. The model's EAME
    // (bit 11, dwmac4_dma.h `DMA_SYS_BUS_EAME`) lies in a bit the RT1170 leaves reserved.
    let sysbus_fields = nxp::DMA_SYSBUS_MODE::FB::mask
        | nxp::DMA_SYSBUS_MODE::AALE::mask
        | nxp::DMA_SYSBUS_MODE::AAL::mask
        | nxp::DMA_SYSBUS_MODE::ONEKBBE::mask;
    assert_eq!(sysbus_fields & q::SYSBUS_EAME, 0);
    // 4.00's NIE/AIE positions (16/15) are not the RT1170's (a 5.10 core uses 15/14).
    assert_ne!(q::NIE_4_00, nxp::DMA_CH0_INTERRUPT_ENABLE::NIE::mask);
    // The process state encodings the model reports (RT1170 RPS0/TPS0 value docs).
    assert_eq!(q::PS_STOPPED, 0);
    assert_eq!(q::RPS_WAITING, 3);
    assert_eq!(q::RPS_SUSPENDED, 4);
    assert_eq!(q::TPS_SUSPENDED, 6);
}
