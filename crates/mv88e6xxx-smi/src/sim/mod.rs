//! Behavioural switch model (feature `sim`, host only).
//!
//! [`SwitchModel`] is an [`MdioDevice`] for `mdio_bus::sim::SimMdio`: one or more
//! [`ChipModel`]s on a bus, each attached in direct, indirect (with the 6393X remap for
//! that family) or dual-chip mode. It is not a value store:
//!
//! - **SMI_CMD / SMI_DATA** at `sw_addr`: writing SMI_CMD with BUSY starts the frame; BUSY
//!   reads back set until a delay ([`BusyDelay`]) has passed in virtual time, or forever
//!   (stuck). A read's result reaches SMI_DATA only when BUSY clears (reading early gets
//!   the stale value).
//! - **Commands while BUSY (assumption)**: our sources do not say what the hardware does
//!   with a write to SMI_CMD or SMI_DATA while BUSY is set (Linux never does it). The model
//!   **drops** such writes and counts them ([`ChipModel::dropped_writes`]), so a driver
//!   that does not wait loses its access and a test can see it.
//! - **Global1**: G1_STS INIT_READY sets at a configurable time; G1_ATU_OP, G1_VTU_OP and
//!   G1_STATS_OP run with BUSY for a configurable delay (a new operation while BUSY is
//!   dropped and counted the same way).
//! - **Global2 SMI_PHY_CMD / SMI_PHY_DATA** (chips with [`PhyKind::Global2`]): clause 22
//!   frames to internal PHYs (any [`MdioDevice`], e.g. [`PhyModel`]), with their own BUSY
//!   delay; read data appears when BUSY clears. On the other chips these are plain
//!   registers: no BUSY, no frame (the chips reach their PHYs another way). Clause 45
//!   commands (MODE bit 12 clear) run one Clause 45 frame each on the attached devices
//!   (address, write, read, post-increment read; `chip_model/c45.rs`, for instance to a
//!   `mdio_bus::sim::C45Model` SERDES lane).
//! - **PHYs as switch devices** (chips with [`PhyKind::PpuGated`] or
//!   [`PhyKind::Direct`]): device addresses `phy_base .. phy_base + num_ports` are the
//!   PHYs' registers, in every attach mode (indirectly through SMI_CMD too).
//! - **PHY polling unit** ([`PhyKind::PpuGated`] chips): G1_CTL1 PPU_ENABLE (set at
//!   reset, [`ChipModel::with_ppu_enabled`]) runs the PPU; G1_STS \[15:14\] reports its
//!   state (11 polling, 10 disabled, 01 initializing), changing a configurable time after
//!   PPU_ENABLE changes ([`ChipModel::with_ppu_busy`]). While the PPU is not in the
//!   "disabled" state it owns the PHY bus: a host access to a PHY **collides**: a read
//!   returns 0xFFFF, a write is lost, and both are counted
//!   ([`ChipModel::ppu_collisions`]).
//! - **Ports**: the chip's port count ([`ChipFacts::num_ports`]), 32
//!   registers each, PORT_SWITCH_ID (reg 3) = product number | revision, read-only.
//! - **Address maps** from the model's own chip table ([`facts`]: Linux's
//!   `mv88e6xxx_table[]`, never the driver's), the 6250 family's dual-chip layout and the
//!   6393X remap (the model's own table of it).
//!
//! Model assumptions beyond our sources: what a collision with the PPU does (the sources
//! only say the host cannot access the PHYs while it runs) and how long a PPU state change
//! takes (20 µs by default); every register not described above reads back what was last
//! written, and addresses or registers that nothing answers read 0xFFFF (the bus idles
//! high).
//!
//!
//! | module | what it holds |
//! |---|---|
//! | this one | [`SwitchModel`], [`SwitchSim`], the bus and clocksource figures, [`BusyDelay`], [`Attach`] |
//! | `chip_model` | [`ChipModel`]: one chip's registers, busy bits and PHY polling unit |
//! | `seed` | (feature `unstable-baselines`) Linux's indirect-access polling from before its "Improve indirect addressing performance" patches, replayed on the model, and the seed-proof measurements; not part of the public API |
//! | `stats_linux` | (feature `unstable-baselines`) Linux's MIB statistics sequence replayed on the model, for the stats bench; not part of the public API |

use hwtimer_core::sim::{SimClock, SimCounter};
pub use mdio_bus::sim::PhyModel;
use mdio_bus::sim::{MdioDevice, SimMdio};
use mdio_bus::{PhyAddr, RegAddr};

#[cfg(doc)]
use facts::{ChipFacts, PhyKind};

mod chip_model;
pub mod facts;
pub use chip_model::{ChipModel, HiddenAccess, PhySpeed, RESET_NS};

// Linux's older indirect-access polling and the seed-proof measurements: for this crate's own
// benches and seed-proof tests only (feature `unstable-baselines`, no semver promise).
#[cfg(feature = "unstable-baselines")]
pub mod seed;
// Linux's MIB statistics sequence, for this crate's stats bench and tests (feature
// `unstable-baselines`, no semver promise).
#[cfg(feature = "unstable-baselines")]
pub mod stats_linux;

// Linux's ATU and VTU register sequences replayed on the model, for the switch_ops bench
// (feature `unstable-baselines`, no semver promise).
#[cfg(feature = "unstable-baselines")]
pub mod linux_switch;

/// MDC of the simulated bus: 2.5 MHz, the IEEE 802.3 maximum and the seed's bus.
pub const SIM_MDC_HZ: u32 = 2_500_000;
/// One clause 22 frame at [`SIM_MDC_HZ`]: 64 cycles × 400 ns = 25.6 µs
/// ([`mdio_bus::frame_ns`]).
pub const FRAME_NS: u64 = mdio_bus::frame_ns(SIM_MDC_HZ);
/// Rate of the simulated continuous clocksource the driver polls with.
pub const SIM_COUNTER_HZ: u32 = 25_000_000;
/// Virtual-time cost of one clocksource read (CPU overhead of the poll loop).
pub const SIM_COUNTER_READ_NS: u64 = 100;

/// How long a busy bit stays set after an operation starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusyDelay {
    delays_ns: Vec<u64>,
    next: usize,
    stuck: bool,
}

impl BusyDelay {
    /// Every operation is busy for `ns`.
    pub fn fixed(ns: u64) -> Self {
        Self::cycle(&[ns])
    }

    /// Operations take the delays of `pattern` in turn, cycling (an empty pattern means 0).
    pub fn cycle(pattern: &[u64]) -> Self {
        Self {
            delays_ns: pattern.to_vec(),
            next: 0,
            stuck: false,
        }
    }

    /// The busy bit never clears.
    pub fn stuck() -> Self {
        Self {
            delays_ns: Vec::new(),
            next: 0,
            stuck: true,
        }
    }

    /// The next operation's delay, `None` when stuck.
    pub(crate) fn take(&mut self) -> Option<u64> {
        if self.stuck {
            return None;
        }
        let d = self
            .delays_ns
            .get(self.next % self.delays_ns.len().max(1))
            .copied()
            .unwrap_or(0);
        self.next = self.next.wrapping_add(1);
        Some(d)
    }
}

/// A busy bit in virtual time, with the value to deliver when it clears.
#[derive(Debug, Clone, Default)]
pub(crate) struct BusyBit {
    /// `Some(until)`: busy until `until` ns; `Some(u64::MAX)`: stuck.
    pub(crate) until: Option<u64>,
    /// Data to land in the data register when the operation completes.
    pub(crate) pending: Option<u16>,
}

impl BusyBit {
    pub(crate) fn busy(&self, now: u64) -> bool {
        self.until.is_some_and(|u| now < u)
    }

    pub(crate) fn start(&mut self, now: u64, delay: &mut BusyDelay) {
        self.until = Some(match delay.take() {
            Some(d) => now.saturating_add(d),
            None => u64::MAX,
        });
    }

    /// If the operation has completed by `now`, the pending data (once).
    pub(crate) fn settle(&mut self, now: u64) -> Option<u16> {
        if self.until.is_some() && !self.busy(now) {
            self.until = None;
            return self.pending.take();
        }
        None
    }
}

/// How a [`ChipModel`] is wired to the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    /// Single-chip: answers at every address (no other device can share the bus).
    Direct,
    /// Multi-chip: answers only at `sw_addr` (SMI_CMD/SMI_DATA, plus the remapped
    /// registers for the 6393 family).
    Indirect(u8),
    /// Dual-chip (6250 family): answers at `sw_addr..sw_addr + 16`.
    DualChip(u8),
}

impl Attach {
    /// The driver's default [`Addressing`](crate::Addressing) for a chip wired this way, as
    /// [`Addressing::select`](crate::Addressing::select) picks it: the 6393X remap off
    /// (the model answers at the remapped registers all the same; opt in with
    /// [`Addressing::with_remap_6393x`](crate::Addressing::with_remap_6393x)). An address
    /// above 31 is masked to 5 bits.
    pub fn addressing(self, _chip: crate::Chip) -> crate::Addressing {
        match self {
            Attach::Direct => crate::Addressing::Direct,
            Attach::Indirect(a) => crate::Addressing::Indirect {
                sw_addr: PhyAddr::from_bits(a),
                remap_6393x: false,
            },
            Attach::DualChip(a) => crate::Addressing::DualChip {
                sw_addr: PhyAddr::from_bits(a),
            },
        }
    }
}

/// Switch chips on one MDIO bus; an [`MdioDevice`] for `SimMdio`.
#[derive(Debug, Default)]
pub struct SwitchModel {
    chips: Vec<ChipModel>,
}

impl SwitchModel {
    /// An empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a chip (the first chip answering an address wins).
    pub fn with_chip(mut self, chip: ChipModel) -> Self {
        self.chips.push(chip);
        self
    }

    /// Chip `i`.
    pub fn chip(&self, i: usize) -> Option<&ChipModel> {
        self.chips.get(i)
    }

    /// Chip `i`, mutably.
    pub fn chip_mut(&mut self, i: usize) -> Option<&mut ChipModel> {
        self.chips.get_mut(i)
    }
}

impl MdioDevice for SwitchModel {
    fn read(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        match self.chips.iter_mut().find(|c| c.answers(phy.get())) {
            Some(c) => c.frame_read(now_ns, phy.get(), reg.get()),
            None => 0xFFFF,
        }
    }

    fn write(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        if let Some(c) = self.chips.iter_mut().find(|c| c.answers(phy.get())) {
            c.frame_write(now_ns, phy.get(), reg.get(), value);
        }
    }
}

/// A simulated system: virtual clock, the driver's continuous clocksource
/// ([`SIM_COUNTER_HZ`], [`SIM_COUNTER_READ_NS`] per read) and a 2.5 MHz MDIO bus with a
/// [`SwitchModel`] on it.
#[derive(Debug)]
pub struct SwitchSim {
    /// Virtual time.
    pub clock: SimClock,
    /// The clocksource to give the driver (`&sim.counter`).
    pub counter: SimCounter,
    /// The MDIO bus (`&mut sim.bus`).
    pub bus: SimMdio<SwitchModel>,
}

impl SwitchSim {
    /// A system with `model` on a 2.5 MHz bus.
    pub fn new(model: SwitchModel) -> Self {
        let clock = SimClock::new();
        let counter =
            SimCounter::new(&clock, 32, SIM_COUNTER_HZ).with_read_cost(SIM_COUNTER_READ_NS);
        let bus = SimMdio::new(&clock, SIM_MDC_HZ, model);
        Self {
            clock,
            counter,
            bus,
        }
    }

    /// One chip attached as `attach`.
    pub fn single(chip: ChipModel) -> Self {
        Self::new(SwitchModel::new().with_chip(chip))
    }
}
