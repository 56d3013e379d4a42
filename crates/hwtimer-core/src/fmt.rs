//! Logging shim for the whole family: `defmt` when the *calling* crate's `defmt` feature is
//! on, nothing otherwise (the arguments are not even evaluated), so a build without the
//! feature carries no logging code at all.
//!
//! The macros are exported (hidden) so every driver crate logs through the same shim:
//! `hwtimer_core::log_warn!("MCT WSTAT timeout on {=u32:#x}", offset)`. They expand to
//! `#[cfg(feature = "defmt")] defmt::…!(…)` at the call site, so the `cfg` is the calling
//! crate's: each driver crate has a `defmt` feature that enables its own `defmt`
//! dependency. The levels follow defmt's: `log_error!` for a failure the caller cannot
//! recover from, `log_warn!` for a recovered or reported fault (a timeout, a dropped frame,
//! a failed re-arm), `log_debug!` for expected but notable events (a stale status dropped
//! at shutdown), `log_trace!` for the hot paths.

/// Log at defmt's `error` level (only with the calling crate's `defmt` feature).
#[macro_export]
#[doc(hidden)]
macro_rules! log_error {
    ($($t:tt)*) => {
        #[cfg(feature = "defmt")]
        {
            ::defmt::error!($($t)*);
        }
    };
}

/// Log at defmt's `warn` level (only with the calling crate's `defmt` feature).
#[macro_export]
#[doc(hidden)]
macro_rules! log_warn {
    ($($t:tt)*) => {
        #[cfg(feature = "defmt")]
        {
            ::defmt::warn!($($t)*);
        }
    };
}

/// Log at defmt's `debug` level (only with the calling crate's `defmt` feature).
#[macro_export]
#[doc(hidden)]
macro_rules! log_debug {
    ($($t:tt)*) => {
        #[cfg(feature = "defmt")]
        {
            ::defmt::debug!($($t)*);
        }
    };
}

/// Log at defmt's `trace` level (only with the calling crate's `defmt` feature).
#[macro_export]
#[doc(hidden)]
macro_rules! log_trace {
    ($($t:tt)*) => {
        #[cfg(feature = "defmt")]
        {
            ::defmt::trace!($($t)*);
        }
    };
}
