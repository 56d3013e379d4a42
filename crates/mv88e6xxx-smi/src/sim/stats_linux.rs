//! Linux's MIB statistics sequence replayed on the model (feature `unstable-baselines`:
//! for this crate's benches and tests; not public API, no semver promise).
//!
//! [`LinuxStats`] issues the MDIO frames Linux's mv88e6xxx driver issues, in its register
//! order (docs/mv88e6xxx.md#mib-statistics), without going through [`Switch`](crate::Switch):
//!
//! - register access as `smi.c` does it: direct (one frame at the device address),
//!   dual-chip (one frame at `sw_addr + dev`), or indirect (read: SMI_CMD write, SMI_CMD
//!   polled until BUSY clears, SMI_DATA read; write: SMI_DATA write, SMI_CMD write, poll),
//!   without the 6393X remap (mainline `smi.c` has none: it is an out-of-tree patch,
//!   docs/mv88e6xxx.md#6393x-remap);
//! - a BUSY wait as `mv88e6xxx_wait_mask`: two reads back to back, then a 1.5 ms sleep
//!   (the middle of `usleep_range(1000, 2000)`) before each further read, 50 ms deadline,
//!   one read after it;
//! - the snapshot of `mv88e6xxx_get_ethtool_stats` for the bank-0 counters: the capture
//!   op of the chip's `stats_snapshot` and its wait, then per counter of the
//!   `mv88e6xxx_hw_stats` table (in its order) `mv88e6xxx_g1_stats_read` of its index
//!   (and of index + 1 for the 8-byte ones): op write, wait, COUNTER_32 read, COUNTER_01
//!   read;
//! - the full `stats_get_stats` of the chip ([`LinuxStats::snapshot_all`]): the same
//!   capture and bank-0 reads, then, in table order, the PORT-type entries
//!   ([`LINUX_PORT`]: `mv88e6xxx_port_read` of the register, and of register + 1 for the
//!   4-byte one, high half) on the chips that read them, or the BANK1-type entries
//!   ([`LINUX_BANK1`]: `mv88e6xxx_g1_stats_read` of bank-1 select | index | histogram
//!   bits) on the chips with a bank-1 select bit
//!   (docs/mv88e6xxx.md#mib-bank-1-and-port-counters);
//! - `mv88e6xxx_g1_stats_clear` (the version that keeps only the histogram bits of the
//!   value read): STATS_OP read, written back as those bits | BUSY | FLUSH_ALL, wait.

use mdio_bus::sim::SimMdio;
use mdio_bus::{Mdio, PhyAddr, RegAddr};

use super::{Attach, SwitchModel};
use crate::chip::Chip;
use crate::stats::HistogramAt;

// This baseline's own register numbers (Linux `drivers/net/dsa/mv88e6xxx/smi.h`
// `MV88E6XXX_SMI_CMD`, `_SMI_DATA`, `_SMI_CMD_BUSY`; `global1.h` `MV88E6XXX_G1_STATS_*`),
// not the driver's.
const SMI_CMD: u8 = 0x00;
const SMI_DATA: u8 = 0x01;
const BUSY: u16 = 0x8000;
/// global1.h `MV88E6XXX_G1_STATS_OP_FLUSH_ALL`.
const STATS_OP_FLUSH_ALL: u16 = 0x1000;
/// global1.h `MV88E6XXX_G1_STATS_OP_READ_CAPTURED`.
const STATS_OP_READ_CAPTURED: u16 = 0x4000;
/// global1.h `MV88E6XXX_G1_STATS_OP_CAPTURE_PORT`.
const STATS_OP_CAPTURE_PORT: u16 = 0x5000;
mod g1 {
    pub(super) const STATS_OP: u8 = 0x1D;
    pub(super) const STATS_COUNTER_32: u8 = 0x1E;
    pub(super) const STATS_COUNTER_01: u8 = 0x1F;
}

/// Linux's HIST_RX_TX bits, which its 6095/6320-style snapshot and read words carry.
const HIST_RX_TX: u16 = 0x0C00;
/// The sleep between polls after the first two: `usleep_range(1000, 2000)`, its middle.
const SLEEP_NS: u64 = 1_500_000;
/// Linux's busy-wait deadline.
const TIMEOUT_NS: u64 = 50_000_000;

/// Linux's bank-0 entries of `mv88e6xxx_hw_stats`, in table order: (index, bytes).
pub const LINUX_BANK0: [(u16, u8); 30] = [
    (0x00, 8),
    (0x02, 4),
    (0x04, 4),
    (0x06, 4),
    (0x07, 4),
    (0x16, 4),
    (0x18, 4),
    (0x19, 4),
    (0x1A, 4),
    (0x1B, 4),
    (0x1C, 4),
    (0x1D, 4),
    (0x0E, 8),
    (0x10, 4),
    (0x13, 4),
    (0x12, 4),
    (0x15, 4),
    (0x11, 4),
    (0x1E, 4),
    (0x05, 4),
    (0x14, 4),
    (0x17, 4),
    (0x03, 4),
    (0x1F, 4),
    (0x08, 4),
    (0x09, 4),
    (0x0A, 4),
    (0x0B, 4),
    (0x0C, 4),
    (0x0D, 4),
];

/// A busy bit did not clear by Linux's deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinuxTimeout;

impl core::fmt::Display for LinuxTimeout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Linux replay: busy bit still set after 50 ms")
    }
}

impl core::error::Error for LinuxTimeout {}

/// Linux's statistics sequence on one chip of a simulated bus; see the module docs.
#[derive(Debug)]
pub struct LinuxStats<'a> {
    bus: &'a mut SimMdio<SwitchModel>,
    chip: Chip,
    attach: Attach,
}

impl<'a> LinuxStats<'a> {
    /// Linux's driver for `chip`, attached as `attach`, on `bus`.
    pub fn new(bus: &'a mut SimMdio<SwitchModel>, chip: Chip, attach: Attach) -> Self {
        Self { bus, chip, attach }
    }

    fn frame_read(&mut self, phy: u8, reg: u8) -> u16 {
        match self
            .bus
            .read(PhyAddr::from_bits(phy), RegAddr::from_bits(reg))
        {
            Ok(v) => v,
            Err(never) => match never {},
        }
    }

    fn frame_write(&mut self, phy: u8, reg: u8, value: u16) {
        match self
            .bus
            .write(PhyAddr::from_bits(phy), RegAddr::from_bits(reg), value)
        {
            Ok(()) => {}
            Err(never) => match never {},
        }
    }

    /// `mv88e6xxx_wait_mask` on a raw read: `Ok` with the value once `v & mask == 0`.
    fn wait_clear(
        &mut self,
        mask: u16,
        mut read: impl FnMut(&mut Self) -> Result<u16, LinuxTimeout>,
    ) -> Result<u16, LinuxTimeout> {
        let start = self.bus.clock().now_ns();
        let mut i = 0u32;
        while self.bus.clock().now_ns() < start + TIMEOUT_NS || i < 2 {
            let v = read(self)?;
            if v & mask == 0 {
                return Ok(v);
            }
            if i >= 1 {
                self.bus.clock().advance(SLEEP_NS);
            }
            i += 1;
        }
        let v = read(self)?;
        if v & mask == 0 {
            Ok(v)
        } else {
            Err(LinuxTimeout)
        }
    }

    fn smi_wait(&mut self, sw: u8) -> Result<(), LinuxTimeout> {
        self.wait_clear(BUSY, |s| Ok(s.frame_read(sw, SMI_CMD)))
            .map(|_| ())
    }

    /// `mv88e6xxx_g1_read`.
    fn g1_read(&mut self, reg: u8) -> Result<u16, LinuxTimeout> {
        let g1 = self.chip.family().address_map().global1;
        match self.attach {
            Attach::Direct => Ok(self.frame_read(g1, reg)),
            Attach::DualChip(a) => Ok(self.frame_read(a + g1, reg)),
            Attach::Indirect(sw) => {
                self.frame_write(sw, SMI_CMD, 0x9800 | (u16::from(g1) << 5) | u16::from(reg));
                self.smi_wait(sw)?;
                Ok(self.frame_read(sw, SMI_DATA))
            }
        }
    }

    /// `mv88e6xxx_g1_write`.
    fn g1_write(&mut self, reg: u8, value: u16) -> Result<(), LinuxTimeout> {
        let g1 = self.chip.family().address_map().global1;
        match self.attach {
            Attach::Direct => self.frame_write(g1, reg, value),
            Attach::DualChip(a) => self.frame_write(a + g1, reg, value),
            Attach::Indirect(sw) => {
                self.frame_write(sw, SMI_DATA, value);
                self.frame_write(sw, SMI_CMD, 0x9400 | (u16::from(g1) << 5) | u16::from(reg));
                self.smi_wait(sw)?;
            }
        }
        Ok(())
    }

    /// `mv88e6xxx_g1_stats_wait`.
    fn stats_wait(&mut self) -> Result<(), LinuxTimeout> {
        self.wait_clear(BUSY, |s| s.g1_read(g1::STATS_OP))
            .map(|_| ())
    }

    /// The histogram bits of the chip's snapshot and read words.
    fn hist(&self) -> u16 {
        match self.chip.stats_layout().histogram {
            HistogramAt::StatsOp => HIST_RX_TX,
            HistogramAt::Ctl2 => 0,
        }
    }

    /// `mv88e6xxx_g1_stats_read` of `stat` (index | histogram bits).
    fn stats_read(&mut self, stat: u16) -> Result<u32, LinuxTimeout> {
        self.g1_write(g1::STATS_OP, BUSY | STATS_OP_READ_CAPTURED | stat)?;
        self.stats_wait()?;
        let hi = self.g1_read(g1::STATS_COUNTER_32)?;
        let lo = self.g1_read(g1::STATS_COUNTER_01)?;
        Ok((u32::from(hi) << 16) | u32::from(lo))
    }

    /// The chip's `stats_snapshot` of `port`, then its bank-0 counters in Linux's table
    /// order ([`LINUX_BANK0`]), 8-byte ones assembled low half first.
    pub fn snapshot(&mut self, port: u8) -> Result<[u64; 30], LinuxTimeout> {
        let field = self.chip.stats_layout().port_field.encode(port);
        let hist = self.hist();
        self.g1_write(g1::STATS_OP, BUSY | STATS_OP_CAPTURE_PORT | hist | field)?;
        self.stats_wait()?;
        let mut out = [0u64; 30];
        for (slot, &(index, bytes)) in out.iter_mut().zip(LINUX_BANK0.iter()) {
            let lo = self.stats_read(index | hist)?;
            let hi = if bytes == 8 {
                self.stats_read((index + 1) | hist)?
            } else {
                0
            };
            *slot = (u64::from(hi) << 32) | u64::from(lo);
        }
        Ok(out)
    }

    /// `mv88e6xxx_g1_stats_clear`.
    pub fn clear(&mut self) -> Result<(), LinuxTimeout> {
        let v = self.g1_read(g1::STATS_OP)?;
        self.g1_write(g1::STATS_OP, (v & HIST_RX_TX) | BUSY | STATS_OP_FLUSH_ALL)?;
        self.stats_wait()
    }
}

/// Linux's PORT-type entries of `mv88e6xxx_hw_stats`, in table order: (port register,
/// bytes).
pub const LINUX_PORT: [(u8, u8); 3] = [(0x10, 4), (0x12, 2), (0x13, 2)];

/// Linux's BANK1-type entries of `mv88e6xxx_hw_stats`, in table order: their indices.
pub const LINUX_BANK1: [u16; 26] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0E, 0x0F, 0x10, 0x11,
    0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1A, 0x1B, 0x1F,
];

/// What [`LinuxStats::snapshot_all`] read: bank 0, then the PORT-type values or the
/// bank-1 values (the other `None`, both on the 6250 family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinuxAll {
    /// Bank 0, in [`LINUX_BANK0`] order.
    pub bank0: [u64; 30],
    /// The port registers, in [`LINUX_PORT`] order.
    pub port: Option<[u64; 3]>,
    /// Bank 1, in [`LINUX_BANK1`] order.
    pub bank1: Option<[u64; 26]>,
}

impl LinuxStats<'_> {
    /// `mv88e6xxx_port_read`: register `reg` of device `port_base + port`.
    fn port_read(&mut self, port: u8, reg: u8) -> Result<u16, LinuxTimeout> {
        let dev = self.chip.family().address_map().port_base + port;
        match self.attach {
            Attach::Direct => Ok(self.frame_read(dev, reg)),
            Attach::DualChip(a) => Ok(self.frame_read(a + dev, reg)),
            Attach::Indirect(sw) => {
                self.frame_write(sw, SMI_CMD, 0x9800 | (u16::from(dev) << 5) | u16::from(reg));
                self.smi_wait(sw)?;
                Ok(self.frame_read(sw, SMI_DATA))
            }
        }
    }

    /// `mv88e6xxx_get_ethtool_stats` up to the chip's `stats_get_stats` (the SERDES and
    /// ATU/VTU-violation parts are not replayed): [`snapshot`](Self::snapshot), then the
    /// PORT-type or BANK1-type entries the chip's op includes.
    pub fn snapshot_all(&mut self, port: u8) -> Result<LinuxAll, LinuxTimeout> {
        let bank0 = self.snapshot(port)?;
        let layout = self.chip.stats_layout();
        let mut out = LinuxAll {
            bank0,
            port: None,
            bank1: None,
        };
        if layout.port_counters {
            let mut v = [0u64; 3];
            for (slot, &(reg, bytes)) in v.iter_mut().zip(LINUX_PORT.iter()) {
                let lo = self.port_read(port, reg)?;
                let hi = if bytes == 4 {
                    self.port_read(port, reg + 1)?
                } else {
                    0
                };
                *slot = (u64::from(hi) << 16) | u64::from(lo);
            }
            out.port = Some(v);
        }
        if let Some(bit) = layout.bank1_select {
            let hist = self.hist();
            let mut v = [0u64; 26];
            for (slot, &index) in v.iter_mut().zip(LINUX_BANK1.iter()) {
                *slot = u64::from(self.stats_read(bit | index | hist)?);
            }
            out.bank1 = Some(v);
        }
        Ok(out)
    }
}
