//! The control and status registers (CSRs) the constant timer lives in, and the [`Csr`]
//! access trait: real `csrrd`/`csrwr`/`csrxchg`/`cpucfg`/`rdtime.d` instructions on
//! `loongarch64` (`NativeCsr`), the behavioural model everywhere else (`crate::sim`,
//! feature `sim`).
//!
//! # Sources
//!
//! CSR numbers and fields: `torvalds/linux arch/loongarch/include/asm/loongarch.h`
//! (summarised in `docs/loongarch-timer.md#csrs`). Names follow Linux
//! (`LOONGARCH_CSR_TCFG`, `CSR_TCFG_EN`, `CSR_TINTCLR_TI`, ...) so a reader can
//! cross-check. Every CSR is 64 bits wide on LA64.
//!
//! # CSRs as a register bus
//!
//! A CSR is named by a 14-bit number encoded as an **immediate** in the instruction, so
//! a CSR cannot be reached through a pointer. The family's
//! [`RegisterBus`] abstraction still fits: the "offset" is the CSR number and the word is
//! `u64`, so the typed tock-registers field API ([`RegisterBusExt`](hwtimer_core::RegisterBusExt))
//! works unchanged:
//!
//! ```
//! use loongarch_timer::csr::{CSR_TCFG, TCFG};
//! use hwtimer_core::tock_registers::LocalRegisterCopy;
//!
//! assert_eq!(CSR_TCFG.offset(), 0x41);
//! // A oneshot of 1000 ticks, as the driver writes it: InitVal holds the count / 4.
//! let v = TCFG::EN::SET + TCFG::INITVAL.val(1000 >> 2);
//! assert_eq!(v.value, 1000 | 1);
//! let tcfg: LocalRegisterCopy<u64, TCFG::Register> = LocalRegisterCopy::new(v.value);
//! assert_eq!(tcfg.read(TCFG::INITVAL) << 2, 1000);
//! assert!(!tcfg.is_set(TCFG::PERIODIC));
//! ```
//!
//! [`Csr`] adds the two non-CSR instructions the timer needs: `cpucfg` (frequency
//! discovery) and `rdtime.d` (the clocksource).
//!
//! # Per core: not `Send`, not `Sync`
//!
//! Every CSR, the stable counter and the constant timer belong to the core that executes
//! the instruction. A value built on them is only meaningful on the core that created it,
//! so `NativeCsr`, [`ConstantTimer`](crate::ConstantTimer) and
//! [`StableCounter`](crate::StableCounter) are neither `Send` nor `Sync`, whatever CSR
//! backend they hold: safe code cannot move one to another thread, or share a reference
//! with one, and so cannot end up programming core 1's timer from a value set up on core
//! 0. A firmware that keeps one in a `static` (a `critical_section::Mutex` needs `Send`)
//! states with its own `unsafe impl Send` on a wrapper that it runs on one core only;
//! `examples/firmware/loongarch-virt` shows it.
//!
//! Even a CSR backend that is itself `Send` does not make the timer `Send`:
//!
//! ```compile_fail,E0277
//! # use loongarch_timer::{Config, ConstantClock, ConstantTimer, Csr};
//! # use hwtimer_core::RegisterBus;
//! # #[derive(Clone)]
//! # struct AnyCore; // holds nothing, so it is Send and Sync
//! # impl RegisterBus for AnyCore {
//! #     type Word = u64;
//! #     fn read_word(&self, _: usize) -> u64 { 0 }
//! #     fn write_word(&self, _: usize, _: u64) {}
//! # }
//! # impl Csr for AnyCore {
//! #     fn cpucfg(&self, _: u32) -> u32 { 0 }
//! #     fn rdtime(&self) -> u64 { 0 }
//! # }
//! fn to_another_core<T: Send>(_: T) {}
//! let clock = ConstantClock::from_words(1 << 14, 100_000_000, 0x0001_0001).unwrap();
//! let timer = ConstantTimer::new(AnyCore, clock, Config::default()).unwrap();
//! to_another_core(timer); // error[E0277]: `*const ()` cannot be sent between threads safely
//! ```
//!
//! nor can a [`StableCounter`](crate::StableCounter) be shared by reference:
//!
//! ```compile_fail,E0277
//! # use loongarch_timer::{ConstantClock, Csr, StableCounter};
//! # use hwtimer_core::RegisterBus;
//! # #[derive(Clone)]
//! # struct AnyCore;
//! # impl RegisterBus for AnyCore {
//! #     type Word = u64;
//! #     fn read_word(&self, _: usize) -> u64 { 0 }
//! #     fn write_word(&self, _: usize, _: u64) {}
//! # }
//! # impl Csr for AnyCore {
//! #     fn cpucfg(&self, _: u32) -> u32 { 0 }
//! #     fn rdtime(&self) -> u64 { 0 }
//! # }
//! fn to_another_core<T: Send>(_: T) {}
//! let clock = ConstantClock::from_words(1 << 14, 100_000_000, 0x0001_0001).unwrap();
//! let counter = StableCounter::new(AnyCore, clock);
//! to_another_core(&counter); // error[E0277]: `*const ()` cannot be shared between threads safely
//! ```
//!
//! while the same code with the backend alone compiles (so the two examples above fail
//! for the marker, not for anything else):
//!
//! ```
//! # use loongarch_timer::{Config, ConstantClock, ConstantTimer, Csr, StableCounter};
//! # use hwtimer_core::RegisterBus;
//! # #[derive(Clone)]
//! # struct AnyCore;
//! # impl RegisterBus for AnyCore {
//! #     type Word = u64;
//! #     fn read_word(&self, _: usize) -> u64 { 0 }
//! #     fn write_word(&self, _: usize, _: u64) {}
//! # }
//! # impl Csr for AnyCore {
//! #     fn cpucfg(&self, _: u32) -> u32 { 0 }
//! #     fn rdtime(&self) -> u64 { 0 }
//! # }
//! fn to_another_core<T: Send>(_: T) {}
//! let clock = ConstantClock::from_words(1 << 14, 100_000_000, 0x0001_0001).unwrap();
//! let timer = ConstantTimer::new(AnyCore, clock, Config::default()).unwrap();
//! let counter = StableCounter::new(AnyCore, clock);
//! to_another_core(AnyCore);
//! to_another_core(&AnyCore);
//! # let _ = (timer, counter);
//! ```
//!
//! `NativeCsr` exists only on `loongarch64`, so its own check is a compile-time assertion
//! in this module that every `loongarch64` build (`cargo xtask cross`) evaluates.

use core::marker::PhantomData;

use hwtimer_core::{Reg, RegisterBus};
use tock_registers::register_bitfields;

register_bitfields![u64,
    /// `LOONGARCH_CSR_CRMD` (0x0): current mode.
    #[allow(missing_docs)]
    pub CRMD [
        /// `CSR_CRMD_PLV`: privilege level, 0 = kernel.
        PLV OFFSET(0) NUMBITS(2) [],
        /// `CSR_CRMD_IE`: global interrupt enable.
        IE OFFSET(2) NUMBITS(1) [],
        /// `CSR_CRMD_DA`: direct address translation mode.
        DA OFFSET(3) NUMBITS(1) [],
        /// `CSR_CRMD_PG`: paged translation mode.
        PG OFFSET(4) NUMBITS(1) []
    ],
    /// `LOONGARCH_CSR_ECFG` (0x4): exception configuration.
    #[allow(missing_docs)]
    pub ECFG [
        /// `CSR_ECFG_IM`: local interrupt enable mask, one bit per interrupt number
        /// (the reference calls it LIE).
        LIE OFFSET(0) NUMBITS(13) [],
        /// The timer interrupt's enable bit, `LIE[11]`.
        LIE_TI OFFSET(11) NUMBITS(1) [],
        /// `CSR_ECFG_VS`: vector spacing; 0 sends every exception and interrupt to EENTRY.
        VS OFFSET(16) NUMBITS(3) []
    ],
    /// `LOONGARCH_CSR_ESTAT` (0x5): exception status.
    #[allow(missing_docs)]
    pub ESTAT [
        /// `CSR_ESTAT_IS`: pending interrupts, one bit per interrupt number. Only the two
        /// software-interrupt bits are writable.
        IS OFFSET(0) NUMBITS(13) [],
        /// The timer interrupt, `IS[11]` (`INT_TI`). Latched by the timer, cleared only
        /// through [`CSR_TICLR`].
        TI OFFSET(11) NUMBITS(1) [],
        /// `CSR_ESTAT_EXC`: exception code, 0 for interrupts.
        ECODE OFFSET(16) NUMBITS(6) [],
        /// `CSR_ESTAT_ESUBCODE`.
        ESUBCODE OFFSET(22) NUMBITS(9) []
    ],
    /// `LOONGARCH_CSR_PRCFG1` (0x21): privileged resource configuration 1.
    #[allow(missing_docs)]
    pub PRCFG1 [
        /// `CSR_CONF1_KSNUM`: number of KS scratch CSRs.
        KSNUM OFFSET(0) NUMBITS(4) [],
        /// `CSR_CONF1_TMRBITS`: timer width information. Whether it is the width or the
        /// width minus one is **unverified** (docs/loongarch-timer.md#csrs); the driver does not use it.
        TIMERBITS OFFSET(4) NUMBITS(8) []
    ],
    /// `LOONGARCH_CSR_TCFG` (0x41): timer configuration.
    #[allow(missing_docs)]
    pub TCFG [
        /// `CSR_TCFG_EN`: the timer counts down.
        EN OFFSET(0) NUMBITS(1) [],
        /// `CSR_TCFG_PERIOD`: reload InitVal on expiry instead of stopping.
        PERIODIC OFFSET(1) NUMBITS(1) [],
        /// `CSR_TCFG_VAL`, bits `[47:2]`: the initial count **divided by 4**. The low two bits
        /// of any count are implicitly zero, so the timer's granularity is 4 ticks.
        INITVAL OFFSET(2) NUMBITS(46) []
    ],
    /// `LOONGARCH_CSR_TINTCLR` (0x44), the reference's TICLR.
    #[allow(missing_docs)]
    pub TICLR [
        /// `CSR_TINTCLR_TI`: write 1 to clear the timer interrupt (ESTAT.TI).
        CLR OFFSET(0) NUMBITS(1) []
    ]
];

/// `LOONGARCH_CSR_CRMD`: current mode (PLV, IE, DA, PG).
pub const CSR_CRMD: Reg<u64, CRMD::Register> = Reg::new(0x0);
/// `LOONGARCH_CSR_PRMD`: mode before the last exception (restored by `ertn`).
pub const CSR_PRMD: Reg<u64> = Reg::new(0x1);
/// `LOONGARCH_CSR_EUEN`: extended unit enable (FPU, LSX, LASX, LBT).
pub const CSR_EUEN: Reg<u64> = Reg::new(0x2);
/// `LOONGARCH_CSR_ECFG`: interrupt enable mask and vector spacing.
pub const CSR_ECFG: Reg<u64, ECFG::Register> = Reg::new(0x4);
/// `LOONGARCH_CSR_ESTAT`: pending interrupts and exception code.
pub const CSR_ESTAT: Reg<u64, ESTAT::Register> = Reg::new(0x5);
/// `LOONGARCH_CSR_ERA`: exception return address.
pub const CSR_ERA: Reg<u64> = Reg::new(0x6);
/// `LOONGARCH_CSR_BADV`: faulting virtual address.
pub const CSR_BADV: Reg<u64> = Reg::new(0x7);
/// `LOONGARCH_CSR_EENTRY`: exception and interrupt entry base.
pub const CSR_EENTRY: Reg<u64> = Reg::new(0xc);
/// `LOONGARCH_CSR_CPUID`: core number.
pub const CSR_CPUID: Reg<u64> = Reg::new(0x20);
/// `LOONGARCH_CSR_PRCFG1`: KS count and timer width information.
pub const CSR_PRCFG1: Reg<u64, PRCFG1::Register> = Reg::new(0x21);
/// `LOONGARCH_CSR_TMID`: timer id.
pub const CSR_TMID: Reg<u64> = Reg::new(0x40);
/// `LOONGARCH_CSR_TCFG`: timer configuration (EN, PERIODIC, InitVal).
pub const CSR_TCFG: Reg<u64, TCFG::Register> = Reg::new(0x41);
/// `LOONGARCH_CSR_TVAL`: remaining count of the timer (read-only), counting down to 0.
pub const CSR_TVAL: Reg<u64> = Reg::new(0x42);
/// `LOONGARCH_CSR_CNTC`: counter compensation, a signed offset added to the stable
/// counter as `rdtime` reports it (QEMU TCG ignores it: docs/loongarch-timer.md#qemu-model).
pub const CSR_CNTC: Reg<u64> = Reg::new(0x43);
/// `LOONGARCH_CSR_TINTCLR` (TICLR): write bit 0 to clear the timer interrupt.
pub const CSR_TICLR: Reg<u64, TICLR::Register> = Reg::new(0x44);

/// The timer interrupt's number: its bit in ESTAT.IS and ECFG.LIE (`INT_TI`).
pub const INT_TI: u32 = 11;

/// Mask of the InitVal count inside TCFG (`CSR_TCFG_VAL`, bits `[47:2]`): the largest
/// count the timer can hold is `TCFG_VAL_MASK` itself, `2^48 - 4`.
pub const TCFG_VAL_MASK: u64 = 0x3FFF_FFFF_FFFF << 2;

/// Access to the CSRs of the current core, plus the `cpucfg` and `rdtime.d` instructions.
///
/// The [`RegisterBus`] part reads and writes CSRs by number (`offset` = CSR number,
/// `Word` = `u64`). Following the `RegisterBus` contract, a CSR the backend does not
/// provide reads as all ones and writes to it are dropped; nothing faults or panics.
///
/// Implementations: `NativeCsr` (loongarch64 only) and the model's `sim::SimCsr`
/// (feature `sim`).
pub trait Csr: RegisterBus<Word = u64> {
    /// Executes `cpucfg` for configuration word `word` (see [`crate::cpucfg`]). A word the
    /// core does not implement reads as 0.
    fn cpucfg(&self, word: u32) -> u32;
    /// Executes `rdtime.d`: the 64-bit stable counter (the counter id it also returns is
    /// discarded).
    fn rdtime(&self) -> u64;
}

/// A [`Csr`] backend that can write the calling core's CNTC (counter compensation): the
/// dedicated, `unsafe` path [`pinned::sync_counter`](crate::pinned::sync_counter) takes.
/// [`RegisterBus::write_word`] on `NativeCsr` drops CNTC writes, so safe code holding a
/// timer's CSRs cannot shift the time of every reader on the core.
pub trait CntcCsr: Csr {
    /// Write `value` into the calling core's CNTC: `rdtime.d` on this core reads the raw
    /// counter plus `value` from then on.
    ///
    /// # Safety
    ///
    /// As [`pinned::sync_counter`](crate::pinned::sync_counter): PLV0 on the core meant,
    /// and no reader of the counter on this core is hurt by the jump.
    #[allow(
        unsafe_code,
        reason = "the CNTC write is the unsafe CSR boundary: it shifts time for the whole core"
    )]
    unsafe fn write_cntc(&self, value: u64);
}

/// A zero-sized field that ties its holder to the core that created it: `*const ()` is
/// neither `Send` nor `Sync`, so neither is anything that holds a `PerCore`. See the
/// [module docs](self#per-core-not-send-not-sync).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PerCore(PhantomData<*const ()>);

impl PerCore {
    /// The marker.
    pub(crate) const HERE: Self = Self(PhantomData);
}

/// `CPUID.CoreID`, bits 8:0 (Linux `CSR_CPUID_COREID`).
const CORE_ID_MASK: u64 = 0x1FF;

/// The core the code runs on, as `csr` reports it (one CPUID read).
#[inline(always)]
pub(crate) fn core_id<C: Csr + ?Sized>(csr: &C) -> u64 {
    csr.read_word(CSR_CPUID.offset()) & CORE_ID_MASK
}

impl<C: Csr + ?Sized> Csr for &C {
    fn cpucfg(&self, word: u32) -> u32 {
        (**self).cpucfg(word)
    }
    fn rdtime(&self) -> u64 {
        (**self).rdtime()
    }
}

#[cfg(target_arch = "loongarch64")]
pub use native::NativeCsr;

#[cfg(target_arch = "loongarch64")]
#[allow(
    unsafe_code,
    reason = "the CSR boundary: each `asm!` block carries its own SAFETY comment"
)]
mod native {
    use super::{CSR_ECFG, CSR_TCFG, CSR_TICLR, Csr, ECFG, PerCore};
    use core::arch::asm;
    use hwtimer_core::RegisterBus;

    /// The CSRs of the core this code runs on, through real `csrrd`/`csrwr`/`csrxchg`,
    /// `cpucfg` and `rdtime.d` instructions.
    ///
    /// A CSR number is an immediate in the instruction, so every CSR this backend knows
    /// is mapped to its own instruction (no computed CSR access exists).
    ///
    /// # What it can touch
    ///
    /// - **Reads**: CRMD, PRMD, EUEN, ECFG, ESTAT, ERA, BADV, EENTRY, CPUID, PRCFG1, TMID,
    ///   TCFG, TVAL, CNTC, TICLR. Other numbers read as all ones.
    /// - **Writes**: TCFG and TICLR in full; ECFG **only its bit 11** (the timer's LIE
    ///   bit, written with `csrxchg` so no other bit can change even if an interrupt
    ///   handler modifies ECFG concurrently). Writes to anything else are dropped, so safe
    ///   code holding this value cannot change the translation mode, the exception entry
    ///   or the counter compensation. Firmware sets those up with its own instructions.
    ///
    /// # Per core
    ///
    /// Neither `Send` nor `Sync` (see the [module docs](super#per-core-not-send-not-sync)):
    /// safe code cannot hand it, or a timer built on it, to another thread.
    #[derive(Debug, Clone)]
    pub struct NativeCsr {
        _core: PerCore,
    }

    // Compile-time proof that `NativeCsr` is neither `Send` nor `Sync`: if it were, the
    // second impl of each trait would apply to it as well and the path would be ambiguous
    // (the technique of the `static_assertions` crate's `assert_not_impl_any!`).
    const _: fn() = || {
        trait AmbiguousIfSend<A> {
            fn some_item() {}
        }
        impl<T: ?Sized> AmbiguousIfSend<()> for T {}
        impl<T: ?Sized + Send> AmbiguousIfSend<u8> for T {}
        let _ = <NativeCsr as AmbiguousIfSend<_>>::some_item;

        trait AmbiguousIfSync<A> {
            fn some_item() {}
        }
        impl<T: ?Sized> AmbiguousIfSync<()> for T {}
        impl<T: ?Sized + Sync> AmbiguousIfSync<u8> for T {}
        let _ = <NativeCsr as AmbiguousIfSync<_>>::some_item;
    };

    impl NativeCsr {
        /// Access to this core's timer CSRs.
        ///
        /// # Safety
        ///
        /// - The code runs at privilege level 0 (CSR instructions raise an exception at
        ///   PLV3) on a LoongArch64 core.
        /// - This value and its clones are the only code that programs TCFG, clears the
        ///   timer interrupt through TICLR or changes ECFG bit 11 on this core, for as
        ///   long as any of them exists. Drivers built on it assume nobody else moves the
        ///   timer behind their back.
        /// - Values must not migrate to another core while in use (CSRs are per core).
        ///   The type system keeps safe code from moving them to another thread (the
        ///   value is neither `Send` nor `Sync`); code that moves an execution context
        ///   between cores by itself (its own scheduler) must still keep it on one core.
        pub const unsafe fn new() -> Self {
            Self {
                _core: PerCore::HERE,
            }
        }
    }

    macro_rules! csrrd {
        ($num:literal) => {{
            let value: u64;
            // SAFETY: `csrrd` of a CSR that exists on every LA64 core; reading it has no
            // side effect. `NativeCsr::new`'s caller guarantees PLV0, so it cannot trap.
            // Not `nomem`: a CSR read is ordered with the memory accesses around it (the
            // ESTAT.TI read after a handler's flag store, the CPUID read that a lock or a
            // published time depends on); `nomem` would let the compiler hoist or sink it
            // across them, or merge two reads of a CSR that changed in between.
            unsafe {
                asm!("csrrd {0}, {1}", out(reg) value, const $num, options(nostack, preserves_flags))
            };
            value
        }};
    }

    impl RegisterBus for NativeCsr {
        type Word = u64;

        // `always`: with a constant offset the match folds to the one CSR instruction; at
        // `opt-level = "s"` a plain hint left it an out-of-line dispatch (seen in
        // loongarch-virt-async's `Alarm` set).
        #[inline(always)]
        fn read_word(&self, offset: usize) -> u64 {
            match offset {
                0x0 => csrrd!(0x0),
                0x1 => csrrd!(0x1),
                0x2 => csrrd!(0x2),
                0x4 => csrrd!(0x4),
                0x5 => csrrd!(0x5),
                0x6 => csrrd!(0x6),
                0x7 => csrrd!(0x7),
                0xc => csrrd!(0xc),
                0x20 => csrrd!(0x20),
                0x21 => csrrd!(0x21),
                0x40 => csrrd!(0x40),
                0x41 => csrrd!(0x41),
                0x42 => csrrd!(0x42),
                0x43 => csrrd!(0x43),
                0x44 => csrrd!(0x44),
                _ => u64::MAX,
            }
        }

        // `always`: as for `read_word`.
        #[inline(always)]
        fn write_word(&self, offset: usize, value: u64) {
            const TCFG: usize = CSR_TCFG.offset();
            const TICLR: usize = CSR_TICLR.offset();
            const ECFG_NUM: usize = CSR_ECFG.offset();
            match offset {
                // SAFETY: `csrwr` to TCFG only (re)programs the constant timer, which
                // `NativeCsr::new`'s caller handed to this value; PLV0 is guaranteed. No
                // memory is accessed (`nomem` is not claimed so that the write stays
                // ordered with the surrounding memory accesses).
                TCFG => unsafe { asm!("csrwr {0}, 0x41", inout(reg) value => _, options(nostack)) },
                // SAFETY: as for TCFG; writing TICLR only clears the timer interrupt.
                TICLR => unsafe {
                    asm!("csrwr {0}, 0x44", inout(reg) value => _, options(nostack))
                },
                // SAFETY: `csrxchg` with mask = bit 11 changes only the timer's interrupt
                // enable bit, which this value owns. The mask is pinned to $t0 because
                // `csrxchg` with rj = $r0 or $r1 encodes `csrrd`/`csrwr` instead.
                ECFG_NUM => unsafe {
                    asm!(
                        "csrxchg {0}, $t0, 0x4",
                        inout(reg) value => _,
                        in("$t0") ECFG::LIE_TI.mask << ECFG::LIE_TI.shift,
                        options(nostack),
                    )
                },
                _ => {}
            }
        }
    }

    impl super::CntcCsr for NativeCsr {
        #[inline]
        unsafe fn write_cntc(&self, value: u64) {
            // SAFETY: `csrwr` to CNTC only changes the compensation `rdtime.d` adds on this
            // core; the caller's contract (`CntcCsr::write_cntc`) says PLV0 and that no
            // reader is hurt by the jump. Not `nomem`: it must stay ordered with the time
            // reads around it.
            unsafe { asm!("csrwr {0}, 0x43", inout(reg) value => _, options(nostack)) }
        }
    }

    // SAFETY: a `ConstantTimer<NativeCsr>` holds no reference to thread-local data: its
    // registers are the CSRs of whichever core executes its instructions. Run on one core
    // only (what `CpuBound` checks with CPUID through `NativeCpu`), it programs that core's
    // timer, the one `NativeCsr::new`'s caller handed to it.
    unsafe impl hwtimer_core::cpu::CpuLocal for crate::ConstantTimer<NativeCsr> {}

    impl Csr for NativeCsr {
        #[inline]
        fn cpucfg(&self, word: u32) -> u32 {
            let value: u64;
            // SAFETY: `cpucfg` only reads CPU identification data; unimplemented words
            // read as 0. It is allowed at every privilege level. `nomem` is kept: the words
            // are constant for the core's lifetime, so no ordering with memory matters.
            unsafe {
                asm!(
                    "cpucfg {0}, {1}",
                    out(reg) value,
                    in(reg) u64::from(word),
                    options(nomem, nostack),
                )
            };
            // CPUCFG words are 32 bits wide; the upper half of the register is not data.
            value as u32
        }

        #[inline]
        fn rdtime(&self) -> u64 {
            let value: u64;
            // SAFETY: `rdtime.d` only reads the stable counter (and its id, discarded). At
            // PLV0 it never traps, whatever MISC.DRDTL says. Not `nomem`: a time read must
            // stay between the memory accesses it is ordered with (a deadline stored before
            // the read, the published maximum after it, a timestamp taken before and after a
            // critical section); with `nomem` the compiler could move it across them or fold
            // two reads into one, and time would appear to stand still or run backwards.
            unsafe {
                asm!(
                    "rdtime.d {0}, {1}",
                    out(reg) value,
                    out(reg) _,
                    options(nostack, preserves_flags),
                )
            };
            value
        }
    }
}
