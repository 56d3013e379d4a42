//! Clause 45 access to the internal PHYs and SERDES through Global2 SMI_PHY
//! (docs/mv88e6xxx.md#clause-45): [`Smi::phy_read_c45`] / [`Smi::phy_write_c45`], the
//! 6393-family SERDES lanes ([`Smi::serdes_read`] / [`Smi::serdes_write`],
//! docs/mv88e6xxx.md#6393x-serdes), and [`InternalMdio`] as an [`Mdio45`].

use hwtimer_core::Continuous;
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr};

use crate::chip::{Family, PhyAccess};
use crate::error::{ConfigError, Error};
use crate::regs::{G2_SMI_PHY_CMD_REG, SmiPhyCmd, g2};
use crate::smi::{InternalMdio, Smi};

/// The MMD that holds the 6393-family SERDES registers: 4, PHY XS (Linux `serdes.c` /
/// `pcs-639x.c` read them with `MDIO_MMD_PHYXS`; docs/mv88e6xxx.md#6393x-serdes).
pub const SERDES_DEVAD: DevAddr = DevAddr::PHYXS;

/// The Clause 45 operations of G2_SMI_PHY_CMD (MODE bit 12 clear), as its OP field
/// \[11:10\] encodes them (docs/mv88e6xxx.md#clause-45).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum C45Op {
    /// OP 00: an address frame; the address is taken from G2_SMI_PHY_DATA.
    WriteAddr,
    /// OP 01: a write frame; the data is taken from G2_SMI_PHY_DATA.
    WriteData,
    /// OP 11: a read frame; the data lands in G2_SMI_PHY_DATA when BUSY clears.
    ReadData,
}

/// The G2_SMI_PHY_CMD word for Clause 45 operation `op` on port address `phy`, MMD
/// `devad`: BUSY, FUNC internal (0), MODE 45 (0), OP, the port address in DEV_ADDR \[9:5\]
/// and the MMD in REG_ADDR \[4:0\].
// `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
#[allow(clippy::arithmetic_side_effects)]
fn c45_cmd(op: C45Op, phy: u8, devad: DevAddr) -> u16 {
    let op = match op {
        C45Op::WriteAddr => 0b00,
        C45Op::WriteData => 0b01,
        C45Op::ReadData => 0b11,
    };
    let mut w = SmiPhyCmd::new(0);
    w.write(
        G2_SMI_PHY_CMD_REG::BUSY::SET
            + G2_SMI_PHY_CMD_REG::FUNC::Internal
            + G2_SMI_PHY_CMD_REG::MODE::Clause45
            + G2_SMI_PHY_CMD_REG::OP.val(op)
            + G2_SMI_PHY_CMD_REG::DEV_ADDR.val(u16::from(phy & 0x1F))
            + G2_SMI_PHY_CMD_REG::REG_ADDR.val(u16::from(devad.get())),
    );
    w.get()
}

impl<M: Mdio, C: Continuous + Copy> Smi<M, C> {
    /// `phy` if this chip can run Clause 45 frames to it: the chip reaches its PHYs
    /// through Global2 SMI_PHY and `phy` is on its PHY bus.
    fn check_c45(&self, phy: PhyAddr) -> Result<u8, Error<M::Error>> {
        if let Some(chip) = self.chip()
            && chip.info().phy_access != PhyAccess::Global2
        {
            return Err(ConfigError::NoClause45 { chip }.into());
        }
        self.check_phy(phy)
    }

    /// Address frame: G2_SMI_PHY_DATA = `reg`, G2_SMI_PHY_CMD = WRITE_ADDR, bounded BUSY
    /// wait. BUSY is polled first only when its state is unknown.
    fn c45_address(&mut self, phy: u8, devad: DevAddr, reg: u16) -> Result<(), Error<M::Error>> {
        let g2 = self.address_map().global2;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_DATA, reg)?;
        self.dev_write(g2, g2::SMI_PHY_CMD, c45_cmd(C45Op::WriteAddr, phy, devad))?;
        self.phy_wait().map(|_| ())
    }

    /// Clause 45 read of register `reg` of MMD `devad` at PHY address `phy` on the
    /// switch's internal PHY bus, through Global2 SMI_PHY (Linux
    /// `mv88e6xxx_g2_smi_phy_read_c45`; docs/mv88e6xxx.md#clause-45):
    ///
    /// 1. the address frame: G2_SMI_PHY_DATA written with `reg`, G2_SMI_PHY_CMD written with
    ///    BUSY | MODE 45 | OP 00 (write address) | `phy` \[9:5\] | `devad` \[4:0\], bounded
    ///    BUSY wait;
    /// 2. the read frame: G2_SMI_PHY_CMD written with OP 11 (read data), bounded BUSY wait,
    ///    G2_SMI_PHY_DATA read.
    ///
    /// SMI_PHY BUSY is polled before step 1 only when its state is unknown (first use, or
    /// after a failure): the "known clear" rule of [`Smi`]. Frames: 6 in direct mode and
    /// with the 6393X remap when every BUSY clears at its first poll; 18 in indirect mode
    /// without the remap (each Global2 access is itself 3 frames).
    ///
    /// Errors, before any frame: [`ConfigError::NoClause45`] on a chip without Global2
    /// PHY access (6085, 6095, 6131, 6185, 6165), [`ConfigError::Phy`] for a PHY address off
    /// the chip's PHY bus. Then [`Error::Timeout`] with [`BusyWait::SmiPhyCmd`] when
    /// SMI_PHY BUSY does not clear within the bound (nothing more is written), and
    /// [`Error::Mdio`].
    ///
    /// [`BusyWait::SmiPhyCmd`]: crate::BusyWait::SmiPhyCmd
    pub fn phy_read_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
    ) -> Result<u16, Error<M::Error>> {
        let addr = self.check_c45(phy)?;
        let g2 = self.address_map().global2;
        self.c45_address(addr, devad, reg)?;
        // The address frame's wait left SMI_PHY known clear.
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_CMD, c45_cmd(C45Op::ReadData, addr, devad))?;
        self.phy_wait()?;
        self.dev_read(g2, g2::SMI_PHY_DATA)
    }

    /// Clause 45 write of `value` to register `reg` of MMD `devad` at PHY address `phy`:
    /// the address frame as in [`phy_read_c45`](Self::phy_read_c45), then
    /// G2_SMI_PHY_DATA written with `value`, G2_SMI_PHY_CMD with OP 01 (write data),
    /// bounded BUSY wait (Linux `mv88e6xxx_g2_smi_phy_write_c45`). Frames as for a read.
    ///
    /// Errors: as [`phy_read_c45`](Self::phy_read_c45).
    pub fn phy_write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let addr = self.check_c45(phy)?;
        let g2 = self.address_map().global2;
        self.c45_address(addr, devad, reg)?;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_DATA, value)?;
        self.dev_write(g2, g2::SMI_PHY_CMD, c45_cmd(C45Op::WriteData, addr, devad))?;
        self.phy_wait().map(|_| ())
    }

    /// The PHY address of port `port`'s SERDES lane on a 6393-family chip (6191X, 6193X,
    /// 6361, 6393X): the lane address is the port number, for ports 0, 9 and 10 (Linux
    /// `mv88e6393x_serdes_get_lane`, docs/mv88e6xxx.md#6393x-serdes).
    fn serdes_lane(&self, port: u8) -> Result<PhyAddr, Error<M::Error>> {
        let on_chip = self.chip().is_none_or(|c| c.is_valid_port(port));
        match (self.family(), port) {
            (Family::Mv6393, 0 | 9 | 10) if on_chip => Ok(PhyAddr::from_bits(port)),
            _ => Err(ConfigError::SerdesLane { port }.into()),
        }
    }

    /// Read register `reg` of the SERDES lane of port `port` (MMD 4, [`SERDES_DEVAD`]) on a
    /// 6393-family chip: a [`phy_read_c45`](Self::phy_read_c45) at the lane's PHY address,
    /// which is the port number (ports 0, 9 and 10; docs/mv88e6xxx.md#6393x-serdes). For
    /// example 0xA003 is the 1000BASE-X/SGMII PHY status, 0x2001 its BMSR, 0x1001 the
    /// 10GBASE-R STAT1 (Linux `serdes.h`).
    ///
    /// Linux reaches the lane only while the port's CMODE is a SERDES mode (1000BASE-X,
    /// SGMII, 2500BASE-X, 5GBASE-R, 10GBASE-R, USXGMII); this driver does not read CMODE:
    /// on a port strapped to another mode the read reaches whatever answers at that address.
    ///
    /// Errors, before any frame: [`ConfigError::SerdesLane`] for any other port or chip
    /// (including a lane port the chip does not route); then as
    /// [`phy_read_c45`](Self::phy_read_c45).
    pub fn serdes_read(&mut self, port: u8, reg: u16) -> Result<u16, Error<M::Error>> {
        let lane = self.serdes_lane(port)?;
        self.phy_read_c45(lane, SERDES_DEVAD, reg)
    }

    /// Write `value` to register `reg` of port `port`'s SERDES lane; the access and errors
    /// are as [`serdes_read`](Self::serdes_read) (a [`phy_write_c45`](Self::phy_write_c45)
    /// in MMD 4).
    pub fn serdes_write(&mut self, port: u8, reg: u16, value: u16) -> Result<(), Error<M::Error>> {
        let lane = self.serdes_lane(port)?;
        self.phy_write_c45(lane, SERDES_DEVAD, reg, value)
    }
}

/// Clause 45 on the switch's internal PHY bus: each access is one
/// [`Smi::phy_read_c45`] / [`Smi::phy_write_c45`] (address frame, then data frame, each
/// BUSY-bounded), with their errors.
impl<M: Mdio, C: Continuous + Copy> Mdio45 for InternalMdio<'_, M, C> {
    fn read_c45(&mut self, phy: PhyAddr, devad: DevAddr, reg: u16) -> Result<u16, Self::Error> {
        self.smi.phy_read_c45(phy, devad, reg)
    }

    fn write_c45(
        &mut self,
        phy: PhyAddr,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Self::Error> {
        self.smi.phy_write_c45(phy, devad, reg, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c45_commands_put_the_port_in_dev_and_the_mmd_in_reg() {
        // BUSY | MODE 45 (bit 12 clear) | OP | port 9 << 5 | MMD 4.
        assert_eq!(c45_cmd(C45Op::WriteAddr, 9, DevAddr::PHYXS), 0x8124);
        assert_eq!(c45_cmd(C45Op::WriteData, 9, DevAddr::PHYXS), 0x8524);
        assert_eq!(c45_cmd(C45Op::ReadData, 9, DevAddr::PHYXS), 0x8D24);
        assert_eq!(
            c45_cmd(C45Op::ReadData, 0x3F, DevAddr::from_bits(31)),
            0x8FFF
        );
    }
}
