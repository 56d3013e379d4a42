//! The managed switch, end to end on the models: a 6352 whose CPU port (5) is the wire of a
//! DWMAC, the DWMAC's MDIO master reaching the switch, and firmware on top
//! (`family_tests::firmware`) that brings the switch up over MDIO, receives from the
//! DWMAC's RX ring, reads the EDSA tags with `mv88e6xxx_smi::dsa`, and runs smoltcp on the
//! management VLAN. Hosts on the user ports send frames in and log what they receive.

use family_tests::firmware::{ETH_P_LLDP, Firmware, FwConfig, LLDP_DA, lldp_frame};
use family_tests::host_nic::HostNic;
use family_tests::switch_board::{ETH_ZLEN, SwitchBoard, WireFrame};
use family_tests::{MacBus, managed_switch_board, managed_switch_board_unplugged};
use hwtimer_core::sim::SimCounter;
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::dsa::{Tag, TagFormat, TagVlan, TrapCode};
use smoltcp::iface::{Config, Interface, SocketSet, SocketStorage};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Address};
use stmmac_coalesce::{CoalesceConfig, RxConfig, TimerStrategy, TxConfig};

type Fw<'a> = Firmware<'a, MacBus, &'a SimCounter>;

/// Virtual time per turn of the firmware's loop.
const TURN_NS: u64 = 10_000;

fn now(board: &SwitchBoard) -> Instant {
    Instant::from_micros((board.now() / 1000) as i64)
}

/// The firmware brought up on `board` with [`FwConfig::demo`]: 16 descriptors each way,
/// IC on every TX frame.
fn bring_up(board: &SwitchBoard) -> Fw<'_> {
    bring_up_with(board, FwConfig::demo())
}

/// [`bring_up`] with `cfg`.
fn bring_up_with(board: &SwitchBoard, cfg: FwConfig) -> Fw<'_> {
    let tx = TxConfig {
        descriptors: 16,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames: 1,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    };
    let rx = RxConfig {
        descriptors: 16,
        buf_size: 1536,
        ..RxConfig::default()
    };
    let (tx, rx) = board.rings(tx, rx);
    let t = now(board);
    let fw = Firmware::bring_up(&board.mac, &board.counter, tx, rx, cfg, t).expect("bring-up");
    assert_eq!(fw.id.chip, Chip::Mv6352);
    fw
}

/// One turn: the firmware's loop body (with the switch's INTn line), then the wire.
fn turn(board: &SwitchBoard, fw: &mut Fw<'_>) -> usize {
    let t = now(board);
    fw.poll(t, board.irq_line()).expect("firmware turn");
    let moved = board.pump();
    board.clock.advance(TURN_NS);
    moved
}

/// Turns until `done` holds (at most `max`); how many it took.
fn turns_until(
    board: &SwitchBoard,
    fw: &mut Fw<'_>,
    max: usize,
    mut done: impl FnMut(&Fw<'_>) -> bool,
) -> usize {
    for i in 0..max {
        if done(fw) {
            return i;
        }
        turn(board, fw);
    }
    assert!(done(fw), "not done after {max} turns");
    max
}

/// A frame of `len` bytes (without FCS) from `src` to `dst` with `ethertype`.
fn frame(dst: [u8; 6], src: [u8; 6], ethertype: u16, len: usize) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend((0..len.saturating_sub(14)).map(|i| i as u8));
    f
}

fn host(n: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, n]
}

/// An LLDPDU from the peer on port 2 (padded to the Ethernet minimum).
fn peer_lldp() -> Vec<u8> {
    let mut f = lldp_frame(host(0x22), 9);
    f.resize(ETH_ZLEN, 0);
    f
}

#[test]
fn bring_up_over_the_dwmac_mdio_master() {
    let board = managed_switch_board();
    let t0 = board.now();
    let w0 = board.bus.model(|m| m.mdio_frames());
    let fw = bring_up(&board);
    let wire = board.bus.model(|m| m.mdio_frames()) - w0;
    let frames = fw.bring_up_frames;
    println!(
        "bring-up: {frames} MDIO frames by the driver, {wire} on the wire, {} µs virtual",
        (board.now() - t0) / 1000
    );
    assert_eq!(
        frames, wire,
        "every frame the driver counted went over the wire"
    );
    // The settings took: the CPU port in EtherType DSA with Linux's EtherType, ports 0 and
    // 2 out of each other's maps, the VLANs and the static address.
    assert_eq!(
        board.switch(|c| c.port_reg(5, 0x04)).unwrap() & 0x0300,
        0x0300
    );
    assert_eq!(board.switch(|c| c.port_reg(5, 0x0F)), Some(0xDADA));
    assert_eq!(board.switch(|c| c.port_reg(0, 0x06)).unwrap() & (1 << 2), 0);
    assert_eq!(board.switch(|c| c.port_reg(2, 0x06)).unwrap() & 1, 0);
    assert_eq!(
        board.switch(|c| c.dropped_writes()),
        0,
        "no write into a busy unit"
    );
}

/// LLDP entering port 2 reaches the firmware through the DWMAC's RX ring with a
/// TO_CPU tag naming port 2 (trap code MGMT); the firmware's answer leaves port 2 only.
#[test]
fn lldp_on_port_2_is_trapped_to_the_firmware_and_answered_on_port_2_only() {
    each_format(lldp_round_trip);
}

/// Run `scenario` on a fresh board for each tag format of the CPU port: EDSA (Linux's
/// EtherType) and DSA.
fn each_format(scenario: impl Fn(&SwitchBoard, &mut Fw<'_>, TagFormat)) {
    for format in [TagFormat::EDSA, TagFormat::Dsa] {
        let board = managed_switch_board();
        let cfg = FwConfig {
            format,
            ..FwConfig::demo()
        };
        let mut fw = bring_up_with(&board, cfg);
        scenario(&board, &mut fw, format);
    }
}

fn lldp_round_trip(board: &SwitchBoard, fw: &mut Fw<'_>, format: TagFormat) {
    let lldp = peer_lldp();
    assert_eq!(
        board.host_send(2, &lldp),
        [5],
        "trapped: to the CPU port only"
    );
    let delivered0 = board.bus.model(|m| m.rx_delivered());
    assert_eq!(delivered0, 1, "into an RX descriptor of the DWMAC");
    turns_until(board, fw, 10, |fw| !fw.trapped().is_empty());

    assert_eq!(fw.trapped().len(), 1);
    let t = &fw.trapped()[0];
    assert_eq!(
        t.tag,
        Tag::ToCpu {
            dev: 0,
            port: 2,
            code: TrapCode::MgmtTrap,
            vlan: TagVlan::untagged(10),
        }
    );
    assert!(!t.tag.vlan().tagged);
    assert_eq!(t.frame, lldp, "the frame as it was on port 2's wire");
    assert_eq!(fw.dsa_stats().rx_trapped, 1);
    assert_eq!(fw.dsa_stats().rx_forward, 0, "smoltcp never saw it");

    // 2: the answer, FROM_CPU to port 2.
    assert_eq!(fw.lldp_answers.len(), 1);
    let (port, answer) = fw.lldp_answers[0].clone();
    assert_eq!(port, 2);
    turn(board, fw);
    let at2 = board.take_host_rx(2);
    assert_eq!(at2.len(), 1, "port 2 got the answer");
    assert_eq!(at2[0][..answer.len()], answer[..]);
    assert!(
        at2[0][answer.len()..].iter().all(|&b| b == 0),
        "padding only after it"
    );
    assert_eq!(&at2[0][..6], &LLDP_DA);
    assert_eq!(at2[0][12..14], ETH_P_LLDP.to_be_bytes());
    for p in [0, 1, 3, 4] {
        assert!(
            board.take_host_rx(p).is_empty(),
            "port {p} must not get the answer"
        );
    }
    let (to_switch, to_mac) = board.cpu_wire_frames();
    assert_eq!((to_switch, to_mac), (1, 1));
    println!(
        "LLDP round trip ({format:?}): DWMAC RX {} / TX {} frames, {} µs virtual",
        board.bus.model(|m| m.rx_delivered()),
        board.bus.model(|m| m.sent_total()),
        board.now() / 1000
    );
}

/// What a host's TCP connection to the firmware's echo service saw.
struct HostRun {
    /// The connection's state at the end.
    state: tcp::State,
    /// The bytes echoed back.
    echoed: Vec<u8>,
    /// Every frame the host received.
    received: Vec<Vec<u8>>,
}

/// A host on `port` (MAC 02:00:00:00:00:1`port`, 10.0.10.1`port`) connects to the
/// firmware's echo service and sends `msg`, turning the firmware's loop until the echo is
/// back (or, for an empty `msg`, the connection is established); at most 2000 turns.
fn host_tcp(board: &SwitchBoard, fw: &mut Fw<'_>, port: usize, msg: &[u8]) -> HostRun {
    let last = 0x10 + port as u8;
    let mut nic = HostNic::default();
    let mut iface = host_iface(&mut nic, host(last), [10, 0, 10, last], now(board));
    let mut storage = [SocketStorage::EMPTY];
    let mut sockets = SocketSet::new(&mut storage[..]);
    let buf = || tcp::SocketBuffer::new(Vec::leak(vec![0u8; 2048]));
    let h = sockets.add(tcp::Socket::new(buf(), buf()));
    sockets
        .get_mut::<tcp::Socket>(h)
        .connect(iface.context(), (Ipv4Address::new(10, 0, 10, 1), 7), 49152)
        .unwrap();
    let (mut sent, mut echoed, mut received) = (false, Vec::new(), Vec::new());
    for _ in 0..2000 {
        iface.poll(now(board), &mut nic, &mut sockets);
        for f in std::mem::take(&mut nic.tx) {
            board.host_send(port, &f);
        }
        turn(board, fw);
        let got = board.take_host_rx(port);
        received.extend(got.iter().cloned());
        nic.rx.extend(got);
        let s = sockets.get_mut::<tcp::Socket>(h);
        if s.may_send() && !sent {
            s.send_slice(msg).unwrap();
            sent = true;
        }
        if s.can_recv() {
            s.recv(|b| {
                echoed.extend_from_slice(b);
                (b.len(), ())
            })
            .unwrap();
        }
        if sent && echoed.len() >= msg.len() {
            break;
        }
    }
    HostRun {
        state: sockets.get::<tcp::Socket>(h).state(),
        echoed,
        received,
    }
}

/// An interface for the host `mac` at `ip`/24.
fn host_iface(nic: &mut HostNic, mac: [u8; 6], ip: [u8; 4], t: Instant) -> Interface {
    let mut iface = Interface::new(
        Config::new(HardwareAddress::Ethernet(EthernetAddress(mac))),
        nic,
        t,
    );
    iface.update_ip_addrs(|a| {
        a.push(IpCidr::new(
            IpAddress::Ipv4(Ipv4Address::new(ip[0], ip[1], ip[2], ip[3])),
            24,
        ))
        .unwrap();
    });
    iface
}

/// A host on port 0 opens TCP to the firmware's echo service (ARP first): the
/// management traffic reaches smoltcp on the CPU port through the tags, and the answers
/// come back on port 0.
#[test]
fn tcp_from_a_host_on_port_0_reaches_smoltcp_on_the_cpu_port() {
    each_format(tcp_echo);
}

fn tcp_echo(board: &SwitchBoard, fw: &mut Fw<'_>, format: TagFormat) {
    let msg = b"hello, switch".as_slice();
    let run = host_tcp(board, fw, 0, msg);
    assert_eq!(run.echoed, msg, "echoed by the firmware's smoltcp");
    assert_eq!(run.state, tcp::State::Established);
    assert_eq!(fw.echoed, msg.len());
    assert_eq!(fw.tcp_state(), tcp::State::Established);
    let st = fw.dsa_stats();
    assert!(st.rx_forward >= 3, "ARP, SYN, ACK/data: {st:?}");
    assert!(st.tx_forward >= 3, "ARP reply, SYN-ACK, data: {st:?}");
    assert!(
        board.take_host_rx(2).is_empty(),
        "nothing of it leaks to the isolated port 2"
    );
    let (to_switch, to_mac) = board.cpu_wire_frames();
    println!(
        "TCP echo ({format:?}): {} frames into the firmware, {} out; DWMAC RX {} TX {}; {} µs virtual",
        fw.dsa_stats().rx_forward,
        fw.dsa_stats().tx_forward,
        to_mac,
        to_switch,
        board.now() / 1000
    );
}

/// Port 0 and port 2 share VLAN 10 but not each other's port map; the static address
/// goes to its port only, and only in its database.
#[test]
fn isolation_and_the_static_address() {
    let board = managed_switch_board();
    let _fw = bring_up(&board);
    let bcast = |src: u8| frame([0xFF; 6], host(src), 0x0800, 64);
    assert_eq!(board.host_send(0, &bcast(0x10)), [1, 5], "not port 2");
    assert_eq!(board.host_send(2, &bcast(0x12)), [1, 5], "not port 0");
    assert_eq!(
        board.host_send(1, &bcast(0x11)),
        [0, 2, 5],
        "1 reaches both"
    );
    // Port 1's address was learned: a unicast from 0 goes there, one from 2 as well.
    assert_eq!(
        board.host_send(0, &frame(host(0x11), host(0x10), 0x0800, 64)),
        [1]
    );
    // Port 2's address is known, but port 0 may not reach it.
    assert_eq!(
        board.host_send(0, &frame(host(0x12), host(0x10), 0x0800, 64)),
        Vec::<usize>::new()
    );
    // The static address: port 1 only, from either side of the isolation.
    let printer = [0x02, 0, 0, 0, 0, 0x77];
    assert_eq!(
        board.host_send(0, &frame(printer, host(0x10), 0x0800, 64)),
        [1]
    );
    assert_eq!(
        board.host_send(2, &frame(printer, host(0x12), 0x0800, 64)),
        [1]
    );
    // VLAN 20 (FID 2) does not know it: flooded in VLAN 20 only.
    assert_eq!(
        board.host_send(3, &frame(printer, host(0x13), 0x0800, 64)),
        [4, 5]
    );
    assert_eq!(board.take_host_rx(2).len(), 1, "port 1's broadcast only");
}

/// Port 1's link goes down; the switch's INTn line asserts, the firmware's interrupt
/// service reads Global1 and the PHY sources, and sees port 1 down.
#[test]
fn link_down_on_port_1_arrives_through_the_interrupt() {
    let board = managed_switch_board_unplugged();
    let mut fw = bring_up(&board);
    for p in 0..5 {
        let t = board.now();
        assert!(board.switch(|c| c.set_link(t, p, true)));
    }
    assert!(board.irq_line(), "link-up events assert INTn");
    turns_until(&board, &mut fw, 5, |fw| {
        (0..5).all(|p| fw.links[p] == Some(true))
    });
    assert!(!board.irq_line(), "serviced");
    let irqs = fw.irqs;
    fw.link_events.clear();

    let t = board.now();
    assert!(board.switch(|c| c.set_link(t, 1, false)));
    assert!(board.irq_line());
    let (f0, t0) = (fw.sw.frames(), board.now());
    turns_until(&board, &mut fw, 5, |fw| fw.links[1] == Some(false));
    println!(
        "link-down service: {} MDIO frames, {} µs virtual (with the loop's turns)",
        fw.sw.frames() - f0,
        (board.now() - t0) / 1000
    );
    assert_eq!(fw.link_events, [(1, false)], "port 1 only");
    assert_eq!(fw.irqs, irqs + 1, "one interrupt");
    assert!(!board.irq_line());
    assert_eq!(fw.links[0], Some(true));
}

/// A port whose link is down sends nothing: a broadcast from port 0 after port 1's link
/// went down reaches the CPU port only (on silicon the MAC of a port without link does
/// not transmit; the frame is not counted as sent there).
#[test]
fn a_port_without_link_sends_nothing() {
    let board = managed_switch_board();
    let mut fw = bring_up(&board);
    for p in 0..5 {
        let t = board.now();
        assert!(board.switch(|c| c.set_link(t, p, true)));
    }
    let bcast = frame([0xFF; 6], host(0x10), 0x0800, 64);
    assert_eq!(board.host_send(0, &bcast), [1, 5]);
    let t = board.now();
    assert!(board.switch(|c| c.set_link(t, 1, false)));
    turns_until(&board, &mut fw, 5, |fw| fw.links[1] == Some(false));
    assert_eq!(board.host_send(0, &bcast), [5], "port 1 has no link");
}

/// A frame's class and length as the statistics unit counts it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counted {
    unicast: u64,
    broadcast: u64,
    multicast: u64,
    octets: u64,
}

impl Counted {
    /// `bytes` (without FCS) counted: on the wire a frame is at least 64 bytes with its
    /// FCS (a port pads shorter ones on transmit).
    fn add(&mut self, bytes: &[u8]) {
        let len = bytes.len().max(ETH_ZLEN) + 4;
        self.octets += len as u64;
        if bytes[..6] == [0xFF; 6] {
            self.broadcast += 1;
        } else if bytes[0] & 1 != 0 {
            self.multicast += 1;
        } else {
            self.unicast += 1;
        }
    }
}

fn expected(wire: &[WireFrame], port: usize, ingress: bool) -> Counted {
    let mut c = Counted::default();
    for f in wire
        .iter()
        .filter(|f| f.port == port && f.ingress == ingress)
    {
        c.add(&f.bytes);
    }
    c
}

/// After LLDP both ways and plain traffic between the hosts, every port's MIB
/// counters (read by the firmware through the statistics unit) match the frames its wire
/// carried each way.
#[test]
fn mib_counters_match_the_frames_on_every_port() {
    let board = managed_switch_board();
    let mut fw = bring_up(&board);
    board.host_send(2, &peer_lldp());
    turns_until(&board, &mut fw, 10, |fw| !fw.lldp_answers.is_empty());
    turn(&board, &mut fw);
    for i in 0..3u8 {
        board.host_send(
            0,
            &frame([0xFF; 6], host(0x10), 0x0800, 64 + usize::from(i)),
        );
        board.host_send(1, &frame(host(0x10), host(0x11), 0x0800, 200));
        board.host_send(3, &frame([0x01, 0, 0x5E, 0, 0, 1], host(0x13), 0x0800, 100));
        board.host_send(4, &frame(host(0x13), host(0x14), 0x0800, 1514));
    }
    for _ in 0..3 {
        turn(&board, &mut fw);
    }
    let wire = board.wire();
    assert_mib_matches(&mut fw, &wire);
    assert!(wire.len() > 20, "{} frames on the wires", wire.len());
}

/// Every port's MIB counters against the frames `wire` logged on it.
fn assert_mib_matches(fw: &mut Fw<'_>, wire: &[WireFrame]) {
    for port in [0usize, 1, 2, 3, 4, 5] {
        let st = fw.port_stats(port as u8).unwrap();
        let rx = expected(wire, port, true);
        let tx = expected(wire, port, false);
        let got_rx = Counted {
            unicast: st.in_unicast.into(),
            broadcast: st.in_broadcasts.into(),
            multicast: st.in_multicasts.into(),
            octets: st.in_good_octets,
        };
        let got_tx = Counted {
            unicast: st.out_unicast.into(),
            broadcast: st.out_broadcasts.into(),
            multicast: st.out_multicasts.into(),
            octets: st.out_octets,
        };
        assert_eq!(got_rx, rx, "port {port} receive counters");
        assert_eq!(got_tx, tx, "port {port} transmit counters");
        assert_eq!(st.in_undersize, 0, "port {port}");
    }
}

/// The firmware's ARP reply and TCP SYN-ACK are shorter than 60 bytes: they enter the CPU
/// port padded by the DWMAC to 60 with their 8-byte EDSA header, which leaves 52 bytes once
/// the switch strips the header. An Ethernet port pads what it transmits to the 64-byte
/// minimum (IEEE 802.3 4.2.3.3, the MAC's pad), so every frame leaves port 1 at least 60
/// bytes long (64 with FCS), and the port's MIB counters count them as good frames, not
/// undersize.
#[test]
fn short_frames_from_the_cpu_leave_padded_and_count_as_good() {
    let board = managed_switch_board();
    let mut fw = bring_up(&board);
    let run = host_tcp(&board, &mut fw, 1, b"");
    assert_eq!(run.state, tcp::State::Established);
    let at1 = run.received;
    for f in &at1 {
        assert!(f.len() >= ETH_ZLEN, "port 1 sent a {}-byte frame", f.len());
    }
    assert_mib_matches(&mut fw, &board.wire());
}
