//! Telling the layouts apart (issue: a MAC_VERSION that matches neither layout gives a typed
//! error and nothing is programmed), on register files that answer only the version
//! registers, and on the 3.x behavioural model.

use crate::harness::*;
use hwtimer_core::sim::{SimBus, SimClock, SimModel};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena};
use stmmac_coalesce::{Error, Probed, Qos, probe};

/// A block whose 0x110 and 0x20 read the given values and everything else 0; it counts
/// the writes it sees.
struct Versions {
    at_110: u32,
    at_20: u32,
}

impl SimModel for Versions {
    type Word = u32;
    fn read(&mut self, _now: u64, offset: usize) -> u32 {
        match offset {
            0x110 => self.at_110,
            0x20 => self.at_20,
            _ => 0,
        }
    }
    fn write(&mut self, _now: u64, _offset: usize, _value: u32) {}
}

fn bus(at_110: u32, at_20: u32) -> SimBus<Versions> {
    SimBus::new(&SimClock::new(), Versions { at_110, at_20 })
}

#[test]
fn each_qos_version_probes_as_qos_and_reads_only() {
    for v in [0x3040, 0x3041, 0x1042, 0x0051, 0x3052] {
        let b = bus(v, 0);
        let (found, stats) = b.counted(|| probe(&b));
        match found {
            Ok(Probed::Qos(mac)) => assert_eq!(mac.version(), v),
            Ok(Probed::Gmac3(_)) => panic!("{v:#x}: taken for 3.x"),
            Err(e) => panic!("{v:#x}: {e}"),
        }
        assert_eq!(stats.writes, 0, "{v:#x}");
        let (m, stats) = b.counted(|| Qos::probe(&b));
        assert_eq!(m.unwrap().snpsver(), (v & 0xFF) as u8);
        assert_eq!(stats.writes, 0);
    }
}

#[test]
fn a_version_of_neither_layout_is_a_typed_error_and_nothing_is_written() {
    // 0x3F: just below the QoS range (any SNPSVER from 0x40 up is QoS, as in Linux); 0
    // and all ones: no block there; 0x1032 at 0x110: a 3.x version number in the 4.x
    // register.
    for (q, g) in [
        (0x0000_003F, 0),
        (0x0000_0030, 0x0000_0029),
        (0, 0),
        (u32::MAX, u32::MAX),
        (0x1032, 0x0041),
    ] {
        let b = bus(q, g);
        let (r, stats) = b.counted(|| probe(&b).map(|_| ()));
        assert_eq!(
            r,
            Err(Error::UnknownVersion {
                mac_version: q,
                gmac_version: g
            }),
            "{q:#x} {g:#x}"
        );
        assert_eq!(stats.writes, 0);
        let (r, stats) = b.counted(|| Qos::probe(&b).map(|_| ()));
        assert_eq!(
            r,
            Err(Error::UnknownVersion {
                mac_version: q,
                gmac_version: g
            })
        );
        assert_eq!(stats.writes, 0);
    }
}

#[test]
fn the_3x_model_probes_as_3x() {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 64 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let b = SimBus::new(&clock, Gmac3Model::new(arena, phy, SIM_CSR_HZ));
    let (found, stats) = b.counted(|| probe(&b));
    assert!(matches!(found, Ok(Probed::Gmac3(_))));
    assert_eq!(stats.writes, 0);
    assert!(matches!(Qos::probe(&b), Err(Error::UnknownVersion { .. })));
}

#[test]
fn a_qos_ring_refuses_to_start_on_a_3x_mac_before_any_write() {
    use stmmac_coalesce::{ConfigError, NoTimer, RxRing, TxRing, ring_bytes};
    let b = Board::<OnGmac3>::new();
    // HW_FEATURE0 with both checksum engines, HW_FEATURE1 with 4 KiB FIFOs, 32-bit DMA.
    // SAFETY: the set-up's ring is refused by the 3.x MAC before any write (the test).
    let qos = unsafe { OnGmac3::dma().resolve_assuming_layout(stmmac_coalesce::DescLayout::Qos) }
        .unwrap();
    let tx_cfg = tx_cfg(4, no_timer(1));
    let mem = b
        .arena
        .region(ring_bytes(4, tx_cfg.buf_size, qos.cache_line()))
        .unwrap();
    let mut tx = TxRing::new(
        mem,
        &b.arena,
        &qos,
        tx_cfg,
        NoTimer,
        stmmac_coalesce::Coherent,
    )
    .unwrap();
    let (r, stats) = b.bus.counted(|| tx.try_start(&b.mac));
    assert_eq!(r, Err(Error::Config(ConfigError::LayoutMismatch)));
    assert_eq!(stats.writes, 0);
    assert_eq!(tx.stats().refused_starts, 1);
    let rx_cfg = rx_cfg(4, 1536);
    let mem = b
        .arena
        .region(ring_bytes(4, 1536, qos.cache_line()))
        .unwrap();
    let mut rx = RxRing::new(mem, &b.arena, &qos, rx_cfg, stmmac_coalesce::Coherent).unwrap();
    let (r, stats) = b.bus.counted(|| rx.try_start(&b.mac));
    assert_eq!(r, Err(Error::Config(ConfigError::LayoutMismatch)));
    assert_eq!(stats.writes, 0);
}

#[test]
fn a_qos_ring_used_with_a_3x_mac_refuses_and_touches_nothing() {
    use stmmac_coalesce::{ConfigError, NoTimer};
    let b4 = Board::<OnQos>::new();
    b4.link_up();
    let b3 = Board::<OnGmac3>::new();
    b3.link_up();
    let mut tx = b4.tx(tx_cfg(4, no_timer(1)), NoTimer, stmmac_coalesce::Coherent);
    let mut rx = b4.rx(rx_cfg(4, 1536), stmmac_coalesce::Coherent);
    let frame = stmmac_coalesce::sim::eth_frame([0xFF; 6], 60, 1);
    let mismatch = Err(Error::Config(ConfigError::LayoutMismatch));
    let (r, s3) = b3.bus.counted(|| tx.send(&b3.mac, &frame).map(|_| ()));
    assert_eq!(r, mismatch);
    assert_eq!(s3.writes, 0);
    let (r, s3) = b3.bus.counted(|| rx.receive(&b3.mac).map(|_| ()));
    assert_eq!(r, mismatch);
    assert_eq!(s3.writes + s3.reads, 0);
    // A slot reserved on the 4.x MAC and committed through the 3.x one.
    let slot = tx.reserve_slot(&b4.mac).unwrap();
    let (r, s3) = b3
        .bus
        .counted(|| tx.commit_slot(&b3.mac, slot, 60).map(|_| ()));
    assert_eq!(r, mismatch);
    assert_eq!(s3.writes, 0);
    assert!(b4.sent().is_empty() && b3.sent().is_empty());
}

/// A 4.10 block whose MDIO frames finish at once, recording every write.
struct MdioRecorder {
    writes: std::vec::Vec<(usize, u32)>,
    data: u32,
}

impl SimModel for MdioRecorder {
    type Word = u32;
    fn read(&mut self, _now: u64, offset: usize) -> u32 {
        match offset {
            0x110 => 0x3041,
            0x204 => self.data,
            _ => 0,
        }
    }
    fn write(&mut self, _now: u64, offset: usize, value: u32) {
        self.writes.push((offset, value));
        if offset == 0x204 {
            self.data = value;
        }
    }
}

#[test]
fn clause_45_frames_carry_the_device_and_register_where_the_databook_puts_them() {
    use hwtimer_core::sim::SimCounter;
    use mdio_bus::{DevAddr, Mdio, Mdio45};
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000);
    let b = SimBus::new(
        &clock,
        MdioRecorder {
            writes: Vec::new(),
            data: 0,
        },
    );
    let mac = Qos::probe(&b).unwrap();
    let mut mdio = mac.mdio(&counter, SIM_CSR_HZ).unwrap();
    let cr = mdio.cr();
    // Positions written out (Linux dwmac4.h / RM0433): PA 25:21, RDA 20:16, CR 11:8,
    // GOC 3:2 (1 write, 3 read), C45E 1, GB 0; MDIO_DATA: RA 31:16, GD 15:0.
    mdio.write_c45(PhyAddr::from_bits(5), DevAddr::PCS, 0x0800, 0xBEEF)
        .unwrap();
    let v = mdio
        .read_c45(PhyAddr::from_bits(5), DevAddr::AN, 0x0010)
        .unwrap();
    mdio.write(
        PhyAddr::from_bits(1),
        mdio_bus::RegAddr::from_bits(4),
        0x01E1,
    )
    .unwrap();
    let w = b.model(|m| m.writes.clone());
    let addr = |pa: u32, rda: u32, goc: u32, c45: u32| {
        (pa << 21) | (rda << 16) | (cr << 8) | (goc << 2) | (c45 << 1) | 1
    };
    assert_eq!(
        w,
        [
            (0x204, (0x0800 << 16) | 0xBEEF),
            (0x200, addr(5, 3, 1, 1)),
            (0x204, 0x0010 << 16),
            (0x200, addr(5, 7, 3, 1)),
            (0x204, 0x01E1),
            (0x200, addr(1, 4, 1, 0)),
        ]
    );
    // The read returns MDIO_DATA.GD (here what the register file holds).
    assert_eq!(v, 0);
}
