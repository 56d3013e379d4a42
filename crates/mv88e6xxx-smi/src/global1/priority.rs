//! The Global1 priority maps: IEEE PCP and IP DSCP to queue priority (G1_IEEE_PRI,
//! G1_IP_PRI_0..7; Linux `global1.c` `mv88e6085_g1_ieee_pri_map`,
//! `mv88e6250_g1_ieee_pri_map`, `mv88e6085_g1_ip_pri_map`, mainline commit
//! `0010b838db9f`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error, Feature};
use crate::regs::g1 as reg;
use crate::switch::Switch;

/// Linux's default IEEE map of the 6085-style chips (`mv88e6085_g1_ieee_pri_map`,
/// G1_IEEE_PRI = 0xFA41): PCP 0..7 to queues 1, 0, 0, 1, 2, 2, 3, 3.
pub const IEEE_PRI_DEFAULT: [u8; 8] = [1, 0, 0, 1, 2, 2, 3, 3];
/// Linux's default IEEE map of the 6250 family (`mv88e6250_g1_ieee_pri_map`, 0xFA50):
/// PCP 0..7 to queues 0, 0, 1, 1, 2, 2, 3, 3.
pub const IEEE_PRI_DEFAULT_6250: [u8; 8] = [0, 0, 1, 1, 2, 2, 3, 3];

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Map the PCP `p` of tagged frames to the egress queue `map[p]` (0..=3): one
    /// G1_IEEE_PRI (Global1 0x18) write, PCP `p` in bits \[2p+1:2p\]. Every chip but the
    /// 6390 and 6393 families has it (Linux's `ieee_pri_map`; those use the per-port
    /// [`port_set_tag_remap`](Self::port_set_tag_remap) table instead). Linux writes
    /// [`IEEE_PRI_DEFAULT`] (the 6250 family: [`IEEE_PRI_DEFAULT_6250`]).
    ///
    /// Errors: [`ConfigError::PortFeature`] with [`Feature::PriorityMap`] on the 6390
    /// and 6393 families (or [`Feature::PortOps`] before identification),
    /// [`ConfigError::Priority`] (an entry above 3), before any frame; [`Error::Mdio`],
    /// [`Error::Timeout`] of the SMI layer.
    pub fn set_ieee_pri_map(&mut self, map: [u8; 8]) -> Result<(), Error<M::Error>> {
        self.priority_map_chip()?;
        self.g1_write(reg::IEEE_PRI, pack2(&map)?)
    }

    /// Map DSCP `d` of IPv4/IPv6 frames to the egress queue `map[d]` (0..=3): eight
    /// writes, G1_IP_PRI_0..7 (Global1 0x10..0x17), DSCP `8 r + n` in bits \[2n+1:2n\] of
    /// register `0x10 + r` (Linux's defaults fix the register of each DSCP; the order
    /// inside a register, lowest DSCP in the low bits as PCP in G1_IEEE_PRI, is not in
    /// Linux's sources: **unverified**). The chips of
    /// [`set_ieee_pri_map`](Self::set_ieee_pri_map)
    /// have it (Linux's `ip_pri_map`, which writes DSCP 0–15 to queue 0, 16–31 to 1,
    /// 32–47 to 2, 48–63 to 3).
    ///
    /// Errors: as [`set_ieee_pri_map`](Self::set_ieee_pri_map).
    pub fn set_ip_pri_map(&mut self, map: &[u8; 64]) -> Result<(), Error<M::Error>> {
        self.priority_map_chip()?;
        let mut words = [0u16; 8];
        for (w, chunk) in words.iter_mut().zip(map.chunks_exact(8)) {
            *w = pack2(chunk)?;
        }
        for (r, w) in (reg::IP_PRI_0..).zip(words) {
            self.g1_write(r, w)?;
        }
        Ok(())
    }

    fn priority_map_chip(&self) -> Result<(), Error<M::Error>> {
        let (chip, ops) = self.managed_chip()?;
        if !ops.priority_maps {
            return Err(ConfigError::PortFeature {
                chip: Some(chip),
                port: None,
                feature: Feature::PriorityMap,
            }
            .into());
        }
        Ok(())
    }
}

/// Entries of 2 bits, entry `n` in bits \[2n+1:2n\]; [`ConfigError::Priority`] above 3.
fn pack2<E>(entries: &[u8]) -> Result<u16, Error<E>> {
    let mut w = 0u16;
    // At most 8 entries fit a register; the callers pass 8.
    for (shift, &q) in (0u32..16).step_by(2).zip(entries) {
        if q > 3 {
            return Err(ConfigError::Priority { value: q }.into());
        }
        w |= u16::from(q).checked_shl(shift).unwrap_or(0);
    }
    Ok(w)
}
