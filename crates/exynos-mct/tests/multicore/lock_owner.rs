//! The shared-register lock on the core that holds it: an interrupt handler that arms a
//! comparator while the context it interrupted is inside a `G_TCON` section (holding the
//! `Mct`'s lock, in its `G_WSTAT` wait) is refused at once, with no register access, and
//! leaves its comparator as it was.
//!
//! The "interrupt" is a hook the bus runs on the first `G_WSTAT` read after a `G_TCON`
//! write: that read is the holder's wait, so the hook runs on the holder's thread (the same
//! simulated CPU) with the lock held, as a handler on the holder's core does.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Config, Cores, Mct, regs};
use hwtimer_core::sim::{MmioStats, SimBus, SimClock, SimCpu};
use hwtimer_core::{Claim, Claimed, ClockEvent, Error, RegisterBus};

type Hook = Box<dyn FnOnce()>;

/// A [`SimBus`] that runs a hook (the interrupt) inside the first `G_WSTAT` wait after a
/// `G_TCON` write, and counts `G_WSTAT` reads.
#[derive(Clone)]
struct IrqBus {
    inner: SimBus<MctModel>,
    hook: Rc<RefCell<Option<Hook>>>,
    after_g_tcon: Rc<Cell<bool>>,
    g_wstat_reads: Rc<Cell<u64>>,
}

impl IrqBus {
    fn new(clock: &SimClock, model: MctModel) -> Self {
        Self {
            inner: SimBus::new(clock, model),
            hook: Rc::new(RefCell::new(None)),
            after_g_tcon: Rc::new(Cell::new(false)),
            g_wstat_reads: Rc::new(Cell::new(0)),
        }
    }
}

impl RegisterBus for IrqBus {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        if offset == regs::G_WSTAT_REG.offset() {
            self.g_wstat_reads.set(self.g_wstat_reads.get() + 1);
            if self.after_g_tcon.replace(false) {
                let hook = self.hook.borrow_mut().take();
                if let Some(irq) = hook {
                    irq();
                }
            }
        }
        self.inner.read_word(offset)
    }
    fn write_word(&self, offset: usize, value: u32) {
        self.inner.write_word(offset, value);
        if offset == regs::G_TCON_REG.offset() {
            self.after_g_tcon.set(true);
        }
    }
}

impl Claim for IrqBus {
    type Block<const SPAN: usize> = Claimed<IrqBus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        Some(Claimed::new(self.clone(), base))
    }
}

/// What the interrupt saw: its result, and the `G_WSTAT` reads and all accesses it made.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    result: Option<Result<(), Error>>,
    g_wstat_reads: u64,
    accesses: MmioStats,
}

/// Comparator 0 arms from the interrupted context on CPU 1 (on a block that acknowledges a
/// buffered write 1 µs late, so its `G_TCON` wait lasts several reads); the interrupt, on
/// the same CPU, arms comparator 1 (already armed once, far ahead). Returns what the
/// interrupt saw, and the holder's result.
fn interrupt_on_the_holders_core(
    config: Config,
    irq_arm: fn(&mut exynos_mct::Comparator<'static, IrqBus>) -> Result<(), Error>,
) -> (Seen, Result<(), Error>, SimBus<MctModel>) {
    SimCpu::enter(1);
    let clock = SimClock::new();
    let bus = IrqBus::new(&clock, MctModel::exynos4210());
    let mct: &'static Mct<IrqBus> = Box::leak(Box::new(Mct::new(bus.clone(), config).unwrap()));
    mct.start_frc().unwrap();
    let mut comp0 = mct.comparator(0).unwrap();
    let mut comp1 = mct.comparator(1).unwrap();
    comp1.set_next_event(24_000_000).unwrap();
    bus.inner
        .model(|m| m.set_wstat_mode(WstatMode::Delay(1_000)));
    let seen = Rc::new(Cell::new(Seen::default()));
    {
        let seen = seen.clone();
        let bus2 = bus.clone();
        *bus.hook.borrow_mut() = Some(Box::new(move || {
            let reads0 = bus2.g_wstat_reads.get();
            let (result, accesses) = bus2.inner.counted(|| irq_arm(&mut comp1));
            seen.set(Seen {
                result: Some(result),
                g_wstat_reads: bus2.g_wstat_reads.get() - reads0,
                accesses,
            });
            std::mem::forget(comp1); // keep it as the interrupt left it
        }));
    }
    let holder = comp0.set_next_event(240_000);
    assert!(bus.hook.borrow().is_none(), "the interrupt never ran");
    std::mem::forget(comp0); // leave it armed for the caller's check
    (seen.get(), holder, bus.inner.clone())
}

/// Before the owner was recorded, the interrupt spun the whole bound
/// (`4 × max_polls + 16` = 40 016 `G_WSTAT` reads at the default 10 000 polls) for a holder
/// that could not run until it returned, then got `Busy`. Now: `Busy` at once, no
/// `G_WSTAT` read, and not one register written (comparator 1 stays armed as it was).
/// Both ways of telling the lock which CPU a call runs on.
fn both_cores() -> [(&'static str, Config); 2] {
    [
        ("Cores::One (the default)", Config::default()),
        (
            "Cores::Many(SimCpu::current)",
            Config {
                cores: Cores::Many(SimCpu::current),
                ..Config::default()
            },
        ),
    ]
}

#[test]
fn an_interrupt_on_the_holders_core_is_refused_at_once_and_writes_nothing() {
    for (what, config) in both_cores() {
        let (seen, holder, model_bus) =
            interrupt_on_the_holders_core(config, |c| c.set_next_event(2_400));
        println!(
            "{what}: the interrupt's arm: {:?} after {} G_WSTAT reads, {:?}",
            seen.result, seen.g_wstat_reads, seen.accesses
        );
        assert_eq!(seen.result, Some(Err(Error::Busy)), "{what}");
        assert_eq!(
            seen.g_wstat_reads, 0,
            "{what}: the refused arm spun on the lock"
        );
        assert_eq!(
            seen.accesses.writes, 0,
            "{what}: the refused arm wrote a register"
        );
        // set_next_event reads the FRC (hi-lo-hi, 3 reads) before it takes the lock.
        assert!(seen.accesses.reads <= 3, "{what}: {:?}", seen.accesses);
        assert_eq!(holder, Ok(()), "{what}: the interrupted holder's arm");
        // Comparator 1 stays as it was: enabled, at its earlier value 1 s ahead; the
        // holder's comparator 0 is enabled too (read once the last write has landed).
        model_bus.clock().advance(10_000);
        let g_tcon = model_bus.read_word(regs::G_TCON_REG.offset());
        assert_eq!(
            g_tcon,
            regs::G_TCON::TIMER_ENABLE::SET.value
                | regs::g_tcon_comp_enable(0)
                | regs::g_tcon_comp_enable(1),
            "{what}"
        );
        assert!(
            model_bus.model(|m| m.comparator_value(1)) >= Some(24_000_000),
            "{what}"
        );
        assert_eq!(model_bus.model(|m| m.lost_writes()), 0, "{what}");
    }
}

/// The same for an absolute compare (what the runtime adapters program): refused at once,
/// not one register access.
#[test]
fn every_locked_call_of_an_interrupt_on_the_holders_core_is_refused_at_once() {
    let (seen, holder, _) =
        interrupt_on_the_holders_core(Config::default(), |c| c.set_compare(48_000_000));
    assert_eq!(
        (seen.result, seen.g_wstat_reads, seen.accesses),
        (Some(Err(Error::Busy)), 0, MmioStats::default())
    );
    assert_eq!(holder, Ok(()));
}

/// A shutdown from an interrupt on the holder's core is refused at its first lock attempt
/// and writes nothing: comparator 1 stays enabled and unmasked, its status untouched.
/// Before, the refused shutdown still cleared `G_INT_CSTAT` (1 write), dropping a pending
/// event of a comparator it had not stopped.
#[test]
fn a_shutdown_refused_at_once_writes_nothing() {
    for (what, config) in both_cores() {
        let (seen, holder, _model_bus) =
            interrupt_on_the_holders_core(config, |c| c.try_shutdown());
        assert_eq!(seen.result, Some(Err(Error::Busy)), "{what}");
        assert_eq!(seen.g_wstat_reads, 0, "{what}: the refused shutdown spun");
        assert_eq!(
            seen.accesses.writes, 0,
            "{what}: the refused shutdown wrote a register"
        );
        assert_eq!(holder, Ok(()), "{what}: the interrupted holder's arm");
    }
}
