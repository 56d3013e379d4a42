//! The meeting point of the driver and the interrupt paths ([`Hub`]): the shared state
//! behind the critical section (loom's mutex under `cfg(loom)`) and the wakers, with the
//! [No lost wake](super#no-lost-wake) protocol and its loom model check.

#[cfg(not(loom))]
use core::cell::RefCell;
use core::task::Waker;

/// A value shared with interrupt handlers: behind a `critical-section` mutex, or, in the
/// model-checked build (`cfg(loom)`), behind loom's mutex, so that loom explores this
/// module's own code.
struct Locked<T>(
    #[cfg(not(loom))] critical_section::Mutex<RefCell<T>>,
    #[cfg(loom)] loom::sync::Mutex<T>,
);

impl<T> Locked<T> {
    #[cfg(not(loom))]
    const fn new(value: T) -> Self {
        Self(critical_section::Mutex::new(RefCell::new(value)))
    }

    /// loom's mutex has no `const` constructor.
    #[cfg(loom)]
    fn new(value: T) -> Self {
        Self(loom::sync::Mutex::new(value))
    }

    /// Run `f` on the value inside the critical section; `f` gets `None` when the value is
    /// already lent further up this call stack (a `NetState` method called from inside one
    /// of its own closures), where a second borrow would panic.
    #[cfg(not(loom))]
    fn with<R>(&self, f: impl FnOnce(Option<&mut T>) -> R) -> R {
        critical_section::with(|cs| match self.0.borrow(cs).try_borrow_mut() {
            Ok(mut value) => f(Some(&mut value)),
            Err(_) => f(None),
        })
    }

    /// Run `f` on the value with the mutex held.
    #[cfg(loom)]
    fn with<R>(&self, f: impl FnOnce(Option<&mut T>) -> R) -> R {
        let mut guard = match self.0.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(Some(&mut guard))
    }
}

/// The registered wakers, one per [`Wakers`] flag.
#[derive(Default)]
struct Registered {
    rx: Option<Waker>,
    tx: Option<Waker>,
    link: Option<Waker>,
}

/// Keep `w` in `slot` (a clone, unless the one there wakes the same task).
#[inline]
fn keep(slot: &mut Option<Waker>, w: &Waker) {
    match slot.as_ref() {
        Some(old) if old.will_wake(w) => {}
        _ => *slot = Some(w.clone()),
    }
}

/// The registered wakers behind one critical section: a poll registers every waker it
/// names, and a signal takes every waker it wakes, in a single critical section.
struct WakerSlots(Locked<Registered>);

impl WakerSlots {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Self(Locked::new(Registered {
            rx: None,
            tx: None,
            link: None,
        }))
    }

    #[cfg(loom)]
    fn new() -> Self {
        Self(Locked::new(Registered::default()))
    }

    /// Register `w` for each waker `which` names.
    #[inline]
    fn register(&self, which: Wakers, w: &Waker) {
        self.0.with(|slots| {
            if let Some(s) = slots {
                if which.rx {
                    keep(&mut s.rx, w);
                }
                if which.tx {
                    keep(&mut s.tx, w);
                }
                if which.link {
                    keep(&mut s.link, w);
                }
            }
        });
    }

    /// Wake the wakers `which` names, if registered, and forget them: taken inside the
    /// critical section, woken outside it.
    #[inline]
    fn wake(&self, which: Wakers) {
        let (rx, tx, link) = self.0.with(|slots| match slots {
            Some(s) => (
                if which.rx { s.rx.take() } else { None },
                if which.tx { s.tx.take() } else { None },
                if which.link { s.link.take() } else { None },
            ),
            None => (None, None, None),
        });
        if let Some(w) = rx {
            w.wake();
        }
        if let Some(w) = tx {
            w.wake();
        }
        if let Some(w) = link {
            w.wake();
        }
    }
}

/// Which of a [`Hub`]'s wakers an event wakes, or a poll registers.
#[derive(Clone, Copy)]
pub(super) struct Wakers {
    rx: bool,
    tx: bool,
    link: bool,
}

impl Wakers {
    pub(super) const NONE: Self = Self {
        rx: false,
        tx: false,
        link: false,
    };
    pub(super) const RX: Self = Self {
        rx: true,
        ..Self::NONE
    };
    pub(super) const TX: Self = Self {
        tx: true,
        ..Self::NONE
    };
    pub(super) const LINK: Self = Self {
        link: true,
        ..Self::NONE
    };

    pub(super) const fn and(self, other: Self) -> Self {
        Self {
            rx: self.rx || other.rx,
            tx: self.tx || other.tx,
            link: self.link || other.link,
        }
    }
}

/// Where the driver and the interrupt paths meet: the state `S` (the rings, once
/// installed) behind the critical section, and the wakers. The driver's side is
/// [`poll`](Self::poll), the interrupt paths' side [`signal`](Self::signal); see
/// [No lost wake](super#no-lost-wake).
pub(super) struct Hub<S> {
    state: Locked<Option<S>>,
    wakers: WakerSlots,
}

impl<S> Hub<S> {
    #[cfg(not(loom))]
    pub(super) const fn new() -> Self {
        Self {
            state: Locked::new(None),
            wakers: WakerSlots::new(),
        }
    }

    #[cfg(loom)]
    pub(super) fn new() -> Self {
        Self {
            state: Locked::new(None),
            wakers: WakerSlots::new(),
        }
    }

    /// Run `f` on the state inside the critical section; `None` before it is installed,
    /// and inside another `with`, `poll` or `signal` (nested: the state is lent already).
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        self.state.with(|s| s.and_then(Option::as_mut).map(f))
    }

    /// Replace the state (inside the critical section); nothing, nested.
    pub(super) fn install(&self, state: S) {
        self.state.with(|s| {
            if let Some(s) = s {
                *s = Some(state);
            }
        });
    }

    /// The driver's side: register `waker` in `which`, **then** look at the state with
    /// `look` (inside the critical section; `None` before it is installed). An event
    /// [`signal`](Self::signal)led between the two is seen by `look`, or wakes `waker`.
    pub(super) fn poll<R>(
        &self,
        which: Wakers,
        waker: &Waker,
        look: impl FnOnce(Option<&mut S>) -> R,
    ) -> R {
        self.wakers.register(which, waker);
        self.state.with(|s| look(s.and_then(Option::as_mut)))
    }

    /// The interrupt paths' side: change the state with `change` (inside the critical
    /// section), which also says whom the change wakes; **then**, outside it, wake them.
    pub(super) fn signal<R>(&self, change: impl FnOnce(Option<&mut S>) -> (R, Wakers)) -> R {
        let (r, which) = self.state.with(|s| change(s.and_then(Option::as_mut)));
        if which.rx || which.tx || which.link {
            self.wakers.wake(which);
        }
        r
    }
}

/// `loom` model check of the [No lost wake](super#no-lost-wake) protocol: this module's own
/// [`Hub`] (its `poll` and `signal`), [`WakerSlots`] and lock, with loom's mutex for the
/// critical section, and a stand-in for the rings (a count of frames waiting, of free
/// descriptors, a link flag; the rings are only ever touched inside the lock, so what they
/// hold does not change the protocol). The runner is loom's `block_on` over a future that
/// polls as the driver does: a lost wake leaves it parked for ever, which loom reports as
/// a deadlock. Each check was seen to fail (deadlock) with `Hub::poll` looking before it
/// registers, and with `Hub::signal` waking before it changes the state. Run with
/// `RUSTFLAGS="--cfg loom" cargo test -p stmmac-coalesce --lib --release loom_check`.
#[cfg(all(test, loom))]
mod loom_check {
    use core::future::poll_fn;
    use core::task::Poll;

    use loom::sync::Arc;
    use loom::thread;

    use super::{Hub, Wakers};

    /// The rings' stand-in.
    #[derive(Default)]
    struct Rings {
        frames: u32,
        free: u32,
        link_up: bool,
    }

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(f);
    }

    fn hub() -> Arc<Hub<Rings>> {
        let hub = Hub::new();
        hub.install(Rings::default());
        Arc::new(hub)
    }

    /// The runner: poll as the driver does (register in `which`, then `look`) until `look`
    /// finds something, parked in between until a waker fires.
    fn run_until<R>(
        hub: &Hub<Rings>,
        which: Wakers,
        mut look: impl FnMut(&mut Rings) -> Option<R>,
    ) -> R {
        loom::future::block_on(poll_fn(|cx| {
            match hub.poll(which, cx.waker(), |s| s.and_then(&mut look)) {
                Some(r) => Poll::Ready(r),
                None => Poll::Pending,
            }
        }))
    }

    /// An interrupt path: change the stand-in with `f`, wake `which`.
    fn interrupt(
        hub: &Arc<Hub<Rings>>,
        which: Wakers,
        f: impl Fn(&mut Rings) + Send + 'static,
    ) -> thread::JoinHandle<()> {
        let hub = hub.clone();
        thread::spawn(move || {
            hub.signal(|s| {
                if let Some(s) = s {
                    f(s);
                }
                ((), which)
            })
        })
    }

    /// A frame arrives (the DMA interrupt) while the runner registers and looks, as
    /// `receive` does (RX and TX wakers): the runner gets it.
    #[test]
    fn a_frame_arriving_while_the_runner_polls_is_received() {
        model(|| {
            let hub = hub();
            let irq = interrupt(&hub, Wakers::RX, |s| s.frames += 1);
            let got = run_until(&hub, Wakers::RX.and(Wakers::TX), |s| {
                (s.frames > 0).then(|| {
                    s.frames -= 1;
                    s.frames
                })
            });
            assert_eq!(got, 0);
            irq.join().unwrap();
        });
    }

    /// The DMA interrupt and the cleanup timer each free a descriptor at once while the
    /// runner waits for two, one `transmit` at a time: a wake takes the waker, so the
    /// second path may find none registered; the runner still gets both.
    #[test]
    fn two_reclaim_paths_at_once_wake_a_runner_waiting_for_descriptors() {
        model(|| {
            let hub = hub();
            let dma = interrupt(&hub, Wakers::TX, |s| s.free += 1);
            let timer = interrupt(&hub, Wakers::TX, |s| s.free += 1);
            for _ in 0..2 {
                run_until(&hub, Wakers::TX, |s| {
                    (s.free > 0).then(|| {
                        s.free -= 1;
                    })
                });
            }
            dma.join().unwrap();
            timer.join().unwrap();
            hub.with(|s| assert_eq!(s.free, 0));
        });
    }

    /// A link change (`set_link`: the link and TX wakers) while the runner polls
    /// `link_state`: the runner sees the link come up.
    #[test]
    fn a_link_change_while_the_runner_polls_is_seen() {
        model(|| {
            let hub = hub();
            let phy = interrupt(&hub, Wakers::LINK.and(Wakers::TX), |s| s.link_up = true);
            run_until(&hub, Wakers::LINK, |s| s.link_up.then_some(()));
            phy.join().unwrap();
        });
    }
}
