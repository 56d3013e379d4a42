//! The driver on either DWMAC generation's model, for the host tests: one [`Board`] over a
//! [`Generation`] (GMAC 3.x: [`OnGmac3`], `Gmac3` on `Gmac3Model`; QoS 4.x/5.x: [`OnQos`],
//! `Qos` on `QosModel`), ring builders, and [`on_both!`], which runs each generic test on
//! both MACs the way `hwtimer_core::sim::conformance` runs every clockevent.
//!
//! A test written once is a function generic over `G: Generation`; the differences the
//! versions legitimately have (a QoS ring holds one frame fewer than its descriptors, the
//! default DMA bus width) are carried by the trait, never by an `if` on the version.
#![allow(dead_code)]

use hwtimer_core::sim::{SimBus, SimClock, SimCounter, SimModel};
use mdio_bus::PhyAddr;
use mdio_bus::sim::MdioDevice;
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::sim::{
    AN_NS, AnPhy, Gmac3Model, QosModel, RxWireError, SIM_CSR_HZ, SentFrame, SimArena, TxFault,
};
use stmmac_coalesce::{
    CacheOps, CleanupTimer, DmaConfig, DmaSetup, Dwmac, FrameFilter, Gmac3, LinkState, MacConfig,
    Qos, RxConfig, RxRing, TxConfig, TxRing,
};

mod cfg;
pub use cfg::*;

/// Our station address.
pub const US: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

/// The model operations both generations' models offer under the same names (the shared
/// `sim::engine` API and each front-end's injection and status views), so a generic test
/// reaches them as `b.bus.model(|m| m.rx_dropped())` on either.
pub trait ModelOps: SimModel<Word = u32> + Sized + 'static {
    /// Queue `frame` on the wire at `now_ns`.
    fn inject(&mut self, now_ns: u64, frame: &[u8]);
    /// Queue `frame` with a receive error.
    fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError);
    /// Queue a frame shorter than the minimum.
    fn inject_runt(&mut self, now_ns: u64, frame: &[u8]);
    /// Frames the TX DMA put on the wire.
    fn sent(&self) -> &[SentFrame];
    /// Forget the frames sent so far.
    fn clear_sent(&mut self);
    /// Frames the receiver dropped (no descriptor, FIFO full).
    fn rx_dropped(&self) -> u64;
    /// Frames the RX DMA delivered into descriptors.
    fn rx_delivered(&self) -> u64;
    /// Frames the address filter rejected.
    fn rx_filtered(&self) -> u64;
    /// Frames sent or received while the MAC's line settings did not match the PHY's.
    fn line_mismatch(&self) -> u64;
    /// MDIO frames the master clocked out.
    fn mdio_frames(&self) -> u64;
    /// Hold MDIO busy set for ever (or release it).
    fn set_mdio_stuck(&mut self, stuck: bool);
    /// Hold SWR set for ever (or release it).
    fn set_swr_stuck(&mut self, stuck: bool);
    /// When the RX watchdog fires, if armed.
    fn riwt_deadline(&self) -> Option<u64>;
    /// The DMA status register as the hardware holds it at `now_ns`.
    fn raw_status(&mut self, now_ns: u64) -> u32;
    /// Whether the DMA interrupt line is up at `now_ns`.
    fn irq_pending(&mut self, now_ns: u64) -> bool;
    /// TX frames the DMA owns and has not finished.
    fn tx_in_flight(&self) -> usize;
    /// When the next in-flight TX frame completes.
    fn tx_next_due(&self) -> Option<u64>;
    /// The model's next event of any kind.
    fn next_event_ns(&self) -> Option<u64>;
    /// Make the TX DMA fail with `fault`.
    fn fail_tx(&mut self, fault: TxFault);
    /// The TX DMA lags the CPU by `ns`.
    fn with_tx_lag(self, ns: u64) -> Self;
    /// Wire rate in bit/s.
    fn with_line_rate(self, bits_per_s: u64) -> Self;
    /// How long SWR takes to self-clear.
    fn with_reset_time(self, ns: u64) -> Self;
    /// How long a DMA engine takes to reach Stopped after ST/SR is cleared.
    fn with_stop_lag(self, ns: u64) -> Self;
    /// The DMA bus width the features report, in bytes.
    fn with_bus_width(self, bytes: u32) -> Self;
}

/// `ModelOps` for a model whose inherent methods carry the same names.
macro_rules! model_ops {
    ($model:ident) => {
        impl<D: MdioDevice + 'static> ModelOps for $model<D> {
            fn inject(&mut self, now_ns: u64, frame: &[u8]) {
                $model::<D>::inject(self, now_ns, frame)
            }
            fn inject_with_error(&mut self, now_ns: u64, frame: &[u8], error: RxWireError) {
                $model::<D>::inject_with_error(self, now_ns, frame, error)
            }
            fn inject_runt(&mut self, now_ns: u64, frame: &[u8]) {
                $model::<D>::inject_runt(self, now_ns, frame)
            }
            fn sent(&self) -> &[SentFrame] {
                $model::<D>::sent(self)
            }
            fn clear_sent(&mut self) {
                $model::<D>::clear_sent(self)
            }
            fn rx_dropped(&self) -> u64 {
                $model::<D>::rx_dropped(self)
            }
            fn rx_delivered(&self) -> u64 {
                $model::<D>::rx_delivered(self)
            }
            fn rx_filtered(&self) -> u64 {
                $model::<D>::rx_filtered(self)
            }
            fn line_mismatch(&self) -> u64 {
                $model::<D>::line_mismatch(self)
            }
            fn mdio_frames(&self) -> u64 {
                $model::<D>::mdio_frames(self)
            }
            fn set_mdio_stuck(&mut self, stuck: bool) {
                $model::<D>::set_mdio_stuck(self, stuck)
            }
            fn set_swr_stuck(&mut self, stuck: bool) {
                $model::<D>::set_swr_stuck(self, stuck)
            }
            fn riwt_deadline(&self) -> Option<u64> {
                $model::<D>::riwt_deadline(self)
            }
            fn raw_status(&mut self, now_ns: u64) -> u32 {
                $model::<D>::raw_status(self, now_ns)
            }
            fn irq_pending(&mut self, now_ns: u64) -> bool {
                $model::<D>::irq_pending(self, now_ns)
            }
            fn tx_in_flight(&self) -> usize {
                $model::<D>::tx_in_flight(self)
            }
            fn tx_next_due(&self) -> Option<u64> {
                $model::<D>::tx_next_due(self)
            }
            fn next_event_ns(&self) -> Option<u64> {
                $model::<D>::next_event_ns(self)
            }
            fn fail_tx(&mut self, fault: TxFault) {
                $model::<D>::fail_tx(self, fault)
            }
            fn with_tx_lag(self, ns: u64) -> Self {
                $model::<D>::with_tx_lag(self, ns)
            }
            fn with_line_rate(self, bits_per_s: u64) -> Self {
                $model::<D>::with_line_rate(self, bits_per_s)
            }
            fn with_reset_time(self, ns: u64) -> Self {
                $model::<D>::with_reset_time(self, ns)
            }
            fn with_stop_lag(self, ns: u64) -> Self {
                $model::<D>::with_stop_lag(self, ns)
            }
            fn with_bus_width(self, bytes: u32) -> Self {
                $model::<D>::with_bus_width(self, bytes)
            }
        }
    };
}

model_ops!(Gmac3Model);
model_ops!(QosModel);

/// One DWMAC generation: its MAC, its model, how a board brings them up, and what differs.
pub trait Generation: 'static {
    /// The model with an autonegotiating PHY.
    type Model: ModelOps;
    /// The MAC driver on the model's bus.
    type Mac: Dwmac;
    /// The model of the TX-cleanup rigs (`stmmac_coalesce::sim::seed`) of this generation.
    type SeedModel: ModelOps;
    /// The TX-cleanup rigs' board: the bus of [`SeedModel`](Self::SeedModel).
    type SeedBus: stmmac_coalesce::sim::seed::Board;
    /// "gmac3" or "qos", for messages.
    const NAME: &'static str;

    /// The model on `arena` with `phy` behind its MDIO master and on its wire.
    fn model(arena: SimArena, phy: AnPhy) -> Self::Model;
    /// The MAC on `bus` (QoS: probed).
    fn attach(bus: Bus<Self>) -> Self::Mac;
    /// The DMA set-up the boards use: the CSR clock known, the model's bus width.
    fn dma() -> DmaConfig;
    /// The seed rig's bus as the bus of its model (the same value).
    fn seed_model(bus: &Self::SeedBus) -> &SimBus<Self::SeedModel>;
    /// What bring-up does after `init_mac` on this generation: the default interrupt
    /// enables (`take_events` reports enabled sources only, as Linux acknowledges them).
    fn after_init(mac: &Self::Mac);
    /// Descriptors of a ring of `descriptors` the DMA may own at once (so the frames a TX
    /// ring holds): all of them on GMAC 3.x (the owner bit ends the DMA's walk), one fewer
    /// on QoS (the tail pointer may not reach the current descriptor).
    fn ring_capacity(descriptors: usize) -> usize;
    /// The RX interrupt watchdog register (RIWT in bits 7:0): GMAC 3.x DMA_RX_WATCHDOG
    /// (0x1024), QoS DMA_CH0_RX_WATCHDOG (0x1100 + 0x38; Linux `dwmac4_dma.h`
    /// `DMA_CHAN_RX_WATCHDOG`).
    const RIWT_OFFSET: usize;
    /// Whether an RX descriptor as the driver hands it to the DMA asks for no interrupt on
    /// completion: GMAC 3.x RDES1.DIC set, QoS RDES3.IOC clear (Linux `descs.h`
    /// `RDES1_DISABLE_IC`, `dwmac4_descs.h` `RDES3_INT_ON_COMPLETION_EN`).
    fn rx_irq_suppressed(words: [u32; 4]) -> bool;
    /// The MAC's line settings as written: port select, speed, full duplex, TE and RE.
    fn mac_line(m: &Self::Model) -> MacLine;
    /// Hold the TX path (the DMA stays running and sends nothing: a slow link) or let it
    /// go on at once.
    fn hold_tx(bus: &Bus<Self>, now_ns: u64, hold: bool);
}

/// A MAC configuration's line bits, decoded by each generation's bit positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MacLine {
    /// PS: the MII port (10/100).
    pub ps: bool,
    /// FES: 100 Mbit/s on MII.
    pub fes: bool,
    /// DM: full duplex.
    pub full: bool,
    /// TE and RE both set.
    pub te_re: bool,
    /// TE or RE set.
    pub any_te_re: bool,
}

impl MacLine {
    /// `c` decoded with duplex bit `dm`, TE bit `te` and RE bit `re` (PS 15 and FES 14 on
    /// both generations).
    fn decode(c: u32, dm: u32, te: u32, re: u32) -> Self {
        let bit = |n: u32| c & (1 << n) != 0;
        Self {
            ps: bit(15),
            fes: bit(14),
            full: bit(dm),
            te_re: bit(te) && bit(re),
            any_te_re: bit(te) || bit(re),
        }
    }
}

/// The bus a generation's MAC sits on.
pub type Bus<G> = SimBus<<G as Generation>::Model>;

/// GMAC 3.x.
pub enum OnGmac3 {}

impl Generation for OnGmac3 {
    type Model = Gmac3Model<AnPhy>;
    type Mac = Gmac3<Bus<Self>>;
    type SeedModel = stmmac_coalesce::sim::seed::Model;
    type SeedBus = stmmac_coalesce::sim::seed::Bus;
    const NAME: &'static str = "gmac3";

    fn model(arena: SimArena, phy: AnPhy) -> Self::Model {
        Gmac3Model::new(arena, phy.clone(), SIM_CSR_HZ).with_phy(phy)
    }
    fn attach(bus: Bus<Self>) -> Self::Mac {
        Gmac3::new(bus)
    }
    fn dma() -> DmaConfig {
        DmaConfig {
            csr_hz: SIM_CSR_HZ,
            ..DmaConfig::default()
        }
    }
    fn seed_model(bus: &Self::SeedBus) -> &SimBus<Self::SeedModel> {
        bus
    }
    fn after_init(mac: &Self::Mac) {
        mac.enable_default_interrupts();
    }
    fn ring_capacity(descriptors: usize) -> usize {
        descriptors
    }
    const RIWT_OFFSET: usize = 0x1024;
    fn rx_irq_suppressed(words: [u32; 4]) -> bool {
        words[1] & stmmac_coalesce::gmac3::regs::desc::RDES1_DIC != 0
    }
    fn mac_line(m: &Self::Model) -> MacLine {
        // GMAC_CONTROL: DM 11, TE 3, RE 2 (Linux `dwmac1000.h` GMAC_CONTROL_*).
        MacLine::decode(m.control(), 11, 3, 2)
    }
    fn hold_tx(bus: &Bus<Self>, now_ns: u64, hold: bool) {
        bus.model(|m| m.set_tx_stall(now_ns, hold));
    }
}

/// QoS 4.x/5.x.
pub enum OnQos {}

impl Generation for OnQos {
    type Model = QosModel<AnPhy>;
    type Mac = Qos<Bus<Self>>;
    type SeedModel = stmmac_coalesce::sim::seed::Model4;
    type SeedBus = stmmac_coalesce::sim::seed::Bus4;
    const NAME: &'static str = "qos";

    fn model(arena: SimArena, phy: AnPhy) -> Self::Model {
        QosModel::new(arena, phy.clone(), SIM_CSR_HZ).with_phy(phy)
    }
    fn attach(bus: Bus<Self>) -> Self::Mac {
        Qos::probe(bus).unwrap()
    }
    fn dma() -> DmaConfig {
        DmaConfig {
            csr_hz: SIM_CSR_HZ,
            bus_width: 8,
            ..DmaConfig::default()
        }
    }
    fn seed_model(bus: &Self::SeedBus) -> &SimBus<Self::SeedModel> {
        bus
    }
    fn after_init(mac: &Self::Mac) {
        mac.enable_default_interrupts();
    }
    fn ring_capacity(descriptors: usize) -> usize {
        descriptors - 1
    }
    const RIWT_OFFSET: usize = 0x1138;
    fn rx_irq_suppressed(words: [u32; 4]) -> bool {
        words[3] & stmmac_coalesce::qos::regs::desc::RDES3_IOC == 0
    }
    fn mac_line(m: &Self::Model) -> MacLine {
        // MAC_CONFIG: DM 13, TE 1, RE 0 (Linux `dwmac4.h` GMAC_CONFIG_*).
        MacLine::decode(m.mac_config(), 13, 1, 0)
    }
    fn hold_tx(bus: &Bus<Self>, _now_ns: u64, hold: bool) {
        // MTL_TXQ0_OPERATION_MODE.TXQEN (bits 3:2) other than 2: the TX DMA stays
        // running and the frame waits in the queue (the model's documented MTL rule;
        // Linux `dwmac4.h` MTL_OP_MODE_TXQEN).
        use hwtimer_core::RegisterBus as _;
        let b = bus.clone().with_costs(0, 0);
        let op = b.read_word(0xD00) & !(3 << 2);
        b.write_word(0xD00, if hold { op } else { op | (2 << 2) });
    }
}

/// Runs each named generic test (`fn name<G: Generation>()` in the invoking module) on
/// both generations, as `gmac3::name` and `qos::name`.
#[allow(unused_macros)]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod gmac3 {
            $(
                #[test]
                fn $name() {
                    super::$name::<crate::harness::OnGmac3>()
                }
            )*
        }
        mod qos {
            $(
                #[test]
                fn $name() {
                    super::$name::<crate::harness::OnQos>()
                }
            )*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both;

/// A MAC on its model, reset, its DMA configured and its station address set.
pub struct Board<G: Generation> {
    pub clock: SimClock,
    pub counter: SimCounter,
    pub arena: SimArena,
    pub phy: AnPhy,
    pub bus: Bus<G>,
    pub mac: G::Mac,
    pub setup: DmaSetup,
}

impl<G: Generation> Board<G> {
    /// A reset MAC with its DMA configured by `dma`, on `phy`, model adjusted by `model`.
    pub fn with(
        phy: AnPhy,
        arena: SimArena,
        dma: DmaConfig,
        model: impl FnOnce(G::Model) -> G::Model,
    ) -> Self {
        Self::with_setup(phy, arena, model, |mac| mac.configure_dma(&dma).unwrap())
    }

    /// As [`with`](Self::with), the DMA configured by `configure`.
    pub fn with_setup(
        phy: AnPhy,
        arena: SimArena,
        model: impl FnOnce(G::Model) -> G::Model,
        configure: impl FnOnce(&G::Mac) -> DmaSetup,
    ) -> Self {
        Self::on_clock(&SimClock::new(), phy, arena, model, configure)
    }

    /// As [`with_setup`](Self::with_setup), on a `clock` other boards may share (two MACs
    /// wired back to back).
    pub fn on_clock(
        clock: &SimClock,
        phy: AnPhy,
        arena: SimArena,
        model: impl FnOnce(G::Model) -> G::Model,
        configure: impl FnOnce(&G::Mac) -> DmaSetup,
    ) -> Self {
        let clock = clock.clone();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let bus = SimBus::new(&clock, model(G::model(arena.clone(), phy.clone())));
        let mac = G::attach(bus.clone());
        mac.soft_reset(&counter).unwrap();
        let setup = configure(&mac);
        mac.init_mac(&MacConfig {
            address: US,
            filter: FrameFilter::default(),
        });
        G::after_init(&mac);
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

    /// Gigabit partner, coherent arena, the generation's default DMA set-up.
    pub fn new() -> Self {
        Self::with(AnPhy::gigabit(), arena(), G::dma(), |m| m)
    }

    /// Autonegotiate over the MAC's MDIO master, wait for it, set the MAC's link; returns it.
    pub fn link_up(&self) -> LinkState {
        let phy = Phy::new(PhyAddr::from_bits(0));
        let mut mdio = self.mac.mdio(&self.counter, SIM_CSR_HZ).unwrap();
        phy.start_autoneg(&mut mdio, Advertise::default())
            .unwrap_or_else(|_| panic!("{}: autonegotiation did not start", G::NAME));
        self.clock.advance(AN_NS);
        let link = phy
            .poll(&mut mdio)
            .unwrap_or_else(|_| panic!("{}: the PHY did not answer", G::NAME));
        self.mac.set_link(link);
        link
    }

    /// A started TX ring of `cfg` (panics if the MAC refuses the start).
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

    /// A started RX ring of `cfg` (panics if the MAC refuses the start).
    pub fn rx<C: CacheOps>(&self, cfg: RxConfig, cache: C) -> RxRing<C> {
        let mut r = new_rx(&self.arena, &self.setup, cfg, cache);
        r.try_start(&self.mac).unwrap();
        r
    }

    /// The DMA status bits as raised and not yet acknowledged, now.
    pub fn raw_status(&self) -> u32 {
        let now = self.clock.now_ns();
        self.bus.model(|m| m.raw_status(now))
    }

    /// Whether the DMA interrupt line is up now.
    pub fn irq_pending(&self) -> bool {
        let now = self.clock.now_ns();
        self.bus.model(|m| m.irq_pending(now))
    }

    /// A register as it reads now, without moving the clock.
    pub fn peek(&self, offset: usize) -> u32 {
        use hwtimer_core::RegisterBus as _;
        self.bus.clone().with_costs(0, 0).read_word(offset)
    }

    /// Queue `frame` on the model's wire now.
    pub fn inject(&self, frame: &[u8]) {
        self.bus.model(|m| m.inject(self.clock.now_ns(), frame));
    }

    /// Every frame the model sent so far.
    pub fn sent(&self) -> Vec<Vec<u8>> {
        self.bus
            .model(|m| m.sent().iter().map(|f| f.bytes.clone()).collect())
    }

    /// The frames sent since the last call, in order.
    pub fn take_sent(&self) -> Vec<Vec<u8>> {
        self.bus.model(|m| {
            let f = m.sent().iter().map(|s| s.bytes.clone()).collect();
            m.clear_sent();
            f
        })
    }
}

/// A coherent 4 MiB arena below 4 GiB.
pub fn arena() -> SimArena {
    SimArena::new(0x1000_0000, 4 << 20)
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
