//! The DMA set-up both rings share: the descriptor layout ([`DescLayout`]), the bus
//! configuration ([`DmaConfig`]) and what a core accepted of it ([`DmaSetup`]).

use crate::common::{Coe, ConfigError};

/// The descriptor format the core was synthesised with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DescLayout {
    /// Normal descriptors: control in TDES1/RDES1, 11-bit buffer sizes (QEMU's npcm-gmac,
    /// most GMAC 3.x integrations).
    Normal,
    /// Enhanced (alternate) descriptors: TX control in TDES0, 13-bit buffer sizes
    /// (STM32F4/F7-class GMAC 3.x; HW_FEATURE.ENHDESSEL).
    Enhanced,
    /// QoS 4.x/5.x normal descriptors: OWN and the status in word 3, the buffer
    /// address in words 0–1 (up to 48 bits), IOC in TDES2, the RX buffer size in
    /// DMA_CHAN_RX_CONTROL.RBSZ, no end-of-ring bit (the ring-length register wraps).
    /// Resolved by a QoS core's [`Dwmac::configure_dma`](crate::Dwmac::configure_dma)
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

    /// Whether this is the QoS 4.x/5.x layout ([`DescLayout::Qos`]).
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
    /// here is checked against HW_FEATURE ([`Dwmac::configure_dma`](crate::Dwmac::configure_dma) refuses a
    /// disagreement), so it cannot put TER/RER in the wrong bit. Cores older than 3.50a
    /// have no HW_FEATURE (Linux then takes the layout from the device tree): their layout
    /// is an `unsafe` promise, [`resolve_assuming_layout`](Self::resolve_assuming_layout)
    /// ([`Gmac3::configure_dma_assuming_layout`](crate::Gmac3::configure_dma_assuming_layout)).
    pub layout: Option<DescLayout>,
    /// Cache line size in bytes: a power of two from 16 to 256. Every descriptor and buffer
    /// starts on a line and is padded to whole lines. Use 16 (the descriptor size) for
    /// uncached or coherent memory.
    pub cache_line: usize,
    /// Width of the DMA's bus in bytes (4, 8 or 16): the unit of DMA_BUS_MODE.DSL, and of
    /// the RX buffer size (the DMA keeps it in multiples of its width). A QoS RX ring
    /// reads RBSZ back at its start and refuses a size the core rounded
    /// ([`Error::BufSizeMismatch`](crate::Error::BufSizeMismatch)); a GMAC 3.x keeps the
    /// size in each descriptor and cannot tell, so give the real width there, or RX buffer
    /// sizes that are multiples of 16 (right for every width).
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
    /// `detected` (the caller's decode of its feature registers: `gmac3::resolve_dma`
    /// and `qos::resolve_dma`), its checksum engines `coe` and its DMA address width
    /// `addr_bits`. A [`layout`](Self::layout) given in the configuration is *validated*:
    /// it must be `detected`.
    ///
    /// Errors: [`ConfigError::LayoutMismatch`] when `layout` disagrees; the geometry errors
    /// of [`resolve_assuming_layout`](Self::resolve_assuming_layout).
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

/// The resolved DMA set-up, built only by [`Dwmac::configure_dma`](crate::Dwmac::configure_dma)
/// (or the `unsafe` [`DmaConfig::resolve_assuming_layout`]); both rings are built for it.
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
    pub(crate) layout: DescLayout,
    pub(crate) cache_line: usize,
    pub(crate) desc_stride: usize,
    pub(crate) dsl: u8,
    pub(crate) pbl: u8,
    pub(crate) bus_width: usize,
    pub(crate) csr_hz: u32,
    pub(crate) coe: Option<Coe>,
    pub(crate) addr_bits: u8,
}

impl DmaSetup {
    /// Bus address bits the DMA drives: 32 on 3.x, 32/40/48 on 4.x
    /// (HW_FEATURE1.ADDR64). The rings refuse memory above it ([`Error::DmaAddress`](crate::Error::DmaAddress)).
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
    /// within DSL's 5 bits. `resolve_dma` builds only set-ups that pass, and
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
/// `#[inline]`: the ring geometry calls it for every frame sent, and without the
/// hint a downstream crate (the firmware) made a real call across the crate boundary, with
/// the registers it needs saved around it, for a length that a coherent [`CacheOps`](crate::CacheOps) then
/// ignores.
#[inline]
pub(crate) const fn round_up(v: usize, to: usize) -> usize {
    let mask = to.wrapping_sub(1);
    match v.checked_add(mask) {
        Some(x) => x & !mask,
        None => usize::MAX & !mask,
    }
}
