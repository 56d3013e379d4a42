//! Firmware for QEMU's `malta` board with a MIPS 4KEc: the `otto-timer` driver on the ISA and
//! byte order of the Realtek Otto SoCs (big-endian MIPS32r2; the 4KEc is the core named for
//! RTL838x, unverified in crates/otto-timer/docs/otto-timer.md).
//!
//! QEMU has no model of the Otto timer block, so the firmware **plays the hardware**: the
//! register window is 0x100 bytes of RAM (`__otto_window` in `link.x`, reached through its
//! uncached KSEG1 alias, no Rust object there), the driver gets it as a `hwtimer_core::Mmio`,
//! and the firmware sets what the hardware would show (CNT values, INT.IP) and checks the words
//! the driver leaves behind against the facts in `crates/otto-timer/docs/otto-timer.md`, which it restates here
//! as its own constants ([`CTRL_ENABLE`], [`INT_IP`], ...) rather than taking them from the
//! crate. What it proves: the driver's code runs on the SoC's ISA and byte order, its
//! native-endian 32-bit MMIO puts the most significant byte first, and each call leaves the
//! registers as the hardware expects them. What it cannot prove: anything that needs a
//! counting timer (interrupt timing, the lost-interrupt window); that is the model's job
//! (`crates/otto-timer/tests`). A RAM word is not write-1-to-clear, so an acknowledge is
//! checked by the value written, not by a cleared bit.
//!
//! Steps ([`run`]):
//!
//! 1. the CPU (PRId, Config.BE) and CP0 Count;
//! 2. the emulation speed (below);
//! 3. the RTL838x block in RAM, filled with canary words; `OttoTimers::per_cpu(1)`: timer 0
//!    is CPU 0's clockevent, timer 1 the clocksource; the words after construction, the byte
//!    order of a word the driver wrote;
//! 4. `read` (through the `Clocksource` trait) on CNT values the firmware sets, bits above 28
//!    included; `Extended` across the `0x0FFF_FFFF -> 0` wrap;
//! 5. `set_next_event`, `set_periodic`, out-of-range deltas, `ack` (pending and spurious),
//!    `shutdown`, each checked by the words left in the window, and every word the driver must
//!    never write (CNT, the timers it does not own, the canary after the block);
//! 6. instructions per call of `read` and `set_next_event`, 10,000 calls each, loop overhead
//!    subtracted (`bench:` lines, collected by `cargo xtask bench`); the same for one empty
//!    critical section, with the installed multi-core implementation
//!    (`fw_cs_multi_core_insns`) and with the single-core pair `fw_common::cs::irq_save` /
//!    `irq_restore` that `critical_section_impl!` would install (`fw_cs_irq_mask_insns`);
//! 7. two CPUs (below).
//!
//! # Two CPUs
//!
//! The board runs with `-smp 2`: two 4KEc CPUs, no CPS (the 4KEc has none), both reset to
//! the boot vector, and QEMU's boot loader brings both to the ELF entry with the same
//! registers (`fw_common::mips::smp`). The entry code sends CPU 1 (EBase.CPUNum = 1) to its
//! own stack and a wait on a release word, in which it naps 50 ms at a time on its CP0
//! timer, so that it adds nothing measurable to CPU 0's instruction counts in steps 1-6.
//! Critical sections are `fw_common::mips_smp_critical_section_impl!`: `di` plus an LL/SC
//! spinlock that records its holder.
//!
//! In step 7 CPU 0 lays the block out for two CPUs (`per_cpu::<2>()`: timer *n* is CPU
//! *n*'s clockevent, timer 2 the clocksource) and binds the clockevents with
//! [`EbaseCpu`](fw_common::mips::EbaseCpu), the firmware's `CurrentCpu` (EBase.CPUNum:
//! hwtimer-core has no MIPS `NativeCpu`). It arms CPU 1's timer itself and must get
//! `WrongCpu` with no word written, releases CPU 1 and waits for it for at most 400 ms
//! (`CPU 1: never showed up` otherwise); CPU 1 tries CPU 0's timer (`WrongCpu` again) and
//! hands it back. Then both CPUs run 200 oneshots of 100 ticks on their own timer while
//! reading the shared `Extended` (timer 2, whose `Published` is hwtimer-core's seqlock on
//! MIPS32) four times per poll, and CPU 0 steps timer 2's CNT by 1/256 of the 28-bit range
//! at each of its polls, across several wraps, until CPU 1 is done. Each CPU checks that its
//! reads never go backwards (`cross-core: reads=.. backwards=0`), and CPU 0 that the final
//! time has counted every wrap. At every poll each CPU also increments a shared counter
//! with a plain load and store inside a critical section that naps between the two, so the
//! other CPU runs and has to wait for the lock: the counter must equal the increments made
//! (with the single-core `critical_section_impl!` installed instead, a run lost 225 of 460).
//! Before releasing CPU 1, CPU 0 checks that the lock records it as holder and that a
//! nested section re-enters (depth 2) instead of spinning on itself.
//!
//! What an *event* is here: no Otto timer counts on this board, so each CPU runs an
//! [`OttoRam`] player over its own timer's 16 bytes, which turns CP0 Count into CNT and
//! raises INT.IP once DATA ticks have passed since it first saw the timer started. An event
//! is one `set_next_event(100)` whose played IP the CPU finds at a poll and acknowledges
//! with `ack` (which must return true). *Early* means found before 100 ticks (51.2 Count
//! ticks each) had passed on the CPU's Count since `set_next_event` returned, one Count
//! tick of rounding allowed: it would catch a driver that programs DATA, the mode or the
//! divisor wrong, not anything about interrupt timing. *Late* (`max_late_ticks`) is how
//! long after that point the poll found it: the poll interval (the CPU naps 1/8 of the
//! delta between polls), the player's step, the other CPU's critical sections and QEMU's
//! scheduling of the two vCPUs (in `-icount` mode one vCPU runs at a time, switching when
//! one halts in `wait` or its slice ends). It is a property of this polled set-up, not an
//! interrupt latency, and is printed, not asserted.
//!
//! # Instruction counts, at any `-icount` shift
//!
//! Under `-icount shift=N` every instruction takes 2^N ns of virtual time, and CP0 Count
//! counts virtual time: once per CCRes = 2 cycles of the Malta's 320 MHz CPU clock, 160 MHz
//! (`qemu/qemu hw/mips/malta.c`, `target/mips/cpu-defs.c.inc`), 6.25 instructions per tick at
//! shift 0 and 0.39 at shift 4. QEMU's MIPS CPUs count no instructions themselves, so
//! `cargo xtask qemu` tells the firmware the shift on the kernel command line
//! (`-append icount-shift={icount}`; QEMU's Malta boot loader passes it as argv\[1\]), and the
//! firmware checks what it was told: a loop of exactly 1,000,002 instructions must take
//! `1000002 × 2^N / 6.25` Count ticks, to within [`SPEED_CHECK`] (this also checks the Count
//! rate). Told `auto` or nothing (a run by hand), it uses the speed that loop measured.
//!
//! A timed loop of [`CALLS`] calls is a function of its own ([`measure`], `#[inline(never)]`,
//! generic over the call), so its code does not depend on the code around it; its Count ticks
//! become instructions at the speed, and the empty loop's are subtracted. A tick truncates at
//! each end, so a loop's count is exact to ±1 tick (6.25 instructions at shift 0: 0.0006 per
//! call over 10,000 calls, less at higher shifts); per call it is rounded to the nearest
//! hundredth, and the figures are the same at every shift (checked at shifts 0 and 4).
//!
//! Run it with `cargo xtask qemu otto-malta`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]
// `mips_board!` expands to `global_asm!`, still unstable on MIPS (built with
// RUSTC_BOOTSTRAP=1, like every firmware here for `-Zbuild-std`).
#![feature(asm_experimental_arch)]

use core::fmt;
use core::hint::black_box;
use core::sync::atomic::{AtomicU32, Ordering};

use fw_common::cell::{CsCell, StaticCell};
use fw_common::icount::{self, Bound, Speed, Told};
use fw_common::mips::{self, BootArgs, EbaseCpu, malta::Uart, otto_ram::OttoRam, smp_cs};
use fw_common::{mmio, println};
use hwtimer_core::{ClockEvent, Clocksource, ConfigError, Error, Extended, Mmio, Monotonic};
use otto_timer::soc::Irq;
use otto_timer::{BoundCpuTimer, BoundPerCpu, Config, OttoClocksource, OttoTimers, PerCpu, Soc};

fw_common::mips_board! {
    name: "otto-malta",
    console: Uart,
    main: run,
    secondary: secondary,
}

// Two CPUs share `Extended` and the hand-over cells: Status.IE off on the calling CPU plus
// the LL/SC spinlock of `fw_common::mips::smp_cs` (interrupts are never enabled here, but
// the other CPU is there). The single-core pair (`fw_common::cs::irq_save`/`irq_restore`,
// what `critical_section_impl!` installs) is measured next to it (`fw_cs_irq_mask_insns`).
fw_common::mips_smp_critical_section_impl!();

// ---- Facts from crates/otto-timer/docs/otto-timer.md, restated (not taken from the crate) ----

/// CTRL bit 28: the timer counts (`RTTM_CTRL_ENABLE`).
const CTRL_ENABLE: u32 = 1 << 28;
/// CTRL bit 24: TIMER (periodic) mode; clear is COUNTER (oneshot) mode.
const CTRL_TIMER: u32 = 1 << 24;
/// INT bit 20: interrupt enable.
const INT_IE: u32 = 1 << 20;
/// INT bit 16: interrupt pending, write 1 to clear.
const INT_IP: u32 = 1 << 16;
/// The counter and DATA are 28 bits wide.
const COUNTER_MASK: u32 = 0x0FFF_FFFF;
/// RTL838x: LXB bus clock 200 MHz, tick 3.125 MHz, so one tick per 64 LXB cycles.
const DIVISOR: u32 = 200_000_000 / 3_125_000;
/// The tick rate Linux (and the crate's default `Config`) runs the block at.
const TICK_HZ: u32 = 3_125_000;
/// A periodic start at 3.125 MHz on a 200 MHz bus, as the document spells it out.
const PERIODIC_START: u32 = 0x1100_0040;
/// CPU 0's timer (TC0) on the RTL838x `rtl-intc`.
const TC0_LINE: u8 = 29;

/// Register offsets within one timer, and the stride between timers.
const DATA: usize = 0x0;
/// CNT: the count, read-only.
const CNT: usize = 0x4;
/// CTRL: enable, mode, divisor.
const CTRL: usize = 0x8;
/// INT: IE and IP.
const INT: usize = 0xC;
/// Timers are 0x10 apart.
const STRIDE: usize = 0x10;

// ---- The board ----

/// CP0 Count rate on QEMU's Malta: 320 MHz CPU clock / CCRes 2.
const COUNT_HZ: u32 = 160_000_000;
/// CCRes of QEMU's 4KEc model.
const CCRES: u32 = 2;
/// PRId of a MIPS 4KEc (company 0x01, processor 0x90), revision masked off.
const PRID_4KEC: u32 = 0x0001_9000;
/// The `-append` word through which `cargo xtask qemu` tells the `-icount` shift.
const ICOUNT_KEY: &str = "icount-shift";
/// Passes of the speed loop: 2 × 500,000 + 2 instructions.
const SPEED_LOOP: u32 = 500_000;
/// How far the speed loop's ticks may be from what the told shift implies: one tick of
/// truncation, and the instructions around the loop between the two Count reads (a few).
const SPEED_CHECK: Bound = Bound { ticks: 1, insns: 8 };
/// Calls per timed loop.
const CALLS: u32 = 10_000;
/// Bytes of RAM reserved for the window (`link.x`): the 0x50-byte RTL838x block and canary
/// words after it.
const WINDOW_BYTES: usize = 0x100;
/// Words of the reserved RAM.
const WINDOW_WORDS: usize = WINDOW_BYTES / 4;

/// The value every word of the reserved RAM starts with: a word the driver never writes
/// keeps it.
const fn canary(offset: usize) -> u32 {
    0xC0DE_0000 | offset as u32
}

unsafe extern "C" {
    /// Start of the RAM that plays the Otto block (`link.x`).
    static __otto_window: u8;
}

/// The RAM window seen by the firmware (the hardware side).
#[derive(Clone, Copy)]
struct Window {
    /// KSEG1 (uncached) address of the reserved RAM.
    base: usize,
}

impl Window {
    /// The window at `__otto_window`'s uncached alias.
    fn new() -> Self {
        let linked = &raw const __otto_window as usize;
        Self {
            base: mips::kseg1(linked),
        }
    }

    /// The word at `offset`.
    fn read(&self, offset: usize) -> u32 {
        // SAFETY: `offset` is one of the window's aligned word offsets (callers use the
        // register constants below WINDOW_BYTES); the RAM is reserved by link.x for this and
        // holds no Rust object.
        unsafe { mmio::read32(self.base + offset) }
    }

    /// Sets the word at `offset`: what the hardware would show there.
    fn write(&self, offset: usize, value: u32) {
        // SAFETY: as in `read`.
        unsafe { mmio::write32(self.base + offset, value) }
    }

    /// The byte at `offset`.
    fn byte(&self, offset: usize) -> u8 {
        // SAFETY: as in `read`, a byte within the window.
        unsafe { mmio::read8(self.base + offset) }
    }

    /// Every word of the reserved RAM.
    fn snapshot(&self) -> [u32; WINDOW_WORDS] {
        core::array::from_fn(|i| self.read(4 * i))
    }

    /// Fills the reserved RAM with [`canary`] words.
    fn fill_canary(&self) {
        for i in 0..WINDOW_WORDS {
            self.write(4 * i, canary(4 * i));
        }
    }
}

/// Offset of register `reg` of timer `n`.
const fn reg(n: usize, reg: usize) -> usize {
    n * STRIDE + reg
}

/// Collects verdicts; every check prints one line ending in `ok` or `FAIL`.
struct Checks {
    all_ok: bool,
}

impl Checks {
    /// Prints `<what>: ok|FAIL` and records the verdict.
    fn check(&mut self, ok: bool, what: fmt::Arguments<'_>) {
        self.all_ok &= ok;
        println!(Uart, "{what}: {}", if ok { "ok" } else { "FAIL" });
    }
}

/// The board's checks; returns whether all passed.
fn run(boot: &BootArgs) -> bool {
    match run_checks(boot) {
        Ok(ok) => {
            println!(
                Uart,
                "otto-malta checks: {}",
                if ok { "all ok" } else { "FAILED" }
            );
            ok
        }
        Err(e) => {
            println!(Uart, "otto-timer error: {e}");
            false
        }
    }
}

/// The checks of the module docs, in order.
fn run_checks(boot: &BootArgs) -> Result<bool, Error> {
    let mut c = Checks { all_ok: true };

    // ---- 1. The CPU ----
    let prid = mips::prid();
    let config = mips::config();
    let big = config & mips::CONFIG_BE != 0;
    c.check(
        prid & 0x00FF_FF00 == PRID_4KEC && big,
        format_args!(
            "CPU: PRId = {prid:#010x} (MIPS 4KEc), Config = {config:#010x} (BE = {}: big-endian)",
            u32::from(big)
        ),
    );
    let ccres = mips::ccres();
    let first = mips::count();
    mips::spin_insns(1000);
    let second = mips::count();
    c.check(
        ccres == CCRES && second != first,
        format_args!("CP0 Count: {first} -> {second} (advancing), CCRes = {ccres}: {COUNT_HZ} Hz"),
    );

    // ---- 2. Emulation speed ----
    let speed = emulation_speed(boot, &mut c);

    // ---- 3. The block in RAM ----
    let win = Window::new();
    win.fill_canary();
    let soc = Soc::Rtl838x;
    let info = soc.info();
    let block = info.block_len();
    println!(
        Uart,
        "Otto window: RTL838x, {} timers x {STRIDE:#x} = {block:#x} bytes, in RAM at KSEG1 {:#010x} (physical {:#010x}), canary words around and in it",
        info.timers,
        win.base,
        mips::physical(win.base)
    );
    // SAFETY: `win.base..+block` is RAM reserved by link.x for this window, uncached (KSEG1),
    // 4-byte aligned, holding no Rust object, and valid for volatile 32-bit accesses for the
    // whole run. The firmware writes it between driver calls, on CPU 0 only (CPU 1 waits for
    // step 7), only to play the hardware (CNT values, INT.IP), which is what the driver
    // expects registers to do.
    let bus: Mmio = unsafe { Mmio::new(win.base, block) };
    let config = Config::new(soc);
    let PerCpu {
        cpus: [cpu0],
        clocksource: cs,
    } = OttoTimers::new(&bus, config)?.per_cpu::<1>()?;
    let mut ev = cpu0.event;
    c.check(
        cpu0.cpu == 0 && ev.index() == 0 && cs.index() == 1 && cpu0.irq == Irq::RtlIntc(TC0_LINE),
        format_args!(
            "per_cpu(1): timer {} = CPU {} clockevent ({:?}), timer {} = clocksource",
            ev.index(),
            cpu0.cpu,
            cpu0.irq,
            cs.index()
        ),
    );

    let ctrl1 = win.read(reg(1, CTRL));
    let data1 = win.read(reg(1, DATA));
    let int1 = win.read(reg(1, INT));
    c.check(
        ctrl1 == CTRL_ENABLE | CTRL_TIMER | DIVISOR && ctrl1 == PERIODIC_START && data1 == 0 && int1 == 0,
        format_args!(
            "timer 1 clocksource: CTRL = {ctrl1:#010x} (ENABLE, TIMER, divisor {DIVISOR} = 200 MHz / 3.125 MHz), DATA = {data1:#x} (free-running), INT = {int1:#x} (IE off, IP written 0: no ack)"
        ),
    );
    let ctrl0 = win.read(reg(0, CTRL));
    let int0 = win.read(reg(0, INT));
    c.check(
        ctrl0 == 0 && int0 == INT_IP,
        format_args!(
            "timer 0 clockevent shut down: CTRL = {ctrl0:#x} (stopped), INT = {int0:#010x} (IE 0, IP written 1: a stale status cleared)"
        ),
    );
    let bytes = [0, 1, 2, 3].map(|i| win.byte(reg(1, CTRL) + i));
    c.check(
        bytes == ctrl1.to_be_bytes() && bytes[0] == 0x11 && bytes[3] == 0x40,
        format_args!(
            "byte order: timer 1 CTRL bytes +0..+3 = {:02x} {:02x} {:02x} {:02x} (most significant first: big-endian, the SoC's register layout from native-endian stores)",
            bytes[0], bytes[1], bytes[2], bytes[3]
        ),
    );

    // ---- 4. The clocksource ----
    c.check(
        cs.bits() == 28 && cs.freq_hz() == TICK_HZ,
        format_args!("clocksource: {} bits at {} Hz", cs.bits(), cs.freq_hz()),
    );
    for cnt in [0x0000_1234, 0xF000_0123, 0x0FFF_FFFF, 0xFFFF_FFFF] {
        win.write(reg(1, CNT), cnt);
        let got = Clocksource::read(&cs);
        let want = u64::from(cnt & COUNTER_MASK);
        c.check(
            got == want,
            format_args!("clocksource read: CNT {cnt:#010x} -> {got:#x} (28 bits)"),
        );
    }
    win.write(reg(1, CNT), 0x0FFF_FFF0);
    let time = Extended::new(&cs);
    let start = time.now();
    let mut steps_ok = start == 0x0FFF_FFF0;
    let mut seen = [0u64; 3];
    for (slot, (cnt, want)) in seen.iter_mut().zip([
        (0x0FFF_FFFF, 0x0FFF_FFFF),
        (0x0000_0000, 0x1000_0000),
        (0xA000_0010, 0x1000_0010),
    ]) {
        win.write(reg(1, CNT), cnt);
        *slot = time.now();
        steps_ok &= *slot == want;
    }
    c.check(
        steps_ok,
        format_args!(
            "Extended: CNT 0x0ffffff0 -> {start:#x}, 0x0fffffff -> {:#x}, 0x00000000 -> {:#x} (wrap), 0xa0000010 -> {:#x}",
            seen[0], seen[1], seen[2]
        ),
    );

    // ---- 5. The clockevent ----
    ev.set_next_event(3125)?;
    let (ctrl, data, int) = timer_regs(&win, 0);
    c.check(
        ctrl == CTRL_ENABLE | DIVISOR && data == 3125 && int == INT_IE,
        format_args!(
            "set_next_event(3125): CTRL = {ctrl:#010x} (ENABLE, COUNTER, divisor {DIVISOR}: the bounce's last write), DATA = {data}, INT = {int:#010x} (IE set alone, IP written 0: no ack)"
        ),
    );
    win.write(reg(0, INT), INT_IE | INT_IP);
    ev.set_next_event(100)?;
    let (ctrl, data, int) = timer_regs(&win, 0);
    c.check(
        ctrl == CTRL_ENABLE | DIVISOR && data == 100 && int == INT_IE | INT_IP,
        format_args!(
            "set_next_event(100) with IP pending: CTRL = {ctrl:#010x}, DATA = {data}, INT left at {int:#010x} (reprogramming never acknowledges)"
        ),
    );
    ev.set_periodic(u64::from(TICK_HZ / 100))?;
    let (ctrl, data, int) = timer_regs(&win, 0);
    c.check(
        ctrl == CTRL_ENABLE | CTRL_TIMER | DIVISOR && data == TICK_HZ / 100 && int == INT_IE | INT_IP,
        format_args!(
            "set_periodic(31250): CTRL = {ctrl:#010x} (ENABLE, TIMER, divisor {DIVISOR}), DATA = {data} (HZ 100), INT = {int:#010x}"
        ),
    );
    let before = win.snapshot();
    let refused = [
        ev.set_next_event(7),
        ev.set_next_event(u64::from(COUNTER_MASK) + 1),
        ev.set_periodic(0),
    ];
    c.check(
        refused
            == [
                Err(ConfigError::DeltaOutOfRange.into()),
                Err(ConfigError::DeltaOutOfRange.into()),
                Err(ConfigError::PeriodOutOfRange.into()),
            ]
            && win.snapshot() == before,
        format_args!(
            "set_next_event(7), set_next_event(0x10000000), set_periodic(0): DeltaOutOfRange, DeltaOutOfRange, PeriodOutOfRange, no word written"
        ),
    );
    win.write(reg(0, INT), INT_IP);
    let pending = ev.ack();
    let int = win.read(reg(0, INT));
    c.check(
        pending && int == INT_IE | INT_IP,
        format_args!(
            "ack with INT = {INT_IP:#010x} (IP): {pending}, INT written {int:#010x} (IP written 1: the W1C acknowledge; IE as armed)"
        ),
    );
    win.write(reg(0, INT), INT_IE);
    let spurious = ev.ack();
    let int = win.read(reg(0, INT));
    c.check(
        !spurious && int == INT_IE,
        format_args!("ack with INT = {INT_IE:#010x} (IE only): {spurious}, INT = {int:#010x}"),
    );
    win.write(reg(0, INT), INT_IE | INT_IP);
    ev.shutdown();
    let (ctrl, _, int) = timer_regs(&win, 0);
    c.check(
        ctrl == 0 && int == INT_IP,
        format_args!(
            "shutdown with IP pending: CTRL = {ctrl:#x} (stopped), INT = {int:#010x} (IE off, IP written 1: the cancelled event's status cleared)"
        ),
    );
    ev.set_next_event(3125)?;
    let (ctrl, data, int) = timer_regs(&win, 0);
    c.check(
        ctrl == CTRL_ENABLE | DIVISOR && data == 3125 && int == INT_IE,
        format_args!(
            "re-arm after shutdown: CTRL = {ctrl:#010x}, DATA = {data}, INT = {int:#010x} (IE set again, IP written 0)"
        ),
    );
    let cnt1 = win.read(reg(1, CNT));
    let first_change = untouched_words(&win).err();
    c.check(
        first_change.is_none() && cnt1 == 0xA000_0010,
        format_args!(
            "words the driver must never write (CNT of timers 0 and 1, timers 2-4, the canary after the block): {}",
            first_change.map_or("unchanged", |_| "CHANGED")
        ),
    );

    // ---- 6. Instructions per call ----
    println!(
        Uart,
        "timing loops of {CALLS} calls, instructions from Count ticks: {}.{:02} ns per tick, {speed}",
        1_000_000_000 / COUNT_HZ,
        1_000_000_000 % COUNT_HZ * 100 / COUNT_HZ
    );
    let empty = measure(|| black_box(()));
    let reads = measure(|| {
        black_box(Clocksource::read(&cs));
    });
    let programs = measure(|| {
        black_box(ev.set_next_event(black_box(3125)).is_ok());
    });
    let (ctrl, data, _) = timer_regs(&win, 0);
    c.check(
        ctrl == CTRL_ENABLE | DIVISOR && data == 3125,
        format_args!("timed set_next_event calls left CTRL = {ctrl:#010x}, DATA = {data}"),
    );
    let insns = |ticks: u32| speed.insns_for(u64::from(ticks), COUNT_HZ);
    let (empty, reads, programs) = (insns(empty), insns(reads), insns(programs));
    println!(
        Uart,
        "loops: empty {empty}, read {reads}, set_next_event {programs} instructions"
    );
    bench_line("mips_loop_overhead_insns", per_call_centi(empty, 0));
    bench_line("mips_read_insns", per_call_centi(reads, empty));
    bench_line("mips_set_next_event_insns", per_call_centi(programs, empty));
    let cs_multi = measure(|| {
        critical_section::with(|cs| {
            black_box(cs);
        })
    });
    let cs_irq = measure(|| {
        let were_enabled = fw_common::cs::irq_save();
        black_box(());
        if were_enabled {
            // SAFETY: this acquire found interrupts on: the outermost section here.
            unsafe { fw_common::cs::irq_restore() }
        }
    });
    let (cs_multi, cs_irq) = (insns(cs_multi), insns(cs_irq));
    println!(
        Uart,
        "loops: critical_section::with (multi-core) {cs_multi}, irq_save/irq_restore (single-core) {cs_irq} instructions"
    );
    bench_line("fw_cs_multi_core_insns", per_call_centi(cs_multi, empty));
    bench_line("fw_cs_irq_mask_insns", per_call_centi(cs_irq, empty));
    // The first layout goes (its timers shut down) before the two-CPU one takes the block.
    drop(ev);
    drop(cs);

    // ---- 7. Two CPUs ----
    two_cpus(&win, config, &mut c)?;
    Ok(c.all_ok)
}

/// DATA, CTRL and INT of timer `n`, as (CTRL, DATA, INT).
fn timer_regs(win: &Window, n: usize) -> (u32, u32, u32) {
    (
        win.read(reg(n, CTRL)),
        win.read(reg(n, DATA)),
        win.read(reg(n, INT)),
    )
}

/// Checks the words the driver never writes: CNT of timer 0, and every word from timer 2 to
/// the end of the reserved RAM (timers 2-4 of the block, then the canary after it); timer 1's
/// CNT holds the firmware's last value and is checked by the caller. `Err` holds the first
/// offset that changed.
fn untouched_words(win: &Window) -> Result<(), usize> {
    let offsets = core::iter::once(reg(0, CNT)).chain((reg(2, DATA)..WINDOW_BYTES).step_by(4));
    for offset in offsets {
        if win.read(offset) != canary(offset) {
            return Err(offset);
        }
    }
    Ok(())
}

/// Learns the emulation speed (module docs): told on the command line and checked with a
/// loop of known length, or measured with that loop. Prints the speed and the check.
fn emulation_speed(boot: &BootArgs, c: &mut Checks) -> Speed {
    let command_line = boot.command_line();
    let told = Told::from_command_line(command_line, ICOUNT_KEY);
    let t0 = mips::count();
    mips::spin_insns(SPEED_LOOP);
    let ticks = u64::from(mips::count().wrapping_sub(t0));
    let insns = 2 * u64::from(SPEED_LOOP) + 2;
    let ns = ticks * 1_000_000_000 / u64::from(COUNT_HZ);
    match (told, Speed::measured(insns, ns)) {
        (Told::Shift(n), _) => {
            let speed = Speed::from_shift(n);
            let implied = speed.ticks_for(insns, COUNT_HZ);
            let tolerance = SPEED_CHECK.ticks_at(speed, COUNT_HZ);
            icount::print_speed(
                Uart,
                speed,
                format_args!("told on the command line \"{command_line}\""),
            );
            c.check(
                ticks.abs_diff(implied) <= tolerance,
                format_args!(
                    "Count against icount: {insns} instructions in {ticks} ticks; shift {n} at {COUNT_HZ} Hz implies {implied} (+/- {SPEED_CHECK} = {tolerance})"
                ),
            );
            speed
        }
        (Told::Auto | Told::Nothing, Some(speed)) => {
            icount::print_speed(
                Uart,
                speed,
                format_args!("not told a shift: measured on a {insns}-instruction loop"),
            );
            // QEMU runs every shift, adaptive ones included, at 2^N ns per instruction.
            c.check(
                speed.shift().is_some(),
                format_args!(
                    "Count against icount: {insns} instructions in {ticks} ticks, a power-of-two speed"
                ),
            );
            speed
        }
        (_, None) => {
            c.check(
                false,
                format_args!("Count against icount: no ticks in {insns} instructions"),
            );
            Speed::from_shift(0)
        }
    }
}

/// Count ticks of [`CALLS`] calls of `f`. A function of its own (not inlined), so the timed
/// loop's code is the same whatever surrounds it.
#[inline(never)]
fn measure(mut f: impl FnMut()) -> u32 {
    let start = mips::count();
    for _ in 0..CALLS {
        f();
    }
    mips::count().wrapping_sub(start)
}

/// Hundredths of an instruction per call, rounded to nearest, of a loop of `insns`
/// instructions less the empty loop's `empty`.
fn per_call_centi(insns: u64, empty: u64) -> u64 {
    let calls = u64::from(CALLS);
    (insns.saturating_sub(empty) * 100 + calls / 2) / calls
}

/// Prints a `bench:` line with two decimals.
fn bench_line(metric: &str, centi: u64) {
    println!(
        Uart,
        "bench: otto-timer/{metric} = {}.{:02} insns",
        centi / 100,
        centi % 100
    );
}

// ---- Two CPUs (step 7) ----

/// The bus of the two-CPU layout: the same RAM window, in a `static` ([`BUS`]) that both CPUs
/// reach.
type Bus = &'static Mmio;
/// One CPU's Otto clockevent, bound to its CPU.
type Event = BoundCpuTimer<Bus, EbaseCpu>;
/// The shared time base: timer 2 extended to 64 bits.
type Time = Extended<OttoClocksource<Bus>>;

/// Oneshots per CPU.
const EVENTS: u32 = 200;
/// Delta of each oneshot, in 3.125 MHz ticks (32 µs).
const EVENT_DELTA: u32 = 100;
/// CP0 Count ticks per 10 Otto ticks: 160 MHz / 3.125 MHz = 51.2.
const COUNT_PER_10_TICKS: u64 = 512;
/// Count ticks a CPU naps between two polls of its timer (1/8 of the delta).
const POLL_NAP: u32 = (EVENT_DELTA as u64 * COUNT_PER_10_TICKS / 80) as u32;
/// An oneshot that has not fired after this many Count ticks is counted as missed (100
/// deltas).
const EVENT_TIMEOUT: u32 = (EVENT_DELTA as u64 * COUNT_PER_10_TICKS * 10) as u32;
/// `Extended` reads per poll.
const READS_PER_POLL: u32 = 4;
/// What CPU 0 adds to timer 2's CNT at every poll: 1/256 of the 28-bit range (plus one, so
/// the values do not repeat), a wrap every 256 polls.
const CNT_STEP: u32 = 0x0010_0001;
/// CNT of timer 2 when the two-CPU phase starts: just below the wrap.
const CNT_START: u32 = 0x0FF0_0000;
/// How long CPU 0 waits for CPU 1 to show up, in Count ticks (400 ms; CPU 1 polls its
/// release every 50 ms, `fw_common::mips::smp::RELEASE_POLL_TICKS`).
const UP_TIMEOUT: u32 = 64_000_000;
/// How long CPU 0 waits for CPU 1 at each hand-over, in Count ticks (1 s).
const PHASE_TIMEOUT: u32 = 160_000_000;
/// [`PHASE`]: CPU 1 has tried CPU 0's timer and is waiting for [`GO`].
const READY: u32 = 1;
/// [`PHASE`]: CPU 0 lets both CPUs run their events.
const GO: u32 = 2;
/// [`PHASE`]: CPU 1 has stored its [`CoreStats`].
const DONE: u32 = 3;
/// Where the two-CPU phase is ([`READY`], [`GO`], [`DONE`]).
static PHASE: AtomicU32 = AtomicU32::new(0);
/// CPU 0's count of CNT writes to timer 2, for CPU 1 to see that CPU 0 is still stepping.
static CNT_WRITES: AtomicU32 = AtomicU32::new(0);

/// A counter incremented by both CPUs with a plain load and store inside a critical section
/// that naps between the two (so the other CPU runs and contends): any increment lost means
/// two sections overlapped.
static LOCKED_COUNT: AtomicU32 = AtomicU32::new(0);
/// Count ticks of the nap inside each locked increment.
const LOCKED_NAP: u32 = 32;

/// One locked increment of [`LOCKED_COUNT`].
fn locked_increment() {
    critical_section::with(|_| {
        let v = LOCKED_COUNT.load(Ordering::Relaxed);
        mips::nap(LOCKED_NAP);
        LOCKED_COUNT.store(v.wrapping_add(1), Ordering::Relaxed);
    });
}

/// What CPU 0 hands to CPU 1 and back, in one critical-section cell.
struct Shared {
    /// CPU 0's clockevent, lent to CPU 1 to show `WrongCpu`, and given back.
    cpu0_timer: Option<Event>,
    /// CPU 1's clockevent.
    cpu1_timer: Option<Event>,
    /// The shared time base.
    time: Option<&'static Time>,
    /// CPU 1's attempt on CPU 0's timer: the result, and whether the window was unchanged.
    wrong_cpu: Option<(Result<(), Error>, bool)>,
    /// CPU 1's results.
    cpu1: Option<CoreStats>,
}

static SHARED: CsCell<Shared> = CsCell::new(Shared {
    cpu0_timer: None,
    cpu1_timer: None,
    time: None,
    wrong_cpu: None,
    cpu1: None,
});
static TIME: StaticCell<Time> = StaticCell::new();
static BUS: StaticCell<Mmio> = StaticCell::new();

/// One CPU's results in the two-CPU phase.
#[derive(Clone, Copy, Debug, Default)]
struct CoreStats {
    /// Oneshots that fired (the player raised IP and `ack` saw it).
    events: u32,
    /// Oneshots seen before their delta had passed on this CPU's Count.
    early: u32,
    /// Oneshots that never fired within [`EVENT_TIMEOUT`], or that could not be armed.
    missed: u32,
    /// Fired oneshots whose `ack` returned false.
    no_ack: u32,
    /// Largest lateness, in 3.125 MHz ticks after the delta.
    max_late_ticks: u64,
    /// `Extended::now` calls.
    reads: u32,
    /// Reads that returned less than this CPU's previous read.
    backwards: u32,
    /// Locked increments of [`LOCKED_COUNT`] (one per poll).
    increments: u32,
}

/// CPU 0's part of step 7 (module docs).
fn two_cpus(win: &Window, config: Config, c: &mut Checks) -> Result<(), Error> {
    win.fill_canary();
    let block = config.soc.info().block_len();
    // SAFETY: as for the first bus: the RAM window reserved by link.x, uncached. From here
    // the two CPUs use it, each writing only its own timer's words (through the driver and
    // its player) and CPU 0 timer 2's CNT; every word is a 32-bit aligned access.
    let bus: Bus = BUS.init(unsafe { Mmio::new(win.base, block) });
    let BoundPerCpu {
        cpus: [t0, mut t1],
        clocksource,
    } = OttoTimers::new(bus, config)?.per_cpu::<2>()?.bind(EbaseCpu);
    let here = mips::cpu_num();
    c.check(
        here == 0 && t0.cpu == 0 && t1.cpu == 1 && clocksource.index() == 2,
        format_args!(
            "per_cpu(2) bound on CPU {here} (EBase.CPUNum): timer 0 = CPU {} ({:?}), timer 1 = CPU {} ({:?}), timer 2 = clocksource",
            t0.cpu, t0.irq, t1.cpu, t1.irq
        ),
    );
    let held = critical_section::with(|_| {
        let outer = (smp_cs::owner(), smp_cs::depth());
        let inner = critical_section::with(|_| (smp_cs::owner(), smp_cs::depth()));
        (outer, inner)
    });
    let after = (smp_cs::owner(), smp_cs::depth());
    c.check(
        held == ((Some(0), 1), (Some(0), 2)) && after == (None, 0),
        format_args!(
            "critical section on CPU 0: held by {:?} depth {}, nested: held by {:?} depth {} (re-entry on the holder), after: {:?} depth {}",
            held.0.0, held.0.1, held.1.0, held.1.1, after.0, after.1
        ),
    );
    let before = win.snapshot();
    let r = t1.event.set_next_event(u64::from(EVENT_DELTA));
    let same = win.snapshot() == before;
    print_wrong_cpu(c, "CPU 1's timer armed on CPU 0", 1, 0, r, same);

    win.write(reg(2, CNT), CNT_START);
    let time: &'static Time = TIME.init(Extended::new(clocksource));
    SHARED.with(|s| {
        s.cpu0_timer = Some(t0);
        s.cpu1_timer = Some(t1);
        s.time = Some(time);
    });
    let start = mips::count();
    mips::smp::release();
    let up = mips::smp::wait_up(1, UP_TIMEOUT);
    let waited = mips::count().wrapping_sub(start);
    if !up {
        println!(
            Uart,
            "CPU 1: never showed up ({waited} Count ticks after the release; run with -smp 2): FAIL"
        );
        c.all_ok = false;
        return Ok(());
    }
    c.check(
        true,
        format_args!("CPU 1: released, up after {waited} Count ticks, on its own stack"),
    );
    if !wait_phase(READY) {
        c.check(false, format_args!("CPU 1: never ready"));
        return Ok(());
    }
    let (lent, tried) = SHARED
        .with(|s| (s.cpu0_timer.take(), s.wrong_cpu.take()))
        .unwrap_or((None, None));
    let Some(mut t0) = lent else {
        c.check(false, format_args!("CPU 0's timer given back by CPU 1"));
        return Ok(());
    };
    match tried {
        Some((r, same)) => print_wrong_cpu(c, "CPU 0's timer armed on CPU 1", 0, 1, r, same),
        None => c.check(
            false,
            format_args!("CPU 0's timer armed on CPU 1: not tried"),
        ),
    }

    // SAFETY: timer 0's 0x10 bytes of the window, which only CPU 0 (this player and the
    // driver's CPU 0 timer) touches in this phase.
    let mut player = unsafe { OttoRam::new(win.base, 1, 200_000_000) };
    let mut cnt = CNT_START;
    let mut writes = 0u32;
    PHASE.store(GO, Ordering::Release);
    let mut advance = || {
        cnt = cnt.wrapping_add(CNT_STEP) & COUNTER_MASK;
        win.write(reg(2, CNT), cnt);
        writes = writes.wrapping_add(1);
        CNT_WRITES.store(writes, Ordering::Relaxed);
    };
    let mut mine = core_events(&mut t0, time, &mut player, &mut advance);
    // Keep the counter moving (and reading it) until CPU 1 is done.
    let start = mips::count();
    let mut last = time.now();
    while PHASE.load(Ordering::Acquire) != DONE && mips::count().wrapping_sub(start) < PHASE_TIMEOUT
    {
        advance();
        for _ in 0..READS_PER_POLL {
            let now = time.now();
            mine.reads += 1;
            mine.backwards += u32::from(now < last);
            last = now;
        }
        mips::nap(POLL_NAP);
    }
    let theirs = SHARED.with(|s| s.cpu1.take()).flatten();
    let Some(theirs) = theirs else {
        c.check(false, format_args!("CPU 1: no results"));
        return Ok(());
    };
    for (n, st) in [(0, mine), (1, theirs)] {
        println!(
            Uart,
            "core{n}: events={} early={} max_late_ticks={}", st.events, st.early, st.max_late_ticks
        );
        c.check(
            st.events == EVENTS && st.early == 0 && st.missed == 0 && st.no_ack == 0,
            format_args!(
                "core{n}: {} of {EVENTS} oneshots of {EVENT_DELTA} ticks fired and acknowledged on CPU {n}'s own timer, {} missed, {} not acknowledged",
                st.events, st.missed, st.no_ack
            ),
        );
    }
    let reads = mine.reads + theirs.reads;
    let backwards = mine.backwards + theirs.backwards;
    let writes = CNT_WRITES.load(Ordering::Relaxed);
    let wraps = (u64::from(CNT_START) + u64::from(writes) * u64::from(CNT_STEP)) >> 28;
    let increments = mine.increments + theirs.increments;
    let counted = LOCKED_COUNT.load(Ordering::Relaxed);
    let contended = smp_cs::contended_count();
    c.check(
        counted == increments && theirs.increments > 0 && mine.increments > 0,
        format_args!(
            "cross-core critical sections: {} + {} locked increments (load, nap, store), counter = {counted} (lost {}), {contended} acquires waited for the other CPU",
            mine.increments,
            theirs.increments,
            increments.wrapping_sub(counted)
        ),
    );
    println!(Uart, "cross-core: reads={reads} backwards={backwards}");
    let end = time.now();
    c.check(
        backwards == 0 && theirs.reads > 0 && mine.reads > 0 && end >> 28 == wraps,
        format_args!(
            "cross-core: Extended read {} times on CPU 0 and {} on CPU 1 while CPU 0 stepped CNT {writes} times across {wraps} wraps (now {end:#x}), never backwards",
            mine.reads, theirs.reads
        ),
    );
    Ok(())
}

/// Prints and checks one `WrongCpu` attempt.
fn print_wrong_cpu(
    c: &mut Checks,
    what: &str,
    owner: u32,
    on: u32,
    r: Result<(), Error>,
    same: bool,
) {
    let ok = matches!(r, Err(Error::WrongCpu(m)) if m.owner() == owner && m.current() == on);
    let shown = match r {
        Ok(()) => "Ok",
        Err(Error::WrongCpu(_)) => "WrongCpu",
        Err(_) => "another error",
    };
    let err = r.err();
    c.check(
        ok && same,
        format_args!(
            "{what}: {shown} ({}), {}",
            ErrText(err),
            if same {
                "nothing written"
            } else {
                "WINDOW CHANGED"
            }
        ),
    );
}

/// Displays an optional error.
struct ErrText(Option<Error>);

impl fmt::Display for ErrText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(e) => write!(f, "{e}"),
            None => f.write_str("no error"),
        }
    }
}

/// Waits (napping) until [`PHASE`] is `phase`, at most [`PHASE_TIMEOUT`].
fn wait_phase(phase: u32) -> bool {
    let start = mips::count();
    while PHASE.load(Ordering::Acquire) != phase {
        if mips::count().wrapping_sub(start) >= PHASE_TIMEOUT {
            return false;
        }
        mips::nap(POLL_NAP);
    }
    true
}

/// [`EVENTS`] oneshots on this CPU's own timer `ev`, played by `player`; between two polls
/// `between` runs (CPU 0 steps timer 2's CNT there) and `time` is read
/// [`READS_PER_POLL`] times, each read checked against the previous one.
fn core_events(
    ev: &mut Event,
    time: &Time,
    player: &mut OttoRam,
    between: &mut dyn FnMut(),
) -> CoreStats {
    let mut st = CoreStats::default();
    let mut last = time.now();
    // Count ticks the delta takes, rounded up.
    let due = (u64::from(EVENT_DELTA) * COUNT_PER_10_TICKS).div_ceil(10);
    for _ in 0..EVENTS {
        let armed = mips::count();
        if ev.event.set_next_event(u64::from(EVENT_DELTA)).is_err() {
            st.missed += 1;
            continue;
        }
        let fired = loop {
            between();
            for _ in 0..READS_PER_POLL {
                let now = time.now();
                st.reads += 1;
                st.backwards += u32::from(now < last);
                last = now;
            }
            if player.step() {
                break Some(mips::count());
            }
            locked_increment();
            st.increments += 1;
            if mips::count().wrapping_sub(armed) > EVENT_TIMEOUT {
                break None;
            }
            mips::nap(POLL_NAP);
        };
        let Some(fired) = fired else {
            st.missed += 1;
            continue;
        };
        if !ev.event.ack() {
            st.no_ack += 1;
        }
        st.events += 1;
        let elapsed = u64::from(fired.wrapping_sub(armed));
        // One Count tick of slack: the player rounds Count to LXB cycles.
        if elapsed + 1 < due {
            st.early += 1;
        }
        let late = (elapsed.saturating_sub(due) * 10) / COUNT_PER_10_TICKS;
        st.max_late_ticks = st.max_late_ticks.max(late);
    }
    ev.event.shutdown();
    st
}

/// CPU 1 (and any other CPU QEMU starts): released by CPU 0 in step 7, on its own stack.
fn secondary(cpu: u32) -> ! {
    mips::smp::announce(cpu);
    if cpu != 1 {
        mips::park();
    }
    let win = Window::new();
    // CPU 0's timer, used here: must be refused with nothing written.
    let lent = SHARED.with(|s| s.cpu0_timer.take()).flatten();
    if let Some(mut t0) = lent {
        let before = win.snapshot();
        let r = t0.event.set_next_event(u64::from(EVENT_DELTA));
        let same = win.snapshot() == before;
        SHARED.with(|s| {
            s.cpu0_timer = Some(t0);
            s.wrong_cpu = Some((r, same));
        });
    }
    PHASE.store(READY, Ordering::Release);
    while PHASE.load(Ordering::Acquire) != GO {
        mips::nap(POLL_NAP);
    }
    let (timer, time) = SHARED
        .with(|s| (s.cpu1_timer.take(), s.time))
        .unwrap_or((None, None));
    let stats = match (timer, time) {
        (Some(mut t1), Some(time)) => {
            // SAFETY: timer 1's 0x10 bytes of the window, which only CPU 1 (this player and
            // the driver's CPU 1 timer) touches in this phase.
            let mut player = unsafe { OttoRam::new(win.base + STRIDE, 1, 200_000_000) };
            let st = core_events(&mut t1, time, &mut player, &mut || {});
            SHARED.with(|s| s.cpu1_timer = Some(t1));
            st
        }
        _ => CoreStats {
            missed: EVENTS,
            ..CoreStats::default()
        },
    };
    SHARED.with(|s| s.cpu1 = Some(stats));
    PHASE.store(DONE, Ordering::Release);
    mips::park()
}
