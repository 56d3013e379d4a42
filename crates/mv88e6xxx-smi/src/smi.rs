//! Switch register access over MDIO ([`Switch`]), its bounded busy waits, Global1 operations
//! and internal PHY access ([`InternalMdio`]).

use hwtimer_core::poll::{PollError, Poller};
use hwtimer_core::{Continuous, Stopwatch};
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::{AddressMap, Chip, ChipId, Family, PhyAccess, SmiMode, identify};
use crate::error::{BusyTimeout, BusyWait, ConfigError, Error};
use crate::regs::{
    self, BUSY, C22Op, INIT_READY, PORT_SWITCH_ID, PPU_ENABLE, PPU_STATE_ACTIVE,
    PPU_STATE_DISABLED, PPU_STATE_MASK, PPU_STATE_POLLING, SMI_CMD, SMI_DATA, g1, g2, smi_cmd,
    smi_phy_cmd,
};

/// Default deadline of every busy wait: 50 ms, as Linux since seed 004.
pub const DEFAULT_TIMEOUT_NS: u64 = 50_000_000;

/// How long the PHY polling unit of a [`PhyAccess::PpuGated`] chip stays stopped after the
/// last PHY access of a run: 10 ms, Linux's `mv88e6xxx_phy_ppu_access_put` timer
/// (docs/mv88e6xxx.md#ppu-hold). See [`Switch::service`].
pub const PPU_HOLD_NS: u64 = 10_000_000;

/// The shortest one poll of a busy wait can be: one Clause 22 frame (64 MDC cycles) at
/// 25 MHz, 2.56 µs, well above the IEEE 802.3 maximum of 2.5 MHz (25.6 µs) that most
/// buses run at. [`Config`] derives its poll-count backstop from it.
pub const MIN_FRAME_NS: u64 = 2_560;

/// The poll-count backstop for a deadline of `timeout_ns`: the most reads a wait can make
/// before a working clocksource reaches the deadline (each read is at least one frame of
/// [`MIN_FRAME_NS`]), plus the first read, the read after the deadline and one spare.
const fn derived_max_polls(timeout_ns: u64) -> u32 {
    let reads = timeout_ns / MIN_FRAME_NS;
    let reads = if reads > u32::MAX as u64 {
        u32::MAX
    } else {
        reads as u32
    };
    reads.saturating_add(3)
}

/// How the switch is reached on its MDIO bus (docs/mv88e6xxx.md#addressing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Addressing {
    /// Single-chip mode (`sw_addr` = 0): every device inside the switch is a PHY address
    /// of the bus; one frame per register access. The switch owns the whole bus.
    Direct,
    /// Multi-chip mode: only `sw_addr` answers, through SMI_CMD (reg 0) and SMI_DATA
    /// (reg 1). A read is CMD write, BUSY poll, DATA read; a write is DATA write, CMD
    /// write, BUSY poll: 3 frames when BUSY is clear on the first poll.
    Indirect {
        /// The switch's address, 1..=31.
        sw_addr: PhyAddr,
        /// 6393 family: hot Global1/Global2 registers are read and written directly at
        /// `sw_addr` (docs/mv88e6xxx.md#6393x-remap): 1 frame instead of 3.
        remap_6393x: bool,
    },
    /// Dual-chip mode (6250 family): device `dev` (0..=15) is PHY address `sw_addr + dev`.
    DualChip {
        /// 0 or 16 (the ADDR4 strap).
        sw_addr: PhyAddr,
    },
}

impl Addressing {
    /// Linux's selection order (docs/mv88e6xxx.md#addressing): a dual-chip family is dual-chip at
    /// `sw_addr` (0 or 16); otherwise `sw_addr` 0 is direct; otherwise indirect, with the
    /// remap for the 6393 family.
    ///
    /// Errors: [`ConfigError::SwitchAddress`] for any other `sw_addr` (above 31, or a
    /// dual-chip `sw_addr` other than 0 / 16).
    pub fn select(family: Family, sw_addr: u8) -> Result<Self, ConfigError> {
        let addr = PhyAddr::new(sw_addr).ok_or(ConfigError::SwitchAddress { sw_addr })?;
        let a = match family.address_map().mode {
            SmiMode::DualChip => Addressing::DualChip { sw_addr: addr },
            SmiMode::MultiChip if sw_addr == 0 => Addressing::Direct,
            SmiMode::MultiChip => Addressing::Indirect {
                sw_addr: addr,
                remap_6393x: family.has_6393x_remap(),
            },
        };
        a.check(family)?;
        Ok(a)
    }

    /// Whether this addressing can reach a switch of `family` (the causes are listed at
    /// [`Switch::new`]).
    fn check(self, family: Family) -> Result<(), ConfigError> {
        let dual = family.address_map().mode == SmiMode::DualChip;
        match self {
            Addressing::Direct | Addressing::Indirect { .. } if dual => {
                Err(ConfigError::AddressingMode { family })
            }
            Addressing::DualChip { .. } if !dual => Err(ConfigError::AddressingMode { family }),
            Addressing::Indirect { sw_addr, .. } if sw_addr.get() == 0 => {
                Err(ConfigError::SwitchAddress { sw_addr: 0 })
            }
            Addressing::Indirect {
                remap_6393x: true, ..
            } if !family.has_6393x_remap() => Err(ConfigError::Remap6393x { family }),
            Addressing::DualChip { sw_addr } if !matches!(sw_addr.get(), 0 | 16) => {
                Err(ConfigError::SwitchAddress {
                    sw_addr: sw_addr.get(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// Driver configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// Deadline of every busy wait, in nanoseconds of the clocksource (default 50 ms).
    /// Whatever the value, a wait reads at least twice and once more after the deadline.
    pub timeout_ns: u64,
    /// Poll-count backstop of every busy wait (hwtimer-core's `Poller::max_polls`): a
    /// wait ends after this many reads even when the clocksource never advances (a
    /// stopped counter), with [`Bound::PollLimit`](crate::error::Bound::PollLimit) in
    /// its [`BusyTimeout`]. Default, and reset by
    /// [`with_timeout_ns`](Self::with_timeout_ns): `timeout_ns / MIN_FRAME_NS + 3`
    /// (19 534 for 50 ms), more reads than fit before the deadline on any MDIO bus, so
    /// with a working clock the deadline always ends a wait first. It does not depend on
    /// anything the clock reports.
    pub max_polls: u32,
}

impl Config {
    /// The default: 50 ms per wait, backstop 19 534 reads.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            timeout_ns: DEFAULT_TIMEOUT_NS,
            max_polls: derived_max_polls(DEFAULT_TIMEOUT_NS),
        }
    }

    /// Set the busy-wait deadline (and the backstop derived from it; set a backstop of
    /// your own afterwards with [`with_max_polls`](Self::with_max_polls)).
    #[must_use]
    pub const fn with_timeout_ns(mut self, ns: u64) -> Self {
        self.timeout_ns = ns;
        self.max_polls = derived_max_polls(ns);
        self
    }

    /// Set the poll-count backstop (values below 2 act as 2).
    #[must_use]
    pub const fn with_max_polls(mut self, polls: u32) -> Self {
        self.max_polls = polls;
        self
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

/// A Global1 operation register with a BUSY bit (docs/mv88e6xxx.md#global1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum G1Op {
    /// G1_ATU_OP (0x0B).
    Atu,
    /// G1_VTU_OP (0x05).
    Vtu,
    /// G1_STATS_OP (0x1D).
    Stats,
}

impl G1Op {
    /// The Global1 register.
    pub const fn reg(self) -> u8 {
        match self {
            G1Op::Atu => g1::ATU_OP,
            G1Op::Vtu => g1::VTU_OP,
            G1Op::Stats => g1::STATS_OP,
        }
    }

    const fn wait(self) -> BusyWait {
        match self {
            G1Op::Atu => BusyWait::AtuOp,
            G1Op::Vtu => BusyWait::VtuOp,
            G1Op::Stats => BusyWait::StatsOp,
        }
    }

    const fn ready_bit(self) -> u8 {
        match self {
            G1Op::Atu => READY_ATU,
            G1Op::Vtu => READY_VTU,
            G1Op::Stats => READY_STATS,
        }
    }
}

// "Known clear" flags: the busy bit was seen clear at the end of our own last operation, so
// the next one need not poll it first (seed 004, patch 2). Cleared by any failure, and by
// a caller's raw write that starts an operation.
const READY_SMI: u8 = 1 << 0;
const READY_ATU: u8 = 1 << 1;
const READY_VTU: u8 = 1 << 2;
const READY_STATS: u8 = 1 << 3;
const READY_PHY: u8 = 1 << 4;

/// One mv88e6xxx switch on an MDIO bus `M`, with busy waits bounded on the continuous
/// clocksource `C`.
///
/// # Busy-wait contract
/// Every wait on a hardware busy bit goes through hwtimer-core's
/// [`Poller`]: back-to-back reads (no sleeps), a deadline of
/// [`Config::timeout_ns`] (50 ms by default) measured on `C`, at least two reads, one
/// more read after the deadline, and [`Error::Timeout`] carrying the last value read.
/// A frame error ends the wait at once with [`Error::Mdio`].
///
/// # Busy bit checked once (seed 004, patch 2)
/// Every operation waits for its own busy bit to clear before returning, so the next one
/// finds it clear. The bit is therefore polled *before* an operation only the first time
/// (for SMI_CMD: in [`new`](Self::new)) and after a failure. An indirect access costs 3
/// frames instead of 4.
///
/// # Never a write into a busy unit
/// A write to a register that belongs to a unit with a BUSY bit (Global1 ATU_OP, VTU_OP,
/// STATS_OP; Global2 SMI_PHY_CMD / SMI_PHY_DATA on chips with Global2 PHY access) waits,
/// bounded, for that unit's BUSY to be clear first, whichever method makes it: the
/// operations of this type, or a caller's raw [`write`](Self::write) /
/// [`g1_write`](Self::g1_write) / [`g2_write`](Self::g2_write). A raw write that starts an
/// operation (BUSY set in the value) leaves the unit's state unknown, so the next access
/// to it polls first.
///
/// # PHY polling unit held across a run of PHY accesses
/// On [`PhyAccess::PpuGated`] chips a PHY access leaves the PPU stopped for
/// [`PPU_HOLD_NS`]; the firmware calls [`service`](Self::service) (or
/// [`ppu_release`](Self::ppu_release)) afterwards, as explained there. A raw write to
/// G1_CTL1 ([`write`](Self::write) / [`g1_write`](Self::g1_write)) ends the hold without
/// restarting the PPU: the value written decides PPU_ENABLE. Any access made after the
/// deadline restarts the PPU first, so it can fail with the restart's
/// [`BusyWait::PpuPolling`] timeout; the hold is over then.
///
/// # Ports and PHYs
/// Port numbers are checked against the chip's table entry ([`Chip::info`]): a port the
/// chip does not have (whose device address would be another block's, up to Global1 or
/// Global2) or does not route is [`ConfigError::Port`], before any frame. PHY addresses
/// are checked against the chip's PHY bus (`phy_base .. phy_base + num_ports`), and PHYs
/// are reached the way the chip needs ([`PhyAccess`]).
///
/// The bus is owned; pass `&mut bus` to keep it (`&mut M` is an [`Mdio`] too), or get it
/// back with [`release`](Self::release).
#[derive(Debug)]
pub struct Switch<M: Mdio, C: Continuous + Copy> {
    bus: M,
    poller: Poller<C>,
    addressing: Addressing,
    family: Family,
    map: AddressMap,
    /// `None` only inside [`probe`](Self::probe), before identification.
    chip: Option<Chip>,
    ready: u8,
    frames: u64,
    /// The clocksource, for the PPU hold's deadline.
    clock: C,
    /// PPU-gated chips: the PPU is stopped by this driver and held (see [`Switch::service`]).
    ppu_hold: Option<PpuHold<C>>,
    /// [`PPU_HOLD_NS`] in ticks of `clock`.
    ppu_hold_ticks: u64,
    /// Whether PHY accesses hold the PPU (default) or restart it after each access.
    ppu_hold_enabled: bool,
    /// Data registers of the switch units whose value this driver wrote last (atu.rs,
    /// vtu.rs); cleared by any raw Global1 write or operation.
    pub(crate) shadow: UnitShadow,
}

/// The PHY polling unit stopped by this driver, to be restarted [`PPU_HOLD_NS`] after the
/// last PHY access.
#[derive(Debug)]
struct PpuHold<C: Continuous> {
    /// Started at the end of the last PHY access.
    since: Stopwatch<C>,
    /// G1_CTL1 as it was before the PPU was stopped (PPU_ENABLE set): written back to
    /// restart it.
    ctl1: u16,
}

/// A unit with a BUSY bit, as far as raw writes are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    G1(G1Op),
    Phy,
}

impl Unit {
    const fn ready_bit(self) -> u8 {
        match self {
            Unit::G1(op) => op.ready_bit(),
            Unit::Phy => READY_PHY,
        }
    }
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Attach to a known `chip` reached with `addressing` (use [`probe`](Self::probe) to
    /// identify it instead). In indirect mode this waits (bounded) for SMI_CMD BUSY to be
    /// clear, once; the other modes touch no register.
    ///
    /// Errors: [`Error::Config`] if `addressing` does not fit the chip's family:
    /// [`ConfigError::AddressingMode`] (direct or indirect for the dual-chip family,
    /// dual-chip for a multi-chip one), [`ConfigError::SwitchAddress`] (indirect at 0,
    /// dual-chip other than 0 / 16), [`ConfigError::Remap6393x`] (the remap on a family
    /// without it); the wait's [`Error::Timeout`] / [`Error::Mdio`].
    pub fn new(
        bus: M,
        clock: C,
        addressing: Addressing,
        chip: Chip,
        config: Config,
    ) -> Result<Self, Error<M::Error>> {
        Self::attach(bus, clock, addressing, chip.family(), Some(chip), config)
    }

    fn attach(
        bus: M,
        clock: C,
        addressing: Addressing,
        family: Family,
        chip: Option<Chip>,
        config: Config,
    ) -> Result<Self, Error<M::Error>> {
        addressing.check(family)?;
        let mut smi = Self {
            bus,
            poller: Poller::new(clock)
                .timeout_ns(config.timeout_ns)
                .max_polls(config.max_polls),
            addressing,
            family,
            map: family.address_map(),
            chip,
            ready: 0,
            frames: 0,
            clock,
            ppu_hold: None,
            ppu_hold_ticks: Poller::new(clock).timeout_ns(PPU_HOLD_NS).timeout_ticks(),
            ppu_hold_enabled: true,
            shadow: UnitShadow::EMPTY,
        };
        smi.ensure_smi_ready()?;
        Ok(smi)
    }

    /// Probe like Linux: attach with the addressing [`Addressing::select`] picks for the
    /// `hint` family (from the device tree compatible) and `sw_addr`, read PORT_SWITCH_ID
    /// at the hint's `port_base`, and re-attach with the detected chip's family (for
    /// example enabling the 6393X remap). The identified chip must use the same SMI mode
    /// as the hint.
    ///
    /// Errors: as [`new`](Self::new) and [`identify`](Self::identify);
    /// [`ConfigError::SwitchAddress`] for a `sw_addr` [`Addressing::select`] refuses;
    /// [`ConfigError::HintMismatch`] when the chip's family cannot be reached the way the
    /// hint's is (dual-chip vs multi-chip).
    pub fn probe(
        bus: M,
        clock: C,
        sw_addr: u8,
        hint: Family,
        config: Config,
    ) -> Result<(Self, ChipId), Error<M::Error>> {
        let addressing = Addressing::select(hint, sw_addr)?;
        let mut smi = Self::attach(bus, clock, addressing, hint, None, config)?;
        let id = smi.identify()?;
        let family = id.chip.family();
        if family != hint {
            if family.address_map().mode != hint.address_map().mode {
                return Err(ConfigError::HintMismatch { chip: id.chip }.into());
            }
            let addressing = Addressing::select(family, sw_addr)?;
            smi.addressing = addressing;
            smi.family = family;
            smi.map = family.address_map();
        }
        smi.chip = Some(id.chip);
        Ok((smi, id))
    }

    /// Read PORT_SWITCH_ID (port 0, register 3, at `port_base`) and look it up.
    ///
    /// Errors: [`Error::UnknownSwitchId`] for a product number outside the table; access
    /// errors as [`read`](Self::read).
    pub fn identify(&mut self) -> Result<ChipId, Error<M::Error>> {
        let raw = self.port_read(0, PORT_SWITCH_ID)?;
        identify(raw).ok_or(Error::UnknownSwitchId { raw })
    }

    /// The addressing in use.
    pub fn addressing(&self) -> Addressing {
        self.addressing
    }

    /// The family in use.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The chip (given to [`new`](Self::new) or identified by [`probe`](Self::probe)).
    pub fn chip(&self) -> Option<Chip> {
        self.chip
    }

    /// The family's address map.
    pub fn address_map(&self) -> AddressMap {
        self.map
    }

    /// MDIO frames issued so far (each [`Mdio`] call counts one, failed or not).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Give the bus back.
    pub fn release(self) -> M {
        self.bus
    }

    // ---- raw frames ----------------------------------------------------------------

    fn raw_read(&mut self, phy: PhyAddr, reg: u8) -> Result<u16, Error<M::Error>> {
        self.frames = self.frames.saturating_add(1);
        self.bus
            .read(phy, RegAddr::from_bits(reg))
            .map_err(Error::Mdio)
    }

    fn raw_write(&mut self, phy: PhyAddr, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        self.frames = self.frames.saturating_add(1);
        self.bus
            .write(phy, RegAddr::from_bits(reg), value)
            .map_err(Error::Mdio)
    }

    // ---- SMI_CMD busy handling -------------------------------------------------------

    /// Poll SMI_CMD BUSY at `sw_addr` until clear (single frames, no indirection).
    fn smi_wait(&mut self, sw_addr: PhyAddr) -> Result<(), Error<M::Error>> {
        let poller = self.poller;
        let r = poller.try_poll(|| self.raw_read(sw_addr, SMI_CMD), |v| v & BUSY == 0);
        finish(r, BusyWait::SmiCmd).map(|_| ())
    }

    fn ensure_smi_ready(&mut self) -> Result<(), Error<M::Error>> {
        if let Addressing::Indirect { sw_addr, .. } = self.addressing
            && self.ready & READY_SMI == 0
        {
            self.smi_wait(sw_addr)?;
            self.ready |= READY_SMI;
        }
        Ok(())
    }

    /// The direct PHY address and register for `dev`/`reg`, if this access needs no
    /// SMI_CMD indirection.
    fn route(&self, dev: u8, reg: u8) -> Result<Option<(PhyAddr, u8)>, Error<M::Error>> {
        match self.addressing {
            Addressing::Direct => Ok(Some((PhyAddr::from_bits(dev), reg))),
            Addressing::DualChip { sw_addr } => {
                let a = sw_addr.get().saturating_add(dev);
                if dev >= 16 || a > 31 {
                    return Err(ConfigError::Device { dev }.into());
                }
                Ok(Some((PhyAddr::from_bits(a), reg)))
            }
            Addressing::Indirect {
                sw_addr,
                remap_6393x,
            } => {
                if remap_6393x {
                    let mapped = if dev == self.map.global1 {
                        regs::remap_6393x_g1(reg)
                    } else if dev == self.map.global2 {
                        regs::remap_6393x_g2(reg)
                    } else {
                        None
                    };
                    if let Some(r) = mapped {
                        return Ok(Some((sw_addr, r)));
                    }
                }
                Ok(None)
            }
        }
    }

    fn sw_addr(&self) -> PhyAddr {
        match self.addressing {
            Addressing::Indirect { sw_addr, .. } | Addressing::DualChip { sw_addr } => sw_addr,
            Addressing::Direct => PhyAddr::from_bits(0),
        }
    }

    // ---- register access -------------------------------------------------------------

    /// Read register `reg` of device `dev` inside the switch (a port, a global block, or
    /// in direct mode a PHY).
    ///
    /// Frames: direct, dual-chip and remapped: 1. Indirect: SMI_CMD write, SMI_CMD BUSY
    /// poll (1 frame when clear at once), SMI_DATA read: 3.
    ///
    /// On a [`PhyAccess::PpuGated`] chip a device address that is a PHY's (`phy_base ..
    /// phy_base + num_ports`) is read with the PHY polling unit stopped, as
    /// [`phy_read`](Self::phy_read) does.
    ///
    /// Errors: [`Error::Mdio`], [`Error::Timeout`] (SMI_CMD BUSY stuck, or the PPU not
    /// stopping), [`ConfigError::Device`] (dual-chip, `dev` ≥ 16).
    pub fn read(&mut self, dev: PhyAddr, reg: RegAddr) -> Result<u16, Error<M::Error>> {
        let (dev, reg) = (dev.get(), reg.get());
        if self.is_ppu_phy(dev) {
            return self.with_ppu_paused(|s| s.dev_read(dev, reg));
        }
        self.dev_read(dev, reg)
    }

    /// Whether device `dev` is a PHY on the bus the PPU of a PPU-gated chip owns.
    fn is_ppu_phy(&self, dev: u8) -> bool {
        let Some(chip) = self.chip else {
            return false;
        };
        let info = chip.info();
        info.phy_access == PhyAccess::PpuGated
            && dev != self.map.global1
            && dev != self.map.global2
            && dev
                .checked_sub(self.map.phy_base)
                .is_some_and(|n| n < info.num_ports)
    }

    /// Write `value` to register `reg` of device `dev`.
    ///
    /// A write to a register of a unit with a BUSY bit (see the type docs) first waits,
    /// bounded, for that BUSY to be clear, unless this driver saw it clear at the end of
    /// its own last operation; a value with BUSY set starts an operation, after which the
    /// next access to that unit polls first.
    ///
    /// Frames: direct, dual-chip and remapped: 1. Indirect: SMI_DATA write, SMI_CMD
    /// write, SMI_CMD BUSY poll (1 frame when clear at once): 3. Plus the unit's BUSY wait
    /// when it is needed.
    ///
    /// A PHY's device address on a [`PhyAccess::PpuGated`] chip is written with the PHY
    /// polling unit stopped, as [`phy_write`](Self::phy_write) does.
    ///
    /// Errors: as [`read`](Self::read); [`Error::Timeout`] with the unit's [`BusyWait`]
    /// when its BUSY does not clear (nothing is written then).
    pub fn write(&mut self, dev: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Error<M::Error>> {
        let (dev, reg) = (dev.get(), reg.get());
        if dev == self.map.global1 {
            self.shadow = UnitShadow::EMPTY;
        }
        if self.is_ppu_phy(dev) {
            return self.with_ppu_paused(|s| s.dev_write(dev, reg, value));
        }
        if dev == self.map.global1 && reg == g1::CTL1 {
            // The caller takes G1_CTL1 (and PPU_ENABLE) over: the hold ends unserviced.
            self.ppu_expire()?;
            self.ppu_hold = None;
        }
        let Some((unit, command)) = self.busy_unit(dev, reg) else {
            return self.dev_write(dev, reg, value);
        };
        if self.ready & unit.ready_bit() == 0 {
            match unit {
                Unit::G1(op) => {
                    self.wait_g1_op(op)?;
                }
                Unit::Phy => {
                    self.phy_wait()?;
                }
            }
        }
        self.ready &= !unit.ready_bit();
        self.dev_write(dev, reg, value)?;
        if !(command && value & BUSY != 0) {
            // Nothing started: the unit is still idle.
            self.ready |= unit.ready_bit();
        }
        Ok(())
    }

    /// The unit with a BUSY bit that register `reg` of device `dev` belongs to, and whether
    /// it is the unit's command register.
    fn busy_unit(&self, dev: u8, reg: u8) -> Option<(Unit, bool)> {
        if dev == self.map.global1 {
            return [G1Op::Atu, G1Op::Vtu, G1Op::Stats]
                .into_iter()
                .find(|op| op.reg() == reg)
                .map(|op| (Unit::G1(op), true));
        }
        let g2_phy = self
            .chip
            .is_none_or(|c| c.info().phy_access == PhyAccess::Global2);
        if dev == self.map.global2 && g2_phy {
            return match reg {
                g2::SMI_PHY_CMD => Some((Unit::Phy, true)),
                g2::SMI_PHY_DATA => Some((Unit::Phy, false)),
                _ => None,
            };
        }
        None
    }

    /// Read without any BUSY bookkeeping of the target unit (SMI_CMD is still handled).
    pub(crate) fn dev_read(&mut self, dev: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        self.ppu_expire()?;
        if let Some((phy, r)) = self.route(dev, reg)? {
            return self.raw_read(phy, r);
        }
        let sw = self.sw_addr();
        self.ensure_smi_ready()?;
        self.ready &= !READY_SMI;
        self.raw_write(sw, SMI_CMD, smi_cmd(C22Op::Read, dev, reg))?;
        self.smi_wait(sw)?;
        self.ready |= READY_SMI;
        self.raw_read(sw, SMI_DATA)
    }

    /// Write without any BUSY bookkeeping of the target unit (SMI_CMD is still handled):
    /// for the operations of this type, which keep that bookkeeping themselves.
    pub(crate) fn dev_write(
        &mut self,
        dev: u8,
        reg: u8,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        self.ppu_expire()?;
        if let Some((phy, r)) = self.route(dev, reg)? {
            return self.raw_write(phy, r, value);
        }
        let sw = self.sw_addr();
        self.ensure_smi_ready()?;
        self.ready &= !READY_SMI;
        self.raw_write(sw, SMI_DATA, value)?;
        self.raw_write(sw, SMI_CMD, smi_cmd(C22Op::Write, dev, reg))?;
        self.smi_wait(sw)?;
        self.ready |= READY_SMI;
        Ok(())
    }

    /// The device address of port `port`, if the chip (or, before identification, the
    /// family) has that port.
    fn port_dev(&self, port: u8) -> Result<u8, Error<M::Error>> {
        let valid = match self.chip {
            Some(chip) => chip.is_valid_port(port),
            None => port < self.family.max_ports(),
        };
        match self.map.port_base.checked_add(port) {
            Some(d) if valid && d < 32 => Ok(d),
            _ => Err(ConfigError::Port { port }.into()),
        }
    }

    /// Read register `reg` (masked to 5 bits) of port `port` (device `port_base + port`).
    ///
    /// Errors: [`ConfigError::Port`] for a port the chip does not have or route (no frame
    /// is sent); as [`read`](Self::read).
    pub fn port_read(&mut self, port: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        let dev = self.port_dev(port)?;
        self.dev_read(dev, reg & 0x1F)
    }

    /// Write register `reg` (masked to 5 bits) of port `port`.
    ///
    /// Errors: [`ConfigError::Port`] (nothing is written); as [`write`](Self::write).
    pub fn port_write(&mut self, port: u8, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let dev = self.port_dev(port)?;
        self.dev_write(dev, reg & 0x1F, value)
    }

    /// Read Global1 register `reg` (masked to 5 bits).
    pub fn g1_read(&mut self, reg: u8) -> Result<u16, Error<M::Error>> {
        self.dev_read(self.map.global1, reg & 0x1F)
    }

    /// Write Global1 register `reg` (masked to 5 bits), waiting first for the BUSY of an
    /// operation register as [`write`](Self::write) does.
    pub fn g1_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let dev = PhyAddr::from_bits(self.map.global1);
        self.write(dev, RegAddr::from_bits(reg), value)
    }

    /// Read Global2 register `reg` (masked to 5 bits).
    pub fn g2_read(&mut self, reg: u8) -> Result<u16, Error<M::Error>> {
        self.dev_read(self.map.global2, reg & 0x1F)
    }

    /// Write Global2 register `reg` (masked to 5 bits), waiting first for SMI_PHY BUSY as
    /// [`write`](Self::write) does.
    pub fn g2_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let dev = PhyAddr::from_bits(self.map.global2);
        self.write(dev, RegAddr::from_bits(reg), value)
    }

    // ---- bounded waits ---------------------------------------------------------------

    /// Poll `dev`/`reg` until `value & mask == val`, bounded (see the type docs); returns
    /// the value that matched. Each poll is one full register read (3 frames in indirect
    /// mode). Linux's `mv88e6xxx_wait_mask`, without its sleeps. A PHY's register on a
    /// [`PhyAccess::PpuGated`] chip is polled with the PHY polling unit stopped.
    ///
    /// Errors: [`Error::Timeout`] with [`BusyWait::Mask`]; errors of the reads.
    pub fn wait_mask(
        &mut self,
        dev: PhyAddr,
        reg: RegAddr,
        mask: u16,
        val: u16,
    ) -> Result<u16, Error<M::Error>> {
        let (dev, reg) = (dev.get(), reg.get());
        let wait = BusyWait::Mask { dev, reg };
        if self.is_ppu_phy(dev) {
            // A PHY on a PPU-gated chip: the whole wait runs with the PPU stopped.
            return self.with_ppu_paused(|s| s.wait_on(dev, reg, mask, val, wait));
        }
        self.wait_on(dev, reg, mask, val, wait)
    }

    /// Poll until bit `bit` (masked to 0..=15) of `dev`/`reg` equals `set`.
    pub fn wait_bit(
        &mut self,
        dev: PhyAddr,
        reg: RegAddr,
        bit: u8,
        set: bool,
    ) -> Result<u16, Error<M::Error>> {
        let mask = 1u16 << (bit & 0xF);
        self.wait_mask(dev, reg, mask, if set { mask } else { 0 })
    }

    fn wait_on(
        &mut self,
        dev: u8,
        reg: u8,
        mask: u16,
        val: u16,
        wait: BusyWait,
    ) -> Result<u16, Error<M::Error>> {
        let poller = self.poller;
        let r = poller.try_poll(|| self.dev_read(dev, reg), |v| v & mask == val);
        finish(r, wait)
    }

    /// Wait for Global1 G1_STS INIT_READY to be set (after power-up or a software reset).
    pub fn wait_init_ready(&mut self) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.wait_on(g1, g1::STS, INIT_READY, INIT_READY, BusyWait::InitReady)
    }

    /// Wait for a Global1 operation register's BUSY bit to be clear.
    pub fn wait_g1_op(&mut self, op: G1Op) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.ready &= !op.ready_bit();
        let v = self.wait_on(g1, op.reg(), BUSY, 0, op.wait())?;
        self.ready |= op.ready_bit();
        Ok(v)
    }

    /// Run a Global1 ATU / VTU / STATS operation: write `word | BUSY` to its register and
    /// wait for BUSY to clear; returns the register's final value (for the ATU: the
    /// violation flags). The register is polled first only if this driver has not yet
    /// seen it clear (first use, or after a failure). Set up the operation's data
    /// registers before calling.
    pub fn g1_op(&mut self, op: G1Op, word: u16) -> Result<u16, Error<M::Error>> {
        self.shadow = UnitShadow::EMPTY;
        if self.ready & op.ready_bit() == 0 {
            self.wait_g1_op(op)?;
        }
        self.ready &= !op.ready_bit();
        self.dev_write(self.map.global1, op.reg(), word | BUSY)?;
        self.wait_g1_op(op)
    }

    // ---- internal PHYs ---------------------------------------------------------------------

    /// `phy` if it is on the chip's PHY bus: `phy_base .. phy_base + num_ports` (Linux's
    /// PHY mask of the switch's MDIO bus). Beyond it a directly accessed PHY address would
    /// be a port or a global block.
    pub(crate) fn check_phy(&self, phy: PhyAddr) -> Result<u8, Error<M::Error>> {
        let ports = match self.chip {
            Some(chip) => chip.info().num_ports,
            None => self.family.max_ports(),
        };
        let a = phy.get();
        match a.checked_sub(self.map.phy_base) {
            Some(n) if n < ports => Ok(a),
            _ => Err(ConfigError::Phy { phy: a }.into()),
        }
    }

    fn phy_access(&self) -> PhyAccess {
        match self.chip {
            Some(chip) => chip.info().phy_access,
            // `chip` is `None` only inside `probe`, before identification, which reaches
            // no PHY.
            None => PhyAccess::Global2,
        }
    }

    /// Clause 22 read of PHY `phy`, the way the chip needs ([`PhyAccess`]):
    ///
    /// - Global2: SMI_PHY_CMD write, bounded BUSY wait, SMI_PHY_DATA read (each a switch
    ///   register access; BUSY polled first only when its state is unknown);
    /// - PPU-gated (6085, 6095, 6131, 6185): if this driver holds the PPU stopped (a PHY
    ///   access less than [`PPU_HOLD_NS`] ago), the PHY register is read directly at
    ///   device `phy` and the hold extended. Otherwise G1_CTL1 read; if PPU_ENABLE is set,
    ///   G1_CTL1 written without it and G1_STS awaited (bounded) until the PPU state reads
    ///   "disabled"; the PHY register read directly; the PPU then stays stopped until
    ///   [`service`](Self::service) or any access after the deadline restarts it (G1_CTL1
    ///   written back, "polling" awaited), or at once with the hold off
    ///   ([`set_ppu_hold`](Self::set_ppu_hold)). A PPU that is not enabled is left so, once
    ///   G1_STS shows it neither initializing nor polling (it may still be stopping);
    /// - direct (6165): the PHY register read directly at device `phy`.
    ///
    /// Errors: [`ConfigError::Phy`] for a PHY address off the chip's PHY bus (no
    /// frame is sent); [`Error::Timeout`] ([`BusyWait::SmiPhyCmd`],
    /// [`BusyWait::PpuDisabled`], [`BusyWait::PpuPolling`]); [`Error::Mdio`]. After a
    /// failed PPU-gated access the PPU is handed back (best effort) before returning.
    pub fn phy_read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Error<M::Error>> {
        let addr = self.check_phy(phy)?;
        match self.phy_access() {
            PhyAccess::Global2 => self.g2_phy_read(addr, reg.get()),
            PhyAccess::Direct => self.dev_read(addr, reg.get()),
            PhyAccess::PpuGated => self.with_ppu_paused(|s| s.dev_read(addr, reg.get())),
        }
    }

    /// Clause 22 write of PHY `phy`; the access and errors are as [`phy_read`](Self::phy_read)
    /// (Global2: SMI_PHY_DATA write, SMI_PHY_CMD write, bounded BUSY wait).
    pub fn phy_write(
        &mut self,
        phy: PhyAddr,
        reg: RegAddr,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        let addr = self.check_phy(phy)?;
        match self.phy_access() {
            PhyAccess::Global2 => self.g2_phy_write(addr, reg.get(), value),
            PhyAccess::Direct => self.dev_write(addr, reg.get(), value),
            PhyAccess::PpuGated => self.with_ppu_paused(|s| s.dev_write(addr, reg.get(), value)),
        }
    }

    /// Run `access` with the PHY polling unit stopped (PPU-gated chips), then hold it
    /// stopped for [`PPU_HOLD_NS`] (or, with the hold off, hand the PHY bus straight back).
    ///
    /// - PPU held and its deadline not passed: `access` runs at once; the deadline moves to
    ///   [`PPU_HOLD_NS`] after it.
    /// - Otherwise (after restarting an expired hold): G1_CTL1 read; PPU_ENABLE clear: wait
    ///   until the PPU is neither initializing nor polling, run `access`, no hold (the PPU
    ///   is the caller's); PPU_ENABLE set: write G1_CTL1 without it, wait for "disabled",
    ///   run `access`, start the hold.
    /// - Any failure hands the PPU back at once (best effort), as G1_CTL1 was.
    fn with_ppu_paused<T>(
        &mut self,
        access: impl FnOnce(&mut Self) -> Result<T, Error<M::Error>>,
    ) -> Result<T, Error<M::Error>> {
        let g1 = self.map.global1;
        // Taken out for the access: nothing inside it restarts the PPU.
        let held = self.ppu_hold.take().map(|mut hold| {
            let live = hold.since.elapsed() < self.ppu_hold_ticks;
            (hold, live)
        });
        let ctl1 = match held {
            Some((hold, true)) => hold.ctl1,
            expired => {
                if let Some((hold, _)) = expired {
                    self.ppu_resume(hold.ctl1)?;
                }
                let ctl1 = self.dev_read(g1, g1::CTL1)?;
                if ctl1 & PPU_ENABLE == 0 {
                    // Not enabled (at reset, or by the caller), but it may still be
                    // stopping: the bus is ours once the state is no longer initializing
                    // or polling.
                    self.wait_on(g1, g1::STS, PPU_STATE_ACTIVE, 0, BusyWait::PpuDisabled)?;
                    return access(self);
                }
                self.dev_write(g1, g1::CTL1, ctl1 & !PPU_ENABLE)?;
                if let Err(e) = self.wait_on(
                    g1,
                    g1::STS,
                    PPU_STATE_MASK,
                    PPU_STATE_DISABLED,
                    BusyWait::PpuDisabled,
                ) {
                    // Hand the bus back whatever happened, as G1_CTL1 was.
                    let _ = self.ppu_resume(ctl1);
                    return Err(e);
                }
                ctl1
            }
        };
        match access(self) {
            Ok(v) if self.ppu_hold_enabled => {
                self.ppu_hold = Some(PpuHold {
                    since: Stopwatch::start(self.clock),
                    ctl1,
                });
                Ok(v)
            }
            Ok(v) => self.ppu_resume(ctl1).map(|()| v),
            Err(e) => {
                let _ = self.ppu_resume(ctl1);
                Err(e)
            }
        }
    }

    /// Write `ctl1` (PPU_ENABLE set) back to G1_CTL1 and wait for the PPU to poll.
    fn ppu_resume(&mut self, ctl1: u16) -> Result<(), Error<M::Error>> {
        let g1 = self.map.global1;
        self.dev_write(g1, g1::CTL1, ctl1)?;
        self.wait_on(
            g1,
            g1::STS,
            PPU_STATE_MASK,
            PPU_STATE_POLLING,
            BusyWait::PpuPolling,
        )
        .map(|_| ())
    }

    /// Restart a held PPU whose deadline has passed (called before every register access).
    fn ppu_expire(&mut self) -> Result<(), Error<M::Error>> {
        let expired = match &mut self.ppu_hold {
            Some(hold) => hold.since.elapsed() >= self.ppu_hold_ticks,
            None => return Ok(()),
        };
        if expired {
            self.ppu_release()?;
        }
        Ok(())
    }

    /// PPU-gated chips: restart the PHY polling unit if its hold has expired
    /// ([`PPU_HOLD_NS`] after the last PHY access). Does nothing otherwise (no frame).
    ///
    /// # The PPU hold (docs/mv88e6xxx.md#ppu-hold)
    /// On a [`PhyAccess::PpuGated`] chip (6085, 6095, 6131, 6185) the first PHY access of
    /// a run stops the PPU (G1_CTL1 PPU_ENABLE cleared, state "disabled" awaited); the PPU
    /// then stays stopped, and each PHY access before the deadline finds it stopped and
    /// only moves the deadline to [`PPU_HOLD_NS`] after itself, as Linux's 10 ms timer
    /// does. There is no timer in this driver: the deadline is kept on the clocksource, and
    /// the PPU is restarted (G1_CTL1 written back, state "polling" awaited, bounded) by the
    /// first switch register access of any kind made after the deadline, by this method,
    /// or at once by [`ppu_release`](Self::ppu_release).
    ///
    /// While the PPU is held it polls no PHY: PORT_STS link, speed and duplex do not
    /// follow the PHYs. **Firmware must call `service` at least once after each run of
    /// PHY accesses, 10 ms or more after its last one** (from its main loop or a timer
    /// tick), or `ppu_release` when it is done with the PHYs, and before
    /// [`release`](Self::release). The deadline is measured with a
    /// [`Stopwatch`] on the clocksource: if nothing touches the switch for longer than one
    /// wrap of the counter, the restart can come later than 10 ms, never earlier.
    ///
    /// Errors: the restart's [`Error::Timeout`] ([`BusyWait::PpuPolling`]) or
    /// [`Error::Mdio`]; the hold has ended either way.
    pub fn service(&mut self) -> Result<(), Error<M::Error>> {
        self.ppu_expire()
    }

    /// PPU-gated chips: restart a held PHY polling unit now, whatever its deadline (see
    /// [`service`](Self::service)). Does nothing (no frame) when no hold is active.
    ///
    /// Errors: as [`service`](Self::service).
    pub fn ppu_release(&mut self) -> Result<(), Error<M::Error>> {
        match self.ppu_hold.take() {
            Some(hold) => self.ppu_resume(hold.ctl1),
            None => Ok(()),
        }
    }

    /// Whether this driver holds the PHY polling unit stopped (a PPU-gated chip after a
    /// PHY access whose hold has not been restarted yet; see [`service`](Self::service)).
    /// Reads no register.
    pub fn ppu_held(&self) -> bool {
        self.ppu_hold.is_some()
    }

    /// Choose whether PHY accesses on a PPU-gated chip hold the PPU stopped for
    /// [`PPU_HOLD_NS`] (`true`, the default; see [`service`](Self::service)) or restart it
    /// after every access (`false`: about 460 µs more per access in indirect mode, and no
    /// `service` call needed). Turning the hold off restarts a held PPU first.
    ///
    /// Errors: as [`ppu_release`](Self::ppu_release) when turning the hold off.
    pub fn set_ppu_hold(&mut self, hold: bool) -> Result<(), Error<M::Error>> {
        self.ppu_hold_enabled = hold;
        if hold { Ok(()) } else { self.ppu_release() }
    }

    /// Read-modify-write G1_CTL1's bits outside PPU_ENABLE and SW_RESET, keeping a PPU
    /// hold: while the PPU is held, the value written keeps PPU_ENABLE clear and the hold
    /// remembers the new bits for the restart (for [`crate::irq`]).
    pub(crate) fn g1_ctl1_update(
        &mut self,
        f: impl FnOnce(u16) -> u16,
    ) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        let ctl1 = self.dev_read(g1, g1::CTL1)?;
        let keep = regs::SW_RESET | PPU_ENABLE;
        let new = (f(ctl1) & !keep) | (ctl1 & PPU_ENABLE);
        if let Some(hold) = &mut self.ppu_hold {
            hold.ctl1 = (new & !keep) | (hold.ctl1 & PPU_ENABLE);
        }
        self.dev_write(g1, g1::CTL1, new)?;
        Ok(new)
    }

    /// Bounded wait on G1_STS (for [`crate::port`]).
    pub(crate) fn wait_g1_sts(
        &mut self,
        mask: u16,
        val: u16,
        wait: BusyWait,
    ) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.wait_on(g1, g1::STS, mask, val, wait)
    }

    /// Bounded wait for G1_STS INIT_READY, a read of 0xFFFF (nothing answering) not
    /// counting (for [`crate::port`]).
    pub(crate) fn wait_g1_sts_ready(&mut self) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        let poller = self.poller;
        let r = poller.try_poll(
            || self.dev_read(g1, g1::STS),
            |v| *v != 0xFFFF && v & INIT_READY != 0,
        );
        finish(r, BusyWait::InitReady)
    }

    /// Forget a PPU hold without restarting the PPU (a software reset restarts it).
    pub(crate) fn ppu_forget(&mut self) {
        self.ppu_hold = None;
    }

    /// Forget everything this driver knows of the switch's state because the switch was
    /// reset behind it (a hardware reset): the PPU hold, the busy bits seen clear, and the
    /// unit data registers it wrote last. The next access to each unit polls it first and
    /// writes its FID/SID again.
    pub(crate) fn forget_switch_state(&mut self) {
        self.ppu_hold = None;
        self.ready = 0;
        self.shadow = UnitShadow::EMPTY;
    }

    pub(crate) fn phy_wait(&mut self) -> Result<u16, Error<M::Error>> {
        let g2 = self.map.global2;
        self.ready &= !READY_PHY;
        let v = self.wait_on(g2, g2::SMI_PHY_CMD, BUSY, 0, BusyWait::SmiPhyCmd)?;
        self.ready |= READY_PHY;
        Ok(v)
    }

    pub(crate) fn ensure_phy_ready(&mut self) -> Result<(), Error<M::Error>> {
        if self.ready & READY_PHY == 0 {
            self.phy_wait()?;
        }
        self.ready &= !READY_PHY;
        Ok(())
    }

    /// Global2 SMI_PHY read: CMD write, bounded BUSY wait, DATA read.
    fn g2_phy_read(&mut self, phy: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        let g2 = self.map.global2;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_CMD, smi_phy_cmd(C22Op::Read, phy, reg))?;
        self.phy_wait()?;
        self.dev_read(g2, g2::SMI_PHY_DATA)
    }

    /// Global2 SMI_PHY write: DATA write, CMD write, bounded BUSY wait.
    fn g2_phy_write(&mut self, phy: u8, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let g2 = self.map.global2;
        self.ensure_phy_ready()?;
        self.dev_write(g2, g2::SMI_PHY_DATA, value)?;
        self.dev_write(g2, g2::SMI_PHY_CMD, smi_phy_cmd(C22Op::Write, phy, reg))?;
        self.phy_wait().map(|_| ())
    }

    /// The switch's internal MDIO bus as an [`Mdio`], so PHY drivers can sit on it.
    pub fn internal_mdio(&mut self) -> InternalMdio<'_, M, C> {
        InternalMdio { smi: self }
    }
}

fn finish<E>(
    r: Result<hwtimer_core::poll::Polled<u16>, PollError<u16, Error<E>>>,
    wait: BusyWait,
) -> Result<u16, Error<E>> {
    match r {
        Ok(p) => Ok(p.value),
        Err(PollError::Read(e)) => Err(e),
        Err(PollError::Timeout(t)) => {
            hwtimer_core::log_warn!("mv88e6xxx: busy bit still set after {} polls", t.polls);
            Err(Error::Timeout(BusyTimeout {
                wait,
                last: t.last,
                polls: t.polls,
                elapsed_ticks: t.elapsed_ticks,
                bound: t.bound,
            }))
        }
    }
}

/// The switch's internal PHY bus as an [`Mdio`]: each frame is one bounded PHY access the
/// way the chip needs it ([`Switch::phy_read`] / [`Switch::phy_write`]: Global2 SMI_PHY,
/// PPU-gated direct, or direct).
#[derive(Debug)]
pub struct InternalMdio<'a, M: Mdio, C: Continuous + Copy> {
    pub(crate) smi: &'a mut Switch<M, C>,
}

impl<M: Mdio, C: Continuous + Copy> Mdio for InternalMdio<'_, M, C> {
    type Error = Error<M::Error>;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.smi.phy_read(phy, reg)
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        self.smi.phy_write(phy, reg, value)
    }
}

// ---- for the switch units (atu.rs, vtu.rs) ----------------------------------------------

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Make sure the Global1 unit `op` is idle before its data registers are written: a
    /// bounded BUSY wait unless this driver saw BUSY clear at the end of its own last
    /// operation of that unit (the "known clear" rule of [`g1_op`](Self::g1_op)).
    pub(crate) fn g1_unit_idle(&mut self, op: G1Op) -> Result<(), Error<M::Error>> {
        if self.ready & op.ready_bit() == 0 {
            self.wait_g1_op(op)?;
        }
        Ok(())
    }

    /// A unit's own Global1 write ([`g1_write`](Self::g1_write)) that keeps the
    /// [`UnitShadow`] (a failed write leaves it unknown).
    pub(crate) fn unit_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let keep = self.shadow;
        let r = self.g1_write(reg, value);
        self.shadow = if r.is_ok() { keep } else { UnitShadow::EMPTY };
        r
    }

    /// A unit's own operation ([`g1_op`](Self::g1_op)) that keeps the [`UnitShadow`]; the
    /// caller clears what the operation itself may change.
    pub(crate) fn unit_op(&mut self, op: G1Op, word: u16) -> Result<u16, Error<M::Error>> {
        let keep = self.shadow;
        let r = self.g1_op(op, word);
        self.shadow = if r.is_ok() { keep } else { UnitShadow::EMPTY };
        r
    }
}

/// Values this driver last wrote to unit data registers that only an operation or a write
/// can change (docs/mv88e6xxx.md#atu-vtu-and-stu): G1_ATU_FID, G1_VTU_FID, G1_VTU_SID.
/// `None`: unknown. Any raw Global1 write ([`Switch::write`], [`Switch::g1_write`]) and any
/// [`Switch::g1_op`] clear all of them; the units set one only after its write succeeded and
/// after an operation that leaves it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnitShadow {
    pub(crate) atu_fid: Option<u16>,
    pub(crate) vtu_fid: Option<u16>,
    pub(crate) vtu_sid: Option<u16>,
}

impl UnitShadow {
    pub(crate) const EMPTY: Self = Self {
        atu_fid: None,
        vtu_fid: None,
        vtu_sid: None,
    };
}
