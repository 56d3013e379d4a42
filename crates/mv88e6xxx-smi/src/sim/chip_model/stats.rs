//! The model of the statistics unit (MIB counters).

use super::ChipModel;

impl ChipModel {
    /// An operation of this unit started with op word `word`.
    pub(super) fn stats_op_started(&mut self, _now: u64, _word: u16) {}

    /// This unit's operation completed: its results become visible.
    pub(super) fn stats_op_done(&mut self, _now: u64) {}
}
