//! embassy-net over `stmmac-coalesce` on an embassy executor, on QEMU's `npcm750-evb`,
//! against QEMU's user-mode network.
//!
//! The board of `npcm750-net` (GMAC0 at 0xf080_2000, GIC ID 46; the MPCore GIC; rings over
//! `DmaMemory` statics in a Normal non-cacheable megabyte, MMU on), with the polling loop
//! replaced by an executor:
//!
//! - **embassy-executor**: one `raw::Executor` on CPU0 with this file's `__pender`, which
//!   only sets a flag. The idle loop polls the executor when the flag is set, and otherwise
//!   masks IRQs, looks at the flag again and sleeps in `wfi` (a pend after the check leaves
//!   the interrupt that pended it pending, so `wfi` returns at once). Nothing polls the
//!   device: the runner of embassy-net is woken by the driver's wakers only.
//! - **embassy-time** on the Cortex-A9 global timer: hwtimer-core's `TimeDriver` on CPU0's
//!   banked comparator (`CpuBound`, so a programming from another CPU is refused) and the
//!   64-bit global counter (100 MHz under QEMU), embassy tick rate the counter's own
//!   100 MHz (`tick-hz-100_000_000`): an embassy tick is a counter tick, so the driver
//!   converts nothing and rounds nothing. Its interrupt is PPI 27, CPU0's own.
//! - **embassy-net 0.9** over `stmmac_coalesce::embassy_net`: the rings in a `NetState`
//!   static. GMAC0's interrupt handler takes the DMA events (`Gmac3::take_events`) and hands
//!   them to `NetState::on_dma_interrupt`, which services the rings and wakes the runner.
//! - **the TX cleanup timer** runs from an interrupt: an `HrTimers` queue on CPU0's private
//!   timer (MPCore +0x600, PPI 29, the down-counter at the global timer's 100 MHz; the one
//!   comparator CPU0 has is embassy-time's) with the global counter as its time base. Its
//!   handler calls `HrTimers::on_interrupt`, whose callback for the ring's timer returns
//!   `NetState::on_tx_timer`.
//!
//! CPU1 stays parked, as on `npcm750-net` (the machine runs with `-smp 2`).
//!
//! What it does, as `npcm750-net` does (and `cargo xtask qemu` checks the same way):
//!
//! 1. **DHCPv4** from slirp's server (embassy-net's DHCP client): `dhcp: 10.0.2.15`.
//! 2. **ICMP echo** with the gateway 10.0.2.2 through an embassy-net ICMP socket.
//! 3. **TCP echo on port 7** (four tasks, each a listening socket), until a connection to
//!    **port 9** or [`IDLE_TIMEOUT_S`] seconds of guest time without echo traffic; it
//!    prints `tcp-echo: bytes=<n> connections=<c>`.
//! 4. If the port-9 connection carries `sink <port> <bytes>`, **the TX-cleanup TCP stream** to
//!    10.0.2.2:`<port>` four times, each on rings of its own after a DMA soft reset: with a
//!    32-descriptor TX ring, `tx-frames 25`, `tx-usecs 1000` and TX cleanup on (a) a
//!    jiffies timer (a 10 ms tick from the private-timer queue, firing the timer at the
//!    first tick at or after its deadline, as the timer wheel does), (b) the hrtimer
//!    re-armed on every packet, (c) the hrtimer armed once; then (d) with per-frame TX
//!    interrupts (`tx-frames 1`).
//!
//! # Measurements (`bench:` lines)
//!
//! Guest time is the global counter (100 MHz); under `-icount shift=0` one instruction is
//! one nanosecond. QEMU transmits synchronously and has no line rate: the ratios between
//! the strategies are the result.
//!
//! - `qemu_embassy_tcp_stream_{jiffies,rearm,arm_once}`: bytes per second of guest time,
//!   from the connection established to the last byte acknowledged, and their ratios
//!   (`_arm_once_over_jiffies`, `_arm_once_over_rearm`, `_rearm_over_jiffies`, as
//!   `npcm750-net` names its smoltcp ones). The streams run with the adapter's in-flight
//!   limit at [`TSQ_FRAMES`] frames (`NetState::set_inflight_limit`, Linux's TSQ floor of two
//!   packets below TCP), so the frames the driver has not reclaimed gate the stream, as in
//!   the seed.
//! - `qemu_embassy_path_insns_per_frame_{tx,rx}`: the whole path per frame over the
//!   armed-once stream, in PMU instructions (event 0x08), the IRQ handler's own excluded
//!   from the thread-side spans and counted once on its side. **TX**: every `transmit()`
//!   call of embassy-net's runner, empty polls included; each TX token's `consume` without
//!   embassy-net's closure (which builds the frame in the DMA buffer): reservation, commit,
//!   the cleanup-timer decision, the poll demand; the cleanup timer's interrupts (the
//!   queue, `NetState::on_tx_timer`, reclaim, re-arm); the GMAC interrupts with TI only,
//!   and half of those with TI and RI. **RX**: every `receive()` call, empty polls
//!   included (the adapter's copy of a frame into its scratch buffer is in it); the GMAC
//!   interrupts with RI (or RU) only and the other half of the shared ones (RX service,
//!   RX poll demand, refill). Divided by the frames sent and received. Not counted: the
//!   runtime's IRQ entry and exit around the handler (a dozen instructions), the executor,
//!   embassy-net and embassy-time.
//!
//!   Figures (the same at shift 0 and 4, to a few instructions): **TX 1060–1070** per frame,
//!   of which the driver calls ~708 (the tokens' `consume` ~504: 98805 over 196 frames;
//!   `transmit()` ~204) and the interrupts ~353–362 (over five runs);
//!   **RX ~970**. `consume` was 2311 (TX 2886) while the adapter moved the TX ring out of
//!   its `NetState` and back for every token: five `__aeabi_memcpy8` calls of the
//!   254–256-byte ring (two in taking it out, one into the token's guard, two in putting
//!   it back; compiler-builtins copies a word in 5 instructions, so ~320 each, ~1600 in
//!   all), found in the disassembly. The tokens now reserve a `TxSlot` and the ring stays
//!   put (see the adapter's "Tokens"). What is left over npcm750-net's driver
//!   TX path (~304 with smoltcp) is the adapter's two critical sections and its guard.
//!
//! # Checksum offload
//!
//! QEMU's npcm-gmac announces TX checksum insertion (HW_FEATURE's TXCOESEL) and a type-2 RX
//! engine; it honours CIC on TX (1: the IPv4 header checksum, 2 and 3: also TCP and UDP
//! with the pseudo-header; never ICMP) and checks nothing on RX (RDES0 never reports a
//! checksum error).
//!
//! - **TX: on** ([`TX_OFFLOAD`] = `Offload::IfDetected`): every ring sets CIC 3 on every
//!   frame, and the adapter's capabilities tell embassy-net to leave the IPv4, TCP and UDP
//!   checksums to the MAC (ICMP's it computes itself). A missing insertion would fail the
//!   run: slirp drops segments with a bad checksum, and the xtask client and sink check
//!   every byte.
//! - **RX: off** ([`RX_OFFLOAD`] = `Offload::Off`): nobody would have verified a frame the
//!   stack was told to trust; embassy-net verifies every RX checksum.
//!
//! The line `checksum offload: ...; embassy-net capabilities: ...` gives what the rings
//! enabled and the capabilities embassy-net was given (read once, by `embassy_net::new`;
//! every ring set of the streams enables the same), asserted in `expected.txt`.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

use a9_global_timer::{GlobalTimer, GtComparator, GtCounter, regs as gt_regs};
use embassy_executor::{SpawnToken, Spawner, raw};
use embassy_net::icmp::{IcmpEndpoint, IcmpSocket, PacketMetadata};
use embassy_net::tcp::{State, TcpSocket};
use embassy_net::{IpAddress, Ipv4Address, Runner, Stack, StackResources};
use embassy_time::{Duration, Timer, with_timeout};
use fw_common::arm::gic::{self, Gic};
use fw_common::arm::mmu::{self, FlatMap, SECTION_SIZE};
use fw_common::arm::npcm7xx::Uart0;
use fw_common::arm::npcm7xx::{DRAM_BASE, DRAM_LEN};
use fw_common::arm::pmu;
use fw_common::arm::smp;
use fw_common::arm::{self};
use fw_common::counted::Counted;
use fw_common::{CsCell, StaticCell, mmio, println, verdict};
use hwtimer_core::clockevent::{Capabilities, ClockEvent};
use hwtimer_core::cpu::{CpuBound, CpuLocal, NativeCpu};
use hwtimer_core::embassy::TimeDriver;
use hwtimer_core::{ConfigError, HrTimers, Mmio, Monotonic, QueueError, Restart};
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::embassy_net::{Driver, NetState};
use stmmac_coalesce::mdio_bus::PhyAddr;
use stmmac_coalesce::{
    CleanupTimer, CoalesceConfig, Coherent, DmaConfig, DmaMemory, DmaRegion, Dwmac, Error,
    FrameFilter, Gmac3, IdentityMap, LinkState, MacConfig, Offload, QueueTimer, RxConfig, RxRing,
    TimerStrategy, TxConfig, TxRing, gmac3::regs, ring_bytes,
};

/// GMAC0 and its register window; GIC ID 46 (SPI 14) (docs/qemu.md).
const GMAC0_BASE: usize = 0xf080_2000;
const GMAC_LEN: usize = 0x1060;
const IRQ_GMAC0: u32 = 46;
/// The global timer's interrupt (PPI 11): CPU0's comparator, embassy-time's.
const IRQ_GT: u32 = 27;
/// The private timer's interrupt (PPI 13): CPU0's private timer, the TX cleanup queue's.
const IRQ_PT: u32 = 29;

/// QEMU's default MAC for the first NIC, and slirp's gateway.
const MAC_ADDR: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
const GATEWAY: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);

/// MPCore private region: GIC CPU interface +0x100, global timer +0x200, private timer
/// +0x600, distributor +0x1000.
const MPCORE_BASE: usize = gt_regs::NPCM750_MPCORE_BASE;
const GIC_CPU: usize = MPCORE_BASE + 0x100;
const GIC_DIST: usize = MPCORE_BASE + 0x1000;
/// The private timer's registers: load, counter, control, interrupt status.
const PT_LOAD: usize = MPCORE_BASE + 0x600;
const PT_CONTROL: usize = MPCORE_BASE + 0x608;
const PT_STATUS: usize = MPCORE_BASE + 0x60c;
/// Control: enable, IRQ enable (prescaler 0, no auto-reload: one-shot).
const PT_ENABLE: u32 = 1;
const PT_IRQ_ENABLE: u32 = 1 << 2;
/// Global-timer (and private-timer) rate under QEMU at prescaler 0.
const GT_HZ: u32 = gt_regs::QEMU_INPUT_HZ;
const TICKS_PER_MS: u64 = GT_HZ as u64 / 1000;
const TICKS_PER_US: u64 = GT_HZ as u64 / 1_000_000;

/// Ring sizes, as npcm750-net: the seed's 32-descriptor TX ring of full-frame buffers; 48
/// RX descriptors of 512 bytes, so full-size segments span three descriptors.
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
/// TX checksum insertion on every ring (see "Checksum offload"): HW_FEATURE's TXCOESEL
/// decides, and QEMU's npcm-gmac sets it and inserts the IPv4, TCP and UDP checksums for
/// CIC 3.
const TX_OFFLOAD: Offload = Offload::IfDetected;
/// RX checksum checking off: QEMU's npcm-gmac checks no RX checksum (see "Checksum
/// offload").
const RX_OFFLOAD: Offload = Offload::Off;

/// Guest seconds without echo traffic after which the echo phase ends by itself.
const IDLE_TIMEOUT_S: u64 = 20;
/// Guest seconds the DHCP and ICMP steps may take each.
const STEP_TIMEOUT_S: u64 = 10;
/// Guest seconds one stream may take.
const STREAM_TIMEOUT_S: u64 = 60;
/// Bytes the stream sends at most (the host asks for its size).
const MAX_STREAM: u32 = 16 << 20;
/// Echo tasks (listening sockets on port 7).
const ECHO_TASKS: usize = 4;
const ECHO_BUF: usize = 8192;
const STREAM_BUF: usize = 16384;

// DMA memory, one TX and one RX region per ring set, in the `.dma` megabyte at DMA_BASE
// (memory.x), zeroed by `run` before use and mapped Normal non-cacheable: the map is flat,
// so CPU addresses are bus addresses (`IdentityMap`), and uncached: `Coherent` (QEMU models
// no L2C-310; on silicon the rings need `WithSync` with a `Pl310Sync`, see stmmac-coalesce's
// `dma` docs).
#[unsafe(link_section = ".dma")]
static TX_MEM: [DmaMemory<TX_BYTES>; SETS] = [const { DmaMemory::new() }; SETS];
#[unsafe(link_section = ".dma")]
static RX_MEM: [DmaMemory<RX_BYTES>; SETS] = [const { DmaMemory::new() }; SETS];

/// The DMA megabyte (memory.x `.dma`, checked there), mapped Normal non-cacheable.
const DMA_BASE: u32 = 0x0120_0000;
/// The translation table: DRAM Normal write-back shareable (the executor's, the wakers'
/// and `DmaMemory::take`'s exclusives need Normal memory), the DMA megabyte Normal
/// non-cacheable, the rest Device.
static MAP: FlatMap = FlatMap::new(DRAM_BASE, DRAM_LEN).with_uncached(DMA_BASE, SECTION_SIZE);

/// The global timer's register window, as the drivers see it.
type Bus = Mmio<u32>;
/// The global timer's 64-bit counter: the time base of embassy-time, the queue and the
/// streams.
type Time = GtCounter<'static, Bus>;
/// CPU0's banked global-timer comparator, bound to CPU0, counting its programmings in
/// [`GT_PROGRAMS`].
type GtEvent = Counted<CpuBound<GtComparator<'static, Bus>, NativeCpu>>;
/// CPU0's private timer, bound to CPU0, counting its programmings in [`PT_PROGRAMS`].
type PtEvent = Counted<CpuBound<PrivateTimer, NativeCpu>>;
/// The TX cleanup timers' queue.
type Timers = HrTimers<PtEvent, Time, 8>;
/// An hrtimer cleanup timer: a slot of [`Timers`].
type HrTimer = QueueTimer<'static, PtEvent, Time, 8>;
type Mac = Gmac3<Bus>;
/// The embassy-net driver over the rings in [`NET`], its calls counted ([`Probe`]).
type NetDriver = Probe<Driver<'static, Mac, TxTimer, Coherent>>;

embassy_time_driver::time_driver_impl!(
    static DRIVER: TimeDriver<GtEvent, Time, 16> = TimeDriver::new()
);

// SAFETY: the distributor and CPU interface of the NPCM7xx MPCore region; only CPU0 runs.
static GIC: Gic = unsafe { Gic::new(GIC_DIST, GIC_CPU) };
/// GMAC0. The interrupt handler and the tasks share it by reference (its read-modify-writes
/// take their own lock).
// SAFETY: the GMAC0 register block; this firmware is its only user.
static MAC: Mac = Gmac3::new(unsafe { Mmio::<u32>::new(GMAC0_BASE, GMAC_LEN) });
/// The rings, shared by the embassy-net driver, GMAC0's handler and the cleanup timer.
static NET: NetState<TxTimer, Coherent> = NetState::new();
/// The global-timer driver, `'static` so its parts can live in the drivers' statics.
static GT: StaticCell<GlobalTimer<Bus>> = StaticCell::new();
static TIMERS: StaticCell<Timers> = StaticCell::new();
/// [`TIMERS`] for the interrupt handler (set once before the private timer's interrupt is
/// enabled, never changed).
static TIMERS_PTR: AtomicPtr<Timers> = AtomicPtr::new(core::ptr::null_mut());
/// The executor (`poll` needs `&'static`); the `static_cell` crate's cell, because an
/// executor is not `Send`.
static EXECUTOR: static_cell::StaticCell<raw::Executor> = static_cell::StaticCell::new();
/// The executor has work (set by the pender, cleared by the idle loop before polling).
static PENDING: AtomicBool = AtomicBool::new(false);
/// The main task finished; [`RESULT`] holds its verdict.
static DONE: AtomicBool = AtomicBool::new(false);
static RESULT: AtomicBool = AtomicBool::new(false);

/// Queue slot index + 1 of the current TX ring's hrtimer (0: none).
static TX_SLOT: AtomicUsize = AtomicUsize::new(0);
/// Queue slot index + 1 of the jiffies tick (0: none), and whether it keeps ticking.
static JIFFY_SLOT: AtomicUsize = AtomicUsize::new(0);
static JIFFY_ON: AtomicBool = AtomicBool::new(false);
/// The jiffies timer's deadline (in jiffies), `None` when not queued.
static JIFFY_DEADLINE: CsCell<Option<u64>> = CsCell::new(None);

/// Global-timer comparator (embassy-time) programmings so far.
static GT_PROGRAMS: AtomicU32 = AtomicU32::new(0);
/// Private-timer (TX cleanup queue) programmings so far.
static PT_PROGRAMS: AtomicU32 = AtomicU32::new(0);
/// GMAC interrupts with TI, with RI; cleanup-queue interrupts; others.
static IRQ_TI: AtomicU32 = AtomicU32::new(0);
static IRQ_RI: AtomicU32 = AtomicU32::new(0);
static IRQ_TIMER: AtomicU32 = AtomicU32::new(0);
static IRQ_OTHER: AtomicU32 = AtomicU32::new(0);
/// PMU instructions in the IRQ handler; of them, those of the network paths (GMAC0 split
/// by TI / RI, the cleanup timer to TX).
static IRQ_INSNS: AtomicU32 = AtomicU32::new(0);
static PATH_IRQ_TX: AtomicU32 = AtomicU32::new(0);
static PATH_IRQ_RX: AtomicU32 = AtomicU32::new(0);
/// PMU instructions in the driver's calls from embassy-net ([`Probe`]).
static PATH_TX: AtomicU32 = AtomicU32::new(0);
static PATH_RX: AtomicU32 = AtomicU32::new(0);
/// `transmit()` and `receive()` calls, and those that returned no token (empty polls).
static TX_CALLS: AtomicU32 = AtomicU32::new(0);
/// Of [`PATH_TX`], the TX tokens' `consume` (without embassy-net's closure).
static PATH_TX_CONSUME: AtomicU32 = AtomicU32::new(0);
static TX_EMPTY: AtomicU32 = AtomicU32::new(0);
static RX_CALLS: AtomicU32 = AtomicU32::new(0);
static RX_EMPTY: AtomicU32 = AtomicU32::new(0);
/// Pends of the executor, and `wfi`s of the idle loop.
static PENDS: AtomicU32 = AtomicU32::new(0);
static SLEEPS: AtomicU32 = AtomicU32::new(0);

/// Echo totals: bytes echoed, connections that carried a byte, and the guest time of the
/// last echo activity (embassy-time microseconds).
static ECHO_BYTES: CsCell<u64> = CsCell::new(0);
static ECHO_CONNECTIONS: AtomicU32 = AtomicU32::new(0);
static ECHO_LAST: CsCell<u64> = CsCell::new(0);

fw_common::arm_board! {
    name: "npcm750-embassy-net",
    console: Uart0,
    main: run,
    irq: on_irq,
}

fw_common::critical_section_impl!();

/// CPU0's private timer as a oneshot clockevent: a 32-bit down-counter at the global
/// timer's rate (prescaler 0) that raises PPI 29 when it reaches zero. Banked per CPU: the
/// type is [`CpuLocal`], and [`CpuBound`] keeps every other CPU off it.
#[derive(Debug)]
struct PrivateTimer;

// SAFETY: it holds nothing; its registers are banked per CPU, and `CpuBound` runs every
// method that touches them on CPU0 only.
unsafe impl CpuLocal for PrivateTimer {}

impl ClockEvent for PrivateTimer {
    /// Deltas 1..=2^32 - 1 at the global timer's rate; not phase-locked (its own counter).
    fn capabilities(&self) -> Capabilities {
        Capabilities::new(GT_HZ, 1, u64::from(u32::MAX))
    }

    /// Stop, load `delta` (the counter takes the load value), start one-shot with its
    /// interrupt enabled. The status flag is left alone.
    fn set_next_event(&mut self, delta: u64) -> Result<(), hwtimer_core::Error> {
        let delta = u32::try_from(delta)
            .ok()
            .filter(|d| *d != 0)
            .ok_or(ConfigError::DeltaOutOfRange)?;
        // SAFETY: CPU0's private-timer registers (CpuBound); nothing else uses them.
        unsafe {
            mmio::write32(PT_CONTROL, 0);
            mmio::write32(PT_LOAD, delta);
            mmio::write32(PT_CONTROL, PT_ENABLE | PT_IRQ_ENABLE);
        }
        Ok(())
    }

    /// Stopped, interrupt disabled, the status flag cleared (W1C).
    fn shutdown(&mut self) {
        // SAFETY: as in `set_next_event`.
        unsafe {
            mmio::write32(PT_CONTROL, 0);
            mmio::write32(PT_STATUS, 1);
        }
    }

    /// The event flag; cleared (W1C) when set.
    fn ack(&mut self) -> bool {
        // SAFETY: as in `set_next_event`.
        let fired = unsafe { mmio::read32(PT_STATUS) } & 1 != 0;
        if fired {
            // SAFETY: as above.
            unsafe { mmio::write32(PT_STATUS, 1) };
        }
        fired
    }
}

/// The TX ring's cleanup timer: an hrtimer (a slot of the private-timer queue) or the
/// pre-seed jiffies timer.
enum TxTimer {
    Hr(HrTimer),
    Jiffy(JiffyTimer),
}

/// The pre-seed cleanup timer: a `timer_list` on a HZ = 100 jiffies clock. Its deadline is
/// [`JIFFY_DEADLINE`]; the jiffies tick (a periodic slot of the private-timer queue, from
/// its interrupt) fires it at the first tick at or after the deadline.
struct JiffyTimer {
    time: Time,
}

impl CleanupTimer for TxTimer {
    fn freq_hz(&self) -> Result<u32, Error> {
        match self {
            Self::Hr(t) => t.freq_hz(),
            Self::Jiffy(_) => Ok(100),
        }
    }
    fn now(&self) -> Result<u64, Error> {
        match self {
            Self::Hr(t) => t.now(),
            Self::Jiffy(j) => Ok(j.time.now() / JIFFY_TICKS),
        }
    }
    fn is_queued(&self) -> bool {
        match self {
            Self::Hr(t) => t.is_queued(),
            Self::Jiffy(_) => JIFFY_DEADLINE.with(|d| d.is_some()).unwrap_or(false),
        }
    }
    fn start(&self, deadline: u64) -> Result<(), Error> {
        match self {
            Self::Hr(t) => t.start(deadline),
            Self::Jiffy(_) => JIFFY_DEADLINE
                .with(|d| *d = Some(deadline))
                .ok_or(Error::RingSize),
        }
    }
    fn restart(&self, deadline: u64) -> Result<(), Error> {
        match self {
            Self::Hr(t) => t.restart(deadline),
            Self::Jiffy(_) => JIFFY_DEADLINE
                .with(|d| *d = Some(deadline))
                .ok_or(Error::RingSize),
        }
    }
    fn cancel(&self) -> Result<bool, Error> {
        match self {
            Self::Hr(t) => t.cancel(),
            Self::Jiffy(_) => Ok(JIFFY_DEADLINE.with(|d| d.take().is_some()).unwrap_or(false)),
        }
    }
}

/// The queue, once [`TIMERS_PTR`] is set.
fn timers() -> Option<&'static Timers> {
    // SAFETY: `net` stores a `&'static Timers` (from `TIMERS.init`) once and never again.
    unsafe { TIMERS_PTR.load(Ordering::Acquire).cast_const().as_ref() }
}

/// An expiry of the private-timer queue (from its interrupt): the TX ring's hrtimer, or the
/// jiffies tick.
fn on_expiry(slot: usize, now: u64) -> Restart {
    if slot + 1 == TX_SLOT.load(Ordering::Relaxed) {
        return NET.on_tx_timer(&MAC, now);
    }
    if slot + 1 != JIFFY_SLOT.load(Ordering::Relaxed) {
        return Restart::No;
    }
    let jiffies = now / JIFFY_TICKS;
    let due = JIFFY_DEADLINE
        .with(|d| match *d {
            Some(at) if jiffies >= at => {
                *d = None;
                true
            }
            _ => false,
        })
        .unwrap_or(false);
    if due && let Restart::At(at) = NET.on_tx_timer(&MAC, jiffies) {
        JIFFY_DEADLINE.with(|d| *d = Some(at));
    }
    if JIFFY_ON.load(Ordering::Relaxed) {
        Restart::At((jiffies + 1) * JIFFY_TICKS)
    } else {
        Restart::No
    }
}

/// Adds `n` to `counter` (one writer per counter: the thread, or the IRQ handler).
fn add(counter: &AtomicU32, n: u32) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(n),
        Ordering::Relaxed,
    );
}

/// The IRQ handler (SYS mode, IRQs masked): GMAC0's DMA interrupt into the rings, the
/// global timer into embassy-time, the private timer into the cleanup queue. Its own PMU
/// instructions go to [`IRQ_INSNS`], and the network ones also to [`PATH_IRQ_TX`] /
/// [`PATH_IRQ_RX`].
fn on_irq() {
    let t0 = pmu::instructions();
    let path = on_irq_counted();
    let spent = pmu::instructions().wrapping_sub(t0);
    add(&IRQ_INSNS, spent);
    match path {
        IrqPath::Tx => add(&PATH_IRQ_TX, spent),
        IrqPath::Rx => add(&PATH_IRQ_RX, spent),
        IrqPath::Both => {
            add(&PATH_IRQ_TX, spent / 2);
            add(&PATH_IRQ_RX, spent - spent / 2);
        }
        IrqPath::None => {}
    }
}

/// Which network path an interrupt served (for the per-frame cost).
enum IrqPath {
    Tx,
    Rx,
    Both,
    None,
}

fn on_irq_counted() -> IrqPath {
    let iar = GIC.acknowledge();
    let id = gic::iar_id(iar);
    let path = match id {
        IRQ_GMAC0 => {
            let events = MAC.take_events();
            let (tx, rx) = (events.tx_done(), events.rx_ready() || events.rx_no_buffer());
            if events.tx_done() {
                IRQ_TI.fetch_add(1, Ordering::Relaxed);
            }
            if events.rx_ready() {
                IRQ_RI.fetch_add(1, Ordering::Relaxed);
            }
            NET.on_dma_interrupt(&MAC, events);
            match (tx, rx) {
                (true, true) => IrqPath::Both,
                (true, false) => IrqPath::Tx,
                _ => IrqPath::Rx,
            }
        }
        IRQ_GT => {
            DRIVER.on_interrupt();
            IrqPath::None
        }
        IRQ_PT => {
            IRQ_TIMER.fetch_add(1, Ordering::Relaxed);
            if let Some(t) = timers() {
                // A refused programming leaves the queued timers with nothing armed: make
                // the recovery call. If that is refused too, the next queue operation (the
                // TX path arms or moves the cleanup timer) programs it again.
                if let Err(QueueError::Hardware(_)) =
                    t.on_interrupt(|slot, now| on_expiry(slot.index(), now))
                {
                    let _ = t.reprogram();
                }
            }
            IrqPath::Tx
        }
        gic::SPURIOUS_ID => return IrqPath::None,
        _ => {
            let _ = GIC.disable(id); // an ID the GIC signalled (IAR): always implemented
            IRQ_OTHER.fetch_add(1, Ordering::Relaxed);
            IrqPath::None
        }
    };
    GIC.end_of_interrupt(iar);
    path
}

/// The PMU instruction counter without the IRQ handler's instructions (read again when an
/// interrupt came between the two loads), as npcm750-net's probe.
fn insns() -> u32 {
    loop {
        let irq = IRQ_INSNS.load(Ordering::Relaxed);
        let now = pmu::instructions();
        if IRQ_INSNS.load(Ordering::Relaxed) == irq {
            return now.wrapping_sub(irq);
        }
    }
}

/// The driver, its calls counted in PMU instructions (interrupts excluded): `receive()`
/// (empty polls included, and the adapter's copy of the frame into its scratch buffer) to
/// [`PATH_RX`]; `transmit()` (empty polls included) and a TX token's `consume` without
/// embassy-net's closure (reserve, commit, handover, poll demand, the cleanup-timer
/// decision) to [`PATH_TX`].
struct Probe<D>(D);

/// A TX token of [`Probe`].
struct ProbeTx<T>(T);

impl<T: embassy_net::driver::TxToken> embassy_net::driver::TxToken for ProbeTx<T> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let t0 = insns();
        let mut stack = 0u32;
        let r = self.0.consume(len, |buf| {
            let a = insns();
            let r = f(buf);
            stack = insns().wrapping_sub(a);
            r
        });
        let spent = insns().wrapping_sub(t0).wrapping_sub(stack);
        add(&PATH_TX, spent);
        add(&PATH_TX_CONSUME, spent);
        r
    }
}

impl<D: embassy_net::driver::Driver> embassy_net::driver::Driver for Probe<D> {
    type RxToken<'a>
        = D::RxToken<'a>
    where
        Self: 'a;
    type TxToken<'a>
        = ProbeTx<D::TxToken<'a>>
    where
        Self: 'a;

    fn receive(
        &mut self,
        cx: &mut core::task::Context<'_>,
    ) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let t0 = insns();
        let r = self.0.receive(cx);
        add(&PATH_RX, insns().wrapping_sub(t0));
        add(&RX_CALLS, 1);
        add(&RX_EMPTY, u32::from(r.is_none()));
        r.map(|(rx, tx)| (rx, ProbeTx(tx)))
    }

    fn transmit(&mut self, cx: &mut core::task::Context<'_>) -> Option<Self::TxToken<'_>> {
        let t0 = insns();
        let r = self.0.transmit(cx);
        add(&PATH_TX, insns().wrapping_sub(t0));
        add(&TX_CALLS, 1);
        add(&TX_EMPTY, u32::from(r.is_none()));
        r.map(ProbeTx)
    }

    fn link_state(&mut self, cx: &mut core::task::Context<'_>) -> embassy_net::driver::LinkState {
        self.0.link_state(cx)
    }

    fn capabilities(&self) -> embassy_net::driver::Capabilities {
        self.0.capabilities()
    }

    fn hardware_address(&self) -> embassy_net::driver::HardwareAddress {
        self.0.hardware_address()
    }
}

/// embassy-executor's pender (no `executor-*` feature defines one): one executor, on CPU0.
#[unsafe(export_name = "__pender")]
fn pender(_context: *mut ()) {
    PENDS.fetch_add(1, Ordering::Relaxed);
    PENDING.store(true, Ordering::SeqCst);
}

/// Runs the executor until the main task is done: polls it when its flag is set, sleeps in
/// `wfi` otherwise.
fn run_executor(executor: &'static raw::Executor) {
    loop {
        if DONE.load(Ordering::Acquire) {
            return;
        }
        if PENDING.swap(false, Ordering::SeqCst) {
            // SAFETY: only this loop polls the executor, never from the pender or an
            // interrupt handler, so never re-entrantly.
            unsafe { executor.poll() };
            continue;
        }
        // Masked, so a pend between the check and `wfi` leaves its interrupt pending, which
        // `wfi` returns on at once.
        arm::irq_disable();
        if !PENDING.load(Ordering::SeqCst) {
            SLEEPS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: waits for an interrupt; no memory effect.
            unsafe { core::arch::asm!("wfi", options(nomem, nostack)) };
        }
        // SAFETY: `on_irq` serves every interrupt; no critical section is held.
        unsafe { arm::irq_enable() };
    }
}

fn run() -> bool {
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
    let spawner = match setup() {
        Ok(s) => s,
        Err(e) => {
            println!(Uart0, "error: {e:?}");
            return false;
        }
    };
    let _ = spawner;
    run_executor(executor());
    arm::irq_disable();
    let ok = RESULT.load(Ordering::Acquire);
    println!(
        Uart0,
        "executor: {} pends, {} wfi sleeps; interrupts: GMAC TI {} RI {}, cleanup timer {}, embassy-time {} programmings, other {}",
        PENDS.load(Ordering::Relaxed),
        SLEEPS.load(Ordering::Relaxed),
        IRQ_TI.load(Ordering::Relaxed),
        IRQ_RI.load(Ordering::Relaxed),
        IRQ_TIMER.load(Ordering::Relaxed),
        GT_PROGRAMS.load(Ordering::Relaxed),
        IRQ_OTHER.load(Ordering::Relaxed)
    );
    ok && IRQ_OTHER.load(Ordering::Relaxed) == 0
}

/// The executor (created on first use).
fn executor() -> &'static raw::Executor {
    static PTR: AtomicPtr<raw::Executor> = AtomicPtr::new(core::ptr::null_mut());
    // SAFETY: set below from a `&'static` and never changed.
    if let Some(e) = unsafe { PTR.load(Ordering::Acquire).cast_const().as_ref() } {
        return e;
    }
    let e: &'static raw::Executor = EXECUTOR.init(raw::Executor::new(core::ptr::null_mut()));
    PTR.store(core::ptr::from_ref(e).cast_mut(), Ordering::Release);
    e
}

/// Spawns `token`, or reports that it failed.
fn spawn<S>(
    spawner: Spawner,
    token: Result<SpawnToken<S>, embassy_executor::SpawnError>,
) -> Result<(), Error> {
    match token {
        Ok(token) => {
            spawner.spawn(token);
            Ok(())
        }
        Err(_) => {
            println!(Uart0, "spawn failed");
            Err(Error::RingSize)
        }
    }
}

/// Ring set `i`'s DMA regions (each handed out once).
fn regions(i: usize) -> Result<(DmaRegion, DmaRegion), Error> {
    let tx = TX_MEM.get(i).and_then(|m| m.take());
    let rx = RX_MEM.get(i).and_then(|m| m.take());
    tx.zip(rx).ok_or(Error::RingSize)
}

/// With IRQs masked: DMA soft reset (QEMU's npcm-gmac only returns its current-descriptor
/// pointers to the ring bases on a reset), rings on set `set` with `timer` as the TX
/// cleanup timer, installed in [`NET`] (the old rings' timer cancelled first); then IRQs on.
fn bring_up(
    link: LinkState,
    set: usize,
    coalesce: CoalesceConfig,
    strategy: TimerStrategy,
    timer: TxTimer,
) -> Result<(), Error> {
    arm::irq_disable();
    let r = bring_up_masked(link, set, coalesce, strategy, timer);
    // SAFETY: `on_irq` serves every interrupt; no critical section is held here.
    unsafe { arm::irq_enable() };
    r
}

fn bring_up_masked(
    link: LinkState,
    set: usize,
    coalesce: CoalesceConfig,
    strategy: TimerStrategy,
    timer: TxTimer,
) -> Result<(), Error> {
    let _ = NET.with_tx(|tx| tx.timer().cancel());
    TX_SLOT.store(0, Ordering::Relaxed);
    MAC.soft_reset(pmu::Cycles)?;
    let setup = MAC.configure_dma(&DmaConfig {
        cache_line: LINE,
        csr_hz: CSR_HZ,
        ..DmaConfig::default()
    })?;
    MAC.init_mac(&MacConfig {
        address: MAC_ADDR,
        filter: FrameFilter::default(),
    });
    // SAFETY: the MMU maps everything flat (MAP) and the npcm750 has no IOMMU or DMA
    // offset; the GMAC's DMA sees every CPU address at the same bus address.
    let addr = unsafe { IdentityMap::new() };
    let (tx_mem, rx_mem) = regions(set)?;
    let slot = match &timer {
        TxTimer::Hr(t) => t.id().index() + 1,
        TxTimer::Jiffy(_) => 0,
    };
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
    // Every ring set alike: embassy-net reads the capabilities once, in `embassy_net::new`.
    tx.set_checksum_offload(TX_OFFLOAD);
    rx.set_checksum_offload(RX_OFFLOAD);
    // Each start reads DSL back: the DMA steps through the ring with the ring's stride.
    tx.try_start(&MAC)?;
    rx.try_start(&MAC)?;
    MAC.set_interrupts(regs::DMA_INTR_DEFAULT);
    NET.install(tx, rx);
    TX_SLOT.store(slot, Ordering::Relaxed);
    NET.set_link(&MAC, link);
    Ok(())
}

/// Bring-up to the spawned tasks: PMU, GMAC0, global timer and embassy-time, the cleanup
/// queue, the PHY, ring set 0, embassy-net.
fn setup() -> Result<Spawner, Error> {
    pmu::enable();
    println!(Uart0, "GMAC0 VERSION = {:#010x}", MAC.version());
    // SAFETY: the global timer window of this SoC's MPCore region; this firmware is its only
    // user and only CPU0 runs it (its banked comparator registers are CPU0's).
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    // QEMU's rate and compare rule (see npcm750-net).
    let gt: &'static GlobalTimer<Bus> =
        GT.init(GlobalTimer::new(bus, a9_global_timer::Config::qemu())?);
    gt.start()?;
    let time = gt.counter();
    GIC.init();
    // SAFETY: the firmware runs in SYS mode (PL1), where MPIDR can be read.
    let cpu = unsafe { NativeCpu::new() };
    DRIVER
        .init_static(
            Counted::new(CpuBound::new(gt.comparator()?, cpu), &GT_PROGRAMS),
            time,
        )
        .map_err(|_| Error::RingSize)?;
    // SAFETY: as above.
    let cpu = unsafe { NativeCpu::new() };
    let alarm = hwtimer_core::Alarm::new(
        Counted::new(CpuBound::new(PrivateTimer, cpu), &PT_PROGRAMS),
        time,
    )?;
    let timers: &'static Timers = TIMERS.init(HrTimers::new(alarm));
    TIMERS_PTR.store(core::ptr::from_ref(timers).cast_mut(), Ordering::Release);
    for id in [IRQ_GMAC0, IRQ_GT, IRQ_PT] {
        // Err only for an ID this GIC does not implement.
        GIC.enable(id, 0xa0, 1)
            .map_err(|_| hwtimer_core::Error::Unsupported)?;
    }

    // ---- The PHY: autonegotiation over this crate's MDIO, the MAC set from the result ----
    MAC.soft_reset(pmu::Cycles)?;
    let phy = Phy::new(PhyAddr::from_bits(0));
    let link = {
        let mut mdio = MAC.mdio(pmu::Cycles, CSR_HZ)?;
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
        return Err(Error::LinkDown);
    }

    // ---- Echo phase: ring set 0, arm-once cleanup timer ----
    let cfg = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: TX_USECS,
        ..CoalesceConfig::default()
    };
    bring_up(
        link,
        0,
        cfg,
        TimerStrategy::ArmOnce,
        TxTimer::Hr(HrTimer::new(timers)?),
    )?;

    static SCRATCH: StaticCell<[u8; 1518]> = StaticCell::new();
    static RESOURCES: static_cell::StaticCell<StackResources<8>> = static_cell::StaticCell::new();
    let driver: NetDriver = Probe(Driver::new(
        &MAC,
        &NET,
        &mut SCRATCH.init([0; 1518])[..],
        MAC_ADDR,
    ));
    {
        use embassy_net::driver::Driver as _;
        let caps = driver.capabilities();
        let c = &caps.checksum;
        println!(
            Uart0,
            "checksum offload: TX {} ({TX_OFFLOAD:?}), RX {} ({RX_OFFLOAD:?}: QEMU checks no RX checksums); embassy-net capabilities: mtu {}, ipv4 {:?}, tcp {:?}, udp {:?}, icmpv4 {:?}",
            if NET.with_tx(|t| t.checksum_offload()) == Some(true) {
                "on"
            } else {
                "off"
            },
            if NET.with_rx(|r| r.checksum_offload()) == Some(true) {
                "on"
            } else {
                "off"
            },
            caps.max_transmission_unit,
            c.ipv4,
            c.tcp,
            c.udp,
            c.icmpv4,
        );
    }
    let seed = u64::from(pmu::cycles()) ^ 0x5eed_0002;
    let (stack, runner) = embassy_net::new(
        driver,
        embassy_net::Config::dhcpv4(Default::default()),
        RESOURCES.init(StackResources::new()),
        seed,
    );
    let spawner = executor().spawner();
    spawn(spawner, net_task(runner))?;
    for i in 0..ECHO_TASKS {
        spawn(spawner, echo_task(stack, i))?;
    }
    spawn(spawner, main_task(stack, link, timers, time))?;
    Ok(spawner)
}

/// embassy-net's runner: woken by the driver's wakers (the DMA interrupt, the cleanup
/// timer) and by embassy-time for the stack's own timers.
#[embassy_executor::task]
async fn net_task(mut runner: Runner<'static, NetDriver>) -> ! {
    runner.run().await
}

/// The main task: DHCP, ICMP, the port-9 control connection, the streams; then the verdict.
#[embassy_executor::task]
async fn main_task(stack: Stack<'static>, link: LinkState, timers: &'static Timers, time: Time) {
    let ok = main_steps(stack, link, timers, time).await;
    RESULT.store(ok, Ordering::Release);
    DONE.store(true, Ordering::Release);
    PENDING.store(true, Ordering::SeqCst);
}

async fn main_steps(
    stack: Stack<'static>,
    link: LinkState,
    timers: &'static Timers,
    time: Time,
) -> bool {
    // DHCP.
    if with_timeout(Duration::from_secs(STEP_TIMEOUT_S), stack.wait_config_up())
        .await
        .is_err()
    {
        println!(Uart0, "dhcp: no lease within {STEP_TIMEOUT_S} s");
        return false;
    }
    let Some(config) = stack.config_v4() else {
        println!(Uart0, "dhcp: no IPv4 configuration");
        return false;
    };
    println!(Uart0, "dhcp: {}", config.address.address());
    let router = config.gateway;
    println!(
        Uart0,
        "dhcp: router {} (DNS servers ignored: the firmware talks to 10.0.2.2 only)",
        router.unwrap_or(Ipv4Address::UNSPECIFIED)
    );
    let router_ok = router == Some(GATEWAY);

    let ping_ok = ping(stack, time).await;

    // TCP echo: the echo tasks listen on port 7; here the control connection on port 9.
    println!(
        Uart0,
        "tcp-echo: listening on ports 7 (x{ECHO_TASKS}) and 9"
    );
    let sink = control(stack, time).await;
    let bytes = ECHO_BYTES.with(|b| *b).unwrap_or(0);
    let connections = ECHO_CONNECTIONS.load(Ordering::Relaxed);
    println!(Uart0, "tcp-echo: bytes={bytes} connections={connections}");
    let st = NET.stats();
    println!(
        Uart0,
        "tcp-echo: device rx {} frames, tx {} frames (dropped {}); RX ring errors {}",
        st.rx_frames,
        st.tx_frames,
        st.tx_dropped,
        NET.with_rx(|rx| rx.stats().errors).unwrap_or(u64::MAX)
    );
    let echo_ok = connections > 0 || sink.is_none();

    let mut stream_ok = true;
    if let Some((port, bytes)) = sink {
        stream_ok = match streams(stack, link, timers, time, port, bytes).await {
            Ok(ok) => ok,
            Err(e) => {
                println!(Uart0, "stream: error {e:?}");
                false
            }
        };
    }
    router_ok && ping_ok && echo_ok && stream_ok
}

/// ICMP echo request to the gateway and its reply.
async fn ping(stack: Stack<'static>, time: Time) -> bool {
    const IDENT: u16 = 0x22b;
    const PAYLOAD: &[u8; 17] = b"timer-family ping";
    static META: StaticCell<[[PacketMetadata; 2]; 2]> = StaticCell::new();
    static MEM: StaticCell<[[u8; 256]; 2]> = StaticCell::new();
    let [m0, m1] = META.init([[PacketMetadata::EMPTY; 2]; 2]);
    let [b0, b1] = MEM.init([[0; 256]; 2]);
    let mut socket = IcmpSocket::new(stack, &mut m0[..], &mut b0[..], &mut m1[..], &mut b1[..]);
    if socket.bind(IcmpEndpoint::Ident(IDENT)).is_err() {
        println!(Uart0, "icmp: bind failed: FAIL");
        return false;
    }
    // Echo request: type 8, code 0, checksum, identifier, sequence 1, payload.
    let mut request = [0u8; 8 + PAYLOAD.len()];
    request[0] = 8;
    request[4..6].copy_from_slice(&IDENT.to_be_bytes());
    request[6..8].copy_from_slice(&1u16.to_be_bytes());
    request[8..].copy_from_slice(PAYLOAD);
    let sum = inet_checksum(&request);
    request[2..4].copy_from_slice(&sum.to_be_bytes());
    let t0 = time.now();
    let gateway = IpAddress::Ipv4(GATEWAY);
    if socket.send_to(&request, gateway).await.is_err() {
        println!(Uart0, "icmp: send failed: FAIL");
        return false;
    }
    let mut reply = [0u8; 64];
    let deadline = Duration::from_secs(STEP_TIMEOUT_S);
    match with_timeout(deadline, socket.recv_from(&mut reply)).await {
        Ok(Ok((n, from))) => {
            let r = reply.get(..n).unwrap_or_default();
            let ok = n == request.len()
                && r[0] == 0
                && r[1] == 0
                && r[4..8] == request[4..8]
                && &r[8..] == PAYLOAD
                && inet_checksum(r) == 0
                && from == gateway;
            let us = (time.now() - t0) / TICKS_PER_US;
            println!(
                Uart0,
                "icmp: echo reply from {from} seq=1 ({} payload bytes, {us} us guest time): {}",
                PAYLOAD.len(),
                verdict(ok)
            );
            ok
        }
        _ => {
            println!(Uart0, "icmp: no echo reply from {GATEWAY}: FAIL");
            false
        }
    }
}

/// The Internet checksum (RFC 1071) of `data`: 0 over a packet whose checksum is right.
fn inet_checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let hi = u32::from(pair[0]) << 8;
        let lo = pair.get(1).map_or(0, |b| u32::from(*b));
        sum = sum.wrapping_add(hi | lo);
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// One echo server on port 7: accept, echo until the peer closes, close, again.
#[embassy_executor::task(pool_size = ECHO_TASKS)]
async fn echo_task(stack: Stack<'static>, i: usize) {
    static MEM: StaticCell<[[[u8; ECHO_BUF]; 2]; ECHO_TASKS]> = StaticCell::new();
    static TAKEN: CsCell<[bool; ECHO_TASKS]> = CsCell::new([false; ECHO_TASKS]);
    static MEM_PTR: AtomicPtr<[[u8; ECHO_BUF]; 2]> = AtomicPtr::new(core::ptr::null_mut());
    // The first task initialises the buffers; each takes its own pair once.
    if MEM_PTR.load(Ordering::Acquire).is_null() {
        let m = MEM.init([[[0; ECHO_BUF]; 2]; ECHO_TASKS]);
        MEM_PTR.store(m.as_mut_ptr(), Ordering::Release);
    }
    let mine = TAKEN
        .with(|t| match t.get_mut(i) {
            Some(taken) if !*taken => {
                *taken = true;
                true
            }
            _ => false,
        })
        .unwrap_or(false);
    if !mine {
        return;
    }
    // SAFETY: MEM_PTR points at `ECHO_TASKS` pairs of `'static` buffers; `TAKEN` hands
    // pair `i` to this task alone, once.
    let [rx, tx] = unsafe { &mut *MEM_PTR.load(Ordering::Acquire).add(i) };
    let mut socket = TcpSocket::new(stack, &mut rx[..], &mut tx[..]);
    let mut buf = [0u8; 2048];
    loop {
        if socket.accept(7).await.is_err() {
            socket.abort();
            let _ = socket.flush().await;
            Timer::after_millis(1).await;
            continue;
        }
        let mut counted = false;
        loop {
            let n = match socket.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut done = 0;
            while done < n {
                match socket.write(&buf[done..n]).await {
                    Ok(0) | Err(_) => break,
                    Ok(k) => done += k,
                }
            }
            ECHO_BYTES.with(|b| *b += done as u64);
            ECHO_LAST.with(|t| *t = embassy_time::Instant::now().as_micros());
            // A connection counts once it carried a byte (as npcm750-net counts).
            if !counted && done > 0 {
                counted = true;
                ECHO_CONNECTIONS.fetch_add(1, Ordering::Relaxed);
            }
            if done < n {
                break;
            }
        }
        // Everything echoed: close our side and wait for the FIN to be acknowledged.
        socket.close();
        let _ = with_timeout(Duration::from_secs(5), socket.flush()).await;
        if socket.state() != State::Closed {
            socket.abort();
            let _ = socket.flush().await;
        }
    }
}

/// The port-9 connection: read the host's line until it closes (or [`IDLE_TIMEOUT_S`]
/// without echo traffic), then `sink <port> <bytes>` from it.
async fn control(stack: Stack<'static>, time: Time) -> Option<(u16, u32)> {
    static MEM: StaticCell<[[u8; 256]; 2]> = StaticCell::new();
    let [rx, tx] = MEM.init([[0; 256]; 2]);
    let mut socket = TcpSocket::new(stack, &mut rx[..], &mut tx[..]);
    ECHO_LAST.with(|t| *t = embassy_time::Instant::now().as_micros());
    let _ = time;
    // Re-entering `accept` on a socket that listens on the same port keeps it listening.
    loop {
        match with_timeout(Duration::from_secs(1), socket.accept(9)).await {
            Ok(Ok(())) => break,
            Ok(Err(_)) => {
                socket.abort();
                let _ = socket.flush().await;
            }
            Err(_) => {}
        }
        let last = ECHO_LAST.with(|t| *t).unwrap_or(0);
        if embassy_time::Instant::now()
            .as_micros()
            .saturating_sub(last)
            > IDLE_TIMEOUT_S * 1_000_000
        {
            println!(Uart0, "tcp-echo: idle for {IDLE_TIMEOUT_S} s: finish");
            return None;
        }
    }
    let mut line = [0u8; 64];
    let mut len = 0;
    while !line[..len].contains(&b'\n') && len < line.len() {
        match with_timeout(
            Duration::from_secs(STEP_TIMEOUT_S),
            socket.read(&mut line[len..]),
        )
        .await
        {
            Ok(Ok(n)) if n > 0 => len += n,
            _ => break,
        }
    }
    socket.close();
    let _ = with_timeout(Duration::from_secs(2), socket.flush()).await;
    let sink = parse_sink(&line[..len]);
    println!(
        Uart0,
        "tcp-echo: connection to port 9: finish{}",
        if sink.is_some() {
            " (the host asks for the TCP stream)"
        } else {
            ""
        }
    );
    sink
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
    tx_frames: u64,
    rx_frames: u64,
    ti: u32,
    ri: u32,
    timer_irqs: u32,
    programs: u32,
    /// PMU instructions of the TX and RX paths ([`Probe`], the interrupt shares).
    path_tx: u64,
    path_rx: u64,
    irq_tx: u64,
    irq_rx: u64,
    /// `transmit()` calls, of them empty; `receive()` calls, of them empty.
    calls: [u64; 5],
    ok: bool,
}

impl StreamResult {
    fn bytes_per_s(&self) -> u64 {
        u64::from(self.bytes) * u64::from(GT_HZ) / self.ticks.max(1)
    }
}

/// A value in thousandths, printed with three decimals.
struct Milli(u64);

impl core::fmt::Display for Milli {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// The four streams on ring sets 1 to 4.
async fn streams(
    stack: Stack<'static>,
    link: LinkState,
    timers: &'static Timers,
    time: Time,
    port: u16,
    bytes: u32,
) -> Result<bool, Error> {
    use TimerStrategy::{ArmOnce, RearmEveryPacket};
    let seed = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: TX_USECS,
        ..CoalesceConfig::default()
    };
    static TX: StaticCell<[u8; STREAM_BUF]> = StaticCell::new();
    static RX: StaticCell<[u8; 256]> = StaticCell::new();
    let tx = TX.init([0; STREAM_BUF]);
    let rx = RX.init([0; 256]);
    let mut socket = TcpSocket::new(stack, &mut rx[..], &mut tx[..]);
    println!(
        Uart0,
        "stream: {bytes} bytes to 10.0.2.2:{port}, TX ring {TX_N}, tx-frames {TX_FRAMES}, tx-usecs {TX_USECS}, at most {TSQ_FRAMES} frames unreclaimed (TSQ)"
    );
    let jiffy = JiffyTimer { time };
    // (a) The pre-seed timer_list at HZ = 100, re-armed (mod_timer) on every packet, on a
    // 10 ms tick from the private-timer queue's interrupt.
    let tick = QueueTimer::new(timers)?;
    JIFFY_SLOT.store(tick.id().index() + 1, Ordering::Relaxed);
    JIFFY_ON.store(true, Ordering::Relaxed);
    let _ = JIFFY_DEADLINE.with(|d| *d = None);
    tick.start((time.now() / JIFFY_TICKS + 1) * JIFFY_TICKS)?;
    bring_up(link, 1, seed, RearmEveryPacket, TxTimer::Jiffy(jiffy))?;
    let jiffies = stream(&mut socket, time, port, bytes, "jiffies").await;
    JIFFY_ON.store(false, Ordering::Relaxed);
    let _ = tick.cancel();
    // (b) The hrtimer re-armed on every packet (Linux).
    let t = TxTimer::Hr(HrTimer::new(timers)?);
    bring_up(link, 2, seed, RearmEveryPacket, t)?;
    let rearm = stream(&mut socket, time, port, bytes, "rearm").await;
    // (c) The hrtimer armed once (this crate).
    let t = TxTimer::Hr(HrTimer::new(timers)?);
    bring_up(link, 3, seed, ArmOnce, t)?;
    let arm_once = stream(&mut socket, time, port, bytes, "arm_once").await;
    // Per-frame TX interrupts (tx-frames 1), for the interrupt count.
    let tx1 = CoalesceConfig {
        tx_frames: 1,
        ..seed
    };
    let t = TxTimer::Hr(HrTimer::new(timers)?);
    bring_up(link, 4, tx1, ArmOnce, t)?;
    let per_frame = stream(&mut socket, time, port, bytes, "per_frame").await;

    let (j, r, a) = (
        jiffies.bytes_per_s(),
        rearm.bytes_per_s(),
        arm_once.bytes_per_s(),
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_jiffies = {j} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_rearm = {r} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_arm_once = {a} B/s"
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_arm_once_over_jiffies = {} x",
        Milli(a * 1000 / j.max(1))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_arm_once_over_rearm = {} x",
        Milli(a * 1000 / r.max(1))
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_tcp_stream_rearm_over_jiffies = {} x",
        Milli(r * 1000 / j.max(1))
    );
    // The whole path per frame, over the armed-once stream (see the module docs).
    let c = arm_once;
    let per = |units: u64, frames: u64| units / frames.max(1);
    println!(
        Uart0,
        "path arm_once: tx {} insns in driver calls ({} in tokens' consume) + {} in interrupts over {} frames ({} transmit() calls, {} empty); rx {} + {} over {} frames ({} receive() calls, {} empty)",
        c.path_tx,
        c.calls[4],
        c.irq_tx,
        c.tx_frames,
        c.calls[0],
        c.calls[1],
        c.path_rx,
        c.irq_rx,
        c.rx_frames,
        c.calls[2],
        c.calls[3]
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_path_insns_per_frame_tx = {} insns",
        per(c.path_tx + c.irq_tx, c.tx_frames)
    );
    println!(
        Uart0,
        "bench: stmmac-coalesce/qemu_embassy_path_insns_per_frame_rx = {} insns",
        per(c.path_rx + c.irq_rx, c.rx_frames)
    );
    Ok(jiffies.ok && rearm.ok && arm_once.ok && per_frame.ok)
}

/// One stream to 10.0.2.2:`port` on the rings just installed.
async fn stream(
    socket: &mut TcpSocket<'_>,
    time: Time,
    port: u16,
    bytes: u32,
    name: &str,
) -> StreamResult {
    NET.set_inflight_limit(TSQ_FRAMES);
    let mut out = StreamResult {
        bytes,
        ..StreamResult::default()
    };
    let (ti0, ri0, pt0, pr0) = (
        IRQ_TI.load(Ordering::Relaxed),
        IRQ_RI.load(Ordering::Relaxed),
        IRQ_TIMER.load(Ordering::Relaxed),
        PT_PROGRAMS.load(Ordering::Relaxed),
    );
    let paths = || {
        [
            &PATH_TX,
            &PATH_RX,
            &PATH_IRQ_TX,
            &PATH_IRQ_RX,
            &TX_CALLS,
            &TX_EMPTY,
            &RX_CALLS,
            &RX_EMPTY,
            &PATH_TX_CONSUME,
        ]
        .map(|c| c.load(Ordering::Relaxed))
    };
    let p0 = paths();
    let timeout = Duration::from_secs(STREAM_TIMEOUT_S);
    let result = with_timeout(timeout, async {
        socket.connect((GATEWAY, port)).await.map_err(|_| 0u32)?;
        let start = time.now();
        let mut chunk = [0u8; 1024];
        let mut sent = 0u32;
        while sent < bytes {
            let n = (bytes - sent).min(chunk.len() as u32) as usize;
            for (i, b) in chunk[..n].iter_mut().enumerate() {
                *b = (sent as usize + i) as u8;
            }
            match socket.write(&chunk[..n]).await {
                Ok(0) | Err(_) => return Err(sent),
                Ok(k) => sent += k as u32,
            }
        }
        // Every byte acknowledged.
        socket.flush().await.map_err(|_| sent)?;
        let end = time.now();
        socket.close();
        let _ = socket.flush().await;
        Ok((start, end))
    })
    .await;
    let st = NET.stats();
    out.tx_frames = st.tx_frames;
    out.rx_frames = st.rx_frames;
    out.ti = IRQ_TI.load(Ordering::Relaxed) - ti0;
    out.ri = IRQ_RI.load(Ordering::Relaxed) - ri0;
    out.timer_irqs = IRQ_TIMER.load(Ordering::Relaxed) - pt0;
    out.programs = PT_PROGRAMS.load(Ordering::Relaxed).wrapping_sub(pr0);
    let p1 = paths();
    let d = |i: usize| u64::from(p1[i].wrapping_sub(p0[i]));
    (out.path_tx, out.path_rx, out.irq_tx, out.irq_rx) = (d(0), d(1), d(2), d(3));
    out.calls = [d(4), d(5), d(6), d(7), d(8)];
    if !matches!(socket.state(), State::Closed | State::TimeWait) {
        socket.abort();
        let _ = with_timeout(Duration::from_secs(1), socket.flush()).await;
    }
    match result {
        Ok(Ok((a, b))) => {
            out.ticks = b - a;
            out.ok = true;
            println!(
                Uart0,
                "stream {name}: {bytes} bytes in {} us guest time = {} B/s; frames tx {} rx {}, TI {} RI {}, cleanup-timer interrupts {}, programmings {}, in-flight limited {}",
                out.ticks / TICKS_PER_US,
                out.bytes_per_s(),
                out.tx_frames,
                out.rx_frames,
                out.ti,
                out.ri,
                out.timer_irqs,
                out.programs,
                st.tx_inflight_limited
            );
        }
        Ok(Err(sent)) => println!(
            Uart0,
            "stream {name}: failed ({sent} of {bytes} bytes written): FAIL"
        ),
        Err(_) => println!(
            Uart0,
            "stream {name}: not done within {STREAM_TIMEOUT_S} s: FAIL"
        ),
    }
    out
}
