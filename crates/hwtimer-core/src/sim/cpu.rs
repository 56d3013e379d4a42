//! The simulated CPU number of each host thread, so that tests run threads as cores.

use std::cell::Cell;

use crate::cpu::CurrentCpu;

std::thread_local! {
    static CPU: Cell<u32> = const { Cell::new(0) };
}

/// The CPU number of the calling thread in the simulation: 0 until [`SimCpu::enter`].
///
/// Models with banked per-CPU registers pick the bank of [`SimCpu::current`], as hardware
/// picks the bank of the CPU that issues the access.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimCpu;

impl SimCpu {
    /// Make the calling thread CPU `n` (for every later access from this thread).
    pub fn enter(n: u32) {
        CPU.with(|c| c.set(n));
    }

    /// The calling thread's CPU number.
    pub fn current() -> u32 {
        CPU.with(Cell::get)
    }
}

impl CurrentCpu for SimCpu {
    fn current_cpu(&self) -> u32 {
        SimCpu::current()
    }
}
