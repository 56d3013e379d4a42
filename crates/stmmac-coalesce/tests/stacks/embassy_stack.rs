//! embassy-net's own stack (`embassy_net::new`, its `Runner` and `TcpSocket`s) over two
//! models of either DWMAC generation on the host: a TCP transfer from one to the other,
//! every byte checked, through `stmmac_coalesce::embassy_net::Driver` on `Gmac3` or `Qos`
//! (on QoS one of them above 4 GiB), the DMA interrupts serviced
//! by `NetState::on_dma_interrupt` as an interrupt handler would. Futures are polled by a
//! loop that wakes on what the driver and the time driver wake, in virtual time.
//!
//! The embassy-time driver is this test's own (`time_driver_impl!` over an atomic in
//! microseconds that follows the model's clock): an embassy-time driver feature in the
//! crate's dev-dependencies would reach every test binary of the workspace.

use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use super::nic as nic4;
use crate::harness::{Board, Bus, Generation, ModelOps, on_both};

use super::stack;
use embassy_net::tcp::TcpSocket;
use embassy_net::{Config, Ipv4Address, Ipv4Cidr, StackResources, StaticConfigV4};
use hwtimer_core::sim::SimClock;
use nic4::{NicConfig, Wired, take_sent};
use stack::LossyWire;
use stmmac_coalesce::embassy_net::{Driver, NetState};
use stmmac_coalesce::sim::SimArena;
use stmmac_coalesce::{Coherent, Duplex, Dwmac, LinkState, NoTimer, Speed};

/// Virtual time in embassy ticks, and the wakers waiting for it.
struct SimTime {
    now: AtomicU64,
    wakes: Mutex<Vec<(u64, Waker)>>,
}

impl embassy_time_driver::Driver for SimTime {
    fn now(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
    fn schedule_wake(&self, at: u64, waker: &Waker) {
        self.wakes.lock().unwrap().push((at, waker.clone()));
    }
}

embassy_time_driver::time_driver_impl!(static TIME: SimTime = SimTime {
    now: AtomicU64::new(0),
    wakes: Mutex::new(Vec::new()),
});

/// embassy-time's driver is one per process, so the stacks of one transfer own it: one
/// transfer at a time (the test harness runs tests in parallel).
static ONE_TRANSFER: Mutex<()> = Mutex::new(());

/// Set embassy's time from the model clock and wake what is due; the earliest wake left.
fn follow(clock: &SimClock) -> Option<u64> {
    let tick_ns = 1_000_000_000 / embassy_time_driver::TICK_HZ;
    let now = clock.now_ns() / tick_ns;
    TIME.now.store(now, Ordering::SeqCst);
    let mut w = TIME.wakes.lock().unwrap();
    let (due, later): (Vec<_>, Vec<_>) = w.drain(..).partition(|(at, _)| *at <= now);
    *w = later;
    let next = w.iter().map(|(at, _)| *at * tick_ns).min();
    drop(w);
    for (_, waker) in due {
        waker.wake();
    }
    next
}

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A started MAC at `addr` in `arena` (IC every frame, no timer; checksum offload on, DMA
/// interrupts enabled) and its rings in a `NetState`, link up.
fn nic<G: Generation>(
    clock: &SimClock,
    arena: SimArena,
    model: impl FnOnce(G::Model) -> G::Model,
    addr: [u8; 6],
) -> (Bus<G>, G::Mac, NetState<NoTimer, Coherent>) {
    let n = nic4::nic::<G>(
        clock,
        arena,
        model,
        addr,
        NicConfig {
            tx_descriptors: 16,
            tx_frames: 1,
            rx_descriptors: 32,
            rx_buf: 512,
            offload: true,
        },
    );
    n.mac.enable_default_interrupts();
    let state = NetState::new();
    state.install(n.tx, n.rx);
    state.set_link(&n.mac, LinkState::up(Speed::M1000, Duplex::Full));
    (n.bus, n.mac, state)
}

fn static_ip(last: u8) -> Config {
    Config::ipv4_static(StaticConfigV4 {
        address: Ipv4Cidr::new(Ipv4Address::new(10, 0, 2, last), 24),
        gateway: None,
        dns_servers: Default::default(),
    })
}

fn embassy_net_tcp_between_two_macs_on_the_host<G: Wired>() {
    let (a, b, frames, rx) = transfer::<G>(None);
    // 120 kB in MSS segments (at least 83), each spanning 512-byte RX buffers on B (on
    // QoS above 4 GiB); everything A sent reached B through the rings, and back.
    assert!(a.tx_frames >= 83, "{a:?}");
    assert_eq!(b.rx_frames, a.tx_frames);
    assert_eq!(a.rx_frames, b.tx_frames);
    assert_eq!((a.tx_frames + b.tx_frames) as usize, frames);
    assert_eq!(
        a.rx_too_long + b.rx_too_long + a.tx_dropped + b.tx_dropped,
        0
    );
    assert!(rx.multi_descriptor >= 82, "{rx:?}");
    assert_eq!(
        rx.errors + rx.ip_checksum_errors + rx.payload_checksum_errors,
        0
    );
}

/// The same transfer over a wire that drops (5 %), corrupts (5 %) and reorders (5 %)
/// frames each way: every byte still arrives, in order; B's RX checksum offload drops the
/// corrupted segments that reach it.
fn embassy_net_tcp_between_two_macs_over_a_lossy_wire<G: Wired>() {
    let wires = (LossyWire::new(19, 5, 5, 5), LossyWire::new(29, 5, 5, 5));
    let (a, b, _, rx) = transfer::<G>(Some(wires));
    assert!(b.rx_frames < a.tx_frames, "frames were lost: {a:?} {b:?}");
    assert!(
        rx.ip_checksum_errors + rx.payload_checksum_errors > 0,
        "{rx:?}"
    );
}

/// TCP from A to B (120 kB, each byte checked here) over `lossy` (A to B, B to A) or a
/// perfect wire: both states' counters, the frames delivered, B's RX ring counters.
fn transfer<G: Wired>(
    mut lossy: Option<(LossyWire, LossyWire)>,
) -> (
    stmmac_coalesce::embassy_net::NetStats,
    stmmac_coalesce::embassy_net::NetStats,
    usize,
    stmmac_coalesce::RxStats,
) {
    let _time_driver = ONE_TRANSFER.lock().unwrap_or_else(|e| e.into_inner());
    let clock = SimClock::new();
    let (addr_a, addr_b) = ([0x02, 0, 0, 0, 0, 1], [0x02, 0, 0, 0, 0, 2]);
    let (bus_a, mac_a, state_a) =
        nic::<G>(&clock, SimArena::new(0x1000_0000, 1 << 20), |m| m, addr_a);
    let (far, far_model) = G::far_arena();
    let (bus_b, mac_b, state_b) = nic::<G>(&clock, far, far_model, addr_b);
    let (mut sa, mut sb) = (vec![0u8; 1518], vec![0u8; 1518]);
    let drv_a = Driver::new(&mac_a, &state_a, &mut sa, addr_a);
    let drv_b = Driver::new(&mac_b, &state_b, &mut sb, addr_b);
    let mut res_a = StackResources::<2>::new();
    let mut res_b = StackResources::<2>::new();
    let (stack_a, mut runner_a) = embassy_net::new(drv_a, static_ip(1), &mut res_a, 1);
    let (stack_b, mut runner_b) = embassy_net::new(drv_b, static_ip(2), &mut res_b, 2);

    let data: Vec<u8> = (0..120_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let (mut rxa, mut txa) = (vec![0u8; 4096], vec![0u8; 4096]);
    let (mut rxb, mut txb) = (vec![0u8; 4096], vec![0u8; 4096]);
    let client = async {
        let mut s = TcpSocket::new(stack_a, &mut rxa, &mut txa);
        s.connect((Ipv4Address::new(10, 0, 2, 2), 7)).await.unwrap();
        let mut sent = 0;
        while sent < data.len() {
            sent += s.write(&data[sent..]).await.unwrap();
        }
        s.flush().await.unwrap();
        s.close();
        sent
    };
    let want = data.len();
    let server = async {
        let mut s = TcpSocket::new(stack_b, &mut rxb, &mut txb);
        s.accept(7).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1500];
        // Until all of it (the client's FIN may never leave: embassy-net drops a socket's
        // state with the socket).
        while got.len() < want {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        got
    };
    let mut ra = pin!(runner_a.run());
    let mut rb = pin!(runner_b.run());
    let mut client = pin!(client);
    let mut server = pin!(server);
    let flag = std::sync::Arc::new(Flag(AtomicBool::new(true)));
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let (mut sent, mut got) = (None, None);
    let mut frames = 0;
    let mut polls = 0u64;
    for _ in 0..200_000 {
        if got.is_some() && sent.is_some() {
            break;
        }
        if flag.0.swap(false, Ordering::SeqCst) {
            polls += 1;
            let _ = ra.as_mut().poll(&mut cx);
            let _ = rb.as_mut().poll(&mut cx);
            if sent.is_none()
                && let Poll::Ready(n) = client.as_mut().poll(&mut cx)
            {
                sent = Some(n);
            }
            if got.is_none()
                && let Poll::Ready(g) = server.as_mut().poll(&mut cx)
            {
                got = Some(g);
            }
        }
        // The wire, then each MAC's DMA interrupt as its handler would take it.
        let now = clock.now_ns();
        let moved = stack::carry_both(
            &mut lossy,
            (take_sent(&bus_a), |f: &[u8]| {
                bus_a.model(|m| m.inject(now, f))
            }),
            (take_sent(&bus_b), |f: &[u8]| {
                bus_b.model(|m| m.inject(now, f))
            }),
        );
        frames += moved;
        for (mac, state) in [(&mac_a, &state_a), (&mac_b, &state_b)] {
            let ev = Dwmac::take_events(mac);
            if !ev.is_empty() {
                state.on_dma_interrupt(mac, ev);
            }
        }
        if moved == 0 {
            // Nothing on the wire: on to the stacks' next timer (delayed ACKs,
            // retransmissions), at most 1 ms and at least 1 µs ahead.
            let now = clock.now_ns();
            let next = follow(&clock).unwrap_or(now + 1_000_000);
            clock.advance_to(next.clamp(now + 1_000, now + 1_000_000));
        }
        follow(&clock);
    }
    let got = got.expect("the server read to the end");
    assert_eq!(sent, Some(data.len()));
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    assert!(polls > 0);
    if let Some((ab, ba)) = &lossy {
        ab.assert_every_fault();
        ba.assert_every_fault();
    }
    let rx = state_b.with_rx(|r| r.stats()).unwrap();
    (state_a.stats(), state_b.stats(), frames, rx)
}

/// A ring holds as many frames as the DMA may own descriptors (one fewer on QoS: a tail
/// pointer at the head would mean an empty ring), so `tx_frames` above that would never set
/// IC before the ring fills: refused, and the capacity accepted.
fn a_ring_refuses_tx_frames_above_its_capacity<G: Generation>() {
    use stmmac_coalesce::{
        CoalesceConfig, ConfigError, Error, TimerStrategy, TxConfig, TxRing, ring_bytes,
    };
    let b = Board::<G>::new();
    let (arena, setup) = (&b.arena, &b.setup);
    let cap = G::ring_capacity(8) as u32;
    let cfg = |tx_frames| TxConfig {
        descriptors: 8,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let mem = || {
        arena
            .region(ring_bytes(8, 1536, setup.cache_line()))
            .unwrap()
    };
    let r = TxRing::new(mem(), arena, setup, cfg(cap + 1), NoTimer, Coherent);
    assert!(
        matches!(r, Err(Error::Config(ConfigError::TxFramesExceedRing))),
        "8 descriptors hold {cap} frames on {}: {:?}",
        G::NAME,
        r.err()
    );
    assert!(TxRing::new(mem(), arena, setup, cfg(cap), NoTimer, Coherent).is_ok());
}

/// The runner alone, no interrupt serviced (as when no frame of a full ring carries IC, or
/// its TI is not taken yet): `transmit()` and `receive()` find the TX ring full of frames
/// the DMA has completed, and reclaim them instead of stopping the interface.
fn the_embassy_driver_reclaims_a_full_tx_ring_instead_of_stopping<G: Generation>() {
    use stmmac_coalesce::net::embassy_net_driver_crate::{Driver as _, RxToken as _, TxToken as _};
    use stmmac_coalesce::sim::eth_frame;
    let clock = SimClock::new();
    let addr = [0x02, 0, 0, 0, 0, 1];
    // 8 descriptors (7 frames on QoS), IC on the frame that fills the ring, no cleanup timer.
    let n = nic4::nic::<G>(
        &clock,
        SimArena::new(0x1000_0000, 1 << 20),
        |m| m,
        addr,
        NicConfig {
            tx_descriptors: 8,
            tx_frames: G::ring_capacity(8) as u32,
            rx_descriptors: 32,
            rx_buf: 512,
            offload: true,
        },
    );
    let state = NetState::new();
    state.install(n.tx, n.rx);
    state.set_link(&n.mac, LinkState::up(Speed::M1000, Duplex::Full));
    let mut scratch = vec![0u8; 1518];
    let mut drv = Driver::new(&n.mac, &state, &mut scratch, addr);
    let waker = Waker::from(std::sync::Arc::new(Flag(AtomicBool::new(false))));
    let mut cx = Context::from_waker(&waker);
    for i in 0..40u32 {
        let t = drv.transmit(&mut cx);
        assert!(
            t.is_some(),
            "frame {i}: the interface stopped: {:?}",
            state.stats()
        );
        t.unwrap().consume(60, |b| b.fill(i as u8));
        // A frame arrives: its token needs a reply descriptor from the same full ring.
        n.bus
            .model(|m| m.inject(clock.now_ns(), &eth_frame(addr, 100, i as u8)));
        let got = drv.receive(&mut cx);
        assert!(
            got.is_some(),
            "frame {i}: receive() stopped: {:?}",
            state.stats()
        );
        let (rx, _reply) = got.unwrap();
        rx.consume(|b| assert_eq!(b.len(), 100));
    }
    assert_eq!(n.bus.model(|m| m.sent().len()), 40);
    let st = state.stats();
    assert_eq!((st.tx_frames, st.rx_frames, st.tx_dropped), (40, 40, 0));
}

on_both!(
    embassy_net_tcp_between_two_macs_on_the_host,
    embassy_net_tcp_between_two_macs_over_a_lossy_wire,
    a_ring_refuses_tx_frames_above_its_capacity,
    the_embassy_driver_reclaims_a_full_tx_ring_instead_of_stopping,
);
