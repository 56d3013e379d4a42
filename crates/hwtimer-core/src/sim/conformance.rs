//! One conformance suite for every [`ClockEvent`]: the trait contract, checked on a
//! driver's model in virtual time.
//!
//! Each driver's tests call [`run`] with its channel, the [`SimClock`] of its model and two
//! views of the model that do not go through the driver: the level of the channel's
//! interrupt line and the number of register writes so far. The suite then checks, in this
//! order:
//!
//! | check | what it proves |
//! |---|---|
//! | `range` | out-of-range deltas and periods, and modes the capabilities do not list, return an error and write nothing |
//! | `never_early` | for deltas from `min_delta` to `max_delta`, the line stays low until more than `delta − 1` event ticks after the call began, and rises no later than `delta + late_ticks` ticks after it ended |
//! | `ack` | `ack` reports a fired channel once, then `false`; an idle channel's `ack` is `false` |
//! | `shutdown` | a channel shut down before it fires never fires |
//! | `stale_pending` | a status left pending at shutdown is gone: re-arming far ahead raises no line and `ack` says `false` until the new event |
//! | `rearm_pending` | arming a channel whose interrupt is pending keeps that interrupt, and the new event still comes |
//! | `periodic` | (periodic channels) 20 periods, each fire inside the same window around `k × period`: no drift |
//! | `absolute` | (absolute channels) `set_compare` fires once the time base reaches the value, never before; a value already passed fires at once |
//!
//! "Never early" is measured in virtual time against the channel's own tick period `P`: a
//! call that begins at `t0` with `delta` may fire only after `t0 + (delta − 1)·P`, because
//! `t0` can fall anywhere inside the tick in which the hardware's count starts; the time
//! base it is paired with has then advanced by at least `delta` ticks (phase-locked
//! channels), or by `delta − 1` (the one tick [`Alarm`](crate::Alarm) adds as margin).
//!
//! The suite panics with the name of the failed check and the numbers (it is test
//! infrastructure); on success it returns a [`Report`] of what it tried.

use super::SimClock;
use crate::clockevent::{Capabilities, ClockEvent};
use crate::clocksource::Monotonic;
use crate::error::{ConfigError, Error};
use crate::time::NANOS_PER_SEC;

/// What the suite needs from a driver's model, besides the channel itself.
pub struct Channel<'a> {
    /// The virtual clock of the model.
    pub clock: &'a SimClock,
    /// The level of the channel's interrupt line at the current virtual time (status AND
    /// the channel's own enable), read from the model directly: no bus access, no side
    /// effect, no virtual time.
    pub line: &'a dyn Fn() -> bool,
    /// Register (or CSR) writes the driver has made so far.
    pub writes: &'a dyn Fn() -> u64,
    /// How much later than `delta` ticks after the arming call returns the line may rise,
    /// in event ticks: the hardware's granularity (LoongArch rounds to 4) and reload quirks.
    pub late_ticks: u64,
    /// The time base an [absolute](Capabilities::absolute) channel compares against;
    /// required for such a channel.
    pub time: Option<&'a dyn Monotonic>,
}

/// What [`run`] tried; every count is of checks that passed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Out-of-range or unsupported requests refused without a write.
    pub refused: u32,
    /// Deltas armed and seen to fire inside their window.
    pub deltas: u32,
    /// Of those, how many had an observable "not yet" instant after the call returned (a
    /// delta shorter than the arming call itself cannot be checked for earliness).
    pub early_checked: u32,
    /// Periods observed in periodic mode.
    pub periods: u32,
    /// Absolute compare values armed and seen to fire.
    pub compares: u32,
}

/// Run the whole suite on `event`; see the [module docs](self).
///
/// # Panics
/// When a check fails (with the check's name and the numbers).
pub fn run<E: ClockEvent>(event: &mut E, ch: &Channel<'_>) -> Report {
    let caps = event.capabilities();
    assert!(caps.is_valid(), "capabilities: invalid {caps:?}");
    assert_eq!(
        event.capabilities(),
        caps,
        "capabilities: not constant between calls"
    );
    let mut report = Report::default();
    check_range(event, ch, &caps, &mut report);
    check_never_early(event, ch, &caps, &mut report);
    check_ack(event, ch, &caps);
    check_shutdown(event, ch, &caps);
    check_stale_pending(event, ch, &caps);
    check_rearm_pending(event, ch, &caps);
    if caps.periodic {
        check_periodic(event, ch, &caps, &mut report);
    }
    if caps.absolute {
        let time = ch
            .time
            .expect("absolute: an absolute channel must be tested with its time base");
        check_absolute(event, ch, time, &mut report);
    }
    event.shutdown();
    report
}

/// Nanoseconds of `ticks` at `hz`, rounded down.
fn ns_floor(ticks: u64, hz: u32) -> u64 {
    let ns = u128::from(ticks) * u128::from(NANOS_PER_SEC) / u128::from(hz);
    ns.min(u128::from(u64::MAX)) as u64
}

/// Nanoseconds of `ticks` at `hz`, rounded up.
fn ns_ceil(ticks: u64, hz: u32) -> u64 {
    let ns = (u128::from(ticks) * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(hz));
    ns.min(u128::from(u64::MAX)) as u64
}

/// The deltas tried: both ends of the range, the ticks just above the minimum (where
/// granularity rounding and clamping live), and points spread over the range.
fn deltas(caps: &Capabilities) -> Vec<u64> {
    let (min, max) = (caps.min_delta, caps.max_delta);
    let mut v = vec![min, max];
    for extra in [1, 2, 3, 4, 5, 7, 8, 15, 100, 1000, 12_345] {
        v.push(min.saturating_add(extra));
    }
    for mul in [2, 10, 1000] {
        v.push(min.saturating_mul(mul));
    }
    for shift in [1, 2, 8, 16] {
        v.push(min + (max - min) / (1 << shift));
    }
    v.push(max - 1);
    v.retain(|d| (min..=max).contains(d));
    v.sort_unstable();
    v.dedup();
    v
}

/// Clear whatever an earlier check left behind.
fn quiesce<E: ClockEvent>(event: &mut E) {
    event.shutdown();
    event.ack();
}

/// Advance in small steps until the line rises, at most until `deadline_ns`. Returns the
/// instant it was seen high.
fn wait_line(ch: &Channel<'_>, step_ns: u64, deadline_ns: u64) -> Option<u64> {
    loop {
        if (ch.line)() {
            return Some(ch.clock.now_ns());
        }
        let now = ch.clock.now_ns();
        if now >= deadline_ns {
            return None;
        }
        ch.clock
            .advance_to(now.saturating_add(step_ns).min(deadline_ns));
    }
}

fn step_ns(caps: &Capabilities) -> u64 {
    (ns_floor(1, caps.freq_hz) / 8).max(1)
}

/// Arm with `arm` (which starts at `t0`), check the line is low until `(ticks − 1)·P`
/// after `t0` and high by `(ticks + late)·P` after the call returned. Returns whether the
/// earliness was observable.
fn expect_fire(
    ch: &Channel<'_>,
    caps: &Capabilities,
    what: &str,
    t0: u64,
    t1: u64,
    ticks: u64,
) -> bool {
    let hz = caps.freq_hz;
    let not_yet = t0.saturating_add(ns_floor(ticks.saturating_sub(1), hz));
    let observable = not_yet >= t1;
    if observable {
        ch.clock.advance_to(not_yet);
        assert!(
            !(ch.line)(),
            "never_early: {what}: {ticks} ticks armed at {t0} ns fired by {not_yet} ns \
             (only {} ns later; one tick is {} ns)",
            not_yet - t0,
            ns_floor(1, hz)
        );
    }
    let by = t1.saturating_add(ns_ceil(ticks.saturating_add(ch.late_ticks), hz));
    let seen = wait_line(ch, step_ns(caps), by);
    assert!(
        seen.is_some(),
        "never_early: {what}: {ticks} ticks armed at {t0}..{t1} ns had not fired by {by} ns \
         (late_ticks {})",
        ch.late_ticks
    );
    observable
}

fn check_range<E: ClockEvent>(
    event: &mut E,
    ch: &Channel<'_>,
    caps: &Capabilities,
    report: &mut Report,
) {
    quiesce(event);
    let mut bad = vec![caps.max_delta.saturating_add(1), u64::MAX];
    if caps.min_delta > 0 {
        bad.push(0);
        bad.push(caps.min_delta - 1);
    }
    bad.retain(|d| !(caps.min_delta..=caps.max_delta).contains(d));
    for &d in &bad {
        let before = (ch.writes)();
        let r = event.set_next_event(d);
        assert_eq!(
            r,
            Err(Error::Config(ConfigError::DeltaOutOfRange)),
            "range: set_next_event({d}) outside [{}, {}]",
            caps.min_delta,
            caps.max_delta
        );
        assert_eq!((ch.writes)(), before, "range: set_next_event({d}) wrote");
        report.refused += 1;
        if caps.periodic {
            let r = event.set_periodic(d);
            assert!(r.is_err(), "range: set_periodic({d}) accepted");
            assert_eq!((ch.writes)(), before, "range: set_periodic({d}) wrote");
            report.refused += 1;
        }
    }
    let before = (ch.writes)();
    if !caps.periodic {
        assert_eq!(
            event.set_periodic(caps.min_delta),
            Err(Error::Unsupported),
            "range: set_periodic on a oneshot-only channel"
        );
        report.refused += 1;
    }
    if !caps.absolute {
        assert_eq!(
            event.set_compare(0),
            Err(Error::Unsupported),
            "range: set_compare on a channel without absolute mode"
        );
        report.refused += 1;
    }
    assert_eq!((ch.writes)(), before, "range: an unsupported mode wrote");
}

fn check_never_early<E: ClockEvent>(
    event: &mut E,
    ch: &Channel<'_>,
    caps: &Capabilities,
    report: &mut Report,
) {
    for d in deltas(caps) {
        quiesce(event);
        let t0 = ch.clock.now_ns();
        event
            .set_next_event(d)
            .unwrap_or_else(|e| panic!("never_early: set_next_event({d}) failed: {e:?}"));
        let t1 = ch.clock.now_ns();
        if expect_fire(ch, caps, "set_next_event", t0, t1, d) {
            report.early_checked += 1;
        }
        report.deltas += 1;
        assert!(
            event.ack(),
            "never_early: line high after {d} but ack said no"
        );
    }
}

/// A delta comfortably longer than the driver's own calls (so "not yet" is observable)
/// and short enough to keep the checks quick: 64 ticks above the minimum, or the maximum.
fn short(caps: &Capabilities) -> u64 {
    caps.min_delta.saturating_add(64).min(caps.max_delta)
}

fn check_ack<E: ClockEvent>(event: &mut E, ch: &Channel<'_>, caps: &Capabilities) {
    quiesce(event);
    assert!(!event.ack(), "ack: an idle channel acknowledged");
    let d = short(caps);
    let (t0, _) = (ch.clock.now_ns(), event.set_next_event(d));
    let t1 = ch.clock.now_ns();
    expect_fire(ch, caps, "ack", t0, t1, d);
    assert!(event.ack(), "ack: a fired channel was not acknowledged");
    assert!(!event.ack(), "ack: acknowledged the same event twice");
    assert!(!(ch.line)(), "ack: line still high after ack");
}

fn check_shutdown<E: ClockEvent>(event: &mut E, ch: &Channel<'_>, caps: &Capabilities) {
    quiesce(event);
    let d = short(caps);
    event.set_next_event(d).expect("shutdown: arm");
    event.shutdown();
    let past = ch.clock.now_ns().saturating_add(ns_ceil(
        d.saturating_add(ch.late_ticks).saturating_mul(4),
        caps.freq_hz,
    ));
    ch.clock.advance_to(past);
    assert!(!(ch.line)(), "shutdown: a cancelled event raised the line");
    assert!(!event.ack(), "shutdown: a cancelled event was acknowledged");
}

fn check_stale_pending<E: ClockEvent>(event: &mut E, ch: &Channel<'_>, caps: &Capabilities) {
    quiesce(event);
    let d = short(caps);
    let t0 = ch.clock.now_ns();
    event.set_next_event(d).expect("stale_pending: arm");
    let t1 = ch.clock.now_ns();
    expect_fire(ch, caps, "stale_pending", t0, t1, d);
    // Fired, never handled; then cancelled.
    event.shutdown();
    // Re-armed far ahead: the old status must not pass for the new event.
    let far = caps.max_delta.min(caps.min_delta.saturating_add(1 << 20));
    let t0 = ch.clock.now_ns();
    event.set_next_event(far).expect("stale_pending: re-arm");
    let t1 = ch.clock.now_ns();
    assert!(
        !(ch.line)(),
        "stale_pending: re-arming after shutdown raised the line at once (stale status)"
    );
    assert!(
        !event.ack(),
        "stale_pending: ack reported the cancelled event as new"
    );
    expect_fire(ch, caps, "stale_pending re-arm", t0, t1, far);
    assert!(
        event.ack(),
        "stale_pending: the new event was not acknowledged"
    );
}

fn check_rearm_pending<E: ClockEvent>(event: &mut E, ch: &Channel<'_>, caps: &Capabilities) {
    quiesce(event);
    let d = short(caps);
    let t0 = ch.clock.now_ns();
    event.set_next_event(d).expect("rearm_pending: arm");
    let t1 = ch.clock.now_ns();
    expect_fire(ch, caps, "rearm_pending", t0, t1, d);
    // Pending and not handled; re-armed from elsewhere (a new, later deadline).
    let later = caps.max_delta.min(d.saturating_mul(4));
    let t0 = ch.clock.now_ns();
    event.set_next_event(later).expect("rearm_pending: re-arm");
    let t1 = ch.clock.now_ns();
    assert!(
        (ch.line)(),
        "rearm_pending: arming cleared a pending interrupt (an event lost)"
    );
    assert!(event.ack(), "rearm_pending: the pending interrupt was lost");
    // The handler saw the old interrupt; the new event must still come.
    expect_fire(ch, caps, "rearm_pending second event", t0, t1, later);
    assert!(
        event.ack(),
        "rearm_pending: the re-armed event was not acknowledged"
    );
}

fn check_periodic<E: ClockEvent>(
    event: &mut E,
    ch: &Channel<'_>,
    caps: &Capabilities,
    report: &mut Report,
) {
    quiesce(event);
    // Long enough for the handler's own accesses, a multiple of 4 (LoongArch granularity).
    let p = caps
        .min_delta
        .saturating_mul(4)
        .max(2000)
        .next_multiple_of(4)
        .min(caps.max_delta);
    let hz = caps.freq_hz;
    let t0 = ch.clock.now_ns();
    event
        .set_periodic(p)
        .unwrap_or_else(|e| panic!("periodic: set_periodic({p}) failed: {e:?}"));
    let t1 = ch.clock.now_ns();
    for k in 1..=20u64 {
        let ticks = p.saturating_mul(k);
        let not_yet = t0.saturating_add(ns_floor(ticks - 1, hz));
        if not_yet > ch.clock.now_ns() {
            ch.clock.advance_to(not_yet);
            assert!(
                !(ch.line)(),
                "periodic: fire {k} of period {p} came before {ticks} ticks (drift or early)"
            );
        }
        let by = t1.saturating_add(ns_ceil(ticks.saturating_add(ch.late_ticks), hz));
        assert!(
            wait_line(ch, step_ns(caps), by).is_some(),
            "periodic: fire {k} of period {p} not seen by {ticks} + {} ticks (drift or lost)",
            ch.late_ticks
        );
        assert!(event.ack(), "periodic: fire {k} not acknowledged");
        report.periods += 1;
    }
    event.shutdown();
}

fn check_absolute<E: ClockEvent>(
    event: &mut E,
    ch: &Channel<'_>,
    time: &dyn Monotonic,
    report: &mut Report,
) {
    let caps = event.capabilities();
    assert_eq!(
        time.freq_hz(),
        caps.freq_hz,
        "absolute: the time base must count at the channel's rate"
    );
    for d in deltas(&caps).into_iter().take(12) {
        quiesce(event);
        let at = time.now().saturating_add(d);
        event
            .set_compare(at)
            .unwrap_or_else(|e| panic!("absolute: set_compare(now + {d}) failed: {e:?}"));
        // Just before the time base can read `at`, the line must be low; then it must rise,
        // and when it has, the time base must have reached `at`.
        let (v, tn) = (time.now(), ch.clock.now_ns());
        let gap = at.saturating_sub(v);
        if gap > 1 {
            ch.clock
                .advance_to(tn.saturating_add(ns_floor(gap - 1, caps.freq_hz)));
            // The line first, then the time base (reading it may cost virtual time).
            if (ch.line)() {
                let now = time.now();
                assert!(
                    now >= at,
                    "absolute: set_compare({at}) fired at time base {now} (read {v} at {tn} ns)"
                );
            }
        }
        let by = ch
            .clock
            .now_ns()
            .max(tn)
            .saturating_add(ns_ceil(ch.late_ticks.saturating_add(2), caps.freq_hz));
        assert!(
            wait_line(ch, step_ns(&caps), by).is_some(),
            "absolute: set_compare({at}) not fired by {by} ns"
        );
        let now = time.now();
        assert!(
            now >= at,
            "absolute: set_compare({at}) fired at time base {now}"
        );
        assert!(event.ack(), "absolute: fired but not acknowledged");
        report.compares += 1;
    }
    // A value already passed fires at once.
    quiesce(event);
    let past = time.now().saturating_sub(10);
    event
        .set_compare(past)
        .expect("absolute: set_compare(past)");
    let by = ch.clock.now_ns().saturating_add(ns_ceil(
        caps.min_delta.saturating_add(ch.late_ticks),
        caps.freq_hz,
    ));
    assert!(
        wait_line(ch, step_ns(&caps), by).is_some(),
        "absolute: a passed compare value did not fire at once"
    );
    assert!(
        event.ack(),
        "absolute: passed value fired but not acknowledged"
    );
    report.compares += 1;
}
