//! The VLAN table unit (VTU), the spanning-tree unit (STU) where the chip has one, and each
//! port's default VID and 802.1Q mode (docs/mv88e6xxx.md#atu-vtu-and-stu).
//!
//! Every operation checks its arguments against the chip before the first MDIO frame,
//! runs G1_VTU_OP through the bounded wait of [`Switch::g1_op`], and never writes a data
//! register while the unit is busy.

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error, SwitchUnit};
use crate::global1::G1Op;
use crate::regs::g1;
use crate::switch::Switch;

// PORT_CTL2 (port register 0x08) carries the 802.1Q mode in [11:10].
use crate::regs::port::PORT_CTL2;
const PORT_CTL2_8021Q_MASK: u16 = 0x0C00;

/// G1_VTU_OP operation codes (bits \[14:12\]).
mod op {
    pub const FLUSH_ALL: u16 = 0x1000;
    pub const VTU_LOAD_PURGE: u16 = 0x3000;
    pub const VTU_GET_NEXT: u16 = 0x4000;
    pub const STU_LOAD_PURGE: u16 = 0x5000;
    pub const STU_GET_NEXT: u16 = 0x6000;
    pub const GET_CLR_VIOLATION: u16 = 0x7000;
}
/// G1_VTU_VID VALID.
const VID_VALID: u16 = 0x1000;
/// G1_VTU_VID PAGE (VID bit 12, 6390 layout).
const VID_PAGE: u16 = 0x2000;

/// The most ports of any chip: the size of the per-port arrays.
pub const MAX_PORTS: usize = 11;

/// How a chip lays out its VTU (Linux's `vtu_getnext`/`vtu_loadpurge` ops per chip).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum VtuLayout {
    /// `mv88e6185_g1_vtu_*`: G1_VTU_DATA1..3, 4 bits per port (member \[1:0\], port state
    /// \[3:2\]); FID \[3:0\] in G1_VTU_OP \[3:0\] and FID \[7:4\] in G1_VTU_OP \[11:8\]; no STU.
    Mv6185,
    /// `mv88e6352_g1_vtu_*`: DATA1..3 as the 6185 (member bits only), FID in G1_VTU_FID,
    /// SID in G1_VTU_SID; STU states in the same registers, \[3:2\] of each port's nibble.
    Mv6352,
    /// `mv88e6390_g1_vtu_*`: DATA1..2, 2 bits per port; FID/SID registers as the 6352;
    /// VID bit 12 in G1_VTU_VID PAGE.
    Mv6390,
}

/// A chip's VTU, from Linux's info and ops tables (docs/mv88e6xxx.md#atu-vtu-and-stu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VtuInfo {
    /// The data layout.
    pub layout: VtuLayout,
    /// The largest VID (4095, or 8191 on the 6390-class chips).
    pub max_vid: u16,
    /// Whether the chip has an STU (SIDs 0..=63).
    pub has_stu: bool,
}

/// The VTU of `chip`: every chip in [`Chip::ALL`] has one (Linux's ops table names a
/// `vtu_getnext`/`vtu_loadpurge` pair for each), so this is `Some` for all of them today;
/// `None` would refuse a chip's VTU and STU with [`ConfigError::UnitUnsupported`]. The
/// 6095, 6131, 6185 and the 6250 family have no STU (no `stu_*` ops, no `max_sid`); the
/// 6320 and 6321 use the 6352 layout and an STU since Linux's 2025 fixes for that family
/// (docs/mv88e6xxx.md#atu-vtu-and-stu).
pub const fn vtu_info(chip: Chip) -> Option<VtuInfo> {
    use Chip::*;
    let (layout, max_vid) = match chip {
        Mv6085 | Mv6097 | Mv6123 | Mv6141 | Mv6161 | Mv6165 | Mv6171 | Mv6172 | Mv6175 | Mv6176
        | Mv6240 | Mv6320 | Mv6321 | Mv6341 | Mv6350 | Mv6351 | Mv6352 => (VtuLayout::Mv6352, 4095),
        Mv6185 | Mv6095 | Mv6131 | Mv6020 | Mv6071 | Mv6220 | Mv6250 => (VtuLayout::Mv6185, 4095),
        // The 6361 has two VTU pages too (Linux commit 1833d8a26f05, "Fix the max_vid
        // definition for the MV88E6361").
        Mv6190 | Mv6190X | Mv6191 | Mv6290 | Mv6390 | Mv6390X | Mv6191X | Mv6193X | Mv6361
        | Mv6393X => (VtuLayout::Mv6390, 8191),
    };
    Some(VtuInfo {
        layout,
        max_vid,
        has_stu: !matches!(layout, VtuLayout::Mv6185),
    })
}

/// A port's membership of a VLAN (the VTU MemberTag code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Member {
    /// Member, frames leave as they came (0).
    Unmodified,
    /// Member, frames leave untagged (1).
    Untagged,
    /// Member, frames leave tagged (2).
    Tagged,
    /// Not a member (3).
    NonMember,
}

impl Member {
    const fn code(self) -> u16 {
        match self {
            Member::Unmodified => 0,
            Member::Untagged => 1,
            Member::Tagged => 2,
            Member::NonMember => 3,
        }
    }
    const fn from_code(c: u16) -> Self {
        match c & 3 {
            0 => Member::Unmodified,
            1 => Member::Untagged,
            2 => Member::Tagged,
            _ => Member::NonMember,
        }
    }
}

/// A port's spanning-tree state in an STU entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StuState {
    /// 0.
    Disabled,
    /// 1.
    Blocking,
    /// 2.
    Learning,
    /// 3.
    Forwarding,
}

impl StuState {
    const fn code(self) -> u16 {
        match self {
            StuState::Disabled => 0,
            StuState::Blocking => 1,
            StuState::Learning => 2,
            StuState::Forwarding => 3,
        }
    }
    const fn from_code(c: u16) -> Self {
        match c & 3 {
            0 => StuState::Disabled,
            1 => StuState::Blocking,
            2 => StuState::Learning,
            _ => StuState::Forwarding,
        }
    }
}

/// A VTU entry: VLAN `vid` uses database `fid` and spanning-tree instance `sid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VtuEntry {
    /// 0..=[`VtuInfo::max_vid`].
    pub vid: u16,
    /// Forwarding database (below [`AtuInfo::num_databases`](crate::atu::AtuInfo)).
    pub fid: u16,
    /// Spanning-tree instance, 0..=63 (0 on chips without an STU).
    pub sid: u8,
    /// Membership of port `n` at index `n`; ports the chip lacks must be
    /// [`Member::NonMember`].
    pub members: [Member; MAX_PORTS],
}

impl VtuEntry {
    /// VLAN `vid` in database `fid`, SID 0, no member.
    pub const fn new(vid: u16, fid: u16) -> Self {
        Self {
            vid,
            fid,
            sid: 0,
            members: [Member::NonMember; MAX_PORTS],
        }
    }

    /// The same with port `port` set to `m` (no effect for a port number ≥ [`MAX_PORTS`]).
    #[must_use]
    pub fn with_member(mut self, port: u8, m: Member) -> Self {
        if let Some(slot) = self.members.get_mut(usize::from(port)) {
            *slot = m;
        }
        self
    }
}

/// An STU entry: spanning-tree instance `sid` with a state per port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StuEntry {
    /// 0..=63.
    pub sid: u8,
    /// State of port `n` at index `n`.
    pub states: [StuState; MAX_PORTS],
}

/// A port's 802.1Q mode (PORT_CTL2 \[11:10\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Dot1qMode {
    /// No VTU lookup (0).
    Disabled,
    /// VTU when the VID is in it, else port-based (1).
    Fallback,
    /// The VID must be in the VTU; the ingress port need not be a member (2).
    Check,
    /// The VID must be in the VTU and the ingress port a member (3).
    Secure,
}

/// Pack 2-bit codes per port into the data registers of `layout`; `shift` 0 for member
/// codes, 2 for the STU states of the 4-bit layouts.
fn pack(layout: VtuLayout, codes: &[u16; MAX_PORTS], shift: u32) -> [u16; 3] {
    let mut regs = [0u16; 3];
    for (i, &c) in codes.iter().enumerate() {
        let (reg, off) = slot(layout, i);
        if let Some(r) = regs.get_mut(reg) {
            *r |= (c & 3).checked_shl(off.wrapping_add(shift)).unwrap_or(0);
        }
    }
    regs
}

fn unpack(layout: VtuLayout, regs: [u16; 3], shift: u32) -> [u16; MAX_PORTS] {
    let mut codes = [0u16; MAX_PORTS];
    for (i, c) in codes.iter_mut().enumerate() {
        let (reg, off) = slot(layout, i);
        *c = regs.get(reg).map_or(0, |r| {
            r.checked_shr(off.wrapping_add(shift)).unwrap_or(0) & 3
        });
    }
    codes
}

/// Data register index and bit offset of port `i` (`i` < 11: the offset stays below 16).
const fn slot(layout: VtuLayout, i: usize) -> (usize, u32) {
    match layout {
        VtuLayout::Mv6390 => (i / 8, (i % 8).wrapping_mul(2) as u32),
        _ => (i / 4, (i % 4).wrapping_mul(4) as u32),
    }
}

fn data_regs(layout: VtuLayout) -> &'static [u8] {
    match layout {
        VtuLayout::Mv6390 => &[g1::VTU_DATA1, g1::VTU_DATA2],
        _ => &[g1::VTU_DATA1, g1::VTU_DATA2, g1::VTU_DATA3],
    }
}

fn vid_word(vid: u16, valid: bool) -> u16 {
    let mut w = vid & 0x0FFF;
    if vid & 0x1000 != 0 {
        w |= VID_PAGE;
    }
    if valid {
        w |= VID_VALID;
    }
    w
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    fn vtu_chip(&self, unit: SwitchUnit) -> Result<(Chip, VtuInfo), Error<M::Error>> {
        let chip = self.chip().ok_or(ConfigError::Port { port: 0 })?;
        match vtu_info(chip) {
            Some(i) if unit == SwitchUnit::Vtu || i.has_stu => Ok((chip, i)),
            _ => Err(ConfigError::UnitUnsupported { unit, chip }.into()),
        }
    }

    fn check_vid(info: VtuInfo, vid: u16) -> Result<(), Error<M::Error>> {
        if vid <= info.max_vid {
            Ok(())
        } else {
            Err(ConfigError::Vid { vid }.into())
        }
    }

    fn write_data(&mut self, layout: VtuLayout, regs: [u16; 3]) -> Result<(), Error<M::Error>> {
        for (&r, v) in data_regs(layout).iter().zip(regs) {
            self.unit_write(r, v)?;
        }
        Ok(())
    }

    fn read_data(&mut self, layout: VtuLayout) -> Result<[u16; 3], Error<M::Error>> {
        let mut regs = [0u16; 3];
        for (&r, v) in data_regs(layout).iter().zip(regs.iter_mut()) {
            *v = self.g1_read(r)?;
        }
        Ok(regs)
    }

    /// Load `entry` into the VTU (add or replace).
    ///
    /// Sequence (Linux's order): G1_VTU_VID with VALID, the data registers of the
    /// chip's [`VtuLayout`], then on the 6352/6390 layouts G1_VTU_FID and G1_VTU_SID,
    /// G1_VTU_OP load/purge with BUSY (on the 6185 layout carrying the FID), bounded BUSY
    /// wait.
    ///
    /// Errors, before any frame: [`ConfigError::UnitUnsupported`] (no VTU facts for the
    /// chip), [`ConfigError::Vid`], [`ConfigError::Fid`], [`ConfigError::Sid`] (above 63,
    /// or not 0 without an STU), [`ConfigError::Port`] (a member port the chip does not
    /// have or route); then [`Error::Timeout`]
    /// ([`BusyWait::VtuOp`](crate::BusyWait::VtuOp)) and [`Error::Mdio`].
    pub fn vtu_load(&mut self, entry: &VtuEntry) -> Result<(), Error<M::Error>> {
        let (chip, info) = self.vtu_chip(SwitchUnit::Vtu)?;
        Self::check_vid(info, entry.vid)?;
        if entry.fid >= crate::atu::atu_info(chip).num_databases {
            return Err(ConfigError::Fid { fid: entry.fid }.into());
        }
        if entry.sid > 63 || (!info.has_stu && entry.sid != 0) {
            return Err(ConfigError::Sid { sid: entry.sid }.into());
        }
        for (p, m) in (0u8..).zip(entry.members) {
            if m != Member::NonMember && !chip.is_valid_port(p) {
                return Err(ConfigError::Port { port: p }.into());
            }
        }
        let mut codes = [0u16; MAX_PORTS];
        for (c, m) in codes.iter_mut().zip(entry.members) {
            *c = m.code();
        }
        let mut word = op::VTU_LOAD_PURGE;
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, vid_word(entry.vid, true))?;
        // Fields of ports the chip lacks are written "non-member" (3) where Linux leaves
        // them 0: they belong to no port.
        self.write_data(info.layout, pack(info.layout, &codes, 0))?;
        if info.layout == VtuLayout::Mv6185 {
            word |= (entry.fid & 0x000F) | ((entry.fid & 0x00F0) << 4);
        } else {
            // FID and SID are not rewritten when they hold what this driver wrote last:
            // only a Global1 write or an operation changes them, and those clear the
            // shadow (the GetNext operations, which write them, clear it below).
            let (fid, sid) = (entry.fid & 0x0FFF, u16::from(entry.sid & 0x3F));
            if self.shadow.vtu_fid != Some(fid) {
                self.unit_write(g1::VTU_FID, fid)?;
                self.shadow.vtu_fid = Some(fid);
            }
            if self.shadow.vtu_sid != Some(sid) {
                self.unit_write(g1::VTU_SID, sid)?;
                self.shadow.vtu_sid = Some(sid);
            }
        }
        self.unit_op(G1Op::Vtu, word).map(|_| ())
    }

    /// Remove VLAN `vid` (G1_VTU_VID without VALID, load/purge).
    ///
    /// Errors: as [`vtu_load`](Self::vtu_load).
    pub fn vtu_purge(&mut self, vid: u16) -> Result<(), Error<M::Error>> {
        let (_, info) = self.vtu_chip(SwitchUnit::Vtu)?;
        Self::check_vid(info, vid)?;
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, vid_word(vid, false))?;
        self.unit_op(G1Op::Vtu, op::VTU_LOAD_PURGE).map(|_| ())
    }

    /// Remove every VLAN (G1_VTU_OP flush all).
    ///
    /// Errors: [`ConfigError::UnitUnsupported`] before any frame; [`Error::Timeout`],
    /// [`Error::Mdio`].
    pub fn vtu_flush(&mut self) -> Result<(), Error<M::Error>> {
        self.vtu_chip(SwitchUnit::Vtu)?;
        self.unit_op(G1Op::Vtu, op::FLUSH_ALL).map(|_| ())
    }

    /// The VLAN with the lowest VID above `after` (`after` = [`VtuInfo::max_vid`]: the
    /// first VLAN of all), `None` past the last: G1_VTU_VID written without VALID, GetNext,
    /// then G1_VTU_VID, the data registers and FID/SID read after BUSY has cleared.
    ///
    /// Errors: as [`vtu_load`](Self::vtu_load).
    pub fn vtu_get_next(&mut self, after: u16) -> Result<Option<VtuEntry>, Error<M::Error>> {
        let (chip, info) = self.vtu_chip(SwitchUnit::Vtu)?;
        Self::check_vid(info, after)?;
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, vid_word(after, false))?;
        self.vtu_next(chip, info)
    }

    fn vtu_next(&mut self, chip: Chip, info: VtuInfo) -> Result<Option<VtuEntry>, Error<M::Error>> {
        self.shadow.vtu_fid = None;
        self.shadow.vtu_sid = None;
        let opv = self.unit_op(G1Op::Vtu, op::VTU_GET_NEXT)?;
        let v = self.g1_read(g1::VTU_VID)?;
        if v & VID_VALID == 0 {
            return Ok(None);
        }
        let mut vid = v & 0x0FFF;
        if info.layout == VtuLayout::Mv6390 && v & VID_PAGE != 0 {
            vid |= 0x1000;
        }
        let codes = unpack(info.layout, self.read_data(info.layout)?, 0);
        let (fid, sid) = if info.layout == VtuLayout::Mv6185 {
            let dbs = crate::atu::atu_info(chip).num_databases;
            let fid = (opv & 0x000F) | ((opv & 0x0F00) >> 4);
            (fid & dbs.saturating_sub(1), 0)
        } else {
            let fid = self.g1_read(g1::VTU_FID)? & 0x0FFF;
            let sid = (self.g1_read(g1::VTU_SID)? & 0x3F) as u8;
            (fid, sid)
        };
        let mut e = VtuEntry::new(vid, fid);
        e.sid = sid;
        for (m, c) in e.members.iter_mut().zip(codes) {
            *m = Member::from_code(c);
        }
        for (p, m) in (0u8..).zip(e.members.iter_mut()) {
            if !chip.is_valid_port(p) {
                *m = Member::NonMember;
            }
        }
        Ok(Some(e))
    }

    /// Call `f` with every VLAN in VID order; returns how many. A GetNext walk from
    /// [`VtuInfo::max_vid`]: G1_VTU_VID is written once, since each GetNext leaves the VID
    /// it found there (as Linux does); the walk ends at an entry without VALID or at
    /// `max_vid`, after at most 8 192 operations.
    ///
    /// Errors: as [`vtu_load`](Self::vtu_load).
    pub fn vtu_for_each(&mut self, mut f: impl FnMut(&VtuEntry)) -> Result<usize, Error<M::Error>> {
        let (chip, info) = self.vtu_chip(SwitchUnit::Vtu)?;
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, vid_word(info.max_vid, false))?;
        let mut n = 0usize;
        for _ in 0..8192u16 {
            let Some(e) = self.vtu_next(chip, info)? else {
                break;
            };
            f(&e);
            n = n.saturating_add(1);
            if e.vid >= info.max_vid {
                break;
            }
        }
        Ok(n)
    }

    /// Load `entry` into the STU: G1_VTU_VID with VALID (VID 0), G1_VTU_SID, the
    /// port states in the data registers, G1_VTU_OP STU load/purge.
    ///
    /// Errors, before any frame: [`ConfigError::UnitUnsupported`] (no STU),
    /// [`ConfigError::Sid`] above 63; then [`Error::Timeout`], [`Error::Mdio`].
    pub fn stu_load(&mut self, entry: &StuEntry) -> Result<(), Error<M::Error>> {
        let (_, info) = self.vtu_chip(SwitchUnit::Stu)?;
        if entry.sid > 63 {
            return Err(ConfigError::Sid { sid: entry.sid }.into());
        }
        let mut codes = [0u16; MAX_PORTS];
        for (c, s) in codes.iter_mut().zip(entry.states) {
            *c = s.code();
        }
        let shift = if info.layout == VtuLayout::Mv6390 {
            0
        } else {
            2
        };
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, VID_VALID)?;
        self.shadow.vtu_sid = None;
        self.unit_write(g1::VTU_SID, u16::from(entry.sid))?;
        self.shadow.vtu_sid = Some(u16::from(entry.sid));
        self.write_data(info.layout, pack(info.layout, &codes, shift))?;
        self.unit_op(G1Op::Vtu, op::STU_LOAD_PURGE).map(|_| ())
    }

    /// Remove STU entry `sid`: G1_VTU_VID without VALID (VID 0), G1_VTU_SID, G1_VTU_OP
    /// STU load/purge (Linux `global1_vtu.c` `mv88e6352_g1_stu_loadpurge` /
    /// `mv88e6390_g1_stu_loadpurge` with `entry->valid` false: no data registers).
    ///
    /// Errors: as [`stu_load`](Self::stu_load).
    pub fn stu_purge(&mut self, sid: u8) -> Result<(), Error<M::Error>> {
        self.vtu_chip(SwitchUnit::Stu)?;
        if sid > 63 {
            return Err(ConfigError::Sid { sid }.into());
        }
        self.g1_unit_idle(G1Op::Vtu)?;
        self.unit_write(g1::VTU_VID, 0)?;
        self.shadow.vtu_sid = None;
        self.unit_write(g1::VTU_SID, u16::from(sid))?;
        self.shadow.vtu_sid = Some(u16::from(sid));
        self.unit_op(G1Op::Vtu, op::STU_LOAD_PURGE).map(|_| ())
    }

    /// The STU entry with the lowest SID above `after` (63: the first of all), `None`
    /// past the last.
    ///
    /// Errors: as [`stu_load`](Self::stu_load).
    pub fn stu_get_next(&mut self, after: u8) -> Result<Option<StuEntry>, Error<M::Error>> {
        let (_, info) = self.vtu_chip(SwitchUnit::Stu)?;
        if after > 63 {
            return Err(ConfigError::Sid { sid: after }.into());
        }
        self.g1_unit_idle(G1Op::Vtu)?;
        self.shadow.vtu_sid = None;
        self.unit_write(g1::VTU_SID, u16::from(after))?;
        self.unit_op(G1Op::Vtu, op::STU_GET_NEXT)?;
        if self.g1_read(g1::VTU_VID)? & VID_VALID == 0 {
            return Ok(None);
        }
        let sid = (self.g1_read(g1::VTU_SID)? & 0x3F) as u8;
        let shift = if info.layout == VtuLayout::Mv6390 {
            0
        } else {
            2
        };
        let codes = unpack(info.layout, self.read_data(info.layout)?, shift);
        let mut states = [StuState::Disabled; MAX_PORTS];
        for (s, c) in states.iter_mut().zip(codes) {
            *s = StuState::from_code(c);
        }
        Ok(Some(StuEntry { sid, states }))
    }

    /// Set port `port`'s default VID (PORT_DEFAULT_VLAN \[11:0\], read-modify-write).
    ///
    /// Errors: [`ConfigError::Port`], [`ConfigError::Vid`] (above 4095) before any frame;
    /// [`Error::Mdio`], [`Error::Timeout`] of the SMI layer.
    pub fn port_set_default_vid(&mut self, port: u8, vid: u16) -> Result<(), Error<M::Error>> {
        if vid > 0x0FFF {
            return Err(ConfigError::Vid { vid }.into());
        }
        let r = self.port_read(port, crate::regs::port::PORT_DEFAULT_VLAN)?;
        self.port_write(
            port,
            crate::regs::port::PORT_DEFAULT_VLAN,
            (r & !0x0FFF) | vid,
        )
    }

    /// Port `port`'s default VID.
    ///
    /// Errors: as [`port_read`](Self::port_read).
    pub fn port_default_vid(&mut self, port: u8) -> Result<u16, Error<M::Error>> {
        Ok(self.port_read(port, crate::regs::port::PORT_DEFAULT_VLAN)? & 0x0FFF)
    }

    /// Set port `port`'s 802.1Q mode (PORT_CTL2 \[11:10\], read-modify-write).
    ///
    /// Errors: [`ConfigError::Port`] before any frame; [`Error::Mdio`],
    /// [`Error::Timeout`] of the SMI layer.
    pub fn port_set_8021q_mode(
        &mut self,
        port: u8,
        mode: Dot1qMode,
    ) -> Result<(), Error<M::Error>> {
        let bits = match mode {
            Dot1qMode::Disabled => 0x0000,
            Dot1qMode::Fallback => 0x0400,
            Dot1qMode::Check => 0x0800,
            Dot1qMode::Secure => 0x0C00,
        };
        let r = self.port_read(port, PORT_CTL2)?;
        self.port_write(port, PORT_CTL2, (r & !PORT_CTL2_8021Q_MASK) | bits)
    }

    /// Port `port`'s 802.1Q mode.
    ///
    /// Errors: as [`port_read`](Self::port_read).
    pub fn port_8021q_mode(&mut self, port: u8) -> Result<Dot1qMode, Error<M::Error>> {
        Ok(
            match (self.port_read(port, PORT_CTL2)? & PORT_CTL2_8021Q_MASK) >> 10 {
                0 => Dot1qMode::Disabled,
                1 => Dot1qMode::Fallback,
                2 => Dot1qMode::Check,
                _ => Dot1qMode::Secure,
            },
        )
    }
}

/// G1_VTU_OP member violation (bit 6) after get/clear violation.
const VIOL_MEMBER: u16 = 1 << 6;
/// G1_VTU_OP miss violation (bit 5) after get/clear violation.
const VIOL_MISS: u16 = 1 << 5;
/// G1_VTU_OP source port \[3:0\] after get/clear violation.
const VIOL_SPID_MASK: u16 = 0x000F;

/// One VTU violation as the switch reports it (docs/mv88e6xxx.md#atu-and-vtu-violations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VtuViolation {
    /// G1_VTU_OP bit 6: the source port is not a member of the frame's VLAN (802.1Q check
    /// or secure).
    pub member: bool,
    /// G1_VTU_OP bit 5: the frame's VID is not in the VTU (802.1Q check or secure).
    pub miss: bool,
    /// The source port (G1_VTU_OP \[3:0\]).
    pub spid: u8,
    /// The frame's VID (G1_VTU_VID \[11:0\], with PAGE as VID bit 12 on the 6390 layout).
    pub vid: u16,
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Take the VTU violation the switch holds, if any, and clear it (and with it the
    /// Global1 [`VtuProblem`](crate::irq::G1Irq::VtuProblem) source): G1_VTU_OP get/clear
    /// violation with BUSY, bounded BUSY wait, the violation bits and source port from the
    /// G1_VTU_OP value that showed BUSY clear, then G1_VTU_VID. `None`: no violation bit
    /// was set (G1_VTU_VID is then not read). Linux runs this from its VTU problem
    /// interrupt thread, on every chip (docs/mv88e6xxx.md#atu-and-vtu-violations).
    ///
    /// Errors: [`ConfigError::UnitUnsupported`] (no VTU facts),
    /// [`ConfigError::PortFeature`] ([`Feature::PortOps`](crate::Feature::PortOps)) before
    /// any frame; [`Error::Timeout`] ([`BusyWait::VtuOp`](crate::BusyWait::VtuOp)),
    /// [`Error::Mdio`].
    pub fn vtu_violation(&mut self) -> Result<Option<VtuViolation>, Error<M::Error>> {
        let (_, info) = self.vtu_chip(SwitchUnit::Vtu)?;
        self.port_ops()?;
        let opv = self.unit_op(G1Op::Vtu, op::GET_CLR_VIOLATION);
        // What the operation leaves in G1_VTU_FID / G1_VTU_SID is not in our sources.
        self.shadow.vtu_fid = None;
        self.shadow.vtu_sid = None;
        let opv = opv?;
        if opv & (VIOL_MEMBER | VIOL_MISS) == 0 {
            return Ok(None);
        }
        let v = self.g1_read(g1::VTU_VID)?;
        let mut vid = v & 0x0FFF;
        if info.layout == VtuLayout::Mv6390 && v & VID_PAGE != 0 {
            vid |= 0x1000;
        }
        Ok(Some(VtuViolation {
            member: opv & VIOL_MEMBER != 0,
            miss: opv & VIOL_MISS != 0,
            spid: (opv & VIOL_SPID_MASK) as u8,
            vid,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_pack_members_where_linux_puts_them() {
        let mut codes = [3u16; MAX_PORTS];
        codes[0] = 2;
        codes[5] = 1;
        let r = pack(VtuLayout::Mv6352, &codes, 0);
        assert_eq!(r[0] & 0xF, 2);
        assert_eq!((r[1] >> 4) & 3, 1);
        assert_eq!(unpack(VtuLayout::Mv6352, r, 0), codes);
        let r = pack(VtuLayout::Mv6390, &codes, 0);
        assert_eq!((r[0] >> 10) & 3, 1);
        assert_eq!(unpack(VtuLayout::Mv6390, r, 0), codes);
        assert_eq!(vid_word(0x1005, true), 0x3005);
    }
}
