//! The continuous clocksource: one timer free-running in TIMER mode with DATA = 0.

use hwtimer_core::{Claim, Clocksource, Continuous, Error};

use crate::channel::{Channel, Mode};
use crate::regs::COUNTER_BITS;
use crate::soc::Config;

/// One Otto timer run as a free-running 28-bit up-counter: the family's Linux
/// "realtek_otto_timer" clocksource (docs/otto-timer.md#how-linux-drives-it).
///
/// # Timing contract
///
/// - Counts **up** by one every `1 / tick_hz` seconds, from 0 at construction, and wraps
///   from `0x0FFF_FFFF` to 0 (every 85.9 s at 3.125 MHz): TIMER mode with DATA = 0
///   (docs/otto-timer.md#counter-and-clock).
/// - **Continuous** (Linux `CLOCK_SOURCE_IS_CONTINUOUS`; without it OpenWrt's delays waited for a
///   10 ms tick, see [`hwtimer_core::Continuous`]): it needs no interrupt
///   to advance and nothing stops or resets it after construction, because this value
///   owns the timer. That is what lets [`Delay`](hwtimer_core::Delay) and
///   [`Poller`](hwtimer_core::Poller) use it, and what the seed's 10 ms sleeps lacked.
/// - [`read`](Clocksource::read) costs **one MMIO read** (CNT) and returns it masked to
///   28 bits, whatever the bus returns, so it never panics.
/// - For 64-bit time wrap it in [`Extended`](hwtimer_core::Extended) and read it at least
///   once per half wrap (42.9 s at 3.125 MHz). On MIPS32 (no 64-bit atomics) `Extended`
///   publishes through hwtimer-core's `Published`: whether every CPU may read it at once
///   is hwtimer-core's to state (docs/otto-timer.md#irq-affinity).
/// - **Dropping** it (or [`release`](Self::release)) stops the timer and clears its
///   status (2 writes): nothing can read it any more, so nothing is left counting.
///
/// ```
/// use otto_timer::{Config, OttoClocksource, Soc};
/// use otto_timer::sim::OttoSim;
/// use hwtimer_core::Clocksource;
///
/// let sim = OttoSim::new(Soc::Rtl838x);
/// let cs = OttoClocksource::new(sim.bus(), &Config::new(Soc::Rtl838x), 4).unwrap();
/// let a = cs.read();
/// sim.clock().advance(1_000_000); // 1 ms = 3125 ticks
/// assert!(cs.read() - a >= 3125);
/// ```
#[derive(Debug)]
#[must_use = "dropping the clocksource stops its timer"]
pub struct OttoClocksource<B: Claim<Word = u32>> {
    channel: Channel<B>,
}

impl<B: Claim<Word = u32>> OttoClocksource<B> {
    /// Take timer `index` of the block behind `bus` and start it free-running at
    /// `config.tick_hz`: CTRL = 0, INT = 0 (interrupt off; IP written 0 is not an
    /// acknowledge), DATA = 0 (resets the counter), CTRL = ENABLE | TIMER | divisor —
    /// four writes.
    ///
    /// Errors: as [`OttoClockEvent::new`](crate::OttoClockEvent::new) (rate, timer index,
    /// bus window); nothing is written then.
    pub fn new(bus: B, config: &Config, index: usize) -> Result<Self, Error> {
        let channel = Channel::new(bus, config, index)?;
        channel.set_irq_enabled(false);
        // Not near any interrupt (IE off), so the plain stop/DATA/start is enough here.
        channel.load_and_start(Mode::Timer, 0);
        Ok(Self { channel })
    }

    /// The timer index this clocksource runs on.
    pub fn index(&self) -> usize {
        self.channel.index()
    }

    /// The prescaler value programmed.
    pub fn divisor(&self) -> u16 {
        self.channel.divisor()
    }

    /// Stop the timer and clear its status (as dropping it does: CTRL = 0, INT = IP, 2
    /// writes) and give the bus back.
    pub fn release(self) -> B {
        self.channel.into_bus()
    }
}

impl<B: Claim<Word = u32>> Clocksource for OttoClocksource<B> {
    fn bits(&self) -> u32 {
        COUNTER_BITS
    }
    fn freq_hz(&self) -> u32 {
        self.channel.tick_hz()
    }
    fn read(&self) -> u64 {
        u64::from(self.channel.count())
    }
}

impl<B: Claim<Word = u32>> Continuous for OttoClocksource<B> {}
