//! The embassy-net driver on the models: tokens, and wakers from the DMA interrupt, the TX
//! cleanup timer and link changes, in virtual time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::task::{Context, Wake, Waker};
use std::time::Duration;

use embassy_net_driver::{Driver as _, HardwareAddress, LinkState, RxToken as _, TxToken as _};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::embassy_net::{Driver, NetState};
use stmmac_coalesce::sim::eth_frame;
use stmmac_coalesce::sim::seed::{HrBase, Rig};

use crate::harness::{Generation, ModelOps, on_both};
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

/// tx_frames 0: no IC, so the cleanup timer (1000 us, armed once) is the only TX completion.
fn timer_only() -> CoalesceConfig {
    CoalesceConfig {
        tx_frames: 0,
        tx_usecs: 1_000,
        ..stmmac_coalesce::sim::seed::SEED
    }
}

/// The seed rig on the hrtimer queue, armed once, with [`timer_only`] coalescing.
fn timer_only_rig() -> Rig<HrBase> {
    Rig::hrtimer(timer_only(), TimerStrategy::ArmOnce).unwrap()
}

/// Tokens and wakers on a MAC whose TX DMA lags 100 µs behind the CPU, so that the ring
/// fills before it completes anything.
fn wakers_come_from_the_timer_the_dma_interrupt_and_the_link<G: Generation>() {
    // tx_frames 0: no IC, the cleanup timer (1000 us, armed once) is the only TX completion.
    let rig = Rig::<HrBase, G::SeedBus>::hrtimer_on(timer_only(), TimerStrategy::ArmOnce, 100_000)
        .unwrap();
    let Rig {
        clock,
        bus,
        mac,
        timers,
        tx,
        rx,
        ..
    } = rig;
    let bus = G::seed_model(&bus);
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    let up = stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full);
    mac.set_link(stmmac_coalesce::LinkState::DOWN);
    type Timer = QueueTimer<'static, hwtimer_core::sim::SimClockEvent, HrBase, 4>;
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let woken = || count.0.load(Ordering::SeqCst);

    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    assert_eq!(drv.hardware_address(), HardwareAddress::Ethernet(MAC));
    // smoltcp's and embassy-net's MTU: the frame without FCS, untagged (IP MTU 1500 + 14).
    assert_eq!(drv.capabilities().max_transmission_unit, 1514);
    // Link down: no token, and the runner is woken when it comes up.
    assert!(drv.link_state(&mut cx) == LinkState::Down);
    assert!(drv.transmit(&mut cx).is_none());
    state.set_link(&mac, up);
    // The runner registered for the link and for TX space: both slots wake it.
    assert_eq!(woken(), 2, "link change wakes");
    assert!(drv.link_state(&mut cx) == LinkState::Up);

    // Fill the ring while the TX DMA lags 100 µs behind (a token finding the ring full
    // reclaims what the DMA completed, here nothing): tokens until none is free (all the
    // descriptors on GMAC 3.x, one fewer on QoS), no wake yet.
    let mut sent = 0;
    while let Some(t) = drv.transmit(&mut cx) {
        t.consume(60, |b| b.fill(sent as u8));
        sent += 1;
        assert!(sent <= 1024, "the ring must fill");
    }
    let ring = state.with_tx(|t| t.len()).unwrap();
    assert_eq!(sent, G::ring_capacity(ring));
    // The DMA catches up and sends them all; no IC, so no TI and no wake.
    clock.advance_to(clock.now_ns() + 400_000);
    let now = clock.now_ns();
    let _ = bus.model(|m| m.raw_status(now)); // the model applies what time alone does
    assert_eq!(bus.model(|m| m.sent().len()), sent);
    assert_eq!(woken(), 2, "nothing freed yet");

    // The cleanup timer expires tx_usecs after the first frame, never before: it reclaims
    // and wakes the transmit side.
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

    // RX: nothing yet (the waker is registered); a frame arrives with RI (on QoS through
    // the channel status); the interrupt path wakes the runner and the token lends the
    // frame.
    assert!(drv.receive(&mut cx).is_none());
    let frame = eth_frame(MAC, 300, 0x3C);
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    let events = mac.take_events();
    assert!(events.rx_ready(), "RI: {events:?}");
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

on_both!(wakers_come_from_the_timer_the_dma_interrupt_and_the_link);

#[test]
fn ti_service_wakes_only_when_it_freed_something() {
    let cfg = CoalesceConfig {
        tx_frames: 2,
        tx_usecs: 0,
        ..stmmac_coalesce::sim::seed::SEED
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

type Timer =
    QueueTimer<'static, hwtimer_core::sim::SimClockEvent, stmmac_coalesce::sim::seed::HrBase, 4>;

fn noop_cx_waker() -> Waker {
    Waker::from(Arc::new(Count(AtomicUsize::new(0))))
}

#[test]
fn tx_consume_after_the_link_dropped_returns_and_counts_the_drop() {
    // Before the fix `consume` looped forever here: run it on a thread and give it 10 s.
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let Rig {
            bus, mac, tx, rx, ..
        } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
        mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
        let state: NetState<Timer, Coherent> = NetState::new();
        state.install(tx, rx);
        let mut scratch = vec![0u8; 1518];
        let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
        let waker = noop_cx_waker();
        let mut cx = Context::from_waker(&waker);
        let before = bus.model(|m| m.sent().len());
        let t = drv.transmit(&mut cx).expect("link up, descriptors free");
        // The link drops between transmit() and consume().
        state.set_link(&mac, stmmac_coalesce::LinkState::DOWN);
        let got = t.consume(100, |b| {
            b.fill(0x77);
            b.len()
        });
        let sent = bus.model(|m| m.sent().len()) - before;
        let pending = state.with_tx(|t| t.pending()).unwrap();
        done.send((got, sent, pending, state.stats())).unwrap();
    });
    let (got, sent, pending, stats) = result
        .recv_timeout(Duration::from_secs(10))
        .expect("TxToken::consume must return when the reservation fails");
    assert_eq!(
        got, 100,
        "the stack still gets a buffer of the length it asked for"
    );
    assert_eq!((sent, pending), (0, 0), "nothing sent, nothing queued");
    assert_eq!(stats.tx_dropped, 1);
    assert_eq!(stats.tx_frames, 0);
}

#[test]
fn tx_frame_is_filled_with_interrupts_enabled_and_the_interrupt_paths_run_at_once() {
    // No IC: the cleanup timer (1000 us, armed once) is the only TX completion.
    let Rig {
        clock,
        bus,
        mac,
        timers,
        tx,
        rx,
        ..
    } = timer_only_rig();
    mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    // Frame 1 arms the cleanup timer.
    drv.transmit(&mut cx).unwrap().consume(60, |b| b.fill(1));
    let id = state.with_tx(|t| t.timer().id()).unwrap();
    let deadline = timers.deadline(id).expect("armed by frame 1");
    let tick_ns = 1_000_000_000 / u64::from(timers.freq_hz().unwrap());

    let t = drv.transmit(&mut cx).unwrap();
    let mut other_core_entered = false;
    let (mut fired, mut freed_by_ti) = (Ok(0), usize::MAX);
    let (mut in_fill, mut send_in_fill) = (None, None);
    t.consume(60, |b| {
        b.fill(2);
        // Another context can take a critical section while the stack fills the frame
        // (with the std implementation a critical section is a global lock: this thread
        // holding one blocks the other).
        let (ok, entered) = mpsc::channel();
        std::thread::spawn(move || {
            critical_section::with(|_| ());
            let _ = ok.send(());
        });
        other_core_entered = entered.recv_timeout(Duration::from_secs(5)).is_ok();
        // Interrupts preempt the fill and find the ring where it always is (before the
        // reserved-slot tokens the ring was lent out: `with_tx` answered `None`, and both
        // paths deferred their TX work to the end of `consume`).
        clock.advance_to((deadline + 10) * tick_ns);
        fired = timers.on_interrupt(|_, now| state.on_tx_timer(&mac, now));
        freed_by_ti = state.on_dma_interrupt(&mac, stmmac_coalesce::DmaEvents::TX_COMPLETE);
        in_fill = state.with_tx(|t| (t.stats().reclaimed, t.pending(), t.slot_reserved()));
        // The slot is the token's: nothing else is queued meanwhile.
        send_in_fill = state.with_tx(|t| t.send(&mac, &[3u8; 60]));
    });
    assert!(
        other_core_entered,
        "the frame was built inside a critical section"
    );
    assert_eq!(fired, Ok(1), "the expiry ran during the fill");
    assert_eq!(
        in_fill,
        Some((1, 0, true)),
        "the expiry reclaimed frame 1 at once, the slot still out"
    );
    assert_eq!(freed_by_ti, 0, "frame 1 was already reclaimed");
    assert_eq!(send_in_fill, Some(Err(stmmac_coalesce::Error::WouldBlock)));
    let stats = state.stats();
    assert_eq!((stats.tx_frames, stats.tx_dropped), (2, 0));
    let sent = bus.model(|m| m.sent().to_vec());
    assert_eq!(sent.len(), 2);
    assert!(
        sent[1].bytes[..60].iter().all(|&b| b == 2),
        "frame 2 as filled"
    );
    // Frame 2 armed the timer again (the expiry had found the ring empty); its expiry
    // reclaims it.
    assert_eq!(
        state.with_tx(|t| (t.pending(), t.slot_reserved())),
        Some((1, false))
    );
    let again = timers.deadline(id).expect("armed by frame 2");
    clock.advance_to((again + 10) * tick_ns);
    assert_eq!(
        timers.on_interrupt(|_, now| state.on_tx_timer(&mac, now)),
        Ok(1)
    );
    assert_eq!(state.with_tx(|t| t.pending()), Some(0));
}

#[test]
fn tx_fault_during_the_fill_drops_the_stale_slot() {
    let Rig {
        bus, mac, tx, rx, ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    drv.transmit(&mut cx).unwrap().consume(60, |b| b.fill(1));
    let before = bus.model(|m| m.sent().len());
    drv.transmit(&mut cx).unwrap().consume(60, |b| {
        b.fill(2);
        // A TX fault (UNF with AIS): the TX service restarts the TX DMA and resets every
        // descriptor.
        use stmmac_coalesce::DmaEvents as E;
        state.on_dma_interrupt(&mac, E::TX_UNDERFLOW | E::ABNORMAL);
    });
    assert_eq!(bus.model(|m| m.sent().len()), before, "nothing sent");
    let stats = state.stats();
    assert_eq!((stats.tx_frames, stats.tx_dropped), (1, 1));
    let (recoveries, pending, reserved) = state
        .with_tx(|t| (t.stats().recoveries, t.pending(), t.slot_reserved()))
        .unwrap();
    assert_eq!((recoveries, pending, reserved), (1, 0, false));
    // The ring goes on from descriptor 0.
    drv.transmit(&mut cx).unwrap().consume(60, |b| b.fill(3));
    assert_eq!(bus.model(|m| m.sent().len()), before + 1);
    assert_eq!(state.stats().tx_frames, 2);
}

#[test]
fn a_tx_slot_is_exclusive_and_only_its_own_ring_takes_it() {
    let Rig {
        bus, mac, mut tx, ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    let Rig {
        mac: mac2,
        tx: mut other,
        ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    for m in [&mac, &mac2] {
        m.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    }
    let mut slot = tx.reserve_slot(&mac).unwrap();
    assert_eq!(slot.len(), tx.buf_size());
    let e = Err(stmmac_coalesce::Error::WouldBlock);
    assert_eq!(tx.reserve_slot(&mac).map(|_| ()), e, "one slot at a time");
    assert_eq!(tx.reserve(&mac).map(|_| ()), e);
    assert_eq!(tx.send(&mac, &[0u8; 60]).map(|_| ()), e);
    slot.buffer()[..60].fill(9);
    // Another ring's slot neither sends on this one nor ends its reservation.
    let foreign = other.reserve_slot(&mac2).unwrap();
    assert_eq!(tx.commit_slot(&mac, foreign, 60).map(|_| ()), e);
    assert!(tx.slot_reserved());
    assert!(other.slot_reserved(), "its own ring stays reserved");
    // Length checks as `TxToken::commit`; the reservation ends either way.
    assert!(matches!(
        tx.commit_slot(&mac, slot, tx.buf_size() + 1),
        Err(stmmac_coalesce::Error::FrameSize { .. })
    ));
    assert!(!tx.slot_reserved());
    assert_eq!(bus.model(|m| m.sent().len()), 0);
    let mut slot = tx.reserve_slot(&mac).unwrap();
    slot.buffer()[..60].fill(7);
    tx.commit_slot(&mac, slot, 60).unwrap();
    let sent = bus.model(|m| m.sent().to_vec());
    assert_eq!(sent.len(), 1);
    assert_eq!(&sent[0].bytes[..], &[7u8; 60][..]);
    // Released: nothing sent, the next reservation works.
    let slot = tx.reserve_slot(&mac).unwrap();
    tx.release_slot(slot);
    assert!(tx.send(&mac, &[1u8; 60]).is_ok());
    assert_eq!(bus.model(|m| m.sent().len()), 2);
}

#[test]
fn rx_token_only_for_a_complete_frame() {
    let Rig {
        clock,
        bus,
        mac,
        tx,
        rx,
        ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    // The DMA clears OWN before it writes LS (QEMU's npcm-gmac does): the frame is
    // still arriving, no token, or the runner would spin on empty frames until LS lands.
    bus.model(|m| m.set_split_last_write(true));
    let frame = eth_frame(MAC, 100, 0x3C);
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    for _ in 0..3 {
        assert!(drv.receive(&mut cx).is_none(), "frame not complete yet");
    }
    bus.model(|m| m.complete_rx_writes());
    let (rxt, _txt) = drv.receive(&mut cx).expect("complete now");
    assert_eq!(rxt.consume(|b| b.to_vec()), frame);
    assert!(drv.receive(&mut cx).is_none());
    let stats = state.stats();
    assert_eq!((stats.rx_frames, stats.rx_too_long), (1, 0));
}

#[test]
fn rx_frame_longer_than_the_scratch_buffer_is_dropped_and_counted() {
    let Rig {
        clock,
        bus,
        mac,
        tx,
        rx,
        ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 200];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    assert_eq!(drv.capabilities().max_transmission_unit, 200);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    let (long, short) = (eth_frame(MAC, 600, 1), eth_frame(MAC, 150, 2));
    bus.model(|m| m.inject(clock.now_ns(), &long));
    bus.model(|m| m.inject(clock.now_ns(), &short));
    let (rxt, _txt) = drv.receive(&mut cx).expect("the short frame");
    assert_eq!(rxt.consume(|b| b.to_vec()), short);
    assert_eq!(state.stats().rx_too_long, 1);
}

#[test]
fn rx_head_without_frame_start_gives_no_token() {
    let Rig {
        arena, mac, tx, rx, ..
    } = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    mac.set_link(stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full));
    // The head descriptor CPU-owned without FS (the tail of a frame whose start was
    // dropped), its successor still the DMA's: no frame can be taken there.
    assert!(arena.write_u32(rx.base(), 0));
    assert!(
        rx.desc_words(1).unwrap()[0] & (1 << 31) != 0,
        "successor DMA-owned"
    );
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    // A token here would hand the runner an empty frame and have it poll again at once,
    // until an RU interrupt that a quiet link never brings.
    for _ in 0..3 {
        assert!(drv.receive(&mut cx).is_none());
    }
    assert_eq!(state.stats().rx_frames, 0);
}

/// `NetState`'s methods called from inside its own closures (`with_tx`, `with_rx`) see no
/// rings instead of panicking on the lock already held: `None`, zero counters, no wake.
#[test]
fn net_state_methods_nest_without_panicking() {
    let rig = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
    let Rig { mac, tx, rx, .. } = rig;
    let state = NetState::new();
    state.install(tx, rx);
    let up = stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full);
    let inner = state.with_tx(|_| {
        let stats = state.stats();
        let rx = state.with_rx(|r| r.len());
        state.set_inflight_limit(1);
        state.set_link(&mac, up);
        let freed = state.on_dma_interrupt(&mac, stmmac_coalesce::DmaEvents::NONE);
        (stats, rx, freed)
    });
    assert_eq!(inner, Some((Default::default(), None, 0)));
    // Outside, the rings are there again.
    assert!(state.with_rx(|r| r.len()).is_some_and(|n| n > 0));
    assert!(mac.link().up, "set_link programs the MAC even nested");
}

/// With the link down nothing the ring holds can complete: a cleanup-timer expiry that
/// reclaims nothing then does not re-arm (it would fire every `tx_usecs` for as long as the
/// link stays down). The first frame after the link comes back arms it again, and its
/// expiry reclaims everything.
#[test]
fn with_the_link_down_the_cleanup_timer_is_not_rearmed() {
    let Rig {
        clock,
        bus,
        mac,
        timers,
        tx,
        rx,
        ..
    } = timer_only_rig();
    let up = stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full);
    let state = NetState::new();
    state.install(tx, rx);
    state.set_link(&mac, up);
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    let waker = noop_cx_waker();
    let mut cx = Context::from_waker(&waker);
    // Run the timer queue's interrupt every 100 us for `ms` milliseconds; expiries.
    let run = |ms: u64| {
        let mut fired = 0;
        for _ in 0..ms * 10 {
            clock.advance_to(clock.now_ns() + 100_000);
            fired += timers
                .on_interrupt(|_, now| state.on_tx_timer(&mac, now))
                .unwrap();
        }
        fired
    };
    // Three frames the DMA cannot send (a dead link), then the link goes down.
    bus.model(|m| m.set_tx_stall(clock.now_ns(), true));
    for _ in 0..3 {
        drv.transmit(&mut cx).unwrap().consume(60, |b| b.fill(1));
    }
    state.set_link(&mac, stmmac_coalesce::LinkState::DOWN);
    // 20 ms down: the one expiry armed by the frames, no re-arm after it.
    assert_eq!(run(20), 1, "re-armed every tx_usecs with the link down");
    assert_eq!(state.with_tx(|t| t.pending()), Some(3));
    // The link is back and the DMA sends: the next frame arms the timer again, and its
    // expiry reclaims all four.
    state.set_link(&mac, up);
    bus.model(|m| m.set_tx_stall(clock.now_ns(), false));
    drv.transmit(&mut cx).unwrap().consume(60, |b| b.fill(2));
    assert_eq!(run(2), 1);
    assert_eq!(state.with_tx(|t| t.pending()), Some(0));
}
