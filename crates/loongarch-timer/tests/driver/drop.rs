//! Dropping a timer leaves the hardware quiet: TCFG.EN clear and no TI pending, so nothing
//! fires for a timer nobody owns. A pinned timer does it on its own core only.

use hwtimer_core::sim::{SimClock, SimCpu};
use hwtimer_core::{ClockEvent, RegisterBusExt};
use loongarch_timer::csr::{CSR_ESTAT, CSR_TCFG};
use loongarch_timer::pinned::{PinnedTimer, pair};
use loongarch_timer::sim::{LoongArchCore, SimCsr, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer};

const EN: u64 = 1;
const TI: u64 = 1 << 11;

fn armed() -> (SimClock, SimCsr, ConstantTimer<SimCsr>) {
    SimCpu::enter(3);
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    let mut timer = ConstantTimer::new(csr.clone(), freq, Config::default()).unwrap();
    // One expiry latched and not handled, and the timer armed again.
    timer.set_next_event(1000).unwrap();
    clock.advance(20_000);
    timer.set_next_event(100_000).unwrap();
    assert_ne!(csr.read_raw(CSR_TCFG) & EN, 0);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0);
    (clock, csr, timer)
}

fn quiet(clock: &SimClock, csr: &SimCsr) -> bool {
    let now = clock.now_ns();
    csr.model(|m| m.next_fire_ns().is_none() && !m.ti_pending(now))
}

#[test]
fn dropping_a_timer_stops_it_and_clears_a_pending_ti() {
    let (clock, csr, timer) = armed();
    drop(timer);
    assert!(quiet(&clock, &csr));
    clock.advance(10_000_000);
    assert_eq!(
        csr.model(|m| m.fired(10_000_000)),
        1,
        "nothing fired after the drop"
    );
}

#[test]
fn into_inner_hands_the_csrs_on_with_the_timer_running() {
    let (clock, csr, timer) = armed();
    let writes = csr.stats().writes;
    let _csr = timer.into_inner();
    assert_eq!(csr.stats().writes, writes);
    assert!(!quiet(&clock, &csr));
}

#[test]
fn a_pinned_timer_dropped_on_its_core_stops_it() {
    let (clock, csr, timer) = armed();
    let pinned = PinnedTimer::new(timer);
    drop(pinned);
    assert!(quiet(&clock, &csr));
}

#[test]
fn a_pinned_timer_dropped_on_another_core_touches_nothing() {
    let (clock, csr, timer) = armed();
    let pinned = PinnedTimer::new(timer);
    let writes = csr.model(|m| m.tcfg_writes());
    SimCpu::enter(1);
    csr.reset_stats();
    drop(pinned);
    assert_eq!(csr.stats().writes, 0, "core 1 must not stop core 3's timer");
    assert_eq!(csr.model(|m| m.tcfg_writes()), 0, "nor its own");
    SimCpu::enter(3);
    assert_eq!(csr.model(|m| m.tcfg_writes()), writes);
    assert!(!quiet(&clock, &csr));
}

#[test]
fn a_pinned_timer_given_back_on_its_core_still_stops_when_dropped() {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let (mut pinned, _time) = pair(csr.clone(), Config::default()).unwrap();
    pinned.set_next_event(100_000).unwrap();
    let timer = pinned.into_inner().ok().unwrap();
    drop(timer);
    assert!(quiet(&clock, &csr));
}
