//! The rings and the MACs on both models: TX and RX through the rings, bad frames, resets,
//! the station address, the cleanup timer; then what only GMAC 3.x has (poll demands, its
//! status word, TDES1's TER, its MDIO divider) and what only QoS has (tail pointers, ring
//! lengths, context descriptors, the MTL queues, 64-bit addresses, the version-dependent
//! interrupt enables).

use stmmac_coalesce::sim::seed::{Rig, test_frame};
use stmmac_coalesce::sim::{RxWireError, eth_frame};
use stmmac_coalesce::{Coherent, Dwmac, Error, NoTimer, TimerStrategy, TxConfig};

use crate::harness::*;

/// Which receive errors a generation's write-back folds into its error summary (the
/// driver's `RxStats::errors`).
trait RxErrorSummary: Generation {
    /// Of one frame each with a CRC, overflow, watchdog and MII error, how many the summary
    /// counts: on GMAC 3.x the MII error is counted on its own, outside the summary (the
    /// driver follows Linux's `ndesc_get_rx_status`: the summary need not cover it); on
    /// QoS all four.
    const SUMMARISED: u64;
}

impl RxErrorSummary for OnGmac3 {
    const SUMMARISED: u64 = 3;
}

impl RxErrorSummary for OnQos {
    const SUMMARISED: u64 = 4;
}

fn bad_frames_are_typed_errors_and_queue_nothing<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(2, no_timer(1)), NoTimer, Coherent);
    assert_eq!(tx.send(&b.mac, &[]), Err(Error::FrameSize { len: 0 }));
    assert_eq!(
        tx.send(&b.mac, &[0; 1537]),
        Err(Error::FrameSize { len: 1537 })
    );
    let t = tx.reserve(&b.mac).unwrap();
    assert_eq!(t.commit(0), Err(Error::FrameSize { len: 0 }));
    // Dropping a token sends nothing.
    let unused = tx.reserve(&b.mac).unwrap();
    let _ = unused;
    assert_eq!(tx.stats().sent, 0);
    assert!(b.sent().is_empty());
    assert_eq!(tx.pending(), 0);
}

fn receive_strips_fcs_refills_and_wraps<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(2, 1536), Coherent);
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    for k in 0..5u8 {
        let f = eth_frame(US, 100, k);
        b.inject(&f);
        let fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.len(), 100);
        assert_eq!(fr.as_slice().unwrap(), &f[..]);
        drop(fr);
        let ev = b.mac.take_events();
        assert!(ev.rx_ready());
    }
    assert_eq!(rx.received(), 5);
    assert_eq!(b.bus.model(|m| m.rx_dropped()), 0);
}

fn stuck_reset_is_a_timeout<G: Generation>() {
    let b = Board::<G>::new();
    assert!(b.mac.soft_reset(&b.counter).unwrap() >= 2);
    b.bus.model(|m| m.set_swr_stuck(true));
    assert_eq!(b.mac.soft_reset(&b.counter), Err(Error::Timeout));
}

fn mac_address_round_trips<G: Generation>() {
    let b = Board::<G>::new();
    let a = [0x52, 0x54, 0x00, 0x12, 0x34, 0x99];
    b.mac.set_mac_address(a);
    assert_eq!(b.mac.mac_address(), a);
}

fn linux_strategy_pushes_the_deadline_out_every_packet<G: Generation>() {
    let mut rig = Rig::<_, G::SeedBus>::hrtimer_on(
        stmmac_coalesce::sim::seed::SEED,
        TimerStrategy::RearmEveryPacket,
        0,
    )
    .unwrap();
    let id = rig.tx.timer().id();
    let frame = test_frame();
    let mut last = 0;
    for _ in 0..5 {
        rig.clock.advance(10_000);
        rig.tx.send(&rig.mac, &frame).unwrap();
        let d = rig.timers.deadline(id).unwrap();
        assert!(d > last);
        last = d;
    }
    assert_eq!(rig.tx.stats().timer_restarts, 5);
    assert_eq!(rig.probe.programs(), 5);
}

fn in_place_fill_is_what_the_dma_sends<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let mut tx = b.tx(
        TxConfig {
            buf_size: 1518,
            ..tx_cfg(8, no_timer(1))
        },
        NoTimer,
        Coherent,
    );
    for len in [14usize, 60, 1000, 1518] {
        let mut t = tx.reserve(&b.mac).unwrap();
        let buf = t.buffer();
        assert_eq!(buf.len(), 1518);
        for (i, b) in buf.iter_mut().enumerate().take(len) {
            *b = (i * 7) as u8;
        }
        t.commit(len).unwrap();
        let want: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        assert_eq!(b.sent().last(), Some(&want));
        tx.service(&b.mac, b.mac.take_events());
    }
}
fn rx_frames_span_descriptors_and_the_ring_wraps_many_times<G: Generation>() {
    let b = Board::<G>::new();
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

fn rx_errors_are_dropped_and_counted<G: RxErrorSummary>() {
    let b = Board::<G>::new();
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
    assert_eq!(s.errors, G::SUMMARISED, "{s:?}");
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

on_both!(
    bad_frames_are_typed_errors_and_queue_nothing,
    receive_strips_fcs_refills_and_wraps,
    stuck_reset_is_a_timeout,
    mac_address_round_trips,
    linux_strategy_pushes_the_deadline_out_every_packet,
    in_place_fill_is_what_the_dma_sends,
    rx_frames_span_descriptors_and_the_ring_wraps_many_times,
    rx_errors_are_dropped_and_counted,
);

mod gmac3_only {
    use super::*;

    type Board = crate::harness::Board<OnGmac3>;
    use mdio_bus::{Mdio, PhyAddr, RegAddr};
    use stmmac_coalesce::gmac3::regs::DMA_STATUS;
    use stmmac_coalesce::sim::seed::{Rig, test_frame};
    use stmmac_coalesce::sim::{SIM_CSR_HZ, eth_frame};
    use stmmac_coalesce::{Coherent, DmaEvents, Error, NoTimer, TimerStrategy};

    #[test]
    fn full_ring_is_would_block_until_the_dma_completes() {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(4, no_timer(2)), NoTimer, Coherent);
        // Stall the DMA: descriptors stay owned, the ring fills.
        b.bus.model(|m| m.set_tx_stall(0, true));
        for _ in 0..4 {
            tx.send(&b.mac, &test_frame()).unwrap();
        }
        assert_eq!(tx.reserve(&b.mac).map(|_| ()), Err(Error::WouldBlock));
        assert_eq!(tx.reclaim(), 0);
        b.bus.model(|m| m.set_tx_stall(b.clock.now_ns(), false));
        // `reserve` reclaims by itself once the DMA is done.
        tx.send(&b.mac, &test_frame()).unwrap();
        assert_eq!(b.sent().len(), 5);
        // IC on frames 2 and 4; TER on the last descriptor.
        let ics: Vec<bool> = b.bus.model(|m| m.sent().iter().map(|f| f.ic).collect());
        assert_eq!(ics, [false, true, false, true, false]);
        assert_ne!(
            tx.desc_words(3).unwrap()[1] & stmmac_coalesce::gmac3::regs::desc::TDES1_TER,
            0
        );
        assert_eq!(tx.stats().sent, 5);
    }

    #[test]
    fn ru_is_serviced_with_one_poll_demand() {
        let b = Board::new();
        b.link_up();
        let mut rx = b.rx(rx_cfg(2, 1536), Coherent);
        // RU is not in the default mask: a driver that wants this path enables it (RUE).
        b.mac
            .set_interrupts(stmmac_coalesce::gmac3::regs::DMA_INTR_DEFAULT | (1 << 7));
        for k in 0..3 {
            b.inject(&eth_frame(US, 100, k));
        }
        let ev = b.mac.take_events();
        assert!(ev.rx_no_buffer());
        let demands = rx.stats().poll_demands;
        assert!(rx.service(&b.mac, ev));
        assert_eq!(rx.stats().no_buffer, 1);
        let mut n = 0;
        while rx.receive(&b.mac).is_ok() {
            n += 1;
        }
        assert_eq!(n, 2);
        // One for RU, one when the batch ran dry: not one per frame.
        assert_eq!(rx.stats().poll_demands, demands + 2);
        assert_eq!(b.bus.model(|m| m.rx_dropped()), 1);
    }

    #[test]
    fn mdio_reads_the_phy_id_and_times_out_when_gb_sticks() {
        let b = Board::new();
        let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
        assert_eq!(mdio.cr(), 1);
        let p0 = PhyAddr::new(0).unwrap();
        let t0 = b.clock.now_ns();
        let hi = mdio.read(p0, RegAddr::new(2).unwrap()).unwrap();
        let lo = mdio.read(p0, RegAddr::new(3).unwrap()).unwrap();
        assert_eq!(u32::from(hi) << 16 | u32::from(lo), 0x0362_5e6a);
        // Two frames of 31.75 µs each (MDC = 125 MHz / 62), plus polling overhead.
        let frame = mdio_bus::frame_ns(SIM_CSR_HZ / 62);
        let took = b.clock.now_ns() - t0;
        assert!(took >= 2 * frame && took < 2 * frame + 10_000, "{took}");
        b.bus.model(|m| m.set_mdio_stuck(true));
        drop(mdio); // one master at a time
        let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
        let t1 = b.clock.now_ns();
        assert_eq!(
            mdio.read(p0, RegAddr::new(1).unwrap()),
            Err(hwtimer_core::Error::Timeout)
        );
        assert!(
            b.clock.now_ns() - t1 >= 10_000_000,
            "bounded by 10 ms, not earlier"
        );
        assert!(b.clock.now_ns() - t1 < 11_000_000);
        assert!(matches!(
            b.mac.mdio(&b.counter, 10_000_000),
            Err(Error::CsrClock)
        ));
    }

    #[test]
    fn events_are_read_and_acknowledged_once() {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        tx.send(&b.mac, &test_frame()).unwrap();
        let ev = b.mac.take_events();
        assert!(ev.tx_done() && !ev.rx_ready() && !ev.tx_fault() && !ev.fatal());
        assert!(b.mac.take_events().is_empty());
        assert_eq!(b.mac.status().read(DMA_STATUS::TI), 0);
        assert_eq!(tx.service(&b.mac, ev), 1);
        assert_eq!(tx.service(&b.mac, DmaEvents::NONE), 0);
    }

    #[test]
    fn timer_is_armed_once_and_rearmed_only_while_pending() {
        let mut rig =
            Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
        let id = rig.tx.timer().id();
        let frame = test_frame();
        rig.tx.send(&rig.mac, &frame).unwrap();
        let d0 = rig.timers.deadline(id).unwrap();
        for _ in 0..5 {
            rig.clock.advance(10_000);
            rig.tx.send(&rig.mac, &frame).unwrap();
        }
        assert_eq!(rig.timers.deadline(id), Some(d0), "never pushed out");
        assert_eq!(rig.tx.stats().timer_starts, 1);
        assert_eq!(rig.probe.programs(), 1);
        // Expiry reclaims everything; nothing pending, so it stays idle.
        let t = rig.probe.next_fire_ns().unwrap();
        rig.service_timers_until(t);
        assert_eq!(rig.tx.pending(), 0);
        assert!(!rig.timers.is_queued(id));
        assert_eq!(rig.tx.stats().timer_expiries, 1);
        // Expiry with descriptors still owned by a running (slow) DMA: re-armed.
        rig.bus.model(|m| m.set_tx_stall(0, true));
        rig.tx.send(&rig.mac, &frame).unwrap();
        let t = rig.probe.next_fire_ns().unwrap();
        rig.service_timers_until(t);
        assert_eq!(rig.tx.pending(), 1);
        assert!(rig.timers.is_queued(id), "re-armed while pending");
        let now = rig.clock.now_ns();
        rig.bus.model(|m| m.set_tx_stall(now, false));
        let t = rig.probe.next_fire_ns().unwrap();
        rig.service_timers_until(t);
        assert_eq!(rig.tx.pending(), 0);
        assert!(!rig.timers.is_queued(id));
        assert_eq!(rig.tx.stats().recoveries, 0);
    }
}

mod qos_only {
    use super::*;

    type Board = crate::harness::Board<OnQos>;

    fn dma() -> stmmac_coalesce::DmaConfig {
        OnQos::dma()
    }
    use hwtimer_core::RegisterBusExt;
    use stmmac_coalesce::qos::regs::{self as r, chan};
    use stmmac_coalesce::sim::{SimArena, VERSION4_00, eth_frame};
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
        // SAFETY: the set-up's ring is refused by the QoS MAC before any write (the test).
        let three =
            unsafe { dma().resolve_assuming_layout(stmmac_coalesce::DescLayout::Normal) }.unwrap();
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
        // Found by the descriptor properties (tests/fuzz): 8 descriptors of 64 bytes hold
        // 7 × 64 = 448 bytes on QoS (the tail's descriptor is never the DMA's). A 449-byte frame filled all 7 and
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
}
