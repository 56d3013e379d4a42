//! The behavioural DWMAC against the facts of hardware.md §4.5–4.7 / qemu.md §3, driven
//! through raw registers and descriptors in the sim arena.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::regs::{self, desc::*};
use stmmac_coalesce::sim::{DwmacModel, SIM_CSR_HZ, SWR_NS, SimArena};
use stmmac_coalesce::{DmaAddr, DmaBuffer, RxDesc, TxDesc};

type Bus = SimBus<DwmacModel<PhyModel>>;

fn setup() -> (SimClock, SimArena, Bus) {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 256 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let bus = SimBus::new(&clock, DwmacModel::new(arena.clone(), phy, SIM_CSR_HZ));
    (clock, arena, bus)
}

struct Tx {
    descs: &'static mut [TxDesc],
    bufs: &'static mut [DmaBuffer],
}

fn tx_ring(arena: &SimArena, n: usize) -> (u32, Tx) {
    let descs = arena.tx_descs(n).unwrap();
    let bufs = arena.buffers(n).unwrap();
    let base = arena.bus_addr(descs.as_ptr().cast()).unwrap();
    (base, Tx { descs, bufs })
}

fn own_tx(arena: &SimArena, t: &Tx, i: usize, len: u32, des1_extra: u32) {
    let d = arena
        .bus_addr((&t.descs[i] as *const TxDesc).cast())
        .unwrap();
    let b = arena.bus_addr(t.bufs[i].as_ptr()).unwrap();
    arena.write_u32(d + 4, TDES1_FS | TDES1_LS | len | des1_extra);
    arena.write_u32(d + 8, b);
    arena.write_u32(d, OWN);
}

#[test]
fn tx_walks_owned_descriptors_sets_ti_only_with_ic_then_suspends() {
    let (_clock, arena, bus) = setup();
    let (base, t) = tx_ring(&arena, 4);
    bus.write_word(0x1010, base);
    own_tx(&arena, &t, 0, 60, 0);
    own_tx(&arena, &t, 1, 61, TDES1_IC);
    bus.write_word(0x1018, 1 << 13); // ST: walks now
    let st = bus.read_word(0x1014);
    assert_eq!(st & 0x5, 0x5, "TI and TU: {st:#x}");
    assert_eq!((st >> 20) & 7, regs::TS_SUSPENDED);
    assert_eq!(t.descs[0].word(0) & OWN, 0);
    assert_eq!(t.descs[1].word(0) & OWN, 0);
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
    let (base, t) = tx_ring(&arena, 2);
    bus.write_word(0x1010, base);
    bus.write_word(0x1018, 1 << 13);
    bus.write_word(0x101C, 1); // TIE without NIE: NIS is raised, the line is not
    own_tx(&arena, &t, 0, 60, 0);
    own_tx(&arena, &t, 1, 60, TDES1_TER);
    bus.write_word(0x1004, 1);
    assert_eq!(bus.read_word(0x1048), base, "wrapped");
    own_tx(&arena, &t, 0, 60, TDES1_IC);
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

fn rx_ring(arena: &SimArena, n: usize, dic: bool) -> (u32, &'static mut [RxDesc]) {
    let descs = arena.rx_descs(n).unwrap();
    let bufs = arena.buffers(n).unwrap();
    let base = arena.bus_addr(descs.as_ptr().cast()).unwrap();
    for (i, buf) in bufs.iter().enumerate() {
        let d = base + 16 * i as u32;
        let mut des1 = 1536 | if i == n - 1 { RDES1_RER } else { 0 };
        if dic {
            des1 |= RDES1_DIC;
        }
        arena.write_u32(d + 4, des1);
        arena.write_u32(d + 8, arena.bus_addr(buf.as_ptr()).unwrap());
        arena.write_u32(d, OWN);
    }
    (base, descs)
}

#[test]
fn rx_reports_fl_plus_4_and_ri_then_ru_when_out_of_descriptors() {
    let (clock, arena, bus) = setup();
    let (base, descs) = rx_ring(&arena, 2, false);
    bus.write_word(0x100C, base);
    // RX needs MAC RE and DMA SR.
    bus.model(|m| m.inject(0, &[1; 64]));
    assert_eq!(bus.model(|m| m.rx_dropped()), 1);
    bus.write_word(0x00, 1 << 2);
    bus.write_word(0x1018, 1 << 1);
    assert_eq!((bus.read_word(0x1014) >> 17) & 7, regs::RS_WAITING);
    for _ in 0..3 {
        bus.model(|m| m.inject(clock.now_ns(), &[7; 64]));
    }
    let d0 = descs[0].word(0);
    assert_eq!(d0 & OWN, 0);
    assert_eq!((d0 >> RDES0_FL_SHIFT) & RDES0_FL_MASK, 68);
    assert_eq!(
        d0 & (RDES0_FS | RDES0_LS | RDES0_FT),
        RDES0_FS | RDES0_LS | RDES0_FT
    );
    let st = bus.read_word(0x1014);
    assert_ne!(st & (1 << 6), 0, "RI");
    assert_ne!(st & (1 << 7), 0, "RU: third frame found no descriptor");
    assert_eq!((st >> 17) & 7, regs::RS_SUSPENDED);
    assert_eq!(bus.model(|m| (m.rx_delivered(), m.rx_dropped())), (2, 2));
}

#[test]
fn rx_watchdog_raises_ri_riwt_x_256_csr_clocks_after_the_frame() {
    let (clock, arena, bus) = setup();
    let (base, _descs) = rx_ring(&arena, 4, true);
    bus.write_word(0x100C, base);
    bus.write_word(0x00, 1 << 2);
    bus.write_word(0x1018, 1 << 1);
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
    let (_c2, arena2, bus2) = setup();
    let (b2, _d2) = rx_ring(&arena2, 2, true);
    bus2.write_word(0x100C, b2);
    bus2.write_word(0x00, 1 << 2);
    bus2.write_word(0x1018, 1 << 1);
    bus2.model(|m| m.inject(0, &[1; 60]));
    assert_eq!(bus2.model(|m| m.raw_status(u64::MAX)) & (1 << 6), 0);
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
    let start = t0; // the write is modelled at its start time
    assert_eq!(bus.read_word(0x10) & 1, 1);
    clock.advance_to(start + frame);
    assert_eq!(bus.read_word(0x10) & 1, 0);
    assert_eq!(bus.read_word(0x14), 0x0362);
    assert_eq!(bus.model(|m| m.mdio_frames()), 1);
}
