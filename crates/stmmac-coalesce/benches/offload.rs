//! Host instructions per frame through smoltcp on the driver and the model, with checksum
//! offload on and off (the README's offload section): callgrind counts (`bench_support::instr`), the
//! difference being the checksum work the stack no longer does.
//!
//! - TX: one 1024-byte UDP datagram per frame to the broadcast address (no ARP), sent by
//!   `Interface::poll` through the device, then reclaimed.
//! - RX: one 1024-byte UDP datagram per frame injected into the model, taken by
//!   `Interface::poll` through the device, read from the socket.
//!
//! The model's checksum engines are switched to "free" (`set_checksum_work(false)`): on a
//! DWMAC they run in the MAC, not on the CPU, so the model must not count their work as the
//! CPU's. Everything else (the model's DMA walk, the socket, smoltcp's parsing) is counted in
//! both figures alike. Prints `bench: stmmac-coalesce/offload_{tx,rx}_insns_per_frame_{on,off}`.

use bench_support::{Printer, instr};
use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet, SocketStorage};
use smoltcp::phy::Device as _;
use smoltcp::socket::udp;
use smoltcp::time::Instant;
use smoltcp::wire::{
    EthernetAddress, EthernetFrame, EthernetProtocol, HardwareAddress, IpAddress, IpCidr,
    IpProtocol, Ipv4Address, Ipv4Packet, UdpPacket,
};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::smoltcp::Device;
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Duplex, FrameFilter, Gmac3, LinkState, MacConfig, NoTimer,
    Offload, RxConfig, RxRing, Speed, TimerStrategy, TxConfig, TxRing, ring_bytes,
};

const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));
const PAYLOAD: usize = 1024;
const US: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0F];
const OUR_IP: Ipv4Address = Ipv4Address::new(10, 0, 2, 15);
const PEER_IP: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);

fn fail(what: &str, e: impl std::fmt::Debug) -> ! {
    eprintln!("{what} failed: {e:?}");
    std::process::exit(1);
}

type Bus = SimBus<Gmac3Model<PhyModel>>;

struct Nic {
    clock: SimClock,
    bus: Bus,
    mac: Gmac3<Bus>,
    tx: TxRing,
    rx: RxRing,
}

fn nic(offload: bool) -> Nic {
    let clock = SimClock::new();
    let arena = SimArena::new(0x1000_0000, 1 << 20);
    let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap_or_else(|| fail("phy", "addr")));
    let bus = SimBus::new(&clock, Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ));
    bus.model(|m| m.set_checksum_work(false));
    let mac = Gmac3::new(bus.clone());
    mac.soft_reset(&SimCounter::new(&clock, 32, 25_000_000))
        .unwrap_or_else(|e| fail("reset", e));
    let setup = mac
        .configure_dma(&DmaConfig {
            csr_hz: SIM_CSR_HZ,
            ..DmaConfig::default()
        })
        .unwrap_or_else(|e| fail("dma", e));
    mac.init_mac(&MacConfig {
        address: US,
        filter: FrameFilter::default(),
    });
    let tx_cfg = TxConfig {
        descriptors: 8,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames: 4,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let rx_cfg = RxConfig {
        descriptors: 16,
        buf_size: 1536,
        ..RxConfig::default()
    };
    let tx_mem = arena
        .region(ring_bytes(8, 1536, 16))
        .unwrap_or_else(|| fail("tx mem", "arena"));
    let rx_mem = arena
        .region(ring_bytes(16, 1536, 16))
        .unwrap_or_else(|| fail("rx mem", "arena"));
    let mut tx = TxRing::new(tx_mem, &arena, &setup, tx_cfg, NoTimer, Coherent)
        .unwrap_or_else(|e| fail("tx", e));
    let mut rx =
        RxRing::new(rx_mem, &arena, &setup, rx_cfg, Coherent).unwrap_or_else(|e| fail("rx", e));
    let mode = if offload {
        Offload::IfDetected
    } else {
        Offload::Off
    };
    if tx.set_checksum_offload(mode) != offload {
        fail("tx offload", "not as asked");
    }
    rx.set_checksum_offload(mode);
    tx.start(&mac);
    rx.start(&mac);
    if rx.checksum_offload() != offload {
        fail("rx offload", "not as asked");
    }
    mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    Nic {
        clock,
        bus,
        mac,
        tx,
        rx,
    }
}

/// A UDP datagram from the peer to us, checksums filled in.
fn datagram() -> Vec<u8> {
    let l4 = 8 + PAYLOAD;
    let mut f = vec![0u8; 14 + 20 + l4];
    let mut eth = EthernetFrame::new_unchecked(&mut f[..]);
    eth.set_dst_addr(EthernetAddress(US));
    eth.set_src_addr(EthernetAddress([0x02, 0, 0, 0, 0, 2]));
    eth.set_ethertype(EthernetProtocol::Ipv4);
    let mut ip = Ipv4Packet::new_unchecked(&mut f[14..]);
    ip.set_version(4);
    ip.set_header_len(20);
    ip.set_total_len((20 + l4) as u16);
    ip.set_hop_limit(64);
    ip.set_next_header(IpProtocol::Udp);
    ip.set_src_addr(PEER_IP);
    ip.set_dst_addr(OUR_IP);
    ip.set_dont_frag(true);
    ip.fill_checksum();
    let mut u = UdpPacket::new_unchecked(&mut f[34..]);
    u.set_src_port(5000);
    u.set_dst_port(7);
    u.set_len(l4 as u16);
    for (i, b) in u.payload_mut().iter_mut().enumerate() {
        *b = (i * 13) as u8;
    }
    u.fill_checksum(&IpAddress::Ipv4(PEER_IP), &IpAddress::Ipv4(OUR_IP));
    f
}

fn run(op: &str, n: u64) -> u64 {
    let offload = op.ends_with("_on");
    let rx_side = op.starts_with("rx");
    let mut nic = nic(offload);
    let Nic {
        clock,
        bus,
        mac,
        tx,
        rx,
    } = &mut nic;
    let mut scratch = vec![0u8; 1518];
    let mut dev = Device::new(mac, tx, rx, &mut scratch);
    let now = || Instant::from_micros((clock.now_ns() / 1000) as i64);
    let mut iface = Interface::new(
        Config::new(HardwareAddress::Ethernet(EthernetAddress(US))),
        &mut dev,
        now(),
    );
    iface.update_ip_addrs(|a| {
        let _ = a.push(IpCidr::new(IpAddress::Ipv4(OUR_IP), 24));
    });
    let mut storage = [SocketStorage::EMPTY];
    let mut set = SocketSet::new(&mut storage[..]);
    let buf = || {
        udp::PacketBuffer::new(
            &mut Vec::leak(vec![udp::PacketMetadata::EMPTY; 4])[..],
            &mut Vec::leak(vec![0u8; 4 * (PAYLOAD + 64)])[..],
        )
    };
    let h: SocketHandle = set.add(udp::Socket::new(buf(), buf()));
    set.get_mut::<udp::Socket>(h)
        .bind(7)
        .unwrap_or_else(|e| fail("bind", e));
    let frame = datagram();
    let payload: Vec<u8> = (0..PAYLOAD).map(|i| (i * 13) as u8).collect();
    let dst = (IpAddress::Ipv4(Ipv4Address::new(10, 0, 2, 255)), 5000);
    let mut got = 0u64;
    let mut rxbuf = vec![0u8; PAYLOAD];
    // One frame of each kind before counting starts (caches, the ARP-free path).
    for _ in 0..n + 1 {
        if rx_side {
            bus.model(|m| m.inject(clock.now_ns(), &frame));
            iface.poll(now(), &mut dev, &mut set);
            if let Ok((len, _)) = set.get_mut::<udp::Socket>(h).recv_slice(&mut rxbuf) {
                got += u64::from(len == PAYLOAD);
            }
        } else {
            set.get_mut::<udp::Socket>(h)
                .send_slice(&payload, dst)
                .unwrap_or_else(|e| fail("send", e));
            iface.poll(now(), &mut dev, &mut set);
            dev.tx().reclaim();
            got += bus.model(|m| {
                let k = m.sent().len() as u64;
                m.clear_sent();
                k
            });
        }
        clock.advance(10_000);
    }
    let _ = dev.capabilities();
    got
}

fn main() {
    if let Some((op, n)) = instr::child() {
        let got = run(&op, n);
        if got != n + 1 {
            fail(&op, format!("{got} frames of {}", n + 1));
        }
        return;
    }
    println!(
        "# checksum offload: host instructions per 1024-byte UDP frame through smoltcp on the \
         driver and the model (engines free), callgrind"
    );
    // Sanity outside valgrind: each op moves every frame.
    for op in ["tx_off", "tx_on", "rx_off", "rx_on"] {
        if run(op, 10) != 11 {
            fail(op, "frames lost");
        }
    }
    for dir in ["tx", "rx"] {
        for state in ["on", "off"] {
            let op = format!("{dir}_{state}");
            match instr::per_op(&op, 1_000) {
                Some(i) => OUT.figure(
                    &format!("offload_{dir}_insns_per_frame_{state}"),
                    format!("{i:.0}"),
                    "instructions",
                ),
                None => println!("# {op}: valgrind not available, instruction count skipped"),
            }
        }
    }
}
