//! The register map: every register number and field this crate touches, defined once,
//! with its source.
//!
//! Sources (facts only, no code copied): `docs/mv88e6xxx.md`, which cites
//! `torvalds/linux drivers/net/dsa/mv88e6xxx/{smi.h, smi.c, global1.h, global2.h, port.h}`.
//! Register and field names follow Linux's so a reader can cross-check.
//!
//! Fields are typed with [`tock_registers`] bitfields over a 16-bit value; SMI registers are
//! not memory-mapped, so they are used through [`LocalRegisterCopy`]: build a word, send it
//! as one MDIO frame, decode the word read back.

pub use tock_registers::LocalRegisterCopy;
use tock_registers::register_bitfields;

/// Indirect-mode SMI_CMD register number at `sw_addr` (docs/mv88e6xxx.md#smi_cmd).
pub const SMI_CMD: u8 = 0x00;
/// Indirect-mode SMI_DATA register number at `sw_addr` (docs/mv88e6xxx.md#smi_cmd).
pub const SMI_DATA: u8 = 0x01;

/// PORT_SWITCH_ID: register 0x03 of every port; identification reads port 0's
/// (docs/mv88e6xxx.md#identification).
pub const PORT_SWITCH_ID: u8 = 0x03;
/// `PORT_SWITCH_ID & PRODUCT_NUM_MASK` is the product number, still shifted left by 4
/// (docs/mv88e6xxx.md#identification).
pub const PRODUCT_NUM_MASK: u16 = 0xFFF0;
/// `PORT_SWITCH_ID & REV_MASK` is the silicon revision.
pub const REV_MASK: u16 = 0x000F;

/// Global1 register numbers (docs/mv88e6xxx.md#global1, `global1.h`).
pub mod g1 {
    /// G1_STS: INIT_READY and interrupt sources.
    pub const STS: u8 = 0x00;
    /// G1_ATU_FID (6352-style chips).
    pub const ATU_FID: u8 = 0x01;
    /// G1_VTU_FID (6352-style chips).
    pub const VTU_FID: u8 = 0x02;
    /// G1_VTU_SID (6352-style chips).
    pub const VTU_SID: u8 = 0x03;
    /// G1_CTL1: SW_RESET, PPU_ENABLE, interrupt enables.
    pub const CTL1: u8 = 0x04;
    /// G1_VTU_OP: BUSY + VTU operation.
    pub const VTU_OP: u8 = 0x05;
    /// G1_VTU_VID.
    pub const VTU_VID: u8 = 0x06;
    /// G1_VTU_DATA1.
    pub const VTU_DATA1: u8 = 0x07;
    /// G1_VTU_DATA2.
    pub const VTU_DATA2: u8 = 0x08;
    /// G1_ATU_CTL.
    pub const ATU_CTL: u8 = 0x0A;
    /// G1_ATU_OP: BUSY + ATU operation.
    pub const ATU_OP: u8 = 0x0B;
    /// G1_ATU_DATA.
    pub const ATU_DATA: u8 = 0x0C;
    /// G1_ATU_MAC01.
    pub const ATU_MAC01: u8 = 0x0D;
    /// G1_ATU_MAC23.
    pub const ATU_MAC23: u8 = 0x0E;
    /// G1_ATU_MAC45.
    pub const ATU_MAC45: u8 = 0x0F;
    /// G1_CTL2.
    pub const CTL2: u8 = 0x1C;
    /// G1_STATS_OP: BUSY + statistics operation.
    pub const STATS_OP: u8 = 0x1D;
    /// G1_STATS_COUNTER_32.
    pub const STATS_COUNTER_32: u8 = 0x1E;
    /// G1_STATS_COUNTER_01.
    pub const STATS_COUNTER_01: u8 = 0x1F;
    /// G1_VTU_DATA3 (VTU/STU data of ports 8..=10, 6185 and 6352 layouts;
    /// docs/mv88e6xxx.md#atu-vtu-and-stu).
    pub const VTU_DATA3: u8 = 0x09;

    // The monitor registers: CPU and mirror destinations (`global1.h`).
    /// Global1 MONITOR_CTL (0x1A) of the 6185 and 6352 families.
    pub const MONITOR_CTL: u8 = 0x1A;
    /// G1 MONITOR_CTL CPU ("ARP") destination port field \[7:4\].
    pub const MONITOR_CPU_DEST_MASK: u16 = 0x00F0;
    /// G1 MONITOR_CTL ingress mirror destination field \[15:12\] (6095-style chips).
    pub const MONITOR_INGRESS_DEST_MASK: u16 = 0xF000;
    /// G1 MONITOR_CTL egress mirror destination field \[11:8\] (6095-style chips).
    pub const MONITOR_EGRESS_DEST_MASK: u16 = 0x0F00;
    /// Global1 MONITOR_MGMT_CTL (0x1A on the 6341, 6390 and 6393 families): an indirect
    /// table, written as UPDATE | pointer \[13:8\] | data \[7:0\].
    pub const MONITOR_MGMT_CTL: u8 = 0x1A;
    /// MONITOR_MGMT_CTL / POLICY_MGMT_CTL UPDATE (bit 15): store the data at the pointer.
    pub const MGMT_UPDATE: u16 = 1 << 15;
    /// MONITOR_MGMT_CTL pointer 0x20: ingress mirror destination.
    pub const MGMT_PTR_INGRESS_DEST: u16 = 0x2000;
    /// MONITOR_MGMT_CTL pointer 0x21: egress mirror destination.
    pub const MGMT_PTR_EGRESS_DEST: u16 = 0x2100;
    /// MONITOR_MGMT_CTL pointer 0x30: CPU destination of management frames.
    pub const MGMT_PTR_CPU_DEST: u16 = 0x3000;
    /// CPU destination data bits \[7:5\] = 7: management frames keep the highest priority
    /// (Linux's `..._CPU_DEST_MGMTPRI`).
    pub const MGMT_CPU_DEST_PRI: u16 = 0x00E0;
    // Managed-switch operations (Linux port.h / global1.h / global2.h, mainline
    // commit 0010b838db9f; the 6393X EPC write opcode as corrected in mainline to 0x3000).
    /// G1_CTL1 (Global1 0x04) MAX_FRAME_1632 (bit 10) of the 6185-style chips.
    pub const CTL1_MAX_FRAME_1632: u16 = 0x0400;
    /// G1_IP_PRI_0 (Global1 0x10); G1_IP_PRI_0..7 are 0x10..0x17, DSCP `8 r + n` in
    /// bits \[2n+1:2n\] of register `0x10 + r` (the order inside a register is
    /// unverified).
    pub const IP_PRI_0: u8 = 0x10;
    /// G1_IEEE_PRI (Global1 0x18): PCP `n` in bits \[2n+1:2n\].
    pub const IEEE_PRI: u8 = 0x18;
    /// 6390-style MONITOR_MGMT_CTL pointers of the 01:80:C2:00:00:0x traps (00–07,
    /// 08–0F) and the 01:80:C2:00:00:2x traps (20–27, 28–2F).
    pub const MGMT_PTR_RSVD2CPU: [u16; 4] = [0x0000, 0x0100, 0x0200, 0x0300];
    // The statistics unit (Linux global1.h).
    /// G1_STATS_OP operation FLUSH_ALL (`0x1000`): clear every port's counters.
    pub const STATS_OP_FLUSH_ALL: u16 = 0x1000;
    /// G1_STATS_OP operation FLUSH_PORT (`0x2000`): clear one port's counters.
    pub const STATS_OP_FLUSH_PORT: u16 = 0x2000;
    /// G1_STATS_OP operation READ_CAPTURED (`0x4000`): counter `word & 0x1F` of the capture
    /// buffer into G1_STATS_COUNTER_32 / _01.
    pub const STATS_OP_READ_CAPTURED: u16 = 0x4000;
    /// G1_STATS_OP operation CAPTURE_PORT (`0x5000`): one port's counters into the capture
    /// buffer.
    pub const STATS_OP_CAPTURE_PORT: u16 = 0x5000;
    /// G1_STATS_OP histogram mode field \[11:10\] of the chips with
    /// [`HistogramAt::StatsOp`](crate::stats::HistogramAt::StatsOp): `0x0400` RX, `0x0800` TX, `0x0C00` both.
    pub const STATS_OP_HIST_MASK: u16 = 0x0C00;
    /// G1_STATS_OP counter index field \[4:0\] of READ_CAPTURED.
    pub const STATS_OP_INDEX_MASK: u16 = 0x001F;
    /// G1_CTL2 histogram mode field \[7:6\] of the chips with [`HistogramAt::Ctl2`](crate::stats::HistogramAt::Ctl2): `0x0040`
    /// RX, `0x0080` TX.
    pub const CTL2_HIST_MASK: u16 = 0x00C0;
}

/// Global2 register numbers (docs/mv88e6xxx.md#global2, `global2.h`).
pub mod g2 {
    /// G2_SMI_PHY_CMD: BUSY + clause 22 frame to an internal PHY.
    pub const SMI_PHY_CMD: u8 = 0x18;
    /// G2_SMI_PHY_DATA.
    pub const SMI_PHY_DATA: u8 = 0x19;
    /// 6393 family Global2 register 0x05: egress mirror destination.
    pub const EGRESS_MONITOR_DEST: u8 = 0x05;
    // Managed-switch operations (Linux port.h / global1.h / global2.h, mainline
    // commit 0010b838db9f; the 6393X EPC write opcode as corrected in mainline to 0x3000).
    /// G2_MGMT_EN_2X (Global2 0x02): bit `n` traps 01:80:C2:00:00:2n.
    pub const MGMT_EN_2X: u8 = 0x02;
    /// G2_MGMT_EN_0X (Global2 0x03): bit `n` traps 01:80:C2:00:00:0n.
    pub const MGMT_EN_0X: u8 = 0x03;
    /// G2_SWITCH_MGMT (Global2 0x05).
    pub const SWITCH_MGMT: u8 = 0x05;
    /// G2_SWITCH_MGMT RSVD2CPU (bit 3).
    pub const SWITCH_MGMT_RSVD2CPU: u16 = 0x0008;
    /// G2_TRUNK_MASK (Global2 0x07): UPDATE | mask number \[14:12\] | HASH | vector.
    pub const TRUNK_MASK: u8 = 0x07;
    /// G2_TRUNK_MASK / G2_TRUNK_MAPPING UPDATE (bit 15).
    pub const TRUNK_UPDATE: u16 = 0x8000;
    /// G2_TRUNK_MASK number shift (field \[14:12\]).
    pub const TRUNK_MASK_NUM_SHIFT: u32 = 12;
    /// G2_TRUNK_MASK HASH (bit 11).
    pub const TRUNK_MASK_HASH: u16 = 0x0800;
    /// G2_TRUNK_MAPPING (Global2 0x08): UPDATE | trunk ID \[14:11\] | vector.
    pub const TRUNK_MAPPING: u8 = 0x08;
    /// G2_TRUNK_MAPPING ID shift (field \[14:11\]).
    pub const TRUNK_MAPPING_ID_SHIFT: u32 = 11;
    // Interrupts (Linux global2.h).
    /// Global2 INT_SRC (register 0x00): bit `n` is internal PHY `n`'s interrupt line.
    pub const INT_SRC: u8 = 0x00;
    /// Global2 INT_MASK (register 0x01): bit `n` set enables INT_SRC bit `n` into the Global1
    /// "device" source.
    pub const INT_MASK: u8 = 0x01;
}

/// Port register numbers and fields (docs/mv88e6xxx.md#port-control, `port.h`).
pub mod port {
    /// PORT_STS (port register 0x00): link, duplex and speed as the PHY polling unit found
    /// them (read-only bits).
    pub const PORT_STS: u8 = 0x00;
    /// PORT_STS link up (bit 11).
    pub const STS_LINK: u16 = 1 << 11;
    /// PORT_STS full duplex (bit 10).
    pub const STS_DUPLEX: u16 = 1 << 10;
    /// PORT_STS speed field \[9:8\]: 0 10 Mb/s, 1 100 Mb/s, 2 1000 Mb/s.
    pub const STS_SPEED_MASK: u16 = 0x0300;
    /// PORT_MAC_CTL (port register 0x01): forced link, duplex, speed and RGMII delays.
    pub const PORT_MAC_CTL: u8 = 0x01;
    /// PORT_MAC_CTL RGMII receive clock delay (bit 15).
    pub const MAC_RGMII_RXCLK: u16 = 1 << 15;
    /// PORT_MAC_CTL RGMII transmit clock delay (bit 14).
    pub const MAC_RGMII_TXCLK: u16 = 1 << 14;
    /// PORT_MAC_CTL alternate speed ("200BASE" / ALTSPEED, bit 12): with speed 1 it means
    /// 200 Mb/s; on the 6390-class chips also 2500 (and 5000 on the 6393X).
    pub const MAC_ALTSPEED: u16 = 1 << 12;
    /// PORT_MAC_CTL link value when forced (bit 5).
    pub const MAC_LINK_UP: u16 = 1 << 5;
    /// PORT_MAC_CTL force link (bit 4).
    pub const MAC_FORCE_LINK: u16 = 1 << 4;
    /// PORT_MAC_CTL duplex value when forced (bit 3, 1 = full).
    pub const MAC_DUPLEX_FULL: u16 = 1 << 3;
    /// PORT_MAC_CTL force duplex (bit 2).
    pub const MAC_FORCE_DUPLEX: u16 = 1 << 2;
    /// PORT_MAC_CTL speed field \[1:0\]: 0 10, 1 100, 2 1000 Mb/s, 3 not forced (10 G with
    /// [`MAC_FORCE_SPEED`]).
    pub const MAC_SPEED_MASK: u16 = 0x0003;
    /// PORT_CTL0 (port register 0x04): egress mode, frame mode, port state.
    pub const PORT_CTL0: u8 = 0x04;
    /// PORT_CTL0 egress mode field \[13:12\].
    pub const CTL0_EGRESS_MASK: u16 = 0x3000;
    /// PORT_CTL0 frame mode field \[9:8\].
    pub const CTL0_FRAME_MASK: u16 = 0x0300;
    /// PORT_CTL0 port state field \[1:0\].
    pub const CTL0_STATE_MASK: u16 = 0x0003;
    /// PORT_CTL0 source-address filtering field \[15:14\] (Linux port.h
    /// `MV88E6XXX_PORT_CTL0_SA_FILT_MASK`).
    pub const CTL0_SA_FILT_MASK: u16 = 0xC000;
    /// PORT_CTL0 SA filtering "drop on lock" (01): on a locked port, a frame whose source
    /// address is not in the ATU is discarded (`MV88E6XXX_PORT_CTL0_SA_FILT_DROP_ON_LOCK`).
    pub const CTL0_SA_FILT_DROP_ON_LOCK: u16 = 0x4000;
    /// PORT_CTL2 (port register 0x08); on the 6185 its bits \[3:0\] are the upstream port.
    pub const PORT_CTL2: u8 = 0x08;
    /// PORT_CTL2 upstream (CPU) port field \[3:0\] (6185).
    pub const CTL2_UPSTREAM_MASK: u16 = 0x000F;
    /// PORT_MAC_CTL force speed (bit 13): on the 6341, 6390 and 6393 families the speed
    /// field counts only while it is set (docs/mv88e6xxx.md#per-family-port-ops).
    pub const MAC_FORCE_SPEED: u16 = 1 << 13;
    /// 6393 family port register 0x0E POLICY_MGMT_CTL: per-port indirect table, written as
    /// UPDATE | pointer \[13:8\] | data \[7:0\].
    pub const PORT_POLICY_MGMT_CTL: u8 = 0x0E;
    /// POLICY_MGMT_CTL pointer 0x30: ingress mirror destination.
    pub const POLICY_PTR_INGRESS_DEST: u16 = 0x3000;
    /// POLICY_MGMT_CTL pointer 0x38: CPU (upstream) destination.
    pub const POLICY_PTR_CPU_DEST: u16 = 0x3800;
    /// PORT_CTL0 bit 2 on the 6352-style chips: egress floods of unknown unicast
    /// (`MV88E6352_PORT_CTL0_EGRESS_FLOODS_UC`); on the 6095/6131/6185 the same bit is
    /// "forward unknown" (unicast).
    pub const CTL0_FLOOD_UC: u16 = 1 << 2;
    /// PORT_CTL0 bit 3 on the 6352-style chips: egress floods of unknown multicast.
    pub const CTL0_FLOOD_MC: u16 = 1 << 3;
    /// PORT_CTL2 bit 6 on the 6095/6131/6185: "default forward" (unknown multicast).
    pub const CTL2_DEFAULT_FORWARD: u16 = 1 << 6;
    /// Port register 0x10: InDiscards, bits 15..0 (Linux `sw_in_discards`, low half).
    pub const PORT_IN_DISCARD_LO: u8 = 0x10;
    /// Port register 0x11: InDiscards, bits 31..16.
    pub const PORT_IN_DISCARD_HI: u8 = 0x11;
    /// Port register 0x12: InFiltered, 16 bits (Linux `sw_in_filtered`).
    pub const PORT_IN_FILTERED: u8 = 0x12;
    /// Port register 0x13: OutFiltered, 16 bits (Linux `sw_out_filtered`).
    pub const PORT_OUT_FILTERED: u8 = 0x13;
    /// The EtherType Linux sets for normal and DSA ports (`MV88E6XXX_PORT_ETH_TYPE_DEFAULT`).
    pub const ETH_TYPE_DEFAULT: u16 = 0x9100;
    // Managed-switch operations (Linux port.h / global1.h / global2.h, mainline
    // commit 0010b838db9f; the 6393X EPC write opcode as corrected in mainline to 0x3000).
    /// PORT_CTL0 (0x04) IGMP_MLD_SNOOP (bit 10, `MV88E6XXX_PORT_CTL0_IGMP_MLD_SNOOP`).
    pub const CTL0_IGMP_MLD_SNOOP: u16 = 0x0400;
    /// PORT_CTL1 (port register 0x05).
    pub const PORT_CTL1: u8 = 0x05;
    /// PORT_CTL1 TRUNK_PORT (bit 14).
    pub const CTL1_TRUNK_PORT: u16 = 0x4000;
    /// PORT_CTL1 TRUNK_ID field \[11:8\].
    pub const CTL1_TRUNK_ID_MASK: u16 = 0x0F00;
    /// PORT_CTL1 TRUNK_ID shift.
    pub const CTL1_TRUNK_ID_SHIFT: u32 = 8;
    /// PORT_BASE_VLAN (port register 0x06): port vector \[10:0\] (as wide as the chip's
    /// ports) and FID \[3:0\] in \[15:12\].
    pub const PORT_BASE_VLAN: u8 = 0x06;
    /// PORT_BASE_VLAN FID \[3:0\] field \[15:12\].
    pub const BASE_VLAN_FID_3_0_MASK: u16 = 0xF000;
    /// PORT_CTL2 jumbo mode field \[13:12\]: 0 1522, 1 2048, 2 10240 bytes.
    pub const CTL2_JUMBO_MODE_MASK: u16 = 0x3000;
    /// PORT_CTL2 DISCARD_TAGGED (bit 9).
    pub const CTL2_DISCARD_TAGGED: u16 = 0x0200;
    /// PORT_CTL2 DISCARD_UNTAGGED (bit 8).
    pub const CTL2_DISCARD_UNTAGGED: u16 = 0x0100;
    /// PORT_CTL2 EGRESS_MONITOR (bit 5).
    pub const CTL2_EGRESS_MONITOR: u16 = 0x0020;
    /// PORT_CTL2 INGRESS_MONITOR (bit 4).
    pub const CTL2_INGRESS_MONITOR: u16 = 0x0010;
    /// PORT_ASSOC_VECTOR (port register 0x0B): port vector \[10:0\].
    pub const PORT_ASSOC_VECTOR: u8 = 0x0B;
    /// PORT_ETH_TYPE (port register 0x0F), the EtherType of EDSA frames.
    pub const PORT_ETH_TYPE: u8 = 0x0F;
    /// 6393X EPC_CMD (port register 0x10): extended port control command.
    pub const EPC_CMD: u8 = 0x10;
    /// 6393X EPC_DATA (port register 0x11).
    pub const EPC_DATA: u8 = 0x11;
    /// EPC_CMD BUSY (bit 15).
    pub const EPC_CMD_BUSY: u16 = 0x8000;
    /// EPC_CMD write opcode \[14:12\] = 3.
    pub const EPC_CMD_WRITE: u16 = 0x3000;
    /// EPC index of the port EtherType.
    pub const EPC_INDEX_PORT_ETYPE: u16 = 0x02;
    /// 6095-style IEEE_PRIO_REMAP_0123 (port register 0x18): PCP 0–3, 4 bits each.
    pub const IEEE_PRIO_REMAP_0123: u8 = 0x18;
    /// 6095-style IEEE_PRIO_REMAP_4567 (port register 0x19): PCP 4–7.
    pub const IEEE_PRIO_REMAP_4567: u8 = 0x19;
    /// 6390-style IEEE_PRIO_MAP_TABLE (port register 0x18): UPDATE | table \[14:12\] |
    /// pointer \[11:9\] | data \[8:0\].
    pub const IEEE_PRIO_MAP_TABLE: u8 = 0x18;
    /// IEEE_PRIO_MAP_TABLE UPDATE (bit 15).
    pub const IEEE_PRIO_MAP_TABLE_UPDATE: u16 = 0x8000;
    /// IEEE_PRIO_MAP_TABLE table 0: ingress PCP.
    pub const IEEE_PRIO_MAP_TABLE_INGRESS_PCP: u16 = 0x0000;
    /// IEEE_PRIO_MAP_TABLE pointer shift (field \[11:9\]).
    pub const IEEE_PRIO_MAP_TABLE_PTR_SHIFT: u32 = 9;
    /// IEEE_PRIO_MAP_TABLE data field \[8:0\].
    pub const IEEE_PRIO_MAP_TABLE_DATA_MASK: u16 = 0x01FF;
    /// 6393X POLICY_MGMT_CTL pointers of the 01:80:C2:00:00:0x traps (00–07, 08–0F)
    /// and the 01:80:C2:00:00:2x traps (20–27, 28–2F), pointer in \[13:8\].
    pub const POLICY_PTR_RSVD2CPU: [u16; 4] = [0x2000, 0x2100, 0x2400, 0x2500];
    // PORT_ASSOC_VECTOR fields of the address table (Linux port.h).
    /// PORT_ASSOC_VECTOR LOCKED_PORT (bit 13): the port does not learn, and a frame whose
    /// source address is not in the ATU raises an ATU miss violation
    /// (docs/mv88e6xxx.md#atu-and-vtu-violations).
    pub const PAV_LOCKED_PORT: u16 = 1 << 13;
    /// PORT_ASSOC_VECTOR IGNORE_WRONG (bit 12): no ATU member violation for a source address
    /// held by a static entry of other ports (docs/mv88e6xxx.md#atu-and-vtu-violations).
    pub const PAV_IGNORE_WRONG: u16 = 1 << 12;
    // VLANs (Linux port.h).
    /// PORT_DEFAULT_VLAN (port register 0x07): default VID in \[11:0\].
    pub const PORT_DEFAULT_VLAN: u8 = 0x07;
}

register_bitfields![u16,
    /// Indirect SMI_CMD (reg 0x00 at `sw_addr`, docs/mv88e6xxx.md#smi_cmd).
    ///
    /// DEV_ADDR is bits \[9:5\] (mask 0x03E0). Linux's `smi.h` defines the mask constant
    /// as 0x003E, which does not match the field; Linux never applies it (it shifts
    /// `dev << 5`), and neither do we: the field here is the real one.
    #[allow(missing_docs)]
    pub SMI_CMD_REG [
        /// 1 = start / in progress; the hardware clears it when the frame is done.
        BUSY OFFSET(15) NUMBITS(1) [],
        /// 1 = clause 22 frame, 0 = clause 45 (only clause 22 is issued by this crate).
        MODE OFFSET(12) NUMBITS(1) [
            /// Clause 45 frame.
            Clause45 = 0,
            /// Clause 22 frame.
            Clause22 = 1
        ],
        /// Clause 22 opcode.
        OP OFFSET(10) NUMBITS(2) [
            /// Clause 22 write.
            Write = 1,
            /// Clause 22 read.
            Read = 2
        ],
        /// Target device (PHY address / port / global) inside the switch.
        DEV_ADDR OFFSET(5) NUMBITS(5) [],
        /// Register within the device.
        REG_ADDR OFFSET(0) NUMBITS(5) []
    ],
    /// G2_SMI_PHY_CMD (Global2 reg 0x18, docs/mv88e6xxx.md#global2): the same layout as SMI_CMD,
    /// plus FUNC \[14:13\] on 6390-class chips (0 = internal PHYs, the value we use).
    #[allow(missing_docs)]
    pub G2_SMI_PHY_CMD_REG [
        /// 1 = start / in progress.
        BUSY OFFSET(15) NUMBITS(1) [],
        /// 6390 family: 0 internal PHYs, 1 external, 2 setup.
        FUNC OFFSET(13) NUMBITS(2) [
            /// Internal PHYs.
            Internal = 0,
            /// External MDIO bus.
            External = 1,
            /// SERDES setup.
            Setup = 2
        ],
        /// 1 = clause 22 frame.
        MODE OFFSET(12) NUMBITS(1) [
            /// Clause 45 frame.
            Clause45 = 0,
            /// Clause 22 frame.
            Clause22 = 1
        ],
        /// Clause 22 opcode.
        OP OFFSET(10) NUMBITS(2) [
            /// Clause 22 write.
            Write = 1,
            /// Clause 22 read.
            Read = 2
        ],
        /// PHY address.
        DEV_ADDR OFFSET(5) NUMBITS(5) [],
        /// PHY register.
        REG_ADDR OFFSET(0) NUMBITS(5) []
    ],
    /// G1_STS (Global1 reg 0x00, docs/mv88e6xxx.md#global1).
    #[allow(missing_docs)]
    pub G1_STS_REG [
        /// Set when the switch has finished its initialisation.
        INIT_READY OFFSET(11) NUMBITS(1) []
    ],
    /// G1_ATU_OP / G1_VTU_OP / G1_STATS_OP (Global1 0x0B / 0x05 / 0x1D): BUSY in bit 15
    /// and the operation code in \[14:12\] (meaning per register: docs/mv88e6xxx.md#global1).
    #[allow(missing_docs)]
    pub G1_OP_REG [
        /// 1 = start / in progress; the hardware clears it when the operation is done.
        BUSY OFFSET(15) NUMBITS(1) [],
        /// Operation code.
        OP OFFSET(12) NUMBITS(3) []
    ]
];

/// The BUSY bit shared by SMI_CMD, G2_SMI_PHY_CMD and the Global1 operation registers.
pub const BUSY: u16 = 1 << 15;
/// What a read returns when the switch does not answer (in or just after a reset, or
/// nothing at that address: the bus idles high). Never a status: Linux `global1.c`
/// `mv88e6xxx_g1_is_eeprom_done` takes it the same way.
pub const NOT_ANSWERING: u16 = 0xFFFF;
/// G1_STS INIT_READY (bit 11).
pub const INIT_READY: u16 = 1 << 11;
/// G1_CTL1 PPU_ENABLE (bit 14): the PHY polling unit runs (docs/mv88e6xxx.md, Linux
/// `global1.h`).
pub const PPU_ENABLE: u16 = 1 << 14;
/// G1_STS PPU state field of the 6185-style chips (the [`PhyAccess::PpuGated`] ones),
/// bits \[15:14\]: 00 disabled at reset, 01 initializing, 10 disabled, 11 polling.
///
/// [`PhyAccess::PpuGated`]: crate::chip::PhyAccess::PpuGated
pub const PPU_STATE_MASK: u16 = 0xC000;
/// [`PPU_STATE_MASK`] value "disabled (after initialization)": the host owns the PHY bus.
pub const PPU_STATE_DISABLED: u16 = 0x8000;
/// [`PPU_STATE_MASK`] value "polling": the PPU owns the PHY bus.
pub const PPU_STATE_POLLING: u16 = 0xC000;
/// The bit of [`PPU_STATE_MASK`] that is set in both states in which the PPU owns the PHY
/// bus (01 initializing, 11 polling) and clear in both in which it does not (00, 10).
pub const PPU_STATE_ACTIVE: u16 = 0x4000;

/// A typed SMI_CMD word.
pub type SmiCmd = LocalRegisterCopy<u16, SMI_CMD_REG::Register>;
/// A typed G2_SMI_PHY_CMD word.
pub type SmiPhyCmd = LocalRegisterCopy<u16, G2_SMI_PHY_CMD_REG::Register>;

/// A clause 22 opcode as the SMI_CMD / G2_SMI_PHY_CMD OP field encodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum C22Op {
    /// Read (OP = 0b10).
    Read,
    /// Write (OP = 0b01).
    Write,
}

/// The SMI_CMD word that starts a clause 22 `op` on `dev`/`reg`: BUSY | MODE_22 | OP |
/// DEV_ADDR | REG_ADDR. Inputs are masked to their 5-bit fields.
///
/// ```
/// use mv88e6xxx_smi::regs::{smi_cmd, C22Op};
/// // Read port 0x10 register 3: BUSY 0x8000 | C22 0x1000 | READ 0x0800 | 0x10 << 5 | 3.
/// assert_eq!(smi_cmd(C22Op::Read, 0x10, 0x03), 0x9A03);
/// assert_eq!(smi_cmd(C22Op::Write, 0x1B, 0x04), 0x9764);
/// ```
// `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
#[allow(clippy::arithmetic_side_effects)]
pub fn smi_cmd(op: C22Op, dev: u8, reg: u8) -> u16 {
    let mut w = SmiCmd::new(0);
    w.write(
        SMI_CMD_REG::BUSY::SET
            + SMI_CMD_REG::MODE::Clause22
            + match op {
                C22Op::Read => SMI_CMD_REG::OP::Read,
                C22Op::Write => SMI_CMD_REG::OP::Write,
            }
            + SMI_CMD_REG::DEV_ADDR.val(u16::from(dev & 0x1F))
            + SMI_CMD_REG::REG_ADDR.val(u16::from(reg & 0x1F)),
    );
    w.get()
}

/// The G2_SMI_PHY_CMD word for a clause 22 `op` on internal PHY `phy`/`reg` (FUNC =
/// internal).
///
/// ```
/// use mv88e6xxx_smi::regs::{smi_phy_cmd, C22Op};
/// assert_eq!(smi_phy_cmd(C22Op::Read, 1, 2), 0x9822);
/// ```
// `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
#[allow(clippy::arithmetic_side_effects)]
pub fn smi_phy_cmd(op: C22Op, phy: u8, reg: u8) -> u16 {
    let mut w = SmiPhyCmd::new(0);
    w.write(
        G2_SMI_PHY_CMD_REG::BUSY::SET
            + G2_SMI_PHY_CMD_REG::FUNC::Internal
            + G2_SMI_PHY_CMD_REG::MODE::Clause22
            + match op {
                C22Op::Read => G2_SMI_PHY_CMD_REG::OP::Read,
                C22Op::Write => G2_SMI_PHY_CMD_REG::OP::Write,
            }
            + G2_SMI_PHY_CMD_REG::DEV_ADDR.val(u16::from(phy & 0x1F))
            + G2_SMI_PHY_CMD_REG::REG_ADDR.val(u16::from(reg & 0x1F)),
    );
    w.get()
}

/// A decoded SMI_CMD / G2_SMI_PHY_CMD word (what the switch model acts on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodedCmd {
    /// BUSY was set (the write starts a frame).
    pub busy: bool,
    /// MODE = clause 22.
    pub clause22: bool,
    /// The clause 22 opcode, `None` for the encodings 0b00 / 0b11.
    pub op: Option<C22Op>,
    /// DEV_ADDR \[9:5\].
    pub dev: u8,
    /// REG_ADDR \[4:0\].
    pub reg: u8,
}

/// Decode an SMI_CMD word (the G2_SMI_PHY_CMD layout is the same in these fields).
///
/// ```
/// use mv88e6xxx_smi::regs::{decode_cmd, smi_cmd, C22Op};
/// let d = decode_cmd(smi_cmd(C22Op::Write, 0x1C, 0x18));
/// assert!(d.busy && d.clause22);
/// assert_eq!((d.op, d.dev, d.reg), (Some(C22Op::Write), 0x1C, 0x18));
/// ```
pub fn decode_cmd(word: u16) -> DecodedCmd {
    let w = SmiCmd::new(word);
    DecodedCmd {
        busy: w.is_set(SMI_CMD_REG::BUSY),
        clause22: w.is_set(SMI_CMD_REG::MODE),
        op: match w.read(SMI_CMD_REG::OP) {
            1 => Some(C22Op::Write),
            2 => Some(C22Op::Read),
            _ => None,
        },
        dev: w.read(SMI_CMD_REG::DEV_ADDR) as u8,
        reg: w.read(SMI_CMD_REG::REG_ADDR) as u8,
    }
}

/// 6393X indirect-mode remap (docs/mv88e6xxx.md#6393x-remap): the `sw_addr` register at which the
/// 6393 family exposes Global1 register `g1_reg` directly, if it does.
///
/// Only the entries whose Global1 register number docs/mv88e6xxx.md states are mapped
/// (FREE_Q_SIZE is left out: its Global1 number is not in our sources). An unmapped
/// register still works through SMI_CMD/SMI_DATA; it only costs two more frames.
pub const fn remap_6393x_g1(g1_reg: u8) -> Option<u8> {
    match g1_reg {
        g1::VTU_FID => Some(0x02),
        g1::VTU_SID => Some(0x03),
        g1::STS => Some(0x04),
        g1::VTU_OP => Some(0x05),
        g1::VTU_VID => Some(0x06),
        g1::VTU_DATA1 => Some(0x07),
        g1::VTU_DATA2 => Some(0x08),
        g1::ATU_FID => Some(0x09),
        g1::ATU_CTL => Some(0x0A),
        g1::ATU_OP => Some(0x0B),
        g1::ATU_DATA => Some(0x0C),
        g1::ATU_MAC01 => Some(0x0D),
        g1::ATU_MAC23 => Some(0x0E),
        g1::ATU_MAC45 => Some(0x0F),
        g1::STATS_OP => Some(0x1D),
        g1::STATS_COUNTER_32 => Some(0x1E),
        g1::STATS_COUNTER_01 => Some(0x1F),
        _ => None,
    }
}

/// 6393X indirect-mode remap of Global2 registers (docs/mv88e6xxx.md#6393x-remap). Only SMI_PHY_CMD and
/// SMI_PHY_DATA are mapped: their Global2 numbers (0x18 / 0x19) are in our sources; the
/// Global2 numbers of IMP_COMM, AVB_CMD/DATA and MACLINK_INT_SRC are not, so they go
/// through SMI_CMD/SMI_DATA (correct, two frames slower).
pub const fn remap_6393x_g2(g2_reg: u8) -> Option<u8> {
    match g2_reg {
        g2::SMI_PHY_CMD => Some(0x18),
        g2::SMI_PHY_DATA => Some(0x19),
        _ => None,
    }
}

/// G1_CTL1 SW_RESET (bit 15): software reset; INIT_READY drops until the switch is
/// ready again (docs/mv88e6xxx.md#reset).
pub const SW_RESET: u16 = 1 << 15;
/// G1_STS PPU state of the 6352-style chips (bit 15, 1 = polling;
/// docs/mv88e6xxx.md#reset).
pub const PPU_STATE_6352: u16 = 1 << 15;

/// G1_STS EEPROM done (EEInt, bit 0; Linux `global1.h` `MV88E6XXX_G1_STS_IRQ_EEPROM_DONE`
/// = 0): set when the switch has finished loading its EEPROM, cleared by a read of G1_STS
/// (Linux commit e44894e2aa4e, "the EEInt flag ... is cleared on read").
pub const STS_EEPROM_DONE: u16 = 1 << 0;
/// G1_CTL1 RELOAD_EEPROM (bit 9; Linux `global1.h` `MV88E6185_G1_CTL1_RELOAD_EEPROM`,
/// "also valid for 88E6250" per `global1.c` `mv88e6250_g1_eeprom_reload`): set to load the
/// EEPROM again; the switch clears it when done.
pub const CTL1_RELOAD_EEPROM: u16 = 1 << 9;
/// G2_EEPROM_CMD (Global2 register 0x14; Linux `global2.h` `MV88E6XXX_G2_EEPROM_CMD`).
pub const G2_EEPROM_CMD: u8 = 0x14;
/// G2_EEPROM_CMD BUSY (bit 15): an EEPROM operation runs.
pub const EEPROM_CMD_BUSY: u16 = 1 << 15;
/// G2_EEPROM_CMD RUNNING (bit 11; `MV88E6XXX_G2_EEPROM_CMD_RUNNING`): the register loader
/// is executing the EEPROM's contents.
pub const EEPROM_CMD_RUNNING: u16 = 1 << 11;

/// Port register 0x1A of the hidden-register ports (Linux `port.h`
/// `MV88E6XXX_PORT_RESERVED_1A`): on port 4 the control word, on port 5 the data.
pub const PORT_RESERVED_1A: u8 = 0x1A;
/// The port whose register 0x1A is the hidden-register control word
/// (`MV88E6XXX_PORT_RESERVED_1A_CTRL_PORT`).
pub const HIDDEN_CTRL_PORT: u8 = 4;
/// The port whose register 0x1A is the hidden-register data (`_DATA_PORT`).
pub const HIDDEN_DATA_PORT: u8 = 5;
/// Hidden control word BUSY (bit 15, `MV88E6XXX_PORT_RESERVED_1A_BUSY`).
pub const HIDDEN_BUSY: u16 = 1 << 15;
/// Hidden control word WRITE (bit 14, `_WRITE`; 0 is a read).
pub const HIDDEN_WRITE: u16 = 1 << 14;
/// Hidden control word block shift (\[13:10\], `_BLOCK_SHIFT`).
pub const HIDDEN_BLOCK_SHIFT: u32 = 10;
/// Hidden control word port shift (\[9:5\], `_PORT_SHIFT`).
pub const HIDDEN_PORT_SHIFT: u32 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_addr_field_is_bits_9_to_5() {
        // The field mask is 0x03E0, not the 0x003E of Linux's constant.
        assert_eq!(
            SMI_CMD_REG::DEV_ADDR.mask << SMI_CMD_REG::DEV_ADDR.shift,
            0x03E0
        );
        assert_eq!(smi_cmd(C22Op::Read, 0x1F, 0) & 0x03E0, 0x03E0);
        assert_eq!(smi_cmd(C22Op::Read, 0x1F, 0) & 0x001F, 0);
    }

    #[test]
    fn decode_inverts_encode() {
        for dev in 0..32 {
            for reg in 0..32 {
                for op in [C22Op::Read, C22Op::Write] {
                    let d = decode_cmd(smi_cmd(op, dev, reg));
                    assert_eq!(
                        (d.busy, d.clause22, d.op, d.dev, d.reg),
                        (true, true, Some(op), dev, reg)
                    );
                }
            }
        }
    }

    #[test]
    fn remap_targets_avoid_cmd_and_data() {
        for r in 0..32 {
            for t in [remap_6393x_g1(r), remap_6393x_g2(r)].into_iter().flatten() {
                assert!(t > SMI_DATA && t < 32);
            }
        }
    }
}

/// Internal PHY registers the driver touches (Marvell PHYs; Linux `marvell.c`).
pub mod phy {
    /// Marvell PHY interrupt enable register (0x12), Linux `MII_M1011_IMASK`.
    pub const IMASK: u8 = 0x12;
    /// Marvell PHY interrupt status register (0x13), Linux `MII_M1011_IEVENT`; a read returns
    /// the latched events and clears them.
    pub const IEVENT: u8 = 0x13;
    /// Marvell PHY interrupt bit "link status changed" (bit 10, 0x0400) in
    /// [`IMASK`] / [`IEVENT`] (part of Linux's enable mask 0x6400; the bit's meaning is
    /// **unverified**, docs/mv88e6xxx.md#interrupts).
    pub const LINK_CHANGED: u16 = 1 << 10;
    /// The Marvell PHY page register (Linux `phy.h` `MV88E6XXX_PHY_PAGE`).
    pub const PAGE: u8 = 22;
    /// Page 0, the copper page (`MV88E6XXX_PHY_PAGE_COPPER`).
    pub const PAGE_COPPER: u16 = 0x00;
    /// BMCR power down (IEEE 802.3 clause 22 register 0 bit 11, Linux `BMCR_PDOWN`).
    pub const BMCR_PDOWN: u16 = 1 << 11;
}

/// SERDES registers (Linux `serdes.h`).
pub mod serdes {
    /// The SERDES PHY address (Linux `serdes.h` `MV88E6352_ADDR_SERDES`).
    pub const SERDES_6352_ADDR: u8 = 0x0F;
    /// The SERDES page (Linux `serdes.h` `MV88E6352_SERDES_PAGE_FIBER`).
    pub const SERDES_6352_PAGE_FIBER: u16 = 0x01;
    /// POC, the port operational configuration (MMD 4 register 0xF002,
    /// `MV88E6393X_SERDES_POC`): PCS selection \[2:0\], reset bit 15.
    pub const SERDES_6393X_POC: u16 = 0xF002;
    /// Erratum 4.8's register and bit: MMD 4 0xF074 bit 14 (`MV88E6393X_ERRATA_4_8_REG`,
    /// `_BIT`): "write SERDES register 4.F074.14=1 for only those modes [1000BASE-X, SGMII]
    /// and 0 in all other modes".
    pub const SERDES_6393X_ERRATA_4_8_REG: u16 = 0xF074;
    /// Erratum 4.8's bit.
    pub const SERDES_6393X_ERRATA_4_8_BIT: u16 = 1 << 14;
}
