//! Firmware for QEMU's `npcm750-evb` machine (Nuvoton NPCM750 BMC, two Cortex-A9 cores).
//!
//! Boot: QEMU loads this ELF at 0x0010_0000 and starts *both* CPUs at `_start`, in SVC mode
//! with the MMU and caches off and high vectors (SCTLR.V = 1, the boot ROM at 0xffff_0000).
//! The ARM runtime (`aarch32-rt`, through [`fw_common::arm_board!`]) gives each CPU its own
//! stacks (`_num_cores = 2` in memory.x) and VBAR, and runs the firmware in SYS mode;
//! CPU0 zeroes `.bss`, prints the banner and the CPU identification, and calls [`run`]; CPU1
//! calls [`secondary`]. The run ends
//! through ARM semihosting on CPU0.
//!
//! # Two cores (`-smp 2`)
//!
//! [`run`] enables the SCU (private region + 0x0) and CPU0's MMU (ACTLR.SMP first; [`MAP`]:
//! DRAM Normal write-back shareable, the DMA megabyte Normal non-cacheable, devices Device),
//! because the multi-core critical section
//! ([`fw_common::critical_section_multi_core_impl!`]: IRQ mask plus an LDREX/STREX
//! spinlock, re-entrant per core) and every atomic need exclusives on Normal shareable
//! memory. CPU1 waits on a release flag in `.data`; once released it turns on its own MMU
//! with the same table and its banked GIC CPU interface, and announces itself. CPU0 waits
//! for that at most [`UP_POLLS`] polls (else an error line, and the run fails).
//!
//! Then both cores run [`core_events`] at once: each arms its own banked comparator
//! (CPU1 through its own `GlobalTimer` over the shared window; the counter already runs)
//! at `now + 200..600` ticks, takes each event through its GIC CPU interface (PPI 27 on
//! its banked distributor view, IAR polled with CPSR.I masked), checks it is never early,
//! and between polls reads the shared counter against the other core's last reading
//! (`cross-core: reads=<n> backwards=0`). Each core goes on arming past its
//! [`CORE_EVENTS`] until the other has its own too, so the two overlap to the end. Every
//! wait on the other core, and every poll for an event, executes `yield`
//! ([`yield_cpu`]): under `-icount` QEMU runs the vCPUs round-robin, and a core spinning
//! without it kept the CPU for a whole slice (one event of CPU1 came 5,000,000 ticks, 50 ms,
//! late, and a bounded handshake wait ran out before the other core ran at all). CPU1 hands
//! its counts to CPU0, which prints `core<N>: events=<n> early=0 max_late_ticks=<t> missed=0`.
//!
//! Before that, with the counter still stopped, [`shared_bits`] runs the two-core scenario of
//! the shared `GT_CONTROL` bits (CPU1 takes its comparator before CPU0 starts the counter;
//! CPU0 stops the counter while CPU1 arms) and checks `TIMER_ENABLE` as the hardware has it.
//!
//! [`run`] drives GMAC0 through `stmmac-coalesce`'s public API: DMA reset, identification,
//! the PHY ID over MDIO, the DMA set-up (descriptor layout from HW_FEATURE), rings carved
//! from `static` DMA memory that program their own bases, PHY autonegotiation with the MAC
//! following the result (GMAC_CONTROL speed/duplex), the station address and frame filter,
//! a burst of ARP requests with `tx_frames` coalescing (IC on every 4th frame), TI events
//! serviced by the ring (reclaim, and the cleanup timer cancelled when the ring empties),
//! and the ARP reply of QEMU's slirp (10.0.2.2) received through RX DMA.
//!
//! # The TX cleanup timer (hrtimer coalescing) on the Cortex-A9 global timer
//!
//! The ring runs with `tx_usecs` [`TX_USECS`] and `TimerStrategy::ArmOnce`: its cleanup
//! timer is a slot of a hwtimer-core [`HrTimers`] queue whose clockevent is this core's
//! comparator of the Cortex-A9 **global timer** and whose time base is the same 64-bit
//! counter, both from the `a9-global-timer` crate ([`GtComparator`], [`GtCounter`]). The
//! comparator is phase-locked and absolute, so the alarm writes each deadline to it as it
//! is. The global-timer interrupt (GIC ID 27) is taken through the MPCore GIC; the handler
//! ([`on_irq`]) calls [`HrTimers::on_interrupt`], whose callback runs [`TxRing::on_timer`]
//! (the reclaim). A short burst (fewer frames than `tx_frames`, so no IC and no TI) is then
//! reclaimed by that interrupt `tx_usecs` after its first frame.
//!
//! | what | value | source |
//! |---|---|---|
//! | MPCore private region | 0xF03F_E000 (`NPCM7XX_CPUP_BA`) | `qemu/qemu hw/arm/npcm7xx.c` |
//! | layout | SCU +0x0, GIC CPU interface +0x100, global timer +0x200, private timers +0x600, GIC distributor +0x1000 | `hw/cpu/a9mpcore.c` |
//! | GIC | QEMU `arm_gic`, no security extensions (`has_el3` false) | `hw/arm/npcm7xx.c`, `hw/cpu/a9mpcore.c` |
//! | global timer rate | one tick per `(prescaler + 1) × 10 ns` of virtual time: 100 MHz at prescaler 0 (measured below against the PMU) | `hw/timer/a9gtimer.c` |
//!
//! The register map, the compare rule and QEMU's behaviour are in the crate
//! (`crates/a9-global-timer`). QEMU reports the CPU as r0p0 (MIDR 0x410fc090), so
//! [`CompareRule::from_midr`] picks the pre-r2p0 equality rule: the driver reads the counter
//! back after each arm. QEMU implements the r2p0+ `>=` compare (one tick late), so that
//! check never finds a missed value here; on a real r0p0 it is what makes the comparator
//! usable. On silicon the rate is `PERIPHCLK`, which [`GT_HZ`] does not model.
//!
//! The main program waits by spinning, not with `wfi`: under `-icount` with the default
//! `sleep=on`, an idle CPU lets virtual time follow the host clock.
//!
//! # Timing bounds, at any `-icount` shift
//!
//! `cargo xtask qemu` runs the board under `-icount shift=0` (one instruction is one
//! nanosecond of virtual time) and, in CI, at a second shift; `--icount N` picks any. The
//! global timer and PMCCNTR count virtual time, so the firmware first measures the emulation
//! speed (instructions by PMU event 0x08 against PMCCNTR over a loop of 1,000,000
//! instructions, see [`fw_common::arm::pmu`]) and writes its bounds as CPU work plus the
//! hardware's own granularity ([`Bound`]), converted into global-timer ticks at that speed:
//!
//! | check | bound | made of |
//! |---|---|---|
//! | global-timer rate against PMCCNTR | ± [`RATE_SKEW`] = 1 tick + 64 insns | the counter read truncating to whole ticks; the instructions between the PMCCNTR and counter reads at either end of the loop (the driver's hi-lo-hi read) |
//! | short burst: frame 1 to the reclaiming handler | `tx_usecs` + [`LATE_BOUND`] = 2 ticks + 3000 insns | QEMU's `counter > compare` (one tick after the match) and the stamps' truncation; the transmit, queue and alarm work from the frame-1 stamp to the comparator write and the exception entry to the handler's stamp (~525 instructions measured at shifts 0 to 4), with room |
//!
//! Never early needs no bound: the reclaim is checked against the deadline and `tx_usecs`
//! themselves. Latencies in ticks and ns are those of the shift the run used (the repository
//! quotes shift 0).
//!
//! Every check passes from shift 0 to 4. From shift 5 (32 ns per instruction) the 8-frame
//! burst itself takes longer than `tx_usecs` (100 us), so the cleanup timer may fire before
//! the TI clean cancels it and the burst check says so: the scenario, not a bound, needs a
//! faster CPU.
//!
//! Run it with `cargo xtask qemu npcm750`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use a9_global_timer::{CompareRule, Config, GlobalTimer, GtComparator, GtCounter, regs as gt_regs};
use fw_common::arm::gic::{self, Gic};
use fw_common::arm::mmu::{self, FlatMap};
use fw_common::arm::npcm7xx::Uart0;
use fw_common::arm::npcm7xx::{DRAM_BASE, DRAM_LEN};
use fw_common::arm::pmu::{self, Meter, Stamp};
use fw_common::arm::{self, smp, spin_insns};
use fw_common::counted::Counted;
use fw_common::icount::Bound;
use fw_common::{CsCell, StaticCell, println, verdict};
use hwtimer_core::cpu::{CpuBound, NativeCpu};
use hwtimer_core::{
    ClockEvent, HrTimers, Mmio, Monotonic, QueueError, RegisterBus, Restart, Stopwatch, TimerId,
};
use stmmac_coalesce::common::phy::{Advertise, Phy};
use stmmac_coalesce::gmac3::regs::{self, DMA_STATUS};
use stmmac_coalesce::mdio_bus::{Mdio, PhyAddr, RegAddr};
use stmmac_coalesce::{
    CoalesceConfig, Coherent, DmaConfig, DmaMemory, Dwmac, Error, FrameFilter, Gmac3, IdentityMap,
    MacConfig, QueueTimer, RxConfig, RxRing, TimerStrategy, TxConfig, TxRing, ring_bytes,
};

/// GMAC0 (Synopsys DesignWare GMAC 3.x, driven by stmmac) base address (docs/qemu.md#npcm750-evb).
const GMAC0_BASE: usize = 0xf080_2000;
/// Size of the GMAC register block (MAC 0x0000.., DMA 0x1000..0x105C).
const GMAC_LEN: usize = 0x1060;
/// CSR clock assumed for MII_ADDR.CR. The NPCM750's GMAC clock rate is not in our sources;
/// QEMU ignores CR, so this only selects a plausible divider (125 MHz → /62).
const CSR_HZ: u32 = 125_000_000;

/// Our MAC address (QEMU's default for the first NIC) and IPv4 addresses of slirp's network.
const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
const OUR_IP: [u8; 4] = [10, 0, 2, 15];
const GATEWAY_IP: [u8; 4] = [10, 0, 2, 2];

/// Frames in the TX burst, and the coalescing setting: IC on every 4th frame.
const BURST: u32 = 8;
const TX_FRAMES: u32 = 4;

/// The TX cleanup timer period (ethtool `tx-usecs`).
const TX_USECS: u32 = 100;
/// Frames in the short burst: fewer than `tx_frames`, so no descriptor gets IC.
const SHORT_BURST: u32 = 3;

/// MPCore private region (`NPCM7XX_CPUP_BA`, `qemu/qemu hw/arm/npcm7xx.c`).
const MPCORE_BASE: usize = gt_regs::NPCM750_MPCORE_BASE;
/// GIC CPU interface, private region + 0x100 (`hw/cpu/a9mpcore.c`).
const GIC_CPU: usize = MPCORE_BASE + 0x100;
/// GIC distributor, private region + 0x1000.
const GIC_DIST: usize = MPCORE_BASE + 0x1000;
/// Counter rate at prescaler 0 under QEMU: one tick per 10 ns of virtual time
/// (`hw/timer/a9gtimer.c`); checked against the PMU cycle counter at run time.
const GT_HZ: u32 = gt_regs::QEMU_INPUT_HZ;
/// GIC ID of the global timer: 27 (`hw/cpu/a9mpcore.c`).
const IRQ_GLOBAL_TIMER: u32 = gt_regs::IRQ_ID;
/// Priority of the global-timer interrupt (below the mask of 0xf0).
const IRQ_PRIORITY: u8 = 0xa0;
/// Bound on how late the reclaim may come after `tx_usecs` from the frame-1 stamp. Hardware
/// granularity, 2 ticks: QEMU's `counter > compare` fires one tick after the match, and the
/// stamps truncate to whole ticks. CPU work, 3000 instructions: the first transmit, queue and
/// alarm work before the comparator is written, and the exception entry up to the handler's
/// stamp (~525 instructions measured at shifts 0, 2 and 4), with room. At shift 0 this is
/// 2 + 300 ticks (the former bound of 3 us).
const LATE_BOUND: Bound = Bound {
    ticks: 2,
    insns: 3000,
};
/// How far the global timer and PMCCNTR may disagree over the speed loop: one tick of
/// truncation, and the instructions between the PMCCNTR and counter reads at either end
/// (the driver's bounded hi-lo-hi read through its register window: up to about 60).
const RATE_SKEW: Bound = Bound {
    ticks: 1,
    insns: 64,
};
/// Iterations of the loop that measures the emulation speed (2 instructions each).
const SPEED_LOOP: u32 = 500_000;
/// Polls before giving up on the timer interrupt.
const MAX_POLLS: u32 = 2_000_000;

const TX_N: usize = 8;
const RX_N: usize = 8;
/// TX buffer size: a full frame.
const TX_BUF: usize = 1536;
/// RX buffer size: frames longer than this span descriptors.
const RX_BUF: usize = 512;
/// Cache line for the DMA layout: the rings are in the non-cacheable DMA megabyte, so 16, the descriptor size: no padding, DSL 0 (QEMU ignores DSL anyway).
const CACHE_LINE: usize = 16;

// Ring memory: in the `.dma` megabyte at DMA_BASE (memory.x), zeroed by `run` before use and
// mapped Normal non-cacheable: the map is flat, so CPU addresses are bus addresses
// (`IdentityMap`), and uncached: `Coherent`.
#[unsafe(link_section = ".dma")]
static TX_MEM: DmaMemory<{ ring_bytes(TX_N, TX_BUF, CACHE_LINE) }> = DmaMemory::new();
#[unsafe(link_section = ".dma")]
static RX_MEM: DmaMemory<{ ring_bytes(RX_N, RX_BUF, CACHE_LINE) }> = DmaMemory::new();

/// The DMA megabyte (memory.x `.dma`, checked there), mapped Normal non-cacheable.
const DMA_BASE: u32 = 0x0120_0000;
/// Its size: one section.
const DMA_LEN: u32 = mmu::SECTION_SIZE;
/// The translation table of both cores: DRAM Normal write-back shareable (exclusives need
/// it), the DMA megabyte Normal non-cacheable, the rest Device.
static MAP: FlatMap = FlatMap::new(DRAM_BASE, DRAM_LEN).with_uncached(DMA_BASE, DMA_LEN);

fw_common::arm_board! {
    name: "npcm750",
    console: Uart0,
    main: run,
    irq: on_irq,
    secondary: secondary,
}

// Two cores: the critical section masks this core's IRQs and takes a spinlock shared by both.
fw_common::critical_section_multi_core_impl!();

/// Comparator events each core takes in the two-core phase.
const CORE_EVENTS: u32 = 1000;
/// Polls of the GIC for one event before it counts as missed.
const EVENT_POLLS: u32 = 200_000;
/// Polls before CPU0 gives up on CPU1 coming up.
const UP_POLLS: u32 = 2_000_000;
/// Global-timer ticks CPU0 waits at most for CPU1 to finish its events (1 s at 100 MHz).
const DONE_TICKS: u64 = 100_000_000;

/// Polls of CPU1's results at most (each a `yield`), besides [`DONE_TICKS`].
const DONE_POLLS: u32 = 50_000_000;
/// What one core's phase saw.
#[derive(Clone, Copy, Debug, Default)]
struct CoreStats {
    events: u32,
    early: u32,
    missed: u32,
    max_late: u64,
    reads: u32,
    backwards: u32,
}

/// At most this many arms per core in the two-core phase (if the other core stalls).
const MAX_ROUNDS: u32 = 20 * CORE_EVENTS;
/// Set by a core once it has armed [`CORE_EVENTS`] times.
static REACHED: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];
/// Each core's last global-timer reading, for the other core's cross-core check.
static LAST: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
/// CPU1's results, for CPU0 to print (written before [`C1_DONE`]).
static C1_STATS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
/// 1: CPU1 finished its phase (2: it failed to start it).
static C1_DONE: AtomicU32 = AtomicU32::new(0);

/// One cross-core read: the other core's last reading, then ours, which must not be below
/// it, and the other core's readings must not go backwards between our looks.
fn cross_read(me: usize, counter: &GtCounter<'_, Bus>, seen: &mut u64, st: &mut CoreStats) {
    let other = LAST[me ^ 1].load(Ordering::Acquire);
    let t = counter.now();
    LAST[me].store(t, Ordering::Release);
    st.reads += 1;
    if t < other || other < *seen {
        st.backwards += 1;
    }
    *seen = other;
}

/// One core's phase: its banked comparator (and PPI 27 on its banked GIC view) armed
/// [`CORE_EVENTS`] times at `now + 200..600` ticks; each event taken through its GIC CPU
/// interface (IAR, with CPSR.I masked) and checked against the deadline; the shared counter
/// read against the other core's readings while it waits.
fn core_events(cpu: u32, gt: &GlobalTimer<Bus>) -> Result<CoreStats, hwtimer_core::Error> {
    let me = (cpu & 1) as usize;
    // Err only for an ID this GIC does not implement.
    GIC.enable(IRQ_GLOBAL_TIMER, IRQ_PRIORITY, 0)
        .map_err(|_| hwtimer_core::Error::Unsupported)?;
    let mut comp = gt.comparator()?;
    let counter = gt.counter();
    let mut st = CoreStats::default();
    let mut seen = 0u64;
    // Both cores keep arming until each has its CORE_EVENTS (the last events of one core
    // then still overlap the other's); at most MAX_ROUNDS arms.
    let mut i = 0u32;
    while i < MAX_ROUNDS && (i < CORE_EVENTS || REACHED[me ^ 1].load(Ordering::Acquire) == 0) {
        if i == CORE_EVENTS {
            REACHED[me].store(1, Ordering::Release);
        }
        i += 1;
        let delta = 200 + u64::from((i * 37 + cpu * 101) % 400);
        let at = counter.now() + delta;
        comp.set_compare(at)?;
        let mut fired = None;
        for _ in 0..EVENT_POLLS {
            yield_cpu();
            cross_read(me, &counter, &mut seen, &mut st);
            let iar = GIC.acknowledge();
            let id = gic::iar_id(iar);
            if id == IRQ_GLOBAL_TIMER {
                let t = counter.now();
                comp.ack();
                GIC.end_of_interrupt(iar);
                fired = Some(t);
                break;
            } else if id != gic::SPURIOUS_ID {
                GIC.end_of_interrupt(iar);
            }
        }
        match fired {
            Some(t) if t < at => st.early += 1,
            Some(t) => {
                st.events += 1;
                st.max_late = st.max_late.max(t - at);
            }
            None => {
                st.missed += 1;
                comp.shutdown();
            }
        }
    }
    REACHED[me].store(1, Ordering::Release);
    drop(comp);
    GIC.disable(IRQ_GLOBAL_TIMER)
        .map_err(|_| hwtimer_core::Error::Unsupported)?;
    Ok(st)
}

/// CPU1: waits for CPU0's release, turns on its MMU (same table; ACTLR.SMP first), its GIC
/// CPU interface and its own `GlobalTimer` over the shared window (the counter already
/// runs), runs [`core_events`], hands its results to CPU0 and sleeps.
fn secondary(cpu: u32) -> ! {
    smp::wait_release();
    // SAFETY: this core's MMU and caches are off; MAP maps the image, stacks, DMA megabyte
    // and devices flat; CPU0 enabled the SCU before the release; no DMA runs on this core.
    unsafe { mmu::enable(&MAP) };
    GIC.init_cpu_interface();
    smp::announce(cpu);
    let config = Config::qemu().with_compare(CompareRule::from_midr(arm::midr()));
    let gt = secondary_shared_bits(config);
    let result = gt.as_ref().map(|gt| core_events(cpu, gt));
    match result {
        Some(Ok(st)) => {
            let v = [
                st.events.into(),
                st.early.into(),
                st.missed.into(),
                st.max_late,
                st.reads.into(),
                st.backwards.into(),
            ];
            for (slot, v) in C1_STATS.iter().zip(v) {
                slot.store(v, Ordering::Relaxed);
            }
            C1_DONE.store(1, Ordering::Release);
            contention();
            C1_CONTENDED.store(1, Ordering::Release);
            if let Some(gt) = &gt {
                figures_load(gt);
            }
        }
        _ => C1_DONE.store(2, Ordering::Release),
    }
    loop {
        // SAFETY: nothing is enabled for this core any more: sleep for good.
        unsafe { core::arch::asm!("wfi", options(nomem, nostack)) };
    }
}

/// Sections each core takes in [`contention`].
const CONTENDED: u32 = 2000;
/// The counter both cores increment non-atomically inside their sections.
static CONTENDED_COUNT: AtomicU32 = AtomicU32::new(0);
/// Set by CPU1 when its [`contention`] run is over.
static C1_CONTENDED: AtomicU32 = AtomicU32::new(0);

/// Both cores: [`CONTENDED`] critical sections each, a load, ~100 instructions and a
/// `yield` (under QEMU's round-robin vCPUs the other core runs right there), then the store
/// of the load plus one. Only a section that excludes the other core keeps every increment:
/// with the single-core `critical_section_impl!` (IRQ mask only) it came out 2009 of 4000.
fn contention() {
    for _ in 0..CONTENDED {
        fw_common::__critical_section::with(|_| {
            let v = CONTENDED_COUNT.load(Ordering::Relaxed);
            spin_insns(50);
            yield_cpu();
            CONTENDED_COUNT.store(v + 1, Ordering::Relaxed);
        });
    }
}

/// CPU0's phase of [`two_core_figures`]: 1 = CPU1 only yields, 2 = CPU1 reads the
/// counter, 3 = CPU1 arms its own comparator, 4 = done.
static FIG: AtomicU32 = AtomicU32::new(0);
/// Calls per loop of [`two_core_figures`].
const FIG_LOOPS: u32 = 1000;

/// CPU1 while CPU0 runs [`two_core_figures`]: per turn (each ends with a `yield`) what
/// [`FIG`] asks, until CPU0 is done (bounded).
fn figures_load(gt: &GlobalTimer<Bus>) {
    let counter = gt.counter();
    let Ok(mut comp) = gt.comparator() else {
        return;
    };
    for _ in 0..DONE_POLLS {
        match FIG.load(Ordering::Acquire) {
            0 | 1 => {}
            2 => {
                core::hint::black_box(counter.now());
            }
            3 => {
                let _ = core::hint::black_box(comp.set_next_event(10_000_000));
            }
            _ => break,
        }
        yield_cpu();
    }
    comp.shutdown();
}

/// Instructions of [`FIG_LOOPS`] turns of `f` then a `yield`, by the PMU.
#[inline(never)]
fn fig_loop(mut f: impl FnMut()) -> u32 {
    let a = Stamp::now();
    for _ in 0..FIG_LOOPS {
        f();
        yield_cpu();
    }
    Stamp::now().insns.wrapping_sub(a.insns)
}

/// `GtCounter::now` and an arm of CPU0's banked comparator, per call, while CPU1 only
/// yields (one core using the timer) and while CPU1 makes the same calls (two cores).
///
/// Under `-icount` QEMU's PMU event 0x08 counts every vCPU's instructions, and the `yield`
/// after each call hands the CPU to CPU1 (smdkc210 measured it: 9 instructions per bare
/// `yield` turn with the other CPU asleep, 39 with it running its loop). So each figure is a
/// loop of call + `yield` minus a loop of `yield` alone taken while CPU1 does the same
/// thing: what is left is CPU0's own call.
fn two_core_figures(gt: &GlobalTimer<Bus>) -> bool {
    let counter = gt.counter();
    let Ok(mut comp) = gt.comparator() else {
        FIG.store(4, Ordering::Release);
        return false;
    };
    let mut failed = false;
    let mut arm = |comp: &mut GtComparator<'_, Bus>| {
        failed |= comp.set_next_event(10_000_000).is_err();
    };
    FIG.store(1, Ordering::Release);
    let base1 = fig_loop(|| {});
    let now1 = fig_loop(|| {
        core::hint::black_box(counter.now());
    });
    let arm1 = fig_loop(|| arm(&mut comp));
    FIG.store(2, Ordering::Release);
    let base2 = fig_loop(|| {});
    let now2 = fig_loop(|| {
        core::hint::black_box(counter.now());
    });
    FIG.store(3, Ordering::Release);
    let base3 = fig_loop(|| {});
    let arm3 = fig_loop(|| arm(&mut comp));
    FIG.store(4, Ordering::Release);
    comp.shutdown();
    let per = |work: u32, base: u32| work.saturating_sub(base) * 100 / FIG_LOOPS;
    println!(
        Uart0,
        "two-core figures (each CPU0 call followed by a yield to CPU1, which yields, then reads the counter, then arms its own comparator): {}",
        verdict(!failed)
    );
    let line = |metric: &str, centi: u32| {
        println!(
            Uart0,
            "bench: a9-global-timer/{metric} = {}.{:02} insns",
            centi / 100,
            centi % 100
        );
    };
    line("fw_counter_now_insns_one_core", per(now1, base1));
    line("fw_counter_now_insns_two_cores", per(now2, base2));
    line("fw_comp_set_next_event_insns_one_core", per(arm1, base1));
    line("fw_comp_set_next_event_insns_two_cores", per(arm3, base3));
    !failed
}

/// Section entries of [`cs_cost`].
const CS_LOOPS: u32 = 1000;

/// Prints what one empty `critical_section::with` costs on CPU0, uncontended (CPU1 waits
/// with `yield` for its step), against the IRQ mask alone (the single-core implementation's
/// `irq_save`/`irq_restore`), in instructions per entry with the loop included, by the PMU.
fn cs_cost() {
    let a = Stamp::now();
    for _ in 0..CS_LOOPS {
        fw_common::__critical_section::with(|cs| {
            core::hint::black_box(cs);
        });
    }
    let b = Stamp::now();
    for _ in 0..CS_LOOPS {
        let on = fw_common::cs::irq_save();
        core::hint::black_box(on);
        if on {
            // SAFETY: `irq_save` found IRQs on; this ends that outermost masked span.
            unsafe { fw_common::cs::irq_restore() };
        }
    }
    let c = Stamp::now();
    let per = |x: Stamp, y: Stamp| y.insns.wrapping_sub(x.insns) / CS_LOOPS;
    // Per entry and release, the loop included. Under -icount QEMU's PMU event 0x08 counts
    // every vCPU's instructions, but the vCPUs run in turn and CPU1 gets its turn only at
    // CPU0's `yield`/`wfi` or the end of a time slice, which these loops do not reach: the
    // multi-core figure equals smdkc210's, measured with CPU1 asleep in `wfe`.
    println!(
        Uart0,
        "bench: a9-global-timer/fw_cs_multi_core_insns = {} insns",
        per(a, b)
    );
    println!(
        Uart0,
        "bench: a9-global-timer/fw_cs_irq_mask_insns = {} insns",
        per(b, c)
    );
}

/// The step of the shared-bits handshake between CPU0 ([`shared_bits`]) and CPU1
/// ([`secondary`]); [`STEP_EVENTS`] lets CPU1 start [`core_events`].
static STEP: AtomicU32 = AtomicU32::new(0);
/// The step at which CPU1 may run its events.
const STEP_EVENTS: u32 = 9;
/// Polls of one handshake step before giving up.
const STEP_POLLS: u32 = 2_000_000;

/// Waits (bounded) for [`STEP`] to reach `step`.
fn wait_step(step: u32) -> bool {
    (0..STEP_POLLS).any(|_| {
        yield_cpu();
        STEP.load(Ordering::Acquire) >= step
    })
}

/// `yield`: under QEMU's round-robin vCPUs (`-icount`) it ends this CPU's time slice, so a
/// core that waits for the other lets it run instead of spinning out a whole slice.
fn yield_cpu() {
    // SAFETY: a hint instruction; no memory or register effect.
    unsafe { core::arch::asm!("yield", options(nomem, nostack, preserves_flags)) };
}

/// `GT_CONTROL.TIMER_ENABLE` as the hardware has it (a raw read through CPU0's window).
fn counter_enabled(gt: &GlobalTimer<Bus>) -> bool {
    gt.bus().read_word(0x08) & 1 != 0
}

/// The shared-bits scenario, across the two cores, before CPU0 starts the
/// counter: (a) CPU1 builds its `GlobalTimer` and takes its comparator while the counter is
/// stopped, CPU0 starts it, CPU1 arms: the counter must stay enabled (a per-core copy of
/// the enable bit taken at `new` would stop it); (b) CPU1 takes a comparator of a second
/// instance built while the counter runs, CPU0 stops the counter (through an instance of
/// its own), CPU1 arms: the counter must stay stopped (that copy would restart it). The
/// counter runs again at the end. Releases CPU1 and waits for it (bounded).
fn shared_bits(gt: &GlobalTimer<Bus>, config: Config) -> bool {
    smp::release();
    if !smp::wait_up(1, UP_POLLS) {
        println!(
            Uart0,
            "secondary CPU1 did not come up within {UP_POLLS} polls: FAIL"
        );
        return false;
    }
    println!(
        Uart0,
        "secondary CPU1 up: MMU on, GIC CPU interface on, released"
    );
    let stopped_at_take = wait_step(1) && !counter_enabled(gt);
    let started = gt.start().is_ok();
    STEP.store(2, Ordering::Release);
    let a_ok = started && stopped_at_take && wait_step(3) && counter_enabled(gt);
    // Running again whatever (a) did, before CPU1 builds its second instance.
    let restarted = gt.start().is_ok();
    STEP.store(4, Ordering::Release);
    // SAFETY: the same global timer window; this instance only stops and starts the counter.
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    let Ok(mut own) = GlobalTimer::new(bus, config) else {
        println!(Uart0, "shared bits: second CPU0 instance refused: FAIL");
        return false;
    };
    let took = wait_step(5);
    own.stop();
    STEP.store(6, Ordering::Release);
    let b_ok = took && wait_step(7) && !counter_enabled(gt);
    let running = own.start().is_ok() && counter_enabled(gt);
    STEP.store(8, Ordering::Release);
    println!(
        Uart0,
        "shared bits: CPU1 took its comparator before CPU0 started the counter, armed after: counter enabled: {}; CPU0 stopped it while CPU1 armed: stays stopped: {}",
        verdict(a_ok),
        verdict(b_ok)
    );
    a_ok && b_ok && restarted && running
}

/// CPU1's side of [`shared_bits`]; returns its second instance (the counter running) for
/// [`core_events`], or `None` when a step timed out or the driver refused.
fn secondary_shared_bits(config: Config) -> Option<GlobalTimer<Bus>> {
    // SAFETY: the global timer window of this SoC's MPCore region; this core only uses its
    // own banked comparator and reads the shared counter.
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    let before = GlobalTimer::new(bus, config).ok()?;
    let mut comp = before.comparator().ok()?;
    STEP.store(1, Ordering::Release);
    if !wait_step(2) {
        return None;
    }
    comp.set_next_event(100_000).ok()?;
    comp.shutdown();
    drop(comp);
    STEP.store(3, Ordering::Release);
    if !wait_step(4) {
        return None;
    }
    // SAFETY: as above.
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    let gt = GlobalTimer::new(bus, config).ok()?;
    let mut comp = gt.comparator().ok()?;
    STEP.store(5, Ordering::Release);
    if !wait_step(6) {
        return None;
    }
    comp.set_next_event(100_000).ok()?;
    comp.shutdown();
    STEP.store(7, Ordering::Release);
    drop(comp);
    wait_step(STEP_EVENTS).then_some(gt)
}

/// CPU0's side of the two-core phase: lets CPU1 go (it came up in [`shared_bits`]), runs
/// its own [`core_events`] at the same time, waits (bounded) for CPU1's results and prints
/// both cores' lines and the cross-core line.
fn two_cores(gt: &GlobalTimer<Bus>) -> bool {
    if !smp::is_up(1) {
        return false;
    }
    STEP.store(STEP_EVENTS, Ordering::Release);
    let st0 = match core_events(0, gt) {
        Ok(st) => st,
        Err(e) => {
            println!(Uart0, "core0: error {e:?}");
            return false;
        }
    };
    let counter = gt.counter();
    let mut watch = Stopwatch::start(counter);
    let mut done = 0;
    for _ in 0..DONE_POLLS {
        yield_cpu();
        done = C1_DONE.load(Ordering::Acquire);
        if done != 0 || watch.elapsed() > DONE_TICKS {
            break;
        }
    }
    if done != 1 {
        println!(Uart0, "core1: no results (state {done}): FAIL");
        return false;
    }
    let v: [u64; 6] = core::array::from_fn(|i| C1_STATS[i].load(Ordering::Relaxed));
    let st1 = CoreStats {
        events: v[0] as u32,
        early: v[1] as u32,
        missed: v[2] as u32,
        max_late: v[3],
        reads: v[4] as u32,
        backwards: v[5] as u32,
    };
    let mut ok = true;
    for (n, st) in [(0, st0), (1, st1)] {
        println!(
            Uart0,
            "core{n}: events={} early={} max_late_ticks={} missed={}",
            st.events,
            st.early,
            st.max_late,
            st.missed
        );
        ok &= st.events >= CORE_EVENTS && st.early == 0 && st.missed == 0;
    }
    contention();
    let mut polls = 0u32;
    while C1_CONTENDED.load(Ordering::Acquire) == 0 && polls < DONE_POLLS {
        yield_cpu();
        polls += 1;
    }
    let count = CONTENDED_COUNT.load(Ordering::Relaxed);
    let cs_ok = count == 2 * CONTENDED;
    println!(
        Uart0,
        "contention: 2 cores x {CONTENDED} critical sections, non-atomic increment across a yield: {count} of {}: {}",
        2 * CONTENDED,
        verdict(cs_ok)
    );
    ok &= cs_ok;
    let reads = st0.reads + st1.reads;
    let backwards = st0.backwards + st1.backwards;
    println!(Uart0, "cross-core: reads={reads} backwards={backwards}");
    ok &= two_core_figures(gt);
    ok && backwards == 0 && st0.reads > 0 && st1.reads > 0
}

/// The global timer's register window, as the driver sees it.
type Bus = Mmio<u32>;

/// Global-timer comparator programmings (`set_next_event`, `set_compare`, `set_periodic`)
/// so far. Written only inside the queue's critical section (plain load + store).
static GT_PROGRAMS: AtomicU32 = AtomicU32::new(0);

/// CPU0's global-timer comparator, bound to CPU0 ([`CpuBound`]: its registers are banked,
/// so any other core gets `Error::WrongCpu` and touches nothing), counting its programmings
/// in [`GT_PROGRAMS`] for the "armed once" checks; otherwise the crate's [`GtComparator`].
type CountedGt = Counted<Cpu0Gt>;

/// [`CpuBound`] over CPU0's comparator, forwarding every [`ClockEvent`] method through
/// [`CpuBound::with`]. hwtimer-core's own `ClockEvent for CpuBound` (63db191) does not
/// forward `set_compare`, so the absolute comparator would answer the trait's default
/// `Unsupported` to `HrTimers`' absolute arms.
struct Cpu0Gt(CpuBound<GtComparator<'static, Bus>, NativeCpu>);

impl ClockEvent for Cpu0Gt {
    fn capabilities(&self) -> hwtimer_core::Capabilities {
        self.0.capabilities()
    }
    fn set_next_event(&mut self, delta: u64) -> Result<(), hwtimer_core::Error> {
        self.0.with(|c| c.set_next_event(delta))?
    }
    fn set_compare(&mut self, at: u64) -> Result<(), hwtimer_core::Error> {
        self.0.with(|c| c.set_compare(at))?
    }
    fn set_periodic(&mut self, period: u64) -> Result<(), hwtimer_core::Error> {
        self.0.with(|c| c.set_periodic(period))?
    }
    fn shutdown(&mut self) {
        let _ = self.0.with(|c| c.shutdown());
    }
    fn ack(&mut self) -> bool {
        self.0.with(|c| c.ack()).unwrap_or(false)
    }
}

/// The timer queue: the TX cleanup timer's slot and one spare.
type Timers = HrTimers<CountedGt, GtCounter<'static, Bus>, 2>;

/// The TX ring with its cleanup timer (a slot of [`Timers`]).
type Tx = TxRing<QueueTimer<'static, CountedGt, GtCounter<'static, Bus>, 2>>;

/// GMAC0's registers.
fn gmac0() -> Gmac3<Mmio<u32>> {
    // SAFETY: the GMAC0 register block of this SoC. The main program and the timer
    // callback each make one; the callback only reads DMA_STATUS (and, after a TX fault,
    // restarts the TX DMA of the ring it holds), inside the critical section that also
    // excludes the main program's ring accesses.
    Gmac3::new(unsafe { Mmio::<u32>::new(GMAC0_BASE, GMAC_LEN) })
}

/// The MPCore GIC; its CPU interface is banked, so each core reaches its own.
// SAFETY: the distributor and CPU interface of the NPCM7xx MPCore region (addresses above);
// CPU0 initialises the distributor, each core its own banked CPU interface and PPIs.
static GIC: Gic = unsafe { Gic::new(GIC_DIST, GIC_CPU) };
/// The global-timer driver, `'static` so its parts can live in the timer queue.
static GT: StaticCell<GlobalTimer<Bus>> = StaticCell::new();
/// Storage of the timer queue.
static TIMERS: StaticCell<Timers> = StaticCell::new();
/// The global-timer counter, for the handler's entry timestamp.
static GT_TIME: CsCell<Option<GtCounter<'static, Bus>>> = CsCell::new(None);
/// The queue, for the handler.
static TIMERS_REF: CsCell<Option<&'static Timers>> = CsCell::new(None);
/// The TX ring, shared by the main program (transmit) and the timer callback (reclaim).
static TX: CsCell<Option<Tx>> = CsCell::new(None);
/// What the handler saw.
static LOG: CsCell<IrqLog> = CsCell::new(IrqLog::new());
/// Cleanup-timer expiries handled so far (written only by the handler, plain load + store).
static EXPIRIES: AtomicU32 = AtomicU32::new(0);

/// The last cleanup-timer expiry, as the handler saw it.
#[derive(Clone, Copy, Debug, Default)]
struct Expiry {
    /// PMU counters at handler entry: instructions and PMCCNTR's virtual nanoseconds.
    stamp: Stamp,
    /// Global-timer count at handler entry.
    entry: u64,
    /// `now` passed to the callback by `HrTimers::on_interrupt`.
    now: u64,
    /// Descriptors `TxRing::on_timer` reclaimed.
    reclaimed: u64,
    /// Still pending afterwards.
    pending: usize,
    /// Whether `on_timer` asked for a re-arm.
    rearmed: bool,
}

/// The handler's record.
struct IrqLog {
    /// The last cleanup-timer expiry.
    last: Expiry,
    /// Interrupts with another ID (disabled when seen) or spurious.
    other: u32,
}

impl IrqLog {
    const fn new() -> Self {
        Self {
            last: Expiry {
                stamp: Stamp { insns: 0, ns: 0 },
                entry: 0,
                now: 0,
                reclaimed: 0,
                pending: 0,
                rearmed: false,
            },
            other: 0,
        }
    }
}

/// The IRQ handler, called by the runtime's IRQ entry (in SYS mode) with IRQs masked.
fn on_irq() {
    let stamp = Stamp::now();
    let entry = GT_TIME.with(|t| t.map(|t| t.now())).flatten().unwrap_or(0);
    let iar = GIC.acknowledge();
    let id = gic::iar_id(iar);
    if id == gic::SPURIOUS_ID {
        LOG.with(|log| log.other += 1);
        return;
    }
    let timers = TIMERS_REF.with(|t| *t).flatten();
    match timers {
        Some(timers) if id == IRQ_GLOBAL_TIMER => {
            // Alarm::on_interrupt (inside) calls GtComparator::ack, which lowers the PPI.
            // A refused programming leaves the queued timers with nothing armed: make the
            // recovery call (the checks in `run` report an expiry still missing).
            if let Err(QueueError::Hardware(_)) =
                timers.on_interrupt(|slot, now| on_timer(slot, now, stamp, entry))
            {
                let _ = timers.reprogram();
            }
        }
        _ => {
            let _ = GIC.disable(id); // an ID the GIC signalled (IAR): always implemented
            LOG.with(|log| log.other += 1);
        }
    }
    GIC.end_of_interrupt(iar);
}

/// The queue's callback: the TX cleanup timer runs the ring's reclaim.
fn on_timer(slot: TimerId, now: u64, stamp: Stamp, entry: u64) -> Restart {
    let done = TX
        .with(|tx| {
            let tx = tx.as_mut()?;
            if tx.timer().id() != slot {
                return None;
            }
            let before = tx.stats().reclaimed;
            let restart = tx.on_timer(&gmac0(), now);
            let expiry = Expiry {
                stamp,
                entry,
                now,
                reclaimed: tx.stats().reclaimed - before,
                pending: tx.pending(),
                rearmed: restart != Restart::No,
            };
            Some((restart, expiry))
        })
        .flatten();
    match done {
        Some((restart, expiry)) => {
            LOG.with(|log| log.last = expiry);
            EXPIRIES.store(EXPIRIES.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            restart
        }
        None => Restart::No,
    }
}

/// Spins (IRQs unmasked) until `count` cleanup-timer expiries have been handled in total,
/// at most [`MAX_POLLS`] polls. Returns whether they came.
fn wait_for_expiries(count: u32) -> bool {
    (0..MAX_POLLS).any(|_| EXPIRIES.load(Ordering::Relaxed) >= count)
}

/// Runs `f` on the TX ring; `Error::RingSize` if it is not installed or busy.
fn with_tx<R>(f: impl FnOnce(&mut Tx) -> R) -> Result<R, Error> {
    TX.with(|tx| tx.as_mut().map(f))
        .flatten()
        .ok_or(Error::RingSize)
}

/// A broadcast ARP request "who has `target`, tell `OUR_IP`", padded to 60 bytes.
fn arp_request(target: [u8; 4]) -> [u8; 60] {
    let mut f = [0u8; 60];
    f[0..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&MAC);
    f[12..14].copy_from_slice(&[0x08, 0x06]); // ARP
    f[14..22].copy_from_slice(&[0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01]); // Ethernet/IPv4, request
    f[22..28].copy_from_slice(&MAC);
    f[28..32].copy_from_slice(&OUR_IP);
    f[38..42].copy_from_slice(&target);
    f
}

/// `Some(sender IP)` if `frame` is an ARP reply.
fn arp_reply_sender(frame: &[u8]) -> Option<[u8; 4]> {
    if frame.get(12..14)? != [0x08, 0x06] || frame.get(20..22)? != [0x00, 0x02] {
        return None;
    }
    frame.get(28..32)?.try_into().ok()
}

/// The board's checks, run on CPU0 after the banner; returns whether all passed.
fn run() -> bool {
    // Zero the DMA megabyte's rings, then SCU and MMU (CPU1 does its MMU after the release).
    // SAFETY: `.dma` (memory.x) holds only the two DmaMemory statics, not used yet; all-zero
    // is their initial state.
    unsafe { mmu::zero_dma_section() };
    // SAFETY: the MPCore private region of this SoC.
    let scu = unsafe { smp::scu_enable(MPCORE_BASE) };
    // SAFETY: CPU0's MMU and caches are off (QEMU's reset state); MAP maps the image, stacks,
    // the DMA megabyte and the devices flat; no DMA runs yet.
    let sctlr = unsafe { mmu::enable(&MAP) };
    println!(
        Uart0,
        "SMP: SCU control {scu:#x}, MMU {} (SCTLR {sctlr:#010x}), DMA {DMA_BASE:#010x} non-cacheable: {}",
        if mmu::enabled() { "on" } else { "off" },
        verdict(
            scu & 1 == 1
                && mmu::enabled()
                && MAP.is_normal(0x0010_0000)
                && !MAP.is_normal(DMA_BASE)
        )
    );
    match gmac() {
        Ok(ok) => ok,
        Err(e) => {
            println!(Uart0, "GMAC error: {e:?}");
            false
        }
    }
}

fn gmac() -> Result<bool, Error> {
    pmu::enable();
    let mac = gmac0();
    let version = mac.version();
    let snpsver = version & 0xff;
    println!(
        Uart0,
        "GMAC0 VERSION = {version:#010x} (Synopsys GMAC {}.{})",
        snpsver >> 4,
        snpsver & 0xf
    );
    let polls = mac.soft_reset(pmu::Cycles)?;
    println!(Uart0, "DMA reset: SWR cleared after {polls} reads");

    let mut mdio = mac.mdio(pmu::Cycles, CSR_HZ)?;
    let (phy, id2, id3) = (
        PhyAddr::from_bits(0),
        RegAddr::from_bits(2),
        RegAddr::from_bits(3),
    );
    let id = mdio
        .read(phy, id2)
        .and_then(|hi| Ok(u32::from(hi) << 16 | u32::from(mdio.read(phy, id3)?)))?;
    println!(Uart0, "PHY ID (MDIO addr 0, CR {}) = {id:#010x}", mdio.cr());

    // ---- The clocksource/clockevent: the Cortex-A9 global timer, checked against the PMU,
    // over the loop of 1,000,000 instructions that also measures the emulation speed ----
    // SAFETY: the global timer window of this SoC's MPCore region. This instance runs on CPU0
    // (its comparator is CPU0's banked one, bound to CPU0); CPU1 builds its own over the
    // same window and only reads the shared counter and uses its own comparator.
    let bus = unsafe { Mmio::<u32>::new(gt_regs::NPCM750_BASE, gt_regs::WINDOW_LEN) };
    let config = Config::qemu().with_compare(CompareRule::from_midr(arm::midr()));
    let driver: &'static GlobalTimer<Bus> = GT.init(GlobalTimer::new(bus, config)?);
    // CPU1 comes up with the counter still stopped (QEMU's reset state): the shared bits.
    let shared_ok = shared_bits(driver, config);
    driver.start()?;
    let gt = driver.counter();
    GT_TIME.with(|t| *t = Some(gt));
    let a = Stamp::now();
    let g0 = gt.now();
    spin_insns(SPEED_LOOP);
    let g1 = gt.now();
    let b = Stamp::now();
    let Some(meter) = Meter::from_span(a, b, 2 * u64::from(SPEED_LOOP)) else {
        println!(Uart0, "PMCCNTR did not advance over the speed loop: FAIL");
        return Ok(false);
    };
    meter.print(Uart0);
    let speed = meter.speed();
    let ticks = g1.wrapping_sub(g0);
    let ns = b.ns_since(a);
    let implied = ns * u64::from(GT_HZ) / 1_000_000_000;
    let skew = RATE_SKEW.ticks_at(speed, GT_HZ);
    let rate_ok = ticks.abs_diff(implied) <= skew;
    println!(
        Uart0,
        "global timer (MPCore {MPCORE_BASE:#010x} + 0x200): 64-bit counter +{ticks} ticks in {ns} ns (PMCCNTR); {GT_HZ} Hz implies {implied} (+/- {RATE_SKEW} = {skew}): {}",
        verdict(rate_ok)
    );
    GIC.init();
    println!(
        Uart0,
        "GIC: MPCore GIC, distributor {:#010x}, CPU interface {:#010x}: {} interrupt IDs, {} CPU interfaces",
        GIC.dist_base(),
        GIC.cpu_base(),
        GIC.lines(),
        GIC.cpus()
    );
    cs_cost();
    let smp_ok = two_cores(driver);
    // Err only for an ID this GIC does not implement.
    GIC.enable(IRQ_GLOBAL_TIMER, IRQ_PRIORITY, 1)
        .map_err(|_| hwtimer_core::Error::Unsupported)?;
    let alarm = hwtimer_core::Alarm::new(
        Counted::new(
            // SAFETY: the firmware runs at PL1, where MPIDR is readable.
            Cpu0Gt(CpuBound::new(driver.comparator()?, unsafe {
                NativeCpu::new()
            })),
            &GT_PROGRAMS,
        ),
        gt,
    )?;
    let timers: &'static Timers = TIMERS.init(HrTimers::new(alarm));
    TIMERS_REF.with(|t| *t = Some(timers));

    // ---- DMA, MAC and PHY bring-up ----
    let setup = mac.configure_dma(&DmaConfig {
        cache_line: CACHE_LINE,
        csr_hz: CSR_HZ,
        ..DmaConfig::default()
    })?;
    println!(
        Uart0,
        "DMA: {:?} descriptors (HW_FEATURE {:#010x}), stride {} bytes, DSL {}",
        setup.layout(),
        mac.hw_feature(),
        setup.desc_stride(),
        setup.dsl()
    );
    mac.init_mac(&MacConfig {
        address: MAC,
        filter: FrameFilter::default(),
    });
    let cfg = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: TX_USECS,
        ..CoalesceConfig::default()
    };
    // SAFETY: the MMU map is flat: CPU addresses are bus addresses.
    let addr = unsafe { IdentityMap::new() };
    let (Some(tx_mem), Some(rx_mem)) = (TX_MEM.take(), RX_MEM.take()) else {
        return Err(Error::RingSize);
    };
    let tx_cfg = TxConfig {
        descriptors: TX_N,
        buf_size: TX_BUF,
        coalesce: cfg,
        strategy: TimerStrategy::ArmOnce,
    };
    let rx_cfg = RxConfig {
        descriptors: RX_N,
        buf_size: RX_BUF,
        ..RxConfig::default()
    };
    let mut tx = TxRing::new(
        tx_mem,
        &addr,
        &setup,
        tx_cfg,
        QueueTimer::new(timers)?,
        Coherent,
    )?;
    let mut rx = RxRing::new(rx_mem, &addr, &setup, rx_cfg, Coherent)?;
    let period = tx.period_ticks();
    let timer_id = tx.timer().id();
    // Each start reads DSL back: the DMA steps through the ring with the ring's stride.
    tx.try_start(&mac)?;
    rx.try_start(&mac)?;
    // Autonegotiation: QEMU's PHY completes it on the BMCR write, and clears LPA, so the
    // result comes from the 1000BASE-T registers.
    let phy = Phy::new(PhyAddr::from_bits(0));
    let (adv, ctrl1000) = phy.start_autoneg(&mut mdio, Advertise::default())?;
    let link = phy.poll(&mut mdio)?;
    mac.set_link(link);
    println!(
        Uart0,
        "PHY autonegotiation (ADVERTISE {adv:#06x}, CTRL1000 {ctrl1000:#06x}): link up {}, {} Mbit/s {:?} duplex; GMAC_CONTROL = {:#010x}",
        link.up,
        link.speed.mbps(),
        link.duplex,
        // SAFETY: a read of GMAC_CONTROL.
        unsafe { mac.bus() }.read_word(0)
    );
    let [m0, m1, m2, m3, m4, m5] = mac.mac_address();
    println!(
        Uart0,
        "MAC address {m0:02x}:{m1:02x}:{m2:02x}:{m3:02x}:{m4:02x}:{m5:02x}, frame filter {:#010x}",
        mac.filter_register()
    );
    TX.with(|slot| *slot = Some(tx));
    mac.set_interrupts(regs::DMA_INTR_DEFAULT);
    // SAFETY: `on_irq` handles (or disables) every ID it is given and acknowledges the
    // global timer; no critical section is held here.
    unsafe { arm::irq_enable() };
    println!(
        Uart0,
        "cleanup timer: HrTimers on the global-timer comparator (GIC ID {IRQ_GLOBAL_TIMER}), tx_usecs {TX_USECS} = {period} ticks, ArmOnce"
    );

    // The burst. QEMU sends each frame inside the poll-demand write, so DMA_STATUS.TI is
    // visible right after a frame whose descriptor had IC; the ring services it as an ISR
    // would: reclaim, and cancel the cleanup timer once the ring is empty.
    let frame = arp_request(GATEWAY_IP);
    let mut ti_events = 0u32;
    let mut reclaimed = 0usize;
    let programs0 = GT_PROGRAMS.load(Ordering::Relaxed);
    for _ in 0..BURST {
        with_tx(|tx| tx.send(&mac, &frame))??;
        let ev = mac.take_events();
        if ev.tx_done() {
            ti_events += 1;
            reclaimed += with_tx(|tx| tx.service(&mac, ev))?;
        }
    }
    let st = mac.status();
    let (stats, pending) = with_tx(|tx| (tx.stats(), tx.pending()))?;
    println!(
        Uart0,
        "TX burst: {BURST} frames, tx_frames {TX_FRAMES}: IC set on {} descriptors, TI events {ti_events}",
        stats.ic_set
    );
    println!(
        Uart0,
        "DMA_STATUS TU={} TS={} (suspended = 6)",
        // TU is not an enabled source (Linux's default mask), so `take_events` leaves it
        // latched in DMA_STATUS rather than reporting it.
        st.read(DMA_STATUS::TU),
        st.read(DMA_STATUS::TS)
    );
    println!(
        Uart0,
        "reclaimed {reclaimed} descriptors, {pending} pending (TI cleans); cleanup timer started {} times, cancelled {} times by the TI clean that emptied the ring, {} global-timer programmings",
        stats.timer_starts,
        stats.timer_cancels,
        GT_PROGRAMS.load(Ordering::Relaxed).wrapping_sub(programs0)
    );
    let burst_ok = stats.ic_set == u64::from(BURST / TX_FRAMES)
        && reclaimed == BURST as usize
        && pending == 0
        && stats.timer_starts == u64::from(BURST / TX_FRAMES)
        && stats.timer_cancels == stats.timer_starts
        && stats.timer_restarts == 0
        && !timers.is_queued(timer_id);
    // An IC-covered burst costs no timer expiry: none comes within 2 x tx_usecs.
    let mut quiet = Stopwatch::start(gt);
    while quiet.elapsed() < 2 * period {}
    let expiries = EXPIRIES.load(Ordering::Relaxed);
    println!(
        Uart0,
        "no cleanup-timer expiry for the IC-covered burst ({expiries} in 2 x tx_usecs): {}",
        verdict(expiries == 0)
    );
    let burst_ok = burst_ok && expiries == 0;

    // ---- The short burst: no IC, reclaimed by the cleanup timer's interrupt alone ----
    let programs0 = GT_PROGRAMS.load(Ordering::Relaxed);
    let before = with_tx(|tx| tx.stats())?;
    let t_send = gt.now();
    let s_send = Stamp::now();
    let mut ti = 0u32;
    for _ in 0..SHORT_BURST {
        with_tx(|tx| tx.send(&mac, &frame))??;
        if mac.status().is_set(DMA_STATUS::TI) {
            ti += 1;
        }
    }
    let deadline = timers.deadline(timer_id).unwrap_or(0);
    let (after, pending) = with_tx(|tx| (tx.stats(), tx.pending()))?;
    let programs = GT_PROGRAMS.load(Ordering::Relaxed).wrapping_sub(programs0);
    let starts = after.timer_starts - before.timer_starts;
    let restarts = after.timer_restarts - before.timer_restarts;
    let ic = after.ic_set - before.ic_set;
    println!(
        Uart0,
        "TX short burst: {SHORT_BURST} frames < tx_frames {TX_FRAMES}: IC set on {ic} descriptors, TI events {ti}, {pending} pending"
    );
    let armed_ok = starts == 1 && restarts == 0 && programs == 1;
    println!(
        Uart0,
        "cleanup timer armed once: {starts} start, {restarts} restarts, {programs} global-timer programming; deadline +{} ticks after frame 1: {}",
        deadline.wrapping_sub(t_send),
        verdict(armed_ok)
    );
    let came = wait_for_expiries(1);
    let ev = LOG.with(|log| log.last).unwrap_or_default();
    let reclaim_ok =
        came && ev.reclaimed == u64::from(SHORT_BURST) && ev.pending == 0 && !ev.rearmed;
    println!(
        Uart0,
        "timer IRQ: HrTimers::on_interrupt -> TxRing::on_timer reclaimed {} descriptors, {} pending, re-armed {}: {}",
        ev.reclaimed,
        ev.pending,
        ev.rearmed,
        verdict(reclaim_ok)
    );
    let latency = ev.entry.wrapping_sub(t_send);
    let pmu_ns = ev.stamp.ns_since(s_send);
    let late = ev.now.saturating_sub(deadline);
    let late_bound = LATE_BOUND.ticks_at(speed, GT_HZ);
    let timing_ok = ev.now >= deadline
        && deadline.wrapping_sub(t_send) >= period
        && latency >= period
        && latency <= period + late_bound;
    println!(
        Uart0,
        "reclaim {latency} ticks ({pmu_ns} ns PMCCNTR) after frame 1, tx_usecs {TX_USECS} = {period} ticks: never earlier, {late} ticks after the deadline (bound +{LATE_BOUND} = +{late_bound}): {}",
        verdict(timing_ok)
    );
    let timer_ok = rate_ok
        && smp_ok
        && shared_ok
        && burst_ok
        && ic == 0
        && ti == 0
        && pending == SHORT_BURST as usize
        && armed_ok
        && reclaim_ok
        && timing_ok
        && LOG.with(|log| log.other) == Some(0);

    // The replies: slirp answered during the TX writes; wait at most 500 ms of virtual time.
    let mut watch = Stopwatch::start(pmu::Cycles);
    let mut replies = 0u32;
    let mut first: Option<(u32, [u8; 4])> = None;
    loop {
        match rx.receive(&mac) {
            Ok(f) => {
                if let Some(ip) = f.as_slice().and_then(arp_reply_sender) {
                    replies += 1;
                    // FL as the descriptor reports it: the frame and its 4-byte FCS.
                    first.get_or_insert((f.len() as u32 + 4, ip));
                }
            }
            Err(Error::WouldBlock) => {
                if replies > 0 || watch.elapsed() > 500_000_000 {
                    break;
                }
            }
            Err(e) => return Err(e),
        }
    }
    mac.ack(regs::DMA_STATUS_W1C);
    match first {
        Some((fl, [a, b, c, d])) => {
            println!(
                Uart0,
                "RX: ARP reply FL={fl} from {a}.{b}.{c}.{d} ({replies} replies received)"
            );
            Ok(timer_ok && [a, b, c, d] == GATEWAY_IP)
        }
        None => {
            println!(Uart0, "RX: no ARP reply within 500 ms");
            Ok(false)
        }
    }
}
