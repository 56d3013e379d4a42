//! Switch register access over MDIO ([`Smi`]), its bounded busy waits, Global1 operations
//! and internal PHY access ([`InternalMdio`]).

use hwtimer_core::Continuous;
use hwtimer_core::poll::{PollError, Poller};
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::{AddressMap, Family, Identity, SmiMode, identify};
use crate::error::{BusyTimeout, BusyWait, Error};
use crate::regs::{
    self, BUSY, C22Op, INIT_READY, PORT_SWITCH_ID, SMI_CMD, SMI_DATA, g1, g2, smi_cmd, smi_phy_cmd,
};

/// Default deadline of every busy wait: 50 ms, as Linux since seed 004.
pub const DEFAULT_TIMEOUT_NS: u64 = 50_000_000;

/// How the switch is reached on its MDIO bus (hardware.md §5.2).
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
        /// `sw_addr` (hardware.md §5.4): 1 frame instead of 3.
        remap_6393x: bool,
    },
    /// Dual-chip mode (6250 family): device `dev` (0..=15) is PHY address `sw_addr + dev`.
    DualChip {
        /// 0 or 16 (the ADDR4 strap).
        sw_addr: PhyAddr,
    },
}

impl Addressing {
    /// Linux's selection order (hardware.md §5.2): a dual-chip family is dual-chip at
    /// `sw_addr` (0 or 16); otherwise `sw_addr` 0 is direct; otherwise indirect, with the
    /// remap for the 6393 family. `None` for any other `sw_addr` (> 31, or a dual-chip
    /// `sw_addr` other than 0 / 16).
    pub fn select(family: Family, sw_addr: u8) -> Option<Self> {
        let addr = PhyAddr::new(sw_addr)?;
        let a = match family.address_map().mode {
            SmiMode::DualChip => Addressing::DualChip { sw_addr: addr },
            SmiMode::MultiChip if sw_addr == 0 => Addressing::Direct,
            SmiMode::MultiChip => Addressing::Indirect {
                sw_addr: addr,
                remap_6393x: family.has_6393x_remap(),
            },
        };
        a.check::<()>(family).ok()?;
        Some(a)
    }

    fn check<E>(self, family: Family) -> Result<(), Error<E>> {
        let dual = family.address_map().mode == SmiMode::DualChip;
        let ok = match self {
            Addressing::Direct => !dual,
            Addressing::Indirect {
                sw_addr,
                remap_6393x,
            } => !dual && sw_addr.get() != 0 && (!remap_6393x || family.has_6393x_remap()),
            Addressing::DualChip { sw_addr } => dual && matches!(sw_addr.get(), 0 | 16),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidConfig)
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
}

impl Config {
    /// The default: 50 ms per wait.
    pub const fn new() -> Self {
        Self {
            timeout_ns: DEFAULT_TIMEOUT_NS,
        }
    }

    /// Set the busy-wait deadline.
    pub const fn with_timeout_ns(mut self, ns: u64) -> Self {
        self.timeout_ns = ns;
        self
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

/// A Global1 operation register with a BUSY bit (hardware.md §5.7).
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
// the next one need not poll it first (seed 004, patch 2). Cleared by any failure.
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
/// The bus is owned; pass `&mut bus` to keep it (`&mut M` is an [`Mdio`] too), or get it
/// back with [`release`](Self::release).
#[derive(Debug)]
pub struct Smi<M: Mdio, C: Continuous + Copy> {
    bus: M,
    poller: Poller<C>,
    addressing: Addressing,
    family: Family,
    map: AddressMap,
    ready: u8,
    frames: u64,
}

impl<M: Mdio, C: Continuous + Copy> Smi<M, C> {
    /// Attach to a switch of `family` reached with `addressing`. In indirect mode this
    /// waits (bounded) for SMI_CMD BUSY to be clear, once; the other modes touch no
    /// register.
    ///
    /// Errors: [`Error::InvalidConfig`] if `addressing` does not fit `family` (indirect
    /// with `sw_addr` 0 or with the remap on a family without it, dual-chip at other than
    /// 0 / 16 or for a multi-chip family, direct for the dual-chip family); the wait's [`Error::Timeout`] / [`Error::Mdio`].
    pub fn new(
        bus: M,
        clock: C,
        addressing: Addressing,
        family: Family,
        config: Config,
    ) -> Result<Self, Error<M::Error>> {
        addressing.check(family)?;
        let mut smi = Self {
            bus,
            poller: Poller::new(clock).timeout_ns(config.timeout_ns),
            addressing,
            family,
            map: family.address_map(),
            ready: 0,
            frames: 0,
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
    /// [`Error::InvalidConfig`] when the chip's family cannot be reached the way the hint's
    /// is (dual-chip vs multi-chip).
    pub fn probe(
        bus: M,
        clock: C,
        sw_addr: u8,
        hint: Family,
        config: Config,
    ) -> Result<(Self, Identity), Error<M::Error>> {
        let addressing = Addressing::select(hint, sw_addr).ok_or(Error::InvalidConfig)?;
        let mut smi = Self::new(bus, clock, addressing, hint, config)?;
        let id = smi.identify()?;
        let family = id.chip.family();
        if family != hint {
            if family.address_map().mode != hint.address_map().mode {
                return Err(Error::InvalidConfig);
            }
            let addressing = Addressing::select(family, sw_addr).ok_or(Error::InvalidConfig)?;
            smi.addressing = addressing;
            smi.family = family;
            smi.map = family.address_map();
        }
        Ok((smi, id))
    }

    /// Read PORT_SWITCH_ID (port 0, register 3, at `port_base`) and look it up.
    ///
    /// Errors: [`Error::UnknownSwitchId`] for a product number outside the table; access
    /// errors as [`read`](Self::read).
    pub fn identify(&mut self) -> Result<Identity, Error<M::Error>> {
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
                    return Err(Error::AddressOutOfRange { dev });
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
    /// Errors: [`Error::Mdio`], [`Error::Timeout`] (SMI_CMD BUSY stuck),
    /// [`Error::AddressOutOfRange`] (dual-chip, `dev` ≥ 16).
    pub fn read(&mut self, dev: PhyAddr, reg: RegAddr) -> Result<u16, Error<M::Error>> {
        let (dev, reg) = (dev.get(), reg.get());
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

    /// Write `value` to register `reg` of device `dev`.
    ///
    /// Frames: direct, dual-chip and remapped: 1. Indirect: SMI_DATA write, SMI_CMD
    /// write, SMI_CMD BUSY poll (1 frame when clear at once): 3.
    ///
    /// Errors: as [`read`](Self::read).
    pub fn write(&mut self, dev: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Error<M::Error>> {
        let (dev, reg) = (dev.get(), reg.get());
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

    fn dev_read(&mut self, dev: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        self.read(PhyAddr::from_bits(dev), RegAddr::from_bits(reg))
    }

    fn dev_write(&mut self, dev: u8, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        self.write(PhyAddr::from_bits(dev), RegAddr::from_bits(reg), value)
    }

    fn port_dev(&self, port: u8) -> Result<u8, Error<M::Error>> {
        match self.map.port_base.checked_add(port) {
            Some(d) if d < 32 => Ok(d),
            _ => Err(Error::AddressOutOfRange { dev: port }),
        }
    }

    /// Read register `reg` (masked to 5 bits) of port `port` (device `port_base + port`).
    pub fn port_read(&mut self, port: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        let dev = self.port_dev(port)?;
        self.dev_read(dev, reg)
    }

    /// Write register `reg` (masked to 5 bits) of port `port`.
    pub fn port_write(&mut self, port: u8, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let dev = self.port_dev(port)?;
        self.dev_write(dev, reg, value)
    }

    /// Read Global1 register `reg` (masked to 5 bits).
    pub fn g1_read(&mut self, reg: u8) -> Result<u16, Error<M::Error>> {
        self.dev_read(self.map.global1, reg)
    }

    /// Write Global1 register `reg`.
    pub fn g1_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        self.dev_write(self.map.global1, reg, value)
    }

    /// Read Global2 register `reg` (masked to 5 bits).
    pub fn g2_read(&mut self, reg: u8) -> Result<u16, Error<M::Error>> {
        self.dev_read(self.map.global2, reg)
    }

    /// Write Global2 register `reg`.
    pub fn g2_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        self.dev_write(self.map.global2, reg, value)
    }

    // ---- bounded waits ---------------------------------------------------------------

    /// Poll `dev`/`reg` until `value & mask == val`, bounded (see the type docs); returns
    /// the value that matched. Each poll is one full register read (3 frames in indirect
    /// mode). Linux's `mv88e6xxx_wait_mask`, without its sleeps.
    ///
    /// Errors: [`Error::Timeout`] with [`BusyWait::Mask`]; errors of the reads.
    pub fn wait_mask(
        &mut self,
        dev: PhyAddr,
        reg: RegAddr,
        mask: u16,
        val: u16,
    ) -> Result<u16, Error<M::Error>> {
        let wait = BusyWait::Mask {
            dev: dev.get(),
            reg: reg.get(),
        };
        self.wait_on(dev.get(), reg.get(), mask, val, wait)
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
        if self.ready & op.ready_bit() == 0 {
            self.wait_g1_op(op)?;
        }
        self.ready &= !op.ready_bit();
        self.g1_write(op.reg(), word | BUSY)?;
        self.wait_g1_op(op)
    }

    // ---- internal PHYs through Global2 ---------------------------------------------------

    fn phy_wait(&mut self) -> Result<u16, Error<M::Error>> {
        let g2 = self.map.global2;
        self.ready &= !READY_PHY;
        let v = self.wait_on(g2, g2::SMI_PHY_CMD, BUSY, 0, BusyWait::SmiPhyCmd)?;
        self.ready |= READY_PHY;
        Ok(v)
    }

    fn ensure_phy_ready(&mut self) -> Result<(), Error<M::Error>> {
        if self.ready & READY_PHY == 0 {
            self.phy_wait()?;
        }
        self.ready &= !READY_PHY;
        Ok(())
    }

    /// Clause 22 read of internal PHY `phy` through Global2 SMI_PHY_CMD/SMI_PHY_DATA:
    /// CMD write, bounded BUSY wait, DATA read (each a switch register access).
    pub fn phy_read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Error<M::Error>> {
        self.ensure_phy_ready()?;
        self.g2_write(
            g2::SMI_PHY_CMD,
            smi_phy_cmd(C22Op::Read, phy.get(), reg.get()),
        )?;
        self.phy_wait()?;
        self.g2_read(g2::SMI_PHY_DATA)
    }

    /// Clause 22 write of internal PHY `phy`: DATA write, CMD write, bounded BUSY wait.
    pub fn phy_write(
        &mut self,
        phy: PhyAddr,
        reg: RegAddr,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        self.ensure_phy_ready()?;
        self.g2_write(g2::SMI_PHY_DATA, value)?;
        self.g2_write(
            g2::SMI_PHY_CMD,
            smi_phy_cmd(C22Op::Write, phy.get(), reg.get()),
        )?;
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
        Err(PollError::Timeout(t)) => Err(Error::Timeout(BusyTimeout {
            wait,
            last: t.last,
            polls: t.polls,
            elapsed_ticks: t.elapsed_ticks,
        })),
    }
}

/// The switch's internal PHY bus (Global2 SMI_PHY_CMD/DATA) as an [`Mdio`]: each frame is
/// a bounded G2 PHY access ([`Smi::phy_read`] / [`Smi::phy_write`]).
#[derive(Debug)]
pub struct InternalMdio<'a, M: Mdio, C: Continuous + Copy> {
    smi: &'a mut Smi<M, C>,
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
