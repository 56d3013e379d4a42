//! Frames the model switches between its ports.
//!
//! What a frame meets, in order (docs/mv88e6xxx.md#atu-vtu-and-stu): the ingress port's
//! state (PORT_CTL0 \[1:0\]: disabled and blocking drop, learning learns only); the VID
//! (the 802.1Q tag's, or PORT_DEFAULT_VLAN for an untagged or priority-tagged frame); the
//! VTU per the port's 802.1Q mode (PORT_CTL2 \[11:10\]); source learning into the VLAN's
//! FID; the destination's ATU entry, or flooding; egress limited to the VLAN's members, to
//! forwarding ports (and, where the VLAN's SID has an STU entry, forwarding in it), never
//! the ingress port.
//!
//! On the way the switch raises violations, latched until a get/clear violation operation
//! takes them (docs/mv88e6xxx.md#atu-and-vtu-violations): a VTU miss (check or secure,
//! unknown VID), a VTU member violation (check or secure, ingress port not a member), an
//! ATU miss (a locked port, PORT_ASSOC_VECTOR bit 13, with an unknown source address; a
//! locked port learns nothing) and an ATU member violation (a source address held by a
//! non-learned entry of other ports, unless PORT_ASSOC_VECTOR IGNORE_WRONG, bit 12).
//!
//! Model assumptions beyond our sources: with 802.1Q disabled (or fallback without a VTU
//! entry) the frame uses FID 0 and may reach every port (PORT_BASE_VLAN is not
//! modelled); the per-VLAN port state of the 6185 layout is ignored; a VLAN whose SID has
//! no STU entry is not filtered by spanning-tree state; a disabled port receives nothing
//! (not counted), a blocking or learning port's frames, and frames the VLAN checks drop,
//! count as filtered at ingress (bank-1 in_filtered / PORT InFiltered), and a known
//! destination kept away by its VLAN or port state counts as filtered at egress on that
//! port (PORT OutFiltered); no frame is ever discarded for lack of buffers.

use super::ChipModel;
use super::atu::{ATU_MEMBER_VIOLATION, ATU_MISS_VIOLATION, AtuViolationLatch};
use super::vtu::{VTU_MEMBER_VIOLATION, VTU_MISS_VIOLATION, VtuViolationLatch, field};
use super::vtu::{VtuLayout, vtu_info};
use crate::sim::facts::chip_facts;

/// PORT_CTL0 (port register 0x04), port state \[1:0\].
const PORT_CTL0: u8 = 0x04;
const PORT_DEFAULT_VLAN: u8 = 0x07;
const PORT_CTL2: u8 = 0x08;
const STATE_DISABLED: u16 = 0;
const STATE_LEARNING: u16 = 2;
const STATE_FORWARDING: u16 = 3;
/// PORT_ASSOC_VECTOR (port register 0x0B): LOCKED_PORT (bit 13), IGNORE_WRONG (bit 12).
const PORT_ASSOC_VECTOR: u8 = 0x0B;
const PAV_LOCKED_PORT: u16 = 1 << 13;
const PAV_IGNORE_WRONG: u16 = 1 << 12;

impl ChipModel {
    fn port_state(&self, port: usize) -> u16 {
        self.ports
            .get(port)
            .map_or(0, |p| p[usize::from(PORT_CTL0)] & 3)
    }

    /// A frame arrives on `port` at `now_ns`; returns the ports it leaves on (ascending).
    /// Operations that completed by `now_ns` take effect first. Unless `port` is disabled,
    /// the statistics unit counts the frame as received on `port`, as sent on each port it
    /// leaves on, as filtered at ingress when ingress filtering drops it (port or STU
    /// state, VLAN membership, unknown VID), and as filtered at egress on each port a known
    /// destination could not reach for its VLAN or port state.
    pub fn inject(&mut self, now_ns: u64, port: usize, frame: &[u8]) -> Vec<usize> {
        self.settle(now_ns);
        let switched = self.switch_frame(now_ns, port, frame);
        if !matches!(switched, Switched::NotReceived) {
            self.mib_rx(port, frame);
        }
        let out = match switched {
            Switched::Out {
                ports,
                egress_filtered,
            } => {
                for &p in &egress_filtered {
                    self.mib_out_filtered(p, frame);
                }
                ports
            }
            Switched::Filtered => {
                self.mib_filtered(port, frame);
                Vec::new()
            }
            Switched::NotReceived => Vec::new(),
        };
        for &p in &out {
            self.mib_tx(p, frame);
        }
        out
    }

    fn switch_frame(&mut self, now: u64, port: usize, frame: &[u8]) -> Switched {
        let Some(regs) = self.ports.get(port) else {
            return Switched::NotReceived;
        };
        let state = self.port_state(port);
        if state == STATE_DISABLED {
            return Switched::NotReceived;
        }
        if frame.len() < 14 {
            // Counted (as a runt) by the statistics unit, not switched.
            return Switched::Out {
                ports: Vec::new(),
                egress_filtered: Vec::new(),
            };
        }
        if state < STATE_LEARNING {
            return Switched::Filtered;
        }
        let mut dst = [0u8; 6];
        dst.copy_from_slice(&frame[0..6]);
        let mut src = [0u8; 6];
        src.copy_from_slice(&frame[6..12]);
        let tag_vid = (frame.len() >= 18 && frame[12..14] == [0x81, 0x00])
            .then(|| u16::from_be_bytes([frame[14], frame[15]]) & 0x0FFF)
            .filter(|&v| v != 0);
        let vid = tag_vid.unwrap_or(regs[usize::from(PORT_DEFAULT_VLAN)] & 0x0FFF);
        let mode = (regs[usize::from(PORT_CTL2)] >> 10) & 3;
        let pav = regs[usize::from(PORT_ASSOC_VECTOR)];
        let spid = port as u16;
        let nports = self.ports.len();
        let all: u16 = ((1u32 << nports) - 1) as u16;

        let info = vtu_info(self.chip);
        let vlan = if mode == 0 {
            None
        } else {
            self.vtu.vlans.get(&vid).copied()
        };
        let (fid, mut members, stu) = match (mode, vlan, info) {
            (0, _, _) | (1, None, _) | (_, _, None) => (0, all, None),
            (_, None, _) => {
                // Check / secure: unknown VID, a VTU miss violation.
                self.vtu_violation_raise(VtuViolationLatch {
                    flags: VTU_MISS_VIOLATION,
                    spid,
                    vid,
                });
                return Switched::Filtered;
            }
            (_, Some(v), Some(info)) => {
                let members = (0..nports)
                    .filter(|&i| field(info.layout, v.data, i, 0) != 3)
                    .fold(0u16, |m, i| m | 1 << i);
                if mode >= 2 && members & (1 << port) == 0 {
                    // Check / secure: the ingress port is not a member, a VTU member
                    // violation; secure drops the frame.
                    self.vtu_violation_raise(VtuViolationLatch {
                        flags: VTU_MEMBER_VIOLATION,
                        spid,
                        vid,
                    });
                    if mode == 3 {
                        return Switched::Filtered;
                    }
                }
                let stu = (info.layout != VtuLayout::Mv6185)
                    .then(|| self.vtu.stu.get(&v.sid).map(|d| (info.layout, *d)))
                    .flatten();
                (v.fid, members, stu)
            }
        };
        if let Some((layout, d)) = stu {
            let shift = if layout == VtuLayout::Mv6390 { 0 } else { 2 };
            if field(layout, d, port, shift) < STATE_LEARNING {
                return Switched::Filtered;
            }
            members &= (0..nports)
                .filter(|&i| field(layout, d, i, shift) == STATE_FORWARDING)
                .fold(0u16, |m, i| m | 1 << i);
        }
        if src[0] & 1 == 0 {
            let locked = pav & PAV_LOCKED_PORT != 0;
            match self.atu_entry_data(now, fid, src) {
                // A locked port does not learn: an unknown source is an ATU miss violation.
                None if locked => self.atu_violation_raise(AtuViolationLatch {
                    flags: ATU_MISS_VIOLATION,
                    spid,
                    fid,
                    mac: src,
                    ports: 0,
                }),
                // A source held by a static entry of other ports: an ATU member violation.
                Some(d)
                    if !(1..=7).contains(&(d & 0xF))
                        && (d >> 4) & (1 << port) == 0
                        && pav & PAV_IGNORE_WRONG == 0 =>
                {
                    self.atu_violation_raise(AtuViolationLatch {
                        flags: ATU_MEMBER_VIOLATION,
                        spid,
                        fid,
                        mac: src,
                        ports: d >> 4,
                    });
                }
                _ if locked => {}
                _ => self.atu_learn(now, fid, src, port),
            }
        }
        if state != STATE_FORWARDING {
            return Switched::Filtered;
        }
        let hit = self.atu_lookup(now, fid, dst);
        let dest = hit.unwrap_or(all);
        let chip = self.chip;
        let candidates: Vec<usize> = (0..nports)
            .filter(|&i| {
                i != port && dest & (1 << i) != 0 && chip_facts(chip).port_vector() & (1 << i) != 0
            })
            .collect();
        let (ports, blocked): (Vec<usize>, Vec<usize>) = candidates
            .into_iter()
            .partition(|&i| members & (1 << i) != 0 && self.port_state(i) == STATE_FORWARDING);
        // A known destination the VLAN or the egress port's state keeps the frame from is
        // egress filtering at that port; a flood simply does not reach non-members.
        let egress_filtered = if hit.is_some() { blocked } else { Vec::new() };
        Switched::Out {
            ports,
            egress_filtered,
        }
    }
}

/// What the switch did with a frame.
enum Switched {
    /// The ingress port is disabled: the frame is not received (nor counted).
    NotReceived,
    /// Dropped by ingress filtering (port or STU state, VLAN membership, unknown VID).
    Filtered,
    /// Sent on `ports`; a known destination among `egress_filtered` was filtered at egress.
    Out {
        ports: Vec<usize>,
        egress_filtered: Vec<usize>,
    },
}
