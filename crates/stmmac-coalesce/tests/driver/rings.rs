//! The driver (rings, coalescing, timer, MDIO, reset) against the model.

use crate::harness::*;

type Board = crate::harness::Board<OnGmac3>;
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::gmac3::regs::DMA_STATUS;
use stmmac_coalesce::sim::seed::{Rig, test_frame};
use stmmac_coalesce::sim::{SIM_CSR_HZ, eth_frame};
use stmmac_coalesce::{Coherent, DmaEvents, Error, NoTimer, TimerStrategy, TxConfig};

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
fn bad_frames_are_typed_errors_and_queue_nothing() {
    let b = Board::new();
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

#[test]
fn receive_strips_fcs_refills_and_wraps() {
    let b = Board::new();
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

#[test]
fn ru_is_serviced_with_one_poll_demand() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(2, 1536), Coherent);
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
fn stuck_reset_is_a_timeout() {
    let b = Board::new();
    assert!(b.mac.soft_reset(&b.counter).unwrap() >= 2);
    b.bus.model(|m| m.set_swr_stuck(true));
    assert_eq!(b.mac.soft_reset(&b.counter), Err(Error::Timeout));
}

#[test]
fn mac_address_round_trips() {
    let b = Board::new();
    let a = [0x52, 0x54, 0x00, 0x12, 0x34, 0x99];
    b.mac.set_mac_address(a);
    assert_eq!(b.mac.mac_address(), a);
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
    let mut rig = Rig::hrtimer(stmmac_coalesce::sim::seed::SEED, TimerStrategy::ArmOnce).unwrap();
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

#[test]
fn linux_strategy_pushes_the_deadline_out_every_packet() {
    let mut rig = Rig::hrtimer(
        stmmac_coalesce::sim::seed::SEED,
        TimerStrategy::RearmEveryPacket,
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

#[test]
fn in_place_fill_is_what_the_dma_sends() {
    let b = Board::new();
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
