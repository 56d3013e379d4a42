//! The TX ring's completion side: reclaiming, the interrupt and timer paths, recovery.

use super::*;

impl<T: CleanupTimer, C: CacheOps> TxRing<T, C> {
    /// Free every completed descriptor (OWN clear), oldest first; returns how many.
    pub fn reclaim(&mut self) -> usize {
        let mut n: usize = 0;
        while self.pending > 0 {
            let d = self.geo.desc(self.dirty);
            self.cache.invalidate(d.as_ptr(), self.geo.desc_bytes());
            let (owned, error) =
                desc::tx_status(self.setup.layout(), d.status(self.setup.layout()));
            if owned {
                break;
            }
            crate::dma::barrier::dma_rmb();
            self.stats.errors = self.stats.errors.wrapping_add(u64::from(error));
            self.pending = self.pending.saturating_sub(1);
            self.dirty = self.geo.next(self.dirty);
            n = n.wrapping_add(1);
        }
        self.stats.reclaimed = self.stats.reclaimed.wrapping_add(n as u64);
        n
    }

    /// After a TX interrupt or a poll: recover from the faults `events` report
    /// ([`DmaEvents::tx_fault`]: 3.x UNF or TJT, or [`DmaEvents::fatal`]: FBI/FBE, each
    /// only with AIS in the same read; restart the TX DMA, see [`recover`](Self::recover)),
    /// reclaim, then manage the timer: cancel it when the ring is empty, start it when
    /// descriptors remain and it is idle. Returns how many descriptors were reclaimed (the
    /// "TX space freed" event).
    ///
    /// TPS alone is no fault (every stop raises it). A TX DMA whose ST is clear was stopped
    /// by the user ([`Dwmac::stop`]): it is left stopped, even on a fault
    /// ([`TxStats::user_stopped`]).
    pub fn service<M: Dwmac>(&mut self, mac: &M, events: DmaEvents) -> usize {
        if events.tx_fault() || events.fatal() {
            if mac.tx_dma_enabled() {
                self.recover(mac);
            } else {
                self.stats.user_stopped = self.stats.user_stopped.wrapping_add(1);
            }
        }
        let n = self.reclaim();
        if self.period != 0 {
            if self.pending == 0 {
                self.cancel_timer();
                self.armed = false;
            } else {
                // Ask the timer itself here (once per TX interrupt, not per frame).
                self.armed = self.timer.is_queued();
                if !self.armed {
                    self.arm(TimerAction::Start);
                }
            }
        }
        n
    }

    /// The cleanup timer expired (call it from the timer's interrupt with its `now`):
    /// reclaim; re-arm one period later while descriptors are pending. When nothing was
    /// reclaimed although descriptors are pending:
    ///
    /// - DMA_CONTROL.ST clear (the user stopped the TX DMA): nothing is restarted, the
    ///   timer is not re-armed ([`TxStats::user_stopped`]);
    /// - ST set but the TX process stopped, or (3.x) TPS/UNF pending: a fault stopped it;
    ///   restart the TX DMA ([`recover`](Self::recover)), a stopped DMA never completes
    ///   anything;
    /// - TX process suspended (DMA_STATUS.TS): one TX poll demand, then re-arm
    ///   ([`TxStats::kicks`]); a doorbell that overtook its descriptor store (an outer
    ///   cache's store buffer) left the DMA asleep over descriptors it owns. On QoS the
    ///   kick is the tail written again (harmless to a running DMA), without reading the
    ///   process state first.
    pub fn on_timer<M: Dwmac>(&mut self, mac: &M, now: u64) -> Restart {
        self.stats.timer_expiries = self.stats.timer_expiries.wrapping_add(1);
        // The expiry dequeued the timer; it is armed again only if this returns `At`.
        self.armed = false;
        let n = self.reclaim();
        if self.pending == 0 {
            self.stats.empty_expiries = self.stats.empty_expiries.wrapping_add(u64::from(n == 0));
            return Restart::No;
        }
        if n == 0 {
            if !mac.tx_dma_enabled() {
                // The user cleared ST: leave the engine stopped, the frames queued.
                self.stats.user_stopped = self.stats.user_stopped.wrapping_add(1);
                return Restart::No;
            }
            if mac.tx_stopped() {
                self.recover(mac);
                return Restart::No;
            }
            if !mac.link().up {
                // Nothing completes on a dead link: no re-arm every `tx_usecs` while it
                // stays down; the first frame committed after it returns arms the timer.
                return Restart::No;
            }
            if mac.tx_suspended() {
                // Suspended (TU) although it owns descriptors: the poll demand that gave
                // them reached the DMA before the descriptor did. Ring once more.
                wmb();
                self.cache.before_doorbell();
                mac.tx_doorbell(self.geo.desc_bus(self.cur));
                self.stats.kicks = self.stats.kicks.wrapping_add(1);
            }
        }
        if self.period == 0 {
            return Restart::No;
        }
        self.stats.timer_starts = self.stats.timer_starts.wrapping_add(1);
        self.armed = true;
        Restart::At(now.saturating_add(self.period))
    }

    /// [`try_recover`](Self::try_recover), the error dropped (counted in
    /// [`TxStats::stop_timeouts`] or [`TxStats::refused_starts`]).
    pub fn recover<M: Dwmac>(&mut self, mac: &M) {
        let _ = self.try_recover(mac);
    }

    /// Restart the TX DMA after a fault: stop it and wait until it reads Stopped, which
    /// acknowledges the TPS the stop raised; then drop the frames in flight (counted in
    /// [`TxStats::dropped`]), return every descriptor to the CPU, program the ring base
    /// again and start. Counted in [`TxStats::recoveries`].
    ///
    /// The descriptors and the base are touched only once the process reads Stopped (the
    /// 3.x databook on DMA_TX_BASE_ADDR, quoted in the [`Dwmac`] docs; on QoS
    /// DMA_DEBUG_STATUS0.TPS0).
    ///
    /// Errors: [`Error::Timeout`] when the process never read Stopped (counted in
    /// [`TxStats::stop_timeouts`]): the TX DMA is left switched off (ST clear) with the
    /// ring as it was; the service paths then treat it as stopped by the user, and only
    /// another `try_recover` or [`try_start`](Self::try_start) starts it. The errors of
    /// [`try_start`](Self::try_start).
    pub fn try_recover<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        self.stop_and_reset(mac)?;
        self.stats.recoveries = self.stats.recoveries.wrapping_add(1);
        self.program(mac)
    }

    /// Stop the TX DMA and wait until it reads Stopped; then bring the ring back to what a
    /// start at descriptor 0 needs: the frames in flight dropped (counted in
    /// [`TxStats::dropped`]), `cur`, `dirty` and `pending` at 0, every descriptor
    /// CPU-owned, an outstanding [`TxSlot`] stale, the cleanup timer cancelled.
    ///
    /// Errors: [`Error::Timeout`] (counted in [`TxStats::stop_timeouts`]): nothing of the
    /// ring is touched then.
    pub(super) fn stop_and_reset<M: Dwmac>(&mut self, mac: &M) -> Result<(), Error> {
        if let Err(e) = mac.stop_tx() {
            self.stats.stop_timeouts = self.stats.stop_timeouts.wrapping_add(1);
            return Err(e);
        }
        self.stats.dropped = self.stats.dropped.wrapping_add(self.pending as u64);
        self.pending = 0;
        self.cur = 0;
        self.dirty = 0;
        // A slot out now is stale: its descriptor index no longer is `cur`.
        self.epoch = self.epoch.wrapping_add(1);
        self.coal.ic_forced();
        self.cancel_timer();
        self.armed = false;
        self.reset_descriptors();
        Ok(())
    }
}
