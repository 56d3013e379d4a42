//! The per-frame cost: what the TX path asks the cleanup timer per frame, and
//! that the ring's own record of the timer never costs a frame its cleanup.

use std::cell::Cell;

use crate::harness::*;

use hwtimer_core::Restart;
use stmmac_coalesce::ring::coalesce::ic_decision;
use stmmac_coalesce::sim::eth_frame;
use stmmac_coalesce::{
    CleanupTimer, CoalesceConfig, Coherent, Error, QueueTimer, TimerStrategy, TxConfig,
};

/// A [`QueueTimer`] that counts what the ring asks it.
struct Counting<'q> {
    inner: QueueTimer<'q, hwtimer_core::sim::SimClockEvent, Time, 4>,
    is_queued: Cell<u32>,
    now: Cell<u32>,
    starts: Cell<u32>,
}

impl<'q> Counting<'q> {
    fn new(timers: &'q Timers) -> Self {
        Self {
            inner: QueueTimer::new(timers).unwrap(),
            is_queued: Cell::new(0),
            now: Cell::new(0),
            starts: Cell::new(0),
        }
    }
}

impl CleanupTimer for Counting<'_> {
    fn freq_hz(&self) -> Result<u32, Error> {
        self.inner.freq_hz()
    }
    fn now(&self) -> Result<u64, Error> {
        self.now.set(self.now.get() + 1);
        self.inner.now()
    }
    fn is_queued(&self) -> bool {
        self.is_queued.set(self.is_queued.get() + 1);
        self.inner.is_queued()
    }
    fn start(&self, deadline: u64) -> Result<(), Error> {
        self.starts.set(self.starts.get() + 1);
        self.inner.start(deadline)
    }
    fn restart(&self, deadline: u64) -> Result<(), Error> {
        self.inner.restart(deadline)
    }
    fn cancel(&self) -> Result<bool, Error> {
        self.inner.cancel()
    }
    fn start_after(&self, delta: u64) -> Result<(), Error> {
        self.starts.set(self.starts.get() + 1);
        self.inner.start_after(delta)
    }
}

fn arm_once(tx_frames: u32) -> TxConfig {
    TxConfig {
        descriptors: 32,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs: 1000,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    }
}

/// A commit asks the timer nothing while the ring knows it armed it (no `is_queued`, a
/// critical section on hwtimer-core's queue), and a start is one call (no `now` read first).
fn commit_asks_the_timer_nothing_while_it_is_armed_and_starts_it_with_one_call<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(arm_once(25), Counting::new(timers), Coherent);
    let asked = tx.timer().is_queued.get();
    for _ in 0..10 {
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    }
    let t = tx.timer();
    assert_eq!(t.is_queued.get() - asked, 0, "no query per frame");
    assert_eq!(t.starts.get(), 1, "armed once for the window");
    assert_eq!(
        t.now.get(),
        0,
        "start_after reads the time inside the queue"
    );
    assert!(timers.is_queued(t.inner.id()));
    assert_eq!(tx.stats().timer_starts, 1);
}

/// The ring's record goes stale only behind its back (the timer cancelled through the
/// queue): the next TX interrupt's service reads the timer and arms it again, so the
/// frames still get their cleanup.
fn a_timer_cancelled_behind_the_rings_back_is_armed_again_by_the_next_service<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(arm_once(25), QueueTimer::new(timers).unwrap(), Coherent);
    G::hold_tx(&b.bus, 0, true); // a slow link: frames stay in flight
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let id = tx.timer().id();
    assert!(timers.cancel(id), "cancelled behind the ring's back");
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    assert!(
        !timers.is_queued(id),
        "commit trusts its record: not re-armed per frame"
    );
    // The next TX interrupt's service reads the timer and arms it for what is pending.
    assert_eq!(tx.service(&b.mac, stmmac_coalesce::DmaEvents::default()), 0);
    assert_eq!(tx.pending(), 2);
    assert!(timers.is_queued(id), "armed again for the pending frames");
    // The link goes on; the expiry reclaims both.
    G::hold_tx(&b.bus, b.clock.now_ns(), false);
    b.clock.advance(2_000_000);
    let mac = &b.mac;
    let fired = timers
        .on_interrupt(|i, now| {
            if i == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        })
        .unwrap();
    assert_eq!(fired, 1);
    assert_eq!(tx.pending(), 0);
    assert_eq!(tx.stats().reclaimed, 2);
}

/// `on_timer` called while the timer is still queued (a poll loop instead of the expiry):
/// the ring's record says idle, the timer is queued; the next start finds it queued, which
/// is no failure: no forced IC, no timer error.
fn a_start_that_finds_the_timer_queued_is_not_a_failure<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(arm_once(25), QueueTimer::new(timers).unwrap(), Coherent);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    // Reclaims the completed frame; nothing pending: "do not re-arm", though still queued.
    assert_eq!(tx.on_timer(&b.mac, timers.now().unwrap()), Restart::No);
    assert!(timers.is_queued(tx.timer().id()));
    let plan = tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
    assert!(!plan.set_ic, "the queued timer covers it");
    assert_eq!(tx.stats().timer_errors, 0);
    assert_eq!(tx.stats().timer_starts, 1, "only the real start is counted");
}

/// The IC rule without a division is Linux's rule (`count % tx_frames < tx_packets`).
#[test]
fn ic_rule_without_division_matches_the_modulo_rule() {
    for tx_frames in 0..=40u32 {
        for tx_packets in 1..=45u32 {
            for count in 0..=200u32 {
                let want = if tx_frames == 0 {
                    (false, count)
                } else if tx_packets > tx_frames || count % tx_frames < tx_packets {
                    (true, 0)
                } else {
                    (false, count)
                };
                assert_eq!(
                    ic_decision(count, tx_packets, tx_frames),
                    want,
                    "{count} {tx_packets} {tx_frames}"
                );
            }
        }
    }
    // Counts far above 2 * tx_frames take the division: same rule.
    for count in [u32::MAX, u32::MAX - 1, 1_000_003] {
        let want = if count % 7 < 2 {
            (true, 0)
        } else {
            (false, count)
        };
        assert_eq!(ic_decision(count, 2, 7), want);
    }
}

on_both!(
    a_timer_cancelled_behind_the_rings_back_is_armed_again_by_the_next_service,
    commit_asks_the_timer_nothing_while_it_is_armed_and_starts_it_with_one_call,
    a_start_that_finds_the_timer_queued_is_not_a_failure,
);
