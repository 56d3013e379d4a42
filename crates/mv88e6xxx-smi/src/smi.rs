//! SMI transport: how the switch is reached on its MDIO bus ([`Addressing`]: direct,
//! indirect through SMI_CMD/SMI_DATA, dual-chip, the 6393 remap), the raw frames, and the
//! bounded SMI_CMD BUSY wait (Linux splits this out as `smi.c`).

use hwtimer_core::Continuous;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use crate::chip::{Family, SmiMode};
use crate::error::{BusyWait, ConfigError, Error};
use crate::regs::{self, BUSY, C22Op, SMI_CMD, SMI_DATA, smi_cmd};
use crate::switch::{READY_SMI, Switch, finish};

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
        /// 6393 family, opt-in: hot Global1/Global2 registers are read and written
        /// directly at `sw_addr` (docs/mv88e6xxx.md#6393x-remap): 1 frame instead of 3.
        /// Mainline Linux has no such mode; it comes from an out-of-tree patch (Tobias
        /// Waldekranz, "net: dsa: mv88e6xxx: Improve indirect register access perf on
        /// 6393", shipped by kernelkit/infix as
        /// `patches/linux/6.12.11/0002-net-dsa-mv88e6xxx-Improve-indirect-register-access-p.patch`),
        /// not verified on our boards, so [`Addressing::select`] leaves it off; turn it on
        /// with [`Config::with_remap_6393x`](crate::Config::with_remap_6393x) or
        /// [`with_remap_6393x`](Self::with_remap_6393x).
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
    /// `sw_addr` (0 or 16); otherwise `sw_addr` 0 is direct; otherwise indirect, without
    /// the 6393X remap (mainline Linux has none; opt in with
    /// [`with_remap_6393x`](Self::with_remap_6393x)).
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
                remap_6393x: false,
            },
        };
        a.check(family)?;
        Ok(a)
    }

    /// This addressing with the 6393X remap on (`true`) or off: indirect addressing only;
    /// the others are returned as they are. [`Switch::new`] refuses the remap for a family
    /// without it ([`ConfigError::Remap6393x`]).
    #[must_use]
    pub const fn with_remap_6393x(self, on: bool) -> Self {
        match self {
            Addressing::Indirect { sw_addr, .. } => Addressing::Indirect {
                sw_addr,
                remap_6393x: on,
            },
            other => other,
        }
    }

    /// Whether this addressing can reach a switch of `family` (the causes are listed at
    /// [`Switch::new`]).
    pub(crate) fn check(self, family: Family) -> Result<(), ConfigError> {
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

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    pub(crate) fn raw_read(&mut self, phy: PhyAddr, reg: u8) -> Result<u16, Error<M::Error>> {
        self.frames = self.frames.saturating_add(1);
        self.bus
            .read(phy, RegAddr::from_bits(reg))
            .map_err(Error::Mdio)
    }

    pub(crate) fn raw_write(
        &mut self,
        phy: PhyAddr,
        reg: u8,
        value: u16,
    ) -> Result<(), Error<M::Error>> {
        self.frames = self.frames.saturating_add(1);
        self.bus
            .write(phy, RegAddr::from_bits(reg), value)
            .map_err(Error::Mdio)
    }

    /// Poll SMI_CMD BUSY at `sw_addr` until clear (single frames, no indirection).
    pub(crate) fn smi_wait(&mut self, sw_addr: PhyAddr) -> Result<(), Error<M::Error>> {
        let poller = self.poller;
        let r = poller.try_poll(|| self.raw_read(sw_addr, SMI_CMD), |v| v & BUSY == 0);
        finish(r, BusyWait::SmiCmd).map(|_| ())
    }

    pub(crate) fn ensure_smi_ready(&mut self) -> Result<(), Error<M::Error>> {
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
    pub(crate) fn route(&self, dev: u8, reg: u8) -> Result<Option<(PhyAddr, u8)>, Error<M::Error>> {
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

    pub(crate) fn sw_addr(&self) -> PhyAddr {
        match self.addressing {
            Addressing::Indirect { sw_addr, .. } | Addressing::DualChip { sw_addr } => sw_addr,
            Addressing::Direct => PhyAddr::from_bits(0),
        }
    }

    /// Read without any BUSY bookkeeping of the target unit (SMI_CMD is still handled).
    /// A G1_STS value keeps its cleared-on-read interrupt sources for [`crate::irq`];
    /// 0xFFFF is the switch not answering (during or just after a reset, the bus idling
    /// high), not a set of events: it is not kept (Linux v6.12 `global1.c`,
    /// `mv88e6xxx_g1_is_eeprom_done`, treats it the same way).
    pub(crate) fn dev_read(&mut self, dev: u8, reg: u8) -> Result<u16, Error<M::Error>> {
        let v = self.dev_read_inner(dev, reg)?;
        if dev == self.map.global1 && reg == regs::g1::STS && v != regs::NOT_ANSWERING {
            self.g1_sts_seen |= v & crate::irq::G1_STS_CLEARED_ON_READ;
        }
        Ok(v)
    }

    fn dev_read_inner(&mut self, dev: u8, reg: u8) -> Result<u16, Error<M::Error>> {
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
}
