//! Errors. Every fallible operation returns [`Error`]; nothing in the crate panics.

pub use hwtimer_core::poll::Bound;

/// Which busy bit (or status bit) a bounded wait was polling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BusyWait {
    /// Indirect-mode SMI_CMD BUSY (bit 15 of reg 0x00 at `sw_addr`).
    SmiCmd,
    /// Global1 G1_STS INIT_READY (bit 11) to become set.
    InitReady,
    /// Global1 G1_ATU_OP BUSY.
    AtuOp,
    /// Global1 G1_VTU_OP BUSY.
    VtuOp,
    /// Global1 G1_STATS_OP BUSY.
    StatsOp,
    /// Global2 G2_SMI_PHY_CMD BUSY (internal PHY access).
    SmiPhyCmd,
    /// G1_STS PPU state to read "disabled" after PPU_ENABLE was cleared (PPU-gated PHY
    /// access).
    PpuDisabled,
    /// G1_STS PPU state to read "polling" after PPU_ENABLE was set again.
    PpuPolling,
    /// A caller's [`Smi::wait_mask`](crate::Smi::wait_mask) on device `dev`, register `reg`.
    Mask {
        /// Device address inside the switch.
        dev: u8,
        /// Register.
        reg: u8,
    },
}

/// A bounded wait gave up: the condition did not hold on any read, including the one
/// extra read made after the deadline (hwtimer-core's iopoll semantics), or the wait's
/// poll-count backstop ended it because the clocksource did not advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BusyTimeout {
    /// What was being waited for.
    pub wait: BusyWait,
    /// The last value read (after the deadline).
    pub last: u16,
    /// Reads of the polled register (at least 2).
    pub polls: u32,
    /// Clocksource ticks between the start of the wait and the final read.
    pub elapsed_ticks: u64,
    /// Which bound ended the wait: the deadline, or the poll-count backstop
    /// ([`Config::max_polls`](crate::Config::max_polls)) when the clock did not advance.
    pub bound: Bound,
}

/// Why a switch access failed. `E` is the MDIO bus's error type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error<E> {
    /// An MDIO frame failed; returned as soon as it happens, from any step of an access
    /// (including from inside a busy wait, which then stops polling).
    Mdio(E),
    /// A busy bit did not clear (or INIT_READY did not set) within the configured timeout
    /// ([`Config::timeout_ns`](crate::Config::timeout_ns), default 50 ms). A timeout of
    /// the SMI_CMD wait inside an indirect access is reported as [`BusyWait::SmiCmd`] even
    /// when it happened while polling another register. After it, the next access first
    /// waits for the busy bit again instead of trusting it is clear.
    Timeout(BusyTimeout),
    /// PORT_SWITCH_ID read back a product number that is not in the chip table
    /// (docs/mv88e6xxx.md#identification); 0xFFFF usually means nothing answered at that address.
    UnknownSwitchId {
        /// The raw PORT_SWITCH_ID value.
        raw: u16,
    },
    /// A device address that this addressing mode cannot reach (in dual-chip mode a
    /// device ≥ 16, or `sw_addr + dev` > 31), or a PHY address outside the chip's PHY bus
    /// (`phy_base .. phy_base + num_ports`). Nothing was written.
    AddressOutOfRange {
        /// The device (or PHY) address asked for.
        dev: u8,
    },
    /// A port the chip does not have (≥ its port count: its device address would be
    /// another port's, a PHY's or a global block's), or one not routed to pins (the chip's
    /// invalid-port mask). Before the chip is identified, the family's largest port count
    /// applies. Nothing was written.
    InvalidPort {
        /// The port number asked for.
        port: u8,
    },
    /// The addressing does not fit the family: indirect with `sw_addr` = 0, dual-chip
    /// with `sw_addr` other than 0 or 16, dual-chip for a multi-chip family or the
    /// reverse, `sw_addr` > 31.
    InvalidConfig,
}

impl<E> From<BusyTimeout> for Error<E> {
    fn from(t: BusyTimeout) -> Self {
        Error::Timeout(t)
    }
}

impl<E: core::fmt::Debug> core::fmt::Display for Error<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Mdio(e) => write!(f, "MDIO error: {e:?}"),
            Error::Timeout(t) => write!(
                f,
                "timeout waiting for {:?} (last value {:#06x}, {} polls)",
                t.wait, t.last, t.polls
            ),
            Error::UnknownSwitchId { raw } => write!(f, "unknown switch id {raw:#06x}"),
            Error::AddressOutOfRange { dev } => write!(f, "device address {dev:#04x} out of range"),
            Error::InvalidPort { port } => write!(f, "port {port} does not exist on this chip"),
            Error::InvalidConfig => f.write_str("invalid SMI addressing configuration"),
        }
    }
}

impl<E: core::fmt::Debug> core::error::Error for Error<E> {}

/// Into the family-wide error: timeouts stay [`Timeout`](hwtimer_core::Error::Timeout),
/// unknown chips are [`Unsupported`](hwtimer_core::Error::Unsupported), address and
/// configuration errors are [`InvalidConfig`](hwtimer_core::Error::InvalidConfig), MDIO
/// errors convert with their own `Into`.
impl<E: Into<hwtimer_core::Error>> From<Error<E>> for hwtimer_core::Error {
    fn from(e: Error<E>) -> Self {
        match e {
            Error::Mdio(e) => e.into(),
            Error::Timeout(_) => hwtimer_core::Error::Timeout,
            Error::UnknownSwitchId { .. } => hwtimer_core::Error::Unsupported,
            Error::AddressOutOfRange { .. } | Error::InvalidPort { .. } | Error::InvalidConfig => {
                hwtimer_core::Error::InvalidConfig
            }
        }
    }
}
