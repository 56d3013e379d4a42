//! The model of the VLAN table unit (VTU) and, where the family has one, the spanning-tree
//! unit (STU).
//!
//! Tables keyed by VID and by SID holding the data registers as loaded, in the chip's
//! layout (docs/mv88e6xxx.md#atu-vtu-and-stu). An operation takes G1_VTU_VID (VID, VALID,
//! PAGE on the 6390 layout), G1_VTU_FID / G1_VTU_SID or the FID bits of G1_VTU_OP (6185
//! layout) and G1_VTU_DATA1..3 when G1_VTU_OP is written with BUSY; a GetNext's results
//! reach the registers only when BUSY clears. The layout, the largest VID and whether
//! there is an STU are the model's own facts ([`chip_facts`], Linux's ops tables).

use std::collections::BTreeMap;

use super::ChipModel;
use super::regs::g1;
use crate::chip::Chip;
use crate::sim::facts::{VtuKind, chip_facts};

/// The VTU data layouts (the model's [`VtuKind`]).
pub(super) type VtuLayout = VtuKind;

/// What the VTU model needs of a chip's facts.
#[derive(Debug, Clone, Copy)]
pub(super) struct VtuFacts {
    pub(super) layout: VtuLayout,
    pub(super) max_vid: u16,
    pub(super) has_stu: bool,
}

/// The VTU facts of `chip` (every chip of the model's table has a VTU).
pub(super) fn vtu_info(chip: Chip) -> Option<VtuFacts> {
    let f = chip_facts(chip);
    Some(VtuFacts {
        layout: f.vtu,
        max_vid: f.max_vid,
        has_stu: f.has_stu(),
    })
}

/// A VLAN: its FID, SID and data registers as loaded.
#[derive(Debug, Clone, Copy)]
pub(super) struct Vlan {
    pub(super) fid: u16,
    pub(super) sid: u8,
    pub(super) data: [u16; 3],
}

/// The VTU and STU tables and the running operation's results.
#[derive(Debug, Default)]
pub(in crate::sim) struct VtuModel {
    pub(super) vlans: BTreeMap<u16, Vlan>,
    pub(super) stu: BTreeMap<u8, [u16; 3]>,
    /// (register, value) pairs to publish when BUSY clears.
    pending: Vec<(u8, u16)>,
    /// The violation the switch holds until a get/clear violation operation takes it
    /// (G1_STS VTU problem set meanwhile).
    pub(super) violation: Option<VtuViolationLatch>,
    /// A running get/clear violation operation and what it took (`Some(None)`: nothing
    /// was latched); published, and the problem source cleared, when BUSY clears.
    clearing: Option<Option<VtuViolationLatch>>,
}

/// One latched VTU violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VtuViolationLatch {
    /// G1_VTU_OP violation bits: member (6), miss (5).
    pub(super) flags: u16,
    /// The source port (G1_VTU_OP \[3:0\]).
    pub(super) spid: u16,
    /// The frame's VID (G1_VTU_VID).
    pub(super) vid: u16,
}

/// G1_VTU_OP member violation (bit 6) and miss violation (bit 5).
pub(super) const VTU_MEMBER_VIOLATION: u16 = 1 << 6;
pub(super) const VTU_MISS_VIOLATION: u16 = 1 << 5;

/// The 2-bit field of port `i` in data registers `data` of `layout`, `shift` 2 for the STU
/// state of the 4-bit layouts.
pub(super) fn field(layout: VtuLayout, data: [u16; 3], i: usize, shift: u32) -> u16 {
    let (reg, off) = match layout {
        VtuLayout::Mv6390 => (i / 8, (i % 8) as u32 * 2),
        _ => (i / 4, (i % 4) as u32 * 4),
    };
    data.get(reg).map_or(3, |r| (r >> (off + shift)) & 3)
}

impl ChipModel {
    fn vtu_data_regs(&self, layout: VtuLayout) -> [u16; 3] {
        let n = if layout == VtuLayout::Mv6390 { 2 } else { 3 };
        let mut d = [0; 3];
        for (i, r) in [g1::VTU_DATA1, g1::VTU_DATA2, g1::VTU_DATA3]
            .into_iter()
            .take(n)
            .enumerate()
        {
            d[i] = self.g1[usize::from(r)];
        }
        d
    }

    /// An operation of this unit started with op word `word`.
    pub(super) fn vtu_op_started(&mut self, _now: u64, word: u16) {
        self.vtu.pending.clear();
        if (word >> 12) & 7 == 7 {
            self.vtu.clearing = Some(self.vtu.violation.take());
            return;
        }
        let Some(info) = vtu_info(self.chip) else {
            return;
        };
        let layout = info.layout;
        let raw = self.g1[usize::from(g1::VTU_VID)];
        let mut vid = raw & 0x0FFF;
        if layout == VtuLayout::Mv6390 && raw & 0x2000 != 0 {
            vid |= 0x1000;
        }
        let valid = raw & 0x1000 != 0;
        let sid = (self.g1[usize::from(g1::VTU_SID)] & 0x3F) as u8;
        let page = |v: u16| {
            let mut w = v & 0x0FFF;
            if v & 0x1000 != 0 {
                w |= 0x2000;
            }
            w
        };
        match (word >> 12) & 7 {
            1 => self.vtu.vlans.clear(),
            3 if valid => {
                let fid = if layout == VtuLayout::Mv6185 {
                    (word & 0x000F) | ((word >> 4) & 0x00F0)
                } else {
                    self.g1[usize::from(g1::VTU_FID)] & 0x0FFF
                };
                let sid = if info.has_stu { sid } else { 0 };
                let data = self.vtu_data_regs(layout);
                self.vtu.vlans.insert(vid, Vlan { fid, sid, data });
            }
            3 => {
                self.vtu.vlans.remove(&vid);
            }
            4 => {
                let next = if vid >= info.max_vid {
                    self.vtu.vlans.iter().next()
                } else {
                    self.vtu.vlans.range(vid + 1..).next()
                };
                let p = &mut self.vtu.pending;
                match next {
                    Some((&v, e)) => {
                        p.push((g1::VTU_VID, page(v) | 0x1000));
                        p.push((g1::VTU_DATA1, e.data[0]));
                        p.push((g1::VTU_DATA2, e.data[1]));
                        if layout == VtuLayout::Mv6185 {
                            p.push((g1::VTU_DATA3, e.data[2]));
                            let bits = (e.fid & 0x000F) | ((e.fid & 0x00F0) << 4);
                            p.push((g1::VTU_OP, (word & 0x7000) | bits));
                        } else {
                            if layout == VtuLayout::Mv6352 {
                                p.push((g1::VTU_DATA3, e.data[2]));
                            }
                            p.push((g1::VTU_FID, e.fid));
                            p.push((g1::VTU_SID, u16::from(e.sid)));
                        }
                    }
                    None => p.push((g1::VTU_VID, raw & !0x1000)),
                }
            }
            5 if info.has_stu => {
                if valid {
                    let data = self.vtu_data_regs(layout);
                    self.vtu.stu.insert(sid, data);
                } else {
                    self.vtu.stu.remove(&sid);
                }
            }
            6 if info.has_stu => {
                let next = if sid >= 63 {
                    self.vtu.stu.iter().next()
                } else {
                    self.vtu.stu.range(sid + 1..).next()
                };
                let p = &mut self.vtu.pending;
                match next {
                    Some((&s, d)) => {
                        p.push((g1::VTU_VID, 0x1000));
                        p.push((g1::VTU_SID, u16::from(s)));
                        p.push((g1::VTU_DATA1, d[0]));
                        p.push((g1::VTU_DATA2, d[1]));
                        if layout == VtuLayout::Mv6352 {
                            p.push((g1::VTU_DATA3, d[2]));
                        }
                    }
                    None => p.push((g1::VTU_VID, raw & !0x1000)),
                }
            }
            // No-op, STU codes on a chip without an STU (get/clear violation: above).
            _ => {}
        }
    }

    /// This unit's operation completed: its results become visible.
    pub(super) fn vtu_op_done(&mut self, _now: u64) {
        if let Some(taken) = self.vtu.clearing.take() {
            let op = usize::from(g1::VTU_OP);
            match taken {
                Some(v) => {
                    self.g1[op] = 0x7000 | (v.flags & 0x0060) | (v.spid & 0xF);
                    let mut w = v.vid & 0x0FFF;
                    if v.vid & 0x1000 != 0 {
                        w |= 0x2000;
                    }
                    self.g1[usize::from(g1::VTU_VID)] = w;
                }
                None => self.g1[op] &= 0x7000,
            }
        }
        for (r, v) in std::mem::take(&mut self.vtu.pending) {
            self.g1[usize::from(r)] = v;
        }
    }

    /// The switch raises VTU violation `v` (kept only when none is latched: model
    /// assumption, docs/mv88e6xxx.md#atu-and-vtu-violations).
    pub(super) fn vtu_violation_raise(&mut self, v: VtuViolationLatch) {
        if self.vtu.violation.is_none() {
            self.vtu.violation = Some(v);
        }
    }

    /// G1_STS VTU problem (bit 5): a violation latched or not yet handed out.
    pub(super) fn vtu_problem(&self) -> bool {
        self.vtu.violation.is_some() || matches!(self.vtu.clearing, Some(Some(_)))
    }

    /// The VIDs in the model's VTU (for tests).
    pub fn vtu_vids(&self) -> Vec<u16> {
        self.vtu.vlans.keys().copied().collect()
    }
}
