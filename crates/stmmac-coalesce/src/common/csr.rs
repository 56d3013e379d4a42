//! The CSR clock range codes of the MDIO masters (Linux `STMMAC_CSR_*` in `common.h`).

/// The MDIO clock-range code (GMAC 3.x MII_ADDR.CR, QoS MAC_MDIO_ADDRESS.CR: the same codes
/// up to 300 MHz) for a CSR clock of `csr_hz` (docs/gmac3.md#csr-clock-range; Linux
/// `STMMAC_CSR_*`), or `None` outside 20–300 MHz. The MDC rate is `csr_hz / divider`.
///
/// ```
/// use stmmac_coalesce::common::csr_clock_range;
/// assert_eq!(csr_clock_range(125_000_000), Some((0x1, 62)));
/// assert_eq!(csr_clock_range(10_000_000), None);
/// ```
pub const fn csr_clock_range(csr_hz: u32) -> Option<(u32, u32)> {
    const M: u32 = 1_000_000;
    match csr_hz {
        f if f >= 20 * M && f < 35 * M => Some((0x2, 16)),
        f if f >= 35 * M && f < 60 * M => Some((0x3, 26)),
        f if f >= 60 * M && f < 100 * M => Some((0x0, 42)),
        f if f >= 100 * M && f < 150 * M => Some((0x1, 62)),
        f if f >= 150 * M && f < 250 * M => Some((0x4, 102)),
        f if f >= 250 * M && f <= 300 * M => Some((0x5, 124)),
        _ => None,
    }
}

/// As [`csr_clock_range`], with the QoS 4.x/5.x codes above 300 MHz: 6 (300–500 MHz,
/// /204) and 7 (500–800 MHz, /324) (Linux `include/linux/stmmac.h` `STMMAC_CSR_300_500M`,
/// `STMMAC_CSR_500_800M` and `stmmac_clk_csr_set`; NXP RT1170 MAC_MDIO_ADDRESS.CR 0110 and
/// 0111). GMAC 3.x keeps [`csr_clock_range`]: its databook marks 6 and 7 reserved.
///
/// ```
/// use stmmac_coalesce::common::csr_clock_range_qos;
/// assert_eq!(csr_clock_range_qos(400_000_000), Some((0x6, 204)));
/// assert_eq!(csr_clock_range_qos(300_000_000), Some((0x5, 124)));
/// assert_eq!(csr_clock_range_qos(800_000_000), None);
/// ```
pub const fn csr_clock_range_qos(csr_hz: u32) -> Option<(u32, u32)> {
    const M: u32 = 1_000_000;
    match csr_clock_range(csr_hz) {
        Some(r) => Some(r),
        None => match csr_hz {
            f if f > 300 * M && f < 500 * M => Some((0x6, 204)),
            f if f >= 500 * M && f < 800 * M => Some((0x7, 324)),
            _ => None,
        },
    }
}

/// The divider for a CR code (inverse of [`csr_clock_range`] and
/// [`csr_clock_range_qos`]); `None` for the fast-MDC codes (8 and above) Linux does not use.
pub const fn cr_divider(cr: u32) -> Option<u32> {
    match cr {
        0x6 => Some(204),
        0x7 => Some(324),
        0x0 => Some(42),
        0x1 => Some(62),
        0x2 => Some(16),
        0x3 => Some(26),
        0x4 => Some(102),
        0x5 => Some(124),
        _ => None,
    }
}
