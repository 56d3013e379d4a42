//! The DMA interrupt, stop and recovery paths, each test written once and run on both MACs
//! (GMAC 3.x on `Gmac3Model`, QoS 4.x/5.x on `QosModel`): TPS/RPS are not faults, a stop
//! waits for the Stopped state before the ring base is written, a user's stop stays, RX
//! recovery counts what it drops, and `take_events` reports only enabled sources.
//!
//! The models raise TPS / RPS a stop lag after ST / SR is cleared and summarise only enabled
//! sources (their own maps, `sim::gmac3_map` / `sim::qos_map`); the register offsets this
//! file reads come from those maps, never from the driver.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock, SimModel};
use stmmac_coalesce::sim::{
    AnPhy, Gmac3Model, QosModel, SIM_CSR_HZ, SimArena, TxFault, eth_frame, gmac3_map as g,
    qos_map as q,
};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, DmaSetup, Duplex, Dwmac, FrameFilter, Gmac3, LinkState,
    MacConfig, NoTimer, Qos, RxConfig, RxRing, Speed, TxConfig, TxRing,
};

/// Where each model keeps what these tests look at (from the model's own map).
#[derive(Clone, Copy)]
struct Map {
    /// The TX and RX descriptor list base registers (low word).
    tx_base: usize,
    rx_base: usize,
    /// The register holding the process states, and each state's field (0 = Stopped).
    state: usize,
    tx_state: fn(u32) -> u32,
    rx_state: fn(u32) -> u32,
    /// The TX and RX control registers and their start bits (ST, SR).
    tx_control: (usize, u32),
    rx_control: (usize, u32),
    /// The raw status register's TPS and RPS bits, and its RX-buffer-unavailable bit.
    tps: u32,
    rps: u32,
    rbu: u32,
}

const GMAC3_MAP: Map = Map {
    tx_base: g::DMA_TX_BASE_ADDR,
    rx_base: g::DMA_RCV_BASE_ADDR,
    state: g::DMA_STATUS,
    tx_state: |v| (v >> g::ST_TS_SHIFT) & 7,
    rx_state: |v| (v >> g::ST_RS_SHIFT) & 7,
    tx_control: (g::DMA_CONTROL, g::CONTROL_ST),
    rx_control: (g::DMA_CONTROL, g::CONTROL_SR),
    tps: g::ST_TPS,
    rps: g::ST_RPS,
    rbu: g::ST_RU,
};

const QOS_MAP: Map = Map {
    tx_base: q::DMA_CH0_TX_BASE_LO,
    rx_base: q::DMA_CH0_RX_BASE_LO,
    state: q::DMA_DEBUG_STATUS0,
    tx_state: |v| (v >> q::DEBUG_TPS0_SHIFT) & 0xF,
    rx_state: |v| (v >> q::DEBUG_RPS0_SHIFT) & 0xF,
    tx_control: (q::DMA_CH0_TX_CONTROL, q::TX_ST),
    rx_control: (q::DMA_CH0_RX_CONTROL, q::RX_SR),
    tps: q::CH_TPS,
    rps: q::CH_RPS,
    rbu: q::CH_RBU,
};

/// A register bus in front of the model that counts every write of a descriptor list base
/// made while that engine's process was not Stopped (the databook asks for Stopped).
struct Spy<M: SimModel<Word = u32>> {
    bus: SimBus<M>,
    /// The same model at no virtual-time cost: looking does not move the clock.
    peek: SimBus<M>,
    map: Map,
    early: Arc<AtomicU32>,
}

impl<M: SimModel<Word = u32>> RegisterBus for Spy<M> {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        self.bus.read_word(offset)
    }
    fn write_word(&self, offset: usize, value: u32) {
        let st = || self.peek.read_word(self.map.state);
        if offset == self.map.tx_base && (self.map.tx_state)(st()) != 0
            || offset == self.map.rx_base && (self.map.rx_state)(st()) != 0
        {
            self.early.fetch_add(1, Ordering::Relaxed);
        }
        self.bus.write_word(offset, value)
    }
}

/// One MAC on its model, generic over both.
trait Board {
    type Mac: Dwmac;
    fn new() -> Self;
    fn mac(&self) -> &Self::Mac;
    fn clock(&self) -> &SimClock;
    fn arena(&self) -> &SimArena;
    fn setup(&self) -> &DmaSetup;
    fn map(&self) -> Map;
    /// A register as it reads now, without moving the clock.
    fn peek(&self, offset: usize) -> u32;
    /// The raw status bits as raised and not yet acknowledged.
    fn raw_status(&self) -> u32;
    fn inject(&self, frame: &[u8]);
    fn fail_tx(&self, fault: TxFault);
    fn irq_pending(&self) -> bool;
    /// Base writes made while the engine was not Stopped.
    fn early_base_writes(&self) -> u32;
    /// `f`'s register reads and writes.
    fn counted<R>(&self, f: impl FnOnce() -> R) -> (R, u64, u64);
    /// From now on every read returns `value` (`None`: the model again).
    fn go_dead(&self, value: Option<u32>);
}

struct Rig<M: SimModel<Word = u32>, Mac> {
    clock: SimClock,
    arena: SimArena,
    bus: SimBus<M>,
    mac: Mac,
    setup: DmaSetup,
    map: Map,
    early: Arc<AtomicU32>,
}

fn dma() -> DmaConfig {
    DmaConfig {
        csr_hz: SIM_CSR_HZ,
        ..DmaConfig::default()
    }
}

macro_rules! board {
    ($model:ident, $mac:ident, $map:expr, $make:expr) => {
        impl Board for Rig<$model<AnPhy>, $mac<Spy<$model<AnPhy>>>> {
            type Mac = $mac<Spy<$model<AnPhy>>>;
            fn new() -> Self {
                let clock = SimClock::new();
                let counter = hwtimer_core::sim::SimCounter::new(&clock, 32, 25_000_000);
                let arena = SimArena::new(0x1000_0000, 4 << 20);
                let model = $model::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ);
                let bus = SimBus::new(&clock, model);
                let early = Arc::new(AtomicU32::new(0));
                let spy = Spy {
                    bus: bus.clone(),
                    peek: bus.clone().with_costs(0, 0),
                    map: $map,
                    early: early.clone(),
                };
                let make: fn(Spy<$model<AnPhy>>) -> Self::Mac = $make;
                let mac = make(spy);
                mac.soft_reset(&counter).unwrap();
                let setup = mac.configure_dma(&dma()).unwrap();
                mac.init_mac(&MacConfig {
                    address: [0x52, 0x54, 0, 0x12, 0x34, 0x56],
                    filter: FrameFilter::default(),
                });
                Self {
                    clock,
                    arena,
                    bus,
                    mac,
                    setup,
                    map: $map,
                    early,
                }
            }
            fn mac(&self) -> &Self::Mac {
                &self.mac
            }
            fn clock(&self) -> &SimClock {
                &self.clock
            }
            fn arena(&self) -> &SimArena {
                &self.arena
            }
            fn setup(&self) -> &DmaSetup {
                &self.setup
            }
            fn map(&self) -> Map {
                self.map
            }
            fn peek(&self, offset: usize) -> u32 {
                self.bus.clone().with_costs(0, 0).read_word(offset)
            }
            fn raw_status(&self) -> u32 {
                let now = self.clock.now_ns();
                self.bus.model(|m| m.raw_status(now))
            }
            fn inject(&self, frame: &[u8]) {
                let now = self.clock.now_ns();
                self.bus.model(|m| m.inject(now, frame));
            }
            fn fail_tx(&self, fault: TxFault) {
                self.bus.model(|m| m.fail_tx(fault));
            }
            fn irq_pending(&self) -> bool {
                let now = self.clock.now_ns();
                self.bus.model(|m| m.irq_pending(now))
            }
            fn early_base_writes(&self) -> u32 {
                self.early.load(Ordering::Relaxed)
            }
            fn counted<R>(&self, f: impl FnOnce() -> R) -> (R, u64, u64) {
                let (r, st) = self.bus.counted(f);
                (r, st.reads, st.writes)
            }
            fn go_dead(&self, value: Option<u32>) {
                self.bus.go_dead(value);
            }
        }
    };
}

type G3 = Rig<Gmac3Model<AnPhy>, Gmac3<Spy<Gmac3Model<AnPhy>>>>;
type Q = Rig<QosModel<AnPhy>, Qos<Spy<QosModel<AnPhy>>>>;
board!(Gmac3Model, Gmac3, GMAC3_MAP, Gmac3::new);
board!(QosModel, Qos, QOS_MAP, |s| Qos::probe(s).unwrap());

const US: [u8; 6] = [0x52, 0x54, 0, 0x12, 0x34, 0x56];

/// Both rings started on `b`, the link up, the default interrupts enabled.
fn rings<B: Board>(b: &B, rx_descriptors: usize) -> (TxRing, RxRing) {
    let coalesce = CoalesceConfig {
        tx_usecs: 0,
        ..CoalesceConfig::default()
    };
    let tx_cfg = TxConfig {
        coalesce,
        ..TxConfig::default()
    };
    let rx_cfg = RxConfig {
        descriptors: rx_descriptors,
        ..RxConfig::default()
    };
    let arena = b.arena();
    let mut tx = TxRing::new(
        arena.region(64 * 1024).unwrap(),
        arena,
        b.setup(),
        tx_cfg,
        NoTimer,
        Coherent,
    )
    .unwrap();
    let mut rx = RxRing::new(
        arena.region(64 * 1024).unwrap(),
        arena,
        b.setup(),
        rx_cfg,
        Coherent,
    )
    .unwrap();
    tx.try_start(b.mac()).unwrap();
    rx.try_start(b.mac()).unwrap();
    b.mac().enable_default_interrupts();
    b.mac().set_link(LinkState::up(Speed::M1000, Duplex::Full));
    (tx, rx)
}

/// `n` rounds of what an interrupt handler and the cleanup timer do, 5 µs apart.
fn rounds<B: Board>(b: &B, tx: &mut TxRing, rx: &mut RxRing, n: usize) {
    for _ in 0..n {
        b.clock().advance(5_000);
        let ev = b.mac().take_events();
        tx.service(b.mac(), ev);
        rx.service(b.mac(), ev);
        let _ = tx.on_timer(b.mac(), 0);
    }
}

/// Each engine's start bit as it reads now.
fn running<B: Board>(b: &B) -> (bool, bool) {
    let m = b.map();
    (
        b.peek(m.tx_control.0) & m.tx_control.1 != 0,
        b.peek(m.rx_control.0) & m.rx_control.1 != 0,
    )
}

/// One RX recovery stays one: the stop it makes raises RPS, which is no fault, so nothing
/// recovers again; the interrupt line goes quiet and RX still delivers.
fn rx_recovery_does_not_retrigger<B: Board>() {
    let b = B::new();
    let (mut tx, mut rx) = rings(&b, 16);
    rx.recover(b.mac());
    rounds(&b, &mut tx, &mut rx, 40);
    assert_eq!(rx.stats().recoveries, 1, "{:?}", rx.stats());
    assert_eq!(tx.stats().recoveries, 0, "{:?}", tx.stats());
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
    let f = eth_frame(US, 100, 7);
    b.inject(&f);
    rounds(&b, &mut tx, &mut rx, 1);
    let got = rx
        .receive(b.mac())
        .expect("RX still delivers")
        .as_slice()
        .unwrap()
        .to_vec();
    assert_eq!(got, f);
}

#[test]
fn gmac3_rx_recovery_does_not_retrigger() {
    rx_recovery_does_not_retrigger::<G3>();
}

#[test]
fn qos_rx_recovery_does_not_retrigger() {
    rx_recovery_does_not_retrigger::<Q>();
}

/// A user's stop() is not undone by the interrupt it raises (TPS/RPS), by the service
/// paths or by the cleanup timer.
fn user_stop_stays<B: Board>() {
    let b = B::new();
    let (mut tx, mut rx) = rings(&b, 16);
    tx.send(b.mac(), &eth_frame([0xFF; 6], 60, 1)).unwrap();
    rounds(&b, &mut tx, &mut rx, 2);
    assert_eq!(running(&b), (true, true));
    let _ = b.mac().stop();
    rounds(&b, &mut tx, &mut rx, 20);
    assert_eq!(
        running(&b),
        (false, false),
        "restarted behind the user's back"
    );
    assert_eq!(tx.stats().recoveries, 0, "{:?}", tx.stats());
    assert_eq!(rx.stats().recoveries, 0, "{:?}", rx.stats());
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
}

#[test]
fn gmac3_user_stop_stays() {
    user_stop_stays::<G3>();
}

#[test]
fn qos_user_stop_stays() {
    user_stop_stays::<Q>();
}

/// A recovery stops the engine, waits for Stopped, acknowledges the TPS/RPS that stop
/// raised and only then writes the ring base: no stop status is left latched behind it.
fn recovery_waits_for_stopped<B: Board>() {
    let b = B::new();
    let (mut tx, mut rx) = rings(&b, 16);
    tx.send(b.mac(), &eth_frame([0xFF; 6], 60, 1)).unwrap();
    b.clock().advance(5_000);
    let before = b.early_base_writes();
    tx.recover(b.mac());
    rx.recover(b.mac());
    assert_eq!(b.early_base_writes(), before, "base written before Stopped");
    b.clock().advance(20_000);
    let m = b.map();
    let st = b.raw_status();
    assert_eq!(st & (m.tps | m.rps), 0, "stop status left latched: {st:#x}");
    // And the ring works afterwards (the first frame was in flight: dropped).
    tx.send(b.mac(), &eth_frame([0xFF; 6], 60, 2)).unwrap();
    rounds(&b, &mut tx, &mut rx, 2);
    let s = tx.stats();
    assert_eq!((s.dropped, s.reclaimed), (1, 1), "{s:?}");
}

#[test]
fn gmac3_recovery_waits_for_stopped() {
    recovery_waits_for_stopped::<G3>();
}

#[test]
fn qos_recovery_waits_for_stopped() {
    recovery_waits_for_stopped::<Q>();
}

/// A fatal bus error recovers both rings once, and nothing after it recovers again.
fn bus_error_recovers_once<B: Board>() {
    let b = B::new();
    let (mut tx, mut rx) = rings(&b, 16);
    b.fail_tx(TxFault::BusError);
    let _ = tx.send(b.mac(), &eth_frame([0xFF; 6], 60, 1));
    rounds(&b, &mut tx, &mut rx, 30);
    assert_eq!(tx.stats().recoveries, 1, "{:?}", tx.stats());
    assert_eq!(rx.stats().recoveries, 1, "{:?}", rx.stats());
    assert_eq!(b.early_base_writes(), 0);
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
    let f = eth_frame(US, 80, 3);
    b.inject(&f);
    let got = rx
        .receive(b.mac())
        .expect("RX runs again")
        .as_slice()
        .unwrap()
        .to_vec();
    assert_eq!(got, f);
}

#[test]
fn gmac3_bus_error_recovers_once() {
    bus_error_recovers_once::<G3>();
}

#[test]
fn qos_bus_error_recovers_once() {
    bus_error_recovers_once::<Q>();
}

/// RX recovery counts the complete frames it throws away.
fn rx_recovery_counts_dropped_frames<B: Board>() {
    let b = B::new();
    let (_tx, mut rx) = rings(&b, 16);
    for i in 0..3 {
        b.inject(&eth_frame(US, 200, i));
    }
    assert!(rx.has_data());
    rx.recover(b.mac());
    assert_eq!(rx.stats().dropped, 3, "{:?}", rx.stats());
    assert!(!rx.has_data());
}

#[test]
fn gmac3_rx_recovery_counts_dropped_frames() {
    rx_recovery_counts_dropped_frames::<G3>();
}

#[test]
fn qos_rx_recovery_counts_dropped_frames() {
    rx_recovery_counts_dropped_frames::<Q>();
}

/// `take_events` reports and acknowledges only enabled sources: RX buffer unavailable is
/// not in the default mask (Linux's), so it is neither reported nor cleared, while RI is.
fn take_events_skips_disabled_sources<B: Board>() {
    let b = B::new();
    let (_tx, _rx) = rings(&b, 4);
    for i in 0..8 {
        b.inject(&eth_frame(US, 200, i));
    }
    let m = b.map();
    assert_ne!(b.raw_status() & m.rbu, 0, "the model raised no RBU");
    let ev = b.mac().take_events();
    assert!(ev.rx_ready(), "{ev:?}");
    assert!(!ev.rx_no_buffer(), "a disabled source was reported: {ev:?}");
    assert_ne!(
        b.raw_status() & m.rbu,
        0,
        "a disabled source was acknowledged"
    );
    assert!(!b.irq_pending());
}

#[test]
fn gmac3_take_events_skips_disabled_sources() {
    take_events_skips_disabled_sources::<G3>();
}

#[test]
fn qos_take_events_skips_disabled_sources() {
    take_events_skips_disabled_sources::<Q>();
}

/// The interrupt handler's first step costs what it did: one status read, and one write
/// only when something enabled is set. The enable mask is the MAC's own copy, never read
/// per interrupt.
fn take_events_costs_one_read<B: Board>() {
    let b = B::new();
    let (_tx, _rx) = rings(&b, 16);
    let (ev, reads, writes) = b.counted(|| b.mac().take_events());
    assert_eq!(
        (ev, reads, writes),
        (stmmac_coalesce::DmaEvents::NONE, 1, 0)
    );
    b.inject(&eth_frame(US, 100, 1));
    let (ev, reads, writes) = b.counted(|| b.mac().take_events());
    assert!(ev.rx_ready(), "{ev:?}");
    assert_eq!((reads, writes), (1, 1));
}

#[test]
fn gmac3_take_events_costs_one_read() {
    take_events_costs_one_read::<G3>();
}

#[test]
fn qos_take_events_costs_one_read() {
    take_events_costs_one_read::<Q>();
}

/// `stop()` waits for Stopped and says so; a process that never reads Stopped (a block
/// reading all ones) ends the wait after its bound with a typed error.
fn stop_waits_within_its_bound<B: Board>() {
    let b = B::new();
    let (_tx, _rx) = rings(&b, 16);
    let (r, reads, _) = b.counted(|| b.mac().stop());
    assert_eq!(r, Ok(()));
    // The stop lag (1 µs) at 100 ns per read: a handful of polls, not the bound.
    assert!(reads < 64, "{reads} reads");
    let m = b.map();
    assert_eq!(b.raw_status() & (m.tps | m.rps), 0, "TPS/RPS acknowledged");
    b.go_dead(Some(u32::MAX));
    let (r, reads, _) = b.counted(|| b.mac().stop());
    assert_eq!(r, Err(stmmac_coalesce::Error::Timeout));
    let bound = u64::from(stmmac_coalesce::common::STOP_POLLS) + 1;
    assert!((bound..bound + 8).contains(&reads), "{reads} reads");
}

#[test]
fn gmac3_stop_waits_within_its_bound() {
    stop_waits_within_its_bound::<G3>();
}

#[test]
fn qos_stop_waits_within_its_bound() {
    stop_waits_within_its_bound::<Q>();
}
