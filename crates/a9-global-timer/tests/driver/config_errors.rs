//! One test per `ConfigError` cause the global-timer driver can return, each asserting the
//! exact variant and that nothing was written.

use a9_global_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use a9_global_timer::compare::retarget;
use a9_global_timer::sim::{GtModel, GtSim, ModelRule};
use a9_global_timer::{CompareRule, Config, GlobalTimer, regs};
use hwtimer_core::sim::SimBus;
use hwtimer_core::{ClockEvent, ConfigError, Error, Mmio};

fn err(cause: ConfigError) -> Option<Error> {
    Some(cause.into())
}

/// `f`'s error, checking that it wrote nothing.
fn refused<T>(sim: &GtSim, f: impl FnOnce() -> Result<T, Error>) -> Option<Error> {
    let (r, s) = sim.bus().counted(f);
    assert_eq!(s.writes, 0, "a refused call wrote");
    r.err()
}

fn started(sim: &GtSim, config: Config) -> GlobalTimer<SimBus<GtModel>> {
    let gt = GlobalTimer::new(sim.bus(), config).unwrap();
    gt.start().unwrap();
    gt
}

#[test]
fn zero_frequency() {
    assert_eq!(
        Config::new(0).tick_hz().err(),
        err(ConfigError::ZeroFrequency)
    );
    let sim = GtSim::qemu();
    assert_eq!(
        refused(&sim, || GlobalTimer::new(sim.bus(), Config::new(0))),
        err(ConfigError::ZeroFrequency)
    );
}

#[test]
fn rate_unreachable() {
    // 100 Hz / 3 is not a whole rate.
    let bad = Config::new(100).with_prescaler(2);
    assert_eq!(bad.tick_hz().err(), err(ConfigError::RateUnreachable));
    let sim = GtSim::qemu();
    assert_eq!(
        refused(&sim, || GlobalTimer::new(sim.bus(), bad)),
        err(ConfigError::RateUnreachable)
    );
}

#[test]
fn window_too_short() {
    // The driver takes its block from the bus once: a window that does not cover the whole
    // block (`WINDOW_LEN` bytes) is refused at `new` instead of reading all ones from the
    // missing registers later; one that does is driven through the claimed block.
    let mut ram = [0u32; 8];
    let base = ram.as_mut_ptr() as usize;
    for len in [0, 4, 0x10, 0x1C] {
        // SAFETY: the window lies inside `ram`, a live, aligned local array nothing else
        // touches while the driver exists (single-threaded test).
        let bus = unsafe { Mmio::<u32>::new(base, len) };
        assert_eq!(
            GlobalTimer::new(bus, Config::qemu()).err(),
            err(ConfigError::WindowTooShort),
            "window of {len:#x} bytes"
        );
    }
    // SAFETY: as above, the whole array.
    let bus = unsafe { Mmio::<u32>::new(base, regs::WINDOW_LEN) };
    let gt = GlobalTimer::new(bus, Config::qemu()).unwrap();
    gt.start().unwrap();
    let _ = gt.release();
    assert_eq!(
        ram[2], 1,
        "GT_CONTROL: TIMER_ENABLE written through the block"
    );
}

#[test]
fn conflicts_with_running() {
    // Another core started the counter at prescaler 1; this one asks for 0.
    let sim = GtSim::qemu();
    let _first = started(&sim, Config::qemu().with_prescaler(1));
    assert_eq!(
        refused(&sim, || GlobalTimer::new(sim.bus(), Config::qemu())),
        err(ConfigError::ConflictsWithRunning)
    );
}

#[test]
fn counter_running() {
    let sim = GtSim::qemu();
    let mut gt = started(&sim, Config::qemu());
    assert_eq!(
        refused(&sim, || gt.load(5)),
        err(ConfigError::CounterRunning)
    );
    gt.stop();
    assert_eq!(gt.load(5), Ok(()));
}

#[test]
fn already_taken() {
    let sim = GtSim::qemu();
    let gt = started(&sim, Config::qemu());
    let _cmp = gt.comparator().unwrap();
    assert_eq!(
        refused(&sim, || gt.comparator()),
        err(ConfigError::AlreadyTaken)
    );
}

type Comparator<'a> = a9_global_timer::GtComparator<'a, SimBus<GtModel>>;

/// `arm` refuses the values just outside the comparator's range, and far outside it, with
/// `cause`, writing nothing.
fn out_of_range(arm: fn(&mut Comparator<'_>, u64) -> Result<(), Error>, cause: ConfigError) {
    let sim = GtSim::qemu();
    let gt = started(&sim, Config::qemu());
    let mut cmp = gt.comparator().unwrap();
    for v in [MIN_DELTA - 1, MAX_DELTA + 1, u64::MAX] {
        assert_eq!(refused(&sim, || arm(&mut cmp, v)), err(cause), "{v}");
    }
}

#[test]
fn delta_out_of_range() {
    out_of_range(|c, d| c.set_next_event(d), ConfigError::DeltaOutOfRange);
}

#[test]
fn period_out_of_range() {
    out_of_range(|c, p| c.set_periodic(p), ConfigError::PeriodOutOfRange);
}

#[test]
fn deadline_overflow() {
    // Near the top of the 64-bit counter (after a load): `now + delta` would pass 2^64.
    let sim = GtSim::with_model(GtModel::qemu().with_counter(u64::MAX - 1_000), 100, 50);
    let gt = started(&sim, Config::qemu());
    let mut cmp = gt.comparator().unwrap();
    assert_eq!(
        refused(&sim, || cmp.set_next_event(2_000)),
        err(ConfigError::DeadlineOverflow)
    );
    assert_eq!(
        refused(&sim, || cmp.set_periodic(2_000)),
        err(ConfigError::DeadlineOverflow)
    );
    // Under the equality rule a value already passed is re-targeted ahead, which cannot
    // be done at the top of the counter (held there: not started).
    let sim = GtSim::with_model(
        GtModel::new(100_000_000, ModelRule::Equal).with_counter(u64::MAX - 5),
        100,
        50,
    );
    let gt = GlobalTimer::new(sim.bus(), Config::qemu().with_compare(CompareRule::Equal));
    let gt = gt.unwrap();
    let mut cmp = gt.comparator().unwrap();
    assert_eq!(
        refused(&sim, || cmp.set_compare(0)),
        err(ConfigError::DeadlineOverflow)
    );
    assert_eq!(
        retarget(0, u64::MAX).err(),
        err(ConfigError::DeadlineOverflow)
    );
}
