//! How a ring is carved from its region ([`ring_bytes`], the crate-private `RingGeometry`),
//! for the geometry a [`DmaSetup`] holds.

use crate::common::setup::round_up;
use crate::common::{ConfigError, DESC_SIZE, DmaSetup, Error, MAX_QOS_RING};
use crate::dma::Desc;
use crate::dma::{DmaAddr, DmaRegion};

/// Bytes a ring of `descriptors` descriptors with `buf_size`-byte buffers needs for a
/// `cache_line` (including the slack to align the start): size a [`DmaMemory`](crate::DmaMemory) with it.
///
/// ```
/// use stmmac_coalesce::ring_bytes;
/// assert_eq!(ring_bytes(8, 1536, 16), 8 * 16 + 8 * 1536 + 16);
/// assert_eq!(ring_bytes(4, 500, 64), 4 * 64 + 4 * 512 + 64);
/// ```
pub const fn ring_bytes(descriptors: usize, buf_size: usize, cache_line: usize) -> usize {
    // Outside 16..=256 the ring constructors refuse the line size anyway; clamp so this
    // stays total (saturating) for any input.
    let line = if cache_line < 16 {
        16
    } else if cache_line > 256 {
        256
    } else {
        cache_line.next_power_of_two()
    };
    descriptors
        .saturating_mul(round_up(DESC_SIZE, line))
        .saturating_add(descriptors.saturating_mul(round_up(buf_size, line)))
        .saturating_add(line)
}

/// One ring's geometry, the same for TX and RX: where its descriptors and buffers are
/// (carved from its region), their bus addresses, how to step through them, and the
/// ranges the cache hook is given (always whole lines: a descriptor by its stride, a
/// buffer by whole lines up to its stride).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RingGeometry {
    /// First descriptor (CPU pointer).
    descs: *mut u8,
    /// First buffer (CPU pointer).
    bufs: *mut u8,
    /// Bus address of the first descriptor.
    desc_bus: u64,
    /// Bus address of the first buffer.
    buf_bus: u64,
    /// Bytes from one descriptor to the next (whole cache lines).
    desc_stride: usize,
    /// Bytes from one buffer to the next (whole cache lines).
    buf_stride: usize,
    /// Cache line.
    line: usize,
    /// Descriptors (1..=[`MAX_RING`]).
    len: usize,
}

impl RingGeometry {
    /// Carve `n` descriptors and `n` buffers of `buf_size` from `region` for `setup`, and
    /// check that the whole span has linear 32-bit bus addresses.
    ///
    /// Errors: [`Error::RingSize`] for 0 descriptors, more than [`MAX_RING`] or a region
    /// too small; [`Error::DmaAddress`] when the span has no linear 32-bit bus address.
    pub(crate) fn carve<A: DmaAddr + ?Sized>(
        region: &DmaRegion,
        addr: &A,
        setup: &DmaSetup,
        n: usize,
        buf_size: usize,
    ) -> Result<Self, Error> {
        if n == 0 || n > MAX_RING {
            return Err(Error::RingSize);
        }
        // QoS: a tail pointer equal to the head means "nothing to do", so a ring keeps one
        // descriptor back and needs two; the ring length register holds at most 1024.
        if setup.layout().is_qos() && !(2..=MAX_QOS_RING).contains(&n) {
            return Err(Error::RingSize);
        }
        // Re-check the set-up: everything below relies on a line that is a power of two
        // and a stride of whole lines that holds a descriptor.
        if setup.check()? != setup.dsl {
            return Err(Error::Config(ConfigError::DescriptorSkip));
        }
        // With padding between descriptors, at least 4 of them: a DMA that steps with a
        // stride up to 4 times the ring's (a bus width configured 4 times too narrow) then
        // still lands inside the ring's cleared padding (see below), not in a buffer.
        if setup.dsl != 0 && n < 4 {
            return Err(Error::RingSize);
        }
        let line = setup.cache_line;
        let start = region.as_ptr() as usize;
        let aligned = round_up(start, line);
        let skip = aligned.wrapping_sub(start);
        let buf_stride = round_up(buf_size, line);
        let need = n
            .checked_mul(setup.desc_stride)
            .and_then(|d| n.checked_mul(buf_stride).and_then(|b| d.checked_add(b)))
            .and_then(|x| x.checked_add(skip))
            .ok_or(Error::RingSize)?;
        if need > region.len() {
            return Err(Error::RingSize);
        }
        let descs = region.as_ptr().wrapping_add(skip);
        // Both products are below `need`, which did not overflow.
        let desc_bytes = n.wrapping_mul(setup.desc_stride);
        let bufs = descs.wrapping_add(desc_bytes);
        let span = need.wrapping_sub(skip);
        let bus = |p: *const u8| {
            if setup.addr_bits > 32 {
                addr.bus_addr64(p)
            } else {
                addr.bus_addr(p).map(u64::from)
            }
        };
        let first = bus(descs).ok_or(Error::DmaAddress)?;
        let last = bus(descs.wrapping_add(span.saturating_sub(1))).ok_or(Error::DmaAddress)?;
        if last != first.wrapping_add((span as u64).saturating_sub(1))
            || last >> setup.addr_bits.min(63) != 0
        {
            return Err(Error::DmaAddress);
        }
        // Clear the descriptor area, padding included: the rings write only the 16 bytes
        // of each descriptor, and a region's old contents must not look like descriptors
        // the DMA owns. A DMA that steps with another stride than the ring's (DSL counts
        // bus-width words, and a wrong `DmaConfig::bus_width` cannot be detected on GMAC
        // 3.x) lands in a padding area for its second descriptor: with padding
        // `p = stride - 16` and the real width `r` times the configured one, the DMA's
        // second descriptor is at `16 + p * r`, which for r = 1/4 and 1/2 is inside
        // descriptor 0's padding, for r = 2 at offset `p` of descriptor 1, and for r = 4
        // in descriptor 2's (32-byte lines) or 3's padding (docs/gmac3.md#dma-boundary).
        // It finds OWN clear there and suspends.
        // SAFETY: `desc_bytes` bytes from `descs` lie inside the region (checked above:
        // `need <= len`), which this ring owns; no DMA has been given them yet.
        unsafe { core::ptr::write_bytes(descs, 0, desc_bytes) };
        // Exact: the span from `first` to `last` is linear and fits in 32 bits.
        let buf_bus = first.wrapping_add(desc_bytes as u64);
        Ok(Self {
            descs,
            bufs,
            desc_bus: first,
            buf_bus,
            desc_stride: setup.desc_stride,
            buf_stride,
            line,
            len: n,
        })
    }

    /// Number of descriptors (at least 1).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Descriptor `i` (`i < len`).
    #[inline]
    pub(crate) fn desc(&self, i: usize) -> Desc {
        Desc::at(self.descs.wrapping_add(i.wrapping_mul(self.desc_stride)))
    }

    /// Bytes the cache hook is given for one descriptor: its stride, whole lines.
    #[inline]
    pub(crate) fn desc_bytes(&self) -> usize {
        self.desc_stride
    }

    /// Bus address of descriptor `i` (`i < len`).
    #[inline]
    pub(crate) fn desc_bus(&self, i: usize) -> u64 {
        // Exact: inside the carved span, which fits in the set-up's address bits.
        self.desc_bus
            .wrapping_add(i.wrapping_mul(self.desc_stride) as u64)
    }

    /// Buffer `i` (CPU pointer, `i < len`).
    #[inline]
    pub(crate) fn buf_ptr(&self, i: usize) -> *mut u8 {
        self.bufs.wrapping_add(i.wrapping_mul(self.buf_stride))
    }

    /// Bus address of buffer `i` (`i < len`).
    #[inline]
    pub(crate) fn buf_bus(&self, i: usize) -> u64 {
        // Exact: inside the carved span, which fits in the set-up's address bits.
        self.buf_bus
            .wrapping_add(i.wrapping_mul(self.buf_stride) as u64)
    }

    /// The highest bus address the DMA reaches through the ring, inclusive: the last byte of
    /// the last descriptor or of the last buffer's first `buf_size` bytes, whichever is
    /// higher (what a ring start checks against the MAC's address width).
    pub(crate) fn top(&self, buf_size: usize) -> u64 {
        let last = self.len().saturating_sub(1);
        let desc = self
            .desc_bus(last)
            .saturating_add(self.desc_stride.saturating_sub(1) as u64);
        let buf = self
            .buf_bus(last)
            .saturating_add(buf_size.saturating_sub(1) as u64);
        desc.max(buf)
    }

    /// The low 32 bits of [`buf_bus`](Self::buf_bus) (all of it for a 32-bit set-up).
    #[inline]
    pub(crate) fn buf_bus_lo(&self, i: usize) -> u32 {
        (self.buf_bus as u32).wrapping_add(i.wrapping_mul(self.buf_stride) as u32)
    }

    /// Bytes the cache hook is given for the first `len` bytes of a buffer: whole lines,
    /// at most the buffer's stride.
    #[inline]
    pub(crate) fn buf_bytes(&self, len: usize) -> usize {
        round_up(len, self.line).min(self.buf_stride)
    }

    /// Bytes the cache hook is given for a whole buffer.
    #[inline]
    pub(crate) fn buf_stride(&self) -> usize {
        self.buf_stride
    }

    /// Whether `i` is the last descriptor (TER / RER).
    #[inline]
    pub(crate) fn is_last(&self, i: usize) -> bool {
        i == self.len.wrapping_sub(1)
    }

    /// The descriptor before `i` (`i < len`), wrapping.
    #[inline]
    pub(crate) fn prev(&self, i: usize) -> usize {
        if i == 0 || i >= self.len {
            self.len.wrapping_sub(1)
        } else {
            i.wrapping_sub(1)
        }
    }

    /// The descriptor after `i` (`i < len`), wrapping: one compare, no division.
    #[inline]
    pub(crate) fn next(&self, i: usize) -> usize {
        if i >= self.len.wrapping_sub(1) {
            0
        } else {
            i.wrapping_add(1)
        }
    }

    /// `i % len`. Callers pass `from + k` with `from < len` and `k <= len`, so one
    /// subtraction wraps it; the division (a library call on a Cortex-A9, which has no
    /// divide instruction) is only a fallback.
    #[inline]
    pub(crate) fn wrap(&self, i: usize) -> usize {
        if i < self.len {
            i
        } else if i.wrapping_sub(self.len) < self.len {
            i.wrapping_sub(self.len)
        } else {
            i.checked_rem(self.len).unwrap_or(0)
        }
    }
}

/// Largest ring this crate builds (indices stay far from overflow in every computation).
pub const MAX_RING: usize = 4096;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::common::{ConfigError, Error};
    use crate::common::{DescLayout, DmaConfig};
    use crate::dma::barrier::DoorbellSync;
    use crate::dma::{CacheOps, Coherent, WithSync};

    /// Counts pre-doorbell calls; records line operations.
    #[derive(Default)]
    struct Count(core::cell::Cell<u32>);
    impl DoorbellSync for Count {
        fn before_doorbell(&self) {
            self.0.set(self.0.get() + 1);
        }
    }
    #[derive(Default)]
    struct Lines(core::cell::Cell<(usize, usize, u32)>);
    // SAFETY: test only; touches no cache.
    unsafe impl CacheOps for Lines {
        fn line(&self) -> usize {
            32
        }
        fn clean(&self, _p: *const u8, len: usize) {
            let (c, i, d) = self.0.get();
            self.0.set((c + len, i, d));
        }
        fn invalidate(&self, _p: *const u8, len: usize) {
            let (c, i, d) = self.0.get();
            self.0.set((c, i + len, d));
        }
        fn before_doorbell(&self) {
            let (c, i, d) = self.0.get();
            self.0.set((c, i, d + 1));
        }
    }

    fn via_ref<C: CacheOps>(c: C) {
        c.before_doorbell();
    }

    #[test]
    fn with_sync_forwards_lines_and_adds_the_pre_doorbell_step() {
        let w = WithSync::new(Lines::default(), Count::default());
        assert_eq!(w.line(), 32);
        w.clean(core::ptr::null(), 64);
        w.invalidate(core::ptr::null(), 96);
        w.before_doorbell();
        via_ref(&w);
        assert_eq!(w.cache().0.get(), (64, 96, 2));
        assert_eq!(w.sync().0.get(), 2);
        // The default hook does nothing (and is reachable through a reference).
        Coherent.before_doorbell();
        assert_eq!(Coherent.line(), 1);
    }

    /// Bus address = the low 32 bits of the host address (linear inside one test region).
    struct Low;
    // SAFETY: test only; the regions are never given to a DMA.
    unsafe impl DmaAddr for Low {
        fn bus_addr(&self, p: *const u8) -> Option<u32> {
            Some(p as usize as u32)
        }
    }

    fn region() -> DmaRegion {
        let mem: &'static mut [u8] = Box::leak(vec![0u8; 64 * 1024].into_boxed_slice());
        DmaRegion::from_static(mem)
    }

    #[test]
    fn carve_rechecks_the_setup() {
        let good = DmaConfig::default()
            .resolve_detected(DescLayout::Normal, None, 32)
            .unwrap();
        assert!(RingGeometry::carve(&region(), &Low, &good, 4, 64).is_ok());
        // What a hand-made set-up could say (the fields are private outside the crate;
        // `carve` does not rely on that).
        let bad = [
            (
                DmaSetup {
                    desc_stride: 2,
                    ..good
                },
                ConfigError::DescriptorStride,
            ),
            (
                DmaSetup {
                    cache_line: 4,
                    desc_stride: 4,
                    ..good
                },
                ConfigError::CacheLine,
            ),
            (
                DmaSetup {
                    cache_line: 48,
                    desc_stride: 48,
                    ..good
                },
                ConfigError::CacheLine,
            ),
            (
                DmaSetup {
                    bus_width: 2,
                    ..good
                },
                ConfigError::BusWidth,
            ),
            (
                DmaSetup {
                    cache_line: 64,
                    desc_stride: 32,
                    ..good
                },
                ConfigError::DescriptorStride,
            ),
            (DmaSetup { dsl: 3, ..good }, ConfigError::DescriptorSkip),
        ];
        for (s, want) in bad {
            assert_eq!(
                RingGeometry::carve(&region(), &Low, &s, 4, 64).map(|_| ()),
                Err(Error::Config(want)),
                "{s:?}"
            );
        }
    }
}
