//! The models raise what silicon raises, driven through raw register writes and descriptors
//! written by hand (no driver). Offsets and bits are written out here from the sources
//! (Linux `dwmac_dma.h`, `dwmac1000.h`, `descs.h`, `dwmac4.h`, `dwmac4_dma.h`; NXP's RT1170
//! ENET_QOS field docs), not taken from the crate.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::sim::{
    Gmac3Model, QosModel, SIM_CSR_HZ, SimArena, VERSION4_10, VERSION5_10, eth_frame,
};
use stmmac_coalesce::{DescLayout, DmaAddr};

/// Longer than any stop lag the models use by default.
const SETTLE_NS: u64 = 100_000;

// ---- GMAC 3.x (dwmac_dma.h, dwmac1000.h, descs.h) ----

const GMAC_CONTROL: usize = 0x00; // dwmac1000.h GMAC_CONTROL
const GMAC_FRAME_FILTER: usize = 0x04;
const GMAC_FLOW_CTRL: usize = 0x18;
const DMA_BUS_MODE: usize = 0x1000;
const DMA_XMT_POLL_DEMAND: usize = 0x1004;
const DMA_RCV_POLL_DEMAND: usize = 0x1008;
const DMA_RCV_BASE_ADDR: usize = 0x100C;
const DMA_TX_BASE_ADDR: usize = 0x1010;
const DMA_STATUS: usize = 0x1014;
const DMA_CONTROL: usize = 0x1018;
const DMA_INTR_ENA: usize = 0x101C;
const DMA_MISSED_FRAME_CTR: usize = 0x1020;
const CONTROL_RE: u32 = 1 << 2;
const CONTROL_TE: u32 = 1 << 3;
const DMA_SR: u32 = 1 << 1;
const DMA_ST: u32 = 1 << 13;
const DMA_EFC: u32 = 1 << 8;
const TPS: u32 = 1 << 1; // DMA_STATUS_TPS, also DMA_CHAN_STATUS_TPS
const RPS: u32 = 1 << 8; // DMA_STATUS_RPS, also DMA_CHAN_STATUS_RPS
const AIS3: u32 = 1 << 15; // DMA_STATUS_AIS
const RS_MASK: u32 = 0x000E_0000; // DMA_STATUS_RS_MASK
const TS_MASK: u32 = 0x0070_0000; // DMA_STATUS_TS_MASK
const OWN: u32 = 1 << 31;

type M3 = Gmac3Model<PhyModel>;
type Bus3 = SimBus<M3>;

fn gmac3(f: impl FnOnce(M3) -> M3) -> (SimClock, SimArena, Bus3) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let bus = SimBus::new(&clock, f(Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ)));
    (clock, arena, bus)
}

/// `n` descriptors of `stride` bytes, then `n` buffers of 2048 (bus addresses).
fn ring(arena: &SimArena, n: u32, stride: u32) -> (u32, u32) {
    let region = arena.region((n * (stride + 2048)) as usize).unwrap();
    let base = arena.bus_addr(region.as_ptr()).unwrap();
    (base, base + n * stride)
}

/// A 3.x RX ring of `n` normal descriptors with RBS1 `size`, the last with RER; RX on.
fn gmac3_rx(bus: &Bus3, arena: &SimArena, n: u32, size: u32) -> (u32, u32) {
    let (d, b) = ring(arena, n, 16);
    for i in 0..n {
        let rer = if i == n - 1 { 1 << 25 } else { 0 }; // descs.h RDES1_END_RING
        arena.write_u32(d + 16 * i, OWN);
        arena.write_u32(d + 16 * i + 4, size | rer);
        arena.write_u32(d + 16 * i + 8, b + 2048 * i);
    }
    bus.write_word(GMAC_FRAME_FILTER, 1); // PR
    bus.write_word(GMAC_CONTROL, CONTROL_RE | CONTROL_TE);
    bus.write_word(DMA_RCV_BASE_ADDR, d);
    (d, b)
}

#[test]
fn gmac3_clearing_sr_raises_rps_once_rx_has_stopped() {
    let (clock, arena, bus) = gmac3(|m| m);
    gmac3_rx(&bus, &arena, 4, 1536);
    bus.write_word(DMA_CONTROL, DMA_SR);
    assert_ne!(bus.read_word(DMA_STATUS) & RS_MASK, 0, "RX running");
    bus.write_word(DMA_CONTROL, 0);
    clock.advance(SETTLE_NS);
    let st = bus.read_word(DMA_STATUS);
    // dwmac_dma.h DMA_STATUS_RPS: "Receive Process Stopped"; RS 0 = Stopped.
    assert_ne!(st & RPS, 0, "RPS after the stop: {st:#x}");
    assert_eq!(st & RS_MASK, 0, "RS Stopped: {st:#x}");
}

#[test]
fn gmac3_clearing_st_raises_tps_once_tx_has_stopped() {
    let (clock, arena, bus) = gmac3(|m| m);
    let (d, _) = ring(&arena, 2, 16);
    bus.write_word(DMA_TX_BASE_ADDR, d);
    bus.write_word(DMA_CONTROL, DMA_ST);
    assert_ne!(
        bus.read_word(DMA_STATUS) & TS_MASK,
        0,
        "TX suspended, not stopped"
    );
    bus.write_word(DMA_CONTROL, 0);
    clock.advance(SETTLE_NS);
    let st = bus.read_word(DMA_STATUS);
    assert_ne!(st & TPS, 0, "TPS after the stop: {st:#x}");
    assert_eq!(st & TS_MASK, 0, "TS Stopped: {st:#x}");
}

#[test]
fn gmac3_ais_summarises_only_enabled_abnormal_sources() {
    let (clock, arena, bus) = gmac3(|m| m);
    gmac3_rx(&bus, &arena, 4, 1536);
    bus.write_word(DMA_CONTROL, DMA_SR);
    bus.write_word(DMA_CONTROL, 0);
    clock.advance(SETTLE_NS);
    // Only NIE | RIE enabled (Linux's DMA_INTR_DEFAULT_MASK has no RPS): RPS raised, AIS
    // not.
    bus.write_word(DMA_INTR_ENA, (1 << 16) | (1 << 6));
    let st = bus.read_word(DMA_STATUS);
    assert_ne!(st & RPS, 0);
    assert_eq!(
        st & AIS3,
        0,
        "AIS without an enabled abnormal source: {st:#x}"
    );
    bus.write_word(DMA_INTR_ENA, (1 << 15) | RPS);
    assert_ne!(bus.read_word(DMA_STATUS) & AIS3, 0, "AIS with RPS enabled");
}

#[test]
fn gmac3_atds_walks_enhanced_descriptors_32_bytes_apart() {
    let (_clock, arena, bus) = gmac3(|m| m.with_layout(DescLayout::Enhanced));
    let (d, b) = ring(&arena, 2, 32);
    for i in 0..2u32 {
        // Enhanced TDES0: OWN, IC 30, LS 29, FS 28; TDES1 TBS1; TDES2 buffer.
        let ter = if i == 1 { 1 << 21 } else { 0 };
        arena.write_u32(d + 32 * i, OWN | (1 << 30) | (1 << 29) | (1 << 28) | ter);
        arena.write_u32(d + 32 * i + 4, 100);
        arena.write_u32(d + 32 * i + 8, b + 2048 * i);
    }
    bus.write_word(DMA_BUS_MODE, (1 << 7) | (1 << 8)); // ATDS, PBL 1
    bus.write_word(DMA_TX_BASE_ADDR, d);
    bus.write_word(DMA_CONTROL, DMA_ST);
    bus.write_word(DMA_XMT_POLL_DEMAND, 1);
    let sent = bus.model(|m| m.sent().len());
    assert_eq!(sent, 2, "both descriptors, 32 bytes apart, were sent");
    assert_eq!(
        arena.read_u32(d + 32).unwrap() & OWN,
        0,
        "the second one closed"
    );
}

#[test]
fn gmac3_rbs1_is_truncated_to_the_bus_width() {
    let (_clock, arena, bus) = gmac3(|m| m);
    // RBS1 514 on a 32-bit bus: the DMA stores 512 bytes per buffer.
    let (d, b) = gmac3_rx(&bus, &arena, 4, 514);
    bus.write_word(DMA_CONTROL, DMA_SR);
    bus.model(|m| m.inject(0, &eth_frame([0x02, 0, 0, 0, 0, 0x10], 900, 0x5A)));
    let first = arena.read_u32(d).unwrap();
    assert_eq!(first & OWN, 0);
    assert_eq!(first & (1 << 8), 0, "not the last descriptor");
    let second = arena.read_u32(d + 16).unwrap();
    assert_ne!(second & (1 << 8), 0, "LS on the second");
    // The second buffer starts at byte 512, whose running counter (8) eth_frame marks.
    let frame = eth_frame([0x02, 0, 0, 0, 0, 0x10], 900, 0x5A);
    assert_eq!(frame[512], 8);
    assert_eq!(
        arena.read_bytes(b + 2048, 4).unwrap(),
        frame[512..516].to_vec()
    );
}

#[test]
fn gmac3_missed_frame_counter_counts_and_clears_on_read() {
    let (_clock, arena, bus) = gmac3(|m| m);
    let (d, _) = gmac3_rx(&bus, &arena, 1, 1536);
    arena.write_u32(d, 0); // CPU-owned: no descriptor for the frame
    bus.write_word(DMA_CONTROL, DMA_SR);
    for _ in 0..3 {
        bus.model(|m| m.inject(0, &eth_frame([0x02, 0, 0, 0, 0, 0x10], 100, 1)));
    }
    // dwmac_dma.h DMA_MISSED_FRAME_M_CNTR (bits 15:0); the register clears on read.
    assert_eq!(bus.read_word(DMA_MISSED_FRAME_CTR) & 0xFFFF, 3);
    assert_eq!(bus.read_word(DMA_MISSED_FRAME_CTR), 0);
}

#[test]
fn gmac3_efc_sends_pause_when_the_fifo_fills_and_zero_pause_when_it_drains() {
    let (_clock, arena, bus) = gmac3(|m| m.with_rx_fifo(4096));
    let (d, _) = gmac3_rx(&bus, &arena, 4, 1536);
    for i in 0..4 {
        arena.write_u32(d + 16 * i, 0); // no descriptor yet
    }
    // GMAC_FLOW_CTRL: PT 0x1234, TFE; DMA_CONTROL: EFC, RFA full-1K, RFD full-2K.
    bus.write_word(GMAC_FLOW_CTRL, (0x1234 << 16) | (1 << 1));
    bus.write_word(DMA_CONTROL, DMA_SR | DMA_EFC | (1 << 11));
    for _ in 0..4 {
        bus.model(|m| m.inject(0, &eth_frame([0x02, 0, 0, 0, 0, 0x10], 1000, 1)));
    }
    let pauses = |bus: &Bus3| -> Vec<u16> {
        bus.model(|m| {
            m.sent()
                .iter()
                .filter(|f| {
                    f.bytes[..6] == [0x01, 0x80, 0xC2, 0, 0, 1] && f.bytes[12..14] == [0x88, 0x08]
                })
                .map(|f| {
                    assert_eq!(f.bytes[14..16], [0, 1], "opcode PAUSE");
                    u16::from_be_bytes([f.bytes[16], f.bytes[17]])
                })
                .collect()
        })
    };
    // 4 × 1004 bytes ≥ 4096 − 1024: a PAUSE with the programmed time.
    assert_eq!(pauses(&bus), vec![0x1234]);
    for i in 0..4 {
        arena.write_u32(d + 16 * i, OWN);
    }
    bus.write_word(DMA_RCV_POLL_DEMAND, 1);
    assert_eq!(
        pauses(&bus),
        vec![0x1234, 0],
        "drained: a zero-quanta PAUSE"
    );
}

// ---- QoS 4.x/5.x (dwmac4.h, dwmac4_dma.h, dwmac4_descs.h; RT1170 ENET_QOS) ----

const MAC_CONFIG: usize = 0x000;
const MAC_PACKET_FILTER: usize = 0x008;
const MAC_HASH_TAB0: usize = 0x010;
const MAC_Q0_TX_FLOW_CTRL: usize = 0x070;
const MAC_RXQ_CTRL0: usize = 0x0A0;
const MAC_HW_FEATURE1: usize = 0x120;
const MTL_TXQ0_OP_MODE: usize = 0xD00;
const MTL_RXQ0_OP_MODE: usize = 0xD30;
const MTL_RXQ0_MISSED: usize = 0xD34; // RT1170 MTL_RXQ0_MISSED_PACKET_OVERFLOW_CNT
const DMA_DEBUG_STATUS0: usize = 0x100C;
const CH: usize = 0x1100;
const CH_TX_CONTROL: usize = CH + 0x04;
const CH_RX_CONTROL: usize = CH + 0x08;
const CH_TX_BASE: usize = CH + 0x14;
const CH_RX_BASE: usize = CH + 0x1C;
const CH_TX_TAIL: usize = CH + 0x20;
const CH_RX_TAIL: usize = CH + 0x28;
const CH_TX_LEN: usize = CH + 0x2C;
const CH_RX_LEN: usize = CH + 0x30;
const CH_INTR_ENA: usize = CH + 0x34;
const CH_STATUS: usize = CH + 0x60;
const AIS4: u32 = 1 << 14;
const RPS0: u32 = 0xF << 8; // RT1170 DMA_DEBUG_STATUS0 RPS0
const TPS0: u32 = 0xF << 12; // TPS0

type M4 = QosModel<PhyModel>;
type Bus4 = SimBus<M4>;

fn qos(f: impl FnOnce(M4) -> M4) -> (SimClock, SimArena, Bus4) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let bus = SimBus::new(&clock, f(QosModel::new(arena.clone(), phy, SIM_CSR_HZ)));
    (clock, arena, bus)
}

/// A QoS RX ring of `n` descriptors, `owned` of them given to the DMA, RBSZ `rbsz`; RX on.
fn qos_rx(bus: &Bus4, arena: &SimArena, n: u32, owned: u32, rbsz: u32) -> (u32, u32) {
    let (d, b) = ring(arena, n, 16);
    for i in 0..n {
        arena.write_u32(d + 16 * i, b + 2048 * i);
        arena.write_u32(d + 16 * i + 4, 0);
        let own = if i < owned {
            OWN | (1 << 30) | (1 << 24)
        } else {
            0
        }; // OWN, IOC, BUF1V
        arena.write_u32(d + 16 * i + 12, own);
    }
    bus.write_word(MAC_PACKET_FILTER, 1 << 31); // RA
    bus.write_word(MAC_CONFIG, 0b11); // RE, TE
    bus.write_word(MAC_RXQ_CTRL0, 2); // RXQ0EN generic
    bus.write_word(CH_RX_BASE, d);
    bus.write_word(CH_RX_LEN, n - 1);
    bus.write_word(CH_RX_CONTROL, 1 | (rbsz << 1));
    bus.write_word(CH_RX_TAIL, d + 16 * owned.min(n - 1));
    (d, b)
}

#[test]
fn qos_clearing_sr_raises_rps_when_rx_reaches_stopped() {
    let (clock, arena, bus) = qos(|m| m);
    qos_rx(&bus, &arena, 4, 3, 1536);
    assert_ne!(bus.read_word(DMA_DEBUG_STATUS0) & RPS0, 0, "RX running");
    bus.write_word(CH_RX_CONTROL, 1536 << 1);
    clock.advance(SETTLE_NS);
    // RT1170 DMA_CH0_STATUS RPS: set when the Rx DMA enters Stopped; RPS0 0 = Stopped.
    assert_ne!(bus.read_word(CH_STATUS) & RPS, 0, "RPS after the stop");
    assert_eq!(bus.read_word(DMA_DEBUG_STATUS0) & RPS0, 0, "RPS0 Stopped");
}

#[test]
fn qos_clearing_st_raises_tps_when_tx_reaches_stopped() {
    let (clock, arena, bus) = qos(|m| m);
    let (d, _) = ring(&arena, 4, 16);
    bus.write_word(MTL_TXQ0_OP_MODE, 2 << 2); // TXQEN enabled
    bus.write_word(CH_TX_BASE, d);
    bus.write_word(CH_TX_LEN, 3);
    bus.write_word(CH_TX_CONTROL, 1);
    bus.write_word(CH_TX_TAIL, d);
    assert_ne!(bus.read_word(DMA_DEBUG_STATUS0) & TPS0, 0, "TX not stopped");
    bus.write_word(CH_TX_CONTROL, 0);
    clock.advance(SETTLE_NS);
    assert_ne!(bus.read_word(CH_STATUS) & TPS, 0, "TPS after the stop");
    assert_eq!(bus.read_word(DMA_DEBUG_STATUS0) & TPS0, 0, "TPS0 Stopped");
}

#[test]
fn qos_ais_only_when_an_abnormal_source_is_enabled() {
    let (clock, arena, bus) = qos(|m| m);
    qos_rx(&bus, &arena, 4, 3, 1536);
    bus.write_word(CH_RX_CONTROL, 1536 << 1);
    clock.advance(SETTLE_NS);
    // Linux's DMA_CHAN_INTR_DEFAULT_MASK: NIE | AIE | RIE | TIE | FBE, no RPS.
    bus.write_word(
        CH_INTR_ENA,
        (1 << 15) | (1 << 14) | (1 << 6) | 1 | (1 << 12),
    );
    let st = bus.read_word(CH_STATUS);
    assert_ne!(st & RPS, 0);
    assert_eq!(st & AIS4, 0, "RPS is not enabled: no AIS ({st:#x})");
    bus.write_word(CH_INTR_ENA, (1 << 14) | RPS);
    assert_ne!(bus.read_word(CH_STATUS) & AIS4, 0, "AIS with RPS enabled");
}

#[test]
fn qos_rbsz_is_truncated_to_the_bus_width() {
    let (_clock, arena, bus) = qos(|m| m.with_bus_width(8));
    // RBSZ 516 on a 64-bit bus: 512-byte buffers (RT1170: RBSZ_X_0 reads 0 below the
    // bus width).
    let (d, b) = qos_rx(&bus, &arena, 4, 3, 516);
    let frame = eth_frame([0x02, 0, 0, 0, 0, 0x10], 700, 0x3C);
    bus.model(|m| m.inject(0, &frame));
    let rdes3 = arena.read_u32(d + 12).unwrap();
    assert_eq!(rdes3 & OWN, 0);
    assert_eq!(rdes3 & (1 << 28), 0, "first descriptor is not LD");
    // The write-back overwrote RDES0; the second buffer is at b + 2048.
    assert_eq!(frame[512], 8, "eth_frame's running counter");
    assert_eq!(
        arena.read_bytes(b + 2048, 4).unwrap(),
        frame[512..516].to_vec()
    );
}

#[test]
fn qos_missed_frame_counter_sits_at_the_versions_offset() {
    for (version, offset) in [(VERSION4_10, CH + 0x6C), (VERSION5_10, CH + 0x64)] {
        let (_clock, arena, bus) = qos(|m| m.with_version(version).with_fifo_sizes(2048, 2048));
        qos_rx(&bus, &arena, 4, 0, 1536);
        for _ in 0..4 {
            bus.model(|m| m.inject(0, &eth_frame([0x02, 0, 0, 0, 0, 0x10], 1000, 1)));
        }
        // Two 1004-byte frames fit the 2 KiB queue; two more are missed.
        assert_eq!(
            bus.read_word(offset) & 0x7FF,
            2,
            "version {version:#x} at {offset:#x}"
        );
        assert_eq!(bus.read_word(offset), 0, "cleared on read");
        let mtl = bus.read_word(MTL_RXQ0_MISSED);
        assert_eq!(mtl & 0x7FF, 2, "OVFPKTCNT");
        assert_eq!((mtl >> 16) & 0x7FF, 2, "MISPKTCNT");
        assert_eq!(bus.read_word(MTL_RXQ0_MISSED), 0, "cleared on read");
    }
}

/// The top `bits` bits of the bit-reversed CRC-32 of `addr` (Linux `dwmac4_set_filter`).
fn bin(addr: [u8; 6], bits: u32) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in addr {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    (!crc).reverse_bits() >> (32 - bits)
}

#[test]
fn qos_hash_filter_uses_the_configured_table_size() {
    let group = [0x01, 0x00, 0x5E, 0x00, 0x00, 0xFB];
    for (bins, bits, hashtblsz) in [(64u32, 6u32, 1u32), (128, 7, 2), (256, 8, 3)] {
        let (_clock, arena, bus) = qos(|m| m.with_hash_bins(bins));
        assert_eq!((bus.read_word(MAC_HW_FEATURE1) >> 24) & 3, hashtblsz);
        qos_rx(&bus, &arena, 4, 3, 1536);
        bus.write_word(MAC_PACKET_FILTER, 1 << 2); // HMC only
        let n = bin(group, bits);
        bus.write_word(MAC_HASH_TAB0 + 4 * (n / 32) as usize, 1 << (n % 32));
        bus.model(|m| m.inject(0, &eth_frame(group, 100, 1)));
        assert_eq!(
            bus.model(|m| m.rx_delivered()),
            1,
            "{bins} bins: bin {n} passes"
        );
        // The same group with a 64-bin table's bin set instead: filtered on a bigger table.
        if bins > 64 {
            bus.write_word(MAC_HASH_TAB0 + 4 * (n / 32) as usize, 0);
            let n64 = bin(group, 6);
            if n64 != n {
                bus.write_word(MAC_HASH_TAB0 + 4 * (n64 / 32) as usize, 1 << (n64 % 32));
            }
            bus.model(|m| m.inject(0, &eth_frame(group, 100, 1)));
            assert_eq!(
                bus.model(|m| m.rx_filtered()),
                1,
                "{bins} bins: 6-bit bin ignored"
            );
        }
    }
}

#[test]
fn qos_ehfc_sends_pause_when_the_rx_queue_fills_and_zero_pause_when_it_drains() {
    let (_clock, arena, bus) = qos(|m| m.with_fifo_sizes(2048, 4096));
    let (d, _) = qos_rx(&bus, &arena, 4, 0, 1536);
    // MAC_Q0_TX_FLOW_CTRL: PT 0x0200, TFE. MTL_RXQ0_OPERATION_MODE: RQS 4 KiB, EHFC,
    // RFA 0 (full − 1 KiB), RFD 2 (full − 2 KiB).
    bus.write_word(MAC_Q0_TX_FLOW_CTRL, (0x0200 << 16) | (1 << 1));
    bus.write_word(MTL_RXQ0_OP_MODE, (15 << 20) | (1 << 7) | (2 << 14));
    for _ in 0..4 {
        bus.model(|m| m.inject(0, &eth_frame([0x02, 0, 0, 0, 0, 0x10], 1000, 1)));
    }
    let pauses = |bus: &Bus4| -> Vec<u16> {
        bus.model(|m| {
            m.sent()
                .iter()
                .filter(|f| {
                    f.bytes[..6] == [0x01, 0x80, 0xC2, 0, 0, 1] && f.bytes[12..14] == [0x88, 0x08]
                })
                .map(|f| u16::from_be_bytes([f.bytes[16], f.bytes[17]]))
                .collect()
        })
    };
    assert_eq!(pauses(&bus), vec![0x0200], "4016 bytes ≥ 4096 − 1024");
    for i in 0..4 {
        arena.write_u32(d + 16 * i + 12, OWN | (1 << 30) | (1 << 24));
    }
    bus.write_word(CH_RX_TAIL, d + 16 * 3);
    assert_eq!(
        pauses(&bus),
        vec![0x0200, 0],
        "drained: a zero-quanta PAUSE"
    );
}
