//! A clockevent that counts its programmings: [`Counted`].
//!
//! The boards that show "armed once" (npcm750, npcm750-net) print how many times the
//! comparator behind their timer queue was programmed. [`Counted`] wraps any
//! [`ClockEvent`] and adds one to a counter of the board's for every programming that
//! succeeded (`set_next_event`, `set_compare`, `set_periodic`); everything else is passed
//! through unchanged, capabilities included, so an `Alarm` treats the wrapped channel
//! exactly as the bare one.

use core::sync::atomic::{AtomicU32, Ordering};

#[cfg(test)]
use hwtimer_core::ConfigError;
use hwtimer_core::{Capabilities, ClockEvent, Error};

/// `event`, counting its successful programmings in `programs`.
///
/// The count is a plain load and store (no read-modify-write instruction, which ARMv7 only
/// has as LDREX/STREX): the queue calls the clockevent inside its critical section, so
/// nothing else updates the counter meanwhile.
pub struct Counted<E> {
    event: E,
    programs: &'static AtomicU32,
}

impl<E> Counted<E> {
    /// `event`, counting into `programs`.
    pub const fn new(event: E, programs: &'static AtomicU32) -> Self {
        Self { event, programs }
    }

    /// The wrapped channel.
    pub fn inner(&self) -> &E {
        &self.event
    }

    #[inline(always)]
    fn counted(&self, result: Result<(), Error>) -> Result<(), Error> {
        if result.is_ok() {
            let n = self.programs.load(Ordering::Relaxed);
            self.programs.store(n.wrapping_add(1), Ordering::Relaxed);
        }
        result
    }
}

impl<E: ClockEvent> ClockEvent for Counted<E> {
    #[inline]
    fn capabilities(&self) -> Capabilities {
        self.event.capabilities()
    }
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        let r = self.event.set_next_event(delta);
        self.counted(r)
    }
    #[inline]
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        let r = self.event.set_compare(at);
        self.counted(r)
    }
    #[inline]
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        let r = self.event.set_periodic(period);
        self.counted(r)
    }
    #[inline]
    fn shutdown(&mut self) {
        self.event.shutdown()
    }
    #[inline]
    fn ack(&mut self) -> bool {
        self.event.ack()
    }
}

impl<E: core::fmt::Debug> core::fmt::Debug for Counted<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Counted")
            .field("event", &self.event)
            .field("programs", &self.programs.load(Ordering::Relaxed))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A channel whose programmings succeed or fail as told.
    struct Script {
        ok: bool,
    }

    impl ClockEvent for Script {
        fn capabilities(&self) -> Capabilities {
            Capabilities::new(1000, 1, 100)
                .with_periodic()
                .with_absolute()
        }
        fn set_next_event(&mut self, _delta: u64) -> Result<(), Error> {
            if self.ok {
                Ok(())
            } else {
                Err(Error::Config(ConfigError::DeltaOutOfRange))
            }
        }
        fn set_compare(&mut self, _at: u64) -> Result<(), Error> {
            self.set_next_event(1)
        }
        fn set_periodic(&mut self, _period: u64) -> Result<(), Error> {
            self.set_next_event(1)
        }
        fn shutdown(&mut self) {}
        fn ack(&mut self) -> bool {
            true
        }
    }

    #[test]
    fn counts_successful_programmings_only() {
        static N: AtomicU32 = AtomicU32::new(0);
        let mut c = Counted::new(Script { ok: true }, &N);
        assert_eq!(c.capabilities(), Script { ok: true }.capabilities());
        c.set_next_event(5).unwrap();
        c.set_compare(5).unwrap();
        c.set_periodic(5).unwrap();
        c.shutdown();
        assert!(c.ack());
        assert_eq!(N.load(Ordering::Relaxed), 3);
        c.event.ok = false;
        assert_eq!(
            c.set_compare(5),
            Err(Error::Config(ConfigError::DeltaOutOfRange))
        );
        assert_eq!(N.load(Ordering::Relaxed), 3);
    }
}
