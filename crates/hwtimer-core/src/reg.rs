//! Register access: one small abstraction so a driver runs on real MMIO and on the sim.
//!
//! A driver is generic over a [`RegisterBus`] (read and write a word at a byte offset)
//! and names its registers as typed constants, [`Reg<W, R>`], whose fields come from
//! tock-registers' `register_bitfields!`. [`RegisterBusExt`] then gives the familiar
//! field API on top of any bus:
//!
//! ```
//! use hwtimer_core::reg::{Reg, RegisterBusExt};
//! use hwtimer_core::sim::{SimBus, RegisterFile};
//! use hwtimer_core::sim::SimClock;
//! use tock_registers::register_bitfields;
//!
//! register_bitfields![u32,
//!     CTRL [
//!         ENABLE OFFSET(28) NUMBITS(1) [],
//!         DIVISOR OFFSET(0) NUMBITS(16) []
//!     ]
//! ];
//! const CTRL_REG: Reg<u32, CTRL::Register> = Reg::new(0x8);
//!
//! let clock = SimClock::new();
//! let bus = SimBus::new(&clock, RegisterFile::new(0x10));
//! bus.write(CTRL_REG, CTRL::ENABLE::SET + CTRL::DIVISOR.val(64));
//! assert_eq!(bus.read(CTRL_REG).read(CTRL::DIVISOR), 64);
//! assert_eq!(bus.read_raw(CTRL_REG), 0x1000_0040);
//! assert_eq!(bus.stats().writes, 1);
//! ```
//!
//! On hardware the bus is an [`Mmio`] window: volatile reads and writes through a raw
//! pointer, never a reference to device memory (a `&` to MMIO lets the compiler insert
//! reads, which is wrong for registers with read side effects). The Sim bus
//! (`sim::SimBus`, feature `sim`) routes the same accesses to a behavioural model.

use core::marker::PhantomData;

use tock_registers::fields::FieldValue;
use tock_registers::{LocalRegisterCopy, RegisterLongName, UIntLike};

/// Something registers can be read from and written to, by byte offset.
///
/// # Contract
/// `read` and `write` perform exactly one access of width `Word` each (no caching, no
/// merging, no reordering between accesses of one bus); an offset outside the block or
/// misaligned for `Word` must not fault or panic: reads return all ones, writes are
/// dropped (the behaviour of an unclaimed bus cycle on many SoCs).
pub trait RegisterBus {
    /// The access width.
    type Word: UIntLike;
    /// Read the word at byte `offset`.
    fn read_word(&self, offset: usize) -> Self::Word;
    /// Write the word at byte `offset`.
    fn write_word(&self, offset: usize, value: Self::Word);
}

impl<B: RegisterBus + ?Sized> RegisterBus for &B {
    type Word = B::Word;
    fn read_word(&self, offset: usize) -> Self::Word {
        (**self).read_word(offset)
    }
    fn write_word(&self, offset: usize, value: Self::Word) {
        (**self).write_word(offset, value)
    }
}

/// A sub-window of a bus: offsets are relative to `base`. Lets one channel of a block (a
/// timer of the Otto block, a local timer of the MCT) own a view of just its registers.
///
/// ```
/// use hwtimer_core::reg::{RegisterBus, Window};
/// use hwtimer_core::sim::{RegisterFile, SimBus, SimClock};
///
/// let bus = SimBus::new(&SimClock::new(), RegisterFile::new(0x40));
/// let timer1 = Window::new(&bus, 0x10);
/// timer1.write_word(0x8, 7);
/// assert_eq!(bus.read_word(0x18), 7);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Window<B: RegisterBus> {
    bus: B,
    base: usize,
}

impl<B: RegisterBus> Window<B> {
    /// The registers of `bus` from byte `base` on.
    pub const fn new(bus: B, base: usize) -> Self {
        Self { bus, base }
    }

    /// The window's base offset in the parent bus.
    pub const fn base(&self) -> usize {
        self.base
    }

    /// Give the parent bus back.
    pub fn into_inner(self) -> B {
        self.bus
    }
}

impl<B: RegisterBus> RegisterBus for Window<B> {
    type Word = B::Word;

    fn read_word(&self, offset: usize) -> Self::Word {
        match self.base.checked_add(offset) {
            Some(o) => self.bus.read_word(o),
            None => !Self::Word::zero(),
        }
    }

    fn write_word(&self, offset: usize, value: Self::Word) {
        if let Some(o) = self.base.checked_add(offset) {
            self.bus.write_word(o, value)
        }
    }
}

/// A register at a byte offset whose fields are described by `R` (a
/// `register_bitfields!` register name).
pub struct Reg<W: UIntLike, R: RegisterLongName = ()> {
    offset: usize,
    _marker: PhantomData<(W, R)>,
}

impl<W: UIntLike, R: RegisterLongName> Reg<W, R> {
    /// A register at byte `offset`.
    pub const fn new(offset: usize) -> Self {
        Self {
            offset,
            _marker: PhantomData,
        }
    }

    /// Its byte offset.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The same register `n * stride` bytes further (register arrays such as per-timer
    /// blocks).
    ///
    /// Defined for every input: an offset past the address space (`n * stride` or the sum
    /// overflowing `usize`) becomes `usize::MAX`, an offset no bus maps, so reading it gives
    /// all ones and writing it is dropped (the [`RegisterBus`] contract) instead of wrapping
    /// around to a real register or panicking. Use [`checked_nth`](Self::checked_nth) to
    /// reject such an index instead.
    ///
    /// ```
    /// use hwtimer_core::reg::Reg;
    /// let data: Reg<u32> = Reg::new(0x0);
    /// assert_eq!(data.nth(3, 0x10).offset(), 0x30);
    /// assert_eq!(data.nth(usize::MAX, 0x10).offset(), usize::MAX);
    /// ```
    pub const fn nth(&self, n: usize, stride: usize) -> Self {
        match self.checked_nth(n, stride) {
            Some(reg) => reg,
            None => Self::new(usize::MAX),
        }
    }

    /// The same register `n * stride` bytes further, or `None` when that offset does not
    /// fit in `usize`.
    ///
    /// ```
    /// use hwtimer_core::reg::Reg;
    /// let ctrl: Reg<u32> = Reg::new(0x8);
    /// assert_eq!(ctrl.checked_nth(2, 0x10).map(|r| r.offset()), Some(0x28));
    /// assert!(ctrl.checked_nth(usize::MAX / 8, 0x10).is_none());
    /// ```
    pub const fn checked_nth(&self, n: usize, stride: usize) -> Option<Self> {
        match n.checked_mul(stride) {
            Some(step) => match self.offset.checked_add(step) {
                Some(offset) => Some(Self::new(offset)),
                None => None,
            },
            None => None,
        }
    }
}

impl<W: UIntLike, R: RegisterLongName> Clone for Reg<W, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W: UIntLike, R: RegisterLongName> Copy for Reg<W, R> {}

impl<W: UIntLike, R: RegisterLongName> core::fmt::Debug for Reg<W, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Reg({:#x})", self.offset)
    }
}

/// The typed field API over any [`RegisterBus`]; implemented for every bus.
pub trait RegisterBusExt: RegisterBus {
    /// Read a register and decode it with its fields.
    fn read<R: RegisterLongName>(
        &self,
        reg: Reg<Self::Word, R>,
    ) -> LocalRegisterCopy<Self::Word, R> {
        LocalRegisterCopy::new(self.read_word(reg.offset))
    }

    /// Read a register as a plain word.
    fn read_raw<R: RegisterLongName>(&self, reg: Reg<Self::Word, R>) -> Self::Word {
        self.read_word(reg.offset)
    }

    /// Write `value` (fields not named are written as zero).
    fn write<R: RegisterLongName>(
        &self,
        reg: Reg<Self::Word, R>,
        value: FieldValue<Self::Word, R>,
    ) {
        self.write_word(reg.offset, value.value)
    }

    /// Write a plain word.
    fn write_raw<R: RegisterLongName>(&self, reg: Reg<Self::Word, R>, value: Self::Word) {
        self.write_word(reg.offset, value)
    }

    /// Read-modify-write: one read, one write, fields not named keep their value.
    fn modify<R: RegisterLongName>(
        &self,
        reg: Reg<Self::Word, R>,
        value: FieldValue<Self::Word, R>,
    ) {
        let old = self.read_word(reg.offset);
        self.write_word(reg.offset, value.modify(old));
    }
}

impl<B: RegisterBus + ?Sized> RegisterBusExt for B {}

/// A window of memory-mapped registers accessed with volatile loads and stores of `W`
/// through a raw pointer.
///
/// MMIO is native-endian: on the big-endian MIPS Otto SoCs a 32-bit load returns the
/// register value directly.
pub struct Mmio<W: UIntLike = u32> {
    base: *mut W,
    len: usize,
}

// SAFETY: an `Mmio` is an address plus a length; moving it to another thread moves the
// right to access the device, which is sound because every access is a single volatile
// load or store and `new`'s contract makes the caller responsible for exclusivity.
unsafe impl<W: UIntLike> Send for Mmio<W> {}

impl<W: UIntLike> Mmio<W> {
    /// A window of `len` bytes of registers at physical (or mapped) address `base`.
    ///
    /// # Safety
    /// For as long as the value (or any copy of the address) is used, `base..base + len`
    /// must be a device register block, mapped, valid for volatile accesses of `W`, and
    /// `base` aligned for `W`; and no other code may drive the same registers in a way that
    /// breaks the driver's assumptions (normally: one driver value per block).
    pub const unsafe fn new(base: usize, len: usize) -> Self {
        Self {
            base: base as *mut W,
            len,
        }
    }

    /// The base address.
    pub fn base(&self) -> usize {
        self.base as usize
    }

    /// The window length in bytes.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn in_window(&self, offset: usize) -> bool {
        let size = core::mem::size_of::<W>();
        offset.is_multiple_of(size) && offset.checked_add(size).is_some_and(|end| end <= self.len)
    }
}

impl<W: UIntLike> RegisterBus for Mmio<W> {
    type Word = W;

    fn read_word(&self, offset: usize) -> W {
        if !self.in_window(offset) {
            return !W::zero();
        }
        // SAFETY: `offset` is aligned and inside the window that `new`'s caller promised
        // is a mapped register block valid for volatile `W` accesses; a raw-pointer
        // volatile read creates no reference to device memory.
        unsafe { self.base.byte_add(offset).read_volatile() }
    }

    fn write_word(&self, offset: usize, value: W) {
        if !self.in_window(offset) {
            return;
        }
        // SAFETY: as in `read_word`.
        unsafe { self.base.byte_add(offset).write_volatile(value) }
    }
}

impl<W: UIntLike> core::fmt::Debug for Mmio<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Mmio({:#x}, {:#x})", self.base as usize, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_never_overflows_and_lands_outside_every_window() {
        let base: Reg<u32> = Reg::new(0x8);
        for (n, stride) in [
            (usize::MAX, 0x10),
            (0x10, usize::MAX),
            (usize::MAX, usize::MAX),
            (1, usize::MAX - 7), // the product fits, the sum does not
        ] {
            assert!(
                base.checked_nth(n, stride).is_none(),
                "{n:#x} * {stride:#x}"
            );
            assert_eq!(base.nth(n, stride).offset(), usize::MAX);
        }
        assert_eq!(base.nth(0, usize::MAX).offset(), 0x8);
        assert_eq!(base.nth(1, usize::MAX - 8).offset(), usize::MAX);
        assert_eq!(base.nth(4, 0x10).offset(), 0x48);
        // An overflowing index reads all ones and drops writes on real MMIO.
        let mut block = [0u32; 4];
        // SAFETY: the window covers `block`, a live, aligned local array used by nothing
        // else while `mmio` exists.
        let mmio = unsafe { Mmio::<u32>::new(block.as_mut_ptr() as usize, 16) };
        let far = base.nth(usize::MAX, 4);
        assert_eq!(mmio.read_raw(far), u32::MAX);
        mmio.write_raw(far, 7);
        let _ = mmio;
        assert_eq!(block, [0; 4]);
    }

    #[test]
    fn mmio_over_ram_reads_writes_and_refuses_out_of_window() {
        let mut block = [0u32; 4];
        // SAFETY: the window covers `block`, a live, aligned local array used by nothing
        // else while `mmio` exists.
        let mmio = unsafe { Mmio::<u32>::new(block.as_mut_ptr() as usize, 16) };
        mmio.write_word(4, 0xdead_beef);
        assert_eq!(mmio.read_word(4), 0xdead_beef);
        assert_eq!(mmio.read_word(16), u32::MAX); // past the end
        assert_eq!(mmio.read_word(2), u32::MAX); // misaligned
        mmio.write_word(usize::MAX - 1, 1); // dropped, no overflow
        let _ = mmio;
        assert_eq!(block, [0, 0xdead_beef, 0, 0]);
    }
}
