//! # mv88e6xxx-smi
//!
//! A `no_std` **managed-switch driver for Marvell mv88e6xxx (Link Street) DSA switches**
//! over their SMI (MDIO) management interface (port isolation, learning, management
//! frames to the CPU with DSA/EDSA tags, 802.1Q modes, mirroring, trunks, priority maps,
//! errata as Linux applies them), generic over any fallible [`mdio_bus::Mdio`] bus, with
//! every busy-bit wait bounded on a continuous clocksource through hwtimer-core's
//! [`Poller`](hwtimer_core::poll::Poller).
//!
//! | module / type | what it holds |
//! |---|---|
//! | [`regs`] | register numbers and fields: SMI, Global1 ([`regs::g1`]), Global2 ([`regs::g2`]), ports ([`regs::port`]); typed SMI_CMD / G2_SMI_PHY_CMD / G1 fields (tock-registers), the 6393X remap table |
//! | [`chip`] | the chip table (family → port/PHY base, Global1/Global2, SMI mode; per chip ports, unrouted ports, internal PHYs, [`PhyAccess`]), PORT_SWITCH_ID identification |
//! | [`Switch`] | register access in direct, indirect, dual-chip and (opt-in) 6393X-remapped modes; bounded waits (SMI_CMD BUSY, G1 ATU/VTU/STATS BUSY, G2 SMI_PHY BUSY, INIT_READY, PPU state); internal PHY access per chip; the PPU held across a run of PHY accesses and restarted by a timer the firmware lends ([`Switch::set_ppu_timer`], [`PpuTimer`], [`PpuQueueTimer`], [`Switch::service`]; docs/mv88e6xxx.md#ppu-hold) |
//! | [`InternalMdio`] | the switch's internal PHY bus as an [`Mdio`](mdio_bus::Mdio) for PHY drivers |
//! | Clause 45 | [`Switch::phy_read_c45`] / [`Switch::phy_write_c45`] through Global2 SMI_PHY, [`InternalMdio`] as an [`Mdio45`](mdio_bus::Mdio45), the SERDES lanes of the 6341, 6390, 6390X and 6393 families ([`Switch::serdes_read`], [`Switch::serdes_write`], MMD [`SERDES_DEVAD`]; CMODE-checked: [`Switch::serdes_lane`], [`Switch::serdes_read_checked`], [`Switch::serdes_write_checked`]); docs/mv88e6xxx.md#clause-45 |
//! | [`port`] | port state, frame and egress mode, tag modes ([`port::TagMode`]), forced link/speed/duplex, RGMII delays, link status, CPU and mirror port, flooding, software reset, the EEPROM waits around a hardware reset ([`port::EepromWait`]), the errata of Linux's `setup_errata` ([`Switch::apply_errata`], [`port::Errata`]), per family ([`port::PortOps`]; docs/mv88e6xxx.md#per-family-port-ops, #errata) |
//! | [`port`] (managed) | port isolation ([`Switch::port_set_vlan_map`], [`Switch::port_set_fid`]), learning ([`Switch::port_set_learning`]), IGMP/MLD snooping ([`Switch::port_set_igmp_mld_snoop`]), 802.1Q drop modes ([`Switch::port_set_drop_tagged`]), mirror enables ([`Switch::port_mirror_add`]), frame size ([`Switch::port_set_max_frame_size`]), EDSA EtherType ([`Switch::port_set_ether_type`]), trunk ID ([`Switch::port_set_trunk`]), tag remap ([`Switch::port_set_tag_remap`]); which chip has which op: [`port::ManagedOps`] (docs/mv88e6xxx.md#managed-switch) |
//! | [`global1`], [`global2`] | the IEEE and IP priority maps ([`Switch::set_ieee_pri_map`]); the trunk tables ([`Switch::trunk_load_mask`], [`Switch::trunk_load_map`], [`Switch::trunk_flush`]) and the reserved-multicast traps ([`Switch::set_rsvd2cpu`]) |
//! | SERDES | the 6352 family's SERDES at PHY 0x0F page 1 ([`Switch::serdes_6352_read`], [`Switch::serdes_6352_set_power`]); the 6393 family's SERDES errata ([`Switch::serdes_6393x_erratum_4_6`] once per lane at set-up, [`Switch::serdes_6393x_apply_errata`] after configuring a lane); docs/mv88e6xxx.md#6352-serdes, #errata |
//! | [`irq`] | Global1 interrupt sources and mask (a G1_STS read clears the done events; [`Switch::g1_irq_status`] returns each once), the internal PHYs' link interrupts through Global2 ([`Switch::link_changed_ports`]; docs/mv88e6xxx.md#interrupts) |
//! | [`atu`] | the address table: static entries, flushes, per-port remove, get-next and walks, the age time (docs/mv88e6xxx.md#atu-vtu-and-stu) |
//! | [`vtu`] | VLANs: the VTU and STU, per-port default VID and 802.1Q mode (docs/mv88e6xxx.md#atu-vtu-and-stu) |
//! | [`dsa`] | the DSA and EDSA frame tags: parse a frame from the CPU port (source port, VLAN, trap code), build FROM_CPU and FORWARD frames; no allocation (docs/mv88e6xxx.md#dsa-and-edsa-tags) |
//! | [`stats`] | the MIB counters of one port, the histogram mode, flushes ([`stats::Mib`]; docs/mv88e6xxx.md#mib-statistics) |
//! | [`Error`], [`ConfigError`] | every failure, typed: MDIO error, [`BusyTimeout`] with the last value, unknown switch ID, a switch that reads 0xFFFF ([`Error::NotAnswering`]), and one [`ConfigError`] per refused setting or argument |
//! | `sim` | (feature `sim`) behavioural switch model; its `seed` module (feature `unstable-baselines`, not public API) replays Linux's indirect-access polling without its "Improve indirect addressing performance" patches for the bench and the seed-proof tests, and `linux_switch` / `stats_linux` Linux's ATU, VTU and MIB register sequences for the benches |
//!
//! The source is split by register block, as Linux splits `smi.c`, `global1.c`,
//! `global2.c` and `port.c`: `smi.rs` (SMI transport: [`Addressing`], raw frames, the
//! SMI_CMD wait), `switch.rs` ([`Switch`], [`Config`], probe, register access, waits),
//! `global1.rs` ([`G1Op`]), `global2.rs` (internal PHY access, [`InternalMdio`]), `ppu.rs`
//! (the PPU hold), `global1/priority.rs`, `global2/{trunk,mgmt}.rs`, `port.rs` with
//! `port/{ops,ctl,mac,reset,errata}.rs` and the managed ops
//! `port/{isolation,learning,snoop,dot1q_drop,mirror,frames,trunk,tag_remap,managed_ops}.rs`,
//! `dsa.rs` (the tag codec), and `serdes6352.rs`, `serdes6393x.rs`.
//!
//! ## Contract
//!
//! - **Addressing** (docs/mv88e6xxx.md#addressing): `sw_addr` = 0 is single-chip/direct (one frame per
//!   register); `sw_addr` ≠ 0 is multi-chip/indirect through SMI_CMD/SMI_DATA (3 frames
//!   per register when BUSY clears at once); the 6250 family is dual-chip (`sw_addr +
//!   dev`); on request ([`Config::with_remap_6393x`], off by default for the whole family, the
//!   6361 included) the 6393 family reads hot Global1/Global2 registers directly at
//!   `sw_addr` (an out-of-tree Linux patch, not mainline: docs/mv88e6xxx.md#6393x-remap).
//! - **Bounded waits**: default deadline 50 ms on the clocksource `C` you pass, back-to-back
//!   polls (no sleeps, no jiffies), at least two reads, one more after the deadline, and a
//!   poll-count backstop ([`Config::max_polls`]) for a clocksource that does not advance;
//!   [`Error::Timeout`] with the last value and the bound that ended the wait. An MDIO
//!   error ends a wait at once.
//! - **Never a write into a busy unit** of the units this driver runs operations on; which
//!   registers that covers, and which it does not, is stated at [`Switch`].
//! - **Ports and PHYs per chip**: a port the chip does not have or route is
//!   [`ConfigError::Port`] before any frame (so no port number reaches Global1/Global2);
//!   internal PHYs are reached through Global2 SMI_PHY, or as switch devices with the PHY
//!   polling unit stopped (6085/6095/6131/6185), or directly (6165) ([`PhyAccess`]).
//! - **BUSY before each operation** (as Linux for the ATU, VTU and Global2 PHY; stricter for
//!   STATS, which Linux writes first and waits after): every access waits for its own completion,
//!   so SMI_CMD BUSY is polled before an access only at attach time and after a failure.
//!   The ATU, VTU, STATS and Global2 PHY units are checked before each operation (another
//!   master may have started one); [`Config::with_sole_bus_master`] skips that check
//!   for a host that owns the bus.
//! - **PPU hold** (PPU-gated chips, docs/mv88e6xxx.md#ppu-hold): a run of PHY accesses keeps
//!   the PHY polling unit stopped until [`PPU_HOLD_NS`] after the last one. Lend the switch
//!   a timer ([`Switch::set_ppu_timer`]: a [`PpuTimer`], e.g. a [`PpuQueueTimer`] slot of
//!   the family's `HrTimers` queue) and call [`Switch::service`] on its expiry; without one,
//!   nothing restarts the PPU until `service` or the next switch access
//!   ([`Switch::set_ppu_hold`]`(false)` stops and restarts it around each access instead).
//! - **Interrupt status** (docs/mv88e6xxx.md#interrupts): a G1_STS read clears the
//!   operation-done sources, as Linux describes; the driver keeps those its reads see and
//!   returns each once. A status register that reads 0xFFFF is [`Error::NotAnswering`]
//!   (the switch in or just after a reset, or nothing at that address), never every
//!   source set; nothing is taken from it.
//! - Never panics on any input or value read back (property-tested). No `unsafe`.
//!
//! ## Example
//!
//! Probe a 6352 at `sw_addr` 2 (multi-chip), read a port register, flush the ATU, read an
//! internal PHY's ID through Global2 — on the behavioural model (with hardware, `bus` is
//! your MAC's [`Mdio`](mdio_bus::Mdio) and `clock` any [`Continuous`](hwtimer_core::Continuous)
//! clocksource):
//!
//! ```
//! use mdio_bus::{Mdio, PhyAddr, RegAddr};
//! use mv88e6xxx_smi::chip::{Chip, Family};
//! use mv88e6xxx_smi::sim::{Attach, ChipModel, PhyModel, SwitchSim, FRAME_NS};
//! use mv88e6xxx_smi::{Config, G1Op, Switch};
//!
//! let phy1 = PhyAddr::new(1).unwrap();
//! let mut sim = SwitchSim::single(
//!     ChipModel::new(Chip::Mv6352, Attach::Indirect(2))
//!         .with_revision(1)
//!         .with_phy(PhyModel::bcm54612e(phy1)),
//! );
//! let (mut smi, id) =
//!     Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
//! assert_eq!((id.chip, id.revision), (Chip::Mv6352, 1));
//!
//! // One indirect read: SMI_CMD write, one BUSY poll, SMI_DATA read = 3 frames.
//! let f0 = smi.frames();
//! let _status = smi.port_read(0, 0x00).unwrap();
//! assert_eq!(smi.frames() - f0, 3);
//!
//! // A Global1 operation with a bounded BUSY wait: ATU flush all (OP = 1).
//! smi.g1_op(G1Op::Atu, 0x1000).unwrap();
//!
//! // The internal PHY bus is an `Mdio` too.
//! let id1 = smi.internal_mdio().read(phy1, RegAddr::new(2).unwrap()).unwrap();
//! assert_eq!(id1, 0x0362);
//!
//! // Every frame cost 25.6 µs of virtual time at 2.5 MHz MDC.
//! let frames = smi.frames();
//! let _ = smi.release();
//! assert_eq!(sim.bus.frames(), frames);
//! assert!(sim.clock.now_ns() >= frames * FRAME_NS);
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod atu;
mod c45;
pub mod chip;
pub mod dsa;
mod error;
pub mod global1;
pub mod global2;
pub mod irq;
pub mod port;
mod ppu;
pub mod regs;
mod serdes6352;
mod serdes6393x;
hwtimer_core::sim_module!();
mod smi;
pub mod stats;
mod switch;
pub mod vtu;

/// The SERDES lanes' MMD, modes and lanes (docs/mv88e6xxx.md#6393x-serdes).
pub use c45::{SERDES_DEVAD, SerdesLane, SerdesMode};
pub use chip::{AddressMap, Chip, ChipId, ChipInfo, Family, PhyAccess, SmiMode};
pub use error::{Bound, BusyTimeout, BusyWait, ConfigError, Error, Feature, SwitchUnit};
pub use global1::G1Op;
pub use global2::InternalMdio;
pub use ppu::{PPU_HOLD_NS, PpuQueueTimer, PpuTimer};
pub use smi::Addressing;
pub use switch::{Config, DEFAULT_TIMEOUT_NS, MIN_FRAME_NS, Switch};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
