//! One switch chip's behaviour on the bus ([`ChipModel`]); see the [module docs](super).

use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use super::{Attach, BusyBit, BusyDelay};

// The switch's units, each in its own file (they reach the chip's registers directly):
// the address table, the VLAN and spanning-tree tables, the statistics unit, and the
// frames the model switches between its ports.
mod atu;
mod stats;
mod traffic;
mod vtu;
// Clause 45 frames through Global2 SMI_PHY.
mod c45;
// Ports' link, the PPU's view of the PHYs, the interrupt path and the software reset.
mod port;
// The managed-switch registers' indirect tables (trunk tables, priority map, EPC).
mod managed;
// The register numbers and fields the model answers to (its own, from Linux's headers).
mod regs;
use super::facts::{ChipFacts, LinuxFamily, PhyKind, chip_facts};
use crate::chip::Chip;
pub use port::{PhySpeed, RESET_NS};
use regs::{
    BUSY, C22Op, INIT_READY, PORT_SWITCH_ID, PPU_ENABLE, PPU_STATE_DISABLED,
    PPU_STATE_INITIALIZING, PPU_STATE_MASK, PPU_STATE_POLLING, SMI_CMD, SMI_DATA, g1, g2,
};

/// The PHY polling unit of a [`PhyKind::PpuGated`] chip.
#[derive(Debug, Clone)]
struct Ppu {
    /// PPU_ENABLE as last written.
    enabled: bool,
    /// The state reported before `settle_at` (the previous one) and from then on.
    settle_at: u64,
}

impl Ppu {
    fn state(&self, now: u64) -> u16 {
        match (self.enabled, now >= self.settle_at) {
            (true, true) => PPU_STATE_POLLING,
            (true, false) => PPU_STATE_INITIALIZING,
            (false, true) => PPU_STATE_DISABLED,
            (false, false) => PPU_STATE_POLLING,
        }
    }
}

/// One switch chip's behaviour; see the [module docs](super).
pub struct ChipModel {
    chip: Chip,
    revision: u8,
    attach: Attach,
    map: ChipFacts,
    phy_access: PhyKind,
    remap: bool,
    ports: Vec<[u16; 32]>,
    g1: [u16; 32],
    g2: [u16; 32],
    phys: Vec<Box<dyn MdioDevice>>,
    smi_cmd: u16,
    smi_data: u16,
    smi: BusyBit,
    smi_delay: BusyDelay,
    g1_ops: [BusyBit; 3],
    g1_delay: BusyDelay,
    phy: BusyBit,
    phy_delay: BusyDelay,
    init_ready_at_ns: Option<u64>,
    ppu: Option<Ppu>,
    ppu_delay: BusyDelay,
    ppu_collisions: u64,
    dropped: u64,
    smi_commands: u64,
    mib: stats::MibModel,
    // Ports' link, interrupts and reset (chip_model/port.rs).
    port_phys: Vec<Option<port::PortPhy>>,
    polled: Vec<u16>,
    ppu_starts: u64,
    ppu_stops: u64,
    ppu_last_start_ns: Option<u64>,
    reset_ns: u64,
    resets: u64,
    link_events: Vec<(u64, usize, bool)>,
    // Indirect management tables (chip_model/port.rs): G1 MONITOR_MGMT_CTL and the 6393
    // family's per-port POLICY_MGMT_CTL, each 64 bytes behind a 6-bit pointer.
    monitor_mgmt: port::MgmtTable,
    port_mgmt: Vec<port::MgmtTable>,
    atu: atu::AtuModel,
    vtu: vtu::VtuModel,
    managed: managed::ManagedTables,
}

impl core::fmt::Debug for ChipModel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChipModel")
            .field("chip", &self.chip)
            .field("attach", &self.attach)
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

const G1_OP_REGS: [u8; 3] = [g1::ATU_OP, g1::VTU_OP, g1::STATS_OP];

impl ChipModel {
    /// A `chip` (revision 0) wired as `attach`. Defaults: every busy bit clears 20 µs
    /// after its operation starts (before a poll one 25.6 µs frame later), INIT_READY set
    /// from t = 0, no internal PHYs; on a [`PhyKind::PpuGated`] chip the PPU is enabled
    /// and polling, and changes state 20 µs after PPU_ENABLE changes.
    pub fn new(chip: Chip, attach: Attach) -> Self {
        let map = chip_facts(chip);
        let nports = usize::from(map.num_ports);
        let mut g1 = [0u16; 32];
        let ppu = (map.phy == PhyKind::PpuGated).then(|| {
            g1[usize::from(g1::CTL1)] = PPU_ENABLE;
            Ppu {
                enabled: true,
                settle_at: 0,
            }
        });
        let mut ports = vec![[0u16; 32]; nports];
        for p in &mut ports {
            p[usize::from(PORT_SWITCH_ID)] = map.product_num;
        }
        let mut model = Self {
            chip,
            revision: 0,
            attach,
            map,
            phy_access: map.phy,
            remap: map.family == LinuxFamily::F6393 && matches!(attach, Attach::Indirect(_)),
            ports,
            g1,
            g2: [0; 32],
            phys: Vec::new(),
            smi_cmd: 0,
            smi_data: 0,
            smi: BusyBit::default(),
            smi_delay: BusyDelay::fixed(20_000),
            g1_ops: Default::default(),
            g1_delay: BusyDelay::fixed(20_000),
            phy: BusyBit::default(),
            phy_delay: BusyDelay::fixed(20_000),
            init_ready_at_ns: Some(0),
            ppu,
            ppu_delay: BusyDelay::fixed(20_000),
            ppu_collisions: 0,
            dropped: 0,
            smi_commands: 0,
            mib: stats::MibModel::new(chip, nports),
            port_phys: Vec::new(),
            polled: Vec::new(),
            ppu_starts: 0,
            ppu_stops: 0,
            ppu_last_start_ns: None,
            reset_ns: port::RESET_NS,
            resets: 0,
            link_events: Vec::new(),
            monitor_mgmt: port::MgmtTable::default(),
            port_mgmt: vec![port::MgmtTable::default(); nports],
            atu: atu::AtuModel::default(),
            vtu: vtu::VtuModel::default(),
            managed: managed::ManagedTables::default(),
        };
        model.frame_path_reset();
        model
    }

    /// [`PhyKind::PpuGated`] chips: whether the PPU runs at t = 0 (default `true`:
    /// G1_CTL1 PPU_ENABLE set, state polling); `false`: disabled at reset. No effect on
    /// other chips.
    pub fn with_ppu_enabled(mut self, enabled: bool) -> Self {
        if let Some(ppu) = &mut self.ppu {
            ppu.enabled = enabled;
            ppu.settle_at = 0;
            let ctl1 = &mut self.g1[usize::from(g1::CTL1)];
            *ctl1 = if enabled {
                *ctl1 | PPU_ENABLE
            } else {
                *ctl1 & !PPU_ENABLE
            };
        }
        self
    }

    /// How long a PPU state change takes after PPU_ENABLE changes (stuck: never).
    pub fn with_ppu_busy(mut self, d: BusyDelay) -> Self {
        self.ppu_delay = d;
        self
    }

    /// Host PHY accesses that collided with the running PPU (reads answered 0xFFFF,
    /// writes lost).
    pub fn ppu_collisions(&self) -> u64 {
        self.ppu_collisions
    }

    /// The PPU state G1_STS reports at `now_ns` (`None` on chips without a PPU to stop).
    pub fn ppu_state(&self, now_ns: u64) -> Option<u16> {
        self.ppu.as_ref().map(|p| p.state(now_ns))
    }

    /// Whether device `dev` is a PHY's register set (chips that reach PHYs as devices).
    fn is_phy_dev(&self, dev: u8) -> bool {
        self.phy_access != PhyKind::Global2
            && dev
                .checked_sub(self.map.phy_base)
                .is_some_and(|n| usize::from(n) < self.ports.len())
            && dev != self.map.global1
            && dev != self.map.global2
    }

    /// Whether the PPU owns the PHY bus at `now` (a host access collides).
    fn ppu_owns_phys(&self, now: u64) -> bool {
        self.ppu
            .as_ref()
            .is_some_and(|p| p.state(now) != PPU_STATE_DISABLED)
    }

    /// Silicon revision reported in PORT_SWITCH_ID.
    pub fn with_revision(mut self, rev: u8) -> Self {
        self.revision = rev & 0xF;
        let id = self.map.product_num | u16::from(self.revision);
        for p in &mut self.ports {
            p[usize::from(PORT_SWITCH_ID)] = id;
        }
        self
    }

    /// BUSY timing of SMI_CMD.
    pub fn with_smi_busy(mut self, d: BusyDelay) -> Self {
        self.smi_delay = d;
        self
    }

    /// BUSY timing of the Global1 ATU/VTU/STATS operations.
    pub fn with_g1_busy(mut self, d: BusyDelay) -> Self {
        self.g1_delay = d;
        self
    }

    /// BUSY timing of Global2 SMI_PHY_CMD.
    pub fn with_phy_busy(mut self, d: BusyDelay) -> Self {
        self.phy_delay = d;
        self
    }

    /// G1_STS INIT_READY sets at `ns` (`None`: never).
    pub fn with_init_ready_at(mut self, ns: Option<u64>) -> Self {
        self.init_ready_at_ns = ns;
        self
    }

    /// Put an internal PHY on the Global2 SMI_PHY bus (and, in direct mode, at its own
    /// address when no port or global uses it).
    pub fn with_phy(mut self, phy: impl MdioDevice + 'static) -> Self {
        self.phys.push(Box::new(phy));
        self
    }

    /// The chip.
    pub fn chip(&self) -> Chip {
        self.chip
    }

    /// Writes to SMI_CMD/SMI_DATA or G1 operation registers that arrived while BUSY was
    /// set and were dropped (the documented assumption).
    pub fn dropped_writes(&self) -> u64 {
        self.dropped
    }

    /// SMI_CMD commands accepted (each started a frame inside the switch).
    pub fn smi_commands(&self) -> u64 {
        self.smi_commands
    }

    /// A port register as the model holds it (for tests).
    pub fn port_reg(&self, port: usize, reg: u8) -> Option<u16> {
        self.ports.get(port).map(|p| p[usize::from(reg & 0x1F)])
    }

    /// A Global1 register as the model holds it, without BUSY (for tests).
    pub fn g1_reg(&self, reg: u8) -> u16 {
        self.g1[usize::from(reg & 0x1F)]
    }

    /// A Global2 register as the model holds it (for tests).
    pub fn g2_reg(&self, reg: u8) -> u16 {
        self.g2[usize::from(reg & 0x1F)]
    }

    pub(super) fn answers(&self, phy: u8) -> bool {
        match self.attach {
            Attach::Direct => true,
            Attach::Indirect(a) => phy == a,
            Attach::DualChip(a) => phy >= a && phy - a < 16,
        }
    }

    fn settle(&mut self, now: u64) {
        if let Some(v) = self.smi.settle(now) {
            self.smi_data = v;
        }
        if let Some(v) = self.phy.settle(now) {
            self.g2[usize::from(g2::SMI_PHY_DATA)] = v;
        }
        for unit in 0..G1_OP_REGS.len() {
            let b = &mut self.g1_ops[unit];
            let was_busy = b.until.is_some();
            b.settle(now);
            if was_busy && b.until.is_none() {
                self.g1_op_done(unit, now);
            }
        }
        self.ppu_poll(now);
    }

    fn phy_read(&mut self, now: u64, phy: u8, reg: u8) -> u16 {
        if let Some(v) = self.port_phy_read(phy, reg) {
            return v;
        }
        let (p, r) = (PhyAddr::from_bits(phy), RegAddr::from_bits(reg));
        let mut v = 0xFFFF;
        for d in &mut self.phys {
            v &= d.read(now, p, r);
        }
        v
    }

    fn phy_write(&mut self, now: u64, phy: u8, reg: u8, value: u16) {
        if self.port_phy_write(phy, reg, value) {
            return;
        }
        let (p, r) = (PhyAddr::from_bits(phy), RegAddr::from_bits(reg));
        for d in &mut self.phys {
            d.write(now, p, r, value);
        }
    }

    /// Register `reg` of device `dev` inside the chip.
    fn dev_read(&mut self, now: u64, dev: u8, reg: u8) -> u16 {
        let r = usize::from(reg & 0x1F);
        if dev == self.map.global1 {
            let mut v = self.g1[r];
            if reg == g1::STS && self.init_ready_at_ns.is_some_and(|t| now >= t) {
                v |= INIT_READY;
            }
            if reg == g1::STS
                && let Some(state) = self.ppu_state(now)
            {
                v = (v & !PPU_STATE_MASK) | state;
            }
            if reg == g1::STS {
                v |= self.g1_sts_irq_bits(now);
            }
            if let Some(v) = self.g1_mgmt_read(reg) {
                return v;
            }
            if let Some(i) = G1_OP_REGS.iter().position(|&x| x == reg)
                && self.g1_ops[i].busy(now)
            {
                v |= BUSY;
            }
            return v;
        }
        if dev == self.map.global2 {
            let mut v = self.g2[r];
            if reg == g2::SMI_PHY_CMD && self.phy.busy(now) {
                v |= BUSY;
            }
            if reg == 0 {
                v |= self.g2_int_src();
            }
            return v;
        }
        if let Some(p) = dev.checked_sub(self.map.port_base).map(usize::from)
            && let Some(port) = self.ports.get(p)
        {
            if r == 0 {
                return self.port_sts(p);
            }
            if let Some(v) = self.port_mgmt_read(p, reg) {
                return v;
            }
            if let Some(v) = self.mib_port_reg_read(p, reg) {
                return v;
            }
            return port[r];
        }
        if self.is_phy_dev(dev) {
            if self.ppu_owns_phys(now) {
                self.ppu_collisions += 1;
                return 0xFFFF;
            }
            return self.phy_read(now, dev, reg);
        }
        if matches!(self.attach, Attach::Direct) {
            return self.phy_read(now, dev, reg);
        }
        0xFFFF
    }

    fn dev_write(&mut self, now: u64, dev: u8, reg: u8, value: u16) {
        let r = usize::from(reg & 0x1F);
        if dev == self.map.global1 {
            if let Some(i) = G1_OP_REGS.iter().position(|&x| x == reg) {
                if self.g1_ops[i].busy(now) {
                    self.dropped += 1;
                    return;
                }
                if value & BUSY != 0 {
                    self.g1_ops[i].start(now, &mut self.g1_delay);
                }
            }
            if reg == g1::STS {
                return; // status: read-only
            }
            if self.g1_mgmt_written(reg, value) {
                return;
            }
            let value = if reg == g1::CTL1 {
                self.g1_ctl1_written(now, value)
            } else {
                value
            };
            if reg == g1::CTL1
                && let Some(ppu) = &mut self.ppu
            {
                let enable = value & PPU_ENABLE != 0;
                if enable != ppu.enabled {
                    ppu.enabled = enable;
                    ppu.settle_at = match self.ppu_delay.take() {
                        Some(d) => now.saturating_add(d),
                        None => u64::MAX,
                    };
                }
            }
            self.g1[r] = if G1_OP_REGS.contains(&reg) {
                value & !BUSY
            } else {
                value
            };
            if let Some(unit) = G1_OP_REGS.iter().position(|&x| x == reg)
                && value & BUSY != 0
            {
                self.g1_op_started(unit, now, value);
            }
            return;
        }
        if dev == self.map.global2 && self.g2_trunk_written(reg, value) {
            return;
        }
        if dev == self.map.global2 && self.phy_access != PhyKind::Global2 {
            // No SMI_PHY unit on this chip: plain registers.
            self.g2[r] = value;
            return;
        }
        if dev == self.map.global2 {
            if (reg == g2::SMI_PHY_CMD || reg == g2::SMI_PHY_DATA) && self.phy.busy(now) {
                self.dropped += 1;
                return;
            }
            if reg == g2::SMI_PHY_CMD {
                self.g2[r] = value & !BUSY;
                if value & BUSY != 0 {
                    let cmd = regs::decode_cmd(value);
                    let data = usize::from(g2::SMI_PHY_DATA);
                    self.phy.pending = match (cmd.clause22, cmd.op) {
                        (true, Some(C22Op::Read)) => Some(self.phy_read(now, cmd.dev, cmd.reg)),
                        (true, Some(C22Op::Write)) => {
                            let v = self.g2[data];
                            self.phy_write(now, cmd.dev, cmd.reg, v);
                            None
                        }
                        (false, _) => self.phy_c45_started(now, value),
                        _ => None,
                    };
                    self.phy.start(now, &mut self.phy_delay);
                }
                return;
            }
            self.g2[r] = value;
            return;
        }
        if let Some(p) = dev.checked_sub(self.map.port_base).map(usize::from)
            && p < self.ports.len()
        {
            if self.port_managed_written(p, reg, value) {
                return;
            }
            if self.port_mgmt_written(p, reg, value) {
                return;
            }
            if self.mib_port_reg_written(reg) {
                return;
            }
            if let Some(port) = self.ports.get_mut(p)
                && reg != PORT_SWITCH_ID
            {
                port[r] = value;
            }
            return;
        }
        if self.is_phy_dev(dev) {
            if self.ppu_owns_phys(now) {
                self.ppu_collisions += 1;
                return;
            }
            self.phy_write(now, dev, reg, value);
            return;
        }
        if matches!(self.attach, Attach::Direct) {
            self.phy_write(now, dev, reg, value);
        }
    }

    /// A frame to this chip at bus address `phy`.
    pub(super) fn frame_read(&mut self, now: u64, phy: u8, reg: u8) -> u16 {
        self.settle(now);
        match self.attach {
            Attach::Direct => self.dev_read(now, phy, reg),
            Attach::DualChip(a) => self.dev_read(now, phy - a, reg),
            Attach::Indirect(_) => match reg {
                SMI_CMD => {
                    let busy = if self.smi.busy(now) { BUSY } else { 0 };
                    (self.smi_cmd & !BUSY) | busy
                }
                SMI_DATA => self.smi_data,
                _ => match self.remapped(reg) {
                    Some((dev, r)) => self.dev_read(now, dev, r),
                    None => 0xFFFF,
                },
            },
        }
    }

    pub(super) fn frame_write(&mut self, now: u64, phy: u8, reg: u8, value: u16) {
        self.settle(now);
        match self.attach {
            Attach::Direct => self.dev_write(now, phy, reg, value),
            Attach::DualChip(a) => self.dev_write(now, phy - a, reg, value),
            Attach::Indirect(_) => match reg {
                SMI_CMD | SMI_DATA if self.smi.busy(now) => self.dropped += 1,
                SMI_DATA => self.smi_data = value,
                SMI_CMD => {
                    self.smi_cmd = value;
                    if value & BUSY == 0 {
                        return;
                    }
                    self.smi_commands += 1;
                    let cmd = regs::decode_cmd(value);
                    self.smi.pending = match (cmd.clause22, cmd.op) {
                        (true, Some(C22Op::Read)) => Some(self.dev_read(now, cmd.dev, cmd.reg)),
                        (true, Some(C22Op::Write)) => {
                            let v = self.smi_data;
                            self.dev_write(now, cmd.dev, cmd.reg, v);
                            None
                        }
                        // Clause 45 and reserved opcodes: not modelled, complete as no-ops.
                        _ => None,
                    };
                    self.smi.start(now, &mut self.smi_delay);
                }
                _ => {
                    if let Some((dev, r)) = self.remapped(reg) {
                        self.dev_write(now, dev, r, value);
                    }
                }
            },
        }
    }

    /// A Global1 operation (`unit`: 0 ATU, 1 VTU, 2 STATS, as [`G1_OP_REGS`]) has just
    /// started with the op word `word` (its BUSY bit set, its register already holding
    /// `word & !BUSY`). Its results become visible when [`g1_op_done`](Self::g1_op_done)
    /// runs.
    fn g1_op_started(&mut self, unit: usize, now: u64, word: u16) {
        match unit {
            0 => self.atu_op_started(now, word),
            1 => self.vtu_op_started(now, word),
            _ => self.stats_op_started(now, word),
        }
    }

    /// A Global1 operation's BUSY has cleared (seen at the first frame after it did).
    fn g1_op_done(&mut self, unit: usize, now: u64) {
        match unit {
            0 => self.atu_op_done(now),
            1 => self.vtu_op_done(now),
            _ => self.stats_op_done(now),
        }
    }

    /// The Global1/Global2 register the 6393X exposes at `sw_addr` register `reg`.
    fn remapped(&self, reg: u8) -> Option<(u8, u8)> {
        if !self.remap {
            return None;
        }
        regs::remap_6393x(reg).map(|(global2, r)| {
            if global2 {
                (self.map.global2, r)
            } else {
                (self.map.global1, r)
            }
        })
    }
}
