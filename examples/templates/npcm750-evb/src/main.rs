//! A firmware to start from: an embassy task on QEMU's npcm750-evb that sleeps on the
//! Cortex-A9 global timer (hwtimer-core's embassy `TimeDriver` on its comparator and
//! counter) and prints each wake.
#![no_std]
#![no_main]

use a9_global_timer::{Config, GlobalTimer, GtComparator, GtCounter, regs};
use embassy_executor::Executor;
use embassy_time::{Duration, Instant, Timer};
use fw_common::arm::npcm7xx::{self as board, GIC, Uart0};
use fw_common::{StaticCell, arm, println};
use hwtimer_core::cpu::{CpuBound, NativeCpu};
use hwtimer_core::{Error, Mmio, embassy::TimeDriver};

const WAKES: u32 = 5;
const PERIOD: Duration = Duration::from_millis(10);

fw_common::arm_board! { name: "template-npcm750", console: Uart0, main: run, irq: on_irq }
fw_common::critical_section_impl!();
/// The comparator registers are banked per core, so the driver (a `static`) holds CPU0's
/// through `CpuBound`: used from another core it touches nothing and reports `WrongCpu`.
type Driver =
    TimeDriver<CpuBound<GtComparator<'static, Mmio>, NativeCpu>, GtCounter<'static, Mmio>>;
embassy_time_driver::time_driver_impl!(static DRIVER: Driver = Driver::new());
static GT: StaticCell<GlobalTimer<Mmio>> = StaticCell::new();
static EXECUTOR: static_cell::StaticCell<Executor> = static_cell::StaticCell::new();

fn on_irq() {
    GIC.serve(&[(board::IRQ_GLOBAL_TIMER, || DRIVER.on_interrupt())]);
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

/// The global timer's counter and this core's comparator become embassy's time; its
/// interrupt (PPI 27) goes to `on_irq`.
fn start_time() -> Result<(), Error> {
    // SAFETY: the global timer's window in the MPCore region; this firmware is its only user
    // and only CPU0 runs it (the comparator registers are banked per core).
    let bus = unsafe { Mmio::new(regs::NPCM750_BASE, regs::WINDOW_LEN) };
    let gt = GT.init(GlobalTimer::new(bus, Config::qemu())?);
    gt.start()?;
    // SAFETY: SYS mode (PL1), where MPIDR can be read.
    let cpu = unsafe { NativeCpu::new() };
    DRIVER.init_static(CpuBound::new(gt.comparator()?, cpu), gt.counter())?;
    GIC.init();
    // Err only for an ID this GIC does not implement.
    GIC.enable(board::IRQ_GLOBAL_TIMER, 0xa0, 1)
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
