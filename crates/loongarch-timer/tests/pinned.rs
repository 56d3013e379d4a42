//! `pinned`: the timer and counter refuse to touch a core they were not created on, and
//! the time base stays monotonic for readers on other cores.

use hwtimer_core::sim::{IrqSource, SimClock};
use hwtimer_core::{Alarm, ClockEvent, Error, Fired, Monotonic, RegisterBusExt};
use loongarch_timer::Config;
use loongarch_timer::csr::{CSR_ECFG, ECFG};
use loongarch_timer::pinned::{PinnedCounter, PinnedTimer, pair};
use loongarch_timer::sim::{LoongArchCore, SimCsr, sim_csr};

fn core0() -> (SimClock, SimCsr, PinnedTimer<SimCsr>, PinnedCounter<SimCsr>) {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt().with_core_id(3));
    let (timer, time) = pair(csr.clone(), Config::default()).unwrap();
    (clock, csr, timer, time)
}

fn run_on(csr: &SimCsr, core: u64) {
    csr.model(|m| m.set_core_id(core));
}

#[test]
fn pair_pins_to_the_creating_core_and_enables_the_line() {
    let (_clock, csr, timer, time) = core0();
    assert_eq!((timer.core(), time.core()), (3, 3));
    assert!(timer.on_owner() && time.on_owner());
    assert_eq!(time.freq_hz(), 100_000_000);
    // ECFG.LIE bit 11.
    assert!(csr.read(CSR_ECFG).is_set(ECFG::LIE_TI));
}

#[test]
fn on_the_owning_core_an_alarm_fires_never_early() {
    let (_clock, csr, timer, time) = core0();
    let mut alarm = Alarm::new(timer, time).unwrap();
    let deadline = alarm.time().now() + 5_000;
    alarm.set_deadline(deadline).unwrap();
    (&csr).advance_to_next().unwrap();
    match alarm.on_interrupt() {
        Fired::Deadline { now, .. } => assert!(now >= deadline),
        other => panic!("{other:?}"),
    }
}

#[test]
fn from_another_core_nothing_is_written_and_nothing_acknowledged() {
    let (clock, csr, mut timer, _time) = core0();
    timer.set_next_event(2_000).unwrap();
    let writes = csr.model(|m| m.tcfg_writes());
    clock.advance(30_000); // past the expiry: TI latched
    run_on(&csr, 1);
    assert!(!timer.on_owner());
    assert_eq!(timer.set_next_event(2_000), Err(Error::Unsupported));
    assert_eq!(timer.set_periodic(2_000), Err(Error::Unsupported));
    timer.shutdown();
    assert!(!timer.ack(), "core 1 must not take core 3's TI");
    assert_eq!(timer.with(|t| t.is_pending()), None);
    assert_eq!(csr.model(|m| m.tcfg_writes()), writes, "TCFG untouched");
    // Back home: the TI latched meanwhile is still there, and the timer works.
    run_on(&csr, 3);
    assert_eq!(timer.with(|t| t.is_pending()), Some(true));
    assert!(timer.ack());
    timer.set_next_event(2_000).unwrap();
    assert_eq!(csr.model(|m| m.tcfg_writes()), writes + 1);
    let timer = timer.into_inner();
    assert!(timer.is_ok());
}

#[test]
fn into_inner_elsewhere_gives_the_pinned_value_back() {
    let (_clock, csr, timer, _time) = core0();
    run_on(&csr, 0);
    let Err(timer) = timer.into_inner() else {
        panic!("handed out on another core");
    };
    run_on(&csr, 3);
    assert!(timer.into_inner().is_ok());
}

#[test]
fn elsewhere_time_is_what_the_owner_last_read_and_never_goes_backwards() {
    let (clock, csr, _timer, time) = core0();
    clock.advance(1_000_000);
    let seen = time.now();
    assert_eq!(time.last(), seen);
    clock.advance(1_000_000);
    run_on(&csr, 1);
    let reads = csr.stats().reads;
    let elsewhere = time.now();
    assert_eq!(elsewhere, seen, "core 1 gets core 3's last reading");
    // One CPUID read, no rdtime.d of core 1's own counter.
    assert_eq!(csr.stats().reads, reads + 1);
    run_on(&csr, 3);
    let later = time.now();
    assert!(later > elsewhere);
    run_on(&csr, 1);
    assert_eq!(time.now(), later);
}
