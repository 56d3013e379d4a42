//! A behavioural DWMAC (GMAC 3.x) and PHY in virtual time, a sim DMA arena (coherent or
//! not), an ordering trace, and the seed-proof measurements (feature `sim`, host only).
//!
//! [`DwmacModel`] is a [`SimModel`] for the whole block (MAC at 0, DMA at 0x1000). Its DMA
//! really walks the descriptors the driver wrote, in a [`SimArena`]: memory with 32-bit bus
//! addresses, so the driver code is the same as on target. It behaves as the DWMAC facts in
//! `docs/dwmac.md` say, and like QEMU's npcm-gmac where those are silent:
//!
//! - **Descriptors**: normal or enhanced layout ([`DwmacModel::with_layout`], announced in
//!   HW_FEATURE.ENHDESSEL), 16 bytes plus DMA_BUS_MODE.DSL × bus width between them in ring
//!   mode ([`DwmacModel::with_bus_width`]). QEMU ignores DSL and knows only normal ones.
//! - **TX**: a write to DMA_XMT_POLL_DEMAND, or to DMA_CONTROL with ST set, walks DMA-owned
//!   descriptors from the current one: buffer 1 (and buffer 2 unless TCH), FS…LS assemble one
//!   frame, recorded with its time ([`SentFrame`]); OWN is cleared; TI is raised when the
//!   frame's last descriptor has IC; TER wraps to the list base, TCH follows TDES3. At the
//!   first descriptor not owned it sets TU and TS = suspended. Sending is synchronous (the
//!   frame completes inside the MMIO write, as in QEMU). Faults on demand
//!   ([`DwmacModel::fail_tx`]): TPS, UNF, FBI stop the process until ST is written again.
//! - **RX**: [`DwmacModel::inject`] delivers a frame (with its FCS, 4 more bytes) through the
//!   frame filter into DMA-owned descriptors, **spilling across descriptors** when it is
//!   longer than RBS1: FS on the first, LS with FL (frame + FCS) on the last, ES when it
//!   could not be stored. When the DMA runs out of descriptors mid-frame, the rest waits (as
//!   in the RX FIFO) and continues, without FS, after a poll demand. RI when the last
//!   descriptor's DIC is clear (which also stops the watchdog); with DIC set and RIWT ≠ 0,
//!   RI when the watchdog (RIWT × 256 CSR clocks after the first uncovered frame) expires.
//!   No descriptor for a new frame: RU, frame dropped. QEMU's double write of the last
//!   descriptor (OWN clear without LS, then LS) on demand
//!   ([`DwmacModel::set_split_last_write`]).
//! - **Filter** (QEMU has none): PR / RA pass all; broadcast unless DBF; multicast with PM,
//!   or through the 64-bin hash with HMC; unicast only to MAC address 0.
//! - **Line** ([`DwmacModel::with_phy`]): with an [`AnPhy`] attached, frames pass only while
//!   GMAC_CONTROL's TE/RE, PS/FES and DM match the link the PHY negotiated (QEMU ignores
//!   PS/FES); mismatches are counted, not delivered.
//! - **STATUS**: bits 0–16 write-1-to-clear; NIS/AIS summarise the *enabled* sources;
//!   TS/RS report the process states.
//! - **MDIO**: MII_ADDR with GB starts a frame on an [`MdioDevice`]; GB clears one MDIO frame
//!   time later (MDC = CSR clock / CR divider), or never when [stuck](DwmacModel::set_mdio_stuck).
//! - **Reset**: DMA_BUS_MODE.SWR resets the registers and self-clears after
//!   [`SWR_NS`] (or never, [`DwmacModel::set_swr_stuck`]).
//!
//! Assumptions where the sources say nothing: RIWT restarts when a DIC-clear frame raises RI;
//! intermediate RX descriptors carry FL 0; a faulted TX process keeps its descriptors owned;
//! stopping RX (SR cleared) abandons a frame that was waiting for descriptors.

pub mod seed;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::vec::Vec;

use hwtimer_core::sim::SimModel;
use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use crate::dma::{CacheOps, DescLayout, DmaAddr, DmaRegion};
use crate::phy::{Duplex, LinkState, Speed, resolve};
use crate::regs::{self, desc::*, edesc, mii};

/// Virtual time the model keeps DMA_BUS_MODE.SWR set after a reset request.
pub const SWR_NS: u64 = 1_000;
/// GMAC_VERSION of the model (QEMU's npcm-gmac value).
pub const VERSION: u32 = 0x1032;
/// DMA_HW_FEATURE of the model with normal descriptors (QEMU's value).
pub const HW_FEATURE: u32 = 0x100D_4F37;
/// CSR clock of the model and of the seed-proof setups: 125 MHz (MDC /62 ≈ 2.02 MHz).
pub const SIM_CSR_HZ: u32 = 125_000_000;

/// The ordering trace: descriptor stores, barriers and doorbells, per thread, recorded
/// only between [`start`](trace::start) and [`take`](trace::take).
pub mod trace {
    use std::cell::RefCell;
    use std::vec::Vec;

    /// One recorded step.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Event {
        /// A descriptor word other than word 0 was written.
        DescStore,
        /// Descriptor word 0 (the owner word) was written.
        OwnerStore,
        /// [`dma_wmb`](crate::barrier::dma_wmb).
        DmaWmb,
        /// [`wmb`](crate::barrier::wmb).
        Wmb,
        /// A poll-demand (doorbell) MMIO write.
        Doorbell,
    }

    thread_local! {
        static TRACE: RefCell<Option<Vec<Event>>> = const { RefCell::new(None) };
    }

    /// Start recording (clears what was recorded).
    pub fn start() {
        TRACE.with(|t| *t.borrow_mut() = Some(Vec::new()));
    }

    /// Stop recording and return the events.
    pub fn take() -> Vec<Event> {
        TRACE.with(|t| t.borrow_mut().take().unwrap_or_default())
    }

    pub(crate) fn record(e: Event) {
        TRACE.with(|t| {
            if let Some(v) = t.borrow_mut().as_mut() {
                v.push(e);
            }
        });
    }
}

struct ArenaInner {
    /// The CPU's view (its cache, when the arena is not coherent).
    host: *mut u8,
    len: usize,
    bus_base: u32,
    next: Cell<usize>,
    /// Memory as the DMA sees it, when not coherent; `None` = coherent.
    ram: Option<RefCell<Vec<u8>>>,
    line: usize,
    cleans: Cell<u64>,
    invalidates: Cell<u64>,
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
            if self.inner.ram.is_some() {
                ", non-coherent"
            } else {
                ""
            }
        )
    }
}

impl SimArena {
    fn build(bus_base: u32, len: usize, line: usize, coherent: bool) -> Self {
        let words = len.div_ceil(256).max(1) * 16;
        // Over-allocate by 256 bytes so the start can be aligned to any line up to 256.
        let mem: &'static mut [u128] = Vec::leak(vec![0u128; words + 16]);
        let raw = mem.as_mut_ptr().cast::<u8>();
        let host = raw.wrapping_add(raw.align_offset(256));
        let len = words * 16;
        let base = bus_base & !0xFF;
        let max = (u32::MAX - base) as usize;
        let len = len.min(max);
        Self {
            inner: Rc::new(ArenaInner {
                host,
                len,
                bus_base: base,
                next: Cell::new(0),
                ram: (!coherent).then(|| RefCell::new(vec![0; len])),
                line,
                cleans: Cell::new(0),
                invalidates: Cell::new(0),
            }),
        }
    }

    /// A coherent arena of `len` bytes (rounded up to 256) at bus address `bus_base`
    /// (rounded down to 256). The memory is leaked: arenas live for the whole test process.
    pub fn new(bus_base: u32, len: usize) -> Self {
        Self::build(bus_base, len, 16, true)
    }

    /// A non-coherent arena with cache lines of `line` bytes (see the type docs); use
    /// [`cache`](Self::cache) as the rings' [`CacheOps`].
    pub fn non_coherent(bus_base: u32, len: usize, line: usize) -> Self {
        Self::build(
            bus_base,
            len,
            line.clamp(16, 256).next_power_of_two(),
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

    fn host(&self, bus: u32, len: usize) -> Option<usize> {
        let off = bus.checked_sub(self.inner.bus_base)? as usize;
        if off.checked_add(len)? > self.inner.len {
            return None;
        }
        Some(off)
    }

    /// Copy `len` bytes at a bus address, as the DMA sees them.
    pub fn read_bytes(&self, bus: u32, len: usize) -> Option<Vec<u8>> {
        let off = self.host(bus, len)?;
        match &self.inner.ram {
            Some(ram) => ram.borrow().get(off..off + len).map(<[u8]>::to_vec),
            None => {
                // SAFETY: in bounds (checked by `host`); plain bytes of the leaked arena,
                // read while no reference to them is held (the driver uses raw pointers).
                Some(unsafe { core::slice::from_raw_parts(self.inner.host.add(off), len) }.to_vec())
            }
        }
    }

    /// Write bytes at a bus address, as the DMA does.
    pub fn write_bytes(&self, bus: u32, data: &[u8]) -> bool {
        let Some(off) = self.host(bus, data.len()) else {
            return false;
        };
        match &self.inner.ram {
            Some(ram) => {
                if let Some(d) = ram.borrow_mut().get_mut(off..off + data.len()) {
                    d.copy_from_slice(data);
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
    pub fn read_u32(&self, bus: u32) -> Option<u32> {
        let b = self.read_bytes(bus, 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Write a little-endian word at a bus address.
    pub fn write_u32(&self, bus: u32, v: u32) -> bool {
        self.write_bytes(bus, &v.to_le_bytes())
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
        let off = (ptr as usize).checked_sub(self.inner.host as usize)?;
        if off >= self.inner.len {
            return None;
        }
        self.inner.bus_base.checked_add(u32::try_from(off).ok()?)
    }
}

/// Cache maintenance of a [`SimArena`] (see [`SimArena::non_coherent`]); on a coherent
/// arena it only counts.
#[derive(Debug, Clone)]
pub struct SimCache {
    arena: SimArena,
}

impl CacheOps for SimCache {
    fn clean(&self, ptr: *const u8, len: usize) {
        let a = &self.arena.inner;
        a.cleans.set(a.cleans.get() + 1);
        let (Some(ram), Some((start, end))) = (&a.ram, self.arena.lines(ptr, len)) else {
            return;
        };
        // SAFETY: [start, end) is inside the arena (checked by `lines`); plain bytes read
        // while the driver holds no reference to them.
        let src = unsafe { core::slice::from_raw_parts(a.host.add(start), end - start) };
        if let Some(d) = ram.borrow_mut().get_mut(start..end) {
            d.copy_from_slice(src);
        }
    }

    fn invalidate(&self, ptr: *const u8, len: usize) {
        let a = &self.arena.inner;
        a.invalidates.set(a.invalidates.get() + 1);
        let (Some(ram), Some((start, end))) = (&a.ram, self.arena.lines(ptr, len)) else {
            return;
        };
        if let Some(s) = ram.borrow().get(start..end) {
            // SAFETY: as in `clean`; the destination is arena memory, the source the
            // separate RAM image.
            unsafe { core::ptr::copy_nonoverlapping(s.as_ptr(), a.host.add(start), s.len()) };
        }
    }
}

/// A frame the model's TX DMA sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFrame {
    /// Virtual time it was sent (and its descriptor released).
    pub at_ns: u64,
    /// The frame bytes.
    pub bytes: Vec<u8>,
    /// Whether its last descriptor had IC.
    pub ic: bool,
}

/// The IEEE 802.3 CRC-32 (the FCS), as the MAC appends it (little-endian on the wire).
pub fn fcs(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An Ethernet frame of `len` bytes (without FCS) to `dst` from 02:00:00:00:00:01, EtherType
/// 0x88B5 (local experimental), payload `fill` except a running byte counter in every
/// 64th byte (so misplaced bytes show).
pub fn eth_frame(dst: [u8; 6], len: usize, fill: u8) -> Vec<u8> {
    let mut f = vec![fill; len.max(14)];
    f[..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    f[12] = 0x88;
    f[13] = 0xB5;
    for (i, b) in f.iter_mut().enumerate().skip(14) {
        if i % 64 == 0 {
            *b = (i / 64) as u8;
        }
    }
    f.truncate(len.max(14));
    f
}

/// A TX fault to inject ([`DwmacModel::fail_tx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxFault {
    /// The TX process stops (TPS).
    Stop,
    /// Underflow (UNF) and the TX process stops (TPS).
    Underflow,
    /// Fatal bus error (FBI): both processes stop.
    BusError,
}

/// The link partner of an [`AnPhy`]: its abilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partner {
    /// LPA bits (10/100 abilities, ADVERTISE_* positions).
    pub lpa: u16,
    /// 1000BASE-T full duplex.
    pub g_full: bool,
    /// 1000BASE-T half duplex.
    pub g_half: bool,
}

#[derive(Debug)]
struct AnState {
    addr: PhyAddr,
    bmcr: u16,
    adv: u16,
    ctrl1000: u16,
    partner: Partner,
    cable: bool,
    an_done_at: Option<u64>,
    an_ns: u64,
    latched_down: bool,
    reads: u64,
}

/// A Clause 22 PHY with autonegotiation in virtual time (a BCM54612E's ID and abilities):
/// BMCR.ANRESTART starts a negotiation that completes [`AN_NS`] later; the link is down
/// meanwhile (BMSR.LSTATUS latches low); then LPA / STAT1000 show the partner and the
/// negotiated link is the highest common mode. Clones share the PHY (one for the MDIO bus,
/// one for [`DwmacModel::with_phy`]).
#[derive(Debug, Clone)]
pub struct AnPhy {
    s: Rc<RefCell<AnState>>,
}

/// How long the model's autonegotiation takes.
pub const AN_NS: u64 = 2_000_000;

impl AnPhy {
    /// A PHY at address 0 with a cable to `partner`, not negotiated yet.
    pub fn new(partner: Partner) -> Self {
        Self {
            s: Rc::new(RefCell::new(AnState {
                addr: PhyAddr::from_bits(0),
                bmcr: mii::BMCR_ANENABLE,
                adv: 0x01E1,
                ctrl1000: 0,
                partner,
                cable: true,
                an_done_at: None,
                an_ns: AN_NS,
                latched_down: true,
                reads: 0,
            })),
        }
    }

    /// A partner with everything up to 1000BASE-T full duplex.
    pub fn gigabit() -> Self {
        Self::new(Partner {
            lpa: 0x41E1,
            g_full: true,
            g_half: true,
        })
    }

    /// A partner that stops at 100BASE-TX full duplex.
    pub fn fast_ethernet() -> Self {
        Self::new(Partner {
            lpa: 0x41E1,
            g_full: false,
            g_half: false,
        })
    }

    /// A 10BASE-T half-duplex-only partner.
    pub fn ten_half() -> Self {
        Self::new(Partner {
            lpa: 0x4021,
            g_full: false,
            g_half: false,
        })
    }

    /// Plug or unplug the cable; unplugging drops the link (latched) and forgets the
    /// negotiation; plugging back needs a new one (or completes the running one).
    pub fn set_cable(&self, now_ns: u64, plugged: bool) {
        let mut s = self.s.borrow_mut();
        s.cable = plugged;
        if !plugged {
            s.latched_down = true;
            s.an_done_at = None;
        } else if s.bmcr & mii::BMCR_ANENABLE != 0 {
            s.an_done_at = Some(now_ns + s.an_ns);
        }
    }

    /// MDIO reads served.
    pub fn reads(&self) -> u64 {
        self.s.borrow().reads
    }

    /// The link as the wire has it at `now_ns` (what the MAC must match).
    pub fn line(&self, now_ns: u64) -> LinkState {
        let s = self.s.borrow();
        if !s.cable {
            return LinkState::DOWN;
        }
        if s.bmcr & mii::BMCR_ANENABLE == 0 {
            let speed = if s.bmcr & mii::BMCR_SPEED1000 != 0 {
                Speed::M1000
            } else if s.bmcr & mii::BMCR_SPEED100 != 0 {
                Speed::M100
            } else {
                Speed::M10
            };
            let duplex = if s.bmcr & mii::BMCR_FULLDPLX != 0 {
                Duplex::Full
            } else {
                Duplex::Half
            };
            return LinkState::up(speed, duplex);
        }
        match s.an_done_at {
            Some(t) if now_ns >= t => resolve(s.adv, s.partner.lpa, s.ctrl1000, stat1000(&s)),
            _ => LinkState::DOWN,
        }
    }
}

fn stat1000(s: &AnState) -> u16 {
    (if s.partner.g_full {
        mii::LPA_1000FULL
    } else {
        0
    }) | (if s.partner.g_half {
        mii::LPA_1000HALF
    } else {
        0
    })
}

impl MdioDevice for AnPhy {
    fn read(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr) -> u16 {
        let line = self.line(now_ns);
        let mut s = self.s.borrow_mut();
        if phy != s.addr {
            return 0xFFFF;
        }
        s.reads += 1;
        let done = s.an_done_at.is_some_and(|t| now_ns >= t);
        match reg.get() {
            mii::BMCR => s.bmcr,
            mii::BMSR => {
                let up = line.up && !s.latched_down;
                s.latched_down = !line.up;
                0x7900
                    | mii::BMSR_ESTATEN
                    | mii::BMSR_ANEGCAPABLE
                    | 1
                    | if done { mii::BMSR_ANEGCOMPLETE } else { 0 }
                    | if up { mii::BMSR_LSTATUS } else { 0 }
            }
            mii::PHYSID1 => 0x0362,
            mii::PHYSID2 => 0x5e6a,
            mii::ADVERTISE => s.adv,
            mii::LPA if done => s.partner.lpa,
            mii::CTRL1000 => s.ctrl1000,
            mii::STAT1000 if done => stat1000(&s),
            mii::ESTATUS => mii::ESTATUS_1000_TFULL | mii::ESTATUS_1000_THALF,
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, phy: PhyAddr, reg: RegAddr, value: u16) {
        let mut s = self.s.borrow_mut();
        if phy != s.addr {
            return;
        }
        match reg.get() {
            mii::BMCR => {
                s.bmcr = value & !(mii::BMCR_ANRESTART | 0x8000);
                if value & mii::BMCR_ANENABLE != 0 && value & mii::BMCR_ANRESTART != 0 {
                    s.latched_down = true;
                    s.an_done_at = s.cable.then_some(now_ns + s.an_ns);
                }
            }
            mii::ADVERTISE => s.adv = value,
            mii::CTRL1000 => s.ctrl1000 = value,
            _ => {}
        }
    }
}

/// A frame on its way into RX descriptors.
struct RxInFlight {
    /// Frame plus FCS.
    bytes: Vec<u8>,
    /// Bytes already stored.
    done: usize,
    /// Bytes the DMA could not store (an unreachable buffer).
    error: bool,
}

/// The behavioural DWMAC; see the [module docs](self).
pub struct DwmacModel<D: MdioDevice> {
    arena: SimArena,
    mdio: D,
    csr_hz: u32,
    layout: DescLayout,
    bus_width: u32,
    control: u32,
    frame_filter: u32,
    hash: [u32; 2],
    mii_addr: u32,
    mii_data: u32,
    addr_hi: u32,
    addr_lo: u32,
    bus_mode: u32,
    tx_base: u32,
    rx_base: u32,
    cur_tx: u32,
    cur_rx: u32,
    status: u32,
    dma_control: u32,
    intr_ena: u32,
    riwt: u32,
    ts: u32,
    tx_halted: bool,
    rx_halted: bool,
    tx_fault: Option<TxFault>,
    tx_stall: bool,
    mdio_busy_until: u64,
    mdio_stuck: bool,
    mdio_frames: u64,
    swr_until: u64,
    swr_stuck: bool,
    riwt_at: Option<u64>,
    sent: Vec<SentFrame>,
    partial: Vec<u8>,
    rx_dropped: u64,
    rx_delivered: u64,
    rx_filtered: u64,
    line_mismatch: u64,
    split_last: bool,
    pending_ls: Vec<(u32, u32)>,
    rx_queue: VecDeque<Vec<u8>>,
    rx_cur: Option<RxInFlight>,
    phy: Option<AnPhy>,
    no_hw_feature: bool,
}

impl<D: MdioDevice> DwmacModel<D> {
    /// A model whose DMA sees `arena`, whose MDIO bus has `mdio` on it, clocked at `csr_hz`;
    /// normal descriptors, a 32-bit bus, no line check.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        Self {
            arena,
            mdio,
            csr_hz,
            layout: DescLayout::Normal,
            bus_width: 4,
            control: 0,
            frame_filter: 0,
            hash: [0; 2],
            mii_addr: 0,
            mii_data: 0,
            addr_hi: 0x8000_FFFF,
            addr_lo: 0xFFFF_FFFF,
            bus_mode: regs::DMA_BUS_MODE_RESET,
            tx_base: 0,
            rx_base: 0,
            cur_tx: 0,
            cur_rx: 0,
            status: 0,
            dma_control: 0,
            intr_ena: 0,
            riwt: 0,
            ts: regs::TS_STOPPED,
            tx_halted: false,
            rx_halted: false,
            tx_fault: None,
            tx_stall: false,
            mdio_busy_until: 0,
            mdio_stuck: false,
            mdio_frames: 0,
            swr_until: 0,
            swr_stuck: false,
            riwt_at: None,
            sent: Vec::new(),
            partial: Vec::new(),
            rx_dropped: 0,
            rx_delivered: 0,
            rx_filtered: 0,
            line_mismatch: 0,
            split_last: false,
            pending_ls: Vec::new(),
            rx_queue: VecDeque::new(),
            rx_cur: None,
            phy: None,
            no_hw_feature: false,
        }
    }

    /// A core older than 3.50a: DMA_HW_FEATURE reads 0.
    pub fn without_hw_feature(mut self) -> Self {
        self.no_hw_feature = true;
        self
    }

    /// A core synthesised with `layout` descriptors (HW_FEATURE.ENHDESSEL follows).
    pub fn with_layout(mut self, layout: DescLayout) -> Self {
        self.layout = layout;
        self
    }

    /// A DMA bus of `bytes` (the unit of DSL; default 4).
    pub fn with_bus_width(mut self, bytes: u32) -> Self {
        self.bus_width = bytes;
        self
    }

    /// Check frames against the link `phy` negotiated (see the [module docs](self)).
    pub fn with_phy(mut self, phy: AnPhy) -> Self {
        self.phy = Some(phy);
        self
    }

    /// Frames sent so far.
    pub fn sent(&self) -> &[SentFrame] {
        &self.sent
    }

    /// Forget the sent frames (long runs).
    pub fn clear_sent(&mut self) {
        self.sent.clear();
    }

    /// Frames dropped for want of an RX descriptor (RU) or with RX stopped.
    pub fn rx_dropped(&self) -> u64 {
        self.rx_dropped
    }

    /// Frames delivered into RX descriptors (completely).
    pub fn rx_delivered(&self) -> u64 {
        self.rx_delivered
    }

    /// Frames the address filter dropped.
    pub fn rx_filtered(&self) -> u64 {
        self.rx_filtered
    }

    /// Frames lost because GMAC_CONTROL did not match the PHY's link.
    pub fn line_mismatch(&self) -> u64 {
        self.line_mismatch
    }

    /// MDIO frames performed.
    pub fn mdio_frames(&self) -> u64 {
        self.mdio_frames
    }

    /// The MDIO device.
    pub fn mdio_device(&mut self) -> &mut D {
        &mut self.mdio
    }

    /// Keep MII_ADDR.GB set forever (fault injection).
    pub fn set_mdio_stuck(&mut self, stuck: bool) {
        self.mdio_stuck = stuck;
    }

    /// Keep DMA_BUS_MODE.SWR set forever (fault injection: no PHY clock).
    pub fn set_swr_stuck(&mut self, stuck: bool) {
        self.swr_stuck = stuck;
    }

    /// The next TX walk that finds an owned descriptor fails with `fault` instead.
    pub fn fail_tx(&mut self, fault: TxFault) {
        self.tx_fault = Some(fault);
    }

    /// While set, the TX DMA stays running (TS = reading) but sends nothing: a slow link.
    /// Clearing it at `now_ns` lets the DMA go on at once.
    pub fn set_tx_stall(&mut self, now_ns: u64, stall: bool) {
        self.tx_stall = stall;
        if !stall {
            self.tx_walk(now_ns);
        }
    }

    /// Write a frame's last RX descriptor twice, first OWN clear without LS, the LS write
    /// only at [`complete_rx_writes`](Self::complete_rx_writes) (QEMU's npcm-gmac from its
    /// I/O thread).
    pub fn set_split_last_write(&mut self, split: bool) {
        self.split_last = split;
    }

    /// Perform the LS writes held back by [`set_split_last_write`](Self::set_split_last_write).
    pub fn complete_rx_writes(&mut self) {
        for (d, st) in core::mem::take(&mut self.pending_ls) {
            self.arena.write_u32(d, st);
        }
    }

    /// Raw DMA_STATUS bits 0–16 (without TS/RS), after applying time-based events.
    pub fn raw_status(&mut self, now_ns: u64) -> u32 {
        self.sync(now_ns);
        self.status
    }

    /// When the RX watchdog will raise RI, if armed.
    pub fn riwt_deadline(&self) -> Option<u64> {
        self.riwt_at
    }

    /// Whether the interrupt line is asserted (STATUS & INTR_ENA, summaries).
    pub fn irq_pending(&mut self, now_ns: u64) -> bool {
        self.sync(now_ns);
        self.summarised() & self.intr_ena & ((1 << 16) | (1 << 15)) != 0
    }

    /// GMAC_CONTROL as written.
    pub fn control(&self) -> u32 {
        self.control
    }

    /// DMA_BUS_MODE as written.
    pub fn bus_mode(&self) -> u32 {
        self.bus_mode
    }

    fn hw_feature(&self) -> u32 {
        if self.no_hw_feature {
            return 0;
        }
        match self.layout {
            DescLayout::Normal => HW_FEATURE,
            DescLayout::Enhanced => HW_FEATURE | regs::HW_FEATURE_ENHDESSEL,
        }
    }

    fn stride(&self) -> u32 {
        16 + ((self.bus_mode >> 2) & 0x1F) * self.bus_width
    }

    fn rx_running(&self) -> bool {
        self.control & (1 << 2) != 0 && self.dma_control & (1 << 1) != 0 && !self.rx_halted
    }

    /// Whether GMAC_CONTROL matches the attached PHY's link (always, without one).
    fn line_ok(&self, now_ns: u64, tx: bool) -> bool {
        let Some(phy) = &self.phy else {
            return true;
        };
        let l = phy.line(now_ns);
        let c = self.control;
        let enabled = if tx { c & (1 << 3) } else { c & (1 << 2) } != 0;
        let (ps, fes) = (c & (1 << 15) != 0, c & (1 << 14) != 0);
        let speed_ok = match l.speed {
            Speed::M1000 => !ps,
            Speed::M100 => ps && fes,
            Speed::M10 => ps && !fes,
        };
        let duplex_ok = (c & (1 << 11) != 0) == (l.duplex == Duplex::Full);
        l.up && enabled && speed_ok && duplex_ok
    }

    /// Whether the destination address filter accepts `frame`.
    fn accepts(&self, frame: &[u8]) -> bool {
        let ff = self.frame_filter;
        if ff & ((1 << 0) | (1 << 31)) != 0 {
            return true;
        }
        let Some(dst) = frame.get(..6) else {
            return false;
        };
        let dst: [u8; 6] = [dst[0], dst[1], dst[2], dst[3], dst[4], dst[5]];
        if dst == [0xFF; 6] {
            return ff & (1 << 5) == 0;
        }
        if dst[0] & 1 != 0 {
            if ff & (1 << 4) != 0 {
                return true;
            }
            if ff & (1 << 2) != 0 {
                let n = crate::mac::multicast_hash_bin(dst);
                let w = self.hash[usize::from(n >> 5)];
                return w & (1 << (n & 31)) != 0;
            }
            return false;
        }
        let lo = self.addr_lo.to_le_bytes();
        let hi = self.addr_hi.to_le_bytes();
        self.addr_hi & (1 << 31) != 0 && dst == [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// A frame arrives from the wire at `now_ns` (without FCS; the model adds it). It goes
    /// through the filter and the line check, then into RX descriptors (see the
    /// [module docs](self)).
    pub fn inject(&mut self, now_ns: u64, frame: &[u8]) {
        self.sync(now_ns);
        self.complete_rx_writes();
        if !self.rx_running() {
            self.rx_dropped += 1;
            return;
        }
        if !self.line_ok(now_ns, false) {
            self.line_mismatch += 1;
            return;
        }
        if !self.accepts(frame) {
            self.rx_filtered += 1;
            return;
        }
        let mut bytes = frame.to_vec();
        bytes.extend_from_slice(&fcs(frame).to_le_bytes());
        self.rx_queue.push_back(bytes);
        self.deliver(now_ns);
    }

    fn rx_desc_fields(&self, des1: u32) -> (usize, bool, bool, bool) {
        // (RBS1, end of ring, chained, DIC)
        match self.layout {
            DescLayout::Normal => (
                (des1 & RDES1_RBS1_MASK) as usize,
                des1 & RDES1_RER != 0,
                des1 & RDES1_RCH != 0,
                des1 & RDES1_DIC != 0,
            ),
            DescLayout::Enhanced => (
                (des1 & edesc::RDES1_RBS1_MASK) as usize,
                des1 & edesc::RDES1_RER != 0,
                des1 & edesc::RDES1_RCH != 0,
                des1 & edesc::RDES1_DIC != 0,
            ),
        }
    }

    fn deliver(&mut self, now_ns: u64) {
        if !self.rx_running() {
            return;
        }
        // Bounded: every iteration stores into one descriptor or stops.
        for _ in 0..65_536 {
            if self.rx_cur.is_none() {
                let Some(bytes) = self.rx_queue.pop_front() else {
                    return;
                };
                self.rx_cur = Some(RxInFlight {
                    bytes,
                    done: 0,
                    error: false,
                });
            }
            let d = self.cur_rx;
            let Some(des0) = self.arena.read_u32(d) else {
                self.status |= (1 << 13) | (1 << 8); // FBI, RPS
                self.rx_halted = true;
                self.rx_cur = None;
                return;
            };
            if des0 & OWN == 0 {
                self.status |= 1 << 7; // RU
                let started = self.rx_cur.as_ref().is_some_and(|f| f.done > 0);
                if !started {
                    // A new frame with nowhere to go is dropped; one in progress waits.
                    self.rx_dropped += 1 + self.rx_queue.len() as u64;
                    self.rx_queue.clear();
                    self.rx_cur = None;
                }
                return;
            }
            let des1 = self.arena.read_u32(d + 4).unwrap_or(0);
            let buf = self.arena.read_u32(d + 8).unwrap_or(0);
            let (size, end, chained, dic) = self.rx_desc_fields(des1);
            let next = if end {
                self.rx_base
            } else if chained {
                self.arena.read_u32(d + 12).unwrap_or(0)
            } else {
                d.wrapping_add(self.stride())
            };
            let Some(f) = self.rx_cur.as_mut() else {
                return;
            };
            let first = f.done == 0;
            let n = (f.bytes.len() - f.done).min(size);
            if n > 0 && !self.arena.write_bytes(buf, &f.bytes[f.done..f.done + n]) {
                f.error = true;
            }
            f.done += n;
            let last = f.done >= f.bytes.len();
            let mut st = RDES0_FT;
            if first {
                st |= RDES0_FS;
            }
            self.cur_rx = next;
            if !last {
                self.arena.write_u32(d, st);
                continue;
            }
            let len = f.bytes.len() as u32;
            let error = f.error;
            self.rx_cur = None;
            let mut fin = st | RDES0_LS | ((len & RDES0_FL_MASK) << RDES0_FL_SHIFT);
            if error {
                fin |= RDES0_ES | RDES0_DE;
            }
            if self.split_last {
                // First OWN clear without LS (FL so far), LS later.
                self.arena
                    .write_u32(d, st | ((len & RDES0_FL_MASK) << RDES0_FL_SHIFT));
                self.pending_ls.push((d, fin));
            } else {
                self.arena.write_u32(d, fin);
            }
            self.rx_delivered += 1;
            if !dic {
                self.status |= 1 << 6; // RI
                self.riwt_at = None;
            } else if self.riwt != 0 && self.riwt_at.is_none() {
                let ns = u64::from(self.riwt) * 256 * 1_000_000_000 / u64::from(self.csr_hz.max(1));
                self.riwt_at = Some(now_ns.saturating_add(ns));
            }
        }
    }

    fn sync(&mut self, now_ns: u64) {
        if let Some(at) = self.riwt_at
            && now_ns >= at
        {
            self.status |= 1 << 6;
            self.riwt_at = None;
        }
    }

    fn summarised(&self) -> u32 {
        const NORMAL: u32 = (1 << 0) | (1 << 2) | (1 << 6) | (1 << 14);
        const ABNORMAL: u32 = (1 << 1)
            | (1 << 3)
            | (1 << 4)
            | (1 << 5)
            | (1 << 7)
            | (1 << 8)
            | (1 << 9)
            | (1 << 10)
            | (1 << 13);
        let mut s = self.status;
        if s & NORMAL & self.intr_ena != 0 {
            s |= 1 << 16;
        }
        if s & ABNORMAL & self.intr_ena != 0 {
            s |= 1 << 15;
        }
        s
    }

    fn reset(&mut self) {
        self.control = 0;
        self.frame_filter = 0;
        self.hash = [0; 2];
        self.mii_addr = 0;
        self.mii_data = 0;
        self.addr_hi = 0x8000_FFFF;
        self.addr_lo = 0xFFFF_FFFF;
        self.bus_mode = regs::DMA_BUS_MODE_RESET;
        self.tx_base = 0;
        self.rx_base = 0;
        self.cur_tx = 0;
        self.cur_rx = 0;
        self.status = 0;
        self.dma_control = 0;
        self.intr_ena = 0;
        self.riwt = 0;
        self.ts = regs::TS_STOPPED;
        self.tx_halted = false;
        self.rx_halted = false;
        self.riwt_at = None;
        self.partial.clear();
        self.rx_queue.clear();
        self.rx_cur = None;
    }

    /// (size 1, size 2, FS, LS, IC, TER, TCH) of a TX descriptor.
    fn tx_fields(&self, des0: u32, des1: u32) -> (usize, usize, bool, bool, bool, bool, bool) {
        match self.layout {
            DescLayout::Normal => (
                (des1 & TDES1_TBS1_MASK) as usize,
                ((des1 >> 11) & 0x7FF) as usize,
                des1 & TDES1_FS != 0,
                des1 & TDES1_LS != 0,
                des1 & TDES1_IC != 0,
                des1 & TDES1_TER != 0,
                des1 & TDES1_TCH != 0,
            ),
            DescLayout::Enhanced => (
                (des1 & edesc::TDES1_TBS1_MASK) as usize,
                ((des1 >> edesc::TDES1_TBS2_SHIFT) & 0x1FFF) as usize,
                des0 & edesc::TDES0_FS != 0,
                des0 & edesc::TDES0_LS != 0,
                des0 & edesc::TDES0_IC != 0,
                des0 & edesc::TDES0_TER != 0,
                des0 & edesc::TDES0_TCH != 0,
            ),
        }
    }

    fn tx_walk(&mut self, now_ns: u64) {
        if self.dma_control & (1 << 13) == 0 || self.tx_halted {
            return;
        }
        if self.tx_stall {
            self.ts = 3; // reading: running, no progress
            return;
        }
        // A ring of N owned descriptors is walked once; the guard only stops a corrupted
        // list that loops through owned descriptors.
        for _ in 0..65_536 {
            let d = self.cur_tx;
            let Some(des0) = self.arena.read_u32(d) else {
                self.status |= (1 << 13) | (1 << 1); // FBI, TPS
                self.ts = regs::TS_STOPPED;
                self.tx_halted = true;
                return;
            };
            if des0 & OWN == 0 {
                self.status |= 1 << 2; // TU
                self.ts = regs::TS_SUSPENDED;
                return;
            }
            if let Some(fault) = self.tx_fault.take() {
                self.status |= match fault {
                    TxFault::Stop => 1 << 1,
                    TxFault::Underflow => (1 << 5) | (1 << 1),
                    TxFault::BusError => (1 << 13) | (1 << 1) | (1 << 8),
                };
                self.ts = regs::TS_STOPPED;
                self.tx_halted = true;
                if fault == TxFault::BusError {
                    self.rx_halted = true;
                }
                return;
            }
            let des1 = self.arena.read_u32(d + 4).unwrap_or(0);
            let b1 = self.arena.read_u32(d + 8).unwrap_or(0);
            let b2 = self.arena.read_u32(d + 12).unwrap_or(0);
            let (l1, l2, fs, ls, ic, ter, tch) = self.tx_fields(des0, des1);
            if fs {
                self.partial.clear();
            }
            let mut es = false;
            match self.arena.read_bytes(b1, l1) {
                Some(b) => self.partial.extend_from_slice(&b),
                None => es = true,
            }
            if !tch && l2 > 0 {
                match self.arena.read_bytes(b2, l2) {
                    Some(b) => self.partial.extend_from_slice(&b),
                    None => es = true,
                }
            }
            if ls {
                let bytes = core::mem::take(&mut self.partial);
                if self.line_ok(now_ns, true) {
                    self.sent.push(SentFrame {
                        at_ns: now_ns,
                        bytes,
                        ic,
                    });
                } else {
                    self.line_mismatch += 1;
                }
                if ic {
                    self.status |= 1 << 0; // TI
                }
            }
            // Write-back: OWN clear, status; enhanced keeps its control bits.
            let keep = match self.layout {
                DescLayout::Normal => 0,
                DescLayout::Enhanced => des0 & 0x7FFF_0000 & !(1 << 16),
            };
            self.arena
                .write_u32(d, keep | if es { TDES0_ES } else { 0 });
            self.cur_tx = if ter {
                self.tx_base
            } else if tch {
                b2
            } else {
                d.wrapping_add(self.stride())
            };
        }
    }
}

impl<D: MdioDevice> SimModel for DwmacModel<D> {
    type Word = u32;

    fn read(&mut self, now_ns: u64, offset: usize) -> u32 {
        self.sync(now_ns);
        match offset {
            0x00 => self.control,
            0x04 => self.frame_filter,
            0x08 => self.hash[1],
            0x0C => self.hash[0],
            0x10 => {
                let busy = self.mdio_stuck || now_ns < self.mdio_busy_until;
                (self.mii_addr & !1) | u32::from(busy)
            }
            0x14 => self.mii_data,
            0x20 => VERSION,
            0x40 => self.addr_hi,
            0x44 => self.addr_lo,
            0x1000 => {
                let busy = self.swr_stuck || now_ns < self.swr_until;
                (self.bus_mode & !1) | u32::from(busy)
            }
            0x100C => self.rx_base,
            0x1010 => self.tx_base,
            0x1014 => {
                let rs = if self.dma_control & (1 << 1) == 0 || self.rx_halted {
                    0
                } else if self
                    .arena
                    .read_u32(self.cur_rx)
                    .is_some_and(|d| d & OWN != 0)
                {
                    regs::RS_WAITING
                } else {
                    regs::RS_SUSPENDED
                };
                let ts = if self.dma_control & (1 << 13) == 0 {
                    regs::TS_STOPPED
                } else {
                    self.ts
                };
                self.summarised() | rs << 17 | ts << 20
            }
            0x1018 => self.dma_control,
            0x101C => self.intr_ena,
            0x1024 => self.riwt,
            0x1048 => self.cur_tx,
            0x104C => self.cur_rx,
            0x1058 => self.hw_feature(),
            _ => 0,
        }
    }

    fn write(&mut self, now_ns: u64, offset: usize, value: u32) {
        self.sync(now_ns);
        match offset {
            0x00 => {
                self.control = value;
                self.deliver(now_ns);
            }
            0x04 => self.frame_filter = value,
            0x08 => self.hash[1] = value,
            0x0C => self.hash[0] = value,
            0x10 => {
                if self.mdio_stuck || now_ns < self.mdio_busy_until || value & 1 == 0 {
                    self.mii_addr = value & !1;
                    return;
                }
                self.mii_addr = value;
                let div = regs::cr_divider((value >> 2) & 0xF).unwrap_or(42);
                let mdc = (self.csr_hz / div).max(1);
                let done = now_ns.saturating_add(mdio_bus::frame_ns(mdc));
                self.mdio_busy_until = done;
                self.mdio_frames += 1;
                let phy = PhyAddr::from_bits(((value >> 11) & 0x1F) as u8);
                let reg = RegAddr::from_bits(((value >> 6) & 0x1F) as u8);
                if value & 2 != 0 {
                    self.mdio
                        .write(done, phy, reg, (self.mii_data & 0xFFFF) as u16);
                } else {
                    self.mii_data = u32::from(self.mdio.read(done, phy, reg));
                }
            }
            0x14 => self.mii_data = value & 0xFFFF,
            0x40 => self.addr_hi = value,
            0x44 => self.addr_lo = value,
            0x1000 => {
                if value & 1 != 0 {
                    self.reset();
                    self.swr_until = now_ns.saturating_add(SWR_NS);
                } else {
                    self.bus_mode = value;
                }
            }
            0x1004 => self.tx_walk(now_ns),
            0x1008 => {
                self.status &= !(1 << 7);
                self.complete_rx_writes();
                self.deliver(now_ns);
            }
            0x100C => {
                self.rx_base = value;
                self.cur_rx = value;
            }
            0x1010 => {
                self.tx_base = value;
                self.cur_tx = value;
            }
            0x1014 => self.status &= !(value & regs::DMA_STATUS_W1C),
            0x1018 => {
                let was = self.dma_control;
                self.dma_control = value;
                if value & (1 << 13) != 0 && was & (1 << 13) == 0 {
                    self.tx_halted = false;
                }
                if value & (1 << 1) != 0 && was & (1 << 1) == 0 {
                    self.rx_halted = false;
                }
                if value & (1 << 1) == 0 && was & (1 << 1) != 0 && self.rx_cur.take().is_some() {
                    // Stopping RX abandons the frame that was waiting for descriptors.
                    self.rx_dropped += 1;
                }
                if value & (1 << 13) != 0 {
                    self.tx_walk(now_ns);
                }
                self.deliver(now_ns);
            }
            0x101C => self.intr_ena = value,
            0x1024 => self.riwt = value & 0xFF,
            _ => {}
        }
    }
}
