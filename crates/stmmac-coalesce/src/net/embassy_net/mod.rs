//! [`embassy_net_driver::Driver`] for a DWMAC and its rings (feature `embassy-net`).
//!
//! embassy-net polls the driver from its runner task and sleeps until a waker fires. Both
//! rings live in a [`NetState`] (a `static`, behind a critical-section mutex), shared by
//! the driver's tokens and the two interrupt paths that free resources:
//!
//! - **the DMA interrupt**: call [`NetState::on_dma_interrupt`] with
//!   [`Dwmac::take_events`]: it runs the RX ring's service (recovery on FBI with AIS, RX
//!   poll demand on RU when enabled) and, on TI or a TX fault only (as stmmac's TX NAPI),
//!   the TX ring's (recovery on UNF/TJT/FBI with AIS, reclaim, cleanup-timer bookkeeping);
//!   it wakes the receive
//!   side on RI/RU or data waiting, the transmit side on TI or descriptors freed;
//! - **the TX cleanup timer**: from the [`HrTimers`](hwtimer_core::HrTimers) callback for
//!   the ring's timer, return [`NetState::on_tx_timer`]: it reclaims
//!   ([`TxRing::on_timer`]), re-arms while frames are pending, and wakes the transmit side
//!   when descriptors were freed.
//!
//! Link changes ([`NetState::set_link`], from a PHY poll) program the MAC and wake the
//! runner.
//!
//! The cleanup timer's lower bound: it is started by the first frame without IC while it is
//! idle and fires **no earlier than `tx_usecs` later** (rounded up to the timer's ticks, at
//! least one tick), so servicing TX on every interrupt instead of TI would leave it no
//! work. A `transmit()` or `receive()` that finds the TX ring full reclaims it first, so a
//! ring whose frames carry no IC (`tx_usecs = 0`) never stops the interface. The crate
//! implemented is re-exported as
//! [`net::embassy_net_driver_crate`](crate::net::embassy_net_driver_crate).
//!
//! # No lost wake
//!
//! Every path that can make the runner's next poll succeed changes the shared state inside
//! the critical section and wakes **after** leaving it; every poll of the driver registers
//! its waker **before** it looks at that state, in a critical section of its own. So an
//! event that lands while the runner registers is either seen by its look or finds the
//! waker registered and wakes it; a wake takes the waker out, so it fires once per
//! registration. The two halves are the crate-private `Hub::poll` and `Hub::signal`, which
//! every driver poll and every interrupt path go through. Model-checked with loom
//! (`RUSTFLAGS="--cfg loom" cargo test -p stmmac-coalesce --lib --release loom_check`,
//! where the critical section is loom's mutex): the hub and the wakers are this module's
//! own code, the rings a stand-in (they are only ever touched inside the lock).
//!
//! # Tokens
//!
//! A TX token is handed out with the link up and a free descriptor. Its `consume`
//! reserves the descriptor as a [`TxSlot`] ([`TxRing::reserve_slot`], one short critical
//! section), lets embassy-net write the frame **in the slot's DMA buffer** with interrupts
//! enabled, and commits it ([`TxRing::commit_slot`], a second short critical section).
//! The ring never leaves the [`NetState`]: nothing is moved or copied per token but the
//! frame embassy-net writes in place. While the slot is out the interrupt paths service
//! the ring at once, as at any other time (the DMA interrupt's TX service and reclaim, a
//! cleanup-timer expiry and its re-arm); none of them touches a free descriptor's buffer.
//! The ring reserves nothing else meanwhile: another token, or [`TxRing::send`] through
//! [`NetState::with_tx`], gets [`Error::WouldBlock`](crate::Error::WouldBlock). If a TX
//! fault made the TX service restart the DMA during the fill ([`TxRing::recover`]: the
//! descriptors were reset), the slot is stale and its frame is dropped and counted in
//! [`NetStats::tx_dropped`].
//!
//! embassy-net's `TxToken::consume` must call its closure with a buffer, so when the
//! reservation fails after all (the link went down between `transmit()` and `consume()`,
//! or a frame queued through [`NetState::with_tx`] took the last descriptor) the frame is
//! built in a [`DROP_BUF_LEN`]-byte buffer on the stack, not sent, and counted in
//! [`NetStats::tx_dropped`]; the capabilities' MTU is at most that buffer.
//!
//! An RX token is handed out only for a complete, good frame ([`RxRing::receive`]: a
//! frame still arriving, or a head descriptor without its frame start whose successor the
//! DMA still owns, gives no token, so the runner sleeps until the next interrupt instead of
//! spinning). embassy-net's RX token wants `&mut [u8]` and the ring lends `&[u8]`, so
//! `receive()` **copies** the frame once into the driver's scratch buffer
//! ([`RxRing::max_frame`] bytes) inside the critical section and gives its descriptors back
//! at once; the token hands embassy-net that copy. A frame longer than the scratch buffer
//! is dropped and counted ([`NetStats::rx_too_long`]).
//!
//! # MTU
//!
//! smoltcp and embassy-net define the MTU as the largest Ethernet frame without FCS, that
//! is the IP MTU + 14. [`RxConfig::max_frame`](crate::RxConfig::max_frame) leaves room for
//! one 802.1Q tag ([`MAX_FRAME`](crate::ring::rx::MAX_FRAME) = 1500 + 14 + 4), which the stack
//! never sends, so the driver reports the smaller of `max_frame` − [`VLAN_TAG_LEN`],
//! [`TxRing::buf_size`], the scratch buffer and [`DROP_BUF_LEN`]: **1514** with the
//! defaults, a 1500-byte IP MTU.
//!
//! [`Dwmac::take_events`]: crate::common::Dwmac::take_events
//! [`TxRing::on_timer`]: crate::ring::tx::TxRing::on_timer
//! [`TxSlot`]: crate::ring::tx::TxSlot
//! [`TxRing::reserve_slot`]: crate::ring::tx::TxRing::reserve_slot
//! [`TxRing::commit_slot`]: crate::ring::tx::TxRing::commit_slot
//! [`TxRing::send`]: crate::ring::tx::TxRing::send
//! [`TxRing::recover`]: crate::ring::tx::TxRing::recover
//! [`RxRing::receive`]: crate::ring::rx::RxRing::receive
//! [`RxRing::max_frame`]: crate::ring::rx::RxRing::max_frame
//! [`TxRing::buf_size`]: crate::ring::tx::TxRing::buf_size

mod driver;
mod hub;
mod state;
mod tokens;

pub use driver::Driver;
pub use state::{NetState, NetStats};
pub use tokens::{RxToken, TxToken};

/// Bytes of an IEEE 802.1Q tag: [`RxConfig::max_frame`](crate::RxConfig::max_frame) counts
/// one, the stack's frames carry none (see [MTU](self#mtu)).
pub const VLAN_TAG_LEN: usize = 4;

/// Bytes of the stack buffer a frame is built in when no descriptor can take it (see
/// [Tokens](self#tokens)); the reported MTU is at most this.
pub const DROP_BUF_LEN: usize = 1536;

#[cfg(all(test, feature = "sim"))]
mod tests {
    //! The adapter's TX service and in-flight limit on the model (`sim::seed::Rig`): the
    //! firmware's stream (npcm750-embassy-net) needs both for the cleanup timer to pace it.
    extern crate std;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Wake, Waker};

    use embassy_net_driver::{Driver as _, TxToken as _};

    use super::{Driver, NetState};
    use crate::Dwmac as _;
    use crate::sim::seed::{HrBase, Rig};
    use crate::{
        CoalesceConfig, Coherent, DmaEvents, Duplex, FrameFilter, LinkState, MacConfig, QueueTimer,
        Speed, TimerStrategy,
    };

    type Timer = QueueTimer<'static, hwtimer_core::sim::SimClockEvent, HrBase, 4>;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    /// DMA_STATUS.RI alone.
    const RI: DmaEvents = DmaEvents::RX_COMPLETE;

    /// tx-frames 25, tx-usecs 1000 (the seed): two frames sent carry no IC.
    fn rig() -> Rig<HrBase> {
        let cfg = CoalesceConfig {
            tx_frames: 25,
            tx_usecs: 1_000,
            ..crate::sim::seed::SEED
        };
        let rig = Rig::hrtimer(cfg, TimerStrategy::ArmOnce).unwrap();
        rig.mac.init_mac(&MacConfig {
            address: MAC,
            filter: FrameFilter::default(),
        });
        rig.mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
        rig
    }

    #[test]
    fn an_rx_interrupt_does_not_clean_the_tx_ring() {
        // Before the fix every DMA interrupt ran the TX service, so the RI of each received
        // ACK reclaimed the ring and neither `tx_frames` nor the cleanup timer set the pace
        // (npcm750-embassy-net's three strategies streamed within 1 % of each other).
        let Rig { mac, tx, rx, .. } = rig();
        let state: NetState<Timer, Coherent> = NetState::new();
        state.install(tx, rx);
        let waker = Waker::from(Arc::new(Count(AtomicUsize::new(0))));
        let mut cx = Context::from_waker(&waker);
        let mut scratch = std::vec![0u8; 1518];
        let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
        for _ in 0..2 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert_eq!(state.with_tx(|t| t.pending()), Some(2));
        assert_eq!(state.on_dma_interrupt(&mac, RI), 0, "RI frees nothing");
        assert_eq!(state.with_tx(|t| t.pending()), Some(2));
        // TI does.
        assert_eq!(state.on_dma_interrupt(&mac, DmaEvents::TX_COMPLETE), 2);
        assert_eq!(state.with_tx(|t| t.pending()), Some(0));
    }

    #[test]
    fn the_inflight_limit_gates_tokens_until_a_reclaim() {
        let Rig { mac, tx, rx, .. } = rig();
        let state: NetState<Timer, Coherent> = NetState::new();
        state.install(tx, rx);
        state.set_inflight_limit(2);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let mut scratch = std::vec![0u8; 1518];
        let mut drv = Driver::new(&mac, &state, &mut scratch, MAC);
        for _ in 0..2 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert!(
            drv.transmit(&mut cx).is_none(),
            "two frames pending: no token"
        );
        assert_eq!(state.stats().tx_inflight_limited, 1);
        // The reclaim (TI here; the cleanup timer alike) wakes the transmit side and
        // tokens come again.
        assert_eq!(state.on_dma_interrupt(&mac, DmaEvents::TX_COMPLETE), 2);
        assert!(count.0.load(Ordering::SeqCst) >= 1);
        assert!(drv.transmit(&mut cx).is_some());
        // 0 lifts the limit; a new install clears it.
        state.set_inflight_limit(0);
        for _ in 0..3 {
            drv.transmit(&mut cx)
                .expect("a token")
                .consume(60, |b| b.fill(1));
        }
        assert!(drv.transmit(&mut cx).is_some());
    }
}
