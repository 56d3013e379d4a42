//! Logging shim: `defmt` when the `defmt` feature is on, nothing otherwise.
//!
//! Drivers log through these macros only, never through `defmt` directly, so a build
//! without the feature carries no logging code at all.
#![allow(unused_macros)]

#[cfg(feature = "defmt")]
macro_rules! trace { ($($t:tt)*) => { ::defmt::trace!($($t)*) }; }
#[cfg(not(feature = "defmt"))]
macro_rules! trace {
    ($($t:tt)*) => {{}};
}

#[cfg(feature = "defmt")]
macro_rules! warning { ($($t:tt)*) => { ::defmt::warn!($($t)*) }; }
#[cfg(not(feature = "defmt"))]
macro_rules! warning {
    ($($t:tt)*) => {{}};
}

#[allow(unused_imports)]
pub(crate) use {trace, warning};
