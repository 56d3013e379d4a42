//! Per-CPU ownership: values bound to one CPU's registers.
//!
//! On a multi-core SoC some timer registers belong to one CPU:
//!
//! - **banked** registers answer at one address with a different copy per CPU (the
//!   Cortex-A9 global timer's comparator, a LoongArch core's timer CSRs): code running on
//!   CPU 1 that uses CPU 0's handle programs CPU 1's copy;
//! - **routed** registers are one copy, reachable from every CPU, whose interrupt reaches
//!   one CPU only (an Exynos 4412 MCT local timer on its PPI, an Otto timer pinned to its
//!   CPU): armed from CPU 1, CPU 0's timer interrupts CPU 0 for a wake CPU 1 wanted.
//!
//! A driver type for such registers implements [`CpuLocal`]; it is then neither `Send`
//! nor `Sync` on its own, or is `Send` only because it must be bound. [`CpuBound`] binds it
//! to one CPU: every access first reads the current CPU's number ([`CurrentCpu`]) and, on
//! any other CPU, touches nothing and returns [`Error::WrongCpu`]. A bound value is `Send`
//! and `Sync`, so it can be a `static` (a runtime's time driver, a handler's alarm) shared
//! by every core, and no core can ever reach another core's registers through it.
//!
//! The check costs one read of the CPU-number register and a compare per call.
//!
//! | ISA | [`NativeCpu`] reads |
//! |---|---|
//! | ARMv7-A / ARMv8-A | MPIDR `Aff0` (bits 7:0) |
//! | LoongArch64 | CSR CPUID (`CoreID`, bits 8:0) |
//! | MIPS32 | not provided: inline assembly is unstable on MIPS in Rust, so the firmware
//! |  | implements [`CurrentCpu`] with its own `mfc0 $15, 1` (EBase `CPUNum`, bits 9:0) |
//! | ARMv7-M | always 0 (single core) |
//!
//! On the host, `sim::SimCpu` (feature `sim`) plays the CPU number of the calling thread,
//! so tests run two threads as two cores.

use crate::clockevent::{Capabilities, ClockEvent};
use crate::error::{CpuMismatch, Error};

/// Tells which CPU the caller runs on.
pub trait CurrentCpu {
    /// The number of the CPU executing this call (the same numbering the driver's CPU maps
    /// use: MPIDR `Aff0` on Arm, `CPUID.CoreID` on LoongArch, `EBase.CPUNum` on MIPS).
    fn current_cpu(&self) -> u32;
}

/// A driver type whose registers belong to one CPU (banked, or routed to one CPU's
/// interrupt input): see the [module docs](self).
///
/// # Safety
///
/// Implementing it asserts that moving a value of the type to another thread, or sharing a
/// reference, is sound **as long as every method that touches registers runs on one CPU
/// only** (the one [`CpuBound`] checks): the type holds no reference into thread-local
/// data and nothing else ties it to the thread that made it. [`CpuBound`] calls two of its
/// `&self` methods on any CPU, possibly on several at once: `ClockEvent::capabilities`
/// (where the type is a clockevent) and `Debug::fmt` (where it is `Debug`); both must touch
/// no register and change nothing (no interior mutability). It calls
/// [`drop_elsewhere`](Self::drop_elsewhere) on a CPU other than the owner's.
pub unsafe trait CpuLocal: Sized {
    /// The value is dropped on a CPU other than the one it is bound to: give back what it
    /// holds that is not a register (a claim on its channel, a slot), and touch **no
    /// register** (they are another CPU's, or route to another CPU). The default forgets
    /// the value whole: nothing is released, and a claim it held stays taken.
    #[inline]
    fn drop_elsewhere(self) {
        core::mem::forget(self);
    }
}

/// The CPU-number register of the core this runs on (see the [module docs](self)).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct NativeCpu;

impl NativeCpu {
    /// Access to the CPU-number register.
    ///
    /// # Safety
    ///
    /// The caller runs at the privilege that can read it: PL1 or higher on ARMv7-A
    /// (MPIDR), EL1 on ARMv8-A, PLV0 on LoongArch. At a lower
    /// level the read raises an exception.
    pub const unsafe fn new() -> Self {
        NativeCpu
    }
}

#[cfg(any(
    all(target_arch = "arm", not(target_feature = "mclass")),
    target_arch = "aarch64",
    target_arch = "loongarch64",
))]
#[allow(
    unsafe_code,
    reason = "the CPU-number register read: the asm block carries its SAFETY comment"
)]
impl CurrentCpu for NativeCpu {
    #[inline]
    fn current_cpu(&self) -> u32 {
        let id: usize;
        // SAFETY: a read of the CPU-number register with no side effect, at the privilege
        // `NativeCpu::new`'s caller guarantees. Not `nomem`: the compiler must not move it
        // across the memory accesses (a lock, a migration point) it is ordered with.
        unsafe {
            #[cfg(target_arch = "arm")]
            core::arch::asm!("mrc p15, 0, {0}, c0, c0, 5", out(reg) id, options(nostack, preserves_flags));
            #[cfg(target_arch = "aarch64")]
            core::arch::asm!("mrs {0}, mpidr_el1", out(reg) id, options(nostack, preserves_flags));
            #[cfg(target_arch = "loongarch64")]
            core::arch::asm!("csrrd {0}, 0x20", out(reg) id, options(nostack, preserves_flags));
        }
        #[cfg(any(target_arch = "arm", target_arch = "aarch64"))]
        let n = id & 0xFF;
        #[cfg(target_arch = "loongarch64")]
        let n = id & 0x1FF;
        n as u32
    }
}

#[cfg(all(target_arch = "arm", target_feature = "mclass"))]
impl CurrentCpu for NativeCpu {
    /// ARMv7-M parts of this family are single-core.
    #[inline]
    fn current_cpu(&self) -> u32 {
        0
    }
}

impl<T: CurrentCpu + ?Sized> CurrentCpu for &T {
    #[inline]
    fn current_cpu(&self) -> u32 {
        (**self).current_cpu()
    }
}

/// A [`CpuLocal`] value bound to one CPU: usable there only, `Send` and `Sync` (see the
/// [module docs](self)).
///
/// Dropped on its own CPU it drops the value (which quiets its timer, where the driver's
/// `Drop` does that); dropped on another CPU it hands the value to
/// [`CpuLocal::drop_elsewhere`] instead of running its `Drop` (which would write registers
/// from the wrong CPU): the driver gives its claim back there, so the channel can be taken
/// again, and its timer is left as it was until then.
pub struct CpuBound<T: CpuLocal, C: CurrentCpu> {
    /// Always `Some` until `into_inner` or `drop` takes it.
    inner: Option<T>,
    owner: u32,
    cpu: C,
}

impl<T: CpuLocal, C: CurrentCpu> CpuBound<T, C> {
    /// Bind `inner` to the CPU this runs on.
    pub fn new(inner: T, cpu: C) -> Self {
        let owner = cpu.current_cpu();
        Self {
            inner: Some(inner),
            owner,
            cpu,
        }
    }

    /// Bind `inner` to CPU `owner`, from any CPU (for routed registers set up by the boot
    /// CPU for each CPU's timer, such as an MCT local timer per the CPU map).
    pub fn bind(inner: T, owner: u32, cpu: C) -> Self {
        Self {
            inner: Some(inner),
            owner,
            cpu,
        }
    }

    /// The CPU this value is bound to.
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// `Ok` on the owning CPU, [`Error::WrongCpu`] elsewhere (one CPU-number read).
    #[inline]
    pub fn check(&self) -> Result<(), Error> {
        let current = self.cpu.current_cpu();
        if current == self.owner {
            Ok(())
        } else {
            Err(Error::WrongCpu(CpuMismatch::new(self.owner, current)))
        }
    }

    /// Run `f` on the value, on the owning CPU only; [`Error::WrongCpu`] elsewhere, with
    /// `f` not called.
    #[inline]
    pub fn with<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> Result<R, Error> {
        self.check()?;
        match self.inner.as_mut() {
            Some(t) => Ok(f(t)),
            None => Err(Error::Unsupported),
        }
    }

    /// Give the value back, on the owning CPU only (elsewhere the bound value comes back).
    pub fn into_inner(mut self) -> Result<T, Self> {
        if self.check().is_err() {
            return Err(self);
        }
        self.inner.take().ok_or(self)
    }
}

impl<T: CpuLocal, C: CurrentCpu> Drop for CpuBound<T, C> {
    fn drop(&mut self) {
        if self.check().is_err()
            && let Some(t) = self.inner.take()
        {
            t.drop_elsewhere();
        }
    }
}

/// The owner, and the value only on its own CPU (elsewhere its `Debug` would still be
/// sound, by [`CpuLocal`]'s contract, but shows another CPU's channel).
impl<T: CpuLocal + core::fmt::Debug, C: CurrentCpu> core::fmt::Debug for CpuBound<T, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("CpuBound");
        d.field("owner", &self.owner);
        match (self.check(), self.inner.as_ref()) {
            (Ok(()), Some(t)) => d.field("inner", t),
            _ => d.field("inner", &format_args!("<on CPU {}>", self.owner)),
        };
        d.finish()
    }
}

#[allow(
    unsafe_code,
    reason = "the per-CPU check makes moving and sharing a bound value sound"
)]
mod bound_is_send_sync {
    use super::{CpuBound, CpuLocal, CurrentCpu};

    // SAFETY: `T: CpuLocal` promises that moving `T` is sound as long as it touches
    // registers on one CPU only. Every path of `CpuBound` to the value through `&mut` or
    // by value (`with`, `into_inner`, the `ClockEvent` methods but `capabilities`, `drop`)
    // first compares the current CPU with `owner` and goes on only there; elsewhere `drop`
    // hands the value to `CpuLocal::drop_elsewhere`, which touches no register by that
    // trait's contract, and the others touch nothing. `C` is the one other field and must
    // be `Send` itself.
    unsafe impl<T: CpuLocal, C: CurrentCpu + Send> Send for CpuBound<T, C> {}
    // SAFETY: through `&CpuBound` these are reachable, on any CPU and on several at once:
    // `owner` and `check` (they read `owner` and, through `&C`, the CPU-number register;
    // so `C` must be `Sync`), `ClockEvent::capabilities` (calls `T::capabilities` through
    // `&T` on any CPU, without a check) and `Debug` (calls `T`'s `Debug` through `&T`, on
    // the owning CPU only). `CpuLocal`'s contract makes those two `&T` calls sound from
    // any CPU and concurrently: they touch no register and change nothing. Nothing else
    // of `T` is reachable through `&CpuBound`.
    unsafe impl<T: CpuLocal, C: CurrentCpu + Sync> Sync for CpuBound<T, C> {}
}

/// The wrapped clockevent on its own CPU; elsewhere every call touches nothing.
impl<T: CpuLocal + ClockEvent, C: CurrentCpu> ClockEvent for CpuBound<T, C> {
    /// The value's own (no register read, no CPU check).
    fn capabilities(&self) -> Capabilities {
        match self.inner.as_ref() {
            Some(t) => t.capabilities(),
            // Unreachable: only `into_inner` and `drop` take the value, and both consume it.
            None => Capabilities {
                freq_hz: 0,
                min_delta: 0,
                max_delta: 0,
                periodic: false,
                phase_locked: false,
                absolute: false,
            },
        }
    }

    /// Errors: [`Error::WrongCpu`] on another CPU; the value's own.
    #[inline]
    fn set_next_event(&mut self, delta: u64) -> Result<(), Error> {
        self.with(|t| t.set_next_event(delta))?
    }

    /// Errors: [`Error::WrongCpu`] on another CPU; the value's own.
    #[inline]
    fn set_compare(&mut self, at: u64) -> Result<(), Error> {
        self.with(|t| t.set_compare(at))?
    }

    /// Errors: [`Error::WrongCpu`] on another CPU; the value's own.
    fn set_periodic(&mut self, period: u64) -> Result<(), Error> {
        self.with(|t| t.set_periodic(period))?
    }

    /// On the owning CPU only; elsewhere nothing is touched.
    fn shutdown(&mut self) {
        let _ = self.with(|t| t.shutdown());
    }

    /// On the owning CPU only; elsewhere `false` (that CPU's event is not this one).
    #[inline]
    fn ack(&mut self) -> bool {
        self.with(|t| t.ack()).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::sim::SimCpu;

    #[derive(Debug, Default)]
    struct Bank {
        armed: u32,
    }
    // SAFETY: test type, no registers.
    #[allow(unsafe_code, reason = "test type")]
    unsafe impl CpuLocal for Bank {}
    impl ClockEvent for Bank {
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                freq_hz: 1,
                min_delta: 1,
                max_delta: 10,
                periodic: false,
                phase_locked: false,
                absolute: false,
            }
        }
        fn set_next_event(&mut self, _delta: u64) -> Result<(), Error> {
            self.armed += 1;
            Ok(())
        }
        fn set_compare(&mut self, _at: u64) -> Result<(), Error> {
            self.armed += 10;
            Ok(())
        }
        fn shutdown(&mut self) {}
        fn ack(&mut self) -> bool {
            true
        }
    }

    /// A channel with a claim (as a driver hands a timer out once) and registers (the
    /// writes its `Drop` makes).
    #[derive(Debug)]
    struct Claimed<'a> {
        claimed: &'a std::sync::atomic::AtomicBool,
        writes: &'a std::sync::atomic::AtomicU32,
    }
    // SAFETY: test type; `drop_elsewhere` touches no "register".
    #[allow(unsafe_code, reason = "test type")]
    unsafe impl CpuLocal for Claimed<'_> {
        fn drop_elsewhere(self) {
            self.claimed
                .store(false, std::sync::atomic::Ordering::Relaxed);
            core::mem::forget(self);
        }
    }
    impl Drop for Claimed<'_> {
        fn drop(&mut self) {
            use std::sync::atomic::Ordering::Relaxed;
            self.writes.fetch_add(1, Relaxed);
            self.claimed.store(false, Relaxed);
        }
    }

    /// Dropped on its own CPU the value's `Drop` runs (it quiets its registers); on another
    /// CPU only `drop_elsewhere` does: the claim is given back, no register is written.
    #[test]
    fn a_bound_value_dropped_elsewhere_gives_its_claim_back_and_writes_nothing() {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
        let claimed = AtomicBool::new(true);
        let writes = AtomicU32::new(0);
        SimCpu::enter(1);
        drop(CpuBound::new(
            Claimed {
                claimed: &claimed,
                writes: &writes,
            },
            SimCpu,
        ));
        assert_eq!((claimed.load(Relaxed), writes.load(Relaxed)), (false, 1));
        claimed.store(true, Relaxed);
        let b = CpuBound::bind(
            Claimed {
                claimed: &claimed,
                writes: &writes,
            },
            1,
            SimCpu,
        );
        SimCpu::enter(0);
        assert!(format!("{b:?}").contains("<on CPU 1>"));
        drop(b);
        assert_eq!((claimed.load(Relaxed), writes.load(Relaxed)), (false, 1));
    }

    #[test]
    fn a_bound_value_refuses_other_cpus_and_touches_nothing() {
        SimCpu::enter(1);
        let mut b = CpuBound::new(Bank::default(), SimCpu);
        assert_eq!(b.owner(), 1);
        assert_eq!(b.set_next_event(3), Ok(()));
        // Every arm is forwarded, the absolute one too (not the trait's `Unsupported`).
        assert_eq!(b.set_compare(3), Ok(()));
        let b = std::thread::scope(|s| {
            s.spawn(move || {
                SimCpu::enter(0);
                assert_eq!(
                    b.set_next_event(3),
                    Err(Error::WrongCpu(CpuMismatch::new(1, 0)))
                );
                assert!(!b.ack());
                assert!(matches!(b.set_compare(3), Err(Error::WrongCpu(_))));
                b.into_inner().unwrap_err()
            })
            .join()
            .unwrap()
        });
        let mut b = b;
        assert!(b.ack());
        assert_eq!(b.into_inner().map(|t| t.armed).ok(), Some(11));
    }
}
