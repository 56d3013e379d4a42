//! The baselines the driver is measured against, on the model (feature
//! `unstable-baselines`: this crate's own benches and seed-proof tests; not part of the
//! public API, no semver promise).
//!
//! - [`set_next_event_naive`]: Linux's reprogram sequence before the v6.18 fixes (stop,
//!   DATA, start, with no bounce), on the model's registers, so the tests can show it
//!   losing the interrupt (docs/otto-timer.md#lost-interrupt) and
//!   [`reprogram_near_expiry`] can put it beside the driver's;
//! - the delay proof: [`seed_continuous_delay`] (a delay on the continuous clocksource)
//!   against [`seed_tick_sleep`] (the seed's sleep, which can only end on a periodic
//!   tick), with their [`SleepFigures`].

use hwtimer_core::{ClockEvent, ConfigError, Error, Reg, RegisterBusExt};

use super::map::{
    RTTM_COUNTER_MASK, RTTM_CTRL, RTTM_CTRL_COUNTER, RTTM_CTRL_DIVISOR_MASK, RTTM_CTRL_ENABLE,
    RTTM_DATA, TIMER_STRIDE,
};
use super::{LostIrqQuirk, OttoModel, OttoSim, SIM_READ_NS, SIM_WRITE_NS, ns_for_ticks};
use crate::clockevent::{MAX_DELTA, MIN_DELTA};
use crate::soc::{Config, Soc};
use crate::{OttoClockEvent, OttoClocksource};
use hwtimer_core::sim::SimBus;

/// Linux's `set_next_event` before the v6.18 fixes, on timer `index` of the model: stop
/// (CTRL = 0), DATA = `delta` (which resets the counter), start in COUNTER mode at
/// `config`'s divisor. 3 writes and no bounce, so reprogramming a running timer close to
/// its expiry can lose the interrupt on the lossy quirk variants
/// ([`LostIrqQuirk`]). INT is not written: the interrupt is on when the driver armed the
/// timer before.
///
/// Errors: [`ConfigError::DeltaOutOfRange`] for a delta outside the driver's range
/// ([`MIN_DELTA`]`..=`[`MAX_DELTA`]), and those of [`Config::validate`] and
/// [`Config::check_index`]; nothing is written then.
///
/// The register facts are Linux's, from the model's own map ([`super::map`]), not the
/// driver's.
pub fn set_next_event_naive(
    bus: &SimBus<OttoModel>,
    config: &Config,
    index: usize,
    delta: u64,
) -> Result<(), Error> {
    let divisor = config.validate()?;
    config.check_index(index)?;
    if !(MIN_DELTA..=MAX_DELTA).contains(&delta) {
        return Err(ConfigError::DeltaOutOfRange.into());
    }
    let base = index.saturating_mul(TIMER_STRIDE);
    let ctrl: Reg<u32> = Reg::new(base.saturating_add(RTTM_CTRL));
    let data: Reg<u32> = Reg::new(base.saturating_add(RTTM_DATA));
    bus.write_raw(ctrl, 0);
    bus.write_raw(data, delta as u32 & RTTM_COUNTER_MASK);
    bus.write_raw(
        ctrl,
        RTTM_CTRL_ENABLE | RTTM_CTRL_COUNTER | (u32::from(divisor) & RTTM_CTRL_DIVISOR_MASK),
    );
    Ok(())
}

/// (reads, writes) of [`set_next_event_naive`] on the model of `soc`, for the bench to print
/// beside the driver's [`MmioCosts`](super::MmioCosts).
///
/// Errors: as [`set_next_event_naive`] (never for the supported SoCs).
pub fn naive_set_next_event_cost(soc: Soc) -> Result<(u64, u64), Error> {
    let sim = OttoSim::new(soc);
    let config = Config::new(soc);
    let bus = sim.bus();
    let (r, s) = bus.counted(|| set_next_event_naive(&bus, &config, 0, 100));
    r?;
    Ok((s.reads, s.writes))
}

/// Per-call timings of a seed-proof run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SleepFigures {
    /// Calls made.
    pub calls: u32,
    /// Total virtual time, ns.
    pub total_ns: u64,
    /// Shortest call, ns.
    pub min_ns: u64,
    /// Longest call, ns.
    pub max_ns: u64,
    /// MMIO reads over the run.
    pub mmio_reads: u64,
}

impl SleepFigures {
    /// Average virtual time per call, ns.
    pub fn avg_ns(&self) -> f64 {
        self.total_ns as f64 / f64::from(self.calls.max(1))
    }

    fn record(&mut self, ns: u64) {
        self.calls += 1;
        self.total_ns += ns;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    fn empty() -> Self {
        Self {
            calls: 0,
            total_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            mmio_reads: 0,
        }
    }
}

/// The seed proof, our side: `calls` × `DelayNs::delay_us(us)` through
/// [`hwtimer_core::Delay`] on an [`OttoClocksource`] (timer 1 of `soc`, default 3.125 MHz)
/// on the model, back to back, with MMIO costs `read_ns` / `write_ns`.
///
/// Errors: those of [`OttoClocksource::new`] (never for the supported SoCs).
pub fn seed_continuous_delay(
    soc: Soc,
    calls: u32,
    us: u32,
    read_ns: u64,
    write_ns: u64,
) -> Result<SleepFigures, Error> {
    use embedded_hal::delay::DelayNs;
    let sim = OttoSim::with_model(OttoModel::new(soc), read_ns, write_ns);
    let cs = OttoClocksource::new(sim.bus(), &Config::new(soc), 1)?;
    let mut delay = hwtimer_core::Delay::new(&cs);
    let mut fig = SleepFigures::empty();
    sim.bus().reset_stats();
    for _ in 0..calls {
        let t0 = sim.clock().now_ns();
        delay.delay_us(us);
        fig.record(sim.clock().now_ns() - t0);
    }
    fig.mmio_reads = sim.bus().stats().reads;
    Ok(fig)
}

/// The seed proof, the seed's side: the same `calls` × sleep of `us` when the only time
/// source is a **periodic** clockevent at `hz` (timer 0 in TIMER mode, Linux
/// `set_state_periodic` with period `tick_hz / hz`) and no continuous clocksource: as in
/// Linux without high-resolution timers, a sleep can only end from the tick interrupt,
/// at the first tick at or after its expiry. The CPU idles until the tick's line asserts,
/// then runs the handler (acknowledge) and checks its expiry.
///
/// Errors: [`ConfigError::PeriodOutOfRange`] if `hz` gives a period outside the
/// clockevent's range; [`Error::Timeout`] if the tick stopped (the CPU would stall).
pub fn seed_tick_sleep(
    soc: Soc,
    calls: u32,
    us: u32,
    hz: u32,
    read_ns: u64,
    write_ns: u64,
) -> Result<SleepFigures, Error> {
    let sim = OttoSim::with_model(OttoModel::new(soc), read_ns, write_ns);
    let config = Config::new(soc);
    let mut tick = OttoClockEvent::new(sim.bus(), &config, 0)?;
    let period = u64::from(config.tick_hz / hz.max(1));
    tick.set_periodic(period)?;
    let mut fig = SleepFigures::empty();
    sim.bus().reset_stats();
    for _ in 0..calls {
        let t0 = sim.clock().now_ns();
        let expiry = t0 + u64::from(us) * 1_000;
        loop {
            sim.advance_to_next_irq(0).ok_or(Error::Timeout)?;
            // The tick handler: acknowledge, then the low-resolution timer wheel checks
            // expired sleepers.
            if tick.ack() && sim.clock().now_ns() >= expiry {
                break;
            }
        }
        fig.record(sim.clock().now_ns() - t0);
    }
    fig.mmio_reads = sim.bus().stats().reads;
    Ok(fig)
}

/// Reprogram a running oneshot `lead_ns` before its expiry (the Linux ≥ 6.9 pattern behind
/// the v6.18 fixes), with the driver's sequence or, if `naive`, the pre-v6.18 one
/// ([`set_next_event_naive`]), then wait for the new expiry. Returns the virtual time of the interrupt, or `None`
/// when it was lost and the CPU would stall. Runs the default quirk variant; see
/// [`reprogram_near_expiry_with`] for the others.
///
/// ```
/// use otto_timer::Soc;
/// use otto_timer::sim::seed::reprogram_near_expiry;
/// assert_eq!(reprogram_near_expiry(Soc::Rtl838x, 1_000, true), Ok(None)); // lost
/// assert!(reprogram_near_expiry(Soc::Rtl838x, 1_000, false).unwrap().is_some());
/// ```
pub fn reprogram_near_expiry(soc: Soc, lead_ns: u64, naive: bool) -> Result<Option<u64>, Error> {
    reprogram_near_expiry_with(soc, LostIrqQuirk::default(), lead_ns, naive)
}

/// [`reprogram_near_expiry`] on the model running the `quirk` variant.
///
/// ```
/// use otto_timer::Soc;
/// use otto_timer::sim::LostIrqQuirk;
/// use otto_timer::sim::seed::reprogram_near_expiry_with;
/// let benign = LostIrqQuirk::CompletesOnResume;
/// assert!(reprogram_near_expiry_with(Soc::Rtl838x, benign, 1_000, true).unwrap().is_some());
/// ```
pub fn reprogram_near_expiry_with(
    soc: Soc,
    quirk: LostIrqQuirk,
    lead_ns: u64,
    naive: bool,
) -> Result<Option<u64>, Error> {
    let config = Config::new(soc);
    let model = OttoModel::for_config(&config).with_lost_irq(quirk);
    let sim = OttoSim::with_model(model, SIM_READ_NS, SIM_WRITE_NS);
    let tick_ns = ns_for_ticks(1, config.bus_clock_hz, config.divisor()?);
    let mut ev = OttoClockEvent::new(sim.bus(), &config, 0)?;
    ev.set_next_event(100)?;
    sim.clock()
        .advance(100u64.saturating_mul(tick_ns).saturating_sub(lead_ns));
    if naive {
        set_next_event_naive(&sim.bus(), &config, 0, 50)?;
    } else {
        ev.set_next_event(50)?;
    }
    let fired = sim.advance_to_next_irq(0);
    ev.shutdown();
    Ok(fired)
}
