//! Dead block: every public call of the driver on a block whose reads all return one of
//! hwtimer-core's [`dead_values`] (all zeros: unclocked or held in reset; all ones: an
//! address nothing decodes). Each call must return a typed error or a defined value, within
//! the stated number of register reads counted by the sim bus; none may hang or panic.
//!
//! The Otto driver has no waits at all: every call is straight-line code, so the stated
//! bounds are exact counts (0 reads for everything but `Clocksource::read` and `ack`,
//! which read once).

use hwtimer_core::sim::{Dead, MmioStats, SimBus, SimClock, dead_values};
use hwtimer_core::{ClockEvent, Clocksource, ConfigError, Error};
use otto_timer::regs::COUNTER_MASK;
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, PerCpu, Soc};

/// The one INT read `shutdown` makes with `defmt` on, to log a dropped status.
const LOG_READ: u64 = cfg!(feature = "defmt") as u64;

fn stats(reads: u64, writes: u64) -> MmioStats {
    MmioStats { reads, writes }
}

#[test]
fn every_public_call_on_a_dead_block() {
    for (value, name) in dead_values::<u32>() {
        let ones = value == u32::MAX;
        for soc in Soc::ALL {
            let bus = SimBus::new(&SimClock::new(), Dead(value));
            let config = Config::new(soc);
            let timers = soc.info().timers;
            let what = format!("{soc:?}, reads {name}");

            // Construction and hand-out: no reads.
            let (t, s) = bus.counted(|| OttoTimers::new(bus.clone(), config));
            let mut t = t.unwrap();
            assert_eq!(s.reads, 0, "{what}: OttoTimers::new");
            let (cs, s) = bus.counted(|| t.take_clocksource(timers - 1));
            let cs = cs.unwrap();
            assert_eq!(s, stats(0, 4), "{what}: take_clocksource");
            let (ev, s) = bus.counted(|| t.take_clockevent(0));
            let mut ev = ev.unwrap();
            assert_eq!(s, stats(LOG_READ, 2), "{what}: take_clockevent");
            let (e, s) = bus.counted(|| t.take_clockevent(timers));
            assert_eq!(
                (e.err(), s.reads),
                (Some(ConfigError::NoSuchTimer.into()), 0),
                "{what}"
            );
            let (layout, s) =
                bus.counted(|| OttoTimers::new(bus.clone(), config).and_then(|t| t.per_cpu::<4>()));
            let PerCpu { cpus, clocksource } = layout.unwrap();
            assert_eq!((cpus.len(), clocksource.index()), (4, 4), "{what}");
            assert_eq!(s.reads, 4 * LOG_READ, "{what}: per_cpu");
            drop((cpus, clocksource));

            // The direct constructors: no reads either.
            let (r, s) = bus.counted(|| OttoClocksource::new(bus.clone(), &config, 1).map(drop));
            assert_eq!((r, s.reads), (Ok(()), 0), "{what}: OttoClocksource::new");
            let (r, s) = bus.counted(|| OttoClockEvent::new(bus.clone(), &config, 1).map(drop));
            assert_eq!(
                (r, s.reads),
                (Ok(()), LOG_READ),
                "{what}: OttoClockEvent::new"
            );
            let (r, s) = bus.counted(|| OttoClockEvent::new(bus.clone(), &config, 99).map(drop));
            assert_eq!((r, s), (Err(ConfigError::NoSuchTimer.into()), stats(0, 0)));

            // Clocksource: one read, masked to 28 bits.
            let (v, s) = bus.counted(|| cs.read());
            assert_eq!(v, if ones { u64::from(COUNTER_MASK) } else { 0 }, "{what}");
            assert_eq!(s, stats(1, 0), "{what}");
            let (_, s) = bus.counted(|| (cs.bits(), cs.freq_hz(), cs.index(), cs.divisor()));
            assert_eq!(s.reads, 0, "{what}");

            // Clockevent: arming and shutdown write only; ack reads once.
            let (caps, s) = bus.counted(|| ev.capabilities());
            assert!(caps.is_valid());
            assert_eq!(s.reads, 0, "{what}");
            let (r, s) = bus.counted(|| ev.set_next_event(100));
            assert_eq!((r, s.reads), (Ok(()), 0), "{what}: set_next_event");
            let (r, s) = bus.counted(|| ev.set_next_event(0));
            assert_eq!(
                (r, s),
                (Err(ConfigError::DeltaOutOfRange.into()), stats(0, 0))
            );
            let (r, s) = bus.counted(|| ev.set_periodic(31_250));
            assert_eq!((r, s.reads), (Ok(()), 0), "{what}: set_periodic");
            let (r, s) = bus.counted(|| ev.set_compare(5));
            assert_eq!((r, s), (Err(Error::Unsupported), stats(0, 0)), "{what}");
            // All ones has IP set: ack reports it (and writes the W1C clear); all zeros is
            // spurious. Either way exactly one read, and the same answer every time.
            for _ in 0..3 {
                let (fired, s) = bus.counted(|| ev.ack());
                assert_eq!(fired, ones, "{what}: ack");
                assert_eq!(s, stats(1, u64::from(ones)), "{what}: ack");
            }
            let (_, s) = bus.counted(|| ev.shutdown());
            assert_eq!(s, stats(LOG_READ, 2), "{what}: shutdown");
            let (_, s) = bus.counted(|| (ev.index(), ev.divisor()));
            assert_eq!(s.reads, 0, "{what}");
            let (_, s) = bus.counted(|| ev.release());
            assert_eq!(s, stats(0, 2), "{what}: release");
            let (_, s) = bus.counted(|| cs.release());
            assert_eq!(s, stats(0, 2), "{what}: release");
        }
    }
}
