//! The embassy-net driver on the model: tokens, and wakers from the DMA interrupt, the TX
//! cleanup timer and link changes, in virtual time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Wake, Waker};

use embassy_net_driver::{Driver as _, HardwareAddress, LinkState, RxToken as _, TxToken as _};
use stmmac_coalesce::embassy_net::{Driver, NetState};
use stmmac_coalesce::sim::eth_frame;
use stmmac_coalesce::sim::seed::Rig;
use stmmac_coalesce::{
    CoalesceConfig, Coherent, Duplex, FrameFilter, MacConfig, NoTimer, QueueTimer, Speed,
    TimerStrategy,
};

struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

#[test]
fn wakers_come_from_the_timer_the_dma_interrupt_and_the_link() {
    // tx_frames 0: no IC, the cleanup timer (1000 us, armed once) is the only TX completion.
    let cfg = CoalesceConfig {
        tx_frames: 0,
        tx_usecs: 1_000,
        ..CoalesceConfig::SEED
    };
    let rig = Rig::hrtimer(cfg, TimerStrategy::ArmOnce).unwrap();
    let Rig {
        clock,
        bus,
        mac,
        timers,
        tx,
        rx,
        ..
    } = rig;
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    let up = stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full);
    mac.set_link(stmmac_coalesce::LinkState::DOWN);
    type Timer = QueueTimer<
        'static,
        hwtimer_core::sim::SimClockEvent,
        stmmac_coalesce::sim::seed::HrBase,
        4,
    >;
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let woken = || count.0.load(Ordering::SeqCst);

    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    assert_eq!(drv.hardware_address(), HardwareAddress::Ethernet(MAC));
    assert_eq!(drv.capabilities().max_transmission_unit, 1518);
    // Link down: no token, and the runner is woken when it comes up.
    assert!(drv.link_state(&mut cx) == LinkState::Down);
    assert!(drv.transmit(&mut cx).is_none());
    state.set_link(&mac, up);
    // The runner registered for the link and for TX space: both slots wake it.
    assert_eq!(woken(), 2, "link change wakes");
    assert!(drv.link_state(&mut cx) == LinkState::Up);

    // Fill the ring: tokens until none is free, no wake yet.
    let mut sent = 0;
    while let Some(t) = drv.transmit(&mut cx) {
        t.consume(60, |b| b.fill(0x5A));
        sent += 1;
        assert!(sent <= 1024, "the ring must fill");
    }
    let ring = state.with_tx(|t| t.len()).unwrap();
    assert_eq!(sent, ring);
    assert_eq!(bus.model(|m| m.sent().len()), ring);
    assert_eq!(woken(), 2);

    // The cleanup timer expires tx_usecs later: it reclaims and wakes the transmit side.
    let id = state.with_tx(|t| t.timer().id()).unwrap();
    let deadline = timers.deadline(id).unwrap();
    let tick_ns = 1_000_000_000 / u64::from(timers.freq_hz().unwrap());
    clock.advance_to((deadline - 1) * tick_ns);
    timers
        .on_interrupt(|_, now| state.on_tx_timer(&mac, now))
        .unwrap();
    assert_eq!(woken(), 2, "not before tx_usecs");
    // The clockevent may fire a tick or two after the deadline (never before).
    clock.advance_to((deadline + 10) * tick_ns);
    let fired = timers.on_interrupt(|_, now| state.on_tx_timer(&mac, now));
    assert_eq!(
        fired,
        Ok(1),
        "deadline {deadline} now {} ns {}",
        timers.now().unwrap(),
        clock.now_ns()
    );
    assert!(timers.now().unwrap() >= deadline);
    assert_eq!(woken(), 3, "the timer's reclaim wakes the transmit side");
    assert_eq!(state.with_tx(|t| t.pending()), Some(0));
    assert!(drv.transmit(&mut cx).is_some());

    // RX: nothing yet (the waker is registered); a frame arrives with RI; the interrupt
    // path wakes the runner and the token lends the frame.
    assert!(drv.receive(&mut cx).is_none());
    let frame = eth_frame(MAC, 100, 0xA5);
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    let events = mac.take_events();
    assert!(events.rx_ready(), "RI");
    state.on_dma_interrupt(&mac, events);
    // RI wakes the receive side (nothing was freed on the TX side).
    assert_eq!(woken(), 4);
    let (rxt, _txt) = drv.receive(&mut cx).expect("a frame");
    assert_eq!(rxt.consume(|b| b.to_vec()), frame);
    assert!(drv.receive(&mut cx).is_none());

    // Link down again: wakes, and no TX token.
    state.set_link(&mac, stmmac_coalesce::LinkState::DOWN);
    assert!(woken() >= 5);
    assert!(drv.transmit(&mut cx).is_none());
    assert_eq!(state.with_rx(|r| r.stats().errors), Some(0));
}

#[test]
fn ti_service_wakes_only_when_it_freed_something() {
    let cfg = CoalesceConfig {
        tx_frames: 2,
        tx_usecs: 0,
        ..CoalesceConfig::SEED
    };
    let Rig {
        clock,
        bus,
        mac,
        tx,
        rx,
        ..
    } = Rig::hrtimer(cfg, TimerStrategy::ArmOnce).unwrap();
    type Timer = QueueTimer<
        'static,
        hwtimer_core::sim::SimClockEvent,
        stmmac_coalesce::sim::seed::HrBase,
        4,
    >;
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let woken = || count.0.load(Ordering::SeqCst);
    // Stall the DMA, fill the ring: no token, nothing to wake yet.
    bus.model(|m| m.set_tx_stall(clock.now_ns(), true));
    while let Some(t) = drv.transmit(&mut cx) {
        t.consume(60, |b| b.fill(1));
    }
    assert_eq!(woken(), 0);
    // An interrupt that freed nothing (no TI) does not wake the transmit side.
    assert_eq!(
        state.on_dma_interrupt(&mac, stmmac_coalesce::DmaEvents::NONE),
        0
    );
    assert_eq!(woken(), 0);
    // The DMA sends them; TI; the service reclaims and wakes.
    bus.model(|m| m.set_tx_stall(clock.now_ns(), false));
    {
        use hwtimer_core::RegisterBus as _;
        bus.write_word(0x1004, 1);
    }
    let events = mac.take_events();
    assert!(events.tx_done(), "TI");
    assert!(state.on_dma_interrupt(&mac, events) > 0);
    assert_eq!(woken(), 1);
    assert!(drv.transmit(&mut cx).is_some());
    let _ = NoTimer;
}
