//! TCP/IP over `stmmac-coalesce` on QEMU's `npcm750-evb`, against QEMU's user-mode network.
//!
//! The same board as `npcm750` (GMAC0 at 0xf080_2000, the Cortex-A9 global timer through the
//! `a9-global-timer` crate, the MPCore GIC), with smoltcp on top of the driver's `smoltcp::phy::Device`. Bring-up: DMA
//! soft reset, PHY autonegotiation over the driver's MDIO (QEMU resolves 1000/full), rings
//! over `DmaMemory` statics (TX: 32 descriptors of 1536 bytes, filled in place by smoltcp;
//! RX: 48 descriptors of 512 bytes, so full-size segments span three descriptors and are
//! copied once), GMAC0's interrupt (GIC ID 46) counting TI/RI and handing the events to the
//! main loop, which services TX on TI only (stmmac's separate TX NAPI) and runs the cleanup
//! timer by polling the global-timer comparator through `HrTimers::on_interrupt`.
//!
//! 1. **DHCPv4** from slirp's server: the lease is 10.0.2.15, the router 10.0.2.2. The DNS
//!    servers slirp offers are ignored: this firmware addresses nothing but 10.0.2.2 and the
//!    DHCP server (10.0.2.3 would forward to the host's resolver).
//! 2. **ICMP echo** with the gateway 10.0.2.2 (answered inside QEMU).
//! 3. **TCP echo on port 7**, reached from the host through `hostfwd=tcp:127.0.0.1:P-:7`,
//!    for as many connections as come (four listening sockets, so a client may open the
//!    next one while the last closes), until a connection to **port 9** or an idle timeout
//!    of [`IDLE_TIMEOUT_S`] seconds of guest time. It prints
//!    `tcp-echo: bytes=<n> connections=<c>`; `cargo xtask qemu` checks both against what its
//!    client sent.
//! 4. If the port-9 connection carries `sink <port> <bytes>`, **the TX-cleanup TCP stream**: the
//!    firmware sends `<bytes>` to 10.0.2.2:`<port>` (the host's 127.0.0.1, where xtask
//!    listens) three times, with a 32-descriptor TX ring, `tx-frames 25`, `tx-usecs 1000`,
//!    and TX cleanup on (a) a 10 ms tick, (b) the hrtimer re-armed on every packet, (c) the
//!    hrtimer armed once; then once more with per-frame TX interrupts (`tx-frames 1`) for
//!    the interrupt count, switching TX checksum offload off halfway (see "Checksum
//!    offload" below). Each stream runs on rings of its own after a DMA soft reset.
//!
//! Every ring runs with TX checksum insertion on and RX checksum checking off (see
//! "Checksum offload").
//!
//! # Measurements (`bench:` lines)
//!
//! Guest time is the global timer (100 MHz under QEMU); under `-icount shift=0` one
//! instruction is one nanosecond, so guest time is CPU work plus the time the CPU spins
//! waiting. QEMU transmits synchronously and has no line rate: the ratios between the
//! strategies are the result.
//!
//! - `qemu_tcp_stream_{jiffies,rearm,arm_once}`: bytes per second of guest time, from the
//!   connection established to the last byte acknowledged, and their ratios.
//! - The stream runs with the device's in-flight limit at [`TSQ_FRAMES`] frames (Linux's TCP
//!   small queues let a socket have two packets below TCP at low rates; smoltcp has no such
//!   limit, so the device applies it): the frames the driver has not reclaimed gate the
//!   stream, as in the seed.
//! - `qemu_tx_insns_per_frame` / `qemu_rx_insns_per_frame`: PMU instructions (event 0x08)
//!   in the driver's TX path (queueing a filled frame, the cleanup-timer decision included)
//!   and RX path (taking a frame and handing its descriptor back), per frame, over the
//!   armed-once stream; `*_smoltcp`: the whole token (smoltcp building or parsing the frame
//!   in the DMA buffer, plus the driver). Interrupts are left out, entry and exit included
//!   (QEMU raises TI / RI inside the poll-demand write, so an interrupt runs in the middle
//!   of the TX path; the whole-path figures below count them), and so are the probe's own
//!   readings (calibrated back to back by `Measured::new`, the cost probe wrapped around the
//!   device). The wrapper times whole calls into the device: `receive()` and
//!   `transmit()` with their token hand-over, and each token's `consume` with smoltcp's
//!   closure taken out, so the reply token's reservation in `receive()` is in the RX
//!   figure. Where the rest goes:
//!   the "Cost per frame" section of the `stmmac-coalesce` crate docs.
//! - `qemu_irqs_per_frame_{coalesced,per_frame}`: GMAC interrupts (TI and RI, taken through
//!   the GIC) per frame sent or received, `tx-frames 25` against `tx-frames 1`.
//!
//! ## The whole path per frame
//!
//! `qemu_path_insns_per_frame_{tx,rx}_{driver,smoltcp}`: PMU instructions over the whole
//! armed-once stream (from `connect` to the socket closed, every main-loop round of it),
//! divided by the frames sent (`tx`) or received (`rx`) in it, printed in thousands
//! (`kinsns`, three decimals: the number of rounds moves by a few per mille from run to
//! run with slirp's timing, the parts per frame do not). Every part is counted where
//! it runs, with the probe [`insns`] (interrupts taken out) or in [`on_irq`]:
//!
//! - **`tx_driver`**: the submit (`transmit()`'s reservation and `TxToken::commit`, as
//!   `qemu_tx_insns_per_frame`), the empty `transmit()` calls (no descriptor, the link
//!   down, or the in-flight limit: [`TSQ_FRAMES`] holds the stream until the cleanup timer
//!   reclaims, so smoltcp's egress asks on every round), the TI clean (`TxRing::service`),
//!   the cleanup timer (the comparator's poll through `HrTimers::on_interrupt` on every
//!   round, and `on_timer`'s reclaim when it fires), and the TX share of the GMAC
//!   interrupts.
//! - **`rx_driver`**: taking, lending (or copying) and giving back each frame (as
//!   `qemu_rx_insns_per_frame`), reserving its reply descriptor, the empty `receive()`
//!   calls (one per round at least: the ring's scan, and the RX poll demand for the
//!   descriptors given back since the last one, which `RxRing::receive` issues there),
//!   `RxRing::service` after an interrupt, and the RX share of the GMAC interrupts.
//! - **`tx_smoltcp`**: smoltcp's egress loop (`Interface::poll_egress` until it sends
//!   nothing: socket dispatch, the frames built in the DMA buffers, every `transmit()`
//!   inside), the TI clean, the cleanup timer, the TX interrupts, and half the rest of the
//!   round (reading the time, the events swap, the probe's readings).
//! - **`rx_smoltcp`**: smoltcp's ingress loop (`Interface::poll_ingress_single` until no
//!   frame is left: every `receive()`, the frames parsed and delivered to the sockets, and
//!   any reply sent from a received frame's own token: ARP and ICMP replies, and TCP's
//!   replies to out-of-order, unacceptable or reset-worthy segments; in-order segments are
//!   acknowledged from egress), the RX service, the RX interrupts, and the other half of
//!   the rest.
//!
//! [`Phase::poll`] calls smoltcp's ingress and egress loops itself, which is what
//! `Interface::poll` does for this feature set (smoltcp 0.14 without fragmentation, SLAAC
//! or multicast), to count them apart. The application's own work between rounds (the
//! stream's pattern bytes, `send_slice`) is not part of the path.
//!
//! An interrupt is its handler's span plus the entry and exit around it: the vector,
//! aarch32-rt's IRQ entry and `rfefd` return, fw-common's `_irq_handler` with its `clrex`,
//! and `on_irq`'s own prologue and epilogue. That entry/exit is measured at start
//! ([`irq_entry_cost`]: a GICD_SGIR write that sends an SGI to this core, against the
//! same write addressed to no CPU) and printed as `irq entry: <n> insns`. An interrupt
//! carrying only TX events counts for TX, only RX events for RX, both for half each.
//!
//! The loop polls (there is no idle wait), so the empty polls are most of the path: the
//! stream waits for the cleanup timer ([`TX_USECS`]) with two frames in flight, and every
//! round meanwhile asks the device for a frame and a descriptor and polls the timer. Those
//! parts scale with the rounds per frame, i.e. with how many instructions fit in the
//! guest time the stream waits, so they differ between `-icount` shifts; their cost per
//! call does not: `qemu_path_insns_per_empty_{rx,tx}_poll`. The `path <phase>:` lines
//! print the parts per frame, for the stream and for the echo phase (ring set 0: DHCP,
//! ICMP and the echo, as far as the device saw them).
//!
//! # Checksum offload
//!
//! QEMU 10's npcm-gmac (hw/net/npcm_gmac.c, read for facts only) resets DMA_HW_FEATURE to
//! `0x100D_4F37`: TXCOESEL (bit 16) and RXTYP2COE (bit 18) set. The firmware prints what
//! `Gmac3::coe` makes of it (`GMAC0 HW_FEATURE = ...: checksum offload TX insertion yes, RX
//! checking type 2`, asserted in `expected.txt`).
//!
//! - **TX: on** ([`TX_OFFLOAD`] = `Offload::IfDetected`, which HW_FEATURE satisfies: no
//!   `Assume` needed). The model honours CIC from the first descriptor of a frame: 1 fills
//!   in the IPv4 header checksum, 2 and 3 also TCP and UDP (with the pseudo-header); it
//!   computes no ICMP checksum. The rings set CIC 3 on every frame and the device tells
//!   smoltcp (`capabilities()`, read once by `Interface::new`) to leave the IPv4, TCP and
//!   UDP checksums to the MAC; ICMP's stays with smoltcp. A missing or wrong insertion
//!   fails the run: slirp drops TCP segments with a bad checksum, so the echo and the
//!   streams stall (checked once: with the ring's CIC switched off halfway and smoltcp
//!   still told the MAC inserts, the `per_frame` stream never completed), and the host
//!   client and the sink check every byte.
//! - **RX: off** ([`RX_OFFLOAD`] = `Offload::Off`). The model announces a type-2 engine and
//!   keeps GMAC_CONTROL.IPC as written, so the ring's read-back would report RX checking on,
//!   but it checks nothing: RDES0 gets first/last descriptor, frame type and length, never
//!   a checksum error bit. Turning it on would make smoltcp trust frames nobody verified;
//!   smoltcp verifies every RX checksum itself.
//!
//! The line `checksum offload: TX on (IfDetected), RX off (...)` says what the echo phase's
//! rings enabled and what smoltcp was told. All the per-frame figures above are measured
//! with TX offload on. The per-frame TX cost with and without it comes from the last stream
//! (`per_frame`, tx-frames 1), split in two: offload on until half the bytes are queued,
//! then, on the same rings, `TxRing::set_checksum_offload(Offload::Off)` and a second
//! `Interface` built on the device (so smoltcp reads the capabilities again: it computes
//! the checksums from then on), with the first interface's address and default route.
//!
//! - `qemu_tx_insns_per_frame_smoltcp_offload_{on,off}`: PMU instructions per frame sent in
//!   each half in the TX token (smoltcp building the frame in the DMA buffer, the
//!   checksums included when offload is off, plus the driver's submit), as
//!   `qemu_tx_insns_per_frame_smoltcp` counts them. The `offload:` line also gives the
//!   driver's share of each half (CIC costs the driver nothing), the frames and the main-loop
//!   rounds.
//! - There is no whole-path on/off pair: the second half begins with one ARP exchange (the
//!   new interface's neighbour cache is empty) and ends with the close, so its empty polls
//!   are not comparable to the first half's. The armed-once stream's whole path with
//!   smoltcp (`qemu_path_insns_per_frame_tx_smoltcp`) carries the saving instead, against
//!   the figure measured before offload was on.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};

use a9_global_timer::{GlobalTimer, GtComparator, GtCounter, regs as gt_regs};
use core::cell::Cell;
use fw_common::arm::gic::{self, Gic};
use fw_common::arm::mmu::{self, FlatMap, SECTION_SIZE};
use fw_common::arm::npcm7xx::Uart0;
use fw_common::arm::npcm7xx::{DRAM_BASE, DRAM_LEN};
use fw_common::arm::pmu;
use fw_common::arm::smp;
use fw_common::arm::{self};
use fw_common::counted::Counted;
use fw_common::{StaticCell, mmio, println, verdict};
use hwtimer_core::cpu::{CpuBound, NativeCpu};
use hwtimer_core::{HrTimers, Mmio, Monotonic, QueueError, Restart};
use smoltcp::iface::{
    Config, Interface, PollIngressSingleResult, PollResult, SocketHandle, SocketSet, SocketStorage,
};
use smoltcp::phy::{ChecksumCapabilities, Device as _};
use smoltcp::socket::{dhcpv4, icmp, tcp};
use smoltcp::time::Instant;
use smoltcp::wire::{
    EthernetAddress, HardwareAddress, Icmpv4Packet, Icmpv4Repr, IpAddress, IpCidr, Ipv4Address,
};

use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::mdio_bus::PhyAddr;
use stmmac_coalesce::net::{CostProbe, Measured, MeasuredStats};
use stmmac_coalesce::smoltcp::Device;
use stmmac_coalesce::{
    CleanupTimer, CoalesceConfig, Coe, Coherent, DmaConfig, DmaMemory, DmaRegion, Dwmac, Error,
    FrameFilter, Gmac3, IdentityMap, LinkState, MacConfig, Offload, QueueTimer, RxCoe, RxConfig,
    RxRing, TimerStrategy, TxConfig, TxRing,
    gmac3::{self, regs},
    ring_bytes,
};

/// GMAC0 and its register window; GIC ID 46 (SPI 14) (docs/qemu.md).
const GMAC0_BASE: usize = 0xf080_2000;
const GMAC_LEN: usize = 0x1060;
const IRQ_GMAC0: u32 = 46;
/// DMA_STATUS of GMAC0, for the interrupt handler.
const GMAC0_DMA_STATUS: usize = GMAC0_BASE + 0x1014;

/// QEMU's default MAC for the first NIC, and slirp's gateway.
const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
const GATEWAY: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);

/// MPCore private region: GIC CPU interface +0x100, global timer +0x200, distributor +0x1000.
const MPCORE_BASE: usize = gt_regs::NPCM750_MPCORE_BASE;
const GIC_CPU: usize = MPCORE_BASE + 0x100;
const GIC_DIST: usize = MPCORE_BASE + 0x1000;
/// Global-timer rate under QEMU at prescaler 0.
const GT_HZ: u32 = gt_regs::QEMU_INPUT_HZ;
const TICKS_PER_MS: u64 = GT_HZ as u64 / 1000;

/// Ring sizes: the seed's 32-descriptor TX ring of full-frame buffers; 48 RX descriptors of
/// 512 bytes, so that every full-size TCP segment spans three descriptors.
const TX_N: usize = 32;
const TX_BUF: usize = 1536;
const RX_N: usize = 48;
const RX_BUF: usize = 512;
/// Cache line for the ring layout: 16 (QEMU has no caches; descriptors unpadded).
const LINE: usize = 16;
const TX_BYTES: usize = ring_bytes(TX_N, TX_BUF, LINE);
const RX_BYTES: usize = ring_bytes(RX_N, RX_BUF, LINE);
/// CSR clock assumed for MII_ADDR.CR and RIWT (QEMU ignores both).
const CSR_HZ: u32 = 125_000_000;
/// Ring sets: the echo phase, then the streams (jiffies, re-arm, arm once, per-frame IC).
const SETS: usize = 5;
/// The seed's settings.
const TX_FRAMES: u32 = 25;
const TX_USECS: u32 = 1_000;
/// The pre-seed jiffies tick: HZ = 100.
const JIFFY_TICKS: u64 = 10 * TICKS_PER_MS;
/// Frames a stream may have below TCP, unreclaimed (Linux's TSQ floor of two packets).
const TSQ_FRAMES: usize = 2;

/// TX checksum insertion on every ring: HW_FEATURE's TXCOESEL decides, and QEMU's
/// npcm-gmac sets it and inserts the IPv4, TCP and UDP checksums for CIC 3.
const TX_OFFLOAD: Offload = Offload::IfDetected;
/// RX checksum checking off: QEMU's npcm-gmac announces a type-2 engine and keeps
/// GMAC_CONTROL.IPC as written, but checks nothing (RDES0's checksum bits stay 0), so
/// turning it on would make smoltcp trust frames nobody verified.
const RX_OFFLOAD: Offload = Offload::Off;

/// Guest seconds without echo traffic after which the echo phase ends by itself.
const IDLE_TIMEOUT_S: u64 = 20;
/// Guest seconds the DHCP, ICMP and stream steps may take each.
const STEP_TIMEOUT_S: u64 = 10;
/// Bytes the stream sends at most (the host asks for its size).
const MAX_STREAM: u32 = 16 << 20;

// DMA memory, one TX and one RX region per ring set, in the `.dma` megabyte at DMA_BASE
// (memory.x), zeroed by `run` before use and mapped Normal non-cacheable: the map is flat, so
// CPU addresses are bus addresses (`IdentityMap`), and uncached: `Coherent` (QEMU models no
// L2C-310; on silicon the rings need `WithSync` with a `Pl310Sync`, see stmmac-coalesce's
// `dma` docs).
#[unsafe(link_section = ".dma")]
static TX_MEM: [DmaMemory<TX_BYTES>; SETS] = [const { DmaMemory::new() }; SETS];
#[unsafe(link_section = ".dma")]
static RX_MEM: [DmaMemory<RX_BYTES>; SETS] = [const { DmaMemory::new() }; SETS];

/// The DMA megabyte (memory.x `.dma`, checked there), mapped Normal non-cacheable.
const DMA_BASE: u32 = 0x0120_0000;
/// The translation table: DRAM Normal write-back shareable (`DmaMemory::take`'s and
/// `set_link`'s exclusives need Normal memory; with the MMU off every access is
/// strongly ordered, where LDREX/STREX are unpredictable), the DMA megabyte Normal
/// non-cacheable, the rest Device.
static MAP: FlatMap = FlatMap::new(DRAM_BASE, DRAM_LEN).with_uncached(DMA_BASE, SECTION_SIZE);
/// Scratch for RX frames that span descriptors (the largest frame).
static SCRATCH: StaticCell<[[u8; 1518]; SETS]> = StaticCell::new();

/// smoltcp memory.
const ECHO_SOCKETS: usize = 4;
const ECHO_BUF: usize = 8192;
const STREAM_BUF: usize = 16384;
static SOCKETS: StaticCell<[SocketStorage<'static>; 8]> = StaticCell::new();
static ECHO_MEM: StaticCell<[[u8; ECHO_BUF]; 2 * ECHO_SOCKETS]> = StaticCell::new();
static CTRL_MEM: StaticCell<[[u8; 256]; 2]> = StaticCell::new();
static STREAM_MEM: StaticCell<[u8; STREAM_BUF]> = StaticCell::new();
static STREAM_RX: StaticCell<[u8; 256]> = StaticCell::new();
static ICMP_META: StaticCell<[[icmp::PacketMetadata; 2]; 2]> = StaticCell::new();
static ICMP_MEM: StaticCell<[[u8; 256]; 2]> = StaticCell::new();

/// GMAC interrupts seen by [`on_irq`]: TI and RI events, and whether a TI waits for the
/// main loop's cleanup.
static IRQ_TI: AtomicU32 = AtomicU32::new(0);
static IRQ_RI: AtomicU32 = AtomicU32::new(0);
/// DMA_STATUS bits the handler acknowledged and the main loop has not serviced yet.
static EVENTS: AtomicU32 = AtomicU32::new(0);
static IRQ_OTHER: AtomicU32 = AtomicU32::new(0);

// SAFETY: the distributor and CPU interface of the NPCM7xx MPCore region; only CPU0 runs.
static GIC: Gic = unsafe { Gic::new(GIC_DIST, GIC_CPU) };

fw_common::arm_board! {
    name: "npcm750-net",
    console: Uart0,
    main: run,
    irq: on_irq,
}

fw_common::critical_section_impl!();

/// The global timer's register window, as the driver sees it.
type Bus = Mmio<u32>;
/// The global timer's 64-bit counter: the time base of the queue, smoltcp and the streams.
type Time = GtCounter<'static, Bus>;
/// This core's global-timer comparator as a oneshot clockevent on the same counter,
/// counting its programmings in [`GT_PROGRAMS`]. Its interrupt (GIC ID 27) is left disabled
/// in the GIC: the main loop polls the event flag through `HrTimers::on_interrupt` (a poll
/// on an idle comparator is a spurious call, one MMIO read).
/// CPU0's banked comparator, bound to CPU0 (`GtComparator` is per-CPU, so a `static` holds it
/// through `CpuBound`, which refuses every other CPU).
type GtEvent = Counted<CpuBound<GtComparator<'static, Bus>, NativeCpu>>;

/// Global-timer comparator programmings so far.
static GT_PROGRAMS: AtomicU32 = AtomicU32::new(0);
/// The global-timer driver, `'static` so its parts can live in the timer queue.
static GT: StaticCell<GlobalTimer<Bus>> = StaticCell::new();

type Timers = HrTimers<GtEvent, Time, 8>;
type Mac = Gmac3<Mmio<u32>>;
static TIMERS: StaticCell<Timers> = StaticCell::new();

/// PMU instructions spent in interrupts, which [`insns`] leaves out: QEMU raises TI / RI
/// during the poll-demand write, so an interrupt would otherwise land inside the driver's
/// measured TX path. Each interrupt adds [`on_irq`]'s own span plus [`IRQ_ENTRY`], the
/// entry and exit around it.
static IRQ_INSNS: AtomicU32 = AtomicU32::new(0);
/// PMU instructions of one interrupt outside [`on_irq`]'s own span: the vector, aarch32-rt's
/// IRQ entry and return, fw-common's `_irq_handler` (the `clrex`) and `on_irq`'s prologue
/// and epilogue. Measured once at start by [`irq_entry_cost`]; 0 until then.
static IRQ_ENTRY: AtomicU32 = AtomicU32::new(0);
/// The GMAC interrupts' instructions (handler span plus [`IRQ_ENTRY`]) by the events they
/// carried: TX events only (TI, TPS, TU, TJT, UNF) go to `IRQ_TX_INSNS`, RX events only (RI,
/// RU, RPS, RWT, OVF) to `IRQ_RX_INSNS`, both or neither half to each.
static IRQ_TX_INSNS: AtomicU32 = AtomicU32::new(0);
static IRQ_RX_INSNS: AtomicU32 = AtomicU32::new(0);
/// The calibration SGI's deliveries (see [`irq_entry_cost`]).
static IRQ_CAL: AtomicU32 = AtomicU32::new(0);

/// The SGI [`irq_entry_cost`] sends this core.
const SGI_CAL: u32 = 7;
/// DMA_STATUS events of the TX and of the RX process.
const DMA_TX_EVENTS: u32 = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 5);
const DMA_RX_EVENTS: u32 = (1 << 4) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9);

/// Which direction an interrupt served.
#[derive(Clone, Copy)]
enum IrqClass {
    /// Not the GMAC's.
    Other,
    Tx,
    Rx,
    /// Both directions' events, or neither (a summary bit alone).
    Both,
}

fn add(counter: &AtomicU32, v: u32) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(v),
        Ordering::Relaxed,
    );
}

/// The IRQ handler, its own instructions counted in [`IRQ_INSNS`] (and by direction).
fn on_irq() {
    let t0 = pmu::instructions();
    let class = on_irq_counted();
    let spent = pmu::instructions()
        .wrapping_sub(t0)
        .wrapping_add(IRQ_ENTRY.load(Ordering::Relaxed));
    add(&IRQ_INSNS, spent);
    // The same adds for every class, so that the instructions after the reading (in
    // IRQ_ENTRY, measured with the calibration SGI's class) do not depend on it.
    let (tx, rx) = match class {
        IrqClass::Other => (0, 0),
        IrqClass::Tx => (spent, 0),
        IrqClass::Rx => (0, spent),
        IrqClass::Both => (spent / 2, spent - spent / 2),
    };
    add(&IRQ_TX_INSNS, tx);
    add(&IRQ_RX_INSNS, rx);
}

/// GMAC0's DMA interrupt (TI, RI). Acknowledges and counts; the main loop does the cleanup
/// (as NAPI would).
fn on_irq_counted() -> IrqClass {
    let iar = GIC.acknowledge();
    let id = gic::iar_id(iar);
    if id == gic::SPURIOUS_ID {
        return IrqClass::Other;
    }
    let mut class = IrqClass::Other;
    if id == SGI_CAL {
        add(&IRQ_CAL, 1);
    } else if id == IRQ_GMAC0 {
        // SAFETY: GMAC0's DMA_STATUS; the main loop never reads or writes it while IRQs are
        // enabled (it uses the counters below).
        let st = unsafe { mmio::read32(GMAC0_DMA_STATUS) };
        if st & 1 != 0 {
            IRQ_TI.store(IRQ_TI.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        EVENTS.store(
            EVENTS.load(Ordering::Relaxed) | (st & regs::DMA_STATUS_W1C),
            Ordering::Relaxed,
        );
        if st & (1 << 6) != 0 {
            IRQ_RI.store(IRQ_RI.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        // SAFETY: W1C of the bits just read (summaries included), as Linux acknowledges.
        unsafe { mmio::write32(GMAC0_DMA_STATUS, st & regs::DMA_STATUS_W1C) };
        class = match (st & DMA_TX_EVENTS != 0, st & DMA_RX_EVENTS != 0) {
            (true, false) => IrqClass::Tx,
            (false, true) => IrqClass::Rx,
            _ => IrqClass::Both,
        };
    } else {
        let _ = GIC.disable(id); // an ID the GIC signalled (IAR): always implemented
        IRQ_OTHER.store(IRQ_OTHER.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
    GIC.end_of_interrupt(iar);
    class
}

/// Measure [`IRQ_ENTRY`]: a write to GICD_SGIR that sends [`SGI_CAL`] to this core,
/// against the same write addressed to no CPU (the same instructions, no interrupt),
/// each span read around the write with the PMU, [`on_irq`]'s own span taken out. QEMU
/// ends the translation block at the MMIO write and takes the interrupt before the next
/// one, so the interrupt lands inside the span. The smallest of 8 tries each. `None` if
/// the SGI never arrived.
fn irq_entry_cost() -> Option<u32> {
    const SGIR: usize = GIC_DIST + 0xf00;
    // TargetListFilter 2 (this CPU) or 0 with an empty CPUTargetList (nobody).
    let to_self = (2 << 24) | SGI_CAL;
    let to_nobody = SGI_CAL;
    let mut best = [u32::MAX; 2];
    for _ in 0..8 {
        for (i, value) in [to_nobody, to_self].into_iter().enumerate() {
            let (cal0, body0) = (
                IRQ_CAL.load(Ordering::Relaxed),
                IRQ_INSNS.load(Ordering::Relaxed),
            );
            let t0 = pmu::instructions();
            // SAFETY: GICD_SGIR of this SoC's distributor (write only); an SGI to this
            // core is served by `on_irq`, one to nobody does nothing.
            unsafe { mmio::write32(SGIR, core::hint::black_box(value)) };
            let t1 = pmu::instructions();
            let body = IRQ_INSNS.load(Ordering::Relaxed).wrapping_sub(body0);
            let arrived = IRQ_CAL.load(Ordering::Relaxed) != cal0;
            if arrived == (i == 1) {
                best[i] = best[i].min(t1.wrapping_sub(t0).wrapping_sub(body));
            }
        }
    }
    let [nobody, to_self] = best;
    (to_self != u32::MAX && nobody != u32::MAX).then(|| to_self.saturating_sub(nobody))
}

/// The PMU instruction counter without the interrupts' instructions, as the device's cost
/// probe (read again when an interrupt came between the two loads).
fn insns() -> u64 {
    loop {
        let irq = IRQ_INSNS.load(Ordering::Relaxed);
        let now = pmu::instructions();
        if IRQ_INSNS.load(Ordering::Relaxed) == irq {
            return u64::from(now.wrapping_sub(irq));
        }
    }
}

/// [`insns`] as the device's cost probe (a direct call).
#[derive(Clone, Copy)]
struct Pmu;

impl CostProbe for Pmu {
    #[inline(always)]
    fn read(&self) -> u64 {
        insns()
    }
}

/// Guest time for smoltcp.
fn instant(ticks: u64) -> Instant {
    Instant::from_micros((ticks / (GT_HZ as u64 / 1_000_000)) as i64)
}

/// The pre-seed cleanup timer: a `timer_list` on a HZ = 100 jiffies clock. Its time is
/// the global timer in 10 ms ticks; the main loop fires it at the first tick boundary at or
/// after its deadline ([`Phase::poll`]), as the jiffies timer wheel does.
#[derive(Debug)]
struct JiffyTimer {
    deadline: Cell<Option<u64>>,
    time: Time,
}

impl JiffyTimer {
    fn new(time: Time) -> Self {
        Self {
            deadline: Cell::new(None),
            time,
        }
    }
    fn jiffies(&self) -> u64 {
        self.time.now() / JIFFY_TICKS
    }
}

impl CleanupTimer for JiffyTimer {
    fn freq_hz(&self) -> Result<u32, Error> {
        Ok(100)
    }
    fn now(&self) -> Result<u64, Error> {
        Ok(self.jiffies())
    }
    fn is_queued(&self) -> bool {
        self.deadline.get().is_some()
    }
    fn start(&self, deadline: u64) -> Result<(), Error> {
        self.deadline.set(Some(deadline));
        Ok(())
    }
    fn restart(&self, deadline: u64) -> Result<(), Error> {
        self.deadline.set(Some(deadline));
        Ok(())
    }
    fn cancel(&self) -> Result<bool, Error> {
        Ok(self.deadline.take().is_some())
    }
}

/// The hrtimer cleanup timer: a slot of the global-timer queue.
type HrTimer = QueueTimer<'static, GtEvent, Time, 8>;

/// What a phase's cleanup timer needs from the main loop.
trait Expire: CleanupTimer + Sized {
    /// Run the expired timer: `on_timer` on the ring when it is due.
    fn poll(tx: &mut TxRing<Self, Coherent>, mac: &Mac, timers: &Timers);
}

impl Expire for HrTimer {
    fn poll(tx: &mut TxRing<Self, Coherent>, mac: &Mac, timers: &Timers) {
        let id = tx.timer().id();
        let served = timers.on_interrupt(|slot, now| {
            if slot == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        });
        // A refused programming leaves the queued timers with nothing armed: make the
        // recovery call. If that is refused too, the next queue operation (every frame
        // sent arms or moves the cleanup timer) programs it again.
        if let Err(QueueError::Hardware(_)) = served {
            let _ = timers.reprogram();
        }
    }
}

impl Expire for JiffyTimer {
    fn poll(tx: &mut TxRing<Self, Coherent>, mac: &Mac, _timers: &Timers) {
        let now = tx.timer().jiffies();
        if tx.timer().deadline.get().is_some_and(|d| now >= d) {
            tx.timer().deadline.set(None);
            if let Restart::At(at) = tx.on_timer(mac, now) {
                tx.timer().deadline.set(Some(at));
            }
        }
    }
}

/// Instructions ([`insns`]: interrupts left out) of the parts of [`Phase::poll`], summed
/// over its calls.
#[derive(Clone, Copy, Default)]
struct LoopCost {
    /// `Phase::poll` calls.
    polls: u64,
    /// smoltcp's ingress loop (`poll_ingress_single` until it finds nothing): every
    /// `receive()`, the RX tokens, smoltcp's processing of the frames and the replies it
    /// sends from them.
    ingress: u64,
    /// smoltcp's egress loop (`poll_egress` until it sends nothing): every `transmit()`,
    /// the TX tokens, smoltcp's dispatch.
    egress: u64,
    /// `TxRing::service` after a TI (the TI clean).
    tx_service: u64,
    /// `RxRing::service` after a DMA interrupt.
    rx_service: u64,
    /// The cleanup timer's poll and its `on_timer` (the timer-driven reclaim).
    timer: u64,
    /// The whole `Phase::poll`: the parts above plus the time read and the events swap.
    whole: u64,
}

impl LoopCost {
    fn since(self, earlier: Self) -> Self {
        Self {
            polls: self.polls - earlier.polls,
            ingress: self.ingress - earlier.ingress,
            egress: self.egress - earlier.egress,
            tx_service: self.tx_service - earlier.tx_service,
            rx_service: self.rx_service - earlier.rx_service,
            timer: self.timer - earlier.timer,
            whole: self.whole - earlier.whole,
        }
    }
}

/// One phase's device and cleanup.
struct Phase<'r, T: Expire> {
    dev: Measured<Device<'r, Mac, T, Coherent>, Pmu>,
    mac: &'r Mac,
    timers: &'static Timers,
    time: Time,
    cost: LoopCost,
}

impl<T: Expire> Phase<'_, T> {
    /// One round of the main loop: smoltcp, then the TX cleanup paths (the DMA interrupt's
    /// events, as NAPI would, and the cleanup timer), each part counted in [`LoopCost`].
    fn poll(&mut self, iface: &mut Interface, sockets: &mut SocketSet<'_>) {
        let probe = self.dev.probe_cost();
        let span = |a: u64, b: u64| b.wrapping_sub(a).saturating_sub(probe);
        let p0 = insns();
        let now = instant(self.time.now());
        // `Interface::poll` as smoltcp 0.14 does it for this feature set (no fragmentation,
        // SLAAC or multicast): maintenance (nothing to do here), ingress until no frame is
        // left, egress until nothing is sent; called part by part to count each.
        iface.poll_maintenance(now);
        let p1 = insns();
        while !matches!(
            iface.poll_ingress_single(now, &mut self.dev, sockets),
            PollIngressSingleResult::None
        ) {}
        let p2 = insns();
        while !matches!(
            iface.poll_egress(now, &mut self.dev, sockets),
            PollResult::None
        ) {}
        let p3 = insns();
        let events = gmac3::events_from_status(EVENTS.swap(0, Ordering::Relaxed));
        let mac = self.mac;
        // Separate TX and RX service, as stmmac's TX and RX NAPI: only TI (or a TX fault)
        // cleans the TX ring, an RX interrupt does not.
        let mut p4 = insns();
        if events.tx_done() || events.tx_fault() || events.fatal() {
            self.dev.inner_mut().tx().service(mac, events);
            let p = insns();
            self.cost.tx_service += span(p4, p);
            p4 = p;
        }
        if !events.is_empty() {
            self.dev.inner_mut().rx().service(mac, events);
            let p = insns();
            self.cost.rx_service += span(p4, p);
            p4 = p;
        }
        T::poll(self.dev.inner_mut().tx(), mac, self.timers);
        let p5 = insns();
        self.cost.timer += span(p4, p5);
        self.cost.ingress += span(p1, p2);
        self.cost.egress += span(p2, p3);
        self.cost.whole += span(p0, p5);
        self.cost.polls += 1;
    }
}

fn run() -> bool {
    // Zero the DMA megabyte's rings, then SCU and MMU (before any exclusive access).
    // SAFETY: `.dma` (memory.x) holds only the DmaMemory statics, not used yet; all-zero is
    // their initial state.
    unsafe { mmu::zero_dma_section() };
    // SAFETY: the MPCore private region of this SoC.
    let scu = unsafe { smp::scu_enable(MPCORE_BASE) };
    // SAFETY: CPU0's MMU and caches are off (QEMU's reset state); MAP maps the image, stacks,
    // the DMA megabyte and the devices flat; no DMA runs yet. CPU1 stays parked (MMU off).
    let sctlr = unsafe { mmu::enable(&MAP) };
    println!(
        Uart0,
        "MMU {} (SCTLR {sctlr:#010x}, SCU {scu:#x}), DMA {DMA_BASE:#010x} non-cacheable: {}",
        if mmu::enabled() { "on" } else { "off" },
        verdict(mmu::enabled() && MAP.is_normal(0x0010_0000) && !MAP.is_normal(DMA_BASE))
    );
    if !mmu::enabled() {
        return false;
    }
    match net() {
        Ok(ok) => ok,
        Err(e) => {
            println!(Uart0, "error: {e:?}");
            false
        }
    }
}

/// Ring set `i`'s DMA regions (each handed out once).
fn regions(i: usize) -> Result<(DmaRegion, DmaRegion), Error> {
    let tx = TX_MEM.get(i).and_then(|m| m.take());
    let rx = RX_MEM.get(i).and_then(|m| m.take());
    tx.zip(rx).ok_or(Error::RingSize)
}

/// DMA soft reset (QEMU's npcm-gmac only returns its current-descriptor pointers to the
/// ring bases on a reset), then bring-up on set `i`'s rings, with `timer` as the TX cleanup
/// timer.
fn bring_up<T: CleanupTimer>(
    mac: &Mac,
    link: LinkState,
    set: usize,
    coalesce: CoalesceConfig,
    strategy: TimerStrategy,
    timer: T,
) -> Result<(TxRing<T, Coherent>, RxRing<Coherent>), Error> {
    arm::irq_disable();
    mac.soft_reset(pmu::Cycles)?;
    let setup = mac.configure_dma(&DmaConfig {
        cache_line: LINE,
        csr_hz: CSR_HZ,
        ..DmaConfig::default()
    })?;
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    // SAFETY: the MMU maps everything flat (MAP) and the npcm750 has no IOMMU or DMA
    // offset; the GMAC's DMA sees every CPU address at the same bus address.
    let addr = unsafe { IdentityMap::new() };
    let (tx_mem, rx_mem) = regions(set)?;
    let tx_cfg = TxConfig {
        descriptors: TX_N,
        buf_size: TX_BUF,
        coalesce,
        strategy,
    };
    let rx_cfg = RxConfig {
        descriptors: RX_N,
        buf_size: RX_BUF,
        ..RxConfig::default()
    };
    let mut tx = TxRing::new(tx_mem, &addr, &setup, tx_cfg, timer, Coherent)?;
    let mut rx = RxRing::new(rx_mem, &addr, &setup, rx_cfg, Coherent)?;
    // TX checksum insertion where HW_FEATURE announces it (QEMU's model does, and inserts);
    // RX checking stays off: QEMU's model checks nothing (see the module docs).
    tx.set_checksum_offload(TX_OFFLOAD);
    rx.set_checksum_offload(RX_OFFLOAD);
    // Each start reads DSL back: the DMA steps through the ring with the ring's stride.
    tx.try_start(mac)?;
    rx.try_start(mac)?;
    mac.set_interrupts(regs::DMA_INTR_DEFAULT);
    mac.set_link(link);
    EVENTS.store(0, Ordering::Relaxed);
    // SAFETY: `on_irq` acknowledges GMAC0 and disables anything else; no critical section
    // is held here.
    unsafe { arm::irq_enable() };
    Ok((tx, rx))
}

fn net() -> Result<bool, Error> {
    pmu::enable();
    // SAFETY: the GMAC0 register block; this firmware is its only user.
    let mac: Mac = Gmac3::new(unsafe { Mmio::<u32>::new(GMAC0_BASE, GMAC_LEN) });
    println!(Uart0, "GMAC0 VERSION = {:#010x}", mac.version());
    let hw_feature = mac.hw_feature();
    println!(
        Uart0,
        "GMAC0 HW_FEATURE = {hw_feature:#010x}: checksum offload {}",
        CoeText(mac.coe())
    );
    // SAFETY: the global timer window of this SoC's MPCore region; this firmware is its only
    // user and only CPU0 runs it (its banked comparator registers are CPU0's).
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    // QEMU's rate and compare rule: QEMU reports the CPU as r0p0 but compares `>=` (the
    // r2p0+ rule; see the a9-global-timer crate's `CompareRule`), so an arm writes the
    // deadline and reads nothing back. The npcm750 board runs the r0p0 rule's checks.
    let gt: &'static GlobalTimer<Bus> =
        GT.init(GlobalTimer::new(bus, a9_global_timer::Config::qemu())?);
    gt.start()?;
    let time = gt.counter();
    GIC.init();
    for id in [IRQ_GMAC0, SGI_CAL] {
        // Err only for an ID this GIC does not implement.
        GIC.enable(id, 0xa0, 1)
            .map_err(|_| hwtimer_core::Error::Unsupported)?;
    }
    // SAFETY: `on_irq` serves the calibration SGI and GMAC0 (whose interrupts are not
    // enabled at the MAC yet); no critical section is held here.
    unsafe { arm::irq_enable() };
    let entry = irq_entry_cost();
    arm::irq_disable();
    let Some(entry) = entry else {
        println!(Uart0, "irq entry: the calibration SGI never arrived: FAIL");
        return Ok(false);
    };
    IRQ_ENTRY.store(entry, Ordering::Relaxed);
    println!(
        Uart0,
        "irq entry: {entry} insns per interrupt around the handler (vector, aarch32-rt entry and return, _irq_handler; an SGI to this core against one to nobody)"
    );
    // SAFETY: the firmware runs in SYS mode (PL1), where MPIDR can be read.
    let cpu = unsafe { NativeCpu::new() };
    let alarm = hwtimer_core::Alarm::new(
        Counted::new(CpuBound::new(gt.comparator()?, cpu), &GT_PROGRAMS),
        time,
    )?;
    let timers: &'static Timers = TIMERS.init(HrTimers::new(alarm));

    // ---- The PHY: autonegotiation over this crate's MDIO, the MAC set from the result ----
    mac.soft_reset(pmu::Cycles)?;
    let phy = Phy::new(PhyAddr::from_bits(0));
    let link = {
        let mut mdio = mac.mdio(pmu::Cycles, CSR_HZ)?;
        phy.start_autoneg(&mut mdio, Advertise::default())?;
        let mut link = LinkState::DOWN;
        for _ in 0..100 {
            link = phy.poll(&mut mdio)?;
            if link.up {
                break;
            }
        }
        link
    };
    println!(
        Uart0,
        "link: up {} Mbit/s {:?} duplex (autonegotiation over MDIO)",
        link.speed.mbps(),
        link.duplex
    );
    if !link.up {
        return Ok(false);
    }
    let scratch = SCRATCH.init([[0; 1518]; SETS]);
    let mut scratch = scratch.iter_mut();
    let mut next_scratch = || scratch.next().map(|s| &mut s[..]).ok_or(Error::RingSize);

    // ---- Echo phase: ring set 0, arm-once cleanup timer ----
    let cfg = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: TX_USECS,
        ..CoalesceConfig::default()
    };
    let (mut tx, mut rx) = bring_up(
        &mac,
        link,
        0,
        cfg,
        TimerStrategy::ArmOnce,
        HrTimer::new(timers)?,
    )?;
    let mut phase = Phase {
        dev: Measured::new(Device::new(&mac, &mut tx, &mut rx, next_scratch()?), Pmu),
        mac: &mac,
        timers,
        time,
        cost: LoopCost::default(),
    };
    // What the rings enabled and what smoltcp is told (`Interface::new` reads it once).
    let caps = phase.dev.capabilities().checksum;
    let (tx_on, rx_on) = (
        phase.dev.inner_mut().tx().checksum_offload(),
        phase.dev.inner_mut().rx().checksum_offload(),
    );
    println!(
        Uart0,
        "checksum offload: TX {} ({TX_OFFLOAD:?}), RX {} ({RX_OFFLOAD:?}: QEMU checks no RX checksums); smoltcp computes IPv4/TCP/UDP on TX: {}, ICMP: {}; verifies on RX: {}",
        on_off(tx_on),
        on_off(rx_on),
        yes_no(caps.ipv4.tx() || caps.tcp.tx() || caps.udp.tx()),
        yes_no(caps.icmpv4.tx()),
        yes_no(caps.ipv4.rx() && caps.tcp.rx() && caps.udp.rx() && caps.icmpv4.rx())
    );

    let mut config = Config::new(HardwareAddress::Ethernet(EthernetAddress(MAC)));
    config.random_seed = u64::from(pmu::cycles()) ^ 0x5eed_0002;
    let mut iface = Interface::new(config, &mut phase.dev, instant(time.now()));
    let storage = SOCKETS.init([const { SocketStorage::EMPTY }; 8]);
    let mut sockets = SocketSet::new(&mut storage[..]);

    // DHCP.
    let dhcp = sockets.add(dhcpv4::Socket::new());
    let deadline = time.now() + STEP_TIMEOUT_S * 1000 * TICKS_PER_MS;
    let mut lease = None;
    while lease.is_none() && time.now() < deadline {
        phase.poll(&mut iface, &mut sockets);
        if let Some(dhcpv4::Event::Configured(c)) = sockets.get_mut::<dhcpv4::Socket>(dhcp).poll() {
            iface.update_ip_addrs(|a| {
                a.clear();
                let _ = a.push(IpCidr::Ipv4(c.address));
            });
            if let Some(r) = c.router {
                let _ = iface.routes_mut().add_default_ipv4_route(r);
            }
            lease = Some((c.address.address(), c.router));
        }
    }
    let Some((addr, router)) = lease else {
        println!(Uart0, "dhcp: no lease within {STEP_TIMEOUT_S} s");
        return Ok(false);
    };
    println!(Uart0, "dhcp: {addr}");
    println!(
        Uart0,
        "dhcp: router {} (DNS servers ignored: the firmware talks to 10.0.2.2 only)",
        router.map_or(IpAddress::Ipv4(Ipv4Address::UNSPECIFIED), IpAddress::Ipv4)
    );
    let router_ok = router == Some(GATEWAY);

    // ICMP echo with the gateway.
    let (meta, mem) = (
        ICMP_META.init([[icmp::PacketMetadata::EMPTY; 2]; 2]),
        ICMP_MEM.init([[0; 256]; 2]),
    );
    let [m0, m1] = meta;
    let [b0, b1] = mem;
    let icmp_h = sockets.add(icmp::Socket::new(
        icmp::PacketBuffer::new(&mut m0[..], &mut b0[..]),
        icmp::PacketBuffer::new(&mut m1[..], &mut b1[..]),
    ));
    let ping_ok = ping(&mut phase, &mut iface, &mut sockets, icmp_h)?;

    // TCP echo.
    let echo = echo_server(&mut phase, &mut iface, &mut sockets);
    println!(
        Uart0,
        "tcp-echo: bytes={} connections={}", echo.bytes, echo.connections
    );
    let echo_ok = echo.connections > 0 || echo.sink.is_none();
    let st0 = phase.dev.inner().stats();
    println!(
        Uart0,
        "tcp-echo: device rx {} frames ({} spanned 512-byte buffers, copied once), tx {} frames; RX ring errors {}",
        st0.rx_frames,
        st0.rx_copied,
        st0.tx_frames,
        phase.dev.inner_mut().rx().stats().errors
    );
    // The whole path over everything so far on ring set 0 (DHCP, ICMP, the echo).
    Path::new(
        &phase.dev.stats(),
        &phase.cost,
        u64::from(IRQ_TX_INSNS.load(Ordering::Relaxed)),
        u64::from(IRQ_RX_INSNS.load(Ordering::Relaxed)),
    )
    .print("echo");
    let _ = phase;

    let mut stream_ok = true;
    if let Some((port, bytes)) = echo.sink {
        let mut s = || next_scratch();
        stream_ok = streams(
            &mac,
            link,
            timers,
            time,
            &mut iface,
            &mut sockets,
            port,
            bytes,
            &mut s,
        )?;
    }
    let irq_other = IRQ_OTHER.load(Ordering::Relaxed);
    Ok(router_ok && ping_ok && echo_ok && stream_ok && irq_other == 0)
}

/// ICMP echo request to the gateway and its reply.
fn ping<T: Expire>(
    phase: &mut Phase<'_, T>,
    iface: &mut Interface,
    sockets: &mut SocketSet<'_>,
    h: SocketHandle,
) -> Result<bool, Error> {
    const IDENT: u16 = 0x22b;
    let payload = *b"timer-family ping";
    let caps = ChecksumCapabilities::default();
    sockets
        .get_mut::<icmp::Socket>(h)
        .bind(icmp::Endpoint::Ident(IDENT))
        .map_err(|_| Error::RingSize)?;
    let t0 = phase.time.now();
    let deadline = t0 + STEP_TIMEOUT_S * 1000 * TICKS_PER_MS;
    let mut sent = false;
    while phase.time.now() < deadline {
        phase.poll(iface, sockets);
        let s = sockets.get_mut::<icmp::Socket>(h);
        if !sent && s.can_send() {
            let repr = Icmpv4Repr::EchoRequest {
                ident: IDENT,
                seq_no: 1,
                data: &payload,
            };
            if let Ok(buf) = s.send(repr.buffer_len(), IpAddress::Ipv4(GATEWAY)) {
                repr.emit(&mut Icmpv4Packet::new_unchecked(buf), &caps);
                sent = true;
            }
        }
        if s.can_recv()
            && let Ok((buf, from)) = s.recv()
        {
            let ok = Icmpv4Packet::new_checked(buf)
                .ok()
                .and_then(|p| Icmpv4Repr::parse(&p, &caps).ok())
                .is_some_and(|r| {
                    matches!(r, Icmpv4Repr::EchoReply { ident: IDENT, seq_no: 1, data } if data == payload)
                });
            let us = (phase.time.now() - t0) / (TICKS_PER_MS / 1000);
            println!(
                Uart0,
                "icmp: echo reply from {from} seq=1 ({} payload bytes, {us} us guest time): {}",
                payload.len(),
                verdict(ok && from == IpAddress::Ipv4(GATEWAY))
            );
            return Ok(ok && from == IpAddress::Ipv4(GATEWAY));
        }
    }
    println!(Uart0, "icmp: no echo reply from {GATEWAY}: FAIL");
    Ok(false)
}

/// What the echo phase saw.
struct EchoResult {
    bytes: u64,
    connections: u32,
    /// `sink <port> <bytes>` from the port-9 connection.
    sink: Option<(u16, u32)>,
}

/// The echo server: port 7 until a port-9 connection or the idle timeout.
fn echo_server<T: Expire>(
    phase: &mut Phase<'_, T>,
    iface: &mut Interface,
    sockets: &mut SocketSet<'_>,
) -> EchoResult {
    let mem = ECHO_MEM.init([[0; ECHO_BUF]; 2 * ECHO_SOCKETS]);
    let mut handles: [Option<SocketHandle>; ECHO_SOCKETS] = [None; ECHO_SOCKETS];
    let mut bufs = mem.iter_mut();
    for h in &mut handles {
        if let (Some(r), Some(t)) = (bufs.next(), bufs.next()) {
            let mut s = tcp::Socket::new(
                tcp::SocketBuffer::new(&mut r[..]),
                tcp::SocketBuffer::new(&mut t[..]),
            );
            let _ = s.listen(7);
            *h = Some(sockets.add(s));
        }
    }
    let [c0, c1] = CTRL_MEM.init([[0; 256]; 2]);
    let mut ctrl = tcp::Socket::new(
        tcp::SocketBuffer::new(&mut c0[..]),
        tcp::SocketBuffer::new(&mut c1[..]),
    );
    let _ = ctrl.listen(9);
    let ctrl_h = sockets.add(ctrl);
    println!(
        Uart0,
        "tcp-echo: listening on ports 7 (x{ECHO_SOCKETS}) and 9"
    );

    let mut result = EchoResult {
        bytes: 0,
        connections: 0,
        sink: None,
    };
    let mut open = [false; ECHO_SOCKETS];
    let mut counted = [false; ECHO_SOCKETS];
    let mut line = [0u8; 64];
    let mut line_len = 0usize;
    let mut ctrl_seen = false;
    let mut last_activity = phase.time.now();
    let idle = IDLE_TIMEOUT_S * 1000 * TICKS_PER_MS;
    let mut tmp = [0u8; 2048];
    loop {
        phase.poll(iface, sockets);
        let now = phase.time.now();
        for ((h, open), counted) in handles.iter().zip(open.iter_mut()).zip(counted.iter_mut()) {
            let Some(h) = *h else { continue };
            let s = sockets.get_mut::<tcp::Socket>(h);
            // A connection counts once it carried a byte: a SYN that slirp retransmits for a
            // host connection already gone is reset before any data, and is not one.
            // A short connection can go from Listen to CloseWait (data and FIN in) between
            // two polls, so any synchronized state marks a new connection, not only
            // Established (seen at -icount shift 4: one connection of 39 went uncounted).
            if !*open
                && matches!(
                    s.state(),
                    tcp::State::Established
                        | tcp::State::CloseWait
                        | tcp::State::FinWait1
                        | tcp::State::FinWait2
                        | tcp::State::Closing
                        | tcp::State::LastAck
                )
            {
                *open = true;
                *counted = false;
                last_activity = now;
            }
            // Echo what fits in the send buffer.
            while s.can_recv() && s.can_send() {
                let room = s.send_capacity() - s.send_queue();
                let want = room.min(tmp.len());
                if want == 0 {
                    break;
                }
                let got = s
                    .recv(|b| {
                        let n = b.len().min(want);
                        tmp[..n].copy_from_slice(&b[..n]);
                        (n, n)
                    })
                    .unwrap_or(0);
                if got == 0 {
                    break;
                }
                let _ = s.send_slice(&tmp[..got]);
                result.bytes += got as u64;
                last_activity = now;
                if !*counted {
                    *counted = true;
                    result.connections += 1;
                }
            }
            // The peer finished sending and everything was echoed: close our side.
            if s.state() == tcp::State::CloseWait && s.recv_queue() == 0 && s.send_queue() == 0 {
                s.close();
            }
            if !s.is_open() && *open {
                *open = false;
                let _ = s.listen(7);
            }
            if s.state() == tcp::State::Closed {
                let _ = s.listen(7);
            }
        }
        // Port 9: read the host's line until it closes, then finish.
        let c = sockets.get_mut::<tcp::Socket>(ctrl_h);
        if c.is_active() && c.state() != tcp::State::Listen {
            ctrl_seen = true;
        }
        if c.can_recv() {
            let _ = c.recv(|b| {
                let n = b.len().min(line.len() - line_len);
                line[line_len..line_len + n].copy_from_slice(&b[..n]);
                line_len += n;
                (b.len(), ())
            });
        }
        let line_done = line[..line_len].contains(&b'\n');
        if ctrl_seen && (line_done || c.state() == tcp::State::CloseWait || !c.is_open()) {
            c.close();
            result.sink = parse_sink(&line[..line_len]);
            println!(
                Uart0,
                "tcp-echo: connection to port 9: finish{}",
                if result.sink.is_some() {
                    " (the host asks for the TCP stream)"
                } else {
                    ""
                }
            );
            break;
        }
        if now.saturating_sub(last_activity) > idle {
            println!(Uart0, "tcp-echo: idle for {IDLE_TIMEOUT_S} s: finish");
            break;
        }
    }
    // Let the closes go out, then drop the echo sockets.
    for _ in 0..2000 {
        phase.poll(iface, sockets);
    }
    for h in handles.into_iter().flatten() {
        sockets.get_mut::<tcp::Socket>(h).abort();
    }
    phase.poll(iface, sockets);
    for h in handles.into_iter().flatten() {
        sockets.remove(h);
    }
    sockets.remove(ctrl_h);
    result
}

/// `sink <port> <bytes>` (ASCII, one line).
fn parse_sink(line: &[u8]) -> Option<(u16, u32)> {
    let text = core::str::from_utf8(line).ok()?;
    let mut words = text.split_ascii_whitespace();
    if words.next()? != "sink" {
        return None;
    }
    let port: u16 = words.next()?.parse().ok()?;
    let bytes: u32 = words.next()?.parse().ok()?;
    (port != 0 && bytes > 0 && bytes <= MAX_STREAM).then_some((port, bytes))
}

/// One stream's figures.
#[derive(Clone, Copy, Default)]
struct StreamResult {
    bytes: u32,
    ticks: u64,
    dev: MeasuredStats,
    ti: u32,
    ri: u32,
    programs: u32,
    ok: bool,
    /// The main loop's parts over the stream.
    cost: LoopCost,
    /// GMAC interrupts' instructions by direction over the stream ([`IRQ_TX_INSNS`],
    /// [`IRQ_RX_INSNS`]).
    irq_tx: u64,
    irq_rx: u64,
    /// A stream split in two ([`Split::Offload`]): the counts with TX checksum offload on
    /// (from the start to the switch) and off (from the switch to the end).
    halves: Option<[Counts; 2]>,
    /// Whether the TX ring had checksum offload on at the switch (`TxRing::checksum_offload`).
    first_half_offload: bool,
}

/// Whether [`stream`] switches TX checksum offload off halfway.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Split {
    /// One setting throughout.
    No,
    /// Offload on until half the bytes are queued, then off on a fresh `Interface` (smoltcp
    /// reads a device's checksum capabilities once, in `Interface::new`).
    Offload,
}

/// The counters [`stream`] takes differences of, at one point.
#[derive(Clone, Copy)]
struct Snap {
    dev: MeasuredStats,
    cost: LoopCost,
    irq_tx: u32,
    irq_rx: u32,
}

/// What a part of a stream counted (differences of two [`Snap`]s).
#[derive(Clone, Copy, Default)]
struct Counts {
    dev: MeasuredStats,
    cost: LoopCost,
    irq_tx: u64,
    irq_rx: u64,
}

impl Snap {
    fn take<T: Expire>(p: &Phase<'_, T>) -> Self {
        Self {
            dev: p.dev.stats(),
            cost: p.cost,
            irq_tx: IRQ_TX_INSNS.load(Ordering::Relaxed),
            irq_rx: IRQ_RX_INSNS.load(Ordering::Relaxed),
        }
    }

    /// From this point to `later`.
    fn until(self, later: Self) -> Counts {
        let (a, b) = (self.dev, later.dev);
        Counts {
            dev: MeasuredStats {
                rx_frames: b.rx_frames - a.rx_frames,
                tx_frames: b.tx_frames - a.tx_frames,
                tx_driver_units: b.tx_driver_units - a.tx_driver_units,
                rx_driver_units: b.rx_driver_units - a.rx_driver_units,
                tx_token_units: b.tx_token_units - a.tx_token_units,
                rx_token_units: b.rx_token_units - a.rx_token_units,
                rx_empty_polls: b.rx_empty_polls - a.rx_empty_polls,
                rx_empty_units: b.rx_empty_units - a.rx_empty_units,
                tx_empty_polls: b.tx_empty_polls - a.tx_empty_polls,
                tx_empty_units: b.tx_empty_units - a.tx_empty_units,
            },
            cost: later.cost.since(self.cost),
            irq_tx: u64::from(later.irq_tx.wrapping_sub(self.irq_tx)),
            irq_rx: u64::from(later.irq_rx.wrapping_sub(self.irq_rx)),
        }
    }
}

/// A second interface like `like` (its addresses, the default route through [`GATEWAY`]) on
/// `p`'s device as it is now, for the rest of a [`Split::Offload`] stream: smoltcp takes
/// the checksum capabilities from the device in `Interface::new` only. Its neighbour
/// cache starts empty, so the next segment waits for one ARP exchange.
fn interface_like<T: Expire>(like: &Interface, p: &mut Phase<'_, T>) -> Interface {
    let mut config = Config::new(HardwareAddress::Ethernet(EthernetAddress(MAC)));
    config.random_seed = u64::from(pmu::cycles()) ^ 0x5eed_0003;
    let mut iface = Interface::new(config, &mut p.dev, instant(p.time.now()));
    iface.update_ip_addrs(|a| {
        for c in like.ip_addrs() {
            let _ = a.push(*c);
        }
    });
    let _ = iface.routes_mut().add_default_ipv4_route(GATEWAY);
    iface
}

/// The whole path per frame (see the module docs, "The whole path"): instructions of each
/// part summed over a run, and the frames.
struct Path {
    tx_frames: u64,
    rx_frames: u64,
    /// TX: submit (reserve + commit of every frame sent), empty `transmit()` calls, the TI
    /// clean, the cleanup timer, the TX share of the GMAC interrupts.
    submit: u64,
    tx_empty: u64,
    ti_clean: u64,
    timer: u64,
    irq_tx: u64,
    /// RX: taking, lending (or copying) and giving back each frame, reserving its reply
    /// descriptor, empty `receive()` calls (the RX poll demand), the RX service, the RX
    /// share of the GMAC interrupts.
    receive: u64,
    rx_empty: u64,
    rx_service: u64,
    irq_rx: u64,
    /// smoltcp's egress and ingress loops (the driver's calls inside included), and the
    /// rest of the main loop's round (time read, events swap, the probe's own readings).
    egress: u64,
    ingress: u64,
    glue: u64,
    /// Main-loop rounds (`Phase::poll` calls).
    polls: u64,
}

impl Path {
    fn new(dev: &MeasuredStats, cost: &LoopCost, irq_tx: u64, irq_rx: u64) -> Self {
        let parts = cost.ingress + cost.egress + cost.tx_service + cost.rx_service + cost.timer;
        Self {
            tx_frames: dev.tx_frames,
            rx_frames: dev.rx_frames,
            submit: dev.tx_driver_units,
            tx_empty: dev.tx_empty_units,
            ti_clean: cost.tx_service,
            timer: cost.timer,
            irq_tx,
            receive: dev.rx_driver_units,
            rx_empty: dev.rx_empty_units,
            rx_service: cost.rx_service,
            irq_rx,
            egress: cost.egress,
            ingress: cost.ingress,
            glue: cost.whole.saturating_sub(parts),
            polls: cost.polls,
        }
    }
    fn tx_driver(&self) -> u64 {
        self.submit + self.tx_empty + self.ti_clean + self.timer + self.irq_tx
    }
    fn rx_driver(&self) -> u64 {
        self.receive + self.rx_empty + self.rx_service + self.irq_rx
    }
    /// Egress, the TX cleanup, the TX interrupts, half the loop's rest.
    fn tx_smoltcp(&self) -> u64 {
        self.egress + self.ti_clean + self.timer + self.irq_tx + self.glue / 2
    }
    /// Ingress, the RX service, the RX interrupts, the other half of the loop's rest.
    fn rx_smoltcp(&self) -> u64 {
        self.ingress + self.rx_service + self.irq_rx + (self.glue - self.glue / 2)
    }
    /// The breakdown, per frame.
    fn print(&self, name: &str) {
        let (t, r) = (self.tx_frames.max(1), self.rx_frames.max(1));
        println!(
            Uart0,
            "path {name}: tx {} frames, insns per frame: submit {} + empty transmit() {} + TI clean {} + cleanup timer {} + interrupts {} = driver {}; smoltcp egress {} (driver calls inside) -> with smoltcp {}",
            self.tx_frames,
            self.submit / t,
            self.tx_empty / t,
            self.ti_clean / t,
            self.timer / t,
            self.irq_tx / t,
            self.tx_driver() / t,
            self.egress / t,
            self.tx_smoltcp() / t
        );
        println!(
            Uart0,
            "path {name}: rx {} frames, insns per frame: receive (reply reserve included) {} + empty receive() {} + RX service {} + interrupts {} = driver {}; smoltcp ingress {} (driver calls inside) -> with smoltcp {}; loop rest {} per round, {} rounds",
            self.rx_frames,
            self.receive / r,
            self.rx_empty / r,
            self.rx_service / r,
            self.irq_rx / r,
            self.rx_driver() / r,
            self.ingress / r,
            self.rx_smoltcp() / r,
            self.glue / self.polls.max(1),
            self.polls
        );
    }
}

impl StreamResult {
    fn bytes_per_s(&self) -> u64 {
        u64::from(self.bytes) * u64::from(GT_HZ) / self.ticks.max(1)
    }
    fn irqs_per_frame_milli(&self) -> u64 {
        let frames = self.dev.tx_frames + self.dev.rx_frames;
        u64::from(self.ti + self.ri) * 1000 / frames.max(1)
    }
}

/// What the four streams of [`streams`] share: the MAC and its link, the time, smoltcp, the
/// socket and the sink it sends to.
struct StreamRig<'a, 's> {
    mac: &'a Mac,
    link: LinkState,
    timers: &'static Timers,
    time: Time,
    iface: &'a mut Interface,
    sockets: &'a mut SocketSet<'s>,
    h: SocketHandle,
    port: u16,
    bytes: u32,
    scratch: &'a mut dyn FnMut() -> Result<&'static mut [u8], Error>,
}

impl StreamRig<'_, '_> {
    /// One stream on ring set `set` (after a DMA soft reset, see [`bring_up`]) with
    /// `coalesce`, `strategy` and `timer` as the TX cleanup timer, from local port
    /// 50000 + `set`.
    fn stream<T: Expire>(
        &mut self,
        set: usize,
        coalesce: CoalesceConfig,
        strategy: TimerStrategy,
        timer: T,
        name: &str,
        split: Split,
    ) -> Result<StreamResult, Error> {
        let (mut tx, mut rx) = bring_up(self.mac, self.link, set, coalesce, strategy, timer)?;
        let mut p = Phase {
            dev: Measured::new(
                Device::new(self.mac, &mut tx, &mut rx, (self.scratch)()?),
                Pmu,
            ),
            mac: self.mac,
            timers: self.timers,
            time: self.time,
            cost: LoopCost::default(),
        };
        let local = 50_000 + set as u16;
        Ok(stream(
            &mut p,
            self.iface,
            self.sockets,
            self.h,
            self.port,
            local,
            self.bytes,
            name,
            split,
        ))
    }
}

/// The four streams on ring sets 1 to 4.
#[allow(clippy::too_many_arguments)]
fn streams(
    mac: &Mac,
    link: LinkState,
    timers: &'static Timers,
    time: Time,
    iface: &mut Interface,
    sockets: &mut SocketSet<'_>,
    port: u16,
    bytes: u32,
    scratch: &mut dyn FnMut() -> Result<&'static mut [u8], Error>,
) -> Result<bool, Error> {
    use TimerStrategy::{ArmOnce, RearmEveryPacket};
    let seed = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: TX_USECS,
        ..CoalesceConfig::default()
    };
    let mem = STREAM_MEM.init([0; STREAM_BUF]);
    let rx_mem = STREAM_RX.init([0; 256]);
    let h = sockets.add(tcp::Socket::new(
        tcp::SocketBuffer::new(&mut rx_mem[..]),
        tcp::SocketBuffer::new(&mut mem[..]),
    ));
    println!(
        Uart0,
        "stream: {bytes} bytes to 10.0.2.2:{port}, TX ring {TX_N}, tx-frames {TX_FRAMES}, tx-usecs {TX_USECS}, at most {TSQ_FRAMES} frames unreclaimed (TSQ)"
    );

    let mut rig = StreamRig {
        mac,
        link,
        timers,
        time,
        iface,
        sockets,
        h,
        port,
        bytes,
        scratch,
    };
    // (a) The pre-seed timer_list at HZ = 100, re-armed (mod_timer) on every packet.
    let jiffies = rig.stream(
        1,
        seed,
        RearmEveryPacket,
        JiffyTimer::new(time),
        "jiffies",
        Split::No,
    )?;
    // (b) The hrtimer re-armed on every packet (Linux).
    let rearm = rig.stream(
        2,
        seed,
        RearmEveryPacket,
        HrTimer::new(timers)?,
        "rearm",
        Split::No,
    )?;
    // (c) The hrtimer armed once (this crate).
    let arm_once = rig.stream(
        3,
        seed,
        ArmOnce,
        HrTimer::new(timers)?,
        "arm_once",
        Split::No,
    )?;
    // Per-frame TX interrupts (tx-frames 1), for the interrupt count; TX checksum offload
    // on for its first half and off for the second, for the per-frame cost of each.
    let tx1 = CoalesceConfig {
        tx_frames: 1,
        ..seed
    };
    let per_frame = rig.stream(
        4,
        tx1,
        ArmOnce,
        HrTimer::new(timers)?,
        "per_frame",
        Split::Offload,
    )?;

    let (j, r, a, f) = (
        jiffies.bytes_per_s(),
        rearm.bytes_per_s(),
        arm_once.bytes_per_s(),
        per_frame.bytes_per_s(),
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_jiffies = {j} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_rearm = {r} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_arm_once = {a} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_arm_once_over_jiffies = {} x",
        Milli(a * 1000 / j.max(1))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_arm_once_over_rearm = {} x",
        Milli(a * 1000 / r.max(1))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tcp_stream_rearm_over_jiffies = {} x",
        Milli(r * 1000 / j.max(1))
    );
    let per = |units: u64, frames: u64| units / frames.max(1);
    let d = arm_once.dev;
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tx_insns_per_frame = {} insns",
        per(d.tx_driver_units, d.tx_frames)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tx_insns_per_frame_smoltcp = {} insns",
        per(d.tx_token_units, d.tx_frames)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_rx_insns_per_frame = {} insns",
        per(d.rx_driver_units, d.rx_frames)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_rx_insns_per_frame_smoltcp = {} insns",
        per(d.rx_token_units, d.rx_frames)
    );
    let path = Path::new(&d, &arm_once.cost, arm_once.irq_tx, arm_once.irq_rx);
    path.print("arm_once");
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_frame_tx_driver = {} kinsns",
        Milli(per(path.tx_driver(), path.tx_frames))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_frame_rx_driver = {} kinsns",
        Milli(per(path.rx_driver(), path.rx_frames))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_frame_tx_smoltcp = {} kinsns",
        Milli(per(path.tx_smoltcp(), path.tx_frames))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_frame_rx_smoltcp = {} kinsns",
        Milli(per(path.rx_smoltcp(), path.rx_frames))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_empty_rx_poll = {} insns",
        per(d.rx_empty_units, d.rx_empty_polls)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_path_insns_per_empty_tx_poll = {} insns",
        per(d.tx_empty_units, d.tx_empty_polls)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_irqs_per_frame_coalesced = {} irqs",
        Milli(arm_once.irqs_per_frame_milli())
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_irqs_per_frame_per_frame = {} irqs",
        Milli(per_frame.irqs_per_frame_milli())
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_stream_timer_programs_per_frame_rearm = {} programs",
        Milli(u64::from(rearm.programs) * 1000 / rearm.dev.tx_frames.max(1))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_stream_timer_programs_per_frame_arm_once = {} programs",
        Milli(u64::from(arm_once.programs) * 1000 / arm_once.dev.tx_frames.max(1))
    );
    let _ = f;
    let halves_ok = offload_figures(&per_frame);
    Ok(jiffies.ok && rearm.ok && arm_once.ok && per_frame.ok && halves_ok)
}

/// The per-frame figures of the split stream's halves, TX checksum offload on and off
/// (module docs, "Checksum offload"); `false` when the stream was not split, its ring did
/// not have offload on before the switch, or a half sent nothing.
fn offload_figures(r: &StreamResult) -> bool {
    let Some([on, off]) = r.halves else {
        println!(
            Uart0,
            "offload: the per_frame stream never switched offload off: FAIL"
        );
        return false;
    };
    let per = |units: u64, frames: u64| units / frames.max(1);
    let ok = r.first_half_offload && on.dev.tx_frames > 0 && off.dev.tx_frames > 0;
    println!(
        Uart0,
        "offload: per_frame stream, TX checksum offload on for {} frames ({} rounds), off for {} frames ({} rounds, one ARP exchange and the close included); TX insns per frame: driver {} / {}, with smoltcp {} / {}: {}",
        on.dev.tx_frames,
        on.cost.polls,
        off.dev.tx_frames,
        off.cost.polls,
        per(on.dev.tx_driver_units, on.dev.tx_frames),
        per(off.dev.tx_driver_units, off.dev.tx_frames),
        per(on.dev.tx_token_units, on.dev.tx_frames),
        per(off.dev.tx_token_units, off.dev.tx_frames),
        verdict(ok)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tx_insns_per_frame_smoltcp_offload_on = {} insns",
        per(on.dev.tx_token_units, on.dev.tx_frames)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_tx_insns_per_frame_smoltcp_offload_off = {} insns",
        per(off.dev.tx_token_units, off.dev.tx_frames)
    );
    ok
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

/// [`Gmac3::coe`] in words.
struct CoeText(Option<Coe>);

impl core::fmt::Display for CoeText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Some(coe) = self.0 else {
            return f.write_str("unknown (no HW_FEATURE)");
        };
        let rx = match coe.rx {
            RxCoe::None => "none",
            RxCoe::Type1 => "type 1",
            RxCoe::Type2 => "type 2",
        };
        write!(f, "TX insertion {}, RX checking {rx}", yes_no(coe.tx))
    }
}

/// A value in thousandths, printed with three decimals.
struct Milli(u64);

impl core::fmt::Display for Milli {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// One stream to 10.0.2.2:`port` from local port `local`.
#[allow(clippy::too_many_arguments)]
fn stream<T: Expire>(
    p: &mut Phase<'_, T>,
    iface: &mut Interface,
    sockets: &mut SocketSet<'_>,
    h: SocketHandle,
    port: u16,
    local: u16,
    bytes: u32,
    name: &str,
    split: Split,
) -> StreamResult {
    p.dev.inner_mut().set_inflight_limit(TSQ_FRAMES);
    let mut out = StreamResult {
        bytes,
        ..StreamResult::default()
    };
    let s = sockets.get_mut::<tcp::Socket>(h);
    if s.connect(iface.context(), (GATEWAY, port), local).is_err() {
        println!(Uart0, "stream {name}: connect refused");
        return out;
    }
    let deadline = p.time.now() + STEP_TIMEOUT_S * 1000 * TICKS_PER_MS * 6;
    let mut chunk = [0u8; 1024];
    let mut sent = 0u32;
    let mut start: Option<u64> = None;
    let mut end = None;
    let (ti0, ri0, pr0) = (
        IRQ_TI.load(Ordering::Relaxed),
        IRQ_RI.load(Ordering::Relaxed),
        GT_PROGRAMS.load(Ordering::Relaxed),
    );
    let snap0 = Snap::take(p);
    // The split's second interface, and the counters at the switch.
    let mut off_iface: Option<Interface> = None;
    let mut switch: Option<Snap> = None;
    while p.time.now() < deadline {
        let ifc = match off_iface.as_mut() {
            Some(i) => i,
            None => &mut *iface,
        };
        p.poll(ifc, sockets);
        let s = sockets.get_mut::<tcp::Socket>(h);
        if start.is_none() && s.state() == tcp::State::Established {
            start = Some(p.time.now());
        }
        while sent < bytes && s.can_send() {
            let n = (bytes - sent).min(chunk.len() as u32) as usize;
            for (i, b) in chunk[..n].iter_mut().enumerate() {
                *b = (sent as usize + i) as u8;
            }
            match s.send_slice(&chunk[..n]) {
                Ok(0) | Err(_) => break,
                Ok(k) => sent += k as u32,
            }
        }
        if sent == bytes && s.send_queue() == 0 && end.is_none() {
            end = Some(p.time.now());
            s.close();
        }
        if end.is_some() && !s.is_open() {
            break;
        }
        // The split: from here on the ring leaves CIC 0 and smoltcp computes the checksums
        // (a fresh interface reads the device's capabilities again).
        if split == Split::Offload && switch.is_none() && sent >= bytes / 2 {
            switch = Some(Snap::take(p));
            out.first_half_offload = p.dev.inner_mut().tx().checksum_offload();
            p.dev.inner_mut().tx().set_checksum_offload(Offload::Off);
            off_iface = Some(interface_like(iface, p));
        }
    }
    let snap1 = Snap::take(p);
    let whole = snap0.until(snap1);
    out.dev = whole.dev;
    out.cost = whole.cost;
    out.irq_tx = whole.irq_tx;
    out.irq_rx = whole.irq_rx;
    out.halves = switch.map(|at| [snap0.until(at), at.until(snap1)]);
    out.ti = IRQ_TI.load(Ordering::Relaxed) - ti0;
    out.ri = IRQ_RI.load(Ordering::Relaxed) - ri0;
    out.programs = GT_PROGRAMS.load(Ordering::Relaxed).wrapping_sub(pr0);
    let s = sockets.get_mut::<tcp::Socket>(h);
    if !matches!(s.state(), tcp::State::Closed | tcp::State::TimeWait) {
        s.abort();
        let ifc = match off_iface.as_mut() {
            Some(i) => i,
            None => &mut *iface,
        };
        p.poll(ifc, sockets);
    }
    match (start, end) {
        (Some(a), Some(b)) => {
            out.ticks = b - a;
            out.ok = true;
            println!(
                Uart0,
                "stream {name}: {bytes} bytes in {} us guest time = {} B/s; frames tx {} rx {}, TI {} RI {}, comparator programmings {}",
                out.ticks / (TICKS_PER_MS / 1000),
                out.bytes_per_s(),
                out.dev.tx_frames,
                out.dev.rx_frames,
                out.ti,
                out.ri,
                out.programs
            );
        }
        _ => println!(
            Uart0,
            "stream {name}: incomplete ({sent} of {bytes} bytes queued): FAIL"
        ),
    }
    out
}
