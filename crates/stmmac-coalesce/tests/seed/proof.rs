//! The TX-cleanup timer on both models, in virtual time.
//!
//! (a) A burst shorter than `tx_frames` (no IC): with the seed's `tx-frames 25 tx-usecs 1000`
//! the cleanup of the last frame waits for the next 10 ms tick on a jiffies timer at HZ=100,
//! but ≈ `tx_usecs` on the high-resolution timer queue.
//! (b) A steady stream: Linux re-arms the hrtimer on every packet (≈ 1 clockevent
//! programming per packet); arm-once programs it about once per `tx_usecs` window.
//! `tx_usecs = 0` makes no timer operation at all.
//! (c) RX coalescing by the RX interrupt watchdog (GMAC 3.x's RIWT, QoS's per-channel one).
//!
//! On QoS, coalescing is Linux's dwmac4's: IOC on every `tx_frames`-th frame plus the cleanup
//! timer, tail doorbells and QoS descriptors; the same rigs (`sim::seed`) run on either.

use stmmac_coalesce::sim::seed::{
    BurstRunner, LAG_NS, RIG_TX_DESCS, Rig, SEED_HZ, STREAM_GAP_NS, burst_latency_sweep,
    rx_bursts_on,
};
use stmmac_coalesce::{CoalesceConfig, TimerStrategy};

use crate::harness::{Generation, OnGmac3, OnQos, on_both};

const SEED: CoalesceConfig = stmmac_coalesce::sim::seed::SEED;
const TICK_NS: u64 = 10_000_000;

/// What the RX handler's own MMIO adds to a latency, per generation: on QoS each `receive`
/// also writes the tail pointer for the descriptors it gives back (16 × 50 ns a burst).
trait RxHandlerCost: Generation {
    /// Upper bound (exclusive) of the watchdog's latency: RIWT 244 × 256 CSR clocks =
    /// 499.7 µs after the burst's first frame, plus the handler's MMIO.
    const RIWT_MAX_NS: u64;
    /// How far after the 16th frame's arrival the `rx_frames 16` interrupt's last frame is taken.
    const BURST_SLACK_NS: u64;
    /// Latency bound (exclusive) of one RI a frame: the MMIO of the ISR.
    const PER_FRAME_MAX_NS: u64;
}

impl RxHandlerCost for OnGmac3 {
    const RIWT_MAX_NS: u64 = 500_500;
    const BURST_SLACK_NS: u64 = 1_000;
    const PER_FRAME_MAX_NS: u64 = 1_000;
}

impl RxHandlerCost for OnQos {
    const RIWT_MAX_NS: u64 = 501_000;
    const BURST_SLACK_NS: u64 = 2_000;
    const PER_FRAME_MAX_NS: u64 = 2_000;
}

fn jiffies_timer_waits_for_the_next_tick_hrtimer_waits_tx_usecs<G: Generation>() {
    // Start 0.1 ms after a tick edge: the jiffies timer (1 jiffy = next edge) fires 9.9 ms
    // after the burst, the hrtimer 1000 µs after its start (the first frame).
    let start = 1_000_000_000 + 100_000;
    let mut j =
        Rig::<_, G::SeedBus>::jiffies_on(SEED_HZ, SEED, TimerStrategy::RearmEveryPacket).unwrap();
    let jb = j.burst(10, start).unwrap();
    let jl = jb.latency_ns().unwrap();
    assert!(jl > 9_000_000 && jl <= TICK_NS, "jiffies latency {jl}");
    assert_eq!(
        jb.reclaimed_ns.unwrap() % TICK_NS,
        0,
        "fires on a tick edge"
    );

    for strategy in [TimerStrategy::RearmEveryPacket, TimerStrategy::ArmOnce] {
        let mut h = Rig::<_, G::SeedBus>::hrtimer_on(SEED, strategy, 0).unwrap();
        let hb = h.burst(10, start).unwrap();
        let hl = hb.latency_ns().unwrap();
        // Within tx_usecs of the last frame (arm-once counts from the first frame, so a
        // little less; re-arm from the last, so a little more than the MMIO of one xmit).
        assert!((900_000..=1_020_000).contains(&hl), "{strategy:?}: {hl}");
    }
}

fn latency_over_tick_phases<G: Generation>() {
    let hz =
        || BurstRunner::<G::SeedBus>::jiffies_on(SEED_HZ, SEED, TimerStrategy::RearmEveryPacket);
    let hr = || BurstRunner::<G::SeedBus>::hrtimer_on(SEED, TimerStrategy::ArmOnce);
    let (jmean, jmax) = burst_latency_sweep(hz, 10, 20).unwrap().unwrap();
    let (hmean, hmax) = burst_latency_sweep(hr, 10, 20).unwrap().unwrap();
    assert!(jmax > 9_000_000, "{jmax}");
    assert!(jmean > 4_000_000.0, "{jmean}");
    assert!(hmax <= 1_000_000, "{hmax}");
    assert!(hmean > 900_000.0, "{hmean}");
}

fn rearm_per_packet_programs_the_clockevent_per_packet_arm_once_per_window<G: Generation>() {
    const N: u32 = 5_000;
    let mut linux =
        Rig::<_, G::SeedBus>::hrtimer_on(SEED, TimerStrategy::RearmEveryPacket, 0).unwrap();
    let l = linux.stream(N, STREAM_GAP_NS).unwrap();
    let mut ours = Rig::<_, G::SeedBus>::hrtimer_on(SEED, TimerStrategy::ArmOnce, 0).unwrap();
    let o = ours.stream(N, STREAM_GAP_NS).unwrap();
    // Both set IC on every 25th frame and see the same TI events.
    assert_eq!(l.ic_set, u64::from(N / 25));
    assert_eq!(o.ic_set, l.ic_set);
    assert_eq!(l.would_block + o.would_block, 0);
    // Linux: one restart per packet and (nearly) one programming per packet; its timer
    // never fires while traffic flows.
    assert_eq!(l.restarts, u64::from(N));
    assert!(l.programs_per_packet() > 0.95, "{l:?}");
    // Arm-once: the first frame after each TI clean starts the timer (no IC on it), the TI
    // clean that empties the ring cancels it again: one start per IC window, and the timer
    // never fires while traffic flows (no interrupt), where arming without cancelling
    // fired once per `tx_usecs`.
    assert_eq!(o.restarts, 0);
    assert_eq!(o.starts, o.ic_set, "{o:?}");
    assert_eq!(o.expiries, 0, "{o:?}");
    // Per window: the arm, and the idle keep-alive when the window's clean empties the
    // queue (a narrow time base is kept read while idle; it replaced a shutdown).
    assert!(o.programs <= 2 * o.starts, "{o:?}");
    assert!(o.programs_per_packet() <= 0.08, "{o:?}");
}

fn lagging_dma_keeps_the_timer_queued_and_it_fires_once_per_tx_usecs<G: Generation>() {
    let mut r = Rig::<_, G::SeedBus>::hrtimer_on(SEED, TimerStrategy::ArmOnce, LAG_NS).unwrap();
    let f = r.stream_timed(10_000, STREAM_GAP_NS, 1514).unwrap();
    assert_eq!(f.reclaimed, 10_000);
    let per_ms = f.expiries_per_ms();
    assert!((0.9..=1.1).contains(&per_ms), "{per_ms} {f:?}");
    assert!(f.reclaim_max_ns < 1_100_000, "{f:?}");
}

fn tx_usecs_zero_makes_no_timer_operation<G: Generation>() {
    let cfg = CoalesceConfig {
        tx_usecs: 0,
        ..SEED
    };
    for strategy in [TimerStrategy::RearmEveryPacket, TimerStrategy::ArmOnce] {
        let mut r = Rig::<_, G::SeedBus>::hrtimer_on(cfg, strategy, 0).unwrap();
        let s = r.stream(1_000, STREAM_GAP_NS).unwrap();
        assert_eq!((s.programs, s.starts, s.restarts, s.expiries), (0, 0, 0, 0));
        assert_eq!(s.ic_set, 40);
        // A burst shorter than tx_frames is then never reclaimed (docs/gmac3.md#tx-usecs-0).
        let b = r.burst(10, r.clock.now_ns()).unwrap();
        assert_eq!(b.reclaimed_ns, None);
        assert_eq!(b.programs + b.queue_ops, 0);
    }
}

fn with_tx_frames_zero_linux_postpones_cleanup_forever_arm_once_does_not<G: Generation>() {
    // Vincent Whitchurch in the seed thread: with tx-frames 0 the per-packet re-arm keeps
    // pushing the cleanup out, far beyond tx-usecs, while traffic flows.
    let cfg = CoalesceConfig {
        tx_frames: 0,
        ..SEED
    };
    let mut linux =
        Rig::<_, G::SeedBus>::hrtimer_on(cfg, TimerStrategy::RearmEveryPacket, 0).unwrap();
    let l = linux.stream(1_000, STREAM_GAP_NS).unwrap();
    let mut ours = Rig::<_, G::SeedBus>::hrtimer_on(cfg, TimerStrategy::ArmOnce, 0).unwrap();
    let o = ours.stream(1_000, STREAM_GAP_NS).unwrap();
    assert_eq!(l.expiries, 1, "only after the stream stopped");
    assert_eq!(
        l.max_pending,
        G::ring_capacity(RIG_TX_DESCS),
        "the whole ring filled"
    );
    assert!(l.would_block > 0);
    // Arm-once: a frame waits at most 2 × tx_usecs: 2 windows of 81.3 frames.
    assert_eq!(o.would_block, 0);
    assert!(o.max_pending <= 2 * 82, "{o:?}");
    assert!(o.expiries >= 12, "{o:?}");
}

fn rx_coalescing_interrupts_per_frame_and_latency<G: RxHandlerCost>() {
    let per_frame = rx_bursts_on::<G::SeedBus>(CoalesceConfig::default(), 16, 8).unwrap();
    let riwt_only = rx_bursts_on::<G::SeedBus>(
        CoalesceConfig {
            rx_usecs: 500,
            ..CoalesceConfig::default()
        },
        16,
        8,
    )
    .unwrap();
    let frames16 = rx_bursts_on::<G::SeedBus>(
        CoalesceConfig {
            rx_usecs: 500,
            rx_frames: 16,
            ..CoalesceConfig::default()
        },
        16,
        8,
    )
    .unwrap();
    for f in [per_frame, riwt_only, frames16] {
        assert_eq!(f.received, 128, "{f:?}");
    }
    // One RI per frame without coalescing; the watchdog alone (rx-usecs 500: RIWT 244,
    // 499.7 µs): one per burst, that long after the burst's first frame; rx_frames 16: one
    // per burst, at its 16th frame (185 µs after the first), before the watchdog.
    assert_eq!(per_frame.interrupts, 128);
    assert!(
        per_frame.max_latency_ns < G::PER_FRAME_MAX_NS,
        "{per_frame:?}"
    );

    assert_eq!(riwt_only.interrupts, 8, "{riwt_only:?}");
    assert!(
        (499_712..G::RIWT_MAX_NS).contains(&riwt_only.max_latency_ns),
        "{riwt_only:?}"
    );
    assert_eq!(frames16.interrupts, 8, "{frames16:?}");
    let first_waits = 15 * STREAM_GAP_NS;
    assert!(
        (first_waits..first_waits + G::BURST_SLACK_NS).contains(&frames16.max_latency_ns),
        "{frames16:?}"
    );
    assert!(frames16.mean_latency_ns < riwt_only.mean_latency_ns / 2.0);
}

on_both!(
    jiffies_timer_waits_for_the_next_tick_hrtimer_waits_tx_usecs,
    latency_over_tick_phases,
    rearm_per_packet_programs_the_clockevent_per_packet_arm_once_per_window,
    lagging_dma_keeps_the_timer_queued_and_it_fires_once_per_tx_usecs,
    tx_usecs_zero_makes_no_timer_operation,
    with_tx_frames_zero_linux_postpones_cleanup_forever_arm_once_does_not,
    rx_coalescing_interrupts_per_frame_and_latency,
);
