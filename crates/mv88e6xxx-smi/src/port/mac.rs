//! The port MAC: forced link, speed and duplex, RGMII delays (PORT_MAC_CTL), and the link
//! status the PHY polling unit reports (PORT_STS).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{Error, Feature};
use crate::regs::port::{
    MAC_ALTSPEED, MAC_DUPLEX_FULL, MAC_FORCE_DUPLEX, MAC_FORCE_LINK, MAC_FORCE_SPEED, MAC_LINK_UP,
    MAC_RGMII_RXCLK, MAC_RGMII_TXCLK, MAC_SPEED_MASK, PORT_MAC_CTL, PORT_STS,
};
use crate::switch::Switch;

use super::errata::Errata;
use super::ops::{PortOps, SpeedOp};
use super::{Duplex, ForcedLink, LinkStatus, RgmiiDelay, Speed};

/// PORT_MAC_CTL bits and mask for `speed` on `port` with `op` (Linux's
/// `*_port_set_speed_duplex`, docs/mv88e6xxx.md#per-family-port-ops), or the refused
/// speed in Mb/s.
pub(crate) const fn speed_bits(
    op: SpeedOp,
    is_6361: bool,
    port: u8,
    speed: Speed,
) -> Result<(u16, u16), u16> {
    let refused = match speed.mbps() {
        None => false,
        Some(m) => match op {
            SpeedOp::M6185 => m == 200 || m > 1000,
            SpeedOp::M6250 => m > 100,
            SpeedOp::M6352 => m > 1000 || (m == 200 && port < 5),
            SpeedOp::M6341 => m > 2500 || (m == 200 && port != 0) || (m == 2500 && port < 5),
            SpeedOp::M6390 => m > 2500 || (m == 200 && port != 0) || (m == 2500 && port < 9),
            // 5000 is not in the common encoder: refused.
            SpeedOp::M6390X => (m == 200 && port != 0) || (m >= 2500 && port < 9) || m == 5000,
            SpeedOp::M6393X => {
                (is_6361 && m > 2500)
                    || (m == 200 && port != 0)
                    || (m >= 2500 && port > 0 && port < 9)
            }
        },
    };
    if refused {
        return Err(match speed.mbps() {
            Some(m) => m,
            None => 0,
        });
    }
    let alt = match op {
        SpeedOp::M6352 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X => true,
        SpeedOp::M6341 => port == 0,
        SpeedOp::M6185 | SpeedOp::M6250 => false,
    };
    let force = matches!(
        op,
        SpeedOp::M6341 | SpeedOp::M6390 | SpeedOp::M6390X | SpeedOp::M6393X
    );
    let alt_bit = if alt { MAC_ALTSPEED } else { 0 };
    let bits = if matches!(op, SpeedOp::M6393X) {
        match speed {
            Speed::Mbps10 => 0,
            Speed::Mbps100 => 1,
            Speed::Mbps200 => 1 | MAC_ALTSPEED,
            Speed::Mbps1000 => 2,
            Speed::Mbps2500 => 2 | MAC_ALTSPEED,
            Speed::Mbps5000 => 3 | MAC_ALTSPEED,
            Speed::Mbps10000 | Speed::Unforced => 3,
        }
    } else {
        match speed {
            Speed::Mbps10 => 0,
            Speed::Mbps100 => 1,
            Speed::Mbps200 => {
                if alt {
                    1 | MAC_ALTSPEED
                } else {
                    2
                }
            }
            Speed::Mbps1000 => 2,
            Speed::Mbps2500 => 3 | alt_bit,
            Speed::Mbps5000 | Speed::Mbps10000 | Speed::Unforced => 3,
        }
    };
    let force_bit = if force && !matches!(speed, Speed::Unforced) {
        MAC_FORCE_SPEED
    } else {
        0
    };
    let mut mask = MAC_SPEED_MASK | alt_bit;
    if matches!(op, SpeedOp::M6393X) {
        mask |= MAC_ALTSPEED;
    }
    if force {
        mask |= MAC_FORCE_SPEED;
    }
    Ok((bits | force_bit, mask))
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Force `port`'s MAC link up or down, or let the PHY polling unit decide (PORT_MAC_CTL
    /// FORCE_LINK / LINK_UP). Errors: as [`port_set_state`](Self::port_set_state).
    pub fn port_set_forced_link(
        &mut self,
        port: u8,
        link: ForcedLink,
    ) -> Result<(), Error<M::Error>> {
        self.ops_port(port)?;
        let bits = match link {
            ForcedLink::Unforced => 0,
            ForcedLink::Down => MAC_FORCE_LINK,
            ForcedLink::Up => MAC_FORCE_LINK | MAC_LINK_UP,
        };
        self.port_update(port, PORT_MAC_CTL, MAC_FORCE_LINK | MAC_LINK_UP, bits)
    }

    /// Force `port`'s MAC speed and duplex (PORT_MAC_CTL speed field \[1:0\], ALTSPEED
    /// bit 12 and FORCE_SPEED bit 13 where the chip's function uses them, FORCE_DUPLEX /
    /// DUPLEX_FULL; one read-modify-write), or unforce them. The encoding and the speeds
    /// each port takes are the chip's Linux function's (docs/mv88e6xxx.md#per-family-port-ops):
    /// e.g. 2500 on a 6390 port 9 is speed 3 | ALTSPEED | FORCE_SPEED, on a 6393X port 0
    /// speed 2 | ALTSPEED | FORCE_SPEED.
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::Speed`] (with the
    /// speed in Mb/s) for a speed the chip's function refuses on that port (200 on the
    /// 6185-style chips, above 100 on the 6250 family, 2500 below port 9 on the 6390
    /// family, above 2500 on the 6361, ...), before any frame.
    pub fn port_set_speed_duplex(
        &mut self,
        port: u8,
        speed: Speed,
        duplex: Duplex,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let is_6361 = self.chip() == Some(Chip::Mv6361);
        let (speed_bits, speed_mask) = match speed_bits(ops.speed_op(), is_6361, port, speed) {
            Ok(b) => b,
            Err(mbps) => return Err(self.refuse(port, Feature::Speed(mbps))),
        };
        let duplex_bits = match duplex {
            Duplex::Half => MAC_FORCE_DUPLEX,
            Duplex::Full => MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL,
            Duplex::Unforced => 0,
        };
        let mask = speed_mask | MAC_FORCE_DUPLEX | MAC_DUPLEX_FULL;
        self.port_update(port, PORT_MAC_CTL, mask, speed_bits | duplex_bits)
    }

    /// Set `port`'s RGMII receive / transmit clock delays (PORT_MAC_CTL bits 15 / 14).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::RgmiiDelay`] on a
    /// port outside [`PortOps::rgmii_ports`] (every port of a chip without the op, e.g.
    /// the 6185 or 6097; ports other than 5 and 6 on the 6352 family; other than 0 on
    /// the 6390 family), before any frame; [`Feature::RgmiiTxDelayErratum`] for a
    /// transmit delay on the 6320/6321 before [`apply_errata`](Self::apply_errata) (since
    /// attach or the last [`after_hardware_reset`](Self::after_hardware_reset)), before
    /// any frame.
    pub fn port_set_rgmii_delay(
        &mut self,
        port: u8,
        delay: RgmiiDelay,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        let has = match 1u16.checked_shl(u32::from(port)) {
            Some(b) => ops.rgmii_ports() & b != 0,
            None => false,
        };
        if !has {
            return Err(self.refuse(port, Feature::RgmiiDelay));
        }
        // 6320/6321 erratum 3.3: "RGMII timing may be out of spec when transmit delay is
        // enabled" unless the hidden-register workaround is in (Linux chip.c
        // `mv88e6320_setup_errata`, applied by `mv88e6xxx_setup` before any port setup).
        if delay.tx
            && self.chip().and_then(Errata::of) == Some(Errata::RgmiiTx6320)
            && !self.errata_applied
        {
            return Err(self.refuse(port, Feature::RgmiiTxDelayErratum));
        }
        let mut bits = 0;
        if delay.rx {
            bits |= MAC_RGMII_RXCLK;
        }
        if delay.tx {
            bits |= MAC_RGMII_TXCLK;
        }
        self.port_update(port, PORT_MAC_CTL, MAC_RGMII_RXCLK | MAC_RGMII_TXCLK, bits)
    }

    /// `port`'s link as PORT_STS reports it (one read). On a PPU-gated chip PORT_STS
    /// follows the PHYs only while the PHY polling unit runs: call
    /// [`service`](Self::service) after PHY accesses first.
    ///
    /// The speed field's value 3 is [`LinkSpeed::Other`](crate::port::LinkSpeed::Other) (10 G on the 6390X); the
    /// alternate speeds (200, 2500, 5000) show as their base field (**unverified**,
    /// docs/mv88e6xxx.md#per-family-port-ops).
    ///
    /// Errors: as [`port_set_state`](Self::port_set_state); [`Feature::LinkStatus`] on
    /// the 6250 family (its PORT_STS has link in bit 12 and a port mode in \[11:8\]),
    /// before any frame.
    pub fn port_link_status(&mut self, port: u8) -> Result<LinkStatus, Error<M::Error>> {
        let ops = self.ops_port(port)?;
        if ops == PortOps::Mv6250 {
            return Err(self.refuse(port, Feature::LinkStatus));
        }
        Ok(LinkStatus::from_raw(self.port_read(port, PORT_STS)?))
    }
}
