//! A whole Otto system on the model: timer 2 as the continuous clocksource extended to 64
//! bits, timer 0 as CPU 0's clockevent driving the core's timer queue, async sleeps and a
//! bounded poll on a device register, all in one virtual time.

use embedded_hal_async::delay::DelayNs;
use family_tests::{assert_on_time, order, run_timers, start_timers};
use hwtimer_core::sim::model::Behaviour;
use hwtimer_core::sim::{RegisterFile, SimBus};
use hwtimer_core::{
    Alarm, AsyncDelay, Extended, HrTimers, Monotonic, Poller, RegisterBus, Restart,
};
use otto_timer::sim::OttoSim;
use otto_timer::{Config, OttoClocksource, OttoTimers, PerCpu, Soc};

type Bus = SimBus<otto_timer::sim::OttoModel>;
type Time = &'static Extended<OttoClocksource<Bus>>;
type Timers = HrTimers<otto_timer::OttoClockEvent<Bus>, Time, 8>;

/// CPU 0's clockevent and the clocksource of an RTL838x, wired as Linux wires them.
fn system() -> (OttoSim, Time, Timers) {
    let sim = OttoSim::new(Soc::Rtl838x);
    let PerCpu {
        cpus: [cpu0],
        clocksource,
    } = OttoTimers::new(sim.bus(), Config::new(Soc::Rtl838x))
        .unwrap()
        .per_cpu::<1>()
        .unwrap();
    let time: Time = Box::leak(Box::new(Extended::new(clocksource)));
    let alarm = Alarm::new(cpu0.event, time).unwrap();
    (sim, time, HrTimers::new(alarm))
}

#[test]
fn callback_timers_run_in_order_and_never_early_on_the_otto_clockevent() {
    let (sim, time, timers) = system();
    let base = time.now();
    // Deadlines in 320 ns ticks: 100 µs, 10 µs, 1 ms, 10 µs again, 3 µs (below min_delta).
    let offsets = [312u64, 31, 3125, 31, 9];
    start_timers(&timers, base, &offsets);
    let ran = run_timers(&timers, offsets.len(), 100, || {
        sim.advance_to_next_irq(0).is_some()
    });
    assert_eq!(order(&ran), vec![4, 1, 3, 0, 2]);
    // Late by at most min_delta (8 ticks) plus margin and the reads of the handler.
    assert_on_time(&ran, base, &offsets, 12);
}

#[test]
fn async_sleep_and_bounded_poll_share_the_otto_time_base() {
    let (sim, time, timers) = system();
    // A device with a busy bit that clears 40 µs after it is set, on the same clock.
    let dev = SimBus::new(
        sim.clock(),
        RegisterFile::new(4).with(
            0,
            Behaviour::Busy {
                mask: 1,
                clear_after_ns: 40_000,
            },
        ),
    );
    dev.write_word(0, 1);
    let t0 = sim.clock().now_ns();
    let polled = Poller::new(time.source())
        .timeout_ms(1)
        .poll(|| dev.read_word(0), |v| v & 1 == 0)
        .unwrap();
    let waited = sim.clock().now_ns() - t0;
    assert!((40_000..41_000).contains(&waited), "{waited} ns");
    assert!(polled.polls >= 2);

    // An async 250 µs sleep completes from the Otto interrupt, never early.
    let start = time.now();
    let mut fut = Box::pin(async {
        AsyncDelay::new(&timers).delay_us(250).await;
    });
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut interrupts = 0;
    while fut.as_mut().poll(&mut cx).is_pending() {
        sim.advance_to_next_irq(0)
            .expect("the sleep armed the clockevent");
        timers.on_interrupt(|_, _| Restart::No).unwrap();
        interrupts += 1;
        assert!(interrupts < 5);
    }
    let slept = time.now() - start;
    assert!(slept >= 782, "250 µs is 781.25 ticks; slept {slept}");
    // The handler that woke it then arms the idle keep-alive (a time-base read and the
    // Otto arm sequence, in MMIO time) before the sleep's poll reads the time again.
    assert!(slept <= 782 + 6, "slept {slept}");
}
