//! The driver (rings, coalescing, timer, MDIO, reset) against the model.

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::sim::PhyModel;
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use stmmac_coalesce::regs::DMA_STATUS;
use stmmac_coalesce::sim::seed::{Rig, test_frame};
use stmmac_coalesce::sim::{DwmacModel, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{CoalesceConfig, DmaAddr, Dwmac, Error, RxRing, TimerStrategy, TxRing};

fn mac() -> (
    SimClock,
    SimArena,
    Dwmac<SimBus<DwmacModel<PhyModel>>>,
    SimCounter,
) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x1000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let mac = Dwmac::new(SimBus::new(
        &clock,
        DwmacModel::new(arena.clone(), phy, SIM_CSR_HZ),
    ));
    let counter = SimCounter::new(&clock, 32, 25_000_000);
    (clock, arena, mac, counter)
}

fn no_timer(frames: u32) -> CoalesceConfig {
    CoalesceConfig {
        tx_frames: frames,
        tx_usecs: 0,
        ..CoalesceConfig::SEED
    }
}

#[test]
fn full_ring_is_would_block_until_reclaimed() {
    let (_c, arena, mac, counter) = mac();
    mac.soft_reset(&counter).unwrap();
    let mut tx = TxRing::new(
        arena.tx_descs(4).unwrap(),
        arena.buffers(4).unwrap(),
        arena.clone(),
        no_timer(2),
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    mac.set_ring_bases(tx.base(), 0);
    // DMA not started: descriptors stay owned, the ring fills.
    for _ in 0..4 {
        tx.transmit(&mac, &test_frame(), false).unwrap();
    }
    assert_eq!(
        tx.transmit(&mac, &test_frame(), false),
        Err(Error::WouldBlock)
    );
    assert_eq!(tx.reclaim(), 0);
    mac.start(); // ST: the DMA sends all four
    assert_eq!(mac.bus().model(|m| m.sent().len()), 4);
    assert_eq!(tx.reclaim(), 4);
    assert_eq!(tx.pending(), 0);
    // IC on frames 2 and 4; TER on the last descriptor.
    let ics: Vec<bool> = mac.bus().model(|m| m.sent().iter().map(|f| f.ic).collect());
    assert_eq!(ics, [false, true, false, true]);
    assert_ne!(
        tx.desc(3).unwrap().word(1) & stmmac_coalesce::regs::desc::TDES1_TER,
        0
    );
    // Wrapped: the next frames use descriptors 0.. again.
    tx.transmit(&mac, &test_frame(), false).unwrap();
    assert_eq!(mac.bus().model(|m| m.sent().len()), 5);
    assert_eq!(tx.stats().sent, 5);
}

#[test]
fn bad_frames_and_rings_are_typed_errors() {
    let (_c, arena, mac, _) = mac();
    let mut tx = TxRing::new(
        arena.tx_descs(2).unwrap(),
        arena.buffers(2).unwrap(),
        arena.clone(),
        no_timer(1),
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    assert_eq!(
        tx.transmit(&mac, &[], false),
        Err(Error::FrameSize { len: 0 })
    );
    assert_eq!(
        tx.transmit(&mac, &[0; 1537], false),
        Err(Error::FrameSize { len: 1537 })
    );
    assert!(matches!(
        TxRing::new(
            arena.tx_descs(0).unwrap(),
            arena.buffers(0).unwrap(),
            arena.clone(),
            no_timer(1),
            TimerStrategy::ArmOnce
        ),
        Err(Error::RingSize)
    ));
    let bad = CoalesceConfig {
        tx_frames: 0,
        tx_usecs: 0,
        ..CoalesceConfig::SEED
    };
    assert!(matches!(
        TxRing::new(
            arena.tx_descs(1).unwrap(),
            arena.buffers(1).unwrap(),
            arena.clone(),
            bad,
            TimerStrategy::ArmOnce
        ),
        Err(Error::Config(_))
    ));
    // Memory the DMA cannot address.
    struct Nowhere;
    impl DmaAddr for Nowhere {
        fn bus_addr(&self, _: *const u8) -> Option<u32> {
            None
        }
    }
    assert!(matches!(
        RxRing::new(
            arena.rx_descs(1).unwrap(),
            arena.buffers(1).unwrap(),
            Nowhere,
            false
        ),
        Err(Error::DmaAddress)
    ));
}

#[test]
fn receive_strips_fcs_refills_and_wraps() {
    let (clock, arena, mac, counter) = mac();
    mac.soft_reset(&counter).unwrap();
    let mut rx = RxRing::new(
        arena.rx_descs(2).unwrap(),
        arena.buffers(2).unwrap(),
        arena.clone(),
        false,
    )
    .unwrap();
    mac.set_ring_bases(0, rx.base());
    mac.start();
    assert_eq!(rx.receive(&mac, |_| ()).map(|_| ()), Err(Error::WouldBlock));
    for k in 0..5u8 {
        mac.bus().model(|m| m.inject(clock.now_ns(), &[k; 100]));
        let f = rx.receive(&mac, |b| (b.len(), b[0])).unwrap();
        assert_eq!(f.fl, 104);
        assert_eq!(f.value, (100, k));
        assert!(mac.status().is_set(DMA_STATUS::RI));
        mac.ack(1 << 6);
    }
    assert_eq!(rx.received(), 5);
    assert_eq!(mac.bus().model(|m| m.rx_dropped()), 0);
}

#[test]
fn mdio_reads_the_phy_id_and_times_out_when_gb_sticks() {
    let (clock, _arena, mac, counter) = mac();
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    assert_eq!(mdio.cr(), 1);
    let p0 = PhyAddr::new(0).unwrap();
    let t0 = clock.now_ns();
    let hi = mdio.read(p0, RegAddr::new(2).unwrap()).unwrap();
    let lo = mdio.read(p0, RegAddr::new(3).unwrap()).unwrap();
    assert_eq!(u32::from(hi) << 16 | u32::from(lo), 0x0362_5e6a);
    // Two frames of 31.75 µs each (MDC = 125 MHz / 62), plus polling overhead.
    let frame = mdio_bus::frame_ns(SIM_CSR_HZ / 62);
    let took = clock.now_ns() - t0;
    assert!(took >= 2 * frame && took < 2 * frame + 10_000, "{took}");
    mdio.write(p0, RegAddr::new(4).unwrap(), 0x01e1).unwrap();
    assert_eq!(mdio.read(p0, RegAddr::new(4).unwrap()).unwrap(), 0x01e1);
    mac.bus().model(|m| m.set_mdio_stuck(true));
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let t1 = clock.now_ns();
    assert_eq!(
        mdio.read(p0, RegAddr::new(1).unwrap()),
        Err(hwtimer_core::Error::Timeout)
    );
    assert!(
        clock.now_ns() - t1 >= 10_000_000,
        "bounded by 10 ms, not earlier"
    );
    assert!(clock.now_ns() - t1 < 11_000_000);
    assert!(matches!(
        mac.mdio(&counter, 10_000_000),
        Err(Error::CsrClock)
    ));
}

#[test]
fn stuck_reset_is_a_timeout() {
    let (_c, _arena, mac, counter) = mac();
    assert!(mac.soft_reset(&counter).unwrap() >= 2);
    mac.bus().model(|m| m.set_swr_stuck(true));
    assert_eq!(mac.soft_reset(&counter), Err(Error::Timeout));
}

#[test]
fn mac_address_round_trips() {
    let (_c, _arena, mac, _) = mac();
    let a = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    mac.set_mac_address(a);
    assert_eq!(mac.mac_address(), a);
    assert_eq!(
        mac.bus()
            .model(|m| stmmac_coalesce::sim::DwmacModel::sent(m).len()),
        0
    );
}

#[test]
fn timer_is_armed_once_and_rearmed_only_while_pending() {
    let mut rig = Rig::hrtimer(CoalesceConfig::SEED, TimerStrategy::ArmOnce).unwrap();
    let id = rig.tx.timer().unwrap().id();
    let frame = test_frame();
    rig.tx
        .transmit_timed(&rig.mac, &rig.timers, &frame)
        .unwrap();
    let d0 = rig.timers.deadline(id).unwrap();
    for _ in 0..5 {
        rig.clock.advance(10_000);
        rig.tx
            .transmit_timed(&rig.mac, &rig.timers, &frame)
            .unwrap();
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
    // Expiry with descriptors still owned by the DMA: stop TX so they stay pending.
    rig.mac.stop();
    rig.tx
        .transmit_timed(&rig.mac, &rig.timers, &frame)
        .unwrap();
    let t = rig.probe.next_fire_ns().unwrap();
    rig.service_timers_until(t);
    assert_eq!(rig.tx.pending(), 1);
    assert!(rig.timers.is_queued(id), "re-armed while pending");
    rig.mac.start();
    let t = rig.probe.next_fire_ns().unwrap();
    rig.service_timers_until(t);
    assert_eq!(rig.tx.pending(), 0);
    assert!(!rig.timers.is_queued(id));
}

#[test]
fn linux_strategy_pushes_the_deadline_out_every_packet() {
    let mut rig = Rig::hrtimer(CoalesceConfig::SEED, TimerStrategy::RearmEveryPacket).unwrap();
    let id = rig.tx.timer().unwrap().id();
    let frame = test_frame();
    let mut last = 0;
    for _ in 0..5 {
        rig.clock.advance(10_000);
        rig.tx
            .transmit_timed(&rig.mac, &rig.timers, &frame)
            .unwrap();
        let d = rig.timers.deadline(id).unwrap();
        assert!(d > last);
        last = d;
    }
    assert_eq!(rig.tx.stats().timer_restarts, 5);
    assert_eq!(rig.probe.programs(), 5);
}
