//! Property tests over arbitrary inputs: no panic, time never backwards, programmed deltas
//! in range, the queue against a reference model.

mod properties;
