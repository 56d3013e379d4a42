//! Dead block: every public call of the driver on a core whose reads (CSRs, `cpucfg`,
//! `rdtime.d`) all return 0, and on one whose reads all return all ones. Each call must
//! return a typed error or a defined value within the stated number of reads, counted with
//! the sim bus counters; none may hang or panic.
//!
//! The driver has no waits: every call is straight-line, so the stated bounds are exact
//! counts (at most 3 reads: `ConstantClock::probe`).

use hwtimer_core::sim::{MmioStats, SimClock, dead_values};
use hwtimer_core::{ClockEvent, Clocksource, ConfigError, Error, Monotonic};
use loongarch_timer::clockevent::LINUX_MAX_DELTA;
use loongarch_timer::cpucfg::FreqError;
use loongarch_timer::sim::{LoongArchCore, SimCsr, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

/// A QEMU virt core whose every read (CSR, `cpucfg`, `rdtime.d`) returns `value`; writes
/// still reach the model.
fn dead_core(value: u64) -> SimCsr {
    let csr = sim_csr(&SimClock::new(), LoongArchCore::qemu_virt());
    csr.go_dead(Some(value));
    csr
}

fn stats(reads: u64, writes: u64) -> MmioStats {
    MmioStats { reads, writes }
}

fn every_public_call(value: u64) {
    let ones = value == u64::MAX;
    let csr = dead_core(value);

    // Frequency discovery: three cpucfg reads. All zeros says "no constant timer"; all
    // ones describes 0xFFFF_FFFF Hz × 0xFFFF / 0xFFFF, a valid (if absurd) clock.
    let (probe, s) = csr.counted(|| ConstantClock::probe(&csr));
    assert_eq!(s, stats(3, 0), "probe");
    if ones {
        assert_eq!(probe.map(|c| c.freq_hz()), Ok(u32::MAX));
    } else {
        assert_eq!(probe, Err(FreqError::NoConstantTimer));
    }
    let clock = ConstantClock::from_words(1 << 14, 100_000_000, 0x0001_0001).unwrap();

    // Stable counter: one rdtime.d per read, the value as read (it cannot go backwards:
    // it never changes).
    let (counter, s) = csr.counted(|| StableCounter::new(csr.clone(), clock));
    assert_eq!(s, MmioStats::default(), "StableCounter::new");
    for _ in 0..2 {
        let (v, s) = csr.counted(|| (counter.read(), counter.now()));
        assert_eq!(v, (value, value));
        assert_eq!(s, stats(2, 0), "read + now");
    }
    let (_, s) = csr.counted(|| (counter.bits(), Clocksource::freq_hz(&counter)));
    assert_eq!(s, MmioStats::default());

    // Constant timer.
    let (timer, s) = csr.counted(|| ConstantTimer::new(csr.clone(), clock, Config::default()));
    let mut timer = timer.unwrap();
    assert_eq!(s, MmioStats::default(), "ConstantTimer::new");
    let (caps, s) = csr.counted(|| timer.capabilities());
    assert!(caps.is_valid());
    assert_eq!(s, MmioStats::default());
    let (r, s) = csr.counted(|| timer.set_next_event(1000));
    assert_eq!((r, s), (Ok(()), stats(0, 1)), "set_next_event");
    let (r, s) = csr.counted(|| timer.set_next_event(1));
    let out_of_range = Err(Error::Config(ConfigError::DeltaOutOfRange));
    assert_eq!((r, s), (out_of_range, MmioStats::default()));
    let (r, s) = csr.counted(|| timer.set_periodic(10_000));
    assert_eq!((r, s), (Ok(()), stats(0, 1)), "set_periodic");
    let (r, s) = csr.counted(|| timer.set_compare(5));
    assert_eq!((r, s), (Err(Error::Unsupported), MmioStats::default()));
    // All ones has TI set: ack reports it and clears it through TICLR, every time (the
    // dead core never clears); all zeros is spurious. One read either way.
    for _ in 0..3 {
        let (fired, s) = csr.counted(|| timer.ack());
        assert_eq!((fired, s), (ones, stats(1, u64::from(ones))), "ack");
        let (pending, s) = csr.counted(|| timer.is_pending());
        assert_eq!((pending, s), (ones, stats(1, 0)), "is_pending");
    }
    // remaining: TCFG read; TVAL read only when EN reads set, masked to 48 bits.
    let (left, s) = csr.counted(|| timer.remaining());
    if ones {
        assert_eq!((left, s), (Some(LINUX_MAX_DELTA), stats(2, 0)));
    } else {
        assert_eq!((left, s), (None, stats(1, 0)));
    }
    let (_, s) = csr.counted(|| timer.enable_interrupt());
    assert_eq!(s, stats(1, 1), "enable_interrupt");
    let (_, s) = csr.counted(|| timer.disable_interrupt());
    assert_eq!(s, stats(1, 1), "disable_interrupt");
    // With `defmt` on, shutdown reads ESTAT once to log a dropped TI.
    let (_, s) = csr.counted(|| timer.shutdown());
    assert_eq!(s, stats(u64::from(cfg!(feature = "defmt")), 2), "shutdown");
    let (_, s) = csr.counted(|| (*timer.config(), timer.csr().stats()));
    assert_eq!(s, MmioStats::default());
    let (_, s) = csr.counted(|| (timer.into_inner(), counter.into_inner()));
    assert_eq!(s, MmioStats::default());
    // Dropping a timer: the two writes of shutdown, no read.
    let timer = ConstantTimer::new(csr.clone(), clock, Config::default()).unwrap();
    let (_, s) = csr.counted(|| drop(timer));
    assert_eq!(s, stats(0, 2), "drop");
}

#[test]
fn every_public_call_on_a_dead_core() {
    for (value, name) in dead_values::<u64>() {
        eprintln!("dead core reading {name}");
        every_public_call(value);
    }
}
