//! smoltcp over the driver: two modelled DWMACs wired back to back, TCP between them in
//! virtual time, every byte checked.

use hwtimer_core::sim::{SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use smoltcp::iface::{Config, Interface, SocketSet, SocketStorage};
use smoltcp::phy::{Device as _, Medium, RxToken as _, TxToken as _};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Address};
use stmmac_coalesce::regs::desc::RDES0_ES;
use stmmac_coalesce::sim::{DwmacModel, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::smoltcp::{Device, ETHERNET_MTU, NoTimer};
use stmmac_coalesce::{CoalesceConfig, Dwmac, RxRing, TimerStrategy, TxRing};

type Mac = Dwmac<SimBus<DwmacModel<PhyModel>>>;

struct Nic {
    mac: Mac,
    tx: TxRing<SimArena>,
    rx: RxRing<SimArena>,
}

fn nic(clock: &SimClock, base: u32, tx_n: usize, rx_n: usize) -> Nic {
    let arena = SimArena::new(base, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap());
    let mac = Dwmac::new(SimBus::new(
        clock,
        DwmacModel::new(arena.clone(), phy, SIM_CSR_HZ),
    ));
    let cfg = CoalesceConfig {
        tx_frames: 4,
        tx_usecs: 0,
        ..CoalesceConfig::default()
    };
    let tx = TxRing::new(
        arena.tx_descs(tx_n).unwrap(),
        arena.buffers(tx_n).unwrap(),
        arena.clone(),
        cfg,
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    let rx = RxRing::new(
        arena.rx_descs(rx_n).unwrap(),
        arena.buffers(rx_n).unwrap(),
        arena.clone(),
        false,
    )
    .unwrap();
    mac.set_ring_bases(tx.base(), rx.base());
    mac.start();
    Nic { mac, tx, rx }
}

/// Deterministic bytes (xorshift32).
fn pattern(n: usize, mut seed: u32) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as u8
        })
        .collect()
}

fn iface(
    dev: &mut impl smoltcp::phy::Device,
    mac: [u8; 6],
    ip: [u8; 4],
    now: Instant,
) -> Interface {
    let cfg = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
    let mut iface = Interface::new(cfg, dev, now);
    iface.update_ip_addrs(|a| {
        a.push(IpCidr::new(
            IpAddress::Ipv4(Ipv4Address::new(ip[0], ip[1], ip[2], ip[3])),
            24,
        ))
        .unwrap();
    });
    iface
}

#[test]
fn capabilities_and_tokens() {
    let clock = SimClock::new();
    let mut n = nic(&clock, 0x1000_0000, 2, 2);
    let mut dev = Device::new(&n.mac, &mut n.tx, &mut n.rx, NoTimer);
    let caps = dev.capabilities();
    assert_eq!(caps.medium, Medium::Ethernet);
    assert_eq!(caps.max_transmission_unit, ETHERNET_MTU);
    assert_eq!(caps.max_burst_size, Some(1));
    let now = Instant::ZERO;
    assert!(dev.receive(now).is_none(), "nothing received yet");
    // Two descriptors: two tokens, then none until reclaimed (QEMU-style synchronous TX,
    // but the descriptors wait for the reclaim).
    for i in 0..2u8 {
        let t = dev.transmit(now).expect("a free descriptor");
        t.consume(60, |b| b.fill(i));
    }
    assert!(dev.transmit(now).is_none(), "ring full: no token");
    assert_eq!(dev.stats().tx_ring_full, 1);
    assert_eq!(dev.tx().reclaim(), 2);
    dev.set_link_up(false);
    assert!(dev.transmit(now).is_none(), "link down: no token");
    assert_eq!(dev.stats().tx_link_down, 1);
    dev.set_link_up(true);
    // A dropped token sends nothing and keeps its descriptor free.
    let _unused = dev.transmit(now).unwrap();
    assert_eq!(dev.tx().pending(), 0);
    assert_eq!(dev.stats().tx_frames, 2);
    let sent = n.mac.bus().model(|m| m.sent().to_vec());
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].bytes, vec![1u8; 60]);

    // RX: an injected frame comes out of one token, lent from the DMA buffer.
    n.mac
        .bus()
        .model(|m| m.inject(clock.now_ns(), &pattern(100, 7)));
    let mut dev = Device::new(&n.mac, &mut n.tx, &mut n.rx, NoTimer);
    let (rx, _tx) = dev.receive(now).expect("a frame");
    let got = rx.consume(|b| b.to_vec());
    assert_eq!(got, pattern(100, 7));
    assert!(dev.receive(now).is_none());
    assert_eq!(dev.stats().rx_frames, 1);
}

#[test]
fn errored_frames_never_reach_smoltcp() {
    let clock = SimClock::new();
    let mut n = nic(&clock, 0x1000_0000, 2, 4);
    // 2000 bytes do not fit a 1536-byte buffer: the model truncates and sets ES.
    n.mac.bus().model(|m| {
        m.inject(clock.now_ns(), &pattern(2000, 1));
        m.inject(clock.now_ns(), &pattern(64, 2));
    });
    assert_ne!(n.rx.desc(0).unwrap().word(0) & RDES0_ES, 0);
    let mut dev = Device::new(&n.mac, &mut n.tx, &mut n.rx, NoTimer);
    let (rx, _) = dev.receive(Instant::ZERO).expect("the good frame");
    assert_eq!(rx.consume(|b| b.to_vec()), pattern(64, 2));
    let st = dev.stats();
    assert_eq!((st.rx_errors, st.rx_frames), (1, 1));
}

/// Moves every frame one MAC sent into the other's RX DMA.
fn wire(clock: &SimClock, from: &Mac, to: &Mac) -> usize {
    let frames = from.bus().model(|m| {
        let f: Vec<Vec<u8>> = m.sent().iter().map(|s| s.bytes.clone()).collect();
        m.clear_sent();
        f
    });
    for f in &frames {
        to.bus().model(|m| m.inject(clock.now_ns(), f));
    }
    frames.len()
}

#[test]
fn tcp_between_two_modelled_macs_delivers_every_byte() {
    let clock = SimClock::new();
    let mut a = nic(&clock, 0x1000_0000, 8, 8);
    let mut b = nic(&clock, 0x2000_0000, 8, 8);
    let now = || Instant::from_micros((clock_now(&clock) / 1000) as i64);
    let mut dev_a = Device::new(&a.mac, &mut a.tx, &mut a.rx, NoTimer);
    let mut dev_b = Device::new(&b.mac, &mut b.tx, &mut b.rx, NoTimer);
    let mut if_a = iface(&mut dev_a, [2, 0, 0, 0, 0, 1], [10, 0, 2, 1], now());
    let mut if_b = iface(&mut dev_b, [2, 0, 0, 0, 0, 2], [10, 0, 2, 2], now());

    let mut store_a = [SocketStorage::EMPTY];
    let mut store_b = [SocketStorage::EMPTY];
    let mut set_a = SocketSet::new(&mut store_a[..]);
    let mut set_b = SocketSet::new(&mut store_b[..]);
    let sock = |n: usize| {
        let buf = || tcp::SocketBuffer::new(&mut Vec::leak(vec![0u8; n])[..]);
        tcp::Socket::new(buf(), buf())
    };
    let ha = set_a.add(sock(8192));
    let hb = set_b.add(sock(8192));
    set_b.get_mut::<tcp::Socket>(hb).listen(7).unwrap();
    set_a
        .get_mut::<tcp::Socket>(ha)
        .connect(if_a.context(), (Ipv4Address::new(10, 0, 2, 2), 7), 49152)
        .unwrap();

    let data = pattern(200_000, 0x1234_5678);
    let (mut sent, mut got) = (0usize, Vec::new());
    let mut frames = 0;
    for _ in 0..200_000 {
        if_a.poll(now(), &mut dev_a, &mut set_a);
        if_b.poll(now(), &mut dev_b, &mut set_b);
        frames += wire(&clock, a_mac(&dev_a), b_mac(&dev_b));
        frames += wire(&clock, b_mac(&dev_b), a_mac(&dev_a));
        dev_a.tx().reclaim();
        dev_b.tx().reclaim();
        let s = set_a.get_mut::<tcp::Socket>(ha);
        if s.can_send() && sent < data.len() {
            sent += s.send_slice(&data[sent..]).unwrap();
        }
        let r = set_b.get_mut::<tcp::Socket>(hb);
        if r.can_recv() {
            r.recv(|buf| {
                got.extend_from_slice(buf);
                (buf.len(), ())
            })
            .unwrap();
        }
        if got.len() == data.len() {
            break;
        }
        clock.advance(10_000);
    }
    assert_eq!(got.len(), data.len(), "all bytes arrived");
    assert!(got == data, "every byte as sent");
    let (sa, sb) = (dev_a.stats(), dev_b.stats());
    assert_eq!(sa.tx_errors + sb.tx_errors + sa.rx_errors + sb.rx_errors, 0);
    // 200 kB in MSS-sized segments: at least 137 data frames, all through the rings.
    assert!(sa.tx_frames >= 137, "{sa:?}");
    assert_eq!(sa.tx_frames + sb.tx_frames, frames as u64);
    assert_eq!(sa.rx_frames, sb.tx_frames);
}

fn clock_now(c: &SimClock) -> u64 {
    c.now_ns()
}

fn a_mac<'r>(d: &Device<'r, SimArena, SimBus<DwmacModel<PhyModel>>, NoTimer>) -> &'r Mac {
    d.mac()
}

fn b_mac<'r>(d: &Device<'r, SimArena, SimBus<DwmacModel<PhyModel>>, NoTimer>) -> &'r Mac {
    d.mac()
}
