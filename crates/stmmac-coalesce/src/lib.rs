//! `no_std` driver for the **Synopsys DWMAC (stmmac)**, the GMAC 3.x ([`Gmac3`]) and the
//! QoS 4.x/5.x core ([`Qos`], `docs/qos.md`; [`probe()`](fn@probe) tells them apart), with TX/RX
//! interrupt coalescing on [`hwtimer-core`](hwtimer_core)'s high-resolution timer queue: MAC
//! bring-up (PHY autonegotiation over MDIO, speed/duplex, address and frame filter), DMA
//! rings that are sound at the DMA boundary (barriers, cache hook, owned memory), zero-copy
//! RX and in-place TX, and behavioural models of both blocks for host tests. The rings and
//! the stack adapters drive either MAC through the sealed [`Dwmac`] trait; the example
//! below is the GMAC 3.x one, and the QoS 4.x/5.x bring-up is in [`qos`]'s docs.
//!
//! # The contract
//!
//! - **IC every `tx_frames`** ([`ring::coalesce::ic_decision`], Linux's rule); the **TX cleanup
//!   timer is armed once** per window ([`TimerStrategy::ArmOnce`]), not re-armed per
//!   packet, and is cancelled when a TI clean empties the ring; its period comes from the
//!   configuration alone. Linux's re-arm-every-packet is `TimerStrategy::RearmEveryPacket`
//!   (feature `unstable-baselines`), for the comparisons of
//!   [`ring::coalesce`] (679 vs 934 Mbit/s).
//! - **A queued frame is never an error**: [`TxToken::commit`] decides IC and the timer
//!   before the descriptor is handed over; when the timer cannot be armed, the frame gets IC.
//! - **RX coalescing** ([`CoalesceConfig`], with what 0 means): RIWT from `rx_usecs`, DIC
//!   on the descriptors per `rx_frames`.
//! - **Configuration is checked** as ethtool does, and against the ring lengths
//!   ([`CoalesceConfig::validate_tx`], [`CoalesceConfig::validate_rx`]); it can change at
//!   run time ([`TxRing::set_coalesce`], [`RxRing::set_coalesce`]).
//! - **DMA boundary**: rings own their memory ([`DmaRegion`]) and program their own base
//!   ([`TxRing::start`], [`RxRing::start`]); [`DmaAddr`] is an `unsafe trait`; descriptor
//!   fields, then [`dma::barrier::dma_wmb`], then OWN, then [`dma::barrier::wmb`], then the doorbell;
//!   [`CacheOps`] cleans and invalidates ([`Coherent`] for uncached or coherent memory).
//! - **Bad input**: no descriptor content or register value panics; runt, oversized,
//!   errored and inconsistent RX frames are dropped and counted ([`RxStats`]); a frame
//!   spanning descriptors is assembled or dropped, never mixed with stale bytes; a full
//!   ring is [`Error::WouldBlock`]; TPS/UNF/FBI restart the DMA ([`TxRing::recover`]).
//! - **Bounded waits**: DMA software reset and MDIO (MII_ADDR.GB) poll with hwtimer-core's
//!   [`Poller`](hwtimer_core::Poller) and fail with [`Error::Timeout`].
//!
//! # API for network stacks
//!
//! What a `smoltcp::phy::Device` or an `embassy_net_driver::Driver` is built from:
//!
//! | need | API |
//! |---|---|
//! | RX token | [`RxRing::receive`] → [`RxFrame`]: [`RxFrame::as_slice`] lends the DMA buffer (one descriptor), [`RxFrame::bytes`] / [`RxFrame::copy_to`] copy a spanning frame once; dropping the frame gives its descriptors back |
//! | TX token | [`TxRing::reserve`] → [`TxToken`] (reserved when handed out; [`Error::WouldBlock`] when full, [`Error::LinkDown`]): fill [`TxToken::buffer`] in place, then [`TxToken::commit`]; dropping it sends nothing |
//! | link state | [`Phy::poll`] over [`Dwmac::mdio`], [`Dwmac::set_link`], [`Dwmac::link`] |
//! | capabilities | MTU = [`RxRing::max_frame`] / [`TxRing::buf_size`] (frame bytes without FCS); checksums as the rings enabled them ([Checksum offload](#checksum-offload)) |
//! | interrupts → wakers | [`Dwmac::take_events`] → [`DmaEvents::rx_ready`] / [`DmaEvents::tx_done`]; [`TxRing::service`] returns descriptors freed ("TX space"), [`RxRing::service`] whether data waits; the cleanup timer's [`TxRing::on_timer`] frees TX space too |
//!
//! # Example
//!
//! Bring-up and one frame each way, on the model (on target: `hwtimer_core::Mmio` at the
//! GMAC base, `unsafe { IdentityMap::new() }`, regions from `static` [`DmaMemory`]):
//!
//! ```
//! use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
//! use mdio_bus::PhyAddr;
//! use stmmac_coalesce::common::phy::{Advertise, Phy};
//! use stmmac_coalesce::sim::{eth_frame, AnPhy, Gmac3Model, SimArena, SIM_CSR_HZ};
//! use stmmac_coalesce::{
//!     CoalesceConfig, Coherent, DmaConfig, Dwmac, Gmac3, FrameFilter, MacConfig, NoTimer, RxConfig,
//!     RxRing, TimerStrategy, TxConfig, TxRing,
//! };
//!
//! let clock = SimClock::new();
//! let counter = SimCounter::new(&clock, 32, 25_000_000);
//! let arena = SimArena::new(0x1000_0000, 256 * 1024);
//! let bus = SimBus::new(&clock, Gmac3Model::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ));
//! let mac = Gmac3::new(bus.clone());
//!
//! // MAC and DMA.
//! mac.soft_reset(&counter)?;
//! let setup = mac.configure_dma(&DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() })?;
//! let us = [0x52, 0x54, 0, 0x12, 0x34, 0x56];
//! mac.init_mac(&MacConfig { address: us, filter: FrameFilter::default() });
//!
//! // Rings: each carves its descriptors and buffers from its own region.
//! let coalesce = CoalesceConfig { tx_frames: 4, tx_usecs: 0, ..CoalesceConfig::default() };
//! let tx_cfg = TxConfig { descriptors: 8, buf_size: 1536, coalesce, strategy: TimerStrategy::ArmOnce };
//! let rx_cfg = RxConfig { descriptors: 8, buf_size: 512, ..RxConfig::default() };
//! let mut tx = TxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup, tx_cfg, NoTimer, Coherent)?;
//! let mut rx = RxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup, rx_cfg, Coherent)?;
//! tx.start(&mac);
//! rx.start(&mac);
//!
//! // PHY autonegotiation over MDIO, then the MAC follows the link.
//! let phy = Phy::new(PhyAddr::new(0).unwrap());
//! let mut mdio = mac.mdio(&counter, SIM_CSR_HZ)?;
//! phy.start_autoneg(&mut mdio, Advertise::default())?;
//! clock.advance(5_000_000); // the model's PHY negotiates in virtual time
//! let link = phy.poll(&mut mdio)?;
//! assert!(link.up);
//! mac.set_link(link);
//!
//! // TX: reserve, fill the DMA buffer in place, commit.
//! let mut t = tx.reserve(&mac)?;
//! t.buffer()[..60].fill(0xAB);
//! t.commit(60)?;
//! assert_eq!(bus.model(|m| m.sent().len()), 1);
//!
//! // RX: a 1000-byte frame to us spans two 512-byte descriptors; it is copied once.
//! let sent = eth_frame(us, 1000, 0x5A);
//! bus.model(|m| m.inject(clock.now_ns(), &sent));
//! let mut frame = rx.receive(&mac)?;
//! assert_eq!((frame.len(), frame.descriptors()), (1000, 2));
//! assert!(frame.as_slice().is_none());
//! let mut scratch = [0u8; 1518];
//! assert_eq!(frame.bytes(&mut scratch)?, &sent[..]);
//! drop(frame); // the descriptors go back to the DMA
//! assert_eq!(rx.receive(&mac).map(|_| ()), Err(stmmac_coalesce::Error::WouldBlock));
//! # Ok::<(), stmmac_coalesce::Error>(())
//! ```
//!
//! # Soundness at the DMA boundary
//!
//! Safe code cannot make the DMA read or write memory outside the regions the rings own:
//! every way to name other memory, or to describe the rings to the DMA differently from how
//! they are laid out, is either `unsafe` or checked at run time with a typed error.
//!
//! - **`unsafe` promises**: [`DmaAddr`] (bus addresses), [`IdentityMap::new`],
//!   [`DmaRegion::from_raw`], [`CacheOps`] (what it cleans and invalidates, and its
//!   [`line`](CacheOps::line)), [`Gmac3::set_ring_bases`], [`Gmac3::bus`], and a descriptor
//!   layout for a core without HW_FEATURE ([`DmaConfig::resolve_assuming_layout`],
//!   [`Gmac3::configure_dma_assuming_layout`]).
//! - **checked**: [`DmaSetup`] is built only by [`Dwmac::configure_dma`] and checked again
//!   when a ring carves its region; a HW_FEATURE of 0 or all ones is refused
//!   ([`ConfigError::NoHwFeature`]) and a configured layout must agree with it
//!   ([`ConfigError::LayoutMismatch`]); [`Dwmac::configure_dma`] refuses while a DMA engine
//!   runs ([`Error::DmaRunning`]); each ring reads DMA_BUS_MODE.DSL back before starting
//!   its engine ([`TxRing::try_start`], [`RxRing::try_start`]:
//!   [`Error::GeometryMismatch`]); a configured cache line shorter than the cache hook's
//!   is refused ([`ConfigError::CacheLineTooShort`]).
//! - **by construction**: word 3 of every descriptor is its own buffer (never bus address
//!   0); the DMA_CONTROL / GMAC_CONTROL read-modify-writes run in a critical section; one
//!   MDIO master at a time ([`Error::MdioBusy`]).
//!
//! What this does not cover: an `unsafe` promise that is false, and memory corrupted by
//! something outside the crate (the RX path still never trusts descriptor contents, see
//! *Bad input*). docs/gmac3.md#dma-boundary has the reasoning, including why there is no
//! guard descriptor after the ring.
//!
//! Each of these fails to compile:
//!
//! ```compile_fail
//! // A bus-address translation is a promise about the hardware: an `unsafe impl`.
//! struct Mine;
//! impl stmmac_coalesce::DmaAddr for Mine {
//!     fn bus_addr(&self, p: *const u8) -> Option<u32> { Some(p as usize as u32) }
//! }
//! ```
//!
//! ```compile_fail
//! // "CPU addresses are bus addresses" is a platform claim.
//! let a = stmmac_coalesce::IdentityMap::new();
//! ```
//!
//! ```compile_fail
//! # fn f<B: hwtimer_core::RegisterBus<Word = u32>>(mac: &stmmac_coalesce::Gmac3<B>) {
//! mac.set_ring_bases(0x1000, 0x2000); // raw descriptor bases
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f<B: hwtimer_core::RegisterBus<Word = u32>>(mac: &stmmac_coalesce::Gmac3<B>) {
//! let bus = mac.bus(); // raw register access could do the same
//! # }
//! ```
//!
//! ```compile_fail
//! // A hand-made set-up (fields are private).
//! let s = stmmac_coalesce::DmaSetup {
//!     layout: stmmac_coalesce::DescLayout::Normal,
//!     cache_line: 4, desc_stride: 2, dsl: 0, pbl: 8, bus_width: 4, csr_hz: 0,
//! };
//! ```
//!
//! ```compile_fail
//! // A cache hook is a promise about the caches: an `unsafe impl`.
//! struct Mine;
//! impl stmmac_coalesce::CacheOps for Mine {
//!     fn line(&self) -> usize { 1 }
//!     fn clean(&self, _: *const u8, _: usize) {}
//!     fn invalidate(&self, _: *const u8, _: usize) {}
//! }
//! ```
//!
//! ```compile_fail
//! // A region over arbitrary memory.
//! let r = stmmac_coalesce::DmaRegion::from_raw(core::ptr::NonNull::dangling(), 4096);
//! ```
//!
//! The rings keep their memory as raw pointers into a [`DmaRegion`] they own for good and
//! write the bases themselves ([`TxRing::start`], [`RxRing::start`]).
//!
//! # Checksum offload
//!
//! HW_FEATURE bits 16–18 give the engines ([`Coe`], [`Gmac3::coe`], [`DmaSetup::coe`]; `None`
//! without HW_FEATURE). Both rings leave them off by default; a firmware turns them on per ring
//! with [`TxRing::set_checksum_offload`] (CIC = 3 on every frame) and
//! [`RxRing::set_checksum_offload`] (GMAC_CONTROL.IPC at the next start, read back) and an
//! [`Offload`] choice: `IfDetected` follows HW_FEATURE, `Assume` is for cores without it. While
//! RX checking is on, frames the core reports with a bad IPv4 header or TCP/UDP/ICMP checksum
//! are dropped and counted ([`RxStats::ip_checksum_errors`],
//! [`RxStats::payload_checksum_errors`]). The smoltcp and embassy-net adapters tell their
//! stacks exactly what the rings enabled (ICMP is always computed by the stack on TX: QEMU's
//! model does not insert it). Runt, oversized and errored frames are dropped and counted, each
//! cause in its own counter ([`RxStats`]). Details: `docs/gmac3.md`, "Checksum offload".
//!
//! # What QEMU cannot prove (model-only)
//!
//! QEMU's npcm-gmac ignores RIWT, PS/FES and DSL, does no frame filtering, has no caches,
//! resolves autonegotiation to 1000/full only through the 1000BASE-T registers, and never
//! raises TPS, UNF or FBI. Each of these is proven on the crate's model only
//! (`sim::Gmac3Model`, feature `sim`): RIWT and `rx_frames` (tests
//! `rx_coalescing_*`), speed/duplex from autonegotiation at 10/100/1000 (`autoneg_*`),
//! descriptor spacing with DSL for cache-line-sized descriptors (`dsl_*`), the frame filter
//! (`filter_*`), cache maintenance on a non-coherent arena (`cache_*`), and recovery
//! (`recover_*`). The model also reproduces QEMU's double write of a frame's last RX
//! descriptor (OWN clear without LS, then LS), which the driver waits out.
//!
//! # Cost per frame
//!
//! The instructions per frame of the TX and RX paths on QEMU's npcm750-evb, where they go,
//! and what the whole path around them costs, are in the crate's README ("Cost per frame");
//! `cargo xtask qemu npcm750-net` prints the bench lines they come from.
//!
//! # Modules
//!
//! One driver over two register maps: the common part, each version's map, then the rings
//! and the adapters.
//!
//! - [`common`]: the version-neutral vocabulary, as Linux's `common.h` has it: the
//!   [`Dwmac`] trait the rings and adapters drive, [`DmaEvents`], [`MacConfig`] and
//!   [`FrameFilter`], the DMA set-up ([`DescLayout`], [`DmaConfig`], [`DmaSetup`], [`Coe`]),
//!   the errors, the timeouts, the CSR clock codes, the clause 22 PHY registers
//!   ([`common::mii`]) and autonegotiation ([`common::phy`]).
//! - [`gmac3`]: GMAC 3.x: [`Gmac3`], [`Gmac3Mdio`], its register map ([`gmac3::regs`]), its
//!   normal and enhanced descriptor layouts and feature decode.
//! - [`qos`]: QoS 4.x/5.x: [`Qos`], [`QosMdio`], its register map ([`qos::regs`]), its
//!   descriptor layout and feature decode.
//! - [`probe()`](fn@probe): which of the two sits behind a register bus.
//! - [`ring`]: [`TxRing`], [`TxToken`], the cleanup timer ([`CleanupTimer`],
//!   [`QueueTimer`]), [`RxRing`], [`RxFrame`], and the coalescing rules
//!   ([`ring::coalesce`]), written once over [`Dwmac`].
//! - [`dma`]: regions and bus addresses, the cache hook, how a ring is carved
//!   ([`ring_bytes`]) and the barriers ([`dma::barrier`]).
//! - `smoltcp` (feature `smoltcp`): `smoltcp::phy::Device` over a ring pair.
//! - `embassy_net` (feature `embassy-net`): `embassy_net_driver::Driver`, woken from the DMA
//!   interrupt and the TX cleanup timer.
//! - `miim` (feature `miim`): `ieee802_3_miim` PHY drivers on any [`mdio_bus::Mdio`].
//! - `sim` (feature `sim`): the behavioural models of both MACs and their PHY, the DMA arena
//!   and its order log; `sim::seed` (with `unstable-baselines`, not public API): the TX-cleanup
//!   timer's settings and rigs.
//!
//! ## Features
//!
#![doc = document_features::document_features!()]
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod common;
pub mod dma;
pub mod gmac3;
pub mod net;
mod probe;
pub mod qos;
pub mod ring;
hwtimer_core::sim_module!();
#[cfg(feature = "embassy-net")]
pub use net::embassy_net;
#[cfg(feature = "miim")]
pub use net::miim;
#[cfg(feature = "smoltcp")]
pub use net::smoltcp;

/// The MDIO trait crate, re-exported so users of [`Gmac3Mdio`] need no extra dependency.
pub use mdio_bus;

pub use common::phy::{Advertise, Duplex, LinkState, Pause, Phy, PhyError, Speed};
pub use common::{
    ConfigError, DmaEvents, Dwmac, Error, FrameFilter, HwStats, MDIO_TIMEOUT_US, MacConfig,
    SWR_TIMEOUT_US, multicast_hash_bin,
};
pub use dma::WithSync;
pub use dma::barrier::DoorbellSync;
pub use dma::{
    CacheOps, Coe, Coherent, DescLayout, DmaAddr, DmaConfig, DmaMemory, DmaRegion, DmaSetup,
    IdentityMap, Offload, RxCoe, ring_bytes,
};
pub use gmac3::{Gmac3, Gmac3Mdio};
pub use probe::{Probed, probe};
pub use qos::{Qos, QosMdio};
pub use ring::coalesce::{CoalesceConfig, TimerAction, TimerStrategy, TxCoalesce, XmitPlan};
pub use ring::rx::{RxConfig, RxFrame, RxRing, RxStats};
pub use ring::tx::{CleanupTimer, NoTimer, QueueTimer, TxConfig, TxRing, TxStats, TxToken};

/// The README's examples, compiled (and run where they can) as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
