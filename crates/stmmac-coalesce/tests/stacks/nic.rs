//! Two-MAC stack tests: a started MAC of either generation with its rings, on a clock the
//! test shares between the MACs, and the wire between two models.
#![allow(dead_code)]

use hwtimer_core::sim::SimClock;
use stmmac_coalesce::sim::{AnPhy, SimArena};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, Dwmac, FrameFilter, MacConfig, NoTimer, Offload, RxConfig, RxRing,
    TimerStrategy, TxConfig, TxRing,
};

use crate::harness::{Board, Bus, Generation, ModelOps};

/// One MAC, its rings and its station address.
pub struct Nic<G: Generation> {
    pub bus: Bus<G>,
    pub mac: G::Mac,
    pub tx: TxRing,
    pub rx: RxRing,
    pub addr: [u8; 6],
}

/// How [`nic`] builds one.
pub struct NicConfig {
    /// TX descriptors of 1536 bytes.
    pub tx_descriptors: usize,
    /// IC every `tx_frames` frames; no cleanup timer (the tests reclaim).
    pub tx_frames: u32,
    /// RX descriptors.
    pub rx_descriptors: usize,
    /// Bytes of each RX buffer.
    pub rx_buf: usize,
    /// Checksum offload on both ways (read back: the core has the engines).
    pub offload: bool,
}

/// A started MAC at `addr` whose DMA sees `arena` (its model adjusted by `model`), link up
/// at 1 Gbit/s full duplex with its autonegotiating PHY.
pub fn nic<G: Generation>(
    clock: &SimClock,
    arena: SimArena,
    model: impl FnOnce(G::Model) -> G::Model,
    addr: [u8; 6],
    cfg: NicConfig,
) -> Nic<G> {
    let b = Board::<G>::on_clock(clock, AnPhy::gigabit(), arena, model, |mac| {
        mac.configure_dma(&G::dma()).unwrap()
    });
    b.mac.init_mac(&MacConfig {
        address: addr,
        filter: FrameFilter::default(),
    });
    let tx_cfg = TxConfig {
        descriptors: cfg.tx_descriptors,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames: cfg.tx_frames,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let rx_cfg = RxConfig {
        descriptors: cfg.rx_descriptors,
        buf_size: cfg.rx_buf,
        ..RxConfig::default()
    };
    let mut tx = crate::harness::new_tx(&b.arena, &b.setup, tx_cfg, NoTimer, Coherent);
    let mut rx = crate::harness::new_rx(&b.arena, &b.setup, rx_cfg, Coherent);
    if cfg.offload {
        assert!(tx.set_checksum_offload(Offload::IfDetected));
        rx.set_checksum_offload(Offload::IfDetected);
    }
    tx.try_start(&b.mac).unwrap();
    rx.try_start(&b.mac).unwrap();
    if cfg.offload {
        assert!(rx.checksum_offload(), "IPC read back");
    }
    b.link_up();
    Nic {
        bus: b.bus,
        mac: b.mac,
        tx,
        rx,
        addr,
    }
}

/// Move every frame `from` sent into `to`'s receiver; how many there were.
pub fn wire<A: ModelOps, B: ModelOps>(
    clock: &SimClock,
    from: &hwtimer_core::sim::SimBus<A>,
    to: &hwtimer_core::sim::SimBus<B>,
) -> usize {
    let frames = take_sent(from);
    for f in &frames {
        to.model(|m| m.inject(clock.now_ns(), f));
    }
    frames.len()
}

/// The frames `from` sent since the last call, in order.
pub fn take_sent<M: ModelOps>(from: &hwtimer_core::sim::SimBus<M>) -> Vec<Vec<u8>> {
    from.model(|m| {
        let f: Vec<Vec<u8>> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        m.clear_sent();
        f
    })
}

/// A model adjustment.
pub type Adjust<G> = fn(<G as Generation>::Model) -> <G as Generation>::Model;

/// Where the second MAC of a pair puts its DMA memory.
pub trait Wired: Generation {
    /// The second MAC's arena and model adjustment: above 4 GiB with 40-bit addressing on
    /// QoS; GMAC 3.x addresses 32 bits only, so another region below 4 GiB.
    fn far_arena() -> (SimArena, Adjust<Self>);
}

impl Wired for crate::harness::OnGmac3 {
    fn far_arena() -> (SimArena, Adjust<Self>) {
        (SimArena::new(0x2000_0000, 1 << 20), |m| m)
    }
}

impl Wired for crate::harness::OnQos {
    fn far_arena() -> (SimArena, Adjust<Self>) {
        (SimArena::wide(0x8_0000_0000, 1 << 20), |m| {
            m.with_addr_bits(40)
        })
    }
}
