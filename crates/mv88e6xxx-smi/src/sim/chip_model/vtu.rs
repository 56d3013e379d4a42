//! The model of the VLAN table unit (VTU) and, where the family has one, the spanning-tree unit (STU).

use super::ChipModel;

impl ChipModel {
    /// An operation of this unit started with op word `word`.
    pub(super) fn vtu_op_started(&mut self, _now: u64, _word: u16) {}

    /// This unit's operation completed: its results become visible.
    pub(super) fn vtu_op_done(&mut self, _now: u64) {}
}
