//! Internal PHY access: Global2 SMI_PHY_CMD/DATA, the PPU-gated and direct paths, and the
//! internal MDIO bus as an [`Mdio`] ([`InternalMdio`]; Linux's `global2.c` SMI PHY part).

use hwtimer_core::Continuous;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::PhyAccess;
use crate::error::{BusyWait, ConfigError, Error};
use crate::regs::{BUSY, C22Op, g2, smi_phy_cmd};
use crate::switch::{READY_PHY, Switch};

/// The switch's internal PHY bus as an [`Mdio`]: each frame is one bounded PHY access the
/// way the chip needs it ([`Switch::phy_read`] / [`Switch::phy_write`]: Global2 SMI_PHY,
/// PPU-gated direct, or direct).
#[derive(Debug)]
pub struct InternalMdio<'a, M: Mdio, C: Continuous + Copy> {
    pub(crate) smi: &'a mut Switch<M, C>,
}

impl<M: Mdio, C: Continuous + Copy> Mdio for InternalMdio<'_, M, C> {
    type Error = Error<M::Error>;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.smi.phy_read(phy, reg)
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        self.smi.phy_write(phy, reg, value)
    }
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// `phy` if it is on the chip's PHY bus: `phy_base .. phy_base + num_ports` (Linux's
    /// PHY mask of the switch's MDIO bus). Beyond it a directly accessed PHY address would
    /// be a port or a global block.
    pub(crate) fn check_phy(&self, phy: PhyAddr) -> Result<u8, Error<M::Error>> {
        let ports = match self.chip {
            Some(chip) => chip.info().num_ports,
            None => self.family.max_ports(),
        };
        let a = phy.get();
        match a.checked_sub(self.map.phy_base) {
            Some(n) if n < ports => Ok(a),
            _ => Err(ConfigError::Phy { phy: a }.into()),
        }
    }

    pub(crate) fn phy_access(&self) -> PhyAccess {
        match self.chip {
            Some(chip) => chip.info().phy_access,
            // `chip` is `None` only inside `probe`, before identification, which reaches
            // no PHY.
            None => PhyAccess::Global2,
        }
    }

    /// Clause 22 read of PHY `phy`, the way the chip needs ([`PhyAccess`]):
    ///
    /// - Global2: SMI_PHY_CMD write, bounded BUSY wait, SMI_PHY_DATA read (each a switch
    ///   register access; BUSY polled first only when its state is unknown);
    /// - PPU-gated (6085, 6095, 6131, 6185): if this driver holds the PPU stopped (a PHY
    ///   access less than [`PPU_HOLD_NS`](crate::PPU_HOLD_NS) ago), the PHY register is read directly at
    ///   device `phy` and the hold extended. Otherwise G1_CTL1 read; if PPU_ENABLE is set,
    ///   G1_CTL1 written without it and G1_STS awaited (bounded) until the PPU state reads
    ///   "disabled"; the PHY register read directly; the PPU then stays stopped until
    ///   [`service`](Self::service) or any access after the deadline restarts it (G1_CTL1
    ///   written back, "polling" awaited), or at once with the hold off
    ///   ([`set_ppu_hold`](Self::set_ppu_hold)). A PPU that is not enabled is left so, once
    ///   G1_STS shows it neither initializing nor polling (it may still be stopping);
    /// - direct (6165): the PHY register read directly at device `phy`.
    ///
    /// Errors: [`ConfigError::Phy`] for a PHY address off the chip's PHY bus (no
    /// frame is sent); [`Error::Timeout`] ([`BusyWait::SmiPhyCmd`],
    /// [`BusyWait::PpuDisabled`], [`BusyWait::PpuPolling`]); [`Error::Mdio`]. After a
    /// failed PPU-gated access the PPU is handed back (best effort) before returning.
    pub fn phy_read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Error<M::Error>> {
        let addr = self.check_phy(phy)?;
        match self.phy_access() {
            PhyAccess::Global2 => self.g2_phy_read(addr, reg.get()),
            PhyAccess::Direct => self.dev_read(addr, reg.get()),
            PhyAccess::PpuGated => self.with_ppu_paused(|s| s.dev_read(addr, reg.get())),
        }
    }

    /// Clause 22 write of PHY `phy`; the access and errors are as [`phy_read`](Self::phy_read)
    /// (Global2: SMI_PHY_DATA write, SMI_PHY_CMD write, bounded BUSY wait).
    pub fn phy_write(
        &mut self,
        phy: PhyAddr,
        reg: RegAddr,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let addr = self.check_phy(phy)?;
        match self.phy_access() {
            PhyAccess::Global2 => self.g2_phy_write(addr, reg.get(), value),
            PhyAccess::Direct => self.dev_write(addr, reg.get(), value),
            PhyAccess::PpuGated => self.with_ppu_paused(|s| s.dev_write(addr, reg.get(), value)),
        }
    }

    /// Bounded wait for Global2 SMI_PHY_CMD BUSY to clear. The unit stays known idle
    /// afterwards only for a sole bus master
    /// ([`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master)): every
    /// PHY command (Clause 22 here, Clause 45 in [`crate::c45`]) ends with this wait, and
    /// without that opt-in the next command waits again first, as Linux does.
    pub(crate) fn phy_wait(&mut self) -> Result<u16, Error<M::Error>> {
        let g2 = self.map.global2;
        self.ready &= !READY_PHY;
        let v = self.wait_on(g2, g2::SMI_PHY_CMD, BUSY, 0, BusyWait::SmiPhyCmd)?;
        if self.sole_master {
            self.ready |= READY_PHY;
        }
        Ok(v)
    }

    /// Before a Global2 SMI_PHY command: a bounded BUSY wait unless the unit is known idle
    /// (see [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master)).
    pub(crate) fn ensure_phy_ready(&mut self) -> Result<(), Error<M::Error>> {
        if !self.known_idle(READY_PHY) {
            self.phy_wait()?;
        }
        self.ready &= !READY_PHY;
        Ok(())
    }

    /// Global2 SMI_PHY read: CMD write, bounded BUSY wait, DATA read.
    pub(crate) fn g2_phy_read(&mut self, phy: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        let g2 = self.map.global2;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_CMD, smi_phy_cmd(C22Op::Read, phy, reg))?;
        self.phy_wait()?;
        self.dev_read(g2, g2::SMI_PHY_DATA)
    }

    /// Global2 SMI_PHY write: DATA write, CMD write, bounded BUSY wait.
    pub(crate) fn g2_phy_write(
        &mut self,
        phy: u8,
        reg: u8,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let g2 = self.map.global2;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_DATA, value)?;
        self.dev_write(g2, g2::SMI_PHY_CMD, smi_phy_cmd(C22Op::Write, phy, reg))?;
        self.phy_wait().map(|_| ())
    }

    /// The switch's internal MDIO bus as an [`Mdio`], so PHY drivers can sit on it.
    pub fn internal_mdio(&mut self) -> InternalMdio<'_, M, C> {
        InternalMdio { smi: self }
    }
}

mod mgmt;
mod trunk;
pub use trunk::{TRUNK_IDS, TRUNK_MASKS};
