//! Corner cases of slow programming and torn reads, each on the model: a periodic comparator
//! whose first value passes during a slow programming, `set_compare` after the time base
//! went unread for more than a wrap, the torn-pair fallback of the hi-lo-hi reads, and
//! local timers at the rate `MCT_CFG` sets.

use exynos_mct::clockevent::MIN_DELTA;
use exynos_mct::regs;
use exynos_mct::sim::seed::{self, UpperCache};
use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Mct};
use hwtimer_core::sim::{SimBus, SimClock, SimModel};
use hwtimer_core::{ClockEvent, Monotonic};

fn setup(model: MctModel) -> (SimClock, SimBus<MctModel>) {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, model);
    (clock, bus)
}

/// Programming takes longer than the period (each buffered write acknowledged 2 µs later,
/// about 48 FRC ticks): the count passes `now + period` before the comparator is enabled.
/// The comparator must still fire, and keep firing. (Before: `set_periodic` programmed the
/// first value blind; it had passed when the enable landed, the equality comparator never
/// matched, `AUTO_INC` never advanced, and the periodic event was dead from the start.)
#[test]
fn periodic_comparator_survives_a_first_value_passed_during_programming() {
    let (clock, bus) = setup(MctModel::exynos4210().with_wstat(WstatMode::Delay(2_000)));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    let period = 2 * MIN_DELTA; // 1.25 µs at 24 MHz: shorter than the programming
    comp.set_periodic(period).unwrap();
    let t0 = clock.now_ns();
    clock.advance(1_000_000); // 1 ms: hundreds of periods
    let _ = mct.frc().read_low(); // a bus access: the model settles its matches
    let matches = bus.model(|m| m.comparator_matches(0));
    assert!(
        matches > 100,
        "periodic comparator dead: {matches} matches in 1 ms after arming at {t0} ns"
    );
    assert!(comp.ack());
    // And it keeps going after the ack.
    clock.advance(100_000);
    assert!(comp.ack(), "no match after the ack");
}

/// The time base was last read, then 200 s (more than a 32-bit wrap) passed unread, and a
/// deadline a while after the stale published time is given to `set_compare`: that value
/// is long past on the counter, so the comparator must be re-armed ahead of the count and
/// fire. (Before: the check after enabling extended the low word from the stale published
/// time, took the passed value for one ahead, and the equality comparator never fired.)
#[test]
fn set_compare_catches_a_value_passed_while_the_time_base_was_unread_for_a_wrap() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let last = time.now();
    let mut comp = mct.comparator(0).unwrap();
    clock.advance(200_000_000_000);
    // Within half a wrap of the stale published time (the near path), long past in fact.
    let at = last + 1_000_000_000;
    let count = bus.model(|m| m.frc_value(clock.now_ns()));
    assert!(count > at);
    comp.set_compare(at).unwrap();
    let due = bus.model(|m| m.comparator_due_ns(clock.now_ns(), 0));
    let due = due.expect("a value already passed was left armed: it never fires");
    clock.advance_to(due);
    assert!(comp.ack());
    // The time base caught up with the count on the way.
    assert!(time.now() >= count);
}

/// The MCT model behind a bus whose `G_CNT_U` changes at every read (a broken bus): no
/// hi-lo-hi attempt ever sees a stable pair.
struct RacingHigh {
    inner: MctModel,
    hi: u32,
}

impl SimModel for RacingHigh {
    type Word = u32;
    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        if offset == regs::G_CNT_U.offset() {
            self.hi = self.hi.wrapping_add(1);
            return self.hi;
        }
        self.inner.read(now_ns, offset)
    }
    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        self.inner.write(now_ns, offset, value);
    }
}

/// After its attempts, `Frc::read64` (and the seed's cached-upper read) return the last
/// low word with the high word read **before** it, as a9-global-timer does. (Before: the
/// high word read after it, 2^32 too large across a carry.)
#[test]
fn hilohi_fallback_pairs_the_low_word_with_the_high_word_read_before_it() {
    let clock = SimClock::new();
    let bus = SimBus::new(
        &clock,
        RacingHigh {
            inner: MctModel::exynos4210(),
            hi: 10,
        },
    );
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    let v = mct.frc().read64();
    let last_hi = bus.model(|m| m.hi);
    assert_eq!(
        v >> 32,
        u64::from(last_hi - 1),
        "{v:#x}, last high read {last_hi}"
    );

    let cache = UpperCache::new();
    let _ = seed::read64_cached_upper(&mct.frc(), &cache);
    let v = seed::read64_cached_upper(&mct.frc(), &cache);
    let last_hi = bus.model(|m| m.hi);
    assert_eq!(
        v >> 32,
        u64::from(last_hi - 1),
        "{v:#x}, last high read {last_hi}"
    );
}

/// With `MCT_CFG` dividing the input clock by 2, a local timer counts at half the rate: an
/// event of `delta` ticks at the rate the driver reports comes no earlier than `delta`
/// ticks of that rate. (Before: the model's local timers ignored `MCT_CFG`, so they fired
/// at twice the rate the driver, scaling by it, reported: early.)
#[test]
fn local_timers_count_at_the_rate_mct_cfg_sets() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let config = bus.model(|m| m.driver_config());
    let mut mct = Mct::new(bus.clone(), config).unwrap();
    assert_eq!(mct.set_prescaler(1, 0).unwrap(), 12_000_000);
    mct.start_frc().unwrap();
    assert_eq!(bus.model(|m| m.frc_hz()), 12_000_000);
    let mut l0 = mct.local_timer(0).unwrap();
    let hz = l0.capabilities().freq_hz;
    assert_eq!(hz, 6_000_000);
    let delta = 6_000; // 1 ms at 6 MHz
    l0.set_next_event(delta).unwrap();
    let t0 = clock.now_ns();
    let due = bus.model(|m| m.local_due_ns(0)).unwrap();
    assert!(due - t0 >= 1_000_000 - 1_000, "fired after {} ns", due - t0);
    clock.advance(900_000);
    assert!(
        !l0.is_pending(),
        "early: pending after 0.9 ms of a 1 ms event"
    );
    clock.advance(200_000);
    assert!(l0.ack());
    // A change of MCT_CFG keeps a running local timer's position, at the new rate.
    drop(l0);
}
