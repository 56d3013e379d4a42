//! The driver's configuration and the rate maths of `MCT_CFG`.

use crate::regs;
use crate::wstat::WstatConfig;

/// Driver configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// The input clock `fin_pll` in Hz (24 MHz on every known board). The FRC rate is
    /// this divided by the `MCT_CFG` prescaler and divider found at [`Mct::new`](crate::Mct::new) (or set
    /// with [`Mct::set_prescaler`](crate::Mct::set_prescaler)), which must divide it exactly.
    pub input_hz: u32,
    /// Number of local timers the SoC has (2 on Exynos4210; at most 16).
    pub local_timers: usize,
    /// Bounds of the write-status waits.
    pub wstat: WstatConfig,
    /// The platform's local timers count `L_ICNTB + 1` ticks per interval. QEMU's model
    /// does (verified by the smdkc210 firmware: a periodic `L_ICNTB` of 1200 reloads every
    /// 1201 ticks), and so does this crate's model; silicon is **unverified**
    /// (`docs/exynos-mct.md`). When set, [`LocalTimer`](crate::LocalTimer) writes `delta - 1` so an interval
    /// is exactly `delta` ticks. When clear (the default) it writes `delta` unchanged, as
    /// Linux does: on a platform that counts `ICNTB + 1` every interval is then one tick
    /// late (a periodic timer drifts one tick per period), never early.
    pub local_icntb_plus_one: bool,
    /// Write `L_TCNTB` again after every stop that may cut a local timer's arm short (the
    /// arm of a running timer, a shutdown). QEMU's model (`hw/timer/exynos4210_mct.c`, 10.0)
    /// adds one to its internal tick divider at each manual-update `L_ICNTB` write and
    /// resets it only when an interval expires or `L_TCNTB` is written, so without this
    /// every arm cut short makes the next first interval `ICNTB + 1` clocks longer (the
    /// smdkc210-async firmware measures it). Silicon is not known to do so; the rewrite
    /// costs one write and its status wait, so it is off by default.
    pub local_tcntb_rewrite: bool,
    /// How the local timers' interrupts reach the CPUs ([`LocalIrq`]): one SPI per local
    /// timer on Exynos4210 (the default), one PPI on Exynos4412 and later.
    pub local_irq: LocalIrq,
    /// Which local timer serves which CPU ([`CpuMap`]; Linux's `samsung,local-timers`
    /// property); the identity by default.
    pub cpu_map: CpuMap,
    /// How the driver learns which CPU a call runs on ([`Cores`]), for the owner of its
    /// shared-register lock ([Shared registers](crate::Mct#shared-registers)):
    /// [`Cores::One`] by default.
    pub cores: Cores,
}

/// Which CPU a call runs on, as the [`Mct`](crate::Mct)'s shared-register lock needs to
/// know: the lock records the CPU that holds it, so that a call on the holder's own CPU
/// (an interrupt handler that interrupted the holder, which cannot run until the handler
/// returns) is refused at once with [`Error::Busy`](hwtimer_core::Error::Busy) instead of
/// spinning for it, while a call on another CPU spins (bounded) for the holder to finish.
/// See [Shared registers](crate::Mct#shared-registers).
#[derive(Clone, Copy, Default)]
pub enum Cores {
    /// Every call counts as CPU 0: a lock found held at a call's first attempt is refused
    /// at once, never spun for (a later step of the same call spins: see
    /// [Shared registers](crate::Mct#shared-registers)). Right for a single-core SoC, or a
    /// block used from one core only. On several cores it is still safe (the lock still
    /// excludes; a call refused at once has written nothing) but a call that meets another
    /// core's section at its first attempt gets [`Error::Busy`](hwtimer_core::Error::Busy)
    /// at once, where [`Many`](Self::Many) would have waited for it.
    #[default]
    One,
    /// Several cores use the block: the function returns the number of the CPU that calls
    /// it (any numbering, one number per CPU; the lock keeps its low 31 bits, so two CPUs
    /// whose numbers differ only in bit 31 would refuse each other at once instead of
    /// waiting). It is called once per driver call that takes the lock (a comparator arm
    /// takes it twice and calls it once); the holder's number is kept in the lock itself. On Cortex-A9 that is MPIDR `Aff0`,
    /// `unsafe { NativeCpu::new() }.current_cpu()` in the firmware's own function
    /// ([`NativeCpu`](hwtimer_core::cpu::NativeCpu): the firmware vouches for the
    /// privilege the read needs); on the host model, `SimCpu::current`:
    ///
    /// ```
    /// use exynos_mct::{Config, Cores};
    /// use hwtimer_core::sim::SimCpu;
    /// let config = Config { cores: Cores::Many(SimCpu::current), ..Config::default() };
    /// SimCpu::enter(1);
    /// assert_eq!(config.cores.current(), 1);
    /// assert_eq!(Cores::One.current(), 0);
    /// ```
    Many(fn() -> u32),
}

impl Cores {
    /// The number of the CPU this runs on: 0 for [`One`](Self::One).
    #[inline]
    pub fn current(&self) -> u32 {
        match self {
            Cores::One => 0,
            Cores::Many(cpu) => cpu(),
        }
    }

    /// [`current`](Self::current) as one function, for the `Mct` to keep: its lock then
    /// reads the CPU number with a load and a call, whatever the variant.
    pub(crate) fn function(self) -> fn() -> u32 {
        match self {
            Cores::One => cpu_zero,
            Cores::Many(cpu) => cpu,
        }
    }
}

/// The CPU number of [`Cores::One`]: always 0.
pub(crate) fn cpu_zero() -> u32 {
    0
}

impl core::fmt::Debug for Cores {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Cores::One => f.write_str("One"),
            Cores::Many(_) => f.write_str("Many(..)"),
        }
    }
}

/// Two `Many` are equal when they hold the same function (by address: a function can
/// have two addresses, so two `Many` of one function may compare unequal, never the other
/// way round).
impl PartialEq for Cores {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cores::One, Cores::One) => true,
            (Cores::Many(a), Cores::Many(b)) => core::ptr::fn_addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for Cores {}

#[cfg(feature = "defmt")]
impl defmt::Format for Cores {
    fn format(&self, f: defmt::Formatter<'_>) {
        match self {
            Cores::One => defmt::write!(f, "One"),
            Cores::Many(_) => defmt::write!(f, "Many(..)"),
        }
    }
}

/// How an MCT local timer's interrupt reaches a CPU (Linux: `mct_int_type`).
///
/// What the interrupt controller (GICv2) must do:
///
/// - [`Spi`](Self::Spi) (Exynos4210: `MCT_L0`, `MCT_L1`, ... each its own SPI): the
///   firmware routes local timer *n*'s SPI to the CPU that uses it
///   ([`CpuMap::cpu_of`]) with that SPI's `GICD_ITARGETSRn` byte, and enables it in
///   `GICD_ISENABLERn`; each CPU enables its own GIC CPU interface. Any CPU can program any
///   local timer (the registers are not banked), so an unbound
///   [`LocalTimer`](crate::LocalTimer) is sound; bind it anyway
///   ([`Mct::bound_local_timer`](crate::Mct::bound_local_timer)) so a wake is never armed
///   from a CPU its interrupt does not reach.
/// - [`Ppi`](Self::Ppi) (Exynos4412 and later: one PPI, the same number on every CPU):
///   local timer *n*'s interrupt reaches **only CPU *n***, through that CPU's banked PPI;
///   each CPU enables the PPI in its own (banked) `GICD_ISENABLER0` and its CPU
///   interface. `ITARGETSR` does not apply. A local timer must then be used only on its
///   CPU: [`Mct::local_timer`](crate::Mct::local_timer) refuses it unbound
///   ([`ConfigError::Capabilities`](hwtimer_core::ConfigError)), and
///   [`Mct::bound_local_timer`](crate::Mct::bound_local_timer) /
///   [`Mct::bind_local_timer`](crate::Mct::bind_local_timer) hand it out as a
///   [`CpuBound`](hwtimer_core::cpu::CpuBound) that returns
///   [`Error::WrongCpu`](hwtimer_core::Error::WrongCpu) on any other CPU. The CPU map must
///   then be the identity for the CPUs in use (local timer *n* for CPU *n*; checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LocalIrq {
    /// One shared peripheral interrupt per local timer, routed by the distributor.
    #[default]
    Spi,
    /// One private peripheral interrupt: local timer *n* reaches CPU *n* only.
    Ppi,
}

/// Which local timer serves which CPU: entry `cpu` is the index of its local timer (Linux's
/// `samsung,local-timers`, whose default is local timer *n* for CPU *n*).
///
/// ```
/// use exynos_mct::CpuMap;
/// let map = CpuMap::identity();
/// assert_eq!(map.local_timer_of(1), Some(1));
/// let swapped = CpuMap::from_slice(&[1, 0]).unwrap();
/// assert_eq!((swapped.local_timer_of(0), swapped.cpu_of(0)), (Some(1), Some(1)));
/// assert_eq!(swapped.local_timer_of(2), None); // not in the map
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CpuMap {
    /// Entry `cpu`: its local timer, or `NONE`.
    timers: [u8; regs::MAX_LOCAL_TIMERS],
}

impl CpuMap {
    const NONE: u8 = u8::MAX;

    /// Local timer *n* for CPU *n*, for every CPU up to [`MAX_LOCAL_TIMERS`](regs::MAX_LOCAL_TIMERS).
    pub const fn identity() -> Self {
        Self {
            timers: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        }
    }

    /// Entry `cpu` of `timers` is CPU `cpu`'s local timer (the order of
    /// `samsung,local-timers`); CPUs past the slice have none. `None` for more than
    /// [`MAX_LOCAL_TIMERS`](regs::MAX_LOCAL_TIMERS) entries, an index above it, or one local
    /// timer given to two CPUs.
    pub fn from_slice(timers: &[u8]) -> Option<Self> {
        if timers.len() > regs::MAX_LOCAL_TIMERS {
            return None;
        }
        let mut out = [Self::NONE; regs::MAX_LOCAL_TIMERS];
        let mut seen = 0u32;
        for (slot, &t) in out.iter_mut().zip(timers) {
            let bit = 1u32
                .checked_shl(u32::from(t))
                .filter(|_| usize::from(t) < regs::MAX_LOCAL_TIMERS)?;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            *slot = t;
        }
        Some(Self { timers: out })
    }

    /// CPU `cpu`'s local timer, if the map gives it one.
    pub fn local_timer_of(&self, cpu: u32) -> Option<usize> {
        let i = usize::try_from(cpu).ok()?;
        match *self.timers.get(i)? {
            Self::NONE => None,
            t => Some(usize::from(t)),
        }
    }

    /// The CPU local timer `i` serves, if any (where its SPI is to be routed on 4210).
    pub fn cpu_of(&self, i: usize) -> Option<u32> {
        let cpu = self
            .timers
            .iter()
            .position(|&t| t != Self::NONE && usize::from(t) == i)?;
        u32::try_from(cpu).ok()
    }
}

impl Default for CpuMap {
    fn default() -> Self {
        Self::identity()
    }
}

impl Default for Config {
    /// Exynos4210: 24 MHz, two local timers, default WSTAT bounds, `L_ICNTB` written
    /// unchanged, one SPI per local timer, local timer *n* for CPU *n*, [`Cores::One`].
    fn default() -> Self {
        Self {
            input_hz: regs::FIN_PLL_HZ,
            local_timers: regs::EXYNOS4210_LOCAL_TIMERS,
            wstat: WstatConfig::default(),
            local_icntb_plus_one: false,
            local_tcntb_rewrite: false,
            local_irq: LocalIrq::Spi,
            cpu_map: CpuMap::identity(),
            cores: Cores::One,
        }
    }
}

/// The FRC rate for `MCT_CFG` fields, if the prescaler and divider divide `input_hz`
/// exactly (a rate rounded down would make every conversion to time come out early).
///
/// ```
/// use exynos_mct::frc_rate;
/// assert_eq!(frc_rate(24_000_000, 0, 0), Some(24_000_000));
/// assert_eq!(frc_rate(24_000_000, 23, 0), Some(1_000_000)); // QEMU-verified: 1 MHz
/// assert_eq!(frc_rate(24_000_000, 2, 3), Some(1_000_000)); // 3 << 3 = 24
/// assert_eq!(frc_rate(24_000_000, 6, 0), None); // 24 MHz / 7 is not a whole rate
/// assert_eq!(frc_rate(24_000_000, 0, 8), None); // DIVIDER is 3 bits
/// ```
pub const fn frc_rate(input_hz: u32, prescaler: u32, divider: u32) -> Option<u32> {
    if prescaler > 0xFF || divider > 0x7 || input_hz == 0 {
        return None;
    }
    // At most 256 << 7 = 32768: no overflow.
    let div = prescaler.wrapping_add(1).wrapping_shl(divider);
    match (input_hz.checked_rem(div), input_hz.checked_div(div)) {
        (Some(0), Some(hz)) if hz > 0 => Some(hz),
        _ => None,
    }
}
