//! Dead blocks: a DWMAC whose registers all read 0x0000_0000 (clock gated, block held in
//! reset) or 0xFFFF_FFFF (nothing decodes the address). Every public call of the MAC, its
//! MDIO master and the rings returns, with a typed error or the value read, within a stated
//! number of register reads counted by the sim bus; nothing hangs or panics.

use hwtimer_core::sim::{Dead, SimBus, SimClock, SimCounter, StoppedCounter, dead_values};
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::common::{MDIO_TIMEOUT_US, SWR_TIMEOUT_US};
use stmmac_coalesce::sim::{SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, Duplex, Error, FrameFilter, Gmac3, LinkState, NoTimer,
    RxConfig, RxRing, Speed, TimerStrategy, TxConfig, TxRing,
};

/// One poll of a wait: a register read (100 ns, the `SimBus` default) and a clocksource
/// read (100 ns, the `SimCounter` default).
const POLL_NS: u64 = 200;
/// The stated bound of one bounded wait, in register reads: one per poll until the
/// deadline, plus the first read and the one after the deadline.
const fn wait_reads(timeout_us: u64) -> u64 {
    timeout_us * 1_000 / POLL_NS + 3
}
/// DMA_BUS_MODE.SWR: 50 003 reads. MII_ADDR.GB: 50 003 reads.
const SWR_READS: u64 = wait_reads(SWR_TIMEOUT_US);
const MDIO_READS: u64 = wait_reads(MDIO_TIMEOUT_US);

fn dead(value: u32) -> (SimClock, SimCounter, SimBus<Dead<u32>>) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000);
    let bus = SimBus::new(&clock, Dead(value));
    (clock, counter, bus)
}

#[test]
fn mac_on_a_dead_block_returns_within_its_read_bound() {
    for (value, name) in dead_values::<u32>() {
        let (_clock, counter, bus) = dead(value);
        let mac = Gmac3::new(bus.clone());
        let reads = |f: &dyn Fn()| bus.counted(f).1.reads;
        // Plain reads return what the bus gives, one read each.
        assert_eq!(reads(&|| assert_eq!(mac.version(), value)), 1);
        assert_eq!(reads(&|| assert_eq!(mac.hw_feature(), value)), 1);
        assert_eq!(reads(&|| assert_eq!(mac.status().get(), value)), 1);
        assert_eq!(
            reads(&|| {
                let _ = mac.mac_address();
            }),
            2
        );
        // Writes read nothing.
        assert_eq!(
            reads(&|| {
                mac.set_mac_address([2, 0, 0, 0, 0, 1]);
                mac.set_filter(&FrameFilter::default());
                // SAFETY: the dead block has no DMA behind it.
                unsafe { mac.set_ring_bases(0x1000, 0x2000) };
                mac.set_interrupts(u32::MAX);
                mac.set_riwt(0xFF);
                mac.ack(u32::MAX);
            }),
            0
        );
        // Read-modify-writes and status reads: one read each.
        let up = LinkState::up(Speed::M100, Duplex::Full);
        assert_eq!(reads(&|| assert!(mac.set_link(up))), 1);
        // The stop waits for TS/RS Stopped: at once on a block reading 0, after its bound
        // (STOP_POLLS status reads and one more) on one reading all ones.
        let (r, stats) = bus.counted(|| mac.stop());
        if value == 0 {
            assert_eq!((r, stats.reads), (Ok(()), 3));
        } else {
            assert_eq!(r, Err(Error::Timeout));
            assert_eq!(
                stats.reads,
                2 + u64::from(stmmac_coalesce::common::STOP_POLLS) + 1
            );
        }
        assert_eq!(reads(&|| mac.stop_tx_dma()), 1);
        assert_eq!(reads(&|| mac.stop_rx_dma()), 1);
        assert_eq!(reads(&|| assert!(mac.tx_stopped() || value == u32::MAX)), 1);
        assert_eq!(
            reads(&|| assert_eq!(
                mac.take_events(),
                stmmac_coalesce::gmac3::events_from_status(value)
            )),
            1
        );
        // HW_FEATURE reads 0 or all ones: it tells no layout, so the set-up is refused
        // after that one read.
        assert_eq!(
            reads(&|| assert_eq!(
                mac.configure_dma(&DmaConfig::default()),
                Err(Error::Config(stmmac_coalesce::ConfigError::NoHwFeature))
            )),
            1
        );
        // The reset wait: SWR reads set forever on an all-ones block.
        let (r, stats) = bus.counted(|| mac.soft_reset(&counter));
        let n = stats.reads;
        if value == 0 {
            assert_eq!((r, n), (Ok(1), 1), "SWR reads clear at once");
        } else {
            assert_eq!(r, Err(Error::Timeout));
            assert!((2..=SWR_READS).contains(&n), "{n} reads");
        }
        eprintln!("dead-block dwmac ({name}) soft_reset: {r:?} in {n} reads");
        // MDIO: GB reads set forever on an all-ones block.
        assert!(matches!(mac.mdio(&counter, 0), Err(Error::CsrClock)));
        assert!(matches!(mac.mdio(&counter, u32::MAX), Err(Error::CsrClock)));
        let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
        let (phy, reg) = (PhyAddr::from_bits(1), RegAddr::from_bits(2));
        for op in 0..4 {
            let (r, stats) = bus.counted(|| {
                if op % 2 == 0 {
                    mdio.read(phy, reg)
                } else {
                    mdio.write(phy, reg, 0x1234).map(|()| 0)
                }
            });
            let n = stats.reads;
            eprintln!("dead-block dwmac ({name}) mdio op {op}: {r:?} in {n} reads");
            if value == 0 {
                // GB clear: the first frame checks it once more (unknown state at first).
                let expected = match op {
                    0 => 3,            // busy check, frame wait, MII_DATA
                    1 => 1,            // frame wait
                    _ => 2 - (op % 2), // read: frame wait + MII_DATA; write: frame wait
                };
                assert_eq!(r, Ok(0), "op {op}");
                assert_eq!(n, expected, "op {op}");
            } else {
                // GB set: the busy check before the frame times out; nothing is written.
                assert_eq!(r, Err(hwtimer_core::Error::Timeout), "op {op}");
                assert!((2..=MDIO_READS).contains(&n), "op {op}: {n} reads");
            }
        }
    }
}

/// A 4-descriptor TX ring without a timer, IC every `tx_frames`.
fn tx_ring(arena: &SimArena, setup: &stmmac_coalesce::DmaSetup, tx_frames: u32) -> TxRing {
    let cfg = TxConfig {
        descriptors: 4,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs: 0,
            ..stmmac_coalesce::sim::seed::SEED
        },
        strategy: TimerStrategy::ArmOnce,
    };
    TxRing::new(
        arena.region(16 * 1024).unwrap(),
        arena,
        setup,
        cfg,
        NoTimer,
        Coherent,
    )
    .unwrap()
}

#[test]
fn rings_on_a_dead_block_read_no_register_and_end_in_would_block() {
    for (value, _name) in dead_values::<u32>() {
        let (_clock, _counter, bus) = dead(value);
        let mac = Gmac3::new(bus.clone());
        let arena = SimArena::new(0x1000_0000, 64 * 1024);
        // The block cannot be configured (HW_FEATURE reads 0 or all ones); the rings are
        // built for the set-up of a live core.
        // SAFETY: the normal layout of a live core (`sim::HW_FEATURE`); the dead MAC
        // refuses to start its rings (no layout known).
        let setup = unsafe {
            DmaConfig::default().resolve_assuming_layout(stmmac_coalesce::DescLayout::Normal)
        }
        .unwrap();
        let rx_cfg = RxConfig {
            descriptors: 4,
            ..RxConfig::default()
        };
        let mut tx = tx_ring(&arena, &setup, 2);
        let mut rx = RxRing::new(
            arena.region(16 * 1024).unwrap(),
            &arena,
            &setup,
            rx_cfg,
            Coherent,
        )
        .unwrap();
        let ((), st) = bus.counted(|| {
            tx.start(&mac);
            rx.start(&mac);
        });
        // DSL read back, DMA_CONTROL (stop if running), the process state (Stopped at once
        // on a block reading 0), DMA_CONTROL again for the start: at most four reads each.
        // (All ones reads DSL 31: the start is refused.)
        assert!(st.reads <= 8, "{} reads", st.reads);
        mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
        // No DMA ever completes: the ring fills, then refuses; nothing is reclaimed.
        let ((), st) = bus.counted(|| {
            for _ in 0..4 {
                tx.send(&mac, &[0xAB; 60]).unwrap();
            }
            assert_eq!(tx.send(&mac, &[0xAB; 60]), Err(Error::WouldBlock));
            assert_eq!(tx.reclaim(), 0);
            assert_eq!(rx.receive(&mac).map(|f| f.len()), Err(Error::WouldBlock));
        });
        assert_eq!(st.reads, 0, "the rings only write to the MAC");
        // Servicing a dead block's "events" returns: recovery reads DMA_CONTROL a bounded
        // number of times, and each stop waits at most its bound (an all-ones block never
        // reads Stopped).
        let ((), st) = bus.counted(|| {
            let ev = mac.take_events();
            tx.service(&mac, ev);
            rx.service(&mac, ev);
            let _ = tx.on_timer(&mac, 0);
        });
        let stop = u64::from(stmmac_coalesce::common::STOP_POLLS) + 1;
        assert!(st.reads <= 16 + 3 * stop, "{} reads", st.reads);
    }
}

/// A block that dies while in use (`SimBus::go_dead`): the frames already queued stay
/// queued, new ones still go out (writes reach the model), and every wait on a register
/// ends within its bound with a typed error.
#[test]
fn a_block_that_dies_mid_run_bounds_every_wait() {
    use hwtimer_core::sim::SimBus;
    use stmmac_coalesce::sim::{AnPhy, Gmac3Model};
    for (value, name) in dead_values::<u32>() {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let arena = SimArena::new(0x1000_0000, 256 * 1024);
        let bus = SimBus::new(
            &clock,
            Gmac3Model::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ),
        );
        let mac = Gmac3::new(bus.clone());
        mac.soft_reset(&counter).unwrap();
        let setup = mac
            .configure_dma(&DmaConfig {
                csr_hz: SIM_CSR_HZ,
                ..DmaConfig::default()
            })
            .unwrap();
        let mut tx = tx_ring(&arena, &setup, 1);
        tx.start(&mac);
        mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
        tx.send(&mac, &[0xAB; 60]).unwrap();
        bus.go_dead(Some(value));
        // TX reads no register: it goes on.
        tx.send(&mac, &[0xCD; 60]).unwrap();
        assert_eq!(bus.model(|m| m.sent().len()), 2, "{name}");
        // The waits end with their errors.
        let (r, st) = bus.counted(|| mac.soft_reset(&counter));
        if value == 0 {
            assert_eq!(r, Ok(1), "{name}: SWR reads clear");
        } else {
            assert_eq!(r, Err(Error::Timeout), "{name}");
            assert!((2..=SWR_READS).contains(&st.reads), "{name}: {st:?}");
        }
        let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
        let (r, st) = bus.counted(|| mdio.read(PhyAddr::from_bits(0), RegAddr::from_bits(1)));
        if value == 0 {
            assert_eq!(r, Ok(0), "{name}: MII_DATA reads 0");
        } else {
            assert_eq!(r, Err(hwtimer_core::Error::Timeout), "{name}");
            assert!((2..=MDIO_READS).contains(&st.reads), "{name}: {st:?}");
        }
    }
}

#[test]
fn a_stopped_clock_cannot_hang_the_reset_or_mdio_waits() {
    use hwtimer_core::poll::DEFAULT_MAX_POLLS;
    let (_clock, _counter, bus) = dead(u32::MAX);
    let mac = Gmac3::new(bus.clone());
    assert_eq!(mac.soft_reset(StoppedCounter), Err(Error::Timeout));
    // The poll-count backstop ends it: a frozen clock cannot stretch a wait.
    assert_eq!(bus.stats().reads, u64::from(DEFAULT_MAX_POLLS));
    bus.reset_stats();
    let mut mdio = mac.mdio(StoppedCounter, SIM_CSR_HZ).unwrap();
    assert_eq!(
        mdio.read(PhyAddr::from_bits(0), RegAddr::from_bits(0)),
        Err(hwtimer_core::Error::Timeout)
    );
    assert_eq!(bus.stats().reads, u64::from(DEFAULT_MAX_POLLS));
}
