//! Software reset and the wait after a hardware reset (docs/mv88e6xxx.md#reset).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::Error;
use crate::regs::{self, PPU_ENABLE, PPU_STATE_6352, PPU_STATE_MASK, PPU_STATE_POLLING, g1};
use crate::switch::Switch;

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

    /// The wait after a hardware reset: call it once the firmware has held the reset line
    /// for [`HW_RESET_ASSERT_NS`](crate::port::HW_RESET_ASSERT_NS), released it and waited [`HW_RESET_SETTLE_NS`](crate::port::HW_RESET_SETTLE_NS) (the
    /// driver has no GPIO). It waits, bounded, for G1_STS INIT_READY; a read of 0xFFFF
    /// (the switch not answering yet) does not count as ready. What the driver knew of the
    /// switch's state (busy bits seen clear, the FID/SID it wrote, a PPU hold) is forgotten,
    /// so the next access to each unit polls it first. Linux waits up to 1 s for
    /// EEPROM loading here: give the [`Config`](crate::Config) a timeout that long if the
    /// board has an EEPROM.
    ///
    /// Errors: [`Error::Timeout`] ([`BusyWait::InitReady`](crate::BusyWait::InitReady));
    /// [`Error::Mdio`].
    pub fn after_hardware_reset(&mut self) -> Result<u16, Error<M::Error>> {
        self.forget_switch_state();
        self.wait_g1_sts_ready()
    }
}
