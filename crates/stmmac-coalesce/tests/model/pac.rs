//! `qos::regs` (the QoS 4.x/5.x map) cross-checked against a source nobody here wrote: ST's
//! STM32H7 register description, as svd2rust generates it in the `stm32h7` PAC 0.16.0
//! (`stm32h743v`, a 4.10a core: MAC_VERSION resets to 0x3041).
//!
//! How, without hardware: each PAC register block (`ETHERNET_MAC` at +0x0000 of the
//! Ethernet block, `ETHERNET_MTL` at +0x0C00, `ETHERNET_DMA` at +0x1000) is instantiated
//! zeroed in host memory (never at its MMIO address). A register's offset is its address in
//! that copy minus the copy's base. A field's bit mask is found by storing each single bit
//! `1 << k` in the host copy and asking the PAC's generated reader whether the field reads
//! non-zero; a bit the PAC does not define at all leaves the whole register's `Debug`
//! output unchanged.
//!
//! Every `Reg` constant, every `register_bitfields!` field and every bit/mask constant of
//! `src/qos/regs.rs` is either checked here or listed in a "not covered" table with the reason
//! (the H7 lacks it: 10/100 only, one queue, one channel, 32-bit addressing), and those
//! absences are themselves checked. `every_qos_regs_item_is_checked_or_listed` parses
//! `src/qos/regs.rs` so that a new item cannot slip through unchecked.
//!
//! The descriptor bits (`regs::desc`) live in memory, not in the SVD; they are checked
//! against the bit positions of Linux's `dwmac4_descs.h` (facts only) at the end.

use std::collections::BTreeSet;
use std::mem::MaybeUninit;

use hwtimer_core::Reg;
use stm32h7::stm32h743v::{ethernet_dma, ethernet_mac, ethernet_mtl};
use stmmac_coalesce::qos::regs::{self, chan, desc};
use tock_registers::RegisterLongName;
use tock_registers::fields::Field;

/// The MTL block's offset from the Ethernet block base (PAC `ETHERNET_MTL` 0x4002_8C00 −
/// `ETHERNET_MAC` 0x4002_8000).
const MTL_BASE: usize = 0x0C00;
/// The DMA block's offset (PAC `ETHERNET_DMA` 0x4002_9000 − 0x4002_8000).
const DMA_BASE: usize = 0x1000;

#[test]
fn pac_block_bases_are_the_ones_assumed() {
    let mac = stm32h7::stm32h743v::ETHERNET_MAC::ptr() as usize;
    let mtl = stm32h7::stm32h743v::ETHERNET_MTL::ptr() as usize;
    let dma = stm32h7::stm32h743v::ETHERNET_DMA::ptr() as usize;
    assert_eq!(mtl - mac, MTL_BASE);
    assert_eq!(dma - mac, DMA_BASE);
}

/// A PAC register block in zeroed host memory.
fn host_block<RB>() -> Box<RB> {
    let zeroed: Box<MaybeUninit<RB>> = Box::new(MaybeUninit::zeroed());
    // SAFETY: svd2rust register blocks are `#[repr(C)]` structs of `Reg` (a
    // `VolatileCell<u32>` and a `PhantomData`) and `[u8; N]` padding: all-zero bytes are a
    // valid value of every field. The block lives in ordinary host memory, not at the MMIO
    // address, so reading and writing it touches only this allocation.
    unsafe { zeroed.assume_init() }
}

struct Blocks {
    mac: Box<ethernet_mac::RegisterBlock>,
    mtl: Box<ethernet_mtl::RegisterBlock>,
    dma: Box<ethernet_dma::RegisterBlock>,
}

fn blocks() -> Blocks {
    Blocks {
        mac: host_block(),
        mtl: host_block(),
        dma: host_block(),
    }
}

/// Byte offset of a PAC register inside its block.
fn off<RB, T>(rb: &RB, r: &T) -> usize {
    r as *const T as usize - rb as *const RB as usize
}

/// Whether a PAC field reader's value is non-zero (its `Debug` is the value itself).
fn nonzero(r: &impl core::fmt::Debug) -> bool {
    let s = format!("{r:?}");
    s != "0" && s != "false"
}

/// The bit mask the PAC gives field `$f` of register `$reg` in host block `$rb`.
macro_rules! pac_mask {
    ($rb:expr, $reg:ident . $f:ident) => {{
        let rb = &*$rb;
        let mut mask = 0u32;
        for k in 0..32 {
            // SAFETY: `rb` is a host-memory copy (`host_block`), not MMIO.
            unsafe { rb.$reg().as_ptr().write_volatile(1u32 << k) };
            if nonzero(&rb.$reg().read().$f()) {
                mask |= 1 << k;
            }
        }
        // SAFETY: as above.
        unsafe { rb.$reg().as_ptr().write_volatile(0) };
        mask
    }};
}

/// The bits of `$bits` that the PAC's register `$reg` does not define in any field.
macro_rules! pac_undefined {
    ($rb:expr, $reg:ident, $bits:expr) => {{
        let rb = &*$rb;
        // SAFETY: host-memory copy (`host_block`), not MMIO.
        unsafe { rb.$reg().as_ptr().write_volatile(0) };
        let zero = format!("{:?}", rb.$reg().read());
        let mut undefined = 0u32;
        for k in 0..32 {
            if $bits & (1u32 << k) == 0 {
                continue;
            }
            // SAFETY: as above.
            unsafe { rb.$reg().as_ptr().write_volatile(1u32 << k) };
            if format!("{:?}", rb.$reg().read()) == zero {
                undefined |= 1 << k;
            }
        }
        // SAFETY: as above.
        unsafe { rb.$reg().as_ptr().write_volatile(0) };
        undefined
    }};
}

fn tock_mask<R: RegisterLongName>(f: Field<u32, R>) -> u32 {
    f.mask << f.shift
}

fn reg_off<R: RegisterLongName>(r: Reg<u32, R>) -> usize {
    r.offset()
}

/// `(first bit, width)` of a contiguous mask.
fn span(mask: u32) -> (u32, u32) {
    let lo = mask.trailing_zeros();
    let width = (mask >> lo).trailing_ones();
    assert_eq!(mask >> lo >> width, 0, "mask {mask:#x} is not contiguous");
    (lo, width)
}

/// Names the checks went through, for the coverage test.
#[derive(Default)]
struct Seen(BTreeSet<String>);

impl Seen {
    fn add(&mut self, name: &str) {
        assert!(self.0.insert(name.to_owned()), "{name} checked twice");
    }
}

// ---------------------------------------------------------------------------------------
// Register offsets.

/// The `Reg` constants the H7 lacks, with the reason, and the two PAC registers between
/// which the offset falls (adjacent in the PAC's `RegisterBlock`: it defines nothing in
/// between), as `(name, offset, lower neighbour end, upper neighbour start, reason)`.
fn absent_registers(b: &Blocks) -> Vec<(&'static str, usize, usize, usize, &'static str)> {
    let (mac, mtl, dma) = (&*b.mac, &*b.mtl, &*b.dma);
    vec![
        (
            "MMC_TX_UNDERFLOW",
            reg_off(regs::MMC_TX_UNDERFLOW),
            off(mac, mac.mmc_tx_interrupt_mask()) + 4,
            off(mac, mac.tx_single_collision_good_packets()),
            "ST's SVD describes only some MMC counters (Linux mmc_core.c: 0x700 + 0x48)",
        ),
        (
            "MMC_RX_BROADCAST_G",
            reg_off(regs::MMC_RX_BROADCAST_G),
            off(mac, mac.tx_packet_count_good()) + 4,
            off(mac, mac.rx_crc_error_packets()),
            "ST's SVD describes only some MMC counters (Linux mmc_core.c: 0x700 + 0x8c)",
        ),
        (
            "MMC_RX_MULTICAST_G",
            reg_off(regs::MMC_RX_MULTICAST_G),
            off(mac, mac.tx_packet_count_good()) + 4,
            off(mac, mac.rx_crc_error_packets()),
            "ST's SVD describes only some MMC counters (Linux mmc_core.c: 0x700 + 0x90)",
        ),
        (
            "MMC_RX_FIFO_OVERFLOW",
            reg_off(regs::MMC_RX_FIFO_OVERFLOW),
            off(mac, mac.rx_unicast_packets_good()) + 4,
            off(mac, mac.tx_lpi_usec_cntr()),
            "ST's SVD describes only some MMC counters (Linux mmc_core.c: 0x700 + 0xd4; NXP RT1170 0x7d4)",
        ),
        (
            "DMA_CH0_MISSED_5X",
            reg_off(regs::DMA_CH0_MISSED_5X),
            DMA_BASE + off(dma, dma.dmacsr()) + 4,
            DMA_BASE + off(dma, dma.dmacmfcr()),
            "the 5.x position (NXP RT1170 DMA_CH0_MISS_FRAME_CNT 0x1164); the H7 is a 4.10",
        ),
        (
            "MAC_RXQ_CTRL0",
            reg_off(regs::MAC_RXQ_CTRL0),
            off(mac, mac.macrx_fcr()) + 4,
            off(mac, mac.macisr()),
            "the H7 has one RX queue; ST's SVD leaves 0x0A0-0x0AF reserved (Linux dwmac4.h: GMAC_RXQ_CTRL0 0xa0)",
        ),
        (
            "MAC_HW_FEATURE0",
            reg_off(regs::MAC_HW_FEATURE0),
            off(mac, mac.macdr()) + 4,
            off(mac, mac.machwf1r()),
            "ST's SVD omits MACHWF0R (RM0433 documents it); Linux dwmac4.h: GMAC_HW_FEATURE0 0x11c",
        ),
        (
            "MAC_HW_FEATURE3",
            reg_off(regs::MAC_HW_FEATURE3),
            off(mac, mac.machwf2r()) + 4,
            off(mac, mac.macmdioar()),
            "HW_FEATURE3 describes 5.x features; absent on the 4.10a (Linux dwmac4.h: GMAC_HW_FEATURE3 0x128)",
        ),
        (
            "MMC_IPC_RX_INTR_MASK",
            reg_off(regs::MMC_IPC_RX_INTR_MASK),
            off(mac, mac.rx_lpi_tran_cntr()) + 4,
            off(mac, mac.macl3l4c0r()),
            "ST's SVD describes only some MMC registers (no RX checksum-offload counters); Linux mmc_core.c: MMC base 0x700 + 0x100",
        ),
        (
            "MTL_RXQ_DMA_MAP0",
            reg_off(regs::MTL_RXQ_DMA_MAP0),
            MTL_BASE + off(mtl, mtl.mtlisr()) + 4,
            MTL_BASE + off(mtl, mtl.mtltx_qomr()),
            "one RX queue and one channel: nothing to map (Linux dwmac4.h: MTL_RXQ_DMA_MAP0 0xc30)",
        ),
        (
            "DMA_CH0_TX_BASE_HI",
            reg_off(regs::DMA_CH0_TX_BASE_HI),
            DMA_BASE + off(dma, dma.dmacrx_cr()) + 4,
            DMA_BASE + off(dma, dma.dmactx_dlar()),
            "32-bit addressing only (HW_FEATURE1.ADDR64 = 0); Linux dwmac4_dma.h: channel + 0x10",
        ),
        (
            "DMA_CH0_RX_BASE_HI",
            reg_off(regs::DMA_CH0_RX_BASE_HI),
            DMA_BASE + off(dma, dma.dmactx_dlar()) + 4,
            DMA_BASE + off(dma, dma.dmacrx_dlar()),
            "32-bit addressing only; Linux dwmac4_dma.h: channel + 0x18",
        ),
    ]
}

fn check_offsets(seen: &mut Seen) {
    let b = blocks();
    let (mac, mtl, dma) = (&*b.mac, &*b.mtl, &*b.dma);
    macro_rules! at {
        ($name:ident, $base:expr, $rb:expr, $pac:ident) => {{
            let want = $base + off($rb, $rb.$pac());
            assert_eq!(
                reg_off(regs::$name),
                want,
                "regs::{} at {:#x}, PAC {} at {:#x}",
                stringify!($name),
                reg_off(regs::$name),
                stringify!($pac),
                want
            );
            seen.add(stringify!($name));
        }};
    }
    at!(MAC_CONFIG, 0, mac, maccr);
    at!(MAC_PACKET_FILTER, 0, mac, macpfr);
    at!(MAC_HASH_TAB0, 0, mac, macht0r);
    at!(MAC_HASH_TAB1, 0, mac, macht1r);
    at!(MAC_Q0_TX_FLOW_CTRL, 0, mac, macqtx_fcr);
    at!(MAC_RX_FLOW_CTRL, 0, mac, macrx_fcr);
    at!(MAC_INT_STATUS, 0, mac, macisr);
    at!(MAC_INT_EN, 0, mac, macier);
    at!(MAC_VERSION, 0, mac, macvr);
    at!(MAC_HW_FEATURE1, 0, mac, machwf1r);
    at!(MAC_HW_FEATURE2, 0, mac, machwf2r);
    at!(MAC_MDIO_ADDRESS, 0, mac, macmdioar);
    at!(MAC_MDIO_DATA, 0, mac, macmdiodr);
    at!(MAC_ADDR0_HIGH, 0, mac, maca0hr);
    at!(MAC_ADDR0_LOW, 0, mac, maca0lr);
    at!(MMC_CONTROL, 0, mac, mmc_control);
    at!(MMC_RX_INTR_MASK, 0, mac, mmc_rx_interrupt_mask);
    at!(MMC_TX_INTR_MASK, 0, mac, mmc_tx_interrupt_mask);
    at!(MMC_TX_FRAMES_G, 0, mac, tx_packet_count_good);
    at!(MMC_RX_CRC_ERROR, 0, mac, rx_crc_error_packets);
    at!(MMC_RX_UNICAST_G, 0, mac, rx_unicast_packets_good);
    at!(MTL_OPERATION_MODE, MTL_BASE, mtl, mtlomr);
    at!(MTL_TXQ0_OP_MODE, MTL_BASE, mtl, mtltx_qomr);
    at!(MTL_Q0_INT_CTRL, MTL_BASE, mtl, mtlqicsr);
    at!(MTL_RXQ0_OP_MODE, MTL_BASE, mtl, mtlrx_qomr);
    at!(MTL_RXQ0_MISSED, MTL_BASE, mtl, mtlrx_qmpocr);
    at!(DMA_MODE, DMA_BASE, dma, dmamr);
    at!(DMA_SYSBUS_MODE, DMA_BASE, dma, dmasbmr);
    at!(DMA_STATUS, DMA_BASE, dma, dmaisr);
    at!(DMA_DEBUG_STATUS0, DMA_BASE, dma, dmadsr);
    at!(DMA_CH0_CONTROL, DMA_BASE, dma, dmaccr);
    at!(DMA_CH0_TX_CONTROL, DMA_BASE, dma, dmactx_cr);
    at!(DMA_CH0_RX_CONTROL, DMA_BASE, dma, dmacrx_cr);
    at!(DMA_CH0_TX_BASE_LO, DMA_BASE, dma, dmactx_dlar);
    at!(DMA_CH0_RX_BASE_LO, DMA_BASE, dma, dmacrx_dlar);
    at!(DMA_CH0_TX_TAIL, DMA_BASE, dma, dmactx_dtpr);
    at!(DMA_CH0_RX_TAIL, DMA_BASE, dma, dmacrx_dtpr);
    at!(DMA_CH0_TX_RING_LEN, DMA_BASE, dma, dmactx_rlr);
    at!(DMA_CH0_RX_RING_LEN, DMA_BASE, dma, dmacrx_rlr);
    at!(DMA_CH0_INTR_ENA, DMA_BASE, dma, dmacier);
    at!(DMA_CH0_RX_WATCHDOG, DMA_BASE, dma, dmacrx_iwtr);
    at!(DMA_CH0_CUR_TX_DESC, DMA_BASE, dma, dmaccatx_dr);
    at!(DMA_CH0_CUR_RX_DESC, DMA_BASE, dma, dmaccarx_dr);
    at!(DMA_CH0_STATUS, DMA_BASE, dma, dmacsr);
    at!(DMA_CH0_MISSED, DMA_BASE, dma, dmacmfcr);

    // The registers the H7 lacks really are absent: their offset falls in the reserved
    // gap between two adjacent PAC registers.
    for (name, at, gap_lo, gap_hi, why) in absent_registers(&b) {
        assert!(
            gap_lo <= at && at + 4 <= gap_hi,
            "regs::{name} at {at:#x} is not in the PAC's gap {gap_lo:#x}..{gap_hi:#x} ({why})"
        );
        seen.add(name);
    }
}

#[test]
fn register_offsets_match_the_pac() {
    check_offsets(&mut Seen::default());
}

// ---------------------------------------------------------------------------------------
// Register fields.

fn check_fields(seen: &mut Seen) {
    let b = blocks();
    let (mac, mtl, dma) = (&*b.mac, &*b.mtl, &*b.dma);
    // qos::regs field == the PAC's field, offset and width.
    macro_rules! same {
        ($rb:expr, $reg:ident . $f:ident, $tock:ident :: $tf:ident) => {{
            let pac = pac_mask!($rb, $reg.$f);
            let ours = tock_mask(regs::$tock::$tf);
            assert_ne!(
                pac,
                0,
                "PAC {}.{} read no bit",
                stringify!($reg),
                stringify!($f)
            );
            assert_eq!(
                span(ours),
                span(pac),
                "regs::{}::{} (bit, width) vs PAC {}.{}",
                stringify!($tock),
                stringify!($tf),
                stringify!($reg),
                stringify!($f)
            );
            seen.add(concat!(stringify!($tock), "::", stringify!($tf)));
        }};
    }
    // The field the H7 lacks: no PAC field of the register covers any of its bits.
    macro_rules! absent {
        ($rb:expr, $reg:ident, $tock:ident :: $tf:ident, $why:expr) => {{
            let ours = tock_mask(regs::$tock::$tf);
            assert_eq!(
                pac_undefined!($rb, $reg, ours),
                ours,
                "regs::{}::{} ({}) is defined by the PAC after all",
                stringify!($tock),
                stringify!($tf),
                $why
            );
            seen.add(concat!(stringify!($tock), "::", stringify!($tf)));
        }};
    }
    // The H7 implements only the low bits of a field the core defines wider: same first
    // bit, the PAC's width not more than ours, and the PAC defines none of our upper bits.
    macro_rules! narrower {
        ($rb:expr, $reg:ident . $f:ident, $tock:ident :: $tf:ident, $why:expr) => {{
            let pac = pac_mask!($rb, $reg.$f);
            let ours = tock_mask(regs::$tock::$tf);
            let ((p_lo, p_w), (o_lo, o_w)) = (span(pac), span(ours));
            assert_eq!(
                p_lo,
                o_lo,
                "regs::{}::{} first bit",
                stringify!($tock),
                stringify!($tf)
            );
            assert!(
                p_w <= o_w,
                "regs::{}::{} narrower than the PAC",
                stringify!($tock),
                stringify!($tf)
            );
            let upper = ours & !pac;
            assert_eq!(pac_undefined!($rb, $reg, upper), upper, "{}", $why);
            seen.add(concat!(stringify!($tock), "::", stringify!($tf)));
        }};
    }

    same!(mac, maccr.re, MAC_CONFIG::RE);
    same!(mac, maccr.te, MAC_CONFIG::TE);
    same!(mac, maccr.dcrs, MAC_CONFIG::DCRS);
    same!(mac, maccr.lm, MAC_CONFIG::LM);
    same!(mac, maccr.dm, MAC_CONFIG::DM);
    same!(mac, maccr.fes, MAC_CONFIG::FES);
    absent!(
        mac,
        maccr,
        MAC_CONFIG::PS,
        "10/100-only MAC: no port select (Linux dwmac4.h GMAC_CONFIG_PS BIT(15))"
    );
    same!(mac, maccr.je, MAC_CONFIG::JE);
    same!(mac, maccr.jd, MAC_CONFIG::JD);
    same!(mac, maccr.wd, MAC_CONFIG::WD);
    same!(mac, maccr.acs, MAC_CONFIG::ACS);
    same!(mac, maccr.cst, MAC_CONFIG::CST);
    same!(mac, maccr.s2kp, MAC_CONFIG::S2KP);
    same!(mac, maccr.ipg, MAC_CONFIG::IPG);
    same!(mac, maccr.ipc, MAC_CONFIG::IPC);

    same!(mac, macpfr.pr, MAC_PACKET_FILTER::PR);
    same!(mac, macpfr.huc, MAC_PACKET_FILTER::HUC);
    same!(mac, macpfr.hmc, MAC_PACKET_FILTER::HMC);
    same!(mac, macpfr.daif, MAC_PACKET_FILTER::DAIF);
    same!(mac, macpfr.pm, MAC_PACKET_FILTER::PM);
    same!(mac, macpfr.dbf, MAC_PACKET_FILTER::DBF);
    same!(mac, macpfr.pcf, MAC_PACKET_FILTER::PCF);
    same!(mac, macpfr.hpf, MAC_PACKET_FILTER::HPF);
    same!(mac, macpfr.ra, MAC_PACKET_FILTER::RA);

    same!(mac, macvr.snpsver, MAC_VERSION::SNPSVER);
    same!(mac, macvr.userver, MAC_VERSION::USERVER);

    same!(mac, macmdioar.mb, MAC_MDIO_ADDRESS::GB);
    same!(mac, macmdioar.c45e, MAC_MDIO_ADDRESS::C45E);
    same!(mac, macmdioar.goc, MAC_MDIO_ADDRESS::GOC);
    same!(mac, macmdioar.cr, MAC_MDIO_ADDRESS::CR);
    same!(mac, macmdioar.rda, MAC_MDIO_ADDRESS::RDA);
    same!(mac, macmdioar.pa, MAC_MDIO_ADDRESS::PA);
    same!(mac, macmdiodr.md, MAC_MDIO_DATA::GD);
    same!(mac, macmdiodr.ra, MAC_MDIO_DATA::RA);

    same!(mtl, mtltx_qomr.ftq, MTL_TXQ_OP_MODE::FTQ);
    same!(mtl, mtltx_qomr.tsf, MTL_TXQ_OP_MODE::TSF);
    same!(mtl, mtltx_qomr.txqen, MTL_TXQ_OP_MODE::TXQEN);
    same!(mtl, mtltx_qomr.ttc, MTL_TXQ_OP_MODE::TTC);
    narrower!(
        mtl,
        mtltx_qomr.tqs,
        MTL_TXQ_OP_MODE::TQS,
        "TQS: the H7 (2 KB TX FIFO, one queue) has bits 18:16; the core's field is 24:16 (Linux dwmac4.h MTL_OP_MODE_TQS_MASK)"
    );
    same!(mtl, mtlrx_qomr.rtc, MTL_RXQ_OP_MODE::RTC);
    same!(mtl, mtlrx_qomr.fup, MTL_RXQ_OP_MODE::FUP);
    same!(mtl, mtlrx_qomr.fep, MTL_RXQ_OP_MODE::FEP);
    same!(mtl, mtlrx_qomr.rsf, MTL_RXQ_OP_MODE::RSF);
    same!(mtl, mtlrx_qomr.dis_tcp_ef, MTL_RXQ_OP_MODE::DIS_TCP_EF);
    narrower!(
        mtl,
        mtlrx_qomr.rqs,
        MTL_RXQ_OP_MODE::RQS,
        "RQS: the H7 (2 KB RX FIFO, one queue) has bits 22:20; the core's field is 29:20 (Linux dwmac4.h MTL_OP_MODE_RQS_MASK)"
    );

    same!(dma, dmamr.swr, DMA_MODE::SWR);
    same!(dma, dmamr.intm, DMA_MODE::INTM);
    same!(dma, dmasbmr.fb, DMA_SYSBUS_MODE::FB);
    absent!(
        dma,
        dmasbmr,
        DMA_SYSBUS_MODE::EAME,
        "32-bit-only DMA: no enhanced address mode (Linux dwmac4_dma.h DMA_SYS_BUS_EAME BIT(11))"
    );
    same!(dma, dmasbmr.aal, DMA_SYSBUS_MODE::AAL);
    same!(dma, dmaccr.pblx8, DMA_CH_CONTROL::PBLX8);
    same!(dma, dmaccr.dsl, DMA_CH_CONTROL::DSL);
    same!(dma, dmactx_cr.st, DMA_CH_TX_CONTROL::ST);
    same!(dma, dmactx_cr.osf, DMA_CH_TX_CONTROL::OSF);
    same!(dma, dmactx_cr.txpbl, DMA_CH_TX_CONTROL::TXPBL);
    same!(dma, dmacrx_cr.sr, DMA_CH_RX_CONTROL::SR);
    same!(dma, dmacrx_cr.rbsz, DMA_CH_RX_CONTROL::RBSZ);
    same!(dma, dmacrx_cr.rxpbl, DMA_CH_RX_CONTROL::RXPBL);
    same!(dma, dmacrx_iwtr.rwt, DMA_CH_RX_WATCHDOG::RWT);
    absent!(
        dma,
        dmacrx_iwtr,
        DMA_CH_RX_WATCHDOG::RWTU,
        "the 4.10a's watchdog unit is fixed at 256 CSR cycles: no RWTU (the STM32H5's newer core has it at 17:16)"
    );
}

#[test]
fn register_fields_match_the_pac() {
    check_fields(&mut Seen::default());
}

// ---------------------------------------------------------------------------------------
// Bit and mask constants.

/// The constants the PAC cannot check, with the reason.
const CONSTS_NOT_COVERED: &[(&str, &str)] = &[
    (
        "HWF0_MMCSEL",
        "no MACHWF0R in ST's SVD (Linux dwmac4.h: GMAC_HW_FEAT_MMCSEL BIT(8))",
    ),
    (
        "MTL_OP_MODE_EHFC",
        "no EHFC in ST's MTLRXQOMR (Linux dwmac4.h: MTL_OP_MODE_EHFC BIT(7))",
    ),
    (
        "MTL_OP_MODE_RFA_SHIFT",
        "no RFA in ST's MTLRXQOMR (Linux dwmac4.h: MTL_OP_MODE_RFA_SHIFT 8)",
    ),
    (
        "MTL_OP_MODE_RFD_SHIFT",
        "no RFD in ST's MTLRXQOMR (Linux dwmac4.h: MTL_OP_MODE_RFD_SHIFT 14)",
    ),
    (
        "MTL_OP_MODE_RF_MASK",
        "no RFA/RFD in ST's MTLRXQOMR (Linux dwmac4.h: MTL_OP_MODE_RFA_MASK GENMASK(13, 8))",
    ),
    (
        "FLOW_MIN_RX_QUEUE",
        "a driver policy (Linux dwmac4_dma_rx_chan_op_mode: fifosz >= 4096)",
    ),
    (
        "DMA_CHAN_STRIDE",
        "the H7 has one DMA channel (Linux dwmac4_dma.h: DMA_CHAN_BASE_OFFSET 0x80)",
    ),
    (
        "HWF0_TXCOESEL",
        "no MACHWF0R in ST's SVD (Linux dwmac4.h: GMAC_HW_FEAT_TXCOSEL BIT(14))",
    ),
    (
        "HWF0_RXCOESEL",
        "no MACHWF0R in ST's SVD (Linux dwmac4.h: GMAC_HW_FEAT_RXCOESEL BIT(16))",
    ),
    (
        "RXQ0EN_DCB",
        "no MAC_RXQ_CTRL0 on the H7 (Linux dwmac4.h: GMAC_RX_DCB_QUEUE_ENABLE(0) = BIT(1))",
    ),
    (
        "RXQ0EN_MASK",
        "no MAC_RXQ_CTRL0 on the H7 (Linux dwmac4.h: GMAC_RX_QUEUE_CLEAR(0) clears bits 1:0)",
    ),
    (
        "MMC_DEFAULT_MASK",
        "a value (every interrupt masked), not a field",
    ),
    (
        "chan::NIE_4_00",
        "the H7 is a 4.10a (MAC_VERSION resets to 0x3041); Linux dwmac4_dma.h: DMA_CHAN_INTR_ENA_NIE BIT(16)",
    ),
    (
        "chan::AIE_4_00",
        "the H7 is a 4.10a; Linux dwmac4_dma.h: DMA_CHAN_INTR_ENA_AIE BIT(15)",
    ),
];

fn check_consts(seen: &mut Seen) {
    let b = blocks();
    let (mac, mtl, dma) = (&*b.mac, &*b.mtl, &*b.dma);
    macro_rules! bit {
        ($name:expr, $ours:expr, $rb:expr, $reg:ident . $f:ident) => {{
            assert_eq!(
                $ours,
                pac_mask!($rb, $reg.$f),
                "{} vs PAC {}.{}",
                $name,
                stringify!($reg),
                stringify!($f)
            );
            seen.add($name);
        }};
    }

    assert_eq!(regs::DMA_CHAN0, DMA_BASE + off(dma, dma.dmaccr()));
    seen.add("DMA_CHAN0");
    // DMADSR RPS0 "Bits 8:11", TPS0 "Bits 12:15".
    assert_eq!(
        span(pac_mask!(dma, dmadsr.rps0)),
        (regs::DEBUG_RPS0_SHIFT, regs::DEBUG_PS_MASK.count_ones())
    );
    assert_eq!(
        span(pac_mask!(dma, dmadsr.tps0)),
        (regs::DEBUG_TPS0_SHIFT, regs::DEBUG_PS_MASK.count_ones())
    );
    seen.add("DEBUG_RPS0_SHIFT");
    seen.add("DEBUG_TPS0_SHIFT");
    seen.add("DEBUG_PS_MASK");
    let rdrl = pac_mask!(dma, dmacrx_rlr.rdrl);
    assert_eq!(pac_mask!(dma, dmactx_rlr.tdrl), rdrl);
    assert_eq!(span(rdrl), (0, 10));
    assert_eq!(regs::MAX_RING_LEN, 1 << span(rdrl).1);
    seen.add("MAX_RING_LEN");

    bit!(
        "HWF1_RXFIFOSIZE_MASK",
        regs::HWF1_RXFIFOSIZE_MASK,
        mac,
        machwf1r.rxfifosize
    );
    assert_eq!(
        regs::HWF1_TXFIFOSIZE_SHIFT,
        span(pac_mask!(mac, machwf1r.txfifosize)).0
    );
    assert_eq!(span(pac_mask!(mac, machwf1r.txfifosize)).1, 5);
    seen.add("HWF1_TXFIFOSIZE_SHIFT");
    assert_eq!(
        regs::HWF1_ADDR64_SHIFT,
        span(pac_mask!(mac, machwf1r.addr64)).0
    );
    assert_eq!(span(pac_mask!(mac, machwf1r.addr64)).1, 2);
    seen.add("HWF1_ADDR64_SHIFT");
    bit!(
        "HWF2_RXQCNT_MASK",
        regs::HWF2_RXQCNT_MASK,
        mac,
        machwf2r.rxqcnt
    );
    assert_eq!(
        regs::HWF2_TXQCNT_SHIFT,
        span(pac_mask!(mac, machwf2r.txqcnt)).0
    );
    assert_eq!(span(pac_mask!(mac, machwf2r.txqcnt)).1, 4);
    seen.add("HWF2_TXQCNT_SHIFT");
    bit!("MAC_ADDR_AE", regs::MAC_ADDR_AE, mac, maca0hr.ae);
    assert_eq!(
        regs::HWF1_HASHTBLSZ_SHIFT,
        span(pac_mask!(mac, machwf1r.hashtblsz)).0
    );
    assert_eq!(span(pac_mask!(mac, machwf1r.hashtblsz)).1, 2);
    seen.add("HWF1_HASHTBLSZ_SHIFT");
    bit!("MISSED_MFC_MASK", regs::MISSED_MFC_MASK, dma, dmacmfcr.mfc);
    bit!(
        "MTL_MISSED_OVF_MASK",
        regs::MTL_MISSED_OVF_MASK,
        mtl,
        mtlrx_qmpocr.ovfpktcnt
    );
    bit!(
        "MTL_MISSED_MIS_MASK",
        regs::MTL_MISSED_MIS_MASK,
        mtl,
        mtlrx_qmpocr.mispktcnt
    );
    assert_eq!(
        regs::MTL_MISSED_MIS_SHIFT,
        span(pac_mask!(mtl, mtlrx_qmpocr.mispktcnt)).0
    );
    seen.add("MTL_MISSED_MIS_SHIFT");
    bit!(
        "MMC_CNTRL_RESET_ON_READ",
        regs::MMC_CNTRL_RESET_ON_READ,
        mac,
        mmc_control.rstonrd
    );
    // TXQEN "enabled": the SVD has no enumerated values, but the H7's single TX queue resets
    // enabled (TXQEN read-only at its reset value on single-queue cores), so its reset value
    // holds the encoding.
    let txqen = pac_mask!(mtl, mtltx_qomr.txqen);
    assert_eq!(span(txqen), (2, 2));
    let reset = <ethernet_mtl::mtltx_qomr::MTLTX_QOMRrs as stm32h7::Resettable>::RESET_VALUE;
    assert_eq!((reset & txqen) >> 2, regs::TXQEN_ENABLED);
    seen.add("TXQEN_ENABLED");

    // DMA_CHAN_STATUS.
    bit!("chan::TI", chan::TI, dma, dmacsr.ti);
    bit!("chan::TPS", chan::TPS, dma, dmacsr.tps);
    bit!("chan::TBU", chan::TBU, dma, dmacsr.tbu);
    bit!("chan::RI", chan::RI, dma, dmacsr.ri);
    bit!("chan::RBU", chan::RBU, dma, dmacsr.rbu);
    bit!("chan::RPS", chan::RPS, dma, dmacsr.rps);
    bit!("chan::RWT", chan::RWT, dma, dmacsr.rwt);
    bit!("chan::ETI", chan::ETI, dma, dmacsr.et);
    bit!("chan::ERI", chan::ERI, dma, dmacsr.er);
    bit!("chan::FBE", chan::FBE, dma, dmacsr.fbe);
    bit!("chan::CDE", chan::CDE, dma, dmacsr.cde);
    bit!("chan::AIS", chan::AIS, dma, dmacsr.ais);
    bit!("chan::NIS", chan::NIS, dma, dmacsr.nis);
    // W1C: every status bit but the read-only error codes TEB (18:16) and REB (21:19).
    let status = pac_mask!(dma, dmacsr.ti)
        | pac_mask!(dma, dmacsr.tps)
        | pac_mask!(dma, dmacsr.tbu)
        | pac_mask!(dma, dmacsr.ri)
        | pac_mask!(dma, dmacsr.rbu)
        | pac_mask!(dma, dmacsr.rps)
        | pac_mask!(dma, dmacsr.rwt)
        | pac_mask!(dma, dmacsr.et)
        | pac_mask!(dma, dmacsr.er)
        | pac_mask!(dma, dmacsr.fbe)
        | pac_mask!(dma, dmacsr.cde)
        | pac_mask!(dma, dmacsr.ais)
        | pac_mask!(dma, dmacsr.nis);
    let error_codes = pac_mask!(dma, dmacsr.teb) | pac_mask!(dma, dmacsr.reb);
    assert_eq!(chan::W1C, status);
    assert_eq!(chan::W1C & error_codes, 0);
    assert_eq!(
        pac_undefined!(dma, dmacsr, !(status | error_codes)),
        !(status | error_codes),
        "DMACSR has a status bit regs::chan does not know"
    );
    seen.add("chan::W1C");
    // DMA_CHAN_INTR_ENA (4.10): NIE/AIE, and every enable lines up with its status bit.
    bit!("chan::NIE_4_10", chan::NIE_4_10, dma, dmacier.nie);
    bit!("chan::AIE_4_10", chan::AIE_4_10, dma, dmacier.aie);
    for (status, enable) in [
        (chan::TI, pac_mask!(dma, dmacier.tie)),
        (chan::TPS, pac_mask!(dma, dmacier.txse)),
        (chan::TBU, pac_mask!(dma, dmacier.tbue)),
        (chan::RI, pac_mask!(dma, dmacier.rie)),
        (chan::RBU, pac_mask!(dma, dmacier.rbue)),
        (chan::RPS, pac_mask!(dma, dmacier.rse)),
        (chan::RWT, pac_mask!(dma, dmacier.rwte)),
        (chan::ETI, pac_mask!(dma, dmacier.etie)),
        (chan::ERI, pac_mask!(dma, dmacier.erie)),
        (chan::FBE, pac_mask!(dma, dmacier.fbee)),
        (chan::CDE, pac_mask!(dma, dmacier.cdee)),
    ] {
        assert_eq!(status, enable, "enable bit of status {status:#x}");
    }

    // The descriptor bits: not in the SVD (memory, not registers); see
    // `descriptor_bits_match_linux_dwmac4_descs`.
    for name in DESC_NAMES {
        seen.add(&format!("desc::{name}"));
    }
    for (name, _) in CONSTS_NOT_COVERED {
        seen.add(name);
    }
}

#[test]
fn constants_match_the_pac() {
    check_consts(&mut Seen::default());
}

/// The H7's core version, which the NIE/AIE positions above depend on.
#[test]
fn the_h7_is_a_4_10a() {
    use stm32h7::Resettable;
    let reset = <ethernet_mac::macvr::MACVRrs as Resettable>::RESET_VALUE;
    assert_eq!(reset, 0x3041);
    let snps = (reset & tock_mask(regs::MAC_VERSION::SNPSVER)) >> regs::MAC_VERSION::SNPSVER.shift;
    assert_eq!(snps, 0x41);
}

// ---------------------------------------------------------------------------------------
// Descriptor bits against Linux's dwmac4_descs.h (bit positions only).

const DESC_NAMES: [&str; 22] = [
    "OWN",
    "CTXT",
    "FD",
    "LD",
    "TDES2_IOC",
    "TDES2_B1L_MASK",
    "TDES3_CIC_SHIFT",
    "TDES3_FL_MASK",
    "TDES3_ES",
    "RDES3_IOC",
    "RDES3_BUF1V",
    "RDES3_PL_MASK",
    "RDES3_ES",
    "RDES3_DE",
    "RDES3_RE",
    "RDES3_OE",
    "RDES3_RWT",
    "RDES3_GP",
    "RDES3_CE",
    "RDES3_RS1V",
    "RDES1_IPHE",
    "RDES1_IPCE",
];

#[test]
fn descriptor_bits_match_linux_dwmac4_descs() {
    // (ours, Linux's position or mask in dwmac4_descs.h)
    let table: [(&str, u32, u32); 22] = [
        ("OWN (TDES3_OWN / RDES3_OWN)", desc::OWN, 1 << 31),
        (
            "CTXT (TDES3_CONTEXT_TYPE / RDES3_CONTEXT_DESCRIPTOR)",
            desc::CTXT,
            1 << 30,
        ),
        (
            "FD (TDES3_FIRST_DESCRIPTOR / RDES3_FIRST_DESCRIPTOR)",
            desc::FD,
            1 << 29,
        ),
        (
            "LD (TDES3_LAST_DESCRIPTOR / RDES3_LAST_DESCRIPTOR)",
            desc::LD,
            1 << 28,
        ),
        ("TDES2_INTERRUPT_ON_COMPLETION", desc::TDES2_IOC, 1 << 31),
        ("TDES2_BUFFER1_SIZE_MASK 13:0", desc::TDES2_B1L_MASK, 0x3FFF),
        ("TDES3_CHECKSUM_INSERTION_SHIFT", desc::TDES3_CIC_SHIFT, 16),
        ("TDES3_PACKET_SIZE_MASK 14:0", desc::TDES3_FL_MASK, 0x7FFF),
        ("TDES3_ERROR_SUMMARY", desc::TDES3_ES, 1 << 15),
        ("RDES3_INT_ON_COMPLETION_EN", desc::RDES3_IOC, 1 << 30),
        ("RDES3_BUFFER1_VALID_ADDR", desc::RDES3_BUF1V, 1 << 24),
        ("RDES3_PACKET_SIZE_MASK 14:0", desc::RDES3_PL_MASK, 0x7FFF),
        ("RDES3_ERROR_SUMMARY", desc::RDES3_ES, 1 << 15),
        ("RDES3_DRIBBLE_ERROR", desc::RDES3_DE, 1 << 19),
        ("RDES3_RECEIVE_ERROR", desc::RDES3_RE, 1 << 20),
        ("RDES3_OVERFLOW_ERROR", desc::RDES3_OE, 1 << 21),
        ("RDES3_RECEIVE_WATCHDOG", desc::RDES3_RWT, 1 << 22),
        ("RDES3_GIANT_PACKET", desc::RDES3_GP, 1 << 23),
        ("RDES3_CRC_ERROR", desc::RDES3_CE, 1 << 24),
        ("RDES3_RDES1_VALID", desc::RDES3_RS1V, 1 << 26),
        ("RDES1_IP_HDR_ERROR", desc::RDES1_IPHE, 1 << 3),
        ("RDES1_IP_CSUM_ERROR", desc::RDES1_IPCE, 1 << 7),
    ];
    for (what, ours, linux) in table {
        assert_eq!(ours, linux, "{what}");
    }
}

// ---------------------------------------------------------------------------------------
// Coverage: every item of src/qos/regs.rs is checked above or listed as not covered.

/// `(Reg constants, bitfield fields as REG::FIELD, u32/usize constants with their module)`
/// declared in `src/qos/regs.rs`.
fn qos_regs_items() -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let src = include_str!("../../src/qos/regs.rs");
    let (mut regs, mut fields, mut consts) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut in_bitfields = false;
    let mut register = String::new();
    let mut module = String::new();
    for line in src.lines() {
        let t = line.trim();
        if t.starts_with("register_bitfields!") {
            in_bitfields = true;
            continue;
        }
        if in_bitfields {
            if t == "];" {
                in_bitfields = false;
            } else if let Some(name) = t.strip_prefix("pub ").and_then(|r| r.strip_suffix(" [")) {
                register = name.to_owned();
            } else if let Some((name, _)) = t.split_once(" OFFSET(") {
                fields.insert(format!("{register}::{name}"));
            }
            continue;
        }
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .and_then(|r| r.strip_suffix(" {"))
        {
            module = format!("{m}::");
            continue;
        }
        if line == "}" {
            module.clear();
            continue;
        }
        if let Some(rest) = t.strip_prefix("pub const ") {
            let (name, ty) = rest.split_once(": ").expect("pub const NAME: TYPE");
            if ty.starts_with("Reg<") {
                assert!(module.is_empty());
                regs.insert(name.to_owned());
            } else if ty.starts_with("u32") || ty.starts_with("usize") {
                consts.insert(format!("{module}{name}"));
            } else {
                panic!("qos::regs item {name} of an unexpected type: {ty}");
            }
        }
    }
    (regs, fields, consts)
}

#[test]
fn every_qos_regs_item_is_checked_or_listed() {
    let (regs, fields, consts) = qos_regs_items();
    assert!(
        regs.len() >= 48 && fields.len() >= 60 && consts.len() >= 55,
        "the parser found too few items: {} Reg, {} fields, {} constants",
        regs.len(),
        fields.len(),
        consts.len()
    );

    let mut seen = Seen::default();
    check_offsets(&mut seen);
    assert_eq!(seen.0, regs, "Reg constants: checked/listed vs declared");

    let mut seen = Seen::default();
    check_fields(&mut seen);
    assert_eq!(
        seen.0, fields,
        "bitfield fields: checked/listed vs declared"
    );

    let mut seen = Seen::default();
    check_consts(&mut seen);
    assert_eq!(seen.0, consts, "constants: checked/listed vs declared");
}
