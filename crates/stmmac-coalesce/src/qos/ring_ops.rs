//! How a ring reaches channel 0's DMA ([`sealed::Ops`](crate::common::sealed::Ops) for
//! [`Qos`]): the checks before a start, the stop and the bounded wait for Stopped, the
//! base, length and tail writes, and the doorbells.

use core::sync::atomic::Ordering;

use hwtimer_core::{RegisterBus, RegisterBusExt};

use super::Qos;
use crate::common::{ConfigError, Error, RingStart, wait_stopped};
use crate::dma::DescLayout;
use crate::qos::regs::{
    self as r, DMA_CH_CONTROL, DMA_CH_RX_CONTROL, DMA_CH_TX_CONTROL, DMA_SYSBUS_MODE, chan,
};

impl<B: RegisterBus<Word = u32>> Qos<B> {
    /// Clear `bits` of DMA_CH0_TX_CONTROL; whether any was set.
    pub(super) fn clear_tx_control(&self, bits: u32) -> bool {
        critical_section::with(|_| {
            let c = self.bus.read_raw(r::DMA_CH0_TX_CONTROL);
            if c & bits != 0 {
                self.bus.write_raw(r::DMA_CH0_TX_CONTROL, c & !bits);
            }
            c & bits != 0
        })
    }

    /// Clear `bits` of DMA_CH0_RX_CONTROL; whether any was set.
    pub(super) fn clear_rx_control(&self, bits: u32) -> bool {
        critical_section::with(|_| {
            let c = self.bus.read_raw(r::DMA_CH0_RX_CONTROL);
            if c & bits != 0 {
                self.bus.write_raw(r::DMA_CH0_RX_CONTROL, c & !bits);
            }
            c & bits != 0
        })
    }

    /// Clear `bit` (ST or SR) of channel 0's TX (`rx` false) or RX control if set, wait
    /// until DMA_DEBUG_STATUS0's TPS0 / RPS0 (at `shift`) reads Stopped (0), bounded by
    /// [`set_stop_polls`](crate::Dwmac::set_stop_polls) reads, then acknowledge `stopped` (TPS or
    /// RPS in DMA_CH0_STATUS) when the engine was on or still stopping.
    pub(super) fn stop_and_wait(&self, rx: bool, shift: u32, stopped: u32) -> Result<(), Error> {
        let was_on = if rx {
            self.clear_rx_control(DMA_CH_RX_CONTROL::SR::SET.value)
        } else {
            self.clear_tx_control(DMA_CH_TX_CONTROL::ST::SET.value)
        };
        let polls = wait_stopped(
            || self.bus.read_raw(r::DMA_DEBUG_STATUS0),
            |v| (v >> shift) & r::DEBUG_PS_MASK == 0,
            self.stop_polls.load(Ordering::Relaxed),
        )?;
        if was_on || polls > 1 {
            self.bus.write_raw(r::DMA_CH0_STATUS, stopped);
        }
        Ok(())
    }

    /// DMA_CH0_CONTROL.DSL as programmed, or the mismatch with `dsl`.
    fn check_dsl(&self, dsl: u8) -> Result<(), Error> {
        let programmed = self.bus.read(r::DMA_CH0_CONTROL).read(DMA_CH_CONTROL::DSL);
        if programmed == u32::from(dsl) {
            Ok(())
        } else {
            Err(Error::GeometryMismatch {
                // DSL is a 3-bit field.
                programmed: u8::try_from(programmed).unwrap_or(u8::MAX),
                ring: dsl,
            })
        }
    }

    /// The ring's checks before a start: DSL, the ring length, and addresses the DMA
    /// reaches: every descriptor and buffer below 2^32, or below 2^ADDR64 while EAME is
    /// set ([`dma_addr_bits`](Self::dma_addr_bits): read now, so a reset or a set-up from
    /// another core cannot slip past). Returns (high, low, length − 1).
    fn check_ring(&self, s: &RingStart) -> Result<(u32, u32, u32), Error> {
        self.check_dsl(s.dsl)?;
        self.check_reach(s.top.max(s.last))?;
        let len = u32::try_from(s.len)
            .ok()
            .filter(|l| (2..=r::MAX_RING_LEN as u32).contains(l))
            .ok_or(Error::RingSize)?;
        let hi = (s.base >> 32) as u32;
        // The current-descriptor and tail registers hold 32 bits, the high ones are the
        // base's: the whole ring (and so every tail) lies in the base's 4 GiB window.
        if s.last >> 32 != s.base >> 32 || s.tail >> 32 != s.base >> 32 {
            return Err(Error::Config(ConfigError::AddressWidth));
        }
        let eame = self
            .bus
            .read(r::DMA_SYSBUS_MODE)
            .is_set(DMA_SYSBUS_MODE::EAME);
        if hi != 0 && !eame {
            return Err(Error::Config(ConfigError::AddressWidth));
        }
        // `len >= 2`: no wrap.
        Ok((hi, s.base as u32, len.wrapping_sub(1)))
    }
}

impl<B: RegisterBus<Word = u32>> crate::common::sealed::Ops for Qos<B> {
    const QOS: bool = true;

    fn accepts(&self, layout: DescLayout) -> bool {
        layout.is_qos()
    }

    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    unsafe fn start_tx(&self, s: &RingStart) -> Result<(), Error> {
        let (hi, lo, len) = self.check_ring(s)?;
        // The base is written only once the process reads Stopped.
        self.stop_and_wait(false, r::DEBUG_TPS0_SHIFT, chan::TPS)?;
        critical_section::with(|_| {
            let c = self.bus.read_raw(r::DMA_CH0_TX_CONTROL);
            let st = DMA_CH_TX_CONTROL::ST::SET.value;
            self.bus.write_raw(r::DMA_CH0_TX_BASE_HI, hi);
            self.bus.write_raw(r::DMA_CH0_TX_BASE_LO, lo);
            self.bus.write_raw(r::DMA_CH0_TX_RING_LEN, len);
            self.bus.write_raw(r::DMA_CH0_TX_TAIL, s.tail as u32);
            self.bus.write_raw(r::DMA_CH0_TX_CONTROL, c | st);
        });
        Ok(())
    }

    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    unsafe fn start_rx(&self, s: &RingStart) -> Result<(), Error> {
        let (hi, lo, len) = self.check_ring(s)?;
        self.stop_and_wait(true, r::DEBUG_RPS0_SHIFT, chan::RPS)?;
        critical_section::with(|_| {
            let c = self.bus.read(r::DMA_CH0_RX_CONTROL);
            self.bus.write_raw(r::DMA_CH0_RX_BASE_HI, hi);
            self.bus.write_raw(r::DMA_CH0_RX_BASE_LO, lo);
            self.bus.write_raw(r::DMA_CH0_RX_RING_LEN, len);
            self.bus.write_raw(r::DMA_CH0_RX_TAIL, s.tail as u32);
            let sr = DMA_CH_RX_CONTROL::SR::SET.value;
            let keep = c.get() & !(DMA_CH_RX_CONTROL::RBSZ::SET.value | sr);
            let rbsz = DMA_CH_RX_CONTROL::RBSZ.val(s.buf_size).value;
            self.bus.write_raw(r::DMA_CH0_RX_CONTROL, keep | rbsz);
            // RBSZ read back before SR: a core whose bus is wider than the set-up's keeps
            // RBSZ in multiples of its width, the low bits reading 0 (ST STM32H7 DMACRXCR
            // RBSZ: "The LSB bits (1:0) are ignored ... read-only"; NXP RT1170 splits RBSZ
            // into RBSZ_13_y and the bus-width part RBSZ_x_0), and would fill less of each
            // buffer than the ring expects.
            let programmed = self
                .bus
                .read(r::DMA_CH0_RX_CONTROL)
                .read(DMA_CH_RX_CONTROL::RBSZ);
            if programmed != s.buf_size {
                return Err(Error::BufSizeMismatch {
                    programmed,
                    ring: s.buf_size,
                });
            }
            self.bus.write_raw(r::DMA_CH0_RX_CONTROL, keep | rbsz | sr);
            Ok(())
        })
    }

    #[inline]
    fn tx_doorbell(&self, tail: u64) {
        // The register holds the low 32 bits; the high ones are the base's.
        self.bus.write_raw(r::DMA_CH0_TX_TAIL, tail as u32);
    }

    #[inline]
    fn rx_doorbell(&self, tail: u64) {
        self.bus.write_raw(r::DMA_CH0_RX_TAIL, tail as u32);
    }

    fn tx_dma_enabled(&self) -> bool {
        self.bus
            .read(r::DMA_CH0_TX_CONTROL)
            .is_set(DMA_CH_TX_CONTROL::ST)
    }

    fn tx_stopped(&self) -> bool {
        self.bus.read_raw(r::DMA_CH0_STATUS) & (chan::TPS | chan::FBE) != 0
    }

    fn tx_suspended(&self) -> bool {
        // A tail write naming the tail the DMA already has changes nothing for a running
        // DMA and wakes a suspended one: the kick needs no process-state read here.
        true
    }

    fn rx_dma_enabled(&self) -> bool {
        self.bus
            .read(r::DMA_CH0_RX_CONTROL)
            .is_set(DMA_CH_RX_CONTROL::SR)
    }

    fn stop_tx(&self) -> Result<(), Error> {
        self.stop_and_wait(false, r::DEBUG_TPS0_SHIFT, chan::TPS)
    }

    fn stop_rx(&self) -> Result<(), Error> {
        self.stop_and_wait(true, r::DEBUG_RPS0_SHIFT, chan::RPS)
    }

    fn cur_rx_desc(&self) -> u64 {
        let hi = u64::from(self.bus.read_raw(r::DMA_CH0_RX_BASE_HI));
        (hi << 32) | u64::from(self.bus.read_raw(r::DMA_CH0_CUR_RX_DESC))
    }
}
