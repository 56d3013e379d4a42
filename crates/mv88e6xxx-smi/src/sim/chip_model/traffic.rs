//! Frames the model switches between its ports.
//!
//! Register facts in our words, from torvalds/linux `drivers/net/dsa/mv88e6xxx/port.h`
//! (the `MV88E6XXX_PORT_*` names), `port.c` (a copy with `mv88e6xxx_port_set_lock`, v6.2
//! or later) and `chip.c` (`mv88e6xxx_set_port_mode_*`), and `net/dsa/tag_dsa.c` (commit
//! 03ab8e6297ac); the tag layout is in [`dsa_tag`], the trap, mirror, device-number and
//! frame-size registers in [`trap`].
//!
//! What a frame meets, in order (docs/mv88e6xxx.md#atu-vtu-and-stu):
//!
//! 1. the ingress port's state (PORT_CTL0 \[1:0\]): a disabled port receives nothing;
//! 2. its size: longer than the port's largest frame ([`trap`]: PORT_CTL2 JUMBO_MODE
//!    \[13:12\] or G1 MAX_FRAME_1632), counting the DSA or EtherType DSA header of a DSA
//!    port, is discarded (Linux commit b9c587fed61c, "dsa: mv88e6xxx: Include tagger
//!    overhead when setting MTU for DSA and CPU ports": `mv88e6xxx_change_mtu` adds
//!    `EDSA_HLEN` on CPU and DSA ports because the switch discards tagged frames longer
//!    than the size set);
//! 3. the port's frame mode (PORT_CTL0 \[9:8\]: 0 normal, 1 DSA, 2 provider, 3 EtherType
//!    DSA, whose EtherType is PORT_ETH_TYPE, port register 0x0F): on a DSA port the tag
//!    is taken off (a tagged-bit tag becomes the frame's 802.1Q header). FROM_CPU goes to
//!    exactly the port it names, past the address and VLAN tables, port states (except
//!    disabled) and port-based VLANs, with no learning, when the tag's device is the
//!    switch's own; FORWARD is switched as below with the tag's VID;
//! 4. traps, on frames that are not DSA-tagged: a management frame (Rsvd2CPU) and, with
//!    PORT_CTL0 IGMP_MLD_SNOOP (bit 10), an IGMP frame go only to the CPU destination,
//!    whatever the port's state (except disabled), with TO_CPU code MGMT or IGMP_MLD;
//! 5. PORT_CTL2 DISCARD_TAGGED (bit 9) / DISCARD_UNTAGGED (bit 8), on frames that are
//!    not DSA-tagged: a frame with (without) a nonzero 802.1Q VID is dropped;
//! 6. blocking ports drop what is left; the VID (the 802.1Q tag's, the FORWARD tag's, or
//!    PORT_DEFAULT_VLAN for an untagged or priority-tagged frame); the VTU per the port's
//!    802.1Q mode (PORT_CTL2 \[11:10\]); the FID: the VLAN's, or with 802.1Q disabled (or
//!    fallback without a VTU entry) the port's default FID (PORT_BASE_VLAN \[15:12\] and,
//!    as FID \[11:4\], the PORT_CTL1 bits under `(num_databases - 1) >> 4`: \[7:0\] with
//!    4096 databases, \[3:0\] with 256, \[1:0\] with 64; `mv88e6xxx_port_get_fid`, the
//!    number of databases from [`crate::sim::facts`]);
//! 7. source learning into that FID, unless the port's PORT_ASSOC_VECTOR port vector
//!    (its low bits, one per port) is 0 (`mv88e6xxx_port_set_assoc_vector`, Linux's
//!    BR_LEARNING off);
//! 8. the destination's ATU entry, or flooding; egress limited to the ingress port's
//!    PORT_BASE_VLAN port map (one bit per port, `mv88e6xxx_port_set_vlan_map`), to the
//!    VLAN's members, to forwarding ports (and, where the VLAN's SID has an STU entry,
//!    forwarding in it), never the ingress port;
//! 9. on the way out: on a normal port an 802.1Q header per PORT_CTL0 egress mode
//!    \[13:12\] (1 untagged, 2 tagged; 0 and 3 leave it to the VLAN's member tag:
//!    unmodified, untagged or tagged); on a DSA port a tag (TO_CPU for a trap, FORWARD
//!    for a switched frame, FROM_CPU kept as it came) naming the switch's device number
//!    (G1 CTL2 \[4:0\]) and the ingress port, with the frame's priority, CFI and VID and
//!    the tagged bit for the 802.1Q header it would have had; EtherType DSA puts the
//!    port's EtherType and two zero bytes first;
//! 10. mirroring: PORT_CTL2 INGRESS_MONITOR (bit 4) on the ingress port copies the frame
//!     as received to the ingress monitor destination, EGRESS_MONITOR (bit 5) on a port
//!     it leaves copies it to the egress monitor destination ([`trap`]); a copy leaving a
//!     DSA port carries a TO_SNIFFER tag, with byte 1 bit 2 set on an ingress copy
//!     ([`dsa_tag`]).
//!
//! On the way the switch raises violations, latched until a get/clear violation operation
//! takes them (docs/mv88e6xxx.md#atu-and-vtu-violations): a VTU miss (check or secure,
//! unknown VID), a VTU member violation (check or secure, ingress port not a member), an
//! ATU miss (a locked port, PORT_ASSOC_VECTOR bit 13, with an unknown source address; a
//! locked port learns nothing) and an ATU member violation (a source address held by a
//! non-learned entry of other ports, unless PORT_ASSOC_VECTOR IGNORE_WRONG, bit 12).
//!
//! Out of reset (and after a software reset) each port's PORT_BASE_VLAN maps every other
//! port, its PORT_ASSOC_VECTOR names itself and PORT_ETH_TYPE is 0x9100, so an unmanaged
//! switch forwards and learns.
//!
//! Model assumptions beyond our sources: those reset values; the per-VLAN port state of
//! the 6185 layout is ignored; a VLAN whose SID has no STU entry is not filtered by
//! spanning-tree state; provider frame mode is switched as normal; a DSA port takes
//! every frame as tagged and drops a TO_CPU or TO_SNIFFER tag, an EtherType DSA port
//! takes a frame without its EtherType as a normal one; a FROM_CPU tag for another device
//! is dropped (no cross-chip routing); traps learn nothing and are neither VLAN- nor
//! mirror-filtered; a frame leaving untagged carries VID and priority 0 in its tag only
//! as the VID it was switched in; learned entries name the ingress port; a known
//! destination outside the port-based VLAN map is not counted as filtered; a mirror copy
//! goes to a port at most once and never to a port the frame already leaves on, and its
//! tag names the ingress port. Counting: a disabled port's frames are not counted, a
//! blocking or learning port's frames, frames the VLAN checks or the 802.1Q discard bits
//! drop, and FROM_CPU frames for a port that cannot send them count as filtered at
//! ingress (bank-1 in_filtered / PORT InFiltered), oversize frames as discarded (the
//! statistics unit counts only frames of 64 to 1522 bytes there), and a known
//! destination kept away by its VLAN or port state counts as filtered at egress on that
//! port (PORT OutFiltered); no frame is ever discarded for lack of buffers; the transmit
//! counters count each frame as it leaves (tags included).

mod dsa_tag;
mod trap;

use super::ChipModel;
use super::atu::{ATU_MEMBER_VIOLATION, ATU_MISS_VIOLATION, AtuViolationLatch};
use super::vtu::{VTU_MEMBER_VIOLATION, VTU_MISS_VIOLATION, VtuViolationLatch, field};
use super::vtu::{VtuLayout, vtu_info};
use crate::sim::facts::chip_facts;
use dsa_tag::{Cmd, Tag};

/// PORT_CTL0 (port register 0x04): egress mode \[13:12\], IGMP_MLD_SNOOP bit 10, frame
/// mode \[9:8\], port state \[1:0\].
/// The shortest frame a MAC sends, without its FCS (IEEE 802.3 clause 4.2.3.3; Linux
/// `ETH_ZLEN`).
const ETH_ZLEN: usize = 60;
const PORT_CTL0: u8 = 0x04;
/// PORT_CTL1 (0x05): the port's default FID \[11:4\] in its low bits (as many as the
/// chip's databases need).
const PORT_CTL1: u8 = 0x05;
/// PORT_BASE_VLAN (0x06): the port's default FID \[3:0\] in \[15:12\], its port map below.
const PORT_BASE_VLAN: u8 = 0x06;
const PORT_DEFAULT_VLAN: u8 = 0x07;
/// PORT_CTL2 (0x08): 802.1Q mode \[11:10\], DISCARD_TAGGED bit 9, DISCARD_UNTAGGED bit 8,
/// EGRESS_MONITOR bit 5, INGRESS_MONITOR bit 4.
const PORT_CTL2: u8 = 0x08;
const CTL2_DISCARD_TAGGED: u16 = 1 << 9;
const CTL2_DISCARD_UNTAGGED: u16 = 1 << 8;
const CTL2_EGRESS_MONITOR: u16 = 1 << 5;
const CTL2_INGRESS_MONITOR: u16 = 1 << 4;
/// PORT_ETH_TYPE (0x0F).
const PORT_ETH_TYPE: u8 = 0x0F;
const STATE_DISABLED: u16 = 0;
const STATE_LEARNING: u16 = 2;
const STATE_FORWARDING: u16 = 3;
/// PORT_ASSOC_VECTOR (port register 0x0B): LOCKED_PORT (bit 13), IGNORE_WRONG (bit 12),
/// the port vector below.
const PORT_ASSOC_VECTOR: u8 = 0x0B;
const PAV_LOCKED_PORT: u16 = 1 << 13;
/// PORT_CTL0 SA filtering \[15:14\] = 01, drop on lock (Linux port.h
/// `MV88E6XXX_PORT_CTL0_SA_FILT_DROP_ON_LOCK`; set by `mv88e6xxx_port_set_lock` so that a
/// locked port discards frames from sources not in the ATU).
const SA_FILT_MASK: u16 = 0xC000;
const SA_FILT_DROP_ON_LOCK: u16 = 0x4000;
const PAV_IGNORE_WRONG: u16 = 1 << 12;
/// The 802.1Q TPID (`ETH_P_8021Q`).
const TPID_8021Q: [u8; 2] = [0x81, 0x00];

/// A port's frame mode, PORT_CTL0 \[9:8\].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameMode {
    Normal,
    Dsa,
    Provider,
    EtherTypeDsa,
}

/// A frame as the switch understood it at ingress.
#[derive(Debug, Clone)]
struct Rx {
    dst: [u8; 6],
    src: [u8; 6],
    /// The 802.1Q TCI it came with (its header's, or a DSA tag's with the tagged bit).
    tci: Option<u16>,
    /// The frame from its EtherType on.
    payload: Vec<u8>,
    /// The DSA tag it came with.
    tag: Option<Tag>,
}

/// How a frame leaves one port.
#[derive(Debug, Clone, Copy)]
struct Tx {
    port: usize,
    /// The command of its tag, if the port is a DSA port.
    cmd: Cmd,
    /// Whether it leaves 802.1Q tagged (on a DSA port: the tag's tagged bit).
    tagged: bool,
    /// Priority, CFI and VID it leaves with (on a DSA port: in the tag).
    tci: u16,
    /// The device and port its tag names.
    dev: u8,
    tag_port: u8,
}

impl ChipModel {
    fn port_state(&self, port: usize) -> u16 {
        self.ports
            .get(port)
            .map_or(0, |p| p[usize::from(PORT_CTL0)] & 3)
    }

    fn frame_mode(&self, port: usize) -> FrameMode {
        match self
            .ports
            .get(port)
            .map_or(0, |p| (p[usize::from(PORT_CTL0)] >> 8) & 3)
        {
            0 => FrameMode::Normal,
            1 => FrameMode::Dsa,
            2 => FrameMode::Provider,
            _ => FrameMode::EtherTypeDsa,
        }
    }

    /// Whether `port` exists and is routed on this chip.
    fn port_exists(&self, port: usize) -> bool {
        port < self.ports.len()
            && u32::try_from(port)
                .is_ok_and(|p| p < 32 && chip_facts(self.chip).port_vector() & (1 << p) != 0)
    }

    /// The reset values of the frame path's port registers (see the module docs).
    pub(super) fn frame_path_reset(&mut self) {
        let all = ((1u32 << self.ports.len()) - 1) as u16;
        for (p, regs) in self.ports.iter_mut().enumerate() {
            regs[usize::from(PORT_BASE_VLAN)] = all & !(1 << p);
            regs[usize::from(PORT_ASSOC_VECTOR)] = 1 << p;
            regs[usize::from(PORT_ETH_TYPE)] = trap::PORT_ETH_TYPE_DEFAULT;
        }
        self.epc_reset();
    }

    /// A frame arrives on `port` at `now_ns`; returns the ports it leaves on (ascending,
    /// mirror copies included). See [`inject_frame`](Self::inject_frame).
    pub fn inject(&mut self, now_ns: u64, port: usize, frame: &[u8]) -> Vec<usize> {
        let mut ports: Vec<usize> = self
            .inject_frame(now_ns, port, frame)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        ports.sort_unstable();
        ports
    }

    /// A frame (`frame`: the bytes on the wire without FCS, with its DSA or EtherType DSA
    /// header on a DSA port) arrives on `port` at `now_ns`; returns each port it leaves
    /// on, with the bytes it leaves with (tags added or taken off as the egress port's
    /// modes say; the switched ports ascending, then the mirror copies). Operations that
    /// completed by `now_ns` take effect first. Unless `port` is disabled, the statistics
    /// unit counts the frame as received on `port`, each frame as sent on the port it
    /// leaves on, as filtered at ingress when ingress filtering drops it, as discarded
    /// when it is too long, and as filtered at egress on each port a known destination
    /// could not reach for its VLAN or port state.
    pub fn inject_frame(
        &mut self,
        now_ns: u64,
        port: usize,
        frame: &[u8],
    ) -> Vec<(usize, Vec<u8>)> {
        self.settle(now_ns);
        let switched = self.switch_frame(now_ns, port, frame);
        if !matches!(switched, Switched::NotReceived) {
            self.mib_rx(port, frame);
        }
        let (rx, tx) = match switched {
            Switched::Out {
                rx,
                tx,
                egress_filtered,
            } => {
                for &p in &egress_filtered {
                    self.mib_out_filtered(p, frame);
                }
                (rx, tx)
            }
            Switched::Filtered => {
                self.mib_filtered(port, frame);
                return Vec::new();
            }
            Switched::Discarded => {
                self.mib_discarded(port, frame);
                return Vec::new();
            }
            Switched::NotReceived | Switched::Runt => return Vec::new(),
        };
        let tx = self.with_mirrors(port, &rx, tx);
        // A port whose PHY has no link transmits nothing (its MAC does not send; nothing is
        // counted as sent there), and every frame leaves at least ETH_ZLEN (60) bytes long
        // before its FCS: the port's MAC pads a shorter one, e.g. one whose DSA tag came
        // off (IEEE 802.3 clause 4.2.3.3, minimum frame size).
        let out: Vec<(usize, Vec<u8>)> = tx
            .iter()
            .filter(|t| !self.port_link_down(t.port))
            .map(|t| {
                let mut bytes = self.egress_bytes(&rx, t);
                if bytes.len() < ETH_ZLEN {
                    bytes.resize(ETH_ZLEN, 0);
                }
                (t.port, bytes)
            })
            .collect();
        for (p, bytes) in &out {
            self.mib_tx(*p, bytes);
        }
        out
    }

    /// Whether `port` has a modelled PHY ([`with_port_phys`](Self::with_port_phys)) whose
    /// link is down. A port without a modelled PHY (the CPU port, or a model without port
    /// PHYs) is taken to have link: a model assumption.
    fn port_link_down(&self, port: usize) -> bool {
        self.port_phy_link(port) == Some(false)
    }

    /// The length of the DSA header `frame` carries on `port` (0 on a normal port).
    fn dsa_header_len(&self, port: usize, frame: &[u8]) -> usize {
        match self.frame_mode(port) {
            FrameMode::Dsa => 4,
            FrameMode::EtherTypeDsa if frame[12..14] == self.ether_type(port).to_be_bytes() => 8,
            _ => 0,
        }
    }

    /// `frame` (at least 14 bytes) as `port` takes it; `None` for a DSA frame too short
    /// to hold its tag and an EtherType.
    fn parse(&self, port: usize, frame: &[u8]) -> Option<Rx> {
        let mut dst = [0u8; 6];
        dst.copy_from_slice(&frame[0..6]);
        let mut src = [0u8; 6];
        src.copy_from_slice(&frame[6..12]);
        let tag_at = match self.dsa_header_len(port, frame) {
            0 => None,
            n => Some(12 + n - 4),
        };
        if let Some(at) = tag_at {
            let b: [u8; 4] = frame.get(at..at + 4)?.try_into().ok()?;
            let tag = Tag::decode(b);
            let payload = frame.get(at + 4..).filter(|p| p.len() >= 2)?.to_vec();
            return Some(Rx {
                dst,
                src,
                tci: tag.tagged.then(|| tag.tci()),
                payload,
                tag: Some(tag),
            });
        }
        let (tci, payload) = if frame.len() >= 18 && frame[12..14] == TPID_8021Q {
            (
                Some(u16::from_be_bytes([frame[14], frame[15]])),
                frame[16..].to_vec(),
            )
        } else {
            (None, frame[12..].to_vec())
        };
        Some(Rx {
            dst,
            src,
            tci,
            payload,
            tag: None,
        })
    }

    /// The bytes of `rx` leaving as `t` says.
    fn egress_bytes(&self, rx: &Rx, t: &Tx) -> Vec<u8> {
        let mut f = Vec::with_capacity(rx.payload.len() + 20);
        f.extend_from_slice(&rx.dst);
        f.extend_from_slice(&rx.src);
        let mode = self.frame_mode(t.port);
        match mode {
            FrameMode::Dsa | FrameMode::EtherTypeDsa => {
                if mode == FrameMode::EtherTypeDsa {
                    f.extend_from_slice(&self.ether_type(t.port).to_be_bytes());
                    f.extend_from_slice(&[0, 0]);
                }
                let tag = Tag {
                    cmd: t.cmd,
                    tagged: t.tagged,
                    dev: t.dev,
                    port: t.tag_port,
                    trunk: false,
                    prio: (t.tci >> 13) as u8,
                    cfi: t.tci & 0x1000 != 0,
                    vid: t.tci & 0x0FFF,
                };
                f.extend_from_slice(&tag.encode());
            }
            FrameMode::Normal | FrameMode::Provider => {
                if t.tagged {
                    f.extend_from_slice(&TPID_8021Q);
                    f.extend_from_slice(&t.tci.to_be_bytes());
                }
            }
        }
        f.extend_from_slice(&rx.payload);
        f
    }

    /// `tx` with the monitor copies of a frame that entered on `port` added.
    fn with_mirrors(&self, port: usize, rx: &Rx, mut tx: Vec<Tx>) -> Vec<Tx> {
        let ctl2 = |p: usize| self.ports.get(p).map_or(0, |r| r[usize::from(PORT_CTL2)]);
        let mut copies = Vec::new();
        if ctl2(port) & CTL2_INGRESS_MONITOR != 0 {
            let tci = rx.tci.unwrap_or_else(|| rx.tag.map_or(0, |t| t.tci()));
            copies.push((
                self.mirror_dest(port, false),
                Tx {
                    port,
                    cmd: Cmd::ToSniffer(true),
                    tagged: rx.tci.is_some(),
                    tci,
                    dev: self.device_number(),
                    tag_port: port as u8,
                },
            ));
        }
        for t in &tx {
            if ctl2(t.port) & CTL2_EGRESS_MONITOR != 0 {
                copies.push((
                    self.mirror_dest(port, true),
                    Tx {
                        cmd: Cmd::ToSniffer(false),
                        dev: self.device_number(),
                        tag_port: port as u8,
                        ..*t
                    },
                ));
            }
        }
        for (dest, copy) in copies {
            let taken = dest == port || tx.iter().any(|t| t.port == dest);
            if !taken && self.port_exists(dest) && self.port_state(dest) != STATE_DISABLED {
                tx.push(Tx { port: dest, ..copy });
            }
        }
        tx
    }

    fn switch_frame(&mut self, now: u64, port: usize, frame: &[u8]) -> Switched {
        let Some(regs) = self.ports.get(port).copied() else {
            return Switched::NotReceived;
        };
        let state = self.port_state(port);
        if state == STATE_DISABLED {
            return Switched::NotReceived;
        }
        if frame.len() < 14 {
            // Counted (as a runt) by the statistics unit, not switched.
            return Switched::Runt;
        }
        // The tag counts (see the module docs, item 2).
        if frame.len() > self.max_frame(port) {
            return Switched::Discarded;
        }
        let Some(rx) = self.parse(port, frame) else {
            return Switched::Filtered;
        };
        match rx.tag.map(|t| t.cmd) {
            Some(Cmd::FromCpu) => return self.sent_by_cpu(port, rx),
            Some(Cmd::ToCpu(_) | Cmd::ToSniffer(_)) => return Switched::Filtered,
            Some(Cmd::Forward) | None => {}
        }
        let pvid = regs[usize::from(PORT_DEFAULT_VLAN)] & 0x0FFF;
        if rx.tag.is_none() {
            if let Some(trap) = self.trap_of(port, rx.dst, &rx.payload) {
                return self.trapped(port, rx, trap.code, pvid);
            }
            let ctl2 = regs[usize::from(PORT_CTL2)];
            let tagged = rx.tci.is_some_and(|t| t & 0x0FFF != 0);
            if (tagged && ctl2 & CTL2_DISCARD_TAGGED != 0)
                || (!tagged && ctl2 & CTL2_DISCARD_UNTAGGED != 0)
            {
                return Switched::Filtered;
            }
        }
        if state < STATE_LEARNING {
            return Switched::Filtered;
        }
        let (dst, src) = (rx.dst, rx.src);
        let tag_vid = rx
            .tag
            .map(|t| t.vid)
            .or(rx.tci.map(|t| t & 0x0FFF))
            .filter(|&v| v != 0);
        let vid = tag_vid.unwrap_or(pvid);
        let mode = (regs[usize::from(PORT_CTL2)] >> 10) & 3;
        let pav = regs[usize::from(PORT_ASSOC_VECTOR)];
        let spid = port as u16;
        let nports = self.ports.len();
        let all: u16 = ((1u32 << nports) - 1) as u16;
        // FID [11:4] from as many PORT_CTL1 bits as the chip has databases
        // (`mv88e6xxx_port_get_fid`: `(num_databases - 1) >> 4`).
        let upper_mask = chip_facts(self.chip).num_databases.saturating_sub(1) >> 4;
        let default_fid = (regs[usize::from(PORT_BASE_VLAN)] >> 12)
            | ((regs[usize::from(PORT_CTL1)] & upper_mask) << 4);
        let port_map = regs[usize::from(PORT_BASE_VLAN)] & all;

        let info = vtu_info(self.chip);
        let vlan = if mode == 0 {
            None
        } else {
            self.vtu.vlans.get(&vid).copied()
        };
        let (fid, mut members, stu, member_tags) = match (mode, vlan, info) {
            (0, _, _) | (1, None, _) | (_, _, None) => (default_fid, all, None, None),
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
                (v.fid, members, stu, Some((info.layout, v.data)))
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
                // A locked port does not learn: an unknown source is an ATU miss violation,
                // and with SA filtering on drop-on-lock the frame goes no further.
                None if locked => {
                    self.atu_violation_raise(AtuViolationLatch {
                        flags: ATU_MISS_VIOLATION,
                        spid,
                        fid,
                        mac: src,
                        ports: 0,
                    });
                    let ctl0 = self
                        .ports
                        .get(port)
                        .map_or(0, |p| p[usize::from(PORT_CTL0)]);
                    if ctl0 & SA_FILT_MASK == SA_FILT_DROP_ON_LOCK {
                        return Switched::Filtered;
                    }
                }
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
                // Learning off: the association vector names no port.
                _ if pav & all == 0 => {}
                _ => self.atu_learn(now, fid, src, port),
            }
        }
        if state != STATE_FORWARDING {
            return Switched::Filtered;
        }
        let hit = self.atu_lookup(now, fid, dst);
        let dest = hit.unwrap_or(all);
        let candidates: Vec<usize> = (0..nports)
            .filter(|&i| {
                i != port && dest & (1 << i) != 0 && port_map & (1 << i) != 0 && self.port_exists(i)
            })
            .collect();
        let (ports, blocked): (Vec<usize>, Vec<usize>) = candidates
            .into_iter()
            .partition(|&i| members & (1 << i) != 0 && self.port_state(i) == STATE_FORWARDING);
        // A known destination the VLAN or the egress port's state keeps the frame from is
        // egress filtering at that port; a flood simply does not reach non-members.
        let egress_filtered = if hit.is_some() { blocked } else { Vec::new() };
        // The TCI the frame leaves with when tagged: its own, its VID if it had none (or
        // was priority-tagged).
        let tci = match rx.tci {
            Some(t) if t & 0x0FFF != 0 => t,
            Some(t) => (t & 0xF000) | vid,
            None => vid,
        };
        let dev = self.device_number();
        let tx = ports
            .into_iter()
            .map(|i| {
                let egress_mode = (self.ports[i][usize::from(PORT_CTL0)] >> 12) & 3;
                let member = member_tags.map(|(layout, data)| field(layout, data, i, 0));
                let tagged = match (egress_mode, member) {
                    (1, _) | (_, Some(1)) => false,
                    (2, _) | (_, Some(2)) => true,
                    _ => rx.tci.is_some(),
                };
                Tx {
                    port: i,
                    cmd: Cmd::Forward,
                    tagged,
                    tci,
                    dev,
                    tag_port: port as u8,
                }
            })
            .collect();
        Switched::Out {
            rx,
            tx,
            egress_filtered,
        }
    }

    /// A FROM_CPU frame `rx` entering DSA port `port`: to the port its tag names.
    fn sent_by_cpu(&self, port: usize, rx: Rx) -> Switched {
        let Some(tag) = rx.tag else {
            return Switched::Filtered;
        };
        let target = usize::from(tag.port);
        if tag.dev != self.device_number()
            || target == port
            || !self.port_exists(target)
            || self.port_state(target) == STATE_DISABLED
        {
            return Switched::Filtered;
        }
        let tx = vec![Tx {
            port: target,
            cmd: Cmd::FromCpu,
            tagged: tag.tagged,
            tci: tag.tci(),
            dev: tag.dev,
            tag_port: tag.port,
        }];
        Switched::Out {
            rx,
            tx,
            egress_filtered: Vec::new(),
        }
    }

    /// A frame `rx` entering `port` trapped with TO_CPU `code`: to the CPU destination.
    fn trapped(&self, port: usize, rx: Rx, code: u8, pvid: u16) -> Switched {
        let dest = self.cpu_dest(port);
        if dest == port || !self.port_exists(dest) || self.port_state(dest) == STATE_DISABLED {
            return Switched::Filtered;
        }
        let tci = match rx.tci {
            Some(t) if t & 0x0FFF != 0 => t,
            Some(t) => (t & 0xF000) | pvid,
            None => pvid,
        };
        let tx = vec![Tx {
            port: dest,
            cmd: Cmd::ToCpu(code),
            tagged: rx.tci.is_some(),
            tci,
            dev: self.device_number(),
            tag_port: port as u8,
        }];
        Switched::Out {
            rx,
            tx,
            egress_filtered: Vec::new(),
        }
    }
}

/// What the switch did with a frame.
enum Switched {
    /// The ingress port is disabled (or absent): the frame is not received (nor counted).
    NotReceived,
    /// Shorter than an Ethernet header: counted as received, not switched.
    Runt,
    /// Dropped by ingress filtering (port or STU state, VLAN membership, unknown VID,
    /// the 802.1Q discard bits, an unusable trap or FROM_CPU destination).
    Filtered,
    /// Longer than the port's largest frame.
    Discarded,
    /// Sent as `tx` says; a known destination among `egress_filtered` was filtered at
    /// egress.
    Out {
        rx: Rx,
        tx: Vec<Tx>,
        egress_filtered: Vec<usize>,
    },
}
