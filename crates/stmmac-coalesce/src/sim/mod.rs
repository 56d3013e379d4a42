//! Behavioural DWMACs (GMAC 3.x and QoS 4.x/5.x) and a PHY in virtual time, and a sim DMA arena (coherent
//! or not) that records what the DMA saw in order (feature `sim`, host only).
//!
//! [`Gmac3Model`] is a [`SimModel`](hwtimer_core::sim::SimModel) for the whole block (MAC at 0, DMA at 0x1000). Its DMA
//! really walks the descriptors the driver wrote, in a [`SimArena`]: memory with 32-bit bus
//! addresses, so the driver code is the same as on target. Its register map and descriptor
//! decode are its own ([`gmac3_map`], each field with its source: Linux's `dwmac1000.h`,
//! `dwmac_dma.h`, `descs.h`; ST's RM0090), never the driver's. It behaves as those sources
//! say, and like QEMU's npcm-gmac where they are silent:
//!
//! - **Descriptors**: normal or enhanced layout ([`Gmac3Model::with_layout`], announced in
//!   HW_FEATURE.ENHDESSEL), 16 bytes (32 with DMA_BUS_MODE.ATDS on enhanced descriptors)
//!   plus DMA_BUS_MODE.DSL × bus width between them in ring mode
//!   ([`Gmac3Model::with_bus_width`]). Buffer sizes are truncated to the bus width. QEMU
//!   ignores DSL and ATDS and knows only normal descriptors.
//! - **TX**: a write to DMA_XMT_POLL_DEMAND, or to DMA_CONTROL with ST set, walks DMA-owned
//!   descriptors from the current one: buffer 1 (and buffer 2 unless TCH), FS…LS assemble one
//!   frame, recorded with its time ([`SentFrame`]); OWN is cleared; TI is raised when the
//!   frame's last descriptor has IC; TER wraps to the list base, TCH follows TDES3. At the
//!   first descriptor not owned it sets TU and TS = suspended. Sending is synchronous (the
//!   frame completes inside the MMIO write, as in QEMU) unless the DMA is made to lag the
//!   CPU ([`Gmac3Model::with_tx_lag`]: write-back after the fetch latency and wire time). Faults on demand
//!   ([`Gmac3Model::fail_tx`]): TPS, UNF, FBI stop the process until ST is written again.
//! - **RX**: [`Gmac3Model::inject`] delivers a frame (with its FCS, 4 more bytes) through the
//!   frame filter into DMA-owned descriptors, **spilling across descriptors** when it is
//!   longer than RBS1: FS on the first, LS with FL (frame + FCS) on the last, ES when it
//!   could not be stored. When the DMA runs out of descriptors mid-frame, the rest waits (as
//!   in the RX FIFO) and continues, without FS, after a poll demand. RI when the last
//!   descriptor's DIC is clear (which also stops the watchdog); with DIC set and RIWT ≠ 0,
//!   RI when the watchdog (RIWT × 256 CSR clocks after the first uncovered frame) expires.
//!   No descriptor for a new frame: RU, frame dropped. QEMU's double write of the last
//!   descriptor (OWN clear without LS, then LS) on demand
//!   ([`Gmac3Model::set_split_last_write`]).
//! - **Filter** (QEMU has none): PR / RA pass all; broadcast unless DBF; multicast with PM,
//!   or through the 64-bin hash with HMC; unicast only to MAC address 0.
//! - **Line** ([`Gmac3Model::with_phy`]): with an [`AnPhy`] attached, frames pass only while
//!   GMAC_CONTROL's TE/RE, PS/FES and DM match the link the PHY negotiated (QEMU ignores
//!   PS/FES); mismatches are counted, not delivered.
//! - **STATUS**: bits 0–16 write-1-to-clear; NIS/AIS summarise the *enabled* sources;
//!   TS/RS report the process states. Clearing ST or SR while the process runs or is
//!   suspended stops it a [stop lag](Gmac3Model::with_stop_lag) ([`STOP_NS`]) later: TS / RS
//!   read Stopped and TPS / RPS are raised then (QEMU's npcm-gmac raises neither).
//! - **RX FIFO** ([`Gmac3Model::with_rx_fifo`], none by default as in QEMU): frames that
//!   find no descriptor wait in it; with DMA_CONTROL.EFC and GMAC_FLOW_CTRL.TFE its fill
//!   sends 802.3x PAUSE frames at "full − RFA" and a zero-quanta PAUSE at "full − RFD".
//!   DMA_MISSED_FRAME_CTR counts frames lost for want of a descriptor (no FIFO) and FIFO
//!   overflows, and clears on read. GLI/GMI/GPI (bits 26–28) summarise the MAC's own
//!   interrupts (GMAC_INT_STATUS: RGMII/PCS link events, [`Gmac3Model::raise_link_event`];
//!   MMC counters past half range, [`Gmac3Model::raise_mmc_half_range`]) that GMAC_INT_MASK
//!   and the MMC masks (0x10C, 0x110, 0x200) let through; they hold the interrupt line
//!   regardless of DMA_INTR_ENA and clear only at their source (RGMII status 0xD8, PCS AN
//!   status 0xC4, an MMC counter read), never by a DMA_STATUS write. All masks reset to 0.
//! - **MDIO**: MII_ADDR with GB starts a frame on an [`MdioDevice`](mdio_bus::sim::MdioDevice); GB clears one MDIO frame
//!   time later (MDC = CSR clock / CR divider), or never when [stuck](Gmac3Model::set_mdio_stuck).
//! - **Reset**: DMA_BUS_MODE.SWR resets the registers and self-clears after
//!   [`SWR_NS`] (or never, [`Gmac3Model::set_swr_stuck`]).
//!
//! [`QosModel`] is the QoS 4.x/5.x block on the same arena, order log, sent-frame
//! record and MDIO device: tail-pointer doorbells, ring-length wrap, QoS descriptors whose
//! RX write-back overwrites RDES0–2, the MTL queue enables, 40/48-bit addressing with EAME,
//! the version-dependent interrupt enables and RX watchdog unit (its docs list the facts
//! and its assumptions).
//!
//! Assumptions where the sources say nothing: RIWT restarts when a DIC-clear frame raises RI;
//! intermediate RX descriptors carry FL 0; a faulted TX process keeps its descriptors owned;
//! stopping RX (SR cleared) abandons a frame that was waiting for descriptors.
//!
//! # Modules
//!
//! - `engine`: the one DMA engine's state both front-ends share (the arena, current
//!   descriptors, descriptors in flight, the RX FIFO, the stop lag, the sent-frame log) and
//!   its rules: the wire's frame rules, the multicast hash (64, 128 or 256 bins), the line
//!   check, wire time, PAUSE frames and the RX FIFO's flow control thresholds.
//! - `walk`: the engine's descriptor walking, written once: the TX walk with the lagging
//!   write-back, RX delivery (spilling, the watchdog, context descriptors), the start-bit
//!   and stop rules, over a per-version descriptor format (`DescFormat`) and register
//!   front-end (`Front`).
//! - `gmac3_map`, `qos_map`: each model's own register map and descriptor decode, every
//!   field with its source (Linux's Synopsys-derived headers, NXP's RT1170 ENET_QOS); the
//!   models take nothing from the driver.
//! - `gmac3` ([`Gmac3Model`]): the GMAC 3.x front-end's state, builders and fault
//!   injection; `gmac3_regs`: its register decode, STATUS summaries, reset, MDIO;
//!   `gmac3_dma`: its descriptor format (normal/enhanced, stride with DSL and ATDS,
//!   TER/RER, TCH/RCH), its status bits and gates, RX admission and flow control.
//! - `csum`: the checksum offload arithmetic both front-ends use.
//! - `qos` ([`QosModel`]): the QoS 4.x/5.x block; `qos_dma`: its descriptor format (ring
//!   length, tail pointers, EAME addresses, the RDES0–3 write-back), status bits, gates,
//!   MTL counters and flow control; `qos_regs`: its register front-end.
//! - `arena` ([`SimArena`], [`SimCache`]): memory with 32-bit bus addresses, the cache, and
//!   the order log ([`Seen`]).
//! - `phy` ([`AnPhy`], [`Partner`]): the autonegotiating PHY and its link partner.
//! - `timers` ([`SimTimerQueue`]): the TX cleanup timer on the model, a hwtimer-core
//!   `HrTimers` queue on the model's clock whose slots are a ring's [`QueueTimer`](crate::QueueTimer),
//!   and the interrupt loop that serves it.
//! - `seed` (feature `unstable-baselines`): the TX-cleanup timer's rigs and measurements
//!   ([`ring::coalesce`](crate::ring::coalesce)).

mod arena;
mod csum;
mod engine;
mod gmac3;
mod gmac3_dma;
pub mod gmac3_map;
mod gmac3_regs;
mod phy;
mod qos;
mod qos_dma;
pub mod qos_map;
mod qos_regs;
#[cfg(feature = "unstable-baselines")]
pub mod seed;
mod timers;
mod walk;

use std::vec::Vec;

pub use arena::{Ring, Seen, SimArena, SimCache};
pub use csum::inet_checksum;
pub use engine::{STOP_NS, hash_bin, pause_frame};
pub use gmac3::{Gmac3Model, RxWireError, SentFrame, TxFault};
pub use gmac3_dma::DEFAULT_LINE_BPS;
pub use gmac3_regs::Gmac3Irq;
pub use qos::{HW_FEATURE0_4, HW_FEATURE1_4, QosModel, VERSION4_00, VERSION4_10, VERSION5_10};
pub use qos_regs::QosIrq;
pub use timers::{SimQueueTimer, SimTime, SimTimerQueue};

pub use phy::{AN_NS, AnPhy, PHY_RESET_NS, Partner};

/// Virtual time the model keeps DMA_BUS_MODE.SWR set after a reset request.
pub const SWR_NS: u64 = 1_000;
/// GMAC_VERSION of the model (QEMU's npcm-gmac value).
pub const VERSION: u32 = 0x1032;
/// DMA_HW_FEATURE of the model with normal descriptors (QEMU's value).
pub const HW_FEATURE: u32 = 0x100D_4F37;
/// CSR clock of the model and of the seed-proof setups: 125 MHz (MDC /62 ≈ 2.02 MHz).
pub const SIM_CSR_HZ: u32 = 125_000_000;

/// The IEEE 802.3 CRC-32 (the FCS), as the MAC appends it (little-endian on the wire).
pub fn fcs(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An Ethernet frame of `len` bytes (without FCS) to `dst` from 02:00:00:00:00:01, EtherType
/// 0x88B5 (local experimental), payload `fill` except a running byte counter in every
/// 64th byte (so misplaced bytes show).
pub fn eth_frame(dst: [u8; 6], len: usize, fill: u8) -> Vec<u8> {
    let mut f = vec![fill; len.max(14)];
    f[..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    f[12] = 0x88;
    f[13] = 0xB5;
    for (i, b) in f.iter_mut().enumerate().skip(14) {
        if i % 64 == 0 {
            *b = (i / 64) as u8;
        }
    }
    f.truncate(len.max(14));
    f
}
