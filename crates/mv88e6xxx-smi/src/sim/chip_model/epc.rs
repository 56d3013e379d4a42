//! The 6393 family's extended port control table (Linux v6.12, torvalds/linux
//! `drivers/net/dsa/mv88e6xxx/port.h`, `port.c` `mv88e6393x_port_set_ether_type`).
//!
//! Facts: port register 0x10 is the command (`MV88E6393X_PORT_EPC_CMD`): BUSY bit 15
//! (`_EPC_CMD_BUSY` 0x8000), the write opcode 0x3000 (`_EPC_CMD_WRITE`, corrected from
//! 0x0300 by a later Linux fix), the index in the low byte (`_EPC_INDEX_PORT_ETYPE` = 2,
//! the port's EtherType); port register 0x11 holds the data (`MV88E6393X_PORT_EPC_DATA`).
//!
//! Model assumptions: a write command completes at once (BUSY reads clear) and stores the
//! data register at the index; other opcodes are kept as written and do nothing.

use std::collections::BTreeMap;

use super::ChipModel;
use crate::sim::facts::LinuxFamily;

/// port.h `MV88E6393X_PORT_EPC_CMD`.
const EPC_CMD: u8 = 0x10;
/// port.h `MV88E6393X_PORT_EPC_DATA`.
const EPC_DATA: usize = 0x11;
/// port.h `MV88E6393X_PORT_EPC_CMD_BUSY`.
const EPC_BUSY: u16 = 0x8000;
/// Opcode field and the write opcode (port.h `MV88E6393X_PORT_EPC_CMD_WRITE`).
const EPC_OP_MASK: u16 = 0x7000;
const EPC_OP_WRITE: u16 = 0x3000;

/// One port's extended port control entries.
pub(super) type EpcTable = BTreeMap<u8, u16>;

impl ChipModel {
    /// Entry `index` of port `port`'s extended port control table (6393 family), as
    /// written through EPC_CMD / EPC_DATA; `None` if never written or not that family.
    pub fn port_epc(&self, port: usize, index: u8) -> Option<u16> {
        self.epc.get(port)?.get(&index).copied()
    }

    /// A write to register `reg` of port `p` on a 6393-family chip: runs an EPC command;
    /// returns whether it was handled here.
    pub(super) fn epc_port_written(&mut self, p: usize, reg: u8, value: u16) -> bool {
        if self.map.family != LinuxFamily::F6393 || reg != EPC_CMD {
            return false;
        }
        if value & EPC_BUSY != 0 && value & EPC_OP_MASK == EPC_OP_WRITE {
            let data = self.ports[p][EPC_DATA];
            if let Some(t) = self.epc.get_mut(p) {
                t.insert((value & 0xFF) as u8, data);
            }
        }
        self.ports[p][usize::from(EPC_CMD)] = value & !EPC_BUSY;
        true
    }
}
