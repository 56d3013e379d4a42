//! No event lost under the failures a timer can give (refused programmings, lost, doubled
//! and late interrupts, stale status) and idle longer than a wrap: the timer queue and both
//! runtime adapters.

mod adapters_failures;
mod failures;
mod idle;
