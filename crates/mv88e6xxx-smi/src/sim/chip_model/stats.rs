//! The model of the statistics unit (MIB counters).

use super::ChipModel;

impl ChipModel {
    /// An operation of this unit started with op word `word`.
    pub(super) fn stats_op_started(&mut self, _now: u64, _word: u16) {}

    /// This unit's operation completed: its results become visible.
    pub(super) fn stats_op_done(&mut self, _now: u64) {}
}

impl ChipModel {
    /// A frame was received on `port` (counted by the statistics unit; filled by its
    /// owner).
    pub(super) fn mib_rx(&mut self, _port: usize, _frame: &[u8]) {}

    /// A frame leaves on `port` (counted by the statistics unit; filled by its owner).
    pub(super) fn mib_tx(&mut self, _port: usize, _frame: &[u8]) {}
}
