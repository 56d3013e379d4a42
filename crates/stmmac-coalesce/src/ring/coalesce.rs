//! TX/RX interrupt coalescing: the configuration, Linux's IC rule and the TX cleanup
//! timer's decisions, as pure functions and a small state machine (no hardware, no timer).
//!
//! # Background
//!
//! A DWMAC raises the TX interrupt (DMA_STATUS.TI) only for frames whose last descriptor
//! has IC set. Linux's stmmac sets IC once every `tx_frames` frames and relies on a
//! software timer of `tx_usecs` to reclaim the frames of a burst shorter than that
//! (docs/gmac3.md#tx-rule, #quirks). Linux's "net: stmmac: Use hrtimer for TX coalescing" and its
//! follow-ups (2020–2023) measured both ways this goes wrong:
//!
//! 1. On a jiffies `timer_list` at HZ=100 a 1000 µs timer fires on the next 10 ms tick, so
//!    the cleanup of a short burst waits up to 10 ms: TCP over a slow link dropped to
//!    ~5.5 Mbit/s; an hrtimer fixed it (~100 Mbit/s).
//! 2. But the driver re-arms that hrtimer on **every** transmitted packet. Under load the
//!    timer never fires (IC every N frames does the work), yet every packet pays a timer
//!    dequeue/enqueue and usually a clockevent reprogramming: 679 Mbit/s with the
//!    per-packet re-arm against 934 without it on an OpenWrt router.
//!
//! # Solution
//!
//! [`TxCoalesce`] decides, per packet, whether to set IC ([`ic_decision`], Linux's rule
//! exactly) and what to do with the timer ([`TimerAction`]):
//!
//! - [`TimerStrategy::ArmOnce`] (this crate's default): start the timer only when it is not
//!   already queued; never move a running deadline. Its expiry reclaims, and re-arms only
//!   while descriptors are still pending. The timer therefore fires at most `tx_usecs` after
//!   the first unreclaimed packet of a window, and costs one queue operation (and one
//!   clockevent programming) per **window**, not per packet.
//! - `TimerStrategy::RearmEveryPacket` (feature `unstable-baselines`): Linux's behaviour,
//!   the baseline of the seed proof's side-by-side figures.
//! - `tx_usecs == 0` disables the timer entirely (Linux since 2023): no timer operation at
//!   all, IC every `tx_frames` is the only completion path.
//!
//! # Why does this work
//!
//! The timer is a backstop for frames that IC did not cover. A frame transmitted while the
//! timer is queued will be looked at by that expiry, at most `tx_usecs` after the **first**
//! pending frame instead of after the last; if it is still in flight then, the expiry
//! re-arms (pending descriptors remain) and it is reclaimed one period later. A frame is
//! thus reclaimed at the first expiry after its write-back: at most `tx_usecs` after the DMA
//! finished it, and at most `lag + tx_usecs` after it was queued, where `lag` is the time
//! from queueing to write-back (the frames ahead of it at line rate, plus its own). That is
//! `≤ 2 × tx_usecs` when `lag ≤ tx_usecs`, the expiries come on time (a high-resolution
//! time base: jiffies add up to a tick each), the TX DMA is not left suspended while it owns
//! descriptors, and the link is up. A full ring of 256 frames of 1514 bytes takes 3.15 ms to
//! drain at 1 Gbit/s but 31.5 ms at 100 Mbit/s, more than the default 5 ms timer. Under
//! continuous traffic the timer fires once per `tx_usecs` instead of being pushed out on
//! every packet, as long as a TI clean leaves frames in flight (at line rate, the frame
//! behind the IC frame is still on the wire when TI comes); a TI clean that empties the
//! ring cancels it instead. So the crate's model gives 0 expiries under load when its DMA
//! completes each frame inside the doorbell write (the default, as QEMU), and one per
//! `tx_usecs` while 1514-byte frames flow at 1 Gbit/s when the DMA lags the CPU
//! (`sim::Gmac3Model::with_tx_lag`, bench `stream_timer_expiries_per_ms_arm_once_lagging`);
//! short frames spaced wider than their lag and wire time still empty the ring at every
//! TI (`..._arm_once_lagging_60b`: 0 expiries).

use crate::common::ConfigError;

/// Default TX timer, µs (Linux `STMMAC_COAL_TX_TIMER`, docs/gmac3.md#constants).
pub const COAL_TX_TIMER: u32 = 5_000;
/// Largest accepted `tx_usecs` (Linux `STMMAC_MAX_COAL_TX_TICK`).
pub const MAX_COAL_TX_TICK: u32 = 100_000;
/// Largest accepted `tx_frames` (Linux `STMMAC_TX_MAX_FRAMES`).
pub const TX_MAX_FRAMES: u32 = 256;
/// Default `tx_frames` (Linux `STMMAC_TX_FRAMES`).
pub const TX_FRAMES: u32 = 25;
/// Smallest RIWT ethtool accepts (Linux `MIN_DMA_RIWT`).
pub const MIN_DMA_RIWT: u32 = 0x10;
/// Largest RIWT (Linux `MAX_DMA_RIWT`).
pub const MAX_DMA_RIWT: u32 = 0xFF;
/// Default RIWT written at DMA setup (Linux `DEF_DMA_RIWT`).
pub const DEF_DMA_RIWT: u32 = 0xA0;

/// RX watchdog count for `usec` µs with a CSR clock of `csr_hz` (units of 256 CSR clocks;
/// Linux `stmmac_usec2riwt`: `usec × MHz / 256`). 0 when the clock is unknown.
///
/// ```
/// use stmmac_coalesce::ring::coalesce::{riwt2usec, usec2riwt};
/// assert_eq!(usec2riwt(100, 250_000_000), 97); // 100 µs at 250 MHz
/// assert_eq!(riwt2usec(97, 250_000_000), 99);
/// assert_eq!(usec2riwt(100, 0), 0);
/// ```
pub const fn usec2riwt(usec: u32, csr_hz: u32) -> u32 {
    let mhz = (csr_hz / 1_000_000) as u64;
    // u32 × (u32 / 10^6) < 2^45: cannot wrap.
    let v = (usec as u64).wrapping_mul(mhz) / 256;
    if v > u32::MAX as u64 {
        u32::MAX
    } else {
        v as u32
    }
}

/// µs for a watchdog count `riwt` (Linux `stmmac_riwt2usec`: `riwt × 256 / MHz`); 0 when the
/// clock is unknown.
pub const fn riwt2usec(riwt: u32, csr_hz: u32) -> u32 {
    let mhz = (csr_hz / 1_000_000) as u64;
    if mhz == 0 {
        return 0;
    }
    // u32 × 256 < 2^40: cannot wrap; `mhz` is not 0 here.
    let v = match (riwt as u64).wrapping_mul(256).checked_div(mhz) {
        Some(v) => v,
        None => 0,
    };
    if v > u32::MAX as u64 {
        u32::MAX
    } else {
        v as u32
    }
}

/// Coalescing settings (the ethtool `-C` parameters stmmac supports).
///
/// What 0 means, for each value:
///
/// | value | 0 means | otherwise |
/// |---|---|---|
/// | `tx_frames` | never set IC: the cleanup timer alone reclaims (needs `tx_usecs > 0`) | IC on every `tx_frames`-th frame (Linux's rule); at most the TX ring length |
/// | `tx_usecs` | no cleanup timer at all: IC alone reclaims (needs `tx_frames > 0`); a burst shorter than `tx_frames` is reclaimed by the next IC or when the ring fills | the timer fires at most `tx_usecs` after the first unreclaimed frame |
/// | `rx_usecs` | no RX watchdog (RIWT 0): RI on every frame (DIC clear everywhere); `rx_frames` must be 0 or 1 | RIWT = `usec2riwt(rx_usecs)`; RI from the watchdog, and see `rx_frames` |
/// | `rx_frames` | with the watchdog: DIC on every RX descriptor, RI from RIWT only (Linux on 3.x) | with the watchdog: DIC clear on every `rx_frames`-th refilled descriptor, so a burst interrupts after at most `rx_frames` descriptors, before the watchdog; at most the RX ring length |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CoalesceConfig {
    /// Set IC once every `tx_frames` frames; 0 = never (the timer alone reclaims).
    pub tx_frames: u32,
    /// TX cleanup timer, µs; 0 = no timer (IC alone reclaims).
    pub tx_usecs: u32,
    /// RX interrupt watchdog, µs; 0 = RX interrupt per frame (DIC clear, RIWT 0).
    pub rx_usecs: u32,
    /// With the watchdog, an RX interrupt at least every `rx_frames` descriptors; 0 = from
    /// the watchdog only.
    pub rx_frames: u32,
}

impl Default for CoalesceConfig {
    /// Linux's defaults: 25 frames, 5000 µs, RX per frame.
    fn default() -> Self {
        Self {
            tx_frames: TX_FRAMES,
            tx_usecs: COAL_TX_TIMER,
            rx_usecs: 0,
            rx_frames: 0,
        }
    }
}

impl CoalesceConfig {
    /// Check as Linux's ethtool `set_coalesce` does, and compute the RX watchdog for a CSR
    /// clock of `csr_hz`: `Ok(Some(riwt))` when `rx_usecs > 0`, `Ok(None)` otherwise.
    ///
    /// Errors: [`ConfigError::NoTxCompletion`] when both TX values are 0;
    /// [`ConfigError::TxUsecsTooLarge`] / [`ConfigError::TxFramesTooLarge`] above
    /// [`MAX_COAL_TX_TICK`] / [`TX_MAX_FRAMES`]; [`ConfigError::NoCsrClock`] when
    /// `rx_usecs > 0` and `csr_hz` is 0; [`ConfigError::RiwtOutOfRange`] when the computed
    /// RIWT is outside `[MIN_DMA_RIWT, MAX_DMA_RIWT]`.
    ///
    /// ```
    /// use stmmac_coalesce::{CoalesceConfig, ConfigError};
    /// let bad = CoalesceConfig { tx_frames: 0, tx_usecs: 0, ..CoalesceConfig::default() };
    /// assert_eq!(bad.validate(125_000_000), Err(ConfigError::NoTxCompletion));
    /// let rx = CoalesceConfig { rx_usecs: 100, ..CoalesceConfig::default() };
    /// assert_eq!(rx.validate(250_000_000), Ok(Some(97)));
    /// ```
    pub fn validate(&self, csr_hz: u32) -> Result<Option<u32>, ConfigError> {
        if self.tx_usecs == 0 && self.tx_frames == 0 {
            return Err(ConfigError::NoTxCompletion);
        }
        if self.tx_usecs > MAX_COAL_TX_TICK {
            return Err(ConfigError::TxUsecsTooLarge);
        }
        if self.tx_frames > TX_MAX_FRAMES {
            return Err(ConfigError::TxFramesTooLarge);
        }
        if self.rx_usecs == 0 {
            return Ok(None);
        }
        if csr_hz < 1_000_000 {
            return Err(ConfigError::NoCsrClock);
        }
        let riwt = usec2riwt(self.rx_usecs, csr_hz);
        if !(MIN_DMA_RIWT..=MAX_DMA_RIWT).contains(&riwt) {
            return Err(ConfigError::RiwtOutOfRange);
        }
        Ok(Some(riwt))
    }

    /// [`validate`](Self::validate)'s TX checks, and `tx_frames` against a TX ring of
    /// `ring_len` descriptors: a ring that fills before the IC frame would wait for the
    /// timer, or forever without one.
    ///
    /// Errors: those of `validate` for the TX values; [`ConfigError::TxFramesExceedRing`]
    /// when `tx_frames > ring_len`.
    pub fn validate_tx(&self, ring_len: usize) -> Result<(), ConfigError> {
        CoalesceConfig {
            rx_usecs: 0,
            rx_frames: 0,
            ..*self
        }
        .validate(0)?;
        if self.tx_frames as usize > ring_len {
            return Err(ConfigError::TxFramesExceedRing);
        }
        Ok(())
    }

    /// The RX checks for an RX ring whose DMA may hold `ring_len` descriptors at once (all
    /// of them on GMAC 3.x, one fewer on QoS, whose tail pointer never reaches the current
    /// descriptor) and a CSR clock of `csr_hz`: the RIWT value to program (0 = watchdog off).
    ///
    /// Errors: [`ConfigError::NoCsrClock`] / [`ConfigError::RiwtOutOfRange`] as in
    /// `validate`; [`ConfigError::RxFramesWithoutWatchdog`] when `rx_frames > 1` with
    /// `rx_usecs == 0` (a shorter burst would never interrupt);
    /// [`ConfigError::RxFramesExceedRing`] when `rx_frames > ring_len`.
    pub fn validate_rx(&self, ring_len: usize, csr_hz: u32) -> Result<u8, ConfigError> {
        if self.rx_usecs == 0 {
            if self.rx_frames > 1 {
                return Err(ConfigError::RxFramesWithoutWatchdog);
            }
            return Ok(0);
        }
        if self.rx_frames as usize > ring_len {
            return Err(ConfigError::RxFramesExceedRing);
        }
        if csr_hz < 1_000_000 {
            return Err(ConfigError::NoCsrClock);
        }
        let riwt = usec2riwt(self.rx_usecs, csr_hz);
        if !(MIN_DMA_RIWT..=MAX_DMA_RIWT).contains(&riwt) {
            return Err(ConfigError::RiwtOutOfRange);
        }
        Ok(riwt as u8)
    }

    /// Whether RX descriptor number `k` (counting refills from 0) gets DIC.
    #[inline]
    pub const fn rx_dic(&self, k: u64) -> bool {
        if self.rx_usecs == 0 {
            return false;
        }
        if self.rx_frames == 0 {
            return true;
        }
        !k.wrapping_add(1).is_multiple_of(self.rx_frames as u64)
    }
}

/// Linux's IC rule for one packet (docs/gmac3.md#tx-rule, step 2, without the HW-timestamp case).
///
/// `count` is the running `tx_count_frames` **after** adding this packet's `tx_packets`
/// descriptors. IC is set on the packet's last descriptor when `tx_frames != 0` and either
/// the packet alone exceeds `tx_frames` or it crossed a multiple of `tx_frames`
/// (`count % tx_frames < tx_packets`). Returns `(set_ic, new_count)`: the count restarts at
/// 0 when IC is set.
///
/// ```
/// use stmmac_coalesce::ring::coalesce::ic_decision;
/// // tx_frames = 25, single-descriptor packets: IC on every 25th.
/// let mut count = 0;
/// let mut ics = 0;
/// for _ in 0..100 {
///     let (ic, c) = ic_decision(count + 1, 1, 25);
///     count = c;
///     ics += u32::from(ic);
/// }
/// assert_eq!(ics, 4);
/// assert_eq!(ic_decision(1, 1, 0), (false, 1)); // tx_frames = 0: never
/// ```
#[inline]
pub const fn ic_decision(count: u32, tx_packets: u32, tx_frames: u32) -> (bool, u32) {
    if tx_frames == 0 {
        return (false, count);
    }
    // `count % tx_frames`, without a division in the usual cases: the running count stays
    // below `tx_frames` between packets, so `count < 2 * tx_frames` unless a packet alone
    // exceeds it (a Cortex-A9 has no divide instruction: a division is a library call).
    let rem = if count < tx_frames {
        Some(count)
    } else if count.wrapping_sub(tx_frames) < tx_frames {
        Some(count.wrapping_sub(tx_frames))
    } else {
        count.checked_rem(tx_frames)
    };
    let ic = tx_packets > tx_frames
        || match rem {
            Some(r) => r < tx_packets,
            None => false, // tx_frames == 0 returned above
        };
    if ic { (true, 0) } else { (false, count) }
}

/// How the TX cleanup timer is driven on transmit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimerStrategy {
    /// Start the timer only if it is not queued (this crate's fix for the
    /// per-packet re-arm).
    ArmOnce,
    /// Restart it on every packet, moving the deadline out (Linux's stmmac; the slow case
    /// of the [module docs](self)). A baseline for measurements only (feature `unstable-baselines`, no
    /// semver promise).
    #[cfg(feature = "unstable-baselines")]
    RearmEveryPacket,
}

/// What to do with the TX timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimerAction {
    /// Leave it as it is.
    Keep,
    /// Queue the idle timer `tx_usecs` from now (hwtimer-core `start`).
    Start,
    /// Queue it `tx_usecs` from now, moving it if queued (hwtimer-core `restart`).
    Restart,
}

/// Per-queue TX coalescing state: the running frame count and the timer decisions.
/// Pure: the caller applies [`TimerAction`]s to its timer queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxCoalesce {
    cfg: CoalesceConfig,
    strategy: TimerStrategy,
    count_frames: u32,
}

/// The decision for one transmitted packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct XmitPlan {
    /// Set IC on the packet's last descriptor.
    pub set_ic: bool,
    /// What to do with the cleanup timer after kicking the DMA.
    pub timer: TimerAction,
}

impl TxCoalesce {
    /// State for `cfg` (already validated) and `strategy`.
    pub const fn new(cfg: CoalesceConfig, strategy: TimerStrategy) -> Self {
        Self {
            cfg,
            strategy,
            count_frames: 0,
        }
    }

    /// The configuration.
    pub const fn config(&self) -> CoalesceConfig {
        self.cfg
    }

    /// The strategy.
    pub const fn strategy(&self) -> TimerStrategy {
        self.strategy
    }

    /// Frames counted since the last IC.
    pub const fn count_frames(&self) -> u32 {
        self.count_frames
    }

    /// Whether a cleanup timer is used at all (`tx_usecs != 0`).
    pub const fn timer_enabled(&self) -> bool {
        self.cfg.tx_usecs != 0
    }

    /// A packet of `tx_packets` descriptors is being queued; `timer_queued` says whether the
    /// cleanup timer is queued now.
    ///
    /// With [`TimerStrategy::ArmOnce`] a packet that gets IC does not start the timer: its
    /// TI interrupt reclaims it and everything before it, and the clean that follows starts
    /// the timer if anything is still pending. `TimerStrategy::RearmEveryPacket` (feature
    /// `unstable-baselines`) restarts it on every packet, as Linux does.
    #[inline]
    pub fn on_xmit(&mut self, tx_packets: u32, timer_queued: bool) -> XmitPlan {
        let count = self.count_frames.saturating_add(tx_packets);
        let (set_ic, count) = ic_decision(count, tx_packets, self.cfg.tx_frames);
        self.count_frames = count;
        let timer = match (self.timer_enabled(), self.strategy, timer_queued) {
            (false, _, _) => TimerAction::Keep,
            #[cfg(feature = "unstable-baselines")]
            (true, TimerStrategy::RearmEveryPacket, _) => TimerAction::Restart,
            (true, TimerStrategy::ArmOnce, true) => TimerAction::Keep,
            (true, TimerStrategy::ArmOnce, false) if set_ic => TimerAction::Keep,
            (true, TimerStrategy::ArmOnce, false) => TimerAction::Start,
        };
        XmitPlan { set_ic, timer }
    }

    /// IC was set outside the rule (the timer could not be armed) or the ring restarted:
    /// the frame count starts again.
    pub fn ic_forced(&mut self) {
        self.count_frames = 0;
    }

    /// After a cleanup (from the timer's expiry, or from a TI interrupt) that left
    /// `pending` descriptors in flight: re-arm only while some are pending and the timer is
    /// enabled and not already queued.
    pub fn after_clean(&self, pending: usize, timer_queued: bool) -> TimerAction {
        if pending > 0 && self.timer_enabled() && !timer_queued {
            TimerAction::Start
        } else {
            TimerAction::Keep
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's settings (`sim::seed::SEED`, which needs the `sim` feature).
    const SEED: CoalesceConfig = CoalesceConfig {
        tx_frames: 25,
        tx_usecs: 1_000,
        rx_usecs: 0,
        rx_frames: 0,
    };

    #[test]
    fn multi_descriptor_packets_cross_multiples() {
        // tx_frames 4: packets of 3 descriptors. Counts 3, 6 (crosses 4), 3, 6...
        let (ic, c) = ic_decision(3, 3, 4);
        assert!(!ic);
        let (ic, c) = ic_decision(c + 3, 3, 4);
        assert!(ic);
        assert_eq!(c, 0);
        // A packet bigger than tx_frames always gets IC.
        assert_eq!(ic_decision(5, 5, 4), (true, 0));
    }

    #[test]
    fn arm_once_starts_only_when_idle() {
        let mut s = TxCoalesce::new(SEED, TimerStrategy::ArmOnce);
        assert_eq!(s.on_xmit(1, false).timer, TimerAction::Start);
        assert_eq!(s.on_xmit(1, true).timer, TimerAction::Keep);
        let mut l = TxCoalesce::new(SEED, TimerStrategy::RearmEveryPacket);
        assert_eq!(l.on_xmit(1, true).timer, TimerAction::Restart);
        let mut z = TxCoalesce::new(
            CoalesceConfig {
                tx_usecs: 0,
                ..SEED
            },
            TimerStrategy::RearmEveryPacket,
        );
        assert_eq!(z.on_xmit(1, false).timer, TimerAction::Keep);
        assert_eq!(z.after_clean(3, false), TimerAction::Keep);
        assert_eq!(s.after_clean(0, false), TimerAction::Keep);
        assert_eq!(s.after_clean(2, false), TimerAction::Start);
        assert_eq!(s.after_clean(2, true), TimerAction::Keep);
    }

    #[test]
    fn validation_matches_ethtool() {
        let c = SEED;
        assert_eq!(c.validate(0), Ok(None));
        let big = CoalesceConfig {
            tx_usecs: MAX_COAL_TX_TICK + 1,
            ..c
        };
        assert_eq!(big.validate(0), Err(ConfigError::TxUsecsTooLarge));
        let many = CoalesceConfig {
            tx_frames: TX_MAX_FRAMES + 1,
            ..c
        };
        assert_eq!(many.validate(0), Err(ConfigError::TxFramesTooLarge));
        let rx = CoalesceConfig { rx_usecs: 1, ..c };
        assert_eq!(rx.validate(0), Err(ConfigError::NoCsrClock));
        assert_eq!(rx.validate(250_000_000), Err(ConfigError::RiwtOutOfRange));
        let rx = CoalesceConfig { rx_usecs: 300, ..c };
        assert_eq!(rx.validate(250_000_000), Err(ConfigError::RiwtOutOfRange));
        // Exactly tx_usecs 0 with frames is fine (timer disabled).
        let no_timer = CoalesceConfig { tx_usecs: 0, ..c };
        assert_eq!(no_timer.validate(0), Ok(None));
    }
}
