//! Figures for the TX-cleanup timer (Linux's "net: stmmac: Use hrtimer for TX coalescing"), on the behavioural DWMAC in
//! virtual time (deterministic: no host clock is read), plus host instruction counts per
//! transmit from callgrind when valgrind is installed. Prints `bench: stmmac-coalesce/<metric>
//! = <value> <unit>` lines for `cargo xtask bench` and the README.
//!
//! Run: `cargo bench -p stmmac-coalesce --bench seed`.

use bench_support::Printer;
use bench_support::instr;
use stmmac_coalesce::sim::seed::{
    Board, BurstRunner, Bus, Bus4, HR_HZ, HrBase, LAG_NS, Rig, SEED_HZ, STREAM_GAP_NS,
    burst_latency_sweep, rx_bursts_on,
};
use stmmac_coalesce::{CoalesceConfig, Error, TimerStrategy};

const SEED: CoalesceConfig = stmmac_coalesce::sim::seed::SEED;
const N: u32 = 10_000;

/// Prints this crate's `bench:` figures and `series:` points.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

fn fail(what: &str, e: impl std::fmt::Debug) -> ! {
    eprintln!("{what} failed: {e:?}");
    std::process::exit(1);
}

fn strategy(op: &str) -> (CoalesceConfig, TimerStrategy) {
    match op {
        "xmit_rearm" => (SEED, TimerStrategy::RearmEveryPacket),
        "xmit_no_timer" => (
            CoalesceConfig {
                tx_usecs: 0,
                ..SEED
            },
            TimerStrategy::ArmOnce,
        ),
        _ => (SEED, TimerStrategy::ArmOnce),
    }
}

/// Measurement child: `n` transmits of the stream workload.
fn child(op: &str, n: u64) {
    let (cfg, s) = strategy(op);
    let mut rig = Rig::hrtimer(cfg, s).unwrap_or_else(|e| fail("rig", e));
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    if n > 0 {
        std::hint::black_box(
            rig.stream(n, STREAM_GAP_NS)
                .unwrap_or_else(|e| fail("stream", e)),
        );
    }
}

/// Frames per burst, and burst start times per tick, of the latency sweep.
const BURST: u32 = 10;
const PHASES: u32 = 20;

/// (start within the tick, reclaim latency), ns, of a burst of [`BURST`] started at each of
/// [`PHASES`] points of one tick: the loop of `burst_latency_sweep`, which returns only the
/// mean and maximum (the caller checks they agree).
fn each_burst_latency<P: Board>(
    make: &dyn Fn() -> Result<BurstRunner<P>, Error>,
) -> Result<Vec<(u64, u64)>, Error> {
    let tick = 1_000_000_000 / u64::from(SEED_HZ);
    let mut out = Vec::new();
    for k in 0..u64::from(PHASES) {
        let offset = k * tick / u64::from(PHASES) + 1_000;
        let figures = make()?.burst(BURST, 1_000_000_000 + offset)?;
        let Some(latency) = figures.latency_ns() else {
            fail("burst", "a burst was never reclaimed");
        };
        out.push((offset, latency));
    }
    Ok(out)
}

fn main() {
    if let Some((op, n)) = instr::child() {
        child(&op, n);
        return;
    }
    println!(
        "# TX-cleanup timer: tx-frames 25 tx-usecs 1000; HZ=100 jiffies timer vs {HR_HZ} Hz hrtimer queue; \
         virtual time"
    );
    // (a)-(c) and RX coalescing on the 3.x model (the names the README quotes), then the
    // same on the 4.x (QoS) model with `dwmac4_` in front (QEMU has no 4.x model).
    layout::<Bus>("");
    println!(
        "# TX-cleanup timer on the DWMAC 4.x model: the same measurements, Qos and tail doorbells"
    );
    layout::<Bus4>("dwmac4_");
    // tx_frames 0 (timer only): Linux's per-packet re-arm postpones cleanup while traffic
    // flows; arm-once reclaims every tx_usecs.
    let t0 = CoalesceConfig {
        tx_frames: 0,
        ..SEED
    };
    for (name, s) in [
        ("rearm_every_packet", TimerStrategy::RearmEveryPacket),
        ("arm_once", TimerStrategy::ArmOnce),
    ] {
        let mut rig = Rig::hrtimer(t0, s).unwrap_or_else(|e| fail("rig", e));
        let f = rig
            .stream(1_000, STREAM_GAP_NS)
            .unwrap_or_else(|e| fail("stream", e));
        OUT.figure(
            &format!("tx_frames0_max_pending_{name}"),
            f.max_pending,
            "descs",
        );
        OUT.figure(
            &format!("tx_frames0_ring_full_{name}"),
            f.would_block,
            "times",
        );
        OUT.figure(
            &format!("tx_frames0_timer_expiries_{name}"),
            f.expiries,
            "expiries",
        );
    }
    // Host instructions per transmit (stream workload incl. model and TI service).
    for op in ["xmit_rearm", "xmit_arm_once", "xmit_no_timer"] {
        match instr::per_op(op, 2_000) {
            Some(i) => OUT.figure(
                &format!("instructions_per_{op}"),
                format!("{i:.0}"),
                "instructions",
            ),
            None => println!("# {op}: valgrind not available, instruction count skipped"),
        }
    }
    // The same per-transmit figure for arm-once split by who runs the instructions: the
    // driver's own code, and the behavioural model behind its register and descriptor
    // accesses (the rest is the harness: the stream loop and the timer queue's sim clock).
    match split_per_op("xmit_arm_once", 2_000) {
        Some(Split { driver, model }) => {
            OUT.figure(
                "instructions_per_xmit_arm_once_driver",
                format!("{driver:.0}"),
                "instructions",
            );
            OUT.figure(
                "instructions_per_xmit_arm_once_model",
                format!("{model:.0}"),
                "instructions",
            );
        }
        None => println!("# xmit_arm_once: valgrind not available, driver/model split skipped"),
    }
    println!(
        "# seed figures: jiffies cleanup 10 ms at HZ=100; netperf ~5.5 -> ~100 Mbit/s with hrtimer; \
              OpenWrt 679 (hrtimer re-armed per packet) vs 934 Mbit/s (reverted)"
    );
}

/// The TX-cleanup timer's measurements on board `P`, each figure's name prefixed with `pre`: (a) the
/// reclaim latency of a 10-frame burst for the three timers, (b) the line-rate stream,
/// (c) the stream on a DMA that lags the CPU, and RX coalescing. The per-start series for
/// `cargo xtask plots` only for the 3.x model (`pre` empty).
fn layout<P: Board>(pre: &str) {
    // (a) burst of 10 (< tx_frames): reclaim latency of the last frame, started at 20
    // points of one 10 ms tick; per start as the series `burst10_reclaim_latency_<timer>`
    // (start within the tick in ms, latency in us) for `cargo xtask plots`.
    let hz = || BurstRunner::<P>::jiffies_on(SEED_HZ, SEED, TimerStrategy::RearmEveryPacket);
    let hr = || BurstRunner::<P>::hrtimer_on(SEED, TimerStrategy::ArmOnce);
    let hr_linux = || BurstRunner::<P>::hrtimer_on(SEED, TimerStrategy::RearmEveryPacket);
    for (name, make) in [
        ("jiffies_hz100", &hz as &dyn Fn() -> _),
        ("hrtimer_rearm", &hr_linux),
        ("hrtimer_arm_once", &hr),
    ] {
        let Some((mean, max)) =
            burst_latency_sweep(make, BURST, PHASES).unwrap_or_else(|e| fail("burst", e))
        else {
            fail("burst", format!("{name}: a burst was never reclaimed"));
        };
        OUT.figure(
            &format!("{pre}burst10_reclaim_latency_mean_{name}"),
            format!("{:.1}", mean / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("{pre}burst10_reclaim_latency_max_{name}"),
            format!("{:.1}", max as f64 / 1000.0),
            "us",
        );
        let each = each_burst_latency(make).unwrap_or_else(|e| fail("burst", e));
        let same = each.len() == PHASES as usize
            && each.iter().map(|&(_, l)| l).max() == Some(max)
            && each.iter().map(|&(_, l)| u128::from(l)).sum::<u128>() as f64 / f64::from(PHASES)
                == mean;
        if !same {
            fail(
                "burst",
                format!("{name}: per-start run disagrees with the sweep"),
            );
        }
        if !pre.is_empty() {
            continue;
        }
        for (offset_ns, latency_ns) in each {
            OUT.point(
                &format!("burst10_reclaim_latency_{name}"),
                format!("{:.3}", offset_ns as f64 / 1e6),
                "ms",
                format!("{:.1}", latency_ns as f64 / 1000.0),
                "us",
            );
        }
    }
    // (b) steady stream at 1 Gbit/s line rate of 1514-byte frames.
    let cases = [
        ("rearm_every_packet", SEED, TimerStrategy::RearmEveryPacket),
        ("arm_once", SEED, TimerStrategy::ArmOnce),
        (
            "tx_usecs0",
            CoalesceConfig {
                tx_usecs: 0,
                ..SEED
            },
            TimerStrategy::ArmOnce,
        ),
    ];
    for (name, cfg, s) in cases {
        let mut rig = Rig::<HrBase, P>::hrtimer_on(cfg, s, 0).unwrap_or_else(|e| fail("rig", e));
        let f = rig
            .stream(N, STREAM_GAP_NS)
            .unwrap_or_else(|e| fail("stream", e));
        OUT.figure(
            &format!("{pre}stream_clockevent_programs_per_packet_{name}"),
            format!("{:.4}", f.programs_per_packet()),
            "programs",
        );
        OUT.figure(
            &format!("{pre}stream_queue_ops_per_packet_{name}"),
            format!("{:.4}", f.queue_ops_per_packet()),
            "ops",
        );
        OUT.figure(
            &format!("{pre}stream_timer_expiries_{name}"),
            f.expiries,
            "expiries",
        );
        OUT.figure(
            &format!("{pre}stream_ti_events_{name}"),
            f.ti_events,
            "events",
        );
        OUT.figure(
            &format!("{pre}stream_max_pending_{name}"),
            f.max_pending,
            "descs",
        );
    }
    // (c) the same stream on a model whose TX DMA lags the CPU (LAG_NS fetch latency, then
    // the wire time at 1 Gbit/s), every interrupt taken when it happens (TI at the IC
    // frame's write-back, the timer at its expiry): 1514-byte frames back to back at line
    // rate (`_lagging`), 60-byte frames at the same spacing (`_lagging_60b`), and the
    // instant model under the same harness (`_instant_timed`).
    let timed = [
        (
            "rearm_every_packet",
            TimerStrategy::RearmEveryPacket,
            "lagging",
            LAG_NS,
            1514,
        ),
        ("arm_once", TimerStrategy::ArmOnce, "lagging", LAG_NS, 1514),
        (
            "arm_once",
            TimerStrategy::ArmOnce,
            "lagging_60b",
            LAG_NS,
            60,
        ),
        ("arm_once", TimerStrategy::ArmOnce, "instant_timed", 0, 1514),
    ];
    for (name, s, variant, lag, len) in timed {
        let mut rig = Rig::<HrBase, P>::hrtimer_on(SEED, s, lag).unwrap_or_else(|e| fail("rig", e));
        let t = rig
            .stream_timed(N, STREAM_GAP_NS, len)
            .unwrap_or_else(|e| fail("stream", e));
        if t.reclaimed != u64::from(N) || rig.tx.pending() != 0 {
            fail(
                "stream",
                format!("{name}_{variant}: frames left unreclaimed"),
            );
        }
        let f = t.stream;
        OUT.figure(
            &format!("{pre}stream_clockevent_programs_per_packet_{name}_{variant}"),
            format!("{:.4}", f.programs_per_packet()),
            "programs",
        );
        OUT.figure(
            &format!("{pre}stream_queue_ops_per_packet_{name}_{variant}"),
            format!("{:.4}", f.queue_ops_per_packet()),
            "ops",
        );
        OUT.figure(
            &format!("{pre}stream_timer_expiries_in_traffic_{name}_{variant}"),
            t.expiries_in_traffic,
            "expiries",
        );
        OUT.figure(
            &format!("{pre}stream_timer_expiries_per_ms_{name}_{variant}"),
            format!("{:.3}", t.expiries_per_ms()),
            "expiries",
        );
        OUT.figure(
            &format!("{pre}stream_timer_expiries_{name}_{variant}"),
            f.expiries,
            "expiries",
        );
        OUT.figure(
            &format!("{pre}stream_ti_events_{name}_{variant}"),
            f.ti_events,
            "events",
        );
        OUT.figure(
            &format!("{pre}stream_max_pending_{name}_{variant}"),
            f.max_pending,
            "descs",
        );
        OUT.figure(
            &format!("{pre}stream_reclaim_latency_mean_{name}_{variant}"),
            format!("{:.1}", t.reclaim_mean_ns() / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("{pre}stream_reclaim_latency_max_{name}_{variant}"),
            format!("{:.1}", t.reclaim_max_ns as f64 / 1000.0),
            "us",
        );
    }
    // A burst of 10 on the lagging model: from the last frame's write-back to its reclaim.
    let hr_lag = || BurstRunner::<P>::hrtimer_lagging_on(SEED, TimerStrategy::ArmOnce, LAG_NS);
    let hr_linux_lag =
        || BurstRunner::<P>::hrtimer_lagging_on(SEED, TimerStrategy::RearmEveryPacket, LAG_NS);
    for (name, make) in [
        ("hrtimer_rearm_lagging", &hr_linux_lag as &dyn Fn() -> _),
        ("hrtimer_arm_once_lagging", &hr_lag),
    ] {
        let Some((mean, max)) =
            burst_latency_sweep(make, BURST, PHASES).unwrap_or_else(|e| fail("burst", e))
        else {
            fail("burst", format!("{name}: a burst was never reclaimed"));
        };
        OUT.figure(
            &format!("{pre}burst10_reclaim_latency_mean_{name}"),
            format!("{:.1}", mean / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("{pre}burst10_reclaim_latency_max_{name}"),
            format!("{:.1}", max as f64 / 1000.0),
            "us",
        );
    }
    // RX coalescing: 8 bursts of 16 line-rate frames, 1 ms apart, on the model (QEMU's
    // npcm-gmac has no RIWT): interrupts per frame and how long a frame waits for one.
    for (name, cfg) in [
        ("per_frame", CoalesceConfig::default()),
        (
            "riwt500",
            CoalesceConfig {
                rx_usecs: 500,
                ..CoalesceConfig::default()
            },
        ),
        (
            "riwt500_frames16",
            CoalesceConfig {
                rx_usecs: 500,
                rx_frames: 16,
                ..CoalesceConfig::default()
            },
        ),
    ] {
        let f = rx_bursts_on::<P>(cfg, 16, 8).unwrap_or_else(|e| fail("rx", e));
        OUT.figure(
            &format!("{pre}rx_interrupts_per_frame_{name}"),
            format!("{:.4}", f.interrupts_per_frame()),
            "interrupts",
        );
        OUT.figure(
            &format!("{pre}rx_latency_mean_{name}"),
            format!("{:.1}", f.mean_latency_ns / 1000.0),
            "us",
        );
        OUT.figure(
            &format!("{pre}rx_latency_max_{name}"),
            format!("{:.1}", f.max_latency_ns as f64 / 1000.0),
            "us",
        );
    }
}

/// Instructions per iteration of a measurement child, split between the driver and the model.
struct Split {
    driver: f64,
    model: f64,
}

/// Who a function belongs to, by the path its symbol starts with (a drop: the type it
/// drops): the model (`stmmac_coalesce::sim`, less the harness in `sim::seed`, and
/// `hwtimer_core`'s `SimBus` in front of it), the driver (the rest of `stmmac_coalesce`),
/// the harness (`sim::seed`, the rest of `hwtimer_core`, the bench), or no one (`None`:
/// `std`, `core`, `alloc`, libc, whose cost goes to the caller).
#[derive(Clone, Copy, PartialEq)]
enum Owner {
    Driver,
    Model,
    Other,
}

fn owner(symbol: &str) -> Option<Owner> {
    // A drop belongs to whoever owns the type it drops.
    let head = symbol
        .strip_prefix("core::ptr::drop_in_place")
        .unwrap_or(symbol);
    let head = head.trim_start_matches('<');
    let head = head.split(['<', ' ']).next().unwrap_or(head);
    if head.starts_with("hwtimer_core::sim::bus::SimBus") {
        Some(Owner::Model)
    } else if head.starts_with("stmmac_coalesce::sim::seed") {
        Some(Owner::Other)
    } else if head.starts_with("stmmac_coalesce::sim::") {
        Some(Owner::Model)
    } else if head.starts_with("stmmac_coalesce::") {
        Some(Owner::Driver)
    } else if head.starts_with("hwtimer_core::") || head.starts_with("seed::") {
        Some(Owner::Other)
    } else {
        None
    }
}

/// (driver, model) instructions of one callgrind output file: each function's own cost
/// goes to its owner, and a call from an owned function into an unowned one (allocator,
/// `memcpy`, `core` helpers) counts inclusively for the caller's owner.
fn split_file(text: &str) -> Option<(u64, u64)> {
    use std::collections::HashMap;
    let mut names: HashMap<String, String> = HashMap::new();
    // Callgrind compresses names: `fn=(7) name` the first time, `fn=(7)` after.
    let mut name = |s: &str| -> String {
        if let Some(rest) = s.strip_prefix('(')
            && let Some((id, tail)) = rest.split_once(')')
        {
            let tail = tail.trim();
            if !tail.is_empty() {
                names.insert(id.to_string(), tail.to_string());
            }
            return names.get(id).cloned().unwrap_or_default();
        }
        s.to_string()
    };
    let (mut driver, mut model) = (0u64, 0u64);
    let mut fun: Option<Owner> = None;
    let mut callee: Option<Owner> = None;
    let mut call = false;
    let mut add = |who: Option<Owner>, c: u64| match who {
        Some(Owner::Driver) => driver += c,
        Some(Owner::Model) => model += c,
        _ => {}
    };
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("fn=") {
            fun = owner(&name(f));
        } else if let Some(f) = line.strip_prefix("cfn=") {
            callee = owner(&name(f));
        } else if line.starts_with("calls=") {
            call = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            let cost: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            if call {
                call = false;
                if callee.is_none() {
                    add(fun, cost);
                }
            } else {
                add(fun, cost);
            }
        }
    }
    Some((driver, model))
}

/// (driver, model) instructions of the measurement child `op` run `n` times.
fn split_run(op: &str, n: u64) -> Option<(u64, u64)> {
    let exe = std::env::current_exe().ok()?;
    let out = std::env::temp_dir().join(format!(
        "stmmac-seed-split-{}-{op}-{n}.out",
        std::process::id()
    ));
    let status = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--dump-instr=no"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["--instr-child", op, &n.to_string()])
        .output()
        .ok()?
        .status;
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    split_file(&text?)
}

/// Driver and model instructions per iteration of `op`: runs of 0 and `n` iterations, the
/// difference divided by `n` (as `instr::per_op`).
fn split_per_op(op: &str, n: u64) -> Option<Split> {
    let (d0, m0) = split_run(op, 0)?;
    let (d1, m1) = split_run(op, n)?;
    let per = |a: u64, b: u64| b.saturating_sub(a) as f64 / n.max(1) as f64;
    Some(Split {
        driver: per(d0, d1),
        model: per(m0, m1),
    })
}
