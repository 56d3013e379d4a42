//! The crate's error types.

use hwtimer_core::QueueError;

/// Why a [`CoalesceConfig`](crate::CoalesceConfig) was refused (the checks of Linux's
/// ethtool `set_coalesce`, docs/gmac3.md#ethtool-limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// `tx_usecs == 0 && tx_frames == 0`: no TX completion path would be left.
    NoTxCompletion,
    /// `tx_usecs` above [`MAX_COAL_TX_TICK`](crate::ring::coalesce::MAX_COAL_TX_TICK).
    TxUsecsTooLarge,
    /// `tx_frames` above [`TX_MAX_FRAMES`](crate::ring::coalesce::TX_MAX_FRAMES).
    TxFramesTooLarge,
    /// The RX watchdog computed from `rx_usecs` lies outside
    /// [[`MIN_DMA_RIWT`](crate::ring::coalesce::MIN_DMA_RIWT), [`MAX_DMA_RIWT`](crate::ring::coalesce::MAX_DMA_RIWT)].
    RiwtOutOfRange,
    /// `rx_usecs` is set but the CSR clock rate is unknown (0), so RIWT cannot be computed.
    NoCsrClock,
    /// `tx_frames` is larger than the TX ring: the ring would fill before any IC.
    TxFramesExceedRing,
    /// `rx_frames` is larger than the RX ring.
    RxFramesExceedRing,
    /// `rx_frames > 1` without the RX watchdog (`rx_usecs == 0`): a shorter burst would
    /// never raise RI.
    RxFramesWithoutWatchdog,
    /// `tx_usecs` is set but the ring has no cleanup timer ([`NoTimer`](crate::NoTimer)).
    NoTimer,
    /// A buffer size of 0, above the descriptor's size field (2047 normal, 8191
    /// enhanced), or (RX) not a multiple of the bus width.
    BufSize,
    /// The cache line is not a power of two in 16..=256.
    CacheLine,
    /// The bus width is not 4, 8 or 16 bytes.
    BusWidth,
    /// PBL outside 1..=32.
    Pbl,
    /// The padding between descriptors does not fit DMA_BUS_MODE.DSL (5 bits of
    /// bus-width words).
    DescriptorSkip,
    /// The largest RX frame is below an Ethernet header or above what the ring can hold.
    MaxFrame,
    /// DMA_HW_FEATURE reads 0 or all ones (a core older than 3.50a, or no register there),
    /// so it cannot tell the descriptor layout: give it with
    /// [`DmaConfig::resolve_assuming_layout`](crate::DmaConfig::resolve_assuming_layout).
    NoHwFeature,
    /// [`DmaConfig::layout`](crate::DmaConfig::layout) disagrees with HW_FEATURE.ENHDESSEL.
    LayoutMismatch,
    /// A set-up's descriptor stride is not the descriptor rounded up to the cache line.
    DescriptorStride,
    /// The cache line is shorter than the line of the ring's
    /// [`CacheOps`](crate::CacheOps) ([`CacheOps::line`](crate::CacheOps::line)):
    /// invalidating one descriptor or buffer would discard its neighbours' data.
    CacheLineTooShort,
    /// The DMA's address width (QoS 4.x/5.x HW_FEATURE1.ADDR64) is not 32, 40 or 48 bits, or
    /// a ring's descriptors or buffers lie above it.
    AddressWidth,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = match self {
            ConfigError::NoTxCompletion => "tx-usecs and tx-frames both 0",
            ConfigError::TxUsecsTooLarge => "tx-usecs above 100000",
            ConfigError::TxFramesTooLarge => "tx-frames above 256",
            ConfigError::RiwtOutOfRange => "rx-usecs gives RIWT outside 0x10..=0xff",
            ConfigError::NoCsrClock => "rx-usecs without a known CSR clock",
            ConfigError::TxFramesExceedRing => "tx-frames larger than the TX ring",
            ConfigError::RxFramesExceedRing => "rx-frames larger than the RX ring",
            ConfigError::RxFramesWithoutWatchdog => "rx-frames > 1 without rx-usecs",
            ConfigError::NoTimer => "tx-usecs without a cleanup timer",
            ConfigError::BufSize => "buffer size out of range",
            ConfigError::CacheLine => "cache line not a power of two in 16..=256",
            ConfigError::BusWidth => "bus width not 4, 8 or 16 bytes",
            ConfigError::Pbl => "PBL outside 1..=32",
            ConfigError::DescriptorSkip => "descriptor padding does not fit DSL",
            ConfigError::MaxFrame => "largest RX frame out of range",
            ConfigError::NoHwFeature => "HW_FEATURE reads 0 or all ones: layout unknown",
            ConfigError::LayoutMismatch => "descriptor layout disagrees with HW_FEATURE",
            ConfigError::DescriptorStride => "descriptor stride is not the rounded-up line",
            ConfigError::CacheLineTooShort => "cache line shorter than the cache's own",
            ConfigError::AddressWidth => "DMA address width unknown, or a ring lies above it",
        };
        f.write_str(s)
    }
}

impl core::error::Error for ConfigError {}

/// What can go wrong in the driver. Nothing in this crate panics instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// TX: every descriptor is still owned by the DMA; RX: no complete frame is ready. Try
    /// again later (after a TX/RX interrupt).
    WouldBlock,
    /// TX: the frame is empty or longer than the ring's buffer; RX: the caller's buffer is
    /// shorter than the frame.
    FrameSize {
        /// The length asked for.
        len: usize,
    },
    /// A ring was given no descriptors, too many, or a region too small for them.
    RingSize,
    /// A ring's region has no linear 32-bit bus address (above 4 GiB, or outside the sim
    /// DMA arena).
    DmaAddress,
    /// An invalid configuration (coalescing, ring geometry).
    Config(ConfigError),
    /// A hardware wait (DMA_BUS_MODE.SWR, MII_ADDR.GB) did not finish before its deadline
    /// (also what `hwtimer_core::Error::Timeout` converts into).
    Timeout,
    /// No MDC divider (CR) fits the CSR clock: it is outside 20–300 MHz on GMAC 3.x, or
    /// 20–800 MHz on QoS 4.x/5.x.
    CsrClock,
    /// The cleanup timer's queue refused an operation: the [`QueueError`] says why (no
    /// free slot, already queued, re-entered, or programming its clockevent failed).
    Timer(QueueError),
    /// An hwtimer-core operation other than a hardware wait failed; the
    /// [`hwtimer_core::Error`] is kept as it was (a wait that timed out is [`Error::Timeout`]).
    Core(hwtimer_core::Error),
    /// TX while the link is down (see [`Dwmac::set_link`](crate::Dwmac::set_link)).
    LinkDown,
    /// [`Dwmac::configure_dma`](crate::Dwmac::configure_dma) while a DMA engine runs
    /// (DMA_CONTROL.ST or SR set): the descriptor geometry cannot change under running
    /// rings. Stop both first.
    DmaRunning,
    /// A ring's `start` read DMA_BUS_MODE.DSL back and it is not the ring's stride (the
    /// DMA was configured for another set-up than the ring was built for); the DMA was
    /// not started.
    GeometryMismatch {
        /// DSL as read back from DMA_BUS_MODE.
        programmed: u8,
        /// DSL of the ring's set-up.
        ring: u8,
    },
    /// A QoS RX ring's `start` read DMA_CH0_RX_CONTROL.RBSZ back and it is not the ring's
    /// buffer size: the core's bus is wider than [`DmaConfig::bus_width`](crate::DmaConfig::bus_width)
    /// and keeps RBSZ in multiples of its own width, so frames would span descriptors with
    /// stale bytes at the end of each buffer. The RX DMA was not started; configure the
    /// bus width, or a buffer size that is a multiple of 16.
    BufSizeMismatch {
        /// RBSZ as read back, bytes.
        programmed: u32,
        /// The ring's buffer size, bytes.
        ring: u32,
    },
    /// A GMAC 3.x ring's `start` read DMA_BUS_MODE back and found ATDS set: the DMA would
    /// step 32-byte (alternate) descriptors where the ring has 16-byte ones. The DMA was
    /// not started; [`Dwmac::configure_dma`](crate::Dwmac::configure_dma) clears ATDS.
    StrideMismatch {
        /// The bytes the DMA steps per descriptor (descriptor size and DSL padding).
        programmed: u32,
        /// The ring's stride.
        ring: u32,
    },
    /// [`Dwmac::mdio`](crate::Dwmac::mdio) while another MDIO master of the same MAC is
    /// alive: their frames would interleave on MII_ADDR / MII_DATA.
    MdioBusy,
    /// Neither MAC_VERSION (0x110, the QoS 4.x/5.x map) nor GMAC_VERSION (0x20, the 3.x
    /// map) holds a version this crate drives ([`probe()`](fn@crate::probe),
    /// [`Qos::probe`](crate::Qos::probe)); nothing was written.
    UnknownVersion {
        /// What 0x110 read.
        mac_version: u32,
        /// What 0x20 read.
        gmac_version: u32,
    },
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
    /// Keeps the cause: a timed-out wait is [`Error::Timeout`], anything else
    /// [`Error::Core`] with the error unchanged.
    fn from(e: hwtimer_core::Error) -> Self {
        match e {
            hwtimer_core::Error::Timeout => Error::Timeout,
            other => Error::Core(other),
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
            Error::Config(e) => write!(f, "invalid configuration: {e}"),
            Error::Timeout => f.write_str("hardware wait timed out"),
            Error::CsrClock => f.write_str("no MDC divider for the CSR clock"),
            Error::Timer(e) => write!(f, "cleanup timer: {e}"),
            Error::Core(e) => write!(f, "timer: {e}"),
            Error::LinkDown => f.write_str("link down"),
            Error::DmaRunning => f.write_str("DMA running: stop it before configuring"),
            Error::GeometryMismatch { programmed, ring } => {
                write!(f, "DMA_BUS_MODE.DSL is {programmed}, the ring needs {ring}")
            }
            Error::BufSizeMismatch { programmed, ring } => {
                write!(f, "RBSZ reads back {programmed}, the ring needs {ring}")
            }
            Error::StrideMismatch { programmed, ring } => write!(
                f,
                "the DMA steps {programmed} bytes per descriptor, the ring {ring}"
            ),
            Error::MdioBusy => f.write_str("another MDIO master is alive"),
            Error::UnknownVersion {
                mac_version,
                gmac_version,
            } => write!(
                f,
                "unknown DWMAC: MAC_VERSION {mac_version:#x}, GMAC_VERSION {gmac_version:#x}"
            ),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            Error::Timer(e) => Some(e),
            Error::Core(e) => Some(e),
            _ => None,
        }
    }
}
