//! LoongArch64 support: for firmware that runs an executor, paged mode with direct-mapped
//! windows (RAM cached and coherent, devices strongly-ordered uncached); for every LoongArch
//! firmware, the exception entry, CSR helpers and the interrupt-state pair of the
//! `critical-section` implementation.
//!
//! | item | what it is |
//! |---|---|
//! | [`loongarch_board!`](crate::loongarch_board) | entry code (FPU, DMW windows, paged mode, stack, `.bss`, EENTRY, TLBRENTRY), exception entry, panic handler, banner |
//! | [`loongarch_trap_entry!`](crate::loongarch_trap_entry) | the exception entry alone (which registers it saves), for a firmware with entry code of its own |
//! | [`virt`] | QEMU `virt`'s console (`Uart0`) and `power_off`, through the uncached window |
//! | functions below | `rdtime.d`, [`spin_insns`], CRMD, ESTAT, interrupt enable ([`irq_save`] / [`irq_restore`] for [`critical_section_impl!`](crate::critical_section_impl)), device addresses through the uncached window |
//! | [`smp`] | releasing a secondary core from QEMU's boot-ROM stub: mailbox (IOCSR `MBUF_SEND`) and IPI (`IPI_SEND`); IPIs between running cores ([`smp::send_ipi`], [`smp::ipi_enable`], [`smp::ipi_take`]) |
//! | [`smp_cs`], [`loongarch_smp_critical_section_impl!`](crate::loongarch_smp_critical_section_impl) | the multi-core `critical-section`: CRMD.IE off plus a spinlock across cores, re-entrant per core; a waiter idles until the release IPI where the firmware lets it reach the core |
//! | [`idle`] | `idle 0`, which ends on a pending enabled interrupt even with CRMD.IE off |
//!
//! # Memory map (as Linux sets it up)
//!
//! QEMU starts the core in direct-address mode with data accesses strongly-ordered uncached
//! (CRMD = 0x8: DA = 1, DATF = DATM = 0; `docs/qemu.md`). LL/SC and the AM* atomics are
//! meant for cached coherent memory, and async executors are built on them, so the entry
//! code switches to paged mode with two direct-mapped windows, the way Linux's `head.S`
//! does:
//!
//! | window | CSR | value | virtual | memory access type |
//! |---|---|---|---|---|
//! | devices | DMW0 (0x180) | `0x8000_0000_0000_0001` | `0x8000_xxxx_xxxx_xxxx` | strongly-ordered uncached (MAT 0), PLV0 |
//! | RAM | DMW1 (0x181) | `0x9000_0000_0000_0011` | `0x9000_xxxx_xxxx_xxxx` | coherent cached (MAT 1), PLV0 |
//!
//! The image is linked in the RAM window (`0x9000_0000_0020_0000`; QEMU loads it at the
//! physical address, the low 48 bits); the entry jumps from the physical alias it starts at
//! to the linked address and sets CRMD = `0xb0` (PG = 1, DATF = DATM = cached, IE = 0).
//! Devices are reached at [`UNCACHED`]` | physical` (see [`device`]). Nothing else is
//! mapped: any other address raises a TLB refill exception, whose entry reports it and
//! powers off.

/// QEMU's LoongArch `virt` machine: the console and power-off, through the uncached window
/// of [`loongarch_board!`](crate::loongarch_board)'s paged mode (`docs/qemu.md`, LoongArch
/// virt; the addresses are the DTB's).
pub mod virt {
    use super::device;
    use crate::{Console, mmio};

    /// UART0 (ns16550a, byte registers, stride 1).
    const UART0_BASE: usize = device(0x1fe0_01e0);
    /// Transmit holding register.
    const UART_THR: usize = UART0_BASE;
    /// Line status register.
    const UART_LSR: usize = UART0_BASE + 5;
    /// LSR bit 5: transmit holding register empty.
    const UART_LSR_THRE: u8 = 1 << 5;
    /// GED sleep control register (the DTB's `syscon-poweroff` node).
    const GED_SLEEP_CTL: usize = device(0x100e_001c);
    /// Value written to [`GED_SLEEP_CTL`] to power off (QEMU then exits with status 0).
    const GED_SLEEP_CTL_POWEROFF: u8 = 0x34;

    /// UART0, polled, through the uncached window. Needs no set-up under QEMU.
    #[derive(Clone, Copy, Debug)]
    pub struct Uart0;

    impl Console for Uart0 {
        fn write_byte(&mut self, byte: u8) {
            crate::wait_for_room(|| {
                // SAFETY: LSR of the virt machine's UART0 through the uncached window, a
                // status read.
                unsafe { mmio::read8(UART_LSR) & UART_LSR_THRE != 0 }
            });
            // SAFETY: THR of the same UART; the firmware is its only user, and prints from
            // one context at a time (the exception path prints only before powering off).
            unsafe { mmio::write8(UART_THR, byte) }
        }
    }

    /// Powers the machine off (interrupts off first); QEMU exits with status 0.
    pub fn power_off() -> ! {
        super::irq_disable();
        // SAFETY: writing the poweroff value to the GED sleep control register only stops
        // the VM.
        unsafe { mmio::write8(GED_SLEEP_CTL, GED_SLEEP_CTL_POWEROFF) };
        loop {
            core::hint::spin_loop();
        }
    }
}

/// Base of the strongly-ordered uncached window (DMW0): devices.
pub const UNCACHED: usize = 0x8000_0000_0000_0000;
/// Base of the coherent cached window (DMW1): RAM, where the image is linked.
pub const CACHED: usize = 0x9000_0000_0000_0000;
/// CRMD.IE, the global interrupt enable.
pub const CRMD_IE: u64 = 1 << 2;
/// ESTAT.IS bit of the timer interrupt.
pub const ESTAT_TI: u64 = 1 << 11;

/// The address of device register `phys` through the uncached window.
pub const fn device(phys: usize) -> usize {
    UNCACHED | phys
}

/// Reads the 64-bit stable counter (`rdtime.d`): a reference clock independent of any
/// driver under test.
#[inline(always)]
pub fn rdtime() -> u64 {
    let value: u64;
    // SAFETY: `rdtime.d` only reads the stable counter (and its id, discarded).
    unsafe {
        core::arch::asm!("rdtime.d {}, {}", out(reg) value, out(reg) _, options(nomem, nostack));
    }
    value
}

/// Runs exactly `2 * iterations` instructions (`addi.d` + `bnez` per iteration) plus a
/// constant few around them: a known amount of CPU work, which takes `2 * iterations * 2^N`
/// ns of virtual time under `-icount shift=N`.
#[inline(always)]
pub fn spin_insns(iterations: u64) {
    if iterations == 0 {
        return;
    }
    // SAFETY: a register-only countdown loop; touches no memory and no stack.
    unsafe {
        core::arch::asm!(
            "1:",
            "addi.d {0}, {0}, -1",
            "bnez {0}, 1b",
            inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}

/// Reads CRMD (current mode: PLV, IE, DA, PG, DATF, DATM).
pub fn crmd() -> u64 {
    let value: u64;
    // SAFETY: reading CRMD has no side effects; the firmware runs at PLV0.
    unsafe { core::arch::asm!("csrrd {}, 0x0", out(reg) value, options(nomem, nostack)) };
    value
}

/// Reads ESTAT (pending interrupts, exception code).
pub fn estat() -> u64 {
    let value: u64;
    // SAFETY: reading ESTAT has no side effects; PLV0.
    unsafe { core::arch::asm!("csrrd {}, 0x5", out(reg) value, options(nomem, nostack)) };
    value
}

/// Reads ERA (the exception return address).
pub fn era() -> u64 {
    let value: u64;
    // SAFETY: reading ERA has no side effects; PLV0.
    unsafe { core::arch::asm!("csrrd {}, 0x6", out(reg) value, options(nomem, nostack)) };
    value
}

/// Reads BADV (the faulting virtual address).
pub fn badv() -> u64 {
    let value: u64;
    // SAFETY: reading BADV has no side effects; PLV0.
    unsafe { core::arch::asm!("csrrd {}, 0x7", out(reg) value, options(nomem, nostack)) };
    value
}

/// Sets CRMD.IE to `value & CRMD_IE` atomically (`csrxchg`); returns the old CRMD.
pub fn crmd_xchg_ie(value: u64) -> u64 {
    let mut v = value & CRMD_IE;
    // SAFETY: `csrxchg` with mask = CRMD.IE only enables or disables interrupts, which is the
    // firmware's decision; the mask lives in $t0 because rj = $r0/$r1 encodes csrrd/csrwr.
    // Not `nomem`: memory accesses must not move across a change of interrupt state.
    unsafe {
        core::arch::asm!("csrxchg {0}, $t0, 0x0", inout(reg) v, in("$t0") CRMD_IE, options(nostack));
    }
    v
}

/// Whether interrupts are enabled (CRMD.IE).
pub fn irq_enabled() -> bool {
    crmd() & CRMD_IE != 0
}

/// Enables interrupts (CRMD.IE = 1).
///
/// # Safety
///
/// The exception entry must lead to a handler that acknowledges every enabled interrupt
/// source, and this must not be called inside a critical section.
pub unsafe fn irq_enable() {
    crmd_xchg_ie(CRMD_IE);
}

/// Disables interrupts (CRMD.IE = 0). Always safe: it only delays interrupts.
pub fn irq_disable() {
    crmd_xchg_ie(0);
}

/// Disables interrupts and returns whether they were enabled before: the `acquire` half of
/// the [`critical_section_impl!`](crate::critical_section_impl) (see [`cs`](crate::cs)).
#[inline(always)]
pub fn irq_save() -> bool {
    let mut crmd = 0u64;
    // SAFETY: `csrxchg` with mask = CRMD.IE and value 0 only disables interrupts, which only
    // delays them, and returns the old CRMD; the mask lives in $t0 because rj = $r0/$r1
    // encodes csrrd/csrwr. Not `nomem`: memory accesses stay on their side of it.
    unsafe {
        core::arch::asm!("csrxchg {0}, $t0, 0x0", inout(reg) crmd, in("$t0") CRMD_IE, options(nostack));
    }
    crmd & CRMD_IE != 0
}

/// Enables interrupts (CRMD.IE = 1): the `release` half of the
/// [`critical_section_impl!`](crate::critical_section_impl) (see [`cs`](crate::cs)).
///
/// # Safety
///
/// Only to end the outermost critical section of a context that ran with interrupts
/// enabled, i.e. after an [`irq_save`] that returned `true`.
#[inline(always)]
pub unsafe fn irq_restore() {
    // SAFETY: the caller ends the outermost section, whose interrupts were enabled when it
    // began. `csrxchg $t0, $t0` with $t0 = CRMD.IE is mask and value at once (the old CRMD
    // lands in $t0, discarded). Not `nomem`: the section's accesses stay before it.
    unsafe {
        core::arch::asm!("csrxchg $t0, $t0, 0x0", inout("$t0") CRMD_IE => _, options(nostack));
    }
}

/// Waits for an interrupt (`idle 0`). The core leaves `idle` when an interrupt enabled in
/// ECFG.LIE is pending, whether CRMD.IE is on or off (QEMU's `idle` ends on a pending
/// `ESTAT.IS & ECFG.LIE`), so a caller with interrupts off can check its condition, idle,
/// and then enable interrupts to take the one that woke it: nothing is lost between the
/// check and the `idle`. Returns at once if one is pending already.
#[inline(always)]
pub fn idle() {
    // SAFETY: `idle 0` only waits for an interrupt. Not `nomem`: memory accesses stay on
    // their side of the wait.
    unsafe { core::arch::asm!("idle 0", options(nostack)) };
}

/// Reads `CPUID.CoreID` (CSR 0x20, bits 8:0): the number of the core this runs on.
#[inline(always)]
pub fn cpu_id() -> u32 {
    let value: u64;
    // SAFETY: reading CPUID has no side effects; PLV0.
    unsafe { core::arch::asm!("csrrd {}, 0x20", out(reg) value, options(nomem, nostack)) };
    (value & 0x1ff) as u32
}

/// Starting the secondary cores of QEMU's `virt` machine (and of Loongson 3 chips) through
/// the IPI block's IOCSR registers.
///
/// Under QEMU 10 a secondary core that is not the boot core waits in a stub in the boot ROM:
/// it enables its IPIs, idles until one arrives, and then jumps to the 64-bit address in its
/// mailbox 0 (IOCSR 0x1020) if that is non-zero. The boot core releases it with
/// [`start_secondary`](smp::start_secondary): the address through `MBUF_SEND` (0x1048),
/// high word first, then an IPI through `IPI_SEND` (0x1040), as Linux's `csr_mail_send` and
/// `ipi_write_action` do.
///
/// The encodings (checked against QEMU's `loongson_ipi_common.c`):
///
/// | register | bits |
/// |---|---|
/// | `MBUF_SEND`, 64-bit write | 63:32 the data word; 30:27 a byte mask (a set bit keeps that byte); 25:16 target CPU; 4:2 which 32-bit word of the mailboxes at 0x1020 (0 = mailbox 0 low, 1 = mailbox 0 high) |
/// | `IPI_SEND`, 32-bit write | 31 blocking; 25:16 target CPU; 4:0 the IPI bit to set in the target's status |
///
/// Once running, the cores signal each other with the same block: [`send_ipi`](smp::send_ipi)
/// sets a bit in the target's `IPI_STATUS` (0x1000), which raises its IPI line (ESTAT.IS bit
/// 12) while that bit is enabled in its `IPI_EN` (0x1004, [`ipi_enable`](smp::ipi_enable))
/// and ECFG.LIE bit 12; the target's handler reads and clears the bits through
/// `IPI_CLEAR` (0x100c, [`ipi_take`](smp::ipi_take)). Each core reaches its own
/// `IPI_STATUS`/`IPI_EN`/`IPI_CLEAR` at these IOCSR addresses.
pub mod smp {
    /// IOCSR `IPI_SEND`.
    pub const IOCSR_IPI_SEND: u64 = 0x1040;
    /// IOCSR `MBUF_SEND`.
    pub const IOCSR_MBUF_SEND: u64 = 0x1048;
    /// The "blocking" bit of both send registers (bit 31; Linux sets it).
    const SEND_BLOCKING: u64 = 1 << 31;

    /// The `MBUF_SEND` value that writes `data` into 32-bit mailbox word `word` (0..8) of
    /// core `cpu`, every byte.
    pub const fn mbuf_send_value(cpu: u32, word: u32, data: u32) -> u64 {
        SEND_BLOCKING
            | (((word & 0x7) as u64) << 2)
            | (((cpu & 0x3ff) as u64) << 16)
            | ((data as u64) << 32)
    }

    /// The `IPI_SEND` value that sets IPI bit `vector` (0..32) of core `cpu`.
    pub const fn ipi_send_value(cpu: u32, vector: u32) -> u32 {
        (SEND_BLOCKING as u32) | ((cpu & 0x3ff) << 16) | (vector & 0x1f)
    }

    /// IOCSR `IPI_STATUS` (32-bit, read-only): the calling core's pending IPI bits.
    pub const IOCSR_IPI_STATUS: u64 = 0x1000;
    /// IOCSR `IPI_EN` (32-bit): which of the calling core's IPI bits raise its IPI line.
    pub const IOCSR_IPI_EN: u64 = 0x1004;
    /// IOCSR `IPI_CLEAR` (32-bit, write-only): clears the calling core's IPI bits set in
    /// the value written.
    pub const IOCSR_IPI_CLEAR: u64 = 0x100c;
    /// ECFG.LIE / ESTAT.IS bit of the IPI line (interrupt number 12).
    pub const ECFG_IPI: u64 = 1 << 12;

    /// Sets IPI bit `vector` (0..32) of core `cpu` through `IPI_SEND`. The target's IPI line
    /// is raised while a bit it enabled ([`ipi_enable`]) is set, until its handler clears the
    /// bit ([`ipi_take`]); two sends of one bit before that are one interrupt.
    ///
    /// A `dbar 0` comes first, so every memory access before the call is visible to the
    /// target by the time its handler runs (a flag set before the send is seen there).
    ///
    /// Sending only makes an interrupt pending on the target: it cannot touch memory. A
    /// core that has the bit enabled must acknowledge it in its handler, or its line stays
    /// raised; a core still in QEMU's boot-ROM stub would take the IPI as its release (do
    /// not send it one before [`start_secondary`]).
    pub fn send_ipi(cpu: u32, vector: u32) {
        let value = ipi_send_value(cpu, vector);
        // SAFETY: `dbar 0` is a full barrier and nothing else; the IOCSR write to IPI_SEND
        // sets one IPI status bit of core `cpu`, which only raises that core's IPI line.
        unsafe {
            core::arch::asm!("dbar 0", options(nostack));
            core::arch::asm!("iocsrwr.w {v}, {a}", v = in(reg) value, a = in(reg) IOCSR_IPI_SEND, options(nostack));
        }
    }

    /// Lets the IPI bits in `mask` raise the calling core's IPI line: `IPI_EN = mask` and
    /// ECFG.LIE bit 12 on (CRMD.IE still decides whether the interrupt is taken).
    pub fn ipi_enable(mask: u32) {
        // SAFETY: IOCSR IPI_EN and ECFG bit 12 (the mask operand of `csrxchg`, in $t0 since
        // rj = $r0/$r1 encodes csrrd/csrwr) are the calling core's own; they only decide
        // which IPIs reach it, which is the firmware's choice.
        unsafe {
            core::arch::asm!("iocsrwr.w {v}, {a}", v = in(reg) mask, a = in(reg) IOCSR_IPI_EN, options(nostack));
            core::arch::asm!("csrxchg {0}, $t0, 0x4", inout(reg) ECFG_IPI => _, in("$t0") ECFG_IPI, options(nostack));
        }
    }

    /// Reads the calling core's pending IPI bits and clears them (`IPI_STATUS`, then
    /// `IPI_CLEAR` with the same bits), from the IPI interrupt's handler. Returns the bits.
    /// A bit sent again after the read stays pending and interrupts again. A `dbar 0` comes
    /// last, so what the sender wrote before its send is seen by what the handler does next.
    pub fn ipi_take() -> u32 {
        let status: u32;
        // SAFETY: IOCSR reads of IPI_STATUS and a write of IPI_CLEAR on the calling core
        // only acknowledge its own IPIs; `dbar 0` is a barrier.
        unsafe {
            core::arch::asm!("iocsrrd.w {v}, {a}", v = out(reg) status, a = in(reg) IOCSR_IPI_STATUS, options(nostack));
            core::arch::asm!("iocsrwr.w {v}, {a}", v = in(reg) status, a = in(reg) IOCSR_IPI_CLEAR, options(nostack));
            core::arch::asm!("dbar 0", options(nostack));
        }
        status
    }

    /// The IPI bit [`start_secondary`] sends: QEMU's boot-ROM stub leaves its `idle` on any
    /// IPI and then looks at its mailbox.
    pub const RELEASE_IPI: u32 = 0;

    /// Writes mailbox 0 of core `cpu` with `entry` (high word first, so the ROM stub, which
    /// polls the low word, never sees half an address) and sends it IPI [`RELEASE_IPI`],
    /// which wakes it from its `idle` and makes it jump to `entry`.
    ///
    /// QEMU raises a core's IPI line when an IPI is sent to it, not when the core enables
    /// its IPIs later; an IPI sent before the stub has written `IPI_EN` leaves the core in
    /// its `idle` (seen in `loongarch-virt-async`, which releases CPU1 early). Calling this
    /// again with the same `entry` until the core reports is harmless to the mailbox: it
    /// gets the same value, so the stub never reads a mixed address.
    ///
    /// A repeated release can reach the core **after** it left the stub, though. The stub
    /// (QEMU `hw/loongarch/boot.c`, the secondary boot code) clears the mailbox, sets
    /// ECFG.LIE bit 12 and `IPI_EN` = all ones, idles until mailbox word 0 is non-zero, then
    /// clears the IPI bits pending at that moment, turns ECFG bit 12 off and jumps, leaving
    /// `IPI_EN` all ones. A release sent between that clear and the moment the firmware on
    /// the core says it is up therefore stays pending there: with `IPI_EN` still all ones
    /// QEMU raises the core's IPI line at once (`hw/intc/loongson_ipi_common.c`: a set
    /// raises the line when `status & en` is non-zero), and after the firmware's own
    /// [`ipi_enable`] without bit [`RELEASE_IPI`] the bit waits in `IPI_STATUS` and comes
    /// back with the next IPI's [`ipi_take`]. A firmware that may release a core more than
    /// once must accept bit [`RELEASE_IPI`] in that core's IPI handler as a late release,
    /// not as an unknown interrupt.
    ///
    /// # Safety
    ///
    /// `entry` must be code that a core can run in the state the ROM stub leaves it in
    /// (direct-address mode, interrupts off, FPU off, no stack), for the core `cpu`, and
    /// `cpu` must not be running already.
    pub unsafe fn start_secondary(cpu: u32, entry: u64) {
        let high = mbuf_send_value(cpu, 1, (entry >> 32) as u32);
        let low = mbuf_send_value(cpu, 0, entry as u32);
        let ipi = ipi_send_value(cpu, RELEASE_IPI);
        // SAFETY: IOCSR writes to the IPI block: they fill core `cpu`'s mailbox and set one
        // of its IPI status bits, which (the caller says) only releases that core to `entry`.
        unsafe {
            core::arch::asm!("iocsrwr.d {v}, {a}", v = in(reg) high, a = in(reg) IOCSR_MBUF_SEND, options(nostack));
            core::arch::asm!("iocsrwr.d {v}, {a}", v = in(reg) low, a = in(reg) IOCSR_MBUF_SEND, options(nostack));
            core::arch::asm!("iocsrwr.w {v}, {a}", v = in(reg) ipi, a = in(reg) IOCSR_IPI_SEND, options(nostack));
        }
    }
}

/// The multi-core `critical-section` implementation of the LoongArch boards: the local
/// interrupt mask (CRMD.IE, as [`irq_save`]) plus one spinlock shared by every core,
/// re-entrant on the core that holds it. Installed by
/// [`loongarch_smp_critical_section_impl!`](crate::loongarch_smp_critical_section_impl).
///
/// * [`acquire`](smp_cs::acquire): interrupts off first (so an interrupt handler on this core
///   can never spin on a lock its own core holds), then, unless this core already holds
///   the lock, a compare-and-swap loop (LL/SC, `core` atomics) that writes `CPUID + 1` into
///   the owner word with `Acquire` ordering; the nesting depth counts the sections of the
///   owning core.
/// * [`release`](smp_cs::release): the depth down by one; at zero the owner word is cleared
///   with `Release` ordering; then interrupts back on if this section's `acquire` found
///   them on (the `bool` restore state, as in [`cs`](crate::cs)).
///
/// A core that finds the lock held waits in `idle` if IPI bit [`smp_cs::LOCK_IPI`] can reach
/// it (enabled in its `IPI_EN` and ECFG.LIE bit 12, which the firmware decides): it records
/// itself as a waiter, and the core that frees the lock sends it that IPI. Otherwise it
/// spins. Under `-icount` QEMU runs the vCPUs in turn, and a spinning waiter keeps the
/// holder off the CPU until its turn runs out: `loongarch-virt-async` saw sections wait 50
/// ms (shift 0) before its cores waited this way.
///
/// The wait for the lock is bounded: a core that finds it held for [`smp_cs::SPIN_TICKS`]
/// stable-counter ticks (one second at 100 MHz) panics, which the boards report and power
/// off on, instead of hanging. In `idle` the bound is checked at each wake-up (the release
/// IPI or any other enabled interrupt), so a holder that never releases is only reported
/// if some interrupt still reaches the waiting core.
///
/// The direct-address firmware (`loongarch-virt`) runs with data accesses strongly-ordered
/// uncached; QEMU's LL/SC does not depend on the memory type, real silicon wants the lock in
/// cached coherent memory (the paged mode of [`loongarch_board!`](crate::loongarch_board)).
pub mod smp_cs {
    use crate::smp_lock::{CoreLock, Held, Wait};

    /// Most stable-counter ticks `acquire` waits for another core's section.
    pub const SPIN_TICKS: u64 = 100_000_000;
    /// The IPI bit ([`smp::send_ipi`](super::smp::send_ipi)) a releasing core sends to the
    /// cores waiting for the lock. A core waits in `idle` only if it has this bit enabled
    /// (`IPI_EN`, [`smp::ipi_enable`](super::smp::ipi_enable)) and ECFG.LIE bit 12 on; its
    /// interrupt handler must then accept the bit and ignore it (one can be left pending
    /// after the wait ended by itself).
    pub const LOCK_IPI: u32 = 31;

    /// The lock (the algorithm, with the waiter word and its handshake, is
    /// [`smp_lock`](crate::smp_lock)'s).
    static LOCK: CoreLock = CoreLock::new();

    /// Whether the calling core can wait for [`LOCK_IPI`] in `idle`: the bit is enabled in
    /// its `IPI_EN` and the IPI line in ECFG.
    fn lock_ipi_reaches_me() -> bool {
        let en: u32;
        let ecfg: u64;
        // SAFETY: reads of the calling core's IOCSR IPI_EN and of ECFG have no side
        // effects; PLV0.
        unsafe {
            core::arch::asm!("iocsrrd.w {v}, {a}", v = out(reg) en, a = in(reg) super::smp::IOCSR_IPI_EN, options(nostack));
            core::arch::asm!("csrrd {}, 0x4", out(reg) ecfg, options(nostack));
        }
        en & (1 << LOCK_IPI) != 0 && ecfg & super::smp::ECFG_IPI != 0
    }

    /// The wait of a contended acquire: `idle` until [`LOCK_IPI`] where it reaches this
    /// core, a spin otherwise; bounded by the stable counter.
    struct IpiIdle {
        start: u64,
    }

    impl Wait for IpiIdle {
        const SLEEPS: bool = true;
        fn can_sleep(&mut self) -> bool {
            lock_ipi_reaches_me()
        }
        fn sleep(&mut self) {
            // Ends on any pending interrupt enabled in ECFG, IE off or not. Under `-icount`
            // QEMU runs the vCPUs in turn: `idle` hands the turn to the holder, where a
            // spin kept it until the turn ran out (tens of ms).
            super::idle();
        }
        fn clear(&mut self) {
            // SAFETY: an IOCSR write of IPI_CLEAR with one bit clears only that IPI of the
            // calling core, which belongs to this lock.
            unsafe {
                core::arch::asm!("iocsrwr.w {v}, {a}", v = in(reg) 1u32 << LOCK_IPI, a = in(reg) super::smp::IOCSR_IPI_CLEAR, options(nostack));
            }
        }
        fn relax(&mut self) {
            core::hint::spin_loop();
        }
        fn expired(&mut self) -> bool {
            super::rdtime().wrapping_sub(self.start) > SPIN_TICKS
        }
        fn wake(&mut self, waiters: u32) {
            let mut rest = waiters;
            while rest != 0 {
                let cpu = rest.trailing_zeros();
                rest &= rest.wrapping_sub(1);
                super::smp::send_ipi(cpu, LOCK_IPI);
            }
        }
        fn stuck(held: Held) -> ! {
            panic!(
                "critical section held by core {:?} for more than {SPIN_TICKS} ticks",
                held.owner
            )
        }
    }

    /// The wait's factory, called only when the lock is found held, or on a release that
    /// found sleepers.
    fn ipi_idle() -> IpiIdle {
        IpiIdle {
            start: super::rdtime(),
        }
    }

    /// Disables interrupts, takes the lock (or nests on it) and returns whether interrupts
    /// were enabled. Panics if another core holds the lock for [`SPIN_TICKS`].
    #[inline]
    pub fn acquire() -> bool {
        LOCK.acquire(super::cpu_id(), super::irq_save(), ipi_idle)
    }

    /// Ends a section begun by [`acquire`]: frees the lock when it is the outermost one of
    /// this core (and sends [`LOCK_IPI`] to the cores waiting in `idle` for it), and
    /// enables interrupts if `were_enabled`.
    ///
    /// # Safety
    ///
    /// Pairs with the [`acquire`] that returned `were_enabled`, on the same core, in reverse
    /// order of acquisition (`critical-section`'s contract).
    #[inline]
    pub unsafe fn release(were_enabled: bool) {
        LOCK.release(ipi_idle);
        if were_enabled {
            // SAFETY: this section's `acquire` found interrupts on, so it is the outermost
            // section of a context that runs with them on (the caller's contract).
            unsafe { super::irq_restore() }
        }
    }
}

/// Installs [`smp_cs`] as the binary's `critical-section` implementation (`bool` restore
/// state): for a LoongArch firmware that runs on more than one core. Invoke once, in the
/// board crate, instead of [`critical_section_impl!`](crate::critical_section_impl).
#[macro_export]
macro_rules! loongarch_smp_critical_section_impl {
    () => {
        /// `critical-section`: local interrupts off plus a spinlock across cores (generated
        /// by `fw_common::loongarch_smp_critical_section_impl!`).
        struct __FwSmpCriticalSection;
        $crate::__critical_section::set_impl!(__FwSmpCriticalSection);

        // SAFETY: `fw_common::loongarch::smp_cs`: `acquire` masks interrupts on this core and
        // takes a lock every core takes, so one context on one core at a time holds a
        // section; `release` undoes it in order.
        unsafe impl $crate::__critical_section::Impl for __FwSmpCriticalSection {
            #[inline(always)]
            unsafe fn acquire() -> $crate::__critical_section::RawRestoreState {
                $crate::loongarch::smp_cs::acquire()
            }

            #[inline(always)]
            unsafe fn release(were_enabled: $crate::__critical_section::RawRestoreState) {
                // SAFETY: `critical-section` pairs this with the `acquire` above.
                unsafe { $crate::loongarch::smp_cs::release(were_enabled) }
            }
        }
    };
}

/// Defines the entry point, the exception entry and the panic handler of a LoongArch64
/// firmware, and runs the board's main function between the banner and power-off.
///
/// ```ignore
/// fw_common::loongarch_board! {
///     name: "loongarch-virt-async", // printed as `timer-family firmware: <name>`
///     console: Uart0,               // a `Copy` value implementing `Console`
///     main: run,                    // `fn() -> bool`: true when every check passed
///     irq: on_irq,                  // `fn(estat: u64)`: an interrupt (ESTAT.ECODE = 0)
///     power_off: power_off,         // `fn() -> !`
/// }
/// ```
///
/// # What it generates
///
/// * `_start` (section `.text.start`, first in the image): EUEN.FPE = 1 (the target is
///   hard-float), DMW0/DMW1 as in the [module docs](self), a jump from the physical alias to
///   the linked address, CRMD = `0xb0` (paged, cached, IE off), the stack
///   (`__stack_top`), `.bss` zeroed (`__sbss`..`__ebss`, 8-byte aligned), EENTRY = the
///   exception entry (ECFG.VS = 0 at reset: every exception and interrupt enters there),
///   TLBRENTRY = a refill entry that reports the bad address and powers off; then main.
/// * The main function: prints `timer-family firmware: <name>`, calls `main`, prints `done`
///   or `FAILED` and powers off. A `main` that never returns (an executor) ends the run
///   itself with [`finish`].
/// * The exception entry, [`loongarch_trap_entry!`](crate::loongarch_trap_entry) (the
///   registers it saves and the ones it does not are listed there), with a handler that
///   reads ESTAT: an exception (ESTAT.ECODE ≠ 0) prints `PANIC: exception ...` and powers
///   off; an interrupt calls `irq(estat)`, which must acknowledge its source.
/// * The `#[panic_handler]`: prints `PANIC: <message>` and powers off.
///
/// # Linker script contract
///
/// Link at [`CACHED`]` | physical` (QEMU loads at the physical address), provide
/// `__stack_top` (16-byte aligned), `__sbss`, `__ebss` (8-byte aligned) and place
/// `.text.start` first.
#[macro_export]
macro_rules! loongarch_board {
    (name: $name:literal, console: $console:expr, main: $main:path, irq: $irq:path,
     power_off: $power_off:path $(,)?) => {
        /// Called from `_start` in paged mode with a stack and zeroed `.bss` (generated by
        /// `loongarch_board!`).
        #[unsafe(no_mangle)]
        extern "C" fn __fw_la_main() -> ! {
            $crate::println!($console, "timer-family firmware: {}", $name);
            let main: fn() -> bool = $main;
            let ok = main();
            $crate::loongarch::finish($console, ok, $power_off)
        }

        /// Called from the exception entry with interrupts off (generated by
        /// `loongarch_board!`).
        #[unsafe(no_mangle)]
        extern "C" fn __fw_la_trap() {
            let estat = $crate::loongarch::estat();
            if (estat >> 16) & 0x3f != 0 {
                $crate::println!(
                    $console,
                    "PANIC: exception ESTAT = {:#x}, ERA = {:#x}, BADV = {:#x}",
                    estat,
                    $crate::loongarch::era(),
                    $crate::loongarch::badv()
                );
                let off: fn() -> ! = $power_off;
                off();
            }
            let irq: fn(u64) = $irq;
            irq(estat)
        }

        /// Called from the TLB refill entry, in direct-address mode (generated by
        /// `loongarch_board!`): an access outside the two windows.
        #[unsafe(no_mangle)]
        extern "C" fn __fw_la_tlb_refill() -> ! {
            let badv: u64;
            // SAFETY: reading TLBRBADV (CSR 0x89) has no side effects; PLV0.
            unsafe { core::arch::asm!("csrrd {}, 0x89", out(reg) badv, options(nomem, nostack)) };
            $crate::println!($console, "PANIC: TLB refill (unmapped address {:#x})", badv);
            let off: fn() -> ! = $power_off;
            off()
        }

        #[panic_handler]
        fn __fw_la_panic(info: &core::panic::PanicInfo<'_>) -> ! {
            $crate::print_panic($console, info);
            let off: fn() -> ! = $power_off;
            off()
        }

        core::arch::global_asm!(
            r#"
    .section .text.start, "ax"
    .global _start
    .type _start, @function
_start:
    li.w        $t0, 1
    csrwr       $t0, 0x2            # EUEN.FPE = 1: the target is hard-float
    li.d        $t0, 0x8000000000000001
    csrwr       $t0, 0x180          # DMW0: 0x8000... -> devices, strongly-ordered uncached
    li.d        $t0, 0x9000000000000011
    csrwr       $t0, 0x181          # DMW1: 0x9000... -> RAM, coherent cached
    la.pcrel    $t0, __fw_la_tlbrentry
    csrwr       $t0, 0x88           # TLBRENTRY: a physical address (taken in DA mode)
    la.pcrel    $t0, 1f             # still the physical alias: make it the linked address
    lu52i.d     $t0, $t0, -1792     # bits 63:52 = 0x900
    jirl        $zero, $t0, 0
1:  li.w        $t0, 0xb0
    csrwr       $t0, 0x0            # CRMD: PLV0, IE = 0, PG = 1, DATF = DATM = cached
    la.pcrel    $sp, __stack_top
    la.pcrel    $t0, __sbss         # zero .bss, 8 bytes at a time
    la.pcrel    $t1, __ebss
2:  bgeu        $t0, $t1, 3f
    st.d        $zero, $t0, 0
    addi.d      $t0, $t0, 8
    b           2b
3:  la.pcrel    $t0, __fw_la_eentry
    csrwr       $t0, 0xc            # EENTRY (ECFG.VS = 0: one entry for everything)
    bl          __fw_la_main
4:  idle        0
    b           4b

    .section .text.fw_la_tlbrentry, "ax"
    .balign 4096
    .global __fw_la_tlbrentry
__fw_la_tlbrentry:
    la.pcrel    $sp, __stack_top    # direct-address mode: a physical stack is fine
    bl          __fw_la_tlb_refill
5:  idle        0
    b           5b
"#
        );

        $crate::loongarch_trap_entry!(__fw_la_trap);
    };
}

/// Defines `__fw_la_eentry`, the exception and interrupt entry of a LoongArch64 firmware,
/// calling `handler` (an `extern "C" fn()`) between saving and restoring the interrupted
/// context. [`loongarch_board!`](crate::loongarch_board) uses it; a firmware with entry code
/// of its own (`loongarch-virt`, which stays in direct-address mode) invokes it once and
/// points EENTRY (CSR `0xc`) at `__fw_la_eentry`, which the expansion also declares:
///
/// ```ignore
/// fw_common::loongarch_trap_entry!(la_trap);
/// let entry = __fw_la_eentry as *const () as usize; // for `csrwr entry, 0xc`
/// ```
///
/// # The frame: what is saved, what is not
///
/// With ECFG.VS = 0 every exception and interrupt enters at EENTRY, with CRMD.IE cleared by
/// the hardware (PRMD keeps the old PLV and IE) and the interrupted PC in ERA. The entry is 4
/// KiB aligned (EENTRY ignores its low 12 bits) and
///
/// * **saves** every general register the LoongArch psABI lets a called function clobber:
///   `$ra`, `$tp`, `$a0`–`$a7`, `$t0`–`$t8`, plus `$r21` (reserved by the ABI; saved to be
///   safe), 20 doublewords in a 160-byte frame on the interrupted stack (the psABI has no red
///   zone, so moving `$sp` down is safe at any point);
/// * **does not save** `$s0`–`$s8` and `$fp`, which `handler`, an `extern "C"` function,
///   preserves itself (`$sp` comes back by the frame arithmetic), nor any CSR: ERA and PRMD
///   are what `ertn` returns through, so an exception taken inside the handler would
///   overwrite them (handlers run with interrupts off and must not fault);
/// * **does not save any floating-point register or FCSR**: a handler must not use floating
///   point (the target is hard-float, so check the handler's code with `llvm-objdump` if it
///   does anything numeric), and neither may anything it calls;
/// * returns with `ertn`, which restores CRMD.PLV/IE from PRMD and jumps to ERA (an
///   interrupt resumes the interrupted instruction; an exception handler that returns
///   re-executes the faulting one, so the boards' handlers never return from one).
#[macro_export]
macro_rules! loongarch_trap_entry {
    ($handler:path) => {
        unsafe extern "C" {
            /// The exception entry (generated by `fw_common::loongarch_trap_entry!`): 4 KiB
            /// aligned, the value for EENTRY.
            fn __fw_la_eentry();
        }

        core::arch::global_asm!(
            r#"
    .section .text.fw_la_eentry, "ax"
    .balign 4096
    .global __fw_la_eentry
    .type __fw_la_eentry, @function
__fw_la_eentry:
    addi.d      $sp, $sp, -160
    st.d        $ra, $sp, 0
    st.d        $tp, $sp, 8
    st.d        $a0, $sp, 16
    st.d        $a1, $sp, 24
    st.d        $a2, $sp, 32
    st.d        $a3, $sp, 40
    st.d        $a4, $sp, 48
    st.d        $a5, $sp, 56
    st.d        $a6, $sp, 64
    st.d        $a7, $sp, 72
    st.d        $t0, $sp, 80
    st.d        $t1, $sp, 88
    st.d        $t2, $sp, 96
    st.d        $t3, $sp, 104
    st.d        $t4, $sp, 112
    st.d        $t5, $sp, 120
    st.d        $t6, $sp, 128
    st.d        $t7, $sp, 136
    st.d        $t8, $sp, 144
    st.d        $r21, $sp, 152
    bl          {handler}
    ld.d        $ra, $sp, 0
    ld.d        $tp, $sp, 8
    ld.d        $a0, $sp, 16
    ld.d        $a1, $sp, 24
    ld.d        $a2, $sp, 32
    ld.d        $a3, $sp, 40
    ld.d        $a4, $sp, 48
    ld.d        $a5, $sp, 56
    ld.d        $a6, $sp, 64
    ld.d        $a7, $sp, 72
    ld.d        $t0, $sp, 80
    ld.d        $t1, $sp, 88
    ld.d        $t2, $sp, 96
    ld.d        $t3, $sp, 104
    ld.d        $t4, $sp, 112
    ld.d        $t5, $sp, 120
    ld.d        $t6, $sp, 128
    ld.d        $t7, $sp, 136
    ld.d        $t8, $sp, 144
    ld.d        $r21, $sp, 152
    addi.d      $sp, $sp, 160
    ertn

"#,
            handler = sym $handler,
        );
    };
}

/// Ends the run: prints `done` or `FAILED` and calls `power_off`. For a firmware whose main
/// never returns (an executor), called by its last task.
pub fn finish<C: crate::Console + Copy>(console: C, ok: bool, power_off: fn() -> !) -> ! {
    crate::println!(console, "{}", if ok { "done" } else { "FAILED" });
    power_off()
}
