//! Timing bounds that hold at any emulation speed: CPU work in instructions plus the
//! hardware's own granularity in timer ticks.
//!
//! # Why not ticks
//!
//! The boards run under QEMU's `-icount shift=N`: every guest instruction takes 2^N ns of
//! virtual time, and every timer model (and the ARM cycle counter, PMCCNTR) counts virtual
//! time. A request-to-handler latency is the programmed delay plus the instructions the CPU
//! runs around it (the driver's work after the request is stamped, the exception entry before
//! the handler's stamp) plus the tick granularity of the hardware. Written in timer ticks, the
//! instruction part is only right at the shift it was measured at: the ~260 instructions of
//! the Exynos comparator path are 6 FRC ticks at shift 0 and 100 at shift 4.
//!
//! # What the boards do instead
//!
//! * A bound is a [`Bound`]: `insns` instructions of CPU work plus `ticks` of hardware
//!   granularity (a comparator that fires one tick after the match, a counter read that
//!   truncates to whole ticks, a timer that rounds its reload value).
//! * The emulation speed is a [`Speed`], virtual nanoseconds per instruction: measured with
//!   the ARM PMU's instruction counter against PMCCNTR, or told by `cargo xtask qemu` and
//!   checked against the timer (LoongArch), see the boards.
//! * At run time, [`Bound::ticks_at`] turns the bound into ticks of the timer under test at the
//!   current speed, and the measured latency in ticks is checked against it (never below the
//!   request: that check needs no bound at all).
//!
//! Instruction counts (`bench:` lines) are measured in instructions and are the same at every
//! shift; figures in ticks or µs are what they are at the shift the run used (the
//! repository's figures come from shift 0, the default of `cargo xtask qemu`).

use core::fmt;

/// Nanoseconds in a second.
const NS_PER_S: u128 = 1_000_000_000;

/// Largest shift QEMU accepts for `-icount shift=N`.
pub const MAX_SHIFT: u32 = 10;

/// Emulation speed: `ns` nanoseconds of virtual time per `insns` instructions.
///
/// Under `-icount shift=N` this is exactly 2^N ns per instruction ([`Speed::from_shift`]). A
/// measured speed keeps the measured ratio, or snaps to the power of two it is within 0.1 %
/// of ([`Speed::measured`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Speed {
    insns: u64,
    ns: u64,
}

impl Speed {
    /// The speed of `-icount shift=shift`: 2^shift ns per instruction (shift at most
    /// [`MAX_SHIFT`]; larger values are clamped to it).
    pub const fn from_shift(shift: u32) -> Self {
        let shift = if shift > MAX_SHIFT { MAX_SHIFT } else { shift };
        Self {
            insns: 1,
            ns: 1 << shift,
        }
    }

    /// The speed of a span that ran `insns` instructions in `ns` nanoseconds of virtual time;
    /// `None` if either is 0 (nothing was counted).
    ///
    /// If the ratio is within 0.1 % of a power of two 2^N (N ≤ [`MAX_SHIFT`]), the result is
    /// exactly [`Speed::from_shift`]`(N)`: the few instructions between the reads of two
    /// counters are not part of the emulation speed.
    pub fn measured(insns: u64, ns: u64) -> Option<Self> {
        if insns == 0 || ns == 0 {
            return None;
        }
        let snapped = (0..=MAX_SHIFT).find(|&n| {
            let exact = u128::from(insns) << n;
            u128::from(ns).abs_diff(exact) * 1000 <= exact
        });
        Some(snapped.map_or(Self { insns, ns }, Self::from_shift))
    }

    /// The `-icount` shift this speed is, if it is exactly a power of two.
    pub fn shift(&self) -> Option<u32> {
        (0..=MAX_SHIFT).find(|&n| u128::from(self.ns) == u128::from(self.insns) << n)
    }

    /// Nanoseconds per instruction in hundredths, rounded to nearest (for printing).
    pub fn ns_per_insn_centi(&self) -> u64 {
        let centi =
            (u128::from(self.ns) * 200 + u128::from(self.insns)) / (2 * u128::from(self.insns));
        u64::try_from(centi).unwrap_or(u64::MAX)
    }

    /// Ticks of a `freq_hz` timer that `insns` instructions take at this speed, rounded down
    /// (whole ticks: a count of ticks is within `x` ticks exactly when it is within `⌊x⌋`).
    pub fn ticks_for(&self, insns: u64, freq_hz: u32) -> u64 {
        let num = u128::from(insns) * u128::from(self.ns) * u128::from(freq_hz);
        let den = u128::from(self.insns) * NS_PER_S;
        u64::try_from(num / den).unwrap_or(u64::MAX)
    }

    /// Instructions that run in `ticks` of a `freq_hz` timer at this speed, rounded down.
    pub fn insns_for(&self, ticks: u64, freq_hz: u32) -> u64 {
        let num = u128::from(ticks) * NS_PER_S * u128::from(self.insns);
        let den = u128::from(self.ns) * u128::from(freq_hz.max(1));
        u64::try_from(num / den).unwrap_or(u64::MAX)
    }

    /// Instructions that run in `ns` nanoseconds of virtual time at this speed, rounded to
    /// nearest.
    pub fn insns_for_ns(&self, ns: u64) -> u64 {
        let num = u128::from(ns) * u128::from(self.insns);
        let den = u128::from(self.ns);
        u64::try_from((2 * num + den) / (2 * den)).unwrap_or(u64::MAX)
    }
}

/// Prints the speed as `1 ns per instruction` or `2.50 ns per instruction`.
impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let centi = self.ns_per_insn_centi();
        if centi.is_multiple_of(100) {
            write!(f, "{} ns per instruction", centi / 100)
        } else {
            write!(f, "{}.{:02} ns per instruction", centi / 100, centi % 100)
        }
    }
}

/// An upper bound on a latency beyond what the hardware was asked for, or on a difference
/// between two measurements: `insns` instructions of CPU work plus `ticks` ticks of hardware
/// granularity.
///
/// Prints as `2 ticks + 2000 insns` (`1 tick`, `1 insn` in the singular).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// Ticks of the timer under test: the hardware's own granularity, the same at any speed.
    pub ticks: u64,
    /// Instructions of CPU work, the same at any speed.
    pub insns: u64,
}

impl Bound {
    /// The bound in whole ticks of a `freq_hz` timer at `speed`: `ticks` plus the ticks the
    /// instructions take, rounded down (a measured number of ticks is within the bound exactly
    /// when it is within this).
    pub fn ticks_at(&self, speed: Speed, freq_hz: u32) -> u64 {
        self.ticks
            .saturating_add(speed.ticks_for(self.insns, freq_hz))
    }

    /// The bound in whole instructions at `speed`: `insns` plus the instructions that run in
    /// `ticks` of a `freq_hz` timer, rounded down.
    pub fn insns_at(&self, speed: Speed, freq_hz: u32) -> u64 {
        self.insns
            .saturating_add(speed.insns_for(self.ticks, freq_hz))
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} tick{} + {} insn{}",
            self.ticks,
            plural(self.ticks),
            self.insns,
            plural(self.insns)
        )
    }
}

/// Prints the standard speed line every board shows before its first timing check, and which
/// `expected.txt` matches as `icount shift {icount}: {n} ns per instruction ({*})`
/// (`cargo xtask qemu` replaces `{icount}` by the shift it runs QEMU with):
///
/// `icount shift 2: 4 ns per instruction (<how it was found>)`, or `icount shift ?: ...` for a
/// speed that is not a power of two.
pub fn print_speed<C: crate::Console>(console: C, speed: Speed, how: fmt::Arguments<'_>) {
    match speed.shift() {
        Some(n) => crate::write_line(console, format_args!("icount shift {n}: {speed} ({how})")),
        None => crate::write_line(console, format_args!("icount shift ?: {speed} ({how})")),
    }
}

/// What `cargo xtask qemu` told a board without an instruction counter about the
/// `-icount` shift of its run (`{icount}` in the board's QEMU command: the LoongArch board
/// reads it from `fw_cfg`, the Malta board from its `-append` command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// `-icount shift=N`.
    Shift(u32),
    /// `-icount shift=auto`: QEMU picks (and may change) the shift.
    Auto,
    /// Nothing usable: no such item, or a value that is neither.
    Nothing,
}

impl Told {
    /// Parses a told value: `0` to [`MAX_SHIFT`] or `auto` (surrounding white space ignored).
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "auto" => Told::Auto,
            n => match n.parse::<u32>() {
                Ok(n) if n <= MAX_SHIFT => Told::Shift(n),
                _ => Told::Nothing,
            },
        }
    }

    /// Finds `<key>=<value>` among the space-separated words of a command line and parses
    /// the value ([`Told::Nothing`] if the key is absent).
    pub fn from_command_line(command_line: &str, key: &str) -> Self {
        command_line
            .split_ascii_whitespace()
            .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
            .map_or(Told::Nothing, Told::parse)
    }
}

#[cfg(test)]
mod tests {
    use super::{Bound, Speed, Told};

    #[test]
    fn measured_speeds_snap_to_the_shift_they_are_within_a_thousandth_of() {
        assert_eq!(
            Speed::measured(1_000_020, 4_000_080),
            Some(Speed::from_shift(2))
        );
        assert_eq!(
            Speed::measured(1_000_000, 16_000_320),
            Some(Speed::from_shift(4))
        );
        assert_eq!(
            Speed::measured(1_000_000, 1_000_000),
            Some(Speed::from_shift(0))
        );
        let odd = Speed::measured(1_000, 2_500).unwrap();
        assert_eq!(odd.shift(), None);
        assert_eq!(odd.ns_per_insn_centi(), 250);
        assert_eq!(Speed::measured(0, 5), None);
        assert_eq!(Speed::measured(5, 0), None);
        assert_eq!(Speed::from_shift(99), Speed::from_shift(10));
    }

    #[test]
    fn conversions_round_down_to_whole_units() {
        let s0 = Speed::from_shift(0);
        let s4 = Speed::from_shift(4);
        // 2000 instructions at 1 ns are 48 ticks of 24 MHz; at 16 ns, 768.
        assert_eq!(s0.ticks_for(2000, 24_000_000), 48);
        assert_eq!(s4.ticks_for(2000, 24_000_000), 768);
        // 1 instruction at 1 ns is 0.024 ticks; 42 are 1.008.
        assert_eq!(s0.ticks_for(1, 24_000_000), 0);
        assert_eq!(s0.ticks_for(42, 24_000_000), 1);
        // 100 ticks of 100 MHz are 1000 ns: 1000 instructions at shift 0, 62 at shift 4.
        assert_eq!(s0.insns_for(100, 100_000_000), 1000);
        assert_eq!(s4.insns_for(100, 100_000_000), 62);
        assert_eq!(s4.insns_for_ns(24), 2);
        assert_eq!(s4.insns_for_ns(23), 1);
    }

    #[test]
    fn bounds_are_ticks_plus_instructions_at_the_speed() {
        let b = Bound {
            ticks: 2,
            insns: 2000,
        };
        assert_eq!(b.ticks_at(Speed::from_shift(0), 24_000_000), 50);
        assert_eq!(b.ticks_at(Speed::from_shift(4), 24_000_000), 770);
        // 1 tick + 1 insn at shift 0 is 1.024 ticks: a whole number of ticks is within it
        // when it is within 1.
        let jitter = Bound { ticks: 1, insns: 1 };
        assert_eq!(jitter.ticks_at(Speed::from_shift(0), 24_000_000), 1);
        assert_eq!(jitter.ticks_at(Speed::from_shift(10), 24_000_000), 25);
        // 2 ticks of 24 MHz at 1 ns per instruction are 83.3 instructions.
        assert_eq!(b.insns_at(Speed::from_shift(0), 24_000_000), 2083);
        assert_eq!(b.to_string(), "2 ticks + 2000 insns");
        let one = Bound { ticks: 1, insns: 1 };
        assert_eq!(one.to_string(), "1 tick + 1 insn");
        assert_eq!(Speed::from_shift(2).to_string(), "4 ns per instruction");
        assert_eq!(
            Speed::measured(1_000, 2_500).unwrap().to_string(),
            "2.50 ns per instruction"
        );
    }

    #[test]
    fn told_shifts_parse_from_values_and_command_lines() {
        assert_eq!(Told::parse("4"), Told::Shift(4));
        assert_eq!(Told::parse(" 0\n"), Told::Shift(0));
        assert_eq!(Told::parse("auto"), Told::Auto);
        assert_eq!(Told::parse("11"), Told::Nothing);
        assert_eq!(Told::parse("x"), Told::Nothing);
        assert_eq!(Told::parse(""), Told::Nothing);
        let key = "icount-shift";
        assert_eq!(
            Told::from_command_line("console=ttyS0 icount-shift=7", key),
            Told::Shift(7)
        );
        assert_eq!(
            Told::from_command_line("icount-shift=auto", key),
            Told::Auto
        );
        assert_eq!(Told::from_command_line("icount-shift", key), Told::Nothing);
        assert_eq!(
            Told::from_command_line("my-icount-shift=3", key),
            Told::Nothing
        );
        assert_eq!(
            Told::from_command_line("icount-shifty=3", key),
            Told::Nothing
        );
        assert_eq!(Told::from_command_line("", key), Told::Nothing);
    }
}
