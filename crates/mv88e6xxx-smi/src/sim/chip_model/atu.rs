//! The model of the address translation unit (ATU).
//!
//! A table keyed by (FID, MAC). An operation takes its inputs (G1_ATU_FID or the FID bits
//! of G1_ATU_OP/G1_ATU_CTL, G1_ATU_DATA, G1_ATU_MAC01/23/45) when G1_ATU_OP is written
//! with BUSY, changes the table then, and puts its results in the data registers only
//! when BUSY clears (docs/mv88e6xxx.md#atu-vtu-and-stu). Learned entries age with G1_ATU_CTL
//! AgeTime × the chip's coefficient (0: no ageing, the model's reset value). A violation
//! raised by a switched frame (`traffic.rs`) is latched, sets G1_STS ATU problem, and is
//! handed out and cleared by the get/clear violation operation when its BUSY clears
//! (docs/mv88e6xxx.md#atu-and-vtu-violations).

use std::collections::BTreeMap;

use super::ChipModel;
use super::regs::g1;
use crate::sim::facts::chip_facts;

/// One entry: G1_ATU_DATA as loaded (state \[3:0\], port vector from bit 4), and for a
/// learned (dynamic) entry the time it was learned or refreshed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record {
    pub(super) data: u16,
    pub(super) learned_at: Option<u64>,
}

/// The ATU's table and the results of the running operation.
#[derive(Debug, Default)]
pub(in crate::sim) struct AtuModel {
    pub(super) table: BTreeMap<(u16, [u8; 6]), Record>,
    /// Registers to publish at the end of the running operation: DATA, MAC01/23/45.
    pending: Option<(u16, [u16; 3])>,
    /// The violation the switch holds until a get/clear violation operation takes it
    /// (G1_STS ATU problem set meanwhile).
    pub(super) violation: Option<AtuViolationLatch>,
    /// A running get/clear violation operation and what it took (`Some(None)`: nothing
    /// was latched); published, and the problem source cleared, when BUSY clears.
    clearing: Option<Option<AtuViolationLatch>>,
}

/// One latched ATU violation, as the get/clear violation operation reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AtuViolationLatch {
    /// G1_ATU_OP violation bits \[7:4\] (age out, member, miss, full).
    pub(super) flags: u16,
    /// The source port (reported in G1_ATU_DATA \[3:0\]).
    pub(super) spid: u16,
    pub(super) fid: u16,
    pub(super) mac: [u8; 6],
    /// The port vector reported in G1_ATU_DATA \[14:4\] (the hit entry's; 0 for a miss).
    pub(super) ports: u16,
}

/// G1_ATU_OP member violation (bit 6) and miss violation (bit 5).
pub(super) const ATU_MEMBER_VIOLATION: u16 = 1 << 6;
pub(super) const ATU_MISS_VIOLATION: u16 = 1 << 5;

fn mac_of(w: [u16; 3]) -> [u8; 6] {
    let [a, b] = w[0].to_be_bytes();
    let [c, d] = w[1].to_be_bytes();
    let [e, f] = w[2].to_be_bytes();
    [a, b, c, d, e, f]
}

fn words_of(m: [u8; 6]) -> [u16; 3] {
    [
        u16::from_be_bytes([m[0], m[1]]),
        u16::from_be_bytes([m[2], m[3]]),
        u16::from_be_bytes([m[4], m[5]]),
    ]
}

/// Dynamic (aged, removed by a non-static flush): a unicast address with state 1..=7.
fn dynamic(mac: [u8; 6], data: u16) -> bool {
    mac[0] & 1 == 0 && (1..=7).contains(&(data & 0xF))
}

impl ChipModel {
    /// The FID an ATU operation with op word `word` takes, by the chip's number of
    /// databases.
    fn atu_fid(&self, word: u16) -> u16 {
        let dbs = chip_facts(self.chip).num_databases;
        if dbs > 256 {
            self.g1[usize::from(g1::ATU_FID)] & 0x0FFF
        } else if dbs > 64 {
            (word & 0xF) | ((self.g1[usize::from(g1::ATU_CTL)] >> 8) & 0xF0)
        } else {
            (word & 0xF) | ((word >> 4) & 0x30)
        }
    }

    /// The total age time in ns (0: no ageing).
    fn atu_age_ns(&self) -> u64 {
        let steps = u64::from((self.g1[usize::from(g1::ATU_CTL)] >> 4) & 0xFF);
        steps * u64::from(chip_facts(self.chip).age_time_coeff_ms) * 1_000_000
    }

    /// Remove learned entries older than the age time; others' state is their age.
    pub(super) fn atu_age(&mut self, now: u64) {
        let total = self.atu_age_ns();
        if total == 0 {
            return;
        }
        self.atu.table.retain(|_, r| match r.learned_at {
            Some(t) => now.saturating_sub(t) < total,
            None => true,
        });
        for r in self.atu.table.values_mut() {
            if let Some(t) = r.learned_at {
                // Age 7 when fresh, one less each seventh of the age time.
                let age = 7 - (now.saturating_sub(t) * 7 / total).min(6) as u16;
                r.data = (r.data & !0xF) | age;
            }
        }
    }

    /// The switch learns `mac` on `port` in database `fid` (a frame's source address).
    pub(super) fn atu_learn(&mut self, now: u64, fid: u16, mac: [u8; 6], port: usize) {
        self.atu_age(now);
        match self.atu.table.get_mut(&(fid, mac)) {
            Some(r) if r.learned_at.is_none() => {}
            Some(r) => {
                r.data = (1 << (port + 4)) | 7;
                r.learned_at = Some(now);
            }
            None => {
                self.atu.table.insert(
                    (fid, mac),
                    Record {
                        data: (1 << (port + 4)) | 7,
                        learned_at: Some(now),
                    },
                );
            }
        }
    }

    /// The port vector `mac` is known at in database `fid`, if it is.
    pub(super) fn atu_lookup(&mut self, now: u64, fid: u16, mac: [u8; 6]) -> Option<u16> {
        self.atu_age(now);
        self.atu.table.get(&(fid, mac)).map(|r| r.data >> 4)
    }

    /// An operation of this unit started with op word `word`.
    pub(super) fn atu_op_started(&mut self, now: u64, word: u16) {
        self.atu_age(now);
        self.atu.pending = None;
        self.atu.clearing = None;
        let fid = self.atu_fid(word);
        let data = self.g1[usize::from(g1::ATU_DATA)];
        let mac = mac_of([
            self.g1[usize::from(g1::ATU_MAC01)],
            self.g1[usize::from(g1::ATU_MAC23)],
            self.g1[usize::from(g1::ATU_MAC45)],
        ]);
        let code = (word >> 12) & 7;
        match code {
            1 | 2 | 5 | 6 => {
                let one_fid = code >= 5;
                let all = code == 1 || code == 5;
                let take = |k: &(u16, [u8; 6]), r: &Record| {
                    (!one_fid || k.0 == fid) && (all || dynamic(k.1, r.data))
                };
                match data & 0xF {
                    0 => self.atu.table.retain(|k, r| !take(k, r)),
                    0xF => {
                        // The move's port fields are `atu_move_port_mask` wide (the
                        // model's table); the all-ones to-port removes.
                        let facts = chip_facts(self.chip);
                        let mask = u16::from(facts.atu_move_port_mask);
                        let w = mask.count_ones();
                        let v = data >> 4;
                        let (from, to) = (v & mask, (v >> w) & mask);
                        let port_bit = |p: u16| {
                            1u16.checked_shl(u32::from(p))
                                .filter(|b| facts.port_vector() & b != 0)
                                .map(|b| b << 4)
                        };
                        // Model assumption (unverified): a move from or to a port the
                        // chip does not have changes no entry.
                        let to_bit = if to == mask { Some(0) } else { port_bit(to) };
                        if let (Some(bit), Some(to_bit)) = (port_bit(from), to_bit) {
                            self.atu.table.retain(|k, r| {
                                if !take(k, r) || r.data & bit == 0 {
                                    return true;
                                }
                                r.data = (r.data & !bit) | to_bit;
                                r.data & 0xFFF0 != 0
                            });
                        }
                    }
                    // Other states: not a flush or a move (model assumption: no effect).
                    _ => {}
                }
            }
            3 => {
                if data & 0xF == 0 {
                    self.atu.table.remove(&(fid, mac));
                } else {
                    let learned_at = dynamic(mac, data).then_some(now);
                    self.atu
                        .table
                        .insert((fid, mac), Record { data, learned_at });
                }
            }
            4 => {
                let from = if mac == [0xFF; 6] { None } else { Some(mac) };
                let next = self
                    .atu
                    .table
                    .range((fid, [0; 6])..=(fid, [0xFF; 6]))
                    .find(|(k, _)| from.is_none_or(|m| k.1 > m));
                self.atu.pending = Some(match next {
                    Some((k, r)) => (r.data, words_of(k.1)),
                    None => (0, [0xFFFF; 3]),
                });
            }
            7 => self.atu.clearing = Some(self.atu.violation.take()),
            // No-op.
            _ => {}
        }
    }

    /// The switch raises ATU violation `v` (kept only when none is latched: model
    /// assumption, docs/mv88e6xxx.md#atu-and-vtu-violations).
    pub(super) fn atu_violation_raise(&mut self, v: AtuViolationLatch) {
        if self.atu.violation.is_none() {
            self.atu.violation = Some(v);
        }
    }

    /// G1_STS ATU problem (bit 3): a violation latched or not yet handed out.
    pub(super) fn atu_problem(&self) -> bool {
        self.atu.violation.is_some() || matches!(self.atu.clearing, Some(Some(_)))
    }

    /// The end of a get/clear violation: G1_ATU_OP gets the violation bits and the FID
    /// where the chip's number of databases puts it, G1_ATU_DATA the source port and port
    /// vector, the MAC registers the address; without a violation only the bits (0) change.
    fn atu_violation_done(&mut self, taken: Option<AtuViolationLatch>) {
        let op = usize::from(g1::ATU_OP);
        let Some(v) = taken else {
            self.g1[op] &= 0x7000;
            return;
        };
        let dbs = chip_facts(self.chip).num_databases;
        let mut word = 0x7000 | (v.flags & 0x00F0);
        if dbs > 256 {
            self.g1[usize::from(g1::ATU_FID)] = v.fid & 0x0FFF;
        } else if dbs > 64 {
            word |= v.fid & 0xF;
            let ctl = &mut self.g1[usize::from(g1::ATU_CTL)];
            *ctl = (*ctl & 0x0FFF) | ((v.fid << 8) & 0xF000);
        } else {
            word |= (v.fid & 0xF) | ((v.fid & 0x30) << 4);
        }
        self.g1[op] = word;
        self.g1[usize::from(g1::ATU_DATA)] = (v.ports << 4) | (v.spid & 0xF);
        let [m01, m23, m45] = words_of(v.mac);
        self.g1[usize::from(g1::ATU_MAC01)] = m01;
        self.g1[usize::from(g1::ATU_MAC23)] = m23;
        self.g1[usize::from(g1::ATU_MAC45)] = m45;
    }

    /// The ATU entry's G1_ATU_DATA for `mac` in `fid`, after ageing.
    pub(super) fn atu_entry_data(&mut self, now: u64, fid: u16, mac: [u8; 6]) -> Option<u16> {
        self.atu_age(now);
        self.atu.table.get(&(fid, mac)).map(|r| r.data)
    }

    /// This unit's operation completed: its results become visible.
    pub(super) fn atu_op_done(&mut self, _now: u64) {
        if let Some(taken) = self.atu.clearing.take() {
            self.atu_violation_done(taken);
        }
        if let Some((data, mac)) = self.atu.pending.take() {
            self.g1[usize::from(g1::ATU_DATA)] = data;
            self.g1[usize::from(g1::ATU_MAC01)] = mac[0];
            self.g1[usize::from(g1::ATU_MAC23)] = mac[1];
            self.g1[usize::from(g1::ATU_MAC45)] = mac[2];
        }
    }

    /// The ATU entries as the model holds them, `(fid, mac, G1_ATU_DATA)` (for tests).
    pub fn atu_entries(&self) -> Vec<(u16, [u8; 6], u16)> {
        self.atu
            .table
            .iter()
            .map(|(k, r)| (k.0, k.1, r.data))
            .collect()
    }
}
