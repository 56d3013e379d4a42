//! Clause 45 access to the internal PHYs and SERDES through Global2 SMI_PHY
//! (docs/mv88e6xxx.md#clause-45): [`Switch::phy_read_c45`] / [`Switch::phy_write_c45`], the
//! SERDES lanes of the 6341, 6390, 6390X and 6393 families ([`Switch::serdes_read`] /
//! [`Switch::serdes_write`], the CMODE-checked [`Switch::serdes_lane`],
//! [`Switch::serdes_read_checked`] / [`Switch::serdes_write_checked`];
//! docs/mv88e6xxx.md#6393x-serdes, #6390-and-6390x-serdes), and [`InternalMdio`] as an
//! [`Mdio45`].

use hwtimer_core::Continuous;
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr};

use crate::chip::{Chip, Family, PhyAccess};
use crate::error::{ConfigError, Error};
use crate::global2::InternalMdio;
use crate::regs::port::PORT_STS;
use crate::regs::{G2_SMI_PHY_CMD_REG, SmiPhyCmd, g2};
use crate::switch::Switch;

/// The MMD that holds the SERDES registers of the 6341, 6390 and 6393 families: 4, PHY
/// XS (Linux `serdes.c` / `pcs-639x.c` read them with `MDIO_MMD_PHYXS`;
/// docs/mv88e6xxx.md#6393x-serdes).
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

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// `phy` if this chip can run Clause 45 frames to it: the chip reaches its PHYs
    /// through Global2 SMI_PHY and `phy` is on its PHY bus.
    fn check_c45(&self, phy: PhyAddr) -> Result<u8, Error<M::Error>> {
        self.check_c45_chip()?;
        self.check_phy(phy)
    }

    /// [`ConfigError::NoClause45`] on a chip without Global2 PHY access.
    fn check_c45_chip(&self) -> Result<(), Error<M::Error>> {
        match self.chip() {
            Some(chip) if chip.info().phy_access != PhyAccess::Global2 => {
                Err(ConfigError::NoClause45 { chip }.into())
            }
            _ => Ok(()),
        }
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
    /// SMI_PHY BUSY is polled before each of the two commands, as Linux does (with
    /// [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master) only when
    /// its state is unknown). Frames: 8 in direct mode and with the 6393X remap when every
    /// BUSY clears at its first poll (6 for a sole bus master); 24 in indirect mode
    /// without the remap (each Global2 access is itself 3 frames; 18).
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
        self.c45_read(addr, devad, reg)
    }

    /// The read of [`phy_read_c45`](Self::phy_read_c45) at `addr`, which the caller checked.
    pub(crate) fn c45_read(
        &mut self,
        addr: u8,
        devad: DevAddr,
        reg: u16,
    ) -> Result<u16, Error<M::Error>> {
        let g2 = self.address_map().global2;
        self.c45_address(addr, devad, reg)?;
        // BUSY checked again before the read command (skipped for a sole bus master, whose
        // address frame's wait left SMI_PHY known clear).
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
        self.c45_write(addr, devad, reg, value)
    }

    /// The write of [`phy_write_c45`](Self::phy_write_c45) at `addr`, which the caller
    /// checked.
    pub(crate) fn c45_write(
        &mut self,
        addr: u8,
        devad: DevAddr,
        reg: u16,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let g2 = self.address_map().global2;
        self.c45_address(addr, devad, reg)?;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_DATA, value)?;
        self.dev_write(g2, g2::SMI_PHY_CMD, c45_cmd(C45Op::WriteData, addr, devad))?;
        self.phy_wait().map(|_| ())
    }

    /// The lane map of this chip (docs/mv88e6xxx.md#6390-and-6390x-serdes): Linux's
    /// `serdes_get_lane` op of its ops table. `None` on every other chip, and before
    /// identification.
    fn lane_map(&self) -> Option<LaneMap> {
        match self.chip()? {
            Chip::Mv6190 | Chip::Mv6191 | Chip::Mv6290 | Chip::Mv6390 => Some(LaneMap::Mv6390),
            Chip::Mv6190X | Chip::Mv6390X => Some(LaneMap::Mv6390X),
            Chip::Mv6141 | Chip::Mv6341 => Some(LaneMap::Mv6341),
            c if c.family() == Family::Mv6393 => Some(LaneMap::Mv6393),
            _ => None,
        }
    }

    /// The lane map and the PHY address of the SERDES lane port `port` uses when it has
    /// one, without reading CMODE; [`ConfigError::SerdesLane`] for a port that never has
    /// one on this chip (or that the chip does not route).
    pub(crate) fn serdes_lane_addr(&self, port: u8) -> Result<(LaneMap, u8), Error<M::Error>> {
        let refused = ConfigError::SerdesLane { port };
        let map = self.lane_map().ok_or(refused)?;
        let on_chip = self.chip().is_some_and(|c| c.is_valid_port(port));
        let addr = map.lane_addr(port).filter(|_| on_chip).ok_or(refused)?;
        // The Clause 45 path is Global2 SMI_PHY on every chip with a lane map.
        self.check_c45_chip()?;
        Ok((map, addr))
    }

    /// Read register `reg` of the SERDES lane of port `port` (MMD 4, [`SERDES_DEVAD`]): a
    /// Clause 45 read (as [`phy_read_c45`](Self::phy_read_c45)) at the PHY address of the
    /// lane that port uses when its CMODE is a SERDES mode (Linux `serdes_get_lane`;
    /// docs/mv88e6xxx.md#6393x-serdes, #6390-and-6390x-serdes):
    ///
    /// - 6393 family (6191X, 6193X, 6361, 6393X): ports 0, 9, 10, lane address = port;
    /// - 6390 (6190, 6191, 6290, 6390): port 9 at 0x09, port 10 at 0x0A;
    /// - 6390X (6190X, 6390X): as the 6390, plus ports 2, 3, 4 at 0x12, 0x13, 0x14 (lanes
    ///   1–3 of port 9) and ports 5, 6, 7 at 0x15, 0x16, 0x17 (lanes 1–3 of port 10);
    /// - 6341 family (6141, 6341): port 5 at 0x15.
    ///
    /// For example 0xA003 is the 1000BASE-X/SGMII PHY status, 0x2001 its BMSR, 0x1001 the
    /// 10GBASE-R STAT1 (Linux `serdes.h`).
    ///
    /// This does **not** read CMODE (no frame more than the Clause 45 access): on a port
    /// whose CMODE is not a SERDES mode, or a 6390X port 2–7 whose lane port 9 or 10 uses
    /// for XAUI/RXAUI, the read reaches whatever answers at that address.
    /// [`serdes_read_checked`](Self::serdes_read_checked) checks CMODE first.
    ///
    /// Errors, before any frame: [`ConfigError::SerdesLane`] for a port without a lane in
    /// the list above (including a port the chip does not route) and on every other chip;
    /// then as [`phy_read_c45`](Self::phy_read_c45) ([`Error::Timeout`] with
    /// [`BusyWait::SmiPhyCmd`](crate::BusyWait::SmiPhyCmd), [`Error::Mdio`]).
    pub fn serdes_read(&mut self, port: u8, reg: u16) -> Result<u16, Error<M::Error>> {
        let (_, lane) = self.serdes_lane_addr(port)?;
        self.c45_read(lane, SERDES_DEVAD, reg)
    }

    /// Write `value` to register `reg` of port `port`'s SERDES lane; the lane, the access
    /// and the errors are as [`serdes_read`](Self::serdes_read) (a Clause 45 write as
    /// [`phy_write_c45`](Self::phy_write_c45), in MMD 4).
    pub fn serdes_write(&mut self, port: u8, reg: u16, value: u16) -> Result<(), Error<M::Error>> {
        let (_, lane) = self.serdes_lane_addr(port)?;
        self.c45_write(lane, SERDES_DEVAD, reg, value)
    }

    /// The CMODE (PORT_STS \[3:0\]) of port `port`: one port register read.
    fn cmode(&mut self, port: u8) -> Result<u8, Error<M::Error>> {
        let sts = self.port_read(port, PORT_STS)?;
        Ok((sts & CMODE_MASK) as u8)
    }

    /// The lane port `port` uses now, from the CMODEs, or the port and CMODE that rule it
    /// out.
    fn serdes_lane_in_use(
        &mut self,
        port: u8,
    ) -> Result<Result<SerdesLane, NotInUse>, Error<M::Error>> {
        let (map, addr) = self.serdes_lane_addr(port)?;
        let family = self.family();
        // The port whose CMODE decides whether the lane exists: the port itself, or on
        // the 6390X's ports 2–7 the port (9 or 10) whose lanes 1–3 they take over.
        let owner = map.lane_owner(port);
        let owner_cmode = self.cmode(owner)?;
        let owner_mode = SerdesMode::from_cmode(family, owner_cmode)
            .filter(|&m| map.owner_allows(port, owner, m));
        let Some(owner_mode) = owner_mode else {
            return Ok(Err(NotInUse {
                cmode_port: owner,
                cmode: owner_cmode,
            }));
        };
        let mode = if owner == port {
            owner_mode
        } else {
            // The borrowing port itself must be in 1000BASE-X.
            let own = self.cmode(port)?;
            match SerdesMode::from_cmode(family, own) {
                Some(SerdesMode::Base1000X) => SerdesMode::Base1000X,
                _ => {
                    return Ok(Err(NotInUse {
                        cmode_port: port,
                        cmode: own,
                    }));
                }
            }
        };
        Ok(Ok(SerdesLane {
            port,
            phy: PhyAddr::from_bits(addr),
            mode,
        }))
    }

    /// Whether port `port`'s SERDES lane is in use, and where: the CMODE (PORT_STS
    /// \[3:0\]) of the port is read, and on the 6390X's ports 2–7 first that of port 9
    /// (ports 2–4) or 10 (ports 5–7), whose lanes 1–3 they use
    /// (docs/mv88e6xxx.md#6390-and-6390x-serdes). `Some` when Linux's `serdes_get_lane`
    /// would give a lane:
    ///
    /// - 6393 family, ports 0, 9, 10: CMODE 1000BASE-X (0x9), SGMII (0xA), 2500BASE-X
    ///   (0xB), 5GBASE-R (0xC), 10GBASE-R (0xD) or USXGMII (0xE);
    /// - 6390, ports 9, 10, and the 6341 family's port 5: 1000BASE-X, SGMII or
    ///   2500BASE-X;
    /// - 6390X, ports 9, 10: those, XAUI (0xC) or RXAUI (0xD); ports 2 and 5: the port in
    ///   1000BASE-X and port 9 (10) in 1000BASE-X, SGMII or 2500BASE-X; ports 3, 4, 6, 7:
    ///   the same, or port 9 (10) in RXAUI.
    ///
    /// `None` when the CMODEs rule the lane out. Frames: one port register read (1 frame
    /// direct, 3 indirect when SMI_CMD BUSY clears at once) per CMODE read, at most two;
    /// the second is not read when the first rules the lane out. Nothing is written.
    ///
    /// Errors: [`ConfigError::SerdesLane`] before any frame, as for
    /// [`serdes_read`](Self::serdes_read); then [`Error::Timeout`] with
    /// [`BusyWait::SmiCmd`](crate::BusyWait::SmiCmd) (indirect mode) and [`Error::Mdio`].
    pub fn serdes_lane(&mut self, port: u8) -> Result<Option<SerdesLane>, Error<M::Error>> {
        Ok(self.serdes_lane_in_use(port)?.ok())
    }

    /// The lane of `port` in use, or [`Error::SerdesCmode`].
    fn serdes_lane_checked(&mut self, port: u8) -> Result<SerdesLane, Error<M::Error>> {
        self.serdes_lane_in_use(port)?
            .map_err(|n| Error::SerdesCmode {
                port,
                cmode_port: n.cmode_port,
                cmode: n.cmode,
            })
    }

    /// [`serdes_read`](Self::serdes_read) only while the lane is in use: the CMODE check
    /// of [`serdes_lane`](Self::serdes_lane) first, then the Clause 45 read at the lane.
    ///
    /// Errors: as [`serdes_lane`](Self::serdes_lane); [`Error::SerdesCmode`] when the
    /// CMODEs rule the lane out (after the CMODE reads, before any SMI_PHY frame: nothing
    /// is written); then as [`phy_read_c45`](Self::phy_read_c45).
    pub fn serdes_read_checked(&mut self, port: u8, reg: u16) -> Result<u16, Error<M::Error>> {
        let lane = self.serdes_lane_checked(port)?;
        self.c45_read(lane.phy.get(), SERDES_DEVAD, reg)
    }

    /// [`serdes_write`](Self::serdes_write) only while the lane is in use; the check and
    /// the errors are as [`serdes_read_checked`](Self::serdes_read_checked).
    pub fn serdes_write_checked(
        &mut self,
        port: u8,
        reg: u16,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let lane = self.serdes_lane_checked(port)?;
        self.c45_write(lane.phy.get(), SERDES_DEVAD, reg, value)
    }
}

/// Port register 0x00 PORT_STS CMODE field \[3:0\] (Linux `port.h`
/// `MV88E6XXX_PORT_STS_CMODE_MASK`).
const CMODE_MASK: u16 = 0x000F;

/// Which CMODE ruled a lane out.
#[derive(Debug, Clone, Copy)]
struct NotInUse {
    cmode_port: u8,
    cmode: u8,
}

/// The per-chip SERDES lane functions of Linux (`serdes.c`): which ports have a lane, at
/// which address, and which CMODEs put it in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneMap {
    /// `mv88e6390_serdes_get_lane`: 6190, 6191, 6290, 6390.
    Mv6390,
    /// `mv88e6390x_serdes_get_lane`: 6190X, 6390X.
    Mv6390X,
    /// `mv88e6393x_serdes_get_lane`: 6191X, 6193X, 6361, 6393X.
    Mv6393,
    /// `mv88e6341_serdes_get_lane`: 6141, 6341.
    Mv6341,
}

impl LaneMap {
    /// The PHY address of port `port`'s lane (`MV88E6390_PORT9_LANE0` ... in `serdes.h`).
    fn lane_addr(self, port: u8) -> Option<u8> {
        match (self, port) {
            (LaneMap::Mv6393, 0 | 9 | 10) => Some(port),
            (LaneMap::Mv6390 | LaneMap::Mv6390X, 9 | 10) => Some(port),
            // Port 9's lanes 1–3, then port 10's.
            (LaneMap::Mv6390X, 2) => Some(0x12),
            (LaneMap::Mv6390X, 3) => Some(0x13),
            (LaneMap::Mv6390X, 4) => Some(0x14),
            (LaneMap::Mv6390X, 5) => Some(0x15),
            (LaneMap::Mv6390X, 6) => Some(0x16),
            (LaneMap::Mv6390X, 7) => Some(0x17),
            // `MV88E6341_PORT5_LANE`.
            (LaneMap::Mv6341, 5) => Some(0x15),
            _ => None,
        }
    }

    /// The port whose CMODE decides whether `port`'s lane is in use.
    fn lane_owner(self, port: u8) -> u8 {
        match (self, port) {
            (LaneMap::Mv6390X, 2..=4) => 9,
            (LaneMap::Mv6390X, 5..=7) => 10,
            _ => port,
        }
    }

    /// Whether `owner` in mode `mode` leaves `port` its lane (`owner == port`: whether
    /// the port's own mode uses its lane).
    fn owner_allows(self, port: u8, owner: u8, mode: SerdesMode) -> bool {
        use SerdesMode::*;
        let gigabit = matches!(mode, Base1000X | Sgmii | Base2500X);
        match self {
            LaneMap::Mv6393 => true,
            LaneMap::Mv6390 | LaneMap::Mv6341 => gigabit,
            LaneMap::Mv6390X if owner == port => gigabit || matches!(mode, Xaui | Rxaui),
            // Linux: with the owner in RXAUI only its lanes 2 and 3 (ports 3, 4, 6, 7)
            // stay free; in XAUI none does.
            LaneMap::Mv6390X => gigabit || (mode == Rxaui && !matches!(port, 2 | 5)),
        }
    }
}

/// A SERDES mode of a port's CMODE (PORT_STS \[3:0\]; Linux `port.h`
/// `MV88E6XXX_PORT_STS_CMODE_*`, `MV88E6393X_PORT_STS_CMODE_*`;
/// docs/mv88e6xxx.md#6390-and-6390x-serdes). 0xC and 0xD mean XAUI and RXAUI on the 6390
/// family but 5GBASE-R and 10GBASE-R on the 6393 family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SerdesMode {
    /// 0x9: 1000BASE-X.
    Base1000X,
    /// 0xA: SGMII.
    Sgmii,
    /// 0xB: 2500BASE-X.
    Base2500X,
    /// 0xC on the 6390 family: XAUI (10GBASE-X4, four lanes).
    Xaui,
    /// 0xD on the 6390 family: RXAUI (10GBASE-X2, two lanes).
    Rxaui,
    /// 0xC on the 6393 family: 5GBASE-R.
    Base5GR,
    /// 0xD on the 6393 family: 10GBASE-R.
    Base10GR,
    /// 0xE on the 6393 family: USXGMII.
    Usxgmii,
}

impl SerdesMode {
    /// The SERDES mode CMODE value `cmode` (its low 4 bits) means on a chip of `family`,
    /// `None` for a non-SERDES mode (MII, RMII, RGMII, internal PHY, 100BASE-X ...), for
    /// 0xC–0xE on the 6341 family (its lane takes the three gigabit modes only), and on
    /// families without a lane map here (all but the 6341, 6390 and 6393 families).
    ///
    /// ```
    /// use mv88e6xxx_smi::{Family, SerdesMode};
    /// assert_eq!(SerdesMode::from_cmode(Family::Mv6390, 0xC), Some(SerdesMode::Xaui));
    /// assert_eq!(SerdesMode::from_cmode(Family::Mv6393, 0xC), Some(SerdesMode::Base5GR));
    /// assert_eq!(SerdesMode::from_cmode(Family::Mv6390, 0xE), None);
    /// ```
    pub fn from_cmode(family: Family, cmode: u8) -> Option<Self> {
        use SerdesMode::*;
        match (family, cmode & 0x0F) {
            (Family::Mv6341 | Family::Mv6390 | Family::Mv6393, 0x9) => Some(Base1000X),
            (Family::Mv6341 | Family::Mv6390 | Family::Mv6393, 0xA) => Some(Sgmii),
            (Family::Mv6341 | Family::Mv6390 | Family::Mv6393, 0xB) => Some(Base2500X),
            (Family::Mv6390, 0xC) => Some(Xaui),
            (Family::Mv6390, 0xD) => Some(Rxaui),
            (Family::Mv6393, 0xC) => Some(Base5GR),
            (Family::Mv6393, 0xD) => Some(Base10GR),
            (Family::Mv6393, 0xE) => Some(Usxgmii),
            _ => None,
        }
    }
}

/// A SERDES lane in use ([`Switch::serdes_lane`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SerdesLane {
    /// The port asked about.
    pub port: u8,
    /// The lane's address on the internal PHY bus (Clause 45, MMD [`SERDES_DEVAD`]).
    pub phy: PhyAddr,
    /// The port's mode (on the 6390X's ports 2–7 always 1000BASE-X).
    pub mode: SerdesMode,
}

/// Clause 45 on the switch's internal PHY bus: each access is one
/// [`Switch::phy_read_c45`] / [`Switch::phy_write_c45`] (address frame, then data frame, each
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
