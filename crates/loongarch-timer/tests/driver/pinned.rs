//! `pinned`: the timer refuses to touch a core it was not created on, and the time base is
//! current and monotonic on every core. The model banks the timer CSRs per
//! [`SimCpu`] (the calling thread's core) and shares one stable counter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use hwtimer_core::sim::{IrqSource, SimClock, SimCpu};
use hwtimer_core::{
    Alarm, ClockEvent, CpuBound, CpuMismatch, Error, Fired, Monotonic, RegisterBusExt,
};
use loongarch_timer::csr::{CSR_ECFG, ECFG};
use loongarch_timer::pinned::{CounterOffset, PinnedCounter, PinnedTimer, pair, sync_counter};
use loongarch_timer::sim::{LoongArchCore, SimCsr, SmpCsr, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, Csr};

fn core3() -> (SimClock, SimCsr, PinnedTimer<SimCsr>, PinnedCounter<SimCsr>) {
    SimCpu::enter(3);
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let (timer, time) = pair(csr.clone(), Config::default()).unwrap();
    (clock, csr, timer, time)
}

#[test]
fn pair_pins_to_the_creating_core_and_enables_the_line() {
    let (_clock, csr, timer, time) = core3();
    assert_eq!((timer.core(), time.core()), (3, 3));
    assert!(timer.on_owner() && time.on_owner());
    assert_eq!(time.freq_hz(), 100_000_000);
    // ECFG.LIE bit 11, on core 3.
    assert!(csr.read(CSR_ECFG).is_set(ECFG::LIE_TI));
    SimCpu::enter(0);
    assert!(
        !csr.read(CSR_ECFG).is_set(ECFG::LIE_TI),
        "core 0's ECFG is its own"
    );
}

#[test]
fn on_the_owning_core_an_alarm_fires_never_early() {
    let (_clock, csr, timer, time) = core3();
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
    let (clock, csr, mut timer, _time) = core3();
    timer.set_next_event(2_000).unwrap();
    let writes = csr.model(|m| m.tcfg_writes());
    clock.advance(30_000); // past the expiry: TI latched on core 3
    SimCpu::enter(1);
    assert!(!timer.on_owner());
    let wrong = Err(Error::WrongCpu(CpuMismatch::new(3, 1)));
    assert_eq!(timer.set_next_event(2_000), wrong);
    assert_eq!(timer.set_periodic(2_000), wrong);
    assert_eq!(timer.check(), wrong.map(|_: ()| ()));
    timer.shutdown();
    assert!(!timer.ack(), "core 1 must not take core 3's TI");
    assert_eq!(timer.with(|t| t.is_pending()), None);
    assert_eq!(csr.model(|m| m.tcfg_writes()), 0, "core 1's TCFG untouched");
    // Back home: the TI latched meanwhile is still there, and the timer works.
    SimCpu::enter(3);
    assert_eq!(
        csr.model(|m| m.tcfg_writes()),
        writes,
        "core 3's TCFG untouched"
    );
    assert_eq!(timer.with(|t| t.is_pending()), Some(true));
    assert!(timer.ack());
    timer.set_next_event(2_000).unwrap();
    assert_eq!(csr.model(|m| m.tcfg_writes()), writes + 1);
    let timer = timer.into_inner();
    assert!(timer.is_ok());
}

#[test]
fn into_inner_elsewhere_gives_the_pinned_value_back() {
    let (_clock, _csr, timer, _time) = core3();
    SimCpu::enter(0);
    let Err(timer) = timer.into_inner() else {
        panic!("handed out on another core");
    };
    SimCpu::enter(3);
    assert!(timer.into_inner().is_ok());
}

/// A `now` that returned the owner's last reading on any other core would make time stand
/// still there (and a timeout computed there start in the past).
#[test]
fn on_another_core_time_advances_with_the_chip_counter() {
    let (clock, _csr, _timer, time) = core3();
    clock.advance(1_000_000);
    let seen = time.now();
    SimCpu::enter(1);
    clock.advance(1_000_000); // 1 ms = 100,000 ticks
    let elsewhere = time.now();
    assert!(
        elsewhere >= seen + 100_000,
        "core 1 reads current time: {elsewhere} after {seen}"
    );
    clock.advance(1_000_000);
    let later = time.now();
    assert!(later >= elsewhere + 100_000, "and it keeps advancing there");
    SimCpu::enter(3);
    assert!(
        time.now() >= later,
        "back on the creating core, never backwards"
    );
}

/// Two threads as two cores, on one chip: each arms its own timer (banked CSRs); each
/// timer fires on its own core only, and neither core can arm the other's.
#[test]
fn two_cores_each_timer_fires_only_its_own() {
    let clock = SimClock::new();
    let chip = SmpCsr::new(&clock, LoongArchCore::qemu_virt());
    SimCpu::enter(0);
    let (mut t0, _time0) = pair(chip.clone(), Config::default()).unwrap();
    t0.set_next_event(2_000).unwrap(); // 20 µs
    let step = Arc::new(Barrier::new(2));
    let (chip1, step1) = (chip.clone(), step.clone());
    let core1 = std::thread::spawn(move || {
        SimCpu::enter(1);
        let (mut t1, _time1) = pair(chip1.clone(), Config::default()).unwrap();
        t1.set_next_event(50_000).unwrap(); // 500 µs
        step1.wait(); // both armed
        step1.wait(); // core 0 moved the clock past its expiry only
        let early = (chip1.model(|m| m.fired(m_now(&chip1))), t1.ack());
        step1.wait();
        step1.wait(); // clock past core 1's expiry
        let late = (chip1.model(|m| m.fired(m_now(&chip1))), t1.ack());
        (early, late, t1)
    });
    step.wait();
    clock.advance(100_000); // 100 µs: core 0's expiry, not core 1's
    step.wait();
    assert_eq!(chip.model(|m| m.fired(m_now(&chip))), 1);
    assert!(t0.ack());
    step.wait();
    clock.advance(1_000_000);
    step.wait();
    let (early, late, mut t1) = core1.join().unwrap();
    assert_eq!(
        early,
        (0, false),
        "core 1's timer did not fire with core 0's"
    );
    assert_eq!(late, (1, true), "core 1's timer fired on core 1");
    assert_eq!(
        chip.model(|m| m.fired(m_now(&chip))),
        1,
        "core 1's expiry is not core 0's"
    );
    assert!(!t0.ack());
    // Core 1's timer, moved to core 0, refuses: nothing of core 0 is touched.
    assert_eq!(
        t1.set_next_event(2_000),
        Err(Error::WrongCpu(CpuMismatch::new(1, 0)))
    );
    assert_eq!(
        chip.model(|m| m.tcfg()) & 1,
        0,
        "core 0's timer stays stopped"
    );
}

fn m_now(chip: &SmpCsr) -> u64 {
    chip.clock().now_ns()
}

/// Two threads as two cores reading one `PinnedCounter` while their CNTC differ (core 1
/// runs 5,000 ticks behind): every read is at least every value any core read before it.
#[test]
fn cross_core_reads_never_go_backwards() {
    let clock = SimClock::new();
    let chip = SmpCsr::new(
        &clock,
        LoongArchCore::qemu_virt()
            .with_cntc_visible()
            .with_cntc(1, 5_000u64.wrapping_neg()),
    );
    SimCpu::enter(0);
    clock.advance(1_000_000);
    let (_timer, time) = pair(chip.clone(), Config::default()).unwrap();
    let seen = AtomicU64::new(0);
    std::thread::scope(|s| {
        for cpu in 0..2 {
            let (time, seen) = (&time, &seen);
            s.spawn(move || {
                SimCpu::enter(cpu);
                for _ in 0..2_000 {
                    let before = seen.load(Ordering::SeqCst);
                    let t = time.now();
                    assert!(t >= before, "core {cpu} read {t} after {before}");
                    seen.fetch_max(t, Ordering::SeqCst);
                }
            });
        }
    });
}

/// `CounterOffset` and `sync_counter` (Linux's `sync_counter`): cores whose CNTC differ
/// read one time after every core wrote the boot core's offset.
#[test]
fn sync_counter_aligns_cores_whose_cntc_differ() {
    SimCpu::enter(0);
    let clock = SimClock::new();
    let csr = sim_csr(
        &clock,
        LoongArchCore::qemu_virt()
            .with_cntc_visible()
            .with_cntc(1, 1_000_000),
    );
    clock.advance(10_000_000);
    let before0 = csr.rdtime();
    SimCpu::enter(1);
    let before1 = csr.rdtime();
    assert!(
        before1 > before0 + 900_000,
        "core 1 runs ahead before the sync"
    );
    SimCpu::enter(0);
    let offset = CounterOffset::capture(&csr);
    for cpu in [0, 1] {
        SimCpu::enter(cpu);
        // SAFETY: the model; no time base reads this core's counter yet.
        #[allow(unsafe_code, reason = "the CNTC write under test")]
        unsafe {
            sync_counter(&csr, offset)
        };
    }
    let after1 = csr.rdtime();
    SimCpu::enter(0);
    let after0 = csr.rdtime();
    assert!(
        after1 < 100 && after0 < 100,
        "both count from ~0: {after0}, {after1}"
    );
    assert!(after0 >= after1, "core 0 read later");
}

/// `ConstantTimer` is `CpuLocal`: hwtimer-core's `CpuBound` binds it to a core.
#[test]
fn a_cpu_bound_constant_timer_refuses_other_cores() {
    let clock = SimClock::new();
    let chip = SmpCsr::new(&clock, LoongArchCore::qemu_virt());
    SimCpu::enter(0);
    let freq = ConstantClock::probe(&chip).unwrap();
    let timer = ConstantTimer::new(chip.clone(), freq, Config::default()).unwrap();
    let mut bound = CpuBound::new(timer, SimCpu);
    assert_eq!(bound.set_next_event(2_000), Ok(()));
    let chip1 = chip.clone();
    let bound = std::thread::spawn(move || {
        SimCpu::enter(1);
        assert_eq!(
            bound.set_next_event(2_000),
            Err(Error::WrongCpu(CpuMismatch::new(0, 1)))
        );
        assert_eq!(
            chip1.model(|m| m.tcfg_writes()),
            0,
            "core 1's TCFG untouched"
        );
        bound
    })
    .join()
    .unwrap();
    assert_eq!(chip.model(|m| m.tcfg_writes()), 1, "core 0's one arm");
    drop(bound);
}
