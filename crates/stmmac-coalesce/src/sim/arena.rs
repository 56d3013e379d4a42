//! The sim DMA arena: host memory with 32-bit (or, [`SimArena::wide`], 48-bit) bus addresses, an optional write-back cache
//! between the CPU and the DMA, and the order log of what reached the DMA.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::vec::Vec;

// The interface traits the arena implements and the region type it hands out, from the
// crate root: no driver constant or decode.
use crate::{CacheOps, DmaAddr, DmaRegion, DoorbellSync};

struct ArenaInner {
    /// The CPU's view (its cache, when the arena is not coherent).
    host: *mut u8,
    len: usize,
    bus_base: u64,
    next: Cell<usize>,
    /// Memory as the DMA sees it, when not coherent; `None` = coherent.
    ram: Option<RefCell<Vec<u8>>>,
    /// Uncached memory behind an outer cache's store buffer ([`SimArena::store_buffered`]):
    /// no lines to maintain; the CPU's stores reach `ram` only at an outer sync.
    buffered: bool,
    line: usize,
    cleans: Cell<u64>,
    invalidates: Cell<u64>,
    /// The order log while recording ([`SimArena::record_order`]).
    order: RefCell<Option<Vec<Seen>>>,
}

/// Which DMA engine a [`Seen::Doorbell`] was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ring {
    /// The TX DMA (DMA_XMT_POLL_DEMAND).
    Tx,
    /// The RX DMA (DMA_RCV_POLL_DEMAND).
    Rx,
}

/// One step the model saw, in the order it saw it ([`SimArena::record_order`]). The DMA
/// arena and the register bus both go through the model, so these are the steps as the
/// DMA would observe them, whatever the driver believes it did.
///
/// What the model cannot see: the order of plain CPU stores between two of these steps
/// (a store to arena memory calls nothing), nor a barrier instruction. On a coherent arena
/// the descriptor words are visible to the DMA as soon as they are stored, so a
/// [`Doorbell`](Seen::Doorbell) shows what the DMA found; on a non-coherent one, the DMA
/// sees only what a [`Clean`](Seen::Clean) wrote back, so the log shows the order of the
/// write-backs too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Lines written back to the memory the DMA reads (`SimCache::clean` on a non-coherent
    /// arena; a clean on a coherent arena changes nothing the DMA sees and is not logged):
    /// `len` bytes, whole lines, at bus address `bus`.
    Clean {
        /// Bus address of the first line.
        bus: u64,
        /// Bytes (whole lines).
        len: usize,
    },
    /// Lines discarded from the CPU's cache (`SimCache::invalidate`, non-coherent arenas).
    Invalidate {
        /// Bus address of the first line.
        bus: u64,
        /// Bytes (whole lines).
        len: usize,
    },
    /// A poll demand (doorbell) arrived, with the descriptor that DMA engine looks at and
    /// its word 0 as the DMA read it when the write arrived, before acting on it.
    Doorbell {
        /// Which engine.
        ring: Ring,
        /// Bus address of its current descriptor (DMA_CUR_TX_DESC / DMA_CUR_RX_DESC).
        desc: u64,
        /// That descriptor's word 0 (OWN is bit 31) in the DMA's view.
        des0: u32,
    },
}

/// Host memory with 32-bit bus addresses: what the model's DMA reads and writes. Hands out
/// [`DmaRegion`]s (leaked, cache-line aligned); [`DmaAddr`] maps them to
/// `bus_base + offset`. Clones share the arena.
///
/// A [non-coherent](Self::non_coherent) arena models a write-back data cache that never
/// evicts on its own: the DMA sees only what [`SimCache::clean`] wrote back, and the CPU
/// sees the DMA's writes only after [`SimCache::invalidate`], line by line. Without cache
/// maintenance ([`Coherent`](crate::Coherent)) nothing reaches the other side.
#[derive(Clone)]
pub struct SimArena {
    inner: Rc<ArenaInner>,
}

impl core::fmt::Debug for SimArena {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "SimArena({:#x}, {:#x} bytes{})",
            self.inner.bus_base,
            self.inner.len,
            match (&self.inner.ram, self.inner.buffered) {
                (Some(_), true) => ", store-buffered",
                (Some(_), false) => ", non-coherent",
                (None, _) => "",
            }
        )
    }
}

impl SimArena {
    fn build(bus_base: u64, len: usize, line: usize, coherent: bool, buffered: bool) -> Self {
        let words = len.div_ceil(256).max(1) * 16;
        // Over-allocate by 256 bytes so the start can be aligned to any line up to 256.
        let mem: &'static mut [u128] = Vec::leak(vec![0u128; words + 16]);
        let raw = mem.as_mut_ptr().cast::<u8>();
        let host = raw.wrapping_add(raw.align_offset(256));
        let len = words * 16;
        let base = bus_base & !0xFF;
        // A 32-bit arena stays below 4 GiB; a wide one below 2^48 (the widest QoS 4.x/5.x
        // address, HW_FEATURE1.ADDR64 = 48 bits).
        let top = if bus_base <= u64::from(u32::MAX) {
            u64::from(u32::MAX)
        } else {
            (1 << 48) - 1
        };
        let max = usize::try_from(top - base).unwrap_or(usize::MAX);
        let len = len.min(max);
        Self {
            inner: Rc::new(ArenaInner {
                host,
                len,
                bus_base: base,
                next: Cell::new(0),
                ram: (!coherent).then(|| RefCell::new(vec![0; len])),
                buffered,
                line,
                cleans: Cell::new(0),
                invalidates: Cell::new(0),
                order: RefCell::new(None),
            }),
        }
    }

    /// A coherent arena of `len` bytes (rounded up to 256) at bus address `bus_base`
    /// (rounded down to 256). The memory is leaked: arenas live for the whole test process.
    pub fn new(bus_base: u32, len: usize) -> Self {
        Self::build(u64::from(bus_base), len, 16, true, false)
    }

    /// A coherent arena as [`new`](Self::new) at a bus address of up to 48 bits (rounded
    /// down to 256): DRAM above 4 GiB, as on the i.MX8MP, RK3568 and Tegra194, for the
    /// QoS 4.x/5.x's 40/48-bit addressing. Its [`DmaAddr::bus_addr`] answers `None` for
    /// every address above 4 GiB, so a 32-bit-only layout refuses it.
    pub fn wide(bus_base: u64, len: usize) -> Self {
        Self::build(bus_base.min((1 << 48) - 0x100), len, 16, true, false)
    }

    /// An arena of Normal non-cacheable memory behind an outer cache controller's store
    /// buffer (an L2C-310's): the CPU's stores are not cached, so there is no line to
    /// clean or invalidate ([`Coherent`](crate::Coherent) is the `CacheOps`, and
    /// [`cache`](Self::cache) does nothing here either), but the DMA sees them only after
    /// an outer sync drained the buffer: this arena's
    /// [`DoorbellSync::before_doorbell`]
    /// (a CACHE_SYNC), for example through
    /// [`WithSync`](crate::WithSync)`::new(Coherent, arena.clone())`. The DMA's own
    /// writes reach memory, which the CPU reads uncached, at once. The buffer never drains by
    /// itself (silicon drains it eventually; the model keeps the worst case).
    pub fn store_buffered(bus_base: u32, len: usize) -> Self {
        Self::build(u64::from(bus_base), len, 16, false, true)
    }

    /// A non-coherent arena with cache lines of `line` bytes (see the type docs); use
    /// [`cache`](Self::cache) as the rings' [`CacheOps`].
    pub fn non_coherent(bus_base: u32, len: usize, line: usize) -> Self {
        Self::build(
            u64::from(bus_base),
            len,
            line.clamp(16, 256).next_power_of_two(),
            false,
            false,
        )
    }

    /// The cache maintenance for this arena.
    pub fn cache(&self) -> SimCache {
        SimCache {
            arena: self.clone(),
        }
    }

    /// (clean, invalidate) calls made through [`cache`](Self::cache).
    pub fn cache_ops(&self) -> (u64, u64) {
        (self.inner.cleans.get(), self.inner.invalidates.get())
    }

    /// Carve a region of `len` bytes (aligned to 256), or `None` when the arena is full.
    pub fn region(&self, len: usize) -> Option<DmaRegion> {
        let start = self.inner.next.get().div_ceil(256).checked_mul(256)?;
        let end = start.checked_add(len)?;
        if end > self.inner.len || len == 0 {
            return None;
        }
        self.inner.next.set(end);
        let p = core::ptr::NonNull::new(self.inner.host.wrapping_add(start))?;
        // SAFETY: [start, end) lies inside the leaked allocation (checked above) and is
        // handed out once (the bump pointer only moves forward); it stays valid for the
        // rest of the process, and only the region's ring and the model's DMA touch it.
        Some(unsafe { DmaRegion::from_raw(p, len) })
    }

    /// Take the arena back as new: every byte zeroed (the CPU's view and, on a non-coherent
    /// or store-buffered arena, the memory the DMA sees), the bump pointer at the start, so
    /// the next [`region`](Self::region) hands out the first bytes again; the cache
    /// counters are zeroed and the order log stops. A long-running harness (a fuzzer) can
    /// reuse one leaked arena instead of leaking a new one per run.
    ///
    /// # Safety
    ///
    /// Nothing carved from this arena before the call may be used after it: no
    /// [`DmaRegion`] from [`region`](Self::region), nothing made from one (a ring, a
    /// buffer, a slice or pointer into it), and no model may DMA into the memory through a
    /// descriptor or list base it read before (drop the model, or reset it). The memory is
    /// handed out again, so a region kept across the call would alias a new one.
    pub unsafe fn rewind(&self) {
        let a = &self.inner;
        // SAFETY: `host..host + len` is the arena's own leaked allocation; the caller
        // guarantees no reference or pointer from an earlier region is used from now on,
        // so these raw byte writes race with nothing and alias no live reference.
        unsafe { core::ptr::write_bytes(a.host, 0, a.len) };
        if let Some(ram) = &a.ram {
            ram.borrow_mut().fill(0);
        }
        a.next.set(0);
        a.cleans.set(0);
        a.invalidates.set(0);
        *a.order.borrow_mut() = None;
    }

    fn host(&self, bus: u64, len: usize) -> Option<usize> {
        let off = usize::try_from(bus.checked_sub(self.inner.bus_base)?).ok()?;
        if off.checked_add(len)? > self.inner.len {
            return None;
        }
        Some(off)
    }

    /// Copy `len` bytes at a bus address, as the DMA sees them.
    pub fn read_bytes(&self, bus: impl Into<u64>, len: usize) -> Option<Vec<u8>> {
        let off = self.host(bus.into(), len)?;
        match &self.inner.ram {
            Some(ram) => ram.borrow().get(off..off + len).map(<[u8]>::to_vec),
            None => {
                let mut v = Vec::with_capacity(len);
                self.copy_out(off, len, &mut v);
                Some(v)
            }
        }
    }

    /// Append `len` bytes at a bus address (the DMA's view) to `out`; `false` when out of
    /// the arena.
    pub fn read_into(&self, bus: impl Into<u64>, len: usize, out: &mut Vec<u8>) -> bool {
        let Some(off) = self.host(bus.into(), len) else {
            return false;
        };
        match &self.inner.ram {
            Some(ram) => match ram.borrow().get(off..off + len) {
                Some(b) => out.extend_from_slice(b),
                None => return false,
            },
            None => self.copy_out(off, len, out),
        }
        true
    }

    /// Append `len` host bytes at arena offset `off` (in bounds) to `out`, through raw
    /// pointers: no `&[u8]` over arena memory is formed, so a `&mut [u8]` the driver holds
    /// elsewhere in the arena is not aliased by a reference.
    fn copy_out(&self, off: usize, len: usize, out: &mut Vec<u8>) {
        out.reserve(len);
        let at = out.len();
        // SAFETY: `off + len` is inside the leaked arena (every caller checked it with
        // `host` or `lines`); `out` has room for `len` more bytes (reserved above), and its
        // buffer is separate from the arena; the bytes are plain `u8`, so every value is
        // initialised and valid. `set_len` covers exactly the bytes just written.
        unsafe {
            core::ptr::copy_nonoverlapping(self.inner.host.add(off), out.as_mut_ptr().add(at), len);
            out.set_len(at + len);
        }
    }

    /// Write bytes at a bus address, as the DMA does.
    pub fn write_bytes(&self, bus: impl Into<u64>, data: &[u8]) -> bool {
        let Some(off) = self.host(bus.into(), data.len()) else {
            return false;
        };
        match &self.inner.ram {
            Some(ram) => {
                if let Some(d) = ram.borrow_mut().get_mut(off..off + data.len()) {
                    d.copy_from_slice(data);
                }
                if self.inner.buffered {
                    // SAFETY: in bounds (checked by `host`); `data` is a host slice outside
                    // the arena or a copy, so the ranges do not overlap. Uncached memory:
                    // the CPU reads what the DMA wrote.
                    unsafe {
                        core::ptr::copy_nonoverlapping(
                            data.as_ptr(),
                            self.inner.host.add(off),
                            data.len(),
                        )
                    };
                }
            }
            None => {
                // SAFETY: in bounds (checked by `host`); `data` is a host slice outside
                // the arena or a copy, so the ranges do not overlap.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        data.as_ptr(),
                        self.inner.host.add(off),
                        data.len(),
                    )
                };
            }
        }
        true
    }

    /// Read a little-endian word at a bus address (the DMA's view).
    pub fn read_u32(&self, bus: impl Into<u64>) -> Option<u32> {
        let off = self.host(bus.into(), 4)?;
        let b: [u8; 4] = match &self.inner.ram {
            Some(ram) => ram.borrow().get(off..off + 4)?.try_into().ok()?,
            // SAFETY: in bounds (checked by `host`); an unaligned read of plain arena
            // memory, while the driver holds no reference to it.
            None => unsafe { self.inner.host.add(off).cast::<[u8; 4]>().read_unaligned() },
        };
        Some(u32::from_le_bytes(b))
    }

    /// Write a little-endian word at a bus address.
    pub fn write_u32(&self, bus: impl Into<u64>, v: u32) -> bool {
        self.write_bytes(bus, &v.to_le_bytes())
    }

    /// Start logging what the DMA sees, in order (clears an earlier log); see [`Seen`].
    pub fn record_order(&self) {
        *self.inner.order.borrow_mut() = Some(Vec::new());
    }

    /// Stop logging and return the log ([`record_order`](Self::record_order)).
    pub fn take_order(&self) -> Vec<Seen> {
        self.inner.order.borrow_mut().take().unwrap_or_default()
    }

    /// Append to the log, while recording.
    pub(super) fn note(&self, seen: Seen) {
        if let Some(log) = self.inner.order.borrow_mut().as_mut() {
            log.push(seen);
        }
    }

    /// The bus address of arena offset `off`.
    fn bus_at(&self, off: usize) -> u64 {
        self.inner.bus_base.wrapping_add(off as u64)
    }

    /// The lines covering `[ptr, ptr + len)` as arena offsets.
    fn lines(&self, ptr: *const u8, len: usize) -> Option<(usize, usize)> {
        let off = (ptr as usize).checked_sub(self.inner.host as usize)?;
        let line = self.inner.line;
        let start = off / line * line;
        let end = off.checked_add(len)?.div_ceil(line).checked_mul(line)?;
        (end <= self.inner.len).then_some((start, end))
    }
}

// SAFETY: the model's DMA reaches arena memory only through `read_bytes`/`write_bytes`,
// which translate `bus_base + offset` back to the same offset of the same allocation (or of
// its non-coherent RAM image), bounds-checked; the mapping is linear over the whole arena.
unsafe impl DmaAddr for SimArena {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        u32::try_from(self.bus_addr64(ptr)?).ok()
    }

    fn bus_addr64(&self, ptr: *const u8) -> Option<u64> {
        let off = (ptr as usize).checked_sub(self.inner.host as usize)?;
        if off >= self.inner.len {
            return None;
        }
        self.inner.bus_base.checked_add(u64::try_from(off).ok()?)
    }
}

/// The outer sync of a [store-buffered](SimArena::store_buffered) arena: every CPU store
/// so far reaches the memory the DMA reads (the L2C-310's CACHE_SYNC). Does nothing on
/// other arenas.
impl DoorbellSync for SimArena {
    fn before_doorbell(&self) {
        let a = &self.inner;
        if !a.buffered {
            return;
        }
        if let Some(ram) = &a.ram {
            let mut src = Vec::with_capacity(a.len);
            self.copy_out(0, a.len, &mut src);
            if let Some(d) = ram.borrow_mut().get_mut(..a.len) {
                d.copy_from_slice(&src);
            }
        }
    }
}

/// Cache maintenance of a [`SimArena`] (see [`SimArena::non_coherent`]); on a coherent
/// arena it only counts.
#[derive(Debug, Clone)]
pub struct SimCache {
    arena: SimArena,
}

// SAFETY: `line` is the arena's own line, what `lines` rounds every range out to; only
// those lines of the arena are touched.
unsafe impl CacheOps for SimCache {
    fn line(&self) -> usize {
        if self.arena.inner.ram.is_some() && !self.arena.inner.buffered {
            self.arena.inner.line
        } else {
            1
        }
    }

    fn clean(&self, ptr: *const u8, len: usize) {
        let a = &self.arena.inner;
        a.cleans.set(a.cleans.get() + 1);
        if a.buffered {
            return;
        }
        let (Some(ram), Some((start, end))) = (&a.ram, self.arena.lines(ptr, len)) else {
            return;
        };
        let mut src = Vec::with_capacity(end - start);
        self.arena.copy_out(start, end - start, &mut src);
        if let Some(d) = ram.borrow_mut().get_mut(start..end) {
            d.copy_from_slice(&src);
        }
        self.arena.note(Seen::Clean {
            bus: self.arena.bus_at(start),
            len: end - start,
        });
    }

    fn invalidate(&self, ptr: *const u8, len: usize) {
        let a = &self.arena.inner;
        a.invalidates.set(a.invalidates.get() + 1);
        if a.buffered {
            return;
        }
        let (Some(ram), Some((start, end))) = (&a.ram, self.arena.lines(ptr, len)) else {
            return;
        };
        if let Some(s) = ram.borrow().get(start..end) {
            for (i, &b) in s.iter().enumerate() {
                // SAFETY: `start + i < end <= len` (checked by `lines`): inside the leaked
                // arena. Only a byte the DMA changed since the CPU's copy is written: a
                // byte the CPU may be reading through a live `&[u8]` (a received frame the
                // ring lent out, whose descriptor is CPU-owned, so the DMA does not write
                // it) compares equal and is never written, so no shared reference sees a
                // write. Raw volatile-free byte accesses, no reference to the arena formed.
                unsafe {
                    let p = a.host.add(start + i);
                    if p.read() != b {
                        p.write(b);
                    }
                }
            }
        }
        self.arena.note(Seen::Invalidate {
            bus: self.arena.bus_at(start),
            len: end - start,
        });
    }
}
