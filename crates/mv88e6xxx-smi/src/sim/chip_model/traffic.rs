//! Frames the model switches between its ports.

use super::ChipModel;

impl ChipModel {
    /// A frame arrives on `port` at `now_ns`; returns the ports it leaves on.
    pub fn inject(&mut self, _now_ns: u64, _port: usize, _frame: &[u8]) -> Vec<usize> {
        Vec::new()
    }
}
