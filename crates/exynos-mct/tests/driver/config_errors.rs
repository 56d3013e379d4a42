//! One test per configuration error the driver returns: each asserts the exact
//! [`ConfigError`] that names the wrong setting, and that nothing was written.

use exynos_mct::clockevent::{COMP_MAX_DELTA, LOCAL_MAX_DELTA, MIN_DELTA};
use exynos_mct::sim::MctModel;
use exynos_mct::{Config, Mct, regs};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{ClockEvent, ConfigError, Error, Mmio, RegisterBus};

fn block() -> (SimBus<MctModel>, Mct<SimBus<MctModel>>) {
    let bus = SimBus::new(&SimClock::new(), MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    (bus, mct)
}

fn cause(e: Error) -> ConfigError {
    match e {
        Error::Config(c) => c,
        other => panic!("not a configuration error: {other:?}"),
    }
}

/// The words of an `Mmio` window over RAM, read through the bus.
fn ram_snapshot(mmio: &Mmio<u32>) -> Vec<u32> {
    (0..mmio.len())
        .step_by(4)
        .map(|o| mmio.read_word(o))
        .collect()
}

#[test]
fn a_zero_input_clock_is_zero_frequency() {
    let bus = SimBus::new(&SimClock::new(), MctModel::exynos4210());
    let config = Config {
        input_hz: 0,
        ..Config::default()
    };
    let (r, stats) = bus.counted(|| Mct::new(bus.clone(), config).err());
    assert_eq!(r.map(cause), Some(ConfigError::ZeroFrequency));
    assert_eq!((stats.reads, stats.writes), (0, 0));
}

#[test]
fn more_than_sixteen_local_timers_is_timer_count() {
    let bus = SimBus::new(&SimClock::new(), MctModel::exynos4210());
    let config = Config {
        local_timers: regs::MAX_LOCAL_TIMERS + 1,
        ..Config::default()
    };
    let (r, stats) = bus.counted(|| Mct::new(bus.clone(), config).err());
    assert_eq!(r.map(cause), Some(ConfigError::TimerCount));
    assert_eq!((stats.reads, stats.writes), (0, 0));
    let sixteen = Config {
        local_timers: regs::MAX_LOCAL_TIMERS,
        ..Config::default()
    };
    assert!(Mct::new(bus.clone(), sixteen).is_ok());
}

/// An `MCT_CFG` that does not divide the input clock exactly is refused at `new` (a rate
/// rounded down makes every conversion come out early; 24 MHz / 7 was once taken as
/// 3 428 571 Hz), and by the setter, which then writes nothing.
#[test]
fn a_rate_the_prescaler_cannot_give_exactly_is_rate_unreachable() {
    let bus = SimBus::new(&SimClock::new(), MctModel::exynos4210());
    bus.write_word(0x000, 6); // prescaler 6: divide by 7
    let (r, stats) = bus.counted(|| Mct::new(bus.clone(), Config::default()).err());
    assert_eq!(r.map(cause), Some(ConfigError::RateUnreachable));
    assert_eq!((stats.reads, stats.writes), (1, 0), "only MCT_CFG is read");

    bus.write_word(0x000, 0x0102); // prescaler 2, divider 1: divide by 6
    let mut mct = Mct::new(bus.clone(), Config::default()).unwrap();
    assert_eq!(mct.freq_hz(), 4_000_000);
    for (prescaler, divider) in [(6, 0), (0, 8)] {
        let (r, stats) = bus.counted(|| mct.set_prescaler(prescaler, divider));
        assert_eq!(r.map_err(cause), Err(ConfigError::RateUnreachable));
        assert_eq!(stats.writes, 0, "a refused setting wrote");
    }
    assert_eq!(mct.freq_hz(), 4_000_000);
    assert_eq!(mct.set_prescaler(23, 0), Ok(1_000_000));
    assert_eq!(bus.model(|m| m.frc_hz()), 1_000_000);
    mct.start_frc().unwrap();
    assert_eq!(mct.comparator(0).unwrap().capabilities().freq_hz, 1_000_000);
    assert_eq!(mct.local_timer(0).unwrap().capabilities().freq_hz, 500_000);
}

#[test]
fn an_index_the_block_does_not_have_is_no_such_timer() {
    let (bus, mct) = block();
    let (r, stats) = bus.counted(|| mct.comparator(regs::NUM_COMPARATORS).err());
    assert_eq!(r.map(cause), Some(ConfigError::NoSuchTimer));
    assert_eq!(stats.writes, 0);
    // Exynos4210 has two local timers; the register map has room for 16.
    for i in [2, regs::MAX_LOCAL_TIMERS, usize::MAX] {
        let (r, stats) = bus.counted(|| mct.local_timer(i).err());
        assert_eq!(r.map(cause), Some(ConfigError::NoSuchTimer), "L{i}");
        assert_eq!(stats.writes, 0);
    }
}

#[test]
fn a_channel_handed_out_twice_is_already_taken() {
    let (bus, mct) = block();
    let comp = mct.comparator(0).unwrap();
    let local = mct.local_timer(1).unwrap();
    let (r, stats) = bus.counted(|| (mct.comparator(0).err(), mct.local_timer(1).err()));
    assert_eq!(
        (r.0.map(cause), r.1.map(cause)),
        (
            Some(ConfigError::AlreadyTaken),
            Some(ConfigError::AlreadyTaken)
        )
    );
    assert_eq!(stats.writes, 0);
    drop((comp, local));
    assert!(mct.comparator(0).is_ok() && mct.local_timer(1).is_ok());
}

/// The driver takes its global registers once, checked against the window (hwtimer-core's
/// `Claim`); a local timer takes its own. RAM stands in for the block.
#[test]
fn registers_outside_the_window_are_window_too_short() {
    let mut ram = [0u32; 0x40]; // 0x100 bytes: G_CNT_L at 0x100 is already outside
    // SAFETY: the window covers `ram`, a live, aligned local array nothing else touches
    // while `mmio` exists.
    let mmio = unsafe { Mmio::<u32>::new(ram.as_mut_ptr() as usize, 0x100) };
    assert_eq!(
        Mct::new(&mmio, Config::default()).err().map(cause),
        Some(ConfigError::WindowTooShort)
    );
    let _ = mmio;
    assert!(ram.iter().all(|&w| w == 0), "nothing was written");

    let mut ram = [0u32; 0x480 / 4]; // local timer 0 (0x300..0x400) inside, 1 (0x400..0x500) not
    // SAFETY: as above, for `ram`, `mmio` and the driver.
    let mmio = unsafe { Mmio::<u32>::new(ram.as_mut_ptr() as usize, 0x480) };
    let mct = Mct::new(&mmio, Config::default()).unwrap();
    let before = ram_snapshot(&mmio);
    // Twice the same cause: the refused timer was handed back (not "already taken").
    for _ in 0..2 {
        assert_eq!(
            mct.local_timer(1).err().map(cause),
            Some(ConfigError::WindowTooShort)
        );
    }
    assert_eq!(ram_snapshot(&mmio), before, "nothing was written");
}

/// Every delta (or period) outside `[MIN_DELTA, max]` given to `arm` on a comparator and a
/// local timer is refused with `cause`, with nothing written.
fn refused_outside_the_range(
    cause_wanted: ConfigError,
    arm: fn(&mut dyn ClockEvent, u64) -> Result<(), Error>,
) {
    let (bus, mct) = block();
    let mut comp = mct.comparator(0).unwrap();
    let mut local = mct.local_timer(0).unwrap();
    let channels: [(&mut dyn ClockEvent, u64); 2] =
        [(&mut comp, COMP_MAX_DELTA), (&mut local, LOCAL_MAX_DELTA)];
    for (ch, max) in channels {
        for d in [0, MIN_DELTA - 1, max + 1, u64::MAX] {
            let (r, stats) = bus.counted(|| arm(&mut *ch, d));
            assert_eq!(r.map_err(cause), Err(cause_wanted), "{d} (max {max:#x})");
            assert_eq!(stats.writes, 0);
        }
    }
}

#[test]
fn a_delta_outside_min_and_max_is_delta_out_of_range() {
    refused_outside_the_range(ConfigError::DeltaOutOfRange, |ch, d| ch.set_next_event(d));
}

#[test]
fn a_period_outside_min_and_max_is_period_out_of_range() {
    refused_outside_the_range(ConfigError::PeriodOutOfRange, |ch, d| ch.set_periodic(d));
}
