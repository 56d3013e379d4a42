//! The TX-cleanup timer of [`ring::coalesce`](crate::ring::coalesce) on the model, in
//! virtual time: a driver [`Rig`] (model + rings + timer queue)
//! and the two measurements of the seed proof.
//!
//! - [`Rig::burst`]: a burst shorter than `tx_frames` (no IC, so only the cleanup timer
//!   reclaims it): how long after the last frame left is its descriptor reclaimed? On a
//!   jiffies-style time base at HZ=100 (the timer queue on a 100 Hz tick, where 1000 µs
//!   rounds to one jiffy and fires on the next tick edge) versus the high-resolution one.
//! - [`Rig::stream`]: a steady stream of frames with IC every `tx_frames`, TI serviced as
//!   NAPI would: clockevent programmings (counted by the [`SimClockEventProbe`]) and timer
//!   queue operations per packet, for Linux's re-arm-per-packet and this crate's arm-once.
//! - [`Rig::stream_timed`]: the same stream with every interrupt taken when it happens (TI
//!   at the write-back of an IC frame, the cleanup timer at its expiry), for a model whose
//!   TX DMA lags the CPU ([`Rig::hrtimer_lagging`], [`Gmac3Model::with_tx_lag`]): timer
//!   expiries while the traffic lasts, and how long each frame waits from queueing to
//!   reclaim.

use std::collections::VecDeque;

use hwtimer_core::sim::{
    IrqSource, SimBus, SimClock, SimClockEvent, SimClockEventProbe, SimCounter, SimTickCounter,
};
use hwtimer_core::{Alarm, Extended, HrTimers, Monotonic, Restart};

use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;

use super::{Gmac3Irq, Gmac3Model, SIM_CSR_HZ, SimArena};
use crate::common::Dwmac;
use crate::common::Error;
use crate::common::phy::{Duplex, LinkState, Speed};
use crate::dma::{Coherent, DmaConfig, DmaSetup};
use crate::gmac3::Gmac3;
use crate::ring::coalesce::{CoalesceConfig, TimerStrategy};
use crate::ring::rx::{RxConfig, RxRing};
use crate::ring::tx::{QueueTimer, TxConfig, TxRing};

/// The TX-cleanup measurements' coalescing settings: `tx-frames 25 tx-usecs 1000` (no RX coalescing).
pub const SEED: CoalesceConfig = CoalesceConfig {
    tx_frames: 25,
    tx_usecs: 1_000,
    rx_usecs: 0,
    rx_frames: 0,
};

/// TX ring size of the rigs.
pub const RIG_TX_DESCS: usize = 256;
/// RX ring size of the rigs.
pub const RIG_RX_DESCS: usize = 8;
/// Rate of the high-resolution time base (counter and clockevent, phase-locked): 25 MHz.
pub const HR_HZ: u32 = 25_000_000;
/// The seed's kernel tick rate.
pub const SEED_HZ: u32 = 100;
/// Frame gap of the stream: a 1514-byte frame at 1 Gbit/s (with preamble and IFG) takes
/// 12.3 µs.
pub const STREAM_GAP_NS: u64 = 12_304;
/// TX fetch latency of the lagging rigs ([`Rig::hrtimer_lagging`]): 2 µs from the poll
/// demand until the frame can go on the wire (descriptor and buffer fetch), on top of its
/// wire time at 1 Gbit/s.
pub const LAG_NS: u64 = 2_000;

/// The model as the rigs use it.
pub type Model = Gmac3Model<PhyModel>;
/// The bus as the rigs use it.
pub type Bus = SimBus<Model>;
/// The high-resolution time base.
pub type HrBase = Extended<SimCounter>;
/// The jiffies time base.
pub type JiffiesBase = Extended<SimTickCounter>;

/// The block a [`Rig`] drives, with the model hooks the measurements use: the GMAC 3.x model's
/// bus ([`Bus`]) or the QoS 4.x/5.x one's.
pub trait Board: Clone + Sized + 'static {
    /// The MAC type on this board.
    type Mac: Dwmac;
    /// Arena, bus and MAC on `clock`, the TX DMA lagging the CPU by `tx_lag_ns` (0: the
    /// instant model).
    ///
    /// Errors: the MAC's probe.
    fn parts(clock: &SimClock, tx_lag_ns: u64) -> Result<(SimArena, Self, Self::Mac), Error>;
    /// Software reset and DMA configuration (CSR clock [`SIM_CSR_HZ`]).
    ///
    /// Errors: those of the MAC's reset and `configure_dma`.
    fn bring_up(mac: &Self::Mac, clock: &SimCounter) -> Result<DmaSetup, Error>;
    /// The DMA interrupt enables the rings expect.
    fn enable_interrupts(mac: &Self::Mac);
    /// Program MAC address 0.
    fn set_address(mac: &Self::Mac, us: [u8; 6]);
    /// Whether TI is set: one status read, as before an interrupt handler runs at all.
    fn ti_pending(mac: &Self::Mac) -> bool;
    /// Bring the model up to `t`.
    fn sync(&self, t: u64);
    /// When the last recorded frame went on the wire (0: none).
    fn last_sent_ns(&self) -> u64;
    /// Forget the recorded frames.
    fn clear_sent(&self);
    /// The next TX write-back of a lagging DMA.
    fn tx_next_due(&self) -> Option<u64>;
    /// Whether the raw status shows TI at `t`.
    fn ti_at(&self, t: u64) -> bool;
    /// When the RX watchdog fires, if it runs.
    fn riwt_deadline(&self) -> Option<u64>;
    /// A frame arrives at `t`.
    fn inject(&self, t: u64, frame: &[u8]);
    /// Advance the clock to the model's next interrupt, if any; when it is.
    fn advance_to_irq(&self) -> Option<u64>;
}

impl Board for Bus {
    type Mac = Gmac3<Bus>;

    fn parts(clock: &SimClock, tx_lag_ns: u64) -> Result<(SimArena, Self, Self::Mac), Error> {
        let arena = SimArena::new(0x1000_0000, 1 << 20);
        let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
        let model = Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ).with_tx_lag(tx_lag_ns);
        let bus = SimBus::new(clock, model);
        let mac = Gmac3::new(bus.clone());
        Ok((arena, bus, mac))
    }

    fn bring_up(mac: &Self::Mac, clock: &SimCounter) -> Result<DmaSetup, Error> {
        mac.soft_reset(clock)?;
        mac.configure_dma(&DmaConfig {
            csr_hz: SIM_CSR_HZ,
            ..DmaConfig::default()
        })
    }

    fn enable_interrupts(mac: &Self::Mac) {
        mac.set_interrupts(crate::gmac3::regs::DMA_INTR_DEFAULT);
    }

    fn set_address(mac: &Self::Mac, us: [u8; 6]) {
        mac.set_mac_address(us);
    }

    #[inline]
    fn ti_pending(mac: &Self::Mac) -> bool {
        mac.status().is_set(crate::gmac3::regs::DMA_STATUS::TI)
    }

    fn sync(&self, t: u64) {
        self.model(|m| m.sync(t));
    }

    fn last_sent_ns(&self) -> u64 {
        self.model(|m| m.sent().last().map_or(0, |f| f.at_ns))
    }

    fn clear_sent(&self) {
        self.model(|m| m.clear_sent());
    }

    fn tx_next_due(&self) -> Option<u64> {
        self.model(|m| m.tx_next_due())
    }

    fn ti_at(&self, t: u64) -> bool {
        self.model(|m| m.raw_status(t) & 1 != 0)
    }

    fn riwt_deadline(&self) -> Option<u64> {
        self.model(|m| m.riwt_deadline())
    }

    fn inject(&self, t: u64, frame: &[u8]) {
        self.model(|m| m.inject(t, frame));
    }

    fn advance_to_irq(&self) -> Option<u64> {
        Gmac3Irq(self).advance_to_next()
    }
}

/// The QoS 4.x/5.x model as the rigs use it.
pub type Model4 = super::QosModel<PhyModel>;
/// Its bus: the [`Board`] of the rigs on QoS 4.x/5.x.
pub type Bus4 = SimBus<Model4>;

impl Board for Bus4 {
    type Mac = crate::Qos<Bus4>;

    fn parts(clock: &SimClock, tx_lag_ns: u64) -> Result<(SimArena, Self, Self::Mac), Error> {
        let arena = SimArena::new(0x1000_0000, 1 << 20);
        let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
        let model = super::QosModel::new(arena.clone(), phy, SIM_CSR_HZ).with_tx_lag(tx_lag_ns);
        let bus = SimBus::new(clock, model);
        let mac = crate::Qos::probe(bus.clone())?;
        Ok((arena, bus, mac))
    }

    fn bring_up(mac: &Self::Mac, clock: &SimCounter) -> Result<DmaSetup, Error> {
        mac.soft_reset(clock)?;
        mac.configure_dma(&DmaConfig {
            csr_hz: SIM_CSR_HZ,
            bus_width: 8,
            ..DmaConfig::default()
        })
    }

    fn enable_interrupts(mac: &Self::Mac) {
        mac.enable_default_interrupts();
    }

    fn set_address(mac: &Self::Mac, us: [u8; 6]) {
        mac.set_mac_address(us);
    }

    #[inline]
    fn ti_pending(mac: &Self::Mac) -> bool {
        mac.channel_status() & crate::qos::regs::chan::TI != 0
    }

    fn sync(&self, t: u64) {
        self.model(|m| m.sync(t));
    }

    fn last_sent_ns(&self) -> u64 {
        self.model(|m| m.sent().last().map_or(0, |f| f.at_ns))
    }

    fn clear_sent(&self) {
        self.model(|m| m.clear_sent());
    }

    fn tx_next_due(&self) -> Option<u64> {
        self.model(|m| m.tx_next_due())
    }

    fn ti_at(&self, t: u64) -> bool {
        self.model(|m| m.raw_status(t) & crate::qos::regs::chan::TI != 0)
    }

    fn riwt_deadline(&self) -> Option<u64> {
        self.model(|m| m.riwt_deadline())
    }

    fn inject(&self, t: u64, frame: &[u8]) {
        self.model(|m| m.inject(t, frame));
    }

    fn advance_to_irq(&self) -> Option<u64> {
        super::QosIrq(self).advance_to_next()
    }
}

/// Result of [`Rig::burst`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BurstFigures {
    /// When the last frame of the burst was sent.
    pub last_sent_ns: u64,
    /// When its descriptor was reclaimed, if it was (never with `tx_usecs == 0` and a burst
    /// shorter than `tx_frames`: Linux's quirk, docs/gmac3.md#tx-usecs-0).
    pub reclaimed_ns: Option<u64>,
    /// Clockevent programmings during the burst and its cleanup.
    pub programs: u64,
    /// Timer queue operations (start + restart) during the burst and its cleanup.
    pub queue_ops: u64,
}

impl BurstFigures {
    /// Reclaim latency of the last frame, ns.
    pub fn latency_ns(&self) -> Option<u64> {
        self.reclaimed_ns
            .map(|r| r.saturating_sub(self.last_sent_ns))
    }
}

/// Result of [`Rig::stream`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamFigures {
    /// Frames sent.
    pub packets: u64,
    /// Clockevent programmings.
    pub programs: u64,
    /// Timer-queue `start`s.
    pub starts: u64,
    /// Timer-queue `restart`s.
    pub restarts: u64,
    /// Timer expiries handled.
    pub expiries: u64,
    /// TI events serviced.
    pub ti_events: u64,
    /// Frames with IC.
    pub ic_set: u64,
    /// Most descriptors in flight at once.
    pub max_pending: usize,
    /// Transmit attempts refused with WouldBlock.
    pub would_block: u64,
}

/// Result of [`Rig::stream_timed`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimedStreamFigures {
    /// The counts, as [`Rig::stream`] gives them (drain included).
    pub stream: StreamFigures,
    /// From the first frame queued to the last, ns.
    pub traffic_ns: u64,
    /// Timer expiries up to the last frame queued.
    pub expiries_in_traffic: u64,
    /// Frames reclaimed (all of them, after the drain).
    pub reclaimed: u64,
    /// Sum over frames of the time from queueing to reclaim, ns.
    pub reclaim_sum_ns: u128,
    /// Longest time from queueing to reclaim, ns.
    pub reclaim_max_ns: u64,
}

impl TimedStreamFigures {
    /// Timer expiries per ms while the traffic lasts.
    pub fn expiries_per_ms(&self) -> f64 {
        self.expiries_in_traffic as f64 * 1e6 / self.traffic_ns.max(1) as f64
    }

    /// Mean time from queueing to reclaim, ns.
    pub fn reclaim_mean_ns(&self) -> f64 {
        self.reclaim_sum_ns as f64 / self.reclaimed.max(1) as f64
    }
}

impl StreamFigures {
    /// Clockevent programmings per packet.
    pub fn programs_per_packet(&self) -> f64 {
        self.programs as f64 / self.packets.max(1) as f64
    }

    /// Timer-queue operations (start + restart) per packet.
    pub fn queue_ops_per_packet(&self) -> f64 {
        (self.starts + self.restarts) as f64 / self.packets.max(1) as f64
    }
}

/// The rigs' timer queue.
pub type Timers<M> = HrTimers<SimClockEvent, M, 4>;

/// A complete driver on the model: MAC, rings, timer queue, in virtual time, on board `P`
/// (the 3.x model by default).
pub struct Rig<M: Monotonic + 'static, P: Board = Bus> {
    /// Virtual time.
    pub clock: SimClock,
    /// The DMA arena.
    pub arena: SimArena,
    /// A handle on the bus (shares the model with the driver's).
    pub bus: P,
    /// The MAC.
    pub mac: P::Mac,
    /// The timer queue (leaked: the ring's timer borrows it for good).
    pub timers: &'static Timers<M>,
    /// Its clockevent's probe.
    pub probe: SimClockEventProbe,
    /// The TX ring, its cleanup timer a slot of `timers`.
    pub tx: TxRing<QueueTimer<'static, SimClockEvent, M, 4>>,
    /// The RX ring.
    pub rx: RxRing,
    frame: [u8; 60],
    /// TI events [`Rig::stream_timed`] serviced.
    ti_taken: u64,
}

/// A 60-byte broadcast test frame (an ARP-sized payload).
pub fn test_frame() -> [u8; 60] {
    let mut f = [0u8; 60];
    f[..6].copy_from_slice(&[0xFF; 6]);
    f[6..12].copy_from_slice(&[0x52, 0x54, 0x00, 0x12, 0x34, 0x56]);
    f[12] = 0x08;
    f[13] = 0x06;
    f
}

fn build<M: Monotonic + 'static, P: Board>(
    clock: SimClock,
    event: SimClockEvent,
    time: M,
    cfg: CoalesceConfig,
    strategy: TimerStrategy,
    tx_lag_ns: u64,
) -> Result<Rig<M, P>, Error> {
    let (arena, bus, mac) = P::parts(&clock, tx_lag_ns)?;
    let probe = event.probe();
    let timers: &'static Timers<M> = Box::leak(Box::new(HrTimers::new(Alarm::new(event, time)?)));
    let reset_clock = SimCounter::new(&clock, 32, HR_HZ);
    let setup = P::bring_up(&mac, &reset_clock)?;
    let tx_cfg = TxConfig {
        descriptors: RIG_TX_DESCS,
        buf_size: 1536,
        coalesce: cfg,
        strategy,
    };
    let rx_cfg = RxConfig {
        descriptors: RIG_RX_DESCS,
        ..RxConfig::default()
    };
    let tx_mem = arena
        .region(crate::ring_bytes(RIG_TX_DESCS, 1536, 16))
        .ok_or(Error::RingSize)?;
    let rx_mem = arena
        .region(crate::ring_bytes(RIG_RX_DESCS, 1536, 16))
        .ok_or(Error::RingSize)?;
    let mut tx = TxRing::new(
        tx_mem,
        &arena,
        &setup,
        tx_cfg,
        QueueTimer::new(timers)?,
        Coherent,
    )?;
    let mut rx = RxRing::new(rx_mem, &arena, &setup, rx_cfg, Coherent)?;
    P::enable_interrupts(&mac);
    tx.try_start(&mac)?;
    rx.try_start(&mac)?;
    mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    Ok(Rig {
        clock,
        arena,
        bus,
        mac,
        timers,
        probe,
        tx,
        rx,
        frame: test_frame(),
        ti_taken: 0,
    })
}

impl Rig<HrBase> {
    /// The driver on a 25 MHz high-resolution time base (counter and phase-locked
    /// clockevent, `min_delta` 1 tick), on the 3.x model.
    ///
    /// Errors: those of [`TxRing::new`] and the timer set-up.
    pub fn hrtimer(cfg: CoalesceConfig, strategy: TimerStrategy) -> Result<Self, Error> {
        Self::hrtimer_on(cfg, strategy, 0)
    }

    /// As [`Rig::hrtimer`], on a model whose TX DMA lags the CPU by `tx_lag_ns` plus the
    /// wire time at 1 Gbit/s ([`Gmac3Model::with_tx_lag`]; 0 is the instant model).
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer_lagging(
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
        tx_lag_ns: u64,
    ) -> Result<Self, Error> {
        Self::hrtimer_on(cfg, strategy, tx_lag_ns)
    }
}

impl<P: Board> Rig<HrBase, P> {
    /// [`Rig::hrtimer_lagging`] on board `P`.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer_on(
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
        tx_lag_ns: u64,
    ) -> Result<Self, Error> {
        let clock = SimClock::new();
        let event = SimClockEvent::new(&clock, HR_HZ, 1, u64::from(u32::MAX));
        let time = Extended::new(SimCounter::new(&clock, 32, HR_HZ));
        build(clock, event, time, cfg, strategy, tx_lag_ns)
    }
}

impl Rig<JiffiesBase> {
    /// The driver on a jiffies-style time base: the timer queue on a `hz` periodic-tick
    /// counter and a clockevent of the same rate, so every deadline lands on a tick edge
    /// (a `timer_list` with `usecs_to_jiffies` rounding up), on the 3.x model.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn jiffies(hz: u32, cfg: CoalesceConfig, strategy: TimerStrategy) -> Result<Self, Error> {
        Self::jiffies_on(hz, cfg, strategy)
    }
}

impl<P: Board> Rig<JiffiesBase, P> {
    /// [`Rig::jiffies`] on board `P`.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn jiffies_on(
        hz: u32,
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
    ) -> Result<Self, Error> {
        let clock = SimClock::new();
        let event = SimClockEvent::new(&clock, hz, 1, u64::from(u32::MAX));
        let time = Extended::new(SimTickCounter::new(&clock, hz));
        build(clock, event, time, cfg, strategy, 0)
    }
}

impl<M: Monotonic + 'static, P: Board> Rig<M, P> {
    /// Run timer interrupts due at or before `until_ns`; returns the time at which the TX
    /// ring became empty, if it did in one of them.
    pub fn service_timers_until(&mut self, until_ns: u64) -> Option<u64> {
        let mut emptied = None;
        while let Some(t) = self.probe.next_fire_ns() {
            if t > until_ns {
                break;
            }
            self.clock.advance_to(t);
            // What the DMA did meanwhile (a lagging model's write-backs) is in memory before
            // the interrupt handler reads the descriptors.
            self.bus.sync(t);
            let tx = &mut self.tx;
            let mac = &self.mac;
            let id = tx.timer().id();
            // The simulated clockevent never fails to program.
            let _ = self.timers.on_interrupt(|i, now| {
                if i == id {
                    tx.on_timer(mac, now)
                } else {
                    Restart::No
                }
            });
            if self.tx.pending() == 0 && emptied.is_none() {
                emptied = Some(t);
            }
        }
        emptied
    }

    /// Service DMA_STATUS.TI as a NAPI poll would: acknowledge, reclaim, re-arm the timer if
    /// descriptors remain. Returns whether TI was set.
    ///
    /// Errors: [`Error::Timer`] when the queue refused the timer.
    pub fn service_ti(&mut self) -> Result<bool, Error> {
        // One status read per frame, as before an interrupt handler runs at all.
        if !P::ti_pending(&self.mac) {
            return Ok(false);
        }
        let ev = self.mac.take_events();
        self.tx.service(&self.mac, ev);
        Ok(true)
    }

    /// Send `n` frames back to back at `start_ns` (or now, if later), then run the timer
    /// until the ring is empty (at most 1000 interrupts).
    ///
    /// Errors: those of [`TxRing::send`] and [`Rig::service_ti`].
    pub fn burst(&mut self, n: u32, start_ns: u64) -> Result<BurstFigures, Error> {
        self.clock.advance_to(start_ns);
        let p0 = self.probe.programs();
        let s0 = self.tx.stats();
        for _ in 0..n {
            let frame = self.frame;
            self.tx.send(&self.mac, &frame)?;
            self.service_ti()?;
        }
        let mut reclaimed_ns = if self.tx.pending() == 0 {
            Some(self.clock.now_ns())
        } else {
            None
        };
        for _ in 0..1000 {
            if reclaimed_ns.is_some() {
                break;
            }
            let Some(t) = self.probe.next_fire_ns() else {
                break;
            };
            reclaimed_ns = self.service_timers_until(t);
        }
        // After the cleanup: a lagging DMA sends the last frame after the loop above began.
        let last_sent_ns = self.bus.last_sent_ns();
        let s1 = self.tx.stats();
        Ok(BurstFigures {
            last_sent_ns,
            reclaimed_ns,
            programs: self.probe.programs() - p0,
            queue_ops: (s1.timer_starts - s0.timer_starts)
                + (s1.timer_restarts - s0.timer_restarts),
        })
    }

    /// Send `n` frames, one every `gap_ns`, servicing timer interrupts and TI between them,
    /// then drain.
    ///
    /// Errors: those of [`TxRing::send`], and of [`Rig::service_ti`].
    pub fn stream(&mut self, n: u32, gap_ns: u64) -> Result<StreamFigures, Error> {
        let p0 = self.probe.programs();
        let s0 = self.tx.stats();
        let t0 = self.clock.now_ns();
        let mut f = StreamFigures::default();
        for k in 0..u64::from(n) {
            let target = t0.saturating_add(k.saturating_mul(gap_ns));
            self.service_timers_until(target);
            self.clock.advance_to(target);
            let frame = self.frame;
            if self.tx.free() == 0 {
                // The ring looks full: `send` will reclaim by itself (Linux would stop the
                // queue here and wait for the cleanup).
                f.would_block += 1;
            }
            self.tx.send(&self.mac, &frame)?;
            f.max_pending = f.max_pending.max(self.tx.pending());
            if self.service_ti()? {
                f.ti_events += 1;
            }
            if k % 1024 == 1023 {
                self.bus.clear_sent();
            }
        }
        for _ in 0..1000 {
            if self.tx.pending() == 0 {
                break;
            }
            let Some(t) = self.probe.next_fire_ns() else {
                break;
            };
            self.service_timers_until(t);
        }
        let s1 = self.tx.stats();
        f.packets = u64::from(n);
        f.programs = self.probe.programs() - p0;
        f.starts = s1.timer_starts - s0.timer_starts;
        f.restarts = s1.timer_restarts - s0.timer_restarts;
        f.expiries = s1.timer_expiries - s0.timer_expiries;
        f.ic_set = s1.ic_set - s0.ic_set;
        Ok(f)
    }

    /// [`Rig::service_ti`] for the timed stream, counting the TI events it services (a
    /// copy, so that `service_ti` keeps its callers and its inlining).
    #[inline(never)]
    fn take_ti(&mut self) -> bool {
        if !P::ti_pending(&self.mac) {
            return false;
        }
        let ev = self.mac.take_events();
        self.tx.service(&self.mac, ev);
        self.ti_taken += 1;
        true
    }

    /// Take every interrupt due at or before `until_ns` in time order: the cleanup timer at
    /// its expiry, and DMA_STATUS.TI when the DMA writes back a frame with IC (serviced as
    /// [`Rig::service_ti`] does). `seen` is called after each one.
    fn run_until(&mut self, until_ns: u64, seen: &mut impl FnMut(&Self)) {
        // Bounded: each round takes one timer expiry or one TX write-back.
        for _ in 0..(1 << 22) {
            let fire = self.probe.next_fire_ns();
            let due = self.bus.tx_next_due();
            let next = match (fire, due) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None => return,
                },
            };
            if next > until_ns {
                return;
            }
            if fire == Some(next) {
                self.service_timers_until(next);
                seen(self);
            }
            self.clock.advance_to(next);
            if self.bus.ti_at(next) {
                self.take_ti();
                seen(self);
            }
        }
    }

    /// [`Rig::stream`] with every interrupt taken when it happens, in time order (the
    /// cleanup timer at its expiry, DMA_STATUS.TI at the write-back of an IC frame): `n` frames of `frame_len` bytes (at least 60, at most 1536), one every `gap_ns`,
    /// then the drain. Also measures timer expiries while the traffic lasts and, per frame,
    /// the time from queueing (`send`) to reclaim. With the instant model (no lag) every
    /// TI is serviced right after the `send` that raised it, as in [`Rig::stream`].
    ///
    /// Errors: those of [`TxRing::send`].
    pub fn stream_timed(
        &mut self,
        n: u32,
        gap_ns: u64,
        frame_len: usize,
    ) -> Result<TimedStreamFigures, Error> {
        let p0 = self.probe.programs();
        let s0 = self.tx.stats();
        let ti0 = self.ti_taken;
        let t0 = self.clock.now_ns();
        let mut frame = vec![0u8; frame_len.clamp(60, 1536)];
        frame[..60].copy_from_slice(&self.frame);
        let mut f = StreamFigures::default();
        let mut out = TimedStreamFigures::default();
        // Queueing times of the frames not reclaimed yet, oldest first.
        let queued = core::cell::RefCell::new(VecDeque::<u64>::new());
        let lat = core::cell::RefCell::new((0u64, 0u128, 0u64, s0.reclaimed));
        let mut seen = |rig: &Self| {
            let now = rig.clock.now_ns();
            let mut l = lat.borrow_mut();
            let r = rig.tx.stats().reclaimed;
            let mut q = queued.borrow_mut();
            for _ in l.3..r {
                if let Some(t) = q.pop_front() {
                    let d = now.saturating_sub(t);
                    l.0 += 1;
                    l.1 += u128::from(d);
                    l.2 = l.2.max(d);
                }
            }
            l.3 = r;
        };
        for k in 0..u64::from(n) {
            let target = t0.saturating_add(k.saturating_mul(gap_ns));
            self.run_until(target, &mut seen);
            self.clock.advance_to(target);
            if self.tx.free() == 0 {
                f.would_block += 1;
            }
            // A full ring reclaims inside `send`, before this frame is queued.
            self.bus.sync(target);
            // `send` spelled out (reserve, copy, commit): `Rig::stream`'s `send` stays the
            // only caller besides `burst`, so the host instruction counts of `Rig::stream`
            // are not moved by this function's existence (inlining).
            let mut t = self.tx.reserve(&self.mac)?;
            let Some(dst) = t.buffer().get_mut(..frame.len()) else {
                return Err(Error::FrameSize { len: frame.len() });
            };
            dst.copy_from_slice(&frame);
            t.commit(frame.len())?;
            seen(self);
            queued.borrow_mut().push_back(target);
            f.max_pending = f.max_pending.max(self.tx.pending());
            if self.take_ti() {
                seen(self);
            }
            if k % 1024 == 1023 {
                self.bus.clear_sent();
            }
        }
        out.traffic_ns = self.clock.now_ns().saturating_sub(t0);
        out.expiries_in_traffic = self.tx.stats().timer_expiries - s0.timer_expiries;
        for _ in 0..10_000 {
            if self.tx.pending() == 0 {
                break;
            }
            let fire = self.probe.next_fire_ns();
            let due = self.bus.tx_next_due();
            let Some(next) = fire.into_iter().chain(due).min() else {
                break;
            };
            self.run_until(next, &mut seen);
        }
        let s1 = self.tx.stats();
        f.packets = u64::from(n);
        f.programs = self.probe.programs() - p0;
        f.starts = s1.timer_starts - s0.timer_starts;
        f.restarts = s1.timer_restarts - s0.timer_restarts;
        f.expiries = s1.timer_expiries - s0.timer_expiries;
        f.ic_set = s1.ic_set - s0.ic_set;
        f.ti_events = self.ti_taken - ti0;
        out.stream = f;
        let l = lat.into_inner();
        out.reclaimed = l.0;
        out.reclaim_sum_ns = l.1;
        out.reclaim_max_ns = l.2;
        Ok(out)
    }
}

/// Mean and maximum burst latency (ns) over `phases` start times spread evenly across one
/// 10 ms tick (starting 1 s into the run), for a burst of `n`. `None` when a burst was never
/// reclaimed.
///
/// Errors: those of the rig.
pub fn burst_latency_sweep<P: Board>(
    mut make: impl FnMut() -> Result<BurstRunner<P>, Error>,
    n: u32,
    phases: u32,
) -> Result<Option<(f64, u64)>, Error> {
    let mut sum = 0u128;
    let mut max = 0u64;
    let tick = 1_000_000_000 / u64::from(SEED_HZ);
    for k in 0..u64::from(phases.max(1)) {
        let start = 1_000_000_000 + k * tick / u64::from(phases.max(1)) + 1_000;
        let mut r = make()?;
        let Some(lat) = r.burst(n, start)?.latency_ns() else {
            return Ok(None);
        };
        sum += u128::from(lat);
        max = max.max(lat);
    }
    Ok(Some((sum as f64 / f64::from(phases.max(1)), max)))
}

/// Either rig, for [`burst_latency_sweep`], on board `P` (the 3.x model by default).
pub enum BurstRunner<P: Board = Bus> {
    /// High-resolution time base.
    Hr(Box<Rig<HrBase, P>>),
    /// Jiffies time base.
    Jiffies(Box<Rig<JiffiesBase, P>>),
}

impl BurstRunner {
    /// A [`Rig::hrtimer`] rig.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer(cfg: CoalesceConfig, strategy: TimerStrategy) -> Result<Self, Error> {
        Ok(BurstRunner::Hr(Box::new(Rig::hrtimer(cfg, strategy)?)))
    }

    /// A [`Rig::hrtimer_lagging`] rig.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer_lagging(
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
        tx_lag_ns: u64,
    ) -> Result<Self, Error> {
        Ok(BurstRunner::Hr(Box::new(Rig::hrtimer_lagging(
            cfg, strategy, tx_lag_ns,
        )?)))
    }

    /// A [`Rig::jiffies`] rig at `hz`.
    ///
    /// Errors: as [`Rig::jiffies`].
    pub fn jiffies(hz: u32, cfg: CoalesceConfig, strategy: TimerStrategy) -> Result<Self, Error> {
        Ok(BurstRunner::Jiffies(Box::new(Rig::jiffies(
            hz, cfg, strategy,
        )?)))
    }
}

impl<P: Board> BurstRunner<P> {
    /// A [`Rig::hrtimer_on`] rig on board `P`.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer_on(cfg: CoalesceConfig, strategy: TimerStrategy) -> Result<Self, Error> {
        Ok(BurstRunner::Hr(Box::new(Rig::hrtimer_on(
            cfg, strategy, 0,
        )?)))
    }

    /// A [`Rig::hrtimer_on`] rig on board `P` whose TX DMA lags by `tx_lag_ns`.
    ///
    /// Errors: as [`Rig::hrtimer`].
    pub fn hrtimer_lagging_on(
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
        tx_lag_ns: u64,
    ) -> Result<Self, Error> {
        Ok(BurstRunner::Hr(Box::new(Rig::hrtimer_on(
            cfg, strategy, tx_lag_ns,
        )?)))
    }

    /// A [`Rig::jiffies_on`] rig on board `P`.
    ///
    /// Errors: as [`Rig::jiffies`].
    pub fn jiffies_on(
        hz: u32,
        cfg: CoalesceConfig,
        strategy: TimerStrategy,
    ) -> Result<Self, Error> {
        Ok(BurstRunner::Jiffies(Box::new(Rig::jiffies_on(
            hz, cfg, strategy,
        )?)))
    }

    /// [`Rig::burst`] on whichever rig this is.
    ///
    /// Errors: as [`Rig::burst`].
    pub fn burst(&mut self, n: u32, start_ns: u64) -> Result<BurstFigures, Error> {
        match self {
            BurstRunner::Hr(r) => r.burst(n, start_ns),
            BurstRunner::Jiffies(r) => r.burst(n, start_ns),
        }
    }
}

/// Result of [`rx_bursts`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RxFigures {
    /// Frames injected.
    pub frames: u64,
    /// Frames the driver received.
    pub received: u64,
    /// RX interrupts (RI seen set, serviced, acknowledged).
    pub interrupts: u64,
    /// Mean time from a frame's arrival to the interrupt that reported it, ns.
    pub mean_latency_ns: f64,
    /// Longest such time, ns.
    pub max_latency_ns: u64,
}

impl RxFigures {
    /// RX interrupts per received frame.
    pub fn interrupts_per_frame(&self) -> f64 {
        self.interrupts as f64 / self.received.max(1) as f64
    }
}

/// RX coalescing on the model: `bursts` bursts of `burst` 1514-byte frames at 1 Gbit/s line
/// rate ([`STREAM_GAP_NS`] apart), 1 ms of silence between bursts, into a 32-descriptor RX
/// ring with `cfg`'s `rx_usecs` / `rx_frames`. The driver takes every RI as an interrupt
/// (acknowledge, receive everything); counts interrupts and how long each frame waited for
/// one.
///
/// Errors: those of the ring set-up.
pub fn rx_bursts(cfg: CoalesceConfig, burst: u32, bursts: u32) -> Result<RxFigures, Error> {
    rx_bursts_on::<Bus>(cfg, burst, bursts)
}

/// [`rx_bursts`] on board `P`.
///
/// Errors: those of the ring set-up.
pub fn rx_bursts_on<P: Board>(
    cfg: CoalesceConfig,
    burst: u32,
    bursts: u32,
) -> Result<RxFigures, Error> {
    let clock = SimClock::new();
    let (arena, bus, mac) = P::parts(&clock, 0)?;
    let counter = SimCounter::new(&clock, 32, HR_HZ);
    let setup = P::bring_up(&mac, &counter)?;
    let us = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    P::set_address(&mac, us);
    let rx_cfg = RxConfig {
        descriptors: 32,
        coalesce: cfg,
        ..RxConfig::default()
    };
    let mem = arena
        .region(crate::ring_bytes(32, 1536, 16))
        .ok_or(Error::RingSize)?;
    let mut rx = RxRing::new(mem, &arena, &setup, rx_cfg, Coherent)?;
    rx.try_start(&mac)?;
    // `take_events` reports only enabled sources.
    P::enable_interrupts(&mac);
    mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
    let frame = super::eth_frame(us, 1514, 0x5A);
    let mut f = RxFigures::default();
    let mut waiting: Vec<u64> = Vec::new();
    let mut sum = 0u128;
    let mut service = |rx: &mut RxRing, waiting: &mut Vec<u64>, f: &mut RxFigures| {
        let ev = mac.take_events();
        if !ev.rx_ready() {
            return;
        }
        f.interrupts += 1;
        rx.service(&mac, ev);
        while rx.receive(&mac).is_ok() {
            f.received += 1;
        }
        let now = clock.now_ns();
        for t in waiting.drain(..) {
            let lat = now.saturating_sub(t);
            sum += u128::from(lat);
            f.max_latency_ns = f.max_latency_ns.max(lat);
        }
    };
    let mut t = 1_000_000u64;
    for _ in 0..bursts {
        for _ in 0..burst {
            // A watchdog expiring before the next frame interrupts then.
            if let Some(at) = bus.riwt_deadline()
                && at <= t
            {
                clock.advance_to(at);
                service(&mut rx, &mut waiting, &mut f);
            }
            clock.advance_to(t);
            bus.inject(t, &frame);
            f.frames += 1;
            waiting.push(t);
            service(&mut rx, &mut waiting, &mut f);
            t += STREAM_GAP_NS;
        }
        // Silence: the watchdog (if running) interrupts.
        if bus.advance_to_irq().is_some() {
            service(&mut rx, &mut waiting, &mut f);
        }
        t += 1_000_000;
    }
    f.mean_latency_ns = sum as f64 / f.received.max(1) as f64;
    Ok(f)
}
