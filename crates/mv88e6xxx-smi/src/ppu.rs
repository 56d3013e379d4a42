//! The PHY polling unit (PPU) of PPU-gated chips, held stopped across a run of PHY accesses
//! and restarted [`PPU_HOLD_NS`] after the last one (docs/mv88e6xxx.md#ppu-hold), with an
//! optional timer ([`PpuTimer`], e.g. a slot of a hwtimer-core [`HrTimers`] queue:
//! [`PpuQueueTimer`]) that tells the firmware when to restart it.

use hwtimer_core::{ClockEvent, Continuous, HrTimers, Monotonic, QueueError, Stopwatch, TimerId};
use mdio_bus::Mdio;

use crate::chip::PhyAccess;
use crate::error::{BusyWait, Error};
use crate::regs::{self, PPU_ENABLE, PPU_STATE_MASK, PPU_STATE_POLLING, g1};
use crate::switch::{Switch, finish};

/// How long the PHY polling unit of a [`PhyAccess::PpuGated`] chip stays stopped after the
/// last PHY access of a run: 10 ms, Linux's `mv88e6xxx_phy_ppu_access_put` timer
/// (docs/mv88e6xxx.md#ppu-hold). See [`Switch::service`].
pub const PPU_HOLD_NS: u64 = 10_000_000;

/// A timer the firmware lends a [`Switch`] for the end of its PPU hold
/// ([`Switch::set_ppu_timer`]): when a hold starts, the switch arms it [`PPU_HOLD_NS`]
/// ahead; when it expires, the firmware calls [`Switch::service`], which restarts the PPU
/// (or, when PHY accesses moved the deadline, arms the timer again for what is left).
///
/// Contract: [`arm_after_ns`](Self::arm_after_ns) queues the timer, or moves it when it is
/// queued, to expire **no earlier** than `ns` nanoseconds after the call; the expiry must
/// reach the code that owns the `Switch` (a flag, a task wake-up), which then calls
/// `service`. The switch calls these methods from its own methods only, never from an
/// interrupt. Implemented by [`PpuQueueTimer`].
pub trait PpuTimer: core::fmt::Debug {
    /// Queue the timer to expire `ns` nanoseconds from now (never earlier), moving it when
    /// it is queued.
    ///
    /// Errors: the timer could not be armed; the switch then restarts the PPU at once
    /// rather than leave it stopped with nothing to restart it.
    fn arm_after_ns(&self, ns: u64) -> Result<(), hwtimer_core::Error>;
    /// Dequeue the timer (nothing when it is not queued).
    fn cancel(&self);
}

/// A slot of a hwtimer-core [`HrTimers`] queue as a [`PpuTimer`]. Match
/// [`id`](Self::id) in the queue's `on_interrupt` callback and have the switch's owner call
/// [`Switch::service`] (the callback cannot: it has no `&mut Switch`).
pub struct PpuQueueTimer<E: ClockEvent + 'static, T: Monotonic + 'static, const N: usize> {
    timers: &'static HrTimers<E, T, N>,
    id: TimerId,
}

impl<E: ClockEvent, T: Monotonic, const N: usize> core::fmt::Debug for PpuQueueTimer<E, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PpuQueueTimer")
            .field("id", &self.id)
            .finish()
    }
}

impl<E: ClockEvent, T: Monotonic, const N: usize> PpuQueueTimer<E, T, N> {
    /// Allocate a slot of `timers`.
    ///
    /// Errors: [`QueueError::Full`] when the queue has no free slot; [`QueueError::Busy`]
    /// when called from inside the queue's own callback.
    pub fn new(timers: &'static HrTimers<E, T, N>) -> Result<Self, QueueError> {
        Ok(Self {
            id: timers.alloc()?,
            timers,
        })
    }

    /// The queue slot (match it in the `on_interrupt` callback).
    pub fn id(&self) -> TimerId {
        self.id
    }
}

impl<E: ClockEvent, T: Monotonic, const N: usize> PpuTimer for PpuQueueTimer<E, T, N> {
    fn arm_after_ns(&self, ns: u64) -> Result<(), hwtimer_core::Error> {
        let ticks = ns_to_ticks_ceil(ns, self.timers.freq_hz()?);
        let now = self.timers.now()?;
        Ok(self.timers.restart(self.id, now.saturating_add(ticks))?)
    }

    fn cancel(&self) {
        // A failure to program what is left is repaired by the queue's next operation.
        let _ = self.timers.try_cancel(self.id);
    }
}

/// `ns` in ticks of `freq_hz`, rounded up (a deadline is never early).
fn ns_to_ticks_ceil(ns: u64, freq_hz: u32) -> u64 {
    let t = u128::from(ns)
        .saturating_mul(u128::from(freq_hz))
        .div_ceil(1_000_000_000);
    u64::try_from(t).unwrap_or(u64::MAX)
}

/// `ticks` of `freq_hz` in ns, rounded up.
fn ticks_to_ns_ceil(ticks: u64, freq_hz: u32) -> u64 {
    if freq_hz == 0 {
        return PPU_HOLD_NS;
    }
    let ns = (u128::from(ticks) * 1_000_000_000).div_ceil(u128::from(freq_hz));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// The PHY polling unit stopped by this driver, to be restarted [`PPU_HOLD_NS`] after the
/// last PHY access.
#[derive(Debug)]
pub(crate) struct PpuHold<C: Continuous> {
    /// Started at the end of the last PHY access.
    pub(crate) since: Stopwatch<C>,
    /// G1_CTL1 as it was before the PPU was stopped (PPU_ENABLE set): written back to
    /// restart it.
    pub(crate) ctl1: u16,
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Whether device `dev` is a PHY on the bus the PPU of a PPU-gated chip owns.
    pub(crate) fn is_ppu_phy(&self, dev: u8) -> bool {
        let Some(chip) = self.chip else {
            return false;
        };
        let info = chip.info();
        info.phy_access == PhyAccess::PpuGated
            && dev != self.map.global1
            && dev != self.map.global2
            && dev
                .checked_sub(self.map.phy_base)
                .is_some_and(|n| n < info.num_ports)
    }

    /// Run `access` with the PHY polling unit stopped (PPU-gated chips), then hold it
    /// stopped for [`PPU_HOLD_NS`] (or, with the hold off, hand the PHY bus straight back).
    ///
    /// - PPU held and its deadline not passed: `access` runs at once; the deadline moves to
    ///   [`PPU_HOLD_NS`] after it.
    /// - Otherwise (after restarting an expired hold): G1_CTL1 read; PPU_ENABLE clear: wait
    ///   until the PPU is neither initializing nor polling, run `access`, no hold (the PPU
    ///   is the caller's); PPU_ENABLE set: write G1_CTL1 without it, wait for "disabled",
    ///   run `access`, start the hold.
    /// - Any failure hands the PPU back at once (best effort), as G1_CTL1 was.
    pub(crate) fn with_ppu_paused<T>(
        &mut self,
        access: impl FnOnce(&mut Self) -> Result<T, Error<M::Error>>,
    ) -> Result<T, Error<M::Error>> {
        let g1 = self.map.global1;
        // Taken out for the access: nothing inside it restarts the PPU.
        let held = self.ppu_hold.take().map(|mut hold| {
            let live = hold.since.elapsed() < self.ppu_hold_ticks;
            (hold, live)
        });
        let extends = matches!(held, Some((_, true)));
        let ctl1 = match held {
            Some((hold, true)) => hold.ctl1,
            expired => {
                if let Some((hold, _)) = expired {
                    self.ppu_resume(hold.ctl1)?;
                }
                let ctl1 = self.dev_read(g1, g1::CTL1)?;
                if ctl1 & PPU_ENABLE == 0 {
                    // Not enabled (at reset, or by the caller), but it may still be
                    // stopping: the bus is ours once the state is no longer polling.
                    self.wait_ppu_stopped()?;
                    return access(self);
                }
                self.dev_write(g1, g1::CTL1, ctl1 & !PPU_ENABLE)?;
                if let Err(e) = self.wait_ppu_stopped() {
                    // Hand the bus back whatever happened, as G1_CTL1 was.
                    let _ = self.ppu_resume(ctl1);
                    return Err(e);
                }
                ctl1
            }
        };
        match access(self) {
            Ok(v) if self.ppu_hold_enabled => {
                self.ppu_hold = Some(PpuHold {
                    since: Stopwatch::start(self.clock),
                    ctl1,
                });
                // A new hold arms the timer; an extended one keeps it (`service` arms it
                // again for what is left when it expires before the moved deadline).
                if !extends && !self.arm_ppu_timer(PPU_HOLD_NS) {
                    // Nothing would restart the PPU: restart it now.
                    return self.ppu_release().map(|()| v);
                }
                Ok(v)
            }
            Ok(v) => self.ppu_resume(ctl1).map(|()| v),
            Err(e) => {
                let _ = self.ppu_resume(ctl1);
                Err(e)
            }
        }
    }

    /// Arm the lent [`PpuTimer`] `ns` ahead; `false` when it could not be armed (`true`
    /// without a timer).
    fn arm_ppu_timer(&mut self, ns: u64) -> bool {
        match self.ppu_timer {
            Some(t) => match t.arm_after_ns(ns) {
                Ok(()) => true,
                Err(_) => {
                    hwtimer_core::log_warn!("mv88e6xxx: PPU timer not armed, PPU restarted");
                    false
                }
            },
            None => true,
        }
    }

    /// The bounded wait for a stopping PPU to leave the PHY bus: G1_STS PPU state other
    /// than 11 "polling" (00 disabled at reset, 01 initializing and 10 disabled all
    /// count), as Linux v6.12 `global1.c` `mv88e6185_g1_wait_ppu_disabled` checks. A
    /// read of 0xFFFF (nothing answering) reads as polling and does not count.
    fn wait_ppu_stopped(&mut self) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        let poller = self.poller;
        let r = poller.try_poll(
            || self.dev_read(g1, g1::STS),
            |v| v & PPU_STATE_MASK != PPU_STATE_POLLING,
        );
        finish(r, BusyWait::PpuDisabled)
    }

    /// Write `ctl1` (PPU_ENABLE set) back to G1_CTL1 and wait for the PPU to poll.
    pub(crate) fn ppu_resume(&mut self, ctl1: u16) -> Result<(), Error<M::Error>> {
        let g1 = self.map.global1;
        self.dev_write(g1, g1::CTL1, ctl1)?;
        self.wait_on(
            g1,
            g1::STS,
            PPU_STATE_MASK,
            PPU_STATE_POLLING,
            BusyWait::PpuPolling,
        )
        .map(|_| ())
    }

    /// Restart a held PPU whose deadline has passed (called before every register access).
    pub(crate) fn ppu_expire(&mut self) -> Result<(), Error<M::Error>> {
        let expired = match &mut self.ppu_hold {
            Some(hold) => hold.since.elapsed() >= self.ppu_hold_ticks,
            None => return Ok(()),
        };
        if expired {
            self.ppu_release()?;
        }
        Ok(())
    }

    /// PPU-gated chips: restart the PHY polling unit if its hold has expired
    /// ([`PPU_HOLD_NS`] after the last PHY access). Otherwise no frame; with a
    /// [`PpuTimer`] ([`set_ppu_timer`](Self::set_ppu_timer)) and a hold whose deadline later
    /// accesses moved, the timer is armed again for what is left. Call it when the timer
    /// expires.
    ///
    /// # The PPU hold (docs/mv88e6xxx.md#ppu-hold)
    /// On a [`PhyAccess::PpuGated`] chip (6085, 6095, 6131, 6185) the first PHY access of
    /// a run stops the PPU (G1_CTL1 PPU_ENABLE cleared, state "disabled" awaited); the PPU
    /// then stays stopped, and each PHY access before the deadline finds it stopped and
    /// only moves the deadline to [`PPU_HOLD_NS`] after itself, as Linux's 10 ms timer
    /// does. There is no timer in this driver: the deadline is kept on the clocksource, and
    /// the PPU is restarted (G1_CTL1 written back, state "polling" awaited, bounded) by the
    /// first switch register access of any kind made after the deadline, by this method,
    /// or at once by [`ppu_release`](Self::ppu_release).
    ///
    /// While the PPU is held it polls no PHY: PORT_STS link, speed and duplex do not
    /// follow the PHYs. **Without a timer the PPU stays stopped until `service` (or any
    /// access) after the deadline**: a firmware that reads its PHYs once a second and
    /// calls nothing in between leaves the PPU off about 100 % of the time
    /// (`benches/ppu.rs`). Either lend the switch a timer
    /// ([`set_ppu_timer`](Self::set_ppu_timer), e.g. a [`PpuQueueTimer`] slot of the
    /// family's [`HrTimers`] queue) and call `service` when it expires, which restarts the
    /// PPU 10 ms after the last access (about 1 % off for that firmware); or call `service`
    /// yourself at least once after each run of PHY accesses, 10 ms or more after its last
    /// one, or `ppu_release` when done with the PHYs, and before
    /// [`release`](Self::release). The deadline is measured with a
    /// [`Stopwatch`] on the clocksource: if nothing touches the switch for longer than one
    /// wrap of the counter, the restart can come later than 10 ms, never earlier.
    ///
    /// Errors: the restart's [`Error::Timeout`] ([`BusyWait::PpuPolling`]) or
    /// [`Error::Mdio`]; the hold has ended either way.
    pub fn service(&mut self) -> Result<(), Error<M::Error>> {
        self.ppu_expire()?;
        self.rearm_ppu_timer()
    }

    /// A live hold with a timer: arm it for the rest of the hold (restarting the PPU when
    /// it cannot be armed).
    fn rearm_ppu_timer(&mut self) -> Result<(), Error<M::Error>> {
        let Some(hold) = &mut self.ppu_hold else {
            return Ok(());
        };
        if self.ppu_timer.is_none() {
            return Ok(());
        }
        let left = self.ppu_hold_ticks.saturating_sub(hold.since.elapsed());
        let ns = ticks_to_ns_ceil(left, self.clock.freq_hz());
        if self.arm_ppu_timer(ns) {
            Ok(())
        } else {
            self.ppu_release()
        }
    }

    /// Lend the switch a timer for the end of its PPU hold (`None`: take it back, after
    /// cancelling it). With a timer, each hold arms it [`PPU_HOLD_NS`] ahead, and the
    /// firmware calls [`service`](Self::service) when it expires: the PPU is then stopped
    /// only while PHY accesses need it (see [`service`](Self::service)). A hold already
    /// running arms the new timer for what is left of it. Chips without a PPU never arm
    /// it. The timer is `Sync` (a [`PpuQueueTimer`] on a static queue is), so a `Switch`
    /// holding it can still move between tasks.
    ///
    /// Errors: as [`ppu_release`](Self::ppu_release), when the timer cannot be armed for a
    /// running hold (the PPU is restarted then).
    pub fn set_ppu_timer(
        &mut self,
        timer: Option<&'static (dyn PpuTimer + Sync)>,
    ) -> Result<(), Error<M::Error>> {
        if let Some(old) = self.ppu_timer {
            old.cancel();
        }
        self.ppu_timer = timer;
        self.rearm_ppu_timer()
    }

    /// PPU-gated chips: restart a held PHY polling unit now, whatever its deadline (see
    /// [`service`](Self::service)). Does nothing (no frame) when no hold is active.
    ///
    /// Errors: as [`service`](Self::service).
    pub fn ppu_release(&mut self) -> Result<(), Error<M::Error>> {
        match self.ppu_hold.take() {
            Some(hold) => {
                if let Some(t) = self.ppu_timer {
                    t.cancel();
                }
                self.ppu_resume(hold.ctl1)
            }
            None => Ok(()),
        }
    }

    /// Whether this driver holds the PHY polling unit stopped (a PPU-gated chip after a
    /// PHY access whose hold has not been restarted yet; see [`service`](Self::service)).
    /// Reads no register.
    pub fn ppu_held(&self) -> bool {
        self.ppu_hold.is_some()
    }

    /// Choose whether PHY accesses on a PPU-gated chip hold the PPU stopped for
    /// [`PPU_HOLD_NS`] (`true`, the default; see [`service`](Self::service)) or restart it
    /// after every access (`false`: about 460 µs more per access in indirect mode, and no
    /// `service` call needed). Turning the hold off restarts a held PPU first.
    ///
    /// Errors: as [`ppu_release`](Self::ppu_release) when turning the hold off.
    pub fn set_ppu_hold(&mut self, hold: bool) -> Result<(), Error<M::Error>> {
        self.ppu_hold_enabled = hold;
        if hold { Ok(()) } else { self.ppu_release() }
    }

    /// Read-modify-write G1_CTL1's bits outside PPU_ENABLE and SW_RESET, keeping a PPU
    /// hold: while the PPU is held, the value written keeps PPU_ENABLE clear and the hold
    /// remembers the new bits for the restart (for [`crate::irq`]).
    pub(crate) fn g1_ctl1_update(
        &mut self,
        f: impl FnOnce(u16) -> u16,
    ) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        let ctl1 = self.dev_read(g1, g1::CTL1)?;
        let keep = regs::SW_RESET | PPU_ENABLE;
        let new = (f(ctl1) & !keep) | (ctl1 & PPU_ENABLE);
        if let Some(hold) = &mut self.ppu_hold {
            hold.ctl1 = (new & !keep) | (hold.ctl1 & PPU_ENABLE);
        }
        self.dev_write(g1, g1::CTL1, new)?;
        Ok(new)
    }

    /// Forget a PPU hold without restarting the PPU (a software reset restarts it; a raw
    /// G1_CTL1 write decides it), and cancel its timer.
    pub(crate) fn ppu_forget(&mut self) {
        if self.ppu_hold.take().is_some()
            && let Some(t) = self.ppu_timer
        {
            t.cancel();
        }
    }
}
