//! Property tests: arbitrary register read-backs and operations never panic and never
//! program a delta out of range.

mod properties;
