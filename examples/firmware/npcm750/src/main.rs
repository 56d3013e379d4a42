//! Firmware for QEMU's `npcm750-evb` machine (Nuvoton NPCM750 BMC, two Cortex-A9 cores).
//!
//! Boot: QEMU loads this ELF at 0x0010_0000 and starts *both* CPUs at `_start`, in SVC mode
//! with the MMU and caches off and high vectors (SCTLR.V = 1, the boot ROM at 0xffff_0000).
//! The shared ARM entry code ([`fw_common::arm_board!`]) parks CPU1, sets up the stacks,
//! points VBAR at a vector table in RAM, zeroes `.bss`, prints the banner and the CPU
//! identification, and calls [`run`]; the run ends through ARM semihosting.
//!
//! [`run`] drives GMAC0 through `stmmac-coalesce`'s public API: DMA reset, identification,
//! the PHY ID over MDIO, rings in static RAM, a burst of ARP requests with `tx_frames`
//! coalescing (IC on every 4th frame), TI events from DMA_STATUS, reclaim, and the ARP reply
//! of QEMU's slirp (10.0.2.2) received through RX DMA. No timer interrupt is set up on this
//! board: reclaim is driven from the status poll (`tx_usecs = 0`, so the crate arms no
//! timer), which the output says.
//!
//! Run it with `cargo xtask qemu npcm750`; the checked output is in `expected.txt`.
#![no_std]
#![no_main]

use fw_common::arm::pmu;
use fw_common::{Console, mmio, println};
use stmmac_coalesce::mdio_bus::{Mdio, PhyAddr, RegAddr};
use stmmac_coalesce::regs::{self, DMA_STATUS};
use stmmac_coalesce::{
    CoalesceConfig, DmaBuffer, Dwmac, Error, Identity, RxDesc, RxRing, TimerStrategy, TxDesc,
    TxRing,
};
use timer_core::{Clocksource, Continuous, Mmio, Stopwatch};

/// UART0 base address (16550-compatible, register shift 2, 32-bit access).
const UART0_BASE: usize = 0xf000_1000;
/// Transmit holding register.
const UART_THR: usize = UART0_BASE;
/// Line status register (register 5, shifted by 2).
const UART_LSR: usize = UART0_BASE + (5 << 2);
/// LSR bit 5: transmit holding register empty.
const UART_LSR_THRE: u32 = 1 << 5;

/// GMAC0 (Synopsys DesignWare GMAC 3.x, driven by stmmac) base address (hardware.md §4.11).
const GMAC0_BASE: usize = 0xf080_2000;
/// Size of the GMAC register block (MAC 0x0000.., DMA 0x1000..0x105C).
const GMAC_LEN: usize = 0x1060;
/// CSR clock assumed for MII_ADDR.CR. The NPCM750's GMAC clock rate is not in our sources;
/// QEMU ignores CR, so this only selects a plausible divider (125 MHz → /62).
const CSR_HZ: u32 = 125_000_000;

/// Our MAC address (QEMU's default for the first NIC) and IPv4 addresses of slirp's network.
const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
const OUR_IP: [u8; 4] = [10, 0, 2, 15];
const GATEWAY_IP: [u8; 4] = [10, 0, 2, 2];

/// Frames in the TX burst, and the coalescing setting: IC on every 4th frame.
const BURST: u32 = 8;
const TX_FRAMES: u32 = 4;

const TX_N: usize = 8;
const RX_N: usize = 8;

// Ring memory: zero-initialised, so it lives in .bss (zeroed by the entry code). The MMU is
// off, so CPU addresses are bus addresses (`Identity`) and, under QEMU, memory is coherent.
static mut TX_DESCS: [TxDesc; TX_N] = [const { TxDesc::new() }; TX_N];
static mut TX_BUFS: [DmaBuffer; TX_N] = [const { DmaBuffer::new() }; TX_N];
static mut RX_DESCS: [RxDesc; RX_N] = [const { RxDesc::new() }; RX_N];
static mut RX_BUFS: [DmaBuffer; RX_N] = [const { DmaBuffer::new() }; RX_N];

/// UART0, polled. Needs no set-up under QEMU.
#[derive(Clone, Copy)]
struct Uart0;

impl Console for Uart0 {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: THR/LSR of UART0 on this SoC; this firmware is their only user, and only
        // CPU0 runs it.
        unsafe {
            while mmio::read32(UART_LSR) & UART_LSR_THRE == 0 {}
            mmio::write32(UART_THR, u32::from(byte));
        }
    }
}

/// The PMU cycle counter as a continuous clocksource for the crate's bounded waits (QEMU
/// counts it at 1 GHz of virtual time; 32 bits wrap every 4.3 s, which `Stopwatch` handles).
#[derive(Clone, Copy)]
struct Cycles;

impl Clocksource for Cycles {
    fn bits(&self) -> u32 {
        32
    }
    fn freq_hz(&self) -> u32 {
        1_000_000_000
    }
    fn read(&self) -> u64 {
        u64::from(pmu::cycles())
    }
}

impl Continuous for Cycles {}

fw_common::arm_board! {
    name: "npcm750",
    console: Uart0,
    main: run,
}

/// A broadcast ARP request "who has `target`, tell `OUR_IP`", padded to 60 bytes.
fn arp_request(target: [u8; 4]) -> [u8; 60] {
    let mut f = [0u8; 60];
    f[0..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&MAC);
    f[12..14].copy_from_slice(&[0x08, 0x06]); // ARP
    f[14..22].copy_from_slice(&[0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01]); // Ethernet/IPv4, request
    f[22..28].copy_from_slice(&MAC);
    f[28..32].copy_from_slice(&OUR_IP);
    f[38..42].copy_from_slice(&target);
    f
}

/// `Some(sender IP)` if `frame` is an ARP reply.
fn arp_reply_sender(frame: &[u8]) -> Option<[u8; 4]> {
    if frame.get(12..14)? != [0x08, 0x06] || frame.get(20..22)? != [0x00, 0x02] {
        return None;
    }
    frame.get(28..32)?.try_into().ok()
}

/// The board's checks, run on CPU0 after the banner; returns whether all passed.
fn run() -> bool {
    match gmac() {
        Ok(ok) => ok,
        Err(e) => {
            println!(Uart0, "GMAC error: {e:?}");
            false
        }
    }
}

fn gmac() -> Result<bool, Error> {
    pmu::enable();
    // SAFETY: the GMAC0 register block of this SoC; this firmware is its only user.
    let mac = Dwmac::new(unsafe { Mmio::<u32>::new(GMAC0_BASE, GMAC_LEN) });
    let version = mac.version();
    let snpsver = version & 0xff;
    println!(
        Uart0,
        "GMAC0 VERSION = {version:#010x} (Synopsys GMAC {}.{})",
        snpsver >> 4,
        snpsver & 0xf
    );
    let polls = mac.soft_reset(Cycles)?;
    println!(Uart0, "DMA reset: SWR cleared after {polls} reads");

    let mut mdio = mac.mdio(Cycles, CSR_HZ)?;
    let (phy, id2, id3) = (
        PhyAddr::from_bits(0),
        RegAddr::from_bits(2),
        RegAddr::from_bits(3),
    );
    let id = mdio
        .read(phy, id2)
        .and_then(|hi| Ok(u32::from(hi) << 16 | u32::from(mdio.read(phy, id3)?)))?;
    println!(Uart0, "PHY ID (MDIO addr 0, CR {}) = {id:#010x}", mdio.cr());

    // SAFETY: `gmac` runs once, on CPU0 only; these are the only references ever taken to
    // the ring statics, and the rings keep them for the rest of the run.
    let (txd, txb, rxd, rxb) = unsafe {
        (
            &mut *(&raw mut TX_DESCS),
            &mut *(&raw mut TX_BUFS),
            &mut *(&raw mut RX_DESCS),
            &mut *(&raw mut RX_BUFS),
        )
    };
    let cfg = CoalesceConfig {
        tx_frames: TX_FRAMES,
        tx_usecs: 0,
        ..CoalesceConfig::default()
    };
    let mut tx = TxRing::new(txd, txb, Identity, cfg, TimerStrategy::ArmOnce)?;
    let mut rx = RxRing::new(rxd, rxb, Identity, false)?;
    mac.set_mac_address(MAC);
    mac.set_ring_bases(tx.base(), rx.base());
    mac.set_interrupts(regs::DMA_INTR_DEFAULT);
    mac.start();

    // The burst. QEMU sends each frame inside the poll-demand write, so DMA_STATUS.TI is
    // visible right after a frame whose descriptor had IC; acknowledge it as an ISR would.
    let frame = arp_request(GATEWAY_IP);
    let mut ti_events = 0u32;
    for _ in 0..BURST {
        tx.transmit(&mac, &frame, false)?;
        let st = mac.status();
        if st.is_set(DMA_STATUS::TI) {
            ti_events += 1;
            mac.ack((1 << 0) | (1 << 16));
        }
    }
    let st = mac.status();
    println!(
        Uart0,
        "TX burst: {BURST} frames, tx_frames {TX_FRAMES}: IC set on {} descriptors, TI events {ti_events}",
        tx.stats().ic_set
    );
    println!(
        Uart0,
        "DMA_STATUS TU={} TS={} (suspended = 6)",
        u32::from(st.is_set(DMA_STATUS::TU)),
        st.read(DMA_STATUS::TS)
    );
    let reclaimed = tx.reclaim();
    println!(
        Uart0,
        "reclaimed {reclaimed} descriptors, {} pending (tx_usecs 0: no coalescing timer, reclaim driven by the status poll)",
        tx.pending()
    );

    // The replies: slirp answered during the TX writes; wait at most 500 ms of virtual time.
    let mut watch = Stopwatch::start(Cycles);
    let mut replies = 0u32;
    let mut first: Option<(u32, [u8; 4])> = None;
    loop {
        match rx.receive(&mac, arp_reply_sender) {
            Ok(f) => {
                if let Some(ip) = f.value {
                    replies += 1;
                    first.get_or_insert((f.fl, ip));
                }
            }
            Err(Error::WouldBlock) => {
                if replies > 0 || watch.elapsed() > 500_000_000 {
                    break;
                }
            }
            Err(e) => return Err(e),
        }
    }
    mac.ack(regs::DMA_STATUS_W1C);
    match first {
        Some((fl, [a, b, c, d])) => {
            println!(
                Uart0,
                "RX: ARP reply FL={fl} from {a}.{b}.{c}.{d} ({replies} replies received)"
            );
            Ok(tx.stats().ic_set == u64::from(BURST / TX_FRAMES)
                && reclaimed == BURST as usize
                && [a, b, c, d] == GATEWAY_IP)
        }
        None => {
            println!(Uart0, "RX: no ARP reply within 500 ms");
            Ok(false)
        }
    }
}
