//! # hwtimer-core
//!
//! The foundation of a `no_std` driver family for timer hardware (Realtek Otto, Samsung
//! Exynos MCT, LoongArch constant timer) and for the drivers that wait on timers (stmmac
//! interrupt coalescing, mv88e6xxx SMI). It holds what every one of them needs, once:
//!
//! | module | what it holds |
//! |---|---|
//! | [`clocksource`] | [`Clocksource`] (a free-running counter), the [`Continuous`] capability, [`Monotonic`] 64-bit time, [`Stopwatch`] |
//! | [`extend`] | width extension of an N-bit counter to a monotonic `u64` ([`Extended`]), documented as a small paper |
//! | [`clockevent`] | [`ClockEvent`] (what a driver implements) and [`Alarm`]: absolute deadlines, `min_delta`/`max_delta` clamping, past deadlines, never early |
//! | [`poll`] | bounded polling with Linux iopoll semantics ([`Poller`]) |
//! | [`delay`] | embedded-hal [`DelayNs`](embedded_hal::delay::DelayNs) busy-wait ([`Delay`]) and async sleep ([`AsyncDelay`]) |
//! | [`queue`] | a fixed-capacity software timer queue on one clockevent ([`HrTimers`]) |
//! | [`seqlock`] | a 64-bit value behind a sequence lock on 32-bit atomics (the time of [`Extended`] without 64-bit atomics) |
//! | [`reg`] | register access for real MMIO ([`Mmio`]) and the sim, typed with tock-registers |
//! | [`time`] | tick/nanosecond conversions that round the safe way |
//! | `sim` | (feature `sim`) the behavioural simulation backend: virtual time, register models, MMIO counters |
//!
//! ## The timing contract, in one place
//!
//! - A [`Clocksource`] counts up at a fixed rate and wraps at its width; only a
//!   [`Continuous`] one can back delays and polls, so a microsecond sleep cannot silently
//!   wait for a 10 ms tick (the Realtek Otto bug in
//!   [`Continuous`]'s background).
//! - [`Monotonic`] time never goes backwards; [`Extended`] provides it from any width if
//!   read at least once per half wrap.
//! - Alarms never fire early, are late by at most `min_delta` (+1 tick when the event is
//!   not phase-locked to the time base) plus latency, re-arm long waits in steps, and
//!   report past deadlines instead of waiting a full wrap.
//! - Delays never return early (the +1 tick rule); polls never time out before their
//!   deadline and always read once more after it.
//! - Nothing panics on any register value or input: errors are [`Error`] values.
//!
//! ## Example
//!
//! A 28-bit counter at 3.125 MHz (the Realtek Otto clocksource), simulated, backing a
//! delay, a bounded poll and a 64-bit time:
//!
//! ```
//! use embedded_hal::delay::DelayNs;
//! use hwtimer_core::{Delay, Extended, Monotonic, Poller};
//! use hwtimer_core::sim::{SimClock, SimCounter};
//!
//! let clock = SimClock::new();
//! let counter = SimCounter::new(&clock, 28, 3_125_000);
//!
//! // Never short: 10 µs is 31.25 ticks, waited as 32 + 1.
//! let mut delay = Delay::new(&counter);
//! let t0 = clock.now_ns();
//! delay.delay_us(10);
//! assert!(clock.now_ns() - t0 >= 10_000);
//!
//! // A busy flag that clears after 3 µs, polled with a 50 µs deadline.
//! let start = clock.now_ns();
//! let done = Poller::new(&counter)
//!     .timeout_us(50)
//!     .poll(|| clock.now_ns() - start >= 3_000, |ready| *ready)
//!     .unwrap();
//! assert!(done.polls >= 2);
//!
//! // 64-bit time across the 28-bit wrap (85.9 s), read every 10 s.
//! let time = Extended::new(&counter);
//! for _ in 0..20 {
//!     clock.advance(10_000_000_000);
//!     time.now();
//! }
//! assert!(time.now() > 1 << 28);
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
//!
//! `critical-section` is used, never implemented: the firmware picks the implementation.
//!
//! ## Multi-core: which `Sync` types need a multi-core `critical-section`
//!
//! These types are `Sync` and keep their shared state behind `critical-section` (a
//! `critical_section::Mutex`, or a critical section that serialises writers):
//!
//! | type | what the critical section guards |
//! |---|---|
//! | [`HrTimers`] | the queue, the alarm and the channel programming |
//! | `embassy::TimeDriver` (feature `embassy`) | the waker queue, the alarm and the channel |
//! | `rtic::Backend` and the `rtic_monotonic!` statics (feature `rtic`) | the alarm and the channel (rtic-time's own queue takes the same critical section) |
//! | [`extend::Published`] (so [`Extended`]) **on targets without 64-bit atomics** (MIPS32, ARMv7-M) | its writers only; readers take no lock ([`seqlock`]) |
//!
//! They are sound across cores **only if the firmware's `critical-section` implementation
//! excludes every core** (a spinlock taken with the local interrupts masked, as
//! `aarch32-cpu`'s `critical-section-multi-core` does), not only the local core's
//! interrupts. With a single-core implementation on a multi-core chip, two cores can be in
//! the same section at once: a corrupted queue, a channel programmed twice, a torn or
//! backward time. On targets with 64-bit atomics `Published` (and so `Extended`) takes
//! no lock at all and needs nothing. Everything else in this crate either is not `Sync` or
//! holds no shared mutable state; per-core values are bound to their CPU with
//! [`CpuBound`].
#![cfg_attr(not(any(test, feature = "std")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Library code never panics: `cargo xtask lint` (and `cargo xtask cross`, per target) denies the
// panicking lints on every library target; the host-only `sim` module is exempt below.

#[cfg(feature = "std")]
extern crate std;

mod fmt;

/// Declares the calling crate's behavioural model, `pub mod sim;` behind its `sim` feature,
/// with the library's no-panic lints allowed inside it.
///
/// The model may index, unwrap and count with plain arithmetic because it is host-only test
/// infrastructure, never firmware: the `sim` feature pulls in `std`, the model indexes its own
/// register files with addresses it bounds itself, and a panic there is a broken test set-up,
/// reported by the test that made it. So `clippy::indexing_slicing`,
/// `clippy::arithmetic_side_effects`, `clippy::unwrap_used`, `clippy::expect_used` and
/// `clippy::panic`, denied on every library target by `cargo xtask lint`, are allowed in it.
///
/// Invoke it once in the crate root, where `pub mod sim;` would stand (the module's file is
/// `src/sim.rs` or `src/sim/mod.rs` of the calling crate, and the calling crate declares the
/// `sim` feature). Not a doctest, as it declares a module from a file of the calling crate:
///
/// ```ignore
/// hwtimer_core::sim_module!();
/// ```
#[macro_export]
macro_rules! sim_module {
    () => {
        #[cfg(feature = "sim")]
        #[allow(
            clippy::unwrap_used,
            clippy::expect_used,
            clippy::panic,
            clippy::indexing_slicing,
            clippy::arithmetic_side_effects,
            reason = "host-only behavioural model (feature `sim`, never in firmware): it indexes \
                      what it bounds itself, and a panic there is a broken test set-up"
        )]
        pub mod sim;
    };
}

// `arithmetic_side_effects` allowed: `set_deadline` and the interrupt path subtract `deadline - now` right after checking
// `deadline > now`, which cannot overflow.
#[allow(clippy::arithmetic_side_effects)]
pub mod clockevent;
pub mod clocksource;
pub mod cpu;
pub mod delay;
#[cfg(feature = "embassy")]
pub mod embassy;
mod error;
pub mod extend;
#[cfg(feature = "fugit")]
pub mod fugit_ext;
pub mod poll;
pub mod queue;
pub mod reg;
#[cfg(feature = "rtic")]
pub mod rtic;
pub mod seqlock;
crate::sim_module!();
pub mod time;

pub use clockevent::{Alarm, Capabilities, ClockEvent, Fired};
pub use clocksource::{Clocksource, Continuous, Monotonic, Stopwatch};
pub use cpu::{CpuBound, CpuLocal, CurrentCpu, NativeCpu};
pub use delay::{AsyncDelay, Delay};
pub use error::{ConfigError, CpuMismatch, Error};
pub use extend::Extended;
pub use poll::{Bound, PollError, PollTimeout, Polled, Poller};
pub use queue::{HrTimers, MAX_EXPIRY_ROUNDS, QueueError, Restart, TimerId, TimerQueue};
pub use reg::{Claim, Claimed, Mmio, MmioBlock, Reg, RegisterBus, RegisterBusExt, Window};
#[cfg(feature = "rtic")]
#[doc(hidden)]
pub use rtic_time as __rtic_time;
pub use tock_registers;

/// The README's examples, compiled (and run where they can) as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
