//! Checksum offload: COE detection from HW_FEATURE, TX checksum insertion (CIC), RX
//! checksum checking (IPC) with bad frames dropped and counted because the model reported
//! them, what the stacks are told, and the RX fast path (one status read per frame).
//!
//! Frames are built and their checksums checked with smoltcp's `wire` module, not with the
//! model's own checksum code.

use crate::harness::*;

use smoltcp::phy::{Checksum, Device as _};
use smoltcp::wire::{
    EthernetAddress, EthernetFrame, EthernetProtocol, IpAddress, IpProtocol, Ipv4Address,
    Ipv4Packet, TcpPacket, UdpPacket,
};
use stmmac_coalesce::CacheOps;
use stmmac_coalesce::sim::AnPhy;
use stmmac_coalesce::{
    Coe, Coherent, DescLayout, DmaConfig, Error, NoTimer, Offload, RxCoe, RxConfig, TxConfig,
};

const SRC: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);
const DST: Ipv4Address = Ipv4Address::new(10, 0, 2, 15);

/// An Ethernet/IPv4 frame to `dst` carrying `proto` with an L4 header of `l4_hdr` bytes and
/// `payload` bytes; checksums filled in when `sums`, zero otherwise.
fn ip_frame(dst: [u8; 6], proto: IpProtocol, payload: usize, sums: bool) -> Vec<u8> {
    let l4_hdr = match proto {
        IpProtocol::Tcp => 20,
        _ => 8,
    };
    let l4_len = l4_hdr + payload;
    let mut f = vec![0u8; 14 + 20 + l4_len];
    {
        let mut eth = EthernetFrame::new_unchecked(&mut f[..]);
        eth.set_dst_addr(EthernetAddress(dst));
        eth.set_src_addr(EthernetAddress([0x02, 0, 0, 0, 0, 1]));
        eth.set_ethertype(EthernetProtocol::Ipv4);
    }
    {
        let mut ip = Ipv4Packet::new_unchecked(&mut f[14..]);
        ip.set_version(4);
        ip.set_header_len(20);
        ip.set_total_len((20 + l4_len) as u16);
        ip.set_hop_limit(64);
        ip.set_next_header(proto);
        ip.set_src_addr(SRC);
        ip.set_dst_addr(DST);
        ip.set_dont_frag(true);
        if sums {
            ip.fill_checksum();
        }
    }
    let l4 = &mut f[34..];
    for (i, b) in l4.iter_mut().enumerate().skip(l4_hdr) {
        *b = (i * 7) as u8;
    }
    match proto {
        IpProtocol::Tcp => {
            let mut t = TcpPacket::new_unchecked(&mut l4[..]);
            t.set_src_port(7);
            t.set_dst_port(4000);
            t.set_header_len(20);
            t.set_ack(true);
            if sums {
                t.fill_checksum(&IpAddress::Ipv4(SRC), &IpAddress::Ipv4(DST));
            }
        }
        IpProtocol::Udp => {
            let mut u = UdpPacket::new_unchecked(&mut l4[..]);
            u.set_src_port(7);
            u.set_dst_port(4000);
            u.set_len(l4_len as u16);
            if sums {
                u.fill_checksum(&IpAddress::Ipv4(SRC), &IpAddress::Ipv4(DST));
            }
        }
        _ => {}
    }
    f
}

/// (IPv4 header checksum right, L4 checksum right) by smoltcp's reckoning.
fn sums_ok(f: &[u8]) -> (bool, bool) {
    let ip = Ipv4Packet::new_checked(&f[14..]).unwrap();
    let l4 = ip.payload();
    let (s, d) = (
        IpAddress::Ipv4(ip.src_addr()),
        IpAddress::Ipv4(ip.dst_addr()),
    );
    let l4_ok = match ip.next_header() {
        IpProtocol::Tcp => TcpPacket::new_checked(l4).unwrap().verify_checksum(&s, &d),
        IpProtocol::Udp => UdpPacket::new_checked(l4).unwrap().verify_checksum(&s, &d),
        _ => true,
    };
    (ip.verify_checksum(), l4_ok)
}

fn rx_cfg() -> RxConfig {
    RxConfig {
        descriptors: 8,
        buf_size: 1536,
        ..RxConfig::default()
    }
}

fn tx_cfg() -> TxConfig {
    TxConfig {
        descriptors: 8,
        buf_size: 1536,
        coalesce: stmmac_coalesce::CoalesceConfig {
            tx_frames: 1,
            tx_usecs: 0,
            ..Default::default()
        },
        ..TxConfig::default()
    }
}

fn send<G: Generation>(b: &Board<G>, tx: &mut stmmac_coalesce::TxRing, f: &[u8]) -> Vec<u8> {
    b.bus.model(|m| m.clear_sent());
    let mut t = tx.reserve(&b.mac).unwrap();
    t.buffer()[..f.len()].copy_from_slice(f);
    t.commit(f.len()).unwrap();
    b.bus.model(|m| m.sent().last().unwrap().bytes.clone())
}

#[test]
fn coe_is_decoded_from_hw_feature_bits_16_17_18() {
    // QEMU's npcm-gmac value: TXCOESEL and RXTYP2COE set, RXTYP1COE clear.
    assert_eq!(
        stmmac_coalesce::gmac3::coe_from_hw_feature(0x100D_4F37),
        Some(Coe {
            tx: true,
            rx: RxCoe::Type2
        })
    );
    assert_eq!(
        stmmac_coalesce::gmac3::coe_from_hw_feature(1 << 17),
        Some(Coe {
            tx: false,
            rx: RxCoe::Type1
        })
    );
    assert_eq!(
        stmmac_coalesce::gmac3::coe_from_hw_feature((1 << 17) | (1 << 18) | (1 << 16)),
        Some(Coe {
            tx: true,
            rx: RxCoe::Type2
        })
    );
    assert_eq!(
        stmmac_coalesce::gmac3::coe_from_hw_feature(0x0000_4F37),
        Some(Coe {
            tx: false,
            rx: RxCoe::None
        })
    );
    // No HW_FEATURE (pre-3.50a, or nothing there): unknown, not "none".
    assert_eq!(stmmac_coalesce::gmac3::coe_from_hw_feature(0), None);
    assert_eq!(stmmac_coalesce::gmac3::coe_from_hw_feature(u32::MAX), None);

    let b = Board::<OnGmac3>::new();
    assert_eq!(
        b.mac.coe(),
        stmmac_coalesce::gmac3::coe_from_hw_feature(0x100D_4F37)
    );
    assert_eq!(b.setup.coe(), b.mac.coe());
    let none = Board::<OnGmac3>::with(AnPhy::gigabit(), arena(), OnGmac3::dma(), |m| {
        m.without_coe()
    });
    assert_eq!(
        none.mac.coe(),
        Some(Coe {
            tx: false,
            rx: RxCoe::None
        })
    );
    // A set-up resolved without HW_FEATURE knows nothing about the engines.
    let old = Board::<OnGmac3>::with_setup(
        AnPhy::gigabit(),
        arena(),
        |m| m.without_hw_feature(),
        |mac| {
            // SAFETY: the model's layout is normal.
            unsafe { mac.configure_dma_assuming_layout(&DmaConfig::default(), DescLayout::Normal) }
                .unwrap()
        },
    );
    assert_eq!(old.mac.coe(), None);
    assert_eq!(old.setup.coe(), None);
}

#[test]
fn tx_insertion_is_off_by_default_and_cic_3_fills_every_checksum() {
    for layout in [DescLayout::Normal, DescLayout::Enhanced] {
        let b = Board::<OnGmac3>::with(AnPhy::gigabit(), arena(), OnGmac3::dma(), |m| {
            m.with_layout(layout)
        });
        b.link_up();
        let mut tx = b.tx(tx_cfg(), NoTimer, Coherent);
        assert!(!tx.checksum_offload());
        for proto in [IpProtocol::Udp, IpProtocol::Tcp] {
            let f = ip_frame([0xFF; 6], proto, 300, false);
            // Off: the frame leaves as the stack wrote it (no checksums).
            assert_eq!(send(&b, &mut tx, &f), f);
        }
        assert!(tx.set_checksum_offload(Offload::IfDetected));
        for proto in [IpProtocol::Udp, IpProtocol::Tcp] {
            let f = ip_frame([0xFF; 6], proto, 300, false);
            let out = send(&b, &mut tx, &f);
            assert_eq!(sums_ok(&out), (true, true), "{layout:?} {proto}");
            // Only the checksum fields changed.
            assert_eq!(
                out,
                ip_frame([0xFF; 6], proto, 300, true),
                "{layout:?} {proto}"
            );
        }
        // The descriptor asked for full insertion: CIC = 3.
        let w = tx.desc_words(3).unwrap();
        let cic = match layout {
            DescLayout::Normal => (w[1] >> 27) & 3,
            DescLayout::Enhanced => (w[0] >> 22) & 3,
            DescLayout::Qos => (w[3] >> 16) & 3,
        };
        assert_eq!(cic, 3, "{layout:?}");
        // A frame that is not IP passes unchanged.
        let raw = stmmac_coalesce::sim::eth_frame([0xFF; 6], 100, 3);
        assert_eq!(send(&b, &mut tx, &raw), raw);
    }
}

#[test]
fn tx_insertion_needs_the_engine_or_an_explicit_assumption() {
    let b = Board::<OnGmac3>::with(AnPhy::gigabit(), arena(), OnGmac3::dma(), |m| {
        m.without_coe()
    });
    b.link_up();
    let mut tx = b.tx(tx_cfg(), NoTimer, Coherent);
    assert!(!tx.set_checksum_offload(Offload::IfDetected));
    let f = ip_frame([0xFF; 6], IpProtocol::Udp, 64, false);
    assert_eq!(send(&b, &mut tx, &f), f);
    // Assume: the firmware's promise; the descriptor asks, this core ignores it.
    assert!(tx.set_checksum_offload(Offload::Assume));
    assert_eq!(send(&b, &mut tx, &f), f);
    assert!(!tx.set_checksum_offload(Offload::Off));
}

/// A board, link up, an RX ring with checksum offload `mode` (started again so IPC is
/// programmed).
fn rx_board(
    mode: Offload,
    model: impl FnOnce(<OnGmac3 as Generation>::Model) -> <OnGmac3 as Generation>::Model,
) -> (Board<OnGmac3>, stmmac_coalesce::RxRing) {
    let b = Board::<OnGmac3>::with(AnPhy::gigabit(), arena(), OnGmac3::dma(), model);
    b.link_up();
    let mut rx = b.rx(rx_cfg(), Coherent);
    rx.set_checksum_offload(mode);
    rx.start(&b.mac);
    (b, rx)
}

fn delivered<G: Generation>(b: &Board<G>, rx: &mut stmmac_coalesce::RxRing, f: &[u8]) -> bool {
    b.inject(f);
    match rx.receive(&b.mac) {
        Ok(mut fr) => {
            let mut s = [0u8; 1600];
            assert_eq!(fr.bytes(&mut s).unwrap(), f);
            true
        }
        Err(Error::WouldBlock) => false,
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn rx_checking_programs_ipc_and_drops_what_the_core_reports_bad() {
    let (b, mut rx) = rx_board(Offload::IfDetected, |m| m);
    assert!(rx.checksum_offload());
    assert_ne!(b.bus.model(|m| m.control()) & (1 << 10), 0, "IPC set");

    for proto in [IpProtocol::Udp, IpProtocol::Tcp] {
        assert!(delivered(&b, &mut rx, &ip_frame(US, proto, 200, true)));
        // Payload checksum corrupted: the model reports RDES0 bit 0 (and ES).
        let mut bad = ip_frame(US, proto, 200, true);
        bad[60] ^= 0x55;
        assert!(!delivered(&b, &mut rx, &bad), "{proto}");
    }
    let s = rx.stats();
    assert_eq!(s.frames, 2);
    assert_eq!(s.payload_checksum_errors, 2);
    assert_eq!(s.ip_checksum_errors, 0);
    // The IPv4 header checksum corrupted: bit 7.
    let mut bad = ip_frame(US, IpProtocol::Udp, 200, true);
    bad[24] ^= 0x01;
    assert!(!delivered(&b, &mut rx, &bad));
    assert_eq!(rx.stats().ip_checksum_errors, 1);
    // UDP without a checksum (0) is not an error.
    let mut none = ip_frame(US, IpProtocol::Udp, 200, true);
    none[40] = 0;
    none[41] = 0;
    assert!(delivered(&b, &mut rx, &none));
    assert_eq!(rx.stats().frames, 3);
}

#[test]
fn a_bad_checksum_is_dropped_only_because_the_model_reported_it() {
    // IPC off: the model checks nothing, the corrupt frame is delivered (the stack verifies).
    let (b, mut rx) = rx_board(Offload::Off, |m| m);
    assert!(!rx.checksum_offload());
    assert_eq!(b.bus.model(|m| m.control()) & (1 << 10), 0);
    let mut bad = ip_frame(US, IpProtocol::Udp, 200, true);
    bad[60] ^= 0x55;
    assert!(delivered(&b, &mut rx, &bad));
    assert_eq!(rx.stats().payload_checksum_errors, 0);

    // The databook's reading: checksum errors in bits 7 / 0 without ES. The ring's own
    // checksum rule drops them (before it, they were delivered: ES was the only gate).
    let (b, mut rx) = rx_board(Offload::IfDetected, |m| m);
    b.bus.model(|m| m.set_checksum_error_summary(false));
    assert!(!delivered(&b, &mut rx, &bad));
    let mut bad_ip = ip_frame(US, IpProtocol::Tcp, 100, true);
    bad_ip[25] ^= 0x80;
    assert!(!delivered(&b, &mut rx, &bad_ip));
    let s = rx.stats();
    assert_eq!((s.payload_checksum_errors, s.ip_checksum_errors), (1, 1));
    assert_eq!(s.errors, 0, "no ES: counted as checksum errors only");
    assert!(delivered(
        &b,
        &mut rx,
        &ip_frame(US, IpProtocol::Tcp, 100, true)
    ));
}

#[test]
fn rx_checking_is_read_back_and_off_on_a_core_without_the_engine() {
    // IfDetected on a core without it: not even tried.
    let (b, rx) = rx_board(Offload::IfDetected, |m| m.without_coe());
    assert!(!rx.checksum_offload());
    assert_eq!(b.bus.model(|m| m.control()) & (1 << 10), 0);
    // Assume: tried, IPC reads back 0, so the ring does not claim it.
    let (b, mut rx) = rx_board(Offload::Assume, |m| m.without_coe());
    assert!(!rx.checksum_offload());
    // Bits 0 / 7 then mean something else (address match, giant): never a drop.
    let mut bad = ip_frame(US, IpProtocol::Udp, 200, true);
    bad[60] ^= 0x55;
    assert!(delivered(&b, &mut rx, &bad));
    // Off again after being on: IPC cleared at the next start.
    let (b, mut rx) = rx_board(Offload::IfDetected, |m| m);
    assert!(rx.checksum_offload());
    rx.set_checksum_offload(Offload::Off);
    rx.start(&b.mac);
    assert!(!rx.checksum_offload());
    assert_eq!(b.bus.model(|m| m.control()) & (1 << 10), 0);
}

#[test]
fn the_stacks_are_told_what_was_enabled_and_nothing_else() {
    use stmmac_coalesce::smoltcp::{Device, checksum_caps};
    let c = checksum_caps(false, false);
    for p in [c.ipv4, c.tcp, c.udp, c.icmpv4] {
        assert!(matches!(p, Checksum::Both));
    }
    let c = checksum_caps(true, true);
    for p in [c.ipv4, c.tcp, c.udp] {
        assert!(matches!(p, Checksum::None));
    }
    // ICMP: verified by the core, still computed by the stack (QEMU inserts none).
    assert!(matches!(c.icmpv4, Checksum::Tx));
    let c = checksum_caps(true, false);
    assert!(matches!(c.udp, Checksum::Rx));
    let c = checksum_caps(false, true);
    assert!(matches!(c.udp, Checksum::Tx));

    // Through the device, from the rings' state.
    let (b, mut rx) = rx_board(Offload::IfDetected, |m| m);
    let mut tx = b.tx(tx_cfg(), NoTimer, Coherent);
    let mut scratch = vec![0u8; 1518];
    {
        let dev = Device::new(&b.mac, &mut tx, &mut rx, &mut scratch);
        assert!(matches!(dev.capabilities().checksum.tcp, Checksum::Tx));
    }
    tx.set_checksum_offload(Offload::IfDetected);
    {
        let dev = Device::new(&b.mac, &mut tx, &mut rx, &mut scratch);
        assert!(matches!(dev.capabilities().checksum.tcp, Checksum::None));
        assert!(matches!(dev.capabilities().checksum.ipv4, Checksum::None));
    }
    // A core without the engine: nothing claimed whatever was asked.
    let (b, mut rx) = rx_board(Offload::Assume, |m| m.without_coe());
    let mut tx = b.tx(tx_cfg(), NoTimer, Coherent);
    tx.set_checksum_offload(Offload::IfDetected);
    let dev = Device::new(&b.mac, &mut tx, &mut rx, &mut scratch);
    assert!(matches!(dev.capabilities().checksum.udp, Checksum::Both));
}

#[test]
fn embassy_net_is_told_what_was_enabled() {
    use embassy_net_driver::{Checksum as C, Driver as _};
    use stmmac_coalesce::embassy_net::{Driver, NetState};
    let (b, mut rx) = rx_board(Offload::IfDetected, |m| m);
    let mut tx = b.tx(tx_cfg(), NoTimer, Coherent);
    tx.set_checksum_offload(Offload::IfDetected);
    rx.set_checksum_offload(Offload::IfDetected);
    let state: NetState<NoTimer, Coherent> = NetState::new();
    state.install(tx, rx);
    let mut scratch = vec![0u8; 1518];
    let drv = Driver::new(&b.mac, &state, &mut scratch, US);
    let c = drv.capabilities().checksum;
    assert!(matches!(c.ipv4, C::None));
    assert!(matches!(c.tcp, C::None));
    assert!(matches!(c.udp, C::None));
    assert!(matches!(c.icmpv4, C::Tx));

    let (b, rx) = rx_board(Offload::Off, |m| m);
    let tx = b.tx(tx_cfg(), NoTimer, Coherent);
    let state: NetState<NoTimer, Coherent> = NetState::new();
    state.install(tx, rx);
    let drv = Driver::new(&b.mac, &state, &mut scratch, US);
    let c = drv.capabilities().checksum;
    assert!(matches!(c.tcp, C::Both));
    assert!(matches!(c.ipv4, C::Both));
}

/// Counts the descriptor reads a ring makes: each status read is preceded by the
/// invalidation of that descriptor's lines (what a non-coherent core needs), so on coherent
/// memory this counts reads without touching anything. Buffers are invalidated too, by
/// whole buffer strides (512 bytes and more here), so only shorter ranges are counted.
#[derive(Default)]
struct DescReads(std::cell::Cell<u64>);

// SAFETY: nothing is cleaned or invalidated (the arena is coherent), so no line is
// discarded; `line` is 1 as for `Coherent`.
unsafe impl CacheOps for DescReads {
    fn line(&self) -> usize {
        1
    }
    fn clean(&self, _ptr: *const u8, _len: usize) {}
    fn invalidate(&self, _ptr: *const u8, len: usize) {
        if len < 256 {
            self.0.set(self.0.get() + 1);
        }
    }
}

fn the_head_status_word_is_read_once_per_frame<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let reads = DescReads::default();
    let mut rx = b.rx(rx_cfg(), &reads);
    for k in 0..20u8 {
        let f = stmmac_coalesce::sim::eth_frame(US, 100 + usize::from(k), k);
        b.inject(&f);
        let before = reads.0.get();
        let fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.len(), f.len());
        drop(fr);
        // One read of the head, which the scan then walks from.
        assert_eq!(reads.0.get() - before, 1, "frame {k}");
    }
    // A frame over three descriptors: one read each.
    let reads3 = DescReads::default();
    let mut rx = b.rx(
        RxConfig {
            descriptors: 8,
            buf_size: 512,
            ..RxConfig::default()
        },
        &reads3,
    );
    b.inject(&stmmac_coalesce::sim::eth_frame(US, 1400, 1));
    let before = reads3.0.get();
    let fr = rx.receive(&b.mac).unwrap();
    assert_eq!(fr.descriptors(), 3);
    drop(fr);
    assert_eq!(reads3.0.get() - before, 3);
}

on_both!(the_head_status_word_is_read_once_per_frame,);
