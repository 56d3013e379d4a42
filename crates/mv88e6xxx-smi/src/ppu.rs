//! The PHY polling unit (PPU) of PPU-gated chips, held stopped across a run of PHY accesses
//! and restarted [`PPU_HOLD_NS`] after the last one (docs/mv88e6xxx.md#ppu-hold).

use hwtimer_core::{Continuous, Stopwatch};
use mdio_bus::Mdio;

use crate::chip::PhyAccess;
use crate::error::{BusyWait, Error};
use crate::regs::{
    self, PPU_ENABLE, PPU_STATE_ACTIVE, PPU_STATE_DISABLED, PPU_STATE_MASK, PPU_STATE_POLLING, g1,
};
use crate::switch::Switch;

/// How long the PHY polling unit of a [`PhyAccess::PpuGated`] chip stays stopped after the
/// last PHY access of a run: 10 ms, Linux's `mv88e6xxx_phy_ppu_access_put` timer
/// (docs/mv88e6xxx.md#ppu-hold). See [`Switch::service`].
pub const PPU_HOLD_NS: u64 = 10_000_000;

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
        let ctl1 = match held {
            Some((hold, true)) => hold.ctl1,
            expired => {
                if let Some((hold, _)) = expired {
                    self.ppu_resume(hold.ctl1)?;
                }
                let ctl1 = self.dev_read(g1, g1::CTL1)?;
                if ctl1 & PPU_ENABLE == 0 {
                    // Not enabled (at reset, or by the caller), but it may still be
                    // stopping: the bus is ours once the state is no longer initializing
                    // or polling.
                    self.wait_on(g1, g1::STS, PPU_STATE_ACTIVE, 0, BusyWait::PpuDisabled)?;
                    return access(self);
                }
                self.dev_write(g1, g1::CTL1, ctl1 & !PPU_ENABLE)?;
                if let Err(e) = self.wait_on(
                    g1,
                    g1::STS,
                    PPU_STATE_MASK,
                    PPU_STATE_DISABLED,
                    BusyWait::PpuDisabled,
                ) {
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
                Ok(v)
            }
            Ok(v) => self.ppu_resume(ctl1).map(|()| v),
            Err(e) => {
                let _ = self.ppu_resume(ctl1);
                Err(e)
            }
        }
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
    /// ([`PPU_HOLD_NS`] after the last PHY access). Does nothing otherwise (no frame).
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
    /// follow the PHYs. **Firmware must call `service` at least once after each run of
    /// PHY accesses, 10 ms or more after its last one** (from its main loop or a timer
    /// tick), or `ppu_release` when it is done with the PHYs, and before
    /// [`release`](Self::release). The deadline is measured with a
    /// [`Stopwatch`] on the clocksource: if nothing touches the switch for longer than one
    /// wrap of the counter, the restart can come later than 10 ms, never earlier.
    ///
    /// Errors: the restart's [`Error::Timeout`] ([`BusyWait::PpuPolling`]) or
    /// [`Error::Mdio`]; the hold has ended either way.
    pub fn service(&mut self) -> Result<(), Error<M::Error>> {
        self.ppu_expire()
    }

    /// PPU-gated chips: restart a held PHY polling unit now, whatever its deadline (see
    /// [`service`](Self::service)). Does nothing (no frame) when no hold is active.
    ///
    /// Errors: as [`service`](Self::service).
    pub fn ppu_release(&mut self) -> Result<(), Error<M::Error>> {
        match self.ppu_hold.take() {
            Some(hold) => self.ppu_resume(hold.ctl1),
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

    /// Forget a PPU hold without restarting the PPU (a software reset restarts it).
    pub(crate) fn ppu_forget(&mut self) {
        self.ppu_hold = None;
    }
}
