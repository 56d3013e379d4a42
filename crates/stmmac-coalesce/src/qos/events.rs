//! Channel 0's interrupt enables: the summary enables at this core's positions, and the
//! DMA_CH0_STATUS bits that DMA_CH0_INTR_ENA enables (what
//! [`take_events`](crate::Dwmac::take_events) reports and acknowledges).

use core::sync::atomic::Ordering;

use hwtimer_core::{RegisterBus, RegisterBusExt};

use super::regs::{self as r, chan};
use super::{IRQ_SOURCES, IRQ_UNKNOWN, Qos, SNPSVER_4_10};

impl<B: RegisterBus<Word = u32>> Qos<B> {
    /// The summary enables (NIE, AIE) of this core's version: bits 15/14 from 4.10 on,
    /// 16/15 on 4.00.
    pub fn summary_enables(&self) -> (u32, u32) {
        if self.snpsver() >= SNPSVER_4_10 {
            (chan::NIE_4_10, chan::AIE_4_10)
        } else {
            (chan::NIE_4_00, chan::AIE_4_00)
        }
    }

    /// DMA_CH0_INTR_ENA: the sources in `sources` (DMA_CH0_STATUS bit positions, bits
    /// 0–13), with NIE when a normal one (TI, TBU, RI, ERI) is among them and AIE when an
    /// abnormal one is, at this core's positions
    /// ([`summary_enables`](Self::summary_enables)): a 4.10 layout on a 4.00 core would
    /// enable nothing.
    /// [`take_events`](crate::Dwmac::take_events) reports and acknowledges these (and the
    /// summaries) from now on.
    pub fn enable_interrupts(&self, sources: u32) {
        let sources = sources & IRQ_SOURCES;
        let normal = chan::TI | chan::TBU | chan::RI | chan::ERI;
        let (nie, aie) = self.summary_enables();
        let mut v = sources;
        if sources & normal != 0 {
            v |= nie;
        }
        if sources & !normal != 0 {
            v |= aie;
        }
        let mask = self.status_mask(v);
        self.write_irq_enables(mask, || self.bus.write_raw(r::DMA_CH0_INTR_ENA, v));
    }

    /// The DMA_CH0_STATUS bits a DMA_CH0_INTR_ENA value `ena` enables: its sources, NIS
    /// with NIE and AIS with AIE (at this core's enable positions).
    fn status_mask(&self, ena: u32) -> u32 {
        let (nie, aie) = self.summary_enables();
        let mut m = ena & IRQ_SOURCES;
        if ena & nie != 0 {
            m |= chan::NIS;
        }
        if ena & aie != 0 {
            m |= chan::AIS;
        }
        m
    }

    /// Run `write`, which changes the enabled status bits to `new`, keeping the cache a
    /// superset of them throughout (see `Gmac3::write_irq_enables`).
    pub(super) fn write_irq_enables(&self, new: u32, write: impl FnOnce()) {
        critical_section::with(|_| {
            let old = self.irq_enabled.load(Ordering::Acquire);
            let old = if old & IRQ_UNKNOWN != 0 {
                !IRQ_UNKNOWN
            } else {
                old
            };
            self.irq_enabled.store(old | new, Ordering::Release);
            write();
            self.irq_enabled.store(new, Ordering::Release);
        });
    }

    /// The enabled DMA_CH0_STATUS bits as last written, read from the core the first time.
    pub(super) fn irq_enabled(&self) -> u32 {
        let m = self.irq_enabled.load(Ordering::Acquire);
        if m & IRQ_UNKNOWN == 0 {
            return m;
        }
        let m = self.status_mask(self.bus.read_raw(r::DMA_CH0_INTR_ENA));
        // Only if no write came in between (that write's value is the newer one).
        match self
            .irq_enabled
            .compare_exchange(IRQ_UNKNOWN, m, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => m,
            Err(newer) => newer,
        }
    }
}
