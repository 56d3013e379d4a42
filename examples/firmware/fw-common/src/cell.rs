//! Statics for single-core firmware: a value initialised at run time that lives forever
//! ([`StaticCell`]), and a value shared between the main program and an interrupt handler
//! ([`CsCell`]).
//!
//! Both rely on `critical-section`: the board provides an implementation that masks its
//! interrupts (on ARM, `cpsr-critical-section` of this crate).

use core::cell::{Cell, RefCell, UnsafeCell};
use core::mem::MaybeUninit;

use critical_section::Mutex;

/// Storage for a value created at run time that must then be borrowed for `'static`, such as
/// a driver whose parts borrow it and are handed to an interrupt handler.
///
/// [`init`](Self::init) succeeds once; the flag is checked and set inside a critical section.
pub struct StaticCell<T> {
    taken: Mutex<Cell<bool>>,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: the only access to `value` is through `init`, which hands out the single `&mut`
// exactly once (guarded by `taken` in a critical section). Moving that `&'static mut T` to
// another context requires `T: Send`.
unsafe impl<T: Send> Sync for StaticCell<T> {}

impl<T> StaticCell<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        Self {
            taken: Mutex::new(Cell::new(false)),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Stores `value` and returns the only reference to it, or gives `value` back when the
    /// cell was already initialised.
    #[expect(
        clippy::mut_from_ref,
        reason = "the `taken` flag, set in a critical section, makes the `&mut` unique"
    )]
    pub fn try_init(&'static self, value: T) -> Result<&'static mut T, T> {
        let first = critical_section::with(|cs| !self.taken.borrow(cs).replace(true));
        if !first {
            return Err(value);
        }
        // SAFETY: `taken` was false, so no reference to `value` exists yet, and it is now
        // true, so no later call reaches this line: this `&mut` is the only one, forever.
        let slot = unsafe { &mut *self.value.get() };
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

/// A `RefCell` that can be a `static` shared by the main program and interrupt handlers of a
/// **single-core** firmware, borrowed only inside a critical section.
///
/// Unlike `critical_section::Mutex<RefCell<T>>` it does not require `T: Send`. Driver parts
/// that borrow a memory-mapped block (`&Mct<Mmio>`) are not `Send`, because an MMIO window
/// is not `Sync`; on one core, with the handler excluded by masking interrupts, sharing them
/// is sound, and that is the promise [`new`](Self::new) asks for.
pub struct CsCell<T> {
    inner: RefCell<T>,
}

// SAFETY: `CsCell::new`'s contract: only one CPU ever runs code that reaches the cell, and
// every access happens in `with`, inside a critical section that excludes the interrupt
// handlers; so accesses never overlap, whatever `T` is.
unsafe impl<T> Sync for CsCell<T> {}

impl<T> CsCell<T> {
    /// Wraps `value`.
    ///
    /// # Safety
    ///
    /// Only one CPU may ever run code that accesses the cell (secondary CPUs parked, as the
    /// entry code of [`arm_board!`](crate::arm_board) does), and the `critical-section`
    /// implementation must exclude every interrupt handler that uses it.
    pub const unsafe fn new(value: T) -> Self {
        Self {
            inner: RefCell::new(value),
        }
    }

    /// Runs `f` on the value inside a critical section. Returns `None` (without calling `f`)
    /// when the value is already borrowed, i.e. when called from inside another `with` on
    /// the same cell.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        critical_section::with(|_cs| {
            let mut value = self.inner.try_borrow_mut().ok()?;
            Some(f(&mut value))
        })
    }
}
