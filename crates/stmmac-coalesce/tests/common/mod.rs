//! A driver on the model for the host tests: MAC, DMA set-up, PHY, ring builders.
#![allow(dead_code)]

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::PhyAddr;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::sim::{AN_NS, AnPhy, Gmac3Model, SIM_CSR_HZ, SimArena};

mod cfg;
#[allow(unused_imports)]
pub use cfg::*;
use stmmac_coalesce::{
    CacheOps, CleanupTimer, DmaConfig, DmaSetup, FrameFilter, Gmac3, LinkState, MacConfig,
    RxConfig, RxRing, TxConfig, TxRing,
};

pub type Model = Gmac3Model<AnPhy>;
pub type Bus = SimBus<Model>;

/// Our station address.
pub const US: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

pub struct Board {
    pub clock: SimClock,
    pub counter: SimCounter,
    pub arena: SimArena,
    pub phy: AnPhy,
    pub bus: Bus,
    pub mac: Gmac3<Bus>,
    pub setup: DmaSetup,
}

impl Board {
    /// A reset MAC with its DMA configured by `dma`, on `phy`, model adjusted by `model`.
    pub fn with(
        phy: AnPhy,
        arena: SimArena,
        dma: DmaConfig,
        model: impl FnOnce(Model) -> Model,
    ) -> Self {
        Self::with_setup(phy, arena, model, |mac| mac.configure_dma(&dma).unwrap())
    }

    /// As [`with`](Self::with), the DMA configured by `configure`.
    pub fn with_setup(
        phy: AnPhy,
        arena: SimArena,
        model: impl FnOnce(Model) -> Model,
        configure: impl FnOnce(&Gmac3<Bus>) -> DmaSetup,
    ) -> Self {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let m =
            model(Gmac3Model::new(arena.clone(), phy.clone(), SIM_CSR_HZ).with_phy(phy.clone()));
        let bus = SimBus::new(&clock, m);
        let mac = Gmac3::new(bus.clone());
        mac.soft_reset(&counter).unwrap();
        let setup = configure(&mac);
        mac.init_mac(&MacConfig {
            address: US,
            filter: FrameFilter::default(),
        });
        // `take_events` reports enabled sources only (as the 4.x board, Linux's mask).
        mac.enable_default_interrupts();
        Self {
            clock,
            counter,
            arena,
            phy,
            bus,
            mac,
            setup,
        }
    }

    /// Gigabit partner, coherent arena, default DMA set-up with the CSR clock known.
    pub fn new() -> Self {
        Self::with(AnPhy::gigabit(), arena(), dma(), |m| m)
    }

    /// Autonegotiate, wait for it, set the MAC's link; returns it.
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
        t.start(&self.mac);
        t
    }

    pub fn rx<C: CacheOps>(&self, cfg: RxConfig, cache: C) -> RxRing<C> {
        let mut r = new_rx(&self.arena, &self.setup, cfg, cache);
        r.start(&self.mac);
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
        ..DmaConfig::default()
    }
}

pub type Time = hwtimer_core::Extended<SimCounter>;
pub type Timers = hwtimer_core::HrTimers<hwtimer_core::sim::SimClockEvent, Time, 4>;

/// A 25 MHz high-resolution timer queue on `clock` (leaked for `'static`), and its probe.
pub fn timers(clock: &SimClock) -> (&'static Timers, hwtimer_core::sim::SimClockEventProbe) {
    let event = hwtimer_core::sim::SimClockEvent::new(clock, 25_000_000, 1, u64::from(u32::MAX));
    let probe = event.probe();
    let time = hwtimer_core::Extended::new(SimCounter::new(clock, 32, 25_000_000));
    let t = Box::leak(Box::new(hwtimer_core::HrTimers::new(
        hwtimer_core::Alarm::new(event, time).unwrap(),
    )));
    (t, probe)
}
