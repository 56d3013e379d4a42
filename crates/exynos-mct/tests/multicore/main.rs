//! The shared registers (`G_TCON`, `G_INT_ENB`) under the `Mct`'s lock: two cores, an
//! interrupt handler interleaved with a thread, and a handler on the core holding the lock.

mod interleave;
mod lock_owner;
mod multicore;
