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

use mdio_bus::{DevAddr, PhyAddr};

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

impl ChipModel {
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
