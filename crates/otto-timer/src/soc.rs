//! Per-SoC descriptions: where the timer block is, how many timers it has, its bus
//! clock and interrupt lines, and the prescaler arithmetic.
//!
//! Source: the DTS files `openwrt/openwrt target/linux/realtek/dts/rtl838x.dtsi`,
//! `rtl839x.dtsi`, `rtl930x.dtsi`, `rtl931x.dtsi` (`docs/otto-timer.md#per-soc-layout`). The timer
//! counts are the ones the DTS lists; PR #10631 mentions 6 timers on RTL930x and 7 on
//! RTL931x, which is **unverified**, so the driver only uses the DTS count.
//!
//! # The LXB bus clock is the board's
//!
//! The timers count the LXB bus clock through a 16-bit prescaler, so every rate the driver
//! reports depends on it. The DTS gives 200 MHz (RTL838x/839x/931x) and 175 MHz (RTL930x),
//! and [`Config::new`] uses those as per-SoC defaults ([`SocInfo::bus_clock_hz`]). On
//! RTL930x the LXB clock is derived from the switch PLL and the board decides the
//! derivation: 175 MHz is what the DTS says, other derived rates such as 153.125 MHz are
//! possible. A board that runs another rate states it with
//! [`Config::with_bus_clock_hz`]; the divisor is then checked against that rate exactly,
//! as for the default:
//!
//! ```
//! use otto_timer::{Config, Soc};
//! use hwtimer_core::ConfigError;
//! let board = Config::new(Soc::Rtl930x).with_bus_clock_hz(153_125_000);
//! assert_eq!(board.divisor(), Ok(49)); // 153.125 MHz / 49 = 3.125 MHz exactly
//! // 6.25 MHz would need 24.5: not reachable, refused rather than rounded.
//! assert_eq!(board.with_tick_hz(6_250_000).divisor(), Err(ConfigError::RateUnreachable.into()));
//! ```

use hwtimer_core::{ConfigError, Error};

use crate::regs::TIMER_STRIDE;

/// Physical address of the `soc` bus window the DTS maps (`0x1800_0000`).
pub const SOC_BUS_BASE: usize = 0x1800_0000;

/// KSEG1 (uncached, unmapped) base: physical `p` is accessed at `KSEG1 | p`.
pub const KSEG1: usize = 0xA000_0000;

/// The tick rate mainline Linux runs the timers at (`RTTM_TICKS_PER_SEC`, 3.125 MHz).
pub const DEFAULT_TICK_HZ: u32 = 3_125_000;

/// The largest number of timers any supported SoC has (RTL931x: 6).
pub const MAX_TIMERS: usize = 6;

/// A supported SoC family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Soc {
    /// RTL838x (Maple): 5 timers at `0x3100`, rtl-intc IRQ 29, 28, 17, 16, 15, LXB 200 MHz.
    Rtl838x,
    /// RTL839x (Cypress): 5 timers at `0x3100`, rtl-intc IRQ 29, 28, 17, 16, 15, LXB 200 MHz.
    Rtl839x,
    /// RTL930x (Longan): 5 timers at `0x3200`, rtl-intc IRQ 7..=11, LXB 175 MHz per the DTS
    /// (derived from the switch PLL: a board may run another rate, see
    /// [`Config::with_bus_clock_hz`]).
    Rtl930x,
    /// RTL931x (Mango): 6 timers at `0x3200`, MIPS GIC shared 0..=5 (level-high), LXB 200 MHz.
    Rtl931x,
}

/// The interrupt controller input a timer is wired to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Irq {
    /// Realtek `rtl-intc` line (also the bit in its mask register `GLBL_INTR_MSK`).
    RtlIntc(u8),
    /// MIPS GIC shared interrupt, level-high.
    GicShared(u8),
}

/// Everything the driver needs to know about one SoC's timer block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SocInfo {
    /// Offset of timer 0 from [`SOC_BUS_BASE`].
    pub block_offset: usize,
    /// Number of timers the DTS describes.
    pub timers: usize,
    /// The timer input clock (LXB bus clock) the DTS gives, Hz: the default of
    /// [`Config::new`]. The board decides the real rate ([`Config::bus_clock_hz`]).
    pub bus_clock_hz: u32,
    /// Interrupt line of timer `n` at index `n` (TC0..TCn); only the first
    /// [`timers`](Self::timers) entries are meaningful.
    pub irqs: [Irq; MAX_TIMERS],
}

impl SocInfo {
    /// Physical address of the timer block (saturating, for a nonsense `block_offset`).
    pub const fn phys_base(&self) -> usize {
        SOC_BUS_BASE.saturating_add(self.block_offset)
    }

    /// Uncached (KSEG1) virtual address of the timer block, what bare-metal code
    /// dereferences.
    pub const fn kseg1_base(&self) -> usize {
        KSEG1 | self.phys_base()
    }

    /// Length in bytes of the register window covering all timers (saturating, for a
    /// nonsense `timers`).
    pub const fn block_len(&self) -> usize {
        self.timers.saturating_mul(TIMER_STRIDE)
    }

    /// The interrupt of timer `n`; [`ConfigError::NoSuchTimer`] if the SoC has no such
    /// timer.
    pub fn irq(&self, n: usize) -> Result<Irq, Error> {
        if n < self.timers {
            self.irqs
                .get(n)
                .copied()
                .ok_or(ConfigError::NoSuchTimer.into())
        } else {
            Err(ConfigError::NoSuchTimer.into())
        }
    }
}

const RTL83XX_IRQS: [Irq; MAX_TIMERS] = [
    Irq::RtlIntc(29),
    Irq::RtlIntc(28),
    Irq::RtlIntc(17),
    Irq::RtlIntc(16),
    Irq::RtlIntc(15),
    Irq::RtlIntc(0), // unused: 5 timers
];

impl Soc {
    /// All supported SoCs.
    pub const ALL: [Soc; 4] = [Soc::Rtl838x, Soc::Rtl839x, Soc::Rtl930x, Soc::Rtl931x];

    /// The description of this SoC's timer block.
    pub const fn info(self) -> SocInfo {
        match self {
            Soc::Rtl838x | Soc::Rtl839x => SocInfo {
                block_offset: 0x3100,
                timers: 5,
                bus_clock_hz: 200_000_000,
                irqs: RTL83XX_IRQS,
            },
            Soc::Rtl930x => SocInfo {
                block_offset: 0x3200,
                timers: 5,
                bus_clock_hz: 175_000_000,
                irqs: [
                    Irq::RtlIntc(7),
                    Irq::RtlIntc(8),
                    Irq::RtlIntc(9),
                    Irq::RtlIntc(10),
                    Irq::RtlIntc(11),
                    Irq::RtlIntc(0), // unused: 5 timers
                ],
            },
            Soc::Rtl931x => SocInfo {
                block_offset: 0x3200,
                timers: 6,
                bus_clock_hz: 200_000_000,
                irqs: [
                    Irq::GicShared(0),
                    Irq::GicShared(1),
                    Irq::GicShared(2),
                    Irq::GicShared(3),
                    Irq::GicShared(4),
                    Irq::GicShared(5),
                ],
            },
        }
    }
}

/// The prescaler value that makes a `bus_hz` clock tick at exactly `tick_hz`:
/// `DIVISOR = bus_hz / tick_hz` (tick = LXB / DIVISOR, docs/otto-timer.md#ctrl).
///
/// Errors: [`ConfigError::ZeroFrequency`] when `tick_hz` or `bus_hz` is zero;
/// [`ConfigError::RateUnreachable`] when `bus_hz` is not an exact multiple of `tick_hz` (the
/// driver reports its rate as an exact integer in Hz, and a rate that is off would make
/// delays short or time drift), or when the divisor would be 0 or above the 16-bit maximum
/// 0xFFFF.
///
/// ```
/// use otto_timer::soc::divisor_for;
/// use hwtimer_core::ConfigError::{RateUnreachable, ZeroFrequency};
/// assert_eq!(divisor_for(200_000_000, 3_125_000), Ok(64)); // RTL838x/839x/931x
/// assert_eq!(divisor_for(175_000_000, 3_125_000), Ok(56)); // RTL930x
/// assert_eq!(divisor_for(200_000_000, 6_250_000), Ok(32)); // OpenWrt patch 304 rate
/// assert_eq!(divisor_for(200_000_000, 1_000), Err(RateUnreachable.into())); // 200_000 > 0xFFFF
/// assert_eq!(divisor_for(175_000_000, 3_000_000), Err(RateUnreachable.into())); // not exact
/// assert_eq!(divisor_for(0, 3_125_000), Err(ZeroFrequency.into()));
/// ```
pub const fn divisor_for(bus_hz: u32, tick_hz: u32) -> Result<u16, Error> {
    if tick_hz == 0 || bus_hz == 0 {
        return Err(Error::Config(ConfigError::ZeroFrequency));
    }
    let unreachable = Error::Config(ConfigError::RateUnreachable);
    if !bus_hz.is_multiple_of(tick_hz) {
        return Err(unreachable);
    }
    let Some(div) = bus_hz.checked_div(tick_hz) else {
        return Err(unreachable);
    };
    if div == 0 || div > 0xFFFF {
        return Err(unreachable);
    }
    Ok(div as u16)
}

/// How the timers of a block are configured: which SoC, the LXB bus clock the board runs
/// it at, and the tick rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// The SoC.
    pub soc: Soc,
    /// The tick rate every timer of the block runs at, Hz (default 3.125 MHz, as Linux).
    pub tick_hz: u32,
    /// The LXB bus clock feeding the prescalers on this board, Hz (default: the SoC's DTS
    /// rate, [`SocInfo::bus_clock_hz`]; see the [module docs](self) for why the board
    /// decides it).
    pub bus_clock_hz: u32,
}

impl Config {
    /// `soc` at the default 3.125 MHz, on the SoC's DTS bus clock (200 MHz, or 175 MHz on
    /// RTL930x).
    pub const fn new(soc: Soc) -> Self {
        Self {
            soc,
            tick_hz: DEFAULT_TICK_HZ,
            bus_clock_hz: soc.info().bus_clock_hz,
        }
    }

    /// The same at another tick rate (checked by [`validate`](Self::validate)).
    pub const fn with_tick_hz(mut self, tick_hz: u32) -> Self {
        self.tick_hz = tick_hz;
        self
    }

    /// The same on a board whose LXB bus clock runs at `bus_clock_hz` (checked by
    /// [`validate`](Self::validate): the tick rate must be reachable from it exactly).
    pub const fn with_bus_clock_hz(mut self, bus_clock_hz: u32) -> Self {
        self.bus_clock_hz = bus_clock_hz;
        self
    }

    /// The SoC description.
    pub const fn info(&self) -> SocInfo {
        self.soc.info()
    }

    /// The prescaler that divides [`bus_clock_hz`](Self::bus_clock_hz) down to
    /// [`tick_hz`](Self::tick_hz) exactly; see [`divisor_for`] for the errors.
    pub const fn divisor(&self) -> Result<u16, Error> {
        divisor_for(self.bus_clock_hz, self.tick_hz)
    }

    /// Check the configuration and return the prescaler; errors as [`divisor_for`].
    pub const fn validate(&self) -> Result<u16, Error> {
        self.divisor()
    }

    /// [`ConfigError::NoSuchTimer`] unless timer `index` exists on this SoC.
    pub const fn check_index(&self, index: usize) -> Result<(), Error> {
        if index < self.soc.info().timers {
            Ok(())
        } else {
            Err(Error::Config(ConfigError::NoSuchTimer))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socs_match_the_dts_table() {
        let a = Soc::Rtl838x.info();
        assert_eq!(a.kseg1_base(), 0xB800_3100);
        assert_eq!((a.timers, a.bus_clock_hz), (5, 200_000_000));
        assert_eq!(a.irq(0), Ok(Irq::RtlIntc(29)));
        assert_eq!(a.irq(4), Ok(Irq::RtlIntc(15)));
        assert_eq!(a.irq(5), Err(ConfigError::NoSuchTimer.into()));
        assert_eq!(Soc::Rtl839x.info(), a);
        let b = Soc::Rtl930x.info();
        assert_eq!(
            (b.phys_base(), b.timers, b.bus_clock_hz),
            (0x1800_3200, 5, 175_000_000)
        );
        assert_eq!(b.irq(4), Ok(Irq::RtlIntc(11)));
        let c = Soc::Rtl931x.info();
        assert_eq!(
            (c.phys_base(), c.timers, c.block_len()),
            (0x1800_3200, 6, 0x60)
        );
        assert_eq!(c.irq(5), Ok(Irq::GicShared(5)));
        // Mainline divisors: 64 at 200 MHz, 56 at 175 MHz.
        assert_eq!(Config::new(Soc::Rtl838x).divisor(), Ok(64));
        assert_eq!(Config::new(Soc::Rtl930x).divisor(), Ok(56));
        assert_eq!(Config::new(Soc::Rtl930x).bus_clock_hz, 175_000_000);
        assert_eq!(
            Config::new(Soc::Rtl931x).check_index(6),
            Err(ConfigError::NoSuchTimer.into())
        );
    }

    #[test]
    fn the_board_s_bus_clock_decides_the_divisor_exactly() {
        // RTL930x LXB from the switch PLL: 153.125 MHz is reachable for 3.125 MHz (49)…
        let board = Config::new(Soc::Rtl930x).with_bus_clock_hz(153_125_000);
        assert_eq!(board.divisor(), Ok(49));
        assert_eq!(board.validate(), Ok(49));
        // …the DTS default is not silently kept…
        assert_ne!(board.divisor(), Config::new(Soc::Rtl930x).divisor());
        // …and a rate it cannot reach exactly is refused, as for the default clock.
        assert_eq!(
            board.with_tick_hz(6_250_000).divisor(),
            Err(ConfigError::RateUnreachable.into())
        );
        assert_eq!(
            Config::new(Soc::Rtl838x).with_bus_clock_hz(0).validate(),
            Err(ConfigError::ZeroFrequency.into())
        );
        // Nonsense SocInfo values saturate instead of overflowing.
        let mut info = Soc::Rtl838x.info();
        info.timers = usize::MAX;
        info.block_offset = usize::MAX;
        assert_eq!(
            (info.block_len(), info.phys_base()),
            (usize::MAX, usize::MAX)
        );
    }

    #[test]
    fn divisor_edges() {
        assert_eq!(
            divisor_for(200_000_000, 0),
            Err(ConfigError::ZeroFrequency.into())
        );
        assert_eq!(divisor_for(200_000_000, 200_000_000), Ok(1));
        assert_eq!(
            divisor_for(200_000_000, 400_000_000),
            Err(ConfigError::RateUnreachable.into())
        );
        // 0xFFFF * 3_000 = 196_605_000: the slowest exact divisor.
        assert_eq!(divisor_for(196_605_000, 3_000), Ok(0xFFFF));
        assert_eq!(
            divisor_for(0x1_0000 * 3_000, 3_000),
            Err(ConfigError::RateUnreachable.into())
        );
    }
}
