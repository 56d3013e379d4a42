//! Configuration checks on both MACs' models: RBSZ read back, hardware flow control,
//! HASHTBLSZ, what a ring start checks (ATDS, the layout, addresses above 4 GiB), the MDIO
//! clock ranges, version detection and the hardware statistics.
//!
//! Each test runs on a harness [`Board`]: written once over a [`Generation`] and run on
//! both with `on_both!` where both MACs have the feature, on one version's board where only
//! that version has it.

use hwtimer_core::sim::{SimBus, SimClock};
use stmmac_coalesce::sim::{AnPhy, QosModel, SIM_CSR_HZ, SimArena, eth_frame};
use stmmac_coalesce::{
    Coherent, ConfigError, DescLayout, DmaConfig, DmaSetup, Duplex, Dwmac, Error, FrameFilter,
    Gmac3, HwStats, LinkState, MacConfig, NoTimer, Pause, Qos, RxRing, Speed, TxConfig, TxRing,
    ring_bytes,
};

use crate::harness::{
    Board, Generation, ModelOps, OnGmac3, OnQos, US, arena, new_rx, on_both, rx_cfg,
};

/// A board of `G` on a gigabit partner, its DMA configured by `dma`, its model adjusted.
fn board<G: Generation>(
    arena: SimArena,
    dma: DmaConfig,
    model: impl FnOnce(G::Model) -> G::Model,
) -> Board<G> {
    Board::with(AnPhy::gigabit(), arena, dma, model)
}

/// A GMAC 3.x board.
fn gmac3(
    arena: SimArena,
    dma: DmaConfig,
    model: impl FnOnce(<OnGmac3 as Generation>::Model) -> <OnGmac3 as Generation>::Model,
) -> Board<OnGmac3> {
    board(arena, dma, model)
}

/// A QoS 4.x/5.x board.
fn qos(
    arena: SimArena,
    dma: DmaConfig,
    model: impl FnOnce(QosModel<AnPhy>) -> QosModel<AnPhy>,
) -> Board<OnQos> {
    board(arena, dma, model)
}

/// A TX ring configuration without a cleanup timer (an interrupt per frame).
fn tx_cfg() -> TxConfig {
    TxConfig {
        descriptors: 4,
        coalesce: stmmac_coalesce::CoalesceConfig {
            tx_usecs: 0,
            tx_frames: 1,
            ..stmmac_coalesce::CoalesceConfig::default()
        },
        ..TxConfig::default()
    }
}

fn dma() -> DmaConfig {
    DmaConfig {
        csr_hz: SIM_CSR_HZ,
        ..DmaConfig::default()
    }
}

/// What these tests need of a generation beyond the harness.
trait Features: Generation + Sized {
    /// A board whose RX FIFO holds 4 KiB, the MAC told so.
    fn small_fifo() -> Board<Self>;
    /// Frames the model dropped for want of a descriptor or FIFO room (its own count).
    fn lost(model: &Self::Model) -> u64;
    /// Of `stats`, the counters that count those frames on this version.
    fn lost_in(stats: &HwStats) -> u64;
}

impl Features for OnGmac3 {
    fn small_fifo() -> Board<Self> {
        let b = gmac3(arena(), dma(), |m| m.with_rx_fifo(4096));
        b.mac.set_rx_fifo_size(4096);
        b
    }
    fn lost(model: &Self::Model) -> u64 {
        model.rx_dropped()
    }
    /// DMA_MISSED_FRAME_CTR: no descriptor (15:0), FIFO overflow (27:17).
    fn lost_in(stats: &HwStats) -> u64 {
        stats.rx_missed + stats.rx_fifo_dropped
    }
}

impl Features for OnQos {
    fn small_fifo() -> Board<Self> {
        qos(arena(), dma(), |m| m.with_fifo_sizes(2048, 4096))
    }
    fn lost(model: &Self::Model) -> u64 {
        model.rx_missed()
    }
    /// DMA_CH0_MISS_FRAME_CNT: the channel's counter, at the version's offset.
    fn lost_in(stats: &HwStats) -> u64 {
        stats.rx_missed
    }
}

/// An RX ring of `descriptors` buffers of `buf_size` bytes for `setup` (not started).
fn rx_ring<G: Generation>(
    b: &Board<G>,
    setup: &DmaSetup,
    descriptors: usize,
    buf_size: usize,
) -> RxRing {
    new_rx(&b.arena, setup, rx_cfg(descriptors, buf_size), Coherent)
}

/// Frames the model delivered into descriptors.
fn delivered<G: Generation>(b: &Board<G>) -> u64 {
    b.bus.model(|m| m.rx_delivered())
}

/// 802.3x PAUSE frames the model sent.
fn pause_frames<G: Generation>(b: &Board<G>) -> usize {
    b.sent()
        .iter()
        .filter(|f| f.len() >= 14 && f[12..14] == [0x88, 0x08])
        .count()
}

/// The MAC initialised with our address, the link autonegotiated (1000/full) and set.
fn up<G: Generation>(b: &Board<G>) {
    b.mac.init_mac(&MacConfig {
        address: US,
        filter: FrameFilter::default(),
    });
    assert_eq!(b.link_up(), LinkState::up(Speed::M1000, Duplex::Full));
}

// ---- 3. RBSZ read back --------------------------------------------------------------

/// A 64-bit-bus QoS core keeps RBSZ in multiples of 8 bytes; a ring configured for a
/// 32-bit bus with a 500-byte buffer would give frames spanning descriptors with 4 stale
/// bytes in each: the start reads RBSZ back and refuses.
#[test]
fn rbsz_read_back_refuses_a_wider_bus() {
    let rig = qos(arena(), dma(), |m| m.with_bus_width(8));
    let setup = rig.setup;
    assert_eq!(setup.bus_width(), 4);
    for buf in [500, 1524] {
        let mut rx = rx_ring(&rig, &setup, 8, buf);
        let want = Err(Error::BufSizeMismatch {
            programmed: (buf & !7) as u32,
            ring: buf as u32,
        });
        assert_eq!(rx.try_start(&rig.mac), want, "buffer {buf}");
        assert_eq!(rx.stats().refused_starts, 1);
        // The RX DMA was not started: a frame finds no running DMA.
        up(&rig);
        rig.inject(&eth_frame(US, 200, 0xA5));
        assert_eq!(delivered(&rig), 0, "buffer {buf}");
    }
    // With the bus width given, the same core starts and receives.
    let rig = qos(
        arena(),
        DmaConfig {
            bus_width: 8,
            ..dma()
        },
        |m| m.with_bus_width(8),
    );
    let mut rx = rx_ring(&rig, &rig.setup, 8, 504);
    assert_eq!(rx.try_start(&rig.mac), Ok(()));
    up(&rig);
    rig.inject(&eth_frame(US, 1000, 0x5A));
    assert_eq!(delivered(&rig), 1);
    assert!(rx.receive(&rig.mac).is_ok());
}

// ---- 4. Flow control ----------------------------------------------------------------

/// TX pause on: when frames find no descriptor and pile up in the RX FIFO, the MAC sends
/// an 802.3x PAUSE (the model does, from EFC/EHFC with RFA/RFD and TFE).
fn tx_pause_sends_pause_on_fifo_fill<G: Features>(rig: Board<G>) {
    let setup = rig.setup;
    // Two descriptors, never given back: the third frame waits in the FIFO.
    let mut rx = rx_ring(&rig, &setup, 2, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    rig.mac
        .set_flow_control(Pause { tx: true, rx: true }, Duplex::Full);
    // Enough frames to fill a 16 KiB FIFO.
    for i in 0..24u8 {
        rig.inject(&eth_frame(US, 1000, i));
    }
    assert!(
        pause_frames(&rig) >= 1,
        "no PAUSE frame sent with the RX FIFO full"
    );
}

/// A stop switches the engines off and leaves the set-up alone: the PAUSE thresholds
/// programmed before it still send PAUSE frames once the rings run again (Linux
/// `dwmac_dma_stop_tx` / `_rx` clear ST / SR only).
fn tx_pause_survives_a_stop<G: Features>(rig: Board<G>) {
    up(&rig);
    rig.mac
        .set_flow_control(Pause { tx: true, rx: true }, Duplex::Full);
    rig.mac.stop().unwrap();
    let setup = rig.setup;
    let mut rx = rx_ring(&rig, &setup, 2, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    for i in 0..24u8 {
        rig.inject(&eth_frame(US, 1000, i));
    }
    assert!(
        pause_frames(&rig) >= 1,
        "no PAUSE frame sent after a stop and restart"
    );
}

#[test]
fn tx_pause_survives_a_stop_gmac3() {
    tx_pause_survives_a_stop(OnGmac3::small_fifo());
}

#[test]
fn tx_pause_survives_a_stop_qos() {
    tx_pause_survives_a_stop(OnQos::small_fifo());
}

#[test]
fn tx_pause_sends_pause_when_rx_fifo_fills_gmac3() {
    tx_pause_sends_pause_on_fifo_fill(OnGmac3::small_fifo());
}

#[test]
fn tx_pause_sends_pause_when_rx_fifo_fills_qos() {
    tx_pause_sends_pause_on_fifo_fill(OnQos::small_fifo());
    let rig = qos(arena(), dma(), |m| m.with_fifo_sizes(2048, 16384));
    tx_pause_sends_pause_on_fifo_fill(rig);
}

/// Without TX pause nothing is sent, however full the FIFO.
fn no_pause_without_tx_pause<G: Features>() {
    let rig = G::small_fifo();
    let setup = rig.setup;
    let mut rx = rx_ring(&rig, &setup, 2, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    rig.mac.set_flow_control(
        Pause {
            tx: false,
            rx: true,
        },
        Duplex::Full,
    );
    for i in 0..24u8 {
        rig.inject(&eth_frame(US, 1000, i));
    }
    assert_eq!(pause_frames(&rig), 0);
}

on_both!(no_pause_without_tx_pause, hash_filter_64_bins);

// ---- 5. HASHTBLSZ -------------------------------------------------------------------

/// Two multicast groups in the same 64-bin bin but in different 256-bin bins.
fn neighbours(bins: u32) -> ([u8; 6], [u8; 6]) {
    let group = [0x01, 0x00, 0x5e, 0x00, 0x00, 0x01];
    let bin = |a: [u8; 6], b: u32| stmmac_coalesce::sim::hash_bin(a, b.trailing_zeros());
    for i in 2..=255u8 {
        let other = [0x01, 0x00, 0x5e, 0x00, 0x00, i];
        if bin(other, bins) != bin(group, bins) && bin(other, 64) == bin(group, 64) {
            return (group, other);
        }
    }
    panic!("no neighbour");
}

fn hash_filter_case<G: Features>(rig: Board<G>, bins: u32) {
    let setup = rig.setup;
    let mut rx = rx_ring(&rig, &setup, 8, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    let (group, neighbour) = neighbours(bins);
    let mut filter = FrameFilter::default();
    filter.add_multicast(group);
    rig.mac.set_filter(&filter);
    rig.inject(&eth_frame(group, 100, 1));
    assert_eq!(delivered(&rig), 1, "{bins} bins: the group is accepted");
    rig.inject(&eth_frame(neighbour, 100, 2));
    assert_eq!(delivered(&rig), 1, "{bins} bins: its neighbour is rejected");
}

#[test]
fn hash_filter_256_bins_accepts_group_rejects_neighbour() {
    hash_filter_case(qos(arena(), dma(), |m| m.with_hash_bins(256)), 256);
}

#[test]
fn hash_filter_128_bins_accepts_group_rejects_neighbour() {
    hash_filter_case(qos(arena(), dma(), |m| m.with_hash_bins(128)), 128);
}

/// 64 bins: the neighbour shares the group's bin, so only the group is checked.
fn hash_filter_64_bins<G: Features>() {
    let rig = board::<G>(arena(), dma(), |m| m);
    let setup = rig.setup;
    let mut rx = rx_ring(&rig, &setup, 8, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    let group = [0x33, 0x33, 0, 0, 0, 1];
    let mut filter = FrameFilter::default();
    filter.add_multicast(group);
    rig.mac.set_filter(&filter);
    rig.inject(&eth_frame(group, 100, 1));
    rig.inject(&eth_frame([0x33, 0x33, 0, 0, 0, 2], 100, 1));
    assert_eq!(delivered(&rig), 1);
}

// ---- 6. What a ring start checks ----------------------------------------------------

/// A firmware before us left DMA_BUS_MODE.ATDS set (32-byte descriptors); this MAC was not
/// reset, and the rings come from a set-up of another instance: DSL agrees, but the DMA
/// would walk 32 bytes per descriptor where the ring has 16. The start refuses.
#[test]
fn atds_left_set_refuses_ring_start() {
    let rig = gmac3(arena(), dma(), |m| m.with_layout(DescLayout::Enhanced));
    let setup = rig.setup;
    // SAFETY: only DMA_BUS_MODE.ATDS is set, as a firmware before us may leave it.
    unsafe {
        use hwtimer_core::RegisterBusExt as _;
        let bus = rig.mac.bus();
        let bm = bus.read_raw(stmmac_coalesce::gmac3::regs::DMA_BUS_MODE);
        bus.write_raw(stmmac_coalesce::gmac3::regs::DMA_BUS_MODE, bm | 1 << 7);
    }
    let mut rx = rx_ring(&rig, &setup, 8, 1536);
    assert!(matches!(
        rx.try_start(&rig.mac),
        Err(Error::StrideMismatch { .. })
    ));
    let mem = rig.arena.region(ring_bytes(8, 1536, 16)).unwrap();
    let mut tx = TxRing::new(mem, &rig.arena, &setup, tx_cfg(), NoTimer, Coherent).unwrap();
    assert!(matches!(
        tx.try_start(&rig.mac),
        Err(Error::StrideMismatch { .. })
    ));
    // configure_dma clears ATDS: the rings start.
    rig.mac.configure_dma(&dma()).unwrap();
    assert_eq!(rx.try_start(&rig.mac), Ok(()));
    assert_eq!(tx.try_start(&rig.mac), Ok(()));
}

/// A normal-descriptor set-up (one 3.x core) on an enhanced-descriptor core: TER/RER sit in
/// another bit there, so the DMA would not wrap. The start refuses.
#[test]
fn normal_setup_refused_on_enhanced_core() {
    let normal = gmac3(arena(), dma(), |m| m);
    let enhanced = gmac3(arena(), dma(), |m| m.with_layout(DescLayout::Enhanced));
    let setup = normal.setup;
    assert_eq!(setup.layout(), DescLayout::Normal);
    let mut rx = rx_ring(&enhanced, &setup, 8, 1536);
    assert_eq!(
        rx.try_start(&enhanced.mac),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    let mem = enhanced.arena.region(ring_bytes(8, 1536, 16)).unwrap();
    let mut tx = TxRing::new(mem, &enhanced.arena, &setup, tx_cfg(), NoTimer, Coherent).unwrap();
    assert_eq!(
        tx.try_start(&enhanced.mac),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    // And the other way round.
    let esetup = enhanced.setup;
    let mut rx = rx_ring(&normal, &esetup, 8, 1536);
    assert_eq!(
        rx.try_start(&normal.mac),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
}

/// A QoS set-up on a 3.x core and a 3.x set-up on a QoS core (and 4.x on 5.x runs).
#[test]
fn setups_cross_versions() {
    let g = gmac3(arena(), dma(), |m| m);
    let q4 = qos(arena(), dma(), |m| m);
    let q5 = qos(arena(), dma(), |m| {
        m.with_version(stmmac_coalesce::sim::VERSION5_10)
    });
    let mut rx = rx_ring(&g, &q4.setup, 8, 1536);
    assert_eq!(
        rx.try_start(&g.mac),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    let mut rx = rx_ring(&q4, &g.setup, 8, 1536);
    assert_eq!(
        rx.try_start(&q4.mac),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    let mut rx = rx_ring(&q5, &q4.setup, 8, 1536);
    assert_eq!(rx.try_start(&q5.mac), Ok(()));
}

/// An arena above 4 GiB.
fn above_4g(base: u64) -> SimArena {
    SimArena::wide(base, 1 << 20)
}

/// 40-bit core, configured (EAME set), then soft-reset (EAME clear again): a ring above
/// 4 GiB must not start, or the DMA would drop the high address bits.
#[test]
fn ring_above_4g_refused_after_reset_clears_eame() {
    let rig = qos(above_4g(1 << 32), dma(), |m| m.with_addr_bits(40));
    let setup = rig.setup;
    assert_eq!(setup.addr_bits(), 40);
    rig.mac.soft_reset(&rig.counter).unwrap();
    let mut rx = rx_ring(&rig, &setup, 4, 1536);
    assert_eq!(
        rx.try_start(&rig.mac),
        Err(Error::Config(ConfigError::AddressWidth))
    );
    let mem = rig.arena.region(ring_bytes(4, 1536, 16)).unwrap();
    let mut tx = TxRing::new(mem, &rig.arena, &setup, tx_cfg(), NoTimer, Coherent).unwrap();
    assert_eq!(
        tx.try_start(&rig.mac),
        Err(Error::Config(ConfigError::AddressWidth))
    );
    // Configured again (EAME set): both start.
    rig.mac.configure_dma(&dma()).unwrap();
    assert_eq!(rx.try_start(&rig.mac), Ok(()));
    assert_eq!(tx.try_start(&rig.mac), Ok(()));
}

/// EAME set on a core whose HW_FEATURE1.ADDR64 says 32 bits (a firmware before us wrote
/// it; such a core drives 32 address bits whatever EAME says): a ring above 4 GiB, built
/// from a 40-bit core's set-up, is refused.
#[test]
fn ring_above_4g_refused_on_a_32_bit_core_with_eame_set() {
    let wide = qos(above_4g(1 << 32), dma(), |m| m.with_addr_bits(40));
    let setup = wide.setup;
    let narrow = qos(above_4g(1 << 32), dma(), |m| m);
    // SAFETY: only DMA_SYSBUS_MODE.EAME is set.
    unsafe {
        use hwtimer_core::RegisterBusExt as _;
        let bus = narrow.mac.bus();
        let v = bus.read_raw(stmmac_coalesce::qos::regs::DMA_SYSBUS_MODE);
        bus.write_raw(stmmac_coalesce::qos::regs::DMA_SYSBUS_MODE, v | 1 << 11);
    }
    let mut rx = rx_ring(&narrow, &setup, 4, 1536);
    assert_eq!(
        rx.try_start(&narrow.mac),
        Err(Error::Config(ConfigError::AddressWidth))
    );
}

/// A 48-bit core's set-up on a 40-bit core (EAME set there): a ring above 2^40 is refused,
/// or the 40-bit DMA would cut its addresses.
#[test]
fn ring_above_the_cores_address_width_refused() {
    let wide = qos(above_4g(1 << 44), dma(), |m| m.with_addr_bits(48));
    let setup = wide.setup;
    assert_eq!(setup.addr_bits(), 48);
    let narrow = qos(above_4g(1 << 44), dma(), |m| m.with_addr_bits(40));
    let mut rx = rx_ring(&narrow, &setup, 4, 1536);
    assert_eq!(
        rx.try_start(&narrow.mac),
        Err(Error::Config(ConfigError::AddressWidth))
    );
    // On the 48-bit core it starts.
    let mut rx = rx_ring(&wide, &setup, 4, 1536);
    assert_eq!(rx.try_start(&wide.mac), Ok(()));
}

// ---- 7. MDIO clock ranges, versions, statistics -------------------------------------

#[test]
fn qos_mdio_clock_ranges_up_to_800_mhz() {
    let rig = qos(arena(), dma(), |m| m);
    for hz in [300_000_001, 400_000_000, 500_000_000, 799_999_999] {
        let m = rig.mac.mdio(&rig.counter, hz);
        assert!(m.is_ok(), "{hz} Hz");
    }
    assert!(matches!(
        rig.mac.mdio(&rig.counter, 800_000_000),
        Err(Error::CsrClock)
    ));
}

#[test]
fn gmac3_mdio_refuses_above_300_mhz() {
    let rig = gmac3(arena(), dma(), |m| m);
    assert!(rig.mac.mdio(&rig.counter, 300_000_000).is_ok());
    for hz in [300_000_001, 400_000_000, 600_000_000] {
        assert!(
            matches!(rig.mac.mdio(&rig.counter, hz), Err(Error::CsrClock)),
            "{hz} Hz"
        );
    }
}

#[test]
fn qos_version_above_5_20_is_5x() {
    for snpsver in [0x51u32, 0x52, 0x53, 0x60, 0xFF] {
        let clock = SimClock::new();
        let m = QosModel::new(arena(), AnPhy::gigabit(), SIM_CSR_HZ).with_version(0x3000 | snpsver);
        let bus = SimBus::new(&clock, m);
        let mac = Qos::probe(bus.clone());
        assert!(mac.is_ok(), "SNPSVER {snpsver:#x}");
        let probed = stmmac_coalesce::probe(bus);
        assert!(
            matches!(probed, Ok(stmmac_coalesce::Probed::Qos(_))),
            "SNPSVER {snpsver:#x}"
        );
    }
    for snpsver in [0x00u32, 0x37, 0x3F] {
        let clock = SimClock::new();
        let m = QosModel::new(arena(), AnPhy::gigabit(), SIM_CSR_HZ).with_version(0x3000 | snpsver);
        assert!(
            Qos::probe(SimBus::new(&clock, m)).is_err(),
            "SNPSVER {snpsver:#x}"
        );
    }
}

/// Frames that find no descriptor are counted by the DMA's missed-frame counter: read
/// through `hw_stats` (at +0x6C on 4.x, +0x64 on 5.x), accumulated, cleared on read.
fn missed_frames_counted<G: Features>(rig: Board<G>) {
    let setup = rig.setup;
    let mut rx = rx_ring(&rig, &setup, 2, 1536);
    rx.try_start(&rig.mac).unwrap();
    up(&rig);
    for i in 0..12u8 {
        rig.inject(&eth_frame(US, 1000, i));
    }
    let mut stats = HwStats::default();
    rig.mac.hw_stats(&mut stats);
    let lost = rig.bus.model(|m| G::lost(m));
    assert!(lost >= 1);
    assert_eq!(G::lost_in(&stats), lost, "{stats:?}");
    // Cleared on read: a second read adds nothing.
    let before = stats;
    rig.mac.hw_stats(&mut stats);
    assert_eq!(stats, before);
    // More losses accumulate on top.
    for i in 0..5u8 {
        rig.inject(&eth_frame(US, 1000, i));
    }
    rig.mac.hw_stats(&mut stats);
    assert_eq!(
        G::lost_in(&stats),
        rig.bus.model(|m| G::lost(m)),
        "{stats:?}"
    );
    assert!(G::lost_in(&stats) > G::lost_in(&before));
}

#[test]
fn hw_stats_missed_frames_gmac3() {
    missed_frames_counted(gmac3(arena(), dma(), |m| m));
    missed_frames_counted(gmac3(arena(), dma(), |m| m.with_rx_fifo(4096)));
}

#[test]
fn hw_stats_missed_frames_qos_4x_and_5x() {
    missed_frames_counted(qos(arena(), dma(), |m| m));
    missed_frames_counted(qos(arena(), dma(), |m| {
        m.with_version(stmmac_coalesce::sim::VERSION5_10)
    }));
}

/// A register file with an MMC block at `base`: the counters clear on read only in
/// reset-on-read mode (MMC_CNTRL bit 2, Linux `mmc_core.c` `MMC_CNTRL_RESET_ON_READ`); every
/// other register reads what was written (or its preset).
struct MmcFile {
    base: usize,
    regs: std::collections::HashMap<usize, u32>,
}

/// The MMC counters and the value each holds, relative to the block (Linux `mmc_core.c`:
/// txframecount_g 0x68, txunderflowerror 0x48, rxunicastframes_g 0xC4,
/// rxmulticastframes_g 0x90, rxbroadcastframes_g 0x8C, rxcrcerror 0x94, rxfifooverflow
/// 0xD4; NXP RT1170 at 0x700 + these).
const MMC_PRESET: [(usize, u32); 7] = [
    (0x68, 1000),
    (0x48, 3),
    (0xC4, 700),
    (0x90, 20),
    (0x8C, 5),
    (0x94, 7),
    (0xD4, 11),
];

impl MmcFile {
    fn new(base: usize, presets: &[(usize, u32)]) -> Self {
        let mut regs: std::collections::HashMap<usize, u32> = presets.iter().copied().collect();
        for (off, v) in MMC_PRESET {
            regs.insert(base + off, v);
        }
        Self { base, regs }
    }
}

impl hwtimer_core::sim::SimModel for MmcFile {
    type Word = u32;
    fn read(&mut self, _now_ns: u64, offset: usize) -> u32 {
        let v = self.regs.get(&offset).copied().unwrap_or(0);
        let reset_on_read = self.regs.get(&self.base).is_some_and(|c| c & 1 << 2 != 0);
        let counter = MMC_PRESET.iter().any(|(o, _)| self.base + o == offset);
        if counter && reset_on_read {
            self.regs.insert(offset, 0);
        }
        v
    }
    fn write(&mut self, _now_ns: u64, offset: usize, value: u32) {
        self.regs.insert(offset, value);
    }
}

/// The MMC counters read into `HwStats` once each: accumulated, and cleared by the read
/// (the driver puts the MMC in reset-on-read mode), so a second read adds nothing.
fn mmc_counters_read<M: Dwmac>(mac: M) {
    let mut stats = HwStats::default();
    mac.hw_stats(&mut stats);
    let want = HwStats {
        tx_frames_good: 1000,
        tx_underflow: 3,
        rx_frames_good: 725,
        rx_crc_errors: 7,
        rx_fifo_overflow: 11,
        ..HwStats::default()
    };
    assert_eq!(stats, want);
    mac.hw_stats(&mut stats);
    assert_eq!(stats, want, "read twice");
}

#[test]
fn hw_stats_reads_the_mmc_counters_both() {
    let clock = SimClock::new();
    // GMAC 3.x: MMC at 0x100; DMA_HW_FEATURE (0x1058) with MMCSEL (bit 11).
    let g = MmcFile::new(0x100, &[(0x1058, 1 << 11)]);
    mmc_counters_read(Gmac3::new(SimBus::new(&clock, g)));
    // QoS 4.10: MMC at 0x700; MAC_VERSION (0x110), HW_FEATURE0 (0x11C) with MMCSEL (bit 8).
    let q = MmcFile::new(0x700, &[(0x110, 0x3041), (0x11C, 1 << 8)]);
    mmc_counters_read(Qos::probe(SimBus::new(&clock, q)).unwrap());
}
