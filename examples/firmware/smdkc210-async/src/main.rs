//! Firmware for QEMU's `smdkc210` machine (Samsung Exynos4210, Cortex-A9): two async
//! runtimes on the Exynos MCT at once, through the `exynos-mct` crate's adapters.
//!
//! - **embassy**: an `embassy_executor::Executor` (`platform-cortex-ar`, `executor-thread`)
//!   whose time driver is `exynos_mct::embassy::Driver`: hwtimer-core's `TimeDriver` on
//!   global comparator 0 and the block's 64-bit time base `FrcTime`.
//! - **rtic-time**: `exynos_mct::rtic_monotonic!(Mono, local_timer)` on local timer 0 and the
//!   same `FrcTime`. rtic-time's `TimerQueue` futures run on any executor; here the same
//!   tasks await them on the embassy executor.
//!
//! Two runtimes need two channels, each with its own interrupt: G0 is GIC ID 89 (SPI 57) and
//! L0 is GIC ID 74 (SPI 42) on the external GIC (`docs/qemu.md`, smdkc210 interrupt
//! routing), routed as the smdkc210 firmware routes them, combiners left masked.
//!
//! Why a local timer and not a second comparator: QEMU's model of the global timer counts
//! towards one comparator at a time, and when it picks the next one after a match it
//! compares the comparators with a count that still includes the interval just finished, so
//! a second comparator due within that interval after the first is passed without a match,
//! and the count then runs a full 2^32-tick step (179 s) before anything else happens
//! (`crates/exynos-mct/docs/exynos-mct.md`, QEMU model). Two runtimes on G0 and G1 hung this way within 31
//! interrupts. Silicon compares every comparator with the counter on every tick; the crate's
//! comparator is the right choice there. The local timer has its own counter in QEMU, so
//! nothing of the kind can happen between the two runtimes.
//!
//! # Boot: MMU on, RAM Normal memory
//!
//! The executor, its wakers, embassy-time's queue and rtic-time's linked list use atomic
//! read-modify-write, LDREX/STREX on ARMv7, which the architecture leaves unpredictable on
//! Strongly-ordered memory, and that is what all of RAM is with the MMU off. QEMU does not
//! care; silicon does. So before anything else `run` turns the MMU on with a flat section
//! map (`fw_common::arm::mmu::FlatMap`): DRAM0 (0x4000_0000, 1 GiB) as Normal write-back
//! memory, everything else (MCT, GIC, UART, iROM) as Device memory, execute-never; then the
//! caches, as a real boot would. The first lines printed show SCTLR.
//!
//! # What runs
//!
//! Three tasks, each awaiting embassy-time and rtic-time in turn:
//!
//! - `sleeper`: `Timer::at` and `Mono::delay_until`, 20 to 219 µs ahead;
//! - `ticker`: a `Ticker::every(150 µs)` started at a known instant (`reset_at`), and between
//!   ticks a 30 µs `Mono::delay_until`;
//! - `timeouts`: a 60 µs timeout around a 40 µs (even rounds) or 80 µs (odd rounds) timer,
//!   with embassy-time's `with_deadline` (`with_timeout` at an instant) and rtic-time's
//!   `timeout_at`.
//!
//! Each task, when it resumes, reads the time base (`FrcTime`, never the raw FRC, which QEMU
//! quirk 2 moves backwards: every `G_COMPn` write restarts the visible count from the last
//! match) and compares it with its deadline, in FRC ticks for both runtimes (embassy-time
//! runs at `tick-hz-24_000_000`). A wake before its deadline is **early**. Every deadline is
//! an instant the task computed itself, so the check is exact at any `-icount` setting. The
//! last task to finish prints one summary line per runtime,
//! `<runtime>: wakes=<n> early=<k> max_late_ticks=<m>`, and the `bench:` figures.
//!
//! # Any `-icount` shift
//!
//! `expected.txt` asserts at least 1000 wakes per runtime and none early, and bounds
//! nothing that scales with the shift (lateness is interrupt latency and the other tasks'
//! work, printed and collected by `cargo xtask bench`). Instruction counts come from
//! fw-common's PMU meter (event 0x08, the same at every fixed shift; derived from virtual
//! time under `shift=auto` or without icount, where they are approximate).
//!
//! Run it with `cargo xtask qemu smdkc210-async`.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{Executor, SpawnToken, Spawner};
use embassy_time::{Duration, Instant, Ticker, Timer, with_deadline};
use exynos_mct::{Config, FrcTime, Mct, regs};
use fw_common::arm::exynos4210::{
    DRAM0_BASE, DRAM0_LEN, EXT_GIC_CPU, EXT_GIC_DIST, IRQ_MCT_G0, IRQ_MCT_L0, RAM, UART0_BASE,
    Uart0,
};
use fw_common::arm::gic::{self, Gic};
use fw_common::arm::mmu;
use fw_common::arm::pmu::{self, Meter, Stamp};
use fw_common::arm::{self, spin_insns};
use fw_common::wakes::WakeStats;
use fw_common::{CsCell, StaticCell, println, verdict};
use hwtimer_core::{Mmio, Monotonic};
use rtic_time::Timebase;
use rtic_time::fugit::MonotonicTimerInstantU64;

/// Priority of both (any value below the mask of 0xf0 is signalled).
const IRQ_PRIORITY: u8 = 0xa0;
/// GICD_ITARGETSR value: CPU interface 0 only (CPU1 is parked).
const TARGET_CPU0: u8 = 1;

/// Rounds of the sleeper (one embassy and one rtic-time wait each).
const SLEEPS: u64 = 350;
/// Ticks of the ticker (one rtic-time wait between each two).
const TICKS: u64 = 400;
/// Rounds of the timeout task (one embassy and one rtic-time timeout each).
const TIMEOUTS: u64 = 300;
/// The ticker's period.
const TICK_PERIOD_US: u64 = 150;
/// The rtic-time wait between two ticks.
const BETWEEN_TICKS_US: u64 = 30;
/// The timeout, from the start of each round.
const TIMEOUT_US: u64 = 60;
/// Tasks that report when they finish.
const TASKS: u32 = 3;
/// Calls per timed loop (`bench:` lines).
const CALLS: u32 = 10_000;
/// Iterations of the calibration loop (`spin_insns`: 2 instructions each).
const CALIBRATION_ITERATIONS: u32 = 100_000;
/// FRC ticks per microsecond (24 MHz).
const TICKS_PER_US: u64 = 24;

/// rtic-time's instants on this monotonic: FRC ticks at 24 MHz.
type MonoInstant = MonotonicTimerInstantU64<24_000_000>;

fw_common::arm_board! {
    name: "smdkc210-async",
    console: Uart0,
    main: run,
    irq: on_irq,
}

// The drivers, the runtimes and the statics shared with `on_irq` take critical sections.
fw_common::critical_section_impl!();

embassy_time_driver::time_driver_impl!(
    static DRIVER: exynos_mct::embassy::Driver = exynos_mct::embassy::Driver::new()
);

exynos_mct::rtic_monotonic!(Mono, local_timer);
/// The external GIC, CPU0's interface.
// SAFETY: the external GIC of QEMU's Exynos4210 (addresses above); only CPU0 runs this
// firmware and nothing else drives that GIC.
static GIC: Gic = unsafe { Gic::new(EXT_GIC_DIST, EXT_GIC_CPU) };
/// The MCT driver, `'static` so its parts can live in the runtimes' statics.
static MCT: StaticCell<Mct<Mmio>> = StaticCell::new();
/// The executor (`run` needs `&'static mut`). The `static_cell` crate's cell, because an
/// executor is not `Send` (fw-common's cell wants that); its compare-and-swap is fine once
/// the MMU maps RAM as Normal memory.
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();
/// The embassy waits.
static EMBASSY: CsCell<WakeStats> = CsCell::new(WakeStats::new());
/// The rtic-time waits.
static RTIC: CsCell<WakeStats> = CsCell::new(WakeStats::new());
/// Comparator 0 (embassy) interrupts handled.
static G0_IRQS: AtomicU32 = AtomicU32::new(0);
/// Local timer 0 (rtic-time) interrupts handled.
static L0_IRQS: AtomicU32 = AtomicU32::new(0);
/// Interrupts nobody owns, and spurious acknowledges.
static OTHER_IRQS: AtomicU32 = AtomicU32::new(0);
/// Tasks finished.
static DONE: AtomicU32 = AtomicU32::new(0);
/// Timeout rounds won by the future due first, per runtime (embassy, rtic-time).
static EXPECTED_WINNER: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];
/// A check outside the wake counts failed (printed where it happened).
static FAILED: AtomicU32 = AtomicU32::new(0);

/// The IRQ handler, called by the vector code in IRQ mode with IRQs masked.
fn on_irq() {
    let iar = GIC.acknowledge();
    let id = gic::iar_id(iar);
    match id {
        // Each acknowledges its channel (G_INT_CSTAT, L_INT_CSTAT), which lowers the
        // level-sensitive line before the end of interrupt below.
        IRQ_MCT_G0 => {
            DRIVER.on_interrupt();
            G0_IRQS.fetch_add(1, Ordering::Relaxed);
        }
        IRQ_MCT_L0 => {
            Mono::on_interrupt();
            L0_IRQS.fetch_add(1, Ordering::Relaxed);
        }
        gic::SPURIOUS_ID => {
            OTHER_IRQS.fetch_add(1, Ordering::Relaxed);
            return;
        }
        _ => {
            // Nobody owns it: disable it, or the level would bring us straight back.
            GIC.disable(id);
            OTHER_IRQS.fetch_add(1, Ordering::Relaxed);
        }
    }
    GIC.end_of_interrupt(iar);
}

/// A task resumed at `now` for `deadline`, having started to wait at `scheduled`.
fn record(stats: &CsCell<WakeStats>, deadline: u64, scheduled: u64, now: u64) {
    stats.with(|s| s.record(deadline, scheduled, now));
}

/// A task is done; the last one prints the results and ends the run.
fn finished() {
    if DONE.fetch_add(1, Ordering::Relaxed) + 1 == TASKS {
        report();
    }
}

/// Spawns `token`, or counts a failure.
fn spawn<S>(spawner: Spawner, token: Result<SpawnToken<S>, embassy_executor::SpawnError>) {
    match token {
        Ok(token) => spawner.spawn(token),
        Err(_) => {
            println!(Uart0, "spawn failed");
            FAILED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Microseconds in FRC ticks.
const fn us(n: u64) -> u64 {
    n * TICKS_PER_US
}

/// `Timer::at` and `Mono::delay_until`, 20 to 219 µs ahead.
#[embassy_executor::task]
async fn sleeper(time: FrcTime<'static, Mmio>) {
    for i in 0..SLEEPS {
        let wait = us(20 + (i * 37) % 200);
        let scheduled = time.now();
        let at = scheduled + wait;
        Timer::at(Instant::from_ticks(at)).await;
        record(&EMBASSY, at, scheduled, time.now());

        let scheduled = time.now();
        let at = scheduled + wait;
        Mono::delay_until(MonoInstant::from_ticks(at)).await;
        record(&RTIC, at, scheduled, time.now());
    }
    finished();
}

/// A `Ticker::every` started at a known instant, and an rtic-time wait after each tick.
#[embassy_executor::task]
async fn ticker(time: FrcTime<'static, Mmio>) {
    let period = Duration::from_micros(TICK_PERIOD_US);
    let mut ticker = Ticker::every(period);
    let start = time.now();
    ticker.reset_at(Instant::from_ticks(start)); // first tick at start + period, exactly
    for k in 1..=TICKS {
        let scheduled = time.now();
        ticker.next().await;
        record(
            &EMBASSY,
            start + k * period.as_ticks(),
            scheduled,
            time.now(),
        );

        let scheduled = time.now();
        let at = scheduled + us(BETWEEN_TICKS_US);
        Mono::delay_until(MonoInstant::from_ticks(at)).await;
        record(&RTIC, at, scheduled, time.now());
    }
    finished();
}

/// A 60 µs timeout around a 40 µs (even rounds) or 80 µs (odd rounds) timer, in each
/// runtime. Whichever completes, its own deadline must have passed; a task polled after
/// both (a late wake) sees the inner future first, and it wins.
#[embassy_executor::task]
async fn timeouts(time: FrcTime<'static, Mmio>) {
    for i in 0..TIMEOUTS {
        let inner_us = if i % 2 == 0 { 40 } else { 80 };

        let scheduled = time.now();
        let (inner, timeout_at) = (scheduled + us(inner_us), scheduled + us(TIMEOUT_US));
        let result = with_deadline(
            Instant::from_ticks(timeout_at),
            Timer::at(Instant::from_ticks(inner)),
        )
        .await;
        let now = time.now();
        if result.is_ok() == (i % 2 == 0) {
            EXPECTED_WINNER[0].fetch_add(1, Ordering::Relaxed);
        }
        let deadline = if result.is_ok() { inner } else { timeout_at };
        record(&EMBASSY, deadline, scheduled, now);

        let scheduled = time.now();
        let (inner, timeout_at) = (scheduled + us(inner_us), scheduled + us(TIMEOUT_US));
        let result = Mono::timeout_at(
            MonoInstant::from_ticks(timeout_at),
            Mono::delay_until(MonoInstant::from_ticks(inner)),
        )
        .await;
        let now = time.now();
        if result.is_ok() == (i % 2 == 0) {
            EXPECTED_WINNER[1].fetch_add(1, Ordering::Relaxed);
        }
        let deadline = if result.is_ok() { inner } else { timeout_at };
        record(&RTIC, deadline, scheduled, now);
    }
    finished();
}

/// Prints a `bench:` line with two decimals.
fn bench_centi(metric: &str, centi: u64, unit: &str) {
    println!(
        Uart0,
        "bench: exynos-mct/{metric} = {}.{:02} {unit}",
        centi / 100,
        centi % 100
    );
}

/// The `bench:` metric names of one runtime.
struct Metrics {
    /// Largest lateness.
    max_late: &'static str,
    /// Mean lateness.
    mean_late: &'static str,
    /// Comparator interrupts per wake.
    irqs_per_wake: &'static str,
}

/// Prints what one runtime did.
fn report_runtime(
    name: &str,
    metrics: &Metrics,
    stats: &WakeStats,
    irqs: u32,
    expected: u64,
) -> bool {
    stats.print_summary(Uart0, name);
    let ok = stats.wakes == expected && stats.early == 0;
    println!(
        Uart0,
        "{name}: {} wakes of {expected} expected, {} early, {irqs} timer interrupts: {}",
        stats.wakes,
        stats.early,
        verdict(ok)
    );
    println!(
        Uart0,
        "bench: exynos-mct/{} = {} ticks", metrics.max_late, stats.max_late
    );
    bench_centi(metrics.mean_late, stats.mean_late_centi(), "ticks");
    bench_centi(
        metrics.irqs_per_wake,
        u64::from(irqs) * 100 / stats.wakes.max(1),
        "irqs",
    );
    ok
}

/// Prints the results and ends the run.
fn report() -> ! {
    let embassy = EMBASSY.with(|s| *s).unwrap_or_default();
    let rtic = RTIC.with(|s| *s).unwrap_or_default();
    let driver = DRIVER.stats();
    let mut ok = report_runtime(
        "embassy",
        &Metrics {
            max_late: "fw_embassy_wake_late_max_ticks",
            mean_late: "fw_embassy_wake_late_mean_ticks",
            irqs_per_wake: "fw_embassy_irqs_per_wake",
        },
        &embassy,
        G0_IRQS.load(Ordering::Relaxed),
        SLEEPS + TICKS + TIMEOUTS,
    );
    ok &= report_runtime(
        "rtic-time",
        &Metrics {
            max_late: "fw_rtic_wake_late_max_ticks",
            mean_late: "fw_rtic_wake_late_mean_ticks",
            irqs_per_wake: "fw_rtic_irqs_per_wake",
        },
        &rtic,
        L0_IRQS.load(Ordering::Relaxed),
        SLEEPS + TICKS + TIMEOUTS,
    );
    println!(
        Uart0,
        "embassy driver: {} programmings, {} refused; timeouts won by the future due first: embassy {} of {TIMEOUTS}, rtic-time {} of {TIMEOUTS}",
        driver.programs,
        driver.refused,
        EXPECTED_WINNER[0].load(Ordering::Relaxed),
        EXPECTED_WINNER[1].load(Ordering::Relaxed)
    );
    let other = OTHER_IRQS.load(Ordering::Relaxed);
    println!(Uart0, "other interrupts: {other}");
    ok &= other == 0 && FAILED.load(Ordering::Relaxed) == 0;
    arm::finish(Uart0, ok)
}

/// Everything before the executor: MMU, time, runtimes, interrupts, instruction counts.
fn run() -> bool {
    // ---- MMU and caches first: nothing before this uses an exclusive access ----
    // SAFETY: called once, first, with the MMU and caches off; the table maps DRAM0 (image,
    // stacks, statics) flat as Normal memory and every device flat as Device memory; no DMA
    // runs on this board.
    let sctlr = unsafe { mmu::enable(&RAM) };
    let ram_normal = RAM.is_normal(DRAM0_BASE) && !RAM.is_normal(UART0_BASE as u32);
    let mmu_ok = mmu::enabled() && ram_normal;
    println!(
        Uart0,
        "MMU: SCTLR = {sctlr:#010x} (M, C, I on), flat 1 MiB sections: DRAM0 {DRAM0_BASE:#x}+{DRAM0_LEN:#x} Normal write-back, devices Device: {}",
        verdict(mmu_ok)
    );
    pmu::enable();

    // ---- The MCT, its time base and the two runtimes ----
    // SAFETY: the Exynos4210 MCT register window; this firmware is its only user and only
    // CPU0 runs it.
    let bus = unsafe { Mmio::<u32>::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
    let mct: &'static Mct<Mmio> = match Mct::new(bus, Config::default()) {
        Ok(mct) => MCT.init(mct),
        Err(e) => {
            println!(Uart0, "exynos-mct error: {e}");
            return false;
        }
    };
    if let Err(e) = mct.start_frc() {
        println!(Uart0, "exynos-mct error: {e}");
        return false;
    }
    let time: FrcTime<'static, Mmio> = mct.time();
    let rate_ok = u64::from(mct.freq_hz()) == embassy_time::TICK_HZ;
    println!(
        Uart0,
        "time base: FrcTime at {} Hz, embassy-time {} Hz, rtic-time instants in FRC ticks: {}",
        mct.freq_hz(),
        embassy_time::TICK_HZ,
        verdict(rate_ok)
    );
    let started = mct
        .comparator(0)
        .and_then(|g0| DRIVER.init(g0, time))
        .and_then(|()| mct.local_timer(0))
        .and_then(|l0| Mono::start(l0, time));
    if let Err(e) = started {
        println!(Uart0, "runtime set-up failed: {e}");
        return false;
    }
    println!(
        Uart0,
        "embassy: exynos_mct::embassy::Driver on comparator 0 (GIC ID {IRQ_MCT_G0}); rtic-time: exynos_mct::rtic_monotonic! on local timer 0 (GIC ID {IRQ_MCT_L0})"
    );
    GIC.init();
    GIC.enable(IRQ_MCT_G0, IRQ_PRIORITY, TARGET_CPU0);
    GIC.enable(IRQ_MCT_L0, IRQ_PRIORITY, TARGET_CPU0);

    // ---- Instructions per `now()` through each runtime, on the real ISA ----
    // fw-common's meter: PMU event 0x08 under a fixed -icount shift (exact at any shift),
    // virtual time over the speed of a known loop otherwise.
    let a = Stamp::now();
    spin_insns(CALIBRATION_ITERATIONS);
    let b = Stamp::now();
    let Some(meter) = Meter::from_span(a, b, 2 * u64::from(CALIBRATION_ITERATIONS)) else {
        println!(Uart0, "PMU: no virtual time passed");
        return false;
    };
    meter.print(Uart0);
    let measure = |f: &mut dyn FnMut()| -> u64 {
        let from = Stamp::now();
        for _ in 0..CALLS {
            f();
        }
        meter.insns(from, Stamp::now())
    };
    let empty = measure(&mut || {
        black_box(0u32);
    });
    let embassy_now = measure(&mut || {
        black_box(Instant::now());
    });
    let rtic_now = measure(&mut || {
        black_box(Mono::now());
    });
    let time_now = measure(&mut || {
        black_box(time.now());
    });
    // Instructions per call, in hundredths, loop overhead subtracted.
    let insns_centi = |insns: u64| insns.saturating_sub(empty) * 100 / u64::from(CALLS);
    bench_centi("fw_embassy_now_insns", insns_centi(embassy_now), "insns");
    bench_centi("fw_rtic_now_insns", insns_centi(rtic_now), "insns");
    bench_centi("fw_frc_time_now_insns", insns_centi(time_now), "insns");

    // SAFETY: `on_irq` handles (or disables) every ID it is given and both channels are
    // acknowledged by their runtime; no critical section is held here.
    unsafe { arm::irq_enable() };
    println!(
        Uart0,
        "executor: embassy-executor (platform-cortex-ar), {TASKS} tasks: Timer::at + delay_until, Ticker::every + delay_until, with_deadline + timeout_at"
    );
    let executor = EXECUTOR.init(Executor::new());
    executor.run(|spawner| {
        spawn(spawner, sleeper(time));
        spawn(spawner, ticker(time));
        spawn(spawner, timeouts(time));
    })
}
