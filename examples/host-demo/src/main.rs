//! Host demo of the timer family on the behavioural simulation.
//!
//! Everything runs in **virtual time** on models of the hardware: the figures are
//! deterministic, identical on every machine, and count what costs time on real silicon
//! (counter reads, MMIO accesses, virtual nanoseconds). Run it with
//! `cargo run -p host-demo`.

use bench_support::baseline::{busy_bit_wait, delay_us10_continuous, delay_us10_tick_hz100};
use embedded_hal::delay::DelayNs;
use embedded_hal_async::delay::DelayNs as AsyncDelayNs;
use hwtimer_core::clockevent::plan_delta;
use hwtimer_core::sim::{SimBus, SimClock, SimClockEvent, SimCounter, run_virtual};
use hwtimer_core::{
    Alarm, AsyncDelay, Delay, Error, Extended, Fired, HrTimers, Monotonic, Restart,
};
use otto_timer::sim::seed::{reprogram_near_expiry, seed_tick_sleep};
use otto_timer::sim::{OttoSim, SIM_READ_NS, SIM_WRITE_NS};
use otto_timer::{Config, OttoTimers, PerCpu, Soc};

fn main() {
    println!("timer-family host demo: hwtimer-core on the behavioural sim (virtual time)\n");
    delays();
    polls();
    extension();
    clamping();
    timer_queue();
    otto();
    exynos();
    loongarch();
    switch();
    stmmac();
}

/// The Otto delay bug: usleep(10) with and without a continuous clocksource.
fn delays() {
    println!("[delay] 10,000 x delay_us(10), 28-bit counter at 3.125 MHz (Realtek Otto rate)");
    let (ns, reads) = delay_us10_continuous(10_000);
    println!(
        "  continuous clocksource (hwtimer-core Delay): {:.3} us per call, {reads:.1} counter reads",
        ns / 1000.0
    );
    let tick = delay_us10_tick_hz100(1_000);
    println!(
        "  periodic HZ=100 tick only (the Otto bug):  {:.0} us per call",
        tick / 1000.0
    );
    println!("  seed, RTL838x: 10003 us without the continuous flag, 60 us with it\n");
}

/// The mv88e6xxx busy poll: a busy bit that clears after one 25.6 us MDIO frame.
fn polls() {
    println!("[poll] busy bit clearing 26 us after the command (one MDIO frame at 2.5 MHz)");
    let (slow_ns, slow_reads) = busy_bit_wait(false);
    let (fast_ns, fast_reads) = busy_bit_wait(true);
    println!(
        "  16 tries, 1.5 ms sleeps (Linux before):    {:>7.1} us, {slow_reads} reads",
        slow_ns as f64 / 1000.0
    );
    println!(
        "  hwtimer-core Poller, 50 ms deadline:         {:>7.1} us, {fast_reads} reads",
        fast_ns as f64 / 1000.0
    );
    println!("  seed, 3-chip switch: modprobe 15.99 s before, 2.21 s after\n");
}

/// 64-bit time from a 28-bit counter.
fn extension() {
    println!(
        "[extend] 28-bit counter at 3.125 MHz wraps every 85.9 s; read every 40 s for an hour"
    );
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 28, 3_125_000);
    let time = Extended::new(&counter);
    for _ in 0..90 {
        clock.advance(40_000_000_000);
        time.now();
    }
    let t = time.now();
    println!(
        "  extended time {t} ticks = {:.3} s (virtual clock {:.3} s), {} wraps\n",
        t as f64 / 3.125e6,
        clock.now_ns() as f64 / 1e9,
        t >> 28
    );
}

/// The LoongArch `min_delta` patch: min_delta clamps every short timer.
fn clamping() {
    println!("[clockevent] 5 us request at 100 MHz (LoongArch constant timer)");
    for (name, min) in [
        ("min_delta 0x600 (before)", 0x600u64),
        ("min_delta 1000 (seed fix)", 1000),
    ] {
        let p = plan_delta(500, 100_000_000, 100_000_000, 0, min, (1 << 48) - 1);
        println!(
            "  {name}: programs {} ticks = {:.2} us",
            p.delta,
            p.delta as f64 / 100.0
        );
    }
    println!();
}

/// The software timer queue and the async delay, jumping virtual time interrupt by
/// interrupt.
fn timer_queue() {
    println!("[hrtimer] async delays and callback timers on one simulated clockevent");
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 64, 100_000_000).with_read_cost(10);
    let time = Extended::new(counter);
    let event = SimClockEvent::new(&clock, 100_000_000, 1000, (1 << 48) - 1);
    let probe = event.probe();
    let Ok(alarm) = Alarm::new(event, &time) else {
        println!("  invalid alarm configuration");
        return;
    };
    let timers: HrTimers<_, _, 4> = HrTimers::new(alarm);
    let mut ran = Vec::new();
    let done = run_virtual(
        async {
            let mut delay = AsyncDelay::new(&timers);
            let mut out = Vec::new();
            for us in [5u32, 20, 100] {
                let t0 = time.now();
                delay.delay_us(us).await;
                out.push((us, time.now() - t0));
            }
            out
        },
        &probe,
        100,
        || {
            // The simulated clockevent never fails to program.
            let _ = timers.on_interrupt(|id, now| {
                ran.push((id, now));
                Restart::No
            });
        },
    );
    println!(
        "  clockevent min_delta = 1000 ticks (10 us): shorter sleeps are clamped up, never cut short"
    );
    for (us, ticks) in done.unwrap_or_default() {
        println!("  delay_us({us:>3}) took {:>7.2} us", ticks as f64 / 100.0);
    }
    println!("  interrupts taken: {}", probe.acks());
}

/// The Realtek Otto timer driver on its behavioural model (the continuous-clocksource bug and the v6.18
/// lost-interrupt fix).
fn otto() {
    if let Err(e) = otto_inner() {
        println!("  otto demo failed: {e}");
    }
}

fn otto_inner() -> Result<(), Error> {
    let soc = Soc::Rtl838x;
    let info = soc.info();
    println!(
        "\n[otto-timer] {soc:?}: {} timers at {:#x}, LXB {} MHz / divisor {} = 3.125 MHz",
        info.timers,
        info.kseg1_base(),
        info.bus_clock_hz / 1_000_000,
        Config::new(soc).divisor()?
    );
    let sim = OttoSim::new(soc);
    let PerCpu {
        cpus: [cpu0, cpu1],
        clocksource,
    } = OttoTimers::new(sim.bus(), Config::new(soc))?.per_cpu::<2>()?;
    for c in [&cpu0, &cpu1] {
        println!("  CPU {} <- timer {} ({:?})", c.cpu, c.event.index(), c.irq);
    }
    println!(
        "  clocksource <- timer {} (28-bit, continuous)",
        clocksource.index()
    );

    let mut delay = Delay::new(&clocksource);
    let n = 10_000u64;
    let t0 = sim.clock().now_ns();
    for _ in 0..n {
        delay.delay_us(10);
    }
    println!(
        "  10,000 x delay_us(10) on the Otto clocksource: {:.3} us per call",
        (sim.clock().now_ns() - t0) as f64 / n as f64 / 1000.0
    );
    let tick = seed_tick_sleep(soc, 10, 10, 100, SIM_READ_NS, SIM_WRITE_NS)?;
    println!(
        "  the same sleep with only a periodic HZ=100 Otto clockevent: {:.0} us (seed: 10003 us)",
        tick.avg_ns() / 1000.0
    );

    let time = Extended::new(&clocksource);
    let mut alarm = Alarm::new(cpu0.event, &time)?;
    let deadline = time.now() + 3_125;
    alarm.set_deadline(deadline)?;
    sim.advance_to_next_irq(0).ok_or(Error::Timeout)?;
    if let Fired::Deadline { now, .. } = alarm.on_interrupt() {
        println!(
            "  alarm for 1 ms ahead fired {} tick(s) late, never early",
            now - deadline
        );
    }

    for (naive, name) in [
        (true, "naive stop/DATA/start"),
        (false, "driver (bounce sequence)"),
    ] {
        match reprogram_near_expiry(soc, 1_000, naive)? {
            Some(t) => println!("  reprogram 1 us before expiry, {name}: interrupt at {t} ns"),
            None => println!("  reprogram 1 us before expiry, {name}: interrupt LOST, CPU stalls"),
        }
    }
    Ok(())
}

/// The LoongArch constant timer on its model of QEMU's virt machine (the `min_delta` patch).
fn loongarch() {
    use loongarch_timer::Config;
    use loongarch_timer::sim::seed::{clamp_window_batch, measure_oneshot};
    println!("\n[loongarch-timer] constant timer at 100 MHz (model of QEMU virt), CSR access");
    for (name, config) in [
        ("min_delta 0x600 (Linux before)", Config::LINUX_0X600),
        ("min_delta 1000 (default)", Config::DEFAULT),
    ] {
        match measure_oneshot(config, 500) {
            Ok(f) => println!(
                "  5 us request, {name}: fires after {:.2} us",
                f.fired_after_ns() as f64 / 1000.0
            ),
            Err(e) => println!("  5 us request, {name}: {e}"),
        }
        match clamp_window_batch(config, &[500, 700, 1000, 1400, 1600]) {
            Ok(b) => println!(
                "    timers at 5/7/10/14/16 us: {} interrupt(s), {:?} timers each, worst {:.2} us late",
                b.served_per_interrupt.len(),
                b.served_per_interrupt,
                b.late_ticks.iter().copied().max().unwrap_or(0) as f64 / 100.0
            ),
            Err(e) => println!("    batch: {e}"),
        }
    }
}

/// The Exynos MCT on its model at 24 MHz (the three-read timestamp): MMIO reads per 64-bit timestamp, and
/// a write-status bit that never comes.
fn exynos() {
    use exynos_mct::sim::seed::{UpperCache, read64_cached_upper};
    use exynos_mct::sim::{MctModel, WstatMode};
    use exynos_mct::{Config, Mct};
    println!("\n[exynos-mct] Multi Core Timer at 24 MHz (model), 10,000 timestamps 0.1 s apart");
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210().with_frc(0xFFFF_0000));
    let Ok(mct) = Mct::new(bus.clone(), Config::default()) else {
        println!("  model refused the configuration");
        return;
    };
    if let Err(e) = mct.start_frc() {
        println!("  start_frc: {e}");
        return;
    }
    let n = 10_000u64;
    let cache = UpperCache::new();
    let time = mct.time();
    let strategies: [(&str, &dyn Fn() -> u64); 4] = [
        ("hi-lo-hi 64-bit read (Linux before 2014)", &|| {
            mct.frc().read64()
        }),
        ("cached upper half (ChromeOS)", &|| {
            read64_cached_upper(&mct.frc(), &cache)
        }),
        ("low 32 bits only (Linux's 2014 fix)", &|| {
            u64::from(mct.frc().read_low())
        }),
        ("exynos-mct FrcTime (64-bit, software epoch)", &|| {
            time.now()
        }),
    ];
    for (name, read) in strategies {
        bus.reset_stats();
        for _ in 0..n {
            clock.advance(100_000_000);
            std::hint::black_box(read());
        }
        println!(
            "  {name}: {:.4} MMIO reads per timestamp",
            bus.stats().reads as f64 / n as f64
        );
    }
    println!("  seed (5420, 1M gettimeofday): 1323852 us hi-lo-hi, 1173084 us cached upper half");

    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210().with_wstat(WstatMode::Stuck));
    match Mct::new(bus.clone(), Config::default()).and_then(|m| m.start_frc()) {
        Ok(_) => println!("  stuck G_WSTAT: unexpectedly acknowledged"),
        Err(e) => println!(
            "  stuck G_WSTAT: start_frc returns `{e:?}` after {} status reads (Linux panics)",
            bus.stats().reads
        ),
    }
}

/// The mv88e6xxx switch over MDIO on its model (the busy-poll bug): frames per indirect access and a
/// 3-chip, 20-port probe under each busy-wait strategy.
fn switch() {
    use mv88e6xxx_smi::sim::BusyDelay;
    use mv88e6xxx_smi::sim::seed::{
        SEED_BEFORE_NS, SEED_BUSY_PATTERN_NS, Strategy, implied_accesses, measure_access,
        seed_workload,
    };
    println!(
        "\n[mv88e6xxx-smi] 6097 in multi-chip mode on a 2.5 MHz MDIO bus (model), 25.6 us per frame"
    );
    let strategies = [
        ("16 polls, 1-2 ms sleeps (Linux before)", Strategy::PreSeed),
        (
            "50 ms deadline, BUSY checked before every access (patch 1)",
            Strategy::Patch1,
        ),
        (
            "mv88e6xxx-smi (Poller, BUSY checked once)",
            Strategy::ThisCrate,
        ),
    ];
    let mut pre_seed_avg = 0.0;
    for (name, s) in strategies {
        match measure_access(s, false, 1_000, BusyDelay::cycle(&SEED_BUSY_PATTERN_NS)) {
            Ok(c) => {
                let avg = c.ns as f64 / 1000.0;
                if matches!(s, Strategy::PreSeed) {
                    pre_seed_avg = avg;
                }
                println!(
                    "  {name}: {:.2} frames, {:.1} us per register read",
                    c.frames as f64 / 1000.0,
                    avg / 1000.0
                );
            }
            Err(e) => println!("  {name}: {e:?}"),
        }
    }
    let per_chip = (implied_accesses(SEED_BEFORE_NS, pre_seed_avg) / 3) as u32;
    for (name, s) in strategies {
        if let Ok(c) = seed_workload(s, per_chip) {
            println!(
                "  probe of 3 chips / 20 ports, {name}: {:.2} s",
                c.ns as f64 / 1e9
            );
        }
    }
    println!(
        "  seed: modprobe 15.99 s before, 2.21 s after patch 1 (the probe size is calibrated to 15.99 s)"
    );
}

/// DWMAC TX coalescing on the core's timer queue, on the DWMAC model (the TX-cleanup timer).
fn stmmac() {
    use stmmac_coalesce::TimerStrategy;
    use stmmac_coalesce::sim::seed::{
        BurstRunner, Rig, SEED_HZ, STREAM_GAP_NS, burst_latency_sweep,
    };
    let seed = stmmac_coalesce::sim::seed::SEED;
    println!(
        "\n[stmmac-coalesce] GMAC 3.x model, tx-frames {} tx-usecs {}",
        seed.tx_frames, seed.tx_usecs
    );
    type MakeRig<'a> = &'a dyn Fn() -> Result<BurstRunner, stmmac_coalesce::Error>;
    let runs: [(&str, MakeRig); 3] = [
        ("jiffies timer at HZ=100 (Linux before)", &|| {
            BurstRunner::jiffies(SEED_HZ, seed, TimerStrategy::RearmEveryPacket)
        }),
        ("hrtimer re-armed per packet (Linux)", &|| {
            BurstRunner::hrtimer(seed, TimerStrategy::RearmEveryPacket)
        }),
        ("hrtimer armed once (this crate)", &|| {
            BurstRunner::hrtimer(seed, TimerStrategy::ArmOnce)
        }),
    ];
    for (name, make) in runs {
        match burst_latency_sweep(make, 10, 20) {
            Ok(Some((mean, max))) => println!(
                "  burst of 10, {name}: last frame reclaimed after {:.0} us mean, {:.0} us max",
                mean / 1000.0,
                max as f64 / 1000.0
            ),
            Ok(None) => println!("  burst of 10, {name}: never reclaimed"),
            Err(e) => println!("  burst of 10, {name}: {e:?}"),
        }
    }
    for (name, strategy) in [
        ("re-arm per packet (Linux)", TimerStrategy::RearmEveryPacket),
        ("arm once (this crate)", TimerStrategy::ArmOnce),
    ] {
        let figures =
            Rig::hrtimer(seed, strategy).and_then(|mut r| r.stream(10_000, STREAM_GAP_NS));
        match figures {
            Ok(f) => println!(
                "  10,000 frames at line rate, {name}: {:.4} clockevent programmings per packet",
                f.programs_per_packet()
            ),
            Err(e) => println!("  stream, {name}: {e:?}"),
        }
    }
    println!(
        "  seed: 10 ms cleanup at HZ=100 (~5.5 -> ~100 Mbit/s with an hrtimer); 679 vs 934 Mbit/s re-arming per packet"
    );
    match cleanup_timer_wiring() {
        Ok((reclaimed_ns, irqs)) => println!(
            "  public wiring (sim::SimTimerQueue slot as the ring's QueueTimer, tx-usecs 1000): 3 frames reclaimed by the cleanup timer at {:.0} us, {irqs} timer interrupt(s)",
            reclaimed_ns as f64 / 1000.0
        ),
        Err(e) => println!("  public wiring: {e:?}"),
    }
}

/// The TX cleanup timer wired through the public API, as a firmware does on its own
/// clockevent: an `HrTimers` queue (here `sim::SimTimerQueue` on the model's clock), one of
/// its slots as the ring's `QueueTimer`, and the clockevent's interrupt handler calling
/// `TxRing::on_timer` for that slot. Returns when the ring became empty and how many timer
/// interrupts it took.
fn cleanup_timer_wiring() -> Result<(u64, usize), stmmac_coalesce::Error> {
    use stmmac_coalesce::mdio_bus::{PhyAddr, sim::PhyModel};
    use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena, SimTimerQueue, eth_frame};
    use stmmac_coalesce::{
        CoalesceConfig, Coherent, DmaConfig, Duplex, Dwmac, Gmac3, LinkState, Speed, TimerStrategy,
        TxConfig, TxRing,
    };

    let clock = SimClock::new();
    let arena = SimArena::new(0x1000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let mac = Gmac3::new(SimBus::new(
        &clock,
        Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ),
    ));
    mac.soft_reset(&SimCounter::new(&clock, 32, 25_000_000))?;
    let setup = mac.configure_dma(&DmaConfig {
        csr_hz: SIM_CSR_HZ,
        ..DmaConfig::default()
    })?;
    let queue: SimTimerQueue = SimTimerQueue::new(&clock, 25_000_000)?;
    let coalesce = CoalesceConfig {
        tx_frames: 8,
        tx_usecs: 1000,
        ..CoalesceConfig::default()
    };
    let config = TxConfig {
        descriptors: 32,
        buf_size: 1536,
        coalesce,
        strategy: TimerStrategy::ArmOnce,
    };
    let region = arena
        .region(64 * 1024)
        .ok_or(stmmac_coalesce::Error::RingSize)?;
    let mut tx = TxRing::new(
        region,
        &arena,
        &setup,
        config,
        queue.cleanup_timer()?,
        Coherent,
    )?;
    tx.start(&mac);
    mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    let start = clock.now_ns();
    for _ in 0..3 {
        tx.send(&mac, &eth_frame([0xFF; 6], 60, 0))?;
    }
    let id = tx.timer().id();
    let mut reclaimed = None;
    let irqs = queue.run_until(start + 2_000_000, |slot, now| {
        if slot != id {
            return Restart::No;
        }
        let restart = tx.on_timer(&mac, now);
        if tx.pending() == 0 && reclaimed.is_none() {
            reclaimed = Some(clock.now_ns() - start);
        }
        restart
    })?;
    Ok((reclaimed.unwrap_or(u64::MAX), irqs))
}
