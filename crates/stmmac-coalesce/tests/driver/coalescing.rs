//! RX and TX coalescing: interrupts, the cleanup timer, run-time changes and recovery.

use crate::harness::*;
use std::cell::Cell;

use hwtimer_core::Restart;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::gmac3::regs::DMA_STATUS;
use stmmac_coalesce::ring::coalesce::usec2riwt;
use stmmac_coalesce::sim::{AnPhy, SIM_CSR_HZ, TxFault, eth_frame};
use stmmac_coalesce::{
    CleanupTimer, CoalesceConfig, Coherent, ConfigError, DmaConfig, Error, NoTimer, QueueTimer,
    RxConfig, TimerStrategy, TxConfig,
};

// ---- RX coalescing -------------------------------------------------------------------------

fn rx_coalesce(rx_usecs: u32, rx_frames: u32) -> RxConfig {
    RxConfig {
        descriptors: 16,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            rx_usecs,
            rx_frames,
            ..CoalesceConfig::default()
        },
        ..RxConfig::default()
    }
}

/// RI raised and not yet acknowledged: bit 6 of GMAC 3.x DMA_STATUS and of QoS
/// DMA_CH0_STATUS (Linux `dwmac_dma.h` DMA_STATUS_RI, `dwmac4_dma.h` DMA_CHAN_STATUS_RI).
fn ri<G: Generation>(b: &Board<G>) -> bool {
    b.raw_status() & (1 << 6) != 0
}

fn rx_coalescing_zero_usecs_interrupts_per_frame_without_watchdog<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let rx = b.rx(rx_coalesce(0, 0), Coherent);
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, G::RIWT_OFFSET)),
        0
    );
    for i in 0..16 {
        assert!(!G::rx_irq_suppressed(rx.desc_words(i).unwrap()), "{i}");
    }
    b.inject(&eth_frame(US, 60, 0));
    assert!(ri::<G>(&b));
}

fn rx_coalescing_usecs_only_interrupts_from_the_watchdog<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let rx = b.rx(rx_coalesce(100, 0), Coherent);
    let riwt = usec2riwt(100, SIM_CSR_HZ);
    assert_eq!(riwt, 48);
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, G::RIWT_OFFSET)),
        riwt
    );
    for i in 0..16 {
        assert!(G::rx_irq_suppressed(rx.desc_words(i).unwrap()), "{i}");
    }
    for _ in 0..3 {
        b.inject(&eth_frame(US, 60, 0));
    }
    assert!(!ri::<G>(&b), "no RI per frame");
    // 48 × 256 / 125 MHz = 98.304 µs after the first frame.
    b.clock.advance(98_304);
    assert!(ri::<G>(&b), "RI from RIWT");
}

fn rx_coalescing_frames_interrupts_a_burst_before_the_watchdog<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let _rx = b.rx(rx_coalesce(100, 4), Coherent);
    for k in 0..3 {
        b.inject(&eth_frame(US, 60, k));
        assert!(!ri::<G>(&b), "frame {k}: still coalesced");
    }
    b.inject(&eth_frame(US, 60, 3));
    assert!(ri::<G>(&b), "the 4th frame interrupts at once");
    let _ = b.mac.take_events();
    // A burst of 2 waits for the watchdog.
    b.inject(&eth_frame(US, 60, 4));
    b.inject(&eth_frame(US, 60, 5));
    assert!(!ri::<G>(&b));
    b.clock.advance(98_304);
    assert!(ri::<G>(&b));
}

fn rx_coalescing_values_are_checked_and_change_at_run_time<G: Generation>() {
    let b = Board::<G>::new();
    let bad = |rx_usecs, rx_frames| {
        let mem = b.arena.region(64 * 1024).unwrap();
        stmmac_coalesce::RxRing::new(
            mem,
            &b.arena,
            &b.setup,
            rx_coalesce(rx_usecs, rx_frames),
            Coherent,
        )
        .map(|_| ())
    };
    assert_eq!(
        bad(0, 4),
        Err(Error::Config(ConfigError::RxFramesWithoutWatchdog))
    );
    // `rx_frames` counts frames the DMA may hold at once: all 16 descriptors on GMAC 3.x,
    // one fewer on QoS (the tail pointer never reaches the current descriptor), so an IC
    // after `rx_frames` frames is reachable only up to the ring's capacity.
    let cap = u32::try_from(G::ring_capacity(16)).unwrap();
    assert_eq!(
        bad(100, cap + 1),
        Err(Error::Config(ConfigError::RxFramesExceedRing))
    );
    assert_eq!(bad(100, cap), Ok(()));
    assert_eq!(bad(1, 0), Err(Error::Config(ConfigError::RiwtOutOfRange)));
    let nocsr = Board::<G>::with(
        AnPhy::gigabit(),
        arena(),
        DmaConfig {
            csr_hz: 0,
            ..G::dma()
        },
        |m| m,
    );
    let mem = nocsr.arena.region(64 * 1024).unwrap();
    assert!(matches!(
        stmmac_coalesce::RxRing::new(
            mem,
            &nocsr.arena,
            &nocsr.setup,
            rx_coalesce(100, 0),
            Coherent
        ),
        Err(Error::Config(ConfigError::NoCsrClock))
    ));
    let mut rx = b.rx(rx_coalesce(0, 0), Coherent);
    rx.set_coalesce(
        &b.mac,
        CoalesceConfig {
            rx_usecs: 200,
            ..CoalesceConfig::default()
        },
    )
    .unwrap();
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, G::RIWT_OFFSET)),
        usec2riwt(200, SIM_CSR_HZ)
    );
}

// ---- TX coalescing footguns -------------------------------------------------------------

fn timed(tx_frames: u32, tx_usecs: u32, descriptors: usize) -> TxConfig {
    TxConfig {
        descriptors,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    }
}

fn tx_timer_period_comes_from_the_configuration_alone<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    assert_eq!(tx.period_ticks(), 25_000, "1000 us at 25 MHz");
    let t0 = timers.now().unwrap();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let t1 = timers.now().unwrap();
    let d = timers.deadline(tx.timer().id()).unwrap();
    assert!(d >= t0 + 25_000 && d <= t1 + 25_000, "{t0} {d} {t1}");
    tx.set_coalesce(
        CoalesceConfig {
            tx_usecs: 200,
            ..stmmac_coalesce::sim::seed::SEED
        },
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    assert_eq!(tx.period_ticks(), 5_000);
    // tx_usecs without a timer is refused, not silently ignored.
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(matches!(
        stmmac_coalesce::TxRing::new(
            mem,
            &b.arena,
            &b.setup,
            timed(25, 1000, 32),
            NoTimer,
            Coherent
        ),
        Err(Error::Config(ConfigError::NoTimer))
    ));
}

/// A cleanup timer whose arming fails (the clockevent refused).
#[derive(Default)]
struct BrokenTimer {
    queued: Cell<bool>,
}

impl CleanupTimer for BrokenTimer {
    fn freq_hz(&self) -> Result<u32, Error> {
        Ok(1_000_000)
    }
    fn now(&self) -> Result<u64, Error> {
        Ok(0)
    }
    fn is_queued(&self) -> bool {
        self.queued.get()
    }
    fn start(&self, _: u64) -> Result<(), Error> {
        Err(Error::Timer(hwtimer_core::QueueError::Hardware(
            hwtimer_core::Error::Unsupported,
        )))
    }
    fn restart(&self, d: u64) -> Result<(), Error> {
        self.start(d)
    }
    fn cancel(&self) -> Result<bool, Error> {
        Ok(false)
    }
}

#[test]
fn tx_commit_never_fails_after_queueing_a_failed_timer_becomes_ic() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut tx = b.tx(timed(25, 1000, 32), BrokenTimer::default(), Coherent);
    let plan = tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert!(plan.set_ic, "no timer to reclaim it: IC instead");
    assert_eq!(tx.stats().timer_errors, 1);
    assert_eq!(b.sent().len(), 1, "sent exactly once");
    assert!(b.mac.status().is_set(DMA_STATUS::TI));
    assert_eq!(tx.service(&b.mac, b.mac.take_events()), 1, "and reclaimed");
}

fn tx_frames_larger_than_the_ring_is_refused<G: Generation>() {
    let b = Board::<G>::new();
    // The most frames a ring of 8 holds in flight: one more is refused.
    let cap = G::ring_capacity(8) as u32;
    let mem = b.arena.region(64 * 1024).unwrap();
    let r = stmmac_coalesce::TxRing::new(
        mem,
        &b.arena,
        &b.setup,
        tx_cfg(8, no_timer(cap + 1)),
        NoTimer,
        Coherent,
    );
    assert!(matches!(
        r,
        Err(Error::Config(ConfigError::TxFramesExceedRing))
    ));
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(
        stmmac_coalesce::TxRing::new(
            mem,
            &b.arena,
            &b.setup,
            tx_cfg(8, no_timer(cap)),
            NoTimer,
            Coherent
        )
        .is_ok()
    );
}

fn tx_burst_covered_by_ic_costs_no_timer_expiry<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, probe) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    for _ in 0..25 {
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
        let ev = b.mac.take_events();
        if ev.tx_done() {
            tx.service(&b.mac, ev);
        }
    }
    assert_eq!(tx.pending(), 0);
    assert!(
        !timers.is_queued(tx.timer().id()),
        "cancelled by the TI clean"
    );
    assert_eq!(tx.stats().timer_cancels, 1);
    b.clock.advance(5_000_000);
    let mac = &b.mac;
    let id = tx.timer().id();
    let fired = timers.on_interrupt(|i, now| {
        if i == id {
            tx.on_timer(mac, now)
        } else {
            Restart::No
        }
    });
    assert_eq!(fired, Ok(0));
    assert_eq!(tx.stats().timer_expiries, 0);
    assert_eq!(probe.fired(), 0, "no timer interrupt at all");
}

fn tx_coalescing_changes_at_run_time<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(
        timed(4, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    let ic = |tx: &mut stmmac_coalesce::TxRing<_, _>, n: usize| {
        (0..n)
            .filter(|_| {
                tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0))
                    .unwrap()
                    .set_ic
            })
            .count()
    };
    assert_eq!(ic(&mut tx, 8), 2);
    tx.set_coalesce(
        CoalesceConfig {
            tx_frames: 2,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    assert!(
        !timers.is_queued(tx.timer().id()),
        "tx_usecs 0: the timer is cancelled"
    );
    assert_eq!(ic(&mut tx, 8), 4);
    assert!(!timers.is_queued(tx.timer().id()));
    assert_eq!(
        tx.set_coalesce(
            CoalesceConfig {
                tx_frames: 64,
                ..stmmac_coalesce::sim::seed::SEED
            },
            TimerStrategy::ArmOnce
        ),
        Err(Error::Config(ConfigError::TxFramesExceedRing))
    );
}

fn recover_tx_after_tps_unf_or_fbi_restarts_the_dma_and_counts<G: Generation>() {
    for fault in [TxFault::Stop, TxFault::Underflow, TxFault::BusError] {
        let b = Board::<G>::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
        let mut rx = b.rx(rx_cfg(8, 512), Coherent);
        b.bus.model(|m| m.fail_tx(fault));
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 2)).unwrap();
        assert!(b.sent().is_empty());
        let ev = b.mac.take_events();
        // A fault the status reports: UNF (enabled, with AIS) on GMAC 3.x, a fatal bus
        // error on both. TPS alone is none (not enabled), and a QoS underflow shows only as
        // the stopped TX process: the cleanup path finds it stopped with ST set and recovers.
        let reported = match fault {
            TxFault::Stop => false,
            TxFault::Underflow => G::NAME == "gmac3",
            _ => true,
        };
        assert_eq!(ev.tx_fault() || ev.fatal(), reported, "{fault:?}: {ev:?}");
        if !reported {
            let _ = tx.on_timer(&b.mac, 0);
        }
        tx.service(&b.mac, ev);
        rx.service(&b.mac, ev);
        assert_eq!(tx.stats().recoveries, 1, "{fault:?}");
        assert_eq!(tx.stats().dropped, 2);
        assert_eq!(tx.pending(), 0);
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 3)).unwrap();
        assert_eq!(b.sent().len(), 1, "{fault:?}: TX runs again");
        if fault == TxFault::BusError {
            assert_eq!(rx.stats().recoveries, 1);
        }
        let f = eth_frame(US, 100, 9);
        b.inject(&f);
        assert_eq!(
            rx.receive(&b.mac).unwrap().as_slice().unwrap(),
            &f[..],
            "{fault:?}"
        );
    }
}

#[test]
fn recover_when_the_timer_finds_the_tx_process_stopped_instead_of_firing_forever() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let (timers, probe) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    b.bus.model(|m| m.fail_tx(TxFault::Stop));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    // Nobody services the interrupt: only the timer runs.
    let mac = &b.mac;
    let id = tx.timer().id();
    for _ in 0..10 {
        if probe.advance_to_fire().is_none() {
            break;
        }
        let _ = timers.on_interrupt(|i, now| {
            if i == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        });
    }
    assert_eq!(tx.stats().timer_expiries, 1, "one expiry, no re-arm");
    assert_eq!(tx.stats().recoveries, 1);
    assert!(!timers.is_queued(id));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert_eq!(b.sent().len(), 1);
    // A slow but running TX is not a fault: the timer keeps re-arming.
    b.bus.model(|m| m.set_tx_stall(0, true));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    for _ in 0..3 {
        probe.advance_to_fire().unwrap();
        let _ = timers.on_interrupt(|i, now| {
            if i == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        });
    }
    assert_eq!(tx.stats().recoveries, 1);
    assert!(timers.is_queued(id));
}

on_both!(
    rx_coalescing_zero_usecs_interrupts_per_frame_without_watchdog,
    rx_coalescing_usecs_only_interrupts_from_the_watchdog,
    rx_coalescing_frames_interrupts_a_burst_before_the_watchdog,
    rx_coalescing_values_are_checked_and_change_at_run_time,
    tx_frames_larger_than_the_ring_is_refused,
    tx_timer_period_comes_from_the_configuration_alone,
    tx_burst_covered_by_ic_costs_no_timer_expiry,
    tx_coalescing_changes_at_run_time,
    recover_tx_after_tps_unf_or_fbi_restarts_the_dma_and_counts,
);
