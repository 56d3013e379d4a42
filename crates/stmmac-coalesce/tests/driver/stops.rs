//! The DMA interrupt, stop and recovery paths, each test written once over a
//! [`Generation`] and run on both MACs: TPS/RPS are not faults, a stop waits for the Stopped
//! state before the ring base is written, a user's stop stays, RX recovery counts what it
//! drops, and `take_events` reports only enabled sources.
//!
//! The models raise TPS / RPS a stop lag after ST / SR is cleared and summarise only enabled
//! sources (their own maps, `sim::gmac3_map` / `sim::qos_map`); the register offsets this
//! file reads come from those maps, never from the driver.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{MmioStats, SimBus};
use stmmac_coalesce::sim::{TxFault, eth_frame, gmac3_map as g, qos_map as q};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, Duplex, Dwmac, FrameFilter, Gmac3, LinkState, MacConfig, NoTimer,
    Qos, RxConfig, RxRing, Speed, TxConfig, TxRing,
};

use crate::harness::{Board, Generation, ModelOps, OnGmac3, OnQos, US, new_rx, new_tx, on_both};

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
struct Spy<M: ModelOps> {
    bus: SimBus<M>,
    /// The same model at no virtual-time cost: looking does not move the clock.
    peek: SimBus<M>,
    map: Map,
    early: Arc<AtomicU32>,
}

impl<M: ModelOps> RegisterBus for Spy<M> {
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

/// What these tests need of a generation beyond the harness: its model's map, and its MAC
/// on a [`Spy`] in front of the model.
trait Stops: Generation {
    const MAP: Map;
    type Spied: Dwmac;
    fn spied(bus: Spy<Self::Model>) -> Self::Spied;
}

impl Stops for OnGmac3 {
    const MAP: Map = GMAC3_MAP;
    type Spied = Gmac3<Spy<Self::Model>>;
    fn spied(bus: Spy<Self::Model>) -> Self::Spied {
        Gmac3::new(bus)
    }
}

impl Stops for OnQos {
    const MAP: Map = QOS_MAP;
    type Spied = Qos<Spy<Self::Model>>;
    fn spied(bus: Spy<Self::Model>) -> Self::Spied {
        Qos::probe(bus).unwrap()
    }
}

/// A board whose MAC is driven through a [`Spy`]: the board (its own MAC left idle), the
/// spied MAC reset, configured and initialised as the board's was, and the spy's count of
/// base writes made while the engine was not Stopped.
fn spied<G: Stops>() -> (Board<G>, G::Spied, Arc<AtomicU32>) {
    let mut b = Board::<G>::new();
    let early = Arc::new(AtomicU32::new(0));
    let mac = G::spied(Spy {
        bus: b.bus.clone(),
        peek: b.bus.clone().with_costs(0, 0),
        map: G::MAP,
        early: early.clone(),
    });
    mac.soft_reset(&b.counter).unwrap();
    b.setup = mac.configure_dma(&G::dma()).unwrap();
    mac.init_mac(&MacConfig {
        address: US,
        filter: FrameFilter::default(),
    });
    (b, mac, early)
}

/// The link autonegotiated, both rings started on `b` for `mac`, the default interrupts
/// enabled, the link set on `mac`.
fn rings<G: Generation, M: Dwmac>(
    b: &Board<G>,
    mac: &M,
    rx_descriptors: usize,
) -> (TxRing, RxRing) {
    let link = b.link_up();
    assert_eq!(link, LinkState::up(Speed::M1000, Duplex::Full));
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
    let mut tx = new_tx(&b.arena, &b.setup, tx_cfg, NoTimer, Coherent);
    let mut rx = new_rx(&b.arena, &b.setup, rx_cfg, Coherent);
    tx.try_start(mac).unwrap();
    rx.try_start(mac).unwrap();
    mac.enable_default_interrupts();
    mac.set_link(link);
    (tx, rx)
}

/// `n` rounds of what an interrupt handler and the cleanup timer do, 5 µs apart.
fn rounds<G: Generation, M: Dwmac>(
    b: &Board<G>,
    mac: &M,
    tx: &mut TxRing,
    rx: &mut RxRing,
    n: usize,
) {
    for _ in 0..n {
        b.clock.advance(5_000);
        let ev = mac.take_events();
        tx.service(mac, ev);
        rx.service(mac, ev);
        let _ = tx.on_timer(mac, 0);
    }
}

/// Each engine's start bit as it reads now.
fn running<G: Stops>(b: &Board<G>) -> (bool, bool) {
    let m = G::MAP;
    (
        b.peek(m.tx_control.0) & m.tx_control.1 != 0,
        b.peek(m.rx_control.0) & m.rx_control.1 != 0,
    )
}

on_both!(
    rx_recovery_does_not_retrigger,
    user_stop_stays,
    recovery_waits_for_stopped,
    bus_error_recovers_once,
    rx_recovery_counts_dropped_frames,
    take_events_skips_disabled_sources,
    take_events_costs_one_read,
    stop_waits_within_its_bound,
    restart_after_user_stop,
    restart_without_prior_traffic,
    rx_restart_after_user_stop,
    restart_drops_what_the_rings_held,
    restart_makes_an_outstanding_slot_stale,
);

/// One RX recovery stays one: the stop it makes raises RPS, which is no fault, so nothing
/// recovers again; the interrupt line goes quiet and RX still delivers.
fn rx_recovery_does_not_retrigger<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 16);
    rx.recover(mac);
    rounds(&b, mac, &mut tx, &mut rx, 40);
    assert_eq!(rx.stats().recoveries, 1, "{:?}", rx.stats());
    assert_eq!(tx.stats().recoveries, 0, "{:?}", tx.stats());
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
    let f = eth_frame(US, 100, 7);
    b.inject(&f);
    rounds(&b, mac, &mut tx, &mut rx, 1);
    let got = rx
        .receive(mac)
        .expect("RX still delivers")
        .as_slice()
        .unwrap()
        .to_vec();
    assert_eq!(got, f);
}

/// A user's stop() is not undone by the interrupt it raises (TPS/RPS), by the service
/// paths or by the cleanup timer.
fn user_stop_stays<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 16);
    tx.send(mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    rounds(&b, mac, &mut tx, &mut rx, 2);
    assert_eq!(running(&b), (true, true));
    let _ = mac.stop();
    rounds(&b, mac, &mut tx, &mut rx, 20);
    assert_eq!(
        running(&b),
        (false, false),
        "restarted behind the user's back"
    );
    assert_eq!(tx.stats().recoveries, 0, "{:?}", tx.stats());
    assert_eq!(rx.stats().recoveries, 0, "{:?}", rx.stats());
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
}

/// A recovery stops the engine, waits for Stopped, acknowledges the TPS/RPS that stop
/// raised and only then writes the ring base: no stop status is left latched behind it.
fn recovery_waits_for_stopped<G: Stops>() {
    let (b, mac, early) = spied::<G>();
    let mac = &mac;
    let (mut tx, mut rx) = rings(&b, mac, 16);
    tx.send(mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    b.clock.advance(5_000);
    let before = early.load(Ordering::Relaxed);
    tx.recover(mac);
    rx.recover(mac);
    assert_eq!(
        early.load(Ordering::Relaxed),
        before,
        "base written before Stopped"
    );
    b.clock.advance(20_000);
    let m = G::MAP;
    let st = b.raw_status();
    assert_eq!(st & (m.tps | m.rps), 0, "stop status left latched: {st:#x}");
    // And the ring works afterwards (the first frame was in flight: dropped).
    tx.send(mac, &eth_frame([0xFF; 6], 60, 2)).unwrap();
    rounds(&b, mac, &mut tx, &mut rx, 2);
    let s = tx.stats();
    assert_eq!((s.dropped, s.reclaimed), (1, 1), "{s:?}");
}

/// A fatal bus error recovers both rings once, and nothing after it recovers again.
fn bus_error_recovers_once<G: Stops>() {
    let (b, mac, early) = spied::<G>();
    let mac = &mac;
    let (mut tx, mut rx) = rings(&b, mac, 16);
    b.bus.model(|m| m.fail_tx(TxFault::BusError));
    let _ = tx.send(mac, &eth_frame([0xFF; 6], 60, 1));
    rounds(&b, mac, &mut tx, &mut rx, 30);
    assert_eq!(tx.stats().recoveries, 1, "{:?}", tx.stats());
    assert_eq!(rx.stats().recoveries, 1, "{:?}", rx.stats());
    assert_eq!(early.load(Ordering::Relaxed), 0);
    assert!(!b.irq_pending(), "status {:#x}", b.raw_status());
    let f = eth_frame(US, 80, 3);
    b.inject(&f);
    let got = rx
        .receive(mac)
        .expect("RX runs again")
        .as_slice()
        .unwrap()
        .to_vec();
    assert_eq!(got, f);
}

/// RX recovery counts the complete frames it throws away.
fn rx_recovery_counts_dropped_frames<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (_tx, mut rx) = rings(&b, mac, 16);
    for i in 0..3 {
        b.inject(&eth_frame(US, 200, i));
    }
    assert!(rx.has_data());
    rx.recover(mac);
    assert_eq!(rx.stats().dropped, 3, "{:?}", rx.stats());
    assert!(!rx.has_data());
}

/// `take_events` reports and acknowledges only enabled sources: RX buffer unavailable is
/// not in the default mask (Linux's), so it is neither reported nor cleared, while RI is.
fn take_events_skips_disabled_sources<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (_tx, _rx) = rings(&b, mac, 4);
    for i in 0..8 {
        b.inject(&eth_frame(US, 200, i));
    }
    let m = G::MAP;
    assert_ne!(b.raw_status() & m.rbu, 0, "the model raised no RBU");
    let ev = mac.take_events();
    assert!(ev.rx_ready(), "{ev:?}");
    assert!(!ev.rx_no_buffer(), "a disabled source was reported: {ev:?}");
    assert_ne!(
        b.raw_status() & m.rbu,
        0,
        "a disabled source was acknowledged"
    );
    assert!(!b.irq_pending());
}

/// The interrupt handler's first step costs what it did: one status read, and one write
/// only when something enabled is set. The enable mask is the MAC's own copy, never read
/// per interrupt.
fn take_events_costs_one_read<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (_tx, _rx) = rings(&b, mac, 16);
    let (ev, MmioStats { reads, writes }) = b.bus.counted(|| mac.take_events());
    assert_eq!(
        (ev, reads, writes),
        (stmmac_coalesce::DmaEvents::NONE, 1, 0)
    );
    b.inject(&eth_frame(US, 100, 1));
    let (ev, MmioStats { reads, writes }) = b.bus.counted(|| mac.take_events());
    assert!(ev.rx_ready(), "{ev:?}");
    assert_eq!((reads, writes), (1, 1));
}

/// `stop()` waits for Stopped and says so; a process that never reads Stopped (a block
/// reading all ones) ends the wait after its bound with a typed error.
fn stop_waits_within_its_bound<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (_tx, _rx) = rings(&b, mac, 16);
    let (r, MmioStats { reads, .. }) = b.bus.counted(|| mac.stop());
    assert_eq!(r, Ok(()));
    // The stop lag (1 µs) at 100 ns per read: a handful of polls, not the bound.
    assert!(reads < 64, "{reads} reads");
    let m = G::MAP;
    assert_eq!(b.raw_status() & (m.tps | m.rps), 0, "TPS/RPS acknowledged");
    b.bus.go_dead(Some(u32::MAX));
    let (r, MmioStats { reads, .. }) = b.bus.counted(|| mac.stop());
    assert_eq!(r, Err(stmmac_coalesce::Error::Timeout));
    let bound = u64::from(stmmac_coalesce::common::STOP_POLLS) + 1;
    assert!((bound..bound + 8).contains(&reads), "{reads} reads");
}

// ---- The enable cache while the enables change -----------------------------------------

/// The code a [`Hooked`] bus runs once, before a write.
type Hook = std::rc::Rc<std::cell::RefCell<Option<Box<dyn Fn()>>>>;

/// A bus that runs a hook just before each write to `offset` reaches the model: an
/// interrupt handler (another core's) running while the enables change.
struct Hooked<M: ModelOps> {
    bus: SimBus<M>,
    offset: usize,
    hook: Hook,
}

impl<M: ModelOps> RegisterBus for Hooked<M> {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        self.bus.read_word(offset)
    }
    fn write_word(&self, offset: usize, value: u32) {
        if offset == self.offset
            && let Some(h) = self.hook.borrow_mut().take()
        {
            h();
        }
        self.bus.write_word(offset, value)
    }
}

/// A handler that runs while the enables change finds every source the hardware still
/// enables: with TI pending and enabled, the write that disables TI (and a soft reset,
/// which disables everything) must not leave a handler that acknowledges nothing while the
/// line is up.
fn enables_change_under_a_handler<G: Generation, H: Dwmac + 'static>(
    enable_reg: usize,
    reset_reg: usize,
    mac: impl Fn(Hooked<G::Model>) -> H,
    set: impl Fn(&H, bool),
) where
    G::Model: 'static,
{
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    for reset in [false, true] {
        let b = Board::<G>::new();
        b.link_up();
        let mut tx = b.tx(
            crate::harness::tx_cfg(4, crate::harness::no_timer(1)),
            NoTimer,
            Coherent,
        );
        let hook: Hook = Rc::new(RefCell::new(None));
        let m = Rc::new(mac(Hooked {
            bus: b.bus.clone(),
            offset: if reset { reset_reg } else { enable_reg },
            hook: hook.clone(),
        }));
        set(&m, true);
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
        assert!(b.raw_status() & 1 != 0, "TI pending");
        let seen = Rc::new(Cell::new(false));
        let (w, s) = (Rc::downgrade(&m), seen.clone());
        *hook.borrow_mut() = Some(Box::new(move || {
            let m = w.upgrade().unwrap();
            s.set(m.take_events().tx_done());
        }));
        if reset {
            m.soft_reset_within(&b.counter, 1_000).unwrap();
        } else {
            set(&m, false);
        }
        assert!(
            seen.get(),
            "reset {reset}: the handler left TI pending and unacknowledged"
        );
    }
}

#[test]
fn gmac3_enables_change_under_a_handler() {
    enables_change_under_a_handler::<OnGmac3, _>(
        g::DMA_INTR_ENA,
        g::DMA_BUS_MODE,
        Gmac3::new,
        |m, ti| {
            let all = stmmac_coalesce::gmac3::regs::DMA_INTR_DEFAULT;
            m.set_interrupts(if ti { all } else { all & !1 });
        },
    );
}

#[test]
fn qos_enables_change_under_a_handler() {
    enables_change_under_a_handler::<OnQos, _>(
        q::DMA_CH0_INTR_ENA,
        q::DMA_MODE,
        |bus| Qos::probe(bus).unwrap(),
        |m, ti| {
            let all = stmmac_coalesce::qos::DEFAULT_INTERRUPTS;
            m.enable_interrupts(if ti { all } else { all & !1 });
        },
    );
}

/// Ten frames sent, each followed by two rounds of the interrupt and timer paths.
fn send_ten<G: Generation, M: Dwmac>(b: &Board<G>, mac: &M, tx: &mut TxRing, rx: &mut RxRing) {
    for i in 10..20u8 {
        tx.send(mac, &eth_frame([0xFF; 6], 60, i)).unwrap();
        rounds(b, mac, tx, rx, 2);
    }
}

/// Ten frames put on the wire one by one; each must be the one `rx` delivers next.
fn receive_ten<G: Generation, M: Dwmac>(b: &Board<G>, mac: &M, tx: &mut TxRing, rx: &mut RxRing) {
    for i in 10..20u8 {
        let f = eth_frame(US, 100, i);
        b.inject(&f);
        rounds(b, mac, tx, rx, 1);
        let got = rx.receive(mac).map(|p| p.as_slice().unwrap().to_vec());
        assert_eq!(got.ok(), Some(f), "RX frame {i} {:?}", rx.stats());
    }
}

/// A user's stop() then try_start() on both rings, after traffic moved the ring indices
/// off descriptor 0: the start programs descriptor 0 as the base, so TX and RX must work
/// from there.
fn restart_after_user_stop<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 8);
    for i in 0..3u8 {
        tx.send(mac, &eth_frame([0xFF; 6], 60, i)).unwrap();
        b.inject(&eth_frame(US, 100, i));
        rounds(&b, mac, &mut tx, &mut rx, 2);
        let _ = rx.receive(mac).expect("rx before stop");
    }
    let before = tx.stats().reclaimed;
    mac.stop().unwrap();
    tx.try_start(mac).unwrap();
    rx.try_start(mac).unwrap();
    mac.set_link(b.link_up());
    send_ten(&b, mac, &mut tx, &mut rx);
    assert_eq!(tx.stats().reclaimed - before, 10, "{:?}", tx.stats());
    receive_ten(&b, mac, &mut tx, &mut rx);
}

/// The control: stop() and try_start() before any traffic.
fn restart_without_prior_traffic<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 8);
    mac.stop().unwrap();
    tx.try_start(mac).unwrap();
    rx.try_start(mac).unwrap();
    mac.set_link(b.link_up());
    send_ten(&b, mac, &mut tx, &mut rx);
    assert_eq!(tx.stats().reclaimed, 10, "{:?}", tx.stats());
    receive_ten(&b, mac, &mut tx, &mut rx);
}

/// RX alone: stop() after frames moved `next` off descriptor 0, then the RX ring restarts.
fn rx_restart_after_user_stop<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 8);
    for i in 0..3u8 {
        b.inject(&eth_frame(US, 100, i));
        rounds(&b, mac, &mut tx, &mut rx, 2);
        let _ = rx.receive(mac).expect("rx before stop");
    }
    mac.stop().unwrap();
    rx.try_start(mac).unwrap();
    mac.set_link(b.link_up());
    receive_ten(&b, mac, &mut tx, &mut rx);
}

/// A restart drops and counts what the rings still held when the user stopped them: TX
/// frames handed to the DMA and never sent, RX frames received and never taken. Then
/// both rings work from descriptor 0.
fn restart_drops_what_the_rings_held<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 8);
    tx.send(mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    b.inject(&eth_frame(US, 100, 1));
    rounds(&b, mac, &mut tx, &mut rx, 2);
    let _ = rx.receive(mac).expect("rx before stop");
    // Two RX frames received and not taken; two TX frames queued on a stopped TX DMA.
    b.inject(&eth_frame(US, 100, 2));
    b.inject(&eth_frame(US, 100, 3));
    mac.stop().unwrap();
    tx.send(mac, &eth_frame([0xFF; 6], 60, 2)).unwrap_err();
    mac.set_link(b.link_up());
    tx.send(mac, &eth_frame([0xFF; 6], 60, 2)).unwrap();
    tx.send(mac, &eth_frame([0xFF; 6], 60, 3)).unwrap();
    assert_eq!(tx.pending(), 2);
    tx.try_start(mac).unwrap();
    rx.try_start(mac).unwrap();
    assert_eq!(tx.stats().dropped, 2, "{:?}", tx.stats());
    assert_eq!(rx.stats().dropped, 2, "{:?}", rx.stats());
    assert_eq!((tx.pending(), tx.stats().recoveries), (0, 0));
    assert!(!rx.has_data());
    let f = eth_frame(US, 100, 9);
    b.inject(&f);
    tx.send(mac, &eth_frame([0xFF; 6], 60, 9)).unwrap();
    rounds(&b, mac, &mut tx, &mut rx, 2);
    assert_eq!(tx.stats().reclaimed, 2, "{:?}", tx.stats());
    let got = rx.receive(mac).map(|p| p.as_slice().unwrap().to_vec());
    assert_eq!(got.ok(), Some(f), "{:?}", rx.stats());
}

/// A TX slot reserved before a restart that moved the ring back to descriptor 0 is stale:
/// its commit queues nothing, and the ring reserves and sends again afterwards.
fn restart_makes_an_outstanding_slot_stale<G: Stops>() {
    let b = Board::<G>::new();
    let mac = &b.mac;
    let (mut tx, mut rx) = rings(&b, mac, 8);
    tx.send(mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    rounds(&b, mac, &mut tx, &mut rx, 2);
    let slot = tx.reserve_slot(mac).unwrap();
    mac.stop().unwrap();
    tx.try_start(mac).unwrap();
    mac.set_link(b.link_up());
    assert_eq!(
        tx.commit_slot(mac, slot, 60),
        Err(stmmac_coalesce::Error::WouldBlock)
    );
    assert!(!tx.slot_reserved());
    assert_eq!(tx.stats().sent, 1, "{:?}", tx.stats());
    tx.send(mac, &eth_frame([0xFF; 6], 60, 2)).unwrap();
    rounds(&b, mac, &mut tx, &mut rx, 2);
    assert_eq!(tx.stats().reclaimed, 2, "{:?}", tx.stats());
}
