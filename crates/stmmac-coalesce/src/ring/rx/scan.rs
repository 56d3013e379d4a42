//! Finding the next frame: the descriptor scan, the drop rules and the error counters.

use super::*;
use crate::dma::DescLayout;

impl<C: CacheOps> RxRing<C> {
    pub(super) fn next_is_dma_owned(&self, k: usize) -> bool {
        let d = self.geo.desc(self.geo.wrap(self.next.wrapping_add(k)));
        self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
        d.status(self.setup.layout()) & desc::OWN != 0
    }

    /// The head descriptor's owner/status word (invalidated first), read once per frame:
    /// [`scan`](Self::scan) starts from it.
    /// `layout` is the ring's (`self.setup.layout()`, read once by the caller).
    #[inline(always)]
    pub(super) fn head_status(&self, layout: DescLayout) -> u32 {
        let first = self.geo.desc(self.next);
        self.cache.invalidate(first.as_ptr(), self.geo.desc_bytes());
        first.status(layout)
    }

    /// Look at the descriptors from `next`, whose head (CPU-owned) reads `raw0`: a
    /// complete frame, something to drop, or nothing yet. Counts drops. `layout` is the
    /// ring's, read once by the caller.
    #[inline]
    pub(super) fn scan(&mut self, layout: DescLayout, raw0: u32) -> Scan {
        let first = self.geo.desc(self.next);
        let s0 = desc::rx_status(layout, raw0);
        dma_rmb();
        if s0.ctxt {
            // A QoS context descriptor (a timestamp, after a frame's last descriptor):
            // no data, given back on its own.
            self.stats.context = self.stats.context.wrapping_add(1);
            return Scan::Drop { count: 1 };
        }
        if !s0.first {
            // A continuation without its start (the start was dropped, or garbage).
            if s0.last || !self.next_is_dma_owned(1) {
                self.stats.partial = self.stats.partial.wrapping_add(1);
                return Scan::Drop { count: 1 };
            }
            // OWN clear, no FS, no LS, next DMA-owned: the DMA is past it (it is written
            // behind it as soon as a frame arrives, and this is dropped then) or waits at
            // it (RU: `service` gives it back in place). `has_data` does not report it, so
            // a stack polling on that does not spin here.
            return Scan::Pending;
        }
        if s0.last {
            return self.judge(layout, 1, s0.fl, s0.drop, first, raw0);
        }
        let mut i = self.geo.next(self.next);
        for k in 1..self.geo.len() {
            let d = self.geo.desc(i);
            i = self.geo.next(i);
            self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
            let raw = d.status(layout);
            let s = desc::rx_status(layout, raw);
            if s.own {
                if layout.is_qos() && k.wrapping_add(1) >= self.geo.len() {
                    // QoS: every descriptor but the one at the tail holds this frame and
                    // none its end; the DMA never writes the tail's, so the frame cannot
                    // complete: give them back (the rest arrives without FD, dropped).
                    self.stats.partial = self.stats.partial.wrapping_add(1);
                    return Scan::Drop { count: k };
                }
                // The frame is still being received (or its LS write is still to come).
                return Scan::Pending;
            }
            dma_rmb();
            if s.first || s.ctxt {
                // A new frame started before this one ended: drop the unfinished part.
                self.stats.partial = self.stats.partial.wrapping_add(1);
                return Scan::Drop { count: k };
            }
            if s.last {
                return self.judge(layout, k.wrapping_add(1), s.fl, s.drop, d, raw);
            }
        }
        // The whole ring is one unfinished frame: give it back so the DMA can go on.
        self.stats.partial = self.stats.partial.wrapping_add(1);
        Scan::Drop {
            count: self.geo.len(),
        }
    }

    /// A complete frame of `count` descriptors whose last descriptor is `d`: its length `fl`
    /// (with FCS) and whether its write-back drops it, decoded from its owner word `raw`
    /// of `layout` (the ring's).
    #[inline(always)]
    pub(super) fn judge(
        &mut self,
        layout: DescLayout,
        count: usize,
        fl: u32,
        drop: bool,
        d: Desc,
        raw: u32,
    ) -> Scan {
        let fl = fl as usize;
        // `count <= len <= MAX_RING` and `buf_size < 8192`: no overflow.
        let before = count.saturating_sub(1).saturating_mul(self.buf_size);
        let csum = if self.ipc {
            desc::rx_csum_errors(layout, d, raw)
        } else {
            RxErrors::NONE
        };
        if drop || !csum.is_empty() {
            let causes = if drop {
                desc::rx_errors(layout, raw)
            } else {
                RxErrors::NONE
            };
            self.count_causes(causes | csum);
            return Scan::Drop { count };
        }
        if fl <= before || fl > count.saturating_mul(self.buf_size) {
            self.stats.length_errors = self.stats.length_errors.wrapping_add(1);
            return Scan::Drop { count };
        }
        if fl < MIN_FRAME + FCS_LEN {
            self.stats.runts = self.stats.runts.wrapping_add(1);
            return Scan::Drop { count };
        }
        let len = fl.saturating_sub(FCS_LEN);
        if len > self.max_frame {
            self.stats.oversized = self.stats.oversized.wrapping_add(1);
            return Scan::Drop { count };
        }
        Scan::Frame { count, len }
    }

    /// Count a dropped frame's causes: the summary in [`RxStats::errors`], then each cause
    /// in its own counter (the length field and MII errors on their own as Linux's
    /// `ndesc_get_rx_status` does: the summary need not cover them).
    #[cold]
    fn count_causes(&mut self, causes: RxErrors) {
        let st = &mut self.stats;
        for (cause, counter) in [
            (RxErrors::SUMMARY, &mut st.errors),
            (RxErrors::LENGTH_FIELD, &mut st.length_field_errors),
            (RxErrors::MII, &mut st.mii_errors),
            (RxErrors::CRC, &mut st.crc_errors),
            (RxErrors::DRIBBLE, &mut st.dribble_errors),
            (RxErrors::OVERFLOW, &mut st.overflow_errors),
            (RxErrors::WATCHDOG, &mut st.watchdog_errors),
            (RxErrors::LATE_COLLISION, &mut st.late_collisions),
            (RxErrors::DESCRIPTOR, &mut st.descriptor_errors),
            (RxErrors::IP_HEADER_CHECKSUM, &mut st.ip_checksum_errors),
            (RxErrors::PAYLOAD_CHECKSUM, &mut st.payload_checksum_errors),
        ] {
            if causes.intersects(cause) {
                *counter = counter.wrapping_add(1);
            }
        }
    }
}
