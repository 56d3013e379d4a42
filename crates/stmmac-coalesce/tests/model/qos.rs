//! The behavioural QoS 4.x/5.x model (`QosModel`) against the facts of `qos::regs` (Linux's
//! dwmac4 headers, ST RM0433), driven through raw registers and descriptors written by hand
//! in the sim arena (no driver).

use hwtimer_core::sim::{IrqSource, SimBus, SimClock};
use hwtimer_core::{Reg, RegisterBus};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::DmaAddr;
use stmmac_coalesce::qos::regs::{self as r, chan, desc::*};
use stmmac_coalesce::sim::{
    HW_FEATURE0_4, HW_FEATURE1_4, QosIrq, QosModel, Ring, SIM_CSR_HZ, SWR_NS, Seen, SimArena,
    VERSION4_00, VERSION4_10, VERSION5_10, eth_frame,
};

type M = QosModel<PhyModel>;
type Bus = SimBus<M>;

const OUR_MAC: [u8; 6] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];

fn setup_on(arena: SimArena, f: impl FnOnce(M) -> M) -> (SimClock, SimArena, Bus) {
    let clock = SimClock::new();
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let bus = SimBus::new(&clock, f(QosModel::new(arena.clone(), phy, SIM_CSR_HZ)));
    (clock, arena, bus)
}

fn setup_with(f: impl FnOnce(M) -> M) -> (SimClock, SimArena, Bus) {
    setup_on(SimArena::new(0x2000_0000, 256 * 1024), f)
}

fn setup() -> (SimClock, SimArena, Bus) {
    setup_with(|m| m)
}

fn wr<R: tock_registers::RegisterLongName>(bus: &Bus, reg: Reg<u32, R>, v: u32) {
    bus.write_word(reg.offset(), v);
}

fn rd<R: tock_registers::RegisterLongName>(bus: &Bus, reg: Reg<u32, R>) -> u32 {
    bus.read_word(reg.offset())
}

/// `n` 16-byte descriptors, then `n` buffers of 2048: (descriptor base, buffer base), bus
/// addresses.
fn raw_ring(arena: &SimArena, n: u64) -> (u64, u64) {
    let region = arena.region((n * (16 + 2048)) as usize).unwrap();
    let base = arena.bus_addr64(region.as_ptr()).unwrap();
    (base, base + n * 16)
}

fn lo(a: u64) -> u32 {
    a as u32
}

fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

/// A single-descriptor TX frame of `len` bytes at `buf`, handed to the DMA (TDES3 last).
fn own_tx(arena: &SimArena, d: u64, buf: u64, len: u32, ioc: bool) {
    arena.write_u32(d, lo(buf));
    arena.write_u32(d + 4, hi(buf));
    arena.write_u32(d + 8, len | if ioc { TDES2_IOC } else { 0 });
    arena.write_u32(d + 12, OWN | FD | LD | len);
}

fn tdes3(arena: &SimArena, d: u64) -> u32 {
    arena.read_u32(d + 12).unwrap()
}

/// An RX descriptor owned by the DMA with buffer `buf`; RDES2 holds garbage that the
/// write-back must overwrite.
fn own_rx(arena: &SimArena, d: u64, buf: u64, ioc: bool) {
    arena.write_u32(d, lo(buf));
    arena.write_u32(d + 4, hi(buf));
    arena.write_u32(d + 8, 0xDEAD_BEEF);
    arena.write_u32(d + 12, OWN | RDES3_BUF1V | if ioc { RDES3_IOC } else { 0 });
}

fn words(arena: &SimArena, d: u64) -> [u32; 4] {
    [0, 4, 8, 12].map(|o| arena.read_u32(d + o).unwrap())
}

/// TX up: TXQEN enabled (unless `txqen` is false), base, ring length `n`, tail at the base
/// (nothing to send yet), ST.
fn tx_up(bus: &Bus, base: u64, n: u32, txqen: bool) {
    if txqen {
        let v = rd(bus, r::MTL_TXQ0_OP_MODE);
        wr(bus, r::MTL_TXQ0_OP_MODE, v | (r::TXQEN_ENABLED << 2));
    }
    wr(bus, r::DMA_CH0_TX_BASE_HI, hi(base));
    wr(bus, r::DMA_CH0_TX_BASE_LO, lo(base));
    wr(bus, r::DMA_CH0_TX_RING_LEN, n - 1);
    wr(bus, r::DMA_CH0_TX_TAIL, lo(base));
    wr(bus, r::DMA_CH0_TX_CONTROL, 1);
}

/// RX up: RXQ0EN (`rxq0en`), MAC address, RE, buffer size `rbsz`, base, ring length `n`,
/// SR, then the tail at descriptor `tail`.
fn rx_up(bus: &Bus, base: u64, n: u32, rbsz: u32, tail: u64, rxq0en: u32) {
    wr(bus, r::MAC_RXQ_CTRL0, rxq0en);
    let m = OUR_MAC;
    wr(
        bus,
        r::MAC_ADDR0_HIGH,
        u32::from(m[4]) | u32::from(m[5]) << 8,
    );
    wr(
        bus,
        r::MAC_ADDR0_LOW,
        u32::from_le_bytes([m[0], m[1], m[2], m[3]]),
    );
    wr(bus, r::MAC_CONFIG, 1); // RE
    wr(bus, r::DMA_CH0_RX_BASE_HI, hi(base));
    wr(bus, r::DMA_CH0_RX_BASE_LO, lo(base));
    wr(bus, r::DMA_CH0_RX_RING_LEN, n - 1);
    wr(bus, r::DMA_CH0_RX_CONTROL, 1 | (rbsz << 1));
    wr(bus, r::DMA_CH0_RX_TAIL, lo(tail));
}

#[test]
fn reset_values_read_only_ids_and_swr_timing() {
    let (clock, _arena, bus) = setup();
    assert_eq!(rd(&bus, r::MAC_VERSION), VERSION4_10);
    wr(&bus, r::MAC_VERSION, 0x1234);
    assert_eq!(rd(&bus, r::MAC_VERSION), 0x3041, "read-only");
    assert_eq!(rd(&bus, r::MAC_HW_FEATURE0), HW_FEATURE0_4);
    assert_ne!(HW_FEATURE0_4 & r::HWF0_TXCOESEL, 0);
    assert_ne!(HW_FEATURE0_4 & r::HWF0_RXCOESEL, 0);
    assert_eq!(rd(&bus, r::MAC_HW_FEATURE1), HW_FEATURE1_4);
    assert_eq!(HW_FEATURE1_4 & 0x1F, 4, "2 KiB RX FIFO");
    assert_eq!((HW_FEATURE1_4 >> 6) & 0x1F, 4, "2 KiB TX FIFO");
    assert_eq!(rd(&bus, r::MAC_HW_FEATURE2), 0, "one queue, one channel");
    assert_eq!(rd(&bus, r::MAC_ADDR0_HIGH), 0x8000_FFFF);
    assert_eq!(rd(&bus, r::MAC_RXQ_CTRL0), 0);
    assert_eq!(
        rd(&bus, r::MTL_TXQ0_OP_MODE),
        7 << 16,
        "TQS 2 KiB, TXQEN off"
    );
    assert_eq!(rd(&bus, r::MTL_RXQ0_OP_MODE), 7 << 20, "RQS 2 KiB");
    for reg in [
        r::MMC_CONTROL,
        r::MMC_RX_INTR_MASK,
        r::MMC_TX_INTR_MASK,
        r::MMC_IPC_RX_INTR_MASK,
    ] {
        assert_eq!(rd(&bus, reg), 0);
        wr(&bus, reg, 0xFFFF_FFFF);
        assert_eq!(rd(&bus, reg), 0xFFFF_FFFF);
    }
    // Registers written, then SWR: all back to reset values, SWR set for SWR_NS.
    wr(&bus, r::MAC_CONFIG, 3);
    wr(&bus, r::MAC_RXQ_CTRL0, 2);
    wr(&bus, r::DMA_SYSBUS_MODE, 1 << 11);
    wr(&bus, r::DMA_CH0_INTR_ENA, 0xFFFF);
    wr(&bus, r::DMA_CH0_TX_RING_LEN, 3);
    let t0 = clock.now_ns();
    wr(&bus, r::DMA_MODE, 1);
    assert_eq!(rd(&bus, r::DMA_MODE) & 1, 1);
    clock.advance_to(t0 + SWR_NS - 1);
    assert_eq!(rd(&bus, r::DMA_MODE) & 1, 1);
    clock.advance_to(t0 + SWR_NS);
    assert_eq!(rd(&bus, r::DMA_MODE), 0);
    assert_eq!(rd(&bus, r::MAC_CONFIG), 0);
    assert_eq!(rd(&bus, r::MAC_RXQ_CTRL0), 0);
    assert_eq!(rd(&bus, r::DMA_SYSBUS_MODE), 0);
    assert_eq!(rd(&bus, r::DMA_CH0_INTR_ENA), 0);
    assert_eq!(rd(&bus, r::DMA_CH0_TX_RING_LEN), 0);
    assert_eq!(rd(&bus, r::MTL_TXQ0_OP_MODE), 7 << 16);
    // Stuck.
    bus.model(|m| m.set_swr_stuck(true));
    wr(&bus, r::DMA_MODE, 1);
    clock.advance(1_000 * SWR_NS);
    assert_eq!(rd(&bus, r::DMA_MODE) & 1, 1);
}

#[test]
fn feature_fields_follow_the_builders() {
    let (_c, _a, bus) = setup_with(|m| {
        m.with_addr_bits(48)
            .with_fifo_sizes(4096, 8192)
            .without_coe()
            .with_version(VERSION5_10)
    });
    let f1 = rd(&bus, r::MAC_HW_FEATURE1);
    assert_eq!((f1 >> r::HWF1_ADDR64_SHIFT) & 3, 2);
    assert_eq!(f1 & r::HWF1_RXFIFOSIZE_MASK, 6, "8 KiB");
    assert_eq!((f1 >> r::HWF1_TXFIFOSIZE_SHIFT) & 0x1F, 5, "4 KiB");
    assert_eq!(
        rd(&bus, r::MAC_HW_FEATURE0) & (r::HWF0_TXCOESEL | r::HWF0_RXCOESEL),
        0
    );
    assert_eq!(rd(&bus, r::MAC_VERSION), 0x3051);
    assert_eq!(rd(&bus, r::MTL_RXQ0_OP_MODE) >> 20, 31);
    wr(&bus, r::MAC_CONFIG, 1 << 27);
    assert_eq!(rd(&bus, r::MAC_CONFIG), 0, "IPC reads 0 without COE");
    let (_c, _a, bus) = setup_with(|m| m.with_addr_bits(40));
    assert_eq!(
        (rd(&bus, r::MAC_HW_FEATURE1) >> r::HWF1_ADDR64_SHIFT) & 3,
        1
    );
}

#[test]
fn rxq0en_off_drops_every_frame_even_with_re() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 2048, base + 48, 0);
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 1)));
    bus.model(|m| {
        assert_eq!(m.rx_dropped_mtl(), 1);
        assert_eq!(m.rx_delivered(), 0);
    });
    assert_ne!(arena.read_u32(base + 12).unwrap() & OWN, 0, "untouched");
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::RI, 0);
    // Enabled as a generic queue: the same frame is received.
    wr(&bus, r::MAC_RXQ_CTRL0, r::RXQ0EN_DCB);
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 1)));
    bus.model(|m| assert_eq!(m.rx_delivered(), 1));
    assert_eq!(arena.read_u32(base + 12).unwrap() & OWN, 0);
}

#[test]
fn txqen_not_enabled_sends_nothing_and_keeps_descriptors_owned() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, false);
    own_tx(&arena, base, bufs, 60, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    bus.model(|m| {
        assert!(m.sent().is_empty());
        assert_eq!(m.tx_stalled(), 1);
    });
    assert_ne!(tdes3(&arena, base) & OWN, 0);
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::TI, 0);
    // TXQEN = 1 (AV) is not enough either.
    let v = rd(&bus, r::MTL_TXQ0_OP_MODE);
    wr(&bus, r::MTL_TXQ0_OP_MODE, v | (1 << 2));
    bus.model(|m| assert!(m.sent().is_empty()));
    wr(&bus, r::MTL_TXQ0_OP_MODE, v | (2 << 2));
    bus.model(|m| assert_eq!(m.sent().len(), 1));
    assert_eq!(tdes3(&arena, base) & OWN, 0);
}

#[test]
fn tx_tail_doorbell_sends_exactly_the_descriptors_before_it_ti_with_ioc_wraps() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, true);
    for i in 0..4u64 {
        own_tx(
            &arena,
            base + 16 * i,
            bufs + 2048 * i,
            60 + i as u32,
            i == 1,
        );
    }
    arena.record_order();
    // Tail at descriptor 1: only descriptor 0 (no IOC) goes.
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    bus.model(|m| assert_eq!(m.sent().len(), 1));
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & (chan::TI | chan::TBU), 0);
    assert_eq!(tdes3(&arena, base), FD | LD, "OWN cleared, FD/LD kept");
    assert_ne!(tdes3(&arena, base + 16) & OWN, 0);
    assert_eq!(u64::from(rd(&bus, r::DMA_CH0_CUR_TX_DESC)), base + 16);
    // Tail at descriptor 2: descriptor 1 (IOC) goes, TI.
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 32));
    bus.model(|m| assert_eq!(m.sent().len(), 2));
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::TI, chan::TI);
    assert_ne!(
        tdes3(&arena, base + 32) & OWN,
        0,
        "the tail's descriptor stays"
    );
    wr(&bus, r::DMA_CH0_STATUS, chan::TI);
    // Tail at the base: 2 and 3 go, then the ring length wraps the DMA to the base.
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base));
    bus.model(|m| {
        let lens: Vec<usize> = m.sent().iter().map(|f| f.bytes.len()).collect();
        assert_eq!(lens, [60, 61, 62, 63]);
        assert!(!m.sent()[0].ic && m.sent()[1].ic && !m.sent()[2].ic);
    });
    assert_eq!(u64::from(rd(&bus, r::DMA_CH0_CUR_TX_DESC)), base, "wrapped");
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::TI, 0);
    // Descriptor 0 again, after the wrap.
    own_tx(&arena, base, bufs, 70, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    bus.model(|m| assert_eq!(m.sent().len(), 5));
    // A descriptor not owned before the tail: TBU, suspended.
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 48));
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::TBU, 0);
    assert_eq!(u64::from(rd(&bus, r::DMA_CH0_CUR_TX_DESC)), base + 16);
    let order = arena.take_order();
    let bells: Vec<(u64, u32)> = order
        .iter()
        .filter_map(|s| match *s {
            Seen::Doorbell {
                ring: Ring::Tx,
                desc,
                des0,
            } => Some((desc, des0)),
            _ => None,
        })
        .collect();
    assert_eq!(bells.len(), 5);
    assert_eq!(
        bells[0],
        (base, OWN | FD | LD | 60),
        "TDES3 at CUR when the tail moved"
    );
    assert_eq!(bells[4].0, base + 16);
    assert_eq!(bells[4].1 & OWN, 0);
}

#[test]
fn rx_spans_three_descriptors_and_overwrites_rdes0_to_2() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 512, base + 48, r::RXQ0EN_DCB);
    let frame = eth_frame(OUR_MAC, 1200, 0x5A);
    bus.model(|m| m.inject(0, &frame));
    let w0 = words(&arena, base);
    let w1 = words(&arena, base + 16);
    let w2 = words(&arena, base + 32);
    assert_eq!(w0, [0, 0, 0, FD], "RDES0-2 overwritten, FD, PL 0");
    assert_eq!(w1, [0, 0, 0, 0]);
    assert_eq!(w2, [0, 0, 0, LD | 1204], "LD with PL = frame + FCS");
    let got: Vec<u8> = [0u64, 1, 2]
        .iter()
        .flat_map(|&i| arena.read_bytes(bufs + 2048 * i, 512).unwrap())
        .take(1200)
        .collect();
    assert_eq!(got, frame);
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::RI, 0);
    // The buffer address is gone from RDES0: a driver that reads it back reads 0.
    assert_ne!(lo(bufs), 0);
}

#[test]
fn the_tail_descriptor_is_never_written_rbu_then_resume_on_tail_write() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 2048, base + 48, r::RXQ0EN_DCB);
    for k in 0..4 {
        bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, k)));
    }
    bus.model(|m| assert_eq!(m.rx_delivered(), 3));
    let guard = words(&arena, base + 48);
    assert_eq!(
        guard[0],
        lo(bufs + 3 * 2048),
        "the tail descriptor is untouched"
    );
    assert_eq!(guard[3], OWN | RDES3_BUF1V | RDES3_IOC);
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::RBU, 0);
    wr(&bus, r::DMA_CH0_STATUS, chan::RBU | chan::RI);
    // The fourth frame waits in the RX queue: the driver refills 0 and moves the tail.
    own_rx(&arena, base, bufs, true);
    own_rx(&arena, base + 16, bufs + 2048, true); // refilled too, but the new guard
    wr(&bus, r::DMA_CH0_RX_TAIL, lo(base + 16));
    bus.model(|m| assert_eq!(m.rx_delivered(), 4));
    assert_eq!(words(&arena, base + 48)[3], FD | LD | 104);
    assert_eq!(arena.read_bytes(bufs + 3 * 2048, 15).unwrap()[14], 3);
    assert_eq!(
        u64::from(rd(&bus, r::DMA_CH0_CUR_RX_DESC)),
        base,
        "wrapped by ring length"
    );
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::RI, 0);
    // A fifth goes into descriptor 0; descriptor 1 (the new tail) stays.
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 5)));
    assert_eq!(words(&arena, base)[3], FD | LD | 104);
    let guard = [
        lo(bufs + 2048),
        0,
        0xDEAD_BEEF,
        OWN | RDES3_BUF1V | RDES3_IOC,
    ];
    assert_eq!(words(&arena, base + 16), guard);
    // A sixth waits: CUR is the tail.
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 6)));
    assert_eq!(words(&arena, base + 16), guard);
    bus.model(|m| assert_eq!(m.rx_delivered(), 5));
}

#[test]
fn a_descriptor_without_buf1v_is_a_descriptor_error() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    own_rx(&arena, base, bufs, true);
    arena.write_u32(base + 12, OWN | RDES3_IOC);
    own_rx(&arena, base + 16, bufs + 2048, true);
    rx_up(&bus, base, 4, 2048, base + 48, r::RXQ0EN_DCB);
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 1)));
    assert_eq!(
        words(&arena, base)[3] & (OWN | RDES3_ES | RDES3_DE),
        RDES3_ES | RDES3_DE
    );
    bus.model(|m| {
        assert_eq!(m.rx_desc_errors(), 1);
        assert_eq!(m.rx_delivered(), 0);
    });
    assert_ne!(words(&arena, base + 16)[3] & OWN, 0);
}

#[test]
fn context_descriptor_follows_a_frame_when_timestamps_are_on() {
    let (clock, arena, bus) = setup_with(|m| m.with_timestamps(true));
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 2048, base + 48, r::RXQ0EN_DCB);
    clock.advance_to(0x1_2345_6789);
    let now = clock.now_ns();
    bus.model(|m| m.inject(now, &eth_frame(OUR_MAC, 100, 1)));
    assert_eq!(words(&arena, base)[3], FD | LD | 104);
    assert_eq!(words(&arena, base + 16), [0x2345_6789, 1, 0, CTXT]);
    assert_eq!(u64::from(rd(&bus, r::DMA_CH0_CUR_RX_DESC)), base + 32);
    bus.model(|m| assert_eq!(m.rx_contexts(), 1));
    // One-shot inject_context on a model without timestamps.
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 2048, base + 48, r::RXQ0EN_DCB);
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 100, 1)));
    bus.model(|m| {
        m.inject_context(5);
        m.inject(5, &eth_frame(OUR_MAC, 100, 2));
    });
    assert_eq!(words(&arena, base + 16)[3], FD | LD | 104);
    assert_eq!(words(&arena, base + 32), [5, 0, 0, CTXT]);
    bus.model(|m| assert_eq!(m.rx_contexts(), 1));
}

/// RIWT fires `riwt × unit` CSR clocks after a frame without IOC.
fn riwt_deadline(version: u32, watchdog: u32) -> (u64, u32) {
    let (clock, arena, bus) = setup_with(|m| m.with_version(version));
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, false);
    }
    rx_up(&bus, base, 4, 2048, base + 48, r::RXQ0EN_DCB);
    wr(&bus, r::DMA_CH0_RX_WATCHDOG, watchdog);
    let readback = rd(&bus, r::DMA_CH0_RX_WATCHDOG);
    let t0 = 1_000;
    clock.advance_to(t0);
    bus.model(|m| m.inject(t0, &eth_frame(OUR_MAC, 100, 1)));
    assert_eq!(
        rd(&bus, r::DMA_CH0_STATUS) & chan::RI,
        0,
        "no IOC: no RI yet"
    );
    let at = bus.model(|m| m.riwt_deadline()).expect("armed");
    clock.advance_to(at - 1);
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::RI, 0);
    let fired = QosIrq(&bus).advance_to_next();
    assert_eq!(fired, Some(at));
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::RI, 0);
    (at - t0, readback)
}

#[test]
fn riwt_units_256_csr_clocks_and_rwtu_only_from_0x42() {
    let clk = |n: u64| n * 1_000_000_000 / u64::from(SIM_CSR_HZ);
    assert_eq!(riwt_deadline(VERSION4_10, 4), (clk(4 * 256), 4));
    // RWTU = 1 on 5.10: 512 clocks per unit.
    assert_eq!(
        riwt_deadline(VERSION5_10, 4 | (1 << 16)),
        (clk(4 * 512), 4 | (1 << 16))
    );
    // RWTU does not exist on 4.10: reads 0, ignored.
    assert_eq!(riwt_deadline(VERSION4_10, 4 | (1 << 16)), (clk(4 * 256), 4));
}

/// After TI with `ena`, whether the line is up.
fn irq_after_ti(version: u32, ena: u32) -> bool {
    let (_c, arena, bus) = setup_with(|m| m.with_version(version));
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, true);
    wr(&bus, r::DMA_CH0_INTR_ENA, ena);
    own_tx(&arena, base, bufs, 60, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    assert_ne!(bus.model(|m| m.raw_status(0)) & chan::TI, 0);
    let line = bus.model(|m| m.irq_pending(0));
    assert_eq!(
        rd(&bus, r::DMA_STATUS) & 1,
        u32::from(line),
        "DC0IS follows the line"
    );
    line
}

#[test]
fn nie_aie_positions_differ_between_4_00_and_4_10() {
    let ena_4_10 = chan::TI | chan::NIE_4_10 | chan::AIE_4_10;
    let ena_4_00 = chan::TI | chan::NIE_4_00 | chan::AIE_4_00;
    assert!(irq_after_ti(VERSION4_10, ena_4_10));
    assert!(irq_after_ti(VERSION5_10, ena_4_10));
    assert!(
        !irq_after_ti(VERSION4_00, ena_4_10),
        "4.10 enables on a 4.00 core"
    );
    assert!(irq_after_ti(VERSION4_00, ena_4_00));
    assert!(!irq_after_ti(VERSION4_10, chan::TI), "TIE without NIE");
    assert!(
        !irq_after_ti(VERSION4_10, chan::NIE_4_10),
        "NIE without TIE"
    );
}

#[test]
fn status_is_write_one_to_clear_with_summaries_from_enabled_sources() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, true);
    own_tx(&arena, base, bufs, 60, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 32)); // sends 0, then 1 is not owned: TBU
    let st = rd(&bus, r::DMA_CH0_STATUS);
    assert_eq!(st & (chan::TI | chan::TBU), chan::TI | chan::TBU);
    assert_eq!(st & chan::NIS, 0, "nothing enabled: no NIS");
    wr(&bus, r::DMA_CH0_INTR_ENA, chan::TBU);
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::NIS, 0);
    wr(&bus, r::DMA_CH0_STATUS, 0);
    assert_eq!(
        rd(&bus, r::DMA_CH0_STATUS) & 0xFF,
        chan::TI | chan::TBU,
        "0 clears nothing"
    );
    wr(&bus, r::DMA_CH0_STATUS, chan::TI);
    let st = rd(&bus, r::DMA_CH0_STATUS);
    assert_eq!(st & 0xFF, chan::TBU, "only TI cleared");
    assert_ne!(st & chan::NIS, 0);
    wr(&bus, r::DMA_CH0_STATUS, chan::TBU);
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS), 0);
}

/// A wide (48-bit) arena above 4 GiB: TX and RX with EAME.
#[test]
fn wide_arena_works_with_eame_and_faults_without() {
    let wide = || SimArena::wide(0x1_0000_0000, 256 * 1024);
    let (_c, arena, bus) = setup_on(wide(), |m| m.with_addr_bits(48));
    let (base, bufs) = raw_ring(&arena, 4);
    assert_eq!(hi(base), 1);
    wr(&bus, r::DMA_SYSBUS_MODE, 1 << 11); // EAME
    tx_up(&bus, base, 4, true);
    own_tx(&arena, base, bufs, 80, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    bus.model(|m| assert_eq!(m.sent().len(), 1));
    assert_eq!(tdes3(&arena, base) & OWN, 0);
    assert_eq!(
        u64::from(rd(&bus, r::DMA_CH0_CUR_TX_DESC)),
        base + 16 - (1 << 32),
        "low 32 bits"
    );
    bus.model(|m| assert_eq!(m.cur_tx(), base + 16));
    let (rbase, rbufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, rbase + 16 * i, rbufs + 2048 * i, true);
    }
    rx_up(&bus, rbase, 4, 2048, rbase + 48, r::RXQ0EN_DCB);
    let frame = eth_frame(OUR_MAC, 200, 7);
    bus.model(|m| m.inject(0, &frame));
    assert_eq!(words(&arena, rbase)[3], FD | LD | 204);
    assert_eq!(arena.read_bytes(rbufs, 200).unwrap(), frame);

    // The same without EAME: the DMA uses the low 32 bits, below the arena: FBE, TPS.
    let (_c, arena, bus) = setup_on(wide(), |m| m.with_addr_bits(48));
    let (base, bufs) = raw_ring(&arena, 4);
    own_tx(&arena, base, bufs, 80, true);
    tx_up(&bus, base, 4, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    let st = bus.model(|m| m.raw_status(0));
    assert_eq!(st & (chan::FBE | chan::TPS), chan::FBE | chan::TPS);
    bus.model(|m| assert!(m.sent().is_empty()));
    assert_ne!(tdes3(&arena, base) & OWN, 0);
    // Stopped until ST is cleared and set again (now with EAME).
    wr(&bus, r::DMA_SYSBUS_MODE, 1 << 11);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    bus.model(|m| assert!(m.sent().is_empty()));
    wr(&bus, r::DMA_CH0_TX_CONTROL, 0);
    wr(&bus, r::DMA_CH0_TX_CONTROL, 1);
    bus.model(|m| assert_eq!(m.sent().len(), 1));
    // EAME with only 32 address bits in the core: the high word is cut off.
    let (_c, arena, bus) = setup_on(wide(), |m| m);
    let (base, bufs) = raw_ring(&arena, 4);
    own_tx(&arena, base, bufs, 80, true);
    wr(&bus, r::DMA_SYSBUS_MODE, 1 << 11);
    tx_up(&bus, base, 4, true);
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    assert_ne!(bus.model(|m| m.raw_status(0)) & chan::FBE, 0);
}

#[test]
fn rx_queue_size_drops_longer_frames_and_counts_missed_ones() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, base + 16 * i, bufs + 2048 * i, true);
    }
    rx_up(&bus, base, 4, 2048, base, r::RXQ0EN_DCB); // tail at CUR: no descriptor
    wr(&bus, r::MTL_RXQ0_OP_MODE, 1 << 20); // RQS 1: 512 bytes
    bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 600, 1)));
    bus.model(|m| assert_eq!(m.rx_overflow(), 1));
    for k in 0..3 {
        bus.model(|m| m.inject(0, &eth_frame(OUR_MAC, 200, k)));
    }
    // Two of 204 bytes wait; the third does not fit in 512.
    bus.model(|m| assert_eq!(m.rx_missed(), 1));
    assert_eq!(rd(&bus, r::DMA_CH0_MISSED), 1);
    wr(&bus, r::DMA_CH0_RX_TAIL, lo(base + 48));
    bus.model(|m| assert_eq!(m.rx_delivered(), 2));
}

#[test]
fn mdio_c22_read_and_write_take_one_frame_and_gb_can_stick() {
    let (clock, _a, bus) = setup();
    // CR = 1 (/62 at 125 MHz).
    let frame = mdio_bus::frame_ns(SIM_CSR_HZ / 62);
    let cr = 1 << 8;
    let t0 = clock.now_ns();
    wr(&bus, r::MAC_MDIO_ADDRESS, (2 << 16) | cr | (3 << 2) | 1); // read PHY 0 reg 2
    assert_eq!(rd(&bus, r::MAC_MDIO_ADDRESS) & 1, 1);
    clock.advance_to(t0 + frame - 1);
    assert_eq!(rd(&bus, r::MAC_MDIO_ADDRESS) & 1, 1);
    clock.advance_to(t0 + frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_ADDRESS) & 1, 0);
    assert_eq!(rd(&bus, r::MAC_MDIO_DATA) & 0xFFFF, 0x0362);
    // Write reg 4, read it back.
    wr(&bus, r::MAC_MDIO_DATA, 0x01E1);
    wr(&bus, r::MAC_MDIO_ADDRESS, (4 << 16) | cr | (1 << 2) | 1);
    clock.advance(frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_ADDRESS) & 1, 0);
    wr(&bus, r::MAC_MDIO_DATA, 0);
    wr(&bus, r::MAC_MDIO_ADDRESS, (4 << 16) | cr | (3 << 2) | 1);
    clock.advance(frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_DATA) & 0xFFFF, 0x01E1);
    // Another PHY address reads 0xFFFF.
    wr(
        &bus,
        r::MAC_MDIO_ADDRESS,
        (5 << 21) | (2 << 16) | cr | (3 << 2) | 1,
    );
    clock.advance(frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_DATA) & 0xFFFF, 0xFFFF);
    assert_eq!(bus.model(|m| m.mdio_frames()), 4);
    // C45: no device answers.
    wr(&bus, r::MAC_MDIO_DATA, 0x8000 << 16);
    wr(&bus, r::MAC_MDIO_ADDRESS, (1 << 16) | cr | (3 << 2) | 2 | 1);
    clock.advance(2 * frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_DATA), 0x8000_FFFF);
    assert_eq!(bus.model(|m| m.mdio_c45_frames()), 1);
    // Stuck.
    bus.model(|m| m.set_mdio_stuck(true));
    wr(&bus, r::MAC_MDIO_ADDRESS, (2 << 16) | cr | (3 << 2) | 1);
    clock.advance(1_000 * frame);
    assert_eq!(rd(&bus, r::MAC_MDIO_ADDRESS) & 1, 1);
}

#[test]
fn tx_lag_writes_back_after_fetch_latency_and_wire_time() {
    let (clock, arena, bus) = setup_with(|m| m.with_tx_lag(1_000));
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, true);
    own_tx(&arena, base, bufs, 100, true);
    let t = clock.now_ns(); // the write happens at this time (its cost comes after)
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    assert_ne!(tdes3(&arena, base) & OWN, 0, "in flight");
    assert_eq!(rd(&bus, r::DMA_CH0_STATUS) & chan::TI, 0);
    // 100 + 4 FCS + 20 preamble/IFG bytes at 1 Gbit/s: 992 ns.
    let at = QosIrq(&bus).advance_to_next();
    assert_eq!(at, Some(t + 1_000 + 992));
    assert_eq!(clock.now_ns(), t + 1_992);
    bus.model(|m| assert_eq!(m.sent()[0].at_ns, t + 1_992));
    assert_eq!(tdes3(&arena, base) & OWN, 0);
    assert_ne!(rd(&bus, r::DMA_CH0_STATUS) & chan::TI, 0);
}

/// An IPv4/UDP frame to `OUR_MAC` with both checksum fields 0.
fn udp_frame() -> Vec<u8> {
    let mut f = eth_frame(OUR_MAC, 14 + 20 + 8 + 32, 0x33);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip = [
        0x45, 0, 0, 60, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    f[14..34].copy_from_slice(&ip);
    f[34..42].copy_from_slice(&[0x12, 0x34, 0x56, 0x78, 0, 40, 0, 0]);
    f
}

#[test]
fn checksum_insertion_per_cic_and_rx_checking_with_ipc() {
    let (_c, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4);
    tx_up(&bus, base, 4, true);
    let frame = udp_frame();
    arena.write_bytes(bufs, &frame);
    own_tx(&arena, base, bufs, frame.len() as u32, false);
    let d3 = tdes3(&arena, base);
    arena.write_u32(base + 12, d3 | (3 << TDES3_CIC_SHIFT));
    wr(&bus, r::DMA_CH0_TX_TAIL, lo(base + 16));
    let sent = bus.model(|m| m.sent()[0].bytes.clone());
    assert_eq!(
        stmmac_coalesce::sim::inet_checksum(0, &sent[14..34]),
        0,
        "IP header"
    );
    assert_ne!(sent[40..42], [0, 0], "UDP checksum inserted");
    // RX with IPC: the good frame reports IPv4 + UDP, no error; a broken header IPHE.
    let (rbase, rbufs) = raw_ring(&arena, 4);
    for i in 0..4 {
        own_rx(&arena, rbase + 16 * i, rbufs + 2048 * i, true);
    }
    rx_up(&bus, rbase, 4, 2048, rbase + 48, r::RXQ0EN_DCB);
    wr(&bus, r::MAC_CONFIG, 1 | (1 << 27)); // RE | IPC
    bus.model(|m| m.inject(0, &sent));
    let w = words(&arena, rbase);
    assert_eq!(w[1], (1 << 4) | 1, "IPv4, payload UDP");
    assert_ne!(w[3] & RDES3_RS1V, 0);
    assert_eq!(w[3] & RDES3_ES, 0, "checksum errors are not in ES");
    let mut bad = sent.clone();
    bad[24] ^= 0xFF;
    bus.model(|m| m.inject(0, &bad));
    let w = words(&arena, rbase + 16);
    assert_ne!(w[1] & RDES1_IPHE, 0);
    assert_eq!(w[1] & RDES1_IPCE, 0);
    // IPC off: RDES1 holds nothing, RS1V clear.
    wr(&bus, r::MAC_CONFIG, 1);
    bus.model(|m| m.inject(0, &bad));
    let w = words(&arena, rbase + 32);
    assert_eq!((w[1], w[3] & RDES3_RS1V), (0, 0));
}
