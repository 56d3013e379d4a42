use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use super::SimClockEventProbe;

/// Something that raises interrupts in virtual time: [`run_virtual`] asks it to move the
/// clock to its next interrupt. Implemented for [`SimClockEventProbe`] and for closures
/// (`|| model.advance_to_next_irq()`), so driver models with their own interrupt logic can
/// drive async code too.
pub trait IrqSource {
    /// Move the clock to the next interrupt and return its time, or `None` when nothing
    /// is armed.
    fn advance_to_next(&mut self) -> Option<u64>;
}

impl IrqSource for &SimClockEventProbe {
    fn advance_to_next(&mut self) -> Option<u64> {
        self.advance_to_fire()
    }
}

impl<F: FnMut() -> Option<u64>> IrqSource for F {
    fn advance_to_next(&mut self) -> Option<u64> {
        self()
    }
}

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Drive `fut` to completion in virtual time.
///
/// Polls the future; whenever it is pending and nothing woke it, jumps the clock to the
/// next interrupt of `irq` and calls `isr` (the interrupt handler, typically
/// [`HrTimers::on_interrupt`](crate::queue::HrTimers::on_interrupt)). Returns `None` if
/// the future is pending with no wake-up and nothing armed (it would sleep forever), or
/// after `max_interrupts` interrupts.
pub fn run_virtual<F: Future>(
    fut: F,
    mut irq: impl IrqSource,
    max_interrupts: usize,
    mut isr: impl FnMut(),
) -> Option<F::Output> {
    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(Arc::clone(&flag));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    let mut interrupts = 0usize;
    loop {
        flag.0.store(false, Ordering::SeqCst);
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return Some(v);
        }
        if flag.0.load(Ordering::SeqCst) {
            continue;
        }
        if interrupts >= max_interrupts {
            return None;
        }
        irq.advance_to_next()?;
        interrupts += 1;
        isr();
    }
}

/// A task for [`run_virtual_tasks`].
pub type Task<'a> = std::pin::Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Drive several tasks to completion in virtual time, each with a waker of its own (as an
/// async executor gives every task its own), so a runtime's timer queue sees one entry per
/// task.
///
/// Polls every woken task; when none is woken, jumps the clock to the next interrupt of
/// `irq` and calls `isr`. Returns the number of interrupts taken, or `Err` with the number
/// of tasks left when they are all pending with nothing armed, or after `max_interrupts`.
pub fn run_virtual_tasks(
    tasks: Vec<Task<'_>>,
    mut irq: impl IrqSource,
    max_interrupts: usize,
    mut isr: impl FnMut(),
) -> Result<usize, usize> {
    let mut tasks: Vec<(Task<'_>, Arc<Flag>)> = tasks
        .into_iter()
        .map(|t| (t, Arc::new(Flag(AtomicBool::new(true)))))
        .collect();
    let mut interrupts = 0usize;
    loop {
        let mut polled = false;
        tasks.retain_mut(|(task, flag)| {
            if !flag.0.swap(false, Ordering::SeqCst) {
                return true;
            }
            polled = true;
            let waker = Waker::from(Arc::clone(flag));
            task.as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
        });
        if tasks.is_empty() {
            return Ok(interrupts);
        }
        if polled || tasks.iter().any(|(_, f)| f.0.load(Ordering::SeqCst)) {
            continue;
        }
        if interrupts >= max_interrupts || irq.advance_to_next().is_none() {
            return Err(tasks.len());
        }
        interrupts += 1;
        isr();
    }
}
