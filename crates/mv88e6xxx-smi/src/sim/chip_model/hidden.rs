//! The ports' hidden registers and the errata written through them (torvalds/linux
//! `drivers/net/dsa/mv88e6xxx/port_hidden.c`, `port.h`, `chip.c`: v6.12, and v6.15 for
//! the 6320 family's `mv88e6320_setup_errata`, commit 1ebc8e1ef906).
//!
//! Facts: the hidden registers are reached through register 0x1A of port 4 (control) and
//! port 5 (data) (port.h `MV88E6XXX_PORT_RESERVED_1A` 0x1a, `_CTRL_PORT` 0x04,
//! `_DATA_PORT` 0x05). A control word has BUSY in bit 15, WRITE in bit 14 (0: read), the
//! block in \[13:10\], the port in \[9:5\] and the register in \[4:0\] (`_BUSY` 0x8000,
//! `_WRITE` 0x4000, `_BLOCK_SHIFT` 10, `_PORT_SHIFT` 5). A write takes its value from the
//! data register; a read leaves the value there. port_hidden.c: "The mv88e6390 and
//! mv88e6341 have some hidden registers"; chip.c `mv88e6320_setup_errata` uses them on the
//! 6320 family too.
//!
//! Model assumptions: an access completes at once (BUSY never reads set); the hidden
//! registers keep their values across a software reset (Linux's
//! `mv88e6390_setup_errata_applied` reads them to skip a second application); on other
//! chips register 0x1A of ports 4 and 5 is a plain register.

use std::collections::BTreeMap;

use super::ChipModel;
use crate::sim::facts::LinuxFamily;

/// port.h `MV88E6XXX_PORT_RESERVED_1A`.
const RESERVED_1A: u8 = 0x1A;
/// port.h `MV88E6XXX_PORT_RESERVED_1A_CTRL_PORT`.
const CTRL_PORT: usize = 4;
/// port.h `MV88E6XXX_PORT_RESERVED_1A_DATA_PORT`.
const DATA_PORT: usize = 5;
/// port.h `MV88E6XXX_PORT_RESERVED_1A_WRITE`.
const WRITE: u16 = 0x4000;
/// port.h `MV88E6XXX_PORT_RESERVED_1A_BUSY`.
const BUSY: u16 = 0x8000;

/// One hidden register access the model saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HiddenAccess {
    /// `true` for a write.
    pub write: bool,
    /// Block (\[13:10\] of the control word).
    pub block: u8,
    /// Port (\[9:5\]).
    pub port: u8,
    /// Register (\[4:0\]).
    pub reg: u8,
    /// The value written, or the value the read returned.
    pub value: u16,
}

/// The hidden registers of one chip.
#[derive(Debug, Clone, Default)]
pub(super) struct Hidden {
    values: BTreeMap<(u8, u8, u8), u16>,
    log: Vec<HiddenAccess>,
}

impl ChipModel {
    fn has_hidden(&self) -> bool {
        matches!(
            self.map.family,
            LinuxFamily::F6341 | LinuxFamily::F6390 | LinuxFamily::F6393 | LinuxFamily::F6320
        )
    }

    /// Every hidden register access so far, in order.
    pub fn hidden_accesses(&self) -> &[HiddenAccess] {
        &self.hidden.log
    }

    /// A hidden register's value (0 until written).
    pub fn hidden_reg(&self, block: u8, port: u8, reg: u8) -> u16 {
        self.hidden
            .values
            .get(&(block, port, reg))
            .copied()
            .unwrap_or(0)
    }

    /// A write of `value` to register `reg` of port `p`: runs a hidden access when it is
    /// the control register; returns whether it was handled here.
    pub(super) fn hidden_port_written(&mut self, p: usize, reg: u8, value: u16) -> bool {
        if !self.has_hidden() || reg != RESERVED_1A || p != CTRL_PORT {
            return false;
        }
        if value & BUSY == 0 {
            self.ports[CTRL_PORT][usize::from(RESERVED_1A)] = value;
            return true;
        }
        let block = ((value >> 10) & 0xF) as u8;
        let port = ((value >> 5) & 0x1F) as u8;
        let r = (value & 0x1F) as u8;
        let write = value & WRITE != 0;
        let data = &mut self.ports[DATA_PORT][usize::from(RESERVED_1A)];
        let v = if write {
            self.hidden.values.insert((block, port, r), *data);
            *data
        } else {
            let v = self
                .hidden
                .values
                .get(&(block, port, r))
                .copied()
                .unwrap_or(0);
            *data = v;
            v
        };
        self.hidden.log.push(HiddenAccess {
            write,
            block,
            port,
            reg: r,
            value: v,
        });
        // Completes at once: BUSY reads clear.
        self.ports[CTRL_PORT][usize::from(RESERVED_1A)] = value & !BUSY;
        true
    }
}
