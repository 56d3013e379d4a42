//! Dead block: every public call of the driver on a core whose reads (CSRs, `cpucfg`,
//! `rdtime.d`) all return 0, and on one whose reads all return all ones. Each call must
//! return a typed error or a defined value within the stated number of reads, counted with
//! the sim bus counters; none may hang or panic.
//!
//! The driver has no waits: every call is straight-line, so the stated bounds are exact
//! counts (at most 3 reads: `ConstantClock::probe`).

use hwtimer_core::sim::{MmioStats, SimClock};
use hwtimer_core::{ClockEvent, Clocksource, Error, Monotonic};
use loongarch_timer::clockevent::LINUX_MAX_DELTA;
use loongarch_timer::cpucfg::FreqError;
use loongarch_timer::sim::{LoongArchCore, SimCsr, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

fn dead_core(value: u64) -> SimCsr {
    sim_csr(
        &SimClock::new(),
        LoongArchCore::qemu_virt().with_reads_stuck_at(value),
    )
}

fn counted<R>(csr: &SimCsr, f: impl FnOnce() -> R) -> (R, MmioStats) {
    csr.reset_stats();
    let r = f();
    (r, csr.stats())
}

fn stats(reads: u64, writes: u64) -> MmioStats {
    MmioStats { reads, writes }
}

fn every_public_call(value: u64) {
    let ones = value == u64::MAX;
    let csr = dead_core(value);

    // Frequency discovery: three cpucfg reads. All zeros says "no constant timer"; all
    // ones describes 0xFFFF_FFFF Hz × 0xFFFF / 0xFFFF, a valid (if absurd) clock.
    let (probe, s) = counted(&csr, || ConstantClock::probe(&csr));
    assert_eq!(s, stats(3, 0), "probe");
    if ones {
        assert_eq!(probe.map(|c| c.freq_hz()), Ok(u32::MAX));
    } else {
        assert_eq!(probe, Err(FreqError::NoConstantTimer));
        assert_eq!(Error::from(FreqError::NoConstantTimer), Error::Unsupported);
    }
    let clock = ConstantClock::from_words(1 << 14, 100_000_000, 0x0001_0001).unwrap();

    // Stable counter: one rdtime.d per read, the value as read (it cannot go backwards:
    // it never changes).
    let (counter, s) = counted(&csr, || StableCounter::new(csr.clone(), clock));
    assert_eq!(s, MmioStats::default(), "StableCounter::new");
    for _ in 0..2 {
        let (v, s) = counted(&csr, || (counter.read(), counter.now()));
        assert_eq!(v, (value, value));
        assert_eq!(s, stats(2, 0), "read + now");
    }
    let (_, s) = counted(&csr, || (counter.bits(), Clocksource::freq_hz(&counter)));
    assert_eq!(s, MmioStats::default());

    // Constant timer.
    let (timer, s) = counted(&csr, || {
        ConstantTimer::new(csr.clone(), clock, Config::default())
    });
    let mut timer = timer.unwrap();
    assert_eq!(s, MmioStats::default(), "ConstantTimer::new");
    let (caps, s) = counted(&csr, || timer.capabilities());
    assert!(caps.is_valid());
    assert_eq!(s, MmioStats::default());
    let (r, s) = counted(&csr, || timer.set_next_event(1000));
    assert_eq!((r, s), (Ok(()), stats(0, 1)), "set_next_event");
    let (r, s) = counted(&csr, || timer.set_next_event(1));
    assert_eq!((r, s), (Err(Error::InvalidConfig), MmioStats::default()));
    let (r, s) = counted(&csr, || timer.set_periodic(10_000));
    assert_eq!((r, s), (Ok(()), stats(0, 1)), "set_periodic");
    let (r, s) = counted(&csr, || timer.set_compare(5));
    assert_eq!((r, s), (Err(Error::Unsupported), MmioStats::default()));
    // All ones has TI set: ack reports it and clears it through TICLR, every time (the
    // dead core never clears); all zeros is spurious. One read either way.
    for _ in 0..3 {
        let (fired, s) = counted(&csr, || timer.ack());
        assert_eq!((fired, s), (ones, stats(1, u64::from(ones))), "ack");
        let (pending, s) = counted(&csr, || timer.is_pending());
        assert_eq!((pending, s), (ones, stats(1, 0)), "is_pending");
    }
    // remaining: TCFG read; TVAL read only when EN reads set, masked to 48 bits.
    let (left, s) = counted(&csr, || timer.remaining());
    if ones {
        assert_eq!((left, s), (Some(LINUX_MAX_DELTA), stats(2, 0)));
    } else {
        assert_eq!((left, s), (None, stats(1, 0)));
    }
    let (_, s) = counted(&csr, || timer.enable_interrupt());
    assert_eq!(s, stats(1, 1), "enable_interrupt");
    let (_, s) = counted(&csr, || timer.disable_interrupt());
    assert_eq!(s, stats(1, 1), "disable_interrupt");
    let (_, s) = counted(&csr, || timer.shutdown());
    assert_eq!(s, stats(0, 2), "shutdown");
    let (_, s) = counted(&csr, || (*timer.config(), timer.csr().stats()));
    assert_eq!(s, MmioStats::default());
    let (_, s) = counted(&csr, || (timer.into_inner(), counter.into_inner()));
    assert_eq!(s, MmioStats::default());
}

#[test]
fn dead_core_reading_all_zeros() {
    every_public_call(0);
}

#[test]
fn dead_core_reading_all_ones() {
    every_public_call(u64::MAX);
}
