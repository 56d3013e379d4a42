//! The address translation unit (ATU): the switch's MAC address table, one forwarding
//! database (FID) per VLAN or bridge, reached through Global1 G1_ATU_OP and its data
//! registers (docs/mv88e6xxx.md#atu-vtu-and-stu).
//!
//! Every operation on [`Switch`] here checks its arguments against the chip
//! ([`atu_info`], [`Chip::info`]) before the first MDIO frame, waits for G1_ATU_OP BUSY
//! with the bounded wait of [`Switch::g1_op`], and never writes a data register while the
//! unit is busy (BUSY is polled before each operation's data registers are written; with
//! [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master) only when this
//! driver has not seen it clear at the end of its own last ATU operation).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error};
use crate::global1::G1Op;
use crate::regs::{g1, port as port_regs};
use crate::switch::Switch;

/// G1_ATU_OP operation codes (bits \[14:12\]).
mod op {
    pub const FLUSH_MOVE_ALL: u16 = 0x1000;
    pub const FLUSH_MOVE_NON_STATIC: u16 = 0x2000;
    pub const LOAD_PURGE: u16 = 0x3000;
    pub const GET_NEXT: u16 = 0x4000;
    pub const FLUSH_MOVE_ALL_DB: u16 = 0x5000;
    pub const FLUSH_MOVE_NON_STATIC_DB: u16 = 0x6000;
    pub const GET_CLR_VIOLATION: u16 = 0x7000;
}

/// G1_ATU_DATA entry state of a move ("all ones": move or remove a port's entries).
const STATE_MOVE: u16 = 0xF;
/// G1_ATU_CTL AgeTime field, bits \[11:4\].
const AGE_TIME_MASK: u16 = 0x0FF0;

/// A MAC address, most significant octet first (as on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// ff:ff:ff:ff:ff:ff. Also where a GetNext walk starts and ends
    /// (docs/mv88e6xxx.md#atu-vtu-and-stu).
    pub const BROADCAST: MacAddr = MacAddr([0xFF; 6]);

    /// The address with these octets.
    pub const fn new(octets: [u8; 6]) -> Self {
        Self(octets)
    }

    /// The octets.
    pub const fn octets(self) -> [u8; 6] {
        self.0
    }

    /// Whether the I/G bit (bit 0 of the first octet) is set: multicast or broadcast.
    pub const fn is_multicast(self) -> bool {
        let [first, ..] = self.0;
        first & 1 != 0
    }

    /// G1_ATU_MAC01 / MAC23 / MAC45: octets 0–1, 2–3, 4–5, the first of each pair in the
    /// high byte.
    const fn words(self) -> [u16; 3] {
        let [a, b, c, d, e, f] = self.0;
        [
            u16::from_be_bytes([a, b]),
            u16::from_be_bytes([c, d]),
            u16::from_be_bytes([e, f]),
        ]
    }

    const fn from_words(w: [u16; 3]) -> Self {
        let [w0, w1, w2] = w;
        let [[a, b], [c, d], [e, f]] = [w0.to_be_bytes(), w1.to_be_bytes(), w2.to_be_bytes()];
        Self([a, b, c, d, e, f])
    }
}

/// Where a chip's ATU takes the FID of an operation (Linux `global1_atu.c`, by the
/// chip's number of databases; docs/mv88e6xxx.md#atu-vtu-and-stu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FidPlacement {
    /// 4096 databases: G1_ATU_FID (Global1 0x01), FID \[11:0\].
    Register,
    /// 256 databases: FID \[3:0\] in G1_ATU_OP \[3:0\], FID \[7:4\] in G1_ATU_CTL \[15:12\].
    OpAndCtl,
    /// 64 databases: FID \[3:0\] in G1_ATU_OP \[3:0\], FID \[5:4\] in G1_ATU_OP \[9:8\].
    OpOnly,
}

/// A chip's ATU, from Linux's info table (`chip.c`: `num_databases`, `age_time_coeff`,
/// `atu_move_port_mask`; docs/mv88e6xxx.md#atu-vtu-and-stu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtuInfo {
    /// FIDs `0..num_databases` exist (64, 256 or 4096).
    pub num_databases: u16,
    /// One step of G1_ATU_CTL AgeTime, in milliseconds (15 000 or 3 750).
    pub age_time_coeff_ms: u32,
    /// The width of the from/to port fields of a move: 0xF (4 bits) or 0x1F (5 bits); the
    /// all-ones to-port means "remove".
    pub move_port_mask: u8,
}

impl AtuInfo {
    /// Where the FID of an operation goes.
    pub const fn fid_placement(self) -> FidPlacement {
        if self.num_databases > 256 {
            FidPlacement::Register
        } else if self.num_databases > 64 {
            FidPlacement::OpAndCtl
        } else {
            FidPlacement::OpOnly
        }
    }
}

/// The ATU of `chip` (every chip in the table has one; Linux drives them all through the
/// same `global1_atu.c` operations).
pub const fn atu_info(chip: Chip) -> AtuInfo {
    let num_databases = match chip {
        Chip::Mv6020 | Chip::Mv6071 | Chip::Mv6220 | Chip::Mv6250 => 64,
        // 6141/6341: Linux commit b9a61c20179f ("Fix number of databases for 88E6141 /
        // 88E6341", v6.9).
        Chip::Mv6095 | Chip::Mv6131 | Chip::Mv6185 | Chip::Mv6141 | Chip::Mv6341 => 256,
        _ => 4096,
    };
    let fast = matches!(
        chip,
        Chip::Mv6141
            | Chip::Mv6341
            | Chip::Mv6190
            | Chip::Mv6190X
            | Chip::Mv6191
            | Chip::Mv6191X
            | Chip::Mv6193X
            | Chip::Mv6290
            | Chip::Mv6361
            | Chip::Mv6390
            | Chip::Mv6390X
            | Chip::Mv6393X
    );
    AtuInfo {
        num_databases,
        age_time_coeff_ms: if fast { 3_750 } else { 15_000 },
        // 5-bit move fields on the 6390 and 6393 families only; the 6141/6341 PortVec is
        // 8 bits wide (Linux commit 4ae01ec00771, "fix atu_move_port_mask for 6341
        // family", v6.15).
        move_port_mask: if fast && !matches!(chip, Chip::Mv6141 | Chip::Mv6341) {
            0x1F
        } else {
            0x0F
        },
    }
}

/// The ports of `chip` as a vector: bit `n` set for every port that exists and is routed.
pub fn port_mask(chip: Chip) -> u16 {
    (0..chip.info().num_ports)
        .filter(|&p| chip.is_valid_port(p))
        .fold(0u16, |m, p| m | 1u16.checked_shl(u32::from(p)).unwrap_or(0))
}

/// The state of an ATU entry (G1_ATU_DATA \[3:0\]); its encoding depends on whether the
/// address is unicast or multicast (docs/mv88e6xxx.md#atu-vtu-and-stu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AtuState {
    /// A learned (dynamic) unicast entry with its age, 1 (oldest) ..= 7 (newest). Aged
    /// out by the switch; removed by a non-static flush.
    Learned {
        /// 1..=7.
        age: u8,
    },
    /// Static: unicast 0xE, multicast 0x7. Never aged, kept by a non-static flush.
    Static,
    /// Management (frames to this address go to the CPU): unicast 0xC, multicast 0x6
    /// (Linux `global1.h` `MV88E6XXX_G1_ATU_DATA_STATE_UC_STATIC_DA_MGMT`,
    /// `_MC_STATIC_DA_MGMT`).
    Management,
    /// Management with priority override: unicast 0xD, multicast 0xE
    /// (`MV88E6XXX_G1_ATU_DATA_STATE_UC_STATIC_DA_MGMT_PO`, `_MC_STATIC_DA_MGMT_PO`).
    ManagementPriorityOverride,
    /// Static with priority override: 0xF for both (`_UC_STATIC_PO`, `_MC_STATIC_PO`).
    PriorityOverride,
    /// Any other non-zero encoding, raw (for example multicast 0x5, "no rate limit").
    Other(u8),
}

impl AtuState {
    /// The 4-bit encoding for an entry of address `mac`.
    ///
    /// Errors: [`ConfigError::AtuState`] for a learned state on a multicast address, an
    /// age outside 1..=7, or a raw state of 0 or above 15.
    pub const fn encode(self, mac: MacAddr) -> Result<u8, ConfigError> {
        let mc = mac.is_multicast();
        match self {
            AtuState::Learned { age } if !mc && age >= 1 && age <= 7 => Ok(age),
            AtuState::Learned { age } => Err(ConfigError::AtuState { state: age }),
            AtuState::Static => Ok(if mc { 0x7 } else { 0xE }),
            AtuState::Management => Ok(if mc { 0x6 } else { 0xC }),
            AtuState::ManagementPriorityOverride => Ok(if mc { 0xE } else { 0xD }),
            AtuState::PriorityOverride => Ok(0xF),
            AtuState::Other(v) if v >= 1 && v <= 15 => Ok(v),
            AtuState::Other(v) => Err(ConfigError::AtuState { state: v }),
        }
    }

    /// The state of raw encoding `raw` (masked to 4 bits) for address `mac`; `None` for 0
    /// (unused).
    pub const fn decode(raw: u8, mac: MacAddr) -> Option<AtuState> {
        let raw = raw & 0xF;
        if raw == 0 {
            return None;
        }
        Some(match (mac.is_multicast(), raw) {
            (false, 1..=7) => AtuState::Learned { age: raw },
            (false, 0xC) | (true, 0x6) => AtuState::Management,
            (false, 0xD) | (true, 0xE) => AtuState::ManagementPriorityOverride,
            (false, 0xE) | (true, 0x7) => AtuState::Static,
            (_, 0xF) => AtuState::PriorityOverride,
            _ => AtuState::Other(raw),
        })
    }

    /// Whether a non-static flush keeps the entry: everything but a learned entry.
    pub const fn is_static(self) -> bool {
        !matches!(self, AtuState::Learned { .. })
    }
}

/// One ATU entry: in database `fid`, address `mac` forwards to the ports of `ports`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtuEntry {
    /// Forwarding database, below [`AtuInfo::num_databases`].
    pub fid: u16,
    /// The address.
    pub mac: MacAddr,
    /// Destination port vector: bit `n` for port `n`.
    pub ports: u16,
    /// The entry's state.
    pub state: AtuState,
}

impl AtuEntry {
    /// A static entry (unicast 0xE, multicast 0x7).
    pub const fn new_static(fid: u16, mac: MacAddr, ports: u16) -> Self {
        Self {
            fid,
            mac,
            ports,
            state: AtuState::Static,
        }
    }
}

/// Which entries a flush or a port removal takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AtuFlush {
    /// Every entry, static ones included.
    All,
    /// Only learned (dynamic) entries.
    NonStatic,
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// The chip's ATU and its routed ports. `chip` is always known outside `probe`.
    fn atu_chip(&self) -> Result<(AtuInfo, u16), Error<M::Error>> {
        let chip = self.chip().ok_or(ConfigError::Port { port: 0 })?;
        Ok((atu_info(chip), port_mask(chip)))
    }

    fn check_fid(info: AtuInfo, fid: u16) -> Result<(), Error<M::Error>> {
        if fid < info.num_databases {
            Ok(())
        } else {
            Err(ConfigError::Fid { fid }.into())
        }
    }

    fn write_mac(&mut self, mac: MacAddr) -> Result<(), Error<M::Error>> {
        let [w01, w23, w45] = mac.words();
        self.unit_write(g1::ATU_MAC01, w01)?;
        self.unit_write(g1::ATU_MAC23, w23)?;
        self.unit_write(g1::ATU_MAC45, w45)
    }

    fn read_mac(&mut self) -> Result<MacAddr, Error<M::Error>> {
        let w01 = self.g1_read(g1::ATU_MAC01)?;
        let w23 = self.g1_read(g1::ATU_MAC23)?;
        let w45 = self.g1_read(g1::ATU_MAC45)?;
        Ok(MacAddr::from_words([w01, w23, w45]))
    }

    /// Place `fid` where the chip takes it and run ATU operation `code`; `fid` is `None`
    /// for the operations on every database, which take none. Returns G1_ATU_OP's final
    /// value.
    fn atu_run(
        &mut self,
        info: AtuInfo,
        fid: Option<u16>,
        code: u16,
    ) -> Result<u16, Error<M::Error>> {
        let mut word = code;
        if let Some(fid) = fid {
            match info.fid_placement() {
                // Not rewritten when it holds what this driver wrote last: only a Global1
                // write or an operation changes it, and those clear the shadow (GetNext,
                // which may write it back, clears it below).
                FidPlacement::Register if self.shadow.atu_fid == Some(fid) => {}
                FidPlacement::Register => {
                    self.unit_write(g1::ATU_FID, fid & 0x0FFF)?;
                    self.shadow.atu_fid = Some(fid);
                }
                FidPlacement::OpAndCtl => {
                    let ctl = self.g1_read(g1::ATU_CTL)?;
                    self.unit_write(g1::ATU_CTL, (ctl & 0x0FFF) | ((fid << 8) & 0xF000))?;
                    word |= fid & 0x000F;
                }
                FidPlacement::OpOnly => word |= ((fid & 0x0030) << 4) | (fid & 0x000F),
            }
        }
        let r = self.unit_op(G1Op::Atu, word);
        if code == op::GET_NEXT {
            self.shadow.atu_fid = None;
        }
        r
    }

    /// Load `entry` into the ATU (add or replace; ATU load/purge with a non-zero state).
    ///
    /// Sequence: G1_ATU_MAC01/23/45, G1_ATU_DATA (state, port vector \[14:4\]), the FID
    /// ([`FidPlacement`]), G1_ATU_OP load/purge with BUSY, bounded BUSY wait. On a
    /// 4096-database chip G1_ATU_FID is skipped when it holds what this driver wrote last
    /// (docs/mv88e6xxx.md#atu-vtu-and-stu): 6 register accesses (18 frames indirect, 6
    /// direct) when BUSY clears on the first poll, 7 with the FID; Linux's sequence has 8.
    ///
    /// Errors, before any frame: [`ConfigError::Fid`] (FID at or above the chip's
    /// number of databases), [`ConfigError::PortVector`] (a port the chip does not have or
    /// route), [`ConfigError::AtuState`] ([`AtuState::encode`]); then [`Error::Timeout`]
    /// ([`BusyWait::AtuOp`](crate::BusyWait::AtuOp)) and [`Error::Mdio`].
    pub fn atu_load(&mut self, entry: &AtuEntry) -> Result<(), Error<M::Error>> {
        let (info, valid) = self.atu_chip()?;
        Self::check_fid(info, entry.fid)?;
        if entry.ports & !valid != 0 {
            return Err(ConfigError::PortVector { ports: entry.ports }.into());
        }
        let state = entry.state.encode(entry.mac)?;
        self.g1_unit_idle(G1Op::Atu)?;
        self.write_mac(entry.mac)?;
        self.unit_write(g1::ATU_DATA, (entry.ports << 4) | u16::from(state))?;
        self.atu_run(info, Some(entry.fid), op::LOAD_PURGE)
            .map(|_| ())
    }

    /// Remove the entry of `mac` from database `fid` (ATU load/purge with state 0), static
    /// or learned. Removing an address that is not there is not an error.
    ///
    /// Errors: [`ConfigError::Fid`] before any frame; as [`atu_load`](Self::atu_load).
    pub fn atu_purge(&mut self, fid: u16, mac: MacAddr) -> Result<(), Error<M::Error>> {
        let (info, _) = self.atu_chip()?;
        Self::check_fid(info, fid)?;
        self.g1_unit_idle(G1Op::Atu)?;
        self.write_mac(mac)?;
        self.unit_write(g1::ATU_DATA, 0)?;
        self.atu_run(info, Some(fid), op::LOAD_PURGE).map(|_| ())
    }

    /// Flush `which` entries of database `fid`, or of every database (`None`): G1_ATU_DATA
    /// state 0, then flush/move all or non-static, in one FID or all. An all-database
    /// flush writes no FID (the operation takes none).
    ///
    /// Errors: [`ConfigError::Fid`] before any frame; as [`atu_load`](Self::atu_load).
    pub fn atu_flush(&mut self, which: AtuFlush, fid: Option<u16>) -> Result<(), Error<M::Error>> {
        let (info, _) = self.atu_chip()?;
        if let Some(fid) = fid {
            Self::check_fid(info, fid)?;
        }
        self.g1_unit_idle(G1Op::Atu)?;
        self.unit_write(g1::ATU_DATA, 0)?;
        self.atu_run(info, fid, flush_code(which, fid.is_some()))
            .map(|_| ())
    }

    /// Remove port `port` from `which` entries of database `fid`, or of every database
    /// (`None`): the ATU "move" with the all-ones to-port. G1_ATU_DATA holds state 0xF and
    /// the vector `from | to << w` (`w` the width of [`AtuInfo::move_port_mask`], `to` all
    /// ones). An entry whose only port it was disappears.
    ///
    /// Errors: [`ConfigError::Port`], [`ConfigError::Fid`] before any frame; as
    /// [`atu_load`](Self::atu_load).
    pub fn atu_remove_port(
        &mut self,
        port: u8,
        which: AtuFlush,
        fid: Option<u16>,
    ) -> Result<(), Error<M::Error>> {
        let (info, valid) = self.atu_chip()?;
        let bit = 1u16.checked_shl(u32::from(port)).unwrap_or(0);
        if bit & valid == 0 || port > info.move_port_mask {
            return Err(ConfigError::Port { port }.into());
        }
        if let Some(fid) = fid {
            Self::check_fid(info, fid)?;
        }
        let mask = u16::from(info.move_port_mask);
        let width = mask.count_ones();
        let vector = u16::from(port) | mask.checked_shl(width).unwrap_or(0);
        self.g1_unit_idle(G1Op::Atu)?;
        self.unit_write(g1::ATU_DATA, (vector << 4) | STATE_MOVE)?;
        self.atu_run(info, fid, flush_code(which, fid.is_some()))
            .map(|_| ())
    }

    /// The first entry of database `fid` whose address is above `after`
    /// (`MacAddr::BROADCAST`: the first entry of all), or `None` past the last: G1_ATU_MAC
    /// written with `after`, GetNext, then G1_ATU_DATA and, for an entry, the MAC
    /// registers read back after BUSY has cleared.
    ///
    /// Errors: [`ConfigError::Fid`] before any frame; as [`atu_load`](Self::atu_load).
    pub fn atu_get_next(
        &mut self,
        fid: u16,
        after: MacAddr,
    ) -> Result<Option<AtuEntry>, Error<M::Error>> {
        let (info, _) = self.atu_chip()?;
        Self::check_fid(info, fid)?;
        self.g1_unit_idle(G1Op::Atu)?;
        self.write_mac(after)?;
        self.atu_next(info, fid)
    }

    /// GetNext from the address the MAC registers hold.
    fn atu_next(&mut self, info: AtuInfo, fid: u16) -> Result<Option<AtuEntry>, Error<M::Error>> {
        self.atu_run(info, Some(fid), op::GET_NEXT)?;
        let data = self.g1_read(g1::ATU_DATA)?;
        if data & 0xF == 0 {
            return Ok(None);
        }
        let mac = self.read_mac()?;
        let state = AtuState::decode((data & 0xF) as u8, mac);
        let (_, valid) = self.atu_chip()?;
        Ok(state.map(|state| AtuEntry {
            fid,
            mac,
            ports: (data >> 4) & valid,
            state,
        }))
    }

    /// Call `f` with every entry of database `fid`, in address order; returns how many.
    ///
    /// A GetNext walk from [`MacAddr::BROADCAST`]: the MAC registers are written once, at
    /// the start, since each GetNext leaves the address it found in them (as Linux does);
    /// the walk ends at an unused state or at the broadcast address. At most 65 536
    /// operations, whatever the switch answers.
    ///
    /// Errors: [`ConfigError::Fid`] before any frame; as [`atu_load`](Self::atu_load).
    pub fn atu_for_each(
        &mut self,
        fid: u16,
        mut f: impl FnMut(&AtuEntry),
    ) -> Result<usize, Error<M::Error>> {
        let (info, _) = self.atu_chip()?;
        Self::check_fid(info, fid)?;
        self.g1_unit_idle(G1Op::Atu)?;
        self.write_mac(MacAddr::BROADCAST)?;
        let mut n = 0usize;
        for _ in 0..=u16::MAX {
            let Some(e) = self.atu_next(info, fid)? else {
                break;
            };
            f(&e);
            n = n.saturating_add(1);
            if e.mac == MacAddr::BROADCAST {
                break;
            }
        }
        Ok(n)
    }

    /// Set the ATU age time to `ms` rounded to the nearest multiple of the chip's
    /// coefficient ([`AtuInfo::age_time_coeff_ms`]); returns the time set, in ms.
    /// Read-modify-write of G1_ATU_CTL AgeTime \[11:4\].
    ///
    /// Errors: [`ConfigError::AgeTime`] outside `coeff ..= 255 × coeff` before any frame;
    /// [`Error::Mdio`], and [`Error::Timeout`] of the SMI layer.
    pub fn atu_set_age_time_ms(&mut self, ms: u32) -> Result<u32, Error<M::Error>> {
        let (info, _) = self.atu_chip()?;
        let coeff = info.age_time_coeff_ms;
        // coeff ≤ 15 000: 255 × coeff and ms + coeff / 2 (ms ≤ 255 × coeff) fit in u32.
        let max = coeff.saturating_mul(255);
        if ms < coeff || ms > max {
            return Err(ConfigError::AgeTime { ms }.into());
        }
        let steps = ms.saturating_add(coeff / 2).checked_div(coeff).unwrap_or(1);
        let steps = steps.min(255) as u16;
        let ctl = self.g1_read(g1::ATU_CTL)?;
        self.unit_write(g1::ATU_CTL, (ctl & !AGE_TIME_MASK) | (steps << 4))?;
        Ok(u32::from(steps).saturating_mul(coeff))
    }
}

/// G1_ATU_OP violation bits after a get/clear violation (docs/mv88e6xxx.md#atu-and-vtu-violations).
mod viol {
    pub const AGE_OUT: u16 = 1 << 7;
    pub const MEMBER: u16 = 1 << 6;
    pub const MISS: u16 = 1 << 5;
    pub const FULL: u16 = 1 << 4;
}

/// What an ATU violation was (G1_ATU_OP bits \[7:4\] after get/clear violation; more than
/// one may be set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtuViolationKind {
    /// Bit 7: an entry aged out (on a port that reports it).
    pub age_out: bool,
    /// Bit 6: a source address held by an entry whose port vector lacks the source port.
    pub member: bool,
    /// Bit 5: a source address not in the ATU (on a locked port).
    pub miss: bool,
    /// Bit 4: no room in the ATU for a new entry.
    pub full: bool,
}

/// One ATU violation as the switch reports it (docs/mv88e6xxx.md#atu-and-vtu-violations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtuViolation {
    /// Which violation(s).
    pub kind: AtuViolationKind,
    /// The source port (G1_ATU_DATA \[3:0\]).
    pub spid: u8,
    /// The database (where the chip's [`FidPlacement`] puts it).
    pub fid: u16,
    /// The address (G1_ATU_MAC01/23/45).
    pub mac: MacAddr,
    /// The port vector reported with it (G1_ATU_DATA \[14:4\], limited to the chip's
    /// ports).
    pub ports: u16,
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Take the ATU violation the switch holds, if any, and clear it (and with it the
    /// Global1 [`AtuProblem`](crate::irq::G1Irq::AtuProblem) source): G1_ATU_OP get/clear
    /// violation with BUSY, bounded BUSY wait, then, when a violation bit is set, the FID
    /// ([`FidPlacement`]: G1_ATU_FID, or G1_ATU_OP \[3:0\] with G1_ATU_CTL \[15:12\] or
    /// G1_ATU_OP \[9:8\]), G1_ATU_DATA and the MAC registers, all read after BUSY has
    /// cleared. `None`: no violation bit was set. Linux runs this from its ATU problem
    /// interrupt thread, on every chip (docs/mv88e6xxx.md#atu-and-vtu-violations).
    ///
    /// Errors: [`ConfigError::PortFeature`] ([`Feature::PortOps`](crate::Feature::PortOps):
    /// no interrupt facts for the chip) before any frame; [`Error::Timeout`]
    /// ([`BusyWait::AtuOp`](crate::BusyWait::AtuOp)), [`Error::Mdio`].
    pub fn atu_violation(&mut self) -> Result<Option<AtuViolation>, Error<M::Error>> {
        let (info, valid) = self.atu_chip()?;
        self.port_ops()?;
        let opv = self.unit_op(G1Op::Atu, op::GET_CLR_VIOLATION);
        // The operation may write G1_ATU_FID (and G1_ATU_CTL's FID bits).
        self.shadow.atu_fid = None;
        let opv = opv?;
        let flags = opv & (viol::AGE_OUT | viol::MEMBER | viol::MISS | viol::FULL);
        if flags == 0 {
            return Ok(None);
        }
        let fid = match info.fid_placement() {
            FidPlacement::Register => self.g1_read(g1::ATU_FID)? & 0x0FFF,
            FidPlacement::OpAndCtl => {
                let ctl = self.g1_read(g1::ATU_CTL)?;
                (opv & 0x000F) | ((ctl >> 8) & 0x00F0)
            }
            FidPlacement::OpOnly => (opv & 0x000F) | ((opv >> 4) & 0x0030),
        };
        let data = self.g1_read(g1::ATU_DATA)?;
        let mac = self.read_mac()?;
        Ok(Some(AtuViolation {
            kind: AtuViolationKind {
                age_out: flags & viol::AGE_OUT != 0,
                member: flags & viol::MEMBER != 0,
                miss: flags & viol::MISS != 0,
                full: flags & viol::FULL != 0,
            },
            spid: (data & 0x000F) as u8,
            fid,
            mac,
            ports: (data >> 4) & valid,
        }))
    }

    /// Lock or unlock port `port` for MAC authentication (802.1X), as Linux's
    /// `mv88e6xxx_port_set_lock`: PORT_CTL0 SA filtering set to drop-on-lock (cleared when
    /// unlocking), then port_regs::PORT_ASSOC_VECTOR LOCKED_PORT; both read-modify-write, the other bits
    /// kept. A locked port learns no address, and a frame whose source address is not in the
    /// ATU is dropped and raises an ATU miss violation
    /// (docs/mv88e6xxx.md#atu-and-vtu-violations): load a static entry to admit a host.
    ///
    /// Errors: [`ConfigError::Port`] before any frame; [`Error::Mdio`], [`Error::Timeout`]
    /// of the SMI layer (a failure after the PORT_CTL0 write leaves the SA filter set and
    /// the port unlocked: repeat the call).
    pub fn port_set_atu_locked(&mut self, port: u8, locked: bool) -> Result<(), Error<M::Error>> {
        let ctl0 = self.port_read(port, port_regs::PORT_CTL0)?;
        let filt = if locked {
            port_regs::CTL0_SA_FILT_DROP_ON_LOCK
        } else {
            0
        };
        self.port_write(
            port,
            port_regs::PORT_CTL0,
            (ctl0 & !port_regs::CTL0_SA_FILT_MASK) | filt,
        )?;
        let r = self.port_read(port, port_regs::PORT_ASSOC_VECTOR)?;
        let v = if locked {
            r | port_regs::PAV_LOCKED_PORT
        } else {
            r & !port_regs::PAV_LOCKED_PORT
        };
        self.port_write(port, port_regs::PORT_ASSOC_VECTOR, v)
    }
}

/// The flush/move operation code for `which`, on one database or all.
const fn flush_code(which: AtuFlush, one_fid: bool) -> u16 {
    match (which, one_fid) {
        (AtuFlush::All, false) => op::FLUSH_MOVE_ALL,
        (AtuFlush::NonStatic, false) => op::FLUSH_MOVE_NON_STATIC,
        (AtuFlush::All, true) => op::FLUSH_MOVE_ALL_DB,
        (AtuFlush::NonStatic, true) => op::FLUSH_MOVE_NON_STATIC_DB,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_words_round_trip() {
        let m = MacAddr([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
        assert_eq!(m.words(), [0x0011, 0x2233, 0x4455]);
        assert_eq!(MacAddr::from_words(m.words()), m);
        assert!(!m.is_multicast() && MacAddr::BROADCAST.is_multicast());
    }

    #[test]
    fn state_encoding_depends_on_the_address() {
        let uc = MacAddr([0x02, 0, 0, 0, 0, 1]);
        let mc = MacAddr([0x01, 0, 0x5E, 0, 0, 1]);
        assert_eq!(AtuState::Static.encode(uc), Ok(0xE));
        assert_eq!(AtuState::Static.encode(mc), Ok(0x7));
        assert_eq!(AtuState::Management.encode(uc), Ok(0xC));
        assert_eq!(AtuState::Management.encode(mc), Ok(0x6));
        assert_eq!(AtuState::ManagementPriorityOverride.encode(uc), Ok(0xD));
        assert_eq!(AtuState::ManagementPriorityOverride.encode(mc), Ok(0xE));
        assert!(AtuState::Learned { age: 3 }.encode(mc).is_err());
        for raw in 1..16u8 {
            for mac in [uc, mc] {
                let s = AtuState::decode(raw, mac).unwrap();
                assert_eq!(s.encode(mac), Ok(raw), "{raw:#x} {mac:?}");
            }
        }
        assert_eq!(AtuState::decode(0, uc), None);
    }

    #[test]
    fn fid_placement_follows_the_number_of_databases() {
        assert_eq!(
            atu_info(Chip::Mv6352).fid_placement(),
            FidPlacement::Register
        );
        assert_eq!(
            atu_info(Chip::Mv6185).fid_placement(),
            FidPlacement::OpAndCtl
        );
        assert_eq!(atu_info(Chip::Mv6250).fid_placement(), FidPlacement::OpOnly);
        assert_eq!(port_mask(Chip::Mv6220), 0b110_0011);
    }
}
