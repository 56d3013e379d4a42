//! Two contexts sharing `G_TCON`: the thread arms comparator 0 while an interrupt handler
//! shuts comparator 1 down. The interrupt is injected at the first bus access after the
//! thread's `G_TCON` write at which a CPU could take it (outside the driver's critical
//! sections, [`irqs_masked`]), on a block that acknowledges after 2 µs.
//!
//! Before `G_TCON`'s write, wait and clear formed one exclusive section, the interrupt
//! landed inside the thread's wait: the handler's `G_TCON` write hit the unacknowledged
//! first one and was dropped by the block, the handler took the thread's acknowledgement
//! for its own, and the thread timed out; comparator 1 stayed enabled although its
//! shutdown had returned.
//!
//! The section is now held under the `Mct`'s shared-register lock with interrupts
//! **unmasked** (no core spins with interrupts masked for a whole WSTAT wait), so
//! the interrupt is taken inside the thread's wait; the handler cannot get the lock (its
//! holder is the context it interrupted) and gets `Error::Busy` after its bounded spin,
//! having written nothing. Once the thread's section is over, the shutdown succeeds.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::{Comparator, Config, Mct, regs};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{Claim, Claimed, ClockEvent, Error, RegisterBus};

type Handler = Box<dyn FnMut()>;

/// Whether this thread is inside a critical section: the CPU's interrupt mask, as the test
/// sees it. The test binary links critical-section's `std` implementation, whose acquire
/// reports a nested section (one this thread already holds) in its restore state (a
/// `bool`, `true` when nested); the driver has no hook for this. A restore state that said
/// nothing would fail the test loudly: never "masked" lets the handler into the thread's
/// exclusive section (the failure below), always "masked" never runs it.
fn irqs_masked() -> bool {
    // SAFETY: the section acquired here is released at once, with its own restore state,
    // before anything else runs on this thread (acquire/release pair up, innermost first).
    let state = unsafe { critical_section::acquire() };
    let nested = format!("{state:?}").contains("true");
    // SAFETY: `state` comes from the matching `acquire` just above.
    unsafe { critical_section::release(state) };
    nested
}

/// A bus that runs an "interrupt handler" at the first access, after a `G_TCON` write, made
/// with interrupts unmasked. Test plumbing only: counting and timing stay `SimBus`'s.
#[derive(Clone)]
struct IrqBus {
    inner: SimBus<MctModel>,
    handler: Rc<RefCell<Option<Handler>>>,
    armed: Rc<Cell<bool>>,
    /// Whether the handler ran with interrupts masked (it never may).
    ran_masked: Rc<Cell<bool>>,
}

impl IrqBus {
    fn maybe_interrupt(&self) {
        if !self.armed.get() || irqs_masked() {
            return;
        }
        self.armed.set(false);
        let handler = self.handler.borrow_mut().take();
        if let Some(mut handler) = handler {
            self.ran_masked.set(irqs_masked());
            handler();
        }
    }
}

impl RegisterBus for IrqBus {
    type Word = u32;

    fn read_word(&self, offset: usize) -> u32 {
        let v = self.inner.read_word(offset);
        self.maybe_interrupt();
        v
    }

    fn write_word(&self, offset: usize, value: u32) {
        self.inner.write_word(offset, value);
        if offset == regs::G_TCON_REG.offset() && self.handler.borrow().is_some() {
            // The handler's line rises now; the CPU takes it when it can.
            self.armed.set(true);
        }
        self.maybe_interrupt();
    }
}

/// Blocks of the bus are `Claimed` views of it, so the interrupt injection sees every access.
impl Claim for IrqBus {
    type Block<const SPAN: usize> = Claimed<IrqBus, SPAN>;
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        Some(Claimed::new(self.clone(), base))
    }
}

#[test]
fn g_tcon_writes_of_two_contexts_never_interleave() {
    let clock = SimClock::new();
    let sim = SimBus::new(&clock, MctModel::exynos4210());
    let bus = IrqBus {
        inner: sim.clone(),
        handler: Rc::new(RefCell::new(None)),
        armed: Rc::new(Cell::new(false)),
        ran_masked: Rc::new(Cell::new(false)),
    };
    // `'static`, so the handler can hold its own comparator.
    let mct: &'static Mct<IrqBus> =
        Box::leak(Box::new(Mct::new(bus.clone(), Config::default()).unwrap()));
    mct.start_frc().unwrap();

    // The interrupt context's comparator 1, armed far ahead.
    let comp1: Rc<RefCell<Comparator<'static, IrqBus>>> =
        Rc::new(RefCell::new(mct.comparator(1).unwrap()));
    comp1.borrow_mut().set_next_event(24_000_000).unwrap();
    let mut comp0 = mct.comparator(0).unwrap();

    sim.model(|m| m.set_wstat_mode(WstatMode::Delay(2_000)));
    let handled = Rc::new(Cell::new(None));
    {
        let comp1 = Rc::clone(&comp1);
        let handled = Rc::clone(&handled);
        *bus.handler.borrow_mut() = Some(Box::new(move || {
            handled.set(Some(comp1.borrow_mut().try_shutdown()));
        }));
    }
    let armed = comp0.set_next_event(24_000);

    assert_eq!(
        handled.get(),
        Some(Err(Error::Busy)),
        "the handler did not run inside the thread's section, or got the lock there"
    );
    assert!(
        !bus.ran_masked.get(),
        "an interrupt was taken with interrupts masked"
    );
    assert_eq!(armed, Ok(()), "the thread's arm failed");
    assert_eq!(
        sim.model(|m| m.lost_writes()),
        0,
        "the block dropped a G_TCON write"
    );
    assert!(
        sim.model(|m| m.comparator_enabled(0)),
        "comparator 0 not enabled"
    );
    assert!(
        sim.model(|m| m.comparator_enabled(1)),
        "the busy shutdown wrote G_TCON"
    );
    // Retried outside the thread's section (the handler's deferred work), it succeeds.
    assert_eq!(comp1.borrow_mut().try_shutdown(), Ok(()));
    assert!(
        !sim.model(|m| m.comparator_enabled(1)),
        "comparator 1 still enabled after its shutdown returned"
    );
    // The shadow agrees with the register: a write that changes nothing is skipped.
    let g_tcon = sim.read_word(regs::G_TCON_REG.offset());
    assert_eq!(
        g_tcon,
        regs::G_TCON::TIMER_ENABLE::SET.value | regs::g_tcon_comp_enable(0)
    );
    // And no acknowledgement is left behind for the next writer.
    clock.advance(10_000);
    assert_eq!(sim.read_word(regs::G_WSTAT_REG.offset()), 0);
}
