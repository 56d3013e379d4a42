//! One test per `ConfigError` cause the Otto driver can return, each asserting the exact
//! variant and that nothing was written.

use hwtimer_core::sim::MmioStats;
use hwtimer_core::{ClockEvent, ConfigError, Error, Mmio};
use otto_timer::clockevent::{MAX_DELTA, MIN_DELTA};
use otto_timer::sim::OttoSim;
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, Soc};

fn cfg() -> Config {
    Config::new(Soc::Rtl838x)
}

fn err(cause: ConfigError) -> Option<Error> {
    Some(cause.into())
}

/// `f`'s error, checking that it wrote nothing.
fn refused<T>(sim: &OttoSim, f: impl FnOnce() -> Result<T, Error>) -> Option<Error> {
    let (r, s) = sim.bus().counted(f);
    assert_eq!(s, MmioStats::default(), "a refused call touched the bus");
    r.err()
}

/// Every constructor refuses each of `bad` configurations with `cause`, writing nothing.
fn every_constructor_refuses(bad: &[Config], cause: ConfigError) {
    let sim = OttoSim::new(Soc::Rtl838x);
    for config in bad {
        let what = format!("{config:?}");
        let c = *config;
        assert_eq!(
            refused(&sim, || OttoTimers::new(sim.bus(), c)),
            err(cause),
            "{what}"
        );
        let ev = refused(&sim, || OttoClockEvent::new(sim.bus(), &c, 0));
        assert_eq!(ev, err(cause), "{what}");
        let cs = refused(&sim, || OttoClocksource::new(sim.bus(), &c, 1));
        assert_eq!(cs, err(cause), "{what}");
    }
}

#[test]
fn zero_frequency() {
    every_constructor_refuses(
        &[cfg().with_tick_hz(0), cfg().with_bus_clock_hz(0)],
        ConfigError::ZeroFrequency,
    );
}

#[test]
fn rate_unreachable() {
    // 200 MHz / 1 kHz needs divisor 200 000 > 0xFFFF; 200 MHz / 3 000 001 Hz is not exact.
    every_constructor_refuses(
        &[cfg().with_tick_hz(1_000), cfg().with_tick_hz(3_000_001)],
        ConfigError::RateUnreachable,
    );
}

type Event = OttoClockEvent<hwtimer_core::sim::SimBus<otto_timer::sim::OttoModel>>;

/// `arm` refuses the values just outside the clockevent's range, far outside it, and those
/// whose low 32 bits alone would be in range, with `cause`, writing nothing; it accepts both
/// ends of the range.
fn out_of_range(arm: fn(&mut Event, u64) -> Result<(), Error>, cause: ConfigError) {
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut ev = OttoClockEvent::new(sim.bus(), &cfg(), 0).unwrap();
    for v in [
        0,
        MIN_DELTA - 1,
        MAX_DELTA + 1,
        u64::MAX,
        (1 << 32) | MIN_DELTA,
        (1 << 32) | MAX_DELTA,
        (u64::from(u32::MAX) << 32) | 3125,
    ] {
        assert_eq!(refused(&sim, || arm(&mut ev, v)), err(cause), "{v:#x}");
    }
    for v in [MIN_DELTA, MAX_DELTA] {
        assert_eq!(arm(&mut ev, v), Ok(()), "{v:#x}");
    }
}

#[test]
fn delta_out_of_range() {
    out_of_range(|ev, d| ev.set_next_event(d), ConfigError::DeltaOutOfRange);
}

#[test]
fn period_out_of_range() {
    out_of_range(|ev, p| ev.set_periodic(p), ConfigError::PeriodOutOfRange);
}

#[test]
fn no_such_timer() {
    // RTL838x has timers 0..=4.
    let sim = OttoSim::new(Soc::Rtl838x);
    assert_eq!(
        refused(&sim, || OttoClocksource::new(sim.bus(), &cfg(), 5)),
        err(ConfigError::NoSuchTimer)
    );
    assert_eq!(
        refused(&sim, || OttoClockEvent::new(sim.bus(), &cfg(), usize::MAX)),
        err(ConfigError::NoSuchTimer)
    );
    let mut t = OttoTimers::new(sim.bus(), cfg()).unwrap();
    assert_eq!(
        refused(&sim, || t.take_clockevent(5)),
        err(ConfigError::NoSuchTimer)
    );
    assert_eq!(
        Soc::Rtl838x.info().irq(5),
        Err(ConfigError::NoSuchTimer.into())
    );
    // RTL931x has a sixth timer.
    assert!(OttoClockEvent::new(sim.bus(), &Config::new(Soc::Rtl931x), 5).is_ok());
}

#[test]
fn timer_count() {
    // One timer more than the CPUs is needed for the clocksource: at most 4 CPUs here.
    let sim = OttoSim::new(Soc::Rtl838x);
    let timers = || OttoTimers::new(sim.bus(), cfg()).unwrap();
    assert_eq!(
        refused(&sim, || timers().per_cpu::<0>()),
        err(ConfigError::TimerCount)
    );
    assert_eq!(
        refused(&sim, || timers().per_cpu::<5>()),
        err(ConfigError::TimerCount)
    );
    assert!(timers().per_cpu::<4>().is_ok());
}

#[test]
fn already_taken() {
    let sim = OttoSim::new(Soc::Rtl838x);
    let mut t = OttoTimers::new(sim.bus(), cfg()).unwrap();
    let _cs = t.take_clocksource(4).unwrap();
    let _ev = t.take_clockevent(0).unwrap();
    assert_eq!(
        refused(&sim, || t.take_clockevent(4)),
        err(ConfigError::AlreadyTaken)
    );
    assert_eq!(
        refused(&sim, || t.take_clocksource(0)),
        err(ConfigError::AlreadyTaken)
    );
    // The layout needs timer 1 (CPU 1) and 2 (the clocksource); 1 is taken: nothing of the
    // layout is taken or written.
    let _ev1 = t.take_clockevent(1).unwrap();
    assert_eq!(
        refused(&sim, || t.per_cpu::<2>()),
        err(ConfigError::AlreadyTaken)
    );
}

#[test]
fn window_too_short() {
    // A window over timers 0 and 1 only: timer 2's registers are outside it.
    let mut ram = [0u32; 8];
    // SAFETY: the window lies inside `ram`, a live, aligned local array nothing else
    // touches while the driver exists (single-threaded test).
    let bus = unsafe { Mmio::<u32>::new(ram.as_mut_ptr() as usize, 0x20) };
    assert_eq!(
        OttoClockEvent::new(&bus, &cfg(), 2).err(),
        err(ConfigError::WindowTooShort)
    );
    assert_eq!(
        OttoClocksource::new(&bus, &cfg(), 2).err(),
        err(ConfigError::WindowTooShort)
    );
    assert!(OttoClockEvent::new(&bus, &cfg(), 1).is_ok());
}
