//! A firmware to start from: an embassy task on QEMU's LoongArch virt machine that sleeps on
//! the core's constant timer (`loongarch_timer::embassy::Driver`) and prints each wake.
#![no_std]
#![no_main]

use embassy_executor::Executor;
use embassy_time::{Duration, Instant, Timer};
use fw_common::loongarch::virt::{Uart0, power_off};
use fw_common::{loongarch, println};
use loongarch_timer::{Config, csr::NativeCsr, pinned::pair};

const WAKES: u32 = 5;
const PERIOD: Duration = Duration::from_millis(10);

fw_common::loongarch_board! {
    name: "template-loongarch-virt", console: Uart0, main: run, irq: on_irq, power_off: power_off,
}
fw_common::critical_section_impl!();
embassy_time_driver::time_driver_impl!(
    static DRIVER: loongarch_timer::embassy::Driver = loongarch_timer::embassy::Driver::new()
);
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();

/// Only the timer's line (ECFG.LIE bit 11) is enabled, so nothing else can be pending.
fn on_irq(_estat: u64) {
    DRIVER.on_interrupt(); // acknowledges the timer (TICLR)
}

#[embassy_executor::task]
async fn sleeper() {
    let start = Instant::now();
    for n in 1..=WAKES {
        Timer::at(start + PERIOD * n).await;
        println!(Uart0, "wake {n} at {} us", start.elapsed().as_micros());
    }
    loongarch::finish(Uart0, true, power_off)
}

fn run() -> bool {
    // SAFETY: PLV0 on the boot core, the only one running; this firmware touches the timer
    // CSRs only through the driver values built on it.
    let csr = unsafe { NativeCsr::new() };
    // The constant timer and the stable counter, pinned to this core, become embassy's time.
    if let Err(e) = pair(csr, Config::default()).and_then(|(t, c)| DRIVER.init_static(t, c)) {
        println!(Uart0, "time: {e}");
        return false;
    }
    println!(Uart0, "{WAKES} wakes, {} us apart", PERIOD.as_micros());
    // SAFETY: `on_irq` serves the one enabled interrupt; no critical section is held here.
    unsafe { loongarch::irq_enable() };
    let executor = EXECUTOR.init(Executor::new());
    executor.run(|spawner| spawner.spawn(sleeper().unwrap()))
}
