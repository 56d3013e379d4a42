//! Software reset and the wait after a hardware reset (docs/mv88e6xxx.md#reset).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{BusyWait, Error};
use crate::regs::{
    self, CTL1_RELOAD_EEPROM, EEPROM_CMD_BUSY, EEPROM_CMD_RUNNING, G2_EEPROM_CMD, PPU_ENABLE,
    PPU_STATE_6352, PPU_STATE_MASK, PPU_STATE_POLLING, STS_EEPROM_DONE, g1,
};
use crate::switch::{Switch, finish};

use super::ops::ResetOp;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Software reset (Linux `mv88e6185_g1_reset` / `mv88e6352_g1_reset` /
    /// `mv88e6250_g1_reset`, per chip: docs/mv88e6xxx.md#per-family-port-ops): G1_CTL1
    /// read, written back with SW_RESET (and with the 6185 reset, used by the 6085, 6095,
    /// 6131 and 6185, PPU_ENABLE, which restarts the PHY polling unit); a bounded wait for
    /// INIT_READY; then, except with the 6250 reset, a bounded wait for the PPU to poll
    /// again (6185 reset: G1_STS \[15:14\] = 11; 6352 reset: G1_STS bit 15). A PPU hold of this driver
    /// ends (the reset restarts the PPU). Disable the ports and wait [`PORT_DRAIN_NS`](crate::port::PORT_DRAIN_NS)
    /// first if frames may be in flight.
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) before any frame; [`Error::Timeout`]
    /// ([`BusyWait::InitReady`](crate::BusyWait::InitReady), then
    /// [`BusyWait::PpuPolling`](crate::BusyWait::PpuPolling)); [`Error::Mdio`].
    pub fn software_reset(&mut self) -> Result<(), Error<M::Error>> {
        let reset = self.port_ops()?.reset_op();
        let ctl1 = self.g1_read(g1::CTL1)?;
        let mut v = ctl1 | regs::SW_RESET;
        if reset == ResetOp::M6185 {
            v |= PPU_ENABLE;
        }
        // A raw G1_CTL1 write: it ends any PPU hold.
        self.g1_write(g1::CTL1, v)?;
        self.ppu_forget();
        // As after a hardware reset, 0xFFFF (nothing answering) is not INIT_READY.
        self.wait_g1_sts_ready()?;
        let (mask, val) = match reset {
            ResetOp::M6185 => (PPU_STATE_MASK, PPU_STATE_POLLING),
            ResetOp::M6352 => (PPU_STATE_6352, PPU_STATE_6352),
            ResetOp::M6250 => return Ok(()),
        };
        self.wait_g1_sts(mask, val, crate::BusyWait::PpuPolling)
            .map(|_| ())
    }

    /// The wait before a hardware reset (Linux `hardware_reset_pre`, run by
    /// `mv88e6xxx_hardware_reset` in `chip.c` before it asserts the reset GPIO): a reset in
    /// the middle of an EEPROM load can interrupt the EEPROM's I2C transfer and leave the
    /// switch booting in a wrong mode. Per chip, as Linux (v6.12 `chip.c` ops tables):
    /// - [`EepromWait::G2Cmd`] chips: a bounded wait for G2_EEPROM_CMD BUSY, then RUNNING,
    ///   to clear (`mv88e6xxx_g2_eeprom_wait`);
    /// - [`EepromWait::G1Done`] chips (the 6250 family): G1_STS read once; if EEPROM done is
    ///   not set (a read clears it), an EEPROM reload through G1_CTL1 RELOAD_EEPROM, a
    ///   bounded wait for that bit to clear, then a bounded wait for EEPROM done
    ///   (`mv88e6250_g1_wait_eeprom_done_prereset`);
    /// - other chips: nothing (no frame).
    ///
    /// Errors: [`Error::Timeout`] ([`BusyWait::EepromCmd`], [`BusyWait::EepromReload`],
    /// [`BusyWait::EepromDone`]); [`Error::Mdio`].
    pub fn before_hardware_reset(&mut self) -> Result<(), Error<M::Error>> {
        match self.chip().and_then(EepromWait::of) {
            Some(EepromWait::G2Cmd) => self.g2_eeprom_wait(),
            Some(EepromWait::G1Done) => {
                let sts = self.g1_read(g1::STS)?;
                if sts != crate::regs::NOT_ANSWERING && sts & STS_EEPROM_DONE != 0 {
                    return Ok(());
                }
                let ctl1 = self.g1_read(g1::CTL1)?;
                self.g1_write(g1::CTL1, ctl1 | CTL1_RELOAD_EEPROM)?;
                self.wait_on(
                    self.map.global1,
                    g1::CTL1,
                    CTL1_RELOAD_EEPROM,
                    0,
                    BusyWait::EepromReload,
                )?;
                self.g1_eeprom_done_wait()
            }
            None => Ok(()),
        }
    }

    /// The wait after a hardware reset: call it once the firmware has held the reset line
    /// for [`HW_RESET_ASSERT_NS`](crate::port::HW_RESET_ASSERT_NS), released it and waited
    /// [`HW_RESET_SETTLE_NS`](crate::port::HW_RESET_SETTLE_NS) (the driver has no GPIO).
    /// What the driver knew of the switch's state (busy bits seen clear, the FID/SID it
    /// wrote, a PPU hold) is forgotten, so the next access to each unit polls it first.
    /// Then, as Linux's `hardware_reset_post` per chip ([`EepromWait`]): a bounded wait
    /// for the EEPROM load to end (G2_EEPROM_CMD BUSY and RUNNING clear, or on the 6250
    /// family G1_STS EEPROM done set, 0xFFFF not counting); then a bounded wait for G1_STS
    /// INIT_READY (a read of 0xFFFF, the switch not answering yet, does not count).
    /// Linux waits up to 1 s for the 6250 family's EEPROM done and 50 ms for the others:
    /// give the [`Config`](crate::Config) a timeout that long if the board's EEPROM holds
    /// much.
    ///
    /// Errors: [`Error::Timeout`] ([`BusyWait::EepromCmd`], [`BusyWait::EepromDone`],
    /// then [`BusyWait::InitReady`](crate::BusyWait::InitReady)); [`Error::Mdio`].
    pub fn after_hardware_reset(&mut self) -> Result<u16, Error<M::Error>> {
        self.forget_switch_state();
        match self.chip().and_then(EepromWait::of) {
            Some(EepromWait::G2Cmd) => self.g2_eeprom_wait()?,
            Some(EepromWait::G1Done) => self.g1_eeprom_done_wait()?,
            None => {}
        }
        self.wait_g1_sts_ready()
    }

    /// Linux `mv88e6xxx_g2_eeprom_wait`: BUSY clear, then RUNNING clear, each bounded.
    fn g2_eeprom_wait(&mut self) -> Result<(), Error<M::Error>> {
        let g2 = self.map.global2;
        for bit in [EEPROM_CMD_BUSY, EEPROM_CMD_RUNNING] {
            self.wait_on(g2, G2_EEPROM_CMD, bit, 0, BusyWait::EepromCmd)?;
        }
        Ok(())
    }

    /// Linux `mv88e6xxx_g1_wait_eeprom_done`: G1_STS EEPROM done set, 0xFFFF (nothing
    /// answering) not counting.
    fn g1_eeprom_done_wait(&mut self) -> Result<(), Error<M::Error>> {
        let g1 = self.map.global1;
        let poller = self.poller;
        let r = poller.try_poll(
            || self.dev_read(g1, g1::STS),
            |v| *v != crate::regs::NOT_ANSWERING && v & STS_EEPROM_DONE != 0,
        );
        finish(r, BusyWait::EepromDone).map(|_| ())
    }
}

/// Which EEPROM wait a chip's hardware reset takes (Linux v6.12 `chip.c`,
/// `hardware_reset_pre` / `hardware_reset_post` of each ops table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EepromWait {
    /// `mv88e6xxx_g2_eeprom_wait` before and after: the 6141, 6172, 6176, 6190, 6190X,
    /// 6191, 6240, 6290, 6320, 6321, 6341, 6352, 6390, 6390X and the 6393 family (6191X,
    /// 6193X, 6361, 6393X).
    G2Cmd,
    /// `mv88e6250_g1_wait_eeprom_done_prereset` before, `mv88e6xxx_g1_wait_eeprom_done`
    /// after: the 6250 family (6020, 6071, 6220, 6250), whose G2 RUNNING bit can stay set
    /// with no EEPROM (Linux commit e44894e2aa4e).
    G1Done,
}

impl EepromWait {
    /// The chip's EEPROM wait; `None` for the chips whose ops have no
    /// `hardware_reset_pre`/`_post` (6085, 6095, 6097, 6123, 6131, 6161, 6165, 6171, 6175,
    /// 6185, 6350, 6351).
    pub const fn of(chip: Chip) -> Option<Self> {
        use Chip::*;
        match chip {
            Mv6141 | Mv6172 | Mv6176 | Mv6190 | Mv6190X | Mv6191 | Mv6240 | Mv6290 | Mv6320
            | Mv6321 | Mv6341 | Mv6352 | Mv6390 | Mv6390X | Mv6191X | Mv6193X | Mv6361
            | Mv6393X => Some(EepromWait::G2Cmd),
            Mv6020 | Mv6071 | Mv6220 | Mv6250 => Some(EepromWait::G1Done),
            _ => None,
        }
    }
}
