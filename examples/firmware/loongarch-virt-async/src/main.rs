//! Firmware for QEMU's LoongArch `virt` machine: an embassy executor whose time driver is the
//! constant timer, through `loongarch_timer::embassy::Driver` (hwtimer-core's `TimeDriver` on
//! the core's pinned timer and stable counter).
//!
//! # Boot (`fw_common::loongarch_board!`)
//!
//! The executor, its wakers and embassy-time's queue are built on atomic read-modify-write
//! (LL/SC and AM* instructions), which belong on cached coherent memory. QEMU starts the core
//! in direct-address mode with strongly-ordered uncached data accesses, so the entry code
//! first does what a real boot does: direct-mapped windows DMW0 (`0x8000...`, devices,
//! strongly-ordered uncached) and DMW1 (`0x9000...`, RAM, coherent cached), the image linked
//! in DMW1, CRMD = `0xb0` (paged mode). The first lines printed show it.
//!
//! # What runs
//!
//! Three tasks on one `embassy_executor::Executor` (`platform-spin`: the executor polls, it
//! never idles, so under `-icount` virtual time advances by instructions only):
//!
//! - `sleeper`: `Timer::at` deadlines 20 to 219 µs apart;
//! - `ticker`: a `Ticker::every(150 µs)`;
//! - `timeouts`: a 60 µs timeout (`with_deadline`, embassy-time's `with_timeout` at an
//!   instant) around a `Timer::at` of 40 µs (even rounds) or 80 µs (odd rounds).
//!
//! Each task, when it resumes, reads the time base (the stable counter, through a
//! [`PinnedCounter`] of its own, not through embassy) and compares it with its deadline in
//! the same ticks (embassy-time runs at `tick-hz-100_000_000`, the counter's CPUCFG rate;
//! checked at start-up). A wake before its deadline is **early**. Every deadline is an
//! instant the task computed itself (`Timer::at`, `Ticker::reset_at`, `with_deadline`), not
//! one embassy read from the clock inside a call, so it is exact at any `-icount` setting,
//! including none, where time moves on between two reads. The last task to finish prints
//! `embassy: wakes=<n> early=<k> max_late_ticks=<m>` and the figures below.
//!
//! # Any `-icount` shift
//!
//! Nothing asserted depends on how much virtual time an instruction takes: `expected.txt`
//! requires at least 1000 wakes and none early, and shows the lateness without bounding it
//! (it is interrupt latency, the executor's poll and the other tasks' work, all of which
//! scale with the shift; every wait is longer than `min_delta`, 10 µs). The `bench:`
//! instruction counts are derived with a calibration loop of known length, so they are
//! right at any fixed shift; under `shift=auto` they are approximate.
//!
//! Run it with `cargo xtask qemu loongarch-virt-async`.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{Executor, SpawnToken, Spawner};
use embassy_time::{Duration, Instant, Ticker, Timer, with_deadline};
use fw_common::loongarch::virt::{Uart0, power_off};
use fw_common::loongarch::{self, rdtime, spin_insns};
use fw_common::wakes::WakeStats;
use fw_common::{CsCell, StaticCell, println, verdict};
use hwtimer_core::Monotonic;
use loongarch_timer::csr::NativeCsr;
use loongarch_timer::pinned::{PinnedCounter, pair};
use loongarch_timer::{Config, ConstantClock, StableCounter};

/// `Timer::at` rounds of the sleeper.
const SLEEPS: u64 = 400;
/// Ticks of the ticker.
const TICKS: u64 = 400;
/// Rounds of the timeout task.
const TIMEOUTS: u64 = 300;
/// The ticker's period.
const TICK_PERIOD_US: u64 = 150;
/// The timeout, from the start of each round.
const TIMEOUT_US: u64 = 60;
/// Tasks that report when they finish.
const TASKS: u32 = 3;
/// Calls per timed loop (`bench:` lines).
const CALLS: u64 = 10_000;
/// Iterations of the calibration loop (2 instructions each).
const CALIBRATION_ITERATIONS: u64 = 100_000;

fw_common::loongarch_board! {
    name: "loongarch-virt-async",
    console: Uart0,
    main: run,
    irq: on_irq,
    power_off: power_off,
}

fw_common::critical_section_impl!();

embassy_time_driver::time_driver_impl!(
    static DRIVER: loongarch_timer::embassy::Driver = loongarch_timer::embassy::Driver::new()
);

/// The executor (`run` needs `&'static mut`). The `static_cell` crate's cell, because an
/// executor is not `Send` (fw-common's cell wants that); its compare-and-swap is fine here,
/// with RAM cached and coherent.
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();
/// The tasks' own view of the time base (the driver holds another).
static TIME: StaticCell<PinnedCounter<NativeCsr>> = StaticCell::new();
/// Every task's wakes.
static STATS: CsCell<WakeStats> = CsCell::new(WakeStats::new());
/// Timer interrupts handled.
static TIMER_IRQS: AtomicU32 = AtomicU32::new(0);
/// Interrupts that were not the timer's.
static OTHER_IRQS: AtomicU32 = AtomicU32::new(0);
/// Tasks finished.
static DONE: AtomicU32 = AtomicU32::new(0);
/// Timeout rounds won by the future due first (the others were polled after both).
static EXPECTED_WINNER: AtomicU32 = AtomicU32::new(0);
/// A check outside the wake counts failed (printed where it happened).
static FAILED: AtomicU32 = AtomicU32::new(0);

/// The interrupt handler (`loongarch_board!` calls it with ESTAT, interrupts off).
fn on_irq(estat: u64) {
    if estat & loongarch::ESTAT_TI != 0 {
        DRIVER.on_interrupt();
        TIMER_IRQS.fetch_add(1, Ordering::Relaxed);
    } else {
        // Only ECFG.LIE bit 11 is enabled, so nothing else can be pending and enabled.
        OTHER_IRQS.fetch_add(1, Ordering::Relaxed);
        println!(Uart0, "PANIC: unexpected interrupt, ESTAT = {estat:#x}");
        power_off();
    }
}

/// A task resumed at `now` for `deadline`, having started to wait at `scheduled`.
fn record(deadline: u64, scheduled: u64, now: u64) {
    STATS.with(|s| s.record(deadline, scheduled, now));
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

/// `Timer::at` deadlines at varying distances.
#[embassy_executor::task]
async fn sleeper(time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..SLEEPS {
        let scheduled = time.now();
        let at = Instant::from_ticks(scheduled) + Duration::from_micros(20 + (i * 37) % 200);
        Timer::at(at).await;
        record(at.as_ticks(), scheduled, time.now());
    }
    finished();
}

/// A `Ticker::every`, started at a known instant (`reset_at`), each tick checked against
/// `start + k * period`.
#[embassy_executor::task]
async fn ticker(time: &'static PinnedCounter<NativeCsr>) {
    let period = Duration::from_micros(TICK_PERIOD_US);
    let mut ticker = Ticker::every(period);
    let start = time.now();
    ticker.reset_at(Instant::from_ticks(start)); // first tick at start + period, exactly
    for k in 1..=TICKS {
        let scheduled = time.now();
        ticker.next().await;
        record(start + k * period.as_ticks(), scheduled, time.now());
    }
    finished();
}

/// A timeout (`with_deadline`, `with_timeout` at an instant) around a `Timer::at`: the inner
/// timer is due first on even rounds (40 µs against 60 µs), the timeout on odd ones (80 µs).
/// Whichever completes, its own deadline must have passed; when the task is polled after
/// both (a late wake), the inner future is looked at first and wins.
#[embassy_executor::task]
async fn timeouts(time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..TIMEOUTS {
        let inner_us = if i % 2 == 0 { 40 } else { 80 };
        let scheduled = time.now();
        let inner = Instant::from_ticks(scheduled) + Duration::from_micros(inner_us);
        let timeout_at = Instant::from_ticks(scheduled) + Duration::from_micros(TIMEOUT_US);
        let result = with_deadline(timeout_at, Timer::at(inner)).await;
        let now = time.now();
        let deadline = match result {
            Ok(()) => inner,
            Err(_) => timeout_at,
        };
        if result.is_ok() == (i % 2 == 0) {
            EXPECTED_WINNER.fetch_add(1, Ordering::Relaxed);
        }
        record(deadline.as_ticks(), scheduled, now);
    }
    finished();
}

/// Prints the results and ends the run.
fn report() -> ! {
    let stats = STATS.with(|s| *s).unwrap_or_default();
    let driver = DRIVER.stats();
    let irqs = TIMER_IRQS.load(Ordering::Relaxed);
    stats.print_summary(Uart0, "embassy");
    let expected = SLEEPS + TICKS + TIMEOUTS;
    let counts_ok = stats.wakes == expected && stats.early == 0;
    println!(
        Uart0,
        "embassy: {} wakes of {expected} expected, {} early: {}",
        stats.wakes,
        stats.early,
        verdict(counts_ok)
    );
    println!(
        Uart0,
        "embassy: timeouts won by the future due first: {} of {TIMEOUTS}",
        EXPECTED_WINNER.load(Ordering::Relaxed)
    );
    println!(
        Uart0,
        "embassy: {irqs} timer interrupts, {} programmings, {} refused, {} other interrupts",
        driver.programs,
        driver.refused,
        OTHER_IRQS.load(Ordering::Relaxed)
    );
    let mean = stats.mean_late_centi();
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_wake_late_max_ticks = {} ticks", stats.max_late
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_wake_late_mean_ticks = {}.{:02} ticks",
        mean / 100,
        mean % 100
    );
    let per_wake = u64::from(irqs) * 1000 / stats.wakes.max(1);
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_irqs_per_wake = {}.{:03} irqs",
        per_wake / 1000,
        per_wake % 1000
    );
    let ok = counts_ok && FAILED.load(Ordering::Relaxed) == 0;
    loongarch::finish(Uart0, ok, power_off)
}

/// Virtual nanoseconds per instruction, in thousandths, from a loop of known length timed
/// by the 100 MHz stable counter (10 ns per tick): 1000 under `-icount shift=0`, 2^N·1000 at
/// shift N.
fn ns_per_insn_milli(freq_hz: u64) -> u64 {
    let t0 = rdtime();
    spin_insns(CALIBRATION_ITERATIONS);
    let ticks = rdtime().wrapping_sub(t0);
    // ns = ticks * 1e9 / freq; per instruction: / (2 * iterations).
    (ticks * 1_000_000_000 / freq_hz.max(1)) * 1000 / (2 * CALIBRATION_ITERATIONS)
}

/// Everything before the executor: the time driver, the checks, the instruction counts.
fn run() -> bool {
    let crmd = loongarch::crmd();
    let paged = crmd & 0x1f8 == 0xb0;
    println!(
        Uart0,
        "CRMD = {crmd:#x} ({}: DMW0 0x8000... devices uncached, DMW1 0x9000... RAM cached)",
        if paged { "paged" } else { "NOT PAGED" }
    );
    // SAFETY: PLV0 on the boot core, the only core running; this firmware programs TCFG,
    // TICLR and ECFG bit 11 only through the driver values built on this backend.
    let csr = unsafe { NativeCsr::new() };
    let clock = match ConstantClock::probe(&csr) {
        Ok(clock) => clock,
        Err(e) => {
            println!(Uart0, "constant timer unusable: {e}");
            return false;
        }
    };
    let (timer, time) = match pair(csr.clone(), Config::default()) {
        Ok(pair) => pair,
        Err(e) => {
            println!(Uart0, "constant timer unusable: {e}");
            return false;
        }
    };
    let freq = u64::from(clock.freq_hz());
    let rate_ok = freq == embassy_time::TICK_HZ;
    println!(
        Uart0,
        "time driver: loongarch_timer::embassy::Driver on core {}, stable counter {freq} Hz, embassy-time {} Hz: {}",
        timer.core(),
        embassy_time::TICK_HZ,
        verdict(rate_ok)
    );
    if let Err(e) = DRIVER.init(timer, time) {
        println!(Uart0, "time driver refused: {e}");
        return false;
    }
    let counter: &'static PinnedCounter<NativeCsr> =
        TIME.init(PinnedCounter::new(StableCounter::new(csr, clock)));

    // Instructions per embassy `Instant::now()` (the driver's `now`: CPUID check, rdtime.d,
    // publish, critical section, conversion), on the real ISA.
    let ns_milli = ns_per_insn_milli(freq);
    let time_loop = |f: &mut dyn FnMut()| -> u64 {
        let t0 = rdtime();
        for _ in 0..CALLS {
            f();
        }
        rdtime().wrapping_sub(t0)
    };
    let empty = time_loop(&mut || {
        black_box(0u64);
    });
    let now = time_loop(&mut || {
        black_box(Instant::now());
    });
    let raw = time_loop(&mut || {
        black_box(counter.now());
    });
    // ticks -> instructions per call, in hundredths: ticks * (1e9 / freq) ns / (ns per insn).
    let insns_centi = |ticks: u64| -> u64 {
        ticks * (1_000_000_000 / freq.max(1)) * 100_000 / ns_milli.max(1) / CALLS
    };
    println!(
        Uart0,
        "icount: {}.{:03} ns of virtual time per instruction (calibration loop)",
        ns_milli / 1000,
        ns_milli % 1000
    );
    let bench = |metric: &str, centi: u64| {
        println!(
            Uart0,
            "bench: loongarch-timer/{metric} = {}.{:02} insns",
            centi / 100,
            centi % 100
        );
    };
    bench(
        "fw_embassy_now_insns",
        insns_centi(now.saturating_sub(empty)),
    );
    bench(
        "fw_pinned_counter_now_insns",
        insns_centi(raw.saturating_sub(empty)),
    );

    // SAFETY: `on_irq` handles the only enabled source (TI, through the driver, which
    // acknowledges it); no critical section is held here.
    unsafe { loongarch::irq_enable() };
    println!(
        Uart0,
        "executor: embassy-executor (platform-spin), {TASKS} tasks: Timer::at, Ticker::every, with_deadline"
    );
    let executor = EXECUTOR.init(Executor::new());
    executor.run(|spawner| {
        spawn(spawner, sleeper(counter));
        spawn(spawner, ticker(counter));
        spawn(spawner, timeouts(counter));
    })
}
