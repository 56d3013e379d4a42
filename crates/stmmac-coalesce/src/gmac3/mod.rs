//! GMAC 3.x: the MAC and DMA control registers ([`Gmac3`]), MDIO over MII_ADDR/MII_DATA
//! ([`Gmac3Mdio`]), the register map ([`regs`]) and the mapping of DMA_STATUS to
//! [`DmaEvents`] ([`events_from_status`]).
//!
//! # Bring-up
//!
//! ```
//! # use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
//! # use stmmac_coalesce::sim::{AnPhy, Gmac3Model, SimArena, SIM_CSR_HZ};
//! use stmmac_coalesce::{DmaConfig, Duplex, Dwmac, FrameFilter, Gmac3, LinkState, MacConfig, Speed};
//! # let clock = SimClock::new();
//! # let counter = SimCounter::new(&clock, 32, 25_000_000);
//! # let arena = SimArena::new(0x1000_0000, 256 * 1024);
//! # let bus = SimBus::new(&clock, Gmac3Model::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ));
//! let mac = Gmac3::new(bus);
//! mac.soft_reset(&counter)?;               // DMA_BUS_MODE.SWR, bounded wait
//! let cfg = DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() };
//! let setup = mac.configure_dma(&cfg)?;    // HW_FEATURE, DSL/PBL read back
//! mac.init_mac(&MacConfig { address: [2, 0, 0, 0, 0, 1], filter: FrameFilter::default() });
//! // ... TxRing::new / RxRing::new from `setup`, then start them on `mac` ...
//! mac.enable_default_interrupts();
//! mac.set_link(LinkState::up(Speed::M100, Duplex::Full));
//! # let _ = setup;
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```
//!
//! Nothing here lets safe code point the DMA at memory: the descriptor list bases are
//! written only by the rings' `start` (with their own, owned memory, after reading DSL
//! back) or by the `unsafe` [`Gmac3::set_ring_bases`]; [`Gmac3::bus`] is `unsafe` for the
//! same reason. [`Dwmac::configure_dma`](crate::Dwmac::configure_dma) does not change DSL under a running engine.

mod decode;
pub(crate) mod desc;
mod features;
mod mdio;
pub mod regs;
mod ring_ops;

use decode::resolve_dma;
pub use decode::{coe_from_hw_feature, events_from_status, layout_from_hw_feature};
use features::layout_code;
pub use mdio::Gmac3Mdio;

use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};

use hwtimer_core::{Continuous, Poller, RegisterBus, RegisterBusExt};
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use tock_registers::LocalRegisterCopy;

use crate::common::phy::{Duplex, LinkState, Speed};
use crate::common::{
    DmaEvents, Error, FrameFilter, MDIO_TIMEOUT_US, decode_link, encode_link, wait_stopped,
};
use crate::dma::{DmaConfig, DmaSetup};
use regs::{DMA_BUS_MODE, DMA_CONTROL, DMA_STATUS, GMAC_CONTROL, GMAC_FRAME_FILTER, GMAC_MII_ADDR};

/// One GMAC 3.x instance: MAC registers at bus offset 0, DMA at 0x1000.
///
/// `B` is any [`RegisterBus`] over the block: [`hwtimer_core::Mmio`] on target (length
/// 0x1060), a `hwtimer_core::sim::SimBus` over `sim::Gmac3Model` (feature `sim`)
/// on the host. It keeps the link state the MAC was last configured for
/// ([`set_link`](crate::Dwmac::set_link)); the TX ring refuses frames while it is down.
///
/// # Locking
///
/// The read-modify-writes of DMA_CONTROL (starting and stopping either DMA engine, from a
/// ring's `start`, `recover` or `on_timer`, or the user) and of GMAC_CONTROL
/// ([`set_link`](crate::Dwmac::set_link), [`stop`](crate::Dwmac::stop)) run inside a `critical-section`
/// (interrupts masked on one core; the firmware's multi-core implementation on several),
/// so the timer, the interrupt handler and the link path cannot lose each other's bits.
/// Each section is at most two register reads and three register writes (plus the
/// [`set_write_settle`](Self::set_write_settle) read-backs when that guard is on); the
/// waits for a stopped process run outside them. [`configure_dma`](crate::Dwmac::configure_dma) checks in the same
/// section that neither engine runs. The MDIO master is single ([`mdio`](crate::Dwmac::mdio)).
#[derive(Debug)]
pub struct Gmac3<B: RegisterBus<Word = u32>> {
    bus: B,
    link: AtomicU32,
    mdio_taken: AtomicBool,
    settle_reads: AtomicU8,
    /// DMA_INTR_ENA as last written ([`IRQ_UNKNOWN`] until written or read once).
    irq_enabled: AtomicU32,
    /// The bound of a wait for Stopped, in status reads
    /// ([`set_stop_polls`](crate::Dwmac::set_stop_polls)).
    stop_polls: AtomicU32,
    /// The layout [`configure_dma`](crate::Dwmac::configure_dma) resolved (0 none yet).
    layout: AtomicU8,
    /// The RX FIFO size for flow control, bytes (0 unknown).
    rx_fifo: AtomicU32,
}

/// `Gmac3::irq_enabled` before DMA_INTR_ENA was written or read (bit 31 is no enable bit).
const IRQ_UNKNOWN: u32 = 1 << 31;
/// DMA_STATUS / DMA_INTR_ENA bits 16:0: the sources, their enables and the summaries
/// (dwmac_dma.h: NIE 16 ... TIE 0).
const IRQ_BITS: u32 = 0x0001_FFFF;
/// DMA_STATUS.TPS (bit 1).
const STATUS_TPS: u32 = 1 << 1;
/// DMA_STATUS.RPS (bit 8).
const STATUS_RPS: u32 = 1 << 8;

/// DMA_CONTROL.ST (start/stop transmission).
const DMA_CONTROL_ST: u32 = 1 << 13;
/// DMA_CONTROL.SR (start/stop receive).
const DMA_CONTROL_SR: u32 = 1 << 1;
/// DMA_CONTROL.TSF (transmit store and forward).
const DMA_CONTROL_TSF: u32 = 1 << 21;

impl<B: RegisterBus<Word = u32>> Gmac3<B> {
    /// GMAC_VERSION as `bus` reads it (one read; for [`probe`](crate::probe)).
    pub(crate) fn read_version(bus: &B) -> u32 {
        bus.read_raw(regs::GMAC_VERSION)
    }

    /// Wrap the register block. Touches no register; the link starts down.
    pub const fn new(bus: B) -> Self {
        Self {
            bus,
            link: AtomicU32::new(0),
            mdio_taken: AtomicBool::new(false),
            settle_reads: AtomicU8::new(0),
            irq_enabled: AtomicU32::new(IRQ_UNKNOWN),
            stop_polls: AtomicU32::new(crate::common::STOP_POLLS),
            layout: AtomicU8::new(0),
            rx_fifo: AtomicU32::new(0),
        }
    }

    /// Guard against the STM32F4/F7 erratum "successive write operations to the same
    /// register might not be fully taken into account" (ST errata 2.16.5 on F7; stm32-eth
    /// delays its F4 MAC and DMA writes): after every write to GMAC_CONTROL,
    /// GMAC_FRAME_FILTER, GMAC_FLOW_CTRL, DMA_BUS_MODE, DMA_CONTROL or DMA_INTR_ENA, read
    /// the register back `reads` times, so that the next write to it comes late enough
    /// (ST asks for 4 TX_CLK/RX_CLK cycles: 1.6 µs at 10 Mbit/s, 160 ns at 100 Mbit/s;
    /// choose `reads` × one peripheral-bus read time above that for the slowest speed
    /// used). 0 (the default) turns it off.
    ///
    /// Off by default everywhere, enhanced layout or not: the layout does not identify an
    /// STM32 (many other SoCs synthesise enhanced descriptors), and the guard costs reads
    /// on none of the per-frame paths, only on starts, stops, the link and set-up, so turn
    /// it on for STM32F4/F7 parts.
    pub fn set_write_settle(&self, reads: u8) {
        self.settle_reads.store(reads, Ordering::Relaxed);
    }

    /// A write to a register the erratum affects, followed by the guard's read-backs.
    fn write_settled<R: tock_registers::RegisterLongName>(
        &self,
        reg: hwtimer_core::Reg<u32, R>,
        value: u32,
    ) {
        self.bus.write_raw(reg, value);
        for _ in 0..self.settle_reads.load(Ordering::Relaxed) {
            let _ = self.bus.read_raw(reg);
        }
    }

    /// The register bus.
    ///
    /// # Safety
    /// Writes through it can point the DMA at any memory (DMA_TX_BASE_ADDR,
    /// DMA_RCV_BASE_ADDR, a started DMA over a stale base): the caller must not make the
    /// DMA access memory it does not own.
    pub unsafe fn bus(&self) -> &B {
        &self.bus
    }

    /// DMA_HW_FEATURE.
    pub fn hw_feature(&self) -> u32 {
        self.bus.read_raw(regs::DMA_HW_FEATURE)
    }

    /// The checksum offload engines HW_FEATURE announces (TXCOESEL, RXTYP1COE, RXTYP2COE);
    /// `None` when HW_FEATURE reads 0 or all ones (cores older than 3.50a: unknown).
    pub fn coe(&self) -> Option<crate::dma::Coe> {
        coe_from_hw_feature(self.hw_feature())
    }

    /// As [`configure_dma`](crate::Dwmac::configure_dma) for a core without HW_FEATURE (older than
    /// 3.50a): the layout is `layout`, not read from the core.
    ///
    /// # Safety
    /// As [`DmaConfig::resolve_assuming_layout`]: `layout` must be the one the core was
    /// synthesised with.
    pub unsafe fn configure_dma_assuming_layout(
        &self,
        cfg: &DmaConfig,
        layout: crate::DescLayout,
    ) -> Result<DmaSetup, Error> {
        // SAFETY: the caller's promise, forwarded.
        let setup = unsafe { cfg.resolve_assuming_layout(layout) }?;
        self.program_bus_mode(&setup)?;
        self.layout.store(layout_code(layout), Ordering::Relaxed);
        Ok(setup)
    }

    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    fn program_bus_mode(&self, setup: &DmaSetup) -> Result<(), Error> {
        critical_section::with(|_| {
            if self.bus.read_raw(DMA_CONTROL) & (DMA_CONTROL_ST | DMA_CONTROL_SR) != 0 {
                return Err(Error::DmaRunning);
            }
            self.write_settled(
                DMA_BUS_MODE,
                (DMA_BUS_MODE::PBL.val(u32::from(setup.pbl()))
                    + DMA_BUS_MODE::DSL.val(u32::from(setup.dsl()))
                    + DMA_BUS_MODE::ATDS::CLEAR)
                    .value,
            );
            Ok(())
        })
    }

    /// The receive filter as programmed (GMAC_FRAME_FILTER).
    pub fn filter_register(&self) -> u32 {
        self.bus.read_raw(GMAC_FRAME_FILTER)
    }

    /// DMA_INTR_ENA (bit positions of [`DMA_STATUS`](const@DMA_STATUS)); also the mask
    /// [`take_events`](crate::Dwmac::take_events) reports and acknowledges from now on.
    pub fn set_interrupts(&self, mask: u32) {
        self.write_irq_enables(mask & IRQ_BITS, || {
            self.write_settled(regs::DMA_INTR_ENA, mask);
        });
    }

    /// Run `write`, which changes what DMA_INTR_ENA enables to `new`, keeping the cache a
    /// superset of the enabled sources throughout: the old and new sets while the write is
    /// under way, `new` after it. An interrupt handler (another core's; on this core the
    /// critical section keeps it out) then acknowledges every enabled source it finds
    /// pending, and at worst one being disabled, which is harmless; with the cache short of
    /// an enabled source it would acknowledge nothing and re-enter on a level-triggered
    /// line.
    fn write_irq_enables(&self, new: u32, write: impl FnOnce()) {
        critical_section::with(|_| {
            let old = self.irq_enabled.load(Ordering::Acquire);
            let old = if old & IRQ_UNKNOWN != 0 {
                IRQ_BITS
            } else {
                old
            };
            self.irq_enabled.store(old | new, Ordering::Release);
            write();
            self.irq_enabled.store(new, Ordering::Release);
        });
    }

    /// The DMA_INTR_ENA mask as last written, read from the core the first time.
    fn irq_enabled(&self) -> u32 {
        let m = self.irq_enabled.load(Ordering::Acquire);
        if m & IRQ_UNKNOWN == 0 {
            return m;
        }
        let m = self.bus.read_raw(regs::DMA_INTR_ENA) & IRQ_BITS;
        // Only if no write came in between (that write's value is the newer one).
        match self
            .irq_enabled
            .compare_exchange(IRQ_UNKNOWN, m, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => m,
            Err(newer) => newer,
        }
    }

    /// DMA_STATUS.
    pub fn status(&self) -> LocalRegisterCopy<u32, DMA_STATUS::Register> {
        self.bus.read(DMA_STATUS)
    }

    /// Acknowledge `bits` of DMA_STATUS (write-1-to-clear; read-only bits are masked off).
    pub fn ack(&self, bits: u32) {
        self.bus.write_raw(DMA_STATUS, bits & regs::DMA_STATUS_W1C);
    }
}

impl<B: RegisterBus<Word = u32>> crate::common::Dwmac for Gmac3<B> {
    type Mdio<'a, C: Continuous + Copy>
        = Gmac3Mdio<'a, B, C>
    where
        Self: 'a;

    /// GMAC_VERSION (0x1032 on QEMU's npcm-gmac: Synopsys 3.2, user 0x10).
    fn version(&self) -> u32 {
        self.bus.read_raw(regs::GMAC_VERSION)
    }

    /// As [`soft_reset`](crate::Dwmac::soft_reset), waiting at most `timeout_us` for SWR to clear
    /// (some glue needs longer than Linux's default: i.MX waits 1 s, Loongson 2 s).
    ///
    /// Errors: [`Error::Timeout`].
    fn soft_reset_within<C: Continuous + Copy>(
        &self,
        clock: C,
        timeout_us: u64,
    ) -> Result<u32, Error> {
        self.link.store(0, Ordering::Relaxed);
        // The reset clears DMA_INTR_ENA (reset value 0).
        self.write_irq_enables(0, || self.bus.write(DMA_BUS_MODE, DMA_BUS_MODE::SWR::SET));
        let polls = crate::common::wait_reset(
            clock,
            timeout_us,
            || self.bus.read(DMA_BUS_MODE),
            |v| !v.is_set(DMA_BUS_MODE::SWR),
        )?;
        self.mask_mac_interrupts();
        Ok(polls)
    }

    /// Mask the MAC's own interrupt sources, as Linux does at core init: GMAC_INT_MASK =
    /// [`GMAC_INT_DEFAULT_MASK`](regs::GMAC_INT_DEFAULT_MASK) (RGMII, PCS link, PCS
    /// autonegotiation, timestamp) and every MMC counter interrupt (MMC_RX_INTR_MASK,
    /// MMC_TX_INTR_MASK, MMC_RX_IPC_INTR_MASK all ones).
    ///
    /// Without it the DMA_STATUS summaries GLI/GMI/GPI, which clear only at their source
    /// (an RGMII/PCS status read, an MMC counter read) and not by
    /// [`take_events`](crate::Dwmac::take_events), hold the shared interrupt line high once an
    /// MMC counter passes half range (about 17 s of traffic at 1 Gbit/s) or the RGMII/PCS
    /// link changes: an interrupt storm. [`soft_reset`](crate::Dwmac::soft_reset) calls it; four
    /// register writes.
    fn mask_mac_interrupts(&self) {
        self.bus
            .write_raw(regs::GMAC_INT_MASK, regs::GMAC_INT_DEFAULT_MASK);
        self.bus
            .write_raw(regs::MMC_RX_INTR_MASK, regs::MMC_DEFAULT_MASK);
        self.bus
            .write_raw(regs::MMC_TX_INTR_MASK, regs::MMC_DEFAULT_MASK);
        self.bus
            .write_raw(regs::MMC_RX_IPC_INTR_MASK, regs::MMC_DEFAULT_MASK);
    }

    /// Resolve `cfg` (the descriptor layout from HW_FEATURE.ENHDESSEL, which must be
    /// readable; a [`DmaConfig::layout`] given is validated against it) and program
    /// DMA_BUS_MODE (PBL, DSL for the descriptor stride, ATDS clear). Call after [`soft_reset`](crate::Dwmac::soft_reset), with both DMA
    /// engines stopped; build both rings for the returned set-up.
    ///
    /// The geometry cannot change under running rings: while DMA_CONTROL.ST or SR is set,
    /// nothing is written and the call fails. A ring built for another set-up than the one
    /// programmed last refuses to start ([`Error::GeometryMismatch`]).
    ///
    /// Errors: [`ConfigError::NoHwFeature`](crate::ConfigError::NoHwFeature) when HW_FEATURE reads 0 or all ones (a core
    /// older than 3.50a: use [`Gmac3::configure_dma_assuming_layout`]);
    /// [`ConfigError::LayoutMismatch`](crate::ConfigError::LayoutMismatch) when `cfg.layout`
    /// disagrees with HW_FEATURE; the
    /// geometry errors of [`DmaConfig::resolve_assuming_layout`] (each in
    /// [`Error::Config`]); [`Error::DmaRunning`] while a DMA engine runs.
    fn configure_dma(&self, cfg: &DmaConfig) -> Result<DmaSetup, Error> {
        let setup = resolve_dma(cfg, self.hw_feature())?;
        self.program_bus_mode(&setup)?;
        self.layout
            .store(layout_code(setup.layout()), Ordering::Relaxed);
        Ok(setup)
    }

    #[allow(clippy::arithmetic_side_effects)]
    fn set_mac_address(&self, mac: [u8; 6]) {
        let [a0, a1, a2, a3, a4, a5] = mac;
        self.bus.write(
            regs::GMAC_ADDR_HIGH,
            regs::GMAC_ADDR_HIGH::ADDRHI.val(u32::from(u16::from_le_bytes([a4, a5])))
                + regs::GMAC_ADDR_HIGH::AE::SET,
        );
        self.bus
            .write_raw(regs::GMAC_ADDR_LOW, u32::from_le_bytes([a0, a1, a2, a3]));
    }

    /// MAC address 0 as programmed.
    fn mac_address(&self) -> [u8; 6] {
        let hi = self.bus.read_raw(regs::GMAC_ADDR_HIGH).to_le_bytes();
        let lo = self.bus.read_raw(regs::GMAC_ADDR_LOW).to_le_bytes();
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// Program the receive filter: GMAC_FRAME_FILTER and the 64-bin hash table
    /// (GMAC_HASH_LOW bins 0–31, GMAC_HASH_HIGH 32–63: Linux `dwmac1000_set_mchash` for
    /// `mcbitslog2` 6, its default `HASH_TABLE_SIZE`), the filter's table folded to 64 bins.
    fn set_filter(&self, filter: &FrameFilter) {
        let [lo, hi, ..] = filter.hash_words(64);
        self.bus.write_raw(regs::GMAC_HASH_LOW, lo);
        self.bus.write_raw(regs::GMAC_HASH_HIGH, hi);
        self.write_settled(GMAC_FRAME_FILTER, filter.register());
    }

    /// Configure GMAC_CONTROL for `link`: port select and speed (PS/FES: GMII for 1000,
    /// MII with FES for 100, MII for 10), duplex (DM), and transmitter and receiver
    /// enabled (TE, RE) only while the link is up. Returns whether anything changed.
    fn set_link(&self, link: LinkState) -> bool {
        let (ps, fes) = match link.speed {
            Speed::M1000 => (false, false),
            Speed::M100 => (true, true),
            Speed::M10 => (true, false),
        };
        critical_section::with(|_| {
            // Load and store inside the section: no exclusive access needed.
            let old = self.link.load(Ordering::Relaxed);
            self.link.store(encode_link(link), Ordering::Relaxed);
            let mut w = self.bus.read_raw(GMAC_CONTROL);
            for (bit, on) in [
                (15, ps),
                (14, fes),
                (11, link.duplex == Duplex::Full),
                (3, link.up),
                (2, link.up),
            ] {
                if on {
                    w |= 1 << bit;
                } else {
                    w &= !(1 << bit);
                }
            }
            self.write_settled(GMAC_CONTROL, w);
            old != encode_link(link)
        })
    }

    /// The link state last given to [`set_link`](crate::Dwmac::set_link) (down after
    /// [`new`](Self::new) and [`soft_reset`](crate::Dwmac::soft_reset)).
    fn link(&self) -> LinkState {
        decode_link(self.link.load(Ordering::Relaxed))
    }

    /// Program GMAC_FLOW_CTRL for `pause` ([`Phy::pause`](crate::common::phy::Phy::pause)): in full
    /// duplex TFE for transmit pause (with the pause time 0xFFFF slot times, Linux's
    /// default), RFE for receive pause; in half duplex nothing (0: no backpressure).
    ///
    /// With transmit pause and an RX FIFO of at least 4 KiB
    /// ([`set_rx_fifo_size`](Gmac3::set_rx_fifo_size)), DMA_CONTROL.EFC with RFA "full
    /// minus 1 KiB" and RFD "full minus 2 KiB", as Linux `dwmac1000_configure_fc`: the
    /// MAC then sends PAUSE frames as the RX FIFO fills. Otherwise EFC, RFA and RFD are
    /// cleared (a smaller or unknown FIFO gets no hardware flow control, as in Linux).
    fn set_flow_control(&self, pause: crate::common::phy::Pause, duplex: Duplex) {
        self.program_flow(duplex == Duplex::Full && pause.tx);
        let mut v = 0;
        if duplex == Duplex::Full {
            if pause.tx {
                v |= regs::FLOW_CTRL_TFE | 0xFFFF << regs::FLOW_CTRL_PT_SHIFT;
            }
            if pause.rx {
                v |= regs::FLOW_CTRL_RFE;
            }
        }
        self.write_settled(regs::GMAC_FLOW_CTRL, v);
    }

    /// Stop both DMA engines (DMA_CONTROL ST and SR cleared; the rest of the operation mode
    /// is kept, as Linux `dwmac_dma_stop_tx` / `_rx` keep it), wait until DMA_STATUS reads
    /// TS and RS Stopped, acknowledge TPS and RPS, then disable the MAC (TE, RE); the link
    /// state is down (see [`Dwmac::stop`](crate::Dwmac::stop)). The MAC is switched off
    /// after the DMA, as Linux's `stmmac_stop_all_dma` precedes `stmmac_mac_set(false)`, so
    /// a frame the TX DMA is closing still drains.
    ///
    /// Errors: [`Error::Timeout`] (TE and RE are cleared all the same).
    fn stop(&self) -> Result<(), Error> {
        let was = critical_section::with(|_| {
            self.link.store(0, Ordering::Relaxed);
            let was = self.bus.read_raw(DMA_CONTROL);
            self.write_settled(DMA_CONTROL, was & !(DMA_CONTROL_ST | DMA_CONTROL_SR));
            was
        });
        let polls = wait_stopped(
            || self.bus.read_raw(DMA_STATUS),
            |v| DMA_STATUS::TS.read(v) == 0 && DMA_STATUS::RS.read(v) == 0,
            self.stop_polls.load(Ordering::Relaxed),
        );
        if let Ok(polls) = polls
            && (was & (DMA_CONTROL_ST | DMA_CONTROL_SR) != 0 || polls > 1)
        {
            self.ack(STATUS_TPS | STATUS_RPS);
        }
        critical_section::with(|_| {
            let c = self.bus.read(GMAC_CONTROL).get();
            self.write_settled(GMAC_CONTROL, c & !((1 << 2) | (1 << 3)));
        });
        polls.map(|_| ())
    }

    fn set_stop_polls(&self, polls: u32) {
        self.stop_polls.store(polls.max(1), Ordering::Relaxed);
    }

    /// Read DMA_STATUS, acknowledge the interrupt bits it shows that DMA_INTR_ENA enables
    /// (summaries included: NIS/AIS sit at NIE/AIE's positions) and return them: the
    /// interrupt handler's first step. Hand the events to
    /// [`TxRing::service`](crate::TxRing::service) and
    /// [`RxRing::service`](crate::RxRing::service), and wake on
    /// [`DmaEvents::rx_ready`] / [`DmaEvents::tx_done`]. One read, and one write only when
    /// something enabled was set (plus one read of DMA_INTR_ENA, once, if this MAC never
    /// wrote it).
    fn take_events(&self) -> DmaEvents {
        let st = self.bus.read_raw(DMA_STATUS) & regs::DMA_STATUS_W1C & self.irq_enabled();
        if st != 0 {
            self.bus.write_raw(DMA_STATUS, st);
        }
        events_from_status(st)
    }

    /// DMA_INTR_ENA = [`regs::DMA_INTR_DEFAULT`], Linux's 3.x mask.
    fn enable_default_interrupts(&self) {
        self.set_interrupts(regs::DMA_INTR_DEFAULT);
    }

    /// The RX interrupt watchdog (DMA_RX_WATCHDOG.RIWT, 0 = off).
    fn set_riwt(&self, riwt: u8) {
        self.bus.write(
            regs::DMA_RX_WATCHDOG,
            regs::DMA_RX_WATCHDOG::RIWT.val(u32::from(riwt)),
        );
    }

    /// Turn RX checksum checking (GMAC_CONTROL.IPC) on or off and return whether it is on
    /// afterwards: the bit is read back, so a core without the engine answers `false`
    /// (Linux's `rx_ipc` check). [`RxRing::start`](crate::RxRing::start) calls it for a ring
    /// whose [checksum offload](crate::RxRing::set_checksum_offload) is on; the ring
    /// interprets RDES0's checksum bits only then.
    fn set_rx_checksum(&self, on: bool) -> bool {
        critical_section::with(|_| {
            let w = self.bus.read_raw(GMAC_CONTROL);
            let v = if on {
                w | regs::GMAC_CONTROL_IPC
            } else {
                w & !regs::GMAC_CONTROL_IPC
            };
            if v != w {
                self.write_settled(GMAC_CONTROL, v);
            }
            self.bus.read_raw(GMAC_CONTROL) & regs::GMAC_CONTROL_IPC != 0
        })
    }

    /// DMA_MISSED_FRAME_CTR and, with the MMC, its frame counters (see
    /// [`HwStats`](crate::HwStats)).
    fn hw_stats(&self, acc: &mut crate::common::HwStats) {
        self.read_stats(acc);
    }

    /// The MDIO master of this MAC, bounded on `clock`, for a CSR clock of `csr_hz`
    /// (selects MII_ADDR.CR). There is at most one alive at a time (two would interleave
    /// their frames on MII_ADDR / MII_DATA); dropping it lets the next one be made.
    ///
    /// Errors: [`Error::CsrClock`] when `csr_hz` is outside 20–300 MHz;
    /// [`Error::MdioBusy`] while another master of this MAC is alive.
    fn mdio<C: Continuous + Copy>(
        &self,
        clock: C,
        csr_hz: u32,
    ) -> Result<Gmac3Mdio<'_, B, C>, Error> {
        let (cr, _) = regs::csr_clock_range(csr_hz).ok_or(Error::CsrClock)?;
        crate::common::take_master(&self.mdio_taken)?;
        Ok(Gmac3Mdio {
            mac: self,
            poller: Poller::new(clock).timeout_us(MDIO_TIMEOUT_US),
            cr,
            check_busy: true,
        })
    }
}
