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
}

impl Default for Config {
    /// Exynos4210: 24 MHz, two local timers, default WSTAT bounds, `L_ICNTB` written
    /// unchanged.
    fn default() -> Self {
        Self {
            input_hz: regs::FIN_PLL_HZ,
            local_timers: regs::EXYNOS4210_LOCAL_TIMERS,
            wstat: WstatConfig::default(),
            local_icntb_plus_one: false,
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
