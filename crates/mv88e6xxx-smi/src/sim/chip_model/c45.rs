//! The model of Global2 SMI_PHY's Clause 45 operations (docs/mv88e6xxx.md#clause-45).
//!
//! A G2_SMI_PHY_CMD word with BUSY and MODE bit 12 clear runs one Clause 45 frame on the
//! chip's internal PHY bus, to every attached [`MdioDevice`](mdio_bus::sim::MdioDevice)
//! (the bus is wired-AND, as for Clause 22): OP 00 an address frame carrying
//! G2_SMI_PHY_DATA, OP 01 a write frame carrying G2_SMI_PHY_DATA, OP 11 a read frame and
//! OP 10 a post-read-increment-address read frame, whose data reaches G2_SMI_PHY_DATA only
//! when BUSY clears. The frame happens when the command is accepted: the data register
//! must hold the address or data by then. FUNC \[14:13\] other than 0 (the 6390 family's
//! external bus and setup functions) reaches no device here: reads answer 0xFFFF.
//!
//! The SERDES lanes (docs/mv88e6xxx.md#6390-and-6390x-serdes): a lane is a Clause 45
//! device on the internal bus at its fixed address (6390 family: 0x09, 0x0A, and on the
//! 6390X also 0x12–0x17; 6393 family: 0x00, 0x09, 0x0A; 6341 family: 0x15), whatever the
//! ports' modes; which
//! port uses it follows from the ports' CMODE, PORT_STS \[3:0\], which the model holds
//! per port as strapped ([`ChipModel::with_cmode`]) and leaves to whoever reads it.

use mdio_bus::sim::{C45Model, MdioDevice};
use mdio_bus::{DevAddr, PhyAddr};

use crate::chip::Chip;
use crate::sim::facts::{LinuxFamily, chip_facts};

use super::ChipModel;

/// G2_SMI_PHY_CMD FUNC \[14:13\] (docs/mv88e6xxx.md#global2).
const FUNC_MASK: u16 = 0x6000;
/// G2_SMI_PHY_CMD OP \[11:10\].
const OP_MASK: u16 = 0x0C00;
/// OP 00 in Clause 45 mode: write address.
const OP_45_WRITE_ADDR: u16 = 0x0000;
/// OP 01: write data.
const OP_45_WRITE_DATA: u16 = 0x0400;
/// OP 10: read data, then increment the address.
const OP_45_READ_DATA_INC: u16 = 0x0800;
/// OP 11: read data.
const OP_45_READ_DATA: u16 = 0x0C00;
/// G2_SMI_PHY_CMD DEV_ADDR \[9:5\]: the port (PHY) address in Clause 45 mode.
const DEV_ADDR_MASK: u16 = 0x03E0;
/// G2_SMI_PHY_CMD REG_ADDR \[4:0\]: the MMD (DEVAD) in Clause 45 mode.
const REG_ADDR_MASK: u16 = 0x001F;
/// G2_SMI_PHY_DATA (Global2 0x19).
const SMI_PHY_DATA: usize = 0x19;

/// PORT_STS CMODE \[3:0\].
const CMODE_MASK: u16 = 0x000F;

impl ChipModel {
    /// Port `port`'s CMODE, PORT_STS \[3:0\], as the strapping (or the configuration)
    /// left it: `cmode`'s low 4 bits (0x9 1000BASE-X, 0xA SGMII, 0xB 2500BASE-X; 0xC/0xD
    /// XAUI/RXAUI on the 6390 family, 5GBASE-R/10GBASE-R on the 6393 family, 0xE USXGMII
    /// on the 6393 family). Default 0 on every port (no SERDES mode). No effect for a
    /// port the chip does not have. A software reset of the model clears it with the
    /// other port registers (an assumption, docs/mv88e6xxx.md#6390-and-6390x-serdes).
    pub fn with_cmode(mut self, port: usize, cmode: u8) -> Self {
        if let Some(regs) = self.ports.get_mut(port) {
            regs[0] = (regs[0] & !CMODE_MASK) | (u16::from(cmode) & CMODE_MASK);
        }
        self
    }

    /// The internal-bus addresses of the chip's SERDES lanes (empty on chips without
    /// lanes in this model): 6190, 6191, 6290, 6390: 0x09, 0x0A; 6190X, 6390X: also
    /// 0x12–0x17; 6393 family: 0x00, 0x09, 0x0A; 6141, 6341: 0x15 (Linux `serdes.h`).
    pub fn serdes_lane_addrs(chip: Chip) -> &'static [u8] {
        match chip {
            Chip::Mv6190X | Chip::Mv6390X => &[0x09, 0x0A, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17],
            c if chip_facts(c).family == LinuxFamily::F6390 => &[0x09, 0x0A],
            c if chip_facts(c).family == LinuxFamily::F6393 => &[0x00, 0x09, 0x0A],
            Chip::Mv6141 | Chip::Mv6341 => &[0x15],
            _ => &[],
        }
    }

    /// Put a SERDES lane device, `lane(addr)`, at each of the chip's lane addresses
    /// ([`serdes_lane_addrs`](Self::serdes_lane_addrs)) on the internal bus.
    pub fn with_serdes_lanes_from<D: MdioDevice + 'static>(
        mut self,
        mut lane: impl FnMut(PhyAddr) -> D,
    ) -> Self {
        for &a in Self::serdes_lane_addrs(self.chip) {
            self = self.with_phy(lane(PhyAddr::from_bits(a)));
        }
        self
    }

    /// [`with_serdes_lanes_from`](Self::with_serdes_lanes_from) with
    /// [`C45Model::mv88e6393x_serdes_lane`] (the same MMD 4 register layout on the 6390
    /// family; its values are the model's assumption).
    pub fn with_serdes_lanes(self) -> Self {
        self.with_serdes_lanes_from(C45Model::mv88e6393x_serdes_lane)
    }

    /// A Clause 45 G2_SMI_PHY_CMD `word` (BUSY set, MODE 45) was accepted at `now`: run its
    /// frame on the internal PHY bus. Returns the data to land in G2_SMI_PHY_DATA when
    /// BUSY clears (the read operations), `None` for the others.
    pub(super) fn phy_c45_started(&mut self, now: u64, word: u16) -> Option<u16> {
        let phy = PhyAddr::from_bits(((word & DEV_ADDR_MASK) >> 5) as u8);
        let devad = DevAddr::from_bits((word & REG_ADDR_MASK) as u8);
        let data = self.g2[SMI_PHY_DATA];
        let internal = word & FUNC_MASK == 0;
        let phys = if internal {
            &mut self.phys[..]
        } else {
            &mut []
        };
        match word & OP_MASK {
            OP_45_WRITE_ADDR => {
                for d in phys {
                    d.c45_address(now, phy, devad, data);
                }
                None
            }
            OP_45_WRITE_DATA => {
                for d in phys {
                    d.c45_write(now, phy, devad, data);
                }
                None
            }
            OP_45_READ_DATA_INC => Some(
                phys.iter_mut()
                    .fold(0xFFFF, |v, d| v & d.c45_read_inc(now, phy, devad)),
            ),
            OP_45_READ_DATA => Some(
                phys.iter_mut()
                    .fold(0xFFFF, |v, d| v & d.c45_read(now, phy, devad)),
            ),
            _ => None,
        }
    }
}
