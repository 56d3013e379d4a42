//! The model's TX DMA lagging the CPU (`Gmac3Model::with_tx_lag`: "0 timer
//! interrupts under load" came from a DMA that completed every frame inside the doorbell
//! write). Driven through raw registers and descriptors, times exact; then the seed rig's
//! stream on both models.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{IrqSource, SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::gmac3::regs::{self, desc::*};
use stmmac_coalesce::sim::seed::{LAG_NS, Rig, STREAM_GAP_NS};
use stmmac_coalesce::sim::{Gmac3Irq, Gmac3Model, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{DmaAddr, TimerStrategy};

type Bus = SimBus<Gmac3Model<PhyModel>>;

/// The fetch latency of these tests.
const LAG: u64 = 2_000;
/// A 60-byte frame on the wire at 1 Gbit/s: (60 + FCS 4 + preamble, SFD and IFG 20) × 8 ns.
const WIRE60: u64 = 672;
/// When the doorbells of these tests ring.
const T0: u64 = 10_000;

/// A lagging model with a 4-descriptor ring (16 bytes apart, TER on the last) and its
/// buffers; TX started (it suspends at once: nothing owned) and DMA_STATUS cleared;
/// register accesses take no virtual time.
fn setup(lag: u64) -> (SimClock, SimArena, Bus, u32, u32) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let model = Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ).with_tx_lag(lag);
    // Free accesses: the times below are exact.
    let bus = SimBus::new(&clock, model).with_costs(0, 0);
    let region = arena.region(4 * (16 + 2048)).unwrap();
    let base = arena.bus_addr(region.as_ptr()).unwrap();
    let bufs = base + 4 * 16;
    bus.write_word(0x1010, base);
    bus.write_word(0x1018, 1 << 13);
    bus.write_word(0x1014, 0x1_FFFF);
    (clock, arena, bus, base, bufs)
}

/// Give descriptor `i` to the DMA: a 60-byte frame of `fill`, IC if `ic`.
fn own(arena: &SimArena, base: u32, bufs: u32, i: u32, fill: u8, ic: bool) {
    let d = base + 16 * i;
    let buf = bufs + 2048 * i;
    assert!(arena.write_bytes(buf, &[fill; 60]));
    let mut des1 = TDES1_FS | TDES1_LS | 60;
    if ic {
        des1 |= TDES1_IC;
    }
    if i == 3 {
        des1 |= TDES1_TER;
    }
    arena.write_u32(d + 4, des1);
    arena.write_u32(d + 8, buf);
    arena.write_u32(d, OWN);
}

fn owned(arena: &SimArena, base: u32, i: u32) -> bool {
    arena.read_u32(base + 16 * i).unwrap() & OWN != 0
}

/// DMA_STATUS read at `t`: (TI, TU, TS).
fn status_at(clock: &SimClock, bus: &Bus, t: u64) -> (bool, bool, u32) {
    clock.advance_to(t);
    let st = bus.read_word(0x1014);
    (st & 1 != 0, st & 4 != 0, (st >> 20) & 7)
}

fn sent_at(bus: &Bus) -> Vec<(u64, u8)> {
    bus.model(|m| m.sent().iter().map(|f| (f.at_ns, f.bytes[20])).collect())
}

/// Right after the doorbell the descriptor is still DMA-owned, no frame has left and TI is
/// clear; the TX process runs (TS 2, waiting for status). It is written back, the frame
/// recorded and TI raised exactly lag + wire time later, not a ns earlier.
#[test]
fn a_descriptor_stays_dma_owned_until_lag_plus_wire_time() {
    let (clock, arena, bus, base, bufs) = setup(LAG);
    clock.advance_to(T0);
    own(&arena, base, bufs, 0, 0xA0, true);
    bus.write_word(0x1004, 1);
    assert!(owned(&arena, base, 0), "written back inside the doorbell");
    assert!(sent_at(&bus).is_empty());
    assert_eq!(bus.model(|m| m.tx_in_flight()), 1);
    assert_eq!(bus.model(|m| m.tx_next_due()), Some(T0 + LAG + WIRE60));
    let (ti, tu, ts) = status_at(&clock, &bus, T0);
    assert!(!ti && !tu, "TI or TU at the doorbell");
    assert_eq!(ts, 2, "running, waiting for status");
    let (ti, _, ts) = status_at(&clock, &bus, T0 + LAG + WIRE60 - 1);
    assert!(!ti, "TI one ns early");
    assert_ne!(ts, regs::TS_SUSPENDED);
    assert!(owned(&arena, base, 0), "written back one ns early");
    let (ti, tu, ts) = status_at(&clock, &bus, T0 + LAG + WIRE60);
    assert!(ti, "no TI at the write-back");
    assert!(tu, "no TU once the next descriptor is found free");
    assert_eq!(ts, regs::TS_SUSPENDED);
    assert!(!owned(&arena, base, 0));
    assert_eq!(sent_at(&bus), [(T0 + LAG + WIRE60, 0xA0)]);
}

/// Three frames queued at once: they leave back to back at line rate after the fetch
/// latency, are written back in ring order, and TI comes with the third (the only IC),
/// not at the doorbell and not with the first two.
#[test]
fn write_backs_keep_ring_order_and_ti_waits_for_the_ic_frame() {
    let (clock, arena, bus, base, bufs) = setup(LAG);
    clock.advance_to(T0);
    for i in 0..3 {
        own(&arena, base, bufs, i, 0xB0 + i as u8, i == 2);
    }
    bus.write_word(0x1004, 1);
    let due = |k: u64| T0 + LAG + (k + 1) * WIRE60;
    assert!(!status_at(&clock, &bus, T0).0);
    for k in 0..3u64 {
        let (ti, _, _) = status_at(&clock, &bus, due(k) - 1);
        assert!(!ti, "TI before frame {k} left");
        for i in 0..3 {
            assert_eq!(
                owned(&arena, base, i),
                u64::from(i) >= k,
                "desc {i} before {k}"
            );
        }
        let (ti, _, _) = status_at(&clock, &bus, due(k));
        assert_eq!(ti, k == 2, "TI at frame {k}");
        for i in 0..3 {
            assert_eq!(
                owned(&arena, base, i),
                u64::from(i) > k,
                "desc {i} after {k}"
            );
        }
    }
    assert_eq!(
        sent_at(&bus),
        [(due(0), 0xB0), (due(1), 0xB1), (due(2), 0xB2)]
    );
}

/// A poll demand that overtook its descriptor store leaves the lagging DMA suspended over
/// a descriptor it owns, for as long as nobody rings; the next poll demand resumes it, and
/// the frame then takes lag + wire time like any other. While frames are in flight the
/// DMA is running, so a doorbell cannot be lost: it looks at the descriptor itself.
#[test]
fn a_suspended_lagging_dma_resumes_on_poll_demand() {
    let (clock, arena, bus, base, bufs) = setup(LAG);
    clock.advance_to(T0);
    bus.model(|m| m.lose_next_tx_doorbell());
    own(&arena, base, bufs, 0, 0xC0, true);
    bus.write_word(0x1004, 1);
    let later = T0 + 100 * (LAG + WIRE60);
    let (ti, tu, ts) = status_at(&clock, &bus, later);
    assert!(!ti && tu, "TU, no TI");
    assert_eq!(ts, regs::TS_SUSPENDED);
    assert!(owned(&arena, base, 0));
    assert!(sent_at(&bus).is_empty());
    bus.write_word(0x1014, 0x1_FFFF);
    bus.write_word(0x1004, 1);
    assert!(owned(&arena, base, 0), "sent inside the poll demand");
    assert_eq!(status_at(&clock, &bus, later).2, 2, "not running");
    let (ti, _, _) = status_at(&clock, &bus, later + LAG + WIRE60);
    assert!(ti);
    assert_eq!(sent_at(&bus), [(later + LAG + WIRE60, 0xC0)]);

    // In flight: the next doorbell "overtakes" its store, but the running DMA reads the
    // descriptor itself and sends it right behind the first.
    let t1 = later + 10 * (LAG + WIRE60);
    clock.advance_to(t1);
    own(&arena, base, bufs, 1, 0xC1, false);
    bus.write_word(0x1004, 1);
    bus.model(|m| m.lose_next_tx_doorbell());
    own(&arena, base, bufs, 2, 0xC2, true);
    bus.write_word(0x1004, 1);
    let (ti, tu, _) = status_at(&clock, &bus, t1 + LAG + 2 * WIRE60);
    assert!(ti && tu);
    assert!(!owned(&arena, base, 1) && !owned(&arena, base, 2));
    assert_eq!(
        sent_at(&bus)[1..],
        [(t1 + LAG + WIRE60, 0xC1), (t1 + LAG + 2 * WIRE60, 0xC2)]
    );
}

/// A full ring (every descriptor owned) and a clock that jumps far past all their due
/// times: one register read writes them all back, each at its own due time, each frame
/// sent once (a descriptor still in flight is not fetched again when the DMA wraps),
/// TI set, and the DMA back at the list base, suspended.
#[test]
fn a_time_jump_over_several_due_times_loses_nothing() {
    let (clock, arena, bus, base, bufs) = setup(LAG);
    clock.advance_to(T0);
    for i in 0..4 {
        own(&arena, base, bufs, i, 0xD0 + i as u8, i == 1);
    }
    bus.write_word(0x1004, 1);
    assert_eq!(bus.model(|m| m.tx_in_flight()), 4);
    let (ti, tu, ts) = status_at(&clock, &bus, 1_000_000);
    assert!(ti && tu);
    assert_eq!(ts, regs::TS_SUSPENDED);
    for i in 0..4 {
        assert!(!owned(&arena, base, i), "desc {i}");
    }
    let want: Vec<(u64, u8)> = (0..4u64)
        .map(|k| (T0 + LAG + (k + 1) * WIRE60, 0xD0 + k as u8))
        .collect();
    assert_eq!(sent_at(&bus), want);
    assert_eq!(bus.read_word(0x1048), base, "current descriptor");
    assert_eq!(bus.model(|m| m.tx_in_flight()), 0);
}

/// The model as the harness's interrupt source: `advance_to_next` stops at each due
/// write-back in turn (the descriptor is free when it returns), then has nothing left.
#[test]
fn the_irq_source_stops_at_every_write_back() {
    let (clock, arena, bus, base, bufs) = setup(LAG);
    clock.advance_to(T0);
    for i in 0..3 {
        own(&arena, base, bufs, i, 0xE0, i == 2);
    }
    bus.write_word(0x1004, 1);
    for k in 0..3u32 {
        let at = Gmac3Irq(&bus).advance_to_next();
        assert_eq!(
            at,
            Some(T0 + LAG + u64::from(k + 1) * WIRE60),
            "write-back {k}"
        );
        assert_eq!(clock.now_ns(), at.unwrap());
        assert!(
            !owned(&arena, base, k),
            "desc {k} still owned at its due time"
        );
    }
    assert_eq!(Gmac3Irq(&bus).advance_to_next(), None);
}

/// Without a lag the model is the instant one: written back inside the doorbell (what
/// every other test of the crate relies on).
#[test]
fn lag_zero_is_the_instant_model() {
    let (clock, arena, bus, base, bufs) = setup(0);
    clock.advance_to(T0);
    own(&arena, base, bufs, 0, 0xF0, true);
    bus.write_word(0x1004, 1);
    assert!(!owned(&arena, base, 0));
    assert_eq!(sent_at(&bus), [(T0, 0xF0)]);
    assert_eq!(Gmac3Irq(&bus).advance_to_next(), None);
}

/// The TX-cleanup stream of 1514-byte frames at 1 Gbit/s line rate, every interrupt taken when
/// it happens: on the instant model the TI clean always empties the ring and the cleanup
/// timer never fires; when the DMA lags, the frame after each IC frame is still in flight
/// at its TI, the timer stays queued and expires about once per tx_usecs while the traffic
/// lasts. Every frame is reclaimed, within 2 × tx_usecs of being queued.
#[test]
fn the_cleanup_timer_fires_under_load_when_the_dma_lags() {
    let cfg = stmmac_coalesce::sim::seed::SEED;
    let n = 2_000;
    let mut instant = Rig::hrtimer(cfg, TimerStrategy::ArmOnce).unwrap();
    let fi = instant.stream_timed(n, STREAM_GAP_NS, 1514).unwrap();
    assert_eq!(fi.expiries_in_traffic, 0, "{fi:?}");
    assert_eq!(fi.reclaimed, u64::from(n));
    let mut lagging = Rig::hrtimer_lagging(cfg, TimerStrategy::ArmOnce, LAG_NS).unwrap();
    let fl = lagging.stream_timed(n, STREAM_GAP_NS, 1514).unwrap();
    let per_tx_usecs =
        fl.expiries_in_traffic as f64 * f64::from(cfg.tx_usecs) * 1000.0 / fl.traffic_ns as f64;
    assert!(
        (0.9..=1.05).contains(&per_tx_usecs),
        "{per_tx_usecs} expiries per tx_usecs: {fl:?}"
    );
    assert_eq!(fl.reclaimed, u64::from(n));
    assert_eq!(lagging.tx.pending(), 0);
    assert!(
        fl.reclaim_max_ns <= 2 * u64::from(cfg.tx_usecs) * 1000,
        "{fl:?}"
    );
}
