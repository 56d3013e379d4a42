//! The 6393 family's SERDES errata 4.6, 4.8 and 5.2 (Linux v6.12 torvalds/linux
//! `drivers/net/dsa/mv88e6xxx/pcs-639x.c` `mv88e6393x_erratum_4_6`,
//! `mv88e6393x_erratum_4_8`, `mv88e6393x_erratum_5_2`, `serdes.h`;
//! docs/mv88e6xxx.md#errata). Erratum 4.6 runs once per lane when the lane is set up
//! ([`Switch::serdes_6393x_erratum_4_6`]), as Linux's `mv88e6393x_pcs_init` runs it.
//!
//! Linux applies them when phylink configures a lane (`mv88e6393x_sgmii_pcs_post_config`,
//! the 1000BASE-X, SGMII and 2500BASE-X interfaces: 4.8; `mv88e6393x_xg_pcs_post_config`
//! for 10GBASE-R: 5.2), after the CMODE is set and before the lane is powered up.
//! [`Switch::serdes_6393x_apply_errata`] applies both, chosen by the lane's PCS selection in
//! POC, at the same point of a firmware's bring-up.

use hwtimer_core::Continuous;
use mdio_bus::{DevAddr, Mdio};

use crate::c45::LaneMap;
use crate::error::{ConfigError, Error};
use crate::regs::serdes;
use crate::switch::Switch;

/// POC PCS selection mask (`MV88E6393X_SERDES_POC_PCS_MASK`).
const POC_PCS_MASK: u16 = 0x0007;
/// POC PCS 1000BASE-X, 2500BASE-X, SGMII PHY side, SGMII MAC side, 10GBASE-R
/// (`_POC_PCS_1000BASEX`, `_2500BASEX`, `_SGMII_PHY`, `_SGMII_MAC`, `_10GBASER`).
const POC_PCS_1000BASEX: u16 = 0x0;
const POC_PCS_2500BASEX: u16 = 0x1;
const POC_PCS_SGMII_PHY: u16 = 0x2;
const POC_PCS_SGMII_MAC: u16 = 0x3;
const POC_PCS_10GBASER: u16 = 0x5;
/// POC reset (`MV88E6393X_SERDES_POC_RESET`, bit 15).
const POC_RESET: u16 = 0x8000;
/// POC power down (`MV88E6393X_SERDES_POC_PDOWN`, bit 5).
const POC_PDOWN: u16 = 1 << 5;
/// The lane's 1000BASE-X/SGMII BMCR, MMD 4 0x2000 (`MV88E6390_SGMII_BMCR`,
/// `0x2000 + MII_BMCR`), and its power-down bit (`BMCR_PDOWN`, bit 11).
const SGMII_BMCR: u16 = 0x2000;
const BMCR_PDOWN: u16 = 1 << 11;
/// CTRL1, MMD 4 0xF003 (`MV88E6393X_SERDES_CTRL1`): transmit and receive power down
/// (`_TX_PDOWN` bit 9, `_RX_PDOWN` bit 8).
const CTRL1: u16 = 0xF003;
const CTRL1_TX_RX_PDOWN: u16 = (1 << 9) | (1 << 8);
/// MMD 30 (`MDIO_MMD_VEND1`), where erratum 5.2's registers are.
const VEND1: DevAddr = DevAddr::from_bits(30);

/// Erratum 5.2 "for optimal signal integrity ... SERDES operating in 10G mode": (MMD,
/// register, value, mask), each a read-modify-write `(old & !mask) | value`, in Linux's
/// order (`mv88e6393x_erratum_5_2`).
pub(crate) const SERDES_6393X_ERRATA_5_2: [(u8, u16, u16, u16); 7] = [
    (30, 0x8093, 0xCB5A, 0xFFFF),
    (30, 0x8171, 0x7088, 0xFFFF),
    (30, 0x80C9, 0x311A, 0xFFFF),
    (30, 0x80A2, 0x8000, 0xFF7F),
    (30, 0x80A9, 0x0000, 0xFFF0),
    (30, 0x80A3, 0x0000, 0xF8FF),
    (4, serdes::SERDES_6393X_POC, POC_RESET, POC_RESET),
];

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Apply the 6393 family's SERDES errata to port `port`'s lane (ports 0, 9, 10), as
    /// Linux's PCS code does after configuring the lane: read POC; on the PCS selections
    /// of Linux's SGMII PCS path, erratum 4.8 (0xF074 bit 14 set for 1000BASE-X and SGMII,
    /// cleared for 2500BASE-X); 0xF074 is not touched on the 5GBASE-R, 10GBASE-R and
    /// USXGMII selections; for the 10GBASE-R selection, erratum 5.2
    /// (`SERDES_6393X_ERRATA_5_2`). Each step is a Clause 45 read and, only when the
    /// value changes, a write (Linux's `mdiodev_c45_modify`). Call it after setting the
    /// CMODE and before powering the lane up.
    ///
    /// Erratum 4.8's text (quoted in Linux's comment) says to write 0xF074 bit 14 "=1 for
    /// only those modes \[1000BASE-X, SGMII\] and 0 in all other modes". Linux's
    /// `mv88e6393x_erratum_4_8` computes exactly that, but only the SGMII PCS path calls it,
    /// so on a 5GBASE-R, 10GBASE-R or USXGMII lane Linux never writes the bit (it stays as
    /// the reset or the EEPROM left it) and on a 2500BASE-X lane it clears it. This crate
    /// follows Linux, the configuration the kernel's users run, rather than the erratum
    /// sheet's wider wording.
    ///
    /// Erratum 4.6 is not part of this call: Linux runs it once per lane when it sets the
    /// lane up, before any configuration; call
    /// [`serdes_6393x_erratum_4_6`](Self::serdes_6393x_erratum_4_6) then.
    ///
    /// Errors, before any frame: [`ConfigError::SerdesLane`] on a chip outside the 6393
    /// family or a port without a lane; then as [`serdes_read`](Self::serdes_read).
    pub fn serdes_6393x_apply_errata(&mut self, port: u8) -> Result<(), Error<M::Error>> {
        let (map, lane) = self.serdes_lane_addr(port)?;
        if map != LaneMap::Mv6393 {
            return Err(ConfigError::SerdesLane { port }.into());
        }
        let phyxs = DevAddr::PHYXS;
        let pcs = self.c45_read(lane, phyxs, serdes::SERDES_6393X_POC)? & POC_PCS_MASK;
        // Erratum 4.8 on Linux's SGMII PCS path only (`mv88e6393x_sgmii_pcs_post_config`).
        let bit = match pcs {
            POC_PCS_1000BASEX | POC_PCS_SGMII_PHY | POC_PCS_SGMII_MAC => {
                Some(serdes::SERDES_6393X_ERRATA_4_8_BIT)
            }
            POC_PCS_2500BASEX => Some(0),
            _ => None,
        };
        if let Some(bit) = bit {
            self.c45_modify(
                lane,
                phyxs,
                serdes::SERDES_6393X_ERRATA_4_8_REG,
                serdes::SERDES_6393X_ERRATA_4_8_BIT,
                bit,
            )?;
        }
        if pcs == POC_PCS_10GBASER {
            for (mmd, reg, value, mask) in SERDES_6393X_ERRATA_5_2 {
                let devad = if mmd == 30 { VEND1 } else { phyxs };
                self.c45_modify(lane, devad, reg, mask, value)?;
            }
        }
        Ok(())
    }

    /// Apply the 6393 family's SERDES erratum 4.6 to port `port`'s lane (ports 0, 9, 10),
    /// as Linux's `mv88e6393x_erratum_4_6` does once per lane from `mv88e6393x_pcs_init`
    /// (v6.12 `pcs-639x.c`). The erratum: the SERDES power-down bit cannot be cleared
    /// when the switch is strapped CPU_MGD or port 0 runs an \[x\]MII mode. The
    /// workaround: POC (MMD 4 0xF002) bit 5 (PDOWN) cleared and bit 15 (RESET) set; the
    /// SERDES then comes up powered, so the lane is powered down again: the SGMII BMCR
    /// (MMD 4 0x2000) power-down bit 11 set, and CTRL1 (MMD 4 0xF003) transmit and receive
    /// power-down bits 9 and 8 set. Each step is a Clause 45 read and, only when the value
    /// changes, a write. Call it once per lane when setting the switch up, before
    /// configuring the lane and [`serdes_6393x_apply_errata`](Self::serdes_6393x_apply_errata); the
    /// lane stays powered down until the board powers it up.
    ///
    /// Errors, before any frame: [`ConfigError::SerdesLane`] on a chip outside the 6393
    /// family or a port without a lane; then as [`serdes_read`](Self::serdes_read).
    pub fn serdes_6393x_erratum_4_6(&mut self, port: u8) -> Result<(), Error<M::Error>> {
        let (map, lane) = self.serdes_lane_addr(port)?;
        if map != LaneMap::Mv6393 {
            return Err(ConfigError::SerdesLane { port }.into());
        }
        let phyxs = DevAddr::PHYXS;
        self.c45_modify(
            lane,
            phyxs,
            serdes::SERDES_6393X_POC,
            POC_PDOWN | POC_RESET,
            POC_RESET,
        )?;
        self.c45_modify(lane, phyxs, SGMII_BMCR, BMCR_PDOWN, BMCR_PDOWN)?;
        self.c45_modify(lane, phyxs, CTRL1, CTRL1_TX_RX_PDOWN, CTRL1_TX_RX_PDOWN)
    }

    fn c45_modify(
        &mut self,
        lane: u8,
        devad: DevAddr,
        reg: u16,
        mask: u16,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let old = self.c45_read(lane, devad, reg)?;
        let new = (old & !mask) | value;
        if new != old {
            self.c45_write(lane, devad, reg, new)?;
        }
        Ok(())
    }
}
