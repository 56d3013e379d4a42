//! Cross-crate scenarios for the timer family: the drivers wired together with the core's
//! machinery (time base, alarms, timer queue, polling) on their behavioural models, the way
//! a firmware wires them. The scenarios live in `tests/tests/*.rs`; this library is empty.
