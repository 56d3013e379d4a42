//! The network stacks on the DWMAC 4.x model: smoltcp TCP between two modelled QoS MACs
//! (one with its DMA above 4 GiB), every byte checked, checksum offload reported to the
//! stack and done by the model; and the embassy-net driver's tokens and wakers on a
//! `Qos` with its cleanup timer on the hrtimer queue.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Wake, Waker};

use super::nic as nic4;
use super::stack;
use embassy_net_driver::{Driver as _, LinkState, RxToken as _, TxToken as _};
use hwtimer_core::sim::SimClock;

use nic4::{nic, take_sent};
use smoltcp::phy::Device as _;
use stack::{LossyWire, pattern};
use stmmac_coalesce::embassy_net::{Driver, NetState};
use stmmac_coalesce::sim::seed::{Bus4, HrBase, Rig};
use stmmac_coalesce::sim::{SimArena, eth_frame};
use stmmac_coalesce::smoltcp::{Device, DeviceStats};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, Duplex, Dwmac, FrameFilter, MacConfig, QueueTimer, RxStats, Speed,
    TimerStrategy,
};

/// What [`transfer`] reports: the bytes B received, the frames carried, both devices'
/// counters and B's RX ring's.
type Transfer = (Vec<u8>, usize, DeviceStats, DeviceStats, RxStats);

/// TCP of `data` between two QoS models (B's DMA above 4 GiB; RX buffers of 512 bytes,
/// checksum offload on) over `lossy` or a perfect wire; rounds that move nothing are
/// `idle_ns` long.
fn transfer(data: &[u8], mut lossy: Option<(LossyWire, LossyWire)>, idle_ns: u64) -> Transfer {
    let clock = SimClock::new();
    let arena_a = SimArena::new(0x1000_0000, 1 << 20);
    let arena_b = SimArena::wide(0x8_0000_0000, 1 << 20);
    let mut a = nic(&clock, arena_a, 32, [0x02, 0, 0, 0, 0, 1], 8, 4);
    let mut b = nic(&clock, arena_b, 40, [0x02, 0, 0, 0, 0, 2], 8, 4);
    assert!(b.rx.base() >= 0x8_0000_0000);
    let (bus_a, bus_b) = (a.bus.clone(), b.bus.clone());
    let (addr_a, addr_b) = (a.addr, b.addr);
    let (mut sa, mut sb) = (vec![0u8; 1518], vec![0u8; 1518]);
    let mut dev_a = Device::new(&a.mac, &mut a.tx, &mut a.rx, &mut sa);
    let mut dev_b = Device::new(&b.mac, &mut b.tx, &mut b.rx, &mut sb);
    // The stack is told the MAC checks and inserts checksums.
    let caps = dev_a.capabilities();
    assert!(
        !caps.checksum.ipv4.tx() && !caps.checksum.tcp.tx(),
        "{:?}",
        caps.checksum
    );
    let (got, frames) = stack::tcp_transfer_idle(
        &clock,
        (&mut dev_a, addr_a),
        (&mut dev_b, addr_b),
        data,
        idle_ns,
        |a, b| {
            let now = clock.now_ns();
            let n = stack::carry_both(
                &mut lossy,
                (take_sent(&bus_a), |f: &[u8]| {
                    bus_a.model(|m| m.inject(now, f))
                }),
                (take_sent(&bus_b), |f: &[u8]| {
                    bus_b.model(|m| m.inject(now, f))
                }),
            );
            a.tx().reclaim();
            b.tx().reclaim();
            n
        },
    );
    if let Some((ab, ba)) = &lossy {
        ab.assert_every_fault();
        ba.assert_every_fault();
    }
    let rx = dev_b.rx().stats();
    (got, frames, dev_a.stats(), dev_b.stats(), rx)
}

#[test]
fn smoltcp_tcp_between_two_qos_macs_one_above_4_gib() {
    let data = pattern(150_000, 0x0BAD_CAFE);
    let (got, frames, da, db, rs) = transfer(&data, None, 10_000);
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    assert!(da.tx_frames >= 103, "{da:?}");
    assert!(
        db.rx_copied >= 103,
        "full segments span 512-byte buffers: {db:?}"
    );
    assert_eq!(da.tx_frames + db.tx_frames, frames as u64);
    assert_eq!(db.rx_frames, da.tx_frames);
    assert_eq!(
        rs.errors + rs.ip_checksum_errors + rs.payload_checksum_errors,
        0
    );
}

/// TCP between two QoS models over a wire that drops (5 %), corrupts (5 %) and reorders
/// (5 %) frames each way: every byte still arrives, in order; B's RX checksum offload drops
/// the corrupted segments that reach it.
#[test]
fn smoltcp_tcp_between_two_qos_macs_over_a_lossy_wire() {
    let data = pattern(100_000, 0x0BAD_F00D);
    let wires = (LossyWire::new(3, 5, 5, 5), LossyWire::new(5, 5, 5, 5));
    let (got, _, da, db, rs) = transfer(&data, Some(wires), 1_000_000);
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    assert!(
        db.rx_frames < da.tx_frames,
        "frames were lost: {da:?} {db:?}"
    );
    assert!(
        rs.ip_checksum_errors + rs.payload_checksum_errors > 0,
        "{rs:?}"
    );
}

struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
type Timer = QueueTimer<'static, hwtimer_core::sim::SimClockEvent, HrBase, 4>;

#[test]
fn embassy_net_tokens_and_wakers_on_the_4x_mac() {
    // tx_frames 0: no IOC, the cleanup timer (1000 µs, armed once) is the only TX completion.
    let cfg = CoalesceConfig {
        tx_frames: 0,
        tx_usecs: 1_000,
        ..stmmac_coalesce::sim::seed::SEED
    };
    let Rig {
        clock,
        bus,
        mac,
        timers,
        tx,
        rx,
        ..
    } = Rig::<HrBase, Bus4>::hrtimer_on(cfg, TimerStrategy::ArmOnce, 100_000).unwrap();
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    mac.set_link(stmmac_coalesce::LinkState::DOWN);
    let state: NetState<Timer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let woken = || count.0.load(Ordering::SeqCst);
    let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
    assert!(drv.link_state(&mut cx) == LinkState::Down);
    assert!(drv.transmit(&mut cx).is_none());
    state.set_link(
        &mac,
        stmmac_coalesce::LinkState::up(Speed::M1000, Duplex::Full),
    );
    assert!(woken() >= 1, "link change wakes");
    assert!(drv.link_state(&mut cx) == LinkState::Up);
    // Fill the ring (N − 1 on QoS: 255 of the rig's 256) while the TX DMA lags 100 us
    // behind (a token finding the ring full reclaims what the DMA completed, here nothing);
    // then the DMA sends them all: no IOC, no wake.
    let w0 = woken();
    let mut sent = 0;
    while let Some(t) = drv.transmit(&mut cx) {
        t.consume(60, |b| b.fill(sent as u8));
        sent += 1;
        assert!(sent <= 1024, "the ring must fill");
    }
    assert_eq!(sent, 255);
    clock.advance_to(clock.now_ns() + 400_000);
    bus.model(|m| m.sync(clock.now_ns()));
    assert_eq!(bus.model(|m| m.sent().len()), 255);
    assert_eq!(woken(), w0, "nothing freed yet");
    // The cleanup timer expires tx_usecs after the first frame, never before: it
    // reclaims and wakes.
    let id = state.with_tx(|t| t.timer().id()).unwrap();
    let deadline = timers.deadline(id).unwrap();
    let tick_ns = 1_000_000_000 / u64::from(timers.freq_hz().unwrap());
    clock.advance_to((deadline - 1) * tick_ns);
    timers
        .on_interrupt(|_, now| state.on_tx_timer(&mac, now))
        .unwrap();
    assert_eq!(woken(), w0, "not before tx_usecs");
    clock.advance_to((deadline + 10) * tick_ns);
    let fired = timers.on_interrupt(|_, now| state.on_tx_timer(&mac, now));
    assert_eq!(fired, Ok(1));
    assert_eq!(state.with_tx(|t| t.pending()), Some(0));
    assert!(woken() > w0, "the timer's reclaim wakes the transmit side");
    assert!(drv.transmit(&mut cx).is_some());
    // RX: a frame arrives, the DMA interrupt (RI through the channel status) wakes the
    // receive side, and the token holds the frame.
    let w1 = woken();
    assert!(drv.receive(&mut cx).is_none());
    let frame = eth_frame(MAC, 300, 0x3C);
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    let ev = Dwmac::take_events(&mac);
    assert!(ev.rx_ready(), "{ev:?}");
    state.on_dma_interrupt(&mac, ev);
    assert!(woken() > w1, "RI wakes the runner");
    let (rxt, _txt) = drv.receive(&mut cx).expect("the frame");
    assert_eq!(rxt.consume(|b| b.to_vec()), frame);
}
