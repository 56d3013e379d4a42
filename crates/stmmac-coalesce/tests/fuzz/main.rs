//! Property tests: the IC rule against a reference, configuration checks never panic, the
//! rings keep their invariants under any sequence of operations, and no descriptor content
//! or register value makes the driver panic or deliver bytes it should not.

#[path = "../harness/mod.rs"]
mod harness;

mod rings;
mod rings_qos;
