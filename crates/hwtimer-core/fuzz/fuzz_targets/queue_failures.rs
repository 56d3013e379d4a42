//! The timer queue against a plain sorted reference, with injected failures (refused
//! programmings, lost, doubled and late interrupts, stale status, idle over wraps): any
//! divergence in what runs, or when, is a crash. The body is
//! `hwtimer_core::sim::queue_check::run`, which the crate's property test also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(divergence) = hwtimer_core::sim::queue_check::run(data) {
        panic!("queue diverged from the reference: {divergence}");
    }
});
