//! smoltcp over the driver: tokens on the GMAC 3.x model, and two modelled DWMACs of either
//! generation wired back to back with TCP between them in virtual time (on QoS one of them
//! above 4 GiB), every byte checked, checksum offload reported to the stack and done by the
//! model, RX buffers of 512 bytes so that full-size segments span descriptors.

use super::nic::{Nic, NicConfig, Wired, nic, take_sent};
use super::stack;
use crate::harness::*;
use hwtimer_core::RegisterBus as _;
use hwtimer_core::sim::SimClock;

use smoltcp::phy::{Device as _, Medium, RxToken as _, TxToken as _};
use smoltcp::time::Instant;
use stack::{LossyWire, pattern};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::net::Measured;
use stmmac_coalesce::sim::{SimArena, eth_frame};
use stmmac_coalesce::smoltcp::{Device, DeviceStats};
use stmmac_coalesce::{Duplex, LinkState, RxStats, Speed};

/// A started GMAC 3.x with `tx_n` TX descriptors (IC every 4th frame, no timer: the tests
/// reclaim) and `rx_n` RX descriptors of `rx_buf` bytes, no checksum offload.
fn nic3(
    clock: &SimClock,
    base: u32,
    last: u8,
    tx_n: usize,
    rx_n: usize,
    rx_buf: usize,
) -> Nic<OnGmac3> {
    nic::<OnGmac3>(
        clock,
        SimArena::new(base, 1 << 20),
        |m| m,
        [0x02, 0, 0, 0, 0, last],
        NicConfig {
            tx_descriptors: tx_n,
            tx_frames: tx_n.min(4) as u32,
            rx_descriptors: rx_n,
            rx_buf,
            offload: false,
        },
    )
}

#[test]
fn capabilities_and_tokens() {
    let clock = SimClock::new();
    let mut n = nic3(&clock, 0x1000_0000, 1, 2, 4, 512);
    let mut scratch = vec![0u8; 1518];
    let mut dev = Device::new(&n.mac, &mut n.tx, &mut n.rx, &mut scratch);
    let caps = dev.capabilities();
    assert_eq!(caps.medium, Medium::Ethernet);
    // smoltcp's MTU: the frame without FCS, untagged (IP MTU 1500 + 14), though the RX
    // ring takes a tagged 1518.
    assert_eq!(caps.max_transmission_unit, 1514);
    assert_eq!(caps.max_burst_size, None);
    let now = Instant::ZERO;
    assert!(dev.receive(now).is_none(), "nothing received yet");
    for i in 0..2u8 {
        let t = dev.transmit(now).expect("a free descriptor");
        t.consume(60, |b| b.fill(i));
    }
    assert_eq!(dev.stats().tx_frames, 2);
    // The in-flight limit holds transmit() back while frames wait to be reclaimed (the
    // model's TX DMA stalled: nothing completes).
    n.bus.model(|m| m.set_tx_stall(clock.now_ns(), true));
    dev.set_inflight_limit(1);
    dev.tx().reclaim();
    let t = dev.transmit(now).expect("both reclaimed: under the limit");
    t.consume(60, |b| b.fill(2));
    assert!(dev.transmit(now).is_none(), "one in flight = the limit");
    assert_eq!(dev.stats().tx_inflight_limited, 1);
    dev.set_inflight_limit(1);
    n.bus.model(|m| m.set_tx_stall(clock.now_ns(), false));
    n.bus.write_word(0x1004, 1); // TX poll demand: the stalled frame goes
    assert!(dev.transmit(now).is_none(), "sent, but not reclaimed yet");
    assert_eq!(dev.tx().reclaim(), 1);
    let t = dev.transmit(now).expect("reclaimed frames do not count");
    t.consume(60, |b| b.fill(3));
    // A dropped token sends nothing.
    dev.set_inflight_limit(0);
    let sent_before = n.bus.model(|m| m.sent().len());
    let unused = dev.transmit(now).unwrap();
    let _ = &unused;
    assert_eq!(n.bus.model(|m| m.sent().len()), sent_before);
    // Link down: no token.
    n.mac.set_link(LinkState::DOWN);
    assert!(dev.transmit(now).is_none());
    assert_eq!(dev.stats().tx_link_down, 1);
    n.mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    let sent = n.bus.model(|m| m.sent().to_vec());
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[1].bytes, vec![1u8; 60]);

    // RX: a short frame is lent from its DMA buffer; a long one spans 512-byte buffers and
    // is copied once.
    let short = eth_frame(n.addr, 100, 7);
    let long = eth_frame(n.addr, 1400, 9);
    n.bus.model(|m| {
        m.inject(clock.now_ns(), &short);
        m.inject(clock.now_ns(), &long);
    });
    let (rx, _tx) = dev.receive(now).expect("a frame");
    assert_eq!(rx.consume(|b| b.to_vec()), short);
    let (rx, _tx) = dev.receive(now).expect("the spanning frame");
    assert_eq!(rx.consume(|b| b.to_vec()), long);
    assert!(dev.receive(now).is_none());
    let st = dev.stats();
    assert_eq!((st.rx_frames, st.rx_copied), (2, 1));
}

#[test]
fn a_full_ring_gives_no_token_until_reclaimed() {
    let clock = SimClock::new();
    let mut n = nic3(&clock, 0x1000_0000, 1, 2, 2, 1536);
    // Stall the model's TX DMA: descriptors stay owned.
    n.bus.model(|m| m.set_tx_stall(clock.now_ns(), true));
    let mut scratch = vec![0u8; 1518];
    let mut dev = Device::new(&n.mac, &mut n.tx, &mut n.rx, &mut scratch);
    for _ in 0..2 {
        dev.transmit(Instant::ZERO)
            .expect("free")
            .consume(60, |b| b.fill(1));
    }
    assert!(dev.transmit(Instant::ZERO).is_none(), "ring full");
    assert_eq!(dev.stats().tx_ring_full, 1);
    // A received frame is not taken while its reply could not be sent.
    n.bus
        .model(|m| m.inject(clock.now_ns(), &eth_frame(n.addr, 64, 1)));
    assert!(dev.receive(Instant::ZERO).is_none());
    n.bus.model(|m| m.set_tx_stall(clock.now_ns(), false));
    n.bus.write_word(0x1004, 1); // TX poll demand
    assert!(
        dev.transmit(Instant::ZERO).is_some(),
        "reclaimed by reserve"
    );
    assert!(dev.receive(Instant::ZERO).is_some());
}

/// Measurement wraps the device: here the MAC's MMIO accesses (reads + writes) through a
/// closure as the probe. The wrapper counts what the device's paths do on the bus, empty
/// polls included (the RX poll demand for given-back descriptors is issued in the empty
/// `receive()`), and the stack's closures apart; the device's own statistics count frames.
#[test]
fn measured_counts_driver_spans_and_empty_polls() {
    let clock = SimClock::new();
    let mut n = nic3(&clock, 0x1000_0000, 1, 4, 4, 1536);
    let bus = n.bus.clone();
    let mmio = move || {
        let s = bus.stats();
        s.reads + s.writes
    };
    let mut scratch = vec![0u8; 1518];
    let now = Instant::ZERO;
    let mut dev = Measured::new(
        Device::new(&n.mac, &mut n.tx, &mut n.rx, &mut scratch),
        mmio,
    );
    assert_eq!(dev.probe_cost(), 0, "reading the counter makes no access");
    assert!(dev.receive(now).is_none());
    let st = dev.stats();
    assert_eq!((st.rx_empty_polls, st.rx_empty_units), (1, 0));
    dev.transmit(now).unwrap().consume(60, |b| b.fill(1));
    let st = dev.stats();
    assert_eq!(st.tx_frames, 1);
    assert!(st.tx_driver_units >= 1, "the doorbell: {st:?}");
    assert_eq!(
        st.tx_driver_units, st.tx_token_units,
        "the fill makes no access"
    );
    // A stack closure that touches the bus is counted in the token, not in the driver.
    let bus = n.bus.clone();
    dev.transmit(now).unwrap().consume(60, |b| {
        bus.read_word(0x1014); // one access inside the stack's share
        b.fill(2)
    });
    let st2 = dev.stats();
    assert_eq!(
        st2.tx_token_units - st.tx_token_units,
        st2.tx_driver_units - st.tx_driver_units + 1
    );
    n.bus
        .model(|m| m.inject(clock.now_ns(), &eth_frame(n.addr, 100, 3)));
    let (rx, _reply) = dev.receive(now).expect("a frame");
    rx.consume(|b| assert_eq!(b.len(), 100));
    // The frame's descriptor went back: the next empty poll issues the RX poll demand,
    // one MMIO write.
    assert!(dev.receive(now).is_none());
    let st = dev.stats();
    assert_eq!((st.rx_frames, st.rx_empty_polls), (1, 2));
    assert_eq!(st.rx_empty_units, 1, "{st:?}");
    // Nothing given back since: an empty poll without a demand.
    assert!(dev.receive(now).is_none());
    assert_eq!(dev.stats().rx_empty_units, 1);
    // Link down: an empty transmit(), counted, without MMIO.
    n.mac.set_link(LinkState::DOWN);
    assert!(dev.transmit(now).is_none());
    let st = dev.stats();
    assert_eq!((st.tx_empty_polls, st.tx_empty_units), (1, 0));
    let d = dev.inner().stats();
    assert_eq!((d.tx_frames, d.rx_frames, d.tx_link_down), (2, 1, 1));
}

/// What [`transfer`] reports: the bytes B received, the frames carried, both devices'
/// counters and B's RX ring's.
type Transfer = (Vec<u8>, usize, DeviceStats, DeviceStats, RxStats);

/// TCP of `data` between two models of `G` (B's DMA in its far arena: above 4 GiB on QoS;
/// 8 TX descriptors with IC every 4th frame, 32 RX buffers of 512 bytes so that full-size
/// segments span descriptors, checksum offload on) over `lossy` or a perfect wire; rounds
/// that move nothing are `idle_ns` long.
fn transfer<G: Wired>(
    data: &[u8],
    mut lossy: Option<(LossyWire, LossyWire)>,
    idle_ns: u64,
) -> Transfer {
    let clock = SimClock::new();
    let cfg = || NicConfig {
        tx_descriptors: 8,
        tx_frames: 4,
        rx_descriptors: 32,
        rx_buf: 512,
        offload: true,
    };
    let mut a = nic::<G>(
        &clock,
        SimArena::new(0x1000_0000, 1 << 20),
        |m| m,
        [0x02, 0, 0, 0, 0, 1],
        cfg(),
    );
    let (far, far_model) = G::far_arena();
    let mut b = nic::<G>(&clock, far, far_model, [0x02, 0, 0, 0, 0, 2], cfg());
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

/// TCP between two models (on QoS one of them above 4 GiB), every byte checked.
fn tcp_between_two_modelled_macs_delivers_every_byte<G: Wired>() {
    let data = pattern(200_000, 0x1234_5678);
    let (got, frames, da, db, rx) = transfer::<G>(&data, None, 10_000);
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    assert_eq!(
        da.tx_errors + db.tx_errors + da.rx_too_long + db.rx_too_long,
        0
    );
    // 200 kB in MSS-sized segments: at least 137 data frames, all through the rings, and
    // every full-size segment spanned 512-byte RX buffers (copied once on B).
    assert!(da.tx_frames >= 137, "{da:?}");
    assert!(db.rx_copied >= 137, "{db:?}");
    assert_eq!(da.tx_frames + db.tx_frames, frames as u64);
    assert_eq!(da.rx_frames, db.tx_frames);
    assert_eq!(db.rx_frames, da.tx_frames);
    assert_eq!(
        rx.errors + rx.ip_checksum_errors + rx.payload_checksum_errors,
        0
    );
}

/// TCP between two models over a wire that drops (5 %), corrupts (5 %) and reorders (5 %)
/// frames each way: every byte still arrives, in order; B's RX checksum offload drops the
/// corrupted segments that reach it.
fn tcp_between_two_modelled_macs_over_a_lossy_wire<G: Wired>() {
    for (data, wires) in [
        (
            pattern(100_000, 0x0BAD_5EED),
            (LossyWire::new(7, 5, 5, 5), LossyWire::new(11, 5, 5, 5)),
        ),
        (
            pattern(100_000, 0x0BAD_F00D),
            (LossyWire::new(3, 5, 5, 5), LossyWire::new(5, 5, 5, 5)),
        ),
    ] {
        let (got, _, da, db, rs) = transfer::<G>(&data, Some(wires), 1_000_000);
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
}

on_both!(
    tcp_between_two_modelled_macs_delivers_every_byte,
    tcp_between_two_modelled_macs_over_a_lossy_wire,
);

/// smoltcp's own `FaultInjector` around each device (RX drops and corruption, TX drops)
/// between two 3.x models: every byte still arrives, in order.
#[test]
fn tcp_between_two_modelled_macs_through_smoltcps_fault_injector() {
    use smoltcp::phy::FaultInjector;
    let clock = SimClock::new();
    let mut a = nic3(&clock, 0x1000_0000, 1, 8, 32, 512);
    let mut b = nic3(&clock, 0x2000_0000, 2, 8, 32, 512);
    let (bus_a, bus_b) = (a.bus.clone(), b.bus.clone());
    let (addr_a, addr_b) = (a.addr, b.addr);
    let (mut sa, mut sb) = (vec![0u8; 1518], vec![0u8; 1518]);
    let mut dev_a = FaultInjector::new(Device::new(&a.mac, &mut a.tx, &mut a.rx, &mut sa), 1);
    let mut dev_b = FaultInjector::new(Device::new(&b.mac, &mut b.tx, &mut b.rx, &mut sb), 2);
    for d in [&mut dev_a, &mut dev_b] {
        d.set_drop_chance(3);
        d.set_corrupt_chance(3);
    }
    let data = pattern(60_000, 0x5EED_0002);
    let (got, _) = stack::tcp_transfer_idle(
        &clock,
        (&mut dev_a, addr_a),
        (&mut dev_b, addr_b),
        &data,
        1_000_000,
        |_, _| {
            let now = clock.now_ns();
            stack::carry_both(
                &mut None,
                (take_sent(&bus_a), |f: &[u8]| {
                    bus_a.model(|m| m.inject(now, f))
                }),
                (take_sent(&bus_b), |f: &[u8]| {
                    bus_b.model(|m| m.inject(now, f))
                }),
            )
        },
    );
    let (ia, ib) = (dev_a.into_inner(), dev_b.into_inner());
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    // Frames went through the rings on both sides (some of them never reached the stack).
    let (da, db) = (ia.stats(), ib.stats());
    assert!(db.rx_frames > 40 && da.rx_frames > 10, "{da:?} {db:?}");
}
