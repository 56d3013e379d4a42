//! Reserved multicast to the CPU: frames to 01:80:C2:00:00:0x (BPDU, LACP, LLDP,
//! 802.1X, ...) and 01:80:C2:00:00:2x taken as management frames and sent to the CPU
//! port (Linux `mgmt_rsvd2cpu`: `global2.c` `mv88e6185_g2_mgmt_rsvd2cpu` /
//! `mv88e6352_g2_mgmt_rsvd2cpu`, `global1.c` `mv88e6390_g1_mgmt_rsvd2cpu`, `port.c`
//! `mv88e6393x_port_mgmt_rsvd2cpu`; mainline commit `0010b838db9f`). Where the family
//! keeps it differs; the operation lives here, with the Global2 registers most chips use.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error, Feature};
use crate::port::Rsvd2CpuOp;
use crate::regs::{g1 as g1_reg, g2 as reg, port as port_reg};
use crate::switch::Switch;

/// G1 MONITOR_MGMT_CTL and port POLICY_MGMT_CTL: UPDATE (bit 15).
const MGMT_UPDATE: u16 = 0x8000;
/// G1 MONITOR_MGMT_CTL (Global1 0x1A on the 6341 and 6390 families).
const G1_MONITOR_MGMT_CTL: u8 = 0x1A;
/// Port POLICY_MGMT_CTL (port register 0x0E on the 6393 family).
const PORT_POLICY_MGMT_CTL: u8 = 0x0E;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Send frames to 01:80:C2:00:00:0`n` to the CPU port as management frames for every
    /// bit `n` of `mask_0x`, and to 01:80:C2:00:00:2`n` for every bit of `mask_2x`
    /// (Linux sets both to 0xFFFF; BPDU is bit 0, LACP bit 2, 802.1X bit 3, LLDP bit
    /// 14 of `mask_0x`). Set the CPU port first ([`set_cpu_port`](Self::set_cpu_port)).
    /// Per chip ([`Rsvd2CpuOp`]):
    /// - [`Rsvd2CpuOp::G2`] (the 6352, 6351, 6165, 6097, 6085, 6320 and 6250 families):
    ///   G2_MGMT_EN_2X = `mask_2x`, G2_MGMT_EN_0X = `mask_0x`, then G2_SWITCH_MGMT
    ///   RSVD2CPU (bit 3) set, read-modify-write (cleared when both masks are 0);
    /// - [`Rsvd2CpuOp::G2Only0x`] (6095, 6131, 6185): the same without MGMT_EN_2X;
    /// - [`Rsvd2CpuOp::G1MonitorMgmt`] (6341 and 6390 families): G1 MONITOR_MGMT_CTL
    ///   UPDATE | pointer 0x00 / 0x01 / 0x02 / 0x03 | data = `mask_0x` low byte, high
    ///   byte, `mask_2x` low byte, high byte (4 writes);
    /// - [`Rsvd2CpuOp::PortPolicyMgmt`] (6393 family): the same four bytes to every
    ///   routed port's POLICY_MGMT_CTL, pointers 0x20, 0x21, 0x24, 0x25 (Linux writes
    ///   the user ports only and leaves the CPU and DSA ports forwarding normally: call
    ///   [`port_set_rsvd2cpu`](Self::port_set_rsvd2cpu) on those afterwards).
    ///
    /// Errors: [`ConfigError::PortFeature`] (chip not identified; [`Feature::Rsvd2Cpu2x`]
    /// for a non-zero `mask_2x` on [`Rsvd2CpuOp::G2Only0x`]), before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn set_rsvd2cpu(&mut self, mask_0x: u16, mask_2x: u16) -> Result<(), Error<M::Error>> {
        let (chip, ops) = self.managed_chip()?;
        let bytes = rsvd_bytes(mask_0x, mask_2x);
        match ops.rsvd2cpu {
            Rsvd2CpuOp::G2Only0x if mask_2x != 0 => Err(ConfigError::PortFeature {
                chip: Some(chip),
                port: None,
                feature: Feature::Rsvd2Cpu2x,
            }
            .into()),
            op @ (Rsvd2CpuOp::G2 | Rsvd2CpuOp::G2Only0x) => {
                if op == Rsvd2CpuOp::G2 {
                    self.g2_write(reg::MGMT_EN_2X, mask_2x)?;
                }
                self.g2_write(reg::MGMT_EN_0X, mask_0x)?;
                let v = self.g2_read(reg::SWITCH_MGMT)?;
                let new = if mask_0x | mask_2x != 0 {
                    v | reg::SWITCH_MGMT_RSVD2CPU
                } else {
                    v & !reg::SWITCH_MGMT_RSVD2CPU
                };
                self.g2_write(reg::SWITCH_MGMT, new)
            }
            Rsvd2CpuOp::G1MonitorMgmt => {
                for (ptr, data) in g1_reg::MGMT_PTR_RSVD2CPU.into_iter().zip(bytes) {
                    self.g1_write(G1_MONITOR_MGMT_CTL, MGMT_UPDATE | ptr | u16::from(data))?;
                }
                Ok(())
            }
            Rsvd2CpuOp::PortPolicyMgmt => {
                for port in 0..chip.info().num_ports {
                    if chip.is_valid_port(port) {
                        self.policy_rsvd_write(port, bytes)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// On the 6393 family, which keeps these traps per port: write `port`'s four
    /// POLICY_MGMT_CTL entries as [`set_rsvd2cpu`](Self::set_rsvd2cpu) does (masks 0 on
    /// a CPU or DSA port let those frames through normally, as Linux does).
    ///
    /// Errors: [`ConfigError::PortFeature`] with [`Feature::Rsvd2CpuPerPort`] on the
    /// other families, whose traps are switch-wide; [`ConfigError::Port`]; all before
    /// any frame; [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_rsvd2cpu(
        &mut self,
        port: u8,
        mask_0x: u16,
        mask_2x: u16,
    ) -> Result<(), Error<M::Error>> {
        let (_, ops) = self.managed_port(port)?;
        if ops.rsvd2cpu != Rsvd2CpuOp::PortPolicyMgmt {
            return Err(ConfigError::PortFeature {
                chip: self.chip(),
                port: Some(port),
                feature: Feature::Rsvd2CpuPerPort,
            }
            .into());
        }
        self.policy_rsvd_write(port, rsvd_bytes(mask_0x, mask_2x))
    }

    fn policy_rsvd_write(&mut self, port: u8, bytes: [u8; 4]) -> Result<(), Error<M::Error>> {
        for (ptr, data) in port_reg::POLICY_PTR_RSVD2CPU.into_iter().zip(bytes) {
            self.port_write(
                port,
                PORT_POLICY_MGMT_CTL,
                MGMT_UPDATE | ptr | u16::from(data),
            )?;
        }
        Ok(())
    }
}

/// The four table bytes: 0x low, 0x high, 2x low, 2x high.
const fn rsvd_bytes(mask_0x: u16, mask_2x: u16) -> [u8; 4] {
    let [a, b] = mask_0x.to_le_bytes();
    let [c, d] = mask_2x.to_le_bytes();
    [a, b, c, d]
}
