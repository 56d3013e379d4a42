//! Two-MAC stack tests on the DWMAC 4.x model (`dwmac4_stacks`, `dwmac4_embassy_stack`):
//! a started `Qos` with its rings on a clock the test shares between the MACs, and the
//! wire between two models.
#![allow(dead_code)]

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::{QosModel, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Duplex, FrameFilter, LinkState, MacConfig, NoTimer,
    Offload, Qos, RxConfig, RxRing, Speed, TimerStrategy, TxConfig, TxRing, ring_bytes,
};

pub type Bus = SimBus<QosModel<PhyModel>>;

/// One MAC, its rings and its station address.
pub struct Nic {
    pub bus: Bus,
    pub mac: Qos<Bus>,
    pub tx: TxRing,
    pub rx: RxRing,
    pub addr: [u8; 6],
}

/// A started 4.x MAC at `addr` whose DMA sees `arena` (`addr_bits` wide): checksum
/// offload on both ways, `tx_descriptors` TX descriptors of 1536 bytes with IC every
/// `tx_frames` and no timer, 32 RX descriptors of 512 bytes, link up at 1 Gbit/s.
pub fn nic(
    clock: &SimClock,
    arena: SimArena,
    addr_bits: u32,
    addr: [u8; 6],
    tx_descriptors: usize,
    tx_frames: u32,
) -> Nic {
    let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap());
    let model = QosModel::new(arena.clone(), phy, SIM_CSR_HZ).with_addr_bits(addr_bits);
    let bus = SimBus::new(clock, model);
    let mac = Qos::probe(bus.clone()).unwrap();
    mac.soft_reset(&SimCounter::new(clock, 32, 25_000_000))
        .unwrap();
    let setup = mac
        .configure_dma(&DmaConfig {
            csr_hz: SIM_CSR_HZ,
            bus_width: 8,
            ..DmaConfig::default()
        })
        .unwrap();
    mac.init_mac(&MacConfig {
        address: addr,
        filter: FrameFilter::default(),
    });
    let tx_cfg = TxConfig {
        descriptors: tx_descriptors,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let rx_cfg = RxConfig {
        descriptors: 32,
        buf_size: 512,
        ..RxConfig::default()
    };
    let line = setup.cache_line();
    let tx_mem = arena
        .region(ring_bytes(tx_descriptors, 1536, line))
        .unwrap();
    let rx_mem = arena.region(ring_bytes(32, 512, line)).unwrap();
    let mut tx = TxRing::new(tx_mem, &arena, &setup, tx_cfg, NoTimer, Coherent).unwrap();
    let mut rx = RxRing::new(rx_mem, &arena, &setup, rx_cfg, Coherent).unwrap();
    assert!(tx.set_checksum_offload(Offload::IfDetected));
    rx.set_checksum_offload(Offload::IfDetected);
    tx.try_start(&mac).unwrap();
    rx.try_start(&mac).unwrap();
    assert!(rx.checksum_offload(), "IPC read back");
    mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    Nic {
        bus,
        mac,
        tx,
        rx,
        addr,
    }
}

/// Move every frame `from` sent into `to`'s receiver; how many there were.
pub fn wire(clock: &SimClock, from: &Bus, to: &Bus) -> usize {
    let frames = from.model(|m| {
        let f: Vec<Vec<u8>> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        m.clear_sent();
        f
    });
    for f in &frames {
        to.model(|m| m.inject(clock.now_ns(), f));
    }
    frames.len()
}

/// The frames `from` sent since the last call, in order.
pub fn take_sent(from: &Bus) -> Vec<Vec<u8>> {
    from.model(|m| {
        let f: Vec<Vec<u8>> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        m.clear_sent();
        f
    })
}
