//! The three-read timestamp (crate docs) measured on the behavioural model, in virtual time (deterministic: no host clock is
//! read): MMIO reads per 64-bit timestamp for each way of reading the MCT FRC, counted by
//! `SimBus`. Prints `bench: exynos-mct/<metric> = <value> <unit>` lines for
//! `cargo xtask bench` and the README. Instruction counts per call on the real ISA come from
//! the smdkc210 firmware (`bench: exynos-mct/fw_*` lines, QEMU `-icount shift=0`).
//!
//! Run: `cargo bench -p exynos-mct --bench seed`.

use bench_support::Printer;
use exynos_mct::sim::MctModel;
use exynos_mct::sim::seed::{self, UpperCache};
use exynos_mct::{Config, Mct};
use hwtimer_core::Monotonic;
use hwtimer_core::sim::{SimBus, SimClock};

const TIMESTAMPS: u64 = 100_000;

/// One strategy: reads timestamps on the driver and counts wrong ones; returns how many.
type Strategy<'a> = &'a dyn Fn(&Mct<SimBus<MctModel>>, &SimBus<MctModel>, &mut u64) -> u64;

/// Prints this crate's `bench:` figures and `series:` points.
const OUT: Printer = Printer::new(env!("CARGO_PKG_NAME"));

/// A deterministic pseudo-random gap (xorshift), 0..2 s: the run spans many low-word wraps.
fn gaps() -> impl FnMut() -> u64 {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 2_000_000_000
    }
}

fn check(bus: &SimBus<MctModel>, before_ns: u64, v: u64) -> bool {
    let after = bus.clock().now_ns();
    let lo = bus.model(|m| m.frc_value(before_ns));
    let hi = bus.model(|m| m.frc_value(after));
    lo <= v && v <= hi
}

fn main() {
    println!(
        "# MCT model at 24 MHz, MMIO read 100 ns / write 50 ns (SimBus defaults), {TIMESTAMPS} \
         timestamps 0..2 s apart (pseudo-random, ~560 low-word wraps), virtual time"
    );
    let mut failures = 0u64;

    // Each strategy: count reads, check every value against the model's true count.
    let mut run = |metric: &str, f: Strategy| {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, MctModel::exynos4210().with_frc(0xFFFF_0000));
        let mct = Mct::new(bus.clone(), Config::default()).expect("model");
        mct.start_frc().expect("model acknowledges");
        bus.reset_stats();
        let mut wrong = 0;
        let n = f(&mct, &bus, &mut wrong);
        let reads = bus.stats().reads as f64 / n as f64;
        failures += wrong;
        OUT.figure(metric, format!("{reads:.5}"), "reads");
        reads
    };

    let hilohi = run("reads_per_timestamp_hilohi", &|mct, bus, wrong| {
        let mut gap = gaps();
        for _ in 0..TIMESTAMPS {
            bus.clock().advance(gap());
            let t = bus.clock().now_ns();
            let v = mct.frc().read64();
            *wrong += u64::from(!check(bus, t, v));
        }
        TIMESTAMPS
    });
    let cached = run("reads_per_timestamp_cached_upper", &|mct, bus, wrong| {
        let cache = UpperCache::new();
        let mut gap = gaps();
        for _ in 0..TIMESTAMPS {
            bus.clock().advance(gap());
            let t = bus.clock().now_ns();
            let v = seed::read64_cached_upper(&mct.frc(), &cache);
            *wrong += u64::from(!check(bus, t, v));
        }
        TIMESTAMPS
    });
    let low = run("reads_per_timestamp_32bit_only", &|mct, bus, _wrong| {
        let mut gap = gaps();
        for _ in 0..TIMESTAMPS {
            bus.clock().advance(gap());
            std::hint::black_box(mct.frc().read_low());
        }
        TIMESTAMPS
    });
    let ours = run("reads_per_timestamp_time64", &|mct, bus, wrong| {
        // The time base starts in `Mct::new` (one hi-lo-hi read, before the count starts);
        // every view reads the same published time.
        let time = mct.time();
        let mut gap = gaps();
        let mut last = 0;
        for _ in 0..TIMESTAMPS {
            bus.clock().advance(gap());
            let t = bus.clock().now_ns();
            let v = time.now();
            *wrong += u64::from(!check(bus, t, v) || v < last);
            last = v;
        }
        TIMESTAMPS
    });
    OUT.figure("reads_per_timestamp_time64_goal", "1.01", "reads");

    // At carries: every timestamp taken within a few ticks before a low-word carry.
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).expect("model");
    mct.start_frc().expect("model acknowledges");
    let (mut torn, mut reads) = (0u64, 0u64);
    const CARRIES: u64 = 1_000;
    for k in 1..=CARRIES {
        let now = clock.now_ns();
        bus.model(|m| m.set_frc(now, (k << 32) - (k % 5)));
        let t = clock.now_ns();
        torn += u64::from(!check(&bus, t, seed::read64_lo_hi(&mct.frc())));
        let now = clock.now_ns();
        bus.model(|m| m.set_frc(now, (k << 32) - (k % 5)));
        bus.reset_stats();
        let t = clock.now_ns();
        let v = mct.frc().read64();
        reads += bus.stats().reads;
        failures += u64::from(!check(&bus, t, v));
    }
    OUT.figure(
        "reads_per_timestamp_hilohi_at_carry",
        format!("{:.3}", reads as f64 / CARRIES as f64),
        "reads",
    );
    OUT.figure("naive_lo_hi_torn_at_carry", torn, "of_1000");

    // Virtual time per timestamp at 100 ns per MMIO read.
    for (metric, r) in [
        ("virtual_ns_per_timestamp_hilohi", hilohi),
        ("virtual_ns_per_timestamp_cached_upper", cached),
        ("virtual_ns_per_timestamp_32bit_only", low),
        ("virtual_ns_per_timestamp_time64", ours),
    ] {
        OUT.figure(metric, format!("{:.1}", r * 100.0), "ns");
    }

    arm_costs();

    if failures > 0 || ours > 1.01 {
        eprintln!("exynos-mct seed bench: {failures} wrong timestamps, time64 {ours:.4} reads");
        std::process::exit(1);
    }
}

/// MMIO accesses (reads + writes) per arm, the driver's against Linux's sequences
/// (`exynos_mct::sim::linux`) on the same model, averaged over `ARMS` re-arms 1 ms apart
/// (WSTAT acknowledged at once, as on QEMU):
///
/// - `mmio_per_comp_arm`: an `Alarm`'s re-arm of an enabled comparator through
///   `set_compare`, upper word unchanged; `_linux`: `exynos4_comp_set_next_event`;
/// - `mmio_per_local_arm`: a local timer after its event (its `ack` stopped it); `_linux`:
///   `exynos4_tick_set_next_event` after Linux's handler stopped it; `_running` variants
///   re-arm a timer that is still counting.
fn arm_costs() {
    use exynos_mct::sim::linux;
    use hwtimer_core::ClockEvent;
    const ARMS: u64 = 1_000;
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), MctModel::exynos4210().driver_config()).expect("model");
    mct.start_frc().expect("model acknowledges");
    let time = mct.time();
    let per_arm = |f: &mut dyn FnMut()| {
        let mut total = 0;
        for _ in 0..ARMS {
            clock.advance(1_000_000);
            bus.reset_stats();
            f();
            let s = bus.stats();
            total += s.reads + s.writes;
        }
        total as f64 / ARMS as f64
    };
    let mut comp = mct.comparator(0).expect("free");
    comp.set_next_event(0x10000).expect("model");
    let ours = per_arm(&mut || {
        let at = time.now() + 0x10000;
        bus.reset_stats(); // the time read is the Alarm's, not the arm's
        comp.set_compare(at).expect("model");
    });
    let mut l0 = mct.local_timer(0).expect("free");
    let mut local_total = 0;
    let mut running_total = 0;
    for _ in 0..ARMS {
        clock.advance(1_000_000);
        let _ = l0.ack();
        bus.reset_stats();
        l0.set_next_event(0x1000).expect("model"); // stopped by the ack: the common case
        let s = bus.stats();
        local_total += s.reads + s.writes;
        bus.reset_stats();
        l0.set_next_event(0x1000).expect("model"); // still counting
        let s = bus.stats();
        running_total += s.reads + s.writes;
    }
    drop((comp, l0));
    let linux_comp = per_arm(&mut || linux::comp0_set_next_event(&bus, 0x10000));
    let mut linux_local_total = 0;
    let mut linux_running_total = 0;
    for _ in 0..ARMS {
        clock.advance(1_000_000);
        linux::tick_interrupt(&bus, 0);
        bus.reset_stats();
        linux::tick_set_next_event(&bus, 0, 0x1000);
        let s = bus.stats();
        linux_local_total += s.reads + s.writes;
        bus.reset_stats();
        linux::tick_set_next_event(&bus, 0, 0x1000);
        let s = bus.stats();
        linux_running_total += s.reads + s.writes;
    }
    let avg = |total: u64| format!("{:.2}", total as f64 / ARMS as f64);
    OUT.figure("mmio_per_comp_arm", format!("{ours:.2}"), "accesses");
    OUT.figure(
        "mmio_per_comp_arm_linux",
        format!("{linux_comp:.2}"),
        "accesses",
    );
    OUT.figure("mmio_per_local_arm", avg(local_total), "accesses");
    OUT.figure(
        "mmio_per_local_arm_linux",
        avg(linux_local_total),
        "accesses",
    );
    OUT.figure("mmio_per_local_arm_running", avg(running_total), "accesses");
    OUT.figure(
        "mmio_per_local_arm_running_linux",
        avg(linux_running_total),
        "accesses",
    );
}
