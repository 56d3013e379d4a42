//! Errata applied through the ports' hidden registers, per chip as Linux does them
//! (torvalds/linux `drivers/net/dsa/mv88e6xxx/chip.c` `setup_errata` ops, `port_hidden.c`,
//! `port.h`; docs/mv88e6xxx.md#errata): v6.12 for the 6341/6390/6393 families;
//! `mv88e6320_setup_errata` (the 6320 family) arrived in v6.15, commit 1ebc8e1ef906.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{BusyWait, Error};
use crate::port::PortState;
use crate::regs::{
    HIDDEN_BLOCK_SHIFT, HIDDEN_BUSY, HIDDEN_CTRL_PORT, HIDDEN_DATA_PORT, HIDDEN_PORT_SHIFT,
    HIDDEN_WRITE, PORT_RESERVED_1A,
};
use crate::switch::Switch;

/// Which `setup_errata` op a chip has in Linux (`chip.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Errata {
    /// `mv88e6390_setup_errata` (6190, 6190X, 6191, 6290, 6390, 6390X): unless every
    /// port's hidden register (block 0xF, port n, register 0) already reads
    /// [`ERRATA_6390_VALUE`], all ports Disabled, that value written to each port's, then
    /// a software reset ("The 6390 copper ports have an errata").
    Copper6390,
    /// `mv88e6320_setup_errata` (6320, 6321): erratum 3.3 "RGMII timing may be out of spec
    /// when transmit delay is enabled": hidden register block 0, port 0xF, register 7
    /// written with [`ERRATA_6320_VALUE`], then read back once.
    RgmiiTx6320,
}

/// The value Linux's `mv88e6390_setup_errata` writes to each port's hidden register.
pub const ERRATA_6390_VALUE: u16 = 0x01C0;
/// The value Linux's `mv88e6320_setup_errata` writes to hidden register (0, 0xF, 7).
pub const ERRATA_6320_VALUE: u16 = 0xE000;

impl Errata {
    /// The chip's errata op; `None` where Linux has none (every other chip: the 6393
    /// family's SERDES errata are applied when a SERDES lane is powered up, not here).
    pub const fn of(chip: Chip) -> Option<Self> {
        use Chip::*;
        match chip {
            Mv6190 | Mv6190X | Mv6191 | Mv6290 | Mv6390 | Mv6390X => Some(Errata::Copper6390),
            Mv6320 | Mv6321 => Some(Errata::RgmiiTx6320),
            _ => None,
        }
    }
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Apply the chip's errata as Linux's `setup_errata` op does (called by Linux's
    /// `mv88e6xxx_setup` first, before any port is configured): see [`Errata`]. Call it
    /// once after reset and before port setup; on a chip without errata it sends no
    /// frame. On the 6320/6321 it is what allows an RGMII transmit delay
    /// ([`port_set_rgmii_delay`](Self::port_set_rgmii_delay)). The 6390 sequence ends with
    /// [`software_reset`](Self::software_reset), whose waits apply.
    ///
    /// Each hidden-register access waits, bounded, for the control word's BUSY to be
    /// clear first (Linux's write does not wait; this driver never writes into a busy
    /// unit), and a read waits for it again before reading the data.
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature)
    /// ([`Feature::PortOps`](crate::Feature::PortOps)) before any frame on a chip without
    /// port ops; [`Error::Timeout`] ([`BusyWait::HiddenBusy`], or the software reset's);
    /// [`Error::Mdio`].
    pub fn apply_errata(&mut self) -> Result<(), Error<M::Error>> {
        let Some(chip) = self.chip() else {
            return Ok(());
        };
        self.port_ops()?;
        match Errata::of(chip) {
            Some(Errata::Copper6390) => {
                let n = chip.info().num_ports;
                let mut applied = true;
                for port in 0..n {
                    if self.hidden_read(0xF, port, 0)? != ERRATA_6390_VALUE {
                        applied = false;
                        break;
                    }
                }
                if !applied {
                    for port in 0..n {
                        self.port_set_state(port, PortState::Disabled)?;
                    }
                    for port in 0..n {
                        self.hidden_write(0xF, port, 0, ERRATA_6390_VALUE)?;
                    }
                    self.software_reset()?;
                }
            }
            Some(Errata::RgmiiTx6320) => {
                self.hidden_write(0, 0xF, 7, ERRATA_6320_VALUE)?;
                self.hidden_read(0, 0xF, 7)?;
            }
            None => {}
        }
        self.errata_applied = true;
        Ok(())
    }

    fn hidden_ctrl(block: u8, port: u8, reg: u8) -> u16 {
        (u16::from(block & 0xF) << HIDDEN_BLOCK_SHIFT)
            | (u16::from(port & 0x1F) << HIDDEN_PORT_SHIFT)
            | u16::from(reg & 0x1F)
    }

    fn hidden_wait(&mut self) -> Result<(), Error<M::Error>> {
        let dev = self.port_dev(HIDDEN_CTRL_PORT)?;
        self.wait_on(dev, PORT_RESERVED_1A, HIDDEN_BUSY, 0, BusyWait::HiddenBusy)
            .map(drop)
    }

    /// Linux `mv88e6xxx_port_hidden_write`: the value to port 5 register 0x1A, then the
    /// control word (BUSY | WRITE | block | port | reg) to port 4 register 0x1A.
    fn hidden_write(
        &mut self,
        block: u8,
        port: u8,
        reg: u8,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        self.hidden_wait()?;
        self.port_write(HIDDEN_DATA_PORT, PORT_RESERVED_1A, value)?;
        let ctrl = HIDDEN_BUSY | HIDDEN_WRITE | Self::hidden_ctrl(block, port, reg);
        self.port_write(HIDDEN_CTRL_PORT, PORT_RESERVED_1A, ctrl)
    }

    /// Linux `mv88e6xxx_port_hidden_read`: the control word (BUSY | block | port | reg),
    /// a wait for BUSY to clear, then port 5 register 0x1A.
    fn hidden_read(&mut self, block: u8, port: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        self.hidden_wait()?;
        let ctrl = HIDDEN_BUSY | Self::hidden_ctrl(block, port, reg);
        self.port_write(HIDDEN_CTRL_PORT, PORT_RESERVED_1A, ctrl)?;
        self.hidden_wait()?;
        self.port_read(HIDDEN_DATA_PORT, PORT_RESERVED_1A)
    }
}
