//! The model of the address translation unit (ATU).

use super::ChipModel;

impl ChipModel {
    /// An operation of this unit started with op word `word`.
    pub(super) fn atu_op_started(&mut self, _now: u64, _word: u16) {}

    /// This unit's operation completed: its results become visible.
    pub(super) fn atu_op_done(&mut self, _now: u64) {}
}
