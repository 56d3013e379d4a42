//! `loom` model check of the sequence lock behind `Published` on targets without 64-bit
//! atomics (MIPS32). Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p hwtimer-core --test loom --release`; in a normal
//! build this file is empty.
#![cfg(loom)]

use hwtimer_core::seqlock::SeqLockU64;
use loom::sync::{Arc, Mutex};
use loom::thread;

/// Values whose halves both change, so a torn pair is recognisable: `(k << 32) | k`.
const fn value(k: u64) -> u64 {
    (k << 32) | k
}

/// Every interleaving with up to three preemptions (loom's default bound is none, which
/// takes minutes here for no more coverage of a two-store protocol).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

fn check(v: u64, writes: u64) {
    assert_eq!(v >> 32, v & 0xFFFF_FFFF, "torn read {v:#x}");
    assert!(v & 0xFFFF_FFFF <= writes, "value never written {v:#x}");
}

#[test]
fn a_reader_never_sees_a_torn_value_and_never_goes_back() {
    model(|| {
        let lock = Arc::new(SeqLockU64::new(value(0)));
        let w = {
            let lock = lock.clone();
            thread::spawn(move || {
                for k in 1..=2 {
                    lock.write_exclusive(value(k));
                }
            })
        };
        let mut last = 0;
        for _ in 0..2 {
            if let Some(v) = lock.try_read() {
                check(v, 2);
                assert!(v >= last, "went back: {v:#x} after {last:#x}");
                last = v;
            }
        }
        w.join().unwrap();
        assert_eq!(lock.try_read(), Some(value(2)));
    });
}

#[test]
fn two_serialised_writers_and_a_reader() {
    model(|| {
        let lock = Arc::new(SeqLockU64::new(value(0)));
        let writers = Arc::new(Mutex::new(0u64));
        let spawn = |lock: Arc<SeqLockU64>, writers: Arc<Mutex<u64>>| {
            thread::spawn(move || {
                // The writers' lock (Published uses critical-section), then one publish of
                // the next value, as `advance` does.
                let mut n = writers.lock().unwrap();
                assert_eq!(lock.read_exclusive(), value(*n));
                *n += 1;
                lock.write_exclusive(value(*n));
            })
        };
        let a = spawn(lock.clone(), writers.clone());
        let b = spawn(lock.clone(), writers.clone());
        if let Some(v) = lock.try_read() {
            check(v, 2);
        }
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(lock.try_read(), Some(value(2)));
    });
}
