//! The crate's error types.

use hwtimer_core::QueueError;

/// Why a [`CoalesceConfig`](crate::CoalesceConfig) was refused (the checks of Linux's
/// ethtool `set_coalesce`, hardware.md §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// `tx_usecs == 0 && tx_frames == 0`: no TX completion path would be left.
    NoTxCompletion,
    /// `tx_usecs` above [`MAX_COAL_TX_TICK`](crate::coalesce::MAX_COAL_TX_TICK).
    TxUsecsTooLarge,
    /// `tx_frames` above [`TX_MAX_FRAMES`](crate::coalesce::TX_MAX_FRAMES).
    TxFramesTooLarge,
    /// The RX watchdog computed from `rx_usecs` lies outside
    /// [[`MIN_DMA_RIWT`](crate::coalesce::MIN_DMA_RIWT), [`MAX_DMA_RIWT`](crate::coalesce::MAX_DMA_RIWT)].
    RiwtOutOfRange,
    /// `rx_usecs` is set but the CSR clock rate is unknown (0), so RIWT cannot be computed.
    NoCsrClock,
}

/// What can go wrong in the driver. Nothing in this crate panics instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// TX: every descriptor is owned by the DMA or waits to be reclaimed (call
    /// [`TxRing::reclaim`](crate::TxRing::reclaim)); RX: no frame is ready. Try again later.
    WouldBlock,
    /// The frame is empty or longer than one buffer / the 11-bit TBS1 field (2047 bytes).
    FrameSize {
        /// The length asked for.
        len: usize,
    },
    /// A ring was given zero descriptors, or fewer buffers than descriptors.
    RingSize,
    /// A descriptor or buffer has no 32-bit bus address (above 4 GiB, or outside the sim
    /// DMA arena).
    DmaAddress,
    /// An invalid coalescing configuration.
    Config(ConfigError),
    /// A hardware wait (DMA_BUS_MODE.SWR, MII_ADDR.GB) did not finish before its deadline.
    Timeout,
    /// The CSR clock is outside 20–300 MHz, so no MDC divider (MII_ADDR.CR) fits.
    CsrClock,
    /// The timer queue refused an operation (no free slot, hardware programming failed).
    Timer(QueueError),
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<QueueError> for Error {
    fn from(e: QueueError) -> Self {
        Error::Timer(e)
    }
}

impl From<hwtimer_core::Error> for Error {
    fn from(e: hwtimer_core::Error) -> Self {
        match e {
            hwtimer_core::Error::Timeout => Error::Timeout,
            other => Error::Timer(QueueError::Hardware(other)),
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::WouldBlock => f.write_str("ring full / nothing ready"),
            Error::FrameSize { len } => write!(f, "bad frame length {len}"),
            Error::RingSize => f.write_str("bad ring size"),
            Error::DmaAddress => f.write_str("no 32-bit DMA address"),
            Error::Config(e) => write!(f, "invalid coalescing configuration: {e:?}"),
            Error::Timeout => f.write_str("hardware wait timed out"),
            Error::CsrClock => f.write_str("CSR clock outside 20-300 MHz"),
            Error::Timer(e) => write!(f, "timer queue: {e:?}"),
        }
    }
}

impl core::error::Error for Error {}
