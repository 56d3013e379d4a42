//! Firmware for QEMU's LoongArch `virt` machine with two cores (`-smp 2`): an embassy
//! executor on each core, one embassy time driver (core 0's constant timer, through
//! `loongarch_timer::embassy::Driver`), one rtic-time monotonic (core 1's constant timer,
//! through loongarch-timer's `rtic_monotonic!` with the firmware's own pend), and tasks on both cores waiting on both. A wake
//! due for a task on the other core reaches it by an IPI.
//!
//! # Boot (`fw_common::loongarch_board!`)
//!
//! The executors, their wakers, embassy-time's queue and rtic-time's linked list are built
//! on atomic read-modify-write (LL/SC and AM* instructions), which belong on cached coherent
//! memory. QEMU starts the core in direct-address mode with strongly-ordered uncached data
//! accesses, so the entry code first does what a real boot does: direct-mapped windows DMW0
//! (`0x8000...`, devices, strongly-ordered uncached) and DMW1 (`0x9000...`, RAM, coherent
//! cached), the image linked in DMW1, CRMD = `0xb0` (paged mode). The first lines printed
//! show it. CPU1 waits in QEMU's boot-ROM stub; once core 0 has its time driver it releases
//! CPU1 through its mailbox and an IPI (`fw_common::loongarch::smp::start_secondary`, as
//! `loongarch-virt` does) at `__fw_la_secondary` (physical address), which sets the same
//! windows, paged mode, its own 64 KiB stack (`link.x`), EENTRY and TLBRENTRY, and calls
//! `secondary_main`. QEMU raises the IPI line only when an IPI is sent, so a release sent
//! before the ROM stub has enabled its IPIs is lost (seen: CPU1 stayed in the stub's
//! `idle`); core 0 sends it again every millisecond until CPU1 says it is up.
//!
//! The critical section is fw-common's multi-core one (`loongarch_smp_critical_section_impl!`:
//! CRMD.IE off plus a spinlock across cores). Both cores enable its IPI bit
//! (`smp_cs::LOCK_IPI`), so a core that finds the lock held waits in `idle` until the holder
//! frees it and sends that IPI. Spinning there cost up to 50 ms under `-icount` (QEMU runs
//! the vCPUs in turn, and the spinner kept the holder off the CPU until its turn ended);
//! waiting in `idle` brought the worst wake-up lateness at shift 0 from 5,000,000 ticks to
//! about 1,500.
//!
//! # One executor per core, and its pender
//!
//! Each core runs an `embassy_executor::raw::Executor` (no platform feature) whose context
//! is the core's number. This crate exports embassy's `__pender`: it sets the target core's
//! work flag and, when the target is another core, sends it IPI bit [`IPI_WORK`]
//! (`smp::send_ipi`, IOCSR `IPI_SEND`, after a `dbar`). Every core enables IPIs (IOCSR
//! `IPI_EN`, ECFG.LIE bit 12) and its handler clears them (`IPI_CLEAR`, `smp::ipi_take`).
//!
//! A core's loop polls its executor, then, with CRMD.IE off, takes its work flag; while the
//! flag is clear it runs `idle 0`, then turns IE on (the interrupt that ended the idle is
//! taken there) and off again. `idle` ends when an interrupt enabled in ECFG.LIE is
//! pending, whatever CRMD.IE says (QEMU: `ESTAT.IS & ECFG.LIE`), and returns at once if one
//! is pending already; a pender on the other core sets the flag before it sends the IPI, and
//! the IPI stays pending until the handler clears it. So a wake that comes between the
//! check and the `idle` still ends the `idle`: none is lost. Waiting in `idle` rather than
//! spinning is also what keeps `-icount` runs going: there QEMU runs the vCPUs in turn, and
//! a spinning core holds the other one off.
//!
//! # One embassy time driver, for both cores
//!
//! embassy allows one time driver. It is core 0's constant timer. Tasks on core 1 read
//! `Instant::now()` through it too (the stable counter is chip-wide; `PinnedCounter::now`
//! reads `rdtime.d` on the calling core). A wake scheduled on core 1 lands in the driver's
//! queue, but core 1 cannot program core 0's timer: the driver's programming is refused
//! there (`Error::WrongCpu`, counted as `refused`) and the alarm then holds no deadline. So
//! the registered driver is a thin wrapper, [`SmpDriver`], that after a `schedule_wake` on
//! core 1 looks at the alarm and, if it holds no deadline, sends core 0 IPI bit
//! [`IPI_REARM`]; core 0's handler calls `DRIVER.on_interrupt()`, which (no timer interrupt
//! pending, no deadline held) looks at the queue again, wakes what is due and programs the
//! earliest. The wake of a core-1 task then happens in core 0's timer interrupt and reaches
//! core 1 through the pender's IPI.
//!
//! # rtic-time, on core 1's timer, for both cores
//!
//! A core has one timer and core 0's is embassy's, so the rtic-time monotonic [`Mono`] runs
//! on core 1's constant timer, and tasks on both cores share it (the mirror image of the
//! embassy driver). rtic-time's futures run on any executor: here the embassy executors
//! poll them. rtic-time programs the hardware only from its interrupt handler
//! (`on_monotonic_interrupt`); when a new wait becomes the earliest it asks for that handler
//! to run (`pend_interrupt`). This firmware's pend function sends core 1 IPI bit
//! [`IPI_RTIC`] from core 0, and on core 1 runs the handler's work in place (`Mono::serve()`,
//! no interrupt); core 1's handler runs `Mono::on_interrupt()` for its TI and for that IPI. So
//! core 0 never touches core 1's timer. loongarch-timer's `rtic_monotonic!` pends software
//! interrupt 0 on the calling core by default, which is wrong across cores and, under
//! QEMU, lost while the core idles (see [`pend_mono`]); this firmware gives the macro its
//! own pend (`pend = pend_mono`).
//!
//! # What runs
//!
//! On each core, three embassy-time tasks:
//!
//! - `sleeper`: `Timer::at` deadlines 20 to 219 µs apart;
//! - `ticker`: a `Ticker::every(150 µs)`;
//! - `timeouts`: a 60 µs timeout (`with_deadline`, embassy-time's `with_timeout` at an
//!   instant) around a `Timer::at` of 40 µs (even rounds) or 80 µs (odd rounds);
//!
//! and two rtic-time tasks:
//!
//! - `rtic_sleeper`: `Mono::delay_until` 20 to 139 µs ahead;
//! - `rtic_timeouts`: a 50 µs `Mono::timeout_at` around a `Mono::delay_until` of 30 or 70 µs.
//!
//! Core 0 starts its tasks once core 1 has started the monotonic: a `starter` task re-sends
//! CPU1's release every millisecond (embassy-time) until CPU1 runs, then waits, with no
//! timer due but a one-second timeout, for core 1 to wake it when the monotonic is started
//! and timed. Core 1 also runs `alone`: once core 0's
//! three embassy tasks are done (so core 0 has no wait of its own and its timer is idle),
//! 100 more `Timer::at` waits on core 1, each of which only core 0's timer, programmed on
//! core 1's IPI request, can end. Each is guarded by a 100 ms rtic-time timeout on core 1's
//! timer, and one that only the guard ended counts as lost (checked: with the re-arm IPI
//! taken out, 99 of 100 were lost and the run failed; with it, none).
//!
//! Each task, when it resumes, reads the time base (the stable counter, through a
//! [`PinnedCounter`] of its own, not through the runtime) and compares it with its deadline
//! in the same ticks (embassy-time runs at `tick-hz-100_000_000`, the counter's CPUCFG rate,
//! checked at start-up; rtic-time's instants are the counter's ticks). A wake before its
//! deadline is **early**. Every deadline is an instant the task computed itself, so it is
//! exact at any `-icount` setting, including none. The last task to finish, on either core,
//! prints per core and runtime `<runtime> core<N>: wakes=<n> early=<k> max_late_ticks=<m>`,
//! the IPI counts and the figures below, and ends the run.
//!
//! # Any `-icount` shift
//!
//! Nothing asserted depends on how much virtual time an instruction takes: `expected.txt`
//! requires at least 1000 wakes per core and runtime, none early, every IPI of the pender
//! accounted for, and shows the lateness without bounding it (interrupt latency, the
//! cross-core IPI, the executor's poll and the other tasks' work all scale with the shift).
//! The `bench:` instruction counts come from timed loops and a calibration loop of known
//! length (core 0, before CPU1 is released), so they are right at any fixed shift; under
//! `shift=auto` they are approximate. `fw_embassy_now_insns` and
//! `fw_pinned_counter_now_insns` are timed on core 0 before CPU1 is released;
//! `fw_rtic_now_insns` (`Mono::now()`) on core 1 right after it started the monotonic,
//! while core 0 waits in its `starter` with no timer due, because under
//! `-icount` virtual time advances with the instructions of whichever vCPU runs.
//!
//! Run it with `cargo xtask qemu loongarch-virt-async`.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use core::task::Waker;

use embassy_executor::{SpawnToken, Spawner, raw};
use embassy_time::{Duration, Instant, Ticker, Timer, with_deadline};
use fw_common::ledger::WaitLedger;
use fw_common::loongarch::smp::{self, ECFG_IPI};
use fw_common::loongarch::virt::{Uart0, power_off};
use fw_common::loongarch::{self, cpu_id, rdtime, smp_cs, spin_insns};
use fw_common::wakes::{WakeStats, print_now_overhead};
use fw_common::{CsCell, StaticCell, println, verdict};
use hwtimer_core::{ClockEvent, Monotonic};
use loongarch_timer::csr::{CSR_CNTC, NativeCsr};
use loongarch_timer::pinned::{CounterOffset, PinnedCounter, pair, sync_counter};
use loongarch_timer::{Config, ConstantClock, StableCounter};
use rtic_time::Timebase;
use rtic_time::fugit::MonotonicTimerInstantU64;

/// Cores the firmware runs on (`-smp 2`).
const CPUS: usize = 2;
/// The core whose constant timer is embassy's time driver.
const TIME_CORE: u32 = 0;
/// The core whose constant timer backs the rtic-time monotonic.
const RTIC_CORE: u32 = 1;
/// IPI bit of the pender: the target core has executor work.
pub const IPI_WORK: u32 = 1;
/// IPI bit asking core 0 to look at the embassy driver's queue again (a wake scheduled on
/// core 1 that core 1 could not program).
pub const IPI_REARM: u32 = 2;
/// IPI bit asking core 1 to run the rtic-time monotonic's interrupt handler.
pub const IPI_RTIC: u32 = 3;
/// The IPI bits every core enables: the three above and the critical section's
/// (`smp_cs::LOCK_IPI`, so a core waiting for the lock idles instead of spinning).
const IPI_MASK: u32 =
    (1 << IPI_WORK) | (1 << IPI_REARM) | (1 << IPI_RTIC) | (1 << smp_cs::LOCK_IPI);
/// ESTAT.IS, the pending-interrupt bits.
const ESTAT_IS: u64 = 0x1fff;

/// `Timer::at` rounds of the sleeper, per core.
const SLEEPS: u64 = 400;
/// Ticks of the ticker, per core.
const TICKS: u64 = 400;
/// Rounds of the timeout task, per core.
const TIMEOUTS: u64 = 300;
/// The ticker's period.
const TICK_PERIOD_US: u64 = 150;
/// The timeout, from the start of each round.
const TIMEOUT_US: u64 = 60;
/// `Mono::delay_until` rounds of the rtic-time sleeper, per core.
const RTIC_SLEEPS: u64 = 600;
/// Rounds of the rtic-time timeout task, per core.
const RTIC_TIMEOUTS: u64 = 400;
/// The rtic-time timeout, from the start of each round.
const RTIC_TIMEOUT_US: u64 = 50;
/// Embassy wakes each core's tasks record.
const EMBASSY_WAKES: u64 = SLEEPS + TICKS + TIMEOUTS;
/// rtic-time wakes each core's tasks record.
const RTIC_WAKES: u64 = RTIC_SLEEPS + RTIC_TIMEOUTS;
/// Tasks that report when they finish (five per core).
const TASKS: u32 = 5 * CPUS as u32 + 1;
/// `Timer::at` waits of core 1's `alone` task, made once core 0's embassy tasks are done.
const ALONE_WAITS: u64 = 100;
/// How long past its deadline `alone` waits (on rtic-time) before it calls a wait lost:
/// 100 ms, far beyond any lateness seen (about 1.8 ms at shift 4, 50 ms without icount).
const ALONE_GUARD_TICKS: u64 = 10_000_000;
/// [`WAITS`] slots: the sleeper's wait, per core.
const SLOT_SLEEP: usize = 0;
/// The rtic timeout task's `timeout_at` instant, per core.
const SLOT_OUTER: usize = CPUS;
/// The rtic timeout task's inner `delay_until`, per core.
const SLOT_INNER: usize = 2 * CPUS;
/// `alone`'s guard.
const SLOT_GUARD: usize = 3 * CPUS;
/// Slots in all.
const WAIT_SLOTS: usize = 3 * CPUS + 1;
/// Instructions a runtime's `now()` may add to the time base's read (the target of
/// docs/performance.md, "Hot paths").
const NOW_OVERHEAD_LIMIT: u64 = 8;
/// Calls per timed loop (`bench:` lines).
const CALLS: u64 = 10_000;
/// Rounds of core 1's timed `Mono::now()` loop (the least is kept).
const RTIC_NOW_ROUNDS: u32 = 5;
/// Iterations of the calibration loop (2 instructions each).
const CALIBRATION_ITERATIONS: u64 = 100_000;
/// One step of the waits for the other core (the starter's release retries, `alone`'s wait
/// for core 0's tasks), in µs.
const READY_STEP_US: u64 = 1000;
/// Most steps of those waits (one virtual second).
const READY_STEPS: u32 = 1000;
/// Stable-counter ticks per microsecond (100 MHz, checked at start-up).
const TICKS_PER_US: u64 = 100;

/// rtic-time's instants on the monotonic: stable-counter ticks at 100 MHz.
type MonoInstant = MonotonicTimerInstantU64<100_000_000>;

fw_common::loongarch_board! {
    name: "loongarch-virt-async",
    console: Uart0,
    main: run,
    irq: on_irq,
    power_off: power_off,
}

fw_common::loongarch_smp_critical_section_impl!();

/// embassy-time's one driver: core 0's constant timer and the stable counter.
static DRIVER: loongarch_timer::embassy::Driver = loongarch_timer::embassy::Driver::new();

/// The registered time driver: [`DRIVER`], plus the IPI that asks core 0 to program a wake
/// core 1 scheduled (module docs).
struct SmpDriver;

impl embassy_time_driver::Driver for SmpDriver {
    fn now(&self) -> u64 {
        DRIVER.now()
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        DRIVER.schedule_wake(at, waker);
        // On core 1 the driver cannot program core 0's timer: it reports the refusal
        // (`refusal()`, `Error::WrongCpu`) and keeps the wake queued, and core 0 has to
        // look at the queue (`on_interrupt`). An IPI too many only costs core 0 one look.
        if cpu_id() != TIME_CORE && DRIVER.refusal().is_some() {
            REARMS_SENT.fetch_add(1, Ordering::Relaxed);
            smp::send_ipi(TIME_CORE, IPI_REARM);
        }
    }
}

embassy_time_driver::time_driver_impl!(static SMP_DRIVER: SmpDriver = SmpDriver);

loongarch_timer::rtic_monotonic!(Mono, 100_000_000, pend = pend_mono);

/// rtic-time's `pend_interrupt`: run the monotonic's handler on [`RTIC_CORE`], whose timer
/// it programs. From core 0, an IPI. On core 1 itself, the handler's work in place
/// (`Mono::serve()`, hwtimer-core's default pend: one critical section, no interrupt), which
/// also avoids raising an interrupt on oneself; the two ways to do that both fail under QEMU:
///
/// - software interrupt 0 (what loongarch-timer's own macro pends): a bit set in ESTAT
///   through `csrxchg` neither ends `idle` nor is taken before the next hardware interrupt
///   (seen: core 1 halted with ESTAT = 1 and ECFG = 0x1801, no timer armed, the run hung);
/// - an IPI to oneself: QEMU aborts under `-icount` ("Raised interrupt while not in I/O
///   function": the IOCSR write raises the writer's own line in the middle of a block).
fn pend_mono() {
    if cpu_id() == RTIC_CORE {
        RTIC_SELF_PENDS.fetch_add(1, Ordering::Relaxed);
        Mono::serve();
    } else {
        RTIC_PENDS_SENT.fetch_add(1, Ordering::Relaxed);
        smp::send_ipi(RTIC_CORE, IPI_RTIC);
    }
}

/// The executors (`raw::Executor::poll` needs `&'static`), one per core.
static EXECUTORS: [static_cell::StaticCell<raw::Executor>; CPUS] =
    [const { static_cell::StaticCell::new() }; CPUS];
/// Each core's work flag: set by the pender, taken by the core's loop.
static WORK: [AtomicBool; CPUS] = [const { AtomicBool::new(false) }; CPUS];
/// The tasks' own view of the time base (the driver and the monotonic hold others).
static TIME: StaticCell<PinnedCounter<NativeCsr>> = StaticCell::new();
/// Every embassy wake, per core.
static EMBASSY: [CsCell<WakeStats>; CPUS] = [const { CsCell::new(WakeStats::new()) }; CPUS];
/// Stable-counter time at the entry of core 0's last timer interrupt handler and at its end
/// (after the driver's `on_interrupt`), for the lateness breakdown.
static TI_ENTRY: AtomicU64 = AtomicU64::new(0);
/// See [`TI_ENTRY`].
static TI_EXIT: AtomicU64 = AtomicU64::new(0);
/// The worst embassy wake that the last timer interrupt before it explains, split.
static WORST: CsCell<LateParts> = CsCell::new(LateParts::new());

/// One embassy wake's lateness in stable-counter ticks, split at core 0's timer handler:
/// deadline → handler entry (exception entry, the board's vector, the ESTAT dispatch),
/// handler (the driver: acknowledge, queue, re-arm, wake), and handler end → the task
/// running again (the pender's IPI when the task is core 1's, the executor's poll, the
/// task's own `now()`).
#[derive(Clone, Copy)]
struct LateParts {
    total: u64,
    entry: u64,
    handler: u64,
    after: u64,
    /// Wakes the split applies to (the last timer interrupt came after the deadline and
    /// ended before the task read the time).
    attributed: u64,
}

impl LateParts {
    const fn new() -> Self {
        Self {
            total: 0,
            entry: 0,
            handler: 0,
            after: 0,
            attributed: 0,
        }
    }
}

/// Stable-counter ticks to ns (100 MHz).
const fn ticks_ns(ticks: u64) -> u64 {
    ticks * 1000 / TICKS_PER_US
}

/// Splits an embassy wake's lateness at core 0's last timer handler ([`LateParts`]) and
/// keeps the worst one that split applies to.
fn split_late(deadline: u64, now: u64) {
    let exit = TI_EXIT.load(Ordering::Acquire);
    let entry = TI_ENTRY.load(Ordering::Relaxed);
    if entry < deadline || exit < entry || now < exit {
        return;
    }
    WORST.with(|w| {
        w.attributed += 1;
        let total = now - deadline;
        if total > w.total {
            *w = LateParts {
                total,
                entry: entry - deadline,
                handler: exit - entry,
                after: now - exit,
                attributed: w.attributed,
            };
        }
    });
}
/// Every rtic-time wake, per core.
static RTIC: [CsCell<WakeStats>; CPUS] = [const { CsCell::new(WakeStats::new()) }; CPUS];
/// Pender IPIs sent to each core.
static IPIS_SENT: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Pender IPIs each core's handler found (two sends before one handling are one).
static IPIS_RECEIVED: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Re-arm requests core 1 sent core 0, and those core 0 handled.
static REARMS_SENT: AtomicU32 = AtomicU32::new(0);
static REARMS_RECEIVED: AtomicU32 = AtomicU32::new(0);
/// rtic-time pends on core 1 itself (the timer armed at once).
static RTIC_SELF_PENDS: AtomicU32 = AtomicU32::new(0);
/// CPU1's releases sent by core 0 (`smp::start_secondary`: the first in `run`, the
/// starter's retries).
static RELEASES_SENT: AtomicU32 = AtomicU32::new(0);
/// Release IPIs ([`smp::RELEASE_IPI`]) core 1's handler found: retries that reached it after
/// it had left the ROM stub ([`on_irq`] says why they can).
static LATE_RELEASES: AtomicU32 = AtomicU32::new(0);
/// The counter compensation core 0 captured before anything read the stable counter
/// (`CounterOffset::capture`), published for core 1 before its release.
static COUNTER_OFFSET: CsCell<Option<CounterOffset>> = CsCell::new(None);
/// Each core's CNTC read back right after its `sync_counter`.
static CNTC_SEEN: [AtomicU64; CPUS] = [const { AtomicU64::new(0) }; CPUS];

/// Writes core 0's counter compensation into the calling core's CNTC (`sync_counter`, as
/// Linux does on each CPU) and records what CNTC then holds; on each core before anything on
/// it reads the stable counter. The time base both runtimes share is a `PinnedCounter`
/// read on both cores: where the cores' CNTC differ, its published maximum would follow
/// the core that runs ahead and time would stall on the other. QEMU TCG ignores CNTC in
/// `rdtime.d`, so here the read-back is what shows it was done. Whether there was an
/// offset to write.
fn sync_this_core(csr: &NativeCsr, cpu: usize) -> bool {
    let Some(offset) = COUNTER_OFFSET.with(|o| *o).flatten() else {
        return false;
    };
    // SAFETY: PLV0 on the core whose CNTC this writes; nothing on this core has read the
    // stable counter yet and no deadline is outstanding on it.
    unsafe { sync_counter(csr, offset) };
    if let Some(seen) = CNTC_SEEN.get(cpu) {
        seen.store(
            hwtimer_core::RegisterBus::read_word(csr, CSR_CNTC.offset()),
            Ordering::Relaxed,
        );
    }
    true
}
/// rtic-time pends sent to core 1 by IPI from core 0, and those core 1 handled.
static RTIC_PENDS_SENT: AtomicU32 = AtomicU32::new(0);
static RTIC_PENDS_RECEIVED: AtomicU32 = AtomicU32::new(0);
/// Timer interrupts handled, per core (core 0: embassy's, core 1: rtic-time's).
static TIMER_IRQS: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Interrupts that were none of the above.
static OTHER_IRQS: AtomicU32 = AtomicU32::new(0);
/// [`TIME`]'s value, published for core 1 before its release.
static SHARED_TIME: AtomicPtr<PinnedCounter<NativeCsr>> = AtomicPtr::new(core::ptr::null_mut());
/// Core 0's calibration: thousandths of a virtual ns per instruction.
static NS_MILLI: AtomicU64 = AtomicU64::new(0);
/// Ticks of [`CALLS`] `Mono::now()` calls less an empty loop, timed on core 1.
static RTIC_NOW_TICKS: AtomicU64 = AtomicU64::new(0);
/// `PinnedCounter::now`'s instructions in hundredths, timed on core 0 (the base of the
/// runtimes' `now()` limit).
static PINNED_NOW_CENTI: AtomicU64 = AtomicU64::new(0);
/// The starter's waker while it waits for [`MONO_READY`].
static READY_WAKER: CsCell<Option<Waker>> = CsCell::new(None);
/// Core 1 is running `secondary_main`.
static CORE_UP: AtomicBool = AtomicBool::new(false);
/// Core 1 started the monotonic (or failed to: [`FAILED`]).
static MONO_READY: AtomicBool = AtomicBool::new(false);
/// Embassy tasks finished, per core.
static EMBASSY_DONE: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// The wakes of core 1's `alone` task.
static ALONE: CsCell<WakeStats> = CsCell::new(WakeStats::new());
/// Waits of `alone` that no wake ended within [`ALONE_GUARD_TICKS`].
static ALONE_LOST: AtomicU32 = AtomicU32::new(0);
/// Core 0's embassy tasks were done when `alone` began.
static ALONE_AFTER_CORE0: AtomicBool = AtomicBool::new(false);
/// Tasks finished.
static DONE: AtomicU32 = AtomicU32::new(0);
/// Timeout rounds won by the future due first, per runtime (embassy, rtic-time).
static EXPECTED_WINNER: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];
/// A check outside the wake counts failed (printed where it happened).
static FAILED: AtomicU32 = AtomicU32::new(0);
/// The rtic-time waits of the run, by slot ([`SLOT_SLEEP`], [`SLOT_OUTER`], [`SLOT_INNER`]
/// plus the core, [`SLOT_GUARD`]), for core 1's timer handler to tell the interrupts that
/// serve no wait (fw-common's `ledger`).
static WAITS: WaitLedger<WAIT_SLOTS> = WaitLedger::new();

/// embassy's pender: `context` is the number of the core whose executor has work. Sets that
/// core's flag, then, for another core, sends it [`IPI_WORK`] (the flag is written before
/// the send, `smp::send_ipi`'s `dbar`).
#[unsafe(export_name = "__pender")]
fn pender(context: *mut ()) {
    let target = context as usize;
    let Some(flag) = WORK.get(target) else {
        return;
    };
    flag.store(true, Ordering::Release);
    if target != cpu_id() as usize {
        IPIS_SENT[target].fetch_add(1, Ordering::Relaxed);
        smp::send_ipi(target as u32, IPI_WORK);
    }
}

/// The interrupt handler of both cores (`loongarch_board!` calls it with ESTAT, interrupts
/// off): core 0's timer is embassy's, core 1's is rtic-time's; IPIs carry
/// the pender's wakes, core 1's re-arm requests and rtic-time's pends.
fn on_irq(estat: u64) {
    let cpu = cpu_id();
    let me = (cpu as usize).min(CPUS - 1);
    let mut known = 0;
    if estat & loongarch::ESTAT_TI != 0 {
        known |= loongarch::ESTAT_TI;
        TIMER_IRQS[me].fetch_add(1, Ordering::Relaxed);
        if cpu == TIME_CORE {
            // `now_hw` takes no lock (`init_static`): about 10 instructions each.
            TI_ENTRY.store(DRIVER.now_hw(), Ordering::Relaxed);
            DRIVER.on_interrupt();
            TI_EXIT.store(DRIVER.now_hw(), Ordering::Release);
        } else {
            // Instrumentation in the handler: what the backend had armed (one critical
            // section) and which waits were live. rtic-time's lateness figures include its
            // cost; the instruction figures are timed elsewhere and do not.
            let armed = Mono::backend().with(|a| a.deadline()).flatten();
            WAITS.classify(Mono::backend().now(), armed);
            Mono::on_interrupt();
        }
    }
    if estat & ECFG_IPI != 0 {
        known |= ECFG_IPI;
        let bits = smp::ipi_take();
        // A late release. Core 0 re-sends CPU1's release every millisecond while CORE_UP
        // is clear (the first can be lost, see `starter`). The ROM stub clears the IPI bits
        // pending when it wakes and jumps here with IPI_EN left all ones; a retry sent
        // after that clear and before `secondary_main` sets CORE_UP (or sent by a starter
        // that read CORE_UP just before it was set) lands on core 1 when it already runs
        // this firmware. QEMU then raises core 1's IPI line at once (IPI_EN all ones), or,
        // after `ipi_enable(IPI_MASK)` (no bit 0), keeps the bit in IPI_STATUS until the next
        // IPI's `ipi_take` returns it (fw-common `smp::start_secondary`; QEMU
        // hw/loongarch/boot.c, hw/intc/loongson_ipi_common.c). Counted as an unknown bit it
        // failed the run ("1 other interrupts") whenever a retry fell in that window, which
        // a loaded host (CPU1's thread scheduled late) makes more likely. No handshake can
        // close the window from core 0 (it cannot read core 1's IPI state), so core 1
        // takes the bit for what it is.
        let late_release = if cpu == RTIC_CORE {
            bits & (1 << smp::RELEASE_IPI)
        } else {
            0
        };
        if late_release != 0 {
            LATE_RELEASES.fetch_add(1, Ordering::Relaxed);
        }
        if bits & (1 << IPI_WORK) != 0 {
            // The flag was set before the send; the loop polls once this handler returns.
            IPIS_RECEIVED[me].fetch_add(1, Ordering::Relaxed);
        }
        if bits & (1 << IPI_REARM) != 0 && cpu == TIME_CORE {
            REARMS_RECEIVED.fetch_add(1, Ordering::Relaxed);
            DRIVER.on_interrupt();
        }
        if bits & (1 << IPI_RTIC) != 0 && cpu == RTIC_CORE {
            RTIC_PENDS_RECEIVED.fetch_add(1, Ordering::Relaxed);
            Mono::on_interrupt();
        }
        // smp_cs::LOCK_IPI: a lock release for a wait that had ended; nothing to do.
        if bits & !(IPI_MASK | late_release) != 0 {
            OTHER_IRQS.fetch_add(1, Ordering::Relaxed);
        }
    }
    if estat & ESTAT_IS & !known != 0 {
        OTHER_IRQS.fetch_add(1, Ordering::Relaxed);
        println!(
            Uart0,
            "PANIC: unexpected interrupt on core {cpu}, ESTAT = {estat:#x}"
        );
        power_off();
    }
}

/// Core `cpu`'s executor loop: poll, then idle with interrupts off until the pender has set
/// the work flag (module docs: why no wake is lost). Interrupts are on while polling.
fn run_executor(cpu: usize, spawn_tasks: impl FnOnce(Spawner)) -> ! {
    let Some(flag) = WORK.get(cpu) else {
        loongarch::finish(Uart0, false, power_off)
    };
    let executor: &'static raw::Executor =
        EXECUTORS[cpu.min(CPUS - 1)].init(raw::Executor::new(cpu as *mut ()));
    spawn_tasks(executor.spawner());
    // SAFETY: `on_irq` handles every enabled source (TI and the IPIs, each
    // acknowledged there); no critical section is held here.
    unsafe { loongarch::irq_enable() };
    loop {
        // SAFETY: `poll` runs only here, on the executor's own core, never re-entrantly
        // (the pender only sets a flag and sends an IPI), and the executor is 'static.
        unsafe { executor.poll() };
        loongarch::irq_disable();
        while !flag.swap(false, Ordering::Acquire) {
            loongarch::idle();
            // SAFETY: as above; the interrupt that ended the idle is taken here.
            unsafe { loongarch::irq_enable() };
            loongarch::irq_disable();
        }
        // SAFETY: as above.
        unsafe { loongarch::irq_enable() };
    }
}

/// Spawns `token`, or counts a failure.
fn spawn<S>(spawner: Spawner, token: Result<SpawnToken<S>, embassy_executor::SpawnError>) {
    match token {
        Ok(token) => spawner.spawn(token),
        Err(_) => {
            println!(Uart0, "spawn failed");
            FAILED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The embassy-time tasks of core `cpu`.
fn spawn_embassy(spawner: Spawner, cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    spawn(spawner, sleeper(cpu, time));
    spawn(spawner, ticker(cpu, time));
    spawn(spawner, timeouts(cpu, time));
}

/// The rtic-time tasks of core `cpu`.
fn spawn_rtic(spawner: Spawner, cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    spawn(spawner, rtic_sleeper(cpu, time));
    spawn(spawner, rtic_timeouts(cpu, time));
}

/// A task on core `cpu` resumed at `now` for `deadline`, having started to wait at
/// `scheduled`.
fn record(stats: &[CsCell<WakeStats>; CPUS], cpu: usize, deadline: u64, scheduled: u64, now: u64) {
    if core::ptr::eq(stats, &EMBASSY) {
        // Lateness counts from the later of the deadline and the scheduling (as `WakeStats`).
        split_late(deadline.max(scheduled), now);
    }
    if let Some(s) = stats.get(cpu) {
        s.with(|s| s.record(deadline, scheduled, now));
    }
    if cpu != cpu_id() as usize {
        println!(Uart0, "a core {cpu} task ran on core {}", cpu_id());
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

/// A task is done; the last one, on whichever core, prints the results and ends the run.
fn finished() {
    if DONE.fetch_add(1, Ordering::AcqRel) + 1 == TASKS {
        report();
    }
}

/// `Timer::at` deadlines at varying distances.
#[embassy_executor::task(pool_size = 2)]
async fn sleeper(cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..SLEEPS {
        let scheduled = time.now();
        let at = Instant::from_ticks(scheduled) + Duration::from_micros(20 + (i * 37) % 200);
        Timer::at(at).await;
        record(&EMBASSY, cpu, at.as_ticks(), scheduled, time.now());
    }
    EMBASSY_DONE[cpu].fetch_add(1, Ordering::Release);
    finished();
}

/// A `Ticker::every`, started at a known instant (`reset_at`), each tick checked against
/// `start + k * period`.
#[embassy_executor::task(pool_size = 2)]
async fn ticker(cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    let period = Duration::from_micros(TICK_PERIOD_US);
    let mut ticker = Ticker::every(period);
    let start = time.now();
    ticker.reset_at(Instant::from_ticks(start)); // first tick at start + period, exactly
    for k in 1..=TICKS {
        let scheduled = time.now();
        ticker.next().await;
        record(
            &EMBASSY,
            cpu,
            start + k * period.as_ticks(),
            scheduled,
            time.now(),
        );
    }
    EMBASSY_DONE[cpu].fetch_add(1, Ordering::Release);
    finished();
}

/// A timeout (`with_deadline`, `with_timeout` at an instant) around a `Timer::at`: the inner
/// timer is due first on even rounds (40 µs against 60 µs), the timeout on odd ones (80 µs).
/// Whichever completes, its own deadline must have passed.
#[embassy_executor::task(pool_size = 2)]
async fn timeouts(cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..TIMEOUTS {
        let inner_us = if i % 2 == 0 { 40 } else { 80 };
        let scheduled = time.now();
        let inner = Instant::from_ticks(scheduled) + Duration::from_micros(inner_us);
        let timeout_at = Instant::from_ticks(scheduled) + Duration::from_micros(TIMEOUT_US);
        let result = with_deadline(timeout_at, Timer::at(inner)).await;
        let now = time.now();
        let deadline = match result {
            Ok(()) => inner,
            Err(_) => timeout_at,
        };
        if result.is_ok() == (i % 2 == 0) {
            EXPECTED_WINNER[0].fetch_add(1, Ordering::Relaxed);
        }
        record(&EMBASSY, cpu, deadline.as_ticks(), scheduled, now);
    }
    EMBASSY_DONE[cpu].fetch_add(1, Ordering::Release);
    finished();
}

/// Core 1's embassy waits once core 0 has no embassy wait of its own (its three tasks are
/// done, so core 0's timer is idle): each wake must come from core 0's timer, programmed
/// because core 1 asked by IPI ([`IPI_REARM`]). Each wait is guarded by an rtic-time
/// timeout (core 1's own timer) [`ALONE_GUARD_TICKS`] past its deadline, so a wake that
/// never comes is counted as lost instead of hanging the run.
#[embassy_executor::task]
async fn alone(time: &'static PinnedCounter<NativeCsr>) {
    let mut steps = 0;
    while EMBASSY_DONE[0].load(Ordering::Acquire) < 3 && steps < READY_STEPS {
        Mono::delay_until(MonoInstant::from_ticks(
            time.now() + READY_STEP_US * TICKS_PER_US,
        ))
        .await;
        steps += 1;
    }
    ALONE_AFTER_CORE0.store(
        EMBASSY_DONE[0].load(Ordering::Acquire) == 3,
        Ordering::Relaxed,
    );
    for i in 0..ALONE_WAITS {
        let scheduled = time.now();
        let at = Instant::from_ticks(scheduled) + Duration::from_micros(20 + (i * 37) % 100);
        let guard_ticks = at.as_ticks() + ALONE_GUARD_TICKS;
        let guard = MonoInstant::from_ticks(guard_ticks);
        // When the guard ends the wait, rtic-time's timeout looks at the timer first and
        // finds it due: judge by the time instead of by the result.
        WAITS.live(SLOT_GUARD, Some(guard_ticks));
        let _ = Mono::timeout_at(guard, Timer::at(at)).await;
        let now = time.now();
        WAITS.live(SLOT_GUARD, None);
        if now < guard_ticks {
            WAITS.dropped(SLOT_GUARD, guard_ticks);
        }
        if now >= guard_ticks {
            ALONE_LOST.fetch_add(1, Ordering::Relaxed);
        } else {
            ALONE.with(|s| s.record(at.as_ticks(), scheduled, now));
        }
    }
    finished();
}

/// `Mono::delay_until` deadlines 20 to 139 µs ahead.
#[embassy_executor::task(pool_size = 2)]
async fn rtic_sleeper(cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..RTIC_SLEEPS {
        let scheduled = time.now();
        let at = scheduled + (20 + (i * 29) % 120) * TICKS_PER_US;
        WAITS.live(SLOT_SLEEP + cpu, Some(at));
        Mono::delay_until(MonoInstant::from_ticks(at)).await;
        WAITS.live(SLOT_SLEEP + cpu, None);
        record(&RTIC, cpu, at, scheduled, time.now());
    }
    finished();
}

/// A `Mono::timeout_at` of 50 µs around a `Mono::delay_until` of 30 µs (even rounds, the
/// inner wait wins) or 70 µs (odd rounds, the timeout wins).
#[embassy_executor::task(pool_size = 2)]
async fn rtic_timeouts(cpu: usize, time: &'static PinnedCounter<NativeCsr>) {
    for i in 0..RTIC_TIMEOUTS {
        let inner_us = if i % 2 == 0 { 30 } else { 70 };
        let scheduled = time.now();
        let inner = scheduled + inner_us * TICKS_PER_US;
        let timeout_at = scheduled + RTIC_TIMEOUT_US * TICKS_PER_US;
        WAITS.live(SLOT_OUTER + cpu, Some(timeout_at));
        WAITS.live(SLOT_INNER + cpu, Some(inner));
        let result = Mono::timeout_at(
            MonoInstant::from_ticks(timeout_at),
            Mono::delay_until(MonoInstant::from_ticks(inner)),
        )
        .await;
        let now = time.now();
        WAITS.live(SLOT_OUTER + cpu, None);
        WAITS.live(SLOT_INNER + cpu, None);
        // The losing wait was still queued: rtic-time unlinks it as it is dropped.
        match result {
            Ok(()) => WAITS.dropped(SLOT_OUTER + cpu, timeout_at),
            Err(_) => WAITS.dropped(SLOT_INNER + cpu, inner),
        }
        let deadline = if result.is_ok() { inner } else { timeout_at };
        if result.is_ok() == (i % 2 == 0) {
            EXPECTED_WINNER[1].fetch_add(1, Ordering::Relaxed);
        }
        record(&RTIC, cpu, deadline, scheduled, now);
    }
    finished();
}

/// Core 0's tasks, once core 1 has started the monotonic and timed `Mono::now()` (bounded
/// wait, on embassy-time: core 0 idles meanwhile, so the timing is core 1's alone).
#[embassy_executor::task]
async fn starter(spawner: Spawner, time: &'static PinnedCounter<NativeCsr>) {
    let mut steps = 0;
    // Until core 1 runs: a step per millisecond, re-sending the release.
    while !CORE_UP.load(Ordering::Acquire) && steps < READY_STEPS {
        Timer::after_micros(READY_STEP_US).await;
        steps += 1;
        if !CORE_UP.load(Ordering::Acquire) {
            // The release IPI can come before the ROM stub has enabled its IPIs, and QEMU
            // raises the line only when the IPI is sent: send it again (same mailbox value,
            // so the stub never reads a mixed address).
            // SAFETY: as for the first release in `run`: core 1 is still in the stub.
            unsafe { smp::start_secondary(RTIC_CORE, secondary_entry()) };
            RELEASES_SENT.fetch_add(1, Ordering::Relaxed);
        }
    }
    // Then no timer wake at all while core 1 times `Mono::now()`: core 1 wakes this task
    // when it is done (MONO_READY, the waker in READY_WAKER); a one-second timeout bounds it.
    let ready = core::future::poll_fn(|cx| {
        if MONO_READY.load(Ordering::Acquire) {
            return core::task::Poll::Ready(());
        }
        READY_WAKER.with(|w| *w = Some(cx.waker().clone()));
        if MONO_READY.load(Ordering::Acquire) {
            core::task::Poll::Ready(())
        } else {
            core::task::Poll::Pending
        }
    });
    let _ = embassy_time::with_timeout(Duration::from_secs(1), ready).await;
    println!(
        Uart0,
        "smp: core1 up after {} release IPI(s), rtic-time monotonic started there: {}",
        RELEASES_SENT.load(Ordering::Relaxed),
        verdict(MONO_READY.load(Ordering::Acquire) && FAILED.load(Ordering::Relaxed) == 0)
    );
    let ok = MONO_READY.load(Ordering::Acquire) && FAILED.load(Ordering::Relaxed) == 0;
    if !ok {
        println!(
            Uart0,
            "smp: core1 did not start the rtic-time monotonic within {READY_STEPS} x {READY_STEP_US} us: FAIL"
        );
        loongarch::finish(Uart0, false, power_off);
    }
    // Instructions per rtic-time `Mono::now()` (hwtimer-core's backend: no lock, the set-once
    // time base's rdtime.d and publish), timed on core 1 while core 0 idled here.
    let ticks = RTIC_NOW_TICKS.load(Ordering::Acquire);
    let rtic_now = insns_centi(ticks, NS_MILLI.load(Ordering::Relaxed));
    bench("fw_rtic_now_insns", rtic_now);
    now_overhead(
        "rtic-time",
        rtic_now,
        PINNED_NOW_CENTI.load(Ordering::Relaxed),
    );
    spawn_embassy(spawner, 0, time);
    spawn_rtic(spawner, 0, time);
}

/// Adds up per-core figures (largest lateness, sums of the rest).
fn total(stats: &[WakeStats; CPUS]) -> WakeStats {
    stats.iter().fold(WakeStats::new(), |mut t, s| {
        t.wakes += s.wakes;
        t.early += s.early;
        t.max_late = t.max_late.max(s.max_late);
        t.sum_late += s.sum_late;
        t
    })
}

/// Prints per-core wake figures of one runtime and whether they are complete.
fn print_runtime(
    name: &str,
    stats: &[CsCell<WakeStats>; CPUS],
    per_core: u64,
) -> (bool, WakeStats) {
    let figures: [WakeStats; CPUS] =
        core::array::from_fn(|cpu| stats[cpu].with(|s| *s).unwrap_or_default());
    let mut ok = true;
    for (cpu, s) in figures.iter().enumerate() {
        s.print_summary(Uart0, &format_name(name, cpu));
        ok &= s.wakes == per_core && s.early == 0;
    }
    let t = total(&figures);
    println!(
        Uart0,
        "{name}: {} wakes of {} expected on {CPUS} cores, {} early: {}",
        t.wakes,
        per_core * CPUS as u64,
        t.early,
        verdict(ok)
    );
    (ok, t)
}

/// `"<name> core<cpu>"` in a fixed buffer (no allocator).
fn format_name(name: &str, cpu: usize) -> NameBuf {
    let mut buf = NameBuf::default();
    buf.push(name.as_bytes());
    buf.push(b" core");
    buf.push(&[b'0' + (cpu % 10) as u8]);
    buf
}

/// A short string built without an allocator.
#[derive(Default)]
struct NameBuf {
    bytes: [u8; 32],
    len: usize,
}

impl NameBuf {
    fn push(&mut self, more: &[u8]) {
        for &b in more {
            if let Some(slot) = self.bytes.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
    }
}

impl core::ops::Deref for NameBuf {
    type Target = str;
    fn deref(&self) -> &str {
        core::str::from_utf8(self.bytes.get(..self.len).unwrap_or_default()).unwrap_or("?")
    }
}

/// Prints the results and ends the run (from the last task to finish, on either core).
fn report() -> ! {
    let (embassy_ok, embassy) = print_runtime("embassy", &EMBASSY, EMBASSY_WAKES);
    let alone = ALONE.with(|s| *s).unwrap_or_default();
    let lost = ALONE_LOST.load(Ordering::Relaxed);
    let after = ALONE_AFTER_CORE0.load(Ordering::Relaxed);
    alone.print_summary(Uart0, "embassy core1 alone");
    let alone_ok = after && lost == 0 && alone.wakes == ALONE_WAITS && alone.early == 0;
    println!(
        Uart0,
        "embassy core1 alone: {} of {ALONE_WAITS} waits woken through core0's timer after core0's own were done{}, {lost} lost (rtic-time guard {ALONE_GUARD_TICKS} ticks): {}",
        alone.wakes,
        if after { "" } else { " (NOT done)" },
        verdict(alone_ok)
    );
    let (rtic_ok, rtic) = print_runtime("rtic-time", &RTIC, RTIC_WAKES);
    println!(
        Uart0,
        "timeouts won by the future due first: embassy {} of {}, rtic-time {} of {}",
        EXPECTED_WINNER[0].load(Ordering::Relaxed),
        TIMEOUTS * CPUS as u64,
        EXPECTED_WINNER[1].load(Ordering::Relaxed),
        RTIC_TIMEOUTS * CPUS as u64
    );
    let sent: [u32; CPUS] = core::array::from_fn(|c| IPIS_SENT[c].load(Ordering::Relaxed));
    let received: [u32; CPUS] = core::array::from_fn(|c| IPIS_RECEIVED[c].load(Ordering::Relaxed));
    let (sent_total, received_total) = (sent.iter().sum::<u32>(), received.iter().sum::<u32>());
    println!(
        Uart0,
        "pender: ipis sent={sent_total} received={received_total}"
    );
    // Every core was woken by the other's pender, and no core found more IPIs than were sent
    // to it (two sends before one handling are one interrupt, so fewer is fine).
    let ipis_ok = (0..CPUS).all(|c| received[c] >= 1 && received[c] <= sent[c]);
    println!(
        Uart0,
        "pender: to core0 {} sent {} received, to core1 {} sent {} received: {}",
        sent[0],
        received[0],
        sent[1],
        received[1],
        verdict(ipis_ok)
    );
    let driver = DRIVER.stats();
    let (rearms, rearms_rx) = (
        REARMS_SENT.load(Ordering::Relaxed),
        REARMS_RECEIVED.load(Ordering::Relaxed),
    );
    let (pends, pends_rx) = (
        RTIC_PENDS_SENT.load(Ordering::Relaxed),
        RTIC_PENDS_RECEIVED.load(Ordering::Relaxed),
    );
    let other = OTHER_IRQS.load(Ordering::Relaxed);
    let (releases, late) = (
        RELEASES_SENT.load(Ordering::Relaxed),
        LATE_RELEASES.load(Ordering::Relaxed),
    );
    let offset = COUNTER_OFFSET
        .with(|o| *o)
        .flatten()
        .map(CounterOffset::value);
    let cntc: [u64; CPUS] = core::array::from_fn(|c| CNTC_SEEN[c].load(Ordering::Relaxed));
    let cntc_ok = offset.is_some_and(|o| cntc.iter().all(|&c| c == o));
    if !cntc_ok {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    println!(
        Uart0,
        "sync_counter: core0's CounterOffset {:#x}, CNTC core0 {:#x}, core1 {:#x}: {}",
        offset.unwrap_or(0),
        cntc[0],
        cntc[1],
        verdict(cntc_ok)
    );
    // The release that got core 1 out of the stub was not late, so at most all others were.
    let releases_ok = releases >= 1 && late < releases;
    if !releases_ok {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    println!(
        Uart0,
        "smp: {late} of {releases} release IPI(s) reached core1 after it left the ROM stub (taken as late releases): {}",
        verdict(releases_ok)
    );
    let cross_ok = rearms_rx >= 1 && rearms_rx <= rearms && pends_rx >= 1 && pends_rx <= pends;
    println!(
        Uart0,
        "cross-core: embassy re-arm ipis sent={rearms} received={rearms_rx}, rtic-time pend ipis sent={pends} received={pends_rx}: {}",
        verdict(cross_ok)
    );
    println!(
        Uart0,
        "rtic-time: {} pends on core1 itself (served in place)",
        RTIC_SELF_PENDS.load(Ordering::Relaxed)
    );
    let irqs = TIMER_IRQS[0].load(Ordering::Relaxed);
    println!(
        Uart0,
        "embassy: {irqs} timer interrupts, {} programmings, {} refused (core1's), {other} other interrupts",
        driver.programs,
        driver.refused,
    );
    println!(
        Uart0,
        "rtic-time: {} timer interrupts on core1",
        TIMER_IRQS[1].load(Ordering::Relaxed)
    );
    let mean = embassy.mean_late_centi();
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_wake_late_max_ticks = {} ticks", embassy.max_late
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_wake_late_mean_ticks = {}.{:02} ticks",
        mean / 100,
        mean % 100
    );
    let per_wake = u64::from(irqs) * 1000 / embassy.wakes.max(1);
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_irqs_per_wake = {}.{:03} irqs",
        per_wake / 1000,
        per_wake % 1000
    );
    let rtic_mean = rtic.mean_late_centi();
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_wake_late_max_ticks = {} ticks", rtic.max_late
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_wake_late_mean_ticks = {}.{:02} ticks",
        rtic_mean / 100,
        rtic_mean % 100
    );
    // Every entry of the monotonic's handler: core 1's timer interrupts and rtic-time's
    // pend IPIs (each runs `Mono::on_interrupt`).
    let rtic_irqs = u64::from(TIMER_IRQS[1].load(Ordering::Relaxed))
        + u64::from(RTIC_PENDS_RECEIVED.load(Ordering::Relaxed));
    let rtic_per_wake = rtic_irqs * 1000 / rtic.wakes.max(1);
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_irqs_per_wake = {}.{:03} irqs",
        rtic_per_wake / 1000,
        rtic_per_wake % 1000
    );
    // Where the interrupts over one per wake come from: core 1 timer interrupts at which no
    // rtic-time wait was due, and of those the ones at a dropped wait's instant.
    let waits = WAITS.counts();
    let (no_wait, before, orphans) = (waits.no_wait_due, waits.before_armed, waits.orphans);
    println!(
        Uart0,
        "rtic-time interrupts: {} timer + {} pend IPIs for {} wakes; {} timer interrupts served no due wait: {} came before the armed instant by the stable counter, {} at the instant of one of the {} waits dropped while queued",
        TIMER_IRQS[1].load(Ordering::Relaxed),
        RTIC_PENDS_RECEIVED.load(Ordering::Relaxed),
        rtic.wakes,
        no_wait,
        before,
        orphans,
        waits.drops
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_orphan_irqs = {orphans} irqs"
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_no_wait_due_irqs = {no_wait} irqs"
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_before_armed_irqs = {before} irqs"
    );
    let served = rtic_irqs.saturating_sub(u64::from(orphans)) * 1000 / rtic.wakes.max(1);
    println!(
        Uart0,
        "bench: loongarch-timer/fw_rtic_irqs_per_wake_less_orphans = {}.{:03} irqs",
        served / 1000,
        served % 1000
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_max_late_ns = {} ns",
        ticks_ns(embassy.max_late)
    );
    let w = WORST.with(|w| *w).unwrap_or(LateParts::new());
    println!(
        Uart0,
        "embassy lateness split ({} wakes follow a core0 timer interrupt; the worst of them): {} ns = {} compare to handler entry + {} handler + {} executor and task",
        w.attributed,
        ticks_ns(w.total),
        ticks_ns(w.entry),
        ticks_ns(w.handler),
        ticks_ns(w.after)
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_late_entry_ns = {} ns",
        ticks_ns(w.entry)
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_late_handler_ns = {} ns",
        ticks_ns(w.handler)
    );
    println!(
        Uart0,
        "bench: loongarch-timer/fw_embassy_late_poll_ns = {} ns",
        ticks_ns(w.after)
    );
    let ok = embassy_ok
        && alone_ok
        && rtic_ok
        && ipis_ok
        && cross_ok
        && other == 0
        && FAILED.load(Ordering::Relaxed) == 0;
    loongarch::finish(Uart0, ok, power_off)
}

/// `Alarm::set_deadline` on the driver's alarm against the `set_next_event` it makes (both
/// on core 0's `PinnedTimer`, 10 s ahead, inside `with_alarm`: the lock is held around the
/// loops, not counted per call), then the alarm is put back to idle. Out of line, so that
/// `run`'s other timed loops compile as before.
#[inline(never)]
fn bench_alarm(empty: u64, ns_milli: u64) {
    let alarm_costs = DRIVER.with_alarm(|a| {
        let far = a.time().now() + 1_000_000_000;
        let set = time_loop(&mut || {
            let _ = black_box(a.set_deadline(black_box(far)));
        });
        let sne = time_loop(&mut || {
            let _ = black_box(a.event_mut().set_next_event(black_box(1_000_000_000)));
        });
        let _ = a.keep_alive();
        (set, sne)
    });
    if let Some((set, sne)) = alarm_costs {
        let set = insns_centi(set.saturating_sub(empty), ns_milli);
        let sne = insns_centi(sne.saturating_sub(empty), ns_milli);
        bench("fw_alarm_set_insns", set);
        bench("fw_alarm_set_next_event_insns", sne);
        bench("fw_alarm_overhead_insns", set.saturating_sub(sne));
    }
}

/// Stable-counter ticks of [`CALLS`] calls of `f`.
fn time_loop(f: &mut dyn FnMut()) -> u64 {
    let t0 = rdtime();
    for _ in 0..CALLS {
        f();
    }
    rdtime().wrapping_sub(t0)
}

/// Stable-counter ticks of a [`time_loop`] to instructions per call, in hundredths, at
/// `ns_milli` thousandths of a virtual ns per instruction: ticks * 10 ns / (ns per insn).
fn insns_centi(ticks: u64, ns_milli: u64) -> u64 {
    ticks * (1_000_000_000 / (TICKS_PER_US * 1_000_000)) * 100_000 / ns_milli.max(1) / CALLS
}

/// The limit on a runtime's `now()` (fw-common's `print_now_overhead`) over
/// `PinnedCounter::now` in the same firmware; a miss fails the run.
fn now_overhead(runtime: &str, now_centi: u64, base_centi: u64) {
    if !print_now_overhead(
        Uart0,
        runtime,
        "PinnedCounter::now",
        now_centi,
        base_centi,
        NOW_OVERHEAD_LIMIT,
    ) {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

/// Prints `bench: loongarch-timer/<metric> = <centi / 100> insns`.
fn bench(metric: &str, centi: u64) {
    println!(
        Uart0,
        "bench: loongarch-timer/{metric} = {}.{:02} insns",
        centi / 100,
        centi % 100
    );
}

/// Virtual nanoseconds per instruction, in thousandths, from a loop of known length timed
/// by the 100 MHz stable counter (10 ns per tick): 1000 under `-icount shift=0`, 2^N·1000 at
/// shift N.
fn ns_per_insn_milli(freq_hz: u64) -> u64 {
    let t0 = rdtime();
    spin_insns(CALIBRATION_ITERATIONS);
    let ticks = rdtime().wrapping_sub(t0);
    // ns = ticks * 1e9 / freq; per instruction: / (2 * iterations).
    (ticks * 1_000_000_000 / freq_hz.max(1)) * 1000 / (2 * CALIBRATION_ITERATIONS)
}

unsafe extern "C" {
    /// The secondary entry below.
    fn __fw_la_secondary();
}

// Entry of CPU1, released by CPU0 through its mailbox and an IPI: QEMU's ROM stub jumps here
// (the physical address) in direct-address mode with interrupts off. The FPU on, the same
// windows as the boot core, TLBRENTRY (physical, taken in DA mode), a jump to the linked
// address and paged mode, EENTRY, its own stack (`__sec_stacks + CPUID * 64K`, see link.x)
// and `secondary_main(cpu)`. A core number outside 1..CPUS parks.
core::arch::global_asm!(
    r#"
    .section .text.fw_la_secondary, "ax"
    .global __fw_la_secondary
    .type __fw_la_secondary, @function
__fw_la_secondary:
    li.w        $t0, 1
    csrwr       $t0, 0x2            # EUEN.FPE = 1
    li.d        $t0, 0x8000000000000001
    csrwr       $t0, 0x180          # DMW0: devices, strongly-ordered uncached
    li.d        $t0, 0x9000000000000011
    csrwr       $t0, 0x181          # DMW1: RAM, coherent cached
    la.pcrel    $t0, __fw_la_tlbrentry
    csrwr       $t0, 0x88           # TLBRENTRY, still the physical alias
    la.pcrel    $t0, 1f
    lu52i.d     $t0, $t0, -1792     # bits 63:52 = 0x900: the linked address
    jirl        $zero, $t0, 0
1:  li.w        $t0, 0xb0
    csrwr       $t0, 0x0            # CRMD: PLV0, IE = 0, PG = 1, DATF = DATM = cached
    csrrd       $a0, 0x20           # CPUID.CoreID
    andi        $a0, $a0, 0x1ff
    beqz        $a0, 9f
    li.w        $t0, {cpus}
    bgeu        $a0, $t0, 9f
    slli.d      $t0, $a0, 16
    la.pcrel    $sp, __sec_stacks
    add.d       $sp, $sp, $t0
    la.pcrel    $t0, __fw_la_eentry
    csrwr       $t0, 0xc            # EENTRY
    bl          secondary_main
9:  idle        0
    b           9b
"#,
    cpus = const CPUS,
);

/// The physical address of [`__fw_la_secondary`]: the ROM stub jumps there in
/// direct-address mode.
fn secondary_entry() -> u64 {
    (__fw_la_secondary as *const () as usize & !loongarch::CACHED) as u64
}

/// Rust side of CPU1's entry: its IPIs, the rtic-time monotonic on its timer, its executor.
#[unsafe(no_mangle)]
extern "C" fn secondary_main(cpu: u64) -> ! {
    let cpu = (cpu as usize).min(CPUS - 1);
    CORE_UP.store(true, Ordering::Release);
    smp::ipi_enable(IPI_MASK);
    // SAFETY: PLV0 on core 1, whose timer (TCFG, TICLR, ECFG bit 11) only the monotonic
    // programs.
    let csr = unsafe { NativeCsr::new() };
    if !sync_this_core(&csr, cpu) {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    let started = pair(csr, Config::default()).and_then(|(timer, time)| Mono::start(timer, time));
    if started.is_err() {
        FAILED.fetch_add(1, Ordering::Relaxed);
    } else {
        // Core 0 idles in its starter meanwhile, with no timer due (module docs, `bench:`
        // lines); the least of a few rounds is kept all the same.
        let mut best = u64::MAX;
        for _ in 0..RTIC_NOW_ROUNDS {
            let empty = time_loop(&mut || {
                black_box(0u64);
            });
            let now = time_loop(&mut || {
                black_box(Mono::now());
            });
            best = best.min(now.saturating_sub(empty));
        }
        RTIC_NOW_TICKS.store(best, Ordering::Release);
    }
    MONO_READY.store(true, Ordering::Release);
    if let Some(waker) = READY_WAKER.with(Option::take).flatten() {
        waker.wake();
    }
    // SAFETY: non-null, it points into TIME, initialised once on core 0 before the pointer
    // was published (Release, before the release of this core) and never borrowed mutably
    // again; `PinnedCounter` is `Sync`.
    let time: Option<&'static PinnedCounter<NativeCsr>> =
        unsafe { SHARED_TIME.load(Ordering::Acquire).as_ref() };
    let Some(time) = time else {
        FAILED.fetch_add(1, Ordering::Relaxed);
        loop {
            loongarch::idle();
        }
    };
    run_executor(cpu, |spawner| {
        spawn_embassy(spawner, cpu, time);
        spawn_rtic(spawner, cpu, time);
        spawn(spawner, alone(time));
    })
}

/// Core 0: the checks, the time driver, the instruction counts, CPU1's release, its
/// executor.
fn run() -> bool {
    let crmd = loongarch::crmd();
    let paged = crmd & 0x1f8 == 0xb0;
    println!(
        Uart0,
        "CRMD = {crmd:#x} ({}: DMW0 0x8000... devices uncached, DMW1 0x9000... RAM cached)",
        if paged { "paged" } else { "NOT PAGED" }
    );
    // SAFETY: PLV0 on the boot core; this firmware programs core 0's TCFG, TICLR and ECFG
    // bit 11 only through the driver values built on this backend.
    let csr = unsafe { NativeCsr::new() };
    // Before anything reads the stable counter: the compensation every core writes.
    let offset = CounterOffset::capture(&csr);
    COUNTER_OFFSET.with(|o| *o = Some(offset));
    sync_this_core(&csr, 0);
    let clock = match ConstantClock::probe(&csr) {
        Ok(clock) => clock,
        Err(e) => {
            println!(Uart0, "constant timer unusable: {e}");
            return false;
        }
    };
    let (timer, time) = match pair(csr.clone(), Config::default()) {
        Ok(pair) => pair,
        Err(e) => {
            println!(Uart0, "constant timer unusable: {e}");
            return false;
        }
    };
    let freq = u64::from(clock.freq_hz());
    let rate_ok = freq == embassy_time::TICK_HZ && freq == TICKS_PER_US * 1_000_000;
    println!(
        Uart0,
        "time driver: loongarch_timer::embassy::Driver on core {}, stable counter {freq} Hz, embassy-time {} Hz: {}",
        timer.core(),
        embassy_time::TICK_HZ,
        verdict(rate_ok)
    );
    if !rate_ok {
        return false;
    }
    if let Err(e) = DRIVER.init_static(timer, time) {
        println!(Uart0, "time driver refused: {e}");
        return false;
    }
    let counter: &'static PinnedCounter<NativeCsr> =
        TIME.init(PinnedCounter::new(StableCounter::new(csr, clock)));

    // Instructions per embassy `Instant::now()` (the driver's `now` behind the wrapper, after
    // `init_static`: no lock, no conversion at 100 MHz; rdtime.d and publish), on the real ISA,
    // measured with core 0 alone.
    let ns_milli = ns_per_insn_milli(freq);
    NS_MILLI.store(ns_milli, Ordering::Relaxed);
    let empty = time_loop(&mut || {
        black_box(0u64);
    });
    let now = time_loop(&mut || {
        black_box(Instant::now());
    });
    let raw = time_loop(&mut || {
        black_box(counter.now());
    });
    println!(
        Uart0,
        "icount: {}.{:03} ns of virtual time per instruction (calibration loop)",
        ns_milli / 1000,
        ns_milli % 1000
    );
    bench(
        "fw_embassy_now_insns",
        insns_centi(now.saturating_sub(empty), ns_milli),
    );
    let pinned = insns_centi(raw.saturating_sub(empty), ns_milli);
    bench("fw_pinned_counter_now_insns", pinned);
    PINNED_NOW_CENTI.store(pinned, Ordering::Relaxed);
    now_overhead(
        "embassy",
        insns_centi(now.saturating_sub(empty), ns_milli),
        pinned,
    );
    bench_alarm(empty, ns_milli);

    SHARED_TIME.store(core::ptr::from_ref(counter).cast_mut(), Ordering::Release);
    smp::ipi_enable(IPI_MASK);
    let entry = secondary_entry();
    println!(
        Uart0,
        "smp: releasing core1 at {entry:#x} (IOCSR mailbox + IPI); rtic-time: loongarch_timer::rtic_monotonic! (own pend) on core{RTIC_CORE}'s constant timer"
    );
    println!(
        Uart0,
        "executor: embassy-executor raw::Executor per core (own __pender: flag + IPI), per core 3 embassy-time tasks (Timer::at, Ticker::every, with_deadline) and 2 rtic-time tasks (delay_until, timeout_at)"
    );
    // SAFETY: `__fw_la_secondary`, at its physical address, runs in the state the ROM stub
    // leaves a core in (it sets up the FPU, the windows and its own stack), and core 1 has
    // not been released before.
    unsafe { smp::start_secondary(RTIC_CORE, entry) };
    RELEASES_SENT.fetch_add(1, Ordering::Relaxed);
    run_executor(0, |spawner| {
        spawn(spawner, starter(spawner, counter));
    })
}
