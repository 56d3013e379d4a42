//! One test (or a few) per defect of issue 9, each of which failed on the driver before its
//! fix (checked by reverting the fix; the CHANGELOG names what each one caught).

mod common;

use std::cell::Cell;

use common::*;
use hwtimer_core::RegisterBus;
use hwtimer_core::Restart;
use stmmac_coalesce::DmaAddr as _;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::gmac3::regs::{self, DMA_STATUS};
use stmmac_coalesce::ring::coalesce::usec2riwt;
use stmmac_coalesce::sim::{AnPhy, Ring, SIM_CSR_HZ, Seen, SimArena, TxFault, eth_frame};
use stmmac_coalesce::{
    CleanupTimer, CoalesceConfig, Coherent, ConfigError, DescLayout, DmaConfig, DmaEvents, Duplex,
    Error, LinkState, NoTimer, QueueTimer, RxConfig, RxRing, Speed, TimerStrategy, TxConfig,
    ring_bytes,
};

// ---- RX frames longer than one buffer -------------------------------------------------

#[test]
fn rx_frame_spanning_descriptors_is_assembled_exactly() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    let f = eth_frame(US, 1200, 0xC3);
    b.inject(&f);
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!((fr.len(), fr.descriptors()), (1200, 3));
    assert!(fr.as_slice().is_none(), "not contiguous: no lending");
    let mut scratch = [0u8; 1518];
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
    drop(fr);
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(rx.stats().multi_descriptor, 1);
}

#[test]
fn rx_never_delivers_stale_bytes_from_an_earlier_frame() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    let mut scratch = [0u8; 1518];
    // Fill every buffer with 0xEE, then a shorter spanning frame reuses them.
    for _ in 0..2 {
        b.inject(&eth_frame(US, 1500, 0xEE));
        let mut fr = rx.receive(&b.mac).unwrap();
        fr.bytes(&mut scratch).unwrap();
    }
    let f = eth_frame(US, 600, 0x11);
    b.inject(&f);
    let mut fr = rx.receive(&b.mac).unwrap();
    let got = fr.bytes(&mut scratch).unwrap();
    assert_eq!(got.len(), 600, "FL says 600 + FCS: nothing more");
    assert_eq!(got, &f[..]);
    assert!(!got.contains(&0xEE));
    drop(fr);
    // Exactly three frames, none made of a part of another.
    assert_eq!(rx.stats().frames, 3);
    assert_eq!(rx.stats().partial, 0);
}

#[test]
fn rx_fcs_spilling_into_its_own_descriptor_leaves_the_frame_contiguous() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    // 510 bytes + 4 FCS: the last 2 FCS bytes land in a second descriptor.
    let f = eth_frame(US, 510, 0x42);
    b.inject(&f);
    let fr = rx.receive(&b.mac).unwrap();
    assert_eq!((fr.len(), fr.descriptors()), (510, 2));
    assert_eq!(fr.as_slice().unwrap(), &f[..], "zero-copy: no FCS byte");
}

#[test]
fn rx_spanning_frame_too_long_for_the_caller_is_dropped_and_counted() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 256), Coherent);
    b.inject(&eth_frame(US, 1000, 1));
    let mut small = [0u8; 600];
    {
        let mut fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.bytes(&mut small), Err(Error::FrameSize { len: 1000 }));
    }
    assert_eq!(rx.stats().not_assembled, 1);
    // Its descriptors went back: the ring goes on.
    let f = eth_frame(US, 100, 2);
    b.inject(&f);
    assert_eq!(rx.receive(&b.mac).unwrap().as_slice().unwrap(), &f[..]);
}

#[test]
fn rx_frame_is_complete_only_on_ls_even_when_own_is_already_clear() {
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    b.bus.model(|m| m.set_split_last_write(true));
    let f = eth_frame(US, 1000, 7);
    b.inject(&f);
    // OWN clear without LS on the last descriptor: in progress, not an error.
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(
        rx.stats(),
        stmmac_coalesce::RxStats {
            poll_demands: rx.stats().poll_demands,
            ..Default::default()
        }
    );
    b.bus.model(|m| m.complete_rx_writes());
    let mut scratch = [0u8; 1518];
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
}

#[test]
fn rx_frame_larger_than_the_ring_is_dropped_and_the_ring_recovers() {
    let b = Board::new();
    b.link_up();
    let cfg = RxConfig {
        descriptors: 4,
        buf_size: 256,
        max_frame: 1000,
        ..RxConfig::default()
    };
    let mut rx = b.rx(cfg, Coherent);
    // 1500 bytes cannot fit 4 × 256: the DMA fills the ring and waits mid-frame.
    b.inject(&eth_frame(US, 1500, 3));
    for _ in 0..8 {
        let _ = rx.receive(&b.mac);
    }
    assert!(rx.stats().partial >= 1, "{:?}", rx.stats());
    assert_eq!(rx.stats().frames, 0);
    let f = eth_frame(US, 200, 4);
    b.inject(&f);
    let got = rx.receive(&b.mac).unwrap();
    assert_eq!(got.as_slice().unwrap(), &f[..]);
}

// ---- Ordering before the doorbell, as the model saw it ----------------------------------
//
// The DMA arena and the register bus both go through the model, which logs what the DMA
// saw in order (`sim::Seen`): write-backs into its view of memory (non-coherent arena) and
// each doorbell with the descriptor it found. The driver carries no hook.

/// Whether `items` occur in `seen` in this order (not necessarily adjacent).
fn in_order(seen: &[Seen], items: &[Seen]) -> bool {
    let mut it = seen.iter();
    items.iter().all(|want| it.any(|s| s == want))
}

#[test]
fn tx_doorbell_finds_its_descriptor_already_owned() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    b.arena.record_order();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let seen = b.arena.take_order();
    assert_eq!(
        seen,
        [Seen::Doorbell {
            ring: Ring::Tx,
            desc: tx.base(),
            des0: regs::desc::OWN
        }],
        "one doorbell, and the DMA found OWN set when it arrived"
    );
    assert_eq!(b.sent().len(), 1, "sent inside the doorbell write");
}

#[test]
fn tx_buffer_then_descriptor_reach_the_dma_before_the_doorbell_on_non_coherent_memory() {
    let (b, arena) = cached_board(64, 64);
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, arena.cache());
    arena.record_order();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let seen = arena.take_order();
    let buf = u64::from(tx.desc_words(0).unwrap()[2]);
    assert_eq!(
        seen,
        [
            Seen::Clean { bus: buf, len: 64 },
            Seen::Clean {
                bus: tx.base(),
                len: 64
            },
            Seen::Doorbell {
                ring: Ring::Tx,
                desc: tx.base(),
                des0: regs::desc::OWN
            },
        ],
        "the frame, then its descriptor (fields and OWN in one write-back), then the doorbell"
    );
    assert_eq!(b.sent()[0], eth_frame([0xFF; 6], 60, 0));
}

/// A two-descriptor ring, both filled: the RX DMA waits at descriptor 0.
fn rx_full_ring<C: stmmac_coalesce::CacheOps>(b: &Board, cache: C) -> stmmac_coalesce::RxRing<C> {
    let mut rx = b.rx(rx_cfg(2, 1536), cache);
    b.inject(&eth_frame(US, 100, 0));
    b.inject(&eth_frame(US, 100, 1));
    assert_eq!(b.bus.model(|m| m.rx_delivered()), 2);
    drop(rx.receive(&b.mac).unwrap());
    rx
}

#[test]
fn rx_poll_demand_finds_the_refilled_descriptor_already_owned() {
    let b = Board::new();
    b.link_up();
    let mut rx = rx_full_ring(&b, Coherent);
    b.arena.record_order();
    drop(rx.receive(&b.mac).unwrap());
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    assert_eq!(
        b.arena.take_order(),
        [Seen::Doorbell {
            ring: Ring::Rx,
            desc: rx.base(),
            des0: regs::desc::OWN
        }]
    );
}

#[test]
fn rx_refill_invalidates_the_buffer_and_writes_back_the_descriptor_before_the_poll_demand() {
    let (b, arena) = cached_board(64, 64);
    // Four descriptors (a ring with padding between descriptors has at least four), all
    // filled; the first frame is taken.
    let mut rx = b.rx(rx_cfg(4, 1536), arena.cache());
    for k in 0..4 {
        b.inject(&eth_frame(US, 100, k));
    }
    assert_eq!(b.bus.model(|m| m.rx_delivered()), 4);
    drop(rx.receive(&b.mac).unwrap());
    arena.record_order();
    for _ in 0..3 {
        drop(rx.receive(&b.mac).unwrap());
    }
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    let seen = arena.take_order();
    let stride = b.setup.desc_stride() as u64;
    let buf1 = u64::from(rx.desc_words(1).unwrap()[2]);
    assert!(
        in_order(
            &seen,
            &[
                Seen::Invalidate {
                    bus: buf1,
                    len: 1536
                },
                Seen::Clean {
                    bus: rx.base() + stride,
                    len: 64
                },
                Seen::Doorbell {
                    ring: Ring::Rx,
                    desc: rx.base(),
                    des0: regs::desc::OWN
                },
            ]
        ),
        "{seen:?}"
    );
    assert_eq!(
        seen.iter()
            .filter(|s| matches!(s, Seen::Doorbell { .. }))
            .count(),
        1
    );
}

// ---- Cache maintenance ---------------------------------------------------------------

fn cached_board(line: usize, cache_line_cfg: usize) -> (Board, SimArena) {
    let arena = SimArena::non_coherent(0x1000_0000, 4 << 20, line);
    let b = Board::with(
        AnPhy::gigabit(),
        arena.clone(),
        DmaConfig {
            cache_line: cache_line_cfg,
            ..dma()
        },
        |m| m,
    );
    b.link_up();
    (b, arena)
}

#[test]
fn cache_hook_makes_tx_and_rx_work_on_non_coherent_memory() {
    let (b, arena) = cached_board(64, 64);
    assert_eq!(b.setup.desc_stride(), 64);
    assert_eq!(b.setup.dsl(), 12, "(64 - 16) / 4");
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, arena.cache());
    let mut rx = b.rx(rx_cfg(8, 512), arena.cache());
    let mut sent = Vec::new();
    for k in 0..12u8 {
        let f = eth_frame([0xFF; 6], 100 + usize::from(k), k);
        tx.send(&b.mac, &f).unwrap();
        tx.service(&b.mac, b.mac.take_events());
        sent.push(f);
    }
    assert_eq!(b.sent(), sent, "the DMA read what the CPU wrote");
    let mut scratch = [0u8; 1518];
    for k in 0..12u8 {
        let f = eth_frame(US, 300 + 97 * usize::from(k), k);
        b.inject(&f);
        let mut fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..], "frame {k}");
    }
    let (cleans, invalidates) = arena.cache_ops();
    assert!(cleans > 0 && invalidates > 0);
}

#[test]
fn cache_no_op_on_non_coherent_memory_loses_frames() {
    // What `Coherent` requires: uncached or coherent memory. On a cached arena the DMA never
    // sees OWN, so nothing is sent.
    let (b, _arena) = cached_board(64, 64);
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert!(b.sent().is_empty());
}

#[test]
fn cache_line_shorter_than_the_real_one_is_refused() {
    // Descriptors packed at 16 bytes would share 64-byte lines: giving one back (clean)
    // would write the CPU's stale copy of its neighbours over what the DMA wrote there, and
    // an invalidation would discard neighbouring data. The ring takes the line from its
    // cache hook's promise (`CacheOps::line`) and refuses a shorter configured line; with
    // the right one, two frames received back to back both arrive.
    let (b, arena) = cached_board(64, 16);
    let mem = arena.region(ring_bytes(8, 512, 64)).unwrap();
    assert_eq!(
        RxRing::new(mem, &arena, &b.setup, rx_cfg(8, 512), arena.cache()).map(|_| ()),
        Err(Error::Config(ConfigError::CacheLineTooShort))
    );
    let mem = arena.region(ring_bytes(8, 1536, 64)).unwrap();
    assert_eq!(
        stmmac_coalesce::TxRing::new(
            mem,
            &arena,
            &b.setup,
            tx_cfg(8, no_timer(1)),
            NoTimer,
            arena.cache()
        )
        .map(|_| ()),
        Err(Error::Config(ConfigError::CacheLineTooShort))
    );
    let (b, arena) = cached_board(64, 64);
    let mut rx = b.rx(rx_cfg(8, 512), arena.cache());
    b.inject(&eth_frame(US, 100, 1));
    let first = rx.receive(&b.mac).unwrap();
    // The second frame arrives while the CPU holds the first one's descriptor.
    b.inject(&eth_frame(US, 100, 2));
    drop(first);
    let mut got = 1;
    for _ in 0..4 {
        if rx.receive(&b.mac).is_ok() {
            got += 1;
        }
    }
    assert_eq!(got, 2);
}

/// Cache maintenance that records every range it is given that does not start on a line
/// or does not cover whole lines (the `CacheOps` contract), and passes it on.
/// (operation, offset in the line, length) of each range off the lines.
type OffLine = std::rc::Rc<std::cell::RefCell<Vec<(&'static str, usize, usize)>>>;

#[derive(Clone)]
struct LineCheck {
    inner: stmmac_coalesce::sim::SimCache,
    line: usize,
    bad: OffLine,
}

impl LineCheck {
    fn check(&self, op: &'static str, ptr: *const u8, len: usize) {
        if !(ptr as usize).is_multiple_of(self.line) || !len.is_multiple_of(self.line) {
            self.bad
                .borrow_mut()
                .push((op, ptr as usize % self.line, len));
        }
    }
}

// SAFETY: forwards to the arena's own cache, whose line it reports.
unsafe impl stmmac_coalesce::CacheOps for LineCheck {
    fn line(&self) -> usize {
        self.inner.line()
    }
    fn clean(&self, ptr: *const u8, len: usize) {
        self.check("clean", ptr, len);
        self.inner.clean(ptr, len);
    }
    fn invalidate(&self, ptr: *const u8, len: usize) {
        self.check("invalidate", ptr, len);
        self.inner.invalidate(ptr, len);
    }
}

/// Both rings share one geometry: every descriptor and buffer range either ring hands to
/// the cache hook covers whole lines. (The two rings' copies of the geometry differed: TX
/// cleaned a descriptor by its stride at set-up but by 16 bytes when sending, RX always by
/// 16 bytes, and TX cleaned a buffer by the frame's length: with 64-byte lines, parts of
/// lines.)
#[test]
fn cache_ranges_from_both_rings_cover_whole_lines() {
    let (b, arena) = cached_board(64, 64);
    let check = LineCheck {
        inner: arena.cache(),
        line: 64,
        bad: Default::default(),
    };
    let mut tx = b.tx(tx_cfg(4, no_timer(2)), NoTimer, check.clone());
    let mut rx = b.rx(rx_cfg(4, 512), check.clone());
    for len in [60, 100, 1000, 1514, 61] {
        tx.send(&b.mac, &eth_frame([0xFF; 6], len, 1)).unwrap();
        tx.reclaim();
    }
    let _ = tx.desc_words(1);
    for len in [60, 700, 1514] {
        b.inject(&eth_frame(US, len, 2));
        let mut scratch = [0u8; 1518];
        rx.receive(&b.mac).unwrap().bytes(&mut scratch).unwrap();
    }
    let _ = rx.receive(&b.mac);
    let _ = rx.desc_words(2);
    let _ = rx.has_data();
    tx.recover(&b.mac);
    rx.recover(&b.mac);
    assert_eq!(b.sent().len(), 5);
    assert_eq!(*check.bad.borrow(), [], "(op, offset in the line, length)");
}

// ---- Soundness at the DMA boundary ------------------------------------------------------

#[test]
fn rings_program_their_own_bases_and_refuse_memory_the_dma_cannot_reach() {
    let b = Board::new();
    let tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let rx = b.rx(rx_cfg(4, 512), Coherent);
    assert_eq!(
        b.bus
            .model(|m| u64::from(hwtimer_core::sim::SimModel::read(m, 0, 0x1010))),
        tx.base()
    );
    assert_eq!(
        b.bus
            .model(|m| u64::from(hwtimer_core::sim::SimModel::read(m, 0, 0x100C))),
        rx.base()
    );
    // A region outside the arena has no bus address.
    let other = SimArena::new(0x4000_0000, 64 * 1024);
    let mem = other.region(64 * 1024).unwrap();
    let r = stmmac_coalesce::TxRing::new(
        mem,
        &b.arena,
        &b.setup,
        tx_cfg(4, no_timer(1)),
        NoTimer,
        Coherent,
    );
    assert!(matches!(r, Err(Error::DmaAddress)));
    // Too small a region.
    let mem = b.arena.region(1000).unwrap();
    let r = stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, rx_cfg(4, 512), Coherent);
    assert!(matches!(r, Err(Error::RingSize)));
}

// ---- RX coalescing -------------------------------------------------------------------------

fn rx_coalesce(rx_usecs: u32, rx_frames: u32) -> RxConfig {
    RxConfig {
        descriptors: 16,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            rx_usecs,
            rx_frames,
            ..CoalesceConfig::default()
        },
        ..RxConfig::default()
    }
}

fn ri(b: &Board) -> bool {
    b.mac.status().is_set(DMA_STATUS::RI)
}

#[test]
fn rx_coalescing_zero_usecs_interrupts_per_frame_without_watchdog() {
    let b = Board::new();
    b.link_up();
    let rx = b.rx(rx_coalesce(0, 0), Coherent);
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, 0x1024)),
        0
    );
    for i in 0..16 {
        assert_eq!(rx.desc_words(i).unwrap()[1] & regs::desc::RDES1_DIC, 0);
    }
    b.inject(&eth_frame(US, 60, 0));
    assert!(ri(&b));
}

#[test]
fn rx_coalescing_usecs_only_interrupts_from_the_watchdog() {
    let b = Board::new();
    b.link_up();
    let rx = b.rx(rx_coalesce(100, 0), Coherent);
    let riwt = usec2riwt(100, SIM_CSR_HZ);
    assert_eq!(riwt, 48);
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, 0x1024)),
        riwt
    );
    for i in 0..16 {
        assert_ne!(rx.desc_words(i).unwrap()[1] & regs::desc::RDES1_DIC, 0);
    }
    for _ in 0..3 {
        b.inject(&eth_frame(US, 60, 0));
    }
    assert!(!ri(&b), "no RI per frame");
    // 48 × 256 / 125 MHz = 98.304 µs after the first frame.
    b.clock.advance(98_304);
    assert!(ri(&b), "RI from RIWT");
}

#[test]
fn rx_coalescing_frames_interrupts_a_burst_before_the_watchdog() {
    let b = Board::new();
    b.link_up();
    let _rx = b.rx(rx_coalesce(100, 4), Coherent);
    for k in 0..3 {
        b.inject(&eth_frame(US, 60, k));
        assert!(!ri(&b), "frame {k}: still coalesced");
    }
    b.inject(&eth_frame(US, 60, 3));
    assert!(ri(&b), "the 4th frame interrupts at once");
    b.mac.ack(1 << 6);
    // A burst of 2 waits for the watchdog.
    b.inject(&eth_frame(US, 60, 4));
    b.inject(&eth_frame(US, 60, 5));
    assert!(!ri(&b));
    b.clock.advance(98_304);
    assert!(ri(&b));
}

#[test]
fn rx_coalescing_values_are_checked_and_change_at_run_time() {
    let b = Board::new();
    let bad = |rx_usecs, rx_frames| {
        let mem = b.arena.region(64 * 1024).unwrap();
        stmmac_coalesce::RxRing::new(
            mem,
            &b.arena,
            &b.setup,
            rx_coalesce(rx_usecs, rx_frames),
            Coherent,
        )
        .map(|_| ())
    };
    assert_eq!(
        bad(0, 4),
        Err(Error::Config(ConfigError::RxFramesWithoutWatchdog))
    );
    assert_eq!(
        bad(100, 17),
        Err(Error::Config(ConfigError::RxFramesExceedRing))
    );
    assert_eq!(bad(1, 0), Err(Error::Config(ConfigError::RiwtOutOfRange)));
    let nocsr = Board::with(AnPhy::gigabit(), arena(), DmaConfig::default(), |m| m);
    let mem = nocsr.arena.region(64 * 1024).unwrap();
    assert!(matches!(
        stmmac_coalesce::RxRing::new(
            mem,
            &nocsr.arena,
            &nocsr.setup,
            rx_coalesce(100, 0),
            Coherent
        ),
        Err(Error::Config(ConfigError::NoCsrClock))
    ));
    let mut rx = b.rx(rx_coalesce(0, 0), Coherent);
    rx.set_coalesce(
        &b.mac,
        CoalesceConfig {
            rx_usecs: 200,
            ..CoalesceConfig::default()
        },
    )
    .unwrap();
    assert_eq!(
        b.bus
            .model(|m| hwtimer_core::sim::SimModel::read(m, 0, 0x1024)),
        usec2riwt(200, SIM_CSR_HZ)
    );
}

// ---- TX coalescing footguns -------------------------------------------------------------

fn timed(tx_frames: u32, tx_usecs: u32, descriptors: usize) -> TxConfig {
    TxConfig {
        descriptors,
        buf_size: 1536,
        coalesce: CoalesceConfig {
            tx_frames,
            tx_usecs,
            ..CoalesceConfig::default()
        },
        strategy: TimerStrategy::ArmOnce,
    }
}

#[test]
fn tx_timer_period_comes_from_the_configuration_alone() {
    let b = Board::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    assert_eq!(tx.period_ticks(), 25_000, "1000 us at 25 MHz");
    let t0 = timers.now().unwrap();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let t1 = timers.now().unwrap();
    let d = timers.deadline(tx.timer().id()).unwrap();
    assert!(d >= t0 + 25_000 && d <= t1 + 25_000, "{t0} {d} {t1}");
    tx.set_coalesce(
        CoalesceConfig {
            tx_usecs: 200,
            ..stmmac_coalesce::sim::seed::SEED
        },
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    assert_eq!(tx.period_ticks(), 5_000);
    // tx_usecs without a timer is refused, not silently ignored.
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(matches!(
        stmmac_coalesce::TxRing::new(
            mem,
            &b.arena,
            &b.setup,
            timed(25, 1000, 32),
            NoTimer,
            Coherent
        ),
        Err(Error::Config(ConfigError::NoTimer))
    ));
}

/// A cleanup timer whose arming fails (the clockevent refused).
#[derive(Default)]
struct BrokenTimer {
    queued: Cell<bool>,
}

impl CleanupTimer for BrokenTimer {
    fn freq_hz(&self) -> Result<u32, Error> {
        Ok(1_000_000)
    }
    fn now(&self) -> Result<u64, Error> {
        Ok(0)
    }
    fn is_queued(&self) -> bool {
        self.queued.get()
    }
    fn start(&self, _: u64) -> Result<(), Error> {
        Err(Error::Timer(hwtimer_core::QueueError::Hardware(
            hwtimer_core::Error::Unsupported,
        )))
    }
    fn restart(&self, d: u64) -> Result<(), Error> {
        self.start(d)
    }
    fn cancel(&self) -> Result<bool, Error> {
        Ok(false)
    }
}

#[test]
fn tx_commit_never_fails_after_queueing_a_failed_timer_becomes_ic() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(timed(25, 1000, 32), BrokenTimer::default(), Coherent);
    let plan = tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert!(plan.set_ic, "no timer to reclaim it: IC instead");
    assert_eq!(tx.stats().timer_errors, 1);
    assert_eq!(b.sent().len(), 1, "sent exactly once");
    assert!(b.mac.status().is_set(DMA_STATUS::TI));
    assert_eq!(tx.service(&b.mac, b.mac.take_events()), 1, "and reclaimed");
}

#[test]
fn tx_frames_larger_than_the_ring_is_refused() {
    let b = Board::new();
    let mem = b.arena.region(64 * 1024).unwrap();
    let r = stmmac_coalesce::TxRing::new(
        mem,
        &b.arena,
        &b.setup,
        tx_cfg(8, no_timer(9)),
        NoTimer,
        Coherent,
    );
    assert!(matches!(
        r,
        Err(Error::Config(ConfigError::TxFramesExceedRing))
    ));
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(
        stmmac_coalesce::TxRing::new(
            mem,
            &b.arena,
            &b.setup,
            tx_cfg(8, no_timer(8)),
            NoTimer,
            Coherent
        )
        .is_ok()
    );
}

#[test]
fn tx_burst_covered_by_ic_costs_no_timer_expiry() {
    let b = Board::new();
    b.link_up();
    let (timers, probe) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    for _ in 0..25 {
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
        let ev = b.mac.take_events();
        if ev.tx_done() {
            tx.service(&b.mac, ev);
        }
    }
    assert_eq!(tx.pending(), 0);
    assert!(
        !timers.is_queued(tx.timer().id()),
        "cancelled by the TI clean"
    );
    assert_eq!(tx.stats().timer_cancels, 1);
    b.clock.advance(5_000_000);
    let mac = &b.mac;
    let id = tx.timer().id();
    let fired = timers.on_interrupt(|i, now| {
        if i == id {
            tx.on_timer(mac, now)
        } else {
            Restart::No
        }
    });
    assert_eq!(fired, Ok(0));
    assert_eq!(tx.stats().timer_expiries, 0);
    assert_eq!(probe.fired(), 0, "no timer interrupt at all");
}

#[test]
fn tx_coalescing_changes_at_run_time() {
    let b = Board::new();
    b.link_up();
    let (timers, _) = timers(&b.clock);
    let mut tx = b.tx(
        timed(4, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    let ic = |tx: &mut stmmac_coalesce::TxRing<_, _>, n: usize| {
        (0..n)
            .filter(|_| {
                tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0))
                    .unwrap()
                    .set_ic
            })
            .count()
    };
    assert_eq!(ic(&mut tx, 8), 2);
    tx.set_coalesce(
        CoalesceConfig {
            tx_frames: 2,
            tx_usecs: 0,
            ..CoalesceConfig::default()
        },
        TimerStrategy::ArmOnce,
    )
    .unwrap();
    assert!(
        !timers.is_queued(tx.timer().id()),
        "tx_usecs 0: the timer is cancelled"
    );
    assert_eq!(ic(&mut tx, 8), 4);
    assert!(!timers.is_queued(tx.timer().id()));
    assert_eq!(
        tx.set_coalesce(
            CoalesceConfig {
                tx_frames: 64,
                ..stmmac_coalesce::sim::seed::SEED
            },
            TimerStrategy::ArmOnce
        ),
        Err(Error::Config(ConfigError::TxFramesExceedRing))
    );
}

#[test]
fn recover_tx_after_tps_unf_or_fbi_restarts_the_dma_and_counts() {
    for fault in [TxFault::Stop, TxFault::Underflow, TxFault::BusError] {
        let b = Board::new();
        b.link_up();
        let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
        let mut rx = b.rx(rx_cfg(8, 512), Coherent);
        b.bus.model(|m| m.fail_tx(fault));
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 1)).unwrap();
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 2)).unwrap();
        assert!(b.sent().is_empty());
        let ev = b.mac.take_events();
        if fault == TxFault::Stop {
            // TPS alone is no fault (not enabled, not reported): the cleanup path finds
            // the TX process stopped with ST set and recovers.
            assert!(!ev.tx_fault() && !ev.fatal(), "{fault:?}: {ev:?}");
            let _ = tx.on_timer(&b.mac, 0);
        } else {
            // UNF (enabled) or FBI, each with AIS.
            assert!(ev.tx_fault() || ev.fatal(), "{fault:?}: {ev:?}");
        }
        tx.service(&b.mac, ev);
        rx.service(&b.mac, ev);
        assert_eq!(tx.stats().recoveries, 1, "{fault:?}");
        assert_eq!(tx.stats().dropped, 2);
        assert_eq!(tx.pending(), 0);
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 3)).unwrap();
        assert_eq!(b.sent().len(), 1, "{fault:?}: TX runs again");
        if fault == TxFault::BusError {
            assert_eq!(rx.stats().recoveries, 1);
        }
        let f = eth_frame(US, 100, 9);
        b.inject(&f);
        assert_eq!(
            rx.receive(&b.mac).unwrap().as_slice().unwrap(),
            &f[..],
            "{fault:?}"
        );
    }
}

#[test]
fn recover_when_the_timer_finds_the_tx_process_stopped_instead_of_firing_forever() {
    let b = Board::new();
    b.link_up();
    let (timers, probe) = timers(&b.clock);
    let mut tx = b.tx(
        timed(25, 1000, 32),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    b.bus.model(|m| m.fail_tx(TxFault::Stop));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    // Nobody services the interrupt: only the timer runs.
    let mac = &b.mac;
    let id = tx.timer().id();
    for _ in 0..10 {
        if probe.advance_to_fire().is_none() {
            break;
        }
        let _ = timers.on_interrupt(|i, now| {
            if i == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        });
    }
    assert_eq!(tx.stats().timer_expiries, 1, "one expiry, no re-arm");
    assert_eq!(tx.stats().recoveries, 1);
    assert!(!timers.is_queued(id));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert_eq!(b.sent().len(), 1);
    // A slow but running TX is not a fault: the timer keeps re-arming.
    b.bus.model(|m| m.set_tx_stall(0, true));
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    for _ in 0..3 {
        probe.advance_to_fire().unwrap();
        let _ = timers.on_interrupt(|i, now| {
            if i == id {
                tx.on_timer(mac, now)
            } else {
                Restart::No
            }
        });
    }
    assert_eq!(tx.stats().recoveries, 1);
    assert!(timers.is_queued(id));
}

// ---- MAC bring-up ----------------------------------------------------------------------------

#[test]
fn autoneg_sets_speed_and_duplex_and_traffic_flows_at_each_speed() {
    for (phy, want, ps, fes) in [
        (
            AnPhy::gigabit(),
            LinkState::up(Speed::M1000, Duplex::Full),
            false,
            false,
        ),
        (
            AnPhy::fast_ethernet(),
            LinkState::up(Speed::M100, Duplex::Full),
            true,
            true,
        ),
        (
            AnPhy::ten_half(),
            LinkState::up(Speed::M10, Duplex::Half),
            true,
            false,
        ),
    ] {
        let b = Board::with(phy, arena(), dma(), |m| m);
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
        let link = b.link_up();
        assert_eq!(link, want);
        let c = b.bus.model(|m| m.control());
        assert_eq!(
            (c & (1 << 15) != 0, c & (1 << 14) != 0),
            (ps, fes),
            "{want:?}"
        );
        assert_eq!(c & (1 << 11) != 0, want.duplex == Duplex::Full);
        assert_eq!(c & 0b1100, 0b1100, "TE and RE");
        let f = eth_frame([0xFF; 6], 60, 5);
        tx.send(&b.mac, &f).unwrap();
        assert_eq!(b.sent(), [f], "{want:?}");
        let f = eth_frame(US, 80, 6);
        b.inject(&f);
        assert_eq!(rx.receive(&b.mac).unwrap().as_slice().unwrap(), &f[..]);
        assert_eq!(b.bus.model(|m| m.line_mismatch()), 0);
    }
}

#[test]
fn autoneg_through_the_1000base_t_registers_alone_as_on_qemu() {
    // QEMU's PHY clears LPA when negotiation completes: only CTRL1000/STAT1000 resolve it.
    let phy = AnPhy::new(stmmac_coalesce::sim::Partner {
        lpa: 0,
        g_full: true,
        g_half: false,
    });
    let b = Board::with(phy, arena(), dma(), |m| m);
    assert_eq!(b.link_up(), LinkState::up(Speed::M1000, Duplex::Full));
}

#[test]
fn link_polling_follows_the_cable_and_tx_refuses_while_down() {
    let b = Board::new();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    assert_eq!(
        tx.reserve(&b.mac).map(|_| ()),
        Err(Error::LinkDown),
        "before bring-up"
    );
    b.link_up();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let phy = stmmac_coalesce::common::phy::Phy::new(mdio_bus::PhyAddr::from_bits(0));
    let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
    b.phy.set_cable(b.clock.now_ns(), false);
    let l = phy.poll(&mut mdio).unwrap();
    assert!(!l.up);
    assert!(b.mac.set_link(l));
    assert_eq!(tx.reserve(&b.mac).map(|_| ()), Err(Error::LinkDown));
    assert_eq!(tx.stats().link_down, 2);
    assert_eq!(b.bus.model(|m| m.control()) & 0b1100, 0, "TE and RE off");
    b.phy.set_cable(b.clock.now_ns(), true);
    assert!(!phy.poll(&mut mdio).unwrap().up, "negotiating");
    b.clock.advance(stmmac_coalesce::sim::AN_NS);
    let l = phy.poll(&mut mdio).unwrap();
    assert!(l.up);
    b.mac.set_link(l);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert_eq!(b.sent().len(), 2);
}

#[test]
fn filter_mac_address_and_multicast_are_programmed_at_bring_up() {
    let b = Board::new();
    b.link_up();
    assert_eq!(b.mac.mac_address(), US);
    let mut rx = b.rx(rx_cfg(8, 1536), Coherent);
    let all_nodes = [0x33, 0x33, 0, 0, 0, 1];
    let solicited = [0x33, 0x33, 0xFF, 0x12, 0x34, 0x56];
    let count = |rx: &mut stmmac_coalesce::RxRing, dst| {
        b.inject(&eth_frame(dst, 80, 0));
        rx.receive(&b.mac).is_ok()
    };
    assert!(count(&mut rx, US));
    assert!(count(&mut rx, [0xFF; 6]));
    assert!(!count(&mut rx, all_nodes), "default: no multicast");
    assert!(!count(&mut rx, [0x52, 0x54, 0, 0, 0, 1]), "someone else");
    let mut f = stmmac_coalesce::FrameFilter::default();
    f.add_multicast(all_nodes);
    f.add_multicast(solicited);
    b.mac.set_filter(&f);
    assert!(count(&mut rx, all_nodes));
    assert!(count(&mut rx, solicited));
    b.mac.set_filter(&stmmac_coalesce::FrameFilter {
        all_multicast: true,
        ..Default::default()
    });
    assert!(count(&mut rx, [0x01, 0, 0x5e, 0, 0, 0xfb]));
    b.mac.set_filter(&stmmac_coalesce::FrameFilter {
        promiscuous: true,
        ..Default::default()
    });
    assert!(count(&mut rx, [0x52, 0x54, 0, 0, 0, 1]));
}

// ---- Descriptor layouts and buffer sizes -----------------------------------------------------

fn round_trip(b: &Board, tx_buf: usize, rx_buf: usize, tx_len: usize, rx_len: usize) {
    let mut tx = b.tx(
        TxConfig {
            buf_size: tx_buf,
            ..tx_cfg(4, no_timer(1))
        },
        NoTimer,
        Coherent,
    );
    let mut rx = b.rx(
        RxConfig {
            max_frame: (8 * rx_buf - 4).min(9000),
            ..rx_cfg(8, rx_buf)
        },
        Coherent,
    );
    let f = eth_frame([0xFF; 6], tx_len, 1);
    tx.send(&b.mac, &f).unwrap();
    assert_eq!(b.sent().last(), Some(&f));
    let f = eth_frame(US, rx_len, 2);
    b.inject(&f);
    let mut scratch = vec![0u8; 9000];
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
}

#[test]
fn enhanced_descriptors_are_detected_from_hw_feature_and_work() {
    let b = Board::with(AnPhy::gigabit(), arena(), dma(), |m| {
        m.with_layout(DescLayout::Enhanced)
    });
    assert_eq!(b.setup.layout(), DescLayout::Enhanced);
    b.link_up();
    // 13-bit sizes: a 4000-byte buffer, a 3000-byte frame; RX spanning too.
    round_trip(&b, 4000, 2048, 3000, 5000);
}

#[test]
fn normal_descriptors_work_and_refuse_enhanced_sizes() {
    let b = Board::new();
    assert_eq!(b.setup.layout(), DescLayout::Normal);
    b.link_up();
    round_trip(&b, 2000, 512, 1900, 1500);
    let mem = b.arena.region(64 * 1024).unwrap();
    let cfg = TxConfig {
        buf_size: 4000,
        ..tx_cfg(4, no_timer(1))
    };
    assert!(matches!(
        stmmac_coalesce::TxRing::new(mem, &b.arena, &b.setup, cfg, NoTimer, Coherent),
        Err(Error::Config(ConfigError::BufSize))
    ));
}

#[test]
fn layout_override_for_cores_without_hw_feature() {
    // A pre-3.50a enhanced core: HW_FEATURE reads 0, so it tells nothing; guessing
    // "normal" would put RER in the wrong bit. The safe configuration refuses it, with or
    // without a layout given; the layout is an `unsafe` promise there.
    let old_core = |m: Model| m.with_layout(DescLayout::Enhanced).without_hw_feature();
    let probe = Board::with_setup(AnPhy::gigabit(), arena(), old_core, |mac| {
        assert_eq!(mac.hw_feature(), 0);
        assert_eq!(
            mac.configure_dma(&dma()),
            Err(Error::Config(ConfigError::NoHwFeature))
        );
        assert_eq!(
            mac.configure_dma(&DmaConfig {
                layout: Some(DescLayout::Enhanced),
                ..dma()
            }),
            Err(Error::Config(ConfigError::NoHwFeature))
        );
        // SAFETY: the model is an enhanced core.
        unsafe { mac.configure_dma_assuming_layout(&dma(), DescLayout::Enhanced) }.unwrap()
    });
    assert_eq!(probe.setup.layout(), DescLayout::Enhanced);
    probe.link_up();
    round_trip(&probe, 1536, 512, 1000, 1000);
    // On a core with HW_FEATURE, a layout given is checked against it.
    let b = Board::new();
    assert_eq!(
        b.mac.configure_dma(&DmaConfig {
            layout: Some(DescLayout::Enhanced),
            ..dma()
        }),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    assert_eq!(
        b.mac
            .configure_dma(&DmaConfig {
                layout: Some(DescLayout::Normal),
                ..dma()
            })
            .map(|s| s.layout()),
        Ok(DescLayout::Normal)
    );
}

#[test]
fn buffer_size_is_per_ring() {
    let b = Board::new();
    b.link_up();
    let mut tx = b.tx(
        TxConfig {
            buf_size: 256,
            ..tx_cfg(4, no_timer(1))
        },
        NoTimer,
        Coherent,
    );
    let rx = b.rx(
        RxConfig {
            max_frame: 500,
            ..rx_cfg(4, 128)
        },
        Coherent,
    );
    assert_eq!(tx.buf_size(), 256);
    assert_eq!(
        rx.desc_words(0).unwrap()[1] & regs::desc::RDES1_RBS1_MASK,
        128
    );
    assert_eq!(
        tx.send(&b.mac, &eth_frame([0xFF; 6], 257, 0)),
        Err(Error::FrameSize { len: 257 })
    );
    let mut t = tx.reserve(&b.mac).unwrap();
    assert_eq!(t.buffer().len(), 256);
    t.buffer().fill(0x77);
    t.commit(256).unwrap();
    assert_eq!(b.sent(), [vec![0x77; 256]]);
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(
        matches!(
            stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, rx_cfg(4, 130), Coherent),
            Err(Error::Config(ConfigError::BufSize))
        ),
        "RBS1 must be a multiple of the bus width"
    );
    let _ = DmaEvents::NONE;
}

#[test]
fn soundness_escape_hatches_exist_only_as_unsafe() {
    // The compile_fail doctests in lib.rs show the safe forms are refused; these are the
    // same operations with their `unsafe` promises, so the doctests fail for that reason
    // and not a typo.
    struct Offset;
    // SAFETY: never used for DMA.
    unsafe impl stmmac_coalesce::DmaAddr for Offset {
        fn bus_addr(&self, p: *const u8) -> Option<u32> {
            u32::try_from(p as usize).ok()
        }
    }
    let _ = Offset.bus_addr(core::ptr::null());
    // SAFETY: only constructed, never given to a ring.
    let _ = unsafe { stmmac_coalesce::IdentityMap::new() };
    let b = Board::new();
    // SAFETY: both DMA engines are stopped (reset) and the bases are the rings' own below.
    unsafe { b.mac.set_ring_bases(0, 0) };
    // SAFETY: a read only.
    let _ = unsafe { b.mac.bus() }.read_word(0x20);
    let mut mem = vec![0u8; 64];
    // SAFETY: the vector outlives the region's use here (the region is dropped at once).
    let r = unsafe {
        stmmac_coalesce::DmaRegion::from_raw(core::ptr::NonNull::new(mem.as_mut_ptr()).unwrap(), 64)
    };
    assert_eq!(r.len(), 64);
}

#[test]
fn rx_ru_unsticks_a_ring_whose_next_descriptor_holds_no_frame_start() {
    // A rogue write clears OWN on the descriptor both the DMA and the driver wait at: the
    // DMA reports RU, the driver sees no frame start. Servicing RU gives it back.
    let b = Board::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    // RU is not in the default mask: a driver that wants this path enables it (RUE).
    b.mac
        .set_interrupts(stmmac_coalesce::gmac3::regs::DMA_INTR_DEFAULT | (1 << 7));
    let f = eth_frame(US, 100, 1);
    b.inject(&f);
    drop(rx.receive(&b.mac).unwrap());
    let _ = rx.receive(&b.mac);
    b.arena.write_u32(rx.base() + 16, 0); // descriptor 1: CPU-owned, no FS, no LS
    b.inject(&eth_frame(US, 100, 2)); // RU: the DMA waits at descriptor 1
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    let ev = b.mac.take_events();
    assert!(ev.rx_no_buffer());
    rx.service(&b.mac, ev);
    let _ = rx.receive(&b.mac);
    assert!(rx.stats().partial >= 1);
    b.inject(&f);
    let mut got = false;
    for _ in 0..4 {
        if let Ok(fr) = rx.receive(&b.mac) {
            got |= fr.as_slice() == Some(&f[..]);
        }
        let ev = b.mac.take_events();
        rx.service(&b.mac, ev);
    }
    assert!(got, "{:?}", rx.stats());
}
