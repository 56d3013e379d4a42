//! Firmware for QEMU's LoongArch `virt` machine: the `loongarch-timer` driver on the real ISA.
//!
//! Boot: QEMU loads this ELF at physical address 0x20_0000 and starts CPU0 at `_start` in
//! direct-address mode (no paging, no DMW windows), so device registers are used at their
//! physical addresses. The entry code enables the FPU, sets up the stack, zeroes `.bss` and
//! calls [`board_main`], which
//!
//! 1. points EENTRY at fw-common's exception entry (ECFG.VS = 0: every exception and
//!    interrupt enters there),
//! 2. reads the constant timer's frequency from CPUCFG 2/4/5 through the driver,
//! 3. learns the emulation speed (the `-icount` shift, see below) and checks the stable
//!    counter against it,
//! 4. times loops of 10,000 clocksource reads and clockevent programmings in stable-counter
//!    ticks and turns them into instructions at that speed (`bench:` lines, collected by
//!    `cargo xtask bench`),
//! 5. enables the timer interrupt (ECFG.LIE bit 11 through the driver, CRMD.IE here), programs
//!    oneshots of 1000, 10000 and 100000 ticks and a periodic timer, takes each interrupt
//!    through EENTRY and measures request-to-handler latency in ticks with `rdtime.d`,
//! 6. runs the `min_delta` request (5 µs = 500 ticks through `Alarm`) under min_delta 0x600
//!    and 1000,
//! 7. releases CPU1 (`-smp 2`) and runs a constant timer on each core (below),
//! 8. powers the machine off through the GED sleep control register.
//!
//! Every measured figure is checked here against the contract (never early, within the
//! documented bound) and printed with a verdict; `expected.txt` requires the `ok` verdicts.
//!
//! # Timing bounds, at any `-icount` shift
//!
//! Under `-icount shift=N` every instruction takes 2^N ns of virtual time, and the stable
//! counter (`rdtime.d`, the timer's own clock) counts virtual time at 100 MHz: one tick is
//! 10 instructions at shift 0 and 0.625 at shift 4. QEMU's LoongArch CPU has no instruction
//! counter, so `cargo xtask qemu` tells the firmware the shift through the `fw_cfg` file
//! [`ICOUNT_FILE`] (`-fw_cfg name=...,string=N` in Cargo.toml). The firmware checks what it
//! was told: a loop of exactly 1,000,000 instructions must take `10^6 × 2^N / 10` ticks, to
//! within [`SPEED_CHECK`] (this also checks the counter's CPUCFG frequency against
//! instructions). Told `auto`, or told nothing (a run by hand), it uses the speed that loop
//! measured instead.
//!
//! Every bound is CPU work plus the hardware's own granularity ([`Bound`]), converted into
//! ticks at that speed:
//!
//! | check | bound | made of |
//! |---|---|---|
//! | oneshot and first periodic expiry, request to handler | request + [`LATENCY_BOUND`] = 3 ticks + 130 insns | QEMU's expiry granularity (the timer fires 1–2 ticks after `init`) and the truncation of the stamps; the `csrwr` after the request stamp, the exception entry (20 stores) and the handler prologue up to its stamp (~45 instructions measured at shifts 0 to 4) |
//! | the `min_delta` clamp through `Alarm::set_delta` | min_delta + [`ALARM_BOUND`] = 6 ticks + 260 insns | as above, with up to 3 ticks of InitVal rounding to a multiple of 4; `set_delta`'s own ~100 instructions before its TCFG write |
//! | periodic intervals | ± [`PERIOD_JITTER`] = 1 tick + 1 insn | the interrupt is taken at the first instruction boundary after the expiry; the stamps truncate to ticks |
//!
//! At shift 0 these are the former 16, 32 and 1 ticks. Never early needs no bound: every
//! latency is checked against the request itself. Instruction counts are the same at every
//! shift to within one tick of the stable counter over 10,000 calls (±0.001 instructions per
//! call at shift 0, less at higher shifts); latencies in ticks or µs are those of the shift
//! the run used (the repository quotes shift 0).
//!
//! Every check passes from shift 0 to 5 (`-smp 2`; the two-core lateness bound,
//! [`SMP_LATE_BOUND`], is an empirical one). From shift 6 the stable-counter check
//! fails by a few dozen ticks: CPU1 runs the ~15 instructions of QEMU's boot-ROM stub
//! (before its `idle`) inside CPU0's timed loop, and under `-icount` both vCPUs advance the
//! one virtual clock. With `-smp 1` every check before the two-core part passed from shift 0
//! to 9. At shift 10 (1024 ns per instruction) the handler
//! takes longer than the 100 µs period and the periodic check says so: the scenario, not a
//! bound, needs a faster CPU. Under `-icount shift=auto` QEMU may change the shift after the
//! speed was measured; the bounds then use a stale speed.
//!
//! # Two cores
//!
//! QEMU 10 holds CPU1 in a boot-ROM stub (idle until an IPI, then jump to the address in
//! mailbox 0). After the single-core checks CPU0 writes the entry `__fw_la_secondary` into
//! CPU1's mailbox through IOCSR `MBUF_SEND` and sends IPI 0 through `IPI_SEND`
//! (`fw_common::loongarch::smp`), then waits for CPU1 to say it is up, at most a virtual
//! second ([`WAIT_TICKS`]): if it never comes, CPU0 prints `smp: core1 did not come up ...:
//! FAIL` and ends the run. CPU1 enables its FPU, takes its own 64 KiB stack (`link.x`),
//! installs the same exception entry, builds its own `ConstantTimer` pinned to itself and
//! hands it to the shared table [`TIMERS`]. The `critical-section` implementation is
//! fw-common's multi-core one (`loongarch_smp_critical_section_impl!`: CRMD.IE off plus a
//! spinlock, re-entrant per core), so both cores and both interrupt handlers share the table
//! and every `Mutex` of this firmware.
//!
//! Each core then takes [`SMP_EVENTS`] oneshot events of [`SMP_DELTA`] ticks on its own
//! timer, each checked against its deadline in the handler (`core<N>: events=.. early=0
//! max_late_ticks=..`; lateness includes the other core holding the lock or running while
//! the deadline passes, so it is printed, not bounded), and while waiting both read
//! `rdtime.d` and check it against the reading the other core published before
//! (`cross-core: reads=.. backwards=0`), and read core 0's `PinnedCounter` (the driver's
//! time base, which now reads `rdtime.d` on whichever core calls it) and check it is never
//! behind a `rdtime.d` taken just before. The waits are in `idle` ([`one_event`] says why).
//! Before anything reads the stable counter, core 0 captures the counter compensation
//! (`CounterOffset::capture`) and each core writes it into its own CNTC with
//! `loongarch_timer::pinned::sync_counter` (Linux's `sync_counter`) before its first read
//! ([`sync_this_core`]), so that on a chip whose cores' CNTC differ the shared
//! `PinnedCounter` does not stall on the core behind. QEMU TCG ignores CNTC in `rdtime.d`;
//! the run checks the read-back CNTC of both cores and that `PinnedCounter::now` was never
//! ahead of the reading core's own `rdtime.d`.
//! Last, both cores take [`CONTENTION_SECTIONS`] critical sections with a non-atomic
//! increment inside ([`contention`]): a lost update fails the run.
//!
//! Run it with `cargo xtask qemu loongarch-virt`.
#![no_std]
#![no_main]

use core::cell::{Cell, RefCell};
use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};

use critical_section::Mutex;
use fw_common::fw_cfg::FwCfg;
use fw_common::icount::{self, Bound, Speed};
use fw_common::loongarch::{CRMD_IE, cpu_id, crmd, crmd_xchg_ie, rdtime, smp, spin_insns};
use fw_common::{Console, StaticCell, mmio, println, verdict};
use hwtimer_core::{Alarm, ClockEvent, Clocksource, Fired, Monotonic, RegisterBusExt};
use loongarch_timer::csr::{CSR_BADV, CSR_CNTC, CSR_ERA, CSR_ESTAT, ESTAT, NativeCsr};
use loongarch_timer::pinned::{CounterOffset, PinnedCounter, PinnedTimer, sync_counter};
use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};

/// UART0 base address (ns16550a, register shift 0, byte access).
const UART0_BASE: usize = 0x1fe0_01e0;
/// Transmit holding register.
const UART_THR: usize = UART0_BASE;
/// Line status register.
const UART_LSR: usize = UART0_BASE + 5;
/// LSR bit 5: transmit holding register empty.
const UART_LSR_THRE: u8 = 1 << 5;

/// GED sleep control register (the DTB's `syscon-poweroff` node: offset 0x1c of the GED).
const GED_SLEEP_CTL: usize = 0x100e_001c;
/// Value written to [`GED_SLEEP_CTL`] to power off (QEMU then exits with status 0).
const GED_SLEEP_CTL_POWEROFF: u8 = 0x34;

/// Calls per timed loop.
const LOOP_CALLS: u64 = 10_000;

/// The virt machine's `fw_cfg` device (DTB node `fw_cfg@1e020000`, `qemu,fw-cfg-mmio`).
const FW_CFG_BASE: usize = 0x1e02_0000;
/// The `fw_cfg` file in which `cargo xtask qemu` puts the `-icount` shift (`0`..`10` or
/// `auto`).
const ICOUNT_FILE: &str = "opt/timer-family/icount-shift";
/// Iterations of the loop that checks (or measures) the speed: 2 instructions each.
const SPEED_LOOP: u64 = 500_000;
/// Most virtual time a wait for an interrupt may take: one second of stable-counter ticks.
const WAIT_TICKS: u64 = 100_000_000;
/// Most polls a wait for an interrupt may take, should the counter stop (each poll is a
/// handful of instructions: far more than [`WAIT_TICKS`] needs at shift 0).
const WAIT_POLLS: u32 = 200_000_000;

/// How far the speed loop's ticks may be from what the told shift implies: one tick of
/// truncation, and the instructions around the loop between the two `rdtime.d` (a few).
const SPEED_CHECK: Bound = Bound { ticks: 1, insns: 8 };

/// Documented bound on request-to-handler latency beyond the requested delta.
///
/// Hardware granularity, 3 ticks: QEMU's own expiry granularity (the timer was seen to fire
/// at `init + 1..2` ticks when polled) and the truncation of the stamps; InitVal rounding
/// adds nothing for the multiples of 4 used here. CPU work, 130 instructions: between the
/// `rdtime.d` that stamps the request and the handler's `rdtime.d` the core executes the rest
/// of `set_next_event` after the stamp (the `csrwr`) and the exception entry: 20 register
/// stores plus the handler prologue (~45 instructions in all, measured at shifts 0 to 4).
/// At shift 0 this is 3 + 13 = 16 ticks.
const LATENCY_BOUND: Bound = Bound {
    ticks: 3,
    insns: 130,
};

/// Documented bound for a deadline programmed through `Alarm::set_delta`, beyond the
/// clamped delta: [`LATENCY_BOUND`]'s ticks plus up to 3 of InitVal rounding (the driver
/// rounds up to a multiple of 4), and its instructions plus the ~100 that `set_delta` runs
/// before its TCFG write (`fw_alarm_set_delta`), with room. At shift 0: 6 + 26 = 32 ticks.
const ALARM_BOUND: Bound = Bound {
    ticks: 6,
    insns: 260,
};

/// Allowed deviation of one periodic interval from the period: the handler's stamp is taken
/// a constant number of instructions after the instruction boundary at which the expiry is
/// taken (up to one instruction late), and truncates to whole ticks.
const PERIOD_JITTER: Bound = Bound { ticks: 1, insns: 1 };

/// UART0, polled.
#[derive(Clone, Copy)]
struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: THR/LSR of the virt machine's UART0; this firmware is their only user (the
        // exception handler prints only on a fatal exception, after which main never resumes).
        unsafe {
            while mmio::read8(UART_LSR) & UART_LSR_THRE == 0 {}
            mmio::write8(UART_THR, byte);
        }
    }
}

// Entry point. The target is hard-float (`+f,+d`) but EUEN.FPE is 0 at reset, so the first
// floating-point instruction the compiler emits would trap: enable the FPU first.
// `la.pcrel` keeps the code position-independent.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, @function
_start:
    li.w        $t0, 1
    csrwr       $t0, 0x2            # EUEN.FPE = 1
    csrrd       $t0, 0x20           # CPUID: a QEMU that starts every core here parks the others
    andi        $t0, $t0, 0x1ff
    bnez        $t0, 3f
    la.pcrel    $sp, __stack_top
    la.pcrel    $t0, __sbss         # zero .bss, 8 bytes at a time (both ends 8-byte aligned)
    la.pcrel    $t1, __ebss
1:  bgeu        $t0, $t1, 2f
    st.d        $zero, $t0, 0
    addi.d      $t0, $t0, 8
    b           1b
2:  bl          board_main
3:  idle        0
    b           3b
"#
);

// Entry of a secondary core, released by CPU0 through its mailbox and an IPI (QEMU's ROM stub
// jumps here in direct-address mode with interrupts off): the FPU on, the IPI line off in
// ECFG (the stub leaves the core with nothing to do with IPIs), its own stack (64 KiB each,
// `__sec_stacks + CPUID * 64K`, see link.x) and `secondary_main(cpu)`. A core number outside
// 1..CPUS parks.
core::arch::global_asm!(
    r#"
    .section .text.fw_la_secondary, "ax"
    .global __fw_la_secondary
    .type __fw_la_secondary, @function
__fw_la_secondary:
    li.w        $t0, 1
    csrwr       $t0, 0x2            # EUEN.FPE = 1
    lu12i.w     $t0, 1              # 0x1000: ECFG.LIE bit 12, the IPI
    csrxchg     $zero, $t0, 0x4
    csrrd       $a0, 0x20           # CPUID.CoreID
    andi        $a0, $a0, 0x1ff
    beqz        $a0, 9f
    li.w        $t0, {cpus}
    bgeu        $a0, $t0, 9f
    slli.d      $t0, $a0, 16
    la.pcrel    $sp, __sec_stacks
    add.d       $sp, $sp, $t0
    bl          secondary_main
9:  idle        0
    b           9b
"#,
    cpus = const CPUS,
);

unsafe extern "C" {
    /// The secondary entry above.
    fn __fw_la_secondary();
}

// The exception and interrupt entry `__fw_la_eentry` (fw-common's, which lists the registers
// it saves; floating-point ones are not: `la_trap` contains no floating-point instruction,
// checked with llvm-objdump), calling `la_trap` with interrupts off.
fw_common::loongarch_trap_entry!(la_trap);

/// The timer's owner: the driver types on the real CSRs, pinned to the boot core so they can
/// live in a `static` (the bare types are per core, neither `Send` nor `Sync`; the pinned
/// ones check CPUID before touching a CSR, see `loongarch_timer::pinned`).
type Timer = PinnedTimer<NativeCsr>;
/// The stable counter through the driver, pinned likewise.
type Counter = PinnedCounter<NativeCsr>;

/// The boot CPU's alarm on its constant timer and stable counter.
type BootAlarm = Alarm<Timer, Counter>;

/// The alarm shared by `board_main` and the interrupt handler.
static ALARM: Mutex<RefCell<Option<BootAlarm>>> = Mutex::new(RefCell::new(None));

/// What the handler does with a timer interrupt.
static HANDLER_USES_ALARM: AtomicBool = AtomicBool::new(false);
/// Timer interrupts handled (acknowledged through the driver).
static TIMER_IRQS: AtomicU32 = AtomicU32::new(0);
/// Interrupts that were not the timer's (or a TI already acknowledged).
static SPURIOUS_IRQS: AtomicU32 = AtomicU32::new(0);
/// `rdtime.d` at handler entry for the first 8 timer interrupts of a measurement.
static IRQ_STAMPS: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
/// The last `Fired::Deadline` the alarm reported: (deadline, now).
static ALARM_DEADLINE: AtomicU64 = AtomicU64::new(0);
/// See [`ALARM_DEADLINE`].
static ALARM_NOW: AtomicU64 = AtomicU64::new(0);

/// Points EENTRY at `__fw_la_eentry` and returns the value read back.
fn install_trap_entry() -> u64 {
    let entry = __fw_la_eentry as *const () as usize as u64;
    let mut old = entry;
    let readback: u64;
    // SAFETY: `__fw_la_eentry` is a complete, 4 KiB aligned exception entry; interrupts are
    // still disabled (CRMD.IE = 0 from reset) while EENTRY changes.
    unsafe {
        core::arch::asm!("csrwr {0}, 0xc", inout(reg) old, options(nostack));
        core::arch::asm!("csrrd {0}, 0xc", out(reg) readback, options(nostack));
    }
    let _ = old;
    readback
}

/// Powers the machine off; QEMU exits with status 0.
fn power_off() -> ! {
    crmd_xchg_ie(0);
    // SAFETY: writing the poweroff value to the GED sleep control register only stops the VM.
    unsafe { mmio::write8(GED_SLEEP_CTL, GED_SLEEP_CTL_POWEROFF) };
    loop {
        core::hint::spin_loop();
    }
}

/// The CSRs of the calling CPU, for the handler's own decoding (ESTAT, ERA, BADV) and to create
/// the driver values; the timer itself is only touched through [`ALARM`]. A fresh value each
/// time (it is zero-sized), since `NativeCsr` cannot live in a `static`: it is not `Sync`.
fn csr() -> NativeCsr {
    // SAFETY: PLV0 on the calling CPU (the CSRs are per core); this firmware is the only code
    // on the machine and uses the timer CSRs only through the driver values created from this
    // backend, one timer per core.
    unsafe { NativeCsr::new() }
}

/// Rust side of the exception entry. Interrupts are disabled (CRMD.IE = 0) while it runs.
extern "C" fn la_trap() {
    let stamp = rdtime();
    let csr = csr();
    let estat = csr.read(CSR_ESTAT);
    if estat.read(ESTAT::ECODE) != 0 {
        // An exception, not an interrupt: nothing here expects one.
        println!(
            Uart0,
            "PANIC: exception ESTAT = {:#x}, ERA = {:#x}, BADV = {:#x}",
            estat.get(),
            csr.read_raw(CSR_ERA),
            csr.read_raw(CSR_BADV)
        );
        power_off();
    }
    if SMP_PHASE.load(Ordering::Acquire) {
        if !smp_trap(stamp) {
            SPURIOUS_IRQS.fetch_add(1, Ordering::Relaxed);
            if estat.read(ESTAT::IS) & !(1 << 11) != 0 || csr.read(CSR_ESTAT).is_set(ESTAT::TI) {
                println!(
                    Uart0,
                    "PANIC: unhandled interrupt on core {}, ESTAT = {:#x}",
                    cpu_id(),
                    estat.get()
                );
                power_off();
            }
        }
        return;
    }
    let handled = critical_section::with(|cs| {
        let Ok(mut slot) = ALARM.borrow(cs).try_borrow_mut() else {
            return false;
        };
        let Some(alarm) = slot.as_mut() else {
            return false;
        };
        if HANDLER_USES_ALARM.load(Ordering::Relaxed) {
            match alarm.on_interrupt() {
                Fired::Deadline { deadline, now } => {
                    ALARM_DEADLINE.store(deadline, Ordering::Relaxed);
                    ALARM_NOW.store(now, Ordering::Relaxed);
                    true
                }
                Fired::Period { .. } | Fired::Rearmed { .. } => true,
                // A TCFG write cannot fail, so a failed re-arm never happens here; if it
                // did, counting it with the spurious interrupts makes the run fail.
                Fired::RearmFailed { .. } | Fired::Spurious => false,
            }
        } else {
            alarm.event_mut().ack()
        }
    });
    if handled {
        let n = TIMER_IRQS.fetch_add(1, Ordering::Relaxed) as usize;
        if let Some(slot) = IRQ_STAMPS.get(n) {
            slot.store(stamp, Ordering::Relaxed);
        }
    } else {
        SPURIOUS_IRQS.fetch_add(1, Ordering::Relaxed);
        // A pending interrupt nobody acknowledges would be taken again at once: stop.
        if estat.read(ESTAT::IS) & !(1 << 11) != 0 || csr.read(CSR_ESTAT).is_set(ESTAT::TI) {
            println!(
                Uart0,
                "PANIC: unhandled interrupt, ESTAT = {:#x}",
                estat.get()
            );
            power_off();
        }
    }
}

// `critical-section` for a firmware on two cores: CRMD.IE off on the calling core plus
// fw-common's spinlock across cores, re-entrant on the core that holds it.
fw_common::loongarch_smp_critical_section_impl!();

/// Runs `f` on the alarm inside a critical section.
fn with_alarm<R>(f: impl FnOnce(&mut Alarm<Timer, Counter>) -> R) -> Option<R> {
    critical_section::with(|cs| {
        let mut slot = ALARM.borrow(cs).try_borrow_mut().ok()?;
        slot.as_mut().map(f)
    })
}

/// Busy-waits (interrupts on) until `count` timer interrupts have been handled in total, or
/// a virtual second ([`WAIT_TICKS`]) or [`WAIT_POLLS`] polls have passed. Returns whether
/// they came.
fn wait_for_irqs(count: u32) -> bool {
    let start = rdtime();
    for _ in 0..WAIT_POLLS {
        if TIMER_IRQS.load(Ordering::Relaxed) >= count {
            return true;
        }
        if rdtime().wrapping_sub(start) > WAIT_TICKS {
            break;
        }
    }
    TIMER_IRQS.load(Ordering::Relaxed) >= count
}

/// What `cargo xtask qemu` told the firmware through [`ICOUNT_FILE`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Told {
    /// `-icount shift=N`.
    Shift(u32),
    /// `-icount shift=auto`: QEMU picks (and may change) the shift.
    Auto,
    /// No `fw_cfg` device, no such file, or a value that is neither.
    Nothing,
}

/// Reads [`ICOUNT_FILE`].
fn told_shift() -> Told {
    // SAFETY: the virt machine's fw_cfg MMIO device; nothing else in this firmware uses it.
    let Some(dev) = (unsafe { FwCfg::probe(FW_CFG_BASE) }) else {
        return Told::Nothing;
    };
    let mut buf = [0u8; 8];
    let text = dev
        .read_file(ICOUNT_FILE, &mut buf)
        .and_then(|bytes| core::str::from_utf8(bytes).ok())
        .map(str::trim);
    match text {
        Some("auto") => Told::Auto,
        Some(n) => match n.parse::<u32>() {
            Ok(n) if n <= icount::MAX_SHIFT => Told::Shift(n),
            _ => Told::Nothing,
        },
        None => Told::Nothing,
    }
}

/// Learns the emulation speed (module docs): told by `fw_cfg` and checked with a loop of
/// known length, or measured with that loop. Prints the speed and the check; returns the
/// speed and the verdict.
fn emulation_speed(freq_hz: u32) -> (Speed, bool) {
    let told = told_shift();
    let t0 = rdtime();
    spin_insns(SPEED_LOOP);
    let ticks = rdtime().wrapping_sub(t0);
    let insns = 2 * SPEED_LOOP;
    let ns = u64::try_from(u128::from(ticks) * 1_000_000_000 / u128::from(freq_hz.max(1)))
        .unwrap_or(u64::MAX);
    let measured = Speed::measured(insns, ns);
    match (told, measured) {
        (Told::Shift(n), _) => {
            let speed = Speed::from_shift(n);
            let implied = speed.ticks_for(insns, freq_hz);
            let tolerance = SPEED_CHECK.ticks_at(speed, freq_hz);
            let ok = ticks.abs_diff(implied) <= tolerance;
            icount::print_speed(
                Uart0,
                speed,
                format_args!("told through fw_cfg {ICOUNT_FILE}"),
            );
            println!(
                Uart0,
                "stable counter against icount: {insns} instructions in {ticks} ticks; shift {n} at {freq_hz} Hz implies {implied} (+/- {SPEED_CHECK} = {tolerance}): {}",
                verdict(ok)
            );
            (speed, ok)
        }
        (Told::Auto | Told::Nothing, Some(speed)) => {
            let source = if told == Told::Auto {
                "fw_cfg says auto"
            } else {
                "not told through fw_cfg"
            };
            icount::print_speed(
                Uart0,
                speed,
                format_args!("{source}: measured on a {insns}-instruction loop"),
            );
            // QEMU runs every shift, adaptive ones included, at 2^N ns per instruction.
            let ok = speed.shift().is_some();
            println!(
                Uart0,
                "stable counter against icount: {insns} instructions in {ticks} ticks, a power-of-two speed: {}",
                verdict(ok)
            );
            (speed, ok)
        }
        (_, None) => {
            println!(
                Uart0,
                "stable counter against icount: no ticks in {insns} instructions: FAIL"
            );
            (Speed::from_shift(0), false)
        }
    }
}

/// Prints `value_milli / 1000` with three decimals as a `bench:` figure.
fn bench_line(metric: &str, value_milli: u64, unit: &str) {
    println!(
        Uart0,
        "bench: loongarch-timer/{metric} = {}.{:03} {unit}",
        value_milli / 1000,
        value_milli % 1000
    );
}

/// Runs `f(i)` for `i` in `0..LOOP_CALLS` and returns the elapsed stable-counter ticks.
/// [`per_call_milli`] turns them into instructions per call.
#[inline(always)]
fn time_loop(mut f: impl FnMut(u64)) -> u64 {
    let t0 = rdtime();
    for i in 0..LOOP_CALLS {
        f(black_box(i));
    }
    rdtime().wrapping_sub(t0)
}

/// Thousandths of an instruction per call of a [`time_loop`] that took `ticks` at `speed`.
fn per_call_milli(ticks: u64, speed: Speed, freq_hz: u32) -> u64 {
    speed.insns_for(ticks, freq_hz).saturating_mul(1000) / LOOP_CALLS
}

/// Main program, called from `_start` with a stack and zeroed `.bss`.
#[unsafe(no_mangle)]
extern "C" fn board_main() -> ! {
    println!(Uart0, "timer-family firmware: loongarch-virt");

    let crmd_at_entry = crmd();
    let mode = if crmd_at_entry & (1 << 3) != 0 {
        "direct address mode"
    } else {
        "paged mode"
    };
    println!(Uart0, "CRMD = {crmd_at_entry:#x} ({mode})");
    let eentry = install_trap_entry();
    println!(
        Uart0,
        "EENTRY = {eentry:#x} ({})",
        if eentry == __fw_la_eentry as *const () as usize as u64 && eentry.is_multiple_of(4096) {
            "4 KiB aligned exception entry installed"
        } else {
            "NOT INSTALLED"
        }
    );

    // The counter compensation, captured before anything reads the stable counter, and
    // written into this core's CNTC (core 1 writes the same value before its first read).
    let csr = csr();
    let offset = CounterOffset::capture(&csr);
    critical_section::with(|cs| COUNTER_OFFSET.borrow(cs).set(Some(offset)));
    sync_this_core(&csr, 0);

    // Frequency from CPUCFG 2/4/5 through the driver.
    let freq = match ConstantClock::probe(&csr) {
        Ok(freq) => freq,
        Err(e) => {
            println!(Uart0, "constant timer unusable: {e}");
            power_off()
        }
    };
    println!(
        Uart0,
        "CPUCFG4 = {} Hz, CPUCFG5 = {:#06x}{:04x}",
        freq.cc_freq(),
        freq.cc_div(),
        freq.cc_mul()
    );
    println!(Uart0, "stable counter = {} Hz", freq.freq_hz());

    let counter = StableCounter::new(csr.clone(), freq);
    let first = counter.read();
    for _ in 0..10_000 {
        core::hint::spin_loop();
    }
    let second = counter.read();
    let advancing = if second > first {
        "advancing"
    } else {
        "NOT ADVANCING"
    };
    println!(Uart0, "rdtime.d: {first} -> {second} ({advancing})");
    let hz = freq.freq_hz();
    let (speed, speed_ok) = emulation_speed(hz);

    let mut timer = match ConstantTimer::new(csr.clone(), freq, Config::default()) {
        Ok(timer) => timer,
        Err(e) => {
            println!(Uart0, "PANIC: config refused: {e}");
            power_off()
        }
    };
    timer.shutdown();
    timer.ack();

    // ---- Instructions per call on the real ISA (interrupts still off). ----
    println!(
        Uart0,
        "timing loops of {LOOP_CALLS} calls, instructions from stable-counter ticks: {} ns per tick, {speed}",
        1_000_000_000 / hz.max(1)
    );
    let empty = time_loop(|i| {
        black_box(i);
    });
    let reads = time_loop(|i| {
        black_box(i);
        black_box(counter.read());
    });
    let programs = time_loop(|i| {
        let _ = black_box(timer.set_next_event(100_000 + i));
    });
    let spurious_acks = time_loop(|i| {
        black_box(i);
        black_box(timer.ack());
    });
    timer.shutdown();
    let mut alarm = match Alarm::new(timer, StableCounter::new(csr.clone(), freq)) {
        Ok(alarm) => alarm,
        Err(e) => {
            println!(Uart0, "PANIC: alarm: {e}");
            power_off()
        }
    };
    let set_deltas = time_loop(|i| {
        black_box(alarm.set_delta(200_000 + i).is_ok());
    });
    alarm.cancel();
    alarm.event_mut().ack();
    // One empty section of the linked (multi-core) critical section, against the local
    // interrupt mask alone (what the single-core `critical_section_impl!` does). CPU1 is
    // still idle in QEMU's boot-ROM stub, so virtual time counts CPU0 only.
    let cs_multi = time_loop(|_| {
        critical_section::with(|cs| {
            black_box(cs);
        });
    });
    let cs_mask = time_loop(|_| {
        let on = fw_common::loongarch::irq_save();
        black_box(on);
        if on {
            // SAFETY: `irq_save` found interrupts on; this ends that outermost masked span.
            unsafe { fw_common::loongarch::irq_restore() };
        }
    });
    let milli = |ticks| per_call_milli(ticks, speed, hz);
    let empty = milli(empty);
    bench_line("fw_loop_overhead", empty, "insns");
    bench_line(
        "fw_clocksource_read",
        milli(reads).saturating_sub(empty),
        "insns",
    );
    bench_line(
        "fw_set_next_event",
        milli(programs).saturating_sub(empty),
        "insns",
    );
    bench_line(
        "fw_ack_spurious",
        milli(spurious_acks).saturating_sub(empty),
        "insns",
    );
    bench_line(
        "fw_alarm_set_delta",
        milli(set_deltas).saturating_sub(empty),
        "insns",
    );
    bench_line(
        "fw_cs_multi_core_insns",
        milli(cs_multi).saturating_sub(empty),
        "insns",
    );
    bench_line(
        "fw_cs_irq_mask_insns",
        milli(cs_mask).saturating_sub(empty),
        "insns",
    );

    // ---- Interrupts through EENTRY. ----
    alarm.event_mut().enable_interrupt(); // ECFG.LIE bit 11
    // Pinned to this core for the `static` the handler shares.
    let (timer, time) = alarm.into_parts();
    let alarm = match Alarm::new(PinnedTimer::new(timer), PinnedCounter::new(time)) {
        Ok(alarm) => alarm,
        Err(e) => {
            println!(Uart0, "PANIC: alarm: {e}");
            power_off()
        }
    };
    critical_section::with(|cs| ALARM.borrow(cs).replace(Some(alarm)));
    crmd_xchg_ie(CRMD_IE);
    println!(
        Uart0,
        "interrupts on: ECFG.LIE[11] and CRMD.IE set, CRMD = {:#x}",
        crmd()
    );

    let mut all_ok = speed_ok;
    let latency_bound = LATENCY_BOUND.ticks_at(speed, hz);
    for init in [1000u64, 10_000, 100_000] {
        let before = TIMER_IRQS.load(Ordering::Relaxed);
        let request = with_alarm(|alarm| {
            let t = rdtime();
            alarm.event_mut().set_next_event(init).map(|()| t)
        });
        let Some(Ok(request)) = request else {
            println!(Uart0, "oneshot {init} ticks: programming FAILED");
            all_ok = false;
            continue;
        };
        let came = wait_for_irqs(before + 1);
        let stamp = IRQ_STAMPS
            .get(before as usize)
            .map_or(0, |s| s.load(Ordering::Relaxed));
        let latency = stamp.wrapping_sub(request);
        let ok = came && latency >= init && latency <= init + latency_bound;
        all_ok &= ok;
        println!(
            Uart0,
            "oneshot {init} ticks: handler after {latency} ticks = requested + {} \
             (never early, bound +{LATENCY_BOUND} = +{latency_bound}: {})",
            latency.wrapping_sub(init),
            verdict(ok)
        );
    }

    // Periodic: several periods, each interrupt stamped by the handler.
    const PERIOD: u64 = 10_000;
    const PERIODS: u32 = 5;
    TIMER_IRQS.store(0, Ordering::Relaxed);
    let request = with_alarm(|alarm| {
        let t = rdtime();
        alarm.event_mut().set_periodic(PERIOD).map(|()| t)
    });
    let came = matches!(request, Some(Ok(_))) && wait_for_irqs(PERIODS);
    with_alarm(|alarm| alarm.cancel());
    let request = match request {
        Some(Ok(t)) => t,
        _ => 0,
    };
    let stamps: [u64; PERIODS as usize] =
        core::array::from_fn(|i| IRQ_STAMPS[i].load(Ordering::Relaxed));
    let first = stamps[0].wrapping_sub(request);
    let first_ok = came && (PERIOD..=PERIOD + latency_bound).contains(&first);
    all_ok &= first_ok;
    println!(
        Uart0,
        "periodic {PERIOD} ticks: first handler after {first} ticks (never early, bound \
         +{LATENCY_BOUND} = +{latency_bound}: {})",
        verdict(first_ok)
    );
    let jitter = PERIOD_JITTER.ticks_at(speed, hz);
    let mut intervals_ok = came;
    for pair in stamps.windows(2) {
        let interval = pair[1].wrapping_sub(pair[0]);
        let ok = interval.abs_diff(PERIOD) <= jitter;
        intervals_ok &= ok;
        println!(Uart0, "periodic interval: {interval} ticks");
    }
    all_ok &= intervals_ok;
    println!(
        Uart0,
        "periodic: {} intervals within {PERIOD} +/- {PERIOD_JITTER} = {jitter} ticks: {}",
        PERIODS - 1,
        verdict(intervals_ok)
    );

    // The `min_delta` clamp (loongarch-timer's README, "The `min_delta` patch") on the
    // real ISA: a 5 µs (500-tick) deadline through `Alarm`, clamped to
    // min_delta, under 0x600 and under 1000.
    HANDLER_USES_ALARM.store(true, Ordering::Relaxed);
    let alarm_bound = ALARM_BOUND.ticks_at(speed, hz);
    for (name, config) in [("0x600", Config::LINUX_0X600), ("1000", Config::DEFAULT)] {
        let min = config.min_delta;
        critical_section::with(|cs| {
            let mut slot = ALARM.borrow_ref_mut(cs);
            let rebuilt = slot.take().and_then(|alarm| {
                let (timer, time) = alarm.into_parts();
                let csr = timer.into_inner().ok()?.into_inner();
                let timer = ConstantTimer::new(csr, freq, config).ok()?;
                Alarm::new(PinnedTimer::new(timer), time).ok()
            });
            *slot = rebuilt;
        });
        let before = TIMER_IRQS.load(Ordering::Relaxed);
        let request = with_alarm(|alarm| {
            let t = rdtime();
            alarm.set_delta(500).map(|_| t)
        });
        let came = matches!(request, Some(Ok(_))) && wait_for_irqs(before + 1);
        let request = match request {
            Some(Ok(t)) => t,
            _ => 0,
        };
        let (deadline, now) = (
            ALARM_DEADLINE.load(Ordering::Relaxed),
            ALARM_NOW.load(Ordering::Relaxed),
        );
        let stamp = IRQ_STAMPS
            .get(before as usize)
            .map_or(0, |s| s.load(Ordering::Relaxed));
        let after = stamp.wrapping_sub(request);
        let ok = came && now >= deadline && after >= min && after <= min + alarm_bound;
        all_ok &= ok;
        println!(
            Uart0,
            "seed: 5 us request with min_delta {name}: handler after {after} ticks = {}.{:02} us, \
             deadline + {} (clamped, never early, bound min_delta +{ALARM_BOUND} = +{alarm_bound}: {})",
            after / 100,
            after % 100,
            now.wrapping_sub(deadline),
            verdict(ok)
        );
    }

    crmd_xchg_ie(0);
    all_ok &= smp_phase(SMP_LATE_BOUND.ticks_at(speed, hz));
    println!(
        Uart0,
        "spurious interrupts: {}",
        SPURIOUS_IRQS.load(Ordering::Relaxed)
    );
    println!(
        Uart0,
        "timer checks: {}",
        if all_ok { "all ok" } else { "FAILED" }
    );
    println!(Uart0, "done");
    power_off()
}

// ---- Two cores. ----

/// Cores the firmware runs on (`-smp 2`).
const CPUS: usize = 2;
/// Timer events each core takes.
const SMP_EVENTS: u32 = 1000;
/// Delta of each event, in ticks.
const SMP_DELTA: u64 = 1000;
/// Most ticks one event may take before its core gives up (100 deltas).
const SMP_EVENT_WAIT: u64 = 100 * SMP_DELTA;

/// Bound on an event's handler stamp after its deadline on either core: four times
/// [`LATENCY_BOUND`]. One is this core's entry; the rest is what the other core does while
/// this one's deadline passes: its critical section (the handler takes the shared lock to
/// reach its timer), its handler, and its cross-core reads, which QEMU's `-icount` may run
/// first (it runs one vCPU at a time). The factor is measured, not derived: the largest
/// lateness seen was 5, 10, 20, 39, 300 and 1368 ticks at shifts 0 to 5 (about 440
/// instructions at shift 5, against 520 here).
const SMP_LATE_BOUND: Bound = Bound {
    ticks: 12,
    insns: 520,
};

/// Cross-core reads a core takes each time it wakes up in [`one_event`].
const CROSS_READS_PER_WAKE: u32 = 8;

/// The interrupt handler serves the per-core timers of [`TIMERS`].
static SMP_PHASE: AtomicBool = AtomicBool::new(false);
/// Each core's constant timer, pinned to it.
static TIMERS: [Mutex<RefCell<Option<Timer>>>; CPUS] =
    [const { Mutex::new(RefCell::new(None)) }; CPUS];
/// Each core's pending deadline: the stamp taken before programming plus [`SMP_DELTA`].
static DEADLINE: [AtomicU64; CPUS] = [const { AtomicU64::new(0) }; CPUS];
/// Each core's handled events.
static EVENTS: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Each core's events handled before their deadline.
static EARLY: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Each core's largest handler stamp after the deadline.
static MAX_LATE: [AtomicU64; CPUS] = [const { AtomicU64::new(0) }; CPUS];
/// Each core's run failed (no timer, a programming refused, an event that never came).
static CORE_FAILED: [AtomicBool; CPUS] = [const { AtomicBool::new(false) }; CPUS];
/// The core has started (its timer is in [`TIMERS`]).
static CORE_UP: [AtomicBool; CPUS] = [const { AtomicBool::new(false) }; CPUS];
/// The core has taken its [`SMP_EVENTS`] events.
static EVENTS_DONE: [AtomicBool; CPUS] = [const { AtomicBool::new(false) }; CPUS];
/// Each core's events, early events and largest lateness when it had taken its
/// [`SMP_EVENTS`] (the waits after them take more).
static FIGURES: [(AtomicU32, AtomicU32, AtomicU64); CPUS] =
    [const { (AtomicU32::new(0), AtomicU32::new(0), AtomicU64::new(0)) }; CPUS];
/// The core has finished (events and contention run).
static CORE_DONE: [AtomicBool; CPUS] = [const { AtomicBool::new(false) }; CPUS];
/// Each core's last `rdtime.d`, published for the other.
static LAST_READ: [AtomicU64; CPUS] = [const { AtomicU64::new(0) }; CPUS];
/// Each core's reads checked against the other core's last published reading.
static CROSS_READS: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Reads that came out below the other core's reading published before them.
static CROSS_BACKWARDS: AtomicU32 = AtomicU32::new(0);
/// The driver's stable counter, owned by core 0 (from the single-core checks' `Alarm`),
/// read by both cores through `PinnedCounter::now` (`loongarch-timer` reads `rdtime.d` on
/// whichever core calls it).
/// Shared without the critical section (a lock per read kept core 1 spinning behind core 0
/// for over 1 ms at `-icount shift=4`): the counter lives in [`SHARED_NOW_CELL`] and this
/// is a pointer to it, set once, before core 1 is released.
static SHARED_NOW: AtomicPtr<Counter> = AtomicPtr::new(core::ptr::null_mut());
/// Where [`SHARED_NOW`] points.
static SHARED_NOW_CELL: StaticCell<Counter> = StaticCell::new();
/// `PinnedCounter::now` reads on each core.
static DRIVER_READS: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// `PinnedCounter::now` reads that returned less than a `rdtime.d` taken just before on the
/// same core (stale time: what a driver that published time only on its owner core would give).
static DRIVER_STALE: AtomicU32 = AtomicU32::new(0);
/// `PinnedCounter::now` reads that returned more than a `rdtime.d` taken just after on the
/// same core: time held at another core's reading, ahead of this core's counter (what cores
/// whose CNTC differ would see without `sync_counter`).
static DRIVER_AHEAD: AtomicU32 = AtomicU32::new(0);
/// The counter compensation core 0 captured at boot (`CounterOffset::capture`), written into
/// every core's CNTC with `sync_counter` before that core reads time.
static COUNTER_OFFSET: Mutex<Cell<Option<CounterOffset>>> = Mutex::new(Cell::new(None));
/// Each core's CNTC read back right after its `sync_counter`.
static CNTC_SEEN: [AtomicU64; CPUS] = [const { AtomicU64::new(0) }; CPUS];

/// Writes the boot core's counter compensation into the calling core's CNTC and records
/// what CNTC then holds. Called on each core before anything on it reads the stable
/// counter: Linux's `sync_counter`, which the crate's `PinnedCounter` needs on chips whose
/// cores' CNTC differ (otherwise the published maximum follows the core that runs ahead and
/// time stalls on the others). QEMU TCG ignores CNTC in `rdtime.d`, so here only the
/// read-back shows that every core did it. Whether the offset was there to write.
fn sync_this_core(csr: &NativeCsr, cpu: usize) -> bool {
    let Some(offset) = critical_section::with(|cs| COUNTER_OFFSET.borrow(cs).get()) else {
        return false;
    };
    // SAFETY: PLV0 on the core whose CNTC this writes (`csr` is this core's); nothing on this
    // core has read the stable counter yet and no timer deadline is outstanding on it.
    unsafe { sync_counter(csr, offset) };
    if let Some(seen) = CNTC_SEEN.get(cpu) {
        seen.store(
            hwtimer_core::RegisterBus::read_word(csr, CSR_CNTC.offset()),
            Ordering::Relaxed,
        );
    }
    true
}
/// Incremented non-atomically (load, some work, store) inside critical sections by both
/// cores: a lost update means two cores were in a section at once.
static SECTIONS: Mutex<Cell<u32>> = Mutex::new(Cell::new(0));
/// Sections each core counted into [`SECTIONS`].
static SECTIONS_TAKEN: [AtomicU32; CPUS] = [const { AtomicU32::new(0) }; CPUS];
/// Sections of the contention run of each core.
const CONTENTION_SECTIONS: u32 = 2000;
/// Iterations of `spin_insns` between the load and the store of one contention section
/// (two instructions each): most of the loop is inside the section.
const CONTENTION_WINDOW: u64 = 100;

/// The non-atomic increment of [`SECTIONS`] by core `cpu`, with `window` iterations of
/// work between its load and its store.
fn count_section(cs: critical_section::CriticalSection<'_>, cpu: usize, window: u64) {
    let cell = SECTIONS.borrow(cs);
    let value = cell.get();
    spin_insns(window);
    cell.set(value.wrapping_add(1));
    SECTIONS_TAKEN[cpu].fetch_add(1, Ordering::Relaxed);
}

/// Core `cpu` (interrupts off) takes [`CONTENTION_SECTIONS`] sections with a window of
/// [`CONTENTION_WINDOW`] between load and store, while its timer runs periodic with its
/// interrupt masked. Under `-icount` QEMU runs one vCPU at a time and switches at virtual
/// timer deadlines; the periodic timers put those deadlines (1 per 1000 ticks per core)
/// inside the windows, so without a lock across cores updates are lost (checked: with the
/// single-core `critical_section_impl!` the count came out short).
fn contention(cpu: usize) {
    let periodic = critical_section::with(|cs| {
        let mut slot = TIMERS[cpu].borrow(cs).try_borrow_mut().ok()?;
        slot.as_mut()?.set_periodic(SMP_DELTA).ok()
    });
    if periodic.is_none() {
        CORE_FAILED[cpu].store(true, Ordering::Relaxed);
        return;
    }
    for _ in 0..CONTENTION_SECTIONS {
        critical_section::with(|cs| count_section(cs, cpu, CONTENTION_WINDOW));
        spin_insns(8);
    }
    critical_section::with(|cs| {
        if let Ok(mut slot) = TIMERS[cpu].borrow(cs).try_borrow_mut()
            && let Some(timer) = slot.as_mut()
        {
            timer.shutdown();
            timer.ack();
        }
    });
}

/// Acknowledges the calling core's timer, and checks and counts the event. Whether it was
/// the timer's.
fn smp_trap(stamp: u64) -> bool {
    let cpu = cpu_id() as usize;
    let (Some(timer), Some(deadline)) = (TIMERS.get(cpu), DEADLINE.get(cpu)) else {
        return false;
    };
    let acked = critical_section::with(|cs| {
        let mut slot = timer.borrow(cs).try_borrow_mut().ok()?;
        slot.as_mut().map(|t| t.ack())
    });
    if acked != Some(true) {
        return false;
    }
    let deadline = deadline.load(Ordering::Relaxed);
    if stamp < deadline {
        EARLY[cpu].fetch_add(1, Ordering::Relaxed);
    } else {
        MAX_LATE[cpu].fetch_max(stamp - deadline, Ordering::Relaxed);
    }
    EVENTS[cpu].fetch_add(1, Ordering::Release);
    true
}

/// One cross-core read on core `cpu`: the other core's last reading, then `rdtime.d`, which
/// must not be below it (the load is ordered before the read, so that reading was taken
/// earlier).
fn cross_read(cpu: usize) {
    let other = LAST_READ[cpu ^ 1].load(Ordering::Acquire);
    let now = rdtime();
    if other != 0 {
        CROSS_READS[cpu].fetch_add(1, Ordering::Relaxed);
        if now < other {
            CROSS_BACKWARDS.fetch_add(1, Ordering::Relaxed);
        }
    }
    LAST_READ[cpu].store(now, Ordering::Release);
    let shared = SHARED_NOW.load(Ordering::Acquire);
    // SAFETY: non-null, it points into SHARED_NOW_CELL, initialised once before the pointer
    // was published and never borrowed mutably again; `Counter` is `Sync`.
    let driver = unsafe { shared.as_ref() }.map(Monotonic::now);
    let after = rdtime();
    if let Some(driver) = driver {
        DRIVER_READS[cpu].fetch_add(1, Ordering::Relaxed);
        if driver < now {
            DRIVER_STALE.fetch_add(1, Ordering::Relaxed);
        }
        if driver > after {
            DRIVER_AHEAD.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Arms core `cpu`'s timer for [`SMP_DELTA`] ticks and waits for its interrupt (entered with
/// interrupts off, left with them off). Whether it came within [`SMP_EVENT_WAIT`].
///
/// The core waits in `idle` with CRMD.IE off, which QEMU ends as soon as an enabled
/// interrupt (ECFG.LIE) is pending, and takes it by turning IE on: no interrupt can come
/// between the check and the `idle`. Waiting in `idle` rather than spinning matters under
/// `-icount`: QEMU then runs its vCPUs one at a time, and a spinning core kept the other one
/// off the CPU for tens of virtual milliseconds (seen: a core's event 45 ms late). The
/// armed timer ends every `idle`; [`CROSS_READS_PER_WAKE`] cross-core reads are taken per
/// wake-up.
fn one_event(cpu: usize) -> bool {
    let before = EVENTS[cpu].load(Ordering::Acquire);
    let armed = critical_section::with(|cs| {
        let mut slot = TIMERS[cpu].borrow(cs).try_borrow_mut().ok()?;
        let timer = slot.as_mut()?;
        DEADLINE[cpu].store(rdtime() + SMP_DELTA, Ordering::Relaxed);
        timer.set_next_event(SMP_DELTA).ok()
    });
    if armed.is_none() {
        return false;
    }
    let start = rdtime();
    while EVENTS[cpu].load(Ordering::Acquire) == before {
        for _ in 0..CROSS_READS_PER_WAKE {
            cross_read(cpu);
        }
        if rdtime().wrapping_sub(start) > SMP_EVENT_WAIT {
            return false;
        }
        // SAFETY: `idle` waits for a pending interrupt; this core's timer is armed, so one
        // comes. Interrupts are off here and turned on (and off again) around taking it.
        unsafe { core::arch::asm!("idle 0", options(nostack)) };
        crmd_xchg_ie(CRMD_IE);
        crmd_xchg_ie(0);
    }
    true
}

/// Core `cpu` takes [`SMP_EVENTS`] oneshot events of [`SMP_DELTA`] ticks on its own timer
/// ([`one_event`]; interrupts off on entry and exit).
fn core_events(cpu: usize) {
    // Re-entrant on this core: a lock that is not would spin here until `smp_cs` panics.
    critical_section::with(|_| critical_section::with(|_| ()));
    for _ in 0..SMP_EVENTS {
        if !one_event(cpu) {
            CORE_FAILED[cpu].store(true, Ordering::Relaxed);
            return;
        }
    }
    FIGURES[cpu]
        .0
        .store(EVENTS[cpu].load(Ordering::Acquire), Ordering::Relaxed);
    FIGURES[cpu]
        .1
        .store(EARLY[cpu].load(Ordering::Relaxed), Ordering::Relaxed);
    FIGURES[cpu]
        .2
        .store(MAX_LATE[cpu].load(Ordering::Relaxed), Ordering::Relaxed);
    EVENTS_DONE[cpu].store(true, Ordering::Release);
    // The contention run starts once both cores are through their events (so that it does
    // not delay the other core's handlers); the wait takes more events, in `idle`.
    let start = rdtime();
    while !EVENTS_DONE[cpu ^ 1].load(Ordering::Acquire)
        && rdtime().wrapping_sub(start) <= WAIT_TICKS
    {
        if !one_event(cpu) {
            break;
        }
    }
    contention(cpu);
}

/// Waits (bounded by [`WAIT_TICKS`]) until `flag` is set.
fn wait_flag(flag: &AtomicBool) -> bool {
    let start = rdtime();
    while !flag.load(Ordering::Acquire) {
        if rdtime().wrapping_sub(start) > WAIT_TICKS {
            return flag.load(Ordering::Acquire);
        }
        core::hint::spin_loop();
    }
    true
}

/// Called by CPU0 with interrupts off after the single-core checks: releases CPU1, runs the
/// per-core timers on both and prints their figures. Whether every check passed.
fn smp_phase(late_bound: u64) -> bool {
    let boot = critical_section::with(|cs| ALARM.borrow(cs).take()).map(Alarm::into_parts);
    let Some((boot_timer, boot_counter)) = boot else {
        println!(Uart0, "smp: core0 has no timer: FAIL");
        return false;
    };
    critical_section::with(|cs| {
        TIMERS[0].borrow(cs).replace(Some(boot_timer));
    });
    let shared: &'static Counter = SHARED_NOW_CELL.init(boot_counter);
    SHARED_NOW.store(core::ptr::from_ref(shared).cast_mut(), Ordering::Release);
    SMP_PHASE.store(true, Ordering::Release);

    let entry = __fw_la_secondary as *const () as usize as u64;
    // SAFETY: `__fw_la_secondary` runs in the state the ROM stub leaves a core in (it sets
    // up the FPU and its own stack), and core 1 has not been released before.
    unsafe { smp::start_secondary(1, entry) };
    if !wait_flag(&CORE_UP[1]) {
        println!(
            Uart0,
            "smp: core1 did not come up within {WAIT_TICKS} ticks of its release: FAIL"
        );
        return false;
    }
    // Printed once both cores are done: a core that prints (polling the UART) while the
    // other waits for its timer kept that one off the CPU under `-icount shift=4` (its
    // first events came up to 17 ms late).
    core_events(0);
    CORE_DONE[0].store(true, Ordering::Release);
    // Wait for core 1 in `idle` too (core 0's timer wakes it), bounded by WAIT_TICKS.
    let start = rdtime();
    while !CORE_DONE[1].load(Ordering::Acquire) && rdtime().wrapping_sub(start) <= WAIT_TICKS {
        if !one_event(0) {
            break;
        }
    }
    let core1_done = CORE_DONE[1].load(Ordering::Acquire);
    println!(
        Uart0,
        "smp: core1 up at {entry:#x} (IOCSR mailbox + IPI), own stack: ok"
    );
    let mut ok = core1_done;
    if !core1_done {
        println!(
            Uart0,
            "smp: core1 did not finish within {WAIT_TICKS} ticks: FAIL"
        );
    }
    for cpu in 0..CPUS {
        // The figures as they were when the core had taken its events.
        let (events, early, max_late) = (
            FIGURES[cpu].0.load(Ordering::Relaxed),
            FIGURES[cpu].1.load(Ordering::Relaxed),
            FIGURES[cpu].2.load(Ordering::Relaxed),
        );
        let failed = CORE_FAILED[cpu].load(Ordering::Relaxed);
        let late_ok = max_late <= late_bound;
        ok &= !failed && events == SMP_EVENTS && early == 0 && late_ok;
        println!(
            Uart0,
            "core{cpu}: events={events} early={early} max_late_ticks={max_late} \
             (bound +{SMP_LATE_BOUND} = +{late_bound}: {}){}",
            verdict(late_ok),
            if failed {
                " (a wait or programming FAILED)"
            } else {
                ""
            }
        );
    }
    let reads: u32 = CROSS_READS.iter().map(|r| r.load(Ordering::Relaxed)).sum();
    let backwards = CROSS_BACKWARDS.load(Ordering::Relaxed);
    ok &= reads > 0 && backwards == 0;
    println!(Uart0, "cross-core: reads={reads} backwards={backwards}");
    let driver_reads: [u32; CPUS] =
        core::array::from_fn(|cpu| DRIVER_READS[cpu].load(Ordering::Relaxed));
    let stale = DRIVER_STALE.load(Ordering::Relaxed);
    let ahead = DRIVER_AHEAD.load(Ordering::Relaxed);
    let driver_ok = driver_reads.iter().all(|&n| n > 0) && stale == 0 && ahead == 0;
    ok &= driver_ok;
    println!(
        Uart0,
        "cross-core: core0's PinnedCounter::now read {} times on core0, {} on core1, {stale} behind rdtime.d, {ahead} ahead of it (stalled at another core's time): {}",
        driver_reads[0],
        driver_reads[1],
        verdict(driver_ok)
    );
    let offset =
        critical_section::with(|cs| COUNTER_OFFSET.borrow(cs).get()).map(CounterOffset::value);
    let cntc: [u64; CPUS] = core::array::from_fn(|cpu| CNTC_SEEN[cpu].load(Ordering::Relaxed));
    let cntc_ok = offset.is_some_and(|o| cntc.iter().all(|&c| c == o));
    ok &= cntc_ok;
    println!(
        Uart0,
        "sync_counter: boot core's CounterOffset {:#x}, CNTC core0 {:#x}, core1 {:#x}: {}",
        offset.unwrap_or(0),
        cntc[0],
        cntc[1],
        verdict(cntc_ok)
    );
    let sections = critical_section::with(|cs| SECTIONS.borrow(cs).get());
    let counted: u32 = SECTIONS_TAKEN
        .iter()
        .map(|e| e.load(Ordering::Relaxed))
        .sum();
    let sections_ok = sections == counted;
    ok &= sections_ok;
    println!(
        Uart0,
        "critical sections across cores: {sections} non-atomic increments, {counted} sections: {}",
        verdict(sections_ok)
    );
    println!(Uart0, "smp checks: {}", verdict(ok));
    ok
}

/// Rust side of a secondary core's entry (`cpu` is 1..CPUS): its exception entry, its own
/// timer, its events; then it idles for good (CPU0 powers the machine off).
#[unsafe(no_mangle)]
extern "C" fn secondary_main(cpu: u64) -> ! {
    let cpu = (cpu as usize).min(CPUS - 1);
    install_trap_entry();
    let csr = csr();
    // Before this core reads the stable counter (its timer is built below).
    if !sync_this_core(&csr, cpu) {
        CORE_FAILED[cpu].store(true, Ordering::Relaxed);
    }
    let timer = ConstantClock::probe(&csr)
        .ok()
        .and_then(|freq| ConstantTimer::new(csr, freq, Config::default()).ok());
    match timer {
        Some(mut timer) => {
            timer.shutdown();
            timer.ack();
            timer.enable_interrupt();
            let timer = PinnedTimer::new(timer);
            critical_section::with(|cs| TIMERS[cpu].borrow(cs).replace(Some(timer)));
            CORE_UP[cpu].store(true, Ordering::Release);
            core_events(cpu);
        }
        None => {
            CORE_FAILED[cpu].store(true, Ordering::Relaxed);
            CORE_UP[cpu].store(true, Ordering::Release);
        }
    }
    CORE_DONE[cpu].store(true, Ordering::Release);
    loop {
        // SAFETY: `idle` only waits for an interrupt; interrupts are off, so this core
        // stays here until the machine powers off.
        unsafe { core::arch::asm!("idle 0", options(nomem, nostack)) };
    }
}

/// Prints the panic and powers off. The board has no way to report a failure status, so
/// `cargo xtask qemu` relies on the `PANIC` line to fail the run.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    fw_common::print_panic(Uart0, info);
    power_off()
}
