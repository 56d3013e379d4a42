//! The CSR clock range codes of the MDIO masters (Linux `STMMAC_CSR_*` in `common.h`).

/// The MDIO clock-range code (GMAC 3.x MII_ADDR.CR, QoS MAC_MDIO_ADDRESS.CR: the same codes
/// up to 300 MHz) for a CSR clock of `csr_hz` (docs/dwmac.md#csr-clock-range; Linux
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

/// The divider for a CR code (inverse of [`csr_clock_range`]); `None` for codes Linux does
/// not use on 3.x.
pub const fn cr_divider(cr: u32) -> Option<u32> {
    match cr {
        0x0 => Some(42),
        0x1 => Some(62),
        0x2 => Some(16),
        0x3 => Some(26),
        0x4 => Some(102),
        0x5 => Some(124),
        _ => None,
    }
}
