//! The rings and `Qos` on the DWMAC 4.x model: the 3.x ring conformance again (TX with
//! IC every tx-frames, RX spanning descriptors, errors dropped and counted), and what only
//! QoS has: tail pointers, ring lengths, context descriptors, the MTL queues, 64-bit
//! addresses, the version-dependent interrupt enables.

use crate::harness::*;

type Board = crate::harness::Board<OnQos>;

fn dma() -> stmmac_coalesce::DmaConfig {
    OnQos::dma()
}
use hwtimer_core::RegisterBusExt;
use stmmac_coalesce::qos::regs::{self as r, chan};
use stmmac_coalesce::sim::{RxWireError, SimArena, VERSION4_00, eth_frame};
use stmmac_coalesce::{
    Coherent, ConfigError, DmaAddr, Duplex, Dwmac, Error, NoTimer, Speed, ring_bytes,
};

#[test]
fn bring_up_negotiates_over_the_4x_mdio_and_programs_the_mtl() {
    let b = Board::new();
    let link = b.link_up();
    assert!(link.up);
    assert_eq!((link.speed, link.duplex), (Speed::M1000, Duplex::Full));
    assert!(b.bus.model(|m| m.mdio_frames()) > 0);
    // SAFETY: reads only.
    let bus = unsafe { b.mac.bus() };
    assert_eq!(
        bus.read_raw(r::MAC_RXQ_CTRL0) & r::RXQ0EN_MASK,
        r::RXQ0EN_DCB
    );
    let txq = bus.read_raw(r::MTL_TXQ0_OP_MODE);
    assert_eq!((txq >> 2) & 3, r::TXQEN_ENABLED);
    assert_ne!(txq & (1 << 1), 0, "TSF");
    assert_ne!(bus.read_raw(r::MTL_RXQ0_OP_MODE) & (1 << 5), 0, "RSF");
    assert_eq!(b.mac.mac_address(), US);
    // MAC_CONFIG: TE, RE, DM, PS clear and FES clear at 1000.
    let c = b.bus.model(|m| m.mac_config());
    assert_eq!(c & 0b11, 0b11);
    assert_ne!(c & (1 << 13), 0);
    assert_eq!(c & (3 << 14), 0);
}

#[test]
fn tx_frames_go_out_in_order_with_ic_every_tx_frames_and_tail_doorbells() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(8, no_timer(4)), NoTimer, Coherent);
    let mut want = Vec::new();
    for k in 0..20u8 {
        let f = eth_frame([0xFF; 6], 60 + usize::from(k), k);
        tx.send(&b.mac, &f).unwrap();
        want.push(f);
        let ev = b.mac.take_events();
        tx.service(&b.mac, ev);
    }
    assert_eq!(b.sent(), want);
    let ics: Vec<bool> = b.bus.model(|m| m.sent().iter().map(|f| f.ic).collect());
    assert_eq!(ics.iter().filter(|&&ic| ic).count(), 5);
    assert!(ics[3] && ics[7] && !ics[0]);
    // The tail follows the ring: one past the last frame queued.
    // SAFETY: reads only.
    let tail = unsafe { b.mac.bus() }.read_raw(r::DMA_CH0_TX_TAIL);
    let stride = b.setup.desc_stride() as u64;
    assert_eq!(u64::from(tail), tx.base() + (20 % 8) * stride);
    tx.reclaim();
    assert_eq!(tx.pending(), 0);
}

#[test]
fn a_qos_tx_ring_holds_one_frame_fewer_than_its_descriptors() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    assert_eq!(tx.capacity(), 3);
    // A stalled TX FIFO: TXQEN off, the DMA keeps every descriptor.
    // SAFETY: the MTL queue enable only; no DMA address changes.
    unsafe { b.mac.bus() }.write_raw(r::MTL_TXQ0_OP_MODE, 0);
    for _ in 0..3 {
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    }
    assert_eq!(
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)),
        Err(Error::WouldBlock)
    );
    assert!(b.sent().is_empty());
    // The queue back on: all three leave, none twice, and the ring takes frames again.
    // SAFETY: as above.
    unsafe { b.mac.bus() }.write_raw(r::MTL_TXQ0_OP_MODE, (2 << 2) | (1 << 1));
    b.bus.model(|m| m.sync(b.clock.now_ns()));
    assert_eq!(b.sent().len(), 3);
    assert_eq!(tx.reclaim(), 3);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 61, 2)).unwrap();
    assert_eq!(b.sent().len(), 4);
}

#[test]
fn rx_frames_span_descriptors_and_the_ring_wraps_many_times() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    let mut scratch = [0u8; 1518];
    for k in 0..40u8 {
        // 1000 bytes + FCS over 512-byte buffers: two descriptors each.
        let f = eth_frame(US, 1000, k);
        b.inject(&f);
        let mut got = rx.receive(&b.mac).unwrap();
        assert_eq!((got.len(), got.descriptors()), (1000, 2));
        assert_eq!(got.bytes(&mut scratch).unwrap(), &f[..]);
    }
    assert_eq!(rx.stats().frames, 40);
    assert_eq!(b.bus.model(|m| m.rx_dropped()), 0);
    // A short one fits one descriptor and is lent in place.
    let f = eth_frame(US, 100, 7);
    b.inject(&f);
    let got = rx.receive(&b.mac).unwrap();
    assert_eq!(got.as_slice(), Some(&f[..]));
}

#[test]
fn rx_errors_are_dropped_and_counted_in_the_3x_counters() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 1536), Coherent);
    let now = b.clock.now_ns();
    for e in [
        RxWireError::Crc,
        RxWireError::Overflow,
        RxWireError::Watchdog,
        RxWireError::Mii,
    ] {
        b.bus
            .model(|m| m.inject_with_error(now, &eth_frame(US, 200, 1), e));
    }
    b.inject(&eth_frame(US, 300, 2));
    let got = rx.receive(&b.mac).unwrap();
    assert_eq!(got.len(), 300);
    drop(got);
    let s = rx.stats();
    assert_eq!(s.errors, 4, "{s:?}");
    assert_eq!(
        (
            s.crc_errors,
            s.overflow_errors,
            s.watchdog_errors,
            s.mii_errors
        ),
        (1, 1, 1, 1)
    );
}

#[test]
fn context_descriptors_are_skipped_and_counted() {
    let b = Board::with(
        stmmac_coalesce::sim::AnPhy::gigabit(),
        arena(),
        dma(),
        |m| m.with_timestamps(true),
    );
    b.link_up();
    let mut rx = b.rx(rx_cfg(6, 1536), Coherent);
    for k in 0..10u8 {
        let f = eth_frame(US, 200, k);
        b.inject(&f);
        let got = rx.receive(&b.mac).unwrap();
        assert_eq!(got.as_slice(), Some(&f[..]));
    }
    // The last frame's context descriptor is skipped on the next look.
    assert_eq!(rx.stats().context, 9);
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(rx.stats().context, b.bus.model(|m| m.rx_contexts()));
    assert_eq!(rx.stats().context, 10);
    assert_eq!(rx.stats().partial, 0);
}

#[test]
fn without_rxq0en_the_core_drops_everything_so_the_driver_sets_it() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
    b.inject(&eth_frame(US, 100, 1));
    assert!(rx.receive(&b.mac).is_ok());
    // The MTL step undone: every frame dropped by the MAC, none reaches the ring.
    // SAFETY: a MAC queue enable only.
    unsafe { b.mac.bus() }.write_raw(r::MAC_RXQ_CTRL0, 0);
    b.inject(&eth_frame(US, 100, 2));
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(b.bus.model(|m| m.rx_dropped_mtl()), 1);
}

#[test]
fn rings_above_4_gib_run_with_eame_and_are_refused_without_it() {
    // A 40-bit DMA and DRAM at 16 GiB (i.MX8MP / RK3568 style).
    let wide = SimArena::wide(0x4_0000_0000, 4 << 20);
    let b = Board::with(
        stmmac_coalesce::sim::AnPhy::gigabit(),
        wide.clone(),
        dma(),
        |m| m.with_addr_bits(40),
    );
    assert_eq!(b.setup.addr_bits(), 40);
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
    assert!(tx.base() >= 0x4_0000_0000);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 80, 3)).unwrap();
    assert_eq!(b.sent(), [eth_frame([0xFF; 6], 80, 3)]);
    let f = eth_frame(US, 700, 4);
    b.inject(&f);
    assert_eq!(rx.receive(&b.mac).unwrap().as_slice(), Some(&f[..]));
    // EAME cleared behind the driver's back: the next start refuses before any write.
    // SAFETY: the DMA is stopped first; the rings program their own bases.
    unsafe { b.mac.bus() }.write_raw(r::DMA_SYSBUS_MODE, 0);
    rx.recover(&b.mac);
    let (res, stats) = b.bus.counted(|| rx.try_start(&b.mac));
    assert_eq!(res, Err(Error::Config(ConfigError::AddressWidth)));
    // RIWT and IPC are written before the ring is checked; no base, length or tail.
    assert!(stats.writes <= 1, "{stats:?}");
    assert!(wide.bus_addr64(core::ptr::null()).is_none());
}

#[test]
fn a_4_00_core_gets_its_own_interrupt_enable_positions() {
    for (version, nie) in [
        (VERSION4_00, chan::NIE_4_00),
        (stmmac_coalesce::sim::VERSION4_10, chan::NIE_4_10),
    ] {
        let b = Board::with(
            stmmac_coalesce::sim::AnPhy::gigabit(),
            arena(),
            dma(),
            |m| m.with_version(version),
        );
        b.link_up();
        // SAFETY: reads only.
        let ena = unsafe { b.mac.bus() }.read_raw(r::DMA_CH0_INTR_ENA);
        assert_ne!(ena & nie, 0, "{version:#x}");
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
        let now = b.clock.now_ns();
        assert!(
            b.bus.model(|m| m.irq_pending(now)),
            "{version:#x}: TI raises the line"
        );
        let ev = b.mac.take_events();
        assert!(ev.tx_done());
        assert!(!b.bus.model(|m| m.irq_pending(now)), "acknowledged");
    }
}

#[test]
fn a_3x_ring_refuses_to_start_on_a_4x_mac_before_any_write() {
    let b = Board::new();
    let three = stmmac_coalesce::gmac3::resolve_dma(&dma(), 0x100D_4F37).unwrap();
    let mem = b
        .arena
        .region(ring_bytes(4, 1536, three.cache_line()))
        .unwrap();
    let mut tx = stmmac_coalesce::TxRing::new(
        mem,
        &b.arena,
        &three,
        tx_cfg(4, no_timer(1)),
        NoTimer,
        Coherent,
    )
    .unwrap();
    let (res, stats) = b.bus.counted(|| tx.try_start(&b.mac));
    assert_eq!(res, Err(Error::Config(ConfigError::LayoutMismatch)));
    assert_eq!(stats.writes, 0);
    assert!(!b.mac.layout_supported(three.layout()));
}

#[test]
fn the_tx_fifo_stall_and_a_bus_error_are_recovered() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
    b.bus
        .model(|m| m.fail_tx(stmmac_coalesce::sim::TxFault::BusError));
    let _ = tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0));
    let ev = b.mac.take_events();
    assert!(ev.fatal(), "{ev:?}");
    tx.service(&b.mac, ev);
    assert_eq!(tx.stats().recoveries, 1);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 9)).unwrap();
    assert_eq!(
        b.sent().last().map(Vec::as_slice),
        Some(&eth_frame([0xFF; 6], 60, 9)[..])
    );
}

#[test]
fn a_frame_longer_than_the_usable_ring_is_dropped_and_the_next_one_arrives() {
    // Found by tests/dwmac4_fuzz.rs: 8 descriptors of 64 bytes hold 7 × 64 = 448 bytes on
    // QoS (the tail's descriptor is never the DMA's). A 449-byte frame filled all 7 and
    // waited for the eighth forever, and every frame behind it with it.
    let b = Board::new();
    b.link_up();
    let cfg = stmmac_coalesce::RxConfig {
        descriptors: 8,
        buf_size: 64,
        max_frame: 444,
        ..stmmac_coalesce::RxConfig::default()
    };
    let mut rx = b.rx(cfg, Coherent);
    b.inject(&eth_frame(US, 445, 1));
    let good = eth_frame(US, 100, 2);
    b.inject(&good);
    let mut scratch = [0u8; 1518];
    let mut got = None;
    for _ in 0..8 {
        if let Ok(mut f) = rx.receive(&b.mac) {
            got = Some(f.bytes(&mut scratch).unwrap().to_vec());
            break;
        }
    }
    assert_eq!(got.as_deref(), Some(&good[..]));
    assert!(rx.stats().partial >= 1, "{:?}", rx.stats());
    // And a ring cannot promise more than it holds: 445 + FCS > 7 × 64.
    let mem = b
        .arena
        .region(ring_bytes(8, 64, b.setup.cache_line()))
        .unwrap();
    let too_big = stmmac_coalesce::RxConfig {
        max_frame: 445,
        ..cfg
    };
    assert_eq!(
        stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, too_big, Coherent).map(|_| ()),
        Err(Error::Config(ConfigError::MaxFrame))
    );
}

#[test]
fn a_ring_across_a_4_gib_boundary_is_refused() {
    // The current-descriptor and tail registers hold 32 bits; their high bits are the
    // base's. A ring whose descriptors cross 8 GiB would send the DMA back to 4 GiB.
    let wide = SimArena::wide(0x1_FFFF_FF00, 1 << 20);
    let b = Board::with(
        stmmac_coalesce::sim::AnPhy::gigabit(),
        wide.clone(),
        dma(),
        |m| m.with_addr_bits(40),
    );
    // 32 × 16-byte descriptors from 256 bytes below 8 GiB.
    let mem = wide
        .region(ring_bytes(32, 1536, b.setup.cache_line()))
        .unwrap();
    let mut tx = stmmac_coalesce::TxRing::new(
        mem,
        &wide,
        &b.setup,
        tx_cfg(32, no_timer(1)),
        NoTimer,
        Coherent,
    )
    .unwrap();
    assert!(tx.base() < 0x2_0000_0000, "{:#x}", tx.base());
    assert!(tx.base() + 31 * b.setup.desc_stride() as u64 >= 0x2_0000_0000);
    let (res, stats) = b.bus.counted(|| tx.try_start(&b.mac));
    assert_eq!(res, Err(Error::Config(ConfigError::AddressWidth)));
    assert_eq!(stats.writes, 0);
}

#[test]
fn pause_frames_follow_the_negotiated_pause_in_full_duplex_only() {
    use stmmac_coalesce::Pause;
    let b = Board::new();
    b.mac
        .set_flow_control(Pause { tx: true, rx: true }, Duplex::Full);
    assert_eq!(
        b.bus.model(|m| m.flow_ctrl()),
        [(0xFFFF << 16) | (1 << 1), 1]
    );
    b.mac.set_flow_control(
        Pause {
            tx: false,
            rx: true,
        },
        Duplex::Full,
    );
    assert_eq!(b.bus.model(|m| m.flow_ctrl()), [0, 1]);
    b.mac
        .set_flow_control(Pause { tx: true, rx: true }, Duplex::Half);
    assert_eq!(b.bus.model(|m| m.flow_ctrl()), [0, 0]);
}
