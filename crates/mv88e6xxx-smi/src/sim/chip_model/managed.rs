//! The model's indirect tables of the managed-switch registers: the Global2 trunk mask
//! and trunk mapping tables, the 6390 class's per-port IEEE priority map table, and the
//! 6393 family's extended port control (EPC) with the port EtherType.
//!
//! Facts, from Linux `drivers/net/dsa/mv88e6xxx/global2.h` and `port.h` (mainline commit
//! `0010b838db9f`; the EPC write opcode as corrected in mainline, "fix 6393x EPC write
//! command", to 0x3000), never from the driver:
//! - G2 0x07 TRUNK_MASK: UPDATE 0x8000, mask number 0x7000, HASH 0x0800, port vector in
//!   the low bits (`MV88E6XXX_G2_TRUNK_MASK*`); 8 masks;
//! - G2 0x08 TRUNK_MAPPING: UPDATE 0x8000, trunk ID 0x7800, port vector in the low bits
//!   (`MV88E6XXX_G2_TRUNK_MAPPING*`); 16 IDs;
//! - port 0x18 IEEE_PRIO_MAP_TABLE on the chips whose `port_tag_remap` is
//!   `mv88e6390_port_tag_remap` (`chip.c`: 6190, 6190X, 6191, 6290, 6390, 6390X and the
//!   `mv88e6393x_ops` chips): UPDATE 0x8000, table 0x7000, pointer 0x0E00, data 0x01FF
//!   (`MV88E6390_PORT_IEEE_PRIO_MAP_TABLE*`);
//! - port 0x10 EPC_CMD / 0x11 EPC_DATA on the `mv88e6393x_ops` chips: BUSY 0x8000, write
//!   0x3000, index of the port EtherType 0x02 (`MV88E6393X_PORT_EPC_*`).
//!
//! Model assumptions: a table write without UPDATE only selects (nothing is stored); the
//! port vector is the low 11 bits (the widest chip's ports); an EPC command completes at
//! once (BUSY reads back clear); a software reset forgets the EPC EtherType. The frame
//! path (`traffic.rs`) uses the EtherType latched at the command.

use super::ChipModel;
use crate::chip::Chip;

const G2_TRUNK_MASK: u8 = 0x07;
const G2_TRUNK_MAPPING: u8 = 0x08;
const UPDATE: u16 = 0x8000;
const TRUNK_MASK_NUM: u16 = 0x7000;
const TRUNK_MASK_HASH: u16 = 0x0800;
const TRUNK_MAPPING_ID: u16 = 0x7800;
const VECTOR: u16 = 0x07FF;

const PORT_IEEE_PRIO_MAP_TABLE: u8 = 0x18;
const PRIO_TABLE: u16 = 0x7000;
const PRIO_PTR: u16 = 0x0E00;
const PRIO_DATA: u16 = 0x01FF;

/// The EPC index of the port EtherType (port.h `MV88E6393X_PORT_EPC_INDEX_PORT_ETYPE`);
/// the EPC itself is modelled in `epc.rs`.
const EPC_INDEX_PORT_ETYPE: u8 = 0x02;

/// The tables, all zero at power-up.
#[derive(Debug, Clone, Default)]
pub(super) struct ManagedTables {
    trunk_masks: [u16; 8],
    trunk_maps: [u16; 16],
    /// Per port: 8 tables × 8 entries.
    prio_map: Vec<[[u16; 8]; 8]>,
}

impl ChipModel {
    /// Whether port register 0x18 is the IEEE priority map table here.
    fn has_prio_map_table(&self) -> bool {
        matches!(
            self.chip,
            Chip::Mv6190
                | Chip::Mv6190X
                | Chip::Mv6191
                | Chip::Mv6290
                | Chip::Mv6390
                | Chip::Mv6390X
                | Chip::Mv6191X
                | Chip::Mv6193X
                | Chip::Mv6361
                | Chip::Mv6393X
        )
    }

    /// A write of Global2 register `reg`: `true` if a trunk table took it.
    pub(super) fn g2_trunk_written(&mut self, reg: u8, value: u16) -> bool {
        let t = &mut self.managed;
        match reg {
            G2_TRUNK_MASK => {
                if value & UPDATE != 0 {
                    let num = usize::from((value & TRUNK_MASK_NUM) >> 12);
                    t.trunk_masks[num] = value & (TRUNK_MASK_HASH | VECTOR);
                }
                self.g2[usize::from(reg)] = value & !UPDATE;
                true
            }
            G2_TRUNK_MAPPING => {
                if value & UPDATE != 0 {
                    let id = usize::from((value & TRUNK_MAPPING_ID) >> 11);
                    t.trunk_maps[id] = value & VECTOR;
                }
                self.g2[usize::from(reg)] = value & !UPDATE;
                true
            }
            _ => false,
        }
    }

    /// A write of port `p`'s register `reg`: `true` if the priority table took
    /// it.
    pub(super) fn port_managed_written(&mut self, p: usize, reg: u8, value: u16) -> bool {
        let nports = self.ports.len();
        let t = &mut self.managed;
        if t.prio_map.len() != nports {
            t.prio_map = vec![[[0; 8]; 8]; nports];
        }
        if reg == PORT_IEEE_PRIO_MAP_TABLE && self.has_prio_map_table() {
            if value & UPDATE != 0 {
                let table = usize::from((value & PRIO_TABLE) >> 12);
                let ptr = usize::from((value & PRIO_PTR) >> 9);
                self.managed.prio_map[p][table][ptr] = value & PRIO_DATA;
            }
            self.ports[p][usize::from(reg)] = value & !UPDATE;
            return true;
        }
        false
    }

    /// A software reset: the EPC entries (the port EtherTypes among them) go back to their
    /// defaults, as the port registers do in the model (an assumption, see `port.rs`).
    pub(super) fn epc_reset(&mut self) {
        self.epc
            .iter_mut()
            .for_each(std::collections::BTreeMap::clear);
    }

    /// Trunk mask `num` as the model holds it: (HASH, port vector); `None` above 7.
    pub fn trunk_mask(&self, num: usize) -> Option<(bool, u16)> {
        let m = self.managed.trunk_masks.get(num)?;
        Some((m & TRUNK_MASK_HASH != 0, m & VECTOR))
    }

    /// Trunk ID `id`'s port vector as the model holds it; `None` above 15.
    pub fn trunk_mapping(&self, id: usize) -> Option<u16> {
        self.managed.trunk_maps.get(id).copied()
    }

    /// Entry `ptr` of IEEE priority map table `table` of port `port` (the 6390 class);
    /// `None` when no entry was written or the indices are out of range.
    pub fn port_prio_map(&self, port: usize, table: usize, ptr: usize) -> Option<u16> {
        Some(*self.managed.prio_map.get(port)?.get(table)?.get(ptr)?)
    }

    /// The EtherType the EPC of port `port` holds (the 6393 family), once written.
    pub fn port_epc_ether_type(&self, port: usize) -> Option<u16> {
        self.port_epc(port, EPC_INDEX_PORT_ETYPE)
    }
}
