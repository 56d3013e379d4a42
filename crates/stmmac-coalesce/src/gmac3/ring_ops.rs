//! How a ring reaches the GMAC 3.x DMA ([`sealed::Ops`](crate::common::sealed::Ops) for
//! [`Gmac3`]): the DSL/ATDS check before a start, the stop and the bounded wait for
//! Stopped, the base writes, and the poll demands.

use core::sync::atomic::Ordering;

use hwtimer_core::{RegisterBus, RegisterBusExt};

use super::features::ring_base_32;
use super::regs::{self, DMA_BUS_MODE, DMA_CONTROL, DMA_STATUS};
use super::{DMA_CONTROL_SR, DMA_CONTROL_ST, DMA_CONTROL_TSF, Gmac3, STATUS_RPS, STATUS_TPS};
use crate::common::{Error, wait_stopped};

impl<B: RegisterBus<Word = u32>> Gmac3<B> {
    /// DMA_BUS_MODE read back against the ring: DSL must be the ring's `dsl`, and ATDS
    /// clear, since with ATDS the DMA steps 32-byte alternate descriptors (Linux
    /// `dwmac1000.h` `DMA_BUS_MODE_ATDS` bit 7; `descs.h` `struct dma_extended_desc`, 8
    /// words) where the ring's are 16 bytes (`stride` is the ring's step).
    fn check_dsl(&self, dsl: u8, stride: u32) -> Result<(), Error> {
        let bm = self.bus.read(DMA_BUS_MODE);
        let programmed = bm.read(DMA_BUS_MODE::DSL);
        if programmed != u32::from(dsl) {
            return Err(Error::GeometryMismatch {
                // DSL is a 5-bit field.
                programmed: u8::try_from(programmed).unwrap_or(u8::MAX),
                ring: dsl,
            });
        }
        if bm.is_set(DMA_BUS_MODE::ATDS) {
            // 32-byte descriptors instead of 16: 16 more bytes per step.
            return Err(Error::StrideMismatch {
                programmed: stride.saturating_add(16),
                ring: stride,
            });
        }
        Ok(())
    }

    /// Write the descriptor list base addresses directly.
    ///
    /// # Safety
    /// Both DMA engines must be stopped, and each address must be the bus address of a
    /// descriptor list (ring mode, TER/RER on the last entry, with the DSL spacing
    /// programmed) in memory the DMA may access for as long as it runs. Prefer the rings'
    /// `start`, which programs their own memory.
    pub unsafe fn set_ring_bases(&self, tx_base: u32, rx_base: u32) {
        self.bus.write_raw(regs::DMA_TX_BASE_ADDR, tx_base);
        self.bus.write_raw(regs::DMA_RCV_BASE_ADDR, rx_base);
    }

    /// Check that DMA_BUS_MODE.DSL is `dsl` (the ring's stride), then stop the TX DMA (if
    /// running) and wait until it reads Stopped, acknowledging the TPS that raised; then,
    /// in one critical section, write its base and start it (ST, TSF).
    ///
    /// Errors: [`Error::GeometryMismatch`]; nothing is written then. [`Error::Timeout`]
    /// when the process never read Stopped: ST is clear, the base is not written.
    ///
    /// # Safety
    /// As [`set_ring_bases`](Self::set_ring_bases) for `base`.
    pub(crate) unsafe fn start_tx_dma(&self, base: u32, dsl: u8, stride: u32) -> Result<(), Error> {
        self.check_dsl(dsl, stride)?;
        // The base is taken only from a Stopped process (the 3.x databook, Register 4).
        self.stop_and_wait(DMA_CONTROL_ST, regs::DMA_STATUS::TS, STATUS_TPS)?;
        critical_section::with(|_| {
            let c = self.bus.read_raw(DMA_CONTROL);
            self.bus.write_raw(regs::DMA_TX_BASE_ADDR, base);
            self.write_settled(DMA_CONTROL, c | DMA_CONTROL_ST | DMA_CONTROL_TSF);
            Ok(())
        })
    }

    /// As [`start_tx_dma`](Self::start_tx_dma) for the RX DMA (SR).
    ///
    /// # Safety
    /// As [`set_ring_bases`](Self::set_ring_bases) for `base`.
    pub(crate) unsafe fn start_rx_dma(&self, base: u32, dsl: u8, stride: u32) -> Result<(), Error> {
        self.check_dsl(dsl, stride)?;
        self.stop_and_wait(DMA_CONTROL_SR, regs::DMA_STATUS::RS, STATUS_RPS)?;
        critical_section::with(|_| {
            let c = self.bus.read_raw(DMA_CONTROL);
            self.bus.write_raw(regs::DMA_RCV_BASE_ADDR, base);
            self.write_settled(DMA_CONTROL, c | DMA_CONTROL_SR);
            Ok(())
        })
    }

    /// Clear `bits` of DMA_CONTROL (a read-modify-write in a critical section).
    fn clear_dma_control(&self, bits: u32) {
        critical_section::with(|_| {
            let c = self.bus.read_raw(DMA_CONTROL);
            self.write_settled(DMA_CONTROL, c & !bits);
        });
    }

    /// Clear `bit` (ST or SR) of DMA_CONTROL if set, wait until `state` (TS or RS) of
    /// DMA_STATUS reads Stopped (0; dwmac_dma.h `DMA_STATUS_TS_MASK` / `_RS_MASK`, the
    /// states of dwmac_lib.c `show_tx_process_state`), bounded by
    /// [`set_stop_polls`](crate::Dwmac::set_stop_polls) reads, then acknowledge `stopped` (TPS or
    /// RPS) when the engine was on or still stopping: the bit that stop raised.
    pub(super) fn stop_and_wait(
        &self,
        bit: u32,
        state: tock_registers::fields::Field<u32, DMA_STATUS::Register>,
        stopped: u32,
    ) -> Result<(), Error> {
        let was_on = critical_section::with(|_| {
            let c = self.bus.read_raw(DMA_CONTROL);
            if c & bit != 0 {
                self.write_settled(DMA_CONTROL, c & !bit);
            }
            c & bit != 0
        });
        let polls = wait_stopped(
            || self.bus.read_raw(DMA_STATUS),
            |v| state.read(v) == 0,
            self.stop_polls.load(Ordering::Relaxed),
        )?;
        if was_on || polls > 1 {
            self.ack(stopped);
        }
        Ok(())
    }

    /// Clear ST without waiting for the TX process to stop (the ring starts and
    /// [`stop`](crate::Dwmac::stop) wait for it before a base is written).
    pub fn stop_tx_dma(&self) {
        self.clear_dma_control(DMA_CONTROL_ST);
    }

    /// Clear SR without waiting, as [`stop_tx_dma`](Self::stop_tx_dma).
    pub fn stop_rx_dma(&self) {
        self.clear_dma_control(DMA_CONTROL_SR);
    }

    /// Whether the TX DMA is switched on (DMA_CONTROL.ST), whatever its process state.
    pub fn tx_dma_enabled(&self) -> bool {
        self.bus.read_raw(DMA_CONTROL) & DMA_CONTROL_ST != 0
    }

    /// Whether the TX DMA cannot make progress: TX process state stopped, or TPS or UNF
    /// pending in DMA_STATUS.
    pub fn tx_stopped(&self) -> bool {
        let st = self.status();
        st.read(DMA_STATUS::TS) == regs::TS_STOPPED || st.get() & ((1 << 1) | (1 << 5)) != 0
    }

    /// DMA_CUR_RX_DESC: the descriptor the RX DMA looks at (bus address).
    pub fn cur_rx_desc(&self) -> u32 {
        self.bus.read_raw(regs::DMA_CUR_RX_DESC)
    }

    /// TX poll demand (the doorbell): the TX DMA re-reads the current descriptor. The
    /// caller has issued [`wmb`](crate::dma::barrier::wmb) after the descriptor stores.
    pub(crate) fn tx_poll_demand(&self) {
        self.bus.write_raw(regs::DMA_XMT_POLL_DEMAND, 1);
    }

    /// RX poll demand, after [`wmb`](crate::dma::barrier::wmb).
    pub(crate) fn rx_poll_demand(&self) {
        self.bus.write_raw(regs::DMA_RCV_POLL_DEMAND, 1);
    }
}

impl<B: RegisterBus<Word = u32>> crate::common::sealed::Ops for Gmac3<B> {
    const QOS: bool = false;

    /// Only this core's own layout: normal and enhanced descriptors put TER/RER and the
    /// buffer sizes in different bits, so a ring of the other 3.x layout would not wrap.
    fn accepts(&self, layout: crate::dma::DescLayout) -> bool {
        !layout.is_qos() && self.layout() == Some(layout)
    }

    unsafe fn start_tx(&self, r: &crate::common::RingStart) -> Result<(), Error> {
        let base = ring_base_32(r)?;
        // SAFETY: the caller's contract is `start_tx_dma`'s.
        unsafe { self.start_tx_dma(base, r.dsl, r.stride) }
    }

    unsafe fn start_rx(&self, r: &crate::common::RingStart) -> Result<(), Error> {
        let base = ring_base_32(r)?;
        // SAFETY: the caller's contract is `start_rx_dma`'s.
        unsafe { self.start_rx_dma(base, r.dsl, r.stride) }
    }

    #[inline]
    fn tx_doorbell(&self, _tail: u64) {
        self.tx_poll_demand();
    }

    #[inline]
    fn rx_doorbell(&self, _tail: u64) {
        self.rx_poll_demand();
    }

    fn tx_dma_enabled(&self) -> bool {
        Gmac3::tx_dma_enabled(self)
    }

    fn rx_dma_enabled(&self) -> bool {
        self.bus.read_raw(DMA_CONTROL) & DMA_CONTROL_SR != 0
    }

    fn tx_stopped(&self) -> bool {
        Gmac3::tx_stopped(self)
    }

    fn tx_suspended(&self) -> bool {
        self.status().read(DMA_STATUS::TS) == regs::TS_SUSPENDED
    }

    fn stop_tx(&self) -> Result<(), Error> {
        self.stop_and_wait(DMA_CONTROL_ST, regs::DMA_STATUS::TS, STATUS_TPS)
    }

    fn stop_rx(&self) -> Result<(), Error> {
        self.stop_and_wait(DMA_CONTROL_SR, regs::DMA_STATUS::RS, STATUS_RPS)
    }

    fn cur_rx_desc(&self) -> u64 {
        u64::from(Gmac3::cur_rx_desc(self))
    }
}
