//! Link aggregation tables: the trunk mask table and the trunk mapping table
//! (G2_TRUNK_MASK, G2_TRUNK_MAPPING; Linux `global2.c` `mv88e6xxx_g2_trunk_mask_write`,
//! `mv88e6xxx_g2_trunk_map_write`, `mv88e6xxx_g2_trunk_clear`, mainline commit
//! `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error};
use crate::regs::g2 as reg;
use crate::switch::Switch;

/// The trunk mask table's masks (G2_TRUNK_MASK number \[14:12\]).
pub const TRUNK_MASKS: u8 = 8;
/// The trunk IDs of the trunk mapping table (G2_TRUNK_MAPPING ID \[14:11\]).
pub const TRUNK_IDS: u8 = 16;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Write trunk mask `num` (0..=7): one G2_TRUNK_MASK write, UPDATE | `num` \[14:12\] |
    /// HASH (bit 11, when `hash`: the switch picks the mask by a hash of the addresses
    /// instead of their low bits) | `ports`. A frame to a trunk leaves only through the
    /// member ports set in the mask its hash selects. Every chip has it (each has
    /// Global2; Linux `mv88e6xxx_g2_trunk_mask_write`).
    ///
    /// Errors: [`ConfigError::PortFeature`] (chip not identified),
    /// [`ConfigError::TrunkMask`] (above 7), [`ConfigError::PortVector`], all before any
    /// frame; [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn trunk_load_mask(
        &mut self,
        num: u8,
        hash: bool,
        ports: u16,
    ) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_chip()?;
        if num >= TRUNK_MASKS {
            return Err(ConfigError::TrunkMask { num }.into());
        }
        let (ports, _) = Self::checked_vector(chip, ports)?;
        let mut v = reg::TRUNK_UPDATE | (u16::from(num) << reg::TRUNK_MASK_NUM_SHIFT) | ports;
        if hash {
            v |= reg::TRUNK_MASK_HASH;
        }
        self.g2_write(reg::TRUNK_MASK, v)
    }

    /// Map trunk `id` (0..=15) to its member `ports`: one G2_TRUNK_MAPPING write, UPDATE |
    /// `id` \[14:11\] | `ports`. Frames to the trunk (ATU entries with the trunk bit) go to
    /// these ports, filtered by the trunk masks. Every chip has it (Linux
    /// `mv88e6xxx_g2_trunk_map_write`).
    ///
    /// Errors: [`ConfigError::PortFeature`], [`ConfigError::TrunkId`] (above 15),
    /// [`ConfigError::PortVector`], all before any frame; [`Error::Mdio`],
    /// [`Error::Timeout`] of the SMI layer.
    pub fn trunk_load_map(&mut self, id: u8, ports: u16) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_chip()?;
        if id >= TRUNK_IDS {
            return Err(ConfigError::TrunkId { id }.into());
        }
        let (ports, _) = Self::checked_vector(chip, ports)?;
        let v = reg::TRUNK_UPDATE | (u16::from(id) << reg::TRUNK_MAPPING_ID_SHIFT) | ports;
        self.g2_write(reg::TRUNK_MAPPING, v)
    }

    /// No trunks: every mask lets all routed ports through, without hash, and every
    /// trunk ID maps to no port (8 + 16 writes; Linux `mv88e6xxx_g2_trunk_clear`, run at
    /// setup, also sets the bits of unrouted ports, which no frame uses).
    ///
    /// Errors: as [`trunk_load_mask`](Self::trunk_load_mask).
    pub fn trunk_flush(&mut self) -> Result<(), Error<M::Error>> {
        let (chip, _) = self.managed_chip()?;
        let all = crate::atu::port_mask(chip);
        for num in 0..TRUNK_MASKS {
            self.trunk_load_mask(num, false, all)?;
        }
        for id in 0..TRUNK_IDS {
            self.trunk_load_map(id, 0)?;
        }
        Ok(())
    }
}
