//! The EEPROM register loader after a hardware reset (Linux v6.12,
//! torvalds/linux `drivers/net/dsa/mv88e6xxx/global1.c`, `global2.c`, `global2.h`, and
//! the netdev thread of commit 6ccf50d4d474 quoting the 6352 datasheet).
//!
//! Facts: G2_EEPROM_CMD (Global2 0x14) bit 15 is the EEPROM unit's BUSY and bit 11
//! "Register Loader Running", set while the loader executes the EEPROM's contents
//! (global2.h `MV88E6XXX_G2_EEPROM_CMD_BUSY` 0x8000, `_RUNNING` 0x0800); G1_STS bit 0 is
//! EEInt, "EEPROM done", which a read of G1_STS clears (global1.h
//! `MV88E6XXX_G1_STS_IRQ_EEPROM_DONE` = 0; commit e44894e2aa4e); G1_CTL1 bit 9 requests
//! a reload and reads set until the load is done (global1.h
//! `MV88E6185_G1_CTL1_RELOAD_EEPROM` 0x0200, "also valid for 88E6250").
//!
//! Model assumptions: the load starts at t = 0 (the reset's release) and takes the
//! [`ChipModel::with_eeprom_load_ns`] time (default 0: no EEPROM contents); while it runs,
//! the loader owns the switch's registers, so a host write to a port or global register is
//! lost (counted by [`ChipModel::eeprom_collisions`]); reads answer. The end of every load
//! latches EEInt. Without [`ChipModel::with_eeprom_load_ns`] no EEPROM is attached: EEInt
//! never sets (Linux commit 6ccf50d4d474: "for some boards which do not have an EEPROM,
//! EEInt never indicates complete"), except on the 6250 family, whose EEInt Linux waits
//! for after every reset (commit e44894e2aa4e), where it sets at t = 0.
//!
//! The 6250 quirk behind that path (Linux commit e44894e2aa4e, the reason the 6250
//! family's `hardware_reset_post` waits for G1_STS EEInt instead of G2_EEPROM_CMD): on
//! the 6250 family with no EEPROM connected, G2_EEPROM_CMD RUNNING can stay set for
//! ever. The model does that: a 6250-family chip without
//! [`ChipModel::with_eeprom_load_ns`] reads RUNNING set at every time; with an EEPROM it
//! clears when the load ends, as on the other chips.

use super::ChipModel;
use super::regs::g1;
use crate::sim::facts::LinuxFamily;

/// Global2 G2_EEPROM_CMD register number (global2.h `MV88E6XXX_G2_EEPROM_CMD`).
pub(super) const G2_EEPROM_CMD: u8 = 0x14;
/// G2_EEPROM_CMD RUNNING (global2.h `MV88E6XXX_G2_EEPROM_CMD_RUNNING`).
const EEPROM_CMD_RUNNING: u16 = 0x0800;
/// G1_STS EEInt (global1.h `MV88E6XXX_G1_STS_IRQ_EEPROM_DONE`, bit 0).
const STS_EEPROM_DONE: u16 = 0x0001;
/// G1_CTL1 reload request (global1.h `MV88E6185_G1_CTL1_RELOAD_EEPROM`).
pub(super) const CTL1_RELOAD_EEPROM: u16 = 0x0200;

/// The register loader's state.
#[derive(Debug, Clone, Default)]
pub(super) struct Eeprom {
    /// How long one load takes.
    load_ns: u64,
    /// When the current (or last) load ends.
    until: u64,
    /// EEInt was read (and so cleared) after the last load ended.
    done_read: bool,
    /// Host writes lost because the loader was running.
    collisions: u64,
    /// An EEPROM is attached (or the 6250 family): the end of a load latches EEInt.
    latches: bool,
    /// G2_EEPROM_CMD RUNNING stuck at 1 (the 6250 family without an EEPROM).
    running_stuck: bool,
}

impl Eeprom {
    fn loading(&self, now: u64) -> bool {
        now < self.until
    }
}

impl ChipModel {
    /// The EEPROM load after the reset takes `ns` (from t = 0); G2_EEPROM_CMD RUNNING reads
    /// set and host register writes are lost until it ends; G1_STS EEInt sets when it
    /// ends and clears when G1_STS is read.
    pub fn with_eeprom_load_ns(mut self, ns: u64) -> Self {
        self.eeprom.load_ns = ns;
        self.eeprom.until = ns;
        self.eeprom.done_read = false;
        self.eeprom.latches = true;
        self.eeprom.running_stuck = false;
        self
    }

    /// The loader's state at reset (in [`ChipModel::new`]).
    pub(super) fn eeprom_at_reset(family: LinuxFamily) -> Eeprom {
        Eeprom {
            latches: family == LinuxFamily::F6250,
            running_stuck: family == LinuxFamily::F6250,
            ..Eeprom::default()
        }
    }

    /// Host register writes lost because they arrived during an EEPROM load.
    pub fn eeprom_collisions(&self) -> u64 {
        self.eeprom.collisions
    }

    /// Whether an EEPROM load runs at `now_ns`.
    pub fn eeprom_loading(&self, now_ns: u64) -> bool {
        self.eeprom.loading(now_ns)
    }

    /// A host write at `now` that the running loader refuses (counted).
    pub(super) fn eeprom_refuses_write(&mut self, now: u64) -> bool {
        if self.eeprom.loading(now) {
            self.eeprom.collisions += 1;
            return true;
        }
        false
    }

    /// Bits the loader adds to a read of Global1 / Global2 register `reg`; a G1_STS read
    /// clears EEInt.
    pub(super) fn eeprom_read_bits(&mut self, now: u64, global2: bool, reg: u8) -> u16 {
        let loading = self.eeprom.loading(now);
        match (global2, reg) {
            (true, G2_EEPROM_CMD) if loading || self.eeprom.running_stuck => EEPROM_CMD_RUNNING,
            (false, g1::STS) if !loading && self.eeprom.latches && !self.eeprom.done_read => {
                self.eeprom.done_read = true;
                STS_EEPROM_DONE
            }
            (false, g1::CTL1) if loading && self.has_eeprom_reload() => CTL1_RELOAD_EEPROM,
            _ => 0,
        }
    }

    /// Whether G1_CTL1 bit 9 is the reload request: the 6185 and 6250 families
    /// (global1.h names it `MV88E6185_`; global1.c uses it on the 6250). On the 6393
    /// family the same bit is `MV88E6393X_G1_CTL1_DEVICE2_EN`.
    fn has_eeprom_reload(&self) -> bool {
        matches!(self.map.family, LinuxFamily::F6185 | LinuxFamily::F6250)
    }

    /// A G1_CTL1 write with bit 9 set: on the chips where it is the reload request, a new
    /// load starts at `now`.
    /// Returns whether it did (the register then keeps the bit clear; it reads set while
    /// the load runs).
    pub(super) fn eeprom_reload(&mut self, now: u64) -> bool {
        if !self.has_eeprom_reload() {
            return false;
        }
        self.eeprom.until = now.saturating_add(self.eeprom.load_ns);
        self.eeprom.done_read = false;
        true
    }
}
