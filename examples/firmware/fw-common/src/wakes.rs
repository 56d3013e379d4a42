//! What the async firmware measures about each wake-up: how many, how many early, how late.
//!
//! A task records every resumption with the instant it waited for (in ticks of the hardware
//! time base), the time base's value when it started waiting, and the time base's value when
//! it resumed. A wake is **early** when it resumes before its deadline. Lateness counts from
//! the later of the deadline and the start of the wait (a deadline already passed when the
//! wait began is due at once; a `Ticker` that fell behind does that).
//!
//! The summary line is what `expected.txt` asserts:
//! `<runtime>: wakes=<n> early=<k> max_late_ticks=<m>`.

use crate::{Console, println};

/// Counters of one runtime's wake-ups.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WakeStats {
    /// Resumptions recorded.
    pub wakes: u64,
    /// Of which before their deadline.
    pub early: u64,
    /// Largest lateness, in time-base ticks.
    pub max_late: u64,
    /// Sum of the lateness of the wakes that were not early, in time-base ticks.
    pub sum_late: u64,
}

impl WakeStats {
    /// Nothing recorded.
    pub const fn new() -> Self {
        Self {
            wakes: 0,
            early: 0,
            max_late: 0,
            sum_late: 0,
        }
    }

    /// A task that began waiting at `scheduled` for `deadline` resumed at `now` (all in
    /// time-base ticks).
    pub fn record(&mut self, deadline: u64, scheduled: u64, now: u64) {
        self.wakes = self.wakes.saturating_add(1);
        if now < deadline {
            self.early = self.early.saturating_add(1);
        } else {
            let late = now - deadline.max(scheduled).min(now);
            self.max_late = self.max_late.max(late);
            self.sum_late = self.sum_late.saturating_add(late);
        }
    }

    /// Mean lateness in hundredths of a tick.
    pub fn mean_late_centi(&self) -> u64 {
        let on_time = self.wakes.saturating_sub(self.early);
        self.sum_late
            .saturating_mul(100)
            .checked_div(on_time)
            .unwrap_or(0)
    }

    /// Prints `<runtime>: wakes=<n> early=<k> max_late_ticks=<m>`.
    pub fn print_summary<C: Console>(&self, console: C, runtime: &str) {
        println!(
            console,
            "{runtime}: wakes={} early={} max_late_ticks={}", self.wakes, self.early, self.max_late
        );
    }
}

/// The limit on a runtime's `now()`: it may add at most `limit` instructions to the
/// time base's own read, both measured by the same firmware (in hundredths). Prints
/// `runtime now(): <runtime> +<over> insns over <base> (limit <limit>): ok|FAIL` and returns
/// whether the limit holds.
pub fn print_now_overhead<C: Console>(
    console: C,
    runtime: &str,
    base: &str,
    now_centi: u64,
    base_centi: u64,
    limit: u64,
) -> bool {
    let over = now_centi.saturating_sub(base_centi);
    let ok = over <= limit.saturating_mul(100);
    println!(
        console,
        "runtime now(): {runtime} +{}.{:02} insns over {base} (limit {limit}): {}",
        over / 100,
        over % 100,
        crate::verdict(ok)
    );
    ok
}
