//! QoS 4.x/5.x: the MAC, MTL and DMA channel 0 ([`Qos`]), MDIO clause 22 and 45
//! ([`QosMdio`]), the register map ([`regs`]) and the mapping of DMA_CH0_STATUS to
//! [`DmaEvents`]. [`probe()`](fn@crate::probe) tells this core from a GMAC 3.x
//! ([`Gmac3`](crate::Gmac3)) before anything is written.
//!
//! The register map is [`regs`] and nothing else: a `Qos` cannot reach a
//! GMAC 3.x register, and a [`Gmac3`](crate::Gmac3) cannot reach a QoS one. Both drive the same
//! rings through [`Dwmac`]; a ring refuses to start on the MAC of the other layout.
//! `docs/qos.md` has the facts this follows, the bring-up compared with Linux,
//! embassy-stm32 and stm32h7xx-hal, and why each choice is the one here.
//!
//! # Bring-up
//!
//! ```
//! # use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
//! # use stmmac_coalesce::sim::{AnPhy, QosModel, SimArena, SIM_CSR_HZ};
//! use stmmac_coalesce::{
//!     CoalesceConfig, Coherent, DmaConfig, Duplex, Dwmac, FrameFilter, LinkState, MacConfig, NoTimer, Qos,
//!     RxConfig, RxRing, Speed, TxConfig, TxRing,
//! };
//! # let clock = SimClock::new();
//! # let counter = SimCounter::new(&clock, 32, 25_000_000);
//! # let arena = SimArena::new(0x1000_0000, 256 * 1024);
//! # let bus = SimBus::new(&clock, QosModel::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ));
//! let mac = Qos::probe(bus)?;              // MAC_VERSION read, nothing written
//! mac.soft_reset(&counter)?;               // DMA_MODE.SWR, bounded wait; MAC IRQs masked
//! let cfg = DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() };
//! let setup = mac.configure_dma(&cfg)?;    // HW_FEATURE0/1, DSL/PBL, EAME, the MTL queues
//! mac.init_mac(&MacConfig { address: [2, 0, 0, 0, 0, 1], filter: FrameFilter::default() });
//! // No cleanup timer here: every frame completes with an interrupt (tx_usecs 0).
//! let coalesce = CoalesceConfig { tx_usecs: 0, ..CoalesceConfig::default() };
//! let tx_cfg = TxConfig { coalesce, ..TxConfig::default() };
//! let rx_cfg = RxConfig::default();
//! let mut tx = TxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup, tx_cfg, NoTimer, Coherent)?;
//! let mut rx = RxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup, rx_cfg, Coherent)?;
//! tx.try_start(&mac)?;
//! rx.try_start(&mac)?;
//! mac.enable_default_interrupts();
//! mac.set_link(LinkState::up(Speed::M1000, Duplex::Full)); // TE/RE only while the link is up
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```

mod decode;
pub(crate) mod desc;
mod events;
mod features;
mod mdio;
pub mod regs;
mod ring_ops;

use decode::events_from_channel;
use decode::resolve_dma;
pub use mdio::QosMdio;

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use hwtimer_core::{Continuous, Poller, RegisterBus, RegisterBusExt};
use mdio_bus::{DevAddr, Mdio, Mdio45, PhyAddr, RegAddr};

use crate::common::Dwmac;
use crate::common::Error;
use crate::common::phy::{Duplex, LinkState, Speed};
use crate::common::{DmaEvents, MDIO_TIMEOUT_US, wait_stopped};
use crate::dma::{DmaConfig, DmaSetup};
use crate::qos::regs::{
    self as r, DMA_CH_CONTROL, DMA_CH_RX_CONTROL, DMA_CH_RX_WATCHDOG, DMA_CH_TX_CONTROL, DMA_MODE,
    DMA_SYSBUS_MODE, MAC_CONFIG, MAC_MDIO_ADDRESS, MAC_MDIO_DATA, MTL_RXQ_OP_MODE, MTL_TXQ_OP_MODE,
    chan,
};

/// The oldest QoS core this driver knows: SNPSVER 0x40 (4.00).
pub const SNPSVER_MIN: u8 = 0x40;
/// The newest core Linux names: SNPSVER 0x52 (5.20, `common.h` `DWMAC_CORE_5_20`). Later
/// ones are driven as 5.x too, as Linux's `stmmac_hwif_init` gives every id from 0x51 on
/// the 5.10 operations.
pub const SNPSVER_MAX: u8 = 0x52;
/// The first core with the 4.10 channel interrupt-enable layout (NIE bit 15, AIE bit 14;
/// 4.00 has them at 16 and 15).
pub const SNPSVER_4_10: u8 = 0x41;

/// A QoS MAC_VERSION: SNPSVER (bits 7:0) 0x40 or above, any later one included (Linux
/// `hwif.c` walks its table for the last entry with `synopsys_id >= min_id`, 0x51 the
/// highest, and refuses none). A word of all ones is no version: a bus with nothing
/// behind it, or a GMAC 3.x whose register at 0x110 (MMC_TX_INTR_MASK) was masked as
/// Linux and [`Dwmac::mask_mac_interrupts`] mask it.
fn is_qos_version(v: u32) -> bool {
    v != u32::MAX && v & 0xFF >= u32::from(SNPSVER_MIN)
}

/// MAC_Q0_TX_FLOW_CTRL.TFE (bit 1): transmit pause frames.
const TX_FLOW_TFE: u32 = 1 << 1;
/// MAC_Q0_TX_FLOW_CTRL.PT (bits 31:16): the pause time, in slot times.
const TX_FLOW_PT_SHIFT: u32 = 16;
/// MAC_RX_FLOW_CTRL.RFE (bit 0): act on received pause frames.
const RX_FLOW_RFE: u32 = 1 << 0;

/// The channel interrupts a driver of these rings wants (DMA_CH0_STATUS positions): TI, RI
/// (normal) and FBE (abnormal), Linux's `DMA_CHAN_INTR_DEFAULT_MASK` (dwmac4_dma.h) without
/// its summary bits. [`Qos::enable_interrupts`] adds the summary enables at the core's
/// positions; [`Dwmac::enable_default_interrupts`] enables these. Not TPS or RPS (every
/// stop raises them) nor RBU (the RX ring's refill writes the tail pointer itself, as
/// Linux's NAPI refill does).
pub const DEFAULT_INTERRUPTS: u32 = chan::TI | chan::RI | chan::FBE;

/// `Qos::irq_enabled` before DMA_CH0_INTR_ENA was written or read (bit 31 is no enable).
const IRQ_UNKNOWN: u32 = 1 << 31;
/// The DMA_CH0_INTR_ENA source enables that share their DMA_CH0_STATUS positions (bits
/// 13:6 and 2:0; the summaries are placed by version).
const IRQ_SOURCES: u32 = 0x3FC7;

/// A QoS 4.x/5.x on register bus `B` (covering 0x0000–0x11FF: MAC, MTL, DMA and
/// channel 0), built only by [`Qos::probe`] or [`probe()`](fn@crate::probe).
///
/// `Sync` when `B` is: every read-modify-write of a shared register (MAC_CONFIG, the
/// channel's TX/RX control) is one critical section, so the timer, the interrupt handler
/// and the link path cannot lose each other's bits. The MDIO master is single
/// ([`mdio`](crate::Dwmac::mdio)).
#[derive(Debug)]
pub struct Qos<B: RegisterBus<Word = u32>> {
    bus: B,
    version: u32,
    link: AtomicU32,
    mdio_taken: AtomicBool,
    /// The DMA_CH0_STATUS bits DMA_CH0_INTR_ENA enables, at their status positions (the
    /// summaries as NIS/AIS), as last written ([`IRQ_UNKNOWN`] until written or read).
    irq_enabled: AtomicU32,
    /// The bound of a wait for Stopped, in status reads
    /// ([`set_stop_polls`](crate::Dwmac::set_stop_polls)).
    stop_polls: AtomicU32,
}

impl<B: RegisterBus<Word = u32>> Qos<B> {
    fn with_version(bus: B, version: u32) -> Self {
        Self {
            bus,
            version,
            link: AtomicU32::new(0),
            mdio_taken: AtomicBool::new(false),
            irq_enabled: AtomicU32::new(IRQ_UNKNOWN),
            stop_polls: AtomicU32::new(crate::common::STOP_POLLS),
        }
    }

    /// The QoS core behind `bus` if MAC_VERSION holds a QoS version (one read, nothing
    /// written); otherwise `bus` back with the MAC_VERSION value read.
    pub(crate) fn detect(bus: B) -> Result<Self, (B, u32)> {
        let v = bus.read_raw(r::MAC_VERSION);
        if is_qos_version(v) {
            Ok(Self::with_version(bus, v))
        } else {
            Err((bus, v))
        }
    }

    /// MAC_VERSION.SNPSVER: 0x40 = 4.00, 0x41 = 4.10, 0x42 = 4.20, 0x51 = 5.10, 0x52 = 5.20.
    pub fn snpsver(&self) -> u8 {
        // Masked to 8 bits.
        (self.version & 0xFF) as u8
    }

    /// The register bus.
    ///
    /// # Safety
    /// Writes through it can point the DMA at any memory (the ring bases, the tail
    /// pointers, a started DMA over a stale base): the caller must not make the DMA access
    /// memory it does not own.
    pub unsafe fn bus(&self) -> &B {
        &self.bus
    }

    /// HW_FEATURE0..3 (0x11C–0x128).
    pub fn hw_features(&self) -> [u32; 4] {
        [
            self.bus.read_raw(r::MAC_HW_FEATURE0),
            self.bus.read_raw(r::MAC_HW_FEATURE1),
            self.bus.read_raw(r::MAC_HW_FEATURE2),
            self.bus.read_raw(r::MAC_HW_FEATURE3),
        ]
    }

    fn dma_running(&self) -> bool {
        self.bus
            .read(r::DMA_CH0_TX_CONTROL)
            .is_set(DMA_CH_TX_CONTROL::ST)
            || self
                .bus
                .read(r::DMA_CH0_RX_CONTROL)
                .is_set(DMA_CH_RX_CONTROL::SR)
    }

    /// The MTL for one queue per direction, sized from HW_FEATURE1 (`hw_feature1`):
    /// TX queue 0 enabled (TXQEN = 2), store and forward (TSF), its size (TQS) the whole
    /// TX FIFO; RX queue 0 store and forward (RSF), its size (RQS) the whole RX FIFO,
    /// mapped to DMA channel 0; and MAC_RXQ_CTRL0.RXQ0EN = 2, without which the MAC drops
    /// every received frame. [`configure_dma`](crate::Dwmac::configure_dma) calls it.
    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn configure_mtl(&self, hw_feature1: u32) {
        // FIFO sizes are 128 << field bytes; the queue sizes count 256-byte blocks, minus 1.
        let blocks = |field: u32| (128u32 << field.min(15)) / 256;
        let tx = blocks((hw_feature1 >> r::HWF1_TXFIFOSIZE_SHIFT) & 0x1F).saturating_sub(1);
        let rx = blocks(hw_feature1 & r::HWF1_RXFIFOSIZE_MASK).saturating_sub(1);
        self.bus.write(
            r::MTL_TXQ0_OP_MODE,
            MTL_TXQ_OP_MODE::TSF::SET
                + MTL_TXQ_OP_MODE::TXQEN.val(r::TXQEN_ENABLED)
                + MTL_TXQ_OP_MODE::TQS.val(tx),
        );
        self.bus.write(
            r::MTL_RXQ0_OP_MODE,
            MTL_RXQ_OP_MODE::RSF::SET + MTL_RXQ_OP_MODE::RQS.val(rx),
        );
        self.bus.write_raw(r::MTL_RXQ_DMA_MAP0, 0);
        critical_section::with(|_| {
            let q = self.bus.read_raw(r::MAC_RXQ_CTRL0) & !r::RXQ0EN_MASK;
            self.bus.write_raw(r::MAC_RXQ_CTRL0, q | r::RXQ0EN_DCB);
        });
    }

    /// MAC_PACKET_FILTER as programmed.
    pub fn filter_register(&self) -> u32 {
        self.bus.read_raw(r::MAC_PACKET_FILTER)
    }

    /// DMA_CH0_STATUS as it reads.
    pub fn channel_status(&self) -> u32 {
        self.bus.read_raw(r::DMA_CH0_STATUS)
    }
}

impl<B: RegisterBus<Word = u32>> Dwmac for Qos<B> {
    type Mdio<'a, C: Continuous + Copy>
        = QosMdio<'a, B, C>
    where
        Self: 'a;

    /// MAC_VERSION as read by the probe (SNPSVER in bits 7:0, USERVER in 15:8).
    fn version(&self) -> u32 {
        self.version
    }

    /// As [`soft_reset`](crate::Dwmac::soft_reset), waiting at most `timeout_us`.
    ///
    /// Errors: [`Error::Timeout`].
    fn soft_reset_within<C: Continuous + Copy>(
        &self,
        clock: C,
        timeout_us: u64,
    ) -> Result<u32, Error> {
        self.link.store(0, Ordering::Relaxed);
        // The reset clears DMA_CH0_INTR_ENA (reset value 0).
        self.write_irq_enables(0, || self.bus.write(r::DMA_MODE, DMA_MODE::SWR::SET));
        let polls = crate::common::wait_reset(
            clock,
            timeout_us,
            || self.bus.read(r::DMA_MODE),
            |v| !v.is_set(DMA_MODE::SWR),
        )?;
        self.mask_mac_interrupts();
        Ok(polls)
    }

    /// Mask the MAC's own interrupts (MAC_INT_EN = 0) and every MMC counter interrupt (the
    /// RX, TX and RX-IPC masks all ones), as Linux does at core init: an MMC counter past
    /// half range would otherwise hold the line. Four register writes.
    fn mask_mac_interrupts(&self) {
        self.bus.write_raw(r::MAC_INT_EN, 0);
        for m in [
            r::MMC_RX_INTR_MASK,
            r::MMC_TX_INTR_MASK,
            r::MMC_IPC_RX_INTR_MASK,
        ] {
            self.bus.write_raw(m, r::MMC_DEFAULT_MASK);
        }
    }

    /// Resolve `cfg` for this core (from HW_FEATURE0/1: the QoS layout, the address width
    /// from ADDR64, the checksum engines) and program it, with both DMA engines stopped
    /// (call after [`soft_reset`](crate::Dwmac::soft_reset)):
    ///
    /// - DMA_SYS_BUS_MODE.EAME when the DMA addresses more than 32 bits (without it the
    ///   DMA drops the high address bits);
    /// - DMA_CH0_CONTROL (DSL, PBL×8 off), TXPBL and RXPBL;
    /// - the MTL ([`configure_mtl`](Qos::configure_mtl)).
    ///
    /// A ring built for another set-up refuses to start ([`Error::GeometryMismatch`]).
    ///
    /// Errors: [`ConfigError::NoHwFeature`] when HW_FEATURE0 or 1 reads 0 or all ones;
    /// [`ConfigError::LayoutMismatch`] when `cfg.layout` names a GMAC 3.x layout;
    /// [`ConfigError::AddressWidth`] for the reserved ADDR64 value 3; the geometry errors
    /// of [`DmaConfig::resolve_assuming_layout`], with DSL limited to DMA_CH0_CONTROL's 3
    /// bits (each in [`Error::Config`]); [`Error::DmaRunning`] while a DMA engine runs
    /// (nothing is written then).
    ///
    /// [`ConfigError::NoHwFeature`]: crate::ConfigError::NoHwFeature
    /// [`ConfigError::LayoutMismatch`]: crate::ConfigError::LayoutMismatch
    /// [`ConfigError::AddressWidth`]: crate::ConfigError::AddressWidth
    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    fn configure_dma(&self, cfg: &DmaConfig) -> Result<DmaSetup, Error> {
        let [h0, h1, _, _] = self.hw_features();
        let setup = resolve_dma(cfg, h0, h1)?;
        critical_section::with(|_| {
            if self.dma_running() {
                return Err(Error::DmaRunning);
            }
            let sys = self.bus.read(r::DMA_SYSBUS_MODE).get();
            let eame = DMA_SYSBUS_MODE::EAME::SET.value;
            let sys = if setup.addr_bits() > 32 {
                sys | eame
            } else {
                sys & !eame
            };
            self.bus.write_raw(r::DMA_SYSBUS_MODE, sys);
            self.bus.write(
                r::DMA_CH0_CONTROL,
                DMA_CH_CONTROL::DSL.val(u32::from(setup.dsl())) + DMA_CH_CONTROL::PBLX8::CLEAR,
            );
            let pbl = u32::from(setup.pbl());
            self.bus
                .write(r::DMA_CH0_TX_CONTROL, DMA_CH_TX_CONTROL::TXPBL.val(pbl));
            self.bus
                .write(r::DMA_CH0_RX_CONTROL, DMA_CH_RX_CONTROL::RXPBL.val(pbl));
            Ok(())
        })?;
        self.configure_mtl(h1);
        Ok(setup)
    }

    /// Program MAC address 0: MAC_ADDR0_HIGH (bytes 4–5, AE) first, then MAC_ADDR0_LOW
    /// (bytes 0–3), whose write the core latches the pair on.
    fn set_mac_address(&self, mac: [u8; 6]) {
        let [a0, a1, a2, a3, a4, a5] = mac;
        self.bus.write_raw(
            r::MAC_ADDR0_HIGH,
            r::MAC_ADDR_AE | u32::from(u16::from_le_bytes([a4, a5])),
        );
        self.bus
            .write_raw(r::MAC_ADDR0_LOW, u32::from_le_bytes([a0, a1, a2, a3]));
    }

    /// MAC address 0 as programmed.
    fn mac_address(&self) -> [u8; 6] {
        let lo = self.bus.read_raw(r::MAC_ADDR0_LOW).to_le_bytes();
        let hi = self.bus.read_raw(r::MAC_ADDR0_HIGH).to_le_bytes();
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// Program the hash table at the size HW_FEATURE1.HASHTBLSZ announces (64, 128 or
    /// 256 bins over 2, 4 or 8 MAC_HASH_TABLE_REG registers), then MAC_PACKET_FILTER (PR,
    /// PM, DBF, HMC: the 3.x bit positions).
    fn set_filter(&self, filter: &crate::FrameFilter) {
        self.program_filter(filter);
    }

    /// Configure MAC_CONFIG for `link`: PS/FES (GMII for 1000, MII with FES for 100, MII
    /// for 10), DM for full duplex, and TE and RE only while the link is up. Returns
    /// whether the state changed.
    fn set_link(&self, link: LinkState) -> bool {
        let (ps, fes) = match link.speed {
            Speed::M1000 => (false, false),
            Speed::M100 => (true, true),
            Speed::M10 => (true, false),
        };
        let bit = |f: tock_registers::fields::Field<u32, MAC_CONFIG::Register>| f.mask << f.shift;
        critical_section::with(|_| {
            let old = self.link.load(Ordering::Relaxed);
            let new = crate::common::encode_link(link);
            self.link.store(new, Ordering::Relaxed);
            let mut w = self.bus.read_raw(r::MAC_CONFIG);
            for (b, on) in [
                (bit(MAC_CONFIG::PS), ps),
                (bit(MAC_CONFIG::FES), fes),
                (bit(MAC_CONFIG::DM), link.duplex == Duplex::Full),
                (bit(MAC_CONFIG::TE), link.up),
                (bit(MAC_CONFIG::RE), link.up),
            ] {
                w = if on { w | b } else { w & !b };
            }
            self.bus.write_raw(r::MAC_CONFIG, w);
            old != new
        })
    }

    /// The link state last given to [`set_link`](crate::Dwmac::set_link).
    fn link(&self) -> LinkState {
        crate::common::decode_link(self.link.load(Ordering::Relaxed))
    }

    /// Pause frames for `pause` ([`Phy::pause`](crate::common::phy::Phy::pause)), as Linux's
    /// dwmac4 programs them: in full duplex MAC_Q0_TX_FLOW_CTRL.TFE with the pause time
    /// 0xFFFF slot times for transmit pause, MAC_RX_FLOW_CTRL.RFE for receive pause; in half
    /// duplex both 0 (no backpressure). With transmit pause the RX queue's hardware flow
    /// control (MTL_RXQ0_OPERATION_MODE EHFC, RFA, RFD) is set as Linux sets it for the
    /// queue's size, so a filling RX queue sends PAUSE frames (none below a 4 KiB queue,
    /// as in Linux); without it EHFC is cleared.
    fn set_flow_control(&self, pause: crate::common::phy::Pause, duplex: Duplex) {
        let full = duplex == Duplex::Full;
        let tx = if full && pause.tx {
            TX_FLOW_TFE | (0xFFFF << TX_FLOW_PT_SHIFT)
        } else {
            0
        };
        let rx = if full && pause.rx { RX_FLOW_RFE } else { 0 };
        self.program_flow(tx != 0);
        self.bus.write_raw(r::MAC_Q0_TX_FLOW_CTRL, tx);
        self.bus.write_raw(r::MAC_RX_FLOW_CTRL, rx);
    }

    /// Stop both DMA engines (ST, SR), wait until DMA_DEBUG_STATUS0 reads TPS0 and RPS0
    /// Stopped, acknowledge TPS and RPS, then disable the MAC (TE, RE); the link state is
    /// down (see [`Dwmac::stop`](crate::Dwmac::stop)). The MAC goes off after the DMA, as
    /// U-Boot's `eqos_stop` clears TE/RE only once the TX queue has drained, so a frame the
    /// TX DMA is closing still leaves.
    ///
    /// Errors: [`Error::Timeout`] (TE and RE are cleared all the same).
    fn stop(&self) -> Result<(), Error> {
        let was_on = critical_section::with(|_| {
            self.link.store(0, Ordering::Relaxed);
            let tx = self.clear_tx_control(DMA_CH_TX_CONTROL::ST::SET.value);
            let rx = self.clear_rx_control(DMA_CH_RX_CONTROL::SR::SET.value);
            tx || rx
        });
        let ps =
            (r::DEBUG_PS_MASK << r::DEBUG_TPS0_SHIFT) | (r::DEBUG_PS_MASK << r::DEBUG_RPS0_SHIFT);
        let polls = wait_stopped(
            || self.bus.read_raw(r::DMA_DEBUG_STATUS0),
            |v| v & ps == 0,
            self.stop_polls.load(Ordering::Relaxed),
        );
        if let Ok(polls) = polls
            && (was_on || polls > 1)
        {
            self.bus.write_raw(r::DMA_CH0_STATUS, chan::TPS | chan::RPS);
        }
        critical_section::with(|_| {
            let c = self.bus.read_raw(r::MAC_CONFIG);
            let te_re = MAC_CONFIG::TE::SET.value | MAC_CONFIG::RE::SET.value;
            self.bus.write_raw(r::MAC_CONFIG, c & !te_re);
        });
        polls.map(|_| ())
    }

    fn set_stop_polls(&self, polls: u32) {
        self.stop_polls.store(polls.max(1), Ordering::Relaxed);
    }

    /// Read DMA_CH0_STATUS, acknowledge the bits it shows that DMA_CH0_INTR_ENA enables
    /// (write-1-to-clear; NIS with NIE, AIS with AIE; nothing it did not show) and return
    /// them as [`DmaEvents`]. Bits of sources not enabled stay latched, unreported, as
    /// Linux's `dwmac4_dma_interrupt` leaves them (it writes back `intr_status & intr_en`).
    /// One read, and one write only when something enabled was set (plus one read of
    /// DMA_CH0_INTR_ENA, once, if this MAC never wrote it).
    fn take_events(&self) -> DmaEvents {
        let st = self.bus.read_raw(r::DMA_CH0_STATUS) & chan::W1C & self.irq_enabled();
        if st == 0 {
            return DmaEvents::NONE;
        }
        self.bus.write_raw(r::DMA_CH0_STATUS, st);
        events_from_channel(st)
    }

    /// DMA_CH0_INTR_ENA = [`DEFAULT_INTERRUPTS`], through
    /// [`enable_interrupts`](Qos::enable_interrupts).
    fn enable_default_interrupts(&self) {
        self.enable_interrupts(DEFAULT_INTERRUPTS);
    }

    /// The RX interrupt watchdog (DMA_CH0_RX_WATCHDOG.RWT, 0 = off), in units of 256 CSR
    /// cycles: RWTU (4.20 and later) is written 0, its 256-cycle unit, so the value means
    /// the same on every core (and the 3.x one).
    fn set_riwt(&self, riwt: u8) {
        self.bus.write(
            r::DMA_CH0_RX_WATCHDOG,
            DMA_CH_RX_WATCHDOG::RWT.val(u32::from(riwt)),
        );
    }

    /// RX checksum checking (MAC_CONFIG.IPC) on or off; whether it is on afterwards (read
    /// back: a core without the engine answers `false`).
    fn set_rx_checksum(&self, on: bool) -> bool {
        let ipc = MAC_CONFIG::IPC::SET.value;
        critical_section::with(|_| {
            let w = self.bus.read_raw(r::MAC_CONFIG);
            let v = if on { w | ipc } else { w & !ipc };
            if v != w {
                self.bus.write_raw(r::MAC_CONFIG, v);
            }
            self.bus.read_raw(r::MAC_CONFIG) & ipc != 0
        })
    }

    /// The MTL RX queue and DMA channel missed-frame counters and, with the MMC, its frame
    /// counters (see [`HwStats`](crate::HwStats)).
    fn hw_stats(&self, acc: &mut crate::common::HwStats) {
        self.read_stats(acc);
    }

    /// The MDIO master, bounded on `clock`, for a CSR clock of `csr_hz` (selects
    /// MAC_MDIO_ADDRESS.CR: the 3.x codes up to 300 MHz, and 6 and 7 for 300–500 and
    /// 500–800 MHz, [`csr_clock_range_qos`](crate::common::csr_clock_range_qos)). At most
    /// one is alive at a time.
    ///
    /// Errors: [`Error::CsrClock`] when `csr_hz` is outside 20–800 MHz;
    /// [`Error::MdioBusy`] while another master of this MAC is alive.
    fn mdio<C: Continuous + Copy>(
        &self,
        clock: C,
        csr_hz: u32,
    ) -> Result<QosMdio<'_, B, C>, Error> {
        let (cr, _) = crate::common::csr_clock_range_qos(csr_hz).ok_or(Error::CsrClock)?;
        crate::common::take_master(&self.mdio_taken)?;
        Ok(QosMdio {
            mac: self,
            poller: Poller::new(clock).timeout_us(MDIO_TIMEOUT_US),
            cr,
            check_busy: true,
        })
    }
}
