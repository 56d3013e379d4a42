//! A board on the model for the fuzz targets: either DWMAC generation (GMAC 3.x, `Gmac3` on
//! `Gmac3Model`; QoS 4.x/5.x, `Qos` on `QosModel`) behind
//! `hwtimer_core::sim::model::Faults` (so reads can answer anything), a gigabit PHY, a
//! coherent DMA arena reused from run to run, and a byte reader for the fuzzer's input.

use std::cell::RefCell;

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{SimBus, SimClock, SimCounter, SimModel};
use mdio_bus::{Mdio, PhyAddr};
use stmmac_coalesce::sim::{AN_NS, AnPhy, Gmac3Model, QosModel, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{Advertise, Phy};
use stmmac_coalesce::{
    DmaConfig, DmaRegion, DmaSetup, Dwmac, Error, FrameFilter, Gmac3, LinkState, MacConfig, Qos,
};

pub type Bus<M> = SimBus<Faults<M>>;

/// Our station address.
pub const US: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

/// Bus address of every arena (below 4 GiB, so both generations address it).
pub const ARENA_BASE: u32 = 0x1000_0000;

/// Virtual time one register read costs on the bus (`SimBus`'s default).
pub const READ_NS: u64 = 100;

/// Virtual time one read of the driver's clock costs: the time a bounded wait lets pass
/// between two polls. 100 µs is what Linux sleeps between MDIO busy polls
/// (`readl_poll_timeout(..., 100, 10000)` in stmmac_mdio.c); its SWR poll sleeps 10 ms
/// (dwmac4_lib.c `dwmac4_dma_reset`). With it a wait that never ends (SWR or MDIO busy
/// stuck, or a register answering garbage) reaches its deadline in at most
/// `timeout / (READ_NS + POLL_NS)` polls: 2,000 for the 200 ms SWR wait and 100 for a
/// 10 ms MDIO wait (at 200 ns a poll they would be 1,000,000 and 50,000).
pub const POLL_NS: u64 = 100_000;

/// The bound of a wait for a DMA process to reach Stopped, in status reads
/// (`Dwmac::set_stop_polls`; the driver's default is 65,536 reads). The models stop a
/// process `sim::STOP_NS` (1 µs) after ST / SR clears: 10 reads of `READ_NS`. 64 covers
/// that, and a block answering garbage ends each stop wait after 65 reads.
pub const STOP_POLLS: u32 = 64;

/// Upper bound of the register reads one bounded wait of `timeout_us` makes: each poll
/// is one register read and one clock read, and the wait reads once more after its
/// deadline.
pub fn max_wait(timeout_us: u64) -> u64 {
    timeout_us * 1_000 / (READ_NS + POLL_NS) + 3
}

thread_local! {
    /// One leaked arena per size: (size asked, arena).
    static ARENAS: RefCell<Vec<(usize, SimArena)>> = const { RefCell::new(Vec::new()) };
}

/// A coherent arena of `len` bytes (rounded up to 256) at [`ARENA_BASE`] and the whole of
/// it as one zeroed region: the same memory every run. `SimArena` leaks its memory (its
/// regions are `'static`, as on a board), so a fresh arena per run would grow the process
/// by the arena's size each run (7 to 45 KiB under ASan: a few GiB in a 30 s CI run at
/// thousands of runs a second). Each run rewinds the one arena of its size
/// (`SimArena::rewind`: zeroed, its bump pointer back at the start), so the region is
/// what a fresh arena's would be and every input still runs alone.
pub fn arena(len: usize) -> (SimArena, DmaRegion) {
    let arena = ARENAS.with(|a| {
        let mut a = a.borrow_mut();
        if let Some((_, arena)) = a.iter().find(|e| e.0 == len) {
            return arena.clone();
        }
        let arena = SimArena::new(ARENA_BASE, len);
        a.push((len, arena.clone()));
        arena
    });
    // SAFETY: the region carved from this arena in the previous run went with that run's
    // rings, and the model that could DMA into it with that run's board: all are locals of
    // one fuzz-target call, and libFuzzer runs one input at a time on this thread. Nothing
    // carved before is used after the rewind.
    unsafe { arena.rewind() };
    let region = arena
        .region(len.div_ceil(256) * 256)
        .expect("an arena holds its own size");
    (arena, region)
}

/// The next `len` bytes of `rest` (starting on a 256-byte boundary, as `SimArena::region`
/// carves), or `None` when it holds fewer.
pub fn carve(rest: &mut Option<DmaRegion>, len: usize) -> Option<DmaRegion> {
    let r = rest.take()?;
    let step = len.div_ceil(256).checked_mul(256)?;
    if len == 0 || step > r.len() {
        *rest = Some(r);
        return None;
    }
    let (head, tail) = r.split_at(step);
    *rest = Some(tail);
    Some(head.split_at(len).0)
}

/// One DWMAC generation: its model, its MAC and the bring-up calls the targets make
/// (the MACs share only the ring operations, `Dwmac`).
pub trait Gen: 'static {
    /// The model.
    type Model: SimModel<Word = u32>;
    /// The MAC driver on the model's bus.
    type Mac: Dwmac;
    /// QoS 4.x/5.x (descriptors are 16 bytes, addresses may be 64-bit).
    const QOS: bool;
    /// Offset of the version register (GMAC_VERSION / MAC_VERSION): a read of it has no
    /// side effect.
    const VERSION_REG: usize;

    /// The model with a gigabit PHY on `arena`.
    fn model(arena: SimArena, phy: AnPhy) -> Self::Model;
    /// The MAC on `bus` (QoS: probed, so a bad version is an error).
    fn attach(bus: Bus<Self::Model>) -> Result<Self::Mac, Error>;
    /// Reads of the identification, status and state registers.
    fn peek(mac: &Self::Mac);
    fn soft_reset(mac: &Self::Mac, counter: &SimCounter) -> Result<u32, Error>;
    fn configure_dma(mac: &Self::Mac, cfg: &DmaConfig) -> Result<DmaSetup, Error>;
    /// MAC address and filter, and (QoS) the interrupt enables the rings rely on.
    fn init_mac(mac: &Self::Mac);
    /// Run `f` on the MAC's MDIO master at `csr_hz` (or its error).
    fn with_mdio<R>(
        mac: &Self::Mac,
        counter: &SimCounter,
        csr_hz: u32,
        f: impl FnOnce(&mut dyn MdioDyn) -> R,
    ) -> Result<R, Error>;
    fn stop(mac: &Self::Mac);
    /// Queue a frame on the model's wire.
    fn inject(model: &mut Self::Model, now_ns: u64, frame: &[u8]);
    /// Hold SWR or MDIO busy set for ever.
    fn stick(model: &mut Self::Model, swr: bool, mdio: bool);
    /// Frames the model's TX DMA put on the wire.
    fn sent(model: &Self::Model) -> Vec<Vec<u8>>;
}

/// The PHY calls the targets make, over either MDIO master.
pub trait MdioDyn {
    fn phy_id(&mut self, phy: &Phy) -> bool;
    fn start_autoneg(&mut self, phy: &Phy) -> bool;
    fn poll(&mut self, phy: &Phy) -> Option<LinkState>;
}

impl<M: Mdio> MdioDyn for M {
    fn phy_id(&mut self, phy: &Phy) -> bool {
        phy.id(self).is_ok()
    }
    fn start_autoneg(&mut self, phy: &Phy) -> bool {
        phy.start_autoneg(self, Advertise::default()).is_ok()
    }
    fn poll(&mut self, phy: &Phy) -> Option<LinkState> {
        phy.poll(self).ok()
    }
}

fn mac_config() -> MacConfig {
    MacConfig {
        address: US,
        filter: FrameFilter::default(),
    }
}

/// The `Gen` methods whose bodies are the same calls on either generation's MAC and model
/// (inherent methods of the same name: no trait covers them).
macro_rules! same_name_calls {
    () => {
        fn soft_reset(mac: &Self::Mac, counter: &SimCounter) -> Result<u32, Error> {
            mac.soft_reset(counter)
        }
        fn configure_dma(mac: &Self::Mac, cfg: &DmaConfig) -> Result<DmaSetup, Error> {
            mac.configure_dma(cfg)
        }
        fn with_mdio<R>(
            mac: &Self::Mac,
            counter: &SimCounter,
            csr_hz: u32,
            f: impl FnOnce(&mut dyn MdioDyn) -> R,
        ) -> Result<R, Error> {
            let mut mdio = mac.mdio(counter, csr_hz)?;
            Ok(f(&mut mdio))
        }
        fn inject(model: &mut Self::Model, now_ns: u64, frame: &[u8]) {
            model.inject(now_ns, frame);
        }
        fn stick(model: &mut Self::Model, swr: bool, mdio: bool) {
            model.set_swr_stuck(swr);
            model.set_mdio_stuck(mdio);
        }
        fn sent(model: &Self::Model) -> Vec<Vec<u8>> {
            model.sent().iter().map(|f| f.bytes.clone()).collect()
        }
    };
}

/// GMAC 3.x.
pub enum OnGmac3 {}

impl Gen for OnGmac3 {
    type Model = Gmac3Model<AnPhy>;
    type Mac = Gmac3<Bus<Gmac3Model<AnPhy>>>;
    const QOS: bool = false;
    const VERSION_REG: usize = 0x20;

    fn model(arena: SimArena, phy: AnPhy) -> Self::Model {
        Gmac3Model::new(arena, phy.clone(), SIM_CSR_HZ).with_phy(phy)
    }
    fn attach(bus: Bus<Self::Model>) -> Result<Self::Mac, Error> {
        Ok(Gmac3::new(bus))
    }
    fn peek(mac: &Self::Mac) {
        let _ = (
            mac.status(),
            mac.version(),
            mac.hw_feature(),
            mac.mac_address(),
        );
        let _ = (mac.tx_stopped(), mac.tx_dma_enabled(), mac.cur_rx_desc());
    }
    fn init_mac(mac: &Self::Mac) {
        mac.init_mac(&mac_config());
    }
    fn stop(mac: &Self::Mac) {
        let _ = mac.stop();
        mac.ack(u32::MAX);
    }
    same_name_calls!();
}

/// QoS 4.x/5.x.
pub enum OnQos {}

impl Gen for OnQos {
    type Model = QosModel<AnPhy>;
    type Mac = Qos<Bus<QosModel<AnPhy>>>;
    const QOS: bool = true;
    const VERSION_REG: usize = 0x110;

    fn model(arena: SimArena, phy: AnPhy) -> Self::Model {
        QosModel::new(arena, phy.clone(), SIM_CSR_HZ).with_phy(phy)
    }
    fn attach(bus: Bus<Self::Model>) -> Result<Self::Mac, Error> {
        Qos::probe(bus)
    }
    fn peek(mac: &Self::Mac) {
        let _ = (mac.channel_status(), mac.hw_features(), mac.mac_address());
        let _ = (mac.version(), mac.snpsver(), mac.summary_enables());
    }
    fn init_mac(mac: &Self::Mac) {
        mac.init_mac(&mac_config());
        mac.enable_default_interrupts();
    }
    fn stop(mac: &Self::Mac) {
        let _ = mac.stop();
        let _ = mac.take_events();
    }
    same_name_calls!();
}

/// The model of generation `G`, its clock, a 25 MHz counter whose reads cost
/// [`POLL_NS`], and the MAC driver on it (`None` when a QoS probe refused the block).
pub struct Board<G: Gen> {
    pub clock: SimClock,
    pub counter: SimCounter,
    pub arena: SimArena,
    pub bus: Bus<G::Model>,
    pub mac: Result<G::Mac, Error>,
}

impl<G: Gen> Board<G> {
    /// A fresh model on `arena` (nothing configured yet). `before_attach` runs on the bus
    /// before the MAC reads anything (register writes, injected read-backs).
    pub fn new(arena: &SimArena, before_attach: impl FnOnce(&Bus<G::Model>)) -> Self {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(POLL_NS);
        let bus = SimBus::new(
            &clock,
            Faults::new(G::model(arena.clone(), AnPhy::gigabit())),
        )
        .with_costs(READ_NS, 50);
        before_attach(&bus);
        let mac = G::attach(bus.clone());
        if let Ok(m) = &mac {
            m.set_stop_polls(STOP_POLLS);
        }
        Self {
            clock,
            counter,
            arena: arena.clone(),
            bus,
            mac,
        }
    }

    /// The model behind the fault injector.
    pub fn model<R>(&self, f: impl FnOnce(&mut G::Model) -> R) -> R {
        self.bus.model(|m| f(m.inner()))
    }

    /// Queue `frame` on the wire now.
    pub fn inject(&self, frame: &[u8]) {
        let now = self.clock.now_ns();
        self.model(|m| G::inject(m, now, frame));
    }

    /// Drop every injected read-back not consumed yet (each read consumes one).
    pub fn clear_faults(&self) {
        for _ in 0..4096 {
            if self.bus.model(|m| m.pending()) == 0 {
                return;
            }
            let _ = self.bus.read_word(G::VERSION_REG);
        }
        panic!("injected read-backs never consumed");
    }

    /// Autonegotiate on the PHY at address 0 over the MAC's MDIO master and set the MAC's
    /// link (on a model answering truthfully).
    pub fn link_up(&self, mac: &G::Mac) {
        let phy = Phy::new(Board::<G>::phy_addr());
        let link = G::with_mdio(mac, &self.counter, SIM_CSR_HZ, |mdio| {
            assert!(mdio.start_autoneg(&phy));
            self.clock.advance(AN_NS);
            mdio.poll(&phy).expect("a link")
        })
        .expect("an MDIO master");
        mac.set_link(link);
    }

    /// The PHY at address 0.
    pub fn phy_addr() -> PhyAddr {
        PhyAddr::from_bits(0)
    }
}

/// Reads the fuzzer's bytes front to back; zeros once they run out.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
}
