//! Linux's indirect-access polling from before its "Improve indirect addressing
//! performance" patches on the model, and the seed-proof measurements (feature
//! `unstable-baselines`: for this crate's own benches and seed-proof tests; not part of the
//! public API, no semver promise).
//!
//! [`LegacySmi`] replays the indirect access of Linux before those patches: BUSY polled before
//! *and* after every command, with 16 tries and 1.5 ms sleeps ([`LegacyPoll::PreSeed`]), or
//! with seed patch 1's tight 50 ms poll and the check before every access still in place
//! ([`LegacyPoll::Patch1`]). [`measure_access`] and [`seed_workload`] measure frames and
//! virtual time per [`Strategy`], this crate's [`Switch`] included.

use core::convert::Infallible;

use hwtimer_core::poll::Poller;
use hwtimer_core::sim::SimCounter;
use mdio_bus::sim::{MdioDevice, SimMdio};
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use super::{Attach, BusyDelay, ChipModel, SwitchModel, SwitchSim};
use crate::chip::{Chip, Family};

// This baseline's own register numbers (Linux `drivers/net/dsa/mv88e6xxx/smi.h`
// `MV88E6XXX_SMI_CMD`, `_SMI_DATA`, `_SMI_CMD_BUSY`, `_SMI_CMD_MODE_22`,
// `_SMI_CMD_OP_22_READ`/`_WRITE`; `port.h` `MV88E6XXX_PORT_SWITCH_ID`), not the driver's.
const SMI_CMD: u8 = 0x00;
const SMI_DATA: u8 = 0x01;
const BUSY: u16 = 0x8000;
const PORT_SWITCH_ID: u8 = 0x03;
const SMI_CMD_MODE_22: u16 = 0x1000;
const SMI_CMD_OP_22_READ: u16 = 0x0800;
const SMI_CMD_OP_22_WRITE: u16 = 0x0400;

/// A clause 22 SMI_CMD word: BUSY | MODE_22 | OP | DEV \[9:5\] | REG \[4:0\] (smi.h).
fn smi_cmd(op: u16, dev: u8, reg: u8) -> u16 {
    BUSY | SMI_CMD_MODE_22 | op | (u16::from(dev & 0x1F) << 5) | u16::from(reg & 0x1F)
}
use crate::{Addressing, Config, Error, Switch};

/// The pre-seed sleep between polls: `usleep_range(1000, 2000)`, modelled as its middle.
pub const PRE_SEED_SLEEP_NS: u64 = 1_500_000;
/// The pre-seed number of tries.
pub const PRE_SEED_TRIES: u32 = 16;
/// The patches' measurement, modelled deterministically: "about a 50% chance of the bit
/// being cleared on the first poll, all other accesses see the bit being cleared on the
/// second poll". The first poll completes one frame (25.6 µs) after the command and the
/// second one frame later, so SMI_CMD commands alternate between clearing after 20 µs
/// (seen by the first poll) and after 40 µs (seen by the second).
pub const SEED_BUSY_PATTERN_NS: [u64; 2] = [20_000, 40_000];
/// `time modprobe mv88e6xxx` before the patches (3 chips, 20 ports): 15.99 s.
pub const SEED_BEFORE_NS: u64 = 15_990_000_000;
/// The same after patch 1 (tight 50 ms poll): 2.21 s.
pub const SEED_AFTER_NS: u64 = 2_210_000_000;

fn ok<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// The pre-seed indirect-access strategies, for comparison only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegacyPoll {
    /// Before the patches: BUSY polled before and after every command, up to 16 reads with a
    /// 1.5 ms sleep after each unsuccessful one.
    PreSeed,
    /// The first patch alone: BUSY still polled before and after, but with a tight 50 ms
    /// bounded poll (hwtimer-core's `Poller`).
    Patch1,
}

/// The old indirect access of Linux before the patches (facts from their diffs), replayed
/// on the sim: wait BUSY, command, wait BUSY, data — 4 frames per access when BUSY is clear
/// at once. Never use outside comparisons.
#[derive(Debug)]
pub struct LegacySmi<'a, D: MdioDevice> {
    bus: &'a mut SimMdio<D>,
    counter: &'a SimCounter,
    sw_addr: PhyAddr,
    poll: LegacyPoll,
}

/// A legacy wait gave up: SMI_CMD BUSY still set after the strategy's last poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyTimeout;

impl core::fmt::Display for LegacyTimeout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("legacy SMI_CMD BUSY wait gave up")
    }
}

impl core::error::Error for LegacyTimeout {}

/// Why a measurement failed (on the default model none does; a busy pattern that never
/// clears makes every strategy fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeasureError {
    /// This crate's driver returned an error.
    Driver(Error<Infallible>),
    /// A legacy strategy's wait gave up.
    Legacy(LegacyTimeout),
    /// A legacy strategy read a PORT_SWITCH_ID that is not in the chip table.
    UnknownSwitchId {
        /// The raw PORT_SWITCH_ID value.
        raw: u16,
    },
}

impl From<Error<Infallible>> for MeasureError {
    fn from(e: Error<Infallible>) -> Self {
        MeasureError::Driver(e)
    }
}

impl From<LegacyTimeout> for MeasureError {
    fn from(e: LegacyTimeout) -> Self {
        MeasureError::Legacy(e)
    }
}

impl core::fmt::Display for MeasureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MeasureError::Driver(e) => write!(f, "driver: {e}"),
            MeasureError::Legacy(e) => write!(f, "{e}"),
            MeasureError::UnknownSwitchId { raw } => write!(f, "unknown switch id {raw:#06x}"),
        }
    }
}

impl core::error::Error for MeasureError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            MeasureError::Driver(e) => Some(e),
            MeasureError::Legacy(e) => Some(e),
            MeasureError::UnknownSwitchId { .. } => None,
        }
    }
}

impl<'a, D: MdioDevice> LegacySmi<'a, D> {
    /// A switch at `sw_addr` on `bus`.
    pub fn new(
        bus: &'a mut SimMdio<D>,
        counter: &'a SimCounter,
        sw_addr: PhyAddr,
        poll: LegacyPoll,
    ) -> Self {
        Self {
            bus,
            counter,
            sw_addr,
            poll,
        }
    }

    fn wait(&mut self) -> Result<(), LegacyTimeout> {
        let sw = self.sw_addr;
        let cmd = RegAddr::from_bits(SMI_CMD);
        let bus = &mut *self.bus;
        match self.poll {
            // The pre-seed driver: up to PRE_SEED_TRIES reads with a fixed sleep after each
            // busy one, no deadline, no read after the last sleep.
            LegacyPoll::PreSeed => {
                let clock = bus.clock().clone();
                for _ in 0..PRE_SEED_TRIES {
                    if ok(bus.read(sw, cmd)) & BUSY == 0 {
                        return Ok(());
                    }
                    clock.advance(PRE_SEED_SLEEP_NS);
                }
                Err(LegacyTimeout)
            }
            LegacyPoll::Patch1 => Poller::new(self.counter)
                .timeout_ms(50)
                .poll(|| ok(bus.read(sw, cmd)), |v| v & BUSY == 0)
                .map(|_| ())
                .map_err(|_| LegacyTimeout),
        }
    }

    /// Indirect read: wait, SMI_CMD write, wait, SMI_DATA read.
    pub fn read(&mut self, dev: u8, reg: u8) -> Result<u16, LegacyTimeout> {
        self.wait()?;
        ok(self.bus.write(
            self.sw_addr,
            RegAddr::from_bits(SMI_CMD),
            smi_cmd(SMI_CMD_OP_22_READ, dev, reg),
        ));
        self.wait()?;
        Ok(ok(self
            .bus
            .read(self.sw_addr, RegAddr::from_bits(SMI_DATA))))
    }

    /// Indirect write: wait, SMI_DATA write, SMI_CMD write, wait.
    pub fn write(&mut self, dev: u8, reg: u8, value: u16) -> Result<(), LegacyTimeout> {
        self.wait()?;
        ok(self
            .bus
            .write(self.sw_addr, RegAddr::from_bits(SMI_DATA), value));
        ok(self.bus.write(
            self.sw_addr,
            RegAddr::from_bits(SMI_CMD),
            smi_cmd(SMI_CMD_OP_22_WRITE, dev, reg),
        ));
        self.wait()
    }
}

/// Which access strategy a measurement uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// [`LegacyPoll::PreSeed`].
    PreSeed,
    /// [`LegacyPoll::Patch1`].
    Patch1,
    /// This crate's [`Switch`] (both seed patches).
    ThisCrate,
}

impl Strategy {
    /// The legacy poll this strategy replays, `None` for this crate's driver.
    const fn legacy(self) -> Option<LegacyPoll> {
        match self {
            Strategy::PreSeed => Some(LegacyPoll::PreSeed),
            Strategy::Patch1 => Some(LegacyPoll::Patch1),
            Strategy::ThisCrate => None,
        }
    }
}

/// Frames and virtual time of a measured piece of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// MDIO frames.
    pub frames: u64,
    /// Virtual time, ns.
    pub ns: u64,
}

/// The seed's bus: a 6097 (Opal) in multi-chip mode at `sw_addr` 2 on a 2.5 MHz bus,
/// SMI_CMD BUSY following `busy`.
fn one_opal(busy: BusyDelay) -> SwitchSim {
    SwitchSim::single(ChipModel::new(Chip::Mv6097, Attach::Indirect(2)).with_smi_busy(busy))
}

/// Frames and virtual time of `n` indirect register accesses (writes if `write`, else
/// reads, to port 0 register 1) with `strategy`, SMI_CMD BUSY following `busy`. Set-up
/// (the driver's one-time initial BUSY check) is excluded.
pub fn measure_access(
    strategy: Strategy,
    write: bool,
    n: u32,
    busy: BusyDelay,
) -> Result<Cost, MeasureError> {
    let mut sim = one_opal(busy);
    let sw = PhyAddr::from_bits(2);
    let (dev, reg) = (0x10, 0x01);
    let Some(poll) = strategy.legacy() else {
        let mut smi = Switch::new(
            &mut sim.bus,
            &sim.counter,
            Addressing::Indirect {
                sw_addr: sw,
                remap_6393x: false,
            },
            Chip::Mv6097,
            Config::new(),
        )?;
        let (f0, t0) = (smi.frames(), sim.clock.now_ns());
        for i in 0..n {
            if write {
                smi.port_write(0, reg, i as u16)?;
            } else {
                smi.port_read(0, reg)?;
            }
        }
        return Ok(Cost {
            frames: smi.frames() - f0,
            ns: sim.clock.now_ns() - t0,
        });
    };
    let t0 = sim.clock.now_ns();
    let mut legacy = LegacySmi::new(&mut sim.bus, &sim.counter, sw, poll);
    for i in 0..n {
        if write {
            legacy.write(dev, reg, i as u16)?;
        } else {
            legacy.read(dev, reg)?;
        }
    }
    Ok(Cost {
        frames: sim.bus.frames(),
        ns: sim.clock.now_ns() - t0,
    })
}

/// The seed's system: 2 Opals (6097) and an Agate (6352) in multi-chip mode at
/// `sw_addr` 2, 4 and 6 on one 2.5 MHz bus, SMI_CMD BUSY following
/// [`SEED_BUSY_PATTERN_NS`], 20 ports used (7 + 7 + 6).
pub fn seed_system() -> SwitchSim {
    let chip = |c, a| {
        ChipModel::new(c, Attach::Indirect(a))
            .with_smi_busy(BusyDelay::cycle(&SEED_BUSY_PATTERN_NS))
    };
    SwitchSim::new(
        SwitchModel::new()
            .with_chip(chip(Chip::Mv6097, 2))
            .with_chip(chip(Chip::Mv6097, 4))
            .with_chip(chip(Chip::Mv6352, 6)),
    )
}

/// Ports used per chip of [`seed_system`].
pub const SEED_PORTS: [u8; 3] = [7, 7, 6];

/// A probe-like workload on [`seed_system`]: for each chip, identify (PORT_SWITCH_ID),
/// then `accesses_per_chip` register accesses alternating read and write over its ports
/// (port registers 0x01..0x1F round-robin, skipping PORT_SWITCH_ID). Returns the frames
/// and virtual time of the whole workload, including each chip's one-time initial BUSY
/// check for [`Strategy::ThisCrate`].
///
/// Our sources do not list what `modprobe mv88e6xxx` does register by register, so the
/// access count is a parameter: the bench sets it to the number of accesses that makes the
/// pre-seed strategy take the seed's 15.99 s on this model ([`implied_accesses`]), then
/// compares the other strategies' times with the seed's 2.21 s.
pub fn seed_workload(strategy: Strategy, accesses_per_chip: u32) -> Result<Cost, MeasureError> {
    let mut sim = seed_system();
    let t0 = sim.clock.now_ns();
    let mut frames = 0;
    for (i, &ports) in SEED_PORTS.iter().enumerate() {
        let sw = PhyAddr::from_bits(2 + 2 * i as u8);
        // 6097 and 6352 are both in the 6085 family (docs/mv88e6xxx.md#address-map): ports
        // from device 0x10.
        let family = Family::Mv6085;
        let target = |k: u32| {
            let port = (k % u32::from(ports)) as u8;
            let reg = 1 + ((k / u32::from(ports)) % 30) as u8;
            let reg = if reg >= PORT_SWITCH_ID { reg + 1 } else { reg };
            (port, reg)
        };
        let Some(poll) = strategy.legacy() else {
            let (mut smi, _id) =
                Switch::probe(&mut sim.bus, &sim.counter, sw.get(), family, Config::new())?;
            for k in 0..accesses_per_chip {
                let (port, reg) = target(k);
                if k % 2 == 0 {
                    smi.port_read(port, reg)?;
                } else {
                    smi.port_write(port, reg, k as u16)?;
                }
            }
            frames += smi.frames();
            continue;
        };
        let f0 = sim.bus.frames();
        let mut legacy = LegacySmi::new(&mut sim.bus, &sim.counter, sw, poll);
        let raw = legacy.read(0x10, PORT_SWITCH_ID)?;
        if crate::chip::identify(raw).is_none() {
            return Err(MeasureError::UnknownSwitchId { raw });
        }
        for k in 0..accesses_per_chip {
            let (port, reg) = target(k);
            if k % 2 == 0 {
                legacy.read(0x10 + port, reg)?;
            } else {
                legacy.write(0x10 + port, reg, k as u16)?;
            }
        }
        frames += sim.bus.frames() - f0;
    }
    Ok(Cost {
        frames,
        ns: sim.clock.now_ns() - t0,
    })
}

/// How many indirect accesses make the pre-seed strategy take `target_ns` on the model,
/// from its measured average cost per access (`pre_seed_avg_ns`): `round(target / avg)`.
pub fn implied_accesses(target_ns: u64, pre_seed_avg_ns: f64) -> u64 {
    if pre_seed_avg_ns <= 0.0 {
        return 0;
    }
    (target_ns as f64 / pre_seed_avg_ns).round() as u64
}
