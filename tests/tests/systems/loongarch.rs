//! A LoongArch core on the model: `rdtime.d` as the time base, the constant timer driving
//! the core's timer queue, async sleeps woken from the timer interrupt.

use embedded_hal_async::delay::DelayNs;
use hwtimer_core::sim::{SimClock, run_virtual};
use hwtimer_core::{Alarm, AsyncDelay, HrTimers, Monotonic, Restart};
use loongarch_timer::sim::{LoongArchCore, sim_csr};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

#[test]
fn async_sleeps_on_the_constant_timer_are_never_early_and_clamped_to_min_delta() {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    let freq = ConstantClock::probe(&csr).unwrap();
    let time = StableCounter::new(csr.clone(), freq);
    let timer = ConstantTimer::new(csr.clone(), freq, Config::DEFAULT).unwrap();
    let timers: HrTimers<_, _, 4> = HrTimers::new(Alarm::new(timer, &time).unwrap());
    let out = run_virtual(
        async {
            let mut d = AsyncDelay::new(&timers);
            let mut took = Vec::new();
            for us in [5u32, 10, 100, 1000] {
                let t0 = time.now();
                d.delay_us(us).await;
                took.push((us, time.now() - t0));
            }
            took
        },
        &csr,
        100,
        || {
            timers.on_interrupt(|_, _| Restart::No).unwrap();
        },
    )
    .expect("completes");
    for (us, ticks) in out {
        let want = u64::from(us) * 100; // 100 MHz
        assert!(ticks >= want, "{us} µs took {ticks} ticks: early");
        // min_delta 1000 ticks clamps the 5 µs sleep to 10 µs; others within rounding.
        let bound = want.max(1000) + 8;
        assert!(ticks <= bound, "{us} µs took {ticks} ticks (bound {bound})");
    }
}
