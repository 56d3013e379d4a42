//! The ClockEvent conformance suite on the core's own simulated clockevent, in each of its
//! configurations, and proof that the suite catches what it claims to.

use hwtimer_core::sim::conformance::{self, Channel};
use hwtimer_core::sim::{SimClock, SimClockEvent, SimCounter};
use hwtimer_core::{Capabilities, ClockEvent, ConfigError, Error, Extended};

fn channel<'a>(
    clock: &'a SimClock,
    line: &'a dyn Fn() -> bool,
    writes: &'a dyn Fn() -> u64,
    time: Option<&'a dyn hwtimer_core::Monotonic>,
) -> Channel<'a> {
    Channel {
        clock,
        line,
        writes,
        late_ticks: 1,
        time,
    }
}

#[test]
fn sim_clockevent_conforms_in_every_configuration() {
    for (phase, absolute, periodic) in [
        (0, false, true),
        (0, true, true),
        (0, false, false),
        (137, false, true),
    ] {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 64, 3_125_000);
        let time = Extended::new(&counter);
        let mut event = SimClockEvent::new(&clock, 3_125_000, 8, 0x0FFF_FFFF).with_phase_ns(phase);
        if absolute {
            event = event.with_absolute();
        }
        if !periodic {
            event = event.oneshot_only();
        }
        let probe = event.probe();
        let line = || probe.pending();
        let writes = || probe.programs();
        let ch = channel(&clock, &line, &writes, absolute.then_some(&time as _));
        let report = conformance::run(&mut event, &ch);
        assert!(
            report.deltas >= 15 && report.early_checked >= 15,
            "{report:?}"
        );
        assert_eq!(report.periods, if periodic { 20 } else { 0 });
        assert_eq!(report.compares, if absolute { 13 } else { 0 });
    }
}

/// A channel that breaks one rule at a time, to show the suite notices.
struct Broken {
    inner: SimClockEvent,
    flaw: Flaw,
}

#[derive(Clone, Copy, PartialEq)]
enum Flaw {
    /// Programs one tick short.
    Early,
    /// Leaves the status pending at shutdown.
    StaleAtShutdown,
    /// Acknowledges when arming.
    AckOnArm,
    /// Checks the range after touching the hardware.
    WritesOutOfRange,
}

impl ClockEvent for Broken {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        match self.flaw {
            Flaw::Early if (9..=0x0FFF_FFFF).contains(&delta) => {
                self.inner.set_next_event(delta - 1)
            }
            Flaw::AckOnArm => {
                self.inner.ack();
                self.inner.set_next_event(delta)
            }
            Flaw::WritesOutOfRange => {
                let r = self.inner.set_next_event(delta.clamp(8, 0x0FFF_FFFF));
                if (8..=0x0FFF_FFFF).contains(&delta) {
                    r
                } else {
                    Err(ConfigError::DeltaOutOfRange.into())
                }
            }
            _ => self.inner.set_next_event(delta),
        }
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.inner.set_periodic(period)
    }
    fn shutdown(&mut self) {
        if self.flaw == Flaw::StaleAtShutdown {
            // Stop the hardware but keep a latched status: re-program far away.
            let pending = self.inner.probe().pending();
            self.inner.shutdown();
            if pending {
                // Model a status bit that survives shutdown.
                self.inner.set_next_event(8).ok();
                let probe = self.inner.probe();
                probe.advance_to_fire();
            }
            return;
        }
        self.inner.shutdown()
    }
    fn ack(&mut self) -> bool {
        self.inner.ack()
    }
}

#[test]
fn the_suite_catches_each_broken_rule() {
    for (flaw, expect) in [
        (Flaw::Early, "never_early"),
        (Flaw::StaleAtShutdown, "stale_pending"),
        (Flaw::AckOnArm, "rearm_pending"),
        (Flaw::WritesOutOfRange, "range"),
    ] {
        let result = std::panic::catch_unwind(|| {
            let clock = SimClock::new();
            let inner = SimClockEvent::new(&clock, 3_125_000, 8, 0x0FFF_FFFF);
            let probe = inner.probe();
            let mut event = Broken { inner, flaw };
            let line = || probe.pending();
            let writes = || probe.programs();
            let ch = channel(&clock, &line, &writes, None);
            conformance::run(&mut event, &ch);
        });
        let payload = result.expect_err("the suite passed a broken channel");
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        assert!(
            message.contains(&format!("{expect}:")),
            "expected a {expect} failure, got: {message}"
        );
    }
}

/// The failure injector is transparent when no failure is scripted: the suite passes on a
/// `FaultyEvent` around the simulated channel, as on the channel itself. A refusal then
/// does what it says: `KeepOld` leaves the earlier arming exactly as it was, `Disarm` stops
/// the channel, and either way the error is the scripted one.
#[test]
fn the_failure_injector_conforms_and_refuses_as_scripted() {
    use hwtimer_core::sim::{Faults, FaultyEvent, Refusal};
    let clock = SimClock::new();
    let faults = Faults::new();
    let inner = SimClockEvent::new(&clock, 3_125_000, 8, 0x0FFF_FFFF);
    let probe = inner.probe();
    let mut event = FaultyEvent::new(inner, &faults);
    let line = || probe.pending();
    let writes = || probe.programs();
    let ch = channel(&clock, &line, &writes, None);
    let report = conformance::run(&mut event, &ch);
    assert!(report.deltas >= 15 && report.periods == 20, "{report:?}");
    assert_eq!(faults.stats().refused, 0);

    event.shutdown();
    event.set_next_event(1_000).unwrap();
    let armed = probe.next_fire_ns();
    faults.refuse_next(1, Error::Busy, Refusal::KeepOld);
    assert_eq!(event.set_next_event(10), Err(Error::Busy));
    assert_eq!(probe.next_fire_ns(), armed, "KeepOld changed the arming");
    faults.refuse_next(1, Error::Timeout, Refusal::Disarm);
    assert_eq!(event.set_next_event(10), Err(Error::Timeout));
    assert_eq!(probe.next_fire_ns(), None, "Disarm left the channel armed");
    assert_eq!(faults.stats().refused, 2);
    faults.stale_ack();
    assert!(event.ack(), "a scripted stale status");
    assert!(!event.ack());
}
