//! Property tests of the driver on a bus and busy bits that behave in any way.

mod operations;
