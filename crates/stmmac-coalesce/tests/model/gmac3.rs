//! The behavioural DWMAC against the facts of docs/gmac3.md and QEMU's npcm-gmac, driven
//! through raw registers and descriptors in the sim arena.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{IrqSource, SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::gmac3::regs::{self, desc::*, edesc};
use stmmac_coalesce::sim::{Gmac3Irq, Gmac3Model, SIM_CSR_HZ, SWR_NS, SimArena, TxFault, fcs};
use stmmac_coalesce::{DescLayout, DmaAddr};

type Bus = SimBus<Gmac3Model<PhyModel>>;

fn setup_with(
    f: impl FnOnce(Gmac3Model<PhyModel>) -> Gmac3Model<PhyModel>,
) -> (SimClock, SimArena, Bus) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let bus = SimBus::new(&clock, f(Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ)));
    (clock, arena, bus)
}

fn setup() -> (SimClock, SimArena, Bus) {
    setup_with(|m| m)
}

/// `n` descriptors `stride` bytes apart, then `n` buffers of 2048: (descriptor base, buffer
/// base), bus addresses.
fn raw_ring(arena: &SimArena, n: u32, stride: u32) -> (u32, u32) {
    let region = arena.region((n * (stride + 2048)) as usize).unwrap();
    let base = arena.bus_addr(region.as_ptr()).unwrap();
    (base, base + n * stride)
}

fn own_tx(arena: &SimArena, d: u32, buf: u32, len: u32, des1_extra: u32) {
    arena.write_u32(d + 4, TDES1_FS | TDES1_LS | len | des1_extra);
    arena.write_u32(d + 8, buf);
    arena.write_u32(d, OWN);
}

#[test]
fn tx_walks_owned_descriptors_sets_ti_only_with_ic_then_suspends() {
    let (_clock, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 4, 16);
    bus.write_word(0x1010, base);
    own_tx(&arena, base, bufs, 60, 0);
    own_tx(&arena, base + 16, bufs + 2048, 61, TDES1_IC);
    bus.write_word(0x1018, 1 << 13); // ST: walks now
    let st = bus.read_word(0x1014);
    assert_eq!(st & 0x5, 0x5, "TI and TU: {st:#x}");
    assert_eq!((st >> 20) & 7, regs::TS_SUSPENDED);
    assert_eq!(arena.read_u32(base).unwrap() & OWN, 0);
    assert_eq!(arena.read_u32(base + 16).unwrap() & OWN, 0);
    bus.model(|m| {
        assert_eq!(m.sent().len(), 2);
        assert_eq!(m.sent()[0].bytes.len(), 60);
        assert!(!m.sent()[0].ic && m.sent()[1].ic);
    });
    assert_eq!(
        bus.read_word(0x1048),
        base + 32,
        "current descriptor advanced"
    );
    // W1C: only the written bits clear; read-only TS stays.
    bus.write_word(0x1014, 0x1);
    assert_eq!(bus.read_word(0x1014) & 0x5, 0x4);
    bus.write_word(0x1014, u32::MAX);
    assert_eq!(bus.read_word(0x1014) & 0x1_FFFF, 0);
}

#[test]
fn ter_wraps_to_the_list_base_and_summaries_follow_the_enables() {
    let (_clock, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 2, 16);
    bus.write_word(0x1010, base);
    bus.write_word(0x1018, 1 << 13);
    bus.write_word(0x101C, 1); // TIE without NIE: NIS is raised, the line is not
    own_tx(&arena, base, bufs, 60, 0);
    own_tx(&arena, base + 16, bufs, 60, TDES1_TER);
    bus.write_word(0x1004, 1);
    assert_eq!(bus.read_word(0x1048), base, "wrapped");
    own_tx(&arena, base, bufs, 60, TDES1_IC);
    bus.write_word(0x1004, 1);
    bus.model(|m| assert_eq!(m.sent().len(), 3));
    let st = bus.read_word(0x1014);
    assert_ne!(st & (1 << 16), 0, "NIS for enabled TI");
    assert!(!bus.model(|m| m.irq_pending(0)));
    bus.write_word(0x101C, 0x1_0001); // TIE | NIE
    assert!(bus.model(|m| m.irq_pending(0)));
    bus.write_word(0x1014, 0x1_0001);
    assert!(!bus.model(|m| m.irq_pending(0)));
}

#[test]
fn dsl_spaces_descriptors_by_skip_words_times_bus_width() {
    // 64-byte descriptor stride on a 64-bit bus: DSL = (64 - 16) / 8 = 6.
    let (_clock, arena, bus) = setup_with(|m| m.with_bus_width(8));
    let (base, bufs) = raw_ring(&arena, 3, 64);
    bus.write_word(0x1000, 6 << 2);
    bus.write_word(0x1010, base);
    own_tx(&arena, base, bufs, 60, 0);
    own_tx(&arena, base + 64, bufs + 2048, 70, 0);
    // A descriptor at +16 (where DSL 0 would look) is owned garbage: never touched.
    arena.write_u32(base + 16, OWN);
    arena.write_u32(base + 20, TDES1_FS | TDES1_LS | 99);
    bus.write_word(0x1018, 1 << 13);
    bus.model(|m| {
        let lens: Vec<usize> = m.sent().iter().map(|f| f.bytes.len()).collect();
        assert_eq!(lens, [60, 70]);
    });
    assert_eq!(bus.read_word(0x1048), base + 128);
    assert_eq!(arena.read_u32(base + 16).unwrap(), OWN);
}

#[test]
fn enhanced_layout_takes_tx_control_from_tdes0_and_is_announced() {
    let (_clock, arena, bus) = setup_with(|m| m.with_layout(DescLayout::Enhanced));
    assert_ne!(bus.read_word(0x1058) & regs::HW_FEATURE_ENHDESSEL, 0);
    let (base, bufs) = raw_ring(&arena, 2, 16);
    bus.write_word(0x1010, base);
    // 3000 bytes: only a 13-bit TBS1 can say so.
    arena.write_u32(base + 4, 3000);
    arena.write_u32(base + 8, bufs);
    arena.write_u32(
        base,
        OWN | edesc::TDES0_FS | edesc::TDES0_LS | edesc::TDES0_IC | edesc::TDES0_TER,
    );
    bus.write_word(0x1018, 1 << 13);
    bus.model(|m| {
        assert_eq!(m.sent().len(), 1);
        assert_eq!(m.sent()[0].bytes.len(), 3000);
        assert!(m.sent()[0].ic);
    });
    assert_eq!(bus.read_word(0x1048), base, "TER in TDES0 wrapped");
    assert_eq!(arena.read_u32(base).unwrap() & OWN, 0);
}

fn rx_ring(arena: &SimArena, n: u32, size: u32, dic: bool) -> (u32, u32) {
    let (base, bufs) = raw_ring(arena, n, 16);
    for i in 0..n {
        let d = base + 16 * i;
        let mut des1 = size | if i == n - 1 { RDES1_RER } else { 0 };
        if dic {
            des1 |= RDES1_DIC;
        }
        arena.write_u32(d + 4, des1);
        arena.write_u32(d + 8, bufs + 2048 * i);
        arena.write_u32(d, OWN);
    }
    (base, bufs)
}

fn rx_on(bus: &Bus, base: u32) {
    bus.write_word(0x04, 1); // promiscuous: these raw tests inject arbitrary bytes
    bus.write_word(0x100C, base);
    bus.write_word(0x00, 1 << 2);
    bus.write_word(0x1018, 1 << 1);
}

#[test]
fn rx_reports_fl_plus_4_and_ri_then_ru_when_out_of_descriptors() {
    let (clock, arena, bus) = setup();
    let (base, bufs) = rx_ring(&arena, 2, 1536, false);
    bus.write_word(0x100C, base);
    // RX needs MAC RE and DMA SR.
    bus.model(|m| m.inject(0, &[1; 64]));
    assert_eq!(bus.model(|m| m.rx_dropped()), 1);
    rx_on(&bus, base);
    assert_eq!((bus.read_word(0x1014) >> 17) & 7, regs::RS_WAITING);
    for _ in 0..3 {
        bus.model(|m| m.inject(clock.now_ns(), &[7; 64]));
    }
    let d0 = arena.read_u32(base).unwrap();
    assert_eq!(d0 & OWN, 0);
    assert_eq!((d0 >> RDES0_FL_SHIFT) & RDES0_FL_MASK, 68);
    assert_eq!(
        d0 & (RDES0_FS | RDES0_LS | RDES0_FT),
        RDES0_FS | RDES0_LS | RDES0_FT
    );
    // The FCS is stored after the frame, as the MAC receives it.
    let b = arena.read_bytes(bufs, 68).unwrap();
    assert_eq!(b[64..], fcs(&[7; 64]).to_le_bytes());
    let st = bus.read_word(0x1014);
    assert_ne!(st & (1 << 6), 0, "RI");
    assert_ne!(st & (1 << 7), 0, "RU: third frame found no descriptor");
    assert_eq!((st >> 17) & 7, regs::RS_SUSPENDED);
    assert_eq!(bus.model(|m| (m.rx_delivered(), m.rx_dropped())), (2, 2));
}

#[test]
fn rx_spills_a_long_frame_across_descriptors_fs_first_ls_with_fl_last() {
    let (clock, arena, bus) = setup();
    let (base, bufs) = rx_ring(&arena, 4, 512, false);
    rx_on(&bus, base);
    let frame: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    let w: Vec<u32> = (0..4)
        .map(|i| arena.read_u32(base + 16 * i).unwrap())
        .collect();
    // 1204 bytes with the FCS: 512 + 512 + 180.
    assert_eq!(w[0] & (OWN | RDES0_FS | RDES0_LS), RDES0_FS);
    assert_eq!(w[1] & (OWN | RDES0_FS | RDES0_LS), 0);
    assert_eq!(w[2] & (OWN | RDES0_FS | RDES0_LS), RDES0_LS);
    assert_eq!((w[2] >> RDES0_FL_SHIFT) & RDES0_FL_MASK, 1204);
    assert_eq!(w[3] & OWN, OWN, "the next descriptor is untouched");
    assert_eq!(arena.read_bytes(bufs, 512).unwrap(), frame[..512]);
    assert_eq!(
        arena.read_bytes(bufs + 2048, 512).unwrap(),
        frame[512..1024]
    );
    assert_eq!(arena.read_bytes(bufs + 4096, 176).unwrap(), frame[1024..]);
    assert_eq!(bus.read_word(0x104C), base + 48);
}

#[test]
fn rx_out_of_descriptors_mid_frame_waits_and_continues_without_fs() {
    let (clock, arena, bus) = setup();
    let (base, bufs) = rx_ring(&arena, 2, 256, false);
    rx_on(&bus, base);
    let frame = vec![0x33u8; 700]; // 704 with FCS: 256 + 256 + 192
    bus.model(|m| m.inject(clock.now_ns(), &frame));
    assert_ne!(bus.read_word(0x1014) & (1 << 7), 0, "RU mid-frame");
    assert_eq!(bus.model(|m| m.rx_delivered()), 0);
    // The CPU gives descriptor 0 back; the rest arrives after a poll demand.
    arena.write_u32(base, OWN);
    bus.write_word(0x1008, 1);
    let d0 = arena.read_u32(base).unwrap();
    assert_eq!(
        d0 & (OWN | RDES0_FS | RDES0_LS),
        RDES0_LS,
        "continuation: LS, no FS"
    );
    assert_eq!((d0 >> RDES0_FL_SHIFT) & RDES0_FL_MASK, 704);
    assert_eq!(arena.read_bytes(bufs, 188).unwrap(), frame[512..]);
    assert_eq!(bus.model(|m| m.rx_delivered()), 1);
}

#[test]
fn rx_last_descriptor_written_twice_when_split_like_qemu() {
    let (clock, arena, bus) = setup();
    let (base, _bufs) = rx_ring(&arena, 4, 1536, false);
    rx_on(&bus, base);
    bus.model(|m| m.set_split_last_write(true));
    bus.model(|m| m.inject(clock.now_ns(), &[9; 100]));
    let w = arena.read_u32(base).unwrap();
    assert_eq!(
        w & (OWN | RDES0_FS | RDES0_LS),
        RDES0_FS,
        "OWN clear, no LS yet"
    );
    bus.model(|m| m.complete_rx_writes());
    let w = arena.read_u32(base).unwrap();
    assert_eq!(w & (OWN | RDES0_FS | RDES0_LS), RDES0_FS | RDES0_LS);
}

#[test]
fn rx_watchdog_raises_ri_riwt_x_256_csr_clocks_after_the_frame() {
    let (clock, arena, bus) = setup();
    let (base, _) = rx_ring(&arena, 4, 1536, true);
    rx_on(&bus, base);
    bus.write_word(0x1024, 0x80); // 128 × 256 / 125 MHz = 262.144 µs
    let t0 = clock.now_ns();
    bus.model(|m| m.inject(t0, &[1; 60]));
    bus.model(|m| m.inject(t0, &[2; 60]));
    assert_eq!(
        bus.model(|m| m.raw_status(t0)) & (1 << 6),
        0,
        "DIC: no RI yet"
    );
    let at = bus.model(|m| m.riwt_deadline()).unwrap();
    assert_eq!(at - t0, 262_144);
    assert_eq!(bus.model(|m| m.raw_status(at - 1)) & (1 << 6), 0);
    assert_ne!(bus.model(|m| m.raw_status(at)) & (1 << 6), 0);
    // Without RIWT and with DIC set there is no RX interrupt at all (QEMU's case).
    let (c2, arena2, bus2) = setup();
    let (b2, _) = rx_ring(&arena2, 2, 1536, true);
    rx_on(&bus2, b2);
    bus2.model(|m| m.inject(0, &[1; 60]));
    assert_eq!(bus2.model(|m| m.raw_status(u64::MAX)) & (1 << 6), 0);
    // Nothing time-driven is pending there: the model has no next interrupt.
    assert_eq!(Gmac3Irq(&bus2).advance_to_next(), None);
    assert!(c2.now_ns() < 1_000_000);
}

#[test]
fn the_rx_watchdog_is_the_models_irq_source() {
    let (clock, arena, bus) = setup();
    let (base, _) = rx_ring(&arena, 4, 1536, true);
    rx_on(&bus, base);
    bus.write_word(0x101C, (1 << 16) | (1 << 6)); // NIE, RIE
    bus.write_word(0x1024, 0x80);
    let t0 = clock.now_ns();
    bus.model(|m| m.inject(t0, &[1; 60]));
    assert!(!bus.model(|m| m.irq_pending(clock.now_ns())));
    // One step to the watchdog's expiry: the clock is there and the line is asserted.
    assert_eq!(Gmac3Irq(&bus).advance_to_next(), Some(t0 + 262_144));
    assert_eq!(clock.now_ns(), t0 + 262_144);
    assert!(bus.model(|m| m.irq_pending(clock.now_ns())));
    assert_eq!(
        Gmac3Irq(&bus).advance_to_next(),
        None,
        "RI raised: the watchdog stopped"
    );
}

#[test]
fn filter_passes_our_address_broadcast_and_hashed_multicast_only() {
    let (clock, arena, bus) = setup();
    let (base, _) = rx_ring(&arena, 8, 1536, false);
    bus.write_word(0x100C, base);
    bus.write_word(0x00, 1 << 2);
    bus.write_word(0x1018, 1 << 1);
    // MAC address 0 = 52:54:00:12:34:56, AE.
    bus.write_word(0x40, 0x8000_5634);
    bus.write_word(0x44, 0x1200_5452);
    let us = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    let other = [0x52, 0x54, 0x00, 0x12, 0x34, 0x57];
    let bcast = [0xFF; 6];
    let mcast = [0x33, 0x33, 0, 0, 0, 1];
    let frame = |dst: [u8; 6]| {
        let mut f = vec![0u8; 60];
        f[..6].copy_from_slice(&dst);
        f
    };
    let inject = |dst| bus.model(|m| m.inject(clock.now_ns(), &frame(dst)));
    for dst in [us, other, bcast, mcast] {
        inject(dst);
    }
    assert_eq!(bus.model(|m| (m.rx_delivered(), m.rx_filtered())), (2, 2));
    // DBF drops broadcast; PM passes all multicast; HMC passes the hashed bin only.
    bus.write_word(0x04, (1 << 5) | (1 << 4));
    inject(bcast);
    inject(mcast);
    assert_eq!(bus.model(|m| (m.rx_delivered(), m.rx_filtered())), (3, 3));
    let bin = stmmac_coalesce::multicast_hash_bin(mcast);
    let (lo, hi) = if bin < 32 {
        (1 << bin, 0)
    } else {
        (0, 1 << (bin - 32))
    };
    bus.write_word(0x0C, lo);
    bus.write_word(0x08, hi);
    bus.write_word(0x04, 1 << 2);
    inject(mcast);
    inject([0x01, 0x00, 0x5e, 0, 0, 1]);
    assert_eq!(bus.model(|m| (m.rx_delivered(), m.rx_filtered())), (4, 4));
    // PR: everything.
    bus.write_word(0x04, 1);
    inject(other);
    assert_eq!(bus.model(|m| m.rx_delivered()), 5);
}

#[test]
fn tx_faults_stop_the_process_until_st_is_written_again() {
    let (_clock, arena, bus) = setup();
    let (base, bufs) = raw_ring(&arena, 2, 16);
    bus.write_word(0x1010, base);
    bus.write_word(0x1018, 1 << 13);
    bus.model(|m| m.fail_tx(TxFault::Underflow));
    own_tx(&arena, base, bufs, 60, 0);
    bus.write_word(0x1004, 1);
    let st = bus.read_word(0x1014);
    assert_eq!(st & 0x22, 0x22, "UNF and TPS: {st:#x}");
    assert_eq!((st >> 20) & 7, regs::TS_STOPPED);
    assert_eq!(arena.read_u32(base).unwrap() & OWN, OWN, "still owned");
    bus.write_word(0x1004, 1);
    assert_eq!(
        bus.model(|m| m.sent().len()),
        0,
        "a poll demand does not restart it"
    );
    bus.write_word(0x1018, 0);
    bus.write_word(0x1018, 1 << 13);
    assert_eq!(bus.model(|m| m.sent().len()), 1, "ST again: it goes on");
}

#[test]
fn swr_resets_and_self_clears_and_identification_matches_qemu() {
    let (clock, _arena, bus) = setup();
    assert_eq!(bus.read_word(0x20), 0x1032);
    assert_eq!(bus.read_word(0x1058), 0x100D_4F37);
    bus.write_word(0x1018, 0x2002);
    bus.write_word(0x1000, 1);
    assert_eq!(bus.read_word(0x1000) & 1, 1);
    clock.advance(SWR_NS);
    assert_eq!(bus.read_word(0x1000), regs::DMA_BUS_MODE_RESET);
    assert_eq!(bus.read_word(0x1018), 0);
}

#[test]
fn mdio_busy_lasts_one_frame_at_the_cr_divided_clock() {
    let (clock, _arena, bus) = setup();
    // CR = 1 (100–150 MHz, /62): MDC 2.016 MHz, one frame 31.75 µs.
    let frame = mdio_bus::frame_ns(SIM_CSR_HZ / 62);
    let t0 = clock.now_ns();
    bus.write_word(0x10, (2 << 6) | (1 << 2) | 1);
    assert_eq!(bus.read_word(0x10) & 1, 1);
    clock.advance_to(t0 + frame);
    assert_eq!(bus.read_word(0x10) & 1, 0);
    assert_eq!(bus.read_word(0x14), 0x0362);
    assert_eq!(bus.model(|m| m.mdio_frames()), 1);
}
