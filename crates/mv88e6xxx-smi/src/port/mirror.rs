//! Mirroring per port: the ingress and egress monitor enables (PORT_CTL2
//! INGRESS_MONITOR / EGRESS_MONITOR; Linux `port.c` `mv88e6xxx_port_set_mirror` and
//! `chip.c` `mv88e6xxx_port_mirror_add`, mainline commit `0010b838db9f`). The mirror destination is [`Switch::set_mirror_port`].

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use super::MirrorDirection;
use super::managed_ops::has_mirror;
use super::ops::MonitorOp;
use crate::error::{ConfigError, Error, Feature};
use crate::regs::port as reg;
use crate::regs::port::{POLICY_PTR_INGRESS_DEST, PORT_POLICY_MGMT_CTL};
use crate::regs::{g1, g2};
use crate::switch::Switch;

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Copy the frames `port` receives ([`MirrorDirection::Ingress`]) or sends
    /// ([`MirrorDirection::Egress`]) to the mirror destination, or stop (PORT_CTL2 bit 4
    /// / bit 5, read-modify-write). Set the destination first with
    /// [`set_mirror_port`](Self::set_mirror_port), or use
    /// [`port_mirror_add`](Self::port_mirror_add). Every chip with a mirror destination
    /// has it (Linux `mv88e6xxx_port_set_mirror`).
    ///
    /// Errors: [`ConfigError::PortFeature`](crate::ConfigError::PortFeature) (chip not
    /// identified; [`Feature::MirrorPort`] on the 6095, which has no `set_egress_port`
    /// and which Linux's `mv88e6xxx_port_mirror_add` refuses),
    /// [`ConfigError::Port`](crate::ConfigError::Port), before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_mirror(
        &mut self,
        port: u8,
        direction: MirrorDirection,
        mirror: bool,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        self.managed_chip()?;
        if !has_mirror(ops) {
            return Err(self.refuse(port, Feature::MirrorPort));
        }
        let bit = match direction {
            MirrorDirection::Ingress => reg::CTL2_INGRESS_MONITOR,
            MirrorDirection::Egress => reg::CTL2_EGRESS_MONITOR,
        };
        self.port_update(port, reg::PORT_CTL2, bit, if mirror { bit } else { 0 })
    }

    /// Mirror `port`'s `direction` to `dest`, as Linux's `chip.c`
    /// `mv88e6xxx_port_mirror_add` does: the destination
    /// ([`set_mirror_port`](Self::set_mirror_port)) is written only when it differs from
    /// the one in use, and is not moved while any port (`port` included) mirrors in that
    /// direction; then `port`'s enable (PORT_CTL2 bit 4 / bit 5). `dest` may be `port`
    /// (Linux does not refuse it).
    ///
    /// Which ports mirror is read from the switch, not remembered: one PORT_CTL2 read per
    /// routed port, then the destination in use (one G1 MONITOR_CTL or Global2 0x05 read;
    /// on a pointer table, the pointer written without UPDATE and read back: 2 frames),
    /// then, when it moves, [`set_mirror_port`](Self::set_mirror_port)'s frames, and one
    /// PORT_CTL2 write. On a 6352 (7 ports): 9 register accesses, 11 when the destination
    /// moves. Reading costs those frames on every call but is never stale: a shadow would
    /// cost none, but would have to be forgotten after every reset and would miss
    /// [`port_set_mirror`](Self::port_set_mirror) or raw writes.
    ///
    /// Errors: as [`port_set_mirror`](Self::port_set_mirror) for `port` and
    /// [`set_mirror_port`](Self::set_mirror_port) for `dest`, before any frame;
    /// [`ConfigError::MirrorBusy`](crate::ConfigError::MirrorBusy) (with the destination in
    /// use) after the reads, before any write; [`Error::Mdio`], [`Error::Timeout`] of the
    /// SMI layer, from any frame (the PORT_CTL2 write is the last, so `port` mirrors only
    /// when the call succeeds).
    pub fn port_mirror_add(
        &mut self,
        port: u8,
        direction: MirrorDirection,
        dest: u8,
    ) -> Result<(), Error<M::Error>> {
        let ops = self.ops_port(port)?;
        self.ops_port(dest)?;
        let (chip, _) = self.managed_chip()?;
        if !has_mirror(ops) {
            return Err(self.refuse(port, Feature::MirrorPort));
        }
        let bit = match direction {
            MirrorDirection::Ingress => reg::CTL2_INGRESS_MONITOR,
            MirrorDirection::Egress => reg::CTL2_EGRESS_MONITOR,
        };
        // Linux keeps which ports mirror (`chip->ports[i].mirror_ingress` / `_egress`);
        // the switch holds it in their PORT_CTL2.
        let mut mirroring = false;
        let mut ctl2 = 0;
        for q in 0..chip.info().num_ports {
            if chip.is_valid_port(q) {
                let v = self.port_read(q, reg::PORT_CTL2)?;
                mirroring |= v & bit != 0;
                if q == port {
                    ctl2 = v;
                }
            }
        }
        let in_use = self.mirror_dest(ops.mirror_op(), direction, port)?;
        if in_use != dest {
            if mirroring {
                return Err(ConfigError::MirrorBusy {
                    direction,
                    dest: in_use,
                }
                .into());
            }
            self.set_mirror_port(direction, dest)?;
        }
        self.port_write(port, reg::PORT_CTL2, ctl2 | bit)
    }

    /// The mirror destination of `direction` in use for frames of `port`, read as
    /// [`set_mirror_port`](Self::set_mirror_port) writes it: a G1 MONITOR_CTL field
    /// (4 bits); a MONITOR_MGMT_CTL pointer (0x20 / 0x21) written without UPDATE and read
    /// back, data \[4:0\]; on the 6393 family `port`'s POLICY_MGMT_CTL pointer 0x30 the
    /// same way (Linux `mv88e6393x_port_policy_read`) or Global2 0x05 \[4:0\].
    fn mirror_dest(
        &mut self,
        op: MonitorOp,
        direction: MirrorDirection,
        port: u8,
    ) -> Result<u8, Error<M::Error>> {
        let v = match (op, direction) {
            (MonitorOp::MonitorCtl, MirrorDirection::Ingress) => {
                (self.g1_read(g1::MONITOR_CTL)? & g1::MONITOR_INGRESS_DEST_MASK) >> 12
            }
            (MonitorOp::MonitorCtl, MirrorDirection::Egress) => {
                (self.g1_read(g1::MONITOR_CTL)? & g1::MONITOR_EGRESS_DEST_MASK) >> 8
            }
            (MonitorOp::MonitorMgmt, dir) => {
                let ptr = match dir {
                    MirrorDirection::Ingress => g1::MGMT_PTR_INGRESS_DEST,
                    MirrorDirection::Egress => g1::MGMT_PTR_EGRESS_DEST,
                };
                self.g1_write(g1::MONITOR_MGMT_CTL, ptr)?;
                self.g1_read(g1::MONITOR_MGMT_CTL)?
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Egress) => {
                self.g2_read(g2::EGRESS_MONITOR_DEST)?
            }
            (MonitorOp::PolicyMgmt, MirrorDirection::Ingress) => {
                self.port_write(port, PORT_POLICY_MGMT_CTL, POLICY_PTR_INGRESS_DEST)?;
                self.port_read(port, PORT_POLICY_MGMT_CTL)?
            }
            (MonitorOp::Missing, _) => return Err(self.refuse(port, Feature::MirrorPort)),
        };
        Ok((v & 0x1F) as u8)
    }
}
