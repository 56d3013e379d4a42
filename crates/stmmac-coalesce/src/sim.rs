//! A behavioural DWMAC (GMAC 3.x) in virtual time, a sim DMA arena, and the seed-proof
//! measurements (feature `sim`, host only).
//!
//! [`DwmacModel`] is a [`SimModel`] for the whole block (MAC at 0, DMA at 0x1000). Its DMA
//! really walks the descriptors the driver wrote, in a [`SimArena`]: memory with 32-bit bus
//! addresses, so the driver code is the same as on target. It behaves as hardware.md §4.5–4.7
//! and QEMU's npcm-gmac (qemu.md §3) do:
//!
//! - **TX**: a write to DMA_XMT_POLL_DEMAND, or to DMA_CONTROL with ST set, walks DMA-owned
//!   descriptors from the current one: buffer 1 (and buffer 2 unless TCH), FS…LS assemble one
//!   frame, recorded with its time ([`SentFrame`]); OWN is cleared; TI is raised when the
//!   frame's last descriptor has IC; TER wraps to the list base, TCH follows TDES3. At the
//!   first descriptor not owned it sets TU and TS = suspended. Sending is synchronous (the
//!   frame completes inside the MMIO write, as in QEMU).
//! - **RX**: [`DwmacModel::inject`] delivers a frame into the current DMA-owned RX
//!   descriptor (MAC RE and DMA SR required, FL = length + 4 for the FCS, FS | LS | FT); RI
//!   at once when DIC is clear; with DIC set and RIWT ≠ 0, RI when the watchdog (RIWT × 256
//!   CSR clocks after the first uncovered frame) expires. No descriptor: RU, frame dropped.
//! - **STATUS**: bits 0–16 write-1-to-clear; NIS/AIS summarise the *enabled* sources;
//!   TS/RS report the process states.
//! - **MDIO**: MII_ADDR with GB starts a frame on an [`MdioDevice`]; GB clears one MDIO frame
//!   time later (MDC = CSR clock / CR divider), or never when [stuck](DwmacModel::set_mdio_stuck).
//! - **Reset**: DMA_BUS_MODE.SWR resets the registers and self-clears after
//!   [`SWR_NS`] (or never, [`DwmacModel::set_swr_stuck`]).

pub mod seed;

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::vec::Vec;

use hwtimer_core::sim::SimModel;
use mdio_bus::sim::MdioDevice;
use mdio_bus::{PhyAddr, RegAddr};

use crate::desc::{DmaAddr, DmaBuffer, RxDesc, TxDesc};
use crate::regs::{self, desc::*};

/// Virtual time the model keeps DMA_BUS_MODE.SWR set after a reset request.
pub const SWR_NS: u64 = 1_000;
/// GMAC_VERSION of the model (QEMU's npcm-gmac value).
pub const VERSION: u32 = 0x1032;
/// DMA_HW_FEATURE of the model (QEMU's value).
pub const HW_FEATURE: u32 = 0x100D_4F37;
/// CSR clock of the model and of the seed-proof setups: 125 MHz (MDC /62 ≈ 2.02 MHz).
pub const SIM_CSR_HZ: u32 = 125_000_000;

struct ArenaInner {
    host: *mut u8,
    len: usize,
    bus_base: u32,
    next: Cell<usize>,
}

/// Host memory with 32-bit bus addresses: what a DMA engine on the host-side model reads and
/// writes. Hands out `&'static mut` slices (leaked, 16-byte aligned) for rings and buffers;
/// [`DmaAddr`] maps them to `bus_base + offset`. Clones share the arena.
#[derive(Clone)]
pub struct SimArena {
    inner: Rc<ArenaInner>,
}

impl core::fmt::Debug for SimArena {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "SimArena({:#x}, {:#x} bytes)",
            self.inner.bus_base, self.inner.len
        )
    }
}

impl SimArena {
    /// An arena of `len` bytes (rounded up to 16) at bus address `bus_base` (rounded down to
    /// 16). The memory is leaked: arenas live for the whole test process.
    pub fn new(bus_base: u32, len: usize) -> Self {
        let words = len.div_ceil(16).max(1);
        let mem: &'static mut [u128] = Vec::leak(vec![0u128; words]);
        let len = words * 16;
        let max = (u32::MAX - (bus_base & !0xF)) as usize;
        Self {
            inner: Rc::new(ArenaInner {
                host: mem.as_mut_ptr().cast::<u8>(),
                len: len.min(max),
                bus_base: bus_base & !0xF,
                next: Cell::new(0),
            }),
        }
    }

    /// Carve `n` values made by `init` out of the arena, or `None` when it is full.
    pub fn alloc<T>(&self, n: usize, init: impl Fn() -> T) -> Option<&'static mut [T]> {
        let size = core::mem::size_of::<T>().checked_mul(n)?;
        let align = core::mem::align_of::<T>().max(16);
        let start = self.inner.next.get().div_ceil(align).checked_mul(align)?;
        let end = start.checked_add(size)?;
        if end > self.inner.len {
            return None;
        }
        self.inner.next.set(end);
        // SAFETY: [start, end) lies inside the leaked allocation, is aligned for T (the
        // allocation is 16-aligned, `start` a multiple of `align`), and is handed out once
        // (the bump pointer only moves forward), so the returned slice aliases nothing but
        // the model's DMA accesses, which go through raw pointers to interior-mutable types
        // (descriptor words, `DmaBuffer`).
        unsafe {
            let p = self.inner.host.add(start).cast::<T>();
            for i in 0..n {
                p.add(i).write(init());
            }
            Some(core::slice::from_raw_parts_mut(p, n))
        }
    }

    /// `n` TX descriptors.
    pub fn tx_descs(&self, n: usize) -> Option<&'static mut [TxDesc]> {
        self.alloc(n, TxDesc::new)
    }

    /// `n` RX descriptors.
    pub fn rx_descs(&self, n: usize) -> Option<&'static mut [RxDesc]> {
        self.alloc(n, RxDesc::new)
    }

    /// `n` frame buffers.
    pub fn buffers(&self, n: usize) -> Option<&'static mut [DmaBuffer]> {
        self.alloc(n, DmaBuffer::new)
    }

    fn host(&self, bus: u32, len: usize) -> Option<*mut u8> {
        let off = bus.checked_sub(self.inner.bus_base)? as usize;
        if off.checked_add(len)? > self.inner.len {
            return None;
        }
        // SAFETY: `off + len` is inside the allocation (checked above).
        Some(unsafe { self.inner.host.add(off) })
    }

    /// Read a little-endian word at a bus address (the DMA's view).
    pub fn read_u32(&self, bus: u32) -> Option<u32> {
        let p = self.host(bus, 4)?;
        // SAFETY: in bounds (checked by `host`); an unaligned read of plain arena memory.
        Some(unsafe { p.cast::<u32>().read_unaligned() })
    }

    /// Write a word at a bus address.
    pub fn write_u32(&self, bus: u32, v: u32) -> bool {
        match self.host(bus, 4) {
            Some(p) => {
                // SAFETY: in bounds (checked by `host`); plain data in the leaked arena.
                unsafe { p.cast::<u32>().write_unaligned(v) };
                true
            }
            None => false,
        }
    }

    /// Copy `len` bytes at a bus address.
    pub fn read_bytes(&self, bus: u32, len: usize) -> Option<Vec<u8>> {
        let p = self.host(bus, len)?;
        // SAFETY: in bounds (checked by `host`); the bytes are plain data.
        Some(unsafe { core::slice::from_raw_parts(p, len) }.to_vec())
    }

    /// Write bytes at a bus address.
    pub fn write_bytes(&self, bus: u32, data: &[u8]) -> bool {
        match self.host(bus, data.len()) {
            Some(p) => {
                // SAFETY: in bounds (checked by `host`); non-overlapping with `data`, which
                // is a host slice outside the arena or a copy.
                unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
                true
            }
            None => false,
        }
    }
}

impl DmaAddr for SimArena {
    fn bus_addr(&self, ptr: *const u8) -> Option<u32> {
        let off = (ptr as usize).checked_sub(self.inner.host as usize)?;
        if off >= self.inner.len {
            return None;
        }
        self.inner.bus_base.checked_add(u32::try_from(off).ok()?)
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

/// The behavioural DWMAC; see the [module docs](self).
pub struct DwmacModel<D: MdioDevice> {
    arena: SimArena,
    mdio: D,
    csr_hz: u32,
    control: u32,
    frame_filter: u32,
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
    pending_rx: VecDeque<Vec<u8>>,
}

impl<D: MdioDevice> DwmacModel<D> {
    /// A model whose DMA sees `arena`, whose MDIO bus has `mdio` on it, clocked at `csr_hz`.
    pub fn new(arena: SimArena, mdio: D, csr_hz: u32) -> Self {
        Self {
            arena,
            mdio,
            csr_hz,
            control: 0,
            frame_filter: 0,
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
            pending_rx: VecDeque::new(),
        }
    }

    /// Frames sent so far.
    pub fn sent(&self) -> &[SentFrame] {
        &self.sent
    }

    /// Forget the sent frames (long runs).
    pub fn clear_sent(&mut self) {
        self.sent.clear();
    }

    /// Frames dropped for want of an RX descriptor (RU).
    pub fn rx_dropped(&self) -> u64 {
        self.rx_dropped
    }

    /// Frames delivered into RX descriptors.
    pub fn rx_delivered(&self) -> u64 {
        self.rx_delivered
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

    fn rx_running(&self) -> bool {
        self.control & (1 << 2) != 0 && self.dma_control & (1 << 1) != 0
    }

    /// A frame arrives from the wire at `now_ns` (without FCS). Delivered at once when RX
    /// runs and a descriptor is owned; otherwise RU is raised and it is dropped (RX not
    /// running: dropped silently).
    pub fn inject(&mut self, now_ns: u64, frame: &[u8]) {
        self.sync(now_ns);
        if !self.rx_running() {
            self.rx_dropped += 1;
            return;
        }
        self.pending_rx.push_back(frame.to_vec());
        self.deliver(now_ns);
    }

    fn deliver(&mut self, now_ns: u64) {
        while let Some(frame) = self.pending_rx.front() {
            let d = self.cur_rx;
            let Some(des0) = self.arena.read_u32(d) else {
                self.status |= 1 << 13; // FBI
                self.pending_rx.clear();
                return;
            };
            if des0 & OWN == 0 {
                self.status |= 1 << 7; // RU
                self.rx_dropped += self.pending_rx.len() as u64;
                self.pending_rx.clear();
                return;
            }
            let des1 = self.arena.read_u32(d + 4).unwrap_or(0);
            let buf = self.arena.read_u32(d + 8).unwrap_or(0);
            let size = (des1 & RDES1_RBS1_MASK) as usize;
            let n = frame.len().min(size);
            let ok = self.arena.write_bytes(buf, &frame[..n]);
            let fl = (frame.len() as u32 + 4) & RDES0_FL_MASK;
            let mut st = (fl << RDES0_FL_SHIFT) | RDES0_FS | RDES0_LS | RDES0_FT;
            if !ok || n < frame.len() {
                st |= RDES0_ES;
            }
            self.arena.write_u32(d, st);
            self.rx_delivered += 1;
            self.pending_rx.pop_front();
            self.cur_rx = if des1 & RDES1_RER != 0 {
                self.rx_base
            } else {
                d.wrapping_add(16)
            };
            if des1 & RDES1_DIC == 0 {
                self.status |= 1 << 6; // RI
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
        self.riwt_at = None;
        self.partial.clear();
        self.pending_rx.clear();
    }

    fn tx_walk(&mut self, now_ns: u64) {
        if self.dma_control & (1 << 13) == 0 {
            return;
        }
        // A ring of N owned descriptors is walked once; the guard only stops a corrupted
        // list that loops through owned descriptors.
        for _ in 0..65_536 {
            let d = self.cur_tx;
            let Some(des0) = self.arena.read_u32(d) else {
                self.status |= (1 << 13) | (1 << 1); // FBI, TPS
                self.ts = regs::TS_STOPPED;
                return;
            };
            if des0 & OWN == 0 {
                self.status |= 1 << 2; // TU
                self.ts = regs::TS_SUSPENDED;
                return;
            }
            let des1 = self.arena.read_u32(d + 4).unwrap_or(0);
            let b1 = self.arena.read_u32(d + 8).unwrap_or(0);
            let b2 = self.arena.read_u32(d + 12).unwrap_or(0);
            if des1 & TDES1_FS != 0 {
                self.partial.clear();
            }
            let l1 = (des1 & TDES1_TBS1_MASK) as usize;
            let l2 = ((des1 >> 11) & 0x7FF) as usize;
            let mut es = false;
            match self.arena.read_bytes(b1, l1) {
                Some(b) => self.partial.extend_from_slice(&b),
                None => es = true,
            }
            if des1 & TDES1_TCH == 0 && l2 > 0 {
                match self.arena.read_bytes(b2, l2) {
                    Some(b) => self.partial.extend_from_slice(&b),
                    None => es = true,
                }
            }
            if des1 & TDES1_LS != 0 {
                let ic = des1 & TDES1_IC != 0;
                self.sent.push(SentFrame {
                    at_ns: now_ns,
                    bytes: core::mem::take(&mut self.partial),
                    ic,
                });
                if ic {
                    self.status |= 1 << 0; // TI
                }
            }
            self.arena.write_u32(d, if es { TDES0_ES } else { 0 });
            self.cur_tx = if des1 & TDES1_TER != 0 {
                self.tx_base
            } else if des1 & TDES1_TCH != 0 {
                b2
            } else {
                d.wrapping_add(16)
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
                let rs = if self.dma_control & (1 << 1) == 0 {
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
            0x1058 => HW_FEATURE,
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
                self.dma_control = value;
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
