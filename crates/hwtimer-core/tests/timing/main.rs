//! The core's pieces on simulated counters and clockevents: width extension, delays,
//! bounded polling, alarms, the software timer queue, the ClockEvent conformance suite and
//! the sequence lock behind the published time.

mod alarm;
mod conformance;
mod delay;
mod extend;
mod poll;
mod queue;
mod seqlock;
