//! The sequence lock behind `Published` on targets without 64-bit atomics, on two real
//! threads: a writer publishing values whose halves both change across every carry, and
//! a reader that must never see a torn value or time going back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hwtimer_core::seqlock::SeqLockU64;

#[test]
fn two_threads_never_see_a_torn_or_backward_value() {
    // Start just below a carry into the high half, and step so that it carries often.
    const START: u64 = 0x0000_0001_FFFF_F000;
    const STEP: u64 = 0x1001;
    const WRITES: u64 = 2_000_000;
    let lock = Arc::new(SeqLockU64::new(START));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (lock, done) = (lock.clone(), done.clone());
        std::thread::spawn(move || {
            for k in 1..=WRITES {
                lock.write_exclusive(START + k * STEP);
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let (mut last, mut reads, mut misses) = (START, 0u64, 0u64);
    while !done.load(Ordering::SeqCst) || reads == 0 {
        match lock.try_read() {
            Some(v) => {
                assert_eq!((v - START) % STEP, 0, "torn read {v:#x}");
                assert!(v <= START + WRITES * STEP, "never written {v:#x}");
                assert!(v >= last, "went back: {v:#x} after {last:#x}");
                last = v;
                reads += 1;
            }
            None => misses += 1,
        }
    }
    writer.join().unwrap();
    assert_eq!(lock.try_read(), Some(START + WRITES * STEP));
    println!("seqlock: reads={reads} misses={misses}");
}
