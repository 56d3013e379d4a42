//! Dead block: every public call of the driver on a bus whose reads all return 0, and on
//! one whose reads all return 0xFFFF_FFFF (a block that is absent, unclocked or held in
//! reset). Each call must return a typed error or a defined value, within the stated
//! number of register reads, counted with the sim bus counters; none may hang or panic.
//!
//! The Otto driver has no waits at all: every call is straight-line code, so the stated
//! bounds are exact counts (0 reads for everything but `Clocksource::read` and `ack`,
//! which read once).

use hwtimer_core::sim::model::RegisterFile;
use hwtimer_core::sim::{MmioStats, SimBus, SimClock};
use hwtimer_core::{ClockEvent, Clocksource, Error};
use otto_timer::soc::MAX_TIMERS;
use otto_timer::{Config, OttoClockEvent, OttoClocksource, OttoTimers, Soc};

const BLOCK_LEN: usize = MAX_TIMERS * 0x10;

/// A timer block whose every register reads `value`, whatever is written.
fn dead_bus(value: u32) -> SimBus<RegisterFile> {
    let mut regs = RegisterFile::new(BLOCK_LEN);
    for offset in (0..BLOCK_LEN).step_by(4) {
        regs.stick(offset, u32::MAX, value);
    }
    SimBus::new(&SimClock::new(), regs)
}

/// Run `f` and return its result with the accesses it made.
fn counted<R>(bus: &SimBus<RegisterFile>, f: impl FnOnce() -> R) -> (R, MmioStats) {
    bus.reset_stats();
    let r = f();
    (r, bus.stats())
}

/// What one dead value does to every public call; `ones` says which of the two it is.
fn every_public_call(value: u32) {
    let ones = value == u32::MAX;
    for soc in Soc::ALL {
        let bus = dead_bus(value);
        let config = Config::new(soc);
        let timers = soc.info().timers;

        // Construction and hand-out: no reads.
        let (t, s) = counted(&bus, || OttoTimers::new(bus.clone(), config));
        let mut t = t.unwrap();
        assert_eq!(s.reads, 0, "{soc:?} OttoTimers::new");
        let (cs, s) = counted(&bus, || t.take_clocksource(timers - 1));
        let cs = cs.unwrap();
        assert_eq!(
            s,
            MmioStats {
                reads: 0,
                writes: 4
            },
            "{soc:?} take_clocksource"
        );
        let (ev, s) = counted(&bus, || t.take_clockevent(0));
        let mut ev = ev.unwrap();
        assert_eq!(
            s,
            MmioStats {
                reads: 0,
                writes: 2
            },
            "{soc:?} take_clockevent"
        );
        let (e, s) = counted(&bus, || t.take_clockevent(timers));
        assert_eq!((e.err(), s.reads), (Some(Error::InvalidConfig), 0));
        let (layout, s) = counted(&bus, || {
            OttoTimers::new(bus.clone(), config).and_then(|t| t.per_cpu(timers - 1))
        });
        assert_eq!(layout.unwrap().cpus.len(), timers - 1);
        assert_eq!(s.reads, 0, "{soc:?} per_cpu");

        // The direct constructors: no reads either.
        let (r, s) = counted(&bus, || {
            OttoClocksource::new(bus.clone(), &config, 1).map(|_| ())
        });
        assert_eq!((r, s.reads), (Ok(()), 0), "{soc:?} OttoClocksource::new");
        let (r, s) = counted(&bus, || {
            OttoClockEvent::new(bus.clone(), &config, 1).map(|_| ())
        });
        assert_eq!((r, s.reads), (Ok(()), 0), "{soc:?} OttoClockEvent::new");
        let (r, s) = counted(&bus, || {
            OttoClockEvent::new(bus.clone(), &config, 99).map(|_| ())
        });
        assert_eq!((r, s), (Err(Error::InvalidConfig), MmioStats::default()));

        // Clocksource: one read, masked to 28 bits.
        let (v, s) = counted(&bus, || cs.read());
        assert_eq!(v, if ones { 0x0FFF_FFFF } else { 0 }, "{soc:?}");
        assert_eq!(
            s,
            MmioStats {
                reads: 1,
                writes: 0
            }
        );
        let (_, s) = counted(&bus, || (cs.bits(), cs.freq_hz(), cs.index(), cs.divisor()));
        assert_eq!(s.reads, 0);

        // Clockevent: arming and shutdown write only; ack reads once.
        let (caps, s) = counted(&bus, || ev.capabilities());
        assert!(caps.is_valid());
        assert_eq!(s.reads, 0);
        let (r, s) = counted(&bus, || ev.set_next_event(100));
        assert_eq!((r, s.reads), (Ok(()), 0), "{soc:?} set_next_event");
        let (r, s) = counted(&bus, || ev.set_next_event(7));
        assert_eq!((r, s), (Err(Error::InvalidConfig), MmioStats::default()));
        let (r, s) = counted(&bus, || ev.set_periodic(31_250));
        assert_eq!((r, s.reads), (Ok(()), 0), "{soc:?} set_periodic");
        let (r, s) = counted(&bus, || ev.set_next_event_unsafe_naive(100));
        assert_eq!((r, s.reads), (Ok(()), 0));
        let (_, s) = counted(&bus, || ev.set_compare(5));
        assert_eq!(
            s,
            MmioStats::default(),
            "set_compare is unsupported, writes nothing"
        );
        // All ones has IP set: ack reports it (and writes the W1C clear); all zeros is
        // spurious. Either way exactly one read, and the same answer every time.
        for _ in 0..3 {
            let (fired, s) = counted(&bus, || ev.ack());
            assert_eq!(fired, ones, "{soc:?} ack");
            assert_eq!(
                s,
                MmioStats {
                    reads: 1,
                    writes: u64::from(ones)
                }
            );
        }
        let (_, s) = counted(&bus, || ev.shutdown());
        assert_eq!(
            s,
            MmioStats {
                reads: 0,
                writes: 2
            },
            "{soc:?} shutdown"
        );
        let (_, s) = counted(&bus, || (ev.index(), ev.divisor()));
        assert_eq!(s.reads, 0);
        let (_, s) = counted(&bus, || ev.release());
        assert_eq!(s.reads, 0, "{soc:?} release");
        let (_, s) = counted(&bus, || cs.release());
        assert_eq!(s.reads, 0);
    }
}

#[test]
fn dead_block_reading_all_zeros() {
    every_public_call(0);
}

#[test]
fn dead_block_reading_all_ones() {
    every_public_call(u32::MAX);
}
