//! Descriptor geometry: the layout, the bus configuration ([`DmaConfig`]), what a core
//! accepted of it ([`DmaSetup`]), and how a ring is carved from its region.

use crate::common::{ConfigError, Error};
use crate::dma::Desc;
use crate::dma::{Coe, DmaAddr, DmaRegion};

/// The descriptor format the core was synthesised with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DescLayout {
    /// Normal descriptors: control in TDES1/RDES1, 11-bit buffer sizes (QEMU's npcm-gmac,
    /// most GMAC 3.x integrations).
    Normal,
    /// Enhanced (alternate) descriptors: TX control in TDES0, 13-bit buffer sizes
    /// (STM32F4/F7-class DWMAC 3.x; HW_FEATURE.ENHDESSEL).
    Enhanced,
    /// DWMAC 4.x/5.x (QoS) normal descriptors: OWN and the status in word 3, the buffer
    /// address in words 0–1 (up to 48 bits), IOC in TDES2, the RX buffer size in
    /// DMA_CHAN_RX_CONTROL.RBSZ, no end-of-ring bit (the ring-length register wraps).
    /// Resolved by [`qos::resolve_dma`](crate::qos::resolve_dma) ([`Dwmac::configure_dma`](crate::Dwmac::configure_dma))
    /// only; a 3.x MAC refuses to start a ring of this layout, and a 4.x MAC one of the
    /// others.
    Qos,
}

impl DescLayout {
    /// Largest buffer-1 size the layout can describe (TBS1/RBS1: 11 or 13 bits).
    pub const fn max_buf_size(self) -> usize {
        match self {
            DescLayout::Normal => 0x7FF,
            DescLayout::Enhanced => 0x1FFF,
            // TDES2.B1L is 14 bits; RBSZ takes at most 16 KiB in multiples of 4.
            DescLayout::Qos => 0x3FFC,
        }
    }

    /// Whether this is the DWMAC 4.x/5.x layout ([`DescLayout::Qos`]).
    #[inline(always)]
    pub const fn is_qos(self) -> bool {
        matches!(self, DescLayout::Qos)
    }
}

/// The most descriptors a QoS ring holds: its ring length register (DMA_CH0_TX/RX_RING_LEN,
/// 10 bits + 1; Linux `dwmac4_dma.h`) holds at most 1024.
pub(crate) const MAX_QOS_RING: usize = 1024;

/// Bytes of one descriptor in either layout (ATDS clear).
pub const DESC_SIZE: usize = 16;

/// DMA set-up shared by both rings: descriptor layout and memory geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaConfig {
    /// The descriptor layout expected; `None` takes it from HW_FEATURE.ENHDESSEL. A value
    /// here is checked against HW_FEATURE ([`gmac3::resolve_dma`](crate::gmac3::resolve_dma) refuses a
    /// disagreement), so it cannot put TER/RER in the wrong bit. Cores older than 3.50a
    /// have no HW_FEATURE (Linux then takes the layout from the device tree): their layout
    /// is an `unsafe` promise, [`resolve_assuming_layout`](Self::resolve_assuming_layout)
    /// ([`Gmac3::configure_dma_assuming_layout`](crate::Gmac3::configure_dma_assuming_layout)).
    pub layout: Option<DescLayout>,
    /// Cache line size in bytes: a power of two from 16 to 256. Every descriptor and buffer
    /// starts on a line and is padded to whole lines. Use 16 (the descriptor size) for
    /// uncached or coherent memory.
    pub cache_line: usize,
    /// Width of the DMA's bus in bytes (4, 8 or 16): the unit of DMA_BUS_MODE.DSL.
    pub bus_width: usize,
    /// Programmable burst length (DMA_BUS_MODE.PBL, 1..=32 beats; Linux's default 8).
    pub pbl: u8,
    /// The CSR clock in Hz (the unit of RIWT, 256 cycles); 0 = unknown, which refuses the
    /// RX watchdog (`rx_usecs > 0`).
    pub csr_hz: u32,
}

impl Default for DmaConfig {
    /// Layout from HW_FEATURE, 16-byte lines (no padding), 32-bit bus, PBL 8, CSR clock
    /// unknown.
    fn default() -> Self {
        Self {
            layout: None,
            cache_line: 16,
            bus_width: 4,
            pbl: 8,
            csr_hz: 0,
        }
    }
}

impl DmaConfig {
    /// Check the values and compute the geometry for a core whose features announce
    /// `detected` (the caller's decode of its feature registers: [`gmac3::resolve_dma`]
    /// and [`qos::resolve_dma`]), its checksum engines `coe` and its DMA address width
    /// `addr_bits`. A [`layout`](Self::layout) given in the configuration is *validated*:
    /// it must be `detected`.
    ///
    /// Errors: [`ConfigError::LayoutMismatch`] when `layout` disagrees; the geometry errors
    /// of [`resolve_assuming_layout`](Self::resolve_assuming_layout).
    ///
    /// [`gmac3::resolve_dma`]: crate::gmac3::resolve_dma
    /// [`qos::resolve_dma`]: crate::qos::resolve_dma
    pub(crate) fn resolve_detected(
        &self,
        detected: DescLayout,
        coe: Option<Coe>,
        addr_bits: u8,
    ) -> Result<DmaSetup, ConfigError> {
        if self.layout.is_some_and(|l| l != detected) {
            return Err(ConfigError::LayoutMismatch);
        }
        let setup = self.geometry(detected)?;
        Ok(DmaSetup {
            coe,
            addr_bits,
            ..setup
        })
    }

    /// Check the values and compute the geometry with the descriptor layout taken from
    /// `layout` and no feature register consulted (GMAC 3.x cores older than 3.50a; Linux
    /// takes the layout from the device tree there). [`DmaConfig::layout`] is ignored.
    ///
    /// Errors: [`ConfigError::CacheLine`] unless `cache_line` is a power of two in
    /// 16..=256; [`ConfigError::BusWidth`] unless `bus_width` is 4, 8 or 16;
    /// [`ConfigError::Pbl`] unless `pbl` is 1..=32; [`ConfigError::DescriptorSkip`] when
    /// the padding between descriptors does not fit DSL's bits.
    ///
    /// # Safety
    /// `layout` must be the layout the core was synthesised with. With the wrong one,
    /// TER/RER sit in the wrong bit: the DMA does not wrap at the end of the ring and walks
    /// on into the buffers, whose bytes (chosen by a remote sender) it then takes for
    /// descriptors.
    pub unsafe fn resolve_assuming_layout(
        &self,
        layout: DescLayout,
    ) -> Result<DmaSetup, ConfigError> {
        self.geometry(layout)
    }

    fn geometry(&self, layout: DescLayout) -> Result<DmaSetup, ConfigError> {
        if !matches!(self.bus_width, 4 | 8 | 16) {
            return Err(ConfigError::BusWidth);
        }
        if !(1..=32).contains(&self.pbl) {
            return Err(ConfigError::Pbl);
        }
        let setup = DmaSetup {
            layout,
            cache_line: self.cache_line,
            desc_stride: round_up(DESC_SIZE, self.cache_line),
            dsl: 0,
            pbl: self.pbl,
            bus_width: self.bus_width,
            csr_hz: self.csr_hz,
            coe: None,
            addr_bits: 32,
        };
        let dsl = setup.check()?;
        Ok(DmaSetup { dsl, ..setup })
    }
}

/// The resolved DMA set-up, built only by [`gmac3::resolve_dma`](crate::gmac3::resolve_dma) (usually through
/// [`Dwmac::configure_dma`](crate::Dwmac::configure_dma)); both rings are built for it.
///
/// It is opaque: its values are read through the getters and cannot be made up by hand,
/// and the rings check it again when they carve their memory. The geometry the DMA walks
/// (DSL) is tied to it: [`Dwmac::configure_dma`](crate::Dwmac::configure_dma) programs
/// DMA_BUS_MODE from it, and each ring's `start` reads DSL back and refuses to start the
/// DMA when it differs from the ring's own stride.
///
/// ```compile_fail
/// // Fields are private: a hand-made set-up (a 2-byte stride: misaligned descriptors)
/// // does not compile.
/// let s = stmmac_coalesce::DmaSetup {
///     layout: stmmac_coalesce::DescLayout::Normal,
///     cache_line: 4, desc_stride: 2, dsl: 0, pbl: 8, bus_width: 4, csr_hz: 0,
/// };
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaSetup {
    layout: DescLayout,
    cache_line: usize,
    desc_stride: usize,
    dsl: u8,
    pbl: u8,
    bus_width: usize,
    csr_hz: u32,
    coe: Option<Coe>,
    addr_bits: u8,
}

impl DmaSetup {
    /// Bus address bits the DMA drives: 32 on 3.x, 32/40/48 on 4.x
    /// (HW_FEATURE1.ADDR64). The rings refuse memory above it ([`Error::DmaAddress`]).
    pub const fn addr_bits(&self) -> u8 {
        self.addr_bits
    }

    /// The checksum offload engines HW_FEATURE announced, `None` when the set-up was
    /// resolved without HW_FEATURE
    /// ([`resolve_assuming_layout`](DmaConfig::resolve_assuming_layout)).
    pub const fn coe(&self) -> Option<Coe> {
        self.coe
    }

    /// The descriptor layout in use.
    pub const fn layout(&self) -> DescLayout {
        self.layout
    }

    /// Cache line size (alignment and padding of descriptors and buffers).
    pub const fn cache_line(&self) -> usize {
        self.cache_line
    }

    /// Bytes from one descriptor to the next.
    pub const fn desc_stride(&self) -> usize {
        self.desc_stride
    }

    /// DMA_BUS_MODE.DSL for that stride.
    pub const fn dsl(&self) -> u8 {
        self.dsl
    }

    /// DMA_BUS_MODE.PBL.
    pub const fn pbl(&self) -> u8 {
        self.pbl
    }

    /// DMA bus width in bytes.
    pub const fn bus_width(&self) -> usize {
        self.bus_width
    }

    /// CSR clock in Hz (0 = unknown).
    pub const fn csr_hz(&self) -> u32 {
        self.csr_hz
    }

    /// Check the geometry and return the DSL it needs: the cache line a power of two in
    /// 16..=256, the stride `round_up(16, line)`, the bus width 4, 8 or 16, the padding
    /// within DSL's 5 bits. [`gmac3::resolve_dma`](crate::gmac3::resolve_dma) builds only set-ups that pass, and
    /// `carve` checks again (a set-up that does not pass could give misaligned descriptor
    /// accesses or a ring that overruns its region).
    pub(crate) fn check(&self) -> Result<u8, ConfigError> {
        if !self.cache_line.is_power_of_two() || !(16..=256).contains(&self.cache_line) {
            return Err(ConfigError::CacheLine);
        }
        if !matches!(self.bus_width, 4 | 8 | 16) {
            return Err(ConfigError::BusWidth);
        }
        if self.desc_stride != round_up(DESC_SIZE, self.cache_line) {
            return Err(ConfigError::DescriptorStride);
        }
        // `bus_width` is 4, 8 or 16 (checked above), `stride >= DESC_SIZE`.
        let dsl = self
            .desc_stride
            .saturating_sub(DESC_SIZE)
            .checked_div(self.bus_width)
            .unwrap_or(0);
        // DSL is 5 bits in DMA_BUS_MODE (3.x), 3 bits in DMA_CHAN_CONTROL (4.x).
        let max = if self.layout.is_qos() { 7 } else { 31 };
        u8::try_from(dsl)
            .ok()
            .filter(|d| *d <= max)
            .ok_or(ConfigError::DescriptorSkip)
    }
}

/// `v` rounded up to a multiple of `to` (a power of two), saturating.
///
/// `#[inline]`: [`RingGeometry::buf_bytes`] calls it for every frame sent, and without the
/// hint a downstream crate (the firmware) made a real call across the crate boundary, with
/// the registers it needs saved around it, for a length that a coherent [`CacheOps`] then
/// ignores.
#[inline]
pub(crate) const fn round_up(v: usize, to: usize) -> usize {
    let mask = to.wrapping_sub(1);
    match v.checked_add(mask) {
        Some(x) => x & !mask,
        None => usize::MAX & !mask,
    }
}

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
        // in descriptor 2's (32-byte lines) or 3's padding (docs/dwmac.md#dma-boundary).
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
