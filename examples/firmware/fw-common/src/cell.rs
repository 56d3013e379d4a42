//! Statics for firmware: a value initialised at run time that lives forever
//! ([`StaticCell`]), and a value shared between the main program and an interrupt handler
//! ([`CsCell`]).
//!
//! Neither needs `unsafe` in the firmware, and neither is made `Sync` by an `unsafe impl` of
//! this crate: both keep their value in a `critical_section::Mutex`, which is `Sync` for any
//! `Send` value. Driver state is `Send` because `hwtimer_core::Mmio` is `Sync` (concurrent
//! volatile accesses to device registers are not data races; see its `SAFETY` comment) and
//! per-core timers come pinned to their core (`loongarch_timer::pinned`). The board provides
//! the `critical-section` implementation that masks its interrupts
//! ([`critical_section_impl!`](crate::critical_section_impl)).
//!
//! [`StaticCell`] does what the `static_cell` crate does, with a critical section instead
//! of an atomic compare-and-swap: on ARMv7 that would be LDREX/STREX, which the architecture
//! leaves unpredictable on the strongly-ordered memory of a core running with its MMU off,
//! as the boards without an executor do.

use core::cell::{Cell, RefCell, UnsafeCell};
use core::mem::MaybeUninit;

use critical_section::Mutex;

/// Storage for a value created at run time that must then be borrowed for `'static`, such as
/// a driver whose parts borrow it and are handed to an interrupt handler, or an executor.
///
/// [`init`](Self::init) succeeds once; the flag is checked and set inside a critical section.
pub struct StaticCell<T> {
    taken: Mutex<Cell<bool>>,
    value: Mutex<UnsafeCell<MaybeUninit<T>>>,
}

impl<T> StaticCell<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        Self {
            taken: Mutex::new(Cell::new(false)),
            value: Mutex::new(UnsafeCell::new(MaybeUninit::uninit())),
        }
    }

    /// Stores `value` and returns the only reference to it, or gives `value` back when the
    /// cell was already initialised.
    #[expect(
        clippy::mut_from_ref,
        reason = "the `taken` flag, set in a critical section, makes the `&mut` unique"
    )]
    pub fn try_init(&'static self, value: T) -> Result<&'static mut T, T> {
        let slot = critical_section::with(|cs| {
            let first = !self.taken.borrow(cs).replace(true);
            first.then(|| self.value.borrow(cs).get())
        });
        let Some(slot) = slot else {
            return Err(value);
        };
        // SAFETY: `taken` was false, so no reference to the value exists yet, and it is now
        // true, so no later call gets here: this `&mut` is the only one there will ever be.
        // The storage is `'static`, so the pointer stays valid after the critical section.
        // Handing it to another context needs `T: Send`, which `Mutex` requires for the cell
        // to be `Sync` at all.
        let slot = unsafe { &mut *slot };
        Ok(slot.write(value))
    }

    /// Stores `value` and returns the only reference to it; panics when called twice.
    pub fn init(&'static self, value: T) -> &'static mut T {
        match self.try_init(value) {
            Ok(r) => r,
            Err(_) => panic!("StaticCell initialised twice"),
        }
    }
}

impl<T> Default for StaticCell<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A `RefCell` that can be a `static` shared by the main program and interrupt handlers,
/// borrowed only inside a critical section: a `critical_section::Mutex<RefCell<T>>` with a
/// borrow that cannot panic.
pub struct CsCell<T> {
    inner: Mutex<RefCell<T>>,
}

impl<T> CsCell<T> {
    /// Wraps `value`.
    pub const fn new(value: T) -> Self {
        Self {
            inner: Mutex::new(RefCell::new(value)),
        }
    }

    /// Runs `f` on the value inside a critical section. Returns `None` (without calling `f`)
    /// when the value is already borrowed, i.e. when called from inside another `with` on
    /// the same cell.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        critical_section::with(|cs| {
            let mut value = self.inner.borrow(cs).try_borrow_mut().ok()?;
            Some(f(&mut value))
        })
    }
}
