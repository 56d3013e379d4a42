//! Property test: arbitrary register read-backs and call sequences; nothing panics, every
//! call stays within a read bound.

mod properties;
