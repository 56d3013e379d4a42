//! # exynos-mct
//!
//! A `no_std` driver for the Samsung Exynos **Multi Core Timer** (MCT): one 64-bit global
//! free-running counter (FRC) at `fin_pll` (24 MHz), four 64-bit global comparators, and
//! per-CPU local timers (two on Exynos4210). Facts, their sources and what is unverified:
//! the crate's `docs/exynos-mct.md`.
//!
//! | module | what it holds |
//! |---|---|
//! | [`regs`] | the register map, every offset and field once, with its source |
//! | [`wstat`] | the write-status protocol: bounded wait + W1C after each buffered write |
//! | [`clocksource`] | [`Frc`] (32-bit clocksource, hi-lo-hi 64-bit read), [`FrcTime`] (64-bit time at one read), the cost table |
//! | [`clockevent`] | [`Comparator`] (global comparator, oneshot and periodic) and [`LocalTimer`] (per-CPU) |
//! | [`config`] | [`Config`] and the rate maths of `MCT_CFG` ([`frc_rate`]) |
//! | `shared` (private) | the shared `G_TCON` / `G_INT_ENB` mirrors and which parts are handed out |
//! | `mct` (private) | [`Mct`], the block: owns the bus, the shared-register mirrors and the time base, hands out the parts |
//! | `lock` (private) | the shared-register lock (its holder's CPU, bounded spin, [`Error::Busy`]) |
//! | `sim` | (feature `sim`) the behavioural model of the block, `sim::MctIrqs` to run it to its next interrupt |
//!
//! ## The three-read timestamp, and what this crate does about it
//!
//! Linux, 2014: reading the 64-bit FRC consistently takes three slow MMIO
//! reads (high, low, high again), and on ChromeOS `exynos_frc_read()` took 2 % of CPU
//! time; Linux gave up the 64-bit clocksource and reads the low word only. Here the
//! trade-off is not needed: [`FrcTime`] is a monotonic 64-bit time that costs **one MMIO
//! read** (plus a lock-free update of the published time), by extending the low word in software, under
//! one stated precondition (read it at least once every 89.5 s). The exact hi-lo-hi read
//! ([`Frc::read64`]) remains for where exactness against the hardware comparator
//! matters: programming a [`Comparator`].
//!
//! ## Contract
//!
//! - **One time base.** The [`Mct`] publishes one 64-bit time; every [`FrcTime`] from
//!   [`Mct::time`] is a view of it. It never goes backwards and equals the hardware 64-bit
//!   count (what the comparators compare against) while its precondition holds (see
//!   [`clocksource`]).
//! - **Never early.** The clockevents meet hwtimer-core's [`ClockEvent`](hwtimer_core::ClockEvent)
//!   contract: a comparator fires when the FRC reaches `now + delta` (`now` read after the
//!   call began) or the absolute value given to `set_compare`; a local timer counts `delta`
//!   ticks of `fin_pll / 2` after its start. Late by at most `min_delta` plus the
//!   programming time (a handful of MMIO accesses) plus interrupt latency (plus one local
//!   tick per interval if the platform counts `ICNTB + 1` and [`Config`] does not say
//!   so). A comparator value that the counter passed while it was being programmed is
//!   detected and re-armed, never silently lost. A request out of range writes nothing.
//! - **Pending status.** `shutdown` clears the channel's `G_INT_CSTAT` / `L_INT_CSTAT`
//!   bit (the cancelled event is gone), arming never does, `ack` reports and clears it.
//! - **Bounded waits.** Every buffered write waits for its WSTAT bit, bounded by a number
//!   of polls and, while the FRC is believed to run, also by a deadline on it (see
//!   [`wstat`]); a missing bit is [`Error::Timeout`], never a panic or a hang, even when
//!   the FRC stops or the block is dead. The "FRC runs" belief changes only after an
//!   acknowledgement and a count seen moving.
//! - **Shared `G_TCON`.** Its write, wait and clear form one exclusive section under a
//!   lock the [`Mct`] owns, with interrupts unmasked and no critical section inside it. The
//!   lock records its holder's CPU ([`Config::cores`]): an interrupt handler that
//!   interrupted the holder gets [`Error::Busy`] at once, having written nothing; another
//!   core spins for it, bounded (the [`Mct`] docs state the bound). Calls that would
//!   invalidate a lent-out clocksource take `&mut Mct`.
//! - **Rates.** The FRC rate is the input clock divided exactly by `MCT_CFG`; an inexact
//!   division is refused ([`frc_rate`]).
//! - **After a failure.** A channel whose enable or start was not acknowledged is masked,
//!   and `ack`/`shutdown` stop it; nothing keeps interrupting.
//! - **Suspend/resume** as Linux: [`Mct::resume`] restarts the FRC, each channel's
//!   `resume` shuts it down.

//! ## Example
//!
//! On the behavioural model (the same code runs on [`hwtimer_core::Mmio`] on hardware):
//!
//! ```
//! use exynos_mct::{Config, Mct};
//! use exynos_mct::sim::MctModel;
//! use hwtimer_core::sim::{SimBus, SimClock};
//! use hwtimer_core::{ClockEvent, Clocksource, Monotonic};
//!
//! let clock = SimClock::new();
//! let bus = SimBus::new(&clock, MctModel::exynos4210());
//! let mct = Mct::new(bus.clone(), Config::default()).unwrap();
//! mct.start_frc().unwrap();
//!
//! // 32-bit clocksource (one read) and 64-bit time (one read, amortised).
//! let frc = mct.frc();
//! let time = mct.time();
//! clock.advance(1_000_000); // 1 ms = 24 000 ticks at 24 MHz
//! assert!(frc.read() >= 24_000);
//! bus.reset_stats();
//! let t = time.now();
//! assert_eq!(bus.stats().reads, 1);
//! assert!(t >= 24_000);
//!
//! // Comparator 0 as a oneshot 100 µs from now; poll its status.
//! let mut comp0 = mct.comparator(0).unwrap();
//! comp0.set_next_event(2_400).unwrap();
//! assert!(!comp0.is_pending());
//! clock.advance(100_000);
//! assert!(comp0.ack());
//! ```
//!
//! On hardware (Exynos4210):
//!
//! ```no_run
//! use exynos_mct::{Config, Mct, regs};
//! use hwtimer_core::Mmio;
//! // SAFETY: the MCT window of Exynos4210, mapped, and driven by nothing else.
//! let bus = unsafe { Mmio::<u32>::new(regs::EXYNOS4210_BASE, regs::WINDOW_LEN) };
//! let mct = Mct::new(bus, Config::default()).unwrap();
//! mct.start_frc().unwrap();
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
//!
//! Neither runtime is pulled in unless its feature is on.
//!
//! `critical-section` is used (for the short sections around the `taken` bits and the
//! owed-acknowledgement record of the registers other than `G_TCON`; the published time of
//! [`FrcTime`] too on a target without 64-bit atomics), never implemented: the firmware
//! picks the implementation, a multi-core one on a multi-core SoC. `G_TCON` (its mirror,
//! its write-wait-clear section, its owed acknowledgement) and `G_INT_ENB` are under the
//! `Mct`'s own lock instead, and no critical section is entered while it is held (see
//! [`Mct`]).
//!
//!
//! ## Cost
//!
//! MMIO accesses and Cortex-A9 instructions per call are in the README's cost table, as
//! the bench prints them (`cargo bench -p exynos-mct --bench seed` on the model,
//! `cargo xtask qemu smdkc210` on QEMU); `tests/driver/driver.rs` asserts the access counts.
//! An arm is one [`G_TCON`](regs::G_TCON_REG) exclusive section for the disable and one
//! for the enable (Linux's order: the comparator stays disabled while `G_COMPn_L` is
//! written, as writing an enabled comparator is not documented), each under the
//! shared-register lock; a local timer that still counts is stopped first (Linux stops it
//! too: reprogramming a running local timer in place is not documented).
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
// `deny`, not `forbid`: the one exception is the `CpuLocal` marker impl of `LocalTimer`
// (hwtimer-core's unsafe marker trait; no unsafe operation), allowed where it stands.
#![deny(unsafe_code)]

pub mod clockevent;
pub mod clocksource;
pub mod config;
#[cfg(feature = "embassy")]
pub mod embassy;
mod lock;
mod mct;
pub mod regs;
#[cfg(feature = "rtic")]
pub mod rtic;
mod shared;
hwtimer_core::sim_module!();
pub mod wstat;

#[cfg(feature = "rtic")]
#[doc(hidden)]
pub use hwtimer_core as __hwtimer_core;

pub use clockevent::{Comparator, LocalTimer};
pub use clocksource::{Frc, FrcTime};
pub use config::{Config, Cores, CpuMap, LocalIrq, frc_rate};
pub use mct::Mct;
pub use wstat::{WaitClock, WstatConfig};

#[cfg(doc)]
use hwtimer_core::Error;
use mct::drop_count;
use wstat::Bound;
