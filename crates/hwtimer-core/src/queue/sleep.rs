//! The future of [`HrTimers::sleep_until`].

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::TimerId;
use super::heap::Kind;
use super::{HrTimers, QueueError};
use crate::clockevent::ClockEvent;
use crate::clocksource::Monotonic;
use crate::error::Error;

/// The future returned by [`HrTimers::sleep_until`]: ready once the time base reaches its
/// deadline. Dropping it before then frees its queue slot.
#[must_use = "a sleep does nothing unless awaited"]
pub struct Sleep<'a, E: ClockEvent, M: Monotonic, const N: usize> {
    pub(super) timers: &'a HrTimers<E, M, N>,
    pub(super) deadline: u64,
    /// A relative wait whose start could not be read yet (see [`HrTimers::sleep_ns`]):
    /// `deadline` is set from it at the first poll.
    pub(super) after_ns: Option<u64>,
    pub(super) id: Option<TimerId>,
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Future for Sleep<'_, E, M, N> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut deadline = self.deadline;
        let after_ns = self.after_ns;
        let id = self.id;
        let step = self.timers.with(|i| {
            if let Some(ns) = after_ns {
                deadline = super::hrtimers::sleep_deadline(i.alarm.time(), ns);
            }
            if i.alarm.time().now() >= deadline {
                if let Some(id) = id {
                    let _ = i.release(id);
                    // Programs nothing unless a refusal is owed (see `reprogram_removed`).
                    let _ = i.reprogram_removed();
                }
                return (Poll::Ready(()), None, false);
            }
            let id = match id {
                Some(id) => id,
                None => match i.queue.alloc_kind(Kind::Waiter) {
                    Ok(id) => {
                        if i.queue.start(id, deadline).is_err() || i.reprogram(false).is_err() {
                            i.queue.free(id);
                            return (Poll::Pending, None, true);
                        }
                        id
                    }
                    // No slot: fall back to polling through the executor.
                    Err(_) => return (Poll::Pending, None, true),
                },
            };
            if let Some(w) = i.wakers.get_mut(id.index()) {
                match w {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    _ => *w = Some(cx.waker().clone()),
                }
            }
            // A programming was refused (here or by any other queue user), so this wait
            // may have nothing armed for it: retry, and while that is refused too, poll
            // again soon (the executor carries the retry; never an early wake-up).
            if i.unprogrammed() {
                match i.reprogram(false) {
                    // Another core's channel: only its owner can program it (see
                    // `HrTimers::reprogram`); polling again here would only spin.
                    Err(QueueError::Hardware(Error::WrongCpu(_))) | Ok(_) => {}
                    Err(_) => return (Poll::Pending, Some(id), true),
                }
            }
            (Poll::Pending, Some(id), false)
        });
        if step.is_ok() {
            self.deadline = deadline;
            self.after_ns = None;
        }
        match step {
            Ok((Poll::Ready(()), _, _)) => {
                self.id = None;
                Poll::Ready(())
            }
            Ok((Poll::Pending, id, retry)) => {
                self.id = id;
                // No slot, or a refused programming: poll again soon instead of sleeping
                // forever.
                if retry {
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
            // A re-entered queue: poll again soon.
            Err(_) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

impl<E: ClockEvent, M: Monotonic, const N: usize> Drop for Sleep<'_, E, M, N> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            // Programs nothing (see `reprogram_removed`): a drop cannot report a refusal.
            let _ = self.timers.with(|i| {
                let _ = i.release(id);
                i.reprogram_removed()
            });
        }
    }
}
