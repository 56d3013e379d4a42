//! The handle of one switch ([`Switch`]) and its [`Config`]: attach, probe and identify,
//! the generic register access (device, port, Global1, Global2) with its "never a write into
//! a busy unit" bookkeeping, and the bounded waits.

use hwtimer_core::Continuous;
use hwtimer_core::poll::{PollError, Poller};
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::{AddressMap, Chip, ChipId, Family, PhyAccess, SmiMode, identify};
use crate::error::{BusyTimeout, BusyWait, ConfigError, Error};
use crate::global1::{G1Op, UnitShadow};
use crate::ppu::{PPU_HOLD_NS, PpuHold};
use crate::regs::{BUSY, PORT_SWITCH_ID, g1, g2};
use crate::smi::Addressing;

/// Default deadline of every busy wait: 50 ms, as Linux since its "Improve indirect addressing performance" patches.
pub const DEFAULT_TIMEOUT_NS: u64 = 50_000_000;

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
    /// Skip the BUSY wait before an ATU, VTU, STATS or Global2 PHY operation when this
    /// driver saw the unit idle at the end of its own last operation, and skip rewriting
    /// a unit data register (G1_ATU_FID, G1_VTU_FID, G1_VTU_SID) that still holds what
    /// this driver wrote last. Default `false`: every operation first waits for its unit's
    /// BUSY and writes all its data registers. For the ATU, the VTU/STU and the Global2
    /// PHY unit Linux v6.12 also waits first; for STATS it does not (`global1.c`
    /// `mv88e6xxx_g1_stats_snapshot`, `mv88e6390_g1_stats_snapshot`,
    /// `mv88e6xxx_g1_stats_read` and `mv88e6xxx_g1_stats_clear` write G1_STATS_OP and wait
    /// only after), so this driver is stricter there. Linux skips the SMI_CMD check before
    /// an indirect access, which this driver also skips whatever this flag says. Set it
    /// with [`with_sole_bus_master`](Self::with_sole_bus_master).
    ///
    /// `true` is correct only when this host is the switch's only master: no remote
    /// management unit (RMU) frames, no embedded CPU, no second MDIO master, nothing that
    /// starts a unit operation or writes a unit data register behind this driver. If one
    /// does, the next operation can be written while the unit is busy (the chip may drop
    /// or corrupt it) or run on another master's FID.
    pub sole_bus_master: bool,
    /// Use the 6393X indirect-mode remap (docs/mv88e6xxx.md#6393x-remap) when the chip's
    /// family has it (6191X, 6193X, 6361, 6393X) and the switch is reached indirectly:
    /// [`Switch::probe`] and [`Switch::new`] turn it on in the [`Addressing`]; other
    /// families and modes ignore it. Default `false`: mainline Linux has no remap (it
    /// comes from an out-of-tree patch, see [`Addressing::Indirect`]), and it is not
    /// verified on any board of ours, the 6361 least of all. Set it with
    /// [`with_remap_6393x`](Self::with_remap_6393x).
    pub remap_6393x: bool,
}

impl Config {
    /// The default: 50 ms per wait, backstop 19 534 reads, every unit's BUSY checked before
    /// each operation.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            timeout_ns: DEFAULT_TIMEOUT_NS,
            max_polls: derived_max_polls(DEFAULT_TIMEOUT_NS),
            sole_bus_master: false,
            remap_6393x: false,
        }
    }

    /// Opt in (`true`) to the 6393X indirect-mode remap; see
    /// [`remap_6393x`](Self#structfield.remap_6393x).
    #[must_use]
    pub const fn with_remap_6393x(mut self, on: bool) -> Self {
        self.remap_6393x = on;
        self
    }

    /// Opt in (`true`) to skipping the unit BUSY checks this driver can prove from its own
    /// operations, for a host that owns the bus; see
    /// [`sole_bus_master`](Self#structfield.sole_bus_master) for what it
    /// assumes. Saves one frame per ATU/VTU/STATS/PHY operation in direct mode (three in
    /// indirect mode) and the FID/SID rewrites.
    #[must_use]
    pub const fn with_sole_bus_master(mut self, sole: bool) -> Self {
        self.sole_bus_master = sole;
        self
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

// "Known clear" flags: the busy bit was seen clear, so the next operation need not poll it
// first. SMI_CMD: at the end of this driver's own last access (as Linux). ATU, VTU, STATS,
// PHY: by the wait that opens an operation's sequence and, only with
// `Config::with_sole_bus_master`, at the end of this driver's own last operation.
// Cleared by any failure, by the unit's next command, and by a caller's raw write that
// starts an operation.
pub(crate) const READY_SMI: u8 = 1 << 0;
pub(crate) const READY_ATU: u8 = 1 << 1;
pub(crate) const READY_VTU: u8 = 1 << 2;
pub(crate) const READY_STATS: u8 = 1 << 3;
pub(crate) const READY_PHY: u8 = 1 << 4;

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
/// # Busy bits checked before each operation
/// Every operation waits for its own busy bit to clear before returning. SMI_CMD BUSY is
/// therefore polled *before* an indirect access only the first time (in
/// [`new`](Self::new)) and after a failure, as Linux does: an indirect access costs 3
/// frames instead of 4. The ATU, VTU, STATS and Global2 PHY units are different: another
/// master (the remote management unit, an embedded CPU, a second MDIO master) can start
/// an operation on them between two of ours, so by default each operation first waits for
/// its unit's BUSY (one read when idle: 1 frame direct, 3 indirect). Linux v6.12 does the
/// same for the ATU, VTU/STU and Global2 PHY operations, but writes G1_STATS_OP first and
/// waits only after it (`global1.c` `mv88e6xxx_g1_stats_snapshot`,
/// `mv88e6390_g1_stats_snapshot`, `mv88e6xxx_g1_stats_read`, `mv88e6xxx_g1_stats_clear`):
/// for STATS this driver is stricter. Likewise [`vtu_get_next`](Self::vtu_get_next) and
/// [`stu_get_next`](Self::stu_get_next) write G1_VTU_VID / G1_VTU_SID on every call (the
/// caller names where to start), where Linux's `mv88e6xxx_g1_vtu_getnext` /
/// `mv88e6xxx_g1_stu_getnext` (`global1_vtu.c`) write them only at the start of a walk
/// and let the register keep the last entry found. A host that owns the bus can skip the
/// BUSY wait after its own operations with [`Config::with_sole_bus_master`].
///
/// # Never a write into a busy unit
/// What this promise covers, exactly: the registers of the four units with a BUSY bit that
/// this driver runs operations on, which are Global1 G1_ATU_OP (0x0B), G1_VTU_OP (0x05),
/// G1_STATS_OP (0x1D), and on chips with Global2 PHY access Global2 SMI_PHY_CMD (0x18) and
/// SMI_PHY_DATA (0x19), plus SMI_CMD / SMI_DATA in indirect mode. A write to one of them
/// waits, bounded, for that unit's BUSY to be clear first, whichever method makes it: the
/// operations of this type, or a caller's raw [`write`](Self::write) /
/// [`g1_write`](Self::g1_write) / [`g2_write`](Self::g2_write). A raw write that starts an
/// operation (BUSY set in the value) leaves the unit's state unknown, so the next access
/// to it polls first.
///
/// It does **not** cover: the units' data registers written raw (G1_ATU_FID,
/// G1_ATU_DATA, G1_ATU_MAC*, G1_VTU_VID/FID/SID/DATA*, G1_STATS_*), which are written
/// without a wait (this driver's own operations write them only after the unit's BUSY
/// wait); any other Global2 register with a BUSY bit (the indirect tables: switch MAC,
/// ATU stats, trunk mask and mapping, device mapping, priority override, EEPROM, AVB,
/// SCRATCH/MISC, Global2 SMI_PHY on chips that reach their PHYs another way); port
/// registers; and PHY registers reached directly. A raw write there is the caller's to
/// sequence. With [`Config::with_sole_bus_master`] the promise also assumes no other
/// master starts an operation.
///
/// # PHY polling unit held across a run of PHY accesses
/// On [`PhyAccess::PpuGated`] chips a PHY access leaves the PPU stopped for
/// [`PPU_HOLD_NS`]; the firmware calls [`service`](Self::service) (or
/// [`ppu_release`](Self::ppu_release)) afterwards, as explained there, best from the
/// expiry of a timer it lends the switch ([`set_ppu_timer`](Self::set_ppu_timer)):
/// without one, nothing restarts the PPU until the next `service` or access. A raw write to
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
    pub(crate) bus: M,
    pub(crate) poller: Poller<C>,
    pub(crate) addressing: Addressing,
    pub(crate) family: Family,
    pub(crate) map: AddressMap,
    /// `None` only inside [`probe`](Self::probe), before identification.
    pub(crate) chip: Option<Chip>,
    pub(crate) ready: u8,
    pub(crate) frames: u64,
    /// The clocksource, for the PPU hold's deadline.
    pub(crate) clock: C,
    /// PPU-gated chips: the PPU is stopped by this driver and held (see [`Switch::service`]).
    pub(crate) ppu_hold: Option<PpuHold<C>>,
    /// [`PPU_HOLD_NS`] in ticks of `clock`.
    pub(crate) ppu_hold_ticks: u64,
    /// Whether PHY accesses hold the PPU (default) or restart it after each access.
    pub(crate) ppu_hold_enabled: bool,
    /// The timer lent for the end of a PPU hold ([`Switch::set_ppu_timer`]).
    pub(crate) ppu_timer: Option<&'static (dyn crate::ppu::PpuTimer + Sync)>,
    /// Data registers of the switch units whose value this driver wrote last (atu.rs,
    /// vtu.rs); cleared by any raw Global1 write or operation.
    pub(crate) shadow: UnitShadow,
    /// [`apply_errata`](Self::apply_errata) ran since attach or the last hardware reset.
    pub(crate) errata_applied: bool,
    /// [`Config::with_sole_bus_master`].
    pub(crate) sole_master: bool,
    /// The STATS unit's last command was this driver's own CAPTURE_PORT or READ_CAPTURED
    /// and it completed: the next READ_CAPTURED continues that capture without a BUSY
    /// pre-check, as Linux reads a capture (see `global1.rs`).
    pub(crate) stats_capture_open: bool,
    /// Cleared-on-read G1_STS interrupt sources this driver's G1_STS reads saw and the
    /// interrupt API has not returned yet (`irq.rs`).
    pub(crate) g1_sts_seen: u16,
}

/// A unit with a BUSY bit, as far as raw writes are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
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

pub(crate) fn finish<E>(
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

    pub(crate) fn attach(
        bus: M,
        clock: C,
        addressing: Addressing,
        family: Family,
        chip: Option<Chip>,
        config: Config,
    ) -> Result<Self, Error<M::Error>> {
        let addressing = Self::remapped(addressing, family, config);
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
            ppu_timer: None,
            shadow: UnitShadow::EMPTY,
            errata_applied: false,
            sole_master: config.sole_bus_master,
            stats_capture_open: false,
            g1_sts_seen: 0,
        };
        smi.ensure_smi_ready()?;
        Ok(smi)
    }

    /// `addressing` with the 6393X remap turned on when `config` asks for it and `family`
    /// has it.
    fn remapped(addressing: Addressing, family: Family, config: Config) -> Addressing {
        if config.remap_6393x && family.has_6393x_remap() {
            addressing.with_remap_6393x(true)
        } else {
            addressing
        }
    }

    /// Probe like Linux: attach with the addressing [`Addressing::select`] picks for the
    /// `hint` family (from the device tree compatible) and `sw_addr`, read PORT_SWITCH_ID
    /// at the hint's `port_base`, and re-attach with the detected chip's family (with
    /// [`Config::with_remap_6393x`], enabling the 6393X remap when that family has it). The
    /// identified chip must use the same SMI mode as the hint. At `sw_addr` 16 with a
    /// multi-chip hint, as Linux's `mv88e6xxx_single_chip_detect`, it first tries the
    /// switch single-chip (direct addressing, PORT_SWITCH_ID read at the hint's
    /// `port_base`, which is address 16 for hints whose port base is 0x10), and only if
    /// that read fails or names no known chip, multi-chip at 16.
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
        // Linux `mv88e6xxx_single_chip_detect` (chip.c): at address 16 a multi-chip family
        // switch may be strapped single-chip (port 0 answering at 16): direct first.
        let single_first = sw_addr == 16 && hint.address_map().mode == SmiMode::MultiChip;
        let first = if single_first {
            Addressing::Direct
        } else {
            addressing
        };
        let mut smi = Self::attach(bus, clock, first, hint, None, config)?;
        let (id, sw_addr) = match smi.identify() {
            Ok(id) => (id, if single_first { 0 } else { sw_addr }),
            Err(e) if !single_first => return Err(e),
            Err(_) => {
                smi.addressing = addressing;
                smi.ready = 0;
                smi.ensure_smi_ready()?;
                (smi.identify()?, sw_addr)
            }
        };
        let family = id.chip.family();
        if family != hint {
            if family.address_map().mode != hint.address_map().mode {
                return Err(ConfigError::HintMismatch { chip: id.chip }.into());
            }
            let addressing = Addressing::select(family, sw_addr)?;
            smi.addressing = Self::remapped(addressing, family, config);
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

    /// Write `value` to register `reg` of device `dev`.
    ///
    /// A write to a register of a unit with a BUSY bit (see the type docs for which) first
    /// waits, bounded, for that BUSY to be clear, unless this driver has just seen it clear
    /// (or, with [`Config::with_sole_bus_master`], saw it clear at the end of its own
    /// last operation); a value with BUSY set starts an operation, after which the next
    /// access to that unit polls first.
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
            self.ppu_forget();
        }
        let Some((unit, command)) = self.busy_unit(dev, reg) else {
            return self.dev_write(dev, reg, value);
        };
        if unit == Unit::G1(G1Op::Stats) {
            self.stats_capture_open = false;
        }
        if !self.known_idle(unit.ready_bit()) {
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

    /// Whether the unit of `ready_bit` may be taken as idle without reading its BUSY.
    pub(crate) fn known_idle(&self, ready_bit: u8) -> bool {
        self.ready & ready_bit != 0
    }

    /// After an operation's own completion wait: the unit stays known idle only for a sole
    /// bus master ([`Config::with_sole_bus_master`]); otherwise the next operation
    /// waits for it first, as Linux does.
    pub(crate) fn op_done(&mut self, ready_bit: u8) {
        if !self.sole_master {
            self.ready &= !ready_bit;
        }
    }

    /// The unit with a BUSY bit that register `reg` of device `dev` belongs to, and whether
    /// it is the unit's command register.
    pub(crate) fn busy_unit(&self, dev: u8, reg: u8) -> Option<(Unit, bool)> {
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

    /// The device address of port `port`, if the chip (or, before identification, the
    /// family) has that port.
    pub(crate) fn port_dev(&self, port: u8) -> Result<u8, Error<M::Error>> {
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

    pub(crate) fn wait_on(
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

    /// Forget everything this driver knows of the switch's state because the switch was
    /// reset behind it (a hardware reset): the PPU hold, the busy bits seen clear, and the
    /// unit data registers it wrote last. The next access to each unit polls it first and
    /// writes its FID/SID again.
    pub(crate) fn forget_switch_state(&mut self) {
        self.ppu_forget();
        self.ready = 0;
        self.stats_capture_open = false;
        self.g1_sts_seen = 0;
        self.shadow = UnitShadow::EMPTY;
        self.errata_applied = false;
    }
}
