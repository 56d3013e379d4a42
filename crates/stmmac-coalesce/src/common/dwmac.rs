//! [`Dwmac`]: what a TX or RX ring needs from its MAC, for each register layout.
//!
//! The rings ([`TxRing`](crate::TxRing), [`RxRing`](crate::RxRing)) and the stack adapters
//! are written once; the MAC types ([`Gmac3`](crate::Gmac3) for GMAC 3.x,
//! [`Qos`](crate::Qos) for the QoS 4.x/5.x core) implement this sealed trait, each
//! reaching only its own register map. The differences it hides:
//!
//! | | GMAC 3.x ([`Gmac3`](crate::Gmac3)) | QoS 4.x/5.x ([`Qos`](crate::Qos)) |
//! |---|---|---|
//! | descriptor layout | normal or enhanced | QoS ([`DescLayout::Qos`]) |
//! | ring start | base address, DSL read back | base (high/low), ring length, RBSZ, DSL read back |
//! | doorbell | poll-demand write | tail-pointer write (TX: one past the last frame; RX: the last descriptor given back) |
//! | faults a ring recovers from (with AIS) | FBI (both rings), UNF and TJT (TX) | FBE (both rings) |
//! | Stopped state read from | DMA_STATUS TS / RS | DMA_DEBUG_STATUS0 TPS0 / RPS0 |
//!
//! # Stops, and what is a fault
//!
//! TPS and RPS ("process stopped") are raised by every stop, a deliberate one too, so they
//! are never a fault and never enabled (Linux's masks). A deliberate stop ([`Dwmac::stop`],
//! the first step of a ring's recovery or restart) clears ST / SR, waits for the process
//! to reach Stopped (at most [`Dwmac::set_stop_polls`] status reads, by default
//! [`STOP_POLLS`](crate::common::STOP_POLLS), then one more; [`Error::Timeout`] otherwise),
//! acknowledges the TPS / RPS the stop raised, and
//! only then may a ring base be written (the 3.x databook, 6.2.1.5, Register 4, as quoted
//! in the Linux fix that made `stmmac_tx_err` rewrite the TX base: "If this register is
//! not changed when the ST bit is set to 0, then the DMA takes the descriptor address
//! where it was stopped earlier"; on QoS the channel's state is DMA_DEBUG_STATUS0, RT1170
//! and ST DMADSR field docs). The rings never restart an engine whose ST / SR is clear:
//! that is the user's stop.
//!
//! A ring checks that its [`DmaSetup`](crate::DmaSetup) has the MAC's layout before it
//! programs anything ([`ConfigError::LayoutMismatch`](crate::ConfigError::LayoutMismatch)
//! otherwise), so a GMAC 3.x ring can never be started on a QoS core or the other way round.
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
        /// Stop the TX DMA if it runs (and wait for Stopped), program the ring, start it.
        ///
        /// Errors: [`Error::Timeout`] when the process does not reach Stopped; nothing
        /// is programmed then. The geometry errors of the ring checks.
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
        /// The TX DMA is switched on (ST set, whatever its process state).
        fn tx_dma_enabled(&self) -> bool;
        /// The RX DMA is switched on (SR set, whatever its process state).
        fn rx_dma_enabled(&self) -> bool;
        /// The TX DMA cannot make progress (stopped, or a fault pending).
        fn tx_stopped(&self) -> bool;
        /// The TX DMA sleeps and a doorbell would wake it.
        fn tx_suspended(&self) -> bool;
        /// Stop the TX DMA: clear ST, wait for the process to reach Stopped (bounded by
        /// `set_stop_polls` reads), then acknowledge the TPS the stop raised.
        ///
        /// Errors: [`Error::Timeout`] when it never read Stopped (ST stays clear, TPS is
        /// not acknowledged).
        fn stop_tx(&self) -> Result<(), Error>;
        /// As `stop_tx` for the RX DMA (SR, RPS).
        ///
        /// Errors: [`Error::Timeout`].
        fn stop_rx(&self) -> Result<(), Error>;
        /// The descriptor the RX DMA looks at (bus address).
        fn cur_rx_desc(&self) -> u64;
    }
}

/// A DWMAC whose rings the crate's [`TxRing`](crate::TxRing) and
/// [`RxRing`](crate::RxRing) drive: [`Gmac3`](crate::Gmac3) (GMAC 3.x) or
/// [`Qos`](crate::Qos) (QoS 4.x/5.x). Sealed; see the [module docs](crate::common).
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
    /// [`configure_dma`](Self::configure_dma) (which rewrites the QoS RX queue's mode).
    fn set_flow_control(&self, pause: Pause, duplex: Duplex);

    /// Stop both DMA engines and the MAC's transmitter and receiver; the link is down.
    /// Waits for both processes to reach Stopped (see the [module docs](crate::common)),
    /// then acknowledges the TPS and RPS the stop raised, so no stale status is left. The
    /// rings leave engines stopped this way stopped (their interrupt and timer paths never
    /// restart them); [`TxRing::try_start`](crate::TxRing::try_start) /
    /// [`RxRing::try_start`](crate::RxRing::try_start) start them again, each from its
    /// descriptor 0, dropping (and counting) the frames its ring still held.
    ///
    /// Errors: [`Error::Timeout`] when a process does not read Stopped within
    /// [`set_stop_polls`](Self::set_stop_polls) reads (then TPS / RPS are not
    /// acknowledged); the engines are switched off either way.
    fn stop(&self) -> Result<(), Error>;

    /// The bound of every wait for a DMA process to reach Stopped ([`stop`](Self::stop),
    /// a ring's recovery or start over a running engine), in status reads; then one more
    /// read is judged. The default is [`STOP_POLLS`](crate::common::STOP_POLLS) (its docs
    /// say how it was chosen); values below 1 count as 1.
    fn set_stop_polls(&self, polls: u32);

    /// Read the DMA status, acknowledge the interrupt bits it shows that are enabled (the
    /// summaries included) and return them as [`DmaEvents`]: the interrupt handler's first
    /// step. Bits of sources that are not enabled are neither reported nor acknowledged:
    /// they raise no interrupt and feed no summary (Linux's `dwmac4_dma_interrupt` writes
    /// back `intr_status & intr_en`). The enable mask is the one this MAC last wrote
    /// ([`enable_default_interrupts`](Self::enable_default_interrupts), the MAC's own
    /// setter, reset to 0 by [`soft_reset`](Self::soft_reset)), or read once from the core
    /// at the first call: one status read and at most one write per call.
    #[must_use = "the events are acknowledged: dropping them loses them"]
    fn take_events(&self) -> DmaEvents;

    /// Enable the DMA interrupts the rings need, as Linux enables them on this version:
    /// normal TI, RI and abnormal FBE (and UNF on 3.x), with the summary enables at this
    /// core's positions (dwmac_dma.h `DMA_INTR_DEFAULT_MASK`, dwmac4_dma.h
    /// `DMA_CHAN_INTR_DEFAULT_MASK` / `_4_10`). No TPS, RPS or RX-buffer-unavailable
    /// enable: a stop raises TPS/RPS, and the RX ring's refill rings the RX doorbell itself
    /// (a poll demand on 3.x, a tail write on QoS) whenever it gives descriptors back,
    /// as Linux's NAPI refill does, so a suspended RX DMA needs no interrupt to resume.
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

/// The check every ring start makes first; a refusal is counted in `refused` (the ring's
/// `refused_starts`).
pub(crate) fn check_layout<M: Dwmac>(
    mac: &M,
    layout: DescLayout,
    refused: &mut u64,
) -> Result<(), Error> {
    if mac.accepts(layout) {
        Ok(())
    } else {
        *refused = refused.wrapping_add(1);
        Err(Error::Config(crate::common::ConfigError::LayoutMismatch))
    }
}
