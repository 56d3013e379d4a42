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
//!
//! # Checking the window once
//!
//! A bus must never let an offset outside its window reach the hardware, so
//! [`Mmio`] checks every access against its length, which is only known at run time: the
//! check costs more instructions than the access it guards (the Otto clocksource read was 22
//! MIPS instructions, 2 of them the load and the mask). A driver therefore takes its block
//! once, with [`Claim::claim`]: the bus checks there that the `SPAN` bytes the driver uses
//! lie inside the window, and hands out a [`Claim::Block`] whose length is the constant
//! `SPAN`. The block still checks each access (safe code can name any offset), but against a
//! constant: with the register offsets constants too, the check is decided at compile time and
//! each access compiles to the bare volatile load or store.
//!
//! ```
//! use hwtimer_core::reg::{Claim, Mmio, RegisterBus};
//!
//! let mut ram = [0u32; 8];
//! // SAFETY: the window covers `ram`, a live, aligned local array nothing else touches
//! // while `mmio` and its blocks exist.
//! let mmio: Mmio = unsafe { Mmio::new(ram.as_mut_ptr() as usize, 32) };
//! let timer1 = mmio.claim::<0x10>(0x10).expect("inside the window");
//! timer1.write_word(0x4, 7); // a bare store to byte 0x14
//! assert_eq!(mmio.read_word(0x14), 7);
//! assert_eq!(timer1.read_word(0x10), u32::MAX); // past the block: all ones
//! assert!(mmio.claim::<0x10>(0x18).is_none()); // would end past the window
//! ```

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
    #[inline]
    fn read_word(&self, offset: usize) -> Self::Word {
        (**self).read_word(offset)
    }
    #[inline]
    fn write_word(&self, offset: usize, value: Self::Word) {
        (**self).write_word(offset, value)
    }
}

/// A bus that hands out sub-blocks whose bounds were checked once, when they were taken;
/// see [Checking the window once](self#checking-the-window-once).
///
/// # Contract
/// `claim::<SPAN>(base)` returns `Some` only when every access of `Word` width at offsets
/// `base..base + SPAN` of this bus is one the bus makes (inside its window, aligned). The
/// block then answers offsets `0..SPAN` with exactly the accesses this bus would make at
/// `base + offset`, and follows the [`RegisterBus`] contract for every other offset (reads
/// all ones, writes dropped), checking against the constant `SPAN` only.
pub trait Claim: RegisterBus {
    /// A checked block of `SPAN` bytes.
    type Block<const SPAN: usize>: RegisterBus<Word = Self::Word>;
    /// The `SPAN` bytes from byte `base`, or `None` when they do not all lie inside the bus
    /// or `base` is not aligned for `Word`.
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>>;
}

impl<B: Claim + ?Sized> Claim for &B {
    type Block<const SPAN: usize> = B::Block<SPAN>;
    #[inline]
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        (**self).claim(base)
    }
}

/// Whether an access of `size` bytes at `offset` lies inside `0..span` and is aligned.
/// With `offset` and `span` constants it folds away.
#[inline(always)]
const fn fits(offset: usize, size: usize, span: usize) -> bool {
    offset.is_multiple_of(size)
        && match offset.checked_add(size) {
            Some(end) => end <= span,
            None => false,
        }
}

/// The [`Claim::Block`] of a bus that is `Clone` but has no cheaper access of its own (the
/// `sim` buses, test buses): the bus and a base, with each access checked against the
/// constant `SPAN` and forwarded to `base + offset`.
///
/// ```
/// use hwtimer_core::reg::{Claimed, RegisterBus};
/// use hwtimer_core::sim::{RegisterFile, SimBus, SimClock};
///
/// let bus = SimBus::new(&SimClock::new(), RegisterFile::new(0x40));
/// let block: Claimed<_, 0x10> = Claimed::new(bus.clone(), 0x20);
/// block.write_word(0x8, 5);
/// assert_eq!(bus.read_word(0x28), 5);
/// block.write_word(0x10, 9); // past the block: dropped, the bus never sees it
/// assert_eq!(bus.stats().writes, 1);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Claimed<B, const SPAN: usize> {
    bus: B,
    base: usize,
}

impl<B: RegisterBus, const SPAN: usize> Claimed<B, SPAN> {
    /// `SPAN` bytes of `bus` from byte `base`. Checks nothing against `bus` (it has no
    /// length to check against); accesses past `SPAN` never reach it.
    pub const fn new(bus: B, base: usize) -> Self {
        Self { bus, base }
    }
}

impl<B: RegisterBus, const SPAN: usize> RegisterBus for Claimed<B, SPAN> {
    type Word = B::Word;

    #[inline]
    fn read_word(&self, offset: usize) -> Self::Word {
        match self.base.checked_add(offset) {
            Some(o) if fits(offset, core::mem::size_of::<B::Word>(), SPAN) => self.bus.read_word(o),
            _ => !Self::Word::zero(),
        }
    }

    #[inline]
    fn write_word(&self, offset: usize, value: Self::Word) {
        match self.base.checked_add(offset) {
            Some(o) if fits(offset, core::mem::size_of::<B::Word>(), SPAN) => {
                self.bus.write_word(o, value)
            }
            _ => {}
        }
    }
}

impl<B: RegisterBus + Clone, const SPAN: usize> Claim for Claimed<B, SPAN> {
    type Block<const S: usize> = Claimed<B, S>;
    fn claim<const S: usize>(&self, base: usize) -> Option<Self::Block<S>> {
        let end = base.checked_add(S)?;
        let abs = self.base.checked_add(base)?;
        (end <= SPAN && base.is_multiple_of(core::mem::size_of::<B::Word>()))
            .then(|| Claimed::new(self.bus.clone(), abs))
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

impl<B: Claim> Claim for Window<B> {
    type Block<const SPAN: usize> = B::Block<SPAN>;
    #[inline]
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<Self::Block<SPAN>> {
        self.bus.claim(self.base.checked_add(base)?)
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
    #[inline]
    fn read<R: RegisterLongName>(
        &self,
        reg: Reg<Self::Word, R>,
    ) -> LocalRegisterCopy<Self::Word, R> {
        LocalRegisterCopy::new(self.read_word(reg.offset))
    }

    /// Read a register as a plain word.
    #[inline]
    fn read_raw<R: RegisterLongName>(&self, reg: Reg<Self::Word, R>) -> Self::Word {
        self.read_word(reg.offset)
    }

    /// Write `value` (fields not named are written as zero).
    #[inline]
    fn write<R: RegisterLongName>(
        &self,
        reg: Reg<Self::Word, R>,
        value: FieldValue<Self::Word, R>,
    ) {
        self.write_word(reg.offset, value.value)
    }

    /// Write a plain word.
    #[inline]
    fn write_raw<R: RegisterLongName>(&self, reg: Reg<Self::Word, R>, value: Self::Word) {
        self.write_word(reg.offset, value)
    }

    /// Read-modify-write: one read, one write, fields not named keep their value.
    #[inline]
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

// SAFETY: an `Mmio` is an address plus a length, and all it does with them is single
// volatile loads and stores of `W` inside the window (`read_word`/`write_word` take `&self`
// and keep no state). Moving it to another thread moves the right to make those accesses.
unsafe impl<W: UIntLike> Send for Mmio<W> {}

// SAFETY: sharing `&Mmio` lets several threads (or a thread and an interrupt handler) make
// volatile accesses to the window at the same time. `new`'s contract makes the window device
// registers, memory outside every Rust allocation, and for such memory the documentation of
// `core::ptr::read_volatile` / `write_volatile` asks only that the access does not trap and that
// its side effects do not touch Rust-allocated memory: the data-race rules are about accesses
// to allocations, so two volatile register accesses at once are not undefined behaviour, and
// the bus delivers each as one access of `W` in some order. What `Mmio` cannot give is
// synchronisation (volatile accesses are not atomic): whether an interleaving makes sense (a
// read-modify-write of a shared register from two contexts, a write-status handshake) is the
// driver's question, answered with critical sections around shared registers (exynos-mct's
// `G_TCON` shadow, for example), and a driver that shares state between contexts keeps it in
// such a section, not in device registers. A window over ordinary memory (host tests) is
// outside this argument, which is why `new`'s contract forbids accessing one from two threads
// at the same time.
unsafe impl<W: UIntLike> Sync for Mmio<W> {}

impl<W: UIntLike> Mmio<W> {
    /// A window of `len` bytes of registers at physical (or mapped) address `base`.
    ///
    /// # Safety
    /// For as long as the value (or any copy of the address) is used, `base..base + len`
    /// must be a device register block, mapped, valid for volatile accesses of `W`, and
    /// `base` aligned for `W`; and no other code may drive the same registers in a way that
    /// breaks the driver's assumptions (normally: one driver value per block). Registers
    /// banked per core (the Cortex-A9 global timer's comparator, a GIC CPU interface) are a
    /// different block on each core, so the window is only this core's: keep the driver
    /// value on the core it was made for (as `loongarch_timer::pinned` does for CSRs), even
    /// though `Mmio` itself may cross threads. A window over
    /// ordinary memory instead of device registers (a test) must not be accessed from two
    /// threads at the same time: `Mmio` is `Sync` because concurrent volatile accesses to
    /// device memory are not data races (see the `Sync` impl), which is not true of memory
    /// the program owns.
    ///
    /// # Clipping
    /// The window is clipped here, once, so that no access can compute an address that
    /// wraps: if `base + len` would pass the top of the address space, the window ends
    /// there, and it spans at most `isize::MAX` bytes (the furthest a pointer may be offset).
    /// [`len`](Self::len) is the clipped length; an access past it is refused as any other
    /// outside the window (reads all ones, writes dropped). A window that fits is unchanged.
    ///
    /// ```
    /// use hwtimer_core::reg::{Mmio, RegisterBus};
    /// // SAFETY: nothing is accessed: the one read lies past the clipped window.
    /// let top: Mmio = unsafe { Mmio::new(usize::MAX - 7, 0x10) };
    /// assert_eq!(top.len(), 8);
    /// assert_eq!(top.read_word(0x8), u32::MAX); // refused: would wrap to address 0
    /// ```
    pub const unsafe fn new(base: usize, len: usize) -> Self {
        // `!base` (`usize::MAX - base`, never negative) is the offset of the top byte from
        // `base`; one more byte fits (saturating: from base 0 the whole space would be
        // `usize::MAX + 1` bytes).
        let room = (!base).saturating_add(1);
        let room = if room < isize::MAX as usize {
            room
        } else {
            isize::MAX as usize
        };
        Self {
            base: base as *mut W,
            len: if len < room { len } else { room },
        }
    }

    /// The base address.
    pub fn base(&self) -> usize {
        self.base as usize
    }

    /// The window length in bytes (as clipped by [`new`](Self::new)).
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn in_window(&self, offset: usize) -> bool {
        fits(offset, core::mem::size_of::<W>(), self.len)
    }
}

impl<W: UIntLike> Claim for Mmio<W> {
    type Block<const SPAN: usize> = MmioBlock<W, SPAN>;

    /// Checks `base..base + SPAN` against the window once; the block's accesses then check
    /// only against the constant `SPAN`.
    #[inline]
    fn claim<const SPAN: usize>(&self, base: usize) -> Option<MmioBlock<W, SPAN>> {
        let end = base.checked_add(SPAN)?;
        (end <= self.len && base.is_multiple_of(core::mem::size_of::<W>())).then(|| MmioBlock {
            // Address arithmetic only (no access, no `unsafe`): `base + SPAN <= len`.
            base: self.base.wrapping_byte_add(base),
        })
    }
}

/// `SPAN` bytes of an [`Mmio`] window, checked once by [`Claim::claim`]: each access checks
/// its offset against the constant `SPAN` (decided at compile time when the offset is a
/// constant too) and is then the bare volatile load or store.
///
/// `Copy`, `Send` and `Sync` on the same argument as [`Mmio`]: it is an address inside a
/// window whose [`Mmio::new`] contract covers every copy of the address.
pub struct MmioBlock<W: UIntLike, const SPAN: usize> {
    base: *mut W,
}

impl<W: UIntLike, const SPAN: usize> Clone for MmioBlock<W, SPAN> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W: UIntLike, const SPAN: usize> Copy for MmioBlock<W, SPAN> {}

// SAFETY: as for `Mmio` (see its `Send` impl): an address and the right to make single
// volatile accesses of `W` inside a block that lies in an `Mmio` window.
unsafe impl<W: UIntLike, const SPAN: usize> Send for MmioBlock<W, SPAN> {}

// SAFETY: as for `Mmio` (see its `Sync` impl): concurrent volatile accesses to device
// registers are not data races; synchronisation is the driver's question.
unsafe impl<W: UIntLike, const SPAN: usize> Sync for MmioBlock<W, SPAN> {}

impl<W: UIntLike, const SPAN: usize> MmioBlock<W, SPAN> {
    /// The block's address.
    pub fn base(&self) -> usize {
        self.base as usize
    }
}

impl<W: UIntLike, const SPAN: usize> RegisterBus for MmioBlock<W, SPAN> {
    type Word = W;

    #[inline]
    fn read_word(&self, offset: usize) -> W {
        if !fits(offset, core::mem::size_of::<W>(), SPAN) {
            return !W::zero();
        }
        // SAFETY: `offset` is aligned and below `SPAN`, and `claim` checked that the
        // `SPAN` bytes from `base` lie inside an `Mmio` window (aligned), which `Mmio::new`'s
        // caller promised is a mapped register block valid for volatile `W` accesses and
        // which `Mmio::new` clipped to the address space (so the address does not wrap).
        unsafe { self.base.byte_add(offset).read_volatile() }
    }

    #[inline]
    fn write_word(&self, offset: usize, value: W) {
        if !fits(offset, core::mem::size_of::<W>(), SPAN) {
            return;
        }
        // SAFETY: as in `read_word`.
        unsafe { self.base.byte_add(offset).write_volatile(value) }
    }
}

impl<W: UIntLike, const SPAN: usize> Claim for MmioBlock<W, SPAN> {
    type Block<const S: usize> = MmioBlock<W, S>;

    #[inline]
    fn claim<const S: usize>(&self, base: usize) -> Option<MmioBlock<W, S>> {
        let end = base.checked_add(S)?;
        (end <= SPAN && base.is_multiple_of(core::mem::size_of::<W>())).then(|| MmioBlock {
            base: self.base.wrapping_byte_add(base),
        })
    }
}

impl<W: UIntLike, const SPAN: usize> core::fmt::Debug for MmioBlock<W, SPAN> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MmioBlock({:#x}, {:#x})", self.base as usize, SPAN)
    }
}

impl<W: UIntLike> RegisterBus for Mmio<W> {
    type Word = W;

    fn read_word(&self, offset: usize) -> W {
        if !self.in_window(offset) {
            return !W::zero();
        }
        // SAFETY: `offset` is aligned and inside the window that `new`'s caller promised
        // is a mapped register block valid for volatile `W` accesses; `new` clipped the
        // window so that `base + offset` neither wraps nor steps more than `isize::MAX`
        // bytes; a raw-pointer volatile read creates no reference to device memory.
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

    /// A driver, its parts and what is built on them can be `static`s shared with interrupt
    /// handlers without an `unsafe impl Sync` of the firmware's own (a `&Mmio` held by a
    /// part must be `Send`).
    #[test]
    fn mmio_is_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Mmio<u32>>();
        shareable::<Mmio<u64>>();
        shareable::<&'static Mmio<u32>>();
        shareable::<Window<&'static Mmio<u32>>>();
    }

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
    fn claim_checks_the_window_once_and_the_block_its_span() {
        let mut block = [0u32; 8];
        // SAFETY: the window covers `block`, a live, aligned local array used by nothing
        // else while `mmio` and its blocks exist.
        let mmio = unsafe { Mmio::<u32>::new(block.as_mut_ptr() as usize, 32) };
        assert!(mmio.claim::<0x10>(0x10).is_some());
        assert!(mmio.claim::<0x10>(0x14).is_none()); // ends past the window
        assert!(mmio.claim::<0x10>(0x2).is_none()); // misaligned
        assert!(mmio.claim::<0x10>(usize::MAX - 4).is_none()); // overflows
        let b = mmio.claim::<0x10>(0x8).unwrap_or_else(|| unreachable!());
        b.write_word(0xC, 3);
        b.write_word(0x10, 4); // past the span: dropped
        b.write_word(0x2, 5); // misaligned: dropped
        assert_eq!(b.read_word(0x10), u32::MAX);
        assert_eq!(b.read_word(usize::MAX), u32::MAX);
        // A block of a block: inside only.
        let inner = b.claim::<0x8>(0x8).unwrap_or_else(|| unreachable!());
        assert_eq!(inner.read_word(0x4), 3);
        assert!(b.claim::<0x8>(0xC).is_none());
        // Through a reference and a window, the same block.
        let w = Window::new(&mmio, 0x8);
        assert_eq!(w.claim::<0x10>(0).map(|b| b.base()), Some(b.base()));
        assert!(w.claim::<0x20>(0).is_none());
        let _ = (mmio, b, inner);
        assert_eq!(block, [0, 0, 0, 0, 0, 3, 0, 0]);
    }

    /// A window that would run past the top of the address space (or span more than a
    /// pointer may be offset) is clipped when it is made: an access past the clip is refused
    /// as any access outside the window, instead of an address that wraps around to 0.
    #[test]
    fn a_window_past_the_top_of_the_address_space_is_clipped() {
        // SAFETY: nothing is accessed through these windows: every access below lies past
        // the clipped length, which the bus refuses before it forms a pointer.
        let top = unsafe { Mmio::<u32>::new(usize::MAX - 7, 0x10) };
        assert_eq!(top.len(), 8, "8 bytes fit below the top");
        assert!(top.claim::<0x10>(0).is_none());
        assert!(top.claim::<0x4>(0x8).is_none());
        assert_eq!(top.read_word(0x8), u32::MAX); // would wrap to address 0
        top.write_word(0xC, 1); // dropped
        // SAFETY: as above.
        let huge = unsafe { Mmio::<u32>::new(0x1000, usize::MAX) };
        assert_eq!(huge.len(), isize::MAX as usize);
        assert_eq!(huge.read_word(usize::MAX - 3), u32::MAX);
        // The top byte itself can end a window: 8 bytes from `usize::MAX - 7`.
        // SAFETY: as above.
        let exact = unsafe { Mmio::<u32>::new(usize::MAX - 7, 8) };
        assert_eq!(exact.len(), 8);
        // SAFETY: as above.
        let from_zero = unsafe { Mmio::<u32>::new(0, usize::MAX) };
        assert_eq!(from_zero.len(), isize::MAX as usize);
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
