//! A firmware to start from: an embassy task on QEMU's smdkc210 that sleeps on the Exynos
//! MCT (`exynos_mct::embassy::Driver`: comparator 0 and the FRC) and prints each wake.
#![no_std]
#![no_main]

use embassy_executor::Executor;
use embassy_time::{Duration, Instant, Timer};
use exynos_mct::{Config, Mct, regs};
use fw_common::arm::exynos4210::{self as board, GIC, Uart0};
use fw_common::{StaticCell, arm, println};
use hwtimer_core::{Error, Mmio};

const WAKES: u32 = 5;
const PERIOD: Duration = Duration::from_millis(10);

fw_common::arm_board! { name: "template-smdkc210", console: Uart0, main: run, irq: on_irq }
fw_common::critical_section_impl!();
embassy_time_driver::time_driver_impl!(
    static DRIVER: exynos_mct::embassy::Driver = exynos_mct::embassy::Driver::new()
);
static MCT: StaticCell<Mct<Mmio>> = StaticCell::new();
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();

fn on_irq() {
    GIC.serve(&[(board::IRQ_MCT_G0, || DRIVER.on_interrupt())]);
}

#[embassy_executor::task]
async fn sleeper() {
    let start = Instant::now();
    for n in 1..=WAKES {
        Timer::at(start + PERIOD * n).await;
        println!(Uart0, "wake {n} at {} us", start.elapsed().as_micros());
    }
    arm::finish(Uart0, true)
}

/// The MCT's FRC and comparator 0 become embassy's time; its interrupt goes to `on_irq`.
fn start_time() -> Result<(), Error> {
    // SAFETY: the MCT's register window; this firmware is its only user.
    let bus = unsafe { Mmio::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
    let mct = MCT.init(Mct::new(bus, Config::default())?);
    mct.start_frc()?;
    DRIVER.init_static(mct.comparator(0)?, mct.time())?;
    GIC.init();
    // Err only for an ID this GIC does not implement.
    GIC.enable(board::IRQ_MCT_G0, 0xa0, 1)
        .map_err(|_| Error::Unsupported)?;
    Ok(())
}

fn run() -> bool {
    // SAFETY: first thing, once, MMU off, no DMA (the executor wants RAM as Normal memory).
    unsafe { board::enable_mmu() };
    if let Err(e) = start_time() {
        println!(Uart0, "time: {e}");
        return false;
    }
    println!(Uart0, "{WAKES} wakes, {} us apart", PERIOD.as_micros());
    // SAFETY: `on_irq` serves every interrupt; no critical section is held here.
    unsafe { arm::irq_enable() };
    let executor = EXECUTOR.init(Executor::new());
    executor.run(|spawner| spawner.spawn(sleeper().unwrap()))
}
