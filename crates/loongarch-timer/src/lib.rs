//! # loongarch-timer
//!
//! A `no_std` driver for the **LoongArch constant timer**, built on [`hwtimer_core`]: the
//! per-core stable counter read with `rdtime.d` (the clocksource) and the timer programmed
//! through the TCFG/TVAL/TICLR control and status registers (the clockevent), with the
//! frequency discovered from the CPUCFG words.
//!
//! | module / type | what it holds |
//! |---|---|
//! | [`csr`] | CSR numbers and fields (tock-registers), the [`Csr`] access trait, `NativeCsr` (real `csrrd`/`csrwr`/`csrxchg`/`cpucfg`/`rdtime.d`, loongarch64 only) |
//! | [`cpucfg`] | [`ConstantClock`]: CC_FREQ × CC_MUL / CC_DIV from CPUCFG 4/5, checked against CPUCFG2.LLFTP |
//! | [`StableCounter`] | `rdtime.d` as a 64-bit [`Clocksource`](hwtimer_core::Clocksource) + [`Continuous`](hwtimer_core::Continuous) + [`Monotonic`](hwtimer_core::Monotonic) |
//! | [`ConstantTimer`] | the timer as a [`ClockEvent`](hwtimer_core::ClockEvent): oneshot, periodic, shutdown, ack through TICLR; `min_delta` from [`Config`] |
//! | [`pinned`] | [`PinnedTimer`](pinned::PinnedTimer) and [`PinnedCounter`](pinned::PinnedCounter): the pair checked against the core that owns it, so it can be a `static` |
//! | `embassy`, `rtic` | (features `embassy`, `rtic`) embassy-time's time driver and an rtic-time monotonic on the pinned pair |
//! | `sim` | (feature `sim`) the behavioural model of a core's timer CSRs, stable counter and CPUCFG words |
//!
//! ## Timing contract
//!
//! - The clocksource costs one `rdtime.d`, is 64 bits wide (no width extension) and
//!   counts at the CPUCFG frequency (100 MHz on QEMU virt).
//! - A oneshot of `delta` ticks, `delta` in `[min_delta, max_delta]`, fires **never
//!   earlier than `delta` ticks** after it is programmed and at most 3 ticks later
//!   (InitVal's granularity is [4 ticks](clockevent::INITVAL_GRANULE); the driver rounds
//!   **up**, where Linux rounds down and can fire up to 3 ticks early), plus interrupt
//!   latency ([`ConstantTimer`] has the whole contract).
//! - Through [`Alarm`](hwtimer_core::Alarm), deadlines are absolute: a request closer than
//!   `min_delta` fires `min_delta` after it is programmed (late, never early), a longer
//!   one than `max_delta` (at most [`INITVAL_MAX`](clockevent::INITVAL_MAX)) is stepped, a
//!   past one is reported.
//! - `min_delta` is configuration ([`Config`]); what it costs is in
//!   [`clockevent`](clockevent#why-min_delta-matters).
//! - Pending status (ESTAT.TI): `shutdown` clears it after stopping the timer, arming never
//!   does, `ack` reports and clears it (hwtimer-core's `ClockEvent` rule).
//! - Per core: the driver types are neither `Send` nor `Sync`, and the stable counter is
//!   monotonic on the core that reads it; values of different cores are not ordered unless
//!   firmware synchronised the counters through CNTC (see [`csr`] and [`clocksource`]).
//! - Dropping a [`ConstantTimer`] (or a [`PinnedTimer`](pinned::PinnedTimer) on its core)
//!   stops the timer and clears a pending TI.
//! - Nothing panics on any register value or input: errors are [`FreqError`],
//!   [`ConfigError`] (both convert into [`hwtimer_core::Error::Config`] with the
//!   [`hwtimer_core::ConfigError`] that names the cause) or `hwtimer_core::Error`.
//!
//! ## Example
//!
//! On the behavioural model of QEMU's virt machine (on hardware, replace the
//! `sim_csr(...)` value by `unsafe { loongarch_timer::csr::NativeCsr::new() }`):
//!
//! ```
//! use loongarch_timer::sim::{LoongArchCore, sim_csr};
//! use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};
//! use hwtimer_core::sim::{IrqSource, SimClock};
//! use hwtimer_core::{Alarm, Clocksource, Fired};
//!
//! let clock = SimClock::new();
//! let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
//!
//! // Frequency from CPUCFG 2/4/5 (an absent timer or a zero frequency is an error).
//! let freq = ConstantClock::probe(&csr)?;
//! assert_eq!(freq.freq_hz(), 100_000_000);
//!
//! let counter = StableCounter::new(csr.clone(), freq);
//! let mut timer = ConstantTimer::new(csr.clone(), freq, Config::default())?;
//! timer.enable_interrupt(); // ECFG.LIE bit 11
//!
//! // A 5 µs (500-tick) deadline is clamped to min_delta = 1000 ticks: late, never early.
//! let mut alarm = Alarm::new(timer, counter)?;
//! let t0 = alarm.time().read();
//! alarm.set_delta(500)?;
//! (&csr).advance_to_next(); // the model raises ESTAT.TI; a core would now interrupt
//! match alarm.on_interrupt() {
//!     Fired::Deadline { deadline, now } => {
//!         assert!(now >= deadline);
//!         assert!(now - t0 >= 1000);
//!     }
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), hwtimer_core::Error>(())
//! ```
//!
//! ## Features
//!
//! None is on by default.
//!
#![doc = document_features::document_features!()]
//!
//! The crate is `no_std` and builds for every target of the family; only `NativeCsr`
//! needs `target_arch = "loongarch64"`.
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// `unsafe` only where a CSR instruction runs: `csr::NativeCsr` (loongarch64), which allows
// it for its module alone.
#![deny(unsafe_code)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod clockevent;
pub mod clocksource;
pub mod cpucfg;
pub mod csr;
#[cfg(all(feature = "embassy", target_has_atomic = "64"))]
pub mod embassy;
#[cfg(target_has_atomic = "64")]
pub mod pinned;
#[cfg(all(feature = "rtic", target_has_atomic = "64"))]
pub mod rtic;
hwtimer_core::sim_module!();

#[cfg(feature = "rtic")]
#[doc(hidden)]
pub use hwtimer_core as __hwtimer_core;

pub use clockevent::{Config, ConfigError, ConstantTimer};
pub use clocksource::StableCounter;
pub use cpucfg::{ConstantClock, FreqError};
pub use csr::Csr;

/// The README's examples, compiled (and run where they can) as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
