//! A firmware to start from: an embassy task on QEMU's Malta that sleeps on the Otto timer
//! (`otto_timer::embassy::Driver`) of an RTL838x block played in RAM, and prints each wake.
#![no_std]
#![no_main]
// `mips_board!` expands to `global_asm!`, still unstable on MIPS.
#![feature(asm_experimental_arch)]

use embassy_executor::Executor;
use embassy_time::{Duration, Instant, Timer};
use fw_common::mips::{self, BootArgs, malta::Uart, otto_ram::OttoRam};
use fw_common::{StaticCell, println, yield_now};
use hwtimer_core::{Error, Extended, Mmio};
use otto_timer::{Config, OttoClocksource, OttoTimers, PerCpu, Soc};

const WAKES: u32 = 5;
const PERIOD: Duration = Duration::from_millis(10);

fw_common::mips_board! { name: "template-malta", console: Uart, main: run }
fw_common::critical_section_impl!();
embassy_time_driver::time_driver_impl!(
    static DRIVER: otto_timer::embassy::Driver = otto_timer::embassy::Driver::new()
);
static BLOCK: StaticCell<Mmio> = StaticCell::new();
static TIME: StaticCell<Extended<OttoClocksource<&'static Mmio>>> = StaticCell::new();
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();

/// The hardware QEMU lacks: counts, expiries, and the interrupt as a call. On a switch the
/// block is real and timer 0's interrupt calls `DRIVER.on_interrupt()` instead (which needs
/// an interrupt entry: `mips_board!` has none yet, every exception is fatal).
#[embassy_executor::task]
async fn otto_in_ram(mut otto: OttoRam) {
    loop {
        if otto.step() {
            DRIVER.on_interrupt(); // acknowledges timer 0 (INT.IP)
        }
        yield_now().await;
    }
}

#[embassy_executor::task]
async fn sleeper() {
    let start = Instant::now();
    for n in 1..=WAKES {
        Timer::at(start + PERIOD * n).await;
        println!(Uart, "wake {n} at {} us", start.elapsed().as_micros());
    }
    mips::finish(Uart, true)
}

/// RTL838x timer 0 (CPU 0's clockevent) and timer 1 (the clocksource, extended to 64
/// bits) become embassy's time, on the RAM window at `window`.
fn start_time(window: usize) -> Result<(), Error> {
    let soc = Soc::Rtl838x;
    // SAFETY: RAM that link.x reserves for the window, uncached; only the driver and the
    // player use it.
    let block = BLOCK.init(unsafe { Mmio::new(window, soc.info().block_len()) });
    let PerCpu {
        cpus: [cpu0],
        clocksource,
    } = OttoTimers::new(&*block, Config::new(soc))?.per_cpu::<1>()?;
    let time = TIME.init(Extended::new(clocksource));
    DRIVER.init_static(cpu0.event, time)
}

fn run(_boot: &BootArgs) -> bool {
    let window = OttoRam::linker_window();
    if let Err(e) = start_time(window) {
        println!(Uart, "time: {e}");
        return false;
    }
    println!(Uart, "{WAKES} wakes, {} us apart", PERIOD.as_micros());
    let info = Soc::Rtl838x.info();
    // SAFETY: the window `start_time` gave the driver, used by nothing else.
    let otto = unsafe { OttoRam::new(window, info.timers, info.bus_clock_hz) };
    let executor = EXECUTOR.init(Executor::new());
    executor.run(|spawner| {
        spawner.spawn(otto_in_ram(otto).unwrap());
        spawner.spawn(sleeper().unwrap());
    })
}
