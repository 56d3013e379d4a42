//! Two host threads as two cores (`hwtimer_core::sim::SimCpu`) on one MCT: the shared
//! `G_TCON` / `G_INT_ENB` paths under the `Mct`'s shared-register lock.
//!
//! The bus is a thread-safe one in front of the same `MctModel` (`SimBus` is single-thread):
//! every access is one model access at the shared virtual time, which it advances by
//! 100 ns (read) or 50 ns (write). The model drops a buffered write made before the
//! previous write to the same register was acknowledged (`lost_writes`), so two cores whose
//! `G_TCON` write-and-wait sections interleaved would show a lost update there.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Mct, regs};
use hwtimer_core::sim::{SimClock, SimCpu, SimModel};
use hwtimer_core::{Claim, Claimed, ClockEvent, Error, RegisterBus};

/// What a `G_WSTAT` read found about the critical section (see [`SharedBus::probe`]).
#[derive(Debug, Default)]
struct Probe {
    armed: bool,
    /// A `G_WSTAT` read was made while this thread held a critical section.
    in_cs: Option<bool>,
}

#[derive(Clone)]
struct SharedBus {
    model: Arc<Mutex<MctModel>>,
    clock: SimClock,
    probe: Arc<Mutex<Probe>>,
    writes: Arc<AtomicU64>,
}

impl SharedBus {
    fn new(clock: &SimClock, model: MctModel) -> Self {
        Self {
            model: Arc::new(Mutex::new(model)),
            clock: clock.clone(),
            probe: Arc::new(Mutex::new(Probe::default())),
            writes: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Writes made through any clone so far.
    fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    fn model<R>(&self, f: impl FnOnce(&mut MctModel) -> R) -> R {
        f(&mut self.model.lock().unwrap())
    }

    /// Whether the calling thread holds a critical section (the interrupt mask of its
    /// core): another thread tries to enter one and reports whether it could within
    /// 200 ms (the binary links critical-section's `std` implementation, one global lock).
    fn in_critical_section() -> bool {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || critical_section::with(|_| tx.send(()).unwrap()));
        rx.recv_timeout(Duration::from_millis(200)).is_err()
    }
}

impl RegisterBus for SharedBus {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        if offset == regs::G_WSTAT_REG.offset() {
            let mut p = self.probe.lock().unwrap();
            if p.armed {
                p.armed = false;
                p.in_cs = Some(Self::in_critical_section());
            }
        }
        let now = self.clock.now_ns();
        let v = self.model(|m| m.read(now, offset));
        self.clock.advance(100);
        v
    }
    fn write_word(&self, offset: usize, value: u32) {
        self.writes.fetch_add(1, Ordering::Relaxed);
        let now = self.clock.now_ns();
        self.model(|m| m.write(now, offset, value));
        self.clock.advance(50);
        if offset == regs::G_TCON_REG.offset() {
            // The next status read is the wait for this write.
            let mut p = self.probe.lock().unwrap();
            if p.in_cs.is_none() {
                p.armed = true;
            }
        }
    }
}

impl Claim for SharedBus {
    type Block<const SPAN: usize> = Claimed<SharedBus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        Some(Claimed::new(self.clone(), base))
    }
}

/// Two cores arm and shut down their own global comparators at once, on a block that
/// acknowledges each buffered write 1 µs later, so every `G_TCON` change of one core
/// contends with the other's. No `G_TCON` write is lost, every call succeeds (or, when the
/// other core's section outlasts the bounded spin under host scheduling, reports
/// `Error::Busy` having written nothing and is retried), and the register ends as both
/// cores left it.
///
/// (On the host this passes with the old driver too: the test binary's `std`
/// critical-section implementation is one process-wide lock, so the old section that held
/// it across the wait excluded the other thread. On a core whose critical section masks
/// only its own interrupts, it did not; `g_tcon_wait_runs_outside_any_critical_section`
/// is the test that fails on the old driver.)
///
/// Run with each `Cores`: `Many` (the lock knows each thread's CPU: a core spins for the
/// other's section) and `One` (every lock found held is refused at once and retried).
#[test]
fn two_cores_arming_global_comparators_never_lose_a_g_tcon_write() {
    for cores in [
        exynos_mct::Cores::Many(SimCpu::current),
        exynos_mct::Cores::One,
    ] {
        two_cores_arming(Config {
            cores,
            ..Config::default()
        });
    }
}

fn two_cores_arming(config: Config) {
    let clock = SimClock::new();
    let bus = SharedBus::new(&clock, MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config).unwrap();
    mct.start_frc().unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(1_000)));
    let busy = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2u32)
            .map(|cpu| {
                let mct = &mct;
                s.spawn(move || {
                    SimCpu::enter(cpu);
                    let mut busy = 0u32;
                    // Taking the comparator writes G_TCON too: with `Cores::One` it is
                    // refused at once while the other core holds the lock.
                    let mut comp = loop {
                        match mct.comparator(cpu as usize) {
                            Err(Error::Busy) => busy += 1,
                            other => break other.unwrap(),
                        }
                    };
                    let mut retry = |f: &mut dyn FnMut() -> Result<(), Error>| loop {
                        match f() {
                            Err(Error::Busy) => busy += 1,
                            other => break other,
                        }
                    };
                    for _ in 0..200 {
                        retry(&mut || comp.set_next_event(240_000)).unwrap();
                        retry(&mut || comp.try_shutdown()).unwrap();
                    }
                    retry(&mut || comp.set_next_event(24_000_000)).unwrap();
                    std::mem::forget(comp); // leave it armed for the final check
                    busy
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum::<u32>()
    });
    println!("{:?}: Error::Busy retries: {busy}", config.cores);
    assert_eq!(bus.model(|m| m.lost_writes()), 0, "a G_TCON write was lost");
    assert!(bus.model(|m| m.comparator_enabled(0) && m.comparator_enabled(1)));
    let g_tcon = bus.read_word(regs::G_TCON_REG.offset());
    assert_eq!(
        g_tcon,
        regs::G_TCON::TIMER_ENABLE::SET.value
            | regs::g_tcon_comp_enable(0)
            | regs::g_tcon_comp_enable(1)
    );
    let enb = bus.read_word(regs::G_INT_ENB.offset());
    assert_eq!(enb, regs::g_int_comp(0) | regs::g_int_comp(1));
}

/// The `G_TCON` write's WSTAT wait runs with no critical section held, so another core (or
/// an interrupt on this one) is never held off for the wait, up to the 1–2 ms bound of a
/// block that does not acknowledge. (Before: the write, its wait and the clear ran inside
/// one critical section: the probe found it held during the wait.)
#[test]
fn g_tcon_wait_runs_outside_any_critical_section() {
    let clock = SimClock::new();
    let bus = SharedBus::new(
        &clock,
        MctModel::exynos4210().with_wstat(WstatMode::Delay(1_000)),
    );
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let found = bus.probe.lock().unwrap().in_cs;
    assert_eq!(
        found,
        Some(false),
        "the G_TCON wait held a critical section"
    );
}

/// Exynos4412-like block (local timer *n* on CPU *n*'s PPI), two threads as CPUs 0 and 1:
/// each takes its own local timer bound to itself ([`Mct::bound_local_timer`], the CPU map
/// is the identity), arms it, and only that CPU sees its interrupt on its PPI. A timer
/// bound to CPU 1 refuses every call on CPU 0 with `Error::WrongCpu` and touches nothing;
/// an unbound local timer is refused on a PPI SoC.
#[test]
fn ppi_local_timers_are_bound_to_their_cpu_and_interrupt_only_it() {
    use exynos_mct::LocalIrq;
    use hwtimer_core::sim::SimCpu;
    let clock = SimClock::new();
    let bus = SharedBus::new(&clock, MctModel::exynos4412());
    let config = bus.model(|m| m.driver_config());
    assert_eq!(config.local_irq, LocalIrq::Ppi);
    let mct = Mct::new(bus.clone(), config).unwrap();
    mct.start_frc().unwrap();
    assert_eq!(
        mct.local_timer(0).err(),
        Some(hwtimer_core::ConfigError::Capabilities.into()),
        "an unbound local timer on a PPI SoC"
    );
    std::thread::scope(|s| {
        for cpu in 0..2u32 {
            let mct = &mct;
            let bus = bus.clone();
            let clock = clock.clone();
            s.spawn(move || {
                SimCpu::enter(cpu);
                let mut t = mct.bound_local_timer(SimCpu).unwrap();
                assert_eq!(t.owner(), cpu);
                t.with(|t| assert_eq!(t.index(), cpu as usize)).unwrap();
                t.set_next_event(1_200 * (u64::from(cpu) + 1)).unwrap();
                // Wait (virtual time, both threads advance it) until this CPU's PPI rises.
                let mut seen = false;
                for _ in 0..10_000 {
                    if bus.model(|m| m.local_line_on_this_cpu(clock.now_ns(), &[])) {
                        seen = true;
                        break;
                    }
                    clock.advance(1_000);
                }
                assert!(seen, "CPU {cpu} never saw its local timer's PPI");
                assert!(t.ack());
                t.shutdown();
            });
        }
    });
    // Local timer 1 fires; CPU 0's PPI stays low, CPU 1's rises.
    SimCpu::enter(0);
    let mut t1 = mct.bind_local_timer(1, SimCpu).unwrap();
    let before = bus.model(|m| m.local_fires(1));
    SimCpu::enter(1);
    t1.set_next_event(1_200).unwrap();
    clock.advance(1_000_000);
    SimCpu::enter(0);
    assert!(!bus.model(|m| m.local_line_on_this_cpu(clock.now_ns(), &[])));
    match t1.set_next_event(1_200) {
        Err(Error::WrongCpu(_)) => {}
        other => panic!("CPU 1's timer armed from CPU 0: {other:?}"),
    }
    assert!(!t1.ack(), "CPU 0 acknowledged CPU 1's event");
    SimCpu::enter(1);
    assert!(bus.model(|m| m.local_line_on_this_cpu(clock.now_ns(), &[])));
    assert!(bus.model(|m| m.local_fires(1)) > before);
    assert!(t1.ack());
}

/// Exynos4210-like block (one SPI per local timer): the CPU map sends local timer 1 to CPU 0
/// and 0 to CPU 1 (`samsung,local-timers = <1 0>`); each CPU's timer interrupts the CPU its
/// SPI is routed to (the routing is the distributor's: `targets`).
#[test]
fn spi_local_timers_follow_the_cpu_map() {
    use exynos_mct::CpuMap;
    use hwtimer_core::sim::SimCpu;
    let clock = SimClock::new();
    let bus = SharedBus::new(&clock, MctModel::exynos4210());
    let map = CpuMap::from_slice(&[1, 0]).unwrap();
    let config = Config {
        cpu_map: map,
        ..bus.model(|m| m.driver_config())
    };
    let mct = Mct::new(bus.clone(), config).unwrap();
    mct.start_frc().unwrap();
    // SPI targets as the firmware sets GICD_ITARGETSR from the map.
    let targets = [map.cpu_of(0).unwrap(), map.cpu_of(1).unwrap()];
    assert_eq!(targets, [1, 0]);
    SimCpu::enter(0);
    let mut mine = mct.bound_local_timer(SimCpu).unwrap();
    mine.with(|t| assert_eq!(t.index(), 1)).unwrap();
    mine.set_next_event(1_200).unwrap();
    clock.advance(1_000_000);
    assert!(bus.model(|m| m.local_line_on_this_cpu(clock.now_ns(), &targets)));
    SimCpu::enter(1);
    assert!(!bus.model(|m| m.local_line_on_this_cpu(clock.now_ns(), &targets)));
    SimCpu::enter(0);
    assert!(mine.ack());
}

/// A local timer bound to CPU 1 and dropped on CPU 0 touches no register from CPU 0 (its
/// timer keeps running: quieting it would be CPU 0 writing CPU 1's timer) but gives its
/// claim back, so CPU 1 can take its timer again (which shuts it down first). (Before: the
/// value was forgotten whole, claim included, and the timer stayed `AlreadyTaken` for
/// ever.)
#[test]
fn a_bound_local_timer_dropped_on_another_cpu_writes_nothing_and_can_be_taken_again() {
    let clock = SimClock::new();
    let bus = SharedBus::new(&clock, MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    SimCpu::enter(0);
    let mut t1 = mct.bind_local_timer(1, SimCpu).unwrap();
    SimCpu::enter(1);
    t1.set_next_event(24_000).unwrap();
    assert!(bus.model(|m| m.local_running(1)));
    SimCpu::enter(0);
    let before = bus.writes();
    drop(t1);
    assert_eq!(
        bus.writes(),
        before,
        "dropped on CPU 0, it wrote CPU 1's timer"
    );
    assert!(
        bus.model(|m| m.local_running(1)),
        "dropped on CPU 0, it stopped CPU 1's timer"
    );
    SimCpu::enter(1);
    let t1 = mct.bound_local_timer(SimCpu);
    assert!(
        t1.is_ok(),
        "CPU 1's timer stays taken after a drop on CPU 0: {:?}",
        t1.err()
    );
    assert!(
        !bus.model(|m| m.local_running(1)),
        "taking it again shut it down"
    );
    SimCpu::enter(0);
}

/// Two cores re-arm their comparators at once, many times. A re-arm refused with `Busy`
/// leaves the comparator as it was (enabled, armed): only a call's first lock attempt is
/// refused at once, before anything is written; a later step of the same arm spins for the
/// other core. Before, with `Cores::One` a refusal at the arm's enable step (after its
/// disable and compare writes) left the comparator disabled: 126 of 153 refusals did.
///
/// The spin bound is raised far above what the other core's sections take, so that the
/// host's scheduler (which may stop a thread inside a section for longer than the default
/// bound, as no core of a SoC is stopped) cannot end a spin: every refusal left is an
/// at-once one.
#[test]
fn a_refused_rearm_leaves_the_comparator_armed() {
    for cores in [
        exynos_mct::Cores::One,
        exynos_mct::Cores::Many(SimCpu::current),
    ] {
        let clock = SimClock::new();
        let bus = SharedBus::new(&clock, MctModel::exynos4210());
        let mct = Mct::new(
            bus.clone(),
            Config {
                cores,
                wstat: exynos_mct::WstatConfig {
                    max_polls: 100_000_000,
                    ..exynos_mct::WstatConfig::default()
                },
                ..Config::default()
            },
        )
        .unwrap();
        mct.start_frc().unwrap();
        bus.model(|m| m.set_wstat_mode(WstatMode::Delay(1_000)));
        let (busy, disarmed) = std::thread::scope(|s| {
            let workers: Vec<_> = (0..2u32)
                .map(|cpu| {
                    let mct = &mct;
                    let bus = bus.clone();
                    s.spawn(move || {
                        SimCpu::enter(cpu);
                        let mut comp = loop {
                            if let Ok(c) = mct.comparator(cpu as usize) {
                                break c;
                            }
                        };
                        while comp.set_next_event(24_000_000).is_err() {}
                        let (mut busy, mut disarmed) = (0u32, 0u32);
                        for _ in 0..20_000 {
                            match comp.set_next_event(24_000_000) {
                                Err(Error::Busy) => {
                                    busy += 1;
                                    if !bus.model(|m| m.comparator_enabled(cpu as usize)) {
                                        disarmed += 1;
                                    }
                                    while comp.set_next_event(24_000_000).is_err() {}
                                }
                                other => other.unwrap(),
                            }
                        }
                        std::mem::forget(comp);
                        (busy, disarmed)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap())
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        });
        println!("{cores:?}: Busy {busy}, of which left the comparator disabled: {disarmed}");
        assert_eq!(
            disarmed, 0,
            "{cores:?}: a refused re-arm disabled an armed comparator"
        );
    }
}
