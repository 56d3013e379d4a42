//! Timer *n* is CPU *n*'s clockevent (Linux pins its interrupt to CPU *n*).
//! Bound with `PerCpu::bind`, arming timer *n* from any other CPU is `Error::WrongCpu`
//! and writes nothing. Two threads act as two CPUs ([`SimCpu`]); the block is plain
//! memory behind an `Mmio` window (as the otto-malta firmware does in RAM), so the test
//! sees every write the driver makes and the bound events are really `Send`.

use hwtimer_core::sim::SimCpu;
use hwtimer_core::{ClockEvent, CpuMismatch, Error, Mmio};
use otto_timer::{BoundPerCpu, Config, OttoTimers, Soc};

fn block() -> (&'static [u32], &'static Mmio) {
    let words = Soc::Rtl838x.info().block_len() / 4;
    let mem: &'static mut [u32] = Box::leak(vec![0u32; words].into_boxed_slice());
    let base = mem.as_ptr() as usize;
    // SAFETY: `mem` is leaked (valid for the whole run), 4-byte aligned, `block_len`
    // bytes long, and from here on touched only through this window and volatile reads.
    let mmio: &'static Mmio = Box::leak(Box::new(unsafe { Mmio::new(base, words * 4) }));
    (mem, mmio)
}

fn snapshot(mem: &[u32]) -> Vec<u32> {
    // SAFETY: the leaked block, read as the hardware would be (volatile, aligned).
    mem.iter()
        .map(|w| unsafe { core::ptr::read_volatile(w) })
        .collect()
}

#[test]
fn each_cpu_arms_its_own_timer_only() {
    SimCpu::enter(0);
    let (mem, mmio) = block();
    let timers = OttoTimers::new(mmio, Config::new(Soc::Rtl838x)).unwrap();
    let BoundPerCpu {
        cpus: [mut cpu0, mut cpu1],
        clocksource,
    } = timers.per_cpu::<2>().unwrap().bind(SimCpu);
    assert_eq!((cpu0.event.owner(), cpu1.event.owner()), (0, 1));
    assert_eq!(clocksource.index(), 2);

    // On CPU 0: its own timer arms, CPU 1's refuses and writes nothing.
    let before = snapshot(mem);
    assert_eq!(cpu0.event.set_next_event(1_000), Ok(()));
    let armed0 = snapshot(mem);
    assert_ne!(armed0, before, "CPU 0's arm wrote timer 0");
    let wrong = Err(Error::WrongCpu(CpuMismatch::new(1, 0)));
    assert_eq!(cpu1.event.set_next_event(1_000), wrong);
    assert_eq!(cpu1.event.set_periodic(1_000), wrong);
    cpu1.event.shutdown();
    assert!(!cpu1.event.ack());
    assert_eq!(
        snapshot(mem),
        armed0,
        "nothing of timer 1 written from CPU 0"
    );

    // CPU 1 arms its own timer; CPU 0's refuses there.
    let (cpu0, armed1) = std::thread::scope(|s| {
        s.spawn(move || {
            SimCpu::enter(1);
            assert_eq!(cpu1.event.set_next_event(2_000), Ok(()));
            let armed1 = snapshot(mem);
            assert_ne!(armed1, armed0, "CPU 1's arm wrote timer 1");
            assert_eq!(
                cpu0.event.set_next_event(2_000),
                Err(Error::WrongCpu(CpuMismatch::new(0, 1)))
            );
            assert_eq!(
                snapshot(mem),
                armed1,
                "nothing of timer 0 written from CPU 1"
            );
            // Dropped on CPU 1, its own timer shuts down there.
            drop(cpu1);
            (cpu0, armed1)
        })
        .join()
        .unwrap()
    });
    assert_ne!(snapshot(mem), armed1, "CPU 1's drop shut timer 1 down");
    drop(cpu0);
    drop(clocksource);
}
