//! 32-bit MIPS (big-endian MIPS32r2, `mips-mti-none-elf`) support for firmware on QEMU's
//! `malta` board: entry code, exception vectors, panic handler, CP0 helpers, UHI semihosting
//! exit, the interrupt-state pair of the `critical-section` implementation and the Malta
//! console.
//!
//! | item | what it is |
//! |---|---|
//! | [`mips_board!`](crate::mips_board) | entry code (EBase, Status, `$gp`, stack, `.bss`), exception vectors, panic handler, banner, exit |
//! | [`BootArgs`] | what QEMU's Malta boot loader passes in `$a0..$a3` (argc, argv, envp, RAM size); [`BootArgs::command_line`] is `-append` |
//! | [`malta::Uart`] | the Malta's ISA 16550 (serial 0, `-nographic` stdio) as a [`Console`](crate::Console) |
//! | [`otto_ram::OttoRam`] | the Realtek Otto timer block played in a RAM window (QEMU has no model of it), for the `otto-timer` driver and its embassy time driver |
//! | functions below | CP0 Count, PRId, Config, Cause, EPC, BadVAddr; [`kseg1`]; [`spin_insns`]; [`exit`]; [`irq_save`] / [`irq_restore`] (Status.IE through `di`/`ei`) for [`critical_section_impl!`](crate::critical_section_impl) |
//! | [`cpu_num`], [`EbaseCpu`] | EBase.CPUNum, and the firmware's `hwtimer_core::cpu::CurrentCpu` on MIPS |
//! | [`nap`], [`park`] | a `wait` bounded by the CP0 timer (the cross-CPU waits under `-icount`), and a `wait` for good |
//! | [`smp`] | the second CPU of `-smp 2`: how it arrives, its release and announce |
//! | [`smp_cs`], [`mips_smp_critical_section_impl!`](crate::mips_smp_critical_section_impl) | the multi-core `critical-section`: `di` plus an LL/SC spinlock, re-entrant per CPU |
//!
//! # Boot (QEMU `-M malta -kernel <elf>`)
//!
//! QEMU loads the ELF at the physical address of its KSEG0 link address and writes a small
//! boot loader into the flash at `0x1FC0_0000`, where the CPU starts: it sets up the GT64120
//! windows (PCI I/O at physical `0x1800_0000`), sets `$a0 = 2`, `$a1` = argv (argv\[1\] is
//! the `-append` text), `$a2` = envp, `$a3` = RAM size, and jumps to the entry point in
//! kernel mode with Status.ERL clear and Status.BEV set (`qemu/qemu hw/mips/malta.c`,
//! `write_bootloader` and `load_kernel`). The entry code here points EBase at its own
//! vectors, clears Status (BEV = 0, interrupts off, kernel mode) and keeps `$a0..$a3` for
//! [`BootArgs`].
//!
//! # Ending the run
//!
//! [`exit`] is the MIPS UHI semihosting call `exit` (the `semihosting` crate's
//! `process::exit`: `sdbbp 1` with `$t9 = 1`, status in
//! `$a0`), which QEMU implements when started with `-semihosting`: QEMU exits with that
//! status. Without `-semihosting` the `sdbbp` is a debug exception into the boot ROM; every
//! board command therefore has `-semihosting`.

use core::fmt;

/// Start of KSEG0 (unmapped, cached).
pub const KSEG0: usize = 0x8000_0000;
/// Start of KSEG1 (unmapped, uncached).
pub const KSEG1: usize = 0xA000_0000;
/// The physical-address bits of a KSEG0/KSEG1 address.
const PHYS_MASK: usize = 0x1FFF_FFFF;
/// Config.BE (bit 15): the core runs big-endian.
pub const CONFIG_BE: u32 = 1 << 15;
/// CP0 Status.IE, the global interrupt enable.
pub const STATUS_IE: u32 = 1;

/// The uncached (KSEG1) alias of a KSEG0 or KSEG1 address, or of a physical address below
/// 512 MiB.
pub const fn kseg1(addr: usize) -> usize {
    KSEG1 | (addr & PHYS_MASK)
}

/// The physical address behind a KSEG0 or KSEG1 address.
pub const fn physical(addr: usize) -> usize {
    addr & PHYS_MASK
}

/// Reads a CP0 register (`mfc0`), `$reg, sel`.
macro_rules! mfc0 {
    ($reg:literal, $sel:literal) => {{
        let value: u32;
        // SAFETY: reading this CP0 register has no side effects; the firmware runs in kernel
        // mode. `noat`: the register allocator may pick `$at`, which nothing here expands a
        // macro into. Not `nomem`: the read must stay in place among the volatile accesses around it
        // (a counter read timestamps them).
        unsafe {
            core::arch::asm!(
                ".set push",
                ".set noat",
                concat!("mfc0 {0}, $", $reg, ", ", $sel),
                ".set pop",
                out(reg) value,
                options(nostack),
            );
        }
        value
    }};
}

/// CP0 Count (register 9): counts up once per CCRes CPU cycles, in virtual time under
/// `-icount` (`qemu/qemu target/mips/system/cp0_timer.c`).
#[inline(always)]
pub fn count() -> u32 {
    mfc0!(9, 0)
}

/// CP0 PRId (register 15, select 0): company and processor id, revision.
pub fn prid() -> u32 {
    mfc0!(15, 0)
}

/// CP0 Config (register 16, select 0); [`CONFIG_BE`] is the endianness bit.
pub fn config() -> u32 {
    mfc0!(16, 0)
}

/// CP0 Status (register 12).
pub fn status() -> u32 {
    mfc0!(12, 0)
}

/// CP0 Cause (register 13).
pub fn cause() -> u32 {
    mfc0!(13, 0)
}

/// CP0 EPC (register 14): where the last exception was taken.
pub fn epc() -> u32 {
    mfc0!(14, 0)
}

/// CP0 BadVAddr (register 8): the address of the last address error or TLB exception.
pub fn badvaddr() -> u32 {
    mfc0!(8, 0)
}

/// CP0 EBase (register 15, select 1): the exception vector base.
pub fn ebase() -> u32 {
    mfc0!(15, 1)
}

/// CCRes (hardware register 3, `rdhwr`): CPU cycles per Count increment.
pub fn ccres() -> u32 {
    let value: u32;
    // SAFETY: `rdhwr $3` only reads the Count resolution; in kernel mode it needs no HWREna
    // bit.
    unsafe {
        core::arch::asm!(
            ".set push",
            ".set mips32r2",
            ".set noat",
            "rdhwr {0}, $3",
            ".set pop",
            out(reg) value,
            options(nomem, nostack),
        );
    }
    value
}

/// Runs exactly `2 * iterations + 2` instructions in a register-only loop (a `bnez` and an
/// `addiu` in its delay slot per pass, the last pass falling through), plus the few that load
/// `iterations`.
#[inline(always)]
pub fn spin_insns(iterations: u32) {
    // SAFETY: a register-only countdown loop; touches no memory and no stack.
    unsafe {
        core::arch::asm!(
            ".set push",
            ".set noreorder",
            ".set noat",
            "1:",
            "bnez {0}, 1b",
            "addiu {0}, {0}, -1",
            ".set pop",
            inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}

/// Ends the emulation with `status` through UHI semihosting `exit` (QEMU `-semihosting`),
/// by the `semihosting` crate (`sdbbp 1` with `$t9 = 1` and the status in `$a0`). Without
/// `-semihosting` the `sdbbp` is a debug exception that does not come back either.
pub fn exit(status: u32) -> ! {
    semihosting::process::exit(i32::try_from(status).unwrap_or(i32::MAX))
}

/// Ends the run: prints `done` or `FAILED` and exits with status 0 or 1. For a firmware
/// whose main never returns (an executor), called by its last task;
/// [`mips_board!`](crate::mips_board) does the same when main returns.
pub fn finish<C: crate::Console>(console: C, ok: bool) -> ! {
    crate::println!(console, "{}", if ok { "done" } else { "FAILED" });
    exit(if ok { 0 } else { 1 })
}

pub use crate::boot_args::BootArgs;

/// The Malta board's devices.
pub mod malta {
    /// The ISA 16550 of the Super I/O (serial 0: QEMU's `-nographic` stdio), port `0x3F8` in
    /// the PCI I/O window the boot loader maps at physical `0x1800_0000`, through KSEG1.
    pub const UART_BASE: usize = super::kseg1(0x1800_03F8);
    /// Transmit holding register.
    const THR: usize = UART_BASE;
    /// Line status register.
    const LSR: usize = UART_BASE + 5;
    /// LSR bit 5: transmit holding register empty.
    const LSR_THRE: u8 = 1 << 5;

    /// The Malta console, polled. Needs no set-up under QEMU.
    #[derive(Clone, Copy, Debug)]
    pub struct Uart;

    impl crate::Console for Uart {
        fn write_byte(&mut self, byte: u8) {
            crate::wait_for_room(|| {
                // SAFETY: LSR of the Malta's ISA 16550 (module docs), a status read.
                unsafe { crate::mmio::read8(LSR) & LSR_THRE != 0 }
            });
            // SAFETY: THR of the same UART; this firmware is its only user and runs on one
            // CPU.
            unsafe { crate::mmio::write8(THR, byte) }
        }
    }
}

/// The Realtek Otto timer block played in RAM: QEMU has no model of it (nor of any Otto SoC),
/// so on the Malta a RAM window stands in for its registers, the driver runs on that window
/// as on the real block, and [`OttoRam::step`] does what the hardware would between two
/// driver calls. The register facts are `crates/otto-timer/docs/otto-timer.md`'s, restated here.
///
/// | the hardware | the player, at each `step` |
/// |---|---|
/// | CNT counts LXB cycles / divisor from the write that started the timer | CNT = CP0 Count in LXB cycles (× `lxb_hz` / 160 MHz) / divisor, since the step that first saw the timer's CTRL and DATA |
/// | TIMER mode: at DATA the count returns to 0 and IP is set | the same, once per period; DATA = 0: free-running 28-bit count |
/// | COUNTER mode: at DATA the count returns to 0, IP is set, the timer stops | the same, and CTRL.ENABLE is cleared (below) |
/// | IP is write-1-to-clear | a set IP is cleared at the next step: it is either the driver's acknowledge (a RAM word keeps the 1 written) or the player's own, already served |
///
/// What RAM cannot show is a write: the player sees values, not stores. A timer started
/// again with the same CTRL and DATA while it runs is not noticed (its count goes on, and
/// it fires at the old target); clearing ENABLE when a oneshot expires makes the next start
/// of it visible, and the driver never reads CTRL back. Time moves in steps: the driver
/// reads the CNT of the last step, so a firmware steps often (an executor task that steps
/// and yields, for instance), and an expiry is seen at the first step after it, never
/// before.
pub mod otto_ram {
    use crate::mmio;

    /// DATA: the target.
    const DATA: usize = 0x0;
    /// CNT: the count (read-only to the driver).
    const CNT: usize = 0x4;
    /// CTRL: enable, mode, divisor.
    const CTRL: usize = 0x8;
    /// INT: interrupt enable and pending.
    const INT: usize = 0xC;
    /// Timers are 0x10 apart.
    const STRIDE: usize = 0x10;
    /// CTRL bit 28: the timer counts.
    const CTRL_ENABLE: u32 = 1 << 28;
    /// CTRL bit 24: TIMER (periodic) mode; clear: COUNTER (oneshot) mode.
    const CTRL_TIMER: u32 = 1 << 24;
    /// CTRL bits 15:0: LXB cycles per tick.
    const CTRL_DIVISOR: u32 = 0xFFFF;
    /// INT bit 20: interrupt enable.
    const INT_IE: u32 = 1 << 20;
    /// INT bit 16: interrupt pending.
    const INT_IP: u32 = 1 << 16;
    /// The count is 28 bits wide.
    const COUNTER_MASK: u32 = 0x0FFF_FFFF;
    /// CP0 Count on QEMU's Malta: 320 MHz CPU clock / CCRes 2.
    const COUNT_HZ: u64 = 160_000_000;
    /// Most timers a block has (the Otto SoCs have 5 or 6).
    pub const MAX_TIMERS: usize = 8;

    /// One timer's run as the player last saw it.
    #[derive(Clone, Copy, Debug)]
    struct Run {
        /// CTRL and DATA when the run began.
        ctrl: u32,
        data: u32,
        /// LXB cycle at which it began.
        start: u64,
        /// Periods completed (TIMER mode).
        periods: u64,
    }

    /// The player of one block in RAM (module docs).
    #[derive(Debug)]
    pub struct OttoRam {
        base: usize,
        timers: usize,
        lxb_hz: u64,
        /// CP0 Count extended to 64 bits, and its last 32-bit reading.
        count: u64,
        last: u32,
        runs: [Option<Run>; MAX_TIMERS],
    }

    impl OttoRam {
        /// The player of a block of `timers` timers (at most [`MAX_TIMERS`]) at `base`,
        /// clocked at `lxb_hz` (200 MHz on RTL838x).
        ///
        /// # Safety
        ///
        /// `base .. base + timers × 0x10` must be RAM reserved for the window (no Rust
        /// object lives there), reached uncached (KSEG1), 4-byte aligned, and used by nothing
        /// but this player and the driver given an `Mmio` on it, on this one CPU.
        pub unsafe fn new(base: usize, timers: usize, lxb_hz: u32) -> Self {
            Self {
                base,
                timers: timers.min(MAX_TIMERS),
                lxb_hz: u64::from(lxb_hz),
                count: 0,
                last: super::count(),
                runs: [None; MAX_TIMERS],
            }
        }

        /// The KSEG1 address of `__otto_window`, the RAM a linker script reserves for the
        /// window (as `otto-malta`'s and the Malta template's do).
        #[inline]
        pub fn linker_window() -> usize {
            unsafe extern "C" {
                /// Start of the RAM that plays the Otto block (the linker script's).
                static __otto_window: u8;
            }
            super::kseg1(&raw const __otto_window as usize)
        }

        fn read(&self, timer: usize, reg: usize) -> u32 {
            // SAFETY: `new`'s contract: a word of the window.
            unsafe { mmio::read32(self.base + timer * STRIDE + reg) }
        }

        fn write(&self, timer: usize, reg: usize, value: u32) {
            // SAFETY: `new`'s contract: a word of the window.
            unsafe { mmio::write32(self.base + timer * STRIDE + reg, value) }
        }

        /// Plays the block up to now (module docs). Returns whether a timer with its
        /// interrupt enabled has just raised IP: call the driver's interrupt handler then,
        /// as the interrupt line would.
        pub fn step(&mut self) -> bool {
            let now = super::count();
            self.count += u64::from(now.wrapping_sub(self.last));
            self.last = now;
            let lxb = self.count * self.lxb_hz / COUNT_HZ;
            let mut interrupt = false;
            for t in 0..self.timers {
                let int = self.read(t, INT);
                if int & INT_IP != 0 {
                    self.write(t, INT, int & !INT_IP);
                }
                let (ctrl, data) = (self.read(t, CTRL), self.read(t, DATA));
                let divisor = u64::from(ctrl & CTRL_DIVISOR);
                if ctrl & CTRL_ENABLE == 0 || divisor == 0 {
                    self.runs[t] = None;
                    continue;
                }
                let mut run = match self.runs[t] {
                    Some(run) if run.ctrl == ctrl && run.data == data => run,
                    _ => Run {
                        ctrl,
                        data,
                        start: lxb,
                        periods: 0,
                    },
                };
                let ticks = (lxb - run.start) / divisor;
                let target = u64::from(data);
                let mut fired = false;
                let cnt = if ctrl & CTRL_TIMER == 0 {
                    fired = data != 0 && ticks >= target;
                    if fired { 0 } else { ticks }
                } else if data == 0 {
                    ticks
                } else {
                    fired = ticks / target > run.periods;
                    run.periods = ticks / target;
                    ticks % target
                };
                self.write(t, CNT, cnt as u32 & COUNTER_MASK);
                self.runs[t] = Some(run);
                if fired {
                    self.write(t, INT, self.read(t, INT) | INT_IP);
                    interrupt |= int & INT_IE != 0;
                    if ctrl & CTRL_TIMER == 0 {
                        // The oneshot stopped; its next start must be visible (module docs).
                        self.write(t, CTRL, ctrl & !CTRL_ENABLE);
                        self.runs[t] = None;
                    }
                }
            }
            interrupt
        }
    }
}

/// Disables interrupts (`di`) and returns whether they were enabled before: the `acquire`
/// half of the [`critical_section_impl!`](crate::critical_section_impl) (see
/// [`cs`](crate::cs)).
#[inline(always)]
pub fn irq_save() -> bool {
    let status: u32;
    // SAFETY: `di` clears Status.IE, which only delays interrupts, and returns the old Status;
    // `ehb` makes the change effective before the section's first access. Not `nomem`: memory
    // accesses stay on their side of it.
    unsafe {
        core::arch::asm!(
            ".set push",
            ".set mips32r2",
            ".set noat",
            "di {0}",
            "ehb",
            ".set pop",
            out(reg) status,
            options(nostack),
        );
    }
    status & STATUS_IE != 0
}

/// Enables interrupts (`ei`): the `release` half of the
/// [`critical_section_impl!`](crate::critical_section_impl) (see [`cs`](crate::cs)).
///
/// # Safety
///
/// Only to end the outermost critical section of a context that ran with interrupts
/// enabled, i.e. after an [`irq_save`] that returned `true`.
#[inline(always)]
pub unsafe fn irq_restore() {
    // SAFETY: the caller ends the outermost section, whose interrupts were enabled when it
    // began; `ehb` makes the change effective. Not `nomem`: the section's accesses stay
    // before it.
    unsafe {
        core::arch::asm!(
            ".set push",
            ".set mips32r2",
            "ei",
            "ehb",
            ".set pop",
            options(nostack)
        );
    }
}

/// Prints the fatal-exception line: `PANIC: exception <code> (Cause = .., EPC = .., BadVAddr =
/// .., CPU <EBase.CPUNum>)`. Called by the vectors [`mips_board!`](crate::mips_board) installs.
pub fn report_exception<C: crate::Console>(console: C) {
    let cause = cause();
    crate::write_line(
        console,
        format_args!(
            "PANIC: exception {} (Cause = {:#010x}, EPC = {:#010x}, BadVAddr = {:#010x}, CPU {})",
            ExcCode((cause >> 2) & 0x1f),
            cause,
            epc(),
            badvaddr(),
            cpu_num()
        ),
    );
}

/// Cause.ExcCode, printed by name where it has a common one.
struct ExcCode(u32);

impl fmt::Display for ExcCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.0 {
            0 => "Int",
            1 => "Mod",
            2 => "TLBL",
            3 => "TLBS",
            4 => "AdEL",
            5 => "AdES",
            6 => "IBE",
            7 => "DBE",
            8 => "Sys",
            9 => "Bp",
            10 => "RI",
            11 => "CpU",
            12 => "Ov",
            13 => "Tr",
            _ => return write!(f, "{}", self.0),
        };
        write!(f, "{} ({})", self.0, name)
    }
}

/// EBase.CPUNum (CP0 register 15 select 1, bits 9:0): the number of the CPU running this
/// (QEMU sets it from the CPU index: 0 for the first `-smp` CPU, 1 for the second).
#[inline(always)]
pub fn cpu_num() -> u32 {
    ebase() & 0x3FF
}

/// [`hwtimer_core::cpu::CurrentCpu`] on MIPS: [`cpu_num`], EBase.CPUNum. hwtimer-core has no
/// MIPS `NativeCpu` (inline assembly is unstable on MIPS), so the firmware supplies this one
/// to `CpuBound`, `PerCpu::bind` and the like.
#[derive(Clone, Copy, Debug, Default)]
pub struct EbaseCpu;

impl hwtimer_core::cpu::CurrentCpu for EbaseCpu {
    #[inline(always)]
    fn current_cpu(&self) -> u32 {
        cpu_num()
    }
}

unsafe extern "C" {
    /// The timed `wait` of [`mips_board!`](crate::mips_board) (its `global_asm!`): `$a0`
    /// Count ticks at most.
    fn __fw_mips_nap(ticks: u32);
}

/// Sleeps (`wait`) until CP0 Count has advanced by about `ticks` (at most `ticks`, and at
/// least until the next instruction), with every interrupt but the Count/Compare timer
/// masked; Status is as before on return. A halted vCPU hands the emulation to the other
/// CPU at once, which is what every cross-core wait of the Malta firmware needs under
/// `-icount` (a spinning vCPU would keep the CPU that it waits for from running until its
/// time slice ends).
///
/// How: Compare = Count + `ticks` (which also clears a pending timer interrupt); if Count
/// has already moved `ticks` on by then (the vCPU was descheduled in between, which
/// `-icount` does), Compare may lie in the past, where it would match only after 2^32
/// ticks, so it returns at once; otherwise Status.IM = IM7 only and Status.IE = 1, `wait`. QEMU wakes a `wait` only for an interrupt it can
/// take (IE on), so the timer interrupt is taken: the vector of
/// [`mips_board!`](crate::mips_board) moves Compare away (Count - 1: 2^32 ticks ahead),
/// resumes after the `wait` even when the interrupt came just before it, and returns.
/// Needs a board built with `mips_board!`, which defines the routine and the vector.
#[inline(always)]
pub fn nap(ticks: u32) {
    // SAFETY: `__fw_mips_nap` (mips_board!'s global_asm) follows the o32 ABI, touches only
    // the CP0 registers named above (Status restored) and no memory; the only interrupt it
    // lets in is the Count/Compare one, which mips_board!'s vector serves and returns from.
    unsafe { __fw_mips_nap(ticks) }
}

/// Parks the calling CPU for good: `wait` with interrupts off, which on QEMU never wakes.
pub fn park() -> ! {
    loop {
        // SAFETY: `wait` halts the CPU until an interrupt it can take; Status.IE is off
        // (the entry code cleared Status), so it stays halted. No memory effect.
        unsafe { core::arch::asm!("wait", options(nomem, nostack)) };
    }
}

/// Starting the other CPUs of a `-smp` Malta (QEMU, no CPS).
///
/// With `-M malta -cpu 4KEc -smp 2` QEMU creates two CPUs without a Coherent Processing
/// System (the 4KEc has none), resets both to the boot vector `0xBFC0_0000`, and its boot
/// loader, which does not look at the CPU number, brings **every** CPU to the ELF entry
/// point with the same `$a0..$a3` and `$sp`. The entry code of
/// [`mips_board!`](crate::mips_board) therefore reads EBase.CPUNum first: CPU 0 goes on as
/// before (it alone zeroes `.bss`), any other CPU sets its own EBase and Status, takes its
/// stack from `__secondary_stacks` (16 KiB per CPU, CPU *n* at `n - 1`; parked if the
/// linker script has none or too few) and calls the board's `secondary` function after
/// [`wait_release`]. The release word lives in `.data` (loaded by QEMU before any CPU
/// runs, never zeroed), so a secondary can wait on it while CPU 0 is still zeroing `.bss`.
pub mod smp {
    use core::sync::atomic::{AtomicU32, Ordering};

    /// [`RELEASE`] before [`release`]: a non-zero value, so that the word is in `.data`.
    const PARKED: u32 = 0x5041_524B;
    /// [`RELEASE`] after [`release`].
    const GO: u32 = 0x474F_474F;
    /// Count ticks per nap of CPU 0 in [`wait_up`]: 1 µs at 160 MHz.
    pub const NAP_TICKS: u32 = 160;
    /// Count ticks per nap of a secondary in [`wait_release`]: 50 ms. Long on purpose: in
    /// QEMU's `-icount` mode every instruction of any CPU advances the virtual time that
    /// CPU 0's Count shows, and a wake-up costs about 50 instructions, so frequent polls
    /// would leak into CPU 0's instruction counts (its speed check allows 8 instructions).
    /// The release is seen at most 50 ms (of virtual time) after it.
    pub const RELEASE_POLL_TICKS: u32 = 8_000_000;

    /// The release word (module docs).
    static RELEASE: AtomicU32 = AtomicU32::new(PARKED);
    /// Bit *n*: CPU *n* has called [`announce`]. Only touched after the release, when
    /// CPU 0 has zeroed `.bss`.
    static UP: AtomicU32 = AtomicU32::new(0);

    /// Releases the secondaries waiting in [`wait_release`] (a `Release` store: what CPU 0
    /// wrote before is seen by them). Call it after `.bss` is initialised and whatever the
    /// secondaries use is set up.
    pub fn release() {
        RELEASE.store(GO, Ordering::Release);
    }

    /// Waits (napping [`RELEASE_POLL_TICKS`] at a time, [`nap`](super::nap)) until CPU 0
    /// calls [`release`]. Unbounded: a secondary has nothing else to do; CPU 0's
    /// [`wait_up`] is the bounded side.
    pub fn wait_release() {
        while RELEASE.load(Ordering::Acquire) != GO {
            super::nap(RELEASE_POLL_TICKS);
        }
    }

    /// Marks CPU `cpu` as running (for [`wait_up`] on CPU 0).
    pub fn announce(cpu: u32) {
        UP.fetch_or(1u32.checked_shl(cpu).unwrap_or(0), Ordering::Release);
    }

    /// Whether CPU `cpu` has called [`announce`].
    pub fn is_up(cpu: u32) -> bool {
        UP.load(Ordering::Acquire) & 1u32.checked_shl(cpu).unwrap_or(0) != 0
    }

    /// Waits, napping, until CPU `cpu` has called [`announce`], for at most `ticks` CP0
    /// Count ticks. `false` if it did not show up in time.
    pub fn wait_up(cpu: u32, ticks: u32) -> bool {
        let start = super::count();
        while !is_up(cpu) {
            if super::count().wrapping_sub(start) >= ticks {
                return is_up(cpu);
            }
            super::nap(NAP_TICKS);
        }
        true
    }

    /// What the entry code of a secondary CPU runs (generated call from
    /// [`mips_board!`](crate::mips_board)): waits for the release and runs `secondary`, or
    /// parks when the board has none.
    pub fn secondary_entry(cpu: u32, secondary: Option<fn(u32) -> !>) -> ! {
        match secondary {
            Some(f) => {
                wait_release();
                f(cpu)
            }
            None => super::park(),
        }
    }
}

/// The multi-core `critical-section` implementation of the Malta firmware: the local
/// interrupt mask (Status.IE through `di`, as [`irq_save`]) plus one LL/SC spinlock shared
/// by every CPU, re-entrant on the CPU that holds it. Installed by
/// [`mips_smp_critical_section_impl!`](crate::mips_smp_critical_section_impl).
///
/// * [`acquire`](smp_cs::acquire): `di` first (no handler of this CPU can then spin on the
///   lock its own CPU holds); if the owner word already holds this CPU (`CPUNum + 1`), the
///   section nests and only the depth goes up (re-entry detected by the recorded holder);
///   otherwise a compare-and-swap of the owner word from 0 to `CPUNum + 1` with `Acquire`
///   ordering. On MIPS32r2 `core`'s compare-and-swap is an `ll`/`sc` loop followed by a
///   `sync`; the `Release` store that frees the lock is a `sync` then `sw`.
/// * [`release`](smp_cs::release): depth down by one; at zero the owner word is cleared
///   (`Release`); then `ei` if this section's `acquire` found interrupts on.
///
/// The algorithm (and its loom model check) is [`smp_lock`](crate::smp_lock)'s.
///
/// An acquire cannot fail (`critical-section` has no error path): it waits for as long as
/// the other CPU's section lasts, which is bounded by the code in that section (no section
/// of these firmwares waits on hardware). While it waits it naps ([`nap`], 16 ticks at a
/// time after 64 failed tries), so that under `-icount` the holder gets the emulation. The
/// backstop is [`smp_cs::SPIN_TICKS`] of CP0 Count (one second): a CPU that has waited that
/// long panics, naming the holder (the board prints `PANIC` and exits with status 1),
/// instead of hanging. Each failed try reads Count, so the bound holds whatever the holder
/// does.
pub mod smp_cs {
    use crate::smp_lock::{CoreLock, Held, Wait};
    use core::sync::atomic::{AtomicU32, Ordering};

    /// The lock.
    static LOCK: CoreLock = CoreLock::new();
    /// Acquires that found the lock held by another CPU (diagnostics, [`contended_count`]).
    static CONTENDED: AtomicU32 = AtomicU32::new(0);
    /// Failed compare-and-swaps before the waiter starts napping.
    const SPINS: u32 = 64;
    /// Count ticks per nap while the lock is held elsewhere (100 ns).
    const NAP_TICKS: u32 = 16;
    /// Most CP0 Count ticks an acquire waits for another CPU's section: one second at
    /// 160 MHz (below Count's 2^32-tick wrap, so the wrapping difference measures it).
    pub const SPIN_TICKS: u32 = 160_000_000;

    /// The wait of a contended acquire: spin, then nap; bounded by Count.
    struct Napping {
        start: u32,
        tries: u32,
    }

    impl Wait for Napping {
        const SLEEPS: bool = false;
        fn relax(&mut self) {
            if self.tries < SPINS {
                self.tries += 1;
                core::hint::spin_loop();
            } else {
                super::nap(NAP_TICKS);
            }
        }
        fn expired(&mut self) -> bool {
            super::count().wrapping_sub(self.start) > SPIN_TICKS
        }
        fn stuck(held: Held) -> ! {
            panic!(
                "critical section held by CPU {:?} for more than {SPIN_TICKS} Count ticks",
                held.owner
            )
        }
    }

    /// The wait's factory, called only when the lock is found held (it counts the
    /// contended acquire).
    fn napping() -> Napping {
        CONTENDED.fetch_add(1, Ordering::Relaxed);
        Napping {
            start: super::count(),
            tries: 0,
        }
    }

    /// The `acquire` half (module docs); returns whether interrupts were on. Panics if
    /// another CPU holds the lock for [`SPIN_TICKS`].
    #[inline(always)]
    pub fn acquire() -> bool {
        LOCK.acquire(super::cpu_num(), super::irq_save(), napping)
    }

    /// The `release` half.
    ///
    /// # Safety
    ///
    /// Ends the innermost section of this CPU begun by [`acquire`], which returned
    /// `were_enabled`.
    #[inline(always)]
    pub unsafe fn release(were_enabled: bool) {
        LOCK.release(napping);
        if were_enabled {
            // SAFETY: the caller ends the section whose acquire found interrupts on: the
            // outermost one of a context that runs with them on.
            unsafe { super::irq_restore() }
        }
    }

    /// Which CPU holds the lock, if any (diagnostics).
    pub fn owner() -> Option<u32> {
        LOCK.owner()
    }

    /// The nesting depth of the holder's sections (diagnostics; 0 when free).
    pub fn depth() -> u32 {
        LOCK.depth()
    }

    /// How many acquires so far found the lock held by another CPU and had to wait.
    pub fn contended_count() -> u32 {
        CONTENDED.load(Ordering::Relaxed)
    }
}

/// Installs [`smp_cs`] as the binary's `critical-section` implementation (a `bool` restore
/// state, as in [`cs`](crate::cs)). Invoke once, in the board crate of a Malta firmware that
/// runs more than one CPU; a single-CPU one uses
/// [`critical_section_impl!`](crate::critical_section_impl) (Status.IE alone).
///
/// ```ignore
/// fw_common::mips_smp_critical_section_impl!();
/// ```
#[macro_export]
macro_rules! mips_smp_critical_section_impl {
    () => {
        /// `critical-section`: Status.IE off plus an LL/SC spinlock across CPUs (generated
        /// by `fw_common::mips_smp_critical_section_impl!`).
        struct __FwSmpCriticalSection;
        $crate::__critical_section::set_impl!(__FwSmpCriticalSection);

        // SAFETY: `fw_common::mips::smp_cs`: `acquire` masks interrupts on this CPU and takes
        // the one lock every CPU's sections take (re-entrant on the holder), so one context
        // on one CPU at a time is in a section; `release` undoes it innermost first.
        unsafe impl $crate::__critical_section::Impl for __FwSmpCriticalSection {
            #[inline(always)]
            unsafe fn acquire() -> $crate::__critical_section::RawRestoreState {
                $crate::mips::smp_cs::acquire()
            }

            #[inline(always)]
            unsafe fn release(were_enabled: $crate::__critical_section::RawRestoreState) {
                // SAFETY: `critical-section` pairs this with the `acquire` above.
                unsafe { $crate::mips::smp_cs::release(were_enabled) }
            }
        }
    };
}

/// Defines the entry point, the exception vectors and the panic handler of a MIPS32 firmware
/// on QEMU's Malta, and runs the board's main function between the banner and the exit.
///
/// ```ignore
/// fw_common::mips_board! {
///     name: "otto-malta",             // printed as `timer-family firmware: <name>`
///     console: fw_common::mips::malta::Uart,
///     main: run,                      // `fn(&BootArgs) -> bool`: true when every check passed
///     secondary: secondary,           // optional: `fn(u32) -> !`, CPU n >= 1 after the release
/// }
/// ```
///
/// # What it generates
///
/// * `_start` (section `.text.start`, first in the image) reads EBase.CPUNum first: every
///   CPU of a `-smp` Malta arrives here ([`smp`]). CPU 0 continues below. Any other CPU sets
///   EBase and Status like CPU 0, takes its stack at `__secondary_stacks + n × 16 KiB`
///   (weak symbols: a linker script without `__secondary_stacks`/`__secondary_stacks_end`,
///   or with too little room, parks it in `wait`), and calls `secondary` after
///   [`smp::wait_release`], or parks for good when the board gives no `secondary`. It never
///   touches `.bss` before the release.
/// * CPU 0: EBase = the vectors below,
///   Status = 0 (BEV = 0: exceptions use EBase; interrupts off; kernel mode), `$gp = _gp`,
///   the stack (`__stack_top`), `.bss` zeroed (`__sbss`..`__ebss`, 4-byte aligned), then the
///   main function with the boot loader's `$a0..$a3` untouched.
/// * The main function: prints `timer-family firmware: <name>`, calls `main` with the
///   [`BootArgs`], prints `done` or `FAILED` and ends the emulation with [`exit`] status 0 or
///   1.
/// * The exception vectors (4 KiB aligned, EBase + 0x000 TLB refill, + 0x180 general, + 0x200
///   interrupt): every exception is fatal in these firmwares, it prints
///   `PANIC: exception ...` ([`report_exception`]) and exits with status 1, except the
///   Count/Compare interrupt (Cause.IP7 with ExcCode 0) that only [`nap`] enables: the
///   vector moves Compare 2^32 ticks away, steps over the nap's `wait` if the interrupt came
///   just before it, and returns (`eret`). A fatal exception on a secondary CPU also
///   switches to CPU 0's stack (`__stack_top`) to print.
/// * `__fw_mips_nap`, the routine behind [`nap`].
/// * The `#[panic_handler]`: prints `PANIC: <message>` and exits with status 1.
///
/// # Linker script contract
///
/// Link in KSEG0 (QEMU loads at the physical address), provide `__stack_top` (8-byte
/// aligned), `__sbss`, `__ebss` (4-byte aligned) and place `.text.start` first. A board that
/// runs secondaries also provides `__secondary_stacks` and `__secondary_stacks_end` (16 KiB
/// per secondary, outside `.bss`).
#[macro_export]
macro_rules! mips_board {
    (name: $name:literal, console: $console:expr, main: $main:path $(, secondary: $secondary:path)? $(,)?) => {
        /// Called by `_start` on every CPU but CPU 0, on its own stack (generated by
        /// `mips_board!`).
        #[unsafe(no_mangle)]
        extern "C" fn __fw_mips_secondary(cpu: u32) -> ! {
            let secondary: Option<fn(u32) -> !> = None $(.or(Some($secondary as fn(u32) -> !)))?;
            $crate::mips::smp::secondary_entry(cpu, secondary)
        }

        /// Called from `_start` with a stack and zeroed `.bss`, with the boot loader's
        /// `$a0..$a3` (generated by `mips_board!`).
        #[unsafe(no_mangle)]
        extern "C" fn __fw_mips_main(argc: u32, argv: u32, envp: u32, memsize: u32) -> ! {
            $crate::println!($console, "timer-family firmware: {}", $name);
            // SAFETY: `_start` passes the boot loader's `$a0..$a3` unchanged, before any
            // code wrote RAM outside the image, `.bss` and the stacks: QEMU's argument table
            // and strings, which nothing writes afterwards (`BootArgs::new`).
            let boot = unsafe { $crate::mips::BootArgs::new(argc, argv, envp, memsize) };
            let main: fn(&$crate::mips::BootArgs) -> bool = $main;
            let ok = main(&boot);
            $crate::mips::finish($console, ok)
        }

        /// Called from the exception vectors (generated by `mips_board!`).
        #[unsafe(no_mangle)]
        extern "C" fn __fw_mips_trap() -> ! {
            $crate::mips::report_exception($console);
            $crate::mips::exit(1)
        }

        #[panic_handler]
        fn __fw_mips_panic(info: &core::panic::PanicInfo<'_>) -> ! {
            $crate::print_panic($console, info);
            $crate::mips::exit(1)
        }

        core::arch::global_asm!(
            r#"
    .section .text.start, "ax"
    .set push
    .set noreorder
    .set mips32r2
    .global _start
    .type _start, @function
_start:
    mfc0    $t0, $15, 1         # EBase: CPUNum in bits 9:0
    andi    $t0, $t0, 0x3ff
    bnez    $t0, 5f             # every CPU arrives here (mips::smp); CPU 0 goes on
    nop
    la      $t0, __fw_mips_vectors
    mtc0    $t0, $15, 1         # EBase: our vectors
    mtc0    $zero, $12          # Status = 0: BEV 0, IE 0, EXL 0, kernel mode
    ehb
    la      $gp, _gp
    la      $sp, __stack_top
    la      $t0, __sbss         # zero .bss, 4 bytes at a time
    la      $t1, __ebss
1:  beq     $t0, $t1, 2f
    nop
    sw      $zero, 0($t0)
    b       1b
    addiu   $t0, $t0, 4
2:  jal     __fw_mips_main      # $a0..$a3: the boot loader's, untouched
    addiu   $sp, $sp, -16       # (delay slot) o32 argument save area
3:  b       3b
    nop

5:  la      $t1, __fw_mips_vectors  # a secondary CPU ($t0 = CPUNum)
    mtc0    $t1, $15, 1         # its own EBase (CPUNum is read-only)
    mtc0    $zero, $12          # Status = 0
    ehb
    la      $gp, _gp
    la      $t1, __secondary_stacks       # (weak: 0 when the linker script has none)
    beqz    $t1, 6f
    sll     $t2, $t0, 14        # (delay slot) 16 KiB per CPU: top of CPU n = base + n * 16 KiB
    addu    $sp, $t1, $t2
    la      $t1, __secondary_stacks_end
    sltu    $t2, $t1, $sp       # beyond the reserved stacks?
    bnez    $t2, 6f
    nop
    move    $a0, $t0
    jal     __fw_mips_secondary
    addiu   $sp, $sp, -16       # (delay slot) o32 argument save area
6:  wait                        # no stack for this CPU: parked (interrupts off)
    b       6b
    nop
    .weak   __secondary_stacks
    .weak   __secondary_stacks_end

    .text
    .global __fw_mips_nap
    .type __fw_mips_nap, @function
__fw_mips_nap:                  # $a0: Count ticks (mips::nap)
    mfc0    $t0, $12            # Status, restored at the end
    mfc0    $t1, $9
    addu    $t3, $t1, $a0
    mtc0    $t3, $11            # Compare = Count + ticks (clears a pending timer interrupt)
    ehb
    mfc0    $t2, $9             # if `ticks` have passed already, Compare may have been
    subu    $t2, $t2, $t1       # written in the past (no match for 2^32 ticks): no wait
    sltu    $t2, $t2, $a0
    beqz    $t2, 1f
    nop
    li      $t2, 0xffff00fe
    and     $t2, $t0, $t2       # IM7..IM0 and IE cleared
    ori     $t2, $t2, 0x8001    # IM7 (the Count/Compare timer) and IE
    mtc0    $t2, $12
    ehb
    .global __fw_mips_nap_wait
__fw_mips_nap_wait:
    wait
    mtc0    $t0, $12
    ehb
1:  jr      $ra
    nop

    .section .text.fw_mips_vectors, "ax"
    .balign 4096
    .global __fw_mips_vectors
__fw_mips_vectors:
    la      $sp, __stack_top    # EBase + 0x000: TLB refill
    j       __fw_mips_trap
    addiu   $sp, $sp, -16
    .org    0x180
    mfc0    $k0, $13            # EBase + 0x180: general exception (Cause.IV = 0: interrupts too)
    andi    $k0, $k0, 0x807c    # Cause.IP7 and ExcCode
    li      $k1, 0x8000         # the Count/Compare interrupt (IP7, ExcCode 0) of mips::nap
    bne     $k0, $k1, 8f
    nop
    mfc0    $k0, $9
    addiu   $k0, $k0, -1
    mtc0    $k0, $11            # Compare = Count - 1: clears it, next match 2^32 ticks on
    mfc0    $k0, $14            # EPC
    la      $k1, __fw_mips_nap_wait
    subu    $k0, $k0, $k1
    addiu   $k0, $k0, 4
    sltiu   $k0, $k0, 5         # EPC = the `ehb` before the `wait`, or the `wait` itself
    beqz    $k0, 7f
    addiu   $k1, $k1, 4         # (delay slot)
    mtc0    $k1, $14            # then resume after the `wait`, not in it
7:  ehb
    eret
8:  la      $sp, __stack_top    # any other exception: fatal
    j       __fw_mips_trap
    addiu   $sp, $sp, -16
    .org    0x200
    la      $sp, __stack_top    # EBase + 0x200: interrupt (Cause.IV)
    j       __fw_mips_trap
    addiu   $sp, $sp, -16
    .set pop
"#
        );
    };
}
