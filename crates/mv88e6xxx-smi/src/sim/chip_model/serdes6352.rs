//! The 6352 family's SERDES PHY (Linux v6.12, torvalds/linux
//! `drivers/net/dsa/mv88e6xxx/serdes.h`, `serdes.c`, `phy.h`).
//!
//! Facts: on the 6172, 6176, 6240 and 6352 the SERDES answers at address 0x0F of the
//! internal PHY bus (`MV88E6352_ADDR_SERDES`), its registers on page 1
//! (`MV88E6352_SERDES_PAGE_FIBER`) of the Marvell page register 22 (`MV88E6XXX_PHY_PAGE`);
//! register 0 is the IEEE BMCR, bit 11 power down (`BMCR_PDOWN`).
//!
//! Model assumptions: only the page register and pages 0 and 1 are modelled, each a plain
//! register file; the SERDES starts powered down (BMCR 0x1940: power down, autonegotiation
//! enabled, 1000 Mb/s) until a host powers it up, as U-Boot's `drivers/net/mv88e6xxx.c`
//! does for an SGMII CPU link.

use super::ChipModel;
use crate::sim::facts::LinuxFamily;

/// serdes.h `MV88E6352_ADDR_SERDES`.
const ADDR: u8 = 0x0F;
/// phy.h `MV88E6XXX_PHY_PAGE`.
const PAGE: usize = 22;
/// The BMCR the model starts with (an assumption, see the module docs).
const BMCR_AT_RESET: u16 = 0x1940;

/// The SERDES's page register and its two pages.
#[derive(Debug, Clone)]
pub(super) struct Serdes6352 {
    page: u16,
    pages: [[u16; 32]; 2],
}

impl Default for Serdes6352 {
    fn default() -> Self {
        let mut pages = [[0u16; 32]; 2];
        pages[1][0] = BMCR_AT_RESET;
        Self { page: 0, pages }
    }
}

impl ChipModel {
    fn has_serdes_6352(&self) -> bool {
        self.map.family == LinuxFamily::F6352
    }

    /// The 6352-family SERDES: the page register's value and register `reg` of page
    /// `page` (0 or 1); `None` on other chips.
    pub fn serdes_6352(&self, page: usize, reg: usize) -> Option<(u16, u16)> {
        if !self.has_serdes_6352() {
            return None;
        }
        let s = &self.serdes_6352;
        Some((s.page, *s.pages.get(page)?.get(reg)?))
    }

    /// A Clause 22 read of internal PHY `phy`: the SERDES's answer if it is the SERDES.
    pub(super) fn serdes_6352_read(&self, phy: u8, reg: u8) -> Option<u16> {
        if !self.has_serdes_6352() || phy != ADDR {
            return None;
        }
        let s = &self.serdes_6352;
        let r = usize::from(reg & 0x1F);
        if r == PAGE {
            return Some(s.page);
        }
        Some(s.pages.get(usize::from(s.page)).map_or(0xFFFF, |p| p[r]))
    }

    /// A Clause 22 write to internal PHY `phy`: whether the SERDES took it.
    pub(super) fn serdes_6352_write(&mut self, phy: u8, reg: u8, value: u16) -> bool {
        if !self.has_serdes_6352() || phy != ADDR {
            return false;
        }
        let s = &mut self.serdes_6352;
        let r = usize::from(reg & 0x1F);
        if r == PAGE {
            s.page = value;
        } else if let Some(p) = s.pages.get_mut(usize::from(s.page)) {
            p[r] = value;
        }
        true
    }
}
