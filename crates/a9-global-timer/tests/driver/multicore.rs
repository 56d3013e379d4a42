//! Two threads as two cores (`SimCpu::enter`) on one `GtMpSim`: the shared counter and
//! control bits, the banked comparators, and the pre-fix shadow (`sim::seed`) failing the
//! same scenarios.

use std::sync::{Arc, Barrier};
use std::thread;

use a9_global_timer::sim::seed::StaleShadow;
use a9_global_timer::sim::{GtMpBus, GtMpSim};
use a9_global_timer::{Config, GlobalTimer, GtComparator, GtCounter};
use hwtimer_core::cpu::CpuBound;
use hwtimer_core::sim::SimCpu;
use hwtimer_core::{ClockEvent, CpuMismatch, Error, Mmio, Monotonic};

/// One core's driver in the scenarios: start and stop the counter, arm its comparator.
trait Core: Sized {
    fn build(bus: GtMpBus) -> Self;
    fn start(&mut self);
    fn stop(&mut self);
    fn arm(&mut self, at: u64);
}

/// This crate's driver: a `GlobalTimer` of the core's own (start, stop), and once the
/// comparator is taken, the driver leaked so the comparator can borrow it for good.
enum Ours {
    Owned(GlobalTimer<GtMpBus>),
    Arming(GtComparator<'static, GtMpBus>),
}

impl Core for Ours {
    fn build(bus: GtMpBus) -> Self {
        Ours::Owned(GlobalTimer::new(bus, Config::qemu()).unwrap())
    }
    fn start(&mut self) {
        match self {
            Ours::Owned(gt) => gt.start().unwrap(),
            Ours::Arming(_) => unreachable!("the scenarios start from a core that does not arm"),
        }
    }
    fn stop(&mut self) {
        match self {
            Ours::Owned(gt) => gt.stop(),
            Ours::Arming(_) => unreachable!("the scenarios stop from a core that does not arm"),
        }
    }
    fn arm(&mut self, at: u64) {
        if let Ours::Owned(_) = self {
            let Ours::Owned(gt) = std::mem::replace(self, Ours::Owned(dummy())) else {
                unreachable!()
            };
            let gt: &'static GlobalTimer<GtMpBus> = Box::leak(Box::new(gt));
            *self = Ours::Arming(gt.comparator().unwrap());
        }
        if let Ours::Arming(cmp) = self {
            cmp.set_compare(at).unwrap();
        }
    }
}

/// A placeholder driver on a model of its own (never accessed).
fn dummy() -> GlobalTimer<GtMpBus> {
    GlobalTimer::new(GtMpSim::qemu().bus(), Config::qemu()).unwrap()
}

/// The pre-fix shadow (`sim::seed`).
struct Seed(StaleShadow<GtMpBus>);

impl Core for Seed {
    fn build(bus: GtMpBus) -> Self {
        Seed(StaleShadow::new(bus, 0))
    }
    fn start(&mut self) {
        self.0.start();
    }
    fn stop(&mut self) {
        self.0.stop();
    }
    fn arm(&mut self, at: u64) {
        self.0.arm(at);
    }
}

/// Run `core0` on this thread as CPU 0 and `core1` on a thread as CPU 1, step by step:
/// step `k` of core 0 runs after step `k - 1` of core 1 and before step `k` of core 1.
fn lockstep<C: Core>(
    sim: &GtMpSim,
    steps: usize,
    core0: impl Fn(usize, &mut Option<C>, &GtMpSim),
    core1: impl Fn(usize, &mut Option<C>, &GtMpSim) + Send,
) {
    let barrier = Arc::new(Barrier::new(2));
    thread::scope(|s| {
        let b1 = Arc::clone(&barrier);
        let sim1 = sim.clone();
        s.spawn(move || {
            SimCpu::enter(1);
            let mut me = None;
            for k in 0..steps {
                b1.wait(); // core 0's step k done
                core1(k, &mut me, &sim1);
                b1.wait();
            }
        });
        SimCpu::enter(0);
        let mut me = None;
        for k in 0..steps {
            core0(k, &mut me, sim);
            barrier.wait();
            barrier.wait(); // core 1's step k done
        }
    });
}

/// Core 1 builds its driver and arms its comparator before core 0 starts the counter;
/// core 1 then arms again. Whether the counter still runs at the end.
fn arm_before_start<C: Core>() -> bool {
    let sim = GtMpSim::qemu();
    lockstep::<C>(
        &sim,
        3,
        |k, me, sim| match k {
            0 => {}
            1 => {
                let mut c = C::build(sim.bus());
                c.start();
                *me = Some(c);
            }
            _ => {}
        },
        |k, me, sim| match k {
            0 => {
                let mut c = C::build(sim.bus());
                c.arm(sim.counter() + 1_000_000);
                *me = Some(c);
            }
            2 => me.as_mut().unwrap().arm(sim.counter() + 2_000_000),
            _ => {}
        },
    );
    SimCpu::enter(0);
    let before = sim.counter();
    sim.clock().advance(10_000);
    sim.counter_running() && sim.counter() > before
}

/// Core 0 starts the counter, core 1 arms, core 0 stops the counter, core 1 arms again.
/// Whether the counter is stopped at the end (core 0's stop must hold).
fn stop_holds_while_the_other_core_arms<C: Core>() -> bool {
    let sim = GtMpSim::qemu();
    lockstep::<C>(
        &sim,
        3,
        |k, me, sim| match k {
            0 => {
                let mut c = C::build(sim.bus());
                c.start();
                *me = Some(c);
            }
            1 => me.as_mut().unwrap().stop(),
            _ => {}
        },
        |k, me, sim| match k {
            0 => {
                let mut c = C::build(sim.bus());
                c.arm(sim.counter() + 1_000_000);
                *me = Some(c);
            }
            1 => me.as_mut().unwrap().arm(sim.counter() + 2_000_000),
            _ => {}
        },
    );
    let before = sim.counter();
    sim.clock().advance(10_000);
    !sim.counter_running() && sim.counter() == before
}

#[test]
fn a_comparator_armed_before_the_counter_starts_does_not_stop_it() {
    assert!(arm_before_start::<Ours>());
}

#[test]
fn a_stop_on_one_core_is_not_undone_by_the_other_cores_arm() {
    assert!(stop_holds_while_the_other_core_arms::<Ours>());
}

#[test]
fn the_seed_shadow_fails_both_scenarios() {
    // The pre-fix strategy: core 1's stale copy stops the counter core 0 started, and
    // restarts the counter core 0 stopped.
    assert!(!arm_before_start::<Seed>());
    assert!(!stop_holds_while_the_other_core_arms::<Seed>());
}

#[test]
fn concurrent_arming_and_starting_never_stop_the_counter() {
    // Core 1 arms over and over while core 0 starts the counter over and over (a start
    // is a read-modify-write of the same register): the counter runs throughout and core
    // 1's comparator stays enabled.
    let sim = GtMpSim::qemu();
    let gt0 = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    SimCpu::enter(0);
    gt0.start().unwrap();
    thread::scope(|s| {
        s.spawn(|| {
            SimCpu::enter(1);
            let gt1 = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
            let mut cmp = gt1.comparator().unwrap();
            let time = gt1.counter();
            for _ in 0..2_000 {
                cmp.set_compare(time.now() + 1_000_000).unwrap();
                assert!(sim.counter_running());
            }
            // Core 1's comparator still enabled, its interrupt due.
            assert!(sim.next_irq_ns().is_some());
            std::mem::forget(cmp); // keep it armed for core 0's check below
        });
        for _ in 0..2_000 {
            gt0.start().unwrap();
            assert!(sim.counter_running());
        }
    });
    assert!(sim.counter_running());
}

#[test]
fn each_core_sees_only_its_own_event() {
    let sim = GtMpSim::qemu();
    SimCpu::enter(0);
    let gt0 = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    gt0.start().unwrap();
    let mut cmp0 = gt0.comparator().unwrap();
    let base = sim.counter();
    cmp0.set_compare(base + 1_000).unwrap();
    let b = Arc::new(Barrier::new(2));
    thread::scope(|s| {
        let b1 = Arc::clone(&b);
        let sim1 = &sim;
        s.spawn(move || {
            SimCpu::enter(1);
            let gt1 = GlobalTimer::new(sim1.bus(), Config::qemu()).unwrap();
            let mut cmp1 = gt1.comparator().unwrap();
            cmp1.set_compare(base + 50_000).unwrap();
            // Core 1's line is due at its own value, not at core 0's.
            let due = sim1.next_irq_ns().unwrap();
            // (50_000 ticks at 100 MHz: 500 µs ahead; core 0's value is 10 µs ahead.)
            let now = sim1.clock().now_ns();
            assert!(due >= now + 400_000, "{due} {now}");
            b1.wait(); // armed
            b1.wait(); // core 0's event fired and was acknowledged
            assert!(!cmp1.is_pending(), "core 0's event seen on core 1");
            sim1.clock().advance_to(due);
            assert!(cmp1.is_pending());
            assert!(cmp1.ack());
            b1.wait(); // core 1's event handled
        });
        b.wait();
        sim.clock().advance_to(sim.next_irq_ns().unwrap());
        assert!(cmp0.is_pending());
        assert!(cmp0.ack() && !cmp0.ack());
        b.wait();
        b.wait();
        // Core 1's event did not show on core 0.
        assert!(!cmp0.is_pending());
        assert_eq!(sim.model(|m| m.flag_sets()), 1);
    });
}

#[test]
fn a_bound_comparator_refuses_the_wrong_cpu() {
    let sim = GtMpSim::qemu();
    SimCpu::enter(1);
    let gt: &'static GlobalTimer<GtMpBus> = Box::leak(Box::new(
        GlobalTimer::new(sim.bus(), Config::qemu()).unwrap(),
    ));
    gt.start().unwrap();
    let mut bound = CpuBound::new(gt.comparator().unwrap(), SimCpu);
    assert_eq!(bound.owner(), 1);
    assert_eq!(bound.set_next_event(1_000), Ok(()));
    let mut bound = thread::spawn(move || {
        SimCpu::enter(0);
        let before = sim.model(|m| (m.control(), m.comparator()));
        assert_eq!(
            bound.set_next_event(1_000),
            Err(Error::WrongCpu(CpuMismatch::new(1, 0)))
        );
        // Core 0's bank untouched.
        assert_eq!(sim.model(|m| (m.control(), m.comparator())), before);
        bound
    })
    .join()
    .unwrap();
    assert_eq!(bound.set_next_event(1_000), Ok(()));
}

#[test]
fn the_shared_parts_are_sync_and_a_bound_comparator_is_too() {
    fn sync<T: Sync + Send>() {}
    sync::<GtCounter<'static, Mmio<u32>>>();
    sync::<GlobalTimer<Mmio<u32>>>();
    sync::<CpuBound<GtComparator<'static, Mmio<u32>>, SimCpu>>();
    sync::<GtCounter<'static, GtMpBus>>();
}

#[test]
fn concurrent_counter_reads_never_go_backwards() {
    // Near a carry out of the low word, so the hi-lo-hi read is exercised from both cores.
    let sim = GtMpSim::with_model(
        a9_global_timer::sim::GtModel::qemu().with_counter(0xFFFF_F000),
        100,
        50,
    );
    let gt = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    gt.start().unwrap();
    let time = gt.counter();
    let latest = std::sync::atomic::AtomicU64::new(0);
    thread::scope(|s| {
        for cpu in 0..2 {
            let latest = &latest;
            s.spawn(move || {
                SimCpu::enter(cpu);
                let mut last = 0;
                for _ in 0..5_000 {
                    // A value another core read before this read began.
                    let seen = latest.load(std::sync::atomic::Ordering::SeqCst);
                    let now = time.read64();
                    assert!(now >= last && now >= seen, "{now:#x} < {last:#x}/{seen:#x}");
                    last = now;
                    latest.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
    });
    assert!(time.read64() > 0x1_0000_0000, "the carry was crossed");
}

#[test]
fn a_second_cores_start_cannot_change_a_running_prescaler() {
    // Both cores build their driver while the counter is stopped (so `new` has nothing to
    // compare with), core 0 at prescaler 0 and core 1 at prescaler 3. Core 0 starts the
    // counter; core 1's start must then leave the shared prescaler alone: core 0's
    // `GtCounter` converts at 100 MHz and would run at a quarter of that otherwise.
    let sim = GtMpSim::qemu();
    SimCpu::enter(0);
    let gt0 = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    let gt1 = thread::scope(|s| {
        s.spawn(|| {
            SimCpu::enter(1);
            GlobalTimer::new(sim.bus(), Config::qemu().with_prescaler(3)).unwrap()
        })
        .join()
        .unwrap()
    });
    assert_eq!(gt0.start(), Ok(()));
    let prescaler = |sim: &GtMpSim| (sim.model(|m| m.control()) >> 8) & 0xFF;
    assert_eq!(prescaler(&sim), 0);
    let control = sim.model(|m| m.control());
    let refused = thread::scope(|s| {
        s.spawn(|| {
            SimCpu::enter(1);
            gt1.start()
        })
        .join()
        .unwrap()
    });
    assert_eq!(
        prescaler(&sim),
        0,
        "core 1's start changed the prescaler under core 0's running counter"
    );
    assert_eq!(sim.model(|m| m.control()), control);
    assert_eq!(
        refused,
        Err(Error::Config(
            hwtimer_core::ConfigError::ConflictsWithRunning
        ))
    );
    // Core 0's counter still advances at its configured rate: 1 µs is 100 ticks.
    let before = sim.counter();
    sim.clock().advance(1_000);
    assert_eq!(sim.counter() - before, 100);
    // The same start on a matching configuration is accepted and touches nothing shared.
    let gt1b = GlobalTimer::new(sim.bus(), Config::qemu()).unwrap();
    assert_eq!(gt1b.start(), Ok(()));
    assert!(sim.counter_running());
    // Once stopped, a core may start the counter at its own prescaler.
    let mut gt0 = gt0;
    gt0.stop();
    thread::scope(|s| {
        s.spawn(|| {
            SimCpu::enter(1);
            assert_eq!(gt1.start(), Ok(()));
        });
    });
    assert_eq!(prescaler(&sim), 3);
}
