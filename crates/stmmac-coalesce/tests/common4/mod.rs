//! The driver on the DWMAC 4.x model for the host tests: a probed, reset and configured
//! `Qos`, and ring builders (the 4.x twin of `tests/common`).
#![allow(dead_code)]

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::PhyAddr;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::sim::{AN_NS, AnPhy, QosModel, SIM_CSR_HZ, SimArena};

// A test that builds both boards loads this file twice, once per board module.
#[allow(clippy::duplicate_mod)]
#[path = "../common/cfg.rs"]
mod cfg;
#[allow(unused_imports)]
pub use cfg::*;
use stmmac_coalesce::{
    CacheOps, CleanupTimer, DmaConfig, DmaSetup, FrameFilter, LinkState, MacConfig, Qos, RxConfig,
    RxRing, TxConfig, TxRing,
};

pub type Model = QosModel<AnPhy>;
pub type Bus = SimBus<Model>;

/// Our station address.
pub const US: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

pub struct Board {
    pub clock: SimClock,
    pub counter: SimCounter,
    pub arena: SimArena,
    pub bus: Bus,
    pub mac: Qos<Bus>,
    pub setup: DmaSetup,
}

impl Board {
    /// A probed, reset MAC with its DMA configured by `dma`, the model adjusted by `model`.
    pub fn with(arena: SimArena, dma: DmaConfig, model: impl FnOnce(Model) -> Model) -> Self {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let phy = AnPhy::gigabit();
        let m = model(QosModel::new(arena.clone(), phy.clone(), SIM_CSR_HZ).with_phy(phy));
        let bus = SimBus::new(&clock, m);
        let mac = Qos::probe(bus.clone()).unwrap();
        mac.soft_reset(&counter).unwrap();
        let setup = mac.configure_dma(&dma).unwrap();
        mac.init_mac(&MacConfig {
            address: US,
            filter: FrameFilter::default(),
        });
        mac.enable_default_interrupts();
        Self {
            clock,
            counter,
            arena,
            bus,
            mac,
            setup,
        }
    }

    /// Coherent 32-bit arena, default DMA set-up with the CSR clock known.
    pub fn new() -> Self {
        Self::with(arena(), dma(), |m| m)
    }

    /// Autonegotiate over the 4.x MDIO master, wait for it, set the MAC's link.
    pub fn link_up(&self) -> LinkState {
        let phy = Phy::new(PhyAddr::from_bits(0));
        let mut mdio = self.mac.mdio(&self.counter, SIM_CSR_HZ).unwrap();
        phy.start_autoneg(&mut mdio, Advertise::default()).unwrap();
        self.clock.advance(AN_NS);
        let link = phy.poll(&mut mdio).unwrap();
        self.mac.set_link(link);
        link
    }

    pub fn tx<T: CleanupTimer, C: CacheOps>(
        &self,
        cfg: TxConfig,
        timer: T,
        cache: C,
    ) -> TxRing<T, C> {
        let mut t = new_tx(&self.arena, &self.setup, cfg, timer, cache);
        t.try_start(&self.mac).unwrap();
        t
    }

    pub fn rx<C: CacheOps>(&self, cfg: RxConfig, cache: C) -> RxRing<C> {
        let mut r = new_rx(&self.arena, &self.setup, cfg, cache);
        r.try_start(&self.mac).unwrap();
        r
    }

    pub fn inject(&self, frame: &[u8]) {
        self.bus.model(|m| m.inject(self.clock.now_ns(), frame));
    }

    pub fn sent(&self) -> Vec<Vec<u8>> {
        self.bus
            .model(|m| m.sent().iter().map(|f| f.bytes.clone()).collect())
    }
}

pub fn arena() -> SimArena {
    SimArena::new(0x1000_0000, 4 << 20)
}

pub fn dma() -> DmaConfig {
    DmaConfig {
        csr_hz: SIM_CSR_HZ,
        bus_width: 8,
        ..DmaConfig::default()
    }
}
