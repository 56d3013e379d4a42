//! The shared DMA engine under both register front-ends: one descriptor walker sends the
//! same frames through the GMAC 3.x ring (end-of-ring, chained) and the QoS ring (tail
//! pointer, ring length); the sent-frame log's limit; `SimArena::rewind`. Offsets and bits
//! are written out from the sources (Linux `dwmac_dma.h`, `dwmac1000.h`, `descs.h`,
//! `dwmac4.h`, `dwmac4_dma.h`, `dwmac4_descs.h`), not taken from the crate.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::DmaAddr;
use stmmac_coalesce::sim::{Gmac3Model, QosModel, SIM_CSR_HZ, SimArena, eth_frame};

const OWN: u32 = 1 << 31; // descs.h TDES0_OWN, dwmac4_descs.h TDES3_OWN

// GMAC 3.x (dwmac1000.h, dwmac_dma.h, descs.h normal descriptors).
const GMAC_CONTROL: usize = 0x00;
const CONTROL_TE: u32 = 1 << 3;
const DMA_XMT_POLL_DEMAND: usize = 0x1004;
const DMA_TX_BASE_ADDR: usize = 0x1010;
const DMA_CONTROL: usize = 0x1018;
const DMA_ST: u32 = 1 << 13;
const TDES1_IC: u32 = 1 << 31;
const TDES1_LS: u32 = 1 << 30;
const TDES1_FS: u32 = 1 << 29;
const TDES1_TER: u32 = 1 << 25;
const TDES1_TCH: u32 = 1 << 24;

// QoS 4.x/5.x (dwmac4.h, dwmac4_dma.h, dwmac4_descs.h).
const MAC_CONFIG: usize = 0x000;
const CONFIG_TE: u32 = 1 << 1;
const MTL_TXQ0_OP_MODE: usize = 0xD00;
const TXQEN_ENABLED: u32 = 2 << 2;
const CH_TX_CONTROL: usize = 0x1104;
const CH_TX_BASE_LO: usize = 0x1114;
const CH_TX_TAIL: usize = 0x1120;
const CH_TX_RING_LEN: usize = 0x112C;
const TX_ST: u32 = 1;
const TDES2_IOC: u32 = 1 << 31;
const TDES3_FD: u32 = 1 << 29;
const TDES3_LD: u32 = 1 << 28;

fn arena() -> SimArena {
    SimArena::new(0x2000_0000, 64 * 1024)
}

fn phy() -> PhyModel {
    PhyModel::bcm54612e(PhyAddr::from_bits(0))
}

/// `n` descriptors of 16 bytes and `n` 2 KiB buffers: (descriptors, buffers).
fn ring(arena: &SimArena, n: u32) -> (u32, u32) {
    let region = arena.region((n * (16 + 2048)) as usize).unwrap();
    let base = arena.bus_addr(region.as_ptr()).unwrap();
    (base, base + n * 16)
}

/// Send `frames` through a 3.x TX ring of `n` normal descriptors, `chained` (TCH, DES3 the
/// next descriptor) or a ring with TER on the last; one frame per descriptor, one poll
/// demand per frame.
fn gmac3_send(
    model: Gmac3Model<PhyModel>,
    arena: &SimArena,
    n: u32,
    chained: bool,
    frames: &[Vec<u8>],
) -> SimBus<Gmac3Model<PhyModel>> {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, model);
    let (d, b) = ring(arena, n);
    bus.write_word(GMAC_CONTROL, CONTROL_TE);
    bus.write_word(DMA_TX_BASE_ADDR, d);
    bus.write_word(DMA_CONTROL, DMA_ST);
    for (k, f) in frames.iter().enumerate() {
        let i = k as u32 % n;
        let (desc, buf) = (d + 16 * i, b + 2048 * i);
        assert!(arena.write_bytes(buf, f));
        let link = if chained {
            TDES1_TCH
        } else if i == n - 1 {
            TDES1_TER
        } else {
            0
        };
        let next = d + 16 * ((i + 1) % n);
        arena.write_u32(
            desc + 4,
            TDES1_IC | TDES1_FS | TDES1_LS | link | f.len() as u32,
        );
        arena.write_u32(desc + 8, buf);
        arena.write_u32(desc + 12, if chained { next } else { 0 });
        arena.write_u32(desc, OWN);
        bus.write_word(DMA_XMT_POLL_DEMAND, 1);
        assert_eq!(arena.read_u32(desc), Some(0), "descriptor {i} written back");
    }
    bus
}

/// The same through a QoS TX ring of `n` descriptors: ring length, tail pointer doorbells.
fn qos_send(
    model: QosModel<PhyModel>,
    arena: &SimArena,
    n: u32,
    frames: &[Vec<u8>],
) -> SimBus<QosModel<PhyModel>> {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, model);
    let (d, b) = ring(arena, n);
    bus.write_word(MAC_CONFIG, CONFIG_TE);
    bus.write_word(MTL_TXQ0_OP_MODE, TXQEN_ENABLED);
    bus.write_word(CH_TX_RING_LEN, n - 1);
    bus.write_word(CH_TX_BASE_LO, d);
    bus.write_word(CH_TX_TAIL, d);
    bus.write_word(CH_TX_CONTROL, TX_ST);
    for (k, f) in frames.iter().enumerate() {
        let i = k as u32 % n;
        let (desc, buf) = (d + 16 * i, b + 2048 * i);
        assert!(arena.write_bytes(buf, f));
        arena.write_u32(desc, buf);
        arena.write_u32(desc + 4, 0);
        arena.write_u32(desc + 8, TDES2_IOC | f.len() as u32);
        arena.write_u32(desc + 12, OWN | TDES3_FD | TDES3_LD | f.len() as u32);
        bus.write_word(CH_TX_TAIL, d + 16 * ((i + 1) % n));
        assert_eq!(
            arena.read_u32(desc + 12).map(|w| w & OWN),
            Some(0),
            "descriptor {i} written back"
        );
    }
    bus
}

fn frames(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| eth_frame([0xFF; 6], 60 + i, i as u8))
        .collect()
}

#[test]
fn one_walker_sends_the_same_frames_on_both_rings() {
    let f = frames(11);
    for chained in [false, true] {
        let a = arena();
        let bus = gmac3_send(
            Gmac3Model::new(a.clone(), phy(), SIM_CSR_HZ),
            &a,
            4,
            chained,
            &f,
        );
        let sent: Vec<_> = bus.model(|m| m.sent().iter().map(|s| s.bytes.clone()).collect());
        assert_eq!(sent, f, "3.x, chained {chained}");
    }
    let a = arena();
    let bus = qos_send(QosModel::new(a.clone(), phy(), SIM_CSR_HZ), &a, 4, &f);
    let sent: Vec<_> = bus.model(|m| m.sent().iter().map(|s| s.bytes.clone()).collect());
    assert_eq!(sent, f, "QoS");
}

#[test]
fn the_sent_log_keeps_the_last_frames_under_a_limit() {
    let f = frames(23);
    let a = arena();
    let m = Gmac3Model::new(a.clone(), phy(), SIM_CSR_HZ).with_sent_log_limit(5);
    let bus = gmac3_send(m, &a, 4, false, &f);
    bus.model(|m| {
        let kept: Vec<_> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        assert_eq!(kept, f[18..], "3.x: the last 5");
        assert_eq!(m.sent_total(), 23);
    });
    let a = arena();
    let m = QosModel::new(a.clone(), phy(), SIM_CSR_HZ).with_sent_log_limit(3);
    let bus = qos_send(m, &a, 4, &f);
    bus.model(|m| {
        let kept: Vec<_> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        assert_eq!(kept, f[20..], "QoS: the last 3");
        assert_eq!(m.sent_total(), 23);
        m.clear_sent();
        assert!(m.sent().is_empty());
        assert_eq!(m.sent_total(), 23);
    });
    // Without a limit every frame stays.
    let a = arena();
    let bus = qos_send(QosModel::new(a.clone(), phy(), SIM_CSR_HZ), &a, 4, &f);
    assert_eq!(bus.model(|m| m.sent().len()), 23);
    // A limit of 0 keeps none.
    let a = arena();
    let m = Gmac3Model::new(a.clone(), phy(), SIM_CSR_HZ).with_sent_log_limit(0);
    let bus = gmac3_send(m, &a, 4, true, &f);
    bus.model(|m| {
        assert!(m.sent().is_empty());
        assert_eq!(m.sent_total(), 23);
    });
}

#[test]
fn rewind_hands_out_the_same_zeroed_memory_again() {
    for a in [
        SimArena::new(0x1000_0000, 4096),
        SimArena::non_coherent(0x1000_0000, 4096, 64),
    ] {
        let first = a.bus_addr(a.region(4096).unwrap().as_ptr()).unwrap();
        assert!(a.write_bytes(first + 100, &[0xAB; 32]));
        assert!(a.region(1).is_none(), "full");
        // SAFETY: the only region carved from `a` was a temporary above, gone, and nothing
        // made from it is used again; no model walks this arena.
        unsafe { a.rewind() };
        let r = a.region(4096).expect("the whole arena again");
        assert_eq!(a.bus_addr(r.as_ptr()), Some(first));
        assert_eq!(
            a.read_bytes(first, 4096),
            Some(vec![0; 4096]),
            "{a:?}: zeroed"
        );
        // SAFETY: `r` covers 4096 bytes of the arena's host memory and is the only
        // reference to it.
        let host = unsafe { core::slice::from_raw_parts(r.as_ptr(), 4096) };
        assert!(host.iter().all(|&b| b == 0), "{a:?}: the CPU's view zeroed");
    }
}
