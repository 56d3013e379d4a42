//! The cross-core pender of an executor per core: a "has work" flag per core, and at most
//! one wake interrupt (an SGI on the GIC, an IPI) outstanding per target core.
//!
//! Shared by the boards that run an embassy executor on each core (`smdkc210-async`) and by
//! the loom model check of it, so the check covers the code that runs.
//!
//! # The protocol
//!
//! * **Pend** ([`Pender::pend`], the executor's `__pender`): set the target's work flag;
//!   then, if the target is another core, mark a wake as outstanding for it and send the
//!   interrupt only if none was outstanding already ([`Pend::Send`]; otherwise
//!   [`Pend::Merged`]).
//!   The caller sends the interrupt after `pend` returned: the fence in `pend` also orders
//!   the flag before that device write (on ARMv7 a `dmb ish`; Linux's GICv2
//!   `gic_ipi_send_mask` puts a `dmb ishst` before its GICD_SGIR write for the same
//!   reason), so the target's handler cannot run before the flag is visible to it.
//! * **Take the wake** ([`Pender::on_wake`], in the target's interrupt handler): mark no
//!   wake outstanding. From then on a pend sends a new interrupt.
//! * **Run** ([`Pender::take`], the target's idle loop): clear the flag and poll if it was
//!   set; otherwise, with interrupts masked, sleep (`wfi`) unless [`Pender::has_work`].
//!   A wake interrupt sent after that look stays pending and ends the `wfi` at once.
//!
//! # Why no wake is lost
//!
//! A pend that merges into an outstanding wake relies on that wake's handler being followed
//! by a look at the flag. Both sides write one word and then read the other (the pender:
//! flag, then outstanding; the handler: outstanding, then, in the loop, the flag), with a
//! `SeqCst` fence between: either the handler's fence comes first, and the pender's swap
//! sees "none outstanding" and sends a new interrupt; or the pender's fence comes first,
//! and the target's next look sees the flag. Without the fences, both may read the old
//! values and the target sleeps with work queued (the loom model in this file finds that).
//! Since a wake is only sent when none is outstanding, and "outstanding" is cleared only by
//! the handler of the one sent, there is never more than one in flight per target.

#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, Ordering, fence};

#[cfg(not(loom))]
use core::sync::atomic::{AtomicBool, Ordering, fence};

/// What [`Pender::pend`] found, and so what the caller does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pend {
    /// The target is the calling core: its flag is set, no interrupt is needed (its idle
    /// loop looks at the flag before sleeping).
    Local,
    /// A wake interrupt to the target is outstanding: its handler has not run yet, and the
    /// idle loop will see the flag after it. Send nothing.
    Merged,
    /// Send the wake interrupt to the target now.
    Send,
    /// No such core (the index is not below `N`): nothing was done.
    NoSuchCore,
}

/// The pender state of `N` cores (module docs).
#[derive(Debug)]
pub struct Pender<const N: usize> {
    /// Per core: its executor has work.
    work: [AtomicBool; N],
    /// Per core: a wake interrupt was sent to it and its handler has not run yet.
    outstanding: [AtomicBool; N],
}

impl<const N: usize> Pender<N> {
    /// No work, no wake outstanding.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            work: [const { AtomicBool::new(false) }; N],
            outstanding: [const { AtomicBool::new(false) }; N],
        }
    }

    /// No work, no wake outstanding (loom's atomics have no `const fn new`).
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            work: core::array::from_fn(|_| AtomicBool::new(false)),
            outstanding: core::array::from_fn(|_| AtomicBool::new(false)),
        }
    }

    /// Marks core `target`'s executor as having work, from core `me`; the result says
    /// whether to send `target` the wake interrupt.
    #[inline]
    pub fn pend(&self, target: usize, me: usize) -> Pend {
        let (Some(work), Some(outstanding)) = (self.work.get(target), self.outstanding.get(target))
        else {
            return Pend::NoSuchCore;
        };
        // Release: what the caller wrote before pending (the task's wake) is seen by the
        // poll that takes the flag. A swap rather than a store, and its result unused: the
        // same on the hardware, and it keeps loom 0.7 from placing the write between the
        // read and the write of the target's `take` swap (tokio-rs/loom#254), which
        // would be a false alarm of the model check.
        work.swap(true, Ordering::Release);
        if target == me {
            return Pend::Local;
        }
        // The pender's half of the handshake (module docs): the flag before the look at
        // "outstanding".
        fence(Ordering::SeqCst);
        // A load first: a pend that merges (the common case under load) then writes
        // nothing, and the line of `outstanding` stays shared.
        if outstanding.load(Ordering::Relaxed) || outstanding.swap(true, Ordering::Relaxed) {
            Pend::Merged
        } else {
            Pend::Send
        }
    }

    /// The wake interrupt's handler on core `me`: no wake is outstanding any more. The
    /// idle loop must look at the flag ([`take`](Self::take)) after this.
    #[inline]
    pub fn on_wake(&self, me: usize) {
        if let Some(outstanding) = self.outstanding.get(me) {
            outstanding.store(false, Ordering::Relaxed);
        }
        // The handler's half of the handshake: "none outstanding" before the loop's look
        // at the flag.
        fence(Ordering::SeqCst);
    }

    /// Clears core `me`'s flag and returns whether it was set (then poll the executor).
    #[inline]
    pub fn take(&self, me: usize) -> bool {
        // A load first: an idle loop that finds no work writes nothing.
        self.work
            .get(me)
            .is_some_and(|w| w.load(Ordering::Relaxed) && w.swap(false, Ordering::Acquire))
    }

    /// Whether core `me` has work, without clearing it: the last look before sleeping, with
    /// interrupts masked.
    #[inline]
    pub fn has_work(&self, me: usize) -> bool {
        self.work.get(me).is_some_and(|w| w.load(Ordering::Relaxed))
    }

    /// Whether a wake is outstanding for core `target` (diagnostics).
    pub fn is_outstanding(&self, target: usize) -> bool {
        self.outstanding
            .get(target)
            .is_some_and(|o| o.load(Ordering::SeqCst))
    }
}

impl<const N: usize> Default for Pender<N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn one_wake_per_target_until_its_handler_runs() {
        let p: Pender<2> = Pender::new();
        assert_eq!(p.pend(1, 0), Pend::Send);
        assert_eq!(p.pend(1, 0), Pend::Merged);
        assert!(p.is_outstanding(1));
        p.on_wake(1);
        assert!(p.take(1));
        assert!(!p.take(1));
        assert_eq!(p.pend(1, 0), Pend::Send);
        assert_eq!(p.pend(0, 0), Pend::Local);
        assert_eq!(p.pend(2, 0), Pend::NoSuchCore);
        assert!(p.has_work(0));
    }
}

/// The loom model check of [`Pender`] (`RUSTFLAGS="--cfg loom"`; the command is in the crate
/// README).
#[cfg(all(test, loom))]
mod loom_check {
    use super::*;
    use loom::sync::atomic::AtomicU32;
    use loom::sync::{Arc, Condvar, Mutex};
    use loom::thread;

    /// The target's wake interrupt: pending or not. `wfi` blocks until it is pending (so a
    /// wake that never comes is a deadlock loom reports); sending one while one is pending
    /// is the error the protocol rules out.
    struct Line {
        pending: Mutex<bool>,
        cv: Condvar,
    }

    /// Core 0 queues two items of work for core 1, pending each; core 1 runs its idle loop
    /// until it has done both. loom reports a wake sent while one is still in flight
    /// (the assertion), and a target asleep with work queued (a deadlock).
    ///
    /// Checked to fail: with the fence in `pend` removed, or the one in `on_wake`, loom
    /// reports a deadlock (core 1 in `wfi` with its flag set); with `pend` sending on every
    /// call (the look at `outstanding` removed), the assertion fails. The first looks being loads matters to the check: loom 0.7 lets only a load
    /// read an older value, so with read-modify-writes alone it could not show the fences'
    /// need (which the hardware has for either form).
    #[test]
    fn no_lost_wake_and_one_wake_in_flight_per_core() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let pender: Arc<Pender<2>> = Arc::new(Pender::new());
            let queued = Arc::new(AtomicU32::new(0));
            let line = Arc::new(Line {
                pending: Mutex::new(false),
                cv: Condvar::new(),
            });
            let sender = {
                let (pender, queued, line) = (pender.clone(), queued.clone(), line.clone());
                thread::spawn(move || {
                    for _ in 0..2 {
                        queued.fetch_add(1, Ordering::Relaxed);
                        if pender.pend(1, 0) == Pend::Send {
                            let mut pending = line.pending.lock().unwrap();
                            assert!(!*pending, "a second wake sent while one is in flight");
                            *pending = true;
                            line.cv.notify_all();
                        }
                    }
                })
            };
            // Core 1's idle loop (smdkc210-async's `run_executor`), its interrupt handler
            // run where interrupts are unmasked.
            let mut done = 0;
            while done < 2 {
                if pender.take(1) {
                    done = queued.load(Ordering::Relaxed);
                    continue;
                }
                {
                    // Interrupts masked: the last look, then `wfi`.
                    let mut pending = line.pending.lock().unwrap();
                    if !pender.has_work(1) {
                        while !*pending {
                            pending = line.cv.wait(pending).unwrap();
                        }
                    }
                    // Interrupts unmasked: the handler takes a pending wake.
                    if *pending {
                        *pending = false;
                        pender.on_wake(1);
                    }
                }
            }
            sender.join().unwrap();
        });
    }
}
