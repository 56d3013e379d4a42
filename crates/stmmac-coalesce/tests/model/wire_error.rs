//! A receive error from the wire stays with its frame: a GMAC 3.x frame injected with an
//! error that waits in the RX FIFO for descriptors reports the error on its last
//! descriptor when it is finally stored. Offsets and bits are written out from the sources
//! (Linux `dwmac_dma.h`, `dwmac1000.h`, `descs.h`), not taken from the crate.

use hwtimer_core::RegisterBus;
use hwtimer_core::sim::{SimBus, SimClock};
use mdio_bus::PhyAddr;
use mdio_bus::sim::PhyModel;
use stmmac_coalesce::DmaAddr;
use stmmac_coalesce::sim::{Gmac3Model, RxWireError, SIM_CSR_HZ, SimArena, eth_frame};

const GMAC_CONTROL: usize = 0x00; // dwmac1000.h
const GMAC_FRAME_FILTER: usize = 0x04;
const CONTROL_RE: u32 = 1 << 2;
const DMA_RCV_POLL_DEMAND: usize = 0x1008; // dwmac_dma.h
const DMA_RCV_BASE_ADDR: usize = 0x100C;
const DMA_STATUS: usize = 0x1014;
const DMA_CONTROL: usize = 0x1018;
const DMA_SR: u32 = 1 << 1;
const ST_RU: u32 = 1 << 7;
const OWN: u32 = 1 << 31; // descs.h RDES0_OWN
const RDES0_CE: u32 = 1 << 1; // descs.h RDES0_CRC_ERROR
const RDES0_LS: u32 = 1 << 8; // RDES0_LAST_DESCRIPTOR
const RDES0_ES: u32 = 1 << 15; // RDES0_ERROR_SUMMARY
const RDES1_END_RING: u32 = 1 << 25;

#[test]
fn a_gmac3_wire_error_waiting_in_the_fifo_is_reported_when_stored() {
    let clock = SimClock::new();
    let arena = SimArena::new(0x2000_0000, 64 * 1024);
    let phy = PhyModel::bcm54612e(PhyAddr::from_bits(0));
    let model = Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ).with_rx_fifo(16 * 1024);
    let bus = SimBus::new(&clock, model);
    let region = arena.region(2 * (16 + 2048)).unwrap();
    let d = arena.bus_addr(region.as_ptr()).unwrap();
    let b = d + 32;
    for i in 0..2 {
        let rer = if i == 1 { RDES1_END_RING } else { 0 };
        arena.write_u32(d + 16 * i, 0); // CPU-owned: nowhere to store yet
        arena.write_u32(d + 16 * i + 4, 1536 | rer);
        arena.write_u32(d + 16 * i + 8, b + 2048 * i);
    }
    bus.write_word(GMAC_FRAME_FILTER, 1); // PR
    bus.write_word(GMAC_CONTROL, CONTROL_RE);
    bus.write_word(DMA_RCV_BASE_ADDR, d);
    bus.write_word(DMA_CONTROL, DMA_SR);

    let frame = eth_frame([0xFF; 6], 200, 7);
    bus.model(|m| m.inject_with_error(clock.now_ns(), &frame, RxWireError::Crc));
    assert_ne!(
        bus.read_word(DMA_STATUS) & ST_RU,
        0,
        "no descriptor: RU, the frame waits"
    );
    assert_eq!(arena.read_u32(d), Some(0));

    arena.write_u32(d, OWN);
    arena.write_u32(d + 16, OWN);
    bus.write_word(DMA_RCV_POLL_DEMAND, 1);
    let des0 = arena.read_u32(d).unwrap();
    assert_eq!(des0 & OWN, 0, "stored");
    assert_ne!(des0 & RDES0_LS, 0, "in one descriptor");
    assert_eq!(
        des0 & (RDES0_CE | RDES0_ES),
        RDES0_CE | RDES0_ES,
        "the CRC error stays with its frame: RDES0 {des0:#010x}"
    );
}
