//! [`Dwmac`]: what a TX or RX ring needs from its MAC, for each register layout.
//!
//! The rings ([`TxRing`](crate::TxRing), [`RxRing`](crate::RxRing)) and the stack adapters
//! are written once; the MAC types ([`Gmac3`](crate::Gmac3) for the 3.x GMAC,
//! [`Qos`](crate::Qos) for the 4.x/5.x QoS core) implement this sealed trait, each
//! reaching only its own register map. The differences it hides:
//!
//! | | 3.x ([`Gmac3`](crate::Gmac3)) | 4.x/5.x ([`Qos`](crate::Qos)) |
//! |---|---|---|
//! | descriptor layout | normal or enhanced | QoS ([`DescLayout::Qos`]) |
//! | ring start | base address, DSL read back | base (high/low), ring length, RBSZ, DSL read back |
//! | doorbell | poll-demand write | tail-pointer write (TX: one past the last frame; RX: the last descriptor given back) |
//! | TX faults | TPS, UNF, TJT (DMA_STATUS) | TPS (DMA_CH0_STATUS) |
//!
//! A ring checks that its [`DmaSetup`](crate::DmaSetup) has the MAC's layout before it
//! programs anything ([`ConfigError::LayoutMismatch`](crate::ConfigError::LayoutMismatch)
//! otherwise), so a 3.x ring can never be started on a 4.x core or the other way round.
//!
//! The trait is sealed: its ring-facing methods are crate-private (they aim the DMA), and
//! only the crate's MAC types implement it.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::common::phy::{Duplex, LinkState, Pause};
use crate::common::{DescLayout, DmaConfig, DmaSetup};
use crate::common::{DmaEvents, Error, FrameFilter, HwStats, MacConfig, SWR_TIMEOUT_US};

pub(crate) use sealed::RingStart;

pub(crate) mod sealed {
    /// Where a ring lives, as its MAC programs it at a start.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RingStart {
        /// Bus address of descriptor 0.
        pub base: u64,
        /// Bus address of the last descriptor.
        pub last: u64,
        /// Number of descriptors.
        pub len: usize,
        /// DSL: the padding between descriptors, in bus-width words.
        pub dsl: u8,
        /// RX only: the buffer size of each descriptor (RBSZ on QoS; 3.x keeps it in RDES1).
        pub buf_size: u32,
        /// The first tail pointer (QoS; ignored on 3.x).
        pub tail: u64,
        /// Bytes from one descriptor to the next (the ring's stride).
        pub stride: u32,
        /// The highest bus address the DMA reaches through this ring (the end of its last
        /// descriptor or buffer, inclusive).
        pub top: u64,
    }

    use crate::common::DescLayout;
    use crate::common::Error;

    /// The ring-facing operations (crate-private: they aim the DMA).
    pub trait Ops {
        /// Whether this MAC's rings use the QoS layout (and its tail-pointer doorbells):
        /// a constant, so each MAC type's ring code is compiled for its own layout.
        const QOS: bool;
        /// Whether rings of `layout` run on this MAC.
        fn accepts(&self, layout: DescLayout) -> bool;
        /// Stop the TX DMA if it runs, program the ring, start it.
        ///
        /// # Safety
        /// `r` describes descriptors, all initialised, in memory the DMA may use for as
        /// long as it runs.
        unsafe fn start_tx(&self, r: &RingStart) -> Result<(), Error>;
        /// As `start_tx` for the RX DMA.
        ///
        /// # Safety
        /// As `start_tx`.
        unsafe fn start_rx(&self, r: &RingStart) -> Result<(), Error>;
        /// The TX doorbell; `tail` is the bus address one past the last frame given.
        fn tx_doorbell(&self, tail: u64);
        /// The RX doorbell; `tail` is the bus address of the last descriptor given back.
        fn rx_doorbell(&self, tail: u64);
        /// The TX DMA is switched on (whatever its process state).
        fn tx_dma_enabled(&self) -> bool;
        /// The TX DMA cannot make progress (stopped, or a fault pending).
        fn tx_stopped(&self) -> bool;
        /// The TX DMA sleeps and a doorbell would wake it.
        fn tx_suspended(&self) -> bool;
        /// Stop the TX DMA.
        fn stop_tx(&self);
        /// Stop the RX DMA.
        fn stop_rx(&self);
        /// Acknowledge the TX fault bits a TX recovery handles.
        fn ack_tx_faults(&self);
        /// The descriptor the RX DMA looks at (bus address).
        fn cur_rx_desc(&self) -> u64;
    }
}

/// A DWMAC whose rings the crate's [`TxRing`](crate::TxRing) and
/// [`RxRing`](crate::RxRing) drive: [`Gmac3`](crate::Gmac3) (3.x) or
/// [`Qos`](crate::Qos) (4.x/5.x). Sealed; see the [module docs](crate::common).
///
/// Every method is safe to call from the interrupt handler, the timer and the link path
/// at once (each is a critical section or one register access).
pub trait Dwmac: sealed::Ops {
    /// This MAC's MDIO master ([`mdio`](Self::mdio)): [`Gmac3Mdio`](crate::Gmac3Mdio) or
    /// [`QosMdio`](crate::QosMdio).
    type Mdio<'a, C: Continuous + Copy>: Mdio
    where
        Self: 'a;

    /// The version register as read (3.x GMAC_VERSION; QoS MAC_VERSION, read once by the
    /// probe): Synopsys version in bits 7:0, user version in 15:8.
    fn version(&self) -> u32;

    /// Software reset of the DMA and MAC (SWR), waiting at most [`SWR_TIMEOUT_US`] for it to
    /// self-clear (iopoll semantics: one more read after the deadline); returns the number
    /// of reads the wait took. The link is down afterwards, and the MAC's own interrupts
    /// are masked ([`mask_mac_interrupts`](Self::mask_mac_interrupts)).
    ///
    /// Errors: [`Error::Timeout`] when SWR is still set (the reset needs the PHY's RX/TX
    /// clocks: a missing clock keeps the core in reset).
    fn soft_reset<C: Continuous + Copy>(&self, clock: C) -> Result<u32, Error> {
        self.soft_reset_within(clock, SWR_TIMEOUT_US)
    }

    /// As [`soft_reset`](Self::soft_reset), waiting at most `timeout_us`.
    ///
    /// Errors: [`Error::Timeout`].
    fn soft_reset_within<C: Continuous + Copy>(
        &self,
        clock: C,
        timeout_us: u64,
    ) -> Result<u32, Error>;

    /// Mask the MAC's own interrupts and the MMC counter interrupts, as Linux does at core
    /// init (an MMC counter past half range would otherwise hold the line).
    fn mask_mac_interrupts(&self);

    /// Read the core's features, resolve `cfg` against them and program the DMA bus mode;
    /// the [`DmaSetup`] the rings are built from.
    ///
    /// Errors: [`Error::Config`] when `cfg` does not fit the core or an engine runs.
    fn configure_dma(&self, cfg: &DmaConfig) -> Result<DmaSetup, Error>;

    /// Program MAC address 0.
    fn set_mac_address(&self, mac: [u8; 6]);

    /// MAC address 0 as programmed.
    fn mac_address(&self) -> [u8; 6];

    /// Program the destination-address filter and its multicast hash.
    fn set_filter(&self, filter: &FrameFilter);

    /// Bring-up of the MAC side: station address, then filter.
    fn init_mac(&self, cfg: &MacConfig) {
        self.set_mac_address(cfg.address);
        self.set_filter(&cfg.filter);
    }

    /// The descriptor layouts this MAC's rings may use.
    fn layout_supported(&self, layout: DescLayout) -> bool {
        self.accepts(layout)
    }

    /// The link state last given to [`set_link`](Self::set_link) (down at first).
    fn link(&self) -> LinkState;

    /// Program the MAC for `link` (speed, duplex; TE and RE only while it is up); returns
    /// whether the state changed.
    fn set_link(&self, link: LinkState) -> bool;

    /// Program the PAUSE handling the link partners agreed on (`pause`, from
    /// [`Phy::pause`](crate::Phy::pause)); half duplex has no PAUSE. Transmit pause also
    /// turns on the RX FIFO's hardware flow control where the core's FIFO allows it, so
    /// PAUSE frames go out as the FIFO fills. Call it after
    /// [`configure_dma`](Self::configure_dma) (which rewrites the QoS RX queue's mode) and
    /// again after [`stop`](Self::stop).
    fn set_flow_control(&self, pause: Pause, duplex: Duplex);

    /// Stop both DMA engines and the MAC's transmitter and receiver; the link is down.
    fn stop(&self);

    /// Read the DMA status, acknowledge every interrupt bit it shows and return them as
    /// [`DmaEvents`]: the interrupt handler's first step.
    #[must_use = "the events are acknowledged: dropping them loses them"]
    fn take_events(&self) -> DmaEvents;

    /// Enable the DMA interrupts the rings need, as Linux enables them on this version
    /// (the summary enables at this core's positions).
    fn enable_default_interrupts(&self);

    /// The RX interrupt watchdog (0 = off), in units of 256 CSR cycles on every version.
    fn set_riwt(&self, riwt: u8);

    /// RX checksum checking on or off; whether it is on afterwards (read back: a core
    /// without the engine answers `false`).
    fn set_rx_checksum(&self, on: bool) -> bool;

    /// Read the core's frame counters and add them to `acc` (see [`HwStats`] for what
    /// each holds and how the clear-on-read counters are accumulated).
    fn hw_stats(&self, acc: &mut HwStats);

    /// The MDIO master of this MAC, bounded on `clock`, for a CSR clock of `csr_hz`
    /// (selects the CR divider). At most one is alive at a time; dropping it lets the next
    /// one be made.
    ///
    /// Errors: [`Error::CsrClock`] when `csr_hz` has no divider;
    /// [`Error::MdioBusy`] while another master of this MAC is alive.
    fn mdio<C: Continuous + Copy>(&self, clock: C, csr_hz: u32)
    -> Result<Self::Mdio<'_, C>, Error>;
}

/// The check every ring start makes first.
pub(crate) fn check_layout<M: Dwmac>(mac: &M, layout: DescLayout) -> Result<(), Error> {
    if mac.accepts(layout) {
        Ok(())
    } else {
        Err(Error::Config(crate::common::ConfigError::LayoutMismatch))
    }
}
