//! The IEEE tag remap per port: the priority a received frame's PCP is taken as
//! (port registers 0x18 / 0x19, or the 6390 class's IEEE_PRIO_MAP_TABLE; Linux `port.c`
//! `mv88e6095_port_tag_remap` / `mv88e6390_port_tag_remap`, mainline commit
//! `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use super::managed_ops::TagRemapOp;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::port as reg;
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Take the PCP `p` of a tagged frame received on `port` as `map[p]` (0..=7; Linux
    /// programs the identity `[0, 1, .., 7]`), per chip:
    /// - [`TagRemapOp::Remap0123`]: port register 0x18 = `map[0..4]`, 0x19 = `map[4..8]`,
    ///   4 bits each, lowest PCP in the low nibble (two writes;
    ///   `mv88e6095_port_tag_remap`);
    /// - [`TagRemapOp::PrioMapTable`] (6390 and 6393 families): eight
    ///   IEEE_PRIO_MAP_TABLE writes, UPDATE | ingress-PCP table | pointer `p` \[11:9\] |
    ///   `map[p] | map[p] << 4`, the two fields Linux's identity entry fills
    ///   (`mv88e6390_port_tag_remap`; it also writes the egress tables, which this
    ///   operation leaves alone).
    ///
    /// Errors: [`ConfigError::PortFeature`] with [`Feature::TagRemap`] on the 6095, 6123,
    /// 6165 and 6185 (no such op), [`ConfigError::Port`], [`ConfigError::Priority`] (an
    /// entry above 7), all before any frame; [`Error::Mdio`], [`Error::Timeout`] of the
    /// SMI layer.
    pub fn port_set_tag_remap(&mut self, port: u8, map: [u8; 8]) -> Result<(), Error<M::Error>> {
        let (_, ops) = self.managed_port(port)?;
        if let Some(&value) = map.iter().find(|&&p| p > 7) {
            return Err(ConfigError::Priority { value }.into());
        }
        match ops.tag_remap {
            TagRemapOp::Missing => Err(self.refuse(port, Feature::TagRemap)),
            TagRemapOp::Remap0123 => {
                let nibbles = |m: &[u8]| {
                    m.iter()
                        .rev()
                        .fold(0u16, |acc, &p| (acc << 4) | u16::from(p))
                };
                let (lo, hi) = map.split_at(4);
                self.port_write(port, reg::IEEE_PRIO_REMAP_0123, nibbles(lo))?;
                self.port_write(port, reg::IEEE_PRIO_REMAP_4567, nibbles(hi))
            }
            TagRemapOp::PrioMapTable => {
                for (ptr, &p) in (0u16..).zip(map.iter()) {
                    let data =
                        (u16::from(p) | (u16::from(p) << 4)) & reg::IEEE_PRIO_MAP_TABLE_DATA_MASK;
                    let v = reg::IEEE_PRIO_MAP_TABLE_UPDATE
                        | reg::IEEE_PRIO_MAP_TABLE_INGRESS_PCP
                        | (ptr << reg::IEEE_PRIO_MAP_TABLE_PTR_SHIFT)
                        | data;
                    self.port_write(port, reg::IEEE_PRIO_MAP_TABLE, v)?;
                }
                Ok(())
            }
        }
    }
}
