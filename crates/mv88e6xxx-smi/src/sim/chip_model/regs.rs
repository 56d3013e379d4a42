//! The register numbers and fields the model answers to: its own, from Linux's headers
//! (torvalds/linux commit 578464679f33cde8331507c78f7b302299df7783,
//! `drivers/net/dsa/mv88e6xxx/smi.h`, `port.h`, `global1.h`, `global2.h`), not the
//! driver's `regs` module.

/// smi.h `MV88E6XXX_SMI_CMD`: the indirect command register at `sw_addr`.
pub(crate) const SMI_CMD: u8 = 0x00;
/// smi.h `MV88E6XXX_SMI_DATA`.
pub(crate) const SMI_DATA: u8 = 0x01;
/// smi.h `MV88E6XXX_SMI_CMD_BUSY`; the same bit is BUSY in every unit's operation
/// register (global1.h `MV88E6XXX_G1_ATU_OP_BUSY`, `_VTU_OP_BUSY`, `_STATS_OP_BUSY`,
/// global2.h `MV88E6XXX_G2_SMI_PHY_CMD_BUSY`).
pub(crate) const BUSY: u16 = 0x8000;
/// smi.h `MV88E6XXX_SMI_CMD_MODE_22` (global2.h `MV88E6XXX_G2_SMI_PHY_CMD_MODE_22`).
const CMD_MODE_22: u16 = 0x1000;
/// smi.h `MV88E6XXX_SMI_CMD_OP_22_WRITE` / `_READ` (bits \[11:10\]).
const CMD_OP_MASK: u16 = 0x0C00;
const CMD_OP_22_WRITE: u16 = 0x0400;
const CMD_OP_22_READ: u16 = 0x0800;

/// port.h `MV88E6XXX_PORT_SWITCH_ID`.
pub(crate) const PORT_SWITCH_ID: u8 = 0x03;

/// Global1 register numbers (global1.h `MV88E6XXX_G1_*`).
pub(crate) mod g1 {
    /// `MV88E6XXX_G1_STS`.
    pub(crate) const STS: u8 = 0x00;
    /// `MV88E6352_G1_ATU_FID`.
    pub(crate) const ATU_FID: u8 = 0x01;
    /// `MV88E6352_G1_VTU_FID`.
    pub(crate) const VTU_FID: u8 = 0x02;
    /// `MV88E6352_G1_VTU_SID`.
    pub(crate) const VTU_SID: u8 = 0x03;
    /// `MV88E6XXX_G1_CTL1`.
    pub(crate) const CTL1: u8 = 0x04;
    /// `MV88E6XXX_G1_VTU_OP`.
    pub(crate) const VTU_OP: u8 = 0x05;
    /// `MV88E6XXX_G1_VTU_VID`.
    pub(crate) const VTU_VID: u8 = 0x06;
    /// `MV88E6XXX_G1_VTU_DATA1`.
    pub(crate) const VTU_DATA1: u8 = 0x07;
    /// `MV88E6XXX_G1_VTU_DATA2`.
    pub(crate) const VTU_DATA2: u8 = 0x08;
    /// `MV88E6XXX_G1_VTU_DATA3`.
    pub(crate) const VTU_DATA3: u8 = 0x09;
    /// `MV88E6XXX_G1_ATU_CTL`.
    pub(crate) const ATU_CTL: u8 = 0x0A;
    /// `MV88E6XXX_G1_ATU_OP`.
    pub(crate) const ATU_OP: u8 = 0x0B;
    /// `MV88E6XXX_G1_ATU_DATA`.
    pub(crate) const ATU_DATA: u8 = 0x0C;
    /// `MV88E6XXX_G1_ATU_MAC01`.
    pub(crate) const ATU_MAC01: u8 = 0x0D;
    /// `MV88E6XXX_G1_ATU_MAC23`.
    pub(crate) const ATU_MAC23: u8 = 0x0E;
    /// `MV88E6XXX_G1_ATU_MAC45`.
    pub(crate) const ATU_MAC45: u8 = 0x0F;
    /// `MV88E6XXX_G1_CTL2`.
    pub(crate) const CTL2: u8 = 0x1C;
    /// `MV88E6XXX_G1_STATS_OP`.
    pub(crate) const STATS_OP: u8 = 0x1D;
    /// `MV88E6XXX_G1_STATS_COUNTER_32`.
    pub(crate) const STATS_COUNTER_32: u8 = 0x1E;
    /// `MV88E6XXX_G1_STATS_COUNTER_01`.
    pub(crate) const STATS_COUNTER_01: u8 = 0x1F;
}

/// Global2 register numbers (global2.h `MV88E6XXX_G2_*`).
pub(crate) mod g2 {
    /// `MV88E6XXX_G2_SMI_PHY_CMD`.
    pub(crate) const SMI_PHY_CMD: u8 = 0x18;
    /// `MV88E6XXX_G2_SMI_PHY_DATA`.
    pub(crate) const SMI_PHY_DATA: u8 = 0x19;
}

/// The G1_STS interrupt sources a read of G1_STS clears: the "operation done" events,
/// global1.h `MV88E6XXX_G1_STS_IRQ_EEPROM_DONE` (0), `_TCAM_DONE` (1), `_ATU_DONE` (2),
/// `_VTU_DONE` (4), `_STATS` (6). Linux's chip.c `mv88e6xxx_g1_irq_setup_common` reads
/// G1_STS once after masking the sources, with the comment that reading the interrupt
/// status clears "(most of)" them (torvalds/linux v6.12). The others stay set while their
/// cause lasts, and Linux clears them at the cause: ATU problem (3) and VTU problem (5) by
/// the units' GET_CLR_VIOLATION operations (global1_atu.c, global1_vtu.c), device (7) and
/// the 6393X's DEVICE_2 (9) through Global2, AVB (8) in the AVB unit. Which sources make
/// up "most" is this model's reading of that comment: an event is cleared by the read
/// that reports it, a state is not (**unverified** on silicon).
pub(crate) const G1_STS_CLEARED_ON_READ: u16 = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 4) | (1 << 6);
/// global1.h `MV88E6XXX_G1_STS_IRQ_ATU_DONE`.
pub(crate) const G1_STS_ATU_DONE: u16 = 1 << 2;
/// global1.h `MV88E6XXX_G1_STS_IRQ_VTU_DONE`.
pub(crate) const G1_STS_VTU_DONE: u16 = 1 << 4;
/// global1.h `MV88E6XXX_G1_STS_IRQ_STATS`.
pub(crate) const G1_STS_STATS_DONE: u16 = 1 << 6;

/// global1.h `MV88E6XXX_G1_STS_INIT_READY`.
pub(crate) const INIT_READY: u16 = 0x0800;
/// global1.h `MV88E6185_G1_STS_PPU_STATE_MASK`.
pub(crate) const PPU_STATE_MASK: u16 = 0xC000;
/// global1.h `MV88E6185_G1_STS_PPU_STATE_INITIALIZING`.
pub(crate) const PPU_STATE_INITIALIZING: u16 = 0x4000;
/// global1.h `MV88E6185_G1_STS_PPU_STATE_DISABLED`.
pub(crate) const PPU_STATE_DISABLED: u16 = 0x8000;
/// global1.h `MV88E6185_G1_STS_PPU_STATE_POLLING`.
pub(crate) const PPU_STATE_POLLING: u16 = 0xC000;
/// global1.h `MV88E6352_G1_STS_PPU_STATE`.
pub(crate) const PPU_STATE_6352: u16 = 0x8000;
/// global1.h `MV88E6XXX_G1_CTL1_SW_RESET`.
pub(crate) const SW_RESET: u16 = 0x8000;
/// global1.h `MV88E6185_G1_CTL1_PPU_ENABLE`.
pub(crate) const PPU_ENABLE: u16 = 0x4000;

/// A clause 22 opcode of an SMI_CMD / G2_SMI_PHY_CMD word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum C22Op {
    Read,
    Write,
}

/// The fields of an SMI_CMD / G2_SMI_PHY_CMD word (smi.h, global2.h: BUSY \[15\],
/// MODE_22 \[12\], OP \[11:10\], DEV \[9:5\], REG \[4:0\]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cmd {
    pub(crate) clause22: bool,
    pub(crate) op: Option<C22Op>,
    pub(crate) dev: u8,
    pub(crate) reg: u8,
}

/// Decode a command word.
pub(crate) fn decode_cmd(word: u16) -> Cmd {
    Cmd {
        clause22: word & CMD_MODE_22 != 0,
        op: match word & CMD_OP_MASK {
            CMD_OP_22_WRITE => Some(C22Op::Write),
            CMD_OP_22_READ => Some(C22Op::Read),
            _ => None,
        },
        dev: ((word >> 5) & 0x1F) as u8,
        reg: (word & 0x1F) as u8,
    }
}

/// The 6393 family's indirect-mode registers at `sw_addr` that stand for Global1
/// registers, `(sw_addr register, Global1 register)`. Source: the out-of-tree wkz/linux
/// `smi.c` remap (shipped by kernelkit/infix), as docs/mv88e6xxx.md#6393x-remap records
/// it; mainline Linux has no such remap.
const REMAP_6393X_G1: [(u8, u8); 17] = [
    (0x02, g1::VTU_FID),
    (0x03, g1::VTU_SID),
    (0x04, g1::STS),
    (0x05, g1::VTU_OP),
    (0x06, g1::VTU_VID),
    (0x07, g1::VTU_DATA1),
    (0x08, g1::VTU_DATA2),
    (0x09, g1::ATU_FID),
    (0x0A, g1::ATU_CTL),
    (0x0B, g1::ATU_OP),
    (0x0C, g1::ATU_DATA),
    (0x0D, g1::ATU_MAC01),
    (0x0E, g1::ATU_MAC23),
    (0x0F, g1::ATU_MAC45),
    (0x1D, g1::STATS_OP),
    (0x1E, g1::STATS_COUNTER_32),
    (0x1F, g1::STATS_COUNTER_01),
];

/// As [`REMAP_6393X_G1`], for Global2.
const REMAP_6393X_G2: [(u8, u8); 2] = [(0x18, g2::SMI_PHY_CMD), (0x19, g2::SMI_PHY_DATA)];

/// The (Global1 or Global2, register) that indirect-mode register `reg` stands for on a
/// remapping 6393-family chip: `Some((false, r))` Global1, `Some((true, r))` Global2.
pub(crate) fn remap_6393x(reg: u8) -> Option<(bool, u8)> {
    REMAP_6393X_G1
        .iter()
        .find(|&&(at, _)| at == reg)
        .map(|&(_, r)| (false, r))
        .or_else(|| {
            REMAP_6393X_G2
                .iter()
                .find(|&&(at, _)| at == reg)
                .map(|&(_, r)| (true, r))
        })
}
