//! `loom` model checks of `extend::Published`: the sequence lock behind it on targets
//! without 64-bit atomics (MIPS32), and its compare-and-swap path on targets with them (the
//! host's build: `Published` itself, with loom's `AtomicU64` swapped in by `cfg(loom)`). Run
//! with `RUSTFLAGS="--cfg loom" cargo test -p hwtimer-core --test loom --release`; in a
//! normal build this file is empty.
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

/// Two writers serialised by a lock, as `Published` serialises them, and a lock-free
/// reader that never sees a torn value. Seen to fail with the reader's sequence check
/// removed (`try_read` accepting `s1 != s2`): "torn read 0x1".
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
        // The reader is a spawned thread: with two writers spawned, loom never ran them
        // before the model's main thread's own loads, so a reader there saw only value(0).
        let reader = {
            let lock = lock.clone();
            thread::spawn(move || {
                if let Some(v) = lock.try_read() {
                    check(v, 2);
                }
            })
        };
        let a = spawn(lock.clone(), writers.clone());
        let b = spawn(lock.clone(), writers.clone());
        reader.join().unwrap();
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(lock.try_read(), Some(value(2)));
    });
}

/// The 64-bit path of `Published` (`AtomicU64` and a compare-and-swap loop): two cores
/// extend a 32-bit counter across its wrap at once, each from its own raw reading, while a
/// third context reads. Whatever the interleaving: each core gets at least its own reading
/// and at least what was published before its call (a stale reading maps to the newer
/// time), the reader never sees the time go back and sees only published values, and the
/// final time is the newer reading (no update is lost, none moves the time back).
///
/// Each check was seen to fail with the step weakened: with the compare-and-swap replaced
/// by a load and a plain store (a read-modify-write that is not one step) loom finds the
/// schedule where the older reading is stored last, and both the reader's "went back" and,
/// separately (the reader's check removed), the final-time check fail; with a failed
/// compare-and-swap taken as done instead of retried from the newer value, the final time
/// misses the newer reading. `Relaxed` is the ordering under test (there is none weaker):
/// the word carries no other data. The reader is a spawned thread, not the model's main
/// thread: with two writers spawned, loom never ran them before main's own loads, so a
/// reader there saw only the start value.
#[cfg(target_has_atomic = "64")]
#[test]
fn published_u64_two_cores_never_go_back() {
    use hwtimer_core::extend::{Published, extend};

    const START: u64 = 0xFFFF_FFF0;
    // Core A's reading is just before the wrap, core B's just after it (newer).
    const A: u64 = 0xFFFF_FFF8;
    const B: u64 = 0x1_0000_0010;
    model(|| {
        let time = Arc::new(Published::new(START));
        let core = |raw: u64| {
            let time = time.clone();
            thread::spawn(move || {
                let before = time.last();
                let got = time.advance(|last| extend(last, raw & 0xFFFF_FFFF, 32));
                assert!(got >= raw && got >= before, "core {raw:#x} got {got:#x}");
                assert!(got == raw || got == B, "core {raw:#x} got {got:#x}");
                got
            })
        };
        let reader = {
            let time = time.clone();
            thread::spawn(move || {
                let first = time.last();
                let second = time.last();
                for now in [first, second] {
                    assert!([START, A, B].contains(&now), "never published: {now:#x}");
                }
                assert!(second >= first, "went back: {second:#x} after {first:#x}");
            })
        };
        let a = core(A);
        let b = core(B);
        reader.join().unwrap();
        let (got_a, got_b) = (a.join().unwrap(), b.join().unwrap());
        assert_eq!(got_b, B);
        assert!(got_a == A || got_a == B);
        assert_eq!(time.last(), B, "final time");
    });
}

/// `Published::raise` (a value published as is, an interrupt handler's latched time)
/// against an `advance` on another core: the time ends at the larger and no reader sees it
/// go back. Seen to fail as the test above does: with `advance`'s compare-and-swap
/// replaced by a load and a plain store (the reader sees 200 after 300; without the
/// reader's check, the final time is 200) and with a failed compare-and-swap not retried.
#[cfg(target_has_atomic = "64")]
#[test]
fn published_u64_raise_and_advance_never_go_back() {
    use hwtimer_core::extend::{Published, extend};

    model(|| {
        let time = Arc::new(Published::new(100));
        let r = {
            let time = time.clone();
            thread::spawn(move || time.raise(300))
        };
        let a = {
            let time = time.clone();
            thread::spawn(move || time.advance(|last| extend(last, 200, 32)))
        };
        let reader = {
            let time = time.clone();
            thread::spawn(move || {
                let first = time.last();
                let second = time.last();
                assert!(second >= first, "went back: {second} after {first}");
            })
        };
        reader.join().unwrap();
        assert_eq!(r.join().unwrap(), 300);
        let got = a.join().unwrap();
        assert!(got == 200 || got == 300, "advance got {got}");
        assert_eq!(time.last(), 300);
    });
}
