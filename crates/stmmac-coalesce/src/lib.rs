//! `no_std` driver for the **Synopsys DWMAC (stmmac)**, the GMAC 3.x ([`Dwmac`]) and the
//! 4.x/5.x QoS core ([`Dwmac4`], `docs/dwmac4.md`; [`probe`] tells them apart), with TX/RX
//! interrupt coalescing on [`hwtimer-core`](hwtimer_core)'s high-resolution timer queue: MAC
//! bring-up (PHY autonegotiation over MDIO, speed/duplex, address and frame filter), DMA
//! rings that are sound at the DMA boundary (barriers, cache hook, owned memory), zero-copy
//! RX and in-place TX, and behavioural models of both blocks for host tests. The rings and
//! the stack adapters drive either MAC through the sealed [`RingMac`] trait; the example
//! below is the 3.x one, and the 4.x bring-up is in [`mac4`]'s docs.
//!
//! # The contract
//!
//! - **IC every `tx_frames`** ([`coalesce::ic_decision`], Linux's rule); the **TX cleanup
//!   timer is armed once** per window ([`TimerStrategy::ArmOnce`]), not re-armed per
//!   packet, and is cancelled when a TI clean empties the ring; its period comes from the
//!   configuration alone. Linux's re-arm-every-packet is [`TimerStrategy::RearmEveryPacket`]
//!   for comparisons (seed 002: 679 vs 934 Mbit/s).
//! - **A queued frame is never an error**: [`TxToken::commit`] decides IC and the timer
//!   before the descriptor is handed over; when the timer cannot be armed, the frame gets IC.
//! - **RX coalescing** ([`CoalesceConfig`], with what 0 means): RIWT from `rx_usecs`, DIC
//!   on the descriptors per `rx_frames`.
//! - **Configuration is checked** as ethtool does, and against the ring lengths
//!   ([`CoalesceConfig::validate_tx`], [`CoalesceConfig::validate_rx`]); it can change at
//!   run time ([`TxRing::set_coalesce`], [`RxRing::set_coalesce`]).
//! - **DMA boundary**: rings own their memory ([`DmaRegion`]) and program their own base
//!   ([`TxRing::start`], [`RxRing::start`]); [`DmaAddr`] is an `unsafe trait`; descriptor
//!   fields, then [`barrier::dma_wmb`], then OWN, then [`barrier::wmb`], then the doorbell;
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
//! | link state | [`phy::Phy::poll`] over [`DwmacMdio`], [`Dwmac::set_link`], [`Dwmac::link`] |
//! | capabilities | MTU = [`RxRing::max_frame`] / [`TxRing::buf_size`] (frame bytes without FCS); no checksum offload |
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
//! use stmmac_coalesce::phy::{Advertise, Phy};
//! use stmmac_coalesce::sim::{eth_frame, AnPhy, DwmacModel, SimArena, SIM_CSR_HZ};
//! use stmmac_coalesce::{
//!     CoalesceConfig, Coherent, DmaConfig, Dwmac, FrameFilter, MacConfig, NoTimer, RxConfig,
//!     RxRing, TimerStrategy, TxConfig, TxRing,
//! };
//!
//! let clock = SimClock::new();
//! let counter = SimCounter::new(&clock, 32, 25_000_000);
//! let arena = SimArena::new(0x1000_0000, 256 * 1024);
//! let bus = SimBus::new(&clock, DwmacModel::new(arena.clone(), AnPhy::gigabit(), SIM_CSR_HZ));
//! let mac = Dwmac::new(bus.clone());
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
//!   [`line`](CacheOps::line)), [`Dwmac::set_ring_bases`], [`Dwmac::bus`], and a descriptor
//!   layout for a core without HW_FEATURE ([`DmaConfig::resolve_assuming_layout`],
//!   [`Dwmac::configure_dma_assuming_layout`]).
//! - **checked**: [`DmaSetup`] is built only by [`DmaConfig::resolve`] and checked again
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
//! *Bad input*). docs/dwmac.md#dma-boundary has the reasoning, including why there is no
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
//! # fn f<B: hwtimer_core::RegisterBus<Word = u32>>(mac: &stmmac_coalesce::Dwmac<B>) {
//! mac.set_ring_bases(0x1000, 0x2000); // raw descriptor bases
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f<B: hwtimer_core::RegisterBus<Word = u32>>(mac: &stmmac_coalesce::Dwmac<B>) {
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
//! HW_FEATURE bits 16–18 give the engines ([`Coe`], [`Dwmac::coe`], [`DmaSetup::coe`]; `None`
//! without HW_FEATURE). Both rings leave them off by default; a firmware turns them on per ring
//! with [`TxRing::set_checksum_offload`] (CIC = 3 on every frame) and
//! [`RxRing::set_checksum_offload`] (GMAC_CONTROL.IPC at the next start, read back) and an
//! [`Offload`] choice: `IfDetected` follows HW_FEATURE, `Assume` is for cores without it. While
//! RX checking is on, frames the core reports with a bad IPv4 header or TCP/UDP/ICMP checksum
//! are dropped and counted ([`RxStats::ip_checksum_errors`],
//! [`RxStats::payload_checksum_errors`]). The smoltcp and embassy-net adapters tell their
//! stacks exactly what the rings enabled (ICMP is always computed by the stack on TX: QEMU's
//! model does not insert it). Runt, oversized and errored frames are dropped and counted, each
//! cause in its own counter ([`RxStats`]). Details: `docs/dwmac.md`, "Checksum offload".
//!
//! # What QEMU cannot prove (model-only)
//!
//! QEMU's npcm-gmac ignores RIWT, PS/FES and DSL, does no frame filtering, has no caches,
//! resolves autonegotiation to 1000/full only through the 1000BASE-T registers, and never
//! raises TPS, UNF or FBI. Each of these is proven on the crate's model only
//! (`sim::DwmacModel`, feature `sim`): RIWT and `rx_frames` (tests
//! `rx_coalescing_*`), speed/duplex from autonegotiation at 10/100/1000 (`autoneg_*`),
//! descriptor spacing with DSL for cache-line-sized descriptors (`dsl_*`), the frame filter
//! (`filter_*`), cache maintenance on a non-coherent arena (`cache_*`), and recovery
//! (`recover_*`). The model also reproduces QEMU's double write of a frame's last RX
//! descriptor (OWN clear without LS, then LS), which the driver waits out.
//!
//! # Cost per frame
//!
//! Cortex-A9 instructions (PMU event 0x08) per frame in the driver's paths, from the
//! `npcm750-net` firmware's armed-once TCP stream (smoltcp on this crate, QEMU npcm750-evb,
//! `tx-frames 25`, `tx-usecs 1000`, at most 2 frames in flight): the bench lines
//! `stmmac-coalesce/qemu_tx_insns_per_frame` and `qemu_rx_insns_per_frame`, printed by
//! `cargo xtask qemu npcm750-net`. The repository README's performance table quotes them,
//! and `cargo xtask figures` checks that quote against the last bench run, so the figures
//! are stated there only.
//!
//! TX is `Device::transmit` (reserve) plus `TxToken::commit`; RX is `RxRing::receive`, the
//! lend (or copy) and the refill when the frame is dropped. Interrupts (QEMU raises TI and
//! RI inside the doorbell write; their entry and exit included) and the probe's own
//! readings are left out, and so is the reservation of a received frame's reply descriptor
//! (counted on the RX side of the whole path, below). Where they go, per frame, from a QEMU exec trace of the same run (`-d
//! exec,in_asm -dfilter` over the driver and what it calls; it accounts for 85–100 % of the
//! PMU figure). The trace was taken when TX cost 346 and RX 277 per frame, so its shares
//! are approximate now (the TX submit has since lost about 16 more per frame, below):
//!
//! | TX | insns |
//! |---|---|
//! | smoltcp adapter and `TxRing::reserve` (link, free descriptor) | ~60 |
//! | IC rule (`ic_decision` without a division), `on_xmit`, the timer decision from the ring's own `armed` record (no timer query per frame) | ~15 |
//! | descriptor words 1–3, `dma_wmb`, OWN, `wmb`, doorbell (its `Mmio` window check: 4), statistics | ~95 |
//! | **starting the cleanup timer**, 0.5 times per frame here (below) | ~119 |
//!
//! | RX | insns |
//! |---|---|
//! | `receive`: descriptor scan (OWN, FS/LS, `dma_rmb`), frame checks, statistics | ~130 |
//! | ring index: one compare per step, no division | 0 |
//! | lending the frame (`as_slice`, the adapter's counters) | ~45 |
//! | refill on drop (words 1–3, `dma_wmb`, OWN; DIC rule), one step per descriptor | ~100 |
//!
//! **The cleanup timer's start** is the ArmOnce contract itself: a frame without IC while
//! the timer is idle must arm it before its descriptor is handed over. In this stream TSQ
//! lets only two frames be in flight, so every second frame opens a new window
//! (`qemu_stream_timer_programs_per_frame_arm_once = 0.500`). Under load a frame pays for
//! a start only when it opens a window, and how often that is depends on the DMA: on the
//! model's line-rate stream, with a DMA that completes each frame inside its doorbell write
//! (QEMU's and the model's default), every TI clean empties the ring and cancels the timer,
//! so the next frame starts it again, once per IC window; with a DMA that lags the CPU as
//! silicon does, the next frame is still in flight at each TI, the timer stays queued and
//! is re-armed only at its own expiries, one per `tx_usecs`
//! (`stream_clockevent_programs_per_packet_arm_once` and `..._arm_once_lagging` in the
//! repository README's seed-002 row). Without the starts, TX is ~175 per frame (the
//! figure less half of the start's 238 below). The
//! barriers (`dmb oshst` + `dsb st` per frame sent, `dmb oshst` + `dmb osh` per frame
//! received) are one instruction each and what the DMA ordering needs ([`barrier`]); the
//! doorbell's `Mmio` window check is 4 instructions per frame sent and none per frame
//! received (the RX poll demand is issued once per batch).
//!
//! One start (`QueueTimer::start_after` -> hwtimer-core `HrTimers::start_after` -> the
//! queue's reprogramming -> `Alarm` -> the Cortex-A9 global timer's `set_compare`, from
//! the `a9-global-timer` crate), traced one instruction per TB (`-accel
//! tcg,one-insn-per-tb=on -d exec,nochain -dfilter` over those functions, each call from
//! entry to return, 175 starts in the run):
//!
//! | timer start | insns |
//! |---|---|
//! | `HrTimers::start_after`: critical section, reading the time (hi-lo-hi), the `Result` | 78 |
//! | heap push (`TimerQueue::push`) | 45 |
//! | reprogramming: next deadline, `armed_for`, the alarm's arm | 54 |
//! | `Alarm`: an absolute alarm on a 64-bit time base writes the deadline as the compare value (`Alarm::arm_at`), no second time read | 0 |
//! | comparator: `set_compare`, `program`, the count (enabled is the comparator's own mode) | 35 |
//! | critical sections (acquire + release) | 2 × 13 |
//! | **total** | **238** |
//!
//! The 300-instruction TX target is met, with little room: the last step (308 to 292 per
//! frame, the same at `-icount shift=4`) took out of the submit what the contracts do not
//! need. A frame that opens no window (`TimerAction::Keep`) no longer calls the ring's
//! out-of-line `arm` (about 12 instructions of call, prologue and match, on half the
//! frames here); the ring keeps the control bits every frame carries (FS | LS, OWN in the
//! enhanced word 0, CIC) as one word, set at construction and refreshed when the checksum
//! offload changes, so a frame ORs in only TER, IC and its length; "ArmOnce with a period" is
//! one flag kept with the configuration; TER comes from the same compare that steps
//! `cur`; and `pending` counts up without saturating (it is below the ring length at
//! every commit). What remains is needed: the length check (a typed error), the IC rule
//! and its counters, words 1–3, `dma_wmb`, the owner word, `wmb` and the doorbell with
//! its window check, the statistics the ring reports, and the half start, which is the
//! queue's own generic work (the critical section and its re-entry check, the
//! `Result<(), QueueError>` returned through memory, the push, the reprogramming
//! decision, the time read for the relative deadline). Streams where a window holds more
//! than two frames pay less of the start per frame. The second descriptor layout (issue
//! 20, DWMAC 4.x) costs 3.x about 6 TX instructions per frame (298): the check that the
//! ring's layout is the MAC type's, after which the compiler drops the QoS branches
//! ([`RingMac`]'s layout is a constant of the MAC type). How these figures came down is in
//! the CHANGELOG.
//!
//! ## The whole path
//!
//! The figures above are the submit and the receive alone. The same run also counts
//! everything the driver executes for the stream, divided by its frames: the bench lines
//! `qemu_path_insns_per_frame_{tx,rx}_driver` for the driver alone and
//! `qemu_path_insns_per_frame_{tx,rx}_smoltcp` with smoltcp's ingress (RX) or egress (TX)
//! loop and half the rest of the main loop's round; the `npcm750-net` firmware's module
//! docs say exactly what each covers, and its `path arm_once:` lines print the parts:
//!
//! | per frame | TX | RX |
//! |---|---|---|
//! | submit (reserve + commit) / receive, lend or copy, give back | as above | as above |
//! | reply descriptor reserved by `receive()` | – | ~32 |
//! | empty `transmit()` / `receive()` calls (the RX poll demand is issued in the latter) | ~6 700 | ~17 700 |
//! | TI clean (`TxRing::service`) / `RxRing::service` | ~8 | ~28 |
//! | cleanup timer: its poll on every round, `on_timer` when it fires | ~14 100 | – |
//! | GMAC interrupts, entry and exit included (the firmware's `irq entry:` line, ~41 around the handler) | ~45 | ~47 |
//!
//! The empty polls and the timer's poll dominate because the firmware's main loop spins:
//! with two frames in flight the stream waits for the cleanup timer (`tx-usecs 1000`), and
//! every round of the wait (about 190 per frame at `-icount shift=0`) asks for a frame and
//! a descriptor and polls the comparator. An empty `receive()` costs ~99 instructions
//! (95 before the QoS layout; the layout check is the difference)
//! (`qemu_path_insns_per_empty_rx_poll`), an empty `transmit()` ~37
//! (`qemu_path_insns_per_empty_tx_poll`), the comparator's poll ~76 per round. These parts
//! grow with the rounds per frame, so the whole-path figures measure this loop's wait as
//! much as the driver; a loop that sleeps until the GMAC or timer interrupt would pay the
//! per-frame parts and one poll per wake. With smoltcp, TX
//! carries smoltcp's egress on every round of the wait as well. At `-icount shift=4` (16 ns
//! per instruction) the same wait holds about 6 rounds per frame, and the driver's whole
//! path is ~1 250 instructions per frame sent and ~990 per frame received (no `bench:`
//! line: `cargo xtask bench` runs at shift 0). The exact values of a run are its `bench:`
//! lines; the README's performance table quotes them.
//!
//! # Modules
//!
//! - [`regs`]: every MAC/DMA register, descriptor field and MII register, once.
//! - [`coalesce`]: the configuration, Linux's IC rule, the timer decisions (pure).
//! - [`dma`]: regions, bus addresses, the cache hook, descriptor geometry.
//! - [`barrier`]: `dma_wmb` / `wmb` / `dma_rmb` per architecture.
//! - `desc` (private): the descriptor layouts (normal, enhanced).
//! - [`mac`]: [`Dwmac`] (MAC/DMA control, events, filter, link) and [`DwmacMdio`].
//! - [`phy`]: Clause 22 autonegotiation and link polling.
//! - [`tx`]: [`TxRing`], [`TxToken`], the cleanup timer ([`CleanupTimer`], [`QueueTimer`]).
//! - [`rx`]: [`RxRing`], [`RxFrame`].
//! - `sim` (feature `sim`): the behavioural DWMAC and PHY, the DMA arena and its order log;
//!   `sim::seed` (feature `unstable-baselines`, not public API): seed 002's rigs.
//! - `smoltcp` (feature `smoltcp`): `smoltcp::phy::Device` over a ring pair.
//! - `embassy_net` (feature `embassy-net`): `embassy_net_driver::Driver`, woken from the DMA
//!   interrupt and the TX cleanup timer.
//! - `miim` (feature `miim`): `ieee802_3_miim` PHY drivers on [`DwmacMdio`] or any
//!   [`mdio_bus::Mdio`].
#![cfg_attr(not(any(test, feature = "sim")), no_std)]
// docs.rs (`[package.metadata.docs.rs]` in Cargo.toml) marks feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod barrier;
pub mod coalesce;
mod desc;
pub mod dma;
mod error;
pub mod mac;
pub mod mac4;
pub mod net;
pub mod phy;
pub mod regs;
pub mod regs4;
pub mod ring_mac;
pub mod rx;
// Host-only test infrastructure (feature `sim`, pulls in `std`): the DWMAC model counts and
// indexes with plain arithmetic and may panic on a broken test set-up.
#[cfg(feature = "sim")]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
pub mod sim;
pub mod tx;

#[cfg(feature = "embassy-net")]
pub use net::embassy_net;
#[cfg(feature = "miim")]
pub use net::miim;
#[cfg(feature = "smoltcp")]
pub use net::smoltcp;

/// The MDIO trait crate, re-exported so users of [`DwmacMdio`] need no extra dependency.
pub use mdio_bus;

pub use coalesce::{CoalesceConfig, TimerAction, TimerStrategy, TxCoalesce, XmitPlan};
pub use dma::{
    CacheOps, Coe, Coherent, DescLayout, DmaAddr, DmaConfig, DmaMemory, DmaRegion, DmaSetup,
    IdentityMap, Offload, RxCoe, ring_bytes,
};
pub use error::{ConfigError, Error};
pub use mac::{DmaEvents, Dwmac, DwmacMdio, FrameFilter, MacConfig, multicast_hash_bin};
pub use mac4::{Dwmac4, Dwmac4Mdio, Probed, probe};
pub use phy::{Duplex, LinkState, Pause, Speed};
pub use ring_mac::RingMac;
pub use rx::{RxConfig, RxFrame, RxRing, RxStats};
pub use tx::{CleanupTimer, NoTimer, QueueTimer, TxConfig, TxRing, TxStats, TxToken};
